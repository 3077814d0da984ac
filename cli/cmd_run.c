/* samsim run GRAPH: simulate a SAM graph on tensors bound to its names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../custard/expr.h"
#include "../custard/itersplit.h"
#include "../report/stats.h"
#include "../formats/shift.h"
#include "../formats/tensor_file.h"
#include "../formats/text_out.h"
#include "../graph/graph.h"
#include "../builder/build.h"
#include "../builder/config.h"
#include "../engine/engine.h"
#include "../builder/result.h"
#include "args.h"
#include "../run/check.h"
#include "commands.h"
#include "outputs.h"
#include "run_template.h"
#include "../run/template_dir.h"
#include "../run/tiled.h"

#define RUN_MAX_BINDINGS 16

typedef struct run_opts {
    const char *graph, *data, *out, *expr, *stats, *tiling, *hw;
    int check, quiet;
    const char *bind_name[RUN_MAX_BINDINGS], *bind_value[RUN_MAX_BINDINGS];
    int nbind, shift;
    const char *configs[RUN_MAX_BINDINGS];
    int nconfigs;
    engine_mode engine;
    uint64_t split;
    sim_config file_settings, cli_settings;
    uint64_t max_cycles;
    /* A graph that iterates splits (custard/itersplit.h): its operands are
     * split before they are stored, its result joined; NULL otherwise. */
    const itersplit *splits;
    const int64_t *split_dims;
} run_opts;

static int parse_binding(run_opts *o, const char *v, sam_error *err)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return error_set(err, "run: -t takes NAME=FILE or NAME=NUMBER, not '%s'", v);
    if (o->nbind == RUN_MAX_BINDINGS)
        return error_set(err, "run: more than %d -t bindings", RUN_MAX_BINDINGS);
    o->bind_name[o->nbind] = strndup(v, (size_t)(eq - v));
    o->bind_value[o->nbind++] = eq + 1;
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
        return r < 0 ? -1 : (o->data = v, 0);
    if ((r = args_option(argc, argv, i, "-o", &v, err)))
        return r < 0 ? -1 : (o->out = v, 0);
    if ((r = args_option(argc, argv, i, "--stats", &v, err)))
        return r < 0 ? -1 : (o->stats = v, 0);
    if ((r = args_option(argc, argv, i, "--engine", &v, err)))
        return r < 0 ? -1 : args_engine(v, &o->engine, err);
    if ((r = args_option(argc, argv, i, "--split", &v, err)))
        return r < 0 ? -1 : args_uint64("--split", v, &o->split, err);
    if ((r = args_option(argc, argv, i, "--depth", &v, err)))
        return r < 0 ? -1 : sim_config_add(&o->cli_settings, "channel.capacity", v, "--depth", err);
    if ((r = args_option(argc, argv, i, "--latency", &v, err)))
        return r < 0 ? -1 : sim_config_add(&o->cli_settings, "channel.latency", v, "--latency", err);
    if ((r = args_option(argc, argv, i, "--impl", &v, err)))
        return r < 0 ? -1 : parse_impl(o, v, err);
    if ((r = args_option(argc, argv, i, "--config", &v, err))) {
        if (r > 0 && o->nconfigs == RUN_MAX_BINDINGS)
            return error_set(err, "run: more than %d --config files", RUN_MAX_BINDINGS);
        if (r < 0)
            return -1;
        o->configs[o->nconfigs++] = v;
        return sim_config_read(&o->file_settings, v, err);
    }
    if ((r = args_option(argc, argv, i, "--max-cycles", &v, err))) {
        if (r < 0 || args_uint64("--max-cycles", v, &o->max_cycles, err))
            return -1;
        return o->max_cycles ? 0 : error_set(err, "run: --max-cycles must be at least 1");
    }
    if ((r = args_option(argc, argv, i, "--expr", &v, err)))
        return r < 0 ? -1 : (o->expr = v, 0);
    if ((r = args_option(argc, argv, i, "--tile", &v, err)))
        return r < 0 ? -1 : (o->tiling = v, 0);
    if ((r = args_option(argc, argv, i, "--hw", &v, err)))
        return r < 0 ? -1 : (o->hw = v, 0);
    if (!strcmp(argv[*i], "--shift"))
        return o->shift = 1, 0;
    if (!strcmp(argv[*i], "--quiet"))
        return o->quiet = 1, 0;
    if (!strcmp(argv[*i], "--check"))
        return o->check = 1, 0;
    return error_set(err, "run: unknown option '%s'", argv[*i]);
}

