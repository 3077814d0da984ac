/* vectorreducer (the SAM paper's vector reducer; used by the hand-written
 * matmul_ikj_hand_BLACKBOX graph, with no reference implementation): sums
 * the fibers of one level into one. Within an outer fiber (closed by a
 * stop token of level >= 1) it takes one (coordinate, value) pair a cycle
 * from every inner fiber; when the outer fiber closes it emits the
 * distinct coordinates in order with their sums, then the stop token one
 * level lower, taking no input meanwhile. Ports: input and output 0 the
 * coordinates, 1 the values.
 *
 * With lanes=N (Gamma's merger, after a parallelizer; blocks/lanes.h) it
 * has a coordinate and a value input per lane (2L and 2L+1, edges
 * lane=L): every lane brings its own fibers of each outer fiber, and the
 * block takes a pair from every lane that has one a cycle (a merger of
 * radix N), closing the outer fiber once every lane has closed it. The
 * parameter `rate` bounds the pairs it takes a cycle (Gamma's merger
 * takes one; 0, the default, is one from every lane): the lanes are
 * served round robin from the one after the last served.
 *
 * This file is the frame every implementation shares (vectorreducer.h)
 * and the default storage, impl "sparse": an ideal sparse ordered store
 * that emits the distinct coordinates back to back, one a cycle, from the
 * cycle after the closing stop. The simulator keeps the pairs in arrival
 * order and sorts them when the fiber closes. vectorreducer_dense.c is the
 * dense-array variant. */
#include "vectorreducer.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "blocks.h"
#include "lanes.h"

enum { CRD, VAL };

/* ---- the frame ---------------------------------------------------------- */

typedef struct vecred {
    const vecred_store_ops *ops;
    void *store;
    int draining;
    token stop;             /* emitted after the points */
    int lanes;
    int64_t rate;           /* pairs taken a cycle, 0: a pair from every lane */
    int next_lane;          /* where the round of a bounded rate starts */
    int nclosed, ndone;     /* lanes past the outer fiber's close, past D */
    uint8_t closed[LANES_MAX], done[LANES_MAX];
} vecred;

static int drain(block *b, vecred *r, cycle_t now)
{
    int64_t crd;
    double v;
    vecred_read k = r->ops->read(r->store, &crd, &v);
    if (k == VECRED_POINT) {
        out_push(b, CRD, now, token_crd(crd));
        out_push(b, VAL, now, token_val(v));
    } else if (k == VECRED_IDLE) {
        out_push(b, CRD, now, r->stop);
        out_push(b, VAL, now, r->stop);
        r->draining = 0;
    }
    return 1;
}

static void take(block *b, vecred *r, token c, token v)
{
    const char *fault = NULL;
    int rc = r->ops->add(r->store, c.i, v.kind == TOKEN_VAL ? v.v : 0.0, &fault);
    if (rc < 0)
        b->failed = 1;
    else if (rc)
        b->fault = fault;
}

/* Lane's next pair, if it shows one and has not closed the outer fiber:
 * 1 taken, 0 nothing to take. */
static int take_lane(block *b, vecred *r, int lane, cycle_t now)
{
    token c, v;
    int pc = 2 * lane + CRD, pv = 2 * lane + VAL;
    if (r->closed[lane] || r->done[lane] || !in_peek(b, pc, now, &c) || !in_peek(b, pv, now, &v))
        return 0;
    in_pop(b, pc, now);
    in_pop(b, pv, now);
    int data = c.kind == TOKEN_CRD;
    if (data != (v.kind == TOKEN_VAL || v.kind == TOKEN_EMPTY) || (!data && !token_equal(c, v))) {
        b->fault = "the coordinate and value streams do not match";
        return 1;
    }
    if (c.kind == TOKEN_DONE) {
        r->done[lane] = 1;
        r->ndone++;
    } else if (c.kind == TOKEN_CRD) {
        take(b, r, c, v);
    } else if (c.level > 0) {
        r->closed[lane] = 1;
        r->nclosed++;
        r->stop = token_stop_above(c);
    }
    return 1;
}

