/* A sweep's jobs run and its rows gathered (sweep_run.h). */
/* realpath is an XSI function. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "../common/process.h"
#include "sweep_job.h"
#include "sweep_lock.h"
#include "sweep_run.h"

/* ---- the directory ------------------------------------------------------ */

/* Makes dir, locks it into *lock and writes the plan into it. */
static int open_dir(const char *dir, sweep_plan *plan, int *lock, sam_error *err)
{
    *lock = -1;
    return sweep_store_create(dir, err) || sweep_lock_take(dir, lock, err) ||
                   sweep_store_prepare(dir, plan, err)
               ? -1
               : 0;
}

int sweep_run_collect(const char *dir, sweep_tally *tally, FILE *warnings, sam_error *err)
{
    char path[SWEEP_PATH];
    struct stat st;
    int lock = -1;
    if (sweep_store_path(path, dir, "jobs.csv", err))
        return -1;
    if (stat(path, &st))
        return error_at(err, dir, 0, "not a sweep directory (no jobs.csv): %s", strerror(errno));
    int rc = sweep_lock_take(dir, &lock, err) ? -1 : sweep_store_collect(dir, tally, warnings, err);
    sweep_lock_release(lock);
    return rc;
}

/* ---- a local sweep ------------------------------------------------------ */

/* The parameters of job index, "order=ijk pair=3", for progress lines. */
static void describe(sweep_plan *plan, size_t index, char *buf, size_t size)
{
    sweep_job job;
    sam_error ignored;
    size_t n = 0;
    buf[0] = '\0';
    if (sweep_plan_job(plan, index, &job, &ignored))
        return;
    for (size_t k = 0; k < plan->ncolumns && n < size; k++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s=%s", k ? " " : "", plan->columns[k],
                              job.params[k]);
}

typedef struct progress {
    sweep_plan *plan;
    size_t total, done, failed;
    double start;
    int tty;
    FILE *log;
} progress;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* A job's line (sweep_job.h): a line of progress; on a terminal one line
 * rewritten in place, with failed and stopped jobs kept above it. */
static void on_job_line(void *ctx, char *line)
{
    progress *p = ctx;
    char *field[4] = {line, "", "", ""};
    for (int k = 1; k < 4 && field[k - 1]; k++) {
        char *tab = strchr(field[k - 1], '\t');
        if (!tab)
            break;
        *tab = '\0';
        field[k] = tab + 1;
    }
    char *end;
    size_t index = strtoull(field[0], &end, 10);
    if (*end || index >= p->plan->njobs)
        return;
    int complete = !strcmp(field[1], "ok") || !strcmp(field[1], "done");
    int failed = !complete && strcmp(field[1], SWEEP_STOPPED);
    p->done++;
    p->failed += (size_t)failed;
    char about[160];
    describe(p->plan, index, about, sizeof about);
    double spent = now() - p->start, left = spent / (double)p->done * (double)(p->total - p->done);
    if (!complete && p->tty)
        fprintf(p->log, "\r\033[Ksweep: job %zu (%s) %s: %s\n", index, about, field[1], field[3]);
    fprintf(p->log, "%ssweep: %zu/%zu done, %zu failed, %.0f s, about %.0f s left; job %zu (%s): %s",
            p->tty ? "\r\033[K" : "", p->done, p->total, p->failed, spent, left, index, about,
            field[1]);
    if (*field[2])
        fprintf(p->log, ", %s cycles", field[2]);
    if (!complete && !p->tty)
        fprintf(p->log, ": %s", field[3]);
    fputs(p->tty ? "" : "\n", p->log);
}

/* GNU parallel, not moreutils' program of the same name. */
static int check_parallel(sam_error *err)
{
    const char *argv[] = {"parallel", "--version", NULL};
    process_result r;
    sam_error ignored;
    if (process_run(argv, NULL, 30, &r, &ignored))
        return error_set(err, "sweep: GNU parallel not found (scripts/install-deps installs it)");
    int gnu = strstr(r.out, "GNU parallel") != NULL;
    process_result_free(&r);
    return gnu ? 0 : error_set(err, "sweep: 'parallel' is not GNU parallel (moreutils' has the "
                                    "same name; scripts/install-deps installs GNU's)");
}

