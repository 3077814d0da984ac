/* run --stats: per-stream token counts worked out from the matrix
 * structure (the SAM paper's stream analysis of X(i,j)=B(i,j) on DCSR),
 * per-block busy, starved and blocked cycles worked out cycle by cycle,
 * the same file from every engine, and a failed write refused cleanly;
 * for tiled runs, one tile's file the untiled one's, rows that add up on
 * any number of PEs, and the memories' rows worked out by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/tensor_file.h"
#include "test_util.h"

#define MAX_ROWS 128
#define MAX_COLS 40

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

static int column(const table *t, const char *name)
{
    for (int k = 0; k < t->ncols; k++)
        if (!strcmp(t->cell[0][k], name))
            return k;
    fail_msg("no column %s", name);
    return -1;
}

static long long cell(const table *t, int row, const char *name)
{
    const char *v = t->cell[row][column(t, name)];
    assert_true(v[0] != '\0');
    return atoll(v);
}

static int is_row(const table *t, int row, const char *kind)
{
    return !strcmp(t->cell[row][column(t, "row")], kind);
}

/* The row of the stream produced by port NODE:PORT. */
static int stream_row(const table *t, const char *producer)
{
    for (int r = 1; r < t->nrows; r++)
        if (is_row(t, r, "stream") && !strcmp(t->cell[r][column(t, "producer")], producer))
            return r;
    fail_msg("no stream from %s", producer);
    return -1;
}

static int block_row(const table *t, const char *id)
{
    for (int r = 1; r < t->nrows; r++)
        if (is_row(t, r, "block") && !strcmp(t->cell[r][column(t, "id")], id))
            return r;
    fail_msg("no block %s", id);
    return -1;
}

/* Per stream, the counts add up and the idle cycles fill the run on
 * each of its pes processing elements; per block, busy, starved, blocked
 * and idle_after cycles fill them. */
static void assert_consistent_on(const table *t, long long cycles, long long pes)
{
    assert_true(is_row(t, 1, "run"));
    assert_int_equal(cell(t, 1, "last_cycle"), cycles - 1);
    for (int r = 2; r < t->nrows; r++) {
        if (is_row(t, r, "block")) {
            assert_int_equal(cell(t, r, "busy") + cell(t, r, "starved") + cell(t, r, "blocked") +
                                 cell(t, r, "idle_after"),
                             cycles * pes);
            continue;
        }
        if (!is_row(t, r, "stream"))
            continue;
        long long tokens = cell(t, r, "tokens");
        assert_int_equal(tokens, cell(t, r, "data") + cell(t, r, "stops") + cell(t, r, "empty") +
                                     cell(t, r, "done") + cell(t, r, "repeat") +
                                     cell(t, r, "repeat_stop"));
        assert_int_equal(cell(t, r, "stops"), cell(t, r, "stop_s0") + cell(t, r, "stop_s1") +
                                                  cell(t, r, "stop_s2") +
                                                  cell(t, r, "stop_s3_up"));
        assert_int_equal(cell(t, r, "idle_before") + tokens + cell(t, r, "idle_between") +
                             cell(t, r, "idle_after"),
                         cycles * pes);
    }
}

static void assert_consistent(const table *t, long long cycles)
{
    assert_consistent_on(t, cycles, 1);
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

/* The identity on matrix b, under the event and the cycle engine: the
 * outer stream carries a coordinate per non-empty row, then S0 and D; the
 * inner one nnz coordinates, an S0 between non-empty rows, S1 and D. */
static void assert_identity_streams(const char *dir, const char *graph, const char *b)
{
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
        assert_int_equal(cell(&t, bj, "stops"), rows);
        assert_int_equal(cell(&t, bj, "done"), 1);
        text[e] = test_read_file(csv);
        free(t.text), free(csv), free(so);
    }
    assert_string_equal(text[0], text[1]);
    free(text[0]), free(text[1]);
}

