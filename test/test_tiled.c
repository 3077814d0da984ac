/* Tiled runs end to end: kernels compiled with splits compute what the
 * expression does (--check) under both engines; one tile as large as the
 * tensors is the untiled run, cycle for cycle; and the tile points run
 * are exactly those where every factor's tile holds entries, counted here
 * from the operands themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/tensor_file.h"
#include "test_util.h"

typedef struct tiled_kernel {
    const char *name;
    const char *args;       /* compile arguments, split commands included */
    const char *operands;   /* NAME:SHAPE[@DENSITY], generated */
} tiled_kernel;

#define MM "X(i,j)=B(i,k)*C(k,j) "
#define SPLIT3 " -s=split(i,i1,i0,8) -s=split(k,k1,k0,8) -s=split(j,j1,j0,8)"
#define MM_OPERANDS "B:30x20 C:20x25"

static const tiled_kernel kernels[] = {
    {"matmul_kij", MM "-f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)" SPLIT3, MM_OPERANDS},
    {"matmul_kji", MM "-f=X:ss:1,0 -f=B:ss:1,0 -f=C:ss -s=reorder(k,j,i)" SPLIT3, MM_OPERANDS},
    {"matmul_ikj", MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)" SPLIT3, MM_OPERANDS},
    {"matmul_jki", MM "-f=X:ss:1,0 -f=B:ss:1,0 -f=C:ss:1,0 -s=reorder(j,k,i)" SPLIT3, MM_OPERANDS},
    {"matmul_ijk", MM "-f=X:ss -f=B:ss -f=C:ss:1,0 -s=reorder(i,j,k)" SPLIT3, MM_OPERANDS},
    {"matmul_jik", MM "-f=X:ss:1,0 -f=B:ss -f=C:ss:1,0 -s=reorder(j,i,k)" SPLIT3, MM_OPERANDS},
    /* Two levels of i, k by B's occupancy, j once. */
    {"matmul_ikj_hier",
     MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) -s=split(i,i1,i0,16) -s=split(i0,i01,i00,4) "
        "-s=split(k,k1,k0,B.40) -s=split(j,j1,j0,8)",
     MM_OPERANDS},
    {"mat_vecmul_ij", "x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:s -s=split(i,i1,i0,8) "
                      "-s=split(j,j1,j0,8)",
     "B:30x20 c:20@0.6"},
    {"mat_elemadd", "X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ss -f=C:ss -s=split(i,i1,i0,8) "
                    "-s=split(j,j1,j0,8)",
     "B:30x20@0.05 C:30x20@0.05"},
    {"mat_sddmm", "X(i,j)=B(i,j)*C(i,k)*D(k,j) -f=X:ss -f=B:ss -f=C:dd -f=D:dd:1,0 "
                  "-s=reorder(i,j,k) -s=split(i,i1,i0,8) -s=split(j,j1,j0,8) -s=split(k,k1,k0,4)",
     "B:30x25@0.1 C:30x10@1 D:10x25@1"},
    {"tensor3_mttkrp", "X(i,j)=B(i,k,l)*C(j,k)*D(j,l) -f=X:ss -f=B:sss -f=C:ss -f=D:ss "
                       "-s=split(i,i1,i0,4) -s=split(j,j1,j0,4) -s=split(k,k1,k0,4) "
                       "-s=split(l,l1,l0,4)",
     "B:12x10x9 C:11x10 D:11x9"},
};

/* Splits args at spaces into argv[n...]; the copy is owned by *buf. */
static int split_args(const char *args, char **buf, const char **argv, int n)
{
    *buf = strdup(args);
    char *save = NULL;
    for (char *a = strtok_r(*buf, " ", &save); a; a = strtok_r(NULL, " ", &save))
        argv[n++] = a;
    argv[n] = NULL;
    return n;
}

static char *compile_to(const char *dir, const char *name, const char *args)
{
    char file[96];
    snprintf(file, sizeof file, "%s.gv", name);
    char *path = test_path(dir, file), *buf, *se = NULL;
    const char *argv[TEST_MAX_ARGS + 4] = {"compile"};
    int n = split_args(args, &buf, argv, 1);
    argv[n++] = "-o", argv[n++] = path, argv[n] = NULL;
    if (test_run_samsim_argv(NULL, &se, argv))
        fail_msg("compile %s: %s", name, se);
    free(buf), free(se);
    return path;
}

/* Generates the operands NAME:SHAPE[@DENSITY] into dir; appends -t NAME=FILE
 * to argv from n, with the strings in owned. */
