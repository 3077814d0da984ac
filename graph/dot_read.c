/* Reading a SAM graph from DOT with Graphviz's cgraph: the cgraph graph is
 * copied into a sam_graph (every string duplicated) and closed before
 * returning, so nothing of cgraph outlives the call. */
#include "graph.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cgraph.h>

static char *copy(const char *s, const char *path, sam_error *err)
{
    char *d = strdup(s);
    if (!d)
        error_at(err, path, 0, "out of memory");
    return d;
}

/* ---- parsing ---------------------------------------------------------- */

/* cgraph's message ends with a newline; the report must be one line. */
static void report_parse_error(const char *path, sam_error *err)
{
    char *msg = agerrors() > 0 ? aglasterr() : NULL;
    if (!msg) {
        error_at(err, path, 0, "no graph in the file");
        return;
    }
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    for (char *p = msg; *p; p++) {
        if (*p == '\n')
            *p = ' ';
    }
    error_at(err, path, 0, "%s", msg);
    free(msg);
}

/* cgraph's scanner keeps whatever it buffered past the closing brace and
 * would hand it to the next agread, whatever file that one reads. Reading
 * on until agread finds nothing (a NULL result flushes the scanner) keeps
 * files apart, and reveals a second graph or trailing junk. */
static int read_to_end(FILE *f)
{
    int extra = 0;
    for (Agraph_t *more; (more = agread(f, NULL)); agclose(more))
        extra++;
    return extra;
}

/* cgraph prints errors to stderr by default (the threshold is AGWARN).
 * Raising the threshold to AGMAX makes it keep them in its own buffer,
 * which aglasterr() hands back, so no handler with a static buffer is
 * needed; the caller's threshold is restored afterwards. */
static Agraph_t *parse_stream(FILE *f, const char *path, sam_error *err)
{
    agerrlevel_t old = agseterr(AGMAX);
    agreseterrors();
    agreadline(1); /* cgraph counts lines across files otherwise */
    Agraph_t *ag = agread(f, NULL);
    /* Only after a success: after a failure the scanner is flushed, and
     * reading on mid-file would replace the message with a worse one. */
    int extra = ag ? read_to_end(f) : 0;
    if (ag && (agerrors() > 0 || extra > 0)) {
        agclose(ag);
        ag = NULL;
        if (agerrors() == 0)
            error_at(err, path, 0, "more than one graph in the file");
        else
            report_parse_error(path, err);
    } else if (!ag) {
        report_parse_error(path, err);
    }
    agseterr(old);
    return ag;
}

static Agraph_t *parse_file(const char *path, sam_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        error_at(err, path, 0, "%s", strerror(errno));
        return NULL;
    }
    Agraph_t *ag = parse_stream(f, path, err);
    fclose(f);
    if (ag && !agisdirected(ag)) {
        agclose(ag);
        error_at(err, path, 0, "not a digraph: SAM graphs are directed");
        return NULL;
    }
    return ag;
}

/* ---- attributes ------------------------------------------------------- */

/* Objects (nodes, edges) sorted by their creation sequence: the order of
 * the file. Used both by qsort and by bsearch. */
static int by_seq(const void *a, const void *b)
{
    unsigned sa = AGSEQ(*(void *const *)a), sb = AGSEQ(*(void *const *)b);
    return (sa > sb) - (sa < sb);
}

static int by_id(const void *a, const void *b)
{
    int ia = (*(Agsym_t *const *)a)->id, ib = (*(Agsym_t *const *)b)->id;
    return (ia > ib) - (ia < ib);
}

typedef struct sym_list {
    Agsym_t **sym;
    int n;
} sym_list;

/* The attributes declared for kind, in declaration order (cgraph walks
 * them by name), so that attrs keep the order in which the file
 * introduced them. */
static int syms_declared(Agraph_t *ag, int kind, sym_list *l, const char *path, sam_error *err)
{
    l->n = 0;
    for (Agsym_t *s = agnxtattr(ag, kind, NULL); s; s = agnxtattr(ag, kind, s))
        l->n++;
    l->sym = malloc((size_t)(l->n ? l->n : 1) * sizeof *l->sym);
    if (!l->sym)
        return error_at(err, path, 0, "out of memory");
    int i = 0;
    for (Agsym_t *s = agnxtattr(ag, kind, NULL); s; s = agnxtattr(ag, kind, s))
        l->sym[i++] = s;
    qsort(l->sym, (size_t)l->n, sizeof *l->sym, by_id);
    return 0;
}

/* Every declared attribute whose value on obj is not empty (cgraph gives
 * undeclared-on-this-object attributes the empty default), except skip. */
