/* The commands end to end, as the demo uses them: the numbers printed by
 * info are derived here from the file independently. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* The value printed after "key" in info's output, for the level line
 * starting with prefix (or anywhere when prefix is NULL). */
static long long info_number(const char *out, const char *prefix, const char *key)
{
    const char *p = prefix ? strstr(out, prefix) : out;
    assert_non_null(p);
    p = strstr(p, key);
    assert_non_null(p);
    return atoll(p + strlen(key));
}

/* Counts the distinct rows and columns of a .mtx file samsim wrote
 * (general, one entry a line after the size line). */
static void count_rows_cols(const char *path, long long *rows, long long *cols, long long *nnz)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    long long r, c, n;
    static char seen_r[1 << 12], seen_c[1 << 12];
    memset(seen_r, 0, sizeof seen_r);
    memset(seen_c, 0, sizeof seen_c);
    while (fgets(line, sizeof line, f) && line[0] == '%')
        ;
    assert_int_equal(sscanf(line, "%lld %lld %lld", &r, &c, &n), 3);
    *rows = *cols = *nnz = 0;
    double v;
    while (fscanf(f, "%lld %lld %lf", &r, &c, &v) == 3) {
        *rows += !seen_r[r - 1]++;
        *cols += !seen_c[c - 1]++;
        (*nnz)++;
    }
    fclose(f);
}

static void test_gen_convert_info(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *mtx = test_path(dir, "B.mtx"), *tns = test_path(dir, "B.tns"), *sam = test_path(dir, "sam");
    char *out = NULL;
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "rmat", "--shape", "1024x1024", "--nnz",
                                     "5000", "--seed", "42", "-o", mtx, NULL), 0);
    assert_int_equal(test_run_samsim(NULL, NULL, "convert", mtx, tns, NULL), 0);
    assert_int_equal(test_run_samsim(NULL, NULL, "convert", tns, sam, "--tensor", "B", "--format",
                                     "ss01", NULL), 0);
    assert_int_equal(test_run_samsim(NULL, NULL, "convert", sam, sam, "--in-tensor", "B",
                                     "--tensor", "C", "--shift", NULL), 0);
    long long rows, cols, nnz;
    count_rows_cols(mtx, &rows, &cols, &nnz);
    assert_int_equal(nnz, 5000);

    assert_int_equal(test_run_samsim(&out, NULL, "info", sam, "--tensor", "B", NULL), 0);
    assert_int_equal(info_number(out, NULL, "nonzeros: "), 5000);
    assert_non_null(strstr(out, "format: ss01"));
    assert_int_equal(info_number(out, "level 0:", "max length "), rows);
    assert_int_equal(info_number(out, "level 1:", "non-empty "), rows);
    free(out);

    /* Column-major statistics of B: one fiber per column, the non-empty
     * ones being the columns that hold entries. */
    assert_int_equal(test_run_samsim(&out, NULL, "info", sam, "--tensor", "B", "--format", "ds10",
                                     NULL), 0);
    assert_int_equal(info_number(out, "level 1:", "fibers "), 1024);
    assert_int_equal(info_number(out, "level 1:", "non-empty "), cols);
    free(out);

    /* The shifted copy keeps the count and the row structure. */
    assert_int_equal(test_run_samsim(&out, NULL, "info", sam, "--tensor", "C", NULL), 0);
    assert_int_equal(info_number(out, NULL, "nonzeros: "), 5000);
    assert_int_equal(info_number(out, "level 1:", "non-empty "), rows);
    free(out);

    /* Back to Matrix Market: the same entries as the generated file. */
    char *back = test_path(dir, "back.mtx");
    assert_int_equal(test_run_samsim(NULL, NULL, "convert", sam, back, "--tensor", "B", NULL), 0);
    char *a = test_read_file(mtx), *b = test_read_file(back);
    assert_string_equal(a, b);
    free(a), free(b), free(back);
    free(mtx), free(tns), free(sam);
    test_tmpdir_remove(dir);
}

/* The 4x4 matrix of test_tile.c: tile (1,0) empty, entries out of order. */
static const char tile_matrix[] = "%%MatrixMarket matrix coordinate real general\n"
                                  "4 4 6\n4 4 6\n1 1 1\n2 3 7\n1 4 2\n2 2 3\n3 3 5\n";

/* convert --tile SPEC writes exactly text, or (text NULL) fails with one
 * line naming --tile and the spec and writes nothing. */
static void assert_tile_convert(const char *dir, const char *in, const char *spec,
                                const char *text)
{
    char *out = test_path(dir, "tiled.tns"), *opt = malloc(strlen(spec) + 8), *se = NULL;
    assert_non_null(opt);
    sprintf(opt, "--tile=%s", spec);
    int rc = test_run_samsim(NULL, &se, "convert", in, out, opt, NULL);
    char *got = test_read_file(out);
    if (text) {
        assert_int_equal(rc, 0);
        assert_non_null(got);
        assert_string_equal(got, text);
        remove(out);
    } else {
        char quoted[128];
        snprintf(quoted, sizeof quoted, "samsim: --tile '%s': ", spec);
        assert_int_equal(rc, 1);
        assert_null(got);
        assert_non_null(se);
        if (strncmp(se, quoted, strlen(quoted)) || strchr(se, '\n') != se + strlen(se) - 1)
            fail_msg("not one line starting with \"%s\": %s", quoted, se);
    }
    free(got), free(se), free(opt), free(out);
}

