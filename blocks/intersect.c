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
 * is empty, and the stop tokens then meet as usual. */
#include "blocks.h"
#include "joiner.h"

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
        for (int k = 0; k < j->n; k++)
            joiner_advance(b, j, k, now);
        return;
    }
    for (int k = 0; k < j->n; k++)
        if (before(j->crd[k], max))
            joiner_advance(b, j, k, now);
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
        joiner_advance(b, j, 0, now);
        joiner_advance(b, j, 1, now);
    } else {
        joiner_advance(b, j, before(a, c) ? 0 : 1, now);
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

const block_ops intersect_ops = {
    .type = "intersect",
    .impl = "twofinger",
    .about = "coordinates common to every input, one comparison per cycle",
    .create = joiner_create,
    .port = joiner_port,
    .step = intersect_step,
    .destroy = joiner_destroy,
};
