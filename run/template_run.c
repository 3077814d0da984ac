/* A template's phases run in memory (template_run.h). */
#include "template_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/fibertree.h"
#include "check.h"

void trun_init(trun *r, engine_mode engine, int stats)
{
    memset(r, 0, sizeof *r);
    r->engine = engine;
    r->stats = stats;
}

static trun_tensor *tensor_named(trun *r, const char *name)
{
    for (int i = 0; i < r->ntensors; i++)
        if (!strcmp(r->tensor[i].name, name))
            return &r->tensor[i];
    return NULL;
}

/* A new tensor of r: a name r holds already would give the summary two
 * lines of one key and a phase the wrong operand. */
static trun_tensor *tensor_add(trun *r, const char *name, sam_error *err)
{
    if (tensor_named(r, name))
        return error_set(err, "tensor %s is both an operand and a result, or the result of two "
                         "phases", name), NULL;
    if (r->ntensors == TRUN_MAX_TENSORS || strlen(name) >= sizeof r->tensor[0].name)
        return error_set(err, "too many tensors or too long a name (%s)", name), NULL;
    trun_tensor *t = &r->tensor[r->ntensors++];
    memset(t, 0, sizeof *t);
    memcpy(t->name, name, strlen(name));
    return t;
}

int trun_bind(trun *r, const char *name, tensor *t, sam_error *err)
{
    trun_tensor *x = tensor_add(r, name, err);
    if (!x)
        return -1;
    x->operand = 1;
    x->t = *t;
    memset(t, 0, sizeof *t);
    return 0;
}

/* The phase's operands by graph tensor, from those bound or made. */
static int phase_operands(trun *r, const sam_graph *g, tensor *ops, sam_error *err)
{
    for (int k = 1; k < g->ntensors; k++) {
        trun_tensor *t = tensor_named(r, g->tensors[k].name);
        if (!t)
            return error_at(err, g->path, 0, "tensor %s is not bound (give -t %s=FILE)",
                            g->tensors[k].name, g->tensors[k].name);
        if (t->t.order != g->tensors[k].format.nlevels)
            return error_at(err, g->path, 0, "tensor %s has order %d, but the graph stores it "
                            "in %d levels", t->name, t->t.order, g->tensors[k].format.nlevels);
        ops[k] = t->t;
    }
    return check_index_sizes(g, ops, err);
}

static size_t count_zeros(const tensor *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nnz; i++)
        n += t->vals[i] == 0;
    return n;
}

/* Takes t's explicit zeros out, keeping the order of the rest. */
static void drop_zeros(tensor *t)
{
    size_t kept = 0;
    for (size_t i = 0; i < t->nnz; i++) {
        if (t->vals[i] == 0)
            continue;
        for (int m = 0; m < t->order; m++)
            t->crd[m][kept] = t->crd[m][i];
        t->vals[kept++] = t->vals[i];
    }
    t->nnz = kept;
}

/* t's bytes in format f, or the layout the hardware stores it in, at hw's
 * sizes, its explicit zeros left out. */
static int bytes_once(const tensor *t, const char *name, const level_format *f,
                      const hw_desc *hw, double *bytes, sam_error *err)
{
    tensor copy;
    const tensor *stored = t;
    const storage_layout *layout = hw_layout_of(hw, name);
    if (count_zeros(t)) {
        if (tensor_copy(&copy, t, err))
            return -1;
        drop_zeros(&copy);
        stored = &copy;
    }
    fibertree ft;
    int rc;
    if (layout)
        rc = storage_layout_tensor_bytes(layout, f, stored, hw->bytes_crd, hw->bytes_ref,
                                         hw->bytes_val, bytes, err);
    else if (!(rc = fibertree_build(stored, f, &ft, err))) {
        *bytes = fibertree_bytes(&ft, hw->bytes_crd, hw->bytes_ref, hw->bytes_val);
        fibertree_free(&ft);
    }
    if (stored == &copy)
        tensor_free(&copy);
    return rc;
}

/* What a phase moved to and from DRAM, by tensor; an operand's bytes as
 * DRAM stores it (its tiles' sum, or in its layout or format) the first
 * time a phase reads it. */
static int account(trun *r, const sam_graph *g, const tiled_outcome *o, trun_tensor *res,
                   sam_error *err)
{
    const mem_model *m = o->memory;
    for (int k = 1; k < g->ntensors; k++) {
        trun_tensor *t = tensor_named(r, g->tensors[k].name);
        t->traffic += m->traffic[k - 1].read[HW_DRAM];
        if (t->operand && t->once == 0 && o->stored[k - 1] > 0)
            t->once = o->stored[k - 1];
        else if (t->operand && t->once == 0 &&
                 bytes_once(&t->t, t->name, &g->tensors[k].format, &m->hw, &t->once, err))
            return -1;
    }
    const mem_traffic *z = &m->traffic[m->ntensors];
    res->traffic += z->written[HW_DRAM] + z->read[HW_DRAM];
    res->read_back += z->read[HW_DRAM];
    res->zeros = o->zeros + count_zeros(&res->t);
    return bytes_once(&res->t, res->name, &g->tensors[0].format, &m->hw, &res->once, err);
}

