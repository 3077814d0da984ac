/* The dense implementations of spaccumulator and vectorreducer against
 * the default sparse ones: the dense array's read-out timing on its own,
 * cycle-exact streams worked out by hand, equal streams (and, with a scan
 * wide enough and enough banks, equal cycles) on generated inputs, and
 * compiled matmul kernels run end to end with impl="dense" on generated
 * matrices. In the harness input token k is visible in cycle k. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "../blocks/dense_acc.h"
#include "test_harness.h"
#include "test_util.h"

/* ---- the dense array ---------------------------------------------------- */

/* The read-out as letters: E an entry, S an empty word passed. */
static void expect_readout(dense_acc *a, const char *want)
{
    char got[64];
    int n = 0;
    int64_t r, c;
    double v;
    for (dense_acc_out o; n < 60 && (o = dense_acc_read(a, &r, &c, &v)) != DENSE_IDLE;)
        got[n++] = o == DENSE_ENTRY ? 'E' : 'S';
    got[n] = '\0';
    assert_string_equal(got, want);
}

/* Scan 4, one row: entries at 1, 6, 13, 14 lie in words 0, 1, 3, 3. The
 * read-out emits 1 (word 0) and 6 (word 1) in consecutive cycles, passes
 * the empty word 2 in one cycle, then emits 13 and 14: 4 entries + 1 empty
 * word = 5 cycles. Reading empties the array for the next run. */
static void test_dense_acc_one_row(void **state)
{
    (void)state;
    dense_acc a;
    dense_acc_init(&a, 1, 0, 4);
    const char *fault = NULL;
    const int64_t cols[] = {14, 6, 1, 13, 6};
    const double vals[] = {1, 2, 3, 4, 5};
    for (int k = 0; k < 5; k++)
        assert_int_equal(dense_acc_add(&a, 0, cols[k], vals[k], &fault), 0);
    int64_t r, c;
    double v;
    const int64_t want_c[] = {1, 6, -1, 13, 14};
    const double want_v[] = {3, 7, 0, 4, 1};
    for (int k = 0; k < 5; k++) {
        dense_acc_out o = dense_acc_read(&a, &r, &c, &v);
        assert_int_equal(o, want_c[k] < 0 ? DENSE_SCAN : DENSE_ENTRY);
        if (want_c[k] >= 0) {
            assert_int_equal(c, want_c[k]);
            assert_true(v == want_v[k]);
        }
    }
    assert_int_equal(dense_acc_read(&a, &r, &c, &v), DENSE_IDLE);
    assert_int_equal(dense_acc_add(&a, 0, 40, 1.0, &fault), 0);
    expect_readout(&a, "E");
    dense_acc_free(&a);
}

/* Two dimensions, 3 x 10, scan 4: a row is 3 words (the last padded), so
 * (0, 9) is in word 2 and (2, 0) in word 6; the read-out passes words 3-5,
 * row 1, untouched but walked all the same. Coordinates beyond the
 * dimensions, or an array beyond the size limit, are faults. */
static void test_dense_acc_rows(void **state)
{
    (void)state;
    dense_acc a;
    dense_acc_init(&a, 3, 10, 4);
    const char *fault = NULL;
    assert_int_equal(dense_acc_add(&a, 2, 0, 1.0, &fault), 0);
    assert_int_equal(dense_acc_add(&a, 0, 9, 1.0, &fault), 0);
    expect_readout(&a, "ESSSE");
    assert_int_equal(dense_acc_add(&a, 1, 10, 1.0, &fault), 1);
    assert_non_null(strstr(fault, "beyond the dimension"));
    assert_int_equal(dense_acc_add(&a, 3, 0, 1.0, &fault), 1);
    dense_acc_free(&a);
    dense_acc_init(&a, 0, 0, 1);
    assert_int_equal(dense_acc_add(&a, 0, DENSE_ACC_MAX_SLOTS, 1.0, &fault), 1);
    assert_non_null(strstr(fault, "size limit"));
    dense_acc_free(&a);
}

/* ---- spaccumulator, cycle-exact ------------------------------------------ */

#define ORDER1 "order=1,in0=j,in1=i"
#define ORDER2 "order=2,in0=j,in1=i"

static void spacc(const block_ops *ops, const char *attrs, const char *const in[3],
                  const char *out_outer, const char *out_inner, const char *out_val)
{
    harness_spec s = {.ops = ops, .attrs = attrs, .inputs = {in[0], in[1], in[2]}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, out_outer, 1);
    harness_expect(&out, 1, out_inner, 1);
    harness_expect(&out, 2, out_val, 1);
    harness_free(&out);
}

