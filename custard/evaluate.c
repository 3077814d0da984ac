/* Bottom-up evaluation over sparse relations. The value of every
 * subexpression is a relation: COO columns, one per free index variable
 * (in ascending variable number), and a value per entry. Nothing is ever
 * dense over the index space except what a broadcast asks for.
 *
 * Which variables a subexpression keeps is decided from the tree alone: a
 * variable stays free in a subtree while it also occurs outside it (or on
 * the left); otherwise every occurrence is inside and it is summed there.
 * Products hash the smaller side on the shared variables and probe it with
 * the other. Sums of operands over the same variables sort what is not
 * sorted (canonical operands usually are) and merge. Everything else that
 * sums (a variable summed out, a broadcast) goes through an open-addressing
 * hash on the whole tuple, the accumulator. */
#include "evaluate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Broadcasts of non-scalars are refused beyond this many entries, and any
 * relation beyond HARD_LIMIT (hash slots are 32-bit). */
#define BROADCAST_LIMIT 1e7
#define HARD_LIMIT 2147483647.0

typedef struct rel {
    uint64_t vars;  /* free index variables; column c is the c-th lowest */
    int nvars;
    size_t n, cap;
    int64_t *col[EXPR_MAX_INDICES];
    double *vals;
    int owned;      /* 0: columns and values are an operand's own arrays */
    int unique;     /* 1: no two entries share a tuple */
    int sorted;     /* 1: tuples strictly increase, first column most significant */
} rel;

typedef struct eval {
    const expr *e;
    const tensor **bound;             /* per tensor of e; NULL for the result */
    int64_t dims[EXPR_MAX_INDICES];   /* per index variable */
    expr_eval_mode mode;
    sam_error *err;
} eval;

/* ---- relations ---- */

static int popcount(uint64_t x)
{
    return __builtin_popcountll(x);
}

/* The column of variable v in a relation over vars. */
static int column_of(uint64_t vars, int v)
{
    return popcount(vars & (((uint64_t)1 << v) - 1));
}

static void rel_init(rel *r, uint64_t vars)
{
    memset(r, 0, sizeof *r);
    r->vars = vars;
    r->nvars = popcount(vars);
    r->owned = 1;
    r->unique = 1;
}

static void rel_free(rel *r)
{
    if (r->owned) {
        for (int c = 0; c < r->nvars; c++)
            free(r->col[c]);
        free(r->vals);
    }
    memset(r, 0, sizeof *r);
}

static int rel_reserve(rel *r, size_t cap, sam_error *err)
{
    if (cap <= r->cap)
        return 0;
    if ((double)cap > HARD_LIMIT)
        return error_set(err, "evaluate: a subexpression has more than %.0f entries", HARD_LIMIT);
    if (tensor_columns_reserve(r->col, r->nvars, &r->vals, cap))
        return error_set(err, "evaluate: out of memory for %zu entries", cap);
    r->cap = cap;
    return 0;
}

static int rel_push(rel *r, const int64_t *tuple, double v, sam_error *err)
{
    if (r->n == r->cap && rel_reserve(r, r->cap ? r->cap * 2 : 16, err))
        return -1;
    for (int c = 0; c < r->nvars; c++)
        r->col[c][r->n] = tuple[c];
    r->vals[r->n++] = v;
    return 0;
}

/* Makes a borrowed relation own copies of its arrays, so it can be changed. */
static int rel_own(rel *r, sam_error *err)
{
    if (r->owned)
        return 0;
    rel copy;
    rel_init(&copy, r->vars);
    if (rel_reserve(&copy, r->n, err)) {
        rel_free(&copy);
        return -1;
    }
    for (int c = 0; c < r->nvars; c++)
        memcpy(copy.col[c], r->col[c], r->n * sizeof(int64_t));
    memcpy(copy.vals, r->vals, r->n * sizeof(double));
    copy.n = r->n;
    copy.unique = r->unique;
    copy.sorted = r->sorted;
    *r = copy;
    return 0;
}

/* ---- hashing tuples ---- */

static uint64_t hash_step(uint64_t h, int64_t x)
{
    return (h ^ (uint64_t)x) * 0x9E3779B97F4A7C15u;
}

static uint64_t hash_final(uint64_t h)
{
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9u;
    return h ^ (h >> 29);
}