static void add_totals(trun *r, const trun_phase *p, const hw_desc *hw)
{
    const mem_model *m = p->out.memory;
    r->cycles += p->cycles;
    r->seconds += (double)p->cycles / (hw->clock_ghz * 1e9);
    double bound = ceil(time_bound_cycles(&p->out.bound));
    r->bound_cycles += bound;
    for (int c = 0; c < BOUND_COMPONENTS; c++)
        r->bound_part[c] += ceil(p->out.bound.cycles[c]);
    r->bound_seconds += bound / (hw->clock_ghz * 1e9);
    r->tokens += p->out.tokens;
    r->pe_busy += m->usage[HW_PE].busy;
    r->pe_units += (double)m->npe * (double)p->cycles;
    r->dram_busy += m->usage[HW_DRAM].busy;
}

/* "DIR/merge.gv: the merge phase: PROBLEM", whether or not the problem
 * named the graph already. */
static int name_phase(const sam_graph *g, const char *name, sam_error *err)
{
    char problem[sizeof err->msg];
    size_t len = g->path ? strlen(g->path) : 0;
    const char *msg = err->msg;
    if (len && !strncmp(msg, g->path, len) && !strncmp(msg + len, ": ", 2))
        msg += len + 2;
    snprintf(problem, sizeof problem, "%s", msg);
    if (len)
        return error_at(err, g->path, 0, "the %s phase: %s", name, problem);
    return error_set(err, "the %s phase: %s", name, problem);
}

static int run_graph(trun *r, trun_phase *p, const sam_graph *g, const char *tiling,
                     const hw_desc *hw, int last, sam_error *err)
{
    const char *expr = graph_attr_get(g, "expr");
    if (!tiling)
        tiling = graph_attr_get(g, "tiling");
    if (!tiling || !expr || g->ntensors == 0)
        return error_at(err, g->path, 0, "a template's graph records its tiling, expression "
                        "and tensors");
    tensor *ops = calloc((size_t)g->ntensors, sizeof *ops);
    if (!ops)
        return error_set(err, "out of memory");
    trun_tensor *res = NULL;
    tensor result;
    int rc = phase_operands(r, g, ops, err);
    if (!rc) {
        tiled_request req = {.tiling = tiling, .expr = expr, .engine = r->engine,
                             .max_cycles = UINT64_MAX, .sim = {.depth = 0, .latency = 1},
                             .hw = hw, .stats = r->stats, .drop_zeros = last,
                             .trace = r->trace};
        rc = run_tiled(g, ops, &req, &p->out, &result, err);
    }
    free(ops);
    if (rc)
        return -1;
    p->cycles = p->out.cycles;
    if (!(res = tensor_add(r, g->tensors[0].name, err))) {
        tensor_free(&result);
        return -1;
    }
    res->t = result;
    if (account(r, g, &p->out, res, err))
        return -1;
    add_totals(r, p, hw);
    return 0;
}

