#include "tensor.h"

#include <stdlib.h>
#include <string.h>

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

int tensor_init(tensor *t, int order, const int64_t *dims, sam_error *err)
{
    memset(t, 0, sizeof *t);
    if (order < 0 || order > TENSOR_MAX_ORDER)
        return error_set(err, "tensor order %d is outside 0..%d", order, TENSOR_MAX_ORDER);
    t->order = order;
    for (int m = 0; m < order; m++) {
        if (dims[m] < 0)
            return error_set(err, "negative dimension %lld", (long long)dims[m]);
        t->dims[m] = dims[m];
    }
    return 0;
}

void tensor_free(tensor *t)
{
    for (int m = 0; m < TENSOR_MAX_ORDER; m++)
        free(t->crd[m]);
    free(t->vals);
    memset(t, 0, sizeof *t);
}

int tensor_columns_reserve(int64_t **crd, int n, double **vals, size_t cap)
{
    for (int m = 0; m < n; m++) {
        int64_t *c = realloc(crd[m], cap * sizeof *c);
        if (!c)
            return -1;
        crd[m] = c;
    }
    double *v = realloc(*vals, cap * sizeof *v);
    if (!v)
        return -1;
    *vals = v;
    return 0;
}

void tensor_drop_entries(tensor *t)
{
    for (int m = 0; m < TENSOR_MAX_ORDER; m++) {
        free(t->crd[m]);
        t->crd[m] = NULL;
    }
    free(t->vals);
    t->vals = NULL;
    t->nnz = t->cap = 0;
}

int tensor_reserve(tensor *t, size_t cap, sam_error *err)
{
    if (cap <= t->cap)
        return 0;
    if (tensor_columns_reserve(t->crd, t->order, &t->vals, cap))
        return error_set(err, "out of memory for %zu entries", cap);
    t->cap = cap;
    return 0;
}

int tensor_append(tensor *t, const int64_t *coords, double value, sam_error *err)
{
    if (t->nnz == t->cap && tensor_reserve(t, t->cap ? t->cap * 2 : 16, err))
        return -1;
    for (int m = 0; m < t->order; m++)
        t->crd[m][t->nnz] = coords[m];
    t->vals[t->nnz++] = value;
    return 0;
}

static void natural_order(int order, int *out)
{
    for (int m = 0; m < order; m++)
        out[m] = m;
}

/* Compares entries a and b by mode_order: <0, 0, >0. */
static int entry_cmp(const tensor *t, const int *mode_order, size_t a, size_t b)
{
    for (int k = 0; k < t->order; k++) {
        const int64_t *c = t->crd[mode_order[k]];
        if (c[a] != c[b])
            return c[a] < c[b] ? -1 : 1;
    }
    return 0;
}

static int is_sorted(const tensor *t, const int *mode_order, int strictly)
{
    for (size_t e = 1; e < t->nnz; e++)
        if (entry_cmp(t, mode_order, e - 1, e) >= !strictly)
            return 0;
    return 1;
}

int tensor_is_sorted(const tensor *t, const int *mode_order, int strictly)
{
    int natural[TENSOR_MAX_ORDER];
    if (!mode_order) {
        natural_order(t->order, natural);
        mode_order = natural;
    }
    return is_sorted(t, mode_order, strictly);
}

static int bits_needed(const int64_t *c, size_t n)
{
    uint64_t max = 0;
    for (size_t e = 0; e < n; e++)
        if ((uint64_t)c[e] > max)
            max = (uint64_t)c[e];
    int bits = 0;
    while (max) {
        bits++;
        max >>= 1;
    }
    return bits;
}

/* One stable counting-sort pass of perm by the digit at shift of key. */
static void radix_pass(const int64_t *key, int shift, size_t n, const size_t *in, size_t *out)
{
    size_t count[RADIX_SIZE + 1] = {0};
    for (size_t i = 0; i < n; i++)
        count[(((uint64_t)key[in[i]] >> shift) & (RADIX_SIZE - 1)) + 1]++;
    for (unsigned d = 1; d <= RADIX_SIZE; d++)
        count[d] += count[d - 1];
    for (size_t i = 0; i < n; i++)
        out[count[((uint64_t)key[in[i]] >> shift) & (RADIX_SIZE - 1)]++] = in[i];
}

