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
#include "outputs.h"

typedef struct render_opts {
    const char *graph, *stats, *out;
} render_opts;

static int parse_args(int argc, char **argv, render_opts *o, sam_error *err)
{
    *o = (render_opts){0};
    for (int i = 0; i < argc; i++) {
        const char *v;
        int r = args_option(argc, argv, &i, "--stats", &v, err);
        if (r > 0)
            o->stats = v;
        else if (r == 0 && (r = args_option(argc, argv, &i, "-o", &v, err)) > 0)
            o->out = v;
        if (r < 0)
            return -1;
        if (r > 0)
            continue;
        if (argv[i][0] == '-' || o->graph)
            return error_set(err, "render: unexpected argument '%s'", argv[i]);
        o->graph = argv[i];
    }
    if (!o->graph || !o->out)
        return error_set(err, "usage: samsim render GRAPH.dot [--stats FILE.csv] "
                              "-o OUT.svg|OUT.png");
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
