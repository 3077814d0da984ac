/* The memory model (hwmodel/memory.h) on hand-worked tile sequences, the
 * pipeline that overlaps tiles (hwmodel/pipeline.h), and the hardware
 * description's keys (hwmodel/hw.h): exact cycles, bytes and refusals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../hwmodel/fiber_cache.h"
#include "../hwmodel/hw.h"
#include "../hwmodel/memory.h"
#include "../hwmodel/pipeline.h"
#include "../hwmodel/result_tiles.h"
#include "../formats/prng.h"
#include "test_util.h"

/* Operands, then the result (of a model of two operands). */
static const char *const names[] = {"B", "C", "X"};

/* A point's name, where it is a fixed text. */
static void fixed_name(const void *ctx, char *buf, size_t size)
{
    snprintf(buf, size, "%s", (const char *)ctx);
}

/* 1 GHz; DRAM 1 byte a cycle after 10 cycles; no LLB; a 1000-byte PE
 * buffer holding `buffering` tiles of each operand. */
static hw_desc small_hw(int buffering, double pe_capacity)
{
    hw_desc hw;
    hw_defaults(&hw);
    hw.mem[HW_DRAM].bandwidth = 1;
    hw.mem[HW_DRAM].latency = 10;
    hw.mem[HW_LLB].capacity = 0;
    hw.mem[HW_PE].capacity = pe_capacity;
    hw.mem[HW_PE].buffering = buffering;
    return hw;
}

static mem_model *model(const hw_desc *hw, int ntensors, int nlevels)
{
    mem_model *m = calloc(1, sizeof *m);
    sam_error err;
    if (mem_init(m, hw, ntensors, nlevels, &err))
        fail_msg("%s", err.msg);
    return m;
}

/* The next point, computed no sooner than the points before are done. */
static int visit(mem_model *m, const mem_tile *t, double compute, const mem_result *out,
                 const char *where, sam_error *err)
{
    mem_visit v = {t, out, compute, m->compute_end, 0, fixed_name, where, NULL};
    double start;
    return mem_point(m, &v, names, &start, err);
}

static void point(mem_model *m, int64_t id, double bytes, double compute)
{
    mem_tile t = {id, bytes};
    sam_error err;
    mem_result none = {-1, 0, 0, 0};
    if (visit(m, &t, compute, &none, "(0)", &err))
        fail_msg("%s", err.msg);
}

/* Tile A (100 bytes) then B (50), 20 cycles of compute each. One slot: B
 * waits for A's point to finish (130), arrives 10 + 50 later. */
static void test_single_buffering(void **state)
{
    (void)state;
    hw_desc hw = small_hw(1, 1000);
    mem_model *m = model(&hw, 1, 1);
    point(m, 0, 100, 20);
    assert_true(m->compute_end == 130);
    point(m, 1, 50, 20);
    assert_true(m->compute_end == 210);
    assert_true(mem_finish(m) == 210);
    assert_true(m->traffic[0].read[HW_DRAM] == 150);
    assert_true(m->traffic[0].fetched[HW_PE] == 2);
    assert_true(m->usage[HW_DRAM].busy == 150);
    assert_true(m->usage[HW_PE].peak == 100);
    mem_free(m);
    free(m);
}

/* Two slots: B is fetched while A's point computes (from 100, when the
 * link is free): ready at 160, done at 180. A third point on B again
 * fetches nothing. */
static void test_double_buffering_and_reuse(void **state)
{
    (void)state;
    hw_desc hw = small_hw(2, 1000);
    mem_model *m = model(&hw, 1, 1);
    point(m, 0, 100, 20);
    point(m, 1, 50, 20);
    assert_true(m->compute_end == 180);
    point(m, 1, 50, 5);
    assert_true(m->compute_end == 185);
    assert_true(m->traffic[0].fetched[HW_PE] == 2);
    assert_true(m->usage[HW_PE].peak == 150);
    mem_free(m);
    free(m);
}

/* Two slots but 120 bytes: B waits until A is released at 130, as with
 * one slot. */
static void test_capacity_delays(void **state)
{
    (void)state;
    hw_desc hw = small_hw(2, 120);
    mem_model *m = model(&hw, 1, 1);
    point(m, 0, 100, 20);
    point(m, 1, 50, 20);
    assert_true(m->compute_end == 210);
    mem_free(m);
    free(m);
}

/* Transfers are whole lines: 100 bytes in 64-byte lines move 128. */
static void test_lines(void **state)
{
    (void)state;
    hw_desc hw = small_hw(1, 1000);
    hw.mem[HW_DRAM].line = 64;
    mem_model *m = model(&hw, 1, 1);
    point(m, 0, 100, 20);
    assert_true(m->compute_end == 10 + 128 + 20);
    assert_true(m->traffic[0].read[HW_DRAM] == 128);
    mem_free(m);
    free(m);
}

/* The result's tile: written out when the points move to another (60
 * bytes, after the second point's end at 70), and read back (60 bytes)
 * before a later point adds to it again. */
static void test_result_tiles(void **state)
{
    (void)state;
    hw_desc hw = small_hw(1, 1000);
    mem_model *m = model(&hw, 1, 1);
    mem_tile t = {0, 20};
    sam_error err;
    assert_int_equal(visit(m, &t, 10, &(mem_result){7, 0, 40, 0}, "(0)", &err), 0);
    assert_true(m->compute_end == 40);      /* 10 + 20, then 10 */
    assert_int_equal(visit(m, &t, 30, &(mem_result){7, 40, 60, 0}, "(1)", &err), 0);
    assert_true(m->compute_end == 70);
    /* Tile 8: 7's 60 bytes go out from 70 to 130; nothing to read. */
    assert_int_equal(visit(m, &t, 10, &(mem_result){8, 0, 30, 0}, "(2)", &err), 0);
    assert_true(m->compute_end == 80);
    /* Back to 7: 8's 30 bytes go out 130..160, then 7's 60 come back in
     * 160..220, in place at 230. */
    assert_int_equal(visit(m, &t, 10, &(mem_result){7, 60, 90, 0}, "(3)", &err), 0);
    assert_true(m->compute_end == 240);
    assert_true(mem_finish(m) == 240 + 10 + 90);
    assert_true(m->traffic[1].written[HW_DRAM] == 60 + 30 + 90);
    assert_true(m->traffic[1].read[HW_DRAM] == 60);
    mem_free(m);
    free(m);
}

/* The same points with result.timed = 0: the result's transfers count
 * their bytes but take no time, so the points follow each other as
 * their compute allows (40, 70, 80, 90) and the run ends with the last
 * at 90; DRAM's link carries the operand alone (20 cycles busy). */
static void test_untimed_result(void **state)
{
    (void)state;
    hw_desc hw = small_hw(1, 1000);
    hw.result_timed = 0;
    mem_model *m = model(&hw, 1, 1);
    mem_tile t = {0, 20};
    sam_error err;
    static const mem_result out[] = {{7, 0, 40, 0}, {7, 40, 60, 0}, {8, 0, 30, 0},
                                     {7, 60, 90, 0}};
    static const double compute[] = {10, 30, 10, 10}, end[] = {40, 70, 80, 90};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(visit(m, &t, compute[k], &out[k], "(k)", &err), 0);
        assert_true(m->compute_end == end[k]);
    }
    assert_true(mem_finish(m) == 90);
    assert_true(m->traffic[1].written[HW_DRAM] == 60 + 30 + 90);
    assert_true(m->traffic[1].read[HW_DRAM] == 60);
    assert_true(m->usage[HW_DRAM].busy == 20);
    mem_free(m);
    free(m);
}

/* Two levels: the LLB tile (300 bytes) comes from DRAM (ready at 310),
 * then the PE tile (100) from the LLB at 2 bytes a cycle after 1: in
 * place at 361. The next PE tile of the same LLB tile comes while the
 * first computes, from 360 when the LLB's link is free. */
