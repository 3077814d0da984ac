/* The bitvector blocks (SAM-BLOCKS.md 6): the bv converter, the bitvector
 * fiberlookup and the bitvector intersect, against the vectors of that
 * section and of the reference's own unit tests (sam/sim/test/primitives/
 * test_bv.py, test_bv_rd_scanner.py, test_intersectbv.py), cycle by cycle
 * as the reference's classes produce them (one input token a cycle, as
 * those tests feed them), and samsim's behaviour where the reference
 * fails or goes wrong. Words are written in decimal: 13 is 0b1101. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "../blocks/registry.h"
#include "test_harness.h"

/* Streams, one per port, as a list. */
#define IN(...) ((const char *const[BLOCK_MAX_PORTS]){__VA_ARGS__})
#define OUT IN

/* Runs ops on the input streams and checks its outputs, cycle by cycle,
 * up to the first NULL of want. */
static void check_block(const block_ops *ops, const char *attrs, const char *const *in,
                        const char *const *want)
{
    harness_spec s = {.ops = ops, .attrs = attrs};
    for (int p = 0; p < BLOCK_MAX_PORTS; p++)
        s.inputs[p] = in[p];
    harness_out out;
    harness_run(&s, &out);
    for (int p = 0; p < BLOCK_MAX_PORTS && want[p]; p++)
        harness_expect(&out, p, want[p], 1);
    harness_free(&out);
}

/* ------------------------------------------------------- bv converter */

static void convert(const char *attrs, const char *in, const char *want, int exact)
{
    harness_spec s = {.ops = &bv_ops, .attrs = attrs, .inputs = {in}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, want, exact);
    harness_free(&out);
}

/* SAM-BLOCKS.md 6: the word at the fiber's stop token, the stop token
 * next cycle; an empty fiber sends its stop token alone. */
static void test_bv_contract(void **state)
{
    (void)state;
    convert("", "0 2 3 S0 D", "_ _ _ 13 S0 D", 1);
    convert("", "S0 D", "S0 D", 1);
    convert("", "0 S0 S0 3 S1 D", "_ 1 S0 S0 _ 8 S1 D", 1);
}

/* Every vector of test_bv.py's test_bv_direct (gold: get_bv of the input),
 * exact as the reference's BV sends them. */
static void test_bv_reference_unit(void **state)
{
    (void)state;
    static const char *const v[][2] = {
        {"0 2 3 9 11 12 S0 D", "_ _ _ _ _ _ 6669 S0 D"},
        {"0 2 3 S0 D", "_ _ _ 13 S0 D"},
        {"0 2 3 S0 9 11 S0 12 S1 D", "_ _ _ 13 S0 _ _ 2560 S0 _ 4096 S1 D"},
        {"0 S0 D", "_ 1 S0 D"},
        {"0 2 3 S1 D", "_ _ _ 13 S1 D"},
        {"0 2 3 S0 1 3 S0 0 S1 D", "_ _ _ 13 S0 _ _ 10 S0 _ 1 S1 D"},
        {"0 1 S0 0 1 S0 0 S1 D", "_ _ 3 S0 _ _ 3 S0 _ 1 S1 D"},
        {"0 S0 2 3 S1 1 S0 3 S1 0 S2 D", "_ 1 S0 _ _ 12 S1 _ 2 S0 _ 8 S1 _ 1 S2 D"},
        {"0 1 2 3 S0 0 1 2 3 S0 0 1 2 3 S1 D", "_ _ _ _ 15 S0 _ _ _ _ 15 S0 _ _ _ _ 15 S1 D"},
        {"0 1 S0 0 1 S0 0 1 S1 D", "_ _ 3 S0 _ _ 3 S0 _ _ 3 S1 D"},
        {"0 1 S0 2 3 S1 0 1 S0 2 3 S1 0 1 S0 2 3 S2 D",
         "_ _ 3 S0 _ _ 12 S1 _ _ 3 S0 _ _ 12 S1 _ _ 3 S0 _ _ 12 S2 D"},
        {"0 4 8 12 16 S0 D", "_ _ _ _ _ 69905 S0 D"},
        {"0 1 2 3 4 S0 D", "_ _ _ _ _ 31 S0 D"},
        {"0 S0 4 S0 8 S0 12 S0 16 S1 D", "_ 1 S0 _ 16 S0 _ 256 S0 _ 4096 S0 _ 65536 S1 D"},
        {"0 1 3 4 S0 D", "_ _ _ _ 27 S0 D"},
        {"0 2 S0 3 S0 9 11 S0 12 S1 D", "_ _ 5 S0 _ 8 S0 _ _ 2560 S0 _ 4096 S1 D"},
        {"S0 D", "S0 D"},
    };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        convert("", v[k][0], v[k][1], 1);
}

/* The words of test_bv.py's test_split_bv_intersect_direct, whose BV
 * inputs are Split's gold outputs (inner coordinates mod the factor). */
static void test_bv_reference_split_golds(void **state)
{
    (void)state;
    convert("", "0 2 3 S0 1 3 S0 0 S1 D", "13 S0 10 S0 1 S1 D", 0);      /* factor 4 */
    convert("", "0 S0 D", "1 S0 D", 0);
    convert("", "0 S0 0 1 S1 1 S0 1 S1 0 S2 D", "1 S0 3 S1 2 S0 2 S1 1 S2 D", 0);   /* 2 */
    convert("", "0 1 S0 0 1 S1 0 1 S0 0 1 S1 0 1 S0 0 1 S2 D", "3 S0 3 S1 3 S0 3 S1 3 S0 3 S2 D",
            0);
    convert("", "0 S0 0 S0 0 S0 0 S0 0 S1 D", "1 S0 1 S0 1 S0 1 S0 1 S1 D", 0);   /* 4 */
    convert("", "0 2 S0 0 S0 0 2 S0 0 S1 D", "5 S0 1 S0 5 S0 1 S1 D", 0);         /* 3 */
    convert("", "0 1 3 4 S0 D", "27 S0 D", 0);
}

/* Input gaps: the block waits; the pending stop token goes out even with
 * nothing to take. */
static void test_bv_gaps(void **state)
{
    (void)state;
    convert("", "0 _ 2 _ S0 _ D", "_ _ _ _ 5 S0 D", 1);
    convert("", "5 S0 _ _ _ S1 D", "_ 32 S0 _ _ S1 D", 1);
    convert("", "S0 S1 D", "S0 S1 D", 1);
}

/* The width: 64 bits by default (bit 63 reads as a negative number),
 * fewer when asked; N adds no bit. */
static void test_bv_width_and_n(void **state)
{
    (void)state;
    convert("", "0 63 S0 D", "_ _ -9223372036854775807 S0 D", 1);
    convert("width=4", "0 3 S0 D", "_ _ 9 S0 D", 1);
    convert("", "N S0 D", "_ S0 D", 1);
    convert("", "1 N S0 D", "_ _ 2 S0 D", 1);
}

/* ---------------------------------------- bv converter, many words */

static void convert_words(const char *attrs, const char *in, const char *want)
{
    convert(attrs, in, want, 1);
}

/* The converter with its ref input counted, as create counts it from a
 * graph that draws the edge. */
static int create_with_refs(block *b, const block_ctx *ctx, sam_error *err)
{
    if (bv_ops.create(b, ctx, err))
        return -1;
    b->nin = 2;
    return 0;
}

/* Runs the converter on coordinates and their refs; checks the words and
 * their bases cycle by cycle. */
static void convert_refs(const char *attrs, const char *crd, const char *ref, const char *bv,
                         const char *base)
{
    block_ops ops = bv_ops;
    ops.create = create_with_refs;
    check_block(&ops, attrs, IN(crd, ref), OUT(bv, base));
}

/* size=20 in 8-bit words: three a fiber. A word goes out in the cycle a
 * coordinate beyond it is taken, the last at the stop token, which
 * follows a cycle later. */
static void test_bv_words(void **state)
{
    (void)state;
    convert_words("size=20,width=8", "1 3 9 17 19 S0 D", "_ _ 10 2 _ 10 S0 D");
    convert_words("size=130", "0 63 64 129 S0 D", "_ _ -9223372036854775807 1 2 S0 D");
}

/* The zero words between two coordinates go out one a cycle while the
 * input waits; those after the last, one a cycle after the stop token is
 * taken; a fiber without coordinates is its stop token alone. */
static void test_bv_words_zeros(void **state)
{
    (void)state;
    convert_words("size=40,width=8", "2 33 S0 D", "_ 4 0 0 0 2 S0 D");
    convert_words("size=20,width=8", "1 S0 S0 D", "_ 2 0 0 S0 S0 D");
    convert_words("size=20,width=8", "_ 9 _ _ S0 _ D", "_ 0 _ _ 2 0 S0 D");
}

