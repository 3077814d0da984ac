#include "pipeline.h"

#include <stdlib.h>

int pipeline_init(pipeline *p, int nblocks, sam_error *err)
{
    p->nblocks = nblocks;
    p->free_from = calloc((size_t)nblocks + 1, sizeof *p->free_from);
    p->last_start = 0;
    p->end = 0;
    return p->free_from ? 0 : error_set(err, "out of memory");
}

cycle_t pipeline_earliest(const pipeline *p, const sim_engine *e)
{
    cycle_t earliest = p->end ? p->last_start : 0;
    for (int b = 0; b < e->nblocks && b < p->nblocks; b++) {
        const block_stats *s = &e->blocks[b].stats;
        if (s->busy && p->free_from[b] > s->first_busy + earliest)
            earliest = p->free_from[b] - s->first_busy;
    }
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
