/* Regressions of issue 10's reader findings: a .tns shape comment after
 * the entries, entries outside the shape reaching the level builder, tiny
 * files that declare huge dense levels, and statistics of graphs whose
 * node ids hold blanks, commas, quotes and colons. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../custard/compile.h"
#include "../formats/fibertree.h"
#include "../graph/dot_write.h"
#include "../report/stats_table.h"
#include "test_util.h"

/* One line "samsim: WHERE...KEYWORD..." on stderr and exit status 1. */
static void expect_refusal(int rc, const char *err, const char *where, const char *keyword)
{
    assert_int_equal(rc, 1);
    assert_non_null(err);
    assert_int_equal(strncmp(err, "samsim: ", 8), 0);
    assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
    if (!strstr(err, where) || !strstr(err, keyword))
        fail_msg("expected [%s] and [%s] in: %s", where, keyword, err);
}

/* The shape of the entries before it was another, so the file is refused
 * where the comment stands (it used to yield an entry outside the shape:
 * a heap overflow in the level builder). */
static void test_tns_shape_after_entries(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *path = test_write_file(dir, "late.tns", "1 1 1.0\n# shape: 30 30\n3 3 2.0\n");
    char *where = malloc(strlen(path) + 4), *out = NULL, *err = NULL;
    sprintf(where, "%s:2:", path);
    int rc = test_run_samsim(&out, &err, "info", path, NULL);
    expect_refusal(rc, err, where, "shape comment after the first entry");
    assert_true(out == NULL || *out == '\0');
    free(out), free(err), free(where), free(path);
    test_tmpdir_remove(dir);
}

static void test_tns_shape_before_entries(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *path = test_write_file(dir, "ok.tns", "# a comment\n# shape: 30 30\n1 1 1.0\n3 3 2.0\n");
    char *out = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "info", path, NULL), 0);
    assert_non_null(strstr(out, "dims: 30 x 30"));
    free(out), free(path);
    test_tmpdir_remove(dir);
}

/* The level builder refuses an entry outside the shape, whoever made it. */
static void test_build_refuses_entry_outside_shape(void **state)
{
    (void)state;
    int64_t dims[2] = {2, 2}, inside[2] = {1, 1}, outside[2] = {2, 0};
    tensor t;
    sam_error err;
    assert_int_equal(tensor_init(&t, 2, dims, &err), 0);
    assert_int_equal(tensor_append(&t, inside, 1.0, &err), 0);
    assert_int_equal(tensor_append(&t, outside, 2.0, &err), 0);
    static const char *const formats[] = {"ss01", "ds01", "dd01", "ss10"};
    for (size_t k = 0; k < sizeof formats / sizeof *formats; k++) {
        level_format f;
        fibertree ft;
        assert_int_equal(level_format_parse(formats[k], &f, &err), 0);
        assert_int_equal(fibertree_build(&t, &f, &ft, &err), -1);
        assert_non_null(strstr(err.msg, "entry 2 has coordinate 2 in mode 0, outside 0..1"));
    }
    tensor_free(&t);
}

/* 68 bytes declaring a 10^10-position dense matrix: refused at once,
 * naming the file and the way to allow more. */
