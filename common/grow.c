#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

void *grow_array(void *p, size_t n, size_t *cap, size_t elem, size_t first)
{
    if (n < *cap)
        return p;
    size_t c = *cap ? 2 * *cap : first;
    if (c < *cap || c > SIZE_MAX / elem)
        return NULL;
    void *q = realloc(p, c * elem);
    if (q)
        *cap = c;
    return q;
}
