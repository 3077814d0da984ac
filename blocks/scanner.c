#include "scanner.h"

#include <string.h>

/* How a level of kind k stores its mode, as a refusal says it. */
static const char *stored_as(char k)
{
    switch (k) {
    case 'd':
        return "densely";
    case 's':
        return "compressed";
    case 'b':
        return "as a bitvector";
    default:
        return "as a linked list";
    }
}

/* The kind a scanner wants, as a refusal says it. */
static const char *wanted(char k)
{
    return k == 'd'   ? "dense"
           : k == 's' ? "compressed"
           : k == 'b' ? "as a bitvector"
                      : "as a linked list";
}

const fiber_level *scanner_level(block *b, const block_ctx *ctx, const scanner_source *src,
                                 const fibertree **tree, sam_error *err)
{
    const fiber_level *l = block_level(ctx, src->tensor, src->mode, tree, err);
    if (l && l->kind != src->kind) {
        block_error(b, err, "tensor %s stores mode %d %s, not %s", src->tensor, src->mode,
                    stored_as(l->kind), wanted(src->kind));
        return NULL;
    }
    return l;
}

const fiber_level *scanner_create(block *b, const block_ctx *ctx, char kind,
                                  scanner_source *src, const fibertree **tree, sam_error *err)
{
    int64_t mode;
    const char *tensor = block_attr(ctx, "tensor", err);
    if (!tensor || block_attr_int(ctx, "mode", &mode, err))
        return NULL;
    *src = (scanner_source){.tensor = tensor, .mode = (int)mode, .kind = kind};
    const fiber_level *l = scanner_level(b, ctx, src, tree, err);
    if (!l)
        return NULL;
    b->nin = 1;
    b->nout = 2;
    b->in_names[SCANNER_IN_REF] = "ref";
    b->in_names[SCANNER_IN_SKIP] = "skip";
    b->out_names[SCANNER_OUT_CRD] = "crd";
    b->out_names[SCANNER_OUT_REF] = "ref";
    return l;
}

/* A coordinate stream may feed the ref input: a dense level scanned at
 * another tensor's coordinates locates them (SAM paper section 4.2; the
 * reference's own SDDMM test is wired so). */
int scanner_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const out_kinds[] = {"crd", "ref"};
    if (input && (!strcmp(e->kind, "ref") || !strcmp(e->kind, "crd")))
        return SCANNER_IN_REF;
    return input ? block_error(b, err, "no input port for a %s stream (edge label '%s')",
                               e->kind, e->label)
                 : block_port_by_kind(b, e, 0, out_kinds, 2, err);
}

void scanner_emit(block *b, cycle_t now, token crd, token ref)
{
    out_push(b, SCANNER_OUT_CRD, now, crd);
    out_push(b, SCANNER_OUT_REF, now, ref);
}

/* The fiber's stop token, merged with a stop-token reference at the head
 * of the input, or deferred until a reference is visible. */
static void emit_stop(block *b, scanner *s, cycle_t now)
{
    token stop;
    if (block_closing_stop(b, SCANNER_IN_REF, now, &stop)) {
        scanner_emit(b, now, stop, stop);
        s->stops++;
    } else {
        s->pend_stop = 1;
    }
}

void scanner_close(block *b, scanner *s, cycle_t now)
{
    s->end_fiber = 1;
    s->cur = -1;
    emit_stop(b, s, now);
}

int scanner_pending(block *b, scanner *s, int have, cycle_t now)
{
    if (s->done || !have)
        return 0;
    s->pend_stop = 0;
    emit_stop(b, s, now);
    return 1;
}

int scanner_start(block *b, scanner *s, cycle_t now, token r)
{
    in_pop(b, SCANNER_IN_REF, now);
    s->begin = s->end_fiber = 0;
    if (r.kind == TOKEN_DONE) {
        scanner_emit(b, now, r, r);
        s->done = 1;
    } else if (token_is_stop(r)) {
        scanner_emit(b, now, token_stop_below(r), token_stop_below(r));
        s->end_fiber = 1;
        s->stops++;
    } else if (r.kind == TOKEN_EMPTY) {
        scanner_emit(b, now, r, r);
        s->end_fiber = s->pend_stop = 1;
    } else {
        return 1;
    }
    return 0;
}