static uint64_t hash_tuple(const int64_t *tuple, int k)
{
    uint64_t h = 0;
    for (int c = 0; c < k; c++)
        h = hash_step(h, tuple[c]);
    return hash_final(h);
}

/* The hash of entry e's values in the k columns cols: equal to hash_tuple
 * of the same values. */
static uint64_t hash_entry(int64_t *const *cols, int k, size_t e)
{
    uint64_t h = 0;
    for (int c = 0; c < k; c++)
        h = hash_step(h, cols[c][e]);
    return hash_final(h);
}

static int entry_equals(int64_t *const *a, size_t ea, int64_t *const *b, size_t eb, int k)
{
    for (int c = 0; c < k; c++)
        if (a[c][ea] != b[c][eb])
            return 0;
    return 1;
}

static int entry_equals_tuple(int64_t *const *cols, size_t e, const int64_t *tuple, int k)
{
    for (int c = 0; c < k; c++)
        if (cols[c][e] != tuple[c])
            return 0;
    return 1;
}

/* A power-of-two slot table for at least n keys at load <= 1/2; slots hold
 * entry number + 1, 0 meaning empty. */
static uint32_t *slots_new(size_t n, size_t *mask, sam_error *err)
{
    size_t size = 16;
    if ((double)n > HARD_LIMIT) {
        error_set(err, "evaluate: a subexpression has more than %.0f entries", HARD_LIMIT);
        return NULL;
    }
    while (size < 2 * n)
        size *= 2;
    *mask = size - 1;
    return error_alloc(err, size, sizeof(uint32_t));
}

/* ---- the accumulator: a relation whose tuples are kept unique ---- */

typedef struct acc {
    rel *out;
    uint32_t *slot;
    size_t mask;
    sam_error *err;
} acc;

/* hint is an upper bound of the entries; the table starts at most this big
 * and grows, since bounds (of broadcasts, say) can be far above the truth. */
#define ACC_MAX_HINT ((size_t)1 << 25)

static int acc_init(acc *a, rel *out, uint64_t vars, size_t hint, sam_error *err)
{
    rel_init(out, vars);
    if (hint > ACC_MAX_HINT)
        hint = ACC_MAX_HINT;
    a->out = out;
    a->err = err;
    a->slot = slots_new(hint, &a->mask, err);
    return a->slot ? 0 : -1;
}

static void acc_free(acc *a)
{
    free(a->slot);
    a->slot = NULL;
}

static int acc_rehash(acc *a)
{
    size_t mask;
    uint32_t *slot = slots_new(a->out->n * 2, &mask, a->err);
    if (!slot)
        return -1;
    for (size_t e = 0; e < a->out->n; e++) {
        size_t s = hash_entry(a->out->col, a->out->nvars, e) & mask;
        while (slot[s])
            s = (s + 1) & mask;
        slot[s] = (uint32_t)e + 1;
    }
    free(a->slot);
    a->slot = slot;
    a->mask = mask;
    return 0;
}

/* Adds v at tuple (one value per column of the output). */
static int acc_add(acc *a, const int64_t *tuple, double v)
{
    rel *out = a->out;
    size_t s = hash_tuple(tuple, out->nvars) & a->mask;
    for (; a->slot[s]; s = (s + 1) & a->mask) {
        size_t e = a->slot[s] - 1;
        if (entry_equals_tuple(out->col, e, tuple, out->nvars)) {
            out->vals[e] += v;
            return 0;
        }
    }
    if (rel_push(out, tuple, v, a->err))
        return -1;
    a->slot[s] = (uint32_t)out->n;
    return 2 * out->n > a->mask ? acc_rehash(a) : 0;
}

/* ---- leaves ---- */

/* Whether the operand's entries are strictly increasing in natural mode
 * order, which proves its tuples distinct. */
static int strictly_sorted(const tensor *t)
{
    for (size_t e = 1; e < t->nnz; e++) {
        int m = 0;
        while (m < t->order && t->crd[m][e - 1] == t->crd[m][e])
            m++;
        if (m == t->order || t->crd[m][e - 1] > t->crd[m][e])
            return 0;
    }
    return 1;
}

