/* The simulation: blocks and the channels between them, in time. By
 * default each block runs ahead on its own clock (engine/block.h's
 * block_run, or the block's own run), as far as its inputs are final and
 * its bounded outputs have room; bounded channels and cyclic graphs
 * included. The cycle engine steps every block every cycle and is the
 * reference answer. Both give the same cycles, outputs and statistics: a
 * step that changes nothing would change nothing again until new input
 * arrives, and room in a bounded channel is decided by the cycles of the
 * pops that made it, not by when the reader was simulated. */
#ifndef SAMSIM_ENGINE_H
#define SAMSIM_ENGINE_H

#include <stdio.h>

#include "../common/error.h"
#include "block.h"
#include "channel.h"

/* event: run-ahead, with each block's own run where it has one; step:
 * run-ahead with every block through the adapter over its step, the check
 * that native runs keep the contract; cycle: every block every cycle. */
typedef enum { ENGINE_EVENT, ENGINE_STEP, ENGINE_CYCLE, ENGINE_MODES } engine_mode;

extern const char *const engine_names[ENGINE_MODES];

struct sim_engine;

/* Called now and then during a run (every few thousand cycles), to show
 * progress; now is the cycle the run has reached. */
typedef void (*sim_progress_fn)(const struct sim_engine *e, cycle_t now, void *ctx);

typedef struct sim_engine {
    block *blocks;
    int nblocks;
    int block_room;          /* blocks the array has room for */
    channel *channels;
    int nchannels;
    int channel_room;        /* channels the array has room for: the
                                feedback streams go in without moving it */
    int bounded;             /* some channel has a capacity */
    /* A check of the run contract: nonzero seeds random window ends,
     * so that blocks run to arbitrary cycles, which must change nothing. */
    uint64_t split;
    int failed;
    sim_progress_fn progress;   /* NULL: none */
    void *progress_ctx;
    /* Run-ahead's schedule of this wiring (engine.c): made at the first
     * run and kept, since a re-armed engine runs the same wiring again;
     * sim_engine_clear drops it. */
    struct ahead *ahead;
    block_trace *traces;     /* per block, while traced (sim_engine_trace) */
} sim_engine;

typedef struct sim_outcome {
    cycle_t cycles;          /* the cycle in which the last sink took D, plus one */
    uint64_t tokens;         /* token moves over all channels */
    int deadlocked;
} sim_outcome;

/* Sets up scheduling once blocks and channels exist. */
void sim_engine_start(sim_engine *e);

/* Keeps every block's timeline (engine/trace.h) and the queues of every
 * stream's readers (engine/queue_trace.h, channel.trace) from now on, for
 * a built engine before its run, both cut at the run's end; -1 when
 * memory runs out. */
int sim_engine_trace(sim_engine *e);

/* Token moves so far over all channels. */
uint64_t sim_engine_tokens(const sim_engine *e);

/* The most cycles a run goes: a channel entry holds cycles below
 * CHANNEL_MAX_CYCLE, 2^43, and a window or a latency goes past the run's
 * limit by far less than as much again. */
#define ENGINE_MAX_CYCLES (CHANNEL_MAX_CYCLE / 2)

/* Runs until every sink is done (0), or until nothing can happen any more
 * (1, deadlock: out has the cycle; report describes who waits on what), or
 * max_cycles pass (1; at most ENGINE_MAX_CYCLES). -1 on running out of
 * memory. */
int sim_engine_run(sim_engine *e, engine_mode mode, cycle_t max_cycles, sim_outcome *out,
                   char *report, size_t report_size, sam_error *err);

void sim_engine_free(sim_engine *e);

/* The run's timing read as that of a datapath `rate` tokens wide, which
 * does in one cycle what the run did in rate: the blocks' and channels'
 * cycle counts over rate, rounded up, their first and last cycles
 * rounded down; *cycles likewise. Token counts stay. */
void sim_engine_widen(sim_engine *e, uint64_t rate, cycle_t *cycles);

/* Frees what the blocks and channels hold, as sim_engine_free does, but
 * keeps the block and channel arrays for the next build into e
 * (sim_build_planned): a tiled run builds an engine per tile point, and
 * allocating and freeing the arrays each time had the C library give
 * the memory back to the system and take it again at every point. */
void sim_engine_clear(sim_engine *e);

#endif
