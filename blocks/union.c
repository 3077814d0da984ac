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

const block_ops union_ops = {
    .type = "union",
    .impl = "default",
    .about = "coordinates of any input, one per cycle, N for the inputs that lack it",
    .create = joiner_create,
    .rearm = joiner_rearm,
    .port = joiner_port,
    .step = union_step,
    .peek = 1,
};
