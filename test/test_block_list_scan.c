/* The linked-list level scanner (blocks/fiberlookup_linkedlist.c) on
 * token streams worked by hand: the compressed scanner's vectors of
 * SAM-BLOCKS.md 5.1 on lists holding the same fibers (the same streams,
 * cycle for cycle), lists whose nodes are numbered out of coordinate
 * order as the linked-list writer numbers them, empty lists, lists under
 * a dense level, faults and refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "test_harness.h"

#define N(a) (sizeof(a) / sizeof(a)[0])
#define ATTRS "tensor=B,mode=0,format=linkedlist"

/* A tree of one linked-list level of mode 0: the heads, and per node its
 * coordinate and next node; a value per node. */
static void list_level(fibertree *ft, const int64_t *head, size_t nhead, const int64_t *crd,
                       const int64_t *next, size_t nnodes)
{
    memset(ft, 0, sizeof *ft);
    ft->order = 1;
    ft->dims[0] = 64;
    fiber_level *l = &ft->lv[0];
    *l = (fiber_level){.kind = 'l', .dim = 64, .nhead = nhead, .ncrd = nnodes};
    l->head = malloc(nhead * sizeof *head + 1);
    l->crd = malloc(nnodes * sizeof *crd + 1);
    l->next = malloc(nnodes * sizeof *next + 1);
    memcpy(l->head, head, nhead * sizeof *head);
    memcpy(l->crd, crd, nnodes * sizeof *crd);
    memcpy(l->next, next, nnodes * sizeof *next);
    ft->nvals = nnodes;
    ft->vals = calloc(nnodes + 1, sizeof *ft->vals);
}

static void scan_tree(const fibertree *ft, const char *attrs, const char *in, const char *crd,
                      const char *ref, int exact)
{
    harness_spec s = {.ops = &fiberlookup_linkedlist_ops, .attrs = attrs, .tensor = "B",
                      .tree = ft, .inputs = {in}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, crd, exact);
    if (ref)
        harness_expect(&out, 1, ref, exact);
    harness_free(&out);
}

#define SCAN(head, crd, next, in, c, r, exact)                       \
    do {                                                             \
        fibertree ft_;                                               \
        list_level(&ft_, head, N(head), crd, next, N(crd));          \
        scan_tree(&ft_, ATTRS, in, c, r, exact);                     \
        fibertree_free(&ft_);                                        \
    } while (0)

/* SAM-BLOCKS.md 5.1's vectors, each fiber a list whose nodes lie in
 * coordinate order, so node numbers are the compressed positions: the
 * same streams in the same cycles. */
static void test_compressed_vectors(void **state)
{
    (void)state;
    static const int64_t h1[] = {0}, c1[] = {0, 1, 3}, n1[] = {1, 2, -1};
    SCAN(h1, c1, n1, "0 D", "0 1 3 S0 D", "0 1 2 S0 D", 1);
    /* A fiber of n nodes takes n + 1 cycles; it advances only while the
     * next ref is visible. */
    SCAN(h1, c1, n1, "0 _ _ _ D", "0 _ _ _ 1 3 S0 D", "0 _ _ _ 1 2 S0 D", 1);
    static const int64_t h2[] = {0, 3, 4}, c2[] = {0, 2, 3, 0, 2, 3}, n2[] = {1, 2, -1, -1, 5, -1};
    SCAN(h2, c2, n2, "0 0 S0 1 S0 2 S1 D", "0 2 3 S0 0 2 3 S1 0 S1 2 3 S2 D",
         "0 1 2 S0 0 1 2 S1 3 S1 4 5 S2 D", 0);
    static const int64_t h3[] = {0}, c3[] = {28}, n3[] = {-1};
    SCAN(h3, c3, n3, "0 S0 _ _ S0 _ _ 0 _ _ S0 _ _ D", "28 S1 S1' 28 S1 D", "0 S1 S1' 0 S1 D",
         0);
    /* An N ref is the fiber [N, stop]. */
    static const int64_t h4[] = {0, 2, 3}, c4[] = {0, 1, 2, 3}, n4[] = {1, -1, -1, -1};
    SCAN(h4, c4, n4, "0 1 N 2 N S0 D", "0 1 S0 2 S0 N S0 3 S0 N S1 D",
         "0 1 S0 2 S0 N S0 3 S0 N S1 D", 1);
}

