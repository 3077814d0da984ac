/* TeAAL's bound beside the simulated cycles (hwmodel/bound.h): the longest of
 * DRAM's bytes over its bandwidth, the LLB ports' bytes over theirs, and
 * the PEs' compute shared evenly, worked by hand on a small tiled run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* The largest busy cycles of a block row in a --stats file (the 24th
 * column, "busy"). */
static long long busiest_block(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    long long most = -1;
    assert_non_null(f);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "\"block\"", 7))
            continue;
        char *cell = line;
        for (int k = 1; k < 24 && cell; k++)
            cell = strchr(cell, ',') ? strchr(cell, ',') + 1 : NULL;
        assert_non_null(cell);
        long long busy = strtoll(cell + 1, NULL, 10);
        most = busy > most ? busy : most;
    }
    fclose(f);
    return most;
}

/* test_run_two_levels on hw, which must pass; the summary. */
static char *run_two_levels(const char *dir, const char *hw)
{
    int rc;
    char *out = test_run_two_levels(dir, hw, &rc);
    if (rc)
        fail_msg("exit %d: %s", rc, out);
    return out;
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
    char *out = run_two_levels(dir, "bytes.val = 8\ndram.bandwidth = 1\nllb.bandwidth = 1\n");
    assert_int_equal(test_summary(out, "dram_bytes"), 192);
    assert_int_equal(test_summary(out, "bound_cycles"), 252);
    assert_non_null(strstr(out, "bound_by: llb\n"));
    assert_int_equal(test_summary(out, "bound.llb"), 252);
    assert_int_equal(test_summary(out, "bound.dram"), 192);
    assert_true(test_summary(out, "cycles") > 252);
    free(out);
    out = run_two_levels(dir, "bytes.val = 8\ndram.bandwidth = 1\nllb.bandwidth = 256\n");
    assert_int_equal(test_summary(out, "bound_cycles"), 192);
    assert_non_null(strstr(out, "bound_by: dram\n"));
    free(out);
    /* A way back of its own: the ports carry B's and C's PE tiles in,
     * 168 bytes at 1 a cycle, and X's out at 2 a cycle: 42. */
    out = run_two_levels(dir, "bytes.val = 8\ndram.bandwidth = 1\nllb.bandwidth = 1\n"
                              "llb.write.bandwidth = 2\n");
    assert_int_equal(test_summary(out, "bound.llb"), 168);
    assert_int_equal(test_summary(out, "bound.llb.write"), 42);
    assert_int_equal(test_summary(out, "bound_cycles"), 192);
    assert_non_null(strstr(out, "bound_by: dram\n"));
    free(out);
    /* result.timed = 0: X's bytes still cross DRAM (192 in all), but
     * neither DRAM's bound nor the ports' counts them: B and C, 128 and
     * 168. */
    out = run_two_levels(dir, "bytes.val = 8\ndram.bandwidth = 1\nllb.bandwidth = 1\n"
                              "result.timed = 0\n");
    assert_int_equal(test_summary(out, "dram_bytes"), 192);
    assert_int_equal(test_summary(out, "bound.dram"), 128);
    assert_int_equal(test_summary(out, "bound.llb"), 168);
    assert_non_null(strstr(out, "bound_by: llb\n"));
    free(out);
    out = run_two_levels(dir, "bytes.val = 8\npe.count = 2\n");
    char stats[4096];
    snprintf(stats, sizeof stats, "%s/stats.csv", dir);
    long long busiest = busiest_block(stats);
    assert_true(busiest / 2 > 4 && busiest < test_summary(out, "compute_cycles"));
    assert_int_equal(test_summary(out, "bound_cycles"), (busiest + 1) / 2);
    assert_non_null(strstr(out, "bound_by: pe\n"));
    free(out);
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
    char *out = run_two_levels(dir, "bytes.val = 8\ndram.bandwidth = 1\nllb.bandwidth = 1\n"
                                    "place.C = cache\n");
    assert_int_equal(test_summary(out, "traffic.C"), 60);
    assert_int_equal(test_summary(out, "bound.dram"), 188);
    assert_int_equal(test_summary(out, "bound.llb"), 228);
    assert_non_null(strstr(out, "bound_by: llb\n"));
    free(out);
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
    long long tokens = -1;
    for (int k = 0; k < 5; k++) {
        snprintf(hw, sizeof hw, "bytes.val = 8\npe.rate = %d\n", rate[k]);
        char *out = run_two_levels(dir, hw);
        assert_int_equal(test_summary(out, "compute_cycles"), compute[k]);
        assert_int_equal(test_summary(out, "bound.pe"), busiest[k]);
        if (tokens < 0)
            tokens = test_summary(out, "tokens");
        assert_int_equal(test_summary(out, "tokens"), tokens);
        free(out);
    }
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
