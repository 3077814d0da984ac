/* The one interface every SAM block implements. A block type is a
 * block_ops table in one file of blocks/, registered in blocks/registry.c;
 * the engine only ever calls through the table. A step is one cycle of
 * the block: it looks at the tokens visible on its inputs, pops and pushes
 * at most what the SAM timing rules allow, and reports whether anything
 * changed, so that a block with nothing new to see can sleep. A block may
 * also have a run, many cycles in one call with exactly the steps' effect;
 * the rules around both are below (block_step_at, block_run). */
#ifndef SAMSIM_BLOCK_H
#define SAMSIM_BLOCK_H

#include "../common/error.h"
#include "../common/param.h"
#include "../formats/fibertree.h"
#include "../graph/graph.h"
#include "channel.h"
#include "trace.h"

/* Enough for the widest block: a vectorreducer merging 32 lanes takes a
 * coordinate and a value input from each (blocks/lanes.h). */
#define BLOCK_MAX_PORTS 72

typedef struct block block;

/* What a constructor may look at: its node, the graph, the tensors. */
typedef struct block_ctx {
    const sam_graph *graph;
    const graph_node *node;
    /* The data bound to tensor name, or NULL. */
    const fibertree *(*tensor)(const struct block_ctx *ctx, const char *name);
    const void *data;
} block_ctx;

typedef struct block_ops {
    const char *type;       /* the DOT type= it implements */
    const char *impl;       /* implementation name; blocks/registry.c says which is the
                               type's default */
    const char *about;      /* one line for `samsim blocks` */
    /* The node attributes this implementation reads beyond the graph's
     * own and the timing ones every block has, or NULL: declared as data
     * (common/param.h, whole numbers), so that samsim blocks lists them,
     * --config knows them and block_param_get reads each the same way. */
    const param *params;
    /* Optional: whether this implementation serves that node (e.g. a
     * compressed vs a dense fiberlookup); NULL serves every node. */
    int (*serves)(const graph_node *n);
    /* Allocates b->state (block_state_new) and sets b->nin and b->nout. */
    int (*create)(block *b, const block_ctx *ctx, sam_error *err);
    /* The port an edge attaches to (input: the edge ends here), or -1
     * with err set when the edge does not fit the block. */
    int (*port)(block *b, const graph_edge *e, int input, sam_error *err);
    int (*step)(block *b, cycle_t now);
    /* Optional: the block's own loop over its cycles from b->clock up to
     * until, with exactly the meaning of block_run (the adapter over step,
     * engine/block.c), using its helpers for the bookkeeping; a block without
     * it runs through the adapter. */
    void (*run)(block *b, cycle_t until);
    /* Pushes several tokens on one output in a cycle, as many as
     * out_room allows: it steps only once that room is exact. */
    int wide;
    /* How many tokens of one input a step may look at, from the head: 1
     * for most, 2 for a block that takes a ref and then looks at the next
     * (the closing stop of scanners and repeaters). Such a block runs on
     * past what its producers have simulated while every input holds that
     * many tokens. 0: it may look further (channel_sees), so it runs only
     * as far as all its inputs are final. */
    int peek;
    /* Takes runs (channel.h) on its one input: its step and run read
     * through block_take_step and block_take_run_slices. */
    int takes_runs;
    /* With bounded channels, run through the adapter all the same: the
     * engine lets an adapted block run past a producer that waits for
     * room only its pop can make (engine.c, freeze_inputs), where its own
     * run stops at every such hand-over (crdhold: 1.7x the instructions
     * of matmul_ikj with --depth 4). */
    int adapter_when_bounded;
    /* Optional: readies the block for another run of the same graph on
     * the data ctx binds (a tiled run's next point), as create would leave
     * it, keeping what it allocated; a graph with a block without it is
     * built anew for each point instead (builder/build.h). */
    int (*rearm)(block *b, const block_ctx *ctx, sam_error *err);
    /* Optional: frees the block's state; without it the state is one
     * allocation, freed whole (block_destroy). */
    void (*destroy)(block *b);
    /* Sinks only: the run ends when every sink is done; collect moves
     * what the sink wrote into the result tree (a run's result is as
     * large as its operands: copying it would hold it twice), leaving the
     * block nothing but its destroy. */
    int (*collect)(block *b, fibertree *result, sam_error *err);
    /* Optional feedback: a stream against the direction of the graph's
     * edges, which DOT graphs do not draw, so the builder adds it once
     * the edges are connected (builder/feedback.h). Sender: the output port
     * on which this block tells the producer of its input port `in`
     * something about that input (a skipping intersecter: the next
     * coordinate it needs), or -1. */
    int (*feedback_out)(const block *b, int in);
    /* Receiver: the input port that takes feedback about what output
     * port `out` sends, or -1. The port lies at or beyond nin: optional,
     * it counts in nin once the builder connects it. */
    int (*feedback_in)(const block *b, int out);
    /* Optional, for blocks whose streams carry bitvector words
     * (blocks/bitvector.h): the width in bits of the words on port
     * (input: an input port), 0 on a port that carries none. Blocks that
     * share a word stream must read it alike, and the builder refuses a
     * stream whose producer and reader disagree. */
    int64_t (*word_width)(const block *b, int port, int input);
} block_ops;

