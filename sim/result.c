#include "result.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int attr_is(const graph_node *n, const char *key, const char *value)
{
    const char *v = graph_node_attr(n, key);
    return v && !strcmp(v, value);
}

/* The size of index variable idx: the largest dimension of a bound
 * operand mode that some node scans under idx (operands need not agree:
 * the SAM scripts write vectors from empty files with length 1). -1 when
 * no node tells. */
static int64_t index_dim(const sam_graph *g, const sim_data *d, const char *idx)
{
    int64_t dim = -1;
    for (int i = 0; i < g->nnodes; i++) {
        const graph_node *n = &g->nodes[i];
        const char *t = graph_node_attr(n, "tensor"), *m = graph_node_attr(n, "mode");
        if (!attr_is(n, "index", idx) || !t || !m)
            continue;
        const fibertree *ft = sim_data_find(d, t);
        int mode = atoi(m);
        if (ft && mode >= 0 && mode < ft->order && ft->dims[mode] > dim)
            dim = ft->dims[mode];
    }
    return dim;
}

static int shape_result(const sam_graph *g, const sim_data *d, fibertree *out, sam_error *err)
{
    const graph_tensor *x = &g->tensors[0];
    out->order = x->format.nlevels;
    for (int m = 0; m < out->order; m++) {
        const char *idx = graph_tensor_index(g, x->name, m);
        out->dims[m] = idx ? index_dim(g, d, idx) : -1;
        if (out->dims[m] < 0)
            return error_at(err, g->path, 0, "the size of mode %d of result %s is unknown", m,
                            x->name);
    }
    for (int k = 0; k < out->order; k++) {
        out->lv[k].kind = x->format.kind[k];
        out->lv[k].mode = x->format.mode[k];
        out->lv[k].dim = out->dims[out->lv[k].mode];
    }
    return 0;
}

int sim_result(const sim_engine *e, const sam_graph *g, const sim_data *d, fibertree *out,
               sam_error *err)
{
    memset(out, 0, sizeof *out);
    if (g->ntensors == 0)
        return error_at(err, g->path, 0, "the graph comment names no result tensor");
    if (shape_result(g, d, out, err))
        return -1;
    for (int i = 0; i < e->nblocks; i++) {
        const block *b = &e->blocks[i];
        if (b->ops->collect && attr_is(b->node, "tensor", g->tensors[0].name) &&
            b->ops->collect(b, out, err)) {
            fibertree_free(out);
            return error_prefix(err, g->path);
        }
    }
    if (fibertree_validate(out, err)) {
        fibertree_free(out);
        return error_wrap(err, "%s: the result %s is malformed", g->path, g->tensors[0].name);
    }
    return 0;
}
