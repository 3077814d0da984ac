#include "block.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int block_error(const block *b, sam_error *err, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return error_set(err, "node %s (%s): %s", b->node->id, b->node->type, what);
}

void *block_state_new(block *b, size_t size, sam_error *err)
{
    b->state = calloc(1, size);
    if (!b->state)
        error_set(err, "out of memory");
    return b->state;
}

const char *block_attr(const block_ctx *ctx, const char *key, sam_error *err)
{
    const char *v = graph_node_attr(ctx->node, key);
    if (!v)
        error_set(err, "node %s (%s): attribute %s is missing", ctx->node->id, ctx->node->type,
                  key);
    return v;
}

int block_attr_int(const block_ctx *ctx, const char *key, int64_t *v, sam_error *err)
{
    const char *s = block_attr(ctx, key, err);
    if (!s)
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end || errno)
        return error_set(err, "node %s (%s): attribute %s='%s' is not an integer", ctx->node->id,
                         ctx->node->type, key, s);
    *v = x;
    return 0;
}

const fiber_level *block_level(const block_ctx *ctx, const char *name, int mode,
                               const fibertree **tree, sam_error *err)
{
    const fibertree *ft = ctx->tensor(ctx, name);
    if (!ft) {
        error_set(err, "node %s (%s): tensor %s is not bound to data", ctx->node->id,
                  ctx->node->type, name);
        return NULL;
    }
    *tree = ft;
    for (int k = 0; k < ft->order; k++)
        if (ft->lv[k].mode == mode)
            return &ft->lv[k];
    error_set(err, "node %s (%s): tensor %s has no mode %d", ctx->node->id, ctx->node->type,
              name, mode);
    return NULL;
}

int block_dense_limit(const block_ctx *ctx, int64_t *limit, sam_error *err)
{
    size_t entries = 0;
    for (int t = 0; ctx->graph && ctx->tensor && t < ctx->graph->ntensors; t++) {
        const fibertree *ft = ctx->tensor(ctx, ctx->graph->tensors[t].name);
        entries += ft ? ft->nvals : 0;
    }
    return fibertree_dense_limit(entries, limit, err);
}

const char *block_edge_tensor(const graph_edge *e, const char *dir)
{
    size_t n = strlen(dir);
    if (!strncmp(e->comment, dir, n))
        return e->comment + n;
    const char *p = strstr(e->label, dir);
    return p ? p + n : NULL;
}

int block_port_by_kind(block *b, const graph_edge *e, int input, const char *const *kinds,
                       int n, sam_error *err)
{
    for (int p = 0; p < n; p++)
        if (!strcmp(kinds[p], e->kind))
            return p;
    return block_error(b, err, "no %s port for a %s stream (edge label '%s')",
                       input ? "input" : "output", e->kind, e->label);
}

int block_port_by_name(block *b, const graph_edge *e, int input, sam_error *err)
{
    return input ? block_port_by_kind(b, e, 1, b->in_names, b->nin, err)
                 : block_port_by_kind(b, e, 0, b->out_names, b->nout, err);
}

int block_sink_port(block *b, const graph_edge *e, int input, const char *kind, sam_error *err)
{
    if (!input)
        return block_error(b, err, "a writer has no outputs");
    return block_port_by_kind(b, e, 1, &kind, 1, err);
}

int block_closing_stop(block *b, int port, cycle_t now, token *stop)
{
    token head;
    int absorbs;
    if (!in_peek(b, port, now, &head))
        return 0;
    *stop = token_closing_stop(head, &absorbs);
    if (absorbs)
        in_pop(b, port, now);
    return 1;
}

int block_param_get(const block *b, const block_ctx *ctx, const char *name, int64_t *v,
                    sam_error *err)
{
    const param *p = param_find(b->ops->params, name, strlen(name));
    if (!p)
        return block_error(b, err, "reads parameter %s, which %s does not declare", name,
                           b->ops->impl);
    const char *text = graph_node_attr(ctx->node, name);
    double x = p->def;
    char why[256];
    if (text && param_parse(p, text, &x, why, sizeof why))
        return block_error(b, err, "%s", why);
    *v = (int64_t)x;
    return 0;
}

/* The first cycle after t at which what b looks at of its inputs may
 * change without its doing: a token reaches an input's head (or, for a
 * block that looks further, any token becomes visible), or CYCLE_NONE. */
