/* fiberwrite of a level (SAM-BLOCKS.md 5.5, 5.6): stores a coordinate
 * stream as seg and crd arrays, one token per cycle. A stop token closes
 * the current fiber only when it holds something, so seg gets one entry per
 * non-empty fiber, as the reference writes it.
 *
 * A dense level is written the same way. The reference's dense writer
 * crashes (8.3), and the stream it would get need not cover every position
 * (vec_sub.gv writes a union of sparse vectors into a dense x), so the
 * level is handed over as the coordinates it received, marked compressed;
 * the result tensor is the same, and is stored densely when written out. */
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "blocks.h"

typedef struct writer {
    int64_t *seg, *crd;
    size_t nseg, ncrd, cap_seg, cap_crd;
    int end_fiber;
    int mode;
    const char *tensor;
} writer;

static int append(int64_t **arr, size_t *n, size_t *cap, int64_t v)
{
    int64_t *a = grow_array(*arr, *n, cap, sizeof *a, 64);
    if (!a)
        return -1;
    *arr = a;
    a[(*n)++] = v;
    return 0;
}

static void writer_take(block *b, token t, cycle_t now)
{
    writer *w = b->state;
    (void)now;
    if (t.kind == TOKEN_DONE) {
        b->done = 1;
    } else if (token_is_stop(t)) {
        if (!w->end_fiber && append(&w->seg, &w->nseg, &w->cap_seg, (int64_t)w->ncrd))
            b->failed = 1;
        w->end_fiber = 1;
    } else {
        if (append(&w->crd, &w->ncrd, &w->cap_crd, t.kind == TOKEN_CRD ? t.i : 0))
            b->failed = 1;
        w->end_fiber = 0;
    }
}

/* A run of coordinates (or positions) appended in one go: a fiber of a
 * scanner on its way straight to this writer. */
static uint64_t writer_take_slice(block *b, const channel *c, const channel_entry *run,
                                  uint64_t n, cycle_t now)
{
    writer *w = b->state;
    if (channel_run_kind(run) != TOKEN_CRD) {
        for (uint64_t k = 0; k < n; k++, now += b->ii)
            writer_take(b, channel_run_token(c, run, k), now);
        return n;
    }
    int64_t *a = grow_array_room(w->crd, w->ncrd, n, &w->cap_crd, sizeof *a, 64);
    if (!a) {
        b->failed = 1;
        return n;
    }
    w->crd = a;
    const int64_t first = channel_run_first(run), *crd = c->run_base;
    if (crd)
        memcpy(a + w->ncrd, crd + first, n * sizeof *a);
    else
        for (uint64_t k = 0; k < n; k++)
            a[w->ncrd + k] = first + (int64_t)k;
    w->ncrd += n;
    w->end_fiber = 0;
    return n;
}

static int writer_step(block *b, cycle_t now)
{
    return block_take_step(b, now, writer_take);
}

static void writer_run(block *b, cycle_t until)
{
    block_take_run_slices(b, until, writer_take, writer_take_slice);
}

static int compressed_serves(const graph_node *n)
{
    return blocks_attr_is(n, "format", "compressed");
}

static int dense_serves(const graph_node *n)
{
    return blocks_attr_is(n, "format", "dense");
}

static int writer_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t mode;
    const char *tensor = block_attr(ctx, "tensor", err);
    if (!tensor || block_attr_int(ctx, "mode", &mode, err))
        return -1;
    writer *w = block_state_new(b, sizeof *w, err);
    if (!w)
        return -1;
    if (append(&w->seg, &w->nseg, &w->cap_seg, 0)) {
        free(w);
        b->state = NULL;
        return error_set(err, "out of memory");
    }
    w->end_fiber = 1;
    w->mode = (int)mode;
    w->tensor = tensor;
    b->nin = 1;
    b->in_names[0] = "crd";
    return 0;
}

/* Empty, as created: arrays collect left are kept for the next run. */
static int writer_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx;
    writer *w = b->state;
    w->nseg = w->ncrd = 0;
    w->end_fiber = 1;
    return append(&w->seg, &w->nseg, &w->cap_seg, 0) ? error_set(err, "out of memory") : 0;
}

static int writer_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    return block_sink_port(b, e, input, "crd", err);
}

/* Hands the arrays, cut to what they hold, to the level of the result
 * that stores this mode. */
static int writer_collect(block *b, fibertree *result, sam_error *err)
{
    writer *w = b->state;
    for (int k = 0; k < result->order; k++) {
        fiber_level *l = &result->lv[k];
        if (l->mode != w->mode)
            continue;
        int64_t *crd = grow_fit(w->crd, w->ncrd, w->cap_crd, sizeof *crd);
        if (!crd)
            return error_set(err, "out of memory");
        w->crd = crd;
        w->seg = grow_fit(w->seg, w->nseg, w->cap_seg, sizeof *w->seg);
        l->kind = 's';
        l->seg = w->seg, l->nseg = w->nseg;
        l->crd = w->crd, l->ncrd = w->ncrd;
        w->seg = w->crd = NULL;
        w->nseg = w->ncrd = w->cap_seg = w->cap_crd = 0;
        return 0;
    }
    return block_error(b, err, "the result has no mode %d", w->mode);
}

static void writer_destroy(block *b)
{
    writer *w = b->state;
    if (w) {
        free(w->seg);
        free(w->crd);
    }
    free(w);
}

/* The rest of both tables: one writer, serving two formats. */
#define WRITER_OPS \
    .type = "fiberwrite", .create = writer_create, .rearm = writer_rearm, .port = writer_port, \
    .step = writer_step, .run = writer_run, .peek = 1, .takes_runs = 1, \
    .destroy = writer_destroy, \
    .collect = writer_collect

const block_ops fiberwrite_compressed_ops = {
    .impl = "compressed",
    .about = "writes a compressed level's seg and crd arrays",
    .serves = compressed_serves,
    WRITER_OPS,
};

const block_ops fiberwrite_dense_ops = {
    .impl = "dense",
    .about = "writes a dense level from the coordinates it receives",
    .serves = dense_serves,
    WRITER_OPS,
};
