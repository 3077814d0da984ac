/* FROSTT .tns files: one entry a line, N 1-based indices then the value,
 * '#' comments and blank lines. The order comes from the first entry and the
 * dimensions from the largest index of each mode, unless given. samsim also
 * writes a "# shape: D1 D2 ..." comment and honours it when reading, so that
 * trailing empty slices and empty tensors survive a round trip; other tools
 * ignore it as a comment. */
#ifndef SAMSIM_TNS_H
#define SAMSIM_TNS_H

#include "../common/error.h"
#include "tensor.h"

/* order > 0 gives the expected order and dims; otherwise they are inferred.
 * Entries come back in file order. */
int tns_read(const char *path, int order, const int64_t *dims, tensor *out, sam_error *err);
int tns_write(const char *path, const tensor *t, sam_error *err);

#endif
