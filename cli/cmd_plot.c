/* samsim plot CSV --x COL --y COL [--by COL] -o FILE.svg|FILE.png: the
 * usual figure of a results table (a sweep's: a header, a row per job),
 * drawn by gnuplot. Rows whose y is not a number (a failed job's empty
 * field) are left out and counted. When every x left is a number, each
 * --by group is a line through its points in x order; otherwise the x
 * values are categories and each group a bar colour in clusters. Rows
 * that share a group and an x become one point: their mean, with a
 * min..max error bar.
 *
 * The table gnuplot receives holds only numbers (categories as their
 * index), so no user text goes through gnuplot's data parser; names reach
 * it as string literals of the script, which is written to gnuplot's
 * standard input without a shell. gnuplot writes the picture on its
 * standard output, a temporary file renamed into place when it succeeds. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csv.h>

#include "../common/atomic_file.h"
#include "../common/grow.h"
#include "../graph/render.h"
#include "args.h"
#include "commands.h"
#include "outputs.h"

extern char **environ;

#define PLOT_USAGE                                                                             \
    "usage: samsim plot CSV --x COL --y COL [--by COL] -o FILE.svg|FILE.png [--title TEXT] "   \
    "[--xlabel TEXT] [--ylabel TEXT] [--logx] [--logy] [--data]"

/* The share of a category's slot its cluster of bars takes. */
#define CLUSTER_WIDTH 0.8

typedef struct plot_opts {
    const char *csv, *x, *y, *by, *out, *title, *xlabel, *ylabel;
    int logx, logy, data;
} plot_opts;

/* ---- arguments -------------------------------------------------------- */

static int flag(const char *arg, plot_opts *o)
{
    int *f = !strcmp(arg, "--logx") ? &o->logx : !strcmp(arg, "--logy") ? &o->logy
           : !strcmp(arg, "--data") ? &o->data : NULL;
    if (f)
        *f = 1;
    return f != NULL;
}

/* 1 when argv[*i] is an option with a value (stored), 0 when not, -1 on
 * a missing value. */
static int valued(int argc, char **argv, int *i, plot_opts *o, sam_error *err)
{
    static const char *const names[] = {"--x", "--y", "--by", "-o", "--title", "--xlabel",
                                        "--ylabel"};
    const char **slots[] = {&o->x, &o->y, &o->by, &o->out, &o->title, &o->xlabel, &o->ylabel};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        int r = args_option(argc, argv, i, names[k], slots[k], err);
        if (r)
            return r;
    }
    return 0;
}

static int check_args(const plot_opts *o, sam_error *err)
{
    if (!o->csv || !o->x || !o->y || (!o->out && !o->data))
        return error_set(err, PLOT_USAGE);
    if (o->out && !graph_render_format(o->out))
        return error_at(err, o->out, 0, "unknown output format (use .svg or .png)");
    if (o->out && o->data && !strcmp(o->out, "-"))
        return error_set(err, "plot: --data and -o - would both write standard output");
    const io_file in = {"CSV", o->csv, NULL}, out = {"-o", o->out, NULL};
    return outputs_check("plot", &in, 1, &out, 1, err);
}

static int parse_args(int argc, char **argv, plot_opts *o, sam_error *err)
{
    *o = (plot_opts){0};
    for (int i = 0; i < argc; i++) {
        int r = valued(argc, argv, &i, o, err);
        if (r < 0)
            return -1;
        if (r > 0 || flag(argv[i], o))
            continue;
        if (argv[i][0] == '-' || o->csv)
            return error_set(err, "plot: unexpected argument '%s'", argv[i]);
        o->csv = argv[i];
    }
    return check_args(o, err);
}

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

typedef struct reader {
    const char *path;
    long line;
    sam_error *err;
    int failed;
    char **fields;          /* of the record being read */
    int nfields;
    size_t cap;
    int nheader;            /* 0 until the header was read */
    int xcol, ycol, bycol;  /* bycol -1 without --by */
    const plot_opts *o;
    plot_table *t;
} reader;

