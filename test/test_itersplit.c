/* Iteration splitting (custard/itersplit.h): a split the loop order names
 * is iterated in the graph, each tensor storing a level per part. The
 * compiled graph and its formats; runs under every engine with --check;
 * the same cycles and tokens as the unsplit expression over the parts run
 * on operands split by another path (convert --tile); refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../custard/compile.h"
#include "../graph/graph.h"
#include "test_util.h"

/* The graph comment again, "x=ss01,b=ss01". */
static void comment_of(const sam_graph *g, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int t = 0; t < g->ntensors && used < size; t++) {
        char f[2 * TENSOR_MAX_ORDER + 1];
        level_format_str(&g->tensors[t].format, f, sizeof f);
        used += (size_t)snprintf(buf + used, size - used, "%s%s=%s", t ? "," : "",
                                 g->tensors[t].name, f);
    }
}

static void assert_comment(const sam_graph *g, const char *want)
{
    char got[256];
    comment_of(g, got, sizeof got);
    assert_string_equal(got, want);
}

static int count_nodes(const sam_graph *g, const char *type, const char *index)
{
    int n = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const char *idx = graph_node_attr(&g->nodes[i], "index");
        n += !strcmp(g->nodes[i].type, type) && (!index || (idx && !strcmp(idx, index)));
    }
    return n;
}

/* The graph iterates both parts: a scanner per tensor and an intersecter
 * at each; it records the expression as written and the split. */
static void test_graph_iterates_parts(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    sam_graph g = test_compiled_graph(dir, "x(i)=b(i)*c(i) -f=x:s -f=b:s -f=c:s "
                                           "-s=split(i,i1,i0,64) -s=reorder(i1,i0)");
    assert_string_equal(graph_attr_get(&g, "expr"), "x(i)=b(i)*c(i)");
    assert_string_equal(graph_attr_get(&g, "itersplit"), "split(i,i1,i0,64)");
    assert_string_equal(graph_attr_get(&g, "schedule"), "reorder(i1,i0)");
    assert_null(graph_attr_get(&g, "tiling"));
    assert_comment(&g, "x=ss01,b=ss01,c=ss01");
    assert_int_equal(count_nodes(&g, "fiberlookup", "i1"), 2);
    assert_int_equal(count_nodes(&g, "fiberlookup", "i0"), 2);
    assert_int_equal(count_nodes(&g, "intersect", "i1"), 1);
    assert_int_equal(count_nodes(&g, "intersect", "i0"), 1);
    assert_int_equal(count_nodes(&g, "fiberwrite", NULL), 3);
    graph_free(&g);
    test_tmpdir_remove(dir);
}

/* A format per mode as written gives each part the split mode's letter,
 * in the mode order mapped onto the parts; one per part is taken as is. */
static void test_formats_per_part(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    sam_graph g = test_compiled_graph(dir, "X(i,j)=B(j,i) -f=X:ss -f=B:ds:1,0 "
                                           "-s=split(i,i1,i0,8) -s=reorder(i1,i0,j)");
    assert_comment(&g, "X=sss012,B=dds120");
    graph_free(&g);
    g = test_compiled_graph(dir, "x(i)=b(i)*c(i) -f=x:s -f=b:sd -f=c:s -s=split(i,i1,i0,16) "
                                 "-s=reorder(i1,i0)");
    assert_comment(&g, "x=ss01,b=sd01,c=ss01");
    graph_free(&g);
    test_tmpdir_remove(dir);
}

static char *gen(const char *dir, const char *name, const char *kind, const char *shape,
                 const char *amount, int seed)
{
    char file[64], seeds[16];
    snprintf(file, sizeof file, "%s.tns", name);
    snprintf(seeds, sizeof seeds, "%d", seed);
    char *path = test_path(dir, file);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", kind, "--shape", shape, "--density",
                                     amount, "--seed", seeds, "-o", path, NULL),
                     0);
    return path;
}

typedef struct split_case {
    const char *args;
    const char *operands[3];    /* name:shape, density 0.3 */
} split_case;

static const split_case cases[] = {
    {"x(i)=b(i)*c(i) -s=split(i,i1,i0,64) -s=reorder(i1,i0)", {"b:2000", "c:2000"}},
    {"x(i)=b(i)+c(i) -f=x:ss -f=b:ds -s=split(i,i1,i0,7) -s=reorder(i1,i0)", {"b:60", "c:60"}},
    {"x(i)=b(i)*c(i) -s=split(i,i1,i0,64) -s=split(i0,i01,i00,8) -s=reorder(i1,i01,i00)",
     {"b:1000", "c:1000"}},
    {"x(i)=B(i,j)*c(j) -f=x:s -f=B:ds -f=c:s -s=split(j,j1,j0,10) -s=reorder(i,j1,j0)",
     {"B:30x45", "c:45"}},
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss:1,0 -s=split(k,k1,k0,4) "
     "-s=reorder(i,j,k1,k0)",
     {"B:20x30", "C:30x25"}},
    {"X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss -s=split(i,i1,i0,5) -s=split(j,j1,j0,6) "
     "-s=reorder(i1,i0,j1,j0)",
     {"B:23x31", "C:23x31"}},
};

