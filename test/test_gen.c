/* The PRNG against its published reference outputs, every generator's
 * promises (exact counts, canonical order, the runs and blocks patterns,
 * R-MAT skew, band shapes), reproducibility from the seed, and the gen
 * command's arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/gen.h"
#include "../formats/prng.h"
#include "test_util.h"

/* ------------------------------------------------------------- helpers */

/* Entries strictly increasing in the natural order (so sorted and without
 * repeats), inside dims, with values in (0,1] or, for integer values,
 * whole numbers in 1..1000. */
static void assert_canonical(const tensor *t, int integer_values)
{
    for (size_t e = 0; e < t->nnz; e++) {
        int cmp = e == 0 ? -1 : 0;
        for (int m = 0; m < t->order; m++) {
            int64_t c = t->crd[m][e];
            assert_true(c >= 0 && c < t->dims[m]);
            if (cmp == 0 && t->crd[m][e - 1] != c)
                cmp = t->crd[m][e - 1] < c ? -1 : 1;
        }
        assert_int_equal(cmp, -1);
        double v = t->vals[e];
        if (integer_values)
            assert_true(v >= 1 && v <= 1000 && v == floor(v));
        else
            assert_true(v > 0 && v <= 1);
    }
}

/* A failed generator leaves the tensor empty and safe to free again. */
static void assert_left_empty(const tensor *t)
{
    assert_int_equal(t->nnz, 0);
    assert_null(t->vals);
    for (int m = 0; m < TENSOR_MAX_ORDER; m++)
        assert_null(t->crd[m]);
}

static int has(const tensor *v, int64_t pos)
{
    for (size_t e = 0; e < v->nnz; e++)
        if (v->crd[0][e] == pos)
            return 1;
    return 0;
}

/* FNV-1a over every coordinate and the bits of every value. */
static uint64_t fingerprint(const tensor *t)
{
    uint64_t h = 1469598103934665603u;
    for (size_t e = 0; e < t->nnz; e++) {
        uint64_t words[TENSOR_MAX_ORDER + 1];
        for (int m = 0; m < t->order; m++)
            words[m] = (uint64_t)t->crd[m][e];
        memcpy(&words[t->order], &t->vals[e], sizeof(double));
        for (int w = 0; w <= t->order; w++)
            for (int k = 0; k < 8; k++) {
                h ^= (words[w] >> (8 * k)) & 0xff;
                h *= 1099511628211u;
            }
    }
    return h;
}

/* ---------------------------------------------------------------- prng */

static void test_prng_seed_is_splitmix64(void **state)
{
    (void)state;
    prng r;
    prng_seed(&r, 0);
    assert_true(r.s[0] == 0xe220a8397b1dcdafu);
    assert_true(r.s[1] == 0x6e789e6aa1b965f4u);
    assert_true(r.s[2] == 0x06c45d188009454fu);
    assert_true(r.s[3] == 0xf88bb8a8724c81ecu);
}

static void test_prng_xoshiro256starstar_reference(void **state)
{
    (void)state;
    prng r = {{1, 2, 3, 4}};
    static const uint64_t want[] = {11520u, 0u, 1509978240u, 1215971899390074240u};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_true(prng_next(&r) == want[i]);
}

static void test_prng_below_uniform(void **state)
{
    (void)state;
    prng r;
    prng_seed(&r, 42);
    size_t count[7] = {0};
    for (int i = 0; i < 70000; i++)
        count[prng_below(&r, 7)]++;
    for (int k = 0; k < 7; k++)
        assert_true(count[k] > 9500 && count[k] < 10500);
    uint64_t big = ((uint64_t)1 << 63) + 12345;
    for (int i = 0; i < 1000; i++) {
        assert_true(prng_below(&r, big) < big);
        assert_true(prng_below(&r, 1) == 0);
    }
    assert_true(prng_below(&r, 0) == 0);
}

static void test_prng_unit_is_53_bit(void **state)
{
    (void)state;
    prng r, q;
    prng_seed(&r, 9);
    prng_seed(&q, 9);
    for (int i = 0; i < 1000; i++) {
        double u = prng_unit(&r);
        assert_true(u >= 0 && u < 1);
        assert_true(u * 0x1.0p53 == (double)(prng_next(&q) >> 11));
    }
}

