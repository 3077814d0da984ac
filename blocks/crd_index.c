#include "crd_index.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

/* A slot to start from for c: a multiplicative hash, whose high bits mix
 * all of c's. */
static size_t home(const crd_index *x, int64_t c)
{
    uint64_t h = (uint64_t)c * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(h >> 32) & (x->nslot - 1);
}

/* The slot holding c, or the free one where it would go. */
static size_t probe(const crd_index *x, int64_t c)
{
    size_t s = home(x, c);
    while (x->slot[s] && x->crd[x->slot[s] - 1] != c)
        s = (s + 1) & (x->nslot - 1);
    return s;
}

/* Twice the slots (64 at first), every number placed again. */
static int rehash(crd_index *x)
{
    size_t nslot = x->nslot ? 2 * x->nslot : 64;
    size_t *slot = calloc(nslot, sizeof *slot);
    if (!slot)
        return -1;
    free(x->slot);
    x->slot = slot;
    x->nslot = nslot;
    for (size_t k = 0; k < x->n; k++)
        x->slot[probe(x, x->crd[k])] = k + 1;
    return 0;
}

int64_t crd_index_number(crd_index *x, int64_t c)
{
    if (2 * (x->n + 1) >= x->nslot && rehash(x))
        return -1;
    size_t s = probe(x, c);
    if (x->slot[s])
        return (int64_t)x->slot[s] - 1;
    int64_t *crd = grow_array(x->crd, x->n, &x->cap, sizeof *crd, 64);
    if (!crd)
        return -1;
    x->crd = crd;
    crd[x->n++] = c;
    x->slot[s] = x->n;
    return (int64_t)x->n - 1;
}

void crd_index_clear(crd_index *x)
{
    if (x->n)
        memset(x->slot, 0, x->nslot * sizeof *x->slot);
    x->n = 0;
}

void crd_index_free(crd_index *x)
{
    free(x->crd);
    free(x->slot);
    *x = (crd_index){0};
}
