/* Tokens: the text notation round trip, and the rules that move a stop
 * token one level down (an empty outer fiber) or up (a reducer). */
#include <string.h>

#include "../engine/token.h"
#include "test_util.h"

static void round_trip(const char *text)
{
    token t;
    char buf[32];
    assert_int_equal(token_parse(text, &t), 0);
    assert_string_equal(token_str(t, buf), text);
}

static void test_notation(void **state)
{
    (void)state;
    const char *texts[] = {"0", "42", "2.5", "S0", "S3", "S1'", "S3''", "N", "D", "R", "S"};
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++)
        round_trip(texts[k]);
    token t;
    const char *bad[] = {"S0'", "S1''", "S1x", "S'", "", "1.5x", "S1'x"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        assert_int_equal(token_parse(bad[k], &t), -1);
}

/* A stop closes fibers never opened only where a level was added below a
 * stop; a reducer takes one such fiber away with its level. */
static void test_stop_levels(void **state)
{
    (void)state;
    token s0 = token_stop(0);
    token below = token_stop_below(s0);
    assert_int_equal(below.level, 1);
    assert_int_equal(below.hollow, 1);
    token twice = token_stop_below(below);
    assert_int_equal(twice.level, 2);
    assert_int_equal(twice.hollow, 2);
    token up = token_stop_above(twice);
    assert_int_equal(up.level, 1);
    assert_int_equal(up.hollow, 1);
    token plain = token_stop_above(token_stop(2));
    assert_int_equal(plain.level, 1);
    assert_int_equal(plain.hollow, 0);
    assert_true(token_equal(below, token_stop(1)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notation),
        cmocka_unit_test(test_stop_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
