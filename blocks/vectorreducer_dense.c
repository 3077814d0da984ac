/* vectorreducer, impl "dense": the frame of vectorreducer.c with the
 * pairs summed in a dense row indexed by coordinate with an occupancy
 * bitmap (dense_acc.h) instead of a sparse ordered store. Results are the
 * default implementation's; only the timing differs:
 *
 * - a pair is summed in the cycle it is taken, as there;
 * - when the outer fiber closes, the row is read out by walking its bitmap
 *   from the first to the last entry, `scan` slots a cycle: each entry
 *   costs a cycle and so does each empty bitmap word passed on the way,
 *   where the sparse store emits the entries back to back. The stop token
 *   follows in the cycle after the last entry, as there, and the row is
 *   left empty by the read-out itself.
 *
 * The row is as wide as the dimension of the index named by the node's
 * accum_index (or index) attribute, taken from a tensor scanned under it;
 * without one it grows to the coordinates seen. */
#include <stdlib.h>

#include "blocks.h"
#include "dense_acc.h"
#include "vectorreducer.h"

/* The row, and the index whose dimension it has. */
typedef struct dense_store {
    dense_acc row;
    const char *index;
} dense_store;

static int dense_add(void *store, int64_t crd, double v, const char **fault)
{
    dense_store *st = store;
    return dense_acc_add(&st->row, 0, crd, v, fault);
}

static vecred_read dense_read(void *store, int64_t *crd, double *v)
{
    dense_store *st = store;
    int64_t row;
    switch (dense_acc_read(&st->row, &row, crd, v)) {
    case DENSE_ENTRY:
        return VECRED_POINT;
    case DENSE_SCAN:
        return VECRED_BUSY;
    default:
        return VECRED_IDLE;
    }
}

static const param dense_params[] = {
    {"scan", "slots", "bitmap slots the read-out inspects per cycle", 8, 1, 1 << 20, 1, 0},
    VECRED_RATE_PARAM,
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static void dense_destroy(void *store)
{
    dense_store *st = store;
    dense_acc_free(&st->row);
    free(st);
}

static void *dense_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t scan;
    if (block_param_get(b, ctx, "scan", &scan, err))
        return NULL;
    const char *idx = graph_node_attr(ctx->node, "accum_index");
    if (!idx)
        idx = graph_node_attr(ctx->node, "index");
    dense_store *st = malloc(sizeof *st);
    if (!st) {
        error_set(err, "out of memory");
        return NULL;
    }
    st->index = idx;
    dense_acc_init(&st->row, 1, dense_acc_index_dim(ctx, idx), scan);
    if (dense_acc_bound(&st->row, 1, b, ctx, err)) {
        dense_destroy(st);
        return NULL;
    }
    return st;
}

/* The row as wide as the data ctx binds makes the index. */
static int dense_rearm(void *store, const block *b, const block_ctx *ctx, sam_error *err)
{
    dense_store *st = store;
    return dense_acc_rearm(&st->row, 1, 1, dense_acc_index_dim(ctx, st->index), b, ctx, err);
}

static const vecred_store_ops dense_store_ops = {
    .create = dense_create,
    .add = dense_add,
    .read = dense_read,
    .rearm = dense_rearm,
    .destroy = dense_destroy,
};

static int vecred_dense_create(block *b, const block_ctx *ctx, sam_error *err)
{
    return vecred_create_with(b, ctx, &dense_store_ops, err);
}

const block_ops vectorreducer_dense_ops = {
    .type = "vectorreducer",
    .impl = "dense",
    .about = "sums the fibers of a level into one in a dense row with an occupancy bitmap, "
             "read out scanning the bitmap: a cycle per entry and per empty word between the "
             "first and last entry",
    .params = dense_params,
    .create = vecred_dense_create,
    .rearm = vecred_rearm,
    .port = vecred_port,
    .step = vecred_step,
    .run = vecred_run,
    .peek = 1,
    .destroy = vecred_destroy,
};
