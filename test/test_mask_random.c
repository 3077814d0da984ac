/* Masked products X(i,j) = B(i,j) * C(i,k) * D(k,j) (the SAM mask and
 * SDDMM kernels) and their sum, on many small random operands: densities
 * from 2% to 30%, rows and columns emptied on purpose, whole operands
 * empty, results that are empty or nearly so. Each kernel is compiled in
 * several formats and loop orders (and the reference graphs are run too
 * when ../shared is there), simulated under every engine with --check
 * (samsim's evaluator), and its result compared with GraphBLAS computing
 * B .* (C * D). Values are small integers, so every sum is exact. The
 * 12x12 operands of issue 16, which made the result hold more values than
 * positions, come first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_grb.h"
#include "test_util.h"

#define ROUNDS 48
#define MAX_DIM 12

typedef struct variant {
    const char *name, *expr;
    const char *args[6];        /* compile arguments, NULL-terminated */
    int d_jk;                   /* D is D(j,k) rather than D(k,j) */
    int scalar;                 /* x = the sum of B .* (C * D) */
} variant;

static const variant variants[] = {
    {"mask", "X(i,j)=B(i,j)*C(i,k)*D(k,j)",
     {"-f=X:ss", "-f=B:ss", "-f=C:ss", "-f=D:ss:1,0", "-s=reorder(i,j,k)"}, 0, 0},
    {"mask_sum", "x=B(i,j)*C(i,k)*D(k,j)",
     {"-f=B:ss", "-f=C:ss", "-f=D:ss:1,0", "-s=reorder(i,j,k)"}, 0, 1},
    {"sddmm_dense", "X(i,j)=B(i,j)*C(i,k)*D(k,j)",
     {"-f=X:ss", "-f=B:ss", "-f=C:dd", "-f=D:dd:1,0", "-s=reorder(i,j,k)"}, 0, 0},
    {"sddmm_dense_rows", "X(i,j)=B(i,j)*C(i,k)*D(k,j)",
     {"-f=X:ss", "-f=B:ss", "-f=C:ds", "-f=D:ds:1,0", "-s=reorder(i,j,k)"}, 0, 0},
    {"mask_dense_output_rows", "X(i,j)=B(i,j)*C(i,k)*D(k,j)",
     {"-f=X:ds", "-f=B:ds", "-f=C:ss", "-f=D:ss:1,0", "-s=reorder(i,j,k)"}, 0, 0},
    {"mask_jik", "X(i,j)=B(i,j)*C(i,k)*D(k,j)",
     {"-f=X:ss:1,0", "-f=B:ss:1,0", "-f=C:ss", "-f=D:ss:1,0", "-s=reorder(j,i,k)"}, 0, 0},
    {"mask_ikj", "X(i,j)=B(i,j)*C(i,k)*D(k,j)",
     {"-f=X:ss", "-f=B:ss", "-f=C:ss", "-f=D:ss", "-s=reorder(i,k,j)"}, 0, 0},
    {"mask_kij", "X(i,j)=B(i,j)*C(i,k)*D(k,j)",
     {"-f=X:ss", "-f=B:ss", "-f=C:ss:1,0", "-f=D:ss", "-s=reorder(k,i,j)"}, 0, 0},
    {"sddmm_djk", "X(i,j)=B(i,j)*C(i,k)*D(j,k)",
     {"-f=X:ss", "-f=B:ss", "-f=C:ss", "-f=D:ss", "-s=reorder(i,j,k)"}, 1, 0},
};

/* The reference graphs of the same products, with the operands above. */
static const struct {
    const char *graph, *expr;
    int scalar;
} reference_graphs[] = {
    {"mat_mask_tri_partial", "X(i,j)=B(i,j)*C(i,k)*D(k,j)", 0},
    {"mat_mask_tri", "x=B(i,j)*C(i,k)*D(k,j)", 1},
    {"mat_mask_tri_fiberwrite", "x=B(i,j)*C(i,k)*D(k,j)", 1},
    {"mat_sddmm", "X(i,j)=B(i,j)*C(i,k)*D(k,j)", 0},
};

typedef struct operands {
    char *path[3];              /* B, C, D */
    int d_jk;
} operands;

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Writes a rows x cols Matrix Market file to dir/name: each entry present
 * with probability density, except in row empty_row and column empty_col
 * (-1: none); values nonzero integers in [-4, 5]. */
