/* mul, add, reduce and the spaccumulator against every vector of
 * SAM-BLOCKS.md 5.11-5.13 and 5.16-5.18, the reference bugs of section 8
 * that concern them, and their port wiring on the shared graphs. Exact
 * vectors marked "derived" come from running the reference's classes in
 * the same harness (input k visible in cycle k). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "../blocks/spaccumulator.h"
#include "test_harness.h"
#include "test_util.h"

static void run2(const block_ops *ops, const char *attrs, const char *in1, const char *in2,
                 const char *expected, int exact)
{
    harness_spec s = {.ops = ops, .attrs = attrs, .inputs = {in1, in2}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, expected, exact);
    harness_free(&out);
}

/* ---- mul and add (5.11) ------------------------------------------------- */

static void test_mul(void **state)
{
    (void)state;
    run2(&mul_ops, "", "0 1 2 3 S0 D", "0 2 4 6 S0 D", "0 2 8 18 S0 D", 1);
}

/* A run of value pairs, which a native run makes in one go. */
static void test_mul_values(void **state)
{
    (void)state;
    run2(&mul_ops, "", "0.5 1.5 2.5 3.5 4.5 5.5 S0 D", "2.5 2.5 2.5 2.5 2.5 2.5 S0 D",
         "1.25 3.75 6.25 8.75 11.25 13.75 S0 D", 1);
}

static void test_sub(void **state)
{
    (void)state;
    run2(&add_ops, "sub=1", "0 1 2 3 S0 D", "0 2 4 6 S0 D", "0 -1 -2 -3 S0 D", 1);
    run2(&add_ops, "sub=0", "0 1 2 3 S0 D", "0 2 4 6 S0 D", "0 3 6 9 S0 D", 1);
}

/* The union patch on integers, as the reference computes it. */
static void test_union_patch_ints(void **state)
{
    (void)state;
    run2(&add_ops, "sub=0", "1 S0 2 S1 D", "10 20 S0 30 S1 D", "11 20 S0 32 S1 D", 1);
    run2(&mul_ops, "", "1 S0 2 S1 D", "10 20 S0 30 S1 D", "10 0 S0 60 S1 D", 1);
}

/* Section 8, bug 4: the reference raises a type error when a stop token
 * meets a float; samsim applies the patch to every value. */
static void test_union_patch_floats(void **state)
{
    (void)state;
    run2(&add_ops, "sub=0", "1.5 S0 2.5 S1 D", "10.5 20.5 S0 30.5 S1 D", "12 20.5 S0 33 S1 D", 1);
    run2(&mul_ops, "", "1.5 S0 2.5 S1 D", "10.5 20.5 S0 30.5 S1 D", "15.75 0 S0 76.25 S1 D", 1);
}

/* With a stop on in1 the reference's subtraction lets in2 through with a
 * plus sign (and only for ints); samsim computes 0 - in2. */
static void test_union_patch_sub(void **state)
{
    (void)state;
    run2(&add_ops, "sub=1", "1.5 S0 D", "10.5 20.5 S0 D", "-9 -20.5 S0 D", 1);
    run2(&add_ops, "sub=1", "10.5 20.5 S0 D", "1.5 S0 D", "9 20.5 S0 D", 1);
    run2(&add_ops, "sub=1", "1 S0 D", "10 20 S0 D", "-9 -20 S0 D", 1);
}

/* The held stop token still needs a token behind it on its own input, as
 * in the reference: the step waits for both FIFOs. */
static void test_patch_waits_for_both_inputs(void **state)
{
    (void)state;
    run2(&add_ops, "sub=0", "1 S0 _ _ _ D", "10 20 S0 D", "11 20 _ _ _ S0 D", 1);
}

static void test_alu_waits_for_pairs(void **state)
{
    (void)state;
    run2(&mul_ops, "", "2 _ _ 3 S0 D", "_ 4 5 _ S0 D", "_ 8 _ 15 S0 D", 1);
}

/* ---- blocks run by hand, for faults ------------------------------------- */

