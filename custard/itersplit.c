#include "itersplit.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "../formats/level_format.h"

/* ---- the parts of a split index ----------------------------------------- */

static int nparts(const tiling *t, int i)
{
    return t->nlevels[i] + 1;
}

/* Part p of index i, outermost first: the outer names of its splits, then
 * the innermost's inner name; an unsplit index is its own one part. */
static const char *part_name(const tiling *t, const expr *e, int i, int p)
{
    int n = t->nlevels[i];
    if (n == 0)
        return e->indices[i];
    return p < n ? t->level[i][p].outer : t->level[i][n - 1].inner;
}

/* Whether the loop order reorder(...) names name. */
static int scheduled(const char *schedule, const char *name)
{
    const char *open = schedule ? strchr(schedule, '(') : NULL;
    size_t len = strlen(name);
    for (const char *q = open ? open + 1 : ""; *q;) {
        size_t n = strcspn(q, ",)");
        if (n == len && !strncmp(q, name, len))
            return 1;
        q += n + (q[n] != '\0');
    }
    return 0;
}

static int split_in_graph(const tiling *t, int i, const char *schedule)
{
    for (int l = 0; l < t->nlevels[i]; l++)
        if (scheduled(schedule, t->level[i][l].outer) || scheduled(schedule, t->level[i][l].inner))
            return 1;
    return 0;
}

/* The split of index i at level l as its command, for messages. */
static void split_text(const tiling *t, const expr *e, int i, int l, char *buf, size_t size)
{
    const tiling_level *lv = &t->level[i][l];
    snprintf(buf, size, "split(%s,%s,%s,%s%s%lld)", l ? t->level[i][l - 1].inner : e->indices[i],
             lv->outer, lv->inner, lv->leader >= 0 ? e->tensors[lv->leader].name : "",
             lv->leader >= 0 ? "." : "", (long long)lv->size);
}

static int check_graph_split(const tiling *t, const expr *e, int i, sam_error *err)
{
    char text[256];
    for (int l = 0; l < t->nlevels[i]; l++) {
        const tiling_level *lv = &t->level[i][l];
        split_text(t, e, i, l, text, sizeof text);
        if (lv->leader >= 0)
            return error_set(err, "schedule: %s: a split the graph iterates is by shape (a "
                             "number of coordinates), not by a leader's occupancy", text);
        if (l && lv->size >= t->level[i][l - 1].size)
            return error_set(err, "schedule: %s: cuts %s into parts of %lld coordinates, but "
                             "it has only %lld", text, t->level[i][l - 1].inner,
                             (long long)lv->size, (long long)t->level[i][l - 1].size);
    }
    return 0;
}

static void copy_index(tiling *to, const tiling *from, int i)
{
    to->nlevels[i] = from->nlevels[i];
    memcpy(to->level[i], from->level[i], sizeof from->level[i]);
    if (to->nlevels[i] > to->depth)
        to->depth = to->nlevels[i];
}

/* all's splits, those the loop order names to graph, the others to tiles. */
static int sort_splits(const tiling *all, const expr *e, const char *schedule, tiling *graph,
                       tiling *tiles, sam_error *err)
{
    memset(graph, 0, sizeof *graph);
    memset(tiles, 0, sizeof *tiles);
    int tiled = -1, iterated = -1;
    for (int i = 0; i < e->nindices; i++) {
        if (!all->nlevels[i])
            continue;
        if (!split_in_graph(all, i, schedule)) {
            copy_index(tiles, all, i);
            tiled = i;
            continue;
        }
        if (check_graph_split(all, e, i, err))
            return -1;
        copy_index(graph, all, i);
        iterated = i;
    }
    if (iterated < 0 || (tiled < 0 && !all->norder))
        return 0;
    char a[256], b[256] = "tileorder(...)";
    split_text(all, e, iterated, 0, a, sizeof a);
    if (tiled >= 0)
        split_text(all, e, tiled, 0, b, sizeof b);
    return error_set(err, "schedule: the graph iterates %s and %s tiles the run; samsim does "
                     "not do both in one graph yet", a, b);
}

