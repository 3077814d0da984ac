#include "registry.h"

#include <string.h>

#include "blocks.h"

typedef struct registry_entry {
    const block_ops *ops;
    registry_role role;
} registry_entry;

static const registry_entry registry[] = {
    {&fiberlookup_compressed_ops, REGISTRY_DEFAULT},
    {&fiberlookup_dense_ops, REGISTRY_VARIANT},
    {&fiberlookup_vector_ops, REGISTRY_ALTERNATIVE},
    {&arrayvals_ops, REGISTRY_DEFAULT},
    {&fiberwrite_compressed_ops, REGISTRY_DEFAULT},
    {&fiberwrite_vals_ops, REGISTRY_VARIANT},
    {&fiberwrite_dense_ops, REGISTRY_VARIANT},
    {&mul_ops, REGISTRY_DEFAULT},
    {&add_ops, REGISTRY_DEFAULT},
    {&reduce_ops, REGISTRY_DEFAULT},
    {&spaccumulator_ops, REGISTRY_DEFAULT},
    {&spaccumulator_dense_ops, REGISTRY_ALTERNATIVE},
    {&repsiggen_ops, REGISTRY_DEFAULT},
    {&repeat_ops, REGISTRY_DEFAULT},
    {&intersect_ops, REGISTRY_DEFAULT},
    {&intersect_skip_ops, REGISTRY_ALTERNATIVE},
    {&union_ops, REGISTRY_DEFAULT},
    {&vectorreducer_ops, REGISTRY_DEFAULT},
    {&vectorreducer_dense_ops, REGISTRY_ALTERNATIVE},
    {&crddrop_ops, REGISTRY_DEFAULT},
    {&crddrop_values_ops, REGISTRY_VARIANT},
    {&crdhold_ops, REGISTRY_DEFAULT},
    {&crdhold_values_ops, REGISTRY_VARIANT},
    {&locate_ops, REGISTRY_DEFAULT},
    {&bv_ops, REGISTRY_DEFAULT},
    {&bv_to_crd_ops, REGISTRY_VARIANT},
    {&fiberlookup_bitvector_ops, REGISTRY_VARIANT},
    {&intersect_bitvector_ops, REGISTRY_VARIANT},
    {&union_bitvector_ops, REGISTRY_VARIANT},
    {&fiberwrite_bitvector_ops, REGISTRY_VARIANT},
    {&fiberwrite_linkedlist_ops, REGISTRY_VARIANT},
    {&fiberlookup_linkedlist_ops, REGISTRY_VARIANT},
    {&parallelize_ops, REGISTRY_DEFAULT},
    {&serialize_ops, REGISTRY_DEFAULT},
};

int registry_count(void)
{
    return (int)(sizeof registry / sizeof registry[0]);
}

const block_ops *registry_at(int i)
{
    return registry[i].ops;
}

registry_role registry_role_at(int i)
{
    return registry[i].role;
}

static int serves(const block_ops *ops, const graph_node *n)
{
    return !ops->serves || ops->serves(n);
}

/* impl when given, else a variant serving n, else the default serving n. */
static const block_ops *choose(const graph_node *n, const char *impl)
{
    const block_ops *fallback = NULL;
    for (int i = 0; i < registry_count(); i++) {
        const registry_entry *r = &registry[i];
        if (strcmp(r->ops->type, n->type) || !serves(r->ops, n))
            continue;
        if (impl ? !strcmp(r->ops->impl, impl) : r->role == REGISTRY_VARIANT)
            return r->ops;
        if (!impl && r->role == REGISTRY_DEFAULT)
            fallback = r->ops;
    }
    return fallback;
}

static int known_type(const char *type)
{
    for (int i = 0; i < registry_count(); i++)
        if (!strcmp(registry[i].ops->type, type))
            return 1;
    return 0;
}

const block_ops *registry_find(const graph_node *n, const char *impl, sam_error *err)
{
    const block_ops *ops = choose(n, impl);
    if (ops)
        return ops;
    if (!known_type(n->type))
        error_set(err, "node %s: unknown block type '%s'", n->id, n->type);
    else if (impl)
        error_set(err, "node %s (%s): no implementation '%s' for this node", n->id, n->type, impl);
    else
        error_set(err, "node %s (%s): no implementation serves this node's attributes", n->id,
                  n->type);
    return NULL;
}
