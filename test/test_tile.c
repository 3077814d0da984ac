/* Tiling: splits by shape and by occupancy worked out by hand, the
 * refusals, tiles and their flattening on small matrices, random cuts
 * against the test's own lists of tile starts made by the rules, a mode
 * of 2e9 held by its rules alone, and a random order-3 tensor whose every
 * entry is recovered from its tile's key and its local coordinates by the
 * test's own linear scans. */
#include <stdlib.h>
#include <string.h>

#include "../formats/prng.h"
#include "../formats/tile.h"
#include "test_util.h"

/* ------------------------------------------------------------- helpers */

static void matrix(tensor *t, int64_t rows, int64_t cols, size_t n, const int64_t (*c)[2],
                   const double *v)
{
    sam_error err;
    assert_int_equal(tensor_init(t, 2, (const int64_t[]){rows, cols}, &err), 0);
    for (size_t e = 0; e < n; e++)
        assert_int_equal(tensor_append(t, c[e], v[e], &err), 0);
}

/* A split's levels as the test's own lists of tile starts: read off a
 * split tile after tile (listed), or made cut by cut as the rules say
 * (ref_shape, ref_occupancy), one parent after another. */
typedef struct listing {
    int64_t dim;
    int nlevels;
    int64_t *start[TILE_MAX_LEVELS];
    size_t ntiles[TILE_MAX_LEVELS];
} listing;

static void push_start(listing *L, int l, int64_t x)
{
    L->start[l] = realloc(L->start[l], (L->ntiles[l] + 1) * sizeof *L->start[l]);
    assert_non_null(L->start[l]);
    L->start[l][L->ntiles[l]++] = x;
}

/* Each level's tiles, the next starting where one ends. */
static void listed(const tile_split *s, listing *L)
{
    memset(L, 0, sizeof *L);
    L->dim = s->dim;
    L->nlevels = s->nlevels;
    for (int l = 0; l < s->nlevels; l++) {
        int64_t x = 0, first, extent;
        do {
            push_start(L, l, x);
            tile_split_range_at(s, l, x, &first, &extent);
            assert_int_equal(first, x);
            x += extent;
        } while (extent > 0 && x < s->dim);
        assert_int_equal(L->ntiles[l], tile_split_count(s, l));
    }
}

static void listing_free(listing *L)
{
    for (int l = 0; l < L->nlevels; l++)
        free(L->start[l]);
}

/* The end of tile i of level l, a level -1 being the whole range. */
static int64_t list_end(const listing *L, int l, size_t i)
{
    return l >= 0 && i + 1 < L->ntiles[l] ? L->start[l][i + 1] : L->dim;
}

static size_t list_parents(const listing *L)
{
    return L->nlevels ? L->ntiles[L->nlevels - 1] : 1;
}

static int64_t list_parent_start(const listing *L, size_t p)
{
    return L->nlevels ? L->start[L->nlevels - 1][p] : 0;
}

