/* fiberlookup of a bitvector level (SAM paper 4.3, SAM-BLOCKS.md 6; the
 * reference's BVRdScan in sam/sim/src/rd_scanner.py), for nodes with
 * format=bitvector: for each reference r on its input, the words of fiber
 * r of the node's tensor and mode, which must be stored as a bitvector
 * level (kind 'b', formats/fibertree.h), each with its base ref, then the
 * fiber's stop token (the protocol is bitvector.h's).
 *
 * The level stores 64-bit words; a fiber has ceil(dim / width) words of
 * `width` bits, word k being bits k*width to k*width+width-1 of the
 * fiber's storage (a width below 64 takes slices of it, and need not
 * divide 64). The base ref of word k is seg[r] plus the popcount of the
 * fiber's bits before it: where its first child is.
 *
 * Timing: the first word goes out in the cycle r is taken, the others one
 * a cycle after it, without waiting for input (unlike the compressed
 * scanner, which walks a fiber only while a further ref is visible). The
 * stop token follows the last word as every scanner's does (scanner.h): it
 * waits until the next ref is visible and merges with it when that ref is
 * a stop token. With one word a fiber this is the reference's timing: a
 * fiber takes two cycles. D is passed on. An N ref is an absent fiber: it
 * sends no word, only its stop token, merged likewise, in the cycle it is
 * taken (the reference: "N 0-token which immediately emits a stop token").
 *
 * Not copied: a stop-token ref Sk that starts a fiber (an empty outer
 * fiber, not merged into a closing stop) comes out here as S(k+1), as from
 * every other scanner (scanner.h). The reference passes it on unchanged,
 * one level too low, which loses the end of the enclosing fiber: for refs
 * 0 S0 S0 D it sends w S1 S0 D. Both take one cycle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitvector.h"
#include "blocks.h"
#include "scanner.h"

typedef struct bv_scan {
    scanner s;
    scanner_source src;
    const fiber_level *l;
    int64_t width;
    int64_t words;          /* per fiber */
    int64_t stride;         /* 64-bit storage words per fiber */
    int64_t nfibers;
    const uint64_t *fiber;  /* the storage of the fiber under way */
    int64_t next;           /* its next word to send, words: none left */
    int64_t base;           /* that word's base ref */
} bv_scan;

/* Word k of the fiber under way: width bits from bit k*width, the bits
 * at or beyond dim left out. */
static uint64_t word_at(const bv_scan *v, int64_t k)
{
    int64_t lo = k * v->width, n = v->l->dim - lo < v->width ? v->l->dim - lo : v->width;
    int64_t q = lo / 64, shift = lo % 64;
    uint64_t w = v->fiber[q] >> shift;
    if (shift && shift + n > 64)
        w |= v->fiber[q + 1] << (64 - shift);
    return w & bv_low_bits(n);
}

/* Sends the next word of the fiber under way; after the last, its stop
 * token waits for the next ref. */
static void send_word(block *b, bv_scan *v, cycle_t now)
{
    uint64_t w = word_at(v, v->next++);
    scanner_emit(b, now, token_crd((int64_t)w), token_crd(v->base));
    v->base += __builtin_popcountll(w);
    if (v->next == v->words)
        v->s.end_fiber = v->s.pend_stop = 1;
}

static void open_fiber(block *b, bv_scan *v, cycle_t now, int64_t r)
{
    if (r < 0 || r >= v->nfibers) {
        b->fault = "reference beyond the bitvector level";
        return;
    }
    if (v->words == 0) {
        scanner_close(b, &v->s, now);
        return;
    }
    v->fiber = v->l->bits + r * v->stride;
    v->next = 0;
    v->base = v->l->seg[r];
    send_word(b, v, now);
}

static void next_fiber(block *b, bv_scan *v, cycle_t now, token r)
{
    scanner *s = &v->s;
    in_pop(b, SCANNER_IN_REF, now);
    s->begin = s->end_fiber = 0;
    switch (r.kind) {
    case TOKEN_DONE:
        scanner_emit(b, now, r, r);
        s->done = 1;
        break;
    case TOKEN_STOP:
        scanner_emit(b, now, token_stop_below(r), token_stop_below(r));
        s->end_fiber = 1;
        break;
    case TOKEN_EMPTY:
        scanner_close(b, s, now);
        break;
    case TOKEN_CRD:
        open_fiber(b, v, now, r.i);
        break;
    default:
        b->fault = "not a reference stream";
        break;
    }
}

