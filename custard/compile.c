#include "compile.h"
#include "itersplit.h"
#include "tiling.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../graph/graph_build.h"
#include "plan.h"

#define BIT(k) ((index_set)1 << (k))
#define LABEL 80
#define LANES_MAX 32    /* blocks/lanes.h: a block has a port per lane */

/* A stream is drawn once all its readers are known: one reader gets an
 * edge, several get a broadcast node, as Custard draws fan-out. An edge's
 * label names the producer's port when the producer has named ones
 * (ref_out-B, crd_outer-i, crd_out-j), else the reader's; where both
 * have (a joiner feeding a joiner, join_tree) the comment names the
 * reader's, so that each joiner finds its own port. */
typedef struct stream {
    int producer;
    const char *kind;
    char label[LABEL], comment[LABEL];  /* the producer's port name, or "" */
    int lane;           /* the lane it runs in (its broadcast too), or -1 */
    int port_lane;      /* a parallelizer's output for this lane, or -1 */
} stream;

typedef struct reader {
    int stream, node;
    char label[LABEL], comment[LABEL];  /* the reader's port name, or "" */
    int port_lane;      /* a serializer's input from this lane, or -1 */
} reader;

enum { SRC_SCAN, SRC_INTERSECT, SRC_UNION };

/* What the loops lowered so far leave for the ones inside: a lane of a
 * parallelized loop starts from a copy. */
typedef struct loop_state {
    int ref[EXPR_MAX_INDICES];         /* per tensor: its current reference stream, -1 root */
    int crd[EXPR_MAX_INDICES];         /* per index: its coordinate stream */
    int source[EXPR_MAX_INDICES];      /* per index: SRC_* */
    int dense[EXPR_MAX_INDICES];       /* per index: only dense levels scanned */
    int repsig[EXPR_MAX_INDICES];      /* per index: repeat signal stream, -1 none yet */
} loop_state;

typedef struct lowering {
    const plan *p;
    sam_graph *g;
    sam_error *err;
    int failed;                        /* out of memory somewhere */
    stream *streams;
    int nstreams;
    size_t stream_cap;
    reader *readers;
    int nreaders;
    size_t reader_cap;
    loop_state at;                     /* what the loops lowered so far leave */
    index_set located;                 /* tensors to locate (a bit per tensor) */
    int par_index, par_lanes;          /* parallelize(i,N): i, or -1 */
    int lane;                          /* the lane being lowered, -1 outside lanes */
} lowering;

static const char *index_name(const lowering *l, int v)
{
    return l->p->e.indices[v];
}

static const char *tensor_name(const lowering *l, int t)
{
    return l->p->e.tensors[t].name;
}

static void set_lane(lowering *l, int n, int lane)
{
    char text[16];
    snprintf(text, sizeof text, "%d", lane);
    l->failed |= lane >= 0 && graph_node_set(l->g, n, "lane", text, l->err) != 0;
}

/* A node with key, value pairs ending in NULL; in a lane, it says so. */
static int node(lowering *l, const char *type, ...)
{
    int n = graph_add_node(l->g, type, l->err);
    if (n < 0) {
        l->failed = 1;
        return 0;
    }
    set_lane(l, n, l->lane);
    va_list ap;
    va_start(ap, type);
    for (const char *k; (k = va_arg(ap, const char *));) {
        const char *v = va_arg(ap, const char *);
        l->failed |= graph_node_set(l->g, n, k, v, l->err) != 0;
    }
    va_end(ap);
    return n;
}

static void name_port(char *label, char *comment, const char *kind, const char *port)
{
    snprintf(label, LABEL, "%s_%s", kind, port);
    snprintf(comment, LABEL, "%s", port);
}

/* A stream from producer; port names the producer's port ("out-B"), or NULL. */
static int stream_new(lowering *l, int producer, const char *kind, const char *port)
{
    stream *s = grow_array(l->streams, (size_t)l->nstreams, &l->stream_cap, sizeof *s, 16);
    if (!s) {
        l->failed = 1;
        return 0;
    }
    l->streams = s;
    s = &s[l->nstreams];
    memset(s, 0, sizeof *s);
    s->producer = producer;
    s->kind = kind;
    s->lane = l->lane;
    s->port_lane = -1;
    if (port)
        name_port(s->label, s->comment, kind, port);
    return l->nstreams++;
}

/* Node reads stream s; port names the reader's port ("in-B"), or NULL. */
static void read_stream(lowering *l, int s, int node_index, const char *port)
{
    reader *r = grow_array(l->readers, (size_t)l->nreaders, &l->reader_cap, sizeof *r, 16);
    if (!r) {
        l->failed = 1;
        return;
    }
    l->readers = r;
    r = &r[l->nreaders++];
    memset(r, 0, sizeof *r);
    r->stream = s;
    r->node = node_index;
    r->port_lane = -1;
    if (port)
        name_port(r->label, r->comment, l->streams[s].kind, port);
}

/* Unnamed crd and ref edges carry an empty comment, val and repsig none;
 * an edge to or from a lane's port names the lane. */
static void edge(lowering *l, int src, int dst, const char *kind, const char *label,
                 const char *comment, int lane)
{
    int plain = !label[0];
    const char *c = !plain ? comment : strcmp(kind, "crd") && strcmp(kind, "ref") ? NULL : "";
    int e = graph_add_edge(l->g, src, dst, kind, plain ? kind : label, c, l->err);
    char text[16];
    snprintf(text, sizeof text, "%d", lane);
    l->failed |= e < 0 || (lane >= 0 && graph_edge_set(l->g, e, "lane", text, l->err));
}

static void draw_stream(lowering *l, int s)
{
    const stream *st = &l->streams[s];
    int n = 0, last = -1;
    for (int k = 0; k < l->nreaders; k++)
        if (l->readers[k].stream == s)
            n++, last = k;
    if (n == 1) {
        const reader *r = &l->readers[last];
        int own = st->label[0] != '\0';
        edge(l, st->producer, r->node, st->kind, own ? st->label : r->label,
             own && !r->comment[0] ? st->comment : r->comment,
             st->port_lane >= 0 ? st->port_lane : r->port_lane);
        return;
    }
    if (n == 0)
        return;
    int b = node(l, "broadcast", NULL);
    set_lane(l, b, st->port_lane >= 0 ? st->port_lane : st->lane);
    edge(l, st->producer, b, st->kind, st->label, st->comment, st->port_lane);
    for (int k = 0; k < l->nreaders; k++)
        if (l->readers[k].stream == s)
            edge(l, b, l->readers[k].node, st->kind, l->readers[k].label,
                 l->readers[k].comment, l->readers[k].port_lane);
}

