/* samsim run on tiles: the operands cut as the schedule's splits say, the
 * tile loops walked with sparse tiles skipped (custard/tileseq.h), the
 * graph simulated unchanged on each visited point's tiles, and the
 * result's tiles put back together, partial tiles of a summed index
 * added. */
#ifndef SAMSIM_RUN_TILED_H
#define SAMSIM_RUN_TILED_H

#include "../common/error.h"
#include "../formats/tensor.h"
#include "../graph/graph.h"
#include "../hwmodel/bound.h"
#include "../builder/build.h"
#include "../engine/engine.h"
#include "../hwmodel/hw.h"
#include "../hwmodel/hw_trace.h"
#include "../hwmodel/memory.h"
#include "../report/stats.h"

typedef struct tiled_request {
    const char *tiling;         /* split commands */
    const char *expr;           /* what the graph computes */
    engine_mode engine;
    uint64_t split;             /* the engine's random windows, 0: none */
    uint64_t max_cycles;        /* the whole run stops at this cycle */
    sim_options sim;
    const hw_desc *hw;          /* the memories (hwmodel/memory.h), NULL: none */
    int stats;                  /* gather the statistics of report/stats.h */
    /* Leave the result's explicit zeros out as the points add to it,
     * counting them in the outcome's zeros: a template's result, which
     * never holds them, where an inner product writes a zero for every
     * pair met (SIGMA), far more than its nonzeros. */
    int drop_zeros;
    /* With --trace: about how many slices the run's timeline on its
     * hardware keeps (hwmodel/hw_trace.h); 0: no timeline. */
    size_t trace;
} tiled_request;

typedef struct tiled_outcome {
    cycle_t cycles;             /* the tiles' runs through the pipeline
                                   (hwmodel/pipeline.h), and with memories the
                                   transfers they wait on */
    cycle_t compute_cycles;     /* the tiles' runs added up */
    uint64_t tokens;
    uint64_t tiles_run;         /* points of the tile loops simulated */
    double tiles_skipped;       /* points of the full tile grid skipped */
    uint64_t zeros;             /* explicit zeros the points wrote into the
                                   result and drop_zeros left out */
    mem_model *memory;          /* with hw: what the memories did (freed
                                   by tiled_outcome_free); its tensors
                                   are the expression's operands, then
                                   the result */
    const char *names[MEM_MAX_TENSORS + 1];
    time_bound bound;           /* with hw: TeAAL's bound (hwmodel/bound.h) */
    /* Per operand stored as its innermost tiles (`layout.T = tiled`), the
       bytes of them all, as DRAM holds it; else 0. */
    double stored[MEM_MAX_TENSORS];
    sim_stats *stats;           /* asked for: every point's, and the memories'
                                   (freed by tiled_outcome_free) */
    hw_trace *trace;            /* asked for: the points on each PE and the
                                   transfers on each link, also of a run that
                                   stopped (freed by tiled_outcome_free) */
    const char *incomplete;     /* a run that did not complete: "deadlock" or
                                   "stopped" (at max_cycles), cycles the
                                   cycle it stopped in; else NULL */
    char report[2048];          /* then: the tile point it stopped in and
                                   what its blocks wait on */
} tiled_outcome;

/* Runs g on operands (per graph tensor, the result's slot unused) as r
 * says; the result into *result, canonical. 1 when the run does not
 * complete: a tile point deadlocks, or the run would go past
 * max_cycles. The walk then ends there, the point's statistics (its run
 * up to the cycle the whole stops in) added to those of the points
 * before; out says how (incomplete, report, cycles) and keeps stats and
 * memory for the caller to free as after a complete run; *result is
 * empty and err holds the report too. -1 on an error. */
int run_tiled(const sam_graph *g, const tensor *operands, const tiled_request *r,
              tiled_outcome *out, tensor *result, sam_error *err);

/* Frees what a run that returned 0 or 1 left in out (statistics before
 * the memories they describe); out is then empty. */
void tiled_outcome_free(tiled_outcome *out);

#endif
