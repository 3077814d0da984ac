#include "build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "feedback.h"
#include "registry.h"

int sim_data_add(sim_data *d, const char *name, const tensor *t, const level_format *f,
                 sam_error *err)
{
    sim_binding *items = grow_array(d->items, (size_t)d->n, &d->cap, sizeof *items, 8);
    if (!items)
        return error_set(err, "out of memory");
    d->items = items;
    sim_binding *b = &items[d->n];
    if (fibertree_build(t, f, &b->tree, err))
        return error_wrap(err, "tensor %s", name);
    b->name = strdup(name);
    d->n++;
    return 0;
}

int sim_data_borrow(sim_data *d, const char *name, const fibertree *tree, sam_error *err)
{
    sim_binding *items = grow_array(d->items, (size_t)d->n, &d->cap, sizeof *items, 8);
    if (!items)
        return error_set(err, "out of memory");
    d->items = items;
    items[d->n].name = (char *)name;
    items[d->n++].tree = *tree;
    return 0;
}

void sim_data_release(sim_data *d)
{
    free(d->items);
    memset(d, 0, sizeof *d);
}

const fibertree *sim_data_find(const sim_data *d, const char *name)
{
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->items[i].name, name))
            return &d->items[i].tree;
    return NULL;
}

void sim_data_free(sim_data *d)
{
    for (int i = 0; i < d->n; i++) {
        free(d->items[i].name);
        fibertree_free(&d->items[i].tree);
    }
    free(d->items);
    memset(d, 0, sizeof *d);
}

static const fibertree *lookup_tensor(const block_ctx *ctx, const char *name)
{
    return sim_data_find(ctx->data, name);
}

static int is_broadcast(const graph_node *n)
{
    return !strcmp(n->type, "broadcast");
}

/* A timing attribute of a node or an edge: a whole number lowest..
 * TIMING_MAX (CAPACITY_MAX for a capacity), or *v unchanged when absent. */
static int timing_attr(const char *what, const char *who, const graph_attr *attrs, int nattrs,
                       const char *key, uint32_t lowest, uint32_t *v, sam_error *err)
{
    unsigned long long highest = strcmp(key, "capacity") ? TIMING_MAX : CAPACITY_MAX;
    for (int k = 0; k < nattrs; k++) {
        if (strcmp(attrs[k].key, key))
            continue;
        const char *s = attrs[k].value;
        char *end;
        unsigned long long x = strtoull(s, &end, 10);
        if (!*s || *end || *s == '-' || x < lowest || x > highest)
            return error_set(err, "%s %s: %s='%s' is not a whole number %u..%llu", what, who,
                             key, s, lowest, highest);
        *v = (uint32_t)x;
    }
    return 0;
}

typedef struct builder {
    sim_engine *e;
    const sam_graph *g;
    const sim_options *o;
    int *block_of;          /* node -> block, -1 for broadcast nodes */
    int *channel_of;        /* block * BLOCK_MAX_PORTS + port -> channel, -1 */
    /* Broadcast nodes: the edge that feeds each (FEED_NONE, FEED_MANY),
     * and the edge out of a block it passes on, once found (ORIGIN_*);
     * path holds a chain while it is being resolved. */
    int *feed, *origin, *path;
} builder;

enum { FEED_NONE = -1, FEED_MANY = -2, ORIGIN_UNKNOWN = -1, ORIGIN_VISITING = -2 };

static int create_blocks(builder *bd, const sim_data *d, sam_error *err)
{
    const sam_graph *g = bd->g;
    sim_engine *e = bd->e;
    for (int i = 0; i < g->nnodes; i++) {
        const graph_node *n = &g->nodes[i];
        bd->block_of[i] = -1;
        if (is_broadcast(n))
            continue;
        block *b = &e->blocks[e->nblocks];
        b->ops = registry_find(n, graph_node_attr(n, "impl"), err);
        if (!b->ops)
            return -1;
        b->node = n;
        b->index = e->nblocks;
        block_ctx ctx = {.graph = g, .node = n, .tensor = lookup_tensor, .data = d};
        if (b->ops->create(b, &ctx, err)) {
            b->ops = NULL;
            return -1;
        }
        bd->block_of[i] = e->nblocks++;
        b->ii = 1;
        if (timing_attr("node", n->id, n->attrs, n->nattrs, "ii", 1, &b->ii, err))
            return -1;
        b->stats.blocked_since = CYCLE_NONE;
    }
    return 0;
}

