/* intersect, two-finger (SAM-BLOCKS.md 5.9): the coordinates that every
 * side holds, with each side's reference. Sides, ports and the cycle
 * around the comparison are joiner.h's.
 *
 * Graphs may join more than two tensors in one node (tensor3_website_expr):
 * every side behind the largest head advances, which for two sides is
 * exactly the reference's Intersect2.
 *
 * An N (the empty fiber of a tensor a union found missing) meeting
 * coordinates gives N, as in the reference. Meeting a stop token, i.e. an
 * empty fiber on another side, the reference fails an assertion (SAM-BLOCKS.md
 * 8.4); samsim drops the N, since an empty fiber intersected with anything
 * is empty, and the stop tokens then meet as usual.
 *
 * "skip" is the same intersecter with coordinate skipping (SAM-BLOCKS.md
 * 6, the SAM paper's section 4.2): each side has a skip output, which the
 * builder wires back to the compressed scanner producing that side's
 * streams (builder/feedback.h; sides fed otherwise just go without). When a
 * side falls behind, its skip output names the head it must reach, the
 * least coordinate the intersection can still use, and the scanner jumps
 * there; when the other side's fiber has ended, it asks the scanner to
 * close its fiber. Each fiber of a side ends on the skip stream with one
 * stop token, sent when the side passes its stop token or earlier as that
 * request to close: this keeps the skip stream in step with the scanner's
 * fibers (the protocol is in blocks/fiberlookup_compressed.c). The
 * reference instead sends a stop token only when it differs from the
 * last skip sent, so two fibers in a row that need no coordinate skip
 * share one stop token and its fiber count falls behind for good (after
 * which every skip is taken for a late one); samsim does not copy that.
 * A coordinate is asked for only when it is beyond the last one asked for
 * in the fiber. Skipping never changes what the intersecter sees of the
 * coordinates it can match, so it never changes the result, only the
 * cycles spent on the others. */
#include "blocks.h"
#include "joiner.h"

static void skip_send(block *b, const joiner *j, int k, cycle_t now, token t)
{
    int port = joiner_skip_port(j, k);
    if (port >= 0)
        out_push(b, port, now, t);
}

/* Side k passes its head, a stop token: the fiber ends on the skip
 * stream too, unless a request to close ended it already. */
static void skip_end_fiber(block *b, joiner *j, int k, cycle_t now)
{
    if (!j->closed[k])
        skip_send(b, j, k, now, j->crd[k]);
    j->closed[k] = 0;
    j->asked[k] = -1;
}

/* Side k falls behind head `to` of another side. */
static void skip_behind(block *b, joiner *j, int k, token to, cycle_t now)
{
    token at = j->crd[k];
    if (token_is_stop(at)) {
        skip_end_fiber(b, j, k, now);
    } else if (at.kind != TOKEN_CRD) {
        return;
    } else if (to.kind == TOKEN_CRD && to.i > j->asked[k]) {
        skip_send(b, j, k, now, to);
        j->asked[k] = to.i;
    } else if (token_is_stop(to) && !j->closed[k]) {
        skip_send(b, j, k, now, to);
        j->closed[k] = 1;
    }
}

/* Coordinates before stop tokens, lower levels first. */
static int before(token a, token b)
{
    if (a.kind != b.kind)
        return a.kind == TOKEN_CRD;
    return a.kind == TOKEN_CRD ? a.i < b.i : a.level < b.level;
}

static void meet_empty(block *b, joiner *j, cycle_t now)
{
    int stops = 0;
    for (int k = 0; k < j->n; k++)
        stops += token_is_stop(j->crd[k]);
    if (stops) {
        for (int k = 0; k < j->n; k++)
            if (j->crd[k].kind == TOKEN_EMPTY)
                joiner_advance(b, j, k, now);
        return;
    }
    token n = token_empty(), refs[JOINER_MAX_SIDES];
    for (int k = 0; k < j->n; k++) {
        refs[k] = n;
        joiner_advance(b, j, k, now);
    }
    joiner_emit(b, j, now, n, refs);
}

