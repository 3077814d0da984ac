/* samsim compile: every kernel of Custard's list compiles to a graph with
 * the reference graph's blocks, runs with --check (the expression comes
 * from the graph) under every engine, and where the reference graph is
 * right takes exactly its cycles and token moves; more expressions beyond
 * the list on generated data; bad input refused with one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../custard/compile.h"
#include "../formats/tensor_file.h"
#include "../graph/graph.h"
#include "test_util.h"

typedef struct kernel {
    const char *name;     /* as in kernels.tsv */
    const char *args;     /* Custard's arguments, separated by spaces */
    const char *operands; /* NAME=M (the matrix), NAME=S (--shift), NAME=v0|v1 (a vector as
                             long as the matrix's rows|columns), NAME=NUMBER, NAME:SHAPE */
} kernel;

/* The kernels of ../shared/sam-graphs/kernels.tsv, with data to run on. */
static const kernel kernels[] = {
    {"matmul_kij", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)", "B=M C=S"},
    {"matmul_kji", "X(i,j)=B(i,k)*C(k,j) -f=X:ss:1,0 -f=B:ss:1,0 -f=C:ss -s=reorder(k,j,i)",
     "B=M C=S"},
    {"matmul_ikj", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)", "B=M C=S"},
    {"matmul_jki", "X(i,j)=B(i,k)*C(k,j) -f=X:ss:1,0 -f=B:ss:1,0 -f=C:ss:1,0 -s=reorder(j,k,i)",
     "B=M C=S"},
    {"matmul_ijk", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss:1,0 -s=reorder(i,j,k)", "B=M C=S"},
    {"matmul_jik", "X(i,j)=B(i,k)*C(k,j) -f=X:ss:1,0 -f=B:ss -f=C:ss:1,0 -s=reorder(j,i,k)",
     "B=M C=S"},
    {"mat_elemmul", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss", "B=M C=S"},
    {"mat_elemadd", "X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ss -f=C:ss", "B=M C=S"},
    {"mat_identity", "X(i,j)=B(i,j) -f=X:ss -f=B:ss", "B=M"},
    {"mat_identity_dense", "X(i,j)=B(i,j) -f=X:dd -f=B:dd", "B=M"},
    {"mat_vecmul_ij", "x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:s", "B=M c=v1"},
    {"mat_vecmul_ji", "x(i)=B(i,j)*c(j) -f=x:s -f=B:ss:1,0 -f=c:s -s=reorder(j,i)", "B=M c=v1"},
    {"vec_elemmul", "x(i)=b(i)*c(i) -f=x:s -f=b:s -f=c:s", "b:200 c:200"},
    {"vec_identity", "x(i)=b(i) -f=x:s -f=b:s", "b:200"},
    {"vec_elemadd", "x(i)=b(i)+c(i) -f=x:s -f=b:s -f=c:s", "b:200 c:200"},
    {"vec_scalar_mul", "x(i)=b*c(i) -f=x:s -f=c:s", "b=2.5 c:200"},
    {"tensor3_elemmul", "X(i,j,k)=B(i,j,k)*C(i,j,k) -f=X:sss -f=B:sss -f=C:sss",
     "B:12x10x9 C:12x10x9"},
    {"tensor3_identity", "X(i,j,k)=B(i,j,k) -f=X:sss -f=B:sss", "B:12x10x9"},
    {"tensor3_identity_dense", "X(i,j,k)=B(i,j,k) -f=X:ddd -f=B:ddd", "B:12x10x9"},
    {"tensor3_elemadd", "X(i,j,k)=B(i,j,k)+C(i,j,k) -f=X:sss -f=B:sss -f=C:sss",
     "B:12x10x9 C:12x10x9"},
    {"tensor3_innerprod", "x=B(i,j,k)*C(i,j,k) -f=B:sss -f=C:sss", "B:12x10x9 C:12x10x9"},
    {"tensor3_ttv", "X(i,j)=B(i,j,k)*c(k) -f=X:ss -f=B:sss -f=c:s", "B:12x10x9 c:9"},
    {"tensor3_ttm", "X(i,j,k)=B(i,j,l)*C(k,l) -f=X:sss -f=B:sss -f=C:ss", "B:12x10x9 C:11x9"},
    {"mat_sddmm",
     "X(i,j)=B(i,j)*C(i,k)*D(k,j) -f=X:ss -f=B:ss -f=C:dd -f=D:dd:1,0 -s=reorder(i,j,k)",
     "B=M C=S D=S"},
    {"mat_mattransmul", "x(i)=b*C(j,i)*d(j)+e*f(i) -f=x:s -f=C:ss:1,0 -f=d:s -f=f:s",
     "b=2.5 C=M d=v0 e=-1.5 f=v1"},
    {"mat_residual", "x(i)=b(i)-C(i,j)*d(j) -f=x:s -f=C:ss -f=b:s -f=d:s", "C=M b=v0 d=v1"},
    {"mat_elemadd3", "X(i,j)=B(i,j)+C(i,j)+D(i,j) -f=X:ss -f=B:ss -f=C:ss -f=D:ss",
     "B=M C=S D=S"},
    {"tensor3_mttkrp", "X(i,j)=B(i,k,l)*C(j,k)*D(j,l) -f=X:ss -f=B:sss -f=C:ss -f=D:ss",
     "B:12x10x9 C:11x10 D:11x9"},
    {"vec_spacc_simple", "x(j)=B(i,j) -f=x:s -f=B:ss", "B=M"},
    {"mat_spacc_simple", "X(j,k)=B(i,j,k) -f=X:ss -f=B:sss", "B:12x10x9"},
    {"vec_sd_compression_WRONG", "x(i)=b(i) -f=b:s -f=x:d", "b:200"},
    {"vec_ds_compression_WRONG", "x(i)=b(i) -f=b:d -f=x:s", "b:200"},
    {"vec_sub", "x(i)=b(i)-c(i) -f=b:s -f=c:s", "b:200 c:200"},
    {"mat_mask_tri", "x=B(i,j)*C(i,k)*D(k,j) -f=B:ss -f=C:ss -f=D:ss:1,0 -s=reorder(i,j,k)",
     "B=M C=S D=S"},
    {"mat_mask_tri_partial",
     "X(i,j)=B(i,j)*C(i,k)*D(k,j) -f=X:ss -f=B:ss -f=C:ss -f=D:ss:1,0 -s=reorder(i,j,k)",
     "B=M C=S D=S"},
    {"mat_vecmul_iter",
     "x(i)=B(i,j)*C(j,k)*D(k,l)*E(l,m)*f(m) -f=x:s -f=B:ss -f=C:ss -f=D:ss -f=E:ss -f=f:s "
     "-s=reorder(i,j,k,l,m)",
     "B=M C=S D=S E=S f=v1"},
    {"mat_vecmul_iter_short",
     "x(i)=B(i,j)*C(j,k)*d(k) -f=x:s -f=B:ss -f=C:ss -f=d:s -s=reorder(i,j,k)", "B=M C=S d=v1"},
    {"tensor3_website_expr",
     "x=B(i)*C(j)*D(i,j,k)*E(j,l)*F(l,m,n) -f=B:s -f=C:s -f=D:sss -f=E:ss -f=F:sss "
     "-s=reorder(i,j,k,l,m,n)",
     "B:12 C:10 D:12x10x9 E:10x8 F:8x7x6"},
};
#define NKERNELS (sizeof kernels / sizeof kernels[0])

/* Where samsim's graph deliberately differs from the reference's, the
 * reference graph it is compared with instead, and why. */
static const struct {
    const char *kernel, *graph;
} corrected[] = {
    /* The reference drops x's coordinate i when C has no column j there,
     * losing e*f(i); the hand-corrected graph has no crddrop. */
    {"mat_mattransmul", "mat_mattransmul_HAND"},
    /* Likewise: b(i) is lost where row i of C is empty. */
    {"mat_residual", "mat_residual_HAND"},
    /* A sparse vector written densely needs the crdhold of the corrected
     * graph; the reference wrote it straight (hence _WRONG). */
    {"vec_sd_compression_WRONG", "vec_sd_compression"},
    /* A dense vector written sparsely must drop its zeros (crddrop). */
    {"vec_ds_compression_WRONG", "vec_ds_compression"},
};

/* Kernels that multiply the matrix with its shift as square matrices. */
static int square_only(const kernel *k)
{
    static const char *const names[] = {"mat_sddmm", "mat_mask_tri", "mat_mask_tri_partial",
                                        "mat_vecmul_iter", "mat_vecmul_iter_short"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(names[i], k->name))
            return 1;
    return 0;
}

static const char *reference_graph(const char *kernel)
{
    for (size_t i = 0; i < sizeof corrected / sizeof corrected[0]; i++)
        if (!strcmp(corrected[i].kernel, kernel))
            return corrected[i].graph;
    return kernel;
}

static int compile_in_process(const char *args, sam_graph *g, sam_error *err)
{
    const char *argv[TEST_MAX_ARGS + 1];
    char *buf;
    int n = test_split_args(args, &buf, argv, 0), nf = 0;
    const char *formats[TEST_MAX_ARGS];
    compile_args a = {.expression = argv[0], .formats = formats};
    for (int k = 1; k < n; k++) {
        if (!strncmp(argv[k], "-f=", 3))
            formats[nf++] = argv[k] + 3;
        else if (!strncmp(argv[k], "-s=", 3))
            a.schedule = argv[k] + 3;
    }
    a.nformats = nf;
    int rc = custard_compile(&a, g, err);
    free(buf);
    return rc;
}

/* ---- block counts --------------------------------------------------- */

static int type_count(const sam_graph *g, const char *type)
{
    int n = 0;
    for (int i = 0; i < g->nnodes; i++)
        n += !strcmp(g->nodes[i].type, type);
    return n;
}

/* Same number of nodes of every type in both graphs. */
static void assert_same_blocks(const char *kernel, const sam_graph *mine, const sam_graph *ref)
{
    const sam_graph *both[2] = {mine, ref};
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < both[s]->nnodes; i++) {
            const char *type = both[s]->nodes[i].type;
            int a = type_count(mine, type), b = type_count(ref, type);
            if (a != b)
                fail_msg("%s: %d %s blocks, the reference graph has %d", kernel, a, type, b);
        }
}

/* Every line of kernels.tsv compiles, to the reference graph's blocks. */
static void test_kernels_tsv_blocks(void **state)
{
    (void)state;
    char *graphs = test_require_shared("sam-graphs");
    char *tsv_path = test_path(graphs, "kernels.tsv");
    char *tsv = test_read_file(tsv_path);
    assert_non_null(tsv);
    int lines = 0;
    char *save = NULL;
    for (char *line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *tab = strchr(line, '\t');
        if (!tab || !strncmp(line, "kernel\t", 7))
            continue;
        *tab = '\0';
        sam_graph mine, ref;
        sam_error err;
        if (compile_in_process(tab + 1, &mine, &err))
            fail_msg("%s: %s", line, err.msg);
        char *path = test_graph_path(graphs, reference_graph(line));
        if (graph_read_dot(path, &ref, &err))
            fail_msg("%s", err.msg);
        assert_same_blocks(line, &mine, &ref);
        graph_free(&mine), graph_free(&ref), free(path);
        lines++;
    }
    assert_int_equal(lines, (int)NKERNELS);
    free(tsv), free(tsv_path), free(graphs);
}

/* The graph records its arguments; compiling them again gives the same
 * graph, file for file. */
static void test_recorded_arguments_recompile(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    for (size_t k = 0; k < NKERNELS; k++) {
        char *first = test_compile_to(dir, "first", kernels[k].args);
        sam_graph g;
        sam_error err;
        assert_int_equal(graph_read_dot(first, &g, &err), 0);
        char args[1024];
        snprintf(args, sizeof args, "%s", graph_attr_get(&g, "expr"));
        const char *formats = graph_attr_get(&g, "formats");
        for (const char *f = formats; f && *f;) {
            size_t len = strcspn(f, " ");
            snprintf(args + strlen(args), sizeof args - strlen(args), " -f=%.*s", (int)len, f);
            f += len + (f[len] == ' ');
        }
        snprintf(args + strlen(args), sizeof args - strlen(args), " -s=%s",
                 graph_attr_get(&g, "schedule"));
        char *second = test_compile_to(dir, "second", args);
        char *a = test_read_file(first), *b = test_read_file(second);
        if (strcmp(a, b))
            fail_msg("%s: recompiling from %s gives another graph", kernels[k].name, args);
        free(a), free(b), free(first), free(second);
        graph_free(&g);
    }
    test_tmpdir_remove(dir);
}

/* ---- running ---------------------------------------------------------- */

typedef struct matrix {
    const char *label, *path;
    int64_t rows, cols;
} matrix;

/* A random operand of shape "20x15", or "20x15@0.9" for density 0.9
 * instead of 0.3. */
static char *generate(const char *dir, const char *name, const char *spec, int seed)
{
    char file[64], seeds[16], shape[48];
    snprintf(file, sizeof file, "%s.tns", name);
    snprintf(seeds, sizeof seeds, "%d", seed);
    snprintf(shape, sizeof shape, "%.*s", (int)strcspn(spec, "@"), spec);
    const char *density = strchr(spec, '@') ? strchr(spec, '@') + 1 : "0.3";
    char *path = test_path(dir, file);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", shape, "--density",
                                     density, "--seed", seeds, "-o", path, NULL),
                     0);
    return path;
}

