/* The schedule's splits (custard/tiling.h) and tile sequencing
 * (custard/tileseq.h): what is parsed and refused, the order of the tile
 * loops, and which tile points are visited, against a brute-force walk of
 * the whole tile grid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../custard/tileseq.h"
#include "../custard/tiling.h"
#include "../formats/prng.h"
#include "test_util.h"

static void parse_expr(const char *text, expr *e)
{
    sam_error err;
    if (expr_parse(text, e, &err))
        fail_msg("%s", err.msg);
}

static void test_splits_parse_and_print(void **state)
{
    (void)state;
    expr e;
    parse_expr("X(i,j)=B(i,k)*C(k,j)", &e);
    tiling t;
    sam_error err;
    assert_int_equal(tiling_parse(" split(i,i1,i0,128);split(k,k1,k0,B.64)  split(i0,i01,i00,32)",
                                  &e, &t, &err), 0);
    int i = expr_find_index(&e, "i"), k = expr_find_index(&e, "k"), j = expr_find_index(&e, "j");
    assert_int_equal(t.nlevels[i], 2);
    assert_int_equal(t.nlevels[k], 1);
    assert_int_equal(t.nlevels[j], 0);
    assert_int_equal(t.depth, 2);
    assert_true(t.level[i][0].size == 128 && t.level[i][0].leader == -1);
    assert_true(t.level[i][1].size == 32 && !strcmp(t.level[i][1].outer, "i01"));
    assert_true(t.level[k][0].size == 64 && t.level[k][0].leader == expr_find_tensor(&e, "B"));
    char text[512];
    tiling_format(&t, &e, text, sizeof text);
    assert_string_equal(text, "split(i,i1,i0,128) split(k,k1,k0,B.64) split(i0,i01,i00,32)");
    /* The loops: level 0 in the computation's order (k, i, j), then level 1. */
    int loop[3] = {k, i, j}, index[8], level[8];
    assert_int_equal(tiling_order(&t, loop, 3, index, level), 3);
    assert_true(index[0] == k && level[0] == 0 && index[1] == i && level[1] == 0);
    assert_true(index[2] == i && level[2] == 1);
    expr_free(&e);
}

static void refused(const char *expression, const char *splits, const char *message)
{
    expr e;
    parse_expr(expression, &e);
    tiling t;
    sam_error err;
    assert_int_equal(tiling_parse(splits, &e, &t, &err), -1);
    if (!strstr(err.msg, message))
        fail_msg("'%s' gave '%s', not '%s'", splits, err.msg, message);
    assert_int_equal(t.depth, 0);
    expr_free(&e);
}

static void test_splits_refused(void **state)
{
    (void)state;
    const char *mm = "X(i,j)=B(i,k)*C(k,j)";
    refused(mm, "reorder(i,j,k)", "'reorder(i,j,k)' is not split(index,outer,inner,size) or "
                                  "tileorder(coordinate,...)");
    refused(mm, "split(i,i1,i0)", "split(i,i1,i0): expected split(index,outer,inner,size)");
    refused(mm, "split(q,q1,q0,4)", "split(q,q1,q0,4): no index q in the expression");
    refused(mm, "split(i,i1,i0,4) split(i1,a,b,2)", "i1 is a tile coordinate; split the inner "
                                                    "part i0");
    refused(mm, "split(i,k,i0,4)", "'k' is not a new index name");
    refused(mm, "split(i,i1,i0,4) split(j,i1,j0,4)", "'i1' is not a new index name");
    refused(mm, "split(i,i1,i1,4)", "the outer and inner names are the same");
    refused(mm, "split(i,1x,i0,4)", "'1x' is not a new index name");
    refused(mm, "split(i,i1,i0,0)", "the size '0' is not a whole number of at least 1");
    refused(mm, "split(i,i1,i0,-4)", "the size '-4' is not a whole number of at least 1");
    refused(mm, "split(i,i1,i0,2.5)", "split(i,i1,i0,2.5): the size '2.5' is not a whole "
                                      "number of at least 1");
    refused(mm, "split(i,i1,i0,.5)", "the size '.5' is not a whole number of at least 1");
    refused(mm, "split(i,i1,i0,B.2.5)", "the size '2.5' is not a whole number of at least 1");
    refused(mm, "split(i,i1,i0,C.4)", "the leader C is not an operand indexed by i");
    refused(mm, "split(i,i1,i0,X.4)", "the leader X is not an operand indexed by i");
    refused(mm, "split(i,a1,a0,2) split(a0,b1,b0,2) split(b0,c1,c0,2) split(c0,d1,d0,2) "
                "split(d0,e1,e0,2)", "index i is split more than 4 times");
    /* Counted per tile of another index: one split before, of the leader. */
    refused(mm, "split(i,i1,i0,B.4/k1) split(k,k1,k0,8)",
            "k1 is not a tile coordinate of another index split before");
    refused(mm, "split(i,i1,i0,8) split(i0,i01,i00,B.4/i1)",
            "i1 is not a tile coordinate of another index split before");
    refused(mm, "split(j,j1,j0,8) split(i,i1,i0,B.4/j1)", "counting per j1 needs a leader "
            "indexed by j");
    refused(mm, "split(k,k1,k0,8) split(i,i1,i0,4/k1)", "counting per k1 needs a leader");
    refused(mm, "split(i,i1,i0,8) split(k,k1,k0,B.4/i1) split(i0,i01,i00,B.2/k1)",
            "k1 is itself counted per tile");
}

