/* A block's timeline, kept while a run is traced (--trace): the stretches
 * in which it was busy (a step that changed it, ii cycles each) and
 * blocked (refused for a full output until a step went through), in
 * cycle order, each joined to the one before it when they touch and
 * agree, so that a block busy for a million cycles in a row is one span.
 * The cycles in between, up to its last busy one, it waited for input
 * (starved), as report/stats.h counts them. The engine records through
 * block.h (block_changed); report/trace_json.h writes them out. */
#ifndef SAMSIM_TRACE_H
#define SAMSIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t trace_cycle;

typedef enum { TRACE_BUSY, TRACE_BLOCKED, TRACE_STATES } trace_state;

typedef struct trace_span {
    trace_cycle from, to;       /* cycles from..to-1 */
    trace_state state;
} trace_span;

typedef struct block_trace {
    trace_span *span;
    size_t n, cap;
} block_trace;

/* Appends cycles from..to-1 in state, from at or after the last span's
 * end, joined to that span when it ends at from in the same state; -1
 * when memory runs out. */
int block_trace_add(block_trace *t, trace_state state, trace_cycle from, trace_cycle to);

/* Drops whatever lies at or after cycle end: a block that ran ahead past
 * the end of the run (block_close_stats trims its statistics alike). */
void block_trace_cut(block_trace *t, trace_cycle end);

void block_trace_free(block_trace *t);

#endif