static int read_attrs(void *obj, const sym_list *l, const char *skip, graph_attr **out, int *n,
                      const char *path, sam_error *err)
{
    *n = 0;
    *out = calloc((size_t)(l->n ? l->n : 1), sizeof **out);
    if (!*out)
        return error_at(err, path, 0, "out of memory");
    for (int i = 0; i < l->n; i++) {
        const char *v = agxget(obj, l->sym[i]);
        if (!v || !*v || (skip && !strcmp(l->sym[i]->name, skip)))
            continue;
        graph_attr *a = &(*out)[(*n)++];
        if (!(a->key = copy(l->sym[i]->name, path, err)) || !(a->value = copy(v, path, err)))
            return -1;
    }
    return 0;
}

/* ---- nodes and edges -------------------------------------------------- */

typedef struct objs {
    void **obj;
    int n;
} objs;

/* agfstnode already walks by sequence, but sorting says so explicitly and
 * lets node_index bsearch the array. */
static int collect_nodes(Agraph_t *ag, objs *o, const char *path, sam_error *err)
{
    o->n = 0;
    o->obj = malloc((size_t)(agnnodes(ag) + 1) * sizeof *o->obj);
    if (!o->obj)
        return error_at(err, path, 0, "out of memory");
    for (Agnode_t *v = agfstnode(ag); v; v = agnxtnode(ag, v))
        o->obj[o->n++] = v;
    qsort(o->obj, (size_t)o->n, sizeof *o->obj, by_seq);
    return 0;
}

/* Edges are reached node by node; their sequence numbers are global, so
 * sorting restores the order of the file. */
static int collect_edges(Agraph_t *ag, objs *o, const char *path, sam_error *err)
{
    o->n = 0;
    o->obj = malloc((size_t)(agnedges(ag) + 1) * sizeof *o->obj);
    if (!o->obj)
        return error_at(err, path, 0, "out of memory");
    for (Agnode_t *v = agfstnode(ag); v; v = agnxtnode(ag, v)) {
        for (Agedge_t *e = agfstout(ag, v); e; e = agnxtout(ag, e))
            o->obj[o->n++] = e;
    }
    qsort(o->obj, (size_t)o->n, sizeof *o->obj, by_seq);
    return 0;
}

static int node_index(const objs *nodes, Agnode_t *v)
{
    void *key = v;
    void **hit = bsearch(&key, nodes->obj, (size_t)nodes->n, sizeof *nodes->obj, by_seq);
    return hit ? (int)(hit - nodes->obj) : -1;
}

static int read_node(Agnode_t *v, const sym_list *syms, graph_node *n, const char *path,
                     sam_error *err)
{
    if (!(n->id = copy(agnameof(v), path, err)) ||
        read_attrs(v, syms, NULL, &n->attrs, &n->nattrs, path, err))
        return -1;
    const char *type = graph_node_attr(n, "type");
    if (!type)
        return error_at(err, path, 0, "node %s: no type attribute", n->id);
    return (n->type = copy(type, path, err)) ? 0 : -1;
}

static int read_nodes(Agraph_t *ag, const objs *nodes, sam_graph *g, sam_error *err)
{
    sym_list syms;
    if (syms_declared(ag, AGNODE, &syms, g->path, err))
        return -1;
    int rc = 0;
    g->nodes = calloc((size_t)(nodes->n ? nodes->n : 1), sizeof *g->nodes);
    if (!g->nodes)
        rc = error_at(err, g->path, 0, "out of memory");
    else
        g->nnodes = nodes->n;
    for (int i = 0; !rc && i < nodes->n; i++)
        rc = read_node(nodes->obj[i], &syms, &g->nodes[i], g->path, err);
    free(syms.sym);
    return rc;
}

/* kind, label and comment, taken from the attributes already copied. */
static int edge_fields(graph_edge *e, const sam_graph *g, sam_error *err)
{
    const char *kind = graph_edge_attr(e, "type");
    const char *label = graph_edge_attr(e, "label");
    const char *comment = graph_edge_attr(e, "comment");
    if (!kind)
        return error_at(err, g->path, 0, "edge %s -> %s: no type attribute",
                        g->nodes[e->src].id, g->nodes[e->dst].id);
    if (!(e->kind = copy(kind, g->path, err)) || !(e->label = copy(label ? label : "", g->path, err)) ||
        !(e->comment = copy(comment ? comment : "", g->path, err)))
        return -1;
    return 0;
}