int vecred_step(block *b, cycle_t now)
{
    vecred *r = b->state;
    if (r->draining)
        return drain(b, r, now);
    int taken = 0, first = r->next_lane;
    for (int i = 0; i < r->lanes && (!r->rate || taken < r->rate); i++) {
        int lane = r->rate ? (first + i) % r->lanes : i;
        if (take_lane(b, r, lane, now)) {
            taken++;
            r->next_lane = (lane + 1) % r->lanes;
        }
    }
    if (r->ndone == r->lanes) {
        out_push(b, CRD, now, token_done());
        out_push(b, VAL, now, token_done());
        r->ndone = 0;
        memset(r->done, 0, sizeof r->done);
    } else if (r->nclosed == r->lanes) {
        if (r->ops->close)
            r->ops->close(r->store);
        r->draining = 1;
        r->nclosed = 0;
        memset(r->closed, 0, sizeof r->closed);
    }
    return taken > 0;
}

/* Whether every lane that has yet to close the outer fiber or give D
 * shows its next pair at now, and one does: then a step's takes depend
 * on nothing that is not visible yet. */
static int lanes_ready(block *b, const vecred *r, cycle_t now)
{
    int open = 0;
    for (int lane = 0; lane < r->lanes; lane++) {
        if (r->closed[lane] || r->done[lane])
            continue;
        if (!in_has(b, 2 * lane + CRD, now) || !in_has(b, 2 * lane + VAL, now))
            return 0;
        open = 1;
    }
    return open;
}

/* Up to max steps from t on as vecred_step makes them, where each looks
 * at tokens visible in its cycle only: the read-out, and with every open
 * lane showing a pair, the takes. A single lane's pairs of a coordinate
 * and a value, nearly all its steps, are taken here directly. Each step
 * pushes at most one token on each output. The number of steps made;
 * *idle set when a single lane's next would find no pair. */
static uint64_t vecred_stretch(block *b, cycle_t t, uint64_t max, int *idle)
{
    vecred *r = b->state;
    const uint32_t ii = b->ii;
    uint64_t n = 0;
    token c, v;
    for (; n < max && !b->fault && !b->failed; t += ii, n++) {
        if (r->draining) {
            drain(b, r, t);
            continue;
        }
        if (r->lanes > 1) {
            if (!lanes_ready(b, r, t))
                break;
            vecred_step(b, t);
            continue;
        }
        if (!in_peek(b, CRD, t, &c) || !in_peek(b, VAL, t, &v)) {
            *idle = 1;
            break;
        }
        if (c.kind != TOKEN_CRD || (v.kind != TOKEN_VAL && v.kind != TOKEN_EMPTY)) {
            vecred_step(b, t);
            continue;
        }
        in_pop(b, CRD, t);
        in_pop(b, VAL, t);
        take(b, r, c, v);
    }
    return n;
}

void vecred_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, vecred_stretch);
}

int vecred_create_with(block *b, const block_ctx *ctx, const vecred_store_ops *store,
                       sam_error *err)
{
    int lanes;
    int64_t rate;
    if (lanes_count(b, ctx, &lanes, err) || block_param_get(b, ctx, "rate", &rate, err))
        return -1;
    vecred *r = block_state_new(b, sizeof *r, err);
    if (!r)
        return -1;
    r->ops = store;
    if (!(r->store = store->create(b, ctx, err))) {
        free(r);
        b->state = NULL;
        return -1;
    }
    r->lanes = lanes;
    r->rate = rate;
    b->nin = 2 * r->lanes;
    b->nout = 2;
    for (int p = 0; p < b->nin; p++)
        b->in_names[p] = p % 2 == CRD ? "crd" : "val";
    b->out_names[CRD] = "crd";
    b->out_names[VAL] = "val";
    return 0;
}

