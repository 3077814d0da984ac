/* The bitvector level format (SAM paper section 4.3) end to end: b
 * levels through fibertrees and SAM directories and back, and the graphs
 * the compiler makes for b levels, run under every engine with --check.
 * test_level_kinds and test_bad_input hold the format's refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/fibertree.h"
#include "../formats/samdir.h"
#include "../graph/graph.h"
#include "test_util.h"

/* A random tensor of the given dims, about a third of it filled. */
static void random_tensor(tensor *t, int order, const int64_t *dims, unsigned seed)
{
    sam_error err;
    assert_int_equal(tensor_init(t, order, dims, &err), 0);
    int64_t total = 1, at[TENSOR_MAX_ORDER];
    for (int m = 0; m < order; m++)
        total *= dims[m];
    srand(seed);
    for (int64_t e = 0; e < total; e++) {
        if (rand() % 3)
            continue;
        int64_t rest = e;
        for (int m = order - 1; m >= 0; m--)
            at[m] = rest % dims[m], rest /= dims[m];
        assert_int_equal(tensor_append(t, at, (double)(e + 1), &err), 0);
    }
}

static void assert_same_tensor(const tensor *a, const tensor *b)
{
    assert_int_equal(a->nnz, b->nnz);
    for (size_t e = 0; e < a->nnz; e++) {
        for (int m = 0; m < a->order; m++)
            assert_int_equal(a->crd[m][e], b->crd[m][e]);
        assert_true(a->vals[e] == b->vals[e]);
    }
}

/* Every format with a b level keeps the entries, through a fibertree and
 * through a SAM directory, for dims on and off 64-bit word boundaries. */
static void test_round_trips(void **state)
{
    (void)state;
    static const struct {
        const char *format;
        int order;
        int64_t dims[3];
    } cases[] = {
        {"b", 1, {1}},     {"b", 1, {64}},          {"b", 1, {65}},
        {"b", 1, {200}},   {"sb", 2, {7, 130}},     {"bs", 2, {129, 5}},
        {"bb", 2, {3, 64}}, {"db", 2, {4, 100}},    {"bd10", 2, {9, 70}},
        {"sbb", 3, {4, 66, 3}}, {"bsb", 3, {5, 3, 128}},
    };
    char *dir = test_tmpdir();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tensor t, back, sorted;
        level_format f;
        fibertree ft, read;
        sam_error err;
        random_tensor(&t, cases[k].order, cases[k].dims, (unsigned)k + 1);
        assert_int_equal(level_format_parse(cases[k].format, &f, &err), 0);
        if (fibertree_build(&t, &f, &ft, &err) || fibertree_validate(&ft, &err))
            fail_msg("%s: %s", cases[k].format, err.msg);
        assert_int_equal(fibertree_to_tensor(&ft, &back, &err), 0);
        assert_int_equal(tensor_copy(&sorted, &t, &err), 0);
        assert_int_equal(tensor_canonicalize(&sorted, NULL, &err), 0);
        assert_same_tensor(&back, &sorted);
        tensor_free(&back);
        if (samdir_write(dir, "T", &ft, &err) || samdir_read(dir, "T", NULL, &read, &err))
            fail_msg("%s: %s", cases[k].format, err.msg);
        char name[2 * TENSOR_MAX_ORDER + 1], want[2 * TENSOR_MAX_ORDER + 1];
        level_format got;
        fibertree_format(&read, &got);
        level_format_str(&got, name, sizeof name);
        level_format_str(&f, want, sizeof want);
        assert_string_equal(name, want);
        assert_int_equal(fibertree_to_tensor(&read, &back, &err), 0);
        assert_same_tensor(&back, &sorted);
        tensor_free(&back), tensor_free(&sorted), tensor_free(&t);
        fibertree_free(&ft), fibertree_free(&read);
    }
    test_tmpdir_remove(dir);
}

static int count(const sam_graph *g, const char *type, const char *key, const char *value)
{
    int n = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const char *v = key ? graph_node_attr(&g->nodes[i], key) : NULL;
        n += !strcmp(g->nodes[i].type, type) && (!key || (v && !strcmp(v, value)));
    }
    return n;
}

/* All b sides joined by their words; a b side meeting another level, or
 * alone, expanded first; a b result converted and written as words. */
