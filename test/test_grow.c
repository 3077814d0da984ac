/* common/grow.h: the one growth rule of the growable arrays, and the
 * closing-stop rule every repeat and scanner shares (engine/token.h). */
#include <stdint.h>
#include <stdlib.h>

#include "../common/grow.h"
#include "../engine/token.h"
#include "test_util.h"

static void test_doubles_from_first(void **state)
{
    (void)state;
    size_t cap = 0;
    int64_t *a = grow_array(NULL, 0, &cap, sizeof *a, 4);
    assert_non_null(a);
    assert_int_equal(cap, 4);
    for (size_t n = 0; n < 4; n++)
        a[n] = (int64_t)n;
    assert_ptr_equal(grow_array(a, 3, &cap, sizeof *a, 4), a);
    assert_int_equal(cap, 4);
    a = grow_array(a, 4, &cap, sizeof *a, 4);
    assert_non_null(a);
    assert_int_equal(cap, 8);
    for (size_t n = 0; n < 4; n++)
        assert_int_equal(a[n], (int64_t)n);
    free(a);
}

/* A size that would overflow is refused, and the array stays the caller's. */
static void test_overflow_refused(void **state)
{
    (void)state;
    size_t cap = 4;
    char *p = malloc(4);
    assert_non_null(p);
    assert_null(grow_array(p, 4, &cap, SIZE_MAX / 4, 4));
    assert_int_equal(cap, 4);
    cap = SIZE_MAX / 2 + 1;
    assert_null(grow_array(p, cap, &cap, 1, 4));
    free(p);
}

static void test_closing_stop(void **state)
{
    (void)state;
    int absorbs;
    token s = token_closing_stop(token_crd(7), &absorbs);
    assert_true(token_equal(s, token_stop(0)));
    assert_false(absorbs);
    s = token_closing_stop(token_stop(1), &absorbs);
    assert_true(token_equal(s, token_stop(2)));
    assert_true(absorbs);
    s = token_closing_stop(token_done(), &absorbs);
    assert_true(token_equal(s, token_stop(0)));
    assert_false(absorbs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doubles_from_first),
        cmocka_unit_test(test_overflow_refused),
        cmocka_unit_test(test_closing_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
