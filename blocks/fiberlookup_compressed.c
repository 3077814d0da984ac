/* fiberlookup, compressed level (SAM-BLOCKS.md 5.1): for each reference on
 * its input, the coordinates of that fiber and their positions, closed by
 * a stop token (scanner.h). Like the reference it advances within a fiber
 * only once the next reference is visible.
 *
 * Two implementations share this walk. "compressed" emits one coordinate a
 * cycle. "vector" emits up to `width` coordinates (with their positions)
 * in a cycle: as many as the fiber still holds and both outputs have room
 * for; stop and done tokens come exactly as from "compressed", each in a
 * cycle of its own, so the two send the same streams at different times.
 *
 * Coordinate skip (SAM-BLOCKS.md 6, the SAM paper's section 4.2): an
 * optional skip input, wired by the builder from a skipping intersecter
 * that reads this scanner's coordinates (builder/feedback.h), names the next
 * coordinate that intersecter needs. The skip stream is cut into fibers
 * by stop tokens in step with the coordinate stream: the intersecter sends
 * exactly one stop token for each stop token it reads from here, at the
 * latest when it reads it, and says nothing of a fiber before it has read
 * something of it. So the skips that follow the n-th stop token on the
 * skip input concern the fiber that follows this scanner's n-th stop
 * token, and none can concern a fiber the scanner has not begun. An
 * integer c asks for the first coordinate at or above c: the scanner jumps
 * there in the same cycle (the locator of the paper) or, when the fiber
 * holds none, closes it. A stop token that comes before this scanner's
 * own asks to close the fiber at once (the other side's fiber has ended);
 * it is used before any later skip is read. Skips about fibers already
 * closed came too late and are dropped. One skip is read a cycle.
 *
 * SAM-BLOCKS.md 8.10, the reference's skip quirk, is not reproduced: at
 * the start of a fiber the reference answers a skip no larger than the
 * last coordinate by emitting nothing and leaving its previous output in
 * place, so that token is read twice, which would corrupt the stream. A
 * skip that asks for nothing ahead is ignored here, wherever it comes. */
#include <string.h>

#include "blocks.h"
#include "scanner.h"

typedef struct compressed {
    scanner s;
    scanner_source src;
    const int64_t *seg, *crd;
    size_t nseg, ncrd;
    int64_t end;            /* the end of the open fiber in crd */
    int64_t width;          /* coordinates a cycle at most */
    uint64_t skip_fiber;    /* stop tokens read on the skip input */
    uint64_t target_fiber;  /* the fiber that target concerns */
    int64_t target;         /* the least coordinate the intersecter needs */
} compressed;

/* Whether the intersecter has asked to close the open fiber: a stop
 * token on the skip input has overtaken this scanner's own. */
static int asked_to_close(const compressed *c)
{
    return c->skip_fiber > c->s.stops;
}

/* Reads one skip token, unless a request to close waits to be used. */
static int take_skip(block *b, compressed *c, cycle_t now)
{
    token t;
    if (!b->in[SCANNER_IN_SKIP].ch || asked_to_close(c) || !in_peek(b, SCANNER_IN_SKIP, now, &t))
        return 0;
    in_pop(b, SCANNER_IN_SKIP, now);
    if (token_is_stop(t)) {
        c->skip_fiber++;
    } else if (t.kind == TOKEN_CRD && c->skip_fiber == c->s.stops &&
               (c->target_fiber != c->s.stops || t.i > c->target)) {
        c->target = t.i;
        c->target_fiber = c->s.stops;
    }
    return 1;
}

/* The first position after p whose coordinate reaches the target, or the
 * end of the fiber: the locator's lookup, a binary search. */
