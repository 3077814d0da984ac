/* crdhold (SAM-BLOCKS.md 5.15): repeats each outer coordinate once per
 * element of its inner fiber, so that the outer stream gets the shape of
 * the inner one; the inner stream passes through unchanged, in the cycle
 * it is read. It is the reference's pair of a private repsiggen (5.7) on
 * the inner stream and a private repeat (5.8) of the outer stream, with
 * their timing: the repeat signal of an inner token reaches the repeat one
 * cycle after the token is read, and the repeat's ref FIFO is filled with
 * at most one outer token per cycle. That FIFO is the head of the outer
 * input itself (moved counts how much of it the repeat may see), so outer
 * tokens wait in their channel, not here.
 *
 * The reference's repeat starts expecting a ref and a signal at once, so a
 * signal that arrives before the first outer token is consumed against no
 * ref and lost (SAM-BLOCKS.md 8.8); samsim reads a signal only while it
 * holds a ref.
 *
 * Ports: input and output 0 carry the outer index, 1 the inner one, told
 * apart by the index names (attributes outer and inner) in the edges'
 * comments or labels: "i", "outer-i", "inner-k", ... */
#include <stdlib.h>
#include <string.h>

#include "blocks.h"

enum { OUTER, INNER };

typedef struct holder {
    const char *outer, *inner;      /* index names */
    uint8_t signal;                 /* token kind read from the inner stream this
                                       cycle as R, S or D for the repeat; 0: none */
    uint8_t *sig;                   /* the repeat's signal FIFO, a ring */
    size_t head, count, cap;
    int moved;                      /* outer tokens in the repeat's ref FIFO */
    token cur;                      /* the repeat's ref */
    int held, pend_stop;
} holder;

static uint8_t signal_of(token t)
{
    return token_is_stop(t) ? TOKEN_REPSTOP : t.kind == TOKEN_DONE ? TOKEN_DONE : TOKEN_REPEAT;
}

static int sig_push(holder *h, uint8_t s)
{
    if (h->count == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 16;
        uint8_t *a = malloc(cap);
        if (!a)
            return -1;
        for (size_t k = 0; k < h->count; k++)
            a[k] = h->sig[(h->head + k) % h->cap];
        free(h->sig);
        h->sig = a;
        h->head = 0;
        h->cap = cap;
    }
    h->sig[(h->head + h->count++) % h->cap] = s;
    return 0;
}

static uint8_t sig_pop(holder *h)
{
    uint8_t s = h->sig[h->head];
    h->head = (h->head + 1) % h->cap;
    h->count--;
    return s;
}

static int ref_peek(const block *b, const holder *h, cycle_t now, token *t)
{
    return h->moved > 0 && in_peek(b, OUTER, now, t);
}

static void ref_pop(block *b, holder *h, cycle_t now)
{
    in_pop(b, OUTER, now);
    h->moved--;
}

/* The stop token that closes a repetition, merged with a stop-token ref at
 * the head of the ref FIFO, or deferred until a ref is there. */
static void close_repeat(block *b, holder *h, cycle_t now, token *out, int *emit)
{
    token head;
    if (!ref_peek(b, h, now, &head)) {
        h->pend_stop = 1;
        return;
    }
    *out = token_stop(0);
    if (token_is_stop(head)) {
        ref_pop(b, h, now);
        *out = token_stop(head.level + 1);
    }
    *emit = 1;
}

static void apply_signal(block *b, holder *h, cycle_t now, uint8_t s, token *out, int *emit)
{
    if (s == TOKEN_DONE || h->cur.kind == TOKEN_DONE) {
        if (s != h->cur.kind) {
            b->fault = "the outer and inner streams end at different points";
            return;
        }
        h->held = 0;
        *out = h->cur;
        *emit = 1;
    } else if (s == TOKEN_REPEAT) {
        if (token_is_stop(h->cur)) {
            b->fault = "an inner element for an outer stop token";
            return;
        }
        *out = h->cur;
        *emit = 1;
    } else {
        h->held = 0;
        *emit = token_is_stop(h->cur);
        if (*emit)
            *out = token_stop(h->cur.level + 1);
        else
            close_repeat(b, h, now, out, emit);
    }
}

/* One cycle of the private repeat (SAM-BLOCKS.md 5.8). */
static int repeat(block *b, holder *h, cycle_t now, token *out, int *emit)
{
    if (h->pend_stop) {
        token head;
        if (!ref_peek(b, h, now, &head))
            return 0;
        h->pend_stop = 0;
        close_repeat(b, h, now, out, emit);
        return 1;
    }
    int changed = 0;
    if (!h->held) {
        if (!ref_peek(b, h, now, &h->cur))
            return 0;
        ref_pop(b, h, now);
        h->held = changed = 1;
    }
    if (!h->count)
        return changed;
    apply_signal(b, h, now, sig_pop(h), out, emit);
    return 1;
}

static int hold_step(block *b, cycle_t now)
{
    holder *h = b->state;
    int changed = 0, emit = 0;
    token t;
    if (h->signal) {
        if (sig_push(h, h->signal))
            b->failed = 1;
        h->signal = 0;
        changed = 1;
    }
    if (in_peek(b, INNER, now, &t)) {
        in_pop(b, INNER, now);
        out_push(b, INNER, now, t);
        h->signal = signal_of(t);
        changed = 1;
    }
    if (channel_sees(b->in[OUTER].ch, b->in[OUTER].reader, now, (uint64_t)h->moved)) {
        h->moved++;
        changed = 1;
    }
    changed |= repeat(b, h, now, &t, &emit);
    if (emit)
        out_push(b, OUTER, now, t);
    return changed;
}

static int hold_create(block *b, const block_ctx *ctx, sam_error *err)
{
    const char *outer = block_attr(ctx, "outer", err), *inner = block_attr(ctx, "inner", err);
    if (!outer || !inner)
        return -1;
    holder *h = calloc(1, sizeof *h);
    if (!h)
        return error_set(err, "out of memory");
    h->outer = outer;
    h->inner = inner;
    b->state = h;
    b->nin = b->nout = 2;
    b->in_names[OUTER] = b->out_names[OUTER] = "outer";
    b->in_names[INNER] = b->out_names[INNER] = "inner";
    return 0;
}

/* The last word of s, split at '-' and '_', that is one of the index
 * names: OUTER, INNER, or -1. */
static int named_index(const char *s, const char *outer, const char *inner)
{
    int found = -1;
    while (*s) {
        size_t n = strcspn(s, "-_");
        if (n == strlen(outer) && !strncmp(s, outer, n))
            found = OUTER;
        else if (n == strlen(inner) && !strncmp(s, inner, n))
            found = INNER;
        s += n + (s[n] != '\0');
    }
    return found;
}

static int hold_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    const holder *h = b->state;
    int p = named_index(e->comment, h->outer, h->inner);
    if (p < 0)
        p = named_index(e->label, h->outer, h->inner);
    if (p < 0)
        return block_error(b, err, "%s edge '%s' names neither index %s nor %s",
                           input ? "input" : "output", e->label, h->outer, h->inner);
    return p;
}

static void hold_destroy(block *b)
{
    holder *h = b->state;
    if (h)
        free(h->sig);
    free(h);
}

const block_ops crdhold_ops = {
    .type = "crdhold",
    .impl = "default",
    .about = "repeats each outer coordinate once per element of its inner fiber",
    .create = hold_create,
    .port = hold_port,
    .step = hold_step,
    .destroy = hold_destroy,
};