static void fail_nomem(reader *r)
{
    if (!r->failed)
        error_at(r->err, r->path, r->line, "out of memory");
    r->failed = 1;
}

/* The header's names, comma separated, cut with "..." where they do not
 * fit an error message. */
static void join_columns(const reader *r, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < r->nfields; k++) {
        const char *sep = k ? ", " : "";
        if (n + strlen(sep) + strlen(r->fields[k]) + 4 >= size) {
            snprintf(buf + n, size - n, "%s...", sep);
            return;
        }
        n += (size_t)snprintf(buf + n, size - n, "%s%s", sep, r->fields[k]);
    }
}

static int find_column(reader *r, const char *opt, const char *name)
{
    for (int k = 0; k < r->nfields; k++)
        if (!strcmp(r->fields[k], name))
            return k;
    char cols[300];
    join_columns(r, cols, sizeof cols);
    r->failed = 1;
    return error_at(r->err, r->path, r->line, "%s: no column '%s' (the columns: %s)", opt, name,
                    cols);
}

static void read_header(reader *r)
{
    r->nheader = r->nfields;
    r->bycol = -1;
    if ((r->xcol = find_column(r, "--x", r->o->x)) < 0 ||
        (r->ycol = find_column(r, "--y", r->o->y)) < 0)
        return;
    if (r->o->by)
        r->bycol = find_column(r, "--by", r->o->by);
}

static void read_row(reader *r)
{
    if (r->nfields != r->nheader) {
        r->failed = 1;
        error_at(r->err, r->path, r->line, "%d field%s where the header has %d", r->nfields,
                 r->nfields == 1 ? "" : "s", r->nheader);
        return;
    }
    plot_table *t = r->t;
    plot_row row = {.line = r->line};
    if (!parse_number(r->fields[r->ycol], &row.y)) {
        t->skipped++;
        return;
    }
    plot_row *more = grow_array(t->rows, (size_t)t->nrows, &t->cap, sizeof *more, 64);
    if (!more)
        return fail_nomem(r);
    t->rows = more;
    row.x_number = parse_number(r->fields[r->xcol], &row.xv);
    row.x = strdup(r->fields[r->xcol]);
    row.by = r->bycol >= 0 ? strdup(r->fields[r->bycol]) : NULL;
    t->rows[t->nrows++] = row;
    if (!row.x || (r->bycol >= 0 && !row.by))
        fail_nomem(r);
}

static void clear_fields(reader *r)
{
    for (int k = 0; k < r->nfields; k++)
        free(r->fields[k]);
    r->nfields = 0;
}

static void on_field(void *s, size_t len, void *data)
{
    reader *r = data;
    if (r->failed)
        return;
    char **more = grow_array(r->fields, (size_t)r->nfields, &r->cap, sizeof *more, 32);
    if (!more)
        return fail_nomem(r);
    r->fields = more;
    char *f = strndup(s ? s : "", len);
    if (!f)
        return fail_nomem(r);
    r->fields[r->nfields++] = f;
}

static void on_record(int c, void *data)
{
    (void)c;
    reader *r = data;
    if (!r->failed) {
        if (r->nheader)
            read_row(r);
        else
            read_header(r);
    }
    clear_fields(r);
}

static void parse_error(reader *r, struct csv_parser *p)
{
    if (r->failed)
        return;
    r->failed = 1;
    if (csv_error(p) == CSV_EPARSE)
        error_at(r->err, r->path, r->line, "malformed CSV: a quote out of place or unclosed");
    else
        error_at(r->err, r->path, r->line, "%s", csv_strerror(csv_error(p)));
}

/* Fed a line at a time, so that the line being fed when a record ends is
 * the one to name. */