static void test_convert_tile(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *in = test_write_file(dir, "A.mtx", tile_matrix);
    assert_tile_convert(dir, in, "2x2",
                        "# written by samsim\n# shape: 2 2 2 2\n"
                        "1 1 1 1 1.0\n1 1 2 2 3.0\n1 2 1 2 2.0\n"
                        "1 2 2 1 7.0\n2 2 1 1 5.0\n2 2 2 2 6.0\n");
    /* Rows 0 and 1 hold two entries each, rows 2 and 3 one: ranges
     * {0}, {1}, {2,3}; columns not cut. */
    assert_tile_convert(dir, in, "o2x-",
                        "# written by samsim\n# shape: 3 2 4\n"
                        "1 1 1 1.0\n1 1 4 2.0\n2 1 2 3.0\n2 1 3 7.0\n3 1 3 5.0\n3 2 4 6.0\n");
    /* Columns by 2 then 1: keys (column tile, column within it), then the
     * whole row and a column of one. */
    assert_tile_convert(dir, in, "-x2/-x1",
                        "# written by samsim\n# shape: 2 2 4 1\n"
                        "1 1 1 1 1.0\n1 2 2 1 3.0\n2 1 2 1 7.0\n"
                        "2 1 3 1 5.0\n2 2 1 1 2.0\n2 2 4 1 6.0\n");
    static const char *const bad[] = {"2",        "2x2x2",   "0x2",     "o0x-",       "2xa",
                                      "-x2/2x2",  "2x+3",    "2x2/",    "3x3/2x2/1x1/1x1", "",
                                      "99999999999999999999x1", "1x1/1x1/1x1/1x1/1x1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_tile_convert(dir, in, bad[i], NULL);

    /* A SAM directory: every level compressed by default; a format must
     * cover the keys too. */
    char *sam = test_path(dir, "sam"), *out = NULL, *se = NULL;
    assert_int_equal(test_run_samsim(NULL, &se, "convert", in, sam, "--tile", "2x2", "--format",
                                     "ss01", NULL), 1);
    assert_non_null(strstr(se, "a format of 2 levels for a tensor of order 4"));
    assert_false(test_exists(sam));
    assert_int_equal(test_run_samsim(NULL, NULL, "convert", in, sam, "--tile", "2x2", NULL), 0);
    assert_int_equal(test_run_samsim(&out, NULL, "info", sam, NULL), 0);
    assert_non_null(strstr(out, "format: ssss0123\n"));
    assert_int_equal(info_number(out, NULL, "nonzeros: "), 6);
    free(out), free(se), free(sam);
    free(in);
    test_tmpdir_remove(dir);
}

/* A dimension that is not a multiple of 64, so the last word of every
 * fiber is partial. */
#define BV_ROWS 200
#define BV_COLS 130

/* Through every mix of bitvector and linked-list levels and back: the
 * Matrix Market file comes back byte for byte, and each level kind keeps
 * its own files. */
static void test_convert_bitvector_and_list_levels(void **state)
{
    (void)state;
    static const char *const formats[] = {"sb01", "bb10", "ls01", "dl10", "lb01", "bl10"};
    char *dir = test_tmpdir();
    char *mtx = test_path(dir, "B.mtx"), *sam = test_path(dir, "sam");
    char *back = test_path(dir, "back.mtx");
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "200x130", "--nnz",
                                     "600", "--seed", "9", "-o", mtx, NULL), 0);
    char *original = test_read_file(mtx);
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        assert_int_equal(test_run_samsim(NULL, NULL, "convert", mtx, sam, "--format", formats[i],
                                         NULL), 0);
        for (int k = 0; k < 2; k++) {
            char file[64];
            snprintf(file, sizeof file, "tensor_B_mode_%c_%s", formats[i][2 + k],
                     formats[i][k] == 'b' ? "bv" : formats[i][k] == 'l' ? "next" : "crd");
            char *path = test_path(sam, file);
            assert_true(test_exists(path) == (formats[i][k] != 'd'));
            free(path);
        }
        assert_int_equal(test_run_samsim(NULL, NULL, "convert", sam, back, NULL), 0);
        char *text = test_read_file(back);
        assert_string_equal(text, original);
        free(text);
    }
    free(original);
    free(mtx), free(sam), free(back);
    test_tmpdir_remove(dir);
}

/* info names each level's kind and counts its bytes as fibertree.h says:
 * a bitvector 8 bytes a 64-bit word, a list a 4-byte head a fiber and a
 * 4-byte coordinate and next a node. */
