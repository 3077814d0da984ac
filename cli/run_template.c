/* samsim run DIR (run_template.h): the directory read and checked whole
 * before anything runs, its phases run in memory (run/template_run.h), then
 * the outputs written, all of them or none, and the summary. */
#include "run_template.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/number.h"
#include "../common/process.h"
#include "../formats/tensor_file.h"
#include "args.h"
#include "options.h"
#include "outputs.h"
#include "../run/template_dir.h"
#include "../run/template_run.h"

typedef struct trun_opts {
    const char *dir, *out, *stats, *outcome, *trace;
    int check, quiet;
    engine_mode engine;
    char name[TRUN_MAX_TENSORS][64];    /* -t NAME=FILE */
    const char *file[TRUN_MAX_TENSORS];
    int nbound;
    char stats_file[TEMPLATE_MAX_PHASES][TEMPLATE_DIR_PATH];    /* each phase's --stats */
} trun_opts;

/* ---- the command line --------------------------------------------------- */

/* A template's operands are matrices; a number names no file (a plain
 * graph's -t binds a scalar with one). */
static int parse_bind(trun_opts *o, const char *v, sam_error *err)
{
    const char *eq = strchr(v, '=');
    double number;
    struct stat st;
    if (!eq || eq == v || !eq[1])
        return error_set(err, "run: -t takes NAME=FILE, not '%s'", v);
    size_t len = (size_t)(eq - v);
    if (o->nbound == TRUN_MAX_TENSORS || len >= sizeof o->name[0])
        return error_set(err, "run: too many -t or too long a name in '%s'", v);
    for (int i = 0; i < o->nbound; i++)
        if (strlen(o->name[i]) == len && !strncmp(o->name[i], v, len))
            return error_set(err, "run: -t %s given twice", o->name[i]);
    if (!number_parse(eq + 1, &number) && stat(eq + 1, &st))
        return error_set(err, "run: -t %s: a template's operands are tensor files, not numbers",
                         v);
    memcpy(o->name[o->nbound], v, len);
    o->name[o->nbound][len] = '\0';
    o->file[o->nbound++] = eq + 1;
    return 0;
}

enum { OPT_BIND = 1, OPT_OUT, OPT_STATS, OPT_OUTCOME, OPT_TRACE, OPT_ENGINE, OPT_CHECK, OPT_QUIET };

/* run DIR's options, a part of run GRAPH's (which declares them for the
 * help and the man page). */
static const cli_option dir_options[] = {
    {OPT_BIND, "-t", "NAME=FILE", "binds operand NAME", NULL},
    {OPT_OUT, "-o", "OUT", "writes the result", NULL},
    {OPT_STATS, "--stats", "FILE.csv", "writes each phase's statistics", NULL},
    {OPT_OUTCOME, "--outcome", "FILE.csv", "writes the summary's fields", NULL},
    {OPT_TRACE, "--trace", "FILE.json", "writes each phase's PEs and links over time", NULL},
    {OPT_ENGINE, "--engine", "event|step|cycle", "the engine", NULL},
    {OPT_CHECK, "--check", NULL, "compares with an independent evaluation", NULL},
    {OPT_QUIET, "--quiet", NULL, "no progress line", NULL},
    {0, NULL, NULL, NULL, NULL},
};

static const cli_command run_dir_command = {
    .name = "run",
    .synopsis = "DIR -t NAME=FILE... [options]",
    .about = "",
    .options = dir_options,
    .refusal = "run: a template directory takes -t NAME=FILE, -o, --stats, --outcome, --trace, "
               "--check, --engine and --quiet; not '%s'",
};

/* A file option's value; an empty one names no file. */
static int take_file(const char *name, const char *v, const char **out, sam_error *err)
{
    if (!*v)
        return error_set(err, "run: %s needs a file name, not an empty one", name);
    *out = v;
    return 0;
}

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    trun_opts *o = ctx;
    switch (id) {
    case CLI_OPERAND:
        if (o->dir)
            return error_set(err, "run: unexpected argument '%s'", v);
        return o->dir = v, 0;
    case OPT_BIND: return parse_bind(o, v, err);
    case OPT_OUT: return take_file("-o", v, &o->out, err);
    case OPT_STATS: return take_file("--stats", v, &o->stats, err);
    case OPT_OUTCOME: return take_file("--outcome", v, &o->outcome, err);
    case OPT_TRACE: return take_file("--trace", v, &o->trace, err);
    case OPT_ENGINE: return args_engine(v, &o->engine, err);
    case OPT_CHECK: return o->check = 1, 0;
    default: return o->quiet = 1, 0;
    }
}

static int parse_args(int argc, char **argv, trun_opts *o, sam_error *err)
{
    memset(o, 0, sizeof *o);
    return options_parse(&run_dir_command, argc, argv, take, o, err);
}

/* The names -t binds. */
static int check_operands(const trun_opts *o, const template_dir *d, sam_error *err)
{
    const char *names[TRUN_MAX_TENSORS];
    for (int i = 0; i < o->nbound; i++)
        names[i] = o->name[i];
    return template_dir_check_operands(d, names, o->nbound, err);
}

/* FILE for one phase, FILE.PHASE.EXT (the extension kept last) for each
 * of several. */
static void stats_paths(trun_opts *o, const template_dir *d)
{
    const char *dot = strrchr(o->stats, '.');
    size_t stem = dot && !strchr(dot, '/') ? (size_t)(dot - o->stats) : strlen(o->stats);
    for (int p = 0; p < d->nphases; p++) {
        char phase[sizeof d->phase[0]];
        memcpy(phase, d->phase[p], sizeof phase);
        if (d->nphases == 1)
            snprintf(o->stats_file[p], sizeof o->stats_file[0], "%s", o->stats);
        else
            snprintf(o->stats_file[p], sizeof o->stats_file[0], "%.*s.%s%s", (int)stem, o->stats,
                     phase, o->stats + stem);
    }
}

