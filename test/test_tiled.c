/* Tiled runs end to end: kernels compiled with splits compute what the
 * expression does (--check) under both engines; one tile as large as the
 * tensors is the untiled run, cycle for cycle; the tile points run are
 * exactly those where every factor's tile holds entries, counted here
 * from the operands themselves; with memories (--hw), traffic worked
 * out by hand, bandwidth that binds or does not, result tiles against
 * their buffers, tile points drained or streamed through a PE, and
 * refusals; --max-cycles and deadlocks ending a tiled
 * run as they end an untiled one; and costs that follow the work (PEs no
 * point uses, sizes declared but empty). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/csv_table.h"
#include "../formats/fibertree.h"
#include "../formats/gen.h"
#include "../formats/tensor_file.h"
#include "../run/template_run.h"
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
    /* Gustavson within a tile, output-stationary over tiles (ExTensor). */
    {"matmul_ikj_os", MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)" SPLIT3
                      " -s=tileorder(i1,j1,k1)", MM_OPERANDS},
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

/* Writes to path a tensor of shape ("30x20") with uniformly random
 * entries at density, as `samsim gen urandom` does. */
static void gen_file(const char *path, const char *shape, double density, int seed)
{
    int64_t dims[TENSOR_MAX_ORDER];
    int order = 0;
    char *end;
    for (const char *p = shape;; p = end + 1) {
        dims[order++] = strtoll(p, &end, 10);
        if (*end != 'x')
            break;
    }
    size_t nnz;
    tensor t;
    sam_error err;
    tensor_file f = {.path = path};
    if (gen_nnz_for_density(order, dims, density, &nnz, &err) ||
        gen_urandom(&t, order, dims, nnz, (uint64_t)seed, &err))
        fail_msg("%s: %s", path, err.msg);
    if (tensor_file_write(&f, &t, &err))
        fail_msg("%s", err.msg);
    tensor_free(&t);
}

/* Generates the operands NAME:SHAPE[@DENSITY] into dir and binds them in
 * s, the bindings malloc'd into owned; returns how many. */
static int bind_generated(const char *spec, const char *dir, test_run_spec *s, char **owned)
{
    char *copy = strdup(spec), *save = NULL;
    int seed = 3, n = 0;
    for (char *op = strtok_r(copy, " ", &save); op; op = strtok_r(NULL, " ", &save), seed++) {
        char *colon = strchr(op, ':'), *at = strchr(op, '@'), shape[48], file[64];
        *colon = '\0';
        snprintf(shape, sizeof shape, "%.*s", (int)(at ? at - colon - 1 : (long)strlen(colon + 1)),
                 colon + 1);
        snprintf(file, sizeof file, "%s.tns", op);
        char *path = test_path(dir, file);
        gen_file(path, shape, at ? atof(at + 1) : 0.3, seed);
        char *bind = malloc(strlen(op) + strlen(path) + 2);
        sprintf(bind, "%s=%s", op, path);
        free(path);
        s->bind[n] = owned[n] = bind;
        n++;
    }
    free(copy);
    return n;
}

/* s run in this process (test_graph_run), which must complete: its
 * check, when asked for, passed. */
static void run_complete(const test_run_spec *s, sam_graph *g, graph_run *run)
{
    char msg[sizeof run->report];
    int rc = test_graph_run(s, g, run, msg, sizeof msg);
    if (rc)
        fail_msg("%s: status %d: %s", s->graph, rc, rc < 0 ? msg : run->report);
    const char *verdict = outcome_get(&run->record, "check");
    if (s->check && (!verdict || strncmp(verdict, "pass", 4)))
        fail_msg("%s: check: %s", s->graph, verdict ? verdict : "none");
}

/* Runs graph on the kernel's operands, generated into dir, as s asks
 * besides; it must complete. */
static void run(const char *graph, const tiled_kernel *k, const char *dir, test_run_spec s,
                sam_graph *g, graph_run *r)
{
    char *owned[8];
    s.graph = graph;
    int n = bind_generated(k->operands, dir, &s, owned);
    run_complete(&s, g, r);
    for (int i = 0; i < n; i++)
        free(owned[i]);
}

static void test_tiled_kernels_check(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        char *graph = test_compile_to(dir, kernels[i].name, kernels[i].args);
        sam_graph ge, gc;
        graph_run event, cycle;
        run(graph, &kernels[i], dir, (test_run_spec){.check = 1}, &ge, &event);
        run(graph, &kernels[i], dir, (test_run_spec){.check = 1, .engine = ENGINE_CYCLE}, &gc,
            &cycle);
        assert_true(test_field(&event, "cycles") == test_field(&cycle, "cycles"));
        assert_true(test_field(&event, "tiles_run") > 1);
        test_graph_run_free(&ge, &event), test_graph_run_free(&gc, &cycle);
        free(graph);
    }
    test_tmpdir_remove(dir);
}

/* Tiles as large as the operands: one tile point, the untiled run. */
static void test_one_tile_is_the_whole(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    for (size_t i = 0; i < 6; i++) {
        char *graph = test_compile_to(dir, kernels[i].name, kernels[i].args);
        sam_graph gw, gu;
        graph_run whole, untiled;
        run(graph, &kernels[i], dir,
            (test_run_spec){.tile = "split(i,i1,i0,30);split(k,k1,k0,20);split(j,j1,j0,64)"},
            &gw, &whole);
        char args[512];
        const char *splits = strstr(kernels[i].args, " -s=split");
        snprintf(args, sizeof args, "%.*s", (int)(splits - kernels[i].args), kernels[i].args);
        char *plain = test_compile_to(dir, "plain", args);
        run(plain, &kernels[i], dir, (test_run_spec){0}, &gu, &untiled);
        assert_true(test_field(&whole, "tiles_run") == 1);
        assert_true(test_field(&whole, "tiles_skipped") == 0);
        assert_true(test_field(&whole, "cycles") == test_field(&untiled, "cycles"));
        assert_true(test_field(&whole, "tokens") == test_field(&untiled, "tokens"));
        test_graph_run_free(&gw, &whole), test_graph_run_free(&gu, &untiled);
        free(graph), free(plain);
    }
    test_tmpdir_remove(dir);
}

