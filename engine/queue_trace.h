/* A channel's queues over a traced run (--trace): for each reader, the
 * tokens pushed that it has yet to take, counted from the cycle of each
 * push and of each of its pops, whatever the order in which run-ahead
 * makes them (a producer may push thousands of cycles before its reader
 * pops). Pushes and each reader's pops are kept per bucket of W cycles:
 * how many, and their token-cycles to the bucket's end, from which the
 * exact mean occupancy of each bucket follows, and which add up when two
 * buckets become one twice as wide. W is a power of two that doubles as
 * the run goes past QUEUE_TRACE_BUCKETS of them, so a run of any length
 * keeps at most that many.
 *
 * Run-ahead's blocks step past the cycle in which the run ends, by less
 * than the horizon the engine gives, and what they did there is dropped
 * (the cycle engine never does it): the latest events, within the horizon
 * of the latest one, wait in a log, one entry per stretch of events a
 * fixed number of cycles apart, until the run's end cannot come before
 * them. So the buckets, and W, depend on the run's end alone. */
#ifndef SAMSIM_QUEUE_TRACE_H
#define SAMSIM_QUEUE_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* At most this many buckets; a power of two. */
#define QUEUE_TRACE_BUCKETS 2048

/* n events, one every `every` cycles from cycle first. */
typedef struct queue_trace_run {
    uint64_t first, every, n;
} queue_trace_run;

typedef struct queue_trace_bucket {
    uint64_t events;
    uint64_t cycles;            /* the sum of (bucket's end - cycle) over them */
} queue_trace_bucket;

/* The pushes, or one reader's pops. */
typedef struct queue_trace_series {
    queue_trace_bucket *bucket; /* bucket k: cycles k W .. (k + 1) W - 1 */
    size_t nbuckets;            /* allocated */
    unsigned shift;             /* W = 1 << shift */
    queue_trace_run *log;       /* ring of cap entries, from head */
    size_t head, len, cap;
    uint64_t latest;            /* the latest event's cycle + 1; 0: none */
} queue_trace_series;

typedef struct queue_trace {
    uint64_t horizon;           /* no event lies this far past the run's end */
    int failed;                 /* memory ran out */
    int nreaders;
    queue_trace_series pushed;
    queue_trace_series taken[]; /* per reader */
} queue_trace;

/* A channel's queues for nreaders readers, or NULL when memory runs out. */
queue_trace *queue_trace_new(int nreaders, uint64_t horizon);
void queue_trace_free(queue_trace *q);

/* Whether n events one every `every` cycles from t go on at the pace of
 * stretch r (of one or more), which then takes them. */
static inline int queue_trace_join(queue_trace_run *r, uint64_t t, uint64_t every, uint64_t n)
{
    if (r->n == 1 && t >= r->first && (n == 1 || every == t - r->first)) {
        r->every = t - r->first;
        r->n += n;
        return 1;
    }
    if (r->n < 2 || t != r->first + r->n * r->every || (n > 1 && every != r->every))
        return 0;
    r->n += n;
    return 1;
}

/* queue_trace_pushed and queue_trace_taken where the events do not go on
 * at the pace of the latest stretch in the log. */
void queue_trace_add(queue_trace *q, queue_trace_series *s, uint64_t t, uint64_t every,
                     uint64_t n);

/* Whether the events go on at the pace of s's latest stretch, which then
 * takes them: most do, and a traced run records some at every push and
 * pop. They wait in the log while it grows, however long ago it began,
 * which is always right (queue_trace_cut counts what is left). */
static inline int queue_trace_extends(queue_trace_series *s, uint64_t t, uint64_t every,
                                      uint64_t n)
{
    return s->len && queue_trace_join(&s->log[(s->head + s->len - 1) & (s->cap - 1)], t, every, n);
}

/* n pushes, or n pops of reader r, one every `every` cycles from cycle t.
 * Memory that runs out sets q->failed. */
static inline void queue_trace_pushed(queue_trace *q, uint64_t t, uint64_t every, uint64_t n)
{
    if (!queue_trace_extends(&q->pushed, t, every, n))
        queue_trace_add(q, &q->pushed, t, every, n);
}

static inline void queue_trace_taken(queue_trace *q, int r, uint64_t t, uint64_t every,
                                     uint64_t n)
{
    if (!queue_trace_extends(&q->taken[r], t, every, n))
        queue_trace_add(q, &q->taken[r], t, every, n);
}

/* Drops every event at or after cycle end, where the run ended, and gives
 * every series the same width, at least as wide as makes end fit in
 * QUEUE_TRACE_BUCKETS; -1 when memory runs out. */
int queue_trace_cut(queue_trace *q, uint64_t end);

/* Once cut at end: reader r's queue as its token-cycles per bucket of
 * *width cycles (the sum of its occupancy over the bucket's cycles, the
 * last bucket cut at end), *n of them, in a new array; NULL when memory
 * runs out. */
uint64_t *queue_trace_occupancy(const queue_trace *q, int r, uint64_t end, uint64_t *width,
                                uint64_t *n);

#endif
