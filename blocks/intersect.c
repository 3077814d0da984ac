/* intersect, two-finger (SAM-BLOCKS.md 5.9): the coordinates that every
 * side holds, with each side's reference. A side is one input tensor, a
 * (crd, ref) pair of streams named "in-B"; inputs 2k and 2k+1 are the crd
 * and ref of side k, output 0 the crd and output 1+k the ref of side k.
 * The sides are numbered in the order their first input edge appears in
 * the graph. Like the reference, the block compares head registers filled
 * in an earlier cycle (so the first step only fills them), and a step
 * needs a token pair visible on every side, even to advance one of them.
 *
 * Graphs may join more than two tensors in one node (tensor3_website_expr):
 * every side behind the largest head advances, which for two sides is
 * exactly the reference's Intersect2.
 *
 * An N (the empty fiber of a tensor a union found missing) meeting
 * coordinates gives N, as in the reference. Meeting a stop token, i.e. an
 * empty fiber on another side, the reference fails an assertion (SAM-BLOCKS.md
 * 8.4); samsim drops the N, since an empty fiber intersected with anything
 * is empty, and the stop tokens then meet as usual. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"

enum { MAX_SIDES = BLOCK_MAX_PORTS / 2, LABEL = 24 };

typedef struct joiner {
    const char *name[MAX_SIDES];    /* tensor of each side, NULL: not seen yet */
    token crd[MAX_SIDES], ref[MAX_SIDES];
    int n, primed;                  /* primed: the registers hold tokens */
    char in_label[2 * MAX_SIDES][LABEL], out_label[1 + MAX_SIDES][LABEL];
} joiner;

/* The tensor an edge names: "B" of comment "in-B" or label "crd_in-B". */
static const char *edge_side(const graph_edge *e, const char *dir)
{
    size_t n = strlen(dir);
    if (!strncmp(e->comment, dir, n))
        return e->comment + n;
    const char *p = strstr(e->label, dir);
    return p ? p + n : NULL;
}

/* The side of tensor name; an unknown name takes the first free side. */
static int side_of(joiner *j, const char *name)
{
    for (int k = 0; k < j->n; k++) {
        if (!j->name[k])
            j->name[k] = name;
        if (!strcmp(j->name[k], name))
            return k;
    }
    return -1;
}

static int add_side(joiner *j, const char *name)
{
    if (side_of(j, name) >= 0)
        return 0;
    if (j->n == MAX_SIDES)
        return -1;
    j->name[j->n++] = name;
    return 0;
}

/* The sides in the order of the graph's edges; without a graph (unit
 * tests) the node attribute sides says how many, 2 by default. */
static int find_sides(block *b, const block_ctx *ctx, joiner *j, sam_error *err)
{
    if (!ctx->graph) {
        const char *s = graph_node_attr(ctx->node, "sides");
        j->n = s ? atoi(s) : 2;
        if (j->n < 2 || j->n > MAX_SIDES)
            return block_error(b, err, "sides=%s is not 2 to %d", s, MAX_SIDES);
        return 0;
    }
    int self = graph_node_index(ctx->graph, ctx->node->id);
    for (int k = 0; k < ctx->graph->nedges; k++) {
        const graph_edge *e = &ctx->graph->edges[k];
        if (e->dst != self)
            continue;
        const char *name = edge_side(e, "in-");
        if (!name)
            return block_error(b, err, "input edge '%s' names no tensor (in-X)", e->label);
        if (add_side(j, name))
            return block_error(b, err, "more than %d input tensors", MAX_SIDES);
    }
    if (j->n < 2)
        return block_error(b, err, "needs at least two input tensors");
    return 0;
}

static void name_ports(block *b, joiner *j)
{
    b->nin = 2 * j->n;
    b->nout = 1 + j->n;
    b->out_names[0] = "crd";
    for (int k = 0; k < j->n; k++) {
        const char *t = j->name[k] ? j->name[k] : "";
        snprintf(j->in_label[2 * k], LABEL, "crd_in-%s", t);
        snprintf(j->in_label[2 * k + 1], LABEL, "ref_in-%s", t);
        snprintf(j->out_label[1 + k], LABEL, "ref_out-%s", t);
        b->in_names[2 * k] = j->in_label[2 * k];
        b->in_names[2 * k + 1] = j->in_label[2 * k + 1];
        b->out_names[1 + k] = j->out_label[1 + k];
    }
}

static int join_create(block *b, const block_ctx *ctx, sam_error *err)
{
    joiner *j = calloc(1, sizeof *j);
    if (!j)
        return error_set(err, "out of memory");
    if (find_sides(b, ctx, j, err)) {
        free(j);
        return -1;
    }
    name_ports(b, j);
    b->state = j;
    return 0;
}