/* ---- index loops ------------------------------------------------------ */

enum { MERGE_FAILED = -2, MERGE_NONE = -1, MERGE_ONE = 0, MERGE_INTERSECT = 1, MERGE_UNION = 2 };

typedef struct merge {
    int tensor[EXPR_MAX_INDICES];
    int n;
} merge;

/* The tensors that have index v under n, and how they meet: products
 * intersect, sums unite; a joiner cannot feed another, so mixing fails. */
static int gather(lowering *l, const expr_node *n, int v, merge *m)
{
    if (n->kind == EXPR_ACCESS) {
        if (!(plan_vars(n) & BIT(v)))
            return MERGE_NONE;
        m->tensor[m->n++] = n->tensor;
        return MERGE_ONE;
    }
    int a = gather(l, n->left, v, m);
    int b = a == MERGE_FAILED ? MERGE_FAILED : gather(l, n->right, v, m);
    if (a == MERGE_FAILED || b == MERGE_FAILED)
        return MERGE_FAILED;
    if (a == MERGE_NONE || b == MERGE_NONE)
        return a == MERGE_NONE ? b : a;
    int op = n->kind == EXPR_MUL ? MERGE_INTERSECT : MERGE_UNION;
    if ((a != MERGE_ONE && a != op) || (b != MERGE_ONE && b != op)) {
        error_set(l->err, "expression: column %d: index %s meets both a sum and a product "
                          "here; SAM's joiners cannot nest", n->column, index_name(l, v));
        return MERGE_FAILED;
    }
    return op;
}

/* The storage level of tensor t that holds index v. */
static int level_of(const lowering *l, int t, int v)
{
    const expr_node *a = l->p->access[t];
    const level_format *f = &l->p->format[t];
    for (int lv = 0; lv < f->nlevels; lv++)
        if (a->index[f->mode[lv]] == v)
            return lv;
    return -1;
}

static char level_kind(const lowering *l, int t, int v)
{
    return l->p->format[t].kind[level_of(l, t, v)];
}

static const char *format_name(char kind)
{
    return kind == 'd'   ? "dense"
           : kind == 'b' ? "bitvector"
           : kind == 'l' ? "linkedlist"
                         : "compressed";
}

/* Tensor t's level of v scanned: *crd its coordinates, or for a
 * bitvector level its words (a bv stream), and *ref its references. */
static void scan(lowering *l, int t, int v, int *crd, int *ref)
{
    const level_format *f = &l->p->format[t];
    int lv = level_of(l, t, v);
    char mode[16];
    snprintf(mode, sizeof mode, "%d", f->mode[lv]);
    int n = node(l, "fiberlookup", "index", index_name(l, v), "tensor", tensor_name(l, t), "mode",
                 mode, "format", format_name(f->kind[lv]), "src", "true", "root",
                 l->at.ref[t] < 0 ? "true" : "false", NULL);
    if (l->at.ref[t] >= 0)
        read_stream(l, l->at.ref[t], n, NULL);
    *crd = stream_new(l, n, f->kind[lv] == 'b' ? "bv" : "crd", NULL);
    *ref = stream_new(l, n, "ref", NULL);
}

/* A bitvector level's words back to coordinates and references, for
 * what takes coordinates (bv to=crd). */
static void expand_words(lowering *l, int v, int *crd, int *ref)
{
    int n = node(l, "bv", "index", index_name(l, v), "to", "crd", NULL);
    read_stream(l, *crd, n, NULL);
    read_stream(l, *ref, n, NULL);
    *crd = stream_new(l, n, "crd", NULL);
    *ref = stream_new(l, n, "ref", NULL);
}

static index_set loops_before(const plan *p, int v)
{
    index_set s = 0;
    for (int k = 0; k < p->pos[v]; k++)
        s |= BIT(p->loop[k]);
    return s;
}

/* Terms of a sum are united fiber by fiber, so they must be iterated
 * under the same outer loops. */
static int check_union(lowering *l, const merge *m, int v)
{
    index_set outer = loops_before(l->p, v);
    for (int k = 1; k < m->n; k++)
        if ((l->p->scope[m->tensor[k]] & outer) != (l->p->scope[m->tensor[0]] & outer))
            return error_set(l->err, "index %s: %s and %s are added under different loops; put "
                                     "the indices summed in only one of them after %s",
                             index_name(l, v), tensor_name(l, m->tensor[0]),
                             tensor_name(l, m->tensor[k]), index_name(l, v));
    return 0;
}

/* The most tensors one intersect or union node joins (samsim's joiners
 * have eight input ports, a crd and a ref per tensor). */
#define JOIN_SIDES 4

/* The sides of a join: per tensor, its crd and ref streams. */
typedef struct sides {
    int tensor[EXPR_MAX_INDICES], crd[EXPR_MAX_INDICES], ref[EXPR_MAX_INDICES];
    int n;
} sides;

static void add_side(sides *s, int tensor, int crd, int ref)
{
    s->tensor[s->n] = tensor;
    s->crd[s->n] = crd;
    s->ref[s->n++] = ref;
}

/* A joiner of in's sides; of their words, a word a cycle, when every side
 * is a bitvector level. */
static int join_node(lowering *l, int op, int v, const sides *in, int *out_ref)
{
    int words = 1;
    for (int k = 0; k < in->n; k++)
        words &= !strcmp(l->streams[in->crd[k]].kind, "bv");
    int j = node(l, op == MERGE_INTERSECT ? "intersect" : "union", "index", index_name(l, v),
                 words ? "format" : NULL, "bitvector", NULL);
    char port[LABEL];
    for (int k = 0; k < in->n; k++) {
        const char *name = tensor_name(l, in->tensor[k]);
        snprintf(port, sizeof port, "in-%s", name);
        read_stream(l, in->crd[k], j, port);
        read_stream(l, in->ref[k], j, port);
        snprintf(port, sizeof port, "out-%s", name);
        out_ref[k] = stream_new(l, j, "ref", port);
    }
    return stream_new(l, j, "crd", NULL);
}

