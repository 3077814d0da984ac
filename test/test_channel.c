/* Channels: order, visibility by cycle, several readers at different
 * speeds over ring growth, capacity counted from the next cycle, the
 * room of a run of pushes, and entries packed in 16 bytes that give back
 * every token and cycle whole. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/channel.h"
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

/* A run's room: push k of a run, at cycle t + k * every, fits when the
 * entry `capacity` back from it was popped by every reader before that
 * cycle, whenever the pop was made; the run stops at the first that does
 * not fit. Against channel_has_room stepped push by push. */
static void test_room_of_a_run(void **state)
{
    (void)state;
    channel c;
    assert_int_equal(channel_init(&c, 0, 1), 0);
    assert_true(channel_room_run(&c, 5, 1, 1000) == 1000);
    channel_free(&c);
    assert_int_equal(channel_init(&c, 3, 1), 0);
    int fast = channel_add_reader(&c, -1), slow = channel_add_reader(&c, -1);
    assert_true(channel_room_run(&c, 0, 1, 2) == 2);
    assert_true(channel_room_run(&c, 0, 1, 10) == 3);
    for (int k = 0; k < 3; k++)
        assert_int_equal(channel_push(&c, 0, token_crd(k)), 0);
    /* The fast reader pops entries 0, 1, 2 at cycles 1, 3, 4; the slow one
     * entries 0 and 1 at cycles 2 and 2. */
    channel_pop(&c, fast, 1);
    channel_pop(&c, fast, 3);
    channel_pop(&c, fast, 4);
    channel_pop(&c, slow, 2);
    channel_pop(&c, slow, 2);
    /* From cycle 3 one a cycle: entry 0 is gone for both before 3, entry 1
     * before 4 (the fast reader's pop in cycle 3 counts for the push in 4,
     * not for channel_room at 3), entry 2 not yet for the slow reader; at
     * 2 nothing fits, and with every = 2 the same two. */
    assert_true(channel_room(&c, 3) == 1);
    assert_true(channel_room_run(&c, 3, 1, 10) == 2);
    assert_true(channel_room_run(&c, 2, 1, 10) == 0);
    assert_true(channel_room_run(&c, 3, 2, 10) == 2);
    assert_true(channel_room_run(&c, 3, 2, 1) == 1);
    /* The same, push by push. */
    cycle_t at[] = {3, 5, 7};
    for (int k = 0; k < 2; k++) {
        assert_true(channel_has_room(&c, at[k]));
        assert_int_equal(channel_push(&c, at[k], token_crd(k)), 0);
    }
    /* Entry 2 is not popped by the slow reader yet: unknown, so no room. */
    assert_true(channel_room_run(&c, at[2], 2, 10) == 0);
    channel_free(&c);
}

/* Every field at its extremes survives the packing: the cycle up to
 * CHANNEL_MAX_CYCLE, each kind, a level of 255 and hollow of
 * CHANNEL_MAX_HOLLOW, any payload
 * (the bits of a double included), and a push at the largest cycle a run
 * reaches comes out visible then. */
static void test_entry_packing(void **state)
{
    (void)state;
    const cycle_t cycles[] = {0, 1, 12345, CHANNEL_MAX_CYCLE - 1, CHANNEL_MAX_CYCLE};
    const double values[] = {0.0, -0.0, 1.5, -1e308, INFINITY, NAN};
    for (size_t c = 0; c < sizeof cycles / sizeof *cycles; c++)
        for (int kind = 0; kind < TOKEN_KINDS; kind++)
            for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
                token t = {.kind = (uint8_t)kind, .level = (uint8_t)(255 - v),
                           .hollow = CHANNEL_MAX_HOLLOW};
                if (kind == TOKEN_VAL)
                    t.v = values[v];
                else
                    t.i = v ? INT64_MIN + (int64_t)v : INT64_MAX;
                channel_entry e = channel_entry_make(t, cycles[c]);
                token back = channel_entry_token(&e);
                assert_int_equal(channel_entry_visible(&e), cycles[c]);
                assert_int_equal(channel_entry_kind(&e), kind);
                assert_int_equal(back.kind, t.kind);
                assert_int_equal(back.level, t.level);
                assert_int_equal(back.hollow, t.hollow);
                assert_memory_equal(&back.i, &t.i, sizeof t.i);
            }
    channel ch;
    assert_int_equal(channel_init(&ch, 0, 1), 0);
    int r = channel_add_reader(&ch, -1);
    assert_int_equal(channel_push(&ch, (CHANNEL_MAX_CYCLE / 2 + 1000), token_stop(3)), 0);
    token t;
    assert_false(channel_peek(&ch, r, (CHANNEL_MAX_CYCLE / 2 + 1000), &t));
    assert_true(channel_peek(&ch, r, (CHANNEL_MAX_CYCLE / 2 + 1000) + 1, &t));
    assert_int_equal(t.kind, TOKEN_STOP);
    assert_int_equal(t.level, 3);
    channel_free(&ch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readers_at_different_speeds),
        cmocka_unit_test(test_visibility_and_capacity),
        cmocka_unit_test(test_room_of_a_run),
        cmocka_unit_test(test_entry_packing),
    };
    return cmocka_run_group_tests_name("channel", tests, NULL, NULL);
}
