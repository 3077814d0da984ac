/* run/final_points.h: a point is final when it is the last on its inner
 * result tile and within the last stay of its outer tile, on walks worked
 * by hand and on random walks against a direct count. */
#include <stdint.h>
#include <stdlib.h>

#include "../formats/prng.h"
#include "../run/final_points.h"
#include "test_util.h"

/* Outer tile 0 is visited at 0..3 and again at 5 (its last stay), tile 1
 * at 4 and again at 6..7. Inner tile 1 ends at 3 and 3 at 4, both outside
 * their outer tile's last stay; 2 ends at 5 and 4 at 7, inside it. */
static void test_by_hand(void **state)
{
    (void)state;
    static const int64_t inner[] = {1, 1, 2, 1, 3, 2, 4, 4};
    static const int64_t outer[] = {0, 0, 0, 0, 1, 0, 1, 1};
    unsigned char *final;
    sam_error err;
    assert_int_equal(final_points_mark(inner, outer, 8, &final, &err), 0);
    for (size_t k = 0; k < 8; k++)
        assert_int_equal(final_points_is(final, k), k == 5 || k == 7);
    free(final);
    assert_int_equal(final_points_mark(NULL, NULL, 0, &final, &err), 0);
    free(final);
}

/* Whether point k is final, counted directly: no later point on its
 * inner tile, and none later on its outer tile after another tile came
 * between. */
static int final_directly(const int64_t *inner, const int64_t *outer, size_t n, size_t k)
{
    int left = 0;
    for (size_t j = k + 1; j < n; j++) {
        if (inner[j] == inner[k])
            return 0;
        left |= outer[j] != outer[k];
        if (left && outer[j] == outer[k])
            return 0;
    }
    return 1;
}

static void test_random_walks(void **state)
{
    (void)state;
    prng r;
    prng_seed(&r, 7);
    for (int walk = 0; walk < 200; walk++) {
        size_t n = 1 + prng_below(&r, 60);
        int64_t inner[64], outer[64];
        for (size_t k = 0; k < n; k++) {
            outer[k] = (int64_t)prng_below(&r, 3);
            inner[k] = outer[k] * 4 + (int64_t)prng_below(&r, 4);
        }
        unsigned char *final;
        sam_error err;
        assert_int_equal(final_points_mark(inner, outer, n, &final, &err), 0);
        for (size_t k = 0; k < n; k++)
            assert_int_equal(final_points_is(final, k), final_directly(inner, outer, n, k));
        free(final);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_random_walks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
