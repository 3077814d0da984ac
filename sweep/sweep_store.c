#include "sweep_store.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "../common/grow.h"
#include "../common/words.h"

int sweep_store_path(char *buf, const char *dir, const char *name, sam_error *err)
{
    if (snprintf(buf, SWEEP_PATH, "%s/%s", dir, name) >= SWEEP_PATH)
        return error_at(err, dir, 0, "path too long");
    return 0;
}

static int make_dir(const char *path, sam_error *err)
{
    if (mkdir(path, 0777) && errno != EEXIST)
        return error_at(err, path, 0, "cannot create: %s", strerror(errno));
    struct stat st;
    if (stat(path, &st) || !S_ISDIR(st.st_mode))
        return error_at(err, path, 0, "exists and is not a directory");
    return 0;
}

int sweep_store_create(const char *dir, sam_error *err)
{
    static const char *const subdirs[] = {"jobs", "results", "data", "work"};
    char path[SWEEP_PATH];
    if (make_dir(dir, err))
        return -1;
    for (size_t k = 0; k < sizeof subdirs / sizeof subdirs[0]; k++)
        if (sweep_store_path(path, dir, subdirs[k], err) || make_dir(path, err))
            return -1;
    return 0;
}

/* ---- tables written a row at a time ----------------------------------- */

/* An atomic file of CSV rows. */
static int table_open(atomic_file *af, const char *dir, const char *name, sam_error *err)
{
    char path[SWEEP_PATH];
    return sweep_store_path(path, dir, name, err) || atomic_file_open(af, path, err) ? -1 : 0;
}

static int table_row(atomic_file *af, const char *const *cells, size_t n, sam_error *err)
{
    return csv_write_row(af->f, cells, n) ? error_at(err, af->path, 0, "write error: %s",
                                                     strerror(errno))
                                          : 0;
}

static int table_close(atomic_file *af, int rc, sam_error *err)
{
    if (!rc)
        rc = atomic_file_close(af, err) || atomic_file_publish(af, err) ? -1 : 0;
    atomic_file_discard(af);
    return rc;
}

int sweep_store_write_pairs(const char *path, const sweep_pair *pairs, size_t n,
                            sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err))
        return -1;
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++)
        rc = table_row(&af, (const char *const[]){pairs[i].key, pairs[i].value}, 2, err);
    return table_close(&af, rc, err);
}

/* ---- the job list ----------------------------------------------------- */

static int job_file(char *buf, const char *dir, size_t index, sam_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "jobs/%zu.job", index);
    return sweep_store_path(buf, dir, name, err);
}

static int write_job(const char *dir, size_t index, const sweep_job *job, sam_error *err)
{
    char path[SWEEP_PATH];
    atomic_file af;
    if (job_file(path, dir, index, err) || atomic_file_open(&af, path, err))
        return -1;
    int rc = table_row(&af, (const char *const[]){"hash", job->hash}, 2, err);
    for (size_t i = 0; !rc && i < job->nkeys; i++)
        rc = table_row(&af, (const char *const[]){job->keys[i].key, job->keys[i].value}, 2, err);
    return table_close(&af, rc, err);
}

/* i in decimal into buf (of 24), as %zu writes it, without snprintf's
 * cost in a list of a million jobs. */
static const char *job_number(size_t i, char *buf)
{
    char *p = buf + 23;
    *p = '\0';
    do
        *--p = (char)('0' + i % 10);
    while (i /= 10);
    return p;
}

/* Writes the job list, a row per job: its number, parameters and hash. */
static int write_list(sweep_plan *plan, FILE *f, sam_error *err)
{
    size_t n = plan->ncolumns + 2;
    const char **cells = calloc(n, sizeof *cells);
    if (!cells)
        return error_set(err, "out of memory");
    cells[0] = "job";
    for (size_t k = 0; k < plan->ncolumns; k++)
        cells[1 + k] = plan->columns[k];
    cells[n - 1] = "hash";
    int rc = csv_write_row(f, cells, n) ? 1 : 0;
    for (size_t i = 0; !rc && i < plan->njobs; i++) {
        sweep_job job;
        char number[24];
        if (sweep_plan_job(plan, i, &job, err)) {
            rc = -1;
            break;
        }
        cells[0] = job_number(i, number);
        for (size_t k = 0; k < plan->ncolumns; k++)
            cells[1 + k] = job.params[k];
        cells[n - 1] = job.hash;
        rc = csv_write_row(f, cells, n) ? 1 : 0;
    }
    free(cells);
    return rc;
}

