#include "test_harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Node attributes from "k=v,k=v" (values without commas). */
static void make_node(graph_node *n, const char *type, const char *attrs)
{
    memset(n, 0, sizeof *n);
    n->id = strdup("0");
    n->type = strdup(type);
    n->attrs = calloc(16, sizeof *n->attrs);
    char *copy = strdup(attrs ? attrs : ""), *save = NULL;
    for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        assert_non_null(eq);
        *eq = '\0';
        n->attrs[n->nattrs].key = strdup(kv);
        n->attrs[n->nattrs++].value = strdup(eq + 1);
    }
    free(copy);
}

static void free_node(graph_node *n)
{
    for (int i = 0; i < n->nattrs; i++) {
        free(n->attrs[i].key);
        free(n->attrs[i].value);
    }
    free(n->attrs);
    free(n->id);
    free(n->type);
}

typedef struct bound {
    const char *name;
    const fibertree *tree;
} bound;

static const fibertree *lookup(const block_ctx *ctx, const char *name)
{
    const bound *b = ctx->data;
    return b->name && !strcmp(b->name, name) ? b->tree : NULL;
}

/* Fills channel c with the stream, token k visible at cycle k (or 0). */
static void preload(channel *c, const char *stream, int queued)
{
    char *copy = strdup(stream), *save = NULL;
    cycle_t t = 0;
    for (char *w = strtok_r(copy, " ,", &save); w; w = strtok_r(NULL, " ,", &save), t++) {
        if (!strcmp(w, "_"))
            continue;
        token tok;
        assert_int_equal(token_parse(w, &tok), 0);
        assert_int_equal(channel_push(c, queued ? 0 : t, tok), 0);
    }
    free(copy);
}

typedef struct harness_state {
    graph_node node;
    bound bd;
    channel in[BLOCK_MAX_PORTS], out[BLOCK_MAX_PORTS];
} harness_state;

/* Creates the block of spec s in b, wired to fresh channels of hs. */
static void setup(const harness_spec *s, harness_state *hs, block *b)
{
    memset(hs, 0, sizeof *hs);
    memset(b, 0, sizeof *b);
    make_node(&hs->node, s->ops->type, s->attrs);
    hs->bd = (bound){s->tensor, s->tree};
    block_ctx ctx = {.node = &hs->node, .tensor = lookup, .data = &hs->bd};
    b->ops = s->ops;
    b->node = &hs->node;
    b->ii = 1;
    b->idle_from = b->last_step = CYCLE_NONE;
    sam_error err;
    if (s->ops->create(b, &ctx, &err))
        fail_msg("%s", err.msg);
    for (int p = 0; p < b->nin; p++) {
        assert_int_equal(channel_init(&hs->in[p], 0, 0), 0);
        assert_int_equal(channel_add_reader(&hs->in[p], -1), 0);
        preload(&hs->in[p], s->inputs[p] ? s->inputs[p] : "", s->queued);
        b->in[p] = (in_port){.ch = &hs->in[p], .reader = 0};
    }
    for (int p = 0; p < b->nout; p++) {
        assert_int_equal(channel_init(&hs->out[p], 0, 1), 0);
        assert_int_equal(channel_add_reader(&hs->out[p], -1), 0);
        b->out[p].ch = &hs->out[p];
    }
}

static void teardown(harness_state *hs, block *b)
{
    for (int p = 0; p < BLOCK_MAX_PORTS; p++) {
        channel_free(&hs->in[p]);
        channel_free(&hs->out[p]);
    }
    free_node(&hs->node);
    b->node = NULL;
}

/* What a reader taking one token a cycle, in the cycle after each push,
 * sees of output p: the form the expectations are written in. */
static void record_outputs(harness_out *out, harness_state *hs)
{
    for (int p = 0; p < out->blk.nout; p++)
        for (cycle_t t = 0; t < (cycle_t)out->ncycles; t++) {
            token tok;
            if (channel_peek(&hs->out[p], 0, t + 1, &tok)) {
                out->tok[p][t] = tok;
                out->has[p][t] = 1;
                channel_pop(&hs->out[p], 0, t + 1);
            }
        }
}

