/* bv to="crd", the reverse of the bitvector converter: turns a (bv, ref)
 * pair of streams (bitvector.h; a bitvector scanner's) into ordinary
 * (crd, ref) streams. For every bit set in a word, lowest first, its
 * coordinate k*width + bit (k counting the words of the fiber) and its
 * ref, the word's base + the popcount of the word below the bit. This is
 * what follows a bitvector tensor scanned where no other tensor meets it.
 *
 * Ports: inputs bv (type bv or crd) and ref; outputs crd and ref.
 *
 * Timing, as a one-sided bitvector intersect's (bv_join.h): one bit a
 * cycle; a word is taken in the cycle its first bit goes out, the others
 * follow in cycles that take nothing; a zero word takes one cycle and
 * sends nothing. A stop token on both inputs is passed on in the cycle it
 * is taken, and so is D. Faults: stop tokens of different levels on the
 * two inputs, a D meeting anything else, a ref that is not a number
 * beside a word, a word with bits beyond the width, N or value tokens. */
#include <string.h>

#include "bitvector.h"
#include "blocks.h"
#include "bv_join.h"

enum { IN_BV, IN_REF };
enum { OUT_CRD, OUT_REF };

static int bv_to_crd_step(block *b, cycle_t now)
{
    return bv_join_step(b, b->state, now);
}

static uint64_t bv_to_crd_bits(block *b, cycle_t t, uint64_t max, int *idle)
{
    (void)idle;     /* never: a step with bits to send always sends one */
    return bv_join_bits(b, b->state, t, max);
}

/* The native run: a word's bits in one loop, the step taking the words. */
static void bv_to_crd_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, bv_to_crd_bits);
}

static const param bv_to_crd_params[] = {
    BV_WIDTH_PARAM,
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static int bv_to_crd_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t width;
    if (block_param_get(b, ctx, "width", &width, err))
        return -1;
    bv_join *x = block_state_new(b, sizeof *x, err);
    if (!x)
        return -1;
    *x = (bv_join){.n = 1, .op = BV_OR, .width = width, .out_bv = -1, .out_crd = OUT_CRD,
                   .out_ref = OUT_REF};
    b->nin = b->nout = 2;
    b->in_names[IN_BV] = "bv";
    b->in_names[IN_REF] = "ref";
    b->out_names[OUT_CRD] = "crd";
    b->out_names[OUT_REF] = "ref";
    return 0;
}

static int bv_to_crd_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    bv_join_restart(b->state);
    return 0;
}

/* The words may come on an edge of type bv or crd. */
static int bv_to_crd_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const in_kinds[] = {"bv", "ref"}, *const out_kinds[] = {"crd", "ref"};
    if (input && !strcmp(e->kind, "crd"))
        return IN_BV;
    return block_port_by_kind(b, e, input, input ? in_kinds : out_kinds, 2, err);
}

static int bv_to_crd_serves(const graph_node *n)
{
    return blocks_attr_is(n, "to", "crd");
}

static int64_t bv_to_crd_word_width(const block *b, int port, int input)
{
    const bv_join *x = b->state;
    return input && port == IN_BV ? x->width : 0;
}

const block_ops bv_to_crd_ops = {
    .type = "bv",
    .impl = "crd",
    .about = "bitvector words to coordinates (to=crd): each set bit's coordinate and ref, one a "
             "cycle",
    .params = bv_to_crd_params,
    .serves = bv_to_crd_serves,
    .create = bv_to_crd_create,
    .rearm = bv_to_crd_rearm,
    .port = bv_to_crd_port,
    .step = bv_to_crd_step,
    .run = bv_to_crd_run,
    .peek = 1,
    .word_width = bv_to_crd_word_width,
};