/* Sums the entries of in into a relation over vars (a subset of in's). */
static int project(eval *ev, rel *in, uint64_t vars, rel *out)
{
    acc a;
    int64_t *cols[EXPR_MAX_INDICES];
    int k = 0;
    for (int v = 0; v < EXPR_MAX_INDICES; v++)
        if (vars >> v & 1)
            cols[k++] = in->col[column_of(in->vars, v)];
    int rc = acc_init(&a, out, vars, in->n, ev->err);
    int64_t tuple[EXPR_MAX_INDICES];
    for (size_t e = 0; rc == 0 && e < in->n; e++) {
        for (int c = 0; c < k; c++)
            tuple[c] = cols[c][e];
        rc = acc_add(&a, tuple, in->vals[e]);
    }
    acc_free(&a);
    return rc;
}

/* A value of an operand or a literal as the mode sees it. */
static double as_mode(const eval *ev, double v)
{
    return ev->mode == EXPR_VALUES ? v : ev->mode == EXPR_TERMS ? 1.0 : v < 0 ? -v : v;
}

/* An operand as a relation over its index variables, borrowing its arrays
 * (copying the values when the mode changes them), then summed down to
 * keep. */
static int eval_access(eval *ev, const expr_node *node, uint64_t keep, rel *out)
{
    const tensor *t = ev->bound[node->tensor];
    rel r;
    uint64_t vars = 0;
    for (int m = 0; m < node->order; m++)
        vars |= (uint64_t)1 << node->index[m];
    rel_init(&r, vars);
    r.owned = 0;
    r.n = r.cap = t->nnz;
    r.vals = t->vals;
    r.unique = t->order == 0 ? t->nnz <= 1 : strictly_sorted(t);
    r.sorted = r.unique;
    for (int m = 0; m < node->order; m++) {
        r.col[column_of(vars, node->index[m])] = t->crd[m];
        /* Columns go by variable number: sorted by modes is sorted by
         * columns only when the modes' variables ascend. */
        if (m && node->index[m - 1] > node->index[m])
            r.sorted = 0;
    }
    if (ev->mode != EXPR_VALUES) {
        if (rel_own(&r, ev->err))
            return -1;
        for (size_t e = 0; e < r.n; e++)
            r.vals[e] = as_mode(ev, r.vals[e]);
    }
    if (keep == vars) {
        *out = r;
        return 0;
    }
    int rc = project(ev, &r, keep, out);
    if (r.owned)
        rel_free(&r);
    return rc;
}

static int eval_literal(eval *ev, double value, rel *out)
{
    rel_init(out, 0);
    out->sorted = 1;
    return rel_push(out, NULL, as_mode(ev, value), ev->err);
}

/* ---- products ---- */

/* The smaller side of a join, hashed on the shared variables: entries with
 * equal keys are chained through next (entry number + 1, 0 ends). */
typedef struct chains {
    const rel *r;
    int64_t *key[EXPR_MAX_INDICES];
    int nkey;
    uint32_t *slot, *next;
    size_t mask;
} chains;

static void key_columns(const rel *r, uint64_t shared, int64_t **key)
{
    int k = 0;
    for (int v = 0; v < EXPR_MAX_INDICES; v++)
        if (shared >> v & 1)
            key[k++] = r->col[column_of(r->vars, v)];
}

static int chains_build(chains *h, const rel *r, uint64_t shared, sam_error *err)
{
    memset(h, 0, sizeof *h);
    h->r = r;
    h->nkey = popcount(shared);
    key_columns(r, shared, h->key);
    h->slot = slots_new(r->n, &h->mask, err);
    h->next = error_alloc(err, r->n, sizeof *h->next);
    if (!h->slot || !h->next)
        return -1;
    for (size_t e = 0; e < r->n; e++) {
        size_t s = hash_entry(h->key, h->nkey, e) & h->mask;
        while (h->slot[s] && !entry_equals(h->key, h->slot[s] - 1, h->key, e, h->nkey))
            s = (s + 1) & h->mask;
        h->next[e] = h->slot[s];
        h->slot[s] = (uint32_t)e + 1;
    }
    return 0;
}

static void chains_free(chains *h)
{
    free(h->slot);
    free(h->next);
}

/* The first entry (+1) of the chain whose key equals entry e of key, 0 if none. */
static uint32_t chains_find(const chains *h, int64_t *const *key, size_t e)
{
    size_t s = hash_entry(key, h->nkey, e) & h->mask;
    for (; h->slot[s]; s = (s + 1) & h->mask)
        if (entry_equals(h->key, h->slot[s] - 1, key, e, h->nkey))
            return h->slot[s];
    return 0;
}

/* Where each output column comes from: a column of the probe side or of
 * the build side. */
