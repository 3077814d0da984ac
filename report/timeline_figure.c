/* A trace's Gantt chart (timeline_figure.h): colours for the slice names,
 * each track's slices summed into columns, the columns into boxes, and
 * the gnuplot script of the boxes. */
#include "timeline_figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "gnuplot.h"

/* The picture: wide enough for TIMELINE_COLUMNS beside the track names,
 * a band per track under the title and legend. */
#define PICTURE_WIDTH 1800
#define PICTURE_MARGINS 200
#define TRACK_HEIGHT 22

/* A box's share of its track's band. */
#define BOX_HALF_HEIGHT 0.4

static const struct {
    const char *name, *rgb;
} known[] = {{"busy", "#2ca02c"}, {"blocked", "#d62728"}, {"starved", "#ffbf00"}};

#define NKNOWN (sizeof known / sizeof known[0])

/* The other names' colours, in the order they are given. */
static const char *const palette[] = {"#1f77b4", "#9467bd", "#8c564b", "#e377c2",
                                      "#17becf", "#bcbd22", "#ff7f0e", "#7f7f7f",
                                      "#aec7e8", "#98df8a", "#c5b0d5", "#c49c94"};

#define OTHERS_RGB "#c7c7c7"

/* ---- colours ------------------------------------------------------------ */

typedef struct ranked_name {
    int name;
    double time;        /* its slices' total duration */
} ranked_name;

/* Most time first, then the first to appear. */
static int ranked_cmp(const void *a, const void *b)
{
    const ranked_name *p = a, *q = b;
    if (p->time != q->time)
        return p->time > q->time ? -1 : 1;
    return (p->name > q->name) - (p->name < q->name);
}

static int known_index(const char *name)
{
    for (size_t k = 0; k < NKNOWN; k++)
        if (!strcmp(name, known[k].name))
            return (int)k;
    return -1;
}

/* The names in colour order: busy, blocked and starved as present, then
 * the others as they appear, or by time when they are too many. */
static ranked_name *colour_order(const timeline *t, sam_error *err)
{
    ranked_name *order = error_alloc(err, (size_t)t->nnames, sizeof *order);
    if (!order)
        return NULL;
    int n = 0;
    for (size_t k = 0; k < NKNOWN; k++)
        for (int i = 0; i < t->nnames; i++)
            if (!strcmp(t->names[i], known[k].name))
                order[n++] = (ranked_name){i, 0};
    int nknown = n;
    for (int i = 0; i < t->nnames; i++)
        if (known_index(t->names[i]) < 0)
            order[n++] = (ranked_name){i, 0};
    if (t->nnames > TIMELINE_COLOURS) {
        double *time = error_alloc(err, (size_t)t->nnames, sizeof *time);
        if (!time) {
            free(order);
            return NULL;
        }
        for (size_t i = 0; i < t->nslices; i++)
            time[t->slices[i].name] += t->slices[i].dur;
        for (int j = nknown; j < n; j++)
            order[j].time = time[order[j].name];
        free(time);
        qsort(order + nknown, (size_t)(n - nknown), sizeof *order, ranked_cmp);
    }
    return order;
}

static int assign_colours(timeline_figure *f, sam_error *err)
{
    const timeline *t = f->t;
    ranked_name *order = colour_order(t, err);
    f->colour_of = order ? error_alloc(err, (size_t)t->nnames, sizeof *f->colour_of) : NULL;
    if (!f->colour_of) {
        free(order);
        return error_prefix(err, t->path);
    }
    int own = t->nnames <= TIMELINE_COLOURS ? t->nnames : TIMELINE_COLOURS - 1, others = 0;
    for (int j = 0; j < t->nnames; j++) {
        const char *name = t->names[order[j].name];
        int c = j < own ? j : own;
        f->colour_of[order[j].name] = c;
        if (j < own) {
            int k = known_index(name);
            f->legend[c] = name;
            f->rgb[c] = k >= 0 ? known[k].rgb : palette[others++];
        }
    }
    f->ncolours = own + (t->nnames > own);
    if (t->nnames > own) {
        f->legend[own] = "others";
        f->rgb[own] = OTHERS_RGB;
    }
    free(order);
    return 0;
}

/* ---- columns ------------------------------------------------------------ */

typedef struct columns {
    int n, ncolours;
    double from, to, width;
    double *cover;      /* n x ncolours: the share of a column a colour's slices fill */
    int *runs;          /* (n + 1) x ncolours: +1 where whole columns of a colour
                           begin, -1 past their end */
} columns;