static int new_channel(builder *bd, int producer, sam_error *err)
{
    sim_engine *e = bd->e;
    channel *c = &e->channels[e->nchannels];
    if (channel_init(c, bd->o->depth, bd->o->latency))
        return error_set(err, "out of memory");
    c->producer = producer;
    c->id = e->nchannels;
    return e->nchannels++;
}

/* A channel's capacity and latency: the run's, unless its producer node
 * says otherwise (capacity, and latency: cycles its outputs take on top of
 * the channel's), unless an edge of the stream says otherwise (capacity,
 * latency). Edges of one stream must agree. */
static int channel_timing(builder *bd, channel *c, const graph_edge *src, sam_error *err)
{
    const graph_node *n = &bd->g->nodes[src->src];
    uint32_t capacity = (uint32_t)bd->o->depth, latency = bd->o->latency, extra = 0;
    char who[200];
    snprintf(who, sizeof who, "%s -> %s", n->id, bd->g->nodes[src->dst].id);
    if (timing_attr("node", n->id, n->attrs, n->nattrs, "capacity", 0, &capacity, err) ||
        timing_attr("node", n->id, n->attrs, n->nattrs, "latency", 0, &extra, err) ||
        timing_attr("edge", who, src->attrs, src->nattrs, "capacity", 0, &capacity, err) ||
        timing_attr("edge", who, src->attrs, src->nattrs, "latency", 1, &latency, err))
        return -1;
    if (c->timed && (c->capacity != capacity || c->latency != latency + extra))
        return error_set(err, "edge %s: its capacity or latency differs from another edge of "
                         "the same stream", who);
    c->capacity = capacity;
    c->latency = latency + extra;
    c->timed = 1;
    return 0;
}

/* Which edge feeds each broadcast node, in one pass over the edges. */
static void index_feeds(builder *bd)
{
    const sam_graph *g = bd->g;
    for (int n = 0; n < g->nnodes; n++)
        bd->feed[n] = FEED_NONE;
    for (int k = 0; k < g->nedges; k++) {
        int *f = &bd->feed[g->edges[k].dst];
        *f = *f == FEED_NONE ? k : FEED_MANY;
    }
}

/* Walks up the broadcasts from node n to the first one whose origin is
 * known or that a block feeds, marking the nodes passed; returns that
 * origin edge, or -1 with err set. */
static int walk_chain(builder *bd, int n, int *len, sam_error *err)
{
    const sam_graph *g = bd->g;
    while (bd->origin[n] == ORIGIN_UNKNOWN) {
        int f = bd->feed[n];
        if (f < 0)
            return error_set(err, "node %s (broadcast): %s", g->nodes[n].id,
                             f == FEED_NONE ? "no input" : "more than one input");
        bd->origin[n] = ORIGIN_VISITING;
        bd->path[(*len)++] = n;
        if (!is_broadcast(&g->nodes[g->edges[f].src]))
            return f;
        n = g->edges[f].src;
    }
    if (bd->origin[n] == ORIGIN_VISITING)
        return error_set(err, "broadcast nodes form a cycle");
    return bd->origin[n];
}

/* The edge out of a block that broadcast node n passes on. Each node is
 * resolved once, so chains of broadcasts cost time linear in their
 * length however many edges leave them. */
static const graph_edge *broadcast_origin(builder *bd, int n, sam_error *err)
{
    int len = 0, origin = walk_chain(bd, n, &len, err);
    if (origin < 0)
        return NULL;
    while (len)
        bd->origin[bd->path[--len]] = origin;
    return &bd->g->edges[origin];
}

