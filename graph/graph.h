/* A SAM dataflow graph as data: nodes with their type and attributes,
 * edges with their stream kind and port label, and the per-tensor level
 * formats of the graph comment. graph/ reads and writes it as DOT (the
 * dialect of the SAM project's Custard compiler); builder/ builds blocks from
 * it. Nothing here knows what a block does. */
#ifndef SAMSIM_GRAPH_H
#define SAMSIM_GRAPH_H

#include "../common/error.h"
#include "../formats/level_format.h"

typedef struct graph_attr {
    char *key;
    char *value;
} graph_attr;

typedef struct graph_node {
    char *id;               /* the DOT node name, e.g. "11" */
    char *type;             /* the type= attribute, e.g. "fiberlookup" */
    graph_attr *attrs;      /* every attribute of the node, type included */
    int nattrs;
} graph_node;

typedef struct graph_edge {
    int src, dst;           /* node indices */
    char *kind;             /* the type= attribute: crd, ref, val, repsig */
    char *label;            /* e.g. "crd_in-B", "ref_out-C", "val" */
    char *comment;          /* e.g. "in-B", "" when absent */
    graph_attr *attrs;      /* every attribute of the edge */
    int nattrs;
} graph_edge;

/* One entry of the graph comment "X=ss01,B=ss10,b=none". */
typedef struct graph_tensor {
    char *name;
    level_format format;
} graph_tensor;

typedef struct sam_graph {
    char *path;             /* where it was read from, for messages */
    graph_node *nodes;      /* in the order of the file */
    int nnodes;
    graph_edge *edges;      /* in the order of the file */
    int nedges;
    graph_tensor *tensors;  /* in the order of the comment; the first is the result */
    int ntensors;
    graph_attr *attrs;      /* graph attributes other than the comment */
    int nattrs;
} sam_graph;

/* Reads a DOT file with cgraph. Errors (unreadable DOT, a node without
 * type, an edge without type, a malformed graph comment) name the file and
 * the node or edge. */
int graph_read_dot(const char *path, sam_graph *g, sam_error *err);

void graph_free(sam_graph *g);

/* The value of attribute key, or NULL. */
const char *graph_node_attr(const graph_node *n, const char *key);
const char *graph_edge_attr(const graph_edge *e, const char *key);
const char *graph_attr_get(const sam_graph *g, const char *key);

/* The tensor named name in the graph comment, or NULL. */
const graph_tensor *graph_tensor_find(const sam_graph *g, const char *name);

/* The index variable under which some node handles mode `mode` of tensor
 * `tensor` (a node with attributes tensor, mode and index, or a linked-list
 * writer's parent and parent_mode), or NULL. */
const char *graph_tensor_index(const sam_graph *g, const char *tensor, int mode);

/* The number of fiber levels of the stream on edge e (1 for the top level
 * of a tensor), worked out from the graph; -1 when it cannot tell. */
int graph_stream_depth(const sam_graph *g, const graph_edge *e);

/* Index of the node with DOT name id, or -1. */
int graph_node_index(const sam_graph *g, const char *id);

#endif
