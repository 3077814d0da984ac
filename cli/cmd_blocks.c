/* samsim blocks: the block types samsim simulates, the implementations of
 * each (the default marked, as the registry declares it) and the node
 * attributes they read. */
#include <stdio.h>
#include <string.h>

#include "../blocks/registry.h"
#include "commands.h"
#include "options.h"

/* Whether an implementation of type was registered before index i. */
static int type_seen(const char *type, int i)
{
    for (int k = 0; k < i; k++)
        if (!strcmp(registry_at(k)->type, type))
            return 1;
    return 0;
}

static const char *role_mark(registry_role role)
{
    switch (role) {
    case REGISTRY_DEFAULT:
        return " [default]";
    case REGISTRY_VARIANT:
        return " [for the nodes it serves]";
    default:
        return "";
    }
}

static void print_type(const char *type)
{
    printf("%s\n", type);
    for (int i = 0; i < registry_count(); i++) {
        const block_ops *ops = registry_at(i);
        if (strcmp(ops->type, type))
            continue;
        printf("    %-12s %s%s\n", ops->impl, ops->about, role_mark(registry_role_at(i)));
        param_print_list(stdout, ops->params, 8);
    }
}

int cmd_blocks(int argc, char **argv)
{
    (void)argv;
    if (argc) {
        fprintf(stderr, "samsim: usage: samsim blocks (it takes no arguments)\n");
        return 1;
    }
    for (int i = 0; i < registry_count(); i++)
        if (!type_seen(registry_at(i)->type, i))
            print_type(registry_at(i)->type);
    printf("\nEvery block also reads: impl=implementation; ii=initiation interval, cycles "
           "between steps (1);\nlatency=extra cycles before its outputs are visible (0); "
           "capacity=tokens each output stream holds (0: unbounded).\n"
           "Edges read capacity and latency (1) for their stream. Set them in the graph, with "
           "--config FILE\n(TYPE.NAME = VALUE, node.ID.NAME = VALUE, channel.capacity, "
           "channel.latency, bitvector.width) or --impl TYPE=NAME.\n");
    return 0;
}

const cli_command cmd_blocks_command = {
    .name = "blocks",
    .run = cmd_blocks,
    .synopsis = "",
    .about = "Lists every block type, its implementations (exactly one marked [default], "
        "variants chosen for the nodes they serve, and alternatives chosen with impl) and the "
        "parameters each reads.",
};
