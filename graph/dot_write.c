/* DOT output in the dialect of Custard; see dot_write.h. The text is
 * written with stdio; every helper carries on after a failure and the
 * outcome is checked once per node or edge and at the end, which keeps the
 * writers free of error plumbing. */
#include "dot_write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/atomic_file.h"

/* ---- how each node type looks ----------------------------------------- */

/* Label and colour per node type as Custard draws them, read off the
 * graphs of ../shared/sam-graphs. In a label, {key} stands for the node's
 * attribute key and {in*} for the attributes in0, in1, ... as "0=i 1=j ".
 * "\\n" is DOT's own line break, kept as two characters by cgraph, while
 * "\n" is a raw newline, which is what Custard writes for these types. */
typedef struct node_look {
    const char *type;
    const char *when_key, *when_value; /* a variant: only with this attribute
                                          (of this value, or any when NULL) */
    const char *label, *color;         /* NULL: none */
    const char *shape, *style;
} node_look;

#define BOX "box", "filled"

static const node_look looks[] = {
    {"fiberlookup", NULL, NULL, "FiberLookup {index}: {tensor}{mode}\\n{format}", "green4", BOX},
    {"fiberwrite", "mode", "vals", "FiberWrite Vals: {tensor}", "green3", BOX},
    {"fiberwrite", NULL, NULL, "FiberWrite {index}: {tensor}{mode}\\n{format}", "green3", BOX},
    {"arrayvals", NULL, NULL, "Array Vals: {tensor}", "green2", BOX},
    {"repsiggen", NULL, NULL, "RepeatSignalGenerator {index}", "cyan3", BOX},
    {"repeat", NULL, NULL, "Repeat {index}: {tensor}", "cyan2", BOX},
    {"intersect", "format", "bitvector", "intersect {index}\\nbitvector", "purple", BOX},
    {"intersect", NULL, NULL, "intersect {index}", "purple", BOX},
    {"union", "format", "bitvector", "union {index}\\nbitvector", "purple", BOX},
    {"union", NULL, NULL, "union {index}", "purple", BOX},
    {"locate", NULL, NULL, "Locate {index}: {tensor}{mode}\\n{format}", "purple", BOX},
    {"bv", "to", "crd", "BV to Crd", "green4", BOX},
    {"bv", NULL, NULL, "BV", "green4", BOX},
    {"mul", NULL, NULL, "Mul", "brown", BOX},
    {"add", "sub", "1", "Add\nsubtract", "brown", BOX},
    {"add", NULL, NULL, "Add", "brown", BOX},
    {"reduce", NULL, NULL, "Reduce", "brown", BOX},
    {"vectorreducer", "lanes", NULL, "VectorReducer {index}\\n{lanes} lanes", "brown", BOX},
    {"vectorreducer", NULL, NULL, "VectorReducer {accum_index}", "brown", BOX},
    {"parallelize", "tensor", NULL, "Parallelize {index}: {tensor}\\n{lanes} lanes", "gold", BOX},
    {"parallelize", NULL, NULL, "Parallelize {index}\\n{lanes} lanes", "gold", BOX},
    {"serialize", NULL, NULL, "Serialize {index}\\n{lanes} lanes", "gold", BOX},
    {"spaccumulator", NULL, NULL, "SparseAccumulator {order} \n{in*}", "brown", BOX},
    {"crddrop", NULL, NULL, "CrdDrop {outer},{inner}", "orange", BOX},
    {"crdhold", NULL, NULL, "CrdHold {outer},{inner}\nouter={outer},inner={inner}", "orange", BOX},
    /* A broadcast only fans a stream out; Custard draws no box for it. */
    {"broadcast", NULL, NULL, NULL, NULL, "point", "invis"},
};

/* A type Custard does not make still gets a readable box. */
static const node_look unknown_look = {NULL, NULL, NULL, "{type}", "gray", BOX};

static const node_look *look_for(const graph_node *n)
{
    for (size_t i = 0; i < sizeof looks / sizeof *looks; i++) {
        const node_look *l = &looks[i];
        const char *v = l->when_key ? graph_node_attr(n, l->when_key) : NULL;
        int variant = !l->when_key || (v && (!l->when_value || !strcmp(v, l->when_value)));
        if (!strcmp(l->type, n->type) && variant)
            return l;
    }
    return &unknown_look;
}

/* Written by the writer itself in front of the other attributes; for nodes
 * they are left out of the derived comment, which describes the node. */
