/* realpath is an XSI function. */
#define _XOPEN_SOURCE 700

#include "outputs.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "../formats/mtx.h"
#include "../formats/tns.h"

/* The absolute path of path, resolving symbolic links in the parts that
 * exist; the path as given when even its directory does not. */
static void resolve(const char *path, char out[PATH_MAX])
{
    if (realpath(path, out))
        return;
    char dir[PATH_MAX], base[PATH_MAX], real_dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    snprintf(base, sizeof base, "%s", path);
    if (realpath(dirname(dir), real_dir))
        snprintf(out, PATH_MAX, "%.*s/%s", PATH_MAX / 2, real_dir, basename(base));
    else
        snprintf(out, PATH_MAX, "%s", path);
}

/* Whether a and b are one file: the same inode when both exist (hard
 * links, symbolic links), else the same resolved path. */
static int same_path(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ra[PATH_MAX], rb[PATH_MAX];
    resolve(a, ra);
    resolve(b, rb);
    return !strcmp(ra, rb);
}

static int collide(const io_file *a, const io_file *b)
{
    if (!a->path || !b->path)
        return 0;
    int a_out = !strcmp(a->path, "-"), b_out = !strcmp(b->path, "-");
    if (a_out || b_out)
        return a_out && b_out;
    if (atomic_file_special(a->path) || !same_path(a->path, b->path))
        return 0;
    int samdir = tensor_file_kind_of(a->path) == TENSOR_FILE_SAMDIR;
    return !samdir || !a->tensor || !b->tensor || !strcmp(a->tensor, b->tensor);
}

static int refuse(const char *cmd, const io_file *out, const io_file *other, const char *what,
                  sam_error *err)
{
    return error_set(err, "%s: %s '%s' is the same file as %s %s '%s'", cmd, out->role,
                     out->path, what, other->role, other->path);
}

int outputs_check(const char *cmd, const io_file *in, int nin, const io_file *out, int nout,
                  sam_error *err)
{
    for (int o = 0; o < nout; o++) {
        for (int i = 0; i < nin; i++)
            if (collide(&out[o], &in[i]))
                return refuse(cmd, &out[o], &in[i], "the input", err);
        for (int p = 0; p < o; p++)
            if (collide(&out[o], &out[p]))
                return refuse(cmd, &out[o], &out[p], "the output", err);
    }
    return 0;
}

int outputs_write_tensor(const tensor_file *f, const tensor *t, sam_error *err)
{
    if (strcmp(f->path, "-"))
        return tensor_file_write(f, t, err);
    if (f->format)
        return error_set(err, "a level format (%s) applies only to SAM directories, not to "
                         "standard output", f->format);
    return t->order == 2 ? mtx_write("-", t, err) : tns_write("-", t, err);
}

void outputs_remove(const char *path)
{
    struct stat st;
    if (path && strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode))
        unlink(path);
}

void outputs_record_result(outcome *rec, const char *name, const char *out, size_t nnz)
{
    if (out)
        outcome_set(rec, "result", "%s written to %s", name,
                    strcmp(out, "-") ? out : "standard output");
    else
        outcome_set(rec, "result", "%s, %zu nonzeros, not written (-o FILE writes it)", name,
                    nnz);
}