/* An empty list (head -1) is its stop token alone, in the cycle its ref
 * is taken: fiber 1 of three. Two empty lists: ref 0 is taken in cycle
 * 0, when ref 1 is not yet visible, so S0 waits for it (cycle 1); ref 1
 * is taken in cycle 2 and its stop merges with the S0 ref behind it. */
static void test_empty_list(void **state)
{
    (void)state;
    static const int64_t head[] = {0, -1, 2}, crd[] = {5, 7, 9}, next[] = {1, -1, -1};
    SCAN(head, crd, next, "0 1 2 S0 D", "5 7 S0 S0 9 S1 D", "0 1 S0 S0 2 S1 D", 1);
    static const int64_t none[] = {-1, -1}, nocrd[] = {0}, nonext[] = {-1};
    fibertree ft;
    list_level(&ft, none, 2, nocrd, nonext, 0);
    scan_tree(&ft, ATTRS, "0 1 S0 D", "_ S0 S1 D", "_ S0 S1 D", 1);
    fibertree_free(&ft);
}

/* Nodes numbered in the order a writer made them, not by coordinate:
 * fiber 0 is node 2 (1), node 0 (4), node 3 (6); fiber 1 is node 1 (0).
 * The refs are the node numbers, in list order. */
static void test_nodes_out_of_order(void **state)
{
    (void)state;
    static const int64_t head[] = {2, 1}, crd[] = {4, 0, 1, 6}, next[] = {3, -1, 0, -1};
    SCAN(head, crd, next, "0 1 S0 D", "1 4 6 S0 0 S1 D", "2 0 3 S0 1 S1 D", 1);
}

/* Matrix 3 x 8 with (0,5) (0,7) (2,1), built as fibertree_build builds
 * format dl: a list per row under the dense level, row 1's empty; the
 * dense scanner's refs for the one row fiber, 0 1 2 S0 D, and for the
 * rows twice over, as a repeated dense level sends them. */
static void test_lists_under_dense(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    int64_t dims[] = {3, 8}, at0[] = {0, 5}, at1[] = {0, 7}, at2[] = {2, 1};
    assert_int_equal(tensor_init(&t, 2, dims, &err), 0);
    assert_int_equal(tensor_append(&t, at2, 3, &err), 0);
    assert_int_equal(tensor_append(&t, at0, 1, &err), 0);
    assert_int_equal(tensor_append(&t, at1, 2, &err), 0);
    level_format f;
    fibertree ft;
    assert_int_equal(level_format_parse("dl", &f, &err), 0);
    assert_int_equal(fibertree_build(&t, &f, &ft, &err), 0);
    assert_int_equal(ft.lv[1].nhead, 3);
    scan_tree(&ft, "tensor=B,mode=1,format=linkedlist", "0 1 2 S0 D", "5 7 S0 S0 1 S1 D",
              "0 1 S0 S0 2 S1 D", 1);
    scan_tree(&ft, "tensor=B,mode=1,format=linkedlist", "0 1 2 S0 0 1 2 S1 D",
              "5 7 S0 S0 1 S1 5 7 S0 S0 1 S2 D", "0 1 S0 S0 2 S1 0 1 S0 S0 2 S2 D", 0);
    fibertree_free(&ft);
    tensor_free(&t);
}

static const fibertree *bound_tree;

static const fibertree *tree_b(const block_ctx *ctx, const char *name)
{
    (void)ctx;
    return !strcmp(name, "B") ? bound_tree : NULL;
}

/* A node of the scanner's type with attributes tensor=B, mode=0 and
 * format. */
static void make_node(graph_node *n, graph_attr *a, const char *format)
{
    a[0] = (graph_attr){.key = "tensor", .value = "B"};
    a[1] = (graph_attr){.key = "mode", .value = "0"};
    a[2] = (graph_attr){.key = "format", .value = (char *)format};
    *n = (graph_node){.id = "1", .type = "fiberlookup", .attrs = a, .nattrs = 3};
}

/* The fault the scanner stops with on the refs queued from cycle 0 (""
 * when none in 50 cycles). */
