/* samsim plot CSV --x COL --y COL [--by COL] -o FILE.svg|FILE.png: the
 * usual figure of a results table, drawn by gnuplot (report/plot.h). */
#include <stdio.h>
#include <string.h>

#include "../graph/render.h"
#include "../report/plot.h"
#include "args.h"
#include "commands.h"
#include "outputs.h"

#define PLOT_USAGE                                                                             \
    "usage: samsim plot CSV --x COL --y COL [--by COL] -o FILE.svg|FILE.png [--title TEXT] "   \
    "[--xlabel TEXT] [--ylabel TEXT] [--logx] [--logy] [--data]"

typedef struct plot_opts {
    plot_request req;
    int data;           /* --data: the points on standard output */
} plot_opts;

static int flag(const char *arg, plot_opts *o)
{
    int *f = !strcmp(arg, "--logx") ? &o->req.logx : !strcmp(arg, "--logy") ? &o->req.logy
           : !strcmp(arg, "--data") ? &o->data : NULL;
    if (f)
        *f = 1;
    return f != NULL;
}

/* 1 when argv[*i] is an option with a value (stored), 0 when not, -1 on
 * a missing value. */
static int valued(int argc, char **argv, int *i, plot_request *r, sam_error *err)
{
    static const char *const names[] = {"--x", "--y", "--by", "-o", "--title", "--xlabel",
                                        "--ylabel"};
    const char **slots[] = {&r->x, &r->y, &r->by, &r->out, &r->title, &r->xlabel, &r->ylabel};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        int rc = args_option(argc, argv, i, names[k], slots[k], err);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_args(const plot_opts *o, sam_error *err)
{
    const plot_request *r = &o->req;
    if (!r->csv || !r->x || !r->y || (!r->out && !o->data))
        return error_set(err, PLOT_USAGE);
    if (r->out && !graph_render_format(r->out))
        return error_at(err, r->out, 0, "unknown output format (use .svg or .png)");
    if (r->out && o->data && !strcmp(r->out, "-"))
        return error_set(err, "plot: --data and -o - would both write standard output");
    const io_file in = {"CSV", r->csv, NULL}, out = {"-o", r->out, NULL};
    return outputs_check("plot", &in, 1, &out, 1, err);
}

static int parse_args(int argc, char **argv, plot_opts *o, sam_error *err)
{
    *o = (plot_opts){0};
    for (int i = 0; i < argc; i++) {
        int r = valued(argc, argv, &i, &o->req, err);
        if (r < 0)
            return -1;
        if (r > 0 || flag(argv[i], o))
            continue;
        if (argv[i][0] == '-' || o->req.csv)
            return error_set(err, "plot: unexpected argument '%s'", argv[i]);
        o->req.csv = argv[i];
    }
    return check_args(o, err);
}

int cmd_plot(int argc, char **argv)
{
    plot_opts o;
    sam_error err;
    int skipped;
    if (parse_args(argc, argv, &o, &err) ||
        plot_figure(&o.req, o.data ? stdout : NULL, &skipped, &err))
        return args_fail(&err);
    if (skipped)
        fprintf(stderr, "samsim: plot: %s: left out %d row%s whose %s is not a number\n",
                o.req.csv, skipped, skipped == 1 ? "" : "s", o.req.y);
    return 0;
}
