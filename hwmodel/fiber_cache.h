/* What the LLB holds in pieces rather than as whole tiles: the fibers of
 * an operand it caches (place.T = cache) and the inner tiles an LLB tile
 * fills lazily with (llb.lazy), each a unit named by its tensor and two
 * numbers. The units are kept in the order they were last used, so that
 * the least recently used goes first when the LLB needs room; finding,
 * adding, using and evicting one is amortised O(1) (a hash map on the name,
 * open addressing, and a list through the units), whatever the dimension
 * of the tensor the numbers come from. A unit may belong to a group (the
 * PE tiles of one LLB tile's stay), which leaves together. */
#ifndef SAMSIM_FIBER_CACHE_H
#define SAMSIM_FIBER_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

#define FCACHE_MAX_TENSORS 16

typedef struct fcache_unit {
    int tensor;                 /* -1: a free unit */
    int64_t a, b;               /* its name within the tensor */
    double bytes;
    double ready;               /* in the LLB from this cycle */
    double release;             /* its last reader has it from this cycle */
    int64_t older, newer;       /* the use order, -1 at its ends; a free
                                   unit's newer is the next free one */
    int64_t *group;             /* its group's first unit, NULL: none */
    int64_t next, prev;         /* in its group, -1 at its ends */
} fcache_unit;

typedef struct fcache {
    fcache_unit *unit;
    size_t nunits, room;        /* units made, and room for them */
    int64_t free_unit;          /* first free unit, -1: none */
    int64_t *table;             /* per slot a unit, -1: empty */
    size_t nslots, used;
    int64_t oldest, newest;     /* -1 when empty */
    double bytes;               /* of all its units */
    double tensor_bytes[FCACHE_MAX_TENSORS];
} fcache;

void fcache_init(fcache *c);
void fcache_free(fcache *c);

/* The unit named (tensor, a, b), or NULL. */
fcache_unit *fcache_find(const fcache *c, int tensor, int64_t a, int64_t b);

/* A new unit of `bytes`, the most recently used, ready and released at 0,
 * in the group whose first unit *group names (-1: empty; NULL: no group),
 * which must stay where it is while the group has units; NULL when out of
 * memory. It is valid until the next fcache_add. */
fcache_unit *fcache_add(fcache *c, int tensor, int64_t a, int64_t b, double bytes,
                        int64_t *group, sam_error *err);

/* Makes u the most recently used. */
void fcache_use(fcache *c, fcache_unit *u);

/* The least recently used unit, or NULL when there is none. */
fcache_unit *fcache_oldest(const fcache *c);

/* Takes the least recently used unit out. */
void fcache_evict_oldest(fcache *c);

/* Takes every unit of the group *group names out; *group is then -1. */
void fcache_evict_group(fcache *c, int64_t *group);

#endif
