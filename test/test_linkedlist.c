/* OuterSPACE's multiply phase (SAM paper Fig. 16): partial products
 * Y(i,k,j) = B(i,k) C(k,j) computed in loop order k, i, j and stored in
 * order i, k, j with k a linked-list level, written by the linked-list
 * writer in whatever order the fibers' nodes come. The graph, runs under
 * every engine with --check, the result read back from its SAM directory
 * against products of B's and C's entries computed here, and refusals;
 * then operands stored as linked lists, scanned by the linked-list
 * scanner, and the merge phase reading what the multiply phase wrote. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../formats/fibertree.h"
#include "../formats/layout.h"
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
 * fiber 3's; a parent token a cycle, D taken in cycle 5. The dense level
 * above comes back as the parent coordinates that have lists, 1 and 3,
 * with a head each. */
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
    static const int64_t seg[] = {0, 2}, parents[] = {1, 3};
    assert_int_equal(res.lv[0].kind, 's');
    assert_int_equal(res.lv[0].nseg, 2);
    assert_int_equal(res.lv[0].ncrd, 2);
    assert_memory_equal(res.lv[0].seg, seg, sizeof seg);
    assert_memory_equal(res.lv[0].crd, parents, sizeof parents);
    const fiber_level *l = &res.lv[1];
    static const int64_t head[] = {0, 1}, crd[] = {0, 0, 2}, next[] = {2, -1, -1};
    assert_int_equal(l->kind, 'l');
    assert_int_equal(l->nhead, 2);
    assert_int_equal(l->ncrd, 3);
    assert_memory_equal(l->head, head, sizeof head);
    assert_memory_equal(l->crd, crd, sizeof crd);
    assert_memory_equal(l->next, next, sizeof next);
    fibertree_free(&res);
    harness_free(&out);
}

/* Parent coordinates far apart cost a fiber each, not the span between
 * them; one beyond the dense level's dimension is refused at collection. */
static void test_writer_sparse_parents(void **state)
{
    (void)state;
    harness_spec s = {.ops = &fiberwrite_linkedlist_ops,
                      .attrs = "tensor=Y,index=k,parent=i,mode=1,format=linkedlist",
                      .inputs = {"0 1 S0 D", "1999999999 3 S0 1999999999 S1 D"}};
    harness_out out;
    harness_run(&s, &out);
    assert_true(out.done);
    fibertree res = {.order = 2, .dims = {2000000000, 4}};
    res.lv[0] = (fiber_level){.kind = 'd', .mode = 0, .dim = 2000000000};
    res.lv[1] = (fiber_level){.kind = 's', .mode = 1, .dim = 4};
    sam_error err = {{0}};
    graph_node node = {.id = "0", .type = "fiberwrite"};
    out.blk.node = &node;
    assert_int_equal(out.blk.ops->collect(&out.blk, &res, &err), 0);
    static const int64_t parents[] = {3, 1999999999}, head[] = {1, 0}, next[] = {2, -1, -1};
    assert_memory_equal(res.lv[0].crd, parents, sizeof parents);
    assert_memory_equal(res.lv[1].head, head, sizeof head);
    assert_memory_equal(res.lv[1].next, next, sizeof next);
    fibertree_free(&res);
    res = (fibertree){.order = 2, .dims = {1999999999, 4}};
    res.lv[0] = (fiber_level){.kind = 'd', .mode = 0, .dim = 1999999999};
    res.lv[1] = (fiber_level){.kind = 's', .mode = 1, .dim = 4};
    assert_int_equal(out.blk.ops->collect(&out.blk, &res, &err), -1);
    assert_string_equal(err.msg, "node 0 (fiberwrite): parent coordinate 1999999999 is beyond "
                                 "the dimension 1999999999 of level 0");
    harness_free(&out);
}

/* Runs graph on B (and C, when given) and expects exit status 1 with one
 * line of stderr: prefix, anything without a newline (a cycle), suffix. */
