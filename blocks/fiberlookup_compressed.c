/* fiberlookup, compressed level (SAM-BLOCKS.md 5.1): for each reference on
 * its input, the coordinates of that fiber and their positions, closed by
 * a stop token. Like the reference it advances within a fiber, and emits
 * the fiber's stop token, only once the next reference is visible, and
 * merges that stop with a following stop-token reference (Sk -> Sk+1). */
#include <stdlib.h>
#include <string.h>

#include "blocks.h"

enum { IN_REF };
enum { OUT_CRD, OUT_REF };

typedef struct scanner {
    const int64_t *seg, *crd;
    size_t nseg, ncrd;
    int begin, end_fiber, pend_stop, done;
    int64_t cur, stop;      /* cur < 0: no fiber open */
} scanner;

static void emit(block *b, cycle_t now, token crd, token ref)
{
    out_push(b, OUT_CRD, now, crd);
    out_push(b, OUT_REF, now, ref);
}

/* The fiber's stop token, merged with a stop-token reference at the head
 * of the input, or deferred until a reference is visible. */
static void emit_stop(block *b, scanner *s, cycle_t now)
{
    token head;
    if (!in_peek(b, IN_REF, now, &head)) {
        s->pend_stop = 1;
        return;
    }
    token stop = token_stop(0);
    if (token_is_stop(head)) {
        in_pop(b, IN_REF, now);
        stop = token_stop(head.level + 1);
    }
    emit(b, now, stop, stop);
}

static void close_fiber(block *b, scanner *s, cycle_t now)
{
    s->end_fiber = 1;
    s->cur = -1;
    emit_stop(b, s, now);
}

static void emit_position(block *b, scanner *s, cycle_t now)
{
    emit(b, now, token_crd(s->crd[s->cur]), token_crd(s->cur));
}

static void next_fiber(block *b, scanner *s, cycle_t now, token r)
{
    s->begin = s->end_fiber = 0;
    if (r.kind == TOKEN_DONE) {
        emit(b, now, r, r);
        s->done = 1;
    } else if (token_is_stop(r)) {
        emit(b, now, token_stop(r.level + 1), token_stop(r.level + 1));
        s->end_fiber = 1;
    } else if (r.kind == TOKEN_EMPTY) {
        emit(b, now, r, r);
        s->end_fiber = s->pend_stop = 1;
    } else if (r.kind != TOKEN_CRD || r.i < 0 || (size_t)r.i + 1 >= s->nseg) {
        b->fault = "reference beyond the seg array";
    } else if (s->seg[r.i] >= s->seg[r.i + 1]) {
        close_fiber(b, s, now);
    } else {
        s->cur = s->seg[r.i];
        s->stop = s->seg[r.i + 1];
        emit_position(b, s, now);
    }
}

static int scanner_step(block *b, cycle_t now)
{
    scanner *s = b->state;
    token r;
    int have = in_peek(b, IN_REF, now, &r);
    if (s->done)
        return 0;
    if (s->pend_stop) {
        if (!have)
            return 0;
        s->pend_stop = 0;
        emit_stop(b, s, now);
        return 1;
    }
    if (have && (s->begin || s->end_fiber)) {
        in_pop(b, IN_REF, now);
        next_fiber(b, s, now, r);
        return 1;
    }
    if (!s->begin && s->cur >= 0 && (s->cur == s->stop - 1 || (size_t)s->cur == s->ncrd - 1)) {
        close_fiber(b, s, now);
        return 1;
    }
    if (have && !s->begin && s->cur >= 0) {
        s->cur++;
        emit_position(b, s, now);
        return 1;
    }
    return 0;
}

static int scanner_serves(const graph_node *n)
{
    const char *f = graph_node_attr(n, "format");
    return f && !strcmp(f, "compressed");
}

static int scanner_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t mode;
    const char *tensor = block_attr(ctx, "tensor", err);
    const fibertree *ft;
    if (!tensor || block_attr_int(ctx, "mode", &mode, err))
        return -1;
    const fiber_level *l = block_level(ctx, tensor, (int)mode, &ft, err);
    if (!l)
        return -1;
    if (l->kind != 's')
        return block_error(b, err, "tensor %s stores mode %lld densely, not compressed", tensor,
                           (long long)mode);
    scanner *s = calloc(1, sizeof *s);
    if (!s)
        return error_set(err, "out of memory");
    *s = (scanner){.seg = l->seg, .crd = l->crd, .nseg = l->nseg, .ncrd = l->ncrd,
                   .begin = 1, .cur = -1};
    b->state = s;
    b->nin = 1;
    b->nout = 2;
    b->in_names[IN_REF] = "ref";
    b->out_names[OUT_CRD] = "crd";
    b->out_names[OUT_REF] = "ref";
    return 0;
}

static int scanner_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const in_kinds[] = {"ref"}, *const out_kinds[] = {"crd", "ref"};
    return input ? block_port_by_kind(b, e, 1, in_kinds, 1, err)
                 : block_port_by_kind(b, e, 0, out_kinds, 2, err);
}

static void scanner_destroy(block *b)
{
    free(b->state);
}

const block_ops fiberlookup_compressed_ops = {
    .type = "fiberlookup",
    .impl = "compressed",
    .about = "coordinates and positions of a compressed level, one per cycle",
    .serves = scanner_serves,
    .create = scanner_create,
    .port = scanner_port,
    .step = scanner_step,
    .destroy = scanner_destroy,
};
