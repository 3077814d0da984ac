#include "joiner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The side of tensor name; an unknown name takes the first free side
 * (sides counted from the attribute have no names until their edges come). */
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
    if (j->n == JOINER_MAX_SIDES)
        return -1;
    j->name[j->n++] = name;
    return 0;
}

static int count_sides(block *b, const block_ctx *ctx, joiner *j, sam_error *err)
{
    const char *s = graph_node_attr(ctx->node, "sides");
    j->n = s ? atoi(s) : 2;
    if (j->n < 2 || j->n > JOINER_MAX_SIDES)
        return block_error(b, err, "sides=%s is not 2 to %d", s, JOINER_MAX_SIDES);
    return 0;
}

static int find_sides(block *b, const block_ctx *ctx, joiner *j, sam_error *err)
{
    if (!ctx->graph)
        return count_sides(b, ctx, j, err);
    int self = graph_node_index(ctx->graph, ctx->node->id);
    for (int k = 0; k < ctx->graph->nedges; k++) {
        const graph_edge *e = &ctx->graph->edges[k];
        if (e->dst != self)
            continue;
        const char *name = block_edge_tensor(e, "in-");
        if (!name)
            return block_error(b, err, "input edge '%s' names no tensor (in-X)", e->label);
        if (add_side(j, name))
            return block_error(b, err, "more than %d input tensors", JOINER_MAX_SIDES);
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
        snprintf(j->in_label[2 * k], JOINER_LABEL, "crd_in-%s", t);
        snprintf(j->in_label[2 * k + 1], JOINER_LABEL, "ref_in-%s", t);
        snprintf(j->out_label[1 + k], JOINER_LABEL, "ref_out-%s", t);
        b->in_names[2 * k] = j->in_label[2 * k];
        b->in_names[2 * k + 1] = j->in_label[2 * k + 1];
        b->out_names[1 + k] = j->out_label[1 + k];
    }
}

int joiner_create(block *b, const block_ctx *ctx, sam_error *err)
{
    joiner *j = block_state_new(b, sizeof *j, err);
    if (!j)
        return -1;
    if (find_sides(b, ctx, j, err)) {
        free(j);
        b->state = NULL;
        return -1;
    }
    name_ports(b, j);
    return 0;
}

int joiner_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    joiner *j = b->state;
    j->primed = 0;
    for (int k = 0; k < j->n; k++) {
        j->crd[k] = j->ref[k] = (token){0};
        j->asked[k] = -1;
        j->closed[k] = 0;
    }
    return 0;
}

int joiner_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    joiner *j = b->state;
    if (!input && !strcmp(e->kind, "crd"))
        return 0;
    const char *name = block_edge_tensor(e, input ? "in-" : "out-");
    int k = name ? side_of(j, name) : -1;
    if (k >= 0 && input && (!strcmp(e->kind, "crd") || !strcmp(e->kind, "ref")))
        return 2 * k + !strcmp(e->kind, "ref");
    if (k >= 0 && !input && !strcmp(e->kind, "ref"))
        return 1 + k;
    return block_error(b, err, "no %s port for edge '%s' (%s)", input ? "input" : "output",
                       e->label, e->kind);
}

void joiner_advance(block *b, joiner *j, int k, cycle_t now)
{
    in_peek(b, 2 * k, now, &j->crd[k]);
    in_peek(b, 2 * k + 1, now, &j->ref[k]);
    in_pop(b, 2 * k, now);
    in_pop(b, 2 * k + 1, now);
}

void joiner_emit(block *b, const joiner *j, cycle_t now, token crd, const token *refs)
{
    out_push(b, 0, now, crd);
    for (int k = 0; k < j->n; k++)
        out_push(b, 1 + k, now, refs[k]);
}

int joiner_skip_port(const joiner *j, int k)
{
    int port = 1 + j->n + k;
    return j->skips && port < BLOCK_MAX_PORTS ? port : -1;
}

void joiner_add_skips(block *b, joiner *j)
{
    j->skips = 1;
    for (int k = 0; k < j->n; k++) {
        int port = joiner_skip_port(j, k);
        j->asked[k] = -1;
        if (port < 0)
            continue;
        snprintf(j->out_label[port], JOINER_LABEL, "skip-%s", j->name[k] ? j->name[k] : "");
        b->out_names[port] = j->out_label[port];
        b->nout = port + 1;
    }
}

int joiner_ready(const block *b, const joiner *j, cycle_t now)
{
    for (int p = 0; p < 2 * j->n; p++)
        if (!channel_sees(b->in[p].ch, b->in[p].reader, now, 0))
            return 0;
    return 1;
}

/* The closing D, once a register holds it: every side must end there. */
static int finish(block *b, joiner *j, cycle_t now)
{
    for (int k = 0; k < j->n; k++)
        if (j->crd[k].kind != TOKEN_DONE) {
            b->fault = "the input streams end at different points";
            return 1;
        }
    token d = token_done(), refs[JOINER_MAX_SIDES];
    for (int k = 0; k < j->n; k++)
        refs[k] = d;
    joiner_emit(b, j, now, d, refs);
    j->primed = 0;
    return 1;
}

int joiner_step(block *b, cycle_t now, joiner_rule *rule)
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
    if (!joiner_ready(b, j, now))
        return 0;
    if (j->primed) {
        rule(b, j, now);
        return 1;
    }
    for (int k = 0; k < j->n; k++)
        joiner_advance(b, j, k, now);
    j->primed = 1;
    return 1;
}
