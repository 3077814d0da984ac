/* A template's phases run in memory (run/template_run.h), as `samsim run
 * DIR` runs them from its files: the plan built (template_build), the
 * operands bound, each phase run on its hardware. On an 8x8 matrix worked
 * by hand (below) each template moves exactly the DRAM bytes its tiles
 * and formats make. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../run/template_run.h"
#include "test_util.h"

/* Template name at its defaults but for params ("KEY=VALUE ..."), run in
 * memory on A = a, B = b; *r holds the run (trun_free) whatever the
 * outcome, trun_run_plan's. */
static int try_template(const char *name, const char *params, const tensor *a, const tensor *b,
                        trun *r, sam_error *err)
{
    const template_def *t = template_find(name);
    double values[TEMPLATE_MAX_PARAMS];
    char *buf = strdup(params), *save = NULL;
    assert_non_null(t);
    template_defaults(t, values);
    for (char *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save))
        if (template_set(t, values, kv, err))
            fail_msg("%s: %s", name, err->msg);
    free(buf);
    template_plan *plan = calloc(1, sizeof *plan);
    sam_graph g[TEMPLATE_MAX_PHASES];
    assert_non_null(plan);
    if (template_build(t, values, plan, g, err))
        fail_msg("%s: %s", name, err->msg);
    tensor ca, cb;
    trun_init(r, ENGINE_EVENT, 0);
    assert_int_equal(tensor_copy(&ca, a, err) || tensor_copy(&cb, b, err) ||
                     trun_bind(r, "A", &ca, err) || trun_bind(r, "B", &cb, err), 0);
    int rc = trun_run_plan(r, plan, g, err);
    for (int p = 0; p < plan->nphases; p++)
        graph_free(&g[p]);
    free(plan);
    return rc;
}

/* The same, which must run and pass --check. */
static void run_template(const char *name, const char *params, const tensor *a, const tensor *b,
                         trun *r)
{
    sam_error err;
    char verdict[64];
    if (try_template(name, params, a, b, r, &err))
        fail_msg("%s: %s", name, err.msg);
    assert_int_equal(trun_check(r, name, TEMPLATE_EXPR, verdict, sizeof verdict, &err), 0);
}

/* The traffic of tensor name, -1 when the run has none. */
static long long traffic(const trun *r, const char *name)
{
    for (int i = 0; i < r->ntensors; i++)
        if (!strcmp(r->tensor[i].name, name))
            return llround(r->tensor[i].traffic);
    return -1;
}

typedef struct hand_case {
    const char *name, *params;
    long long a, b, t, po, z, min, zeros;
} hand_case;

