/* The hash table of common/ (common/hash_table.h) against a plain array
 * of the keys added: every key found with its value through the table's
 * growth, no other found, each entry once in a walk over the slots, an
 * added entry zero beyond its key, and a reserve that leaves the next add
 * nothing to allocate. */
#include <stdlib.h>
#include <string.h>

#include "../common/hash_table.h"
#include "../formats/prng.h"
#include "test_util.h"

typedef struct entry {
    int64_t key;
    double value;
    int32_t seen;
} entry;

enum { NKEYS = 5000 };

static void test_against_an_array(void **state)
{
    (void)state;
    static int64_t keys[NKEYS];
    hash_table t;
    sam_error err;
    prng r;
    prng_seed(&r, 7);
    hash_table_init(&t, sizeof(entry));
    assert_null(hash_table_find(&t, 1));
    for (int i = 0; i < NKEYS; i++) {
        keys[i] = (int64_t)(prng_next(&r) >> 2) * (i % 3 == 0 ? -1 : 1);
        int added;
        entry *e = hash_table_add(&t, (uint64_t)keys[i], &added, &err);
        assert_non_null(e);
        assert_true(added && e->key == keys[i] && e->value == 0 && e->seen == 0);
        e->value = (double)i;
        e = hash_table_add(&t, (uint64_t)keys[i], &added, &err);
        assert_true(!added && e->value == (double)i);
    }
    assert_int_equal(t.used, NKEYS);
    assert_true(2 * t.used <= t.cap);
    for (int i = 0; i < NKEYS; i++) {
        entry *e = hash_table_find(&t, (uint64_t)keys[i]);
        assert_non_null(e);
        assert_true(e->value == (double)i);
    }
    for (int i = 0; i < 1000; i++) {
        int64_t k = (int64_t)(prng_next(&r) >> 2) + 1;
        int known = 0;
        for (int j = 0; j < NKEYS && !known; j++)
            known = keys[j] == k;
        assert_true(known || !hash_table_find(&t, (uint64_t)k));
    }
    size_t walked = 0;
    for (size_t i = 0; i < t.cap; i++) {
        entry *e = hash_table_slot(&t, i);
        if (e) {
            assert_int_equal(e->seen, 0);
            e->seen = 1;
            walked++;
        }
    }
    assert_int_equal(walked, NKEYS);
    hash_table_free(&t);
    assert_null(hash_table_find(&t, (uint64_t)keys[0]));
}

/* After a reserve, filling the table to half takes no allocation: the
 * slots stay where they are. */
static void test_reserve(void **state)
{
    (void)state;
    hash_table t;
    sam_error err;
    hash_table_init(&t, sizeof(entry));
    for (int64_t k = 0; k < 200; k++) {
        assert_int_equal(hash_table_reserve(&t, &err), 0);
        unsigned char *slots = t.slots;
        size_t cap = t.cap;
        int added;
        assert_non_null(hash_table_add(&t, (uint64_t)k, &added, &err));
        assert_true(added && t.slots == slots && t.cap == cap);
    }
    hash_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_an_array),
        cmocka_unit_test(test_reserve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