/* Appends the run arguments binding the kernel's operands (m NULL: none
 * is a matrix); strings made here go to owned. */
static int bind_operands(const kernel *k, const matrix *m, const char *dir, const char **argv,
                         int n, char **owned, int *nowned)
{
    char *spec = strdup(k->operands), *save = NULL;
    int seed = 1;
    for (char *op = strtok_r(spec, " ", &save); op; op = strtok_r(NULL, " ", &save)) {
        char *sep = op + strcspn(op, "=:"), *bind = malloc(4200), *made = NULL;
        char kind = *sep, shape[48];
        *sep = '\0';
        const char *what = sep + 1;
        if (kind == '=' && !strcmp(what, "S")) {
            argv[n++] = "--shift";
            free(bind);
            continue;
        }
        if (kind == '=' && what[0] == 'v') {
            snprintf(shape, sizeof shape, "%lld", (long long)(what[1] == '0' ? m->rows : m->cols));
            what = made = generate(dir, op, shape, seed++);
        } else if (kind == ':') {
            what = made = generate(dir, op, what, seed++);
        } else if (!strcmp(what, "M")) {
            what = m->path;
        }
        snprintf(bind, 4200, "%s=%s", op, what);
        free(made);
        argv[n++] = "-t";
        argv[n++] = owned[(*nowned)++] = bind;
    }
    free(spec);
    return n;
}

