/* samsim: compile tensor expressions to SAM graphs, simulate them on real
 * data, and convert, generate and describe the tensors they run on. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "man.h"
#include "options.h"
#include "version.h"

static const cli_command *const commands[] = {
    &cmd_compile_command, &cmd_run_command,    &cmd_blocks_command, &cmd_convert_command,
    &cmd_info_command,    &cmd_gen_command,    &cmd_stats_command,  &cmd_render_command,
    &cmd_plot_command,    &cmd_timeline_command, &cmd_template_command, &cmd_sweep_command,
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i]->name))
            return commands[i];
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: samsim COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  samsim %s %s\n", commands[i]->name, commands[i]->synopsis);
    fprintf(f, "\n  samsim help [COMMAND]    (or samsim COMMAND --help)\n"
               "  samsim help --man        the man page, samsim.1\n"
               "  samsim help --hw         the --hw keys as a Markdown table (doc/hardware.md)\n"
               "  samsim --version\n"
               "\nFILE: NAME.mtx (Matrix Market), NAME.tns (FROSTT), or a directory of SAM level "
               "files\n");
}

/* Standard output can fail late (a full disk, a closed pipe): the exit
 * status must say so. */
static int flush_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "samsim: standard output: write error: %s\n", strerror(errno));
        return rc ? rc : 1;
    }
    return rc;
}

static int help(const char *name)
{
    if (!name) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "--man")) {
        man_print(stdout, commands, NCOMMANDS);
        return 0;
    }
    if (!strcmp(name, "--hw")) {
        cmd_run_command.more(stdout, CLI_MARKDOWN);
        return 0;
    }
    const cli_command *c = find_command(name);
    if (!c) {
        fprintf(stderr, "samsim: help: unknown command '%s' (try samsim help)\n", name);
        return 1;
    }
    options_print_help(stdout, c);
    return 0;
}

static int asks_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

static int dispatch(int argc, char **argv)
{
    const char *first = argv[1];
    if (!strcmp(first, "help") || !strcmp(first, "--help") || !strcmp(first, "-h")) {
        if (argc <= 3)
            return help(argc == 3 ? argv[2] : NULL);
        fprintf(stderr, "samsim: usage: samsim help [COMMAND]\n");
        return 1;
    }
    if (!strcmp(first, "--version")) {
        printf("samsim %s\n", SAMSIM_VERSION);
        return 0;
    }
    const cli_command *c = find_command(first);
    if (!c) {
        fprintf(stderr, "samsim: unknown command '%s' (try samsim help)\n", first);
        return 1;
    }
    if (asks_help(argc - 2, argv + 2))
        return help(first);
    return c->run(argc - 2, argv + 2);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 1;
    }
    return flush_stdout(dispatch(argc, argv));
}
