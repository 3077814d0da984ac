/* A sparse tensor as a list of coordinates and values (COO), the form in
 * which every file format is read and written and every generator builds.
 * Storage is one array per mode plus one of values, so that sorting by any
 * mode order touches only the keys it needs. */
#ifndef SAMSIM_TENSOR_H
#define SAMSIM_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

#define TENSOR_MAX_ORDER 8

typedef struct tensor {
    int order;                          /* 0 (a scalar) .. TENSOR_MAX_ORDER */
    int64_t dims[TENSOR_MAX_ORDER];
    size_t nnz;
    size_t cap;
    int64_t *crd[TENSOR_MAX_ORDER];     /* crd[m][e]: mode-m coordinate of entry e */
    double *vals;
} tensor;

/* An empty tensor of the given order and dimensions (dims may be NULL for
 * order 0). A scalar holds exactly one entry once one is appended. */
int tensor_init(tensor *t, int order, const int64_t *dims, sam_error *err);
void tensor_free(tensor *t);

/* Frees t's entries, keeping its order and dimensions: a tensor whose
 * entries live elsewhere now (stored as levels) that is still checked
 * against the others' sizes. */
void tensor_drop_entries(tensor *t);

/* Makes room for at least cap entries in total. */
int tensor_reserve(tensor *t, size_t cap, sam_error *err);

/* The growth under it, for any table of n coordinate columns and a value
 * column (the reference evaluator's too): each reallocated to cap
 * entries, contents kept; -1 when memory runs out, the columns grown so
 * far then grown and every one still valid. */
int tensor_columns_reserve(int64_t **crd, int n, double **vals, size_t cap);

/* Appends one entry; coordinates are not checked against dims here (the
 * readers check them where they know the file and line). */
int tensor_append(tensor *t, const int64_t *coords, double value, sam_error *err);

/* Sorts entries lexicographically by the modes in mode_order (the first is
 * the most significant) and sums entries with equal coordinates. Explicit
 * zeros stay entries. mode_order NULL means the natural order 0,1,... */
int tensor_canonicalize(tensor *t, const int *mode_order, sam_error *err);

/* The sort of tensor_canonicalize alone (stable: entries with equal
 * coordinates keep their order, none is summed). */
int tensor_sort(tensor *t, const int *mode_order, sam_error *err);

/* Whether the entries are in order by mode_order (NULL: natural); when
 * strictly, no two in a row with the same coordinates either. */
int tensor_is_sorted(const tensor *t, const int *mode_order, int strictly);

/* The permutation that visits entries sorted by mode_order (stable), without
 * moving them. perm must hold t->nnz entries. */
int tensor_sort_perm(const tensor *t, const int *mode_order, size_t *perm, sam_error *err);

/* 1 when dims, entries and values are identical (values compared exactly,
 * entry order included). */
int tensor_equal(const tensor *a, const tensor *b);

/* A deep copy. */
int tensor_copy(tensor *dst, const tensor *src, sam_error *err);

/* Number of positions of the dense tensor, as a double (may exceed 2^64). */
double tensor_volume(const tensor *t);

#endif
