#include "fibertree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fibertree_dense_limit(size_t nnz, int64_t *limit, sam_error *err)
{
    const char *env = getenv(FIBERTREE_DENSE_ENV);
    *limit = FIBERTREE_DEFAULT_DENSE;
    if (!env) {
        if (nnz > (size_t)(FIBERTREE_MAX_DENSE / FIBERTREE_DENSE_PER_ENTRY))
            *limit = FIBERTREE_MAX_DENSE;
        else if ((int64_t)nnz * FIBERTREE_DENSE_PER_ENTRY > *limit)
            *limit = (int64_t)nnz * FIBERTREE_DENSE_PER_ENTRY;
        return 0;
    }
    char *end;
    errno = 0;
    long long v = strtoll(env, &end, 10);
    if (*env < '0' || *env > '9' || *end || errno || v < 1 || v > FIBERTREE_MAX_DENSE)
        return error_set(err, FIBERTREE_DENSE_ENV " is '%s', not a number of positions 1..%lld",
                         env, (long long)FIBERTREE_MAX_DENSE);
    *limit = v;
    return 0;
}

void fibertree_free(fibertree *ft)
{
    for (int k = 0; k < TENSOR_MAX_ORDER; k++) {
        free(ft->lv[k].seg);
        free(ft->lv[k].crd);
        free(ft->lv[k].bits);
        free(ft->lv[k].head);
        free(ft->lv[k].next);
    }
    free(ft->vals);
    memset(ft, 0, sizeof *ft);
}

/* n elements of size elem from a and b agree (either may be NULL when
 * n is 0). */
static int same(const void *a, const void *b, size_t n, size_t elem)
{
    return n == 0 || memcmp(a, b, n * elem) == 0;
}

static int same_level(const fiber_level *x, const fiber_level *y)
{
    int crd = x->kind == 's' || x->kind == 'l';
    return x->kind == y->kind && x->mode == y->mode && x->dim == y->dim &&
           x->nseg == y->nseg && x->ncrd == y->ncrd && x->nbits == y->nbits &&
           x->nhead == y->nhead && same(x->seg, y->seg, x->nseg, sizeof *x->seg) &&
           (!crd || same(x->crd, y->crd, x->ncrd, sizeof *x->crd)) &&
           same(x->bits, y->bits, x->nbits, sizeof *x->bits) &&
           same(x->head, y->head, x->nhead, sizeof *x->head) &&
           (x->kind != 'l' || same(x->next, y->next, x->ncrd, sizeof *x->next));
}

int fibertree_equal(const fibertree *a, const fibertree *b)
{
    if (a->order != b->order || memcmp(a->dims, b->dims, sizeof a->dims) ||
        a->nvals != b->nvals || !same(a->vals, b->vals, a->nvals, sizeof *a->vals))
        return 0;
    for (int k = 0; k < a->order; k++)
        if (!same_level(&a->lv[k], &b->lv[k]))
            return 0;
    return 1;
}

void fibertree_format(const fibertree *ft, level_format *f)
{
    memset(f, 0, sizeof *f);
    f->nlevels = ft->order;
    for (int k = 0; k < ft->order; k++) {
        f->kind[k] = ft->lv[k].kind;
        f->mode[k] = ft->lv[k].mode;
    }
}

int64_t fibertree_positions(const fibertree *ft, int k)
{
    int64_t above = k == 0 ? 1 : fibertree_positions(ft, k - 1);
    const fiber_level *l = &ft->lv[k];
    return l->kind == 'd' ? above * l->dim : (int64_t)l->ncrd;
}

/* Elements of fiber f of a level that is not dense. */
static int64_t fiber_length(const fiber_level *l, int64_t f)
{
    if (l->kind != 'l')
        return l->seg[f + 1] - l->seg[f];
    int64_t len = 0;
    for (int64_t n = l->head[f]; n >= 0; n = l->next[n])
        len++;
    return len;
}

void fibertree_level_stats(const fibertree *ft, int k, level_stats *st)
{
    const fiber_level *l = &ft->lv[k];
    st->fibers = k == 0 ? 1 : fibertree_positions(ft, k - 1);
    if (l->kind == 'd') {
        st->nonempty = l->dim ? st->fibers : 0;
        st->max_len = st->nonempty ? l->dim : 0;
        st->mean_len = (double)st->max_len;
        return;
    }
    st->nonempty = st->max_len = 0;
    for (int64_t f = 0; f < st->fibers; f++) {
        int64_t len = fiber_length(l, f);
        st->nonempty += len > 0;
        if (len > st->max_len)
            st->max_len = len;
    }
    st->mean_len = st->nonempty ? (double)l->ncrd / (double)st->nonempty : 0.0;
}

