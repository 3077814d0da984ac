/* Parallel lanes (SAM paper section 4.4; custard/compile.c's lower_parallel):
 * parallelize(i,N) deals a loop's elements out to N lanes and joins the
 * lanes' streams back. The compiled graph; refusals of what lanes cannot
 * compute apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../graph/graph.h"
#include "test_util.h"

static sam_graph compiled(const char *dir, const char *args)
{
    char *path = test_compile_to(dir, "g", args);
    sam_graph g;
    sam_error err;
    if (graph_read_dot(path, &g, &err))
        fail_msg("%s", err.msg);
    free(path);
    return g;
}

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

/* Gustavson's X = B C with its rows in 3 lanes: one parallelizer taking
 * i's coordinates and both references, the loops inside i once per lane,
 * and a serializer for each stream the writers take: i at depth 0, j and
 * the values at depth 1. */
static void test_rows_in_lanes(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    sam_graph serial = compiled(dir, "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss "
                                     "-s=reorder(i,k,j)");
    sam_graph g = compiled(dir, "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss "
                                "-s=reorder(i,k,j) -s=parallelize(i,3)");
    assert_string_equal(graph_attr_get(&g, "parallelize"), "i,3");
    assert_int_equal(count(&g, "parallelize", "lanes", "3"), 1);
    assert_int_equal(count(&g, "serialize", "depth", "0"), 1);
    assert_int_equal(count(&g, "serialize", "depth", "1"), 2);
    /* What is inside i: the serial graph's nodes not on i's level. */
    int inside = count(&serial, NULL, NULL, NULL) - count(&serial, "fiberwrite", NULL, NULL) -
                 count(&serial, "broadcast", NULL, NULL) - 3;
    for (int lane = 0; lane < 3; lane++) {
        char l[4];
        snprintf(l, sizeof l, "%d", lane);
        assert_int_equal(count(&g, NULL, "lane", l) - count(&g, "broadcast", "lane", l), inside);
        /* 3 out of the parallelizer, 3 into the serializers. */
        assert_int_equal(lane_edges(&g, l), 6);
    }
    assert_int_equal(count(&g, "fiberwrite", "lane", ""), 3);
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
    sam_graph g = compiled(dir, "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss "
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

static void refused(const char *what, const char *args, const char *message)
{
    char *buf, *errout = NULL;
    const char *argv[TEST_MAX_ARGS + 1] = {"compile"};
    int n = test_split_args(args, &buf, argv, 1);
    argv[n] = NULL;
    if (test_run_samsim_argv(NULL, &errout, argv) == 0)
        fail_msg("%s: compiled", what);
    if (!strstr(errout, message))
        fail_msg("%s: expected '%s' in: %s", what, message, errout);
    if (strchr(errout, '\n') != errout + strlen(errout) - 1)
        fail_msg("%s: not one line: %s", what, errout);
    free(buf), free(errout);
}

static void test_refusals(void **state)
{
    (void)state;
    const char *mm = "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) ";
    char args[256];
    snprintf(args, sizeof args, "%s-s=parallelize(q,2)", mm);
    refused("no such index", args, "no index q in the expression");
    snprintf(args, sizeof args, "%s-s=parallelize(i,0)", mm);
    refused("no lanes", args, "lanes must be 1 to 64");
    snprintf(args, sizeof args, "%s-s=parallelize(i,65)", mm);
    refused("too many lanes", args, "lanes must be 1 to 64");
    snprintf(args, sizeof args, "%s-s=parallelize(i)", mm);
    refused("no count", args, "expected parallelize(INDEX,LANES)");
    snprintf(args, sizeof args, "%s-s=parallelize(i,2) -s=parallelize(k,2)", mm);
    refused("twice", args, "one loop is parallelized at most");
    snprintf(args, sizeof args, "%s-s=parallelize(j,2)", mm);
    refused("accumulator outside", args, "the accumulator over k spans i");
    refused("reduced inside", "x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:s -s=parallelize(j,2)",
            "j is reduced inside each lane");
    refused("a term outside", "y(i)=B(i,j)*c(j)+d(i) -f=y:s -s=parallelize(j,2)",
            "d is not iterated under j");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_in_lanes),
        cmocka_unit_test(test_gamma_form),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