static int bind_generated(const char *spec, const char *dir, const char **argv, int n,
                          char **owned, int *nowned)
{
    char *copy = strdup(spec), *save = NULL;
    int seed = 3;
    for (char *op = strtok_r(copy, " ", &save); op; op = strtok_r(NULL, " ", &save), seed++) {
        char *colon = strchr(op, ':'), *at = strchr(op, '@'), shape[48], file[64], seeds[16];
        *colon = '\0';
        snprintf(shape, sizeof shape, "%.*s", (int)(at ? at - colon - 1 : (long)strlen(colon + 1)),
                 colon + 1);
        snprintf(file, sizeof file, "%s.tns", op);
        snprintf(seeds, sizeof seeds, "%d", seed);
        char *path = test_path(dir, file);
        assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", shape,
                                         "--density", at ? at + 1 : "0.3", "--seed", seeds,
                                         "-o", path, NULL), 0);
        char *bind = malloc(strlen(op) + strlen(path) + 2);
        sprintf(bind, "%s=%s", op, path);
        free(path);
        argv[n++] = "-t";
        argv[n++] = owned[(*nowned)++] = bind;
    }
    free(copy);
    argv[n] = NULL;
    return n;
}

/* Runs graph on the kernel's operands with extra arguments; the summary. */
static char *run(const char *graph, const tiled_kernel *k, const char *dir, const char *extra)
{
    const char *argv[TEST_MAX_ARGS + 8] = {"run", graph};
    char *owned[16], *buf = NULL, *out = NULL, *se = NULL;
    int nowned = 0, n = bind_generated(k->operands, dir, argv, 2, owned, &nowned);
    if (extra)
        n = split_args(extra, &buf, argv, n);
    if (test_run_samsim_argv(&out, &se, argv))
        fail_msg("%s %s: %s", k->name, extra ? extra : "", se);
    for (int i = 0; i < nowned; i++)
        free(owned[i]);
    free(buf), free(se);
    return out;
}

static void test_tiled_kernels_check(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        char *graph = compile_to(dir, kernels[i].name, kernels[i].args);
        char *event = run(graph, &kernels[i], dir, "--check");
        char *cycle = run(graph, &kernels[i], dir, "--check --engine cycle");
        if (!strstr(event, "check: pass") || !strstr(cycle, "check: pass"))
            fail_msg("%s: %s", kernels[i].name, event);
        assert_true(test_summary(event, "cycles") == test_summary(cycle, "cycles"));
        assert_true(test_summary(event, "tiles_run") > 1);
        free(event), free(cycle), free(graph);
    }
    test_tmpdir_remove(dir);
}

/* Tiles as large as the operands: one tile point, the untiled run. */
static void test_one_tile_is_the_whole(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    for (size_t i = 0; i < 6; i++) {
        char *graph = compile_to(dir, kernels[i].name, kernels[i].args);
        char *whole = run(graph, &kernels[i], dir, "--tile split(i,i1,i0,30);split(k,k1,k0,20);"
                                                   "split(j,j1,j0,64)");
        char args[512];
        const char *splits = strstr(kernels[i].args, " -s=split");
        snprintf(args, sizeof args, "%.*s", (int)(splits - kernels[i].args), kernels[i].args);
        char *plain = compile_to(dir, "plain", args);
        char *untiled = run(plain, &kernels[i], dir, NULL);
        assert_true(test_summary(whole, "tiles_run") == 1);
        assert_true(test_summary(whole, "tiles_skipped") == 0);
        assert_true(test_summary(whole, "cycles") == test_summary(untiled, "cycles"));
        assert_true(test_summary(whole, "tokens") == test_summary(untiled, "tokens"));
        free(whole), free(untiled), free(graph), free(plain);
    }
    test_tmpdir_remove(dir);
}

/* The tile points of X(i,j) = B(i,k) C(k,j) with 8-wide tiles: (i1, k1,
 * j1) where B's tile (i1, k1) and C's (k1, j1) both hold entries. */
static void test_tiles_run_counted(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    const tiled_kernel *k = &kernels[2];
    char *graph = compile_to(dir, k->name, k->args);
    char *out = run(graph, k, dir, NULL);
    char hasb[4][3] = {{0}}, hasc[3][4] = {{0}};
    tensor t;
    sam_error err;
    char *bpath = test_path(dir, "B.tns"), *cpath = test_path(dir, "C.tns");
    tensor_file fb = {.path = bpath}, fc = {.path = cpath};
    assert_int_equal(tensor_file_read(&fb, &t, &err), 0);
    for (size_t e = 0; e < t.nnz; e++)
        hasb[t.crd[0][e] / 8][t.crd[1][e] / 8] = 1;
    tensor_free(&t);
    assert_int_equal(tensor_file_read(&fc, &t, &err), 0);
    for (size_t e = 0; e < t.nnz; e++)
        hasc[t.crd[0][e] / 8][t.crd[1][e] / 8] = 1;
    tensor_free(&t);
    long long want = 0;
    for (int i = 0; i < 4; i++)
        for (int kk = 0; kk < 3; kk++)
            for (int j = 0; j < 4; j++)
                want += hasb[i][kk] && hasc[kk][j];
    assert_true(test_summary(out, "tiles_run") == want);
    assert_true(test_summary(out, "tiles_skipped") == 4 * 3 * 4 - want);
    free(out), free(graph), free(bpath), free(cpath);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiled_kernels_check),
        cmocka_unit_test(test_one_tile_is_the_whole),
        cmocka_unit_test(test_tiles_run_counted),
    };
    return cmocka_run_group_tests_name("tiled", tests, NULL, NULL);
}
