/* fiberlookup, dense level (SAM-BLOCKS.md 5.2): for each reference r on its
 * input, the coordinates 0 .. dim-1 and their positions r*dim + c, closed
 * by a stop token. Unlike the compressed scanner it walks a fiber without
 * looking ahead, but it too emits the fiber's stop token only once the next
 * reference is visible and merges it with a following stop-token
 * reference (Sk -> Sk+1).
 *
 * The reference cannot process 'N' refs or consecutive stop-token refs
 * (SAM-BLOCKS.md 8.4): it treats a stop token popped at a fiber start as a
 * number and drops one popped while waiting. samsim starts every fiber the
 * way the compressed scanner does: an 'N' ref yields the fiber [N, stop]
 * and a stop-token ref Sk that is not merged into a closing stop is an
 * empty outer fiber, S(k+1). */
#include <stdlib.h>
#include <string.h>

#include "blocks.h"

enum { IN_REF };
enum { OUT_CRD, OUT_REF };

typedef struct dense_scanner {
    int64_t dim, fibers;    /* fibers: how many refs the level holds */
    int64_t base, cur;      /* cur < 0: no fiber open */
    int begin, end_fiber, pend_stop, done;
} dense_scanner;

static void emit(block *b, cycle_t now, token crd, token ref)
{
    out_push(b, OUT_CRD, now, crd);
    out_push(b, OUT_REF, now, ref);
}

/* The fiber's stop token, merged with a stop-token reference at the head
 * of the input, or deferred until a reference is visible. */
static void emit_stop(block *b, dense_scanner *s, cycle_t now)
{
    token head;
    if (!in_peek(b, IN_REF, now, &head)) {
        s->pend_stop = 1;
        return;
    }
    token stop = token_stop(0);
    if (token_is_stop(head)) {
        in_pop(b, IN_REF, now);
        stop = token_stop(head.level + 1);
    }
    emit(b, now, stop, stop);
}

static void close_fiber(block *b, dense_scanner *s, cycle_t now)
{
    s->end_fiber = 1;
    s->cur = -1;
    emit_stop(b, s, now);
}

static void emit_position(block *b, dense_scanner *s, cycle_t now)
{
    emit(b, now, token_crd(s->cur), token_crd(s->base * s->dim + s->cur));
}

static void next_fiber(block *b, dense_scanner *s, cycle_t now, token r)
{
    s->begin = s->end_fiber = 0;
    if (r.kind == TOKEN_DONE) {
        emit(b, now, r, r);
        s->done = 1;
    } else if (token_is_stop(r)) {
        emit(b, now, token_stop(r.level + 1), token_stop(r.level + 1));
        s->end_fiber = 1;
    } else if (r.kind == TOKEN_EMPTY) {
        emit(b, now, r, r);
        s->end_fiber = s->pend_stop = 1;
    } else if (r.kind != TOKEN_CRD || r.i < 0 || r.i >= s->fibers) {
        b->fault = "reference beyond the dense level";
    } else if (s->dim == 0) {
        close_fiber(b, s, now);
    } else {
        s->base = r.i;
        s->cur = 0;
        emit_position(b, s, now);
    }
}

static int dense_step(block *b, cycle_t now)
{
    dense_scanner *s = b->state;
    token r;
    int have = in_peek(b, IN_REF, now, &r);
    if (s->done)
        return 0;
    if (s->pend_stop) {
        if (!have)
            return 0;
        s->pend_stop = 0;
        emit_stop(b, s, now);
        return 1;
    }
    if (s->begin || s->end_fiber) {
        if (!have)
            return 0;
        in_pop(b, IN_REF, now);
        next_fiber(b, s, now, r);
        return 1;
    }
    if (s->cur == s->dim - 1) {
        close_fiber(b, s, now);
        return 1;
    }
    s->cur++;
    emit_position(b, s, now);
    return 1;
}

static int dense_serves(const graph_node *n)
{
    const char *f = graph_node_attr(n, "format");
    return f && !strcmp(f, "dense");
}

static int dense_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t mode;
    const char *tensor = block_attr(ctx, "tensor", err);
    const fibertree *ft;
    if (!tensor || block_attr_int(ctx, "mode", &mode, err))
        return -1;
    const fiber_level *l = block_level(ctx, tensor, (int)mode, &ft, err);
    if (!l)
        return -1;
    if (l->kind != 'd')
        return block_error(b, err, "tensor %s stores mode %lld compressed, not dense", tensor,
                           (long long)mode);
    int k = (int)(l - ft->lv);
    dense_scanner *s = calloc(1, sizeof *s);
    if (!s)
        return error_set(err, "out of memory");
    *s = (dense_scanner){.dim = l->dim, .fibers = k ? fibertree_positions(ft, k - 1) : 1,
                         .begin = 1, .cur = -1};
    b->state = s;
    b->nin = 1;
    b->nout = 2;
    b->in_names[IN_REF] = "ref";
    b->out_names[OUT_CRD] = "crd";
    b->out_names[OUT_REF] = "ref";
    return 0;
}

static int dense_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const in_kinds[] = {"ref"}, *const out_kinds[] = {"crd", "ref"};
    return input ? block_port_by_kind(b, e, 1, in_kinds, 1, err)
                 : block_port_by_kind(b, e, 0, out_kinds, 2, err);
}

static void dense_destroy(block *b)
{
    free(b->state);
}

const block_ops fiberlookup_dense_ops = {
    .type = "fiberlookup",
    .impl = "dense",
    .about = "coordinates and positions of a dense level, one per cycle",
    .serves = dense_serves,
    .create = dense_create,
    .port = dense_port,
    .step = dense_step,
    .destroy = dense_destroy,
};
