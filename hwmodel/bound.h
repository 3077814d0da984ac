/* TeAAL's time model beside the simulated cycles (TeAAL, MICRO'23,
 * section 5.3, and its compiler's collector: per fused block of work,
 * each component's time, a memory's bytes over its bandwidth and a
 * compute unit's actions over its instances and clock, the block taking
 * the longest; blocks add up). A tiled run is one block; its components
 * are DRAM's link, the LLB's ports to the processing elements (each at
 * llb.bandwidth; a tensor that passes through the LLB crosses them too),
 * their links back where llb.write.bandwidth gives them (else the ports
 * carry both ways and llb.write is 0) and the processing elements: each block of a PE's graph is a unit with
 * an instance per PE, its actions the cycles it was busy over every tile
 * point, so the busiest block's cycles shared evenly among the PEs. The bound is the time of a run
 * in which every component overlaps the others perfectly and the work
 * balances; the simulated cycles exceed it by the waits, the imbalance
 * and the fill and drain it leaves out, which is why both are shown. */
#ifndef SAMSIM_BOUND_H
#define SAMSIM_BOUND_H

#include "memory.h"

typedef enum {
    BOUND_DRAM,
    BOUND_LLB,
    BOUND_LLB_WRITE,
    BOUND_PE,
    BOUND_COMPONENTS
} bound_component;

extern const char *const bound_names[BOUND_COMPONENTS];

typedef struct time_bound {
    double cycles[BOUND_COMPONENTS];    /* each component's time, at the clock */
    bound_component by;                 /* the longest */
} time_bound;

/* The bound of a run whose memories did what m records and whose
 * busiest block was busy pe_actions cycles over all its tile points. */
void time_bound_of(const mem_model *m, double pe_actions, time_bound *b);

/* The longest component's cycles. */
double time_bound_cycles(const time_bound *b);

#endif
