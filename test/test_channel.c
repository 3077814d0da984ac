/* Channels: order, visibility by cycle, several readers at different
 * speeds over ring growth, capacity counted from the next cycle. */
#include <stdlib.h>

#include "../sim/channel.h"
#include "test_util.h"

static void test_readers_at_different_speeds(void **state)
{
    (void)state;
    channel c;
    assert_int_equal(channel_init(&c, 0, 1), 0);
    int fast = channel_add_reader(&c, -1), slow = channel_add_reader(&c, -1);
    token t;
    int64_t next_slow = 0;
    for (int64_t i = 0; i < 1000; i++) {
        assert_int_equal(channel_push(&c, (cycle_t)i, token_crd(i)), 0);
        assert_true(channel_peek(&c, fast, (cycle_t)i + 1, &t));
        assert_int_equal(t.i, i);
        channel_pop(&c, fast, (cycle_t)i + 1);
        /* The slow reader falls hundreds of tokens behind, far beyond the
         * ring the fast one needs, and catches up only now and then. */
        for (int k = 0; k < (i % 400 == 399 ? 300 : 0) && channel_peek(&c, slow, 2000, &t); k++) {
            assert_int_equal(t.i, next_slow++);
            channel_pop(&c, slow, 2000);
        }
    }
    while (channel_peek(&c, slow, 2000, &t)) {
        assert_int_equal(t.i, next_slow++);
        channel_pop(&c, slow, 2000);
    }
    assert_int_equal(next_slow, 1000);
    channel_free(&c);
}

static void test_visibility_and_capacity(void **state)
{
    (void)state;
    channel c;
    assert_int_equal(channel_init(&c, 2, 3), 0);
    int r = channel_add_reader(&c, -1);
    token t;
    assert_true(channel_has_room(&c, 0));
    assert_int_equal(channel_push(&c, 0, token_stop(1)), 0);
    assert_int_equal(channel_push(&c, 0, token_done()), 0);
    assert_false(channel_has_room(&c, 0));
    assert_false(channel_peek(&c, r, 2, &t));
    assert_true(channel_peek(&c, r, 3, &t));
    assert_int_equal(t.kind, TOKEN_STOP);
    assert_int_equal(t.level, 1);
    assert_true(channel_sees(&c, r, 3, 1));
    assert_false(channel_sees(&c, r, 3, 2));
    channel_pop(&c, r, 3);
    /* Room freed by a pop in cycle 3 is there from cycle 4. */
    assert_false(channel_has_room(&c, 3));
    assert_true(channel_has_room(&c, 4));
    channel_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readers_at_different_speeds),
        cmocka_unit_test(test_visibility_and_capacity),
    };
    return cmocka_run_group_tests_name("channel", tests, NULL, NULL);
}
