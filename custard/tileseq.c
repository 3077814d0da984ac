#include "tileseq.h"

#include <stdlib.h>
#include <string.h>

/* Loops are tile coordinates of at most every key of every operand. */
#define TILESEQ_MAX_LOOPS TILE_MAX_KEYS
#define TILESEQ_MAX_TENSORS 64

/* One operand: its tiles in the order of their keys taken loop by loop. */
typedef struct seq_tensor {
    const tiled_tensor *tt;
    int col[TILESEQ_MAX_LOOPS];     /* loop k -> the key it is, -1: none */
    size_t *order;                  /* rows: tile numbers, sorted */
} seq_tensor;

typedef struct walker {
    const expr *e;
    int nloop;
    seq_tensor *t;
    int64_t coord[TILESEQ_MAX_LOOPS];
    size_t tile[TILESEQ_MAX_TENSORS];
    tileseq_visit_fn *visit;
    void *ctx;
} walker;

static int64_t key_of(const seq_tensor *s, size_t tile, int k)
{
    return s->tt->tiles[tile].key[s->col[k]];
}

/* Row order: keys compared loop by loop. */
static int before(const seq_tensor *s, int nloop, size_t a, size_t b)
{
    for (int k = 0; k < nloop; k++)
        if (s->col[k] >= 0 && key_of(s, a, k) != key_of(s, b, k))
            return key_of(s, a, k) < key_of(s, b, k);
    return 0;
}

/* A stable bottom-up merge sort of s->order, with tmp as room. */
static void sort_rows(seq_tensor *s, int nloop, size_t *tmp)
{
    size_t n = s->tt->ntiles, *from = s->order, *to = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                to[o++] = before(s, nloop, from[b], from[a]) ? from[b++] : from[a++];
            while (a < mid)
                to[o++] = from[a++];
            while (b < hi)
                to[o++] = from[b++];
        }
        size_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != s->order)
        memcpy(s->order, from, n * sizeof *from);
}

/* The key of tt that is index idx at level lv, -1 when none. */
static int key_for(const tiled_tensor *tt, const expr_node *access, int idx, int lv)
{
    for (int k = 0; k < tt->nkeys; k++)
        if (access->index[tt->key_mode[k]] == idx && tt->key_level[k] == lv)
            return k;
    return -1;
}

/* Matches operand t's keys with the loops and sorts its tiles. */
static int prepare(seq_tensor *s, const expr *e, int t, const int *index, const int *level,
                   int nloop, sam_error *err)
{
    const expr_node *access = expr_access(e, t);
    int used = 0;
    for (int k = 0; k < nloop; k++) {
        s->col[k] = access ? key_for(s->tt, access, index[k], level[k]) : -1;
        used += s->col[k] >= 0;
    }
    if (used != s->tt->nkeys)
        return error_set(err, "tensor %s is tiled on a level the tile loops do not visit",
                         e->tensors[t].name);
    size_t n = s->tt->ntiles, *tmp = malloc((n + 1) * sizeof *tmp);
    s->order = malloc((n + 1) * sizeof *s->order);
    if (!tmp || !s->order) {
        free(tmp);
        return error_set(err, "out of memory sequencing the tiles of %s", e->tensors[t].name);
    }
    for (size_t i = 0; i < n; i++)
        s->order[i] = i;
    sort_rows(s, nloop, tmp);
    free(tmp);
    return 0;
}

/* Whether the right side may be nonzero where each operand has the rows
 * lo[t]..hi[t]-1 (an operand not tiled has all of itself). */
static int may_be_nonzero(const walker *w, const expr_node *n, const size_t *lo, const size_t *hi)
{
    switch (n->kind) {
    case EXPR_ACCESS:
        return !w->t[n->tensor].tt || hi[n->tensor] > lo[n->tensor];
    case EXPR_LITERAL:
        return n->value != 0;
    case EXPR_MUL:
        return may_be_nonzero(w, n->left, lo, hi) && may_be_nonzero(w, n->right, lo, hi);
    case EXPR_NEG:
        return may_be_nonzero(w, n->left, lo, hi);
    default:
        return may_be_nonzero(w, n->left, lo, hi) || may_be_nonzero(w, n->right, lo, hi);
    }
}

