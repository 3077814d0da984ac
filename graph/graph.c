/* The sam_graph accessors and its release; reading is in dot_read.c. */
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *attr_find(const graph_attr *a, int n, const char *key)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(a[i].key, key))
            return a[i].value;
    }
    return NULL;
}

const char *graph_node_attr(const graph_node *n, const char *key)
{
    return attr_find(n->attrs, n->nattrs, key);
}

const char *graph_edge_attr(const graph_edge *e, const char *key)
{
    return attr_find(e->attrs, e->nattrs, key);
}

const char *graph_attr_get(const sam_graph *g, const char *key)
{
    return attr_find(g->attrs, g->nattrs, key);
}

const graph_tensor *graph_tensor_find(const sam_graph *g, const char *name)
{
    for (int i = 0; i < g->ntensors; i++) {
        if (!strcmp(g->tensors[i].name, name))
            return &g->tensors[i];
    }
    return NULL;
}

int graph_node_index(const sam_graph *g, const char *id)
{
    for (int i = 0; i < g->nnodes; i++) {
        if (!strcmp(g->nodes[i].id, id))
            return i;
    }
    return -1;
}

/* Entries may be half filled when reading failed midway, so every pointer
 * may be NULL. */
static void attrs_free(graph_attr *a, int n)
{
    for (int i = 0; i < n; i++) {
        free(a[i].key);
        free(a[i].value);
    }
    free(a);
}

void graph_free(sam_graph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->nnodes; i++) {
        free(g->nodes[i].id);
        free(g->nodes[i].type);
        attrs_free(g->nodes[i].attrs, g->nodes[i].nattrs);
    }
    free(g->nodes);
    for (int i = 0; i < g->nedges; i++) {
        free(g->edges[i].kind);
        free(g->edges[i].label);
        free(g->edges[i].comment);
        attrs_free(g->edges[i].attrs, g->edges[i].nattrs);
    }
    free(g->edges);
    for (int i = 0; i < g->ntensors; i++)
        free(g->tensors[i].name);
    free(g->tensors);
    attrs_free(g->attrs, g->nattrs);
    free(g->path);
    memset(g, 0, sizeof *g);
}

const char *graph_tensor_index(const sam_graph *g, const char *tensor, int mode)
{
    char want[16];
    snprintf(want, sizeof want, "%d", mode);
    for (int i = 0; i < g->nnodes; i++) {
        const graph_node *n = &g->nodes[i];
        const char *t = graph_node_attr(n, "tensor"), *m = graph_node_attr(n, "mode");
        const char *idx = graph_node_attr(n, "index");
        const char *pm = graph_node_attr(n, "parent_mode"), *parent = graph_node_attr(n, "parent");
        if (t && m && idx && !strcmp(t, tensor) && !strcmp(m, want))
            return idx;
        if (t && pm && parent && !strcmp(t, tensor) && !strcmp(pm, want))
            return parent;
    }
    return NULL;
}