/* Runs graph on the kernel's operands under every engine with --check. */
static void run_checked(const kernel *k, const char *graph, const matrix *m, const char *dir)
{
    const char *argv[TEST_MAX_ARGS + 1] = {"run", graph};
    char *owned[TEST_MAX_ARGS];
    int nowned = 0;
    int n = bind_operands(k, m, dir, argv, 2, owned, &nowned);
    argv[n] = NULL;
    char label[160];
    snprintf(label, sizeof label, "compiled %s on %s", k->name, m ? m->label : "generated data");
    test_run_engines(label, dir, argv);
    for (int i = 0; i < nowned; i++)
        free(owned[i]);
}

/* The reference graph on the same operands moves the same tokens in the
 * same cycles as the compiled one. */
static void assert_same_timing(const kernel *k, const char *mine, const char *ref,
                               const matrix *m, const char *dir)
{
    long long cycles[2], tokens[2];
    const char *graphs[2] = {mine, ref};
    for (int s = 0; s < 2; s++) {
        const char *argv[TEST_MAX_ARGS + 1] = {"run", graphs[s]};
        char *owned[TEST_MAX_ARGS], *so = NULL, *se = NULL;
        int nowned = 0;
        argv[bind_operands(k, m, dir, argv, 2, owned, &nowned)] = NULL;
        if (test_run_samsim_argv(&so, &se, argv) != 0)
            fail_msg("%s on %s: %s", graphs[s], m->label, se);
        cycles[s] = test_summary(so, "cycles");
        tokens[s] = test_summary(so, "tokens");
        free(so), free(se);
        for (int i = 0; i < nowned; i++)
            free(owned[i]);
    }
    if (cycles[0] != cycles[1] || tokens[0] != tokens[1])
        fail_msg("%s on %s: compiled %lld cycles %lld tokens, reference %lld cycles %lld tokens",
                 k->name, m->label, cycles[0], tokens[0], cycles[1], tokens[1]);
}

