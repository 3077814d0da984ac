#include "gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"

/* Regular tensors larger than this are refused before anything is
 * allocated, instead of failing (or swapping) halfway. */
#define GEN_MAX_ENTRIES ((uint64_t)1 << 31)
/* Keeps the position arithmetic of the vector pairs far from overflow. */
#define GEN_MAX_SIZE ((int64_t)1 << 60)
/* Byte digits: on 10 million keys, five passes of 256 buckets beat four
 * of 2048, whose scattered writes miss the cache. */
#define GEN_RADIX_BITS 8
#define GEN_RADIX_MASK ((1u << GEN_RADIX_BITS) - 1)
/* R-MAT gives up after this many draws per entry: probabilities that leave
 * some positions (nearly) unreachable would otherwise loop forever. */
#define GEN_RMAT_DRAWS_PER_ENTRY 100
#define GEN_VALUE_MAX 1000

typedef int (*gen_draw_fn)(void *ctx, prng *r, uint64_t *key, sam_error *err);

static const char *gen_shape_str(int order, const int64_t *dims, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int m = 0; m < order && n < size; m++)
        n += (size_t)snprintf(buf + n, size - n, m ? " x %lld" : "%lld", (long long)dims[m]);
    return buf;
}

/* Like tensor_init, but a generator needs at least one mode. out is left
 * freeable even on error. */
static int gen_init(tensor *out, int order, const int64_t *dims, sam_error *err)
{
    if (tensor_init(out, order, dims, err))
        return -1;
    if (order < 1)
        return error_set(err, "a generated tensor needs at least one mode");
    return 0;
}

/* 1 with the volume when it fits in 64 bits, 0 when it does not. */
static int gen_volume(const tensor *t, uint64_t *vol)
{
    uint64_t v = 1;
    for (int m = 0; m < t->order; m++)
        if (t->dims[m] == 0) {
            *vol = 0;
            return 1;
        }
    for (int m = 0; m < t->order; m++) {
        uint64_t d = (uint64_t)t->dims[m];
        if (v > UINT64_MAX / d)
            return 0;
        v *= d;
    }
    *vol = v;
    return 1;
}

static int gen_bit_length(uint64_t x)
{
    int bits = 0;
    for (; x; x >>= 1)
        bits++;
    return bits;
}

static double gen_unit_value(prng *r)
{
    return 1.0 - prng_unit(r);
}

static double gen_int_value(prng *r)
{
    return (double)(1 + prng_below(r, GEN_VALUE_MAX));
}

/* Values are drawn after all positions, in entry order, so that they do
 * not depend on how the positions were found. */
static void gen_fill_unit(tensor *t, prng *r)
{
    for (size_t e = 0; e < t->nnz; e++)
        t->vals[e] = gen_unit_value(r);
}

/* Entry e of t becomes linear position key, the last mode varying fastest
 * so that key order is the natural order. */
static void gen_decode(tensor *t, size_t e, uint64_t key)
{
    for (int m = t->order - 1; m >= 0; m--) {
        t->crd[m][e] = (int64_t)(key % (uint64_t)t->dims[m]);
        key /= (uint64_t)t->dims[m];
    }
}

static int gen_from_keys(tensor *t, const uint64_t *keys, size_t n, sam_error *err)
{
    if (tensor_reserve(t, n, err))
        return -1;
    for (size_t e = 0; e < n; e++)
        gen_decode(t, e, keys[e]);
    t->nnz = n;
    return 0;
}

/* LSD radix sort of n keys below 2^bits, with n keys of scratch in tmp. */
static void gen_radix_sort(uint64_t *keys, uint64_t *tmp, size_t n, int bits)
{
    uint64_t *src = keys, *dst = tmp;
    for (int shift = 0; shift < bits; shift += GEN_RADIX_BITS) {
        size_t count[GEN_RADIX_MASK + 2] = {0};
        for (size_t i = 0; i < n; i++)
            count[((src[i] >> shift) & GEN_RADIX_MASK) + 1]++;
        for (size_t d = 1; d <= GEN_RADIX_MASK + 1; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & GEN_RADIX_MASK]++] = src[i];
        uint64_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != keys)
        memcpy(keys, src, n * sizeof *keys);
}

