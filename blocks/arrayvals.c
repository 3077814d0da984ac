/* arrayvals (SAM-BLOCKS.md 5.3): loads the value at each reference; stop
 * and done tokens pass through and the empty reference N loads 0. */
#include <stdlib.h>

#include "blocks.h"

typedef struct array {
    const char *tensor;
    const double *vals;
    size_t n;
} array;

static void array_take(block *b, token r, cycle_t now)
{
    const array *a = b->state;
    if (r.kind == TOKEN_CRD) {
        if (r.i < 0 || (size_t)r.i >= a->n) {
            b->fault = "reference beyond the value array";
            return;
        }
        r = token_val(a->vals[r.i]);
    } else if (r.kind == TOKEN_EMPTY) {
        r = token_val(0.0);
    }
    out_push(b, 0, now, r);
}

/* A run of positions loads a run of the values: one entry out for one
 * in, pushed from the cycles the steps would push them in. Any other run
 * is taken token by token, as is a position beyond the array (it faults). */
static uint64_t array_take_slice(block *b, const channel *c, const channel_entry *run,
                                 uint64_t n, cycle_t now)
{
    const array *a = b->state;
    const int64_t first = channel_run_first(run);
    uint64_t fit = (size_t)first < a->n ? a->n - (size_t)first : 0;
    if (channel_run_kind(run) != TOKEN_CRD || c->run_base || fit < n) {
        uint64_t k = 0;
        for (; k < n && !b->fault; k++)
            array_take(b, channel_run_token(c, run, k), now + k * b->ii);
        return k;
    }
    if (b->out[0].ch && channel_push_run(b->out[0].ch, now, b->ii, TOKEN_VAL, a->vals, first, n))
        b->failed = 1;
    return n;
}

static int array_step(block *b, cycle_t now)
{
    return block_take_step(b, now, array_take);
}

static void array_run(block *b, cycle_t until)
{
    block_take_run_slices(b, until, array_take, array_take_slice);
}

/* The values of tensor in the data ctx binds. */
static int array_bind(block *b, array *a, const block_ctx *ctx, sam_error *err)
{
    const fibertree *ft = ctx->tensor(ctx, a->tensor);
    if (!ft)
        return block_error(b, err, "tensor %s is not bound to data", a->tensor);
    a->vals = ft->vals;
    a->n = ft->nvals;
    return 0;
}

static int array_create(block *b, const block_ctx *ctx, sam_error *err)
{
    const char *name = block_attr(ctx, "tensor", err);
    if (!name)
        return -1;
    array *a = block_state_new(b, sizeof *a, err);
    if (!a)
        return -1;
    a->tensor = name;
    if (array_bind(b, a, ctx, err)) {
        free(a);
        b->state = NULL;
        return -1;
    }
    b->nin = b->nout = 1;
    b->in_names[0] = "ref";
    b->out_names[0] = "val";
    return 0;
}

static int array_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    return array_bind(b, b->state, ctx, err);
}

const block_ops arrayvals_ops = {
    .type = "arrayvals",
    .impl = "ideal",
    .about = "value loads from a memory that answers in the same cycle",
    .create = array_create,
    .rearm = array_rearm,
    .port = block_port_by_name,
    .step = array_step,
    .run = array_run,
    .peek = 1,
    .takes_runs = 1,
};
