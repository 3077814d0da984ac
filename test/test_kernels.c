/* Every reference graph of ../shared/sam-graphs runs with --check and
 * passes: matrix kernels on SuiteSparse matrices (operands derived by the
 * SAM convention, vectors generated), vector and 3-tensor kernels on
 * generated data, the reference-formatted bcsstm02 folders through
 * --data. Each run is made with every engine, which must agree on cycles,
 * token moves and the result file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/tensor_file.h"
#include "test_util.h"

#define MAX_ARGS 24

typedef struct kernel {
    char *graph, *expr;
    char *operands;         /* NAME=SPEC ... : M matrix, S --shift, v0/v1 a vector as long
                               as the matrix's rows/columns, m1 a square matrix as wide as
                               its columns, or a number (a scalar) */
    int square_only;
} kernel;

/* The matrix kernels of test/data/matrix_kernels.tsv, which
 * benchmarks/reference_sweep reads too; returns how many. */
static size_t load_kernels(kernel *k, size_t max)
{
    FILE *f = fopen("test/data/matrix_kernels.tsv", "r");
    assert_non_null(f);
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *save = NULL, *field[4];
        int nf = 0;
        for (char *w = strtok_r(line, "\t", &save); w && nf < 4; w = strtok_r(NULL, "\t", &save))
            field[nf++] = w;
        assert_int_equal(nf, 4);
        assert_true(n < max);
        k[n++] = (kernel){strdup(field[0]), strdup(field[1]), strdup(field[2]),
                          !strcmp(field[3], "square")};
    }
    fclose(f);
    return n;
}

static void free_kernels(kernel *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i].graph), free(k[i].expr), free(k[i].operands);
}

static const char *const matrices[] = {"bcsstm02", "bcsstk01", "west0479", "Tina_AskCal",
                                       "GD97_b", "lp_scsd1", "ash219"};

/* Generates operand spec (v0, v1: a vector as long as the matrix's rows or
 * columns; m1: a square matrix as wide as its columns) into dir/name.tns
 * and returns the path. */
static char *gen_operand(const char *dir, const char *name, const char *spec,
                         const int64_t *dims, int seed)
{
    char file[64], shape[48], seeds[16];
    long long n = (long long)dims[spec[1] - '0'];
    snprintf(file, sizeof file, "%s.tns", name);
    if (spec[0] == 'm')
        snprintf(shape, sizeof shape, "%lldx%lld", n, n);
    else
        snprintf(shape, sizeof shape, "%lld", n);
    snprintf(seeds, sizeof seeds, "%d", seed);
    char *path = test_path(dir, file);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", shape, "--density",
                                     spec[0] == 'm' ? "0.05" : "0.3", "--seed", seeds, "-o",
                                     path, NULL), 0);
    return path;
}

/* Builds the run's arguments for kernel k on matrix file m of dims. */
static void run_matrix_kernel(const kernel *k, const char *graphs, const char *m,
                              const int64_t *dims, const char *dir, const char *label)
{
    const char *argv[MAX_ARGS + 1];
    char *owned[MAX_ARGS];
    int n = 0, nowned = 0, seed = 1;
    argv[n++] = "run";
    argv[n++] = owned[nowned++] = test_graph_path(graphs, k->graph);
    argv[n++] = "--expr";
    argv[n++] = k->expr;
    char *spec = strdup(k->operands), *save = NULL;
    for (char *op = strtok_r(spec, " ", &save); op; op = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(op, '='), *bind = malloc(4200);
        *eq = '\0';
        const char *what = eq + 1;
        if (!strcmp(what, "S")) {
            free(bind);
            argv[n++] = "--shift";
            continue;
        }
        char *vec = NULL;
        if (what[0] == 'v' || what[0] == 'm')
            vec = gen_operand(dir, op, what, dims, seed++);
        snprintf(bind, 4200, "%s=%s", op, !strcmp(what, "M") ? m : vec ? vec : what);
        free(vec);
        argv[n++] = "-t";
        argv[n++] = owned[nowned++] = bind;
    }
    argv[n] = NULL;
    test_run_engines(label, dir, argv);
    for (int i = 0; i < nowned; i++)
        free(owned[i]);
    free(spec);
}