/* 1 when a and b hold the same entries, to the bit. */
static int same_tensor(const tensor *a, const tensor *b)
{
    if (a->order != b->order || a->nnz != b->nnz ||
        memcmp(a->dims, b->dims, sizeof a->dims[0] * (size_t)a->order) ||
        memcmp(a->vals, b->vals, sizeof a->vals[0] * a->nnz))
        return 0;
    for (int m = 0; m < a->order; m++)
        if (memcmp(a->crd[m], b->crd[m], sizeof a->crd[m][0] * a->nnz))
            return 0;
    return 1;
}

/* A reduction split across tiles: with k in slabs of one, each of the two
 * points adds an entry for every one of the 1,440,000 result coordinates,
 * and the result is summed in place as it grows (past 2^20 entries). The
 * result is the untiled run's to the bit, and passes --check. */
static void test_split_reduction_summed_in_place(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_path(dir, "B.mtx"), *c = test_path(dir, "C.mtx");
    gen_file(b, "1200x2", 1, 1);
    gen_file(c, "2x1200", 1, 2);
    const char *mm = "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)";
    char args[256], tb[4200], tc[4200];
    snprintf(args, sizeof args, "%s -s=split(k,k1,k0,1)", mm);
    char *tiled = test_compile_to(dir, "tiled", args), *plain = test_compile_to(dir, "plain", mm);
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    test_run_spec ts = {.graph = tiled, .bind = {tb, tc}, .check = 1};
    test_run_spec ps = {.graph = plain, .bind = {tb, tc}};
    sam_graph gt, gp;
    graph_run rt, rp;
    run_complete(&ts, &gt, &rt);
    assert_int_equal(test_field(&rt, "tiles_run"), 2);
    run_complete(&ps, &gp, &rp);
    assert_int_equal(rt.result.nnz, 1440000);
    assert_true(same_tensor(&rt.result, &rp.result));
    test_graph_run_free(&gt, &rt), test_graph_run_free(&gp, &rp);
    free(tiled), free(plain), free(b), free(c);
    test_tmpdir_remove(dir);
}

/* The tile points of X(i,j) = B(i,k) C(k,j) with 8-wide tiles: (i1, k1,
 * j1) where B's tile (i1, k1) and C's (k1, j1) both hold entries. */
static void test_tiles_run_counted(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    const tiled_kernel *k = &kernels[2];
    char *graph = test_compile_to(dir, k->name, k->args);
    sam_graph g;
    graph_run out;
    run(graph, k, dir, (test_run_spec){0}, &g, &out);
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
    assert_true(test_field(&out, "tiles_run") == want);
    assert_true(test_field(&out, "tiles_skipped") == 4 * 3 * 4 - want);
    test_graph_run_free(&g, &out);
    free(graph), free(bpath), free(cpath);
    test_tmpdir_remove(dir);
}

/* ---- memories ----------------------------------------------------- */

static const char b4[] = "%%MatrixMarket matrix coordinate real general\n4 4 3\n"
                         "1 1 1\n2 2 2\n3 4 3\n";
static const char c4[] = "%%MatrixMarket matrix coordinate real general\n4 4 4\n"
                         "1 1 4\n1 2 5\n3 3 6\n4 4 7\n";

/* X = B .* C on 4x4 matrices cut into 2x2 tiles, compiled into dir with
 * B and C beside it: the graph's path, the bindings in tb and tc. */
static char *setup_4x4(const char *dir, char *tb, char *tc, size_t size)
{
    char *b = test_write_file(dir, "b4.mtx", b4), *c = test_write_file(dir, "c4.mtx", c4);
    snprintf(tb, size, "B=%s", b);
    snprintf(tc, size, "C=%s", c);
    free(b), free(c);
    return test_compile_to(dir, "em", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss "
                           "-s=split(i,i1,i0,2) -s=split(j,j1,j0,2)");
}

/* That run through samsim with the hardware file text hw, for refusals:
 * the summary (exit 0) or the error line. */
static char *run_4x4(const char *dir, const char *hw, int *rc)
{
    char tb[512], tc[512], *out = NULL, *se = NULL;
    char *graph = setup_4x4(dir, tb, tc, sizeof tb), *h = test_write_file(dir, "t.hw", hw);
    *rc = test_run_samsim(&out, &se, "run", graph, "-t", tb, "-t", tc, "--hw", h, "--check", NULL);
    free(h), free(graph);
    if (*rc) {
        free(out);
        return se;
    }
    free(se);
    return out;
}

/* That run in this process, which must complete and check. */
static void record_4x4(const char *dir, const char *hw, sam_graph *g, graph_run *run)
{
    char tb[512], tc[512], *graph = setup_4x4(dir, tb, tc, sizeof tb);
    test_run_spec s = {.graph = graph, .bind = {tb, tc}, .hw_text = hw, .check = 1};
    run_complete(&s, g, run);
    free(graph);
}

/* Worked by hand, at 4 bytes a coordinate or seg entry and 8 a value
 * (DCSR: per level its coordinates and one more seg entry than the
 * fibers above): B's tile (0,0) holds (0,0) and (1,1): 2 + 2 coordinates,
 * 2 + 3 seg entries, 2 values, 52 bytes; its tile (1,1) holds (0,1): 32.
 * C's tile (0,0) holds (0,0) and (0,1): 1 + 2, 2 + 2, 2: 44; its (1,1)
 * 52. The tiles (0,1) and (1,0) are skipped. X's tile (0,0) holds 4 at
 * (0,0): 32 bytes written; its tile (1,1) is empty and costs nothing. */
static void test_traffic_by_hand(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    sam_graph g;
    graph_run out;
    record_4x4(dir, "bytes.val = 8\n", &g, &out);
    assert_true(test_field(&out, "tiles_run") == 2 && test_field(&out, "tiles_skipped") == 2);
    assert_true(test_field(&out, "traffic.B") == 52 + 32);
    assert_true(test_field(&out, "traffic.C") == 44 + 52);
    assert_true(test_field(&out, "traffic.X") == 32);
    assert_true(test_field(&out, "dram_bytes") == 84 + 96 + 32);
    assert_true(test_field(&out, "cycles") > test_field(&out, "compute_cycles"));
    test_graph_run_free(&g, &out);
    test_tmpdir_remove(dir);
}