/* Merges sorted distinct head with sorted tail into out without repeats;
 * returns how many keys out holds. */
static size_t gen_merge_unique(const uint64_t *head, size_t nh, const uint64_t *tail, size_t nt,
                               uint64_t *out)
{
    size_t i = 0, j = 0, n = 0;
    while (i < nh || j < nt) {
        uint64_t k = (j == nt || (i < nh && head[i] <= tail[j])) ? head[i++] : tail[j++];
        if (n == 0 || out[n - 1] != k)
            out[n++] = k;
    }
    return n;
}

/* Draws n keys into keys and sorts them, with n keys of scratch. */
static int gen_draw_sorted(uint64_t *keys, size_t n, gen_draw_fn draw, void *ctx, prng *r,
                           uint64_t *scratch, sam_error *err)
{
    uint64_t max = 0;
    for (size_t i = 0; i < n; i++) {
        if (draw(ctx, r, &keys[i], err))
            return -1;
        max = keys[i] > max ? keys[i] : max;
    }
    gen_radix_sort(keys, scratch, n, gen_bit_length(max));
    return 0;
}

/* nnz distinct keys from draw, sorted. The shortfall left by repeats is
 * drawn again in rounds; the result is still the first nnz distinct keys of
 * one random sequence, as if each repeat had been redrawn at once, but
 * costs a sort per round instead of a set lookup per draw. */
static uint64_t *gen_sample_keys(size_t nnz, gen_draw_fn draw, void *ctx, prng *r,
                                 sam_error *err)
{
    uint64_t *keys = error_alloc(err, nnz, sizeof *keys);
    uint64_t *tmp = error_alloc(err, nnz, sizeof *tmp);
    int rc = keys && tmp ? 0 : -1;
    for (size_t have = 0; rc == 0 && have < nnz;) {
        rc = gen_draw_sorted(keys + have, nnz - have, draw, ctx, r, tmp, err);
        if (rc == 0) {
            have = gen_merge_unique(keys, have, keys + have, nnz - have, tmp);
            uint64_t *swap = keys;
            keys = tmp;
            tmp = swap;
        }
    }
    free(tmp);
    if (rc) {
        free(keys);
        return NULL;
    }
    return keys;
}

/* Knuth's algorithm S: each position in turn is taken with probability
 * (still needed) / (still left), which takes exactly k, in order. */
static uint64_t *gen_select_keys(uint64_t n, size_t k, prng *r, sam_error *err)
{
    uint64_t *keys = error_alloc(err, k, sizeof *keys);
    size_t got = 0;
    for (uint64_t t = 0; keys && got < k; t++)
        if (prng_below(r, n - t) < k - got)
            keys[got++] = t;
    return keys;
}

static int gen_uniform_draw(void *ctx, prng *r, uint64_t *key, sam_error *err)
{
    (void)err;
    *key = prng_below(r, *(const uint64_t *)ctx);
    return 0;
}

/* k distinct values below n, sorted, every such set equally likely. When
 * they fill more than a quarter of the range, repeats make drawing slower
 * than scanning the range (measured: the two cross near a quarter). */
static uint64_t *gen_choose(uint64_t n, size_t k, prng *r, sam_error *err)
{
    if (k > n / 4)
        return gen_select_keys(n, k, r, err);
    return gen_sample_keys(k, gen_uniform_draw, &n, r, err);
}