typedef struct in_port {
    channel *ch;            /* NULL while unconnected */
    int reader;
    /* Set by the engine for one run: the producer can push nothing until
     * this block pops its fence input, so what this input holds is final
     * until then, whatever the producer's clock. */
    uint8_t frozen;
    /* Where the search for the next entry to become visible got to. */
    channel_cursor seen;
} in_port;

typedef struct out_port {
    channel *ch;            /* NULL: nobody listens, tokens are dropped */
} out_port;

/* What the engine saw a block do, for --stats; see report/stats.h. */
typedef struct block_stats {
    uint64_t busy;              /* cycles occupied by steps that changed
                                   something (ii cycles each) */
    cycle_t first_busy, last_busy;
    uint64_t blocked;           /* cycles refused for a full output */
    cycle_t blocked_since;      /* CYCLE_NONE unless refused now */
} block_stats;

struct block {
    const block_ops *ops;
    const graph_node *node;
    int index;
    in_port in[BLOCK_MAX_PORTS];
    int nin;
    out_port out[BLOCK_MAX_PORTS];
    int nout;
    const char *in_names[BLOCK_MAX_PORTS];     /* for messages */
    const char *out_names[BLOCK_MAX_PORTS];
    void *state;
    int done;               /* a sink that has taken its done token */
    int failed;             /* a push ran out of memory */
    const char *fault;      /* input the block cannot process (a ref beyond
                               its array...): the run stops with this */
    block_stats stats;
    uint32_t ii;            /* initiation interval: a busy step at t, the
                               next at t + ii at the earliest */
    cycle_t ready_at;       /* the earliest cycle of the next step */
    cycle_t clock;          /* every cycle before this one is simulated */
    cycle_t horizon;        /* set before a run: below it every input is final */
    cycle_t last_step;      /* the last step that changed the block */
    cycle_t idle_from;      /* the last step, which changed nothing and so
                               waits for input; CYCLE_NONE after a change */
    channel *bounded[BLOCK_MAX_PORTS];     /* the outputs with a capacity */
    int nbounded;
    /* Per bounded output: while its tail is below this, it has room (a
     * pop makes room for good, a push takes one). */
    uint64_t room_until[BLOCK_MAX_PORTS];
    /* Why its last run stopped short: the input it waits on (holding too
     * few tokens, its producer behind), or the output whose reader has
     * yet to decide its room; NULL when neither. */
    const channel *waits_in, *waits_out;
    /* The channel and reader whose pop ends a run with frozen inputs
     * (NULL: none), and what the reader had taken when the run began. */
    const channel *fence;
    int fence_reader;
    uint64_t fence_head;
    cycle_t thawed_horizon;     /* the horizon once the fence is passed */
    block_trace *trace;         /* the run is traced: the block's timeline,
                                   kept by block_changed; NULL: not */
};

static inline int in_peek(const block *b, int p, cycle_t now, token *t)
{
    return channel_peek(b->in[p].ch, b->in[p].reader, now, t);
}

static inline int in_has(const block *b, int p, cycle_t now)
{
    token t;
    return in_peek(b, p, now, &t);
}

static inline void in_pop(block *b, int p, cycle_t now)
{
    if (channel_pop(b->in[p].ch, b->in[p].reader, now))
        b->failed = 1;
}

static inline void out_push(block *b, int p, cycle_t now, token t)
{
    if (b->out[p].ch && channel_push(b->out[p].ch, now, t))
        b->failed = 1;
}

/* The tensor an edge names, after dir ("in-" or "out-"): "B" of comment
 * "in-B" or of label "crd_in-B"; NULL when it names none. */
const char *block_edge_tensor(const graph_edge *e, const char *dir);