/* An absent fiber (N alone, or a stop closing a fiber never opened) is
 * its stop token alone; N beside coordinates adds no bit. */
static void test_bv_words_absent_fibers(void **state)
{
    (void)state;
    convert_words("size=20,width=8", "N S0 D", "_ S0 D");
    convert_words("size=16,width=8", "1 S0 S1' 9 S1 D", "_ 2 0 S0 S1' 0 2 S1 D");
    convert_words("size=8,width=8", "N 3 S0 D", "_ _ 8 S0 D");
}

/* With the ref input, each word's base: its first coordinate's ref, the
 * next coordinate's for a word without one, else one past the last ref. */
static void test_bv_words_refs(void **state)
{
    (void)state;
    convert_refs("size=20,width=8", "1 3 9 17 19 S0 D", "0 1 2 3 4 S0 D", "_ _ 10 2 _ 10 S0 D",
                 "_ _ 0 2 _ 3 S0 D");
    convert_refs("size=40,width=8", "2 33 S0 D", "7 8 S0 D", "_ 4 0 0 0 2 S0 D",
                 "_ 7 8 8 8 8 S0 D");
    convert_refs("size=20,width=8", "1 S0 S0 D", "5 S0 S0 D", "_ 2 0 0 S0 S0 D",
                 "_ 5 6 6 S0 S0 D");
    convert_refs("size=20,width=8", "N S0 D", "N S0 D", "_ S0 D", "_ S0 D");
}

/* One word a fiber (size=0, the reference's) with refs: the first
 * coordinate's; an empty fiber is its stop token alone. */
static void test_bv_refs_one_word(void **state)
{
    (void)state;
    convert_refs("", "0 2 3 S0 5 S1 D", "4 5 6 S0 9 S1 D", "_ _ _ 13 S0 _ 32 S1 D",
                 "_ _ _ 4 S0 _ 9 S1 D");
    convert_refs("", "S0 D", "S0 D", "S0 D", "S0 D");
}

/* ------------------------------------------------ bitvector fiberlookup */

/* Scans the fibers of a bitvector level of dimension dim. */
static void scan(int64_t dim, const uint64_t *bits, size_t nbits, const char *attrs,
                 const char *in, const char *bv, const char *ref, int exact)
{
    fibertree ft;
    harness_bv_level(&ft, dim, bits, nbits);
    char a[128];
    snprintf(a, sizeof a, "tensor=B,mode=0,format=bitvector%s%s", *attrs ? "," : "", attrs);
    harness_spec s = {.ops = &fiberlookup_bitvector_ops, .attrs = a, .tensor = "B", .tree = &ft,
                      .inputs = {in}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, bv, exact);
    harness_expect(&out, 1, ref, exact);
    harness_free(&out);
    fibertree_free(&ft);
}

#define SCAN(dim, bits, attrs, in, bv, ref) \
    scan(dim, bits, sizeof(bits) / sizeof(bits)[0], attrs, in, bv, ref, 1)

/* Words [0b1011, 0b0101, 0b1000]: fibers {0,1,3}, {0,2}, {3}. */
static const uint64_t words3[] = {11, 5, 8};
/* Words [0b1011, 0b0110]. */
static const uint64_t words2[] = {11, 6};

/* SAM-BLOCKS.md 6 and test_bv_rd_scanner.py, whose outputs are compared
 * cycle by cycle there. */
static void test_scan_reference_unit(void **state)
{
    (void)state;
    static const uint64_t words1[] = {11};
    SCAN(64, words1, "", "0 D", "11 S0 D", "0 S0 D");
    SCAN(64, words3, "", "1 2 S0 D", "5 S0 8 S1 D", "3 S0 5 S1 D");
    SCAN(64, words2, "", "0 1 S0 D", "11 S0 6 S1 D", "0 S0 3 S1 D");
}

/* The stop token waits for the next ref (derived from BVRdScan). */
static void test_scan_waits_for_the_next_ref(void **state)
{
    (void)state;
    SCAN(64, words2, "", "0 _ _ _ 1 _ S0 D", "11 _ _ _ S0 6 S1 D", "0 _ _ _ S0 3 S1 D");
}

/* An empty fiber is the word 0; ref is the popcount of the words before. */
static void test_scan_empty_fiber_and_refs(void **state)
{
    (void)state;
    static const uint64_t words[] = {5, 0, 6};
    SCAN(64, words, "", "0 1 2 S0 D", "5 S0 0 S0 6 S1 D", "0 S0 2 S0 2 S1 D");
    static const uint64_t wordsb[] = {3, 5, 6};
    SCAN(64, wordsb, "", "0 1 S0 2 S1 D", "3 S0 5 S1 6 S2 D", "0 S0 2 S1 4 S2 D");
}

/* An N ref yields its fiber's stop token alone, merged with a stop-token
 * ref after it, as the reference's BVRdScan does. */
static void test_scan_n_refs(void **state)
{
    (void)state;
    SCAN(64, words2, "", "0 N 1 N S0 D", "11 S0 S0 6 S0 S1 D", "0 S0 S0 3 S0 S1 D");
    SCAN(64, words3, "", "N D", "_ S0 D", "_ S0 D");
    SCAN(64, words3, "", "N _ S0 D", "_ _ S1 D", "_ _ S1 D");
}

/* A stop-token ref that starts a fiber (an empty outer fiber) becomes
 * S(k+1), as from every scanner; the reference sends it unchanged
 * ("11 S1 S0 6 S2 D" and "S0 D"), one level too low. */
static void test_scan_empty_outer_fiber(void **state)
{
    (void)state;
    SCAN(64, words2, "", "0 S0 S0 1 S1 D", "11 S1 S1' 6 S2 D", "0 S1 S1' 3 S2 D");
    SCAN(64, words2, "", "S0 D", "S1' D", "S1' D");
}

/* 64 bits a word by default (bit 63 reads as a negative number), fewer
 * when asked. */
static void test_scan_width(void **state)
{
    (void)state;
    static const uint64_t words[] = {((uint64_t)1 << 63) | 2};
    SCAN(64, words, "", "0 D", "-9223372036854775806 S0 D", "0 S0 D");
    static const uint64_t words4[] = {10};
    SCAN(4, words4, "width=4", "0 D", "10 S0 D", "0 S0 D");
}

/* Fibers of several words: dimension 20 in 8-bit words, three a fiber,
 * one a cycle with their base refs, then the stop token as any scanner's.
 * Fibers {1,3,9,17,19}, {0,8,16} and {}; words are written in decimal
 * (10 is 0b1010, bits 1 and 3). */
static const uint64_t dim20[] = {655882, 65793, 0};

static void test_scan_words(void **state)
{
    (void)state;
    SCAN(20, dim20, "width=8", "0 1 2 D", "10 2 10 S0 1 1 1 S0 0 0 0 S0 D",
         "0 2 3 S0 5 6 7 S0 8 8 8 S0 D");
    SCAN(20, dim20, "width=8", "0 1 S0 2 S1 D", "10 2 10 S0 1 1 1 S1 0 0 0 S2 D",
         "0 2 3 S0 5 6 7 S1 8 8 8 S2 D");
}

/* The words go out without waiting for input; the stop waits for the
 * next ref. An N ref is an absent fiber: its stop token alone. */
static void test_scan_words_timing(void **state)
{
    (void)state;
    SCAN(20, dim20, "width=8", "0 _ _ _ _ D", "10 2 10 _ _ S0 D", "0 2 3 _ _ S0 D");
    SCAN(20, dim20, "width=8", "0 N _ _ _ _ 1 D", "10 2 10 S0 _ _ S0 1 1 1 S0 D",
         "0 2 3 S0 _ _ S0 5 6 7 S0 D");
    SCAN(20, dim20, "width=8", "S0 1 S0 D", "S1' 1 1 1 S1 D", "S1' 5 6 7 S1 D");
}

/* Dimension 130 in 64-bit words: the storage words themselves. */
static void test_scan_words_64(void **state)
{
    (void)state;
    static const uint64_t dim130[] = {((uint64_t)1 << 63) | 1, 1, 2, 0, 0, 1};
    SCAN(130, dim130, "", "0 1 D", "-9223372036854775807 1 2 S0 0 0 1 S0 D",
         "0 2 3 S0 4 4 4 S0 D");
}

/* A width that does not divide 64: 24-bit words, six a fiber of
 * dimension 130, the third across two storage words, the last ten bits
 * wide; a bit of the storage beyond the dimension is left out. */