/* Whether level k, a dense level or a bitvector, would hold more than
 * limit positions or words below parents positions (err set then): both
 * store their whole shape. */
static int over_limit(const fiber_level *l, int k, int64_t parents, int64_t limit,
                      sam_error *err)
{
    int64_t width = l->kind == 'b' ? (l->dim + 63) / 64 : l->dim;
    if ((l->kind != 'd' && l->kind != 'b') || !width || parents <= limit / width)
        return 0;
    if (l->kind == 'b')
        return error_set(err, "bitvector level %d would hold %lld x %lld words, more than the "
                         "limit of %lld (set " FIBERTREE_DENSE_ENV " to raise it)", k,
                         (long long)parents, (long long)width, (long long)limit);
    return error_set(err, "dense level %d would hold %lld x %lld positions, more than the "
                     "limit of %lld (set " FIBERTREE_DENSE_ENV " to raise it)", k,
                     (long long)parents, (long long)width, (long long)limit);
}

int fibertree_check_dense(const fibertree *ft, int64_t limit, sam_error *err)
{
    int64_t positions = 1;
    for (int k = 0; k < ft->order; k++) {
        const fiber_level *l = &ft->lv[k];
        if (over_limit(l, k, positions, limit, err))
            return -1;
        positions = l->kind == 'd' ? positions * l->dim : (int64_t)l->ncrd;
    }
    return 0;
}

/* The entries as a level builder sees them, in storage order: entry i is
 * the tensor's entry perm[i] (i itself when perm is NULL), at position
 * above[i] of the level above (0 when above is NULL, the top level). A
 * builder writes entry i's own position to pos[i], after reading its
 * coordinate and position above: pos may be above, or without perm the
 * coordinates themselves, so that a taken tensor's columns turn into
 * positions in place. */
typedef struct level_input {
    const int64_t *crd;
    const size_t *perm;
    const int64_t *above;
    int64_t *pos;
    size_t n;
    int64_t parents;            /* positions of the level above */
} level_input;

static inline int64_t input_crd(const level_input *in, size_t i)
{
    return in->crd[in->perm ? in->perm[i] : i];
}

static inline int64_t input_above(const level_input *in, size_t i)
{
    return in->above ? in->above[i] : 0;
}

/* An array of n entries allocated for at most that many, cut to the
 * count it holds. */
static int64_t *trim(int64_t *a, size_t count, size_t n)
{
    int64_t *t = count && count < n ? realloc(a, count * sizeof *a) : NULL;
    return t ? t : a;
}

/* Builds compressed level l. */
static int build_compressed(fiber_level *l, const level_input *in, sam_error *err)
{
    l->nseg = (size_t)in->parents + 1;
    l->seg = error_alloc(err, l->nseg, sizeof *l->seg);
    l->crd = error_alloc(err, in->n, sizeof *l->crd);
    if (!l->seg || !l->crd)
        return -1;
    size_t count = 0;
    int64_t prev_parent = -1;
    for (size_t i = 0; i < in->n; i++) {
        int64_t c = input_crd(in, i), parent = input_above(in, i);
        if (parent != prev_parent || c != l->crd[count - 1]) {
            l->crd[count++] = c;
            l->seg[parent + 1]++;
        }
        prev_parent = parent;
        in->pos[i] = (int64_t)count - 1;
    }
    for (size_t p = 1; p < l->nseg; p++)
        l->seg[p] += l->seg[p - 1];
    l->ncrd = count;
    l->crd = trim(l->crd, count, in->n);
    return 0;
}

/* Builds bitvector level l like build_compressed: a child's position is
 * its rank in (parent, coordinate) order, which is what the popcount
 * prefix gives. The words count against the dense limit: like a dense
 * level, a bitvector stores its whole shape (a word per 64 positions). */
