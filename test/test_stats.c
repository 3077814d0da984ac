/* run --stats: per-stream token counts worked out from the matrix
 * structure (the SAM paper's stream analysis of X(i,j)=B(i,j) on DCSR),
 * the same file from every engine, and a failed write refused cleanly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/tensor_file.h"
#include "test_util.h"

#define MAX_ROWS 64
#define MAX_COLS 24

typedef struct table {
    char *text;
    char *cell[MAX_ROWS][MAX_COLS];
    int nrows, ncols;
} table;

/* Splits the CSV samsim writes (every field quoted, no commas inside). */
static void table_read(const char *path, table *t)
{
    memset(t, 0, sizeof *t);
    t->text = test_read_file(path);
    assert_non_null(t->text);
    char *save = NULL;
    for (char *line = strtok_r(t->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        assert_true(t->nrows < MAX_ROWS);
        int n = 0;
        for (char *f = line; f; n++) {
            char *comma = strchr(f, ',');
            if (comma)
                *comma = '\0';
            assert_true(n < MAX_COLS && f[0] == '"' && f[strlen(f) - 1] == '"');
            f[strlen(f) - 1] = '\0';
            t->cell[t->nrows][n] = f + 1;
            f = comma ? comma + 1 : NULL;
        }
        t->ncols = n;
        t->nrows++;
    }
}

static long long cell(const table *t, int row, const char *column)
{
    for (int k = 0; k < t->ncols; k++)
        if (!strcmp(t->cell[0][k], column))
            return atoll(t->cell[row][k]);
    fail_msg("no column %s", column);
    return -1;
}

/* The row of the stream produced by the node with the given label. */
static int stream_row(const table *t, const char *producer)
{
    for (int r = 1; r < t->nrows; r++)
        if (!strcmp(t->cell[r][1], producer))
            return r;
    fail_msg("no stream from %s", producer);
    return -1;
}

/* Per stream: the counts add up, and the idle cycles fill the run. */
static void assert_consistent(const table *t, long long cycles)
{
    for (int r = 1; r < t->nrows; r++) {
        long long tokens = cell(t, r, "tokens");
        assert_int_equal(tokens, cell(t, r, "data") + cell(t, r, "stops") + cell(t, r, "empty") +
                                     cell(t, r, "done") + cell(t, r, "repeat") +
                                     cell(t, r, "repeat_stop"));
        assert_int_equal(cell(t, r, "stops"), cell(t, r, "stop_s0") + cell(t, r, "stop_s1") +
                                                  cell(t, r, "stop_s2") +
                                                  cell(t, r, "stop_s3_up"));
        assert_int_equal(cell(t, r, "idle_before") + tokens + cell(t, r, "idle_between") +
                             cell(t, r, "idle_after"),
                         cycles);
    }
}

/* Nonempty rows of a matrix file. */
static long long nonempty_rows(const char *path, long long *nnz)
{
    tensor m;
    sam_error err;
    tensor_file f = {.path = path};
    assert_int_equal(tensor_file_read(&f, &m, &err), 0);
    long long rows = 0;
    for (size_t k = 0; k < m.nnz; k++)
        rows += k == 0 || m.crd[0][k] != m.crd[0][k - 1];
    *nnz = (long long)m.nnz;
    tensor_free(&m);
    return rows;
}

static void test_identity_streams(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_path(dir, "identity.gv"), *b = test_path(dir, "B.mtx");
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "X(i,j)=B(i,j)", "-o", graph, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "60x40",
                                     "--density", "0.03", "--seed", "5", "-o", b, NULL),
                     0);
    long long nnz, rows = nonempty_rows(b, &nnz);
    char *text[2];
    const char *engines[2] = {"event", "cycle"};
    for (int e = 0; e < 2; e++) {
        char *csv = test_path(dir, e ? "cycle.csv" : "event.csv"), *so = NULL, bind[4200];
        snprintf(bind, sizeof bind, "B=%s", b);
        assert_int_equal(test_run_samsim(&so, NULL, "run", graph, "-t", bind, "--engine",
                                         engines[e], "--stats", csv, NULL),
                         0);
        table t;
        table_read(csv, &t);
        assert_consistent(&t, test_summary(so, "cycles"));
        /* Node 0 scans i, node 1 scans j (samsim compile's order). */
        int bi = stream_row(&t, "0:crd"), bj = stream_row(&t, "1:crd");
        assert_int_equal(cell(&t, bi, "data"), rows);
        assert_int_equal(cell(&t, bi, "stop_s0"), 1);
        assert_int_equal(cell(&t, bi, "stops"), 1);
        assert_int_equal(cell(&t, bi, "done"), 1);
        assert_int_equal(cell(&t, bj, "data"), nnz);
        assert_int_equal(cell(&t, bj, "stop_s0"), rows - 1);
        assert_int_equal(cell(&t, bj, "stop_s1"), 1);
        assert_int_equal(cell(&t, bj, "done"), 1);
        text[e] = test_read_file(csv);
        free(t.text), free(csv), free(so);
    }
    assert_string_equal(text[0], text[1]);
    free(text[0]), free(text[1]), free(graph), free(b);
    test_tmpdir_remove(dir);
}

static void test_unwritable_stats(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_path(dir, "v.gv"), *csv = test_path(dir, "no/such/dir/s.csv"), *se = NULL;
    char *b = test_path(dir, "b.tns"), bind[4200];
    snprintf(bind, sizeof bind, "b=%s", b);
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "x(i)=b(i)", "-o", graph, NULL), 0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "50", "--density",
                                     "0.2", "--seed", "2", "-o", b, NULL),
                     0);
    int rc = test_run_samsim(NULL, &se, "run", graph, "-t", bind, "--stats", csv, NULL);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(se, csv));
    assert_ptr_equal(strchr(se, '\n'), se + strlen(se) - 1);
    assert_false(test_exists(csv));
    free(graph), free(csv), free(se), free(b);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_streams),
        cmocka_unit_test(test_unwritable_stats),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