/* B cached by rows (place.B = cache) in the example above: B's tile
 * (0,0) has rows 0 and 1, but C's tile there only row 0, so the point
 * touches B's row 0 alone: its coordinate and seg entry, a coordinate and
 * a value, 20 bytes; at tile (1,1) C has rows 0 and 1, B row 0 (its
 * entry (0,1)): 20. B moves 40 bytes, not its two tiles' 84. The result
 * cannot be cached, nor can anything without an LLB. */
static void test_cached_operand(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    sam_graph g;
    graph_run out;
    record_4x4(dir, "bytes.val = 8\nplace.B = cache\n", &g, &out);
    assert_true(test_field(&out, "traffic.B") == 40);
    assert_true(test_field(&out, "traffic.C") == 44 + 52);
    assert_true(test_field(&out, "traffic.X") == 32);
    test_graph_run_free(&g, &out);
    static const struct {
        const char *hw, *message;
    } bad[] = {
        {"place.X = cache\n", "t.hw:1: place.X = cache: a cache holds an operand's fibers, and X "
                              "is the result"},
        {"llb.capacity = 0\nplace.B = cache\n", "t.hw:2: a cache of fibers needs an LLB "
                                                "(llb.capacity > 0)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc;
        char *se = run_4x4(dir, bad[i].hw, &rc);
        if (rc != 1 || !strstr(se, bad[i].message) || strchr(se, '\n') != se + strlen(se) - 1)
            fail_msg("%s: exit %d: %s", bad[i].hw, rc, se);
        free(se);
    }
    test_tmpdir_remove(dir);
}

/* Halving DRAM's bandwidth nearly doubles a run that waits on it, and
 * leaves one that does not as it was. */
static void test_bandwidth_bound(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    sam_graph g[4];
    graph_run slow, slower, fast, half;
    record_4x4(dir, "dram.bandwidth = 0.01\nllb.capacity = 0\n", &g[0], &slow);
    record_4x4(dir, "dram.bandwidth = 0.005\nllb.capacity = 0\n", &g[1], &slower);
    record_4x4(dir, "dram.bandwidth = 10000\ndram.latency = 0\nllb.capacity = 0\n", &g[2], &fast);
    record_4x4(dir, "dram.bandwidth = 5000\ndram.latency = 0\nllb.capacity = 0\n", &g[3], &half);
    long long a = (long long)test_field(&slow, "cycles");
    long long b = (long long)test_field(&slower, "cycles");
    assert_true(a > 10 * test_field(&slow, "compute_cycles"));
    assert_true(b > 19 * a / 10 && b <= 2 * a);
    assert_true(test_field(&fast, "cycles") == test_field(&half, "cycles"));
    /* The two tiles overlap in the pipeline: less than their sum. */
    assert_true(test_field(&fast, "cycles") < test_field(&fast, "compute_cycles"));
    test_graph_run_free(&g[0], &slow), test_graph_run_free(&g[1], &slower);
    test_graph_run_free(&g[2], &fast), test_graph_run_free(&g[3], &half);
    test_tmpdir_remove(dir);
}

/* The bytes of t stored as ss, at 4 bytes each. */
static double tensor_bytes(const tensor *t)
{
    fibertree ft;
    level_format f;
    sam_error err;
    assert_int_equal(level_format_parse("ss", &f, &err), 0);
    assert_int_equal(fibertree_build(t, &f, &ft, &err), 0);
    double bytes = fibertree_bytes(&ft, 4, 4, 4);
    fibertree_free(&ft);
    return bytes;
}

/* The same of the tensor in file path. */
static double stored_bytes(const char *path)
{
    tensor t;
    sam_error err;
    tensor_file tf = {.path = path};
    assert_int_equal(tensor_file_read(&tf, &t, &err), 0);
    double bytes = tensor_bytes(&t);
    tensor_free(&t);
    return bytes;
}

/* However the tiles go, each operand is read at least once whole and the
 * result written once whole: traffic never below that. */
static void test_traffic_at_least_the_minimum(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *hw = test_write_file(dir, "min.hw", "bytes.val = 4\n");
    for (size_t i = 0; i < 7; i++) {
        char *graph = test_compile_to(dir, kernels[i].name, kernels[i].args);
        sam_graph g;
        graph_run out;
        run(graph, &kernels[i], dir, (test_run_spec){.hw = hw}, &g, &out);
        char *b = test_path(dir, "B.tns"), *c = test_path(dir, "C.tns");
        assert_true(test_field(&out, "traffic.B") >= stored_bytes(b));
        assert_true(test_field(&out, "traffic.C") >= stored_bytes(c));
        assert_true(test_field(&out, "traffic.X") >= tensor_bytes(&out.result));
        test_graph_run_free(&g, &out);
        free(graph), free(b), free(c);
    }
    free(hw);
    test_tmpdir_remove(dir);
}

/* A tile larger than its buffer, and bad keys, refused in one line. */
static void test_memory_refusals(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    static const struct {
        const char *hw, *message;
    } bad[] = {
        {"pe.capacity = 40\n", "tile (i1=0,j1=0) of B (52 bytes) does not fit in the pe buffer "
                               "(40 bytes)"},
        {"# x\ndram.width = 2\n", "t.hw:2: unknown key dram.width"},
        {"pe.buffering = 0\n", "t.hw:1: pe.buffering = 0 is not a whole number 1..64 (tiles)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc;
        char *se = run_4x4(dir, i ? bad[i].hw : "bytes.val = 8\npe.capacity = 40\n", &rc);
        if (rc != 1 || !strstr(se, bad[i].message) || strchr(se, '\n') != se + strlen(se) - 1)
            fail_msg("%s: exit %d: %s", bad[i].hw, rc, se);
        free(se);
    }
    test_tmpdir_remove(dir);
}

/* The number in column `column` of the statistics file path's row of
 * kind `row` and id `id` (for a tensor, held in buffer `memory`). */
static long long stats_cell(const char *path, const char *row, const char *id,
                            const char *memory, const char *column)
{
    csv_table t;
    sam_error err;
    if (csv_table_read(path, &t, &err))
        fail_msg("%s", err.msg);
    int c_row = csv_table_column(&t, "row"), c_id = csv_table_column(&t, "id");
    int c_mem = csv_table_column(&t, "memory"), c = csv_table_column(&t, column);
    assert_true(c_row >= 0 && c_id >= 0 && c_mem >= 0 && c >= 0);
    for (size_t r = 1; r < t.nrows; r++) {
        char **cell = t.rows[r].cells;
        if (!strcmp(cell[c_row], row) && !strcmp(cell[c_id], id) &&
            (!memory || !strcmp(cell[c_mem], memory))) {
            long long v = atoll(cell[c]);
            csv_table_free(&t);
            return v;
        }
    }
    fail_msg("%s: no %s row %s", path, row, id);
    return -1;
}

static const char ones4[] = "%%MatrixMarket matrix coordinate real general\n4 4 16\n"
    "1 1 1\n1 2 1\n1 3 1\n1 4 1\n2 1 1\n2 2 1\n2 3 1\n2 4 1\n"
    "3 1 1\n3 2 1\n3 3 1\n3 4 1\n4 1 1\n4 2 1\n4 3 1\n4 4 1\n";

static const char col4[] = "%%MatrixMarket matrix coordinate real general\n4 1 4\n"
                           "1 1 1\n2 1 1\n3 1 1\n4 1 1\n";
static const char row4[] = "%%MatrixMarket matrix coordinate real general\n1 4 4\n"
                           "1 1 1\n1 2 1\n1 3 1\n1 4 1\n";

/* The run's statistics into path, as --stats writes them. */
static void write_stats(const graph_run *run, const char *path)
{
    sam_error err;
    if (sim_stats_write_rows(run->stats, run->cycles, run->incomplete, path, &err))
        fail_msg("%s", err.msg);
}

/* X = B C with B and C in the files b and c, graph compiled with splits,
 * the hardware file text hw, statistics to dir/s.csv, in this process:
 * the run must complete and check. */
static void record_product(const char *dir, const char *graph, const char *b, const char *c,
                           const char *hw, sam_graph *g, graph_run *run)
{
    char tb[512], tc[512], *stats = test_path(dir, "s.csv");
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    test_run_spec s = {.graph = graph, .bind = {tb, tc}, .hw_text = hw, .check = 1, .stats = 1};
    run_complete(&s, g, run);
    write_stats(run, stats);
    free(stats);
}

/* The same through samsim, for refusals: the exit status, the summary or
 * the error; a refused run writes no statistics. */
static int run_product(const char *dir, const char *graph, const char *b, const char *c,
                       const char *hw, char **text)
{
    char *h = test_write_file(dir, "p.hw", hw), *stats = test_path(dir, "s.csv");
    char tb[512], tc[512], *out = NULL, *se = NULL;
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    remove(stats);
    int rc = test_run_samsim(&out, &se, "run", graph, "-t", tb, "-t", tc, "--hw", h, "--check",
                             "--stats", stats, NULL);
    *text = rc ? se : out;
    free(rc ? out : se);
    if (rc)
        assert_false(test_exists(stats));
    free(h), free(stats);
    return rc;
}

/* Three tile points through one PE, drained and streamed (pe.stream):
 * X = B C in Gustavson's order, k cut in 2, B 2x6 and C 6x2 with one
 * entry a k tile, B's at (1,1) within its tile and C's at (0,0), so no
 * product. Each point alone runs 17 cycles, its crdhold of i busy over
 * cycles 1..10 but only 6 of them (waiting on the k intersection) and
 * its accumulator over 9..15, all 7 (asserted from the lone point's
 * statistics). The tiles arrive within cycle 0 (no latency, a million
 * bytes a cycle), so the first point starts at 1; four slots per operand
 * hold the three points' tiles at once.
 *   drained: a point starts once the crdhold is through with the one
 *   before, 10 cycles on (its first busy cycle 1 after its last, 10):
 *   1, 11, 21, ending at 21 + 17 = 38, as without --hw but for the 1;
 *   streamed: once every block has its busy cycles after ending the
 *   point before: the accumulator's 7 bind (the crdhold's 6 fit in its
 *   waits): 1, 8, 15, ending at 32;
 *   streamed with two slots per operand: the third point's tiles wait for
 *   the first point's end, 18, arriving within it: 19, ending at 36;
 *   with one slot, each point's wait for the end of the one before: 1,
 *   19, 37, ending at 54.
 * With pe.release a slot frees once the point's last reader of its tile
 * is done: B's (its scanners and values, blocks 0, 3 and 9) with its
 * values at cycle 12 of the point's run, C's (4, 6 and 10) at 10; so
 * point p's tiles free at start + 13 and start + 11. Two slots: the third
 * point's from 1 + 13 = 14, before its turn at 15 (ending at 32, as with
 * four); one slot: the second point at 15, the third at 15 + 13 = 28, in
 * at 29, ending at 46. */
static void test_streamed_points(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "b.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "2 6 3\n2 2 1\n2 4 2\n2 6 3\n");
    char *c = test_write_file(dir, "c.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "6 2 3\n1 1 4\n3 1 5\n5 1 6\n");
    char *lone_b = test_write_file(dir, "lb.mtx", "%%MatrixMarket matrix coordinate real "
                                                  "general\n2 2 1\n2 2 1\n");
    char *lone_c = test_write_file(dir, "lc.mtx", "%%MatrixMarket matrix coordinate real "
                                                  "general\n2 2 1\n1 1 4\n");
    char *lone = test_compile_to(dir, "lone", MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)");
    char *graph = test_compile_to(dir, "mm", MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) "
                                                "-s=split(k,k1,k0,2)");
    char *stats = test_path(dir, "s.csv"), tb[512], tc[512];
    snprintf(tb, sizeof tb, "B=%s", lone_b);
    snprintf(tc, sizeof tc, "C=%s", lone_c);
    test_run_spec ls = {.graph = lone, .bind = {tb, tc}, .stats = 1};
    sam_graph g;
    graph_run out;
    run_complete(&ls, &g, &out);
    write_stats(&out, stats);
    assert_int_equal(test_field(&out, "cycles"), 17);
    /* Blocks 12 and 14 of the graph: the crdhold and the accumulator; 9
     * and 10, B's and C's values. */
    static const struct { const char *id; long long first, last, busy; } lone_blocks[] = {
        {"12", 1, 10, 6}, {"14", 9, 15, 7}, {"9", 11, 12, 2}, {"10", 9, 10, 2}};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(stats_cell(stats, "block", lone_blocks[k].id, NULL, "first_cycle"),
                         lone_blocks[k].first);
        assert_int_equal(stats_cell(stats, "block", lone_blocks[k].id, NULL, "last_cycle"),
                         lone_blocks[k].last);
        assert_int_equal(stats_cell(stats, "block", lone_blocks[k].id, NULL, "busy"),
                         lone_blocks[k].busy);
    }
    test_graph_run_free(&g, &out);
    static const struct { const char *hw; long long cycles; } cases[] = {
        {"pe.buffering = 4\n", 38},
        {"pe.buffering = 4\npe.stream = 0\n", 38},
        {"pe.buffering = 4\npe.stream = 1\n", 32},
        {"pe.stream = 1\n", 36},
        {"pe.buffering = 1\npe.stream = 1\n", 54},
        {"pe.stream = 1\npe.release = 1\n", 32},
        {"pe.buffering = 1\npe.stream = 1\npe.release = 1\n", 46},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char hw[256];
        snprintf(hw, sizeof hw, "dram.latency = 0\ndram.bandwidth = 1000000\nllb.capacity = 0\n%s",
                 cases[i].hw);
        record_product(dir, graph, b, c, hw, &g, &out);
        double cycles = test_field(&out, "cycles"), tiles = test_field(&out, "tiles_run");
        double compute = test_field(&out, "compute_cycles");
        if (cycles != cases[i].cycles || tiles != 3 || compute != 51)
            fail_msg("%s: %g cycles, %g tiles run, %g compute cycles", cases[i].hw, cycles, tiles,
                     compute);
        test_graph_run_free(&g, &out);
    }
    free(b), free(c), free(lone_b), free(lone_c), free(lone), free(graph), free(stats);
    test_tmpdir_remove(dir);
}

/* llb.eager, through a tiled run's walk ahead: walked output-stationary
 * (i1 j1 k1 outermost), each PE tile of X is final once its k01 points are
 * done and goes on to DRAM while later ones compute, so the run ends
 * sooner (DRAM, at 8 bytes a cycle, is not what binds it; where it is,
 * the tiles sent early delay the operands' and the run ends later);
 * walked k1 first, an LLB tile of X comes back at every k1 and only its
 * last stay sends PE tiles on. Either way DRAM moves the same bytes and X
 * checks. */
static void test_eager_result_tiles(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_path(dir, "b.tns"), *c = test_path(dir, "c.tns");
    char *stats = test_path(dir, "s.csv");
    gen_file(b, "32x32", 0.3, 5);
    gen_file(c, "32x32", 0.3, 6);
    static const char *const orders[] = {"tileorder(i1,j1,k1,i01,j01,k01)",
                                         "tileorder(k1,i1,j1,i01,j01,k01)"};
    for (int o = 0; o < 2; o++) {
        char args[512];
        sam_graph g[2];
        graph_run runs[2];
        snprintf(args, sizeof args, MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) "
                 "-s=split(i,i1,i0,16) -s=split(k,k1,k0,16) -s=split(j,j1,j0,16) "
                 "-s=split(i0,i01,i00,8) -s=split(k0,k01,k00,8) -s=split(j0,j01,j00,8) -s=%s",
                 orders[o]);
        char *graph = test_compile_to(dir, "eager", args);
        for (int eager = 0; eager <= 1; eager++) {
            char hw[256];
            snprintf(hw, sizeof hw, "dram.bandwidth = 8\npe.count = 4\npe.dynamic = 1\n"
                     "pe.merge = 1\nllb.eager = %d\n", eager);
            record_product(dir, graph, b, c, hw, &g[eager], &runs[eager]);
            /* Output-stationary, the LLB writes X's 4 LLB tiles; sending
             * on, each of its 16 PE tiles once, at its last point, but the
             * last, which the last LLB tile writes. */
            if (o == 0)
                assert_int_equal(stats_cell(stats, "tensor", "X", "llb", "tiles_fetched"),
                                 eager ? 16 : 4);
        }
        assert_true(test_field(&runs[0], "dram_bytes") == test_field(&runs[1], "dram_bytes"));
        assert_true(test_field(&runs[0], "traffic.X") == test_field(&runs[1], "traffic.X"));
        if (o == 0)
            assert_true(test_field(&runs[1], "cycles") < test_field(&runs[0], "cycles"));
        test_graph_run_free(&g[0], &runs[0]), test_graph_run_free(&g[1], &runs[1]);
        free(graph);
    }
    free(b), free(c), free(stats);
    test_tmpdir_remove(dir);
}