static int build_bitvector(fiber_level *l, int k, const level_input *in, int64_t limit,
                           sam_error *err)
{
    int64_t stride = (l->dim + 63) / 64;
    if (over_limit(l, k, in->parents, limit, err))
        return -1;
    l->nseg = (size_t)in->parents + 1;
    l->nbits = (size_t)(in->parents * stride);
    l->seg = error_alloc(err, l->nseg, sizeof *l->seg);
    l->bits = error_alloc(err, l->nbits, sizeof *l->bits);
    if (!l->seg || !l->bits)
        return -1;
    size_t count = 0;
    int64_t prev_parent = -1, prev_crd = -1;
    for (size_t i = 0; i < in->n; i++) {
        int64_t c = input_crd(in, i), parent = input_above(in, i);
        if (parent != prev_parent || c != prev_crd) {
            l->bits[parent * stride + c / 64] |= (uint64_t)1 << (c % 64);
            l->seg[parent + 1]++;
            count++;
        }
        prev_parent = parent;
        prev_crd = c;
        in->pos[i] = (int64_t)count - 1;
    }
    for (size_t p = 1; p < l->nseg; p++)
        l->seg[p] += l->seg[p - 1];
    l->ncrd = count;
    return 0;
}

/* Builds linked-list level l with its nodes numbered in (parent,
 * coordinate) order, each fiber's nodes chained in that order. */
static int build_linked(fiber_level *l, const level_input *in, sam_error *err)
{
    l->nhead = (size_t)in->parents;
    l->head = error_alloc(err, l->nhead, sizeof *l->head);
    l->crd = error_alloc(err, in->n, sizeof *l->crd);
    l->next = error_alloc(err, in->n, sizeof *l->next);
    if (!l->head || !l->crd || !l->next)
        return -1;
    for (size_t f = 0; f < l->nhead; f++)
        l->head[f] = -1;
    size_t count = 0;
    int64_t prev_parent = -1;
    for (size_t i = 0; i < in->n; i++) {
        int64_t c = input_crd(in, i), parent = input_above(in, i);
        int new_fiber = parent != prev_parent;
        if (new_fiber || c != l->crd[count - 1]) {
            l->crd[count] = c;
            l->next[count] = -1;
            if (new_fiber)
                l->head[parent] = (int64_t)count;
            else
                l->next[count - 1] = (int64_t)count;
            count++;
        }
        prev_parent = parent;
        in->pos[i] = (int64_t)count - 1;
    }
    l->ncrd = count;
    l->crd = trim(l->crd, count, in->n);
    l->next = trim(l->next, count, in->n);
    return 0;
}

/* Builds level k, its positions counted into *positions (those of the
 * level above on entry). */
static int build_level(fiber_level *l, int k, const level_input *in, int64_t limit,
                       int64_t *positions, sam_error *err)
{
    int rc = 0;
    if (l->kind == 's')
        rc = build_compressed(l, in, err);
    else if (l->kind == 'b')
        rc = build_bitvector(l, k, in, limit, err);
    else if (l->kind == 'l')
        rc = build_linked(l, in, err);
    if (rc)
        return -1;
    if (l->kind != 'd') {
        *positions = (int64_t)l->ncrd;
        return 0;
    }
    if (over_limit(l, k, *positions, limit, err))
        return -1;
    for (size_t i = 0; i < in->n; i++)
        in->pos[i] = input_above(in, i) * l->dim + input_crd(in, i);
    *positions *= l->dim;
    return 0;
}

static int build_levels(const tensor *t, fibertree *ft, const size_t *perm, int64_t *pos,
                        sam_error *err)
{
    int64_t positions = 1, limit;
    if (fibertree_dense_limit(t->nnz, &limit, err))
        return -1;
    for (int k = 0; k < ft->order; k++) {
        fiber_level *l = &ft->lv[k];
        level_input in = {.crd = t->crd[l->mode], .perm = perm, .above = k ? pos : NULL,
                          .pos = pos, .n = t->nnz, .parents = positions};
        if (build_level(l, k, &in, limit, &positions, err))
            return -1;
    }
    ft->nvals = (size_t)positions;
    ft->vals = error_alloc(err, ft->nvals, sizeof *ft->vals);
    if (!ft->vals)
        return -1;
    for (size_t i = 0; i < t->nnz; i++)
        ft->vals[pos[i]] = t->vals[perm ? perm[i] : i];
    return 0;
}

