/* bv, the bitvector converter (SAM paper Definition 4.2, SAM-BLOCKS.md 6;
 * the reference's BV and ChunkBV in sam/sim/src/bitvector.py): turns each
 * fiber of a coordinate stream into bitvector words (bitvector.h), bit c
 * - k*width of word k set for every coordinate c. Stop tokens keep their
 * level and D is passed on.
 *
 * size=0 (the default) is the reference's BV: one word a fiber, holding
 * coordinates 0 to width-1, unless the node names its index (index=i, as
 * the compiler's converters for a bitvector result do) and the graph has
 * a scanner of i: then size is i's dimension. One input token is taken a cycle. A
 * coordinate is only collected (no output). The fiber's stop token sends
 * the word in the cycle it is taken, and the stop token itself in the
 * next cycle, in which nothing is taken; a fiber without coordinates sends
 * its stop token alone, in the cycle it is taken.
 *
 * size>0 is the dimension: every fiber becomes ceil(size/width) words,
 * zero words included, the coordinates in increasing order. One input
 * token is taken a cycle and at most one word goes out a cycle:
 * - a coordinate in the word under way is collected, nothing goes out;
 * - a coordinate beyond it is taken with the word under way going out in
 *   the same cycle; the zero words between them go out one a cycle after
 *   it, in cycles that take nothing;
 * - the stop token is taken with the word under way going out; the
 *   fiber's remaining words go out one a cycle after it and the stop token
 *   in the cycle after the last word, in cycles that take nothing;
 * - a fiber without coordinates (empty, N alone, or a stop token closing
 *   a fiber never opened, S1' for an empty outer fiber) sends its stop
 *   token alone in the cycle it is taken: a fiber without words, all
 *   zeros to a joiner, and none at all to a writer, which keeps no empty
 *   fiber (the outer coordinate of an empty fiber is dropped).
 *
 * The optional ref input carries the coordinates' refs (a scanner's ref
 * output beside its crd output, taken with it), and then the ref output
 * gives each word's base: the ref of its first coordinate; for a word
 * without coordinates, the ref of the next coordinate of its fiber, or,
 * when none follows, one past the last ref taken (0 before any). Within a
 * fiber consecutive bases then differ by the popcount of the word between,
 * as a bitvector scanner's do, exactly when the fiber's refs are
 * contiguous positions: a scanner's output, not an intersecter's.
 *
 * Words travel as coordinate tokens (TOKEN_CRD, bits in i; bit 63 of a
 * 64-bit word reads as a negative number).
 *
 * Where the reference goes wrong, samsim does not follow it:
 * - a coordinate beyond the width (size=0) or the size, negative, or, with
 *   size>0, in a word already sent, is a fault; the reference has no width
 *   (Python integers grow);
 * - N, the empty token, adds no bit (an N fiber is empty); the reference
 *   takes anything that is neither a coordinate nor a stop token for D;
 * - D while coordinates wait for their stop token is a fault; the
 *   reference drops them;
 * - a value token is a fault (not a coordinate stream), and so is a ref
 *   that does not pair with its coordinate token. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitvector.h"
#include "blocks.h"
#include "dense_acc.h"

enum { IN_CRD, IN_REF };
enum { OUT_BV, OUT_REF };

typedef struct bv_convert {
    int64_t width;
    int64_t sized;          /* the node's size, 0: the dimension of index */
    const char *index;
    int64_t size;           /* the dimension this run's fibers have */
    int64_t words;          /* a fiber's */
    int64_t limit;          /* coordinates go up to limit - 1 */
    /* The open fiber. */
    int64_t next;           /* the word under way */
    uint64_t word;          /* its bits so far */
    int64_t word_ref;       /* the ref of its first coordinate */
    int any;                /* the fiber holds a coordinate */
    int absent;             /* the fiber holds an N */
    int64_t owed;           /* next < owed: zero words to send, then held */
    uint64_t held;          /* the bit of the coordinate beyond them */
    int64_t held_ref;
    int closing;            /* its stop token is taken: the rest, then stop */
    token stop;
    int64_t after;          /* one past the last ref taken */
    int done;
    char msg[96];           /* the fault, when it names numbers */
} bv_convert;

/* The word output and, with the ref input connected, the ref output. */
static void emit(block *b, cycle_t now, token w, token r)
{
    out_push(b, OUT_BV, now, w);
    if (b->nin > IN_REF)
        out_push(b, OUT_REF, now, r);
}

/* Sends the word under way, whose base is its first coordinate's ref or,
 * without one, `base`; the next word is under way then, holding the
 * coordinate taken beyond the words sent when it is that one's. */
static void send_word(block *b, bv_convert *c, cycle_t now, int64_t base)
{
    emit(b, now, token_crd((int64_t)c->word), token_crd(c->word ? c->word_ref : base));
    c->word = 0;
    if (++c->next == c->owed) {
        c->word = c->held;
        c->word_ref = c->held_ref;
    }
}

static void reset_fiber(bv_convert *c)
{
    c->next = c->owed = 0;
    c->word = 0;
    c->any = c->absent = c->closing = 0;
}

