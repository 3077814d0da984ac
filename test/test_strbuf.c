/* The growing string of common/ (common/strbuf.h): pieces of every length
 * up to 300 bytes added one after another read back as their
 * concatenation, NUL-terminated, through the doublings; an empty add to
 * an empty buffer gives "". */
#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "test_util.h"

static void test_pieces(void **state)
{
    (void)state;
    static char want[300 * 301 / 2 + 1], piece[300];
    strbuf b = {0};
    sam_error err;
    size_t len = 0;
    assert_int_equal(strbuf_add(&b, "", 0, &err), 0);
    assert_string_equal(b.s, "");
    for (size_t n = 1; n <= 300; n++) {
        for (size_t i = 0; i < n; i++)
            piece[i] = (char)('a' + (n + i) % 26);
        assert_int_equal(strbuf_add(&b, piece, n, &err), 0);
        memcpy(want + len, piece, n);
        len += n;
        want[len] = '\0';
        assert_int_equal(b.len, len);
        assert_true(b.cap > b.len);
        assert_string_equal(b.s, want);
    }
    strbuf_free(&b);
    assert_null(b.s);
    assert_int_equal(b.len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
