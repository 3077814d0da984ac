/* The SAM second-operand convention (SAM-BLOCKS.md 4.5): when a kernel has
 * two operands and one matrix is given, the other is a copy whose last-mode
 * coordinates move by +1 modulo the dimension and whose values are all 2. */
#ifndef SAMSIM_SHIFT_H
#define SAMSIM_SHIFT_H

#include "../common/error.h"
#include "tensor.h"

/* out becomes the canonical shifted copy of t (order >= 1). */
int tensor_shift(const tensor *t, tensor *out, sam_error *err);

#endif