typedef struct join_out {
    int64_t *from_probe[EXPR_MAX_INDICES], *from_build[EXPR_MAX_INDICES];
    int n;
} join_out;

static void join_out_init(join_out *j, const rel *probe, const rel *build, uint64_t vars)
{
    memset(j, 0, sizeof *j);
    for (int v = 0; v < EXPR_MAX_INDICES; v++) {
        if (!(vars >> v & 1))
            continue;
        if (probe->vars >> v & 1)
            j->from_probe[j->n] = probe->col[column_of(probe->vars, v)];
        else
            j->from_build[j->n] = build->col[column_of(build->vars, v)];
        j->n++;
    }
}

/* Emits every (probe entry, matching build entry) pair as one product. */
static int join_emit(const chains *h, const rel *probe, const join_out *j, acc *a, rel *out,
                     sam_error *err)
{
    int64_t *pkey[EXPR_MAX_INDICES];
    key_columns(probe, h->r->vars & probe->vars, pkey);
    int64_t tuple[EXPR_MAX_INDICES];
    for (size_t p = 0; p < probe->n; p++) {
        for (uint32_t b = chains_find(h, pkey, p); b; b = h->next[b - 1]) {
            for (int c = 0; c < j->n; c++)
                tuple[c] = j->from_probe[c] ? j->from_probe[c][p] : j->from_build[c][b - 1];
            double v = probe->vals[p] * h->r->vals[b - 1];
            if (a ? acc_add(a, tuple, v) : rel_push(out, tuple, v, err))
                return -1;
        }
    }
    return 0;
}

/* The product of l and r over vars (a subset of their union: the rest is
 * summed). Pairs can only repeat a tuple when a side repeats one or when
 * variables are summed; otherwise they are appended without the hash. */
static int join(eval *ev, const rel *l, const rel *r, uint64_t vars, rel *out)
{
    const rel *build = l->n <= r->n ? l : r, *probe = build == l ? r : l;
    int direct = l->unique && r->unique && vars == (l->vars | r->vars);
    chains h;
    join_out j;
    acc a = {0};
    int rc = chains_build(&h, build, l->vars & r->vars, ev->err);
    if (rc == 0 && direct) {
        rel_init(out, vars);
        /* Pairs come in probe order; when each probe entry meets at most one
         * build entry and keeps its own tuple, that order is sorted. */
        out->sorted = probe->sorted && vars == probe->vars && (build->vars & ~probe->vars) == 0;
    } else if (rc == 0) {
        rc = acc_init(&a, out, vars, probe->n, ev->err);
    }
    if (rc == 0) {
        join_out_init(&j, probe, build, vars);
        rc = join_emit(&h, probe, &j, direct ? NULL : &a, out, ev->err);
    }
    acc_free(&a);
    chains_free(&h);
    return rc;
}

/* ---- sums ---- */

/* How many entries side s makes once broadcast over the variables of vars
 * it lacks. */
static double broadcast_size(const eval *ev, const rel *s, uint64_t vars)
{
    double size = (double)s->n;
    for (int v = 0; v < EXPR_MAX_INDICES; v++)
        if ((vars & ~s->vars) >> v & 1)
            size *= (double)ev->dims[v];
    return size;
}

static int check_broadcast(const eval *ev, const expr_node *node, const rel *s, uint64_t vars)
{
    if (!(vars & ~s->vars))
        return 0;
    double size = broadcast_size(ev, s, vars);
    const char *op = node->kind == EXPR_ADD ? "sum" : "difference";
    if (size > HARD_LIMIT || (s->nvars > 0 && size >= BROADCAST_LIMIT))
        return error_set(ev->err,
                         "evaluate: the %s at column %d broadcasts an operand to %.4g entries; "
                         "only scalars are broadcast beyond 1e7 entries, nothing beyond %.4g",
                         op, node->column, size, HARD_LIMIT);
    return 0;
}

/* Adds sign times side s into a, repeating each entry over the whole range
 * of the variables of a's output that s lacks. */
