/* samsim render GRAPH.dot [--stats FILE.csv] -o OUT.svg|OUT.png: the graph
 * drawn as Custard draws it (graph/render.h), and with statistics a heat
 * map of the run (report/render_stats.h).
 *
 * On a terminal, a drawing that takes more than a second shows what
 * Graphviz is doing on standard error. */
#include <stdio.h>
#include <unistd.h>

#include "../graph/graph.h"
#include "../graph/render.h"
#include "../report/render_stats.h"
#include "args.h"
#include "commands.h"
#include "options.h"
#include "outputs.h"

typedef struct render_opts {
    const char *graph, *stats, *out;
} render_opts;

enum { OPT_STATS = 1, OPT_OUT };

static const cli_option render_options[] = {
    {OPT_STATS, "--stats", "FILE.csv",
     "colours blocks and streams by the run's statistics and draws the streams it added (skip "
     "feedback), dashed",
     "Blocks are filled by their utilisation (busy cycles over the run's) on a white, yellow, "
     "red scale, edges coloured and widened by their tokens on a log scale, with a legend; the "
     "streams the run added to the graph (the skip feedback of --impl intersect=skip) are "
     "dashed edges from producer to reader."},
    {OPT_OUT, "-o", "OUT.svg|OUT.png",
     "the picture, SVG or PNG by extension ('-': SVG on standard output)", NULL},
    {0, NULL, NULL, NULL, NULL},
};

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    render_opts *o = ctx;
    switch (id) {
    case CLI_OPERAND:
        if (o->graph)
            return error_set(err, "render: unexpected argument '%s'", v);
        return o->graph = v, 0;
    case OPT_STATS: return o->stats = v, 0;
    default: return o->out = v, 0;
    }
}

static int parse_args(int argc, char **argv, render_opts *o, sam_error *err)
{
    *o = (render_opts){0};
    if (options_parse(&cmd_render_command, argc, argv, take, o, err))
        return -1;
    if (!o->graph || !o->out)
        return options_usage(&cmd_render_command, err);
    const io_file in[] = {{"graph", o->graph, NULL}, {"--stats", o->stats, NULL}};
    const io_file out = {"-o", o->out, NULL};
    return outputs_check("render", in, 2, &out, 1, err);
}

/* Progress only where someone watches it, as `samsim run` shows its. */
static FILE *progress_stream(void)
{
    return isatty(STDERR_FILENO) ? stderr : NULL;
}

int cmd_render(int argc, char **argv)
{
    render_opts o;
    sam_error err;
    if (parse_args(argc, argv, &o, &err))
        return args_fail(&err);
    if (!graph_render_format(o.out)) {
        error_at(&err, o.out, 0, "unknown output format (use .svg or .png)");
        return args_fail(&err);
    }
    sam_graph g;
    if (graph_read_dot(o.graph, &g, &err))
        return args_fail(&err);
    int rc = o.stats ? render_stats(&g, o.stats, o.out, progress_stream(), &err)
                     : graph_render(&g, NULL, o.out, progress_stream(), &err);
    graph_free(&g);
    return rc ? args_fail(&err) : 0;
}

const cli_command cmd_render_command = {
    .name = "render",
    .run = cmd_render,
    .synopsis = "GRAPH.dot [--stats FILE.csv] -o OUT.svg|OUT.png",
    .about = "Draws a graph with Graphviz's dot layout, as a heat map with --stats. When "
        "standard error is a terminal, a layout or writing that takes more than a second shows "
        "its stage and elapsed time on one line, cleared when done.",
    .options = render_options,
};
