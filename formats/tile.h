/* Tiling: a tensor cut into tiles that fit finite memories (SAM paper
 * section 4.1). Each mode may be split at one or more levels, outermost
 * first: level 0 cuts the mode's whole range, level 1 cuts each level-0
 * tile again, and so on. A level is cut by shape (tiles of a fixed
 * extent, ExTensor's uniform_shape) or by occupancy (tiles whose ranges
 * hold the same number of a leader tensor's entries, TeAAL's
 * uniform_occupancy, counted over the mode's coordinates in the whole
 * tensor: the ranks above are flattened). Either way a level is held by
 * its rule (the shape, or the coordinates where occupancy starts a tile),
 * never tile by tile, so that its cost follows the entries and not the
 * mode's size; every tensor split on the same index takes the same
 * levels, so tiles of different tensors meet where their coordinates do.
 *
 * A tile's coordinate at a level is its number within its parent tile (as
 * taco's split(i, i1, i0, s) gives i1 = i / s), and its entries keep the
 * coordinate within the innermost tile (i0 = i % s). */
#ifndef SAMSIM_TILE_H
#define SAMSIM_TILE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "tensor.h"

#define TILE_MAX_LEVELS 4

/* A mode may be cut into at most this many tiles at one level, so that
 * tile numbers (the product of several modes' widths numbers a result
 * tile) stay far inside 64 bits. */
#define TILE_MAX_TILES ((size_t)1 << 24)

/* A level's tiles by extent: `count` of them are `extent` long. */
typedef struct tile_extent {
    int64_t extent;
    size_t count;
} tile_extent;

/* One level of a mode's cut, held by its rule rather than by its tiles,
 * so that a level of millions of tiles costs no more than its rule: by
 * shape, every parent tile cut every `size` coordinates; by occupancy,
 * the coordinates inside parent tiles where a new tile starts. */
typedef struct tile_level {
    int64_t size;               /* by shape; 0: by occupancy */
    int64_t *breaks;            /* by occupancy: increasing, none at a
                                   parent's first coordinate */
    size_t nbreaks;
    tile_extent *extents;       /* the tiles' extents, increasing */
    size_t nextents;
    size_t ntiles;              /* tiles at this level */
    int64_t width;              /* the most tiles of one parent */
} tile_level;

/* How one mode of size dim is cut. */
typedef struct tile_split {
    int64_t dim;
    int nlevels;                        /* 0: not split */
    tile_level level[TILE_MAX_LEVELS];  /* outermost first */
} tile_split;

/* An unsplit mode of size dim (dim >= 1). */
void tile_split_init(tile_split *s, int64_t dim);

/* Adds a level below the last that cuts each tile of the last (or the
 * whole range) into tiles of `size` coordinates, the last one shorter.
 * Refuses size < 1, more than TILE_MAX_LEVELS levels and more than
 * TILE_MAX_TILES tiles. */
int tile_split_add_shape(tile_split *s, int64_t size, sam_error *err);

/* Adds a level below the last that cuts each tile of the last into
 * ranges holding per_tile of the n coordinates crd (a leader tensor's
 * coordinates in this mode, any order, repeats counted): a range ends
 * after the coordinate at which its count reaches per_tile, or at its
 * parent's end; a coordinate's entries are never divided. Ranges without
 * coordinates between them join the next one, so no tile is empty of the
 * leader except where a parent tile is. Refuses per_tile < 1. */
int tile_split_add_occupancy(tile_split *s, const int64_t *crd, size_t n, int64_t per_tile,
                             sam_error *err);

/* The same, counting per group: entry i of the leader belongs to group
 * group[i] (a label; NULL: all in one), and a range ends after the
 * coordinate at which its entries in one group reach per_tile. Groups
 * are the leader's tiles of another mode (SIGMA's partitions of A's rows
 * hold at most so many entries of each K slab, TeAAL's occupancy split
 * below a shape split of K), so a range holds per_tile of each. */
int tile_split_add_occupancy_grouped(tile_split *s, const int64_t *crd, const int64_t *group,
                                     size_t n, int64_t per_tile, sam_error *err);

/* Where coordinate x (0 <= x < dim) falls: coord[l], its tile's number
 * within its parent at each level l, and *local, x less the first
 * coordinate of its innermost tile. */
void tile_split_locate(const tile_split *s, int64_t x, int64_t *coord, int64_t *local);

/* The first coordinate and the extent of the innermost tile that holds x. */
void tile_split_range(const tile_split *s, int64_t x, int64_t *first, int64_t *extent);

/* The same for the tile at level `level` that holds x (level -1: the
 * whole range). The next tile there starts at first + extent. */
void tile_split_range_at(const tile_split *s, int level, int64_t x, int64_t *first,
                         int64_t *extent);

/* The first coordinate and the extent of the tile at level `level` whose
 * number within its parent is coord[l] at each level l <= level (level
 * -1: the whole range). */
void tile_split_at(const tile_split *s, int level, const int64_t *coord, int64_t *first,
                   int64_t *extent);

/* How many tiles level l has. */
size_t tile_split_count(const tile_split *s, int level);

/* The most tiles any parent has at level l: the size of that tile mode. */
int64_t tile_split_width(const tile_split *s, int level);

/* The largest extent of a tile at the innermost level (dim when unsplit). */
int64_t tile_split_max_extent(const tile_split *s);

/* The same at level `level`, or at the innermost when there are fewer. */
int64_t tile_split_level_extent(const tile_split *s, int level);

void tile_split_free(tile_split *s);

/* A tile's key: its coordinates level by level, and within a level mode by
 * mode over the modes split there. */
#define TILE_MAX_KEYS (TENSOR_MAX_ORDER * TILE_MAX_LEVELS)

typedef struct tile {
    int64_t key[TILE_MAX_KEYS];
    tensor content;         /* the entries, at coordinates within the tile;
                               dims: the tile's extents */
} tile;

typedef struct tiled_tensor {
    int order;                          /* of the tensor tiled */
    int64_t dims[TENSOR_MAX_ORDER];
    int nkeys;
    int key_mode[TILE_MAX_KEYS];        /* the mode and level of each key */
    int key_level[TILE_MAX_KEYS];
    int64_t key_dim[TILE_MAX_KEYS];     /* tile_split_width of that mode and level */
    tile *tiles;                        /* the tiles holding entries, keys
                                           increasing lexicographically */
    size_t ntiles;
} tiled_tensor;

/* Cuts t by split[m] for each mode m (t->order of them, each of t's size
 * in that mode). Entries keep their order within a tile; explicit zeros
 * stay entries. */
int tensor_tile(const tensor *t, const tile_split *split, tiled_tensor *out, sam_error *err);

/* The tiled tensor as one tensor: the keys as its first modes (sized
 * key_dim), then the tensor's own modes at coordinates within the tile
 * (sized by the largest extent of each), in canonical order. */
int tiled_flatten(const tiled_tensor *tt, const tile_split *split, tensor *out, sam_error *err);

void tiled_tensor_free(tiled_tensor *tt);

#endif
