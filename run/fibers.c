#include "fibers.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

/* The bytes of the subtree under position p of ft's outermost level (its
 * coordinate there not counted): the positions below it form a range at
 * each level. */
static double subtree_bytes(const fibertree *ft, int64_t p, const hw_desc *hw)
{
    int64_t a = p, b = p + 1;
    double bytes = 0;
    for (int k = 1; k < ft->order; k++) {
        const fiber_level *l = &ft->lv[k];
        if (l->kind == 'd') {
            a *= l->dim;
            b *= l->dim;
            continue;
        }
        if (l->kind == 's')
            bytes += (double)(b - a) * hw->bytes_ref + (double)(l->seg[b] - l->seg[a]) * hw->bytes_crd;
        else
            bytes += (double)(b - a) * (double)((l->dim + 63) / 64) * 8;
        a = l->seg[a];
        b = l->seg[b];
    }
    return bytes + (double)(b - a) * hw->bytes_val;
}

/* The coordinate of position p of ft's outermost level; a bitvector's
 * words are walked from word *word, before which *seen bits are set
 * (both kept between calls, p increasing). */
static int64_t outer_crd(const fibertree *ft, int64_t p, int64_t *word, int64_t *seen)
{
    const fiber_level *l = &ft->lv[0];
    if (l->kind == 'd')
        return p;
    if (l->kind == 's')
        return l->crd[p];
    for (;; (*word)++) {
        int count = __builtin_popcountll(l->bits[*word]);
        if (p < *seen + count) {
            uint64_t w = l->bits[*word];
            for (int64_t skip = p - *seen; skip > 0; skip--)
                w &= w - 1;
            return *word * 64 + __builtin_ctzll(w);
        }
        *seen += count;
    }
}

int tile_fibers_build(const fibertree *ft, const hw_desc *hw, tile_fibers *out, sam_error *err)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < ft->order; k++)
        if (ft->lv[k].kind == 'l')
            return error_set(err, "a cache of fibers reads fibers as ranges of positions, which "
                             "a linked-list level does not store");
    if (ft->order == 0)
        return error_set(err, "a cache of fibers needs a tensor of at least one mode");
    size_t n = (size_t)fibertree_positions(ft, 0);
    out->crd = malloc((n + 1) * sizeof *out->crd);
    out->bytes = malloc((n + 1) * sizeof *out->bytes);
    if (!out->crd || !out->bytes) {
        tile_fibers_free(out);
        return error_set(err, "out of memory");
    }
    double own = ft->lv[0].kind == 's' ? hw->bytes_crd : 0;
    int64_t word = 0, seen = 0;
    for (size_t p = 0; p < n; p++) {
        out->crd[p] = outer_crd(ft, (int64_t)p, &word, &seen);
        out->bytes[p] = own + subtree_bytes(ft, (int64_t)p, hw);
    }
    out->n = n;
    return 0;
}

int tile_fibers_build_stored(const tensor *content, const level_format *f,
                             const storage_layout *l, const hw_desc *hw, tile_fibers *out,
                             sam_error *err)
{
    memset(out, 0, sizeof *out);
    out->crd = malloc((content->nnz + 1) * sizeof *out->crd);
    out->bytes = malloc((content->nnz + 1) * sizeof *out->bytes);
    if (!out->crd || !out->bytes) {
        tile_fibers_free(out);
        return error_set(err, "out of memory");
    }
    if (storage_layout_fibers(l, f, content, hw->bytes_crd, hw->bytes_ref, hw->bytes_val,
                              out->crd, out->bytes, &out->n, err)) {
        tile_fibers_free(out);
        return -1;
    }
    return 0;
}

void tile_fibers_free(tile_fibers *f)
{
    free(f->crd);
    free(f->bytes);
    memset(f, 0, sizeof *f);
}

static int compare_crd(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* crd[0..len-1] sorted without repeats into *buf (grown to hold them):
 * how many. */
static int sorted_set(const int64_t *crd, size_t len, int64_t **buf, size_t *room, size_t *n,
                      sam_error *err)
{
    if (len > *room) {
        int64_t *b = realloc(*buf, len * sizeof *b);
        if (!b)
            return error_set(err, "out of memory");
        *buf = b;
        *room = len;
    }
    if (len)
        memcpy(*buf, crd, len * sizeof *crd);
    qsort(*buf, len, sizeof **buf, compare_crd);
    size_t kept = 0;
    for (size_t i = 0; i < len; i++)
        if (!kept || (*buf)[kept - 1] != (*buf)[i])
            (*buf)[kept++] = (*buf)[i];
    *n = kept;
    return 0;
}

/* t->set keeps what t->other also has (both sorted). */
static void intersect(fiber_touch *t, size_t nother)
{
    size_t kept = 0;
    for (size_t i = 0, j = 0; i < t->nset && j < nother;) {
        if (t->set[i] < t->other[j])
            i++;
        else if (t->set[i] > t->other[j])
            j++;
        else
            t->set[kept++] = t->set[i++], j++;
    }
    t->nset = kept;
}

/* The fiber of f at coordinate c, or -1. */
static int64_t find_fiber(const tile_fibers *f, int64_t c)
{
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->crd[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->n && f->crd[lo] == c ? (int64_t)lo : -1;
}

static int add_fiber(fiber_touch *t, const tile_fibers *f, int64_t tile, size_t k,
                     sam_error *err)
{
    mem_fiber *g = grow_array(t->fiber, t->n, &t->room, sizeof *g, 64);
    if (!g)
        return error_set(err, "out of memory");
    t->fiber = g;
    t->fiber[t->n++] = (mem_fiber){tile, f->crd[k], f->bytes[k]};
    return 0;
}

int fiber_touch_select(fiber_touch *t, const tile_fibers *f, int64_t tile,
                       const int64_t *const *crd, const size_t *len, int nsets, sam_error *err)
{
    t->n = 0;
    if (nsets == 0) {
        for (size_t k = 0; k < f->n; k++)
            if (add_fiber(t, f, tile, k, err))
                return -1;
        return 0;
    }
    if (sorted_set(crd[0], len[0], &t->set, &t->setroom, &t->nset, err))
        return -1;
    for (int s = 1; s < nsets && t->nset; s++) {
        size_t nother;
        if (sorted_set(crd[s], len[s], &t->other, &t->otherroom, &nother, err))
            return -1;
        intersect(t, nother);
    }
    for (size_t i = 0; i < t->nset; i++) {
        int64_t k = find_fiber(f, t->set[i]);
        if (k >= 0 && add_fiber(t, f, tile, (size_t)k, err))
            return -1;
    }
    return 0;
}

void fiber_touch_free(fiber_touch *t)
{
    free(t->fiber);
    free(t->set);
    free(t->other);
    memset(t, 0, sizeof *t);
}
