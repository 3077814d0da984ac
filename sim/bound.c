/* TeAAL's bound on a tiled run (bound.h). */
#include "bound.h"

const char *const bound_names[BOUND_COMPONENTS] = {"dram", "llb", "pe"};

/* Whether the LLB holds a tiling level (else every tile passes through). */
static int llb_holds_a_level(const mem_model *m)
{
    for (int l = 0; l < m->nlevels; l++)
        if (m->at[l] == HW_LLB)
            return 1;
    return 0;
}

/* Bytes across DRAM's link, and across the LLB's ports (with the tensors
 * that pass through the LLB on their way between DRAM and a PE; a cached
 * tensor's fibers are counted as they leave the cache, once). */
static void bytes_moved(const mem_model *m, double *dram, double *ports)
{
    int level = llb_holds_a_level(m);
    *dram = *ports = 0;
    for (int t = 0; t <= m->ntensors; t++) {
        const mem_traffic *tr = &m->traffic[t];
        double from_dram = tr->read[HW_DRAM] + tr->written[HW_DRAM];
        *dram += from_dram;
        int passes = !(level && m->llb_holds[t]) && !(t < m->ntensors && m->cached[t]);
        *ports += tr->read[HW_LLB] + tr->written[HW_LLB] + (passes ? from_dram : 0);
    }
}

void time_bound_of(const mem_model *m, double pe_actions, time_bound *b)
{
    const hw_desc *hw = &m->hw;
    double dram, ports;
    bytes_moved(m, &dram, &ports);
    b->cycles[BOUND_DRAM] = dram / (hw->mem[HW_DRAM].bandwidth / hw->clock_ghz);
    b->cycles[BOUND_LLB] = hw->mem[HW_LLB].capacity > 0 ?
        ports / (hw->mem[HW_LLB].bandwidth / hw->clock_ghz * m->npe) : 0;
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
