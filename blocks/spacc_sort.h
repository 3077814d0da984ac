/* The sort of a completed spaccumulator run into (outer, inner) order.
 * The default storage sorts every run it emits, and an order-2 run is the
 * whole result: a comparison sort through qsort spent more instructions
 * there than all the cycles of the accumulator around it. */
#ifndef SAMSIM_SPACC_SORT_H
#define SAMSIM_SPACC_SORT_H

#include <stddef.h>

#include "spaccumulator.h"

/* Runs of at most this many points are sorted in place. */
#define SPACC_SORT_IN_PLACE 24

/* Sorts the n points of p, all distinct, by (o, i); tmp has room for n
 * points, whose contents are lost (NULL will do for a run sorted in
 * place). */
void spacc_sort(spacc_point *p, size_t n, spacc_point *tmp);

#endif
