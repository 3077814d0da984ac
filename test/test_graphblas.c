/* Simulated SpMSpM, SpMV and element-wise results against
 * SuiteSparse:GraphBLAS computing the same products from the same
 * operands. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/shift.h"
#include "../formats/tensor_file.h"
#include "test_grb.h"
#include "test_util.h"

/* Runs graph on B (and c when given) with --shift and returns X. */
static tensor simulate(const char *graph, const char *b, const char *c, const char *dir)
{
    char *x = test_path(dir, "X.tns");
    char bind_b[4200], bind_c[4200];
    snprintf(bind_b, sizeof bind_b, "B=%s", b);
    snprintf(bind_c, sizeof bind_c, "c=%s", c ? c : "");
    const char *argv[] = {"run", graph, "-t", bind_b, "--shift", "-o", x,
                          c ? "-t" : NULL, bind_c, NULL};
    char *se = NULL;
    if (test_run_samsim_argv(NULL, &se, argv) != 0)
        fail_msg("%s: %s", graph, se);
    free(se);
    tensor t = test_read_tensor(x);
    free(x);
    return t;
}

static void check_matrix(const char *graphs, const char *file, const char *dir)
{
    tensor b = test_read_tensor(file), c;
    sam_error err;
    assert_int_equal(tensor_shift(&b, &c, &err), 0);
    GrB_Matrix B = grb_matrix(&b), C = grb_matrix(&c), want;
    GrB_Index rows = (GrB_Index)b.dims[0], cols = (GrB_Index)b.dims[1];
    static const char *products[] = {"matmul_ikj", "matmul_ijk", "matmul_kij"};
    for (int p = 0; p < 3; p++) {
        /* The SAM convention multiplies B by shift(B) transposed. */
        char *g = test_graph_path(graphs, products[p]);
        tensor x = simulate(g, file, NULL, dir);
        GrB_Matrix_new(&want, GrB_FP64, rows, rows);
        assert_int_equal(GrB_mxm(want, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, B, C, GrB_DESC_T1),
                         GrB_SUCCESS);
        grb_expect_equal(&x, want);
        GrB_Matrix_free(&want);
        tensor_free(&x);
        free(g);
    }
    char *g = test_graph_path(graphs, "mat_elemadd");
    tensor x = simulate(g, file, NULL, dir);
    GrB_Matrix_new(&want, GrB_FP64, rows, cols);
    assert_int_equal(GrB_Matrix_eWiseAdd_BinaryOp(want, NULL, NULL, GrB_PLUS_FP64, B, C, NULL),
                     GrB_SUCCESS);
    grb_expect_equal(&x, want);
    GrB_Matrix_free(&want);
    tensor_free(&x);
    free(g);
    g = test_graph_path(graphs, "mat_elemmul");
    x = simulate(g, file, NULL, dir);
    GrB_Matrix_new(&want, GrB_FP64, rows, cols);
    assert_int_equal(GrB_Matrix_eWiseMult_BinaryOp(want, NULL, NULL, GrB_TIMES_FP64, B, C, NULL),
                     GrB_SUCCESS);
    grb_expect_equal(&x, want);
    GrB_Matrix_free(&want);
    tensor_free(&x);
    free(g);
    GrB_Matrix_free(&B);
    GrB_Matrix_free(&C);
    tensor_free(&b);
    tensor_free(&c);
}

static void check_spmv(const char *graphs, const char *file, const char *dir)
{
    tensor b = test_read_tensor(file);
    char *vec = test_path(dir, "c.tns"), shape[32];
    snprintf(shape, sizeof shape, "%lld", (long long)b.dims[1]);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", shape, "--density",
                                     "0.4", "--seed", "3", "-o", vec, NULL), 0);
    tensor c = test_read_tensor(vec);
    GrB_Matrix B = grb_matrix(&b), C = grb_matrix(&c), want;
    char *g = test_graph_path(graphs, "mat_vecmul_ij");
    tensor x = simulate(g, file, vec, dir);
    GrB_Matrix_new(&want, GrB_FP64, (GrB_Index)b.dims[0], 1);
    assert_int_equal(GrB_mxm(want, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, B, C, NULL),
                     GrB_SUCCESS);
    grb_expect_equal(&x, want);
    GrB_Matrix_free(&want);
    GrB_Matrix_free(&B);
    GrB_Matrix_free(&C);
    tensor_free(&x), tensor_free(&b), tensor_free(&c);
    free(g), free(vec);
}

static void test_against_graphblas(void **state)
{
    (void)state;
    char *graphs = test_require_shared("sam-graphs");
    char *data = test_require_shared("data/suitesparse");
    static const char *names[] = {"bcsstk01", "west0479", "lp_scsd1", "Tina_AskCal", "arc130"};
    char *dir = test_tmpdir();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char file[64];
        snprintf(file, sizeof file, "%s.mtx", names[i]);
        char *m = test_path(data, file);
        check_matrix(graphs, m, dir);
        check_spmv(graphs, m, dir);
        free(m);
    }
    test_tmpdir_remove(dir);
    free(graphs), free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_graphblas),
    };
    return cmocka_run_group_tests_name("graphblas", tests, grb_setup, grb_teardown);
}
