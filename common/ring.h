/* The blocks' private FIFOs: elements of one fixed size in a ring whose
 * room is a power of two, so a position is masked, never divided. Room
 * doubles when full, like the growable arrays (grow.h); growing unwinds
 * the ring to start at 0, so a push that grows copies in at most two runs.
 * Pushes that fit, drops and the head are inline: blocks do them every
 * cycle. */
#ifndef SAMSIM_RING_H
#define SAMSIM_RING_H

#include <stddef.h>
#include <string.h>

typedef struct ring {
    unsigned char *buf;
    size_t elem;            /* bytes per element */
    size_t cap;             /* room: 0 or a power of two */
    size_t head, n;         /* the FIFO is the n elements from head on */
} ring;

/* Empty, for elements of elem (> 0) bytes; no memory until the first
 * push. */
static inline void ring_init(ring *r, size_t elem)
{
    *r = (ring){.elem = elem};
}

/* Room for need elements in all. -1 when memory runs out or the size would
 * overflow; the ring is then unchanged. */
int ring_reserve(ring *r, size_t need);

/* Appends k elements from src in order, at once: a whole run of points. */
int ring_append(ring *r, const void *src, size_t k);

static inline size_t ring_count(const ring *r)
{
    return r->n;
}

/* The slot of a new element at the tail, for the caller to fill (a typed
 * store, which a copy of r->elem bytes could not be); NULL when memory
 * runs out, the ring then unchanged. */
static inline void *ring_push(ring *r)
{
    if (r->n == r->cap && ring_reserve(r, r->n + 1))
        return NULL;
    return r->buf + ((r->head + r->n++) & (r->cap - 1)) * r->elem;
}

/* The oldest element, in place until the next push or drop; the ring must
 * not be empty. */
static inline void *ring_head(const ring *r)
{
    return r->buf + r->head * r->elem;
}

/* Removes the oldest element; the ring must not be empty. */
static inline void ring_drop(ring *r)
{
    r->head = (r->head + 1) & (r->cap - 1);
    r->n--;
}

/* Empties the ring, keeping its memory for what comes next. */
static inline void ring_clear(ring *r)
{
    r->head = r->n = 0;
}

/* Empties the ring and gives its memory back; it stays usable. */
void ring_free(ring *r);

#endif