/* SAM-BLOCKS.md 5.16's vector: runs of outer 0 and 2, each with inner
 * coordinates 0, 2, 3. Point k is taken in cycle k+1 (the StknDrops), so
 * run 0 completes in cycle 4 (the first point of outer 2) and run 2 in
 * cycle 10 (the 'D'). The default emits each run back to back from those
 * cycles (values 50 5 10 in 4-6, 0 37 44 in 10-12, 'D' in 13). */
static const char *const spacc1_in[3] = {"0 0 0 2 2 2 2 2 2 D", "0 2 3 0 2 3 0 2 3 D",
                                         "50 5 10 40 4 8 -40 33 36 D"};

/* Dense, scan 1 (a word per slot): reading run 0 emits column 0 in cycle
 * 4, passes the empty slot 1 in cycle 5, emits 2 and 3 in cycles 6 and 7;
 * run 2 likewise in 10, (11), 12, 13, and the val output's 'D' follows in
 * 14, a cycle later than the default. The converter meets the point (2,0)
 * in cycle 10 and spends cycle 10 on S0, so its crd outputs catch up: they
 * end as the default's do. */
static void test_spacc_dense_order1(void **state)
{
    (void)state;
    spacc(&spaccumulator_dense_ops, ORDER1 ",scan=1", spacc1_in,
          "_ _ _ _ 0 _ _ _ _ _ _ 2 _ _ S0 D", "_ _ _ _ 0 _ 2 3 _ _ S0 0 2 3 S1 D",
          "_ _ _ _ 50 _ 5 10 _ _ 0 _ 37 44 D");
    /* scan 2: columns 0 | 2 3 lie in words 0 and 1, nothing to pass: the
     * default's timing exactly. */
    spacc(&spaccumulator_dense_ops, ORDER1 ",scan=2", spacc1_in,
          "_ _ _ _ 0 _ _ _ _ _ _ 2 _ _ S0 D", "_ _ _ _ 0 2 3 _ _ _ S0 0 2 3 S1 D",
          "_ _ _ _ 50 5 10 _ _ _ 0 37 44 D");
}

/* One bank: run 0 is read out in cycles 4-7 as above, and the first point
 * of run 2 waits for the bank until cycle 8; its six points are taken in
 * 8-13 and the 'D' in 14, so run 2 leaves in 14, (15), 16, 17 and the
 * val's 'D' in 18. The converter: S0 in 14, (2, 0) in 15, 2 and 3 in 16
 * and 17, the closing stops in 18, 'D' in 19. */
static void test_spacc_dense_one_bank(void **state)
{
    (void)state;
    spacc(&spaccumulator_dense_ops, ORDER1 ",scan=1,banks=1", spacc1_in,
          "_ _ _ _ 0 _ _ _ _ _ _ _ _ _ _ 2 _ _ S0 D",
          "_ _ _ _ 0 _ 2 3 _ _ _ _ _ _ S0 0 2 3 S1 D",
          "_ _ _ _ 50 _ 5 10 _ _ _ _ _ _ 0 _ 37 44 D");
}

/* 5.17's first vector: rows 0 (columns 0 2 3) and 1 (columns 0 2 3 4),
 * read out after the 'D' of cycle 10; the default emits the 7 points in
 * 10-16 and 'D' in 17. Dense, scan 1, with no dimensions known: a row is
 * as wide as the largest column + 1 = 5 slots, so the entries lie in words
 * 0 2 3 | 5 7 8 9 and the read-out passes words 1, 4 and 6: entries in
 * 10, 12, 13, 15, 17, 18, 19, 'D' in 20. The converter puts S0 before
 * (1, 0) in cycle 15 and is a cycle behind from there. */