typedef struct rig {
    graph_attr attrs[4];
    graph_node node;
    channel in[BLOCK_MAX_PORTS], out[BLOCK_MAX_PORTS];
    block b;
} rig;

/* Runs ops with attributes "k=v" (up to four) on the streams until it
 * faults or 64 cycles pass; returns the fault, or NULL. */
static const char *run_for_fault(const block_ops *ops, const char *const *attrs,
                                 const char *const *inputs)
{
    rig *r = calloc(1, sizeof *r);
    int n = 0;
    for (; n < 4 && attrs[n]; n++) {
        char *kv = strdup(attrs[n]), *eq = strchr(kv, '=');
        *eq = '\0';
        r->attrs[n] = (graph_attr){kv, eq + 1};
    }
    r->node = (graph_node){"0", (char *)ops->type, r->attrs, n};
    block_ctx ctx = {.node = &r->node};
    block *b = &r->b;
    *b = (block){.ops = ops, .node = &r->node};
    sam_error err;
    assert_int_equal(ops->create(b, &ctx, &err), 0);
    for (int p = 0; p < b->nin; p++) {
        assert_int_equal(channel_init(&r->in[p], 0, 0), 0);
        assert_int_equal(channel_add_reader(&r->in[p], -1), 0);
        b->in[p] = (in_port){.ch = &r->in[p], .reader = 0};
        char *copy = strdup(inputs[p]), *save = NULL;
        cycle_t t = 0;
        for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save), t++) {
            token tok;
            assert_int_equal(token_parse(w, &tok), 0);
            assert_int_equal(channel_push(&r->in[p], t, tok), 0);
        }
        free(copy);
    }
    for (int p = 0; p < b->nout; p++) {
        assert_int_equal(channel_init(&r->out[p], 0, 1), 0);
        assert_int_equal(channel_add_reader(&r->out[p], -1), 0);
        b->out[p].ch = &r->out[p];
    }
    for (cycle_t t = 0; t < 64 && !b->fault; t++)
        ops->step(b, t);
    const char *fault = b->fault;
    block_destroy(b);
    for (int p = 0; p < BLOCK_MAX_PORTS; p++) {
        channel_free(&r->in[p]);
        channel_free(&r->out[p]);
    }
    for (int k = 0; k < r->node.nattrs; k++)
        free(r->attrs[k].key);
    free(r);
    return fault;
}

static void expect_fault(const block_ops *ops, const char *const *attrs, const char *const *inputs,
                         const char *words)
{
    const char *fault = run_for_fault(ops, attrs, inputs);
    assert_non_null(fault);
    if (!strstr(fault, words))
        fail_msg("fault '%s' does not mention '%s'", fault, words);
}

/* The reference asserts; samsim stops the run with a message. */
static void test_alu_faults(void **state)
{
    (void)state;
    const char *none[] = {NULL}, *sub[] = {"sub=1", NULL};
    expect_fault(&add_ops, sub, (const char *[]){"1.5 D", "1.5 2.5 D"}, "differ in length");
    expect_fault(&mul_ops, none, (const char *[]){"1.5 D", "S0 D"}, "differ in length");
    expect_fault(&mul_ops, none, (const char *[]){"S0 D", "S1 D"}, "different levels");
    assert_null(run_for_fault(&mul_ops, none, (const char *[]){"1 S0 D", "2 S0 D"}));
}

/* ---- reduce (5.12) ------------------------------------------------------ */

static void reduce(const char *in, const char *expected, int exact)
{
    harness_spec s = {.ops = &reduce_ops, .inputs = {in}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, expected, exact);
    harness_free(&out);
}

static void test_reduce(void **state)
{
    (void)state;
    const char *in = "5 5 S0 5 S0 4 8 S0 4 3 S0 4 3 S1 D";
    reduce(in, "10 5 12 7 7 S0 D", 0);
    reduce(in, "_ _ 10 _ 5 _ _ 12 _ _ 7 _ _ 7 S0 D", 1);
    reduce("1 2 3 4 5 6 7 8 9 S2 D", "45 S1 D", 0);
}

