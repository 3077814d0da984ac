/* repsiggen (SAM-BLOCKS.md 5.7): turns a coordinate stream into the repeat
 * signal that drives a repeat block, one token per cycle: R for every
 * coordinate or N, S for every stop token (its level is not needed: the
 * repeat block takes the level from its ref stream), D for D. */
#include <stdlib.h>

#include "blocks.h"

static int repsig_step(block *b, cycle_t now)
{
    int *done = b->state;
    token t;
    if (*done || !in_peek(b, 0, now, &t))
        return 0;
    in_pop(b, 0, now);
    if (t.kind == TOKEN_DONE)
        *done = 1;
    else
        t = token_is_stop(t) ? token_repstop() : token_repeat();
    out_push(b, 0, now, t);
    return 1;
}

static int repsig_create(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx;
    b->state = calloc(1, sizeof(int));
    if (!b->state)
        return error_set(err, "out of memory");
    b->nin = b->nout = 1;
    b->in_names[0] = "crd";
    b->out_names[0] = "repsig";
    return 0;
}

static int repsig_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const in_kinds[] = {"crd"}, *const out_kinds[] = {"repsig"};
    return block_port_by_kind(b, e, input, input ? in_kinds : out_kinds, 1, err);
}

static void repsig_destroy(block *b)
{
    free(b->state);
}

const block_ops repsiggen_ops = {
    .type = "repsiggen",
    .impl = "default",
    .about = "repeat signals (R per coordinate, S per stop token) from a coordinate stream",
    .create = repsig_create,
    .port = repsig_port,
    .step = repsig_step,
    .peek = 1,
    .destroy = repsig_destroy,
};
