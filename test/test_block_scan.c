/* The level scanner, the value array and the writers against every vector
 * of SAM-BLOCKS.md sections 5.1 and 5.3-5.5. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "test_harness.h"

#define LEVEL(ft, seg, crd) \
    harness_level(ft, seg, sizeof(seg) / sizeof(seg)[0], crd, sizeof(crd) / sizeof(crd)[0])

static void scan(const int64_t *seg, size_t nseg, const int64_t *crd, size_t ncrd,
                 const char *in_ref, const char *crd_out, const char *ref_out, int exact)
{
    fibertree ft;
    harness_level(&ft, seg, nseg, crd, ncrd);
    harness_spec s = {.ops = &fiberlookup_compressed_ops,
                      .attrs = "tensor=B,mode=0,format=compressed", .tensor = "B", .tree = &ft,
                      .inputs = {in_ref}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, crd_out, exact);
    if (ref_out)
        harness_expect(&out, 1, ref_out, exact);
    harness_free(&out);
    fibertree_free(&ft);
}

#define SCAN(seg, crd, in, c, r, exact) \
    scan(seg, sizeof(seg) / 8, crd, sizeof(crd) / 8, in, c, r, exact)

static void test_scanner_one_fiber(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 3}, crd[] = {0, 1, 3};
    SCAN(seg, crd, "0 D", "0 1 3 S0 D", "0 1 2 S0 D", 1);
}

static void test_scanner_nested(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 3, 4, 6}, crd[] = {0, 2, 3, 0, 2, 3};
    SCAN(seg, crd, "0 0 S0 1 S0 2 S1 D", "0 2 3 S0 0 2 3 S1 0 S1 2 3 S2 D",
         "0 1 2 S0 0 1 2 S1 3 S1 4 5 S2 D", 0);
}

static void test_scanner_stop_refs_with_gaps(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 1}, crd[] = {28};
    SCAN(seg, crd, "0 S0 _ _ S0 _ _ 0 _ _ S0 _ _ D", "28 S1 S1' 28 S1 D", "0 S1 S1' 0 S1 D", 0);
}

static void test_scanner_empty_refs(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 2, 3, 4}, crd[] = {0, 1, 2, 3};
    SCAN(seg, crd, "0 1 N 2 N S0 D", "0 1 S0 2 S0 N S0 3 S0 N S1 D",
         "0 1 S0 2 S0 N S0 3 S0 N S1 D", 1);
}

static void test_scanner_empty_fiber(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 2, 2, 3}, crd[] = {5, 7, 9};
    SCAN(seg, crd, "0 1 2 S0 D", "5 7 S0 S0 9 S1 D", "0 1 S0 S0 2 S1 D", 1);
}

static void test_scanner_waits_for_the_next_ref(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 3}, crd[] = {0, 1, 3};
    SCAN(seg, crd, "0 _ _ _ D", "0 _ _ _ 1 3 S0 D", NULL, 1);
}

/* The reference's vector files say seg [0, nnz+1]; the scanner stops at
 * the end of crd all the same. */
static void test_scanner_vector_seg_off_by_one(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 4}, crd[] = {0, 2, 3};
    SCAN(seg, crd, "0 D", "0 2 3 S0 D", "0 1 2 S0 D", 1);
}

static void array(const char *in, const double *vals, size_t n, const char *expected)
{
    fibertree ft;
    int64_t seg[] = {0, 0};
    harness_level(&ft, seg, 2, NULL, 0);
    free(ft.vals);
    ft.vals = malloc(n * sizeof *ft.vals);
    for (size_t i = 0; i < n; i++)
        ft.vals[i] = vals[i];
    ft.nvals = n;
    harness_spec s = {.ops = &arrayvals_ops, .attrs = "tensor=B", .tensor = "B", .tree = &ft,
                      .inputs = {in}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, expected, 1);
    harness_free(&out);
    fibertree_free(&ft);
}

static void test_arrayvals(void **state)
{
    (void)state;
    static const double a4[] = {1, 2, 3, 4}, a6[] = {1, 2, 3, 4, 5, 6}, a5[] = {1, 2, 3, 4, 5};
    array("0 1 N 2 N 3 S0 D", a4, 4, "1 2 0 3 0 4 S0 D");
    array("0 1 S0 2 3 S0 N S0 4 5 S1 D", a6, 6, "1 2 S0 3 4 S0 0 S0 5 6 S1 D");
    array("N 0 1 2 S0 N N S0 2 3 4 S0 N N S1 D", a5, 5, "0 1 2 3 S0 0 0 S0 3 4 5 S0 0 0 S1 D");
}

/* A tensor not bound to data is refused, leaving no state behind (the
 * engine never destroys a block whose create failed). */
static void test_arrayvals_unbound(void **state)
{
    (void)state;
    harness_spec s = {.ops = &arrayvals_ops, .attrs = "tensor=C"};
    harness_refused(&s, "tensor C is not bound to data");
}

