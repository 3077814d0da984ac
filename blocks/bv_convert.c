/* bv, the bitvector converter (SAM-BLOCKS.md 6; the reference's BV in
 * sam/sim/src/bitvector.py): turns each fiber of a coordinate stream into
 * one word, bit c set for every coordinate c, `width` bits wide.
 *
 * Timing, as the reference's: one input token is taken a cycle. A
 * coordinate is only collected (no output). The fiber's stop token sends
 * the word in the cycle it is taken, and the stop token itself in the next
 * cycle, in which nothing is taken; a fiber without coordinates sends its
 * stop token alone, in the cycle it is taken. D is passed on. Stop tokens
 * keep their level: a fiber becomes one word.
 *
 * Words travel as coordinate tokens (TOKEN_CRD, bits in i; bit 63 of a
 * 64-bit word reads as a negative number).
 *
 * Where the reference goes wrong, samsim does not follow it:
 * - a coordinate beyond the width (or negative) is a fault; the reference
 *   has no width (Python integers grow);
 * - N, the empty token, adds no bit (an N fiber is empty); the reference
 *   takes anything that is neither a coordinate nor a stop token for D;
 * - D while coordinates wait for their stop token is a fault; the
 *   reference drops them;
 * - a value token is a fault (not a coordinate stream). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"

typedef struct bv_convert {
    int64_t width;
    uint64_t word;      /* the open fiber's bits */
    int any;            /* the open fiber holds a coordinate */
    int pend;           /* stop, taken with the word, goes out next cycle */
    token stop;
    int done;
    char msg[96];       /* the fault, when it names numbers */
} bv_convert;

/* The fiber's stop token s: the word, then s next cycle, or s alone. */
static void close_fiber(block *b, bv_convert *c, cycle_t now, token s)
{
    if (c->any) {
        out_push(b, 0, now, token_crd((int64_t)c->word));
        c->stop = s;
        c->pend = 1;
    } else {
        out_push(b, 0, now, s);
    }
    c->word = 0;
    c->any = 0;
}

static void take_coordinate(block *b, bv_convert *c, int64_t crd)
{
    if (crd < 0 || crd >= c->width) {
        snprintf(c->msg, sizeof c->msg, "coordinate %lld is beyond the bitvector width %lld",
                 (long long)crd, (long long)c->width);
        b->fault = c->msg;
        return;
    }
    c->word |= (uint64_t)1 << crd;
    c->any = 1;
}

static int bv_convert_step(block *b, cycle_t now)
{
    bv_convert *c = b->state;
    token t;
    if (c->done)
        return 0;
    if (c->pend) {
        out_push(b, 0, now, c->stop);
        c->pend = 0;
        return 1;
    }
    if (!in_peek(b, 0, now, &t))
        return 0;
    in_pop(b, 0, now);
    switch (t.kind) {
    case TOKEN_CRD:
        take_coordinate(b, c, t.i);
        break;
    case TOKEN_EMPTY:
        break;
    case TOKEN_STOP:
        close_fiber(b, c, now, t);
        break;
    case TOKEN_DONE:
        if (c->any)
            b->fault = "D ends the stream inside a fiber (coordinates without their stop token)";
        else
            out_push(b, 0, now, t);
        c->done = 1;
        break;
    default:
        b->fault = "not a coordinate stream";
        break;
    }
    return 1;
}

static const block_param bv_convert_params[] = {
    {"width", "bits per word: coordinates 0 to width-1", 64, 1, 64},
    {NULL, NULL, 0, 0, 0},
};

static int bv_convert_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t width;
    if (block_param_get(b, ctx, "width", &width, err))
        return -1;
    bv_convert *c = calloc(1, sizeof *c);
    if (!c)
        return error_set(err, "out of memory");
    c->width = width;
    b->state = c;
    b->nin = b->nout = 1;
    b->in_names[0] = "crd";
    b->out_names[0] = "bv";
    return 0;
}

/* A word stream may be drawn as type=bv or as type=crd. */
static int bv_convert_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    if (!input && (!strcmp(e->kind, "bv") || !strcmp(e->kind, "crd")))
        return 0;
    if (input && !strcmp(e->kind, "crd"))
        return 0;
    return block_error(b, err, "no %s port for a %s stream (edge label '%s')",
                       input ? "input" : "output", e->kind, e->label);
}

/* Nodes converting to bitvectors: to="bv" or no to at all. */
static int bv_convert_serves(const graph_node *n)
{
    const char *to = graph_node_attr(n, "to");
    return !to || !strcmp(to, "bv");
}

static void bv_convert_destroy(block *b)
{
    free(b->state);
}

const block_ops bv_ops = {
    .type = "bv",
    .impl = "default",
    .about = "one bitvector word per fiber of a coordinate stream, then its stop token",
    .params = bv_convert_params,
    .serves = bv_convert_serves,
    .create = bv_convert_create,
    .port = bv_convert_port,
    .step = bv_convert_step,
    .peek = 1,
    .destroy = bv_convert_destroy,
};
