/* TeAAL's bound beside the simulated cycles (hwmodel/bound.h): the longest of
 * DRAM's bytes over its bandwidth, the LLB ports' bytes over theirs, and
 * the PEs' compute shared evenly, worked by hand on a small tiled run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* The largest busy cycles of a block over every PE: the busy column of
 * its --stats row. */
static long long busiest_block(const sim_stats *s)
{
    long long most = -1;
    size_t stride = (size_t)(s->nchannels + s->nblocks);
    for (int k = 0; k < s->nblocks; k++) {
        long long busy = 0;
        for (int pe = 0; pe < s->npe; pe++)
            busy += (long long)s->cells[(size_t)pe * stride + (size_t)s->nchannels + k].active;
        most = busy > most ? busy : most;
    }
    return most;
}

/* X = B .* C on B = C = (0,0) (1,1) (0,3) in a 4x4, with the LLB holding
 * the whole 4x4 and PE tiles of 2x2: compiled once per test, then run on
 * each hardware in this process, as the bounds are the run's record. */
typedef struct two_levels {
    char *graph, *b, tb[512], tc[512];
    sam_graph g;
    graph_run run;
} two_levels;

static void two_levels_init(two_levels *t, const char *dir)
{
    static const char b4[] = "%%MatrixMarket matrix coordinate real general\n4 4 3\n"
                             "1 1 1\n2 2 2\n1 4 3\n";
    t->b = test_write_file(dir, "b4.mtx", b4);
    t->graph = test_compile_to(dir, "em", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss "
        "-s=split(i,i1,i0,4) -s=split(j,j1,j0,4) -s=split(i0,i01,i00,2) -s=split(j0,j01,j00,2)");
    snprintf(t->tb, sizeof t->tb, "B=%s", t->b);
    snprintf(t->tc, sizeof t->tc, "C=%s", t->b);
}

/* Runs the graph in this process on the hardware text hw, with the check
 * and statistics; the check must pass. Its record is t->run's until the
 * next run or two_levels_free. */
static const graph_run *run_two_levels(two_levels *t, const char *hw)
{
    test_graph_run_free(&t->g, &t->run);
    test_run_spec s = {.graph = t->graph, .bind = {t->tb, t->tc}, .hw_text = hw, .check = 1,
                       .stats = 1};
    char msg[512];
    int rc = test_graph_run(&s, &t->g, &t->run, msg, sizeof msg);
    if (rc)
        fail_msg("status %d: %s", rc, rc < 0 ? msg : t->run.report);
    return &t->run;
}

static void two_levels_free(two_levels *t)
{
    test_graph_run_free(&t->g, &t->run);
    free(t->graph), free(t->b);
}

/* The record's key holds text. */
static void assert_field_text(const graph_run *run, const char *key, const char *text)
{
    const char *v = outcome_get(&run->record, key);
    if (!v || strcmp(v, text))
        fail_msg("%s: %s, not %s", key, v ? v : "absent", text);
}

/* DRAM moves B, C and X each whole once, 64 bytes each (8-byte values:
 * test_layout works them out): 192. The LLB's ports move B's and C's PE
 * tiles, 52 + 32 each, and X's two PE tiles out, 52 + 32: 252. At 1 GB/s
 * and 1 GHz a byte is a cycle: the ports bound the run at 252; at 256
 * GB/s for the ports, DRAM at 192. With two PEs at the default bandwidths
 * (DRAM 192 / 68.256, ports 252 / 512) the PEs bound it: their busiest
 * block's busy cycles over both points, halved. */
