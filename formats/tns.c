#include "tns.h"

#include <string.h>

#include "text_out.h"
#include "text_scan.h"

#define SHAPE_COMMENT "# shape:"

typedef struct tns_shape {
    int order;          /* -1 until known */
    int fixed;          /* dims are given, not inferred */
    int64_t dims[TENSOR_MAX_ORDER];
} tns_shape;

/* Counts the fields of the line at the cursor without consuming it. */
static int count_fields(const text_scan *s)
{
    int n = 0;
    for (const char *p = s->p; *p && *p != '\n'; n++) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (!*p || *p == '\n')
            break;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            p++;
    }
    return n;
}

static int parse_shape_comment(text_scan *s, tns_shape *sh, sam_error *err)
{
    s->p += strlen(SHAPE_COMMENT);
    int n = count_fields(s);
    if (n > TENSOR_MAX_ORDER)
        return scan_error(s, err, "shape comment with %d dimensions (at most %d)", n,
                          TENSOR_MAX_ORDER);
    int64_t dims[TENSOR_MAX_ORDER];
    for (int m = 0; m < n; m++) {
        if (scan_int64(s, &dims[m], "a dimension", err))
            return -1;
        if (dims[m] < 0)
            return scan_error(s, err, "negative dimension %lld", (long long)dims[m]);
    }
    if (sh->fixed) {
        scan_next_line(s);
        return 0;
    }
    sh->order = n;
    sh->fixed = 1;
    memcpy(sh->dims, dims, sizeof dims);
    return scan_end_line(s, err);
}

/* Skips blank and comment lines, reading a shape comment if one comes.
 * After the first entry (in_entries) a shape comment is refused: the
 * entries before it were read against another shape, and a file whose
 * shape changes halfway is more likely two files run together than one
 * tensor. */
static int skip_comments(text_scan *s, tns_shape *sh, int in_entries, sam_error *err)
{
    while (!scan_at_eof(s)) {
        scan_blanks(s);
        if (!strncmp(s->p, SHAPE_COMMENT, strlen(SHAPE_COMMENT))) {
            if (in_entries)
                return scan_error(s, err, "a shape comment after the first entry (the shape "
                                          "must come before the entries)");
            if (parse_shape_comment(s, sh, err))
                return -1;
        } else if (*s->p == '#' || *s->p == '\n') {
            scan_next_line(s);
        } else {
            return 0;
        }
    }
    return 0;
}

static int read_entry(text_scan *s, tns_shape *sh, tensor *t, sam_error *err)
{
    int fields = count_fields(s);
    if (fields - 1 != t->order)
        return scan_error(s, err, "%d fields where %d indices and a value were expected",
                          fields, t->order);
    int64_t c[TENSOR_MAX_ORDER];
    for (int m = 0; m < t->order; m++) {
        if (scan_int64(s, &c[m], "an index", err))
            return -1;
        if (c[m] < 1)
            return scan_error(s, err, "index %lld of mode %d is below 1 (indices are 1-based)",
                              (long long)c[m], m + 1);
        if (sh->fixed && c[m] > sh->dims[m])
            return scan_error(s, err, "index %lld of mode %d is out of range 1..%lld",
                              (long long)c[m], m + 1, (long long)sh->dims[m]);
        c[m] -= 1;
        if (!sh->fixed && c[m] >= t->dims[m])
            t->dims[m] = c[m] + 1;
    }
    double v;
    if (scan_double(s, &v, "a value", err) || scan_end_line(s, err))
        return -1;
    return tensor_append(t, c, v, err);
}

/* The tensor is created at the first entry, when its order is known. */
static int start_tensor(text_scan *s, tns_shape *sh, tensor *t, sam_error *err)
{
    int order = scan_at_eof(s) ? sh->order : count_fields(s) - 1;
    if (order < 0)
        return error_at(err, s->path, 0, "no entries, so the order and dimensions are unknown "
                                         "(give the shape)");
    if (sh->order >= 0 && order != sh->order)
        return scan_error(s, err, "%d indices where the shape has %d", order, sh->order);
    if (order > TENSOR_MAX_ORDER)
        return scan_error(s, err, "%d indices (at most %d modes)", order, TENSOR_MAX_ORDER);
    int64_t zero[TENSOR_MAX_ORDER] = {0};
    if (tensor_init(t, order, sh->fixed ? sh->dims : zero, err))
        return -1;
    return tensor_reserve(t, s->len / (2 * (size_t)order + 2) / 2 + 1, err);
}

static int read_all(text_scan *s, tns_shape *sh, tensor *t, sam_error *err)
{
    if (skip_comments(s, sh, 0, err) || start_tensor(s, sh, t, err))
        return -1;
    while (!scan_at_eof(s)) {
        if (read_entry(s, sh, t, err) || skip_comments(s, sh, 1, err))
            return -1;
    }
    if (t->order == 0 && t->nnz != 1)
        return error_at(err, s->path, 0, "a scalar needs exactly one value, found %zu", t->nnz);
    return 0;
}

int tns_read(const char *path, int order, const int64_t *dims, tensor *out, sam_error *err)
{
    tns_shape sh = {.order = -1};
    if (order > 0) {
        sh.order = order;
        sh.fixed = 1;
        memcpy(sh.dims, dims, (size_t)order * sizeof *dims);
    }
    text_scan s;
    if (scan_open(&s, path, err))
        return -1;
    memset(out, 0, sizeof *out);
    int rc = read_all(&s, &sh, out, err);
    if (rc)
        tensor_free(out);
    scan_close(&s);
    return rc;
}

static void write_entries(text_out *o, const void *arg)
{
    const tensor *t = arg;
    out_str(o, "# written by samsim\n" SHAPE_COMMENT);
    for (int m = 0; m < t->order; m++) {
        out_char(o, ' ');
        out_int64(o, t->dims[m]);
    }
    out_char(o, '\n');
    for (size_t e = 0; e < t->nnz; e++) {
        for (int m = 0; m < t->order; m++) {
            out_int64(o, t->crd[m][e] + 1);
            out_char(o, ' ');
        }
        out_double(o, t->vals[e]);
        out_char(o, '\n');
    }
}

int tns_write(const char *path, const tensor *t, sam_error *err)
{
    return out_write_file(path, write_entries, t, err);
}
