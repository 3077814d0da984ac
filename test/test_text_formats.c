/* Number parsing and printing, and the details of the Matrix Market and
 * FROSTT readers that the file-level tests do not pin down. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/mtx.h"
#include "../formats/tensor_file.h"
#include "../formats/text_out.h"
#include "../formats/text_scan.h"
#include "../formats/tns.h"
#include "test_util.h"

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 11;
}

/* The fast path must round exactly as strtod does. */
static void test_parse_double_matches_strtod(void **state)
{
    (void)state;
    uint64_t seed = 5;
    char buf[64];
    for (int i = 0; i < 200000; i++) {
        uint64_t r = lcg(&seed);
        int digits = 1 + (int)(r % 20), point = (int)((r >> 8) % 18), exp = (int)((r >> 16) % 50) - 25;
        int n = 0;
        if (r & (1u << 30))
            buf[n++] = '-';
        for (int d = 0; d < digits; d++) {
            if (d == point)
                buf[n++] = '.';
            buf[n++] = (char)('0' + lcg(&seed) % 10);
        }
        if (r & (1u << 31))
            n += snprintf(buf + n, sizeof buf - (size_t)n, "e%d", exp);
        buf[n] = '\0';
        double v;
        assert_int_equal(text_parse_double(buf, &v), 0);
        assert_true(v == strtod(buf, NULL));
    }
    /* Exact midpoints between doubles, where double rounding would go wrong. */
    static const char *ties[] = {"9007199254740993", "9007199254740995", "1.00000000000000011102230246251565404236316680908203125",
                                 "0.50000000000000005551115123125782702118158340454101562", "18014398509481985e-1"};
    double v;
    for (size_t i = 0; i < sizeof ties / sizeof ties[0]; i++) {
        assert_int_equal(text_parse_double(ties[i], &v), 0);
        assert_true(v == strtod(ties[i], NULL));
    }
    assert_int_equal(text_parse_double("nan", &v), -1);
    assert_int_equal(text_parse_double("1e999", &v), -1);
    assert_int_equal(text_parse_double("1.5x", &v), -1);
    assert_int_equal(text_parse_double("", &v), -1);
}

static void test_format_double_is_python_repr(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *s;
    } cases[] = {{2.0, "2.0"}, {-0.0, "-0.0"}, {0.1, "0.1"}, {1e-05, "1e-05"},
                 {1e16, "1e+16"}, {123456789.0, "123456789.0"}, {0.09213858051, "0.09213858051"},
                 {1.0 / 3.0, "0.3333333333333333"}, {-2.5e-300, "-2.5e-300"}, {1.5e-7, "1.5e-07"},
                 {1e100, "1e+100"}, {5e-324, "5e-324"}, {0.0001, "0.0001"}, {1234.5, "1234.5"},
                 {-0.5, "-0.5"}, {9.999999999999999e22, "1e+23"},
                 {0.30000000000000004, "0.30000000000000004"}, {1e15 + 0.5, "1000000000000000.5"}};
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        text_format_double(buf, cases[i].v);
        assert_string_equal(buf, cases[i].s);
    }
    uint64_t seed = 9;
    for (int i = 0; i < 100000; i++) {
        uint64_t bits = lcg(&seed) << 11 ^ lcg(&seed);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (v != v || v - v != 0)
            continue;
        text_format_double(buf, v);
        assert_true(strtod(buf, NULL) == v);
    }
}

static tensor read_mtx_text(const char *text)
{
    char *dir = test_tmpdir();
    char *path = test_write_file(dir, "m.mtx", text);
    tensor_file f = {.path = path};
    tensor t;
    sam_error err;
    if (tensor_file_read(&f, &t, &err))
        fail_msg("%s", err.msg);
    free(path);
    test_tmpdir_remove(dir);
    return t;
}

static void test_mtx_symmetry_expansion(void **state)
{
    (void)state;
    tensor t = read_mtx_text("%%MatrixMarket matrix coordinate real skew-symmetric\n"
                             "3 3 2\n2 1 4.5\n3 2 -1\n");
    assert_int_equal(t.nnz, 4);
    /* (0,1)=-4.5 (1,0)=4.5 (1,2)=1 (2,1)=-1 */
    const double vals[] = {-4.5, 4.5, 1, -1};
    for (int e = 0; e < 4; e++)
        assert_true(t.vals[e] == vals[e]);
    tensor_free(&t);
    t = read_mtx_text("%%MatrixMarket matrix coordinate integer symmetric\n"
                      "% a comment\n\n2 2 2\n1 1 7\n2 1 -3");
    assert_int_equal(t.nnz, 3);
    assert_true(t.vals[0] == 7 && t.vals[1] == -3 && t.vals[2] == -3);
    tensor_free(&t);
}