/* A = B = test_hand_matrix's 8x8: (0,0)=1 (0,5)=2 (3,1)=3 (5,5)=4 (6,2)=5
 * (7,7)=6; Z = A A has four entries: (0,0)=1 (0,5)=2+8 (5,5)=16 (7,7)=36.
 * Bytes: a coordinate or seg entry 4, a value 8 (SIGMA 4), a bitvector
 * word 8. A and B whole in DCSR: seg 2 + rows {0,3,5,6,7} 5 + seg 6 +
 * 6 coordinates = 19 x 4 + 6 x 8 = 124; Z (rows {0,5,7}, 4 entries):
 * 13 x 4 + 4 x 8 = 84.
 *
 * Gamma stores A, B and Z as CSR (layout ds): a pointer per row of the
 * tile, empty rows included, and one more, then 12 bytes an entry. Rows
 * in tiles of 3 entries on 2 PEs: A's row tiles 0-3 (0,0)(0,5)(3,1) and
 * 4-7 (5,5)(6,2)(7,7) cost 5 x 4 + 36 = 56 each; the FiberCache fetches
 * the rows of B that A's select, each once: the first tile selects k 0, 5
 * and 1 (B has no row 1), the second 5 (cached) and 7 and 2 (none); a row
 * costs its pointer and 12 an entry: row 0 4 + 24, rows 5 and 7 4 + 12
 * each: B 60 (rows 3 and 6, never selected, are never read); Z's row
 * tiles go out once, rows 0-3 (0,0)(0,5) and 4-7 (5,5)(7,7): 20 + 24
 * each. Whole, A and B cost 9 x 4 + 72 = 108 and Z 36 + 48 = 84.
 *
 * ExTensor stores A and B as their PE tiles in DCSR (layout tiled) and Z
 * as 16-byte (row, column, value) entries (layout coo). PE tiles 4 a
 * side, LLB tiles 4 rows x 4 deep x 8 wide, in the order j1 k1 i1: A's
 * four LLB tiles, each one PE tile, 52 + 32 + 32 + 52; B's two LLB tiles
 * fill lazily by PE tile (llb.lazy), each of the four reached by a point
 * of A's tile beside it: rows 0-3 (0,0)(3,1) 52 and (0,5) 32, rows 4-7
 * (6,2) 32 and (5,5)(7,7) 52, 168 (whole, the two LLB tiles would be 64
 * and 72: a tile stored as its PE tiles costs their sum). Z's PE tiles go
 * to DRAM (place.Z = pe): rows 0-3 get (0,0) and (0,5) in two PE tiles at
 * k1 = 0 (16 bytes each), go out when their points are done, and at k1 =
 * 1 both PE tiles' points run again (A's and B's tiles there are not
 * empty): both are read back (32: PO 2 x 32) and written again (32); rows
 * 4-7 go out once, one PE tile (5,5)(7,7): 32, the other empty. Z = 32 +
 * 32 + 32 - 32 = 64, its four entries once; the minimum: A and B as all
 * their PE tiles, 168 each, and Z 64.
 *
 * OuterSPACE, all of A in one multiply tile: A by columns and B with a
 * pointer for every k (layout ds), 9 x 4 + 72 = 108 each; T(i,k,j) has
 * five products under four (i,k) nodes in rows {0,5,7}, written as d,l,s
 * at TeAAL's widths: a pointer per row's list (3 x 4), one per (i,k) node
 * (4 x 4), no k, no seg entries below, and (j, value) 12 bytes (5 x 12):
 * 88, and read back by the merge phase as it was written, d,l,s, in its
 * one tile of 8 rows: the same 88 (the five empty rows have no list); Z
 * once, 84.
 *
 * SIGMA's memories hold values (4 bytes; coordinates and pointers cost
 * nothing: the bitmaps have their own SRAM), A's entries alone (layout
 * coo) and B dense (layout dd). K in two shape tiles of 4, A whole
 * stationary: A's six values, 24; B's columns cached (place.B = cache),
 * each K tile's columns that hold entries fetched once: k 0-3 columns
 * {0,1,5}, k 4-7 {2,5,7}, 4 positions each: 6 x 16 = 96. The inner
 * products write every (j, i) pair met, zeros included: 17 values, 68; 13
 * of the 17 are zeros, which Z does not hold: once, Z's four values cost
 * 16; A once 24, B once 8 x 8 positions: 256. */
static const hand_case hand[] = {
    {"gamma", "tile.entries=3 pe.count=2", 112, 60, -1, 0, 88, 300, 0},
    {"extensor", "pe.tile=4 llb.tile.i=1 llb.tile.k=1 llb.tile.j=2 pe.count=2", 168, 168, -1, 64, 64, 400, 0},
    {"outerspace", "a.per.pe=6 merge.rows=8", 108, 108, 176, 0, 84, 300, 0},
    {"sigma", "k.tile=4 a.per.tile=6", 24, 96, -1, 0, 68, 296, 13},
};

static void test_hand_traffic(void **state)
{
    (void)state;
    tensor a;
    test_hand_matrix(&a);
    for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
        const hand_case *h = &hand[i];
        trun r;
        run_template(h->name, h->params, &a, &a, &r);
        trun_tensor *z = trun_result(&r);
        assert_int_equal(traffic(&r, "A"), h->a);
        assert_int_equal(traffic(&r, "B"), h->b);
        assert_int_equal(llround(2 * z->read_back), h->po);
        assert_int_equal(llround(z->traffic - 2 * z->read_back), h->z);
        assert_int_equal(llround(trun_traffic_min(&r)), h->min);
        assert_int_equal(z->zeros, h->zeros);
        assert_int_equal(z->t.nnz, 4);
        assert_int_equal(traffic(&r, "T"), h->t);
        trun_free(&r);
    }
    tensor_free(&a);
}

