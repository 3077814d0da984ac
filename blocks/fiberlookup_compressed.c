/* fiberlookup, compressed level (SAM-BLOCKS.md 5.1): for each reference on
 * its input, the coordinates of that fiber and their positions, closed by
 * a stop token (scanner.h). Like the reference it advances within a fiber
 * only once the next reference is visible. */
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "scanner.h"

typedef struct compressed {
    scanner s;
    const int64_t *seg, *crd;
    size_t nseg, ncrd;
    int64_t stop;           /* the end of the open fiber in crd */
} compressed;

static void emit_position(block *b, const compressed *c, cycle_t now)
{
    scanner_emit(b, now, token_crd(c->crd[c->s.cur]), token_crd(c->s.cur));
}

static void next_fiber(block *b, compressed *c, cycle_t now, token r)
{
    if (!scanner_start(b, &c->s, now, r))
        return;
    if (r.kind != TOKEN_CRD || r.i < 0 || (size_t)r.i + 1 >= c->nseg) {
        b->fault = "reference beyond the seg array";
    } else if (c->seg[r.i] >= c->seg[r.i + 1]) {
        scanner_close(b, &c->s, now);
    } else {
        c->s.cur = c->seg[r.i];
        c->stop = c->seg[r.i + 1];
        emit_position(b, c, now);
    }
}

static int compressed_step(block *b, cycle_t now)
{
    compressed *c = b->state;
    scanner *s = &c->s;
    token r;
    int have = in_peek(b, SCANNER_IN_REF, now, &r);
    if (s->done || s->pend_stop)
        return scanner_pending(b, s, have, now);
    if (have && (s->begin || s->end_fiber)) {
        next_fiber(b, c, now, r);
        return 1;
    }
    if (!s->begin && s->cur >= 0 && (s->cur == c->stop - 1 || (size_t)s->cur == c->ncrd - 1)) {
        scanner_close(b, s, now);
        return 1;
    }
    if (have && !s->begin && s->cur >= 0) {
        s->cur++;
        emit_position(b, c, now);
        return 1;
    }
    return 0;
}

static int compressed_serves(const graph_node *n)
{
    const char *f = graph_node_attr(n, "format");
    return f && !strcmp(f, "compressed");
}

static int compressed_create(block *b, const block_ctx *ctx, sam_error *err)
{
    const fibertree *ft;
    const fiber_level *l = scanner_create(b, ctx, 's', &ft, err);
    if (!l)
        return -1;
    compressed *c = calloc(1, sizeof *c);
    if (!c)
        return error_set(err, "out of memory");
    *c = (compressed){.s = SCANNER_START, .seg = l->seg, .crd = l->crd, .nseg = l->nseg,
                      .ncrd = l->ncrd};
    b->state = c;
    return 0;
}

static void compressed_destroy(block *b)
{
    free(b->state);
}

const block_ops fiberlookup_compressed_ops = {
    .type = "fiberlookup",
    .impl = "compressed",
    .about = "coordinates and positions of a compressed level, one per cycle",
    .serves = compressed_serves,
    .create = compressed_create,
    .port = scanner_port,
    .step = compressed_step,
    .destroy = compressed_destroy,
};
