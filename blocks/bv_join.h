/* What the bitvector intersect, the bitvector union and the bitvector to
 * coordinate converter share: sides of (bv, ref) streams met word by word
 * in lockstep (bitvector.h's protocol), and the bits of the word that
 * comes of them sent one a cycle as ordinary coordinate and ref streams.
 *
 * Side k reads its words on input 2k and their base refs on input 2k+1.
 * A step, once every side shows a token pair, either passes on the stop
 * tokens all sides hold (or D), or takes one word from every side that
 * has one: a side already at its fiber's stop token is left there and
 * counts as a zero word. The word of the step (the AND or the OR of the
 * sides') goes out then, with its lowest bit's coordinate and refs; each
 * further bit's follow one a cycle, in cycles that take nothing. A bit's
 * coordinate is k*width + its index, k counting the words taken in the
 * fiber; side k's ref for it is its base + the popcount of its word below
 * the bit, or N when its word lacks the bit (only in a union). */
#ifndef SAMSIM_BV_JOIN_H
#define SAMSIM_BV_JOIN_H

#include "../engine/block.h"
#include "bitvector.h"
#include "joiner.h"

typedef enum { BV_AND, BV_OR } bv_op;

typedef struct bv_join {
    int n;                      /* sides */
    bv_op op;
    int64_t width;
    int emit_zeros;             /* a step whose word is 0 sends it */
    int out_bv;                 /* the word output, -1: none */
    int out_crd;                /* the coordinate output */
    int out_ref;                /* side k's ref output is out_ref + k */
    int done;
    uint64_t word[JOINER_MAX_SIDES];    /* the sides' words under way */
    int64_t base[JOINER_MAX_SIDES];
    uint64_t rest;              /* bits of the step's word still to send */
    int64_t taken;              /* words taken in the fiber */
    int64_t at;                 /* the coordinate of bit 0 of the words under way */
    char msg[80];               /* a fault that names a number */
} bv_join;

/* One cycle; whether anything changed. */
int bv_join_step(block *b, bv_join *x, cycle_t now);

/* Up to max steps from t on that each send a further bit of the word
 * under way, taking nothing: the steps of a word but its first. They look
 * at no input. The number of steps made. */
uint64_t bv_join_bits(block *b, bv_join *x, cycle_t t, uint64_t max);

/* x at the start of its stream, as configured. */
void bv_join_restart(bv_join *x);

/* The intersect and the union: a joiner's sides and port names (joiner.h,
 * bv in place of crd: inputs bv_in-X and ref_in-X), outputs the word
 * ("bv"), the refs (ref_out-X) and the coordinates ("crd"). j comes
 * first: joiner_port reads b->state as the joiner. */
typedef struct bv_joiner {
    joiner j;
    bv_join x;
} bv_joiner;

/* The block_ops functions of both; create reads the parameters width and
 * emit_zeros. */
int bv_joiner_create(block *b, const block_ctx *ctx, bv_op op, sam_error *err);
int bv_joiner_port(block *b, const graph_edge *e, int input, sam_error *err);
int64_t bv_joiner_word_width(const block *b, int port, int input);
int bv_joiner_step(block *b, cycle_t now);
/* The native run: a word's bits in one loop (bv_join_bits), the step
 * taking the words. */
void bv_joiner_run(block *b, cycle_t until);
int bv_joiner_rearm(block *b, const block_ctx *ctx, sam_error *err);

/* The rest of both block_ops tables, which differ only in what they
 * declare. */
#define BV_JOINER_OPS \
    .serves = bv_serves, .rearm = bv_joiner_rearm, .port = bv_joiner_port, \
    .step = bv_joiner_step, .run = bv_joiner_run, .peek = 1, \
    .word_width = bv_joiner_word_width

#endif
