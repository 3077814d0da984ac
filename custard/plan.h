/* What the compiler decides before it draws a block: the parsed
 * expression, each tensor's level format (Custard's -f), the loop order
 * (-s=reorder(...), or the concordant one), where each summed index is
 * summed and over which loops each tensor access is iterated.
 *
 * Scopes follow SAM's construction. Every operand of a product is iterated
 * over all the product's loops (an operand that lacks one is repeated);
 * an operand of a sum only over its own (a loop that only one term has runs
 * inside that term). A summed index is summed at the smallest
 * subexpression holding all its uses, widened over products (a sum of
 * products is the product of sums there), so it is reduced once. */
#ifndef SAMSIM_PLAN_H
#define SAMSIM_PLAN_H

#include <stdint.h>

#include "../common/error.h"
#include "../formats/level_format.h"
#include "expr.h"

typedef uint64_t index_set;

typedef struct plan {
    expr e;
    level_format *format;              /* per tensor of e, the result first */
    int loop[EXPR_MAX_INDICES];        /* index numbers in loop order */
    int nloop;
    int pos[EXPR_MAX_INDICES];         /* loop position of each index */
    index_set summed;                  /* indices not on the left */
    const expr_node *sum_at[EXPR_MAX_INDICES]; /* where each summed index is summed */
    const expr_node *access[EXPR_MAX_INDICES]; /* per tensor, its (only) access */
    index_set scope[EXPR_MAX_INDICES]; /* per tensor, the loops it is iterated over */
} plan;

/* Parses and checks everything; on failure err holds one line and p is
 * left empty (plan_free is still safe). formats are -f values without the
 * "-f=" ("B:ss:1,0"); schedule is the -s value ("reorder(k,i,j)") or NULL. */
int plan_make(const char *expression, const char *const *formats, int nformats,
              const char *schedule, plan *p, sam_error *err);

void plan_free(plan *p);

/* The index variables of node n's subtree. */
index_set plan_vars(const expr_node *n);

#endif
