/* repsiggen (SAM-BLOCKS.md 5.7): turns a coordinate stream into the repeat
 * signal that drives a repeat block, one token per cycle: R for every
 * coordinate or N, S for every stop token (its level is not needed: the
 * repeat block takes the level from its ref stream), D for D. */
#include "blocks.h"

/* After D the input holds nothing more, so every step is a take. */
static void repsig_take(block *b, token t, cycle_t now)
{
    if (t.kind != TOKEN_DONE)
        t = token_is_stop(t) ? token_repstop() : token_repeat();
    out_push(b, 0, now, t);
}

static int repsig_step(block *b, cycle_t now)
{
    return block_take_step(b, now, repsig_take);
}

static void repsig_run(block *b, cycle_t until)
{
    block_take_run(b, until, repsig_take);
}

static int repsig_create(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    b->nin = b->nout = 1;
    b->in_names[0] = "crd";
    b->out_names[0] = "repsig";
    return 0;
}

const block_ops repsiggen_ops = {
    .type = "repsiggen",
    .impl = "default",
    .about = "repeat signals (R per coordinate, S per stop token) from a coordinate stream",
    .create = repsig_create,
    .rearm = block_rearm_stateless,
    .port = block_port_by_name,
    .step = repsig_step,
    .run = repsig_run,
    .peek = 1,
};
