/* Every block implementation, each defined in its own file of this
 * folder and listed in blocks/registry.c. What several of them share has a
 * header of its own: joiner.h, scanner.h, index_ports.h. */
#ifndef SAMSIM_BLOCKS_H
#define SAMSIM_BLOCKS_H

#include <string.h>

#include "../engine/block.h"

/* Whether node n's attribute key is value: what most serves ask. */
static inline int blocks_attr_is(const graph_node *n, const char *key, const char *value)
{
    const char *v = graph_node_attr(n, key);
    return v && !strcmp(v, value);
}

extern const block_ops fiberlookup_compressed_ops;
extern const block_ops arrayvals_ops;
extern const block_ops fiberwrite_compressed_ops;
extern const block_ops fiberwrite_vals_ops;
extern const block_ops mul_ops;
extern const block_ops add_ops;
extern const block_ops reduce_ops;
extern const block_ops spaccumulator_ops;
extern const block_ops fiberlookup_dense_ops;
extern const block_ops repsiggen_ops;
extern const block_ops repeat_ops;
extern const block_ops fiberwrite_dense_ops;
extern const block_ops intersect_ops;
extern const block_ops intersect_skip_ops;
extern const block_ops fiberlookup_vector_ops;
extern const block_ops union_ops;
extern const block_ops vectorreducer_ops;
extern const block_ops spaccumulator_dense_ops;
extern const block_ops vectorreducer_dense_ops;
extern const block_ops crddrop_values_ops;
extern const block_ops crdhold_values_ops;
extern const block_ops crddrop_ops;
extern const block_ops crdhold_ops;
extern const block_ops locate_ops;
extern const block_ops bv_ops;
extern const block_ops bv_to_crd_ops;
extern const block_ops fiberlookup_bitvector_ops;
extern const block_ops intersect_bitvector_ops;
extern const block_ops union_bitvector_ops;
extern const block_ops fiberwrite_bitvector_ops;
extern const block_ops fiberwrite_linkedlist_ops;
extern const block_ops fiberlookup_linkedlist_ops;
extern const block_ops parallelize_ops;
extern const block_ops serialize_ops;

#endif