static int parse_args(int argc, char **argv, run_opts *o, sam_error *err)
{
    memset(o, 0, sizeof *o);
    o->max_cycles = UINT64_MAX;
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
                              "[--impl TYPE=NAME]... [--config FILE] [--max-cycles N] [--quiet]");
    /* An expression that nothing uses would look like a passed check. */
    if (o->expr && !o->check && !o->tiling)
        return error_set(err, "run: --expr is the expression --check evaluates and --tile "
                              "splits; give one of them too");
    return 0;
}

static void free_opts(run_opts *o)
{
    sim_config_free(&o->file_settings);
    sim_config_free(&o->cli_settings);
    for (int i = 0; i < o->nbind; i++)
        free((char *)o->bind_name[i]);
}

/* A -t value that is a number binds a scalar. */
static int read_scalar(const char *v, tensor *t, sam_error *err)
{
    char *end;
    double x = strtod(v, &end);
    if (*end || end == v || !isfinite(x))
        return 1;
    if (tensor_init(t, 0, NULL, err) || tensor_append(t, NULL, x, err))
        return -1;
    return 0;
}

static int read_operand(const run_opts *o, const graph_tensor *gt, tensor *t, int *found,
                        sam_error *err)
{
    *found = 1;
    for (int i = 0; i < o->nbind; i++) {
        if (strcmp(o->bind_name[i], gt->name))
            continue;
        int rc = gt->format.nlevels == 0 ? read_scalar(o->bind_value[i], t, err) : 1;
        if (rc <= 0)
            return rc;
        tensor_file f = {.path = o->bind_value[i], .name = gt->name};
        return tensor_file_read(&f, t, err);
    }
    if (o->data) {
        tensor_file f = {.path = o->data, .name = gt->name};
        return tensor_file_read(&f, t, err);
    }
    *found = 0;
    return 0;
}

/* The SAM convention's operand: shift(prev), transposed when the operand's
 * first mode is scanned under the previous operand's last index, as the
 * second factor of a matrix product is. */
static int derive_shifted(const sam_graph *g, const graph_tensor *gt, const graph_tensor *prev,
                          const tensor *src, tensor *t, sam_error *err)
{
    if (tensor_shift(src, t, err))
        return -1;
    const char *first = graph_tensor_index(g, gt->name, 0);
    const char *last = graph_tensor_index(g, prev->name, src->order - 1);
    if (t->order != 2 || !first || !last || strcmp(first, last))
        return 0;
    int64_t *swap = t->crd[0];
    t->crd[0] = t->crd[1];
    t->crd[1] = swap;
    int64_t d = t->dims[0];
    t->dims[0] = t->dims[1];
    t->dims[1] = d;
    return tensor_canonicalize(t, NULL, err);
}

/* Reads operand k, or derives it by --shift from the one before. */
static int bind_one(const run_opts *o, const sam_graph *g, int k, tensor *operands,
                    sam_error *err)
{
    const graph_tensor *gt = &g->tensors[k];
    int found;
    if (read_operand(o, gt, &operands[k], &found, err))
        return -1;
    if (found)
        return 0;
    if (!o->shift || k < 2 || g->tensors[k - 1].format.nlevels == 0)
        return error_at(err, g->path, 0, "tensor %s is not bound to data (give -t %s=FILE, "
                        "--data DIR or --shift)", gt->name, gt->name);
    return derive_shifted(g, gt, &g->tensors[k - 1], &operands[k - 1], &operands[k], err);
}

/* Stores operand k as the graph's levels say. */
static int store_one(const sam_graph *g, int k, const tensor *t, sim_data *d, sam_error *err)
{
    const graph_tensor *gt = &g->tensors[k];
    if (t->order != gt->format.nlevels)
        return error_at(err, g->path, 0, "tensor %s has order %d, but the graph stores it in %d "
                        "levels", gt->name, t->order, gt->format.nlevels);
    return d ? sim_data_add(d, gt->name, t, &gt->format, err) : 0;
}

/* Whether the graph only writes tensor name (mat_mask_tri_fiberwrite also
 * stores an intermediate T): such a tensor is a second result, not an
 * operand to bind. */
static int written_only(const sam_graph *g, const char *name)
{
    for (int i = 0; i < g->nnodes; i++) {
        const char *t = graph_node_attr(&g->nodes[i], "tensor");
        if (t && !strcmp(t, name) && strcmp(g->nodes[i].type, "fiberwrite"))
            return 0;
    }
    return 1;
}