static void test_split_per_group_prints_back(void **state)
{
    (void)state;
    expr e;
    parse_expr("Z(i,j)=A(i,k)*B(k,j)", &e);
    tiling t;
    sam_error err;
    static const char text[] = "split(k,k1,k0,128) split(i,i1,i0,1) split(i0,i01,i00,A.16384/k1)";
    assert_int_equal(tiling_parse(text, &e, &t, &err), 0);
    int i = expr_find_index(&e, "i"), k = expr_find_index(&e, "k");
    assert_int_equal(t.level[i][0].group_index, -1);
    assert_int_equal(t.level[i][1].group_index, k);
    assert_int_equal(t.level[i][1].group_level, 0);
    char back[512];
    tiling_format(&t, &e, back, sizeof back);
    assert_string_equal(back, "split(k,k1,k0,128) split(i,i1,i0,1) split(i0,i01,i00,A.16384/k1)");
    expr_free(&e);
}

/* A leader of two entries per K slab of 4 in rows 0..3 cuts the rows
 * every two when counted per slab, every row when counted whole. */
static void test_cut_per_group(void **state)
{
    (void)state;
    expr e;
    parse_expr("Z(i,j)=A(i,k)*B(k,j)", &e);
    tensor a;
    test_matrix(&a, 4, 8, 8, (const int64_t[][2]){{0, 0}, {1, 4}, {1, 1}, {2, 5}, {3, 2},
                                                  {3, 6}, {0, 7}, {2, 3}}, NULL);
    const tensor *leader[3] = {NULL, &a, NULL};
    int64_t dims[3];
    dims[expr_find_index(&e, "i")] = 4;
    dims[expr_find_index(&e, "k")] = 8;
    dims[expr_find_index(&e, "j")] = 3;
    tiling t;
    tile_split split[3];
    sam_error err;
    int i = expr_find_index(&e, "i");
    assert_int_equal(tiling_parse("split(i,i1,i0,A.2/k1) split(k,k1,k0,4)", &e, &t, &err), -1);
    assert_int_equal(tiling_parse("split(k,k1,k0,4) split(i,i1,i0,A.2/k1)", &e, &t, &err), 0);
    assert_int_equal(tiling_cut(&t, &e, leader, dims, split, &err), 0);
    assert_int_equal(tile_split_count(&split[i], 0), 2);
    for (int x = 0; x < 3; x++)
        tile_split_free(&split[x]);
    assert_int_equal(tiling_parse("split(k,k1,k0,4) split(i,i1,i0,A.2)", &e, &t, &err), 0);
    assert_int_equal(tiling_cut(&t, &e, leader, dims, split, &err), 0);
    assert_int_equal(tile_split_count(&split[i], 0), 4);
    for (int x = 0; x < 3; x++)
        tile_split_free(&split[x]);
    tensor_free(&a);
    expr_free(&e);
}

#define SPLIT_IK "split(i,i1,i0,8) split(k,k1,k0,8) split(i0,i01,i00,2) "

static void test_tile_order(void **state)
{
    (void)state;
    expr e;
    parse_expr("X(i,j)=B(i,k)*C(k,j)", &e);
    tiling t;
    sam_error err;
    /* Given before the splits it names, and interleaving levels. */
    assert_int_equal(tiling_parse("tileorder(k1,i1,i01) " SPLIT_IK, &e, &t, &err), 0);
    int i = expr_find_index(&e, "i"), k = expr_find_index(&e, "k");
    int loop[3] = {i, k, expr_find_index(&e, "j")}, index[8], level[8];
    assert_int_equal(tiling_order(&t, loop, 3, index, level), 3);
    assert_true(index[0] == k && level[0] == 0 && index[1] == i && level[1] == 0);
    assert_true(index[2] == i && level[2] == 1);
    char text[512];
    tiling_format(&t, &e, text, sizeof text);
    assert_string_equal(text, "split(i,i1,i0,8) split(k,k1,k0,8) split(i0,i01,i00,2) "
                              "tileorder(k1,i1,i01)");
    expr_free(&e);
    const char *mm = "X(i,j)=B(i,k)*C(k,j)";
    refused(mm, SPLIT_IK "tileorder(k1,i1)", "tileorder(k1,i1): names 2 of the 3 tile "
                                            "coordinates");
    refused(mm, SPLIT_IK "tileorder(k1,i01,i1)", "tileorder(k1,i01,i1): i01 comes before the "
                                                "outer level");
    refused(mm, SPLIT_IK "tileorder(k1,i1,i1)", "tileorder(k1,i1,i1): i1 is named twice");
    refused(mm, SPLIT_IK "tileorder(k1,i1,i0)", "i0 is not a tile coordinate of a split");
    refused(mm, SPLIT_IK "tileorder(k1,i1,i01) tileorder(i1,k1,i01)", "tile order is given "
                                                                     "twice");
    refused(mm, SPLIT_IK "tileorder(k1,,i01)", "an empty, too long or extra argument");
}

