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
#include "build_plan.h"
#include "../engine/engine.h"

typedef struct sim_binding {
    char *name;
    fibertree own;              /* the tree, when the data owns it */
    const fibertree *borrowed;  /* else another owner's, bound by reference
                                   (a tiled run binds millions of tiles) */
} sim_binding;

static inline const fibertree *sim_binding_tree(const sim_binding *b)
{
    return b->borrowed ? b->borrowed : &b->own;
}

typedef struct sim_data {
    sim_binding *items;
    int n;
    size_t cap;             /* room in items */
} sim_data;

/* Stores t under name in format f (copied). */
int sim_data_add(sim_data *d, const char *name, const tensor *t, const level_format *f,
                 sam_error *err);
/* Stores tree under name: d owns it from now on (the caller's is
 * cleared); on failure it stays the caller's. */
int sim_data_adopt(sim_data *d, const char *name, fibertree *tree, sam_error *err);
const fibertree *sim_data_find(const sim_data *d, const char *name);
void sim_data_free(sim_data *d);

/* Binds name to a tree another owner keeps (a tiled run's tiles, bound
 * again for every tile they take part in); data holding such bindings is
 * let go with sim_data_release, which frees the list and not the trees. */
int sim_data_borrow(sim_data *d, const char *name, const fibertree *tree, sam_error *err);
void sim_data_release(sim_data *d);
/* Lets go of every borrowed binding but keeps the list's room for the
 * next tile point's, which would otherwise be allocated again. */
void sim_data_unbind(sim_data *d);

int sim_build(sim_engine *e, const sam_graph *g, const sim_data *d, const sim_options *o,
              sam_error *err);

/* sim_build on the graph and options of plan p (builder/build_plan.h): the
 * same engine, or the same error, without looking into the graph again.
 * e is zeroed, or an engine sim_engine_clear kept, whose arrays it
 * reuses; after a failure it is freed. */
int sim_build_planned(sim_engine *e, const sim_plan *p, const sim_data *d, sam_error *err);

/* Readies e, which sim_build_planned built from p and which has run
 * since, for a run on data d: the engine a build on d would give (the
 * same blocks, channels and wiring, every state and stream as new),
 * without building it again (an engine with a block that cannot re-arm,
 * block_ops.rearm, is built again). A tiled run builds once and re-arms
 * per tile point. After a failure e is freed. */
int sim_rearm_planned(sim_engine *e, const sim_plan *p, const sim_data *d, sam_error *err);

#endif
