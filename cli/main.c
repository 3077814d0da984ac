/* samsim: compile tensor expressions to SAM graphs, simulate them on real
 * data, and convert, generate and describe the tensors they run on. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../hwmodel/hw.h"
#include "commands.h"
#include "version.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
    const char *options;    /* what `samsim help NAME` adds under the usage */
    void (*more)(void);     /* prints what is declared as data elsewhere, or NULL */
} command;

/* The --hw keys, from the table that declares them, so that the help can
 * never miss one. */
static void print_hw_keys(void)
{
    printf("\n--hw FILE holds `key = value` lines (# starts a comment); the keys:\n");
    param_print_list(stdout, hw_params, 2);
    printf("  place.T         pe, llb,pe or cache: the buffers that hold tensor T's tiles\n"
           "                  (default llb,pe); cache: the LLB caches the fibers of\n"
           "                  operand T's outermost level that points touch\n"
           "  layout.T        coo, level letters (ds), tiled, tiled coo: how the memories\n"
           "                  store tensor T (default its format)\n"
           "  bytes.T.crd     T's coordinate widths, one per level (4,0,4); bytes.T.ref\n"
           "                  its reference widths, bytes.T.val its value width\n"
           "  fit.llb, fit.pe what a refusal of a tile too large for that buffer adds\n");
}

