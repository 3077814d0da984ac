/* The storage of the dense reducers (spaccumulator and vectorreducer impl
 * "dense"): a dense array of values indexed by (row, column) with an
 * occupancy bitmap beside it, as hardware keeps a dense accumulator. An
 * update is one read-modify-write of the slot, O(1) whatever the fiber
 * holds. Reading out walks the bitmap in coordinate order (row-major, each
 * row padded to whole bitmap words) with a priority encoder over one word
 * of `scan` slots a cycle: a word holding k entries costs k cycles, one per
 * entry, and a word holding none costs one cycle, so a read-out takes
 *
 *     entries + empty words between the first and the last entry's word
 *
 * cycles. The scan starts at the first touched word (the array tracks its
 * smallest touched row) and stops after the last entry (it counts the
 * entries), so untouched words beyond either end cost nothing. Reading
 * clears each slot it emits, so the array is empty again, without a
 * clearing pass, once read out.
 *
 * The simulator allocates each row when first touched, sized to the
 * column dimension when known and otherwise grown to the largest column
 * seen; points are never added while a read-out is under way. */
#ifndef SAMSIM_DENSE_ACC_H
#define SAMSIM_DENSE_ACC_H

#include <stddef.h>
#include <stdint.h>

#include "../engine/block.h"

/* More slots than this in one array is refused: such a dense accumulator
 * is no design to simulate (use the sparse implementation). A block's
 * arrays are held to the dense limit besides (dense_acc_bound). */
#define DENSE_ACC_MAX_SLOTS ((int64_t)1 << 26)

typedef struct dense_row {
    double *val;
    uint64_t *bits;         /* occupancy, one bit a slot */
    int64_t cap;            /* slots allocated; 0: never touched */
} dense_row;

typedef struct dense_acc {
    int64_t row_dim, col_dim;   /* 0: unknown, the array grows */
    int64_t scan;               /* bitmap slots inspected per cycle */
    dense_row *rows;
    int64_t nrows;              /* entries of rows[] */
    int64_t slots;              /* allocated over every row */
    int64_t max_slots;          /* slots, and rows, it may grow to */
    size_t entries;
    int64_t first_row, last_col;    /* smallest touched row, largest touched column */
    int64_t next_r, next_c;     /* read-out: the entry emitted next */
    int64_t wait;               /* read-out: empty words to pass first */
    int reading;
} dense_acc;

typedef enum { DENSE_IDLE, DENSE_SCAN, DENSE_ENTRY } dense_acc_out;

/* An empty array of the given dimensions (0: unknown). */
void dense_acc_init(dense_acc *a, int64_t row_dim, int64_t col_dim, int64_t scan);

/* Refuses (err set) n arrays of a's dimensions, which a block keeps, when
 * they hold more slots than the dense limit (block_dense_limit): the
 * hardware holds every slot of its declared dimensions, and a file of a
 * few bytes may declare any, as a dense level may be refused. Arrays of a
 * dimension not known then each grow to their share of the limit. */
int dense_acc_bound(dense_acc *a, int n, const block *b, const block_ctx *ctx, sam_error *err);

/* Adds v to slot (r, c): 0, -1 out of memory, or 1 with *fault set (a
 * coordinate beyond the dimensions, or an array too large). */
int dense_acc_add(dense_acc *a, int64_t r, int64_t c, double v, const char **fault);

/* One cycle of read-out: DENSE_ENTRY with the next entry, DENSE_SCAN for a
 * cycle spent on an empty word, DENSE_IDLE when the array is empty. */
dense_acc_out dense_acc_read(dense_acc *a, int64_t *r, int64_t *c, double *v);

/* The n arrays a block keeps, empty again for another run (block_ops.rearm)
 * with dimensions row_dim x col_dim (0: unknown) and bound anew
 * (dense_acc_bound) for the data ctx binds: as dense_acc_init and
 * dense_acc_bound leave them, but for the rows of a known size allocated
 * before, which are kept where the bound lets every row be allocated (so
 * that no fault differs). */
int dense_acc_rearm(dense_acc *a, int n, int64_t row_dim, int64_t col_dim, const block *b,
                    const block_ctx *ctx, sam_error *err);

void dense_acc_free(dense_acc *a);

/* The dimension of index variable idx: that of a mode some fiberlookup of
 * the graph scans under idx, in a tensor bound to data; 0 when none is. */
int64_t dense_acc_index_dim(const block_ctx *ctx, const char *idx);

#endif