static void test_spacc_dense_order2(void **state)
{
    (void)state;
    const char *const in[3] = {"0 0 0 1 1 1 1 0 0 D", "0 2 3 0 2 3 4 2 3 D",
                               "50 5 10 40 4 8 -40 33 36 D"};
    spacc(&spaccumulator_dense_ops, ORDER2 ",scan=1", in,
          "_ _ _ _ _ _ _ _ _ _ 0 _ _ _ _ _ 1 _ _ _ S0 D",
          "_ _ _ _ _ _ _ _ _ _ 0 _ 2 3 _ S0 0 2 3 4 S1 D",
          "_ _ _ _ _ _ _ _ _ _ 50 _ 38 46 _ 40 _ 4 8 -40 D");
    /* scan 8: each row is one word, consecutive: the default's timing. */
    spacc(&spaccumulator_dense_ops, ORDER2 ",scan=8", in,
          "_ _ _ _ _ _ _ _ _ _ 0 _ _ _ 1 _ _ _ S0 D",
          "_ _ _ _ _ _ _ _ _ _ 0 2 3 S0 0 2 3 4 S1 D",
          "_ _ _ _ _ _ _ _ _ _ 50 38 46 40 4 8 -40 D");
}

static void test_spacc_dense_bad_attributes(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"scan", "0"}, {"banks", "0"}, {"scan", "wide"}, {"banks", "2000"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        graph_attr attrs[] = {{"order", "1"}, {"in0", "j"}, {"in1", "i"},
                              {(char *)cases[k][0], (char *)cases[k][1]}};
        graph_node node = {"7", "spaccumulator", attrs, 4};
        block_ctx ctx = {.node = &node};
        block b = {.ops = &spaccumulator_dense_ops, .node = &node};
        sam_error err;
        assert_int_equal(spaccumulator_dense_ops.create(&b, &ctx, &err), -1);
        if (!strstr(err.msg, cases[k][0]))
            fail_msg("%s=%s: message '%s'", cases[k][0], cases[k][1], err.msg);
        assert_null(b.state);
    }
}

/* ---- equal streams on generated inputs ---------------------------------- */

#define MAX_CYCLES 500

/* Runs both implementations on the same inputs: the bubble-free streams
 * of every output must be equal and both must finish; with same_timing,
 * cycle for cycle. */
static void compare(const block_ops *a, const block_ops *b, const char *attrs_a,
                    const char *attrs_b, const char *const *in, int nin, int same_timing)
{
    harness_spec s = {.ops = a, .attrs = attrs_a, .cycles = MAX_CYCLES};
    for (int p = 0; p < nin; p++)
        s.inputs[p] = in[p];
    harness_out x, y;
    harness_run(&s, &x);
    s.ops = b;
    s.attrs = attrs_b;
    harness_run(&s, &y);
    for (int p = 0; p < x.blk.nout; p++) {
        int i = 0, j = 0, ended = 0;
        for (;; i++, j++) {
            while (i < x.ncycles && !x.has[p][i])
                i++;
            while (j < y.ncycles && !y.has[p][j])
                j++;
            if (i == x.ncycles || j == y.ncycles)
                break;
            char ta[32], tb[32];
            if (!token_equal(x.tok[p][i], y.tok[p][j]) || (same_timing && i != j))
                fail_msg("output %d: %s in cycle %d against %s in cycle %d", p,
                         token_str(x.tok[p][i], ta), i, token_str(y.tok[p][j], tb), j);
            ended = token_is_done(x.tok[p][i]);
        }
        assert_int_equal(i, x.ncycles);
        assert_int_equal(j, y.ncycles);
        assert_true(ended);
    }
    harness_free(&x);
    harness_free(&y);
}

static int next_rand(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (int)(*seed >> 16 & 0x7fff);
}

static void append(char *buf, size_t n, const char *fmt, long long x)
{
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, fmt, x);
}

/* Order 1: runs of outer coordinates (some recurring) with inner
 * coordinates below 48; order 2: points over 6 x 16, every row touched
 * first so that no row lies empty between two touched ones. */
static void gen_points(unsigned seed, int order, char in[3][2048])
{
    for (int p = 0; p < 3; p++)
        in[p][0] = '\0';
    for (int k = 0; k < 48; k++) {
        long long o = order == 1 ? (k / 8 * 3) % 7 : k < 6 ? k : next_rand(&seed) % 6;
        long long i = next_rand(&seed) % (order == 1 ? 48 : 16);
        append(in[0], 2048, "%lld ", o);
        append(in[1], 2048, "%lld ", i);
        append(in[2], 2048, "%lld.1 ", (long long)(next_rand(&seed) % 19) - 9);
    }
    for (int p = 0; p < 3; p++)
        strcat(in[p], "D");
}

