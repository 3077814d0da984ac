#include "tile.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

#define TILE_RADIX_BITS 11
#define TILE_RADIX_SIZE (1u << TILE_RADIX_BITS)

/* Writes one level's tile starts into out (NULL: only counts them) and
 * returns how many there are; a count above TILE_MAX_TILES may stop
 * early, so that the counting pass never walks a huge level. */
typedef size_t tile_cut_fn(const tile_split *s, const void *how, int64_t *out);

typedef struct tile_occupancy {
    const int64_t *crd;     /* sorted */
    size_t n;
    int64_t per_tile;
} tile_occupancy;

void tile_split_init(tile_split *s, int64_t dim)
{
    memset(s, 0, sizeof *s);
    s->dim = dim;
}

void tile_split_free(tile_split *s)
{
    for (int l = 0; l < s->nlevels; l++)
        free(s->start[l]);
    tile_split_init(s, s->dim);
}

/* The end of tile i of level l, a level -1 being the whole range. */
static int64_t tile_split_end(const tile_split *s, int l, size_t i)
{
    return l >= 0 && i + 1 < s->ntiles[l] ? s->start[l][i + 1] : s->dim;
}

static size_t tile_split_parents(const tile_split *s)
{
    return s->nlevels ? s->ntiles[s->nlevels - 1] : 1;
}

static int64_t tile_split_parent_start(const tile_split *s, size_t i)
{
    return s->nlevels ? s->start[s->nlevels - 1][i] : 0;
}