static char *identity_graph(const char *dir)
{
    char *graph = test_path(dir, "identity.gv");
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "X(i,j)=B(i,j)", "-f=X:ss",
                                     "-f=B:ss", "-o", graph, NULL),
                     0);
    return graph;
}

static void test_identity_streams(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = identity_graph(dir), *b = test_path(dir, "B.mtx");
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "60x40",
                                     "--density", "0.03", "--seed", "5", "-o", b, NULL),
                     0);
    assert_identity_streams(dir, graph, b);
    free(graph), free(b);
    test_tmpdir_remove(dir);
}

/* The same counts on genuine matrices: symmetric, pattern, rectangular,
 * with empty rows (benchmarks/stream_overhead runs all of them). */
static void test_identity_streams_suitesparse(void **state)
{
    (void)state;
    const char *names[] = {"bcsstm02", "GD97_b", "494_bus", "Erdos971", "lp_scsd1", "ash219"};
    free(test_require_shared("data/suitesparse")); /* skips before anything is allocated */
    char *dir = test_tmpdir(), *graph = identity_graph(dir);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char rel[200];
        snprintf(rel, sizeof rel, "data/suitesparse/%s.mtx", names[k]);
        char *b = test_require_shared(rel);
        assert_identity_streams(dir, graph, b);
        free(b);
    }
    free(graph);
    test_tmpdir_remove(dir);
}

/* The 4x4 B of SAM-BLOCKS section 7.2: rows 0, 1 and 3 hold (0,0) (0,2),
 * (1,1) and (3,0) (3,3). */
static const char identity_b[] = "%%MatrixMarket matrix coordinate real general\n"
                                 "4 4 5\n1 1 1\n1 3 2\n2 2 3\n4 1 4\n4 4 5\n";

/* Replaces the first occurrence of from in *text by to. */
static void edit(char **text, const char *from, const char *to)
{
    char *at = strstr(*text, from);
    assert_non_null(at);
    size_t n = strlen(*text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - *text), *text, to, at + strlen(from));
    free(*text);
    *text = out;
}

/* Compiles the identity, applies the edits (pairs from, to), runs it on
 * the 4x4 B under the event and cycle engines, requires identical
 * statistics and returns them; *cycles is the run's. */
static void identity_stats(const char *dir, const char *const *edits, table *t, long long *cycles)
{
    char *graph = test_path(dir, "id.gv"), *b = test_write_file(dir, "B.mtx", identity_b);
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "X(i,j)=B(i,j)", "-o", graph, NULL),
                     0);
    char *text = test_read_file(graph);
    for (int k = 0; edits[k]; k += 2)
        edit(&text, edits[k], edits[k + 1]);
    free(graph);
    graph = test_write_file(dir, "edited.gv", text);
    char *csv[2], bind[4200];
    snprintf(bind, sizeof bind, "B=%s", b);
    for (int e = 0; e < 2; e++) {
        char *so = NULL;
        csv[e] = test_path(dir, e ? "cycle.csv" : "event.csv");
        assert_int_equal(test_run_samsim(&so, NULL, "run", graph, "-t", bind, "--engine",
                                         e ? "cycle" : "event", "--stats", csv[e], NULL),
                         0);
        *cycles = test_summary(so, "cycles");
        free(so);
    }
    char *a = test_read_file(csv[0]), *c = test_read_file(csv[1]);
    assert_string_equal(a, c);
    table_read(csv[0], t);
    assert_consistent(t, *cycles);
    free(a), free(c), free(csv[0]), free(csv[1]), free(text), free(graph), free(b);
}

static void assert_block(const table *t, const char *id, long long busy, long long first,
                         long long last, long long starved, long long blocked)
{
    int r = block_row(t, id);
    assert_int_equal(cell(t, r, "busy"), busy);
    assert_int_equal(cell(t, r, "first_cycle"), first);
    assert_int_equal(cell(t, r, "last_cycle"), last);
    assert_int_equal(cell(t, r, "starved"), starved);
    assert_int_equal(cell(t, r, "blocked"), blocked);
}

