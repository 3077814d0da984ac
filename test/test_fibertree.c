/* Level storage for every level format and mode order, on hand-made
 * tensors whose arrays are written out here (the ss01/ss10 matrix is the
 * example of SAM-BLOCKS.md section 4.2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/fibertree.h"
#include "../formats/prng.h"
#include "test_util.h"

typedef struct entry {
    int64_t c[3];
    double v;
} entry;

/* B = {(0,0)=1, (0,2)=2, (1,1)=3, (3,0)=4, (3,3)=5}, 4 x 4. */
static const entry matrix_b[] = {{{3, 3}, 5}, {{0, 2}, 2}, {{1, 1}, 3}, {{0, 0}, 1}, {{3, 0}, 4}};

/* T = {(0,0,1)=1, (0,2,0)=2, (1,0,0)=3, (1,0,1)=4, (1,2,1)=5}, 2 x 3 x 2. */
static const entry tensor_t[] = {
    {{1, 2, 1}, 5}, {{0, 0, 1}, 1}, {{1, 0, 0}, 3}, {{0, 2, 0}, 2}, {{1, 0, 1}, 4}};

static void make_tensor(tensor *t, int order, const int64_t *dims, const entry *e, size_t n)
{
    sam_error err;
    assert_int_equal(tensor_init(t, order, dims, &err), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tensor_append(t, e[i].c, e[i].v, &err), 0);
}

#define ARR(...) ((const int64_t[]){__VA_ARGS__}), (sizeof((const int64_t[]){__VA_ARGS__}) / 8)
#define NONE NULL, 0

static void expect_level(const fibertree *ft, int k, char kind, int mode, const int64_t *seg,
                         size_t nseg, const int64_t *crd, size_t ncrd)
{
    const fiber_level *l = &ft->lv[k];
    assert_int_equal(l->kind, kind);
    assert_int_equal(l->mode, mode);
    if (kind == 'd')
        return;
    assert_int_equal(l->nseg, nseg);
    assert_int_equal(l->ncrd, ncrd);
    for (size_t i = 0; i < nseg; i++)
        assert_int_equal(l->seg[i], seg[i]);
    for (size_t i = 0; i < ncrd; i++)
        assert_int_equal(l->crd[i], crd[i]);
}

static void expect_vals(const fibertree *ft, const double *vals, size_t n)
{
    assert_int_equal(ft->nvals, n);
    for (size_t i = 0; i < n; i++)
        assert_true(ft->vals[i] == vals[i]);
}

#define VALS(...) ((const double[]){__VA_ARGS__}), (sizeof((const double[]){__VA_ARGS__}) / 8)

/* fibertree_build_taking of a copy of t gives the tree fibertree_build
 * gave (ft), leaving the copy its shape and no entries; and
 * fibertree_to_tensor_taking of it gives what fibertree_to_tensor gives. */
static void expect_taking_agrees(const tensor *t, const level_format *f, const fibertree *ft)
{
    sam_error err;
    tensor copy, back, taken_back;
    fibertree taken;
    assert_int_equal(tensor_copy(&copy, t, &err), 0);
    assert_int_equal(fibertree_build_taking(&copy, f, &taken, &err), 0);
    assert_true(fibertree_equal(&taken, ft));
    assert_int_equal(copy.order, t->order);
    assert_memory_equal(copy.dims, t->dims, sizeof t->dims);
    assert_int_equal(copy.nnz, 0);
    assert_null(copy.vals);
    for (int m = 0; m < TENSOR_MAX_ORDER; m++)
        assert_null(copy.crd[m]);
    assert_int_equal(fibertree_to_tensor(ft, &back, &err), 0);
    assert_int_equal(fibertree_to_tensor_taking(&taken, &taken_back, &err), 0);
    assert_true(tensor_equal(&taken_back, &back));
    assert_int_equal(taken.nvals, 0);
    assert_null(taken.vals);
    tensor_free(&back);
    tensor_free(&taken_back);
    tensor_free(&copy);
}

/* Builds format fmt of t, and checks that it converts back to t, and
 * that building and converting by taking agree. */
static void build(const tensor *t, const char *fmt, fibertree *ft)
{
    sam_error err;
    level_format f;
    assert_int_equal(level_format_parse(fmt, &f, &err), 0);
    assert_int_equal(fibertree_build(t, &f, ft, &err), 0);
    tensor back, canon;
    assert_int_equal(fibertree_to_tensor(ft, &back, &err), 0);
    assert_int_equal(tensor_copy(&canon, t, &err), 0);
    assert_int_equal(tensor_canonicalize(&canon, NULL, &err), 0);
    assert_true(tensor_equal(&back, &canon));
    tensor_free(&back);
    tensor_free(&canon);
    expect_taking_agrees(t, &f, ft);
}

