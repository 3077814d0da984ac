/* The figure of a results table (plot.h): the table read into points,
 * the gnuplot script, and gnuplot run on it (gnuplot.h). */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/csv_table.h"
#include "../common/grow.h"
#include "gnuplot.h"
#include "plot.h"

/* The share of a category's slot its cluster of bars takes. */
#define CLUSTER_WIDTH 0.8

/* ---- the table ---------------------------------------------------------- */

typedef struct plot_row {
    char *x, *by;       /* by NULL without --by */
    double xv, y;
    int x_number;       /* x parsed as a number into xv */
    long line;
    int group, cat;     /* first-appearance indices; cat of categorical x */
    double key;         /* the x it is plotted at: xv, or cat for categories */
} plot_row;

typedef struct plot_table {
    plot_row *rows;
    int nrows;
    size_t cap;
    int skipped;        /* rows whose y is not a number */
} plot_table;

/* A finite number filling the field, blanks around it allowed. */
static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE)
        return 0;
    end += strspn(end, " \t");
    if (*end || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static void table_free(plot_table *t)
{
    for (int i = 0; i < t->nrows; i++) {
        free(t->rows[i].x);
        free(t->rows[i].by);
    }
    free(t->rows);
}

/* ---- reading the CSV ---------------------------------------------------- */

/* The header's names, comma separated, cut with "..." where they do not
 * fit an error message. */
static void join_columns(const csv_row *head, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < head->ncells; k++) {
        const char *sep = k ? ", " : "";
        if (n + strlen(sep) + strlen(head->cells[k]) + 4 >= size) {
            snprintf(buf + n, size - n, "%s...", sep);
            return;
        }
        n += (size_t)snprintf(buf + n, size - n, "%s%s", sep, head->cells[k]);
    }
}

static int find_column(const csv_table *c, const char *path, const char *opt, const char *name,
                       sam_error *err)
{
    int k = csv_table_column(c, name);
    if (k >= 0)
        return k;
    char cols[300];
    join_columns(&c->rows[0], cols, sizeof cols);
    return error_at(err, path, c->rows[0].line, "%s: no column '%s' (the columns: %s)", opt, name,
                    cols);
}

/* Row r of the file as a point, unless its y is not a number. */
static int read_row(const csv_row *r, size_t nheader, const int *col, plot_table *t,
                    const char *path, sam_error *err)
{
    if (r->ncells != nheader)
        return error_at(err, path, r->line, "%zu field%s where the header has %zu", r->ncells,
                        r->ncells == 1 ? "" : "s", nheader);
    plot_row row = {.line = r->line};
    if (!parse_number(r->cells[col[1]], &row.y)) {
        t->skipped++;
        return 0;
    }
    plot_row *more = grow_array(t->rows, (size_t)t->nrows, &t->cap, sizeof *more, 64);
    if (!more)
        return error_at(err, path, r->line, "out of memory");
    t->rows = more;
    row.x_number = parse_number(r->cells[col[0]], &row.xv);
    row.x = strdup(r->cells[col[0]]);
    row.by = col[2] >= 0 ? strdup(r->cells[col[2]]) : NULL;
    t->rows[t->nrows++] = row;
    if (!row.x || (col[2] >= 0 && !row.by))
        return error_at(err, path, r->line, "out of memory");
    return 0;
}

static int read_rows(const csv_table *c, const plot_request *req, plot_table *t, sam_error *err)
{
    if (!c->nrows)
        return error_at(err, req->csv, 0, "empty file: no header");
    int col[3] = {find_column(c, req->csv, "--x", req->x, err), -1, -1};
    if (col[0] < 0 || (col[1] = find_column(c, req->csv, "--y", req->y, err)) < 0 ||
        (req->by && (col[2] = find_column(c, req->csv, "--by", req->by, err)) < 0))
        return -1;
    for (size_t i = 1; i < c->nrows; i++)
        if (read_row(&c->rows[i], c->rows[0].ncells, col, t, req->csv, err))
            return -1;
    if (!t->nrows)
        return error_at(err, req->csv, 0, "no row has a number in column %s (%d row%s without)",
                        req->y, t->skipped, t->skipped == 1 ? "" : "s");
    return 0;
}

