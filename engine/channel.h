/* A stream between one producer port and one or more consumer ports (a
 * DOT broadcast is several readers of one channel, never a copy). Each
 * entry carries the cycle in which it becomes visible, so latency is a
 * property of the channel, and a bounded channel refuses pushes when the
 * slowest reader is `capacity` entries behind. Room freed by a pop counts
 * from the next cycle, so the order in which blocks are stepped within a
 * cycle never matters.
 *
 * Time lives on the data: a bounded channel keeps the cycle of each
 * reader's recent pops (its credits), so whether there is room at any
 * cycle is exact whatever cycle the reader has reached since, and a
 * producer may run ahead of its readers as far as the room they have
 * already made. Each reader and the producer point to their block's
 * clock (all its cycles before it are simulated), set by the engine.
 *
 * A traced run (channel_trace) counts every push and pop of a channel in
 * its readers' queues (engine/queue_trace.h) off the paths an untraced
 * run takes at every token: a push from its entry once every reader has
 * taken it and the ring may reuse its place (channel_make_room), or as
 * it goes in where a stretch of them does (channel_push_crds); an
 * unbounded channel's pop out of line, a bounded one's from the reader's
 * ring of pop cycles a ring's worth at a time, before its places are
 * reused (trace_floor); the rest at the run's end. */
#ifndef SAMSIM_CHANNEL_H
#define SAMSIM_CHANNEL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "queue_trace.h"
#include "token.h"

typedef uint64_t cycle_t;

#define CYCLE_NONE UINT64_MAX


/* Readers of one stream; SAM graphs fan a stream out to a handful. */
#define CHANNEL_MAX_READERS 16

/* An entry: a token and the cycle in which it becomes visible, in 16
 * bytes, since a run's memory is mostly its backlogs of entries (a side
 * of an intersection millions of tokens ahead of the other): the cycle in
 * the high bits of tag, above the token's kind, level and hollow, laid
 * out as the token's first bytes are, so that a token is unpacked by a
 * mask and a copy (a few instructions at every token a block reads); its
 * coordinate or value in payload. Read through the functions below. */
typedef struct channel_entry {
    uint64_t tag;
    int64_t payload;        /* token.i, or the bits of token.v */
} channel_entry;

/* Bits 0-7 the kind, 8-15 the level, 16-20 the hollow count: at most a
 * stop's level, so below 32 for any tensor order a graph can have. These
 * are a token's first three bytes on a little-endian machine. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "channel entries copy a token's first bytes as a little-endian word"
#endif
#define CHANNEL_TAG_BITS 21
#define CHANNEL_MAX_HOLLOW 31
/* The last cycle an entry can hold: sim_engine_run stops a run before it. */
#define CHANNEL_MAX_CYCLE ((UINT64_C(1) << (64 - CHANNEL_TAG_BITS)) - 1)

static inline channel_entry channel_entry_make(token t, cycle_t visible)
{
    uint32_t head;
    memcpy(&head, &t, sizeof head);
    return (channel_entry){visible << CHANNEL_TAG_BITS |
                               (head & ((UINT32_C(1) << CHANNEL_TAG_BITS) - 1)),
                           t.i};
}

static inline cycle_t channel_entry_visible(const channel_entry *e)
{
    return e->tag >> CHANNEL_TAG_BITS;
}

/* The tags of the entries visible at cycle t are those below this: a
 * loop over entries steps it by every << CHANNEL_TAG_BITS a cycle. */
static inline uint64_t channel_tag_bound(cycle_t t)
{
    return (t + 1) << CHANNEL_TAG_BITS;
}

/* Whether an entry holds a coordinate (whose level and hollow are 0). */
static inline int channel_entry_is_crd(const channel_entry *e)
{
    return (e->tag & ((UINT64_C(1) << CHANNEL_TAG_BITS) - 1)) == (uint64_t)TOKEN_CRD;
}

static inline int channel_entry_kind(const channel_entry *e)
{
    return (int)(e->tag & 0xff);
}

static inline token channel_entry_token(const channel_entry *e)
{
    token t;
    uint64_t head = e->tag & ((UINT64_C(1) << CHANNEL_TAG_BITS) - 1);
    memcpy(&t, &head, sizeof head);
    t.i = e->payload;
    return t;
}