int trun_run_phase(trun *r, const char *name, const sam_graph *g, const char *tiling,
                   const hw_desc *hw, int last, sam_error *err)
{
    if (r->nphases == TEMPLATE_MAX_PHASES)
        return error_set(err, "at most %d phases", TEMPLATE_MAX_PHASES);
    trun_phase *p = &r->phase[r->nphases++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    return run_graph(r, p, g, tiling, hw, last, err) ? name_phase(g, name, err) : 0;
}

int trun_run_plan(trun *r, const template_plan *plan, const sam_graph *graphs, sam_error *err)
{
    for (int i = 0; i < plan->nphases; i++) {
        const template_phase *p = &plan->phase[i];
        hw_desc hw;
        hw_defaults(&hw);
        if (hw_read_text(p->name, p->hw, &hw, err) ||
            trun_run_phase(r, p->name, &graphs[i], p->tiling, &hw, i == plan->nphases - 1, err))
            return -1;
    }
    return 0;
}

trun_tensor *trun_result(trun *r)
{
    if (!r->nphases || r->tensor[r->ntensors - 1].operand)
        return NULL;
    trun_tensor *z = &r->tensor[r->ntensors - 1];
    drop_zeros(&z->t);
    return z;
}

int trun_check(trun *r, const char *path, const char *expr, char *verdict, size_t size,
               sam_error *err)
{
    const char *names[TRUN_MAX_TENSORS];
    const tensor *ops[TRUN_MAX_TENSORS];
    int n = 0;
    trun_tensor *z = trun_result(r);
    if (!z)
        return error_set(err, "%s: no phase ran", path);
    for (int i = 0; i < r->ntensors; i++)
        if (r->tensor[i].operand) {
            names[n] = r->tensor[i].name;
            ops[n++] = &r->tensor[i].t;
        }
    return check_result(path, expr, names, ops, n, &z->t, verdict, size, err);
}

double trun_traffic_min(const trun *r)
{
    double min = 0;
    for (int i = 0; i < r->ntensors; i++)
        if (r->tensor[i].operand || i == r->ntensors - 1)
            min += r->tensor[i].once;
    return min;
}

double trun_dram_bytes(const trun *r)
{
    double dram = 0;
    for (int i = 0; i < r->ntensors; i++)
        dram += r->tensor[i].traffic;
    return dram;
}

int trun_run_dir(trun *r, const template_dir *d, sam_error *err)
{
    for (int p = 0; p < d->nphases; p++)
        if (trun_run_phase(r, d->phase[p], &d->g[p], NULL, &d->hw[p], p == d->nphases - 1,
                           err))
            return -1;
    return 0;
}

static void record_traffic(outcome *o, const trun *r, const trun_tensor *z)
{
    char key[96];
    for (int i = 0; i < r->ntensors; i++)
        if (&r->tensor[i] != z) {
            snprintf(key, sizeof key, "traffic.%s", r->tensor[i].name);
            outcome_set(o, key, "%.0f", r->tensor[i].traffic);
        }
    outcome_set(o, "traffic.PO", "%.0f", 2 * z->read_back);
    snprintf(key, sizeof key, "traffic.%s", z->name);
    outcome_set(o, key, "%.0f", z->traffic - 2 * z->read_back);
    outcome_set(o, "traffic_min", "%.0f", trun_traffic_min(r));
    outcome_set(o, "dram_bytes", "%.0f", trun_dram_bytes(r));
    outcome_set(o, "zeros_written", "%zu", z->zeros);
}

void trun_record(trun *r, const char *template_name, const char *verdict, double wall,
                 outcome *o)
{
    char key[96];
    trun_tensor *z = trun_result(r);
    outcome_set(o, "template", "%s", template_name);
    outcome_set(o, "engine", "%s", engine_names[r->engine]);
    for (int i = 0; r->nphases > 1 && i < r->nphases; i++) {
        snprintf(key, sizeof key, "cycles.%s", r->phase[i].name);
        outcome_set(o, key, "%llu", (unsigned long long)r->phase[i].cycles);
    }
    outcome_set(o, "cycles", "%llu", (unsigned long long)r->cycles);
    outcome_set(o, "seconds", "%.9g", r->seconds);
    outcome_set(o, "bound_cycles", "%.0f", r->bound_cycles);
    outcome_set(o, "bound_seconds", "%.9g", r->bound_seconds);
    for (int i = 0; i < r->nphases; i++) {
        snprintf(key, sizeof key, r->nphases > 1 ? "bound_by.%s" : "bound_by", r->phase[i].name);
        outcome_set(o, key, "%s", bound_names[r->phase[i].out.bound.by]);
    }
    for (int c = 0; c < BOUND_COMPONENTS; c++) {
        snprintf(key, sizeof key, "bound.%s", bound_names[c]);
        outcome_set(o, key, "%.0f", r->bound_part[c]);
    }
    outcome_set(o, "tokens", "%llu", (unsigned long long)r->tokens);
    outcome_set(o, "check", "%s", verdict);
    outcome_set(o, "wall_seconds", "%.6f", wall);
    record_traffic(o, r, z);
    outcome_set(o, "pe_busy", "%.4f", r->pe_units > 0 ? r->pe_busy / r->pe_units : 0);
    outcome_set(o, "dram_busy", "%.4f", r->cycles ? r->dram_busy / (double)r->cycles : 0);
}

int trun_write_trace(const trun *r, const char *template_name, const trace_options *o,
                     const char *path, sam_error *err)
{
    trace_hw_process p[TEMPLATE_MAX_PHASES];
    char names[TEMPLATE_MAX_PHASES][sizeof r->phase[0].name + 96];
    for (int i = 0; i < r->nphases; i++) {
        const trun_phase *ph = &r->phase[i];
        snprintf(names[i], sizeof names[i], "%s: %s phase", template_name, ph->name);
        p[i] = (trace_hw_process){names[i], ph->name, ph->out.trace, ph->cycles,
                                  ph->out.memory->hw.clock_ghz};
    }
    return trace_hw_write(p, r->nphases, o, path, err);
}

void trun_free(trun *r)
{
    for (int i = 0; i < r->nphases; i++)
        tiled_outcome_free(&r->phase[i].out);
    for (int i = 0; i < r->ntensors; i++)
        tensor_free(&r->tensor[i].t);
    r->nphases = r->ntensors = 0;
}