static int table_read(const plot_request *req, plot_table *t, sam_error *err)
{
    memset(t, 0, sizeof *t);
    csv_table c;
    if (csv_table_read(req->csv, &c, err))
        return -1;
    int rc = read_rows(&c, req, t, err);
    csv_table_free(&c);
    if (rc)
        table_free(t);
    return rc;
}

/* ---- groups, categories and points ------------------------------------ */

typedef struct keyed {
    const char *key;
    int row;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *p = a, *q = b;
    int c = strcmp(p->key, q->key);
    return c ? c : (p->row > q->row) - (p->row < q->row);
}

/* ids[i] = the first-appearance index of key i among the distinct keys,
 * whose names go to *names; sorting keeps this n log n for tables with a
 * distinct key per row. The count of distinct keys, or -1. */
static int rank_keys(const char **keys, int n, int *ids, const char ***names, sam_error *err)
{
    keyed *k = error_alloc(err, (size_t)n, sizeof *k);
    int *rank = k ? error_alloc(err, (size_t)n, sizeof *rank) : NULL;
    *names = rank ? error_alloc(err, (size_t)n, sizeof **names) : NULL;
    int count = -1;
    if (*names) {
        for (int i = 0; i < n; i++)
            k[i] = (keyed){keys[i], i};
        qsort(k, (size_t)n, sizeof *k, keyed_cmp);
        for (int j = 0; j < n; j++)  /* each row to the first row with its key */
            ids[k[j].row] = j && !strcmp(k[j].key, k[j - 1].key) ? ids[k[j - 1].row] : k[j].row;
        count = 0;
        for (int i = 0; i < n; i++) {  /* first rows numbered in file order */
            if (ids[i] == i)
                (*names)[rank[i] = count++] = keys[i];
            ids[i] = rank[ids[i]];
        }
    }
    free(k);
    free(rank);
    return count;
}

/* Gives each row its group (all 0 without --by, which leaves by NULL)
 * and, for categorical x, its category. */
static int rank_rows(plot_table *t, plot_set *s, int categorical, sam_error *err)
{
    const char **keys = error_alloc(err, (size_t)t->nrows, sizeof *keys);
    int *ids = keys ? error_alloc(err, (size_t)t->nrows, sizeof *ids) : NULL;
    int rc = ids ? 0 : -1;
    if (rc == 0 && t->rows[0].by) {
        for (int i = 0; i < t->nrows; i++)
            keys[i] = t->rows[i].by;
        if ((s->ngroups = rank_keys(keys, t->nrows, ids, &s->groups, err)) < 0)
            rc = -1;
        for (int i = 0; rc == 0 && i < t->nrows; i++)
            t->rows[i].group = ids[i];
    } else {
        s->ngroups = 1;
    }
    if (rc == 0 && categorical) {
        for (int i = 0; i < t->nrows; i++)
            keys[i] = t->rows[i].x;
        if ((s->ncats = rank_keys(keys, t->nrows, ids, &s->cats, err)) < 0)
            rc = -1;
        for (int i = 0; rc == 0 && i < t->nrows; i++)
            t->rows[i].cat = ids[i];
    }
    free(keys);
    free(ids);
    return rc;
}

/* By group, then by where the row is plotted. */
static int row_cmp(const void *a, const void *b)
{
    const plot_row *p = a, *q = b;
    if (p->group != q->group)
        return p->group < q->group ? -1 : 1;
    return (p->key > q->key) - (p->key < q->key);
}

/* One point per run of rows with the same group and x. */
static int make_points(plot_table *t, plot_set *s, int categorical, sam_error *err)
{
    for (int i = 0; i < t->nrows; i++)
        t->rows[i].key = categorical ? t->rows[i].cat : t->rows[i].xv;
    qsort(t->rows, (size_t)t->nrows, sizeof *t->rows, row_cmp);
    s->points = error_alloc(err, (size_t)t->nrows, sizeof *s->points);
    if (!s->points)
        return -1;
    plot_point *p = NULL;
    double sum = 0;
    for (int i = 0; i < t->nrows; i++) {
        const plot_row *r = &t->rows[i];
        if (!p || p->group != r->group || p->x != r->key) {
            if (p)
                p->mean = sum / p->rows;
            p = &s->points[s->npoints++];
            *p = (plot_point){r->group, r->key, 0, r->y, r->y, 0};
            sum = 0;
        }
        sum += r->y;
        p->min = fmin(p->min, r->y);
        p->max = fmax(p->max, r->y);
        s->repeats |= ++p->rows > 1;
    }
    p->mean = sum / p->rows;
    return 0;
}