static void with_matrix(const char *fmt, fibertree *ft)
{
    tensor t;
    make_tensor(&t, 2, (const int64_t[]){4, 4}, matrix_b, 5);
    build(&t, fmt, ft);
    tensor_free(&t);
}

static void test_ss01_dcsr(void **state)
{
    (void)state;
    fibertree ft;
    with_matrix("ss01", &ft);
    expect_level(&ft, 0, 's', 0, ARR(0, 3), ARR(0, 1, 3));
    expect_level(&ft, 1, 's', 1, ARR(0, 2, 3, 5), ARR(0, 2, 1, 0, 3));
    expect_vals(&ft, VALS(1, 2, 3, 4, 5));
    fibertree_free(&ft);
}

static void test_ss10_dcsc(void **state)
{
    (void)state;
    fibertree ft;
    with_matrix("ss10", &ft);
    expect_level(&ft, 0, 's', 1, ARR(0, 4), ARR(0, 1, 2, 3));
    expect_level(&ft, 1, 's', 0, ARR(0, 2, 3, 4, 5), ARR(0, 3, 1, 0, 3));
    expect_vals(&ft, VALS(1, 4, 3, 2, 5));
    fibertree_free(&ft);
}

static void test_ds01_csr_keeps_empty_rows(void **state)
{
    (void)state;
    fibertree ft;
    with_matrix("ds01", &ft);
    expect_level(&ft, 0, 'd', 0, NONE, NONE);
    expect_level(&ft, 1, 's', 1, ARR(0, 2, 3, 3, 5), ARR(0, 2, 1, 0, 3));
    expect_vals(&ft, VALS(1, 2, 3, 4, 5));
    fibertree_free(&ft);
}

static void test_ds10_csc(void **state)
{
    (void)state;
    fibertree ft;
    with_matrix("ds:1,0", &ft);
    expect_level(&ft, 0, 'd', 1, NONE, NONE);
    expect_level(&ft, 1, 's', 0, ARR(0, 2, 3, 4, 5), ARR(0, 3, 1, 0, 3));
    expect_vals(&ft, VALS(1, 4, 3, 2, 5));
    fibertree_free(&ft);
}

static void test_sd01_pads_stored_rows(void **state)
{
    (void)state;
    fibertree ft;
    with_matrix("sd01", &ft);
    expect_level(&ft, 0, 's', 0, ARR(0, 3), ARR(0, 1, 3));
    expect_level(&ft, 1, 'd', 1, NONE, NONE);
    expect_vals(&ft, VALS(1, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 5));
    fibertree_free(&ft);
}

static void test_sd10(void **state)
{
    (void)state;
    fibertree ft;
    with_matrix("sd10", &ft);
    expect_level(&ft, 0, 's', 1, ARR(0, 4), ARR(0, 1, 2, 3));
    expect_vals(&ft, VALS(1, 0, 0, 4, 0, 3, 0, 0, 2, 0, 0, 0, 0, 0, 0, 5));
    fibertree_free(&ft);
}

static void test_dd01_and_dd10(void **state)
{
    (void)state;
    fibertree ft;
    with_matrix("dd01", &ft);
    expect_vals(&ft, VALS(1, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0, 0, 4, 0, 0, 5));
    fibertree_free(&ft);
    with_matrix("dd10", &ft);
    expect_vals(&ft, VALS(1, 0, 0, 4, 0, 3, 0, 0, 2, 0, 0, 0, 0, 0, 0, 5));
    fibertree_free(&ft);
}

static void with_tensor3(const char *fmt, fibertree *ft)
{
    tensor t;
    make_tensor(&t, 3, (const int64_t[]){2, 3, 2}, tensor_t, 5);
    build(&t, fmt, ft);
    tensor_free(&t);
}

static void test_sss012(void **state)
{
    (void)state;
    fibertree ft;
    with_tensor3("sss012", &ft);
    expect_level(&ft, 0, 's', 0, ARR(0, 2), ARR(0, 1));
    expect_level(&ft, 1, 's', 1, ARR(0, 2, 4), ARR(0, 2, 0, 2));
    expect_level(&ft, 2, 's', 2, ARR(0, 1, 2, 4, 5), ARR(1, 0, 0, 1, 1));
    expect_vals(&ft, VALS(1, 2, 3, 4, 5));
    fibertree_free(&ft);
}

