/* samsim sweep: expands a sweep spec into jobs and runs them with GNU
 * parallel (--local) or a Slurm job array (--slurm), gathering one CSV
 * row per job (sweep_spec.h, sweep_store.h, sweep_job.h). samsim keeps no
 * scheduler of its own: each job is `samsim sweep --job DIR N`. */
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
#include "args.h"
#include "commands.h"
#include "../common/process.h"
#include "../sweep/sweep_job.h"
#include "../sweep/sweep_lock.h"
#include "../sweep/sweep_plan.h"
#include "../sweep/sweep_spec.h"
#include "../sweep/sweep_store.h"

/* -j beyond this is taken as this: more processes than any machine runs. */
#define SWEEP_MAX_PARALLEL 4096

typedef enum sweep_mode { MODE_LOCAL, MODE_LIST, MODE_SLURM, MODE_COLLECT, MODE_JOB } sweep_mode;

typedef struct sweep_opts {
    sweep_mode mode;
    int mode_given;             /* mode set by an option, not the default */
    const char *spec, *dir;
    int jobs;                   /* --local: at a time */
    int64_t array_max;          /* --slurm: array tasks at most */
    int64_t first, count;       /* --job */
    char default_dir[SWEEP_PATH];
} sweep_opts;

/* The samsim binary, for the jobs to run. */
static int self_path(char *buf, sam_error *err)
{
    ssize_t n = readlink("/proc/self/exe", buf, SWEEP_PATH - 1);
    if (n < 0)
        return error_set(err, "sweep: cannot find the samsim binary: %s", strerror(errno));
    buf[n] = '\0';
    return 0;
}

/* ---- arguments -------------------------------------------------------- */

static int parse_count(const char *opt, const char *v, int64_t min, int64_t *out, sam_error *err)
{
    if (args_int64(opt, v, out, err))
        return -1;
    return *out < min ? error_set(err, "sweep: %s must be at least %lld", opt, (long long)min) : 0;
}

static int set_mode(sweep_opts *o, sweep_mode mode, const char *opt, sam_error *err)
{
    if (o->mode_given && o->mode != mode)
        return error_set(err, "sweep: %s cannot go with another of --list, --local, --slurm, "
                              "--collect and --job", opt);
    o->mode = mode;
    o->mode_given = 1;
    return 0;
}

static const struct mode_flag {
    const char *flag;
    sweep_mode mode;
} mode_flags[] = {{"--list", MODE_LIST}, {"--local", MODE_LOCAL}, {"--slurm", MODE_SLURM}};

/* One option; 0 when argv[*i] is none of them. */
static int parse_option(int argc, char **argv, int *i, sweep_opts *o, sam_error *err)
{
    const char *v;
    int64_t n;
    int r;
    for (size_t k = 0; k < sizeof mode_flags / sizeof mode_flags[0]; k++)
        if (!strcmp(argv[*i], mode_flags[k].flag))
            return set_mode(o, mode_flags[k].mode, argv[*i], err) ? -1 : 1;
    if ((r = args_option(argc, argv, i, "-o", &v, err)))
        return r < 0 ? -1 : (o->dir = v, 1);
    if ((r = args_option(argc, argv, i, "-j", &v, err))) {
        if (r < 0 || parse_count("-j", v, 1, &n, err))
            return -1;
        o->jobs = (int)(n > SWEEP_MAX_PARALLEL ? SWEEP_MAX_PARALLEL : n);
        return 1;
    }
    if ((r = args_option(argc, argv, i, "--array-max", &v, err)))
        return r < 0 || parse_count("--array-max", v, 1, &o->array_max, err) ? -1 : 1;
    if ((r = args_option(argc, argv, i, "--collect", &v, err)))
        return r < 0 || set_mode(o, MODE_COLLECT, "--collect", err) ? -1 : (o->dir = v, 1);
    if ((r = args_option(argc, argv, i, "--job", &v, err)))
        return r < 0 || set_mode(o, MODE_JOB, "--job", err) ? -1 : (o->dir = v, 1);
    return 0;
}

