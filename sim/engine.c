#include "engine.h"

#include <stdlib.h>
#include <string.h>

static void wake(void *e, int b, cycle_t at);

int sim_engine_start(sim_engine *e, sam_error *err)
{
    /* Wakes go at most a channel latency or an initiation interval ahead. */
    uint32_t ahead = 1;
    for (int c = 0; c < e->nchannels; c++)
        if (e->channels[c].latency > ahead)
            ahead = e->channels[c].latency;
    for (int b = 0; b < e->nblocks; b++)
        if (e->blocks[b].ii > ahead)
            ahead = e->blocks[b].ii;
    /* A power of two, so that a cycle's slot is a mask, not a division. */
    e->nslots = 2;
    while ((uint32_t)e->nslots <= ahead)
        e->nslots *= 2;
    e->slot_blocks = calloc((size_t)e->nslots, sizeof *e->slot_blocks);
    e->slot_count = calloc((size_t)e->nslots, sizeof *e->slot_count);
    e->slot_cap = calloc((size_t)e->nslots, sizeof *e->slot_cap);
    e->woken_for = malloc((size_t)e->nblocks * (size_t)e->nslots * sizeof *e->woken_for + 1);
    if (!e->slot_blocks || !e->slot_count || !e->slot_cap || !e->woken_for)
        return error_set(err, "out of memory for the scheduler");
    for (size_t i = 0; i < (size_t)e->nblocks * (size_t)e->nslots; i++)
        e->woken_for[i] = UINT64_MAX;
    for (int c = 0; c < e->nchannels; c++) {
        e->channels[c].wake = wake;
        e->channels[c].wake_ctx = e;
        e->bounded |= e->channels[c].capacity != 0;
    }
    return 0;
}

/* Lists block b for cycle at (event engine only). */
static void schedule(sim_engine *e, int b, cycle_t at)
{
    if (b < 0 || !e->woken_for)
        return;
    int slot = (int)(at & (cycle_t)(e->nslots - 1));
    cycle_t *stamp = &e->woken_for[(size_t)b * (size_t)e->nslots + (size_t)slot];
    if (*stamp == at)
        return;
    *stamp = at;
    if (e->slot_count[slot] == e->slot_cap[slot]) {
        int cap = e->slot_cap[slot] ? 2 * e->slot_cap[slot] : 64;
        int *list = realloc(e->slot_blocks[slot], (size_t)cap * sizeof *list);
        if (!list) {
            e->failed = 1;
            return;
        }
        e->slot_blocks[slot] = list;
        e->slot_cap[slot] = cap;
    }
    e->slot_blocks[slot][e->slot_count[slot]++] = b;
}

/* The channels' wake callback: lists block b for a step at cycle at. */
static void wake(void *e, int b, cycle_t at)
{
    schedule(e, b, at);
}

/* Steps that changed block b, the first at `first` and the last at
 * `last`: each occupies the block for its initiation interval, and the next
 * step comes at last + ii at the earliest. */
static inline void note_busy_steps(block *b, cycle_t first, cycle_t last, uint64_t steps)
{
    block_stats *s = &b->stats;
    if (!s->busy)
        s->first_busy = first;
    s->busy += steps * b->ii;
    s->last_busy = last + b->ii - 1;
    b->ready_at = last + b->ii;
}

/* Whether b may not step at t for a full output; a refusal starts a
 * blocked stretch. */
static int refused_for_room(block *b, cycle_t t)
{
    for (int p = 0; p < b->nout; p++)
        if (b->out[p].ch && !channel_has_room(b->out[p].ch, t)) {
            if (b->stats.blocked_since == CYCLE_NONE)
                b->stats.blocked_since = t;
            return 1;
        }
    return 0;
}

/* The first step after a blocked stretch ends it. The block waited on its
 * output only if that step then made progress: one that had nothing left
 * to do was waiting for input all along. */
static void end_blocked(block *b, cycle_t t, int changed)
{
    if (changed)
        b->stats.blocked += t - b->stats.blocked_since;
    b->stats.blocked_since = CYCLE_NONE;
}

/* Steps block i at cycle t unless it is a finished sink, within its
 * initiation interval, or an output is full; counts sinks finishing.
 * Returns whether the block changed. */
static int step_block(sim_engine *e, int i, cycle_t t, int *remaining, cycle_t *last_done)
{
    block *b = &e->blocks[i];
    if (b->done || t < b->ready_at || (e->bounded && refused_for_room(b, t)))
        return 0;
    int changed = b->ops->step(b, t);
    if (b->stats.blocked_since != CYCLE_NONE)
        end_blocked(b, t, changed);
    if (changed)
        note_busy_steps(b, t, t, 1);
    if (b->failed || b->fault)
        e->failed = 1;
    if (b->done) {
        (*remaining)--;
        if (t > *last_done)
            *last_done = t;
    }
    return changed;
}

