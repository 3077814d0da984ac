/* Which points of a tiled run's walk are the last to add to their result
 * tile, so that the LLB may send that tile on to DRAM as soon as it has it
 * (llb.eager) instead of with the rest of its LLB tile. The run walks its
 * points once ahead, naming each point's result tile at the PE level
 * (inner) and at the LLB level (outer); a point is final when no later
 * point adds to its inner tile and its outer tile has no later stay (a run
 * of consecutive points adding to it) that would read it back: a tile sent
 * on is never needed again. */
#ifndef SAMSIM_FINAL_POINTS_H
#define SAMSIM_FINAL_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

/* Per point k of n, its result tiles inner[k] and outer[k]: *final, a
 * bitmap of n bits (final_points_is), the caller's to free. */
int final_points_mark(const int64_t *inner, const int64_t *outer, size_t n,
                      unsigned char **final, sam_error *err);

static inline int final_points_is(const unsigned char *final, size_t k)
{
    return final[k / 8] >> (k % 8) & 1;
}

#endif