static void test_mtx_duplicates_and_zeros(void **state)
{
    (void)state;
    tensor t = read_mtx_text("%%MatrixMarket matrix coordinate real general\r\n"
                             "2 3 4\r\n1 3 1.5\r\n1 3 2\r\n2 2 0\r\n\r\n% end\r\n1 1 1e2\r\n");
    assert_int_equal(t.nnz, 3);
    assert_true(t.vals[0] == 100 && t.vals[1] == 3.5 && t.vals[2] == 0);
    assert_int_equal(t.dims[1], 3);
    tensor_free(&t);
}

static void test_mtx_write_read_identical(void **state)
{
    (void)state;
    tensor t = read_mtx_text("%%MatrixMarket matrix coordinate pattern general\n5 4 2\n5 4\n1 1\n");
    char *dir = test_tmpdir();
    char *path = test_path(dir, "w.mtx");
    sam_error err;
    assert_int_equal(mtx_write(path, &t, &err), 0);
    char *text = test_read_file(path);
    assert_string_equal(text, "%%MatrixMarket matrix coordinate real general\n"
                              "% written by samsim\n5 4 2\n1 1 1.0\n5 4 1.0\n");
    free(text);
    free(path);
    test_tmpdir_remove(dir);
    tensor_free(&t);
}

static void test_tns_orders_and_shape_comment(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *path = test_write_file(dir, "t.tns", "# FROSTT\n1 2 3 1.5\n\n2 1 1 -2\n# end\n");
    tensor t;
    sam_error err;
    assert_int_equal(tns_read(path, 0, NULL, &t, &err), 0);
    assert_int_equal(t.order, 3);
    assert_int_equal(t.dims[0], 2);
    assert_int_equal(t.dims[2], 3);
    /* A trailing empty slice survives through the shape comment. */
    t.dims[2] = 7;
    char *out = test_path(dir, "o.tns");
    assert_int_equal(tns_write(out, &t, &err), 0);
    tensor back;
    assert_int_equal(tns_read(out, 0, NULL, &back, &err), 0);
    assert_true(tensor_equal(&t, &back));
    tensor_free(&back);
    /* A given shape wins and bounds the indices. */
    int64_t dims[3] = {2, 1, 9};
    assert_int_equal(tns_read(path, 3, dims, &back, &err), -1);
    assert_non_null(strstr(err.msg, "t.tns:2:"));
    assert_non_null(strstr(err.msg, "out of range"));
    tensor_free(&t);
    free(out);
    free(path);
    test_tmpdir_remove(dir);
}

static void test_tns_scalar_and_empty(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *path = test_write_file(dir, "s.tns", "3.25\n");
    tensor t;
    sam_error err;
    assert_int_equal(tns_read(path, 0, NULL, &t, &err), 0);
    assert_int_equal(t.order, 0);
    assert_true(t.nnz == 1 && t.vals[0] == 3.25);
    tensor_free(&t);
    free(path);
    path = test_write_file(dir, "e.tns", "");
    assert_int_equal(tns_read(path, 0, NULL, &t, &err), -1);
    assert_non_null(strstr(err.msg, "no entries"));
    assert_int_equal(tns_read(path, 1, (const int64_t[]){66}, &t, &err), 0);
    assert_int_equal(t.nnz, 0);
    assert_int_equal(t.dims[0], 66);
    tensor_free(&t);
    free(path);
    test_tmpdir_remove(dir);
}

/* The reference's vectors: one with an entry, two empty ones whose order
 * only the caller can know. */
static void test_reference_vectors(void **state)
{
    (void)state;
    char *dir = test_require_shared("data/sam-formatted/vectors");
    static const char *files[] = {"bcsstm02-vec_mode0-0.001.tns", "bcsstm02-vec_mode1-0.001.tns",
                                  "lp_scsd1-vec_mode0-0.001.tns", "lp_scsd1-vec_mode1-0.001.tns"};
    static const int64_t dims[] = {66, 66, 77, 760};
    for (int i = 0; i < 4; i++) {
        char *path = test_path(dir, files[i]);
        tensor t;
        sam_error err;
        assert_int_equal(tns_read(path, 1, &dims[i], &t, &err), 0);
        assert_int_equal(t.nnz, i == 3 ? 1 : 0);
        if (i == 3)
            assert_true(t.crd[0][0] == 597 && t.vals[0] == 1.0);
        tensor_free(&t);
        free(path);
    }
    free(dir);
}

