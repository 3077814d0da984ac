/* fiberlookup, dense level (SAM-BLOCKS.md 5.2): for each reference r on its
 * input, the coordinates 0 .. dim-1 and their positions r*dim + c, closed
 * by a stop token (scanner.h). Unlike the compressed scanner it walks a
 * fiber without looking ahead.
 *
 * The reference cannot process 'N' refs or consecutive stop-token refs
 * (SAM-BLOCKS.md 8.4): it treats a stop token popped at a fiber start as a
 * number and drops one popped while waiting. samsim starts every fiber the
 * way the compressed scanner does (scanner.h): an 'N' ref yields the fiber
 * [N, stop] and a stop-token ref Sk that is not merged into a closing stop
 * is an empty outer fiber, S(k+1). */
#include "blocks.h"
#include "scanner.h"

typedef struct dense {
    scanner s;
    scanner_source src;
    int64_t dim, fibers;    /* fibers: how many refs the level holds */
    int64_t base;           /* the ref of the open fiber */
} dense;

static void emit_position(block *b, const dense *d, cycle_t now)
{
    scanner_emit(b, now, token_crd(d->s.cur), token_crd(d->base * d->dim + d->s.cur));
}

static void next_fiber(block *b, dense *d, cycle_t now, token r)
{
    if (!scanner_start(b, &d->s, now, r))
        return;
    if (r.kind != TOKEN_CRD || r.i < 0 || r.i >= d->fibers) {
        b->fault = "reference beyond the dense level";
    } else if (d->dim == 0) {
        scanner_close(b, &d->s, now);
    } else {
        d->base = r.i;
        d->s.cur = 0;
        emit_position(b, d, now);
    }
}

static int dense_step(block *b, cycle_t now)
{
    dense *d = b->state;
    scanner *s = &d->s;
    token r;
    int have = in_peek(b, SCANNER_IN_REF, now, &r);
    if (s->done || s->pend_stop)
        return scanner_pending(b, s, have, now);
    if (s->begin || s->end_fiber) {
        if (!have)
            return 0;
        next_fiber(b, d, now, r);
        return 1;
    }
    if (s->cur == d->dim - 1) {
        scanner_close(b, s, now);
        return 1;
    }
    s->cur++;
    emit_position(b, d, now);
    return 1;
}

/* Up to max steps from t on that each send the open fiber's next
 * position: every step of a fiber but its first and its stop token's.
 * They look at no input, so a fiber's positions go out in one call. The
 * number of steps made. */
static uint64_t dense_positions(block *b, cycle_t t, uint64_t max, int *idle)
{
    dense *d = b->state;
    scanner *s = &d->s;
    (void)idle;     /* never: a step within a fiber always sends */
    /* cur >= 0 only while a fiber is open (scanner_close resets it). */
    if (s->cur < 0 || s->cur >= d->dim - 1)
        return 0;
    uint64_t n = (uint64_t)(d->dim - 1 - s->cur);
    n = n < max ? n : max;
    int64_t from = s->cur + 1;
    channel *crd = b->out[SCANNER_OUT_CRD].ch, *ref = b->out[SCANNER_OUT_REF].ch;
    if ((crd && channel_push_positions(crd, t, b->ii, NULL, from, n)) ||
        (ref && channel_push_positions(ref, t, b->ii, NULL, d->base * d->dim + from, n)))
        b->failed = 1;
    s->cur += (int64_t)n;
    return n;
}

/* The native run: a fiber's positions in one call, the step at its start
 * and end. */
static void dense_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, dense_positions);
}

static int dense_serves(const graph_node *n)
{
    return blocks_attr_is(n, "format", "dense");
}

/* A scanner of level l of ft, at the start of its stream. */
static dense dense_start(const scanner_source *src, const fibertree *ft, const fiber_level *l)
{
    int k = (int)(l - ft->lv);
    return (dense){.s = SCANNER_START, .src = *src, .dim = l->dim,
                   .fibers = k ? fibertree_positions(ft, k - 1) : 1};
}

static int dense_create(block *b, const block_ctx *ctx, sam_error *err)
{
    const fibertree *ft;
    scanner_source src;
    const fiber_level *l = scanner_create(b, ctx, 'd', &src, &ft, err);
    if (!l)
        return -1;
    dense *d = block_state_new(b, sizeof *d, err);
    if (!d)
        return -1;
    *d = dense_start(&src, ft, l);
    return 0;
}

static int dense_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    dense *d = b->state;
    const fibertree *ft;
    const fiber_level *l = scanner_level(b, ctx, &d->src, &ft, err);
    if (!l)
        return -1;
    *d = dense_start(&d->src, ft, l);
    return 0;
}

const block_ops fiberlookup_dense_ops = {
    .type = "fiberlookup",
    .impl = "dense",
    .about = "coordinates and positions of a dense level, one per cycle",
    .serves = dense_serves,
    .create = dense_create,
    .rearm = dense_rearm,
    .port = scanner_port,
    .step = dense_step,
    .run = dense_run,
    .peek = 2,
};
