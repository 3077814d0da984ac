/* spaccumulator, orders 1 and 2 (SAM-BLOCKS.md 5.13, 5.16-5.18): sums the
 * values of equal (outer, inner) points and emits them as a two-level
 * coordinate stream in (outer, inner) order. Order 1 sums each run of equal
 * outer coordinates and emits it when the run ends; order 2 buffers the
 * whole input and emits it after 'D'.
 *
 * The DOT graphs feed this block crdhold outputs and values that still
 * carry stop tokens; the reference's tests put a StknDrop in front of each
 * input instead. The block therefore starts with those three StknDrops,
 * cycle for cycle: a token taken from an input in cycle t reaches the
 * accumulator's FIFO in cycle t+1. Then come the point accumulator and the
 * CrdPtConverter, stepped in the same cycle as in the reference, and the
 * val output with the reference's default val_stkn=false: each value
 * leaves in the cycle the accumulator emits it, without stop tokens (the
 * vals writer ignores them either way).
 *
 * Graphs may wire edges the reference leaves out (crd_inner-k in
 * matmul_ikj/jki, crd_k in matmul_kij/kji, crd_i in mat_spacc_simple):
 * every crd edge that is not one of the three inputs gets an extra input
 * port whose tokens are taken and dropped, so the producer never stalls.
 *
 * One-dimensional accumulation (order 1 with in0 only: vec_spacc_simple,
 * mat_vecmul_ji) is wired as the reference's mat_vecmul test does it
 * (3.3): a private CrdHold pairs the crd edge of the index summed over
 * (outer) with crd_<in0> (inner), StknDrops follow, every outer coordinate
 * becomes 0, and the inner output has its stop tokens lowered by one level
 * (S0 vanishes) because the result has one level only.
 *
 * Where samsim departs from the reference (section 8): order 1 clears each
 * run once emitted, so an outer coordinate that recurs starts from zero
 * (the reference re-emits the old sums, bug 9); an empty order-2 input
 * gives an empty result "S0 D" / "S1 D" / "D" (the reference crashes, bug
 * 4); the private CrdHold's Repeat waits for its first ref (item 8).
 *
 * The storage the points are summed in is what the implementations differ
 * in (spaccumulator.h); this file is the frame and the default storage,
 * impl "sparse": an ideal sparse ordered store, the reference's sorted map.
 * A point is summed in the cycle it is taken, whatever the run holds, and
 * a completed run leaves one point a cycle, its occupied entries only, in
 * order, from the cycle it completes; completed runs wait in an unbounded
 * queue while the next one is summed. The simulator keeps the open run in
 * a hash table and sorts it when it completes: O(1) per point and memory
 * in proportion to the distinct points held. spaccumulator_dense.c is the
 * dense-array variant. */
#include "spaccumulator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/ring.h"
#include "blocks.h"
#include "spacc_sort.h"

enum { IN_OUTER, IN_INNER, IN_VAL, IN_EXTRA };
enum { OUT_OUTER, OUT_INNER, OUT_VAL };
#define MAX_EXTRA (BLOCK_MAX_PORTS - IN_EXTRA)

/* ---- the CrdPtConverter (5.18) --------------------------------------- */

/* The accumulator never emits stop tokens, so the converter's rules for
 * stop-carrying input (2, 4 and 7 of 5.18) cannot fire and are left out;
 * the last outer output is an integer exactly when a point was taken. */

void crdpt_conv_init(crdpt_conv *c, int last_level, int close_empty)
{
    *c = (crdpt_conv){.last_level = (uint8_t)last_level, .close_empty = (uint8_t)close_empty};
}

static void conv_put(conv_out *out, int has_o, token o, token i)
{
    out->o = o;
    out->has_o = (uint8_t)has_o;
    out->i = i;
    out->has_i = 1;
}

/* A point whose outer coordinate changes first closes the inner fiber
 * with S0 and is emitted in the next cycle. */
static void conv_point(crdpt_conv *c, int64_t o, int64_t i, conv_out *out)
{
    if (c->has_prev && o != c->prev_o) {
        conv_put(out, 0, token_empty(), token_stop(0));
        c->emit_stop = 1;
    } else {
        conv_put(out, !c->has_prev, token_crd(o), token_crd(i));
    }
    c->has_prev = 1;
    c->prev_o = o;
    c->prev_i = i;
    out->took = 1;
}

