/* ExTensor (Hegde et al., MICRO'19) as TeAAL models it (MICRO'23, Table 5
 * and its artifact's extensor.yaml), with the PE's graph of the SAM
 * paper's ExTensor study (section 6.4): Gustavson's order in the PE
 * (loops i, k, j; TeAAL's inner product, SAM's matmul_ijk, writes every
 * (i, j) of a tile, zeros included, having no coordinate dropper),
 * skip-ahead intersection of k (intersect impl skip), uniform shape
 * tiles at two levels, LLB tiles of llb.tile.* PE tiles and PE tiles of
 * pe.tile coordinates a side, walked in TeAAL's order (N2 K2 M2 for the
 * LLB's tiles, M1 N1 K1 for the PE's: j1 k1 i1 i01 j01 k01), so that the
 * result's LLB tile is left and read back across k1 (partial outputs);
 * the tile loops skip empty tiles. A point goes to the PE that frees up
 * first (pe.dynamic): ExTensor's PEs send their partial outputs to the
 * partial output buffer beside the LLB, which merges them (MICRO'19,
 * "Partial output management"), so no result tile is tied to a PE
 * (pe.merge). The LLB fills lazily
 * (llb.lazy): extensor.yaml binds A's K1 and B's N1 and K1 ranks to the
 * LLB with style lazy and the ranks below them (a PE tile's) eager,
 * evicted on M2 and K2, so an LLB tile holds the PE tiles the points of
 * its stay reach, each loaded whole when first reached, not the LLB tile
 * whole. The memories store A and B as their
 * PE tiles, each in CSR (layout.T = tiled: 12 bytes an entry, 8 a row,
 * 12 a tile at 4-byte coordinates and pointers and 8-byte values), and Z
 * as (row, column, value) entries of 16 bytes with nothing per tile or
 * row (layout.Z = coo), as extensor.yaml's formats do; Z's values are
 * bound to main memory, not the LLB (place.Z = pe): a PE tile of Z goes
 * out when its points are done and comes back when a later K slab
 * touches it. So on p2p-Gnutella31 the template moves the bytes ExTensor
 * reported for A, B, PO and Z exactly. DRAM interleaves the transfers in
 * flight (dram.interleave), as ExTensor's own model queues them at its
 * peak bandwidth (MICRO'19, its evaluation's simulation framework). The
 * PEs stream their tile points (pe.stream): ExTensor's intersection unit
 * runs ahead of the PE's computation. TeAAL counts bandwidth in GiB/s
 * (2^30 bytes). */
#include <stdio.h>

#include "template.h"

static const param extensor_params[] = {
    {"pe.count", "PEs", "processing elements", 128, 1, 4096, 1, 0},
    {"pe.tile", "coordinates", "a PE tile's side (M0 = N0 = K0)", 128, 1, 1 << 20, 1, 0},
    {"llb.tile.i", "PE tiles", "an LLB tile's rows (M1)", 32, 1, 1 << 16, 1, 0},
    {"llb.tile.k", "PE tiles", "an LLB tile's depth (K1)", 64, 1, 1 << 16, 1, 0},
    {"llb.tile.j", "PE tiles", "an LLB tile's columns (N1)", 128, 1, 1 << 16, 1, 0},
    {"clock.ghz", "GHz", "clock", 1, 0.001, 1000, 0, 0},
    {"dram.bandwidth", "GB/s", "DRAM to the LLB (TeAAL: 68.256 GiB/s)", 68.256 * 1.073741824,
     0.001, 1e6, 0, 0},
    {"llb.capacity", "bytes", "last-level buffer", 30e6, 1, 1e15, 0, 0},
    {"llb.bandwidth", "GB/s", "the LLB to each PE", 256, 0.001, 1e6, 0, 0},
    /* ExTensor's PE buffer is 64 kB for the operands; the model's PE buffer
     * holds the result's PE tile too, up to 192 kB for a dense 128 x 128
     * corner (the SAM paper's study in benchmarks/sweeps/fig15.sweep does the
     * same). */
    {"pe.capacity", "bytes", "each PE's buffer, the result's tile included", 1048576, 1, 1e15,
     0, 0},
    {"bytes.val", "bytes", "a value (TeAAL: 64 bits)", 8, 0, 64, 1, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static void extensor_plan(const template_def *t, const double *v, template_plan *plan)
{
    long pe = (long)template_value(t, v, "pe.tile");
    long ti = pe * (long)template_value(t, v, "llb.tile.i");
    long tk = pe * (long)template_value(t, v, "llb.tile.k");
    long tj = pe * (long)template_value(t, v, "llb.tile.j");
    template_phase *p = template_phase_add(plan, "graph", TEMPLATE_EXPR);
    template_format(p, "Z:ss");
    template_format(p, "A:ss");
    template_format(p, "B:ss");
    snprintf(p->schedule, sizeof p->schedule, "reorder(i,k,j)");
    snprintf(p->tiling, sizeof p->tiling,
             "split(i,i1,i0,%ld) split(k,k1,k0,%ld) split(j,j1,j0,%ld) "
             "split(i0,i01,i00,%ld) split(k0,k01,k00,%ld) split(j0,j01,j00,%ld) "
             "tileorder(j1,k1,i1,i01,j01,k01)", ti, tk, tj, pe, pe, pe);
    snprintf(p->settings, sizeof p->settings, "intersect.impl=skip");
    template_hw(p, "# ExTensor (TeAAL Table 5), made by samsim template extensor");
    template_hw_keys(p, t, v, "clock.ghz dram.bandwidth llb.capacity llb.bandwidth "
                              "pe.capacity pe.count bytes.val");
    template_hw_dram_interleaved(p);
    template_hw(p, "# the LLB keeps loading tiles while they fit, as ExTensor's does");
    template_hw(p, "llb.buffering = 64");
    template_hw(p, "# an LLB tile loads the PE tiles points reach, not itself whole");
    template_hw(p, "llb.lazy = 1");
    template_hw(p, "# A and B in DRAM as CSR PE tiles, Z as (row, column, value) entries");
    template_hw(p, "layout.A = tiled");
    template_hw(p, "layout.B = tiled");
    template_hw(p, "layout.Z = coo");
    template_hw(p, "# Z's PE tiles go out to DRAM and come back as K slabs touch them");
    template_hw(p, "place.Z = pe");
    template_hw(p, "# what a refusal of a tile too large for a buffer suggests");
    template_hw(p, "fit.llb = a larger llb.capacity, or smaller llb.tile.i, llb.tile.k or "
                "llb.tile.j, makes it fit");
    template_hw(p, "fit.pe = a larger pe.capacity or a smaller pe.tile makes it fit");
    template_hw(p, "# the partial output buffer merges what any PE sends: points go to");
    template_hw(p, "# whichever PE frees up first");
    template_hw(p, "pe.dynamic = 1");
    template_hw(p, "pe.merge = 1");
    template_hw(p, "# the intersection unit runs ahead: tile points stream through a PE");
    template_hw(p, "pe.stream = 1");
}

const template_def template_extensor = {
    .name = "extensor",
    .about = "skip-ahead intersection in two levels of shape tiles, partial outputs across K",
    .params = extensor_params,
    .plan = extensor_plan,
};
