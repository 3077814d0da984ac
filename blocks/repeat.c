/* repeat (SAM-BLOCKS.md 5.8): repeats each reference once per R of the
 * repeat signal and closes the repetition at S, with the stop token merged
 * into a following stop-token reference (Sk -> Sk+1) as the scanners do. A
 * stop-token reference met by S is an empty fiber of the ref stream and
 * comes out one level higher. A reference and its first signal can be
 * taken in the same cycle.
 *
 * The reference starts expecting a ref and a signal at once, so a signal
 * that arrives before the first ref is consumed against no ref and lost
 * (SAM-BLOCKS.md 8.8). samsim reads a signal only while it holds a ref. */
#include <stdlib.h>

#include "blocks.h"

enum { IN_REF, IN_REPSIG };

typedef struct repeater {
    token cur;
    int held, pend_stop, done;
} repeater;

/* The stop token that ends the repetition of a ref, merged with a
 * stop-token ref at the head of the input, or deferred until a ref is
 * visible. */
static void emit_stop(block *b, repeater *r, cycle_t now)
{
    token stop;
    if (block_closing_stop(b, IN_REF, now, &stop))
        out_push(b, 0, now, stop);
    else
        r->pend_stop = 1;
}

/* Streams that disagree are faults: the reference too stops at a D that
 * meets anything but D, and it would pass a stop-token ref met by R on as
 * if it were a ref. */
static void apply_signal(block *b, repeater *r, cycle_t now, token s)
{
    if (s.kind == TOKEN_DONE || r->cur.kind == TOKEN_DONE) {
        if (s.kind != r->cur.kind) {
            b->fault = "the ref and repeat signal streams end at different points";
            return;
        }
        out_push(b, 0, now, s);
        r->done = 1;
    } else if (s.kind == TOKEN_REPEAT) {
        if (token_is_stop(r->cur))
            b->fault = "repeat signal R for a stop-token ref";
        else
            out_push(b, 0, now, r->cur);
    } else if (s.kind == TOKEN_REPSTOP) {
        r->held = 0;
        if (token_is_stop(r->cur))
            out_push(b, 0, now, token_stop_below(r->cur));
        else
            emit_stop(b, r, now);
    } else {
        b->fault = "not a repeat signal";
    }
}

static int repeat_step(block *b, cycle_t now)
{
    repeater *r = b->state;
    token t;
    if (r->done)
        return 0;
    if (r->pend_stop) {
        if (!in_has(b, IN_REF, now))
            return 0;
        r->pend_stop = 0;
        emit_stop(b, r, now);
        return 1;
    }
    int changed = 0;
    if (!r->held) {
        if (!in_peek(b, IN_REF, now, &r->cur))
            return 0;
        in_pop(b, IN_REF, now);
        r->held = changed = 1;
    }
    if (!in_peek(b, IN_REPSIG, now, &t))
        return changed;
    in_pop(b, IN_REPSIG, now);
    apply_signal(b, r, now, t);
    return 1;
}

static int repeat_create(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx;
    b->state = calloc(1, sizeof(repeater));
    if (!b->state)
        return error_set(err, "out of memory");
    b->nin = 2;
    b->nout = 1;
    b->in_names[IN_REF] = "ref";
    b->in_names[IN_REPSIG] = "repsig";
    b->out_names[0] = "ref";
    return 0;
}

/* The ref input is port 0: a root repeat is fed [0, D] there. */
static int repeat_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const in_kinds[] = {"ref", "repsig"}, *const out_kinds[] = {"ref"};
    return input ? block_port_by_kind(b, e, 1, in_kinds, 2, err)
                 : block_port_by_kind(b, e, 0, out_kinds, 1, err);
}

static void repeat_destroy(block *b)
{
    free(b->state);
}

const block_ops repeat_ops = {
    .type = "repeat",
    .impl = "default",
    .about = "repeats each reference once per repeat signal",
    .create = repeat_create,
    .port = repeat_port,
    .step = repeat_step,
    .peek = 2,
    .destroy = repeat_destroy,
};
