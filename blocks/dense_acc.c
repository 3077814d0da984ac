#include "dense_acc.h"

#include <stdlib.h>
#include <string.h>

void dense_acc_init(dense_acc *a, int64_t row_dim, int64_t col_dim, int64_t scan)
{
    *a = (dense_acc){.row_dim = row_dim, .col_dim = col_dim, .scan = scan,
                     .max_slots = DENSE_ACC_MAX_SLOTS, .first_row = INT64_MAX, .last_col = -1};
}

int dense_acc_bound(dense_acc *a, int n, const block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t limit, rows = a[0].row_dim ? a[0].row_dim : 1, cols = a[0].col_dim ? a[0].col_dim : 1;
    if (block_dense_limit(ctx, &limit, err))
        return -1;
    if (rows > limit / cols || n > limit / (rows * cols))
        return block_error(b, err, "a dense accumulator of %d x %lld x %lld slots (arrays x rows "
                           "x columns) is more than the dense limit of %lld (set "
                           FIBERTREE_DENSE_ENV " to raise it, or use the sparse "
                           "implementation)", n, (long long)rows, (long long)cols,
                           (long long)limit);
    for (int k = 0; k < n; k++)
        if (limit / n < a[k].max_slots)
            a[k].max_slots = limit / n;
    return 0;
}

static const char too_large[] = "the dense accumulator would exceed its size limit; use the "
                                "sparse implementation";

static int ensure_row(dense_acc *a, int64_t r, const char **fault)
{
    if (r < a->nrows)
        return 0;
    int64_t n = a->nrows ? 2 * a->nrows : 16;
    if (n < r + 1)
        n = r + 1;
    if (a->row_dim && n > a->row_dim)
        n = a->row_dim;
    if (n > a->max_slots) {
        *fault = too_large;
        return 1;
    }
    dense_row *rows = realloc(a->rows, (size_t)n * sizeof *rows);
    if (!rows)
        return -1;
    memset(rows + a->nrows, 0, (size_t)(n - a->nrows) * sizeof *rows);
    a->rows = rows;
    a->nrows = n;
    return 0;
}

/* Values are only read where the bitmap is set, so new slots need no
 * zeroing; new bitmap words do. */
static int ensure_col(dense_acc *a, dense_row *w, int64_t c, const char **fault)
{
    if (c < w->cap)
        return 0;
    int64_t n = a->col_dim ? a->col_dim : w->cap ? 2 * w->cap : 64;
    if (n < c + 1)
        n = c + 1;
    if (a->slots + n - w->cap > a->max_slots) {
        *fault = too_large;
        return 1;
    }
    size_t old_words = (size_t)(w->cap + 63) / 64, words = (size_t)(n + 63) / 64;
    double *val = realloc(w->val, (size_t)n * sizeof *val);
    if (!val)
        return -1;
    w->val = val;
    uint64_t *bits = realloc(w->bits, words * sizeof *bits);
    if (!bits)
        return -1;
    memset(bits + old_words, 0, (words - old_words) * sizeof *bits);
    w->bits = bits;
    a->slots += n - w->cap;
    w->cap = n;
    return 0;
}

int dense_acc_add(dense_acc *a, int64_t r, int64_t c, double v, const char **fault)
{
    if (r < 0 || c < 0 || (a->row_dim && r >= a->row_dim) || (a->col_dim && c >= a->col_dim)) {
        *fault = "a coordinate lies beyond the dimension of the dense accumulator";
        return 1;
    }
    int rc = ensure_row(a, r, fault);
    if (rc || (rc = ensure_col(a, &a->rows[r], c, fault)))
        return rc;
    dense_row *w = &a->rows[r];
    uint64_t bit = (uint64_t)1 << (c & 63);
    if (w->bits[c >> 6] & bit) {
        w->val[c] += v;
        return 0;
    }
    w->bits[c >> 6] |= bit;
    w->val[c] = v;
    a->entries++;
    if (r < a->first_row)
        a->first_row = r;
    if (c > a->last_col)
        a->last_col = c;
    return 0;
}

/* The first occupied column of w at or after c. */
static int row_next(const dense_row *w, int64_t c, int64_t *found)
{
    if (c >= w->cap)
        return 0;
    size_t k = (size_t)c / 64, nwords = (size_t)(w->cap + 63) / 64;
    uint64_t word = w->bits[k] & (~(uint64_t)0 << (c & 63));
    while (!word) {
        if (++k == nwords)
            return 0;
        word = w->bits[k];
    }
    *found = (int64_t)k * 64 + __builtin_ctzll(word);
    return 1;
}