static void test_info_bitvector_and_list_levels(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *mtx = test_path(dir, "B.mtx"), *sam = test_path(dir, "sam");
    char *out = NULL;
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "200x130", "--nnz",
                                     "600", "--seed", "9", "-o", mtx, NULL), 0);
    long long rows, cols, nnz;
    count_rows_cols(mtx, &rows, &cols, &nnz);
    long long words = (BV_COLS + 63) / 64;

    assert_int_equal(test_run_samsim(NULL, NULL, "convert", mtx, sam, "--format", "sb01", NULL),
                     0);
    assert_int_equal(test_run_samsim(&out, NULL, "info", sam, NULL), 0);
    assert_non_null(strstr(out, "format: sb01\n"));
    assert_non_null(strstr(out, "level 1: mode 1, bitvector, "));
    assert_int_equal(info_number(out, "level 1:", "fibers "), rows);
    assert_int_equal(info_number(out, "level 1:", "bytes "), rows * words * 8);
    assert_int_equal(info_number(out, "level 0:", "bytes "), rows * 4 + 2 * 4);
    assert_int_equal(info_number(out, NULL, "\nbytes: "), rows * words * 8 + rows * 4 + 8 +
                                                             nnz * 8);
    free(out);

    assert_int_equal(test_run_samsim(&out, NULL, "info", mtx, "--format", "ls01", NULL), 0);
    assert_non_null(strstr(out, "level 0: mode 0, linked list, "));
    assert_int_equal(info_number(out, "level 0:", "non-empty "), 1);
    assert_int_equal(info_number(out, "level 0:", "max length "), rows);
    assert_int_equal(info_number(out, "level 0:", "bytes "), 4 + rows * 8);
    assert_int_equal(info_number(out, "level 1:", "bytes "), nnz * 4 + (rows + 1) * 4);
    free(out);

    assert_int_equal(test_run_samsim(&out, NULL, "info", mtx, "--format", "db01", NULL), 0);
    assert_int_equal(info_number(out, "level 1:", "fibers "), BV_ROWS);
    assert_int_equal(info_number(out, "level 1:", "non-empty "), rows);
    assert_int_equal(info_number(out, "level 1:", "bytes "), BV_ROWS * words * 8);
    free(out);
    free(mtx), free(sam);
    test_tmpdir_remove(dir);
}

/* Replaces the first "from" in text (which has room) by "to", same length. */
static void replace_once(char *text, const char *from, const char *to)
{
    char *p = strstr(text, from);
    assert_non_null(p);
    memcpy(p, to, strlen(to));
}

/* A graph whose comment gives an operand a bitvector or linked-list level
 * where its blocks scan or locate a compressed or dense one is refused
 * with the reason, not run on the wrong arrays. */
static void test_run_refuses_levels_without_blocks(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "b.tns", "# shape: 5\n2 1\n4 2\n");
    char *m = test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "3 5 2\n1 2 1\n3 4 2\n");
    char *scan = test_compile_to(dir, "scan", "x(i)=b(i)*c(i)");
    char *loc = test_compile_to(dir, "loc", "x(i)=B(i,j)*c(j) -f=c:d -s=locate(c)");
    static const struct {
        const char *from, *to, *message;
        int locate;
    } cases[] = {
        {"b=s0", "b=b0", "tensor b stores mode 0 as a bitvector, not compressed", 0},
        {"b=s0", "b=l0", "tensor b stores mode 0 as a linked list, not compressed", 0},
        {"c=d0", "c=b0", "tensor c stores mode 0 as a bitvector level; locate finds", 1},
        {"c=d0", "c=l0", "tensor c stores mode 0 as a linked list level; locate finds", 1},
    };
    char bind_b[4200], bind_m[4200], bind_c[4200];
    snprintf(bind_b, sizeof bind_b, "b=%s", b);
    snprintf(bind_m, sizeof bind_m, "B=%s", m);
    snprintf(bind_c, sizeof bind_c, "c=%s", b);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = test_read_file(cases[i].locate ? loc : scan);
        replace_once(text, cases[i].from, cases[i].to);
        char *graph = test_write_file(dir, "edited.gv", text);
        char *err = NULL;
        int rc = cases[i].locate
                     ? test_run_samsim(NULL, &err, "run", graph, "-t", bind_m, "-t", bind_c, NULL)
                     : test_run_samsim(NULL, &err, "run", graph, "-t", bind_b, "--shift", NULL);
        assert_int_equal(rc, 1);
        if (!strstr(err, cases[i].message))
            fail_msg("expected [%s] in: %s", cases[i].message, err);
        free(err), free(graph), free(text);
    }
    free(b), free(m), free(scan), free(loc);
    test_tmpdir_remove(dir);
}

static void test_help_lists_commands(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(test_run_samsim(&out, NULL, "help", NULL), 0);
    assert_non_null(strstr(out, "samsim convert"));
    assert_non_null(strstr(out, "samsim info"));
    assert_non_null(strstr(out, "samsim gen"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gen_convert_info),
        cmocka_unit_test(test_convert_tile),
        cmocka_unit_test(test_convert_bitvector_and_list_levels),
        cmocka_unit_test(test_info_bitvector_and_list_levels),
        cmocka_unit_test(test_run_refuses_levels_without_blocks),
        cmocka_unit_test(test_help_lists_commands),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
