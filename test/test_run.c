/* samsim run end to end: cycle counts the reference simulator reports,
 * results equal to their inputs, both engines identical, and runs that
 * cannot finish reported instead of hanging. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/tensor_file.h"
#include "test_util.h"

/* Runs graph on operand -t B=input with the given engine, writing the
 * result to out; returns the cycle count. */
static long long run_identity(const char *graph, const char *input, const char *engine,
                              const char *out, long long *tokens)
{
    char bind[4200];
    snprintf(bind, sizeof bind, "B=%s", input);
    char *so = NULL, *se = NULL;
    int rc = test_run_samsim(&so, &se, "run", graph, "-t", bind, "--engine", engine, "-o", out,
                             NULL);
    if (rc != 0)
        fail_msg("run exited %d: %s", rc, se);
    long long cycles = test_summary(so, "cycles");
    *tokens = test_summary(so, "tokens");
    free(so);
    free(se);
    return cycles;
}

static void expect_same_tensor(const char *a, const char *b)
{
    tensor ta, tb;
    sam_error err;
    tensor_file fa = {.path = a}, fb = {.path = b};
    if (tensor_file_read(&fa, &ta, &err) || tensor_file_read(&fb, &tb, &err))
        fail_msg("%s", err.msg);
    assert_true(tensor_equal(&ta, &tb));
    tensor_free(&ta);
    tensor_free(&tb);
}

/* The DOT graph of mat_identity as Custard emits it (shared/sam-graphs),
 * repeated here so that the test runs without ../shared. */
static const char identity_gv[] =
    "digraph SAM {\n comment=\"X=ss01,B=ss01\"\n"
    " 5 [type=fiberlookup index=i tensor=B mode=0 format=compressed src=true root=true]\n"
    " 2 [type=fiberwrite index=i tensor=X mode=0 format=compressed sink=true]\n"
    " 4 [type=fiberlookup index=j tensor=B mode=1 format=compressed src=true root=false]\n"
    " 1 [type=fiberwrite index=j tensor=X mode=1 format=compressed sink=true]\n"
    " 3 [type=arrayvals tensor=B]\n"
    " 0 [type=fiberwrite mode=vals tensor=X sink=true]\n"
    " 5 -> 2 [label=crd type=crd]\n 5 -> 4 [label=ref type=ref]\n"
    " 4 -> 1 [label=crd type=crd]\n 4 -> 3 [label=ref type=ref]\n"
    " 3 -> 0 [label=val type=val]\n}\n";

/* SAM-BLOCKS.md 7.1: the 4 x 4 example matrix takes 12 cycles. */
static void test_identity_example_12_cycles(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_write_file(dir, "identity.gv", identity_gv);
    char *b = test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "4 4 5\n1 1 1\n1 3 2\n2 2 3\n4 1 4\n4 4 5\n");
    char *x = test_path(dir, "X.mtx");
    long long tokens_event, tokens_cycle;
    assert_int_equal(run_identity(graph, b, "event", x, &tokens_event), 12);
    expect_same_tensor(b, x);
    assert_int_equal(run_identity(graph, b, "cycle", x, &tokens_cycle), 12);
    assert_int_equal(tokens_event, tokens_cycle);
    expect_same_tensor(b, x);
    free(graph), free(b), free(x);
    test_tmpdir_remove(dir);
}

/* --max-cycles stops a run that has not finished, as a run that cannot:
 * exit 2 and the cycle, whichever engine. --check without an expression is
 * refused before anything runs. */
static void test_max_cycles(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_write_file(dir, "identity.gv", identity_gv);
    char *b = test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "4 4 5\n1 1 1\n1 3 2\n2 2 3\n4 1 4\n4 4 5\n");
    char bind[4200];
    snprintf(bind, sizeof bind, "B=%s", b);
    static const char *engines[] = {"event", "cycle"};
    for (int e = 0; e < 2; e++) {
        char *se = NULL;
        assert_int_equal(test_run_samsim(NULL, &se, "run", graph, "-t", bind, "--max-cycles", "8",
                                         "--engine", engines[e], NULL), 2);
        assert_non_null(strstr(se, "stopped after 8 cycles"));
        free(se);
    }
    char *se = NULL;
    assert_int_equal(test_run_samsim(NULL, &se, "run", graph, "-t", bind, "--check", NULL), 1);
    assert_non_null(strstr(se, "--check needs --expr"));
    free(se);
    char *so = NULL;
    assert_int_equal(test_run_samsim(&so, NULL, "run", graph, "-t", bind, "--max-cycles", "12",
                                     NULL), 0);
    assert_int_equal(test_summary(so, "cycles"), 12);
    free(so), free(graph), free(b);
    test_tmpdir_remove(dir);
}

/* REFERENCE-CYCLES.md: mat_identity takes stored entries + non-empty rows
 * + 4 cycles on a DCSR input; 136 on bcsstm02. */
