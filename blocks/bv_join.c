#include "bv_join.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitvector.h"

/* Sends the coordinate and the sides' refs of the lowest bit still to
 * send, and clears it. */
static void send_bit(block *b, bv_join *x, cycle_t now)
{
    uint64_t bit = x->rest & -x->rest, below = bit - 1;
    out_push(b, x->out_crd, now, token_crd(x->at + __builtin_ctzll(bit)));
    for (int k = 0; k < x->n; k++) {
        token ref = token_empty();
        if (x->word[k] & bit)
            ref = token_crd(x->base[k] + __builtin_popcountll(x->word[k] & below));
        out_push(b, x->out_ref + k, now, ref);
    }
    x->rest &= ~bit;
}

/* The token pair every side shows (word, ref); 0 when a side shows none. */
static int heads(block *b, const bv_join *x, cycle_t now, token *w, token *r)
{
    for (int k = 0; k < x->n; k++)
        if (!in_peek(b, 2 * k, now, &w[k]) || !in_peek(b, 2 * k + 1, now, &r[k]))
            return 0;
    return 1;
}

static void take(block *b, int k, cycle_t now)
{
    in_pop(b, 2 * k, now);
    in_pop(b, 2 * k + 1, now);
}

/* Every side's stop token (or D), taken and passed on: side 0's on the
 * word and coordinate outputs, side k's on its ref output. */
static void pass_on(block *b, const bv_join *x, cycle_t now, const token *w)
{
    if (x->out_bv >= 0)
        out_push(b, x->out_bv, now, w[0]);
    out_push(b, x->out_crd, now, w[0]);
    for (int k = 0; k < x->n; k++) {
        take(b, k, now);
        out_push(b, x->out_ref + k, now, w[k]);
    }
}

static void finish(block *b, bv_join *x, cycle_t now, const token *w, const token *r)
{
    for (int k = 0; k < x->n; k++)
        if (w[k].kind != TOKEN_DONE || r[k].kind != TOKEN_DONE) {
            b->fault = "the input streams end at different points";
            return;
        }
    pass_on(b, x, now, w);
    x->done = 1;
}

static void end_fibers(block *b, bv_join *x, cycle_t now, const token *w, const token *r)
{
    for (int k = 0; k < x->n; k++)
        if (!token_equal(w[k], w[0]) || !token_equal(w[k], r[k])) {
            b->fault = "stop tokens of different levels meet";
            return;
        }
    pass_on(b, x, now, w);
    x->taken = 0;
}

/* Why word w with ref r cannot be taken, or NULL. */
static const char *bad_word(bv_join *x, token w, token r)
{
    if (r.kind != TOKEN_CRD)
        return "a bitvector word without a numeric ref";
    if (!bv_fits((uint64_t)w.i, x->width)) {
        snprintf(x->msg, sizeof x->msg, "a word with bits beyond the width %lld",
                 (long long)x->width);
        return x->msg;
    }
    return NULL;
}

/* A word from every side that has one; a side at its stop token counts
 * as a zero word and stays there. */
static void take_words(block *b, bv_join *x, cycle_t now, const token *w, const token *r)
{
    for (int k = 0; k < x->n; k++) {
        const char *why = w[k].kind == TOKEN_CRD ? bad_word(x, w[k], r[k]) : NULL;
        if (why) {
            b->fault = why;
            return;
        }
    }
    uint64_t word = x->op == BV_AND ? ~(uint64_t)0 : 0;
    for (int k = 0; k < x->n; k++) {
        int has = w[k].kind == TOKEN_CRD;
        x->word[k] = has ? (uint64_t)w[k].i : 0;
        x->base[k] = has ? r[k].i : 0;
        word = x->op == BV_AND ? word & x->word[k] : word | x->word[k];
        if (has)
            take(b, k, now);
    }
    x->at = x->taken++ * x->width;
    x->rest = word;
    if (x->out_bv >= 0 && (word || x->emit_zeros))
        out_push(b, x->out_bv, now, token_crd((int64_t)word));
    if (word)
        send_bit(b, x, now);
}