/* An entry outside the shape would be stored past the end of its level. */
static int check_entries(const tensor *t, sam_error *err)
{
    for (int m = 0; m < t->order; m++)
        for (size_t e = 0; e < t->nnz; e++)
            if (t->crd[m][e] < 0 || t->crd[m][e] >= t->dims[m])
                return error_set(err, "entry %zu has coordinate %lld in mode %d, outside "
                                 "0..%lld", e + 1, (long long)t->crd[m][e], m,
                                 (long long)t->dims[m] - 1);
    return 0;
}

/* The tree's shape and level kinds, once t is found to fit f. */
static int start_tree(const tensor *t, const level_format *f, fibertree *out, sam_error *err)
{
    memset(out, 0, sizeof *out);
    if (f->nlevels != t->order)
        return error_set(err, "a format of %d levels for a tensor of order %d", f->nlevels,
                         t->order);
    if (check_entries(t, err))
        return -1;
    out->order = t->order;
    memcpy(out->dims, t->dims, sizeof out->dims);
    for (int k = 0; k < t->order; k++) {
        out->lv[k].kind = f->kind[k];
        out->lv[k].mode = f->mode[k];
        out->lv[k].dim = t->dims[f->mode[k]];
    }
    return 0;
}

int fibertree_build(const tensor *t, const level_format *f, fibertree *out, sam_error *err)
{
    if (start_tree(t, f, out, err))
        return -1;
    /* Entries already in storage order need no permutation. */
    size_t *perm = tensor_is_sorted(t, f->mode, 0) ? NULL
                                                   : error_alloc(err, t->nnz, sizeof *perm);
    int64_t *pos = error_alloc(err, t->nnz, sizeof *pos);
    int rc = -1;
    if (pos && (!perm || tensor_sort_perm(t, f->mode, perm, err) == 0))
        rc = build_levels(t, out, perm, pos, err);
    free(perm);
    free(pos);
    if (rc)
        fibertree_free(out);
    return rc;
}

/* The last level of a taken tensor, compressed: each entry is its own
 * element, so its coordinates are the column itself, and seg counts the
 * entries under each position above. */
static int take_compressed(fiber_level *l, int64_t *crd, const level_input *in, sam_error *err)
{
    l->crd = crd;
    l->ncrd = in->n;
    l->nseg = (size_t)in->parents + 1;
    l->seg = error_alloc(err, l->nseg, sizeof *l->seg);
    if (!l->seg)
        return -1;
    for (size_t i = 0; i < in->n; i++)
        l->seg[input_above(in, i) + 1]++;
    for (size_t p = 1; p < l->nseg; p++)
        l->seg[p] += l->seg[p - 1];
    return 0;
}

/* Level k of a taken tensor, its entries in storage order, each once:
 * the column of its mode becomes the entries' positions here, or the
 * level's own coordinates (the last level, compressed). */
static int take_level(tensor *t, fibertree *ft, int k, int64_t limit, int64_t *positions,
                      sam_error *err)
{
    fiber_level *l = &ft->lv[k];
    int64_t *col = t->crd[l->mode], *above = k ? t->crd[ft->lv[k - 1].mode] : NULL;
    level_input in = {.crd = col, .above = above, .pos = col, .n = t->nnz,
                      .parents = *positions};
    int rc;
    if (k == ft->order - 1 && l->kind == 's') {
        rc = take_compressed(l, col, &in, err);
        t->crd[l->mode] = NULL;
        *positions = (int64_t)t->nnz;
    } else {
        rc = build_level(l, k, &in, limit, positions, err);
    }
    if (above) {
        free(above);
        t->crd[ft->lv[k - 1].mode] = NULL;
    }
    return rc;
}

/* Entries in storage order, each once: below a last level that is not
 * dense, entry i is value position i, so the values are taken too. */
static int take_levels(tensor *t, fibertree *ft, sam_error *err)
{
    int64_t positions = 1, limit;
    if (fibertree_dense_limit(t->nnz, &limit, err))
        return -1;
    for (int k = 0; k < ft->order; k++)
        if (take_level(t, ft, k, limit, &positions, err))
            return -1;
    ft->nvals = (size_t)positions;
    if (ft->lv[ft->order - 1].kind != 'd') {
        ft->vals = t->vals;
        t->vals = NULL;
        return 0;
    }
    ft->vals = error_alloc(err, ft->nvals, sizeof *ft->vals);
    if (!ft->vals)
        return -1;
    const int64_t *pos = t->crd[ft->lv[ft->order - 1].mode];
    for (size_t i = 0; i < t->nnz; i++)
        ft->vals[pos[i]] = t->vals[i];
    return 0;
}