static const char *const node_fixed[] = {"comment", "label", "color", "shape", "style"};
static const char *const edge_fixed[] = {"label", "style", "type", "comment"};

static int in_list(const char *key, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(key, list[i]))
            return 1;
    }
    return 0;
}

#define IS_NODE_FIXED(k) in_list(k, node_fixed, sizeof node_fixed / sizeof *node_fixed)
#define IS_EDGE_FIXED(k) in_list(k, edge_fixed, sizeof edge_fixed / sizeof *edge_fixed)

/* ---- derived texts ---------------------------------------------------- */

/* Derived texts are composed whole before they are quoted, so that the
 * check in put_quoted sees the complete value. */
static FILE *open_text(char **s, size_t *len)
{
    *s = NULL;
    return open_memstream(s, len);
}

/* The composed text, or NULL when memory ran out. */
static char *close_text(FILE *m, char **s)
{
    int bad = ferror(m);
    if (fclose(m) != 0 || bad) {
        free(*s);
        return NULL;
    }
    return *s;
}

/* "type=fiberlookup,index=i,...": the node's type, then its attributes. */
static char *comment_text(const graph_node *n)
{
    char *s;
    size_t len;
    FILE *m = open_text(&s, &len);
    if (!m)
        return NULL;
    fprintf(m, "type=%s", n->type);
    for (int i = 0; i < n->nattrs; i++) {
        if (strcmp(n->attrs[i].key, "type") && !IS_NODE_FIXED(n->attrs[i].key))
            fprintf(m, ",%s=%s", n->attrs[i].key, n->attrs[i].value);
    }
    return close_text(m, &s);
}

/* {in*}: the attributes prefix0, prefix1, ... as "0=v 1=w ". */
static void put_numbered(FILE *m, const graph_node *n, const char *prefix, size_t len)
{
    for (int i = 0; i < n->nattrs; i++) {
        const char *key = n->attrs[i].key;
        const char *num = key + len;
        if (!strncmp(key, prefix, len) && *num && num[strspn(num, "0123456789")] == '\0')
            fprintf(m, "%s=%s ", num, n->attrs[i].value);
    }
}

/* One {field} of a label template; a missing attribute gives nothing. */
static void put_field(FILE *m, const graph_node *n, const char *key, size_t len)
{
    if (len > 0 && key[len - 1] == '*') {
        put_numbered(m, n, key, len - 1);
        return;
    }
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)len, key);
    const char *v = strcmp(name, "type") ? graph_node_attr(n, name) : n->type;
    fputs(v ? v : "", m);
}

static char *label_text(const graph_node *n, const char *tmpl)
{
    char *s;
    size_t len;
    FILE *m = open_text(&s, &len);
    if (!m)
        return NULL;
    for (const char *p = tmpl; *p; p++) {
        const char *end = *p == '{' ? strchr(p, '}') : NULL;
        if (!end) {
            fputc(*p, m);
            continue;
        }
        put_field(m, n, p + 1, (size_t)(end - p - 1));
        p = end;
    }
    return close_text(m, &s);
}

static char *tensors_text(const sam_graph *g)
{
    char *s;
    size_t len;
    FILE *m = open_text(&s, &len);
    if (!m)
        return NULL;
    for (int i = 0; i < g->ntensors; i++) {
        char fmt[2 * TENSOR_MAX_ORDER + 1];
        level_format_str(&g->tensors[i].format, fmt, sizeof fmt);
        fprintf(m, "%s%s=%s", i ? "," : "", g->tensors[i].name, fmt);
    }
    return close_text(m, &s);
}

/* ---- quoting ---------------------------------------------------------- */

typedef struct dot_out {
    FILE *f;
    int first;       /* no attribute yet in the current [...] list */
    int unwritable;  /* a value that cgraph could not read back unchanged */
    int nomem;
    char where[96];  /* what is being written, for the message */
} dot_out;

/* cgraph's scanner keeps a backslash in a quoted string as it is, except
 * that \" is a quote, \\ is read as a pair (and kept as two characters)
 * and a backslash before a line break continues the line. So values are
 * written as they are with their quotes escaped (a raw newline stays raw:
 * written as \n it would read back as a backslash and an n), and the one
 * thing DOT cannot say is an odd run of backslashes right before a quote,
 * a line break or the end. */
static int representable(const char *s)
{
    for (const char *p = s; *p;) {
        size_t run = strspn(p, "\\");
        if (run == 0) {
            p++;
            continue;
        }
        p += run;
        int special = !*p || *p == '"' || *p == '\n' || (p[0] == '\r' && p[1] == '\n');
        if (run % 2 && special)
            return 0;
    }
    return 1;
}

