/* The native runs of crdhold, crddrop, reduce and union (block_ops.run)
 * against the cycle engine (test/native_rig.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "../blocks/registry.h"
#include "native_rig.h"

enum { CASES = 500 };           /* random cases per block */

/* ---------------------------------------------------------- the blocks */

/* An outer stream and the inner one a level below it, of one tree. */
static void nested_pair(rig_spec *s, uint64_t *rng)
{
    rig_tree t;
    int outer = 1 + rig_below(rng, 2);
    rig_random_tree(&t, outer + 1, 1 + rig_below(rng, outer == 1 ? 30 : 10), rng);
    rig_write_level(&t, outer - 1, &s->in[0]);
    rig_write_level(&t, outer, &s->in[1]);
    s->nin = 2;
}

static void crdhold_case(rig_spec *s, uint64_t k, uint64_t *rng)
{
    (void)k;
    s->ops = &crdhold_ops;
    s->attrs = "outer=i,inner=j";
    nested_pair(s, rng);
}

static void test_crdhold_native(void **state)
{
    (void)state;
    rig_check_cases("crdhold", CASES, crdhold_case);
}

static void crddrop_case(rig_spec *s, uint64_t k, uint64_t *rng)
{
    s->ops = &crddrop_ops;
    s->attrs = "outer=i,inner=j";
    /* Without an inner output, every outer coordinate is kept. */
    s->unconnected = k % 5 ? -1 : 1;
    nested_pair(s, rng);
}

static void test_crddrop_native(void **state)
{
    (void)state;
    rig_check_cases("crddrop", CASES, crddrop_case);
}

/* A value stream of one to three levels: the tree's coordinates as values,
 * now and then N or a coordinate, which the reducer counts as 0 or as its
 * number. */
static void value_stream(rig_stream *s, uint64_t *rng)
{
    rig_tree t;
    int levels = 1 + rig_below(rng, 3);
    rig_random_tree(&t, levels, 1 + rig_below(rng, levels == 1 ? 60 : 8), rng);
    rig_write_level(&t, levels - 1, s);
    for (int k = 0; k < s->n; k++)
        if (s->tok[k].kind == TOKEN_CRD && rig_below(rng, 8))
            s->tok[k] = token_val((double)s->tok[k].i + 0.25);
        else if (s->tok[k].kind == TOKEN_CRD && rig_below(rng, 2))
            s->tok[k] = token_empty();
}

static void reduce_case(rig_spec *s, uint64_t k, uint64_t *rng)
{
    (void)k;
    s->ops = &reduce_ops;
    s->nin = 1;
    value_stream(&s->in[0], rng);
}

static void test_reduce_native(void **state)
{
    (void)state;
    rig_check_cases("reduce", CASES, reduce_case);
}

static void union_case(rig_spec *s, uint64_t k, uint64_t *rng)
{
    int sides = 2 + (k % 4 == 0);
    s->ops = &union_ops;
    s->attrs = sides == 3 ? "sides=3" : "sides=2";
    s->nin = 2 * sides;
    int fibers = rig_below(rng, 3) ? rig_below(rng, 6) : -1;
    for (int side = 0; side < sides; side++)
        rig_joiner_side(&s->in[2 * side], &s->in[2 * side + 1], fibers, 4, 6, rng);
}

static void test_union_native(void **state)
{
    (void)state;
    rig_check_cases("union", CASES, union_case);
}

/* The adapter over the step is the step engine's check, not a way to
 * run: every implementation has its own run (checked against the cycle
 * engine here and in test_block_native_scan and test_block_native_more). */
static void test_every_implementation_runs_natively(void **state)
{
    (void)state;
    for (int k = 0; k < registry_count(); k++)
        if (!registry_at(k)->run)
            fail_msg("%s (%s) has no run", registry_at(k)->type, registry_at(k)->impl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crdhold_native),
        cmocka_unit_test(test_crddrop_native),
        cmocka_unit_test(test_reduce_native),
        cmocka_unit_test(test_union_native),
        cmocka_unit_test(test_every_implementation_runs_natively),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