/* The result's tile must fit its buffer as it grows, as the operands'
 * tiles must (it was never checked). Worked by hand at 4 bytes a
 * coordinate, seg entry or value, DCSR:
 * (1) X = B C, B 4x1 and C 1x4 all ones, i cut once (one tile), no LLB:
 *     B stores 4 + 4 coordinates, 2 + 5 seg entries, 4 values: 76 bytes;
 *     C 1 + 4, 2 + 2, 4: 52; X, 4x4 full, 4 + 16, 2 + 5, 16: 172. The PE
 *     buffer holds the three at once: 300 bytes, its peak; at 299 X does
 *     not fit beside B and C, and at 128 (B and C exactly) X alone not.
 * (2) X = B C on 4x4 all ones, LLB tiles 4 a side (B, C and X whole, 172
 *     bytes each), PE tiles 2: the LLB holds 516 bytes at most, its
 *     peak; at 515, X does not fit once it is whole, when the points of
 *     rows 2-3 at k01 = 0 have reached its last column (loops i01, k01,
 *     j01, every product nonzero). */
static void test_result_tile_capacity(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *col = test_write_file(dir, "col4.mtx", col4), *row = test_write_file(dir, "row4.mtx", row4);
    char *ones = test_write_file(dir, "ones.mtx", ones4), *stats = test_path(dir, "s.csv");
    char *op = test_compile_to(dir, "op", MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) "
                               "-s=split(i,i1,i0,4)");
    char *two = test_compile_to(dir, "two", MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) "
                                "-s=split(i,i1,i0,4) -s=split(k,k1,k0,4) -s=split(j,j1,j0,4) "
                                "-s=split(i0,i01,i00,2) -s=split(k0,k01,k00,2) "
                                "-s=split(j0,j01,j00,2)");
    static const struct {
        int two_levels;
        const char *hw, *message;   /* NULL: it runs */
    } cases[] = {
        {0, "llb.capacity = 0\npe.capacity = 128\n",
         "samsim: tile (i1=0) of X (172 bytes) does not fit in the pe buffer (128 bytes)\n"},
        {0, "llb.capacity = 0\npe.capacity = 299\n",
         "samsim: tile (i1=0) of X (172 bytes) does not fit in the pe buffer beside the point's "
         "other tiles\n"},
        {0, "llb.capacity = 0\npe.capacity = 300\n", NULL},
        {1, "llb.capacity = 515\n",
         "samsim: tile (i1=0,k1=0,j1=0,i01=1,k01=0,j01=1) of X (172 bytes) does not fit in the "
         "llb buffer beside the point's other tiles\n"},
        {1, "llb.capacity = 516\n", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char hw[128], *text;
        snprintf(hw, sizeof hw, "bytes.val = 4\n%s", cases[i].hw);
        int two_levels = cases[i].two_levels;
        const char *graph = two_levels ? two : op, *b = two_levels ? ones : col;
        const char *c = two_levels ? ones : row;
        if (cases[i].message) {
            int rc = run_product(dir, graph, b, c, hw, &text);
            if (rc != 1 || strcmp(text, cases[i].message))
                fail_msg("%s: exit %d: %s", cases[i].hw, rc, text);
            free(text);
            continue;
        }
        sam_graph g;
        graph_run out;
        record_product(dir, graph, b, c, hw, &g, &out);
        const char *buffer = two_levels ? "llb" : "pe";
        assert_int_equal(test_field(&out, "traffic.X"), 172);
        assert_int_equal(stats_cell(stats, "memory", buffer, NULL, "peak_bytes"),
                         two_levels ? 516 : 300);
        assert_int_equal(stats_cell(stats, "tensor", "X", buffer, "peak_bytes"), 172);
        test_graph_run_free(&g, &out);
    }
    free(col), free(row), free(ones), free(stats), free(op), free(two);
    test_tmpdir_remove(dir);
}

