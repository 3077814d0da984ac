/* serialize (SAM paper section 4.4, the serializer): joins the N lane
 * streams a parallelizer's lanes produced (lanes=N, input edges lane=L)
 * back into the stream the unparallelized graph would have made. The
 * stream lies depth=d levels below the parallelized one (d = 0: that
 * level's own coordinates). Element e of each parallelized fiber was
 * dealt to lane e mod N, so its unit, the tokens it produced, comes from
 * that lane: for d = 0 one token; for d >= 1 the tokens up to a stop
 * token of level d-1 (the lane has more units) or of level >= d (the
 * lane's close, ending its last unit). At a unit's start a close is an
 * empty last unit where the lane has promised one (its last unit ended in
 * S(d-1)) or where fewer than d of the fibers it closes never began
 * (engine/token.h's hollow): the lane was dealt the element, whose fiber
 * a level down is empty when d-1 of them never began. A lane dealt
 * nothing closes d or more never begun, and has no unit left. So has a
 * lane that gives D while the fiber is open: one dealt no element at all
 * may close no fiber (a sparse accumulator's result of nothing is D
 * alone). Units go out in order with S(d-1) between them, then the close
 * once every lane has closed; D once every lane has given D.
 *
 * A lane may hold fewer units than it was dealt elements: a sparse
 * accumulator drops the rows that sum to nothing, unseen by the lanes'
 * streams. The units then go out in turn among the lanes that have units
 * left, a lane without one passed over: the serializers of every level
 * keep the same order of the units, and the result, made of their
 * streams together, holds the same points (its fibers need not come in
 * coordinate order; results are put in order when collected).
 *
 * A lane may bring a value stream beside the coordinates it serializes
 * (input edges of type val; output 1): each value follows its
 * coordinate, and with value_stops=1 (the default) the value stream's
 * stop tokens follow the coordinates' stops; an accumulator's values
 * have none (value_stops=0), and then a stop waits for no value and
 * values are taken as they come into a queue per lane, since the
 * accumulator may send values ahead of their coordinates.
 *
 * Timing: one token out a cycle (with its value); the cycle that takes a
 * lane's close emits the separator or, after the last unit, nothing until
 * every lane's close is taken, all in one cycle once they are there. */
#include <stdlib.h>
#include <string.h>

#include "../common/ring.h"
#include "blocks.h"
#include "lanes.h"

typedef struct serializer {
    int lanes, depth;
    int values;             /* inputs lanes..2*lanes-1 bring values */
    int value_stops;        /* the values have the coordinates' stops */
    int cur;                /* the lane of the next unit */
    int in_unit;            /* a token of the current unit has been taken */
    int any;                /* a unit of this fiber has gone out */
    int finishing;          /* no unit is left: closes are taken */
    int owed;               /* the last unit ended in its lane's close,
                               whose separator is owed if a unit follows */
    uint8_t closed[LANES_MAX];
    uint8_t promised[LANES_MAX];    /* its last unit ended in S(d-1) */
    ring queued[LANES_MAX];     /* value_stops=0: values taken ahead */
    /* The fiber's close, for when all lanes give it: a lane's that closed
     * a unit (the lanes without one close an empty fiber), else any. */
    token close;
    token separator;        /* the one owed */
} serializer;

static int is_close(const serializer *s, token t)
{
    return token_is_stop(t) && t.level >= s->depth;
}

/* Whether lane's value beside its head t is there, if one is due. */
static int value_ready(block *b, const serializer *s, int lane, cycle_t now, token t)
{
    token v;
    int due = s->values && (!token_is_stop(t) || s->value_stops);
    return !due || ring_count(&s->queued[lane]) || in_peek(b, s->lanes + lane, now, &v);
}

/* value_stops=0: the values every lane shows now, queued; 1 when any. */
static int queue_values(block *b, serializer *s, cycle_t now)
{
    int any = 0;
    token v;
    for (int lane = 0; s->values && !s->value_stops && lane < s->lanes; lane++)
        while (in_peek(b, s->lanes + lane, now, &v) && !token_is_stop(v) && !token_is_done(v)) {
            token *slot = ring_push(&s->queued[lane]);
            if (!slot) {
                b->failed = 1;
                return 1;
            }
            *slot = v;
            in_pop(b, s->lanes + lane, now);
            any = 1;
        }
    return any;
}