static void test_two_levels(void **state)
{
    (void)state;
    hw_desc hw = small_hw(2, 1000);
    hw.mem[HW_LLB].capacity = 10000;
    hw.mem[HW_LLB].bandwidth = 2;
    hw.mem[HW_LLB].latency = 1;
    hw.mem[HW_LLB].buffering = 1;
    mem_model *m = model(&hw, 1, 2);
    mem_tile t[2] = {{0, 300}, {0, 100}};
    const mem_result none[2] = {{-1, 0, 0, 0}, {-1, 0, 0, 0}};
    sam_error err;
    assert_int_equal(visit(m, t, 10, none, "(0)", &err), 0);
    assert_true(m->compute_end == 371);
    t[1] = (mem_tile){1, 60};
    assert_int_equal(visit(m, t, 10, none, "(1)", &err), 0);
    assert_true(m->compute_end == 401);
    assert_true(m->traffic[0].read[HW_DRAM] == 300);
    assert_true(m->traffic[0].read[HW_LLB] == 160);
    assert_true(m->traffic[0].fetched[HW_LLB] == 1);
    assert_true(m->traffic[0].fetched[HW_PE] == 2);
    mem_free(m);
    free(m);
}

/* The same first point with the operand placed in the PE buffer only
 * (place.T = pe): no LLB tile; the PE tile comes from DRAM through the
 * LLB, at the slower link's byte a cycle after both latencies (10 + 1),
 * in place at 111. The result placed so too goes from the PE straight to
 * DRAM: 40 bytes over DRAM's link, none into the LLB. */
/* hw with an LLB of 2 bytes a cycle after 1, the operand and the result
 * placed in the PE buffer only: the model after one point whose operand
 * tile is 100 bytes and whose result is 40, computed in 10 cycles. */
static mem_model *pass_through_point(hw_desc hw)
{
    hw.mem[HW_LLB].capacity = 10000;
    hw.mem[HW_LLB].bandwidth = 2;
    hw.mem[HW_LLB].latency = 1;
    mem_model *m = model(&hw, 1, 2);
    mem_bypass_llb(m, 0);
    mem_bypass_llb(m, 1);
    mem_tile t[2] = {{0, 300}, {0, 100}};
    const mem_result out[2] = {{0, 0, 40, 0}, {0, 0, 40, 0}};
    sam_error err;
    assert_int_equal(visit(m, t, 10, out, "(0)", &err), 0);
    return m;
}

static void test_pass_through_the_llb(void **state)
{
    (void)state;
    mem_model *m = pass_through_point(small_hw(2, 1000));
    assert_true(m->compute_end == 121);
    assert_true(mem_finish(m) == 121 + 11 + 40);
    assert_true(m->traffic[0].read[HW_DRAM] == 100 && m->traffic[0].read[HW_LLB] == 0);
    assert_true(m->traffic[0].fetched[HW_LLB] == 0 && m->traffic[0].fetched[HW_PE] == 1);
    assert_true(m->traffic[1].written[HW_DRAM] == 40 && m->traffic[1].written[HW_LLB] == 0);
    assert_true(mem_tensor_source(m, 0, 1) == HW_DRAM && !mem_tensor_held(m, 0, 0));
    mem_free(m);
    free(m);
}

/* llb.write.bandwidth gives the way back from the PE a link of its own.
 * DRAM 4 bytes a cycle, the LLB's ports 2: the operand's 100 bytes pass
 * through at 2 after 10 + 1 cycles, in place at 61, computed 61..71. The
 * result's 40 bytes go out at the slower of DRAM and the way back: 2
 * bytes a cycle on the one link both ways (done at 71 + 11 + 20 = 102),
 * 1 on a way back of 1 GB/s (122), 4 on one of 8 GB/s (92). */
static void test_llb_write_link(void **state)
{
    (void)state;
    static const double write[] = {0, 1, 8}, end[] = {102, 122, 92};
    for (int k = 0; k < 3; k++) {
        hw_desc hw = small_hw(2, 1000);
        hw.mem[HW_DRAM].bandwidth = 4;
        hw.llb_write_bandwidth = write[k];
        mem_model *m = pass_through_point(hw);
        assert_true(m->compute_end == 71);
        assert_true(mem_finish(m) == end[k]);
        mem_free(m);
        free(m);
    }
}

/* With two levels the PE buffer's result tile goes out to the LLB, and
 * the LLB's to DRAM only when the points leave it: 20 + 20 + 30 bytes
 * into the LLB, 70 + 30 into DRAM. */
static void test_result_through_the_llb(void **state)
{
    (void)state;
    hw_desc hw = small_hw(2, 1000);
    hw.mem[HW_LLB].capacity = 10000;
    mem_model *m = model(&hw, 1, 2);
    mem_tile t[2] = {{0, 10}, {0, 10}};
    static const mem_result out[3][2] = {{{0, 0, 50, 0}, {0, 0, 20, 0}},
                                         {{0, 50, 70, 0}, {1, 0, 20, 0}},
                                         {{1, 0, 30, 0}, {2, 0, 30, 0}}};
    sam_error err;
    for (int p = 0; p < 3; p++)
        assert_int_equal(visit(m, t, 10, out[p], "(p)", &err), 0);
    assert_true(m->traffic[1].written[HW_LLB] == 40);
    assert_true(m->traffic[1].written[HW_DRAM] == 70);
    mem_finish(m);
    assert_true(m->traffic[1].written[HW_LLB] == 70);
    assert_true(m->traffic[1].written[HW_DRAM] == 100);
    assert_true(m->traffic[1].read[HW_DRAM] == 0 && m->traffic[1].read[HW_LLB] == 0);
    mem_free(m);
    free(m);
}

/* llb.eager: PE tile 0 (20 bytes) is final, and its points added 50
 * bytes to LLB tile 0. When P1 moves on at 122, tile 0 reaches the LLB at
 * 123.08 and its 50 bytes go on to DRAM (123.08..173.08) while P1
 * computes; at the end the LLB writes only the other 30, 222..252, done at
 * 262, not 80 of them, done at 312. DRAM gets 80 bytes either way. */
static void test_eager_final_tiles(void **state)
{
    (void)state;
    for (int eager = 0; eager <= 1; eager++) {
        hw_desc hw = small_hw(2, 1000);
        hw.mem[HW_LLB].capacity = 10000;
        hw.llb_eager = eager;
        mem_model *m = model(&hw, 1, 2);
        mem_tile t[2] = {{0, 10}, {0, 10}};
        static const mem_result out[2][2] = {{{0, 0, 50, 0}, {0, 0, 20, 1}},
                                             {{0, 50, 80, 0}, {1, 0, 30, 1}}};
        sam_error err;
        assert_int_equal(visit(m, t, 100, out[0], "(0)", &err), 0);
        assert_true(m->compute_end == 122);
        assert_int_equal(visit(m, t, 100, out[1], "(1)", &err), 0);
        assert_true(m->compute_end == 222);
        assert_true(m->traffic[1].written[HW_DRAM] == (eager ? 50 : 0));
        assert_true(mem_finish(m) == (eager ? 262 : 312));
        assert_true(m->traffic[1].written[HW_DRAM] == 80);
        mem_free(m);
        free(m);
    }
}

/* A point the pipeline takes early overlaps the one before: reusing its
 * tile (in place at 110), it starts at 115 and ends at 135. The PE was
 * busy 110..135: 25 cycles, not the points' 40. */
static void test_overlap(void **state)
{
    (void)state;
    hw_desc hw = small_hw(1, 1000);
    mem_model *m = model(&hw, 1, 1);
    point(m, 0, 100, 20);
    mem_tile t = {0, 100};
    mem_result none = {-1, 0, 0, 0};
    mem_visit v = {&t, &none, 20, 115, 0, fixed_name, "(1)", NULL};
    double start;
    sam_error err;
    assert_int_equal(mem_point(m, &v, names, &start, &err), 0);
    assert_true(start == 115 && m->compute_end == 135);
    assert_true(m->usage[HW_PE].busy == 25);
    mem_free(m);
    free(m);
}

