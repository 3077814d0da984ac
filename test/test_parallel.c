/* Parallel lanes (SAM paper section 4.4; custard/compile.c's lower_parallel):
 * parallelize(i,N) deals a loop's elements out to N lanes and joins the
 * lanes' streams back. The compiled graph; runs under every engine with
 * --check for rows (Gustavson's and inner products'), Gamma's summed k
 * and elementwise kernels in 1 to 5 lanes; cycles falling with lanes and the per-lane
 * statistics; refusals of what lanes cannot compute apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../graph/graph.h"
#include "test_util.h"

/* Nodes of type (any when NULL) whose attribute key is value (any when
 * NULL; "" for nodes without it). */
static int count(const sam_graph *g, const char *type, const char *key, const char *value)
{
    int n = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const char *v = key ? graph_node_attr(&g->nodes[i], key) : NULL;
        int match = !key || (value && !value[0] ? !v : v && (!value || !strcmp(v, value)));
        n += (!type || !strcmp(g->nodes[i].type, type)) && match;
    }
    return n;
}

static int lane_edges(const sam_graph *g, const char *lane)
{
    int n = 0;
    for (int i = 0; i < g->nedges; i++) {
        const char *v = graph_edge_attr(&g->edges[i], "lane");
        n += v && !strcmp(v, lane);
    }
    return n;
}

/* Gustavson's X = B C with its rows in 3 lanes: a parallelizer for i's
 * coordinates and for each reference, the loops inside i once per lane,
 * and a serializer for each level the writers take: i at depth 0, j at
 * depth 1 with the accumulator's values (which have no stop tokens). */
static void test_rows_in_lanes(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    const char *mm = "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)";
    char args[256];
    snprintf(args, sizeof args, "%s -s=parallelize(i,3)", mm);
    sam_graph serial = test_compiled_graph(dir, mm), g = test_compiled_graph(dir, args);
    assert_string_equal(graph_attr_get(&g, "parallelize"), "i,3");
    /* i's coordinates, B's and C's references. */
    assert_int_equal(count(&g, "parallelize", "lanes", "3"), 3);
    assert_int_equal(count(&g, "serialize", "depth", "0"), 1);
    assert_int_equal(count(&g, "serialize", "depth", "1"), 1);
    assert_int_equal(count(&g, "serialize", "value_stops", "0"), 1);
    /* What is inside i: the serial graph's nodes not on i's level. */
    int inside = count(&serial, NULL, NULL, NULL) - count(&serial, "fiberwrite", NULL, NULL) -
                 count(&serial, "broadcast", NULL, NULL) - 3;
    for (int lane = 0; lane < 3; lane++) {
        char l[16];
        snprintf(l, sizeof l, "%d", lane);
        assert_int_equal(count(&g, NULL, "lane", l) - count(&g, "broadcast", "lane", l), inside);
        /* 3 out of the parallelizer, 3 into the serializers. */
        assert_int_equal(lane_edges(&g, l), 6);
    }
    assert_int_equal(count(&g, "fiberwrite", "lane", ""), 3);
    assert_int_equal(count(&g, "parallelize", "label", "Parallelize i: B\\n3 lanes"), 1);
    assert_int_equal(count(&g, "serialize", "label", "Serialize i\\n3 lanes"), 2);
    graph_free(&serial);
    graph_free(&g);
    test_tmpdir_remove(dir);
}

/* Gamma's form: k summed and parallelized after the intersection, the
 * lanes' (j, value) vectors summed by one vectorreducer of 4 lanes, rows
 * without entries dropped before the writers. */
static void test_gamma_form(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    sam_graph g = test_compiled_graph(dir, "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss "
                                           "-s=reorder(i,k,j) -s=parallelize(k,4)");
    assert_int_equal(count(&g, "intersect", "lane", ""), 1);
    assert_int_equal(count(&g, "intersect", NULL, NULL), 1);
    assert_int_equal(count(&g, "vectorreducer", "lanes", "4"), 1);
    assert_int_equal(count(&g, "serialize", NULL, NULL), 0);
    assert_int_equal(count(&g, "spaccumulator", NULL, NULL), 0);
    assert_int_equal(count(&g, "crddrop", "lane", ""), 1);
    assert_int_equal(count(&g, "mul", "lane", "3"), 1);
    /* 2 out of the parallelizer (B's and C's refs: nothing in a lane
     * reads k's coordinates), 2 into the reducer. */
    assert_int_equal(lane_edges(&g, "3"), 4);
    graph_free(&g);
    test_tmpdir_remove(dir);
}

