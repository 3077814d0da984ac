/* samsim sweep: expands a sweep spec into jobs and runs them with GNU
 * parallel (--local) or a Slurm job array (--slurm), gathering one CSV
 * row per job (sweep_plan.h, sweep_run.h, sweep_store.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../sweep/sweep_plan.h"
#include "../sweep/sweep_run.h"
#include "../sweep/sweep_spec.h"
#include "../sweep/sweep_store.h"
#include "args.h"
#include "commands.h"
#include "options.h"

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

enum { OPT_LIST = 1, OPT_LOCAL, OPT_JOBS, OPT_SLURM, OPT_ARRAY_MAX, OPT_DIR, OPT_COLLECT, OPT_JOB };

static const cli_option sweep_options[] = {
    {OPT_LIST, "--list", NULL, "prints the jobs (CSV: number, parameters, hash)", NULL},
    {OPT_LOCAL, "--local", NULL, "runs them here with GNU parallel (the default)",
     "Showing progress on standard error."},
    {OPT_JOBS, "-j", "N", "jobs at a time (default: the CPUs)",
     "No more than there are to run."},
    {OPT_SLURM, "--slurm", NULL, "writes DIR/sweep.sbatch, a job array, to submit with sbatch",
     NULL},
    {OPT_ARRAY_MAX, "--array-max", "N", "array tasks at most (default 1000); jobs share tasks "
     "beyond", NULL},
    {OPT_DIR, "-o", "DIR", "the sweep's directory (default: SPEC's name, .results)", NULL},
    {OPT_COLLECT, "--collect", "DIR", "gathers the rows of the jobs that have run",
     "Into DIR/results.csv; a result that cannot be read is named, and its job's row is "
     "pending."},
    {OPT_JOB, "--job", "DIR", "runs job FIRST [and the COUNT - 1 after it] of DIR (what the "
     "sweep's own runners call)", NULL},
    {0, NULL, NULL, NULL, NULL},
};

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

typedef struct sweep_parsing {
    sweep_opts *o;
    int numbers;            /* --job's positional numbers so far */
} sweep_parsing;

static int take_operand(sweep_parsing *p, const char *v, sam_error *err)
{
    sweep_opts *o = p->o;
    if (o->mode == MODE_JOB)
        return job_number(o, v, &p->numbers, err);
    if (o->spec)
        return error_set(err, "sweep: unexpected argument '%s'", v);
    o->spec = v;
    return 0;
}

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    sweep_parsing *p = ctx;
    sweep_opts *o = p->o;
    int64_t n;
    switch (id) {
    case CLI_OPERAND: return take_operand(p, v, err);
    case OPT_LIST: return set_mode(o, MODE_LIST, "--list", err);
    case OPT_LOCAL: return set_mode(o, MODE_LOCAL, "--local", err);
    case OPT_SLURM: return set_mode(o, MODE_SLURM, "--slurm", err);
    case OPT_JOBS:
        if (parse_count("-j", v, 1, &n, err))
            return -1;
        o->jobs = (int)(n > SWEEP_MAX_PARALLEL ? SWEEP_MAX_PARALLEL : n);
        return 0;
    case OPT_ARRAY_MAX: return parse_count("--array-max", v, 1, &o->array_max, err);
    case OPT_DIR: return o->dir = v, 0;
    case OPT_COLLECT: return set_mode(o, MODE_COLLECT, "--collect", err) ? -1 : (o->dir = v, 0);
    default: return set_mode(o, MODE_JOB, "--job", err) ? -1 : (o->dir = v, 0);
    }
}