/* Progress is reported when the cycle crosses a multiple of this. */
#define PROGRESS_EVERY 4096

static void report_progress(const sim_engine *e, cycle_t from, cycle_t to)
{
    if (e->progress && from / PROGRESS_EVERY != to / PROGRESS_EVERY)
        e->progress(e, to, e->progress_ctx);
}

uint64_t sim_engine_tokens(const sim_engine *e)
{
    uint64_t tokens = 0;
    for (int c = 0; c < e->nchannels; c++)
        tokens += e->channels[c].pushed;
    return tokens;
}

static int next_busy_slot(const sim_engine *e, cycle_t t, cycle_t *next)
{
    for (int d = 1; d < e->nslots; d++)
        if (e->slot_count[(t + (cycle_t)d) & (cycle_t)(e->nslots - 1)]) {
            *next = t + (cycle_t)d;
            return 1;
        }
    return 0;
}

/* The cycle in which the newest token pushed anywhere becomes visible:
 * until then a run that changes nothing may still be waiting for it.
 * Found when needed rather than tracked on every push. */
static cycle_t latest_arrival(const sim_engine *e)
{
    cycle_t latest = 0;
    for (int i = 0; i < e->nchannels; i++) {
        const channel *c = &e->channels[i];
        if (c->tail && c->buf[(c->tail - 1) & c->mask].visible > latest)
            latest = c->buf[(c->tail - 1) & c->mask].visible;
    }
    return latest;
}

/* The cycle from which every block waiting out its initiation interval
 * may step again. */
static cycle_t latest_ready(const sim_engine *e)
{
    cycle_t latest = 0;
    for (int i = 0; i < e->nblocks; i++)
        if (!e->blocks[i].done && e->blocks[i].ready_at > latest)
            latest = e->blocks[i].ready_at;
    return latest;
}

/* Until this cycle a run that changes nothing may still be waiting for a
 * token in flight or a block's next initiation. */
static cycle_t latest_pending(const sim_engine *e)
{
    cycle_t arrival = latest_arrival(e), ready = latest_ready(e);
    return arrival > ready ? arrival : ready;
}

/* The cycle in which a stuck run is reported: the first from which
 * nothing can change, as the cycle engine finds it. */
static cycle_t stuck_cycle(const sim_engine *e, cycle_t last_changed)
{
    cycle_t latest = latest_pending(e);
    return last_changed + 1 > latest ? last_changed + 1 : latest;
}

static int run_events(sim_engine *e, cycle_t max, int *remaining, cycle_t *t, cycle_t *last)
{
    cycle_t last_changed = 0;
    for (int i = 0; i < e->nblocks; i++)
        schedule(e, i, 0);
    /* Tokens placed before the run (the root streams) wake their readers. */
    for (int c = 0; c < e->nchannels; c++)
        for (uint64_t h = 0; h < e->channels[c].tail; h++)
            for (int r = 0; r < e->channels[c].nreaders; r++)
                schedule(e, e->channels[c].readers[r].block,
                                e->channels[c].buf[h & e->channels[c].mask].visible);
    while (*remaining > 0 && *t < max && !e->failed) {
        int slot = (int)(*t & (cycle_t)(e->nslots - 1));
        if (e->slot_count[slot] == 0) {
            cycle_t from = *t;
            if (!next_busy_slot(e, *t, t)) {
                *t = stuck_cycle(e, last_changed);
                return 1;
            }
            report_progress(e, from, *t);
            continue;
        }
        /* Wakes made now are for later cycles, so this list is stable. */
        for (int k = 0; k < e->slot_count[slot]; k++) {
            int i = e->slot_blocks[slot][k];
            if (step_block(e, i, *t, remaining, last)) {
                schedule(e, i, e->blocks[i].ready_at);
                last_changed = *t;
            }
        }
        e->slot_count[slot] = 0;
        report_progress(e, *t, *t + 1);
        (*t)++;
    }
    return *remaining > 0;
}

/* Run-ahead (unbounded channels, acyclic graphs): blocks in topological
 * order, each stepped on its own clock as far as its inputs are final, that
 * is up to its producers' clocks plus the channel latency, and skipping
 * straight to the next token arrival whenever a step changes nothing. Each
 * block sees exactly what it would see cycle by cycle, without a global
 * event queue. A window bounds how far ahead of the slowest block anything
 * runs, and so how many tokens wait in channels. */
#define RUN_AHEAD_WINDOW 512