/* ------------------------------------------------------------- urandom */

static void check_urandom(int order, const int64_t *dims, size_t nnz)
{
    tensor t;
    sam_error err;
    assert_int_equal(gen_urandom(&t, order, dims, nnz, 5, &err), 0);
    assert_int_equal(t.order, order);
    for (int m = 0; m < order; m++)
        assert_true(t.dims[m] == dims[m]);
    assert_int_equal(t.nnz, nnz);
    assert_canonical(&t, 0);
    tensor_free(&t);
}

static void test_urandom_orders(void **state)
{
    (void)state;
    check_urandom(1, (const int64_t[]){2000}, 400);
    check_urandom(1, (const int64_t[]){10}, 9);
    check_urandom(2, (const int64_t[]){250, 100}, 1250);
    check_urandom(2, (const int64_t[]){30, 20}, 500); /* mostly full: selection */
    check_urandom(3, (const int64_t[]){12, 10, 9}, 100);
    check_urandom(4, (const int64_t[]){5, 6, 7, 8}, 1000);
    check_urandom(2, (const int64_t[]){1000000, 1000000}, 20000);
    check_urandom(2, (const int64_t[]){3, 3}, 0);
}

static void test_urandom_beyond_64_bit_volume(void **state)
{
    (void)state;
    check_urandom(4, (const int64_t[]){1000000, 1000000, 1000000, 1000000}, 5000);
}

static void test_urandom_density_one_is_every_position(void **state)
{
    (void)state;
    const int64_t dims[3] = {4, 3, 5};
    size_t nnz;
    sam_error err;
    assert_int_equal(gen_nnz_for_density(3, dims, 1.0, &nnz, &err), 0);
    assert_int_equal(nnz, 60);
    tensor t;
    assert_int_equal(gen_urandom(&t, 3, dims, nnz, 1, &err), 0);
    for (size_t e = 0; e < t.nnz; e++) {
        assert_true(t.crd[0][e] == (int64_t)(e / 15));
        assert_true(t.crd[1][e] == (int64_t)(e / 5 % 3));
        assert_true(t.crd[2][e] == (int64_t)(e % 5));
    }
    tensor_free(&t);
}

static void test_density_rounding(void **state)
{
    (void)state;
    const int64_t dims[2] = {7, 3};
    size_t nnz;
    sam_error err;
    assert_int_equal(gen_nnz_for_density(2, dims, 0.3, &nnz, &err), 0); /* 6.3 */
    assert_int_equal(nnz, 6);
    assert_int_equal(gen_nnz_for_density(2, dims, 0.31, &nnz, &err), 0); /* 6.51 */
    assert_int_equal(nnz, 7);
    assert_int_equal(gen_nnz_for_density(2, dims, 0.0, &nnz, &err), 0);
    assert_int_equal(nnz, 0);
    assert_int_equal(gen_nnz_for_density(2, dims, 1.5, &nnz, &err), -1);
    assert_non_null(strstr(err.msg, "outside [0, 1]"));
    assert_int_equal(gen_nnz_for_density(2, dims, -0.1, &nnz, &err), -1);
    assert_int_equal(gen_nnz_for_density(2, dims, NAN, &nnz, &err), -1);
}

static void test_urandom_too_many_nonzeros(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    assert_int_equal(gen_urandom(&t, 2, (const int64_t[]){20, 10}, 201, 1, &err), -1);
    assert_string_equal(err.msg, "urandom: 201 nonzeros do not fit in 20 x 10 (200 positions)");
    assert_left_empty(&t);
    assert_int_equal(gen_urandom(&t, 0, NULL, 0, 1, &err), -1);
    assert_left_empty(&t);
}

/* Every position is equally likely, on both the drawing and the selection
 * paths: over many seeds each of 20 positions is picked near k/20 of the
 * time. */
static void check_urandom_uniform(size_t k)
{
    const int64_t dims[2] = {5, 4};
    size_t count[20] = {0};
    const int trials = 4000;
    for (int s = 0; s < trials; s++) {
        tensor t;
        sam_error err;
        assert_int_equal(gen_urandom(&t, 2, dims, k, (uint64_t)s, &err), 0);
        for (size_t e = 0; e < t.nnz; e++)
            count[t.crd[0][e] * 4 + t.crd[1][e]]++;
        tensor_free(&t);
    }
    double expect = (double)trials * (double)k / 20;
    for (int p = 0; p < 20; p++)
        assert_true(fabs((double)count[p] - expect) < 0.1 * expect);
}