static cycle_t block_next_arrival(block *b, cycle_t t)
{
    cycle_t next = CYCLE_NONE;
    for (int p = 0; p < b->nin; p++) {
        in_port *in = &b->in[p];
        const channel *c = in->ch;
        cycle_t at;
        if (!b->ops->peek)
            at = channel_arrival_after(c, in->reader, t, &in->seen);
        else if ((at = channel_head_arrival(c, in->reader)) == CYCLE_NONE)
            at = c->producer_clock ? *c->producer_clock + c->latency : CYCLE_NONE;
        else if (at <= t)
            at = CYCLE_NONE;
        next = at < next ? at : next;
    }
    return next;
}

/* The cycle below which what b sees of input p is final: for ever while
 * it holds as many tokens as a step looks at (CYCLE_NONE), else its
 * producer's clock plus the latency. */
static cycle_t input_final_until(const block *b, int p)
{
    const channel *c = b->in[p].ch;
    if (b->in[p].frozen || channel_unread(c, b->in[p].reader) >= (uint64_t)b->ops->peek ||
        !c->producer_clock)
        return CYCLE_NONE;
    return *c->producer_clock + c->latency;
}

/* The input whose view at t is not final yet, or NULL. */
static const channel *unfinal_input(const block *b, cycle_t t)
{
    for (int p = 0; p < b->nin; p++)
        if (input_final_until(b, p) <= t)
            return b->in[p].ch;
    return NULL;
}

cycle_t block_final_until(const block *b)
{
    cycle_t until = CYCLE_NONE;
    if (!b->ops->peek)
        return b->horizon;
    for (int p = 0; p < b->nin; p++) {
        cycle_t u = input_final_until(b, p);
        until = u < until ? u : until;
    }
    return until < b->horizon ? b->horizon : until;
}

uint64_t block_room(const block *b, cycle_t t, uint64_t n)
{
    for (int p = 0; p < b->nbounded && n; p++)
        n = channel_room_run(b->bounded[p], t, b->ii, n);
    return n;
}

/* A refusal for room at t starts a blocked stretch, unless the block is
 * idle then: its last step changed nothing and no input has come since,
 * so it waits for input, whatever its outputs hold. */
static void note_refused(block *b, cycle_t t)
{
    block_stats *s = &b->stats;
    if (s->blocked_since != CYCLE_NONE)
        return;
    if (b->idle_from != CYCLE_NONE && block_next_arrival(b, b->idle_from) > t)
        return;
    s->blocked_since = t;
}

/* Whether b's outputs let it step at t: 1; 0 when one is full, with *next
 * the first cycle it may not be; -1 when that is not known yet, with
 * b->waits_out the output. */
static int room_for_step(block *b, cycle_t t, cycle_t *next)
{
    int unknown = 0, full = 0;
    cycle_t through = 0;
    for (int p = 0; p < b->nbounded; p++) {
        const channel *c = b->bounded[p];
        /* Room found before stays, less what was pushed since. */
        if (channel_pushes(c) < b->room_until[p] && !b->ops->wide)
            continue;
        cycle_t f;
        int room = channel_room_at(c, t, &f);
        if (room > 0)
            b->room_until[p] = channel_pushes(c) + channel_room(c, t);
        if (room == 0) {
            full = 1;
            through = f > through ? f : through;
        } else if (room < 0 || (b->ops->wide && !channel_readers_reached(c, t))) {
            unknown = 1;
            b->waits_out = c;
        }
    }
    if (full) {
        note_refused(b, t);
        *next = through == CYCLE_NONE ? through : through + 1;
        return 0;
    }
    return unknown ? -1 : 1;
}

int block_step_at(block *b, cycle_t t)
{
    cycle_t next;
    if (b->done || t < b->ready_at || (b->nbounded && room_for_step(b, t, &next) != 1))
        return 0;
    if (b->ops->step(b, t)) {
        block_changed(b, t);
        return 1;
    }
    block_idle(b, t);
    return 0;
}

cycle_t block_unchanged(block *b, cycle_t t, cycle_t until)
{
    block_idle(b, t);
    cycle_t next = block_next_arrival(b, t);
    return next < until ? next : until;
}

