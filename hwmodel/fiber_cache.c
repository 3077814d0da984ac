#include "fiber_cache.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

void fcache_init(fcache *c)
{
    memset(c, 0, sizeof *c);
    c->free_unit = c->oldest = c->newest = -1;
}

void fcache_free(fcache *c)
{
    free(c->unit);
    free(c->table);
    fcache_init(c);
}

static size_t home_slot(const fcache *c, int tensor, int64_t a, int64_t b)
{
    uint64_t h = (uint64_t)tensor * 0x9E3779B97F4A7C15u;
    h = (h ^ (uint64_t)a) * 0xBF58476D1CE4E5B9u;
    h = (h ^ (uint64_t)b) * 0x94D049BB133111EBu;
    return (size_t)(h >> 17) & (c->nslots - 1);
}

static int named(const fcache_unit *u, int tensor, int64_t a, int64_t b)
{
    return u->tensor == tensor && u->a == a && u->b == b;
}

/* The slot holding the unit named so, or the empty slot where it would go. */
static size_t slot_of(const fcache *c, int tensor, int64_t a, int64_t b)
{
    size_t i = home_slot(c, tensor, a, b);
    while (c->table[i] != -1 && !named(&c->unit[c->table[i]], tensor, a, b))
        i = (i + 1) & (c->nslots - 1);
    return i;
}

fcache_unit *fcache_find(const fcache *c, int tensor, int64_t a, int64_t b)
{
    if (!c->nslots)
        return NULL;
    int64_t k = c->table[slot_of(c, tensor, a, b)];
    return k < 0 ? NULL : &c->unit[k];
}

/* The table at twice the size once it is half full. */
static int grow_table(fcache *c, sam_error *err)
{
    if (2 * (c->used + 1) <= c->nslots)
        return 0;
    size_t n = c->nslots ? 2 * c->nslots : 64, old = c->nslots;
    int64_t *t = malloc(n * sizeof *t), *was = c->table;
    if (!t)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < n; i++)
        t[i] = -1;
    c->table = t;
    c->nslots = n;
    for (size_t i = 0; i < old; i++)
        if (was[i] != -1) {
            const fcache_unit *u = &c->unit[was[i]];
            t[slot_of(c, u->tensor, u->a, u->b)] = was[i];
        }
    free(was);
    return 0;
}

/* A unit to fill: a free one, or a new one. */
static int64_t take_unit(fcache *c, sam_error *err)
{
    if (c->free_unit >= 0) {
        int64_t k = c->free_unit;
        c->free_unit = c->unit[k].newer;
        return k;
    }
    fcache_unit *u = grow_array(c->unit, c->nunits, &c->room, sizeof *u, 64);
    if (!u)
        return error_set(err, "out of memory");
    c->unit = u;
    return (int64_t)c->nunits++;
}

static void unlink_unit(fcache *c, int64_t k)
{
    fcache_unit *u = &c->unit[k];
    if (u->older >= 0)
        c->unit[u->older].newer = u->newer;
    else
        c->oldest = u->newer;
    if (u->newer >= 0)
        c->unit[u->newer].older = u->older;
    else
        c->newest = u->older;
}

static void link_newest(fcache *c, int64_t k)
{
    fcache_unit *u = &c->unit[k];
    u->older = c->newest;
    u->newer = -1;
    if (c->newest >= 0)
        c->unit[c->newest].newer = k;
    else
        c->oldest = k;
    c->newest = k;
}

fcache_unit *fcache_add(fcache *c, int tensor, int64_t a, int64_t b, double bytes,
                        int64_t *group, sam_error *err)
{
    if (tensor < 0 || tensor >= FCACHE_MAX_TENSORS)
        return error_set(err, "a cached tensor numbered %d", tensor), NULL;
    if (grow_table(c, err))
        return NULL;
    int64_t k = take_unit(c, err);
    if (k < 0)
        return NULL;
    c->unit[k] = (fcache_unit){tensor, a, b, bytes, 0, 0, -1, -1, group, -1, -1};
    if (group) {
        c->unit[k].next = *group;
        if (*group >= 0)
            c->unit[*group].prev = k;
        *group = k;
    }
    c->table[slot_of(c, tensor, a, b)] = k;
    c->used++;
    link_newest(c, k);
    c->bytes += bytes;
    c->tensor_bytes[tensor] += bytes;
    return &c->unit[k];
}

void fcache_use(fcache *c, fcache_unit *u)
{
    int64_t k = u - c->unit;
    unlink_unit(c, k);
    link_newest(c, k);
}

fcache_unit *fcache_oldest(const fcache *c)
{
    return c->oldest < 0 ? NULL : &c->unit[c->oldest];
}

/* Empties slot i, moving later slots of its run back so that every unit
 * stays reachable from its home slot (linear probing's deletion). */
static void clear_slot(fcache *c, size_t i)
{
    size_t mask = c->nslots - 1;
    for (size_t j = (i + 1) & mask; c->table[j] != -1; j = (j + 1) & mask) {
        const fcache_unit *u = &c->unit[c->table[j]];
        size_t home = home_slot(c, u->tensor, u->a, u->b);
        /* j's unit may move to i when i lies on its way from home to j. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            c->table[i] = c->table[j];
            i = j;
        }
    }
    c->table[i] = -1;
}

/* Takes unit k out of its group. */
static void leave_group(fcache *c, int64_t k)
{
    fcache_unit *u = &c->unit[k];
    if (!u->group)
        return;
    if (u->prev >= 0)
        c->unit[u->prev].next = u->next;
    else
        *u->group = u->next;
    if (u->next >= 0)
        c->unit[u->next].prev = u->prev;
}

static void evict(fcache *c, int64_t k)
{
    fcache_unit *u = &c->unit[k];
    leave_group(c, k);
    clear_slot(c, slot_of(c, u->tensor, u->a, u->b));
    c->used--;
    unlink_unit(c, k);
    c->bytes -= u->bytes;
    c->tensor_bytes[u->tensor] -= u->bytes;
    u->tensor = -1;
    u->newer = c->free_unit;
    c->free_unit = k;
}

void fcache_evict_oldest(fcache *c)
{
    if (c->oldest >= 0)
        evict(c, c->oldest);
}

void fcache_evict_group(fcache *c, int64_t *group)
{
    while (*group >= 0)
        evict(c, *group);
}
