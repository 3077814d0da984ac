/* COO tensors: sorting by any mode order and summing duplicates, checked
 * against qsort and against SuiteSparse:GraphBLAS's matrix build. */
#include <GraphBLAS.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/shift.h"
#include "../formats/tensor.h"
#include "test_util.h"

/* A small LCG of the test's own, so that the data does not depend on
 * samsim's generators. */
static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

static void random_tensor(tensor *t, int order, const int64_t *dims, size_t n, uint64_t seed)
{
    sam_error err;
    assert_int_equal(tensor_init(t, order, dims, &err), 0);
    for (size_t e = 0; e < n; e++) {
        int64_t c[TENSOR_MAX_ORDER];
        for (int m = 0; m < order; m++)
            c[m] = (int64_t)(lcg(&seed) % (uint64_t)dims[m]);
        double v = (double)(lcg(&seed) % 7) - 2.0; /* zeros and duplicates on purpose */
        assert_int_equal(tensor_append(t, c, v, &err), 0);
    }
}

static const tensor *cmp_tensor;
static const int *cmp_order;

static int cmp_entries(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    for (int k = 0; k < cmp_tensor->order; k++) {
        int64_t cx = cmp_tensor->crd[cmp_order[k]][x], cy = cmp_tensor->crd[cmp_order[k]][y];
        if (cx != cy)
            return cx < cy ? -1 : 1;
    }
    return x < y ? -1 : x > y; /* stable */
}

static void test_sort_perm_matches_qsort(void **state)
{
    (void)state;
    static const int orders[][3] = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {1, 0, 2}};
    tensor t;
    /* Dimensions beyond one radix digit exercise multi-pass sorting. */
    random_tensor(&t, 3, (const int64_t[]){5000, 3, 70000}, 20000, 7);
    size_t *perm = malloc(t.nnz * sizeof *perm), *ref = malloc(t.nnz * sizeof *ref);
    sam_error err;
    for (size_t o = 0; o < 4; o++) {
        assert_int_equal(tensor_sort_perm(&t, orders[o], perm, &err), 0);
        for (size_t e = 0; e < t.nnz; e++)
            ref[e] = e;
        cmp_tensor = &t;
        cmp_order = orders[o];
        qsort(ref, t.nnz, sizeof *ref, cmp_entries);
        assert_memory_equal(perm, ref, t.nnz * sizeof *perm);
    }
    free(perm);
    free(ref);
    tensor_free(&t);
}

static void test_duplicates_summed_like_graphblas(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    random_tensor(&t, 2, (const int64_t[]){300, 200}, 30000, 11);
    GrB_Matrix a;
    GrB_Index *rows = malloc(t.nnz * sizeof *rows), *cols = malloc(t.nnz * sizeof *cols);
    for (size_t e = 0; e < t.nnz; e++) {
        rows[e] = (GrB_Index)t.crd[0][e];
        cols[e] = (GrB_Index)t.crd[1][e];
    }
    assert_int_equal(GrB_Matrix_new(&a, GrB_FP64, 300, 200), GrB_SUCCESS);
    assert_int_equal(GrB_Matrix_build_FP64(a, rows, cols, t.vals, t.nnz, GrB_PLUS_FP64),
                     GrB_SUCCESS);
    assert_int_equal(tensor_canonicalize(&t, NULL, &err), 0);
    GrB_Index nvals;
    GrB_Matrix_nvals(&nvals, a);
    assert_int_equal(nvals, t.nnz);
    for (size_t e = 0; e < t.nnz; e++) {
        double v;
        assert_int_equal(GrB_Matrix_extractElement_FP64(&v, a, (GrB_Index)t.crd[0][e],
                                                        (GrB_Index)t.crd[1][e]),
                         GrB_SUCCESS);
        assert_true(v == t.vals[e]);
        if (e)
            assert_true(t.crd[0][e - 1] < t.crd[0][e] ||
                        (t.crd[0][e - 1] == t.crd[0][e] && t.crd[1][e - 1] < t.crd[1][e]));
    }
    GrB_Matrix_free(&a);
    free(rows);
    free(cols);
    tensor_free(&t);
}

static void test_explicit_zero_stays_an_entry(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    assert_int_equal(tensor_init(&t, 1, (const int64_t[]){4}, &err), 0);
    assert_int_equal(tensor_append(&t, (const int64_t[]){2}, 1.5, &err), 0);
    assert_int_equal(tensor_append(&t, (const int64_t[]){2}, -1.5, &err), 0);
    assert_int_equal(tensor_append(&t, (const int64_t[]){0}, 0.0, &err), 0);
    assert_int_equal(tensor_canonicalize(&t, NULL, &err), 0);
    assert_int_equal(t.nnz, 2);
    assert_int_equal(t.crd[0][0], 0);
    assert_true(t.vals[0] == 0.0 && t.vals[1] == 0.0);
    tensor_free(&t);
}

static void test_order_limits(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    int64_t dims[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
    assert_int_equal(tensor_init(&t, 9, dims, &err), -1);
    assert_int_equal(tensor_init(&t, 2, (const int64_t[]){3, -1}, &err), -1);
    assert_non_null(strstr(err.msg, "negative"));
    random_tensor(&t, 8, dims, 500, 3);
    assert_int_equal(tensor_canonicalize(&t, NULL, &err), 0);
    assert_true(t.nnz <= 256);
    tensor_free(&t);
}

static void test_shift_moves_last_mode(void **state)
{
    (void)state;
    tensor t, s;
    sam_error err;
    assert_int_equal(tensor_init(&t, 2, (const int64_t[]){2, 3}, &err), 0);
    assert_int_equal(tensor_append(&t, (const int64_t[]){0, 2}, 5, &err), 0);
    assert_int_equal(tensor_append(&t, (const int64_t[]){1, 0}, 6, &err), 0);
    assert_int_equal(tensor_append(&t, (const int64_t[]){0, 0}, 7, &err), 0);
    assert_int_equal(tensor_canonicalize(&t, NULL, &err), 0);
    assert_int_equal(tensor_shift(&t, &s, &err), 0);
    /* (0,0)->(0,1), (0,2)->(0,0) wraps, (1,0)->(1,1); all values 2. */
    assert_int_equal(s.nnz, 3);
    const int64_t rows[] = {0, 0, 1}, cols[] = {0, 1, 1};
    for (int e = 0; e < 3; e++) {
        assert_int_equal(s.crd[0][e], rows[e]);
        assert_int_equal(s.crd[1][e], cols[e]);
        assert_true(s.vals[e] == 2.0);
    }
    tensor_free(&s);
    tensor_free(&t);
}

static int setup_graphblas(void **state)
{
    (void)state;
    return GrB_init(GrB_NONBLOCKING) == GrB_SUCCESS ? 0 : -1;
}

static int teardown_graphblas(void **state)
{
    (void)state;
    return GrB_finalize() == GrB_SUCCESS ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_perm_matches_qsort),
        cmocka_unit_test(test_duplicates_summed_like_graphblas),
        cmocka_unit_test(test_explicit_zero_stays_an_entry),
        cmocka_unit_test(test_order_limits),
        cmocka_unit_test(test_shift_moves_last_mode),
    };
    return cmocka_run_group_tests_name("tensor", tests, setup_graphblas, teardown_graphblas);
}
