#include "gold.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/tensor_compare.h"
#include "evaluate.h"

/* The same coordinates, entry for entry: what every evaluation mode gives. */
static int same_entries(const tensor *a, const tensor *b)
{
    if (a->nnz != b->nnz || a->order != b->order)
        return 0;
    for (int m = 0; m < a->order; m++)
        if (a->nnz && memcmp(a->crd[m], b->crd[m], a->nnz * sizeof(int64_t)))
            return 0;
    return 1;
}

/* The bound of each entry of gold, or NULL with err set. */
static double *entry_bounds(const expr *e, const char *const *names,
                            const tensor *const *operands, int n, const tensor *gold,
                            sam_error *err)
{
    tensor mag, terms;
    if (expr_evaluate_as(e, EXPR_MAGNITUDES, names, operands, n, &mag, err))
        return NULL;
    if (expr_evaluate_as(e, EXPR_TERMS, names, operands, n, &terms, err)) {
        tensor_free(&mag);
        return NULL;
    }
    double *bound = NULL;
    if (!same_entries(&mag, gold) || !same_entries(&terms, gold))
        error_set(err, "check: the error bound's evaluation has other entries than the value's");
    else
        bound = error_alloc(err, gold->nnz + 1, sizeof *bound);
    double factors = expr_factors(e);
    for (size_t k = 0; bound && k < gold->nnz; k++)
        bound[k] = GOLD_K * (terms.vals[k] + factors) * DBL_EPSILON * mag.vals[k];
    tensor_free(&mag);
    tensor_free(&terms);
    return bound;
}

int gold_check(const expr *e, const char *const *names, const tensor *const *operands, int n,
               const tensor *result, FILE *f, int show, gold_report *r, sam_error *err)
{
    tensor gold;
    *r = (gold_report){0};
    if (expr_evaluate(e, names, operands, n, &gold, err))
        return -1;
    if (tensor_compare(result, &gold, NULL, NULL, 0, NULL) == 0) {
        r->exact = 1;
        tensor_free(&gold);
        return 0;
    }
    double *bound = entry_bounds(e, names, operands, n, &gold, err);
    int rc = bound ? 0 : -1;
    if (bound)
        r->differ = tensor_compare(result, &gold, bound, f, show, &r->worst);
    free(bound);
    tensor_free(&gold);
    return rc;
}