static void parse_file(reader *r, FILE *f, struct csv_parser *p)
{
    char *buf = NULL;
    size_t size = 0;
    ssize_t n;
    while (!r->failed && (n = getline(&buf, &size, f)) > 0) {
        r->line++;
        if (csv_parse(p, buf, (size_t)n, on_field, on_record, r) != (size_t)n)
            parse_error(r, p);
    }
    free(buf);
    if (!r->failed && ferror(f)) {
        r->failed = 1;
        error_at(r->err, r->path, 0, "read error: %s", strerror(errno));
    }
    if (!r->failed && csv_fini(p, on_field, on_record, r) != 0)
        parse_error(r, p);
}

static void check_rows(reader *r)
{
    if (r->failed)
        return;
    r->failed = 1;
    if (!r->nheader)
        error_at(r->err, r->path, 0, "empty file: no header");
    else if (!r->t->nrows)
        error_at(r->err, r->path, 0, "no row has a number in column %s (%d row%s without)",
                 r->o->y, r->t->skipped, r->t->skipped == 1 ? "" : "s");
    else
        r->failed = 0;
}

static int table_read(const plot_opts *o, plot_table *t, sam_error *err)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(o->csv, "r");
    if (!f)
        return error_at(err, o->csv, 0, "cannot open: %s", strerror(errno));
    struct csv_parser p;
    reader r = {.path = o->csv, .err = err, .o = o, .t = t};
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        fclose(f);
        return error_at(err, o->csv, 0, "out of memory");
    }
    parse_file(&r, f, &p);
    check_rows(&r);
    csv_free(&p);
    fclose(f);
    clear_fields(&r);
    free(r.fields);
    if (r.failed) {
        table_free(t);
        return -1;
    }
    return 0;
}

/* ---- groups, categories and points ------------------------------------ */

typedef struct plot_point {
    int group;
    double x;           /* the category's index for categorical x */
    double mean, min, max;
    int rows;
} plot_point;

typedef struct plot_set {
    const char **groups;    /* names in first-appearance order (NULL: no --by) */
    int ngroups;
    const char **cats;      /* categorical x: categories in first-appearance order */
    int ncats;
    plot_point *points;     /* by group, then x */
    int npoints;
    int repeats;            /* some point stands for more than one row */
} plot_set;

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

static void set_free(plot_set *s)
{
    free(s->groups);
    free(s->cats);
    free(s->points);
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
static int check_logs(const plot_table *t, const plot_opts *o, sam_error *err)
{
    const plot_row *cat = first_category(t);
    if (o->logx && cat)
        return error_at(err, o->csv, cat->line, "--logx: column %s holds '%s', not a number",
                        o->x, cat->x);
    for (int i = 0; i < t->nrows; i++) {
        const plot_row *r = &t->rows[i];
        if (o->logx && r->xv <= 0)
            return error_at(err, o->csv, r->line, "--logx: column %s is %s, not positive", o->x,
                            r->x);
        if (o->logy && r->y <= 0)
            return error_at(err, o->csv, r->line, "--logy: column %s is %.15g, not positive",
                            o->y, r->y);
    }
    return 0;
}

static int set_make(plot_table *t, const plot_opts *o, plot_set *s, sam_error *err)
{
    memset(s, 0, sizeof *s);
    int categorical = first_category(t) != NULL;
    if (check_logs(t, o, err) || rank_rows(t, s, categorical, err) ||
        make_points(t, s, categorical, err)) {
        set_free(s);
        return -1;
    }
    return 0;
}

/* ---- the script --------------------------------------------------------- */

/* The inside of a gnuplot single-quoted string: a quote is doubled, and a
 * line break (which would end the command) or other control character
 * becomes a blank. */
static void put_quoted(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'')
            fputs("''", f);
        else
            putc(c < 0x20 || c == 0x7f ? ' ' : c, f);
    }
}

static void put_string(FILE *f, const char *s)
{
    putc('\'', f);
    put_quoted(f, s);
    putc('\'', f);
}

