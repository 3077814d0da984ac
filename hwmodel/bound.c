/* TeAAL's bound on a tiled run (bound.h). */
#include "bound.h"

#include <string.h>

const char *const bound_names[BOUND_COMPONENTS] = {"dram", "llb", "llb.write", "pe"};

/* Bytes across DRAM's link, and across the LLB's ports toward the PEs
 * and back (with the tensors that pass through the LLB on their way
 * between DRAM and a PE; a cached tensor's fibers are counted as they
 * leave the cache, once); an untimed result's are not. */
static void bytes_moved(const mem_model *m, double *dram, double *in, double *out)
{
    int level = mem_llb_holds_level(m);
    *dram = *in = *out = 0;
    for (int t = 0; t < m->ntensors + (m->hw.result_timed != 0); t++) {
        const mem_traffic *tr = &m->traffic[t];
        *dram += tr->read[HW_DRAM] + tr->written[HW_DRAM];
        int passes = !(level && m->llb_holds[t]) && !(t < m->ntensors && m->cached[t]);
        *in += tr->read[HW_LLB] + (passes ? tr->read[HW_DRAM] : 0);
        *out += tr->written[HW_LLB] + (passes ? tr->written[HW_DRAM] : 0);
    }
}

/* Bytes at GB/s over npe links: cycles at the clock. */
static double over(double bytes, double gbs, const hw_desc *hw, int npe)
{
    return bytes / (gbs / hw->clock_ghz * npe);
}

void time_bound_of(const mem_model *m, double pe_actions, time_bound *b)
{
    const hw_desc *hw = &m->hw;
    double dram, in, out, llb = hw->mem[HW_LLB].bandwidth, write = hw->llb_write_bandwidth;
    bytes_moved(m, &dram, &in, &out);
    memset(b, 0, sizeof *b);
    b->cycles[BOUND_DRAM] = over(dram, hw->mem[HW_DRAM].bandwidth, hw, 1);
    if (hw->mem[HW_LLB].capacity > 0 && write > 0) {
        b->cycles[BOUND_LLB] = over(in, llb, hw, m->npe);
        b->cycles[BOUND_LLB_WRITE] = over(out, write, hw, m->npe);
    } else if (hw->mem[HW_LLB].capacity > 0) {
        b->cycles[BOUND_LLB] = over(in + out, llb, hw, m->npe);
    }
    b->cycles[BOUND_PE] = pe_actions / m->npe;
    b->by = BOUND_DRAM;
    for (int c = 1; c < BOUND_COMPONENTS; c++)
        if (b->cycles[c] > b->cycles[b->by])
            b->by = (bound_component)c;
}

double time_bound_cycles(const time_bound *b)
{
    return b->cycles[b->by];
}