int tensor_sort_perm(const tensor *t, const int *mode_order, size_t *perm, sam_error *err)
{
    int natural[TENSOR_MAX_ORDER];
    if (!mode_order) {
        natural_order(t->order, natural);
        mode_order = natural;
    }
    for (size_t e = 0; e < t->nnz; e++)
        perm[e] = e;
    if (is_sorted(t, mode_order, 0))
        return 0;
    size_t *tmp = error_alloc(err, t->nnz, sizeof *tmp);
    if (!tmp)
        return -1;
    /* LSD radix sort: least significant mode first, low digits first. */
    for (int k = t->order - 1; k >= 0; k--) {
        const int64_t *key = t->crd[mode_order[k]];
        int bits = bits_needed(key, t->nnz);
        for (int shift = 0; shift < bits; shift += RADIX_BITS) {
            radix_pass(key, shift, t->nnz, perm, tmp);
            memcpy(perm, tmp, t->nnz * sizeof *perm);
        }
    }
    free(tmp);
    return 0;
}

static int gather_all(tensor *t, const size_t *perm, sam_error *err)
{
    double *v = error_alloc(err, t->nnz, sizeof *v);
    if (!v)
        return -1;
    for (size_t e = 0; e < t->nnz; e++)
        v[e] = t->vals[perm[e]];
    free(t->vals);
    t->vals = v;
    for (int m = 0; m < t->order; m++) {
        int64_t *c = error_alloc(err, t->nnz, sizeof *c);
        if (!c)
            return -1;
        for (size_t e = 0; e < t->nnz; e++)
            c[e] = t->crd[m][perm[e]];
        free(t->crd[m]);
        t->crd[m] = c;
    }
    t->cap = t->nnz;
    return 0;
}

static void sum_duplicates(tensor *t, const int *mode_order)
{
    if (t->nnz == 0)
        return;
    size_t out = 0;
    for (size_t e = 1; e < t->nnz; e++) {
        if (entry_cmp(t, mode_order, out, e) == 0) {
            t->vals[out] += t->vals[e];
            continue;
        }
        out++;
        for (int m = 0; m < t->order; m++)
            t->crd[m][out] = t->crd[m][e];
        t->vals[out] = t->vals[e];
    }
    t->nnz = out + 1;
}

int tensor_sort(tensor *t, const int *mode_order, sam_error *err)
{
    if (tensor_is_sorted(t, mode_order, 0))
        return 0;
    size_t *perm = error_alloc(err, t->nnz, sizeof *perm);
    if (!perm)
        return -1;
    int rc = tensor_sort_perm(t, mode_order, perm, err);
    if (rc == 0)
        rc = gather_all(t, perm, err);
    free(perm);
    return rc;
}

int tensor_canonicalize(tensor *t, const int *mode_order, sam_error *err)
{
    int natural[TENSOR_MAX_ORDER];
    if (!mode_order) {
        natural_order(t->order, natural);
        mode_order = natural;
    }
    if (tensor_sort(t, mode_order, err))
        return -1;
    sum_duplicates(t, mode_order);
    return 0;
}

int tensor_equal(const tensor *a, const tensor *b)
{
    if (a->order != b->order || a->nnz != b->nnz)
        return 0;
    for (int m = 0; m < a->order; m++)
        if (a->dims[m] != b->dims[m] ||
            (a->nnz && memcmp(a->crd[m], b->crd[m], a->nnz * sizeof(int64_t))))
            return 0;
    for (size_t e = 0; e < a->nnz; e++)
        if (a->vals[e] != b->vals[e])
            return 0;
    return 1;
}

int tensor_copy(tensor *dst, const tensor *src, sam_error *err)
{
    if (tensor_init(dst, src->order, src->dims, err) || tensor_reserve(dst, src->nnz, err)) {
        tensor_free(dst);
        return -1;
    }
    if (src->nnz == 0)
        return 0;
    for (int m = 0; m < src->order; m++)
        memcpy(dst->crd[m], src->crd[m], src->nnz * sizeof(int64_t));
    memcpy(dst->vals, src->vals, src->nnz * sizeof(double));
    dst->nnz = src->nnz;
    return 0;
}

double tensor_volume(const tensor *t)
{
    double v = 1.0;
    for (int m = 0; m < t->order; m++)
        v *= (double)t->dims[m];
    return v;
}
