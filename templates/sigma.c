/* SIGMA (Qin et al., HPCA'20) as TeAAL models it (Table 5, sigma.yaml):
 * A stationary, B streamed, a bitmap inner product. K is cut in shape
 * tiles of k.tile and, within each, rows of A in partitions holding at
 * most a.per.tile of its entries of that K slab (sigma.yaml: K by shape,
 * then (M, K0) by occupancy; samsim's partitions are whole rows, counted
 * per slab: split(i0,i01,i00,A.16384/k1)), walked partition by
 * partition, each over every K slab, so that a partition's rows of Z stay
 * in place while the slabs add to them (sigma.yaml walks K1 outermost;
 * it binds no Z, and its network carries the same bytes either way);
 * within a partition and slab, B's columns stream past (loop j
 * outermost) and the rows of A are dealt out to lanes, each intersecting
 * A's row with B's column as bitmaps (A and B store k as bitvector
 * levels). The lanes share the array's 16,384 multipliers: each lane's
 * blocks take multipliers / lanes tokens a cycle (lane.share), while the
 * blocks that deal rows and columns to the lanes and gather their sums
 * take one token a multiplier (pe.rate): in SIGMA (Qin et al., HPCA'20)
 * each FlexDPE's distribution network (a Benes network) and reduction
 * network (a forwarding adder network) reach all of its 128 multipliers
 * each cycle. Every pair of a row and a
 * column met gets its sum written, 0 where the two have no k in common
 * (no coordinate dropper, as in SAM's inner product): Z's traffic counts
 * those zeros, Z itself does not hold them (run/template_run.h).
 * The flexible dot-product array is one PE; its data SRAM is the LLB,
 * which holds B's columns (place.B = cache, fetched as soon as the
 * partition's K slab is on chip) and sends them into the array again for
 * every partition of A, through the distribution network: TeAAL times
 * SIGMA by that network, 4096 bits a cycle (its artifact's SIGMA cycles
 * are A's and B's bytes over 512), so the LLB's bandwidth is 256 GB/s at
 * 500 MHz, and a transfer is whole 512-byte flits (llb.line: a column of
 * fewer than 128 values still takes one, as TeAAL pads B's K0 fibers to
 * 128). What crosses it is values: A's stationary entries (4 bytes each,
 * layout coo with no coordinate bytes, the bitmaps being in their own
 * SRAM) and B's columns dense (sigma.yaml's B is uncompressed, 4 bytes a
 * position, zeros included: layout dd). A partition's sums, once every
 * slab has added to them, leave by the reduction network into the data
 * SRAM (llb.write.bandwidth, the SRAM's 960 GiB/s, a link of its own
 * beside the distribution network) and go on to main memory (place.Z =
 * pe): the 32 MB data SRAM cannot keep the Z of SIGMA's larger shapes (131
 * MB on 31999 x 1024 x 84). Z's bytes are counted; their time is not
 * (result.timed = 0, template parameter z.timed), as neither SIGMA's
 * reported cycles nor TeAAL's model of them (sigma.yaml binds no Z and
 * no main memory) count it: on 31999 x 1024 x 84 those 131 MB take
 * 63,577 cycles through the SRAM's 960 GiB/s alone, against 38,454
 * reported for the whole product. z.timed = 1 adds that way out. Main
 * memory is SIGMA's HBM at its bandwidth, with no latency (none is
 * published; TeAAL's model charges bytes over bandwidth), and the data
 * SRAM takes A's K slab in by partitions, each going on into the array
 * once it is in (llb.lazy; sigma.yaml moves A partition by partition). */
#include <math.h>
#include <stdio.h>

#include "template.h"

