#include "samdir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "text_out.h"
#include "text_scan.h"

/* The arrays of one tensor as found on disk, by tensor mode. */
typedef struct samdir_files {
    int order;
    int64_t *shape;
    size_t nshape;
    int has_crd[TENSOR_MAX_ORDER], has_bv[TENSOR_MAX_ORDER];
    int64_t *seg[TENSOR_MAX_ORDER], *crd[TENSOR_MAX_ORDER], *bv[TENSOR_MAX_ORDER];
    size_t nseg[TENSOR_MAX_ORDER], ncrd[TENSOR_MAX_ORDER], nbv[TENSOR_MAX_ORDER];
    double *vals;
    size_t nvals;
} samdir_files;

static void file_path(char *buf, size_t n, const char *dir, const char *name, int mode,
                      const char *what)
{
    if (mode < 0)
        snprintf(buf, n, "%s/tensor_%s_mode_%s", dir, name, what);
    else
        snprintf(buf, n, "%s/tensor_%s_mode_%d_%s", dir, name, mode, what);
}

/* Reads a file of one number per line into a growing array of elem-sized
 * items, parsed by scan_int64 (elem 8, integers) or scan_double. */
static int read_numbers(const char *path, int integers, void **out, size_t *count,
                        sam_error *err)
{
    text_scan s;
    *out = NULL;
    *count = 0;
    if (scan_open(&s, path, err))
        return -1;
    size_t cap = 1, n = 0;
    for (const char *q = s.buf; (q = memchr(q, '\n', s.len - (size_t)(q - s.buf))); q++)
        cap++;
    char *arr = malloc(cap * 8);
    int rc = arr ? 0 : error_set(err, "out of memory reading %s", path);
    while (rc == 0 && !scan_at_eof(&s) && !scan_line_blank(&s)) {
        rc = integers ? scan_int64(&s, (int64_t *)(void *)(arr + n * 8), "an integer", err)
                      : scan_double(&s, (double *)(void *)(arr + n * 8), "a value", err);
        if (rc == 0)
            rc = scan_end_line(&s, err);
        n++;
    }
    while (rc == 0 && !scan_at_eof(&s)) {
        if (!scan_line_blank(&s))
            rc = scan_error(&s, err, "a number after a blank line");
        scan_next_line(&s);
    }
    scan_close(&s);
    if (rc) {
        free(arr);
        return -1;
    }
    *out = arr;
    *count = n;
    return 0;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void files_free(samdir_files *fs)
{
    free(fs->shape);
    for (int m = 0; m < TENSOR_MAX_ORDER; m++) {
        free(fs->seg[m]);
        free(fs->crd[m]);
        free(fs->bv[m]);
    }
    free(fs->vals);
}

/* A mode's files: seg and crd for a compressed level, seg and bv (the
 * words of a bitvector level) for a bitvector one, none for a dense one. */
static int read_mode_files(const char *dir, const char *name, samdir_files *fs, int m,
                           sam_error *err)
{
    char seg_path[4096], crd_path[4096], bv_path[4096];
    file_path(seg_path, sizeof seg_path, dir, name, m, "seg");
    file_path(crd_path, sizeof crd_path, dir, name, m, "crd");
    file_path(bv_path, sizeof bv_path, dir, name, m, "bv");
    int has_seg = file_exists(seg_path), has_crd = file_exists(crd_path);
    int has_bv = file_exists(bv_path);
    if (has_crd && has_bv)
        return error_at(err, bv_path, 0, "beside %s: a level is compressed or a bitvector, "
                                         "not both", crd_path);
    if (has_seg != (has_crd || has_bv))
        return error_at(err, has_seg ? crd_path : seg_path, 0,
                        "missing, though the matching %s file exists",
                        has_seg ? "seg" : has_crd ? "crd" : "bv");
    fs->has_crd[m] = has_crd;
    fs->has_bv[m] = has_bv;
    if (!has_seg)
        return 0;
    return read_numbers(seg_path, 1, (void **)&fs->seg[m], &fs->nseg[m], err) ||
                   (has_crd && read_numbers(crd_path, 1, (void **)&fs->crd[m], &fs->ncrd[m],
                                            err)) ||
                   (has_bv && read_numbers(bv_path, 1, (void **)&fs->bv[m], &fs->nbv[m], err))
               ? -1
               : 0;
}

static char mode_kind(const samdir_files *fs, int m)
{
    return fs->has_bv[m] ? 'b' : fs->has_crd[m] ? 's' : 'd';
}

/* 64-bit words a fiber of a bitvector level of dimension dim. */
static int64_t bv_words_per_fiber(int64_t dim)
{
    return dim > 0 ? (dim - 1) / 64 + 1 : 0;
}

static int read_files(const char *dir, const char *name, samdir_files *fs, sam_error *err)
{
    char path[4096];
    memset(fs, 0, sizeof *fs);
    file_path(path, sizeof path, dir, name, -1, "shape");
    if (read_numbers(path, 1, (void **)&fs->shape, &fs->nshape, err))
        return -1;
    if (fs->nshape > TENSOR_MAX_ORDER)
        return error_at(err, path, 0, "%zu dimensions (at most %d)", fs->nshape,
                        TENSOR_MAX_ORDER);
    fs->order = (int)fs->nshape;
    for (int m = 0; m < fs->order; m++) {
        if (fs->shape[m] < 0)
            return error_at(err, path, m + 1, "negative dimension %lld",
                            (long long)fs->shape[m]);
        if (read_mode_files(dir, name, fs, m, err))
            return -1;
    }
    file_path(path, sizeof path, dir, name, -1, "vals");
    return read_numbers(path, 0, (void **)&fs->vals, &fs->nvals, err);
}

/* The SAM vector writer stores seg = [0, nnz + 1] (SAM-BLOCKS.md 4.3); the
 * reference scanner copes because it also stops at the end of crd. */
static void fix_vector_seg(samdir_files *fs)
{
    if (fs->order == 1 && fs->has_crd[0] && fs->nseg[0] == 2 &&
        fs->seg[0][1] == (int64_t)fs->ncrd[0] + 1)
        fs->seg[0][1] = (int64_t)fs->ncrd[0];
}

/* Whether the array lengths fit format f, level by level. */
static int lengths_fit(const samdir_files *fs, const level_format *f)
{
    int64_t positions = 1;
    for (int k = 0; k < f->nlevels; k++) {
        int m = f->mode[k];
        if (f->kind[k] == 'd') {
            if (fs->shape[m] && positions > FIBERTREE_MAX_DENSE / fs->shape[m])
                return 0;
            positions *= fs->shape[m];
            continue;
        }
        if (mode_kind(fs, m) != f->kind[k] || fs->nseg[m] != (size_t)positions + 1)
            return 0;
        if (f->kind[k] == 'b') {
            int64_t words = bv_words_per_fiber(fs->shape[m]);
            if (words && positions > INT64_MAX / words)
                return 0;
            if (fs->nbv[m] != (size_t)(positions * words))
                return 0;
            positions = fs->seg[m][fs->nseg[m] - 1];
            continue;
        }
        positions = (int64_t)fs->ncrd[m];
    }
    return (size_t)positions == fs->nvals;
}

/* Tries mode orders in lexicographic order (the natural one first); each
 * mode is compressed exactly when its seg and crd files exist, a bitvector
 * when its seg and bv files do. */
static int infer_order(const samdir_files *fs, level_format *f, int k, int used)
{
    if (k == fs->order)
        return lengths_fit(fs, f);
    for (int m = 0; m < fs->order; m++) {
        if (used & (1 << m))
            continue;
        f->mode[k] = m;
        f->kind[k] = mode_kind(fs, m);
        if (infer_order(fs, f, k + 1, used | (1 << m)))
            return 1;
    }
    return 0;
}

static int check_seg(const fiber_level *l, int64_t parents, const char *seg_path,
                     sam_error *err)
{
    if (l->nseg != (size_t)parents + 1)
        return error_at(err, seg_path, 0, "%zu entries, but the level above has %lld "
                        "positions, so %lld were expected", l->nseg, (long long)parents,
                        (long long)parents + 1);
    if (l->seg[0] != 0)
        return error_at(err, seg_path, 1, "the first seg value must be 0, not %lld",
                        (long long)l->seg[0]);
    for (size_t p = 1; p < l->nseg; p++)
        if (l->seg[p] < l->seg[p - 1])
            return error_at(err, seg_path, (long)p + 1, "seg value %lld is below the previous "
                            "%lld", (long long)l->seg[p], (long long)l->seg[p - 1]);
    return 0;
}

/* Each fiber's words (ceil(dim/64), stored as signed 64-bit numbers)
 * hold no bit at or beyond dim, and seg counts the bits before each. */
static int check_bitvector(const fiber_level *l, int64_t parents, const char *seg_path,
                           const char *bv_path, sam_error *err)
{
    if (check_seg(l, parents, seg_path, err))
        return -1;
    int64_t words = bv_words_per_fiber(l->dim);
    if (words && parents > INT64_MAX / words)
        return error_at(err, bv_path, 0, "%lld fibers of %lld words are too many",
                        (long long)parents, (long long)words);
    if (l->nbits != (size_t)(parents * words))
        return error_at(err, bv_path, 0, "%zu words, but %lld fibers of dimension %lld need "
                        "%lld", l->nbits, (long long)parents, (long long)l->dim,
                        (long long)(parents * words));
    uint64_t beyond = l->dim % 64 ? ~(uint64_t)0 << (l->dim % 64) : 0;
    for (int64_t f = 0; f < parents; f++) {
        int64_t count = 0;
        for (int64_t q = 0; q < words; q++) {
            size_t at = (size_t)(f * words + q);
            if (q == words - 1 && (l->bits[at] & beyond))
                return error_at(err, bv_path, (long)at + 1, "a bit at or beyond dimension %lld",
                                (long long)l->dim);
            count += __builtin_popcountll(l->bits[at]);
        }
        if (l->seg[f + 1] - l->seg[f] != count)
            return error_at(err, seg_path, (long)f + 2, "fiber %lld has %lld bits in %s, not "
                            "%lld", (long long)f, (long long)count, bv_path,
                            (long long)(l->seg[f + 1] - l->seg[f]));
    }
    return 0;
}

static int check_compressed(const fiber_level *l, int64_t parents, const char *seg_path,
                            const char *crd_path, sam_error *err)
{
    if (check_seg(l, parents, seg_path, err))
        return -1;
    if (l->seg[l->nseg - 1] != (int64_t)l->ncrd)
        return error_at(err, seg_path, (long)l->nseg, "the last seg value %lld does not match "
                        "the %zu coordinates of %s", (long long)l->seg[l->nseg - 1], l->ncrd,
                        crd_path);
    for (size_t f = 0; f + 1 < l->nseg; f++)
        for (int64_t p = l->seg[f]; p < l->seg[f + 1]; p++) {
            if (l->crd[p] < 0 || l->crd[p] >= l->dim)
                return error_at(err, crd_path, (long)p + 1, "coordinate %lld is out of range "
                                "0..%lld", (long long)l->crd[p], (long long)l->dim - 1);
            if (p > l->seg[f] && l->crd[p] <= l->crd[p - 1])
                return error_at(err, crd_path, (long)p + 1, "coordinate %lld does not follow "
                                "%lld in increasing order within its fiber",
                                (long long)l->crd[p], (long long)l->crd[p - 1]);
        }
    return 0;
}

/* Level k, a bitvector level of mode l->mode, takes its seg and words. */
static int assemble_bitvector(const char *dir, const char *name, samdir_files *fs, int k,
                              fiber_level *l, int64_t positions, sam_error *err)
{
    char seg_path[4096], bv_path[4096];
    int m = l->mode;
    file_path(seg_path, sizeof seg_path, dir, name, m, "seg");
    file_path(bv_path, sizeof bv_path, dir, name, m, "bv");
    if (!fs->has_bv[m])
        return error_at(err, bv_path, 0, "missing, but format level %d is a bitvector", k);
    l->seg = fs->seg[m], l->nseg = fs->nseg[m];
    l->bits = (uint64_t *)(void *)fs->bv[m], l->nbits = fs->nbv[m];
    fs->seg[m] = fs->bv[m] = NULL;
    if (check_bitvector(l, positions, seg_path, bv_path, err))
        return -1;
    l->ncrd = (size_t)l->seg[l->nseg - 1];
    return 0;
}

/* Moves the arrays into ft in storage order, checking each level. */
static int assemble(const char *dir, const char *name, samdir_files *fs, const level_format *f,
                    fibertree *ft, sam_error *err)
{
    char seg_path[4096], crd_path[4096];
    ft->order = fs->order;
    for (int m = 0; m < fs->order; m++)
        ft->dims[m] = fs->shape[m];
    int64_t positions = 1;
    for (int k = 0; k < f->nlevels; k++) {
        fiber_level *l = &ft->lv[k];
        int m = f->mode[k];
        l->kind = f->kind[k];
        l->mode = m;
        l->dim = fs->shape[m];
        file_path(seg_path, sizeof seg_path, dir, name, m, "seg");
        file_path(crd_path, sizeof crd_path, dir, name, m, "crd");
        if (l->kind == 'd') {
            if (l->dim && positions > FIBERTREE_MAX_DENSE / l->dim)
                return error_at(err, dir, 0, "dense level %d of tensor %s is too large", k, name);
            positions *= l->dim;
            continue;
        }
        if (l->kind == 'b') {
            if (assemble_bitvector(dir, name, fs, k, l, positions, err))
                return -1;
            positions = (int64_t)l->ncrd;
            continue;
        }
        if (!fs->has_crd[m])
            return error_at(err, crd_path, 0, "missing, but format level %d is compressed", k);
        l->seg = fs->seg[m], l->nseg = fs->nseg[m], l->crd = fs->crd[m], l->ncrd = fs->ncrd[m];
        fs->seg[m] = fs->crd[m] = NULL;
        if (check_compressed(l, positions, seg_path, crd_path, err))
            return -1;
        positions = (int64_t)l->ncrd;
    }
    file_path(seg_path, sizeof seg_path, dir, name, -1, "vals");
    if (fs->nvals != (size_t)positions)
        return error_at(err, seg_path, 0, "%zu values, but the last level has %lld positions",
                        fs->nvals, (long long)positions);
    ft->vals = fs->vals, ft->nvals = fs->nvals;
    fs->vals = NULL;
    return 0;
}

static int choose_format(const char *dir, const char *name, const samdir_files *fs,
                         const level_format *given, level_format *f, sam_error *err)
{
    if (given) {
        if (given->nlevels != fs->order)
            return error_at(err, dir, 0, "tensor %s has order %d, but the format has %d levels",
                            name, fs->order, given->nlevels);
        *f = *given;
        return 0;
    }
    memset(f, 0, sizeof *f);
    f->nlevels = fs->order;
    if (infer_order(fs, f, 0, 0))
        return 0;
    /* No order fits: checking the natural one names the file at fault. */
    for (int k = 0; k < fs->order; k++) {
        f->mode[k] = k;
        f->kind[k] = mode_kind(fs, k);
    }
    return 0;
}

int samdir_read(const char *dir, const char *name, const level_format *given, fibertree *out,
                sam_error *err)
{
    samdir_files fs;
    level_format f;
    memset(out, 0, sizeof *out);
    int rc = read_files(dir, name, &fs, err);
    if (rc == 0) {
        fix_vector_seg(&fs);
        rc = choose_format(dir, name, &fs, given, &f, err);
    }
    if (rc == 0)
        rc = assemble(dir, name, &fs, &f, out, err);
    files_free(&fs);
    if (rc)
        fibertree_free(out);
    return rc;
}

typedef struct int_array {
    const int64_t *v;
    size_t n;
} int_array;

typedef struct double_array {
    const double *v;
    size_t n;
} double_array;

/* The SAM tools write one number per line with no newline after the last. */
static void write_ints(text_out *o, const void *arg)
{
    const int_array *a = arg;
    for (size_t i = 0; i < a->n; i++) {
        if (i)
            out_char(o, '\n');
        out_int64(o, a->v[i]);
    }
}

static void write_doubles(text_out *o, const void *arg)
{
    const double_array *a = arg;
    for (size_t i = 0; i < a->n; i++) {
        if (i)
            out_char(o, '\n');
        out_double(o, a->v[i]);
    }
}

#define SAMDIR_MAX_FILES (2 * TENSOR_MAX_ORDER + 2)

typedef struct samdir_batch {
    atomic_file files[SAMDIR_MAX_FILES];
    int n;
} samdir_batch;

/* Writes one file of the batch under its temporary name. */
static int batch_write(samdir_batch *b, const char *path, out_writer write, const void *arg,
                       sam_error *err)
{
    atomic_file *af = &b->files[b->n];
    if (atomic_file_open(af, path, err))
        return -1;
    b->n++;
    text_out *o = malloc(sizeof *o);
    if (!o)
        return error_set(err, "out of memory");
    out_init(o, af->f);
    write(o, arg);
    out_flush(o);
    free(o);
    return atomic_file_close(af, err);
}

static int batch_publish(samdir_batch *b, sam_error *err)
{
    for (int i = 0; i < b->n; i++)
        if (atomic_file_publish(&b->files[i], err))
            return -1;
    return 0;
}

static int write_levels(samdir_batch *b, const char *dir, const char *name, const fibertree *ft,
                        sam_error *err)
{
    char path[4096];
    for (int k = 0; k < ft->order; k++) {
        const fiber_level *l = &ft->lv[k];
        if (l->kind == 'd')
            continue;
        int bits = l->kind == 'b';
        int_array seg = {l->seg, l->nseg};
        int_array crd = {bits ? (const int64_t *)(const void *)l->bits : l->crd,
                         bits ? l->nbits : l->ncrd};
        file_path(path, sizeof path, dir, name, l->mode, "seg");
        if (batch_write(b, path, write_ints, &seg, err))
            return -1;
        file_path(path, sizeof path, dir, name, l->mode, bits ? "bv" : "crd");
        if (batch_write(b, path, write_ints, &crd, err))
            return -1;
    }
    double_array vals = {ft->vals, ft->nvals};
    int_array shape = {ft->dims, (size_t)ft->order};
    file_path(path, sizeof path, dir, name, -1, "vals");
    if (batch_write(b, path, write_doubles, &vals, err))
        return -1;
    file_path(path, sizeof path, dir, name, -1, "shape");
    return batch_write(b, path, write_ints, &shape, err);
}

/* Removes the level files of modes stored otherwise now, so that a
 * reader does not mistake an older layout's files for this one's. */
static void remove_stale(const char *dir, const char *name, const fibertree *ft)
{
    char path[4096];
    for (int m = 0; m < TENSOR_MAX_ORDER; m++) {
        char kind = 'd';
        for (int k = 0; k < ft->order; k++)
            if (ft->lv[k].mode == m)
                kind = ft->lv[k].kind;
        file_path(path, sizeof path, dir, name, m, "seg");
        if (kind == 'd')
            unlink(path);
        file_path(path, sizeof path, dir, name, m, "crd");
        if (kind != 's')
            unlink(path);
        file_path(path, sizeof path, dir, name, m, "bv");
        if (kind != 'b')
            unlink(path);
    }
}

int samdir_write(const char *dir, const char *name, const fibertree *ft, sam_error *err)
{
    int created = mkdir(dir, 0777) == 0;
    if (!created && errno != EEXIST)
        return error_at(err, dir, 0, "cannot create directory: %s", strerror(errno));
    samdir_batch b = {.n = 0};
    int rc = write_levels(&b, dir, name, ft, err);
    if (rc == 0)
        rc = batch_publish(&b, err);
    if (rc == 0)
        remove_stale(dir, name, ft);
    for (int i = 0; i < b.n; i++)
        atomic_file_discard(&b.files[i]);
    if (rc && created)
        rmdir(dir);
    return rc;
}

static int is_tensor_shape_file(const char *f, char *name, size_t n)
{
    const char *prefix = "tensor_", *suffix = "_mode_shape";
    size_t lf = strlen(f), lp = strlen(prefix), ls = strlen(suffix);
    if (lf <= lp + ls || strncmp(f, prefix, lp) || strcmp(f + lf - ls, suffix))
        return 0;
    snprintf(name, n, "%.*s", (int)(lf - lp - ls), f + lp);
    return 1;
}

int samdir_only_tensor(const char *dir, char *name, size_t n, sam_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return error_at(err, dir, 0, "cannot open directory: %s", strerror(errno));
    char names[256] = "", one[128];
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!is_tensor_shape_file(e->d_name, one, sizeof one))
            continue;
        if (count++ == 0)
            snprintf(name, n, "%s", one);
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", one);
    }
    closedir(d);
    if (count == 1)
        return 0;
    if (count == 0)
        return error_at(err, dir, 0, "no tensor here (no tensor_<T>_mode_shape file)");
    return error_at(err, dir, 0, "holds tensors %s; choose one with --tensor", names);
}
