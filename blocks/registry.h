/* The block implementations samsim knows, by DOT type and name. This
 * table is the only global state of the simulator, and it is constant. */
#ifndef SAMSIM_REGISTRY_H
#define SAMSIM_REGISTRY_H

#include "../common/error.h"
#include "../engine/block.h"

/* What an implementation is to its type, declared in the registry rather
 * than implied by its position: each type has exactly one default, the
 * implementation its nodes get unless told otherwise; a variant is what
 * the nodes it serves get instead (a dense fiberlookup for a dense level,
 * a crddrop with vals=true); an alternative runs only when asked for. */
typedef enum registry_role {
    REGISTRY_DEFAULT,
    REGISTRY_VARIANT,
    REGISTRY_ALTERNATIVE
} registry_role;

/* The implementation for node n: impl when given (an impl="" attribute or
 * a --impl override), else a variant that serves n, else the default of
 * n's type when it serves n. */
const block_ops *registry_find(const graph_node *n, const char *impl, sam_error *err);

int registry_count(void);
const block_ops *registry_at(int i);
registry_role registry_role_at(int i);

#endif
