/* A trace's Gantt chart (timeline.h), drawn by gnuplot (gnuplot.h): a row
 * per track, labelled by its name, time across, each slice name (busy,
 * blocked, starved, ...) a colour with its entry in the legend.
 *
 * A trace may hold hundreds of thousands of slices, far more than a
 * picture has pixels, so it is drawn by columns: the window is cut into
 * TIMELINE_COLUMNS of equal time, about a pixel each, and in each column
 * a track gets one box, of the name that fills most of that column
 * (none when nothing does); boxes of one name side by side are one. The
 * picture costs at most a box per column and track, however long the run. */
#ifndef SAMSIM_TIMELINE_FIGURE_H
#define SAMSIM_TIMELINE_FIGURE_H

#include <stdio.h>

#include "../common/error.h"
#include "timeline.h"

#define TIMELINE_COLUMNS 1600

/* At most so many colours: beyond them, the names of least time share
 * one, "others". */
#define TIMELINE_COLOURS 12

typedef struct timeline_view {
    double from, to;        /* the window, in the trace's unit, from < to */
    int columns;            /* 0: TIMELINE_COLUMNS */
    const char *out;        /* .svg or .png (graph_render_format) */
    const char *title;      /* NULL: the trace's process name, else its file */
} timeline_view;

typedef struct timeline_box {
    double from, to;
    int track, colour;
} timeline_box;

typedef struct timeline_figure {
    const timeline *t;
    const timeline_view *v;
    int *colour_of;         /* each name's colour */
    const char *legend[TIMELINE_COLOURS];   /* each colour's name */
    const char *rgb[TIMELINE_COLOURS];      /* and its "#rrggbb" */
    int ncolours;
    timeline_box *boxes;    /* by track, then time */
    size_t nboxes;
} timeline_figure;

/* The boxes of t in v's window; a window without a slice is refused with
 * one line naming the trace and the span its slices cover. */
int timeline_figure_make(const timeline *t, const timeline_view *v, timeline_figure *f,
                         sam_error *err);
void timeline_figure_free(timeline_figure *f);

/* The gnuplot script drawing f into its view's format on standard output. */
void timeline_script(FILE *out, const timeline_figure *f);

/* Makes the figure and has gnuplot draw it to v->out, whole or not at all. */
int timeline_draw(const timeline *t, const timeline_view *v, sam_error *err);

#endif