/* The schedules lanes are tried with, each for 1, 2, 3 and 5 lanes. */
static const char *const schedules[] = {
    "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) -s=parallelize(i,%d)",
    "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ds -s=reorder(i,k,j) -s=locate(C) "
    "-s=parallelize(i,%d)",
    "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) -s=parallelize(k,%d)",
    "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss:1,0 -s=reorder(i,j,k) -s=parallelize(i,%d)",
    "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss -s=parallelize(i,%d)",
    "X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ss -f=C:ss -s=parallelize(j,%d)",
    "X(i,j)=B(i,j)*C(i,j) -f=X:ds -f=B:ds -f=C:ds -s=parallelize(j,%d)",
};

/* Every schedule with every lane count passes --check and agrees under
 * every engine, on matrices whose shapes fit it (B and C square here, so
 * a product and an elementwise kernel both fit). */
static void test_runs_check(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_gen_urandom(dir, "B.mtx", "23x23", "0.2", 1);
    char *c = test_gen_urandom(dir, "C.mtx", "23x23", "0.2", 2);
    char tb[4200], tc[4200], args[512];
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    static const int lanes[] = {1, 2, 3, 5};
    for (size_t k = 0; k < sizeof schedules / sizeof schedules[0]; k++)
        for (size_t n = 0; n < sizeof lanes / sizeof lanes[0]; n++) {
            snprintf(args, sizeof args, schedules[k], lanes[n]);
            char *graph = test_compile_to(dir, "lanes", args);
            const char *argv[] = {"run", graph, "-t", tb, "-t", tc, NULL};
            test_run_engines(args, dir, argv);
            free(graph);
        }
    free(b), free(c);
    test_tmpdir_remove(dir);
}

/* A lane dealt no element: B has one row, so in 2 and 3 lanes all but
 * one get nothing, and a sparse accumulator there gives D alone, closing
 * no fiber. Gustavson's rows, inner products and an elementwise kernel
 * pass --check under every engine. */
static void test_lanes_given_nothing(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "23 23 3\n5 2 1\n5 7 2\n5 20 3\n");
    char *c = test_gen_urandom(dir, "C.mtx", "23x23", "0.2", 2);
    char tb[4200], tc[4200], args[512];
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    static const int rows[] = {0, 3, 4};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        for (int n = 2; n <= 3; n++) {
            snprintf(args, sizeof args, schedules[rows[k]], n);
            char *graph = test_compile_to(dir, "lanes", args);
            const char *argv[] = {"run", graph, "-t", tb, "-t", tc, NULL};
            test_run_engines(args, dir, argv);
            free(graph);
        }
    free(b), free(c);
    test_tmpdir_remove(dir);
}

/* Rows that sum to nothing: a sparse accumulator drops them, so a lane
 * may hold fewer rows than it was dealt, or none at all (D alone).
 * Gustavson's rows in 2 lanes pass --check under every engine: B's
 * diagonal times a C whose row 0 is empty (lane 0 loses row 0 of 0 2 4)
 * or whose rows 1 and 3 are (lane 1 loses all it has); then 4 x 4 pairs
 * in tiles of 2, where many tiles' rows of a lane all sum to nothing. */