/* One comparison of the registers: all equal is a match, else every side
 * behind the largest head advances. */
static void compare(block *b, joiner *j, cycle_t now)
{
    int same = 1;
    token max = j->crd[0];
    for (int k = 1; k < j->n; k++) {
        same &= token_equal(j->crd[k], j->crd[0]);
        if (before(max, j->crd[k]))
            max = j->crd[k];
    }
    if (same) {
        joiner_emit(b, j, now, max, j->ref);
        for (int k = 0; k < j->n; k++) {
            if (j->skips && token_is_stop(max))
                skip_end_fiber(b, j, k, now);
            joiner_advance(b, j, k, now);
        }
        return;
    }
    for (int k = 0; k < j->n; k++)
        if (before(j->crd[k], max)) {
            if (j->skips)
                skip_behind(b, j, k, max, now);
            joiner_advance(b, j, k, now);
        }
}

/* The rule: an N is met before anything is compared, as it holds no
 * coordinate to compare. */
static void meet(block *b, joiner *j, cycle_t now)
{
    for (int k = 0; k < j->n; k++)
        if (j->crd[k].kind == TOKEN_EMPTY) {
            meet_empty(b, j, now);
            return;
        }
    compare(b, j, now);
}

/* Coordinates and stop tokens on two sides, the case that takes nearly
 * every cycle of a product, decided without the general loops: the same
 * rule as compare() for n = 2. */
static int plain(token t)
{
    return t.kind == TOKEN_CRD || t.kind == TOKEN_STOP;
}

static int two_sided(block *b, joiner *j, cycle_t now)
{
    if (!joiner_ready(b, j, now))
        return 0;
    token a = j->crd[0], c = j->crd[1];
    if (token_equal(a, c)) {
        joiner_emit(b, j, now, a, j->ref);
        if (j->skips && token_is_stop(a)) {
            skip_end_fiber(b, j, 0, now);
            skip_end_fiber(b, j, 1, now);
        }
        joiner_advance(b, j, 0, now);
        joiner_advance(b, j, 1, now);
    } else {
        int k = before(a, c) ? 0 : 1;
        if (j->skips)
            skip_behind(b, j, k, k ? a : c, now);
        joiner_advance(b, j, k, now);
    }
    return 1;
}

static int intersect_step(block *b, cycle_t now)
{
    joiner *j = b->state;
    if (j->n == 2 && j->primed && plain(j->crd[0]) && plain(j->crd[1]))
        return two_sided(b, j, now);
    return joiner_step(b, now, meet);
}

/* Whether input port p's head is visible at t. */
static inline int head_visible(const block *b, int p, cycle_t t)
{
    return channel_sees(b->in[p].ch, b->in[p].reader, t, 0);
}

/* advance_side over inputs with a capacity, whose pops record their
 * cycles: the heads read in place, the last ref alone made a token. */
static uint64_t advance_side_bounded(block *b, joiner *j, int k, cycle_t t, cycle_t until)
{
    const token other = j->crd[1 - k];
    channel *cc = b->in[2 * k].ch, *rc = b->in[2 * k + 1].ch;
    const int cr = b->in[2 * k].reader, rr = b->in[2 * k + 1].reader;
    const channel_entry *r = NULL;
    uint64_t n = 0;
    token cur = j->crd[k];
    for (; t < until && plain(cur) && before(cur, other); t += b->ii, n++) {
        if (!channel_unread(cc, cr) || !channel_unread(rc, rr))
            break;
        const channel_entry *c = channel_unread_entry(cc, cr, 0);
        r = channel_unread_entry(rc, rr, 0);
        if (channel_entry_visible(c) > t || channel_entry_visible(r) > t)
            break;
        cur = channel_entry_token(c);
        if (channel_pop(cc, cr, t) || channel_pop(rc, rr, t))
            b->failed = 1;
    }
    if (n) {
        j->crd[k] = cur;
        j->ref[k] = channel_entry_token(r);
    }
    return n;
}

