/* The statistics CSV of `samsim run --stats` (format in stats.h) read back
 * into structs, and the analyses `samsim stats` and `samsim render` make
 * of it. Columns are found by their header name, so the writer may add
 * columns and reorder them; a column this reader uses must be present.
 *
 * Definitions used by the analyses:
 *   utilisation       a block's busy cycles / the run's cycles
 *   control share     a stream's stops + empty + done + repeat_stop tokens
 *                     / its tokens: what the stream spends on structure
 *                     rather than on coordinates, references, values and
 *                     repeat signals
 *   idle share        a stream's idle_before + idle_between + idle_after
 *                     / the run's cycles: the cycles it carried nothing
 *   critical chain    from the block whose last busy cycle is the latest
 *                     (the last one to finish), repeatedly to the producer
 *                     of its input stream whose last push is the latest
 *                     (the input that arrived last), until a block without
 *                     produced inputs (a root, fed by the engine); ties go
 *                     to the producer that finished later, then to the
 *                     earlier row. */
#ifndef SAMSIM_STATS_TABLE_H
#define SAMSIM_STATS_TABLE_H

#include <stdint.h>

#include "../common/error.h"

/* first_cycle and last_cycle are empty in the file when there was none. */
typedef struct stats_span {
    int active;             /* 0: no push (stream) or no busy cycle (block) */
    uint64_t first, last;
    uint64_t idle_before, idle_between, idle_after;
} stats_span;

typedef struct stats_port {
    char *node;             /* the node id */
    char *port;             /* the port name */
} stats_port;

typedef struct stats_stream {
    long line;              /* in the file, for messages */
    char *id;
    stats_port producer;
    stats_port *readers;
    int nreaders;
    char *kind;
    uint64_t tokens, data, stops, empty, done, repeat, repeat_stop;
    stats_span span;
} stats_stream;

typedef struct stats_block {
    long line;
    char *id, *type, *impl;
    uint64_t tokens, busy, starved, blocked;
    stats_span span;
} stats_block;

typedef struct stats_table {
    uint64_t cycles;        /* the run row's last_cycle + 1, 0 without one */
    uint64_t tokens;        /* token moves of the run */
    char *incomplete;       /* why the run stopped early ("deadlock", "stopped"), or
                               NULL: it completed */
    stats_stream *streams;  /* in file order */
    int nstreams;
    stats_block *blocks;    /* in file order */
    int nblocks;
} stats_table;

/* Reads the file at path, whole or not at all: on error t is left empty
 * and err holds one line "PATH:LINE: problem" (a column missing from the
 * header, a field count different from the header's, an unknown row kind,
 * a non-number in a numeric column, a malformed NODE:PORT, no or two run
 * rows, a run row's kind other than empty, deadlock or stopped, malformed
 * CSV). */
int stats_table_read(const char *path, stats_table *t, sam_error *err);

void stats_table_free(stats_table *t);

/* Index of the block row of node id, or -1. */
int stats_table_block_find(const stats_table *t, const char *id);

/* 1 when stream s has a reader on node id. */
int stats_stream_reads(const stats_stream *s, const char *id);

double stats_block_utilisation(const stats_table *t, const stats_block *b);
double stats_stream_control_share(const stats_stream *s);
double stats_stream_idle_share(const stats_table *t, const stats_stream *s);

/* Indices of the blocks by busy cycles and of the streams by tokens, most
 * first, ties in file order; malloc'd (NULL with err set when memory ran
 * out, or for an empty list). */
int *stats_table_blocks_by_busy(const stats_table *t, sam_error *err);
int *stats_table_streams_by_tokens(const stats_table *t, sam_error *err);

/* The critical chain as block indices from the root to the last block to
 * finish; malloc'd, its length in *n (0 and NULL without active blocks).
 * Returns -1 with err set when memory ran out. */
int stats_table_critical_chain(const stats_table *t, int **chain, int *n, sam_error *err);

#endif