static void put_quoted(dot_out *o, const char *s)
{
    if (!representable(s)) {
        o->unwritable = 1;
        return;
    }
    fputc('"', o->f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('\\', o->f);
        fputc(*s, o->f);
    }
    fputc('"', o->f);
}

/* A name DOT reads bare: a letter or _ then letters, digits and _, or only
 * digits; never a keyword, which would change the statement. */
static int is_plain_id(const char *s)
{
    static const char *const keywords[] = {"node", "edge", "graph", "digraph", "subgraph", "strict"};
    static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
    size_t digits = strspn(s, "0123456789");
    if (!*s || (digits > 0 && s[digits] != '\0'))
        return 0;
    if (s[strspn(s, word)] != '\0')
        return 0;
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++) {
        if (!strcasecmp(s, keywords[i]))
            return 0;
    }
    return 1;
}

static void put_id(dot_out *o, const char *s)
{
    if (is_plain_id(s))
        fputs(s, o->f);
    else
        put_quoted(o, s);
}

/* One attribute of a list; value NULL writes nothing. Data values are
 * always quoted, as Custard does; presentation words such as green4 or
 * dashed stay bare when DOT allows it. */
static void put_attr(dot_out *o, const char *key, const char *value, int quoted)
{
    if (!value)
        return;
    if (!o->first)
        fputc(' ', o->f);
    o->first = 0;
    put_id(o, key);
    fputc('=', o->f);
    if (quoted)
        put_quoted(o, value);
    else
        put_id(o, value);
}

/* ---- the graph -------------------------------------------------------- */

static void write_header(dot_out *o, const sam_graph *g)
{
    fputs("digraph SAM {\n", o->f);
    if (g->ntensors > 0) {
        snprintf(o->where, sizeof o->where, "the graph comment");
        char *text = tensors_text(g);
        if (!text) {
            o->nomem = 1;
            return;
        }
        fputs("    comment=", o->f);
        put_quoted(o, text);
        fputc('\n', o->f);
        free(text);
    }
    /* The comment is made from the tensors; another one would override it. */
    for (int i = 0; i < g->nattrs && !o->unwritable; i++) {
        if (!strcmp(g->attrs[i].key, "comment"))
            continue;
        snprintf(o->where, sizeof o->where, "graph attribute %.60s", g->attrs[i].key);
        fputs("    ", o->f);
        o->first = 1;
        put_attr(o, g->attrs[i].key, g->attrs[i].value, 1);
        fputc('\n', o->f);
    }
}

/* A presentation attribute the node already has (a graph read from a
 * file) wins over the derived one, so that reading back gives the same
 * graph even where Custard's labels do not follow its own pattern. */
static const char *own_or(const graph_node *n, const char *key, const char *derived)
{
    const char *v = graph_node_attr(n, key);
    return v ? v : derived;
}

int graph_node_look(const graph_node *n, char **label, const char **color)
{
    const node_look *look = look_for(n);
    const char *own = graph_node_attr(n, "label");
    *color = own_or(n, "color", look->color);
    *label = own ? strdup(own) : look->label ? label_text(n, look->label) : NULL;
    return (own || look->label) && !*label ? -1 : 0;
}

static void write_node_attrs(dot_out *o, const graph_node *n, const node_look *look,
                             const char *comment, const char *label)
{
    put_attr(o, "comment", own_or(n, "comment", comment), 1);
    put_attr(o, "label", own_or(n, "label", label), 1);
    put_attr(o, "color", own_or(n, "color", look->color), 0);
    put_attr(o, "shape", own_or(n, "shape", look->shape), 0);
    put_attr(o, "style", own_or(n, "style", look->style), 0);
    /* graph_read_dot needs type=; a node built without it still gets it. */
    if (!graph_node_attr(n, "type"))
        put_attr(o, "type", n->type, 1);
    for (int i = 0; i < n->nattrs; i++) {
        if (!IS_NODE_FIXED(n->attrs[i].key))
            put_attr(o, n->attrs[i].key, n->attrs[i].value, 1);
    }
}