static void expect_run_refused(const char *graph, const char *b, const char *c,
                               const char *prefix, const char *suffix)
{
    char tb[4200], tc[4200], *se = NULL;
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c ? c : "");
    int rc = c ? test_run_samsim(NULL, &se, "run", graph, "-t", tb, "-t", tc, NULL)
               : test_run_samsim(NULL, &se, "run", graph, "-t", tb, NULL);
    assert_int_equal(rc, 1);
    size_t n = strlen(se), np = strlen(prefix), ns = strlen(suffix);
    if (n < np + ns || strncmp(se, prefix, np) || strcmp(se + n - ns, suffix) ||
        memchr(se + np, '\n', n - np - ns))
        fail_msg("stderr '%s' is not '%s...%s'", se, prefix, suffix);
    free(se);
}

/* The writer knows its parent's coordinates only: a list level deeper
 * than level 1 is refused when the graph is built (it would put every
 * list under the first position above), and one written in loop order
 * (own loop inside the parent's, each parent met with the first own
 * coordinate only) when the parent's D comes before the own one's. Both
 * gave wrong results or malformed ones. */
static void test_writer_refusals(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "3 3 3\n1 1 1\n2 2 2\n3 3 3\n");
    char *deep = test_compile_to(dir, "deep", "Y(i,k,j)=B(i,k)*C(k,j) -f=Y:sdl -f=C:ss:1,0 "
                                              "-s=reorder(i,j,k)");
    char want[4400];
    snprintf(want, sizeof want, "samsim: %s: node 13 (fiberwrite): a linked-list level is "
             "written only as level 1, below a dense level 0 holding every parent coordinate\n",
             deep);
    expect_run_refused(deep, b, b, want, "");
    char *concordant = test_compile_to(dir, "concordant", "X(i,j)=B(i,j) -f=X:dl");
    expect_run_refused(concordant, b, NULL, "samsim: node 3 (fiberwrite): at cycle ",
                       ": own coordinates go on after the parent's D: a linked-list level is "
                       "written against the loop order, its own loop just outside its "
                       "parent's\n");
    free(b), free(deep), free(concordant);
    test_tmpdir_remove(dir);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Runs samsim with argv under an address-space limit of 1 GB (except
 * under AddressSanitizer, whose shadow memory needs far more), so that a
 * run allocating by declared size fails fast instead of taking the
 * machine; its exit status. */
static int run_limited(char **out, char **errout, const char *const *argv)
{
    struct rlimit old, small;
    assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
    small = old;
#ifndef UNDER_ASAN
    small.rlim_cur = (rlim_t)1 << 30;
#endif
    assert_int_equal(setrlimit(RLIMIT_AS, &small), 0);
    int rc = test_run_samsim_argv(out, errout, argv);
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    return rc;
}

/* The auditor's matrices: n x n with 3 entries, two of them far apart. */
static char *far_apart(const char *dir, long long n)
{
    char name[64], text[256];
    snprintf(name, sizeof name, "h%lld.mtx", n);
    snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real general\n"
             "%lld %lld 3\n1 1 1\n%lld 2 2\n2 %lld 3\n", n, n, n - 5, n - 1);
    return test_write_file(dir, name, text);
}

/* A dense level 0 of 2e8 and 2e9 positions above the lists, declared by
 * a file of about 100 bytes: the run keeps a list per row that has one,
 * passes --check and gives exactly the products in a few MB (a head per
 * position took 4 GB in 7 s at 2e8); writing the result as SAM files,
 * whose _head has a line per position, is refused by the dense limit
 * before anything is written. */