/* Joins the sides at index v; returns the crd stream, and out_ref[k] the
 * ref stream of side k. More sides than a node takes are joined as a
 * tree: the first JOIN_SIDES sides; then their coordinates, with the first
 * side's refs, joined with the rest; then a node that aligns the other
 * refs of the first join with the final coordinates, which are a subset of
 * the first join's for a product (refs are dropped) and a superset for a
 * sum (the other tensors lack the new coordinates: N). */
static int join_tree(lowering *l, int op, int v, const sides *in, int *out_ref)
{
    if (in->n <= JOIN_SIDES)
        return join_node(l, op, v, in, out_ref);
    sides first = {.n = 0}, rest = {.n = 0}, align = {.n = 0};
    for (int k = 0; k < JOIN_SIDES; k++)
        add_side(&first, in->tensor[k], in->crd[k], in->ref[k]);
    int first_ref[JOIN_SIDES], rest_ref[EXPR_MAX_INDICES], align_ref[JOIN_SIDES];
    int c1 = join_node(l, op, v, &first, first_ref);
    add_side(&rest, in->tensor[0], c1, first_ref[0]);
    for (int k = JOIN_SIDES; k < in->n; k++)
        add_side(&rest, in->tensor[k], in->crd[k], in->ref[k]);
    int c2 = join_tree(l, op, v, &rest, rest_ref);
    add_side(&align, in->tensor[0], c2, rest_ref[0]);
    for (int k = 1; k < JOIN_SIDES; k++)
        add_side(&align, in->tensor[k], c1, first_ref[k]);
    int crd = join_node(l, op, v, &align, align_ref);
    for (int k = 0; k < in->n; k++)
        out_ref[k] = k < JOIN_SIDES ? align_ref[k] : rest_ref[k - JOIN_SIDES + 1];
    return crd;
}

static void join(lowering *l, const merge *m, int op, int v, const int *crd, const int *ref)
{
    sides in = {.n = 0};
    int out_ref[EXPR_MAX_INDICES];
    for (int k = 0; k < m->n; k++)
        add_side(&in, m->tensor[k], crd[k], ref[k]);
    l->at.crd[v] = join_tree(l, op, v, &in, out_ref);
    for (int k = 0; k < m->n; k++)
        l->at.ref[m->tensor[k]] = out_ref[k];
}

static void repeat(lowering *l, int t, int v)
{
    if (l->at.repsig[v] < 0) {
        int g = node(l, "repsiggen", "index", index_name(l, v), NULL);
        read_stream(l, l->at.crd[v], g, NULL);
        l->at.repsig[v] = stream_new(l, g, "repsig", NULL);
    }
    int r = node(l, "repeat", "index", index_name(l, v), "tensor", tensor_name(l, t), "root",
                 l->at.ref[t] < 0 ? "true" : "false", NULL);
    if (l->at.ref[t] >= 0)
        read_stream(l, l->at.ref[t], r, NULL);
    read_stream(l, l->at.repsig[v], r, NULL);
    l->at.ref[t] = stream_new(l, r, "ref", NULL);
}

/* Tensor t located at index v in the coordinates of the stream crd, with
 * lead's references ref: the streams become the locate node's. */
static void locate_in(lowering *l, int t, int lead, int v, int *crd, int *ref)
{
    const level_format *f = &l->p->format[t];
    int lv = level_of(l, t, v);
    char mode[16], in[LABEL], out[LABEL];
    snprintf(mode, sizeof mode, "%d", f->mode[lv]);
    int n = node(l, "locate", "index", index_name(l, v), "tensor", tensor_name(l, t), "mode",
                 mode, "format", f->kind[lv] == 'd' ? "dense" : "compressed", "root",
                 l->at.ref[t] < 0 ? "true" : "false", NULL);
    snprintf(in, sizeof in, "in-%s", tensor_name(l, t));
    if (l->at.ref[t] >= 0)
        read_stream(l, l->at.ref[t], n, in);
    snprintf(in, sizeof in, "in-%s", tensor_name(l, lead));
    read_stream(l, *crd, n, NULL);
    read_stream(l, *ref, n, in);
    *crd = stream_new(l, n, "crd", NULL);
    snprintf(out, sizeof out, "out-%s", tensor_name(l, lead));
    *ref = stream_new(l, n, "ref", out);
    snprintf(out, sizeof out, "out-%s", tensor_name(l, t));
    l->at.ref[t] = stream_new(l, n, "ref", out);
}

/* A product at v of one tensor that leads and one that locate(T) names:
 * the leader scanned, the other located in its coordinates. 0 when the
 * tensors at v are not such a pair; -1 when they cannot be located. */
static int lower_located(lowering *l, const merge *m, int op, int v)
{
    int lead = -1, found = -1, nfound = 0;
    for (int k = 0; k < m->n; k++) {
        if (l->located & BIT(m->tensor[k]))
            found = m->tensor[k], nfound++;
        else
            lead = m->tensor[k];
    }
    if (op != MERGE_INTERSECT || !nfound || lead < 0)
        return 0;
    if (m->n != 2)
        return error_set(l->err, "locate(%s): at index %s it meets %d tensors; a locator "
                                 "joins two", tensor_name(l, found), index_name(l, v), m->n);
    if (level_kind(l, found, v) == 'b' || level_kind(l, found, v) == 'l')
        return error_set(l->err, "locate(%s): its level of %s is a %s; a locator finds "
                                 "coordinates in dense and compressed levels",
                         tensor_name(l, found), index_name(l, v),
                         level_kind_name(level_kind(l, found, v)));
    int crd, ref;
    scan(l, lead, v, &crd, &ref);
    if (level_kind(l, lead, v) == 'b')
        expand_words(l, v, &crd, &ref);
    locate_in(l, found, lead, v, &crd, &ref);
    l->at.crd[v] = crd;
    l->at.ref[lead] = ref;
    l->at.source[v] = SRC_INTERSECT;
    return 1;
}

