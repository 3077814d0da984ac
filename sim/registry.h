/* The block implementations samsim knows, by DOT type and name. This
 * table is the only global state of the simulator, and it is constant. */
#ifndef SAMSIM_REGISTRY_H
#define SAMSIM_REGISTRY_H

#include "../common/error.h"
#include "block.h"

/* The implementation for node n: impl when given (an impl="" attribute or
 * a --impl override), else the first registered one that serves n. */
const block_ops *registry_find(const graph_node *n, const char *impl, sam_error *err);

int registry_count(void);
const block_ops *registry_at(int i);

#endif