static int gen_urandom_keys(tensor *out, uint64_t vol, size_t nnz, prng *r, sam_error *err)
{
    if (nnz > vol) {
        char shape[256];
        return error_set(err, "urandom: %zu nonzeros do not fit in %s (%llu positions)", nnz,
                         gen_shape_str(out->order, out->dims, shape, sizeof shape),
                         (unsigned long long)vol);
    }
    uint64_t *keys = gen_choose(vol, nnz, r, err);
    if (!keys)
        return -1;
    int rc = gen_from_keys(out, keys, nnz, err);
    free(keys);
    return rc;
}

/* Beyond 64 bits there is no linear key, but there repeats are so rare that
 * summing them away with tensor_canonicalize and redrawing costs nothing. */
static int gen_urandom_huge(tensor *out, size_t nnz, prng *r, sam_error *err)
{
    int64_t c[TENSOR_MAX_ORDER];
    if (tensor_reserve(out, nnz, err))
        return -1;
    while (out->nnz < nnz) {
        for (size_t missing = nnz - out->nnz; missing > 0; missing--) {
            for (int m = 0; m < out->order; m++)
                c[m] = (int64_t)prng_below(r, (uint64_t)out->dims[m]);
            if (tensor_append(out, c, 0.0, err))
                return -1;
        }
        if (tensor_canonicalize(out, NULL, err))
            return -1;
    }
    return 0;
}

int gen_urandom(tensor *out, int order, const int64_t *dims, size_t nnz, uint64_t seed,
                sam_error *err)
{
    if (gen_init(out, order, dims, err))
        return -1;
    prng r;
    prng_seed(&r, seed);
    uint64_t vol;
    int rc = gen_volume(out, &vol) ? gen_urandom_keys(out, vol, nnz, &r, err)
                                   : gen_urandom_huge(out, nnz, &r, err);
    if (rc) {
        tensor_free(out);
        return -1;
    }
    gen_fill_unit(out, &r);
    return 0;
}

int gen_nnz_for_density(int order, const int64_t *dims, double density, size_t *nnz,
                        sam_error *err)
{
    if (!(density >= 0.0 && density <= 1.0))
        return error_set(err, "density %g is outside [0, 1]", density);
    double vol = 1.0;
    for (int m = 0; m < order; m++)
        vol *= (double)dims[m];
    double n = round(density * vol);
    if (n >= (double)SIZE_MAX)
        return error_set(err, "density %g gives too many nonzeros (%g)", density, n);
    *nnz = (size_t)n;
    return 0;
}

/* Two empty vectors of length size; both freeable even on error. */
static int gen_init_pair(tensor *a, tensor *b, int64_t size, int64_t len, const char *what,
                         sam_error *err)
{
    int ra = tensor_init(a, 1, &size, err);
    int rb = tensor_init(b, 1, &size, err);
    if (ra || rb)
        return -1;
    if (size > GEN_MAX_SIZE)
        return error_set(err, "%ss: vector length %lld is too large", what, (long long)size);
    if (len < 1)
        return error_set(err, "%ss: %s length %lld must be at least 1", what, what,
                         (long long)len);
    return 0;
}

static int gen_pair_fail(tensor *a, tensor *b)
{
    tensor_free(a);
    tensor_free(b);
    return -1;
}

/* One coordinate of a run or shared segment: 1 when it was placed, 0 when
 * both vectors that want it are full. */
static int gen_runs_put(tensor *a, tensor *b, int want_a, int want_b, int64_t pos, size_t nnz,
                        prng *r, sam_error *err)
{
    int put_a = want_a && a->nnz < nnz, put_b = want_b && b->nnz < nnz;
    if ((put_a && tensor_append(a, &pos, gen_int_value(r), err)) ||
        (put_b && tensor_append(b, &pos, gen_int_value(r), err)))
        return -1;
    return put_a || put_b;
}

