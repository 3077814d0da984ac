/* repeat (SAM-BLOCKS.md 5.8): repeats each reference once per R of the
 * repeat signal and closes the repetition at S; the state machine is
 * repeater.h's, fed here by the two input channels. */
#include <string.h>

#include "blocks.h"
#include "repeater.h"

enum { IN_REF, IN_REPSIG };

/* The inputs of block b at cycle now, as a repeater reads them. */
typedef struct inputs {
    block *b;
    cycle_t now;
} inputs;

static int ref_peek(void *ctx, token *t)
{
    const inputs *in = ctx;
    return in_peek(in->b, IN_REF, in->now, t);
}

static void ref_pop(void *ctx)
{
    const inputs *in = ctx;
    in_pop(in->b, IN_REF, in->now);
}

static int sig_take(void *ctx, int *kind)
{
    const inputs *in = ctx;
    token t;
    if (!in_peek(in->b, IN_REPSIG, in->now, &t))
        return 0;
    in_pop(in->b, IN_REPSIG, in->now);
    *kind = t.kind;
    return 1;
}

/* Streams that disagree are faults: the reference too stops at a D that
 * meets anything but D, and it would pass a stop-token ref met by R on as
 * if it were a ref. */
static int repeat_step(block *b, cycle_t now)
{
    inputs in = {b, now};
    const repeat_io io = {&in, ref_peek, ref_pop, sig_take,
                          "the ref and repeat signal streams end at different points",
                          "repeat signal R for a stop-token ref"};
    token out;
    int emit;
    int changed = repeater_step(b->state, &io, &out, &emit, &b->fault);
    if (emit)
        out_push(b, 0, now, out);
    return changed;
}

/* Steps from t on in which the held ref goes out for an R and nothing
 * else happens, as repeat_step would make them: a fiber's repetitions.
 * They look at the signal's head only, which is final once visible. */
static uint64_t repeat_refs(block *b, cycle_t t, cycle_t until)
{
    const repeater *r = b->state;
    if (!r->held || r->pend_stop || r->cur.kind == TOKEN_DONE || token_is_stop(r->cur))
        return 0;
    uint64_t n = 0, room = block_room(b, t, block_steps_below(b, t, until));
    token s;
    for (; t < until && n < room && in_peek(b, IN_REPSIG, t, &s) && s.kind == TOKEN_REPEAT;
         t += b->ii, n++) {
        in_pop(b, IN_REPSIG, t);
        out_push(b, 0, t, r->cur);
    }
    return n;
}

static void repeat_run(block *b, cycle_t until)
{
    block_bulk_run(b, until, repeat_refs);
}

static int repeat_create(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx;
    if (!block_state_new(b, sizeof(repeater), err))
        return -1;
    b->nin = 2;
    b->nout = 1;
    b->in_names[IN_REF] = "ref";
    b->in_names[IN_REPSIG] = "repsig";
    b->out_names[0] = "ref";
    return 0;
}

static int repeat_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    *(repeater *)b->state = (repeater){0};
    return 0;
}

/* The ref input is port 0: a root repeat is fed [0, D] there. */
/* Coordinates may be repeated as references, as scanner.c's ref input
 * takes them. */
static int repeat_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const in_kinds[] = {"ref", "repsig"}, *const out_kinds[] = {"ref"};
    if (input && !strcmp(e->kind, "crd"))
        return 0;
    return input ? block_port_by_kind(b, e, 1, in_kinds, 2, err)
                 : block_port_by_kind(b, e, 0, out_kinds, 1, err);
}

const block_ops repeat_ops = {
    .type = "repeat",
    .impl = "default",
    .about = "repeats each reference once per repeat signal",
    .create = repeat_create,
    .rearm = repeat_rearm,
    .port = repeat_port,
    .step = repeat_step,
    .run = repeat_run,
    .peek = 2,
};
