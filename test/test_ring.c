/* common/ring.h: the blocks' FIFOs keep order across wrap-around and
 * growth, whatever the element size, and a growth that cannot happen
 * leaves the ring as it was. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/ring.h"
#include "test_util.h"

/* Element seq of a stream: every byte depends on seq and its place. */
static void fill(unsigned char *e, size_t elem, size_t seq)
{
    for (size_t j = 0; j < elem; j++)
        e[j] = (unsigned char)(seq * 31 + j * 7 + seq / 256);
}

static void expect(const unsigned char *e, size_t elem, size_t seq)
{
    unsigned char want[64];
    fill(want, elem, seq);
    assert_memory_equal(e, want, elem);
}

/* A copy of e pushed: 0, or -1 when the ring cannot grow. */
static int push_copy(ring *r, const void *e)
{
    void *slot = ring_push(r);
    if (!slot)
        return -1;
    memcpy(slot, e, r->elem);
    return 0;
}

/* The oldest element taken, into out unless it is NULL. */
static void pop_copy(ring *r, void *out)
{
    if (out)
        memcpy(out, ring_head(r), r->elem);
    ring_drop(r);
}

/* Pops every element left, each of which must be the next of the
 * stream (popped is how many were taken before); the total taken. */
static size_t drain_in_order(ring *r, size_t popped)
{
    unsigned char e[64];
    while (ring_count(r)) {
        pop_copy(r, e);
        expect(e, r->elem, popped++);
    }
    return popped;
}

/* Bursts of pushes and fewer pops, so the ring fills and grows with its
 * head all over, then drains; every element must leave in order. */
static void churn(size_t elem)
{
    ring r;
    ring_init(&r, elem);
    unsigned char e[64];
    size_t pushed = 0, popped = 0, wrapped_growths = 0;
    for (size_t round = 0; round < 600; round++) {
        for (size_t k = 0; k < round % 7 + 1; k++) {
            if (r.n == r.cap && r.head != 0)
                wrapped_growths++;
            fill(e, elem, pushed++);
            assert_int_equal(push_copy(&r, e), 0);
        }
        for (size_t k = 0; k < round % 5; k++) {
            expect(ring_head(&r), elem, popped);
            pop_copy(&r, e);
            expect(e, elem, popped++);
        }
        assert_int_equal(ring_count(&r), pushed - popped);
    }
    assert_true(wrapped_growths >= 3);
    assert_int_equal(drain_in_order(&r, popped), pushed);
    ring_free(&r);
}

static void test_fifo_bytes(void **state)
{
    (void)state;
    churn(1);
}

static void test_fifo_wide(void **state)
{
    (void)state;
    churn(24);
    churn(40);
}

static void test_head_pop_count(void **state)
{
    (void)state;
    ring r;
    ring_init(&r, sizeof(uint64_t));
    assert_int_equal(ring_count(&r), 0);
    for (uint64_t v = 10; v < 13; v++)
        assert_int_equal(push_copy(&r, &v), 0);
    assert_int_equal(ring_count(&r), 3);
    assert_int_equal(*(uint64_t *)ring_head(&r), 10);
    pop_copy(&r, NULL);
    assert_int_equal(ring_count(&r), 2);
    assert_int_equal(*(uint64_t *)ring_head(&r), 11);
    uint64_t out = 0;
    pop_copy(&r, &out);
    assert_int_equal(out, 11);
    assert_int_equal(*(uint64_t *)ring_head(&r), 12);
    ring_free(&r);
    assert_int_equal(ring_count(&r), 0);
    uint64_t v = 99;
    assert_int_equal(push_copy(&r, &v), 0);
    assert_int_equal(*(uint64_t *)ring_head(&r), 99);
    ring_free(&r);
}

/* A run appended at once splits across the end of the ring, and again
 * when appending makes it grow with a wrapped head. */
static void test_append_wraps(void **state)
{
    (void)state;
    const size_t elem = 24;
    ring r;
    ring_init(&r, elem);
    unsigned char run[64 * 24], e[24];
    size_t pushed = 0, popped = 0;
    for (; pushed < 10; pushed++) {
        fill(e, elem, pushed);
        assert_int_equal(push_copy(&r, e), 0);
    }
    for (; popped < 8; popped++)
        pop_copy(&r, NULL);
    size_t cap = r.cap, counts[] = {12, 0, 40, 3};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (size_t k = 0; k < counts[c]; k++)
            fill(run + k * elem, elem, pushed + k);
        assert_int_equal(ring_append(&r, run, counts[c]), 0);
        pushed += counts[c];
        assert_int_equal(ring_count(&r), pushed - popped);
        if (c == 0)
            assert_int_equal(r.cap, cap);
    }
    assert_true(r.cap > cap);
    assert_int_equal(drain_in_order(&r, popped), pushed);
    ring_free(&r);
}

/* Room that would overflow is refused like memory that runs out, and the
 * ring keeps what it held, in order. */
static void test_growth_refused(void **state)
{
    (void)state;
    const size_t elems[] = {1, 24};
    for (size_t s = 0; s < 2; s++) {
        size_t elem = elems[s];
        ring r;
        ring_init(&r, elem);
        unsigned char e[24];
        size_t pushed = 0, popped = 0;
        for (; pushed < 20; pushed++) {
            fill(e, elem, pushed);
            assert_int_equal(push_copy(&r, e), 0);
        }
        for (; popped < 5; popped++)
            pop_copy(&r, NULL);
        unsigned char *buf = r.buf;
        size_t cap = r.cap, head = r.head;
        assert_int_equal(ring_append(&r, e, SIZE_MAX / elem - 20), -1);
        assert_int_equal(ring_append(&r, e, SIZE_MAX), -1);
        assert_ptr_equal(r.buf, buf);
        assert_int_equal(r.cap, cap);
        assert_int_equal(r.head, head);
        assert_int_equal(ring_count(&r), 15);
        assert_int_equal(drain_in_order(&r, popped), pushed);
        ring_free(&r);
    }
    ring huge;
    ring_init(&huge, SIZE_MAX / 8);
    char one = 0;
    assert_int_equal(push_copy(&huge, &one), -1);
    assert_int_equal(ring_count(&huge), 0);
    assert_null(huge.buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_bytes),
        cmocka_unit_test(test_fifo_wide),
        cmocka_unit_test(test_head_pop_count),
        cmocka_unit_test(test_append_wraps),
        cmocka_unit_test(test_growth_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