static int bv_scan_step(block *b, cycle_t now)
{
    bv_scan *v = b->state;
    scanner *s = &v->s;
    token r;
    if (s->done || s->pend_stop)
        return scanner_pending(b, s, in_peek(b, SCANNER_IN_REF, now, &r), now);
    if (!s->begin && !s->end_fiber) {
        send_word(b, v, now);
        return 1;
    }
    if (!in_peek(b, SCANNER_IN_REF, now, &r))
        return 0;
    next_fiber(b, v, now, r);
    return 1;
}

/* Up to max steps from t on that each send the next word of the fiber
 * under way: every step of a fiber but its first and its stop token's.
 * They look at no input. The number of steps made. */
static uint64_t bv_scan_words(block *b, cycle_t t, uint64_t max, int *idle)
{
    bv_scan *v = b->state;
    const scanner *s = &v->s;
    (void)idle;     /* never: a step within a fiber always sends */
    uint64_t n = 0;
    for (; n < max && !s->begin && !s->end_fiber && !s->pend_stop && !s->done; n++, t += b->ii)
        send_word(b, v, t);
    return n;
}

/* The native run: a fiber's words in one loop, the step at its start and
 * end. */
static void bv_scan_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, bv_scan_words);
}

static const param bv_scan_params[] = {
    BV_WIDTH_PARAM,
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

/* A scanner of level l at the start of its stream: the level's shape,
 * whose storage must hold every fiber's words. */
static int take_level(block *b, bv_scan *v, const fiber_level *l, sam_error *err)
{
    *v = (bv_scan){.s = SCANNER_START, .src = v->src, .width = v->width, .l = l};
    v->nfibers = l->nseg ? (int64_t)l->nseg - 1 : 0;
    v->words = bv_words(l->dim, v->width);
    v->stride = bv_words(l->dim, 64);
    if ((uint64_t)v->nfibers * (uint64_t)v->stride > l->nbits)
        return block_error(b, err,
                           "tensor %s mode %d holds %zu storage words where its fibers (%lld of "
                           "dimension %lld) need %lld",
                           v->src.tensor, l->mode, l->nbits, (long long)v->nfibers,
                           (long long)l->dim, (long long)(v->nfibers * v->stride));
    return 0;
}

static int bv_scan_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t width;
    const fibertree *ft;
    scanner_source src;
    if (block_param_get(b, ctx, "width", &width, err))
        return -1;
    const fiber_level *l = scanner_create(b, ctx, 'b', &src, &ft, err);
    if (!l)
        return -1;
    b->out_names[SCANNER_OUT_CRD] = "bv";
    bv_scan *v = block_state_new(b, sizeof *v, err);
    if (!v)
        return -1;
    *v = (bv_scan){.src = src, .width = width};
    if (take_level(b, v, l, err)) {
        free(v);
        b->state = NULL;
        return -1;
    }
    return 0;
}

static int bv_scan_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    bv_scan *v = b->state;
    const fibertree *ft;
    const fiber_level *l = scanner_level(b, ctx, &v->src, &ft, err);
    return l ? take_level(b, v, l, err) : -1;
}

/* The word output may be drawn as type=bv or as type=crd. */
static int bv_scan_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    if (!input && !strcmp(e->kind, "bv"))
        return SCANNER_OUT_CRD;
    return scanner_port(b, e, input, err);
}

static int64_t bv_scan_word_width(const block *b, int port, int input)
{
    const bv_scan *v = b->state;
    return !input && port == SCANNER_OUT_CRD ? v->width : 0;
}

const block_ops fiberlookup_bitvector_ops = {
    .type = "fiberlookup",
    .impl = "bitvector",
    .about = "the words of a bitvector level's fiber per reference, one a cycle, each with the "
             "position of its first child",
    .params = bv_scan_params,
    .serves = bv_serves,
    .create = bv_scan_create,
    .rearm = bv_scan_rearm,
    .port = bv_scan_port,
    .step = bv_scan_step,
    .run = bv_scan_run,
    .peek = 2,
    .word_width = bv_scan_word_width,
};
