/* The blocks of parallel lanes (SAM paper section 4.4), token by token:
 * the parallelizer deals element e of each fiber to lane e mod N and
 * stop tokens to all; the serializer gives back the serial stream from
 * the lanes so dealt, whatever the depth, empty units and lanes without
 * elements; the vectorreducer of N lanes sums what the lanes bring. The
 * lane streams are the serial streams split by hand by that rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "test_harness.h"

static void expect(const harness_spec *s, const char *const *want, int n, int exact)
{
    harness_out out;
    harness_run(s, &out);
    for (int p = 0; p < n; p++)
        harness_expect(&out, p, want[p], exact);
    harness_free(&out);
}

/* One token a cycle in; an element leaves on its lane in that cycle, a
 * stop token or D on every lane. */
static void test_parallelize_deals(void **state)
{
    (void)state;
    harness_spec s = {.ops = &parallelize_ops, .attrs = "lanes=3",
                      .inputs = {"0 1 2 3 S0 4 S1 D"}};
    static const char *const want[] = {"0 _ _ 3 S0 4 S1 D", "_ 1 _ _ S0 _ S1 D",
                                       "_ _ 2 _ S0 _ S1 D"};
    expect(&s, want, 3, 1);
    harness_spec one = {.ops = &parallelize_ops, .attrs = "lanes=1", .inputs = {"7 N S0 D"}};
    static const char *const same[] = {"7 N S0 D"};
    expect(&one, same, 1, 1);
}

static void serializes(const char *attrs, const char *const *lanes, int n, const char *serial)
{
    harness_spec s = {.ops = &serialize_ops, .attrs = attrs, .queued = 1};
    for (int k = 0; k < n; k++)
        s.inputs[k] = lanes[k];
    const char *want[] = {serial};
    expect(&s, want, 1, 0);
}

/* Depth 1: e0 = [0 1], e1 = [2], e2 = [], e3 = [3] in 2 and 3 lanes; an
 * empty last unit (S0 then the close) and a lane whose one unit is empty
 * (a close that is not hollow). */
static void test_serialize_units(void **state)
{
    (void)state;
    const char *serial = "0 1 S0 2 S0 S0 3 S1 D";
    static const char *const two[] = {"0 1 S0 S1 D", "2 S0 3 S1 D"};
    serializes("lanes=2,depth=1", two, 2, serial);
    static const char *const three[] = {"0 1 S0 3 S1 D", "2 S1 D", "S1 D"};
    serializes("lanes=3,depth=1", three, 3, serial);
    const char *const one[] = {serial};
    serializes("lanes=1,depth=1", one, 1, serial);
}

/* Fewer elements than lanes: the lanes without one close a fiber never
 * opened (hollow), and the close is the lanes' that had units. */
static void test_serialize_idle_lanes(void **state)
{
    (void)state;
    static const char *const lanes[] = {"0 S1 D", "1 S1 D", "S1' D"};
    serializes("lanes=3,depth=1", lanes, 3, "0 S0 1 S1 D");
    static const char *const none[] = {"S1' D", "S1' D"};
    serializes("lanes=2,depth=1", none, 2, "S1' D");
}

/* Depth 0: the parallelized level's own coordinates, one token a unit. */
static void test_serialize_coordinates(void **state)
{
    (void)state;
    static const char *const lanes[] = {"5 9 S0 D", "7 S0 D"};
    serializes("lanes=2", lanes, 2, "5 7 9 S0 D");
    static const char *const nested[] = {"1 3 S0 4 S1 D", "2 S0 S1 D"};
    serializes("lanes=2", nested, 2, "1 2 3 S0 4 S1 D");
}

/* An outer loop above the lanes: fibers of the parallelized level one
 * after the other, the second with one element, so the other lane closes
 * it never opened. */
static void test_serialize_outer_fibers(void **state)
{
    (void)state;
    static const char *const lanes[] = {"0 S1 2 S2 D", "1 S1 S2' D"};
    serializes("lanes=2,depth=1", lanes, 2, "0 S0 1 S1 2 S2 D");
}

/* Depth 2: e0 = [[1]], e1 = [], e2 = [[2]] in 2 lanes, and e0, e1 alone.
 * e1's unit is only a stop closing its fiber one level down, never begun
 * (S2' on its lane, S1' between units): an empty unit, where a lane
 * dealt nothing closes two never begun (S2''). */
static void test_serialize_empty_fiber_below(void **state)
{
    (void)state;
    static const char *const three[] = {"1 S1 2 S2 D", "S2' D"};
    serializes("lanes=2,depth=2", three, 2, "1 S1 S1' 2 S2 D");
    static const char *const two[] = {"1 S2 D", "S2' D"};
    serializes("lanes=2,depth=2", two, 2, "1 S1 S2' D");
    static const char *const one[] = {"1 S2 D", "S2'' D"};
    serializes("lanes=2,depth=2", one, 2, "1 S2 D");
}

