#include "sweep_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "../common/csv_table.h"
#include "../common/grow.h"

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

static int write_rows(const char *path, const char *const *cells, size_t nrows, size_t ncols,
                      sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err))
        return -1;
    for (size_t r = 0; r < nrows; r++)
        if (csv_write_row(af.f, cells + r * ncols, ncols)) {
            atomic_file_discard(&af);
            return error_at(err, path, 0, "write error: %s", strerror(errno));
        }
    int rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err) ? -1 : 0;
    atomic_file_discard(&af);
    return rc;
}

int sweep_store_write_pairs(const char *path, const sweep_pair *pairs, size_t n,
                            sam_error *err)
{
    const char **cells = malloc((2 * n + 1) * sizeof *cells);
    if (!cells)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        cells[2 * i] = pairs[i].key;
        cells[2 * i + 1] = pairs[i].value;
    }
    int rc = write_rows(path, cells, n, 2, err);
    free(cells);
    return rc;
}

static int job_file(char *buf, const char *dir, size_t index, sam_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "jobs/%zu.job", index);
    return sweep_store_path(buf, dir, name, err);
}

static int write_job(const char *dir, size_t index, const sweep_job *job, sam_error *err)
{
    char path[SWEEP_PATH];
    if (job_file(path, dir, index, err))
        return -1;
    sweep_pair *pairs = malloc((job->nkeys + 1) * sizeof *pairs);
    if (!pairs)
        return error_set(err, "out of memory");
    pairs[0] = (sweep_pair){"hash", (char *)job->hash};
    memcpy(pairs + 1, job->keys, job->nkeys * sizeof *pairs);
    int rc = sweep_store_write_pairs(path, pairs, job->nkeys + 1, err);
    free(pairs);
    return rc;
}

/* A table with a row per job: its number and parameters, then ncols
 * - 1 - ncolumns cells its maker fills. */
typedef struct job_rows {
    const char **cells;
    char (*numbers)[24];
    size_t ncols;
} job_rows;

static int job_rows_make(job_rows *r, const sweep_plan *plan, size_t nextra, sam_error *err)
{
    r->ncols = 1 + plan->ncolumns + nextra;
    r->cells = calloc((plan->njobs + 1) * r->ncols, sizeof *r->cells);
    r->numbers = calloc(plan->njobs ? plan->njobs : 1, sizeof *r->numbers);
    if (!r->cells || !r->numbers) {
        free(r->cells);
        free(r->numbers);
        return error_set(err, "out of memory");
    }
    r->cells[0] = "job";
    memcpy(r->cells + 1, plan->columns, plan->ncolumns * sizeof *r->cells);
    for (size_t i = 0; i < plan->njobs; i++) {
        const char **row = r->cells + (i + 1) * r->ncols;
        snprintf(r->numbers[i], sizeof r->numbers[i], "%zu", i);
        row[0] = r->numbers[i];
        memcpy(row + 1, plan->jobs[i].params, plan->ncolumns * sizeof *row);
    }
    return 0;
}

static void job_rows_free(job_rows *r)
{
    free(r->cells);
    free(r->numbers);
}

/* Writes dir/name and frees the table. */
static int job_rows_write(job_rows *r, const char *dir, const char *name, size_t njobs,
                          sam_error *err)
{
    char path[SWEEP_PATH];
    int rc = sweep_store_path(path, dir, name, err) ||
                     write_rows(path, r->cells, njobs + 1, r->ncols, err)
                 ? -1
                 : 0;
    job_rows_free(r);
    return rc;
}

/* The job list: job, the parameters, hash. */
static int list_rows(const sweep_plan *plan, job_rows *r, sam_error *err)
{
    if (job_rows_make(r, plan, 1, err))
        return -1;
    r->cells[r->ncols - 1] = "hash";
    for (size_t i = 0; i < plan->njobs; i++)
        r->cells[(i + 2) * r->ncols - 1] = plan->jobs[i].hash;
    return 0;
}

static int write_list(const char *dir, const sweep_plan *plan, sam_error *err)
{
    job_rows r;
    return list_rows(plan, &r, err) ? -1 : job_rows_write(&r, dir, "jobs.csv", plan->njobs, err);
}

int sweep_store_print_list(const sweep_plan *plan, FILE *f, sam_error *err)
{
    job_rows r;
    if (list_rows(plan, &r, err))
        return -1;
    int rc = 0;
    for (size_t i = 0; !rc && i <= plan->njobs; i++)
        rc = csv_write_row(f, r.cells + i * r.ncols, r.ncols);
    job_rows_free(&r);
    return rc ? error_set(err, "sweep: standard output: write error: %s", strerror(errno)) : 0;
}

