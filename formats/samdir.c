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

/* The files a level may keep, after tensor_<T>_mode_<k>_. */
enum { F_SEG, F_CRD, F_BV, F_HEAD, F_NEXT, F_KINDS };
static const char *const suffix[F_KINDS] = {"seg", "crd", "bv", "head", "next"};

/* The files of each level kind: a compressed level's seg and crd, a
 * bitvector's words and their popcount prefix (seg), a linked list's
 * heads, coordinates and next pointers; a dense level has none. */
static unsigned kind_files(char kind)
{
    switch (kind) {
    case 's':
        return 1u << F_SEG | 1u << F_CRD;
    case 'b':
        return 1u << F_SEG | 1u << F_BV;
    case 'l':
        return 1u << F_HEAD | 1u << F_CRD | 1u << F_NEXT;
    default:
        return 0;
    }
}

/* The kind a set of files shows: bv only a bitvector keeps, head and next
 * only a linked list, seg or crd alone a compressed level. */
static char kind_of(unsigned present)
{
    if (present & 1u << F_BV)
        return 'b';
    if (present & (1u << F_HEAD | 1u << F_NEXT))
        return 'l';
    return present ? 's' : 'd';
}

/* The arrays of one mode as found on disk. */
typedef struct mode_files {
    char kind;
    int64_t *seg, *crd, *head, *next;
    size_t nseg, ncrd, nhead, nnext;
    uint64_t *bits;
    size_t nbits;
} mode_files;

