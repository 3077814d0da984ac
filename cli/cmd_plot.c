/* samsim plot CSV --x COL --y COL [--by COL] -o FILE.svg|FILE.png: the
 * usual figure of a results table, drawn by gnuplot (report/plot.h). */
#include <stdio.h>
#include <string.h>

#include "../graph/render.h"
#include "../report/plot.h"
#include "args.h"
#include "commands.h"
#include "options.h"
#include "outputs.h"

typedef struct plot_opts {
    plot_request req;
    int data;           /* --data: the points on standard output */
} plot_opts;

enum {
    OPT_X = 1, OPT_Y, OPT_BY, OPT_OUT, OPT_TITLE, OPT_XLABEL, OPT_YLABEL, OPT_LOGX, OPT_LOGY,
    OPT_DATA
};

static const cli_option plot_options[] = {
    {OPT_X, "--x", "COL", "the column on the x axis (by header name)", NULL},
    {OPT_Y, "--y", "COL", "the column on the y axis (by header name)", NULL},
    {OPT_BY, "--by", "COL", "a line or bar colour, and a legend entry, per value of COL",
     "In first-appearance order."},
    {OPT_OUT, "-o", "FILE.svg|FILE.png", "the picture, 900x600 ('-': SVG on standard output)",
     NULL},
    {OPT_TITLE, "--title", "TEXT", "the title (default: Y by X [for each BY])", NULL},
    {OPT_XLABEL, "--xlabel", "TEXT", "the x axis label (default: the column name)", NULL},
    {OPT_YLABEL, "--ylabel", "TEXT", "the y axis label (default: the column name)", NULL},
    {OPT_LOGX, "--logx", NULL, "a log scale on x (every value plotted must be positive)", NULL},
    {OPT_LOGY, "--logy", NULL, "a log scale on y (every value plotted must be positive)", NULL},
    {OPT_DATA, "--data", NULL,
     "prints the points as CSV: [BY,] X, Y (mean), min, max, rows; without -o, only that",
     NULL},
    {0, NULL, NULL, NULL, NULL},
};

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    plot_opts *o = ctx;
    plot_request *r = &o->req;
    const char **slot[] = {[OPT_X] = &r->x, [OPT_Y] = &r->y, [OPT_BY] = &r->by,
                           [OPT_OUT] = &r->out, [OPT_TITLE] = &r->title,
                           [OPT_XLABEL] = &r->xlabel, [OPT_YLABEL] = &r->ylabel};
    int *flag[] = {[OPT_LOGX] = &r->logx, [OPT_LOGY] = &r->logy, [OPT_DATA] = &o->data};
    if (id == CLI_OPERAND && r->csv)
        return error_set(err, "plot: unexpected argument '%s'", v);
    if (id == CLI_OPERAND)
        r->csv = v;
    else if (id <= OPT_YLABEL)
        *slot[id] = v;
    else
        *flag[id] = 1;
    return 0;
}

static int check_args(const plot_opts *o, sam_error *err)
{
    const plot_request *r = &o->req;
    if (!r->csv || !r->x || !r->y || (!r->out && !o->data))
        return options_usage(&cmd_plot_command, err);
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
    if (options_parse(&cmd_plot_command, argc, argv, take, o, err))
        return -1;
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

const cli_command cmd_plot_command = {
    .name = "plot",
    .run = cmd_plot,
    .synopsis = "CSV --x COL --y COL [--by COL] -o FILE.svg|FILE.png [--title TEXT]\n"
        "          [--xlabel TEXT] [--ylabel TEXT] [--logx] [--logy] [--data]",
    .about = "Draws a results table (a header row, a row per job) with gnuplot, found on PATH: "
        "y against x, a line per --by group for numeric x, clustered bars for categorical x; "
        "rows sharing a group and an x give their mean with a min..max error bar. Rows whose y "
        "is not a number (failed jobs) are left out and counted.",
    .options = plot_options,
    .detail = "An unknown column, a row whose field count differs from the header's, no numeric "
        "y, another output extension, and a log scale for a value <= 0 are refused; the picture "
        "appears only when gnuplot succeeds.",
};