static void run_matrix_kernels(const matrix *m, const char *graphs, const char *dir)
{
    for (size_t i = 0; i < NKERNELS; i++) {
        const kernel *k = &kernels[i];
        if (!strstr(k->operands, "=M") || (square_only(k) && m->rows != m->cols))
            continue;
        char *graph = test_compile_to(dir, k->name, k->args);
        run_checked(k, graph, m, dir);
        if (graphs) {
            char *ref = test_graph_path(graphs, reference_graph(k->name));
            assert_same_timing(k, graph, ref, m, dir);
            free(ref);
        }
        free(graph);
    }
}

/* Matrix kernels on a square and a rectangular generated matrix, the
 * others on generated tensors: needs nothing from ../shared. */
static void test_compiled_kernels_generated(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *sq = generate(dir, "square", "30x30", 11), *rect = generate(dir, "rect", "30x20", 12);
    const matrix ms[] = {{"a generated 30x30 matrix", sq, 30, 30},
                         {"a generated 30x20 matrix", rect, 30, 20}};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        run_matrix_kernels(&ms[i], NULL, dir);
    for (size_t i = 0; i < NKERNELS; i++)
        if (!strstr(kernels[i].operands, "=M")) {
            char *graph = test_compile_to(dir, kernels[i].name, kernels[i].args);
            run_checked(&kernels[i], graph, NULL, dir);
            free(graph);
        }
    free(sq), free(rect);
    test_tmpdir_remove(dir);
}