int fibertree_build_taking(tensor *t, const level_format *f, fibertree *out, sam_error *err)
{
    int rc = start_tree(t, f, out, err);
    int whole = rc == 0 && t->order > 0 && t->nnz > 0;
    if (whole && tensor_sort(t, f->mode, err))
        rc = -1;
    if (rc == 0 && whole && tensor_is_sorted(t, f->mode, 1)) {
        rc = take_levels(t, out, err);
        if (rc)
            fibertree_free(out);
    } else if (rc == 0) {
        rc = fibertree_build(t, f, out, err);
    }
    tensor_drop_entries(t);
    return rc;
}

/* Walks the tree depth first, appending each leaf as an entry. */
typedef struct walk {
    const fibertree *ft;
    tensor *out;
    int padded;             /* zeros at leaves are padding, not entries */
    int64_t coords[TENSOR_MAX_ORDER];
    sam_error *err;
} walk;

static int walk_bitvector(walk *w, int k, int64_t parent);

static int walk_level(walk *w, int k, int64_t parent)
{
    const fibertree *ft = w->ft;
    if (k == ft->order) {
        double v = ft->vals[parent];
        if (w->padded && v == 0.0)
            return 0;
        return tensor_append(w->out, w->coords, v, w->err);
    }
    const fiber_level *l = &ft->lv[k];
    if (l->kind == 'd') {
        for (int64_t c = 0; c < l->dim; c++) {
            w->coords[l->mode] = c;
            if (walk_level(w, k + 1, parent * l->dim + c))
                return -1;
        }
        return 0;
    }
    if (l->kind == 'b')
        return walk_bitvector(w, k, parent);
    /* A writer numbers a list's nodes in any order: the list gives the
     * coordinate order. */
    if (l->kind == 'l') {
        for (int64_t n = l->head[parent]; n >= 0; n = l->next[n]) {
            w->coords[l->mode] = l->crd[n];
            if (walk_level(w, k + 1, n))
                return -1;
        }
        return 0;
    }
    for (int64_t p = l->seg[parent]; p < l->seg[parent + 1]; p++) {
        w->coords[l->mode] = l->crd[p];
        if (walk_level(w, k + 1, p))
            return -1;
    }
    return 0;
}

/* The set bits of fiber parent in coordinate order, the children at
 * consecutive positions from the fiber's popcount prefix. */
static int walk_bitvector(walk *w, int k, int64_t parent)
{
    const fiber_level *l = &w->ft->lv[k];
    int64_t stride = (l->dim + 63) / 64, child = l->seg[parent];
    const uint64_t *words = l->bits + parent * stride;
    for (int64_t q = 0; q < stride; q++)
        for (uint64_t b = words[q]; b; b &= b - 1) {
            w->coords[l->mode] = q * 64 + __builtin_ctzll(b);
            if (walk_level(w, k + 1, child++))
                return -1;
        }
    return 0;
}

int fibertree_to_tensor(const fibertree *ft, tensor *out, sam_error *err)
{
    if (tensor_init(out, ft->order, ft->dims, err))
        return -1;
    walk w = {.ft = ft, .out = out, .err = err};
    w.padded = ft->order == 0 ? 0 : ft->lv[ft->order - 1].kind == 'd';
    int rc = ft->nvals ? walk_level(&w, 0, 0) : 0;
    if (rc == 0)
        rc = tensor_canonicalize(out, NULL, err);
    if (rc)
        tensor_free(out);
    return rc;
}

/* The entries of a tree of compressed levels in the order the walk meets
 * them, that of the last level's positions: its coordinates and the
 * values are taken as they stand, and each level above gives its
 * coordinate to the entries below each of its positions, found from the
 * seg of the level below (bottom up, one column at a time). */
/* The column of level l's mode for entries at positions pos of l (NULL:
 * entry i at position i): pos turned into coordinates in place, or the
 * level's coordinates taken as they are. */
static int64_t *name_positions(fiber_level *l, int64_t *pos, size_t n)
{
    if (!pos) {
        int64_t *crd = l->crd;
        l->crd = NULL;
        return crd;
    }
    for (size_t i = 0; i < n; i++)
        pos[i] = l->crd[pos[i]];
    return pos;
}

