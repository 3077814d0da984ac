/* The native runs of the blocks test_block_native.c leaves out (block_ops.run):
 * the value forms of crddrop and crdhold, against the cycle engine
 * (test/native_rig.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "native_rig.h"

enum { CASES = 400 };           /* random cases per block */

/* Runs `cases` random cases of one block: make fills the spec's streams
 * and attributes from the case's generator, the timing is random. */
typedef void make_fn(rig_spec *s, uint64_t k, uint64_t *rng);

static void check_cases(const char *name, int cases, make_fn *make)
{
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= (uint64_t)cases; k++) {
        uint64_t rng = k;
        memset(s, 0, sizeof *s);
        s->unconnected = -1;
        s->attrs = "";
        make(s, k, &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "%s case %llu", name, (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
}

/* ------------------------------------------------ crddrop, crdhold: values */

/* A level of one or two levels' nesting and a value beside each of its
 * tokens: 0 often (which crddrop drops), now and then N. */
static void level_values(rig_stream *crd, rig_stream *val, uint64_t *rng)
{
    rig_tree t;
    int levels = 1 + rig_below(rng, 2);
    rig_random_tree(&t, levels, 1 + rig_below(rng, levels == 1 ? 60 : 10), rng);
    rig_write_level(&t, levels - 1, crd);
    for (int k = 0; k < crd->n; k++) {
        token c = crd->tok[k];
        int r = rig_below(rng, 8);
        rig_put(val, c.kind != TOKEN_CRD ? c
                     : r < 3        ? token_val(0.0)
                     : r == 3       ? token_empty()
                                    : token_val((double)c.i + 0.5));
    }
}

static void make_value_pairs(rig_spec *s, uint64_t k, uint64_t *rng)
{
    s->attrs = "outer=i,inner=vals,vals=true";
    s->nin = 2;
    /* An output nobody reads drops its tokens. */
    s->unconnected = k % 7 ? -1 : (int)(k % 2);
    level_values(&s->in[0], &s->in[1], rng);
}

static void make_crddrop_values(rig_spec *s, uint64_t k, uint64_t *rng)
{
    s->ops = &crddrop_values_ops;
    make_value_pairs(s, k, rng);
}

static void make_crdhold_values(rig_spec *s, uint64_t k, uint64_t *rng)
{
    s->ops = &crdhold_values_ops;
    make_value_pairs(s, k, rng);
}

static void test_crddrop_values_native(void **state)
{
    (void)state;
    check_cases("crddrop values", CASES, make_crddrop_values);
}

static void test_crdhold_values_native(void **state)
{
    (void)state;
    check_cases("crdhold values", CASES, make_crdhold_values);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crddrop_values_native),
        cmocka_unit_test(test_crdhold_values_native),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
