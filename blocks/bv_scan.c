/* fiberlookup of a bitvector level (SAM-BLOCKS.md 6; the reference's
 * BVRdScan in sam/sim/src/rd_scanner.py), for nodes with
 * format=bitvector: for each reference r on its input, the word of fiber
 * r, with ref = the sum of the popcounts of words 0 .. r-1 (where the
 * fiber's values begin), then the fiber's stop token.
 *
 * Where the words come from: samsim's fibertree has no bitvector level
 * kind yet, so the node's tensor and mode must name a compressed level,
 * and each of its fibers becomes one word of `width` bits at create time,
 * bit c set for each coordinate c (a fiber ends at its seg bound or at the
 * end of crd, as for the compressed scanner). A coordinate that does not
 * fit in the width is an error then, naming the tensor. The popcount sums
 * are computed then too, so a reference costs nothing at run time.
 *
 * Timing, as the reference's: the word of ref r goes out in the cycle r is
 * taken; the stop token waits until the next ref is visible and merges
 * with it when that ref is a stop token (scanner.h), so a fiber takes two
 * cycles. D is passed on. An N ref yields only its fiber's stop token,
 * merged likewise, in the cycle it is taken (the reference: "N 0-token
 * which immediately emits a stop token").
 *
 * Not copied: a stop-token ref Sk that starts a fiber (an empty outer
 * fiber, not merged into a closing stop) comes out here as S(k+1), as from
 * every other scanner (scanner.h). The reference passes it on unchanged,
 * one level too low, which loses the end of the enclosing fiber: for refs
 * 0 S0 S0 D it sends w S1 S0 D. Both take one cycle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "scanner.h"

typedef struct bv_scan {
    scanner s;
    int64_t nfibers;
    uint64_t *word;     /* per fiber */
    int64_t *ref;       /* per fiber: the popcounts of the words before it */
} bv_scan;

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
        if (r.i < 0 || r.i >= v->nfibers) {
            b->fault = "reference beyond the bitvector level";
            break;
        }
        scanner_emit(b, now, token_crd((int64_t)v->word[r.i]), token_crd(v->ref[r.i]));
        s->end_fiber = s->pend_stop = 1;
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
    int have = in_peek(b, SCANNER_IN_REF, now, &r);
    if (s->done || s->pend_stop)
        return scanner_pending(b, s, have, now);
    if (!have)
        return 0;
    next_fiber(b, v, now, r);
    return 1;
}

static int bv_scan_serves(const graph_node *n)
{
    const char *f = graph_node_attr(n, "format");
    return f && !strcmp(f, "bitvector");
}

/* The words of level l, one per fiber, and their popcount prefix sums. */
static int make_words(block *b, bv_scan *v, const fiber_level *l, const char *tensor,
                      int64_t width, sam_error *err)
{
    v->nfibers = l->nseg ? (int64_t)l->nseg - 1 : 0;
    v->word = calloc((size_t)v->nfibers + 1, sizeof *v->word);
    v->ref = calloc((size_t)v->nfibers + 1, sizeof *v->ref);
    if (!v->word || !v->ref)
        return error_set(err, "out of memory");
    int64_t bits = 0;
    for (int64_t r = 0; r < v->nfibers; r++) {
        int64_t end = l->seg[r + 1] < (int64_t)l->ncrd ? l->seg[r + 1] : (int64_t)l->ncrd;
        for (int64_t p = l->seg[r]; p < end; p++) {
            int64_t c = l->crd[p];
            if (c < 0 || c >= width)
                return block_error(b, err,
                                   "tensor %s mode %d: fiber %lld holds coordinate %lld, beyond "
                                   "the bitvector width %lld",
                                   tensor, l->mode, (long long)r, (long long)c, (long long)width);
            v->word[r] |= (uint64_t)1 << c;
        }
        v->ref[r] = bits;
        bits += __builtin_popcountll(v->word[r]);
    }
    return 0;
}

static void bv_scan_destroy(block *b)
{
    bv_scan *v = b->state;
    if (v) {
        free(v->word);
        free(v->ref);
    }
    free(v);
    b->state = NULL;
}

static const block_param bv_scan_params[] = {
    {"width", "bits per word: coordinates 0 to width-1", 64, 1, 64},
    {NULL, NULL, 0, 0, 0},
};

static int bv_scan_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t width;
    const fibertree *ft;
    if (block_param_get(b, ctx, "width", &width, err))
        return -1;
    const fiber_level *l = scanner_create(b, ctx, 's', &ft, err);
    if (!l)
        return -1;
    b->out_names[SCANNER_OUT_CRD] = "bv";
    bv_scan *v = calloc(1, sizeof *v);
    if (!v)
        return error_set(err, "out of memory");
    v->s = (scanner)SCANNER_START;
    b->state = v;
    if (make_words(b, v, l, graph_node_attr(ctx->node, "tensor"), width, err)) {
        bv_scan_destroy(b);
        return -1;
    }
    return 0;
}

/* The word output may be drawn as type=bv or as type=crd. */
static int bv_scan_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    if (!input && !strcmp(e->kind, "bv"))
        return SCANNER_OUT_CRD;
    return scanner_port(b, e, input, err);
}

const block_ops fiberlookup_bitvector_ops = {
    .type = "fiberlookup",
    .impl = "bitvector",
    .about = "one bitvector word per reference, with the position of its first value",
    .params = bv_scan_params,
    .serves = bv_scan_serves,
    .create = bv_scan_create,
    .port = bv_scan_port,
    .step = bv_scan_step,
    .peek = 2,
    .destroy = bv_scan_destroy,
};
