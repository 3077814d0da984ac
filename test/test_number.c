/* common/number.h and the NUL check of common/keyval.h, and the hardware
 * reader built on both: every number a samsim file or option holds is
 * decimal, and a line is what its bytes say, so a typo can never become a
 * value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/keyval.h"
#include "../common/number.h"
#include "../hwmodel/hw.h"
#include "test_util.h"

static void test_decimal_accepted(void **state)
{
    (void)state;
    const struct { const char *text; double value; } ok[] = {
        {"0", 0}, {"12", 12}, {"-3.5", -3.5}, {"+.25", 0.25}, {"7.", 7},
        {"1e3", 1000}, {"2.5E-2", 0.025}, {"1e-400", 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = -1;
        assert_int_equal(number_parse(ok[i].text, &v), 0);
        assert_true(v == ok[i].value);
    }
}

static void test_other_spellings_refused(void **state)
{
    (void)state;
    const char *bad[] = {"", " 1", "1 ", "0x10", "0X1p3", "inf", "nan", "-", ".", "1e",
                         "1e+", "e5", "1.2.3", "1e999", "--1", "1,5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = 42;
        assert_int_equal(number_parse(bad[i], &v), -1);
        assert_true(v == 42);
    }
}

static void test_whole_numbers(void **state)
{
    (void)state;
    long long v = 0;
    assert_int_equal(number_parse_whole("4096", 1, 4096, &v), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(number_parse_whole("-2", -5, 5, &v), 0);
    assert_int_equal(v, -2);
    const char *bad[] = {"4097", "0", "-1", "2.5", "1e3", "0x10", " 3", "", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(number_parse_whole(bad[i], 1, 4096, &v), -1);
}

static int count_lines(void *ctx, const char *key, const char *value, const char *origin,
                       sam_error *err)
{
    (void)key, (void)value, (void)origin, (void)err;
    ++*(int *)ctx;
    return 0;
}

/* "pe.count = 1\0 junk" must not read as pe.count = 1. */
static void test_keyval_nul_refused(void **state)
{
    (void)state;
    char path[] = "/tmp/samsim-keyval-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char text[] = "a = 1\npe.count = 1\0 junk\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    int lines = 0;
    sam_error err;
    assert_int_equal(keyval_read(path, count_lines, &lines, &err), -1);
    unlink(path);
    assert_int_equal(lines, 1);
    char want[256];
    snprintf(want, sizeof want, "%s:2: a NUL byte in the line", path);
    assert_string_equal(err.msg, want);
}

/* The readers of --hw and of a template's hardware take numbers only as
 * number_parse does: `pe.count = 0x10` was 16. */
static void test_hw_numbers_decimal(void **state)
{
    (void)state;
    hw_desc hw;
    sam_error err;
    hw_defaults(&hw);
    assert_int_equal(hw_read_text("t.hw", "pe.count = 16\nclock.ghz = 1.5e0\n", &hw, &err), 0);
    assert_true(hw.pe_count == 16 && hw.clock_ghz == 1.5);
    assert_int_equal(hw_read_text("t.hw", "# PEs\npe.count = 0x10\n", &hw, &err), -1);
    assert_string_equal(err.msg, "t.hw:2: pe.count = 0x10 is not a whole number 1..4096 (PEs)");
    assert_int_equal(hw_read_text("t.hw", "clock.ghz = inf\n", &hw, &err), -1);
    assert_string_equal(err.msg, "t.hw:1: clock.ghz = inf is not a number 0.001..1000 (GHz)");
    assert_true(hw.pe_count == 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decimal_accepted),
        cmocka_unit_test(test_other_spellings_refused),
        cmocka_unit_test(test_whole_numbers),
        cmocka_unit_test(test_keyval_nul_refused),
        cmocka_unit_test(test_hw_numbers_decimal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