static int is_operand(const sam_graph *g, const char *name)
{
    for (int k = 1; k < g->ntensors; k++)
        if (!strcmp(g->tensors[k].name, name))
            return 1;
    return 0;
}

/* A -t for a name the graph lacks would be ignored, and with --shift a
 * misspelt operand would quietly be derived instead. */
static int check_bindings(const run_opts *o, const sam_graph *g, sam_error *err)
{
    for (int i = 0; i < o->nbind; i++) {
        if (is_operand(g, o->bind_name[i]))
            continue;
        char names[256] = "";
        size_t len = 0;
        for (int k = 1; k < g->ntensors && len < sizeof names; k++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                                    g->tensors[k].name);
        return error_at(err, g->path, 0, "-t %s: the graph has no operand %s (its operands: %s)",
                        o->bind_name[i], o->bind_name[i], len ? names : "none");
    }
    return 0;
}

/* The operands as the graph stores them: split into out (which the
 * caller frees) when it iterates splits, else operands themselves. */
static const tensor *graph_operands(const run_opts *o, const sam_graph *g, const tensor *operands,
                                    int64_t *dims, tensor **out, sam_error *err)
{
    *out = NULL;
    if (!o->splits)
        return operands;
    const char *names[64];
    int n = g->ntensors - 1 < 64 ? g->ntensors - 1 : 64;
    for (int k = 0; k < n; k++)
        names[k] = g->tensors[k + 1].name;
    *out = calloc((size_t)g->ntensors, sizeof **out);
    if (!*out)
        return error_set(err, "out of memory"), NULL;
    if (itersplit_operands(o->splits, names, operands + 1, n, *out + 1, dims, err)) {
        error_prefix(err, g->path);
        return NULL;
    }
    return *out;
}

static void free_operands(tensor *t, int n)
{
    for (int k = 0; t && k < n; k++)
        tensor_free(&t[k]);
    free(t);
}

/* Binds every operand; operands[k] keeps tensor k when it is checked.
 * Without d (a tiled run, which stores tiles instead) only the lists. */
static int bind_operands(const run_opts *o, const sam_graph *g, sim_data *d, tensor *operands,
                         int64_t *dims, sam_error *err)
{
    for (int k = 1; k < g->ntensors; k++)
        if (!written_only(g, g->tensors[k].name) && bind_one(o, g, k, operands, err))
            return -1;
    tensor *split;
    const tensor *stored = graph_operands(o, g, operands, dims, &split, err);
    int rc = !stored || check_bindings(o, g, err);
    for (int k = 1; !rc && k < g->ntensors; k++)
        rc = !written_only(g, g->tensors[k].name) && store_one(g, k, &stored[k], d, err);
    rc = rc || check_index_sizes(g, stored, err);
    free_operands(split, g->ntensors);
    if (rc)
        return -1;
    /* The simulation reads the level storage; the lists stay for --check. */
    for (int k = 0; k < g->ntensors && !o->check && d; k++)
        tensor_free(&operands[k]);
    return 0;
}

static int write_result(const run_opts *o, const sam_graph *g, const tensor *t, sam_error *err)
{
    char format[2 * TENSOR_MAX_ORDER + 1];
    level_format_str(&g->tensors[0].format, format, sizeof format);
    /* A split graph's format is the split tensor's: the joined result takes
     * the default. */
    int sam = tensor_file_kind_of(o->out) == TENSOR_FILE_SAMDIR && strcmp(o->out, "-") &&
              !o->splits;
    tensor_file f = {.path = o->out, .name = g->tensors[0].name, .format = sam ? format : NULL};
    return outputs_write_tensor(&f, t, err);
}

