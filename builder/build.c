#include "build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "feedback.h"

int sim_data_add(sim_data *d, const char *name, const tensor *t, const level_format *f,
                 sam_error *err)
{
    sim_binding *items = grow_array(d->items, (size_t)d->n, &d->cap, sizeof *items, 8);
    if (!items)
        return error_set(err, "out of memory");
    d->items = items;
    sim_binding *b = &items[d->n];
    b->borrowed = NULL;
    if (fibertree_build(t, f, &b->own, err))
        return error_wrap(err, "tensor %s", name);
    b->name = strdup(name);
    d->n++;
    return 0;
}

int sim_data_adopt(sim_data *d, const char *name, fibertree *tree, sam_error *err)
{
    sim_binding *items = grow_array(d->items, (size_t)d->n, &d->cap, sizeof *items, 8);
    char *own = strdup(name);
    if (items)
        d->items = items;
    if (!items || !own) {
        free(own);
        return error_set(err, "out of memory");
    }
    items[d->n].name = own;
    items[d->n].borrowed = NULL;
    items[d->n++].own = *tree;
    memset(tree, 0, sizeof *tree);
    return 0;
}

int sim_data_borrow(sim_data *d, const char *name, const fibertree *tree, sam_error *err)
{
    sim_binding *items = grow_array(d->items, (size_t)d->n, &d->cap, sizeof *items, 8);
    if (!items)
        return error_set(err, "out of memory");
    d->items = items;
    items[d->n].name = (char *)name;
    items[d->n++].borrowed = tree;
    return 0;
}

void sim_data_release(sim_data *d)
{
    free(d->items);
    memset(d, 0, sizeof *d);
}

void sim_data_unbind(sim_data *d)
{
    d->n = 0;
}

const fibertree *sim_data_find(const sim_data *d, const char *name)
{
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->items[i].name, name))
            return sim_binding_tree(&d->items[i]);
    return NULL;
}

void sim_data_free(sim_data *d)
{
    for (int i = 0; i < d->n; i++) {
        free(d->items[i].name);
        fibertree_free(&d->items[i].own);
    }
    free(d->items);
    memset(d, 0, sizeof *d);
}

static const fibertree *lookup_tensor(const block_ctx *ctx, const char *name)
{
    return sim_data_find(ctx->data, name);
}

/* The graph's fault that the plan found where the build now is. */
static int plan_fault(const sim_plan *p, sam_error *err)
{
    *err = p->fail;
    return -1;
}

typedef struct builder {
    sim_engine *e;
    const sim_plan *p;
    const sam_graph *g;
    int *channel_of;        /* block * BLOCK_MAX_PORTS + port -> channel, -1 */
} builder;

static int create_blocks(builder *bd, const sim_data *d, sam_error *err)
{
    const sim_plan *p = bd->p;
    sim_engine *e = bd->e;
    for (int i = 0; i < bd->g->nnodes; i++) {
        const plan_node *pn = &p->nodes[i];
        if (pn->block < 0)
            continue;
        if (i == p->fail_node && !p->fail_node_late)
            return plan_fault(p, err);
        block *b = &e->blocks[e->nblocks];
        b->ops = pn->ops;
        b->node = &bd->g->nodes[i];
        b->index = e->nblocks;
        block_ctx ctx = {.graph = bd->g, .node = b->node, .tensor = lookup_tensor, .data = d};
        if (b->ops->create(b, &ctx, err)) {
            b->ops = NULL;
            return -1;
        }
        e->nblocks++;
        if (i == p->fail_node)
            return plan_fault(p, err);
        b->ii = pn->ii;
        b->stats.blocked_since = CYCLE_NONE;
    }
    return 0;
}

static int new_channel(builder *bd, int producer, sam_error *err)
{
    sim_engine *e = bd->e;
    channel *c = &e->channels[e->nchannels];
    if (channel_init(c, bd->p->o.depth, bd->p->o.latency))
        return error_set(err, "out of memory");
    c->producer = producer;
    c->id = e->nchannels;
    return e->nchannels++;
}

/* A channel's capacity and latency, as the plan found them for edge src
 * (builder/build_plan.h). Edges of one stream must agree. */
static int channel_timing(builder *bd, channel *c, const graph_edge *src, const plan_edge *pe,
                          sam_error *err)
{
    if (c->timed && (c->capacity != pe->capacity || c->latency != pe->latency)) {
        char who[200];
        snprintf(who, sizeof who, "%s -> %s", bd->g->nodes[src->src].id,
                 bd->g->nodes[src->dst].id);
        return error_set(err, "edge %s: its capacity or latency differs from another edge of "
                         "the same stream", who);
    }
    c->capacity = pe->capacity;
    c->latency = pe->latency;
    c->timed = 1;
    return 0;
}