static int take_entries(fibertree *ft, tensor *out, sam_error *err)
{
    size_t n = ft->nvals;
    int64_t *pos = NULL;        /* each entry's position one level down */
    for (int k = ft->order - 2; k >= 0; k--) {
        fiber_level *below = &ft->lv[k + 1];
        int64_t *col = error_alloc(err, n, sizeof *col);
        if (!col) {
            free(pos);
            return -1;
        }
        int64_t p = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t q = pos ? pos[i] : (int64_t)i;
            while (below->seg[p + 1] <= q)
                p++;
            col[i] = p;
        }
        out->crd[below->mode] = name_positions(below, pos, n);
        pos = col;
    }
    out->crd[ft->lv[0].mode] = name_positions(&ft->lv[0], pos, n);
    out->vals = ft->vals;
    ft->vals = NULL;
    out->nnz = out->cap = n;
    return 0;
}

static int all_compressed(const fibertree *ft)
{
    for (int k = 0; k < ft->order; k++)
        if (ft->lv[k].kind != 's')
            return 0;
    return ft->order > 0;
}

int fibertree_to_tensor_taking(fibertree *ft, tensor *out, sam_error *err)
{
    int rc;
    if (!all_compressed(ft) || !ft->nvals) {
        rc = fibertree_to_tensor(ft, out, err);
    } else if ((rc = tensor_init(out, ft->order, ft->dims, err)) == 0) {
        rc = take_entries(ft, out, err);
        if (rc == 0)
            rc = tensor_canonicalize(out, NULL, err);
        if (rc)
            tensor_free(out);
    }
    fibertree_free(ft);
    return rc;
}

static int validate_compressed(const fiber_level *l, int k, int64_t parents, sam_error *err)
{
    if (l->nseg != (size_t)parents + 1)
        return error_set(err, "level %d has %zu seg entries for %lld fibers", k, l->nseg,
                         (long long)parents);
    if (l->seg[0] != 0 || l->seg[l->nseg - 1] != (int64_t)l->ncrd)
        return error_set(err, "level %d: seg runs from %lld to %lld over %zu coordinates", k,
                         (long long)l->seg[0], (long long)l->seg[l->nseg - 1], l->ncrd);
    for (size_t p = 1; p < l->nseg; p++)
        if (l->seg[p] < l->seg[p - 1])
            return error_set(err, "level %d: seg decreases at entry %zu", k, p);
    for (size_t c = 0; c < l->ncrd; c++)
        if (l->crd[c] < 0 || l->crd[c] >= l->dim)
            return error_set(err, "level %d: coordinate %lld outside 0..%lld", k,
                             (long long)l->crd[c], (long long)l->dim - 1);
    return 0;
}

/* The popcount prefix agrees with the words, which hold exactly one fiber
 * of ceil(dim / 64) words per position above and no bit at or beyond dim. */
static int validate_bitvector(const fiber_level *l, int k, int64_t parents, sam_error *err)
{
    int64_t stride = (l->dim + 63) / 64;
    if (l->nseg != (size_t)parents + 1)
        return error_set(err, "level %d has %zu seg entries for %lld fibers", k, l->nseg,
                         (long long)parents);
    if ((stride && (size_t)parents > l->nbits / (size_t)stride) ||
        l->nbits != (size_t)(parents * stride))
        return error_set(err, "level %d has %zu words for %lld fibers of %lld words", k,
                         l->nbits, (long long)parents, (long long)stride);
    uint64_t beyond = l->dim % 64 ? ~(uint64_t)0 << (l->dim % 64) : 0;
    if (l->seg[0] != 0)
        return error_set(err, "level %d: seg starts at %lld, not 0", k, (long long)l->seg[0]);
    for (int64_t f = 0; f < parents; f++) {
        const uint64_t *words = l->bits + f * stride;
        int64_t set = 0;
        for (int64_t q = 0; q < stride; q++)
            set += __builtin_popcountll(words[q]);
        if (stride && (words[stride - 1] & beyond))
            return error_set(err, "level %d: fiber %lld has a bit at or beyond dimension %lld",
                             k, (long long)f, (long long)l->dim);
        /* seg[f] is a sum of popcounts by now, so the sum cannot overflow. */
        if (l->seg[f + 1] != l->seg[f] + set)
            return error_set(err, "level %d: seg gives fiber %lld positions %lld..%lld, but "
                             "its words have %lld bits set", k, (long long)f,
                             (long long)l->seg[f], (long long)l->seg[f + 1], (long long)set);
    }
    if (l->seg[parents] != (int64_t)l->ncrd)
        return error_set(err, "level %d: %lld bits set but %zu positions", k,
                         (long long)l->seg[parents], l->ncrd);
    return 0;
}

