/* parallelize (SAM paper section 4.4, the parallelizer): deals one stream
 * out to N lanes (lanes=N; output edges lane=L). Within each fiber the
 * e-th element (any token but a stop or D) goes to lane e mod N; a stop
 * token goes to every lane and starts the count again, and so does D. The
 * compiler puts one on each stream of a loop level (the coordinates and
 * every reference beside them): dealt by the same rule, they stay aligned
 * lane by lane, and each lane sees every fiber, empty or not.
 *
 * Timing: one token in a cycle; an element leaves on its lane in that
 * cycle, a stop token or D on all lanes at once. */
#include "blocks.h"
#include "lanes.h"

typedef struct dealer {
    int lanes;
    int next;               /* the lane of the fiber's next element */
} dealer;

/* A token taken: an element to its lane, a stop token or D to all. */
static void deal(block *b, token t, cycle_t now)
{
    dealer *d = b->state;
    if (token_is_stop(t) || token_is_done(t)) {
        for (int lane = 0; lane < d->lanes; lane++)
            out_push(b, lane, now, t);
        d->next = 0;
        return;
    }
    out_push(b, d->next, now, t);
    d->next = d->next + 1 == d->lanes ? 0 : d->next + 1;
}

static int parallelize_step(block *b, cycle_t now)
{
    return block_take_step(b, now, deal);
}

/* The native run: every token visible in its cycle dealt in one loop. */
static void parallelize_run(block *b, cycle_t until)
{
    block_take_run(b, until, deal);
}

static int parallelize_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int lanes;
    if (lanes_count(b, ctx, &lanes, err))
        return -1;
    dealer *d = block_state_new(b, sizeof *d, err);
    if (!d)
        return -1;
    d->lanes = lanes;
    b->nin = 1;
    b->nout = d->lanes;
    b->in_names[0] = "in";
    for (int lane = 0; lane < d->lanes; lane++)
        b->out_names[lane] = lanes_names[lane];
    return 0;
}

static int parallelize_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    ((dealer *)b->state)->next = 0;
    return 0;
}

static int parallelize_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    const dealer *d = b->state;
    return input ? 0 : lanes_of_edge(b, e, d->lanes, err);
}

const block_ops parallelize_ops = {
    .type = "parallelize",
    .impl = "default",
    .about = "deals a stream out to lanes: element e of each fiber to lane e mod N, stop "
             "tokens to all, one token a cycle",
    .create = parallelize_create,
    .rearm = parallelize_rearm,
    .port = parallelize_port,
    .step = parallelize_step,
    .run = parallelize_run,
    .peek = 1,
};