static void test_urandom_uniform(void **state)
{
    (void)state;
    check_urandom_uniform(4);
    check_urandom_uniform(13);
}

static void test_same_seed_same_tensor(void **state)
{
    (void)state;
    const int64_t dims[3] = {40, 30, 20};
    tensor x, y, z;
    sam_error err;
    assert_int_equal(gen_urandom(&x, 3, dims, 700, 11, &err), 0);
    assert_int_equal(gen_urandom(&y, 3, dims, 700, 11, &err), 0);
    assert_int_equal(gen_urandom(&z, 3, dims, 700, 12, &err), 0);
    assert_true(tensor_equal(&x, &y));
    assert_false(tensor_equal(&x, &z));
    tensor_free(&x);
    tensor_free(&y);
    tensor_free(&z);
    assert_int_equal(gen_rmat(&x, 64, 64, 300, 0.57, 0.19, 0.19, 3, &err), 0);
    assert_int_equal(gen_rmat(&y, 64, 64, 300, 0.57, 0.19, 0.19, 3, &err), 0);
    assert_int_equal(gen_rmat(&z, 64, 64, 300, 0.57, 0.19, 0.19, 4, &err), 0);
    assert_true(tensor_equal(&x, &y));
    assert_false(tensor_equal(&x, &z));
    tensor_free(&x);
    tensor_free(&y);
    tensor_free(&z);
    assert_int_equal(gen_dense(&x, 2, (const int64_t[]){3, 3}, 1, &err), 0);
    assert_int_equal(gen_dense(&y, 2, (const int64_t[]){3, 3}, 1, &err), 0);
    assert_int_equal(gen_dense(&z, 2, (const int64_t[]){3, 3}, 2, &err), 0);
    assert_true(tensor_equal(&x, &y));
    assert_false(tensor_equal(&x, &z));
    tensor_free(&x);
    tensor_free(&y);
    tensor_free(&z);
}

/* A seed names a data set, so the exact output is pinned: any change to a
 * generator's use of the random stream shows up here. */
static void test_outputs_pinned(void **state)
{
    (void)state;
    tensor t, u;
    sam_error err;
    assert_int_equal(gen_urandom(&t, 2, (const int64_t[]){4, 5}, 4, 1, &err), 0);
    static const struct { int64_t i, j; double v; } want[] = {
        {1, 2, 0x1.3616dc7597734p-2},
        {2, 0, 0x1.b67db9db2004cp-1},
        {2, 1, 0x1.db9ff620e415ep-1},
        {2, 4, 0x1.3cd56467709c3p-1},
    };
    assert_int_equal(t.nnz, 4);
    for (size_t e = 0; e < 4; e++)
        assert_true(t.crd[0][e] == want[e].i && t.crd[1][e] == want[e].j &&
                    t.vals[e] == want[e].v);
    tensor_free(&t);
    assert_int_equal(gen_urandom(&t, 2, (const int64_t[]){1000, 1000}, 5000, 3, &err), 0);
    assert_true(fingerprint(&t) == 0x7c753ce2fbdec2ecu);
    tensor_free(&t);
    assert_int_equal(gen_urandom(&t, 2, (const int64_t[]){40, 40}, 1000, 3, &err), 0);
    assert_true(fingerprint(&t) == 0x28e58eae66fd1e18u);
    tensor_free(&t);
    assert_int_equal(gen_rmat(&t, 64, 64, 300, 0.57, 0.19, 0.19, 3, &err), 0);
    assert_true(fingerprint(&t) == 0x5cd36e809863a19eu);
    tensor_free(&t);
    assert_int_equal(gen_blocks(&t, &u, 2000, 400, 20, 3, &err), 0);
    assert_true(fingerprint(&t) == 0x5f9b82e52983a774u && fingerprint(&u) == 0x922d3d708f95bf95u);
    tensor_free(&t);
    tensor_free(&u);
    assert_int_equal(gen_runs(&t, &u, 2000, 400, 20, 3, &err), 0);
    assert_true(fingerprint(&t) == 0x4730d3c03205008fu && fingerprint(&u) == 0xb4599b7353b8a418u);
    tensor_free(&t);
    tensor_free(&u);
}

