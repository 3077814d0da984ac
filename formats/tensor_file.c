#include "tensor_file.h"

#include <string.h>

#include "../common/atomic_file.h"
#include "fibertree.h"
#include "mtx.h"
#include "samdir.h"
#include "tns.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

tensor_file_kind tensor_file_kind_of(const char *path)
{
    if (ends_with(path, ".mtx"))
        return TENSOR_FILE_MTX;
    if (ends_with(path, ".tns"))
        return TENSOR_FILE_TNS;
    return TENSOR_FILE_SAMDIR;
}

static int samdir_read_tensor(tensor_file *f, tensor *out, sam_error *err)
{
    char only[128];
    const char *name = f->name;
    if (!name) {
        if (samdir_only_tensor(f->path, only, sizeof only, err))
            return -1;
        name = only;
    }
    level_format fmt;
    if (f->format && level_format_parse(f->format, &fmt, err))
        return -1;
    fibertree ft;
    if (samdir_read(f->path, name, f->format ? &fmt : NULL, &ft, err))
        return -1;
    int rc = fibertree_to_tensor(&ft, out, err);
    fibertree_format(&ft, &f->stored);
    f->has_stored = 1;
    fibertree_free(&ft);
    return rc;
}

/* Options that only make sense for one kind of file are refused for the
 * others rather than silently ignored. */
static int check_applicable(const tensor_file *f, sam_error *err)
{
    tensor_file_kind kind = tensor_file_kind_of(f->path);
    if (f->format && kind != TENSOR_FILE_SAMDIR)
        return error_at(err, f->path, 0, "a level format (%s) applies only to SAM directories",
                        f->format);
    if (f->order > 0 && kind != TENSOR_FILE_TNS)
        return error_at(err, f->path, 0, "a shape can only be given for .tns files");
    return 0;
}

int tensor_file_read(tensor_file *f, tensor *out, sam_error *err)
{
    int rc;
    if (check_applicable(f, err))
        return -1;
    switch (tensor_file_kind_of(f->path)) {
    case TENSOR_FILE_MTX:
        rc = mtx_read(f->path, out, err);
        break;
    case TENSOR_FILE_TNS:
        rc = tns_read(f->path, f->order, f->dims, out, err);
        break;
    default:
        return samdir_read_tensor(f, out, err);
    }
    if (rc == 0 && (rc = tensor_canonicalize(out, NULL, err)) != 0)
        tensor_free(out);
    return rc;
}

static int samdir_write_tensor(const tensor_file *f, const tensor *t, sam_error *err)
{
    level_format fmt;
    if (f->format) {
        if (level_format_parse(f->format, &fmt, err))
            return -1;
    } else {
        level_format_default(t->order, &fmt);
    }
    fibertree ft;
    if (fibertree_build(t, &fmt, &ft, err))
        return error_prefix(err, f->path);
    int rc = samdir_write(f->path, f->name ? f->name : "B", &ft, err);
    fibertree_free(&ft);
    return rc;
}

/* A device or FIFO cannot hold a SAM directory's files, so a tensor bound
 * for one (`-o /dev/null`, a pipe) is written there as text: Matrix
 * Market for a matrix, FROSTT otherwise. */
static tensor_file_kind write_kind(const tensor_file *f, const tensor *t)
{
    tensor_file_kind kind = tensor_file_kind_of(f->path);
    if (kind == TENSOR_FILE_SAMDIR && atomic_file_special(f->path))
        return t->order == 2 ? TENSOR_FILE_MTX : TENSOR_FILE_TNS;
    return kind;
}

int tensor_file_write(const tensor_file *f, const tensor *t, sam_error *err)
{
    if (check_applicable(f, err))
        return -1;
    switch (write_kind(f, t)) {
    case TENSOR_FILE_MTX:
        return mtx_write(f->path, t, err);
    case TENSOR_FILE_TNS:
        return tns_write(f->path, t, err);
    default:
        return samdir_write_tensor(f, t, err);
    }
}
