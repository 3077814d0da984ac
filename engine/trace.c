#include "trace.h"

#include <stdlib.h>

#include "../common/grow.h"

int block_trace_add(block_trace *t, trace_state state, trace_cycle from, trace_cycle to)
{
    if (from >= to)
        return 0;
    trace_span *last = t->n ? &t->span[t->n - 1] : NULL;
    if (last && last->state == state && last->to == from) {
        last->to = to;
        return 0;
    }
    trace_span *s = grow_array(t->span, t->n, &t->cap, sizeof *s, 16);
    if (!s)
        return -1;
    t->span = s;
    s[t->n++] = (trace_span){from, to, state};
    return 0;
}

void block_trace_cut(block_trace *t, trace_cycle end)
{
    while (t->n && t->span[t->n - 1].from >= end)
        t->n--;
    if (t->n && t->span[t->n - 1].to > end)
        t->span[t->n - 1].to = end;
}

void block_trace_free(block_trace *t)
{
    free(t->span);
    *t = (block_trace){0};
}
