#include "channel.h"

#include <stdlib.h>
#include <string.h>


#define CHANNEL_MIN_RING 16

int channel_init(channel *c, uint64_t capacity, uint32_t latency)
{
    memset(c, 0, sizeof *c);
    c->capacity = capacity;
    c->latency = latency;
    c->producer = -1;
    c->stats.last_push = UINT64_MAX;
    c->buf = malloc(CHANNEL_MIN_RING * sizeof *c->buf);
    c->mask = CHANNEL_MIN_RING - 1;
    return c->buf ? 0 : -1;
}

void channel_free(channel *c)
{
    free(c->buf);
    memset(c, 0, sizeof *c);
}

int channel_add_reader(channel *c, int block)
{
    if (c->nreaders == CHANNEL_MAX_READERS)
        return -1;
    c->readers[c->nreaders] =
        (channel_reader){.head = c->tail, .block = block, .pop_cycle = UINT64_MAX};
    return c->nreaders++;
}

static uint64_t slowest_head(const channel *c)
{
    uint64_t h = c->tail;
    for (int r = 0; r < c->nreaders; r++)
        if (c->readers[r].head < h)
            h = c->readers[r].head;
    return h;
}

uint64_t channel_occupancy(const channel *c)
{
    return c->tail - slowest_head(c);
}

int channel_visible(const channel *c, int r, cycle_t now, int limit)
{
    const channel_reader *rd = &c->readers[r];
    int n = 0;
    for (uint64_t h = rd->head; h < c->tail && n < limit; h++, n++)
        if (c->buf[h & c->mask].visible > now)
            break;
    return n;
}

void channel_note_pop(channel *c, channel_reader *rd, cycle_t now)
{
    if (rd->pop_cycle != now) {
        rd->pop_cycle = now;
        rd->pops_in_cycle = 0;
    }
    rd->pops_in_cycle++;
    if (c->waiting_producer && c->wake) {
        c->waiting_producer = 0;
        c->wake(c->wake_ctx, c->producer, now + 1);
    }
}

int channel_has_room(channel *c, cycle_t now)
{
    if (c->capacity == 0)
        return 1;
    int full = 0, freed_now = 0;
    for (int r = 0; r < c->nreaders; r++) {
        const channel_reader *rd = &c->readers[r];
        uint64_t popped = rd->pop_cycle == now ? rd->pops_in_cycle : 0;
        if (c->tail - rd->head + popped >= c->capacity) {
            full = 1;
            freed_now |= c->tail - rd->head < c->capacity;
        }
    }
    if (!full)
        return 1;
    /* Room freed by a pop in this very cycle is there next cycle: no later
     * pop may come to wake the producer, so wake it now for then. */
    if (freed_now && c->wake)
        c->wake(c->wake_ctx, c->producer, now + 1);
    else
        c->waiting_producer = 1;
    return 0;
}

/* Doubles the ring, keeping the entries not yet taken by every reader. */
static int grow(channel *c)
{
    uint64_t size = c->mask + 1, base = slowest_head(c);
    channel_entry *nb = malloc(2 * size * sizeof *nb);
    if (!nb)
        return -1;
    for (uint64_t h = base; h < c->tail; h++)
        nb[h & (2 * size - 1)] = c->buf[h & c->mask];
    free(c->buf);
    c->buf = nb;
    c->mask = 2 * size - 1;
    return 0;
}

int channel_make_room(channel *c)
{
    c->floor = slowest_head(c);
    return c->tail - c->floor > c->mask ? grow(c) : 0;
}

void channel_wake_readers(channel *c, cycle_t at)
{
    for (int r = 0; r < c->nreaders; r++)
        c->wake(c->wake_ctx, c->readers[r].block, at);
}

uint64_t channel_room(const channel *c, cycle_t now)
{
    if (c->capacity == 0)
        return UINT64_MAX;
    uint64_t held = 0;
    for (int r = 0; r < c->nreaders; r++) {
        const channel_reader *rd = &c->readers[r];
        uint64_t n = c->tail - rd->head + (rd->pop_cycle == now ? rd->pops_in_cycle : 0);
        if (n > held)
            held = n;
    }
    return held < c->capacity ? c->capacity - held : 0;
}
