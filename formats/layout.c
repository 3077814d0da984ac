/* Storage layouts and their bytes (layout.h). */
#include "layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/number.h"

/* The layout's last word: "coo" or level letters. */
static int parse_levels(const char *text, const char *word, storage_layout *l, sam_error *err)
{
    size_t n = strlen(word);
    if (!strcmp(word, "coo"))
        return l->coo = 1, 0;
    if (n == 0 || n > TENSOR_MAX_ORDER)
        return error_set(err, "layout '%s': coo, or a level letter (d, s, b or l) per level, at "
                         "most %d, after an optional 'tiled'", text, TENSOR_MAX_ORDER);
    for (size_t k = 0; k < n; k++)
        if (!level_kind_valid(word[k]))
            return error_set(err, "layout '%s': coo, or level letters d (dense), s (compressed), "
                             "b (bitvector) or l (linked list), after an optional 'tiled'", text);
    memcpy(l->kind, word, n);
    l->nlevels = (int)n;
    return 0;
}

int storage_layout_parse(const char *text, storage_layout *l, sam_error *err)
{
    memset(l, 0, sizeof *l);
    const char *word = text;
    if (!strncmp(text, "tiled", 5) && (text[5] == '\0' || text[5] == ' ')) {
        l->tiled = 1;
        word = text + 5;
        while (*word == ' ')
            word++;
        if (!*word)
            return 0;
    }
    return parse_levels(text, word, l, err);
}

/* A list of byte widths of one kind: whole numbers 0..64 in decimal
 * (number.h), separated by commas (list) or one. */
static int parse_widths(const char *kind, const char *text, int list, double *to, int *n,
                        sam_error *err)
{
    char copy[256], *save = NULL;
    /* strtok_r would pass over an empty width at either end or between
     * two commas. */
    int count = 0, ok = strlen(text) < sizeof copy && !strstr(text, ",,") && *text &&
                        text[0] != ',' && text[strlen(text) - 1] != ',';
    snprintf(copy, sizeof copy, "%s", text);
    for (char *w = ok ? strtok_r(copy, ",", &save) : NULL; w && ok;
         w = strtok_r(NULL, ",", &save)) {
        long long v;
        while (*w == ' ')
            w++;
        for (char *end = w + strlen(w); end > w && end[-1] == ' '; end--)
            end[-1] = '\0';
        ok = count < (list ? TENSOR_MAX_ORDER : 1) && !number_parse_whole(w, 0, 64, &v);
        if (ok)
            to[count++] = (double)v;
    }
    if (!ok || count == 0)
        return error_set(err, "bytes %s '%s': %s whole number%s of bytes 0..64", kind, text,
                         list ? "a" : "one", list ? " per level, separated by commas" : "");
    *n = count;
    return 0;
}

int storage_layout_widths(storage_layout *l, const char *kind, const char *text, sam_error *err)
{
    if (!strcmp(kind, "crd"))
        return parse_widths(kind, text, 1, l->crd, &l->ncrd, err);
    if (!strcmp(kind, "ref"))
        return parse_widths(kind, text, 1, l->ref, &l->nref, err);
    return parse_widths(kind, text, 0, &l->val, &l->has_val, err);
}

void storage_layout_str(const storage_layout *l, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%.*s", l->tiled ? "tiled" : "",
             l->tiled && (l->coo || l->nlevels) ? " " : "", l->coo ? 3 : l->nlevels,
             l->coo ? "coo" : l->kind);
}

int storage_layout_check(const storage_layout *l, const level_format *f, sam_error *err)
{
    char have[2 * TENSOR_MAX_ORDER + 1], want[32];
    level_format_str(f, have, sizeof have);
    storage_layout_str(l, want, sizeof want);
    if (!l->coo && l->nlevels && l->nlevels != f->nlevels)
        return error_set(err, "layout %s has %d levels, the tensor's format %s has %d", want,
                         l->nlevels, have, f->nlevels);
    if (l->ncrd && l->ncrd != f->nlevels)
        return error_set(err, "%d coordinate widths, the tensor's format %s has %d levels",
                         l->ncrd, have, f->nlevels);
    if (l->nref && l->nref != f->nlevels)
        return error_set(err, "%d reference widths, the tensor's format %s has %d levels",
                         l->nref, have, f->nlevels);
    return 0;
}

/* The byte widths of each of n levels: l's own where it gives them, else
 * the hardware's crd, ref and val. */
typedef struct widths {
    double crd[TENSOR_MAX_ORDER], ref[TENSOR_MAX_ORDER], val;
} widths;

static void widths_of(const storage_layout *l, int n, double crd, double ref, double val,
                      widths *w)
{
    for (int k = 0; k < n; k++) {
        w->crd[k] = l && l->ncrd ? l->crd[k] : crd;
        w->ref[k] = l && l->nref ? l->ref[k] : ref;
    }
    w->val = l && l->has_val ? l->val : val;
}

/* A COO entry's bytes: its coordinates and its value. */
static double coo_entry(const widths *w, int n)
{
    double bytes = w->val;
    for (int k = 0; k < n; k++)
        bytes += w->crd[k];
    return bytes;
}