static void test_sss210(void **state)
{
    (void)state;
    fibertree ft;
    with_tensor3("sss210", &ft);
    expect_level(&ft, 0, 's', 2, ARR(0, 2), ARR(0, 1));
    expect_level(&ft, 1, 's', 1, ARR(0, 2, 4), ARR(0, 2, 0, 2));
    expect_level(&ft, 2, 's', 0, ARR(0, 1, 2, 4, 5), ARR(1, 0, 0, 1, 1));
    expect_vals(&ft, VALS(3, 2, 1, 4, 5));
    fibertree_free(&ft);
}

static void test_sds012_dense_middle(void **state)
{
    (void)state;
    fibertree ft;
    with_tensor3("sds012", &ft);
    expect_level(&ft, 0, 's', 0, ARR(0, 2), ARR(0, 1));
    expect_level(&ft, 1, 'd', 1, NONE, NONE);
    expect_level(&ft, 2, 's', 2, ARR(0, 1, 1, 2, 4, 4, 5), ARR(1, 0, 0, 1, 1));
    expect_vals(&ft, VALS(1, 2, 3, 4, 5));
    assert_int_equal(fibertree_positions(&ft, 1), 6);
    fibertree_free(&ft);
}

static void test_every_mode_order_of_a_3_tensor(void **state)
{
    (void)state;
    static const char *orders[] = {"012", "021", "102", "120", "201", "210"};
    static const char *letters[] = {"sss", "dss", "sds", "ssd", "dds", "dsd", "sdd", "ddd"};
    for (size_t o = 0; o < 6; o++)
        for (size_t l = 0; l < 8; l++) {
            char fmt[8];
            snprintf(fmt, sizeof fmt, "%s%s", letters[l], orders[o]);
            fibertree ft;
            with_tensor3(fmt, &ft);
            fibertree_free(&ft);
        }
}

static void test_vectors(void **state)
{
    (void)state;
    static const entry v[] = {{{3}, 8}, {{1}, 7}};
    tensor t;
    make_tensor(&t, 1, (const int64_t[]){5}, v, 2);
    fibertree ft;
    build(&t, "s0", &ft);
    expect_level(&ft, 0, 's', 0, ARR(0, 2), ARR(1, 3));
    expect_vals(&ft, VALS(7, 8));
    fibertree_free(&ft);
    build(&t, "d0", &ft);
    expect_vals(&ft, VALS(0, 7, 0, 8, 0));
    fibertree_free(&ft);
    tensor_free(&t);
}

static void test_scalar(void **state)
{
    (void)state;
    static const entry s[] = {{{0}, 4.5}};
    tensor t;
    make_tensor(&t, 0, NULL, s, 1);
    fibertree ft;
    build(&t, "none", &ft);
    assert_int_equal(ft.order, 0);
    expect_vals(&ft, VALS(4.5));
    fibertree_free(&ft);
    tensor_free(&t);
}

static void test_empty_matrix(void **state)
{
    (void)state;
    tensor t;
    make_tensor(&t, 2, (const int64_t[]){3, 2}, NULL, 0);
    fibertree ft;
    build(&t, "ss01", &ft);
    expect_level(&ft, 0, 's', 0, ARR(0, 0), NONE);
    expect_level(&ft, 1, 's', 1, ARR(0), NONE);
    assert_int_equal(ft.nvals, 0);
    fibertree_free(&ft);
    build(&t, "ds01", &ft);
    expect_level(&ft, 1, 's', 1, ARR(0, 0, 0, 0), NONE);
    fibertree_free(&ft);
    tensor_free(&t);
}

/* An explicit zero is an entry under compressed levels, but a dense last
 * level cannot tell it from padding. */
static void test_explicit_zeros(void **state)
{
    (void)state;
    static const entry z[] = {{{0, 1}, 0.0}, {{1, 0}, 2.0}};
    tensor t, back;
    sam_error err;
    make_tensor(&t, 2, (const int64_t[]){2, 2}, z, 2);
    fibertree ft;
    build(&t, "ds01", &ft);
    expect_level(&ft, 1, 's', 1, ARR(0, 1, 2), ARR(1, 0));
    fibertree_free(&ft);
    level_format f;
    assert_int_equal(level_format_parse("sd01", &f, &err), 0);
    assert_int_equal(fibertree_build(&t, &f, &ft, &err), 0);
    assert_int_equal(fibertree_to_tensor(&ft, &back, &err), 0);
    assert_int_equal(back.nnz, 1);
    assert_true(back.vals[0] == 2.0);
    tensor_free(&back);
    fibertree_free(&ft);
    tensor_free(&t);
}