static int read_edges(Agraph_t *ag, const objs *nodes, const objs *edges, sam_graph *g,
                      sam_error *err)
{
    sym_list syms;
    if (syms_declared(ag, AGEDGE, &syms, g->path, err))
        return -1;
    int rc = 0;
    g->edges = calloc((size_t)(edges->n ? edges->n : 1), sizeof *g->edges);
    if (!g->edges)
        rc = error_at(err, g->path, 0, "out of memory");
    else
        g->nedges = edges->n;
    for (int i = 0; !rc && i < edges->n; i++) {
        graph_edge *e = &g->edges[i];
        e->src = node_index(nodes, agtail((Agedge_t *)edges->obj[i]));
        e->dst = node_index(nodes, aghead((Agedge_t *)edges->obj[i]));
        rc = read_attrs(edges->obj[i], &syms, NULL, &e->attrs, &e->nattrs, g->path, err);
        if (!rc)
            rc = edge_fields(e, g, err);
    }
    free(syms.sym);
    return rc;
}

/* ---- graph attributes and the comment --------------------------------- */

static int read_graph_attrs(Agraph_t *ag, sam_graph *g, sam_error *err)
{
    sym_list syms;
    if (syms_declared(ag, AGRAPH, &syms, g->path, err))
        return -1;
    int rc = read_attrs(ag, &syms, "comment", &g->attrs, &g->nattrs, g->path, err);
    free(syms.sym);
    return rc;
}

/* One entry NAME=FORMAT of the graph comment, NUL-terminated in place;
 * blanks around it are tolerated for hand-written graphs. */
static int add_tensor(char *entry, sam_graph *g, sam_error *err)
{
    while (*entry == ' ' || *entry == '\t')
        entry++;
    for (size_t n = strlen(entry); n > 0 && (entry[n - 1] == ' ' || entry[n - 1] == '\t');)
        entry[--n] = '\0';
    char *eq = strchr(entry, '=');
    if (!eq || eq == entry)
        return error_at(err, g->path, 0, "graph comment entry '%s': expected NAME=FORMAT", entry);
    sam_error ferr;
    level_format f;
    if (level_format_parse(eq + 1, &f, &ferr))
        return error_at(err, g->path, 0, "graph comment entry '%s': %s", entry, ferr.msg);
    *eq = '\0';
    if (graph_tensor_find(g, entry)) {
        *eq = '=';
        return error_at(err, g->path, 0, "graph comment entry '%s': tensor %.*s named twice",
                        entry, (int)(eq - entry), entry);
    }
    graph_tensor *t = &g->tensors[g->ntensors];
    t->format = f;
    if (!(t->name = copy(entry, g->path, err)))
        return -1;
    g->ntensors++;
    return 0;
}

/* "X=ss01,B=ss01,C=ss10": one tensor per comma-separated entry, the result
 * first. An absent or empty comment gives no tensors; later stages decide
 * whether that is acceptable. */
static int read_comment(Agraph_t *ag, sam_graph *g, sam_error *err)
{
    const char *comment = agget(ag, "comment");
    if (!comment || !*comment)
        return 0;
    char *text = copy(comment, g->path, err);
    if (!text)
        return -1;
    int entries = 1;
    for (const char *p = text; *p; p++)
        entries += *p == ',';
    int rc = 0;
    if (!(g->tensors = calloc((size_t)entries, sizeof *g->tensors)))
        rc = error_at(err, g->path, 0, "out of memory");
    for (char *entry = text; !rc && entry;) {
        char *comma = strchr(entry, ',');
        if (comma)
            *comma = '\0';
        rc = add_tensor(entry, g, err);
        entry = comma ? comma + 1 : NULL;
    }
    free(text);
    return rc;
}

/* ---- the whole graph -------------------------------------------------- */

static int convert(Agraph_t *ag, sam_graph *g, sam_error *err)
{
    objs nodes = {0}, edges = {0};
    int rc = collect_nodes(ag, &nodes, g->path, err);
    if (!rc)
        rc = collect_edges(ag, &edges, g->path, err);
    if (!rc)
        rc = read_nodes(ag, &nodes, g, err);
    if (!rc)
        rc = read_edges(ag, &nodes, &edges, g, err);
    if (!rc)
        rc = read_graph_attrs(ag, g, err);
    if (!rc)
        rc = read_comment(ag, g, err);
    free(nodes.obj);
    free(edges.obj);
    return rc;
}

int graph_read_dot(const char *path, sam_graph *g, sam_error *err)
{
    memset(g, 0, sizeof *g);
    Agraph_t *ag = parse_file(path, err);
    if (!ag)
        return -1;
    int rc = -1;
    if ((g->path = copy(path, path, err)))
        rc = convert(ag, g, err);
    agclose(ag);
    if (rc)
        graph_free(g);
    return rc;
}