static int add_side(const eval *ev, acc *a, const rel *s, double sign)
{
    uint64_t vars = a->out->vars;
    int64_t *src[EXPR_MAX_INDICES], dim[EXPR_MAX_INDICES], tuple[EXPR_MAX_INDICES];
    int k = 0;
    double volume = 1;
    for (int v = 0; v < EXPR_MAX_INDICES; v++) {
        if (!(vars >> v & 1))
            continue;
        src[k] = s->vars >> v & 1 ? s->col[column_of(s->vars, v)] : NULL;
        dim[k] = ev->dims[v];
        if (!src[k])
            volume *= (double)dim[k];
        k++;
    }
    if (volume == 0)
        return 0;
    for (size_t e = 0; e < s->n; e++) {
        for (int c = 0; c < k; c++)
            tuple[c] = src[c] ? src[c][e] : 0;
        int c;
        do {
            if (acc_add(a, tuple, sign * s->vals[e]))
                return -1;
            /* Next combination of the broadcast variables, odometer style. */
            for (c = k - 1; c >= 0; c--) {
                if (src[c])
                    continue;
                if (++tuple[c] < dim[c])
                    break;
                tuple[c] = 0;
            }
        } while (c >= 0);
    }
    return 0;
}

/* -1, 0 or 1 as entry a of l is below, equal to or above entry b of r
 * (relations over the same variables). */
static int compare(const rel *l, size_t a, const rel *r, size_t b)
{
    for (int c = 0; c < l->nvars; c++)
        if (l->col[c][a] != r->col[c][b])
            return l->col[c][a] < r->col[c][b] ? -1 : 1;
    return 0;
}

static void copy_entry(rel *out, const rel *in, size_t e, double v)
{
    for (int c = 0; c < out->nvars; c++)
        out->col[c][out->n] = in->col[c][e];
    out->vals[out->n++] = v;
}

/* l + sign*r for two sorted relations over the same variables: a linear
 * merge, much faster than hashing when both come from canonical operands. */
static int merge(eval *ev, const rel *l, const rel *r, double sign, rel *out)
{
    rel_init(out, l->vars);
    out->sorted = 1;
    if (rel_reserve(out, l->n + r->n, ev->err))
        return -1;
    size_t a = 0, b = 0;
    while (a < l->n || b < r->n) {
        int c = a == l->n ? 1 : b == r->n ? -1 : compare(l, a, r, b);
        if (c < 0)
            copy_entry(out, l, a, l->vals[a]);
        else if (c > 0)
            copy_entry(out, r, b, sign * r->vals[b]);
        else
            copy_entry(out, l, a, l->vals[a] + sign * r->vals[b]);
        a += c <= 0;
        b += c >= 0;
    }
    return 0;
}

/* r sorted by its columns with equal tuples summed, as a new relation.
 * The radix sort of formats/tensor.h works on a tensor view of the
 * columns, which is why this needs nvars <= TENSOR_MAX_ORDER. */
static int rel_sorted(eval *ev, const rel *r, rel *out)
{
    tensor view;
    memset(&view, 0, sizeof view);
    view.order = r->nvars;
    view.nnz = r->n;
    for (int c = 0; c < r->nvars; c++)
        view.crd[c] = r->col[c];
    size_t *perm = error_alloc(ev->err, r->n, sizeof *perm);
    rel_init(out, r->vars);
    out->sorted = 1;
    int rc = perm ? tensor_sort_perm(&view, NULL, perm, ev->err) : -1;
    if (rc == 0)
        rc = rel_reserve(out, r->n, ev->err);
    for (size_t k = 0; rc == 0 && k < r->n; k++) {
        size_t e = perm[k];
        if (out->n && compare(out, out->n - 1, r, e) == 0)
            out->vals[out->n - 1] += r->vals[e];
        else
            copy_entry(out, r, e, r->vals[e]);
    }
    free(perm);
    return rc;
}

/* l + sign*r over the same variables: sorts what is not sorted, then
 * merges. Sorting by radix beats hashing every entry by far on big
 * operands, whose hash probes all miss the cache. */
static int sort_merge(eval *ev, const rel *l, const rel *r, double sign, rel *out)
{
    rel sl, sr;
    memset(&sl, 0, sizeof sl);
    memset(&sr, 0, sizeof sr);
    int rc = l->sorted ? 0 : rel_sorted(ev, l, &sl);
    if (rc == 0 && !r->sorted)
        rc = rel_sorted(ev, r, &sr);
    if (rc == 0)
        rc = merge(ev, l->sorted ? l : &sl, r->sorted ? r : &sr, sign, out);
    rel_free(&sl);
    rel_free(&sr);
    return rc;
}

/* l + sign*r over vars: a merge when both have exactly these variables,
 * else through the accumulator, which broadcasts and sums as needed. */
