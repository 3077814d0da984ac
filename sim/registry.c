#include "registry.h"

#include <string.h>

#include "../blocks/blocks.h"

static const block_ops *const registry[] = {
    &fiberlookup_compressed_ops,
    &arrayvals_ops,
    &fiberwrite_compressed_ops,
    &fiberwrite_vals_ops,
    &mul_ops,
    &add_ops,
    &reduce_ops,
    &spaccumulator_ops,
    &fiberlookup_dense_ops,
    &repsiggen_ops,
    &repeat_ops,
    &fiberwrite_dense_ops,
    &intersect_ops,
    &intersect_skip_ops,
    &fiberlookup_vector_ops,
    &union_ops,
    &vectorreducer_ops,
    &spaccumulator_dense_ops,
    &vectorreducer_dense_ops,
    &crddrop_values_ops,
    &crdhold_values_ops,
    &crddrop_ops,
    &crdhold_ops,
};

int registry_count(void)
{
    return (int)(sizeof registry / sizeof registry[0]);
}

const block_ops *registry_at(int i)
{
    return registry[i];
}

const block_ops *registry_find(const graph_node *n, const char *impl, sam_error *err)
{
    int known_type = 0;
    for (int i = 0; i < registry_count(); i++) {
        const block_ops *ops = registry[i];
        if (strcmp(ops->type, n->type))
            continue;
        known_type = 1;
        if (impl && strcmp(ops->impl, impl))
            continue;
        if (!ops->serves || ops->serves(n))
            return ops;
    }
    if (!known_type)
        error_set(err, "node %s: unknown block type '%s'", n->id, n->type);
    else if (impl)
        error_set(err, "node %s (%s): no implementation '%s' for this node", n->id, n->type, impl);
    else
        error_set(err, "node %s (%s): no implementation serves this node's attributes", n->id,
                  n->type);
    return NULL;
}
