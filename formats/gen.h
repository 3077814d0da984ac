/* Synthetic tensors: uniformly random, the runs and blocks vector pairs of
 * the SAM paper (section 6.3, Figure 17), power-law R-MAT matrices, and the
 * regular shapes (banded, identity, dense). Each generator initialises out
 * itself and returns it canonical (natural order, no duplicates); on error
 * nothing is left allocated. Randomness comes only from the seed, so equal
 * arguments give identical tensors on every machine. */
#ifndef SAMSIM_GEN_H
#define SAMSIM_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "tensor.h"

/* Exactly nnz distinct positions chosen uniformly, values uniform in (0,1]. */
int gen_urandom(tensor *out, int order, const int64_t *dims, size_t nnz, uint64_t seed,
                sam_error *err);

/* round(density * volume), the nnz that gen_urandom takes for a density. */
int gen_nnz_for_density(int order, const int64_t *dims, double density, size_t *nnz,
                        sam_error *err);

/* Two vectors of length size with nnz nonzeros each: a run of run_length
 * nonzeros in a that b lacks, one coordinate both have, a run in b that a
 * lacks, one shared coordinate, and so on from coordinate 0. Values are
 * integers 1..1000. */
int gen_runs(tensor *a, tensor *b, int64_t size, size_t nnz, int64_t run_length,
             uint64_t seed, sam_error *err);

/* Two vectors of length size with nnz nonzeros each, in dense blocks of
 * block_len (the last may be shorter): a's blocks lie at uniformly random
 * places with gaps wide enough that b's blocks, each shifted from a's by a
 * random amount within +-block_len/2, neither overlap nor touch. Values are
 * integers 1..1000. */
int gen_blocks(tensor *a, tensor *b, int64_t size, size_t nnz, int64_t block_len,
               uint64_t seed, sam_error *err);

/* A rows x cols R-MAT matrix (Chakrabarti, Zhan and Faloutsos 2004) with
 * exactly nnz distinct entries: each position descends the power-of-two
 * grid covering the matrix, taking the top-left, top-right, bottom-left or
 * bottom-right quadrant with probability a, b, c or 1-a-b-c; positions
 * outside the matrix and repeated positions are drawn again. Values are
 * uniform in (0,1]. */
int gen_rmat(tensor *out, int64_t rows, int64_t cols, size_t nnz, double a, double b,
             double c, uint64_t seed, sam_error *err);

/* Every (i,j) with -lower <= j-i <= upper, values uniform in (0,1]. */
int gen_banded(tensor *out, int64_t rows, int64_t cols, int64_t lower, int64_t upper,
               uint64_t seed, sam_error *err);

/* The n x n identity matrix. */
int gen_identity(tensor *out, int64_t n, sam_error *err);

/* Every position, values uniform in (0,1]. */
int gen_dense(tensor *out, int order, const int64_t *dims, uint64_t seed, sam_error *err);

#endif