/* Steps from t on in which side k, behind the other, advances, and
 * nothing else: most cycles of a product, where a sparse side waits while
 * the other walks past what it lacks. The other side's next tokens, which
 * every step needs visible, stay so once they are; so does the room of the
 * outputs, which these steps leave alone. No skips. The number of steps
 * made. */
static uint64_t advance_side(block *b, joiner *j, int k, cycle_t t, cycle_t until)
{
    int o = 1 - k;
    if (!head_visible(b, 2 * o, t) || !head_visible(b, 2 * o + 1, t))
        return 0;
    const token other = j->crd[o];
    channel *cc = b->in[2 * k].ch, *rc = b->in[2 * k + 1].ch;
    if (cc->capacity || rc->capacity)
        return advance_side_bounded(b, j, k, t, until);
    /* Over the unread tokens in place: every cycle of a product passes
     * here. Only the last ref taken is needed, but every step needs the
     * one it takes visible. */
    const int cr = b->in[2 * k].reader, rr = b->in[2 * k + 1].reader;
    const uint64_t ii = b->ii, cn = channel_unread(cc, cr), rn = channel_unread(rc, rr);
    const cycle_t first = t;
    const uint64_t steps = cn < rn ? cn : rn;
    if (!steps)
        return 0;
    uint64_t n = 0;
    token cur = j->crd[k];
    if (cur.kind == TOKEN_CRD && (other.kind == TOKEN_CRD || other.kind == TOKEN_STOP) && t < until) {
        /* A coordinate is behind a smaller one's or any stop: before(),
         * with one comparison a step, over stretches that wrap in neither
         * ring. */
        const int64_t bound = other.kind == TOKEN_CRD ? other.i : INT64_MAX;
        uint64_t last = (until - t + ii - 1) / ii;
        last = last < steps ? last : steps;
        int behind = cur.i < bound;
        while (behind && n < last) {
            const channel_entry *c, *r;
            uint64_t len = channel_unread_stretch(cc, cr, n, last, &c);
            uint64_t rlen = channel_unread_stretch(rc, rr, n, last, &r);
            len = len < rlen ? len : rlen;
            uint64_t m = 0, seen = channel_tag_bound(t), step = (uint64_t)ii << CHANNEL_TAG_BITS;
            for (; m < len; m++, t += ii, seen += step) {
                if (c[m].tag >= seen || r[m].tag >= seen)
                    break;
                if (!channel_entry_is_crd(&c[m]) || c[m].payload >= bound) {
                    m++, t += ii;
                    behind = 0;
                    break;
                }
            }
            if (m)
                cur = channel_entry_token(&c[m - 1]);
            n += m;
            if (m < len && behind)
                break;
        }
    }
    for (; n < steps && t < until && plain(cur) && before(cur, other); t += ii, n++) {
        const channel_entry *c = channel_unread_entry(cc, cr, n);
        if (channel_entry_visible(c) > t || channel_entry_visible(channel_unread_entry(rc, rr, n)) > t)
            break;
        cur = channel_entry_token(c);
    }
    if (n) {
        j->crd[k] = cur;
        j->ref[k] = channel_entry_token(channel_unread_entry(rc, rr, n - 1));
        channel_take_unbounded(cc, cr, n);
        channel_take_unbounded(rc, rr, n);
        channel_count_takes(cc, cr, first, b->ii, n);
        channel_count_takes(rc, rr, first, b->ii, n);
    }
    return n;
}

/* The step at t in which equal heads (two coordinates, or two stop
 * tokens) meet, as two_sided makes it, when its inputs allow, room at t
 * known: whether it was made. No skips. */
static int match(block *b, joiner *j, cycle_t t, cycle_t until)
{
    if (t >= until || !joiner_ready(b, j, t))
        return 0;
    joiner_emit(b, j, t, j->crd[0], j->ref);
    joiner_advance(b, j, 0, t);
    joiner_advance(b, j, 1, t);
    return 1;
}