int block_next_cycle(block *b, cycle_t *t, cycle_t until)
{
    while (*t < until && !b->done && !b->failed && !b->fault) {
        if (*t < b->ready_at) {
            *t = b->ready_at;
            continue;
        }
        if (*t >= b->horizon) {
            b->waits_in = unfinal_input(b, *t);
            if (b->waits_in)
                break;
        }
        cycle_t next;
        int room = b->nbounded ? room_for_step(b, *t, &next) : 1;
        if (room > 0)
            return 1;
        if (room < 0)
            break;
        *t = next;
    }
    b->clock = *t > b->clock ? *t : b->clock;
    return 0;
}

/* Whether b has popped its fence input, since the run began. */
static int fence_passed(const block *b)
{
    return b->fence && channel_taken(b->fence, b->fence_reader) != b->fence_head;
}

/* Once b has popped its fence input, its frozen inputs are final only as
 * far as their producers' clocks say (or the cycle after the pop, which t
 * is past): thaws them and returns the run's new end. */
static cycle_t pass_fence(block *b, cycle_t t, cycle_t until)
{
    if (!fence_passed(b))
        return until;
    for (int p = 0; p < b->nin; p++)
        b->in[p].frozen = 0;
    b->fence = NULL;
    b->horizon = b->thawed_horizon;
    if (b->ops->peek || until <= b->horizon)
        return until;
    return b->horizon > t ? b->horizon : t;
}

/* Whether each bounded output of b is known to have room for one more
 * token at any cycle from now on. */
static int room_known(const block *b)
{
    if (b->ops->wide)
        return 0;
    for (int p = 0; p < b->nbounded; p++)
        if (channel_pushes(b->bounded[p]) >= b->room_until[p])
            return 0;
    return 1;
}

void block_run(block *b, cycle_t until)
{
    cycle_t t = b->clock;
    int (*step)(block *, cycle_t) = b->ops->step;
    while (block_next_cycle(b, &t, until)) {
        /* Below the horizon and with room known, block_next_cycle would
         * let every step through: a step leaves t at ready_at or beyond. */
        cycle_t free_until = b->horizon < until ? b->horizon : until;
        do
            t = step(b, t) ? block_changed(b, t) : block_unchanged(b, t, until);
        while (t < free_until && !b->done && !b->failed && !b->fault &&
               (!b->nbounded || room_known(b)) &&
               !fence_passed(b));
        until = pass_fence(b, t, until);
    }
}

void block_bulk_run(block *b, cycle_t until, block_bulk_fn *bulk)
{
    cycle_t t = b->clock;
    while (block_next_cycle(b, &t, until)) {
        uint64_t n = bulk(b, t, until);
        if (n)
            t = block_changed_run(b, t, n);
        else
            t = b->ops->step(b, t) ? block_changed(b, t) : block_unchanged(b, t, until);
    }
}

void block_stretch_run(block *b, cycle_t until, block_stretch_fn *stretch)
{
    int (*step)(block *, cycle_t) = b->ops->step;
    cycle_t t = b->clock;
    int go = block_next_cycle(b, &t, until);
    while (go) {
        /* Room for none (after an arrival, which block_next_cycle did not
         * vet): block_next_cycle says what to do at t. */
        const cycle_t first = t;
        const uint64_t steps = block_steps_below(b, t, until);
        const uint64_t room = b->nbounded ? block_room(b, t, steps) : steps;
        uint64_t n = 0;
        int changed = 1;
        for (;;) {
            /* A stretch that stops short stops at a step of another kind,
             * or at one that changes nothing. */
            int idle = 0;
            uint64_t k = stretch(b, t, room - n, &idle);
            n += k;
            t += k * b->ii;
            if (n == room || b->failed || b->fault ||
                (n && t >= b->horizon && t >= block_final_until(b)))
                break;
            if (idle || !step(b, t)) {
                changed = 0;
                break;
            }
            n++;
            t += b->ii;
            if (n == room || b->done || b->failed || b->fault)
                break;
        }
        if (n)
            t = block_changed_run(b, first, n);
        if (changed) {
            go = block_next_cycle(b, &t, until);
            continue;
        }
        /* Straight on to the next arrival if the inputs are final there;
         * its room is asked for above. */
        t = block_unchanged(b, t, until);
        go = (t < until && (t < b->horizon || t < block_final_until(b))) ||
             block_next_cycle(b, &t, until);
    }
}

void block_close_stats(block *b, cycle_t end)
{
    block_stats *s = &b->stats;
    s->blocked_since = CYCLE_NONE;
    if (b->trace && end)
        block_trace_cut(b->trace, end);
    if (s->busy && end && s->last_busy >= end) {
        s->busy -= s->last_busy - (end - 1);
        s->last_busy = end - 1;
    }
}