static const char ones2[] = "%%MatrixMarket matrix coordinate real general\n2 2 4\n"
                            "1 1 1\n1 2 1\n2 1 1\n2 2 1\n";

/* A run of graph on B = C = ones as s asks besides, in this process, its
 * statistics into dir/NAME.csv as --stats writes them: its status, and
 * its report (malloc'd) in *report. */
static int stall_run(const char *dir, const char *graph, const char *ones, const char *name,
                     test_run_spec s, char **report)
{
    char bind_b[512], bind_c[512], file[64], msg[512];
    snprintf(bind_b, sizeof bind_b, "B=%s", ones);
    snprintf(bind_c, sizeof bind_c, "C=%s", ones);
    snprintf(file, sizeof file, "%s.csv", name);
    s.graph = graph, s.bind[0] = bind_b, s.bind[1] = bind_c, s.stats = 1;
    sam_graph g;
    graph_run run;
    int rc = test_graph_run(&s, &g, &run, msg, sizeof msg);
    if (rc < 0)
        fail_msg("%s: %s", name, msg);
    char *stats = test_path(dir, file);
    write_stats(&run, stats);
    *report = strdup(run.report);
    test_graph_run_free(&g, &run);
    free(stats);
    return rc;
}

/* The statistics file dir/NAME.csv. */
static char *stats_text(const char *dir, const char *name)
{
    char file[64];
    snprintf(file, sizeof file, "%s.csv", name);
    char *path = test_path(dir, file), *text = test_read_file(path);
    assert_non_null(text);
    free(path);
    return text;
}