/* The tensors at v scanned, and joined when there are several: bitvector
 * levels by their words when all are, else by coordinates, each
 * bitvector side's words expanded. */
static void scan_and_join(lowering *l, const merge *m, int op, int v)
{
    int crd[EXPR_MAX_INDICES], ref[EXPR_MAX_INDICES], words = 0;
    for (int k = 0; k < m->n; k++) {
        scan(l, m->tensor[k], v, &crd[k], &ref[k]);
        words += level_kind(l, m->tensor[k], v) == 'b';
    }
    for (int k = 0; k < m->n; k++)
        if (level_kind(l, m->tensor[k], v) == 'b' &&
            (m->n == 1 || words < m->n || m->n > JOIN_SIDES))
            expand_words(l, v, &crd[k], &ref[k]);
    if (m->n > 1) {
        join(l, m, op, v, crd, ref);
        l->at.source[v] = op == MERGE_INTERSECT ? SRC_INTERSECT : SRC_UNION;
    } else {
        l->at.crd[v] = crd[0];
        l->at.ref[m->tensor[0]] = ref[0];
        l->at.source[v] = SRC_SCAN;
    }
}

static int lower_index(lowering *l, int v)
{
    const plan *p = l->p;
    merge m = {.n = 0};
    int op = gather(l, p->e.rhs, v, &m);
    if (op == MERGE_FAILED || (op == MERGE_UNION && check_union(l, &m, v)))
        return -1;
    l->at.dense[v] = 1;
    for (int k = 0; k < m.n; k++)
        l->at.dense[v] &= level_kind(l, m.tensor[k], v) == 'd';
    int located = lower_located(l, &m, op, v);
    if (located < 0)
        return -1;
    if (!located)
        scan_and_join(l, &m, op, v);
    for (int t = 1; t < p->e.ntensors; t++)
        if ((p->scope[t] & BIT(v)) && !(plan_vars(p->access[t]) & BIT(v)))
            repeat(l, t, v);
    return 0;
}

/* ---- values ----------------------------------------------------------- */

static int innermost(const plan *p, index_set s)
{
    int best = -1;
    for (int v = 0; v < p->e.nindices; v++)
        if ((s & BIT(v)) && (best < 0 || p->pos[v] > p->pos[best]))
            best = v;
    return best;
}

/* Reduces the innermost loops summed at n; those left over are returned
 * for the sparse accumulator, which only the whole right side may use. */
static int reduce_at(lowering *l, const expr_node *n, int val, index_set *nest, int is_root,
                     index_set *left_over)
{
    index_set todo = 0;
    for (int k = 0; k < l->p->e.nindices; k++)
        if (l->p->sum_at[k] == n)
            todo |= BIT(k);
    int v;
    while (todo && (v = innermost(l->p, *nest)) >= 0 && (todo & BIT(v))) {
        int r = node(l, "reduce", NULL);
        read_stream(l, val, r, NULL);
        val = stream_new(l, r, "val", NULL);
        *nest &= ~BIT(v);
        todo &= ~BIT(v);
    }
    if (todo && !is_root) {
        v = innermost(l->p, todo);
        error_set(l->err, "expression: column %d: index %s is summed here but loops outside %s; "
                          "put it after %s in the loop order",
                  n->column, index_name(l, v), index_name(l, innermost(l->p, *nest)),
                  index_name(l, innermost(l->p, *nest)));
        return -1;
    }
    *left_over = todo;
    return val;
}

static int value(lowering *l, const expr_node *n, index_set scope, index_set *nest, int is_root,
                 index_set *left_over)
{
    int val;
    if (n->kind == EXPR_ACCESS) {
        int a = node(l, "arrayvals", "tensor", tensor_name(l, n->tensor), NULL);
        /* Only a scalar term of a sum has no loop; the sum refuses it. */
        if (l->at.ref[n->tensor] >= 0)
            read_stream(l, l->at.ref[n->tensor], a, NULL);
        val = stream_new(l, a, "val", NULL);
        *nest = scope;
    } else {
        index_set vars = plan_vars(n), na, nb, unused;
        int mul = n->kind == EXPR_MUL;
        int a = value(l, n->left, mul ? scope : scope & ~(vars & ~plan_vars(n->left)), &na, 0,
                      &unused);
        int b = a < 0 ? -1
                      : value(l, n->right, mul ? scope : scope & ~(vars & ~plan_vars(n->right)),
                              &nb, 0, &unused);
        if (a < 0 || b < 0)
            return -1;
        if (na != nb)
            return error_set(l->err, "expression: column %d: the operands of this %s have "
                                     "different index variables; SAM graphs do not broadcast "
                                     "a term of a sum",
                             n->column, mul ? "product" : "sum");
        int alu = mul ? node(l, "mul", NULL)
                      : node(l, "add", "sub", n->kind == EXPR_SUB ? "1" : "0", NULL);
        read_stream(l, a, alu, NULL);
        read_stream(l, b, alu, NULL);
        val = stream_new(l, alu, "val", NULL);
        *nest = na;
    }
    return reduce_at(l, n, val, nest, is_root, left_over);
}

/* ---- the result ------------------------------------------------------- */

typedef struct output {
    int nlevels;
    int index[TENSOR_MAX_ORDER];   /* per storage level */
    int crd[TENSOR_MAX_ORDER];     /* per storage level, the stream written */
    int val;
} output;

static void crdhold(lowering *l, int outer, int inner, int outer_crd, int inner_crd,
                    int *held_outer, int *held_inner)
{
    char po[LABEL], pi[LABEL];
    int h = node(l, "crdhold", "outer", index_name(l, outer), "inner", index_name(l, inner), NULL);
    read_stream(l, outer_crd, h, index_name(l, outer));
    read_stream(l, inner_crd, h, index_name(l, inner));
    snprintf(po, sizeof po, "outer-%s", index_name(l, outer));
    snprintf(pi, sizeof pi, "inner-%s", index_name(l, inner));
    *held_outer = stream_new(l, h, "crd", po);
    *held_inner = stream_new(l, h, "crd", pi);
}