static void fault_of(const fibertree *ft, const char *refs, char *fault, size_t nf)
{
    graph_node node;
    graph_attr a[3];
    make_node(&node, a, "linkedlist");
    bound_tree = ft;
    block_ctx ctx = {.node = &node, .tensor = tree_b};
    block b = {.ops = &fiberlookup_linkedlist_ops, .node = &node, .ii = 1};
    sam_error err;
    if (b.ops->create(&b, &ctx, &err))
        fail_msg("%s", err.msg);
    channel ch;
    assert_int_equal(channel_init(&ch, 0, 0), 0);
    assert_int_equal(channel_add_reader(&ch, -1), 0);
    b.in[0] = (in_port){.ch = &ch, .reader = 0};
    char copy[128], *save = NULL;
    snprintf(copy, sizeof copy, "%s", refs);
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        token tok;
        assert_int_equal(token_parse(w, &tok), 0);
        assert_int_equal(channel_push(&ch, 0, tok), 0);
    }
    for (int t = 0; t < 50 && !b.fault; t++)
        b.ops->step(&b, (cycle_t)t);
    snprintf(fault, nf, "%s", b.fault ? b.fault : "");
    channel_free(&ch);
    block_destroy(&b);
}

/* A ref without a head, a pointer past the nodes, and a list whose
 * coordinates do not increase (a cycle among the pointers is one) stop
 * the run rather than send a wrong stream. */
static void test_faults(void **state)
{
    (void)state;
    fibertree ft;
    char f[200];
    static const int64_t head[] = {0, 2}, crd[] = {1, 3, 2}, next[] = {1, -1, -1};
    list_level(&ft, head, 2, crd, next, 3);
    fault_of(&ft, "0 1 S0 D", f, sizeof f);
    assert_string_equal(f, "");
    fault_of(&ft, "2 S0 D", f, sizeof f);
    assert_string_equal(f, "reference beyond the list heads");
    fault_of(&ft, "-1 S0 D", f, sizeof f);
    assert_string_equal(f, "reference beyond the list heads");
    ft.lv[0].next[0] = 3;
    fault_of(&ft, "0 S0 D", f, sizeof f);
    assert_string_equal(f, "a list points beyond the level's nodes");
    ft.lv[0].next[0] = 2;
    fault_of(&ft, "0 S0 D", f, sizeof f);
    assert_string_equal(f, "");
    ft.lv[0].next[2] = 0;
    fault_of(&ft, "0 S0 D", f, sizeof f);
    assert_string_equal(f, "a list's coordinates do not increase");
    ft.lv[0].head[1] = 7;
    fault_of(&ft, "1 S0 D", f, sizeof f);
    assert_string_equal(f, "a list points beyond the level's nodes");
    fibertree_free(&ft);
}

/* Whether creating the scanner of format on tree ft fails with want. */
static void create_fails(const block_ops *ops, const char *format, const fibertree *ft,
                         const char *want)
{
    graph_node node;
    graph_attr a[3];
    make_node(&node, a, format);
    bound_tree = ft;
    block_ctx ctx = {.node = &node, .tensor = tree_b};
    block b = {.ops = ops, .node = &node, .ii = 1};
    sam_error err = {{0}};
    assert_int_equal(ops->create(&b, &ctx, &err), -1);
    assert_string_equal(err.msg, want);
}

/* Each scanner takes only its kind of level, and the registry gives
 * format=linkedlist nodes this one. */
static void test_kinds(void **state)
{
    (void)state;
    fibertree list, comp;
    static const int64_t head[] = {0}, crd[] = {1}, next[] = {-1}, seg[] = {0, 1};
    list_level(&list, head, 1, crd, next, 1);
    harness_level(&comp, seg, 2, crd, 1);
    create_fails(&fiberlookup_linkedlist_ops, "linkedlist", &comp,
                 "node 1 (fiberlookup): tensor B stores mode 0 compressed, not as a linked list");
    create_fails(&fiberlookup_compressed_ops, "compressed", &list,
                 "node 1 (fiberlookup): tensor B stores mode 0 as a linked list, not compressed");
    graph_node node;
    graph_attr a[3];
    make_node(&node, a, "linkedlist");
    assert_true(fiberlookup_linkedlist_ops.serves(&node));
    assert_false(fiberlookup_compressed_ops.serves(&node));
    fibertree_free(&list);
    fibertree_free(&comp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compressed_vectors),
        cmocka_unit_test(test_empty_list),
        cmocka_unit_test(test_nodes_out_of_order),
        cmocka_unit_test(test_lists_under_dense),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