/* Derived: empty innermost fibers sum to 0; a higher stop costs a cycle. */
static void test_reduce_empty_fibers(void **state)
{
    (void)state;
    reduce("5 5 S0 S0 4 8 S0 4 3 S0 S1 D", "_ _ 10 0 _ _ 12 _ _ 7 0 S0 D", 1);
    reduce("S0 D", "0 D", 1);
    reduce("1 S1 2 S0 D", "_ 1 S0 _ 2 D", 1);
    reduce("1.5 2.25 S0 D", "_ _ 3.75 D", 1);
}

/* A stop token that closes an innermost fiber never opened (an outer
 * fiber without elements, engine/token.h) sums to nothing, where the
 * reference emits a 0 for a coordinate the result does not have; the
 * cycle stays, and a stop that closes two such fibers keeps one. The
 * second stream is the k level of mat_mask_tri_partial on a row whose
 * intersection at j is empty, then a row with one j and no k. */
static void test_reduce_unopened_fibers(void **state)
{
    (void)state;
    reduce("S1' 7 S2 D", "_ S0 _ 7 S1 D", 1);
    reduce("S1' S2 D", "_ S0 0 S1 D", 1);
    reduce("S2'' D", "_ S1' D", 1);
    reduce("1 S1 S1' 5 S2 D", "1 S0 S0 5 S1 D", 0);
}

/* Section 8, item 5: the reference's done flag lives one cycle, the cycle
 * after 'D', which takes no input and clears the block; samsim keeps that
 * cycle, so a stream following 'D' is timed as in the reference. */
static void test_reduce_done_cycle(void **state)
{
    (void)state;
    reduce("1 S0 D 2 S0 D", "_ 1 D _ _ 2 D", 1);
    reduce("1 S1 D 2 3 S0 D", "_ 1 S0 D _ _ _ 5 D", 1);
}

/* ---- spaccumulator (5.13, 5.16-5.18) ------------------------------------ */

static void spacc(const char *attrs, const char *outer, const char *inner, const char *val,
                  const char *out_outer, const char *out_inner, const char *out_val, int exact)
{
    harness_spec s = {.ops = &spaccumulator_ops, .attrs = attrs, .inputs = {outer, inner, val}};
    harness_out out;
    harness_run(&s, &out);
    if (out_outer)
        harness_expect(&out, 0, out_outer, exact);
    harness_expect(&out, 1, out_inner, exact);
    harness_expect(&out, 2, out_val, exact);
    harness_free(&out);
}

#define ORDER1 "order=1,in0=j,in1=i"
#define ORDER2 "order=2,in0=j,in1=i"

/* The StknDrop stage (5.13): [1 S0 1 S0 S0 1 S1 D] becomes, exactly,
 * [1 _ 1 _ _ 1 _ D] on each input, and the accumulator sees each token
 * one cycle later: the outer coordinate changes at every point, so each
 * value leaves in the cycle after its StknDrop emitted it (3, 6, 8) and
 * 'D' follows the last. */
static void test_spacc_stkndrop_stage(void **state)
{
    (void)state;
    spacc(ORDER1, "0 S0 1 S0 S0 2 S1 D", "5 S0 6 S0 S0 7 S1 D", "1 S0 1 S0 S0 1 S1 D",
          "_ _ _ 0 _ _ _ 1 _ 2 S0 D", "_ _ _ 5 _ _ S0 6 S0 7 S1 D", "_ _ _ 1 _ _ 1 _ 1 D", 1);
}

/* 5.16, unit test: the crd outputs as given; the values as with
 * val_stkn=false (the apps' setting), i.e. without the stop tokens. */
