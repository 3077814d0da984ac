/* The dense level scanner, the repeat signal generator, the repeater and
 * the dense level writer against every vector of SAM-BLOCKS.md sections
 * 5.2 and 5.6-5.8, and samsim's behaviour where section 8 says the
 * reference fails (8.3, 8.4, 8.8). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "test_harness.h"

/* ------------------------------------------------------------- helpers */

/* A tensor of two dense levels, mode 0 (outer fibers' size) above mode 1
 * (dim), as a dense fiberlookup of mode 1 sees it: refs 0 .. outer-1. */
static fibertree dense_tree(int64_t outer, int64_t dim)
{
    fibertree ft = {.order = 2, .dims = {outer, dim}};
    ft.lv[0] = (fiber_level){.kind = 'd', .mode = 0, .dim = outer};
    ft.lv[1] = (fiber_level){.kind = 'd', .mode = 1, .dim = dim};
    return ft;
}

static void dense_scan(int64_t dim, const char *in_ref, const char *crd_out, const char *ref_out,
                       int exact)
{
    fibertree ft = dense_tree(8, dim);
    harness_spec s = {.ops = &fiberlookup_dense_ops, .attrs = "tensor=B,mode=1,format=dense",
                      .tensor = "B", .tree = &ft, .inputs = {in_ref}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, crd_out, exact);
    if (ref_out)
        harness_expect(&out, 1, ref_out, exact);
    harness_free(&out);
}

static void repsig(const char *in, const char *expected, int exact)
{
    harness_spec s = {.ops = &repsiggen_ops, .inputs = {in}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, expected, exact);
    harness_free(&out);
}

static void repeat(const char *ref, const char *rep, int queued, const char *expected, int exact)
{
    harness_spec s = {.ops = &repeat_ops, .attrs = "root=false", .inputs = {ref, rep},
                      .queued = queued};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, expected, exact);
    harness_free(&out);
}

/* A node for blocks run outside the harness, attributes "k=v,k=v". */
typedef struct lone_node {
    graph_node node;
    graph_attr attrs[4];
    char text[128];
} lone_node;

static void lone_init(lone_node *n, const block_ops *ops, const char *attrs)
{
    memset(n, 0, sizeof *n);
    snprintf(n->text, sizeof n->text, "%s", attrs);
    n->node = (graph_node){.id = "7", .type = (char *)ops->type, .attrs = n->attrs};
    char *save = NULL;
    for (char *kv = strtok_r(n->text, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        *eq = '\0';
        n->attrs[n->node.nattrs++] = (graph_attr){.key = kv, .value = eq + 1};
    }
}

static const fibertree *bound(const block_ctx *ctx, const char *name)
{
    (void)name;
    return ctx->data;
}

static void queue(channel *c, const char *stream)
{
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", stream);
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        token t;
        assert_int_equal(token_parse(w, &t), 0);
        assert_int_equal(channel_push(c, 0, t), 0);
    }
}

/* Runs a block on streams queued from cycle 0, outputs dropped, and
 * returns the fault it stops with (NULL: none in 100 cycles). */
static const char *fault_of(const block_ops *ops, const char *attrs, const fibertree *ft,
                            const char *in0, const char *in1)
{
    lone_node n;
    lone_init(&n, ops, attrs);
    block_ctx ctx = {.node = &n.node, .tensor = bound, .data = ft};
    block b = {.ops = ops, .node = &n.node};
    sam_error err;
    assert_int_equal(ops->create(&b, &ctx, &err), 0);
    const char *inputs[] = {in0, in1};
    channel in[2];
    for (int p = 0; p < b.nin; p++) {
        assert_int_equal(channel_init(&in[p], 0, 0), 0);
        assert_int_equal(channel_add_reader(&in[p], -1), 0);
        queue(&in[p], inputs[p]);
        b.in[p] = (in_port){.ch = &in[p], .reader = 0};
    }
    for (cycle_t t = 0; t < 100 && !b.fault; t++)
        ops->step(&b, t);
    for (int p = 0; p < b.nin; p++)
        channel_free(&in[p]);
    block_destroy(&b);
    return b.fault;
}

/* ------------------------------------------------ fiberlookup, dense */

static void test_dense_one_fiber_every_dim(void **state)
{
    (void)state;
    static const char *const want[] = {"0 S0 D", "0 1 S0 D", "0 1 2 S0 D", "0 1 2 3 S0 D",
                                       "0 1 2 3 4 S0 D"};
    for (int dim = 1; dim <= 5; dim++)
        dense_scan(dim, "0 D", want[dim - 1], want[dim - 1], 1);
}

static void test_dense_four_fibers(void **state)
{
    (void)state;
    dense_scan(2, "0 1 2 3 S0 D", "0 1 S0 0 1 S0 0 1 S0 0 1 S1 D",
               "0 1 S0 2 3 S0 4 5 S0 6 7 S1 D", 1);
}