/* A tiled operand with the given keys (tile coordinates), n tiles of
 * nkeys each; key k is mode key_mode[k] at level 0. Only the keys matter
 * to the walk. */
static tiled_tensor keyed(int order, int nkeys, const int *key_mode, const int64_t *keys,
                          size_t n)
{
    tiled_tensor tt;
    memset(&tt, 0, sizeof tt);
    tt.order = order;
    tt.nkeys = nkeys;
    for (int k = 0; k < nkeys; k++)
        tt.key_mode[k] = key_mode[k];
    tt.tiles = calloc(n + 1, sizeof *tt.tiles);
    tt.ntiles = n;
    for (size_t t = 0; t < n; t++)
        for (int k = 0; k < nkeys; k++)
            tt.tiles[t].key[k] = keys[t * (size_t)nkeys + (size_t)k];
    return tt;
}

typedef struct visits {
    char text[4096];
    size_t used;
    int nloop, ntensors;
} visits;

static int record(void *ctx, const int64_t *coord, const size_t *tile)
{
    visits *v = ctx;
    v->used += (size_t)snprintf(v->text + v->used, sizeof v->text - v->used, "%s(", v->used ? " " : "");
    for (int k = 0; k < v->nloop; k++)
        v->used += (size_t)snprintf(v->text + v->used, sizeof v->text - v->used, "%s%lld",
                                    k ? "," : "", (long long)coord[k]);
    for (int t = 1; t < v->ntensors; t++) {
        if (tile[t] == TILESEQ_ABSENT)
            v->used += (size_t)snprintf(v->text + v->used, sizeof v->text - v->used, ":-");
        else
            v->used += (size_t)snprintf(v->text + v->used, sizeof v->text - v->used, ":%zu",
                                        tile[t]);
    }
    v->used += (size_t)snprintf(v->text + v->used, sizeof v->text - v->used, ")");
    return 0;
}

/* Walks expression text over B and C (keys on both modes) in the loop
 * order given by index names; the visits as text. */