/* What a run leaves in b beyond its state, back to how the build left it. */
static void clear_run(block *b)
{
    for (int p = 0; p < b->nin; p++)
        b->in[p] = (in_port){.ch = b->in[p].ch, .reader = b->in[p].reader};
    for (int k = 0; k < b->nbounded; k++)
        b->room_until[k] = 0;
    b->done = b->failed = 0;
    b->fault = NULL;
    b->stats = (block_stats){.blocked_since = CYCLE_NONE};
    b->ready_at = b->clock = b->horizon = b->thawed_horizon = 0;
    b->last_step = b->idle_from = CYCLE_NONE;
    b->waits_in = b->waits_out = NULL;
    b->fence = NULL;
    b->fence_head = 0;
}

int block_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    clear_run(b);
    return b->ops->rearm(b, ctx, err);
}

int block_rearm_stateless(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)b, (void)ctx, (void)err;
    return 0;
}

void block_destroy(block *b)
{
    if (!b->ops)
        return;
    if (b->ops->destroy)
        b->ops->destroy(b);
    else
        free(b->state);
    b->state = NULL;
}

/* How many of the tokens of run e, visible from its cycle on, no later
 * than t, steps from t on, one every ii cycles, find visible each in its
 * cycle: all of them when they come at least as fast as the steps. */
static uint64_t run_in_step(const block *b, const channel_entry *e, cycle_t t)
{
    uint64_t n = channel_run_count(e);
    uint32_t every = channel_run_every(e);
    if (every <= b->ii)
        return n;
    uint64_t k = (t - channel_entry_visible(e)) / (every - b->ii) + 1;
    return k < n ? k : n;
}

static int block_goes_on(const block *b)
{
    return !b->done && !b->failed && !b->fault;
}

uint64_t block_take_runs(block *b, cycle_t t, uint64_t room, block_take_fn *take,
                         block_take_slice_fn *slice)
{
    channel *c = b->in[0].ch;
    const int r = b->in[0].reader;
    const uint64_t entries = room < channel_unread(c, r) ? room : channel_unread(c, r);
    const channel_span s = channel_unread_span(c, r, entries);
    const uint64_t step = (uint64_t)b->ii << CHANNEL_TAG_BITS;
    const cycle_t first = t;
    uint64_t n = 0, steps = 0, seen = channel_tag_bound(t);
    while (block_goes_on(b) && n < entries && steps < room) {
        const channel_entry *e;
        uint64_t len = channel_span_stretch(&s, n, &e), m = 0;
        len = len < room - steps ? len : room - steps;
        for (; block_goes_on(b) && m < len && e[m].tag < seen && !channel_entry_is_run(&e[m]);
             m++, t += b->ii, seen += step)
            take(b, channel_entry_token(&e[m]), t);
        n += m, steps += m;
        if (!block_goes_on(b) || m == len)
            continue;
        if (e[m].tag >= seen || !channel_entry_is_run(&e[m]))
            break;
        uint64_t want = run_in_step(b, &e[m], t);
        uint64_t k = slice(b, c, &e[m], want < room - steps ? want : room - steps, t);
        steps += k, t += k * b->ii, seen += k * step;
        if (k < channel_run_count(&e[m])) {
            /* The rest of the run stays at the head, visible later. */
            channel_take_unbounded(c, r, n);
            channel_take_part(c, r, k);
            channel_count_takes(c, r, first, b->ii, steps);
            b->in[0].seen = (channel_cursor){0, 0};
            return steps;
        }
        n++;
    }
    channel_take_unbounded(c, r, n);
    channel_count_takes(c, r, first, b->ii, steps);
    return steps;
}

token in_take_run_first(block *b, int p, cycle_t now)
{
    channel *c = b->in[p].ch;
    const int r = b->in[p].reader;
    token t = channel_run_token(c, channel_unread_entry(c, r, 0), 0);
    channel_take_part(c, r, 1);
    channel_count_takes(c, r, now, 1, 1);
    b->in[p].seen = (channel_cursor){0, 0};
    return t;
}

void block_trace_step(block *b, cycle_t blocked_since, cycle_t t, cycle_t to)
{
    if ((blocked_since != CYCLE_NONE && block_trace_add(b->trace, TRACE_BLOCKED, blocked_since, t)) ||
        block_trace_add(b->trace, TRACE_BUSY, t, to))
        b->failed = 1;
}
