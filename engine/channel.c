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
    c->sealed.buf = malloc(CHANNEL_MIN_RING * sizeof *c->sealed.buf);
    c->sealed.mask = CHANNEL_MIN_RING - 1;
    return c->sealed.buf ? 0 : -1;
}

void channel_free(channel *c)
{
    for (int r = 0; r < c->sealed.nreaders; r++)
        free(c->sealed.readers[r].pops);
    free(c->sealed.buf);
    queue_trace_free(c->trace);
    free(c->traced_pops);
    memset(c, 0, sizeof *c);
}

void channel_rearm(channel *c)
{
    c->sealed.tail = c->sealed.floor = c->pushed = c->runs_end = 0;
    memset(&c->stats, 0, sizeof c->stats);
    c->stats.last_push = UINT64_MAX;
    for (int r = 0; r < c->sealed.nreaders; r++)
        c->sealed.readers[r].head = 0;
}

int channel_add_reader(channel *c, int block)
{
    if (c->sealed.nreaders == CHANNEL_MAX_READERS)
        return -1;
    c->sealed.readers[c->sealed.nreaders] =
        (channel_reader){.head = c->sealed.tail, .block = block};
    return c->sealed.nreaders++;
}

static uint64_t slowest_head(const channel *c)
{
    uint64_t h = c->sealed.tail;
    for (int r = 0; r < c->sealed.nreaders; r++)
        if (c->sealed.readers[r].head < h)
            h = c->sealed.readers[r].head;
    return h;
}

uint64_t channel_occupancy(const channel *c)
{
    return c->sealed.tail - slowest_head(c);
}