static int join_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    joiner *j = b->state;
    if (!input && !strcmp(e->kind, "crd"))
        return 0;
    const char *name = edge_side(e, input ? "in-" : "out-");
    int k = name ? side_of(j, name) : -1;
    if (k >= 0 && input && (!strcmp(e->kind, "crd") || !strcmp(e->kind, "ref")))
        return 2 * k + !strcmp(e->kind, "ref");
    if (k >= 0 && !input && !strcmp(e->kind, "ref"))
        return 1 + k;
    return block_error(b, err, "no %s port for edge '%s' (%s)", input ? "input" : "output",
                       e->label, e->kind);
}

static void join_destroy(block *b)
{
    free(b->state);
}

/* Whether every side shows a (crd, ref) pair. */
static int all_visible(const block *b, const joiner *j, cycle_t now)
{
    for (int k = 0; k < j->n; k++)
        if (!in_has(b, 2 * k, now) || !in_has(b, 2 * k + 1, now))
            return 0;
    return 1;
}

static void advance(block *b, joiner *j, int k, cycle_t now)
{
    in_peek(b, 2 * k, now, &j->crd[k]);
    in_peek(b, 2 * k + 1, now, &j->ref[k]);
    in_pop(b, 2 * k, now);
    in_pop(b, 2 * k + 1, now);
}

static void emit(block *b, const joiner *j, cycle_t now, token crd, const token *refs)
{
    out_push(b, 0, now, crd);
    for (int k = 0; k < j->n; k++)
        out_push(b, 1 + k, now, refs[k]);
}

/* The closing D, once a register holds it: every side must end there. */
static int finish(block *b, joiner *j, cycle_t now)
{
    for (int k = 0; k < j->n; k++)
        if (j->crd[k].kind != TOKEN_DONE) {
            b->fault = "the input streams end at different points";
            return 1;
        }
    token d = token_done(), refs[MAX_SIDES];
    for (int k = 0; k < j->n; k++)
        refs[k] = d;
    emit(b, j, now, d, refs);
    j->primed = 0;
    return 1;
}

/* Coordinates before stop tokens, lower levels first. */
static int before(token a, token b)
{
    if (a.kind != b.kind)
        return a.kind == TOKEN_CRD;
    return a.kind == TOKEN_CRD ? a.i < b.i : a.level < b.level;
}

static void meet_empty(block *b, joiner *j, cycle_t now)
{
    int stops = 0;
    for (int k = 0; k < j->n; k++)
        stops += token_is_stop(j->crd[k]);
    if (stops) {
        for (int k = 0; k < j->n; k++)
            if (j->crd[k].kind == TOKEN_EMPTY)
                advance(b, j, k, now);
        return;
    }
    token n = token_empty(), refs[MAX_SIDES];
    for (int k = 0; k < j->n; k++) {
        refs[k] = n;
        advance(b, j, k, now);
    }
    emit(b, j, now, n, refs);
}

/* One comparison of the registers: all equal is a match, else every side
 * behind the largest head advances. */
static void compare(block *b, joiner *j, cycle_t now)
{
    int same = 1;
    token max = j->crd[0];
    for (int k = 1; k < j->n; k++) {
        same &= token_equal(j->crd[k], j->crd[0]);
        if (before(max, j->crd[k]))
            max = j->crd[k];
    }
    if (same) {
        emit(b, j, now, max, j->ref);
        for (int k = 0; k < j->n; k++)
            advance(b, j, k, now);
        return;
    }
    for (int k = 0; k < j->n; k++)
        if (before(j->crd[k], max))
            advance(b, j, k, now);
}

static int join_step(block *b, cycle_t now)
{
    joiner *j = b->state;
    int empty = 0;
    for (int k = 0; j->primed && k < j->n; k++) {
        if (j->crd[k].kind == TOKEN_DONE)
            return finish(b, j, now);
        if (j->crd[k].kind == TOKEN_VAL || j->crd[k].kind > TOKEN_DONE) {
            b->fault = "not a coordinate stream";
            return 1;
        }
        empty |= j->crd[k].kind == TOKEN_EMPTY;
    }
    if (!all_visible(b, j, now))
        return 0;
    if (!j->primed) {
        for (int k = 0; k < j->n; k++)
            advance(b, j, k, now);
        j->primed = 1;
    } else if (empty) {
        meet_empty(b, j, now);
    } else {
        compare(b, j, now);
    }
    return 1;
}

const block_ops intersect_ops = {
    .type = "intersect",
    .impl = "twofinger",
    .about = "coordinates common to every input, one comparison per cycle",
    .create = join_create,
    .port = join_port,
    .step = join_step,
    .destroy = join_destroy,
};