/* --job DIR FIRST [COUNT]: the positional numbers. */
static int job_number(sweep_opts *o, const char *arg, int *seen, sam_error *err)
{
    int64_t n;
    if (*seen >= 2 || parse_count("--job", arg, *seen ? 1 : 0, &n, err))
        return *seen >= 2 ? error_set(err, "sweep: unexpected argument '%s'", arg) : -1;
    *(*seen ? &o->count : &o->first) = n;
    (*seen)++;
    return 0;
}

/* DIR's default: the spec's file name without its extension, .results. */
static void default_dir(sweep_opts *o)
{
    const char *base = strrchr(o->spec, '/') ? strrchr(o->spec, '/') + 1 : o->spec;
    const char *dot = strrchr(base, '.');
    int n = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    snprintf(o->default_dir, sizeof o->default_dir, "%.*s.results", n, base);
    o->dir = o->default_dir;
}

static int parse(int argc, char **argv, sweep_opts *o, sam_error *err)
{
    int numbers = 0;
    *o = (sweep_opts){.array_max = 1000, .count = 1};
    for (int i = 0; i < argc; i++) {
        int r = parse_option(argc, argv, &i, o, err);
        if (r < 0)
            return -1;
        if (r)
            continue;
        if (o->mode == MODE_JOB) {
            if (job_number(o, argv[i], &numbers, err))
                return -1;
        } else if (!o->spec && argv[i][0] != '-')
            o->spec = argv[i];
        else
            return error_set(err, "sweep: unexpected argument '%s'", argv[i]);
    }
    if (o->mode == MODE_JOB && !numbers)
        return error_set(err, "sweep: --job DIR needs the job's number");
    if ((o->mode == MODE_JOB || o->mode == MODE_COLLECT) == !!o->spec)
        return error_set(err, o->spec ? "sweep: --collect and --job take a directory, not a spec"
                                      : "sweep: no SPEC (usage: samsim sweep SPEC [--list | "
                                        "--local [-j N] | --slurm] [-o DIR])");
    if (o->spec && !o->dir)
        default_dir(o);
    if (!o->jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = n > 0 ? (int)n : 1;
    }
    return 0;
}

/* ---- modes ------------------------------------------------------------ */

static int sweep_list(sweep_plan *plan, sam_error *err)
{
    if (sweep_store_print_list(plan, stdout, err))
        return -1;
    fprintf(stderr, "sweep: %zu jobs\n", plan->njobs);
    return 0;
}

static int sweep_collect(const char *dir, sam_error *err)
{
    sweep_tally t;
    if (sweep_store_collect(dir, &t, stderr, err))
        return -1;
    char stopped[48] = "";
    if (t.stopped)
        snprintf(stopped, sizeof stopped, "%zu stopped, ", t.stopped);
    fprintf(stderr, "sweep: %zu jobs: %zu ok, %s%zu failed, %zu not run; rows in "
                    "%s/results.csv\n",
            t.ok + t.stopped + t.failed + t.pending, t.ok, stopped, t.failed, t.pending, dir);
    return t.ok == t.ok + t.stopped + t.failed + t.pending ? 0 : 1;
}

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
        fprintf(stderr, "\r\033[Ksweep: job %zu (%s) %s: %s\n", index, about, field[1], field[3]);
    fprintf(stderr, "%ssweep: %zu/%zu done, %zu failed, %.0f s, about %.0f s left; job %zu (%s): %s",
            p->tty ? "\r\033[K" : "", p->done, p->total, p->failed, spent, left, index, about,
            field[1]);
    if (*field[2])
        fprintf(stderr, ", %s cycles", field[2]);
    if (!complete && !p->tty)
        fprintf(stderr, ": %s", field[3]);
    fputs(p->tty ? "" : "\n", stderr);
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