/* What a stalled run's report says its blocks wait on: the lines after
 * its headline, which name the run's cycle and tile. */
static void assert_same_waits(const char *a, const char *b)
{
    const char *wa = strchr(a, '\n'), *wb = strchr(b, '\n');
    assert_true(wa && wb);
    if (strcmp(wa, wb))
        fail_msg("the blocks wait on other channels:\n%s\n%s", a, b);
    assert_true(wa[1] != '\0');
}

/* The first cycle number after `after` in text. */
static long long number_after(const char *text, const char *after)
{
    const char *at = strstr(text, after);
    if (!at)
        fail_msg("no '%s' in: %s", after, text);
    return atoll(at + strlen(after));
}

/* --max-cycles bounds a tiled run as a whole, and a tile point that
 * deadlocks or is stopped ends the run as an untiled run ends: exit 2,
 * the report, statistics up to the cycle it stopped in. The references
 * are untiled runs: a tile as large as the operands is the untiled run,
 * statistics and all; the product of 4x4 all ones in 2x2x2 tiles runs
 * the untiled graph on 2x2 all ones at each point, so its first point
 * deadlocks (--depth 1) or stops where that run does, and a stop at
 * cycle 50 in a later point from cycle S holds the first point's tokens
 * and those of the untiled run stopped after 50 - S cycles. */
