/* A tiled run's timeline on its hardware (hwmodel/hw_trace.h), recorded
 * by hand: slices named by tile coordinates (a result tile by its
 * number's digits), transfers that touch and agree joined, points never
 * joined while named exactly, and a track that outgrows its share of the
 * slices coarsening step by step as the header says, every point counted
 * in the slices it ends in. */
#include <stdio.h>
#include <string.h>

#include "../hwmodel/hw_trace.h"
#include "test_util.h"

/* B(i) and X(i) cut at two levels, i1 outer and i01 inner, four tiles
 * wide each; or at one level, i1 alone. */
static void init_trace(hw_trace *t, int depth)
{
    hw_trace_shape shape = {.nloop = depth, .loop_name = {"i1", "i01"}, .loop_level = {0, 1},
                            .result_width = {4, 4}, .depth = depth, .ntensors = 1,
                            .tensor_name = {"B", "X"}, .tensor_loops = {3, 3}};
    sam_error err;
    /* One slice asked for: each track keeps the least, 128. */
    if (hw_trace_init(t, &shape, 1, 1, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(t->cap, 128);
}

/* Track k's slices, "NAME FROM TO COUNT" a line, and its name. */
static void expect_track(const hw_trace *t, int k, const char *name, const char *slices)
{
    char buf[4096] = "", line[256], slice[128];
    size_t used = 0;
    const hw_track *track = &t->track[k];
    for (size_t i = 0; i < track->n; i++) {
        hw_trace_slice_name(t, track, i, slice, sizeof slice);
        const hw_slice *s = &track->slice[i];
        snprintf(line, sizeof line, "%s %g %g %llu\n", slice, s->from, s->to,
                 (unsigned long long)s->count);
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s", line);
    }
    assert_string_equal(buf, slices);
    hw_trace_track_name(t, track, 0, line, sizeof line);
    assert_string_equal(line, name);
}

/* Points stay apart however they touch; a transfer that touches one of
 * the same tile joins it (its bytes added), one of another tile does
 * not, one of no cycles is none; the result's tile 7 at level 1 is
 * i1 = 7 / 4 = 1, i01 = 7 % 4 = 3, its tile 2 at level 0 i1 = 2. */
static void test_named_and_joined(void **state)
{
    (void)state;
    hw_trace t;
    init_trace(&t, 2);
    const int64_t p0[] = {0, 1}, p1[] = {0, 2};
    hw_trace_point(&t, 0, 0, 10, p0);
    hw_trace_point(&t, 0, 10, 20, p1);
    hw_trace_at(&t, p1);
    hw_transfer x = {HW_DRAM, HW_PE, 0, 0, 0, 1, -1, -1, 2, 3, 12};
    hw_trace_transfer(&t, &x);
    x.start = 5, x.bytes = 4;
    hw_trace_transfer(&t, &x);
    x.level = 0, x.start = 8;
    hw_trace_transfer(&t, &x);
    x.occupy = 0;
    hw_trace_transfer(&t, &x);
    hw_transfer out = {HW_DRAM, HW_DRAM, 0, 0, 1, 1, 7, -1, 20, 2.5, 10};
    hw_trace_transfer(&t, &out);
    out.level = 0, out.id = 2, out.start = 30;
    hw_trace_transfer(&t, &out);
    expect_track(&t, 0, "pe 0", "i1=0,i01=1 0 10 1\ni1=0,i01=2 10 20 1\n");
    expect_track(&t, 1, "dram", "B i1=0,i01=2 2 8 2\nB i1=0 8 11 1\nX i1=1,i01=3 20 23 1\n"
                                "X i1=2 30 33 1\n");
    assert_true(t.track[1].slice[0].bytes == 16);
    hw_trace_free(&t);
}

/* 300 points of 10 cycles back to back, 100 in each outer tile: at 128
 * slices the track names them by outer tile (i1), and the points of one
 * tile, touching, are one slice: three in the end. */
static void test_outer_tiles(void **state)
{
    (void)state;
    hw_trace t;
    init_trace(&t, 2);
    for (int p = 0; p < 300; p++) {
        const int64_t c[] = {p / 100, p % 100};
        hw_trace_point(&t, 0, 10 * p, 10 * p + 10, c);
    }
    expect_track(&t, 0, "pe 0 (outer tiles)", "i1=0 0 1000 100\ni1=1 1000 2000 100\n"
                                               "i1=2 2000 3000 100\n");
    hw_trace_free(&t);
}

/* 300 points of one level, each its own tile, 10 cycles with 5 between:
 * at 128 slices (up to cycle 1915) no name is shared, so the grain grows
 * 1, 2, ..., 2048, the first not below the span; then the points are
 * named alike and join, the later ones joining them too. */
static void test_grain_then_points(void **state)
{
    (void)state;
    hw_trace t;
    init_trace(&t, 1);
    for (int p = 0; p < 300; p++) {
        const int64_t c[] = {p};
        hw_trace_point(&t, 0, 15 * p, 15 * p + 10, c);
    }
    expect_track(&t, 0, "pe 0 (points, joined across 2048 cycles)", "points 0 4495 300\n");
    hw_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_named_and_joined),
        cmocka_unit_test(test_outer_tiles),
        cmocka_unit_test(test_grain_then_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