static int add(eval *ev, const expr_node *node, const rel *l, const rel *r, uint64_t vars, rel *out)
{
    double sign = node->kind == EXPR_SUB && ev->mode == EXPR_VALUES ? -1.0 : 1.0;
    if (l->vars == vars && r->vars == vars && popcount(vars) <= TENSOR_MAX_ORDER)
        return sort_merge(ev, l, r, sign, out);
    if (check_broadcast(ev, node, l, vars) || check_broadcast(ev, node, r, vars))
        return -1;
    size_t hint = (size_t)(broadcast_size(ev, l, vars) + broadcast_size(ev, r, vars));
    acc a;
    int rc = acc_init(&a, out, vars, hint, ev->err);
    if (rc == 0)
        rc = add_side(ev, &a, l, 1.0);
    if (rc == 0)
        rc = add_side(ev, &a, r, sign);
    acc_free(&a);
    return rc;
}

/* ---- the tree ---- */

static uint64_t vars_of(const expr_node *n)
{
    uint64_t vars = 0;
    if (n->kind == EXPR_ACCESS)
        for (int m = 0; m < n->order; m++)
            vars |= (uint64_t)1 << n->index[m];
    if (n->left)
        vars |= vars_of(n->left);
    if (n->right)
        vars |= vars_of(n->right);
    return vars;
}

static int eval_node(eval *ev, const expr_node *n, uint64_t outside, rel *out);

static int eval_neg(eval *ev, const expr_node *n, uint64_t outside, rel *out)
{
    if (eval_node(ev, n->left, outside, out) || rel_own(out, ev->err))
        return -1;
    for (size_t e = 0; e < out->n && ev->mode == EXPR_VALUES; e++)
        out->vals[e] = -out->vals[e];
    return 0;
}

/* Both operands of a binary node, each keeping what the other or the
 * outside still needs, then their product, sum or difference. */
static int eval_binary(eval *ev, const expr_node *n, uint64_t outside, rel *out)
{
    uint64_t lv = vars_of(n->left), rv = vars_of(n->right);
    uint64_t keep = (lv | rv) & outside;
    rel l, r;
    memset(&r, 0, sizeof r);
    int rc = eval_node(ev, n->left, outside | rv, &l);
    if (rc)
        return -1;
    rc = eval_node(ev, n->right, outside | lv, &r);
    if (rc == 0 && n->kind == EXPR_MUL)
        rc = join(ev, &l, &r, keep, out);
    else if (rc == 0)
        rc = add(ev, n, &l, &r, keep, out);
    rel_free(&l);
    rel_free(&r);
    return rc;
}

/* The value of subtree n as a relation over its variables that also occur
 * in outside (the left side and everything not under n). On failure out
 * is left empty. */
static int eval_node(eval *ev, const expr_node *n, uint64_t outside, rel *out)
{
    memset(out, 0, sizeof *out);
    int rc;
    switch (n->kind) {
    case EXPR_ACCESS:
        rc = eval_access(ev, n, vars_of(n) & outside, out);
        break;
    case EXPR_LITERAL:
        rc = eval_literal(ev, n->value, out);
        break;
    case EXPR_NEG:
        rc = eval_neg(ev, n, outside, out);
        break;
    default:
        rc = eval_binary(ev, n, outside, out);
        break;
    }
    if (rc)
        rel_free(out);
    return rc;
}

/* ---- binding and the result ---- */

/* Coordinates outside the dimensions would break broadcasts and the
 * ordering that merges rely on; readers check them, this catches the rest. */
static int check_coordinates(eval *ev, const tensor *t, const char *name)
{
    for (int m = 0; m < t->order; m++)
        for (size_t e = 0; e < t->nnz; e++)
            if (t->crd[m][e] < 0 || t->crd[m][e] >= t->dims[m])
                return error_set(ev->err,
                                 "evaluate: operand %s: entry %zu has coordinate %lld in mode %d, "
                                 "outside its dimension %lld",
                                 name, e, (long long)t->crd[m][e], m, (long long)t->dims[m]);
    return 0;
}