static const param sigma_params[] = {
    {"k.tile", "coordinates", "the shape tiles of K", 128, 1, 1 << 20, 1, 0},
    {"a.per.tile", "entries", "entries of A stationary at once (128 x 128 PEs)", 16384, 1,
     1 << 30, 1, 0},
    {"lanes", "lanes", "rows of A in flight (SIGMA: 128 FlexDPEs)", 32, 1, 32, 1, 0},
    {"multipliers", "multipliers", "the array's (128 FlexDPEs x 128 PEs), shared by the lanes",
     16384, 1, 1 << 24, 1, 0},
    {"clock.ghz", "GHz", "clock", 0.5, 0.001, 1000, 0, 0},
    {"dram.bandwidth", "GB/s", "HBM", 1024, 0.001, 1e6, 0, 0},
    {"llb.capacity", "bytes", "the data SRAM", 32e6, 1, 1e15, 0, 0},
    {"llb.bandwidth", "GB/s", "the distribution network into the array (TeAAL: 4096 bits a cycle)",
     256, 0.001, 1e6, 0, 0},
    {"llb.write.bandwidth", "GB/s", "the reduction network's sums into the data SRAM (TeAAL: "
     "960 GiB/s of SRAM)", 960 * 1.073741824, 0.001, 1e6, 0, 0},
    {"bytes.val", "bytes", "a value", 4, 0, 64, 1, 0},
    {"z.timed", "0 or 1", "1: Z's way out of the array to main memory takes its time (SIGMA's "
     "reports and TeAAL's model leave it out)", 0, 0, 1, 1, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static void sigma_plan(const template_def *t, const double *v, template_plan *plan)
{
    template_phase *p = template_phase_add(plan, "graph", TEMPLATE_EXPR);
    template_format(p, "Z:ss:1,0");
    template_format(p, "A:sb");
    template_format(p, "B:sb:1,0");
    snprintf(p->schedule, sizeof p->schedule, "reorder(j,i,k)");
    snprintf(p->parallelize, sizeof p->parallelize, "i,%.0f", template_value(t, v, "lanes"));
    /* The outer level, all of i at once, is the data SRAM's: A's K slab.
     * A partition's rows stay while the K slabs add to them. */
    snprintf(p->tiling, sizeof p->tiling, "split(k,k1,k0,%.0f) split(i,i1,i0,%d) "
             "split(i0,i01,i00,A.%.0f/k1) tileorder(i1,i01,k1)", template_value(t, v, "k.tile"),
             TEMPLATE_ONE_TILE, template_value(t, v, "a.per.tile"));
    template_hw(p, "# SIGMA (TeAAL Table 5), made by samsim template sigma");
    template_hw_keys(p, t, v, "clock.ghz dram.bandwidth llb.capacity llb.bandwidth "
                              "llb.write.bandwidth bytes.val");
    template_hw_dram_interleaved(p);
    template_hw(p, "pe.count = 1");
    template_hw(p, "# the networks reach every multiplier a cycle; the lanes share them");
    template_hw(p, "pe.rate = %.0f", template_value(t, v, "multipliers"));
    template_hw(p, "lane.share = %.0f", template_value(t, v, "lanes"));
    template_hw(p, "# values cross the network; the bitmaps have their own SRAM");
    template_hw(p, "bytes.crd = 0");
    template_hw(p, "bytes.ref = 0");
    template_hw(p, "# the network moves whole flits, a cycle of it (TeAAL: 4096 bits)");
    template_hw(p, "llb.line = %.0f", ceil(template_value(t, v, "llb.bandwidth") /
                                           template_value(t, v, "clock.ghz")));
    template_hw(p, "layout.A = coo");
    template_hw(p, "layout.B = dd");
    template_hw(p, "# what a refusal of a tile too large for the data SRAM suggests");
    template_hw(p, "fit.llb = a larger llb.capacity, or a smaller k.tile or a.per.tile, makes it "
                "fit");
    template_hw(p, "# the data SRAM takes a K slab of A partition by partition, each going on");
    template_hw(p, "# into the array once it is in (sigma.yaml moves A by partitions, MK01)");
    template_hw(p, "llb.lazy = 1");
    template_hw(p, "# memories cost their bytes over their bandwidth, as in TeAAL's model:");
    template_hw(p, "# no latency is published for SIGMA's HBM");
    template_hw(p, "dram.latency = 0");
    template_hw(p, "# B's columns go into the array again for every partition of A");
    template_hw(p, "place.B = cache");
    template_hw(p, "# the array's registers hold the stationary entries of A; the rest streams");
    template_hw(p, "# through it: no tile need fit");
    template_hw(p, "pe.capacity = 1e15");
    template_hw(p, "# a partition's sums go out to main memory once every K slab added to them");
    template_hw(p, "place.Z = pe");
    template_hw(p, "# Z's bytes count, not their time: SIGMA's cycles and TeAAL's model leave it");
    template_hw(p, "result.timed = %.0f", template_value(t, v, "z.timed"));
}

const template_def template_sigma = {
    .name = "sigma",
    .about = "a bitmap inner product with A stationary on a flexible dot-product array",
    .params = sigma_params,
    .plan = sigma_plan,
};
