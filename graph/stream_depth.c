/* How many fiber levels the stream on an edge carries, read from the graph
 * alone: a level scanner adds one to the stream of references it reads, a
 * repeat has the shape of its repeat signals, a reducer removes one, and
 * most other blocks pass their input's shape on. A crddrop needs it to know
 * which inner stop tokens close an outer element when its inner stream lies
 * more than one level below (matmul_ikj_hand_BLACKBOX). */
#include <string.h>

#include "graph.h"

#define DEPTH_UNKNOWN (-1)

static int depth_of(const sam_graph *g, int node, const graph_edge *out, int hops);

/* The first edge into node whose kind is kind (any kind when NULL), or the
 * first whose label or comment mentions role. */
static const graph_edge *input(const sam_graph *g, int node, const char *kind, const char *role)
{
    for (int k = 0; k < g->nedges; k++) {
        const graph_edge *e = &g->edges[k];
        if (e->dst != node || (kind && strcmp(e->kind, kind)))
            continue;
        if (!role || strstr(e->label, role) || strstr(e->comment, role))
            return e;
    }
    return NULL;
}

static int edge_depth(const sam_graph *g, const graph_edge *e, int hops)
{
    return e ? depth_of(g, e->src, e, hops + 1) : DEPTH_UNKNOWN;
}

/* crddrop and crdhold pass each side's stream through: the output named
 * by the outer index comes from the input named by it. */
static int pass_side(const sam_graph *g, int node, const graph_edge *out, int hops)
{
    const char *outer = graph_node_attr(&g->nodes[node], "outer");
    const char *inner = graph_node_attr(&g->nodes[node], "inner");
    if (!outer || !inner)
        return DEPTH_UNKNOWN;
    int is_outer = strstr(out->label, "outer") != NULL;
    return edge_depth(g, input(g, node, "crd", is_outer ? outer : inner), hops);
}

static int depth_of(const sam_graph *g, int node, const graph_edge *out, int hops)
{
    if (hops > g->nnodes)
        return DEPTH_UNKNOWN;
    const graph_node *n = &g->nodes[node];
    const char *root = graph_node_attr(n, "root");
    int is_root = root && !strcmp(root, "true");
    if (!strcmp(n->type, "fiberlookup")) {
        int d = is_root ? 0 : edge_depth(g, input(g, node, "ref", NULL), hops);
        return d == DEPTH_UNKNOWN ? d : d + 1;
    }
    if (!strcmp(n->type, "repeat"))
        return edge_depth(g, input(g, node, "repsig", NULL), hops);
    if (!strcmp(n->type, "reduce") || !strcmp(n->type, "vectorreducer")) {
        int d = edge_depth(g, input(g, node, NULL, NULL), hops);
        return d == DEPTH_UNKNOWN ? d : d - 1;
    }
    if (!strcmp(n->type, "crddrop") || !strcmp(n->type, "crdhold"))
        return pass_side(g, node, out, hops);
    if (!strcmp(n->type, "spaccumulator"))
        return DEPTH_UNKNOWN;
    if (!strcmp(n->type, "arrayvals"))
        return edge_depth(g, input(g, node, "ref", NULL), hops);
    if (!strcmp(n->type, "intersect") || !strcmp(n->type, "union"))
        return edge_depth(g, input(g, node, "crd", NULL), hops);
    return edge_depth(g, input(g, node, NULL, NULL), hops);
}

int graph_stream_depth(const sam_graph *g, const graph_edge *e)
{
    return edge_depth(g, e, 0);
}
