/* spaccumulator, impl "dense": the frame of spaccumulator.c (StknDrops,
 * CrdHold, run detection, CrdPtConverter) with the points summed in dense
 * arrays indexed by coordinate (dense_acc.h) instead of a sparse ordered
 * store. Results are those of the default implementation, value for
 * value; only the timing differs:
 *
 * - A point is summed in the cycle it is taken (a read-modify-write of its
 *   slot), as in the sparse store.
 * - Order 1 keeps `banks` dense rows of the inner dimension: one sums the
 *   open run while the completed runs wait and are read out, oldest first.
 *   A point that starts a run while every row still holds one waits, and
 *   so does everything behind it, until a row has been read out. The
 *   sparse store's queue of completed runs is unbounded instead.
 * - Order 2 keeps one dense array of outer x inner dimension, read out
 *   row-major after 'D'.
 * - A completed run is read out by walking the occupancy bitmap from its
 *   first to its last entry, `scan` slots a cycle: each entry costs a cycle
 *   and so does each empty bitmap word passed on the way, where the sparse
 *   store emits its entries back to back. The first entry leaves in the
 *   cycle the run completes, as there.
 *
 * So with scan at least the inner dimension and enough banks, the cycles
 * are the sparse store's (order 2 still passes a word for each empty row
 * between touched ones); with scan 1 a row of a 1000-wide result costs up
 * to 1000 cycles however few entries it holds. The dimensions are those of
 * the tensors scanned under in0 and in1 (without bound tensors the arrays
 * grow to the coordinates seen, and the row stride of order 2 is the
 * largest inner coordinate plus one). */
#include <stdlib.h>

#include "blocks.h"
#include "dense_acc.h"
#include "spaccumulator.h"

typedef struct dense_store {
    int order, nbanks;
    dense_acc *bank;
    int64_t *outer;         /* order 1: the outer coordinate of each bank's run */
    int head, nclosed;      /* banks head.. hold the completed runs in order;
                               the one after them sums the open run */
} dense_store;

static void dense_destroy(void *store)
{
    dense_store *st = store;
    for (int k = 0; st->bank && k < st->nbanks; k++)
        dense_acc_free(&st->bank[k]);
    free(st->bank);
    free(st->outer);
    free(st);
}

static const param dense_params[] = {
    {"scan", "slots", "bitmap slots the read-out inspects per cycle", 8, 1, 1 << 20, 1, 0},
    {"banks", "rows", "order 1: dense rows, one summing the open run while the others are read "
     "out", 2, 1, 1024, 1, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static void *dense_create(block *b, const block_ctx *ctx, int order, sam_error *err)
{
    int64_t scan, banks;
    if (block_param_get(b, ctx, "scan", &scan, err) ||
        block_param_get(b, ctx, "banks", &banks, err))
        return NULL;
    dense_store *st = calloc(1, sizeof *st);
    int n = order == 2 ? 1 : (int)banks;
    if (st) {
        st->bank = calloc((size_t)n, sizeof *st->bank);
        st->outer = calloc((size_t)n, sizeof *st->outer);
    }
    if (!st || !st->bank || !st->outer) {
        if (st)
            dense_destroy(st);
        error_set(err, "out of memory");
        return NULL;
    }
    st->order = order;
    st->nbanks = n;
    int64_t cols = dense_acc_index_dim(ctx, graph_node_attr(ctx->node, "in0"));
    int64_t rows = order == 2 ? dense_acc_index_dim(ctx, graph_node_attr(ctx->node, "in1")) : 1;
    for (int k = 0; k < n; k++)
        dense_acc_init(&st->bank[k], rows, cols, scan);
    if (dense_acc_bound(st->bank, n, b, ctx, err)) {
        dense_destroy(st);
        return NULL;
    }
    return st;
}

static int dense_open(void *store)
{
    const dense_store *st = store;
    return st->nclosed < st->nbanks;
}

static int dense_add(void *store, const spacc_point *p, const char **fault)
{
    dense_store *st = store;
    int k = (st->head + st->nclosed) % st->nbanks;
    st->outer[k] = p->o;
    return dense_acc_add(&st->bank[k], st->order == 2 ? p->o : 0, p->i, p->v, fault);
}

static int dense_close(void *store)
{
    dense_store *st = store;
    st->nclosed++;
    return 0;
}

/* A completed run holds at least the point that opened it, so the bank
 * being read out is never empty. */
static spacc_read dense_read(void *store, spacc_point *p)
{
    dense_store *st = store;
    if (!st->nclosed)
        return SPACC_IDLE;
    dense_acc *a = &st->bank[st->head];
    int64_t r, c;
    double v;
    if (dense_acc_read(a, &r, &c, &v) != DENSE_ENTRY)
        return SPACC_BUSY;
    *p = (spacc_point){st->order == 2 ? r : st->outer[st->head], c, v};
    if (!a->entries) {
        st->head = (st->head + 1) % st->nbanks;
        st->nclosed--;
    }
    return SPACC_POINT;
}

static const spacc_store_ops dense_store_ops = {
    .create = dense_create,
    .open = dense_open,
    .add = dense_add,
    .close = dense_close,
    .read = dense_read,
    .destroy = dense_destroy,
};

static int spacc_dense_create(block *b, const block_ctx *ctx, sam_error *err)
{
    return spacc_create_with(b, ctx, &dense_store_ops, err);
}

const block_ops spaccumulator_dense_ops = {
    .type = "spaccumulator",
    .impl = "dense",
    .about = "sums (outer, inner) points, orders 1 and 2, in dense rows with an occupancy "
             "bitmap: a completed run is read out scanning the bitmap, a cycle per entry and "
             "per empty word between its first and last entry",
    .params = dense_params,
    .create = spacc_dense_create,
    .rearm = spacc_rearm,
    .port = spacc_port,
    .step = spacc_step,
    .run = spacc_run,
    .peek = 1,
    .destroy = spacc_destroy,
};
