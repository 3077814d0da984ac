/* Numbers the distinct coordinates a block meets 0, 1, 2... in the order
 * they first come, and finds a coordinate's number again in constant
 * time: storage that follows the coordinates met, however large the
 * dimension they come from (a writer keeping something per fiber of a
 * level whose parent a file of a few bytes may declare 2^31 wide). */
#ifndef SAMSIM_CRD_INDEX_H
#define SAMSIM_CRD_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct crd_index {
    int64_t *crd;           /* by number */
    size_t n, cap;
    size_t *slot;           /* open addressing: a number + 1, 0 when free */
    size_t nslot;           /* a power of two, more than twice n */
} crd_index;

/* The number of coordinate c, the next one when c is new; -1 when memory
 * runs out. An index starts zeroed. */
int64_t crd_index_number(crd_index *x, int64_t c);

/* Forgets every coordinate, keeping the memory for those to come. */
void crd_index_clear(crd_index *x);

void crd_index_free(crd_index *x);

#endif