/* SAM-BLOCKS section 7.2 gives the streams cycle by cycle: B_i emits
 * 0 1 3 S0 D in cycles 0-4, B_j 0 2 S0 1 S0 0 3 S1 D in cycles 1-9, the
 * array its nine values in cycles 2-10; each writer takes a stream one
 * cycle after it is emitted. So every block is busy in one unbroken run of
 * cycles, starved until its first token arrives, and idle after its last. */
static void test_block_cycles(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    const char *none[] = {NULL};
    table t;
    long long cycles;
    identity_stats(dir, none, &t, &cycles);
    assert_int_equal(cycles, 12);
    /* Nodes: 0 scans i, 1 scans j, 2 the array, 3-5 write X0, X1, vals. */
    assert_block(&t, "0", 5, 0, 4, 0, 0);
    assert_block(&t, "3", 5, 1, 5, 1, 0);
    assert_block(&t, "1", 9, 1, 9, 1, 0);
    assert_block(&t, "4", 9, 2, 10, 2, 0);
    assert_block(&t, "2", 9, 2, 10, 2, 0);
    assert_block(&t, "5", 9, 3, 11, 3, 0);
    assert_int_equal(cell(&t, block_row(&t, "1"), "tokens"), 18);
    assert_int_equal(cell(&t, block_row(&t, "5"), "tokens"), 0);
    free(t.text);
    test_tmpdir_remove(dir);
}

/* The values writer takes a token every second cycle (ii=2) from a stream
 * of capacity 1. The array pushes in cycle 2; the writer pops it in cycle 3
 * and is occupied in 3 and 4; room freed in 3 counts from 4, so the array
 * is refused in 3 and pushes in 4, and so on: pushes in 2, 4, ..., 18, each
 * odd cycle 3..17 blocked (8), and the writer busy 3..19 (17 cycles, its
 * last step's second cycle cut by the end of the run). */
static void test_blocked_cycles(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    const char *edits[] = {"    5 [", "    5 [ii=2 ", "2 -> 5 [", "2 -> 5 [capacity=1 ", NULL};
    table t;
    long long cycles;
    identity_stats(dir, edits, &t, &cycles);
    assert_int_equal(cycles, 20);
    assert_block(&t, "2", 9, 2, 18, 2, 8);
    assert_block(&t, "5", 17, 3, 19, 3, 0);
    assert_block(&t, "1", 9, 1, 9, 1, 0);
    int s = stream_row(&t, "2:val");
    assert_int_equal(cell(&t, s, "idle_between"), 8);
    free(t.text);
    test_tmpdir_remove(dir);
}

/* A block latency delays a block's outputs: node 1 (B_j) with latency=3
 * emits in cycles 1-9 as before, but its tokens are visible 3 cycles
 * later, so its readers (X1's writer and the array) start in cycle 5
 * instead of 2, and the values writer in 6: the run takes 15 cycles. The
 * engines differ here (run-ahead vs cycle by cycle) and must agree. */