/* Runs of advances and matches from t, as long as both heads are
 * coordinates or stop tokens: the cycle of the next step. Every step,
 * an advance too, needs room on each output: the room found at t lasts
 * until a match pushes, so with bounded outputs the run ends there and
 * block_next_cycle decides the next step. */
static cycle_t advance_run(block *b, joiner *j, cycle_t t, cycle_t until)
{
    cycle_t first = t;
    uint64_t total = 0, n;
    while (plain(j->crd[0]) && plain(j->crd[1])) {
        int meets = token_equal(j->crd[0], j->crd[1]);
        if (meets)
            n = match(b, j, t, until);
        else
            n = advance_side(b, j, before(j->crd[0], j->crd[1]) ? 0 : 1, t, until);
        total += n;
        t += n * b->ii;
        if (!n || (meets && b->nbounded))
            break;
    }
    return total ? block_changed_run(b, first, total) : first;
}

/* The native run: runs of advances and matches in one go, the step
 * elsewhere. */
static void intersect_run(block *b, cycle_t until)
{
    joiner *j = b->state;
    int fast = j->n == 2 && !j->skips;
    cycle_t t = b->clock;
    while (block_next_cycle(b, &t, until)) {
        cycle_t next = fast && j->primed ? advance_run(b, j, t, until) : t;
        if (next != t)
            t = next;
        else
            t = intersect_step(b, t) ? block_changed(b, t) : block_unchanged(b, t, until);
    }
}

const block_ops intersect_ops = {
    .type = "intersect",
    .impl = "twofinger",
    .about = "coordinates common to every input, one comparison per cycle",
    .create = joiner_create,
    .rearm = joiner_rearm,
    .port = joiner_port,
    .step = intersect_step,
    .run = intersect_run,
    .peek = 1,
};

/* Whether every head register holds a coordinate, a stop token or N:
 * then a step is a comparison, made once every side's pair is visible. */
static int comparing(const joiner *j)
{
    if (!j->primed)
        return 0;
    for (int k = 0; k < j->n; k++)
        if (!plain(j->crd[k]) && j->crd[k].kind != TOKEN_EMPTY)
            return 0;
    return 1;
}

/* Up to max steps from t on that compare the registers, as
 * intersect_step makes them, skips and all: all but the first fill and
 * the closing D. A comparison needs every side's next pair visible, final
 * once it is, and pushes at most one token on each output. The number of
 * steps made; *idle set when the next would find a pair missing. */
static uint64_t skip_comparisons(block *b, cycle_t t, uint64_t max, int *idle)
{
    joiner *j = b->state;
    uint64_t n = 0;
    for (; n < max && comparing(j); t += b->ii, n++)
        if (!intersect_step(b, t)) {
            *idle = 1;
            break;
        }
    return n;
}

/* The native run of the skipping intersecter: its comparisons in
 * stretches, the step elsewhere. */
static void skip_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, skip_comparisons);
}

static int skip_create(block *b, const block_ctx *ctx, sam_error *err)
{
    if (joiner_create(b, ctx, err))
        return -1;
    joiner_add_skips(b, b->state);
    return 0;
}

/* A side's skips go back to the producer of its coordinates, which must
 * produce its references too: a skip drops both together. */
static int skip_feedback_out(const block *b, int in)
{
    const joiner *j = b->state;
    const channel *crd = b->in[in].ch, *ref = in % 2 ? NULL : b->in[in + 1].ch;
    if (!ref || crd->producer != ref->producer)
        return -1;
    return joiner_skip_port(j, in / 2);
}

const block_ops intersect_skip_ops = {
    .type = "intersect",
    .impl = "skip",
    .about = "coordinates common to every input, telling each input's scanner where to skip to",
    .create = skip_create,
    .rearm = joiner_rearm,
    .port = joiner_port,
    .step = intersect_step,
    .run = skip_run,
    .peek = 1,
    .feedback_out = skip_feedback_out,
};
