/* Tiles through the processing element's pipeline: its blocks take the
 * tile points in order, each block starting on a tile once it is done with
 * the tile before, as the blocks of the SAM simulator's tiled graphs move
 * on to their next tile each on its own. So consecutive tiles overlap as
 * far as their first blocks free up early: a tile may start at the first
 * cycle at which every block it keeps busy is through with the tiles
 * before, its own run's timing shifted whole.
 *
 * Streamed (pe.stream), a block's queues keep the next tile's tokens while
 * it finishes the tile before, as each block of the SAM artifact's
 * pipelined tiled graphs is handed its next tile, its input FIFO kept,
 * once it is done with its current one: a block then ends a tile no
 * sooner than in the tile's own run (its inputs come no sooner) and no
 * sooner than its busy cycles on the tile after it ended the tile before;
 * its work moves into the cycles it waited on its inputs. For a block
 * that takes one token a cycle, in order, that end is exact: the tile's
 * last token leaves at the later of the two. A tile's start is where its
 * own run's timing puts every block's end; the blocks before the end may
 * have taken its first tokens earlier. */
#ifndef SAMSIM_PIPELINE_H
#define SAMSIM_PIPELINE_H

#include "../common/error.h"
#include "../engine/engine.h"

typedef struct pipeline {
    int nblocks;
    cycle_t *free_from;     /* per block: the cycle after its last busy one */
    cycle_t last_start;     /* the start of the tile before, +1: none yet */
    cycle_t end;            /* when the tiles so far are all done */
    int stream;             /* 1: streamed, the tiles' work overlapping in each
                               block (pe.stream); pipeline_init sets 0 */
} pipeline;

int pipeline_init(pipeline *p, int nblocks, sam_error *err);

/* The first cycle the tile that engine e ran (from cycle 0) may start. */
cycle_t pipeline_earliest(const pipeline *p, const sim_engine *e);

/* The tile e ran, of `cycles` cycles, starts at start. */
void pipeline_place(pipeline *p, const sim_engine *e, cycle_t start, cycle_t cycles);

void pipeline_free(pipeline *p);

#endif
