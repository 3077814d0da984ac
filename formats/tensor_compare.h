/* Comparing a result with a reference: same dimensions, and at every
 * coordinate the two values within that entry's bound, a missing entry
 * counting as 0. Explicit zeros are thus neither required nor forbidden,
 * as in the SAM tools' gold check, which drops zeros before comparing. */
#ifndef SAMSIM_TENSOR_COMPARE_H
#define SAMSIM_TENSOR_COMPARE_H

#include <stdio.h>

#include "tensor.h"

/* Both tensors canonical. bound holds, for each entry of want, how far got
 * may be from it there (NULL: all 0, the values must be equal); where only
 * got has an entry it must be 0. Returns the number of coordinates out of
 * bound and describes the first `show` of them on f (may be NULL). When
 * worst is not NULL it receives the largest |got - want| / bound over the
 * entries with a bound above 0 (0 when there is none). */
size_t tensor_compare(const tensor *got, const tensor *want, const double *bound, FILE *f,
                      int show, double *worst);

#endif