static void test_scan_words_slices(void **state)
{
    (void)state;
    static const uint64_t fiber[] = {
        ((uint64_t)1 << 23) | ((uint64_t)1 << 24) | ((uint64_t)1 << 63),
        1 | ((uint64_t)1 << 6) | ((uint64_t)1 << 56),
        ((uint64_t)1 << 1) | ((uint64_t)1 << 2),
    };
    SCAN(130, fiber, "width=24", "0 D", "8388608 1 4292608 0 0 513 S0 D", "0 1 2 5 5 5 S0 D");
}

/* ------------------------------------------------- bitvector intersect */

static void join(const char *attrs, const char *b1, const char *r1, const char *b2,
                 const char *r2, const char *bv, const char *o1, const char *o2, int exact)
{
    harness_spec s = {.ops = &intersect_bitvector_ops, .attrs = attrs,
                      .inputs = {b1, r1, b2, r2}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, bv, exact);
    harness_expect(&out, 1, o1, exact);
    harness_expect(&out, 2, o2, exact);
    harness_free(&out);
}

/* SAM-BLOCKS.md 6 and test_intersectbv.py (bubble-free there), exact. */
static void test_intersect_reference_unit(void **state)
{
    (void)state;
    join("", "13 S0 D", "1 S0 D", "12 S0 D", "3 S0 D", "12 _ S0 D", "2 3 S0 D", "3 4 S0 D", 1);
    join("", "10 S0 1 S1 D", "3 S0 5 S1 D", "13 S0 6 S1 D", "0 S0 3 S1 D", "8 S0 _ S1 D",
         "4 S0 _ S1 D", "2 S0 _ S1 D", 1);
    /* The unit tests compare bubble-free streams. */
    join("", "10 S0 1 S1 D", "3 S0 5 S1 D", "13 S0 6 S1 D", "0 S0 3 S1 D", "8 S0 S1 D",
         "4 S0 S1 D", "2 S0 S1 D", 0);
}

/* emit_zeros=1: an empty AND sends the word 0, and no refs. */
static void test_intersect_emit_zeros(void **state)
{
    (void)state;
    join("emit_zeros=1", "10 S0 1 S1 D", "3 S0 5 S1 D", "13 S0 6 S1 D", "0 S0 3 S1 D",
         "8 S0 0 S1 D", "4 S0 _ S1 D", "2 S0 _ S1 D", 1);
}

/* One ref pair a cycle while the inputs wait; gaps on one side stall. */
static void test_intersect_timing(void **state)
{
    (void)state;
    join("", "31 1 S1 D", "0 5 S1 D", "21 3 S1 D", "2 5 S1 D", "21 _ _ 1 S1 D", "0 2 4 5 S1 D",
         "2 3 4 5 S1 D", 1);
    join("", "15 _ _ S0 D", "0 _ _ S0 D", "6 S0 D", "7 S0 D", "6 _ _ S0 D", "1 2 _ S0 D",
         "7 8 _ S0 D", 1);
    join("", "11 S0 4 S1 D", "0 S0 3 S1 D", "3 S0 _ _ 4 S1 D", "4 S0 _ _ 6 S1 D",
         "3 _ S0 _ 4 S1 D", "0 1 S0 _ 3 S1 D", "4 5 S0 _ 6 S1 D", 1);
    join("", "S0 D", "S0 D", "S0 D", "S0 D", "S0 D", "S0 D", "S0 D", 1);
}

/* Bit 63 and the refs below it. */
static void test_intersect_high_bit(void **state)
{
    (void)state;
    join("", "-9223372036854775807 S0 D", "10 S0 D", "-9223372036854775808 S0 D", "0 S0 D",
         "-9223372036854775808 S0 D", "11 S0 D", "0 S0 D", 1);
}

/* A word meeting an empty fiber (the bv converter sends it as its stop
 * token alone) is taken alone; the reference fails with a type error. */
static void test_intersect_word_meets_empty_fiber(void **state)
{
    (void)state;
    join("", "S0 5 S1 D", "S0 2 S1 D", "6 S0 4 S1 D", "0 S0 2 S1 D", "_ S0 4 S1 D",
         "_ S0 3 S1 D", "_ S0 2 S1 D", 1);
    join("", "7 S0 D", "0 S0 D", "S0 D", "S0 D", "_ S0 D", "_ S0 D", "_ S0 D", 1);
}

/* Fibers of several words, in lockstep. Width 8, dimension 20: B's
 * fiber {1,3,9,17,19} (words 10 2 10, bases 0 2 3), C's {3,9,12,19}
 * (words 8 18 8, bases 0 1 3). Outputs: the AND words, B's refs, C's
 * refs, the coordinates k*8 + bit. */
static void test_intersect_words(void **state)
{
    (void)state;
    check_block(&intersect_bitvector_ops, "width=8",
                IN("10 2 10 S0 D", "0 2 3 S0 D", "8 18 8 S0 D", "0 1 3 S0 D"),
                OUT("8 2 8 S0 D", "1 2 4 S0 D", "0 1 3 S0 D", "3 9 19 S0 D"));
    /* The second fiber counts its words from 0 again; an AND of 0 sends
     * nothing. */
    check_block(&intersect_bitvector_ops, "width=8",
                IN("10 2 10 S0 1 1 1 S1 D", "0 2 3 S0 5 6 7 S1 D", "8 18 8 S0 1 0 1 S1 D",
                   "0 1 3 S0 5 6 6 S1 D"),
                OUT("8 2 8 S0 1 _ 1 S1 D", "1 2 4 S0 5 _ 7 S1 D", "0 1 3 S0 5 _ 6 S1 D",
                    "3 9 19 S0 0 _ 16 S1 D"));
}

/* Each further common bit takes a cycle of its own, in which nothing is
 * taken: 4-bit words, two a fiber. */
static void test_intersect_words_timing(void **state)
{
    (void)state;
    check_block(&intersect_bitvector_ops, "width=4",
                IN("15 15 S0 D", "0 4 S0 D", "6 9 S0 D", "0 2 S0 D"),
                OUT("6 _ 9 _ S0 D", "1 2 4 7 S0 D", "0 1 2 3 S0 D", "1 2 4 7 S0 D"));
}

/* A side at its stop token (an absent fiber) counts as zero words while
 * the other's are taken; with emit_zeros=1 each step sends its word. */
static void test_intersect_words_absent_fiber(void **state)
{
    (void)state;
    check_block(&intersect_bitvector_ops, "width=8",
                IN("10 2 10 S0 1 1 1 S1 D", "0 2 3 S0 5 6 7 S1 D", "8 18 8 S0 S1 D",
                   "0 1 3 S0 S1 D"),
                OUT("8 2 8 S0 _ _ _ S1 D", "1 2 4 S0 _ _ _ S1 D", "0 1 3 S0 _ _ _ S1 D",
                    "3 9 19 S0 _ _ _ S1 D"));
    check_block(&intersect_bitvector_ops, "width=8,emit_zeros=1",
                IN("S0 D", "S0 D", "10 2 10 S0 D", "0 2 3 S0 D"),
                OUT("0 0 0 S0 D", "_ _ _ S0 D", "_ _ _ S0 D", "_ _ _ S0 D"));
}

/* Three and four sides: the AND of all, a ref output per side, the
 * coordinates last. */
static void test_intersect_more_sides(void **state)
{
    (void)state;
    check_block(&intersect_bitvector_ops, "width=8,sides=3",
                IN("10 2 10 S0 D", "0 2 3 S0 D", "8 18 8 S0 D", "0 1 3 S0 D", "8 2 0 S0 D",
                   "0 1 2 S0 D"),
                OUT("8 2 _ S0 D", "1 2 _ S0 D", "0 1 _ S0 D", "0 1 _ S0 D", "3 9 _ S0 D"));
    check_block(&intersect_bitvector_ops, "width=8,sides=4",
                IN("3 S0 D", "0 S0 D", "7 S0 D", "1 S0 D", "11 S0 D", "2 S0 D", "2 S0 D",
                   "3 S0 D"),
                OUT("2 S0 D", "1 S0 D", "2 S0 D", "3 S0 D", "3 S0 D", "1 S0 D"));
}

/* ------------------------------------------------------ bitvector union */

/* The OR of B's and C's words above: each bit's coordinate, the refs of
 * the sides that hold it and N on the others, one bit a cycle. Outputs:
 * the OR words, B's refs, C's refs, the coordinates. */
static void test_union_words(void **state)
{
    (void)state;
    check_block(&union_bitvector_ops, "width=8",
                IN("10 2 10 S0 D", "0 2 3 S0 D", "8 18 8 S0 D", "0 1 3 S0 D"),
                OUT("10 _ 18 _ 10 _ S0 D", "0 1 2 N 3 4 S0 D", "N 0 1 2 N 3 S0 D",
                    "1 3 9 12 17 19 S0 D"));
}