static void test_level_stats(void **state)
{
    (void)state;
    fibertree ft;
    with_matrix("ss01", &ft);
    level_stats st;
    fibertree_level_stats(&ft, 1, &st);
    assert_int_equal(st.fibers, 3);
    assert_int_equal(st.nonempty, 3);
    assert_int_equal(st.max_len, 2);
    assert_true(st.mean_len == 5.0 / 3.0);
    fibertree_free(&ft);
    with_matrix("ds01", &ft);
    fibertree_level_stats(&ft, 1, &st);
    assert_int_equal(st.fibers, 4);
    assert_int_equal(st.nonempty, 3);
    fibertree_free(&ft);
}

static void test_format_strings(void **state)
{
    (void)state;
    level_format f;
    sam_error err;
    char s[32];
    assert_int_equal(level_format_parse("ss:1,0", &f, &err), 0);
    level_format_str(&f, s, sizeof s);
    assert_string_equal(s, "ss10");
    assert_int_equal(level_format_parse("dss", &f, &err), 0);
    level_format_str(&f, s, sizeof s);
    assert_string_equal(s, "dss012");
    assert_int_equal(level_format_parse("none", &f, &err), 0);
    assert_int_equal(f.nlevels, 0);
    static const char *bad[] = {"sx01", "ss0", "ss00", "ss12", "ss:1", "ss:1,0,2", "", "01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(level_format_parse(bad[i], &f, &err), -1);
        assert_non_null(strstr(err.msg, "format"));
    }
    tensor t;
    make_tensor(&t, 2, (const int64_t[]){4, 4}, matrix_b, 5);
    fibertree ft;
    assert_int_equal(level_format_parse("sss", &f, &err), 0);
    assert_int_equal(fibertree_build(&t, &f, &ft, &err), -1);
    tensor_free(&t);
}

/* A random tensor (duplicates when dups, explicit zeros sometimes) in a
 * random format of every level kind and mode order. */
static void random_case(prng *r, int dups, tensor *t, level_format *f)
{
    sam_error err;
    int order = 1 + (int)prng_below(r, 3);
    int64_t dims[3];
    for (int m = 0; m < order; m++)
        dims[m] = 1 + (int64_t)prng_below(r, 6);
    assert_int_equal(tensor_init(t, order, dims, &err), 0);
    for (uint64_t e = 0, n = prng_below(r, 24); e < n; e++) {
        int64_t c[3];
        for (int m = 0; m < order; m++)
            c[m] = (int64_t)prng_below(r, (uint64_t)dims[m]);
        assert_int_equal(tensor_append(t, c, (double)prng_below(r, 4) - 1.5 * (e % 2), &err),
                         0);
    }
    if (!dups)
        assert_int_equal(tensor_canonicalize(t, NULL, &err), 0);
    f->nlevels = order;
    for (int k = 0; k < order; k++) {
        f->kind[k] = "dsbl"[prng_below(r, 4)];
        f->mode[k] = k;
    }
    for (int k = order - 1; k > 0; k--) {
        int j = (int)prng_below(r, (uint64_t)k + 1), m = f->mode[k];
        f->mode[k] = f->mode[j];
        f->mode[j] = m;
    }
}

/* Taking agrees with building on tensors in and out of order, with and
 * without repeated coordinates, in every level kind and mode order. */
static void test_taking_agrees_on_random_tensors(void **state)
{
    (void)state;
    prng r;
    prng_seed(&r, 30);
    for (int i = 0; i < 3000; i++) {
        tensor t;
        level_format f;
        random_case(&r, i % 2, &t, &f);
        sam_error err;
        fibertree ft;
        assert_int_equal(fibertree_build(&t, &f, &ft, &err), 0);
        expect_taking_agrees(&t, &f, &ft);
        fibertree_free(&ft);
        tensor_free(&t);
    }
}

/* build refuses t in format fmt with message; so does build_taking, which
 * leaves t its shape and no entries. */
static void expect_both_refuse(const tensor *t, const char *fmt, const char *message)
{
    sam_error err;
    level_format f;
    fibertree ft;
    tensor copy;
    assert_int_equal(level_format_parse(fmt, &f, &err), 0);
    assert_int_equal(fibertree_build(t, &f, &ft, &err), -1);
    assert_string_equal(err.msg, message);
    assert_int_equal(tensor_copy(&copy, t, &err), 0);
    assert_int_equal(fibertree_build_taking(&copy, &f, &ft, &err), -1);
    assert_string_equal(err.msg, message);
    assert_int_equal(copy.nnz, 0);
    assert_null(copy.vals);
    assert_memory_equal(copy.dims, t->dims, sizeof t->dims);
    tensor_free(&copy);
}