static void put_setting(FILE *f, const char *what, const char *text)
{
    fprintf(f, "set %s ", what);
    put_string(f, text);
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

static void put_title(FILE *f, const plot_opts *o)
{
    if (o->title) {
        put_setting(f, "title", o->title);
        return;
    }
    fputs("set title '", f);
    put_quoted(f, o->y);
    fputs(" by ", f);
    put_quoted(f, o->x);
    if (o->by) {
        fputs(" for each ", f);
        put_quoted(f, o->by);
    }
    fputs("'\n", f);
}

/* Category names slanted when upright ones would run into each other. */
static void put_categories(FILE *f, const plot_set *s)
{
    size_t longest = 0;
    fputs("set xtics (", f);
    for (int c = 0; c < s->ncats; c++) {
        fputs(c ? ", " : "", f);
        put_string(f, s->cats[c]);
        fprintf(f, " %d", c);
        longest = strlen(s->cats[c]) > longest ? strlen(s->cats[c]) : longest;
    }
    fputs(")", f);
    fputs((size_t)s->ncats * (longest + 2) > 100 ? " rotate by -30 left\n" : "\n", f);
    fprintf(f, "set xrange [-0.5:%d.5]\n", s->ncats - 1);
    fprintf(f, "set style fill solid 0.7 border -1\n");
}

static void put_settings(FILE *f, const plot_set *s, const plot_opts *o)
{
    put_title(f, o);
    put_setting(f, "xlabel", o->xlabel ? o->xlabel : o->x);
    put_setting(f, "ylabel", o->ylabel ? o->ylabel : o->y);
    fputs("set grid\n", f);
    fputs(o->by ? "set key outside right top\n" : "unset key\n", f);
    if (o->logx)
        fputs("set logscale x\n", f);
    if (o->logy)
        fputs("set logscale y\n", f);
    if (s->cats) {
        put_categories(f, s);
        if (!o->logy)
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
        put_string(f, s->groups ? s->groups[g] : "");
    }
    fputs("\n", f);
}

static void put_script(FILE *f, const plot_set *s, const plot_opts *o)
{
    /* Enhanced text would read a name's _ and ^ as sub- and superscripts. */
    fprintf(f, "set encoding utf8\nset terminal %s size 900,600 noenhanced\n",
            !strcmp(graph_render_format(o->out), "png") ? "pngcairo" : "svg");
    put_datablocks(f, s);
    put_settings(f, s, o);
    put_plot(f, s);
}

/* ---- gnuplot ------------------------------------------------------------ */

/* gnuplot reads the script from in and writes the picture on out and its
 * messages on errfd; -d keeps a user's ~/.gnuplot out of the figure. */
static int spawn_gnuplot(int in, int out, int errfd, pid_t *pid, sam_error *err)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa))
        return error_set(err, "out of memory");
    char *argv[] = {"gnuplot", "-d", NULL};
    int rc = posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, errfd, STDERR_FILENO);
    if (!rc)
        rc = posix_spawnp(pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == ENOENT)
        return error_set(err, "plot: gnuplot not found (scripts/install-deps installs "
                              "gnuplot-nox)");
    if (rc)
        return error_set(err, "plot: cannot start gnuplot: %s", strerror(rc));
    return 0;
}

/* Writes the script into the pipe and closes it: 0 or the errno of the
 * failure. gnuplot may stop reading at an error, which its exit status
 * then tells, so a broken pipe must not end samsim. */
static int feed(int fd, const plot_set *s, const plot_opts *o)
{
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old);
    FILE *f = fdopen(fd, "w");
    int e = f ? 0 : errno;
    if (f) {
        put_script(f, s, o);
        e = ferror(f) ? errno : 0;
        if (fclose(f) && !e)
            e = errno;
    } else {
        close(fd);
    }
    sigaction(SIGPIPE, &old, NULL);
    return e;
}