/* pending.txt: the jobs not complete, one number a line. */
static int write_pending(const char *dir, sweep_plan *plan, char *path, size_t *n,
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
static size_t slots(const sweep_opts *o, size_t pending)
{
    return pending && pending < (size_t)o->jobs ? pending : (size_t)o->jobs;
}

/* GNU parallel runs the pending jobs; *stop receives a stop signal that came (process.h). */
static int run_parallel(const sweep_opts *o, sweep_plan *plan, const char *pending, size_t n,
                        int *stop, sam_error *err)
{
    char self[SWEEP_PATH], jobs[16];
    if (check_parallel(err) || self_path(self, err))
        return -1;
    snprintf(jobs, sizeof jobs, "%zu", slots(o, n));
    /* -q quotes the command's words, which may hold any character. */
    const char *argv[] = {"parallel", "--will-cite", "--halt", "never", "-q", "-j", jobs, "-a",
                          pending, self, "sweep", "--job", o->dir, "{}", NULL};
    progress p = {.plan = plan, .total = n, .start = now(), .tty = isatty(2)};
    int status = process_stream(argv, on_job_line, &p, stop, err);
    if (p.tty && p.done)
        fputc('\n', stderr);
    if (status < 0)
        return -1;
    /* A job may finish as parallel is stopped, its line unreported: the
     * rows collected next say what was done. */
    if (*stop)
        fprintf(stderr, "sweep: stopped by %s; samsim sweep again runs the jobs not done\n",
                *stop == SIGINT ? "SIGINT" : *stop == SIGTERM ? "SIGTERM" : "SIGHUP");
    else if (p.done < n)
        fprintf(stderr, "sweep: %zu of %zu jobs did not report (GNU parallel exited with status "
                        "%d); samsim sweep again runs them\n", n - p.done, n, status);
    return 0;
}

static int sweep_local(const sweep_opts *o, sweep_plan *plan, int *stop, sam_error *err)
{
    char pending[SWEEP_PATH];
    size_t n;
    if (write_pending(o->dir, plan, pending, &n, err))
        return -1;
    fprintf(stderr, "sweep: %zu jobs, %zu with results already, %zu to run, %zu at a time\n",
            plan->njobs, plan->njobs - n, n, slots(o, n));
    if (n && run_parallel(o, plan, pending, n, stop, err))
        return -1;
    return sweep_collect(o->dir, err);
}

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
static int write_sbatch(const char *dir, size_t njobs, int64_t chunk, int64_t tasks,
                        char *path, sam_error *err)
{
    char self[SWEEP_PATH], logs[SWEEP_PATH];
    atomic_file af;
    if (self_path(self, err) || sweep_store_path(logs, dir, "slurm", err) ||
        sweep_store_path(path, dir, "sweep.sbatch", err) || atomic_file_open(&af, path, err))
        return -1;
    fprintf(af.f, "#!/bin/sh\n"
                  "# A samsim sweep: %zu jobs, %lld to an array task. Written by samsim sweep "
                  "--slurm;\n# submit with sbatch (its options override these), then gather with "
                  "samsim sweep --collect.\n", njobs, (long long)chunk);
    fprintf(af.f, "#SBATCH --job-name=samsim-sweep\n#SBATCH --array=0-%lld\n#SBATCH --ntasks=1\n"
                  "#SBATCH --cpus-per-task=1\n#SBATCH --output=%s/%%A_%%a.out\n",
            (long long)tasks - 1, logs);
    fputs("exec ", af.f);
    shell_quote(af.f, self);
    fputs(" sweep --job ", af.f);
    shell_quote(af.f, dir);
    fprintf(af.f, " $((SLURM_ARRAY_TASK_ID * %lld)) %lld\n", (long long)chunk, (long long)chunk);
    int rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err) ? -1 : 0;
    atomic_file_discard(&af);
    return rc;
}

static int sweep_slurm(const sweep_opts *o, const sweep_plan *plan, sam_error *err)
{
    char path[SWEEP_PATH], logs[SWEEP_PATH];
    int64_t chunk = ((int64_t)plan->njobs + o->array_max - 1) / o->array_max;
    int64_t tasks = ((int64_t)plan->njobs + chunk - 1) / chunk;
    if (sweep_store_path(logs, o->dir, "slurm", err) ||
        (mkdir(logs, 0777) && errno != EEXIST &&
         error_at(err, logs, 0, "cannot create: %s", strerror(errno))) ||
        write_sbatch(o->dir, plan->njobs, chunk, tasks, path, err))
        return -1;
    fprintf(stderr, "sweep: %zu jobs in %lld array tasks of %lld; submit with\n"
                    "  sbatch %s\nand when they have run, gather their rows with\n"
                    "  samsim sweep --collect %s\n",
            plan->njobs, (long long)tasks, (long long)chunk, path, o->dir);
    return 0;
}