static void test_dense_nested(void **state)
{
    (void)state;
    dense_scan(2, "0 1 2 S0 3 4 S0 5 6 S1 D",
               "0 1 S0 0 1 S0 0 1 S1 0 1 S0 0 1 S1 0 1 S0 0 1 S2 D",
               "0 1 S0 2 3 S0 4 5 S1 6 7 S0 8 9 S1 10 11 S0 12 13 S2 D", 1);
}

/* No look-ahead inside a fiber; only the stop token waits for a ref. */
static void test_dense_waits_only_for_the_stop(void **state)
{
    (void)state;
    dense_scan(3, "0 _ _ _ _ D", "0 1 2 _ _ S0 D", "0 1 2 _ _ S0 D", 1);
}

/* 8.4: the reference computes nonsense for 'N' refs. samsim makes each 'N'
 * the two-token fiber [N, stop], the stop merged with a following
 * stop-token ref, exactly as the compressed scanner does (5.1). */
static void test_dense_empty_refs(void **state)
{
    (void)state;
    dense_scan(2, "0 1 N 2 N S0 D", "0 1 S0 0 1 S0 N S0 0 1 S0 N S1 D",
               "0 1 S0 2 3 S0 N S0 4 5 S0 N S1 D", 1);
}

/* 8.4: the reference treats a stop-token ref that starts a fiber as a
 * number, or drops it when it had to wait for it. samsim turns every
 * stop-token ref that is not merged into a closing stop into S(k+1), an
 * empty outer fiber, as the compressed scanner does. */
static void test_dense_consecutive_stop_refs(void **state)
{
    (void)state;
    dense_scan(2, "0 S0 S0 1 S1 D", "0 1 S1 S1' 0 1 S2 D", "0 1 S1 S1' 2 3 S2 D", 1);
    dense_scan(1, "0 S0 _ _ S0 _ _ 0 _ _ S0 _ _ D", "0 S1 _ _ S1' _ _ 0 _ _ S1 _ _ D",
               "0 S1 _ _ S1' _ _ 0 _ _ S1 _ _ D", 1);
    dense_scan(2, "S0 S1 D", "S1' S2' D", "S1' S2' D", 1);
}

static void test_dense_faults_and_formats(void **state)
{
    (void)state;
    fibertree ft = dense_tree(2, 3);
    assert_null(fault_of(&fiberlookup_dense_ops, "tensor=B,mode=1", &ft, "0 1 S0 D", NULL));
    assert_string_equal(fault_of(&fiberlookup_dense_ops, "tensor=B,mode=1", &ft, "0 2 S0 D", NULL),
                        "reference beyond the dense level");
    assert_non_null(fault_of(&fiberlookup_dense_ops, "tensor=B,mode=0", &ft, "1 D", NULL));

    fibertree cs;
    harness_level(&cs, (const int64_t[]){0, 1}, 2, (const int64_t[]){0}, 1);
    lone_node n;
    lone_init(&n, &fiberlookup_dense_ops, "tensor=B,mode=0,format=dense");
    block_ctx ctx = {.node = &n.node, .tensor = bound, .data = &cs};
    block b = {.ops = &fiberlookup_dense_ops, .node = &n.node};
    sam_error err;
    assert_int_equal(fiberlookup_dense_ops.create(&b, &ctx, &err), -1);
    assert_non_null(strstr(err.msg, "compressed, not dense"));
    fibertree_free(&cs);

    assert_true(fiberlookup_dense_ops.serves(&n.node));
    lone_init(&n, &fiberlookup_dense_ops, "format=compressed");
    assert_false(fiberlookup_dense_ops.serves(&n.node));
}

/* ------------------------------------------------------------ repsiggen */

static void test_repsiggen(void **state)
{
    (void)state;
    repsig("0 1 S0 2 S0 3 S1 D", "R R S R S R S D", 0);
    repsig("0 1 2 S0 0 1 2 S1 S1 4 5 S2 D", "R R R S R R R S S R R S D", 0);
    /* Latency 0, and N counts as a coordinate. */
    repsig("N _ 3 S2 _ D", "R _ R S _ D", 1);
}

/* --------------------------------------------------------------- repeat */

static void test_repeat_vectors(void **state)
{
    (void)state;
    repeat("0 1 2 S0 D", "R R S R S R S D", 0, "0 0 S0 1 S0 2 S1 D", 0);
    repeat("0 S0 1 2 3 S1 D", "R R R S R R R S R S R R S D", 0,
           "0 0 0 S1 1 1 1 S0 2 S0 3 3 S2 D", 0);
    repeat("0 S0 1 S1 D", "S R S D", 0, "S1 1 S2 D", 0);
    repeat("N 0 1 S0 D", "R S R S R S D", 0, "N S0 0 S0 1 S1 D", 0);
    repeat("0 S0 S0 S0 S0 S0 S0 S0 S1 D", "R S S S S S S S S D", 0,
           "0 S1 S1' S1' S1' S1' S1' S1' S2' D", 0);
}