/* Follows fiber f's list, marking its nodes: each must be new (so no list
 * is cyclic or shares a node) and in range, its coordinate within the
 * dimension and above the one before. */
static int validate_list(const fiber_level *l, int k, int64_t f, unsigned char *seen,
                         sam_error *err)
{
    int64_t prev = -1;
    for (int64_t n = l->head[f], from = -1; n != -1; from = n, n = l->next[n]) {
        if (n < 0 || n >= (int64_t)l->ncrd)
            return error_set(err, "level %d: %s %lld points to node %lld, outside 0..%lld", k,
                             from < 0 ? "the head of fiber" : "the next of node",
                             (long long)(from < 0 ? f : from), (long long)n,
                             (long long)l->ncrd - 1);
        if (seen[n]++)
            return error_set(err, "level %d: node %lld is reached twice (fiber %lld)", k,
                             (long long)n, (long long)f);
        if (l->crd[n] < 0 || l->crd[n] >= l->dim)
            return error_set(err, "level %d: coordinate %lld outside 0..%lld", k,
                             (long long)l->crd[n], (long long)l->dim - 1);
        if (l->crd[n] <= prev)
            return error_set(err, "level %d: node %lld's coordinate %lld does not follow %lld "
                             "in increasing order", k, (long long)n, (long long)l->crd[n],
                             (long long)prev);
        prev = l->crd[n];
    }
    return 0;
}

/* A head per fiber; the lists together reach every node exactly once. */
static int validate_linked(const fiber_level *l, int k, int64_t parents, sam_error *err)
{
    if (l->nhead != (size_t)parents)
        return error_set(err, "level %d has %zu heads for %lld fibers", k, l->nhead,
                         (long long)parents);
    unsigned char *seen = error_alloc(err, l->ncrd, 1);
    if (!seen)
        return -1;
    int rc = 0;
    for (int64_t f = 0; rc == 0 && f < parents; f++)
        rc = validate_list(l, k, f, seen, err);
    for (size_t n = 0; rc == 0 && n < l->ncrd; n++)
        if (!seen[n])
            rc = error_set(err, "level %d: node %zu is in no fiber's list", k, n);
    free(seen);
    return rc;
}

int fibertree_validate(const fibertree *ft, sam_error *err)
{
    int64_t positions = 1;
    for (int k = 0; k < ft->order; k++) {
        const fiber_level *l = &ft->lv[k];
        int rc = l->kind == 's'   ? validate_compressed(l, k, positions, err)
                 : l->kind == 'b' ? validate_bitvector(l, k, positions, err)
                 : l->kind == 'l' ? validate_linked(l, k, positions, err)
                 : l->kind == 'd' ? 0
                                  : error_set(err, "level %d has kind '%c'", k, l->kind);
        if (rc)
            return -1;
        positions = fibertree_positions(ft, k);
    }
    if (ft->nvals != (size_t)positions)
        return error_set(err, "%zu values for %lld positions", ft->nvals, (long long)positions);
    return 0;
}

/* The lists of a linked-list level: its fibers that have nodes. */
static size_t lists(const fiber_level *l)
{
    size_t n = 0;
    for (size_t f = 0; f < l->nhead; f++)
        n += l->head[f] >= 0;
    return n;
}

double fibertree_level_bytes(const fibertree *ft, int k, double crd, double ref)
{
    const fiber_level *l = &ft->lv[k];
    switch (l->kind) {
    case 's':
        return (double)l->ncrd * crd + (double)l->nseg * ref;
    case 'b':
        return (double)l->nbits * 8;
    case 'l':
        return (double)lists(l) * ref + (double)l->ncrd * (crd + ref);
    default:
        return 0;
    }
}

double fibertree_bytes(const fibertree *ft, double crd, double ref, double val)
{
    double bytes = (double)ft->nvals * val;
    for (int k = 0; k < ft->order; k++)
        bytes += fibertree_level_bytes(ft, k, crd, ref);
    return bytes;
}
