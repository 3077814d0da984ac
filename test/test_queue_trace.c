/* A channel's queues over a traced run (engine/queue_trace.h): pushes and
 * pops recorded in any order, some as stretches a fixed number of cycles
 * apart, some past the run's end (within the horizon), must give, once
 * cut at the end, each bucket's token-cycles exactly as a count cycle by
 * cycle does, in buckets of the width the end alone decides. */
#include <stdlib.h>

#include "../engine/queue_trace.h"
#include "test_util.h"

/* The width a run of `end` cycles has: the narrowest power of two that
 * fits it in QUEUE_TRACE_BUCKETS buckets. */
static uint64_t width_for(uint64_t end)
{
    uint64_t w = 1;
    while (end > QUEUE_TRACE_BUCKETS * w)
        w *= 2;
    return w;
}

/* Checks reader r's queue of q, cut at end, against occupancy per cycle
 * (tokens pushed at or before it less those popped at or before it). */
static void expect_buckets(const queue_trace *q, int r, uint64_t end, const int64_t *occ)
{
    uint64_t w, n;
    uint64_t *sums = queue_trace_occupancy(q, r, end, &w, &n);
    assert_non_null(sums);
    assert_int_equal(w, width_for(end));
    assert_int_equal(n, (end + w - 1) / w);
    for (uint64_t b = 0; b < n; b++) {
        int64_t want = 0;
        for (uint64_t t = b * w; t < end && t < (b + 1) * w; t++)
            want += occ[t];
        if ((int64_t)sums[b] != want)
            fail_msg("reader %d, end %llu: bucket %llu of %llu cycles holds %lld token-cycles, "
                     "not %lld",
                     r, (unsigned long long)end, (unsigned long long)b, (unsigned long long)w,
                     (long long)sums[b], (long long)want);
    }
    free(sums);
}

/* Pushes at 0 and 2, pops at 1 and 4: one token in cycles 0, 2 and 3. */
static void test_worked_by_hand(void **state)
{
    (void)state;
    queue_trace *q = queue_trace_new(1, 100);
    assert_non_null(q);
    queue_trace_taken(q, 0, 4, 0, 1);
    queue_trace_pushed(q, 0, 2, 2);
    queue_trace_taken(q, 0, 1, 0, 1);
    assert_int_equal(queue_trace_cut(q, 5), 0);
    static const int64_t occ[] = {1, 0, 1, 1, 0};
    expect_buckets(q, 0, 5, occ);
    queue_trace_free(q);
}

/* One recorded event: n pushes (reader -1) or pops of a reader, one
 * every `every` cycles from t. */
typedef struct event {
    int reader;
    uint64_t t, every, n;
} event;

/* Tokens pushed in stretches, each popped by each reader at a cycle of
 * its own no earlier, or never; cycles up to end + horizon - 1. The
 * events go in shuffled, then the trace is cut at end. */
static void random_case(uint64_t seed, uint64_t end, uint64_t horizon, int readers)
{
    srand((unsigned)seed);
    uint64_t span = end + horizon, tokens = 0;
    size_t cap = 1024, nev = 0;
    event *ev = malloc(cap * sizeof *ev);
    int64_t *occ = calloc((size_t)span * (size_t)readers, sizeof *occ);
    assert_true(ev && occ);
    for (uint64_t t = (uint64_t)rand() % 3; t < span && tokens < 20000;) {
        uint64_t every = (uint64_t)rand() % 4, n = 1 + (uint64_t)rand() % 6;
        if (t + (n - 1) * every >= span)
            n = 1;
        for (uint64_t k = 0; k < n; k++) {
            uint64_t at = t + k * every;
            for (int r = 0; r < readers; r++) {
                occ[(size_t)r * span + at]++;
                if (rand() % 10 == 0)
                    continue;
                uint64_t pop = at + (uint64_t)rand() % (rand() % 4 ? 8 : 3000);
                if (pop >= span)
                    continue;
                occ[(size_t)r * span + pop]--;
                if (nev + 2 > cap)
                    assert_non_null(ev = realloc(ev, (cap *= 2) * sizeof *ev));
                ev[nev++] = (event){r, pop, 0, 1};
            }
        }
        if (nev + 2 > cap)
            assert_non_null(ev = realloc(ev, (cap *= 2) * sizeof *ev));
        ev[nev++] = (event){-1, t, every, n};
        tokens += n;
        t += (n - 1) * every + (uint64_t)(rand() % 5 ? rand() % 3 : rand() % (int)(span / 8 + 1));
    }
    for (size_t k = nev; k > 1; k--) {
        size_t j = (size_t)rand() % k;
        event x = ev[k - 1];
        ev[k - 1] = ev[j];
        ev[j] = x;
    }
    queue_trace *q = queue_trace_new(readers, horizon);
    assert_non_null(q);
    for (size_t k = 0; k < nev; k++) {
        if (ev[k].reader < 0)
            queue_trace_pushed(q, ev[k].t, ev[k].every, ev[k].n);
        else
            queue_trace_taken(q, ev[k].reader, ev[k].t, ev[k].every, ev[k].n);
    }
    assert_int_equal(q->failed, 0);
    assert_int_equal(queue_trace_cut(q, end), 0);
    for (int r = 0; r < readers; r++) {
        int64_t *at = &occ[(size_t)r * span];
        for (uint64_t t = 1; t < end; t++)
            at[t] += at[t - 1];
        expect_buckets(q, r, end, at);
    }
    queue_trace_free(q);
    free(ev);
    free(occ);
}

/* Short runs in buckets of a cycle, and runs long enough that the
 * buckets widen, once or many times, with events past the end. */
static void test_random_orders_match_a_count_by_cycle(void **state)
{
    (void)state;
    static const struct {
        uint64_t end, horizon;
        int readers;
    } cases[] = {
        {1, 16, 1},      {37, 64, 2},     {2048, 512, 1},  {2049, 512, 3},
        {6000, 4096, 2}, {20011, 300, 1}, {150001, 4096, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            random_case(seed * 7919 + c, cases[c].end, cases[c].horizon, cases[c].readers);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_by_hand),
        cmocka_unit_test(test_random_orders_match_a_count_by_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