static void test_block_latency(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    const char *edits[] = {"    1 [", "    1 [latency=3 ", NULL};
    table t;
    long long cycles;
    identity_stats(dir, edits, &t, &cycles);
    assert_int_equal(cycles, 15);
    assert_block(&t, "1", 9, 1, 9, 1, 0);
    assert_block(&t, "4", 9, 5, 13, 5, 0);
    assert_block(&t, "5", 9, 6, 14, 6, 0);
    free(t.text);
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

/* ---- tiled runs ------------------------------------------------------ */

#define MATMUL "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)"

/* samsim run graph on B and C in dir with the further arguments (up to
 * four, NULL-ended), --stats into name.csv: the summary. */
static char *stats_run(const char *dir, const char *graph, const char *name, const char *a,
                       const char *b, const char *c, const char *d)
{
    char *bp = test_path(dir, "B.mtx"), *cp = test_path(dir, "C.mtx"), *csv, tb[4200], tc[4200];
    char file[64], *out = NULL, *se = NULL;
    snprintf(file, sizeof file, "%s.csv", name);
    csv = test_path(dir, file);
    snprintf(tb, sizeof tb, "B=%s", bp);
    snprintf(tc, sizeof tc, "C=%s", cp);
    if (test_run_samsim(&out, &se, "run", graph, "-t", tb, "-t", tc, "--stats", csv, "--check",
                        a, b, c, d, NULL))
        fail_msg("run %s: %s", name, se);
    free(bp), free(cp), free(csv), free(se);
    return out;
}

static void generate(const char *dir, const char *name, const char *shape, const char *seed)
{
    char *path = test_path(dir, name);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", shape, "--density",
                                     "0.2", "--seed", seed, "-o", path, NULL),
                     0);
    free(path);
}

/* One tile as large as the tensors is the untiled run: the same file,
 * row for row. */
static void test_tiled_one_tile(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    generate(dir, "B.mtx", "30x20", "1");
    generate(dir, "C.mtx", "20x25", "2");
    char *graph = test_compile_to(dir, "mm", MATMUL);
    free(stats_run(dir, graph, "untiled", NULL, NULL, NULL, NULL));
    free(stats_run(dir, graph, "tiled", "--tile", "split(i,i1,i0,64)", NULL, NULL));
    char *a = test_path(dir, "untiled.csv"), *b = test_path(dir, "tiled.csv");
    char *ta = test_read_file(a), *tb = test_read_file(b);
    assert_string_equal(ta, tb);
    free(a), free(b), free(ta), free(tb), free(graph);
    test_tmpdir_remove(dir);
}

/* Many tiles, on one PE and on three: the rows add up every point's
 * counts (the run's tokens are the summary's, the same on any number of
 * PEs), each block's and stream's cycles fill the run on every PE, and
 * the PEs are busy no longer than the run. */
static void test_tiled_rows_add_up(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    generate(dir, "B.mtx", "30x20", "1");
    generate(dir, "C.mtx", "20x25", "2");
    char *graph = test_compile_to(dir, "mm", MATMUL " -s=split(i,i1,i0,8) -s=split(k,k1,k0,8) "
                                              "-s=split(j,j1,j0,8)");
    char *hw1 = test_write_file(dir, "one.hw", "pe.count = 1\n");
    char *hw3 = test_write_file(dir, "three.hw", "pe.count = 3\n");
    const char *names[] = {"one", "three"}, *hws[] = {hw1, hw3};
    long long tokens[2];
    for (int k = 0; k < 2; k++) {
        char *out = stats_run(dir, graph, names[k], "--hw", hws[k], NULL, NULL);
        char file[64];
        snprintf(file, sizeof file, "%s.csv", names[k]);
        char *csv = test_path(dir, file);
        table t;
        table_read(csv, &t);
        assert_consistent_on(&t, test_summary(out, "cycles"), k ? 3 : 1);
        tokens[k] = cell(&t, 1, "tokens");
        assert_int_equal(tokens[k], test_summary(out, "tokens"));
        long long pe_busy = -1;
        for (int r = 1; r < t.nrows; r++)
            if (is_row(&t, r, "memory") && !strcmp(t.cell[r][column(&t, "id")], "pe"))
                pe_busy = cell(&t, r, "busy");
        /* Points overlap in a PE's pipeline: busy no more than their sum. */
        assert_true(pe_busy > 0 && pe_busy <= test_summary(out, "compute_cycles"));
        assert_true(pe_busy <= test_summary(out, "cycles") * (k ? 3 : 1));
        free(t.text), free(csv), free(out);
    }
    assert_int_equal(tokens[0], tokens[1]);
    free(graph), free(hw1), free(hw3);
    test_tmpdir_remove(dir);
}