static void test_rows_summing_to_nothing(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "5 5 5\n1 1 1\n2 2 2\n3 3 3\n4 4 4\n5 5 5\n");
    char *c[2] = {test_write_file(dir, "C0.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                 "5 5 4\n2 1 1\n3 2 2\n4 3 3\n5 4 4\n"),
                  test_write_file(dir, "C1.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                 "5 5 3\n1 5 1\n3 2 2\n5 4 4\n")};
    char tb[4200], tc[4200], args[512];
    snprintf(args, sizeof args, schedules[0], 2);
    char *graph = test_compile_to(dir, "lanes", args);
    snprintf(tb, sizeof tb, "B=%s", b);
    for (int k = 0; k < 2; k++) {
        snprintf(tc, sizeof tc, "C=%s", c[k]);
        const char *argv[] = {"run", graph, "-t", tb, "-t", tc, NULL};
        test_run_engines(args, dir, argv);
        free(c[k]);
    }
    free(b);
    static const int seeds[][2] = {{302, 352}, {500, 550}, {804, 854}};
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        b = test_gen_urandom(dir, "B.mtx", "4x4", "0.4", seeds[k][0]);
        char *tiny = test_gen_urandom(dir, "C.mtx", "4x4", "0.4", seeds[k][1]);
        snprintf(tb, sizeof tb, "B=%s", b);
        snprintf(tc, sizeof tc, "C=%s", tiny);
        const char *argv[] = {"run", graph, "-t", tb, "-t", tc, "--tile",
                              "split(i,i1,i0,2) split(k,k1,k0,2) split(j,j1,j0,2)", NULL};
        test_run_engines(args, dir, argv);
        free(b), free(tiny);
    }
    free(graph);
    test_tmpdir_remove(dir);
}

/* The summary of a run of graph on B and C with --check, its statistics
 * in stats; with --hw FILE and --config FILE where hw and config are not
 * NULL. */
static char *run_checked(const char *graph, const char *b, const char *c, const char *hw,
                         const char *config, const char *stats)
{
    char tb[4200], tc[4200], *out = NULL, *errout = NULL;
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    const char *argv[16] = {"run", graph, "-t", tb, "-t", tc, "--check", "--stats", stats};
    int n = 9;
    if (hw) {
        argv[n++] = "--hw";
        argv[n++] = hw;
    }
    if (config) {
        argv[n++] = "--config";
        argv[n++] = config;
    }
    if (test_run_samsim_argv(&out, &errout, argv))
        fail_msg("run %s: %s", graph, errout);
    assert_non_null(strstr(out, "check: pass"));
    free(errout);
    return out;
}

/* The cycles of a checked run of graph on B and C in this process, its
 * statistics written to stats as --stats writes them: the cycles are the
 * run's record, the file is what `samsim stats` reads. */
static long long run(const char *graph, const char *b, const char *c, const char *stats)
{
    char tb[4200], tc[4200], msg[512];
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    test_run_spec s = {.graph = graph, .bind = {tb, tc}, .check = 1, .stats = 1};
    sam_graph g;
    graph_run r;
    sam_error err;
    int rc = test_graph_run(&s, &g, &r, msg, sizeof msg);
    if (rc)
        fail_msg("run %s: status %d: %s", graph, rc, rc < 0 ? msg : r.report);
    if (sim_stats_write_rows(r.stats, r.cycles, NULL, stats, &err))
        fail_msg("%s", err.msg);
    long long cycles = (long long)test_field(&r, "cycles");
    test_graph_run_free(&g, &r);
    return cycles;
}

/* Rows dealt out to 1, 2, 4 lanes take under 70% of the cycles each time
 * (beyond, the serializers, one token a cycle, bound the run), and the
 * statistics have a row per lane whose blocks are the lane's. */
static void test_lanes_speed_up(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_gen_urandom(dir, "B.mtx", "64x64", "0.2", 3);
    char *c = test_gen_urandom(dir, "C.mtx", "64x64", "0.2", 4);
    char *stats = test_path(dir, "stats.csv"), args[512];
    long long last = 0;
    for (int n = 1; n <= 4; n *= 2) {
        snprintf(args, sizeof args, schedules[1], n);
        char *graph = test_compile_to(dir, "lanes", args);
        long long cycles = run(graph, b, c, stats);
        if (last && cycles * 10 > last * 7)
            fail_msg("%d lanes: %lld cycles, %d lanes %lld", n, cycles, n / 2, last);
        last = cycles;
        char *csv = test_read_file(stats), *at = csv;
        int rows = 0;
        while ((at = strstr(at, "\n\"lane\",")))
            rows++, at++;
        assert_int_equal(rows, n);
        free(csv), free(graph);
        char *out = NULL;
        assert_int_equal(test_run_samsim(&out, NULL, "stats", stats, NULL), 0);
        char want[64];
        snprintf(want, sizeof want, "lanes (%d)", n);
        assert_non_null(strstr(out, want));
        free(out);
    }
    free(b), free(c), free(stats);
    test_tmpdir_remove(dir);
}

/* The busy cycles (the 24th column) of block id in a --stats file. */
static long long busy_of(const char *stats, const char *id)
{
    char *csv = test_read_file(stats), want[64];
    snprintf(want, sizeof want, "\n\"block\",\"%s\",", id);
    char *cell = strstr(csv, want);
    assert_non_null(cell);
    for (int k = 1; k < 24; k++)
        cell = strchr(cell + 1, ',');
    long long busy = strtoll(cell + 2, NULL, 10);
    free(csv);
    return busy;
}

/* lane.share = 3 at pe.rate = 6: the blocks in the lanes take 3 times
 * their interval, the others not. So the run, and every block's busy
 * cycles, are those that ii = 3 on each lane's node gives (--config
 * node.N.ii), and the lanes, slower, make the run longer than at pe.rate
 * = 6 alone. */
static void test_lane_share(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_gen_urandom(dir, "B.mtx", "32x32", "0.2", 5);
    char *c = test_gen_urandom(dir, "C.mtx", "32x32", "0.2", 6);
    const char *args = "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss:1,0 -s=reorder(i,j,k) "
                       "-s=parallelize(i,2) -s=split(i,i1,i0,16) -s=split(k,k1,k0,16) "
                       "-s=split(j,j1,j0,16)";
    char *graph = test_compile_to(dir, "lanes", args);
    sam_graph g = test_compiled_graph(dir, args);
    char config[8192] = "", *stats[3];
    size_t used = 0;
    for (int i = 0; i < g.nnodes; i++)
        if (graph_node_attr(&g.nodes[i], "lane") && strcmp(g.nodes[i].type, "broadcast"))
            used += (size_t)snprintf(config + used, sizeof config - used, "node.%s.ii = 3\n",
                                     g.nodes[i].id);
    assert_true(used > 0 && used < sizeof config);
    char *cfg = test_write_file(dir, "lanes.conf", config);
    static const char *const hw[] = {"pe.rate = 6\nlane.share = 3\n", "pe.rate = 6\n",
                                     "pe.rate = 6\n"};
    char *out[3];
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "stats%d.csv", k);
        stats[k] = test_path(dir, name);
        char *h = test_write_file(dir, "lanes.hw", hw[k]);
        out[k] = run_checked(graph, b, c, h, k == 1 ? cfg : NULL, stats[k]);
        free(h);
    }
    assert_int_equal(test_summary(out[0], "cycles"), test_summary(out[1], "cycles"));
    assert_true(test_summary(out[0], "cycles") > test_summary(out[2], "cycles"));
    int lane_blocks = 0;
    for (int i = 0; i < g.nnodes; i++) {
        const graph_node *n = &g.nodes[i];
        if (strcmp(n->type, "broadcast")) {
            lane_blocks += graph_node_attr(n, "lane") != NULL;
            assert_int_equal(busy_of(stats[0], n->id), busy_of(stats[1], n->id));
        }
    }
    assert_true(lane_blocks > 4);
    for (int k = 0; k < 3; k++)
        free(out[k]), free(stats[k]);
    graph_free(&g);
    free(b), free(c), free(graph), free(cfg);
    test_tmpdir_remove(dir);
}

