/* samsim compile EXPR [-f=T:LEVELS[:ORDER]]... [-s=reorder(...)] [-s=split(...)]...
 * [-s=tileorder(...)] [-s=locate(...)] [-s=parallelize(i,N)] [-o FILE]:
 * Custard's arguments in, a SAM graph in Custard's DOT dialect out. */
#include <stdio.h>
#include <string.h>

#include "../custard/compile.h"
#include "../graph/dot_write.h"
#include "args.h"
#include "commands.h"
#include "options.h"

#define MAX_FORMATS 64

typedef struct compile_opts {
    compile_args args;
    const char *formats[MAX_FORMATS];
    const char *out;
    char tiling[1024];      /* the split commands of every -s, joined */
    char locate[512];       /* the tensors of every -s=locate(...), joined */
    char parallel[96];      /* what -s=parallelize(...) holds */
} compile_opts;

/* Appends text to buf (size bytes), after a blank when it holds some. */
static int append(char *buf, size_t size, const char *text, size_t n, const char *what,
                  sam_error *err)
{
    size_t used = strlen(buf);
    if (used + n + 2 > size)
        return error_set(err, "compile: the -s %s are longer than %zu characters", what,
                         size - 2);
    snprintf(buf + used, size - used, "%s%.*s", used ? " " : "", (int)n, text);
    return 0;
}

/* -s=locate(c,d): the tensors, for custard/compile.h. */
static int add_locate(compile_opts *o, const char *v, sam_error *err)
{
    size_t n = strlen(v);
    if (n < 9 || v[n - 1] != ')')
        return error_set(err, "compile: -s=%s: expected locate(TENSOR,...)", v);
    if (append(o->locate, sizeof o->locate, v + 7, n - 8, "locates", err))
        return -1;
    o->args.locate = o->locate;
    return 0;
}

/* -s=parallelize(i,4): the index and the lanes, for custard/compile.h. */
static int add_parallel(compile_opts *o, const char *v, sam_error *err)
{
    size_t n = strlen(v);
    if (n < 14 || v[n - 1] != ')' || n - 13 >= sizeof o->parallel)
        return error_set(err, "compile: -s=%s: expected parallelize(INDEX,LANES)", v);
    if (o->args.parallelize)
        return error_set(err, "compile: -s=%s: one loop is parallelized at most", v);
    snprintf(o->parallel, sizeof o->parallel, "%.*s", (int)(n - 13), v + 12);
    o->args.parallelize = o->parallel;
    return 0;
}

/* -s is given once for the loop order and once for each group of splits,
 * the tile order or the tensors to locate. */
static int add_schedule(compile_opts *o, const char *v, sam_error *err)
{
    if (!strncmp(v, "locate(", 7))
        return add_locate(o, v, err);
    if (!strncmp(v, "parallelize(", 12))
        return add_parallel(o, v, err);
    if (strncmp(v, "split(", 6) && strncmp(v, "tileorder(", 10)) {
        if (o->args.schedule)
            return error_set(err, "compile: -s=%s: the loop order is given twice", v);
        o->args.schedule = v;
        return 0;
    }
    if (append(o->tiling, sizeof o->tiling, v, strlen(v), "splits", err))
        return -1;
    o->args.tiling = o->tiling;
    return 0;
}

enum { OPT_FORMAT = 1, OPT_SCHEDULE, OPT_OUT };

