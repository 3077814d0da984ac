/* What intersect and union (SAM-BLOCKS.md 5.9, 5.10) share: the sides,
 * their ports and head registers, and the cycle around the comparison that
 * tells the two apart. A side is one input tensor, a (crd, ref) pair of
 * streams named "in-B"; inputs 2k and 2k+1 are the crd and ref of side k,
 * output 0 the crd and output 1+k the ref of side k. The sides are
 * numbered in the order their first input edge appears in the graph; a
 * node without a graph (unit tests) takes attribute sides, 2 by default.
 * Like the reference, a joiner compares head registers filled in an
 * earlier cycle (so the first step only fills them), and a step needs a
 * token pair visible on every side, even to advance one of them. */
#ifndef SAMSIM_JOINER_H
#define SAMSIM_JOINER_H

#include "../engine/block.h"

/* Four sides, a coordinate and a reference input each, as the compiler's
 * join trees assume (custard/compile.c, JOIN_SIDES). */
enum { JOINER_MAX_SIDES = 4, JOINER_LABEL = 24 };

typedef struct joiner {
    const char *name[JOINER_MAX_SIDES];     /* tensor of each side, NULL: not seen yet */
    token crd[JOINER_MAX_SIDES], ref[JOINER_MAX_SIDES];    /* the head registers */
    int n, primed;                          /* primed: the registers hold tokens */
    /* Coordinate skip (a skipping intersecter, blocks/intersect.c): the
     * sides have skip outputs; per side, the largest coordinate asked for
     * in its open fiber (-1: none) and whether it was asked to close it. */
    int skips;
    int64_t asked[JOINER_MAX_SIDES];
    int closed[JOINER_MAX_SIDES];
    char in_label[2 * JOINER_MAX_SIDES][JOINER_LABEL];
    char out_label[BLOCK_MAX_PORTS][JOINER_LABEL];
} joiner;

/* A block's comparison: one cycle on registers that all hold coordinates,
 * stop tokens or N. */
typedef void joiner_rule(block *b, joiner *j, cycle_t now);

/* The block_ops functions of a joiner; its step is joiner_step with the
 * block's rule. */
int joiner_create(block *b, const block_ctx *ctx, sam_error *err);
int joiner_port(block *b, const graph_edge *e, int input, sam_error *err);
/* The registers empty and nothing asked for: the sides and ports stay. */
int joiner_rearm(block *b, const block_ctx *ctx, sam_error *err);

/* One cycle: the closing D or a fault once a register holds one, else,
 * with a pair visible on every side, the first fill or the rule. */
int joiner_step(block *b, cycle_t now, joiner_rule *rule);

/* Whether every side's (crd, ref) pair is visible: a step needs them all. */
int joiner_ready(const block *b, const joiner *j, cycle_t now);

/* Refills the registers of side k from its inputs. */
void joiner_advance(block *b, joiner *j, int k, cycle_t now);

/* Pushes crd and refs[k] to the ref output of each side k. */
void joiner_emit(block *b, const joiner *j, cycle_t now, token crd, const token *refs);

/* Adds a skip output "skip-B" after the ref outputs for each side k that
 * a port is left for: port joiner_skip_port(j, k). */
void joiner_add_skips(block *b, joiner *j);

/* The skip output of side k, or -1 when there is none. */
int joiner_skip_port(const joiner *j, int k);

#endif
