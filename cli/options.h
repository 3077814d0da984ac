/* A command and its options declared as data: the parser walks argv
 * against the declarations, and `samsim help CMD`, the man page
 * (`samsim help --man`, checked in as samsim.1) and the bash completion
 * (which reads the help) are all written from them, so that none can
 * miss an option or describe one the parser does not take. */
#ifndef SAMSIM_OPTIONS_H
#define SAMSIM_OPTIONS_H

#include <stdio.h>

#include "../common/error.h"

/* What take() is handed for an argument that is not an option. */
#define CLI_OPERAND 0

/* The forms a command's declarations are written in. */
typedef enum cli_format { CLI_HELP, CLI_MAN, CLI_MARKDOWN } cli_format;

typedef struct cli_option {
    int id;                 /* what the command's take() switches on, > 0 */
    const char *name;       /* "--depth", "-t"; NULL ends a list */
    const char *value;      /* what it takes ("N", "NAME=FILE"); NULL: a flag */
    const char *about;      /* one line of the help */
    const char *detail;     /* what the man page adds, or NULL */
} cli_option;

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis;   /* its arguments: "GRAPH.dot [options]" */
    const char *about;      /* what it does */
    const cli_option *options;
    const char *detail;     /* what the man page adds after the options, or NULL */
    /* The message refusing an option it does not take, %s the option;
     * NULL: "NAME: unknown option ..." */
    const char *refusal;
    /* What the help, the man page or a Markdown reference adds that is
     * declared elsewhere, as the hardware keys, or NULL. */
    void (*more)(FILE *f, cli_format format);
} cli_command;

/* Hands every argument of argv to take: an option declared in c with its
 * value (NULL for a flag; `--name VALUE` or `--name=VALUE`, args.h), any
 * other argument as CLI_OPERAND. An undeclared option is an error naming
 * it; so is what take refuses. */
int options_parse(const cli_command *c, int argc, char **argv,
                  int (*take)(void *ctx, int id, const char *value, sam_error *err), void *ctx,
                  sam_error *err);

/* The one-line error of a command missing what it needs: its usage. */
int options_usage(const cli_command *c, sam_error *err);

/* `samsim help CMD`: the usage, what it does, every option and what more
 * prints. */
void options_print_help(FILE *f, const cli_command *c);

/* One entry of a help list: head in a column, about wrapped beside it. */
void options_print_item(FILE *f, const char *head, const char *about);

/* The command's part of the man page: its .SS section. */
void options_print_man(FILE *f, const cli_command *c);

#endif