int sweep_write_pending(const char *dir, sweep_plan *plan, char path[SWEEP_PATH], size_t *n,
                        sam_error *err)
{
    atomic_file af;
    *n = 0;
    if (sweep_store_path(path, dir, "pending.txt", err) || atomic_file_open(&af, path, err))
        return -1;
    int rc = 0;
    for (size_t i = 0; !rc && i < plan->njobs; i++) {
        sweep_job job;
        rc = sweep_plan_job(plan, i, &job, err);
        if (!rc && !sweep_store_done(dir, job.hash)) {
            fprintf(af.f, "%zu\n", i);
            (*n)++;
        }
    }
    if (!rc)
        rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err) ? -1 : 0;
    atomic_file_discard(&af);
    return rc;
}

/* Jobs at a time: as many as asked, but no more than there are to run
 * (GNU parallel would start a process per slot). */
static size_t slots(const sweep_run *r, size_t pending)
{
    return pending && pending < (size_t)r->jobs ? pending : (size_t)r->jobs;
}

/* GNU parallel runs the pending jobs; *stop receives a stop signal that came (process.h). */
static int run_parallel(const sweep_run *r, sweep_plan *plan, const char *pending, size_t n,
                        int *stop, sam_error *err)
{
    char jobs[16];
    if (check_parallel(err))
        return -1;
    snprintf(jobs, sizeof jobs, "%zu", slots(r, n));
    /* -q quotes the command's words, which may hold any character. */
    const char *argv[] = {"parallel", "--will-cite", "--halt", "never", "-q", "-j", jobs, "-a",
                          pending, r->self, "sweep", "--job", r->dir, "{}", NULL};
    progress p = {.plan = plan, .total = n, .start = now(), .tty = isatty(fileno(r->log)), .log = r->log};
    int status = process_stream(argv, on_job_line, &p, stop, err);
    if (p.tty && p.done)
        fputc('\n', r->log);
    if (status < 0)
        return -1;
    /* A job may finish as parallel is stopped, its line unreported: the
     * rows collected next say what was done. */
    if (*stop)
        fprintf(r->log, "sweep: stopped by %s; samsim sweep again runs the jobs not done\n",
                *stop == SIGINT ? "SIGINT" : *stop == SIGTERM ? "SIGTERM" : "SIGHUP");
    else if (p.done < n)
        fprintf(r->log, "sweep: %zu of %zu jobs did not report (GNU parallel exited with status "
                        "%d); samsim sweep again runs them\n", n - p.done, n, status);
    return 0;
}

int sweep_run_local(const sweep_run *r, sweep_plan *plan, int *stop, sweep_tally *tally,
                    sam_error *err)
{
    char pending[SWEEP_PATH];
    size_t n;
    int lock;
    int rc = open_dir(r->dir, plan, &lock, err) ? -1
             : sweep_write_pending(r->dir, plan, pending, &n, err);
    if (rc == 0) {
        fprintf(r->log, "sweep: %zu jobs, %zu with results already, %zu to run, %zu at a time\n",
                plan->njobs, plan->njobs - n, n, slots(r, n));
        if (n)
            rc = run_parallel(r, plan, pending, n, stop, err);
    }
    if (rc == 0)
        rc = sweep_store_collect(r->dir, tally, r->log, err);
    sweep_lock_release(lock);
    return rc;
}

/* ---- a Slurm job array -------------------------------------------------- */

/* Writes s in single quotes for sh. */
static void shell_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        *s == '\'' ? fputs("'\\''", f) : fputc(*s, f);
    fputc('\'', f);
}

/* dir made absolute (what the Slurm script names), though it may not
 * exist yet: its parent resolved, its own name kept. */
static char *absolute_dir(const char *dir, sam_error *err)
{
    char *real = realpath(dir, NULL);
    if (real)
        return real;
    char *copy = strdup(dir);
    if (!copy) {
        error_set(err, "out of memory");
        return NULL;
    }
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
    char *slash = strrchr(copy, '/');
    const char *name = slash ? slash + 1 : copy;
    if (slash)
        slash[slash == copy] = '\0';
    char *parent = realpath(slash ? copy : ".", NULL);
    size_t size = parent ? strlen(parent) + strlen(name) + 2 : 0;
    char *abs = parent ? malloc(size) : NULL;
    if (abs)
        snprintf(abs, size, "%s%s%s", parent, strcmp(parent, "/") ? "/" : "", name);
    else
        error_at(err, dir, 0, "cannot resolve: %s", parent ? "out of memory" : strerror(errno));
    free(parent);
    free(copy);
    return abs;
}