/* Two processing elements, one buffer each, sharing DRAM's link: A (100
 * bytes) for PE 0 is in place at 110 and computed by 210; B (50) for PE 1
 * comes after A on the link, in place at 160, computed by 260, alongside
 * A. One PE with one slot would hold B back until A is done: 370. */
static void test_two_pes(void **state)
{
    (void)state;
    for (int npe = 1; npe <= 2; npe++) {
        hw_desc hw = small_hw(1, 1000);
        hw.pe_count = npe;
        mem_model *m = model(&hw, 1, 1);
        mem_tile a = {0, 100}, b = {1, 50};
        mem_result none = {-1, 0, 0, 0};
        mem_visit va = {&a, &none, 100, 0, 0, fixed_name, "(0)", NULL};
        mem_visit vb = {&b, &none, 100, 0, npe - 1, fixed_name, "(1)", NULL};
        double start;
        sam_error err;
        assert_int_equal(mem_point(m, &va, names, &start, &err), 0);
        assert_true(start == 110);
        assert_int_equal(mem_point(m, &vb, names, &start, &err), 0);
        assert_true(start == (npe == 2 ? 160 : 270));
        assert_true(mem_finish(m) == (npe == 2 ? 260 : 370));
        mem_free(m);
        free(m);
    }
}

/* With pe.merge, tile 7's points run on PEs 0 and 1 at once: P1 finds
 * the tile in the merger, reads nothing back and starts at 50, when its
 * operand is in, not after P0 (130). Tile 8 sends 7's 60 bytes out once
 * both are done, 150..210 behind P2's operand (130..150). P3 returns to 7
 * and starts at 130, with its operand (100..120): the merger reads 7 back
 * meanwhile, as soon as 7's write-out left (210..270, in at 280), not
 * after the merger's latest write-out (8's, 1160..1190, which ends the
 * run at 1200), and 7 goes out again once it is in, 280..360. */
static void test_merged_result_tiles(void **state)
{
    (void)state;
    hw_desc hw = small_hw(1, 1000);
    hw.pe_count = 2;
    hw.pe_merge = 1;
    mem_model *m = model(&hw, 1, 1);
    static const struct {
        mem_tile tile;
        mem_result out;
        double compute, start;
        int pe;
    } p[] = {{{0, 20}, {7, 0, 40, 0}, 100, 30, 0},
             {{1, 20}, {7, 40, 60, 0}, 50, 50, 1},
             {{2, 20}, {8, 0, 30, 0}, 1000, 160, 0},
             {{3, 20}, {7, 60, 80, 0}, 10, 130, 1}};
    sam_error err;
    for (int k = 0; k < 4; k++) {
        mem_visit v = {&p[k].tile, &p[k].out, p[k].compute, 0, p[k].pe, fixed_name, "(k)", NULL};
        double start;
        assert_int_equal(mem_point(m, &v, names, &start, &err), 0);
        assert_true(start == p[k].start);
    }
    assert_true(m->traffic[1].written[HW_DRAM] == 60 + 30);
    assert_true(m->traffic[1].read[HW_DRAM] == 60);
    assert_true(m->merger->done == 280);
    assert_true(mem_finish(m) == 1200);
    assert_true(m->traffic[1].written[HW_DRAM] == 60 + 30 + 80);
    mem_free(m);
    free(m);
}

/* The LLB has a port to each PE: the LLB tile (100 bytes) is in place at
 * 110; then each PE's tile (50 bytes at 1 byte a cycle, 1 cycle of
 * latency) comes over its own port, both in place at 161. Over one
 * shared link the second would wait until 210 and be in place at 261. */
static void test_llb_ports(void **state)
{
    (void)state;
    hw_desc hw = small_hw(2, 1000);
    hw.pe_count = 2;
    hw.mem[HW_LLB].capacity = 10000;
    hw.mem[HW_LLB].bandwidth = 1;
    hw.mem[HW_LLB].latency = 1;
    mem_model *m = model(&hw, 1, 2);
    mem_tile t0[2] = {{0, 100}, {0, 50}}, t1[2] = {{0, 100}, {1, 50}};
    const mem_result none[2] = {{-1, 0, 0, 0}, {-1, 0, 0, 0}};
    const mem_visit v[] = {{t0, none, 10, 0, 0, fixed_name, "(0)", NULL},
                           {t1, none, 10, 0, 1, fixed_name, "(1)", NULL}};
    for (int k = 0; k < 2; k++) {
        double start;
        sam_error err;
        assert_int_equal(mem_point(m, &v[k], names, &start, &err), 0);
        assert_true(start == 161);
    }
    assert_true(m->usage[HW_LLB].busy == 100);
    mem_free(m);
    free(m);
}

/* A transfer waiting for room leaves the link to others: PE 0's second
 * tile (50 bytes) waits for its one slot until A's point is done (210)
 * and is in place at 270; PE 1's B, asked for after it, takes the link
 * while it was idle, from 100, and is in place at 160. */
static void test_link_serves_the_ready(void **state)
{
    (void)state;
    hw_desc hw = small_hw(1, 1000);
    hw.pe_count = 2;
    mem_model *m = model(&hw, 1, 1);
    mem_tile a = {0, 100}, a2 = {1, 50}, b = {2, 50};
    mem_result none = {-1, 0, 0, 0};
    const mem_visit v[] = {{&a, &none, 100, 0, 0, fixed_name, "(0)", NULL},
                           {&a2, &none, 100, 0, 0, fixed_name, "(1)", NULL},
                           {&b, &none, 100, 0, 1, fixed_name, "(2)", NULL}};
    const double want[] = {110, 270, 160};
    for (int k = 0; k < 3; k++) {
        double start;
        sam_error err;
        assert_int_equal(mem_point(m, &v[k], names, &start, &err), 0);
        assert_true(start == want[k]);
    }
    mem_free(m);
    free(m);
}

/* Bookings in the first free stretch long enough, after their data. */
static void test_link_gaps(void **state)
{
    (void)state;
    mem_link l = {0};
    assert_true(link_book(&l, 0, 10) == 0);
    assert_true(link_book(&l, 0, 5) == 10);
    assert_true(link_book(&l, 30, 5) == 30);    /* leaves 15..30 free */
    assert_true(link_book(&l, 0, 10) == 15);    /* 25..30 left */
    assert_true(link_book(&l, 0, 10) == 35);    /* too long for it */
    assert_true(link_book(&l, 26, 2) == 26);    /* 25..26 and 28..30 left */
    assert_true(link_book(&l, 0, 2) == 28);
    assert_true(link_book(&l, 0, 1) == 25);
    assert_true(link_book(&l, 0, 1) == 45);     /* nothing free before the end */
    /* Beyond LINK_MAX_GAPS stretches the oldest are forgotten: later. */
    for (int k = 0; k <= LINK_MAX_GAPS; k++)
        link_book(&l, 100 + 10 * k, 1);
    assert_true(link_book(&l, 0, 1) == 101);   /* 46..100 forgotten */
    link_free(&l);
}

/* An interleaving link splits a transfer across the free stretches after
 * its data: 25 cycles ready at 0 take 10..30 and 35..40, ending at 40 (a
 * link that does not interleave waits for 25 free cycles: 35..60). Then
 * 9 cycles take 40..45 and 48..50, around a booking of 45..48, and 55..57
 * after one of 50..55: they end at 57, as if started at 48. */
