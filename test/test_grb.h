/* Results compared with SuiteSparse:GraphBLAS, for the tests that check
 * simulated products against it, in a cmocka group run with grb_setup and
 * grb_teardown. */
#ifndef SAMSIM_TEST_GRB_H
#define SAMSIM_TEST_GRB_H

#include <GraphBLAS.h>

#include "../formats/tensor.h"

/* A cmocka group's setup and teardown: GraphBLAS started and finished. */
int grb_setup(void **state);
int grb_teardown(void **state);

/* Reads a tensor file; fails the test when it cannot. */
tensor test_read_tensor(const char *path);

/* A matrix (a vector as one column) holding t's entries. */
GrB_Matrix grb_matrix(const tensor *t);

/* Every nonzero of the simulated result x equals GraphBLAS's entry there
 * (relative 1e-9), and GraphBLAS has no nonzero x lacks. */
void grb_expect_equal(const tensor *x, GrB_Matrix want);

#endif