/* The next entry in row-major order from (r, c) on; there is one. */
static void find_next(dense_acc *a, int64_t r, int64_t c)
{
    for (;; r++, c = 0)
        if (row_next(&a->rows[r], c, &a->next_c)) {
            a->next_r = r;
            return;
        }
}

/* Empty bitmap words the scan passes between the word of (r, c) and that
 * of the next entry. Rows are padded to whole words. */
static int64_t empty_words(const dense_acc *a, int64_t r, int64_t c)
{
    int64_t cols = a->col_dim ? a->col_dim : a->last_col + 1;
    int64_t per_row = cols / a->scan + (cols % a->scan != 0);
    int64_t from = r * per_row + c / a->scan;
    int64_t to = a->next_r * per_row + a->next_c / a->scan;
    return to > from ? to - from - 1 : 0;
}

dense_acc_out dense_acc_read(dense_acc *a, int64_t *r, int64_t *c, double *v)
{
    if (!a->entries)
        return DENSE_IDLE;
    if (!a->reading) {
        find_next(a, a->first_row, 0);
        a->reading = 1;
    }
    if (a->wait) {
        a->wait--;
        return DENSE_SCAN;
    }
    *r = a->next_r;
    *c = a->next_c;
    dense_row *w = &a->rows[*r];
    *v = w->val[*c];
    w->bits[*c >> 6] &= ~((uint64_t)1 << (*c & 63));
    if (--a->entries) {
        find_next(a, *r, *c + 1);
        a->wait = empty_words(a, *r, *c);
    } else {
        a->reading = 0;
        a->first_row = INT64_MAX;
        a->last_col = -1;
    }
    return DENSE_ENTRY;
}

/* a empty, its rows kept when its dimensions are known and stay. */
static void restart(dense_acc *a, int64_t row_dim, int64_t col_dim)
{
    if (!row_dim || !col_dim || row_dim != a->row_dim || col_dim != a->col_dim) {
        dense_acc_free(a);
        dense_acc_init(a, row_dim, col_dim, a->scan);
        return;
    }
    for (int64_t r = 0; a->entries && r < a->nrows; r++)
        if (a->rows[r].cap)
            memset(a->rows[r].bits, 0, (size_t)(a->rows[r].cap + 63) / 64 * sizeof(uint64_t));
    dense_row *rows = a->rows;
    int64_t nrows = a->nrows, slots = a->slots;
    dense_acc_init(a, row_dim, col_dim, a->scan);
    a->rows = rows;
    a->nrows = nrows;
    a->slots = slots;
}

int dense_acc_rearm(dense_acc *a, int n, int64_t row_dim, int64_t col_dim, const block *b,
                    const block_ctx *ctx, sam_error *err)
{
    for (int k = 0; k < n; k++)
        restart(&a[k], row_dim, col_dim);
    if (dense_acc_bound(a, n, b, ctx, err))
        return -1;
    /* Where the bound is below the whole array, a fresh one's allocations
     * decide its faults: it starts without rows. */
    for (int k = 0; k < n; k++)
        if (a[k].nrows && a[k].row_dim * a[k].col_dim > a[k].max_slots) {
            dense_acc_free(&a[k]);
            a[k].slots = 0;
        }
    return 0;
}

void dense_acc_free(dense_acc *a)
{
    for (int64_t r = 0; r < a->nrows; r++) {
        free(a->rows[r].val);
        free(a->rows[r].bits);
    }
    free(a->rows);
    a->rows = NULL;
    a->nrows = 0;
}

int64_t dense_acc_index_dim(const block_ctx *ctx, const char *idx)
{
    const sam_graph *g = ctx->graph;
    int64_t dim = 0;
    if (!g || !ctx->tensor || !idx)
        return 0;
    for (int k = 0; k < g->nnodes; k++) {
        const graph_node *n = &g->nodes[k];
        const char *index = graph_node_attr(n, "index"), *name = graph_node_attr(n, "tensor");
        const char *mode = graph_node_attr(n, "mode");
        if (strcmp(n->type, "fiberlookup") || !index || strcmp(index, idx) || !name || !mode)
            continue;
        const fibertree *ft = ctx->tensor(ctx, name);
        char *end;
        long m = strtol(mode, &end, 10);
        if (ft && *mode && !*end && m >= 0 && m < ft->order && ft->dims[m] > dim)
            dim = ft->dims[m];
    }
    return dim;
}

