/* crddrop and crdhold between a level and its values (vals=true; the
 * vec_ds_compression and vec_sd_compression graphs): the two streams are
 * one level, a value for each coordinate, so they are read together, one
 * pair a cycle. crddrop keeps the pairs whose value is not 0, turning a
 * dense level into a compressed one; crdhold keeps them all, its writer
 * storing a sparse level densely. SAM-BLOCKS.md does not describe these
 * forms (the reference never runs them). Ports: input and output 0 the
 * coordinates, 1 the values. */
#include "blocks.h"

enum { CRD, VAL };

static int pair_step(block *b, cycle_t now, int drop_zeros)
{
    token c, v;
    if (!in_peek(b, CRD, now, &c) || !in_peek(b, VAL, now, &v))
        return 0;
    in_pop(b, CRD, now);
    in_pop(b, VAL, now);
    if ((c.kind == TOKEN_DONE) != (v.kind == TOKEN_DONE) || token_is_stop(c) != token_is_stop(v)) {
        b->fault = "the coordinate and value streams do not match";
        return 1;
    }
    if (drop_zeros && v.kind == TOKEN_VAL && v.v == 0.0)
        return 1;
    out_push(b, CRD, now, c);
    out_push(b, VAL, now, v);
    return 1;
}

static int drop_step(block *b, cycle_t now)
{
    return pair_step(b, now, 1);
}

static int hold_step(block *b, cycle_t now)
{
    return pair_step(b, now, 0);
}

/* Up to max steps from t on that take a matching pair of elements or of
 * stop tokens and pass it on or drop it, as pair_step makes them: all but
 * D and a mismatch. They look at the inputs' heads only, which are final
 * once visible, and push at most one token on each output. The number of
 * steps made; *idle set when the next would find a pair incomplete. */
static inline uint64_t pair_stretch(block *b, cycle_t t, uint64_t max, int *idle, int drop_zeros)
{
    /* The channels in locals: the pushes could alias the block for all
     * the compiler knows. */
    channel *crd = b->in[CRD].ch, *val = b->in[VAL].ch, *crd_out = b->out[CRD].ch,
            *val_out = b->out[VAL].ch;
    const int cr = b->in[CRD].reader, vr = b->in[VAL].reader;
    const uint32_t ii = b->ii;
    uint64_t n = 0;
    int failed = 0;
    token c, v;
    for (; n < max; t += ii, n++) {
        if (!channel_peek(crd, cr, t, &c) || !channel_peek(val, vr, t, &v)) {
            *idle = 1;
            break;
        }
        if (token_is_done(c) || token_is_done(v) || token_is_stop(c) != token_is_stop(v))
            break;
        failed |= channel_pop(crd, cr, t) | channel_pop(val, vr, t);
        if (drop_zeros && v.kind == TOKEN_VAL && v.v == 0.0)
            continue;
        if (crd_out)
            failed |= channel_push(crd_out, t, c);
        if (val_out)
            failed |= channel_push(val_out, t, v);
    }
    b->failed |= failed != 0;
    return n;
}

static uint64_t drop_pairs(block *b, cycle_t t, uint64_t max, int *idle)
{
    return pair_stretch(b, t, max, idle, 1);
}

static uint64_t hold_pairs(block *b, cycle_t t, uint64_t max, int *idle)
{
    return pair_stretch(b, t, max, idle, 0);
}

static void drop_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, drop_pairs);
}

static void hold_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, hold_pairs);
}

static int serves_values(const graph_node *n)
{
    return blocks_attr_is(n, "vals", "true");
}

static int pair_create(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx;
    (void)err;
    b->nin = b->nout = 2;
    b->in_names[CRD] = b->out_names[CRD] = "crd";
    b->in_names[VAL] = b->out_names[VAL] = "val";
    return 0;
}

/* The rest of both tables: the pairing, with or without the drop. */
#define PAIR_OPS \
    .serves = serves_values, .create = pair_create, .rearm = block_rearm_stateless, \
    .port = block_port_by_name, .peek = 1

const block_ops crddrop_values_ops = {
    .type = "crddrop",
    .impl = "values",
    .about = "drops the coordinates whose value is 0 (vals=true)",
    .step = drop_step,
    .run = drop_run,
    PAIR_OPS,
};

const block_ops crdhold_values_ops = {
    .type = "crdhold",
    .impl = "values",
    .about = "pairs each coordinate with its value (vals=true)",
    .step = hold_step,
    .run = hold_run,
    PAIR_OPS,
};
