/* nftw is an XSI function. */
#define _XOPEN_SOURCE 700
#include "sweep_job.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/process.h"
#include "sweep_plan.h"
#include "sweep_store.h"
#include "../common/words.h"
#include "../report/outcome.h"

/* ---- the job's state -------------------------------------------------- */

typedef struct job_run {
    const char *dir, *self;
    sweep_job_file file;
    const sweep_job *job;
    char work[SWEEP_PATH];
    double timeout;
    char status[16];
    char error[600];
    int exit;
    outcome record;         /* the run's (report/outcome.h), its statistics
                               file first */
} job_run;

/* Records why step failed: its timeout, signal or first error line. A
 * run that exits 2 stopped at max-cycles or deadlocked: it is complete,
 * as a rerun would stop there again. */
static void step_failed(job_run *j, const char *step, const process_result *r)
{
    char line[512];
    int stopped = !strcmp(step, "run") && !r->timed_out && !r->signal && r->status == 2;
    snprintf(j->status, sizeof j->status, "%s",
             r->timed_out ? "timeout" : stopped ? SWEEP_STOPPED : "failed");
    j->exit = r->status;
    if (r->timed_out)
        snprintf(j->error, sizeof j->error, "%s: no result after %g s", step, j->timeout);
    else if (r->signal)
        snprintf(j->error, sizeof j->error, "%s: killed by signal %d", step, r->signal);
    else {
        /* The step's own "samsim: " adds nothing in a row. */
        const char *msg = process_first_error(r, line, sizeof line);
        if (!strncmp(msg, "samsim: ", 8))
            msg += 8;
        snprintf(j->error, sizeof j->error, "%s: %s", step, *msg ? msg : "failed without a message");
    }
}

/* Runs a samsim step; 0 when it exited 0, 1 when it failed (recorded),
 * -1 when it could not start. keep receives the result when non-NULL. */
static int run_step(job_run *j, const char *step, words *w, process_result *keep,
                    sam_error *err)
{
    process_result r;
    if (words_add(w, NULL, err) || process_run((const char *const *)w->v, NULL, j->timeout, &r, err))
        return -1;
    int failed = r.status != 0;
    if (failed)
        step_failed(j, step, &r);
    if (keep)
        *keep = r;
    else
        process_result_free(&r);
    return failed;
}

/* ---- operands --------------------------------------------------------- */

/* data/gen-HASH.tns (and -2 for the second of a pair). */
static int gen_path(job_run *j, const char *spec, int second, char *out, sam_error *err)
{
    char name[64];
    unsigned long long h = sweep_hash_add(SWEEP_HASH_START, spec, strlen(spec));
    snprintf(name, sizeof name, "data/gen-%016llx%s.tns", h, second ? "-2" : "");
    return sweep_store_path(out, j->dir, name, err);
}

/* The value after --second in a generator's arguments, or NULL. */
static const char *gen_second(const words *args)
{
    for (size_t i = 0; i + 1 < args->n; i++)
        if (!strcmp(args->v[i], "--second"))
            return args->v[i + 1];
    return NULL;
}

/* Generates "gen ARGS" once for the whole sweep: into temporary files
 * renamed into data/, the second file first, so that a present first file
 * means both are whole. */
static int gen_tensor(job_run *j, const char *name, const char *spec, char *file, char *second,
                      sam_error *err)
{
    words args = {0}, w = {0};
    char tmp[SWEEP_PATH + 32], tmp2[SWEEP_PATH + 32];
    struct stat st;
    int rc = words_split(&args, "", spec + 4, err) || gen_path(j, spec, 0, file, err) ||
                     gen_path(j, spec, 1, second, err)
                 ? -1
                 : 0;
    const char *partner = rc ? NULL : gen_second(&args);
    if (rc || !stat(file, &st)) {
        words_free(&args);
        return rc ? -1 : 0;
    }
    snprintf(tmp, sizeof tmp, "%.*s.tmp%d.tns", (int)strlen(file) - 4, file, (int)getpid());
    snprintf(tmp2, sizeof tmp2, "%.*s.tmp%d.tns", (int)strlen(second) - 4, second, (int)getpid());
    rc = words_add(&w, j->self, err) || words_add(&w, "gen", err) ? -1 : 0;
    for (size_t i = 0; !rc && i < args.n; i++)
        rc = words_add(&w, i && !strcmp(args.v[i - 1], "--second") ? tmp2 : args.v[i], err);
    if (!rc)
        rc = words_add(&w, "-o", err) || words_add(&w, tmp, err) ? -1 : 0;
    char step[128];
    snprintf(step, sizeof step, "gen %s", name);
    if (!rc)
        rc = run_step(j, step, &w, NULL, err);
    if (!rc && ((partner && rename(tmp2, second)) || rename(tmp, file)))
        rc = error_at(err, file, 0, "cannot rename into place: %s", strerror(errno));
    if (rc) {
        unlink(tmp);
        unlink(tmp2);
    }
    words_free(&args);
    words_free(&w);
    return rc;
}