/* Takes lane's head t, which goes out as `as` (a stop may go out as
 * another), and the value beside it: a value beside an element, a stop
 * beside a stop where the values have stops. Call after value_ready. */
static void take(block *b, serializer *s, int lane, cycle_t now, token t, token as, int emit)
{
    token v;
    in_pop(b, lane, now);
    if (emit)
        out_push(b, 0, now, as);
    if (!s->values || (token_is_stop(t) && !s->value_stops))
        return;
    ring *q = &s->queued[lane];
    if (ring_count(q)) {
        v = *(token *)ring_head(q);
        ring_drop(q);
        if (emit)
            out_push(b, 1, now, v);
        return;
    }
    in_peek(b, s->lanes + lane, now, &v);
    if (token_is_stop(t) != token_is_stop(v) || token_is_done(t) != token_is_done(v)) {
        b->fault = "the coordinate and value streams do not match";
        return;
    }
    in_pop(b, s->lanes + lane, now);
    if (emit)
        out_push(b, 1, now, token_is_stop(t) ? as : v);
}

/* Whether lane, at the start of a unit with head t, has a unit: t is
 * not a close, or a close that ends an empty unit. D is neither: a lane
 * dealt no element at all may close no fiber (a sparse accumulator's
 * stream of nothing is D alone). */
static int has_unit(const serializer *s, int lane, token t)
{
    if (token_is_done(t))
        return 0;
    return !is_close(s, t) || (s->depth > 0 && (s->promised[lane] || t.hollow < s->depth));
}

/* The separator S(d-1) a lane's close t makes between units, closing as
 * many fibers never begun as t does below the parallelized level. */
static token separator_of(const serializer *s, token t)
{
    token sep = token_stop(s->depth - 1);
    sep.hollow = (uint8_t)(t.hollow < s->depth - 1 ? t.hollow : s->depth - 1);
    return sep;
}

static void next_unit(serializer *s)
{
    s->cur = (s->cur + 1) % s->lanes;
    s->in_unit = 0;
    s->any = 1;
}

/* D from every lane, at the start of a fiber: taken, 1. 0 while a lane's
 * head is not there; -1 when a lane goes on, whose units the lanes
 * giving D have none of. */
static int end_stream(block *b, serializer *s, cycle_t now)
{
    token t;
    int on = 0;
    for (int lane = 0; lane < s->lanes; lane++) {
        if (!in_peek(b, lane, now, &t) || !value_ready(b, s, lane, now, t))
            return 0;
        on |= !token_is_done(t);
    }
    if (on)
        return -1;
    for (int lane = 0; lane < s->lanes; lane++)
        take(b, s, lane, now, token_done(), token_done(), lane == 0);
    return 1;
}

static int serialize_tokens(block *b, serializer *s, cycle_t now);

/* The first lane in turn that is not closed, if its head is there and
 * starts a unit; else -1. */
static int lane_resuming(block *b, const serializer *s, cycle_t now)
{
    token t;
    for (int k = 0; k < s->lanes; k++) {
        int lane = (s->cur + k) % s->lanes;
        if (s->closed[lane])
            continue;
        return in_peek(b, lane, now, &t) && value_ready(b, s, lane, now, t) &&
                       has_unit(s, lane, t)
                   ? lane
                   : -1;
    }
    return -1;
}

/* A lane has a unit after all, the lanes before it in turn closed: the
 * separator owed goes out in this cycle, else its unit starts. */
static int resume(block *b, serializer *s, int lane, cycle_t now)
{
    s->finishing = 0;
    s->cur = lane;
    if (!s->owed)
        return serialize_tokens(b, s, now);
    s->owed = 0;
    out_push(b, 0, now, s->separator);
    if (s->values && s->value_stops)
        out_push(b, 1, now, s->separator);
    return 1;
}

/* No unit is left, as far as the lanes' heads show: the lanes' closes are
 * taken as they come, and the fiber's close goes out once all are in. A
 * lane that shows a unit goes on when its turn comes. */