static void write_crd(const char *in, const int64_t *crd, size_t ncrd, const int64_t *seg,
                      size_t nseg)
{
    harness_spec s = {.ops = &fiberwrite_compressed_ops,
                      .attrs = "tensor=X,mode=0,format=compressed", .inputs = {in}};
    harness_out out;
    harness_run(&s, &out);
    assert_true(out.done);
    fibertree ft = {.order = 1};
    ft.lv[0].mode = 0;
    sam_error err;
    assert_int_equal(out.blk.ops->collect(&out.blk, &ft, &err), 0);
    assert_int_equal(ft.lv[0].ncrd, ncrd);
    assert_int_equal(ft.lv[0].nseg, nseg);
    for (size_t i = 0; i < ncrd; i++)
        assert_int_equal(ft.lv[0].crd[i], crd[i]);
    for (size_t i = 0; i < nseg; i++)
        assert_int_equal(ft.lv[0].seg[i], seg[i]);
    fibertree_free(&ft);
    harness_free(&out);
}

static void test_fiberwrite_compressed(void **state)
{
    (void)state;
    write_crd("0 2 3 S0 0 2 3 S1 D", (const int64_t[]){0, 2, 3, 0, 2, 3}, 6,
              (const int64_t[]){0, 3, 6}, 3);
    write_crd("S0 1 S0 S0 2 3 S1 D", (const int64_t[]){1, 2, 3}, 3, (const int64_t[]){0, 1, 3}, 3);
    /* As the reference's: seg [0] for an empty fiber (SAM-BLOCKS.md 5.5);
     * assembling the result gives every fiber above its entry
     * (builder/result.c). */
    write_crd("S0 D", NULL, 0, (const int64_t[]){0}, 1);
}

static void write_vals(const char *in, const double *vals, size_t n, cycle_t done)
{
    harness_spec s = {.ops = &fiberwrite_vals_ops, .attrs = "tensor=X,mode=vals", .inputs = {in}};
    harness_out out;
    harness_run(&s, &out);
    assert_true(out.done);
    assert_int_equal(out.done_cycle, done);
    fibertree ft = {.order = 0};
    sam_error err;
    assert_int_equal(out.blk.ops->collect(&out.blk, &ft, &err), 0);
    assert_int_equal(ft.nvals, n);
    for (size_t i = 0; i < n; i++)
        assert_true(ft.vals[i] == vals[i]);
    fibertree_free(&ft);
    harness_free(&out);
}

static void test_fiberwrite_vals(void **state)
{
    (void)state;
    write_vals("1.5 N 2.5 S0 D", (const double[]){1.5, 0, 2.5}, 3, 4);
    write_vals("3.0 S1 4.0 S2 D", (const double[]){3.0, 4.0}, 2, 4);
}

/* A coordinate stream feeds a scanner's or a repeat's reference input
 * (locator wiring, test/data/mat_sddmm_hand.gv); other kinds are refused. */
static void test_coordinates_as_references(void **state)
{
    (void)state;
    graph_edge crd = {.kind = "crd", .label = "crd as ref", .comment = ""};
    graph_edge val = {.kind = "val", .label = "val", .comment = ""};
    graph_node n = {.id = "1", .type = "fiberlookup"};
    block b = {.ops = &fiberlookup_dense_ops, .node = &n};
    sam_error err;
    assert_int_equal(fiberlookup_dense_ops.port(&b, &crd, 1, &err), 0);
    assert_int_equal(fiberlookup_compressed_ops.port(&b, &crd, 1, &err), 0);
    assert_int_equal(fiberlookup_dense_ops.port(&b, &val, 1, &err), -1);
    assert_int_equal(fiberlookup_dense_ops.port(&b, &crd, 0, &err), 0);
    b.ops = &repeat_ops;
    assert_int_equal(repeat_ops.port(&b, &crd, 1, &err), 0);
    assert_int_equal(repeat_ops.port(&b, &val, 1, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scanner_one_fiber),
        cmocka_unit_test(test_coordinates_as_references),
        cmocka_unit_test(test_scanner_nested),
        cmocka_unit_test(test_scanner_stop_refs_with_gaps),
        cmocka_unit_test(test_scanner_empty_refs),
        cmocka_unit_test(test_scanner_empty_fiber),
        cmocka_unit_test(test_scanner_waits_for_the_next_ref),
        cmocka_unit_test(test_scanner_vector_seg_off_by_one),
        cmocka_unit_test(test_arrayvals),
        cmocka_unit_test(test_arrayvals_unbound),
        cmocka_unit_test(test_fiberwrite_compressed),
        cmocka_unit_test(test_fiberwrite_vals),
    };
    return cmocka_run_group_tests_name("blocks: scan, array, write", tests, NULL, NULL);
}