static int beyond(block *b, bv_convert *c, int64_t crd)
{
    const char *what = c->size ? "size" : "bitvector width";
    if (crd >= 0 && crd < c->limit)
        return 0;
    snprintf(c->msg, sizeof c->msg, "coordinate %lld is beyond the %s %lld", (long long)crd,
             what, (long long)c->limit);
    b->fault = c->msg;
    return 1;
}

static void take_coordinate(block *b, bv_convert *c, cycle_t now, int64_t crd, int64_t ref)
{
    if (beyond(b, c, crd))
        return;
    int64_t k = crd / c->width;
    uint64_t bit = (uint64_t)1 << (crd % c->width);
    if (k < c->next) {
        snprintf(c->msg, sizeof c->msg, "coordinate %lld comes after its word was sent",
                 (long long)crd);
        b->fault = c->msg;
        return;
    }
    if (k > c->next) {
        c->owed = k;
        c->held = bit;
        c->held_ref = ref;
        send_word(b, c, now, ref);
    } else {
        if (!c->word)
            c->word_ref = ref;
        c->word |= bit;
    }
    c->any = 1;
    c->after = ref + 1;
}

/* The fiber's stop token s: its stop alone for a fiber without words,
 * else the word under way now and the rest after it. */
static void take_stop(block *b, bv_convert *c, cycle_t now, token s)
{
    if (!c->any) {
        emit(b, now, s, s);
        reset_fiber(c);
        return;
    }
    c->stop = s;
    c->closing = 1;
    send_word(b, c, now, c->after);
}

/* A cycle of the closing fiber: a word, or after the last its stop. */
static void close_step(block *b, bv_convert *c, cycle_t now)
{
    if (c->next < c->words) {
        send_word(b, c, now, c->after);
        return;
    }
    emit(b, now, c->stop, c->stop);
    reset_fiber(c);
}

/* The next coordinate token and its ref: without the ref input, each
 * coordinate's ref counts as 0 and other tokens pair with themselves. */
static int heads(block *b, cycle_t now, token *t, token *r)
{
    if (!in_peek(b, IN_CRD, now, t))
        return 0;
    if (b->nin > IN_REF)
        return in_peek(b, IN_REF, now, r);
    *r = t->kind == TOKEN_CRD ? token_crd(0) : *t;
    return 1;
}

static void take(block *b, bv_convert *c, cycle_t now, token t, token r)
{
    in_pop(b, IN_CRD, now);
    if (b->nin > IN_REF)
        in_pop(b, IN_REF, now);
    switch (t.kind) {
    case TOKEN_CRD:
        take_coordinate(b, c, now, t.i, r.i);
        break;
    case TOKEN_EMPTY:
        c->absent = 1;
        break;
    case TOKEN_STOP:
        take_stop(b, c, now, t);
        break;
    default:
        if (c->any)
            b->fault = "D ends the stream inside a fiber (coordinates without their stop token)";
        else
            emit(b, now, t, t);
        c->done = 1;
        break;
    }
}

static int bv_convert_step(block *b, cycle_t now)
{
    bv_convert *c = b->state;
    token t, r;
    if (c->done)
        return 0;
    if (c->next < c->owed) {
        send_word(b, c, now, c->held_ref);
        return 1;
    }
    if (c->closing) {
        close_step(b, c, now);
        return 1;
    }
    if (!heads(b, now, &t, &r))
        return 0;
    if (t.kind == TOKEN_VAL || t.kind > TOKEN_DONE)
        b->fault = "not a coordinate stream";
    else if (t.kind == TOKEN_CRD ? r.kind != TOKEN_CRD : !token_equal(t, r))
        b->fault = "a ref that does not pair with its coordinate token";
    else
        take(b, c, now, t, r);
    return 1;
}

/* Whether coordinate token t with ref r goes into the word under way and
 * nothing else: a step that takes it sends nothing. */
static int in_word(const bv_convert *c, token t, token r)
{
    return t.kind == TOKEN_CRD && r.kind == TOKEN_CRD && t.i >= 0 && t.i < c->limit &&
           t.i / c->width == c->next;
}

/* Up to max steps from t on of the common kinds: the zero words owed
 * before a coordinate, the closing fiber's words before its stop token,
 * and coordinates taken into the word under way. Anything else (a stop
 * token taken, a coordinate beyond the word, no token) is left to the
 * step. The number of steps made. */
static uint64_t bv_convert_stretch(block *b, cycle_t t, uint64_t max, int *idle)
{
    bv_convert *c = b->state;
    uint64_t n = 0;
    token tok, r;
    (void)idle;     /* the step says whether a missing token leaves it idle */
    for (; n < max && !c->done; n++, t += b->ii) {
        if (c->next < c->owed)
            send_word(b, c, t, c->held_ref);
        else if (c->closing && c->next < c->words)
            send_word(b, c, t, c->after);
        else if (!c->closing && heads(b, t, &tok, &r) && in_word(c, tok, r))
            take(b, c, t, tok, r);
        else
            break;
    }
    return n;
}

