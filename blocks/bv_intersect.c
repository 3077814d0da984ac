/* intersect of bitvector streams (SAM paper 4.3, SAM-BLOCKS.md 6; the
 * reference's IntersectBV2 in sam/sim/src/joiner.py), for nodes with
 * format=bitvector: 2 to 4 sides, each a (bv, ref) pair of streams as a
 * bitvector scanner sends them (bitvector.h), met word by word. For each
 * step's words, the AND of them and, for every bit set in it, lowest
 * first, its coordinate k*width + bit (k counting the words taken in the
 * fiber) and each side's ref, its word's base + the popcount of the word
 * below that bit (the positions of the values). The coordinate output
 * makes everything downstream an ordinary coordinate/reference stream.
 *
 * Sides and ports are joiner.h's, with bv in place of crd: inputs
 * bv_in-X, ref_in-X per side; outputs bv (the AND words), ref_out-X per
 * side and crd (optional, as every output).
 *
 * Timing, as the reference's for each word: no priming cycle. With a
 * token pair visible on every side, a step takes one word from each side
 * and sends the AND with the first bit's coordinate and refs in the same
 * cycle; each further bit's follow, one a cycle, in cycles that take
 * nothing. An AND of 0 sends nothing (emit_zeros=1: the word 0 alone, as
 * the reference's option, which keeps a word for every step on the bv
 * output, as a bitvector writer needs). Stop tokens of one level on every
 * side go out on all outputs in one cycle, and D on every side ends the
 * stream. The sides need not hold the same number of words in a fiber.
 *
 * Where the reference fails, samsim does not: a side at its fiber's stop
 * token while another still has words (the bv converter sends an empty
 * fiber as its stop token alone; a scanner so sends the fiber of an N
 * ref) is a Python type error there; here that side counts as a zero
 * word and keeps its stop token until the others reach theirs. Stop
 * tokens of different levels, a D meeting anything else, a ref that is
 * not a number beside a word, a word with bits beyond the width, and N or
 * value tokens are faults (the reference asserts or fails). */
#include "bitvector.h"
#include "blocks.h"
#include "bv_join.h"

static const param bv_intersect_params[] = {
    BV_WIDTH_PARAM,
    {"emit_zeros", "0 or 1", "1: an AND of 0 sends the word 0 (the reference's emit_zeros)", 0,
     0, 1, 1, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static int bv_intersect_create(block *b, const block_ctx *ctx, sam_error *err)
{
    return bv_joiner_create(b, ctx, BV_AND, err);
}

const block_ops intersect_bitvector_ops = {
    .type = "intersect",
    .impl = "bitvector",
    .about = "AND of bitvector words, then the coordinate and refs of each common bit, one a "
             "cycle",
    .params = bv_intersect_params,
    .create = bv_intersect_create,
    BV_JOINER_OPS,
};
