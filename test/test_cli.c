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
        cmocka_unit_test(test_help_lists_commands),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
