/* From a graph and the tensors bound to its names to a ready engine: one
 * block per node (DOT broadcast nodes are wiring, not blocks), one channel
 * per connected output port, root inputs fed [0, D], and every check made
 * before the first cycle: unknown types, ports that do not fit, inputs
 * without an edge or with two, tensors without data. */
#ifndef SAMSIM_BUILD_H
#define SAMSIM_BUILD_H

#include "../common/error.h"
#include "../formats/fibertree.h"
#include "../graph/graph.h"
#include "engine.h"

typedef struct sim_binding {
    char *name;
    fibertree tree;
} sim_binding;

typedef struct sim_data {
    sim_binding *items;
    int n;
    size_t cap;             /* room in items */
} sim_data;

/* Stores t under name in format f (copied). */
int sim_data_add(sim_data *d, const char *name, const tensor *t, const level_format *f,
                 sam_error *err);
const fibertree *sim_data_find(const sim_data *d, const char *name);
void sim_data_free(sim_data *d);

/* Binds name to a tree another owner keeps (a tiled run's tiles, bound
 * again for every tile they take part in); data holding such bindings is
 * let go with sim_data_release, which frees the list and not the trees. */
int sim_data_borrow(sim_data *d, const char *name, const fibertree *tree, sam_error *err);
void sim_data_release(sim_data *d);

/* Bounds of latencies and initiation intervals (cycles) and of channel
 * capacities (tokens): the event engine keeps a slot per cycle of the
 * longest wait. */
#define TIMING_MAX 1000
#define CAPACITY_MAX 1000000

typedef struct sim_options {
    uint64_t depth;         /* channel capacity, 0 unbounded */
    uint32_t latency;       /* channel latency in cycles, >= 1 */
} sim_options;

int sim_build(sim_engine *e, const sam_graph *g, const sim_data *d, const sim_options *o,
              sam_error *err);

#endif
