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

static int array_step(block *b, cycle_t now)
{
    return block_take_step(b, now, array_take);
}

static void array_run(block *b, cycle_t until)
{
    block_take_run(b, until, array_take);
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
};
