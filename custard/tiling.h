/* The schedule's splits: how an expression's index variables are cut into
 * tiles (SAM paper section 4.1), written as taco writes them:
 *
 *     split(i,i1,i0,128)      i = 128 i1 + i0: tiles of 128 coordinates
 *     split(k,k1,k0,B.64)     ranges of k holding 64 of B's entries each
 *                             (TeAAL's uniform_occupancy with leader B)
 *     split(i0,i01,i00,32)    i0 cut again: a second level of tiles
 *     split(i,i1,i0,A.16384/k1)
 *                             ranges of i holding at most 16384 of A's
 *                             entries within each tile of k1 (SIGMA's
 *                             partitions of A per K slab)
 *     tileorder(i1,j1,k1)     the tile loops, outermost first
 *
 * Commands are separated by spaces or semicolons. Each index may be split
 * up to TILE_MAX_LEVELS times, each time its innermost part; the outer
 * parts (i1, i01) are tile coordinates, and the computation graph runs on
 * each tile unchanged, with the tile's coordinates as its index i. Tiles
 * are visited level by level (every index's first-level tiles, then the
 * second level's within them), and within a level in the computation's
 * loop order, unless tileorder names every tile coordinate once, each
 * index's outer levels before its inner ones: so the tiles may go in
 * another order than the graph's loops (an output-stationary tile order
 * around a Gustavson graph, as ExTensor does). */
#ifndef SAMSIM_TILING_H
#define SAMSIM_TILING_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../formats/tile.h"
#include "expr.h"

#define TILING_NAME 32

typedef struct tiling_level {
    int64_t size;               /* the tile extent, or a leader's entries per tile */
    int leader;                 /* occupancy: the leader's tensor number; -1: by shape */
    /* Occupancy counted per tile of another index's level (the "/k1"),
     * or -1: over the whole tensor. */
    int group_index, group_level;
    char outer[TILING_NAME];    /* the names the split gives, for messages and text */
    char inner[TILING_NAME];
} tiling_level;

typedef struct tiling {
    int nlevels[EXPR_MAX_INDICES];      /* per index variable of the expression */
    tiling_level level[EXPR_MAX_INDICES][TILE_MAX_LEVELS];
    int depth;                          /* the most levels of any index */
    int norder;                         /* tileorder's coordinates, 0: none */
    int order_index[EXPR_MAX_INDICES * TILE_MAX_LEVELS];
    int order_level[EXPR_MAX_INDICES * TILE_MAX_LEVELS];
} tiling;

/* Parses text against expression e. Refuses an unknown command or index,
 * a name used twice or already an index of e, a split of a tile
 * coordinate (split the inner part), more than TILE_MAX_LEVELS levels of
 * one index, a size below 1, a leader that is not an operand of e
 * indexed by the index split, and a tileorder given twice, naming
 * something other than a tile coordinate, missing one or naming one
 * twice, or an inner level before its outer. Errors name the command. */
int tiling_parse(const char *text, const expr *e, tiling *t, sam_error *err);

/* The splits as commands again, one space between them. */
void tiling_format(const tiling *t, const expr *e, char *buf, size_t size);

/* Cuts each index i of e (of size dims[i]) as t says, into split[i]; an
 * occupancy level counts the entries of leader[its tensor number], per
 * tile of its group's index when it names one (that index cut first).
 * Errors name the split. */
int tiling_cut(const tiling *t, const expr *e, const tensor *const *leader, const int64_t *dims,
               tile_split *split, sam_error *err);

/* The order tiles are visited in, given the computation's loop order
 * (loop[0..nloop-1], index numbers) for want of a tileorder: index[k]
 * and level[k] for each position k; returns how many positions there
 * are. */
int tiling_order(const tiling *t, const int *loop, int nloop, int *index, int *level);

#endif