static void test_spacc_dense_equal_streams(void **state)
{
    (void)state;
    char in[3][2048];
    for (unsigned seed = 1; seed <= 4; seed++) {
        const char *ptrs[3] = {in[0], in[1], in[2]};
        gen_points(seed, 1, in);
        compare(&spaccumulator_ops, &spaccumulator_dense_ops, ORDER1, ORDER1 ",scan=1", ptrs, 3, 0);
        compare(&spaccumulator_ops, &spaccumulator_dense_ops, ORDER1, ORDER1 ",banks=1", ptrs, 3,
                0);
        compare(&spaccumulator_ops, &spaccumulator_dense_ops, ORDER1,
                ORDER1 ",scan=64,banks=8", ptrs, 3, 1);
        gen_points(seed, 2, in);
        compare(&spaccumulator_ops, &spaccumulator_dense_ops, ORDER2, ORDER2 ",scan=1", ptrs, 3, 0);
        compare(&spaccumulator_ops, &spaccumulator_dense_ops, ORDER2, ORDER2 ",scan=16", ptrs, 3,
                1);
    }
}

/* One-dimensional accumulation (vec_spacc_simple's wiring). */
static void test_spacc_dense_onedim(void **state)
{
    (void)state;
    const char *in[3] = {"_ 0 1 3 S0 D", "_ _ 0 2 S0 1 S0 0 3 S1 D",
                         "_ _ _ 1.0 2.0 S0 3.0 S0 4.0 5.0 S1 D"};
    compare(&spaccumulator_ops, &spaccumulator_dense_ops, "order=1,in0=j", "order=1,in0=j,scan=1",
            in, 3, 1);
    in[1] = "_ _ 0 9 S0 1 S0 0 3 S1 D";
    compare(&spaccumulator_ops, &spaccumulator_dense_ops, "order=1,in0=j", "order=1,in0=j,scan=1",
            in, 3, 0);
}

/* ---- vectorreducer -------------------------------------------------------- */

/* Two outer fibers, queued: "2 0 S0 0 S1" sums to 0:5 2:1, "5 S1" to 5:4.
 * The sorted default emits 0 and 2 in cycles 5 and 6 after the S1 of cycle
 * 4, S0 in 7, takes 5 and S1 in 8 and 9, emits 5 in 10, S0 in 11 and 'D'
 * in 12. Dense, scan 1: slot 1 is empty between 0 and 2, so 2 leaves in
 * 7 and everything after a cycle later; scan 2 puts 0 and 2 in adjacent
 * words: the default's timing. */
static void test_vectorreducer_dense(void **state)
{
    (void)state;
    harness_spec s = {.ops = &vectorreducer_dense_ops, .attrs = "scan=1",
                      .inputs = {"2 0 S0 0 S1 5 S1 D", "1.0 2.0 S0 3.0 S1 4.0 S1 D"},
                      .queued = 1};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, "_ _ _ _ _ 0 _ 2 S0 _ _ 5 S0 D", 1);
    harness_expect(&out, 1, "_ _ _ _ _ 5.0 _ 1.0 S0 _ _ 4.0 S0 D", 1);
    harness_free(&out);
    s.attrs = "scan=2";
    harness_run(&s, &out);
    harness_expect(&out, 0, "_ _ _ _ _ 0 2 S0 _ _ 5 S0 D", 1);
    harness_expect(&out, 1, "_ _ _ _ _ 5.0 1.0 S0 _ _ 4.0 S0 D", 1);
    harness_free(&out);
}

/* Three outer fibers of three inner fibers each, coordinates below 40. */
static void gen_fibers(unsigned seed, char in[2][2048])
{
    in[0][0] = in[1][0] = '\0';
    for (int outer = 0; outer < 3; outer++) {
        for (int inner = 0; inner < 3; inner++) {
            int n = (int)(next_rand(&seed) % 6);
            for (int k = 0; k < n; k++) {
                append(in[0], 2048, "%lld ", (long long)(next_rand(&seed) % 40));
                append(in[1], 2048, "%lld.5 ", (long long)(next_rand(&seed) % 9));
            }
            const char *stop = inner < 2 ? "S0 " : outer < 2 ? "S1 " : "S2 ";
            strcat(in[0], stop);
            strcat(in[1], stop);
        }
    }
    strcat(in[0], "D");
    strcat(in[1], "D");
}

