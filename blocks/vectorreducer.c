/* vectorreducer (the SAM paper's vector reducer; used by the hand-written
 * matmul_ikj_hand_BLACKBOX graph, with no reference implementation): sums
 * the fibers of one level into one. Within an outer fiber (closed by a
 * stop token of level >= 1) it takes one (coordinate, value) pair a cycle
 * from every inner fiber; when the outer fiber closes it emits the
 * distinct coordinates in order with their sums, one a cycle, then the
 * stop token one level lower. Ports: input and output 0 the coordinates,
 * 1 the values. */
#include <stdlib.h>
#include <string.h>

#include "blocks.h"

enum { CRD, VAL };

typedef struct point {
    int64_t crd;
    uint64_t seq;       /* arrival order, so that sums are deterministic */
    double val;
} point;

typedef struct reducer {
    point *pts;
    size_t n, cap, next;    /* next: the point to emit while draining */
    uint64_t seq;
    int draining;
    token stop;             /* emitted after the points */
} reducer;

static int point_cmp(const void *a, const void *b)
{
    const point *x = a, *y = b;
    if (x->crd != y->crd)
        return x->crd < y->crd ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts the fiber's points and sums those with equal coordinates. */
static void merge_points(reducer *r)
{
    qsort(r->pts, r->n, sizeof *r->pts, point_cmp);
    size_t out = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (out && r->pts[out - 1].crd == r->pts[i].crd)
            r->pts[out - 1].val += r->pts[i].val;
        else
            r->pts[out++] = r->pts[i];
    }
    r->n = out;
}

static int drain(block *b, reducer *r, cycle_t now)
{
    if (r->next < r->n) {
        out_push(b, CRD, now, token_crd(r->pts[r->next].crd));
        out_push(b, VAL, now, token_val(r->pts[r->next].val));
        r->next++;
        return 1;
    }
    out_push(b, CRD, now, r->stop);
    out_push(b, VAL, now, r->stop);
    r->n = r->next = 0;
    r->draining = 0;
    return 1;
}

static int take(block *b, reducer *r, token c, token v)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        point *p = realloc(r->pts, cap * sizeof *p);
        if (!p) {
            b->failed = 1;
            return 1;
        }
        r->pts = p;
        r->cap = cap;
    }
    double x = v.kind == TOKEN_VAL ? v.v : 0.0;
    r->pts[r->n++] = (point){.crd = c.i, .seq = r->seq++, .val = x};
    return 1;
}

static int reducer_step(block *b, cycle_t now)
{
    reducer *r = b->state;
    if (r->draining)
        return drain(b, r, now);
    token c, v;
    if (!in_peek(b, CRD, now, &c) || !in_peek(b, VAL, now, &v))
        return 0;
    in_pop(b, CRD, now);
    in_pop(b, VAL, now);
    int data = c.kind == TOKEN_CRD;
    if (data != (v.kind == TOKEN_VAL || v.kind == TOKEN_EMPTY) || (!data && !token_equal(c, v))) {
        b->fault = "the coordinate and value streams do not match";
        return 1;
    }
    if (c.kind == TOKEN_DONE) {
        out_push(b, CRD, now, c);
        out_push(b, VAL, now, c);
        return 1;
    }
    if (c.kind == TOKEN_CRD)
        return take(b, r, c, v);
    if (c.level > 0) {
        merge_points(r);
        r->stop = token_stop(c.level - 1);
        r->draining = 1;
    }
    return 1;
}

static int reducer_create(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx;
    b->state = calloc(1, sizeof(reducer));
    if (!b->state)
        return error_set(err, "out of memory");
    b->nin = b->nout = 2;
    b->in_names[CRD] = b->out_names[CRD] = "crd";
    b->in_names[VAL] = b->out_names[VAL] = "val";
    return 0;
}

static int reducer_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const kinds[] = {"crd", "val"};
    return block_port_by_kind(b, e, input, kinds, 2, err);
}

static void reducer_destroy(block *b)
{
    reducer *r = b->state;
    if (r)
        free(r->pts);
    free(r);
}

const block_ops vectorreducer_ops = {
    .type = "vectorreducer",
    .impl = "sorted",
    .about = "sums the fibers of a level into one, emitted in coordinate order",
    .create = reducer_create,
    .port = reducer_port,
    .step = reducer_step,
    .destroy = reducer_destroy,
};
