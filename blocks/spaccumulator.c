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
 * dense-array variant.
 *
 * Both have a native run (spacc_run, at the end), which makes most steps
 * of a two-dimensional accumulator a window at a time and the others one
 * by one through the step's own code. */
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

/* ---- the accumulator's input FIFOs -------------------------------------- */

/* The three FIFOs in front of the point accumulator, kept as one of
 * slots of a point each: FIFO p holds field p of slots taken to fed[p]. A
 * StknDrop writes the token it passes on straight into its FIFO's next
 * slot, and the FIFO counts it in only from the next cycle (pend[p]: the
 * StknDrop's output register), so a token is written once and no FIFO is
 * popped on its own. */
typedef struct fifo3 {
    token (*slot)[3];
    uint64_t cap;           /* slots: 0 or a power of two */
    uint64_t fed[3], taken;
    uint8_t pend[3];
} fifo3;

/* Room for `need` slots from taken on, a power of two, the slots kept
 * where their positions in the larger ring are. Their fields not yet
 * written are copied as they are: nothing reads them. */
static int fifo3_grow(fifo3 *f, uint64_t need)
{
    uint64_t cap = f->cap ? 2 * f->cap : 16, top = f->taken;
    while (cap < need)
        cap *= 2;
    token(*slot)[3] = malloc(cap * sizeof *slot);
    if (!slot)
        return -1;
    for (int p = 0; p < 3; p++)
        top = f->fed[p] + f->pend[p] > top ? f->fed[p] + f->pend[p] : top;
    for (uint64_t k = f->taken; k < top; k++)
        memcpy(slot[k & (cap - 1)], f->slot[k & (f->cap - 1)], sizeof *slot);
    free(f->slot);
    f->slot = slot;
    f->cap = cap;
    return 0;
}

/* StknDrop p passes t on unless it is a stop token; -1 out of memory. */
static inline int fifo3_drop(fifo3 *f, int p, token t)
{
    if (token_is_stop(t))
        return 0;
    if (f->fed[p] - f->taken == f->cap && fifo3_grow(f, f->cap + 1))
        return -1;
    f->slot[f->fed[p] & (f->cap - 1)][p] = t;
    f->pend[p] = 1;
    return 0;
}

/* The StknDrops' outputs of the last cycle enter the FIFOs: whether any
 * did. */
static inline int fifo3_feed(fifo3 *f)
{
    int any = f->pend[0] | f->pend[1] | f->pend[2];
    for (int p = 0; p < 3; p++)
        f->fed[p] += f->pend[p];
    memset(f->pend, 0, sizeof f->pend);
    return any;
}

/* The slot at the heads of the three FIFOs, or NULL unless each holds a
 * token. */