/* ---- the expression and formats the graph is compiled from ------------- */

typedef struct text_out {
    char *buf;
    size_t size, used;
    int overflow;
} text_out;

static void put(text_out *o, const char *s, size_t n)
{
    if (o->used + n >= o->size) {
        o->overflow = 1;
        return;
    }
    memcpy(o->buf + o->used, s, n);
    o->used += n;
    o->buf[o->used] = '\0';
}

/* An index name inside an access: its parts, separated by commas. */
static void put_index(text_out *o, const tiling *t, const expr *e, const char *name, size_t n)
{
    char word[256];
    snprintf(word, sizeof word, "%.*s", (int)n, name);
    int i = expr_find_index(e, word);
    if (i < 0 || !t->nlevels[i]) {
        put(o, name, n);
        return;
    }
    for (int p = 0; p < nparts(t, i); p++) {
        const char *part = part_name(t, e, i, p);
        if (p)
            put(o, ",", 1);
        put(o, part, strlen(part));
    }
}

/* Rewrites text word by word: a name directly followed by '(' opens an
 * access, and a name inside an access that opens none is an index. */
static int rewrite_expression(const char *text, const tiling *t, const expr *e, char *buf,
                              size_t size, sam_error *err)
{
    text_out o = {.buf = buf, .size = size};
    char opened[ITERSPLIT_TEXT];   /* per open parenthesis: 'a' access, 'g' group */
    int depth = 0, next_is_access = 0;
    buf[0] = '\0';
    for (const char *p = text; *p;) {
        size_t n = 1;
        if (isalpha((unsigned char)*p) || *p == '_') {
            while (isalnum((unsigned char)p[n]) || p[n] == '_')
                n++;
            const char *after = p + n + strspn(p + n, " \t");
            next_is_access = *after == '(';
            if (!next_is_access && depth && opened[depth - 1] == 'a')
                put_index(&o, t, e, p, n);
            else
                put(&o, p, n);
        } else if (isdigit((unsigned char)*p) || *p == '.') {
            while (isalnum((unsigned char)p[n]) || p[n] == '.' ||
                   ((p[n] == '+' || p[n] == '-') && (p[n - 1] == 'e' || p[n - 1] == 'E')))
                n++;
            put(&o, p, n);
        } else {
            if (*p == '(' && depth < (int)sizeof opened)
                opened[depth++] = next_is_access ? 'a' : 'g';
            else if (*p == ')' && depth)
                depth--;
            if (*p != ' ' && *p != '\t')
                next_is_access = 0;
            put(&o, p, 1);
        }
        p += n;
    }
    return o.overflow ? error_set(err, "expression: too long once its indices are split") : 0;
}

/* The split tensor's mode of part p of mode m of access a. */
static int split_mode(const tiling *t, const expr_node *a, int m, int p)
{
    int mode = p;
    for (int k = 0; k < m; k++)
        mode += nparts(t, a->index[k]);
    return mode;
}

static int split_order(const tiling *t, const expr_node *a)
{
    return split_mode(t, a, a->order, 0);
}

/* f, a format of access a's modes, as a format of the split tensor's. */
static int expand_format(const char *spec, const tiling *t, const expr_node *a,
                         const level_format *f, level_format *out, sam_error *err)
{
    memset(out, 0, sizeof *out);
    if (split_order(t, a) > TENSOR_MAX_ORDER)
        return error_set(err, "-f=%s: split, the tensor would have more than %d modes", spec,
                         TENSOR_MAX_ORDER);
    for (int l = 0; l < f->nlevels; l++) {
        int m = f->mode[l];
        for (int p = 0; p < nparts(t, a->index[m]); p++) {
            out->kind[out->nlevels] = f->kind[l];
            out->mode[out->nlevels++] = split_mode(t, a, m, p);
        }
    }
    return 0;
}

/* "T:LEVELS[:ORDER]": given per mode as written, expanded; given per
 * split mode, or not parsable (plan_make says why), unchanged. */