static void walk(const char *text, const char *const *order, const tiled_tensor *b,
                 const tiled_tensor *c, visits *v)
{
    expr e;
    parse_expr(text, &e);
    int index[3], level[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
        index[k] = expr_find_index(&e, order[k]);
    const tiled_tensor *tt[3] = {NULL, b, c};
    memset(v, 0, sizeof *v);
    v->nloop = 3;
    v->ntensors = 3;
    sam_error err;
    if (tileseq_walk(&e, index, level, 3, tt, record, v, &err))
        fail_msg("%s", err.msg);
    expr_free(&e);
}

/* B's tiles at (i1,k1) = (1,1), (0,0), (0,1); C's at (k1,j1) = (1,0),
 * (0,1): a product meets where k1 does, in loop order i1, k1, j1, and
 * reports each operand's tile by its number. */
static void test_product_skips_empty_tiles(void **state)
{
    (void)state;
    static const int modes[2] = {0, 1};
    static const int64_t bk[] = {1, 1, 0, 0, 0, 1}, ck[] = {1, 0, 0, 1};
    tiled_tensor b = keyed(2, 2, modes, bk, 3), c = keyed(2, 2, modes, ck, 2);
    static const char *const ikj[] = {"i", "k", "j"}, *const kji[] = {"k", "j", "i"};
    visits v;
    walk("X(i,j)=B(i,k)*C(k,j)", ikj, &b, &c, &v);
    assert_string_equal(v.text, "(0,0,1:1:1) (0,1,0:2:0) (1,1,0:0:0)");
    walk("X(i,j)=B(i,k)*C(k,j)", kji, &b, &c, &v);
    assert_string_equal(v.text, "(0,1,0:1:1) (1,0,0:2:0) (1,0,1:0:0)");
    free(b.tiles);
    free(c.tiles);
}

/* A sum visits where either term has a tile, the other absent. */
static void test_sum_visits_either(void **state)
{
    (void)state;
    static const int modes[2] = {0, 1};
    static const int64_t bk[] = {0, 0, 1, 1}, ck[] = {0, 0, 0, 1};
    tiled_tensor b = keyed(2, 2, modes, bk, 2), c = keyed(2, 2, modes, ck, 2);
    expr e;
    parse_expr("X(i,j)=B(i,j)+C(i,j)", &e);
    int index[2] = {expr_find_index(&e, "i"), expr_find_index(&e, "j")}, level[2] = {0, 0};
    const tiled_tensor *tt[3] = {NULL, &b, &c};
    visits v;
    memset(&v, 0, sizeof v);
    v.nloop = 2;
    v.ntensors = 3;
    sam_error err;
    assert_int_equal(tileseq_walk(&e, index, level, 2, tt, record, &v, &err), 0);
    assert_string_equal(v.text, "(0,0:0:0) (0,1:-:1) (1,1:1:-)");
    expr_free(&e);
    free(b.tiles);
    free(c.tiles);
}

/* Random tile sets on a 6x5x7 grid, walked in every loop order: the
 * visits are exactly the grid points where both of a product's tiles
 * exist (or either of a sum's), in the loop order's lexicographic order. */
static void test_walk_against_the_grid(void **state)
{
    (void)state;
    static const int64_t dim[3] = {6, 5, 7};  /* i1, k1, j1 */
    static const char *const orders[6][3] = {{"i", "k", "j"}, {"i", "j", "k"}, {"k", "i", "j"},
                                             {"k", "j", "i"}, {"j", "i", "k"}, {"j", "k", "i"}};
    static const int modes[2] = {0, 1};
    prng r;
    prng_seed(&r, 7);
    for (int round = 0; round < 20; round++) {
        char hasb[6][5] = {{0}}, hasc[5][7] = {{0}};
        int64_t bk[60], ck[70];
        size_t nb = 0, nc = 0;
        /* Tiles in a scrambled order: the walk must sort them itself. */
        for (int x = 29; x >= 0; x--)
            if (prng_below(&r, 3) == 0)
                hasb[x % 6][x / 6] = 1, bk[2 * nb] = x % 6, bk[2 * nb + 1] = x / 6, nb++;
        for (int x = 0; x < 35; x++)
            if (prng_below(&r, 3) == 0)
                hasc[x / 7][x % 7] = 1, ck[2 * nc] = x / 7, ck[2 * nc + 1] = x % 7, nc++;
        tiled_tensor b = keyed(2, 2, modes, bk, nb), c = keyed(2, 2, modes, ck, nc);
        for (int o = 0; o < 6; o++) {
            visits v;
            walk("X(i,j)=B(i,k)*C(k,j)", orders[o], &b, &c, &v);
            char want[4096] = "";
            size_t used = 0;
            int pos[3];
            for (int k = 0; k < 3; k++)
                pos[k] = orders[o][k][0] == 'i' ? 0 : orders[o][k][0] == 'k' ? 1 : 2;
            int64_t c3[3];
            for (c3[0] = 0; c3[0] < dim[pos[0]]; c3[0]++)
                for (c3[1] = 0; c3[1] < dim[pos[1]]; c3[1]++)
                    for (c3[2] = 0; c3[2] < dim[pos[2]]; c3[2]++) {
                        int64_t at[3];
                        for (int k = 0; k < 3; k++)
                            at[pos[k]] = c3[k];
                        if (!hasb[at[0]][at[1]] || !hasc[at[1]][at[2]])
                            continue;
                        used += (size_t)snprintf(want + used, sizeof want - used, "%s(%lld,%lld,%lld",
                                                 used ? " " : "", (long long)c3[0],
                                                 (long long)c3[1], (long long)c3[2]);
                        size_t tb = 0, tc = 0;
                        while (bk[2 * tb] != at[0] || bk[2 * tb + 1] != at[1])
                            tb++;
                        while (ck[2 * tc] != at[1] || ck[2 * tc + 1] != at[2])
                            tc++;
                        used += (size_t)snprintf(want + used, sizeof want - used, ":%zu:%zu)", tb, tc);
                    }
            assert_string_equal(v.text, want);
        }
        free(b.tiles);
        free(c.tiles);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splits_parse_and_print),
        cmocka_unit_test(test_splits_refused),
        cmocka_unit_test(test_split_per_group_prints_back),
        cmocka_unit_test(test_cut_per_group),
        cmocka_unit_test(test_tile_order),
        cmocka_unit_test(test_product_skips_empty_tiles),
        cmocka_unit_test(test_sum_visits_either),
        cmocka_unit_test(test_walk_against_the_grid),
    };
    return cmocka_run_group_tests_name("tiling", tests, NULL, NULL);
}