static int64_t seek(const compressed *c, int64_t p)
{
    int64_t lo = p + 1, hi = c->end;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (c->crd[mid] < c->target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first position from p on whose coordinate the intersecter still
 * needs, or the end of the fiber when it needs none of them. Inline with
 * the emission below: every coordinate passes here. */
static inline int64_t next_needed(const compressed *c, int64_t p)
{
    if (asked_to_close(c))
        return c->end;
    if (c->target_fiber != c->s.stops || p >= c->end || c->crd[p] >= c->target)
        return p;
    return seek(c, p);
}

/* How many positions from p go out now: up to width, within the fiber and
 * the room of both outputs (the engine steps a block only when each of its
 * outputs has room for one). */
static int64_t batch(const block *b, const compressed *c, cycle_t now, int64_t p)
{
    int64_t n = c->end - p < c->width ? c->end - p : c->width;
    uint64_t room = out_room(b, SCANNER_OUT_CRD, now), ref_room = out_room(b, SCANNER_OUT_REF, now);
    if (ref_room < room)
        room = ref_room;
    if (room < (uint64_t)n)
        n = room > 1 ? (int64_t)room : 1;
    return n;
}

/* Emits the fiber from position p on, p before its end. */
static inline void emit_from(block *b, compressed *c, cycle_t now, int64_t p)
{
    int64_t n = c->width == 1 ? 1 : batch(b, c, now, p);
    for (int64_t k = p; k < p + n; k++)
        scanner_emit(b, now, token_crd(c->crd[k]), token_crd(k));
    c->s.cur = p + n - 1;
}

/* A fiber ends at its seg bound or at the end of crd, whichever comes
 * first: the reference's rule that rescues the vector seg files. */
static void next_fiber(block *b, compressed *c, cycle_t now, token r)
{
    if (!scanner_start(b, &c->s, now, r))
        return;
    if (r.kind != TOKEN_CRD || r.i < 0 || (size_t)r.i + 1 >= c->nseg) {
        b->fault = "reference beyond the seg array";
        return;
    }
    c->end = c->seg[r.i + 1] < (int64_t)c->ncrd ? c->seg[r.i + 1] : (int64_t)c->ncrd;
    int64_t p = next_needed(c, c->seg[r.i]);
    if (p < c->end)
        emit_from(b, c, now, p);
    else
        scanner_close(b, &c->s, now);
}

static int compressed_step(block *b, cycle_t now)
{
    compressed *c = b->state;
    scanner *s = &c->s;
    int took = take_skip(b, c, now);
    token r;
    int have = in_peek(b, SCANNER_IN_REF, now, &r);
    if (s->done || s->pend_stop)
        return scanner_pending(b, s, have, now) || took;
    if (have && (s->begin || s->end_fiber)) {
        next_fiber(b, c, now, r);
        return 1;
    }
    if (s->begin || s->cur < 0)
        return took;
    int64_t p = next_needed(c, s->cur + 1);
    if (p >= c->end)
        scanner_close(b, s, now);
    else if (have)
        emit_from(b, c, now, p);
    else
        return took;
    return 1;
}

/* Whether the step at t would emit the open fiber's next coordinates (one,
 * or up to width) and nothing else, and go on so until the fiber's end: a
 * fiber under way, no skip input, and the next ref visible (it stays so:
 * only closing the fiber takes it). */
static int streams(const block *b, const compressed *c, cycle_t t)
{
    const scanner *s = &c->s;
    return s->cur >= 0 && !s->begin && !s->end_fiber && !s->pend_stop && !s->done &&
           b->nin == 1 && s->cur + 1 < c->end && in_has(b, SCANNER_IN_REF, t);
}

/* Emits the rest of the open fiber from cycle t on, one coordinate a step,
 * as far as the run may go and the outputs have room; the cycle of the
 * next step. */
static cycle_t stream(block *b, compressed *c, cycle_t t, cycle_t until)
{
    cycle_t limit = block_final_until(b);
    if (until < limit)
        limit = until;
    uint64_t n = (uint64_t)(c->end - (c->s.cur + 1)), fit = block_steps_below(b, t, limit);
    n = block_room(b, t, fit < n ? fit : n);
    int64_t p = c->s.cur + 1;
    channel *crd = b->out[SCANNER_OUT_CRD].ch, *ref = b->out[SCANNER_OUT_REF].ch;
    if ((crd && channel_push_positions(crd, t, b->ii, c->crd, p, n)) ||
        (ref && channel_push_positions(ref, t, b->ii, NULL, p, n)))
        b->failed = 1;
    c->s.cur = p + (int64_t)n - 1;
    return block_changed_run(b, t, n);
}

/* The native run: whole fibers per call where streams() holds, the step
 * elsewhere. */
static void compressed_run(block *b, cycle_t until)
{
    compressed *c = b->state;
    cycle_t t = b->clock;
    while (block_next_cycle(b, &t, until))
        if (streams(b, c, t))
            t = stream(b, c, t, until);
        else
            t = compressed_step(b, t) ? block_changed(b, t) : block_unchanged(b, t, until);
}

/* Up to max steps of the vector scanner from t on that each emit the
 * open fiber's next width coordinates (fewer at its end), where streams()
 * holds; its outputs are unbounded (vector_ops.adapter_when_bounded). The
 * number of steps made. */
static uint64_t vector_batches(block *b, cycle_t t, uint64_t max, int *idle)
{
    compressed *c = b->state;
    (void)idle;     /* never: a step with the fiber streaming always emits */
    if (!streams(b, c, t))
        return 0;
    channel *crd = b->out[SCANNER_OUT_CRD].ch, *ref = b->out[SCANNER_OUT_REF].ch;
    int64_t p = c->s.cur + 1;
    uint64_t n = 0;
    int failed = 0;
    for (; n < max && p < c->end; n++, t += b->ii)
        for (int64_t to = c->end - p < c->width ? c->end : p + c->width; p < to; p++) {
            if (crd)
                failed |= channel_push(crd, t, token_crd(c->crd[p]));
            if (ref)
                failed |= channel_push(ref, t, token_crd(p));
        }
    c->s.cur = p - 1;
    b->failed |= failed != 0;
    return n;
}

/* The vector scanner's native run: a fiber's batches in one loop, the
 * step elsewhere. */
static void vector_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, vector_batches);
}