/* The lanes and rate stay; the storage empties itself. */
int vecred_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    vecred *r = b->state;
    r->draining = 0;
    r->stop = (token){0};
    r->next_lane = 0;
    r->nclosed = r->ndone = 0;
    memset(r->closed, 0, sizeof r->closed);
    memset(r->done, 0, sizeof r->done);
    return r->ops->rearm(r->store, b, ctx, err);
}

int vecred_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const kinds[] = {"crd", "val"};
    const vecred *r = b->state;
    int kind = block_port_by_kind(b, e, input, kinds, 2, err);
    if (kind < 0 || !input || r->lanes == 1)
        return kind;
    int lane = lanes_of_edge(b, e, r->lanes, err);
    return lane < 0 ? -1 : 2 * lane + kind;
}

void vecred_destroy(block *b)
{
    vecred *r = b->state;
    if (r)
        r->ops->destroy(r->store);
    free(r);
    b->state = NULL;
}

/* ---- the default storage: sorted when the fiber closes ---------------- */

typedef struct point {
    int64_t crd;
    uint64_t seq;       /* arrival order, so that sums are deterministic */
    double val;
} point;

typedef struct sorted_store {
    point *pts;
    size_t n, cap, next;    /* next: the point to emit while draining */
    uint64_t seq;
} sorted_store;

static int point_cmp(const void *a, const void *b)
{
    const point *x = a, *y = b;
    if (x->crd != y->crd)
        return x->crd < y->crd ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts the fiber's points and sums those with equal coordinates. */
static void sorted_close(void *store)
{
    sorted_store *st = store;
    if (st->n)
        qsort(st->pts, st->n, sizeof *st->pts, point_cmp);
    size_t out = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (out && st->pts[out - 1].crd == st->pts[i].crd)
            st->pts[out - 1].val += st->pts[i].val;
        else
            st->pts[out++] = st->pts[i];
    }
    st->n = out;
}

static vecred_read sorted_read(void *store, int64_t *crd, double *v)
{
    sorted_store *st = store;
    if (st->next == st->n) {
        st->n = st->next = 0;
        return VECRED_IDLE;
    }
    *crd = st->pts[st->next].crd;
    *v = st->pts[st->next++].val;
    return VECRED_POINT;
}

static int sorted_add(void *store, int64_t crd, double v, const char **fault)
{
    (void)fault;
    sorted_store *st = store;
    point *p = grow_array(st->pts, st->n, &st->cap, sizeof *p, 64);
    if (!p)
        return -1;
    st->pts = p;
    st->pts[st->n++] = (point){.crd = crd, .seq = st->seq++, .val = v};
    return 0;
}

static int sorted_rearm(void *store, const block *b, const block_ctx *ctx, sam_error *err)
{
    (void)b, (void)ctx, (void)err;
    sorted_store *st = store;
    st->n = st->next = 0;
    st->seq = 0;
    return 0;
}

static void *sorted_create(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)b, (void)ctx;
    sorted_store *st = calloc(1, sizeof *st);
    if (!st)
        error_set(err, "out of memory");
    return st;
}

static void sorted_destroy(void *store)
{
    sorted_store *st = store;
    free(st->pts);
    free(st);
}

static const vecred_store_ops sorted_store_ops = {
    .create = sorted_create,
    .add = sorted_add,
    .close = sorted_close,
    .read = sorted_read,
    .rearm = sorted_rearm,
    .destroy = sorted_destroy,
};

static const param vecred_params[] = {
    VECRED_RATE_PARAM,
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static int sorted_block_create(block *b, const block_ctx *ctx, sam_error *err)
{
    return vecred_create_with(b, ctx, &sorted_store_ops, err);
}

const block_ops vectorreducer_ops = {
    .type = "vectorreducer",
    .impl = "sparse",
    .about = "sums the fibers of a level into one in an ideal sparse ordered store: the "
             "distinct coordinates leave back to back, one a cycle",
    .params = vecred_params,
    .create = sorted_block_create,
    .rearm = vecred_rearm,
    .port = vecred_port,
    .step = vecred_step,
    .run = vecred_run,
    .peek = 1,
    .destroy = vecred_destroy,
};
