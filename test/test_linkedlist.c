/* OuterSPACE's multiply phase (SAM paper Fig. 16): partial products
 * Y(i,k,j) = B(i,k) C(k,j) computed in loop order k, i, j and stored in
 * order i, k, j with k a linked-list level, written by the linked-list
 * writer in whatever order the fibers' nodes come. The graph, runs under
 * every engine with --check, the result read back from its SAM directory
 * against products of B's and C's entries computed here, and refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/fibertree.h"
#include "../formats/samdir.h"
#include "../formats/tensor_file.h"
#include "../blocks/blocks.h"
#include "test_harness.h"
#include "test_util.h"

#define MULTIPLY "Y(i,k,j)=B(i,k)*C(k,j) -f=Y:dls -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)"

static int count(const sam_graph *g, const char *type, const char *key, const char *value)
{
    int n = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const char *v = graph_node_attr(&g->nodes[i], key);
        n += !strcmp(g->nodes[i].type, type) && v && !strcmp(v, value);
    }
    return n;
}

/* The k level's writer reads k's and i's coordinates; the dense i level
 * has no writer. */
static void test_graph(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    sam_graph g = test_compiled_graph(dir, MULTIPLY);
    assert_int_equal(count(&g, "fiberwrite", "format", "linkedlist"), 1);
    assert_int_equal(count(&g, "fiberwrite", "parent", "i"), 1);
    assert_int_equal(count(&g, "fiberwrite", "parent_mode", "0"), 1);
    assert_int_equal(count(&g, "fiberwrite", "mode", "0"), 0);
    assert_string_equal(graph_tensor_index(&g, "Y", 0), "i");
    graph_free(&g);
    test_tmpdir_remove(dir);
}

static tensor read_tensor(const char *path)
{
    tensor t;
    tensor_file f = {.path = path};
    sam_error err;
    if (tensor_file_read(&f, &t, &err))
        fail_msg("%s", err.msg);
    return t;
}

/* Every entry of y is B(i,k) C(k,j) for entries of B and C, and every
 * such product is in y. */
static void assert_products(const tensor *y, const tensor *b, const tensor *c)
{
    size_t products = 0;
    for (size_t p = 0; p < b->nnz; p++)
        for (size_t q = 0; q < c->nnz; q++) {
            if (b->crd[1][p] != c->crd[0][q])
                continue;
            products++;
            int found = 0;
            for (size_t e = 0; e < y->nnz && !found; e++)
                found = y->crd[0][e] == b->crd[0][p] && y->crd[1][e] == b->crd[1][p] &&
                        y->crd[2][e] == c->crd[1][q] && y->vals[e] == b->vals[p] * c->vals[q];
            if (!found)
                fail_msg("Y(%lld,%lld,%lld) missing", (long long)b->crd[0][p],
                         (long long)b->crd[1][p], (long long)c->crd[1][q]);
        }
    assert_int_equal(y->nnz, products);
}

/* Under every engine the multiply passes --check and agrees; the SAM
 * directory it writes holds a linked-list level whose lists, walked by
 * their pointers, give exactly the products. */
static void test_multiply(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_compile_to(dir, "multiply", MULTIPLY);
    for (int seed = 1; seed <= 3; seed++) {
        char *b = test_gen_urandom(dir, "B.mtx", "30x20", seed == 3 ? "0.05" : "0.2", seed);
        char *c = test_gen_urandom(dir, "C.mtx", "20x25", "0.2", seed + 10);
        char tb[4200], tc[4200];
        snprintf(tb, sizeof tb, "B=%s", b);
        snprintf(tc, sizeof tc, "C=%s", c);
        const char *argv[] = {"run", graph, "-t", tb, "-t", tc, NULL};
        test_run_engines(MULTIPLY, dir, argv);
        char *ydir = test_path(dir, "Y");
        assert_int_equal(test_run_samsim(NULL, NULL, "run", graph, "-t", tb, "-t", tc, "-o", ydir,
                                         NULL),
                         0);
        fibertree ft;
        sam_error err;
        if (samdir_read(ydir, "Y", NULL, &ft, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(ft.lv[0].kind, 'd');
        assert_int_equal(ft.lv[1].kind, 'l');
        assert_int_equal(ft.lv[1].nhead, 30);
        tensor y, bt = read_tensor(b), ct = read_tensor(c);
        assert_int_equal(fibertree_to_tensor(&ft, &y, &err), 0);
        assert_products(&y, &bt, &ct);
        tensor_free(&y), tensor_free(&bt), tensor_free(&ct), fibertree_free(&ft);
        free(b), free(c), free(ydir);
    }
    free(graph);
    test_tmpdir_remove(dir);
}

/* The writer alone: own coordinates k = 0, 2 with parent fibers [1 3]
 * and [1]: node 0 (k 0) and node 2 (k 2) in fiber 1's list, node 1 in
 * fiber 3's; a parent token a cycle, D taken in cycle 5. */
static void test_writer_tokens(void **state)
{
    (void)state;
    harness_spec s = {.ops = &fiberwrite_linkedlist_ops,
                      .attrs = "tensor=Y,index=k,parent=i,mode=1,format=linkedlist",
                      .inputs = {"0 2 S0 D", "1 3 S0 1 S1 D"}};
    harness_out out;
    harness_run(&s, &out);
    assert_true(out.done);
    assert_int_equal(out.done_cycle, 5);
    fibertree res = {.order = 2, .dims = {5, 4}};
    res.lv[0] = (fiber_level){.kind = 'd', .mode = 0, .dim = 5};
    res.lv[1] = (fiber_level){.kind = 's', .mode = 1, .dim = 4};
    sam_error err = {{0}};
    graph_node node = {.id = "0", .type = "fiberwrite"};
    out.blk.node = &node;
    assert_int_equal(out.blk.ops->collect(&out.blk, &res, &err), 0);
    const fiber_level *l = &res.lv[1];
    static const int64_t head[] = {-1, 0, -1, 1, -1}, crd[] = {0, 0, 2}, next[] = {2, -1, -1};
    assert_int_equal(l->kind, 'l');
    assert_int_equal(l->nhead, 5);
    assert_int_equal(l->ncrd, 3);
    assert_memory_equal(l->head, head, sizeof head);
    assert_memory_equal(l->crd, crd, sizeof crd);
    assert_memory_equal(l->next, next, sizeof next);
    free(l->head), free(l->crd), free(l->next);
    harness_free(&out);
}

static void test_refusals(void **state)
{
    (void)state;
    test_compile_refused("an operand", "Y(i,k)=B(i,k) -f=Y:ds -f=B:dl",
                         "a linked-list level (l) is built only in the result");
    test_compile_refused("no dense parent", "Y(i,k)=B(i,k) -f=Y:sl -f=B:ss:1,0 -s=reorder(k,i)",
                         "below a dense level");
    test_compile_refused("a loop between", "Y(i,k,j)=B(i,k)*C(k,j) -f=Y:dls -f=B:ss:1,0 "
                                           "-f=C:ss:1,0 -s=reorder(k,j,i)",
                         "against the loop order");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph),
        cmocka_unit_test(test_writer_tokens),
        cmocka_unit_test(test_multiply),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
