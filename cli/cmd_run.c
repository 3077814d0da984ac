/* samsim run GRAPH: simulate a SAM graph on tensors bound to its names
 * (run/graph_run.h), then write its result, its statistics and the
 * summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/process.h"
#include "../formats/tensor_file.h"
#include "../formats/text_out.h"
#include "../graph/graph.h"
#include "../run/graph_run.h"
#include "../run/template_dir.h"
#include "args.h"
#include "commands.h"
#include "outputs.h"
#include "run_template.h"

typedef struct run_opts {
    const char *graph, *out, *stats, *hw, *outcome;
    int quiet;
    const char *configs[GRAPH_RUN_MAX_BINDINGS];
    int nconfigs;
    sim_config file_settings, cli_settings;
    hw_desc hw_read;
    graph_run_request req;
} run_opts;

static int parse_binding(run_opts *o, const char *v, sam_error *err)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return error_set(err, "run: -t takes NAME=FILE or NAME=NUMBER, not '%s'", v);
    if (o->req.nbind == GRAPH_RUN_MAX_BINDINGS)
        return error_set(err, "run: more than %d -t bindings", GRAPH_RUN_MAX_BINDINGS);
    o->req.bind_name[o->req.nbind] = strndup(v, (size_t)(eq - v));
    o->req.bind_value[o->req.nbind++] = eq + 1;
    return 0;
}

/* --impl TYPE=NAME is the setting TYPE.impl = NAME. */
static int parse_impl(run_opts *o, const char *v, sam_error *err)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return error_set(err, "run: --impl takes TYPE=NAME, not '%s'", v);
    char key[200];
    snprintf(key, sizeof key, "%.*s.impl", (int)(eq - v), v);
    return sim_config_add(&o->cli_settings, key, eq + 1, "--impl", err);
}

static int parse_option(int argc, char **argv, int *i, run_opts *o, sam_error *err)
{
    const char *v;
    int r;
    if ((r = args_option(argc, argv, i, "-t", &v, err)))
        return r < 0 ? -1 : parse_binding(o, v, err);
    if ((r = args_option(argc, argv, i, "--data", &v, err)))
        return r < 0 ? -1 : (o->req.data = v, 0);
    if ((r = args_option(argc, argv, i, "-o", &v, err)))
        return r < 0 ? -1 : (o->out = v, 0);
    if ((r = args_option(argc, argv, i, "--stats", &v, err)))
        return r < 0 ? -1 : (o->stats = v, 0);
    if ((r = args_option(argc, argv, i, "--engine", &v, err)))
        return r < 0 ? -1 : args_engine(v, &o->req.engine, err);
    if ((r = args_option(argc, argv, i, "--split", &v, err)))
        return r < 0 ? -1 : args_uint64("--split", v, &o->req.split, err);
    if ((r = args_option(argc, argv, i, "--depth", &v, err)))
        return r < 0 ? -1 : sim_config_add(&o->cli_settings, "channel.capacity", v, "--depth", err);
    if ((r = args_option(argc, argv, i, "--latency", &v, err)))
        return r < 0 ? -1 : sim_config_add(&o->cli_settings, "channel.latency", v, "--latency", err);
    if ((r = args_option(argc, argv, i, "--impl", &v, err)))
        return r < 0 ? -1 : parse_impl(o, v, err);
    if ((r = args_option(argc, argv, i, "--config", &v, err))) {
        if (r > 0 && o->nconfigs == GRAPH_RUN_MAX_BINDINGS)
            return error_set(err, "run: more than %d --config files", GRAPH_RUN_MAX_BINDINGS);
        if (r < 0)
            return -1;
        o->configs[o->nconfigs++] = v;
        return sim_config_read(&o->file_settings, v, err);
    }
    if ((r = args_option(argc, argv, i, "--max-cycles", &v, err))) {
        if (r < 0 || args_uint64("--max-cycles", v, &o->req.max_cycles, err))
            return -1;
        return o->req.max_cycles ? 0 : error_set(err, "run: --max-cycles must be at least 1");
    }
    if ((r = args_option(argc, argv, i, "--expr", &v, err)))
        return r < 0 ? -1 : (o->req.expr = v, 0);
    if ((r = args_option(argc, argv, i, "--tile", &v, err)))
        return r < 0 ? -1 : (o->req.tiling = v, 0);
    if ((r = args_option(argc, argv, i, "--hw", &v, err)))
        return r < 0 ? -1 : (o->hw = v, 0);
    if ((r = args_option(argc, argv, i, "--outcome", &v, err)))
        return r < 0 ? -1 : (o->outcome = v, 0);
    if (!strcmp(argv[*i], "--shift"))
        return o->req.shift = 1, 0;
    if (!strcmp(argv[*i], "--quiet"))
        return o->quiet = 1, 0;
    if (!strcmp(argv[*i], "--check"))
        return o->req.check = 1, 0;
    return error_set(err, "run: unknown option '%s'", argv[*i]);
}

