/* fiberwrite of a bitvector level (SAM paper 4.3), for nodes with
 * format=bitvector: stores a stream of bitvector words (bitvector.h:
 * `width`-bit words, ceil(dim/width) a fiber for the level's dimension)
 * as a level of kind 'b' (formats/fibertree.h): each fiber's bits in
 * 64-bit storage words, seg the popcounts of the fibers before each, ncrd
 * the set bits in all.
 *
 * Timing, as every writer's: one token a cycle, done in the cycle it
 * takes D.
 *
 * A stop token closes a fiber of this level only when the fiber brought
 * words, as the compressed writer keeps only fibers with coordinates: a
 * fiber without words is one whose outer coordinate was dropped (crddrop
 * after an intersection) or never there. A fiber may bring fewer words
 * than its dimension needs: the rest are zeros. The dimension is the
 * result's, known once the run is over, so a fiber with more words than
 * it allows, or a bit at or beyond it, is refused when the level is
 * collected, and so is a level whose fibers need more storage words than
 * the dense limit (block_dense_limit), as storing such an operand is. A
 * word with bits beyond the width, more words than the dense limit in
 * all (the stream is pseudo-dense: a file of a few bytes may declare a
 * dimension that sends millions a fiber), D inside a fiber, and N or
 * value tokens are faults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "bitvector.h"
#include "blocks.h"

typedef struct bv_writer {
    int64_t width;
    int64_t limit;          /* the dense limit, on words received and stored */
    int mode;
    uint64_t *word;         /* every fiber's words, in order */
    size_t nword, cap_word;
    int64_t *start;         /* where each fiber's words begin, and the end */
    size_t nstart, cap_start;
    int open;               /* the fiber under way holds words */
    char msg[128];          /* the fault, when it names numbers */
} bv_writer;

static int append_start(bv_writer *w)
{
    int64_t *a = grow_array(w->start, w->nstart, &w->cap_start, sizeof *a, 64);
    if (!a)
        return -1;
    w->start = a;
    a[w->nstart++] = (int64_t)w->nword;
    return 0;
}

static void take_word(block *b, bv_writer *w, uint64_t word)
{
    if (!bv_fits(word, w->width)) {
        snprintf(w->msg, sizeof w->msg, "a word with bits beyond the width %lld",
                 (long long)w->width);
        b->fault = w->msg;
        return;
    }
    if ((int64_t)w->nword == w->limit) {
        snprintf(w->msg, sizeof w->msg, "the bitvector level would hold more than %lld words, "
                 "the dense limit (set " FIBERTREE_DENSE_ENV " to raise it)", (long long)w->limit);
        b->fault = w->msg;
        return;
    }
    uint64_t *a = grow_array(w->word, w->nword, &w->cap_word, sizeof *a, 64);
    if (!a) {
        b->failed = 1;
        return;
    }
    w->word = a;
    a[w->nword++] = word;
    w->open = 1;
}

static void bv_writer_take(block *b, token t, cycle_t now)
{
    bv_writer *w = b->state;
    (void)now;
    if (t.kind == TOKEN_CRD) {
        take_word(b, w, (uint64_t)t.i);
    } else if (token_is_stop(t)) {
        if (w->open && append_start(w))
            b->failed = 1;
        w->open = 0;
    } else if (t.kind == TOKEN_DONE) {
        if (w->open)
            b->fault = "D ends the stream inside a fiber (words without their stop token)";
        b->done = 1;
    } else {
        b->fault = "not a bitvector stream";
    }
}

static int bv_writer_step(block *b, cycle_t now)
{
    return block_take_step(b, now, bv_writer_take);
}

static void bv_writer_run(block *b, cycle_t until)
{
    block_take_run(b, until, bv_writer_take);
}

/* Sets the bits of word j of fiber f in the fiber's storage, for a level
 * of dimension dim. */
static int place_word(const block *b, const bv_writer *w, uint64_t *fiber, int64_t f, int64_t j,
                      int64_t dim, sam_error *err)
{
    for (uint64_t rest = w->word[w->start[f] + j]; rest; rest &= rest - 1) {
        int64_t c = j * w->width + __builtin_ctzll(rest);
        if (c >= dim)
            return block_error((block *)b, err, "fiber %lld: coordinate %lld is beyond the "
                               "dimension %lld", (long long)f, (long long)c, (long long)dim);
        fiber[c / 64] |= (uint64_t)1 << (c % 64);
    }
    return 0;
}

/* The storage of nfibers fibers (fibers beyond those written are zeros)
 * and their seg array; -1 with err set when a fiber does not fit. */