/* ---------------------------------------------------------- runs, blocks */

static void test_runs_pattern(void **state)
{
    (void)state;
    const int64_t run = 10;
    tensor a, b;
    sam_error err;
    assert_int_equal(gen_runs(&a, &b, 2000, 400, run, 7, &err), 0);
    assert_int_equal(a.nnz, 400);
    assert_int_equal(b.nnz, 400);
    assert_canonical(&a, 1);
    assert_canonical(&b, 1);
    /* Before either fills up, every cycle of 2*run+2 coordinates is a's
     * run, a shared coordinate, b's run, a shared coordinate. */
    for (int64_t p = 0; p < 30 * (2 * run + 2); p++) {
        int64_t o = p % (2 * run + 2);
        int in_a = o <= run || o == 2 * run + 1, in_b = o >= run;
        assert_int_equal(has(&a, p), in_a);
        assert_int_equal(has(&b, p), in_b);
    }
    tensor x, y;
    assert_int_equal(gen_runs(&x, &y, 2000, 400, run, 7, &err), 0);
    assert_true(tensor_equal(&a, &x) && tensor_equal(&b, &y));
    tensor_free(&a);
    tensor_free(&b);
    tensor_free(&x);
    tensor_free(&y);
}

static void test_runs_do_not_fit(void **state)
{
    (void)state;
    tensor a, b;
    sam_error err;
    assert_int_equal(gen_runs(&a, &b, 30, 20, 5, 1, &err), -1);
    assert_non_null(strstr(err.msg, "do not fit in a vector of 30"));
    assert_left_empty(&a);
    assert_left_empty(&b);
    assert_int_equal(gen_runs(&a, &b, 30, 2, 0, 1, &err), -1);
    assert_left_empty(&a);
    assert_left_empty(&b);
}

/* The maximal runs of consecutive coordinates in v, as starts and lengths. */
static size_t blocks_of(const tensor *v, int64_t *start, int64_t *len)
{
    size_t n = 0;
    for (size_t e = 0; e < v->nnz; e++) {
        if (e > 0 && v->crd[0][e] == v->crd[0][e - 1] + 1) {
            len[n - 1]++;
            continue;
        }
        start[n] = v->crd[0][e];
        len[n++] = 1;
    }
    return n;
}

static void check_blocks(int64_t size, size_t nnz, int64_t block, uint64_t seed)
{
    tensor a, b;
    sam_error err;
    assert_int_equal(gen_blocks(&a, &b, size, nnz, block, seed, &err), 0);
    assert_int_equal(a.nnz, nnz);
    assert_int_equal(b.nnz, nnz);
    assert_canonical(&a, 1);
    assert_canonical(&b, 1);
    int64_t sa[512], la[512], sb[512], lb[512];
    size_t na = blocks_of(&a, sa, la), nb = blocks_of(&b, sb, lb);
    size_t want = (nnz + (size_t)block - 1) / (size_t)block;
    assert_true(want <= 512);
    assert_int_equal(na, want);
    assert_int_equal(nb, want);
    for (size_t i = 0; i < na; i++) {
        int64_t n = i + 1 < na ? block : (int64_t)nnz - (int64_t)(na - 1) * block;
        assert_true(la[i] == n && lb[i] == n);
        assert_true(llabs(sb[i] - sa[i]) <= n / 2);
    }
    tensor_free(&a);
    tensor_free(&b);
}

static void test_blocks_contiguous(void **state)
{
    (void)state;
    check_blocks(2000, 400, 20, 1);
    check_blocks(2000, 405, 20, 2); /* a short last block */
    check_blocks(2000, 400, 1, 3);
    check_blocks(209, 100, 10, 4); /* exactly the room needed */
    check_blocks(2000, 0, 10, 5);
}

static void test_blocks_do_not_fit(void **state)
{
    (void)state;
    tensor a, b;
    sam_error err;
    assert_int_equal(gen_blocks(&a, &b, 100, 60, 10, 1, &err), -1);
    assert_non_null(strstr(err.msg, "do not fit in a vector of 100"));
    assert_left_empty(&a);
    assert_left_empty(&b);
}