int sweep_store_print_list(sweep_plan *plan, FILE *f, sam_error *err)
{
    int rc = write_list(plan, f, err);
    if (rc > 0 || (!rc && fflush(f)))
        return error_set(err, "sweep: standard output: write error: %s", strerror(errno));
    return rc;
}

int sweep_store_prepare(const char *dir, sweep_plan *plan, sam_error *err)
{
    char path[SWEEP_PATH];
    for (size_t i = 0; i < plan->njobs; i++) {
        sweep_job job;
        if (sweep_plan_job(plan, i, &job, err) || write_job(dir, i, &job, err))
            return -1;
    }
    /* A spec that shrank leaves job files past its end: remove them. */
    for (size_t i = plan->njobs; !job_file(path, dir, i, err) && !unlink(path); i++)
        ;
    atomic_file af;
    if (table_open(&af, dir, "jobs.csv", err))
        return -1;
    int rc = write_list(plan, af.f, err);
    if (rc > 0)
        rc = error_at(err, af.path, 0, "write error: %s", strerror(errno));
    return table_close(&af, rc, err);
}

static int bad_list(const char *path, long line, const char *what, sam_error *err)
{
    return error_at(err, path, line, "%s (not a sweep's job list; was it changed?)", what);
}

int sweep_store_load_job(const char *dir, size_t index, sweep_job_file *f, sam_error *err)
{
    memset(f, 0, sizeof *f);
    char path[SWEEP_PATH];
    if (job_file(path, dir, index, err) || csv_table_read(path, &f->table, err))
        return -1;
    const csv_table *t = &f->table;
    int rc = t->nrows ? 0 : bad_list(path, 0, "empty job file", err);
    if (!rc && !(f->pairs = calloc(t->nrows, sizeof *f->pairs)))
        rc = error_set(err, "out of memory");
    for (size_t r = 0; !rc && r < t->nrows; r++) {
        const csv_row *row = &t->rows[r];
        if (row->ncells != 2 || (r == 0) != !strcmp(row->cells[0], "hash"))
            rc = bad_list(path, row->line, "expected the hash, then key,value rows", err);
        else if (r == 0 && strlen(row->cells[1]) != 16)
            rc = bad_list(path, row->line, "a hash of 16 digits", err);
        else if (r == 0)
            memcpy(f->job.hash, row->cells[1], 17);
        else
            f->pairs[r - 1] = (sweep_pair){row->cells[0], row->cells[1]};
    }
    f->job.keys = f->pairs;
    f->job.nkeys = t->nrows ? t->nrows - 1 : 0;
    if (rc)
        sweep_job_file_free(f);
    return rc;
}

void sweep_job_file_free(sweep_job_file *f)
{
    csv_table_free(&f->table);
    free(f->pairs);
    memset(f, 0, sizeof *f);
}

int sweep_store_has_job(const char *dir, size_t index)
{
    char path[SWEEP_PATH];
    sam_error err;
    struct stat st;
    return !job_file(path, dir, index, &err) && !stat(path, &st);
}

/* ---- results ---------------------------------------------------------- */

static int result_file(char *buf, const char *dir, const char *hash, sam_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "results/%s.csv", hash);
    return sweep_store_path(buf, dir, name, err);
}

/* Reads job hash's result into res: 1 when it has none, -1 with err set
 * when it cannot be read or is not key,value rows. */
static int read_result(const char *dir, const char *hash, csv_table *res, sam_error *err)
{
    char path[SWEEP_PATH];
    struct stat st;
    memset(res, 0, sizeof *res);
    if (result_file(path, dir, hash, err))
        return -1;
    if (stat(path, &st))
        return 1;
    if (csv_table_read(path, res, err))
        return -1;
    for (size_t r = 0; r < res->nrows; r++)
        if (res->rows[r].ncells != 2) {
            csv_table_free(res);
            return error_at(err, path, res->rows[r].line, "expected key,value");
        }
    return 0;
}

static const char *result_value(const csv_table *res, const char *key)
{
    for (size_t r = 0; r < res->nrows; r++)
        if (!strcmp(res->rows[r].cells[0], key))
            return res->rows[r].cells[1];
    return "";
}

static int status_complete(const char *status)
{
    return !strcmp(status, "ok") || !strcmp(status, SWEEP_STOPPED);
}

