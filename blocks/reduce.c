/* reduce (SAM-BLOCKS.md 5.12): sums each innermost fiber of a value
 * stream into one value, removing a level of nesting: S0 emits the sum
 * (0 for an empty fiber), a higher Sk emits the sum and S(k-1) in the next
 * cycle, without taking input in that cycle.
 *
 * A stop token that closes an innermost fiber never opened (engine/token.h:
 * an outer fiber without elements, such as a row whose intersection is
 * empty one level up) has no fiber to sum: it emits no value, in the cycle
 * where the reference emits a 0 for which the result has no coordinate.
 *
 * The reference's `done` flag is true only in the cycle after 'D' (section
 * 8, item 5): that cycle emits nothing, takes no input and clears the
 * block for another stream. The flag has no effect on the run, which ends
 * with the writers; samsim keeps the idle cycle so that a stream following
 * a 'D' is timed as in the reference. */
#include "blocks.h"

typedef struct reducer {
    double sum;
    token pend;             /* a stop token Sk (k >= 1) that owes S(k-1); any
                               other token: none */
    int after_done;
} reducer;

static int reduce_step(block *b, cycle_t now)
{
    reducer *r = b->state;
    token t;
    if (r->after_done) {
        *r = (reducer){0};
        return 1;
    }
    if (token_is_stop(r->pend)) {
        out_push(b, 0, now, token_stop_above(r->pend));
        r->pend = token_empty();
        return 1;
    }
    if (!in_peek(b, 0, now, &t))
        return 0;
    in_pop(b, 0, now);
    if (token_is_done(t)) {
        out_push(b, 0, now, t);
        r->after_done = 1;
    } else if (token_is_stop(t)) {
        if (!t.hollow)
            out_push(b, 0, now, token_val(r->sum));
        r->sum = 0.0;
        r->pend = t.level > 0 ? t : token_empty();
    } else {
        r->sum += t.kind == TOKEN_VAL ? t.v : t.kind == TOKEN_CRD ? (double)t.i : 0.0;
    }
    return 1;
}

/* Up to max steps from t on that sum a value, close a fiber or send the
 * stop token a fiber's close owes, as reduce_step makes them: all but the
 * steps around D. They look at the input's head only, which is final once
 * visible, and push at most one token each. The number of steps made;
 * *idle set when the next would find nothing to do. */
static uint64_t reduce_fibers(block *b, cycle_t t, uint64_t max, int *idle)
{
    reducer *r = b->state;
    uint64_t n = 0;
    token x;
    for (; n < max && !r->after_done; t += b->ii, n++) {
        if (token_is_stop(r->pend)) {
            out_push(b, 0, t, token_stop_above(r->pend));
            r->pend = token_empty();
            continue;
        }
        if (!in_peek(b, 0, t, &x)) {
            *idle = 1;
            break;
        }
        if (token_is_done(x))
            break;
        in_pop(b, 0, t);
        if (!token_is_stop(x)) {
            r->sum += x.kind == TOKEN_VAL ? x.v : x.kind == TOKEN_CRD ? (double)x.i : 0.0;
            continue;
        }
        if (!x.hollow)
            out_push(b, 0, t, token_val(r->sum));
        r->sum = 0.0;
        r->pend = x.level > 0 ? x : token_empty();
    }
    return n;
}

static void reduce_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, reduce_fibers);
}

static int reduce_create(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx;
    if (!block_state_new(b, sizeof(reducer), err))
        return -1;
    b->nin = b->nout = 1;
    b->in_names[0] = "val";
    b->out_names[0] = "val";
    return 0;
}

static int reduce_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    *(reducer *)b->state = (reducer){0};
    return 0;
}

static int reduce_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const kinds[] = {"val"};
    return block_port_by_kind(b, e, input, kinds, 1, err);
}

const block_ops reduce_ops = {
    .type = "reduce",
    .impl = "ideal",
    .about = "sum of each innermost fiber, one token per cycle",
    .create = reduce_create,
    .rearm = reduce_rearm,
    .port = reduce_port,
    .step = reduce_step,
    .run = reduce_run,
    .peek = 1,
};
