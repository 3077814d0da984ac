/* intersect of two bitvector streams (SAM-BLOCKS.md 6; the reference's
 * IntersectBV2 in sam/sim/src/joiner.py), for nodes with format=bitvector:
 * each side is a (bv, ref) pair of streams as a bitvector scanner sends
 * them, one word and its base ref per fiber; the output is the AND of the
 * two words and, for every bit set in it, lowest first, the pair
 * (ref1, ref2) = each side's base ref + the popcount of its word below
 * that bit (the positions of the two values).
 *
 * Sides and ports are joiner.h's, with bv in place of crd: inputs
 * bv_in-X, ref_in-X of side 0 and 1, outputs bv, ref_out-X, ref_out-Y.
 *
 * Timing, as the reference's: no priming cycle. With a token pair visible
 * on both sides, a step takes both and, for two words, sends the AND with
 * the first bit's refs in the same cycle; each further bit's refs follow,
 * one pair a cycle, in cycles that take nothing. An AND of 0 sends nothing
 * (emit_zeros=1: the word 0 alone, as the reference's option). Two stop
 * tokens of one level go out on all three outputs, and two D end the
 * stream.
 *
 * Where the reference fails, samsim does not: a word meeting a stop token
 * (the bv converter sends an empty fiber as its stop token alone) is a
 * Python type error there; here the word is taken alone, as its
 * intersection with an empty fiber is empty, and the stop tokens then
 * meet. Stop tokens of different levels, a D meeting anything else, a ref
 * that is not a number beside a word, and N or value tokens are faults
 * (the reference asserts or fails). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "joiner.h"

enum { BV1, REF1, BV2, REF2 };

/* j comes first: joiner_port reads b->state as the joiner. */
typedef struct bv_intersect {
    joiner j;               /* the sides and port names only */
    int emit_zeros, done;
    uint64_t w1, w2;        /* the words whose bits are under way */
    int64_t base1, base2;
    uint64_t rest;          /* bits of the AND whose refs are still to go */
} bv_intersect;

/* Sends the refs of the lowest bit of rest and clears it. */
static void emit_refs(block *b, bv_intersect *x, cycle_t now)
{
    uint64_t bit = x->rest & -x->rest, below = bit - 1;
    out_push(b, 1, now, token_crd(x->base1 + __builtin_popcountll(x->w1 & below)));
    out_push(b, 2, now, token_crd(x->base2 + __builtin_popcountll(x->w2 & below)));
    x->rest &= ~bit;
}

static void take(block *b, int side, cycle_t now)
{
    in_pop(b, side == 0 ? BV1 : BV2, now);
    in_pop(b, side == 0 ? REF1 : REF2, now);
}

/* Two words with their base refs. */
static void meet_words(block *b, bv_intersect *x, cycle_t now, token w1, token r1, token w2,
                       token r2)
{
    if (r1.kind != TOKEN_CRD || r2.kind != TOKEN_CRD) {
        b->fault = "a bitvector word without a numeric ref";
        return;
    }
    x->w1 = (uint64_t)w1.i;
    x->w2 = (uint64_t)w2.i;
    x->base1 = r1.i;
    x->base2 = r2.i;
    x->rest = x->w1 & x->w2;
    if (x->rest) {
        out_push(b, 0, now, token_crd((int64_t)x->rest));
        emit_refs(b, x, now);
    } else if (x->emit_zeros) {
        out_push(b, 0, now, token_crd(0));
    }
}

/* Both sides' stop tokens or D, taken and passed on: w1 on the word
 * output and side 1's refs, w2 on side 2's. */
static void pass_on(block *b, cycle_t now, token w1, token w2)
{
    take(b, 0, now);
    take(b, 1, now);
    out_push(b, 0, now, w1);
    out_push(b, 1, now, w1);
    out_push(b, 2, now, w2);
}