/* The sparse accumulator of SAM's graphs: index k summed outside the
 * output's u (order 1, held by crdhold blocks), or outside both u and w
 * (order 2), or outside w alone (order 1 without hold). */
static int accumulate(lowering *l, int k, output *o)
{
    int above = 0;
    while (above < o->nlevels && l->p->pos[o->index[above]] < l->p->pos[k])
        above++;
    int below = o->nlevels - above;
    if (!((above == 0 && (below == 1 || below == 2)) || (above == 1 && below == 1)))
        return error_set(l->err, "index %s is summed outside %d output loop%s and inside %d: "
                                 "SAM's sparse accumulator takes 1 or 2 inside and at most 1 "
                                 "outside; reorder the loops",
                         index_name(l, k), below, below == 1 ? "" : "s", above);
    int u = o->index[0], w = o->index[o->nlevels - 1], sp;
    char port[LABEL];
    if (o->nlevels == 1) {
        sp = node(l, "spaccumulator", "order", "1", "in0", index_name(l, w), NULL);
        read_stream(l, l->at.crd[k], sp, index_name(l, k));
        read_stream(l, l->at.crd[w], sp, index_name(l, w));
    } else {
        int ho, hi, ko = -1, ki = -1, outer_crd = l->at.crd[u];
        if (above)
            crdhold(l, u, k, l->at.crd[u], l->at.crd[k], &ko, &ki), outer_crd = ko;
        crdhold(l, u, w, outer_crd, l->at.crd[w], &ho, &hi);
        sp = node(l, "spaccumulator", "order", above ? "1" : "2", "in0", index_name(l, w), "in1",
                  index_name(l, u), NULL);
        read_stream(l, above ? ki : l->at.crd[k], sp, above ? NULL : index_name(l, k));
        read_stream(l, ho, sp, NULL);
        read_stream(l, hi, sp, NULL);
    }
    read_stream(l, o->val, sp, NULL);
    for (int lv = 0; lv < o->nlevels; lv++) {
        snprintf(port, sizeof port, "out-%s", index_name(l, o->index[lv]));
        o->crd[lv] = stream_new(l, sp, "crd", port);
    }
    o->val = stream_new(l, sp, "val", NULL);
    return 0;
}

/* A crddrop or crdhold pairing the innermost level with the values, so
 * that a dense scan fills a compressed level with its nonzeros only, or a
 * sparse one fills a dense level (the corrected vec_*_compression graphs). */
static void convert_density(lowering *l, output *o)
{
    int lv = o->nlevels - 1, v = o->index[lv];
    int to_sparse = l->p->format[0].kind[lv] != 'd';
    if (to_sparse != l->at.dense[v])
        return;
    char port[LABEL];
    int n = node(l, to_sparse ? "crddrop" : "crdhold", "outer", index_name(l, v), "inner", "vals",
                 "vals", "true", NULL);
    snprintf(port, sizeof port, "%s%s", to_sparse ? "in-" : "", index_name(l, v));
    read_stream(l, o->crd[lv], n, port);
    read_stream(l, o->val, n, to_sparse ? "in-vals" : "vals");
    snprintf(port, sizeof port, "outer-%s", index_name(l, v));
    o->crd[lv] = stream_new(l, n, "crd", port);
    o->val = stream_new(l, n, "val", "inner-vals");
}

/* A crddrop between levels lv and lv + 1: outer coordinates whose inner
 * fiber is empty go. */
static void drop_pair(lowering *l, output *o, int lv)
{
    char port[LABEL];
    int v = o->index[lv], w = o->index[lv + 1];
    int d = node(l, "crddrop", "outer", index_name(l, v), "inner", index_name(l, w), NULL);
    read_stream(l, o->crd[lv], d, index_name(l, v));
    read_stream(l, o->crd[lv + 1], d, index_name(l, w));
    snprintf(port, sizeof port, "outer-%s", index_name(l, v));
    o->crd[lv] = stream_new(l, d, "crd", port);
    snprintf(port, sizeof port, "inner-%s", index_name(l, w));
    o->crd[lv + 1] = stream_new(l, d, "crd", port);
}

/* Where both a level and the one inside it come from joiners, the inner
 * intersection can leave an outer coordinate without children: crddrop
 * removes it (innermost pair first, so drops propagate outwards). */
static void drop_empty(lowering *l, output *o)
{
    for (int lv = o->nlevels - 2; lv >= 0; lv--)
        if (l->at.source[o->index[lv + 1]] == SRC_INTERSECT &&
            l->at.source[o->index[lv]] != SRC_SCAN &&
            l->p->pos[o->index[lv]] < l->p->pos[o->index[lv + 1]])
            drop_pair(l, o, lv);
}

/* "B0_dim": the first operand mode indexed by v names its size. */
static void dim_name(const lowering *l, int v, char *buf, size_t size)
{
    for (int t = 1; t < l->p->e.ntensors; t++) {
        const expr_node *a = l->p->access[t];
        for (int m = 0; m < a->order; m++)
            if (a->index[m] == v) {
                snprintf(buf, size, "%s%d_dim", tensor_name(l, t), m);
                return;
            }
    }
    snprintf(buf, size, "%s_dim", index_name(l, v));
}