static void write_node(dot_out *o, const graph_node *n)
{
    const node_look *look = look_for(n);
    char *comment = NULL, *label = NULL;
    snprintf(o->where, sizeof o->where, "node %.60s", n->id);
    if ((!graph_node_attr(n, "comment") && !(comment = comment_text(n))) ||
        (!graph_node_attr(n, "label") && look->label && !(label = label_text(n, look->label)))) {
        o->nomem = 1;
    } else {
        fputs("    ", o->f);
        put_id(o, n->id);
        fputs(" [", o->f);
        o->first = 1;
        write_node_attrs(o, n, look, comment, label);
        fputs("]\n", o->f);
    }
    free(comment);
    free(label);
}

const char *graph_edge_style(const graph_edge *e)
{
    const char *own = graph_edge_attr(e, "style");
    if (own)
        return own;
    /* A bitvector stream carries the coordinates as words. */
    if (!strcmp(e->kind, "crd") || !strcmp(e->kind, "bv"))
        return "dashed";
    if (!strcmp(e->kind, "ref"))
        return "bold";
    if (!strcmp(e->kind, "repsig"))
        return "dotted";
    return NULL; /* val streams are drawn plain */
}

static void write_edge(dot_out *o, const sam_graph *g, int i)
{
    const graph_edge *e = &g->edges[i];
    const char *src = g->nodes[e->src].id, *dst = g->nodes[e->dst].id;
    snprintf(o->where, sizeof o->where, "edge %d (%.30s -> %.30s)", i, src, dst);
    fputs("    ", o->f);
    put_id(o, src);
    fputs(" -> ", o->f);
    put_id(o, dst);
    fputs(" [", o->f);
    o->first = 1;
    put_attr(o, "label", e->label, 1);
    put_attr(o, "style", graph_edge_style(e), 0);
    put_attr(o, "type", e->kind, 1);
    put_attr(o, "comment", *e->comment ? e->comment : NULL, 1);
    for (int k = 0; k < e->nattrs; k++) {
        if (!IS_EDGE_FIXED(e->attrs[k].key))
            put_attr(o, e->attrs[k].key, e->attrs[k].value, 1);
    }
    fputs("]\n", o->f);
}

/* Stops at the first value that cannot be written, leaving o->where on
 * the node or edge that holds it. */
static int write_graph(dot_out *o, const sam_graph *g)
{
    write_header(o, g);
    for (int i = 0; i < g->nnodes && !o->unwritable && !o->nomem; i++)
        write_node(o, &g->nodes[i]);
    for (int i = 0; i < g->nedges && !o->unwritable && !o->nomem; i++)
        write_edge(o, g, i);
    if (o->unwritable || o->nomem) {
        errno = o->nomem ? ENOMEM : EINVAL;
        return -1;
    }
    fputs("}\n", o->f);
    return ferror(o->f) || fflush(o->f) != 0 ? -1 : 0;
}

int graph_write_dot(const sam_graph *g, FILE *out)
{
    dot_out o = {.f = out};
    return write_graph(&o, g);
}

/* ---- to a file -------------------------------------------------------- */

/* The whole text in memory, so that a value that cannot be written is
 * found before anything reaches the target. */
static char *render(const sam_graph *g, size_t *len, const char *name, sam_error *err)
{
    char *s;
    FILE *m = open_text(&s, len);
    if (!m) {
        error_at(err, name, 0, "out of memory");
        return NULL;
    }
    dot_out o = {.f = m};
    int rc = write_graph(&o, g);
    char *text = close_text(m, &s);
    if (!rc && text)
        return text;
    free(text);
    if (o.unwritable)
        error_at(err, name, 0, "%s: a value has an odd run of backslashes before a quote, "
                 "a line break or its end, which DOT cannot represent", o.where);
    else
        error_at(err, name, 0, "out of memory");
    return NULL;
}

static int write_stdout(const char *text, size_t len, sam_error *err)
{
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
        return error_at(err, "standard output", 0, "write error: %s", strerror(errno));
    return 0;
}

static int write_atomic(const char *path, const char *text, size_t len, sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err))
        return -1;
    /* A short write sets the stream's error flag, which close reports. */
    fwrite(text, 1, len, af.f);
    int rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err) ? -1 : 0;
    atomic_file_discard(&af);
    return rc;
}

int graph_write_dot_file(const sam_graph *g, const char *path, sam_error *err)
{
    int to_stdout = !strcmp(path, "-");
    size_t len;
    char *text = render(g, &len, to_stdout ? "standard output" : path, err);
    if (!text)
        return -1;
    int rc = to_stdout ? write_stdout(text, len, err) : write_atomic(path, text, len, err);
    free(text);
    return rc;
}