int crdpt_conv_step(crdpt_conv *c, conv_head head, int64_t o, int64_t i, conv_out *out)
{
    *out = (conv_out){0};
    if (c->done)
        return 0;
    if (c->emit_stop) {
        conv_put(out, 1, token_crd(c->prev_o), token_crd(c->prev_i));
        c->emit_stop = 0;
    } else if (c->emit_done) {
        conv_put(out, 1, token_done(), token_done());
        c->done = 1;
    } else if (head == CONV_POINT) {
        conv_point(c, o, i, out);
    } else if (head == CONV_DONE && (c->has_prev || c->close_empty)) {
        conv_put(out, 1, token_stop(0), token_stop(c->last_level ? 1 : 0));
        c->emit_done = 1;
    } else if (head == CONV_DONE) {
        conv_put(out, 1, token_done(), token_done());
        c->done = 1;
    } else {
        return 0;
    }
    return 1;
}

/* ---- token FIFOs: rings of tokens -------------------------------------- */

static int tq_push(ring *q, token t)
{
    token *slot = ring_push(q);
    if (!slot)
        return -1;
    *slot = t;
    return 0;
}

static token tq_head(const ring *q)
{
    return *(const token *)ring_head(q);
}

static token tq_pop(ring *q)
{
    token t = tq_head(q);
    ring_drop(q);
    return t;
}

/* ---- the accumulation table ------------------------------------------- */

typedef spacc_point point;

typedef struct slot {
    uint32_t gen, idx;      /* in use when gen is the table's */
} slot;

/* Points in arrival order, found by an open-addressing index whose slots
 * all go stale at once when the generation changes. */
typedef struct table {
    point *e;
    size_t n, cap;
    slot *slots;
    size_t mask;
    uint32_t gen;
} table;

static size_t hash(int64_t o, int64_t i)
{
    uint64_t h = (uint64_t)o * 0x9E3779B97F4A7C15u ^ (uint64_t)i * 0xC2B2AE3D27D4EB4Fu;
    return (size_t)(h ^ h >> 29);
}

static slot *table_find(const table *t, int64_t o, int64_t i)
{
    for (size_t h = hash(o, i) & t->mask;; h = (h + 1) & t->mask) {
        slot *s = &t->slots[h];
        if (s->gen != t->gen || (t->e[s->idx].o == o && t->e[s->idx].i == i))
            return s;
    }
}

static int table_rehash(table *t)
{
    size_t n = t->slots ? 2 * (t->mask + 1) : 64;
    slot *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    free(t->slots);
    t->slots = slots;
    t->mask = n - 1;
    t->gen = 1;
    for (size_t k = 0; k < t->n; k++)
        *table_find(t, t->e[k].o, t->e[k].i) = (slot){t->gen, (uint32_t)k};
    return 0;
}

static int table_add(table *t, int64_t o, int64_t i, double v)
{
    if (2 * (t->n + 1) > t->mask + 1 && (t->n >= UINT32_MAX / 2 || table_rehash(t)))
        return -1;
    slot *s = table_find(t, o, i);
    if (s->gen == t->gen) {
        t->e[s->idx].v += v;
        return 0;
    }
    point *e = grow_array(t->e, t->n, &t->cap, sizeof *e, 64);
    if (!e)
        return -1;
    t->e = e;
    t->e[t->n] = (point){o, i, v};
    *s = (slot){t->gen, (uint32_t)t->n++};
    return 0;
}

static void table_clear(table *t)
{
    t->n = 0;
    if (++t->gen == 0) {
        memset(t->slots, 0, (t->mask + 1) * sizeof *t->slots);
        t->gen = 1;
    }
}

/* ---- the default storage, sparse: hashed, sorted when a run completes - */

typedef struct sparse_store {
    table tab;          /* the open run */
    ring done;          /* points of completed runs, sorted, waiting to leave */
    point *scratch;     /* the sort's, as large as the table's array */
    size_t scratch_cap;
} sparse_store;

static void *sparse_create(block *b, const block_ctx *ctx, int order, sam_error *err)
{
    (void)b, (void)ctx, (void)order;
    sparse_store *st = calloc(1, sizeof *st);
    if (!st)
        error_set(err, "out of memory");
    else
        ring_init(&st->done, sizeof(point));
    return st;
}

static int sparse_open(void *store)
{
    (void)store;
    return 1;
}

static int sparse_add(void *store, const point *p, const char **fault)
{
    (void)fault;
    sparse_store *st = store;
    return table_add(&st->tab, p->o, p->i, p->v);
}

