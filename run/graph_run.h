/* A graph run on its data, to an outcome: what `samsim run GRAPH` does
 * between reading its arguments and writing its outputs. The operands are
 * read from the files bound to their names (or derived by --shift), split
 * when the graph iterates splits, stored as the graph's levels say, then
 * simulated whole or tile by tile (tiled.h), the result joined, checked
 * against the expression when asked, and the run's fields recorded. */
#ifndef SAMSIM_GRAPH_RUN_H
#define SAMSIM_GRAPH_RUN_H

#include "../builder/config.h"
#include "../graph/graph.h"
#include "../hwmodel/hw.h"
#include "../report/outcome.h"
#include "../report/stats.h"
#include "../report/trace_hw.h"
#include "../report/trace_json.h"
#include "tiled.h"

#define GRAPH_RUN_MAX_BINDINGS 16

typedef struct graph_run_request {
    const char *bind_name[GRAPH_RUN_MAX_BINDINGS];     /* -t NAME=VALUE */
    const char *bind_value[GRAPH_RUN_MAX_BINDINGS];    /* a file, or a scalar */
    int nbind;
    const char *data;           /* a directory holding every operand, or NULL */
    int shift;                  /* an unbound operand is shift(the one before) */
    int check;                  /* the result against the expression */
    int stats;                  /* keep the statistics of report/stats.h */
    int trace;                  /* keep every block's timeline (engine/trace.h),
                                   or a tiled run's on its hardware
                                   (hwmodel/hw_trace.h) */
    int trace_blocks;           /* --trace-blocks: a tiled run, which has no
                                   blocks' tracks, is refused */
    const char *expr;           /* NULL: the graph's */
    const char *tiling;         /* NULL: the graph's (none: one run) */
    const hw_desc *hw;          /* the memories tiles travel through, or NULL */
    engine_mode engine;
    uint64_t split;             /* the engine's random windows, 0: none */
    uint64_t max_cycles;
    /* --config's settings, then the options', which win; NULL: none. */
    const sim_config *file_settings, *cli_settings;
    sim_progress_fn progress;   /* NULL: none (a run without tiles only) */
    void *progress_ctx;
} graph_run_request;

typedef struct graph_run {
    /* 0: the run completed, its result checked (when asked) and right;
     * 2: it could not complete (report says why, incomplete names it); 3:
     * the check found the result wrong. */
    int status;
    char report[2048];
    const char *incomplete;     /* "deadlock" or "stopped", or NULL */
    cycle_t cycles;
    outcome record;             /* completed: the summary's fields */
    tensor result;              /* completed: the graph's result */
    /* The format in which the result goes into a SAM directory: the
     * graph's, or "" for the default where the graph computed a split
     * tensor and the result is the joined one. */
    char result_format[2 * TENSOR_MAX_ORDER + 1];
    sim_stats *stats;           /* asked for: the statistics, also of a run
                                   that stopped */
    sim_stats own_stats;        /* of a run without tiles */
    /* Asked for (request.trace), also of a run that stopped: a track per
     * block, its timeline taken from the engine. */
    trace_track *tracks;
    block_trace *traces;
    int ntracks;
    trace_counter *counters;    /* the tracks' */
    int ncounters;
    tiled_outcome tiles;        /* of a tiled run */
    int tiled;
} graph_run;

/* Runs g as r asks. Returns -1 with err set when the run cannot start
 * (bad bindings, operands that do not fit the graph) or fails, else 0
 * with run->status saying how it ended; run is freed with graph_run_free
 * either way. g must outlive run's statistics. */
int graph_run_do(sam_graph *g, const graph_run_request *r, graph_run *run, sam_error *err);

/* Writes the timeline of a run asked to keep it (request.trace), also of
 * one that stopped, to path (report/trace_json.h, or for a tiled run
 * report/trace_hw.h at the clock of its memories); name names its
 * process. */
int graph_run_write_trace(const graph_run *run, const char *name, const trace_options *o,
                          const char *path, sam_error *err);

void graph_run_free(graph_run *run);

#endif
