/* The terminal status line (common/progress.h) and the render's stages
 * shown through it (graph/render_progress.h), on a clock the test sets
 * and into a memory stream, so the timing is exact and takes no time:
 * nothing before the first delay, a line at most once an interval, each
 * line rewriting the last with "\r" and padded over it, the line blanked
 * out at the end and nothing blanked when nothing was shown. The process
 * side (a terminal or a pipe, --quiet) is test_progress's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/progress.h"
#include "../graph/render_progress.h"
#include "test_util.h"

/* The injected clock: whatever the test last set. */
static double fake_clock(void *ctx)
{
    return *(const double *)ctx;
}

/* A memory stream and how much of it the test has read. */
typedef struct sink {
    FILE *f;
    char *text;
    size_t size, read;
} sink;

static void sink_open(sink *s)
{
    *s = (sink){0};
    s->f = open_memstream(&s->text, &s->size);
    assert_non_null(s->f);
}

/* What was written since the last call. */
static const char *sink_new(sink *s)
{
    assert_int_equal(fflush(s->f), 0);
    const char *from = s->text + s->read;
    s->read = s->size;
    return from;
}

static void sink_close(sink *s)
{
    fclose(s->f);
    free(s->text);
}

/* "\r", text padded with blanks to width, then tail: what rewriting or
 * blanking out a longer line looks like (malloc'd). */
static char *padded(const char *text, int width, const char *tail)
{
    size_t size = (size_t)width + strlen(text) + strlen(tail) + 2;
    char *s = malloc(size);
    snprintf(s, size, "\r%-*s%s", width, text, tail);
    return s;
}

/* The padded line expected next in s. */
static void expect_padded(sink *s, const char *text, int width, const char *tail)
{
    char *want = padded(text, width, tail);
    assert_string_equal(sink_new(s), want);
    free(want);
}

static void test_first_delay_then_interval(void **state)
{
    (void)state;
    double now = 10;
    sink s;
    sink_open(&s);
    progress p;
    progress_init(&p, s.f, 0.25, 1.0, fake_clock, &now);
    now = 10.5;
    progress_show(&p, "step %d", 1);
    assert_string_equal(sink_new(&s), "");
    now = 11.0;
    assert_true(progress_elapsed(&p) == 1.0);
    progress_show(&p, "step %d", 2);
    assert_string_equal(sink_new(&s), "\rsamsim: step 2");
    now = 11.125;
    progress_show(&p, "step %d", 3);
    assert_string_equal(sink_new(&s), "");
    now = 11.25;
    progress_show(&p, "step %d", 4);
    assert_string_equal(sink_new(&s), "\rsamsim: step 4");
    progress_clear(&p);
    expect_padded(&s, "", 14, "\r");
    sink_close(&s);
}

/* No first delay, as a run's display has: the first call shows. */
static void test_no_first_delay(void **state)
{
    (void)state;
    double now = 0;
    sink s;
    sink_open(&s);
    progress p;
    progress_init(&p, s.f, 0.25, 0, fake_clock, &now);
    progress_show(&p, "cycle %llu", 7ULL);
    assert_string_equal(sink_new(&s), "\rsamsim: cycle 7");
    now = 0.125;
    progress_show(&p, "cycle %llu", 8ULL);
    assert_string_equal(sink_new(&s), "");
    sink_close(&s);
}

/* A shorter line blanks out what the longer one left; the clearing
 * covers the longest. */
static void test_padding_and_clearing(void **state)
{
    (void)state;
    double now = 0;
    sink s;
    sink_open(&s);
    progress p;
    progress_init(&p, s.f, 1, 0, fake_clock, &now);
    progress_show(&p, "%s", "a long line");
    assert_string_equal(sink_new(&s), "\rsamsim: a long line");
    now = 1;
    progress_show(&p, "%s", "short");
    expect_padded(&s, "samsim: short", 19, "");
    now = 2;
    progress_show(&p, "%s", "longer than both");
    assert_string_equal(sink_new(&s), "\rsamsim: longer than both");
    progress_clear(&p);
    expect_padded(&s, "", 24, "\r");
    progress_clear(&p);
    assert_string_equal(sink_new(&s), "");
    sink_close(&s);
}