/* The channel of the output port that edge k (or the broadcast it
 * leaves) starts from, created on first use. */
static int source_channel(builder *bd, int k, sam_error *err)
{
    const sim_plan *p = bd->p;
    if (k == p->fail_edge && !p->fail_edge_late)
        return plan_fault(p, err);
    const graph_edge *src = &bd->g->edges[p->edges[k].origin];
    int bi = p->nodes[src->src].block;
    block *b = &bd->e->blocks[bi];
    int port = b->ops->port(b, src, 0, err);
    if (port < 0)
        return -1;
    int *slot = &bd->channel_of[bi * BLOCK_MAX_PORTS + port];
    if (*slot < 0) {
        if ((*slot = new_channel(bd, bi, err)) < 0)
            return -1;
        b->out[port].ch = &bd->e->channels[*slot];
        bd->e->channels[*slot].kind = src->kind;
    }
    if (k == p->fail_edge)
        return plan_fault(p, err);
    return channel_timing(bd, &bd->e->channels[*slot], src, &p->edges[k], err) ? -1 : *slot;
}

static int attach_input(builder *bd, block *b, int port, channel *c, sam_error *err)
{
    if (b->in[port].ch)
        return block_error(b, err, "input %s has more than one edge", b->in_names[port]);
    int r = channel_add_reader(c, b->index);
    if (r < 0)
        return block_error(b, err, "input %s reads a stream that already has %d readers",
                           b->in_names[port], CHANNEL_MAX_READERS);
    b->in[port] = (in_port){.ch = c, .reader = r};
    (void)bd;
    return 0;
}

static int connect_edges(builder *bd, sam_error *err)
{
    for (int k = 0; k < bd->g->nedges; k++) {
        const graph_edge *e = &bd->g->edges[k];
        int bi = bd->p->nodes[e->dst].block;
        if (bi < 0)
            continue;
        int c = source_channel(bd, k, err);
        if (c < 0)
            return -1;
        block *dst = &bd->e->blocks[bi];
        int port = dst->ops->port(dst, e, 1, err);
        if (port < 0 || attach_input(bd, dst, port, &bd->e->channels[c], err))
            return -1;
    }
    return 0;
}

/* The reference stream [0, D] a root block reads, one token a cycle from
 * cycle 0; it counts as no stream's traffic. */
static int feed_reference(channel *ch)
{
    ch->latency = 0;
    if (channel_push(ch, 0, token_crd(0)) || channel_push(ch, 1, token_done()))
        return -1;
    ch->pushed = 0;
    memset(&ch->stats, 0, sizeof ch->stats);
    return 0;
}

/* Root blocks read the reference stream on their first input. */
static int feed_roots(builder *bd, sam_error *err)
{
    sim_engine *e = bd->e;
    for (int i = 0; i < bd->g->nnodes; i++) {
        if (bd->p->nodes[i].block < 0 || !bd->p->nodes[i].root)
            continue;
        block *b = &e->blocks[bd->p->nodes[i].block];
        if (b->nin == 0 || b->in[0].ch)
            return block_error(b, err, "a root block needs its first input free");
        int c = new_channel(bd, -1, err);
        if (c < 0 || attach_input(bd, b, 0, &e->channels[c], err))
            return -1;
        channel *ch = &e->channels[c];
        ch->kind = "ref";
        if (feed_reference(ch))
            return error_set(err, "out of memory");
    }
    return 0;
}

static int check_inputs(const sim_engine *e, sam_error *err)
{
    for (int i = 0; i < e->nblocks; i++)
        for (int p = 0; p < e->blocks[i].nin; p++)
            if (!e->blocks[i].in[p].ch)
                return block_error(&e->blocks[i], err, "input %s has no edge",
                                   e->blocks[i].in_names[p]);
    return 0;
}

/* The width of the words block p sends on the output that feeds c. */
static int64_t sent_width(const block *p, const channel *c)
{
    for (int q = 0; q < p->nout; q++)
        if (p->out[q].ch == c)
            return p->ops->word_width(p, q, 0);
    return 0;
}

/* Blocks that share a bitvector stream read its words alike: a scanner
 * sending 16-bit words to an intersecter reading 64-bit ones lost most of
 * the result without a word of warning. Settings are applied to the
 * graph by now, so this sees what the run would. */