static int bv_intersect_step(block *b, cycle_t now)
{
    bv_intersect *x = b->state;
    token w1, r1, w2, r2;
    if (x->done)
        return 0;
    if (x->rest) {
        emit_refs(b, x, now);
        return 1;
    }
    if (!in_peek(b, BV1, now, &w1) || !in_peek(b, REF1, now, &r1) || !in_peek(b, BV2, now, &w2) ||
        !in_peek(b, REF2, now, &r2))
        return 0;
    if (w1.kind == TOKEN_DONE || w2.kind == TOKEN_DONE) {
        if (w1.kind != w2.kind || r1.kind != TOKEN_DONE || r2.kind != TOKEN_DONE) {
            b->fault = "the input streams end at different points";
            return 1;
        }
        pass_on(b, now, w1, w2);
        x->done = 1;
        return 1;
    }
    int s1 = token_is_stop(w1), s2 = token_is_stop(w2);
    if ((!s1 && w1.kind != TOKEN_CRD) || (!s2 && w2.kind != TOKEN_CRD)) {
        b->fault = "not a bitvector stream";
        return 1;
    }
    if (s1 && s2) {
        if (!token_equal(w1, w2) || !token_equal(w1, r1) || !token_equal(w2, r2)) {
            b->fault = "stop tokens of different levels meet";
            return 1;
        }
        pass_on(b, now, w1, w2);
    } else if (s1 || s2) {
        /* A word against an empty fiber: nothing in common. */
        take(b, s1 ? 1 : 0, now);
    } else {
        take(b, 0, now);
        take(b, 1, now);
        meet_words(b, x, now, w1, r1, w2, r2);
    }
    return 1;
}

static const block_param bv_intersect_params[] = {
    {"emit_zeros", "1: an AND of 0 sends the word 0 (the reference's emit_zeros)", 0, 0, 1},
    {NULL, NULL, 0, 0, 0},
};

static int bv_intersect_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t emit_zeros;
    if (block_param_get(b, ctx, "emit_zeros", &emit_zeros, err))
        return -1;
    if (joiner_create(b, ctx, err))
        return -1;
    /* joiner_create allocated a bare joiner; this block keeps its own
     * state around a copy of it. */
    const joiner *j = b->state;
    int sides = j->n;
    bv_intersect *x = sides == 2 ? calloc(1, sizeof *x) : NULL;
    if (x) {
        x->j = *j;
        x->emit_zeros = (int)emit_zeros;
    }
    joiner_destroy(b);
    b->state = x;
    if (sides != 2)
        return block_error(b, err, "a bitvector intersect joins exactly two tensors");
    if (!x)
        return error_set(err, "out of memory");
    /* The names point into the joiner: point them at the copy, bv for crd. */
    for (int k = 0; k < 2; k++) {
        const char *t = x->j.name[k] ? x->j.name[k] : "";
        snprintf(x->j.in_label[2 * k], JOINER_LABEL, "bv_in-%s", t);
        b->in_names[2 * k] = x->j.in_label[2 * k];
        b->in_names[2 * k + 1] = x->j.in_label[2 * k + 1];
        b->out_names[1 + k] = x->j.out_label[1 + k];
    }
    b->out_names[0] = "bv";
    return 0;
}

/* joiner_port, with a bv stream where the joiner has a crd one. */
static int bv_intersect_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    graph_edge as_crd = *e;
    if (!strcmp(e->kind, "bv"))
        as_crd.kind = "crd";
    return joiner_port(b, &as_crd, input, err);
}

static int bv_intersect_serves(const graph_node *n)
{
    const char *f = graph_node_attr(n, "format");
    return f && !strcmp(f, "bitvector");
}

static void bv_intersect_destroy(block *b)
{
    free(b->state);
}

const block_ops intersect_bitvector_ops = {
    .type = "intersect",
    .impl = "bitvector",
    .about = "AND of two bitvector words, then the refs of each common bit, one pair per cycle",
    .params = bv_intersect_params,
    .serves = bv_intersect_serves,
    .create = bv_intersect_create,
    .port = bv_intersect_port,
    .step = bv_intersect_step,
    .peek = 1,
    .destroy = bv_intersect_destroy,
};
