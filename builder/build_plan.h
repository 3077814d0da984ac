/* What building an engine looks up in the graph, looked up once: a tiled
 * run builds the same graph on every tile point's data, millions of
 * times, and finding attributes by name each time cost more than
 * simulating a small tile. A fact the graph gets wrong (an unknown block
 * type, a timing attribute out of range, a broadcast without input) is
 * kept as the error the build reports where it meets it, so that a build
 * from a plan fails exactly as one without. */
#ifndef SAMSIM_BUILD_PLAN_H
#define SAMSIM_BUILD_PLAN_H

#include "../common/error.h"
#include "../graph/graph.h"
#include "../engine/block.h"

/* Bounds of latencies and initiation intervals (cycles) and of channel
 * capacities (tokens): the event engine keeps a slot per cycle of the
 * longest wait. */
#define TIMING_MAX 1000
#define CAPACITY_MAX 1000000

typedef struct sim_options {
    uint64_t depth;         /* channel capacity, 0 unbounded */
    uint32_t latency;       /* channel latency in cycles, >= 1 */
} sim_options;

typedef struct plan_node {
    int block;              /* its block's index, -1 for a broadcast node */
    const block_ops *ops;   /* its implementation (blocks/registry.h) */
    uint32_t ii;
    int root;               /* root="true": fed the reference stream */
} plan_node;

typedef struct plan_edge {
    int origin;             /* the edge out of a block that carries its
                               stream; -1 when it ends at a broadcast */
    uint32_t capacity, latency;     /* that stream's */
} plan_edge;

typedef struct sim_plan {
    const sam_graph *g;
    sim_options o;
    plan_node *nodes;
    plan_edge *edges;
    int nblocks;
    /* The first fact the graph gets wrong, in the order a build meets
     * them: at node fail_node (nnodes: none), before its block is created
     * or (fail_node_late) after; else at edge fail_edge (nedges: none),
     * before its stream's channel is found or (fail_edge_late) after. */
    int fail_node, fail_node_late, fail_edge, fail_edge_late;
    sam_error fail;
} sim_plan;

/* Only running out of memory fails here. The plan points into g, which
 * must outlive it unchanged. */
int sim_plan_init(sim_plan *p, const sam_graph *g, const sim_options *o, sam_error *err);
void sim_plan_free(sim_plan *p);

/* The blocks in a parallelizer's lanes (nodes with a lane attribute)
 * take factor times their initiation interval: lanes sharing a datapath
 * that the blocks around them use whole. */
void sim_plan_slow_lanes(sim_plan *p, uint32_t factor);

#endif