static int parse_args(int argc, char **argv, run_opts *o, sam_error *err)
{
    memset(o, 0, sizeof *o);
    o->req.max_cycles = UINT64_MAX;
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            if (parse_option(argc, argv, &i, o, err))
                return -1;
        } else if (!o->graph) {
            o->graph = argv[i];
        } else {
            return error_set(err, "run: unexpected argument '%s'", argv[i]);
        }
    }
    if (!o->graph)
        return error_set(err, "usage: samsim run GRAPH.dot [-t NAME=FILE]... [--data DIR] "
                              "[--shift] [-o OUT] [--stats FILE.csv] [--check] [--expr EXPR] "
                              "[--tile SPLITS] [--hw FILE] "
                              "[--engine event|step|cycle] [--split SEED] [--depth N] [--latency N] "
                              "[--impl TYPE=NAME]... [--config FILE] [--max-cycles N] [--outcome FILE.csv] "
                              "[--quiet]");
    /* An expression that nothing uses would look like a passed check. */
    if (o->req.expr && !o->req.check && !o->req.tiling)
        return error_set(err, "run: --expr is the expression --check evaluates and --tile "
                              "splits; give one of them too");
    return 0;
}

static void free_opts(run_opts *o)
{
    sim_config_free(&o->file_settings);
    sim_config_free(&o->cli_settings);
    for (int i = 0; i < o->req.nbind; i++)
        free((char *)o->req.bind_name[i]);
}

/* Every file the run reads, against -o, --stats and --outcome. */
static int check_outputs(const run_opts *o, const sam_graph *g, sam_error *err)
{
    io_file in[2 + 2 * GRAPH_RUN_MAX_BINDINGS + 64];
    int n = 0;
    in[n++] = (io_file){"graph", o->graph, NULL};
    for (int i = 0; i < o->nconfigs; i++)
        in[n++] = (io_file){"--config", o->configs[i], NULL};
    if (o->hw)
        in[n++] = (io_file){"--hw", o->hw, NULL};
    for (int i = 0; i < o->req.nbind; i++)
        in[n++] = (io_file){"-t", o->req.bind_value[i], o->req.bind_name[i]};
    for (int k = 1; k < g->ntensors && k <= 64 && o->req.data; k++)
        in[n++] = (io_file){"--data", o->req.data, g->tensors[k].name};
    const io_file out[] = {{"-o", o->out, g->ntensors ? g->tensors[0].name : NULL},
                           {"--stats", o->stats, NULL},
                           {"--outcome", o->outcome, NULL}};
    return outputs_check("run", in, n, out, 3, err);
}

/* Progress of a long run, on a terminal only: one line, rewritten. */
#define PROGRESS_SECONDS 0.25

typedef struct progress {
    double start, shown_at;
    int shown;
} progress;

static void show_progress(const sim_engine *e, cycle_t now, void *ctx)
{
    progress *p = ctx;
    double t = process_seconds() - p->start;
    if (t - p->shown_at < PROGRESS_SECONDS)
        return;
    double tokens = (double)sim_engine_tokens(e);
    fprintf(stderr, "\rsamsim: cycle %llu, %.1f M token moves, %.1f M/s ",
            (unsigned long long)now, tokens / 1e6, tokens / t / 1e6);
    p->shown_at = t;
    p->shown = 1;
}

static void clear_progress(const progress *p)
{
    if (p->shown)
        fprintf(stderr, "\r%*s\r", 72, "");
}

/* With -o - the result is standard output, so the summary goes to stderr. */
static FILE *summary_stream(const run_opts *o)
{
    return o->out && !strcmp(o->out, "-") ? stderr : stdout;
}