static void test_max_cycles_bounds_the_run(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *ones = test_write_file(dir, "ones.mtx", ones4), *two = test_write_file(dir, "two.mtx", ones2);
    char *plain = test_compile_to(dir, "plain", MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)");
    char *tiled = test_compile_to(dir, "tiled", MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) "
                                  "-s=split(i,i1,i0,2) -s=split(k,k1,k0,2) -s=split(j,j1,j0,2)");
    char *hw = test_write_file(dir, "h.hw", "llb.capacity = 0\n"), *se, *a, *b;
    static const test_run_spec stalls[] = {{.max_cycles = 50},
                                           {.config = {"channel.capacity=1"}}};
    for (int k = 0; k < 2; k++) {
        /* One tile: the untiled run's report and statistics. */
        test_run_spec one = stalls[k], first = k ? stalls[1] : (test_run_spec){.max_cycles = 20};
        one.tile = "split(i,i1,i0,4)";
        assert_int_equal(stall_run(dir, plain, ones, "whole", stalls[k], &a), 2);
        assert_int_equal(stall_run(dir, plain, ones, "one", one, &b), 2);
        assert_same_waits(a, b);
        char *ta = stats_text(dir, "whole"), *tb = stats_text(dir, "one");
        assert_string_equal(ta, tb);
        free(a), free(b), free(ta), free(tb);
        /* The first of eight points: the untiled run on its tiles. */
        assert_int_equal(stall_run(dir, plain, two, "small", first, &a), 2);
        assert_int_equal(stall_run(dir, tiled, ones, "first", first, &b), 2);
        char want[512];
        if (k)
            snprintf(want, sizeof want, "deadlock at cycle %lld in tile (i1=0,k1=0,j1=0) (from "
                     "cycle 0)\n", number_after(a, "deadlock at cycle "));
        else
            snprintf(want, sizeof want, "stopped after 20 cycles in tile (i1=0,k1=0,j1=0) (from "
                     "cycle 0)\n");
        assert_non_null(strstr(b, want));
        assert_same_waits(a, b);
        ta = stats_text(dir, "small"), tb = stats_text(dir, "first");
        assert_string_equal(ta, tb);
        free(a), free(b), free(ta), free(tb);
    }
    /* Stopped in a later point. */
    char *stats = test_path(dir, "later.csv"), *small = test_path(dir, "small.csv");
    assert_int_equal(stall_run(dir, plain, two, "small", (test_run_spec){0}, &se), 0);
    free(se);
    long long first = stats_cell(small, "run", "", NULL, "tokens");
    assert_int_equal(stall_run(dir, tiled, ones, "later", (test_run_spec){.max_cycles = 50}, &se),
                     2);
    long long from = number_after(se, "stopped after 50 cycles in tile (i1=0,k1=0,j1=1) (from cycle ");
    free(se);
    assert_true(from > 0 && from < 50);
    test_run_spec rest = {.max_cycles = (uint64_t)(50 - from)};
    assert_int_equal(stall_run(dir, plain, two, "small", rest, &se), 2);
    free(se);
    assert_int_equal(stats_cell(stats, "run", "", NULL, "tokens"),
                     first + stats_cell(small, "run", "", NULL, "tokens"));
    assert_int_equal(stats_cell(stats, "run", "", NULL, "last_cycle"), 49);
    /* The whole run's cycles are the bound: N of them complete, N - 1
     * not, with memories as without (their waits counted). */
    char bind_b[512], bind_c[512], msg[512];
    snprintf(bind_b, sizeof bind_b, "B=%s", ones);
    snprintf(bind_c, sizeof bind_c, "C=%s", ones);
    for (int m = 0; m < 2; m++) {
        test_run_spec s = {.graph = tiled, .bind = {bind_b, bind_c}, .hw = m ? hw : NULL,
                           .max_cycles = 1000000};
        sam_graph g;
        graph_run full;
        run_complete(&s, &g, &full);
        double cycles = test_field(&full, "cycles");
        test_graph_run_free(&g, &full);
        s.max_cycles = (uint64_t)cycles;
        run_complete(&s, &g, &full);
        assert_true(test_field(&full, "cycles") == cycles);
        test_graph_run_free(&g, &full);
        s.max_cycles = (uint64_t)cycles - 1;
        assert_int_equal(test_graph_run(&s, &g, &full, msg, sizeof msg), 2);
        assert_non_null(strstr(full.report, "stopped after "));
        test_graph_run_free(&g, &full);
    }
    free(ones), free(two), free(plain), free(tiled), free(hw), free(stats), free(small);
    test_tmpdir_remove(dir);
}

/* The most memory (kB) samsim held running args (NULL-terminated), and
 * its exit status: run from a child process of its own, whose children's
 * peak is then samsim's alone. */
