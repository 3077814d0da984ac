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
    for (int r = 0; r < c->nreaders; r++)
        free(c->readers[r].pops);
    free(c->buf);
    memset(c, 0, sizeof *c);
}

void channel_rearm(channel *c)
{
    c->tail = c->floor = c->pushed = 0;
    memset(&c->stats, 0, sizeof c->stats);
    c->stats.last_push = UINT64_MAX;
    for (int r = 0; r < c->nreaders; r++)
        c->readers[r].head = 0;
}

int channel_add_reader(channel *c, int block)
{
    if (c->nreaders == CHANNEL_MAX_READERS)
        return -1;
    c->readers[c->nreaders] =
        (channel_reader){.head = c->tail, .block = block};
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

/* Doubles reader rd's ring of pop cycles. */
static int grow_pops(channel_reader *rd)
{
    uint64_t size = rd->pop_mask + 1, nsize = rd->pops ? 2 * size : CHANNEL_MIN_RING;
    cycle_t *np = malloc(nsize * sizeof *np);
    if (!np)
        return -1;
    for (uint64_t h = rd->head > size ? rd->head - size : 0; rd->pops && h < rd->head; h++)
        np[h & (nsize - 1)] = rd->pops[h & rd->pop_mask];
    free(rd->pops);
    rd->pops = np;
    rd->pop_mask = nsize - 1;
    return 0;
}

int channel_note_pop_slow(channel_reader *rd, cycle_t now)
{
    if (grow_pops(rd))
        return -1;
    rd->pops[rd->head & rd->pop_mask] = now;
    return 0;
}

/* The cycle from which reader rd's pop of entry idx makes room: the cycle
 * after it. 0 when it was made so long ago that its cycle is forgotten
 * (before the producer's clock), CYCLE_NONE when it is not made yet. */
static cycle_t freed_from(const channel_reader *rd, uint64_t idx)
{
    if (idx >= rd->head)
        return CYCLE_NONE;
    if (idx + rd->pop_mask + 1 <= rd->head)
        return 0;
    return rd->pops[idx & rd->pop_mask] + 1;
}

int channel_room_at_readers(const channel *c, cycle_t now, cycle_t *full_through)
{
    if (!c->capacity || c->tail < c->capacity)
        return 1;
    /* The entry `capacity` back from the tail must be gone for every reader. */
    uint64_t idx = c->tail - c->capacity;
    int full = 0, unknown = 0;
    cycle_t through = 0;
    for (int r = 0; r < c->nreaders; r++) {
        const channel_reader *rd = &c->readers[r];
        cycle_t from = freed_from(rd, idx), last;
        if (from <= now)
            continue;
        if (from != CYCLE_NONE) {
            last = from - 1;
        } else if (!rd->clock || *rd->clock >= now) {
            /* No pop before the reader's clock: full up to it. */
            last = rd->clock ? *rd->clock : now;
        } else {
            unknown = 1;
            continue;
        }
        full = 1;
        through = last > through ? last : through;
    }
    if (full)
        *full_through = through;
    return full ? 0 : unknown ? -1 : 1;
}

uint64_t channel_room_run(const channel *c, cycle_t t, uint32_t every, uint64_t n)
{
    if (!c->capacity)
        return n;
    uint64_t k = c->tail < c->capacity ? c->capacity - c->tail : 0;
    for (cycle_t at = t + k * every; k < n; k++, at += every) {
        /* Push k needs the entry `capacity` back from it gone before its cycle. */
        uint64_t idx = c->tail + k - c->capacity;
        for (int r = 0; r < c->nreaders; r++)
            if (freed_from(&c->readers[r], idx) > at)
                return k;
    }
    return n;
}

/* Doubles the ring, keeping the entries not yet taken by every reader. */
static int grow(channel *c)
{
    uint64_t size = c->mask + 1, base = slowest_head(c);
    channel_entry *nb = malloc(2 * size * sizeof *nb);
    if (!nb)
        return -1;
    /* In runs that wrap in neither ring: a backlog of millions moves here. */
    for (uint64_t h = base, len; h < c->tail; h += len) {
        uint64_t from = h & c->mask, to = h & (2 * size - 1);
        len = c->tail - h;
        len = size - from < len ? size - from : len;
        len = 2 * size - to < len ? 2 * size - to : len;
        memcpy(nb + to, c->buf + from, len * sizeof *nb);
    }
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

int channel_push_positions(channel *c, cycle_t t, uint32_t every, const int64_t *crd,
                           int64_t first, uint64_t n)
{
    if (!n)
        return 0;
    c->floor = slowest_head(c);
    while (c->tail + n - c->floor > c->mask + 1)
        if (grow(c))
            return -1;
    /* In at most two runs that do not wrap, a loop for each source: this
     * is where a scanner's every token is written. */
    cycle_t at = t + c->latency;
    for (uint64_t done = 0, len; done < n; done += len) {
        uint64_t from = (c->tail + done) & c->mask;
        len = n - done < c->mask + 1 - from ? n - done : c->mask + 1 - from;
        channel_entry *e = c->buf + from;
        const token crd0 = token_crd(0);
        if (crd)
            for (uint64_t k = 0; k < len; k++, at += every) {
                e[k].tok = crd0;
                e[k].tok.i = crd[first + (int64_t)(done + k)];
                e[k].visible = at;
            }
        else
            for (uint64_t k = 0; k < len; k++, at += every) {
                e[k].tok = crd0;
                e[k].tok.i = first + (int64_t)(done + k);
                e[k].visible = at;
            }
    }
    c->tail += n;
    if (!c->pushed)
        c->stats.first_push = t;
    c->pushed += n;
    c->stats.push_cycles += n - (t == c->stats.last_push);
    c->stats.last_push = t + (n - 1) * every;
    c->stats.by_kind[TOKEN_CRD] += n;
    return 0;
}

uint64_t channel_room_readers(const channel *c, cycle_t now)
{
    uint64_t held = 0;
    for (int r = 0; r < c->nreaders; r++) {
        const channel_reader *rd = &c->readers[r];
        /* Pops in this cycle or later free nothing yet. */
        uint64_t h = rd->head;
        while (h > 0 && freed_from(rd, h - 1) > now)
            h--;
        if (c->tail - h > held)
            held = c->tail - h;
    }
    return held < c->capacity ? c->capacity - held : 0;
}
