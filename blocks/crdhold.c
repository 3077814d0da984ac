/* crdhold (SAM-BLOCKS.md 5.15): repeats each outer coordinate once per
 * element of its inner fiber, so that the outer stream gets the shape of
 * the inner one; the inner stream passes through unchanged, in the cycle
 * it is read. It is the reference's pair of a private repsiggen (5.7) on
 * the inner stream and a private repeat (5.8) of the outer stream, with
 * their timing: the repeat signal of an inner token reaches the repeat one
 * cycle after the token is read, and the repeat's ref FIFO is filled with
 * at most one outer token per cycle. That FIFO is the head of the outer
 * input itself (moved counts how much of it the repeat may see), so outer
 * tokens wait in their channel, not here. The repeat itself is
 * repeater.h's, the repeat block's.
 *
 * Ports: index_ports.h. */
#include <stdlib.h>

#include "../common/ring.h"
#include "blocks.h"
#include "index_ports.h"
#include "repeater.h"

typedef struct holder {
    index_names names;
    uint8_t signal;                 /* token kind read from the inner stream this
                                       cycle as R, S or D for the repeat; 0: none */
    ring sig;                       /* the repeat's signal FIFO, of uint8_t */
    int moved;                      /* outer tokens in the repeat's ref FIFO */
    repeater rep;
} holder;

static uint8_t signal_of(token t)
{
    return token_is_stop(t) ? TOKEN_REPSTOP : t.kind == TOKEN_DONE ? TOKEN_DONE : TOKEN_REPEAT;
}

/* The private repeat's inputs at cycle now: the moved part of the outer
 * input as its ref FIFO, and the signal FIFO. */
typedef struct repeat_inputs {
    block *b;
    holder *h;
    cycle_t now;
} repeat_inputs;

static int ref_peek(void *ctx, token *t)
{
    const repeat_inputs *in = ctx;
    return in->h->moved > 0 && in_peek(in->b, INDEX_OUTER, in->now, t);
}

static void ref_pop(void *ctx)
{
    const repeat_inputs *in = ctx;
    in_pop(in->b, INDEX_OUTER, in->now);
    in->h->moved--;
}

static int sig_take(void *ctx, int *kind)
{
    const repeat_inputs *in = ctx;
    if (!ring_count(&in->h->sig))
        return 0;
    *kind = *(const uint8_t *)ring_head(&in->h->sig);
    ring_drop(&in->h->sig);
    return 1;
}

/* One cycle of the private repeat (SAM-BLOCKS.md 5.8, repeater.h). */
static int repeat(block *b, holder *h, cycle_t now, token *out, int *emit)
{
    repeat_inputs in = {b, h, now};
    const repeat_io io = {&in, ref_peek, ref_pop, sig_take,
                          "the outer and inner streams end at different points",
                          "an inner element for an outer stop token"};
    return repeater_step(&h->rep, &io, out, emit, &b->fault);
}

static int hold_step(block *b, cycle_t now)
{
    holder *h = b->state;
    int changed = 0, emit = 0;
    token t;
    if (h->signal) {
        uint8_t *slot = ring_push(&h->sig);
        if (slot)
            *slot = h->signal;
        else
            b->failed = 1;
        h->signal = 0;
        changed = 1;
    }
    if (in_peek(b, INDEX_INNER, now, &t)) {
        in_pop(b, INDEX_INNER, now);
        out_push(b, INDEX_INNER, now, t);
        h->signal = signal_of(t);
        changed = 1;
    }
    if (channel_sees(b->in[INDEX_OUTER].ch, b->in[INDEX_OUTER].reader, now, (uint64_t)h->moved)) {
        h->moved++;
        changed = 1;
    }
    changed |= repeat(b, h, now, &t, &emit);
    if (emit)
        out_push(b, INDEX_OUTER, now, t);
    return changed;
}

/* Up to max steps from t on in which an inner token passes through and
 * the repeat sends the held outer coordinate for the element read the
 * step before: nearly every step of a product. Each takes the R signal
 * waiting from the step before and leaves another, so the FIFO stays
 * empty; the outer input only grows the repeat's ref FIFO. The inner
 * fiber's stop token ends the stretch, leaving its S signal. The number
 * of steps made. */
static uint64_t hold_elements(block *b, cycle_t t, uint64_t max, int *idle)
{
    holder *h = b->state;
    const token cur = h->rep.cur;
    (void)idle;     /* never: a step with an R signal waiting always changes something */
    if (h->signal != TOKEN_REPEAT || ring_count(&h->sig) || !h->rep.held || h->rep.pend_stop ||
        token_is_stop(cur) || token_is_done(cur))
        return 0;
    /* The channels in locals: the pushes could alias the block for all
     * the compiler knows. */
    channel *inner = b->in[INDEX_INNER].ch, *inner_out = b->out[INDEX_INNER].ch,
            *outer_out = b->out[INDEX_OUTER].ch;
    const channel *outer = b->in[INDEX_OUTER].ch;
    const int in_reader = b->in[INDEX_INNER].reader, out_reader = b->in[INDEX_OUTER].reader;
    const uint32_t ii = b->ii;
    uint64_t n = 0, moved = (uint64_t)h->moved;
    int failed = 0;
    token in;
    while (n < max && channel_peek(inner, in_reader, t, &in) && !token_is_done(in)) {
        failed |= channel_pop(inner, in_reader, t);
        if (inner_out)
            failed |= channel_push(inner_out, t, in);
        moved += channel_sees(outer, out_reader, t, moved);
        if (outer_out)
            failed |= channel_push(outer_out, t, cur);
        t += ii, n++;
        if (token_is_stop(in)) {
            h->signal = TOKEN_REPSTOP;
            break;
        }
    }
    h->moved = (int)moved;
    b->failed |= failed != 0;
    return n;
}

/* The native run: stretches of elements in one loop, the step between
 * them. crdhold looks past its inputs' heads, so the engine runs it only
 * as far as its producers' clocks: below until every input is final. */
static void hold_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, hold_elements);
}

static int hold_create(block *b, const block_ctx *ctx, sam_error *err)
{
    index_names names;
    if (index_ports_create(b, ctx, &names, err))
        return -1;
    holder *h = block_state_new(b, sizeof *h, err);
    if (!h)
        return -1;
    h->names = names;
    ring_init(&h->sig, sizeof(uint8_t));
    return 0;
}

static int hold_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    holder *h = b->state;
    h->signal = 0;
    ring_clear(&h->sig);
    h->moved = 0;
    h->rep = (repeater){0};
    return 0;
}

static int hold_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    const holder *h = b->state;
    return index_ports_port(b, &h->names, e, input, err);
}

static void hold_destroy(block *b)
{
    holder *h = b->state;
    if (h)
        ring_free(&h->sig);
    free(h);
}

const block_ops crdhold_ops = {
    .type = "crdhold",
    .impl = "default",
    .about = "repeats each outer coordinate once per element of its inner fiber",
    .create = hold_create,
    .rearm = hold_rearm,
    .port = hold_port,
    .step = hold_step,
    .run = hold_run,
    .adapter_when_bounded = 1,
    .destroy = hold_destroy,
};