static void test_dense_limit_refuses_tiny_file(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *path = test_write_file(dir, "big.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                 "100000 100000 1\n1 1 1\n");
    char *where = malloc(strlen(path) + 3), *out = NULL, *err = NULL;
    sprintf(where, "%s: ", path);
    int rc = test_run_samsim(&out, &err, "info", path, "--format", "dd", NULL);
    expect_refusal(rc, err, where, "set " FIBERTREE_DENSE_ENV " to raise it");
    free(out), free(err);
    out = err = NULL;
    char *conv = test_path(dir, "out");
    rc = test_run_samsim(&out, &err, "convert", path, conv, "--format", "dd", NULL);
    /* convert names the output, which the format describes */
    expect_refusal(rc, err, conv, FIBERTREE_DENSE_ENV);
    assert_false(test_exists(conv));
    free(out), free(err), free(where), free(path), free(conv);
    test_tmpdir_remove(dir);
}

/* Stores a vector of n positions with `entries` entries densely. */
static int build_dense(int64_t n, int64_t entries, sam_error *err)
{
    int64_t dims[1] = {n};
    tensor t;
    fibertree ft;
    level_format f;
    level_format_parse("d0", &f, err);
    if (tensor_init(&t, 1, dims, err))
        return -1;
    for (int64_t k = 0; k < entries; k++) {
        int64_t at[1] = {n - 1 - k};
        if (tensor_append(&t, at, 1.0, err)) {
            tensor_free(&t);
            return -1;
        }
    }
    int rc = fibertree_build(&t, &f, &ft, err);
    if (rc == 0)
        fibertree_free(&ft);
    tensor_free(&t);
    return rc;
}

/* The default grows with the tensor: 2^23 positions for a few entries,
 * 4096 an entry beyond (add32 stored densely needs 1,030). The limit is
 * the environment's when set there, and a bad value is an error rather
 * than no limit. */
static void test_dense_limit_from_environment(void **state)
{
    (void)state;
    sam_error err;
    int64_t limit, per = FIBERTREE_DENSE_PER_ENTRY, floor = FIBERTREE_DEFAULT_DENSE;
    assert_int_equal(build_dense(floor, 1, &err), 0);
    assert_int_equal(build_dense(floor + 1, 1, &err), -1);
    int64_t many = floor / per + 10;
    assert_int_equal(fibertree_dense_limit((size_t)many, &limit, &err), 0);
    assert_int_equal(limit, many * per);
    assert_int_equal(build_dense(many * per, many, &err), 0);
    assert_int_equal(build_dense(many * per + 1, many, &err), -1);
    setenv(FIBERTREE_DENSE_ENV, "100", 1);
    assert_int_equal(fibertree_dense_limit((size_t)many, &limit, &err), 0);
    assert_int_equal(limit, 100);
    assert_int_equal(build_dense(100, 1, &err), 0);
    assert_int_equal(build_dense(101, 1, &err), -1);
    assert_non_null(strstr(err.msg, "more than the limit of 100"));
    setenv(FIBERTREE_DENSE_ENV, "lots", 1);
    assert_int_equal(build_dense(2, 1, &err), -1);
    assert_non_null(strstr(err.msg, FIBERTREE_DENSE_ENV " is 'lots'"));
    unsetenv(FIBERTREE_DENSE_ENV);
}

static const char *const odd_ids[] = {"my node", "a,b", "say \"hi\"", "x:y:z", "\"", "p q:r"};
#define NODD (sizeof odd_ids / sizeof *odd_ids)

/* A matrix product's graph with its first node ids replaced by odd_ids. */
static char *write_odd_graph(const char *dir)
{
    static const char *const formats[] = {"X:ss", "B:ss", "C:ss:1,0"};
    compile_args a = {.expression = "X(i,j)=B(i,k)*C(k,j)", .formats = formats, .nformats = 3};
    sam_graph g;
    sam_error err;
    assert_int_equal(custard_compile(&a, &g, &err), 0);
    assert_true(g.nnodes > (int)NODD);
    for (size_t k = 0; k < NODD; k++) {
        free(g.nodes[k].id);
        g.nodes[k].id = strdup(odd_ids[k]);
    }
    char *path = test_path(dir, "odd.gv");
    assert_int_equal(graph_write_dot_file(&g, path, &err), 0);
    graph_free(&g);
    return path;
}

/* Every node id, however odd, goes through `run --stats` and back through
 * `stats` and `render --stats`; the ids read back are those of the graph. */
static void test_stats_round_trip_odd_ids(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = write_odd_graph(dir), *b = test_path(dir, "B.mtx");
    char *csv = test_path(dir, "s.csv"), *svg = test_path(dir, "g.svg"), bind[4200];
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "9x9", "--density",
                                     "0.3", "--seed", "2", "-o", b, NULL),
                     0);
    snprintf(bind, sizeof bind, "B=%s", b);
    assert_int_equal(test_run_samsim(NULL, NULL, "run", graph, "-t", bind, "--shift", "--stats",
                                     csv, "--quiet", NULL),
                     0);
    stats_table t;
    sam_error err;
    if (stats_table_read(csv, &t, &err))
        fail_msg("%s", err.msg);
    int readers = 0;
    for (size_t k = 0; k < NODD; k++) {
        assert_true(stats_table_block_find(&t, odd_ids[k]) >= 0);
        for (int s = 0; s < t.nstreams; s++)
            readers += stats_stream_reads(&t.streams[s], odd_ids[k]);
    }
    assert_true(readers >= (int)NODD - 1);
    stats_table_free(&t);
    assert_int_equal(test_run_samsim(NULL, NULL, "stats", csv, NULL), 0);
    assert_int_equal(test_run_samsim(NULL, NULL, "render", graph, "--stats", csv, "-o", svg, NULL),
                     0);
    assert_true(test_exists(svg));
    free(graph), free(b), free(csv), free(svg);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tns_shape_after_entries),
        cmocka_unit_test(test_tns_shape_before_entries),
        cmocka_unit_test(test_build_refuses_entry_outside_shape),
        cmocka_unit_test(test_dense_limit_refuses_tiny_file),
        cmocka_unit_test(test_dense_limit_from_environment),
        cmocka_unit_test(test_stats_round_trip_odd_ids),
    };
    return cmocka_run_group_tests_name("reader_hardening", tests, NULL, NULL);
}