/* A run: n tokens of one kind pushed one every `every` cycles from its
 * entry's cycle, held as one entry, so that a scanner's fiber costs an
 * entry rather than one a token on its way to a writer (issue 30's runs
 * of tokens by reference). Its kind byte is CHANNEL_RUN_KIND, never a
 * token's; its level byte the tokens' kind, its hollow bits `every`; its
 * payload the first token's index << CHANNEL_RUN_COUNT_BITS | n. The
 * tokens are the channel's run_base at those indices (int64_t for
 * coordinates, double for values), or the indices themselves, positions,
 * when run_base is NULL: a push of another array waits for the runs
 * unread to be taken (it goes in as tokens). Only a channel whose one
 * reader takes runs (channel.runs) holds them. */
#define CHANNEL_RUN_KIND 0xff
#define CHANNEL_RUN_COUNT_BITS 24
#define CHANNEL_RUN_MAX_COUNT ((UINT64_C(1) << CHANNEL_RUN_COUNT_BITS) - 1)
#define CHANNEL_RUN_MAX_EVERY CHANNEL_MAX_HOLLOW

static inline int channel_entry_is_run(const channel_entry *e)
{
    return (e->tag & 0xff) == CHANNEL_RUN_KIND;
}

static inline uint64_t channel_run_count(const channel_entry *e)
{
    return (uint64_t)e->payload & CHANNEL_RUN_MAX_COUNT;
}

static inline int64_t channel_run_first(const channel_entry *e)
{
    return (int64_t)((uint64_t)e->payload >> CHANNEL_RUN_COUNT_BITS);
}

/* The kind of a run's tokens: TOKEN_CRD or TOKEN_VAL. */
static inline int channel_run_kind(const channel_entry *e)
{
    return (int)(e->tag >> 8 & 0xff);
}

static inline uint32_t channel_run_every(const channel_entry *e)
{
    return (uint32_t)(e->tag >> 16 & CHANNEL_MAX_HOLLOW);
}

typedef struct channel_reader {
    uint64_t head;          /* entries taken so far */
    int block;              /* consumer block */
    const cycle_t *clock;   /* the reader has made every pop before this
                               cycle; NULL: every pop so far is all there is */
    cycle_t *pops;          /* bounded channels: ring of the cycles of the
                               latest pops, entry h at h & pop_mask */
    uint64_t pop_mask;
} channel_reader;

/* The pops of a reader of a traced bounded channel that the trace has
 * counted from its ring: those before entry `counted`, the latest of them
 * in cycle `latest`. */
typedef struct channel_traced_pops {
    uint64_t counted;
    cycle_t latest;
} channel_traced_pops;

/* Stop tokens are counted by level up to this one; deeper ones count here. */
#define CHANNEL_STOP_LEVELS 4

/* What went through a channel, for --stats; kept on every push. */
typedef struct channel_stats {
    uint64_t by_kind[TOKEN_KINDS];
    uint64_t stops[CHANNEL_STOP_LEVELS];
    cycle_t first_push, last_push;
    uint64_t push_cycles;   /* cycles with a push: a vectorised block may
                               push several tokens in one */
} channel_stats;

typedef struct channel {
    /* The ring, its readers and their heads: this header's and
     * channel.c's alone (scripts/check-layers refuses a reference to
     * `sealed` anywhere else); blocks and the engine see a channel
     * through the functions below. */
    struct {
        channel_entry *buf;     /* ring of a power of two entries */
        uint64_t mask;
        uint64_t tail;          /* entries pushed so far */
        uint64_t floor;         /* no reader's head is below this (refreshed
                                   when the ring looks full) */
        channel_reader readers[CHANNEL_MAX_READERS];   /* in place: read every cycle */
        int nreaders;
    } sealed;
    /* Set by sim_engine_start: unbounded, with one reader whose block
     * takes runs (block_ops.takes_runs), so pushes of a stretch of an
     * array may go in as one run entry. */
    int runs;
    const void *run_base;   /* the array every run unread indexes, or NULL */
    uint64_t runs_end;      /* entries pushed up to the last run */
    uint64_t capacity;      /* 0: unbounded */
    uint32_t latency;
    int producer;           /* producing block, -1: tokens placed before the run */
    /* The producer's clock: it asks about room at no cycle before it, so
     * a pop older than that never needs its cycle again. NULL: any. */
    const cycle_t *producer_clock;
    /* For channel_note_pop: the producer's clock, or a traced channel's
     * trace_floor, below which a pop in a reader's ring is counted. */
    const cycle_t *pop_floor;
    queue_trace *trace;     /* the run is traced: its readers' queues; NULL: not */
    uint64_t traced_pushes; /* entries whose pushes the trace has counted */
    channel_traced_pops *traced_pops;  /* per reader, while traced */
    cycle_t trace_floor;
    uint64_t pushed;        /* token moves, for statistics */
    channel_stats stats;
    const char *kind;       /* crd, ref, val or repsig: the graph's edge type */
    int id;                 /* index in the engine, for messages */
    int timed;              /* capacity and latency set from the graph */
} channel;

