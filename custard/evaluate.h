/* The reference evaluator ("gold") of a parsed index expression on COO
 * tensors. It shares no code with the simulator (engine/, blocks/, builder/): it is what
 * the simulator's results are checked against.
 *
 * Semantics are TACO's. Index variables on the right that are not on the
 * left are summed, each at the smallest subexpression that contains all of
 * its occurrences: in X(i,j) = B(i,j) + C(i,k)*D(k,j), k is summed within
 * the product. A product joins its operands on their shared variables; a
 * sum or difference is the union of its operands (a missing entry counts
 * 0). When the operands of a sum have different variables, the one lacking
 * some is broadcast over their whole range; this is done only for a scalar
 * operand, or when the broadcast stays under 10^7 entries. Scalars are
 * order-0 tensors (an empty one is 0); literals are constants. */
#ifndef SAMSIM_EVALUATE_H
#define SAMSIM_EVALUATE_H

#include "../common/error.h"
#include "../formats/tensor.h"
#include "expr.h"

/* Evaluates e with operands[k] bound to the tensor named names[k] (k < n;
 * names not in e are ignored, and so is an operand named like the result).
 * The dimension of each index variable comes from the operand modes it
 * indexes; operands must agree. result is initialized here: its order is
 * the left side's, its entries are in canonical order (tensor_canonicalize)
 * and explicit zeros arising from the arithmetic are kept. A scalar result
 * always has exactly one entry. */
int expr_evaluate(const expr *e, const char *const *names, const tensor *const *operands, int n,
                  tensor *result, sam_error *err);

/* What an evaluation computes at each entry of the result. Written as a
 * sum of terms (each a product of operand values and literals), a value
 * v = t1 + ... + tn has the magnitude |t1| + ... + |tn| (the expression on
 * absolute values with every minus taken as plus) and n terms: what a
 * floating-point error bound for v needs. Each mode gives the result the
 * same coordinates. */
typedef enum expr_eval_mode { EXPR_VALUES, EXPR_MAGNITUDES, EXPR_TERMS } expr_eval_mode;

/* expr_evaluate computing mode's quantity. */
int expr_evaluate_as(const expr *e, expr_eval_mode mode, const char *const *names,
                     const tensor *const *operands, int n, tensor *result, sam_error *err);

/* The most operands and literals multiplied in one term of e's right side. */
int expr_factors(const expr *e);

#endif
