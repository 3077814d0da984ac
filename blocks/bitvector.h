/* What the bitvector blocks share: the stream protocol of SAM paper
 * section 4.3, generalised to fibers of many words. A bitvector stream
 * carries, per fiber, the fiber's words in order, then the fiber's stop
 * token, and D at the end. Word k of a fiber holds coordinates k*width to
 * k*width + width-1, bit c - k*width for coordinate c; a level of
 * dimension dim has ceil(dim / width) words a fiber, zero words included
 * (pseudo-dense). A fiber without words (an absent fiber) is all zeros.
 * Words travel as coordinate tokens, the bits in i (bit 63 of a 64-bit
 * word reads as a negative number). The companion ref stream carries, per
 * word, the position of its first child (the child of bit b is that base
 * plus the popcount of the word's bits below b), and the same stop
 * tokens. */
#ifndef SAMSIM_BITVECTOR_H
#define SAMSIM_BITVECTOR_H

#include <stdint.h>

#include "blocks.h"

/* Every bitvector block declares its width so, and says what width the
 * words on each of its ports have (block_ops.word_width): blocks sharing
 * a stream must agree, and --config sets the width of all of them at
 * once (bitvector.width), never per type. */
#define BV_WIDTH_PARAM \
    {"width", "bits", "bits per word: word k of a fiber holds coordinates k*width to " \
              "k*width+width-1 " \
              "(every block on a word stream the same: set all with bitvector.width)", \
     64, 1, 64, 1, 0}

/* The serves of the blocks that read or write a bitvector level. */
static inline int bv_serves(const graph_node *n)
{
    return blocks_attr_is(n, "format", "bitvector");
}

/* Words a fiber of a level of dimension dim. */
static inline int64_t bv_words(int64_t dim, int64_t width)
{
    return dim > 0 ? (dim - 1) / width + 1 : 0;
}

/* The word of the lowest n bits set, 0 <= n <= 64. */
static inline uint64_t bv_low_bits(int64_t n)
{
    return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* Whether word w has no bit at or beyond width. */
static inline int bv_fits(uint64_t w, int64_t width)
{
    return !(w & ~bv_low_bits(width));
}

#endif
