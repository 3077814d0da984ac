#include "fuzz_input.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../formats/fibertree.h"

int fuzz_dir_open(fuzz_dir *d)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(d->path, sizeof d->path, "%s/samsim-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(d->path) ? 0 : -1;
}

int fuzz_dir_write(const fuzz_dir *d, const char *name, const uint8_t *data, size_t size,
                   char *path, size_t n)
{
    snprintf(path, n, "%s/%s", d->path, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t written = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && written == size ? 0 : -1;
}

void fuzz_dir_close(fuzz_dir *d)
{
    DIR *dir = opendir(d->path);
    char path[512];
    for (struct dirent *e; dir && (e = readdir(dir));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", d->path, e->d_name);
        unlink(path);
    }
    if (dir)
        closedir(dir);
    rmdir(d->path);
}

void fuzz_with_file(const char *name, const uint8_t *data, size_t size,
                    void (*read_file)(const char *path))
{
    fuzz_dir d;
    char path[512];
    if (fuzz_dir_open(&d))
        abort();
    if (fuzz_dir_write(&d, name, data, size, path, sizeof path) == 0)
        read_file(path);
    fuzz_dir_close(&d);
}

void fuzz_silenced(void (*fn)(void *ctx), void *ctx)
{
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY);
    if (out < 0 || err < 0 || null < 0)
        abort();
    dup2(null, 1);
    dup2(null, 2);
    close(null);
    fn(ctx);
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
}

void fuzz_limits(void)
{
    setenv(FIBERTREE_DENSE_ENV, "4096", 1);
}

/* Building and converting by taking the arrays (what a run does) must
 * give what building and converting by copying gives. */
static void take_as(const tensor *t, const level_format *f, const fibertree *ft,
                    const tensor *back)
{
    tensor copy, taken_back;
    fibertree taken;
    sam_error err;
    if (tensor_copy(&copy, t, &err) || fibertree_build_taking(&copy, f, &taken, &err) ||
        !fibertree_equal(&taken, ft) || fibertree_to_tensor_taking(&taken, &taken_back, &err))
        abort();
    if (!tensor_equal(&taken_back, back))
        abort();
    tensor_free(&taken_back);
    tensor_free(&copy);
}

/* Building by taking refuses what building refuses, with its message. */
static void take_refused(const tensor *t, const level_format *f, const char *message)
{
    tensor copy;
    fibertree taken;
    sam_error err;
    if (tensor_copy(&copy, t, &err) || !fibertree_build_taking(&copy, f, &taken, &err) ||
        strcmp(err.msg, message))
        abort();
    tensor_free(&copy);
}

/* Compressed, bitvector and linked-list levels keep every entry, explicit
 * zeros included, so the round trip through them must give the tensor back
 * exactly. */
static void store_as(const tensor *t, const level_format *f, int exact)
{
    fibertree ft;
    tensor back;
    sam_error err;
    if (fibertree_build(t, f, &ft, &err)) {
        take_refused(t, f, err.msg);
        return;
    }
    if (fibertree_validate(&ft, &err) || fibertree_to_tensor(&ft, &back, &err))
        abort();
    if (exact && !tensor_equal(t, &back))
        abort();
    take_as(t, f, &ft, &back);
    tensor_free(&back);
    fibertree_free(&ft);
}

void fuzz_store_tensor(const tensor *t)
{
    level_format f;
    level_format_default(t->order, &f);
    store_as(t, &f, 1);
    for (int k = 0; k < t->order; k++)
        f.mode[k] = t->order - 1 - k;
    store_as(t, &f, 0);
    for (int k = 0; k < t->order; k++)
        f.kind[k] = k % 2 ? 's' : 'd';
    store_as(t, &f, 0);
    for (int k = 0; k < t->order; k++)
        f.kind[k] = 'd';
    store_as(t, &f, 0);
    /* Bitvector and linked-list levels keep explicit zeros as well. */
    level_format_default(t->order, &f);
    for (int k = 0; k < t->order; k++)
        f.kind[k] = k % 2 ? 'b' : 'l';
    store_as(t, &f, 1);
    for (int k = 0; k < t->order; k++)
        f.kind[k] = k % 2 ? 'l' : 'b';
    store_as(t, &f, 1);
}

void fuzz_read_tensor(tensor_file *f)
{
    tensor t;
    sam_error err;
    if (tensor_file_read(f, &t, &err) == 0) {
        fuzz_store_tensor(&t);
        tensor_free(&t);
    }
}