static void test_huge_dense_parent(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_compile_to(dir, "multiply", MULTIPLY);
    static const long long sizes[] = {200000000, 2000000000};
    for (int k = 0; k < 2; k++) {
        char *b = far_apart(dir, sizes[k]), *ymtx = test_path(dir, "Y.tns");
        char *ydir = test_path(dir, "Y"), tb[4200], tc[4200], want[4400], *so, *se;
        snprintf(tb, sizeof tb, "B=%s", b);
        snprintf(tc, sizeof tc, "C=%s", b);
        const char *run[] = {"run", graph, "-t", tb, "-t", tc, "--check", "-o", ymtx, NULL};
        assert_int_equal(run_limited(&so, &se, run), 0);
        assert_non_null(strstr(so, "check: pass"));
        tensor y = read_tensor(ymtx), bt = read_tensor(b);
        assert_int_equal(y.dims[0], sizes[k]);
        assert_products(&y, &bt, &bt);
        tensor_free(&y), tensor_free(&bt), free(so), free(se);
        const char *sam[] = {"run", graph, "-t", tb, "-t", tc, "-o", ydir, NULL};
        assert_int_equal(run_limited(&so, &se, sam), 1);
        snprintf(want, sizeof want, "samsim: %s: dense level 0 would hold 1 x %lld positions, "
                 "more than the limit of 8388608 (set SAMSIM_MAX_DENSE to raise it)\n", ydir,
                 sizes[k]);
        assert_string_equal(se, want);
        assert_false(test_exists(ydir));
        free(so), free(se), free(b), free(ymtx), free(ydir);
    }
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_CHILDREN, &ru), 0);
    if (ru.ru_maxrss > 200 * 1024)
        fail_msg("a run took %ld KB", ru.ru_maxrss);
    free(graph);
    test_tmpdir_remove(dir);
}

/* Runs graph on B and C under every engine with --check (they must agree
 * on cycles); the cycles. */
static long long run_on(const char *dir, const char *graph, const char *b, const char *c)
{
    char tb[4200], tc[4200];
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    const char *argv[] = {"run", graph, "-t", tb, "-t", tc, NULL};
    return test_run_engines(graph, dir, argv);
}

/* Operands with linked-list levels, each graph beside its twin with
 * compressed levels where the lists are: a list's level is scanned by
 * fiberlookup format=linkedlist, whose streams and cycles are the
 * compressed scanner's, so each runs with --check under every engine in
 * its twin's cycles: scanned under a dense level (Gustavson's rows of
 * B), intersected (the inner product's k), united (a sum) and lists at
 * both levels. */
static void test_operand_lists(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:dl -f=C:ss -s=reorder(i,k,j)",
         "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ds -f=C:ss -s=reorder(i,k,j)"},
        {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:sl:1,0 -s=reorder(i,j,k)",
         "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss:1,0 -s=reorder(i,j,k)"},
        {"X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ll -f=C:sl", "X(i,j)=B(i,j)+C(i,j) -f=X:ss"},
    };
    static const int lists[] = {1, 1, 3};
    char *dir = test_tmpdir();
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        sam_graph g = test_compiled_graph(dir, pairs[p][0]);
        assert_int_equal(count(&g, "fiberlookup", "format", "linkedlist"), lists[p]);
        graph_free(&g);
        char *list = test_compile_to(dir, "list", pairs[p][0]);
        char *twin = test_compile_to(dir, "twin", pairs[p][1]);
        for (int seed = 1; seed <= 2; seed++) {
            char *b = test_gen_urandom(dir, "B.mtx", "10x10", seed == 1 ? "0.3" : "0.05", seed);
            char *c = test_gen_urandom(dir, "C.mtx", "10x10", "0.2", seed + 10);
            assert_int_equal(run_on(dir, list, b, c), run_on(dir, twin, b, c));
            free(b), free(c);
        }
        free(list), free(twin);
    }
    test_tmpdir_remove(dir);
}

/* The 3 x 8 matrix (0,5) (0,7) (2,1) stored with lists, at 4 bytes a
 * coordinate or pointer and 8 a value: a head per list, none for the
 * empty row 1. dl: 2 heads + 3 nodes x 2 = 8 x 4, + 24 = 56; sl: rows
 * {0,2} 2 + seg 2, then the same lists: 12 x 4 + 24 = 72. The tree costs
 * what the layout counts, as the writer's lists are counted. */