static void test_matrix_kernels_on_suitesparse(void **state)
{
    (void)state;
    char *graphs = test_require_shared("sam-graphs");
    char *data = test_require_shared("data/suitesparse");
    char *dir = test_tmpdir();
    kernel matrix_kernels[64];
    size_t nkernels = load_kernels(matrix_kernels, 64);
    int runs = 0;
    for (size_t mi = 0; mi < sizeof matrices / sizeof matrices[0]; mi++) {
        char file[64];
        snprintf(file, sizeof file, "%s.mtx", matrices[mi]);
        char *m = test_path(data, file);
        tensor t;
        sam_error err;
        tensor_file f = {.path = m};
        assert_int_equal(tensor_file_read(&f, &t, &err), 0);
        for (size_t ki = 0; ki < nkernels; ki++) {
            const kernel *k = &matrix_kernels[ki];
            if (k->square_only && t.dims[0] != t.dims[1])
                continue;
            char label[256];
            snprintf(label, sizeof label, "%s (%s) on %s", k->graph, k->operands, matrices[mi]);
            run_matrix_kernel(k, graphs, m, t.dims, dir, label);
            runs++;
        }
        tensor_free(&t);
        free(m);
    }
    printf("note: %d kernel runs on SuiteSparse matrices, each under every engine\n", runs);
    free_kernels(matrix_kernels, nkernels);
    test_tmpdir_remove(dir);
    free(graphs);
    free(data);
}

/* Vector and 3-tensor kernels on generated operands. */
typedef struct generated {
    const char *graph, *expr;
    const char *operands;   /* NAME:SHAPE ... or NAME=NUMBER */
} generated;

static const generated generated_kernels[] = {
    {"vec_identity", "x(i)=b(i)", "b:200"},
    {"vec_elemmul", "x(i)=b(i)*c(i)", "b:200 c:200"},
    {"vec_elemadd", "x(i)=b(i)+c(i)", "b:200 c:200"},
    {"vec_sub", "x(i)=b(i)-c(i)", "b:200 c:200"},
    {"vec_scalar_mul", "x(i)=b*c(i)", "b=2.5 c:200"},
    {"vec_sd_compression", "x(i)=b(i)", "b:200"},
    {"vec_sd_compression_HAND", "x(i)=b(i)", "b:200"},
    {"vec_ds_compression", "x(i)=b(i)", "b:200"},
    {"vec_ds_compression_HAND", "x(i)=b(i)", "b:200"},
    {"vec_sd_compression_WRONG", "x(i)=b(i)", "b:200"},
    {"vec_ds_compression_WRONG", "x(i)=b(i)", "b:200"},
    {"tensor3_identity", "X(i,j,k)=B(i,j,k)", "B:12x10x9"},
    {"tensor3_identity_dense", "X(i,j,k)=B(i,j,k)", "B:12x10x9"},
    {"tensor3_elemmul", "X(i,j,k)=B(i,j,k)*C(i,j,k)", "B:12x10x9 C:12x10x9"},
    {"tensor3_elemadd", "X(i,j,k)=B(i,j,k)+C(i,j,k)", "B:12x10x9 C:12x10x9"},
    {"tensor3_innerprod", "x=B(i,j,k)*C(i,j,k)", "B:12x10x9 C:12x10x9"},
    {"tensor3_ttv", "X(i,j)=B(i,j,k)*c(k)", "B:12x10x9 c:9"},
    {"tensor3_ttm", "X(i,j,k)=B(i,j,l)*C(k,l)", "B:12x10x9 C:11x9"},
    {"tensor3_mttkrp", "X(i,j)=B(i,k,l)*C(j,k)*D(j,l)", "B:12x10x9 C:11x10 D:11x9"},
    {"mat_spacc_simple", "X(j,k)=B(i,j,k)", "B:12x10x9"},
    {"tensor3_website_expr", "x=B(i)*C(j)*D(i,j,k)*E(j,l)*F(l,m,n)",
     "B:12 C:10 D:12x10x9 E:10x8 F:8x7x6"},
};

