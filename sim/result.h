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
#include "engine.h"

int sim_result(const sim_engine *e, const sam_graph *g, const sim_data *d, fibertree *out,
               sam_error *err);

#endif
