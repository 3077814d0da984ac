#include "build_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../blocks/registry.h"

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

/* Node i's implementation and initiation interval, as a build meets
 * them: the implementation before the block is created, the interval
 * after; 0, or -1 with the plan's fault set. */
static int plan_block(sim_plan *p, int i)
{
    const graph_node *n = &p->g->nodes[i];
    plan_node *pn = &p->nodes[i];
    pn->ops = registry_find(n, graph_node_attr(n, "impl"), &p->fail);
    p->fail_node_late = pn->ops != NULL;
    if (!pn->ops || timing_attr("node", n->id, n->attrs, n->nattrs, "ii", 1, &pn->ii, &p->fail))
        return -1;
    return 0;
}

/* Every node's block, in the order of the file; the implementations and
 * intervals up to the first fault. */
static void plan_nodes(sim_plan *p)
{
    const sam_graph *g = p->g;
    p->fail_node = g->nnodes;
    for (int i = 0; i < g->nnodes; i++) {
        const graph_node *n = &g->nodes[i];
        plan_node *pn = &p->nodes[i];
        *pn = (plan_node){.block = -1, .ii = 1};
        if (is_broadcast(n))
            continue;
        const char *root = graph_node_attr(n, "root");
        pn->block = p->nblocks++;
        pn->root = root && !strcmp(root, "true");
        if (p->fail_node == g->nnodes && plan_block(p, i))
            p->fail_node = i;
    }
}

/* Resolving broadcast chains: the edge that feeds each broadcast node
 * (FEED_NONE, FEED_MANY), and the edge out of a block it passes on, once
 * found (ORIGIN_*); path holds a chain while it is being resolved. */
typedef struct chains {
    int *feed, *origin, *path;
} chains;

enum { FEED_NONE = -1, FEED_MANY = -2, ORIGIN_UNKNOWN = -1, ORIGIN_VISITING = -2 };

/* Which edge feeds each broadcast node, in one pass over the edges. */
static void index_feeds(const sam_graph *g, chains *ch)
{
    for (int n = 0; n < g->nnodes; n++) {
        ch->feed[n] = FEED_NONE;
        ch->origin[n] = ORIGIN_UNKNOWN;
    }
    for (int k = 0; k < g->nedges; k++) {
        int *f = &ch->feed[g->edges[k].dst];
        *f = *f == FEED_NONE ? k : FEED_MANY;
    }
}

/* Walks up the broadcasts from node n to the first one whose origin is
 * known or that a block feeds, marking the nodes passed; returns that
 * origin edge, or -1 with err set. */
static int walk_chain(const sam_graph *g, chains *ch, int n, int *len, sam_error *err)
{
    while (ch->origin[n] == ORIGIN_UNKNOWN) {
        int f = ch->feed[n];
        if (f < 0)
            return error_set(err, "node %s (broadcast): %s", g->nodes[n].id,
                             f == FEED_NONE ? "no input" : "more than one input");
        ch->origin[n] = ORIGIN_VISITING;
        ch->path[(*len)++] = n;
        if (!is_broadcast(&g->nodes[g->edges[f].src]))
            return f;
        n = g->edges[f].src;
    }
    if (ch->origin[n] == ORIGIN_VISITING)
        return error_set(err, "broadcast nodes form a cycle");
    return ch->origin[n];
}

/* The edge out of a block that broadcast node n passes on, or -1 with
 * err set. Each node is resolved once, so chains of broadcasts cost time
 * linear in their length however many edges leave them. */
static int broadcast_origin(const sam_graph *g, chains *ch, int n, sam_error *err)
{
    int len = 0, origin = walk_chain(g, ch, n, &len, err);
    if (origin < 0)
        return -1;
    while (len)
        ch->origin[ch->path[--len]] = origin;
    return origin;
}

/* The capacity and latency of the stream on edge src, out of a block: the
 * run's, unless its producer node says otherwise (capacity, and latency:
 * cycles its outputs take on top of the channel's), unless the edge says
 * otherwise (capacity, latency). */
static int stream_timing(sim_plan *p, const graph_edge *src, plan_edge *pe)
{
    const graph_node *n = &p->g->nodes[src->src];
    uint32_t capacity = (uint32_t)p->o.depth, latency = p->o.latency, extra = 0;
    char who[200];
    snprintf(who, sizeof who, "%s -> %s", n->id, p->g->nodes[src->dst].id);
    if (timing_attr("node", n->id, n->attrs, n->nattrs, "capacity", 0, &capacity, &p->fail) ||
        timing_attr("node", n->id, n->attrs, n->nattrs, "latency", 0, &extra, &p->fail) ||
        timing_attr("edge", who, src->attrs, src->nattrs, "capacity", 0, &capacity, &p->fail) ||
        timing_attr("edge", who, src->attrs, src->nattrs, "latency", 1, &latency, &p->fail))
        return -1;
    pe->capacity = capacity;
    pe->latency = latency + extra;
    return 0;
}

/* Edge k's stream, when k ends at a block: where it starts (a fault
 * there comes before the build finds its channel) and its timing (a
 * fault there, after). */
static int plan_edge_at(sim_plan *p, chains *ch, int k)
{
    const sam_graph *g = p->g;
    const graph_edge *e = &g->edges[k];
    plan_edge *pe = &p->edges[k];
    p->fail_edge_late = 0;
    pe->origin = k;
    if (is_broadcast(&g->nodes[e->src]) &&
        (pe->origin = broadcast_origin(g, ch, e->src, &p->fail)) < 0)
        return -1;
    p->fail_edge_late = 1;
    return stream_timing(p, &g->edges[pe->origin], pe);
}

/* Every edge into a block, in the order of the file, up to the first
 * fault. */
static void plan_edges(sim_plan *p, chains *ch)
{
    const sam_graph *g = p->g;
    index_feeds(g, ch);
    p->fail_edge = g->nedges;
    for (int k = 0; k < g->nedges; k++) {
        p->edges[k] = (plan_edge){.origin = -1};
        if (p->fail_edge == g->nedges && p->nodes[g->edges[k].dst].block >= 0 &&
            plan_edge_at(p, ch, k))
            p->fail_edge = k;
    }
}

int sim_plan_init(sim_plan *p, const sam_graph *g, const sim_options *o, sam_error *err)
{
    memset(p, 0, sizeof *p);
    p->g = g;
    p->o = *o;
    size_t per_node = ((size_t)g->nnodes + 1) * sizeof(int);
    chains ch = {malloc(per_node), malloc(per_node), malloc(per_node)};
    p->nodes = malloc(((size_t)g->nnodes + 1) * sizeof *p->nodes);
    p->edges = malloc(((size_t)g->nedges + 1) * sizeof *p->edges);
    int ok = ch.feed && ch.origin && ch.path && p->nodes && p->edges;
    if (ok) {
        plan_nodes(p);
        plan_edges(p, &ch);
    }
    free(ch.feed);
    free(ch.origin);
    free(ch.path);
    if (!ok) {
        sim_plan_free(p);
        return error_set(err, "out of memory");
    }
    return 0;
}

void sim_plan_slow_lanes(sim_plan *p, uint32_t factor)
{
    for (int i = 0; i < p->g->nnodes; i++)
        if (p->nodes[i].block >= 0 && graph_node_attr(&p->g->nodes[i], "lane"))
            p->nodes[i].ii *= factor;
}

void sim_plan_free(sim_plan *p)
{
    free(p->nodes);
    free(p->edges);
    memset(p, 0, sizeof *p);
}