static void test_list_bytes(void **state)
{
    (void)state;
    static const char *const formats[] = {"dl", "sl"};
    static const double bytes[] = {56, 72};
    tensor t;
    sam_error err;
    int64_t dims[] = {3, 8}, at[][2] = {{0, 5}, {0, 7}, {2, 1}};
    assert_int_equal(tensor_init(&t, 2, dims, &err), 0);
    for (int e = 0; e < 3; e++)
        assert_int_equal(tensor_append(&t, at[e], 1, &err), 0);
    for (int k = 0; k < 2; k++) {
        level_format f;
        fibertree ft;
        double layout;
        assert_int_equal(level_format_parse(formats[k], &f, &err), 0);
        assert_int_equal(fibertree_build(&t, &f, &ft, &err), 0);
        assert_true(fibertree_bytes(&ft, 4, 4, 8) == bytes[k]);
        assert_int_equal(storage_layout_tensor_bytes(NULL, &f, &t, 4, 4, 8, &layout, &err), 0);
        assert_true(layout == bytes[k]);
        fibertree_free(&ft);
    }
    tensor_free(&t);
}

#define MERGE "X(i,j)=Y(i,k,j) -f=X:ss -f=Y:dls -s=reorder(i,k,j)"

/* OuterSPACE's two phases through files: the merge phase reads the SAM
 * directory the multiply phase wrote, Y's k level as linked lists
 * (Y:dls), and sums over k with the sparse accumulator, which takes a
 * row's j in any order; it passes --check under every engine, in the
 * cycles of its twin reading Y as dss. */
static void test_merge_reads_lists(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *multiply = test_compile_to(dir, "multiply", MULTIPLY);
    char *merge = test_compile_to(dir, "merge", MERGE);
    char *twin = test_compile_to(dir, "twin", "X(i,j)=Y(i,k,j) -f=X:ss -f=Y:dss "
                                              "-s=reorder(i,k,j)");
    char *b = test_gen_urandom(dir, "B.mtx", "30x20", "0.2", 5);
    char *c = test_gen_urandom(dir, "C.mtx", "20x25", "0.2", 6);
    char *ydir = test_path(dir, "Y"), tb[4200], tc[4200], ty[4200];
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    snprintf(ty, sizeof ty, "Y=%s", ydir);
    assert_int_equal(test_run_samsim(NULL, NULL, "run", multiply, "-t", tb, "-t", tc, "-o", ydir,
                                     NULL),
                     0);
    const char *lists[] = {"run", merge, "-t", ty, NULL}, *dss[] = {"run", twin, "-t", ty, NULL};
    assert_int_equal(test_run_engines(MERGE, dir, lists), test_run_engines("dss", dir, dss));
    free(multiply), free(merge), free(twin), free(b), free(c), free(ydir);
    test_tmpdir_remove(dir);
}

static void test_refusals(void **state)
{
    (void)state;
    test_compile_refused("a result list on top", "Y(i,k)=B(i,k) -f=Y:ls",
                         "a linked-list level (l) of the result is built only below a dense "
                         "level");
    test_compile_refused("a located list", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=C:ls "
                                           "-s=reorder(i,k,j) -s=locate(C)",
                         "locate(C): its level of k is a linked list; a locator finds "
                         "coordinates in dense and compressed levels");
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
        cmocka_unit_test(test_writer_sparse_parents),
        cmocka_unit_test(test_writer_refusals),
        cmocka_unit_test(test_multiply),
        cmocka_unit_test(test_huge_dense_parent),
        cmocka_unit_test(test_list_bytes),
        cmocka_unit_test(test_operand_lists),
        cmocka_unit_test(test_merge_reads_lists),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