static void test_bound_by_hand(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    two_levels t = {0};
    two_levels_init(&t, dir);
    const graph_run *out =
        run_two_levels(&t, "bytes.val = 8\ndram.bandwidth = 1\nllb.bandwidth = 1\n");
    assert_int_equal(test_field(out, "dram_bytes"), 192);
    assert_int_equal(test_field(out, "bound_cycles"), 252);
    assert_field_text(out, "bound_by", "llb");
    assert_int_equal(test_field(out, "bound.llb"), 252);
    assert_int_equal(test_field(out, "bound.dram"), 192);
    assert_true(test_field(out, "cycles") > 252);
    out = run_two_levels(&t, "bytes.val = 8\ndram.bandwidth = 1\nllb.bandwidth = 256\n");
    assert_int_equal(test_field(out, "bound_cycles"), 192);
    assert_field_text(out, "bound_by", "dram");
    /* A way back of its own: the ports carry B's and C's PE tiles in,
     * 168 bytes at 1 a cycle, and X's out at 2 a cycle: 42. */
    out = run_two_levels(&t, "bytes.val = 8\ndram.bandwidth = 1\nllb.bandwidth = 1\n"
                             "llb.write.bandwidth = 2\n");
    assert_int_equal(test_field(out, "bound.llb"), 168);
    assert_int_equal(test_field(out, "bound.llb.write"), 42);
    assert_int_equal(test_field(out, "bound_cycles"), 192);
    assert_field_text(out, "bound_by", "dram");
    /* result.timed = 0: X's bytes still cross DRAM (192 in all), but
     * neither DRAM's bound nor the ports' counts them: B and C, 128 and
     * 168. */
    out = run_two_levels(&t, "bytes.val = 8\ndram.bandwidth = 1\nllb.bandwidth = 1\n"
                             "result.timed = 0\n");
    assert_int_equal(test_field(out, "dram_bytes"), 192);
    assert_int_equal(test_field(out, "bound.dram"), 128);
    assert_int_equal(test_field(out, "bound.llb"), 168);
    assert_field_text(out, "bound_by", "llb");
    out = run_two_levels(&t, "bytes.val = 8\npe.count = 2\n");
    long long busiest = busiest_block(out->stats);
    assert_true(busiest / 2 > 4 && busiest < test_field(out, "compute_cycles"));
    assert_int_equal(test_field(out, "bound_cycles"), (busiest + 1) / 2);
    assert_field_text(out, "bound_by", "pe");
    two_levels_free(&t);
    test_tmpdir_remove(dir);
}

/* place.C = cache: C's rows come from DRAM as points touch them (three
 * rows of one entry, each its coordinate, its reference and the entry, 4
 * + 4 + 12 = 20 bytes: 60) and leave the cache over the LLB's ports once.
 * DRAM: B 64, C 60, X 64 = 188; ports: B's PE tiles 84, C's rows 60, X's
 * PE tiles 84 = 228, the fill of the cache not counted a second time. */
static void test_bound_of_a_cache(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    two_levels t = {0};
    two_levels_init(&t, dir);
    const graph_run *out = run_two_levels(&t, "bytes.val = 8\ndram.bandwidth = 1\n"
                                              "llb.bandwidth = 1\nplace.C = cache\n");
    assert_int_equal(test_field(out, "traffic.C"), 60);
    assert_int_equal(test_field(out, "bound.dram"), 188);
    assert_int_equal(test_field(out, "bound.llb"), 228);
    assert_field_text(out, "bound_by", "llb");
    two_levels_free(&t);
    test_tmpdir_remove(dir);
}

/* pe.rate = R: each point's cycles over R, rounded up. The two points
 * take 24 cycles at one token a cycle, 13 and 11 (at R = 12 only the
 * first takes two cycles, at 13 neither): at 2, 7 + 6; at 3, 5 + 4. Their
 * busiest block, busy 7 and 5 cycles, bounds the PE likewise: 4 + 3 at
 * 2, 3 + 2 at 3. The tokens and the result stay. */
static void test_wide_datapath(void **state)
{
    (void)state;
    static const int rate[] = {1, 2, 3, 12, 13};
    static const long long compute[] = {24, 13, 9, 3, 2}, busiest[] = {12, 7, 5, 2, 2};
    char *dir = test_tmpdir(), hw[64];
    two_levels t = {0};
    two_levels_init(&t, dir);
    long long tokens = -1;
    for (int k = 0; k < 5; k++) {
        snprintf(hw, sizeof hw, "bytes.val = 8\npe.rate = %d\n", rate[k]);
        const graph_run *out = run_two_levels(&t, hw);
        assert_int_equal(test_field(out, "compute_cycles"), compute[k]);
        assert_int_equal(test_field(out, "bound.pe"), busiest[k]);
        if (tokens < 0)
            tokens = test_field(out, "tokens");
        assert_int_equal(test_field(out, "tokens"), tokens);
    }
    two_levels_free(&t);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound_by_hand),
        cmocka_unit_test(test_bound_of_a_cache),
        cmocka_unit_test(test_wide_datapath),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