/* The port of an edge chosen by its stream kind alone, for blocks whose
 * ports all differ in kind: kinds[p] is the kind of port p. */
int block_port_by_kind(block *b, const graph_edge *e, int input, const char *const *kinds,
                       int n, sam_error *err);

/* The same where each port is named after its kind (b->in_names and
 * b->out_names, as create set them): a block_ops port of its own. */
int block_port_by_name(block *b, const graph_edge *e, int input, sam_error *err);

/* The stop token that closes a fiber whose next reference comes on input
 * port: S0, or S(k+1) when that reference is Sk, which is then taken (the
 * two merge, as the reference's scanners and repeaters do). 0 when no
 * reference is visible yet: the stop must wait for it. */
int block_closing_stop(block *b, int port, cycle_t now, token *stop);

/* Frees the state of b, a block that was created: its implementation's
 * destroy, or the one allocation. */
void block_destroy(block *b);

/* Readies b, built and run before, for another run on the data ctx
 * binds: its clock, statistics and what the engine noted at zero, its
 * state through its rearm, which it must have; ports, channels and the
 * list of bounded outputs (sim_engine_start) stay. */
int block_rearm(block *b, const block_ctx *ctx, sam_error *err);

/* The rearm of a block that keeps no state. */
int block_rearm_stateless(block *b, const block_ctx *ctx, sam_error *err);

/* The port of an edge into a sink whose one input carries streams of
 * kind; sinks have no outputs. */
int block_sink_port(block *b, const graph_edge *e, int input, const char *kind, sam_error *err);

/* Parameter name of the block's implementation: the node's attribute, or
 * the declared default without one; -1 with err set when it is not a whole
 * number in the declared range. */
int block_param_get(const block *b, const block_ctx *ctx, const char *name, int64_t *v,
                    sam_error *err);