static int same_token(token a, token b)
{
    if (a.kind != b.kind || a.level != b.level || a.hollow != b.hollow)
        return 0;
    return a.kind == TOKEN_VAL ? a.v == b.v || (a.v != a.v && b.v != b.v) : a.i == b.i;
}

/* Runs the block again, through its run (or the adapter over its step)
 * with time split at random cycles, and requires exactly the pushes, at
 * the same cycles, and the same end as stepping it every cycle. */
static void check_split_run(const harness_spec *s, const harness_out *out, harness_state *hs,
                            unsigned seed)
{
    harness_state *h2 = calloc(1, sizeof *h2);
    block b;
    setup(s, h2, &b);
    cycle_t until = 0, cycles = (cycle_t)(s->cycles ? s->cycles : 200);
    while (until < cycles && !b.done && !b.fault) {
        seed = seed * 1103515245u + 12345u;
        until += 1 + (seed >> 16) % 9;
        if (until > cycles)
            until = cycles;
        if (b.ops->run)
            b.ops->run(&b, until);
        else
            block_run(&b, until);
    }
    if (b.fault)
        fail_msg("split run: block fault: %s", b.fault);
    if (b.done != out->done || (b.done && b.last_step != out->done_cycle))
        fail_msg("split run: done %d at %llu, stepped: done %d at %llu", b.done,
                 (unsigned long long)b.last_step, out->done, (unsigned long long)out->done_cycle);
    for (int p = 0; p < b.nout; p++) {
        const channel *x = &hs->out[p], *y = &h2->out[p];
        if (channel_pushes(x) != channel_pushes(y))
            fail_msg("split run: output %d has %llu tokens, stepped %llu", p,
                     (unsigned long long)channel_pushes(y), (unsigned long long)channel_pushes(x));
        for (uint64_t k = 0; k < channel_pushes(x); k++) {
            const channel_entry *ex = channel_pushed_entry(x, k), *ey = channel_pushed_entry(y, k);
            if (channel_entry_visible(ex) != channel_entry_visible(ey) ||
                !same_token(channel_entry_token(ex), channel_entry_token(ey)))
                fail_msg("split run: output %d token %llu differs", p, (unsigned long long)k);
        }
    }
    block_destroy(&b);
    teardown(h2, &b);
    free(h2);
}

void harness_run(const harness_spec *s, harness_out *out)
{
    memset(out, 0, sizeof *out);
    harness_state *hs = calloc(1, sizeof *hs);
    block *b = &out->blk;
    setup(s, hs, b);
    int cycles = s->cycles ? s->cycles : 200;
    for (cycle_t t = 0; t < (cycle_t)cycles && !b->done; t++) {
        b->ops->step(b, t);
        if (b->fault)
            fail_msg("block fault at cycle %llu: %s", (unsigned long long)t, b->fault);
        out->ncycles = (int)t + 1;
        if (b->done) {
            out->done = 1;
            out->done_cycle = t;
        }
    }
    for (unsigned seed = 1; seed <= 3; seed++)
        check_split_run(s, out, hs, seed);
    record_outputs(out, hs);
    teardown(hs, b);
    free(hs);
}