int sweep_store_done(const char *dir, const char *hash)
{
    csv_table res;
    sam_error err;
    if (read_result(dir, hash, &res, &err))
        return 0;
    int done = status_complete(result_value(&res, "status"));
    csv_table_free(&res);
    return done;
}

/* ---- reading jobs.csv a row at a time --------------------------------- */

/* What is done with the list's header (its parameters' names) and with
 * each job's row. */
typedef int list_header_fn(void *ctx, char **names, size_t n, sam_error *err);
typedef int list_row_fn(void *ctx, size_t index, char **params, const char *hash,
                        sam_error *err);

/* The row being read. */
typedef struct list_reader {
    const char *path;
    char **cells;
    size_t ncells, cap;
    size_t nparams;     /* columns of parameters, from the header */
    size_t rows;
    long line, row_line;
    list_header_fn *on_header;
    list_row_fn *on_job;
    void *ctx;
    int failed;
    sam_error *err;
} list_reader;

static void on_cell(void *s, size_t len, void *data)
{
    list_reader *r = data;
    if (r->failed)
        return;
    char **more = grow_array(r->cells, r->ncells, &r->cap, sizeof *more, 8);
    char *cell = more ? strndup(s ? s : "", len) : NULL;
    if (!cell) {
        r->failed = error_set(r->err, "out of memory");
        return;
    }
    r->cells = more;
    r->cells[r->ncells++] = cell;
}

static void drop_cells(list_reader *r)
{
    for (size_t k = 0; k < r->ncells; k++)
        free(r->cells[k]);
    r->ncells = 0;
}

/* The header job,...,hash, then each job in order. */
static int take_row(list_reader *r)
{
    char **c = r->cells;
    size_t n = r->ncells;
    if (!r->rows) {
        if (n < 2 || strcmp(c[0], "job") || strcmp(c[n - 1], "hash"))
            return bad_list(r->path, r->row_line, "no header job,...,hash", r->err);
        r->nparams = n - 2;
        return r->on_header ? r->on_header(r->ctx, c + 1, r->nparams, r->err) : 0;
    }
    char want[24];
    snprintf(want, sizeof want, "%zu", r->rows - 1);
    if (n != r->nparams + 2 || strcmp(c[0], want) || strlen(c[n - 1]) != 16)
        return bad_list(r->path, r->row_line, "a row that is not the next job", r->err);
    return r->on_job(r->ctx, r->rows - 1, c + 1, c[n - 1], r->err);
}

static void on_row(int c, void *data)
{
    (void)c;
    list_reader *r = data;
    if (!r->failed && take_row(r))
        r->failed = -1;
    r->rows++;
    drop_cells(r);
}

static int parse_list(list_reader *r, FILE *f, struct csv_parser *p)
{
    char *buf = NULL;
    size_t size = 0;
    ssize_t n;
    while (!r->failed && (n = getline(&buf, &size, f)) > 0) {
        r->line++;
        if (p->pstate == 0) /* not inside a quoted cell: a row starts here */
            r->row_line = r->line;
        if (csv_parse(p, buf, (size_t)n, on_cell, on_row, r) != (size_t)n)
            r->failed = error_at(r->err, r->path, r->line, "malformed CSV");
    }
    free(buf);
    if (!r->failed && ferror(f))
        r->failed = error_at(r->err, r->path, 0, "cannot read: %s", strerror(errno));
    if (!r->failed && csv_fini(p, on_cell, on_row, r) != 0)
        r->failed = error_at(r->err, r->path, r->line, "malformed CSV");
    if (!r->failed && !r->rows)
        r->failed = bad_list(r->path, 0, "no header job,...,hash", r->err);
    return r->failed;
}

/* Reads dir/jobs.csv a row at a time: on_header (unless NULL) for its
 * header, on_job for each job in order. */
static int each_listed(const char *dir, list_header_fn *on_header, list_row_fn *on_job,
                       void *ctx, sam_error *err)
{
    char path[SWEEP_PATH];
    struct stat st;
    if (sweep_store_path(path, dir, "jobs.csv", err))
        return -1;
    if (stat(path, &st))
        return error_at(err, dir, 0, "not a sweep directory (no jobs.csv): %s", strerror(errno));
    FILE *f = fopen(path, "r");
    if (!f)
        return error_at(err, path, 0, "cannot open: %s", strerror(errno));
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
        fclose(f);
        return error_set(err, "out of memory");
    }
    list_reader r = {.path = path, .on_header = on_header, .on_job = on_job, .ctx = ctx,
                     .err = err};
    int rc = parse_list(&r, f, &p) ? -1 : 0;
    drop_cells(&r);
    free(r.cells);
    csv_free(&p);
    fclose(f);
    return rc;
}