static void test_identity_on_suitesparse(void **state)
{
    (void)state;
    char *graph = test_require_shared("sam-graphs/mat_identity.gv");
    char *data = test_require_shared("data/suitesparse");
    static const char *names[] = {"bcsstm02", "bcsstk01", "west0479", "lp_scsd1", "ash219",
                                  "Ragusa16", "add32"};
    char *dir = test_tmpdir();
    char *x = test_path(dir, "X.mtx");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char file[256];
        snprintf(file, sizeof file, "%s.mtx", names[i]);
        char *in = test_path(data, file);
        tensor t;
        sam_error err;
        tensor_file f = {.path = in};
        assert_int_equal(tensor_file_read(&f, &t, &err), 0);
        long long rows = 0;
        for (size_t e = 0; e < t.nnz; e++)
            rows += e == 0 || t.crd[0][e] != t.crd[0][e - 1];
        long long te, tc;
        long long cycles = run_identity(graph, in, "event", x, &te);
        assert_int_equal(cycles, (long long)t.nnz + rows + 4);
        if (!strcmp(names[i], "bcsstm02"))
            assert_int_equal(cycles, 136);
        expect_same_tensor(in, x);
        assert_int_equal(run_identity(graph, in, "cycle", x, &tc), cycles);
        assert_int_equal(te, tc);
        tensor_free(&t);
        free(in);
    }
    free(x);
    test_tmpdir_remove(dir);
    free(graph);
    free(data);
}

/* The reference-formatted bcsstm02 folder binds through --data. */
static void test_identity_from_sam_directory(void **state)
{
    (void)state;
    char *graph = test_require_shared("sam-graphs/mat_identity.gv");
    char *data = test_require_shared("data/sam-formatted/bcsstm02/mat_elemmul");
    char *so = NULL;
    assert_int_equal(test_run_samsim(&so, NULL, "run", graph, "--data", data, NULL), 0);
    assert_int_equal(test_summary(so, "cycles"), 136);
    free(so);
    free(graph);
    free(data);
}

/* A scanner whose references come from its own output can never start:
 * the run stops, names the waiting block and exits 2. */
static void test_run_that_cannot_finish(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_write_stuck_graph(dir);
    char *b = test_write_file(dir, "b.tns", "1 1.0\n3 2.0\n");
    char *se = NULL;
    char bind[4200];
    snprintf(bind, sizeof bind, "B=%s", b);
    assert_int_equal(test_run_samsim(NULL, &se, "run", graph, "-t", bind, NULL), 2);
    assert_non_null(strstr(se, "deadlock at cycle"));
    assert_non_null(strstr(se, "node 2 (fiberwrite) waits on empty input crd"));
    free(se);
    assert_int_equal(test_run_samsim(NULL, &se, "run", graph, "-t", bind, "--engine", "cycle",
                                     NULL), 2);
    assert_non_null(strstr(se, "deadlock at cycle"));
    free(se);
    free(graph), free(b);
    test_tmpdir_remove(dir);
}

/* Bounded channels can deadlock a SAM graph: mat_elemmul with one-token
 * channels stalls where the intersect's output fills; both engines stop
 * in the same cycle with the same report. Two tokens suffice. */
static void test_bounded_channels(void **state)
{
    (void)state;
    char *graph = test_require_shared("sam-graphs/mat_elemmul.gv");
    char *m = test_require_shared("data/suitesparse/west0479.mtx");
    char bind[4200];
    snprintf(bind, sizeof bind, "B=%s", m);
    char *event = NULL, *cycle = NULL, *out = NULL;
    assert_int_equal(test_run_samsim(NULL, &event, "run", graph, "-t", bind, "--shift", "--depth",
                                     "1", NULL), 2);
    assert_int_equal(test_run_samsim(NULL, &cycle, "run", graph, "-t", bind, "--shift", "--depth",
                                     "1", "--engine", "cycle", NULL), 2);
    assert_non_null(strstr(event, "deadlock at cycle"));
    assert_non_null(strstr(event, "waits on full output"));
    assert_string_equal(event, cycle);
    assert_int_equal(test_run_samsim(&out, NULL, "run", graph, "-t", bind, "--shift", "--depth",
                                     "2", "--check", "--expr", "X(i,j)=B(i,j)*C(i,j)", NULL), 0);
    assert_non_null(strstr(out, "check: pass"));
    free(event), free(cycle), free(out);
    free(graph), free(m);
}