static int compressed_serves(const graph_node *n)
{
    return blocks_attr_is(n, "format", "compressed");
}

/* A scanner of level l, at the start of its stream. */
static compressed compressed_start(const scanner_source *src, const fiber_level *l,
                                   int64_t width)
{
    return (compressed){.s = SCANNER_START, .src = *src, .seg = l->seg, .crd = l->crd,
                        .nseg = l->nseg, .ncrd = l->ncrd, .width = width,
                        .target_fiber = UINT64_MAX};
}

static int compressed_make(block *b, const block_ctx *ctx, int64_t width, sam_error *err)
{
    const fibertree *ft;
    scanner_source src;
    const fiber_level *l = scanner_create(b, ctx, 's', &src, &ft, err);
    if (!l)
        return -1;
    compressed *c = block_state_new(b, sizeof *c, err);
    if (!c)
        return -1;
    *c = compressed_start(&src, l, width);
    return 0;
}

static int compressed_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    compressed *c = b->state;
    const fibertree *ft;
    const fiber_level *l = scanner_level(b, ctx, &c->src, &ft, err);
    if (!l)
        return -1;
    *c = compressed_start(&c->src, l, c->width);
    return 0;
}

static int compressed_create(block *b, const block_ctx *ctx, sam_error *err)
{
    return compressed_make(b, ctx, 1, err);
}

static const param vector_params[] = {
    {"width", "coordinates", "coordinates per cycle", 4, 1, 65536, 1, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static int vector_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t width;
    if (block_param_get(b, ctx, "width", &width, err))
        return -1;
    return compressed_make(b, ctx, width, err);
}

/* Skips answer the coordinates this scanner sends. */
static int compressed_feedback_in(const block *b, int out)
{
    (void)b;
    return out == SCANNER_OUT_CRD ? SCANNER_IN_SKIP : -1;
}

const block_ops fiberlookup_compressed_ops = {
    .type = "fiberlookup",
    .impl = "compressed",
    .about = "coordinates and positions of a compressed level, one per cycle",
    .serves = compressed_serves,
    .create = compressed_create,
    .rearm = compressed_rearm,
    .port = scanner_port,
    .step = compressed_step,
    .run = compressed_run,
    .peek = 2,
    .feedback_in = compressed_feedback_in,
};

const block_ops fiberlookup_vector_ops = {
    .type = "fiberlookup",
    .impl = "vector",
    .about = "coordinates and positions of a compressed level, several per cycle",
    .params = vector_params,
    .wide = 1,
    .serves = compressed_serves,
    .create = vector_create,
    .rearm = compressed_rearm,
    .port = scanner_port,
    .step = compressed_step,
    .run = vector_run,
    .peek = 2,
    /* A batch fits the room its outputs have exactly at its cycle, which
     * the run does not ask for: with bounded channels the adapter steps. */
    .adapter_when_bounded = 1,
    .feedback_in = compressed_feedback_in,
};
