/* fiberwrite of the values (SAM-BLOCKS.md 5.4): keeps every value token in
 * order, one per cycle; stop tokens carry no value and N stores 0. */
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "blocks.h"

typedef struct vals_writer {
    double *vals;
    size_t n, cap;
} vals_writer;

static void vals_take(block *b, token t, cycle_t now)
{
    vals_writer *w = b->state;
    (void)now;
    if (t.kind == TOKEN_DONE) {
        b->done = 1;
        return;
    }
    if (token_is_stop(t))
        return;
    double *v = grow_array(w->vals, w->n, &w->cap, sizeof *v, 64);
    if (!v) {
        b->failed = 1;
        return;
    }
    w->vals = v;
    w->vals[w->n++] = t.kind == TOKEN_VAL ? t.v : t.kind == TOKEN_CRD ? (double)t.i : 0.0;
}

/* A run of values appended in one go: an array's loads of a scanner's
 * fiber on their way straight to this writer. */
static uint64_t vals_take_slice(block *b, const channel *c, const channel_entry *run, uint64_t n,
                                cycle_t now)
{
    vals_writer *w = b->state;
    if (channel_run_kind(run) != TOKEN_VAL) {
        for (uint64_t k = 0; k < n; k++, now += b->ii)
            vals_take(b, channel_run_token(c, run, k), now);
        return n;
    }
    double *v = grow_array_room(w->vals, w->n, n, &w->cap, sizeof *v, 64);
    if (!v) {
        b->failed = 1;
        return n;
    }
    w->vals = v;
    memcpy(v + w->n, (const double *)c->run_base + channel_run_first(run), n * sizeof *v);
    w->n += n;
    return n;
}

static int vals_step(block *b, cycle_t now)
{
    return block_take_step(b, now, vals_take);
}

static void vals_run(block *b, cycle_t until)
{
    block_take_run_slices(b, until, vals_take, vals_take_slice);
}

static int vals_serves(const graph_node *n)
{
    return blocks_attr_is(n, "mode", "vals");
}

static int vals_create(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx;
    if (!block_state_new(b, sizeof(vals_writer), err))
        return -1;
    b->nin = 1;
    b->in_names[0] = "val";
    return 0;
}

/* Empty, as created: an array collect left is kept for the next run. */
static int vals_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    ((vals_writer *)b->state)->n = 0;
    return 0;
}

static int vals_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    return block_sink_port(b, e, input, "val", err);
}

static int vals_collect(block *b, fibertree *result, sam_error *err)
{
    vals_writer *w = b->state;
    double *vals = grow_fit(w->vals, w->n, w->cap, sizeof *vals);
    if (!vals)
        return error_set(err, "out of memory");
    result->vals = vals;
    result->nvals = w->n;
    w->vals = NULL;
    w->n = w->cap = 0;
    return 0;
}

static void vals_destroy(block *b)
{
    vals_writer *w = b->state;
    if (w)
        free(w->vals);
    free(w);
}

const block_ops fiberwrite_vals_ops = {
    .type = "fiberwrite",
    .impl = "vals",
    .about = "writes the value array",
    .serves = vals_serves,
    .create = vals_create,
    .rearm = vals_rearm,
    .port = vals_port,
    .step = vals_step,
    .run = vals_run,
    .peek = 1,
    .takes_runs = 1,
    .destroy = vals_destroy,
    .collect = vals_collect,
};
