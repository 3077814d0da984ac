/* crddrop (SAM-BLOCKS.md 5.14): drops every outer coordinate whose inner
 * fiber is empty; the inner stream passes through unchanged, in the cycle
 * it is read. A surviving outer coordinate comes out in the cycle its inner
 * fiber's stop token is read, an outer stop token that closes coordinates
 * at once, and an outer stop token of an empty outer fiber together with
 * the inner stop token that matches it.
 *
 * An N (a fiber element whose coordinate a union could not name) counts as
 * a coordinate on either stream. The reference takes an inner N for the end
 * of the inner fiber and from there on reads the inner stream one fiber out
 * of step with the outer one; an outer N it passes on like a stop token.
 *
 * A crddrop whose inner output goes nowhere keeps every outer coordinate:
 * dropping exists to keep an outer level aligned with the inner level
 * written below it, and without one the drop could only misalign the
 * outer coordinates from the values computed for them. mat_residual.gv
 * (x(i) = b(i) - C(i,j)*d(j)) has such a crddrop, which would drop rows
 * where b(i) holds a value but C(i,:) meets d nowhere; the reference's own
 * test of that kernel leaves the crddrop out (SAM-BLOCKS.md 3.3).
 *
 * The inner stream may lie more than one level below the outer one (the
 * hand-written matmul_ikj BLACKBOX graph drops i over a j stream nested in
 * k); the graph tells how many, and the inner stop tokens of the levels in
 * between only separate parts of one outer element's fiber.
 *
 * Ports: index_ports.h. */
#include "blocks.h"
#include "index_ports.h"

typedef struct dropper {
    index_names names;
    token ocur;                     /* the outer token last read */
    int has_crd;                    /* ocur's inner fiber holds something */
    int prev_stop;                  /* the outer token before ocur was a stop */
    int need_stop;                  /* read the inner stop of an empty outer fiber */
    int get_o, get_i, done;
    int inner_levels;               /* inner stops below this level are inside an element */
} dropper;

static int is_element(token t)
{
    return token_is_data(t) || t.kind == TOKEN_EMPTY;
}

static void take_outer(dropper *d, token o, token *out, int *emit)
{
    d->ocur = o;
    d->has_crd = 0;
    if (is_element(o)) {
        d->get_i = 1;
        d->get_o = d->prev_stop = d->need_stop = 0;
        return;
    }
    *out = o;
    *emit = 1;
    d->get_i = d->need_stop = d->prev_stop;
    d->get_o = !d->prev_stop;
    d->done |= o.kind == TOKEN_DONE;
    d->prev_stop = 1;
}

static void take_inner(block *b, dropper *d, token i, token *out, int *emit)
{
    *emit = 0;
    if (token_is_stop(i) && i.level < d->inner_levels)
        return;
    if (token_is_stop(i))
        i.level = (uint8_t)(i.level - d->inner_levels);
    if (d->need_stop) {
        d->get_o = 1;
        d->get_i = d->need_stop = 0;
    }
    if (is_element(i)) {
        d->has_crd = d->get_i = 1;
        d->get_o = 0;
    } else if (token_is_stop(i)) {
        *out = d->ocur;
        *emit = token_is_stop(d->ocur) || d->has_crd || !b->out[INDEX_INNER].ch;
        d->get_o = 1;
        d->get_i = 0;
    } else if (i.kind == TOKEN_DONE && d->done) {
        *out = i;
        *emit = 1;
        d->get_o = d->get_i = 0;
    } else {
        b->fault = "the inner stream ends before the outer stream";
    }
}

static int drop_step(block *b, cycle_t now)
{
    dropper *d = b->state;
    token t, out;
    int emit = 0, changed = 0;
    if (d->get_o && in_peek(b, INDEX_OUTER, now, &t)) {
        in_pop(b, INDEX_OUTER, now);
        take_outer(d, t, &out, &emit);
        changed = 1;
    }
    if (d->get_i) {
        emit = 0;
        if (in_peek(b, INDEX_INNER, now, &t)) {
            in_pop(b, INDEX_INNER, now);
            out_push(b, INDEX_INNER, now, t);
            take_inner(b, d, t, &out, &emit);
            changed = 1;
        }
    }
    if (emit)
        out_push(b, INDEX_OUTER, now, out);
    return changed;
}

/* Up to max steps from t on that pass an inner element through and do
 * nothing else: the elements of an outer coordinate's inner fiber, or the
 * stop tokens inside it (levels between). They look at the inner head
 * only, which is final once visible. The number of steps made; *idle set
 * when the next would find no inner token. */
static uint64_t drop_elements(block *b, cycle_t t, uint64_t max, int *idle)
{
    dropper *d = b->state;
    if (d->get_o || !d->get_i || d->need_stop)
        return 0;
    channel *inner = b->in[INDEX_INNER].ch, *out = b->out[INDEX_INNER].ch;
    const int reader = b->in[INDEX_INNER].reader;
    const uint32_t ii = b->ii;
    uint64_t n = 0;
    int failed = 0, elements = 0;
    token in;
    for (; n < max; t += ii, n++) {
        if (!channel_peek(inner, reader, t, &in)) {
            *idle = 1;
            break;
        }
        if (!is_element(in) && !(token_is_stop(in) && in.level < d->inner_levels))
            break;
        failed |= channel_pop(inner, reader, t);
        if (out)
            failed |= channel_push(out, t, in);
        elements |= is_element(in);
    }
    d->has_crd |= elements;
    b->failed |= failed != 0;
    return n;
}

static void drop_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, drop_elements);
}

/* How many levels the inner stream lies below the outer one, less one. */
static int levels_between(block *b, const block_ctx *ctx, const index_names *names)
{
    if (!ctx->graph)
        return 0;
    int me = graph_node_index(ctx->graph, ctx->node->id), depth[2] = {-1, -1};
    for (int k = 0; k < ctx->graph->nedges; k++) {
        const graph_edge *e = &ctx->graph->edges[k];
        sam_error ignored;
        int p = e->dst == me ? index_ports_port(b, names, e, 1, &ignored) : -1;
        if (p == INDEX_OUTER || p == INDEX_INNER)
            depth[p] = graph_stream_depth(ctx->graph, e);
    }
    return depth[INDEX_OUTER] > 0 && depth[INDEX_INNER] > depth[INDEX_OUTER] + 1
               ? depth[INDEX_INNER] - depth[INDEX_OUTER] - 1
               : 0;
}

/* A dropper before its first token. */
static dropper drop_start(const index_names *names, int inner_levels)
{
    return (dropper){.names = *names, .prev_stop = 1, .get_o = 1, .inner_levels = inner_levels};
}

static int drop_create(block *b, const block_ctx *ctx, sam_error *err)
{
    index_names names;
    if (index_ports_create(b, ctx, &names, err))
        return -1;
    dropper *d = block_state_new(b, sizeof *d, err);
    if (!d)
        return -1;
    *d = drop_start(&names, levels_between(b, ctx, &names));
    return 0;
}

static int drop_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    dropper *d = b->state;
    *d = drop_start(&d->names, d->inner_levels);
    return 0;
}

static int drop_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    const dropper *d = b->state;
    return index_ports_port(b, &d->names, e, input, err);
}

const block_ops crddrop_ops = {
    .type = "crddrop",
    .impl = "default",
    .about = "drops the outer coordinates whose inner fiber is empty",
    .create = drop_create,
    .rearm = drop_rearm,
    .port = drop_port,
    .step = drop_step,
    .run = drop_run,
    .peek = 1,
};
