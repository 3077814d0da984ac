/* Tensors held at their size in a run: operands stored by taking their
 * lists (fibertree_build_taking) and the result made by taking the
 * writers' arrays (fibertree_to_tensor_taking) give the cycles and the
 * result of a run that keeps its lists (--check), equal to the results
 * worked out here, on Matrix Market files with repeated entries, out of
 * order, symmetric and pattern; and a run of mat_identity on generated
 * nonzeros peaks within 40 bytes a nonzero. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "test_util.h"

/* Symmetric pattern: (3,1) twice, a weight on a pattern line (read as 1). */
static const char sym_mtx[] = "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n"
                              "4 4 5\n1 1\n3 1\n4 2 9.5\n3 1\n4 4\n";
static const int64_t sym_at[][2] = {{0, 0}, {0, 2}, {1, 3}, {2, 0}, {3, 1}, {3, 3}};
static const double sym_val[] = {1, 2, 1, 2, 1, 1};

/* General, out of order, (4,2) and (1,3) twice, an explicit zero. */
static const char gen_mtx[] = "%%MatrixMarket matrix coordinate real general\n4 4 7\n"
                              "4 2 2.5\n1 3 -1\n2 4 3\n1 3 4\n3 3 0\n4 2 0.5\n1 1 7\n";

/* sym * gen, element by element. */
static const int64_t mul_at[][2] = {{0, 0}, {0, 2}, {1, 3}, {3, 1}};
static const double mul_val[] = {7, 6, 3, 3};

/* Runs graph on the bindings with and without --check: both pass or
 * skip the check, agree on cycles and give the result expect. */
static void expect_same_runs(const char *graph, const char *b, const char *c,
                             const tensor *expect)
{
    tensor results[2];
    double cycles[2];
    for (int check = 0; check < 2; check++) {
        test_run_spec s = {.graph = graph, .bind = {b, c}, .check = check};
        sam_graph g;
        graph_run run;
        char msg[512];
        int rc = test_graph_run(&s, &g, &run, msg, sizeof msg);
        if (rc)
            fail_msg("%s (check %d): status %d %s", graph, check, rc, rc < 0 ? msg : "");
        cycles[check] = test_field(&run, "cycles");
        sam_error err;
        assert_int_equal(tensor_copy(&results[check], &run.result, &err), 0);
        test_graph_run_free(&g, &run);
    }
    assert_true(cycles[0] == cycles[1]);
    assert_true(tensor_equal(&results[0], &results[1]));
    assert_true(tensor_equal(&results[0], expect));
    tensor_free(&results[0]);
    tensor_free(&results[1]);
}

static void test_operand_files_in_every_format(void **state)
{
    (void)state;
    /* Result and operand formats: dense levels, bitvectors, linked lists
     * and the transposed order, stored from a list taken in place. */
    static const char *const formats[][2] = {{"ss", "ss"}, {"ss:10", "ss:10"}, {"ss", "ds"},
                                             {"ds", "sd"},  {"sb", "ss"},       {"bs", "bs"},
                                             {"ss", "ls"},  {"ss", "db"}};
    char *dir = test_tmpdir();
    char *sym = test_write_file(dir, "sym.mtx", sym_mtx);
    char *gen = test_write_file(dir, "gen.mtx", gen_mtx);
    char bind_b[600], bind_c[600], args[256];
    snprintf(bind_b, sizeof bind_b, "B=%s", sym);
    snprintf(bind_c, sizeof bind_c, "C=%s", gen);
    tensor expect;
    test_matrix(&expect, 4, 4, 6, sym_at, sym_val);
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        snprintf(args, sizeof args, "X(i,j)=B(i,j) -f=X:%s -f=B:%s", formats[i][0],
                 formats[i][1]);
        char *graph = test_compile_to(dir, "identity", args);
        expect_same_runs(graph, bind_b, NULL, &expect);
        free(graph);
    }
    tensor_free(&expect);
    test_matrix(&expect, 4, 4, 4, mul_at, mul_val);
    char *graph = test_compile_to(dir, "elemmul", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss");
    expect_same_runs(graph, bind_b, bind_c, &expect);
    tensor_free(&expect);
    free(graph);
    free(sym);
    free(gen);
    test_tmpdir_remove(dir);
}

/* Runs samsim with args (NULL-terminated); its peak resident set in
 * bytes. The run must succeed. */
static double peak_of_run(const char *const *args)
{
    pid_t pid = test_start_samsim(args, NULL, NULL);
    int status;
    struct rusage ru;
    assert_int_equal(wait4(pid, &status, 0, &ru), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return (double)ru.ru_maxrss * 1024;
}

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

/* mat_identity on 2,000,000 generated nonzeros: the operand's list is
 * taken into its levels as the file is read, and the result's tree into
 * its list, so the peak is the operand's levels and the result's while
 * the run writes them (32 bytes a nonzero) and the process itself. Under
 * the sanitizers memory is theirs to spend. */
static void test_identity_peak_per_nonzero(void **state)
{
    (void)state;
#ifdef SANITIZED
    skip();
#endif
    const double nnz = 2e6;
    char *dir = test_tmpdir();
    char *mtx = test_path(dir, "big.mtx");
    if (test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "20000x20000", "--nnz",
                        "2000000", "--seed", "1", "-o", mtx, NULL))
        fail_msg("gen urandom failed");
    char *graph = test_compile_to(dir, "identity", "X(i,j)=B(i,j) -f=X:ss -f=B:ss");
    char bind[600];
    snprintf(bind, sizeof bind, "B=%s", mtx);
    const char *args[] = {"run", graph, "-t", bind, "--quiet", NULL};
    double peak = peak_of_run(args);
    if (peak > 40 * nnz)
        fail_msg("mat_identity peaked at %.0f bytes, %.1f a nonzero", peak, peak / nnz);
    free(graph);
    free(mtx);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operand_files_in_every_format),
        cmocka_unit_test(test_identity_peak_per_nonzero),
    };
    return cmocka_run_group_tests_name("tensor size", tests, NULL, NULL);
}
