#include "result.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int attr_is(const graph_node *n, const char *key, const char *value)
{
    const char *v = graph_node_attr(n, key);
    return v && !strcmp(v, value);
}

/* The operand modes that nodes scan under index variable idx, appended
 * at sources[*n] (counted only while sources is NULL). */
static void index_sources(const sam_graph *g, const char *idx, result_source *sources, int *n)
{
    for (int i = 0; i < g->nnodes; i++) {
        const graph_node *node = &g->nodes[i];
        const char *t = graph_node_attr(node, "tensor"), *m = graph_node_attr(node, "mode");
        if (!attr_is(node, "index", idx) || !t || !m)
            continue;
        if (sources)
            sources[*n] = (result_source){t, atoi(m)};
        (*n)++;
    }
}

/* Every result mode's sources, mode by mode (counted only while
 * p->sources is NULL). */
static void list_sources(sim_result_plan *p)
{
    const sam_graph *g = p->g;
    const graph_tensor *x = &g->tensors[0];
    int n = 0;
    for (int m = 0; m < x->format.nlevels; m++) {
        p->first[m] = n;
        const char *idx = graph_tensor_index(g, x->name, m);
        if (idx)
            index_sources(g, idx, p->sources, &n);
    }
    p->first[x->format.nlevels] = n;
}

int sim_result_plan_init(sim_result_plan *p, const sam_graph *g, sam_error *err)
{
    memset(p, 0, sizeof *p);
    p->g = g;
    if (g->ntensors == 0)
        return 0;
    list_sources(p);
    p->sources = malloc(((size_t)p->first[g->tensors[0].format.nlevels] + 1) *
                        sizeof *p->sources);
    p->writes = malloc((size_t)g->nnodes + 1);
    if (!p->sources || !p->writes) {
        sim_result_plan_free(p);
        return error_set(err, "out of memory");
    }
    list_sources(p);
    for (int i = 0; i < g->nnodes; i++)
        p->writes[i] = (char)attr_is(&g->nodes[i], "tensor", g->tensors[0].name);
    return 0;
}

void sim_result_plan_free(sim_result_plan *p)
{
    free(p->sources);
    free(p->writes);
    memset(p, 0, sizeof *p);
}

/* The size of result mode m: the largest dimension of a bound operand
 * mode that some node scans under its index (operands need not agree:
 * the SAM scripts write vectors from empty files with length 1). -1 when
 * no node tells. */
static int64_t mode_dim(const sim_result_plan *p, const sim_data *d, int m)
{
    int64_t dim = -1;
    for (int k = p->first[m]; k < p->first[m + 1]; k++) {
        const fibertree *ft = sim_data_find(d, p->sources[k].tensor);
        int mode = p->sources[k].mode;
        if (ft && mode >= 0 && mode < ft->order && ft->dims[mode] > dim)
            dim = ft->dims[mode];
    }
    return dim;
}

static int shape_result(const sim_result_plan *p, const sim_data *d, fibertree *out,
                        sam_error *err)
{
    const graph_tensor *x = &p->g->tensors[0];
    out->order = x->format.nlevels;
    for (int m = 0; m < out->order; m++) {
        out->dims[m] = mode_dim(p, d, m);
        if (out->dims[m] < 0)
            return error_at(err, p->g->path, 0, "the size of mode %d of result %s is unknown",
                            m, x->name);
    }
    for (int k = 0; k < out->order; k++) {
        out->lv[k].kind = x->format.kind[k];
        out->lv[k].mode = x->format.mode[k];
        out->lv[k].dim = out->dims[out->lv[k].mode];
    }
    return 0;
}

/* A level that no writer handed over keeps only its shape, and a dense
 * one costs its positions to walk and to check: such a level is refused
 * beyond the dense limit of a tensor holding every operand's entries, as
 * storing an operand densely is. Results whose writers filled every
 * level skip the check. */
static int check_unwritten(const fibertree *out, const sim_data *d, sam_error *err)
{
    int dense = 0;
    for (int k = 0; k < out->order; k++)
        dense |= out->lv[k].kind == 'd';
    if (!dense)
        return 0;
    size_t entries = 0;
    for (int i = 0; i < d->n; i++)
        entries += sim_binding_tree(&d->items[i])->nvals;
    int64_t limit;
    return fibertree_dense_limit(entries, &limit, err) || fibertree_check_dense(out, limit, err)
               ? -1
               : 0;
}

/* A writer closes only the fibers that hold something, as the
 * reference's does (SAM-BLOCKS.md 5.5), and a crddrop keeps the level
 * above consistent with it. A graph without one leaves a fiber above for
 * every empty fiber the writer dropped; when the writer met no coordinate
 * at all (an inner product by an operand without entries, whose j fibers
 * are one empty fiber repeated), every fiber of the level is empty, and
 * each gets its seg entry. The top level is one such fiber of its own
 * (the reference writes seg [0] for it, SAM-BLOCKS.md 8.7). */
static int seg_empty_fibers(fibertree *out, sam_error *err)
{
    int64_t positions = 1;
    for (int k = 0; k < out->order; k++) {
        fiber_level *l = &out->lv[k];
        if (l->kind == 's' && l->ncrd == 0 && l->nseg == 1 && positions > 0) {
            int64_t *seg = calloc((size_t)positions + 1, sizeof *seg);
            if (!seg)
                return error_set(err, "out of memory");
            free(l->seg);
            l->seg = seg;
            l->nseg = (size_t)positions + 1;
        }
        positions = fibertree_positions(out, k);
    }
    return 0;
}

int sim_result_planned(sim_engine *e, const sim_result_plan *p, const sim_data *d,
                       fibertree *out, sam_error *err)
{
    const sam_graph *g = p->g;
    memset(out, 0, sizeof *out);
    if (g->ntensors == 0)
        return error_at(err, g->path, 0, "the graph comment names no result tensor");
    if (shape_result(p, d, out, err))
        return -1;
    for (int i = 0; i < e->nblocks; i++) {
        block *b = &e->blocks[i];
        if (b->ops->collect && p->writes[b->node - g->nodes] && b->ops->collect(b, out, err)) {
            fibertree_free(out);
            return error_prefix(err, g->path);
        }
    }
    if (check_unwritten(out, d, err) || seg_empty_fibers(out, err)) {
        fibertree_free(out);
        return error_wrap(err, "%s: the result %s", g->path, g->tensors[0].name);
    }
    if (fibertree_validate(out, err)) {
        fibertree_free(out);
        return error_wrap(err, "%s: the result %s is malformed", g->path, g->tensors[0].name);
    }
    return 0;
}

int sim_result(sim_engine *e, const sam_graph *g, const sim_data *d, fibertree *out,
               sam_error *err)
{
    sim_result_plan p;
    if (sim_result_plan_init(&p, g, err)) {
        memset(out, 0, sizeof *out);
        return error_prefix(err, g->path);
    }
    int rc = sim_result_planned(e, &p, d, out, err);
    sim_result_plan_free(&p);
    return rc;
}