static int parse(int argc, char **argv, sweep_opts *o, sam_error *err)
{
    *o = (sweep_opts){.array_max = 1000, .count = 1};
    sweep_parsing p = {o, 0};
    if (options_parse(&cmd_sweep_command, argc, argv, take, &p, err))
        return -1;
    if (o->mode == MODE_JOB && !p.numbers)
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

/* The counts of a gathering; the exit status 1 unless every job is ok. */
static int print_tally(const char *dir, const sweep_tally *t)
{
    char stopped[48] = "";
    if (t->stopped)
        snprintf(stopped, sizeof stopped, "%zu stopped, ", t->stopped);
    size_t total = t->ok + t->stopped + t->failed + t->pending;
    fprintf(stderr, "sweep: %zu jobs: %zu ok, %s%zu failed, %zu not run; rows in "
                    "%s/results.csv\n",
            total, t->ok, stopped, t->failed, t->pending, dir);
    return t->ok == total ? 0 : 1;
}

static int print_slurm(const sweep_plan *plan, const sweep_slurm_script *s)
{
    fprintf(stderr, "sweep: %zu jobs in %lld array tasks of %lld; submit with\n"
                    "  sbatch %s\nand when they have run, gather their rows with\n"
                    "  samsim sweep --collect %s\n",
            plan->njobs, (long long)s->tasks, (long long)s->chunk, s->path, s->dir);
    return 0;
}

/* The modes that run or prepare the plan's jobs. */
static int sweep_spec_mode(const sweep_opts *o, int *stop, sam_error *err)
{
    static const sweep_arg_checks checks = {cmd_compile_check, cmd_gen_check};
    char self[SWEEP_PATH];
    sweep_plan plan;
    if (sweep_plan_open(o->spec, SWEEP_MAX_JOBS, &checks, &plan, err))
        return -1;
    if (o->mode != MODE_LIST && self_path(self, err)) {
        sweep_plan_close(&plan);
        return -1;
    }
    const sweep_run run = {o->dir, self, o->jobs, o->array_max, stderr};
    sweep_tally tally;
    sweep_slurm_script script;
    int rc;
    if (o->mode == MODE_LIST)
        rc = sweep_list(&plan, err);
    else if (o->mode == MODE_SLURM)
        rc = sweep_run_slurm(&run, &plan, &script, err) ? -1 : print_slurm(&plan, &script);
    else
        rc = sweep_run_local(&run, &plan, stop, &tally, err) ? -1 : print_tally(o->dir, &tally);
    sweep_plan_close(&plan);
    return rc;
}

static int sweep_jobs(const sweep_opts *o, sam_error *err)
{
    char self[SWEEP_PATH];
    if (self_path(self, err))
        return -1;
    return sweep_run_jobs(o->dir, (size_t)o->first, (size_t)o->count, self, err);
}

static int sweep_collect(const char *dir, sam_error *err)
{
    sweep_tally tally;
    return sweep_run_collect(dir, &tally, stderr, err) ? -1 : print_tally(dir, &tally);
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
        rc = sweep_collect(o.dir, &err);
    else
        rc = sweep_spec_mode(&o, &stop, &err);
    if (rc < 0)
        return args_fail(&err);
    return stop ? end_by(stop) : rc;
}

const cli_command cmd_sweep_command = {
    .name = "sweep",
    .run = cmd_sweep,
    .synopsis = "SPEC [--list | --local [-j N] | --slurm [--array-max N]] [-o DIR] | --collect "
                "DIR",
    .about = "Runs every job a sweep spec expands to (doc/sweeps.md), one samsim run each, with "
        "GNU parallel or a Slurm job array, and gathers a row per job in DIR/results.csv. "
        "Complete jobs are skipped (failed ones run again), so a sweep run again continues "
        "where it stopped.",
    .options = sweep_options,
    .detail = "A spec holds key = value lines; | separates alternatives, A..B [step S | times "
        "F] ranges, [GROUP=NAME] sections, var.NAME values referred to as {NAME}. Every value "
        "is checked before any job runs (hw.KEY as a --hw line, config.KEY, impl, template and "
        "its parameters, expr with its format, schedule and tile as compile takes them, gen "
        "arguments); \\# writes a # in a value. A row holds the job's parameters, its status "
        "(ok, stopped, failed, timeout or pending), its exit status, the fields of run's "
        "outcome record, job_seconds and error. Complete jobs (ok, or stopped at max-cycles or "
        "a deadlock) are skipped; failed, timed-out and killed jobs run again.\n\n"
        "One sweep at a time writes in a directory (DIR/sweep.lock): another is refused. "
        "SIGINT, SIGTERM or SIGHUP stops GNU parallel and the running jobs, writes "
        "DIR/results.csv and ends the sweep by that signal; SIGKILL, which it cannot catch, "
        "stops them too, and the lock goes once they have stopped. Exit status 1 unless every "
        "job is ok.",
};