static int check_word_widths(const sim_engine *e, sam_error *err)
{
    for (int i = 0; i < e->nblocks; i++) {
        const block *b = &e->blocks[i];
        for (int p = 0; b->ops->word_width && p < b->nin; p++) {
            const channel *c = b->in[p].ch;
            int64_t reads = b->ops->word_width(b, p, 1);
            if (!reads || c->producer < 0 || !e->blocks[c->producer].ops->word_width)
                continue;
            const block *src = &e->blocks[c->producer];
            int64_t sends = sent_width(src, c);
            if (sends && sends != reads)
                return error_set(err, "node %s (%s) sends %lld-bit words to node %s (%s), which "
                                 "reads %lld-bit words: blocks sharing a bitvector stream need "
                                 "one width", src->node->id, src->node->type, (long long)sends,
                                 b->node->id, b->node->type, (long long)reads);
        }
    }
    return 0;
}

/* The arrays of e kept by sim_engine_clear, when they have room for nb
 * blocks and nc channels, else new ones; the rest of e starts from zero.
 * Blocks start zeroed, as their constructors expect; channel_init clears
 * each channel taken. */
static int take_arrays(sim_engine *e, size_t nb, size_t nc)
{
    block *blocks = e->blocks;
    channel *channels = e->channels;
    size_t block_room = (size_t)e->block_room, channel_room = (size_t)e->channel_room;
    memset(e, 0, sizeof *e);
    if (block_room < nb) {
        free(blocks);
        blocks = malloc(nb * sizeof *blocks);
        block_room = nb;
    }
    if (channel_room < nc) {
        free(channels);
        channels = malloc(nc * sizeof *channels);
        channel_room = nc;
    }
    e->blocks = blocks;
    e->channels = channels;
    if (!blocks || !channels)
        return -1;
    e->block_room = (int)block_room;
    e->channel_room = (int)channel_room;
    memset(blocks, 0, nb * sizeof *blocks);
    return 0;
}

static int build_all(builder *bd, const sim_data *d, sam_error *err)
{
    sim_engine *e = bd->e;
    const sam_graph *g = bd->g;
    size_t nb = (size_t)bd->p->nblocks + 1;
    /* A channel per output port and per root, and room for as many
     * feedback streams as there are inputs (builder/feedback.h), so that the
     * array never moves. */
    size_t streams = (size_t)g->nedges + (size_t)g->nnodes;
    int taken = take_arrays(e, nb, 2 * streams + 1);
    bd->channel_of = malloc(nb * BLOCK_MAX_PORTS * sizeof *bd->channel_of);
    if (taken || !bd->channel_of)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < nb * BLOCK_MAX_PORTS; i++)
        bd->channel_of[i] = -1;
    if (create_blocks(bd, d, err) || connect_edges(bd, err) || feed_roots(bd, err) ||
        sim_feedback_wire(e, err) || check_inputs(e, err) || check_word_widths(e, err))
        return -1;
    sim_engine_start(e);
    return 0;
}

int sim_build_planned(sim_engine *e, const sim_plan *p, const sim_data *d, sam_error *err)
{
    builder bd = {.e = e, .p = p, .g = p->g};
    int rc = build_all(&bd, d, err);
    free(bd.channel_of);
    if (rc) {
        error_prefix(err, p->g->path);
        sim_engine_free(e);
    }
    return rc;
}

int sim_build(sim_engine *e, const sam_graph *g, const sim_data *d, const sim_options *o,
              sam_error *err)
{
    sim_plan p;
    memset(e, 0, sizeof *e);
    if (sim_plan_init(&p, g, o, err))
        return error_prefix(err, g->path);
    int rc = sim_build_planned(e, &p, d, err);
    sim_plan_free(&p);
    return rc;
}

/* Whether every block of e can re-arm. */
static int rearmable(const sim_engine *e)
{
    for (int i = 0; i < e->nblocks; i++)
        if (!e->blocks[i].ops->rearm)
            return 0;
    return 1;
}

int sim_rearm_planned(sim_engine *e, const sim_plan *p, const sim_data *d, sam_error *err)
{
    if (!rearmable(e)) {
        sim_engine_clear(e);
        return sim_build_planned(e, p, d, err);
    }
    int rc = 0;
    for (int c = 0; c < e->nchannels && !rc; c++) {
        channel_rearm(&e->channels[c]);
        if (e->channels[c].producer < 0 && feed_reference(&e->channels[c]))
            rc = error_set(err, "out of memory");
    }
    for (int i = 0; i < e->nblocks && !rc; i++) {
        block *b = &e->blocks[i];
        block_ctx ctx = {.graph = p->g, .node = b->node, .tensor = lookup_tensor, .data = d};
        rc = block_rearm(b, &ctx, err);
    }
    if (rc) {
        error_prefix(err, p->g->path);
        sim_engine_free(e);
        return -1;
    }
    e->failed = 0;
    return 0;
}