/* The row of tensor id at tiling level 0, or of memory id. */
static int named_row(const table *t, const char *kind, const char *id)
{
    for (int r = 1; r < t->nrows; r++)
        if (is_row(t, r, kind) && !strcmp(t->cell[r][column(t, "id")], id))
            return r;
    fail_msg("no %s row %s", kind, id);
    return -1;
}

static void assert_tensor_row(const table *t, const char *id, long long read, long long written,
                              long long fetched, long long skipped, long long peak)
{
    int r = named_row(t, "tensor", id);
    assert_string_equal(t->cell[r][column(t, "memory")], "pe");
    assert_int_equal(cell(t, r, "level"), 0);
    assert_int_equal(cell(t, r, "bytes_read"), read);
    assert_int_equal(cell(t, r, "bytes_written"), written);
    assert_int_equal(cell(t, r, "tiles_fetched"), fetched);
    assert_int_equal(cell(t, r, "tiles_skipped"), skipped);
    assert_int_equal(cell(t, r, "peak_bytes"), peak);
}

/* X = B .* C on 4x4 matrices cut into 2x2 tiles, at 4 bytes a coordinate
 * or seg entry and 8 a value (the case test_tiled works by hand): B's
 * tiles (0,0), 52 bytes, and (1,1), 32, are fetched, and its tile (1,0)
 * is skipped, C having none there; C's (0,0), 44, and (1,1), 52; X's
 * tile (0,0), 32 bytes, is written out, its empty (1,1) not at all. The
 * PE buffer holds at most all of it at once: 84 + 96 + 32. DRAM's link
 * moves 212 bytes at 68.256 a cycle: busy 4 cycles. */
static void test_tiled_memory_rows(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    free(test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 4\n"
                                       "1 1 1\n2 2 2\n3 4 3\n4 1 8\n"));
    free(test_write_file(dir, "C.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 4\n"
                                       "1 1 4\n1 2 5\n3 3 6\n4 4 7\n"));
    char *graph = test_compile_to(dir, "em", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss "
                                             "-s=split(i,i1,i0,2) -s=split(j,j1,j0,2)");
    char *hw = test_write_file(dir, "t.hw", "bytes.val = 8\n");
    char *out = stats_run(dir, graph, "s", "--hw", hw, NULL, NULL), *csv = test_path(dir, "s.csv");
    table t;
    table_read(csv, &t);
    assert_tensor_row(&t, "B", 84, 0, 2, 1, 84);
    assert_tensor_row(&t, "C", 96, 0, 2, 0, 96);
    assert_tensor_row(&t, "X", 0, 32, 1, 0, 32);
    int dram = named_row(&t, "memory", "dram"), pe = named_row(&t, "memory", "pe");
    assert_int_equal(cell(&t, dram, "bytes_read"), 84 + 96);
    assert_int_equal(cell(&t, dram, "bytes_written"), 32);
    assert_int_equal(cell(&t, dram, "busy"), 4);
    assert_int_equal(cell(&t, dram, "units"), 1);
    assert_string_equal(t.cell[dram][column(&t, "peak_bytes")], "");
    assert_int_equal(cell(&t, pe, "peak_bytes"), 84 + 96 + 32);
    /* The two points overlap in the pipeline: the PE is busy from the
     * first block's first cycle to the last block's last, less than the
     * points' cycles added up. */
    long long first = -1, last = -1;
    for (int r = 1; r < t.nrows; r++)
        if (is_row(&t, r, "block")) {
            long long f = cell(&t, r, "first_cycle"), l = cell(&t, r, "last_cycle");
            first = first < 0 || f < first ? f : first;
            last = l > last ? l : last;
        }
    assert_int_equal(cell(&t, pe, "busy"), last + 1 - first);
    assert_true(cell(&t, pe, "busy") < test_summary(out, "compute_cycles"));
    for (int r = 1; r < t.nrows; r++)
        assert_false(is_row(&t, r, "memory") && !strcmp(t.cell[r][column(&t, "id")], "llb"));
    free(t.text), free(csv), free(out), free(graph), free(hw);
    test_tmpdir_remove(dir);
}