/* The number in level l of the tile that holds x: the last start <= x. */
static size_t tile_split_index(const tile_split *s, int l, int64_t x)
{
    size_t lo = 0, hi = s->ntiles[l];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->start[l][mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* The number in level l of the first tile starting at or after x. */
static size_t tile_split_first_from(const tile_split *s, int l, int64_t x)
{
    size_t lo = 0, hi = s->ntiles[l];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->start[l][mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t tile_shape_cut(const tile_split *s, const void *how, int64_t *out)
{
    int64_t size = *(const int64_t *)how;
    size_t total = 0;
    for (size_t p = 0; p < tile_split_parents(s); p++) {
        int64_t a = tile_split_parent_start(s, p), b = tile_split_end(s, s->nlevels - 1, p);
        /* An empty range (a mode of size 0) is still one tile. */
        uint64_t k = b > a ? (uint64_t)(b - a - 1) / (uint64_t)size + 1 : 1;
        if (k > TILE_MAX_TILES - total)
            return TILE_MAX_TILES + 1;
        for (uint64_t i = 0; out && i < k; i++)
            out[total + i] = a + (int64_t)i * size;
        total += k;
    }
    return total;
}

/* The ranges of parent [a,b) for the sorted coordinates from *j on,
 * *j moved past them. */
static size_t tile_occupancy_parent(const tile_occupancy *o, size_t *j, int64_t a, int64_t b,
                                    int64_t *out)
{
    size_t k = 0;
    if (out)
        out[k] = a;
    k++;
    int64_t count = 0;
    while (*j < o->n && o->crd[*j] < b) {
        int64_t x = o->crd[*j];
        for (; *j < o->n && o->crd[*j] == x; (*j)++)
            count++;
        if (count < o->per_tile)
            continue;
        count = 0;
        /* After the parent's last coordinate the range runs to its end. */
        if (*j < o->n && o->crd[*j] < b) {
            if (out)
                out[k] = x + 1;
            k++;
        }
    }
    return k;
}

static size_t tile_occupancy_cut(const tile_split *s, const void *how, int64_t *out)
{
    const tile_occupancy *o = how;
    size_t total = 0, j = 0;
    for (size_t p = 0; p < tile_split_parents(s); p++)
        total += tile_occupancy_parent(o, &j, tile_split_parent_start(s, p),
                                       tile_split_end(s, s->nlevels - 1, p),
                                       out ? out + total : NULL);
    return total;
}

static int tile_split_room(const tile_split *s, sam_error *err)
{
    if (s->nlevels >= TILE_MAX_LEVELS)
        return error_set(err, "a mode can be cut at most %d times", TILE_MAX_LEVELS);
    return 0;
}

/* Counts the new level's tiles before allocating them. */
static int tile_split_add(tile_split *s, tile_cut_fn *cut, const void *how, sam_error *err)
{
    size_t n = cut(s, how, NULL);
    if (n > TILE_MAX_TILES)
        return error_set(err, "cutting a mode of size %lld makes more than %zu tiles at a level",
                         (long long)s->dim, TILE_MAX_TILES);
    int64_t *start = error_alloc(err, n, sizeof *start);
    if (!start)
        return -1;
    cut(s, how, start);
    s->start[s->nlevels] = start;
    s->ntiles[s->nlevels++] = n;
    return 0;
}

int tile_split_add_shape(tile_split *s, int64_t size, sam_error *err)
{
    if (size < 1)
        return error_set(err, "tile size %lld is not positive", (long long)size);
    if (tile_split_room(s, err))
        return -1;
    return tile_split_add(s, tile_shape_cut, &size, err);
}

static int tile_bits(uint64_t max)
{
    int bits = 0;
    for (; max; max >>= 1)
        bits++;
    return bits;
}

/* Stable LSD radix sort of perm by key[perm[i]], keys below 2^bits. */
static void tile_radix_sort(const int64_t *key, int bits, size_t n, size_t *perm, size_t *tmp)
{
    for (int shift = 0; shift < bits; shift += TILE_RADIX_BITS) {
        size_t count[TILE_RADIX_SIZE + 1] = {0};
        for (size_t i = 0; i < n; i++)
            count[(((uint64_t)key[perm[i]] >> shift) & (TILE_RADIX_SIZE - 1)) + 1]++;
        for (unsigned d = 1; d <= TILE_RADIX_SIZE; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++)
            tmp[count[((uint64_t)key[perm[i]] >> shift) & (TILE_RADIX_SIZE - 1)]++] = perm[i];
        memcpy(perm, tmp, n * sizeof *perm);
    }
}

/* perm and tmp of n entries each, perm the identity; NULL when memory runs out. */
static size_t *tile_perm_alloc(size_t n, size_t **tmp, sam_error *err)
{
    size_t *perm = error_alloc(err, n, sizeof *perm);
    *tmp = perm ? error_alloc(err, n, sizeof **tmp) : NULL;
    if (!*tmp) {
        free(perm);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    return perm;
}

/* A sorted copy of crd (values in [0,dim)), or NULL. */
static int64_t *tile_sorted_crd(const int64_t *crd, size_t n, int64_t dim, sam_error *err)
{
    size_t *tmp, *perm = tile_perm_alloc(n, &tmp, err);
    int64_t *sorted = perm ? error_alloc(err, n, sizeof *sorted) : NULL;
    if (sorted) {
        tile_radix_sort(crd, tile_bits((uint64_t)dim), n, perm, tmp);
        for (size_t i = 0; i < n; i++)
            sorted[i] = crd[perm[i]];
    }
    free(perm);
    free(tmp);
    return sorted;
}

int tile_split_add_occupancy(tile_split *s, const int64_t *crd, size_t n, int64_t per_tile,
                             sam_error *err)
{
    if (per_tile < 1)
        return error_set(err, "%lld entries per tile is not positive", (long long)per_tile);
    if (tile_split_room(s, err))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (crd[i] < 0 || crd[i] >= s->dim)
            return error_set(err, "leader coordinate %lld is outside 0..%lld",
                             (long long)crd[i], (long long)s->dim - 1);
    tile_occupancy o = {tile_sorted_crd(crd, n, s->dim, err), n, per_tile};
    if (!o.crd)
        return -1;
    int rc = tile_split_add(s, tile_occupancy_cut, &o, err);
    free((int64_t *)o.crd);
    return rc;
}

void tile_split_locate(const tile_split *s, int64_t x, int64_t *coord, int64_t *local)
{
    int64_t parent = 0;
    for (int l = 0; l < s->nlevels; l++) {
        size_t i = tile_split_index(s, l, x);
        coord[l] = (int64_t)(i - tile_split_first_from(s, l, parent));
        parent = s->start[l][i];
    }
    *local = x - parent;
}

void tile_split_range(const tile_split *s, int64_t x, int64_t *first, int64_t *extent)
{
    int last = s->nlevels - 1;
    size_t i = last < 0 ? 0 : tile_split_index(s, last, x);
    *first = last < 0 ? 0 : s->start[last][i];
    *extent = tile_split_end(s, last, i) - *first;
}

int64_t tile_split_width(const tile_split *s, int level)
{
    if (level == 0)
        return (int64_t)s->ntiles[0];
    size_t most = 0, run = 0, parent = 0;
    for (size_t i = 0; i < s->ntiles[level]; i++) {
        int64_t x = s->start[level][i];
        /* A tile starting where the next parent does begins its run. */
        if (parent + 1 < s->ntiles[level - 1] && x == s->start[level - 1][parent + 1]) {
            parent++;
            run = 0;
        }
        if (++run > most)
            most = run;
    }
    return (int64_t)most;
}

int64_t tile_split_level_extent(const tile_split *s, int level)
{
    int l = level < s->nlevels ? level : s->nlevels - 1;
    if (l < 0)
        return s->dim;
    int64_t most = 0;
    for (size_t i = 0; i < s->ntiles[l]; i++) {
        int64_t e = tile_split_end(s, l, i) - s->start[l][i];
        if (e > most)
            most = e;
    }
    return most;
}

int64_t tile_split_max_extent(const tile_split *s)
{
    return tile_split_level_extent(s, s->nlevels - 1);
}

void tiled_tensor_free(tiled_tensor *tt)
{
    for (size_t i = 0; i < tt->ntiles; i++)
        tensor_free(&tt->tiles[i].content);
    free(tt->tiles);
    memset(tt, 0, sizeof *tt);
}

static int tile_check_dims(int order, const int64_t *dims, const tile_split *split,
                           sam_error *err)
{
    for (int m = 0; m < order; m++)
        if (split[m].dim != dims[m])
            return error_set(err, "mode %d of size %lld is cut as a mode of size %lld", m,
                             (long long)dims[m], (long long)split[m].dim);
    return 0;
}

/* The readers check coordinates, but a tensor built in memory may not
 * have been, and one outside its tile list has no tile. */
static int tile_check_entries(const tensor *t, sam_error *err)
{
    for (int m = 0; m < t->order; m++)
        for (size_t e = 0; e < t->nnz; e++)
            if (t->crd[m][e] < 0 || t->crd[m][e] >= t->dims[m])
                return error_set(err, "coordinate %lld of mode %d is outside 0..%lld",
                                 (long long)t->crd[m][e], m, (long long)t->dims[m] - 1);
    return 0;
}

/* The keys level by level, within a level the modes cut there. */
static void tiled_keys(tiled_tensor *tt, const tile_split *split)
{
    for (int l = 0; l < TILE_MAX_LEVELS; l++)
        for (int m = 0; m < tt->order; m++)
            if (split[m].nlevels > l) {
                tt->key_mode[tt->nkeys] = m;
                tt->key_level[tt->nkeys] = l;
                tt->key_dim[tt->nkeys++] = tile_split_width(&split[m], l);
            }
}

/* Orders perm by key, stably so that a tile keeps its entries' order.
 * Keys compare as the tiles' numbers in their whole levels do (a level's
 * key is that number less its parent's first, fixed by the keys before
 * it), so each pass sorts by those numbers. */
static int tiled_sort(const tiled_tensor *tt, const tile_split *split, const tensor *t,
                      size_t *perm, size_t *tmp, sam_error *err)
{
    int64_t *digit = error_alloc(err, t->nnz, sizeof *digit);
    if (!digit)
        return -1;
    for (int k = tt->nkeys - 1; k >= 0; k--) {
        const tile_split *s = &split[tt->key_mode[k]];
        const int64_t *crd = t->crd[tt->key_mode[k]];
        for (size_t e = 0; e < t->nnz; e++)
            digit[e] = (int64_t)tile_split_index(s, tt->key_level[k], crd[e]);
        tile_radix_sort(digit, tile_bits(s->ntiles[tt->key_level[k]] - 1), t->nnz, perm, tmp);
    }
    free(digit);
    return 0;
}

/* Entry e's key and its tile's first coordinates and extents. */
static void tiled_place(const tiled_tensor *tt, const tile_split *split, const tensor *t, size_t e,
                        int64_t *key, int64_t *first, int64_t *extent)
{
    int64_t coord[TENSOR_MAX_ORDER][TILE_MAX_LEVELS], local;
    for (int m = 0; m < t->order; m++) {
        tile_split_locate(&split[m], t->crd[m][e], coord[m], &local);
        tile_split_range(&split[m], t->crd[m][e], &first[m], &extent[m]);
    }
    for (int k = 0; k < tt->nkeys; k++)
        key[k] = coord[tt->key_mode[k]][tt->key_level[k]];
}

static int tiled_inside(const tensor *t, size_t e, const int64_t *first, const int64_t *extent)
{
    for (int m = 0; m < t->order; m++)
        if (t->crd[m][e] < first[m] || t->crd[m][e] >= first[m] + extent[m])
            return 0;
    return 1;
}

/* The positions in perm where tiles begin, *n of them. Sorted entries of
 * one tile are consecutive, so a tile ends at the first entry outside its
 * box, and no entry needs its key looked up. */
static size_t *tiled_bounds(const tile_split *split, const tensor *t, const size_t *perm,
                            size_t *n, sam_error *err)
{
    size_t cap = 0, *bound = NULL;
    int64_t first[TENSOR_MAX_ORDER], extent[TENSOR_MAX_ORDER];
    *n = 0;
    for (size_t i = 0; i < t->nnz; i++) {
        if (*n && tiled_inside(t, perm[i], first, extent))
            continue;
        size_t *b = grow_array(bound, *n, &cap, sizeof *b, 16);
        if (!b) {
            free(bound);
            error_set(err, "out of memory for %zu tiles", *n + 1);
            return NULL;
        }
        bound = b;
        bound[(*n)++] = i;
        for (int m = 0; m < t->order; m++)
            tile_split_range(&split[m], t->crd[m][perm[i]], &first[m], &extent[m]);
    }
    return bound;
}

/* Tile tl of the n entries perm[0..n-1], room for them reserved at once. */
static int tiled_fill_one(const tiled_tensor *tt, const tile_split *split, const tensor *t,
                          const size_t *perm, size_t n, tile *tl, sam_error *err)
{
    int64_t first[TENSOR_MAX_ORDER], extent[TENSOR_MAX_ORDER];
    tiled_place(tt, split, t, perm[0], tl->key, first, extent);
    if (tensor_init(&tl->content, t->order, extent, err) || tensor_reserve(&tl->content, n, err))
        return -1;
    for (size_t i = 0; i < n; i++) {
        for (int m = 0; m < t->order; m++)
            tl->content.crd[m][i] = t->crd[m][perm[i]] - first[m];
        tl->content.vals[i] = t->vals[perm[i]];
    }
    tl->content.nnz = n;
    return 0;
}

/* Deals the entries, in key order, into their tiles. */
static int tiled_fill(tiled_tensor *tt, const tile_split *split, const tensor *t,
                      const size_t *perm, sam_error *err)
{
    if (t->nnz == 0)
        return 0;
    size_t n;
    size_t *bound = tiled_bounds(split, t, perm, &n, err);
    if (!bound)
        return -1;
    tt->tiles = error_alloc(err, n, sizeof *tt->tiles);
    int rc = tt->tiles ? 0 : -1;
    for (size_t j = 0; j < n && rc == 0; j++) {
        size_t end = j + 1 < n ? bound[j + 1] : t->nnz;
        tt->ntiles = j + 1; /* freed with the others should filling it fail */
        rc = tiled_fill_one(tt, split, t, perm + bound[j], end - bound[j], &tt->tiles[j], err);
    }
    free(bound);
    return rc;
}

int tensor_tile(const tensor *t, const tile_split *split, tiled_tensor *out, sam_error *err)
{
    memset(out, 0, sizeof *out);
    if (tile_check_dims(t->order, t->dims, split, err) || tile_check_entries(t, err))
        return -1;
    out->order = t->order;
    memcpy(out->dims, t->dims, sizeof out->dims);
    tiled_keys(out, split);
    size_t *tmp, *perm = tile_perm_alloc(t->nnz, &tmp, err);
    int rc = perm ? tiled_sort(out, split, t, perm, tmp, err) : -1;
    free(tmp);
    if (rc == 0)
        rc = tiled_fill(out, split, t, perm, err);
    free(perm);
    if (rc)
        tiled_tensor_free(out);
    return rc;
}

static int tiled_flat_init(const tiled_tensor *tt, const tile_split *split, tensor *out,
                           size_t nnz, sam_error *err)
{
    memset(out, 0, sizeof *out);
    if (tile_check_dims(tt->order, tt->dims, split, err))
        return -1;
    int order = tt->nkeys + tt->order;
    if (order > TENSOR_MAX_ORDER)
        return error_set(err, "%d tile keys and %d modes make more than %d modes", tt->nkeys,
                         tt->order, TENSOR_MAX_ORDER);
    int64_t dims[TENSOR_MAX_ORDER];
    memcpy(dims, tt->key_dim, (size_t)tt->nkeys * sizeof *dims);
    for (int m = 0; m < tt->order; m++)
        dims[tt->nkeys + m] = tile_split_max_extent(&split[m]);
    if (tensor_init(out, order, dims, err) || tensor_reserve(out, nnz, err)) {
        tensor_free(out);
        return -1;
    }
    return 0;
}

int tiled_flatten(const tiled_tensor *tt, const tile_split *split, tensor *out, sam_error *err)
{
    size_t nnz = 0;
    for (size_t i = 0; i < tt->ntiles; i++)
        nnz += tt->tiles[i].content.nnz;
    if (tiled_flat_init(tt, split, out, nnz, err))
        return -1;
    for (size_t i = 0; i < tt->ntiles; i++) {
        const tile *tl = &tt->tiles[i];
        for (size_t e = 0; e < tl->content.nnz; e++, out->nnz++) {
            for (int k = 0; k < tt->nkeys; k++)
                out->crd[k][out->nnz] = tl->key[k];
            for (int m = 0; m < tt->order; m++)
                out->crd[tt->nkeys + m][out->nnz] = tl->content.crd[m][e];
            out->vals[out->nnz] = tl->content.vals[e];
        }
    }
    if (tensor_canonicalize(out, NULL, err)) {
        tensor_free(out);
        return -1;
    }
    return 0;
}