static void test_link_interleaves(void **state)
{
    (void)state;
    for (int interleave = 0; interleave <= 1; interleave++) {
        mem_link l;
        link_init(&l, interleave);
        assert_true(link_book(&l, 0, 10) == 0);
        assert_true(link_book(&l, 30, 5) == 30);
        assert_true(link_book(&l, 0, 25) == (interleave ? 15 : 35));
        link_free(&l);
    }
    mem_link l;
    link_init(&l, 1);
    link_book(&l, 0, 10);
    link_book(&l, 30, 5);
    link_book(&l, 0, 25);
    assert_true(l.ngaps == 0 && l.free_from == 40);
    assert_true(link_book(&l, 50, 5) == 50);
    assert_true(link_book(&l, 45, 3) == 45);
    assert_true(link_book(&l, 0, 9) == 48);
    assert_true(l.ngaps == 0 && l.free_from == 57);
    link_free(&l);
    /* Tenths of a cycle, whose sums round: 0.2 fills 0..0.1 and 0.2..0.3
     * and leaves no sliver to book after the end at 0.4. */
    link_init(&l, 1);
    link_book(&l, 0.1, 0.1);
    link_book(&l, 0.3, 0.1);
    double end = l.free_from;
    assert_true(fabs(link_book(&l, 0, 0.2) - 0.1) < 1e-9);
    assert_true(l.ngaps == 0 && l.free_from == end);
    link_free(&l);
}

/* Tiles through two blocks: busy 0..4 and 3..9 in each of two tiles, so
 * the second may start at 7 (the second block free at 10, where it starts
 * 3 cycles in); a third keeping only the first block busy, 0..9, waits
 * for it (free at 7 + 5) but not for the second. */
static void test_pipeline(void **state)
{
    (void)state;
    block blocks[2];
    memset(blocks, 0, sizeof blocks);
    sim_engine e = {.blocks = blocks, .nblocks = 2};
    pipeline p;
    sam_error err;
    assert_int_equal(pipeline_init(&p, 2, &err), 0);
    blocks[0].stats = (block_stats){.busy = 5, .first_busy = 0, .last_busy = 4};
    blocks[1].stats = (block_stats){.busy = 7, .first_busy = 3, .last_busy = 9};
    assert_true(pipeline_earliest(&p, &e) == 0);
    pipeline_place(&p, &e, 0, 10);
    assert_true(pipeline_earliest(&p, &e) == 7);
    pipeline_place(&p, &e, 7, 10);
    assert_true(p.end == 17);
    blocks[0].stats = (block_stats){.busy = 10, .first_busy = 0, .last_busy = 9};
    blocks[1].stats = (block_stats){.busy = 0};
    assert_true(pipeline_earliest(&p, &e) == 12);
    pipeline_place(&p, &e, 12, 10);
    assert_true(p.end == 22);
    pipeline_free(&p);
}

/* Three tiles of 10 cycles through two blocks, drained and streamed
 * (pe.stream). The first two keep block 0 busy over 0..2 (3 cycles) and
 * block 1 over 1..9 but busy only 4 of them (it waits on its inputs); the
 * third keeps only block 1 busy, 2 cycles over 8..9.
 *   drained: tile 2 waits for block 1 (free at 10, its first cycle 1):
 *   9; tile 3 for block 1 again (free at 19, first cycle 8): 11, ending
 *   at 21.
 *   streamed: tile 2 needs block 0 to end its 3 cycles after 3 (at 6,
 *   its own end 3: from 3) and block 1 its 4 after 10 (at 14, its own end
 *   10: from 4): 4; tile 3, block 1's 2 cycles after 14 (at 16, its own
 *   end 10): 6, ending at 16. */
static void test_pipeline_streamed(void **state)
{
    (void)state;
    static const block_stats two[] = {{.busy = 3, .first_busy = 0, .last_busy = 2},
                                      {.busy = 4, .first_busy = 1, .last_busy = 9}};
    static const block_stats third[] = {{.busy = 0},
                                        {.busy = 2, .first_busy = 8, .last_busy = 9}};
    static const cycle_t starts[2][3] = {{0, 9, 11}, {0, 4, 6}};
    static const cycle_t ends[2] = {21, 16};
    for (int stream = 0; stream < 2; stream++) {
        block blocks[2];
        memset(blocks, 0, sizeof blocks);
        sim_engine e = {.blocks = blocks, .nblocks = 2};
        pipeline p;
        sam_error err;
        assert_int_equal(pipeline_init(&p, 2, &err), 0);
        p.stream = stream;
        for (int t = 0; t < 3; t++) {
            for (int b = 0; b < 2; b++)
                blocks[b].stats = t < 2 ? two[b] : third[b];
            cycle_t start = pipeline_earliest(&p, &e);
            if (start != starts[stream][t])
                fail_msg("stream %d, tile %d: starts at %llu, not %llu", stream, t + 1,
                         (unsigned long long)start, (unsigned long long)starts[stream][t]);
            pipeline_place(&p, &e, start, 10);
        }
        assert_true(p.end == ends[stream]);
        pipeline_free(&p);
    }
}

/* A part of one entry, or two, at (r, c). */
static tensor part_of(int n, const int64_t (*rc)[2])
{
    tensor t;
    sam_error err;
    assert_int_equal(tensor_init(&t, 2, (const int64_t[]){4, 4}, &err), 0);
    for (int e = 0; e < n; e++)
        assert_int_equal(tensor_append(&t, rc[e], 1, &err), 0);
    return t;
}

/* The bytes of a result tile stored DCSR at 4 bytes a coordinate or seg
 * entry and 8 a value, as parts add to it: (0,0), (0,1), (2,3) take 2 + 3
 * coordinates, 2 + 3 seg entries and 3 values, 64 bytes; adding (0,1)
 * again and (3,3) makes 3 + 4, 2 + 4 and 4: 84. A part placed at offset
 * (2,0) in another tile lands on row 2 there. */
static void test_result_tile_bytes(void **state)
{
    (void)state;
    result_tiles r;
    level_format f;
    sam_error err;
    assert_int_equal(level_format_parse("ss", &f, &err), 0);
    result_tiles_init(&r, &f, NULL, (const int64_t[]){4, 4}, 4, 4, 8);
    tensor a = part_of(3, (const int64_t[][2]){{0, 0}, {0, 1}, {2, 3}});
    tensor b = part_of(2, (const int64_t[][2]){{0, 1}, {3, 3}});
    tensor c = part_of(1, (const int64_t[][2]){{0, 0}});
    double before, after;
    static const int64_t none[2] = {0, 0}, down[2] = {2, 0};
    assert_int_equal(result_tiles_add(&r, 5, &a, none, &before, &after, &err), 0);
    assert_true(before == 0 && after == 64);
    assert_int_equal(result_tiles_add(&r, 5, &b, none, &before, &after, &err), 0);
    assert_true(before == 64 && after == 84);
    assert_int_equal(result_tiles_add(&r, 9, &c, down, &before, &after, &err), 0);
    assert_true(before == 0 && after == 4 + 8 + 4 + 8 + 8);
    assert_int_equal(result_tiles_add(&r, 9, &a, none, &before, &after, &err), 0);
    assert_true(before == 32 && after == 2 * 4 + 2 * 4 + 4 * 4 + 3 * 4 + 4 * 8);
    tensor_free(&a), tensor_free(&b), tensor_free(&c);
    result_tiles_free(&r);
}

/* A tile's positions move from the hash set to a bitmap once that is the
 * smaller (a 64 x 64 tile: at 33 positions); one of 2^20 x 2^20 never
 * moves. Parts of 40 random positions, repeats among them, give both
 * the bytes of the distinct positions and rows counted by brute force. */
