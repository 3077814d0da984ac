/* samsim timeline FILE.json -o FILE.svg|FILE.png [--from T] [--to T]:
 * a trace's Gantt chart, drawn by gnuplot (report/timeline_figure.h). */
#include <math.h>
#include <stdio.h>

#include "../graph/render.h"
#include "../report/timeline_figure.h"
#include "args.h"
#include "commands.h"
#include "options.h"
#include "outputs.h"

typedef struct timeline_opts {
    const char *trace, *out, *title;
    double from, to;
    int has_from, has_to;
} timeline_opts;

enum { OPT_OUT = 1, OPT_FROM, OPT_TO, OPT_TITLE };

static const cli_option timeline_options[] = {
    {OPT_OUT, "-o", "FILE.svg|FILE.png", "the picture ('-': SVG on standard output)", NULL},
    {OPT_FROM, "--from", "T",
     "the window's start, in the trace's time unit (default: its first slice)",
     "Cycles for samsim's traces (their otherData says so), microseconds for others, as the "
     "format has it; the x axis is labelled with the unit."},
    {OPT_TO, "--to", "T", "the window's end (default: the trace's end)", NULL},
    {OPT_TITLE, "--title", "TEXT", "the title (default: the trace's process name, the graph)",
     NULL},
    {0, NULL, NULL, NULL, NULL},
};

static int take_time(const char *opt, const char *v, double *out, int *has, sam_error *err)
{
    if (args_double(opt, v, out, err))
        return -1;
    if (!isfinite(*out))
        return error_set(err, "%s: '%s' is not a finite number", opt, v);
    *has = 1;
    return 0;
}

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    timeline_opts *o = ctx;
    switch (id) {
    case OPT_OUT:
        o->out = v;
        return 0;
    case OPT_FROM:
        return take_time("--from", v, &o->from, &o->has_from, err);
    case OPT_TO:
        return take_time("--to", v, &o->to, &o->has_to, err);
    case OPT_TITLE:
        o->title = v;
        return 0;
    default:
        if (o->trace)
            return error_set(err, "timeline: unexpected argument '%s'", v);
        o->trace = v;
        return 0;
    }
}

static int parse_args(int argc, char **argv, timeline_opts *o, sam_error *err)
{
    *o = (timeline_opts){0};
    if (options_parse(&cmd_timeline_command, argc, argv, take, o, err))
        return -1;
    if (!o->trace || !o->out)
        return options_usage(&cmd_timeline_command, err);
    if (!graph_render_format(o->out))
        return error_at(err, o->out, 0, "unknown output format (use .svg or .png)");
    if (o->has_from && o->has_to && o->from >= o->to)
        return error_set(err, "timeline: --from must be below --to");
    const io_file in = {"the trace", o->trace, NULL}, out = {"-o", o->out, NULL};
    return outputs_check("timeline", &in, 1, &out, 1, err);
}

/* The window: what the options give, the trace's own span for the rest. */
static int window(const timeline_opts *o, const timeline *t, timeline_view *v, sam_error *err)
{
    v->from = o->has_from ? o->from : t->start;
    v->to = o->has_to ? o->to : t->end;
    if (v->from < v->to)
        return 0;
    if (o->has_from)
        return error_at(err, t->path, 0, "--from %.15g is not before the trace's end, %.15g %s",
                        o->from, t->end, t->unit);
    if (o->has_to)
        return error_at(err, t->path, 0, "--to %.15g is not after the trace's start, %.15g %s",
                        o->to, t->start, t->unit);
    return error_at(err, t->path, 0, "its slices span no time (all at %.15g %s): nothing to draw",
                    t->start, t->unit);
}

int cmd_timeline(int argc, char **argv)
{
    timeline_opts o;
    sam_error err;
    timeline t;
    if (parse_args(argc, argv, &o, &err) || timeline_read(o.trace, &t, &err))
        return args_fail(&err);
    timeline_view v = {.out = o.out, .title = o.title};
    int rc = window(&o, &t, &v, &err) || timeline_draw(&t, &v, &err) ? -1 : 0;
    timeline_free(&t);
    return rc ? args_fail(&err) : 0;
}

const cli_command cmd_timeline_command = {
    .name = "timeline",
    .run = cmd_timeline,
    .synopsis = "FILE.json -o FILE.svg|FILE.png [--from T] [--to T] [--title TEXT]",
    .about = "Draws a trace (samsim run --trace, or any Trace Event Format file with complete "
        "events) as a Gantt chart with gnuplot, found on PATH: a row per track (block), named "
        "as in the trace and in its order, time across, each slice name (busy, blocked, "
        "starved, ...) a colour in the legend. The window is cut into 1600 columns of equal "
        "time, about a pixel each: in each, a track shows one box, of the name that fills most "
        "of that column, so that a run of millions of cycles draws as fast and as small as a "
        "short one.",
    .options = timeline_options,
    .detail = "A file that is not JSON or not a trace, a trace without complete (\"X\") events, "
        "a window that holds no slice and another output extension are refused with one line; "
        "the picture appears only when gnuplot succeeds. More than 12 slice names: the 11 of "
        "most time get their colours, the rest share one, \"others\".",
};
