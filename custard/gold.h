/* The gold check of a simulated result: the expression evaluated
 * independently of the simulator (evaluate.h) and compared entry by entry.
 *
 * The simulator and the evaluator add the terms of an entry in different
 * orders, so where terms cancel their results may differ in more than the
 * last digits while both are right to the precision the terms allow. An
 * entry v = t1 + ... + tn whose terms are products of at most f factors is
 * computed by either side within about (n + f) u (|t1| + ... + |tn|) of
 * the exact value (u = DBL_EPSILON / 2, Higham's bound for a sum of
 * products in any order), so the two may differ by (n + f) DBL_EPSILON
 * sum|t|. The check accepts
 *
 *     |simulated - reference| <= GOLD_K * (n + f) * DBL_EPSILON * sum|t|
 *
 * with GOLD_K = 2, a margin of two over that bound. Without cancellation
 * sum|t| = |v|, so the check stays as strict as a relative tolerance of
 * about (n + f) 4.4e-16; an entry with no terms must be exactly 0. The
 * bound is computed only when some entry is not bit-identical. */
#ifndef SAMSIM_GOLD_H
#define SAMSIM_GOLD_H

#include <stdio.h>

#include "../common/error.h"
#include "../formats/tensor.h"
#include "expr.h"

#define GOLD_K 2.0

typedef struct gold_report {
    size_t differ;      /* coordinates out of bound */
    int exact;          /* every value bit-identical to the reference */
    double worst;       /* largest |simulated - reference| / bound */
} gold_report;

/* Checks result against e evaluated on operands[k] named names[k] (k < n).
 * Differences are described on f (may be NULL), the first `show` of them.
 * Returns 0 with *r filled in, -1 with err set when e cannot be evaluated. */
int gold_check(const expr *e, const char *const *names, const tensor *const *operands, int n,
               const tensor *result, FILE *f, int show, gold_report *r, sam_error *err);

#endif