static void test_graph_errors(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "2 2 1\n1 1 1\n");
    char bind[4200];
    snprintf(bind, sizeof bind, "B=%s", b);
    static const struct {
        const char *graph, *message;
    } cases[] = {
        {"digraph SAM { comment=\"X=ss01,B=ss01\"\n 1 [type=warpdrive]\n}", "unknown block type 'warpdrive'"},
        {"digraph SAM { comment=\"X=ss01,B=ss01\"\n 1 [type=arrayvals tensor=B]\n"
         " 2 [type=fiberwrite tensor=X mode=vals]\n 1 -> 2 [type=val]\n}", "input ref has no edge"},
        {"digraph SAM { comment=\"X=ss01,Q=ss01\"\n 1 [type=arrayvals tensor=Q]\n}", "-t B: the graph has no operand B (its operands: Q)"},
        {"digraph SAM { comment=\"X=ss01,B=ss01\"\n 1 [type=arrayvals tensor=B]\n"
         " 2 [type=fiberwrite tensor=X mode=vals]\n 1 -> 2 [type=crd]\n}", "no output port for a crd stream"},
        {"digraph SAM {\n 1 [type=arrayvals tensor=B]\n}", "the graph names no tensors"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *graph = test_write_file(dir, "bad.gv", cases[i].graph);
        char *se = NULL;
        assert_int_equal(test_run_samsim(NULL, &se, "run", graph, "-t", bind, NULL), 1);
        if (!strstr(se, cases[i].message) || !strstr(se, "bad.gv"))
            fail_msg("case %zu: %s", i, se);
        assert_non_null(strchr(se, '\n'));
        assert_string_equal(strchr(se, '\n'), "\n");
        free(se);
        free(graph);
    }
    free(b);
    test_tmpdir_remove(dir);
}

/* A failed check: exit 3, the headline first, then the coordinates, a
 * missing entry named absent, each with its rounding bound
 * 2 (n + f) DBL_EPSILON sum|t| (custard/gold.h): 8, 48 and 28 epsilons.
 * Checking x(i) = b(i) * c(i) against b + c leaves entries the product
 * lacks. */
static void test_check_failure_report(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_path(dir, "mul.gv");
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "x(i)=b(i)*c(i)", "-o", graph, NULL),
                     0);
    char *b = test_write_file(dir, "b.tns", "# shape: 4\n1 2.0\n2 3.0\n");
    char *c = test_write_file(dir, "c.tns", "# shape: 4\n2 5.0\n4 7.0\n");
    char bb[4200], bc[4200], *out = NULL, *err = NULL;
    snprintf(bb, sizeof bb, "b=%s", b);
    snprintf(bc, sizeof bc, "c=%s", c);
    int rc = test_run_samsim(&out, &err, "run", graph, "-t", bb, "-t", bc, "--check", "--expr",
                             "x(i)=b(i)+c(i)", NULL);
    assert_int_equal(rc, 3);
    char want[8192];
    snprintf(want, sizeof want,
             "samsim: %s: check failed: 3 coordinates differ from the reference evaluation of "
             "x(i)=b(i)+c(i) beyond rounding\n"
             "  at (0): simulated absent, reference 2, difference 2 beyond the bound 1.78e-15\n"
             "  at (1): simulated 15, reference 8, difference 7 beyond the bound 1.07e-14\n"
             "  at (3): simulated absent, reference 7, difference 7 beyond the bound 6.22e-15\n",
             graph);
    assert_string_equal(err, want);
    assert_non_null(strstr(out, "check: fail\n"));
    free(out), free(err), free(graph), free(b), free(c);
    test_tmpdir_remove(dir);
}

/* An inner product has no coordinate dropper: X's j fibers are C's one
 * column fiber repeated for every row of B. With C empty, every one of
 * them is empty; the writer drops empty fibers as the reference's does,
 * and the result is still a matrix, B's rows each with an empty fiber:
 * no entry. */
static void test_inner_product_by_empty_operand(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_path(dir, "ijk.gv");
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "X(i,j)=B(i,k)*C(k,j)", "-f=X:ss",
                                     "-f=B:ss", "-f=C:ss:1,0", "-s=reorder(i,j,k)", "-o", graph,
                                     NULL),
                     0);
    char *b = test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "3 4 2\n1 1 1.5\n3 4 2.0\n");
    char *c = test_write_file(dir, "C.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "4 2 0\n");
    char *x = test_path(dir, "X.mtx");
    char bb[4200], bc[4200], *out = NULL, *err = NULL;
    snprintf(bb, sizeof bb, "B=%s", b);
    snprintf(bc, sizeof bc, "C=%s", c);
    int rc = test_run_samsim(&out, &err, "run", graph, "-t", bb, "-t", bc, "--check", "-o", x,
                             NULL);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, err);
    assert_non_null(strstr(out, "check: pass"));
    char *written = test_read_file(x);
    assert_string_equal(written, "%%MatrixMarket matrix coordinate real general\n"
                                 "% written by samsim\n3 2 0\n");
    free(written);
    free(out), free(err), free(graph), free(b), free(c), free(x);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_example_12_cycles),
        cmocka_unit_test(test_max_cycles),
        cmocka_unit_test(test_identity_on_suitesparse),
        cmocka_unit_test(test_identity_from_sam_directory),
        cmocka_unit_test(test_run_that_cannot_finish),
        cmocka_unit_test(test_bounded_channels),
        cmocka_unit_test(test_graph_errors),
        cmocka_unit_test(test_check_failure_report),
        cmocka_unit_test(test_inner_product_by_empty_operand),
    };
    return cmocka_run_group_tests_name("run", tests, NULL, NULL);
}
