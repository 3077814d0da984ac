#include "grow.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

/* An array moved this large leaves a hole that glibc's heap keeps
 * resident (it returns only its top to the system): two arrays growing
 * side by side, as a writer's coordinates and values do, would hold
 * their earlier copies as well, as much again. */
#define GROW_TRIM_BYTES ((size_t)1 << 20)

/* p moved to room for c elements, *cap set to c. */
static void *move_to(void *p, size_t *cap, size_t c, size_t elem)
{
    if (c > SIZE_MAX / elem)
        return NULL;
    void *q = realloc(p, c * elem);
    if (!q)
        return NULL;
#ifdef __GLIBC__
    if (q != p && *cap * elem >= GROW_TRIM_BYTES)
        malloc_trim(0);
#endif
    *cap = c;
    return q;
}

void *grow_array_move(void *p, size_t *cap, size_t elem, size_t first)
{
    size_t c = *cap ? 2 * *cap : first;
    return c < *cap ? NULL : move_to(p, cap, c, elem);
}

void *grow_array_room_move(void *p, size_t need, size_t *cap, size_t elem, size_t first)
{
    size_t c = *cap ? *cap : first ? first : 1;
    while (c < need) {
        if (2 * c < c)
            return NULL;
        c *= 2;
    }
    return move_to(p, cap, c, elem);
}

/* Slack below this stays: a tiled run hands on a result tile's arrays at
 * every point, and moving a few bytes costs more than it frees. */
#define GROW_FIT_SLACK ((size_t)1 << 16)

void *grow_fit(void *p, size_t n, size_t cap, size_t elem)
{
    if (p && n && (cap - n) * elem < GROW_FIT_SLACK)
        return p;
    void *q = realloc(p, (n ? n : 1) * elem);
    return q ? q : p;
}