void plot_set_free(plot_set *s)
{
    free(s->groups);
    free(s->cats);
    free(s->points);
    if (s->table)
        table_free(s->table);
    free(s->table);
    s->table = NULL;
}

/* The first row, in file order, whose x is not a number, or NULL. */
static const plot_row *first_category(const plot_table *t)
{
    for (int i = 0; i < t->nrows; i++)
        if (!t->rows[i].x_number)
            return &t->rows[i];
    return NULL;
}

/* A log axis shows positive values only; rows are still in file order. */
static int check_logs(const plot_table *t, const plot_request *req, sam_error *err)
{
    const plot_row *cat = first_category(t);
    if (req->logx && cat)
        return error_at(err, req->csv, cat->line, "--logx: column %s holds '%s', not a number",
                        req->x, cat->x);
    for (int i = 0; i < t->nrows; i++) {
        const plot_row *r = &t->rows[i];
        if (req->logx && r->xv <= 0)
            return error_at(err, req->csv, r->line, "--logx: column %s is %s, not positive", req->x,
                            r->x);
        if (req->logy && r->y <= 0)
            return error_at(err, req->csv, r->line, "--logy: column %s is %.15g, not positive",
                            req->y, r->y);
    }
    return 0;
}

int plot_set_read(const plot_request *req, plot_set *s, sam_error *err)
{
    memset(s, 0, sizeof *s);
    plot_table *t = error_alloc(err, 1, sizeof *t);
    if (!t || table_read(req, t, err)) {
        free(t);
        return -1;
    }
    s->table = t;
    s->skipped = t->skipped;
    int categorical = first_category(t) != NULL;
    if (check_logs(t, req, err) || rank_rows(t, s, categorical, err) ||
        make_points(t, s, categorical, err)) {
        plot_set_free(s);
        return -1;
    }
    return 0;
}

/* ---- the script --------------------------------------------------------- */

static void put_setting(FILE *f, const char *what, const char *text)
{
    fprintf(f, "set %s ", what);
    gnuplot_put_string(f, text);
    putc('\n', f);
}

/* $G<g>: x (a category's index), mean, min, max of each point of group g. */
static void put_datablocks(FILE *f, const plot_set *s)
{
    for (int g = 0, i = 0; g < s->ngroups; g++) {
        fprintf(f, "$G%d << EOD\n", g);
        for (; i < s->npoints && s->points[i].group == g; i++) {
            const plot_point *p = &s->points[i];
            fprintf(f, "%.15g %.15g %.15g %.15g\n", p->x, p->mean, p->min, p->max);
        }
        fprintf(f, "EOD\n");
    }
}

static void put_title(FILE *f, const plot_request *req)
{
    if (req->title) {
        put_setting(f, "title", req->title);
        return;
    }
    fputs("set title '", f);
    gnuplot_put_quoted(f, req->y);
    fputs(" by ", f);
    gnuplot_put_quoted(f, req->x);
    if (req->by) {
        fputs(" for each ", f);
        gnuplot_put_quoted(f, req->by);
    }
    fputs("'\n", f);
}

/* Category names slanted when upright ones would run into each other,
 * and upright on end when there are so many that slanted ones would. */
