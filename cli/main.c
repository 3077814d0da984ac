/* samsim: compile tensor expressions to SAM graphs, simulate them on real
 * data, and convert, generate and describe the tensors they run on. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
} command;

static const command commands[] = {
    {"compile", cmd_compile,
     "compile EXPR [-f=T:LEVELS[:ORDER]]... [-s=reorder(i,j,...)] [-o FILE.dot]"},
    {"run", cmd_run,
     "run GRAPH.dot [-t NAME=FILE|NUMBER]... [--data DIR] [--shift] [-o OUT] [--stats FILE.csv]\n"
     "          [--check [--expr EXPR]]\n"
     "          [--engine event|cycle] [--depth N] [--latency N] [--max-cycles N]\n"
     "          [--impl TYPE=NAME]... [--config FILE] [--quiet]"},
    {"blocks", cmd_blocks, "blocks"},
    {"convert", cmd_convert,
     "convert IN OUT [--format LEVELS[:ORDER]] [--tensor NAME] [--in-tensor NAME]\n"
     "          [--in-format LEVELS[:ORDER]] [--shape DIMS] [--shift]"},
    {"info", cmd_info,
     "info FILE [--format LEVELS[:ORDER]] [--tensor NAME] [--in-format LEVELS[:ORDER]]\n"
     "          [--shape DIMS]"},
    {"gen", cmd_gen,
     "gen KIND [--shape DIMS] [--density D | --nnz N] [--seed N] -o FILE [--second FILE]\n"
     "          KIND: urandom runs blocks rmat banded identity dense"},
    {"stats", cmd_stats, "stats FILE.csv [--top N]"},
    {"render", cmd_render, "render GRAPH.dot [--stats FILE.csv] -o OUT.svg|OUT.png"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: samsim COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  samsim %s\n", commands[i].usage);
    fprintf(f, "\nFILE: NAME.mtx (Matrix Market), NAME.tns (FROSTT), or a directory of SAM level "
               "files\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 1;
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 2, argv + 2);
    fprintf(stderr, "samsim: unknown command '%s' (try samsim help)\n", argv[1]);
    return 1;
}