static long peak_kb(const char *const *args, int *rc)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        long got[2] = {0, test_run_samsim_argv(NULL, NULL, args)};
        struct rusage ru;
        getrusage(RUSAGE_CHILDREN, &ru);
        got[0] = ru.ru_maxrss;
        _exit(write(fd[1], got, sizeof got) == sizeof got ? 0 : 1);
    }
    close(fd[1]);
    long got[2];
    int status;
    assert_true(read(fd[0], got, sizeof got) == sizeof got);
    close(fd[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    *rc = (int)got[1];
    return got[0];
}

/* 4096 processing elements on a product of eight tile points: the PEs no
 * point goes to cost nothing (each PE's buffers were allocated for 16
 * operands of 64 slots whatever the run: 135 MB). */
static void test_many_pes_cost_what_is_used(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *ones = test_write_file(dir, "ones.mtx", ones4);
    char *one = test_write_file(dir, "one.hw", "pe.count = 1\n");
    char *many = test_write_file(dir, "many.hw", "pe.count = 4096\n");
    char *graph = test_compile_to(dir, "mm", MM "-f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) "
                                  "-s=split(i,i1,i0,2) -s=split(k,k1,k0,2) -s=split(j,j1,j0,2)");
    char bind_b[512], bind_c[512];
    snprintf(bind_b, sizeof bind_b, "B=%s", ones);
    snprintf(bind_c, sizeof bind_c, "C=%s", ones);
    const char *args[] = {"run", graph, "-t", bind_b, "-t", bind_c, "--check", "--hw", one, NULL};
    int rc;
    long base = peak_kb(args, &rc);
    assert_int_equal(rc, 0);
    args[8] = many;
    long used = peak_kb(args, &rc);
    assert_int_equal(rc, 0);
    if (used - base > 4096)
        fail_msg("pe.count = 4096 took %ld kB, pe.count = 1 %ld kB", used, base);
    free(ones), free(one), free(many), free(graph);
    test_tmpdir_remove(dir);
}

/* Binds operand name of r to the tensor in file path. */
static int trun_bind_file(trun *r, const char *name, const char *path, sam_error *err)
{
    tensor t;
    tensor_file f = {.path = path, .name = name};
    if (tensor_file_read(&f, &t, err))
        return -1;
    if (trun_bind(r, name, &t, err)) {
        tensor_free(&t);
        return -1;
    }
    return 0;
}

/* The template directory tdir run in this process on A = B = the tensor
 * in file path, as `samsim run DIR --check` runs it: the check must pass. */
static void template_passes(const char *tdir, const char *path)
{
    template_dir *d = calloc(1, sizeof *d);
    trun r;
    sam_error err;
    char verdict[64];
    assert_non_null(d);
    trun_init(&r, ENGINE_EVENT, 0);
    if (template_dir_read(tdir, d, &err) || trun_bind_file(&r, "A", path, &err) ||
        trun_bind_file(&r, "B", path, &err))
        fail_msg("%s: %s", tdir, err.msg);
    int wrong = trun_run_dir(&r, d, &err);
    if (!wrong)
        wrong = trun_check(&r, tdir, d->expr, verdict, sizeof verdict, &err);
    if (wrong < 0)
        fail_msg("%s: %s", tdir, err.msg);
    if (wrong || strncmp(verdict, "pass", 4))
        fail_msg("%s: check: %s", tdir, verdict);
    trun_free(&r);
    template_dir_free(d);
    free(d);
}

/* Three entries declared 2e9 x 2e9 through the templates' tilings
 * (ExTensor's tiles of 4096 then 128 a side, SIGMA's 128 deep): each
 * level was a list of its tiles' first coordinates, 15.6 million of
 * them, 380 MB for ExTensor and 128 MB before SIGMA's refusal of its
 * dense bitvector. Their cost now follows the entries: both pass --check
 * in a few MB (SIGMA's B, which its hardware stores dense, is counted,
 * not built, beyond the columns its points fetch). */
static void test_huge_dims_cost_the_entries(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *mtx = test_write_file(dir, "h.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                "2000000000 2000000000 3\n1 1 1\n1999999995 2 2\n"
                                "2 1999999999 3\n");
    char bind_a[512], bind_b[512], *se;
    snprintf(bind_a, sizeof bind_a, "A=%s", mtx);
    snprintf(bind_b, sizeof bind_b, "B=%s", mtx);
    static const char *const templates[] = {"extensor", "sigma"};
    char *tdir[2];
    for (int k = 0; k < 2; k++) {
        tdir[k] = test_path(dir, templates[k]);
        assert_int_equal(test_run_samsim(NULL, NULL, "template", templates[k], "-o", tdir[k],
                                         NULL), 0);
        const char *args[] = {"run", tdir[k], "-t", bind_a, "-t", bind_b, "--check", NULL};
        int rc;
        long kb = peak_kb(args, &rc);
        if (kb > 64 * 1024)
            fail_msg("%s took %ld kB", templates[k], kb);
    }
    /* Only once both peaks are measured: a run here leaves this process
     * larger (under the sanitizers, by far), and samsim, spawned from a
     * fork of it, starts its peak at the fork's resident memory. */
    for (int k = 0; k < 2; k++) {
        template_passes(tdir[k], mtx);
        free(tdir[k]);
    }
    /* A tile that needs dense storage is refused naming it. */
    char *wide = test_write_file(dir, "w.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                 "4 2000000000 2\n1 1 1\n3 5 2\n");
    char *graph = test_compile_to(dir, "bv", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:sb "
                                  "-s=split(i,i1,i0,2)");
    snprintf(bind_a, sizeof bind_a, "B=%s", wide);
    snprintf(bind_b, sizeof bind_b, "C=%s", wide);
    assert_int_equal(test_run_samsim(NULL, &se, "run", graph, "-t", bind_a, "-t", bind_b, NULL), 1);
    if (!strstr(se, ": tile (i1=0) of C: bitvector level 1 would hold 1 x 31250000 words") ||
        strchr(se, '\n') != se + strlen(se) - 1)
        fail_msg("%s", se);
    free(se), free(wide), free(graph), free(mtx);
    test_tmpdir_remove(dir);
}

/* Tiled runs refused in one line, writing nothing: --hw without tiles, a
 * bad split, a graph without its expression. */
static void test_tiled_refusals(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "b4.mtx", b4), *c = test_write_file(dir, "c4.mtx", c4);
    char *hw = test_write_file(dir, "t.hw", "bytes.val = 8\n");
    char *graph = test_compile_to(dir, "em", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss");
    char *bare = test_path(dir, "bare.gv"), *stats = test_path(dir, "s.csv");
    char *text = test_read_file(graph), *expr = strstr(text, "    expr=");
    memmove(expr, strchr(expr, '\n') + 1, strlen(strchr(expr, '\n') + 1) + 1);
    free(test_write_file(dir, "bare.gv", text));
    char tb[512], tc[512];
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    const struct {
        const char *graph, *opt, *value, *message;
    } bad[] = {
        {graph, "--hw", hw, "--hw models the memories tiles travel through"},
        {graph, "--tile", "split(q,q1,q0,2)", "split(q,q1,q0,2): no index q in the expression"},
        {bare, "--tile", "split(i,i1,i0,2)", "a tiled run needs the expression"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *se = NULL;
        int rc = test_run_samsim(NULL, &se, "run", bad[i].graph, "-t", tb, "-t", tc, bad[i].opt,
                                 bad[i].value, "--stats", stats, NULL);
        if (rc != 1 || !strstr(se, bad[i].message) || strchr(se, '\n') != se + strlen(se) - 1)
            fail_msg("%s %s: exit %d: %s", bad[i].opt, bad[i].value, rc, se);
        assert_null(test_read_file(stats));
        free(se);
    }
    free(b), free(c), free(hw), free(graph), free(bare), free(stats), free(text);
    test_tmpdir_remove(dir);
}

int main(void)
{
    /* The peaks first, measured through children forked from this
     * process before its own runs leave it larger. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_pes_cost_what_is_used),
        cmocka_unit_test(test_huge_dims_cost_the_entries),
        cmocka_unit_test(test_tiled_kernels_check),
        cmocka_unit_test(test_one_tile_is_the_whole),
        cmocka_unit_test(test_split_reduction_summed_in_place),
        cmocka_unit_test(test_tiles_run_counted),
        cmocka_unit_test(test_traffic_by_hand),
        cmocka_unit_test(test_cached_operand),
        cmocka_unit_test(test_bandwidth_bound),
        cmocka_unit_test(test_traffic_at_least_the_minimum),
        cmocka_unit_test(test_memory_refusals),
        cmocka_unit_test(test_result_tile_capacity),
        cmocka_unit_test(test_streamed_points),
        cmocka_unit_test(test_eager_result_tiles),
        cmocka_unit_test(test_max_cycles_bounds_the_run),
        cmocka_unit_test(test_tiled_refusals),
    };
    return cmocka_run_group_tests_name("tiled", tests, NULL, NULL);
}