/* Slice s of colour c, cut to the window, into the columns: its ends'
 * shares of their columns, and the whole columns between them as a run. */
static void add_slice(columns *k, const timeline_slice *s, int c)
{
    double a = s->ts > k->from ? s->ts : k->from;
    double b = s->ts + s->dur < k->to ? s->ts + s->dur : k->to;
    if (a >= b)
        return;
    double u = (a - k->from) / k->width, v = (b - k->from) / k->width;
    int c0 = (int)u < k->n ? (int)u : k->n - 1, c1 = (int)v < k->n ? (int)v : k->n;
    if (c0 == c1) {
        k->cover[c0 * k->ncolours + c] += v - u;
        return;
    }
    k->cover[c0 * k->ncolours + c] += c0 + 1 - u;
    k->runs[(c0 + 1) * k->ncolours + c]++;
    k->runs[c1 * k->ncolours + c]--;
    if (c1 < k->n)
        k->cover[c1 * k->ncolours + c] += v - c1;
}

static int add_box(timeline_figure *f, size_t *cap, int track, int colour, double from,
                   double to, sam_error *err)
{
    timeline_box *more = grow_array(f->boxes, f->nboxes, cap, sizeof *more, 256);
    if (!more)
        return error_at(err, f->t->path, 0, "out of memory");
    f->boxes = more;
    f->boxes[f->nboxes++] = (timeline_box){from, to, track, colour};
    return 0;
}

/* The colour filling most of column i (the first of equals), or -1 when
 * nothing does; run holds the whole-column counts, carried from column to
 * column. */
static int column_colour(const columns *k, int i, int *run)
{
    int best = -1;
    double most = 0;
    for (int c = 0; c < k->ncolours; c++) {
        run[c] += k->runs[i * k->ncolours + c];
        double share = k->cover[i * k->ncolours + c] + run[c];
        if (share > most) {
            most = share;
            best = c;
        }
    }
    return best;
}

/* Where column i begins, within the window (the window's end for i = n,
 * not the sum, which may be an ulp past it). */
static double column_edge(const columns *k, int i)
{
    double at = k->from + i * k->width;
    return i < k->n && at < k->to ? at : k->to;
}

/* Track tr's boxes: runs of columns of one colour. */
static int track_boxes(timeline_figure *f, columns *k, int tr, size_t *cap, int *run,
                       sam_error *err)
{
    const timeline_track *track = &f->t->tracks[tr];
    memset(k->cover, 0, (size_t)k->n * (size_t)k->ncolours * sizeof *k->cover);
    memset(k->runs, 0, (size_t)(k->n + 1) * (size_t)k->ncolours * sizeof *k->runs);
    memset(run, 0, (size_t)k->ncolours * sizeof *run);
    for (size_t i = 0; i < track->nslices && track->slices[i].ts < k->to; i++)
        add_slice(k, &track->slices[i], f->colour_of[track->slices[i].name]);
    int open = -1, start = 0;
    for (int i = 0; i <= k->n; i++) {
        int c = i < k->n ? column_colour(k, i, run) : -1;
        if (c == open)
            continue;
        if (open >= 0 && add_box(f, cap, tr, open, column_edge(k, start), column_edge(k, i), err))
            return -1;
        open = c;
        start = i;
    }
    return 0;
}

static int make_boxes(timeline_figure *f, sam_error *err)
{
    const timeline_view *v = f->v;
    columns k = {.n = v->columns > 0 ? v->columns : TIMELINE_COLUMNS, .ncolours = f->ncolours,
                 .from = v->from, .to = v->to};
    k.width = (k.to - k.from) / k.n;
    k.cover = error_alloc(err, (size_t)k.n * (size_t)k.ncolours, sizeof *k.cover);
    k.runs = k.cover ? error_alloc(err, (size_t)(k.n + 1) * (size_t)k.ncolours, sizeof *k.runs)
                     : NULL;
    int *run = k.runs ? error_alloc(err, (size_t)k.ncolours, sizeof *run) : NULL;
    size_t cap = 0;
    int rc = run ? 0 : error_prefix(err, f->t->path);
    for (int tr = 0; rc == 0 && tr < f->t->ntracks; tr++)
        rc = track_boxes(f, &k, tr, &cap, run, err);
    free(k.cover);
    free(k.runs);
    free(run);
    return rc;
}

void timeline_figure_free(timeline_figure *f)
{
    free(f->colour_of);
    free(f->boxes);
    *f = (timeline_figure){0};
}