static int sparse_close(void *store)
{
    sparse_store *st = store;
    table *t = &st->tab;
    if (st->scratch_cap < t->cap) {
        point *scratch = realloc(st->scratch, t->cap * sizeof *scratch);
        if (!scratch)
            return -1;
        st->scratch = scratch;
        st->scratch_cap = t->cap;
    }
    spacc_sort(t->e, t->n, st->scratch);
    if (ring_append(&st->done, t->e, t->n))
        return -1;
    table_clear(t);
    return 0;
}

static spacc_read sparse_read(void *store, point *p)
{
    sparse_store *st = store;
    if (!ring_count(&st->done))
        return SPACC_IDLE;
    *p = *(const point *)ring_head(&st->done);
    ring_drop(&st->done);
    return SPACC_POINT;
}

static void sparse_destroy(void *store)
{
    sparse_store *st = store;
    free(st->tab.e);
    free(st->tab.slots);
    free(st->scratch);
    ring_free(&st->done);
    free(st);
}

static const spacc_store_ops sparse_store_ops = {
    .create = sparse_create,
    .open = sparse_open,
    .add = sparse_add,
    .close = sparse_close,
    .read = sparse_read,
    .destroy = sparse_destroy,
};

/* ---- the block ---------------------------------------------------------- */

typedef struct stage {
    token t;
    uint8_t full;           /* 0: a bubble */
} stage;

/* The private CrdHold of the one-dimensional case (5.15): a RepeatSigGen
 * on the inner stream whose signals reach a Repeat of the outer stream
 * one cycle later. The reference's Repeat starts ready for a signal and
 * would pair one that comes before the first ref with no ref at all
 * (section 8, item 8); this one starts waiting for a ref. */
typedef struct holder {
    ring refs, reps;        /* the Repeat's FIFOs, of tokens */
    token cur;              /* the Repeat's ref */
    stage sig;              /* the RepeatSigGen's output of the last cycle */
    uint8_t get_ref, get_rep, pend_stop;
} holder;

typedef struct spacc {
    int order, onedim;
    const char *in0, *in1;
    char names[4][80];
    const graph_edge *outer_edge;       /* one-dimensional: the index summed over */
    const graph_edge *extra[MAX_EXTRA];
    int nextra;
    holder hold;
    stage held[2];          /* the CrdHold's outputs of the last cycle */
    stage drop[3];          /* the StknDrops' outputs of the last cycle */
    ring q[3];              /* the accumulator's input FIFOs, of tokens */
    const spacc_store_ops *store_ops;
    void *store;
    uint8_t has_run;        /* a run is open in the storage */
    int64_t run_outer;
    ring box;               /* points emitted, waiting for the converter */
    uint8_t seen_done, acc_done;
    crdpt_conv conv;
} spacc;

static int drain_extras(block *b, cycle_t now)
{
    int changed = 0;
    for (int p = IN_EXTRA; p < b->nin; p++)
        if (in_has(b, p, now)) {
            in_pop(b, p, now);
            changed = 1;
        }
    return changed;
}

/* The StknDrops' outputs of the last cycle enter the accumulator. */
static int feed_accumulator(block *b, spacc *s)
{
    int changed = 0;
    for (int p = 0; p < 3; p++) {
        if (!s->drop[p].full)
            continue;
        token t = s->drop[p].t;
        if (s->onedim && p == IN_OUTER && !token_is_done(t))
            t = token_crd(0);
        if (tq_push(&s->q[p], t))
            b->failed = 1;
        s->drop[p].full = 0;
        changed = 1;
    }
    return changed;
}

static void stkn_drop(stage *d, token t)
{
    *d = (stage){t, !token_is_stop(t)};
}

/* Each StknDrop takes one token a cycle: from the input, or in the
 * one-dimensional case from the CrdHold's last output. */
static int drop_inputs(block *b, spacc *s, cycle_t now)
{
    int changed = 0;
    token t;
    for (int p = 0; p < 3; p++) {
        if (s->onedim && p != IN_VAL) {
            if (s->held[p].full) {
                stkn_drop(&s->drop[p], s->held[p].t);
                s->held[p].full = 0;
                changed = 1;
            }
        } else if (in_peek(b, p, now, &t)) {
            in_pop(b, p, now);
            stkn_drop(&s->drop[p], t);
            changed = 1;
        }
    }
    return changed;
}

/* The stop token after a repeated fiber, refs holding the next ref. */
static token closing_stop(ring *refs)
{
    int absorbs;
    token stop = token_closing_stop(tq_head(refs), &absorbs);
    if (absorbs)
        tq_pop(refs);
    return stop;
}