/* A sparse accumulator drops the rows that sum to nothing: a lane may
 * hold fewer units than it was dealt elements, and one that holds none
 * gives D alone. The units go out in turn among the lanes with units
 * left, at every level alike: rows 0 2 4 on lane 0 and 1 3 on lane 1,
 * row 0 dropped, come as 4 1 3, their fibers [7] [8] [9] in that order
 * too; rows 1 and 3 dropped leave lane 1 D alone. */
static void test_serialize_units_dropped(void **state)
{
    (void)state;
    static const char *const rows[] = {"4 S0 D", "1 3 S0 D"};
    serializes("lanes=2", rows, 2, "4 1 3 S0 D");
    static const char *const fibers[] = {"7 S1 D", "8 S0 9 S1 D"};
    serializes("lanes=2,depth=1", fibers, 2, "7 S0 8 S0 9 S1 D");
    static const char *const alone[] = {"0 2 S0 D", "D"};
    serializes("lanes=2", alone, 2, "0 2 S0 D");
    static const char *const alone_fibers[] = {"5 S0 6 S1 D", "D"};
    serializes("lanes=2,depth=1", alone_fibers, 2, "5 S0 6 S1 D");
    static const char *const first_alone[] = {"D", "1 3 S0 D"};
    serializes("lanes=2", first_alone, 2, "1 3 S0 D");
    static const char *const first_alone_fibers[] = {"D", "5 6 S0 7 S1 D"};
    serializes("lanes=2,depth=1", first_alone_fibers, 2, "5 6 S0 7 S1 D");
}

/* The merging vectorreducer: the lanes' pairs of each outer fiber summed,
 * in coordinate order, as one lane's would be. */
static void test_vectorreducer_lanes(void **state)
{
    (void)state;
    harness_spec s = {.ops = &vectorreducer_ops, .attrs = "lanes=2", .queued = 1,
                      .inputs = {"1 3 S0 2 S1 D", "1.5 3.5 S0 2.5 S1 D", "3 S1 D", "0.25 S1 D"}};
    static const char *const want[] = {"1 2 3 S0 D", "1.5 2.5 3.75 S0 D"};
    expect(&s, want, 2, 0);
    harness_spec serial = {.ops = &vectorreducer_ops, .queued = 1,
                           .inputs = {"1 3 S0 2 S0 3 S1 D", "1.5 3.5 S0 2.5 S0 0.25 S1 D"}};
    expect(&serial, want, 2, 0);
}

/* Gamma's merger takes one pair a cycle (rate=1), the lanes in turn: the
 * four pairs and two stops that two lanes bring in two cycles take six,
 * and the sums leave three cycles later than from the unbounded merger;
 * the lanes' D tokens too come one a cycle. */
static void test_vectorreducer_rate(void **state)
{
    (void)state;
    harness_spec wide = {.ops = &vectorreducer_ops, .attrs = "lanes=2", .queued = 1,
                         .inputs = {"1 3 S1 D", "0.5 0.5 S1 D", "2 4 S1 D", "0.5 0.5 S1 D"}};
    static const char *const wide_want[] = {"_ _ _ 1 2 3 4 S0 D", "_ _ _ 0.5 0.5 0.5 0.5 S0 D"};
    expect(&wide, wide_want, 2, 1);
    harness_spec one = wide;
    one.attrs = "lanes=2,rate=1";
    static const char *const one_want[] = {"_ _ _ _ _ _ 1 2 3 4 S0 _ D",
                                           "_ _ _ _ _ _ 0.5 0.5 0.5 0.5 S0 _ D"};
    expect(&one, one_want, 2, 1);
}

/* A bounded rate serves each lane at most once a cycle, in turn from the
 * lane after the last served, however many lanes have closed: the one
 * lane still open gives a pair a cycle, not two. */
static void test_vectorreducer_rate_once_a_lane(void **state)
{
    (void)state;
    harness_spec s = {.ops = &vectorreducer_ops, .attrs = "lanes=3,rate=2", .queued = 1,
                      .inputs = {"1 2 3 4 S1 D", "0.5 0.5 0.5 0.5 S1 D", "S1 D", "S1 D", "S1 D",
                                 "S1 D"}};
    static const char *const want[] = {"_ _ _ _ _ 1 2 3 4 S0 _ D",
                                       "_ _ _ _ _ 0.5 0.5 0.5 0.5 S0 _ D"};
    expect(&s, want, 2, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallelize_deals),     cmocka_unit_test(test_serialize_units),
        cmocka_unit_test(test_serialize_idle_lanes),  cmocka_unit_test(test_serialize_coordinates),
        cmocka_unit_test(test_serialize_outer_fibers),
        cmocka_unit_test(test_serialize_empty_fiber_below),
        cmocka_unit_test(test_serialize_units_dropped),   cmocka_unit_test(test_vectorreducer_lanes),
        cmocka_unit_test(test_vectorreducer_rate),
        cmocka_unit_test(test_vectorreducer_rate_once_a_lane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