static void test_refusals(void **state)
{
    (void)state;
    const char *mm = "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) ";
    char args[256];
    snprintf(args, sizeof args, "%s-s=parallelize(q,2)", mm);
    test_compile_refused("no such index", args, "no index q in the expression");
    snprintf(args, sizeof args, "%s-s=parallelize(i,0)", mm);
    test_compile_refused("no lanes", args, "lanes must be 1 to 32");
    snprintf(args, sizeof args, "%s-s=parallelize(i,33)", mm);
    test_compile_refused("too many lanes", args, "lanes must be 1 to 32");
    snprintf(args, sizeof args, "%s-s=parallelize(i)", mm);
    test_compile_refused("no count", args, "expected parallelize(INDEX,LANES)");
    snprintf(args, sizeof args, "%s-s=parallelize(i,2) -s=parallelize(k,2)", mm);
    test_compile_refused("twice", args, "one loop is parallelized at most");
    snprintf(args, sizeof args, "%s-s=parallelize(j,2)", mm);
    const char *outside = "the accumulator sums k, a loop outside the lanes";
    test_compile_refused("accumulator outside", args, outside);
    test_compile_refused("outer products' rows",
                         "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j) "
                         "-s=parallelize(i,2)",
                         outside);
    test_compile_refused("reduced inside",
                         "x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:s -s=parallelize(j,2)",
                         "j is reduced inside each lane");
    test_compile_refused("a term outside", "y(i)=B(i,j)*c(j)+d(i) -f=y:s -s=parallelize(j,2)",
                         "d is not iterated under j");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_in_lanes),
        cmocka_unit_test(test_gamma_form),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_runs_check),
        cmocka_unit_test(test_lanes_given_nothing),
        cmocka_unit_test(test_rows_summing_to_nothing),
        cmocka_unit_test(test_lanes_speed_up),
        cmocka_unit_test(test_lane_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