static int finish(block *b, serializer *s, cycle_t now)
{
    int taken = 0, open = 0;
    token t;
    for (int lane = 0; lane < s->lanes; lane++) {
        if (s->closed[lane])
            continue;
        if (!in_peek(b, lane, now, &t) || !value_ready(b, s, lane, now, t) ||
            has_unit(s, lane, t)) {
            open++;
            continue;
        }
        if (token_is_done(t)) {
            s->closed[lane] = 1;    /* no fiber: its D waits for end_stream */
            continue;
        }
        take(b, s, lane, now, t, t, 0);
        if (!s->any || !token_is_stop(s->close))
            s->close = t;
        s->closed[lane] = 1;
        taken++;
    }
    int lane = open ? lane_resuming(b, s, now) : -1;
    if (lane >= 0)
        return resume(b, s, lane, now) | (taken > 0);
    if (open)
        return taken > 0;
    out_push(b, 0, now, s->close);
    if (s->values && s->value_stops)
        out_push(b, 1, now, s->close);
    for (int lane = 0; lane < s->lanes; lane++)
        s->closed[lane] = s->promised[lane] = 0;
    s->cur = s->in_unit = s->any = s->finishing = s->owed = 0;
    s->close = token_empty();
    return 1;
}

/* The current lane's close, ending its unit: a separator when the next
 * lane has a unit to come, else the start of the finish. */
static int lane_closes(block *b, serializer *s, cycle_t now, token t)
{
    int next = (s->cur + 1) % s->lanes;
    token head = token_empty();
    if ((!s->closed[next] && next != s->cur && !in_peek(b, next, now, &head)) ||
        !value_ready(b, s, s->cur, now, t))
        return 0;
    int last = s->closed[next] || next == s->cur || !has_unit(s, next, head);
    take(b, s, s->cur, now, t, separator_of(s, t), !last);
    s->closed[s->cur] = 1;
    s->close = t;
    s->owed = last;
    s->separator = separator_of(s, t);
    next_unit(s);
    if (last) {
        s->finishing = 1;
        finish(b, s, now);
    }
    return 1;
}

/* A cycle: queued values, then the coordinates' next token. */
static int serialize_step(block *b, cycle_t now)
{
    serializer *s = b->state;
    return queue_values(b, s, now) | serialize_tokens(b, s, now);
}

static int serialize_tokens(block *b, serializer *s, cycle_t now)
{
    if (s->finishing)
        return finish(b, s, now);
    token t;
    if (!s->closed[s->cur] && !in_peek(b, s->cur, now, &t))
        return 0;
    int ended = 0;
    if (!s->closed[s->cur] && token_is_done(t) && !s->in_unit && !s->any &&
        (ended = end_stream(b, s, now)) >= 0)
        return ended;
    if (s->closed[s->cur] || (!s->in_unit && !has_unit(s, s->cur, t))) {
        s->finishing = 1;
        return finish(b, s, now);
    }
    if (token_is_done(t)) {
        b->fault = "D inside a unit";
        return 1;
    }
    if (is_close(s, t))
        return lane_closes(b, s, now, t);
    if (!value_ready(b, s, s->cur, now, t))
        return 0;
    take(b, s, s->cur, now, t, t, 1);
    s->in_unit = 1;
    int separator = token_is_stop(t) && t.level == s->depth - 1;
    s->promised[s->cur] = (uint8_t)separator;
    if (s->depth == 0 || separator)
        next_unit(s);
    return 1;
}

/* The step at now as its most common kind, an element of the current
 * lane's unit (or a stop token inside it) passed on with its value:
 * whether it was that, else nothing is done. */
static int pass_element(block *b, serializer *s, cycle_t now, int *idle)
{
    token t, v;
    int lane = s->cur;
    if (s->finishing || s->closed[lane] || (s->values && !s->value_stops))
        return 0;
    if (!in_peek(b, lane, now, &t)) {
        *idle = 1;
        return 0;
    }
    if (token_is_done(t) || is_close(s, t))
        return 0;
    if (s->values) {
        if (!in_peek(b, s->lanes + lane, now, &v)) {
            *idle = 1;
            return 0;
        }
        if (token_is_stop(t) != token_is_stop(v) || token_is_done(v))
            return 0;
    }
    take(b, s, lane, now, t, t, 1);
    s->in_unit = 1;
    int separator = token_is_stop(t) && t.level == s->depth - 1;
    s->promised[lane] = (uint8_t)separator;
    if (s->depth == 0 || separator)
        next_unit(s);
    return 1;
}

