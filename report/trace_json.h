/* A traced run (engine/trace.h) as Trace Event Format JSON, the format
 * Perfetto's UI and chrome://tracing open: one process for the graph, a
 * thread (track) per block named by its node id, type, index and tensor,
 * and on it complete events ("ph": "X") named busy, blocked and starved,
 * one per span, in cycle order, never overlapping:
 *
 *   busy      steps that changed the block (its busy cycles in --stats)
 *   blocked   refused for a full output, until a step went through
 *   starved   waiting for input: the other cycles up to its last busy one
 *             (the starved column of --stats), from cycle 0
 *
 * Each reader of each stream has a counter ("ph": "C") named "stream N:
 * NODE:PORT -> NODE:PORT" (N its row in --stats), whose "tokens" are
 * those pushed that the reader has yet to take: at the start of each
 * bucket of cycles, their mean over it, where that changes (a window
 * starts at its first cycle with the mean of the bucket there). A run
 * keeps at most 2048 buckets, of a power of two cycles
 * (engine/queue_trace.h).
 *
 * Time stamps ("ts", "dur") are in cycles, shown by the viewers as
 * microseconds; with a clock (GHz > 0) they are microseconds at it. The
 * run's cycles, the clock and the unit are in "otherData". */
#ifndef SAMSIM_TRACE_JSON_H
#define SAMSIM_TRACE_JSON_H

#include <stdio.h>

#include "../common/error.h"
#include "../engine/trace.h"
#include "../graph/graph.h"

/* A reader's queue of a stream: token-cycles per bucket of width cycles,
 * the last bucket cut at the run's end. */
typedef struct trace_counter {
    char *name;                 /* as a JSON string, quoted */
    const graph_node *producer, *reader;
    uint64_t *token_cycles;
    uint64_t nbuckets, width;
} trace_counter;

/* A block's track: its node and its timeline, and the queues of its
 * inputs. */
typedef struct trace_track {
    const graph_node *node;
    const block_trace *spans;
    const trace_counter *counters;
    int ncounters;
} trace_track;

typedef struct trace_options {
    /* Only the cycles from..to-1 (each span cut to them); to 0: to the end. */
    uint64_t from, to;
    /* Only the blocks whose node id or type is one of these words,
     * separated by commas, and the queues between them and any block;
     * NULL: every block. */
    const char *blocks;
    double clock_ghz;       /* 0: time in cycles */
} trace_options;

/* s as a JSON string: quotes, backslashes and control characters escaped. */
void trace_json_string(FILE *f, const char *s);

/* Whether a --trace-blocks list is well formed: words separated by
 * commas, none empty. */
int trace_blocks_valid(const char *list, sam_error *err);

/* Names c for stream `stream` from its producer's port out_port to its
 * reader's port in_port (c->producer and c->reader set); -1 when memory
 * runs out. */
int trace_counter_name(trace_counter *c, int stream, const char *out_port, const char *in_port);

/* Writes n tracks of a run of cycles to path, whole or not at all; name
 * names the process (the graph). */
int trace_json_write(const trace_track *tracks, int n, const char *name, uint64_t cycles,
                     const trace_options *o, const char *path, sam_error *err);

#endif
