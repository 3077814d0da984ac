/* TeAAL's bound beside the simulated cycles (sim/bound.h): the longest of
 * DRAM's bytes over its bandwidth, the LLB ports' bytes over theirs, and
 * the PEs' compute shared evenly, worked by hand on a small tiled run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* B = C: (0,0) (1,1) (0,3) in a 4x4. */
static const char b4[] = "%%MatrixMarket matrix coordinate real general\n4 4 3\n"
                         "1 1 1\n2 2 2\n1 4 3\n";

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

/* X = B .* C, the LLB holding the whole 4x4, PE tiles of 2x2, on the
 * hardware text hw, its statistics into dir/stats.csv; the summary. */
static char *run_two_levels(const char *dir, const char *hw)
{
    char *b = test_write_file(dir, "b4.mtx", b4), *h = test_write_file(dir, "t.hw", hw);
    char *graph = test_compile_to(dir, "em", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss "
        "-s=split(i,i1,i0,4) -s=split(j,j1,j0,4) -s=split(i0,i01,i00,2) -s=split(j0,j01,j00,2)");
    char tb[512], tc[512], stats[4096], *out = NULL, *se = NULL;
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", b);
    snprintf(stats, sizeof stats, "%s/stats.csv", dir);
    int rc = test_run_samsim(&out, &se, "run", graph, "-t", tb, "-t", tc, "--hw", h, "--check",
                             "--stats", stats, NULL);
    if (rc)
        fail_msg("exit %d: %s", rc, se);
    free(b), free(h), free(graph), free(se);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