/* B larger than Gamma's FiberCache: its rows are evicted and fetched
 * again. A's 5 rows select B's rows 0, 1, 2, 3, 0 (A (0,0) (1,1) (2,2)
 * (3,3) (4,0)); B's rows 0-3 of 8 hold one entry each ((0,4) (1,5) (2,6)
 * (3,7)). At 4 bytes a coordinate, pointer and value, in CSR, a row of B
 * in the FiberCache is its pointer, one coordinate and one value: 12
 * bytes. A tile of one row of A, or of Z, is 2 pointers, a coordinate and
 * a value: 16 bytes, 5 x 16 = 80 of A and of Z. A 48-byte FiberCache
 * holds the four rows: B moves 4 x 12 = 48. A 40-byte one (the PE's
 * buffer as large: a tile of A and one of Z) holds three: row 3 evicts
 * row 0 (least recently used), which then misses and evicts row 1: 5 x
 * 12 = 60. traffic_min: A and Z whole (6 pointers, 5 coordinates and
 * values: 64 each), B whole (9 pointers, 4 coordinates and values: 68):
 * 196. */
static void test_fibercache_evicts(void **state)
{
    (void)state;
    static const int64_t at_a[5][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 0}};
    static const int64_t at_b[4][2] = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
    static const double va[5] = {1, 1, 1, 1, 2}, vb[4] = {1, 2, 3, 4};
    static const struct {
        const char *params;
        long long b;
    } runs[] = {
        {"tile.entries=1 pe.count=1 bytes.val=4 fibercache.capacity=48", 48},
        {"tile.entries=1 pe.count=1 bytes.val=4 fibercache.capacity=40", 60},
    };
    tensor a, b;
    test_matrix(&a, 5, 8, 5, at_a, va);
    test_matrix(&b, 8, 8, 4, at_b, vb);
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        trun r;
        run_template("gamma", runs[i].params, &a, &b, &r);
        trun_tensor *z = trun_result(&r);
        assert_int_equal(traffic(&r, "A"), 80);
        assert_int_equal(traffic(&r, "B"), runs[i].b);
        assert_int_equal(llround(z->traffic), 80);
        assert_int_equal(llround(trun_traffic_min(&r)), 196);
        assert_int_equal(z->t.nnz, 5);
        trun_free(&r);
    }
    tensor_free(&a);
    tensor_free(&b);
}

/* A tile too large for its buffer is refused with what makes it fit: the
 * template's parameters (fit.llb, fit.pe in its hardware). */
static void test_refusal_names_parameters(void **state)
{
    (void)state;
    static const struct {
        const char *name, *params, *fit;
    } cases[] = {
        {"extensor", "pe.tile=4 llb.capacity=40", "llb buffer (40 bytes); a larger llb.capacity, "
         "or smaller llb.tile.i, llb.tile.k or llb.tile.j, makes it fit"},
        {"extensor", "pe.tile=8 pe.capacity=50", "pe buffer (50 bytes); a larger pe.capacity or "
         "a smaller pe.tile makes it fit"},
        {"gamma", "fibercache.capacity=20", "pe buffer (20 bytes); a larger "
         "fibercache.capacity (the PE's buffer is as large) or a smaller tile.entries makes it "
         "fit"},
    };
    tensor a;
    test_hand_matrix(&a);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sam_error err;
        trun r;
        assert_int_equal(try_template(cases[i].name, cases[i].params, &a, &a, &r, &err), -1);
        if (!strstr(err.msg, cases[i].fit))
            fail_msg("%s %s: %s", cases[i].name, cases[i].params, err.msg);
        trun_free(&r);
    }
    tensor_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_traffic), cmocka_unit_test(test_refusal_names_parameters),
        cmocka_unit_test(test_fibercache_evicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