/* The native run: words and coordinates in one loop, the step for the
 * rest. */
static void bv_convert_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, bv_convert_stretch);
}

static const param bv_convert_params[] = {
    BV_WIDTH_PARAM,
    {"size", "coordinates", "the dimension: ceil(size/width) words a fiber; 0: one word a fiber, "
             "as the reference's",
     0, 0, INT64_MAX, 1, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

/* Whether the graph draws a ref edge into (input) or out of the node. */
static int has_ref_edge(const block_ctx *ctx, int input)
{
    int self = graph_node_index(ctx->graph, ctx->node->id);
    for (int k = 0; k < ctx->graph->nedges; k++) {
        const graph_edge *e = &ctx->graph->edges[k];
        if ((input ? e->dst : e->src) == self && !strcmp(e->kind, "ref"))
            return 1;
    }
    return 0;
}

/* The ref input is there when the graph draws it (unit tests, without a
 * graph, count it themselves). */
static int count_inputs(block *b, const block_ctx *ctx, sam_error *err)
{
    b->nin = 1;
    if (!ctx->graph)
        return 0;
    b->nin += has_ref_edge(ctx, 1);
    if (b->nin == 1 && has_ref_edge(ctx, 0))
        return block_error(b, err, "a ref output needs the ref input (the coordinates' refs)");
    return 0;
}

/* A fiber's words are sent whatever it holds, a word a cycle, and a
 * bitvector level stores them all: so many that they pass the dense limit
 * (a dimension of 2^31 a file of a few bytes may declare) are refused, as
 * storing such a bitvector operand is. */
static int fits_limit(block *b, const block_ctx *ctx, int64_t size, int64_t width,
                      sam_error *err)
{
    int64_t limit;
    if (block_dense_limit(ctx, &limit, err))
        return -1;
    if (bv_words(size, width) <= limit)
        return 0;
    return block_error(b, err, "fibers of %lld words (dimension %lld in %lld-bit words) are more "
                       "than the dense limit of %lld (set " FIBERTREE_DENSE_ENV " to raise it)",
                       (long long)bv_words(size, width), (long long)size, (long long)width,
                       (long long)limit);
}

/* A converter of the node's width and size at the start of its stream,
 * its fibers as wide as the data ctx binds makes them. */
static int bv_convert_start(block *b, bv_convert *c, const block_ctx *ctx, sam_error *err)
{
    int64_t size = c->sized ? c->sized : dense_acc_index_dim(ctx, c->index);
    if (fits_limit(b, ctx, size, c->width, err))
        return -1;
    *c = (bv_convert){.width = c->width, .sized = c->sized, .index = c->index, .size = size,
                      .words = size ? bv_words(size, c->width) : 1,
                      .limit = size ? size : c->width};
    return 0;
}

static int bv_convert_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t width, size;
    if (block_param_get(b, ctx, "width", &width, err) ||
        block_param_get(b, ctx, "size", &size, err) || count_inputs(b, ctx, err))
        return -1;
    bv_convert *c = block_state_new(b, sizeof *c, err);
    if (!c)
        return -1;
    *c = (bv_convert){.width = width, .sized = size, .index = graph_node_attr(ctx->node, "index")};
    if (bv_convert_start(b, c, ctx, err)) {
        free(c);
        b->state = NULL;
        return -1;
    }
    b->nout = 2;
    b->in_names[IN_CRD] = "crd";
    b->in_names[IN_REF] = "ref";
    b->out_names[OUT_BV] = "bv";
    b->out_names[OUT_REF] = "ref";
    return 0;
}

static int bv_convert_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    return bv_convert_start(b, b->state, ctx, err);
}

/* A word stream may be drawn as type=bv or as type=crd. */
static int bv_convert_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    if (!input && (!strcmp(e->kind, "bv") || !strcmp(e->kind, "crd")))
        return OUT_BV;
    if (input && !strcmp(e->kind, "crd"))
        return IN_CRD;
    if (!strcmp(e->kind, "ref"))
        return input ? IN_REF : OUT_REF;
    return block_error(b, err, "no %s port for a %s stream (edge label '%s')",
                       input ? "input" : "output", e->kind, e->label);
}

/* Nodes converting to bitvectors: to="bv" or no to at all. */
static int bv_convert_serves(const graph_node *n)
{
    const char *to = graph_node_attr(n, "to");
    return !to || !strcmp(to, "bv");
}

static int64_t bv_convert_word_width(const block *b, int port, int input)
{
    const bv_convert *c = b->state;
    return !input && port == OUT_BV ? c->width : 0;
}

const block_ops bv_ops = {
    .type = "bv",
    .impl = "default",
    .about = "bitvector words per fiber of a coordinate stream (one, or size/width), then its "
             "stop token",
    .params = bv_convert_params,
    .serves = bv_convert_serves,
    .create = bv_convert_create,
    .rearm = bv_convert_rearm,
    .port = bv_convert_port,
    .step = bv_convert_step,
    .run = bv_convert_run,
    .peek = 1,
    .word_width = bv_convert_word_width,
};