static void run_case(const split_case *c, const char *dir)
{
    char *graph = test_compile_to(dir, "split", c->args);
    const char *argv[TEST_MAX_ARGS + 1] = {"run", graph};
    char *owned[6], bind[3][4200];
    int n = 2, nowned = 0;
    for (int k = 0; k < 3 && c->operands[k]; k++) {
        char name[16];
        const char *colon = strchr(c->operands[k], ':');
        snprintf(name, sizeof name, "%.*s", (int)(colon - c->operands[k]), c->operands[k]);
        owned[nowned] = gen(dir, name, "urandom", colon + 1, "0.3", k + 1);
        snprintf(bind[k], sizeof bind[k], "%s=%s", name, owned[nowned++]);
        argv[n++] = "-t", argv[n++] = bind[k];
    }
    argv[n] = NULL;
    test_run_engines(c->args, dir, argv);
    for (int k = 0; k < nowned; k++)
        free(owned[k]);
    free(graph);
}

/* Every case passes --check, the same under every engine. */
static void test_runs_check(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        run_case(&cases[k], dir);
    test_tmpdir_remove(dir);
}

/* A checked run of graph on b and c in this process: its cycles, and its
 * token moves in *tokens. */
static long long run_cycles(const char *graph, const char *b, const char *c, long long *tokens)
{
    char tb[4200], tc[4200], msg[512];
    snprintf(tb, sizeof tb, "b=%s", b);
    snprintf(tc, sizeof tc, "c=%s", c);
    test_run_spec s = {.graph = graph, .bind = {tb, tc}, .check = 1};
    sam_graph g;
    graph_run r;
    int rc = test_graph_run(&s, &g, &r, msg, sizeof msg);
    if (rc)
        fail_msg("run %s: status %d: %s", graph, rc, rc < 0 ? msg : r.report);
    long long cycles = (long long)test_field(&r, "cycles");
    *tokens = (long long)test_field(&r, "tokens");
    test_graph_run_free(&g, &r);
    return cycles;
}

/* The split graph is the unsplit expression over the parts: on operands
 * split by convert --tile (formats/tile.c, another path than the run's),
 * that expression takes the same cycles and token moves. */
static void test_same_as_parts(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *split = test_compile_to(dir, "split", "x(i)=b(i)*c(i) -s=split(i,i1,i0,64) "
                                                "-s=reorder(i1,i0)");
    char *parts = test_compile_to(dir, "parts", "x(i1,i0)=b(i1,i0)*c(i1,i0)");
    for (int seed = 1; seed <= 3; seed++) {
        char *b = gen(dir, "b", "urandom", "2000", seed == 3 ? "0.9" : "0.1", seed);
        char *c = gen(dir, "c", "urandom", "2000", "0.2", seed + 10);
        char *b2 = test_path(dir, "b2.tns"), *c2 = test_path(dir, "c2.tns");
        assert_int_equal(test_run_samsim(NULL, NULL, "convert", b, b2, "--tile", "64", NULL), 0);
        assert_int_equal(test_run_samsim(NULL, NULL, "convert", c, c2, "--tile", "64", NULL), 0);
        long long t1, t2;
        assert_int_equal(run_cycles(split, b, c, &t1), run_cycles(parts, b2, c2, &t2));
        assert_int_equal(t1, t2);
        free(b), free(c), free(b2), free(c2);
    }
    free(split), free(parts);
    test_tmpdir_remove(dir);
}

static void test_refusals(void **state)
{
    (void)state;
    test_compile_refused("occupancy", "x(i)=b(i)*c(i) -s=split(i,i1,i0,b.8) -s=reorder(i1,i0)",
                         "is by shape");
    test_compile_refused("growing",
                         "x(i)=b(i)*c(i) -s=split(i,i1,i0,8) -s=split(i0,i01,i00,8) "
                         "-s=reorder(i1,i01,i00)",
                         "has only 8");
    test_compile_refused("both",
                         "X(i,j)=B(i,j)*C(i,j) -s=split(i,i1,i0,8) -s=split(j,j1,j0,8) "
                         "-s=reorder(i1,i0,j)",
                         "does not do both");
    test_compile_refused("a part left out", "x(i)=b(i)*c(i) -s=split(i,i1,i0,8) -s=reorder(i1)",
                         "misses index i0");
    test_compile_refused("the whole index",
                         "x(i)=b(i)*c(i) -s=split(i,i1,i0,8) -s=reorder(i1,i0,i)",
                         "no index variable 'i'");
}

/* A run refuses operands whose split index sizes differ, and tiling. */
static void test_run_refusals(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_compile_to(dir, "split", "x(i)=b(i)*c(i) -s=split(i,i1,i0,64) "
                                                "-s=reorder(i1,i0)");
    char *b = gen(dir, "b", "urandom", "2000", "0.1", 1);
    char *c = gen(dir, "c", "urandom", "1999", "0.1", 2);
    char tb[4200], tc[4200], *errout = NULL;
    snprintf(tb, sizeof tb, "b=%s", b);
    snprintf(tc, sizeof tc, "c=%s", c);
    assert_int_equal(test_run_samsim(NULL, &errout, "run", graph, "-t", tb, "-t", tc, NULL), 1);
    assert_non_null(strstr(errout, "index i has size 2000 in b but 1999 in c"));
    free(errout);
    assert_int_equal(test_run_samsim(NULL, &errout, "run", graph, "-t", tb, "-t", tb, "--tile",
                                     "split(i,i1,i0,8)", NULL),
                     1);
    assert_non_null(strstr(errout, "cannot be tiled as well"));
    free(errout), free(b), free(c), free(graph);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_iterates_parts),
        cmocka_unit_test(test_formats_per_part),
        cmocka_unit_test(test_runs_check),
        cmocka_unit_test(test_same_as_parts),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_run_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