int channel_init(channel *c, uint64_t capacity, uint32_t latency);
void channel_free(channel *c);
/* Empties c for another run of the same graph (a tiled run's next point):
 * no token pushed or taken, statistics zero; its readers, producer,
 * timing and the memory of its rings stay. */
void channel_rearm(channel *c);
/* The new reader's index, or -1 when the channel has its maximum. */
int channel_add_reader(channel *c, int block);

/* The readers: how many, and reader r's block. */
static inline int channel_readers(const channel *c)
{
    return c->sealed.nreaders;
}

static inline int channel_reader_block(const channel *c, int r)
{
    return c->sealed.readers[r].block;
}

/* Points reader r at its block's clock (channel_reader.clock). */
static inline void channel_reader_clock(channel *c, int r, const cycle_t *clock)
{
    c->sealed.readers[r].clock = clock;
}

/* Whether every reader has made all its pops before cycle t. */
int channel_readers_reached(const channel *c, cycle_t t);

/* Tokens pushed so far (a count that only grows: a block notes it to see
 * later whether anything came since). */
static inline uint64_t channel_pushes(const channel *c)
{
    return c->sealed.tail;
}

/* Tokens reader r has taken so far. */
static inline uint64_t channel_taken(const channel *c, int r)
{
    return c->sealed.readers[r].head;
}

/* Tokens all readers have taken (reader 0's while it has none): the engine
 * asks after every run of a block that waits for room. */
static inline uint64_t channel_taken_all(const channel *c)
{
    uint64_t n = c->sealed.readers[0].head;
    for (int r = 1; r < c->sealed.nreaders; r++)
        n += c->sealed.readers[r].head;
    return n;
}

/* The cycle of reader r's pop of its k-th token, while a bounded channel
 * remembers it (channel_note_pop); CYCLE_NONE when it does not. */
static inline cycle_t channel_pop_cycle(const channel *c, int r, uint64_t k)
{
    const channel_reader *rd = &c->sealed.readers[r];
    if (!c->capacity || !rd->pops || k >= rd->head || k + rd->pop_mask + 1 < rd->head)
        return CYCLE_NONE;
    return rd->pops[k & rd->pop_mask];
}

/* Tokens pushed that reader r has not taken, visible or not. */
static inline uint64_t channel_unread(const channel *c, int r)
{
    return c->sealed.tail - c->sealed.readers[r].head;
}

/* The cycle in which the newest token becomes visible; 0 without one. */
static inline cycle_t channel_last_arrival(const channel *c)
{
    return c->sealed.tail ? channel_entry_visible(&c->sealed.buf[(c->sealed.tail - 1) & c->sealed.mask])
                           : 0;
}

/* The cycle in which reader r's head token becomes visible, CYCLE_NONE
 * when it holds none. */
static inline cycle_t channel_head_arrival(const channel *c, int r)
{
    uint64_t h = c->sealed.readers[r].head;
    return h < c->sealed.tail ? channel_entry_visible(&c->sealed.buf[h & c->sealed.mask])
                              : CYCLE_NONE;
}

/* Where a search for reader r's next arrival got to: every entry before
 * `seen` was visible by cycle seen_at. A reader's clock only moves on, so
 * the next search starts there. */
typedef struct channel_cursor {
    uint64_t seen;
    cycle_t seen_at;
} channel_cursor;

/* The cycle of the first of reader r's tokens that becomes visible after
 * t, or CYCLE_NONE; cur carries the search from call to call. */
