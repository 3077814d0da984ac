/* The fibers of a cached operand (place.T = cache) that a tile point
 * touches: the coordinates of T's outermost level in its tile that every
 * other operand of the point indexing that level's index has in its tile
 * (Gamma: the rows of B that the row of A in the point selects). T's tile
 * lists its outermost fibers once, coordinates increasing, with their
 * bytes; a point's selection then costs what the other operands' tiles
 * hold (sorted, intersected, each found in T's list by bisection), never
 * what T's dimension is. */
#ifndef SAMSIM_RUN_FIBERS_H
#define SAMSIM_RUN_FIBERS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../formats/fibertree.h"
#include "../hwmodel/hw.h"
#include "../hwmodel/memory.h"

/* A tree's outermost fibers: each one's coordinate and bytes, its own
 * coordinate at the outer level (a compressed level's) and reference at
 * the level below with its whole subtree. */
typedef struct tile_fibers {
    int64_t *crd;               /* increasing */
    double *bytes;
    size_t n;
} tile_fibers;

/* The fibers of ft's outermost level, at hw's bytes. A tree with a
 * linked-list level is refused: its fibers are not ranges of positions. */
int tile_fibers_build(const fibertree *ft, const hw_desc *hw, tile_fibers *out, sam_error *err);

/* The same from a tile's content stored in layout l over format f
 * (formats/layout.h): each fiber's bytes as that layout stores it. */
int tile_fibers_build_stored(const tensor *content, const level_format *f,
                             const storage_layout *l, const hw_desc *hw, tile_fibers *out,
                             sam_error *err);

void tile_fibers_free(tile_fibers *f);

/* A point's touched fibers, and the room to find them. */
typedef struct fiber_touch {
    mem_fiber *fiber;
    size_t n, room;
    int64_t *set, *other;       /* coordinate sets, sorted without repeats */
    size_t nset, setroom, otherroom;
} fiber_touch;

/* The fibers of f (those of T's tile `tile`) whose coordinates are in
 * each of the nsets lists crd[s][0..len[s]-1] (any order, repeats
 * allowed; none: every fiber), in increasing coordinate order, into
 * t->fiber[0..t->n-1]. */
int fiber_touch_select(fiber_touch *t, const tile_fibers *f, int64_t tile,
                       const int64_t *const *crd, const size_t *len, int nsets, sam_error *err);

void fiber_touch_free(fiber_touch *t);

#endif
