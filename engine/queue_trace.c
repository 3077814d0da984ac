#include "queue_trace.h"

#include <stdlib.h>
#include <string.h>

queue_trace *queue_trace_new(int nreaders, uint64_t horizon)
{
    queue_trace *q = calloc(1, sizeof *q + (size_t)nreaders * sizeof q->taken[0]);
    if (q) {
        q->horizon = horizon;
        q->nreaders = nreaders;
    }
    return q;
}

static void series_free(queue_trace_series *s)
{
    free(s->bucket);
    free(s->log);
}

void queue_trace_free(queue_trace *q)
{
    if (!q)
        return;
    series_free(&q->pushed);
    for (int r = 0; r < q->nreaders; r++)
        series_free(&q->taken[r]);
    free(q);
}

/* Twice as wide buckets: each pair in one, the first pair's events
 * counting W cycles more to the new end. */
static void merge(queue_trace_series *s)
{
    uint64_t w = UINT64_C(1) << s->shift;
    size_t half = (s->nbuckets + 1) / 2;
    for (size_t i = 0; i < half; i++) {
        queue_trace_bucket a = s->bucket[2 * i], b = {0, 0};
        if (2 * i + 1 < s->nbuckets)
            b = s->bucket[2 * i + 1];
        s->bucket[i] =
            (queue_trace_bucket){a.events + b.events, a.cycles + a.events * w + b.cycles};
    }
    if (s->nbuckets)
        memset(s->bucket + half, 0, (s->nbuckets - half) * sizeof *s->bucket);
    s->shift++;
}

/* Buckets up to the one of cycle last, wider where it lies past the
 * last there may be. */
static int cover(queue_trace_series *s, uint64_t last)
{
    while (last >> s->shift >= QUEUE_TRACE_BUCKETS)
        merge(s);
    size_t need = (size_t)(last >> s->shift) + 1;
    if (need <= s->nbuckets)
        return 0;
    size_t size = s->nbuckets ? s->nbuckets : 16;
    while (size < need)
        size *= 2;
    queue_trace_bucket *b = realloc(s->bucket, size * sizeof *b);
    if (!b)
        return -1;
    memset(b + s->nbuckets, 0, (size - s->nbuckets) * sizeof *b);
    s->bucket = b;
    s->nbuckets = size;
    return 0;
}

/* n events one every `every` cycles from t into their buckets, a bucket
 * at a time. */
static int fold(queue_trace_series *s, uint64_t t, uint64_t every, uint64_t n)
{
    if (!n)
        return 0;
    if (cover(s, t + (n - 1) * every))
        return -1;
    for (uint64_t k = 0, m; k < n; k += m, t += m * every) {
        uint64_t b = t >> s->shift, end = (b + 1) << s->shift;
        m = every ? (end - t + every - 1) / every : n - k;
        m = m < n - k ? m : n - k;
        s->bucket[b].events += m;
        s->bucket[b].cycles += m * (end - t) - every * (m * (m - 1) / 2);
    }
    return 0;
}

static uint64_t run_last(const queue_trace_run *r)
{
    return r->first + (r->n - 1) * r->every;
}

/* Appends the events to the log, joined to its last entry when they go
 * on at its pace (a stream's steady token a cycle is one entry). */
static int log_add(queue_trace_series *s, uint64_t t, uint64_t every, uint64_t n)
{
    if (queue_trace_extends(s, t, every, n))
        return 0;
    if (s->len == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        queue_trace_run *log = malloc(cap * sizeof *log);
        if (!log)
            return -1;
        for (size_t k = 0; k < s->len; k++)
            log[k] = s->log[(s->head + k) & (s->cap - 1)];
        free(s->log);
        s->log = log;
        s->cap = cap;
        s->head = 0;
    }
    s->log[(s->head + s->len++) & (s->cap - 1)] = (queue_trace_run){t, every, n};
    return 0;
}

/* Events that lie a horizon before the latest one lie before the run's
 * end, wherever it comes: they go into the buckets, the others into the
 * log until then. */
static int series_add(queue_trace_series *s, uint64_t horizon, uint64_t t, uint64_t every,
                      uint64_t n)
{
    if (!n)
        return 0;
    uint64_t last = t + (n - 1) * every;
    if (last >= s->latest)
        s->latest = last + 1;
    uint64_t final_below = s->latest > horizon ? s->latest - horizon : 0;
    if (last < final_below)
        return fold(s, t, every, n);
    if (log_add(s, t, every, n))
        return -1;
    while (s->len && run_last(&s->log[s->head]) < final_below) {
        queue_trace_run r = s->log[s->head];
        s->head = (s->head + 1) & (s->cap - 1);
        s->len--;
        if (fold(s, r.first, r.every, r.n))
            return -1;
    }
    return 0;
}

void queue_trace_add(queue_trace *q, queue_trace_series *s, uint64_t t, uint64_t every,
                     uint64_t n)
{
    if (series_add(s, q->horizon, t, every, n))
        q->failed = 1;
}

/* The log's events before cycle end into the buckets; the rest go. */
static int series_cut(queue_trace_series *s, uint64_t end)
{
    int rc = 0;
    for (size_t k = 0; k < s->len && !rc; k++) {
        const queue_trace_run *r = &s->log[(s->head + k) & (s->cap - 1)];
        uint64_t n = r->first >= end ? 0 : r->every ? (end - 1 - r->first) / r->every + 1 : r->n;
        rc = fold(s, r->first, r->every, n < r->n ? n : r->n);
    }
    s->len = 0;
    return rc;
}

int queue_trace_cut(queue_trace *q, uint64_t end)
{
    int rc = series_cut(&q->pushed, end);
    unsigned shift = q->pushed.shift;
    for (int r = 0; r < q->nreaders; r++) {
        rc |= series_cut(&q->taken[r], end);
        shift = q->taken[r].shift > shift ? q->taken[r].shift : shift;
    }
    while (end > (uint64_t)QUEUE_TRACE_BUCKETS << shift)
        shift++;
    while (q->pushed.shift < shift)
        merge(&q->pushed);
    for (int r = 0; r < q->nreaders; r++)
        while (q->taken[r].shift < shift)
            merge(&q->taken[r]);
    return rc ? -1 : 0;
}

static queue_trace_bucket bucket_at(const queue_trace_series *s, uint64_t b)
{
    return b < s->nbuckets ? s->bucket[b] : (queue_trace_bucket){0, 0};
}

/* Token-cycles over bucket b's first len cycles: those of the tokens held
 * from before it, and of each push from its cycle on, less each pop's
 * from its cycle on; an event counts to the bucket's end, len cycles
 * less the W - len past the cut. Counted modulo 2^64, as pops subtract:
 * the sum is that of the occupancy, which is never negative. */
uint64_t *queue_trace_occupancy(const queue_trace *q, int r, uint64_t end, uint64_t *width,
                                uint64_t *n)
{
    const queue_trace_series *in = &q->pushed, *out = &q->taken[r];
    uint64_t w = UINT64_C(1) << in->shift, nb = (end + w - 1) >> in->shift;
    uint64_t *sums = malloc((size_t)(nb + 1) * sizeof *sums);
    if (!sums)
        return NULL;
    uint64_t held = 0;
    for (uint64_t b = 0; b < nb; b++) {
        queue_trace_bucket p = bucket_at(in, b), t = bucket_at(out, b);
        uint64_t len = end - b * w < w ? end - b * w : w, net = p.events - t.events;
        sums[b] = held * len + p.cycles - t.cycles - net * (w - len);
        held += net;
    }
    *width = w;
    *n = nb;
    return sums;
}