static inline const token *fifo3_head(const fifo3 *f)
{
    if (f->fed[0] == f->taken || f->fed[1] == f->taken || f->fed[2] == f->taken)
        return NULL;
    return f->slot[f->taken & (f->cap - 1)];
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

static inline slot *table_find(const table *t, int64_t o, int64_t i)
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

static inline int table_add(table *t, int64_t o, int64_t i, double v)
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
    if (t->n > SPACC_SORT_IN_PLACE && st->scratch_cap < t->cap) {
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

static int sparse_rearm(void *store)
{
    sparse_store *st = store;
    table_clear(&st->tab);
    ring_clear(&st->done);
    return 0;
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
    .rearm = sparse_rearm,
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
    fifo3 in;               /* the StknDrops' outputs and the FIFOs behind them */
    const spacc_store_ops *store_ops;
    void *store;
    uint8_t has_run;        /* a run is open in the storage */
    int64_t run_outer;
    ring box;               /* points emitted, waiting for the converter */
    uint8_t seen_done, acc_done;
    uint8_t unread;         /* a run was closed since the storage was last
                               found read out */
    crdpt_conv conv;
    /* For the run: the last step pushed a token, or emptied an input. */
    uint8_t pushed, emptied;
} spacc;

/* Takes the head of input p when it is visible at now: channel_peek and
 * channel_pop inline, since three inputs pass a token a cycle. Notes when
 * that leaves the input empty, which changes how far the run may go
 * without asking (block_final_until). */
static inline int input_take(block *b, spacc *s, int p, cycle_t now, token *t)
{
    channel *c = b->in[p].ch;
    int r = b->in[p].reader;
    if (!channel_peek(c, r, now, t))
        return 0;
    if (channel_pop(c, r, now))
        b->failed = 1;
    s->emptied |= channel_unread(c, r) == 0;
    return 1;
}

static void emit(block *b, spacc *s, int p, cycle_t now, token t)
{
    out_push(b, p, now, t);
    s->pushed = 1;
}

static int drain_extras(block *b, spacc *s, cycle_t now)
{
    int changed = 0;
    token t;
    for (int p = IN_EXTRA; p < b->nin; p++)
        changed |= input_take(b, s, p, now, &t);
    return changed;
}

static void stkn_drop(block *b, spacc *s, int p, token t)
{
    if (fifo3_drop(&s->in, p, t))
        b->failed = 1;
}

/* The StknDrops: their outputs of the last cycle enter the accumulator's
 * FIFOs, and each takes its input's next token. */
static int drop_inputs(block *b, spacc *s, cycle_t now)
{
    int changed = fifo3_feed(&s->in);
    token t;
    for (int p = 0; p < 3; p++)
        if (input_take(b, s, p, now, &t)) {
            stkn_drop(b, s, p, t);
            changed = 1;
        }
    return changed;
}

/* The same in the one-dimensional case, where the StknDrops of the crd
 * streams take the CrdHold's last outputs and every outer coordinate
 * becomes 0. */
static int drop_held(block *b, spacc *s, cycle_t now)
{
    int changed = fifo3_feed(&s->in);
    for (int p = IN_OUTER; p <= IN_INNER; p++)
        if (s->held[p].full) {
            token t = s->held[p].t;
            stkn_drop(b, s, p, p == IN_OUTER && t.kind != TOKEN_DONE && t.kind != TOKEN_STOP
                                   ? token_crd(0)
                                   : t);
            s->held[p].full = 0;
            changed = 1;
        }
    token t;
    if (input_take(b, s, IN_VAL, now, &t)) {
        stkn_drop(b, s, IN_VAL, t);
        changed = 1;
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
    if (input_take(b, s, IN_INNER, now, &t)) {
        s->held[IN_INNER] = (stage){t, 1};
        h->sig = (stage){repsig_of(t), 1};
        changed = 1;
    }
    if (input_take(b, s, IN_OUTER, now, &t)) {
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

static int close_run(spacc *s)
{
    s->has_run = 0;
    s->unread = 1;
    return s->store_ops->close(s->store);
}

/* Sums the point (o, i) valued v into the run, which it opens or
 * continues: 0, -1 out of memory, 1 with b->fault set. */
static inline int sum_point(block *b, spacc *s, token o, token i, token v)
{
    const point p = {o.i, i.i, value_of(v)};
    const char *fault = NULL;
    s->has_run = 1;
    s->run_outer = o.i;
    /* The default storage without the call through its table, which cost
     * as much as its hash. */
    int rc = s->store_ops == &sparse_store_ops ? sparse_add(s->store, &p, &fault)
                                               : s->store_ops->add(s->store, &p, &fault);
    if (rc > 0)
        b->fault = fault;
    return rc;
}

static inline int add_point(block *b, spacc *s, token o, token i, token v)
{
    s->in.taken++;
    return sum_point(b, s, o, i, v) < 0 ? -1 : 1;
}

/* take_point's every case. */
static int take_any(block *b, spacc *s, token o, token i, token v)
{
    int ndone = token_is_done(o) + token_is_done(i) + token_is_done(v);
    if (ndone == 3) {
        s->in.taken++;
        s->seen_done = 1;
        return s->has_run && close_run(s) ? -1 : 1;
    }
    if (ndone || o.kind != TOKEN_CRD || i.kind != TOKEN_CRD) {
        s->in.taken++;
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

/* Whether point (o, i, v) is one that continues the open run, as most
 * do: take_any would sum it and nothing else. */
static inline int continues_run(const spacc *s, token o, token i, token v)
{
    return o.kind == TOKEN_CRD && i.kind == TOKEN_CRD && v.kind != TOKEN_DONE && s->has_run &&
           (s->order == 2 || o.i == s->run_outer);
}

/* Takes the point or the 'D's at the FIFO heads, unless the point starts a
 * run the storage has no room for yet: 1 when anything changed, 0 when
 * nothing did, -1 out of memory. */
static inline int take_point(block *b, spacc *s, const token *head)
{
    token o = head[IN_OUTER], i = head[IN_INNER], v = head[IN_VAL];
    if (continues_run(s, o, i, v))
        return add_point(b, s, o, i, v);
    return take_any(b, s, o, i, v);
}

/* The accumulator's read-out in a cycle: the storage's next point, whose
 * value leaves at once, or the 'D' once the storage is read out after
 * the input's; whether anything changed. */
static int read_out(block *b, spacc *s, cycle_t now)
{
    point p;
    spacc_read r = s->unread ? s->store_ops->read(s->store, &p) : SPACC_IDLE;
    if (r == SPACC_POINT) {
        point *slot = ring_push(&s->box);
        if (slot)
            *slot = p;
        else
            b->failed = 1;
        emit(b, s, OUT_VAL, now, token_val(p.v));
        return 1;
    }
    if (r == SPACC_BUSY)
        return 1;
    s->unread = 0;
    if (s->seen_done) {
        emit(b, s, OUT_VAL, now, token_done());
        s->acc_done = 1;
        return 1;
    }
    return 0;
}

/* One cycle of the point accumulator: takes a point once all three FIFOs
 * hold one, and emits the storage's next point (its value leaves at
 * once). */
static inline int accumulate(block *b, spacc *s, cycle_t now)
{
    int changed = 0;
    if (s->acc_done)
        return 0;
    const token *head = s->seen_done ? NULL : fifo3_head(&s->in);
    if (head) {
        int rc = take_point(b, s, head);
        if (rc < 0)
            b->failed = 1;
        changed = rc != 0;
    }
    if (!s->unread && !s->seen_done)
        return changed;
    return read_out(b, s, now) | changed;
}

static int convert_any(block *b, spacc *s, cycle_t now)
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
        emit(b, s, OUT_OUTER, now, out.o);
    if (s->onedim && token_is_stop(out.i)) {
        if (out.i.level == 0)
            return 1;
        out.i = token_stop(out.i.level - 1);
    }
    emit(b, s, OUT_INNER, now, out.i);
    return 1;
}

/* One cycle of the CrdPtConverter; while it has nothing to convert, what
 * crdpt_conv_step would then do without the call. */
static inline int convert(block *b, spacc *s, cycle_t now)
{
    if (!ring_count(&s->box) && !s->acc_done && !s->conv.emit_stop)
        return 0;
    return convert_any(b, s, now);
}

static inline int spacc_cycle(block *b, spacc *s, cycle_t now)
{
    int changed = b->nin > IN_EXTRA && drain_extras(b, s, now);
    if (s->onedim) {
        changed |= drop_held(b, s, now);
        changed |= hold_step(b, s, now);
    } else {
        changed |= drop_inputs(b, s, now);
    }
    changed |= accumulate(b, s, now);
    changed |= convert(b, s, now);
    return changed;
}

int spacc_step(block *b, cycle_t now)
{
    return spacc_cycle(b, b->state, now);
}

/* ---- the native run: step by step -------------------------------------- */

/* Where windows do not serve (the one-dimensional wiring, the dense
 * storage while it reads out, the steps that close runs or take the
 * 'D's), the run makes spacc_cycle's steps in a loop of its own, with the
 * engine's bookkeeping done once for all of them. */

/* The cycle before which the run may step without asking the engine
 * (block_final_until): it moves only when a pop empties an input. */
static cycle_t step_limit(const block *b, cycle_t until)
{
    cycle_t fin = block_final_until(b);
    return fin < until ? fin : until;
}

/* An input as the run reads it: the cycle from which its head is visible
 * is cached, so that a step looks into the channel only to take a token.
 * Nothing is pushed on the block's inputs while it runs. */
typedef struct lane {
    channel *c;
    int reader;
    cycle_t next;           /* CYCLE_NONE: empty */
} lane;

static cycle_t lane_next(const lane *l)
{
    return channel_head_arrival(l->c, l->reader);
}

static void lanes_init(const block *b, lane *in)
{
    for (int p = 0; p < b->nin; p++) {
        in[p] = (lane){b->in[p].ch, b->in[p].reader, 0};
        in[p].next = lane_next(&in[p]);
    }
}

/* Takes the head, visible at now. */
static inline token lane_take(block *b, spacc *s, lane *l, cycle_t now)
{
    token t = {0};
    channel_peek(l->c, l->reader, now, &t);
    if (channel_pop(l->c, l->reader, now))
        b->failed = 1;
    l->next = lane_next(l);
    s->emptied |= l->next == CYCLE_NONE;
    return t;
}

/* spacc_cycle of a two-dimensional accumulator, its inputs read through
 * lanes. */
static int lanes_cycle(block *b, spacc *s, lane *in, cycle_t now)
{
    int changed = 0;
    for (int p = IN_EXTRA; p < b->nin; p++)
        if (now >= in[p].next) {
            lane_take(b, s, &in[p], now);
            changed = 1;
        }
    changed |= fifo3_feed(&s->in);
    for (int p = 0; p < 3; p++)
        if (now >= in[p].next) {
            stkn_drop(b, s, p, lane_take(b, s, &in[p], now));
            changed = 1;
        }
    changed |= accumulate(b, s, now);
    changed |= convert(b, s, now);
    return changed;
}

/* A window is worth finding when it would span at least this many
 * steps: it costs about as much to set up as that many steps made one by
 * one. */
#define WINDOW_MIN 8

/* The read-out and converter of the default storage in steps 0 to n-1 of
 * a window: read_out's point a step while the storage holds any, taken
 * from its queue without the call through the storage's table. */
static void emit_points(block *b, spacc *s, cycle_t t0, int n)
{
    ring *done = &((sparse_store *)s->store)->done;
    for (int j = 0; j < n; j++) {
        cycle_t now = t0 + (cycle_t)j * b->ii;
        if (ring_count(done)) {
            point *slot = ring_push(&s->box);
            if (slot)
                *slot = *(const point *)ring_head(done);
            else
                b->failed = 1;
            ring_drop(done);
            emit(b, s, OUT_VAL, now, token_val(slot ? slot->v : 0.0));
        } else {
            s->unread = 0;
        }
        convert(b, s, now);
    }
}

/* Whether the run may make the next steps a window at a time: a
 * two-dimensional accumulator before its last output, whose storage, if
 * it has anything to emit, is the default one. */
static int windows_serve(const spacc *s)
{
    return !s->onedim && !s->acc_done &&
           (s->store_ops == &sparse_store_ops ||
            (!s->unread && !ring_count(&s->box) && !s->conv.emit_stop));
}

/* Whether the crd and val inputs each hold WINDOW_MIN tokens. */
static int inputs_hold_window(const block *b)
{
    for (int p = 0; p < 3; p++) {
        if (channel_unread(b->in[p].ch, b->in[p].reader) < WINDOW_MIN)
            return 0;
    }
    return 1;
}

/* Whether the default storage holds WINDOW_MIN points to emit. */
static int store_holds_window(const spacc *s)
{
    return s->store_ops == &sparse_store_ops &&
           ring_count(&((const sparse_store *)s->store)->done) >= WINDOW_MIN;
}

/* Whether windows serve and would pay: the inputs or the storage hold
 * enough for one. With short channels neither is often so, and the steps
 * go one by one. */
static int windows_pay(const block *b, const spacc *s)
{
    return windows_serve(s) && (store_holds_window(s) || inputs_hold_window(b));
}

/* Steps from *t on, one every ii cycles, while each changes the block and
 * windows would not pay: the first where block_next_cycle let the block
 * step, the others below the cycle its inputs are final to and with room
 * on its outputs. Returns how many changed the block; *idle when the step
 * at *t then changed nothing. */
static uint64_t step_on(block *b, spacc *s, cycle_t *t, cycle_t until, int *idle)
{
    lane in[BLOCK_MAX_PORTS];
    if (!s->onedim)
        lanes_init(b, in);
    /* Inputs only lose tokens while the block runs. */
    const int inputs_window = inputs_hold_window(b);
    cycle_t now = *t, limit = 0;
    int stale = 1;              /* the limit is to be found again */
    uint64_t n = 0;
    for (;;) {
        s->pushed = s->emptied = 0;
        if (!(s->onedim ? spacc_cycle(b, s, now) : lanes_cycle(b, s, in, now))) {
            *idle = 1;
            break;
        }
        n++;
        now += b->ii;
        stale |= s->emptied;
        if (now >= until || b->fault || b->failed)
            break;
        /* The room the first step had holds while nothing is pushed; after
         * a push, the readers' pops so far must make room for one more. */
        if (s->pushed && b->nbounded && !block_room(b, now, 1))
            break;
        if (windows_serve(s) && (inputs_window || store_holds_window(s)))
            break;
        /* Below the horizon every input is final; beyond, as far as
         * block_final_until says, which only a pop that empties an input
         * moves. */
        if (now >= b->horizon) {
            if (stale)
                limit = step_limit(b, until);
            stale = 0;
            if (now >= limit)
                break;
        }
    }
    *t = now;
    return n;
}

/* ---- the native run: windows of steps ----------------------------------- */

/* Between the points the step must handle itself (a run closing, the
 * 'D's, a fault), a two-dimensional accumulator's steps do the same few
 * things: each StknDrop takes its input's next token once visible, a
 * point is taken once its three tokens are in, and a completed run leaves
 * a point a step. The run makes them a window at a time: it learns from
 * the inputs' tokens, without taking any, which step takes each, which
 * steps change nothing and which point needs the step, then makes every
 * step before the first of those in one pass over each input. */

/* Steps a window spans at most: its masks of steps are one word. */
#define WINDOW 64

static uint64_t bit(int k)
{
    return (uint64_t)1 << k;
}

/* The steps below step k. */
static uint64_t below(int k)
{
    return k < WINDOW ? bit(k) - 1 : ~(uint64_t)0;
}

/* What the steps of a window take from one input: each step takes the
 * head once it is visible. */
typedef struct scan {
    int n;                      /* tokens taken */
    uint8_t step[WINDOW];       /* the step that takes each */
    uint64_t takes, passes;     /* the steps that take a token; that pass one on
                                   (not a stop token) */
} scan;

/* The steps from t0 on, ii apart, before cycle `until`. */
static int steps_before(const block *b, cycle_t t0, cycle_t until, int most)
{
    uint64_t n = block_steps_below(b, t0, until);
    return n < (uint64_t)most ? (int)n : most;
}

/* The steps of the first w from t0 that take a token of input p, each
 * taking the head once visible; returns the first step at which what the
 * input shows is not final any more (w if none is): once it has given
 * its last token, only below its producer's clock. */
static int scan_steps(const block *b, int p, cycle_t t0, int w, scan *sc)
{
    const channel *c = b->in[p].ch;
    const uint64_t unread = channel_unread(c, b->in[p].reader);
    const channel_span span = channel_unread_span(c, b->in[p].reader, unread);
    const uint32_t ii = b->ii;
    uint64_t j = 0, takes = 0;
    int k = 0;
    for (; j < unread; j++, k++) {
        cycle_t visible = channel_entry_visible(channel_span_at(&span, j));
        if (visible > t0 + (cycle_t)k * ii)
            k = steps_before(b, t0, visible, w);
        if (k >= w)
            break;
        sc->step[j] = (uint8_t)k;
        takes |= bit(k);
    }
    sc->n = (int)j;
    sc->takes = takes;
    if (j < unread)
        return w;
    cycle_t fin = c->producer_clock ? *c->producer_clock + c->latency : CYCLE_NONE;
    int last = steps_before(b, t0, fin > b->horizon ? fin : b->horizon, w);
    return k > last ? k : last;
}

/* Writes what the StknDrop of crd or val input p passes on of the scanned
 * tokens into its FIFO's next free slots, without counting it in yet. */
static void stage_kept(const block *b, int p, scan *sc, fifo3 *f)
{
    const uint8_t *step = sc->step;
    const int n = sc->n;
    const channel_span span = channel_unread_span(b->in[p].ch, b->in[p].reader, (uint64_t)n);
    const uint64_t smask = f->cap - 1;
    token(*slot)[3] = f->slot;
    uint64_t at = f->fed[p] + f->pend[p], passes = 0;
    for (int j = 0; j < n; j++) {
        const channel_entry *e = channel_span_at(&span, (uint64_t)j);
        if (channel_entry_kind(e) == TOKEN_STOP)
            continue;
        slot[at++ & smask][p] = channel_entry_token(e);
        passes |= bit(step[j]);
    }
    sc->passes = passes;
}

/* Takes the tokens the steps before step k take of a scanned input (one
 * a step at most), as its pops in their cycles: at once where neither a
 * capacity nor a trace needs those. */
static void take_scanned(block *b, int p, const scan *sc, cycle_t t0, int k)
{
    channel *c = b->in[p].ch;
    const int r = b->in[p].reader;
    int n = __builtin_popcountll(sc->takes & below(k));
    if (!c->capacity && !c->trace) {
        channel_take_unbounded(c, r, (uint64_t)n);
        return;
    }
    for (int j = 0; j < n; j++)
        if (channel_pop(c, r, t0 + (cycle_t)sc->step[j] * b->ii))
            b->failed = 1;
}

/* Counts into FIFO p what the steps before step k passed on of its
 * scanned input: the last into the StknDrop's register when step k-1
 * took it. */
static void feed_scanned(fifo3 *f, int p, const scan *sc, int k)
{
    int n = __builtin_popcountll(sc->passes & below(k));
    int pend = k > 0 && (sc->passes >> (k - 1) & 1);
    f->fed[p] += f->pend[p] + (uint64_t)(n - pend);
    f->pend[p] = (uint8_t)pend;
}

/* The steps of the window that take a point from the FIFO heads: one a
 * step, each once its three tokens are in (from the step after its
 * StknDrop took it: the bits of passes moved up one). *special is set to
 * the step of the first point take_point must handle itself (w if none). */
static uint64_t point_steps(const spacc *s, const scan *sc, int w, int *special)
{
    const fifo3 *f = &s->in;
    const token(*slot)[3] = (const token(*)[3])f->slot;
    const uint64_t smask = f->cap - 1, taken = f->taken;
    uint64_t in[3], ready[3], steps = 0;
    for (int p = 0; p < 3; p++) {
        in[p] = f->fed[p] + f->pend[p] - taken;
        ready[p] = sc[p].passes << 1;
    }
    *special = w;
    for (uint64_t m = 0, at = 0;; m++, at++) {
        for (int p = 0; p < 3; p++) {
            if (m < in[p])
                continue;
            if (!ready[p])
                return steps;
            uint64_t r = (uint64_t)__builtin_ctzll(ready[p]);
            ready[p] &= ready[p] - 1;
            at = r > at ? r : at;
        }
        if (at >= (uint64_t)w)
            return steps;
        const token *t = slot[(taken + m) & smask];
        if (!continues_run(s, t[IN_OUTER], t[IN_INNER], t[IN_VAL])) {
            *special = (int)at;
            return steps;
        }
        steps |= bit((int)at);
    }
}

/* Sums the points the window takes before step k into the open run;
 * returns k, or the step after one the storage fails on (the step stops
 * the run there). */
static int add_points(block *b, spacc *s, uint64_t steps, int k)
{
    fifo3 *f = &s->in;
    for (steps &= below(k); steps; steps &= steps - 1) {
        const token *t = f->slot[f->taken++ & (f->cap - 1)];
        int rc = sum_point(b, s, t[IN_OUTER], t[IN_INNER], t[IN_VAL]);
        if (rc) {
            if (rc < 0)
                b->failed = 1;
            return __builtin_ctzll(steps) + 1;
        }
    }
    return k;
}

/* Room in the FIFOs for what w steps may pass on. */
static int fifo3_reserve(fifo3 *f, int w)
{
    for (int p = 0; p < 3; p++) {
        uint64_t need = f->fed[p] + f->pend[p] + (uint64_t)w - f->taken;
        if (need > f->cap && fifo3_grow(f, need))
            return -1;
    }
    return 0;
}

/* How many steps from now on the read-out and the converter have work
 * (of at most w): the default storage emits a point a step while it holds
 * any, and the converter spends a step on each and one more on each that
 * changes the outer coordinate. */
static int output_steps(const spacc *s, int w)
{
    const sparse_store *st = s->store;
    uint64_t reads = ring_count(&st->done), work = s->conv.emit_stop;
    int has_prev = s->conv.has_prev;
    int64_t prev = s->conv.prev_o;
    const ring *q[2] = {&s->box, &st->done};
    for (int r = 0; r < 2 && work < (uint64_t)w; r++)
        for (size_t k = 0; k < ring_count(q[r]) && work < (uint64_t)w; k++) {
            const point *p = (const point *)(q[r]->buf + ((q[r]->head + k) & (q[r]->cap - 1)) *
                                                               q[r]->elem);
            work += 1 + (has_prev && p->o != prev);
            has_prev = 1;
            prev = p->o;
        }
    if (reads > work)
        work = reads;
    return work < (uint64_t)w ? (int)work : w;
}

/* Makes the steps of a window from *t on: returns how many changed the
 * block (*t then the cycle after them), and sets *idle when the step
 * after them would change nothing; 0 and no *idle when the step at *t
 * must be made by spacc_cycle. */
static uint64_t window(block *b, spacc *s, cycle_t *t, cycle_t until, int *idle)
{
    const cycle_t t0 = *t;
    int w = steps_before(b, t0, until, WINDOW), out = 0;
    if (s->store_ops == &sparse_store_ops &&
        (s->unread || ring_count(&s->box) || s->conv.emit_stop)) {
        /* Steps that may push: as many as there is room for. */
        uint64_t room = block_room(b, t0, (uint64_t)w);
        w = room < (uint64_t)w ? (int)room : w;
        out = output_steps(s, w);
    }
    if (fifo3_reserve(&s->in, w)) {
        b->failed = 1;
        return 0;
    }
    scan sc[BLOCK_MAX_PORTS];
    uint64_t active = s->in.pend[0] | s->in.pend[1] | s->in.pend[2];
    int last = w;
    for (int p = 0; p < b->nin; p++) {
        int f = scan_steps(b, p, t0, w, &sc[p]);
        last = f < last ? f : last;
        sc[p].passes = 0;
        if (p < IN_EXTRA)
            stage_kept(b, p, &sc[p], &s->in);
        active |= sc[p].takes | sc[p].passes << 1;
    }
    /* After the 'D's the read-out's last step emits the val output's. */
    int special = last;
    uint64_t takes = 0;
    if (s->seen_done)
        special = s->store_ops == &sparse_store_ops
                      ? (int)ring_count(&((const sparse_store *)s->store)->done)
                      : 0;
    else
        takes = point_steps(s, sc, last, &special);
    active |= takes | below(out);
    int quiet = active == ~(uint64_t)0 ? WINDOW : __builtin_ctzll(~active);
    int k = quiet < special ? quiet : special;
    k = add_points(b, s, takes, k < last ? k : last);
    for (int p = 0; p < b->nin; p++)
        take_scanned(b, p, &sc[p], t0, k);
    for (int p = 0; p < 3; p++)
        feed_scanned(&s->in, p, &sc[p], k);
    if (out)
        emit_points(b, s, t0, k < out ? k : out);
    /* The step after them changes nothing. It has room: the window's first
     * step had, the window pushed nothing, or it pushed within the room
     * block_room found for w steps. */
    *idle = k == quiet && k < special && k < last && !b->fault && !b->failed;
    *t = t0 + (cycle_t)k * b->ii;
    return (uint64_t)k;
}

/* ---- the native run ------------------------------------------------------ */

void spacc_run(block *b, cycle_t until)
{
    spacc *s = b->state;
    cycle_t t = b->clock;
    while (block_next_cycle(b, &t, until)) {
        cycle_t first = t;
        int idle = 0;
        uint64_t n = windows_pay(b, s) ? window(b, s, &t, until, &idle) : 0;
        if (!n && !idle)
            n = step_on(b, s, &t, until, &idle);
        if (n)
            block_changed_run(b, first, n);
        if (idle)
            t = block_unchanged(b, t, until);
    }
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
    free(s->in.slot);
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

/* Everything a run changed back to how create left it; the storage
 * emptied by its own rearm, or made again for the data ctx binds (a
 * dense store's size may follow the operands'). */
int spacc_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    spacc *s = b->state;
    holder *h = &s->hold;
    ring_clear(&h->refs);
    ring_clear(&h->reps);
    h->cur = (token){0};
    h->sig = (stage){0};
    h->get_ref = 1;
    h->get_rep = h->pend_stop = 0;
    memset(s->held, 0, sizeof s->held);
    s->in = (fifo3){.slot = s->in.slot, .cap = s->in.cap};
    ring_clear(&s->box);
    s->has_run = s->seen_done = s->acc_done = s->unread = s->pushed = s->emptied = 0;
    s->run_outer = 0;
    crdpt_conv_init(&s->conv, 1, s->order == 2);
    if (s->store_ops->rearm)
        return s->store_ops->rearm(s->store);
    s->store_ops->destroy(s->store);
    s->store = s->store_ops->create(b, ctx, s->order, err);
    return s->store ? 0 : -1;
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
    .rearm = spacc_rearm,
    .port = spacc_port,
    .step = spacc_step,
    .run = spacc_run,
    .peek = 1,
    .destroy = spacc_destroy,
};