static int topological_order(const sim_engine *e, int *order)
{
    int *pending = calloc((size_t)e->nblocks + 1, sizeof *pending), n = 0;
    if (!pending)
        return -1;
    for (int c = 0; c < e->nchannels; c++)
        for (int r = 0; r < e->channels[c].nreaders && e->channels[c].producer >= 0; r++)
            pending[e->channels[c].readers[r].block]++;
    for (int i = 0; i < e->nblocks; i++)
        if (!pending[i])
            order[n++] = i;
    for (int k = 0; k < n; k++) {
        const block *b = &e->blocks[order[k]];
        for (int p = 0; p < b->nout; p++)
            for (int r = 0; b->out[p].ch && r < b->out[p].ch->nreaders; r++)
                if (--pending[b->out[p].ch->readers[r].block] == 0)
                    order[n++] = b->out[p].ch->readers[r].block;
    }
    free(pending);
    return n == e->nblocks ? 0 : -1;
}

/* The first cycle after t at which a token not visible at t appears on an
 * input of b (entries appear in push order), or UINT64_MAX. */
static cycle_t next_arrival(const block *b, cycle_t t)
{
    cycle_t next = UINT64_MAX;
    for (int p = 0; p < b->nin; p++) {
        const channel *c = b->in[p].ch;
        uint64_t lo = c->readers[b->in[p].reader].head, hi = c->tail;
        /* Mostly the head itself is the token still to come. */
        if (lo < hi && c->buf[lo & c->mask].visible > t)
            hi = lo;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (c->buf[mid & c->mask].visible > t)
                hi = mid;
            else
                lo = mid + 1;
        }
        if (lo < c->tail && c->buf[lo & c->mask].visible < next)
            next = c->buf[lo & c->mask].visible;
    }
    return next;
}

static cycle_t input_horizon(const cycle_t *clock, const block *b)
{
    cycle_t h = UINT64_MAX;
    for (int p = 0; p < b->nin; p++) {
        const channel *c = b->in[p].ch;
        if (c->producer >= 0 && clock[c->producer] + c->latency < h)
            h = clock[c->producer] + c->latency;
    }
    return h;
}

typedef struct run_state {
    cycle_t *clock;
    int remaining;
    cycle_t last_done, last_changed;
} run_state;

/* Advances block i up to limit; whether any step changed it. This loop
 * runs once per block and cycle, so it calls the step directly: channels
 * are unbounded here and need no room check. */
static int run_block(sim_engine *e, int i, cycle_t limit, run_state *rs)
{
    block *b = &e->blocks[i];
    int (*step)(block *, cycle_t) = b->ops->step;
    cycle_t t = rs->clock[i], h = input_horizon(rs->clock, b), changed_at = 0, first = 0;
    uint64_t busy_steps = 0;
    uint32_t ii = b->ii;
    int was_done = b->done;
    if (h > limit)
        h = limit;
    /* Busy steps are counted here and noted once: this loop runs once per
     * block and cycle. */
    while (t < h && !b->done) {
        if (step(b, t)) {
            first = busy_steps++ ? first : t;
            changed_at = t;
            t += ii;
        } else {
            cycle_t next = next_arrival(b, t);
            t = next < h ? next : h;
        }
        if (b->failed || b->fault) {
            e->failed = 1;
            break;
        }
    }
    if (busy_steps)
        note_busy_steps(b, first, changed_at, busy_steps);
    if (b->done && !was_done) {
        rs->remaining--;
        if (changed_at > rs->last_done)
            rs->last_done = changed_at;
    }
    if (busy_steps && changed_at > rs->last_changed)
        rs->last_changed = changed_at;
    rs->clock[i] = t > h ? t : h;
    return busy_steps != 0;
}

static int run_ahead(sim_engine *e, const int *order, cycle_t max, int *remaining, cycle_t *t,
                     cycle_t *last)
{
    run_state rs = {.clock = calloc((size_t)e->nblocks + 1, sizeof *rs.clock),
                    .remaining = *remaining};
    if (!rs.clock) {
        e->failed = 1;
        return 0;
    }
    int stuck = 0;
    for (cycle_t limit = RUN_AHEAD_WINDOW; rs.remaining > 0 && !e->failed;
         limit += RUN_AHEAD_WINDOW) {
        if (limit > max)
            limit = max;
        int any = 0;
        for (int k = 0; k < e->nblocks; k++)
            any |= run_block(e, order[k], limit, &rs);
        report_progress(e, limit > RUN_AHEAD_WINDOW ? limit - RUN_AHEAD_WINDOW : 0, limit);
        if (rs.remaining > 0 && ((!any && limit >= latest_ready(e)) || limit == max)) {
            stuck = 1;
            *t = !any ? stuck_cycle(e, rs.last_changed) : max;
            break;
        }
    }
    *remaining = rs.remaining;
    *last = rs.last_done;
    free(rs.clock);
    return stuck;
}

static int run_cycles(sim_engine *e, cycle_t max, int *remaining, cycle_t *t, cycle_t *last)
{
    for (; *remaining > 0 && *t < max && !e->failed; (*t)++) {
        int changed = 0;
        for (int i = 0; i < e->nblocks; i++)
            changed |= step_block(e, i, *t, remaining, last);
        if (!changed && *remaining > 0 && *t >= latest_pending(e))
            return 1;
        report_progress(e, *t, *t + 1);
    }
    return *remaining > 0;
}