static void test_spacc1(void **state)
{
    (void)state;
    const char *o = "0 0 0 2 2 2 2 2 2 D", *i = "0 2 3 0 2 3 0 2 3 D";
    const char *v = "50 5 10 40 4 8 -40 33 36 D";
    spacc(ORDER1, o, i, v, "0 2 S0 D", "0 2 3 S0 0 2 3 S1 D", "50 5 10 0 37 44 D", 0);
    /* 5.16 derived exact, one cycle later for the StknDrops */
    spacc(ORDER1, o, i, v, "_ _ _ _ 0 _ _ _ _ _ _ 2 _ _ S0 D",
          "_ _ _ _ 0 2 3 _ _ _ S0 0 2 3 S1 D", "_ _ _ _ 50 5 10 _ _ _ 0 37 44 D", 1);
}

/* The graphs' case: crdhold streams with stop tokens (derived). */
static void test_spacc1_with_stops(void **state)
{
    (void)state;
    spacc(ORDER1, "0 0 S0 2 2 2 S1 D", "0 2 S0 0 2 3 S1 D", "1.5 2.5 S0 4 5 6 S1 D",
          "_ _ _ _ 0 _ _ _ _ 2 _ _ S0 D", "_ _ _ _ 0 2 _ _ S0 0 2 3 S1 D",
          "_ _ _ _ 1.5 2.5 _ _ 4 5 6 D", 1);
}

static void test_spacc2(void **state)
{
    (void)state;
    spacc(ORDER2, "0 0 0 1 1 1 1 0 0 D", "0 2 3 0 2 3 4 2 3 D", "50 5 10 40 4 8 -40 33 36 D",
          "0 1 S0 D", "0 2 3 S0 0 2 3 4 S1 D", "50 38 46 40 4 8 -40 D", 0);
    spacc(ORDER2, "0 2 3 0 0 2 2 2 3 3 3 3 3 0 D", "0 2 3 0 2 0 0 3 0 2 3 0 2 0 D",
          "50 5 10 40 4 8 -40 33 36 1 2 3 4 5 D", "0 2 3 S0 D", "0 2 S0 0 2 3 S0 0 2 3 S1 D",
          "95 4 -32 5 33 39 5 12 D", 0);
    /* derived exact */
    spacc(ORDER2, "0 0 0 1 1 1 1 0 0 D", "0 2 3 0 2 3 4 2 3 D", "50 5 10 40 4 8 -40 33 36 D",
          "_ _ _ _ _ _ _ _ _ _ 0 _ _ _ 1 _ _ _ S0 D", "_ _ _ _ _ _ _ _ _ _ 0 2 3 S0 0 2 3 4 S1 D",
          "_ _ _ _ _ _ _ _ _ _ 50 38 46 40 4 8 -40 D", 1);
}

/* Section 8, bug 4: the reference's order-2 accumulator crashes on an
 * empty input (the minimum of an empty set); samsim closes an empty
 * result. */
static void test_spacc2_empty(void **state)
{
    (void)state;
    spacc(ORDER2, "D", "D", "D", "_ S0 D", "_ S1 D", "_ D", 1);
    spacc(ORDER2, "S0 D", "S1 D", "S1 D", "_ _ S0 D", "_ _ S1 D", "_ _ D", 1);
}

/* Order 1 with nothing to sum: 'D' alone, as in the reference (derived). */
static void test_spacc1_empty(void **state)
{
    (void)state;
    spacc(ORDER1, "D", "D", "D", "_ D", "_ D", "_ D", 1);
}

/* Section 8, bug 9: the reference never clears its storage, so outer 0
 * recurring after 1 re-emits 0's old sums with the new ones (values
 * [1 2 3 5 2]: 0:1 = 1+4 and the stale 0:2 = 2). samsim clears a run once
 * emitted: the second fiber of 0 holds only its own point. */
static void test_spacc1_recurring_outer(void **state)
{
    (void)state;
    spacc(ORDER1, "0 0 1 0 D", "1 2 1 1 D", "1 2 3 4 D", "_ _ _ 0 _ _ 1 _ 0 S0 D",
          "_ _ _ 1 2 S0 1 S0 1 S1 D", "_ _ _ 1 2 3 4 D", 1);
}

/* Values are summed in arrival order, in doubles. */
static void test_spacc_sums_in_order(void **state)
{
    (void)state;
    spacc(ORDER2, "0 0 0 D", "7 7 7 D", "0.1 0.2 0.3 D", "0 S0 D", "7 S1 D", "0.6000000000000001 D",
          0);
}

