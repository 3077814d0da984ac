/* The ports of crddrop and crdhold, the blocks that pair an outer and an
 * inner index stream: input and output INDEX_OUTER carry the outer index,
 * INDEX_INNER the inner one, told apart by the index names (attributes
 * outer and inner) in the edges' comments or labels: "in-i", "i",
 * "outer-j", "inner-k", ... */
#ifndef SAMSIM_INDEX_PORTS_H
#define SAMSIM_INDEX_PORTS_H

#include "../engine/block.h"

enum { INDEX_OUTER, INDEX_INNER };

typedef struct index_names {
    const char *outer, *inner;
} index_names;

/* Reads the index names and names the block's ports; -1 with err set when
 * an attribute is missing. */
int index_ports_create(block *b, const block_ctx *ctx, index_names *names, sam_error *err);

/* The port of edge e, or -1 with err set when it names neither index. */
int index_ports_port(block *b, const index_names *names, const graph_edge *e, int input,
                     sam_error *err);

#endif
