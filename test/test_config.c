/* Run settings: --config files, --impl, --depth and --latency reach the
 * graph with the documented precedence, bad settings are refused with
 * the file and line, and samsim blocks lists every registered
 * implementation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../blocks/registry.h"
#include "test_util.h"

/* The 4x4 B of SAM-BLOCKS section 7.2; X(i,j)=B(i,j) on it takes 12 cycles
 * (test_stats works them out). */
static const char identity_b[] = "%%MatrixMarket matrix coordinate real general\n"
                                 "4 4 5\n1 1 1\n1 3 2\n2 2 3\n4 1 4\n4 4 5\n";

typedef struct fixture {
    char *dir, *graph, *bind;
} fixture;

static void fixture_init(fixture *f)
{
    f->dir = test_tmpdir();
    f->graph = test_path(f->dir, "id.gv");
    char *b = test_write_file(f->dir, "B.mtx", identity_b);
    f->bind = malloc(strlen(b) + 3);
    sprintf(f->bind, "B=%s", b);
    free(b);
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "X(i,j)=B(i,j)", "-o", f->graph, NULL),
                     0);
}

static void fixture_free(fixture *f)
{
    free(f->graph), free(f->bind);
    test_tmpdir_remove(f->dir);
}

/* Cycles of a run of the identity with a config file of the given text
 * (NULL: none) and extra options (at most 4, NULL-terminated). */
static long long run_cycles(const fixture *f, const char *config, const char *a,
                            const char *b)
{
    char *cfg = config ? test_write_file(f->dir, "run.cfg", config) : NULL;
    const char *argv[TEST_MAX_ARGS] = {"run", f->graph, "-t", f->bind, "--engine", "cycle"};
    int n = 6;
    if (cfg) {
        argv[n++] = "--config";
        argv[n++] = cfg;
    }
    if (a)
        argv[n++] = a;
    if (b)
        argv[n++] = b;
    char *out = NULL, *err = NULL;
    assert_int_equal(test_run_samsim_argv(&out, &err, argv), 0);
    long long cycles = test_summary(out, "cycles");
    free(out), free(err), free(cfg);
    return cycles;
}

/* The run fails with exactly this one line on standard error. */
static void assert_refused(const fixture *f, const char *config, const char *option,
                           const char *message)
{
    char *cfg = config ? test_write_file(f->dir, "bad.cfg", config) : NULL;
    const char *argv[TEST_MAX_ARGS] = {"run", f->graph, "-t", f->bind};
    int n = 4;
    if (cfg) {
        argv[n++] = "--config";
        argv[n++] = cfg;
    }
    if (option)
        argv[n++] = option;
    char *out = NULL, *err = NULL, expected[600];
    assert_int_equal(test_run_samsim_argv(&out, &err, argv), 1);
    snprintf(expected, sizeof expected, "samsim: %s%s%s\n", cfg ? cfg : "", cfg ? ":" : "",
             message);
    assert_string_equal(err, expected);
    assert_string_equal(out, "");
    free(out), free(err), free(cfg);
}

/* The values writer (node 5) taking a token every second cycle from a
 * stream of capacity 1 takes the run from 12 to 20 cycles (test_stats
 * works them out): set here from a file instead of the graph. */
static void test_settings_apply(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    assert_int_equal(run_cycles(&f, NULL, NULL, NULL), 12);
    assert_int_equal(run_cycles(&f, "# slow writer\n\nnode.5.ii = 2   # values\n"
                                    "node.2.capacity = 1\n", NULL, NULL),
                     20);
    /* With unbounded streams only the writer's pace counts: it takes its
     * nine tokens in 3, 5, ..., 19 and the run ends after cycle 19. */
    assert_int_equal(run_cycles(&f, "node.5.ii = 2\n", NULL, NULL), 20);
    /* A type setting reaches every writer: X0's writer takes its five
     * tokens in 1, 3, ..., 9; X1's its nine in 2, 4, ..., 18; vals' its
     * nine from cycle 3 on every second cycle: 3, ..., 19. */
    assert_int_equal(run_cycles(&f, "fiberwrite.ii = 2\n", NULL, NULL), 20);
    /* Widths of blocks this graph does not have change nothing: the
     * vector scanner's (fiberlookup.width) and the bitvector blocks'. */
    assert_int_equal(run_cycles(&f, "fiberlookup.width = 8\nbitvector.width = 16\n", NULL, NULL),
                     12);
    /* A channel latency of 3 delays each of the three hops by 2 more. */
    assert_int_equal(run_cycles(&f, "channel.latency = 3\n", NULL, NULL), 18);
    fixture_free(&f);
}

/* A node setting wins over a type setting whatever their order, and the
 * command line over the file. */
