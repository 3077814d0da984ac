/* union (SAM-BLOCKS.md 5.10): the coordinates that any side holds, in
 * order, with each side's reference, or N on the sides that lack the
 * coordinate. Sides, ports and the cycle around the comparison are
 * joiner.h's.
 *
 * Graphs may join more than two tensors in one node (mat_elemadd3): the
 * smallest head is emitted and every side holding it advances, which for
 * two sides is exactly the reference's Union2. An N head (the fiber of a
 * tensor missing one level up) is dropped rather than emitted, see merge(). */
#include "blocks.h"
#include "joiner.h"

/* Coordinates first, then stop tokens by level. */
static int rank(token t)
{
    return t.kind == TOKEN_CRD ? 0 : 1;
}

static int before(token a, token b)
{
    if (rank(a) != rank(b))
        return rank(a) < rank(b);
    return a.kind == TOKEN_CRD ? a.i < b.i : a.kind == TOKEN_STOP && a.level < b.level;
}

/* Emits the smallest head with the refs of the sides that hold it. An N
 * head is the fiber of a tensor absent one level up: it holds no
 * coordinate, so it is passed over in a cycle of its own. (The reference
 * emits it as an element, which a writer stores as a coordinate 0 with
 * value 0; it goes unnoticed only because the SAM convention's operands
 * all have the same outer coordinates.) */
static void merge(block *b, joiner *j, cycle_t now)
{
    for (int k = 0; k < j->n; k++)
        if (j->crd[k].kind == TOKEN_EMPTY) {
            joiner_advance(b, j, k, now);
            return;
        }
    token min = j->crd[0], refs[JOINER_MAX_SIDES];
    for (int k = 1; k < j->n; k++)
        if (before(j->crd[k], min))
            min = j->crd[k];
    int take[JOINER_MAX_SIDES];
    for (int k = 0; k < j->n; k++) {
        take[k] = token_equal(j->crd[k], min);
        refs[k] = take[k] ? j->ref[k] : token_empty();
    }
    joiner_emit(b, j, now, min, refs);
    for (int k = 0; k < j->n; k++)
        if (take[k])
            joiner_advance(b, j, k, now);
}

static int union_step(block *b, cycle_t now)
{
    return joiner_step(b, now, merge);
}

static int plain(token t)
{
    return t.kind == TOKEN_CRD || t.kind == TOKEN_STOP;
}

/* A side as union_merges works on it: its channels and head registers in
 * locals, since the pushes could alias the block for all the compiler
 * knows. */
typedef struct side {
    channel *crd, *ref, *out;
    int crd_reader, ref_reader;
    token c, r;
} side;

static side side_of(const block *b, const joiner *j, int k)
{
    return (side){b->in[2 * k].ch, b->in[2 * k + 1].ch, b->out[1 + k].ch,
                  b->in[2 * k].reader, b->in[2 * k + 1].reader, j->crd[k], j->ref[k]};
}

/* Whether the side's next pair is visible at t. */
static inline int side_ready(const side *s, cycle_t t)
{
    return channel_sees(s->crd, s->crd_reader, t, 0) && channel_sees(s->ref, s->ref_reader, t, 0);
}

/* Sends the side's ref for coordinate min, or N when it lacks it; whether
 * the side holds min. */
static inline int side_emit(side *s, token min, cycle_t t, int *failed)
{
    int take = token_equal(s->c, min);
    if (s->out)
        *failed |= channel_push(s->out, t, take ? s->r : token_empty());
    return take;
}

/* Refills the registers from the next pair, visible at t; whether they
 * hold a coordinate or a stop token. */
static inline int side_advance(side *s, cycle_t t, int *failed)
{
    channel_peek(s->crd, s->crd_reader, t, &s->c);
    channel_peek(s->ref, s->ref_reader, t, &s->r);
    *failed |= channel_pop(s->crd, s->crd_reader, t) | channel_pop(s->ref, s->ref_reader, t);
    return plain(s->c);
}

/* Up to max steps from t on that merge registers holding coordinates and
 * stop tokens, as merge() makes them: all but the first fill, N and D. A
 * step needs every side's next pair visible, and a pair once visible stays
 * so: only the sides a step advanced are looked at again. Every step
 * pushes one token on each output. The number of steps made; *idle set
 * when the next would find a pair missing. */
static uint64_t union_merges(block *b, cycle_t t, uint64_t max, int *idle)
{
    joiner *j = b->state;
    const int sides = j->n;
    side sd[JOINER_MAX_SIDES];
    for (int k = 0; k < sides; k++) {
        if (!j->primed || !plain(j->crd[k]))
            return 0;
        sd[k] = side_of(b, j, k);
    }
    channel *out = b->out[0].ch;
    uint64_t n = 0;
    int waiting = (1 << sides) - 1, failed = 0;     /* sides whose pair is yet to be seen */
    for (int go = 1; go && n < max; t += b->ii, n++) {
        for (int k = 0; k < sides && go; k++)
            go = !(waiting >> k & 1) || side_ready(&sd[k], t);
        if (!go) {
            *idle = 1;
            break;
        }
        token min = sd[0].c;
        for (int k = 1; k < sides; k++)
            if (before(sd[k].c, min))
                min = sd[k].c;
        if (out)
            failed |= channel_push(out, t, min);
        waiting = 0;
        for (int k = 0; k < sides; k++)
            waiting |= side_emit(&sd[k], min, t, &failed) << k;
        for (int k = 0; k < sides; k++)
            if (waiting >> k & 1)
                go &= side_advance(&sd[k], t, &failed);
    }
    for (int k = 0; k < sides; k++) {
        j->crd[k] = sd[k].c;
        j->ref[k] = sd[k].r;
    }
    b->failed |= failed != 0;
    return n;
}

static void union_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, union_merges);
}

const block_ops union_ops = {
    .type = "union",
    .impl = "default",
    .about = "coordinates of any input, one per cycle, N for the inputs that lack it",
    .create = joiner_create,
    .rearm = joiner_rearm,
    .port = joiner_port,
    .step = union_step,
    .run = union_run,
    .peek = 1,
};