/* An absent fiber on one side: N for each of the other's bits. */
static void test_union_absent_fiber(void **state)
{
    (void)state;
    check_block(&union_bitvector_ops, "width=8",
                IN("S0 10 S1 D", "S0 0 S1 D", "8 18 8 S0 S1 D", "0 1 3 S0 S1 D"),
                OUT("8 18 _ 8 S0 10 _ S1 D", "N N N N S0 0 1 S1 D", "0 1 2 3 S0 N N S1 D",
                    "3 9 12 19 S0 1 3 S1 D"));
}

/* The OR word 0 goes out by default (a whole word stream for a writer);
 * emit_zeros=0 drops it. */
static void test_union_zero_words(void **state)
{
    (void)state;
    check_block(&union_bitvector_ops, "width=8",
                IN("0 1 S0 D", "0 0 S0 D", "0 0 S0 D", "4 4 S0 D"),
                OUT("0 1 S0 D", "_ 0 S0 D", "_ N S0 D", "_ 8 S0 D"));
    check_block(&union_bitvector_ops, "width=8,emit_zeros=0",
                IN("0 1 S0 D", "0 0 S0 D", "0 0 S0 D", "4 4 S0 D"),
                OUT("_ 1 S0 D", "_ 0 S0 D", "_ N S0 D", "_ 8 S0 D"));
}

/* Three sides, one of them absent. */
static void test_union_more_sides(void **state)
{
    (void)state;
    check_block(&union_bitvector_ops, "sides=3",
                IN("5 S0 D", "0 S0 D", "6 S0 D", "10 S0 D", "S0 D", "S0 D"),
                OUT("7 _ _ S0 D", "0 N 1 S0 D", "N 10 11 S0 D", "N N N S0 D", "0 1 2 S0 D"));
}

/* ------------------------------------------ bitvector to coordinates */

/* Each set bit's coordinate and ref, one a cycle, the word taken with its
 * first bit; B's words above. */
static void test_to_crd_words(void **state)
{
    (void)state;
    check_block(&bv_to_crd_ops, "to=crd,width=8", IN("10 2 10 S0 D", "0 2 3 S0 D"),
                OUT("1 3 9 17 19 S0 D", "0 1 2 3 4 S0 D"));
}

/* A zero word costs a cycle; stop tokens pass, an absent fiber's too. */
static void test_to_crd_zero_words_and_stops(void **state)
{
    (void)state;
    check_block(&bv_to_crd_ops, "to=crd,width=8", IN("0 0 1 S0 D", "5 5 5 S0 D"),
                OUT("_ _ 16 S0 D", "_ _ 5 S0 D"));
    check_block(&bv_to_crd_ops, "to=crd", IN("6 S0 S1 5 S1 D", "0 S0 S1 2 S1 D"),
                OUT("1 2 S0 S1 0 2 S1 D", "0 1 S0 S1 2 3 S1 D"));
    check_block(&bv_to_crd_ops, "to=crd", IN("_ _ 1 _ S0 D", "1 _ _ _ S0 D"),
                OUT("_ _ 0 _ S0 D", "_ _ 1 _ S0 D"));
}

/* The highest bit of a 64-bit word. */
static void test_to_crd_high_bit(void **state)
{
    (void)state;
    check_block(&bv_to_crd_ops, "to=crd", IN("0 -9223372036854775808 S0 D", "7 7 S0 D"),
                OUT("_ 127 S0 D", "_ 7 S0 D"));
}

/* ------------------------------------------------ bitvector fiberwrite */

/* Writes the word stream with the writer on attrs, into a result of
 * `order` levels, level k storing mode k of dimension dim, and collects
 * it: collect's return; its message in msg. done: the cycle D was taken
 * in, or -1. */
static int write_words(const char *attrs, const char *in, int order, int64_t dim,
                       fibertree *res, char *msg, size_t n, int *done)
{
    harness_spec s = {.ops = &fiberwrite_bitvector_ops, .attrs = attrs, .inputs = {in}};
    harness_out out;
    harness_run(&s, &out);
    *done = out.done ? (int)out.done_cycle : -1;
    memset(res, 0, sizeof *res);
    res->order = order;
    for (int k = 0; k < order; k++) {
        res->dims[k] = dim;
        res->lv[k] = (fiber_level){.kind = 's', .mode = k, .dim = dim};
    }
    /* The harness lets go of the node after the run; collect names it. */
    graph_node node = {.id = "0", .type = "fiberwrite"};
    out.blk.node = &node;
    sam_error err = {{0}};
    int rc = out.blk.ops->collect(&out.blk, res, &err);
    snprintf(msg, n, "%.*s", (int)n - 1, err.msg);
    harness_free(&out);
    return rc;
}

static void expect_level(const fiber_level *l, const uint64_t *bits, size_t nbits,
                         const int64_t *seg, size_t nseg)
{
    assert_int_equal(l->kind, 'b');
    assert_int_equal(l->nbits, nbits);
    for (size_t q = 0; q < nbits; q++)
        assert_int_equal(l->bits[q], bits[q]);
    assert_int_equal(l->nseg, nseg);
    for (size_t f = 0; f < nseg; f++)
        assert_int_equal(l->seg[f], seg[f]);
    assert_int_equal(l->ncrd, seg[nseg - 1]);
}

#define EXPECT_LEVEL(l, bits, seg) \
    expect_level(l, bits, sizeof(bits) / sizeof(bits)[0], seg, sizeof(seg) / sizeof(seg)[0])

/* A vector of dimension 20 in 8-bit words: the scanner's fiber
 * {1,3,9,17,19} back in storage, D taken in the cycle it comes. */
static void test_write_vector(void **state)
{
    (void)state;
    fibertree res;
    char msg[256];
    int done;
    assert_int_equal(write_words("tensor=X,mode=0,format=bitvector,width=8", "10 2 10 S0 D", 1,
                                 20, &res, msg, sizeof msg, &done), 0);
    static const uint64_t bits[] = {655882};
    static const int64_t seg[] = {0, 5};
    EXPECT_LEVEL(&res.lv[0], bits, seg);
    assert_int_equal(done, 4);
    fibertree_free(&res);
    /* Fewer words than the dimension needs: the rest are zeros; no fiber
     * at all: the top level's one fiber, all zeros. */
    assert_int_equal(write_words("tensor=X,mode=0,format=bitvector,width=8", "_ 1 _ S0 D", 1, 20,
                                 &res, msg, sizeof msg, &done), 0);
    static const uint64_t one[] = {1};
    static const int64_t seg1[] = {0, 1};
    EXPECT_LEVEL(&res.lv[0], one, seg1);
    assert_int_equal(done, 4);
    fibertree_free(&res);
    assert_int_equal(write_words("tensor=X,mode=0,format=bitvector", "D", 1, 130, &res, msg,
                                 sizeof msg, &done), 0);
    static const uint64_t zeros[] = {0, 0, 0};
    static const int64_t seg0[] = {0, 0};
    EXPECT_LEVEL(&res.lv[0], zeros, seg0);
    fibertree_free(&res);
}

/* The inner level of a matrix: a stop token closes a fiber that brought
 * words; one without (S0 S0, the empty fiber S1 closes, S1') is none, as
 * a compressed writer keeps no empty fiber. */
static void test_write_fibers(void **state)
{
    (void)state;
    fibertree res;
    char msg[256];
    int done;
    assert_int_equal(write_words("tensor=X,mode=1,format=bitvector,width=8",
                                 "10 2 10 S0 1 1 1 S1 S1' D", 2, 20, &res, msg, sizeof msg,
                                 &done), 0);
    static const uint64_t bits[] = {655882, 65793};
    static const int64_t seg[] = {0, 5, 8};
    EXPECT_LEVEL(&res.lv[1], bits, seg);
    fibertree_free(&res);
    assert_int_equal(write_words("tensor=X,mode=1,format=bitvector,width=8",
                                 "S0 10 2 10 S0 S1 D", 2, 20, &res, msg, sizeof msg, &done), 0);
    static const uint64_t bits3[] = {655882};
    static const int64_t seg3[] = {0, 5};
    EXPECT_LEVEL(&res.lv[1], bits3, seg3);
    fibertree_free(&res);
}

/* 24-bit words, six a fiber of dimension 130: the scanner's slices put
 * back across the storage words. */