void harness_refused(const harness_spec *s, const char *want)
{
    graph_node node;
    make_node(&node, s->ops->type, s->attrs);
    bound bd = {s->tensor, s->tree};
    block_ctx ctx = {.node = &node, .tensor = lookup, .data = &bd};
    block b = {.ops = s->ops, .node = &node};
    sam_error err = {{0}};
    assert_int_equal(s->ops->create(&b, &ctx, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("'%s' lacks '%s'", err.msg, want);
    /* The engine never destroys a block whose create failed. */
    assert_null(b.state);
    free_node(&node);
}

void harness_free(harness_out *out)
{
    block_destroy(&out->blk);
}

static int tokens_match(token a, token b)
{
    int an = a.kind == TOKEN_CRD || a.kind == TOKEN_VAL;
    int bn = b.kind == TOKEN_CRD || b.kind == TOKEN_VAL;
    if (an && bn)
        return (a.kind == TOKEN_CRD ? (double)a.i : a.v) == (b.kind == TOKEN_CRD ? (double)b.i : b.v);
    return token_equal(a, b) && a.hollow == b.hollow;
}

/* The output as text, for failure messages. */
static void render(const harness_out *out, int p, int exact, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    int last = out->ncycles - 1;
    while (last >= 0 && !out->has[p][last])
        last--;
    for (int t = 0; t <= last && len + 40 < n; t++) {
        char tb[32];
        if (out->has[p][t])
            len += (size_t)snprintf(buf + len, n - len, "%s ", token_str(out->tok[p][t], tb));
        else if (exact)
            len += (size_t)snprintf(buf + len, n - len, "_ ");
    }
}

void harness_expect(const harness_out *out, int p, const char *expected, int exact)
{
    char got[4096];
    render(out, p, exact, got, sizeof got);
    char *copy = strdup(expected), *save = NULL;
    int t = 0, ok = 1;
    for (char *w = strtok_r(copy, " ,", &save); w && ok; w = strtok_r(NULL, " ,", &save)) {
        if (!exact)
            while (t < out->ncycles && !out->has[p][t])
                t++;
        if (!strcmp(w, "_")) {
            ok = t < out->ncycles ? !out->has[p][t] : 1;
        } else {
            token want;
            assert_int_equal(token_parse(w, &want), 0);
            ok = t < out->ncycles && out->has[p][t] && tokens_match(out->tok[p][t], want);
        }
        t++;
    }
    for (; ok && t < out->ncycles; t++)
        ok = !out->has[p][t];
    free(copy);
    if (!ok)
        fail_msg("output %d: expected [%s], got [%s]", p, expected, got);
}

void harness_level(fibertree *ft, const int64_t *seg, size_t nseg, const int64_t *crd, size_t ncrd)
{
    memset(ft, 0, sizeof *ft);
    ft->order = 1;
    ft->dims[0] = 1 << 20;
    fiber_level *l = &ft->lv[0];
    l->kind = 's';
    l->dim = ft->dims[0];
    l->seg = malloc(nseg * sizeof *seg + 1);
    l->crd = malloc(ncrd * sizeof *crd + 1);
    if (nseg)
        memcpy(l->seg, seg, nseg * sizeof *seg);
    if (ncrd)
        memcpy(l->crd, crd, ncrd * sizeof *crd);
    l->nseg = nseg;
    l->ncrd = ncrd;
    ft->nvals = ncrd;
    ft->vals = calloc(ncrd + 1, sizeof *ft->vals);
}

void harness_bv_level(fibertree *ft, int64_t dim, const uint64_t *bits, size_t nbits)
{
    memset(ft, 0, sizeof *ft);
    ft->order = 1;
    ft->dims[0] = dim;
    fiber_level *l = &ft->lv[0];
    l->kind = 'b';
    l->dim = dim;
    size_t stride = (size_t)(dim + 63) / 64, nfibers = stride ? nbits / stride : 0;
    l->bits = malloc(nbits * sizeof *bits + 1);
    l->seg = malloc((nfibers + 1) * sizeof *l->seg);
    assert_non_null(l->bits);
    assert_non_null(l->seg);
    if (nbits)
        memcpy(l->bits, bits, nbits * sizeof *bits);
    l->nbits = nbits;
    l->nseg = nfibers + 1;
    l->seg[0] = 0;
    for (size_t f = 0; f < nfibers; f++) {
        int64_t n = 0;
        for (size_t q = 0; q < stride; q++)
            n += __builtin_popcountll(bits[f * stride + q]);
        l->seg[f + 1] = l->seg[f] + n;
    }
    l->ncrd = (size_t)l->seg[nfibers];
    ft->nvals = l->ncrd;
    ft->vals = malloc((ft->nvals + 1) * sizeof *ft->vals);
    assert_non_null(ft->vals);
    for (size_t k = 0; k < ft->nvals; k++)
        ft->vals[k] = (double)(k + 1);
}