static int pack(const block *b, const bv_writer *w, int64_t nfibers, int64_t dim, uint64_t *bits,
                int64_t *seg, sam_error *err)
{
    int64_t words = bv_words(dim, w->width), stride = bv_words(dim, 64);
    int64_t written = (int64_t)w->nstart - 1;
    seg[0] = 0;
    for (int64_t f = 0; f < nfibers; f++) {
        int64_t n = f < written ? w->start[f + 1] - w->start[f] : 0, set = 0;
        if (n > words)
            return block_error((block *)b, err, "fiber %lld holds %lld words, more than the %lld "
                               "of dimension %lld in %lld-bit words", (long long)f, (long long)n,
                               (long long)words, (long long)dim, (long long)w->width);
        for (int64_t j = 0; j < n; j++)
            if (place_word(b, w, bits + f * stride, f, j, dim, err))
                return -1;
        for (int64_t q = 0; q < stride; q++)
            set += __builtin_popcountll(bits[f * stride + q]);
        seg[f + 1] = seg[f] + set;
    }
    return 0;
}

/* Fills the level of the result that stores this mode; the top level is
 * one fiber even when the stream closed none. */
static int bv_writer_collect(block *b, fibertree *result, sam_error *err)
{
    const bv_writer *w = b->state;
    for (int k = 0; k < result->order; k++) {
        fiber_level *l = &result->lv[k];
        if (l->mode != w->mode)
            continue;
        int64_t nfibers = (int64_t)w->nstart - 1, stride = bv_words(l->dim, 64);
        if (k == 0 && nfibers == 0)
            nfibers = 1;
        if (stride && nfibers > w->limit / stride)
            return block_error((block *)b, err, "bitvector level %d would hold %lld x %lld "
                               "words, more than the limit of %lld (set " FIBERTREE_DENSE_ENV
                               " to raise it)", k, (long long)nfibers, (long long)stride,
                               (long long)w->limit);
        uint64_t *bits = calloc((size_t)(nfibers * stride) + 1, sizeof *bits);
        int64_t *seg = malloc(((size_t)nfibers + 1) * sizeof *seg);
        int bad = !bits || !seg ? error_set(err, "out of memory")
                                : pack(b, w, nfibers, l->dim, bits, seg, err);
        if (bad) {
            free(bits);
            free(seg);
            return -1;
        }
        *l = (fiber_level){.kind = 'b', .mode = l->mode, .dim = l->dim, .seg = seg,
                           .nseg = (size_t)nfibers + 1, .ncrd = (size_t)seg[nfibers],
                           .bits = bits, .nbits = (size_t)(nfibers * stride)};
        return 0;
    }
    return block_error((block *)b, err, "the result has no mode %d", w->mode);
}

static const param bv_writer_params[] = {
    BV_WIDTH_PARAM,
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static int64_t bv_writer_word_width(const block *b, int port, int input)
{
    const bv_writer *w = b->state;
    return input && port == 0 ? w->width : 0;
}

static void bv_writer_destroy(block *b)
{
    bv_writer *w = b->state;
    if (w) {
        free(w->word);
        free(w->start);
    }
    free(w);
    b->state = NULL;
}

static int bv_writer_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t mode, width, limit;
    if (!block_attr(ctx, "tensor", err) || block_attr_int(ctx, "mode", &mode, err) ||
        block_param_get(b, ctx, "width", &width, err) || block_dense_limit(ctx, &limit, err))
        return -1;
    bv_writer *w = block_state_new(b, sizeof *w, err);
    if (!w)
        return -1;
    *w = (bv_writer){.width = width, .limit = limit, .mode = (int)mode};
    if (append_start(w)) {
        bv_writer_destroy(b);
        return error_set(err, "out of memory");
    }
    b->nin = 1;
    b->in_names[0] = "bv";
    return 0;
}

/* Empty, as created, under the dense limit of the data ctx binds; the
 * arrays are kept for the next run. */
static int bv_writer_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    bv_writer *w = b->state;
    if (block_dense_limit(ctx, &w->limit, err))
        return -1;
    w->nword = w->nstart = 0;
    w->open = 0;
    return append_start(w) ? error_set(err, "out of memory") : 0;
}

/* The words may come on an edge of type bv or crd. */
static int bv_writer_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    return block_sink_port(b, e, input, strcmp(e->kind, "crd") ? "bv" : "crd", err);
}

const block_ops fiberwrite_bitvector_ops = {
    .type = "fiberwrite",
    .impl = "bitvector",
    .about = "writes a bitvector level from its words, one a cycle",
    .params = bv_writer_params,
    .serves = bv_serves,
    .create = bv_writer_create,
    .rearm = bv_writer_rearm,
    .port = bv_writer_port,
    .step = bv_writer_step,
    .run = bv_writer_run,
    .peek = 1,
    .destroy = bv_writer_destroy,
    .collect = bv_writer_collect,
    .word_width = bv_writer_word_width,
};
