#include "options.h"

#include <string.h>

#include "../common/troff.h"
#include "args.h"

/* text on one line of size bytes: its line breaks and the blanks after
 * them one blank. */
static void flatten(const char *text, char *flat, size_t size)
{
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < size; p++)
        if (*p == '\n' || *p != ' ' || !n || flat[n - 1] != ' ')
            flat[n++] = *p == '\n' ? ' ' : *p;
    flat[n] = '\0';
}

/* 1 and *value when argv[*i] is option o (moving *i past a separate
 * value), 0 when it is not, -1 with err set when its value is missing. */
static int match(const cli_option *o, int argc, char **argv, int *i, const char **value,
                 sam_error *err)
{
    if (o->value)
        return args_option(argc, argv, i, o->name, value, err);
    *value = NULL;
    return !strcmp(argv[*i], o->name);
}

int options_parse(const cli_command *c, int argc, char **argv,
                  int (*take)(void *ctx, int id, const char *value, sam_error *err), void *ctx,
                  sam_error *err)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            if (take(ctx, CLI_OPERAND, a, err))
                return -1;
            continue;
        }
        const cli_option *o = c->options;
        int r = 0;
        const char *value = NULL;
        while (o && o->name && !(r = match(o, argc, argv, &i, &value, err)))
            o++;
        if (r < 0)
            return -1;
        if (!r && c->refusal)
            return error_set(err, c->refusal, a);
        if (!r)
            return error_set(err, "%s: unknown option '%s' (samsim help %s lists them)", c->name,
                             a, c->name);
        if (take(ctx, o->id, value, err))
            return -1;
    }
    return 0;
}

/* text from column at, in lines of at most 90 columns, each indented to
 * at but the first when what is printed already reaches there (here). */
static void print_wrapped(FILE *f, const char *text, int at, int here)
{
    int width = 90 - at;
    for (int first = here; *text; first = 0) {
        int n = (int)strlen(text), cut = n;
        if (n > width)
            for (cut = width; cut > 0 && text[cut] != ' '; cut--)
                ;
        if (cut == 0)
            cut = n;
        fprintf(f, "%*s%.*s\n", first ? 0 : at, "", cut, text);
        text += cut + (text[cut] == ' ');
    }
}

/* What goes between an option and its value: nothing before a value
 * written with its equals sign (-f=T:LEVELS), else a blank. */
static const char *glue(const cli_option *o)
{
    return !o->value || o->value[0] == '=' ? "" : " ";
}

void options_print_item(FILE *f, const char *head, const char *about)
{
    int beside = strlen(head) <= 23;
    fprintf(f, beside ? "  %-23s " : "  %s\n", head);
    print_wrapped(f, about, 26, beside);
}

void options_print_help(FILE *f, const cli_command *c)
{
    fprintf(f, "usage: samsim %s %s\n\n", c->name, c->synopsis);
    print_wrapped(f, c->about, 0, 0);
    if (c->options)
        fputc('\n', f);
    for (const cli_option *o = c->options; o && o->name; o++) {
        char head[64];
        snprintf(head, sizeof head, "%s%s%s", o->name, glue(o), o->value ? o->value : "");
        options_print_item(f, head, o->about);
    }
    if (c->more)
        c->more(f, CLI_HELP);
}


int options_usage(const cli_command *c, sam_error *err)
{
    char flat[1024];
    flatten(c->synopsis, flat, sizeof flat);
    return error_set(err, "usage: samsim %s %s (samsim help %s)", c->name, flat, c->name);
}

/* A sentence of the man page from a line of the help: capitalised. */
static void man_sentence(FILE *f, const char *text)
{
    if (*text >= 'a' && *text <= 'z') {
        fputc(*text - 'a' + 'A', f);
        text++;
    }
    troff_text(f, text);
}

/* Paragraphs separated by a blank line, each after .PP. */
static void man_paragraphs(FILE *f, const char *text)
{
    while (*text) {
        const char *end = strstr(text, "\n\n");
        size_t n = end ? (size_t)(end - text) : strlen(text);
        char para[4096];
        snprintf(para, sizeof para, "%.*s", (int)n, text);
        fputs(".PP\n", f);
        troff_text(f, para);
        fputc('\n', f);
        text += n + (end ? 2 : 0);
    }
}

/* The synopsis on one line: its continuation lines joined. */
static void man_synopsis(FILE *f, const char *text)
{
    char flat[1024];
    flatten(text, flat, sizeof flat);
    troff_text(f, flat);
}

void options_print_man(FILE *f, const cli_command *c)
{
    fputs(".SS samsim ", f);
    troff_text(f, c->name);
    fputc(' ', f);
    man_synopsis(f, c->synopsis);
    fputc('\n', f);
    man_sentence(f, c->about);
    fputc('\n', f);
    for (const cli_option *o = c->options; o && o->name; o++) {
        fputs(o->value ? ".TP\n.BI " : ".TP\n.B ", f);
        troff_text(f, o->name);
        if (o->value) {
            fprintf(f, " \"%s", glue(o));
            troff_text(f, o->value);
            fputc('"', f);
        }
        fputc('\n', f);
        man_sentence(f, o->about);
        fputs(o->detail ? ". " : ".\n", f);
        if (o->detail) {
            troff_text(f, o->detail);
            fputc('\n', f);
        }
    }
    if (c->more)
        c->more(f, CLI_MAN);
    if (c->detail)
        man_paragraphs(f, c->detail);
}