static void repeat_signal(block *b, holder *h, token sig, stage *out)
{
    h->get_ref = sig.kind != TOKEN_REPEAT;
    h->get_rep = !h->get_ref;
    if (sig.kind == TOKEN_REPEAT) {
        *out = (stage){h->cur, 1};
    } else if (token_is_done(sig)) {
        if (!token_is_done(h->cur))
            b->fault = "the crd stream of the index summed over and the inner crd stream do "
                       "not end together";
        *out = (stage){token_done(), 1};
    } else if (token_is_stop(h->cur)) {
        *out = (stage){token_stop_below(h->cur), 1};
    } else if (!token_is_done(h->cur)) {
        if (ring_count(&h->refs))
            *out = (stage){closing_stop(&h->refs), 1};
        else
            h->pend_stop = 1;
    }
}

/* One cycle of the CrdHold's Repeat (5.8); its output goes to *out. */
static int repeat_step(block *b, holder *h, stage *out)
{
    out->full = 0;
    if (h->pend_stop) {
        if (!ring_count(&h->refs))
            return 0;
        *out = (stage){closing_stop(&h->refs), 1};
        h->pend_stop = 0;
        return 1;
    }
    int changed = 0;
    if (h->get_ref && ring_count(&h->refs)) {
        h->cur = tq_pop(&h->refs);
        h->get_ref = 0;
        h->get_rep = 1;
        *out = (stage){h->cur, token_is_done(h->cur)};
        changed = 1;
    }
    if (!h->get_rep)
        return changed;
    if (!ring_count(&h->reps)) {
        out->full = 0;
        return changed;
    }
    repeat_signal(b, h, tq_pop(&h->reps), out);
    return 1;
}

static token repsig_of(token t)
{
    return token_is_stop(t) ? token_repstop() : token_is_done(t) ? t : token_repeat();
}

static int hold_step(block *b, spacc *s, cycle_t now)
{
    holder *h = &s->hold;
    int changed = h->sig.full;
    token t;
    if (h->sig.full && tq_push(&h->reps, h->sig.t))
        b->failed = 1;
    h->sig.full = 0;
    if (in_peek(b, IN_INNER, now, &t)) {
        in_pop(b, IN_INNER, now);
        s->held[IN_INNER] = (stage){t, 1};
        h->sig = (stage){repsig_of(t), 1};
        changed = 1;
    }
    if (in_peek(b, IN_OUTER, now, &t)) {
        in_pop(b, IN_OUTER, now);
        if (tq_push(&h->refs, t))
            b->failed = 1;
        changed = 1;
    }
    return repeat_step(b, h, &s->held[IN_OUTER]) | changed;
}

static double value_of(token v)
{
    return v.kind == TOKEN_VAL ? v.v : v.kind == TOKEN_CRD ? (double)v.i : 0.0;
}

static void pop_heads(spacc *s)
{
    for (int p = 0; p < 3; p++)
        tq_pop(&s->q[p]);
}

static int close_run(spacc *s)
{
    s->has_run = 0;
    return s->store_ops->close(s->store);
}

static int add_point(block *b, spacc *s, token o, token i, token v)
{
    const point p = {o.i, i.i, value_of(v)};
    const char *fault = NULL;
    pop_heads(s);
    s->has_run = 1;
    s->run_outer = o.i;
    int rc = s->store_ops->add(s->store, &p, &fault);
    if (rc > 0)
        b->fault = fault;
    return rc < 0 ? -1 : 1;
}

/* Takes the point or the 'D's at the FIFO heads, unless the point starts a
 * run the storage has no room for yet: 1 when anything changed, 0 when
 * nothing did, -1 out of memory. */
static int take_point(block *b, spacc *s)
{
    token o = tq_head(&s->q[IN_OUTER]), i = tq_head(&s->q[IN_INNER]), v = tq_head(&s->q[IN_VAL]);
    int ndone = token_is_done(o) + token_is_done(i) + token_is_done(v);
    if (ndone == 3) {
        pop_heads(s);
        s->seen_done = 1;
        return s->has_run && close_run(s) ? -1 : 1;
    }
    if (ndone || o.kind != TOKEN_CRD || i.kind != TOKEN_CRD) {
        pop_heads(s);
        b->fault = ndone ? "'D' on one input meets a point on another: the outer crd, inner crd "
                           "and val streams hold different numbers of points"
                         : "a crd input carries a token that is not a coordinate";
        return 1;
    }
    int changed = 0;
    if (s->order == 1 && s->has_run && o.i != s->run_outer) {
        if (close_run(s))
            return -1;
        changed = 1;
    }
    if (!s->has_run && !s->store_ops->open(s->store))
        return changed;
    return add_point(b, s, o, i, v);
}