/* A blocked stretch still open when the run ends led to no progress, and
 * a busy one ends with the run. */
static void close_stats(sim_engine *e, cycle_t end)
{
    for (int i = 0; i < e->nblocks; i++) {
        block_stats *s = &e->blocks[i].stats;
        s->blocked_since = CYCLE_NONE;
        if (s->busy && end && s->last_busy >= end) {
            s->busy -= s->last_busy - (end - 1);
            s->last_busy = end - 1;
        }
    }
}

static void append(char *report, size_t size, const char *fmt, const char *a, const char *b,
                   const char *c)
{
    size_t n = strlen(report);
    if (n + 1 < size)
        snprintf(report + n, size - n, fmt, a, b, c);
}

/* Who waits on what, a line each: full outputs, and empty inputs of
 * blocks that still hold tokens or are unfinished sinks. */
static void describe_wait(const sim_engine *e, cycle_t t, char *report, size_t size)
{
    for (int i = 0; i < e->nblocks; i++) {
        const block *b = &e->blocks[i];
        if (b->done)
            continue;
        int holds = 0;
        for (int p = 0; p < b->nin; p++)
            holds |= b->in[p].ch && channel_visible(b->in[p].ch, b->in[p].reader, t, 1);
        for (int p = 0; p < b->nout; p++)
            if (b->out[p].ch && b->out[p].ch->capacity &&
                channel_occupancy(b->out[p].ch) >= b->out[p].ch->capacity)
                append(report, size, "\n  node %s (%s) waits on full output %s", b->node->id,
                       b->node->type, b->out_names[p]);
        if (!holds && !b->ops->collect)
            continue;
        for (int p = 0; p < b->nin; p++)
            if (b->in[p].ch && !channel_visible(b->in[p].ch, b->in[p].reader, t, 1))
                append(report, size, "\n  node %s (%s) waits on empty input %s", b->node->id,
                       b->node->type, b->in_names[p]);
    }
}

int sim_engine_run(sim_engine *e, engine_mode mode, cycle_t max_cycles, sim_outcome *out,
                   char *report, size_t report_size, sam_error *err)
{
    int remaining = 0;
    for (int i = 0; i < e->nblocks; i++)
        remaining += e->blocks[i].ops->collect != NULL;
    cycle_t t = 0, last = 0;
    int *order = malloc(((size_t)e->nblocks + 1) * sizeof *order);
    if (!order)
        return error_set(err, "out of memory for the scheduler");
    int ahead = mode == ENGINE_EVENT && !e->bounded && topological_order(e, order) == 0;
    if (mode == ENGINE_CYCLE || ahead)
        free(e->woken_for), e->woken_for = NULL;
    for (int c = 0; c < e->nchannels; c++)
        e->channels[c].wakes = e->woken_for != NULL;
    int stuck = ahead ? run_ahead(e, order, max_cycles, &remaining, &t, &last)
                : mode == ENGINE_EVENT ? run_events(e, max_cycles, &remaining, &t, &last)
                                       : run_cycles(e, max_cycles, &remaining, &t, &last);
    free(order);
    for (int i = 0; i < e->nblocks && e->failed; i++)
        if (e->blocks[i].fault)
            return block_error(&e->blocks[i], err, "at cycle %llu: %s", (unsigned long long)t,
                               e->blocks[i].fault);
    if (e->failed)
        return error_set(err, "out of memory while simulating");
    memset(out, 0, sizeof *out);
    out->tokens = sim_engine_tokens(e);
    out->deadlocked = stuck;
    out->cycles = stuck ? t : last + 1;
    close_stats(e, out->cycles);
    report[0] = '\0';
    if (stuck) {
        snprintf(report, report_size, t >= max_cycles ? "stopped after %llu cycles"
                                                      : "deadlock at cycle %llu",
                 (unsigned long long)t);
        describe_wait(e, t, report, report_size);
    }
    return stuck;
}

void sim_engine_free(sim_engine *e)
{
    for (int i = 0; i < e->nblocks; i++)
        if (e->blocks[i].ops && e->blocks[i].ops->destroy)
            e->blocks[i].ops->destroy(&e->blocks[i]);
    for (int c = 0; c < e->nchannels; c++)
        channel_free(&e->channels[c]);
    free(e->blocks);
    free(e->channels);
    for (int s = 0; s < e->nslots; s++)
        free(e->slot_blocks ? e->slot_blocks[s] : NULL);
    free(e->slot_blocks);
    free(e->slot_count);
    free(e->slot_cap);
    free(e->woken_for);
    memset(e, 0, sizeof *e);
}