static void test_vectorreducer_dense_equal_streams(void **state)
{
    (void)state;
    char in[2][2048];
    const char *ptrs[2] = {in[0], in[1]};
    for (unsigned seed = 1; seed <= 6; seed++) {
        gen_fibers(seed, in);
        compare(&vectorreducer_ops, &vectorreducer_dense_ops, "", "scan=1", ptrs, 2, 0);
        compare(&vectorreducer_ops, &vectorreducer_dense_ops, "", "scan=3", ptrs, 2, 0);
        compare(&vectorreducer_ops, &vectorreducer_dense_ops, "", "scan=64", ptrs, 2, 1);
    }
}

/* ---- end to end ------------------------------------------------------------ */

/* path with every type="TYPE" given the attributes extra, written to
 * dir/name; returns the new path. */
static char *with_attrs(const char *dir, const char *path, const char *type, const char *extra,
                        const char *name)
{
    char *dot = test_read_file(path), want[64];
    assert_non_null(dot);
    snprintf(want, sizeof want, "type=\"%s\"", type);
    size_t n = strlen(dot) + 64 * strlen(extra) + 1, len = 0;
    char *out = malloc(n), *from = dot;
    for (char *hit; (hit = strstr(from, want)); from = hit + strlen(want)) {
        len += (size_t)snprintf(out + len, n - len, "%.*s%s %s", (int)(hit - from), from, want,
                                extra);
        assert_true(len < n);
    }
    snprintf(out + len, n - len, "%s", from);
    assert_non_null(strstr(dot, want));
    char *result = test_write_file(dir, name, out);
    free(out);
    free(dot);
    return result;
}

/* One run with --check: its cycles, and its result in *result. */
static long long run_once(const char *dir, const char *graph, const char *const *binds,
                          char **result)
{
    char *out_path = test_path(dir, "X_once.tns"), *so = NULL, *se = NULL;
    const char *argv[16] = {"run", graph};
    int n = 2;
    for (; *binds; binds++)
        argv[n++] = "-t", argv[n++] = *binds;
    argv[n++] = "--check", argv[n++] = "-o", argv[n++] = out_path, argv[n] = NULL;
    int rc = test_run_samsim_argv(&so, &se, argv);
    if (rc || !strstr(so, "check: pass"))
        fail_msg("%s: exit %d\n%s%s", graph, rc, so, se);
    long long cycles = test_summary(so, "cycles");
    *result = test_read_file(out_path);
    free(so), free(se), free(out_path);
    return cycles;
}

/* The graph run with the default accumulator and with the dense one: the
 * dense run passes the check under every engine, its result is the
 * default's byte for byte, it takes at least the default's cycles, and as
 * many with a scan as wide as the dimension and banks to spare (a row a
 * word then; the data here leaves no result row empty between two others,
 * which would cost a cycle each). */
static void run_dense(const char *dir, const char *graph, const char *type,
                      const char *const *binds)
{
    char *dense = with_attrs(dir, graph, type, "impl=\"dense\"", "dense.dot");
    char *ideal = with_attrs(dir, graph, type, "impl=\"dense\" scan=\"1000000\" banks=\"1024\"",
                             "ideal.dot");
    const char *argv[TEST_MAX_ARGS] = {"run", dense};
    int n = 2;
    for (const char *const *b = binds; *b; b++)
        argv[n++] = "-t", argv[n++] = *b;
    argv[n] = NULL;
    test_run_engines(dense, dir, argv);
    char *r_default, *r_dense, *r_ideal;
    long long c_default = run_once(dir, graph, binds, &r_default);
    long long c_dense = run_once(dir, dense, binds, &r_dense);
    long long c_ideal = run_once(dir, ideal, binds, &r_ideal);
    assert_string_equal(r_dense, r_default);
    assert_string_equal(r_ideal, r_default);
    if (c_dense < c_default || c_ideal != c_default)
        fail_msg("%s: %lld cycles by default, %lld dense, %lld dense with a wide scan", graph,
                 c_default, c_dense, c_ideal);
    free(r_default), free(r_dense), free(r_ideal);
    free(dense), free(ideal);
}

static char *gen_matrix(const char *dir, const char *name, const char *kind, const char *shape,
                        const char *amount, const char *seed)
{
    char *path = test_path(dir, name);
    const char *opt = strchr(amount, '.') ? "--density" : "--nnz";
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", kind, "--shape", shape, opt, amount,
                                     "--seed", seed, "-o", path, NULL),
                     0);
    return path;
}

static char *bind(const char *name, const char *path)
{
    char *b = malloc(strlen(path) + strlen(name) + 2);
    sprintf(b, "%s=%s", name, path);
    return b;
}