static int bind_operands(eval *ev, const char *const *names, const tensor *const *operands, int n)
{
    const expr *e = ev->e;
    for (int t = 1; t < e->ntensors; t++) {
        int k = 0;
        while (k < n && strcmp(names[k], e->tensors[t].name) != 0)
            k++;
        if (k == n)
            return error_set(ev->err, "evaluate: no operand named %s", e->tensors[t].name);
        if (operands[k]->order != e->tensors[t].order)
            return error_set(ev->err,
                             "evaluate: operand %s has order %d but the expression gives it %d "
                             "indices",
                             e->tensors[t].name, operands[k]->order, e->tensors[t].order);
        if (check_coordinates(ev, operands[k], e->tensors[t].name))
            return -1;
        ev->bound[t] = operands[k];
    }
    return 0;
}

/* The dimension of every index variable, from each mode it indexes. */
static int find_dims(eval *ev, const expr_node *n, const expr_node **first, int *first_mode)
{
    if (n->left && find_dims(ev, n->left, first, first_mode))
        return -1;
    if (n->right && find_dims(ev, n->right, first, first_mode))
        return -1;
    if (n->kind != EXPR_ACCESS)
        return 0;
    const tensor *t = ev->bound[n->tensor];
    for (int m = 0; m < n->order; m++) {
        int v = n->index[m];
        if (!first[v]) {
            first[v] = n;
            first_mode[v] = m;
            ev->dims[v] = t->dims[m];
        } else if (ev->dims[v] != t->dims[m]) {
            const expr_tensor *a = &ev->e->tensors[first[v]->tensor];
            return error_set(ev->err,
                             "evaluate: index %s has dimension %lld in %s (mode %d) but %lld "
                             "in %s (mode %d)",
                             ev->e->indices[v], (long long)ev->dims[v], a->name, first_mode[v],
                             (long long)t->dims[m], ev->e->tensors[n->tensor].name, m);
        }
    }
    return 0;
}

/* Copies the root's relation into result, modes in the left side's order. */
static int write_result(eval *ev, const rel *r, tensor *result)
{
    const expr_node *lhs = ev->e->lhs;
    int64_t dims[TENSOR_MAX_ORDER];
    for (int m = 0; m < lhs->order; m++)
        dims[m] = ev->dims[lhs->index[m]];
    if (tensor_init(result, lhs->order, dims, ev->err) || tensor_reserve(result, r->n, ev->err))
        return -1;
    for (int m = 0; m < lhs->order; m++)
        if (r->n)
            memcpy(result->crd[m], r->col[column_of(r->vars, lhs->index[m])],
                   r->n * sizeof(int64_t));
    if (r->n)
        memcpy(result->vals, r->vals, r->n * sizeof(double));
    result->nnz = r->n;
    if (tensor_canonicalize(result, NULL, ev->err))
        return -1;
    /* A scalar is one entry even when nothing contributed to it. */
    if (lhs->order == 0 && result->nnz == 0)
        return tensor_append(result, NULL, 0.0, ev->err);
    return 0;
}

int expr_evaluate(const expr *e, const char *const *names, const tensor *const *operands, int n,
                  tensor *result, sam_error *err)
{
    return expr_evaluate_as(e, EXPR_VALUES, names, operands, n, result, err);
}

static int factors(const expr_node *n)
{
    if (n->kind == EXPR_ACCESS || n->kind == EXPR_LITERAL)
        return 1;
    if (n->kind == EXPR_NEG)
        return factors(n->left);
    int l = factors(n->left), r = factors(n->right);
    return n->kind == EXPR_MUL ? l + r : l > r ? l : r;
}

int expr_factors(const expr *e)
{
    return factors(e->rhs);
}

int expr_evaluate_as(const expr *e, expr_eval_mode mode, const char *const *names,
                     const tensor *const *operands, int n, tensor *result, sam_error *err)
{
    memset(result, 0, sizeof *result);
    eval ev = {.e = e, .mode = mode, .err = err};
    const expr_node *first[EXPR_MAX_INDICES] = {0};
    int first_mode[EXPR_MAX_INDICES];
    ev.bound = error_alloc(err, (size_t)e->ntensors, sizeof *ev.bound);
    if (!ev.bound)
        return -1;
    rel root;
    memset(&root, 0, sizeof root);
    int rc = bind_operands(&ev, names, operands, n);
    if (rc == 0)
        rc = find_dims(&ev, e->rhs, first, first_mode);
    if (rc == 0)
        rc = eval_node(&ev, e->rhs, vars_of(e->lhs), &root);
    if (rc == 0)
        rc = write_result(&ev, &root, result);
    rel_free(&root);
    free(ev.bound);
    if (rc)
        tensor_free(result);
    return rc;
}
