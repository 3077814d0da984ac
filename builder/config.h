/* Run settings: a config file given with --config and the command line's
 * --impl, --depth and --latency, applied to a graph before it is built.
 *
 * The file has one `key = value` per line; `#` starts a comment, blank
 * lines are skipped. A key is SCOPE.NAME:
 *
 *   channel.capacity = 16       every stream (0: unbounded, the default)
 *   channel.latency = 1         every stream (cycles, the default 1)
 *   TYPE.NAME = VALUE           every node of block type TYPE (intersect,
 *                               fiberlookup, ...): impl, ii, latency,
 *                               capacity, or a parameter of an
 *                               implementation (samsim blocks lists them)
 *   node.ID.NAME = VALUE        the node with DOT name ID, the same names
 *   bitvector.width = 16        every bitvector block: the width of the
 *                               words their streams carry, which blocks
 *                               sharing a stream must agree on; a
 *                               TYPE.width leaves them alone
 *
 * Node settings become node attributes, replacing the graph's own: the
 * graph describes a design, the settings an experiment on it. A node
 * setting wins over a type setting, a later line over an earlier one, the
 * command line over the file. Implementations are set before the rest:
 * the one that serves a node decides whether a type's width reaches it. Edge attributes capacity and latency in the
 * graph still win over channel.* for their stream. */
#ifndef SAMSIM_CONFIG_H
#define SAMSIM_CONFIG_H

#include "../common/error.h"
#include "../graph/graph.h"
#include "build.h"

typedef struct sim_setting {
    char *scope;            /* "channel", a block type, or "node.ID" */
    char *name;
    char *value;
    char *origin;           /* "FILE:LINE" or the option, for messages */
} sim_setting;

typedef struct sim_config {
    sim_setting *items;
    int n;
    size_t cap;             /* room in items */
} sim_config;

/* Adds the settings of a config file. */
int sim_config_read(sim_config *c, const char *path, sam_error *err);

/* Adds one setting "SCOPE.NAME" = value; origin names where it comes from. */
int sim_config_add(sim_config *c, const char *key, const char *value, const char *origin,
                   sam_error *err);

/* Checks every setting against the graph and the registry, then applies
 * them: node settings to g's nodes, channel settings to o. */
int sim_config_apply(const sim_config *c, sam_graph *g, sim_options *o, sam_error *err);

void sim_config_free(sim_config *c);

#endif