/* -t NAME=FILE for every operand, generating what is generated. */
static int bind_tensors(job_run *j, words *run, sam_error *err)
{
    for (size_t i = 0; i < j->job->nkeys; i++) {
        const char *key = j->job->keys[i].key, *value = j->job->keys[i].value;
        if (strncmp(key, "tensor.", 7))
            continue;
        if (strncmp(value, "gen ", 4)) {
            if (words_add(run, "-t", err) || words_addf(run, err, "%s=%s", key + 7, value))
                return -1;
            continue;
        }
        char file[SWEEP_PATH], second[SWEEP_PATH];
        int rc = gen_tensor(j, key + 7, value, file, second, err);
        if (rc)
            return rc;
        words args = {0};
        if (words_split(&args, "", value + 4, err))
            return -1;
        const char *partner = gen_second(&args);
        rc = words_add(run, "-t", err) || words_addf(run, err, "%s=%s", key + 7, file) ||
             (partner && (words_add(run, "-t", err) ||
                          words_addf(run, err, "%s=%s", partner, second)));
        words_free(&args);
        if (rc)
            return -1;
    }
    return 0;
}

/* ---- the graph -------------------------------------------------------- */

/* The graph to run: given, compiled into work/graph.gv, or a template
 * written into work/template. */
static int make_graph(job_run *j, char *graph, sam_error *err)
{
    const sweep_job *job = j->job;
    if (sweep_job_get(job, "graph"))
        return snprintf(graph, SWEEP_PATH, "%s", sweep_job_get(job, "graph")), 0;
    int compile = sweep_job_get(job, "expr") != NULL;
    if (sweep_store_path(graph, j->work, compile ? "graph.gv" : "template", err))
        return -1;
    words w = {0};
    int failed = words_add(&w, j->self, err);
    if (compile)
        failed = failed || words_add(&w, "compile", err) ||
                 words_add(&w, sweep_job_get(job, "expr"), err) ||
                 words_split(&w, "-f=", sweep_job_get(job, "format"), err) ||
                 words_split(&w, "-s=", sweep_job_get(job, "schedule"), err);
    else
        failed = failed || words_add(&w, "template", err) ||
                 words_add(&w, sweep_job_get(job, "template"), err);
    for (size_t i = 0; !failed && !compile && i < job->nkeys; i++)
        if (!strncmp(job->keys[i].key, "template.", 9))
            failed = words_add(&w, "--param", err) ||
                     words_addf(&w, err, "%s=%s", job->keys[i].key + 9, job->keys[i].value);
    failed = failed || words_add(&w, "-o", err) || words_add(&w, graph, err);
    int rc = failed ? -1 : 0;
    if (!rc)
        rc = run_step(j, compile ? "compile" : "template", &w, NULL, err);
    words_free(&w);
    return rc;
}

/* ---- settings files --------------------------------------------------- */

/* work/NAME.conf from the file key NAME names and the NAME.KEY keys after
 * it; NULL path when the job has neither. */
