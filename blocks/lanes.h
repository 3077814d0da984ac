/* What the blocks of parallel lanes share (SAM paper section 4.4): a
 * node's lane count (attribute lanes=N) and the lane an edge of it serves
 * (edge attribute lane=L). A parallelizer, serializer or merging
 * vectorreducer has a port per lane, so N is bounded by the ports a block
 * has. */
#ifndef SAMSIM_LANES_H
#define SAMSIM_LANES_H

#include "../engine/block.h"

#define LANES_MAX 32

/* The node's lanes=N (default 1), 1..LANES_MAX. */
int lanes_count(block *b, const block_ctx *ctx, int *lanes, sam_error *err);

/* The lane edge e serves, 0..lanes-1, or -1 with err set. */
int lanes_of_edge(block *b, const graph_edge *e, int lanes, sam_error *err);

/* Port names "lane0", "lane1", ... for messages and statistics. */
extern const char *const lanes_names[LANES_MAX];

#endif