static void test_write_slices(void **state)
{
    (void)state;
    fibertree res;
    char msg[256];
    int done;
    assert_int_equal(write_words("tensor=X,mode=0,format=bitvector,width=24",
                                 "8388608 1 4292608 0 0 513 S0 D", 1, 130, &res, msg, sizeof msg,
                                 &done), 0);
    static const uint64_t bits[] = {
        ((uint64_t)1 << 23) | ((uint64_t)1 << 24) | ((uint64_t)1 << 63),
        1 | ((uint64_t)1 << 6) | ((uint64_t)1 << 56),
        (uint64_t)1 << 1,
    };
    static const int64_t seg[] = {0, 7};
    EXPECT_LEVEL(&res.lv[0], bits, seg);
    fibertree_free(&res);
}

/* What the dimension does not allow is refused when the level is
 * collected, naming the fiber. */
static void test_write_refusals(void **state)
{
    (void)state;
    fibertree res;
    char msg[256];
    int done;
    assert_int_equal(write_words("tensor=X,mode=0,format=bitvector,width=8", "1 1 1 1 S0 D", 1,
                                 20, &res, msg, sizeof msg, &done), -1);
    assert_string_equal(msg, "node 0 (fiberwrite): fiber 0 holds 4 words, more than the 3 of "
                             "dimension 20 in 8-bit words");
    fibertree_free(&res);
    assert_int_equal(write_words("tensor=X,mode=1,format=bitvector,width=8", "S0 0 0 16 S0 D", 2,
                                 20, &res, msg, sizeof msg, &done), -1);
    assert_string_equal(msg, "node 0 (fiberwrite): fiber 0: coordinate 20 is beyond the "
                             "dimension 20");
    fibertree_free(&res);
    assert_int_equal(write_words("tensor=X,mode=3,format=bitvector", "1 S0 D", 2, 20, &res, msg,
                                 sizeof msg, &done), -1);
    assert_string_equal(msg, "node 0 (fiberwrite): the result has no mode 3");
    fibertree_free(&res);
}

/* ------------------------------------------- chains of bitvector blocks */

/* Output p of a run as the input of a block one edge further on: each
 * token a cycle later (the edge's latency), "_" for a cycle without one;
 * malloc'd. */
static char *as_input(const harness_out *out, int p)
{
    size_t cap = 24 * ((size_t)out->ncycles + 2), len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s, cap, "_");
    for (int t = 0; t < out->ncycles; t++) {
        char tb[32];
        const char *w = out->has[p][t] ? token_str(out->tok[p][t], tb) : "_";
        len += (size_t)snprintf(s + len, cap - len, " %s", w);
    }
    return s;
}

/* Scans fiber 0 of tree (tensor B) from the root ref stream. */
static void run_scan(const fibertree *ft, harness_out *out)
{
    harness_spec s = {.ops = &fiberlookup_bitvector_ops,
                      .attrs = "tensor=B,mode=0,format=bitvector,width=8", .tensor = "B",
                      .tree = ft, .inputs = {"0 D"}};
    harness_run(&s, out);
}

/* Loads the values of tree (tensor B) at the refs. */
static void run_array(const fibertree *ft, const char *refs, harness_out *out)
{
    harness_spec s = {.ops = &arrayvals_ops, .attrs = "tensor=B", .tensor = "B", .tree = ft,
                      .inputs = {refs}};
    harness_run(&s, out);
}

/* b .* c for two vectors of dimension 20 stored as bitvectors (8-bit
 * words), the blocks run one after the other through the harness, each
 * edge one cycle: scanners -> intersect -> arrays, and the AND words into
 * a bitvector writer. b = {1,3,9,17,19} holding 1..5 and c = {3,9,12,19}
 * holding 1..4 meet at 3, 9 and 19. */
static void test_chain_scan_intersect_arrays(void **state)
{
    (void)state;
    static const uint64_t bw[] = {655882}, cw[] = {528904};
    fibertree b, c;
    harness_bv_level(&b, 20, bw, 1);
    harness_bv_level(&c, 20, cw, 1);
    harness_out sb, sc, x, vb, vc;
    run_scan(&b, &sb);
    run_scan(&c, &sc);
    harness_expect(&sc, 0, "8 18 8 S0 D", 1);
    harness_expect(&sc, 1, "0 1 3 S0 D", 1);
    char *in[4] = {as_input(&sb, 0), as_input(&sb, 1), as_input(&sc, 0), as_input(&sc, 1)};
    harness_spec xs = {.ops = &intersect_bitvector_ops, .attrs = "width=8,emit_zeros=1",
                       .inputs = {in[0], in[1], in[2], in[3]}};
    harness_run(&xs, &x);
    harness_expect(&x, 0, "_ 8 2 8 S0 D", 1);
    harness_expect(&x, 3, "_ 3 9 19 S0 D", 1);
    char *rb = as_input(&x, 1), *rc = as_input(&x, 2), *words = as_input(&x, 0);
    run_array(&b, rb, &vb);
    run_array(&c, rc, &vc);
    harness_expect(&vb, 0, "_ _ 2 3 5 S0 D", 1);
    harness_expect(&vc, 0, "_ _ 1 2 4 S0 D", 1);
    fibertree res;
    char msg[256];
    int done;
    assert_int_equal(write_words("tensor=X,mode=0,format=bitvector,width=8", words, 1, 20, &res,
                                 msg, sizeof msg, &done), 0);
    static const uint64_t xw[] = {524808};
    static const int64_t xseg[] = {0, 3};
    EXPECT_LEVEL(&res.lv[0], xw, xseg);
    assert_int_equal(done, 6);
    fibertree_free(&res);
    for (int k = 0; k < 4; k++)
        free(in[k]);
    free(rb), free(rc), free(words);
    harness_free(&sb), harness_free(&sc), harness_free(&x), harness_free(&vb), harness_free(&vc);
    fibertree_free(&b);
    fibertree_free(&c);
}

/* A lone bitvector tensor: scanner -> bv to=crd -> array gives b's
 * coordinates and values. And back: the coordinates and refs through the
 * converter (size=20) give the scanner's words and bases again. */
static void test_chain_lone_tensor_and_back(void **state)
{
    (void)state;
    static const uint64_t bw[] = {655882};
    fibertree b;
    harness_bv_level(&b, 20, bw, 1);
    harness_out sb, cr, vb, back;
    run_scan(&b, &sb);
    char *words = as_input(&sb, 0), *bases = as_input(&sb, 1);
    check_block(&bv_to_crd_ops, "to=crd,width=8", IN(words, bases),
                OUT("_ 1 3 9 17 19 S0 D", "_ 0 1 2 3 4 S0 D"));
    harness_spec cs = {.ops = &bv_to_crd_ops, .attrs = "to=crd,width=8", .inputs = {words, bases}};
    harness_run(&cs, &cr);
    char *crd = as_input(&cr, 0), *ref = as_input(&cr, 1);
    run_array(&b, ref, &vb);
    harness_expect(&vb, 0, "_ _ 1 2 3 4 5 S0 D", 1);
    block_ops ops = bv_ops;
    ops.create = create_with_refs;
    harness_spec bs = {.ops = &ops, .attrs = "size=20,width=8", .inputs = {crd, ref}};
    harness_run(&bs, &back);
    harness_expect(&back, 0, "10 2 10 S0 D", 0);
    harness_expect(&back, 1, "0 2 3 S0 D", 0);
    free(words), free(bases), free(crd), free(ref);
    harness_free(&sb), harness_free(&cr), harness_free(&vb), harness_free(&back);
    fibertree_free(&b);
}

/* ------------------------------------------------ faults and create errors */

typedef struct attrs_node {
    graph_node node;
    graph_attr attr[4];
} attrs_node;

/* A node of type ops->type with up to 4 attributes "k=v,k=v". */
static void make_node(attrs_node *an, char *buf, size_t n, const block_ops *ops, const char *attrs)
{
    memset(an, 0, sizeof *an);
    an->node = (graph_node){.id = "1", .type = (char *)ops->type, .attrs = an->attr};
    snprintf(buf, n, "%s", attrs);
    char *save = NULL;
    for (char *kv = strtok_r(buf, ",", &save); kv && an->node.nattrs < 4;
         kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        assert_non_null(eq);
        *eq = '\0';
        an->attr[an->node.nattrs++] = (graph_attr){.key = kv, .value = eq + 1};
    }
}

static const fibertree *bound_tree;

static const fibertree *tree_b(const block_ctx *ctx, const char *name)
{
    (void)ctx;
    return !strcmp(name, "B") ? bound_tree : NULL;
}

/* Runs ops for n cycles on the input streams, token k visible at cycle k
 * ("_": none) or, queued, every token from cycle 0; outputs are dropped.
 * Writes what each step returned into steps (when not NULL) and the fault
 * the block stops with into fault ("" when none). */
