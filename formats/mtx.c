#include "mtx.h"

#include <string.h>
#include <strings.h>

#include "text_out.h"
#include "text_scan.h"

typedef enum { FIELD_REAL, FIELD_INTEGER, FIELD_PATTERN } mtx_field;
typedef enum { SYM_GENERAL, SYM_SYMMETRIC, SYM_SKEW } mtx_symmetry;

typedef struct mtx_header {
    mtx_field field;
    mtx_symmetry symmetry;
    int64_t rows, cols, entries;
} mtx_header;

/* Copies the next blank-separated word of the banner line into w. */
static int banner_word(text_scan *s, char *w, size_t n)
{
    scan_blanks(s);
    size_t len = 0;
    while (s->p[len] && s->p[len] != ' ' && s->p[len] != '\t' && s->p[len] != '\n' &&
           s->p[len] != '\r')
        len++;
    if (len == 0 || len >= n)
        return -1;
    memcpy(w, s->p, len);
    w[len] = '\0';
    s->p += len;
    return 0;
}

static int parse_banner(text_scan *s, mtx_header *h, sam_error *err)
{
    char w[5][32];
    if (strncmp(s->p, "%%MatrixMarket", 14) != 0)
        return scan_error(s, err, "not a Matrix Market file: the first line must start with "
                                  "%%%%MatrixMarket");
    s->p += 14;
    if (*s->p != ' ' && *s->p != '\t')
        return scan_error(s, err, "not a Matrix Market file: expected a space after "
                                  "%%%%MatrixMarket");
    for (int i = 1; i < 5; i++)
        if (banner_word(s, w[i], sizeof w[i]))
            return scan_error(s, err, "incomplete header: expected "
                                      "'%%%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
    if (strcasecmp(w[1], "matrix"))
        return scan_error(s, err, "object '%s' is not supported (only matrix)", w[1]);
    if (!strcasecmp(w[2], "array"))
        return scan_error(s, err, "dense 'array' files are not supported; convert the matrix "
                                  "to 'coordinate' format");
    if (strcasecmp(w[2], "coordinate"))
        return scan_error(s, err, "format '%s' is not supported (only coordinate)", w[2]);
    if (!strcasecmp(w[3], "real") || !strcasecmp(w[3], "double"))
        h->field = FIELD_REAL;
    else if (!strcasecmp(w[3], "integer"))
        h->field = FIELD_INTEGER;
    else if (!strcasecmp(w[3], "pattern"))
        h->field = FIELD_PATTERN;
    else if (!strcasecmp(w[3], "complex"))
        return scan_error(s, err, "complex matrices are not supported (values must be real)");
    else
        return scan_error(s, err, "unknown field '%s' (real, integer or pattern)", w[3]);
    if (!strcasecmp(w[4], "general"))
        h->symmetry = SYM_GENERAL;
    else if (!strcasecmp(w[4], "symmetric"))
        h->symmetry = SYM_SYMMETRIC;
    else if (!strcasecmp(w[4], "skew-symmetric"))
        h->symmetry = SYM_SKEW;
    else
        return scan_error(s, err, "symmetry '%s' is not supported (general, symmetric or "
                                  "skew-symmetric)", w[4]);
    return scan_end_line(s, err);
}

/* Comment lines start with % anywhere after the banner; blank lines are
 * allowed too. */
static void skip_comments(text_scan *s)
{
    while (!scan_at_eof(s)) {
        scan_blanks(s);
        if (*s->p != '%' && *s->p != '\n')
            return;
        scan_next_line(s);
    }
}

static int parse_size_line(text_scan *s, mtx_header *h, sam_error *err)
{
    skip_comments(s);
    if (scan_at_eof(s))
        return scan_error(s, err, "truncated file: the size line 'ROWS COLS ENTRIES' is missing");
    if (scan_int64(s, &h->rows, "the number of rows", err) ||
        scan_int64(s, &h->cols, "the number of columns", err) ||
        scan_int64(s, &h->entries, "the number of entries", err))
        return -1;
    if (h->rows < 0 || h->cols < 0 || h->entries < 0)
        return scan_error(s, err, "negative size %lld %lld %lld", (long long)h->rows,
                          (long long)h->cols, (long long)h->entries);
    if (h->symmetry != SYM_GENERAL && h->rows != h->cols)
        return scan_error(s, err, "a %s matrix must be square, not %lld x %lld",
                          h->symmetry == SYM_SKEW ? "skew-symmetric" : "symmetric",
                          (long long)h->rows, (long long)h->cols);
    return scan_end_line(s, err);
}

static int parse_index(text_scan *s, int64_t *v, int64_t max, const char *what, sam_error *err)
{
    if (scan_int64(s, v, what, err))
        return -1;
    if (*v < 1 || *v > max)
        return scan_error(s, err, "%s %lld is out of range 1..%lld", what, (long long)*v,
                          (long long)max);
    *v -= 1;
    return 0;
}

static int parse_value(text_scan *s, const mtx_header *h, double *v, sam_error *err)
{
    if (h->field == FIELD_PATTERN) {
        *v = 1.0;
        return 0;
    }
    if (h->field == FIELD_REAL)
        return scan_double(s, v, "a value", err);
    int64_t i;
    if (scan_int64(s, &i, "an integer value", err))
        return -1;
    *v = (double)i;
    return 0;
}

static int read_entry(text_scan *s, const mtx_header *h, tensor *t, sam_error *err)
{
    int64_t c[2];
    double v;
    if (parse_index(s, &c[0], h->rows, "row index", err) ||
        parse_index(s, &c[1], h->cols, "column index", err) || parse_value(s, h, &v, err))
        return -1;
    if (h->symmetry == SYM_SKEW && c[0] == c[1])
        return scan_error(s, err, "a skew-symmetric matrix has no diagonal entries");
    /* SuiteSparse's Pajek matrices are declared pattern yet carry weights;
     * like scipy (and so the SAM tools) we read them as pattern. */
    if (h->field == FIELD_PATTERN)
        scan_next_line(s);
    else if (scan_end_line(s, err))
        return -1;
    if (tensor_append(t, c, v, err))
        return -1;
    if (h->symmetry == SYM_GENERAL || c[0] == c[1])
        return 0;
    int64_t mirror[2] = {c[1], c[0]};
    return tensor_append(t, mirror, h->symmetry == SYM_SKEW ? -v : v, err);
}

static int read_entries(text_scan *s, const mtx_header *h, tensor *t, sam_error *err)
{
    size_t expect = (size_t)h->entries * (h->symmetry == SYM_GENERAL ? 1 : 2);
    /* The declared count is only a hint for memory: a lying header must not
     * make us allocate much more than the file could hold. */
    size_t cap = expect < s->len / 4 + 1 ? expect : s->len / 4 + 1;
    if (tensor_reserve(t, cap, err))
        return -1;
    int64_t found = 0;
    for (skip_comments(s); !scan_at_eof(s); skip_comments(s)) {
        if (found == h->entries)
            return scan_error(s, err, "more entries than the %lld declared",
                              (long long)h->entries);
        if (read_entry(s, h, t, err))
            return -1;
        found++;
    }
    if (found < h->entries)
        return scan_error(s, err, "truncated file: %lld entries declared, %lld found",
                          (long long)h->entries, (long long)found);
    return 0;
}

int mtx_read(const char *path, tensor *out, sam_error *err)
{
    text_scan s;
    mtx_header h;
    if (scan_open(&s, path, err))
        return -1;
    int rc = parse_banner(&s, &h, err);
    if (rc == 0)
        rc = parse_size_line(&s, &h, err);
    if (rc == 0) {
        int64_t dims[2] = {h.rows, h.cols};
        rc = tensor_init(out, 2, dims, err);
    }
    if (rc == 0 && (rc = read_entries(&s, &h, out, err)) != 0)
        tensor_free(out);
    scan_close(&s);
    return rc;
}

static void write_entries(text_out *o, const void *arg)
{
    const tensor *t = arg;
    out_str(o, "%%MatrixMarket matrix coordinate real general\n% written by samsim\n");
    out_int64(o, t->dims[0]);
    out_char(o, ' ');
    out_int64(o, t->dims[1]);
    out_char(o, ' ');
    out_int64(o, (int64_t)t->nnz);
    out_char(o, '\n');
    for (size_t e = 0; e < t->nnz; e++) {
        out_int64(o, t->crd[0][e] + 1);
        out_char(o, ' ');
        out_int64(o, t->crd[1][e] + 1);
        out_char(o, ' ');
        out_double(o, t->vals[e]);
        out_char(o, '\n');
    }
}

int mtx_write(const char *path, const tensor *t, sam_error *err)
{
    if (t->order != 2)
        return error_at(err, path, 0, "Matrix Market holds matrices, but the tensor has order "
                                      "%d (write a .tns file or a SAM directory)", t->order);
    return out_write_file(path, write_entries, t, err);
}
