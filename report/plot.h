/* The usual figure of a results table (a sweep's: a header, a row per
 * job), drawn by gnuplot. Rows whose y is not a number (a failed job's
 * empty field) are left out and counted. When every x left is a number,
 * each group is a line through its points in x order; otherwise the x
 * values are categories and each group a bar colour in clusters. Rows
 * that share a group and an x become one point: their mean, with a
 * min..max error bar.
 *
 * The table gnuplot receives holds only numbers (categories as their
 * index), so no user text goes through gnuplot's data parser; names reach
 * it as string literals of the script, which is written to gnuplot's
 * standard input without a shell. */
#ifndef SAMSIM_PLOT_H
#define SAMSIM_PLOT_H

#include <stdio.h>

#include "../common/error.h"

typedef struct plot_request {
    const char *csv;                /* the table */
    const char *x, *y, *by;         /* column names; by NULL: one group */
    const char *out;                /* .svg or .png (graph_render_format), or NULL */
    const char *title, *xlabel, *ylabel;    /* NULL: made of the column names */
    int logx, logy;
} plot_request;

typedef struct plot_point {
    int group;
    double x;           /* the category's index for categorical x */
    double mean, min, max;
    int rows;
} plot_point;

typedef struct plot_set {
    const char **groups;    /* names in first-appearance order (NULL: no by) */
    int ngroups;
    const char **cats;      /* categorical x: categories in first-appearance order */
    int ncats;
    plot_point *points;     /* by group, then x */
    int npoints;
    int repeats;            /* some point stands for more than one row */
    int skipped;            /* rows left out: their y is not a number */
    struct plot_table *table;   /* owns the names */
} plot_set;

/* Reads r->csv into points; errors are one line naming the file (and the
 * line), as a missing column or a log axis over a value not positive. */
int plot_set_read(const plot_request *r, plot_set *s, sam_error *err);

void plot_set_free(plot_set *s);

/* The gnuplot script drawing s into r->out's format on standard output. */
void plot_script(FILE *f, const plot_set *s, const plot_request *r);

/* The points as CSV: group (with by), x, mean, min, max, rows. */
void plot_data(FILE *f, const plot_set *s, const plot_request *r);

/* Reads the table and, with r->out, has gnuplot draw it there (the file
 * appears whole or not at all); with data, writes the points there.
 * *skipped: the rows left out. */
int plot_figure(const plot_request *r, FILE *data, int *skipped, sam_error *err);

#endif