static void drive(const block_ops *ops, const char *attrs, const fibertree *ft,
                  const char *const *in, int queued, int n, int *steps, char *fault, size_t nf)
{
    attrs_node an;
    char buf[128];
    make_node(&an, buf, sizeof buf, ops, attrs);
    bound_tree = ft;
    block_ctx ctx = {.node = &an.node, .tensor = tree_b};
    block b = {.ops = ops, .node = &an.node, .ii = 1};
    sam_error err;
    if (ops->create(&b, &ctx, &err))
        fail_msg("%s", err.msg);
    channel ch[BLOCK_MAX_PORTS];
    for (int p = 0; p < b.nin; p++) {
        assert_int_equal(channel_init(&ch[p], 0, 0), 0);
        assert_int_equal(channel_add_reader(&ch[p], -1), 0);
        b.in[p] = (in_port){.ch = &ch[p], .reader = 0};
        char copy[128], *save = NULL;
        snprintf(copy, sizeof copy, "%s", in[p]);
        cycle_t t = 0;
        for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save), t++) {
            token tok;
            if (!strcmp(w, "_"))
                continue;
            assert_int_equal(token_parse(w, &tok), 0);
            assert_int_equal(channel_push(&ch[p], queued ? 0 : t, tok), 0);
        }
    }
    for (int t = 0; t < n && !b.fault; t++) {
        int r = ops->step(&b, (cycle_t)t);
        if (steps)
            steps[t] = r;
    }
    snprintf(fault, nf, "%s", b.fault ? b.fault : "");
    for (int p = 0; p < b.nin; p++)
        channel_free(&ch[p]);
    block_destroy(&b);
}

/* The fault ops stops with on streams queued from cycle 0 ("": none in 50
 * cycles). */
static void fault_of(const block_ops *ops, const char *attrs, const fibertree *ft,
                     const char *const *in, char *fault, size_t n)
{
    drive(ops, attrs, ft, in, 1, 50, NULL, fault, n);
}

/* A step says it changed something exactly when it took or sent a token
 * or moved on (the engine lets a block that changed nothing sleep). */
static void changes(const block_ops *ops, const char *attrs, const fibertree *ft,
                    const char *const *in, const char *want)
{
    int n = (int)strlen(want), steps[64];
    char fault[200], got[65];
    drive(ops, attrs, ft, in, 0, n, steps, fault, sizeof fault);
    assert_string_equal(fault, "");
    for (int t = 0; t < n; t++)
        got[t] = steps[t] ? '1' : '0';
    got[n] = '\0';
    assert_string_equal(got, want);
}

static void test_bv_faults(void **state)
{
    (void)state;
    char f[200];
    fault_of(&bv_ops, "", NULL, IN("0 63 S0 D"), f, sizeof f);
    assert_string_equal(f, "");
    fault_of(&bv_ops, "", NULL, IN("0 64 S0 D"), f, sizeof f);
    assert_string_equal(f, "coordinate 64 is beyond the bitvector width 64");
    fault_of(&bv_ops, "width=8", NULL, IN("3 8 S0 D"), f, sizeof f);
    assert_string_equal(f, "coordinate 8 is beyond the bitvector width 8");
    fault_of(&bv_ops, "", NULL, IN("-1 S0 D"), f, sizeof f);
    assert_string_equal(f, "coordinate -1 is beyond the bitvector width 64");
    fault_of(&bv_ops, "", NULL, IN("1 D"), f, sizeof f);
    assert_non_null(strstr(f, "inside a fiber"));
    fault_of(&bv_ops, "", NULL, IN("2.5 S0 D"), f, sizeof f);
    assert_string_equal(f, "not a coordinate stream");
    fault_of(&bv_ops, "size=20,width=8", NULL, IN("19 S0 D"), f, sizeof f);
    assert_string_equal(f, "");
    fault_of(&bv_ops, "size=20,width=8", NULL, IN("20 S0 D"), f, sizeof f);
    assert_string_equal(f, "coordinate 20 is beyond the size 20");
    fault_of(&bv_ops, "size=20,width=8", NULL, IN("9 3 S0 D"), f, sizeof f);
    assert_string_equal(f, "coordinate 3 comes after its word was sent");
    fault_of(&bv_ops, "size=20,width=8", NULL, IN("9 10 S0 D"), f, sizeof f);
    assert_string_equal(f, "");
    block_ops ops = bv_ops;
    ops.create = create_with_refs;
    fault_of(&ops, "", NULL, IN("1 S0 D", "N S0 D"), f, sizeof f);
    assert_string_equal(f, "a ref that does not pair with its coordinate token");
    fault_of(&ops, "", NULL, IN("1 S0 D", "0 S1 D"), f, sizeof f);
    assert_string_equal(f, "a ref that does not pair with its coordinate token");
    fault_of(&ops, "", NULL, IN("1 S0 D", "0 S0 D"), f, sizeof f);
    assert_string_equal(f, "");
}

static void test_scan_faults(void **state)
{
    (void)state;
    fibertree ft;
    harness_bv_level(&ft, 64, words2, 2);
    char f[200];
    fault_of(&fiberlookup_bitvector_ops, "tensor=B,mode=0,format=bitvector", &ft, IN("1 S0 D"), f,
             sizeof f);
    assert_string_equal(f, "");
    fault_of(&fiberlookup_bitvector_ops, "tensor=B,mode=0,format=bitvector", &ft, IN("2 S0 D"), f,
             sizeof f);
    assert_string_equal(f, "reference beyond the bitvector level");
    fault_of(&fiberlookup_bitvector_ops, "tensor=B,mode=0,format=bitvector", &ft, IN("-1 S0 D"),
             f, sizeof f);
    assert_string_equal(f, "reference beyond the bitvector level");
    fibertree_free(&ft);
}

