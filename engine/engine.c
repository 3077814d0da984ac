#include "engine.h"

#include <stdlib.h>
#include <string.h>

const char *const engine_names[ENGINE_MODES] = {"event", "step", "cycle"};

/* The clock of a block that has finished: far ahead, yet with room to add
 * a channel latency. */
#define CLOCK_END (UINT64_MAX / 4)

void sim_engine_start(sim_engine *e)
{
    /* Points every channel at its blocks' clocks; lists each block's bounded outputs. */
    for (int c = 0; c < e->nchannels; c++) {
        channel *ch = &e->channels[c];
        ch->producer_clock = ch->producer >= 0 ? &e->blocks[ch->producer].clock : NULL;
        ch->pop_floor = ch->producer_clock;
        for (int r = 0; r < channel_readers(ch); r++)
            if (channel_reader_block(ch, r) >= 0)
                channel_reader_clock(ch, r, &e->blocks[channel_reader_block(ch, r)].clock);
        e->bounded |= ch->capacity != 0;
        ch->runs = !ch->capacity && channel_readers(ch) == 1 && channel_reader_block(ch, 0) >= 0 &&
                   e->blocks[channel_reader_block(ch, 0)].ops->takes_runs;
    }
    for (int i = 0; i < e->nblocks; i++) {
        block *b = &e->blocks[i];
        b->idle_from = b->last_step = CYCLE_NONE;
        for (int p = 0; p < b->nout; p++)
            if (b->out[p].ch && b->out[p].ch->capacity)
                b->bounded[b->nbounded++] = b->out[p].ch;
    }
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

/* The cycle in which the newest token pushed anywhere becomes visible:
 * until then a run that changes nothing may still be waiting for it.
 * Found when needed rather than tracked on every push. */
static cycle_t latest_arrival(const sim_engine *e)
{
    cycle_t latest = 0;
    for (int i = 0; i < e->nchannels; i++) {
        const channel *c = &e->channels[i];
        if (channel_last_arrival(c) > latest)
            latest = channel_last_arrival(c);
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

/* What a run has seen of the sinks and of change. */
typedef struct run_state {
    int remaining;              /* sinks not done */
    cycle_t last_done;          /* the step in which the last sink finished */
    cycle_t last_changed;       /* the last step that changed any block */
} run_state;

/* Bookkeeping after block b ran or stepped: whether it changed. */
static int note_run(sim_engine *e, block *b, int was_done, cycle_t last_step, run_state *rs)
{
    if (b->failed || b->fault)
        e->failed = 1;
    if (b->done && !was_done) {
        rs->remaining--;
        if (b->last_step > rs->last_done)
            rs->last_done = b->last_step;
        b->clock = CLOCK_END;
    }
    if (b->last_step == last_step)
        return 0;
    if (b->last_step > rs->last_changed)
        rs->last_changed = b->last_step;
    return 1;
}

static int run_cycles(sim_engine *e, cycle_t max, run_state *rs, cycle_t *t)
{
    for (; rs->remaining > 0 && *t < max && !e->failed; (*t)++) {
        int changed = 0;
        for (int i = 0; e->bounded && i < e->nblocks; i++)
            if (!e->blocks[i].done)
                e->blocks[i].clock = *t;
        for (int i = 0; i < e->nblocks; i++) {
            block *b = &e->blocks[i];
            int was_done = b->done;
            cycle_t last = b->last_step;
            block_step_at(b, *t);
            changed |= note_run(e, b, was_done, last, rs);
        }
        if (!changed && rs->remaining > 0 && *t >= latest_pending(e))
            return 1;
        report_progress(e, *t, *t + 1);
    }
    return rs->remaining > 0;
}

/* Run-ahead: each block advances on its own clock as far as its inputs
 * are final (its producers' clocks plus the channel latency) and its
 * bounded outputs' readers have made room, emitting what it can in one
 * call. A block whose clock moves wakes the blocks that wait on it: the
 * readers of its outputs, and the producers of its bounded inputs, which
 * may be waiting for room. The next block to run is the first woken in a
 * topological order (feedback edges broken), so data flows down the graph
 * in sweeps. A window bounds how far ahead of the slowest block anything
 * runs, and so how many tokens wait in unbounded channels. */
#define RUN_AHEAD_WINDOW 1024

/* A block to wake when another's clock moves: a reader of channel ch,
 * when that input becomes final further, or the producer of a bounded
 * channel ch, when it waits for room there (producer set). */
typedef struct wake {
    int block;
    int producer;
    int port;                   /* the reader's input port of ch */
    const channel *ch;
} wake;

struct ahead {
    int *order;                 /* rank -> block */
    int *rank;                  /* block -> rank */
    int *wake_first;            /* block i wakes wakes[wake_first[i] ..
                                   wake_first[i + 1] - 1] */
    wake *wakes;
    uint64_t *queued;           /* bit per rank */
    int nwords;
    /* When each block stopped: each input's tail, and how many pops the
     * readers of the output it waits on had made. */
    uint64_t (*tails_seen)[BLOCK_MAX_PORTS];
    uint64_t *pops_seen;
    uint64_t *deferred;         /* bit per rank: wakes held back to the window's end */
};
typedef struct ahead ahead;

/* Kahn's order; when only blocks in a cycle remain, the first of them
 * goes next, which breaks a feedback edge. */
static int rank_blocks(const sim_engine *e, ahead *a)
{
    int *pending = calloc((size_t)e->nblocks + 1, sizeof *pending);
    char *placed = calloc((size_t)e->nblocks + 1, 1);
    if (!pending || !placed) {
        free(pending), free(placed);
        return -1;
    }
    for (int c = 0; c < e->nchannels; c++)
        for (int r = 0; r < channel_readers(&e->channels[c]) && e->channels[c].producer >= 0; r++)
            pending[channel_reader_block(&e->channels[c], r)]++;
    int n = 0, done = 0, next_forced = 0;
    while (done < e->nblocks) {
        for (int i = 0; n == done && i < e->nblocks; i++)
            if (!placed[i] && !pending[i])
                placed[i] = 1, a->order[n++] = i;
        while (n == done && placed[next_forced])
            next_forced++;
        if (n == done)
            placed[next_forced] = 1, a->order[n++] = next_forced;
        const block *b = &e->blocks[a->order[done++]];
        for (int p = 0; p < b->nout; p++)
            for (int r = 0; b->out[p].ch && r < channel_readers(b->out[p].ch); r++) {
                int to = channel_reader_block(b->out[p].ch, r);
                if (--pending[to] == 0 && !placed[to])
                    placed[to] = 1, a->order[n++] = to;
            }
    }
    for (int k = 0; k < e->nblocks; k++)
        a->rank[a->order[k]] = k;
    free(pending), free(placed);
    return 0;
}

/* Adds block `to` to block i's wake list (counting only, while wakes is
 * NULL). */
static void add_wake(ahead *a, int i, wake w, int *n)
{
    if (a->wakes)
        a->wakes[a->wake_first[i] + n[i]] = w;
    n[i]++;
}

static void list_wakes(const sim_engine *e, ahead *a, int *n)
{
    memset(n, 0, ((size_t)e->nblocks + 1) * sizeof *n);
    for (int c = 0; c < e->nchannels; c++) {
        const channel *ch = &e->channels[c];
        for (int r = 0; r < channel_readers(ch) && ch->producer >= 0; r++) {
            const block *to = &e->blocks[channel_reader_block(ch, r)];
            int port = 0;
            while (to->in[port].ch != ch || to->in[port].reader != r)
                port++;
            add_wake(a, ch->producer, (wake){to->index, 0, port, ch}, n);
            if (ch->capacity)
                add_wake(a, to->index, (wake){ch->producer, 1, 0, ch}, n);
        }
    }
}

static int ahead_init(const sim_engine *e, ahead *a)
{
    size_t nb = (size_t)e->nblocks + 1;
    memset(a, 0, sizeof *a);
    a->nwords = (e->nblocks + 63) / 64;
    a->order = malloc(nb * sizeof *a->order);
    a->rank = malloc(nb * sizeof *a->rank);
    a->wake_first = calloc(nb + 1, sizeof *a->wake_first);
    a->queued = calloc((size_t)a->nwords + 1, sizeof *a->queued);
    a->deferred = calloc((size_t)a->nwords + 1, sizeof *a->deferred);
    a->tails_seen = calloc(nb, sizeof *a->tails_seen);
    a->pops_seen = calloc(nb, sizeof *a->pops_seen);
    int *n = malloc(nb * sizeof *n);
    if (!a->order || !a->rank || !a->wake_first || !a->queued || !a->deferred || !a->tails_seen ||
        !a->pops_seen || !n || rank_blocks(e, a)) {
        free(n);
        return -1;
    }
    list_wakes(e, a, n);
    for (int i = 0; i < e->nblocks; i++)
        a->wake_first[i + 1] = a->wake_first[i] + n[i];
    a->wakes = malloc(((size_t)a->wake_first[e->nblocks] + 1) * sizeof *a->wakes);
    if (a->wakes)
        list_wakes(e, a, n);
    free(n);
    return a->wakes ? 0 : -1;
}

static void ahead_free(ahead *a)
{
    free(a->order), free(a->rank), free(a->wake_first), free(a->wakes), free(a->queued);
    free(a->tails_seen), free(a->pops_seen), free(a->deferred);
}

/* e's schedule, made at its first run; what a run notes in it starts
 * empty. NULL when memory runs out. */
static ahead *ahead_of(sim_engine *e)
{
    ahead *a = e->ahead;
    if (a) {
        memset(a->queued, 0, ((size_t)a->nwords + 1) * sizeof *a->queued);
        memset(a->deferred, 0, ((size_t)a->nwords + 1) * sizeof *a->deferred);
        for (int i = 0; i < e->nblocks; i++) {
            memset(a->tails_seen[i], 0, (size_t)e->blocks[i].nin * sizeof *a->tails_seen[i]);
            a->pops_seen[i] = 0;
        }
        return a;
    }
    a = malloc(sizeof *a);
    if (a && ahead_init(e, a)) {
        ahead_free(a);
        free(a);
        a = NULL;
    }
    return e->ahead = a;
}

static void enqueue(ahead *a, int block)
{
    int r = a->rank[block];
    a->queued[r / 64] |= UINT64_C(1) << (r % 64);
}

static void defer(ahead *a, int block)
{
    int r = a->rank[block];
    a->deferred[r / 64] |= UINT64_C(1) << (r % 64);
}

/* Queues the deferred wakes; whether there were any. */
static int undefer(ahead *a)
{
    int any = 0;
    for (int w = 0; w < a->nwords; w++) {
        any |= a->deferred[w] != 0;
        a->queued[w] |= a->deferred[w];
        a->deferred[w] = 0;
    }
    return any;
}

/* The first queued block in rank order, taken off the queue; -1: none. */
static int dequeue(ahead *a)
{
    for (int w = 0; w < a->nwords; w++)
        if (a->queued[w]) {
            int bit = __builtin_ctzll(a->queued[w]);
            a->queued[w] &= a->queued[w] - 1;
            return a->order[w * 64 + bit];
        }
    return -1;
}

/* Whether the reader of port p of block `to` has yet to make the pop a
 * push to its channel waits for. */
static int holds_room(const block *to, int p)
{
    const channel *c = to->in[p].ch;
    return c->capacity && channel_unread(c, to->in[p].reader) >= c->capacity;
}

/* Freezes the inputs of b whose producer is stopped for room that only a
 * pop of b's can make, on one channel (b's fence): until that pop their
 * producer can push nothing, so b need not wait on its clock. Without
 * this, a full channel and a reader that looks at its producer's clock
 * move each other along a cycle at a time. For runs of block_run, which
 * stops at the fence. */
static void freeze_inputs(const sim_engine *e, block *b)
{
    const channel *fence = NULL;
    b->fence = NULL;
    for (int p = 0; p < b->nin; p++) {
        const channel *c = b->in[p].ch;
        const channel *wait = c->producer >= 0 ? e->blocks[c->producer].waits_out : NULL;
        for (int q = 0; wait && !fence && q < b->nin; q++)
            if (b->in[q].ch == wait && holds_room(b, q)) {
                fence = wait;
                b->fence = wait;
                b->fence_reader = b->in[q].reader;
                b->fence_head = channel_taken(wait, b->fence_reader);
            }
        b->in[p].frozen = wait && wait == fence;
    }
}

static void thaw_inputs(block *b)
{
    if (!b->fence)
        return;
    for (int p = 0; p < b->nin; p++)
        b->in[p].frozen = 0;
    b->fence = NULL;
}

/* The cycle below which block b's inputs are final. */
static cycle_t input_horizon(const sim_engine *e, const block *b)
{
    cycle_t h = CYCLE_NONE;
    for (int p = 0; p < b->nin; p++) {
        const channel *c = b->in[p].ch;
        if (c->producer >= 0 && !b->in[p].frozen &&
            e->blocks[c->producer].clock + c->latency < h)
            h = e->blocks[c->producer].clock + c->latency;
    }
    return h;
}

/* What block b saw when it stopped, for may_go_on. */
static void note_seen(ahead *a, const block *b)
{
    for (int p = 0; p < b->nin; p++)
        a->tails_seen[b->index][p] = channel_pushes(b->in[p].ch);
    if (b->waits_out)
        a->pops_seen[b->index] = channel_taken_all(b->waits_out);
}

/* Whether block `from`, just stopped, waits on the clock of block `to`
 * through channel w->ch: then each may only go on as the other does, and
 * holding the wake back would leave both to the end of the window. */
static int waits_on(const block *from, const block *to, const wake *w)
{
    if (!w->producer)
        return from->waits_out == w->ch && holds_room(to, w->port);
    return from->waits_in == w->ch ||
           (!from->ops->peek && from->clock >= to->clock + w->ch->latency);
}

/* Whether block `to`, stopped as its waits_in and waits_out say, may go
 * further now that block `from`, which it waits on, has stopped: 0 no, 1
 * yes, 2 yes but only for the clock of `from`. A stopped block is woken
 * at once when a token comes or a pop makes room, or when `from` waits
 * on it in turn; for a mere clock it is woken only once nothing else is
 * left to run in the window (2): otherwise a pair of blocks coupled by a
 * short bounded channel would drag everything that waits on their
 * clocks along a cycle or two at a time. */
static int may_go_on(const ahead *a, const block *from, const block *to, const wake *w)
{
    if (w->producer) {
        if (to->waits_out != w->ch || from->clock < to->clock)
            return 0;
        return channel_taken_all(w->ch) != a->pops_seen[to->index] || waits_on(from, to, w) ? 1 : 2;
    }
    if (to->waits_out || (to->waits_in && to->waits_in != w->ch) ||
        to->clock >= from->clock + w->ch->latency)
        return 0;
    return channel_pushes(w->ch) != a->tails_seen[to->index][w->port] || waits_on(from, to, w) ? 1 : 2;
}

/* Block i's clock moved: wakes the blocks that may now go further. */
static void wake_waiting(const sim_engine *e, ahead *a, int i)
{
    for (int k = a->wake_first[i]; k < a->wake_first[i + 1]; k++) {
        int go = may_go_on(a, &e->blocks[i], &e->blocks[a->wakes[k].block], &a->wakes[k]);
        if (go == 1)
            enqueue(a, a->wakes[k].block);
        else if (go == 2)
            defer(a, a->wakes[k].block);
    }
}

/* Runs block i up to the limit; whether it changed. */
static int run_block(sim_engine *e, ahead *a, int i, cycle_t limit, int native, run_state *rs)
{
    block *b = &e->blocks[i];
    cycle_t from = b->clock, last = b->last_step;
    /* Nothing to run, whatever the inputs: the window's end is reached. */
    if (b->done || from >= limit)
        return 0;
    int was_done = b->done,
        adapted = !b->ops->run || !native || (e->bounded && b->ops->adapter_when_bounded);
    b->horizon = input_horizon(e, b);
    if (adapted && e->bounded) {
        freeze_inputs(e, b);
        b->thawed_horizon = b->horizon;
        if (b->fence)
            b->horizon = input_horizon(e, b);
    }
    cycle_t until = !b->ops->peek && b->horizon < limit ? b->horizon : limit;
    if (b->done || from >= until) {
        thaw_inputs(b);
        return 0;
    }
    b->waits_in = b->waits_out = NULL;
    if (adapted)
        block_run(b, until);
    else
        b->ops->run(b, until);
    thaw_inputs(b);
    int changed = note_run(e, b, was_done, last, rs);
    note_seen(a, b);
    if (b->clock != from)
        wake_waiting(e, a, i);
    return changed;
}

/* The window's length: RUN_AHEAD_WINDOW steps of the slowest block, so
 * that a block stepping every ii cycles (lanes sharing a datapath) still
 * does that many steps a window, not 1024 / ii. */
static cycle_t window_of(const sim_engine *e)
{
    uint32_t ii = 1;
    for (int k = 0; k < e->nblocks; k++)
        ii = e->blocks[k].ii > ii ? e->blocks[k].ii : ii;
    return (cycle_t)RUN_AHEAD_WINDOW * ii;
}

/* The next window's end: the fixed window, or with e->split a random one
 * (the test of run's contract: any split of time gives the same run). */
static cycle_t next_limit(sim_engine *e, cycle_t limit, cycle_t window)
{
    if (!e->split)
        return limit + window;
    e->split = e->split * 6364136223846793005ULL + 1442695040888963407ULL;
    return limit + 1 + (e->split >> 33) % (2 * window);
}

/* Runs every block as far as it goes below limit, and then the wakes
 * held back, until none is left or, when while_sinks, the last sink is
 * done: whether any block changed. */
static int run_window(sim_engine *e, ahead *a, cycle_t limit, int native, int while_sinks,
                      run_state *rs)
{
    int any = 0;
    for (int k = 0; k < e->nblocks; k++)
        enqueue(a, k);
    while (!e->failed && (!while_sinks || rs->remaining > 0)) {
        int i = dequeue(a);
        if (i >= 0)
            any |= run_block(e, a, i, limit, native, rs);
        else if (!undefer(a))
            break;
    }
    return any;
}

static int run_ahead(sim_engine *e, cycle_t max, int native, run_state *rs, cycle_t *t)
{
    ahead *a = ahead_of(e);
    if (!a) {
        e->failed = 1;
        return 0;
    }
    int stuck = 0;
    cycle_t window = window_of(e);
    for (cycle_t from = 0, limit; rs->remaining > 0 && !e->failed; from = limit) {
        limit = next_limit(e, from, window);
        limit = limit > max ? max : limit;
        int any = run_window(e, a, limit, native, 1, rs);
        report_progress(e, from, limit);
        if (rs->remaining == 0 || e->failed)
            break;
        if (!any && limit >= latest_ready(e)) {
            stuck = 1, *t = stuck_cycle(e, rs->last_changed);
            break;
        }
        if (limit == max) {
            stuck = 1, *t = max;
            break;
        }
    }
    /* The cycle engine finishes the cycle in which the last sink takes its
     * done token with every block: so do the blocks left behind here. */
    if (!stuck && !e->failed)
        run_window(e, a, rs->last_done + 1, native, 0, rs);
    return stuck;
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
    run_state rs = {0};
    if (max_cycles > ENGINE_MAX_CYCLES)
        max_cycles = ENGINE_MAX_CYCLES;
    for (int i = 0; i < e->nblocks; i++)
        rs.remaining += e->blocks[i].ops->collect != NULL;
    cycle_t t = 0;
    int stuck = mode == ENGINE_CYCLE ? run_cycles(e, max_cycles, &rs, &t)
                                     : run_ahead(e, max_cycles, mode == ENGINE_EVENT, &rs, &t);
    for (int i = 0; i < e->nblocks && e->failed; i++)
        if (e->blocks[i].fault)
            return block_error(&e->blocks[i], err, "at cycle %llu: %s",
                               (unsigned long long)e->blocks[i].clock, e->blocks[i].fault);
    for (int c = 0; c < e->nchannels; c++)
        e->failed |= e->channels[c].trace && e->channels[c].trace->failed;
    if (e->failed)
        return error_set(err, "out of memory while simulating");
    memset(out, 0, sizeof *out);
    out->tokens = sim_engine_tokens(e);
    out->deadlocked = stuck;
    out->cycles = stuck ? t : rs.last_done + 1;
    for (int i = 0; i < e->nblocks; i++)
        block_close_stats(&e->blocks[i], out->cycles);
    for (int c = 0; c < e->nchannels; c++)
        if (e->channels[c].trace && channel_trace_cut(&e->channels[c], out->cycles))
            return error_set(err, "out of memory while simulating");
    report[0] = '\0';
    if (stuck) {
        snprintf(report, report_size, t >= max_cycles ? "stopped after %llu cycles"
                                                      : "deadlock at cycle %llu",
                 (unsigned long long)t);
        describe_wait(e, t, report, report_size);
    }
    return stuck;
}

/* How far past a run's end a block may step (queue_trace's horizon): no
 * further than the end of the window in which the last sink finishes,
 * which starts before it does and is at most two windows long (split
 * ones); twice that, for a margin. */
static uint64_t trace_horizon(const sim_engine *e)
{
    return 4 * window_of(e);
}

int sim_engine_trace(sim_engine *e)
{
    e->traces = calloc((size_t)e->nblocks + 1, sizeof *e->traces);
    if (!e->traces)
        return -1;
    for (int i = 0; i < e->nblocks; i++)
        e->blocks[i].trace = &e->traces[i];
    /* The [0, D] fed to root blocks is the engine's, not a graph stream. */
    for (int c = 0; c < e->nchannels; c++) {
        channel *ch = &e->channels[c];
        if (ch->producer >= 0 && channel_trace(ch, trace_horizon(e)))
            return -1;
    }
    return 0;
}

void sim_engine_clear(sim_engine *e)
{
    if (e->ahead)
        ahead_free(e->ahead);
    free(e->ahead);
    e->ahead = NULL;
    for (int i = 0; i < e->nblocks; i++)
        block_destroy(&e->blocks[i]);
    for (int c = 0; c < e->nchannels; c++)
        channel_free(&e->channels[c]);
    for (int i = 0; e->traces && i < e->nblocks; i++)
        block_trace_free(&e->traces[i]);
    free(e->traces);
    e->traces = NULL;
    e->nblocks = e->nchannels = 0;
}

void sim_engine_free(sim_engine *e)
{
    sim_engine_clear(e);
    free(e->blocks);
    free(e->channels);
    memset(e, 0, sizeof *e);
}

static cycle_t widen_count(cycle_t n, uint64_t rate)
{
    return n / rate + (n % rate != 0);
}

static cycle_t widen_at(cycle_t t, uint64_t rate)
{
    return t == CYCLE_NONE ? t : t / rate;
}

void sim_engine_widen(sim_engine *e, uint64_t rate, cycle_t *cycles)
{
    for (int k = 0; k < e->nblocks; k++) {
        block_stats *s = &e->blocks[k].stats;
        s->busy = widen_count(s->busy, rate);
        s->blocked = widen_count(s->blocked, rate);
        s->first_busy = widen_at(s->first_busy, rate);
        s->last_busy = widen_at(s->last_busy, rate);
    }
    for (int k = 0; k < e->nchannels; k++) {
        channel_stats *s = &e->channels[k].stats;
        s->push_cycles = widen_count(s->push_cycles, rate);
        s->first_push = widen_at(s->first_push, rate);
        s->last_push = widen_at(s->last_push, rate);
    }
    *cycles = widen_count(*cycles, rate);
}