static const cli_option compile_options[] = {
    {OPT_FORMAT, "-f", "=T:LEVELS[:ORDER]",
     "tensor T's levels (d dense, s compressed, b bitvector, l linked list), mode order",
     "An operand's l level is scanned one node a cycle along its lists (fiberlookup "
     "format=linkedlist, the compressed scanner's cycles); a result's is written only below a "
     "dense level, against the loop order (OuterSPACE's -f=Y:dls), and a locator takes none."},
    {OPT_SCHEDULE, "-s", "=reorder(i,j,...)", "the loop order", NULL},
    {OPT_SCHEDULE, "-s", "=split(i,i1,i0,N)",
     "cuts index i into tiles of N coordinates (T.N: ranges holding N of operand T's entries "
     "each); the graph runs on each tile (recorded as attribute tiling)",
     "Splitting i0 again makes a second level. A split whose parts the loop order names "
     "(-s=reorder(i1,i0)) is iterated in the graph instead: each tensor indexed by i stores a "
     "level per part, and the splits are recorded as the graph attribute itersplit."},
    {OPT_SCHEDULE, "-s", "=tileorder(i1,j1,...)",
     "the tile loops' order, outermost first (default: level by level in the loop order)",
     "Every tile coordinate once, an index's outer levels before its inner ones."},
    {OPT_SCHEDULE, "-s", "=locate(T,...)",
     "finds T in the other tensor's coordinates (locate nodes) instead of scanning and "
     "intersecting it", NULL},
    {OPT_SCHEDULE, "-s", "=parallelize(i,N)",
     "deals loop i out to N lanes (1 to 32), joined back by serialize nodes",
     "Parallelize nodes after i's loop, the loops inside i once per lane, serialize nodes (or, "
     "where i is summed, a vectorreducer of N lanes) joining the lanes back."},
    {OPT_OUT, "-o", "FILE", "the graph (default and '-': standard output)", NULL},
    {OPT_OUT, "--print-sam-graph", "=FILE", "the same as -o FILE", NULL},
    {0, NULL, NULL, NULL, NULL},
};

static int take_format(compile_opts *o, const char *v, sam_error *err)
{
    if (o->args.nformats == MAX_FORMATS)
        return error_set(err, "compile: more than %d -f options", MAX_FORMATS);
    o->formats[o->args.nformats++] = v;
    return 0;
}

static int take_expression(compile_opts *o, const char *v, sam_error *err)
{
    if (o->args.expression)
        return error_set(err, "compile: unexpected argument '%s'", v);
    o->args.expression = v;
    return 0;
}

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    compile_opts *o = ctx;
    switch (id) {
    case CLI_OPERAND: return take_expression(o, v, err);
    case OPT_FORMAT: return take_format(o, v, err);
    case OPT_SCHEDULE: return add_schedule(o, v, err);
    default: return o->out = v, 0;
    }
}

static int parse_args(int argc, char **argv, compile_opts *o, sam_error *err)
{
    memset(o, 0, sizeof *o);
    o->args.formats = o->formats;
    if (options_parse(&cmd_compile_command, argc, argv, take, o, err))
        return -1;
    if (!o->args.expression)
        return options_usage(&cmd_compile_command, err);
    return 0;
}

int cmd_compile_check(int argc, char **argv, sam_error *err)
{
    compile_opts o;
    sam_graph g;
    if (parse_args(argc, argv, &o, err) || custard_compile(&o.args, &g, err))
        return -1;
    graph_free(&g);
    return o.out ? error_set(err, "compile: -o is the sweep's to give") : 0;
}

int cmd_compile(int argc, char **argv)
{
    compile_opts o;
    sam_error err;
    sam_graph g;
    if (parse_args(argc, argv, &o, &err) || custard_compile(&o.args, &g, &err))
        return args_fail(&err);
    int rc = graph_write_dot_file(&g, o.out ? o.out : "-", &err);
    graph_free(&g);
    return rc ? args_fail(&err) : 0;
}

const cli_command cmd_compile_command = {
    .name = "compile",
    .run = cmd_compile,
    .synopsis = "EXPR [-f=T:LEVELS[:ORDER]]... [-s=reorder(i,j,...)] [-s=split(i,i1,i0,N)]...\n"
        "          [-s=tileorder(i1,j1,...)] [-s=locate(T,...)] [-s=parallelize(i,N)] "
        "[-o FILE.dot]",
    .about = "Compiles a tensor index expression to a SAM graph, with the arguments of SAM's "
        "Custard compiler.",
    .options = compile_options,
};
