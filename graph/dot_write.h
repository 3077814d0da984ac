/* Writing a sam_graph as DOT, in the dialect of the SAM project's Custard
 * compiler: "digraph SAM", the tensor formats as the graph comment, and per
 * node a comment "type=...,key=value", a label and colour chosen by node
 * type, a shape and style, then every attribute as key="value". Nodes and
 * edges come out in the order of the IR. Presentation attributes a node or
 * edge already has (a graph read from a file) are written as they are;
 * only missing ones are derived, so reading the output with graph_read_dot
 * gives back the same graph. */
#ifndef SAMSIM_DOT_WRITE_H
#define SAMSIM_DOT_WRITE_H

#include <stdio.h>

#include "../common/error.h"
#include "graph.h"

/* Writes g to out and flushes it. Returns -1 on a write error, on running
 * out of memory (errno ENOMEM), or when a value cannot be written so that
 * cgraph reads it back unchanged (errno EINVAL: an odd run of backslashes
 * right before a quote, a line break or the end of the value); out may
 * then hold part of the graph. */
int graph_write_dot(const sam_graph *g, FILE *out);

/* Writes g to path, "-" meaning standard output. The whole text is made
 * first, and a file is replaced only once it is completely written, so a
 * failure leaves no partial output. Errors are one line naming the path. */
int graph_write_dot_file(const sam_graph *g, const char *path, sam_error *err);

/* The label and colour node n is drawn with: its own label and color
 * attributes, else those Custard gives its type. *label is malloc'd, NULL
 * for a type drawn without one (a broadcast is a point); *color is NULL
 * when there is none. Returns -1 when memory ran out. */
int graph_node_look(const graph_node *n, char **label, const char **color);

/* The line style of edge e: its own, else Custard's for its stream kind
 * (crd dashed, ref bold, repsig dotted; NULL, plain, for val), and a
 * bitvector stream (bv) dashed as the coordinates it carries. */
const char *graph_edge_style(const graph_edge *e);

#endif
