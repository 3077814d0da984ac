/* Comparing a result with a reference: same dimensions, and for every
 * coordinate either both hold values within a relative tolerance, or the
 * side that holds an entry holds 0 there. Explicit zeros are thus neither
 * required nor forbidden, as in the SAM tools' gold check, which drops
 * zeros before comparing. */
#ifndef SAMSIM_TENSOR_COMPARE_H
#define SAMSIM_TENSOR_COMPARE_H

#include <stdio.h>

#include "tensor.h"

/* Both tensors canonical. Returns the number of differing coordinates and
 * describes the first `show` of them on f (may be NULL). */
size_t tensor_compare(const tensor *got, const tensor *want, double rtol, FILE *f, int show);

#endif
