#include "engine.h"

#include <stdlib.h>
#include <string.h>

int sim_engine_start(sim_engine *e, sam_error *err)
{
    uint32_t latency = 1;
    for (int c = 0; c < e->nchannels; c++)
        if (e->channels[c].latency > latency)
            latency = e->channels[c].latency;
    /* A power of two, so that a cycle's slot is a mask, not a division. */
    e->nslots = 2;
    while ((uint32_t)e->nslots <= latency)
        e->nslots *= 2;
    e->slot_blocks = calloc((size_t)e->nslots, sizeof *e->slot_blocks);
    e->slot_count = calloc((size_t)e->nslots, sizeof *e->slot_count);
    e->slot_cap = calloc((size_t)e->nslots, sizeof *e->slot_cap);
    e->woken_for = malloc((size_t)e->nblocks * (size_t)e->nslots * sizeof *e->woken_for + 1);
    if (!e->slot_blocks || !e->slot_count || !e->slot_cap || !e->woken_for)
        return error_set(err, "out of memory for the scheduler");
    for (size_t i = 0; i < (size_t)e->nblocks * (size_t)e->nslots; i++)
        e->woken_for[i] = UINT64_MAX;
    for (int c = 0; c < e->nchannels; c++)
        e->channels[c].engine = e;
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

void sim_engine_wake(sim_engine *e, int b, cycle_t at)
{
    if (at > e->max_visible)
        e->max_visible = at;
    schedule(e, b, at);
}

/* Steps block i at cycle t unless it is a finished sink or an output is
 * full; counts sinks finishing. Returns whether the block changed. */
static int step_block(sim_engine *e, int i, cycle_t t, int *remaining, cycle_t *last_done)
{
    block *b = &e->blocks[i];
    if (b->done)
        return 0;
    for (int p = 0; p < b->nout; p++)
        if (b->out[p].ch && !channel_has_room(b->out[p].ch, t))
            return 0;
    int changed = b->ops->step(b, t);
    if (b->failed || b->fault)
        e->failed = 1;
    if (b->done) {
        (*remaining)--;
        *last_done = t;
    }
    return changed;
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

/* The cycle in which a stuck run is reported: the first from which
 * nothing can change, as the cycle engine finds it. */
static cycle_t stuck_cycle(const sim_engine *e, cycle_t last_changed)
{
    return last_changed + 1 > e->max_visible ? last_changed + 1 : e->max_visible;
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
                sim_engine_wake(e, e->channels[c].readers[r].block,
                                e->channels[c].buf[h & e->channels[c].mask].visible);
    while (*remaining > 0 && *t < max && !e->failed) {
        int slot = (int)(*t & (cycle_t)(e->nslots - 1));
        if (e->slot_count[slot] == 0) {
            if (!next_busy_slot(e, *t, t)) {
                *t = stuck_cycle(e, last_changed);
                return 1;
            }
            continue;
        }
        /* Wakes made now are for later cycles, so this list is stable. */
        for (int k = 0; k < e->slot_count[slot]; k++) {
            int i = e->slot_blocks[slot][k];
            if (step_block(e, i, *t, remaining, last)) {
                schedule(e, i, *t + 1);
                last_changed = *t;
            }
        }
        e->slot_count[slot] = 0;
        (*t)++;
    }
    return *remaining > 0;
}

static int run_cycles(sim_engine *e, cycle_t max, int *remaining, cycle_t *t, cycle_t *last)
{
    for (; *remaining > 0 && *t < max && !e->failed; (*t)++) {
        int changed = 0;
        for (int i = 0; i < e->nblocks; i++)
            changed |= step_block(e, i, *t, remaining, last);
        if (!changed && *t >= e->max_visible && *remaining > 0)
            return 1;
    }
    return *remaining > 0;
}

static void append(char *report, size_t size, const char *fmt, const char *a, const char *b,
                   const char *c)
{
    size_t n = strlen(report);
    if (n + 1 < size)
        snprintf(report + n, size - n, fmt, a, b, c);
}

/* Who waits on what: full outputs, and empty inputs of blocks that still
 * hold tokens or are unfinished sinks. */
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
                append(report, size, "; node %s (%s) waits on full output %s", b->node->id,
                       b->node->type, b->out_names[p]);
        if (!holds && !b->ops->collect)
            continue;
        for (int p = 0; p < b->nin; p++)
            if (b->in[p].ch && !channel_visible(b->in[p].ch, b->in[p].reader, t, 1))
                append(report, size, "; node %s (%s) waits on empty input %s", b->node->id,
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
    if (mode == ENGINE_CYCLE)
        free(e->woken_for), e->woken_for = NULL;
    int stuck = mode == ENGINE_EVENT ? run_events(e, max_cycles, &remaining, &t, &last)
                                     : run_cycles(e, max_cycles, &remaining, &t, &last);
    for (int i = 0; i < e->nblocks && e->failed; i++)
        if (e->blocks[i].fault)
            return block_error(&e->blocks[i], err, "at cycle %llu: %s", (unsigned long long)t,
                               e->blocks[i].fault);
    if (e->failed)
        return error_set(err, "out of memory while simulating");
    memset(out, 0, sizeof *out);
    for (int c = 0; c < e->nchannels; c++)
        out->tokens += e->channels[c].pushed;
    out->deadlocked = stuck;
    out->cycles = stuck ? t : last + 1;
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
