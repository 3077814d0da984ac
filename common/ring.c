#include "ring.h"

#include <stdint.h>
#include <stdlib.h>

/* Room of a ring's first allocation: FIFOs between blocks stay short. */
#define RING_FIRST 16

int ring_reserve(ring *r, size_t need)
{
    if (need <= r->cap)
        return 0;
    size_t cap = r->cap ? r->cap : RING_FIRST;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    if (cap > SIZE_MAX / r->elem)
        return -1;
    unsigned char *buf = malloc(cap * r->elem);
    if (!buf)
        return -1;
    size_t first = r->n < r->cap - r->head ? r->n : r->cap - r->head;
    if (r->n) {
        memcpy(buf, r->buf + r->head * r->elem, first * r->elem);
        memcpy(buf + first * r->elem, r->buf, (r->n - first) * r->elem);
    }
    free(r->buf);
    r->buf = buf;
    r->cap = cap;
    r->head = 0;
    return 0;
}

int ring_append(ring *r, const void *src, size_t k)
{
    if (!k)
        return 0;
    if (k > SIZE_MAX - r->n || ring_reserve(r, r->n + k))
        return -1;
    size_t tail = (r->head + r->n) & (r->cap - 1);
    size_t first = k < r->cap - tail ? k : r->cap - tail;
    memcpy(r->buf + tail * r->elem, src, first * r->elem);
    memcpy(r->buf, (const unsigned char *)src + first * r->elem, (k - first) * r->elem);
    r->n += k;
    return 0;
}

void ring_free(ring *r)
{
    free(r->buf);
    ring_init(r, r->elem);
}