/* -o and every phase's --stats file must replace no input and no other
 * output; standard output takes one table. */
static int check_files(trun_opts *o, const template_dir *d, sam_error *err)
{
    io_file in[TRUN_MAX_TENSORS + 2 * TEMPLATE_MAX_PHASES + 1];
    io_file out[3 + TEMPLATE_MAX_PHASES] = {{"-o", o->out, NULL}, {"--outcome", o->outcome, NULL},
                                            {"--trace", o->trace, NULL}};
    int n = 0, nout = 3;
    for (int i = 0; i < o->nbound; i++)
        in[n++] = (io_file){"-t", o->file[i], o->name[i]};
    for (int p = 0; p < d->nphases; p++) {
        in[n++] = (io_file){"the template", d->gv[p], NULL};
        in[n++] = (io_file){"the template", d->hw_path[p], NULL};
    }
    in[n++] = (io_file){"the template", d->conf, NULL};
    if (o->stats && !strcmp(o->stats, "-") && d->nphases > 1)
        return error_set(err, "run: --stats -: %s has %d phases, each with its own statistics "
                         "table; give --stats FILE.csv (FILE.%s.csv, ...)", o->dir, d->nphases,
                         d->phase[0]);
    if (o->stats) {
        stats_paths(o, d);
        for (int p = 0; p < d->nphases; p++)
            out[nout++] = (io_file){"--stats", o->stats_file[p], NULL};
    }
    return outputs_check("run", in, n, out, nout, err);
}

static int bind_operands(const trun_opts *o, trun *r, sam_error *err)
{
    for (int i = 0; i < o->nbound; i++) {
        tensor t;
        tensor_file f = {.path = o->file[i], .name = o->name[i]};
        if (tensor_file_read(&f, &t, err))
            return -1;
        if (trun_bind(r, o->name[i], &t, err)) {
            tensor_free(&t);
            return -1;
        }
    }
    return 0;
}

/* ---- the run ------------------------------------------------------------ */

/* Removes the first n statistics files written, so that a run that fails
 * leaves none. */
static void remove_stats(const trun_opts *o, int n)
{
    for (int p = 0; p < n; p++)
        outputs_remove(o->stats_file[p]);
}

/* Every phase's statistics, the trace, the result, then the record: all
 * of them or none. */
static int write_outputs(const trun_opts *o, const template_dir *d, trun *r, const outcome *rec,
                         sam_error *err)
{
    int written = 0;
    for (; o->stats && written < r->nphases; written++) {
        const trun_phase *p = &r->phase[written];
        if (sim_stats_write_rows(p->out.stats, p->cycles, NULL, o->stats_file[written], err)) {
            remove_stats(o, written);
            return -1;
        }
    }
    const trun_tensor *z = trun_result(r);
    tensor_file f = {.path = o->out, .name = z->name};
    trace_options whole = {0};
    if (o->trace && trun_write_trace(r, d->name, &whole, o->trace, err)) {
        remove_stats(o, written);
        return -1;
    }
    if (o->out && outputs_write_tensor(&f, &z->t, err)) {
        remove_stats(o, written);
        outputs_remove(o->trace);
        return -1;
    }
    if (o->outcome && outcome_write(rec, o->outcome, err)) {
        remove_stats(o, written);
        outputs_remove(o->trace);
        outputs_remove(o->out);
        return -1;
    }
    return 0;
}

/* The phases run, the result checked, the outputs written and the
 * summary printed (on standard error when an output is standard
 * output). */
static int run_all(const trun_opts *o, const template_dir *d, trun *r, sam_error *err)
{
    char verdict[64] = "skipped";
    outcome rec = {0};
    double start = process_seconds();
    int wrong = trun_run_dir(r, d, err);
    double wall = process_seconds() - start;
    if (!wrong && o->check)
        wrong = trun_check(r, o->dir, d->expr, verdict, sizeof verdict, err);
    if (wrong >= 0) {
        trun_record(r, d->name, verdict, wall, &rec);
        outputs_record_result(&rec, trun_result(r)->name, o->out, trun_result(r)->t.nnz);
        if (outcome_done(&rec, o->dir, err) || write_outputs(o, d, r, &rec, err))
            wrong = -1;
    }
    if (wrong >= 0) {
        int to_stdout = (o->out && !strcmp(o->out, "-")) || (o->stats && !strcmp(o->stats, "-"));
        outcome_print(&rec, to_stdout ? stderr : stdout);
    }
    outcome_free(&rec);
    return wrong < 0 ? 1 : wrong ? 3 : 0;
}

int run_template(int argc, char **argv)
{
    trun_opts o;
    template_dir *d = calloc(1, sizeof *d);
    trun r;
    sam_error err;
    int rc = 1;
    trun_init(&r, ENGINE_EVENT, 0);
    if (!d)
        error_set(&err, "out of memory");
    else if (!parse_args(argc, argv, &o, &err) && !template_dir_read(o.dir, d, &err) &&
             !check_operands(&o, d, &err) &&
             !check_files(&o, d, &err)) {
        trun_init(&r, o.engine, o.stats != NULL);
        r.trace = o.trace ? HW_TRACE_SLICES / (size_t)d->nphases : 0;
        if (!bind_operands(&o, &r, &err))
            rc = run_all(&o, d, &r, &err);
    }
    if (rc == 1)
        args_fail(&err);
    trun_free(&r);
    if (d)
        template_dir_free(d);
    free(d);
    return rc;
}
