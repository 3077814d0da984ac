#include "result_tiles.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_SLOTS 64

int result_tiles_init(result_tiles *r, const level_format *f, const int64_t *extent, double crd,
                      double ref, double val, sam_error *err)
{
    memset(r, 0, sizeof *r);
    r->format = *f;
    memcpy(r->extent, extent, (size_t)f->nlevels * sizeof *extent);
    r->crd = crd, r->ref = ref, r->val = val;
    r->slots = malloc(FIRST_SLOTS * sizeof *r->slots);
    if (!r->slots)
        return error_set(err, "out of memory");
    r->nslots = FIRST_SLOTS;
    for (size_t i = 0; i < r->nslots; i++)
        r->slots[i].id = -1;
    return 0;
}

static result_tile *find(result_tile *slots, size_t nslots, int64_t id)
{
    size_t i = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15u) & (nslots - 1);
    while (slots[i].id != -1 && slots[i].id != id)
        i = (i + 1) & (nslots - 1);
    return &slots[i];
}

/* Doubles the table once it is half full. */
static int grow_slots(result_tiles *r, sam_error *err)
{
    if (2 * (r->used + 1) <= r->nslots)
        return 0;
    size_t n = 2 * r->nslots;
    result_tile *slots = malloc(n * sizeof *slots);
    if (!slots)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < n; i++)
        slots[i].id = -1;
    for (size_t i = 0; i < r->nslots; i++)
        if (r->slots[i].id != -1)
            *find(slots, n, r->slots[i].id) = r->slots[i];
    free(r->slots);
    r->slots = slots;
    r->nslots = n;
    return 0;
}

/* The bytes of a tile with entries at[0..n-1]: per compressed level, its
 * coordinates (the distinct prefixes down to it) and seg entries (one more
 * than the distinct prefixes above); an empty tile is not written at all. */
static double tile_bytes(const result_tiles *r, const int64_t *at, size_t n)
{
    const level_format *f = &r->format;
    if (n == 0)
        return 0;
    double bytes = (double)n * r->val;
    int64_t stride = 1;
    for (int k = f->nlevels - 1; k >= 0; k--) {
        size_t above = 0, here = 0;
        int64_t below = stride * r->extent[f->mode[k]];
        for (size_t i = 0; i < n; i++) {
            here += i == 0 || at[i] / stride != at[i - 1] / stride;
            above += i == 0 || at[i] / below != at[i - 1] / below;
        }
        if (f->kind[k] == 's')
            bytes += (double)here * r->crd + (double)(above + 1) * r->ref;
        stride = below;
    }
    return bytes;
}

static int compare(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Merges the sorted new places into t, dropping repeats. */
static int merge(result_tile *t, const int64_t *add, size_t n, sam_error *err)
{
    int64_t *out = malloc((t->n + n + 1) * sizeof *out);
    if (!out)
        return error_set(err, "out of memory");
    size_t a = 0, b = 0, o = 0;
    while (a < t->n || b < n) {
        int64_t v = b == n || (a < t->n && t->at[a] <= add[b]) ? t->at[a++] : add[b++];
        if (o == 0 || out[o - 1] != v)
            out[o++] = v;
    }
    free(t->at);
    t->at = out;
    t->n = o;
    return 0;
}

int result_tiles_add(result_tiles *r, int64_t id, const tensor *part, const int64_t *offset,
                     double *before, double *after, sam_error *err)
{
    if (grow_slots(r, err))
        return -1;
    result_tile *t = find(r->slots, r->nslots, id);
    if (t->id == -1) {
        *t = (result_tile){.id = id};
        r->used++;
    }
    *before = tile_bytes(r, t->at, t->n);
    int64_t *add = malloc((part->nnz + 1) * sizeof *add);
    if (!add)
        return error_set(err, "out of memory");
    for (size_t e = 0; e < part->nnz; e++) {
        int64_t v = 0;
        for (int k = 0; k < r->format.nlevels; k++)
            v = v * r->extent[r->format.mode[k]] + offset[r->format.mode[k]] +
                part->crd[r->format.mode[k]][e];
        add[e] = v;
    }
    qsort(add, part->nnz, sizeof *add, compare);
    int rc = merge(t, add, part->nnz, err);
    free(add);
    *after = tile_bytes(r, t->at, t->n);
    return rc;
}

void result_tiles_free(result_tiles *r)
{
    for (size_t i = 0; r->slots && i < r->nslots; i++)
        if (r->slots[i].id != -1)
            free(r->slots[i].at);
    free(r->slots);
    memset(r, 0, sizeof *r);
}
