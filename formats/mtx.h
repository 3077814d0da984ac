/* Matrix Market coordinate files: real, integer and pattern fields (pattern
 * entries read as 1); general, symmetric and skew-symmetric storage, the
 * latter two expanded to both triangles. Written as real general. */
#ifndef SAMSIM_MTX_H
#define SAMSIM_MTX_H

#include "../common/error.h"
#include "tensor.h"

/* Entries come back in file order (after expansion), not canonical. */
int mtx_read(const char *path, tensor *out, sam_error *err);
int mtx_write(const char *path, const tensor *t, sam_error *err);

#endif