/* The run's --check, with the graph's operands. */
static int check_run(const run_opts *o, const sam_graph *g, const tensor *operands,
                     const tensor *result, char *verdict, size_t size, sam_error *err)
{
    const char *names[64];
    const tensor *ops[64];
    int n = 0;
    for (int k = 1; k < g->ntensors && n < 64; k++, n++) {
        names[n] = g->tensors[k].name;
        ops[n] = &operands[k];
    }
    return check_result(g->path, o->expr ? o->expr : graph_attr_get(g, "expr"), names, ops, n,
                        result, verdict, size, err);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* Progress of a long run, on a terminal only: one line, rewritten. */
#define PROGRESS_SECONDS 0.25

typedef struct progress {
    struct timespec start;
    double shown_at;
    int shown;
} progress;

static void show_progress(const sim_engine *e, cycle_t now, void *ctx)
{
    progress *p = ctx;
    double t = seconds_since(&p->start);
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

/* What the memories cost: the tiles' compute alone, DRAM bytes in all and
 * by tensor (read, and for the result written), and the time at the
 * clock. */
static void print_memory(FILE *f, const tiled_outcome *tiles, double cycles)
{
    const mem_model *m = tiles->memory;
    double dram = 0;
    for (int t = 0; t <= m->ntensors; t++)
        dram += m->traffic[t].read[HW_DRAM] + m->traffic[t].written[HW_DRAM];
    fprintf(f, "compute_cycles: %llu\ndram_bytes: %.0f\n",
            (unsigned long long)tiles->compute_cycles, dram);
    for (int t = 0; t <= m->ntensors; t++)
        fprintf(f, "traffic.%s: %.0f\n", tiles->names[t],
                m->traffic[t].read[HW_DRAM] + m->traffic[t].written[HW_DRAM]);
    fprintf(f, "seconds: %.9g\n", cycles / (m->hw.clock_ghz * 1e9));
    fprintf(f, "bound_cycles: %.0f\nbound_by: %s\n", ceil(time_bound_cycles(&tiles->bound)),
            bound_names[tiles->bound.by]);
    for (int c = 0; c < BOUND_COMPONENTS; c++)
        fprintf(f, "bound.%s: %.0f\n", bound_names[c], ceil(tiles->bound.cycles[c]));
}

/* tiles: NULL for a run without tiling. */
static void print_summary(const run_opts *o, const sim_outcome *out, const tiled_outcome *tiles,
                          const char *check, double wall)
{
    FILE *f = summary_stream(o);
    fprintf(f, "engine: %s\ncycles: %llu\ntokens: %llu\ncheck: %s\nwall_seconds: %.6f\n",
            engine_names[o->engine], (unsigned long long)out->cycles,
            (unsigned long long)out->tokens, check, wall);
    if (wall > 0)
        fprintf(f, "tokens_per_second: %.0f\n", (double)out->tokens / wall);
    if (tiles)
        fprintf(f, "tiles_run: %llu\ntiles_skipped: %.0f\n",
                (unsigned long long)tiles->tiles_run, tiles->tiles_skipped);
    if (tiles && tiles->memory)
        print_memory(f, tiles, (double)out->cycles);
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

/* What a run produced: checked, written, summarised, with its
 * statistics when --stats asks for them. Returns the exit status. */
static int deliver(const run_opts *o, const sam_graph *g, const tensor *operands,
                   const tensor *result, const sim_stats *stats, const sim_outcome *out,
                   const tiled_outcome *tiles, double wall, sam_error *err)
{
    char verdict[64] = "skipped";
    int mismatch = o->check ? check_run(o, g, operands, result, verdict, sizeof verdict, err)
                            : 0;
    if (mismatch >= 0 && o->out && write_result(o, g, result, err))
        mismatch = -1;
    if (mismatch >= 0 && stats && sim_stats_write_rows(stats, out->cycles, NULL, o->stats, err))
        mismatch = -1;
    if (mismatch >= 0) {
        print_summary(o, out, tiles, verdict, wall);
        print_result(o, g, result);
    }
    if (mismatch < 0)
        return 1;
    return mismatch ? 3 : 0;
}

/* The sinks' tensor as the expression's result: joined when the graph
 * iterates splits. */
static int result_tensor(const run_opts *o, const sim_engine *e, const sam_graph *g,
                         const sim_data *d, tensor *result, sam_error *err)
{
    fibertree ft;
    if (sim_result(e, g, d, &ft, err))
        return -1;
    tensor stored;
    int rc = fibertree_to_tensor(&ft, o->splits ? &stored : result, err);
    fibertree_free(&ft);
    if (rc || !o->splits)
        return rc;
    rc = itersplit_join(o->splits, &stored, o->split_dims, result, err);
    tensor_free(&stored);
    return rc ? error_prefix(err, g->path) : 0;
}

/* What a finished run produced: the sinks' tensor, delivered. */
static int finish(const run_opts *o, const sam_graph *g, const tensor *operands,
                  const sim_engine *e, const sim_data *d, const sim_outcome *out, double wall,
                  sam_error *err)
{
    tensor result;
    if (result_tensor(o, e, g, d, &result, err))
        return 1;
    sim_stats stats;
    int rc = o->stats && sim_stats_init(&stats, e, 1, err) ? 1 : 0;
    if (!rc && o->stats)
        sim_stats_add(&stats, e, 0, 0);
    if (!rc)
        rc = deliver(o, g, operands, &result, o->stats ? &stats : NULL, out, NULL, wall, err);
    if (o->stats)
        sim_stats_free(&stats);
    tensor_free(&result);
    return rc;
}

/* A run that cannot complete: the report, and the statistics so far so
 * that the stall can be inspected. Returns the exit status, 2. */
static int stalled(const run_opts *o, const sam_graph *g, const sim_engine *e,
                   const sim_outcome *out, const char *report, sam_error *err)
{
    fprintf(stderr, "samsim: %s: %s\n", g->path, report);
    const char *why = out->cycles >= o->max_cycles ? "stopped" : "deadlock";
    if (o->stats && sim_stats_write_incomplete(e, out->cycles, why, o->stats, err))
        return 1;
    if (o->stats)
        fprintf(stderr, "samsim: statistics up to cycle %llu (marked %s) in %s\n",
                (unsigned long long)out->cycles, why, o->stats);
    return 2;
}

/* Runs the engine and finishes; 2 when the run cannot complete. */
static int simulate(const run_opts *o, sam_graph *g, const tensor *operands,
                    const sim_data *d, sam_error *err)
{
    sim_engine e;
    sim_options sim = {.depth = 0, .latency = 1};
    if (sim_config_apply(&o->file_settings, g, &sim, err) ||
        sim_config_apply(&o->cli_settings, g, &sim, err) || sim_build(&e, g, d, &sim, err))
        return 1;
    progress shown = {.shown = 0};
    clock_gettime(CLOCK_MONOTONIC, &shown.start);
    if (!o->quiet && isatty(STDERR_FILENO)) {
        e.progress = show_progress;
        e.progress_ctx = &shown;
    }
    e.split = o->split;
    sim_outcome out;
    char report[2048];
    int rc = sim_engine_run(&e, o->engine, o->max_cycles, &out, report, sizeof report, err);
    double wall = seconds_since(&shown.start);
    clear_progress(&shown);
    if (rc > 0)
        rc = stalled(o, g, &e, &out, report, err);
    else
        rc = rc < 0 ? 1 : finish(o, g, operands, &e, d, &out, wall, err);
    sim_engine_free(&e);
    return rc;
}

/* A tiled run that cannot complete, as stalled() says of one run. */
static int tiled_stalled(const run_opts *o, const sam_graph *g, const tiled_outcome *t,
                         sam_error *err)
{
    fprintf(stderr, "samsim: %s: %s\n", g->path, t->report);
    if (o->stats && sim_stats_write_rows(t->stats, t->cycles, t->incomplete, o->stats, err))
        return 1;
    if (o->stats)
        fprintf(stderr, "samsim: statistics up to cycle %llu (marked %s) in %s\n",
                (unsigned long long)t->cycles, t->incomplete, o->stats);
    return 2;
}

/* The run tile by tile (run/tiled.h), delivered as a whole. */
static int simulate_tiled(const run_opts *o, sam_graph *g, const tensor *operands,
                          const char *tiling, sam_error *err)
{
    hw_desc hw;
    tiled_request r = {.tiling = tiling, .expr = o->expr ? o->expr : graph_attr_get(g, "expr"),
                       .engine = o->engine, .split = o->split, .max_cycles = o->max_cycles,
                       .sim = {.depth = 0, .latency = 1}, .hw = o->hw ? &hw : NULL,
                       .stats = o->stats != NULL};
    hw_defaults(&hw);
    if ((o->hw && hw_read(o->hw, &hw, err)) || sim_config_apply(&o->file_settings, g, &r.sim, err) ||
        sim_config_apply(&o->cli_settings, g, &r.sim, err))
        return 1;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    tiled_outcome tiles;
    tensor result;
    int ran = run_tiled(g, operands, &r, &tiles, &result, err);
    if (ran < 0)
        return 1;
    sim_outcome out = {.cycles = tiles.cycles, .tokens = tiles.tokens};
    int rc = ran ? tiled_stalled(o, g, &tiles, err)
                 : deliver(o, g, operands, &result, tiles.stats, &out, &tiles,
                           seconds_since(&start), err);
    tensor_free(&result);
    tiled_outcome_free(&tiles);
    return rc;
}

/* A tiled run needs what the graph computes; the memories carry tiles. */
static int check_tiling(const run_opts *o, const sam_graph *g, const char *tiling,
                        sam_error *err)
{
    if (!tiling)
        return o->hw ? error_set(err, "run: --hw models the memories tiles travel through; tile "
                                      "the run (--tile, or a graph compiled with -s=split)")
                     : 0;
    if (!o->expr && !graph_attr_get(g, "expr"))
        return error_at(err, g->path, 0, "a tiled run needs the expression: the graph records "
                        "none, give --expr");
    return 0;
}

/* Every file the run reads, against -o and --stats. */
static int check_outputs(const run_opts *o, const sam_graph *g, sam_error *err)
{
    io_file in[2 + 2 * RUN_MAX_BINDINGS + 64];
    int n = 0;
    in[n++] = (io_file){"graph", o->graph, NULL};
    for (int i = 0; i < o->nconfigs; i++)
        in[n++] = (io_file){"--config", o->configs[i], NULL};
    if (o->hw)
        in[n++] = (io_file){"--hw", o->hw, NULL};
    for (int i = 0; i < o->nbind; i++)
        in[n++] = (io_file){"-t", o->bind_value[i], o->bind_name[i]};
    for (int k = 1; k < g->ntensors && k <= 64 && o->data; k++)
        in[n++] = (io_file){"--data", o->data, g->tensors[k].name};
    const io_file out[] = {{"-o", o->out, g->tensors[0].name}, {"--stats", o->stats, NULL}};
    return outputs_check("run", in, n, out, 2, err);
}

/* The splits a graph iterates, read for the run; 1 when it has none. */
static int read_split(run_opts *o, const sam_graph *g, const char *tiling, itersplit *s,
                      sam_error *err)
{
    const char *commands = graph_attr_get(g, "itersplit");
    if (!commands)
        return 1;
    if (tiling)
        return error_at(err, g->path, 0, "the graph iterates %s; it cannot be tiled as well",
                        commands);
    const char *text = o->expr ? o->expr : graph_attr_get(g, "expr");
    if (!text)
        return error_at(err, g->path, 0, "the graph iterates %s but records no expression; "
                        "give --expr", commands);
    if (itersplit_read(text, commands, s, err))
        return error_prefix(err, g->path);
    o->splits = s;
    return 0;
}

int cmd_run(int argc, char **argv)
{
    run_opts o;
    sam_error err;
    sam_graph g;
    sim_data d = {0};
    itersplit split = {0};
    int64_t split_dims[EXPR_MAX_INDICES];
    if (argc > 0 && template_dir_is(argv[0]))
        return run_template(argc, argv);
    if (parse_args(argc, argv, &o, &err) || graph_read_dot(o.graph, &g, &err)) {
        free_opts(&o);
        return args_fail(&err);
    }
    o.split_dims = split_dims;
    tensor *operands = calloc((size_t)g.ntensors + 1, sizeof *operands);
    const char *tiling = o.tiling ? o.tiling : graph_attr_get(&g, "tiling");
    int rc = 1;
    if (!operands)
        error_set(&err, "out of memory");
    else if (g.ntensors == 0)
        error_at(&err, g.path, 0, "the graph names no tensors: its comment gives the result and "
                 "the operands with their formats, as Custard writes comment=\"X=ss01,B=ss01\"");
    else if (o.check && !o.expr && !graph_attr_get(&g, "expr"))
        error_at(&err, g.path, 0, "--check needs --expr: the graph records no expression");
    else if (check_tiling(&o, &g, tiling, &err) == 0 && check_outputs(&o, &g, &err) == 0 &&
             read_split(&o, &g, tiling, &split, &err) >= 0 &&
             bind_operands(&o, &g, tiling ? NULL : &d, operands, split_dims, &err) == 0)
        rc = tiling ? simulate_tiled(&o, &g, operands, tiling, &err)
                    : simulate(&o, &g, operands, &d, &err);
    if (rc == 1)
        args_fail(&err);
    for (int k = 0; operands && k < g.ntensors; k++)
        tensor_free(&operands[k]);
    free(operands);
    itersplit_free(&split);
    sim_data_free(&d);
    graph_free(&g);
    free_opts(&o);
    return rc;
}