static const command commands[] = {
    {"compile", cmd_compile,
     "compile EXPR [-f=T:LEVELS[:ORDER]]... [-s=reorder(i,j,...)] [-s=split(i,i1,i0,N)]...\n"
     "          [-s=tileorder(i1,j1,...)] [-s=locate(T,...)] [-o FILE.dot]",
     "Compiles a tensor index expression to a SAM graph (Custard's arguments).\n"
     "  -f=T:LEVELS[:ORDER]     tensor T's levels (d dense, s compressed), mode order\n"
     "  -s=reorder(i,j,...)     the loop order\n"
     "  -s=split(i,i1,i0,N)     cuts index i into tiles of N (T.N: N of T's entries each);\n"
     "                          the graph runs on each tile (recorded as attribute tiling)\n"
     "  -s=tileorder(i1,j1,...) the tile loops' order (default: the graph's loop order)\n"
     "  -s=locate(T,...)        finds T in the other tensor's coordinates (locate nodes)\n"
     "                          instead of scanning and intersecting it\n"
     "  -o FILE                 the graph (default and '-': standard output);\n"
     "                          --print-sam-graph=FILE is the same\n", NULL},
    {"run", cmd_run,
     "run GRAPH.dot [-t NAME=FILE|NUMBER]... [--data DIR] [--shift] [-o OUT] [--stats FILE.csv]\n"
     "          [--check] [--expr EXPR] [--tile SPLITS] [--hw FILE]\n"
     "          [--engine event|step|cycle] [--split SEED] [--depth N] [--latency N]\n"
     "          [--max-cycles N]\n"
     "          [--impl TYPE=NAME]... [--config FILE] [--outcome FILE.csv] [--quiet]",
     "Simulates a SAM graph on tensors bound to its names. samsim run DIR runs a template\n"
     "directory (samsim template) and takes -t, -o, --stats, --outcome, --check, --engine,\n"
     "--quiet.\n"
     "  -t NAME=FILE|NUMBER     binds operand NAME (a number for a scalar)\n"
     "  --data DIR              a SAM level-file directory holding the operands\n"
     "  --shift                 derives each missing operand from the one before it\n"
     "  -o OUT                  writes the result ('-': Matrix Market on standard output);\n"
     "                          without it a result of at most 20 entries is printed\n"
     "  --stats FILE.csv        writes per-stream and per-block statistics (also of a run\n"
     "                          that deadlocks or reaches --max-cycles, marked incomplete)\n"
     "  --check                 compares with an independent evaluation (exit 3 on mismatch)\n"
     "  --expr EXPR             the expression (for --check and --tile, when the graph\n"
     "                          records none)\n"
     "  --tile SPLITS           runs on tiles: split(i,i1,i0,N) commands, as compile's -s\n"
     "                          (default: the graph's tiling attribute)\n"
     "  --hw FILE               the memories tiles travel through (key = value lines;\n"
     "                          doc/hardware.md): adds traffic, DRAM bytes and seconds\n"
     "  --engine event|step|cycle  the engine (default event; all give the same numbers)\n"
     "  --split SEED            ends run-ahead windows at random cycles (a check)\n"
     "  --depth N               bounds every channel to N tokens\n"
     "  --latency N             cycles every channel delays a token (default 1)\n"
     "  --max-cycles N          stops an unfinished run after N cycles (N >= 1; exit 2)\n"
     "  --impl TYPE=NAME        the implementation of every TYPE block (see samsim blocks)\n"
     "  --config FILE           timing and implementation settings (key = value lines)\n"
     "  --outcome FILE.csv      writes the summary's fields as key,value rows\n"
     "  --quiet                 no progress line on a terminal\n",
     print_hw_keys},
    {"blocks", cmd_blocks, "blocks",
     "Lists every block type, its implementations (the default marked) and parameters.\n", NULL},
    {"convert", cmd_convert,
     "convert IN OUT [--format LEVELS[:ORDER]] [--tensor NAME] [--in-tensor NAME]\n"
     "          [--in-format LEVELS[:ORDER]] [--shape DIMS] [--shift] [--tile SPEC]",
     "Converts a tensor between formats ('-' as OUT: Matrix Market on standard output).\n"
     "  --format LEVELS[:ORDER]     level format of a SAM directory written\n"
     "  --tensor NAME               tensor name in both directories\n"
     "  --in-tensor NAME            tensor name in the input directory\n"
     "  --in-format LEVELS[:ORDER]  how to read the input directory\n"
     "  --shape DIMS                dimensions of a .tns input, e.g. 12x10x9\n"
     "  --shift                     writes the SAM convention's second operand\n"
     "  --tile SPEC                 writes its tiles, tile coordinates as first modes:\n"
     "                              levels split by '/', per mode N (tiles of N),\n"
     "                              oN (N entries each) or - (not cut), e.g. 64x64/8x-\n", NULL},
    {"info", cmd_info,
     "info FILE [--format LEVELS[:ORDER]] [--tensor NAME] [--in-format LEVELS[:ORDER]]\n"
     "          [--shape DIMS]",
     "Prints order, dimensions, nonzeros, density and per-level fiber statistics.\n"
     "  --format LEVELS[:ORDER]     the level format the statistics are for\n"
     "  --tensor NAME               tensor name in a SAM directory\n"
     "  --in-format LEVELS[:ORDER]  how to read a SAM directory\n"
     "  --shape DIMS                dimensions of a .tns input\n", NULL},
    {"gen", cmd_gen,
     "gen KIND [--shape DIMS] [--density D | --nnz N] [--seed N] -o FILE [--second FILE]\n"
     "          KIND: urandom runs blocks rmat banded identity dense",
     "Generates a tensor; the same seed gives the same bits on any machine.\n"
     "  --shape DIMS            dimensions, e.g. 250x100\n"
     "  --density D, --nnz N    how many nonzeros (urandom, runs, blocks, rmat)\n"
     "  --seed N                the seed (default 1)\n"
     "  -o FILE                 the tensor ('-': Matrix Market on standard output)\n"
     "  --second FILE           the partner vector of runs and blocks\n"
     "  --run N, --block N      run or block length (runs, blocks; default 10)\n"
     "  --rmat-a/-b/-c P        R-MAT quadrant probabilities (rmat)\n"
     "  --lower N, --upper N    band widths (banded; default 1)\n"
     "  --format LEVELS         level format of a SAM directory written\n"
     "  --tensor NAME           tensor name in a SAM directory (default B)\n", NULL},
    {"stats", cmd_stats, "stats FILE.csv [--top N]",
     "Summarises a statistics file of samsim run --stats.\n"
     "  --top N                 how many blocks and streams to show (default 10)\n", NULL},
    {"render", cmd_render, "render GRAPH.dot [--stats FILE.csv] -o OUT.svg|OUT.png",
     "Draws a graph with Graphviz's dot layout, as a heat map with --stats.\n"
     "  --stats FILE.csv        colours blocks and streams by the run's statistics and\n"
     "                          draws the streams it added (skip feedback), dashed\n"
     "  -o OUT.svg|OUT.png      the picture ('-': SVG on standard output)\n", NULL},
    {"plot", cmd_plot,
     "plot CSV --x COL --y COL [--by COL] -o FILE.svg|FILE.png [--title TEXT]\n"
     "          [--xlabel TEXT] [--ylabel TEXT] [--logx] [--logy] [--data]",
     "Draws a results table (a header row, a row per job) with gnuplot: y against x,\n"
     "a line per --by group for numeric x, clustered bars for categorical x; rows\n"
     "sharing a group and an x give their mean with a min..max error bar. Rows whose\n"
     "y is not a number (failed jobs) are left out and counted.\n"
     "  --x COL, --y COL        the columns plotted (by header name)\n"
     "  --by COL                a line or bar colour per value of COL, in file order\n"
     "  -o FILE.svg|FILE.png    the picture ('-': SVG on standard output)\n"
     "  --title TEXT            the title (default: Y by X [for each BY])\n"
     "  --xlabel TEXT           the x axis label (default: the column name)\n"
     "  --ylabel TEXT           the y axis label (default: the column name)\n"
     "  --logx, --logy          log scales (every value plotted must be positive)\n"
     "  --data                  prints the points as CSV: [BY,] X, Y (mean), min, max,\n"
     "                          rows; without -o, only that\n", NULL},
    {"template", cmd_template, "template [NAME [--param KEY=VALUE]... -o DIR]",
     "Writes an accelerator template (ExTensor, OuterSPACE, Gamma, SIGMA): its SAM\n"
     "graphs and hardware descriptions, run with samsim run DIR -t A=FILE -t B=FILE.\n"
     "Without arguments lists the templates and their parameters; with NAME alone,\n"
     "that template's.\n"
     "  --param KEY=VALUE       sets a parameter (PE count, tile sizes, bandwidth, ...)\n"
     "  -o DIR                  the directory written (made when missing)\n", NULL},
    {"sweep", cmd_sweep,
     "sweep SPEC [--list | --local [-j N] | --slurm [--array-max N]] [-o DIR]\n"
     "          sweep --collect DIR",
     "Runs every job a sweep spec expands to (doc/sweeps.md), one samsim run each, with\n"
     "GNU parallel or a Slurm job array, and gathers a row per job in DIR/results.csv.\n"
     "Complete jobs are skipped (failed ones run again), so a sweep run again continues\n"
     "where it stopped.\n"
     "  --list                  prints the jobs (CSV: number, parameters, hash)\n"
     "  --local                 runs them here with GNU parallel (the default)\n"
     "  -j N                    jobs at a time (default: the CPUs)\n"
     "  --slurm                 writes DIR/sweep.sbatch, a job array, to submit with sbatch\n"
     "  --array-max N           array tasks at most (default 1000); jobs share tasks beyond\n"
     "  -o DIR                  the sweep's directory (default: SPEC's name, .results)\n"
     "  --collect DIR           gathers the rows of the jobs that have run\n", NULL},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: samsim COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  samsim %s\n", commands[i].usage);
    fprintf(f, "\n  samsim help [COMMAND]    (or samsim COMMAND --help)\n"
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
    const command *c = find_command(name);
    if (!c) {
        fprintf(stderr, "samsim: help: unknown command '%s' (try samsim help)\n", name);
        return 1;
    }
    printf("usage: samsim %s\n\n%s", c->usage, c->options);
    if (c->more)
        c->more();
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
    const command *c = find_command(first);
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