/* The last line gnuplot wrote on standard error, blanks trimmed. */
static void last_message(FILE *log, char *buf, size_t size)
{
    char line[256];
    buf[0] = '\0';
    rewind(log);
    while (fgets(line, sizeof line, log)) {
        char *p = line + strspn(line, " \t");
        p[strcspn(p, "\r\n")] = '\0';
        if (*p)
            snprintf(buf, size, "%s", p);
    }
}

static int gnuplot_status(pid_t pid, FILE *log, const char *out, int fed, sam_error *err)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return error_set(err, "plot: waiting for gnuplot: %s", strerror(errno));
    char msg[200];
    last_message(log, msg, sizeof msg);
    if (WIFSIGNALED(status))
        return error_at(err, out, 0, "gnuplot was killed by signal %d", WTERMSIG(status));
    if (WEXITSTATUS(status) != 0)
        return error_at(err, out, 0, "gnuplot failed (exit %d): %s", WEXITSTATUS(status),
                        *msg ? msg : "no message");
    if (fed)
        return error_at(err, out, 0, "cannot write gnuplot's script: %s", strerror(fed));
    return 0;
}

static int open_pipe(int p[2], sam_error *err)
{
    if (pipe(p) != 0)
        return error_set(err, "plot: cannot make a pipe: %s", strerror(errno));
    /* Neither end may stay open in gnuplot, or it would never see the end
     * of the script. */
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

static int draw(const plot_set *s, const plot_opts *o, atomic_file *af, sam_error *err)
{
    FILE *log = tmpfile();
    if (!log)
        return error_set(err, "plot: cannot make a temporary file: %s", strerror(errno));
    int p[2];
    pid_t pid;
    int rc = open_pipe(p, err);
    if (rc == 0) {
        rc = spawn_gnuplot(p[0], fileno(af->f), fileno(log), &pid, err);
        close(p[0]);
        if (rc)
            close(p[1]);
        else
            rc = gnuplot_status(pid, log, af->path, feed(p[1], s, o), err);
    }
    fclose(log);
    return rc;
}

static int plot_file(const plot_set *s, const plot_opts *o, sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, o->out, err))
        return -1;
    int rc = draw(s, o, &af, err);
    if (rc == 0)
        rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err) ? -1 : 0;
    atomic_file_discard(&af);
    return rc;
}

/* ---- --data --------------------------------------------------------------- */

static void put_csv(const char *s)
{
    csv_fwrite(stdout, s, strlen(s));
}

/* The points as CSV: group (with --by), x, mean, min, max, rows. */
static void print_data(const plot_set *s, const plot_opts *o)
{
    if (o->by) {
        put_csv(o->by);
        putchar(',');
    }
    put_csv(o->x);
    putchar(',');
    put_csv(o->y);
    printf(",min,max,rows\n");
    for (int i = 0; i < s->npoints; i++) {
        const plot_point *p = &s->points[i];
        if (s->groups) {
            put_csv(s->groups[p->group]);
            putchar(',');
        }
        if (s->cats)
            put_csv(s->cats[(int)p->x]);
        else
            printf("%.15g", p->x);
        printf(",%.15g,%.15g,%.15g,%d\n", p->mean, p->min, p->max, p->rows);
    }
}

int cmd_plot(int argc, char **argv)
{
    plot_opts o;
    sam_error err;
    plot_table t;
    plot_set s;
    if (parse_args(argc, argv, &o, &err) || table_read(&o, &t, &err))
        return args_fail(&err);
    int rc = set_make(&t, &o, &s, &err);
    if (rc == 0) {
        if (o.out)
            rc = plot_file(&s, &o, &err);
        if (rc == 0 && o.data)
            print_data(&s, &o);
        set_free(&s);
    }
    if (rc == 0 && t.skipped)
        fprintf(stderr, "samsim: plot: %s: left out %d row%s whose %s is not a number\n", o.csv,
                t.skipped, t.skipped == 1 ? "" : "s", o.y);
    table_free(&t);
    return rc ? args_fail(&err) : 0;
}
