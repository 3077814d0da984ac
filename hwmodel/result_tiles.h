/* The result's tiles as a tiled run fills them, so that the memory model
 * knows how many bytes a partial result tile holds when it is written out
 * and read back in: the entries a tile point adds may be new or land on
 * ones an earlier point made. Each tile's distinct coordinate prefixes are
 * counted level by level (a hash set of (level, prefix) per tile, so that
 * the points of one tile, which come together, probe one small table),
 * which is what its storage takes: amortised O(1) an entry. The deepest
 * level's prefixes move to a bitmap over the tile's positions once that is
 * the smaller: an inner product meets nearly every position of a tile
 * (SIGMA writes a sum, zeros included, for each), which the set would
 * hold at 32 bytes a position. */
#ifndef SAMSIM_RESULT_TILES_H
#define SAMSIM_RESULT_TILES_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../common/hash_table.h"
#include "../formats/layout.h"
#include "../formats/level_format.h"
#include "../formats/tensor.h"

typedef struct result_key {
    int64_t prefix;         /* the coordinates down to level `level`, as one number */
    int64_t level;          /* -1: a free slot */
} result_key;

typedef struct result_count {
    int64_t tile;           /* first: the hash table's key */
    int64_t distinct[TENSOR_MAX_ORDER];     /* prefixes down to each level */
    result_key *keys;       /* the tile's prefixes, open addressing */
    size_t nkeys, usedkeys;
    uint64_t *bits;         /* the deepest level's instead, once smaller */
} result_count;

typedef struct result_tiles {
    level_format format;
    storage_layout layout;              /* how the memories store it, if has_layout */
    int has_layout;
    int64_t extent[TENSOR_MAX_ORDER];   /* the largest tile's, by mode */
    double crd, ref, val;               /* bytes a coordinate, seg entry, value */
    hash_table counts;                  /* result_count entries by tile */
} result_tiles;

/* The result's tiles in format f, stored in layout (NULL: f's own
 * levels), extent by mode. */
void result_tiles_init(result_tiles *r, const level_format *f, const storage_layout *layout,
                       const int64_t *extent, double crd, double ref, double val);

/* Adds part's entries to tile id, at their coordinates plus offset
 * (where part lies within the tile): *before and *after are the tile's
 * bytes in storage (format f's levels) before and after. */
int result_tiles_add(result_tiles *r, int64_t id, const tensor *part, const int64_t *offset,
                     double *before, double *after, sam_error *err);

void result_tiles_free(result_tiles *r);

#endif