/* Rows of 1000 entries: entry e at (e / 1000, e % 1000), valued e % 97 / 2. */
#define BIG_ENTRIES 1500000

/* A general Matrix Market file of BIG_ENTRIES lines, some 30 MB: large
 * enough that the reader hands back pages it has read. With spoil, the
 * value on the entry line before the last is 'x'. Its length not a whole
 * number of pages, so that it is mapped. */
static char *big_mtx_text(int spoil, size_t *len)
{
    size_t cap = (size_t)BIG_ENTRIES * 24 + 256, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)snprintf(text, cap, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n",
                          BIG_ENTRIES / 1000, 1000, BIG_ENTRIES);
    for (int e = 0; e < BIG_ENTRIES; e++) {
        if (spoil && e == BIG_ENTRIES - 2)
            n += (size_t)snprintf(text + n, cap - n, "%d %d x\n", e / 1000 + 1, e % 1000 + 1);
        else
            n += (size_t)snprintf(text + n, cap - n, "%d %d %g\n", e / 1000 + 1, e % 1000 + 1,
                                  (e % 97) / 2.0);
    }
    if (n % 4096 == 0)
        n += (size_t)snprintf(text + n, cap - n, "%%\n");
    *len = n;
    return text;
}

/* The scanner hands back the pages of a mapped file it has passed, and
 * what it looks at again reads back as the file. */
static void test_scan_hands_back_pages_read(void **state)
{
    (void)state;
    size_t len;
    char *text = big_mtx_text(0, &len);
    char *dir = test_tmpdir();
    char *path = test_write_file(dir, "big.mtx", text);
    text_scan s;
    sam_error err;
    assert_int_equal(scan_open(&s, path, &err), 0);
    assert_int_equal(s.mapped, len);
    while (!scan_at_eof(&s))
        scan_next_line(&s);
    assert_int_equal(s.line, BIG_ENTRIES + 3);
    /* Pages are handed back 1 MiB at a time, 1 MiB behind the cursor. */
    assert_true(s.released > len - ((size_t)2 << 20));
    assert_true(s.released <= len - ((size_t)1 << 20));
    assert_memory_equal(s.buf, text, len);
    scan_close(&s);
    free(text);
    free(path);
    test_tmpdir_remove(dir);
}

/* A file read in pieces gives every entry, and an error at its end names
 * its line as ever. */
static void test_mtx_large_file(void **state)
{
    (void)state;
    size_t len;
    char *text = big_mtx_text(0, &len);
    char *dir = test_tmpdir();
    char *path = test_write_file(dir, "big.mtx", text);
    tensor_file f = {.path = path};
    tensor t;
    sam_error err;
    assert_int_equal(tensor_file_read(&f, &t, &err), 0);
    assert_int_equal(t.nnz, BIG_ENTRIES);
    assert_int_equal(t.dims[0], BIG_ENTRIES / 1000);
    for (int e = 0; e < BIG_ENTRIES; e++)
        if (t.crd[0][e] != e / 1000 || t.crd[1][e] != e % 1000 || t.vals[e] != (e % 97) / 2.0)
            fail_msg("entry %d is (%lld,%lld)=%g", e, (long long)t.crd[0][e],
                     (long long)t.crd[1][e], t.vals[e]);
    tensor_free(&t);
    free(text);
    free(path);
    text = big_mtx_text(1, &len);
    path = test_write_file(dir, "spoilt.mtx", text);
    f.path = path;
    assert_int_equal(tensor_file_read(&f, &t, &err), -1);
    char want[512];
    snprintf(want, sizeof want, "%s:%d: expected a value, found 'x'", path, BIG_ENTRIES + 1);
    assert_string_equal(err.msg, want);
    free(text);
    free(path);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_double_matches_strtod),
        cmocka_unit_test(test_format_double_is_python_repr),
        cmocka_unit_test(test_mtx_symmetry_expansion),
        cmocka_unit_test(test_mtx_duplicates_and_zeros),
        cmocka_unit_test(test_mtx_write_read_identical),
        cmocka_unit_test(test_tns_orders_and_shape_comment),
        cmocka_unit_test(test_tns_scalar_and_empty),
        cmocka_unit_test(test_reference_vectors),
        cmocka_unit_test(test_scan_hands_back_pages_read),
        cmocka_unit_test(test_mtx_large_file),
    };
    return cmocka_run_group_tests_name("text formats", tests, NULL, NULL);
}