static int rewrite_format(const char *spec, const tiling *t, const expr *e, char *buf,
                          size_t size, sam_error *err)
{
    snprintf(buf, size, "%s", spec);
    const char *colon = strchr(spec, ':');
    char name[128];
    snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - spec) : 0, spec);
    int tn = colon ? expr_find_tensor(e, name) : -1;
    const expr_node *a = tn >= 0 ? expr_access(e, tn) : NULL;
    level_format f, split;
    sam_error ignored;
    if (!a || level_format_parse(colon + 1, &f, &ignored) || f.nlevels != a->order ||
        split_order(t, a) == a->order)
        return 0;
    if (expand_format(spec, t, a, &f, &split, err))
        return -1;
    char levels[2 * TENSOR_MAX_ORDER + 1];
    level_format_str(&split, levels, sizeof levels);
    if ((size_t)snprintf(buf, size, "%.*s:%s", (int)(colon - spec), spec, levels) >= size)
        return error_set(err, "-f=%s: too long", spec);
    return 0;
}

static int rewrite(const char *expression, const char *const *formats, int nformats,
                   const tiling *graph, const expr *e, itersplit_args *out, sam_error *err)
{
    if (nformats > EXPR_MAX_INDICES)
        return error_set(err, "more than %d formats", EXPR_MAX_INDICES);
    if (rewrite_expression(expression, graph, e, out->expression, sizeof out->expression, err))
        return -1;
    for (int k = 0; k < nformats; k++) {
        if (rewrite_format(formats[k], graph, e, out->format[k], sizeof out->format[k], err))
            return -1;
        out->formats[k] = out->format[k];
    }
    out->nformats = nformats;
    tiling_format(graph, e, out->graph, sizeof out->graph);
    return 0;
}

int itersplit_prepare(const char *expression, const char *const *formats, int nformats,
                      const char *schedule, const char *tiling_text, itersplit_args *out,
                      sam_error *err)
{
    memset(out, 0, sizeof *out);
    if (!tiling_text)
        return 0;
    expr e;
    tiling all, graph, tiles;
    if (expr_parse(expression, &e, err))
        return -1;
    int rc = tiling_parse(tiling_text, &e, &all, err) ||
             sort_splits(&all, &e, schedule, &graph, &tiles, err);
    out->active = !rc && graph.depth > 0;
    if (!rc && out->active)
        rc = rewrite(expression, formats, nformats, &graph, &e, out, err);
    else if (!rc)
        snprintf(out->tiles, sizeof out->tiles, "%s", tiling_text);
    expr_free(&e);
    return rc ? -1 : 0;
}

/* ---- a run's operands and result ---------------------------------------- */

int itersplit_read(const char *expression, const char *commands, itersplit *s, sam_error *err)
{
    memset(s, 0, sizeof *s);
    if (expr_parse(expression, &s->e, err) || tiling_parse(commands, &s->e, &s->t, err))
        return error_wrap(err, "the graph's itersplit");
    return 0;
}

void itersplit_free(itersplit *s)
{
    expr_free(&s->e);
    memset(s, 0, sizeof *s);
}

/* Part p of coordinate c of index i. */
static int64_t part_of(const tiling *t, int i, int p, int64_t c)
{
    int n = t->nlevels[i];
    if (n == 0)
        return c;
    int64_t within = p ? c % t->level[i][p - 1].size : c;
    return p < n ? within / t->level[i][p].size : within;
}

/* The extent of part p of index i of size dim. */
static int64_t part_dim(const tiling *t, int i, int p, int64_t dim)
{
    int n = t->nlevels[i];
    if (n == 0)
        return dim;
    int64_t whole = p ? t->level[i][p - 1].size : dim;
    if (whole > dim)
        whole = dim;
    return p < n ? (whole + t->level[i][p].size - 1) / t->level[i][p].size : whole;
}