int gen_runs(tensor *a, tensor *b, int64_t size, size_t nnz, int64_t run_length, uint64_t seed,
             sam_error *err)
{
    if (gen_init_pair(a, b, size, run_length, "run", err))
        return gen_pair_fail(a, b);
    prng r;
    prng_seed(&r, seed);
    int64_t pos = 0;
    /* Segments cycle: a's run, shared, b's run, shared. */
    for (int seg = 0; a->nnz < nnz || b->nnz < nnz; seg = (seg + 1) % 4) {
        int64_t len = seg % 2 ? 1 : run_length;
        for (int64_t i = 0; i < len; i++) {
            if (pos == size && (a->nnz < nnz || b->nnz < nnz)) {
                error_set(err, "runs: %zu nonzeros in runs of %lld do not fit in a vector of %lld",
                          nnz, (long long)run_length, (long long)size);
                return gen_pair_fail(a, b);
            }
            int placed = gen_runs_put(a, b, seg != 2, seg != 0, pos, nnz, &r, err);
            if (placed < 0)
                return gen_pair_fail(a, b);
            if (!placed)
                break;
            pos++;
        }
    }
    return 0;
}

static int gen_append_block(tensor *t, int64_t start, int64_t len, prng *r, sam_error *err)
{
    for (int64_t p = start; p < start + len; p++)
        if (tensor_append(t, &p, gen_int_value(r), err))
            return -1;
    return 0;
}

/* With gaps of gap between a's blocks, shifts within +-half never make b's
 * blocks overlap or touch, and a margin of half at each end keeps them in
 * the vector. Block i starts at half + y_i - i + i * (len + gap) for k
 * sorted distinct y_i below slack + k: every placement equally likely. */
static int gen_blocks_place(tensor *a, tensor *b, size_t nnz, int64_t len, prng *r,
                            sam_error *err)
{
    int64_t half = len / 2, gap = 2 * half + 1;
    int64_t k = ((int64_t)nnz + len - 1) / len;
    int64_t slack = a->dims[0] - (k * len + (k - 1) * gap + 2 * half);
    if (slack < 0)
        return error_set(err,
                         "blocks: %zu nonzeros in blocks of %lld (with gaps of %lld) do not fit in "
                         "a vector of %lld",
                         nnz, (long long)len, (long long)gap, (long long)a->dims[0]);
    uint64_t *y = gen_choose((uint64_t)(slack + k), (size_t)k, r, err);
    if (!y)
        return -1;
    int rc = 0;
    for (int64_t i = 0; i < k && rc == 0; i++) {
        int64_t start = half + (int64_t)y[i] - i + i * (len + gap);
        int64_t n = (int64_t)nnz - i * len < len ? (int64_t)nnz - i * len : len;
        int64_t shift = (int64_t)prng_below(r, (uint64_t)(n / 2 * 2 + 1)) - n / 2;
        rc = gen_append_block(a, start, n, r, err) || gen_append_block(b, start + shift, n, r, err);
    }
    free(y);
    return rc ? -1 : 0;
}

int gen_blocks(tensor *a, tensor *b, int64_t size, size_t nnz, int64_t block_len, uint64_t seed,
               sam_error *err)
{
    if (gen_init_pair(a, b, size, block_len, "block", err))
        return gen_pair_fail(a, b);
    if (nnz > (uint64_t)size || block_len > size) {
        error_set(err, "blocks: %zu nonzeros in blocks of %lld do not fit in a vector of %lld",
                  nnz, (long long)block_len, (long long)size);
        return gen_pair_fail(a, b);
    }
    prng r;
    prng_seed(&r, seed);
    if (nnz > 0 && gen_blocks_place(a, b, nnz, block_len, &r, err))
        return gen_pair_fail(a, b);
    return 0;
}

typedef struct gen_rmat_ctx {
    uint64_t rows, cols;
    int row_bits, col_bits, levels;
    /* Cumulative quadrant probabilities scaled to 53-bit integers, fixed
     * once so that every draw is an exact integer comparison. */
    uint64_t t_a, t_ab, t_abc, t_ac;
    uint64_t draws, max_draws;
} gen_rmat_ctx;