/* ---- collecting ------------------------------------------------------- */

static const char *const fixed_first[] = {"status", "exit"};
static const char *const fixed_last[] = {"job_seconds", "error"};

/* What collect keeps between the job list's rows: the columns after the
 * parameters (every summary key a result has, between the fixed ones),
 * and the table being written. */
typedef struct collector {
    const char *dir;
    FILE *warnings;
    words names;
    size_t nparams;
    atomic_file af;
    const char **cells;
    sweep_tally *tally;
} collector;

static int is_fixed(const char *key)
{
    for (int k = 0; k < 2; k++)
        if (!strcmp(key, fixed_first[k]) || !strcmp(key, fixed_last[k]))
            return 1;
    return 0;
}

/* First pass: the summary keys of every result that reads; one that does
 * not is named on the warnings. */
static int gather_names(void *ctx, size_t index, char **params, const char *hash,
                        sam_error *err)
{
    collector *c = ctx;
    (void)params;
    csv_table res;
    sam_error bad;
    int rc = read_result(c->dir, hash, &res, &bad);
    if (rc < 0)
        fprintf(c->warnings, "samsim: %s; job %zu is pending\n", bad.msg, index);
    if (rc)
        return 0;
    for (size_t r = 0; !rc && r < res.nrows; r++)
        if (!is_fixed(res.rows[r].cells[0]))
            rc = words_add_new(&c->names, res.rows[r].cells[0], err);
    csv_table_free(&res);
    return rc;
}

/* Second pass: the header, the list's then the columns... */
static int write_header(void *ctx, char **names, size_t n, sam_error *err)
{
    collector *c = ctx;
    c->nparams = n;
    free(c->cells);
    if (!(c->cells = calloc(1 + n + c->names.n, sizeof *c->cells)))
        return error_set(err, "out of memory");
    c->cells[0] = "job";
    for (size_t k = 0; k < n; k++)
        c->cells[1 + k] = names[k];
    for (size_t k = 0; k < c->names.n; k++)
        c->cells[1 + n + k] = c->names.v[k];
    return table_row(&c->af, c->cells, 1 + n + c->names.n, err);
}

static void tally_add(sweep_tally *t, const char *status)
{
    if (!strcmp(status, "pending"))
        t->pending++;
    else if (!strcmp(status, "ok"))
        t->ok++;
    else if (!strcmp(status, SWEEP_STOPPED))
        t->stopped++;
    else
        t->failed++;
}

/* ... and a row per job. */
static int write_row(void *ctx, size_t index, char **params, const char *hash, sam_error *err)
{
    collector *c = ctx;
    csv_table res;
    sam_error bad;
    char number[24];
    int unread = read_result(c->dir, hash, &res, &bad);
    snprintf(number, sizeof number, "%zu", index);
    c->cells[0] = number;
    for (size_t k = 0; k < c->nparams; k++)
        c->cells[1 + k] = params[k];
    const char **row = c->cells + 1 + c->nparams;
    for (size_t k = 0; k < c->names.n; k++)
        row[k] = unread ? "" : result_value(&res, c->names.v[k]);
    if (unread) {
        row[0] = "pending";
        row[c->names.n - 1] = unread < 0 ? bad.msg : "";
    }
    tally_add(c->tally, row[0]);
    int rc = table_row(&c->af, c->cells, 1 + c->nparams + c->names.n, err);
    if (!unread)
        csv_table_free(&res);
    return rc;
}

int sweep_store_collect(const char *dir, sweep_tally *tally, FILE *warnings, sam_error *err)
{
    memset(tally, 0, sizeof *tally);
    collector c = {.dir = dir, .warnings = warnings, .tally = tally};
    int rc = 0;
    for (int k = 0; !rc && k < 2; k++)
        rc = words_add_new(&c.names, fixed_first[k], err);
    if (!rc)
        rc = each_listed(dir, NULL, gather_names, &c, err);
    for (int k = 0; !rc && k < 2; k++)
        rc = words_add_new(&c.names, fixed_last[k], err);
    if (!rc && !(rc = table_open(&c.af, dir, "results.csv", err))) {
        rc = each_listed(dir, write_header, write_row, &c, err);
        rc = table_close(&c.af, rc, err);
    }
    words_free(&c.names);
    free(c.cells);
    return rc;
}