static void test_result_tile_bitmap(void **state)
{
    (void)state;
    level_format f;
    sam_error err;
    assert_int_equal(level_format_parse("ss", &f, &err), 0);
    result_tiles small, huge;
    result_tiles_init(&small, &f, NULL, (const int64_t[]){64, 64}, 4, 4, 8);
    result_tiles_init(&huge, &f, NULL, (const int64_t[]){1 << 20, 1 << 20}, 4, 4, 8);
    static char seen[64][64], row[64];
    size_t positions = 0, rows = 0;
    prng g;
    prng_seed(&g, 7);
    for (int p = 0; p < 10; p++) {
        tensor part;
        assert_int_equal(tensor_init(&part, 2, (const int64_t[]){64, 64}, &err), 0);
        for (int e = 0; e < 40; e++) {
            int64_t at[2] = {(int64_t)prng_below(&g, 24), (int64_t)prng_below(&g, 64)};
            assert_int_equal(tensor_append(&part, at, 1, &err), 0);
            positions += !seen[at[0]][at[1]]++;
            rows += !row[at[0]]++;
        }
        double b1, a1, b2, a2;
        static const int64_t none[2] = {0, 0};
        assert_int_equal(result_tiles_add(&small, 3, &part, none, &b1, &a1, &err), 0);
        assert_int_equal(result_tiles_add(&huge, 3, &part, none, &b2, &a2, &err), 0);
        assert_true(b1 == b2 && a1 == a2);
        /* DCSR: a coordinate and a seg entry per row, three seg entries
         * more (the rows' two, the positions' last), a coordinate and a
         * value per position. */
        assert_true(a1 == (double)(8 * rows + 12 + 12 * positions));
        tensor_free(&part);
    }
    const result_count *c = hash_table_find(&small.counts, 3);
    const result_count *h = hash_table_find(&huge.counts, 3);
    assert_true(c && c->bits && h && !h->bits);
    result_tiles_free(&small);
    result_tiles_free(&huge);
}

/* The result's tile grows as a point adds to it, and the buffer must
 * have room for what it grows to when the point starts. 150 bytes, two
 * slots: B's tile a (100 bytes) is in place at 110, its point adds 20
 * bytes to X's tile 7 and computes 110..210. The next point's tile b (30)
 * comes while it does (held then: 100 + 20 + 30 = 150), in place at 140,
 * but its point makes X's tile 60 bytes: 100 + 30 + 60 do not fit until
 * a is released at 210, so it starts then, not at 140. */
static void test_result_growth_waits_for_room(void **state)
{
    (void)state;
    hw_desc hw = small_hw(2, 150);
    mem_model *m = model(&hw, 2, 1);
    mem_tile a[2] = {{0, 100}, {-1, 0}}, b[2] = {{1, 30}, {-1, 0}};
    mem_result first = {7, 0, 20, 0}, second = {7, 20, 60, 0};
    mem_visit v0 = {a, &first, 100, 0, 0, fixed_name, "(0)", NULL};
    mem_visit v1 = {b, &second, 10, 0, 0, fixed_name, "(1)", NULL};
    double start;
    sam_error err;
    assert_int_equal(mem_point(m, &v0, names, &start, &err), 0);
    assert_true(start == 110);
    assert_int_equal(mem_point(m, &v1, names, &start, &err), 0);
    assert_true(start == 210 && m->compute_end == 220);
    assert_true(m->usage[HW_PE].peak == 150);
    assert_true(m->traffic[2].peak[HW_PE] == 60);
    mem_free(m);
    free(m);
}

/* A result tile the points leave holds its room until its write-out has
 * left: 500 bytes, one slot; X's tile 7 grows to 400 bytes beside B's
 * tile a (50, in place at 60) in the point computed 60..70. The next
 * point keeps a and starts X's tile 8 (300 bytes): tile 7 goes out over
 * DRAM's link 70..470, and 50 + 400 + 300 do not fit before 470, when
 * the point starts; tile 8 goes out 480..780, arriving 10 later. At no
 * time more than 50 + 400 bytes. */
static void test_result_leaving_holds_room(void **state)
{
    (void)state;
    hw_desc hw = small_hw(1, 500);
    mem_model *m = model(&hw, 2, 1);
    mem_tile a[2] = {{0, 50}, {-1, 0}};
    mem_result first = {7, 0, 400, 0}, second = {8, 0, 300, 0};
    sam_error err;
    assert_int_equal(visit(m, a, 10, &first, "(0)", &err), 0);
    assert_true(m->compute_end == 70);
    assert_int_equal(visit(m, a, 10, &second, "(1)", &err), 0);
    assert_true(m->compute_end == 480);
    assert_true(mem_finish(m) == 790);
    assert_true(m->usage[HW_PE].peak == 450);
    mem_free(m);
    free(m);
}

/* A tile the point reuses is held until the point is computed, so the
 * other operand's next tile must fit beside it: 40 + 70 > 100 bytes.
 * (The reused tile counted as released when its last point ended, and
 * the buffer held 110.) */
static void test_reused_tile_stays_counted(void **state)
{
    (void)state;
    hw_desc hw = small_hw(1, 100);
    mem_model *m = model(&hw, 2, 1);
    mem_tile first[2] = {{0, 40}, {0, 40}}, second[2] = {{0, 40}, {1, 70}};
    mem_result none = {-1, 0, 0, 0};
    sam_error err;
    assert_int_equal(visit(m, first, 10, &none, "(0)", &err), 0);
    assert_int_equal(visit(m, second, 10, &none, "(k1=1)", &err), -1);
    assert_string_equal(err.msg, "tile (k1=1) of C (70 bytes) does not fit in the pe buffer "
                                 "beside the point's other tiles");
    mem_free(m);
    free(m);
}

/* A result tile larger than its buffer, alone or beside the point's
 * operand tiles, is refused naming the point and the buffer. */