static void put_categories(FILE *f, const plot_set *s)
{
    size_t longest = 0;
    fputs("set xtics (", f);
    for (int c = 0; c < s->ncats; c++) {
        fputs(c ? ", " : "", f);
        gnuplot_put_string(f, s->cats[c]);
        fprintf(f, " %d", c);
        longest = strlen(s->cats[c]) > longest ? strlen(s->cats[c]) : longest;
    }
    fputs(")", f);
    int crowded = (size_t)s->ncats * (longest + 2) > 100;
    fputs(!crowded ? "\n" : s->ncats > 12 ? " rotate by 90 right\n" : " rotate by -30 left\n", f);
    fprintf(f, "set xrange [-0.5:%d.5]\n", s->ncats - 1);
    fprintf(f, "set style fill solid 0.7 border -1\n");
}

static void put_settings(FILE *f, const plot_set *s, const plot_request *req)
{
    put_title(f, req);
    put_setting(f, "xlabel", req->xlabel ? req->xlabel : req->x);
    put_setting(f, "ylabel", req->ylabel ? req->ylabel : req->y);
    fputs("set grid\n", f);
    fputs(req->by ? "set key outside right top\n" : "unset key\n", f);
    if (req->logx)
        fputs("set logscale x\n", f);
    if (req->logy)
        fputs("set logscale y\n", f);
    if (s->cats) {
        put_categories(f, s);
        if (!req->logy)
            fputs("set yrange [0:*]\n", f);
    }
}

/* Group g's bars sit side by side in each category's slot. */
static void put_bars(FILE *f, const plot_set *s, int g)
{
    double w = CLUSTER_WIDTH / s->ngroups, offset = -CLUSTER_WIDTH / 2 + w * (g + 0.5);
    fprintf(f, "$G%d using ($1%+.6g):2:%s(%.6g) with %s", g, offset, s->repeats ? "3:4:" : "", w,
            s->repeats ? "boxerrorbars" : "boxes");
}

static void put_plot(FILE *f, const plot_set *s)
{
    fputs("plot ", f);
    for (int g = 0; g < s->ngroups; g++) {
        fputs(g ? ", \\\n     " : "", f);
        if (s->cats)
            put_bars(f, s, g);
        else
            fprintf(f, "$G%d using 1:2%s with %s", g, s->repeats ? ":3:4" : "",
                    s->repeats ? "yerrorlines" : "linespoints");
        fputs(" title ", f);
        gnuplot_put_string(f, s->groups ? s->groups[g] : "");
    }
    fputs("\n", f);
}

void plot_script(FILE *f, const plot_set *s, const plot_request *req)
{
    gnuplot_put_terminal(f, req->out, 900, 600);
    put_datablocks(f, s);
    put_settings(f, s, req);
    put_plot(f, s);
}

/* ---- gnuplot ------------------------------------------------------------ */

typedef struct plot_figure_of {
    const plot_set *s;
    const plot_request *req;
} plot_figure_of;

static void script_of(FILE *f, const void *figure)
{
    const plot_figure_of *p = figure;
    plot_script(f, p->s, p->req);
}

/* ---- the points as CSV ------------------------------------------------- */

static void put_csv(FILE *f, const char *s)
{
    csv_fwrite(f, s, strlen(s));
}

void plot_data(FILE *f, const plot_set *s, const plot_request *req)
{
    if (req->by) {
        put_csv(f, req->by);
        putc(',', f);
    }
    put_csv(f, req->x);
    putc(',', f);
    put_csv(f, req->y);
    fputs(",min,max,rows\n", f);
    for (int i = 0; i < s->npoints; i++) {
        const plot_point *p = &s->points[i];
        if (s->groups) {
            put_csv(f, s->groups[p->group]);
            putc(',', f);
        }
        if (s->cats)
            put_csv(f, s->cats[(int)p->x]);
        else
            fprintf(f, "%.15g", p->x);
        fprintf(f, ",%.15g,%.15g,%.15g,%d\n", p->mean, p->min, p->max, p->rows);
    }
}

int plot_figure(const plot_request *req, FILE *data, int *skipped, sam_error *err)
{
    plot_set s;
    if (plot_set_read(req, &s, err))
        return -1;
    const plot_figure_of figure = {&s, req};
    int rc = req->out ? gnuplot_draw(req->out, "plot", script_of, &figure, err) : 0;
    if (rc == 0 && data)
        plot_data(data, &s, req);
    *skipped = s.skipped;
    plot_set_free(&s);
    return rc;
}
