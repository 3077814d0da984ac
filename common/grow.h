/* The growth rule of samsim's growable arrays, in one place: room doubles
 * when full, from a first size, and a size that would overflow is refused
 * like memory that runs out. */
#ifndef SAMSIM_GROW_H
#define SAMSIM_GROW_H

#include <stddef.h>

/* Array p of *cap elements of size elem, n of them in use: p itself while
 * it has room for one more, else p moved to room for twice as many (first
 * when it has none), *cap updated. NULL when memory runs out; p is then
 * unchanged and still the caller's. grow_array_move is its move, for a
 * full array. */
void *grow_array_move(void *p, size_t *cap, size_t elem, size_t first);

/* Inline, since writers append every token through it: the move alone is
 * out of line. */
static inline void *grow_array(void *p, size_t n, size_t *cap, size_t elem, size_t first)
{
    return n < *cap ? p : grow_array_move(p, cap, elem, first);
}

/* grow_array for extra elements at once past the n in use: p while it has
 * room for them, else p moved once to the first size the doubling reaches
 * that holds them. NULL as grow_array. */
void *grow_array_room_move(void *p, size_t need, size_t *cap, size_t elem, size_t first);

static inline void *grow_array_room(void *p, size_t n, size_t extra, size_t *cap, size_t elem,
                                    size_t first)
{
    return n + extra <= *cap ? p : grow_array_room_move(p, n + extra, cap, elem, first);
}

/* Array p (may be NULL) of room cap cut to room for its n elements of
 * size elem, at least one (an array without elements is still one to
 * point at), for an array that is handed on once full: the doubling's
 * slack goes where it is worth a move (64 KiB). p itself when it cannot
 * be moved; NULL only when p is NULL and memory runs out. */
void *grow_fit(void *p, size_t n, size_t cap, size_t elem);

#endif
