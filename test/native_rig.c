#include "native_rig.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../engine/engine.h"

/* ------------------------------------------------------------ streams */

void rig_put(rig_stream *s, token t)
{
    assert_true(s->n < RIG_MAX_TOKENS);
    s->tok[s->n++] = t;
}

uint64_t rig_random(uint64_t *rng)
{
    uint64_t z = (*rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int rig_below(uint64_t *rng, int n)
{
    return (int)(rig_random(rng) % (uint64_t)n);
}

void rig_random_tree(rig_tree *t, int levels, int width, uint64_t *rng)
{
    t->levels = levels;
    int fibers = 1;
    for (int l = 0; l < levels; l++) {
        int e = 0;
        t->first[l][0] = 0;
        for (int f = 0; f < fibers; f++) {
            int n = rig_below(rng, 5) ? rig_below(rng, width + 1) : 0;
            if (e + n > RIG_MAX_ELEMS)
                n = RIG_MAX_ELEMS - e;
            for (int64_t c = rig_below(rng, 3); n > 0; n--, c += 1 + rig_below(rng, 3))
                t->crd[l][e++] = c;
            t->first[l][f + 1] = e;
        }
        fibers = e;
    }
}

/* The stop token still owed after a fiber: its level and how many of the
 * fibers it closes never began (engine/token.h). */
typedef struct owed {
    int level, hollow;
} owed;

static token stop_of(owed o)
{
    token s = token_stop(o.level);
    s.hollow = (uint8_t)o.hollow;
    return s;
}

/* Writes the part of the level-`depth` stream under fiber f of level l,
 * the stop that closes it left owed, as the reference's scanners make it:
 * the last fiber's stop merges with its parent's, and a fiber without
 * elements above depth closes the fibers below it that never began. */
static owed write_fiber(const rig_tree *t, int l, int f, int depth, rig_stream *s)
{
    int from = t->first[l][f], to = t->first[l][f + 1];
    if (l == depth) {
        for (int e = from; e < to; e++)
            rig_put(s, token_crd(t->crd[l][e]));
        return (owed){0, 0};
    }
    if (from == to)
        return (owed){depth - l, depth - l};
    owed o = {0, 0};
    for (int e = from; e < to; e++) {
        o = write_fiber(t, l + 1, e, depth, s);
        if (e + 1 < to)
            rig_put(s, stop_of(o));
    }
    return (owed){o.level + 1, o.hollow};
}

void rig_write_level(const rig_tree *t, int depth, rig_stream *s)
{
    rig_put(s, stop_of(write_fiber(t, 0, 0, depth, s)));
    rig_put(s, token_done());
}

void rig_joiner_side(rig_stream *crd, rig_stream *ref, int fibers, int gap, int empty_one_in,
                     uint64_t *rng)
{
    int64_t pos = 0;
    int nested = fibers >= 0, n = nested ? fibers : 1;
    for (int f = 0; f < n; f++) {
        if (nested && rig_below(rng, empty_one_in) == 0) {
            rig_put(crd, token_empty());
            rig_put(ref, token_empty());
        } else {
            for (int64_t c = rig_below(rng, 3); c < 40; c += 1 + rig_below(rng, gap)) {
                rig_put(crd, token_crd(c));
                rig_put(ref, token_crd(pos++));
            }
        }
        rig_put(crd, token_stop(nested && f + 1 == n));
        rig_put(ref, token_stop(nested && f + 1 == n));
    }
    if (n == 0) {
        /* No fiber at all: the outer fiber was empty. */
        token hollow = token_stop(1);
        hollow.hollow = 1;
        rig_put(crd, hollow);
        rig_put(ref, hollow);
    }
    rig_put(crd, token_done());
    rig_put(ref, token_done());
}

/* ------------------------------------------------------ feeders, drains */

/* Pushes its stream on output 0, a token a step, pausing pause[k] steps
 * after token k. */
typedef struct feeder {
    rig_stream s;
    uint8_t pause[RIG_MAX_TOKENS];
    int next, wait;
} feeder;

static int feed_step(block *b, cycle_t now)
{
    feeder *f = b->state;
    if (f->wait) {
        f->wait--;
        return 1;
    }
    if (f->next == f->s.n)
        return 0;
    out_push(b, 0, now, f->s.tok[f->next]);
    /* No pause after the last token: steps after the run's end would
     * count in the statistics of the engines that run ahead. */
    f->wait = ++f->next < f->s.n ? f->pause[f->next - 1] : 0;
    return 1;
}

static const block_ops feed_ops = {.type = "feed", .impl = "test", .step = feed_step, .peek = 1};

/* Passes its input on, a token a step, pausing pause[k] steps after token
 * k: between a feeder and the block it makes the block's producer one
 * that waits for input, not only for room, and so stops short of the
 * window. */
typedef struct relay {
    uint8_t pause[RIG_MAX_TOKENS];
    int n, wait;
} relay;

static int relay_step(block *b, cycle_t now)
{
    relay *r = b->state;
    token t;
    if (r->wait) {
        r->wait--;
        return 1;
    }
    if (!in_peek(b, 0, now, &t))
        return 0;
    in_pop(b, 0, now);
    out_push(b, 0, now, t);
    assert_true(r->n < RIG_MAX_TOKENS);
    r->wait = token_is_done(t) ? 0 : r->pause[r->n++];
    return 1;
}

static const block_ops relay_ops = {.type = "relay", .impl = "test", .step = relay_step,
                                    .peek = 1};

/* A token a drain took: when it became visible and when it was taken. */
typedef struct taken {
    token tok;
    cycle_t visible, at;
} taken;

/* Takes its input until D, pausing pause[k] steps after token k. */
typedef struct drain {
    taken got[RIG_MAX_TOKENS];
    uint8_t pause[RIG_MAX_TOKENS];
    int n, wait;
} drain;

static int drain_step(block *b, cycle_t now)
{
    drain *d = b->state;
    const channel *c = b->in[0].ch;
    token t;
    if (d->wait) {
        d->wait--;
        return 1;
    }
    if (!in_peek(b, 0, now, &t))
        return 0;
    assert_true(d->n < RIG_MAX_TOKENS);
    d->got[d->n] = (taken){t, channel_head_arrival(c, b->in[0].reader), now};
    in_pop(b, 0, now);
    d->wait = d->pause[d->n++];
    b->done = token_is_done(t);
    return 1;
}

static int drain_collect(block *b, fibertree *result, sam_error *err)
{
    (void)b, (void)result, (void)err;
    return 0;
}

static const block_ops drain_ops = {.type = "drain", .impl = "test", .step = drain_step,
                                    .collect = drain_collect, .peek = 1};

/* A drain that is no sink, for a stream without D. */
static const block_ops open_drain_ops = {.type = "drain", .impl = "open", .step = drain_step,
                                         .peek = 1};

/* ------------------------------------------------------------- the rig */

/* What a run gave. */
typedef struct outcome {
    int rc;
    sim_outcome out;
    char report[512];
    int nout;
    drain drained[RIG_MAX_PORTS];
    block_stats stats[3 * RIG_MAX_PORTS + 1];
    uint8_t open[3 * RIG_MAX_PORTS + 1];    /* a drain that is no sink */
    channel_stats cstats[3 * RIG_MAX_PORTS];
    uint64_t pushed[3 * RIG_MAX_PORTS];
    int nblocks, nchannels;
    uint64_t digest;            /* rig_spec.digest's of the block */
} outcome;

static void node_init(graph_node *n, const char *type, const char *attrs)
{
    memset(n, 0, sizeof *n);
    n->id = strdup(type);
    n->type = strdup(type);
    n->attrs = calloc(8, sizeof *n->attrs);
    char *copy = strdup(attrs), *save = NULL;
    for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        assert_non_null(eq);
        assert_true(n->nattrs < 8);
        *eq = '\0';
        n->attrs[n->nattrs++] = (graph_attr){strdup(kv), strdup(eq + 1)};
    }
    free(copy);
}

static void node_free(graph_node *n)
{
    for (int i = 0; i < n->nattrs; i++)
        free(n->attrs[i].key), free(n->attrs[i].value);
    free(n->attrs), free(n->id), free(n->type);
}

static const fibertree *bound_tensor(const block_ctx *ctx, const char *name)
{
    const rig_spec *s = ctx->data;
    return s->tensor && !strcmp(s->tensor, name) ? s->tree : NULL;
}

static block *add_block(sim_engine *e, const block_ops *ops, const graph_node *node)
{
    block *b = &e->blocks[e->nblocks];
    b->ops = ops;
    b->node = node;
    b->index = e->nblocks++;
    b->ii = 1;
    b->stats.blocked_since = CYCLE_NONE;
    return b;
}

/* A channel from port `out` of block `from` to port `in` of block `to`. */
static void connect(sim_engine *e, block *from, int out, block *to, int in, uint64_t capacity,
                    uint32_t latency)
{
    channel *c = &e->channels[e->nchannels];
    assert_int_equal(channel_init(c, capacity, latency), 0);
    c->producer = from->index;
    c->id = e->nchannels++;
    c->kind = "crd";
    int r = channel_add_reader(c, to->index);
    assert_true(r >= 0);
    from->out[out].ch = c;
    to->in[in] = (in_port){.ch = c, .reader = r};
}

/* Builds the rig of s in e: feeders (and relays), the block, drains, in
 * that order. */
static void build(const rig_spec *s, sim_engine *e, graph_node *nodes)
{
    memset(e, 0, sizeof *e);
    e->blocks = calloc(3 * RIG_MAX_PORTS + 1, sizeof *e->blocks);
    e->channels = calloc(3 * RIG_MAX_PORTS, sizeof *e->channels);
    e->block_room = 3 * RIG_MAX_PORTS + 1;
    e->channel_room = 3 * RIG_MAX_PORTS;
    node_init(&nodes[0], s->ops->type, s->attrs);
    node_init(&nodes[1], "feed", "");
    node_init(&nodes[2], "drain", "");
    node_init(&nodes[3], "relay", "");
    block *feeds[RIG_MAX_PORTS];
    for (int p = 0; p < s->nin; p++) {
        feeds[p] = add_block(e, &feed_ops, &nodes[1]);
        feeder *f = calloc(1, sizeof *f);
        f->s = s->in[p];
        memcpy(f->pause, s->feed_pause[p], sizeof f->pause);
        feeds[p]->state = f;
        feeds[p]->nout = 1;
        if (!s->relayed[p])
            continue;
        block *r = add_block(e, &relay_ops, &nodes[3]);
        relay *state = calloc(1, sizeof *state);
        memcpy(state->pause, s->relay_pause[p], sizeof state->pause);
        r->state = state;
        r->nin = r->nout = 1;
        connect(e, feeds[p], 0, r, 0, s->capacity[2 * RIG_MAX_PORTS + p],
                s->latency[2 * RIG_MAX_PORTS + p]);
        feeds[p] = r;
    }
    const graph_node *node = s->graph ? &s->graph->nodes[0] : &nodes[0];
    block *b = add_block(e, s->ops, node);
    block_ctx ctx = {.graph = s->graph, .node = node, .tensor = bound_tensor, .data = s};
    sam_error err;
    if (s->ops->create(b, &ctx, &err))
        fail_msg("%s", err.msg);
    b->ii = s->ii;
    assert_int_equal(b->nin, s->nin);
    for (int p = 0; p < s->nin; p++)
        connect(e, feeds[p], 0, b, p, s->capacity[p], s->latency[p]);
    for (int p = 0; p < b->nout; p++) {
        if (p == s->unconnected)
            continue;
        const block_ops *ops = s->open_ended >> p & 1 ? &open_drain_ops : &drain_ops;
        block *d = add_block(e, ops, &nodes[2]);
        drain *dr = calloc(1, sizeof *dr);
        memcpy(dr->pause, s->drain_pause[p], sizeof dr->pause);
        d->state = dr;
        d->nin = 1;
        connect(e, b, p, d, 0, s->capacity[RIG_MAX_PORTS + p], s->latency[RIG_MAX_PORTS + p]);
    }
    sim_engine_start(e);
}

/* Runs s under mode (split: the seed of random window ends, or 0). */
static void run_rig(const rig_spec *s, engine_mode mode, uint64_t split, outcome *o)
{
    sim_engine e;
    graph_node nodes[4];
    build(s, &e, nodes);
    e.split = split;
    sam_error err;
    memset(o, 0, sizeof *o);
    o->rc = sim_engine_run(&e, mode, 1000000, &o->out, o->report, sizeof o->report, &err);
    if (o->rc < 0)
        snprintf(o->report, sizeof o->report, "%s", err.msg);
    o->nblocks = e.nblocks;
    o->nchannels = e.nchannels;
    for (int i = 0; i < e.nblocks; i++) {
        if (e.blocks[i].ops == s->ops && s->digest)
            o->digest = s->digest(&e.blocks[i]);
        o->stats[i] = e.blocks[i].stats;
        o->open[i] = e.blocks[i].ops == &open_drain_ops;
        if (e.blocks[i].ops == &drain_ops || e.blocks[i].ops == &open_drain_ops)
            o->drained[o->nout++] = *(const drain *)e.blocks[i].state;
    }
    for (int c = 0; c < e.nchannels; c++) {
        o->cstats[c] = e.channels[c].stats;
        o->pushed[c] = e.channels[c].pushed;
    }
    sim_engine_free(&e);
    for (int n = 0; n < 4; n++)
        node_free(&nodes[n]);
}

static int same_token(token a, token b)
{
    return a.kind == b.kind && a.level == b.level && a.hollow == b.hollow && a.i == b.i;
}

/* How many tokens d took before cycle end: a drain that is no sink may
 * run on past the run's end. */
static int taken_before(const drain *d, cycle_t end)
{
    int n = 0;
    while (n < d->n && d->got[n].at < end)
        n++;
    return n;
}

/* Fails unless output p's drain d took the stream want. */
static void expect_stream(const char *label, int p, const drain *d, const rig_stream *want)
{
    char got[32], wanted[32];
    for (int k = 0; k < d->n || k < want->n; k++)
        if (k >= d->n || k >= want->n || !same_token(d->got[k].tok, want->tok[k]))
            fail_msg("%s: output %d gives %s as token %d, not %s", label, p,
                     k < d->n ? token_str(d->got[k].tok, got) : "nothing", k,
                     k < want->n ? token_str(want->tok[k], wanted) : "nothing");
}

/* Fails unless o, run under `what`, is want, the cycle engine's. */
static void expect_same(const char *label, const char *what, const outcome *want,
                        const outcome *o)
{
    if (o->rc != want->rc || o->out.cycles != want->out.cycles ||
        o->out.tokens != want->out.tokens || o->out.deadlocked != want->out.deadlocked ||
        strcmp(o->report, want->report))
        fail_msg("%s, %s: exit %d after %llu cycles (%s), the cycle engine %d after %llu (%s)",
                 label, what, o->rc, (unsigned long long)o->out.cycles, o->report, want->rc,
                 (unsigned long long)want->out.cycles, want->report);
    if (o->digest != want->digest)
        fail_msg("%s, %s: the block's outcome differs", label, what);
    for (int p = 0; p < want->nout; p++) {
        const drain *x = &want->drained[p], *y = &o->drained[p];
        int xn = taken_before(x, want->out.cycles), yn = taken_before(y, want->out.cycles);
        for (int k = 0; k < xn || k < yn; k++)
            if (k >= xn || k >= yn || !same_token(x->got[k].tok, y->got[k].tok) ||
                x->got[k].visible != y->got[k].visible || x->got[k].at != y->got[k].at)
                fail_msg("%s, %s: output %d differs at token %d (of %d, the cycle engine %d)",
                         label, what, p, k, yn, xn);
    }
    /* A drain that is no sink may run on past the end, where the engines'
     * cuts of its statistics (block_close_stats) need not agree: its
     * tokens before the end are compared, its statistics not. */
    for (int i = 0; i < want->nblocks; i++)
        if (!want->open[i] && memcmp(&o->stats[i], &want->stats[i], sizeof o->stats[i]))
            fail_msg("%s, %s: block %d's statistics differ (busy %llu/%llu, blocked %llu/%llu)",
                     label, what, i, (unsigned long long)o->stats[i].busy,
                     (unsigned long long)want->stats[i].busy,
                     (unsigned long long)o->stats[i].blocked,
                     (unsigned long long)want->stats[i].blocked);
    for (int c = 0; c < want->nchannels; c++)
        if (memcmp(&o->cstats[c], &want->cstats[c], sizeof o->cstats[c]) ||
            o->pushed[c] != want->pushed[c])
            fail_msg("%s, %s: channel %d's statistics differ", label, what, c);
}

void rig_random_timing(rig_spec *s, uint64_t *rng)
{
    static const uint64_t capacities[] = {0, 1, 2, 4};
    s->ii = 1 + (rig_below(rng, 4) == 0) * (1 + rig_below(rng, 2));
    int bounded = rig_below(rng, 3);        /* 0: none, 1: some, 2: all */
    for (int c = 0; c < 3 * RIG_MAX_PORTS; c++) {
        s->capacity[c] = bounded == 2 || (bounded == 1 && rig_below(rng, 2))
                             ? capacities[1 + rig_below(rng, 3)]
                             : 0;
        s->latency[c] = (uint32_t)(rig_below(rng, 3) ? 1 : rig_below(rng, 4));
    }
    /* Bursts without pauses, where runs take many steps at once. */
    for (int p = 0; p < RIG_MAX_PORTS; p++) {
        s->relayed[p] = rig_below(rng, 3) == 0;
        for (int k = 0; k < RIG_MAX_TOKENS; k++) {
            s->feed_pause[p][k] = (uint8_t)(rig_below(rng, 4) ? 0 : rig_below(rng, 6));
            s->drain_pause[p][k] = (uint8_t)(rig_below(rng, 5) ? 0 : rig_below(rng, 8));
            s->relay_pause[p][k] = (uint8_t)(rig_below(rng, 3) ? 0 : rig_below(rng, 12));
        }
    }
}

/* Each engine's run of s against the cycle engine's,
 * which must finish. */
cycle_t rig_check_engines(const rig_spec *s, const char *label)
{
    static const struct {
        engine_mode mode;
        uint64_t split;
        const char *what;
    } runs[] = {
        {ENGINE_STEP, 0, "step"},
        {ENGINE_STEP, 5, "step, split 5"},
        {ENGINE_EVENT, 0, "event"},
        {ENGINE_EVENT, 7, "event, split 7"},
        {ENGINE_EVENT, 31, "event, split 31"},
    };
    outcome *want = malloc(sizeof *want), *o = malloc(sizeof *o);
    run_rig(s, ENGINE_CYCLE, 0, want);
    if (want->rc || want->out.deadlocked)
        fail_msg("%s: the cycle engine's run: exit %d, %s", label, want->rc, want->report);
    for (int p = 0; p < s->nwant; p++)
        expect_stream(label, p, &want->drained[p], &s->want[p]);
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        run_rig(s, runs[r].mode, runs[r].split, o);
        expect_same(label, runs[r].what, want, o);
    }
    cycle_t end = want->out.cycles;
    free(want);
    free(o);
    return end;
}

void rig_check_cases(const char *name, int cases, rig_make_fn *make)
{
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= (uint64_t)cases; k++) {
        uint64_t rng = k;
        memset(s, 0, sizeof *s);
        s->unconnected = -1;
        s->attrs = "";
        make(s, k, &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "%s case %llu", name, (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
}