/* ---------------------------------------------------------------- rmat */

static void test_rmat_exact_and_skewed(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    assert_int_equal(gen_rmat(&t, 256, 256, 3000, 0.57, 0.19, 0.19, 1, &err), 0);
    assert_int_equal(t.nnz, 3000);
    assert_canonical(&t, 0);
    size_t top = 0, bottom = 0;
    for (size_t e = 0; e < t.nnz; e++) {
        top += t.crd[0][e] < 64;
        bottom += t.crd[0][e] >= 192;
    }
    assert_true(top > 4 * bottom);
    tensor_free(&t);
    assert_int_equal(gen_rmat(&t, 1000, 30, 2000, 0.57, 0.19, 0.19, 1, &err), 0);
    assert_int_equal(t.nnz, 2000);
    assert_canonical(&t, 0);
    tensor_free(&t);
}

static void test_rmat_bad_arguments(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    assert_int_equal(gen_rmat(&t, 8, 8, 5, 0.9, 0.2, 0.19, 1, &err), -1);
    assert_non_null(strstr(err.msg, "a+b+c at most 1"));
    assert_left_empty(&t);
    assert_int_equal(gen_rmat(&t, 8, 8, 65, 0.57, 0.19, 0.19, 1, &err), -1);
    assert_left_empty(&t);
    /* Only (0,0) can be reached, so a second distinct position never comes. */
    assert_int_equal(gen_rmat(&t, 8, 8, 2, 1.0, 0.0, 0.0, 1, &err), -1);
    assert_non_null(strstr(err.msg, "too unlikely"));
    assert_left_empty(&t);
}

/* ------------------------------------------------------ regular shapes */

static void check_banded(int64_t rows, int64_t cols, int64_t lower, int64_t upper)
{
    size_t want = 0;
    /* Rows past cols + lower lie wholly left of the band. */
    for (int64_t i = 0; i < rows && i <= cols + lower; i++)
        for (int64_t j = 0; j < cols; j++)
            want += j - i >= -lower && j - i <= upper;
    tensor t;
    sam_error err;
    assert_int_equal(gen_banded(&t, rows, cols, lower, upper, 1, &err), 0);
    assert_int_equal(t.nnz, want);
    assert_canonical(&t, 0);
    for (size_t e = 0; e < t.nnz; e++) {
        int64_t d = t.crd[1][e] - t.crd[0][e];
        assert_true(d >= -lower && d <= upper);
    }
    tensor_free(&t);
}

static void test_banded_counts(void **state)
{
    (void)state;
    check_banded(7, 10, 2, 3);
    check_banded(10, 4, 1, 1);
    check_banded(5, 5, 0, 0);
    check_banded(6, 3, 100, 100);
    check_banded(1000000000000, 3, 1, 0); /* empty rows past the band end it early */
}

static void test_banded_bad_arguments(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    assert_int_equal(gen_banded(&t, 5, 5, -1, 1, 1, &err), -1);
    assert_left_empty(&t);
    assert_int_equal(gen_banded(&t, 100000, 100000, 100000, 100000, 1, &err), -1);
    assert_non_null(strstr(err.msg, "limit"));
    assert_left_empty(&t);
}

static void test_identity(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    assert_int_equal(gen_identity(&t, 5, &err), 0);
    assert_int_equal(t.nnz, 5);
    assert_true(t.dims[0] == 5 && t.dims[1] == 5);
    for (size_t e = 0; e < 5; e++) {
        assert_true(t.crd[0][e] == (int64_t)e && t.crd[1][e] == (int64_t)e);
        assert_true(t.vals[e] == 1.0);
    }
    tensor_free(&t);
}

static void test_dense(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    assert_int_equal(gen_dense(&t, 3, (const int64_t[]){3, 4, 2}, 1, &err), 0);
    assert_int_equal(t.nnz, 24);
    assert_canonical(&t, 0);
    tensor_free(&t);
    assert_int_equal(gen_dense(&t, 2, (const int64_t[]){100000, 100000}, 1, &err), -1);
    assert_non_null(strstr(err.msg, "limit"));
    assert_left_empty(&t);
}

/* ------------------------------------------------------------------ cli */

static int setup(void **state)
{
    *state = test_tmpdir();
    return 0;
}