/* Matrix kernels on SuiteSparse matrices (two rectangular), with the
 * reference graphs' timing: the generated test's assertions on six real
 * matrices, in the slow tier. */
static void test_compiled_kernels_suitesparse(void **state)
{
    (void)state;
    test_slow_only();
    static const char *const names[] = {"bcsstm02", "bcsstk01", "west0479", "GD97_b",
                                        "lp_scsd1", "ash219"};
    char *graphs = test_require_shared("sam-graphs");
    char *data = test_require_shared("data/suitesparse");
    char *dir = test_tmpdir();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char file[64];
        snprintf(file, sizeof file, "%s.mtx", names[i]);
        char *path = test_path(data, file);
        tensor t;
        sam_error err;
        tensor_file f = {.path = path};
        assert_int_equal(tensor_file_read(&f, &t, &err), 0);
        matrix m = {names[i], path, t.dims[0], t.dims[1]};
        run_matrix_kernels(&m, graphs, dir);
        tensor_free(&t);
        free(path);
    }
    test_tmpdir_remove(dir);
    free(graphs), free(data);
}

/* Beyond the list: dense operands and outputs, a 4-tensor, a sum of a
 * product with a reduction, scalars, and more tensors at one index than a
 * joiner takes (a tree of joiners). */
static const kernel beyond[] = {
    {"spmm_dense_C", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:dd -s=reorder(i,k,j)",
     "B:30x20 C:20x7"},
    {"spmm_dense_out", "X(i,j)=B(i,k)*C(k,j) -f=X:dd -f=B:ss -f=C:ss:1,0 -s=reorder(i,j,k)",
     "B:30x20 C:20x15"},
    {"contract4", "X(i,j)=B(i,j,k,l)*C(k,l) -f=X:ss -f=B:ssss -f=C:ss", "B:7x6x5x4 C:5x4"},
    {"contract4_dense", "X(i,j)=B(i,j,k,l)*C(k,l) -f=X:sd -f=B:sdsd -f=C:ds",
     "B:7x6x5x4 C:5x4"},
    {"sum_of_product",
     "X(i,j)=B(i,j)+C(i,k)*D(k,j) -f=X:ss -f=B:ss -f=C:ss -f=D:ss:1,0 -s=reorder(i,j,k)",
     "B:20x15 C:20x10 D:10x15"},
    {"scaled_difference", "X(i,j)=b*B(i,j)-C(i,j)*d", "b=1.5 B:20x15 C:20x15 d=-2"},
    {"three_way_mixed", "x(i)=B(i,j)*c(j)+D(i,k)*e(k)-f(i) -f=B:ss -f=D:ss",
     "B:25x12 c:12 D:25x9 e:9 f:25"},
    {"scalar_dot", "x=b(i)*c(i)", "b:300 c:300"},
    {"scalar_frobenius", "x=B(i,j)*C(i,j) -f=B:sd -f=C:ss", "B:20x15 C:20x15"},
    {"dense_elemmul", "X(i,j)=B(i,j)*C(i,j) -f=X:dd -f=B:ss -f=C:ss", "B:20x15 C:20x15"},
    {"dense_spmv", "x(i)=B(i,j)*c(j) -f=x:d -f=B:ss -f=c:s", "B:25x12 c:12"},
    {"spmv_transposed_out", "x(j)=B(i,j)*c(i) -f=x:s -f=B:ss -f=c:s", "B:25x12 c:25"},
    {"sum_of_5", "X(i,j)=A(i,j)+B(i,j)+C(i,j)+D(i,j)+E(i,j)",
     "A:20x15@0.05 B:20x15@0.05 C:20x15@0.05 D:20x15@0.05 E:20x15@0.05"},
    {"product_of_6", "X(i,j)=A(i,j)*B(i,j)*C(i,j)*D(i,j)*E(i,j)*F(i,j) -f=C:sd -f=F:ds",
     "A:20x15@0.9 B:20x15@0.9 C:20x15@0.9 D:20x15@0.9 E:20x15@0.9 F:20x15@0.9"},
    {"sum_of_9", "x(i)=a(i)-b(i)+c(i)+d(i)-e(i)+f(i)+g(i)+h(i)-k(i)",
     "a:60@0.05 b:60@0.05 c:60@0.05 d:60@0.05 e:60@0.05 f:60@0.05 g:60@0.05 h:60@0.05 "
     "k:60@0.05"},
    {"product_of_9", "x=a(i)*b(i)*c(i)*d(i)*e(i)*f(i)*g(i)*h(i)*k(i)",
     "a:60@0.95 b:60@0.95 c:60@0.95 d:60@0.95 e:60@0.95 f:60@0.95 g:60@0.95 h:60@0.95 "
     "k:60@0.95"},
    {"spmv_plus_5", "x(i)=B(i,j)*c(j)+d(i)+e(i)+f(i)+g(i) -f=B:ss",
     "B:25x12 c:12 d:25@0.2 e:25@0.2 f:25@0.2 g:25@0.2"},
    /* Locators: in a dense and a compressed level, at the follower's top
     * level (fed [0, D]), and SDDMM's sampled i and j. */
    {"spmv_locate_dense", "x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:d -s=reorder(i,j) -s=locate(c)",
     "B:25x12 c:12"},
    {"spmv_locate_compressed",
     "x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:s -s=reorder(i,j) -s=locate(c)", "B:25x12 c:12@0.4"},
    {"elemmul_locate_root", "x(i)=b(i)*c(i) -f=c:d -s=locate(c)", "b:60@0.2 c:60@0.5"},
    {"sddmm_locate", "X(i,j)=B(i,j)*C(i,k)*D(j,k) -f=X:ss -f=B:ss -f=C:dd -f=D:dd "
                     "-s=reorder(i,j,k) -s=locate(C,D)", "B:20x15@0.1 C:20x6 D:15x6"},
};