/* Helpers for constructors. */
int block_attr_int(const block_ctx *ctx, const char *key, int64_t *v, sam_error *err);
const char *block_attr(const block_ctx *ctx, const char *key, sam_error *err);
int block_error(const block *b, sam_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A zeroed state of size bytes, set as b->state, or NULL with err set:
 * one allocation, as block_destroy frees a state without a destroy. */
void *block_state_new(block *b, size_t size, sam_error *err);
/* The level of tensor name that stores mode, or NULL with err set. */
const fiber_level *block_level(const block_ctx *ctx, const char *name, int mode,
                               const fibertree **tree, sam_error *err);

/* The dense limit (formats/fibertree.h) for what a block stores by a
 * declared size rather than by what it receives (a bitvector result
 * level, a dense accumulator): that of a tensor holding every bound
 * operand's entries, as storing an operand densely is limited. */
int block_dense_limit(const block_ctx *ctx, int64_t *limit, sam_error *err);

/* The engines' rules around a block's steps, shared by the cycle engine
 * and run-ahead so that both keep the same statistics: a finished sink
 * does nothing, a busy step at t occupies the block until t + ii, and a
 * block steps only when each bounded output has room. */

/* One cycle at t, every block's each cycle in the cycle engine: whether
 * the block changed. */
int block_step_at(block *b, cycle_t t);

/* Advances b from b->clock toward until, as far as what it sees of its
 * inputs is final: below b->horizon, which the engine sets (its producers'
 * clocks plus latency), and beyond while every input holds `peek` tokens.
 * It steps where the rules above allow, skips from a step that changed
 * nothing straight to the next token arrival, and stops early when a
 * bounded output's room at its cycle depends on a reader that has not
 * reached it (b->waits_in and b->waits_out say why it stopped). With
 * inputs frozen it stops after popping its fence input, unless their
 * producers' clocks let it go on. b->clock is where it stopped. */
void block_run(block *b, cycle_t until);

/* For native runs, the steps of the adapter's loop. block_next_cycle
 * moves *t past initiation intervals and full outputs and says whether
 * the block may step at *t below until; 0 leaves b->clock at where the
 * run stops. After a step at t, block_changed or block_unchanged does the
 * bookkeeping and returns the cycle of the next one to try. */
int block_next_cycle(block *b, cycle_t *t, cycle_t until);

/* Out of line, for a traced run only: the spans of block_changed. */
void block_trace_step(block *b, cycle_t blocked_since, cycle_t t, cycle_t to);

static inline cycle_t block_changed(block *b, cycle_t t)
{
    block_stats *s = &b->stats;
    if (b->trace)
        block_trace_step(b, s->blocked_since, t, t + b->ii);
    if (!s->busy)
        s->first_busy = t;
    s->busy += b->ii;
    s->last_busy = t + b->ii - 1;
    b->ready_at = t + b->ii;
    b->last_step = t;
    b->idle_from = CYCLE_NONE;
    /* The first step after a blocked stretch ends it; the block waited on
     * its output only if that step then made progress. */
    if (s->blocked_since != CYCLE_NONE) {
        s->blocked += t - s->blocked_since;
        s->blocked_since = CYCLE_NONE;
    }
    return b->ready_at;
}

/* A step at t that changed nothing: the block waits for input. */
static inline void block_idle(block *b, cycle_t t)
{
    b->idle_from = t;
    b->stats.blocked_since = CYCLE_NONE;
}

cycle_t block_unchanged(block *b, cycle_t t, cycle_t until);

/* n steps that changed the block, at t, t + ii...: block_changed n times,
 * for a native run that makes a whole run of them in one go. */
static inline cycle_t block_changed_run(block *b, cycle_t t, uint64_t n)
{
    block_changed(b, t);
    if (n > 1) {
        cycle_t last = t + (n - 1) * b->ii;
        if (b->trace)
            block_trace_step(b, CYCLE_NONE, t + b->ii, last + b->ii);
        b->stats.busy += (n - 1) * b->ii;
        b->stats.last_busy = last + b->ii - 1;
        b->ready_at = last + b->ii;
        b->last_step = last;
    }
    return b->ready_at;
}

/* The cycle before which b's inputs stay final (engine/block.c's rule) as long
 * as it takes no token: a native run may step up to it without asking. */
cycle_t block_final_until(const block *b);

/* How many of n steps, one every ii cycles from cycle t, may each push a
 * token on every output without asking again, once block_next_cycle has
 * let b step at t: the room its readers' pops so far make by each step's
 * cycle (pops are final, and room only grows). */
uint64_t block_room(const block *b, cycle_t t, uint64_t n);

/* The number of steps, one every ii cycles from t, below until. */
static inline uint64_t block_steps_below(const block *b, cycle_t t, cycle_t until)
{
    return t < until ? (until - t + b->ii - 1) / b->ii : 0;
}

/* Blocks whose every step takes the head of input 0 and does what
 * take says with it, pushing at most one token per output (arrayvals, the
 * writers): their step and a native run over the same take, which takes
 * every token visible in its cycle in one loop. */
typedef void block_take_fn(block *b, token t, cycle_t now);

/* Those of them that take runs (block_ops.takes_runs) take n tokens of
 * one at once, as n steps from cycle now on, one every ii cycles, would
 * take them one by one: the first n of run's, an entry of channel c. How
 * many they took: fewer only where one faulted (it counts). */
typedef uint64_t block_take_slice_fn(block *b, const channel *c, const channel_entry *run,
                                     uint64_t n, cycle_t now);

/* The first token of input p's head entry, a run, taken at cycle now: out
 * of line, as a block that steps one token at a time meets a run rarely. */
token in_take_run_first(block *b, int p, cycle_t now);

static inline int block_take_step(block *b, cycle_t now, block_take_fn *take)
{
    token t;
    if (!in_peek(b, 0, now, &t))
        return 0;
    if (t.kind == CHANNEL_RUN_KIND)
        t = in_take_run_first(b, 0, now);
    else
        in_pop(b, 0, now);
    take(b, t, now);
    return 1;
}

/* block_take_visible over an input with a capacity, whose pops record
 * their cycles: a few tokens at a time, too few to pay for a span. */
static inline uint64_t block_take_bounded(block *b, cycle_t t, cycle_t until, uint64_t room,
                                          block_take_fn *take)
{
    uint64_t n = 0;
    token tok;
    for (; t < until && n < room && !b->done && !b->failed && !b->fault && in_peek(b, 0, t, &tok);
         t += b->ii, n++) {
        in_pop(b, 0, t);
        take(b, tok, t);
    }
    return n;
}

/* Steps from t on while a token is visible in each one's cycle, within
 * room steps and the run: how many. A token at the head is final, so no
 * producer's clock matters. The tokens of an unbounded input are read in
 * place and taken together at the end: no take looks at its own input. */
static inline uint64_t block_take_tokens(block *b, cycle_t t, uint64_t room, block_take_fn *take)
{
    channel *c = b->in[0].ch;
    const int r = b->in[0].reader;
    room = room < channel_unread(c, r) ? room : channel_unread(c, r);
    const channel_span s = channel_unread_span(c, r, room);
    const uint64_t step = (uint64_t)b->ii << CHANNEL_TAG_BITS;
    const cycle_t first = t;
    uint64_t n = 0, seen = channel_tag_bound(t);
    int go = !b->done && !b->failed && !b->fault;
    while (go && n < room) {
        const channel_entry *e;
        uint64_t len = channel_span_stretch(&s, n, &e), m = 0;
        for (; go && m < len && e[m].tag < seen; m++, t += b->ii, seen += step) {
            take(b, channel_entry_token(&e[m]), t);
            go = !b->done && !b->failed && !b->fault;
        }
        n += m;
        if (m < len && go)
            break;
    }
    channel_take_unbounded(c, r, n);
    channel_count_takes(c, r, first, b->ii, n);
    return n;
}

/* block_take_tokens over an input that may hold runs: slice takes a
 * run's tokens; one it does not take whole ends the call. Out of line: a
 * run is a fiber's worth of tokens, and the loop over single ones stays
 * small where it is inlined. */
uint64_t block_take_runs(block *b, cycle_t t, uint64_t room, block_take_fn *take,
                         block_take_slice_fn *slice);

/* Steps from t on while a token is visible in each one's cycle, within the
 * room the outputs have (one token each per step) and the run: how many.
 * slice, NULL for a block that takes no runs, takes a run's tokens. */
static inline uint64_t block_take_visible(block *b, cycle_t t, cycle_t until,
                                          block_take_fn *take, block_take_slice_fn *slice)
{
    const channel *c = b->in[0].ch;
    const uint64_t room = block_room(b, t, block_steps_below(b, t, until));
    if (c->capacity)
        return block_take_bounded(b, t, until, room, take);
    return slice && channel_holds_runs(c, b->in[0].reader) ? block_take_runs(b, t, room, take, slice)
                                                           : block_take_tokens(b, t, room, take);
}

/* Inline, so that each block's take is inlined into its own loop: every
 * token of an array or a writer passes here. slice as block_take_visible. */
static inline void block_take_run_slices(block *b, cycle_t until, block_take_fn *take,
                                         block_take_slice_fn *slice)
{
    cycle_t t = b->clock;
    while (block_next_cycle(b, &t, until)) {
        uint64_t n = block_take_visible(b, t, until, take, slice);
        if (n)
            t = block_changed_run(b, t, n);
        else
            t = block_take_step(b, t, take) ? block_changed(b, t) : block_unchanged(b, t, until);
    }
}

static inline void block_take_run(block *b, cycle_t until, block_take_fn *take)
{
    block_take_run_slices(b, until, take, NULL);
}

/* Blocks whose most common steps come in stretches a loop can make at
 * once (a repeat's repetitions, an ALU's pairs of values): bulk makes as
 * many of those steps from t on as it can, below until and within the
 * room block_room gives for them, and says how many; where it makes none, the
 * block's step runs. */
typedef uint64_t block_bulk_fn(block *b, cycle_t t, cycle_t until);
void block_bulk_run(block *b, cycle_t until, block_bulk_fn *bulk);

/* Blocks whose steps mostly come in stretches a loop can make at once,
 * with steps of other kinds between them too often to go back to
 * block_next_cycle for each (a fiber's end): stretch makes up to max of
 * the common steps from t on, looking at no more than the tokens visible
 * in each one's cycle, and says how many, setting *idle when it stopped
 * at a step that would change nothing (no token to take), which saves
 * asking the step; a stretch whose last step faults stops there. The
 * run makes stretches and steps one after another while each changes
 * something, the outputs have room (a step pushes at most one token on
 * each) and the inputs are final (block_final_until), and from a step
 * that changed nothing goes straight on to the next arrival. */
typedef uint64_t block_stretch_fn(block *b, cycle_t t, uint64_t max, int *idle);
void block_stretch_run(block *b, cycle_t until, block_stretch_fn *stretch);

/* Ends the statistics of a run that ended at cycle end: an open blocked
 * stretch led to no progress, and a busy one ends with the run. */
void block_close_stats(block *b, cycle_t end);

/* Tokens output port p can still take at cycle now, UINT64_MAX when it is
 * unbounded or unconnected: for a block that pushes several in a cycle. */
static inline uint64_t out_room(const block *b, int p, cycle_t now)
{
    return b->out[p].ch ? channel_room(b->out[p].ch, now) : UINT64_MAX;
}

#endif