double storage_layout_bytes(const storage_layout *l, const level_format *f,
                            const int64_t *distinct, const int64_t *extent, double crd,
                            double ref, double val)
{
    int n = f->nlevels;
    double entries = (double)(n ? distinct[n - 1] : distinct[0]);
    if (entries == 0)
        return 0;
    widths w;
    widths_of(l, n, crd, ref, val, &w);
    if (l && l->coo)
        return entries * coo_entry(&w, n);
    const char *kind = l && l->nlevels ? l->kind : f->kind;
    double above = 1, bytes = 0;
    for (int k = 0; k < n; k++) {
        double here = (double)distinct[k];
        switch (kind[k]) {
        case 's':
            bytes += here * w.crd[k] + (above + 1) * w.ref[k];
            break;
        case 'l':
            bytes += (k ? (double)distinct[k - 1] : 1) * w.ref[k] + here * (w.crd[k] + w.ref[k]);
            break;
        case 'b':
            bytes += above * ceil((double)extent[k] / 64) * 8;
            break;
        default:
            here = above * (double)extent[k];
        }
        above = here;
    }
    return bytes + above * w.val;
}

/* Whether entry a and b of t differ in the modes of f's levels 0..k. */
static int differ_down_to(const tensor *t, const level_format *f, size_t a, size_t b, int k)
{
    for (int j = 0; j <= k; j++)
        if (t->crd[f->mode[j]][a] != t->crd[f->mode[j]][b])
            return 1;
    return 0;
}

int storage_layout_counts(const tensor *t, const level_format *f, int64_t *distinct,
                          int64_t *extent, sam_error *err)
{
    int n = f->nlevels;
    for (int k = 0; k < n; k++) {
        distinct[k] = 0;
        extent[k] = t->dims[f->mode[k]];
    }
    if (n == 0) {
        distinct[0] = (int64_t)t->nnz;
        return 0;
    }
    size_t *perm = error_alloc(err, t->nnz + 1, sizeof *perm);
    if (!perm || tensor_sort_perm(t, f->mode, perm, err)) {
        free(perm);
        return -1;
    }
    for (size_t e = 0; e < t->nnz; e++) {
        /* The first level at which the entry leaves the one before. */
        int from = 0;
        while (e > 0 && from < n && !differ_down_to(t, f, perm[e - 1], perm[e], from))
            from++;
        for (int k = from; k < n; k++)
            distinct[k]++;
    }
    free(perm);
    return 0;
}

/* What one outer fiber with distinct[k] prefixes at each level (distinct[0]
 * = 1) adds to the storage in letters kind (see storage_layout_bytes: a
 * level's seg entries are one per position above, here the fiber's). */
static double fiber_bytes(const char *kind, int n, const int64_t *distinct,
                          const int64_t *extent, const widths *w)
{
    double above = 0, bytes = 0;
    for (int k = 0; k < n; k++) {
        double here = (double)distinct[k];
        switch (kind[k]) {
        case 's':
            bytes += here * w->crd[k] + above * w->ref[k];
            break;
        case 'l':
            bytes += (k ? (double)distinct[k - 1] : 0) * w->ref[k] + here * (w->crd[k] + w->ref[k]);
            break;
        case 'b':
            bytes += above * ceil((double)extent[k] / 64) * 8;
            break;
        default:
            here = k ? above * (double)extent[k] : 1;
        }
        above = here;
    }
    return bytes + above * w->val;
}

int storage_layout_fibers(const storage_layout *l, const level_format *f, const tensor *t,
                          double crd, double ref, double val, int64_t *fiber_crd, double *bytes,
                          size_t *n, sam_error *err)
{
    int order = f->nlevels;
    const char *kind = l && l->nlevels ? l->kind : f->kind;
    int64_t distinct[TENSOR_MAX_ORDER] = {0}, extent[TENSOR_MAX_ORDER];
    widths w;
    widths_of(l, order, crd, ref, val, &w);
    *n = 0;
    if (order == 0)
        return error_set(err, "the fibers of a tensor of no modes");
    for (int k = 0; k < order; k++)
        extent[k] = t->dims[f->mode[k]];
    size_t *perm = error_alloc(err, t->nnz + 1, sizeof *perm);
    if (!perm || tensor_sort_perm(t, f->mode, perm, err)) {
        free(perm);
        return -1;
    }
    for (size_t e = 0; e <= t->nnz; e++) {
        int from = 0;
        while (e > 0 && e < t->nnz && from < order &&
               !differ_down_to(t, f, perm[e - 1], perm[e], from))
            from++;
        if (e > 0 && (from == 0 || e == t->nnz)) {
            bytes[*n] = l && l->coo ? (double)distinct[order - 1] * coo_entry(&w, order) :
                fiber_bytes(kind, order, distinct, extent, &w);
            fiber_crd[(*n)++] = t->crd[f->mode[0]][perm[e - 1]];
            memset(distinct, 0, sizeof distinct);
        }
        for (int k = from; e < t->nnz && k < order; k++)
            distinct[k]++;
    }
    free(perm);
    return 0;
}

int storage_layout_tensor_bytes(const storage_layout *l, const level_format *f, const tensor *t,
                                double crd, double ref, double val, double *bytes,
                                sam_error *err)
{
    int64_t distinct[TENSOR_MAX_ORDER + 1], extent[TENSOR_MAX_ORDER + 1];
    if (storage_layout_counts(t, f, distinct, extent, err))
        return -1;
    *bytes = storage_layout_bytes(l, f, distinct, extent, crd, ref, val);
    return 0;
}
