/* Building a sam_graph in memory, as the compiler does: nodes get the DOT
 * names "0", "1", ... in the order they are added, and every call that
 * allocates reports running out of memory through err. The result is freed
 * with graph_free like a graph read from a file. */
#ifndef SAMSIM_GRAPH_BUILD_H
#define SAMSIM_GRAPH_BUILD_H

#include "graph.h"

/* Adds a node of the given type (also recorded as its type= attribute);
 * returns its index, or -1. */
int graph_add_node(sam_graph *g, const char *type, sam_error *err);

/* Appends attribute key=value to node n. */
int graph_node_set(sam_graph *g, int n, const char *key, const char *value, sam_error *err);

/* Sets attribute key of node n to value, replacing the one it has. */
int graph_node_put(sam_graph *g, int n, const char *key, const char *value, sam_error *err);

/* Adds an edge of stream kind (crd, ref, val, repsig) with its port label;
 * comment NULL leaves the edge without a comment attribute. Returns the
 * edge's index, or -1. */
int graph_add_edge(sam_graph *g, int src, int dst, const char *kind, const char *label,
                   const char *comment, sam_error *err);

/* Appends attribute key=value to edge e (beyond its kind, label, comment). */
int graph_edge_set(sam_graph *g, int e, const char *key, const char *value, sam_error *err);

/* Appends a tensor to the graph comment. */
int graph_add_tensor(sam_graph *g, const char *name, const level_format *f, sam_error *err);

/* Sets a graph attribute (other than the comment). */
int graph_set_attr(sam_graph *g, const char *key, const char *value, sam_error *err);

#endif
