#include "graph_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_fail(const char *s, sam_error *err)
{
    char *d = strdup(s);
    if (!d)
        error_set(err, "out of memory building the graph");
    return d;
}

/* Grows *arr by one element of size bytes, zeroed; NULL on failure. */
static void *grow_one(void *arr, int n, size_t size, sam_error *err)
{
    char *a = realloc(arr, ((size_t)n + 1) * size);
    if (!a) {
        error_set(err, "out of memory building the graph");
        return NULL;
    }
    memset(a + (size_t)n * size, 0, size);
    return a;
}

static int attr_append(graph_attr **attrs, int *n, const char *key, const char *value,
                       sam_error *err)
{
    graph_attr *a = grow_one(*attrs, *n, sizeof *a, err);
    if (!a)
        return -1;
    *attrs = a;
    a[*n].key = dup_or_fail(key, err);
    a[*n].value = a[*n].key ? dup_or_fail(value, err) : NULL;
    (*n)++;
    return a[*n - 1].value ? 0 : -1;
}

int graph_add_node(sam_graph *g, const char *type, sam_error *err)
{
    graph_node *nodes = grow_one(g->nodes, g->nnodes, sizeof *nodes, err);
    if (!nodes)
        return -1;
    g->nodes = nodes;
    graph_node *n = &nodes[g->nnodes++];
    char id[16];
    snprintf(id, sizeof id, "%d", g->nnodes - 1);
    if (!(n->id = dup_or_fail(id, err)) || !(n->type = dup_or_fail(type, err)) ||
        attr_append(&n->attrs, &n->nattrs, "type", type, err))
        return -1;
    return g->nnodes - 1;
}

int graph_node_set(sam_graph *g, int n, const char *key, const char *value, sam_error *err)
{
    return attr_append(&g->nodes[n].attrs, &g->nodes[n].nattrs, key, value, err);
}

int graph_node_put(sam_graph *g, int n, const char *key, const char *value, sam_error *err)
{
    graph_node *node = &g->nodes[n];
    for (int k = 0; k < node->nattrs; k++)
        if (!strcmp(node->attrs[k].key, key)) {
            char *copy = strdup(value);
            if (!copy)
                return error_set(err, "out of memory");
            free(node->attrs[k].value);
            node->attrs[k].value = copy;
            return 0;
        }
    return graph_node_set(g, n, key, value, err);
}

int graph_add_edge(sam_graph *g, int src, int dst, const char *kind, const char *label,
                   const char *comment, sam_error *err)
{
    graph_edge *edges = grow_one(g->edges, g->nedges, sizeof *edges, err);
    if (!edges)
        return -1;
    g->edges = edges;
    graph_edge *e = &edges[g->nedges++];
    e->src = src;
    e->dst = dst;
    if (!(e->kind = dup_or_fail(kind, err)) || !(e->label = dup_or_fail(label, err)) ||
        !(e->comment = dup_or_fail(comment ? comment : "", err)) ||
        attr_append(&e->attrs, &e->nattrs, "label", label, err) ||
        attr_append(&e->attrs, &e->nattrs, "type", kind, err) ||
        (comment && attr_append(&e->attrs, &e->nattrs, "comment", comment, err)))
        return -1;
    return g->nedges - 1;
}

int graph_edge_set(sam_graph *g, int e, const char *key, const char *value, sam_error *err)
{
    return attr_append(&g->edges[e].attrs, &g->edges[e].nattrs, key, value, err);
}

int graph_add_tensor(sam_graph *g, const char *name, const level_format *f, sam_error *err)
{
    graph_tensor *t = grow_one(g->tensors, g->ntensors, sizeof *t, err);
    if (!t)
        return -1;
    g->tensors = t;
    t[g->ntensors].format = *f;
    if (!(t[g->ntensors].name = dup_or_fail(name, err)))
        return -1;
    g->ntensors++;
    return 0;
}

int graph_set_attr(sam_graph *g, const char *key, const char *value, sam_error *err)
{
    return attr_append(&g->attrs, &g->nattrs, key, value, err);
}
