/* union of bitvector streams (SAM paper 4.3; the reference has none), for
 * nodes with format=bitvector: 2 to 4 sides, each a (bv, ref) pair of
 * streams as a bitvector scanner sends them (bitvector.h), met word by
 * word. For each step's words, the OR of them and, for every bit set in
 * it, lowest first, its coordinate k*width + bit (k counting the words
 * taken in the fiber) and each side's ref: its word's base + the popcount
 * of the word below that bit where the word has the bit, N where it lacks
 * it (the value is absent there, and loads as 0).
 *
 * Sides and ports are the bitvector intersect's: inputs bv_in-X, ref_in-X
 * per side; outputs bv (the OR words), ref_out-X per side and crd.
 *
 * Timing, as the bitvector intersect's: with a token pair visible on
 * every side, a step takes one word from each side and sends the OR with
 * the first bit's coordinate and refs in the same cycle; each further
 * bit's follow, one a cycle, in cycles that take nothing. A side at its
 * fiber's stop token while another still has words (an absent fiber)
 * counts as zero words and keeps its stop token. Stop tokens of one level
 * on every side go out on all outputs in one cycle; D on every side ends
 * the stream. An OR of 0 sends the word 0 (emit_zeros=0: nothing): unlike
 * the intersect, whose default follows the reference, the union keeps a
 * word for every step by default, so that its bv output is a whole
 * bitvector stream for a writer. Faults are the bitvector intersect's. */
#include "bitvector.h"
#include "blocks.h"
#include "bv_join.h"

static const param bv_union_params[] = {
    BV_WIDTH_PARAM,
    {"emit_zeros", "0 or 1", "0: an OR of 0 sends nothing on the bv output", 1, 0, 1, 1, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static int bv_union_create(block *b, const block_ctx *ctx, sam_error *err)
{
    return bv_joiner_create(b, ctx, BV_OR, err);
}

const block_ops union_bitvector_ops = {
    .type = "union",
    .impl = "bitvector",
    .about = "OR of bitvector words, then the coordinate and refs (N where absent) of each bit, "
             "one a cycle",
    .params = bv_union_params,
    .create = bv_union_create,
    BV_JOINER_OPS,
};