int sweep_store_prepare(const char *dir, const sweep_plan *plan, sam_error *err)
{
    static const char *const subdirs[] = {"jobs", "results", "data", "work"};
    char path[SWEEP_PATH];
    if (make_dir(dir, err))
        return -1;
    for (size_t k = 0; k < sizeof subdirs / sizeof subdirs[0]; k++)
        if (sweep_store_path(path, dir, subdirs[k], err) || make_dir(path, err))
            return -1;
    for (size_t i = 0; i < plan->njobs; i++)
        if (write_job(dir, i, &plan->jobs[i], err))
            return -1;
    /* A spec that shrank leaves job files past its end: remove them. */
    for (size_t i = plan->njobs; !job_file(path, dir, i, err) && !unlink(path); i++)
        ;
    return write_list(dir, plan, err);
}

static int bad_list(const char *path, long line, const char *what, sam_error *err)
{
    return error_at(err, path, line, "%s (not a sweep's job list; was it changed?)", what);
}

static int load_row(const char *path, const csv_row *row, size_t ncols, size_t index,
                    sweep_job *job, sam_error *err)
{
    char want[24];
    snprintf(want, sizeof want, "%zu", index);
    if (row->ncells != ncols + 2 || strcmp(row->cells[0], want) ||
        strlen(row->cells[ncols + 1]) != 16)
        return bad_list(path, row->line, "a row that is not the next job", err);
    memcpy(job->hash, row->cells[ncols + 1], 17);
    if (!(job->params = calloc(ncols ? ncols : 1, sizeof *job->params)))
        return error_set(err, "out of memory");
    for (size_t k = 0; k < ncols; k++)
        if (!(job->params[k] = strdup(row->cells[1 + k])))
            return error_set(err, "out of memory");
    return 0;
}

static int load_table(const char *path, const csv_table *t, sweep_plan *plan, sam_error *err)
{
    const csv_row *head = t->nrows ? &t->rows[0] : NULL;
    if (!head || head->ncells < 2 || strcmp(head->cells[0], "job") ||
        strcmp(head->cells[head->ncells - 1], "hash"))
        return bad_list(path, head ? head->line : 0, "no header job,...,hash", err);
    plan->ncolumns = head->ncells - 2;
    plan->columns = calloc(plan->ncolumns ? plan->ncolumns : 1, sizeof *plan->columns);
    plan->jobs = calloc(t->nrows, sizeof *plan->jobs);
    if (!plan->columns || !plan->jobs)
        return error_set(err, "out of memory");
    for (size_t k = 0; k < plan->ncolumns; k++)
        if (!(plan->columns[k] = strdup(head->cells[1 + k])))
            return error_set(err, "out of memory");
    for (size_t i = 1; i < t->nrows; i++) {
        plan->njobs++;
        if (load_row(path, &t->rows[i], plan->ncolumns, i - 1, &plan->jobs[i - 1], err))
            return -1;
    }
    return 0;
}

int sweep_store_load(const char *dir, sweep_plan *plan, sam_error *err)
{
    memset(plan, 0, sizeof *plan);
    char path[SWEEP_PATH];
    csv_table t;
    struct stat st;
    if (sweep_store_path(path, dir, "jobs.csv", err))
        return -1;
    if (stat(path, &st))
        return error_at(err, dir, 0, "not a sweep directory (no jobs.csv): %s", strerror(errno));
    if (csv_table_read(path, &t, err))
        return -1;
    int rc = load_table(path, &t, plan, err);
    csv_table_free(&t);
    if (rc)
        sweep_plan_free(plan);
    return rc;
}

int sweep_store_load_job(const char *dir, size_t index, sweep_job *job, sam_error *err)
{
    memset(job, 0, sizeof *job);
    char path[SWEEP_PATH];
    csv_table t;
    if (job_file(path, dir, index, err) || csv_table_read(path, &t, err))
        return -1;
    int rc = 0;
    for (size_t r = 0; !rc && r < t.nrows; r++) {
        const csv_row *row = &t.rows[r];
        if (row->ncells != 2 || (r == 0) != !strcmp(row->cells[0], "hash"))
            rc = bad_list(path, row->line, "expected the hash, then key,value rows", err);
        else if (r == 0 && strlen(row->cells[1]) == 16)
            memcpy(job->hash, row->cells[1], 17);
        else if (r == 0)
            rc = bad_list(path, row->line, "a hash of 16 digits", err);
        else
            rc = sweep_job_set(job, row->cells[0], row->cells[1], err);
    }
    if (!rc && !t.nrows)
        rc = bad_list(path, 0, "empty job file", err);
    csv_table_free(&t);
    if (rc)
        sweep_job_free(job, 0);
    return rc;
}