static void write_levels(lowering *l, const output *o)
{
    const level_format *f = &l->p->format[0];
    const char *x = tensor_name(l, 0);
    /* crdsize: the product of the sizes down to this level; segsize: the
     * product above it, plus one. */
    char crdsize[300] = "", dims[300] = "1", segsize[310], mode[16], dim[64];
    for (int lv = 0; lv < o->nlevels; lv++) {
        dim_name(l, o->index[lv], dim, sizeof dim);
        snprintf(segsize, sizeof segsize, lv ? "%s+1" : "2", crdsize);
        snprintf(crdsize + strlen(crdsize), sizeof crdsize - strlen(crdsize), "%s%s",
                 lv ? "*" : "", dim);
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "*%s", dim);
        snprintf(mode, sizeof mode, "%d", f->mode[lv]);
        const char *v = index_name(l, o->index[lv]);
        int w, crd = o->crd[lv];
        if (lv + 1 < o->nlevels && f->kind[lv + 1] == 'l')
            continue;
        if (f->kind[lv] == 'l') {
            /* The dense parent above has no writer: its positions are the
             * parent coordinates this one appends under. */
            const char *parent = index_name(l, o->index[lv - 1]);
            char parent_mode[16];
            snprintf(parent_mode, sizeof parent_mode, "%d", f->mode[lv - 1]);
            w = node(l, "fiberwrite", "index", v, "parent", parent, "parent_mode", parent_mode,
                     "tensor", x, "mode", mode, "format", "linkedlist", "sink", "true", NULL);
            read_stream(l, o->crd[lv - 1], w, parent);
            read_stream(l, crd, w, v);
            continue;
        }
        if (f->kind[lv] == 'b') {
            /* The converter's fibers are as many words as v's dimension
             * needs, which it finds from v's scanners. */
            int c = node(l, "bv", "index", v, NULL);
            read_stream(l, crd, c, NULL);
            crd = stream_new(l, c, "bv", NULL);
            w = node(l, "fiberwrite", "index", v, "tensor", x, "mode", mode, "format",
                     "bitvector", "sink", "true", NULL);
        } else if (f->kind[lv] == 'd') {
            w = node(l, "fiberwrite", "index", v, "tensor", x, "mode", mode, "format", "dense",
                     "sink", "true", NULL);
        } else {
            w = node(l, "fiberwrite", "index", v, "tensor", x, "mode", mode, "format",
                     "compressed", "segsize", segsize, "crdsize", crdsize, "sink", "true", NULL);
        }
        read_stream(l, crd, w, NULL);
    }
    int wv = node(l, "fiberwrite", "mode", "vals", "tensor", x, "size",
                  o->nlevels ? dims : "1", "sink", "true", NULL);
    read_stream(l, o->val, wv, NULL);
}

/* The output's levels and the values computed at the innermost loop;
 * *acc the index the sparse accumulator must sum, or -1. */
static int result_values(lowering *l, output *o, int *acc)
{
    const plan *p = l->p;
    o->nlevels = p->format[0].nlevels;
    for (int lv = 0; lv < o->nlevels; lv++) {
        o->index[lv] = p->e.lhs->index[p->format[0].mode[lv]];
        o->crd[lv] = l->at.crd[o->index[lv]];
    }
    index_set nest, left_over = 0;
    o->val = value(l, p->e.rhs, plan_vars(p->e.rhs), &nest, 1, &left_over);
    if (o->val < 0)
        return -1;
    if (left_over & (left_over - 1))
        return error_set(l->err, "indices %s and %s are both summed outside output loops; SAM's "
                                 "sparse accumulator handles one",
                         index_name(l, innermost(p, left_over)),
                         index_name(l, innermost(p, left_over & ~BIT(innermost(p, left_over)))));
    *acc = left_over ? innermost(p, left_over) : -1;
    return 0;
}

/* Levels fed straight from the loops get their density converted and
 * their empty fibers dropped; then every level is written. */
static void finish_result(lowering *l, output *o, int accumulated)
{
    if (!accumulated && o->nlevels) {
        convert_density(l, o);
        drop_empty(l, o);
    }
    write_levels(l, o);
}

static int lower_result(lowering *l)
{
    output o;
    int acc;
    if (result_values(l, &o, &acc) || (acc >= 0 && accumulate(l, acc, &o)))
        return -1;
    finish_result(l, &o, acc >= 0);
    return 0;
}

/* ---- parallel lanes --------------------------------------------------- */

/* parallelize(v,N) (SAM paper section 4.4): after v's loop, parallelize
 * nodes deal v's coordinates and the references beside them out to N
 * lanes, element e of each fiber to lane e mod N; each lane lowers the
 * loops inside v and the values on its own copy of the loop state, its
 * nodes marked lane=L; then the lanes' output streams are joined back:
 * a serialize node per output level inside v rebuilds the serial stream
 * (the innermost's with the values), or, where v is summed (Gamma's
 * form), a vectorreducer with lanes=N sums the lanes' vectors. What
 * follows (density conversion, writers) is serial. */

typedef struct lanes {
    int v, pos, n;
    int crd[LANES_MAX];                        /* per lane, v's coordinates */
    int ref[LANES_MAX][EXPR_MAX_INDICES];      /* per lane and tensor */
    output out[LANES_MAX];
    int acc;                                   /* the accumulated index, or -1 */
} lanes;

/* Every tensor iterated under v has a reference at v's level to deal
 * out; a term of a sum that is not cannot be split with the others. */
static int check_parallel(lowering *l, int v)
{
    for (int t = 1; t < l->p->e.ntensors; t++)
        if (!(l->p->scope[t] & BIT(v)) || l->at.ref[t] < 0)
            return error_set(l->err, "parallelize(%s): %s is not iterated under %s, so its "
                                     "streams cannot be dealt out with %s's",
                             index_name(l, v), tensor_name(l, t), index_name(l, v),
                             index_name(l, v));
    return 0;
}

/* A parallelize node dealing stream s out: out[lane] its lanes' streams. */
static void deal(lowering *l, const lanes *ln, int s, const char *tensor, int *out,
                 size_t stride)
{
    char count[16];
    snprintf(count, sizeof count, "%d", ln->n);
    int p = node(l, "parallelize", "index", index_name(l, ln->v), "lanes", count,
                 tensor ? "tensor" : NULL, tensor, NULL);
    read_stream(l, s, p, NULL);
    for (int lane = 0; lane < ln->n; lane++) {
        int *o = (int *)((char *)out + (size_t)lane * stride);
        *o = stream_new(l, p, l->streams[s].kind, NULL);
        l->streams[*o].port_lane = lane;
    }
}

/* v's coordinates and every tensor's references, each dealt out by its
 * own parallelizer by the same rule. */
static void parallelizer(lowering *l, lanes *ln)
{
    deal(l, ln, l->at.crd[ln->v], NULL, ln->crd, sizeof ln->crd[0]);
    for (int t = 1; t < l->p->e.ntensors; t++)
        deal(l, ln, l->at.ref[t], tensor_name(l, t), &ln->ref[0][t], sizeof ln->ref[0]);
}

