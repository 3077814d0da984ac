/* Tile sequencing (SAM paper Fig. 9): the tiles an expression visits, in
 * the order of its tile loops, with the sparse tiles skipped. A point of
 * the tile loops is visited when the right side may be nonzero there: a
 * product needs every factor's tile to hold entries, a sum any term's;
 * each tile loop coiterates the tiles of the operands it indexes as the
 * computation's scanners, intersecters and unioners coiterate
 * coordinates. */
#ifndef SAMSIM_TILESEQ_H
#define SAMSIM_TILESEQ_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../formats/tile.h"
#include "expr.h"

/* A tensor's tile that the point does not have: a term of a sum that is
 * empty there. */
#define TILESEQ_ABSENT SIZE_MAX

/* A visited point: coord[k], the tile coordinate of loop k; tile[t], the
 * number in tensors[t] of operand t's tile (TILESEQ_ABSENT, and for the
 * result and for operands given as NULL, meaningless). Nonzero stops the
 * walk and is returned. */
typedef int tileseq_visit_fn(void *ctx, const int64_t *coord, const size_t *tile);

/* Walks the tile loops (index[k] at level[k] for k < nloop, outermost
 * first, as tiling_order gives them) over tensors[t], the tiled operands
 * of e (keys on the indices of their accesses, split as the loops say;
 * NULL for the result and for an operand that is not tiled, which every
 * point has whole). */
int tileseq_walk(const expr *e, const int *index, const int *level, int nloop,
                 const tiled_tensor *const *tensors, tileseq_visit_fn *visit, void *ctx,
                 sam_error *err);

#endif