static void test_repeat_exact(void **state)
{
    (void)state;
    /* Everything queued: a ref and its first R in one cycle, no bubbles. */
    repeat("0 1 2 S0 D", "R R S R S R S D", 1, "0 0 S0 1 S0 2 S1 D", 1);
    /* Long repetitions, which a native run emits in one go. */
    repeat("0 1 S0 D", "R R R R R R S R R S D", 1, "0 0 0 0 0 0 S0 1 1 S1 D", 1);
    /* One token a cycle: the first S waits a cycle for the ref it merges. */
    repeat("0 S0 1 S1 D", "S R S D", 0, "_ S1 1 S2 D", 1);
    /* A root repeat as the engine feeds it, [0, D] on the ref input. */
    repeat("0 D", "R R R S D", 0, "0 0 0 S0 D", 1);
    repeat("0 _ _ _ D", "R S D", 0, "0 _ _ _ S0 D", 1);
}

/* 8.8: the reference starts out taking signals without a ref, so here it
 * consumes R and S against no ref (losing them) and then fails when D
 * meets ref 0. samsim takes signals only while it holds a ref. */
static void test_repeat_signal_before_ref(void **state)
{
    (void)state;
    repeat("_ _ 0 D", "R S D", 0, "_ _ 0 S0 D", 1);
}

static void test_repeat_mismatched_streams(void **state)
{
    (void)state;
    assert_null(fault_of(&repeat_ops, "root=false", NULL, "0 S0 S0 D", "R S S D"));
    assert_non_null(fault_of(&repeat_ops, "root=false", NULL, "0 D", "R D"));
    assert_non_null(fault_of(&repeat_ops, "root=false", NULL, "0 D", "S R D"));
    assert_non_null(fault_of(&repeat_ops, "root=false", NULL, "0 S0 S0 D", "R S R D"));
    assert_non_null(fault_of(&repeat_ops, "root=false", NULL, "0 D", "1 S D"));
}

/* ------------------------------------------------------ fiberwrite, dense */

/* 8.3: the reference's dense writer crashes on its first token. samsim's
 * writes the coordinates it receives, whether they cover the level (a
 * dense copy) or not (a union of sparse vectors written densely). */
static void test_fiberwrite_dense(void **state)
{
    (void)state;
    for (int queued = 0; queued <= 1; queued++) {
        harness_spec s = {.ops = &fiberwrite_dense_ops, .attrs = "tensor=X,mode=1,format=dense",
                          .inputs = {"0 1 S0 0 1 S1 D"}, .queued = queued};
        harness_out out;
        harness_run(&s, &out);
        assert_true(out.done);
        assert_int_equal(out.done_cycle, 6);
        fibertree ft = dense_tree(2, 2);
        sam_error err;
        assert_int_equal(out.blk.ops->collect(&out.blk, &ft, &err), 0);
        assert_int_equal(ft.lv[1].kind, 's');
        assert_int_equal(ft.lv[1].nseg, 3);
        assert_int_equal(ft.lv[1].seg[2], 4);
        assert_int_equal(ft.lv[1].ncrd, 4);
        assert_int_equal(ft.lv[1].crd[3], 1);
        fibertree_free(&ft);
        harness_free(&out);
    }
}

static void test_fiberwrite_dense_sparse_stream(void **state)
{
    (void)state;
    harness_spec s = {.ops = &fiberwrite_dense_ops, .attrs = "tensor=X,mode=0,format=dense",
                      .inputs = {"_ 1 _ 3 S0 D"}};
    harness_out out;
    harness_run(&s, &out);
    assert_int_equal(out.done_cycle, 5);
    fibertree ft = dense_tree(2, 2);
    sam_error err;
    assert_int_equal(out.blk.ops->collect(&out.blk, &ft, &err), 0);
    assert_int_equal(ft.lv[0].kind, 's');
    assert_int_equal(ft.lv[0].ncrd, 2);
    assert_int_equal(ft.lv[0].crd[0], 1);
    assert_int_equal(ft.lv[0].crd[1], 3);
    fibertree_free(&ft);
    harness_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_one_fiber_every_dim),
        cmocka_unit_test(test_dense_four_fibers),
        cmocka_unit_test(test_dense_nested),
        cmocka_unit_test(test_dense_waits_only_for_the_stop),
        cmocka_unit_test(test_dense_empty_refs),
        cmocka_unit_test(test_dense_consecutive_stop_refs),
        cmocka_unit_test(test_dense_faults_and_formats),
        cmocka_unit_test(test_repsiggen),
        cmocka_unit_test(test_repeat_vectors),
        cmocka_unit_test(test_repeat_exact),
        cmocka_unit_test(test_repeat_signal_before_ref),
        cmocka_unit_test(test_repeat_mismatched_streams),
        cmocka_unit_test(test_fiberwrite_dense),
        cmocka_unit_test(test_fiberwrite_dense_sparse_stream),
    };
    return cmocka_run_group_tests_name("blocks: dense scan, repeat, dense write", tests, NULL,
                                       NULL);
}