int timeline_figure_make(const timeline *t, const timeline_view *v, timeline_figure *f,
                         sam_error *err)
{
    *f = (timeline_figure){.t = t, .v = v};
    int columns = v->columns > 0 ? v->columns : TIMELINE_COLUMNS;
    double width = (v->to - v->from) / columns;
    if (!(v->from < v->to) || !isfinite(width) || !(width > 0))
        return error_at(err, t->path, 0, "the window from %.15g to %.15g cannot be cut into %d "
                        "columns", v->from, v->to, columns);
    if (assign_colours(f, err) || make_boxes(f, err)) {
        timeline_figure_free(f);
        return -1;
    }
    if (!f->nboxes) {
        timeline_figure_free(f);
        return error_at(err, t->path, 0, "no slice between %.15g and %.15g (its slices span "
                        "%.15g to %.15g %s)", v->from, v->to, t->start, t->end, t->unit);
    }
    return 0;
}

/* ---- the script --------------------------------------------------------- */

/* $C<c>: the boxes of colour c, a line each: from, to, track. */
static void put_boxes(FILE *out, const timeline_figure *f, int c)
{
    fprintf(out, "$C%d << EOD\n", c);
    for (size_t i = 0; i < f->nboxes; i++)
        if (f->boxes[i].colour == c)
            fprintf(out, "%.15g %.15g %d\n", f->boxes[i].from, f->boxes[i].to,
                    f->boxes[i].track);
    fputs("EOD\n", out);
}

/* A tic per track, labelled by its name, the first at the top. */
static void put_tracks(FILE *out, const timeline *t)
{
    fputs("set ytics (", out);
    for (int k = 0; k < t->ntracks; k++) {
        char label[512];
        timeline_track_label(t, k, label, sizeof label);
        fputs(k ? ", " : "", out);
        gnuplot_put_string(out, label);
        fprintf(out, " %d", k);
    }
    fputs(") scale 0\n", out);
    fprintf(out, "set yrange [%g:%g]\n", t->ntracks - 0.5, -0.5);
}

static void put_settings(FILE *out, const timeline_figure *f)
{
    const timeline *t = f->t;
    const timeline_view *v = f->v;
    fputs("set title ", out);
    gnuplot_put_string(out, v->title ? v->title : t->process ? t->process : t->path);
    fputs("\nset xlabel ", out);
    gnuplot_put_string(out, t->unit);
    fprintf(out, "\nset xrange [%.15g:%.15g]\n", v->from, v->to);
    fputs("set format x '%.12g'\nset xtics nomirror\nset grid xtics\n", out);
    put_tracks(out, t);
    fputs("set key outside bottom center horizontal\nset bmargin 6\nset style fill solid 1.0 noborder\n", out);
}

/* A plot per colour that has boxes, titled by its name for the legend. */
static void put_plot(FILE *out, const timeline_figure *f, const int *has)
{
    fputs("plot", out);
    for (int c = 0, first = 1; c < f->ncolours; c++) {
        if (!has[c])
            continue;
        fprintf(out, "%s $C%d using (($1+$2)/2):3:1:2:($3-%g):($3+%g) with boxxyerror "
                     "lc rgb '%s' title ",
                first ? "" : ", \\\n    ", c, BOX_HALF_HEIGHT, BOX_HALF_HEIGHT, f->rgb[c]);
        gnuplot_put_string(out, f->legend[c]);
        first = 0;
    }
    fputs("\n", out);
}

void timeline_script(FILE *out, const timeline_figure *f)
{
    int has[TIMELINE_COLOURS] = {0};
    for (size_t i = 0; i < f->nboxes; i++)
        has[f->boxes[i].colour] = 1;
    gnuplot_put_terminal(out, f->v->out, PICTURE_WIDTH,
                         PICTURE_MARGINS + TRACK_HEIGHT * f->t->ntracks);
    for (int c = 0; c < f->ncolours; c++)
        if (has[c])
            put_boxes(out, f, c);
    put_settings(out, f);
    put_plot(out, f, has);
}

static void script_of(FILE *out, const void *figure)
{
    timeline_script(out, figure);
}

int timeline_draw(const timeline *t, const timeline_view *v, sam_error *err)
{
    timeline_figure f;
    if (timeline_figure_make(t, v, &f, err))
        return -1;
    int rc = gnuplot_draw(v->out, "timeline", script_of, &f, err);
    timeline_figure_free(&f);
    return rc;
}