static void test_beyond_the_list(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof beyond / sizeof beyond[0]; i++) {
            char *graph = test_compile_to(dir, beyond[i].name, beyond[i].args);
            run_checked(&beyond[i], graph, NULL, dir);
            free(graph);
        }
    test_tmpdir_remove(dir);
}

/* locate(c) puts a locate node where c's scanner and the intersecter
 * were, recorded as the attribute locate; inner-product SpMV on a dense
 * vector then walks only B's entries, not c's every coordinate. */
static void test_locate_replaces_intersect(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    const char *spmv = "x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:d -s=reorder(i,j)";
    char args[256];
    snprintf(args, sizeof args, "%s -s=locate(c)", spmv);
    char *plain = test_compile_to(dir, "plain", spmv), *located = test_compile_to(dir, "loc", args);
    sam_graph g;
    sam_error err;
    assert_int_equal(graph_read_dot(located, &g, &err), 0);
    assert_int_equal(type_count(&g, "locate"), 1);
    assert_int_equal(type_count(&g, "intersect"), 0);
    assert_int_equal(type_count(&g, "fiberlookup"), 2);
    assert_string_equal(graph_attr_get(&g, "locate"), "c");
    for (int k = 0; k < g.nnodes; k++)
        if (!strcmp(g.nodes[k].type, "locate"))
            assert_string_equal(graph_node_attr(&g.nodes[k], "label"), "Locate j: c0\\ndense");
    graph_free(&g);
    char *b = test_path(dir, "B.mtx"), *c = test_path(dir, "c.tns"), tb[4200], tc[4200];
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "200x200",
                                     "--density", "0.02", "--seed", "1", "-o", b, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "200", "--density",
                                     "1", "--seed", "2", "-o", c, NULL),
                     0);
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "c=%s", c);
    long long cycles[2];
    const char *graphs[2] = {plain, located};
    for (int k = 0; k < 2; k++) {
        char *out = NULL;
        assert_int_equal(test_run_samsim(&out, NULL, "run", graphs[k], "-t", tb, "-t", tc,
                                         "--check", NULL),
                         0);
        cycles[k] = test_summary(out, "cycles");
        free(out);
    }
    assert_true(cycles[1] * 5 < cycles[0]);
    free(plain), free(located), free(b), free(c);
    test_tmpdir_remove(dir);
}

