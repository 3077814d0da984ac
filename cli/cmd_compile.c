/* samsim compile EXPR [-f=T:LEVELS[:ORDER]]... [-s=reorder(...)] [-s=split(...)]...
 * [-s=tileorder(...)] [-s=locate(...)] [-s=parallelize(i,N)] [-o FILE]:
 * Custard's arguments in, a SAM graph in Custard's DOT dialect out. */
#include <stdio.h>
#include <string.h>

#include "../custard/compile.h"
#include "../graph/dot_write.h"
#include "args.h"
#include "commands.h"

#define MAX_FORMATS 64

typedef struct compile_opts {
    compile_args args;
    const char *formats[MAX_FORMATS];
    const char *out;
    char tiling[1024];      /* the split commands of every -s, joined */
    char locate[512];       /* the tensors of every -s=locate(...), joined */
    char parallel[96];      /* what -s=parallelize(...) holds */
} compile_opts;

static const char usage_line[] =
    "usage: samsim compile EXPR [-f=T:LEVELS[:ORDER]]... [-s=reorder(i,j,...)] "
    "[-s=split(i,i1,i0,N)]... [-s=tileorder(i1,j1,...)] [-s=locate(T,...)] "
    "[-s=parallelize(i,N)] [-o FILE.dot]";

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
    return 1;
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
    return 1;
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
        return 1;
    }
    if (append(o->tiling, sizeof o->tiling, v, strlen(v), "splits", err))
        return -1;
    o->args.tiling = o->tiling;
    return 1;
}

/* One option at argv[*i]: 1 taken, 0 not an option of ours, -1 error. */
static int parse_option(int argc, char **argv, int *i, compile_opts *o, sam_error *err)
{
    const char *v;
    int r;
    if ((r = args_option(argc, argv, i, "-f", &v, err)) > 0) {
        if (o->args.nformats == MAX_FORMATS)
            return error_set(err, "compile: more than %d -f options", MAX_FORMATS);
        o->formats[o->args.nformats++] = v;
        return 1;
    }
    if (r == 0 && (r = args_option(argc, argv, i, "-s", &v, err)) > 0)
        return add_schedule(o, v, err);
    if (r == 0 && ((r = args_option(argc, argv, i, "-o", &v, err)) > 0 ||
                   (r == 0 && (r = args_option(argc, argv, i, "--print-sam-graph", &v, err)) > 0)))
        o->out = v;
    return r;
}

static int parse_args(int argc, char **argv, compile_opts *o, sam_error *err)
{
    memset(o, 0, sizeof *o);
    o->args.formats = o->formats;
    for (int i = 0; i < argc; i++) {
        int r = parse_option(argc, argv, &i, o, err);
        if (r < 0)
            return -1;
        if (r > 0)
            continue;
        if ((argv[i][0] == '-' && argv[i][1]) || o->args.expression)
            return error_set(err, "compile: unexpected argument '%s'", argv[i]);
        o->args.expression = argv[i];
    }
    if (!o->args.expression)
        return error_set(err, "%s", usage_line);
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
