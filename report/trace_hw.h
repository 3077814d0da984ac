/* A tiled run's timeline on its hardware (hwmodel/hw_trace.h) as Trace
 * Event Format JSON, as report/trace_json.h writes a run without tiles: a
 * process for the hardware, a thread (track) per processing element with
 * its tile points, and one per link with its transfers, complete events
 * ("ph": "X"); a point's args count the points a slice holds when it
 * holds several, a transfer's give its bytes, the memory it goes to and,
 * for several, how many and the cycles they occupied the link. Slices of
 * a track that overlap (points overlapping in a PE's pipeline) go to
 * further threads of it, "pe 0 #2", so that each thread's slices follow
 * each other as the viewers need.
 *
 * A template's phases, which run one after the other, are a process each,
 * laid end to end in time, each with a track "phase" holding one slice
 * named by the phase. Time stamps are cycles, or microseconds at each
 * process's clock when it has one; otherData gives the run's cycles, the
 * (first) clock and the unit. --trace-window cuts the slices to its
 * cycles, counted over the phases end to end. */
#ifndef SAMSIM_TRACE_HW_H
#define SAMSIM_TRACE_HW_H

#include "../hwmodel/hw_trace.h"
#include "trace_json.h"

typedef struct trace_hw_process {
    const char *name;           /* the graph, or the template and phase */
    const char *phase;          /* a phase's name: its track's slice; NULL: none */
    const hw_trace *trace;
    uint64_t cycles;            /* its own */
    double clock_ghz;           /* 0: time in cycles */
} trace_hw_process;

/* Writes n processes, one after the other in time, to path, whole or not
 * at all, cut to o's window (each process has its clock). */
int trace_hw_write(const trace_hw_process *p, int n, const trace_options *o, const char *path,
                   sam_error *err);

#endif