/* --job DIR FIRST [COUNT]: runs job FIRST and those after it, up to COUNT
 * of them, while they exist (the last array task's chunk may be short). */
static int sweep_jobs(const sweep_opts *o, sam_error *err)
{
    char self[SWEEP_PATH];
    if (self_path(self, err))
        return -1;
    if (!sweep_store_has_job(o->dir, (size_t)o->first))
        return error_at(err, o->dir, 0, "no job %lld (jobs/%lld.job)", (long long)o->first,
                        (long long)o->first);
    for (int64_t i = o->first; i < o->first + o->count; i++) {
        if (i > o->first && !sweep_store_has_job(o->dir, (size_t)i))
            break;
        if (sweep_job_run(o->dir, (size_t)i, self, err))
            return -1;
    }
    return 0;
}

/* The modes that write into the directory, under its lock; --slurm names
 * it absolute, and refuses it before it is made. */
static int sweep_in_dir(const sweep_opts *given, sweep_plan *plan, int *stop, sam_error *err)
{
    sweep_opts o = *given;
    char *abs = o.mode == MODE_SLURM ? absolute_dir(o.dir, err) : NULL;
    if (o.mode == MODE_SLURM && (!abs || slurm_dir_ok(abs, err))) {
        free(abs);
        return -1;
    }
    if (abs)
        o.dir = abs;
    int lock = -1;
    int rc = sweep_store_create(o.dir, err) || sweep_lock_take(o.dir, &lock, err) ||
                     sweep_store_prepare(o.dir, plan, err)
                 ? -1
                 : 0;
    if (!rc)
        rc = o.mode == MODE_SLURM ? sweep_slurm(&o, plan, err) : sweep_local(&o, plan, stop, err);
    sweep_lock_release(lock);
    free(abs);
    return rc;
}

static int sweep_spec_mode(const sweep_opts *o, int *stop, sam_error *err)
{
    sweep_plan plan;
    static const sweep_arg_checks checks = {cmd_compile_check, cmd_gen_check};
    if (sweep_plan_open(o->spec, SWEEP_MAX_JOBS, &checks, &plan, err))
        return -1;
    int rc = o->mode == MODE_LIST ? sweep_list(&plan, err) : sweep_in_dir(o, &plan, stop, err);
    sweep_plan_close(&plan);
    return rc;
}

static int sweep_collect_mode(const char *dir, sam_error *err)
{
    char path[SWEEP_PATH];
    struct stat st;
    int lock = -1;
    if (sweep_store_path(path, dir, "jobs.csv", err))
        return -1;
    if (stat(path, &st))
        return error_at(err, dir, 0, "not a sweep directory (no jobs.csv): %s", strerror(errno));
    int rc = sweep_lock_take(dir, &lock, err) ? -1 : sweep_collect(dir, err);
    sweep_lock_release(lock);
    return rc;
}

/* A sweep stopped by a signal ends by it, as the programs it ran did, so
 * that whoever sent it sees it (a shell's loop stops on Ctrl-C). */
static int end_by(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig);
    return 128 + sig;
}

int cmd_sweep(int argc, char **argv)
{
    sam_error err;
    sweep_opts o;
    int rc, stop = 0;
    if (parse(argc, argv, &o, &err))
        return args_fail(&err);
    if (o.mode == MODE_JOB)
        rc = sweep_jobs(&o, &err);
    else if (o.mode == MODE_COLLECT)
        rc = sweep_collect_mode(o.dir, &err);
    else
        rc = sweep_spec_mode(&o, &stop, &err);
    if (rc < 0)
        return args_fail(&err);
    return stop ? end_by(stop) : rc;
}
