/* The simulation: blocks and the channels between them, stepped in time.
 * Event-driven by default: a block is stepped only in cycles where it can
 * have something to do (it changed in the previous cycle or a token became
 * visible to it). With unbounded channels on an acyclic graph each block
 * runs ahead on its own clock, in topological order, as far as its inputs
 * are final; otherwise a queue of per-cycle wake-ups drives the blocks.
 * The cycle engine steps every block every cycle. All give the same
 * cycles, outputs and statistics: a step that changes nothing would change
 * nothing again until new input arrives. */
#ifndef SAMSIM_ENGINE_H
#define SAMSIM_ENGINE_H

#include <stdio.h>

#include "../common/error.h"
#include "block.h"
#include "channel.h"

typedef enum { ENGINE_EVENT, ENGINE_CYCLE } engine_mode;

struct sim_engine;

/* Called now and then during a run (every few thousand cycles), to show
 * progress; now is the cycle the run has reached. */
typedef void (*sim_progress_fn)(const struct sim_engine *e, cycle_t now, void *ctx);

typedef struct sim_engine {
    block *blocks;
    int nblocks;
    channel *channels;
    int nchannels;
    int nsinks;
    /* Event scheduling: a ring of per-cycle lists of blocks to step. */
    int nslots;
    int **slot_blocks;
    int *slot_count, *slot_cap;
    cycle_t *woken_for;      /* per block and slot: the cycle it is listed for */
    int bounded;             /* some channel has a capacity */
    int failed;
    sim_progress_fn progress;   /* NULL: none */
    void *progress_ctx;
} sim_engine;

typedef struct sim_outcome {
    cycle_t cycles;          /* the cycle in which the last sink took D, plus one */
    uint64_t tokens;         /* token moves over all channels */
    int deadlocked;
} sim_outcome;

/* Sets up scheduling once blocks and channels exist. */
int sim_engine_start(sim_engine *e, sam_error *err);

/* Token moves so far over all channels. */
uint64_t sim_engine_tokens(const sim_engine *e);

/* Runs until every sink is done (0), or until nothing can happen any more
 * (1, deadlock: out has the cycle; report describes who waits on what), or
 * max_cycles pass (1). -1 on running out of memory. */
int sim_engine_run(sim_engine *e, engine_mode mode, cycle_t max_cycles, sim_outcome *out,
                   char *report, size_t report_size, sam_error *err);

void sim_engine_free(sim_engine *e);

#endif