static int settings_file(job_run *j, const char *name, char *path, sam_error *err)
{
    const char *base = sweep_job_get(j->job, name);
    size_t len = strlen(name);
    int keys = 0;
    for (size_t i = 0; i < j->job->nkeys; i++)
        keys += !strncmp(j->job->keys[i].key, name, len) && j->job->keys[i].key[len] == '.';
    path[0] = '\0';
    if (!keys) {
        if (base)
            snprintf(path, SWEEP_PATH, "%s", base);
        return 0;
    }
    char file[64];
    snprintf(file, sizeof file, "%s.conf", name);
    if (sweep_store_path(path, j->work, file, err))
        return -1;
    FILE *f = fopen(path, "w");
    if (!f)
        return error_at(err, path, 0, "cannot create: %s", strerror(errno));
    FILE *in = base ? fopen(base, "r") : NULL;
    if (base && !in) {
        fclose(f);
        snprintf(j->status, sizeof j->status, "failed");
        snprintf(j->error, sizeof j->error, "%s: %s: cannot open: %s", name, base, strerror(errno));
        return 1;
    }
    for (int c; in && (c = getc(in)) != EOF;)
        putc(c, f);
    if (in)
        fclose(in);
    fputc('\n', f);
    for (size_t i = 0; i < j->job->nkeys; i++)
        if (!strncmp(j->job->keys[i].key, name, len) && j->job->keys[i].key[len] == '.')
            fprintf(f, "%s = %s\n", j->job->keys[i].key + len + 1, j->job->keys[i].value);
    return fclose(f) ? error_at(err, path, 0, "write error: %s", strerror(errno)) : 0;
}

/* ---- the run ---------------------------------------------------------- */

static const struct run_option {
    const char *key, *flag;
} run_options[] = {
    {"data", "--data"},     {"tile", "--tile"},       {"engine", "--engine"},
    {"depth", "--depth"},   {"latency", "--latency"}, {"max-cycles", "--max-cycles"},
};

static int yes(const sweep_job *job, const char *key, int fallback)
{
    const char *v = sweep_job_get(job, key);
    return v ? !strcmp(v, "yes") : fallback;
}

/* stats = yes: --stats into stats/HASH.csv, named in the row. */
static int stats_flag(job_run *j, words *w, sam_error *err)
{
    char name[64], path[SWEEP_PATH];
    if (!yes(j->job, "stats", 0))
        return 0;
    snprintf(name, sizeof name, "stats/%s.csv", j->job->hash);
    if (sweep_store_path(path, j->dir, "stats", err) ||
        (mkdir(path, 0777) && errno != EEXIST &&
         error_at(err, path, 0, "cannot create: %s", strerror(errno))) ||
        sweep_store_path(path, j->dir, name, err))
        return -1;
    outcome_set(&j->record, "stats_file", "%s", name);
    return words_add(w, "--stats", err) || words_add(w, path, err) ? -1 : 0;
}

/* run's options after its graph and operands. */
static int run_flags(job_run *j, words *w, sam_error *err)
{
    const sweep_job *job = j->job;
    char hw[SWEEP_PATH], config[SWEEP_PATH];
    int rc = stats_flag(j, w, err);
    if (!rc)
        rc = settings_file(j, "hw", hw, err);
    if (!rc)
        rc = settings_file(j, "config", config, err);
    if (rc)
        return rc;
    for (size_t k = 0; k < sizeof run_options / sizeof run_options[0]; k++)
        if (sweep_job_get(job, run_options[k].key) &&
            (words_add(w, run_options[k].flag, err) ||
             words_add(w, sweep_job_get(job, run_options[k].key), err)))
            return -1;
    return (yes(job, "shift", 0) && words_add(w, "--shift", err)) ||
                   (yes(job, "check", 1) && words_add(w, "--check", err)) ||
                   (*hw && (words_add(w, "--hw", err) || words_add(w, hw, err))) ||
                   (*config && (words_add(w, "--config", err) || words_add(w, config, err))) ||
                   words_split(w, "--impl=", sweep_job_get(job, "impl"), err) ||
                   words_add(w, "--quiet", err)
               ? -1
               : 0;
}

/* work/outcome.csv: where run writes its record. */
static int outcome_path(job_run *j, char *path, sam_error *err)
{
    return sweep_store_path(path, j->work, "outcome.csv", err);
}