/* Many distinct inner coordinates in descending order: the table grows
 * and the fiber still leaves sorted. */
static void test_spacc_large_fiber(void **state)
{
    (void)state;
    char in_o[4096] = "", in_i[4096] = "", in_v[4096] = "", out_i[4096] = "", out_v[4096] = "";
    size_t lo = 0, li = 0, lv = 0, oi = 0, ov = 0;
    for (int k = 0; k < 200; k++) {
        lo += (size_t)snprintf(in_o + lo, sizeof in_o - lo, "3 ");
        li += (size_t)snprintf(in_i + li, sizeof in_i - li, "%d ", 199 - k);
        lv += (size_t)snprintf(in_v + lv, sizeof in_v - lv, "%d.5 ", 199 - k);
        oi += (size_t)snprintf(out_i + oi, sizeof out_i - oi, "%d ", k);
        ov += (size_t)snprintf(out_v + ov, sizeof out_v - ov, "%d.5 ", k);
    }
    strcat(in_o, "D");
    strcat(in_i, "D");
    strcat(in_v, "D");
    strcat(out_i, "S1 D");
    strcat(out_v, "D");
    harness_spec s = {.ops = &spaccumulator_ops, .attrs = ORDER1, .inputs = {in_o, in_i, in_v},
                      .cycles = 500};
    harness_out *out = malloc(sizeof *out);
    harness_run(&s, out);
    harness_expect(out, 0, "3 S0 D", 0);
    harness_expect(out, 1, out_i, 0);
    harness_expect(out, 2, out_v, 0);
    harness_free(out);
    free(out);
}

/* 3.3, one-dimensional accumulation (vec_spacc_simple, x(j) = sum over i
 * of B(i,j), with B's streams timed as in the mat_identity run of 7.2):
 * a private CrdHold, StknDrops, outer coordinates set to 0, and the inner
 * output's stops lowered by one level (derived with the reference's
 * mat_vecmul wiring). */
static void test_spacc_onedim(void **state)
{
    (void)state;
    spacc("order=1,in0=j", "_ 0 1 3 S0 D", "_ _ 0 2 S0 1 S0 0 3 S1 D",
          "_ _ _ 1.0 2.0 S0 3.0 S0 4.0 5.0 S1 D", NULL, "_ _ _ _ _ _ _ _ _ _ _ _ _ 0 1 2 3 S0 D",
          "_ _ _ _ _ _ _ _ _ _ _ _ _ 5 3 2 5 D", 1);
}

/* Derived: the outer coordinate comes late for the second fiber, so the
 * CrdHold's Repeat owes a stop token and catches up. */
static void test_spacc_onedim_late_outer(void **state)
{
    (void)state;
    spacc("order=1,in0=i", "0 _ _ _ _ _ _ _ 1 S0 D", "0 2 S0 _ _ _ _ _ _ 1 S1 D",
          "1 1 S0 _ _ _ _ _ _ 1 S1 D", NULL, "_ _ _ _ _ _ _ _ _ _ _ _ _ _ 0 1 2 S0 D",
          "_ _ _ _ _ _ _ _ _ _ _ _ _ _ 1 1 1 D", 1);
}

/* Section 8, item 8, in the private CrdHold: when the inner coordinates
 * come before the first outer one, the reference's Repeat pairs the first
 * repeat signal with no ref and later raises "Both repeat and ref signal
 * need to end in 'D'"; samsim's waits for the ref, and the result is the
 * one of the same streams with the outer coordinate on time. */
static void test_spacc_onedim_outer_after_inner(void **state)
{
    (void)state;
    const char *o_inner = "_ _ _ _ _ _ _ 0 1 S0 D", *o_val = "_ _ _ _ _ _ _ 1.5 2.5 D";
    spacc("order=1,in0=j", "_ _ 0 S0 D", "0 1 S1 D", "1.5 2.5 S1 D", NULL, o_inner, o_val, 1);
    spacc("order=1,in0=j", "0 S0 D", "_ 0 1 S1 D", "_ 1.5 2.5 S1 D", NULL, o_inner, o_val, 1);
}

