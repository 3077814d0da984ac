#include "tile.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

#define TILE_RADIX_BITS 11
#define TILE_RADIX_SIZE (1u << TILE_RADIX_BITS)

void tile_split_init(tile_split *s, int64_t dim)
{
    memset(s, 0, sizeof *s);
    s->dim = dim;
}

void tile_split_free(tile_split *s)
{
    for (int l = 0; l < s->nlevels; l++) {
        free(s->level[l].breaks);
        free(s->level[l].extents);
    }
    tile_split_init(s, s->dim);
}

/* The first of the n increasing values v above x. */
static size_t tile_first_above(const int64_t *v, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Level lv's tile holding x within the parent tile [*a, *b): the range
 * narrowed to it; its number within the parent. */
static int64_t tile_level_find(const tile_level *lv, int64_t x, int64_t *a, int64_t *b)
{
    if (lv->size) {
        int64_t c = (x - *a) / lv->size;
        *a += c * lv->size;
        if (*b - *a > lv->size)
            *b = *a + lv->size;
        return c;
    }
    size_t lo = tile_first_above(lv->breaks, lv->nbreaks, *a);
    size_t hi = tile_first_above(lv->breaks, lv->nbreaks, x);
    if (hi > lo)
        *a = lv->breaks[hi - 1];
    if (hi < lv->nbreaks && lv->breaks[hi] < *b)
        *b = lv->breaks[hi];
    return (int64_t)(hi - lo);
}

/* The tile at level `level` (-1: the whole range) holding x, [*first,
 * *end); with coord, its number within its parent at each level. */
static void tile_find(const tile_split *s, int level, int64_t x, int64_t *coord, int64_t *first,
                      int64_t *end)
{
    int64_t a = 0, b = s->dim;
    for (int l = 0; l <= level; l++) {
        int64_t c = tile_level_find(&s->level[l], x, &a, &b);
        if (coord)
            coord[l] = c;
    }
    *first = a;
    *end = b;
}

void tile_split_range_at(const tile_split *s, int level, int64_t x, int64_t *first,
                         int64_t *extent)
{
    int64_t end;
    tile_find(s, level, x, NULL, first, &end);
    *extent = end - *first;
}

void tile_split_range(const tile_split *s, int64_t x, int64_t *first, int64_t *extent)
{
    tile_split_range_at(s, s->nlevels - 1, x, first, extent);
}

void tile_split_locate(const tile_split *s, int64_t x, int64_t *coord, int64_t *local)
{
    int64_t first, end;
    tile_find(s, s->nlevels - 1, x, coord, &first, &end);
    *local = x - first;
}

void tile_split_at(const tile_split *s, int level, const int64_t *coord, int64_t *first,
                   int64_t *extent)
{
    int64_t a = 0, b = s->dim;
    for (int l = 0; l <= level; l++) {
        const tile_level *lv = &s->level[l];
        if (lv->size) {
            a += coord[l] * lv->size;
            if (b - a > lv->size)
                b = a + lv->size;
            continue;
        }
        size_t k = tile_first_above(lv->breaks, lv->nbreaks, a) + (size_t)coord[l];
        if (coord[l] > 0)
            a = lv->breaks[k - 1];
        if (k < lv->nbreaks && lv->breaks[k] < b)
            b = lv->breaks[k];
    }
    *first = a;
    *extent = b - a;
}

size_t tile_split_count(const tile_split *s, int level)
{
    return level < 0 ? 1 : s->level[level].ntiles;
}

int64_t tile_split_width(const tile_split *s, int level)
{
    return s->level[level].width;
}

int64_t tile_split_level_extent(const tile_split *s, int level)
{
    int l = level < s->nlevels ? level : s->nlevels - 1;
    if (l < 0)
        return s->dim;
    const tile_level *lv = &s->level[l];
    return lv->nextents ? lv->extents[lv->nextents - 1].extent : 0;
}

int64_t tile_split_max_extent(const tile_split *s)
{
    return tile_split_level_extent(s, s->nlevels - 1);
}

/* The extents of the tiles the next level cuts: the last level's, or
 * the whole range (in *whole). */
static const tile_extent *tile_parent_extents(const tile_split *s, tile_extent *whole, size_t *n)
{
    if (s->nlevels) {
        *n = s->level[s->nlevels - 1].nextents;
        return s->level[s->nlevels - 1].extents;
    }
    *whole = (tile_extent){s->dim, 1};
    *n = 1;
    return whole;
}

static int tile_extent_cmp(const void *a, const void *b)
{
    const tile_extent *x = a, *y = b;
    return (x->extent > y->extent) - (x->extent < y->extent);
}

/* Sorts the n extents by length, joins equal ones and drops those no
 * tile has: how many are left. */
static size_t tile_merge_extents(tile_extent *e, size_t n)
{
    qsort(e, n, sizeof *e, tile_extent_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (e[i].count == 0)
            continue;
        if (k && e[k - 1].extent == e[i].extent)
            e[k - 1].count += e[i].count;
        else
            e[k++] = e[i];
    }
    return k;
}

static int tile_split_room(const tile_split *s, sam_error *err)
{
    if (s->nlevels >= TILE_MAX_LEVELS)
        return error_set(err, "a mode can be cut at most %d times", TILE_MAX_LEVELS);
    return 0;
}

/* Takes lv as the level below the last, its tiles counted, or frees it. */
static int tile_split_push(tile_split *s, tile_level *lv, sam_error *err)
{
    if (lv->ntiles > TILE_MAX_TILES) {
        free(lv->breaks);
        free(lv->extents);
        return error_set(err, "cutting a mode of size %lld makes more than %zu tiles at a level",
                         (long long)s->dim, TILE_MAX_TILES);
    }
    s->level[s->nlevels++] = *lv;
    return 0;
}

int tile_split_add_shape(tile_split *s, int64_t size, sam_error *err)
{
    if (size < 1)
        return error_set(err, "tile size %lld is not positive", (long long)size);
    if (tile_split_room(s, err))
        return -1;
    tile_extent whole;
    size_t np;
    const tile_extent *parent = tile_parent_extents(s, &whole, &np);
    tile_level lv = {.size = size, .extents = error_alloc(err, 2 * np, sizeof *lv.extents)};
    if (!lv.extents)
        return -1;
    /* A parent's count is at most TILE_MAX_TILES, so no sum overflows. */
    for (size_t i = 0; i < np && lv.ntiles <= TILE_MAX_TILES; i++) {
        int64_t e = parent[i].extent, rest = e % size;
        uint64_t full = (uint64_t)(e / size);
        /* An empty range (a mode of size 0) is still one tile. */
        uint64_t each = full + (rest > 0 || e == 0);
        if (each > TILE_MAX_TILES) {
            lv.ntiles = TILE_MAX_TILES + 1;
            break;
        }
        lv.extents[lv.nextents++] = (tile_extent){size, full * parent[i].count};
        lv.extents[lv.nextents++] = (tile_extent){rest, each > full ? parent[i].count : 0};
        lv.ntiles += each * parent[i].count;
        lv.width = (int64_t)each > lv.width ? (int64_t)each : lv.width;
    }
    lv.nextents = tile_merge_extents(lv.extents, lv.nextents);
    return tile_split_push(s, &lv, err);
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

/* The n entries (crd[i], group[i]) sorted by coordinate, each group
 * label replaced by a dense number below n (*ngroups of them): the
 * counts of a range then fit an array of n. group NULL: one group. */
typedef struct tile_leader {
    int64_t *crd;
    size_t *group;
    size_t ngroups;
} tile_leader;

static void tile_leader_free(tile_leader *l)
{
    free(l->crd);
    free(l->group);
}

static int tile_int64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Numbers the labels 0, 1, ... in increasing order: l->group[i] for
 * the entry perm[i]. */
static int tile_number_groups(const int64_t *group, const size_t *perm, size_t n,
                              tile_leader *l, sam_error *err)
{
    int64_t *labels = error_alloc(err, n ? n : 1, sizeof *labels);
    l->group = labels ? error_alloc(err, n ? n : 1, sizeof *l->group) : NULL;
    if (!l->group) {
        free(labels);
        return -1;
    }
    memcpy(labels, group, n * sizeof *labels);
    qsort(labels, n, sizeof *labels, tile_int64_cmp);
    for (size_t i = 0; i < n; i++)
        if (!l->ngroups || labels[l->ngroups - 1] != labels[i])
            labels[l->ngroups++] = labels[i];
    for (size_t i = 0; i < n; i++) {
        const int64_t *at = bsearch(&group[perm[i]], labels, l->ngroups, sizeof *labels,
                                    tile_int64_cmp);
        l->group[i] = (size_t)(at - labels);
    }
    free(labels);
    return 0;
}

static int tile_leader_sort(const int64_t *crd, const int64_t *group, size_t n, int64_t dim,
                            tile_leader *l, sam_error *err)
{
    size_t *tmp, *perm = tile_perm_alloc(n, &tmp, err);
    memset(l, 0, sizeof *l);
    l->crd = perm ? error_alloc(err, n ? n : 1, sizeof *l->crd) : NULL;
    int rc = l->crd ? 0 : -1;
    if (!rc) {
        tile_radix_sort(crd, tile_bits((uint64_t)dim), n, perm, tmp);
        for (size_t i = 0; i < n; i++)
            l->crd[i] = crd[perm[i]];
        l->ngroups = 1;
        if (group) {
            l->ngroups = 0;
            rc = tile_number_groups(group, perm, n, l, err);
        }
    }
    free(perm);
    free(tmp);
    if (rc)
        tile_leader_free(l);
    return rc;
}

/* The counts of the range being cut, one per group, and the groups it
 * has touched, so that starting a range costs what the last one held. */
typedef struct tile_counts {
    uint64_t *count;
    size_t *touched;
    size_t ntouched;
} tile_counts;

static void tile_counts_reset(tile_counts *c)
{
    for (size_t i = 0; i < c->ntouched; i++)
        c->count[c->touched[i]] = 0;
    c->ntouched = 0;
}

/* Counts the entries of one coordinate, from j on; whether one of their
 * groups has reached per_tile. */
static int tile_counts_add(tile_counts *c, const tile_leader *l, size_t n, size_t *j,
                           int64_t per_tile)
{
    int full = 0;
    for (int64_t x = l->crd[*j]; *j < n && l->crd[*j] == x; (*j)++) {
        size_t g = l->group ? l->group[*j] : 0;
        if (!c->count[g])
            c->touched[c->ntouched++] = g;
        full |= ++c->count[g] >= (uint64_t)per_tile;
    }
    return full;
}

/* Where ranges of per_tile of the leader's n entries (in one of its
 * groups) end inside their parent tiles: lv's breaks, the coordinate after
 * the one at which a group's count in the range reaches per_tile, when the
 * parent has more after it. */
static int tile_occupancy_breaks(const tile_split *s, const tile_leader *l, size_t n,
                                 int64_t per_tile, tile_level *lv, sam_error *err)
{
    size_t cap = 0;
    tile_counts c = {0};
    c.count = error_alloc(err, l->ngroups ? l->ngroups : 1, sizeof *c.count);
    c.touched = c.count ? error_alloc(err, n ? n : 1, sizeof *c.touched) : NULL;
    int rc = c.touched ? 0 : -1;
    for (size_t j = 0; !rc && j < n;) {
        int64_t a, b;
        tile_find(s, s->nlevels - 1, l->crd[j], NULL, &a, &b);
        tile_counts_reset(&c);
        while (!rc && j < n && l->crd[j] < b) {
            int64_t x = l->crd[j];
            if (!tile_counts_add(&c, l, n, &j, per_tile))
                continue;
            tile_counts_reset(&c);
            /* After the parent's last coordinate the range runs to its end. */
            if (j == n || l->crd[j] >= b)
                continue;
            int64_t *grown = grow_array(lv->breaks, lv->nbreaks, &cap, sizeof *grown, 16);
            if (!grown)
                rc = error_set(err, "out of memory for %zu tile starts", lv->nbreaks + 1);
            else
                (lv->breaks = grown)[lv->nbreaks++] = x + 1;
        }
    }
    free(c.count);
    free(c.touched);
    return rc;
}

/* The extents and counts of occupancy level lv, its breaks known: the
 * parents' tiles, each parent with breaks replaced by its pieces. */
static int tile_occupancy_extents(const tile_split *s, tile_level *lv, sam_error *err)
{
    tile_extent whole;
    size_t np, n, nparents = tile_split_count(s, s->nlevels - 1), broken = 0;
    const tile_extent *parent = tile_parent_extents(s, &whole, &np);
    lv->extents = error_alloc(err, np + 2 * lv->nbreaks, sizeof *lv->extents);
    if (!lv->extents)
        return -1;
    memcpy(lv->extents, parent, np * sizeof *parent);
    n = np;
    for (size_t i = 0; i < lv->nbreaks; broken++) {
        int64_t a, b;
        tile_find(s, s->nlevels - 1, lv->breaks[i], NULL, &a, &b);
        /* The parent's extent is among the first np, which increase. */
        tile_extent key = {b - a, 0};
        tile_extent *was = bsearch(&key, lv->extents, np, sizeof key, tile_extent_cmp);
        was->count--;
        size_t pieces = 1;
        for (; i < lv->nbreaks && lv->breaks[i] < b; i++, pieces++) {
            lv->extents[n++] = (tile_extent){lv->breaks[i] - a, 1};
            a = lv->breaks[i];
        }
        lv->extents[n++] = (tile_extent){b - a, 1};
        lv->width = (int64_t)pieces > lv->width ? (int64_t)pieces : lv->width;
    }
    if (nparents > broken && lv->width < 1)
        lv->width = 1;
    lv->nextents = tile_merge_extents(lv->extents, n);
    lv->ntiles = nparents + lv->nbreaks;
    return 0;
}

int tile_split_add_occupancy_grouped(tile_split *s, const int64_t *crd, const int64_t *group,
                                     size_t n, int64_t per_tile, sam_error *err)
{
    if (per_tile < 1)
        return error_set(err, "%lld entries per tile is not positive", (long long)per_tile);
    if (tile_split_room(s, err))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (crd[i] < 0 || crd[i] >= s->dim)
            return error_set(err, "leader coordinate %lld is outside 0..%lld",
                             (long long)crd[i], (long long)s->dim - 1);
    tile_leader leader;
    if (tile_leader_sort(crd, group, n, s->dim, &leader, err))
        return -1;
    tile_level lv = {0};
    int rc = tile_occupancy_breaks(s, &leader, n, per_tile, &lv, err);
    tile_leader_free(&leader);
    if (!rc)
        rc = tile_occupancy_extents(s, &lv, err);
    if (rc) {
        free(lv.breaks);
        free(lv.extents);
        return -1;
    }
    return tile_split_push(s, &lv, err);
}

int tile_split_add_occupancy(tile_split *s, const int64_t *crd, size_t n, int64_t per_tile,
                             sam_error *err)
{
    return tile_split_add_occupancy_grouped(s, crd, NULL, n, per_tile, err);
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

/* Orders perm by key, stably so that a tile keeps its entries' order:
 * a pass per key, last first, by the key itself (below its width). */
static int tiled_sort(const tiled_tensor *tt, const tile_split *split, const tensor *t,
                      size_t *perm, size_t *tmp, sam_error *err)
{
    int64_t *digit = error_alloc(err, t->nnz, sizeof *digit);
    if (!digit)
        return -1;
    for (int k = tt->nkeys - 1; k >= 0; k--) {
        const tile_split *s = &split[tt->key_mode[k]];
        const int64_t *crd = t->crd[tt->key_mode[k]];
        int64_t coord[TILE_MAX_LEVELS], local;
        for (size_t e = 0; e < t->nnz; e++) {
            tile_split_locate(s, crd[e], coord, &local);
            digit[e] = coord[tt->key_level[k]];
        }
        tile_radix_sort(digit, tile_bits((uint64_t)tt->key_dim[k] - 1), t->nnz, perm, tmp);
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