/* The run's record, after the fields the job set itself. */
static int keep_outcome(job_run *j, sam_error *err)
{
    char path[SWEEP_PATH];
    outcome run;
    if (outcome_path(j, path, err) || outcome_read(path, &run, err))
        return -1;
    for (size_t i = 0; i + 1 < run.fields.n; i += 2)
        outcome_set(&j->record, run.fields.v[i], "%s", run.fields.v[i + 1]);
    outcome_free(&run);
    return outcome_done(&j->record, path, err);
}

static int run_job_steps(job_run *j, sam_error *err)
{
    char graph[SWEEP_PATH];
    words w = {0};
    int rc = make_graph(j, graph, err);
    if (!rc)
        rc = words_add(&w, j->self, err) || words_add(&w, "run", err) || words_add(&w, graph, err)
                 ? -1
                 : 0;
    if (!rc)
        rc = bind_tensors(j, &w, err);
    if (!rc)
        rc = run_flags(j, &w, err);
    char outcome_file[SWEEP_PATH];
    if (!rc)
        rc = outcome_path(j, outcome_file, err) || words_add(&w, "--outcome", err) ||
                     words_add(&w, outcome_file, err)
                 ? -1
                 : 0;
    if (!rc)
        rc = run_step(j, "run", &w, NULL, err);
    /* A run that found its result wrong (exit 3) has a record too. */
    if ((rc == 0 || (rc == 1 && j->exit == 3)) && keep_outcome(j, err))
        rc = -1;
    words_free(&w);
    return rc;
}

/* ---- the job ---------------------------------------------------------- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int write_result(job_run *j, double seconds, sam_error *err)
{
    char exit_text[16], secs[32], path[SWEEP_PATH], name[64];
    snprintf(exit_text, sizeof exit_text, "%d", j->exit);
    snprintf(secs, sizeof secs, "%.3f", seconds);
    size_t n = 4 + j->record.fields.n / 2;
    sweep_pair *pairs = malloc(n * sizeof *pairs);
    if (!pairs)
        return error_set(err, "out of memory");
    pairs[0] = (sweep_pair){"status", j->status};
    pairs[1] = (sweep_pair){"exit", exit_text};
    pairs[2] = (sweep_pair){"job_seconds", secs};
    pairs[3] = (sweep_pair){"error", j->error};
    for (size_t i = 0; i + 1 < j->record.fields.n; i += 2)
        pairs[4 + i / 2] = (sweep_pair){j->record.fields.v[i], j->record.fields.v[i + 1]};
    snprintf(name, sizeof name, "results/%s.csv", j->job->hash);
    int rc = sweep_store_path(path, j->dir, name, err) ||
                     sweep_store_write_pairs(path, pairs, n, err)
                 ? -1
                 : 0;
    free(pairs);
    return rc;
}

static int prepare_work(job_run *j, sam_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "work/%s", j->job->hash);
    if (sweep_store_path(j->work, j->dir, name, err))
        return -1;
    remove_tree(j->work);
    if (mkdir(j->work, 0777))
        return error_at(err, j->work, 0, "cannot create: %s", strerror(errno));
    const char *t = sweep_job_get(j->job, "timeout");
    j->timeout = t ? strtod(t, NULL) : 0;
    snprintf(j->status, sizeof j->status, "ok");
    return 0;
}

int sweep_job_run(const char *dir, size_t index, const char *self, sam_error *err)
{
    job_run j = {.dir = dir, .self = self};
    if (sweep_store_load_job(dir, index, &j.file, err))
        return -1;
    j.job = &j.file.job;
    if (sweep_store_done(dir, j.job->hash)) {
        printf("%zu\tdone\t\t\n", index);
        sweep_job_file_free(&j.file);
        return 0;
    }
    double start = process_seconds();
    int rc = prepare_work(&j, err);
    if (!rc)
        rc = run_job_steps(&j, err);
    if (rc >= 0)
        rc = write_result(&j, process_seconds() - start, err);
    const char *cycles = outcome_get(&j.record, "cycles");
    if (rc >= 0)
        printf("%zu\t%s\t%s\t%s\n", index, j.status, cycles ? cycles : "", j.error);
    fflush(stdout);
    if (*j.work)
        remove_tree(j.work);
    outcome_free(&j.record);
    sweep_job_file_free(&j.file);
    return rc < 0 ? -1 : 0;
}