/* ---- bad input -------------------------------------------------------- */

static void assert_refused(const char *args, const char *needle)
{
    char *dir = test_tmpdir(), *buf, *se = NULL;
    char *out = test_path(dir, "out.gv");
    const char *argv[TEST_MAX_ARGS + 4] = {"compile"};
    int n = test_split_args(args, &buf, argv, 1);
    argv[n++] = "-o", argv[n++] = out, argv[n] = NULL;
    int rc = test_run_samsim_argv(NULL, &se, argv);
    if (rc != 1 || !strstr(se, needle) || strchr(se, '\n') != se + strlen(se) - 1 ||
        test_exists(out))
        fail_msg("compile %s: exit %d, expected one line with '%s', got: %s", args, rc, needle,
                 se);
    free(buf), free(se), free(out);
    test_tmpdir_remove(dir);
}

static void test_bad_input(void **state)
{
    (void)state;
    assert_refused("X(i,j)=B(i,j)*", "column 15");
    assert_refused("X(i,j)=B(i,j)*(C(i,j)", "column");
    assert_refused("X(i,k)=B(i,j)", "k");
    assert_refused("X(i,j)=B(i,j)*B(j)", "B");
    assert_refused("X(i,j)=B(i,j) -f=B:s", "B has 2 index variables but the format has 1 level");
    assert_refused("X(i,j)=B(i,j) -f=B:sss", "the format has 3 levels");
    assert_refused("X(i,j)=B(i,j) -f=Q:ss", "no tensor Q");
    assert_refused("X(i,j)=B(i,j) -f=B:sx", "level letters");
    assert_refused("X(i,j)=B(i,k)*C(k,j) -s=reorder(i,j)", "misses index k");
    assert_refused("X(i,j)=B(i,k)*C(k,j) -s=reorder(i,k,j,i)", "i appears twice");
    assert_refused("X(i,j)=B(i,k)*C(k,j) -s=reorder(i,q,j)", "no index variable 'q'");
    assert_refused("X(i,j)=B(i,k)*C(k,j) -s=order(i,k,j)", "expected reorder(");
    assert_refused("X(i,j)=B(i,k)*C(k,j) -s=reorder(i,j,k)", "format of C stores k before j");
    assert_refused("X(i,j)=B(i,j) -f=B:ss:1,0", "admit no common loop order");
    assert_refused("X(i,j)=2*B(i,j)", "a number has no SAM block");
    assert_refused("X(i,j)=-B(i,j)", "unary minus");
    assert_refused("X(i,j)=B(i,j)+c(i)", "do not broadcast");
    assert_refused("X(i,j)=B(i,j)*(C(i,j)+D(i,j))", "cannot nest");
    assert_refused("X(i,j)=B(i,k)*B(k,j)", "used twice");
    assert_refused("x=b", "no index variable");
    assert_refused("X(i,l)=B(i,j)*C(j,k)*D(k,l) -s=reorder(i,j,k,l)", "both summed outside");
    assert_refused("x(i)=B(i,j)*c(j) -s=locate(q)", "locate(q): no operand q in the expression");
    assert_refused("x(i)=B(i,j)*c(j) -s=locate(x)", "locate(x): no operand x in the expression");
    assert_refused("X(i,j)=A(i,j)*B(i,j)*C(i,j) -s=locate(C)", "locate(C): at index i it meets "
                                                              "3 tensors; a locator joins two");
    assert_refused("x(i)=B(i,j)*c(j) -s=locate(", "expected locate(TENSOR,...)");
    assert_refused("X(i,j)=B(i,j)+C(i,k)*D(k,j) -f=D:ss -s=reorder(i,k,j)",
                   "added under different loops");
    assert_refused("X(i,j)=B(i,j) --bogus", "unknown option '--bogus'");
    assert_refused("", "usage");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_tsv_blocks),
        cmocka_unit_test(test_recorded_arguments_recompile),
        cmocka_unit_test(test_compiled_kernels_generated),
        cmocka_unit_test(test_compiled_kernels_suitesparse),
        cmocka_unit_test(test_beyond_the_list),
        cmocka_unit_test(test_locate_replaces_intersect),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests_name("compile", tests, NULL, NULL);
}