/* Whether creating ops on attrs and tree fails with a message holding want. */
static void create_fails(const block_ops *ops, const char *attrs, const fibertree *ft,
                         const char *want)
{
    attrs_node an;
    char buf[128];
    make_node(&an, buf, sizeof buf, ops, attrs);
    bound_tree = ft;
    block_ctx ctx = {.node = &an.node, .tensor = tree_b};
    block b = {.ops = ops, .node = &an.node};
    sam_error err = {{0}};
    assert_int_equal(ops->create(&b, &ctx, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("'%s' lacks '%s'", err.msg, want);
}

/* The scanner reads bitvector levels only, and only with storage for
 * every fiber; a width out of range is refused. */
static void test_scan_create_errors(void **state)
{
    (void)state;
    fibertree ft;
    static const int64_t seg[] = {0, 2, 3}, crd[] = {1, 2, 64};
    harness_level(&ft, seg, 3, crd, 3);
    create_fails(&fiberlookup_bitvector_ops, "tensor=B,mode=0,format=bitvector", &ft,
                 "tensor B stores mode 0 compressed, not as a bitvector");
    ft.lv[0].kind = 'd';
    create_fails(&fiberlookup_bitvector_ops, "tensor=B,mode=0,format=bitvector", &ft,
                 "tensor B stores mode 0 densely, not as a bitvector");
    fibertree_free(&ft);
    harness_bv_level(&ft, 130, dim20, 3);
    create_fails(&fiberlookup_bitvector_ops, "tensor=B,mode=0,format=bitvector,width=65", &ft,
                 "width = 65 is not a whole number 1..64 (bits)");
    ft.lv[0].nbits = 2;
    create_fails(&fiberlookup_bitvector_ops, "tensor=B,mode=0,format=bitvector", &ft,
                 "tensor B mode 0 holds 2 storage words where its fibers (1 of dimension 130) "
                 "need 3");
    ft.lv[0].nbits = 3;
    create_fails(&bv_ops, "width=0", NULL, "width = 0 is not a whole number 1..64 (bits)");
    create_fails(&bv_ops, "size=-1", NULL, "size = -1 is not a whole number 0..");
    create_fails(&fiberwrite_bitvector_ops, "mode=0,format=bitvector", NULL,
                 "attribute tensor is missing");
    create_fails(&fiberwrite_bitvector_ops, "tensor=X,mode=0,width=65", NULL,
                 "width = 65 is not a whole number 1..64 (bits)");
    create_fails(&intersect_bitvector_ops, "sides=5", NULL, "sides=5 is not 2 to 4");
    create_fails(&intersect_bitvector_ops, "emit_zeros=2", NULL, "emit_zeros = 2 is not a whole number 0..1 (0 or 1)");
    create_fails(&union_bitvector_ops, "sides=1", NULL, "sides=1 is not 2 to 4");
    create_fails(&union_bitvector_ops, "width=0", NULL, "width = 0 is not a whole number 1..64 (bits)");
    fibertree_free(&ft);
}

static void test_intersect_faults(void **state)
{
    (void)state;
    char f[200];
    fault_of(&intersect_bitvector_ops, "", NULL, IN("5 S0 D", "0 S0 D", "3 S0 D", "0 S0 D"), f,
             sizeof f);
    assert_string_equal(f, "");
    fault_of(&intersect_bitvector_ops, "", NULL, IN("5 S0 D", "0 S0 D", "3 S1 D", "0 S1 D"), f,
             sizeof f);
    assert_string_equal(f, "stop tokens of different levels meet");
    fault_of(&intersect_bitvector_ops, "", NULL, IN("5 S0 D", "0 S0 D", "3 D", "0 D"), f,
             sizeof f);
    assert_string_equal(f, "the input streams end at different points");
    fault_of(&intersect_bitvector_ops, "", NULL, IN("N S0 D", "N S0 D", "3 S0 D", "0 S0 D"), f,
             sizeof f);
    assert_string_equal(f, "not a bitvector stream");
    fault_of(&intersect_bitvector_ops, "", NULL, IN("5 S0 D", "N S0 D", "3 S0 D", "0 S0 D"), f,
             sizeof f);
    assert_string_equal(f, "a bitvector word without a numeric ref");
    fault_of(&intersect_bitvector_ops, "width=8", NULL,
             IN("255 S0 D", "0 S0 D", "256 S0 D", "0 S0 D"), f, sizeof f);
    assert_string_equal(f, "a word with bits beyond the width 8");
    fault_of(&intersect_bitvector_ops, "sides=3", NULL,
             IN("1 S0 D", "0 S0 D", "1 S0 D", "0 S0 D", "1 D", "0 D"), f, sizeof f);
    assert_string_equal(f, "the input streams end at different points");
    fault_of(&intersect_bitvector_ops, "", NULL, IN("1 S0 D", "0 S0 D", "1 S0 D", "0 S1 D"), f,
             sizeof f);
    assert_string_equal(f, "stop tokens of different levels meet");
}

static void test_union_faults(void **state)
{
    (void)state;
    char f[200];
    fault_of(&union_bitvector_ops, "", NULL, IN("5 S0 D", "0 S0 D", "3 S0 D", "0 S0 D"), f,
             sizeof f);
    assert_string_equal(f, "");
    fault_of(&union_bitvector_ops, "", NULL, IN("5 S0 D", "0 S0 D", "N S0 D", "N S0 D"), f,
             sizeof f);
    assert_string_equal(f, "not a bitvector stream");
    fault_of(&union_bitvector_ops, "", NULL, IN("5 S0 D", "0 S0 D", "S0 D", "S0 D"), f, sizeof f);
    assert_string_equal(f, "");
    fault_of(&union_bitvector_ops, "", NULL, IN("5 S0 D", "0 S0 D", "D", "D"), f, sizeof f);
    assert_string_equal(f, "the input streams end at different points");
    fault_of(&union_bitvector_ops, "width=4", NULL, IN("16 S0 D", "0 S0 D", "1 S0 D", "0 S0 D"),
             f, sizeof f);
    assert_string_equal(f, "a word with bits beyond the width 4");
}

static void test_to_crd_faults(void **state)
{
    (void)state;
    char f[200];
    fault_of(&bv_to_crd_ops, "to=crd", NULL, IN("5 S0 D", "0 S0 D"), f, sizeof f);
    assert_string_equal(f, "");
    fault_of(&bv_to_crd_ops, "to=crd", NULL, IN("N S0 D", "N S0 D"), f, sizeof f);
    assert_string_equal(f, "not a bitvector stream");
    fault_of(&bv_to_crd_ops, "to=crd", NULL, IN("5 S0 D", "N S0 D"), f, sizeof f);
    assert_string_equal(f, "a bitvector word without a numeric ref");
    fault_of(&bv_to_crd_ops, "to=crd", NULL, IN("5 S0 D", "0 S1 D"), f, sizeof f);
    assert_string_equal(f, "stop tokens of different levels meet");
    fault_of(&bv_to_crd_ops, "to=crd", NULL, IN("5 D", "0 S0 D"), f, sizeof f);
    assert_string_equal(f, "the input streams end at different points");
    fault_of(&bv_to_crd_ops, "to=crd,width=2", NULL, IN("5 S0 D", "0 S0 D"), f, sizeof f);
    assert_string_equal(f, "a word with bits beyond the width 2");
}

static void test_write_faults(void **state)
{
    (void)state;
    char f[200];
    const char *a = "tensor=X,mode=0,format=bitvector,width=8";
    fault_of(&fiberwrite_bitvector_ops, a, NULL, IN("255 S0 D"), f, sizeof f);
    assert_string_equal(f, "");
    fault_of(&fiberwrite_bitvector_ops, a, NULL, IN("256 S0 D"), f, sizeof f);
    assert_string_equal(f, "a word with bits beyond the width 8");
    fault_of(&fiberwrite_bitvector_ops, a, NULL, IN("1 D"), f, sizeof f);
    assert_string_equal(f, "D ends the stream inside a fiber (words without their stop token)");
    fault_of(&fiberwrite_bitvector_ops, a, NULL, IN("N S0 D"), f, sizeof f);
    assert_string_equal(f, "not a bitvector stream");
    fault_of(&fiberwrite_bitvector_ops, a, NULL, IN("2.5 S0 D"), f, sizeof f);
    assert_string_equal(f, "not a bitvector stream");
}

static void test_steps_report_changes(void **state)
{
    (void)state;
    changes(&bv_ops, "", NULL, IN("0 _ S0 D"), "1011100");
    changes(&bv_ops, "", NULL, IN("_ S0 _ 1 S1 D"), "010111100");
    changes(&bv_ops, "size=16,width=8", NULL, IN("_ 9 _ S0 D"), "0101110");
    changes(&bv_ops, "size=40,width=8", NULL, IN("33 _ _ _ _ S0 D"), "11110111000");
    fibertree ft;
    harness_bv_level(&ft, 64, words2, 2);
    changes(&fiberlookup_bitvector_ops, "tensor=B,mode=0,format=bitvector", &ft,
            IN("0 _ _ 1 S0 D"), "10011110");
    changes(&fiberlookup_bitvector_ops, "tensor=B,mode=0,format=bitvector", &ft,
            IN("_ N _ D"), "01011000");
    fibertree_free(&ft);
    changes(&intersect_bitvector_ops, "", NULL, IN("13 _ _ S0 D", "1 _ _ S0 D", "12 S0 D", "3 S0 D"),
            "1101100");
}

/* ------------------------------------------------- registry and ports */

static const block_ops *find(const char *type, const char *attrs, const char *impl)
{
    attrs_node an;
    char buf[128];
    make_node(&an, buf, sizeof buf, &bv_ops, attrs);
    an.node.type = (char *)type;
    sam_error err;
    return registry_find(&an.node, impl, &err);
}

/* format=bitvector picks the bitvector fiberlookup and intersect; type bv
 * has its converter; other nodes keep their implementations. */
static void test_registry(void **state)
{
    (void)state;
    assert_ptr_equal(find("fiberlookup", "format=bitvector", NULL), &fiberlookup_bitvector_ops);
    assert_ptr_equal(find("fiberlookup", "format=compressed", NULL), &fiberlookup_compressed_ops);
    assert_ptr_equal(find("intersect", "format=bitvector", NULL), &intersect_bitvector_ops);
    assert_ptr_equal(find("intersect", "", NULL), &intersect_ops);
    assert_ptr_equal(find("intersect", "format=bitvector", "bitvector"), &intersect_bitvector_ops);
    assert_ptr_equal(find("bv", "", NULL), &bv_ops);
    assert_ptr_equal(find("bv", "to=bv", NULL), &bv_ops);
    assert_ptr_equal(find("bv", "to=crd", NULL), &bv_to_crd_ops);
    assert_ptr_equal(find("bv", "to=crd", "default"), NULL);
    assert_ptr_equal(find("union", "format=bitvector", NULL), &union_bitvector_ops);
    assert_ptr_equal(find("union", "", NULL), &union_ops);
    assert_ptr_equal(find("fiberwrite", "format=bitvector", NULL), &fiberwrite_bitvector_ops);
    assert_ptr_equal(find("fiberwrite", "format=compressed", NULL), &fiberwrite_compressed_ops);
}

/* The intersect's ports in a graph: bv_in-X / ref_in-X by side, bv,
 * ref_out-X and crd out (the words on type=bv, or on type=crd labelled
 * bv). */
static void test_intersect_ports(void **state)
{
    (void)state;
    graph_node nodes[] = {{.id = "b"}, {.id = "c"}, {.id = "x", .type = "intersect"}};
    graph_edge edges[] = {
        {.src = 0, .dst = 2, .kind = "bv", .label = "bv_in-B", .comment = ""},
        {.src = 0, .dst = 2, .kind = "ref", .label = "ref_in-B", .comment = ""},
        {.src = 1, .dst = 2, .kind = "ref", .label = "ref_in-C", .comment = ""},
        {.src = 1, .dst = 2, .kind = "crd", .label = "", .comment = "in-C"},
        {.src = 2, .dst = 0, .kind = "bv", .label = "bv", .comment = ""},
        {.src = 2, .dst = 0, .kind = "ref", .label = "ref_out-C", .comment = ""},
        {.src = 2, .dst = 0, .kind = "val", .label = "val", .comment = ""},
        {.src = 2, .dst = 0, .kind = "crd", .label = "crd", .comment = ""},
        {.src = 2, .dst = 0, .kind = "crd", .label = "bv", .comment = ""},
    };
    sam_graph g = {.nodes = nodes, .nnodes = 3, .edges = edges, .nedges = 9};
    block_ctx ctx = {.graph = &g, .node = &nodes[2]};
    block b = {.ops = &intersect_bitvector_ops, .node = &nodes[2]};
    sam_error err;
    assert_int_equal(intersect_bitvector_ops.create(&b, &ctx, &err), 0);
    static const int want[] = {0, 1, 3, 2, 0, 2, -1, 3, 0};
    for (int k = 0; k < 9; k++)
        assert_int_equal(intersect_bitvector_ops.port(&b, &edges[k], k < 4, &err), want[k]);
    assert_string_equal(b.in_names[0], "bv_in-B");
    assert_string_equal(b.in_names[3], "ref_in-C");
    assert_string_equal(b.out_names[0], "bv");
    assert_string_equal(b.out_names[2], "ref_out-C");
    assert_string_equal(b.out_names[3], "crd");
    assert_int_equal(b.nout, 4);
    block_destroy(&b);
}

static void test_converter_and_scan_ports(void **state)
{
    (void)state;
    graph_node n = {.id = "1", .type = "bv"};
    block b = {.ops = &bv_ops, .node = &n};
    graph_edge crd = {.kind = "crd", .label = "crd", .comment = ""};
    graph_edge bv = {.kind = "bv", .label = "bv", .comment = ""};
    graph_edge ref = {.kind = "ref", .label = "ref", .comment = ""};
    sam_error err;
    assert_int_equal(bv_ops.port(&b, &crd, 1, &err), 0);
    assert_int_equal(bv_ops.port(&b, &bv, 0, &err), 0);
    assert_int_equal(bv_ops.port(&b, &crd, 0, &err), 0);
    assert_int_equal(bv_ops.port(&b, &ref, 1, &err), 1);
    assert_int_equal(bv_ops.port(&b, &ref, 0, &err), 1);
    assert_int_equal(bv_ops.port(&b, &bv, 1, &err), -1);
    b.ops = &fiberlookup_bitvector_ops;
    assert_int_equal(fiberlookup_bitvector_ops.port(&b, &ref, 1, &err), 0);
    assert_int_equal(fiberlookup_bitvector_ops.port(&b, &bv, 0, &err), 0);
    assert_int_equal(fiberlookup_bitvector_ops.port(&b, &crd, 0, &err), 0);
    assert_int_equal(fiberlookup_bitvector_ops.port(&b, &ref, 0, &err), 1);
    b.ops = &bv_to_crd_ops;
    assert_int_equal(bv_to_crd_ops.port(&b, &bv, 1, &err), 0);
    assert_int_equal(bv_to_crd_ops.port(&b, &crd, 1, &err), 0);
    assert_int_equal(bv_to_crd_ops.port(&b, &ref, 1, &err), 1);
    assert_int_equal(bv_to_crd_ops.port(&b, &crd, 0, &err), 0);
    assert_int_equal(bv_to_crd_ops.port(&b, &ref, 0, &err), 1);
    assert_int_equal(bv_to_crd_ops.port(&b, &bv, 0, &err), -1);
}

/* The converter's ref input is there when the graph draws one; a ref
 * output without it is refused. */
static void test_converter_ref_edges(void **state)
{
    (void)state;
    graph_node nodes[] = {{.id = "s"}, {.id = "v", .type = "bv"}, {.id = "x"}};
    graph_edge edges[] = {
        {.src = 0, .dst = 1, .kind = "crd", .label = "crd", .comment = ""},
        {.src = 1, .dst = 2, .kind = "bv", .label = "bv", .comment = ""},
        {.src = 1, .dst = 2, .kind = "ref", .label = "ref", .comment = ""},
        {.src = 0, .dst = 1, .kind = "ref", .label = "ref", .comment = ""},
    };
    sam_graph g = {.nodes = nodes, .nnodes = 3, .edges = edges, .nedges = 4};
    block_ctx ctx = {.graph = &g, .node = &nodes[1]};
    block b = {.ops = &bv_ops, .node = &nodes[1]};
    sam_error err;
    assert_int_equal(bv_ops.create(&b, &ctx, &err), 0);
    assert_int_equal(b.nin, 2);
    assert_string_equal(b.in_names[1], "ref");
    block_destroy(&b);
    g.nedges = 2;
    assert_int_equal(bv_ops.create(&b, &ctx, &err), 0);
    assert_int_equal(b.nin, 1);
    block_destroy(&b);
    g.nedges = 3;
    assert_int_equal(bv_ops.create(&b, &ctx, &err), -1);
    assert_string_equal(err.msg,
                        "node v (bv): a ref output needs the ref input (the coordinates' refs)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bv_contract),
        cmocka_unit_test(test_bv_reference_unit),
        cmocka_unit_test(test_bv_reference_split_golds),
        cmocka_unit_test(test_bv_gaps),
        cmocka_unit_test(test_bv_width_and_n),
        cmocka_unit_test(test_bv_faults),
        cmocka_unit_test(test_bv_words),
        cmocka_unit_test(test_bv_words_zeros),
        cmocka_unit_test(test_bv_words_absent_fibers),
        cmocka_unit_test(test_bv_words_refs),
        cmocka_unit_test(test_bv_refs_one_word),
        cmocka_unit_test(test_scan_reference_unit),
        cmocka_unit_test(test_scan_waits_for_the_next_ref),
        cmocka_unit_test(test_scan_empty_fiber_and_refs),
        cmocka_unit_test(test_scan_n_refs),
        cmocka_unit_test(test_scan_empty_outer_fiber),
        cmocka_unit_test(test_scan_width),
        cmocka_unit_test(test_scan_words),
        cmocka_unit_test(test_scan_words_timing),
        cmocka_unit_test(test_scan_words_64),
        cmocka_unit_test(test_scan_words_slices),
        cmocka_unit_test(test_scan_faults),
        cmocka_unit_test(test_scan_create_errors),
        cmocka_unit_test(test_intersect_reference_unit),
        cmocka_unit_test(test_intersect_emit_zeros),
        cmocka_unit_test(test_intersect_timing),
        cmocka_unit_test(test_intersect_high_bit),
        cmocka_unit_test(test_intersect_word_meets_empty_fiber),
        cmocka_unit_test(test_intersect_words),
        cmocka_unit_test(test_intersect_words_timing),
        cmocka_unit_test(test_intersect_words_absent_fiber),
        cmocka_unit_test(test_intersect_more_sides),
        cmocka_unit_test(test_intersect_faults),
        cmocka_unit_test(test_union_words),
        cmocka_unit_test(test_union_absent_fiber),
        cmocka_unit_test(test_union_zero_words),
        cmocka_unit_test(test_union_more_sides),
        cmocka_unit_test(test_union_faults),
        cmocka_unit_test(test_to_crd_words),
        cmocka_unit_test(test_to_crd_zero_words_and_stops),
        cmocka_unit_test(test_to_crd_high_bit),
        cmocka_unit_test(test_to_crd_faults),
        cmocka_unit_test(test_write_vector),
        cmocka_unit_test(test_write_fibers),
        cmocka_unit_test(test_write_slices),
        cmocka_unit_test(test_write_refusals),
        cmocka_unit_test(test_write_faults),
        cmocka_unit_test(test_chain_scan_intersect_arrays),
        cmocka_unit_test(test_chain_lone_tensor_and_back),
        cmocka_unit_test(test_steps_report_changes),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_intersect_ports),
        cmocka_unit_test(test_converter_and_scan_ports),
        cmocka_unit_test(test_converter_ref_edges),
    };
    return cmocka_run_group_tests_name("block_bitvector", tests, NULL, NULL);
}