/* Derived: an empty matrix gives an empty vector, 'D' alone. */
static void test_spacc_onedim_empty(void **state)
{
    (void)state;
    spacc("order=1,in0=j", "S0 D", "S1 D", "S1 D", NULL, "_ _ _ _ D", "_ _ _ _ D", 1);
}

static void test_spacc_faults(void **state)
{
    (void)state;
    const char *o1[] = {"order=1", "in0=j", "in1=i", NULL};
    const char *o2[] = {"order=2", "in0=j", "in1=i", NULL};
    const char *d1[] = {"order=1", "in0=j", NULL};
    expect_fault(&spaccumulator_ops, o1, (const char *[]){"0 D", "1 D", "2.5 3.5 D"},
                 "different numbers of points");
    expect_fault(&spaccumulator_ops, o2, (const char *[]){"0 1 D", "1 D", "2.5 D"},
                 "different numbers of points");
    expect_fault(&spaccumulator_ops, d1, (const char *[]){"0 1 S0 D", "1 S1 D", "1 S1 D"},
                 "do not end together");
}

static void test_spacc_bad_attributes(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"order=3,in0=j,in1=i", "only orders 1 and 2"},
        {"order=2,in0=j", "needs attribute in1"},
        {"order=1,in0=j,in1=j", "the same index"},
        {"order=1,in1=i", "in0 is missing"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        graph_attr attrs[3];
        char *copy = strdup(cases[k][0]), *save = NULL;
        int n = 0;
        for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            *eq = '\0';
            attrs[n++] = (graph_attr){kv, eq + 1};
        }
        graph_node node = {"7", "spaccumulator", attrs, n};
        block_ctx ctx = {.node = &node};
        block b = {.ops = &spaccumulator_ops, .node = &node};
        sam_error err;
        assert_int_equal(spaccumulator_ops.create(&b, &ctx, &err), -1);
        if (!strstr(err.msg, cases[k][1]))
            fail_msg("'%s': message '%s' lacks '%s'", cases[k][0], err.msg, cases[k][1]);
        free(copy);
    }
}

/* ---- CrdPtConverter (5.18), on its own ------------------------------ */

static void convert(const char *outer, const char *inner, int last_level, const char *out_outer,
                    const char *out_inner)
{
    token o[32], i[32];
    int n = 0;
    char *co = strdup(outer), *ci = strdup(inner), *so = NULL, *si = NULL;
    for (char *wo = strtok_r(co, " ", &so), *wi = strtok_r(ci, " ", &si); wo && wi;
         wo = strtok_r(NULL, " ", &so), wi = strtok_r(NULL, " ", &si), n++) {
        assert_int_equal(token_parse(wo, &o[n]), 0);
        assert_int_equal(token_parse(wi, &i[n]), 0);
    }
    free(co);
    free(ci);
    harness_out *out = calloc(1, sizeof *out);
    crdpt_conv c;
    crdpt_conv_init(&c, last_level, 0);
    int head = 0;   /* point k enters the FIFO in cycle k */
    for (int t = 0; t < 40; t++) {
        conv_head h = head > t || head == n ? CONV_NOTHING
                    : token_is_done(o[head]) ? CONV_DONE : CONV_POINT;
        conv_out r;
        crdpt_conv_step(&c, h, o[head < n ? head : 0].i, i[head < n ? head : 0].i, &r);
        head += r.took;
        out->tok[0][t] = r.o;
        out->has[0][t] = r.has_o;
        out->tok[1][t] = r.i;
        out->has[1][t] = r.has_i;
    }
    out->ncycles = 40;
    harness_expect(out, 0, out_outer, 1);
    harness_expect(out, 1, out_inner, 1);
    free(out);
}

