/* Tiles through the processing element's pipeline: its blocks take the
 * tile points in order, each block starting on a tile once it is done with
 * the tile before, as the blocks of the SAM simulator's tiled graphs move
 * on to their next tile each on its own. So consecutive tiles overlap as
 * far as their first blocks free up early: a tile may start at the first
 * cycle at which every block it keeps busy is through with the tiles
 * before, its own run's timing shifted whole. */
#ifndef SAMSIM_PIPELINE_H
#define SAMSIM_PIPELINE_H

#include "../common/error.h"
#include "engine.h"

typedef struct pipeline {
    int nblocks;
    cycle_t *free_from;     /* per block: the cycle after its last busy one */
    cycle_t last_start;     /* the start of the tile before, +1: none yet */
    cycle_t end;            /* when the tiles so far are all done */
} pipeline;

int pipeline_init(pipeline *p, int nblocks, sam_error *err);

/* The first cycle the tile that engine e ran (from cycle 0) may start. */
cycle_t pipeline_earliest(const pipeline *p, const sim_engine *e);

/* The tile e ran, of `cycles` cycles, starts at start. */
void pipeline_place(pipeline *p, const sim_engine *e, cycle_t start, cycle_t cycles);

void pipeline_free(pipeline *p);

#endif
