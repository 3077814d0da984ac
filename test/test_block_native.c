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

static void test_crdhold_native(void **state)
{
    (void)state;
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        memset(s, 0, sizeof *s);
        s->ops = &crdhold_ops;
        s->attrs = "outer=i,inner=j";
        s->unconnected = -1;
        nested_pair(s, &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "crdhold case %llu", (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
}

static void test_crddrop_native(void **state)
{
    (void)state;
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        memset(s, 0, sizeof *s);
        s->ops = &crddrop_ops;
        s->attrs = "outer=i,inner=j";
        /* Without an inner output, every outer coordinate is kept. */
        s->unconnected = k % 5 ? -1 : 1;
        nested_pair(s, &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "crddrop case %llu", (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
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

static void test_reduce_native(void **state)
{
    (void)state;
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        memset(s, 0, sizeof *s);
        s->ops = &reduce_ops;
        s->attrs = "";
        s->nin = 1;
        s->unconnected = -1;
        value_stream(&s->in[0], &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "reduce case %llu", (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
}

/* One side of a union: crd and ref streams of random coordinates, refs
 * counting up, over `fibers` fibers of a level below another (-1: one
 * level, a single fiber), now and then the fiber [N] of a tensor absent
 * one level up. */
static void union_side(rig_stream *crd, rig_stream *ref, int fibers, uint64_t *rng)
{
    int64_t pos = 0;
    int nested = fibers >= 0, n = nested ? fibers : 1;
    for (int f = 0; f < n; f++) {
        if (nested && rig_below(rng, 6) == 0) {
            rig_put(crd, token_empty());
            rig_put(ref, token_empty());
        } else {
            for (int64_t c = rig_below(rng, 3); c < 40; c += 1 + rig_below(rng, 4)) {
                rig_put(crd, token_crd(c));
                rig_put(ref, token_crd(pos++));
            }
        }
        rig_put(crd, token_stop(nested && f + 1 == n));
        rig_put(ref, token_stop(nested && f + 1 == n));
    }
    if (n == 0) {
        /* No fiber at all: the outer fiber was empty. */
        token hollow = token_stop(1);
        hollow.hollow = 1;
        rig_put(crd, hollow);
        rig_put(ref, hollow);
    }
    rig_put(crd, token_done());
    rig_put(ref, token_done());
}

static void test_union_native(void **state)
{
    (void)state;
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        int sides = 2 + (k % 4 == 0);
        memset(s, 0, sizeof *s);
        s->ops = &union_ops;
        s->attrs = sides == 3 ? "sides=3" : "sides=2";
        s->nin = 2 * sides;
        s->unconnected = -1;
        int fibers = rig_below(&rng, 3) ? rig_below(&rng, 6) : -1;
        for (int side = 0; side < sides; side++)
            union_side(&s->in[2 * side], &s->in[2 * side + 1], fibers, &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "union case %llu", (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
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