static void test_crdpt_converter(void **state)
{
    (void)state;
    const char *o = "0 0 0 1 1 1 1 2 2 2 D", *i = "0 0 1 0 1 2 3 1 1 1 D";
    convert(o, i, 0, "0 _ _ _ 1 _ _ _ _ 2 _ _ S0 D", "0 0 1 S0 0 1 2 3 S0 1 1 1 S0 D");
    convert(o, i, 1, "0 _ _ _ 1 _ _ _ _ 2 _ _ S0 D", "0 0 1 S0 0 1 2 3 S0 1 1 1 S1 D");
    convert("D", "D", 1, "D", "D");
}

/* ---- ports on the shared graphs ----------------------------------------- */

typedef struct wired {
    const char *label;
    int input, port;
} wired;

/* Builds the block of the first node of type in graph file, checks the
 * number of inputs and the port of every edge touching it. */
static void check_ports(const char *file, const block_ops *ops, int nin, const wired *w, int nw)
{
    char rel[128];
    snprintf(rel, sizeof rel, "sam-graphs/%s", file);
    char *path = test_require_shared(rel);
    sam_graph g;
    sam_error err;
    assert_int_equal(graph_read_dot(path, &g, &err), 0);
    int me = 0;
    while (strcmp(g.nodes[me].type, ops->type))
        me++;
    block b = {.ops = ops, .node = &g.nodes[me]};
    block_ctx ctx = {.graph = &g, .node = &g.nodes[me]};
    if (ops->create(&b, &ctx, &err))
        fail_msg("%s: %s", file, err.msg);
    assert_int_equal(b.nin, nin);
    int seen = 0;
    for (int k = 0; k < g.nedges; k++) {
        const graph_edge *e = &g.edges[k];
        int input = e->dst == me;
        if (!input && e->src != me)
            continue;
        int port = ops->port(&b, e, input, &err);
        if (port < 0)
            fail_msg("%s: %s", file, err.msg);
        for (int j = 0; j < nw; j++)
            if (!strcmp(w[j].label, e->label) && w[j].input == input) {
                if (port != w[j].port)
                    fail_msg("%s: edge %s goes to port %d, not %d", file, e->label, port, w[j].port);
                seen++;
            }
    }
    assert_int_equal(seen, nw);
    block_destroy(&b);
    graph_free(&g);
    free(path);
}

static void test_spacc_ports(void **state)
{
    (void)state;
    check_ports("matmul_ikj.gv", &spaccumulator_ops, 4,
                (const wired[]){{"crd_outer-i", 1, 0}, {"crd_inner-j", 1, 1}, {"val", 1, 2},
                                {"crd_inner-k", 1, 3}, {"crd_out-i", 0, 0}, {"crd_out-j", 0, 1},
                                {"val", 0, 2}},
                7);
    check_ports("matmul_kji.gv", &spaccumulator_ops, 4,
                (const wired[]){{"crd_k", 1, 3}, {"crd_outer-j", 1, 0}, {"crd_inner-i", 1, 1},
                                {"crd_out-j", 0, 0}, {"crd_out-i", 0, 1}},
                5);
    check_ports("mat_spacc_simple.gv", &spaccumulator_ops, 4,
                (const wired[]){{"crd_i", 1, 3}, {"crd_outer-j", 1, 0}, {"crd_inner-k", 1, 1},
                                {"crd_out-k", 0, 1}, {"crd_out-j", 0, 0}},
                5);
    check_ports("mat_vecmul_ji.gv", &spaccumulator_ops, 3,
                (const wired[]){{"crd_j", 1, 0}, {"crd_i", 1, 1}, {"val", 1, 2}, {"crd_out-i", 0, 1}},
                4);
    check_ports("vec_spacc_simple.gv", &spaccumulator_ops, 3,
                (const wired[]){{"crd_i", 1, 0}, {"crd_j", 1, 1}, {"crd_out-j", 0, 1}}, 3);
}