int sweep_store_has_job(const char *dir, size_t index)
{
    char path[SWEEP_PATH];
    sam_error err;
    struct stat st;
    return !job_file(path, dir, index, &err) && !stat(path, &st);
}

static int result_file(char *buf, const char *dir, const char *hash, sam_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "results/%s.csv", hash);
    return sweep_store_path(buf, dir, name, err);
}

int sweep_store_done(const char *dir, const char *hash)
{
    char path[SWEEP_PATH];
    sam_error err;
    struct stat st;
    return !result_file(path, dir, hash, &err) && !stat(path, &st);
}

/* ---- collecting ------------------------------------------------------- */

/* The columns after the parameters: the fixed ones around the summary
 * keys seen. */
typedef struct result_columns {
    char **names;
    size_t n, cap;
} result_columns;

static const char *const fixed_first[] = {"status", "exit"};
static const char *const fixed_last[] = {"job_seconds", "error"};

static int is_fixed(const char *key)
{
    for (int k = 0; k < 2; k++)
        if (!strcmp(key, fixed_first[k]) || !strcmp(key, fixed_last[k]))
            return 1;
    return 0;
}

static int add_column(result_columns *c, const char *name, sam_error *err)
{
    for (size_t k = 0; k < c->n; k++)
        if (!strcmp(c->names[k], name))
            return 0;
    char **more = grow_array(c->names, c->n, &c->cap, sizeof *more, 16);
    if (!more || !(more[c->n] = strdup(name))) {
        if (more)
            c->names = more;
        return error_set(err, "out of memory");
    }
    c->names = more;
    c->n++;
    return 0;
}

/* Reads every job's result; pending jobs get an empty table. */
static int read_results(const char *dir, const sweep_plan *plan, csv_table *res,
                        result_columns *cols, sam_error *err)
{
    for (int k = 0; k < 2; k++)
        if (add_column(cols, fixed_first[k], err))
            return -1;
    for (size_t i = 0; i < plan->njobs; i++) {
        char path[SWEEP_PATH];
        if (!sweep_store_done(dir, plan->jobs[i].hash))
            continue;
        if (result_file(path, dir, plan->jobs[i].hash, err) ||
            csv_table_read(path, &res[i], err))
            return -1;
        for (size_t r = 0; r < res[i].nrows; r++) {
            if (res[i].rows[r].ncells != 2)
                return error_at(err, path, res[i].rows[r].line, "expected key,value");
            if (!is_fixed(res[i].rows[r].cells[0]) &&
                add_column(cols, res[i].rows[r].cells[0], err))
                return -1;
        }
    }
    for (int k = 0; k < 2; k++)
        if (add_column(cols, fixed_last[k], err))
            return -1;
    return 0;
}

static const char *result_value(const csv_table *res, const char *key)
{
    for (size_t r = 0; r < res->nrows; r++)
        if (!strcmp(res->rows[r].cells[0], key))
            return res->rows[r].cells[1];
    return "";
}

static void tally_add(sweep_tally *t, const csv_table *res)
{
    const char *status = result_value(res, "status");
    if (!res->nrows)
        t->pending++;
    else if (!strcmp(status, "ok"))
        t->ok++;
    else
        t->failed++;
}

static int write_collected(const char *dir, const sweep_plan *plan, const csv_table *res,
                           const result_columns *cols, sweep_tally *tally, sam_error *err)
{
    job_rows r;
    if (job_rows_make(&r, plan, cols->n, err))
        return -1;
    size_t first = 1 + plan->ncolumns;
    memcpy(r.cells + first, cols->names, cols->n * sizeof *r.cells);
    for (size_t i = 0; i < plan->njobs; i++) {
        const char **row = r.cells + (i + 1) * r.ncols;
        for (size_t k = 0; k < cols->n; k++)
            row[first + k] = result_value(&res[i], cols->names[k]);
        if (!res[i].nrows)
            row[first] = "pending";
        tally_add(tally, &res[i]);
    }
    return job_rows_write(&r, dir, "results.csv", plan->njobs, err);
}

int sweep_store_collect(const char *dir, const sweep_plan *plan, sweep_tally *tally,
                        sam_error *err)
{
    memset(tally, 0, sizeof *tally);
    csv_table *res = calloc(plan->njobs ? plan->njobs : 1, sizeof *res);
    result_columns cols = {0};
    if (!res)
        return error_set(err, "out of memory");
    int rc = read_results(dir, plan, res, &cols, err);
    if (!rc)
        rc = write_collected(dir, plan, res, &cols, tally, err);
    for (size_t i = 0; i < plan->njobs; i++)
        csv_table_free(&res[i]);
    for (size_t k = 0; k < cols.n; k++)
        free(cols.names[k]);
    free(cols.names);
    free(res);
    return rc;
}
