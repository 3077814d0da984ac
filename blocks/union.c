/* union (SAM-BLOCKS.md 5.10): the coordinates that any side holds, in
 * order, with each side's reference, or N on the sides that lack the
 * coordinate. A side is one input tensor, a (crd, ref) pair of streams
 * named "in-B"; inputs 2k and 2k+1 are the crd and ref of side k, output 0
 * the crd and output 1+k the ref of side k. The sides are numbered in the
 * order their first input edge appears in the graph. Like the reference,
 * the block compares head registers filled in an earlier cycle (so the
 * first step only fills them), and a step needs a token pair visible on
 * every side, even to advance one of them.
 *
 * Graphs may join more than two tensors in one node (mat_elemadd3): the
 * smallest head is emitted and every side holding it advances, which for
 * two sides is exactly the reference's Union2. An N head (the fiber of a
 * tensor missing one level up) is dropped rather than emitted, see merge().
 * The machinery shared with intersect.c is repeated here because each block
 * lives in one file. */
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

/* Coordinates first, then stop tokens by level. */
static int rank(token t)
{
    return t.kind == TOKEN_CRD ? 0 : 1;
}

static int before(token a, token b)
{
    if (rank(a) != rank(b))
        return rank(a) < rank(b);
    return a.kind == TOKEN_CRD ? a.i < b.i : a.kind == TOKEN_STOP && a.level < b.level;
}

/* Emits the smallest head with the refs of the sides that hold it. An N
 * head is the fiber of a tensor absent one level up: it holds no
 * coordinate, so it is passed over in a cycle of its own. (The reference
 * emits it as an element, which a writer stores as a coordinate 0 with
 * value 0; it goes unnoticed only because the SAM convention's operands
 * all have the same outer coordinates.) */
static void merge(block *b, joiner *j, cycle_t now)
{
    for (int k = 0; k < j->n; k++)
        if (j->crd[k].kind == TOKEN_EMPTY) {
            advance(b, j, k, now);
            return;
        }
    token min = j->crd[0], refs[MAX_SIDES];
    for (int k = 1; k < j->n; k++)
        if (before(j->crd[k], min))
            min = j->crd[k];
    int take[MAX_SIDES];
    for (int k = 0; k < j->n; k++) {
        take[k] = token_equal(j->crd[k], min);
        refs[k] = take[k] ? j->ref[k] : token_empty();
    }
    emit(b, j, now, min, refs);
    for (int k = 0; k < j->n; k++)
        if (take[k])
            advance(b, j, k, now);
}

static int join_step(block *b, cycle_t now)
{
    joiner *j = b->state;
    for (int k = 0; j->primed && k < j->n; k++) {
        if (j->crd[k].kind == TOKEN_DONE)
            return finish(b, j, now);
        if (j->crd[k].kind == TOKEN_VAL || j->crd[k].kind > TOKEN_DONE) {
            b->fault = "not a coordinate stream";
            return 1;
        }
    }
    if (!all_visible(b, j, now))
        return 0;
    if (j->primed) {
        merge(b, j, now);
        return 1;
    }
    for (int k = 0; k < j->n; k++)
        advance(b, j, k, now);
    j->primed = 1;
    return 1;
}

const block_ops union_ops = {
    .type = "union",
    .impl = "default",
    .about = "coordinates of any input, one per cycle, N for the inputs that lack it",
    .create = join_create,
    .port = join_port,
    .step = join_step,
    .destroy = join_destroy,
};
