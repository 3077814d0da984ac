/* A tensor in SAM level storage: one level per mode in storage order, dense
 * levels keeping only their size, compressed levels a seg array (fiber
 * boundaries, one more than the positions of the level above) and a crd
 * array, and the values following the last level. This is exactly what the
 * SAM tools keep in their level files (SAM-BLOCKS.md section 4). Two level
 * kinds of the SAM paper go beyond those tools: bitvector levels (section
 * 4.3), a bit per coordinate, and linked-list levels (OuterSPACE's, Fig.
 * 16), which a writer fills in whatever order coordinates arrive. */
#ifndef SAMSIM_FIBERTREE_H
#define SAMSIM_FIBERTREE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "level_format.h"
#include "tensor.h"

/* Dense storage beyond this many positions is refused rather than
 * attempted, whatever the limit below says: it bounds products of
 * dimensions well away from overflow. */
#define FIBERTREE_MAX_DENSE ((int64_t)1 << 34)

/* The positions fibertree_build gives dense levels by default: at least
 * FIBERTREE_DEFAULT_DENSE (64 MiB of values), and FIBERTREE_DENSE_PER_ENTRY
 * per entry of the tensor. A file of a few bytes may declare any shape, and
 * storing it densely must not take gigabytes; a real tensor stored densely
 * takes what its shape needs (the sparsest shared matrix stored densely,
 * add32, needs 1,030 positions an entry). The environment variable
 * FIBERTREE_DENSE_ENV sets the limit instead. */
#define FIBERTREE_DEFAULT_DENSE ((int64_t)1 << 23)
#define FIBERTREE_DENSE_PER_ENTRY 4096
#define FIBERTREE_DENSE_ENV "SAMSIM_MAX_DENSE"

/* The dense limit in force for a tensor of nnz entries: FIBERTREE_DENSE_ENV
 * when set (a whole number 1..FIBERTREE_MAX_DENSE, else an error), else the
 * default above. */
int fibertree_dense_limit(size_t nnz, int64_t *limit, sam_error *err);

typedef struct fiber_level {
    char kind;          /* 'd', 's', 'b' or 'l' (level_format.h) */
    int mode;           /* tensor mode stored here */
    int64_t dim;
    /* 's': fiber boundaries, nseg = positions above + 1. 'b': the same
     * meaning, where each fiber's children begin: the popcounts of the
     * fibers before it. */
    int64_t *seg;
    size_t nseg;
    /* 's': the coordinates. 'l': each node's coordinate, nodes numbered in
     * the order they were made. For 's', 'b' and 'l', ncrd is the number
     * of positions of the level (coordinates, set bits, nodes). */
    int64_t *crd;
    size_t ncrd;
    /* 'b': per fiber, ceil(dim / 64) words; coordinate c is bit c % 64 of
     * the fiber's word c / 64, and bits at or beyond dim are 0. */
    uint64_t *bits;
    size_t nbits;
    /* 'l': per fiber (nhead = positions above), its first node or -1 when
     * empty; per node (ncrd of them), the next node of its fiber or -1.
     * A fiber's nodes go in increasing coordinate order, and node n's
     * children are position n of the level below. */
    int64_t *head;
    size_t nhead;
    int64_t *next;
} fiber_level;

typedef struct fibertree {
    int order;
    int64_t dims[TENSOR_MAX_ORDER];         /* by tensor mode */
    fiber_level lv[TENSOR_MAX_ORDER];       /* by storage level */
    double *vals;
    size_t nvals;
} fibertree;

/* Stores t (any entry order, no duplicate coordinates) in format f, whose
 * number of levels must equal t's order. Refuses entries outside t's dims
 * and dense levels beyond fibertree_dense_limit. */
int fibertree_build(const tensor *t, const level_format *f, fibertree *out, sam_error *err);

/* fibertree_build for a tensor that is not needed afterwards: its
 * entries (sorted in place first when they are not in storage order)
 * become the levels where they can, a compressed last level keeping the
 * coordinate column and the values as they are, so that the tensor and
 * its tree are not both held whole. t keeps its order and dimensions but
 * no entries, whether or not the build succeeds. */
int fibertree_build_taking(tensor *t, const level_format *f, fibertree *out, sam_error *err);

/* The entries back as a canonical tensor. Positions that only exist because
 * a dense level lies below the last compressed one are padding, so those
 * holding 0 are not entries; explicit zeros under compressed levels are. */
int fibertree_to_tensor(const fibertree *ft, tensor *out, sam_error *err);

/* fibertree_to_tensor for a tree not needed afterwards: a tree of
 * compressed levels hands its last level's coordinates and its values to
 * the tensor as they are. ft is freed whether or not it succeeds. */
int fibertree_to_tensor_taking(fibertree *ft, tensor *out, sam_error *err);

/* Number of positions of level k (fibers' elements), which is the number
 * of fibers of level k+1 and, for the last level, the number of values. */
int64_t fibertree_positions(const fibertree *ft, int k);

/* What a level holds: fibers (one per position above), how many are not
 * empty, and the mean (over non-empty fibers) and largest fiber length. */
typedef struct level_stats {
    int64_t fibers, nonempty, max_len;
    double mean_len;
} level_stats;

void fibertree_level_stats(const fibertree *ft, int k, level_stats *st);

/* Refuses, as fibertree_build does, a tree whose dense levels would hold
 * more than limit positions or whose bitvector levels more than limit
 * words, by their shape: for a tree others filled (a run's result), whose
 * dense levels cost what their shape says to walk. */
int fibertree_check_dense(const fibertree *ft, int64_t limit, sam_error *err);

/* Checks that the arrays fit together (seg lengths follow the level above,
 * seg is non-decreasing and ends at the crd count, coordinates lie within
 * their dimension, values match the last level's positions). A 'b' level:
 * ceil(dim / 64) words a fiber, no bit at or beyond dim, seg the popcount
 * prefix of the words. An 'l' level: a head per fiber, every head and next
 * -1 or a node, each list in strictly increasing coordinate order, every
 * node in exactly one list once (so no list is cyclic). */
int fibertree_validate(const fibertree *ft, sam_error *err);

/* What the tree takes in storage: crd bytes a coordinate of a compressed
 * level, ref bytes a seg entry, val bytes a value (dense levels store
 * nothing of their own). A bitvector level costs its 64-bit words, 8 bytes
 * each: its popcount prefix is not counted, since hardware reading the
 * fibers in order sums it from the words as they pass (the scanner's ref
 * stream), as a dense level's positions are computed. A linked-list level
 * costs a ref per list (the head of a fiber that has nodes) and a crd and a
 * ref per node (the coordinate and the next pointer): a fiber without nodes
 * has no list, as the writer keeps heads only for the fibers it appends to
 * and storage_layout_bytes counts them (layout.h), so a tensor's lists cost
 * the same written and read. */
double fibertree_bytes(const fibertree *ft, double crd, double ref, double val);

/* The share of fibertree_bytes that level k takes. */
double fibertree_level_bytes(const fibertree *ft, int k, double crd, double ref);

/* 1 when both trees hold the same levels, arrays and values (compared
 * bit for bit). */
int fibertree_equal(const fibertree *a, const fibertree *b);

void fibertree_format(const fibertree *ft, level_format *f);
void fibertree_free(fibertree *ft);

#endif
