/* OuterSPACE (Pal et al., HPCA'18) as the SAM paper's Fig. 16 and TeAAL
 * (Table 5, outerspace.yaml) model it, in two phases. The multiply phase
 * takes A by columns (stored k-major) and B by rows, loops k, i, j, and
 * writes every product T(i,k,j) = A(i,k) B(k,j) discordantly into linked
 * lists (T:dls); the work goes out in ranges of k holding a.per.pe of A's
 * entries, one to each of pt.count x pe.per.pt PEs. The merge phase sums
 * Z(i,j) = T(i,k,j) over k, rows of T in tiles of merge.rows to half as
 * many PEs, reading T's lists as the multiply wrote them (T:dls, the
 * linked-list scanner), so T costs the lists' bytes both ways. There is
 * no LLB: OuterSPACE's caches hold lines, not tiles, and the PEs stream,
 * so no tile has to fit in a PE's buffer. The memories store what
 * outerspace.yaml's formats give: A and B with a pointer for every k
 * (layout ds over their k-major levels), and T's lists with a pointer per
 * row and per (i, k) list and 12-byte (j, value) elements, k itself not
 * stored (bytes.T.crd = 4,0,4 and bytes.T.ref = 4,4,0: the list node's
 * next pointer stands for the (i, k) list's, the j level's seg entries
 * for nothing). */
#include <stdio.h>

#include "template.h"

static const param outerspace_params[] = {
    {"pt.count", "PTs", "processing tiles", 16, 1, 256, 1, 0},
    {"pe.per.pt", "PEs", "processing elements per tile", 16, 1, 256, 1, 0},
    {"a.per.pe", "entries", "entries of A a PE multiplies at once", 16, 1, 1 << 30, 1, 0},
    {"merge.rows", "rows", "rows of T a PE merges at once", 32, 1, 1 << 30, 1, 0},
    {"clock.ghz", "GHz", "clock", 1.5, 0.001, 1000, 0, 0},
    {"dram.bandwidth", "GB/s", "16 HBM channels of 8 GiB/s (TeAAL: 128 GiB/s)",
     128 * 1.073741824, 0.001, 1e6, 0, 0},
    {"bytes.val", "bytes", "a value (TeAAL: 64 bits)", 8, 0, 64, 1, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static void outerspace_hw(template_phase *p, const template_def *t, const double *v, double pes)
{
    template_hw(p, "# OuterSPACE's %s phase (TeAAL Table 5), made by samsim template "
                "outerspace", p->name);
    template_hw_keys(p, t, v, "clock.ghz dram.bandwidth bytes.val");
    template_hw_dram_interleaved(p);
    template_hw(p, "pe.count = %.0f", pes);
    template_hw(p, "# no LLB: the caches hold lines, not tiles");
    template_hw(p, "llb.capacity = 0");
    template_hw(p, "# the PEs stream their operands in and their products out: no tile");
    template_hw(p, "# need fit in their 16 kB L0 caches");
    template_hw(p, "pe.capacity = 1e15");
    template_hw(p, "# T: a pointer per row and per (i, k) list, 12 bytes a (j, value)");
    template_hw(p, "bytes.T.crd = 4,0,4");
    template_hw(p, "bytes.T.ref = 4,4,0");
}

static void outerspace_plan(const template_def *t, const double *v, template_plan *plan)
{
    double pes = template_value(t, v, "pt.count") * template_value(t, v, "pe.per.pt");
    template_phase *m = template_phase_add(plan, "multiply", "T(i,k,j)=A(i,k)*B(k,j)");
    template_format(m, "T:dls");
    template_format(m, "A:ss:1,0");
    template_format(m, "B:ss");
    snprintf(m->schedule, sizeof m->schedule, "reorder(k,i,j)");
    snprintf(m->tiling, sizeof m->tiling, "split(k,k1,k0,A.%.0f)",
             template_value(t, v, "a.per.pe"));
    outerspace_hw(m, t, v, pes);
    template_hw(m, "# A and B: a pointer for every k");
    template_hw(m, "layout.A = ds");
    template_hw(m, "layout.B = ds");
    template_phase *r = template_phase_add(plan, "merge", "Z(i,j)=T(i,k,j)");
    template_format(r, "Z:ss");
    template_format(r, "T:dls");
    snprintf(r->schedule, sizeof r->schedule, "reorder(i,k,j)");
    snprintf(r->tiling, sizeof r->tiling, "split(i,i1,i0,%.0f)",
             template_value(t, v, "merge.rows"));
    outerspace_hw(r, t, v, pes / 2 >= 1 ? pes / 2 : 1);
}

const template_def template_outerspace = {
    .name = "outerspace",
    .about = "outer products into linked lists, then a merge phase",
    .params = outerspace_params,
    .plan = outerspace_plan,
};
