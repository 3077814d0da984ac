/* The locator (SAM paper, Definition 4.1), on vectors worked out from the
 * definition: every leader coordinate the follower's fiber holds comes out
 * with the leader's reference and the follower's position; the others are
 * dropped. Inputs are the follower's parent refs and the leader's crd and
 * ref; outputs crd, the leader's ref and the located ref. The harness
 * also runs every case split at random cycles (run-ahead). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "test_harness.h"

/* A follower of two dense levels of 4 (mode 1 at level 1): position
 * p * 4 + c for coordinate c of fiber p. */
static void dense_follower(fibertree *ft)
{
    memset(ft, 0, sizeof *ft);
    ft->order = 2;
    ft->dims[0] = ft->dims[1] = 4;
    ft->lv[0] = (fiber_level){.kind = 'd', .mode = 0, .dim = 4};
    ft->lv[1] = (fiber_level){.kind = 'd', .mode = 1, .dim = 4};
    ft->nvals = 16;
    ft->vals = calloc(16, sizeof *ft->vals);
}

static void locate(const fibertree *ft, const char *attrs, const char *crd, const char *ref,
                   const char *parent, const char *want_crd, const char *want_ref,
                   const char *want_located, int exact)
{
    harness_spec s = {.ops = &locate_ops, .attrs = attrs, .tensor = "c", .tree = ft,
                      .inputs = {parent, crd, ref}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, want_crd, exact);
    harness_expect(&out, 1, want_ref, exact);
    harness_expect(&out, 2, want_located, exact);
    harness_free(&out);
}

/* Fiber 1 holds positions 4..7, fiber 3 12..15: one coordinate a cycle,
 * the parent's S0 taken with the leader's S1. */
static void test_locate_dense(void **state)
{
    (void)state;
    fibertree ft;
    dense_follower(&ft);
    locate(&ft, "tensor=c,mode=1", "1 3 S0 0 S1 D", "0 1 S0 2 S1 D", "1 3 S0 D",
           "1 3 S0 0 S1 D", "0 1 S0 2 S1 D", "5 7 S0 12 S1 D", 1);
    fibertree_free(&ft);
}

/* A coordinate beyond the dense level is not there. */
static void test_locate_dense_outside(void **state)
{
    (void)state;
    fibertree ft;
    dense_follower(&ft);
    locate(&ft, "tensor=c,mode=1", "2 9 S0 D", "0 1 S0 D", "0 D", "2 S0 D", "0 S0 D",
           "2 S0 D", 0);
    fibertree_free(&ft);
}

/* Fiber 0 holds 1 and 3 (positions 0, 1), fiber 1 holds 0, 2 and 4
 * (positions 2..4): the leader's 0 and 2 in fiber 0 are dropped. */
static void test_locate_compressed(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 2, 5}, crd[] = {1, 3, 0, 2, 4};
    fibertree ft;
    harness_level(&ft, seg, 3, crd, 5);
    ft.lv[0].mode = 0;
    locate(&ft, "tensor=c,mode=0", "0 1 2 3 S0 2 4 S1 D", "10 11 12 13 S0 14 15 S1 D",
           "0 1 S0 D", "1 3 S0 2 4 S1 D", "11 13 S0 14 15 S1 D", "0 1 S0 3 4 S1 D", 0);
    fibertree_free(&ft);
}

/* A search of 3 cycles: each coordinate out two cycles after it is read. */
static void test_locate_search_cycles(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 2}, crd[] = {1, 3};
    fibertree ft;
    harness_level(&ft, seg, 2, crd, 2);
    locate(&ft, "tensor=c,mode=0,search=3", "1 3 S0 D", "0 1 S0 D", "0 D", "_ _ 1 _ _ 3 S0 D",
           "_ _ 0 _ _ 1 S0 D", "_ _ 0 _ _ 1 S0 D", 1);
    fibertree_free(&ft);
}

/* An N parent is a follower fiber that does not exist: nothing is found
 * there; an N from the leader holds no coordinate. */
static void test_locate_absent(void **state)
{
    (void)state;
    fibertree ft;
    dense_follower(&ft);
    locate(&ft, "tensor=c,mode=1", "0 1 S0 N S0 2 S1 D", "0 1 S0 N S0 2 S1 D", "N 0 2 S0 D",
           "S0 S0 2 S1 D", "S0 S0 2 S1 D", "S0 S0 10 S1 D", 0);
    fibertree_free(&ft);
}

/* An outer fiber holding no inner fiber (the leader's scanner given a
 * stop for a ref, as an empty operand's is) has no parent ref, only the
 * parent's stop, taken with the leader's in one cycle: alone, and after a
 * fiber that was there. */
static void test_locate_outer_fiber_without_fibers(void **state)
{
    (void)state;
    fibertree ft;
    dense_follower(&ft);
    locate(&ft, "tensor=c,mode=1", "S1 D", "S1 D", "S0 D", "S1 D", "S1 D", "S1 D", 1);
    locate(&ft, "tensor=c,mode=1", "1 S1 S2 D", "0 S1 S2 D", "1 S0 S1 D", "1 S1 S2 D",
           "0 S1 S2 D", "5 S1 S2 D", 1);
    fibertree_free(&ft);
}

/* The parent refs waiting behind the leader: nothing moves without them. */
static void test_locate_waits_for_the_parent(void **state)
{
    (void)state;
    fibertree ft;
    dense_follower(&ft);
    locate(&ft, "tensor=c,mode=1", "1 S0 D", "0 S0 D", "_ _ _ 2 D", "_ _ _ 1 S0 D",
           "_ _ _ 0 S0 D", "_ _ _ 9 S0 D", 1);
    fibertree_free(&ft);
}

/* Refused attributes leave no state behind (the engine never destroys a
 * block whose create failed), for the locator and the blocks around lanes. */
static void test_refusals_leave_nothing(void **state)
{
    (void)state;
    fibertree ft;
    dense_follower(&ft);
    harness_spec s = {.ops = &locate_ops, .attrs = "tensor=c,mode=1,search=0", .tensor = "c",
                      .tree = &ft};
    harness_refused(&s, "search = 0 is not a whole number 1..1048576 (cycles)");
    s = (harness_spec){.ops = &parallelize_ops, .attrs = "lanes=0"};
    harness_refused(&s, "lanes=0: a node has 1 to");
    s = (harness_spec){.ops = &serialize_ops, .attrs = "lanes=2,depth=17"};
    harness_refused(&s, "depth=17: a stream 0 to 16 levels below the lanes'");
    s = (harness_spec){.ops = &serialize_ops, .attrs = "lanes=99"};
    harness_refused(&s, "lanes=99: a node has 1 to");
    s = (harness_spec){.ops = &vectorreducer_ops, .attrs = "lanes=0"};
    harness_refused(&s, "lanes=0: a node has 1 to");
    s = (harness_spec){.ops = &vectorreducer_dense_ops, .attrs = "lanes=2,rate=99"};
    harness_refused(&s, "rate = 99 is not a whole number");
    fibertree_free(&ft);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals_leave_nothing),
        cmocka_unit_test(test_locate_dense),
        cmocka_unit_test(test_locate_dense_outside),
        cmocka_unit_test(test_locate_compressed),
        cmocka_unit_test(test_locate_search_cycles),
        cmocka_unit_test(test_locate_absent),
        cmocka_unit_test(test_locate_outer_fiber_without_fibers),
        cmocka_unit_test(test_locate_waits_for_the_parent),
    };
    return cmocka_run_group_tests_name("block_locate", tests, NULL, NULL);
}