/* A result this small is shown when no -o asks for a file. */
#define RESULT_SHOW 20

/* Where the result went: the file, or (without -o) nowhere, with its
 * entries when there are few. */
static void print_result(const run_opts *o, const sam_graph *g, const tensor *t)
{
    const char *name = g->tensors[0].name;
    if (o->out) {
        fprintf(summary_stream(o), "result: %s written to %s\n", name,
                strcmp(o->out, "-") ? o->out : "standard output");
        return;
    }
    printf("result: %s, %zu nonzeros, not written (-o FILE writes it)\n", name, t->nnz);
    for (size_t i = 0; t->nnz <= RESULT_SHOW && i < t->nnz; i++) {
        char value[32];
        text_format_double(value, t->vals[i]);
        printf("  %s(", name);
        for (int m = 0; m < t->order; m++)
            printf("%s%lld", m ? "," : "", (long long)t->crd[m][i]);
        printf(") = %s\n", value);
    }
}

static int write_result(const run_opts *o, const sam_graph *g, const graph_run *run,
                        sam_error *err)
{
    int sam = tensor_file_kind_of(o->out) == TENSOR_FILE_SAMDIR && strcmp(o->out, "-") &&
              run->result_format[0];
    tensor_file f = {.path = o->out, .name = g->tensors[0].name,
                     .format = sam ? run->result_format : NULL};
    return outputs_write_tensor(&f, &run->result, err);
}

/* A completed run: its result, statistics and record written (all or,
 * as far as files can be taken back, none), the summary printed. Returns
 * the exit status. */
static int deliver(const run_opts *o, const sam_graph *g, const graph_run *run, sam_error *err)
{
    if (o->out && write_result(o, g, run, err))
        return 1;
    if ((o->stats && sim_stats_write_rows(run->stats, run->cycles, NULL, o->stats, err)) ||
        (o->outcome && outcome_write(&run->record, o->outcome, err))) {
        outputs_remove(o->stats);
        outputs_remove(o->out);
        return 1;
    }
    outcome_print(&run->record, summary_stream(o));
    print_result(o, g, &run->result);
    return run->status;
}

/* A run that cannot complete: the report, and the statistics so far so
 * that the stall can be inspected. Returns the exit status, 2. */
static int stalled(const run_opts *o, const sam_graph *g, const graph_run *run, sam_error *err)
{
    fprintf(stderr, "samsim: %s: %s\n", g->path, run->report);
    if (o->stats && sim_stats_write_rows(run->stats, run->cycles, run->incomplete, o->stats, err))
        return 1;
    if (o->stats)
        fprintf(stderr, "samsim: statistics up to cycle %llu (marked %s) in %s\n",
                (unsigned long long)run->cycles, run->incomplete, o->stats);
    return 2;
}

/* The run, with its progress on a terminal. */
static int run_graph(run_opts *o, sam_graph *g, sam_error *err)
{
    progress shown = {.start = process_seconds()};
    o->req.file_settings = &o->file_settings;
    o->req.cli_settings = &o->cli_settings;
    o->req.stats = o->stats != NULL;
    if (!o->quiet && isatty(STDERR_FILENO)) {
        o->req.progress = show_progress;
        o->req.progress_ctx = &shown;
    }
    if (o->hw) {
        hw_defaults(&o->hw_read);
        if (hw_read(o->hw, &o->hw_read, err))
            return 1;
        o->req.hw = &o->hw_read;
    }
    graph_run run;
    int rc = graph_run_do(g, &o->req, &run, err);
    clear_progress(&shown);
    if (rc == 0)
        rc = run.status == 2 ? stalled(o, g, &run, err) : deliver(o, g, &run, err);
    else
        rc = 1;
    graph_run_free(&run);
    return rc;
}
int cmd_run(int argc, char **argv)
{
    run_opts o;
    sam_error err;
    sam_graph g;
    if (argc > 0 && template_dir_is(argv[0]))
        return run_template(argc, argv);
    if (parse_args(argc, argv, &o, &err) || graph_read_dot(o.graph, &g, &err)) {
        free_opts(&o);
        return args_fail(&err);
    }
    int rc = check_outputs(&o, &g, &err) ? 1 : run_graph(&o, &g, &err);
    if (rc == 1)
        args_fail(&err);
    graph_free(&g);
    free_opts(&o);
    return rc;
}