/* One cycle of the point accumulator: takes a point once all three FIFOs
 * hold one, and emits the storage's next point (its value leaves at
 * once). */
static int accumulate(block *b, spacc *s, cycle_t now)
{
    int changed = 0;
    if (s->acc_done)
        return 0;
    if (!s->seen_done && ring_count(&s->q[IN_OUTER]) && ring_count(&s->q[IN_INNER]) &&
        ring_count(&s->q[IN_VAL])) {
        int rc = take_point(b, s);
        if (rc < 0)
            b->failed = 1;
        changed = rc != 0;
    }
    point p;
    spacc_read r = s->store_ops->read(s->store, &p);
    if (r == SPACC_POINT) {
        point *slot = ring_push(&s->box);
        if (slot)
            *slot = p;
        else
            b->failed = 1;
        out_push(b, OUT_VAL, now, token_val(p.v));
        return 1;
    }
    if (r == SPACC_BUSY)
        return 1;
    if (s->seen_done) {
        out_push(b, OUT_VAL, now, token_done());
        s->acc_done = 1;
        return 1;
    }
    return changed;
}

static int convert(block *b, spacc *s, cycle_t now)
{
    ring *q = &s->box;
    conv_head head = ring_count(q) ? CONV_POINT : s->acc_done ? CONV_DONE : CONV_NOTHING;
    const point *p = head == CONV_POINT ? ring_head(q) : NULL;
    conv_out out;
    if (!crdpt_conv_step(&s->conv, head, p ? p->o : 0, p ? p->i : 0, &out))
        return 0;
    if (out.took)
        ring_drop(q);
    if (out.has_o)
        out_push(b, OUT_OUTER, now, out.o);
    if (s->onedim && token_is_stop(out.i)) {
        if (out.i.level == 0)
            return 1;
        out.i = token_stop(out.i.level - 1);
    }
    out_push(b, OUT_INNER, now, out.i);
    return 1;
}

int spacc_step(block *b, cycle_t now)
{
    spacc *s = b->state;
    int changed = drain_extras(b, now);
    changed |= feed_accumulator(b, s);
    changed |= drop_inputs(b, s, now);
    if (s->onedim)
        changed |= hold_step(b, s, now);
    changed |= accumulate(b, s, now);
    changed |= convert(b, s, now);
    return changed;
}

/* ---- construction ------------------------------------------------------ */

static int label_is(const char *label, const char *prefix, const char *name)
{
    size_t n = strlen(prefix);
    return !strncmp(label, prefix, n) && !strcmp(label + n, name);
}

static int input_port(const spacc *s, const graph_edge *e)
{
    if (!strcmp(e->kind, "val"))
        return IN_VAL;
    if (strcmp(e->kind, "crd"))
        return -1;
    if (label_is(e->label, s->onedim ? "crd_" : "crd_inner-", s->in0))
        return IN_INNER;
    if (s->onedim ? e == s->outer_edge : label_is(e->label, "crd_outer-", s->in1))
        return IN_OUTER;
    for (int k = 0; k < s->nextra; k++)
        if (e == s->extra[k])
            return IN_EXTRA + k;
    return -1;
}

/* Finds the edges no label names: the index summed over of the
 * one-dimensional case (the first other crd edge), and extra crd edges. */
static int find_inputs(block *b, spacc *s, const block_ctx *ctx, sam_error *err)
{
    const sam_graph *g = ctx->graph;
    int me = graph_node_index(g, ctx->node->id);
    for (int k = 0; k < g->nedges; k++) {
        const graph_edge *e = &g->edges[k];
        if (e->dst != me || input_port(s, e) >= 0)
            continue;
        if (strcmp(e->kind, "crd"))
            return block_error(b, err, "no input port for a %s stream (edge label '%s')",
                               e->kind, e->label);
        if (s->onedim && !s->outer_edge) {
            s->outer_edge = e;
        } else if (s->nextra == MAX_EXTRA) {
            return block_error(b, err, "too many inputs (edge label '%s')", e->label);
        } else {
            b->in_names[IN_EXTRA + s->nextra] = e->label;
            s->extra[s->nextra++] = e;
        }
    }
    return 0;
}