static int teardown(void **state)
{
    test_tmpdir_remove(*state);
    return 0;
}

static void test_cli_urandom_reproducible(void **state)
{
    char *path = test_path(*state, "x.mtx");
    char *out, *err, *first, *second;
    assert_int_equal(test_run_samsim(&out, &err, "gen", "urandom", "--shape", "20x10", "--nnz",
                                     "30", "--seed", "3", "-o", path, NULL), 0);
    char want[4200];
    snprintf(want, sizeof want, "wrote %s: 20 x 10, 30 nonzeros\n", path);
    assert_string_equal(out, want);
    assert_string_equal(err, "");
    first = test_read_file(path);
    assert_non_null(first);
    free(out);
    free(err);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape=20x10", "--nnz=30",
                                     "--seed=3", "-o", path, NULL), 0);
    second = test_read_file(path);
    assert_string_equal(first, second);
    free(first);
    free(second);
    free(path);
}

static void test_cli_runs_pair(void **state)
{
    char *a = test_path(*state, "a.tns"), *b = test_path(*state, "b.tns");
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "runs", "--shape", "2000", "--nnz", "400",
                                     "--run", "20", "-o", a, "--second", b, NULL), 0);
    assert_true(test_exists(a) && test_exists(b));
    free(a);
    free(b);
}

/* Each bad command line exits 1 with one "samsim: " line and no file. */
static void test_cli_bad_arguments(void **state)
{
    char *path = test_path(*state, "bad.mtx");
    const char *const cases[][12] = {
        {"gen", "sparse", "--shape", "20x10", "--nnz", "3", "-o", path},
        {"gen"},
        {"gen", "urandom", "--shape", "20x10", "--density", "2", "-o", path},
        {"gen", "urandom", "--shape", "20x10", "--nnz", "3"},
        {"gen", "urandom", "--shape", "20x10", "--nnz", "3", "--density", "0.1", "-o", path},
        {"gen", "urandom", "--shape", "20x10", "--nnz", "201", "-o", path},
        {"gen", "urandom", "--shape", "20x10", "--nnz", "3", "--frob", "1", "-o", path},
        {"gen", "urandom", "--shape", "20x10", "-o", path},
        {"gen", "urandom", "--nnz", "3", "-o", path},
        {"gen", "banded", "--shape", "20x10", "--run", "3", "-o", path},
        {"gen", "runs", "--shape", "20x10", "--nnz", "3", "-o", path},
        {"gen", "identity", "--shape", "3x4", "-o", path},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *const *v = cases[c];
        char *err;
        int rc = test_run_samsim(NULL, &err, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
                                 v[8], v[9], v[10], v[11], NULL);
        assert_int_equal(rc, 1);
        assert_true(strncmp(err, "samsim: ", 8) == 0);
        assert_non_null(strchr(err, '\n'));
        assert_true(strchr(err, '\n')[1] == '\0');
        assert_false(test_exists(path));
        free(err);
    }
    free(path);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prng_seed_is_splitmix64),
        cmocka_unit_test(test_prng_xoshiro256starstar_reference),
        cmocka_unit_test(test_prng_below_uniform),
        cmocka_unit_test(test_prng_unit_is_53_bit),
        cmocka_unit_test(test_urandom_orders),
        cmocka_unit_test(test_urandom_beyond_64_bit_volume),
        cmocka_unit_test(test_urandom_density_one_is_every_position),
        cmocka_unit_test(test_density_rounding),
        cmocka_unit_test(test_urandom_too_many_nonzeros),
        cmocka_unit_test(test_urandom_uniform),
        cmocka_unit_test(test_same_seed_same_tensor),
        cmocka_unit_test(test_outputs_pinned),
        cmocka_unit_test(test_runs_pattern),
        cmocka_unit_test(test_runs_do_not_fit),
        cmocka_unit_test(test_blocks_contiguous),
        cmocka_unit_test(test_blocks_do_not_fit),
        cmocka_unit_test(test_rmat_exact_and_skewed),
        cmocka_unit_test(test_rmat_bad_arguments),
        cmocka_unit_test(test_banded_counts),
        cmocka_unit_test(test_banded_bad_arguments),
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_dense),
        T(test_cli_urandom_reproducible),
        T(test_cli_runs_pair),
        T(test_cli_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