static char *write_random(const char *dir, const char *name, int rows, int cols, double density,
                          int empty_row, int empty_col, uint64_t *seed)
{
    char *text = malloc(64 + (size_t)rows * (size_t)cols * 24);
    size_t n = 0, len = 0;
    char *body = malloc((size_t)rows * (size_t)cols * 24 + 1);
    body[0] = '\0';
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            int keep = (double)(next(seed) % 10000) < density * 10000.0;
            if (!keep || i == empty_row || j == empty_col)
                continue;
            int v = (int)(next(seed) % 9) - 4;
            len += (size_t)sprintf(body + len, "%d %d %d\n", i + 1, j + 1, v ? v : 5);
            n++;
        }
    sprintf(text, "%%%%MatrixMarket matrix coordinate real general\n%d %d %zu\n%s", rows, cols,
            n, body);
    char *path = test_write_file(dir, name, text);
    free(text), free(body);
    return path;
}

/* Writes a Matrix Market file of the given 1-based entries (value 1..n). */
static char *write_entries(const char *dir, const char *name, int dim, const int *rc, int n)
{
    char text[1024];
    int len = sprintf(text, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", dim,
                      dim, n);
    for (int e = 0; e < n; e++)
        len += sprintf(text + len, "%d %d %d\n", rc[2 * e], rc[2 * e + 1], e + 1);
    return test_write_file(dir, name, text);
}

/* X = B .* (C * D), or C * D' when D is D(j,k). */
static GrB_Matrix masked_product(const operands *o)
{
    tensor t[3];
    GrB_Matrix m[3];
    for (int k = 0; k < 3; k++) {
        t[k] = test_read_tensor(o->path[k]);
        m[k] = grb_matrix(&t[k]);
    }
    GrB_Index rows, cols;
    GrB_Matrix_nrows(&rows, m[0]);
    GrB_Matrix_ncols(&cols, m[0]);
    GrB_Matrix cd, x;
    GrB_Matrix_new(&cd, GrB_FP64, rows, cols);
    GrB_Matrix_new(&x, GrB_FP64, rows, cols);
    assert_int_equal(GrB_mxm(cd, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, m[1], m[2],
                             o->d_jk ? GrB_DESC_T1 : NULL), GrB_SUCCESS);
    assert_int_equal(GrB_Matrix_eWiseMult_BinaryOp(x, NULL, NULL, GrB_TIMES_FP64, m[0], cd, NULL),
                     GrB_SUCCESS);
    GrB_Matrix_free(&cd);
    for (int k = 0; k < 3; k++) {
        GrB_Matrix_free(&m[k]);
        tensor_free(&t[k]);
    }
    return x;
}

/* Runs graph on every engine with --check, then compares its result (the
 * first engine's X_0.tns in dir) with GraphBLAS. */
static void check_graph(const char *label, const char *graph, const char *expr, int scalar,
                        const operands *o, const char *dir)
{
    char bind[3][4200];
    static const char names[] = "BCD";
    for (int k = 0; k < 3; k++)
        snprintf(bind[k], sizeof bind[k], "%c=%s", names[k], o->path[k]);
    const char *argv[] = {"run", graph, "--expr", expr, "-t", bind[0], "-t", bind[1],
                          "-t", bind[2], NULL};
    test_run_engines(label, dir, argv);
    char *xpath = test_path(dir, "X_0.tns");
    tensor x = test_read_tensor(xpath);
    GrB_Matrix want = masked_product(o);
    if (scalar) {
        double sum = 0, got = x.nnz ? x.vals[0] : 0;
        assert_int_equal(GrB_Matrix_reduce_FP64(&sum, NULL, GrB_PLUS_MONOID_FP64, want, NULL),
                         GrB_SUCCESS);
        if (got != sum)
            fail_msg("%s: simulated sum %.17g, GraphBLAS %.17g", label, got, sum);
    } else {
        grb_expect_equal(&x, want);
    }
    GrB_Matrix_free(&want);
    tensor_free(&x);
    free(xpath);
}

static void check_all(const char *round, const operands *o, char *const *compiled,
                      const char *graphs, const char *dir)
{
    char label[160];
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        if (variants[v].d_jk != o->d_jk)
            continue;
        snprintf(label, sizeof label, "%s, %s", round, variants[v].name);
        check_graph(label, compiled[v], variants[v].expr, variants[v].scalar, o, dir);
    }
    if (!graphs || o->d_jk)
        return;
    for (size_t g = 0; g < sizeof reference_graphs / sizeof *reference_graphs; g++) {
        char *path = test_graph_path(graphs, reference_graphs[g].graph);
        snprintf(label, sizeof label, "%s, %s", round, reference_graphs[g].graph);
        check_graph(label, path, reference_graphs[g].expr, reference_graphs[g].scalar, o, dir);
        free(path);
    }
}