static void name_ports(block *b, spacc *s)
{
    size_t n = sizeof s->names[0];
    if (s->onedim) {
        snprintf(s->names[0], n, "crd_%s", s->in0);
        b->in_names[IN_OUTER] = "crd_summed";
        b->out_names[OUT_OUTER] = "crd_out_unused";
    } else {
        snprintf(s->names[0], n, "crd_inner-%s", s->in0);
        snprintf(s->names[1], n, "crd_outer-%s", s->in1);
        snprintf(s->names[2], n, "crd_out-%s", s->in1);
        b->in_names[IN_OUTER] = s->names[1];
        b->out_names[OUT_OUTER] = s->names[2];
    }
    snprintf(s->names[3], n, "crd_out-%s", s->in0);
    b->in_names[IN_INNER] = s->names[0];
    b->out_names[OUT_INNER] = s->names[3];
    b->in_names[IN_VAL] = b->out_names[OUT_VAL] = "val";
}

static int check_attrs(block *b, const block_ctx *ctx, int64_t *order, sam_error *err)
{
    const char *in0 = block_attr(ctx, "in0", err);
    const char *in1 = graph_node_attr(ctx->node, "in1");
    if (!in0 || block_attr_int(ctx, "order", order, err))
        return -1;
    if (*order != 1 && *order != 2)
        return block_error(b, err, "order=%lld: only orders 1 and 2 exist", (long long)*order);
    if (*order == 2 && !in1)
        return block_error(b, err, "order 2 needs attribute in1 (the outer index)");
    if (in1 && !strcmp(in0, in1))
        return block_error(b, err, "in0 and in1 name the same index %s", in0);
    return 0;
}

void spacc_destroy(block *b)
{
    spacc *s = b->state;
    if (!s)
        return;
    for (int p = 0; p < 3; p++)
        ring_free(&s->q[p]);
    ring_free(&s->hold.refs);
    ring_free(&s->hold.reps);
    if (s->store)
        s->store_ops->destroy(s->store);
    ring_free(&s->box);
    free(s);
    b->state = NULL;
}

int spacc_create_with(block *b, const block_ctx *ctx, const spacc_store_ops *store,
                      sam_error *err)
{
    int64_t order;
    if (check_attrs(b, ctx, &order, err))
        return -1;
    spacc *s = block_state_new(b, sizeof *s, err);
    if (!s)
        return -1;
    for (int p = 0; p < 3; p++)
        ring_init(&s->q[p], sizeof(token));
    ring_init(&s->hold.refs, sizeof(token));
    ring_init(&s->hold.reps, sizeof(token));
    ring_init(&s->box, sizeof(point));
    s->order = (int)order;
    s->in0 = graph_node_attr(ctx->node, "in0");
    s->in1 = graph_node_attr(ctx->node, "in1");
    s->onedim = !s->in1;
    s->hold.get_ref = 1;
    s->store_ops = store;
    crdpt_conv_init(&s->conv, 1, s->order == 2);
    name_ports(b, s);
    if ((ctx->graph && find_inputs(b, s, ctx, err)) ||
        !(s->store = store->create(b, ctx, s->order, err))) {
        spacc_destroy(b);
        return -1;
    }
    b->nin = IN_EXTRA + s->nextra;
    b->nout = 3;
    return 0;
}

static int spacc_create(block *b, const block_ctx *ctx, sam_error *err)
{
    return spacc_create_with(b, ctx, &sparse_store_ops, err);
}

int spacc_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    const spacc *s = b->state;
    int p;
    if (input)
        p = input_port(s, e);
    else if (!strcmp(e->kind, "val"))
        p = OUT_VAL;
    else if (label_is(e->label, "crd_out-", s->in0))
        p = OUT_INNER;
    else
        p = s->in1 && label_is(e->label, "crd_out-", s->in1) ? OUT_OUTER : -1;
    if (p < 0)
        return block_error(b, err, "no %s port for a %s stream (edge label '%s')",
                           input ? "input" : "output", e->kind, e->label);
    return p;
}

const block_ops spaccumulator_ops = {
    .type = "spaccumulator",
    .impl = "sparse",
    .about = "sums (outer, inner) points, orders 1 and 2, in an ideal sparse ordered store: a "
             "completed run leaves one occupied entry a cycle",
    .create = spacc_create,
    .port = spacc_port,
    .step = spacc_step,
    .peek = 1,
    .destroy = spacc_destroy,
};