/* Quadrant bits of one level of the descent: the row bit is the lower half
 * (c or d), the column bit the right half (b or d), which the parity of the
 * thresholds passed gives without unpredictable branches. Levels above the
 * shorter side's bits split only the longer side, by its marginal. */
static void gen_rmat_level(const gen_rmat_ctx *g, int level, uint64_t x, uint64_t *i, uint64_t *j)
{
    int has_row = level <= g->row_bits, has_col = level <= g->col_bits;
    uint64_t ge_a = x >= g->t_a, ge_ab = x >= g->t_ab, ge_abc = x >= g->t_abc;
    if (has_row)
        *i = *i << 1 | ge_ab;
    if (has_col)
        *j = *j << 1 | (has_row ? ge_a ^ ge_ab ^ ge_abc : (uint64_t)(x >= g->t_ac));
}

static int gen_rmat_draw(void *ctx, prng *r, uint64_t *key, sam_error *err)
{
    gen_rmat_ctx *g = ctx;
    for (;;) {
        if (g->draws++ == g->max_draws)
            return error_set(err,
                             "rmat: still short of distinct positions after %llu draws; "
                             "the probabilities make the remaining ones too unlikely",
                             (unsigned long long)g->max_draws);
        uint64_t i = 0, j = 0;
        for (int level = g->levels; level > 0; level--)
            gen_rmat_level(g, level, prng_next(r) >> 11, &i, &j);
        if (i < g->rows && j < g->cols) {
            *key = i * g->cols + j;
            return 0;
        }
    }
}

static uint64_t gen_threshold(double p)
{
    double t = round(p * 0x1.0p53);
    return t >= 0x1.0p53 ? (uint64_t)1 << 53 : (uint64_t)t;
}

static int gen_rmat_setup(gen_rmat_ctx *g, const tensor *out, size_t nnz, double a, double b,
                          double c, sam_error *err)
{
    /* The slack admits decimal inputs such as 0.5, 0.3, 0.2 whose binary
     * sum lands just above 1; gen_threshold caps them at 1. */
    if (!(a >= 0 && b >= 0 && c >= 0 && a + b + c <= 1 + 1e-9))
        return error_set(err, "rmat: probabilities a=%g b=%g c=%g must be non-negative with "
                              "a+b+c at most 1", a, b, c);
    uint64_t vol;
    if (!gen_volume(out, &vol))
        return error_set(err, "rmat: %lld x %lld has too many positions",
                         (long long)out->dims[0], (long long)out->dims[1]);
    if (nnz > vol)
        return error_set(err, "rmat: %zu nonzeros do not fit in %lld x %lld", nnz,
                         (long long)out->dims[0], (long long)out->dims[1]);
    memset(g, 0, sizeof *g);
    g->rows = (uint64_t)out->dims[0];
    g->cols = (uint64_t)out->dims[1];
    g->row_bits = g->rows ? gen_bit_length(g->rows - 1) : 0;
    g->col_bits = g->cols ? gen_bit_length(g->cols - 1) : 0;
    g->levels = g->row_bits > g->col_bits ? g->row_bits : g->col_bits;
    g->t_a = gen_threshold(a);
    g->t_ab = gen_threshold(a + b);
    g->t_abc = gen_threshold(a + b + c);
    g->t_ac = gen_threshold(a + c);
    g->max_draws = GEN_RMAT_DRAWS_PER_ENTRY * (uint64_t)nnz + 1000;
    return 0;
}

int gen_rmat(tensor *out, int64_t rows, int64_t cols, size_t nnz, double a, double b, double c,
             uint64_t seed, sam_error *err)
{
    int64_t dims[2] = {rows, cols};
    gen_rmat_ctx g;
    if (gen_init(out, 2, dims, err) || gen_rmat_setup(&g, out, nnz, a, b, c, err)) {
        tensor_free(out);
        return -1;
    }
    prng r;
    prng_seed(&r, seed);
    uint64_t *keys = gen_sample_keys(nnz, gen_rmat_draw, &g, &r, err);
    int rc = keys ? gen_from_keys(out, keys, nnz, err) : -1;
    free(keys);
    if (rc) {
        tensor_free(out);
        return -1;
    }
    gen_fill_unit(out, &r);
    return 0;
}