static void test_graphs(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    sam_graph g = test_compiled_graph(dir, "x(i)=b(i)*c(i) -f=x:s -f=b:b -f=c:b");
    assert_int_equal(count(&g, "fiberlookup", "format", "bitvector"), 2);
    assert_int_equal(count(&g, "intersect", "format", "bitvector"), 1);
    assert_int_equal(count(&g, "bv", NULL, NULL), 0);
    graph_free(&g);
    g = test_compiled_graph(dir, "x(i)=b(i)+c(i) -f=x:s -f=b:b -f=c:s");
    assert_int_equal(count(&g, "bv", "to", "crd"), 1);
    assert_int_equal(count(&g, "union", "format", "bitvector"), 0);
    assert_int_equal(count(&g, "union", NULL, NULL), 1);
    graph_free(&g);
    g = test_compiled_graph(dir, "x(i)=b(i) -f=x:b -f=b:b");
    assert_int_equal(count(&g, "bv", "to", "crd"), 1);
    assert_int_equal(count(&g, "bv", "index", "i") - count(&g, "bv", "to", "crd"), 1);
    assert_int_equal(count(&g, "fiberwrite", "format", "bitvector"), 1);
    graph_free(&g);
    test_tmpdir_remove(dir);
}

typedef struct bv_case {
    const char *args;
    const char *shape;      /* of both operands */
} bv_case;

static const bv_case cases[] = {
    {"x(i)=b(i)*c(i) -f=x:s -f=b:b -f=c:b", "300"},
    {"x(i)=b(i)+c(i) -f=x:s -f=b:b -f=c:b", "300"},
    {"x(i)=b(i)*c(i) -f=x:b -f=b:b -f=c:s", "130"},
    {"x(i)=b(i)-c(i) -f=x:b -f=b:d -f=c:b", "64"},
    {"x(i)=b(i)*c(i) -f=x:s -f=b:b -f=c:b -s=split(i,i1,i0,64) -s=reorder(i1,i0)", "1000"},
    {"x(i)=b(i)*c(i) -f=x:bb -f=b:b -f=c:b -s=split(i,i1,i0,16) -s=reorder(i1,i0)", "500"},
    {"X(i,j)=B(i,j)*C(i,j) -f=X:bb -f=B:bb -f=C:bb", "20x70"},
    {"X(i,j)=B(i,j)+C(i,j) -f=X:sb -f=B:sb -f=C:ss", "20x70"},
    {"X(i,j)=B(i,j)*C(i,j) -f=X:db -f=B:db -f=C:sb", "20x70"},
};

/* Every case passes --check, the same under every engine. */
static void test_runs_check(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int matrix = cases[k].args[0] == 'X';
        char *graph = test_compile_to(dir, "bv", cases[k].args);
        char *b = test_gen_urandom(dir, "b.tns", cases[k].shape, "0.3", 2 * (int)k + 1);
        char *c = test_gen_urandom(dir, "c.tns", cases[k].shape, "0.3", 2 * (int)k + 2);
        char tb[4200], tc[4200];
        snprintf(tb, sizeof tb, "%s=%s", matrix ? "B" : "b", b);
        snprintf(tc, sizeof tc, "%s=%s", matrix ? "C" : "c", c);
        const char *argv[] = {"run", graph, "-t", tb, "-t", tc, NULL};
        test_run_engines(cases[k].args, dir, argv);
        free(graph), free(b), free(c);
    }
    test_tmpdir_remove(dir);
}

/* A located level cannot be a bitvector; a located tensor's leader can. */
static void test_locate(void **state)
{
    (void)state;
    char *errout = NULL, *out = NULL;
    assert_int_equal(test_run_samsim(NULL, &errout, "compile", "x(i)=B(i,j)*c(j)", "-f=x:s",
                                     "-f=B:ss", "-f=c:b", "-s=locate(c)", NULL),
                     1);
    assert_non_null(strstr(errout, "locate(c): its level of j is a bitvector"));
    free(errout);
    assert_int_equal(test_run_samsim(&out, NULL, "compile", "x(i)=B(i,j)*c(j)", "-f=x:s",
                                     "-f=B:sb", "-f=c:d", "-s=locate(c)", NULL),
                     0);
    assert_non_null(strstr(out, "to=crd"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),     cmocka_unit_test(test_graphs),
        cmocka_unit_test(test_runs_check),      cmocka_unit_test(test_locate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