cycle_t channel_arrival_after(const channel *c, int r, cycle_t t, channel_cursor *cur);

/* Reader r's unread entry k (k < channel_unread), read in place. */
static inline const channel_entry *channel_unread_entry(const channel *c, int r, uint64_t k)
{
    return &c->sealed.buf[(c->sealed.readers[r].head + k) & c->sealed.mask];
}

/* Reader r's unread entries k up to n - 1 (n <= channel_unread) that lie
 * in one stretch of the ring from entry k, the first in *at: for a loop
 * that reads a few without making a span. */
static inline uint64_t channel_unread_stretch(const channel *c, int r, uint64_t k, uint64_t n,
                                              const channel_entry **at)
{
    uint64_t from = (c->sealed.readers[r].head + k) & c->sealed.mask;
    uint64_t len = c->sealed.mask + 1 - from;
    *at = c->sealed.buf + from;
    return len < n - k ? len : n - k;
}

/* A reader's view of up to n of its tokens from the head: at most two
 * stretches of the ring, the second where it wraps. */
typedef struct channel_span {
    const channel_entry *part[2];
    uint64_t len[2];
} channel_span;

static inline channel_span channel_unread_span(const channel *c, int r, uint64_t n)
{
    uint64_t h = c->sealed.readers[r].head, left = c->sealed.tail - h;
    uint64_t from = h & c->sealed.mask, first = c->sealed.mask + 1 - from;
    n = n < left ? n : left;
    first = first < n ? first : n;
    return (channel_span){{c->sealed.buf + from, c->sealed.buf}, {first, n - first}};
}

/* Entry k of a span, k < len[0] + len[1]. */
static inline const channel_entry *channel_span_at(const channel_span *s, uint64_t k)
{
    return k < s->len[0] ? &s->part[0][k] : &s->part[1][k - s->len[0]];
}

/* The entries of a span from k on that lie in one stretch of the ring,
 * the first of them in *at: a loop over them needs no masking. */
static inline uint64_t channel_span_stretch(const channel_span *s, uint64_t k,
                                            const channel_entry **at)
{
    int p = k >= s->len[0];
    k -= p ? s->len[0] : 0;
    *at = s->part[p] + k;
    return s->len[p] - k;
}

/* Takes n of reader r's entries at once, an unbounded channel's (a bounded
 * one notes each pop's cycle: channel_pop), whose pops the caller counts
 * with channel_count_takes. */
static inline void channel_take_unbounded(channel *c, int r, uint64_t n)
{
    c->sealed.readers[r].head += n;
}

/* n pops of reader r, one every `every` cycles from cycle t, counted while
 * the run is traced: for the takes above and channel_take_part. */
static inline void channel_count_takes(channel *c, int r, cycle_t t, uint32_t every, uint64_t n)
{
    if (c->trace)
        queue_trace_taken(c->trace, r, t, every, n);
}

/* Counts the pushes of the first m tokens of reader r's head entry, a
 * run, which a take is about to drop from it (the entry will no longer
 * hold their cycles), unless the trace has counted the entry whole. */
void channel_trace_run_part(channel *c, int r, uint64_t m);

/* Token k of run e of channel c. */
static inline token channel_run_token(const channel *c, const channel_entry *e, uint64_t k)
{
    int64_t at = channel_run_first(e) + (int64_t)k;
    if (channel_run_kind(e) == TOKEN_VAL)
        return token_val(((const double *)c->run_base)[at]);
    return token_crd(c->run_base ? ((const int64_t *)c->run_base)[at] : at);
}

/* Whether reader r has a run among the entries it has not taken. */
static inline int channel_holds_runs(const channel *c, int r)
{
    return c->runs_end > c->sealed.readers[r].head;
}

/* Takes the first m of the tokens of reader r's head entry, a run of at
 * least m: the entry then holds the rest, from the cycle of the first of
 * them, or is gone. Only the channel's one reader may, as the rest stays
 * in place; a cursor of its arrivals (channel_arrival_after) must start
 * anew. The caller counts the pops with channel_count_takes. */