static void test_result_refusals(void **state)
{
    (void)state;
    hw_desc hw = small_hw(2, 1000);
    static const struct {
        double operand, result;
        const char *message;
    } bad[] = {
        {10, 1001, "tile (i1=2) of X (1001 bytes) does not fit in the pe buffer (1000 bytes)"},
        {600, 401, "tile (i1=2) of X (401 bytes) does not fit in the pe buffer beside the "
                   "point's other tiles"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mem_model *m = model(&hw, 2, 1);
        mem_tile t[2] = {{0, bad[i].operand}, {-1, 0}};
        sam_error err;
        mem_result out = {3, 0, bad[i].result, 0};
        assert_int_equal(visit(m, t, 10, &out, "(i1=2)", &err), -1);
        assert_string_equal(err.msg, bad[i].message);
        mem_free(m);
        free(m);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    hw_desc hw = small_hw(1, 1000);
    mem_model *m = calloc(1, sizeof *m);
    sam_error err;
    assert_int_equal(mem_init(m, &hw, 1, 2, &err), -1);
    assert_string_equal(err.msg, "a tiling of 2 levels needs as many buffers; the hardware has 1 "
                                 "(llb.capacity = 0 leaves only the PE buffer)");
    assert_int_equal(mem_init(m, &hw, 2, 1, &err), 0);
    mem_tile t[2] = {{0, 10}, {3, 2000}};
    assert_int_equal(visit(m, t, 1, &(mem_result){-1, 0, 0, 0}, "(i1=0,k1=3)", &err), -1);
    assert_string_equal(err.msg, "tile (i1=0,k1=3) of C (2000 bytes) does not fit in the pe "
                                 "buffer (1000 bytes)");
    mem_free(m);
    free(m);
}

/* The points of a run: tile ids and bytes of one operand, 20 cycles of
 * compute each. */
static mem_model *run_points(const hw_desc *hw, const mem_tile *pts, int n)
{
    mem_model *m = model(hw, 1, 1);
    for (int p = 0; p < n; p++)
        point(m, pts[p].id, pts[p].bytes, 20);
    return m;
}

/* pe.reuse: tiles A (100 bytes), B (50), C (30) fill three slots, then
 * the points use A (two slots back), D (40), A and C. Each fetch waits for
 * DRAM's link: A in at 0 + 10 + 100 = 110 (computed 110..130), B 100..150
 * (in at 160, 160..180), C 150..180 (190, 190..210).
 * With reuse, A is still held: computed 210..230 with no fetch; D takes
 * the least recently used slot, B's (freed at 180), moving 180..220 (in
 * at 230, 230..250); A and C are held still: 250..270, 270..290. DRAM
 * moves 220 bytes in 4 fetches; the buffer holds A, B and C at once, 180.
 * Without, each point whose tile is not the point before's fetches it,
 * into the slot fetched three fetches ago: A 180..280 (in at 290,
 * 290..310), D 280..320 (330..350), A 320..420 (430..450), C 420..450
 * (460..480): 450 bytes in 7 fetches, at most 150 held (a tile's room is
 * free once its point is computed). */
static void test_kept_tiles_serve_later_points(void **state)
{
    (void)state;
    static const mem_tile pts[] = {{0, 100}, {1, 50}, {2, 30}, {0, 100},
                                   {3, 40}, {0, 100}, {2, 30}};
    static const struct {
        int reuse;
        double end, dram, peak;
        uint64_t fetched;
    } runs[] = {{1, 290, 220, 180, 4}, {0, 480, 450, 150, 7}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        hw_desc hw = small_hw(3, 1000);
        hw.mem[HW_PE].reuse = runs[r].reuse;
        mem_model *m = run_points(&hw, pts, 7);
        assert_true(mem_finish(m) == runs[r].end);
        assert_true(m->traffic[0].read[HW_DRAM] == runs[r].dram);
        assert_true(m->traffic[0].fetched[HW_PE] == runs[r].fetched);
        assert_true(m->usage[HW_DRAM].busy == runs[r].dram);
        assert_true(m->usage[HW_PE].peak == runs[r].peak);
        mem_free(m);
        free(m);
    }
}

/* pe.reuse in a 200-byte buffer of three slots: A (100), B (50), C (60),
 * then B and A. A and B are kept (150 bytes); C needs room, so the least
 * recently used, A, leaves once its point is computed (130): C moves
 * 150..210 (in at 220, 220..240). B is still held (240..260). A comes
 * again: its room is C's, the least recently used now, free at 240; A
 * moves 240..340 (350..370): 310 bytes in 4 fetches. Without reuse B is
 * fetched again (130..: DRAM's link is free at 210, 210..260, in at 270,
 * 270..290) and A waits for C's room (240, link free at 260: 260..360,
 * 370..390): 360 bytes in 5 fetches. */
static void test_kept_tiles_leave_least_recently_used_first(void **state)
{
    (void)state;
    static const mem_tile pts[] = {{0, 100}, {1, 50}, {2, 60}, {1, 50}, {0, 100}};
    static const struct {
        int reuse;
        double end, dram;
        uint64_t fetched;
    } runs[] = {{1, 370, 310, 4}, {0, 390, 360, 5}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        hw_desc hw = small_hw(3, 200);
        hw.mem[HW_PE].reuse = runs[r].reuse;
        mem_model *m = run_points(&hw, pts, 5);
        assert_true(mem_finish(m) == runs[r].end);
        assert_true(m->traffic[0].read[HW_DRAM] == runs[r].dram);
        assert_true(m->traffic[0].fetched[HW_PE] == runs[r].fetched);
        assert_true(m->usage[HW_PE].peak <= 200);
        mem_free(m);
        free(m);
    }
}

/* llb.reuse and pe.reuse on test_two_levels' memories (DRAM 1 byte a
 * cycle after 10; the LLB 2 bytes a cycle after 1, two slots; the PE two
 * slots): points on LLB tile X (300 bytes) / PE tile P (400), Y (200) /
 * Q (60), then X / P again. X is in the LLB at 310, P at the PE at 310 +
 * 1 + 200 = 511 (computed 511..521); Y moves 300..500 (510), Q 510..540
 * (541, computed 541..551). Then:
 *   - neither: X again once its slot frees (521), 521..821 (831), P
 *     831..1031 (1032..1042); DRAM 800 bytes, the LLB 860, 3 fetches
 *     into each;
 *   - llb.reuse: X is held; P again from P's slot's release (521), the
 *     port free at 540: 540..740 (741..751); DRAM 500, 2 LLB fetches;
 *   - both: P is held too (551..561); the LLB 460, 2 PE fetches. */
static void test_kept_tiles_at_both_levels(void **state)
{
    (void)state;
    static const mem_tile pts[3][2] = {{{0, 300}, {0, 400}}, {{1, 200}, {1, 60}},
                                       {{0, 300}, {0, 400}}};
    static const struct {
        int llb, pe;
        double end, dram, llb_read;
        uint64_t llb_fetched, pe_fetched;
    } runs[] = {{0, 0, 1042, 800, 860, 3, 3}, {1, 0, 751, 500, 860, 2, 3},
                {1, 1, 561, 500, 460, 2, 2}};
    const mem_result none[2] = {{-1, 0, 0, 0}, {-1, 0, 0, 0}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        hw_desc hw = small_hw(2, 1000);
        hw.mem[HW_LLB].capacity = 10000;
        hw.mem[HW_LLB].bandwidth = 2;
        hw.mem[HW_LLB].latency = 1;
        hw.mem[HW_LLB].reuse = runs[r].llb;
        hw.mem[HW_PE].reuse = runs[r].pe;
        mem_model *m = model(&hw, 1, 2);
        sam_error err;
        for (int p = 0; p < 3; p++)
            assert_int_equal(visit(m, pts[p], 10, none, "(p)", &err), 0);
        assert_true(mem_finish(m) == runs[r].end);
        const mem_traffic *tr = &m->traffic[0];
        assert_true(tr->read[HW_DRAM] == runs[r].dram && tr->read[HW_LLB] == runs[r].llb_read);
        assert_true(tr->fetched[HW_LLB] == runs[r].llb_fetched);
        assert_true(tr->fetched[HW_PE] == runs[r].pe_fetched);
        mem_free(m);
        free(m);
    }
}

/* pe.release: one slot; A (100 bytes) in at 110, computed 110..160, its
 * last reader done 10 cycles in, at 120, when its slot frees; B (50)
 * moves 120..170, in at 180, computed 180..230. Freed at the point's end
 * (160), B moves 160..210 and is computed 220..270. */
static void test_slot_frees_at_last_reader(void **state)
{
    (void)state;
    static const double read_until[1] = {10};
    static const struct {
        const double *until;
        double end;
    } runs[] = {{read_until, 230}, {NULL, 270}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        hw_desc hw = small_hw(1, 1000);
        mem_model *m = model(&hw, 1, 1);
        mem_result none = {-1, 0, 0, 0};
        for (int p = 0; p < 2; p++) {
            mem_tile t = {p, p ? 50 : 100};
            mem_visit v = {&t, &none, 50, m->compute_end, 0, fixed_name, "(p)", runs[r].until};
            double start;
            sam_error err;
            assert_int_equal(mem_point(m, &v, names, &start, &err), 0);
        }
        assert_true(mem_finish(m) == runs[r].end);
        assert_true(m->traffic[0].read[HW_DRAM] == 150);
        mem_free(m);
        free(m);
    }
}

/* The LLB and PE of test_two_levels (DRAM 1 byte a cycle after 10, the
 * LLB 2 bytes a cycle after 1), the LLB of `llb` bytes filling lazily
 * and holding one tile of the operand. */
static hw_desc lazy_hw(double llb)
{
    hw_desc hw = small_hw(2, 1000);
    hw.mem[HW_LLB].capacity = llb;
    hw.mem[HW_LLB].bandwidth = 2;
    hw.mem[HW_LLB].latency = 1;
    hw.mem[HW_LLB].buffering = 1;
    hw.llb_lazy = 1;
    return hw;
}

/* llb.lazy: LLB tile 0 (240 bytes whole) holds PE tiles 0 (100 bytes), 1
 * (60) and 2 (80), LLB tile 1 PE tiles 3 (40) and 4; three points need
 * PE tiles 0, 1 and 3, so DRAM moves 100 + 60 + 40 = 200, and tiles 2
 * and 4 are skipped. With room: PE tile 0 comes from DRAM 0..100, in the
 * LLB at 110, to the PE at 110 + 1 + 50 = 161, computed 161..171; PE tile
 * 1 from DRAM 100..160, in at 170, at the PE at 201 (computed 201..211);
 * LLB tile 1 takes the slot when tile 0's last point is computed (211),
 * dropping its PE tiles: PE tile 3 in at 211 + 10 + 40 = 261, at the PE
 * at 282, computed by 292; the LLB held at most 160. In an LLB of 150
 * bytes (tile 0 whole would not fit), PE tile 1 waits for room: PE tile
 * 0 leaves when the PE has it (161); 1 is in at 231, at the PE at 262,
 * computed by 272; then 3 at 272 + 50 = 322, 343, done at 353; the LLB
 * held at most 100. */
static void test_lazy_fill(void **state)
{
    (void)state;
    static const struct {
        double llb, end, peak;
    } runs[] = {{10000, 292, 160}, {150, 353, 100}};
    static const mem_tile pts[3][2] = {{{0, 240}, {0, 100}}, {{0, 240}, {1, 60}},
                                       {{1, 90}, {3, 40}}};
    const mem_result none[2] = {{-1, 0, 0, 0}, {-1, 0, 0, 0}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        hw_desc hw = lazy_hw(runs[r].llb);
        mem_model *m = model(&hw, 1, 2);
        sam_error err;
        assert_int_equal(mem_declare_tiles(m, 0, 0, 2, &err), 0);
        assert_int_equal(mem_declare_tiles(m, 0, 1, 5, &err), 0);
        for (int p = 0; p < 3; p++)
            assert_int_equal(visit(m, pts[p], 10, none, "(p)", &err), 0);
        assert_true(mem_finish(m) == runs[r].end);
        const mem_traffic *tr = &m->traffic[0];
        assert_true(tr->read[HW_DRAM] == 200 && tr->read[HW_LLB] == 200);
        assert_true(tr->fetched[HW_LLB] == 2 && tr->fetched[HW_PE] == 3);
        assert_true(tr->skipped[HW_LLB] == 0 && tr->skipped[HW_PE] == 2);
        assert_true(m->usage[HW_LLB].peak == runs[r].peak && tr->peak[HW_LLB] == runs[r].peak);
        mem_free(m);
        free(m);
    }
}

/* llb.lazy refuses only a PE tile larger than the LLB (the LLB tile, 300
 * bytes, may be). */
static void test_lazy_refusal(void **state)
{
    (void)state;
    hw_desc hw = lazy_hw(150);
    mem_model *m = model(&hw, 1, 2);
    mem_tile t[2] = {{0, 300}, {0, 200}};
    const mem_result none[2] = {{-1, 0, 0, 0}, {-1, 0, 0, 0}};
    sam_error err;
    assert_int_equal(visit(m, t, 10, none, "(i1=0,i01=1)", &err), -1);
    assert_string_equal(err.msg, "tile (i1=0,i01=1) of B (200 bytes) does not fit in the llb "
                                 "buffer (150 bytes)");
    mem_free(m);
    free(m);
}

/* place.T = cache: three points touch fibers {0, 1}, {2}, {0} of B, 20
 * bytes each; B has no tiles in the PE buffer (one level), and the LLB
 * caches its fibers. An LLB of 40 bytes holds two. Point 0: fiber 0 comes
 * from DRAM 0..20, in at 30, over the PE's port (2 bytes a cycle after 1)
 * at 41; fiber 1 20..40, in at 50, at the PE at 61: computed 61..71.
 * Point 1: fiber 2 evicts fiber 0 (least recently used; the PE has had it
 * since 41): DRAM 41..61, in at 71, at the PE at 82, computed 82..92.
 * Point 2: fiber 0 missing again evicts fiber 1 (61): in at 91, at the PE
 * at 102, done at 112; DRAM moved 80. An LLB of 60 keeps all three:
 * fiber 2 in at 70, at the PE at 81 (computed 81..91), and point 2 reads
 * fiber 0 from the cache over the port's free stretch 40..50: computed
 * 91..101; DRAM moved 60. */
static void test_fiber_cache(void **state)
{
    (void)state;
    static const struct {
        double llb, end, dram;
        uint64_t fetched;
    } runs[] = {{40, 112, 80, 4}, {60, 101, 60, 3}};
    static const mem_fiber touched[3][2] = {{{0, 0, 20}, {0, 1, 20}}, {{0, 2, 20}},
                                            {{0, 0, 20}}};
    static const size_t ntouched[3] = {2, 1, 1};
    const mem_tile t = {0, 0};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        hw_desc hw = lazy_hw(runs[r].llb);
        hw.llb_lazy = 0;
        mem_model *m = model(&hw, 1, 1);
        sam_error err;
        assert_int_equal(mem_cache_fibers(m, 0, &err), 0);
        for (int p = 0; p < 3; p++) {
            mem_touch_fibers(m, 0, touched[p], ntouched[p]);
            assert_int_equal(visit(m, &t, 10, &(mem_result){-1, 0, 0, 0}, "(p)", &err), 0);
        }
        assert_true(mem_finish(m) == runs[r].end);
        const mem_traffic *tr = &m->traffic[0];
        assert_true(tr->read[HW_DRAM] == runs[r].dram && tr->fetched[HW_LLB] == runs[r].fetched);
        assert_true(tr->read[HW_LLB] == 80 && tr->fetched[HW_PE] == 0);
        assert_true(m->usage[HW_LLB].peak == fmin(runs[r].llb, 60));
        assert_true(m->usage[HW_PE].peak == 0 && !mem_tensor_held(m, 0, 0));
        mem_free(m);
        free(m);
    }
}

/* A cache fetches ahead: with A tiled in the LLB and the PE, B's fibers
 * are asked for once A's LLB tile, whose coordinates select them, is on
 * chip, not once A's PE tile reaches the PE. A's LLB tile (40 bytes)
 * comes from DRAM 0..40, in at 50; its PE tile (20) goes over the port
 * 50..60, at the PE at 61. B's fiber (20) comes from DRAM 50..70, in at
 * 80, over the port at 91: computed 91..101. Asked for at 61, it would be
 * computed 102..112. */
static void test_fiber_cache_fetches_ahead(void **state)
{
    (void)state;
    hw_desc hw = lazy_hw(1000);
    hw.llb_lazy = 0;
    mem_model *m = model(&hw, 2, 2);
    sam_error err;
    static const mem_fiber touched[] = {{0, 0, 20}};
    const mem_tile t[4] = {{0, 40}, {0, 20}, {0, 0}, {0, 0}};
    const mem_result none[2] = {{-1, 0, 0, 0}, {-1, 0, 0, 0}};
    assert_int_equal(mem_declare_tiles(m, 0, 0, 1, &err), 0);
    assert_int_equal(mem_declare_tiles(m, 0, 1, 1, &err), 0);
    assert_int_equal(mem_cache_fibers(m, 1, &err), 0);
    mem_touch_fibers(m, 1, touched, 1);
    assert_int_equal(visit(m, t, 10, none, "(p)", &err), 0);
    assert_true(mem_finish(m) == 101);
    assert_true(m->traffic[1].read[HW_DRAM] == 20 && m->traffic[1].read[HW_LLB] == 20);
    mem_free(m);
    free(m);
}

/* A fiber larger than the LLB is refused; a cache needs an LLB. */
static void test_fiber_cache_refusals(void **state)
{
    (void)state;
    hw_desc hw = lazy_hw(40);
    mem_model *m = model(&hw, 1, 1);
    sam_error err;
    assert_int_equal(mem_cache_fibers(m, 0, &err), 0);
    const mem_fiber big = {0, 7, 50};
    const mem_tile t = {0, 0};
    mem_touch_fibers(m, 0, &big, 1);
    assert_int_equal(visit(m, &t, 10, &(mem_result){-1, 0, 0, 0}, "(i1=0)", &err), -1);
    assert_string_equal(err.msg, "fiber 7 of B in tile (i1=0) (50 bytes) does not fit in the llb "
                                 "buffer (40 bytes)");
    mem_free(m);
    free(m);
    hw = small_hw(1, 1000);
    m = model(&hw, 1, 1);
    assert_int_equal(mem_cache_fibers(m, 0, &err), -1);
    assert_string_equal(err.msg, "a cache of fibers needs an LLB (llb.capacity > 0)");
    mem_free(m);
    free(m);
}

/* The units of the LLB: found by name, evicted least recently used first
 * or by group. */
static void test_fiber_cache_units(void **state)
{
    (void)state;
    fcache c;
    sam_error err;
    int64_t group = -1;
    fcache_init(&c);
    for (int64_t k = 0; k < 1000; k++)
        assert_non_null(fcache_add(&c, (int)(k % 3), k, -k, 1, k < 10 ? &group : NULL, &err));
    assert_true(c.bytes == 1000 && c.tensor_bytes[0] == 334);
    fcache_use(&c, fcache_find(&c, 0, 0, 0));
    fcache_evict_oldest(&c);        /* 1: 0 was used since */
    assert_null(fcache_find(&c, 1, 1, -1));
    assert_non_null(fcache_find(&c, 0, 0, 0));
    fcache_evict_group(&c, &group); /* 0, 2..9 */
    assert_true(group == -1 && c.bytes == 990);
    for (int64_t k = 0; k < 1000; k++)
        assert_true((fcache_find(&c, (int)(k % 3), k, -k) != NULL) == (k >= 10));
    assert_true(fcache_oldest(&c)->a == 10);
    fcache_free(&c);
}

/* llb.lazy, llb.reuse, pe.reuse, pe.release and place.T = cache: off by default,
 * read as the other keys; a cached tensor is not one the LLB holds tiles
 * of. */
static void test_hw_memory_keys(void **state)
{
    (void)state;
    hw_desc hw;
    sam_error err;
    hw_defaults(&hw);
    assert_true(hw.llb_lazy == 0 && !hw_place_of(&hw, "B"));
    assert_true(hw.mem[HW_LLB].reuse == 0 && hw.mem[HW_PE].reuse == 0 && hw.pe_release == 0);
    assert_true(hw.mem[HW_DRAM].interleave == 0 && hw.mem[HW_LLB].interleave == 0);
    assert_int_equal(hw_read_text("k.hw", "llb.lazy = 1\nplace.B = cache\nllb.reuse = 1\n"
                                  "pe.reuse = 1\npe.release = 1\ndram.interleave = 1\n", &hw,
                                  &err), 0);
    assert_true(hw.mem[HW_DRAM].interleave == 1 && hw.mem[HW_LLB].interleave == 0);
    assert_true(hw.llb_lazy == 1 && hw_place_of(&hw, "B")->cache && !hw_llb_holds(&hw, "B"));
    assert_true(hw.mem[HW_LLB].reuse == 1 && hw.mem[HW_PE].reuse == 1 && hw.pe_release == 1);
    assert_int_equal(hw_read_text("k.hw", "\npe.reuse = 0.5\n", &hw, &err), -1);
    assert_string_equal(err.msg, "k.hw:2: pe.reuse = 0.5 is not a whole number 0..1 (0 or 1)");
    assert_int_equal(hw_read_text("k.hw", "llb.lazy = 2\n", &hw, &err), -1);
    assert_string_equal(err.msg, "k.hw:1: llb.lazy = 2 is not a whole number 0..1 (0 or 1)");
}

/* The keys: defaults, a file read over them, and refusals naming the file
 * and line. */
static void test_hw_file(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *good = test_write_file(dir, "good.hw", "# ExTensor-like\ndram.bandwidth = 34.128\n"
                                                 "pe.buffering = 3   # triple\nclock.ghz=2\n");
    hw_desc hw;
    sam_error err;
    hw_defaults(&hw);
    assert_true(hw.mem[HW_DRAM].bandwidth == 68.256 && hw.mem[HW_LLB].capacity == 17.1e6);
    assert_int_equal(hw_read(good, &hw, &err), 0);
    assert_true(hw.mem[HW_DRAM].bandwidth == 34.128 && hw.mem[HW_PE].buffering == 3);
    assert_true(hw.clock_ghz == 2 && hw.mem[HW_DRAM].latency == 200);
    /* Placements: the LLB holds every tensor unless one says otherwise. */
    char *placed = test_write_file(dir, "placed.hw", "place.B = pe\nplace.X = llb , pe\n");
    assert_int_equal(hw_read(placed, &hw, &err), 0);
    assert_true(!hw_llb_holds(&hw, "B") && hw_llb_holds(&hw, "X") && hw_llb_holds(&hw, "C"));
    const char *names3[] = {"B", "C", "X"}, *names2[] = {"C", "X"};
    assert_int_equal(hw_check_places(&hw, names3, 3, &err), 0);
    assert_int_equal(hw_check_places(&hw, names2, 2, &err), -1);
    assert_non_null(strstr(err.msg, "placed.hw:1: place.B: the run has no tensor B"));
    free(placed);
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"dram.speed = 3\n", "bad.hw:1: unknown key dram.speed (the keys: clock.ghz, "},
        {"\npe.buffering = 2.5\n", "bad.hw:2: pe.buffering = 2.5 is not a whole number 1..64 "
                                   "(tiles)"},
        {"dram.bandwidth = 0\n", "bad.hw:1: dram.bandwidth = 0 is not a number 0.001..1000000 "
                                 "(GB/s)"},
        {"llb.capacity = lots\n", "bad.hw:1: llb.capacity = lots is not a whole number"},
        {"dram.latency\n", "bad.hw:1: expected KEY = VALUE, not 'dram.latency'"},
        {"clock = 1\n", "bad.hw:1: unknown key clock (the keys: clock.ghz, "},
        {"dram.latency =\n", "bad.hw:1: dram.latency has no value"},
        {"place.B = llb\n", "bad.hw:1: place.B = llb: the buffers that hold B's tiles are pe, "
                            "llb,pe or cache"},
        {"place.B = pe\nplace.B = llb,pe\n", "bad.hw:2: place.B is given twice"},
        {"place. = pe\n", "bad.hw:1: place.: not a tensor name"},
        {"fit.dram = more memory\n", "bad.hw:1: fit.dram: the buffers are llb and pe"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *path = test_write_file(dir, "bad.hw", bad[i].text);
        hw_defaults(&hw);
        assert_int_equal(hw_read(path, &hw, &err), -1);
        const char *msg = strstr(err.msg, "bad.hw");
        if (!msg || strncmp(msg, bad[i].message, strlen(bad[i].message)))
            fail_msg("'%s' gave '%s'", bad[i].text, err.msg);
        free(path);
    }
    free(good);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_buffering),
        cmocka_unit_test(test_double_buffering_and_reuse),
        cmocka_unit_test(test_capacity_delays),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_result_tiles),
        cmocka_unit_test(test_untimed_result),
        cmocka_unit_test(test_two_levels),
        cmocka_unit_test(test_pass_through_the_llb),
        cmocka_unit_test(test_llb_write_link),
        cmocka_unit_test(test_result_through_the_llb),
        cmocka_unit_test(test_eager_final_tiles),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_two_pes),
        cmocka_unit_test(test_merged_result_tiles),
        cmocka_unit_test(test_link_serves_the_ready),
        cmocka_unit_test(test_llb_ports),
        cmocka_unit_test(test_link_gaps),
        cmocka_unit_test(test_link_interleaves),
        cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_pipeline_streamed),
        cmocka_unit_test(test_result_tile_bytes),
        cmocka_unit_test(test_result_tile_bitmap),
        cmocka_unit_test(test_result_growth_waits_for_room),
        cmocka_unit_test(test_result_leaving_holds_room),
        cmocka_unit_test(test_reused_tile_stays_counted),
        cmocka_unit_test(test_result_refusals),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_kept_tiles_serve_later_points),
        cmocka_unit_test(test_kept_tiles_leave_least_recently_used_first),
        cmocka_unit_test(test_kept_tiles_at_both_levels),
        cmocka_unit_test(test_slot_frees_at_last_reader),
        cmocka_unit_test(test_lazy_fill),
        cmocka_unit_test(test_lazy_refusal),
        cmocka_unit_test(test_fiber_cache),
        cmocka_unit_test(test_fiber_cache_fetches_ahead),
        cmocka_unit_test(test_fiber_cache_refusals),
        cmocka_unit_test(test_fiber_cache_units),
        cmocka_unit_test(test_hw_memory_keys),
        cmocka_unit_test(test_hw_file),
    };
    return cmocka_run_group_tests_name("memory", tests, NULL, NULL);
}