/* Up to max steps from t on, as serialize_step makes them: the elements
 * of units directly, the others through the step. The serializer runs
 * only as far as its inputs are final, so any step may be made here; each
 * pushes at most one token on each output. The number of steps made;
 * *idle set when the next would change nothing. */
static uint64_t serialize_steps(block *b, cycle_t t, uint64_t max, int *idle)
{
    serializer *s = b->state;
    uint64_t n = 0;
    for (; n < max && !b->fault && !b->failed; t += b->ii, n++)
        if (!pass_element(b, s, t, idle) && (*idle || !serialize_step(b, t))) {
            *idle = 1;
            break;
        }
    return n;
}

static void serialize_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, serialize_steps);
}

/* Whether value streams come beside coordinates: an input of type val
 * where others are not. */
static int has_values(const block_ctx *ctx)
{
    int val = 0, other = 0;
    for (int k = 0; ctx->graph && k < ctx->graph->nedges; k++) {
        const graph_edge *e = &ctx->graph->edges[k];
        if (&ctx->graph->nodes[e->dst] != ctx->node)
            continue;
        if (strcmp(e->kind, "val"))
            other = 1;
        else
            val = 1;
    }
    return val && other;
}

/* The node's lanes, depth and value stops, checked before anything is
 * allocated, so that a refused node leaves nothing behind. */
static int serialize_attrs(block *b, const block_ctx *ctx, int *lanes, int64_t *depth,
                           int64_t *stops, sam_error *err)
{
    if (lanes_count(b, ctx, lanes, err) ||
        (graph_node_attr(ctx->node, "depth") && block_attr_int(ctx, "depth", depth, err)) ||
        (graph_node_attr(ctx->node, "value_stops") &&
         block_attr_int(ctx, "value_stops", stops, err)))
        return -1;
    if (*depth < 0 || *depth > 16)
        return block_error(b, err, "depth=%lld: a stream 0 to 16 levels below the lanes'",
                           (long long)*depth);
    return 0;
}

static int serialize_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int lanes;
    int64_t depth = 0, stops = 1;
    if (serialize_attrs(b, ctx, &lanes, &depth, &stops, err))
        return -1;
    serializer *s = block_state_new(b, sizeof *s, err);
    if (!s)
        return -1;
    for (int lane = 0; lane < LANES_MAX; lane++)
        ring_init(&s->queued[lane], sizeof(token));
    s->lanes = lanes;
    s->depth = (int)depth;
    s->values = has_values(ctx);
    s->value_stops = stops != 0;
    b->nin = s->lanes * (1 + s->values);
    b->nout = 1 + s->values;
    for (int p = 0; p < b->nin; p++)
        b->in_names[p] = lanes_names[p % s->lanes];
    b->out_names[0] = "out";
    b->out_names[1] = "val";
    return 0;
}

/* The lanes, depth and value streams stay; the queues keep their memory. */
static int serialize_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    serializer *s = b->state;
    s->cur = s->in_unit = s->any = s->finishing = s->owed = 0;
    memset(s->closed, 0, sizeof s->closed);
    memset(s->promised, 0, sizeof s->promised);
    for (int lane = 0; lane < s->lanes; lane++)
        ring_clear(&s->queued[lane]);
    s->close = (token){0};
    return 0;
}

static int serialize_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    const serializer *s = b->state;
    int value = s->values && !strcmp(e->kind, "val");
    if (!input)
        return value;
    int lane = lanes_of_edge(b, e, s->lanes, err);
    return lane < 0 ? -1 : lane + value * s->lanes;
}

static void serialize_destroy(block *b)
{
    serializer *s = b->state;
    for (int lane = 0; s && lane < LANES_MAX; lane++)
        ring_free(&s->queued[lane]);
    free(s);
}

const block_ops serialize_ops = {
    .type = "serialize",
    .impl = "default",
    .about = "joins lanes back in order: element e's tokens from lane e mod N, one token a "
             "cycle",
    .create = serialize_create,
    .rearm = serialize_rearm,
    .port = serialize_port,
    .step = serialize_step,
    .run = serialize_run,
    /* It looks at lanes other than the one it takes from (the next
     * lane's head decides a separator), so it runs only as far as all
     * its inputs are final. */
    .peek = 0,
    .destroy = serialize_destroy,
};