static inline void channel_take_part(channel *c, int r, uint64_t m)
{
    channel_entry *e = &c->sealed.buf[c->sealed.readers[r].head & c->sealed.mask];
    if (m == channel_run_count(e)) {
        c->sealed.readers[r].head++;
        return;
    }
    if (c->trace)
        channel_trace_run_part(c, r, m);
    e->tag += (uint64_t)(m * channel_run_every(e)) << CHANNEL_TAG_BITS;
    e->payload += (int64_t)(m << CHANNEL_RUN_COUNT_BITS) - (int64_t)m;
}

/* The k-th token ever pushed, while the ring still holds it: no reader
 * has taken it. */
static inline const channel_entry *channel_pushed_entry(const channel *c, uint64_t k)
{
    return &c->sealed.buf[k & c->sealed.mask];
}

/* Whether reader r has a token visible at cycle now, and which. */
static inline int channel_peek(const channel *c, int r, cycle_t now, token *t)
{
    const channel_reader *rd = &c->sealed.readers[r];
    if (rd->head == c->sealed.tail)
        return 0;
    const channel_entry *e = &c->sealed.buf[rd->head & c->sealed.mask];
    if (channel_entry_visible(e) > now)
        return 0;
    *t = channel_entry_token(e);
    return 1;
}

/* Whether reader r sees at least k + 1 tokens at cycle now; O(1), since a
 * channel's tokens become visible in the order they were pushed. */
static inline int channel_sees(const channel *c, int r, cycle_t now, uint64_t k)
{
    uint64_t h = c->sealed.readers[r].head + k;
    return h < c->sealed.tail && channel_entry_visible(&c->sealed.buf[h & c->sealed.mask]) <= now;
}

/* Number of tokens visible to reader r at cycle now (at most limit). */
int channel_visible(const channel *c, int r, cycle_t now, int limit);

/* Records the cycle of a pop of reader rd of channel c; -1 when memory
 * runs out for the ring of pop cycles. */
int channel_note_pop_slow(channel *c, channel_reader *rd, cycle_t now);

/* The pop of entry rd->head overwrites that of entry head - ring size,
 * which the producer may still ask about unless it was made before the
 * producer's clock (else, or where the trace has yet to count it, out of
 * line). */
static inline int channel_note_pop(channel *c, channel_reader *rd, cycle_t now)
{
    uint64_t h = rd->head;
    if (!rd->pops || (h > rd->pop_mask && (!c->pop_floor ||
                                           rd->pops[h & rd->pop_mask] >= *c->pop_floor)))
        return channel_note_pop_slow(c, rd, now);
    rd->pops[h & rd->pop_mask] = now;
    return 0;
}

/* Inline, with the bookkeeping for bounded and traced channels out of
 * line, since every token passes here. */
static inline int channel_pop(channel *c, int r, cycle_t now)
{
    channel_reader *rd = &c->sealed.readers[r];
    if ((c->capacity || c->trace) && channel_note_pop(c, rd, now))
        return -1;
    rd->head++;
    return 0;
}

int channel_room_at_readers(const channel *c, cycle_t now, cycle_t *full_through);

/* Whether one more token fits at cycle now: 1, 0 when it is known not to
 * fit up to and including cycle *full_through, or -1 when that is not
 * known yet, because a reader's clock has not reached now. Inline for the
 * one reader most channels have: a run-ahead producer asks every step. */
static inline int channel_room_at(const channel *c, cycle_t now, cycle_t *full_through)
{
    if (!c->capacity || c->sealed.tail < c->capacity)
        return 1;
    if (c->sealed.nreaders != 1)
        return channel_room_at_readers(c, now, full_through);
    /* The entry `capacity` back from the tail must be gone before now. */
    const channel_reader *rd = &c->sealed.readers[0];
    uint64_t idx = c->sealed.tail - c->capacity;
    if (idx < rd->head) {
        /* A pop older than the ring was made before the producer's clock. */
        if (idx + rd->pop_mask + 1 <= rd->head || rd->pops[idx & rd->pop_mask] < now)
            return 1;
        *full_through = rd->pops[idx & rd->pop_mask];
        return 0;
    }
    if (rd->clock && *rd->clock < now)
        return -1;
    *full_through = rd->clock ? *rd->clock : now;
    return 0;
}

/* Room for one more token at cycle now, for callers whose readers' clocks
 * are all at now or beyond. */
static inline int channel_has_room(const channel *c, cycle_t now)
{
    cycle_t through;
    return channel_room_at(c, now, &through) == 1;
}