static int leaf(walker *w, const size_t *lo, const size_t *hi)
{
    for (int t = 0; t < w->e->ntensors; t++)
        w->tile[t] = w->t[t].tt && hi[t] > lo[t] ? w->t[t].order[lo[t]] : TILESEQ_ABSENT;
    return w->visit(w->ctx, w->coord, w->tile);
}

/* The next coordinate of loop k among the operands it indexes, from rows
 * pos[t] on: the smallest there is; 0 when every one is used up. */
static int next_coord(const walker *w, int k, const size_t *pos, const size_t *hi, int64_t *c)
{
    int any = 0;
    for (int t = 0; t < w->e->ntensors; t++) {
        const seq_tensor *s = &w->t[t];
        if (!s->tt || s->col[k] < 0 || pos[t] >= hi[t])
            continue;
        int64_t v = key_of(s, s->order[pos[t]], k);
        if (!any || v < *c)
            *c = v;
        any = 1;
    }
    return any;
}

static int walk(walker *w, int k, const size_t *lo, const size_t *hi)
{
    if (k == w->nloop)
        return leaf(w, lo, hi);
    size_t pos[TILESEQ_MAX_TENSORS], sub_lo[TILESEQ_MAX_TENSORS], sub_hi[TILESEQ_MAX_TENSORS];
    int n = w->e->ntensors;
    memcpy(pos, lo, (size_t)n * sizeof *pos);
    int64_t c = 0;
    while (next_coord(w, k, pos, hi, &c)) {
        for (int t = 0; t < n; t++) {
            const seq_tensor *s = &w->t[t];
            sub_lo[t] = lo[t], sub_hi[t] = hi[t];
            if (!s->tt || s->col[k] < 0)
                continue;
            size_t end = pos[t];
            while (end < hi[t] && key_of(s, s->order[end], k) == c)
                end++;
            sub_lo[t] = pos[t], sub_hi[t] = end;
            pos[t] = end;
        }
        w->coord[k] = c;
        int rc = may_be_nonzero(w, w->e->rhs, sub_lo, sub_hi) ? walk(w, k + 1, sub_lo, sub_hi) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

/* Every loop must have an operand to take its coordinates from. */
static int check_loops(const walker *w, const int *index, const int *level, sam_error *err)
{
    for (int k = 0; k < w->nloop; k++) {
        int found = 0;
        for (int t = 0; t < w->e->ntensors; t++)
            found |= w->t[t].tt && w->t[t].col[k] >= 0;
        if (!found)
            return error_set(err, "no operand is tiled on index %s at level %d",
                             w->e->indices[index[k]], level[k]);
    }
    return 0;
}

int tileseq_walk(const expr *e, const int *index, const int *level, int nloop,
                 const tiled_tensor *const *tensors, tileseq_visit_fn *visit, void *ctx,
                 sam_error *err)
{
    if (nloop > TILESEQ_MAX_LOOPS || e->ntensors > TILESEQ_MAX_TENSORS)
        return error_set(err, "too many tile loops or tensors to sequence");
    seq_tensor t[TILESEQ_MAX_TENSORS];
    memset(t, 0, sizeof t);
    walker w = {.e = e, .nloop = nloop, .t = t, .visit = visit, .ctx = ctx};
    size_t lo[TILESEQ_MAX_TENSORS] = {0}, hi[TILESEQ_MAX_TENSORS] = {0};
    int rc = 0;
    for (int k = 1; k < e->ntensors && !rc; k++) {
        t[k].tt = tensors[k];
        if (tensors[k]) {
            rc = prepare(&t[k], e, k, index, level, nloop, err);
            hi[k] = tensors[k]->ntiles;
        }
    }
    if (!rc)
        rc = check_loops(&w, index, level, err);
    if (!rc)
        rc = walk(&w, 0, lo, hi);
    for (int k = 0; k < e->ntensors; k++)
        free(t[k].order);
    return rc;
}
