/* Gamma (Zhang et al., ASPLOS'21) in SAM's terms (SAM section 7; TeAAL
 * Table 5): Gustavson's rows (loops i, k, j), B's rows located by A's
 * coordinates, k dealt out to merger.radix lanes after the intersection,
 * each lane scaling the rows of B it gets, and a vectorreducer of that
 * many lanes merging them, taking merger.rate pairs a cycle (Gamma's
 * merger: one). Rows of A go to the PEs in tiles holding tile.entries of
 * its entries (TeAAL's occupancy partitions), each to whichever PE frees
 * up first (pe.dynamic). The FiberCache is the LLB as a cache of B's rows
 * (place.B = cache): TeAAL's specification (its artifact's gamma.yaml)
 * makes the FiberCache a Cache of 3 MB holding B's rank K payloads and its
 * rank N, reached through the intersection at K that A leads. So a row of
 * B is fetched from DRAM the first time a tile of A's rows selects it,
 * stays while the cache has room and is evicted least recently used when
 * it needs room; rows no row of A selects are never read, and B never has
 * to fit whole. A's rows come from DRAM and Z's rows go back past the
 * FiberCache; each PE's buffer holds its tile of A's rows and of Z's (as
 * large as the FiberCache, where Gamma keeps its partial rows) and streams
 * the rows of B it reads from the FiberCache. The memories store A, B
 * and Z as CSR (layout ds: a 4-byte pointer per row, empty rows included,
 * and 12 bytes an entry), as gamma.yaml's formats do; a PE streams its
 * rows through its fetch, merge and multiply stages (pe.stream). TeAAL
 * counts bandwidth in GiB/s (2^30 bytes). */
#include <stdio.h>

#include "template.h"

static const param gamma_params[] = {
    {"pe.count", "PEs", "processing elements", 32, 1, 4096, 1, 0},
    {"tile.entries", "entries", "rows of A a PE takes at once hold this many of its entries",
     32, 1, 1 << 30, 1, 0},
    {"merger.radix", "lanes", "fibers the merger merges at once (Gamma: 64; at most 32 here)",
     32, 1, 32, 1, 0},
    {"merger.rate", "pairs/cycle", "pairs the merger takes a cycle (0: one per lane)", 1, 0, 32,
     1, 0},
    {"clock.ghz", "GHz", "clock", 1, 0.001, 1000, 0, 0},
    {"dram.bandwidth", "GB/s", "16 HBM channels of 8 GiB/s (TeAAL: 128 GiB/s)",
     128 * 1.073741824, 0.001, 1e6, 0, 0},
    {"fibercache.capacity", "bytes", "the FiberCache (3 MB)", 3145728, 1, 1e15, 0, 0},
    {"llb.bandwidth", "GB/s", "the FiberCache to each PE", 256, 0.001, 1e6, 0, 0},
    {"bytes.val", "bytes", "a value (TeAAL: 64 bits)", 8, 0, 64, 1, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static void gamma_plan(const template_def *t, const double *v, template_plan *plan)
{
    double cache = template_value(t, v, "fibercache.capacity");
    template_phase *p = template_phase_add(plan, "graph", TEMPLATE_EXPR);
    template_format(p, "Z:ss");
    template_format(p, "A:ss");
    template_format(p, "B:ss");
    snprintf(p->schedule, sizeof p->schedule, "reorder(i,k,j)");
    snprintf(p->locate, sizeof p->locate, "B");
    snprintf(p->parallelize, sizeof p->parallelize, "k,%.0f",
             template_value(t, v, "merger.radix"));
    snprintf(p->tiling, sizeof p->tiling, "split(i,i1,i0,A.%.0f)",
             template_value(t, v, "tile.entries"));
    snprintf(p->settings, sizeof p->settings, "vectorreducer.rate=%.0f",
             template_value(t, v, "merger.rate"));
    template_hw(p, "# Gamma (TeAAL Table 5), made by samsim template gamma");
    template_hw_keys(p, t, v, "clock.ghz dram.bandwidth llb.bandwidth pe.count bytes.val");
    template_hw_dram_interleaved(p);
    template_hw(p, "# the FiberCache: B's rows, fetched as A's rows select them");
    template_hw(p, "llb.capacity = %.0f", cache);
    template_hw(p, "place.B = cache");
    template_hw(p, "# A, B and Z as CSR: a pointer per row, empty rows included");
    template_hw(p, "layout.A = ds");
    template_hw(p, "layout.B = ds");
    template_hw(p, "layout.Z = ds");
    template_hw(p, "# what a refusal of a tile too large for a buffer suggests");
    template_hw(p, "fit.llb = a larger fibercache.capacity makes it fit");
    template_hw(p, "fit.pe = a larger fibercache.capacity (the PE's buffer is as large) or a "
                "smaller tile.entries makes it fit");
    template_hw(p, "# rows stream through a PE's fetch, merge and multiply stages");
    template_hw(p, "pe.stream = 1");
    template_hw(p, "# a PE holds its rows of A and Z and streams B's rows from the FiberCache");
    template_hw(p, "pe.capacity = %.0f", cache);
    template_hw(p, "# rows go to whichever PE frees up first, as Gamma's scheduler hands them out");
    template_hw(p, "pe.dynamic = 1");
    template_hw(p, "# A's rows come from DRAM and Z's rows go there, past the FiberCache");
    template_hw(p, "place.A = pe");
    template_hw(p, "place.Z = pe");
}

const template_def template_gamma = {
    .name = "gamma",
    .about = "Gustavson's rows on PEs with a high-radix merger and a FiberCache",
    .params = gamma_params,
    .plan = gamma_plan,
};