/* The arrays of one tensor as found on disk, by tensor mode. */
typedef struct samdir_files {
    int order;
    int64_t *shape;
    size_t nshape;
    mode_files mode[TENSOR_MAX_ORDER];
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

/* What the lines of a file hold. */
typedef enum number_kind { NUM_INT, NUM_WORD, NUM_VALUE } number_kind;

static int scan_number(text_scan *s, number_kind kind, void *at, sam_error *err)
{
    switch (kind) {
    case NUM_INT:
        return scan_int64(s, at, "an integer", err);
    case NUM_WORD:
        return scan_uint64(s, at, "a 64-bit word (an unsigned integer)", err);
    default:
        return scan_double(s, at, "a value", err);
    }
}

/* Reads a file of one number per line into an array of 8-byte items. Its
 * size is bounded by the file's lines, so a short file costs little
 * whatever it claims. */
static int read_numbers(const char *path, number_kind kind, void **out, size_t *count,
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
        rc = scan_number(&s, kind, arr + n * 8, err);
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

static void mode_files_free(mode_files *mf)
{
    free(mf->seg);
    free(mf->crd);
    free(mf->head);
    free(mf->next);
    free(mf->bits);
}

static void files_free(samdir_files *fs)
{
    free(fs->shape);
    for (int m = 0; m < TENSOR_MAX_ORDER; m++)
        mode_files_free(&fs->mode[m]);
    free(fs->vals);
}

/* The first file of set in suffix order. */
static int first_file(unsigned set)
{
    int f = 0;
    while (!(set & 1u << f))
        f++;
    return f;
}

/* The file that shows a set's kind (kind_of): bv, head or next before seg
 * and crd. */
static const char *marker_name(const char path[][4096], unsigned present)
{
    unsigned own = present & ~kind_files('s');
    return strrchr(path[first_file(own ? own : present)], '/') + 1;
}

/* Finds mode m's kind from its files, which must be exactly that kind's,
 * and reads them. */
static int read_mode_files(const char *dir, const char *name, mode_files *mf, int m,
                           sam_error *err)
{
    char path[F_KINDS][4096];
    unsigned present = 0;
    for (int f = 0; f < F_KINDS; f++) {
        file_path(path[f], sizeof path[f], dir, name, m, suffix[f]);
        present |= (unsigned)file_exists(path[f]) << f;
    }
    mf->kind = kind_of(present);
    unsigned want = kind_files(mf->kind);
    if (present & ~want)
        return error_at(err, path[first_file(present & ~want)], 0, "does not belong with %s, "
                        "which makes mode %d a %s level", marker_name(path, present), m,
                        level_kind_name(mf->kind));
    if (want & ~present)
        return error_at(err, path[first_file(want & ~present)], 0, "missing, though %s exists "
                        "(mode %d is a %s level)", marker_name(path, present), m,
                        level_kind_name(mf->kind));
    void **array[F_KINDS] = {(void **)&mf->seg, (void **)&mf->crd, (void **)&mf->bits,
                             (void **)&mf->head, (void **)&mf->next};
    size_t *count[F_KINDS] = {&mf->nseg, &mf->ncrd, &mf->nbits, &mf->nhead, &mf->nnext};
    for (int f = 0; f < F_KINDS; f++)
        if ((want & 1u << f) && read_numbers(path[f], f == F_BV ? NUM_WORD : NUM_INT, array[f],
                                             count[f], err))
            return -1;
    return 0;
}

static int read_files(const char *dir, const char *name, samdir_files *fs, sam_error *err)
{
    char path[4096];
    memset(fs, 0, sizeof *fs);
    file_path(path, sizeof path, dir, name, -1, "shape");
    if (read_numbers(path, NUM_INT, (void **)&fs->shape, &fs->nshape, err))
        return -1;
    if (fs->nshape > TENSOR_MAX_ORDER)
        return error_at(err, path, 0, "%zu dimensions (at most %d)", fs->nshape,
                        TENSOR_MAX_ORDER);
    fs->order = (int)fs->nshape;
    for (int m = 0; m < fs->order; m++) {
        if (fs->shape[m] < 0)
            return error_at(err, path, m + 1, "negative dimension %lld",
                            (long long)fs->shape[m]);
        if (read_mode_files(dir, name, &fs->mode[m], m, err))
            return -1;
    }
    file_path(path, sizeof path, dir, name, -1, "vals");
    return read_numbers(path, NUM_VALUE, (void **)&fs->vals, &fs->nvals, err);
}

/* The SAM vector writer stores seg = [0, nnz + 1] (SAM-BLOCKS.md 4.3); the
 * reference scanner copes because it also stops at the end of crd. */
static void fix_vector_seg(samdir_files *fs)
{
    mode_files *mf = &fs->mode[0];
    if (fs->order == 1 && mf->kind == 's' && mf->nseg == 2 &&
        mf->seg[1] == (int64_t)mf->ncrd + 1)
        mf->seg[1] = (int64_t)mf->ncrd;
}

/* Words a fiber of a bitvector level of dimension dim. */
static int64_t bv_stride(int64_t dim)
{
    return dim / 64 + (dim % 64 != 0);
}

/* Whether count items are exactly fibers of per items each, without
 * forming the product (which a file's shape could overflow). */
static int holds_fibers(size_t count, int64_t fibers, int64_t per)
{
    if (per == 0)
        return count == 0;
    return count % (size_t)per == 0 && count / (size_t)per == (size_t)fibers;
}

/* Whether mode m's arrays fit a level of kind k below *positions
 * positions, which become the level's own. */
static int level_fits(const samdir_files *fs, int m, char k, int64_t *positions)
{
    const mode_files *mf = &fs->mode[m];
    int64_t dim = fs->shape[m];
    switch (k) {
    case 'd':
        if (dim && *positions > FIBERTREE_MAX_DENSE / dim)
            return 0;
        *positions *= dim;
        return 1;
    case 's':
        if (mf->nseg != (size_t)*positions + 1)
            return 0;
        *positions = (int64_t)mf->ncrd;
        return 1;
    case 'b':
        if (mf->nseg != (size_t)*positions + 1 || !holds_fibers(mf->nbits, *positions,
                                                                  bv_stride(dim)))
            return 0;
        /* Checked in full later; here only a count the words can hold. */
        *positions = mf->seg[mf->nseg - 1];
        return *positions >= 0 && (uint64_t)*positions <= (uint64_t)mf->nbits * 64;
    default:
        if (mf->nhead != (size_t)*positions)
            return 0;
        *positions = (int64_t)mf->ncrd;
        return 1;
    }
}

/* Whether the array lengths fit format f, level by level. */
static int lengths_fit(const samdir_files *fs, const level_format *f)
{
    int64_t positions = 1;
    for (int k = 0; k < f->nlevels; k++)
        if (!level_fits(fs, f->mode[k], f->kind[k], &positions))
            return 0;
    return (size_t)positions == fs->nvals;
}

/* Tries mode orders in lexicographic order (the natural one first); each
 * mode has the kind its files show. */
static int infer_order(const samdir_files *fs, level_format *f, int k, int used)
{
    if (k == fs->order)
        return lengths_fit(fs, f);
    for (int m = 0; m < fs->order; m++) {
        if (used & (1 << m))
            continue;
        f->mode[k] = m;
        f->kind[k] = fs->mode[m].kind;
        if (infer_order(fs, f, k + 1, used | (1 << m)))
            return 1;
    }
    return 0;
}

/* Paths of one mode's files, for messages. */
typedef struct level_paths {
    char of[F_KINDS][4096];
} level_paths;

static int check_seg_length(const fiber_level *l, int64_t parents, const char *seg_path,
                            sam_error *err)
{
    if (l->nseg != (size_t)parents + 1)
        return error_at(err, seg_path, 0, "%zu entries, but the level above has %lld "
                        "positions, so %lld were expected", l->nseg, (long long)parents,
                        (long long)parents + 1);
    if (l->seg[0] != 0)
        return error_at(err, seg_path, 1, "the first seg value must be 0, not %lld",
                        (long long)l->seg[0]);
    return 0;
}

static int check_compressed(const fiber_level *l, int64_t parents, const level_paths *p,
                            sam_error *err)
{
    const char *seg_path = p->of[F_SEG], *crd_path = p->of[F_CRD];
    if (check_seg_length(l, parents, seg_path, err))
        return -1;
    for (size_t p = 1; p < l->nseg; p++)
        if (l->seg[p] < l->seg[p - 1])
            return error_at(err, seg_path, (long)p + 1, "seg value %lld is below the previous "
                            "%lld", (long long)l->seg[p], (long long)l->seg[p - 1]);
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

/* ceil(dim / 64) words a fiber, none with a bit at or beyond dim, and seg
 * the running count of set bits. */
static int check_bitvector(fiber_level *l, int64_t parents, const level_paths *p,
                           sam_error *err)
{
    const char *seg_path = p->of[F_SEG], *bv_path = p->of[F_BV];
    int64_t stride = bv_stride(l->dim);
    if (check_seg_length(l, parents, seg_path, err))
        return -1;
    if (!holds_fibers(l->nbits, parents, stride))
        return error_at(err, bv_path, 0, "%zu words, but the level above has %lld positions, "
                        "each a fiber of %lld words (dimension %lld)", l->nbits,
                        (long long)parents, (long long)stride, (long long)l->dim);
    uint64_t beyond = l->dim % 64 ? ~(uint64_t)0 << (l->dim % 64) : 0;
    for (int64_t f = 0; f < parents; f++) {
        int64_t set = 0;
        for (int64_t q = f * stride; q < (f + 1) * stride; q++)
            set += __builtin_popcountll(l->bits[q]);
        if (stride && (l->bits[(f + 1) * stride - 1] & beyond))
            return error_at(err, bv_path, (long)((f + 1) * stride), "word %llu has a bit at or "
                            "beyond the dimension %lld", (unsigned long long)l->bits[(f + 1) *
                            stride - 1], (long long)l->dim);
        if (l->seg[f + 1] != l->seg[f] + set)
            return error_at(err, seg_path, (long)f + 2, "seg value %lld is not %lld plus the "
                            "%lld bits set in fiber %lld", (long long)l->seg[f + 1],
                            (long long)l->seg[f], (long long)set, (long long)f);
    }
    l->ncrd = (size_t)l->seg[parents];
    return 0;
}

/* Each head and next -1 or a node, each coordinate within the dimension. */
static int check_list_entries(const fiber_level *l, const level_paths *p, sam_error *err)
{
    int64_t last = (int64_t)l->ncrd - 1;
    for (size_t f = 0; f < l->nhead; f++)
        if (l->head[f] < -1 || l->head[f] > last)
            return error_at(err, p->of[F_HEAD], (long)f + 1, "head %lld is neither -1 nor a "
                            "node 0..%lld", (long long)l->head[f], (long long)last);
    for (size_t n = 0; n < l->ncrd; n++) {
        if (l->next[n] < -1 || l->next[n] > last)
            return error_at(err, p->of[F_NEXT], (long)n + 1, "next %lld is neither -1 nor a "
                            "node 0..%lld", (long long)l->next[n], (long long)last);
        if (l->crd[n] < 0 || l->crd[n] >= l->dim)
            return error_at(err, p->of[F_CRD], (long)n + 1, "coordinate %lld is out of range "
                            "0..%lld", (long long)l->crd[n], (long long)l->dim - 1);
    }
    return 0;
}

/* Follows every list, each node new to the walk (so no list is cyclic or
 * shares a node) and above its predecessor; then every node was reached. */
static int check_lists(const fiber_level *l, const level_paths *p, unsigned char *seen,
                       sam_error *err)
{
    for (size_t f = 0; f < l->nhead; f++)
        for (int64_t n = l->head[f], from = -1; n >= 0; from = n, n = l->next[n]) {
            if (seen[n]++)
                return from < 0
                           ? error_at(err, p->of[F_HEAD], (long)f + 1, "node %lld is already "
                                      "in another list", (long long)n)
                           : error_at(err, p->of[F_NEXT], (long)from + 1, "node %lld is "
                                      "reached a second time (a cycle, or lists that merge)",
                                      (long long)n);
            if (from >= 0 && l->crd[n] <= l->crd[from])
                return error_at(err, p->of[F_CRD], (long)n + 1, "coordinate %lld follows %lld "
                                "in its list, not in increasing order", (long long)l->crd[n],
                                (long long)l->crd[from]);
        }
    for (size_t n = 0; n < l->ncrd; n++)
        if (!seen[n])
            return error_at(err, p->of[F_NEXT], (long)n + 1, "node %zu is in no list: no head "
                            "or next points to it", n);
    return 0;
}

static int check_linked(const fiber_level *l, int64_t parents, const level_paths *p,
                        sam_error *err)
{
    if (l->nhead != (size_t)parents)
        return error_at(err, p->of[F_HEAD], 0, "%zu entries, but the level above has %lld "
                        "positions", l->nhead, (long long)parents);
    if (check_list_entries(l, p, err))
        return -1;
    unsigned char *seen = error_alloc(err, l->ncrd, 1);
    if (!seen)
        return -1;
    int rc = check_lists(l, p, seen, err);
    free(seen);
    return rc;
}

/* Moves mode m's arrays into level l (of the format's kind) and checks
 * them under parents positions. */
static int take_level(const char *dir, const char *name, samdir_files *fs, int k,
                      int64_t parents, fiber_level *l, sam_error *err)
{
    level_paths p;
    mode_files *mf = &fs->mode[l->mode];
    for (int f = 0; f < F_KINDS; f++)
        file_path(p.of[f], sizeof p.of[f], dir, name, l->mode, suffix[f]);
    if (mf->kind != l->kind)
        return error_at(err, p.of[first_file(kind_files(l->kind) & ~kind_files(mf->kind))], 0,
                        "missing, but format level %d is a %s level", k,
                        level_kind_name(l->kind));
    if (mf->nnext != mf->ncrd && l->kind == 'l')
        return error_at(err, p.of[F_NEXT], 0, "%zu entries for the %zu nodes of %s",
                        mf->nnext, mf->ncrd, strrchr(p.of[F_CRD], '/') + 1);
    l->seg = mf->seg, l->nseg = mf->nseg, l->crd = mf->crd, l->ncrd = mf->ncrd;
    l->bits = mf->bits, l->nbits = mf->nbits, l->head = mf->head, l->nhead = mf->nhead;
    l->next = mf->next;
    *mf = (mode_files){.kind = mf->kind};
    switch (l->kind) {
    case 's':
        return check_compressed(l, parents, &p, err);
    case 'b':
        return check_bitvector(l, parents, &p, err);
    default:
        return check_linked(l, parents, &p, err);
    }
}

/* Moves the arrays into ft in storage order, checking each level. */
static int assemble(const char *dir, const char *name, samdir_files *fs, const level_format *f,
                    fibertree *ft, sam_error *err)
{
    char path[4096];
    ft->order = fs->order;
    for (int m = 0; m < fs->order; m++)
        ft->dims[m] = fs->shape[m];
    int64_t positions = 1;
    for (int k = 0; k < f->nlevels; k++) {
        fiber_level *l = &ft->lv[k];
        l->kind = f->kind[k];
        l->mode = f->mode[k];
        l->dim = fs->shape[l->mode];
        if (l->kind == 'd') {
            if (l->dim && positions > FIBERTREE_MAX_DENSE / l->dim)
                return error_at(err, dir, 0, "dense level %d of tensor %s is too large", k, name);
            positions *= l->dim;
            continue;
        }
        if (take_level(dir, name, fs, k, positions, l, err))
            return -1;
        positions = (int64_t)l->ncrd;
    }
    file_path(path, sizeof path, dir, name, -1, "vals");
    if (fs->nvals != (size_t)positions)
        return error_at(err, path, 0, "%zu values, but the last level has %lld positions",
                        fs->nvals, (long long)positions);
    ft->vals = fs->vals, ft->nvals = fs->nvals;
    fs->vals = NULL;
    /* Every check above names a file; this one keeps the two in step. */
    return fibertree_validate(ft, err) ? error_prefix(err, dir) : 0;
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
        f->kind[k] = fs->mode[k].kind;
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

typedef struct word_array {
    const uint64_t *v;
    size_t n;
} word_array;

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

static void write_words(text_out *o, const void *arg)
{
    const word_array *a = arg;
    for (size_t i = 0; i < a->n; i++) {
        if (i)
            out_char(o, '\n');
        out_uint64(o, a->v[i]);
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

#define SAMDIR_MAX_FILES (3 * TENSOR_MAX_ORDER + 2)

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

/* Writes the files of level l that its kind keeps (kind_files). */
static int write_level(samdir_batch *b, const char *dir, const char *name,
                       const fiber_level *l, sam_error *err)
{
    char path[4096];
    int_array ints[F_KINDS] = {{l->seg, l->nseg}, {l->crd, l->ncrd}, {NULL, 0},
                               {l->head, l->nhead}, {l->next, l->ncrd}};
    word_array words = {l->bits, l->nbits};
    unsigned files = kind_files(l->kind);
    for (int f = 0; f < F_KINDS; f++) {
        if (!(files & 1u << f))
            continue;
        file_path(path, sizeof path, dir, name, l->mode, suffix[f]);
        if (batch_write(b, path, f == F_BV ? write_words : write_ints,
                        f == F_BV ? (const void *)&words : &ints[f], err))
            return -1;
    }
    return 0;
}

static int write_levels(samdir_batch *b, const char *dir, const char *name, const fibertree *ft,
                        sam_error *err)
{
    char path[4096];
    for (int k = 0; k < ft->order; k++)
        if (write_level(b, dir, name, &ft->lv[k], err))
            return -1;
    double_array vals = {ft->vals, ft->nvals};
    int_array shape = {ft->dims, (size_t)ft->order};
    file_path(path, sizeof path, dir, name, -1, "vals");
    if (batch_write(b, path, write_doubles, &vals, err))
        return -1;
    file_path(path, sizeof path, dir, name, -1, "shape");
    return batch_write(b, path, write_ints, &shape, err);
}

/* Removes the level files a mode's kind does not keep now, so that a
 * reader does not mistake an older layout's files for this one's. */
static void remove_stale(const char *dir, const char *name, const fibertree *ft)
{
    char path[4096];
    for (int m = 0; m < TENSOR_MAX_ORDER; m++) {
        unsigned keep = 0;
        for (int k = 0; k < ft->order; k++)
            if (ft->lv[k].mode == m)
                keep = kind_files(ft->lv[k].kind);
        for (int f = 0; f < F_KINDS; f++)
            if (!(keep & 1u << f)) {
                file_path(path, sizeof path, dir, name, m, suffix[f]);
                unlink(path);
            }
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