/* in, tensor a of the expression, with each mode cut into its parts. */
static int split_tensor(const itersplit *s, const expr_node *a, const tensor *in, tensor *out,
                        sam_error *err)
{
    int64_t dims[TENSOR_MAX_ORDER], crd[TENSOR_MAX_ORDER];
    int order = split_order(&s->t, a);
    if (order > TENSOR_MAX_ORDER)
        return error_set(err, "split, tensor %s would have more than %d modes",
                         s->e.tensors[a->tensor].name, TENSOR_MAX_ORDER);
    for (int m = 0; m < a->order; m++)
        for (int p = 0; p < nparts(&s->t, a->index[m]); p++)
            dims[split_mode(&s->t, a, m, p)] = part_dim(&s->t, a->index[m], p, in->dims[m]);
    if (tensor_init(out, order, dims, err) || tensor_reserve(out, in->nnz, err))
        return -1;
    for (size_t k = 0; k < in->nnz; k++) {
        for (int m = 0; m < a->order; m++)
            for (int p = 0; p < nparts(&s->t, a->index[m]); p++)
                crd[split_mode(&s->t, a, m, p)] = part_of(&s->t, a->index[m], p, in->crd[m][k]);
        if (tensor_append(out, crd, in->vals[k], err))
            return -1;
    }
    return 0;
}

/* Every operand mode under a split index has one size, kept in dims. */
static int check_sizes(const itersplit *s, const char *const *names, const tensor *ops, int n,
                       int64_t *dims, sam_error *err)
{
    const char *first[EXPR_MAX_INDICES] = {0};
    for (int k = 0; k < n; k++) {
        int t = expr_find_tensor(&s->e, names[k]);
        const expr_node *a = t > 0 ? expr_access(&s->e, t) : NULL;
        for (int m = 0; a && m < a->order && m < ops[k].order; m++) {
            int i = a->index[m];
            if (!first[i]) {
                first[i] = names[k];
                dims[i] = ops[k].dims[m];
            } else if (dims[i] != ops[k].dims[m] && s->t.nlevels[i]) {
                return error_set(err, "index %s has size %lld in %s but %lld in %s",
                                 s->e.indices[i], (long long)dims[i], first[i],
                                 (long long)ops[k].dims[m], names[k]);
            }
        }
    }
    return 0;
}

int itersplit_operands(const itersplit *s, const char *const *names, const tensor *ops, int n,
                       tensor *out, int64_t *dims, sam_error *err)
{
    memset(dims, 0, EXPR_MAX_INDICES * sizeof *dims);
    if (check_sizes(s, names, ops, n, dims, err))
        return -1;
    for (int k = 0; k < n; k++) {
        int t = expr_find_tensor(&s->e, names[k]);
        const expr_node *a = t > 0 ? expr_access(&s->e, t) : NULL;
        if (!a || a->order != ops[k].order)
            return error_set(err, "tensor %s is not an operand of order %d in %s", names[k],
                             ops[k].order, "the expression the graph splits");
        if (split_tensor(s, a, &ops[k], &out[k], err))
            return -1;
    }
    return 0;
}

int itersplit_join(const itersplit *s, const tensor *in, const int64_t *dims, tensor *out,
                   sam_error *err)
{
    const expr_node *a = s->e.lhs;
    int64_t odims[TENSOR_MAX_ORDER], crd[TENSOR_MAX_ORDER];
    if (in->order != split_order(&s->t, a))
        return error_set(err, "the result has %d modes, not the %d its splits give", in->order,
                         split_order(&s->t, a));
    for (int m = 0; m < a->order; m++)
        odims[m] = dims[a->index[m]];
    if (tensor_init(out, a->order, odims, err) || tensor_reserve(out, in->nnz, err))
        return -1;
    for (size_t k = 0; k < in->nnz; k++) {
        for (int m = 0; m < a->order; m++) {
            int i = a->index[m];
            crd[m] = 0;
            for (int p = 0; p < nparts(&s->t, i); p++) {
                int64_t c = in->crd[split_mode(&s->t, a, m, p)][k];
                crd[m] += p < s->t.nlevels[i] ? c * s->t.level[i][p].size : c;
            }
        }
        if (tensor_append(out, crd, in->vals[k], err))
            return -1;
    }
    return tensor_canonicalize(out, NULL, err);
}