/* What the lanes can compute apart: a summed v must be Gamma's (summed
 * by the accumulator, one output level inside it); otherwise the
 * accumulator, if any, must sum a loop inside v, and then every output
 * level it handles lies inside v too. */
static int check_lane_result(lowering *l, const lanes *ln, const output *o)
{
    const plan *p = l->p;
    int inside = 0;
    for (int lv = 0; lv < o->nlevels; lv++)
        inside += p->pos[o->index[lv]] > ln->pos;
    const char *v = index_name(l, ln->v);
    if (ln->acc == ln->v && inside != 1)
        return error_set(l->err, "parallelize(%s): %s is summed over %d output levels; the "
                                 "lanes' vectors merge over one",
                         v, v, inside);
    if (ln->acc < 0 && !(plan_vars(p->e.lhs) & BIT(ln->v)))
        return error_set(l->err, "parallelize(%s): %s is reduced inside each lane; "
                                 "parallelize a loop outside it",
                         v, v);
    if (ln->acc >= 0 && ln->acc != ln->v && p->pos[ln->acc] < ln->pos)
        return error_set(l->err, "parallelize(%s): the accumulator sums %s, a loop outside the "
                                 "lanes; parallelize %s or a loop outside it",
                         v, index_name(l, ln->acc), index_name(l, ln->acc));
    return 0;
}

/* Lane `lane` from the state after v's loop: the loops inside v, the
 * values, and the accumulator when it sums inside v. */
static int lower_lane(lowering *l, lanes *ln, const loop_state *base, int lane)
{
    const plan *p = l->p;
    l->at = *base;
    l->at.crd[ln->v] = ln->crd[lane];
    l->at.repsig[ln->v] = -1;
    for (int t = 1; t < p->e.ntensors; t++)
        l->at.ref[t] = ln->ref[lane][t];
    l->lane = lane;
    for (int k = ln->pos + 1; k < p->nloop; k++)
        if (lower_index(l, p->loop[k]))
            return -1;
    output *o = &ln->out[lane];
    if (result_values(l, o, &ln->acc) || check_lane_result(l, ln, o))
        return -1;
    int rc = ln->acc >= 0 && ln->acc != ln->v ? accumulate(l, ln->acc, o) : 0;
    l->lane = -1;
    return rc;
}

/* The stream's fiber levels below v's: output levels in (v, w]. */
static int depth_below(const lowering *l, const lanes *ln, const output *o, int upto)
{
    int d = 0;
    for (int lv = 0; lv < o->nlevels; lv++)
        d += l->p->pos[o->index[lv]] > ln->pos && l->p->pos[o->index[lv]] <= upto;
    return d;
}

static void read_lane(lowering *l, int s, int node_index, int lane)
{
    read_stream(l, s, node_index, NULL);
    l->readers[l->nreaders - 1].port_lane = lane;
}

/* A serialize node joining level lv's coordinates of every lane, and for
 * the innermost level the values with them (an accumulator's values have
 * no stop tokens of their own to be serialized by); *val the values. */
static int serializer(lowering *l, const lanes *ln, int lv, int depth, int *val)
{
    char count[16], d[16];
    snprintf(count, sizeof count, "%d", ln->n);
    snprintf(d, sizeof d, "%d", depth);
    int with_values = lv == ln->out[0].nlevels - 1;
    const char *stops = ln->acc >= 0 ? "0" : "1";
    int s = node(l, "serialize", "index", index_name(l, ln->v), "lanes", count, "depth", d,
                 with_values ? "value_stops" : NULL, stops, NULL);
    for (int lane = 0; lane < ln->n; lane++) {
        read_lane(l, ln->out[lane].crd[lv], s, lane);
        if (with_values)
            read_lane(l, ln->out[lane].val, s, lane);
    }
    int crd = stream_new(l, s, "crd", NULL);
    if (with_values)
        *val = stream_new(l, s, "val", NULL);
    return crd;
}

/* Gamma's merge: a vectorreducer over the lanes' (coordinate, value)
 * pairs of the one output level inside v. */
static void merge_lanes(lowering *l, const lanes *ln, output *o)
{
    char count[16];
    int last = o->nlevels - 1;
    snprintf(count, sizeof count, "%d", ln->n);
    int r = node(l, "vectorreducer", "index", index_name(l, ln->v), "lanes", count, NULL);
    for (int lane = 0; lane < ln->n; lane++) {
        read_lane(l, ln->out[lane].crd[last], r, lane);
        read_lane(l, ln->out[lane].val, r, lane);
    }
    o->crd[last] = stream_new(l, r, "crd", NULL);
    o->val = stream_new(l, r, "val", NULL);
}

static void join_lanes(lowering *l, const lanes *ln, const loop_state *base, output *o)
{
    const plan *p = l->p;
    *o = ln->out[0];
    if (ln->acc == ln->v) {
        for (int lv = 0; lv + 1 < o->nlevels; lv++)
            o->crd[lv] = base->crd[o->index[lv]];
        merge_lanes(l, ln, o);
        if (o->nlevels >= 2)
            drop_pair(l, o, o->nlevels - 2);
        return;
    }
    for (int lv = 0; lv < o->nlevels; lv++) {
        int pos = p->pos[o->index[lv]];
        o->crd[lv] = pos < ln->pos ? base->crd[o->index[lv]]
                                   : serializer(l, ln, lv, depth_below(l, ln, o, pos), &o->val);
    }
}

/* The loops from position pos on, v = loop[pos] having been lowered. */
static int lower_parallel(lowering *l, int pos)
{
    lanes *ln = calloc(1, sizeof *ln);
    if (!ln)
        return error_set(l->err, "out of memory compiling");
    ln->v = l->p->loop[pos];
    ln->pos = pos;
    ln->n = l->par_lanes;
    int rc = check_parallel(l, ln->v);
    loop_state base = l->at;
    if (!rc)
        parallelizer(l, ln);
    for (int lane = 0; lane < ln->n && !rc; lane++)
        rc = lower_lane(l, ln, &base, lane);
    if (!rc) {
        output o;
        join_lanes(l, ln, &base, &o);
        finish_result(l, &o, ln->acc >= 0 && ln->acc != ln->v);
    }
    free(ln);
    return rc ? -1 : 0;
}