static char **compile_variants(const char *dir)
{
    size_t n = sizeof variants / sizeof *variants;
    char **paths = calloc(n, sizeof *paths);
    for (size_t v = 0; v < n; v++) {
        char file[64];
        snprintf(file, sizeof file, "%s.gv", variants[v].name);
        paths[v] = test_path(dir, file);
        const char *argv[12] = {"compile", variants[v].expr};
        int a = 2;
        for (int k = 0; variants[v].args[k]; k++)
            argv[a++] = variants[v].args[k];
        argv[a++] = "-o";
        argv[a++] = paths[v];
        argv[a] = NULL;
        char *se = NULL;
        if (test_run_samsim_argv(NULL, &se, argv))
            fail_msg("compile %s: %s", variants[v].name, se);
        free(se);
    }
    return paths;
}

static void free_operands(operands *o)
{
    for (int k = 0; k < 3; k++)
        free(o->path[k]);
}

/* Issue 16's reproducer: "2 values for 1 positions" before the fix. */
static void check_reproducer(char *const *compiled, const char *graphs, const char *dir)
{
    static const int b[] = {1, 11, 2, 9, 5, 9, 7, 3, 7, 11, 9, 5, 9, 6};
    static const int c[] = {1, 4, 4, 11, 7, 8, 10, 6, 10, 7, 11, 6, 12, 8};
    static const int d[] = {3, 8, 3, 10, 6, 10, 8, 6, 9, 3, 10, 1, 10, 10};
    operands o = {{write_entries(dir, "B.mtx", 12, b, 7), write_entries(dir, "C.mtx", 12, c, 7),
                   write_entries(dir, "D.mtx", 12, d, 7)}, 0};
    check_all("issue 16's 12x12 operands", &o, compiled, graphs, dir);
    free_operands(&o);
}

static void test_masked_products(void **state)
{
    (void)state;
    static const double densities[] = {0.02, 0.05, 0.1, 0.2, 0.3};
    const char *shared = test_shared_dir();
    char *graphs = shared ? test_path(shared, "sam-graphs") : NULL;
    if (!graphs)
        printf("note: ../shared is absent: compiled kernels only, no reference graphs\n");
    char *dir = test_tmpdir();
    char **compiled = compile_variants(dir);
    check_reproducer(compiled, graphs, dir);
    uint64_t seed = 16;
    for (int r = 0; r < ROUNDS; r++) {
        int rows = 1 + (int)(next(&seed) % MAX_DIM), cols = 1 + (int)(next(&seed) % MAX_DIM);
        int inner = 1 + (int)(next(&seed) % MAX_DIM);
        /* The reference graphs bind D(k,j) with the SAM operand shapes,
         * which agree only on square matrices; odd rounds are square. */
        if (r % 2)
            cols = inner = rows;
        int d_jk = r % 5 == 4, empty = r % 7 == 3 ? (int)(next(&seed) % 3) : -1;
        int dims[3][2] = {{rows, cols}, {rows, inner}, {d_jk ? cols : inner, d_jk ? inner : cols}};
        operands o = {.d_jk = d_jk};
        static const char *files[] = {"B.mtx", "C.mtx", "D.mtx"};
        for (int k = 0; k < 3; k++) {
            double density = k == empty ? 0 : densities[next(&seed) % 5];
            int er = (int)(next(&seed) % (uint64_t)(dims[k][0] + 1)) - 1;
            int ec = (int)(next(&seed) % (uint64_t)(dims[k][1] + 1)) - 1;
            o.path[k] = write_random(dir, files[k], dims[k][0], dims[k][1], density, er, ec, &seed);
        }
        char round[64];
        snprintf(round, sizeof round, "round %d (%dx%d, k %d)", r, rows, cols, inner);
        check_all(round, &o, compiled, rows == cols && cols == inner ? graphs : NULL, dir);
        free_operands(&o);
    }
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++)
        free(compiled[v]);
    free(compiled);
    test_tmpdir_remove(dir);
    free(graphs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_masked_products),
    };
    return cmocka_run_group_tests_name("masked products", tests, grb_setup, grb_teardown);
}