int bv_join_step(block *b, bv_join *x, cycle_t now)
{
    token w[JOINER_MAX_SIDES], r[JOINER_MAX_SIDES];
    if (x->done)
        return 0;
    if (x->rest) {
        send_bit(b, x, now);
        return 1;
    }
    if (!heads(b, x, now, w, r))
        return 0;
    int stops = 0, ends = 0, others = 0;
    for (int k = 0; k < x->n; k++) {
        stops += token_is_stop(w[k]);
        ends += w[k].kind == TOKEN_DONE;
        others += w[k].kind != TOKEN_CRD && !token_is_stop(w[k]) && w[k].kind != TOKEN_DONE;
    }
    if (ends)
        finish(b, x, now, w, r);
    else if (others)
        b->fault = "not a bitvector stream";
    else if (stops == x->n)
        end_fibers(b, x, now, w, r);
    else
        take_words(b, x, now, w, r);
    return 1;
}

uint64_t bv_join_bits(block *b, bv_join *x, cycle_t t, uint64_t max)
{
    uint64_t n = 0;
    for (; n < max && x->rest && !x->done; n++, t += b->ii)
        send_bit(b, x, t);
    return n;
}

void bv_join_restart(bv_join *x)
{
    *x = (bv_join){.n = x->n, .op = x->op, .width = x->width, .emit_zeros = x->emit_zeros,
                   .out_bv = x->out_bv, .out_crd = x->out_crd, .out_ref = x->out_ref};
}

/* ---- the intersect and the union ---------------------------------------- */

/* The ports of side k read bv where a joiner reads crd; the names point
 * into v's copy of the joiner. */
static void name_ports(block *b, bv_joiner *v)
{
    for (int k = 0; k < v->j.n; k++) {
        const char *t = v->j.name[k] ? v->j.name[k] : "";
        snprintf(v->j.in_label[2 * k], JOINER_LABEL, "bv_in-%s", t);
        b->in_names[2 * k] = v->j.in_label[2 * k];
        b->in_names[2 * k + 1] = v->j.in_label[2 * k + 1];
        b->out_names[1 + k] = v->j.out_label[1 + k];
    }
    b->out_names[0] = "bv";
    b->out_names[1 + v->j.n] = "crd";
    b->nout = 2 + v->j.n;
}

int bv_joiner_create(block *b, const block_ctx *ctx, bv_op op, sam_error *err)
{
    int64_t width, emit_zeros;
    if (block_param_get(b, ctx, "width", &width, err) ||
        block_param_get(b, ctx, "emit_zeros", &emit_zeros, err) || joiner_create(b, ctx, err))
        return -1;
    /* joiner_create allocated a bare joiner; the block keeps a copy of it
     * beside its own state. */
    joiner *bare = b->state;
    bv_joiner *v = block_state_new(b, sizeof *v, err);
    if (v)
        v->j = *bare;
    free(bare);
    if (!v)
        return -1;
    int n = v->j.n;
    v->x = (bv_join){.n = n, .op = op, .width = width, .emit_zeros = (int)emit_zeros,
                     .out_bv = 0, .out_ref = 1, .out_crd = 1 + n};
    name_ports(b, v);
    return 0;
}

/* joiner_port, with bv streams where the joiner has crd ones; an output
 * of type crd is the coordinates, unless its label says it carries the
 * words ("bv"). */
int bv_joiner_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    const bv_joiner *v = b->state;
    int crd = !strcmp(e->kind, "crd"), bv = !strcmp(e->kind, "bv");
    if (!input && (bv || (crd && !strcmp(e->label, "bv"))))
        return v->x.out_bv;
    if (!input && crd)
        return v->x.out_crd;
    graph_edge as_crd = *e;
    if (bv)
        as_crd.kind = "crd";
    return joiner_port(b, &as_crd, input, err);
}

/* Each side's words come on its even input; the joined ones leave on the
 * bv output. */
int64_t bv_joiner_word_width(const block *b, int port, int input)
{
    const bv_joiner *v = b->state;
    if (input)
        return port % 2 == 0 && port < 2 * v->j.n ? v->x.width : 0;
    return port == v->x.out_bv ? v->x.width : 0;
}

/* Only the word join runs: the joiner's part holds the sides and labels
 * the ports were wired by, which stay. */
int bv_joiner_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    bv_joiner *v = b->state;
    bv_join_restart(&v->x);
    return 0;
}

int bv_joiner_step(block *b, cycle_t now)
{
    bv_joiner *v = b->state;
    return bv_join_step(b, &v->x, now);
}

static uint64_t joiner_bits(block *b, cycle_t t, uint64_t max, int *idle)
{
    bv_joiner *v = b->state;
    (void)idle;     /* never: a step with bits to send always sends one */
    return bv_join_bits(b, &v->x, t, max);
}

void bv_joiner_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, joiner_bits);
}