/* Each parent cut every size coordinates, an empty one into one tile. */
static void ref_shape(listing *L, int64_t size)
{
    int l = L->nlevels;
    for (size_t p = 0; p < list_parents(L); p++) {
        int64_t a = list_parent_start(L, p), b = list_end(L, l - 1, p);
        for (int64_t x = a; x < b || x == a; x += size)
            push_start(L, l, x);
    }
    L->nlevels++;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Each parent cut after the coordinate at which per of its n leader
 * coordinates crd are counted, when more follow in it. */
static void ref_occupancy(listing *L, const int64_t *crd, size_t n, int64_t per)
{
    int l = L->nlevels;
    int64_t *sorted = malloc((n + 1) * sizeof *sorted);
    assert_non_null(sorted);
    memcpy(sorted, crd, n * sizeof *crd);
    qsort(sorted, n, sizeof *sorted, cmp_i64);
    for (size_t p = 0; p < list_parents(L); p++) {
        int64_t a = list_parent_start(L, p), b = list_end(L, l - 1, p), count = 0;
        push_start(L, l, a);
        for (size_t j = 0; j < n; j++) {
            if (sorted[j] < a || sorted[j] >= b)
                continue;
            count++;
            int last_of_x = j + 1 == n || sorted[j + 1] != sorted[j];
            int more = 0;
            for (size_t k = j + 1; k < n && !more; k++)
                more = sorted[k] > sorted[j] && sorted[k] < b;
            if (last_of_x && count >= per && more) {
                push_start(L, l, sorted[j] + 1);
                count = 0;
            } else if (last_of_x && count >= per) {
                count = 0;
            }
        }
    }
    L->nlevels++;
    free(sorted);
}

static void assert_same_listing(const listing *a, const listing *b)
{
    assert_int_equal(a->nlevels, b->nlevels);
    for (int l = 0; l < a->nlevels; l++) {
        assert_int_equal(a->ntiles[l], b->ntiles[l]);
        assert_memory_equal(a->start[l], b->start[l], a->ntiles[l] * sizeof *a->start[l]);
    }
}

static void assert_level(const tile_split *s, int l, size_t n, const int64_t *start)
{
    listing L;
    listed(s, &L);
    assert_int_equal(L.ntiles[l], n);
    assert_memory_equal(L.start[l], start, n * sizeof *start);
    listing_free(&L);
}

/* Tile tl has the key (k0, k1), dims and the n entries (r, c) = v in this
 * order. */
static void assert_tile2(const tile *tl, int64_t k0, int64_t k1, int64_t rows, int64_t cols,
                         size_t n, const int64_t (*c)[2], const double *v)
{
    assert_int_equal(tl->key[0], k0);
    assert_int_equal(tl->key[1], k1);
    assert_int_equal(tl->content.order, 2);
    assert_int_equal(tl->content.dims[0], rows);
    assert_int_equal(tl->content.dims[1], cols);
    assert_int_equal(tl->content.nnz, n);
    for (size_t e = 0; e < n; e++) {
        assert_int_equal(tl->content.crd[0][e], c[e][0]);
        assert_int_equal(tl->content.crd[1][e], c[e][1]);
        assert_true(tl->content.vals[e] == v[e]);
    }
}

static void shape_splits(tile_split *s, const int64_t *dims, const int64_t *size, int n)
{
    sam_error err;
    for (int m = 0; m < n; m++) {
        tile_split_init(&s[m], dims[m]);
        assert_int_equal(tile_split_add_shape(&s[m], size[m], &err), 0);
    }
}

/* The 4x4 matrix of the first tests: entries out of order, tile (1,0)
 * empty, two entries per other tile in an order the tiles must keep. */
static void matrix_4x4(tensor *t)
{
    static const int64_t c[][2] = {{3, 3}, {0, 0}, {1, 2}, {0, 3}, {1, 1}, {2, 2}};
    static const double v[] = {6, 1, 7, 2, 3, 5};
    matrix(t, 4, 4, 6, c, v);
}

/* ------------------------------------------------------------- shape cuts */

static void test_4x4_in_2x2_tiles(void **state)
{
    (void)state;
    tensor t;
    tile_split s[2];
    tiled_tensor tt;
    sam_error err;
    matrix_4x4(&t);
    shape_splits(s, (const int64_t[]){4, 4}, (const int64_t[]){2, 2}, 2);
    assert_int_equal(tensor_tile(&t, s, &tt, &err), 0);
    assert_int_equal(tt.order, 2);
    assert_int_equal(tt.nkeys, 2);
    assert_int_equal(tt.key_mode[0], 0);
    assert_int_equal(tt.key_mode[1], 1);
    assert_int_equal(tt.key_level[0], 0);
    assert_int_equal(tt.key_level[1], 0);
    assert_int_equal(tt.key_dim[0], 2);
    assert_int_equal(tt.key_dim[1], 2);
    assert_int_equal(tt.ntiles, 3);
    assert_tile2(&tt.tiles[0], 0, 0, 2, 2, 2, (const int64_t[][2]){{0, 0}, {1, 1}},
                 (const double[]){1, 3});
    assert_tile2(&tt.tiles[1], 0, 1, 2, 2, 2, (const int64_t[][2]){{1, 0}, {0, 1}},
                 (const double[]){7, 2});
    assert_tile2(&tt.tiles[2], 1, 1, 2, 2, 2, (const int64_t[][2]){{1, 1}, {0, 0}},
                 (const double[]){6, 5});
    tiled_tensor_free(&tt);
    tile_split_free(&s[0]);
    tile_split_free(&s[1]);
    tensor_free(&t);
}

static void test_flatten_4x4(void **state)
{
    (void)state;
    tensor t, flat;
    tile_split s[2];
    tiled_tensor tt;
    sam_error err;
    matrix_4x4(&t);
    shape_splits(s, (const int64_t[]){4, 4}, (const int64_t[]){2, 2}, 2);
    assert_int_equal(tensor_tile(&t, s, &tt, &err), 0);
    assert_int_equal(tiled_flatten(&tt, s, &flat, &err), 0);
    static const int64_t c[][4] = {{0, 0, 0, 0}, {0, 0, 1, 1}, {0, 1, 0, 1},
                                   {0, 1, 1, 0}, {1, 1, 0, 0}, {1, 1, 1, 1}};
    static const double v[] = {1, 3, 2, 7, 5, 6};
    assert_int_equal(flat.order, 4);
    for (int m = 0; m < 4; m++)
        assert_int_equal(flat.dims[m], 2);
    assert_int_equal(flat.nnz, 6);
    for (size_t e = 0; e < 6; e++) {
        for (int m = 0; m < 4; m++)
            assert_int_equal(flat.crd[m][e], c[e][m]);
        assert_true(flat.vals[e] == v[e]);
    }
    tensor_free(&flat);
    tiled_tensor_free(&tt);
    tile_split_free(&s[0]);
    tile_split_free(&s[1]);
    tensor_free(&t);
}

static void test_uneven_5x3_by_2(void **state)
{
    (void)state;
    tensor t;
    tile_split s[2];
    tiled_tensor tt;
    sam_error err;
    static const int64_t c[][2] = {{4, 2}, {4, 0}, {1, 2}, {0, 0}};
    matrix(&t, 5, 3, 4, c, (const double[]){1, 2, 3, 4});
    shape_splits(s, (const int64_t[]){5, 3}, (const int64_t[]){2, 2}, 2);
    assert_level(&s[0], 0, 3, (const int64_t[]){0, 2, 4});
    assert_level(&s[1], 0, 2, (const int64_t[]){0, 2});
    assert_int_equal(tile_split_width(&s[0], 0), 3);
    assert_int_equal(tile_split_max_extent(&s[0]), 2);
    int64_t first, extent;
    tile_split_range(&s[0], 4, &first, &extent);
    assert_int_equal(first, 4);
    assert_int_equal(extent, 1);
    tile_split_range(&s[1], 1, &first, &extent);
    assert_int_equal(first, 0);
    assert_int_equal(extent, 2);
    assert_int_equal(tensor_tile(&t, s, &tt, &err), 0);
    assert_int_equal(tt.ntiles, 4);
    assert_tile2(&tt.tiles[0], 0, 0, 2, 2, 1, (const int64_t[][2]){{0, 0}}, (const double[]){4});
    assert_tile2(&tt.tiles[1], 0, 1, 2, 1, 1, (const int64_t[][2]){{1, 0}}, (const double[]){3});
    assert_tile2(&tt.tiles[2], 2, 0, 1, 2, 1, (const int64_t[][2]){{0, 0}}, (const double[]){2});
    assert_tile2(&tt.tiles[3], 2, 1, 1, 1, 1, (const int64_t[][2]){{0, 0}}, (const double[]){1});
    tiled_tensor_free(&tt);
    tile_split_free(&s[0]);
    tile_split_free(&s[1]);
    tensor_free(&t);
}

/* Rows cut, columns whole: one key, the tiles as wide as the matrix. */
static void test_unsplit_mode_keeps_its_size(void **state)
{
    (void)state;
    tensor t, flat;
    tile_split s[2];
    tiled_tensor tt;
    sam_error err;
    static const int64_t c[][2] = {{2, 3}, {0, 1}};
    matrix(&t, 3, 5, 2, c, (const double[]){8, 9});
    tile_split_init(&s[0], 3);
    tile_split_init(&s[1], 5);
    assert_int_equal(tile_split_add_shape(&s[0], 2, &err), 0);
    int64_t coord[TILE_MAX_LEVELS], local;
    tile_split_locate(&s[1], 4, coord, &local);
    assert_int_equal(local, 4);
    assert_int_equal(tensor_tile(&t, s, &tt, &err), 0);
    assert_int_equal(tt.nkeys, 1);
    assert_int_equal(tt.key_mode[0], 0);
    assert_int_equal(tt.ntiles, 2);
    assert_int_equal(tt.tiles[0].key[0], 0);
    assert_int_equal(tt.tiles[0].content.dims[0], 2);
    assert_int_equal(tt.tiles[0].content.dims[1], 5);
    assert_int_equal(tt.tiles[0].content.crd[1][0], 1);
    assert_int_equal(tt.tiles[1].key[0], 1);
    assert_int_equal(tt.tiles[1].content.dims[0], 1);
    assert_int_equal(tt.tiles[1].content.crd[0][0], 0);
    assert_int_equal(tt.tiles[1].content.crd[1][0], 3);
    assert_int_equal(tiled_flatten(&tt, s, &flat, &err), 0);
    assert_int_equal(flat.order, 3);
    assert_int_equal(flat.dims[0], 2);
    assert_int_equal(flat.dims[1], 2);
    assert_int_equal(flat.dims[2], 5);
    tensor_free(&flat);
    tiled_tensor_free(&tt);
    tile_split_free(&s[0]);
    tile_split_free(&s[1]);
    tensor_free(&t);
}

static void assert_locate(const tile_split *s, int64_t x, int64_t c0, int64_t c1, int64_t local)
{
    int64_t coord[TILE_MAX_LEVELS], l;
    tile_split_locate(s, x, coord, &l);
    assert_int_equal(coord[0], c0);
    assert_int_equal(coord[1], c1);
    assert_int_equal(l, local);
}

static void test_two_shape_levels(void **state)
{
    (void)state;
    tile_split s;
    sam_error err;
    tile_split_init(&s, 8);
    assert_int_equal(tile_split_add_shape(&s, 4, &err), 0);
    assert_int_equal(tile_split_add_shape(&s, 2, &err), 0);
    assert_level(&s, 0, 2, (const int64_t[]){0, 4});
    assert_level(&s, 1, 4, (const int64_t[]){0, 2, 4, 6});
    assert_locate(&s, 0, 0, 0, 0);
    assert_locate(&s, 3, 0, 1, 1);
    assert_locate(&s, 5, 1, 0, 1);
    assert_locate(&s, 6, 1, 1, 0);
    assert_locate(&s, 7, 1, 1, 1);
    assert_int_equal(tile_split_width(&s, 0), 2);
    assert_int_equal(tile_split_width(&s, 1), 2);
    tile_split_free(&s);

    /* 9 by 4 then 3: the inner cut restarts at each outer tile. */
    tile_split_init(&s, 9);
    assert_int_equal(tile_split_add_shape(&s, 4, &err), 0);
    assert_int_equal(tile_split_add_shape(&s, 3, &err), 0);
    assert_level(&s, 0, 3, (const int64_t[]){0, 4, 8});
    assert_level(&s, 1, 5, (const int64_t[]){0, 3, 4, 7, 8});
    assert_locate(&s, 2, 0, 0, 2);
    assert_locate(&s, 3, 0, 1, 0);
    assert_locate(&s, 6, 1, 0, 2);
    assert_locate(&s, 7, 1, 1, 0);
    assert_locate(&s, 8, 2, 0, 0);
    assert_int_equal(tile_split_width(&s, 0), 3);
    assert_int_equal(tile_split_width(&s, 1), 2);
    assert_int_equal(tile_split_max_extent(&s), 3);
    int64_t first, extent;
    tile_split_range(&s, 7, &first, &extent);
    assert_int_equal(first, 7);
    assert_int_equal(extent, 1);
    tile_split_free(&s);

    /* An inner cut no finer than the outer: one tile per parent. */
    tile_split_init(&s, 8);
    assert_int_equal(tile_split_add_shape(&s, 4, &err), 0);
    assert_int_equal(tile_split_add_shape(&s, 5, &err), 0);
    assert_level(&s, 1, 2, (const int64_t[]){0, 4});
    assert_int_equal(tile_split_width(&s, 1), 1);
    assert_locate(&s, 6, 1, 0, 2);
    tile_split_free(&s);
}

/* ------------------------------------------------------------- occupancy */

static void test_occupancy_by_hand(void **state)
{
    (void)state;
    tile_split s;
    sam_error err;
    /* Sorted: 1 1 1 3 4 4 7 9. Coordinate 1's three entries exceed 2 and
     * close [0,2); 3 and 4 reach 3 and close [2,5); 7 and 9 reach 2 at
     * the last coordinate, so that range runs to the end. */
    static const int64_t crd[] = {4, 1, 9, 1, 7, 4, 1, 3};
    tile_split_init(&s, 10);
    assert_int_equal(tile_split_add_occupancy(&s, crd, 8, 2, &err), 0);
    assert_level(&s, 0, 3, (const int64_t[]){0, 2, 5});
    tile_split_free(&s);

    /* One per tile: the gap 3..4 joins 5's range. */
    tile_split_init(&s, 8);
    assert_int_equal(tile_split_add_occupancy(&s, (const int64_t[]){5, 2}, 2, 1, &err), 0);
    assert_level(&s, 0, 2, (const int64_t[]){0, 3});
    tile_split_free(&s);

    /* No leader entries: one tile. */
    tile_split_init(&s, 8);
    assert_int_equal(tile_split_add_occupancy(&s, NULL, 0, 3, &err), 0);
    assert_level(&s, 0, 1, (const int64_t[]){0});
    tile_split_free(&s);
}

static void test_occupancy_under_shape(void **state)
{
    (void)state;
    tile_split s;
    sam_error err;
    /* Parents [0,4) [4,8) [8,12); the middle one holds no coordinate. */
    static const int64_t crd[] = {10, 0, 11, 1, 9, 2, 1, 10, 3};
    tile_split_init(&s, 12);
    assert_int_equal(tile_split_add_shape(&s, 4, &err), 0);
    assert_int_equal(tile_split_add_occupancy(&s, crd, 9, 2, &err), 0);
    assert_level(&s, 1, 5, (const int64_t[]){0, 2, 4, 8, 11});
    assert_int_equal(tile_split_width(&s, 1), 2);
    assert_int_equal(tile_split_max_extent(&s), 4);
    assert_locate(&s, 11, 2, 1, 0);
    assert_locate(&s, 6, 1, 0, 2);
    assert_locate(&s, 10, 2, 0, 2);
    tile_split_free(&s);
}

/* Counted per group (the K slab of each entry of A, in SIGMA's
 * partitions): a range closes once one group reaches the count. */
static void test_occupancy_per_group(void **state)
{
    (void)state;
    tile_split s;
    sam_error err;
    /* Entries (coordinate, group): (0,a) (0,b) (1,a) (2,b) (3,a) (3,b)
     * (4,a) (5,b), two per tile. Group a reaches 2 at 1 and closes
     * [0,2); b reaches 2 at 3 and closes [2,4); 4 and 5 hold one of each,
     * so that range runs to the end. Uncounted by group, the same
     * entries close after 0, 2 and 3. */
    static const int64_t crd[] = {3, 0, 5, 1, 0, 4, 2, 3};
    static const int64_t group[] = {20, 20, 90, 20, 90, 20, 90, 90};
    tile_split_init(&s, 8);
    assert_int_equal(tile_split_add_occupancy_grouped(&s, crd, group, 8, 2, &err), 0);
    assert_level(&s, 0, 3, (const int64_t[]){0, 2, 4});
    tile_split_free(&s);
    tile_split_init(&s, 8);
    assert_int_equal(tile_split_add_occupancy(&s, crd, 8, 2, &err), 0);
    assert_level(&s, 0, 4, (const int64_t[]){0, 1, 3, 4});
    tile_split_free(&s);

    /* Under a shape level the counts restart in each parent: [0,4) closes
     * after 1 (group a), [4,8) never fills. */
    tile_split_init(&s, 8);
    assert_int_equal(tile_split_add_shape(&s, 4, &err), 0);
    assert_int_equal(tile_split_add_occupancy_grouped(&s, crd, group, 8, 2, &err), 0);
    assert_level(&s, 1, 3, (const int64_t[]){0, 2, 4});
    tile_split_free(&s);
}

/* ------------------------------------------------------------- refusals */

static void assert_refused(int rc, const sam_error *err, const char *part)
{
    assert_int_equal(rc, -1);
    if (!strstr(err->msg, part))
        fail_msg("'%s' not in: %s", part, err->msg);
}

static void test_refusals(void **state)
{
    (void)state;
    tile_split s;
    sam_error err;
    tile_split_init(&s, 16);
    assert_refused(tile_split_add_shape(&s, 0, &err), &err, "tile size 0 is not positive");
    assert_refused(tile_split_add_occupancy(&s, NULL, 0, 0, &err), &err,
                   "0 entries per tile is not positive");
    assert_refused(tile_split_add_occupancy(&s, (const int64_t[]){3, 16}, 2, 1, &err), &err,
                   "leader coordinate 16 is outside 0..15");
    assert_refused(tile_split_add_occupancy(&s, (const int64_t[]){-1}, 1, 1, &err), &err,
                   "leader coordinate -1 is outside 0..15");
    assert_int_equal(s.nlevels, 0);
    for (int64_t size = 8; size >= 1; size /= 2)
        assert_int_equal(tile_split_add_shape(&s, size, &err), 0);
    assert_refused(tile_split_add_shape(&s, 1, &err), &err, "at most 4 times");
    assert_refused(tile_split_add_occupancy(&s, NULL, 0, 1, &err), &err, "at most 4 times");
    assert_int_equal(s.nlevels, 4);
    tile_split_free(&s);

    /* 10^12 tiles are refused before anything is allocated (calloc of
     * 8 TB would say "out of memory" instead). */
    tile_split_init(&s, 1000000000000);
    assert_refused(tile_split_add_shape(&s, 1, &err), &err, "more than 16777216 tiles");
    assert_int_equal(s.nlevels, 0);
    tile_split_free(&s);
    tile_split_init(&s, (int64_t)TILE_MAX_TILES + 1);
    assert_refused(tile_split_add_shape(&s, 1, &err), &err, "more than 16777216 tiles");
    assert_int_equal(tile_split_add_shape(&s, 2, &err), 0);
    assert_int_equal(tile_split_count(&s, 0), TILE_MAX_TILES / 2 + 1);
    tile_split_free(&s);
}

static void test_tile_refusals(void **state)
{
    (void)state;
    tensor t;
    tile_split s[2];
    tiled_tensor tt;
    sam_error err;
    matrix_4x4(&t);
    shape_splits(s, (const int64_t[]){4, 5}, (const int64_t[]){2, 2}, 2);
    assert_refused(tensor_tile(&t, s, &tt, &err), &err,
                   "mode 1 of size 4 is cut as a mode of size 5");
    assert_int_equal(tt.ntiles, 0);
    tiled_tensor_free(&tt);
    tile_split_free(&s[1]);
    shape_splits(&s[1], (const int64_t[]){4}, (const int64_t[]){2}, 1);
    t.crd[0][2] = 4; /* outside the 4 rows */
    assert_refused(tensor_tile(&t, s, &tt, &err), &err, "coordinate 4 of mode 0 is outside 0..3");
    tile_split_free(&s[0]);
    tile_split_free(&s[1]);
    tensor_free(&t);

    /* Four levels on each mode of a matrix: 8 keys and 2 modes. */
    assert_int_equal(tensor_init(&t, 2, (const int64_t[]){16, 16}, &err), 0);
    for (int m = 0; m < 2; m++) {
        tile_split_init(&s[m], 16);
        for (int64_t size = 8; size >= 1; size /= 2)
            assert_int_equal(tile_split_add_shape(&s[m], size, &err), 0);
    }
    tensor flat;
    assert_int_equal(tensor_tile(&t, s, &tt, &err), 0);
    assert_int_equal(tt.nkeys, 8);
    assert_refused(tiled_flatten(&tt, s, &flat, &err), &err,
                   "8 tile keys and 2 modes make more than 8 modes");
    tiled_tensor_free(&tt);
    tile_split_free(&s[0]);
    tile_split_free(&s[1]);
    tensor_free(&t);
}

static void test_scalar_is_one_tile(void **state)
{
    (void)state;
    tensor t, flat;
    tiled_tensor tt;
    sam_error err;
    assert_int_equal(tensor_init(&t, 0, NULL, &err), 0);
    assert_int_equal(tensor_append(&t, NULL, 3.5, &err), 0);
    assert_int_equal(tensor_tile(&t, NULL, &tt, &err), 0);
    assert_int_equal(tt.nkeys, 0);
    assert_int_equal(tt.ntiles, 1);
    assert_int_equal(tt.tiles[0].content.order, 0);
    assert_int_equal(tt.tiles[0].content.nnz, 1);
    assert_true(tt.tiles[0].content.vals[0] == 3.5);
    assert_int_equal(tiled_flatten(&tt, NULL, &flat, &err), 0);
    assert_int_equal(flat.order, 0);
    assert_int_equal(flat.nnz, 1);
    assert_true(flat.vals[0] == 3.5);
    tensor_free(&flat);
    tiled_tensor_free(&tt);
    tensor_free(&t);
}

/* ------------------------------------------------------------- random round trip */

/* The number in level l of the tile holding x, by a linear scan. */
static size_t scan_index(const listing *s, int l, int64_t x)
{
    size_t i = 0;
    while (i + 1 < s->ntiles[l] && s->start[l][i + 1] <= x)
        i++;
    return i;
}

static size_t scan_first_from(const listing *s, int l, int64_t x)
{
    size_t i = 0;
    while (i < s->ntiles[l] && s->start[l][i] != x)
        i++;
    assert_true(i < s->ntiles[l]);
    return i;
}

/* Levels start at 0, increase, and hold the level above. */
static void assert_nested(const listing *s)
{
    for (int l = 0; l < s->nlevels; l++) {
        assert_int_equal(s->start[l][0], 0);
        for (size_t i = 1; i < s->ntiles[l]; i++)
            assert_true(s->start[l][i - 1] < s->start[l][i] && s->start[l][i] < s->dim);
        for (size_t i = 0; l > 0 && i < s->ntiles[l - 1]; i++)
            (void)scan_first_from(s, l, s->start[l - 1][i]);
    }
}

/* The most children of one parent at level l, by scans. */
static int64_t scan_width(const listing *s, int l)
{
    if (l == 0)
        return (int64_t)s->ntiles[0];
    size_t most = 0;
    for (size_t p = 0; p < s->ntiles[l - 1]; p++) {
        int64_t a = s->start[l - 1][p], end = list_end(s, l - 1, p);
        size_t n = 0;
        /* An empty parent (a mode of size 0) has one tile. */
        for (size_t i = 0; i < s->ntiles[l]; i++)
            n += s->start[l][i] == a || (s->start[l][i] > a && s->start[l][i] < end);
        most = n > most ? n : most;
    }
    return (int64_t)most;
}

/* The longest tile of level l, by a scan. */
static int64_t scan_extent(const listing *s, int l)
{
    int64_t most = 0;
    for (size_t i = 0; i < s->ntiles[l]; i++) {
        int64_t e = list_end(s, l, i) - s->start[l][i];
        most = e > most ? e : most;
    }
    return most;
}

/* Mode m's coordinate from its keys and local coordinate. */
static int64_t recover(const tiled_tensor *tt, const listing *s, int m, const int64_t *key,
                       int64_t local, int64_t *extent)
{
    size_t g = 0;
    int64_t parent = 0;
    for (int k = 0; k < tt->nkeys; k++) {
        if (tt->key_mode[k] != m)
            continue;
        int l = tt->key_level[k];
        assert_true(key[k] >= 0 && key[k] < tt->key_dim[k]);
        g = scan_first_from(s, l, parent) + (size_t)key[k];
        parent = s->start[l][g];
    }
    int last = s->nlevels - 1;
    int64_t end = last >= 0 && g + 1 < s->ntiles[last] ? s->start[last][g + 1] : s->dim;
    *extent = end - parent;
    assert_true(local >= 0 && local < *extent);
    return parent + local;
}

/* Entry e's key by linear scans, in the tiled tensor's key layout. */
static void scan_key(const tiled_tensor *tt, const listing *s, const tensor *t, size_t e,
                     int64_t *key)
{
    for (int k = 0; k < tt->nkeys; k++) {
        const listing *sm = &s[tt->key_mode[k]];
        int l = tt->key_level[k];
        int64_t x = t->crd[tt->key_mode[k]][e];
        int64_t parent = l ? sm->start[l - 1][scan_index(sm, l - 1, x)] : 0;
        key[k] = (int64_t)(scan_index(sm, l, x) - scan_first_from(sm, l, parent));
    }
}

static int nkeys_cmp;

static int cmp_keys(const void *a, const void *b)
{
    return memcmp(a, b, (size_t)nkeys_cmp * sizeof(int64_t));
}

static size_t distinct_keys(const tiled_tensor *tt, const listing *s, const tensor *t)
{
    int64_t(*keys)[TILE_MAX_KEYS] = calloc(t->nnz, sizeof *keys);
    assert_non_null(keys);
    for (size_t e = 0; e < t->nnz; e++)
        scan_key(tt, s, t, e, keys[e]);
    nkeys_cmp = tt->nkeys;
    qsort(keys, t->nnz, sizeof *keys, cmp_keys);
    size_t n = t->nnz > 0;
    for (size_t e = 1; e < t->nnz; e++)
        n += cmp_keys(keys[e - 1], keys[e]) != 0;
    free(keys);
    return n;
}

/* Keys increase strictly from tile to tile (as signed numbers). */
static void assert_keys_increase(const tiled_tensor *tt)
{
    for (size_t i = 1; i < tt->ntiles; i++) {
        int k = 0;
        while (k < tt->nkeys && tt->tiles[i - 1].key[k] == tt->tiles[i].key[k])
            k++;
        assert_true(k < tt->nkeys && tt->tiles[i - 1].key[k] < tt->tiles[i].key[k]);
    }
}

/* Every entry comes back once, at its place, tiles keeping entry order
 * (entry e has value e). */
static void assert_recovered(const tiled_tensor *tt, const listing *s, const tensor *t)
{
    char *seen = calloc(t->nnz, 1);
    assert_non_null(seen);
    for (size_t i = 0; i < tt->ntiles; i++) {
        const tensor *c = &tt->tiles[i].content;
        assert_true(c->nnz > 0);
        for (size_t j = 0; j < c->nnz; j++) {
            size_t e = (size_t)c->vals[j];
            assert_true(j == 0 || c->vals[j - 1] < c->vals[j]);
            assert_false(seen[e]++);
            for (int m = 0; m < t->order; m++) {
                int64_t extent;
                assert_int_equal(recover(tt, &s[m], m, tt->tiles[i].key, c->crd[m][j], &extent),
                                 t->crd[m][e]);
                assert_int_equal(c->dims[m], extent);
            }
        }
    }
    for (size_t e = 0; e < t->nnz; e++)
        assert_true(seen[e]);
    free(seen);
}

static void test_random_round_trip(void **state)
{
    (void)state;
    static const int64_t dims[3] = {37, 50, 23};
    tensor t;
    sam_error err;
    prng r;
    prng_seed(&r, 2024);
    assert_int_equal(tensor_init(&t, 3, dims, &err), 0);
    for (size_t e = 0; e < 3000; e++) {
        /* Modes 0 and 2, cut by occupancy, crowd towards 0. */
        int64_t c[3];
        for (int m = 0; m < 3; m++) {
            uint64_t d = (uint64_t)dims[m], x = prng_below(&r, d);
            c[m] = (int64_t)(m == 1 ? x : x * prng_below(&r, d) / d);
        }
        assert_int_equal(tensor_append(&t, c, (double)e, &err), 0);
    }
    tile_split s[3];
    listing ref[3], L[3];
    for (int m = 0; m < 3; m++) {
        tile_split_init(&s[m], dims[m]);
        memset(&ref[m], 0, sizeof ref[m]);
        ref[m].dim = dims[m];
    }
    assert_int_equal(tile_split_add_shape(&s[0], 8, &err), 0);
    assert_int_equal(tile_split_add_occupancy(&s[0], t.crd[0], t.nnz, 40, &err), 0);
    assert_int_equal(tile_split_add_occupancy(&s[2], t.crd[2], t.nnz, 300, &err), 0);
    assert_int_equal(tile_split_add_shape(&s[2], 3, &err), 0);
    ref_shape(&ref[0], 8);
    ref_occupancy(&ref[0], t.crd[0], t.nnz, 40);
    ref_occupancy(&ref[2], t.crd[2], t.nnz, 300);
    ref_shape(&ref[2], 3);
    for (int m = 0; m < 3; m++) {
        listed(&s[m], &L[m]);
        assert_same_listing(&L[m], &ref[m]);
        assert_nested(&L[m]);
        for (int l = 0; l < L[m].nlevels; l++)
            assert_int_equal(tile_split_level_extent(&s[m], l), scan_extent(&L[m], l));
    }

    tiled_tensor tt;
    assert_int_equal(tensor_tile(&t, s, &tt, &err), 0);
    assert_int_equal(tt.nkeys, 4);
    static const int key_mode[] = {0, 2, 0, 2}, key_level[] = {0, 0, 1, 1};
    assert_memory_equal(tt.key_mode, key_mode, sizeof key_mode);
    assert_memory_equal(tt.key_level, key_level, sizeof key_level);
    assert_int_equal(tt.key_dim[0], 5);
    for (int k = 0; k < 4; k++)
        assert_int_equal(tt.key_dim[k], scan_width(&L[key_mode[k]], key_level[k]));
    assert_recovered(&tt, L, &t);
    assert_keys_increase(&tt);
    assert_int_equal(tt.ntiles, distinct_keys(&tt, L, &t));
    assert_true(tt.ntiles > 50);
    tiled_tensor_free(&tt);
    for (int m = 0; m < 3; m++) {
        tile_split_free(&s[m]);
        listing_free(&L[m]);
        listing_free(&ref[m]);
    }
    tensor_free(&t);
}

/* Random cuts of small modes, by shape and by occupancy in any order,
 * with empty parents and modes of size 0: each level tile by tile is
 * the test's own list made by the rules, and the counts, widths, longest
 * extents, locations and tiles by number agree with those lists. */
static void test_random_splits_against_lists(void **state)
{
    (void)state;
    prng r;
    prng_seed(&r, 77);
    for (int trial = 0; trial < 400; trial++) {
        int64_t dim = (int64_t)prng_below(&r, 60);
        size_t n = dim ? prng_below(&r, 40) : 0;
        int64_t crd[40];
        for (size_t e = 0; e < n; e++)
            crd[e] = (int64_t)(prng_below(&r, (uint64_t)dim) * prng_below(&r, (uint64_t)dim) /
                               (uint64_t)dim);
        tile_split s;
        listing ref = {.dim = dim}, L;
        sam_error err;
        tile_split_init(&s, dim);
        int levels = 1 + (int)prng_below(&r, TILE_MAX_LEVELS);
        for (int l = 0; l < levels; l++) {
            int64_t size = 1 + (int64_t)prng_below(&r, 12);
            if (prng_below(&r, 2)) {
                assert_int_equal(tile_split_add_shape(&s, size, &err), 0);
                ref_shape(&ref, size);
            } else {
                assert_int_equal(tile_split_add_occupancy(&s, crd, n, size, &err), 0);
                ref_occupancy(&ref, crd, n, size);
            }
        }
        listed(&s, &L);
        assert_same_listing(&L, &ref);
        for (int l = 0; l < levels; l++) {
            assert_int_equal(tile_split_width(&s, l), scan_width(&L, l));
            assert_int_equal(tile_split_level_extent(&s, l), scan_extent(&L, l));
            for (size_t i = 0; dim && i < L.ntiles[l]; i++) {
                int64_t coord[TILE_MAX_LEVELS], local, first, extent;
                tile_split_locate(&s, L.start[l][i], coord, &local);
                tile_split_at(&s, l, coord, &first, &extent);
                assert_int_equal(first, L.start[l][i]);
                assert_int_equal(extent, list_end(&L, l, i) - first);
            }
        }
        listing_free(&L);
        listing_free(&ref);
        tile_split_free(&s);
    }
}

/* A mode of 2e9 coordinates cut in 4096 then 128 (ExTensor's LLB and PE
 * tiles) is held by its two rules: 488,282 and 15,625,000 tiles without
 * a list of either. */
static void test_huge_mode_held_by_rule(void **state)
{
    (void)state;
    tile_split s;
    sam_error err;
    const int64_t dim = 2000000000;
    tile_split_init(&s, dim);
    assert_int_equal(tile_split_add_shape(&s, 4096, &err), 0);
    assert_int_equal(tile_split_add_shape(&s, 128, &err), 0);
    assert_true(s.level[0].nextents <= 2 && s.level[1].nextents <= 3);
    assert_int_equal(tile_split_count(&s, 0), (dim + 4095) / 4096);
    /* 488,281 whole parents of 32 tiles, and the last, 1,024 long, of 8. */
    assert_int_equal(tile_split_count(&s, 1), 488281 * 32 + 8);
    assert_int_equal(tile_split_width(&s, 0), 488282);
    assert_int_equal(tile_split_width(&s, 1), 32);
    assert_int_equal(tile_split_level_extent(&s, 0), 4096);
    assert_int_equal(tile_split_max_extent(&s), 128);
    int64_t coord[TILE_MAX_LEVELS], local, first, extent;
    tile_split_locate(&s, dim - 1, coord, &local);
    assert_int_equal(coord[0], 488281);
    assert_int_equal(coord[1], 7);
    assert_int_equal(local, 127);
    tile_split_at(&s, 1, coord, &first, &extent);
    assert_int_equal(first, dim - 128);
    assert_int_equal(extent, 128);
    tile_split_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_4x4_in_2x2_tiles),
        cmocka_unit_test(test_flatten_4x4),
        cmocka_unit_test(test_uneven_5x3_by_2),
        cmocka_unit_test(test_unsplit_mode_keeps_its_size),
        cmocka_unit_test(test_two_shape_levels),
        cmocka_unit_test(test_occupancy_by_hand),
        cmocka_unit_test(test_occupancy_under_shape),
        cmocka_unit_test(test_occupancy_per_group),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_tile_refusals),
        cmocka_unit_test(test_scalar_is_one_tile),
        cmocka_unit_test(test_random_round_trip),
        cmocka_unit_test(test_random_splits_against_lists),
        cmocka_unit_test(test_huge_mode_held_by_rule),
    };
    return cmocka_run_group_tests_name("tile", tests, NULL, NULL);
}