static int gen_check_entries(uint64_t n, const char *what, sam_error *err)
{
    if (n > GEN_MAX_ENTRIES)
        return error_set(err, "%s: more than the limit of %llu entries", what,
                         (unsigned long long)GEN_MAX_ENTRIES);
    return 0;
}

/* Columns lo..hi of row i inside the band (none when lo > hi), written
 * so that nothing overflows for any dimensions. */
static void gen_band_row(const tensor *t, int64_t i, int64_t lower, int64_t upper, int64_t *lo,
                         int64_t *hi)
{
    int64_t cols = t->dims[1];
    *lo = i > lower ? i - lower : 0;
    *hi = cols - 1 - i < upper ? cols - 1 : i + upper;
}

/* Counting first lets an oversized band fail before anything is stored;
 * every row up to the last non-empty one adds at least one entry, so the
 * count passes the limit within that many rows. */
static int gen_band_count(tensor *t, int64_t lower, int64_t upper, sam_error *err)
{
    uint64_t n = 0;
    for (int64_t i = 0; i < t->dims[0]; i++) {
        int64_t lo, hi;
        gen_band_row(t, i, lower, upper, &lo, &hi);
        if (lo > hi)
            break;
        n += (uint64_t)(hi - lo + 1);
        if (gen_check_entries(n, "banded", err))
            return -1;
    }
    return tensor_reserve(t, n, err);
}

int gen_banded(tensor *out, int64_t rows, int64_t cols, int64_t lower, int64_t upper,
               uint64_t seed, sam_error *err)
{
    int64_t dims[2] = {rows, cols};
    if (gen_init(out, 2, dims, err))
        return -1;
    if (lower < 0 || upper < 0) {
        tensor_free(out);
        return error_set(err, "banded: lower %lld and upper %lld must not be negative",
                         (long long)lower, (long long)upper);
    }
    if (gen_band_count(out, lower, upper, err)) {
        tensor_free(out);
        return -1;
    }
    for (int64_t i = 0; i < rows; i++) {
        int64_t lo, hi;
        gen_band_row(out, i, lower, upper, &lo, &hi);
        for (int64_t j = lo; j <= hi; j++) {
            out->crd[0][out->nnz] = i;
            out->crd[1][out->nnz++] = j;
        }
        if (lo > hi)
            break;
    }
    prng r;
    prng_seed(&r, seed);
    gen_fill_unit(out, &r);
    return 0;
}

int gen_identity(tensor *out, int64_t n, sam_error *err)
{
    int64_t dims[2] = {n, n};
    if (gen_init(out, 2, dims, err) || gen_check_entries((uint64_t)n, "identity", err) ||
        tensor_reserve(out, (size_t)n, err)) {
        tensor_free(out);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        out->crd[0][i] = out->crd[1][i] = i;
        out->vals[i] = 1.0;
    }
    out->nnz = (size_t)n;
    return 0;
}

int gen_dense(tensor *out, int order, const int64_t *dims, uint64_t seed, sam_error *err)
{
    if (gen_init(out, order, dims, err))
        return -1;
    uint64_t vol;
    if (!gen_volume(out, &vol))
        vol = UINT64_MAX;
    if (gen_check_entries(vol, "dense", err) || tensor_reserve(out, (size_t)vol, err)) {
        tensor_free(out);
        return -1;
    }
    for (uint64_t e = 0; e < vol; e++)
        gen_decode(out, e, e);
    out->nnz = (size_t)vol;
    prng r;
    prng_seed(&r, seed);
    gen_fill_unit(out, &r);
    return 0;
}
