/* A tensor on disk, whatever its format: the path decides (.mtx Matrix
 * Market, .tns FROSTT, anything else a SAM level-file directory holding
 * tensor `name`). Writing is all-or-nothing: files are written under
 * temporary names and renamed into place only when complete. */
#ifndef SAMSIM_TENSOR_FILE_H
#define SAMSIM_TENSOR_FILE_H

#include "../common/error.h"
#include "level_format.h"
#include "tensor.h"

typedef enum { TENSOR_FILE_MTX, TENSOR_FILE_TNS, TENSOR_FILE_SAMDIR } tensor_file_kind;

typedef struct tensor_file {
    const char *path;
    const char *name;    /* tensor name inside a SAM directory; NULL: "B" to
                            write, the only tensor there to read */
    const char *format;  /* level format of a SAM directory ("ss01", "ds:1,0",
                            ...); NULL: all compressed to write, inferred to read */
    int order;           /* for .tns: expected order and dims when > 0 */
    int64_t dims[TENSOR_MAX_ORDER];
    int has_stored;      /* set by reading a SAM directory: its level format */
    level_format stored;
} tensor_file;

tensor_file_kind tensor_file_kind_of(const char *path);

/* Reads into an empty tensor (f is const but for has_stored and stored); on success it is canonical (sorted in the
 * natural mode order, duplicates summed). */
int tensor_file_read(tensor_file *f, tensor *out, sam_error *err);

int tensor_file_write(const tensor_file *f, const tensor *t, sam_error *err);

#endif