/* in1 is the first val edge into the node in the file: b in vec_sub. */
static void test_alu_ports(void **state)
{
    (void)state;
    char *path = test_require_shared("sam-graphs/vec_sub.gv");
    sam_graph g;
    sam_error err;
    assert_int_equal(graph_read_dot(path, &g, &err), 0);
    int me = graph_node_index(&g, "2"), b_vals = graph_node_index(&g, "3");
    assert_string_equal(g.nodes[me].type, "add");
    block b = {.ops = &add_ops, .node = &g.nodes[me]};
    block_ctx ctx = {.graph = &g, .node = &g.nodes[me]};
    assert_int_equal(add_ops.create(&b, &ctx, &err), 0);
    for (int k = g.nedges - 1; k >= 0; k--)
        if (g.edges[k].dst == me)
            assert_int_equal(add_ops.port(&b, &g.edges[k], 1, &err),
                             g.edges[k].src == b_vals ? 0 : 1);
    block_destroy(&b);
    graph_free(&g);
    free(path);
}

/* vectorreducer has no reference: within each outer fiber (closed by S1
 * here) it takes a pair a cycle, and when the fiber closes emits the
 * distinct coordinates in order with their sums, then the stop one level
 * lower. */
static void test_vectorreducer(void **state)
{
    (void)state;
    harness_spec s = {.ops = &vectorreducer_ops,
                      .inputs = {"2 0 S0 0 S1 5 S1 D", "1.0 2.0 S0 3.0 S1 4.0 S1 D"},
                      .queued = 1};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, "_ _ _ _ _ 0 2 S0 _ _ 5 S0 D", 1);
    harness_expect(&out, 1, "_ _ _ _ _ 5.0 1.0 S0 _ _ 4.0 S0 D", 1);
    harness_free(&out);
}

/* An outer fiber closed without inner fibers merges into an empty fiber,
 * one level up: a stop that closed two fibers never opened keeps one. */
static void test_vectorreducer_unopened_fibers(void **state)
{
    (void)state;
    harness_spec s = {.ops = &vectorreducer_ops,
                      .inputs = {"S2'' 2 S1 D", "S2'' 1.0 S1 D"},
                      .queued = 1};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, "_ S1' _ _ 2 S0 D", 1);
    harness_expect(&out, 1, "_ S1' _ _ 1.0 S0 D", 1);
    harness_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mul),
        cmocka_unit_test(test_mul_values),
        cmocka_unit_test(test_sub),
        cmocka_unit_test(test_union_patch_ints),
        cmocka_unit_test(test_union_patch_floats),
        cmocka_unit_test(test_union_patch_sub),
        cmocka_unit_test(test_patch_waits_for_both_inputs),
        cmocka_unit_test(test_alu_waits_for_pairs),
        cmocka_unit_test(test_alu_faults),
        cmocka_unit_test(test_alu_ports),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_reduce_empty_fibers),
        cmocka_unit_test(test_reduce_done_cycle),
        cmocka_unit_test(test_reduce_unopened_fibers),
        cmocka_unit_test(test_spacc_stkndrop_stage),
        cmocka_unit_test(test_spacc1),
        cmocka_unit_test(test_spacc1_with_stops),
        cmocka_unit_test(test_spacc2),
        cmocka_unit_test(test_spacc2_empty),
        cmocka_unit_test(test_spacc1_empty),
        cmocka_unit_test(test_spacc1_recurring_outer),
        cmocka_unit_test(test_spacc_sums_in_order),
        cmocka_unit_test(test_spacc_large_fiber),
        cmocka_unit_test(test_spacc_onedim),
        cmocka_unit_test(test_spacc_onedim_late_outer),
        cmocka_unit_test(test_spacc_onedim_outer_after_inner),
        cmocka_unit_test(test_spacc_onedim_empty),
        cmocka_unit_test(test_spacc_faults),
        cmocka_unit_test(test_spacc_bad_attributes),
        cmocka_unit_test(test_crdpt_converter),
        cmocka_unit_test(test_spacc_ports),
        cmocka_unit_test(test_vectorreducer),
        cmocka_unit_test(test_vectorreducer_unopened_fibers),
    };
    return cmocka_run_group_tests_name("blocks: mul, add, reduce, spaccumulator", tests, NULL, NULL);
}
