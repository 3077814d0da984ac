#include "graph_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../builder/build.h"
#include "../builder/result.h"
#include "../common/process.h"
#include "../custard/expr.h"
#include "../custard/itersplit.h"
#include "../formats/shift.h"
#include "../formats/tensor_file.h"
#include "check.h"

/* What a run reads besides r: the splits the graph iterates, when it does
 * (custard/itersplit.h): its operands are split before they are stored,
 * its result joined. */
typedef struct run_ctx {
    const graph_run_request *r;
    sam_graph *g;
    const char *expr, *tiling;
    itersplit split;
    const itersplit *splits;    /* &split, or NULL */
    int64_t split_dims[EXPR_MAX_INDICES];
    tensor *operands;           /* [g->ntensors]: kept for --check */
} run_ctx;

/* ---- the operands ------------------------------------------------------- */

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

static int read_operand(const graph_run_request *r, const graph_tensor *gt, tensor *t,
                        int *found, sam_error *err)
{
    *found = 1;
    for (int i = 0; i < r->nbind; i++) {
        if (strcmp(r->bind_name[i], gt->name))
            continue;
        int rc = gt->format.nlevels == 0 ? read_scalar(r->bind_value[i], t, err) : 1;
        if (rc <= 0)
            return rc;
        tensor_file f = {.path = r->bind_value[i], .name = gt->name};
        return tensor_file_read(&f, t, err);
    }
    if (r->data) {
        tensor_file f = {.path = r->data, .name = gt->name};
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
static int bind_one(const run_ctx *c, int k, sam_error *err)
{
    const sam_graph *g = c->g;
    const graph_tensor *gt = &g->tensors[k];
    int found;
    if (read_operand(c->r, gt, &c->operands[k], &found, err))
        return -1;
    if (found)
        return 0;
    if (!c->r->shift || k < 2 || g->tensors[k - 1].format.nlevels == 0)
        return error_at(err, g->path, 0, "tensor %s is not bound to data (give -t %s=FILE, "
                        "--data DIR or --shift)", gt->name, gt->name);
    return derive_shifted(g, gt, &g->tensors[k - 1], &c->operands[k - 1], &c->operands[k], err);
}

/* Stores operand k as the graph's levels say; when taking, of t's
 * entries, which it is left without (its shape stays, for the checks of
 * sizes), so that the list and the levels are not both held whole. */
static int store_one(const sam_graph *g, int k, tensor *t, int taking, sim_data *d,
                     sam_error *err)
{
    const graph_tensor *gt = &g->tensors[k];
    if (t->order != gt->format.nlevels)
        return error_at(err, g->path, 0, "tensor %s has order %d, but the graph stores it in %d "
                        "levels", gt->name, t->order, gt->format.nlevels);
    if (!d || !taking)
        return d ? sim_data_add(d, gt->name, t, &gt->format, err) : 0;
    fibertree ft;
    if (fibertree_build_taking(t, &gt->format, &ft, err))
        return error_wrap(err, "tensor %s", gt->name);
    if (sim_data_adopt(d, gt->name, &ft, err)) {
        fibertree_free(&ft);
        return -1;
    }
    return 0;
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
static int check_bindings(const graph_run_request *r, const sam_graph *g, sam_error *err)
{
    for (int i = 0; i < r->nbind; i++) {
        if (is_operand(g, r->bind_name[i]))
            continue;
        char names[256] = "";
        size_t len = 0;
        for (int k = 1; k < g->ntensors && len < sizeof names; k++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                                    g->tensors[k].name);
        return error_at(err, g->path, 0, "-t %s: the graph has no operand %s (its operands: %s)",
                        r->bind_name[i], r->bind_name[i], len ? names : "none");
    }
    return 0;
}

static void free_operands(tensor *t, int n)
{
    for (int k = 0; t && k < n; k++)
        tensor_free(&t[k]);
    free(t);
}

/* The operands as the graph stores them: split into out (which the
 * caller frees) when it iterates splits, else the operands themselves. */
static tensor *graph_operands(run_ctx *c, tensor **out, sam_error *err)
{
    const sam_graph *g = c->g;
    *out = NULL;
    if (!c->splits)
        return c->operands;
    const char *names[64];
    int n = g->ntensors - 1 < 64 ? g->ntensors - 1 : 64;
    for (int k = 0; k < n; k++)
        names[k] = g->tensors[k + 1].name;
    *out = calloc((size_t)g->ntensors, sizeof **out);
    if (!*out)
        return error_set(err, "out of memory"), NULL;
    if (itersplit_operands(c->splits, names, c->operands + 1, n, *out + 1, c->split_dims, err)) {
        error_prefix(err, g->path);
        return NULL;
    }
    return *out;
}

/* Reads and stores each operand in turn, its list dropped once it is
 * stored (with --shift, once the next is derived from it), so that one
 * operand is held as a list at a time: a run without --check, tiles or
 * splits, which need the lists. */
static int bind_streamed(run_ctx *c, sim_data *d, sam_error *err)
{
    const sam_graph *g = c->g;
    int before = 0;
    for (int k = 1; k < g->ntensors; k++) {
        if (written_only(g, g->tensors[k].name))
            continue;
        if (bind_one(c, k, err))
            return -1;
        if (before)
            tensor_drop_entries(&c->operands[before]);
        if (store_one(g, k, &c->operands[k], !c->r->shift, d, err))
            return -1;
        before = k;
    }
    if (before)
        tensor_drop_entries(&c->operands[before]);
    return check_index_sizes(g, c->operands, err);
}

/* Binds every operand; c->operands[k] keeps tensor k when it is checked.
 * Without d (a tiled run, which stores tiles instead) only the lists. */
static int bind_operands(run_ctx *c, sim_data *d, sam_error *err)
{
    const sam_graph *g = c->g;
    if (check_bindings(c->r, g, err))
        return -1;
    if (d && !c->splits && !c->r->check)
        return bind_streamed(c, d, err);
    for (int k = 1; k < g->ntensors; k++)
        if (!written_only(g, g->tensors[k].name) && bind_one(c, k, err))
            return -1;
    tensor *split;
    tensor *stored = graph_operands(c, &split, err);
    int rc = !stored, taking = split || !c->r->check;
    for (int k = 1; !rc && k < g->ntensors; k++)
        rc = !written_only(g, g->tensors[k].name) &&
             store_one(g, k, &stored[k], taking, d, err);
    rc = rc || check_index_sizes(g, stored, err);
    free_operands(split, g->ntensors);
    if (rc)
        return -1;
    /* The simulation reads the level storage; the lists stay for --check. */
    for (int k = 0; k < g->ntensors && !c->r->check && d; k++)
        tensor_free(&c->operands[k]);
    return 0;
}

/* ---- the outcome -------------------------------------------------------- */

/* The run's --check: 1 when the result is wrong, the verdict set. */
static int check_run(const run_ctx *c, const tensor *result, char *verdict, size_t size,
                     sam_error *err)
{
    const char *names[64];
    const tensor *ops[64];
    int n = 0;
    for (int k = 1; k < c->g->ntensors && n < 64; k++, n++) {
        names[n] = c->g->tensors[k].name;
        ops[n] = &c->operands[k];
    }
    return check_result(c->g->path, c->expr, names, ops, n, result, verdict, size, err);
}

/* What the memories cost: the tiles' compute alone, DRAM bytes in all and
 * by tensor (read, and for the result written), and the time at the
 * clock. */
static void record_memory(outcome *rec, const tiled_outcome *tiles, double cycles)
{
    const mem_model *m = tiles->memory;
    double dram = 0;
    for (int t = 0; t <= m->ntensors; t++)
        dram += m->traffic[t].read[HW_DRAM] + m->traffic[t].written[HW_DRAM];
    outcome_set(rec, "compute_cycles", "%llu", (unsigned long long)tiles->compute_cycles);
    outcome_set(rec, "dram_bytes", "%.0f", dram);
    for (int t = 0; t <= m->ntensors; t++) {
        char key[96];
        snprintf(key, sizeof key, "traffic.%s", tiles->names[t]);
        outcome_set(rec, key, "%.0f",
                    m->traffic[t].read[HW_DRAM] + m->traffic[t].written[HW_DRAM]);
    }
    outcome_set(rec, "seconds", "%.9g", cycles / (m->hw.clock_ghz * 1e9));
    outcome_set(rec, "bound_cycles", "%.0f", ceil(time_bound_cycles(&tiles->bound)));
    outcome_set(rec, "bound_by", "%s", bound_names[tiles->bound.by]);
    for (int b = 0; b < BOUND_COMPONENTS; b++) {
        char key[96];
        snprintf(key, sizeof key, "bound.%s", bound_names[b]);
        outcome_set(rec, key, "%.0f", ceil(tiles->bound.cycles[b]));
    }
}

/* The summary's fields; tiles NULL for a run without tiling. */
static void record_run(graph_run *run, const graph_run_request *r, const sim_outcome *out,
                       const tiled_outcome *tiles, const char *verdict, double wall)
{
    outcome *rec = &run->record;
    outcome_set(rec, "engine", "%s", engine_names[r->engine]);
    outcome_set(rec, "cycles", "%llu", (unsigned long long)out->cycles);
    outcome_set(rec, "tokens", "%llu", (unsigned long long)out->tokens);
    outcome_set(rec, "check", "%s", verdict);
    outcome_set(rec, "wall_seconds", "%.6f", wall);
    if (wall > 0)
        outcome_set(rec, "tokens_per_second", "%.0f", (double)out->tokens / wall);
    if (tiles) {
        outcome_set(rec, "tiles_run", "%llu", (unsigned long long)tiles->tiles_run);
        outcome_set(rec, "tiles_skipped", "%.0f", tiles->tiles_skipped);
    }
    if (tiles && tiles->memory)
        record_memory(rec, tiles, (double)out->cycles);
}

/* A completed run: its result checked and its fields recorded. */
static int complete(run_ctx *c, graph_run *run, const sim_outcome *out,
                    const tiled_outcome *tiles, double wall, sam_error *err)
{
    char verdict[64] = "skipped";
    int wrong = c->r->check ? check_run(c, &run->result, verdict, sizeof verdict, err) : 0;
    if (wrong < 0)
        return -1;
    run->status = wrong ? 3 : 0;
    run->cycles = out->cycles;
    record_run(run, c->r, out, tiles, verdict, wall);
    return outcome_done(&run->record, c->g->path, err);
}

/* ---- simulation --------------------------------------------------------- */

/* The sinks' tensor as the expression's result, joined when the graph
 * iterates splits. The engine and the operands' levels go once the
 * result tree holds what the writers wrote, and the tensor takes the
 * tree's arrays where it can, so that the result is held about once. */
static int result_tensor(const run_ctx *c, sim_engine *e, sim_data *d, tensor *result,
                         sam_error *err)
{
    fibertree ft;
    int rc = sim_result(e, c->g, d, &ft, err);
    sim_engine_free(e);
    sim_data_free(d);
    if (rc)
        return -1;
    tensor stored;
    rc = fibertree_to_tensor_taking(&ft, c->splits ? &stored : result, err);
    if (rc || !c->splits)
        return rc;
    rc = itersplit_join(c->splits, &stored, c->split_dims, result, err);
    tensor_free(&stored);
    return rc ? error_prefix(err, c->g->path) : 0;
}

/* The engine's statistics, kept when asked for (also of a run that
 * stopped, to inspect the stall). */
static int keep_stats(const run_ctx *c, const sim_engine *e, graph_run *run, sam_error *err)
{
    if (!c->r->stats)
        return 0;
    if (sim_stats_init(&run->own_stats, e, 1, err))
        return -1;
    sim_stats_add(&run->own_stats, e, 0, 0);
    run->stats = &run->own_stats;
    return 0;
}

/* The settings files' first, then the command line's, which win. */
static int apply_settings(const run_ctx *c, sim_options *sim, sam_error *err)
{
    return (c->r->file_settings && sim_config_apply(c->r->file_settings, c->g, sim, err)) ||
                   (c->r->cli_settings && sim_config_apply(c->r->cli_settings, c->g, sim, err))
               ? -1
               : 0;
}

/* The name of the output port of block b that feeds channel c. */
static const char *out_port_name(const block *b, const channel *c)
{
    int p = 0;
    while (b->out[p].ch != c)
        p++;
    return b->out_names[p];
}

/* The counter of input port p of block b, over a run of `cycles`. */
static int keep_counter(const sim_engine *e, const block *b, int p, cycle_t cycles,
                        trace_counter *c)
{
    const channel *ch = b->in[p].ch;
    const block *producer = &e->blocks[ch->producer];
    *c = (trace_counter){.producer = producer->node, .reader = b->node};
    c->token_cycles = queue_trace_occupancy(ch->trace, b->in[p].reader, cycles, &c->width,
                                            &c->nbuckets);
    return !c->token_cycles ||
                   trace_counter_name(c, ch->id, out_port_name(producer, ch), b->in_names[p])
               ? -1
               : 0;
}

/* Takes e's timelines into run, a track per block, with the queues of
 * its inputs over a run of `cycles`. */
static int keep_trace(sim_engine *e, cycle_t cycles, graph_run *run, sam_error *err)
{
    int n = 0;
    for (int i = 0; i < e->nblocks; i++)
        for (int p = 0; p < e->blocks[i].nin; p++)
            n += e->blocks[i].in[p].ch && e->blocks[i].in[p].ch->trace;
    run->tracks = calloc((size_t)e->nblocks + 1, sizeof *run->tracks);
    run->counters = calloc((size_t)n + 1, sizeof *run->counters);
    if (!run->tracks || !run->counters)
        return error_set(err, "out of memory");
    run->traces = e->traces;
    e->traces = NULL;
    run->ntracks = e->nblocks;
    for (int i = 0; i < e->nblocks; i++) {
        const block *b = &e->blocks[i];
        run->tracks[i] = (trace_track){b->node, &run->traces[i], run->counters + run->ncounters, 0};
        for (int p = 0; p < b->nin; p++) {
            if (!b->in[p].ch || !b->in[p].ch->trace)
                continue;
            if (keep_counter(e, b, p, cycles, &run->counters[run->ncounters++]))
                return error_set(err, "out of memory");
            run->tracks[i].ncounters++;
        }
    }
    return 0;
}

/* One run of the whole graph on the engine. */
static int simulate(run_ctx *c, sim_data *d, graph_run *run, sam_error *err)
{
    sim_engine e;
    sim_options sim = {.depth = 0, .latency = 1};
    if (apply_settings(c, &sim, err) || sim_build(&e, c->g, d, &sim, err))
        return -1;
    if (c->r->trace && sim_engine_trace(&e)) {
        sim_engine_free(&e);
        return error_set(err, "out of memory");
    }
    e.progress = c->r->progress;
    e.progress_ctx = c->r->progress_ctx;
    e.split = c->r->split;
    sim_outcome out;
    double start = process_seconds();
    int rc = sim_engine_run(&e, c->r->engine, c->r->max_cycles, &out, run->report,
                            sizeof run->report, err);
    double wall = process_seconds() - start;
    if (rc >= 0 && (keep_stats(c, &e, run, err) ||
                    (c->r->trace && keep_trace(&e, out.cycles, run, err))))
        rc = -1;
    if (rc > 0) {
        run->status = 2;
        run->cycles = out.cycles;
        run->incomplete = out.cycles >= c->r->max_cycles ? "stopped" : "deadlock";
        rc = 0;
    } else if (rc == 0) {
        rc = result_tensor(c, &e, d, &run->result, err) ||
                     complete(c, run, &out, NULL, wall, err) ? -1 : 0;
    }
    sim_engine_free(&e);
    return rc;
}

/* The run tile by tile (tiled.h). */
static int simulate_tiled(run_ctx *c, graph_run *run, sam_error *err)
{
    const graph_run_request *r = c->r;
    tiled_request t = {.tiling = c->tiling, .expr = c->expr, .engine = r->engine,
                       .split = r->split, .max_cycles = r->max_cycles,
                       .sim = {.depth = 0, .latency = 1}, .hw = r->hw, .stats = r->stats,
                       .trace = r->trace ? HW_TRACE_SLICES : 0};
    if (apply_settings(c, &t.sim, err))
        return -1;
    double start = process_seconds();
    int ran = run_tiled(c->g, c->operands, &t, &run->tiles, &run->result, err);
    if (ran < 0)
        return -1;
    run->tiled = 1;
    run->stats = run->tiles.stats;
    if (ran) {
        run->status = 2;
        run->cycles = run->tiles.cycles;
        run->incomplete = run->tiles.incomplete;
        snprintf(run->report, sizeof run->report, "%s", run->tiles.report);
        return 0;
    }
    sim_outcome out = {.cycles = run->tiles.cycles, .tokens = run->tiles.tokens};
    return complete(c, run, &out, &run->tiles, process_seconds() - start, err);
}

/* ---- the run ------------------------------------------------------------ */

/* A tiled run needs what the graph computes; the memories carry tiles. */
static int check_tiling(const run_ctx *c, sam_error *err)
{
    if (!c->tiling)
        return c->r->hw ? error_set(err, "run: --hw models the memories tiles travel through; "
                                         "tile the run (--tile, or a graph compiled with "
                                         "-s=split)")
                        : 0;
    if (!c->expr)
        return error_at(err, c->g->path, 0, "a tiled run needs the expression: the graph "
                        "records none, give --expr");
    return 0;
}

/* The splits the graph iterates, read for the run. */
static int read_split(run_ctx *c, sam_error *err)
{
    const sam_graph *g = c->g;
    const char *commands = graph_attr_get(g, "itersplit");
    if (!commands)
        return 0;
    if (c->tiling)
        return error_at(err, g->path, 0, "the graph iterates %s; it cannot be tiled as well",
                        commands);
    if (!c->expr)
        return error_at(err, g->path, 0, "the graph iterates %s but records no expression; "
                        "give --expr", commands);
    if (itersplit_read(c->expr, commands, &c->split, err))
        return error_prefix(err, g->path);
    c->splits = &c->split;
    return 0;
}

/* Whether the graph and the request make a run at all. */
static int check_request(const run_ctx *c, sam_error *err)
{
    if (c->g->ntensors == 0)
        return error_at(err, c->g->path, 0, "the graph names no tensors: its comment gives the "
                        "result and the operands with their formats, as Custard writes "
                        "comment=\"X=ss01,B=ss01\"");
    if (c->r->check && !c->expr)
        return error_at(err, c->g->path, 0, "--check needs --expr: the graph records no "
                        "expression");
    if (c->r->trace_blocks && c->tiling)
        return error_set(err, "run: --trace-blocks picks blocks' tracks; this run is tiled, and "
                         "its trace has the PEs' and the links' tracks instead");
    return check_tiling(c, err);
}

/* The format the result takes in a SAM directory. */
static void result_format(const run_ctx *c, graph_run *run)
{
    if (c->splits)
        run->result_format[0] = '\0';
    else
        level_format_str(&c->g->tensors[0].format, run->result_format,
                         sizeof run->result_format);
}

int graph_run_do(sam_graph *g, const graph_run_request *r, graph_run *run, sam_error *err)
{
    memset(run, 0, sizeof *run);
    run_ctx c = {.r = r, .g = g, .expr = r->expr ? r->expr : graph_attr_get(g, "expr"),
                 .tiling = r->tiling ? r->tiling : graph_attr_get(g, "tiling")};
    sim_data d = {0};
    int rc = check_request(&c, err) || read_split(&c, err) ? -1 : 0;
    if (!rc && !(c.operands = calloc((size_t)g->ntensors + 1, sizeof *c.operands)))
        rc = error_set(err, "out of memory");
    if (!rc)
        rc = bind_operands(&c, c.tiling ? NULL : &d, err);
    if (!rc) {
        result_format(&c, run);
        rc = c.tiling ? simulate_tiled(&c, run, err) : simulate(&c, &d, run, err);
    }
    free_operands(c.operands, g->ntensors);
    itersplit_free(&c.split);
    sim_data_free(&d);
    return rc;
}

int graph_run_write_trace(const graph_run *run, const char *name, const trace_options *o,
                          const char *path, sam_error *err)
{
    if (!run->tiled)
        return trace_json_write(run->tracks, run->ntracks, name, run->cycles, o, path, err);
    const mem_model *m = run->tiles.memory;
    trace_hw_process p = {name, NULL, run->tiles.trace, run->cycles, m ? m->hw.clock_ghz : 0};
    return trace_hw_write(&p, 1, o, path, err);
}

void graph_run_free(graph_run *run)
{
    outcome_free(&run->record);
    tensor_free(&run->result);
    if (run->stats == &run->own_stats)
        sim_stats_free(&run->own_stats);
    if (run->tiled)
        tiled_outcome_free(&run->tiles);
    for (int i = 0; run->traces && i < run->ntracks; i++)
        block_trace_free(&run->traces[i]);
    free(run->traces);
    free(run->tracks);
    for (int i = 0; i < run->ncounters; i++) {
        free(run->counters[i].name);
        free(run->counters[i].token_cycles);
    }
    free(run->counters);
    memset(run, 0, sizeof *run);
}