int channel_visible(const channel *c, int r, cycle_t now, int limit)
{
    const channel_reader *rd = &c->sealed.readers[r];
    int n = 0;
    for (uint64_t h = rd->head; h < c->sealed.tail && n < limit; h++, n++)
        if (channel_entry_visible(&c->sealed.buf[h & c->sealed.mask]) > now)
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

/* Counts reader r's pops from its ring that the trace has yet to count,
 * joined into stretches here, noting the cycle of the latest. */
static void trace_pops(channel *c, int r)
{
    channel_reader *rd = &c->sealed.readers[r];
    channel_traced_pops *tp = &c->traced_pops[r];
    queue_trace_run run = {0, 0, 0};
    for (; tp->counted < rd->head; tp->counted++) {
        cycle_t at = rd->pops[tp->counted & rd->pop_mask];
        if (queue_trace_join(&run, at, 0, 1))
            continue;
        if (run.n)
            queue_trace_taken(c->trace, r, run.first, run.every, run.n);
        run = (queue_trace_run){at, 0, 1};
    }
    if (run.n) {
        queue_trace_taken(c->trace, r, run.first, run.every, run.n);
        tp->latest = run.first + (run.n - 1) * run.every;
    }
}

/* The trace's floor: below the latest pop counted of every reader, whose
 * pops come in cycle order, and below the producer's clock. */
static void raise_trace_floor(channel *c)
{
    cycle_t floor = c->producer_clock ? *c->producer_clock : 0;
    for (int r = 0; r < c->sealed.nreaders; r++)
        floor = c->traced_pops[r].latest < floor ? c->traced_pops[r].latest : floor;
    c->trace_floor = floor;
}

/* A traced channel's pop: an unbounded one's counted at once, a bounded
 * one's from its ring, where it takes the place of a pop counted before
 * it (those before the floor go inline). */
int channel_note_pop_slow(channel *c, channel_reader *rd, cycle_t now)
{
    int r = (int)(rd - c->sealed.readers);
    if (c->trace && !c->capacity) {
        queue_trace_taken(c->trace, r, now, 0, 1);
        return 0;
    }
    if (c->trace && rd->pops && rd->head > rd->pop_mask) {
        if (rd->head - rd->pop_mask - 1 >= c->traced_pops[r].counted)
            trace_pops(c, r);
        raise_trace_floor(c);
        cycle_t *at = &rd->pops[rd->head & rd->pop_mask];
        if (c->producer_clock && *at < *c->producer_clock) {
            *at = now;
            return 0;
        }
    }
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
    if (!c->capacity || c->sealed.tail < c->capacity)
        return 1;
    /* The entry `capacity` back from the tail must be gone for every reader. */
    uint64_t idx = c->sealed.tail - c->capacity;
    int full = 0, unknown = 0;
    cycle_t through = 0;
    for (int r = 0; r < c->sealed.nreaders; r++) {
        const channel_reader *rd = &c->sealed.readers[r];
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
    uint64_t k = c->sealed.tail < c->capacity ? c->capacity - c->sealed.tail : 0;
    for (cycle_t at = t + k * every; k < n; k++, at += every) {
        /* Push k needs the entry `capacity` back from it gone before its cycle. */
        uint64_t idx = c->sealed.tail + k - c->capacity;
        for (int r = 0; r < c->sealed.nreaders; r++)
            if (freed_from(&c->sealed.readers[r], idx) > at)
                return k;
    }
    return n;
}

/* Doubles the ring, keeping the entries not yet taken by every reader. */
static int grow(channel *c)
{
    uint64_t size = c->sealed.mask + 1, base = slowest_head(c);
    channel_entry *nb = malloc(2 * size * sizeof *nb);
    if (!nb)
        return -1;
    /* In runs that wrap in neither ring: a backlog of millions moves here. */
    for (uint64_t h = base, len; h < c->sealed.tail; h += len) {
        uint64_t from = h & c->sealed.mask, to = h & (2 * size - 1);
        len = c->sealed.tail - h;
        len = size - from < len ? size - from : len;
        len = 2 * size - to < len ? 2 * size - to : len;
        memcpy(nb + to, c->sealed.buf + from, len * sizeof *nb);
    }
    free(c->sealed.buf);
    c->sealed.buf = nb;
    c->sealed.mask = 2 * size - 1;
    return 0;
}

/* Counts the pushes of entries traced_pushes .. to - 1, joined into
 * stretches here: a traced run passes every entry through this loop, a
 * token at the pace of the stretch before it (in cycle `next`) in a few
 * instructions. */
static void trace_pushes(channel *c, uint64_t to)
{
    queue_trace_run run = {0, 0, 0};
    uint64_t next = UINT64_MAX;
    const uint64_t latency = c->latency;
    while (c->traced_pushes < to) {
        uint64_t from = c->traced_pushes & c->sealed.mask, len = c->sealed.mask + 1 - from;
        len = len < to - c->traced_pushes ? len : to - c->traced_pushes;
        const channel_entry *e = c->sealed.buf + from;
        for (uint64_t k = 0; k < len; k++) {
            uint64_t at = channel_entry_visible(&e[k]) - latency;
            int is_run = channel_entry_is_run(&e[k]);
            if (at == next && !is_run) {
                run.n++;
                next += run.every;
                continue;
            }
            uint64_t every = is_run ? channel_run_every(&e[k]) : 0;
            uint64_t n = is_run ? channel_run_count(&e[k]) : 1;
            if (!queue_trace_join(&run, at, every, n)) {
                if (run.n)
                    queue_trace_pushed(c->trace, run.first, run.every, run.n);
                run = (queue_trace_run){at, every, n};
            }
            next = run.n > 1 ? run.first + run.n * run.every : UINT64_MAX;
        }
        c->traced_pushes += len;
    }
    if (run.n)
        queue_trace_pushed(c->trace, run.first, run.every, run.n);
}

/* Moves the floor up to the slowest reader's head: the ring may reuse the
 * places below it, whose pushes a trace counts first. */
static void raise_floor(channel *c)
{
    c->sealed.floor = slowest_head(c);
    if (c->trace)
        trace_pushes(c, c->sealed.floor);
}

/* Counts a stretch of pushes as it goes in, the last n entries, one every
 * `every` cycles from t: the entries before them first. */
static void trace_stretch(channel *c, uint64_t n, cycle_t t, uint32_t every)
{
    trace_pushes(c, c->sealed.tail - n);
    queue_trace_pushed(c->trace, t, every, n);
    c->traced_pushes = c->sealed.tail;
}

int channel_make_room(channel *c)
{
    raise_floor(c);
    return c->sealed.tail - c->sealed.floor > c->sealed.mask ? grow(c) : 0;
}

/* The statistics of n pushes of kind, one every `every` cycles from t. */
static inline void note_pushes(channel *c, cycle_t t, uint32_t every, int kind, uint64_t n)
{
    if (!c->pushed)
        c->stats.first_push = t;
    c->pushed += n;
    c->stats.push_cycles += n - (t == c->stats.last_push);
    c->stats.last_push = t + (n - 1) * every;
    c->stats.by_kind[kind] += n;
}

/* Makes room for n more entries. */
static inline int reserve(channel *c, uint64_t n)
{
    raise_floor(c);
    while (c->sealed.tail + n - c->sealed.floor > c->sealed.mask + 1)
        if (grow(c))
            return -1;
    return 0;
}

/* In at most two runs that do not wrap, a loop for each source: this is
 * where a scanner's every token is written. */
int channel_push_crds(channel *c, cycle_t t, uint32_t every, const int64_t *crd, int64_t first,
                      uint64_t n)
{
    if (!n)
        return 0;
    if (reserve(c, n))
        return -1;
    cycle_t at = t + c->latency;
    for (uint64_t done = 0, len; done < n; done += len) {
        uint64_t from = (c->sealed.tail + done) & c->sealed.mask;
        len = n - done < c->sealed.mask + 1 - from ? n - done : c->sealed.mask + 1 - from;
        channel_entry *e = c->sealed.buf + from;
        /* A coordinate's tag is its cycle alone. */
        uint64_t tag = channel_entry_make(token_crd(0), at).tag, step = (uint64_t)every
                                                                        << CHANNEL_TAG_BITS;
        at += len * every;
        if (crd)
            for (uint64_t k = 0; k < len; k++, tag += step)
                e[k] = (channel_entry){tag, crd[first + (int64_t)(done + k)]};
        else
            for (uint64_t k = 0; k < len; k++, tag += step)
                e[k] = (channel_entry){tag, first + (int64_t)(done + k)};
    }
    c->sealed.tail += n;
    note_pushes(c, t, every, TOKEN_CRD, n);
    if (c->trace)
        trace_stretch(c, n, t, every);
    return 0;
}

/* Whether pushes one every `every` cycles of base's tokens may go in as
 * runs. Runs read their tokens through the channel's one base, so those
 * of another array wait until no run is left unread. */
static int takes_run(const channel *c, uint32_t every, const void *base)
{
    return c->runs && every <= CHANNEL_RUN_MAX_EVERY &&
           (base == c->run_base || c->runs_end <= c->sealed.readers[0].head);
}

/* n tokens as run entries, as many as the count field needs. */
static int push_run_entries(channel *c, cycle_t t, uint32_t every, int kind, const void *base,
                            int64_t first, uint64_t n)
{
    uint64_t entries = (n + CHANNEL_RUN_MAX_COUNT - 1) / CHANNEL_RUN_MAX_COUNT;
    if (reserve(c, entries))
        return -1;
    c->run_base = base;
    cycle_t at = t + c->latency;
    uint64_t head = CHANNEL_RUN_KIND | (uint64_t)kind << 8 | (uint64_t)every << 16;
    for (uint64_t done = 0, len; done < n; done += len, at += len * every) {
        len = n - done < CHANNEL_RUN_MAX_COUNT ? n - done : CHANNEL_RUN_MAX_COUNT;
        c->sealed.buf[c->sealed.tail++ & c->sealed.mask] = (channel_entry){
            at << CHANNEL_TAG_BITS | head,
            (int64_t)((uint64_t)(first + (int64_t)done) << CHANNEL_RUN_COUNT_BITS | len)};
    }
    c->runs_end = c->sealed.tail;
    note_pushes(c, t, every, kind, n);
    return 0;
}

int channel_push_run(channel *c, cycle_t t, uint32_t every, int kind, const void *base,
                     int64_t first, uint64_t n)
{
    if (!n)
        return 0;
    if (takes_run(c, every, base))
        return push_run_entries(c, t, every, kind, base, first, n);
    if (kind == TOKEN_CRD)
        return channel_push_crds(c, t, every, base, first, n);
    for (uint64_t k = 0; k < n; k++, t += every)
        if (channel_push(c, t, token_val(((const double *)base)[first + (int64_t)k])))
            return -1;
    return 0;
}

uint64_t channel_room_readers(const channel *c, cycle_t now)
{
    uint64_t held = 0;
    for (int r = 0; r < c->sealed.nreaders; r++) {
        const channel_reader *rd = &c->sealed.readers[r];
        /* Pops in this cycle or later free nothing yet. */
        uint64_t h = rd->head;
        while (h > 0 && freed_from(rd, h - 1) > now)
            h--;
        if (c->sealed.tail - h > held)
            held = c->sealed.tail - h;
    }
    return held < c->capacity ? c->capacity - held : 0;
}

int channel_readers_reached(const channel *c, cycle_t t)
{
    for (int r = 0; r < c->sealed.nreaders; r++)
        if (c->sealed.readers[r].clock && *c->sealed.readers[r].clock < t)
            return 0;
    return 1;
}

/* The first of c's entries lo..hi-1 visible after t, hi when none is. */
static uint64_t first_visible_after(const channel *c, uint64_t lo, uint64_t hi, cycle_t t)
{
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (channel_entry_visible(&c->sealed.buf[mid & c->sealed.mask]) > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Entries become visible in the order they were pushed. The search
 * gallops from where the last one ended, so a long queue before a slow
 * reader costs little more than the entries that became visible since. */
cycle_t channel_arrival_after(const channel *c, int r, cycle_t t, channel_cursor *cur)
{
    uint64_t lo = c->sealed.readers[r].head, hi = c->sealed.tail, step = 1;
    if (t >= cur->seen_at && cur->seen > lo)
        lo = cur->seen;
    while (lo < hi && channel_entry_visible(&c->sealed.buf[lo & c->sealed.mask]) <= t) {
        uint64_t probe = hi - lo > step ? lo + step : hi;
        if (probe < hi && channel_entry_visible(&c->sealed.buf[probe & c->sealed.mask]) <= t) {
            lo = probe + 1;
            step *= 2;
        } else {
            lo = first_visible_after(c, lo + 1, probe, t);
            break;
        }
    }
    cur->seen = lo;
    cur->seen_at = t;
    return lo < c->sealed.tail ? channel_entry_visible(&c->sealed.buf[lo & c->sealed.mask])
                                : CYCLE_NONE;
}

int channel_trace(channel *c, uint64_t horizon)
{
    c->trace = queue_trace_new(c->sealed.nreaders, horizon);
    c->traced_pops = calloc((size_t)c->sealed.nreaders + 1, sizeof *c->traced_pops);
    c->traced_pushes = c->sealed.tail;
    for (int r = 0; r < c->sealed.nreaders && c->traced_pops; r++)
        c->traced_pops[r].counted = c->sealed.readers[r].head;
    c->trace_floor = 0;
    c->pop_floor = &c->trace_floor;
    return c->trace && c->traced_pops ? 0 : -1;
}

void channel_trace_run_part(channel *c, int r, uint64_t m)
{
    uint64_t h = c->sealed.readers[r].head;
    const channel_entry *e = &c->sealed.buf[h & c->sealed.mask];
    if (h >= c->traced_pushes)
        queue_trace_pushed(c->trace, channel_entry_visible(e) - c->latency, channel_run_every(e),
                           m);
}

int channel_trace_cut(channel *c, cycle_t end)
{
    trace_pushes(c, c->sealed.tail);
    for (int r = 0; r < c->sealed.nreaders && c->capacity; r++)
        trace_pops(c, r);
    return c->trace->failed || queue_trace_cut(c->trace, end) ? -1 : 0;
}