static void test_nothing_shown_nothing_cleared(void **state)
{
    (void)state;
    double now = 0;
    sink s;
    sink_open(&s);
    progress p;
    progress_init(&p, s.f, 0.25, 1.0, fake_clock, &now);
    now = 0.75;
    progress_show(&p, "quick");
    progress_clear(&p);
    assert_string_equal(sink_new(&s), "");
    assert_int_equal(s.size, 0);
    sink_close(&s);
    progress_init(&p, NULL, 0, 0, fake_clock, &now);
    progress_show(&p, "nowhere");
    progress_clear(&p);
}

/* A new stage waits its own first delay; the old line stays meanwhile. */
static void test_restart(void **state)
{
    (void)state;
    double now = 0;
    sink s;
    sink_open(&s);
    progress p;
    progress_init(&p, s.f, 0.25, 1.0, fake_clock, &now);
    now = 1;
    progress_show(&p, "first stage");
    assert_string_equal(sink_new(&s), "\rsamsim: first stage");
    now = 2;
    progress_restart(&p);
    assert_true(progress_elapsed(&p) == 0);
    now = 2.5;
    progress_show(&p, "next");
    assert_string_equal(sink_new(&s), "");
    now = 3;
    progress_show(&p, "next");
    expect_padded(&s, "samsim: next", 19, "");
    sink_close(&s);
}

/* Without an injected clock, the monotonic one. */
static void test_monotonic_default(void **state)
{
    (void)state;
    progress p;
    progress_init(&p, NULL, 0.25, 0, NULL, NULL);
    double a = progress_elapsed(&p), b = progress_elapsed(&p);
    assert_true(a >= 0 && b >= a && b < 60);
}

/* The render's stages: counts grouped by thousands, the stage's own
 * seconds, and the writing stage padded over the longer layout line. */
static void test_render_stages(void **state)
{
    (void)state;
    double now = 0;
    sink s;
    sink_open(&s);
    render_progress r;
    render_progress_init(&r, s.f, fake_clock, &now);
    render_progress_layout(&r, 1500, 2997);
    now = 0.75;
    render_progress_tick(&r);
    assert_string_equal(sink_new(&s), "");
    now = 1;
    render_progress_tick(&r);
    const char *layout = "\rsamsim: render: laying out 1,500 nodes, 2,997 edges ... 1.0 s";
    assert_string_equal(sink_new(&s), layout);
    now = 1.125;
    render_progress_tick(&r);
    assert_string_equal(sink_new(&s), "");
    now = 2.5;
    render_progress_tick(&r);
    assert_string_equal(sink_new(&s),
                        "\rsamsim: render: laying out 1,500 nodes, 2,997 edges ... 2.5 s");
    render_progress_writing(&r, "svg");
    now = 3;
    render_progress_tick(&r);
    assert_string_equal(sink_new(&s), "");
    now = 4;
    render_progress_tick(&r);
    int width = (int)strlen(layout) - 1;
    expect_padded(&s, "samsim: render: writing svg ... 1.5 s", width, "");
    render_progress_clear(&r);
    expect_padded(&s, "", width, "\r");
    sink_close(&s);
}

static void test_render_counts(void **state)
{
    (void)state;
    static const struct {
        int nodes, edges;
        const char *stage;
    } cases[] = {
        {0, 7, "laying out 0 nodes, 7 edges"},
        {999, 1000, "laying out 999 nodes, 1,000 edges"},
        {123456, 1234567, "laying out 123,456 nodes, 1,234,567 edges"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        render_progress r;
        render_progress_init(&r, NULL, NULL, NULL);
        render_progress_layout(&r, cases[k].nodes, cases[k].edges);
        assert_string_equal(r.stage, cases[k].stage);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_delay_then_interval),
        cmocka_unit_test(test_no_first_delay),
        cmocka_unit_test(test_padding_and_clearing),
        cmocka_unit_test(test_nothing_shown_nothing_cleared),
        cmocka_unit_test(test_restart),
        cmocka_unit_test(test_monotonic_default),
        cmocka_unit_test(test_render_stages),
        cmocka_unit_test(test_render_counts),
    };
    return cmocka_run_group_tests_name("progress_clock", tests, NULL, NULL);
}