/* Matmul ikj (order-1 accumulator) and kij (order 2) on an urandom and an
 * rmat pair. */
static void test_matmul_dense_accumulator(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *ikj = test_path(dir, "ikj.dot"), *kij = test_path(dir, "kij.dot");
    const char *expr = "X(i,j)=B(i,k)*C(k,j)";
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", expr, "-f=X:ss", "-f=B:ss", "-f=C:ss",
                                     "-s=reorder(i,k,j)", "-o", ikj, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", expr, "-f=X:ss", "-f=B:ss:1,0",
                                     "-f=C:ss", "-s=reorder(k,i,j)", "-o", kij, NULL),
                     0);
    static const char *const data[][4] = {
        {"urandom", "40x50", "0.08", "50x60"},
        {"rmat", "64x64", "300", "64x64"},
    };
    for (size_t k = 0; k < sizeof data / sizeof data[0]; k++) {
        char *b = gen_matrix(dir, "B.mtx", data[k][0], data[k][1], data[k][2], "3");
        char *c = gen_matrix(dir, "C.mtx", data[k][0], data[k][3], data[k][2], "4");
        char *bb = bind("B", b), *bc = bind("C", c);
        const char *binds[] = {bb, bc, NULL};
        run_dense(dir, ikj, "spaccumulator", binds);
        run_dense(dir, kij, "spaccumulator", binds);
        free(b), free(c), free(bb), free(bc);
    }
    free(ikj), free(kij);
    test_tmpdir_remove(dir);
}

/* x(j) = sum over i of B(i,j) with a vector reducer: the rows of B are
 * the inner fibers, its one outer fiber the whole matrix. */
static const char vector_sum_dot[] =
    "digraph SAM {\n"
    "  comment=\"x=s0,B=ss01\"\n"
    "  expr=\"x(j)=B(i,j)\"\n"
    "  0 [type=\"fiberlookup\" index=\"i\" tensor=\"B\" mode=\"0\" format=\"compressed\" "
    "src=\"true\" root=\"true\"]\n"
    "  1 [type=\"fiberlookup\" index=\"j\" tensor=\"B\" mode=\"1\" format=\"compressed\" "
    "src=\"true\" root=\"false\"]\n"
    "  2 [type=\"arrayvals\" tensor=\"B\"]\n"
    "  3 [type=\"vectorreducer\" accum_index=\"j\"]\n"
    "  4 [type=\"fiberwrite\" index=\"j\" tensor=\"x\" mode=\"0\" format=\"compressed\" "
    "sink=\"true\"]\n"
    "  5 [type=\"fiberwrite\" mode=\"vals\" tensor=\"x\" sink=\"true\"]\n"
    "  0 -> 1 [label=\"ref\" type=\"ref\"]\n"
    "  1 -> 2 [label=\"ref\" type=\"ref\"]\n"
    "  1 -> 3 [label=\"crd\" type=\"crd\"]\n"
    "  2 -> 3 [label=\"val\" type=\"val\"]\n"
    "  3 -> 4 [label=\"crd_out-j\" type=\"crd\"]\n"
    "  3 -> 5 [label=\"val\" type=\"val\"]\n"
    "}\n";

static void test_vector_sum_dense_reducer(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_write_file(dir, "vsum.dot", vector_sum_dot);
    char *b = gen_matrix(dir, "B.mtx", "urandom", "30x300", "0.01", "5");
    char *bb = bind("B", b);
    const char *binds[] = {bb, NULL};
    run_dense(dir, graph, "vectorreducer", binds);
    free(graph), free(b), free(bb);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_acc_one_row),
        cmocka_unit_test(test_dense_acc_rows),
        cmocka_unit_test(test_spacc_dense_order1),
        cmocka_unit_test(test_spacc_dense_one_bank),
        cmocka_unit_test(test_spacc_dense_order2),
        cmocka_unit_test(test_spacc_dense_bad_attributes),
        cmocka_unit_test(test_spacc_dense_equal_streams),
        cmocka_unit_test(test_spacc_dense_onedim),
        cmocka_unit_test(test_vectorreducer_dense),
        cmocka_unit_test(test_vectorreducer_dense_equal_streams),
        cmocka_unit_test(test_matmul_dense_accumulator),
        cmocka_unit_test(test_vector_sum_dense_reducer),
    };
    return cmocka_run_group_tests_name("blocks: dense spaccumulator and vectorreducer", tests, NULL,
                                       NULL);
}