static void test_taking_refuses_as_building_does(void **state)
{
    (void)state;
    static const entry outside[] = {{{0, 1}, 1}, {{1, 4}, 2}};
    tensor t;
    make_tensor(&t, 2, (const int64_t[]){2, 4}, outside, 2);
    expect_both_refuse(&t, "ss01", "entry 2 has coordinate 4 in mode 1, outside 0..3");
    expect_both_refuse(&t, "sss", "a format of 3 levels for a tensor of order 2");
    tensor_free(&t);
    make_tensor(&t, 2, (const int64_t[]){4, 4}, matrix_b, 5);
    setenv(FIBERTREE_DENSE_ENV, "3", 1);
    expect_both_refuse(&t, "sd01", "dense level 1 would hold 3 x 4 positions, more than the "
                                   "limit of 3 (set " FIBERTREE_DENSE_ENV " to raise it)");
    expect_both_refuse(&t, "sb10", "bitvector level 1 would hold 4 x 1 words, more than the "
                                   "limit of 3 (set " FIBERTREE_DENSE_ENV " to raise it)");
    unsetenv(FIBERTREE_DENSE_ENV);
    tensor_free(&t);
}

static int64_t *ints(const int64_t *a, size_t n)
{
    int64_t *p = malloc(n * sizeof *p);
    assert_non_null(p);
    memcpy(p, a, n * sizeof *p);
    return p;
}

/* A 3 x 4 tree as writers hand one over: row 1 an empty fiber, row 0's
 * coordinates out of order, row 2 holding column 2 twice. */
static void writer_tree(fibertree *ft)
{
    memset(ft, 0, sizeof *ft);
    ft->order = 2;
    ft->dims[0] = 3, ft->dims[1] = 4;
    ft->lv[0] = (fiber_level){.kind = 's', .mode = 0, .dim = 3, .seg = ints(ARR(0, 3)), .nseg = 2,
                              .crd = ints(ARR(0, 1, 2)), .ncrd = 3};
    ft->lv[1] = (fiber_level){.kind = 's', .mode = 1, .dim = 4, .seg = ints(ARR(0, 2, 2, 5)),
                              .nseg = 4, .crd = ints(ARR(3, 1, 2, 0, 2)), .ncrd = 5};
    static const double v[] = {1, 2, 3, 4, 5};
    ft->vals = malloc(sizeof v);
    assert_non_null(ft->vals);
    memcpy(ft->vals, v, sizeof v);
    ft->nvals = 5;
}

static void test_tensor_of_a_writers_tree(void **state)
{
    (void)state;
    static const entry want[] = {{{0, 1}, 2}, {{0, 3}, 1}, {{2, 0}, 4}, {{2, 2}, 8}};
    tensor expect, walked, taken;
    make_tensor(&expect, 2, (const int64_t[]){3, 4}, want, 4);
    sam_error err;
    fibertree ft;
    writer_tree(&ft);
    assert_int_equal(fibertree_validate(&ft, &err), 0);
    assert_int_equal(fibertree_to_tensor(&ft, &walked, &err), 0);
    assert_int_equal(fibertree_to_tensor_taking(&ft, &taken, &err), 0);
    assert_true(tensor_equal(&walked, &expect));
    assert_true(tensor_equal(&taken, &expect));
    assert_null(ft.vals);
    tensor_free(&expect);
    tensor_free(&walked);
    tensor_free(&taken);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ss01_dcsr),
        cmocka_unit_test(test_ss10_dcsc),
        cmocka_unit_test(test_ds01_csr_keeps_empty_rows),
        cmocka_unit_test(test_ds10_csc),
        cmocka_unit_test(test_sd01_pads_stored_rows),
        cmocka_unit_test(test_sd10),
        cmocka_unit_test(test_dd01_and_dd10),
        cmocka_unit_test(test_sss012),
        cmocka_unit_test(test_sss210),
        cmocka_unit_test(test_sds012_dense_middle),
        cmocka_unit_test(test_every_mode_order_of_a_3_tensor),
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_scalar),
        cmocka_unit_test(test_empty_matrix),
        cmocka_unit_test(test_explicit_zeros),
        cmocka_unit_test(test_level_stats),
        cmocka_unit_test(test_format_strings),
        cmocka_unit_test(test_taking_agrees_on_random_tensors),
        cmocka_unit_test(test_taking_refuses_as_building_does),
        cmocka_unit_test(test_tensor_of_a_writers_tree),
    };
    return cmocka_run_group_tests_name("fibertree", tests, NULL, NULL);
}
