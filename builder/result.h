/* The result tensor of a run: the graph comment's first tensor, in its
 * level format, assembled from what the sinks wrote. Its dimensions come
 * from the operands: a level written for index variable i has the size of
 * any operand mode scanned under i. */
#ifndef SAMSIM_RESULT_H
#define SAMSIM_RESULT_H

#include "../common/error.h"
#include "../formats/fibertree.h"
#include "../graph/graph.h"
#include "build.h"
#include "../engine/engine.h"

/* The result tree of a finished run of g on d: what the sinks wrote,
 * moved out of them (their collect), so that e's sinks hold nothing
 * after. */
int sim_result(sim_engine *e, const sam_graph *g, const sim_data *d, fibertree *out,
               sam_error *err);

/* An operand mode scanned under a result mode's index. */
typedef struct result_source {
    const char *tensor;     /* in the graph */
    int mode;
} result_source;

/* What sim_result looks up in the graph, looked up once: a tiled run
 * collects a result on every tile point, and finding the result's
 * indices among the nodes' attributes each time cost more than
 * simulating a small tile. */
typedef struct sim_result_plan {
    const sam_graph *g;
    result_source *sources;         /* result mode m's are first[m] .. first[m + 1] - 1 */
    int first[TENSOR_MAX_ORDER + 1];
    char *writes;                   /* per node: a sink of the result may be there */
} sim_result_plan;

/* Only running out of memory fails here. The plan points into g, which
 * must outlive it unchanged. */
int sim_result_plan_init(sim_result_plan *p, const sam_graph *g, sam_error *err);
void sim_result_plan_free(sim_result_plan *p);

/* sim_result on the plan's graph. */
int sim_result_planned(sim_engine *e, const sim_result_plan *p, const sim_data *d,
                       fibertree *out, sam_error *err);

#endif