/* ---- the graph -------------------------------------------------------- */

/* expr, formats and schedule as Custard arguments, so that the graph
 * says how to compile it again and `run --check` knows what it computes. */
static void record_arguments(lowering *l, const char *expression)
{
    const plan *p = l->p;
    char formats[1024] = "", schedule[512] = "reorder(", f[64];
    for (int t = 0; t < p->e.ntensors; t++) {
        level_format_str(&p->format[t], f, sizeof f);
        int n = p->format[t].nlevels;
        size_t used = strlen(formats);
        snprintf(formats + used, sizeof formats - used, "%s%s:%.*s", t ? " " : "",
                 tensor_name(l, t), n ? n : 4, n ? f : "none");
        for (int lv = 0; lv < n; lv++) {
            used = strlen(formats);
            snprintf(formats + used, sizeof formats - used, "%s%d", lv ? "," : ":",
                     p->format[t].mode[lv]);
        }
    }
    for (int k = 0; k < p->nloop; k++) {
        size_t used = strlen(schedule);
        snprintf(schedule + used, sizeof schedule - used, "%s%s", k ? "," : "",
                 index_name(l, p->loop[k]));
    }
    strncat(schedule, ")", sizeof schedule - strlen(schedule) - 1);
    l->failed |= graph_set_attr(l->g, "expr", expression, l->err) ||
                 graph_set_attr(l->g, "formats", formats, l->err) ||
                 graph_set_attr(l->g, "schedule", schedule, l->err);
    for (int t = 0; t < p->e.ntensors; t++)
        l->failed |= graph_add_tensor(l->g, tensor_name(l, t), &p->format[t], l->err) != 0;
}

static int lower(lowering *l, const char *expression)
{
    for (int k = 0; k < EXPR_MAX_INDICES; k++)
        l->at.ref[k] = l->at.repsig[k] = -1;
    record_arguments(l, expression);
    int parallel = 0;
    for (int k = 0; k < l->p->nloop && !parallel; k++) {
        if (lower_index(l, l->p->loop[k]))
            return -1;
        if ((parallel = l->p->loop[k] == l->par_index) && lower_parallel(l, k))
            return -1;
    }
    if (!parallel && lower_result(l))
        return -1;
    for (int s = 0; s < l->nstreams && !l->failed; s++)
        draw_stream(l, s);
    return l->failed ? error_set(l->err, "out of memory compiling") : 0;
}

/* The splits, checked against the expression and recorded as commands. */
static int record_tiling(const plan *p, const char *text, sam_graph *g, sam_error *err)
{
    tiling t;
    char canonical[1024];
    if (!text)
        return 0;
    if (tiling_parse(text, &p->e, &t, err))
        return -1;
    tiling_format(&t, &p->e, canonical, sizeof canonical);
    return graph_set_attr(g, "tiling", canonical, err);
}

/* The operands locate(...) names, as a set of tensors, recorded as the
 * graph attribute locate. */
static int record_located(const plan *p, const char *text, index_set *set, sam_graph *g,
                          sam_error *err)
{
    char names[512] = "";
    *set = 0;
    for (const char *q = text ? text : ""; *(q += strspn(q, ", \t"));) {
        size_t n = strcspn(q, ", \t");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)n, q);
        int t = expr_find_tensor(&p->e, name);
        if (t <= 0 || n >= sizeof name)
            return error_set(err, "locate(%.*s): no operand %.*s in the expression", (int)n, q,
                             (int)n, q);
        *set |= BIT(t);
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", used ? " " : "", name);
        q += n;
    }
    return *set ? graph_set_attr(g, "locate", names, err) : 0;
}

/* parallelize(i,N): the index and the lanes, recorded as the graph
 * attribute parallelize. */
static int record_parallel(lowering *l, const char *text)
{
    l->par_index = -1;
    if (!text)
        return 0;
    char name[64], extra;
    int lanes;
    if (sscanf(text, " %63[^, ] , %d %c", name, &lanes, &extra) != 2)
        return error_set(l->err, "parallelize(%s): expected parallelize(INDEX,LANES)", text);
    l->par_index = expr_find_index(&l->p->e, name);
    if (l->par_index < 0)
        return error_set(l->err, "parallelize(%s): no index %s in the expression", text, name);
    if (lanes < 1 || lanes > LANES_MAX)
        return error_set(l->err, "parallelize(%s): lanes must be 1 to %d", text, LANES_MAX);
    l->par_lanes = lanes;
    char canonical[96];
    snprintf(canonical, sizeof canonical, "%s,%d", name, lanes);
    return graph_set_attr(l->g, "parallelize", canonical, l->err);
}

/* The splits the graph iterates, recorded as the attribute itersplit. */
static int record_itersplit(const itersplit_args *sa, sam_graph *g, sam_error *err)
{
    return sa->active ? graph_set_attr(g, "itersplit", sa->graph, err) : 0;
}

int custard_compile(const compile_args *a, sam_graph *g, sam_error *err)
{
    memset(g, 0, sizeof *g);
    itersplit_args sa;
    if (itersplit_prepare(a->expression, a->formats, a->nformats, a->schedule, a->tiling, &sa,
                          err))
        return -1;
    plan p;
    if (plan_make(sa.active ? sa.expression : a->expression, sa.active ? sa.formats : a->formats,
                  sa.active ? sa.nformats : a->nformats, a->schedule, &p, err))
        return -1;
    lowering l = {.p = &p, .g = g, .err = err, .lane = -1};
    int rc = record_located(&p, a->locate, &l.located, g, err) ||
                     record_parallel(&l, a->parallelize) || lower(&l, a->expression) ||
                     record_tiling(&p, sa.active ? NULL : a->tiling, g, err) ||
                     record_itersplit(&sa, g, err)
                 ? -1
                 : 0;
    free(l.streams);
    free(l.readers);
    plan_free(&p);
    if (rc)
        graph_free(g);
    return rc;
}