/* How many of n pushes, one at each of cycles t, t + every, t + 2 every...,
 * fit by the pops the readers have made so far, whatever cycle each was
 * made in (a pop is final once made): a run's room in one call, where
 * channel_room counts only the pops made before t. */
uint64_t channel_room_run(const channel *c, cycle_t t, uint32_t every, uint64_t n);

int channel_make_room(channel *c);

/* Appends a token visible at now + latency. Returns
 * -1 when memory runs out. Heads only move forward, so the floor, however
 * stale, never lets the ring overwrite what a reader still needs. */
static inline int channel_push(channel *c, cycle_t now, token t)
{
    if (c->sealed.tail - c->sealed.floor > c->sealed.mask && channel_make_room(c))
        return -1;
    cycle_t at = now + c->latency;
    c->sealed.buf[c->sealed.tail & c->sealed.mask] = channel_entry_make(t, at);
    c->sealed.tail++;
    if (!c->pushed++)
        c->stats.first_push = now;
    c->stats.push_cycles += now != c->stats.last_push;
    c->stats.last_push = now;
    c->stats.by_kind[t.kind]++;
    if (t.kind == TOKEN_STOP)
        c->stats.stops[t.level < CHANNEL_STOP_LEVELS ? t.level : CHANNEL_STOP_LEVELS - 1]++;
    return 0;
}

/* Pushes n coordinates, one every `every` cycles from cycle t: crd[first],
 * crd[first + 1]... or, when crd is NULL, the positions first, first + 1...
 * each as an entry of its own; -1 when memory runs out. */
int channel_push_crds(channel *c, cycle_t t, uint32_t every, const int64_t *crd, int64_t first,
                      uint64_t n);

/* Pushes n tokens of kind (TOKEN_CRD or TOKEN_VAL), one every `every`
 * cycles from cycle t: base[first]... (int64_t or double by kind) or,
 * when base is NULL, the positions first...; as run entries where the
 * channel takes them, else token by token. Statistics count every token.
 * -1 when memory runs out. */
int channel_push_run(channel *c, cycle_t t, uint32_t every, int kind, const void *base,
                     int64_t first, uint64_t n);

/* The same as runs where the channel takes them (channel_push_run): a
 * scanner's fiber in one call, within the room the caller has found. */
static inline int channel_push_positions(channel *c, cycle_t t, uint32_t every,
                                         const int64_t *crd, int64_t first, uint64_t n)
{
    return c->runs ? channel_push_run(c, t, every, TOKEN_CRD, crd, first, n)
                   : channel_push_crds(c, t, every, crd, first, n);
}

/* Tokens pushed but not yet taken by the slowest reader. */
uint64_t channel_occupancy(const channel *c);

/* Traces c's queues from now on, for a channel set up for its run whose
 * producer is a block, before the run; horizon as queue_trace_new's. -1
 * when memory runs out. */
int channel_trace(channel *c, uint64_t horizon);

/* Counts what the trace has yet to count of a run that ended at cycle
 * end, and cuts it there (queue_trace_cut); -1 when memory runs out. */
int channel_trace_cut(channel *c, cycle_t end);

uint64_t channel_room_readers(const channel *c, cycle_t now);

/* Tokens that still fit at cycle now, UINT64_MAX when unbounded; by the
 * rule of channel_room_at (room freed by a pop counts from the next
 * cycle), of which it is the count once every reader's clock is at now,
 * and a lower bound before. Inline for one reader, as channel_room_at. */
static inline uint64_t channel_room(const channel *c, cycle_t now)
{
    if (c->capacity == 0)
        return UINT64_MAX;
    if (c->sealed.nreaders != 1)
        return channel_room_readers(c, now);
    /* Pops in this cycle or later free nothing yet; older ones than the
     * ring holds were made before the producer's clock. */
    const channel_reader *rd = &c->sealed.readers[0];
    uint64_t h = rd->head, oldest = h > rd->pop_mask ? h - rd->pop_mask - 1 : 0;
    while (h > oldest && rd->pops[(h - 1) & rd->pop_mask] >= now)
        h--;
    return c->sealed.tail - h < c->capacity ? c->capacity - (c->sealed.tail - h) : 0;
}

#endif