/* Two tiling levels, X placed in the PE buffer only: its LLB level moves
 * nothing, and its PE level's bytes go to and from DRAM, all of its
 * traffic; held in the LLB too, X's DRAM traffic is the LLB level's. A
 * placement of a tensor the run lacks is refused naming file and line. */
static void test_tiled_placement(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    generate(dir, "B.mtx", "30x20", "1");
    generate(dir, "C.mtx", "20x25", "2");
    char *graph = test_compile_to(dir, "mm", MATMUL " -s=split(i,i1,i0,16) -s=split(k,k1,k0,16) "
                                              "-s=split(j,j1,j0,16) -s=split(i0,i01,i00,4) "
                                              "-s=split(k0,k01,k00,4) -s=split(j0,j01,j00,4)");
    char *held = test_write_file(dir, "held.hw", "dram.line = 1\n");
    char *placed = test_write_file(dir, "placed.hw", "place.X = pe\n");
    const char *hws[] = {held, placed}, *names[] = {"held", "placed"};
    for (int k = 0; k < 2; k++) {
        char *out = stats_run(dir, graph, names[k], "--hw", hws[k], NULL, NULL), file[64];
        snprintf(file, sizeof file, "%s.csv", names[k]);
        char *csv = test_path(dir, file);
        table t;
        table_read(csv, &t);
        int x0 = -1, x1 = -1;
        for (int r = 1; r < t.nrows; r++)
            if (is_row(&t, r, "tensor") && !strcmp(t.cell[r][column(&t, "id")], "X"))
                *(cell(&t, r, "level") ? &x1 : &x0) = r;
        assert_true(x0 > 0 && x1 > 0);
        long long dram = cell(&t, k ? x1 : x0, "bytes_read") +
                         cell(&t, k ? x1 : x0, "bytes_written");
        assert_true(dram > 0);
        assert_int_equal(dram, test_summary(out, "traffic.X"));
        if (k) {
            assert_int_equal(cell(&t, x0, "bytes_written") + cell(&t, x0, "tiles_fetched") +
                                 cell(&t, x0, "peak_bytes"),
                             0);
        }
        free(t.text), free(csv), free(out);
    }
    char *stray = test_write_file(dir, "stray.hw", "\nplace.Q = pe\n"), *se = NULL;
    char *bp = test_path(dir, "B.mtx"), *cp = test_path(dir, "C.mtx"), tb[4200], tc[4200];
    snprintf(tb, sizeof tb, "B=%s", bp);
    snprintf(tc, sizeof tc, "C=%s", cp);
    assert_int_equal(test_run_samsim(NULL, &se, "run", graph, "-t", tb, "-t", tc, "--hw", stray,
                                     NULL),
                     1);
    assert_non_null(strstr(se, "stray.hw:2: place.Q: the run has no tensor Q"));
    assert_ptr_equal(strchr(se, '\n'), se + strlen(se) - 1);
    free(se), free(bp), free(cp), free(stray), free(held), free(placed), free(graph);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_streams),
        cmocka_unit_test(test_identity_streams_suitesparse),
        cmocka_unit_test(test_block_cycles),
        cmocka_unit_test(test_blocked_cycles),
        cmocka_unit_test(test_block_latency),
        cmocka_unit_test(test_unwritable_stats),
        cmocka_unit_test(test_tiled_one_tile),
        cmocka_unit_test(test_tiled_rows_add_up),
        cmocka_unit_test(test_tiled_memory_rows),
        cmocka_unit_test(test_tiled_placement),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
