#include "test_grb.h"

#include <math.h>
#include <stdlib.h>

#include "../formats/tensor_file.h"
#include "test_util.h"

tensor test_read_tensor(const char *path)
{
    tensor t;
    sam_error err;
    tensor_file f = {.path = path};
    if (tensor_file_read(&f, &t, &err))
        fail_msg("%s", err.msg);
    return t;
}

GrB_Matrix grb_matrix(const tensor *t)
{
    GrB_Matrix m;
    GrB_Index *r = malloc(t->nnz * sizeof *r + 8), *c = malloc(t->nnz * sizeof *c + 8);
    for (size_t e = 0; e < t->nnz; e++) {
        r[e] = (GrB_Index)t->crd[0][e];
        c[e] = (GrB_Index)(t->order > 1 ? t->crd[1][e] : 0);
    }
    GrB_Index cols = t->order > 1 ? (GrB_Index)t->dims[1] : 1;
    assert_int_equal(GrB_Matrix_new(&m, GrB_FP64, (GrB_Index)t->dims[0], cols), GrB_SUCCESS);
    if (t->nnz)
        assert_int_equal(GrB_Matrix_build_FP64(m, r, c, t->vals, t->nnz, GrB_PLUS_FP64),
                         GrB_SUCCESS);
    free(r), free(c);
    return m;
}

void grb_expect_equal(const tensor *x, GrB_Matrix want)
{
    size_t nonzeros = 0;
    for (size_t e = 0; e < x->nnz; e++) {
        double v = 0;
        GrB_Index col = (GrB_Index)(x->order > 1 ? x->crd[1][e] : 0);
        GrB_Info info = GrB_Matrix_extractElement_FP64(&v, want, (GrB_Index)x->crd[0][e], col);
        assert_true(info == GrB_SUCCESS || info == GrB_NO_VALUE);
        if (fabs(v - x->vals[e]) > 1e-9 * fmax(fabs(v), fabs(x->vals[e])))
            fail_msg("entry %zu: simulated %.17g, GraphBLAS %.17g", e, x->vals[e], v);
        nonzeros += x->vals[e] != 0;
    }
    GrB_Index nvals;
    GrB_Matrix_nvals(&nvals, want);
    GrB_Index *r = malloc(nvals * sizeof *r + 8), *c = malloc(nvals * sizeof *c + 8);
    double *v = malloc(nvals * sizeof *v + 8);
    GrB_Index n = nvals;
    assert_int_equal(GrB_Matrix_extractTuples_FP64(r, c, v, &n, want), GrB_SUCCESS);
    size_t want_nonzeros = 0;
    for (GrB_Index k = 0; k < n; k++)
        want_nonzeros += v[k] != 0;
    assert_int_equal(nonzeros, want_nonzeros);
    free(r), free(c), free(v);
}

int grb_setup(void **state)
{
    (void)state;
    return GrB_init(GrB_NONBLOCKING) == GrB_SUCCESS ? 0 : -1;
}

int grb_teardown(void **state)
{
    (void)state;
    return GrB_finalize() == GrB_SUCCESS ? 0 : -1;
}