static void run_generated(const generated *g, const char *graphs, const char *dir, int seed)
{
    const char *argv[MAX_ARGS + 1];
    char *owned[MAX_ARGS];
    int n = 0, nowned = 0;
    argv[n++] = "run";
    argv[n++] = owned[nowned++] = test_graph_path(graphs, g->graph);
    argv[n++] = "--expr";
    argv[n++] = g->expr;
    char *spec = strdup(g->operands), *save = NULL;
    for (char *op = strtok_r(spec, " ", &save); op; op = strtok_r(NULL, " ", &save)) {
        char *bind = malloc(4200), *colon = strchr(op, ':');
        if (colon) {
            *colon = '\0';
            char file[64], seeds[16];
            snprintf(file, sizeof file, "%s.tns", op);
            snprintf(seeds, sizeof seeds, "%d", seed++);
            char *path = test_path(dir, file);
            assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", colon + 1,
                                             "--density", "0.3", "--seed", seeds, "-o", path,
                                             NULL), 0);
            snprintf(bind, 4200, "%s=%s", op, path);
            free(path);
        } else {
            snprintf(bind, 4200, "%s", op);
        }
        argv[n++] = "-t";
        argv[n++] = owned[nowned++] = bind;
    }
    argv[n] = NULL;
    test_run_engines(g->graph, dir, argv);
    for (int i = 0; i < nowned; i++)
        free(owned[i]);
    free(spec);
}

static void test_generated_kernels(void **state)
{
    (void)state;
    char *graphs = test_require_shared("sam-graphs");
    char *dir = test_tmpdir();
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof generated_kernels / sizeof generated_kernels[0]; i++)
            run_generated(&generated_kernels[i], graphs, dir, 100 * round + (int)i * 7 + 1);
    test_tmpdir_remove(dir);
    free(graphs);
}

/* The reference-formatted bcsstm02 folders of the matrix kernels, bound
 * with --data. The vector kernels' folders cannot be checked: the SAM
 * scripts wrote their vectors from empty .tns files as vectors of length
 * 1 (SAM-BLOCKS.md 4.3), which no evaluation of B(i,j)*c(j) accepts. */
static void test_reference_folders(void **state)
{
    (void)state;
    static const struct {
        const char *folder, *graph, *expr;
    } runs[] = {
        {"mat_elemadd", "mat_elemadd", "X(i,j)=B(i,j)+C(i,j)"},
        {"mat_elemmul", "mat_elemmul", "X(i,j)=B(i,j)*C(i,j)"},
        {"mat_elemadd3", "mat_elemadd3", "X(i,j)=B(i,j)+C(i,j)+D(i,j)"},
        {"matmul_ikj", "matmul_ikj", "X(i,j)=B(i,k)*C(k,j)"},
        {"matmul_ijk", "matmul_ijk", "X(i,j)=B(i,k)*C(k,j)"},
        {"matmul_kij", "matmul_kij", "X(i,j)=B(i,k)*C(k,j)"},
    };
    char *graphs = test_require_shared("sam-graphs");
    char *root = test_require_shared("data/sam-formatted/bcsstm02");
    char *dir = test_tmpdir();
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char *folder = test_path(root, runs[i].folder);
        char *graph = test_graph_path(graphs, runs[i].graph);
        const char *argv[] = {"run", graph, "--data", folder, "--expr", runs[i].expr, NULL};
        test_run_engines(runs[i].graph, dir, argv);
        free(folder), free(graph);
    }
    test_tmpdir_remove(dir);
    free(graphs), free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_kernels_on_suitesparse),
        cmocka_unit_test(test_generated_kernels),
        cmocka_unit_test(test_reference_folders),
    };
    return cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
}