/* The channel of the output port that edge e (or the broadcast it leaves)
 * starts from, created on first use. */
static int source_channel(builder *bd, const graph_edge *e, sam_error *err)
{
    const graph_edge *src = e;
    if (is_broadcast(&bd->g->nodes[e->src]) && !(src = broadcast_origin(bd, e->src, err)))
        return -1;
    int bi = bd->block_of[src->src];
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
    return channel_timing(bd, &bd->e->channels[*slot], src, err) ? -1 : *slot;
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
        if (is_broadcast(&bd->g->nodes[e->dst]))
            continue;
        int c = source_channel(bd, e, err);
        if (c < 0)
            return -1;
        block *dst = &bd->e->blocks[bd->block_of[e->dst]];
        int port = dst->ops->port(dst, e, 1, err);
        if (port < 0 || attach_input(bd, dst, port, &bd->e->channels[c], err))
            return -1;
    }
    return 0;
}

/* Root blocks read the reference stream [0, D], one token a cycle from
 * cycle 0, on their first input. */
static int feed_roots(builder *bd, sam_error *err)
{
    sim_engine *e = bd->e;
    for (int i = 0; i < e->nblocks; i++) {
        block *b = &e->blocks[i];
        const char *root = graph_node_attr(b->node, "root");
        if (!root || strcmp(root, "true"))
            continue;
        if (b->nin == 0 || b->in[0].ch)
            return block_error(b, err, "a root block needs its first input free");
        int c = new_channel(bd, -1, err);
        if (c < 0 || attach_input(bd, b, 0, &e->channels[c], err))
            return -1;
        channel *ch = &e->channels[c];
        ch->latency = 0;
        if (channel_push(ch, 0, token_crd(0)) || channel_push(ch, 1, token_done()))
            return error_set(err, "out of memory");
        ch->pushed = 0;
        ch->kind = "ref";
        memset(&ch->stats, 0, sizeof ch->stats);
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

static int build_all(builder *bd, const sim_data *d, sam_error *err)
{
    sim_engine *e = bd->e;
    const sam_graph *g = bd->g;
    e->blocks = calloc((size_t)g->nnodes + 1, sizeof *e->blocks);
    e->channels = calloc((size_t)g->nedges + (size_t)g->nnodes + 1, sizeof *e->channels);
    bd->block_of = malloc(((size_t)g->nnodes + 1) * sizeof *bd->block_of);
    bd->channel_of = malloc(((size_t)g->nnodes + 1) * BLOCK_MAX_PORTS * sizeof *bd->channel_of);
    size_t per_node = ((size_t)g->nnodes + 1) * sizeof(int);
    bd->feed = malloc(per_node);
    bd->origin = malloc(per_node);
    bd->path = malloc(per_node);
    if (!e->blocks || !e->channels || !bd->block_of || !bd->channel_of || !bd->feed ||
        !bd->origin || !bd->path)
        return error_set(err, "out of memory");
    for (int i = 0; i < (g->nnodes + 1) * BLOCK_MAX_PORTS; i++)
        bd->channel_of[i] = -1;
    for (int n = 0; n < g->nnodes; n++)
        bd->origin[n] = ORIGIN_UNKNOWN;
    index_feeds(bd);
    if (create_blocks(bd, d, err) || connect_edges(bd, err) || feed_roots(bd, err) ||
        sim_feedback_wire(e, err) || check_inputs(e, err))
        return -1;
    sim_engine_start(e);
    return 0;
}

int sim_build(sim_engine *e, const sam_graph *g, const sim_data *d, const sim_options *o,
              sam_error *err)
{
    memset(e, 0, sizeof *e);
    builder bd = {.e = e, .g = g, .o = o};
    int rc = build_all(&bd, d, err);
    free(bd.block_of);
    free(bd.channel_of);
    free(bd.feed);
    free(bd.origin);
    free(bd.path);
    if (rc) {
        error_prefix(err, g->path);
        sim_engine_free(e);
    }
    return rc;
}
