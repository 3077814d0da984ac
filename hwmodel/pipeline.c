#include "pipeline.h"

#include <stdlib.h>

int pipeline_init(pipeline *p, int nblocks, sam_error *err)
{
    p->nblocks = nblocks;
    p->free_from = calloc((size_t)nblocks + 1, sizeof *p->free_from);
    p->last_start = 0;
    p->end = 0;
    p->stream = 0;
    return p->free_from ? 0 : error_set(err, "out of memory");
}

/* The first start, no sooner than earliest, that leaves block b, busy
 * as s says, through with the tiles before: drained, its first busy cycle
 * after them; streamed, its end its busy cycles after theirs. */
static cycle_t block_earliest(const pipeline *p, int b, const block_stats *s, cycle_t earliest)
{
    if (!s->busy)
        return earliest;
    cycle_t need = p->stream ? p->free_from[b] + s->busy : p->free_from[b];
    cycle_t from = p->stream ? s->last_busy + 1 : s->first_busy;
    return need > from + earliest ? need - from : earliest;
}

cycle_t pipeline_earliest(const pipeline *p, const sim_engine *e)
{
    cycle_t earliest = p->end ? p->last_start : 0;
    for (int b = 0; b < e->nblocks && b < p->nblocks; b++)
        earliest = block_earliest(p, b, &e->blocks[b].stats, earliest);
    return earliest;
}

void pipeline_place(pipeline *p, const sim_engine *e, cycle_t start, cycle_t cycles)
{
    for (int b = 0; b < e->nblocks && b < p->nblocks; b++) {
        const block_stats *s = &e->blocks[b].stats;
        if (s->busy)
            p->free_from[b] = start + s->last_busy + 1;
    }
    p->last_start = start;
    if (start + cycles > p->end)
        p->end = start + cycles;
}

void pipeline_free(pipeline *p)
{
    free(p->free_from);
    p->free_from = NULL;
}