/* #SBATCH lines take no quoting and --output gives % its own meaning, so
 * the directory must not need either: refused before it is made. */
static int slurm_dir_ok(const char *dir, sam_error *err)
{
    if (strpbrk(dir, " \t\n'\"\\%$`"))
        return error_set(err, "sweep: --slurm: the directory '%s' holds a blank, a quote, %% or $, "
                              "which #SBATCH lines cannot carry", dir);
    return 0;
}

/* sweep.sbatch: an array task per chunk of jobs. */

void sweep_slurm_split(size_t njobs, int64_t array_max, int64_t *tasks, int64_t *chunk)
{
    *chunk = ((int64_t)njobs + array_max - 1) / array_max;
    *tasks = ((int64_t)njobs + *chunk - 1) / *chunk;
}

void sweep_sbatch_write(FILE *f, const char *dir, const char *self, size_t njobs,
                        int64_t tasks, int64_t chunk)
{
    fprintf(f, "#!/bin/sh\n"
               "# A samsim sweep: %zu jobs, %lld to an array task. Written by samsim sweep "
               "--slurm;\n# submit with sbatch (its options override these), then gather with "
               "samsim sweep --collect.\n", njobs, (long long)chunk);
    fprintf(f, "#SBATCH --job-name=samsim-sweep\n#SBATCH --array=0-%lld\n#SBATCH --ntasks=1\n"
               "#SBATCH --cpus-per-task=1\n#SBATCH --output=%s/slurm/%%A_%%a.out\n",
            (long long)tasks - 1, dir);
    fputs("exec ", f);
    shell_quote(f, self);
    fputs(" sweep --job ", f);
    shell_quote(f, dir);
    fprintf(f, " $((SLURM_ARRAY_TASK_ID * %lld)) %lld\n", (long long)chunk, (long long)chunk);
}

/* DIR/slurm for the array tasks' logs, and DIR/sweep.sbatch. */
static int write_sbatch(const sweep_run *r, const sweep_plan *plan, sweep_slurm_script *script,
                        sam_error *err)
{
    char logs[SWEEP_PATH];
    atomic_file af;
    sweep_slurm_split(plan->njobs, r->array_max, &script->tasks, &script->chunk);
    if (sweep_store_path(logs, script->dir, "slurm", err) ||
        (mkdir(logs, 0777) && errno != EEXIST &&
         error_at(err, logs, 0, "cannot create: %s", strerror(errno))) ||
        sweep_store_path(script->path, script->dir, "sweep.sbatch", err) ||
        atomic_file_open(&af, script->path, err))
        return -1;
    sweep_sbatch_write(af.f, script->dir, r->self, plan->njobs, script->tasks, script->chunk);
    int rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err) ? -1 : 0;
    atomic_file_discard(&af);
    return rc;
}

int sweep_run_slurm(const sweep_run *r, sweep_plan *plan, sweep_slurm_script *script,
                    sam_error *err)
{
    char *abs = absolute_dir(r->dir, err);
    int rc = !abs || slurm_dir_ok(abs, err) ? -1 : 0;
    if (rc == 0 && snprintf(script->dir, sizeof script->dir, "%s", abs) >= SWEEP_PATH)
        rc = error_at(err, abs, 0, "path too long");
    free(abs);
    if (rc)
        return -1;
    int lock;
    rc = open_dir(script->dir, plan, &lock, err) ? -1 : write_sbatch(r, plan, script, err);
    sweep_lock_release(lock);
    return rc;
}

/* ---- jobs in this process ----------------------------------------------- */

int sweep_run_jobs(const char *dir, size_t first, size_t count, const char *self,
                   sam_error *err)
{
    if (!sweep_store_has_job(dir, first))
        return error_at(err, dir, 0, "no job %zu (jobs/%zu.job)", first, first);
    for (size_t i = first; i < first + count; i++) {
        if (i > first && !sweep_store_has_job(dir, i))
            break;
        if (sweep_job_run(dir, i, self, err))
            return -1;
    }
    return 0;
}
