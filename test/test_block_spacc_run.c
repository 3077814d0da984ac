/* The spaccumulator's native run and what it rests on: the sort of a
 * completed run against qsort's order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/spacc_sort.h"

static uint64_t next_rand(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return *seed >> 11;
}

static int by_point(const void *a, const void *b)
{
    const spacc_point *p = a, *q = b;
    if (p->o != q->o)
        return p->o < q->o ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

/* n distinct points with outer coordinates from lo to lo + span - 1 and
 * inner ones likewise (span 0: any int64_t), valued by their place. */
static void random_points(spacc_point *p, size_t n, int64_t lo, uint64_t span, uint64_t *seed)
{
    for (size_t k = 0; k < n; k++) {
        int fresh;
        do {
            uint64_t o = next_rand(seed) << 11 ^ next_rand(seed), i = next_rand(seed) << 11 ^ next_rand(seed);
            p[k].o = (int64_t)((uint64_t)lo + (span ? o % span : o));
            p[k].i = (int64_t)((uint64_t)lo + (span ? i % span : i));
            fresh = 1;
            for (size_t j = 0; j < k && fresh; j++)
                fresh = p[j].o != p[k].o || p[j].i != p[k].i;
        } while (!fresh);
        p[k].v = (double)k;
    }
}

/* Every size around the switch from insertion to radix, keys of a few
 * bits up to the full 128 (which fall back to qsort), negative
 * coordinates and the extremes of int64_t: the order is qsort's, and each
 * point keeps its value. */
static void test_sort_matches_qsort(void **state)
{
    (void)state;
    static const struct {
        int64_t lo;
        uint64_t span;
    } ranges[] = {{0, 4}, {0, 1000}, {-50, 100}, {INT64_MIN, 3}, {INT64_MAX - 9, 10},
                  {-((int64_t)1 << 40), (uint64_t)1 << 41}, {0, 0}};
    static const size_t sizes[] = {0, 1, 2, 23, 24, 25, 100, 1000, 3000};
    uint64_t seed = 7;
    spacc_point *p = malloc(3000 * sizeof *p), *want = malloc(3000 * sizeof *p),
                *tmp = malloc(3000 * sizeof *p);
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            size_t n = sizes[z];
            if (ranges[r].span && ranges[r].span * ranges[r].span < n)
                continue;
            random_points(p, n, ranges[r].lo, ranges[r].span, &seed);
            memcpy(want, p, n * sizeof *p);
            qsort(want, n, sizeof *want, by_point);
            spacc_sort(p, n, tmp);
            for (size_t k = 0; k < n; k++)
                if (p[k].o != want[k].o || p[k].i != want[k].i || p[k].v != want[k].v)
                    fail_msg("range %zu, %zu points: point %zu is (%lld, %lld) = %g, want (%lld, "
                             "%lld) = %g",
                             r, n, k, (long long)p[k].o, (long long)p[k].i, p[k].v,
                             (long long)want[k].o, (long long)want[k].i, want[k].v);
        }
    free(p), free(want), free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_matches_qsort),
    };
    return cmocka_run_group_tests_name("blocks: the spaccumulator's native run", tests, NULL, NULL);
}