static void test_settings_precedence(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    assert_int_equal(run_cycles(&f, "node.5.ii = 1\nfiberwrite.ii = 2\n", NULL, NULL), 19);
    assert_int_equal(run_cycles(&f, "node.0.ii = 1\nnode.1.ii = 1\n", NULL, NULL), 12);
    assert_int_equal(run_cycles(&f, "channel.latency = 3\n", "--latency", "1"), 12);
    assert_int_equal(run_cycles(&f, NULL, "--latency", "3"), 18);
    /* Nodes 3 and 4 at ii=2, but 5 at 1 either way: X1's writer, the last
     * to finish, takes its nine tokens in 2, 4, ..., 18. */
    assert_int_equal(run_cycles(&f, "fiberwrite.ii = 2\nnode.5.ii = 1\n", NULL, NULL), 19);
    fixture_free(&f);
}

static void test_bad_settings(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    assert_refused(&f, "\nintersect.impl = skipp\n", NULL,
                   "2: intersect has no implementation 'skipp' (samsim blocks lists them)");
    assert_refused(&f, "fiberlookup.widht = 2\n", NULL,
                   "1: fiberlookup has no setting 'widht' (impl, ii, latency, capacity or a "
                   "parameter samsim blocks lists)");
    assert_refused(&f, "capacity = 2\n", NULL,
                   "1: 'capacity' is not SCOPE.NAME (channel.capacity, intersect.impl, "
                   "node.7.ii, ...)");
    assert_refused(&f, "channel.capacity = -1\n", NULL,
                   "1: channel.capacity must be a whole number 0..1000000, not '-1'");
    assert_refused(&f, "channel.capacity = +4\n", NULL,
                   "1: channel.capacity must be a whole number 0..1000000, not '+4'");
    assert_refused(&f, "channel.width = 2\n", NULL,
                   "1: channel has no setting 'width' (capacity, latency)");
    assert_refused(&f, "node.1.ii = 0\n", NULL,
                   "1: node.1.ii must be a whole number 1..1000, not '0'");
    assert_refused(&f, "scanner.ii = 2\n", NULL,
                   "1: 'scanner' is not a block type (samsim blocks lists them)");
    assert_refused(&f, "intersect.width = 16\n", NULL,
                   "1: intersect.width: the word width of bitvector blocks is their streams', "
                   "set for all of them (bitvector.width) or for one node (node.ID.width)");
    assert_refused(&f, "\nbv.width = 8\n", NULL,
                   "2: bv.width: the word width of bitvector blocks is their streams', set for "
                   "all of them (bitvector.width) or for one node (node.ID.width)");
    assert_refused(&f, "bitvector.width = 65\n", NULL,
                   "1: bitvector.width must be a whole number 1..64, not '65'");
    assert_refused(&f, "bitvector.width = 0x10\n", NULL,
                   "1: bitvector.width must be a whole number 1..64, not '0x10'");
    assert_refused(&f, "bitvector.emit_zeros = 1\n", NULL,
                   "1: bitvector has no setting 'emit_zeros' (width)");
    assert_refused(&f, "node.1.ii\n", NULL, "1: expected KEY = VALUE, not 'node.1.ii'");
    assert_refused(&f, "node.1.ii = \n", NULL, "1: node.1.ii has no value");
    assert_refused(&f, NULL, "--impl=fiberlookup", "run: --impl takes TYPE=NAME, not 'fiberlookup'");
    char expected[600];
    snprintf(expected, sizeof expected, "%s has no node '9'", f.graph);
    char *cfg = test_write_file(f.dir, "n.cfg", "node.9.ii = 2\n"), *err = NULL;
    const char *argv[] = {"run", f.graph, "-t", f.bind, "--config", cfg, NULL};
    assert_int_equal(test_run_samsim_argv(NULL, &err, argv), 1);
    assert_non_null(strstr(err, expected));
    free(cfg), free(err);
    fixture_free(&f);
}

/* Every registered implementation appears under its type with its
 * description, and every parameter it declares on a line of its own. */
static void test_blocks_listing(void **state)
{
    (void)state;
    char *text = NULL, out[16384] = "\n";
    assert_int_equal(test_run_samsim(&text, NULL, "blocks", NULL), 0);
    snprintf(out + 1, sizeof out - 1, "%s", text);
    free(text);
    for (int i = 0; i < registry_count(); i++) {
        const block_ops *ops = registry_at(i);
        char type_line[200], impl_line[600];
        snprintf(type_line, sizeof type_line, "\n%s\n", ops->type);
        snprintf(impl_line, sizeof impl_line, "\n    %-12s %s", ops->impl, ops->about);
        char *type_at = strstr(out, type_line), *at = strstr(out, impl_line);
        assert_non_null(type_at);
        assert_non_null(at);
        assert_true(at > type_at);
        for (const param *p = ops->params; p && p->name; p++) {
            char line[300], range[128];
            param_range(p, range, sizeof range);
            snprintf(line, sizeof line, "\n        %-15s %s; %s\n", p->name, p->unit, range);
            assert_non_null(strstr(at, line));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings_apply),
        cmocka_unit_test(test_settings_precedence),
        cmocka_unit_test(test_bad_settings),
        cmocka_unit_test(test_blocks_listing),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
