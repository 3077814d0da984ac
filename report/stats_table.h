/* The statistics CSV of `samsim run --stats` (format in stats.h) read back
 * into structs, and the analyses `samsim stats` and `samsim render` make
 * of it. Columns are found by their header name, so the writer may add
 * columns and reorder them; a column this reader uses must be present.
 *
 * The columns of a tiled run's memory and tensor rows may be missing from
 * the header, so that files written before them read; a memory or tensor
 * row needs them.
 *
 * Definitions used by the analyses:
 *   PE cycles         the run's cycles times its processing elements
 *                     (the pe memory row's units; 1 without one): a
 *                     block's or stream's cycles add up over the PEs
 *   utilisation       a block's busy cycles / the PE cycles; a memory's
 *                     busy cycles / (its units x the run's cycles), as
 *                     its busy cycles add up over its units
 *   control share     a stream's stops + empty + done + repeat_stop tokens
 *                     / its tokens: what the stream spends on structure
 *                     rather than on coordinates, references, values and
 *                     repeat signals
 *   idle share        a stream's idle_before + idle_between + idle_after
 *                     / the PE cycles: the cycles it carried nothing
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

/* A lane of a parallelized graph (report/stats.h, row=lane). */
typedef struct stats_lane {
    char *id;
    uint64_t blocks, tokens, busy;
} stats_lane;

/* A memory of a tiled run's hardware (hwmodel/hw.h). */
typedef struct stats_memory {
    long line;
    char *id;               /* dram, llb or pe */
    uint64_t units;         /* how many there are, at least 1 */
    uint64_t busy;          /* cycles in use, added up over the units */
    uint64_t bytes_read, bytes_written;
    int has_peak;           /* 0: peak_bytes is empty (dram has none) */
    uint64_t peak_bytes;
    int has_capacity;       /* 0: none given (dram, or an older file) */
    uint64_t capacity;      /* bytes one buffer holds */
} stats_memory;

/* One tensor's tiles at one tiling level of a tiled run. */
typedef struct stats_tensor_level {
    long line;
    char *tensor;           /* the tensor's name */
    uint64_t level;         /* 0 outermost */
    char *memory;           /* the buffer holding them: llb or pe */
    uint64_t bytes_read, bytes_written, tiles_fetched, tiles_skipped, peak_bytes;
} stats_tensor_level;

typedef struct stats_table {
    uint64_t cycles;        /* the run row's last_cycle + 1, 0 without one */
    uint64_t tokens;        /* token moves of the run */
    char *incomplete;       /* why the run stopped early ("deadlock", "stopped"), or
                               NULL: it completed */
    stats_stream *streams;  /* in file order */
    int nstreams;
    stats_block *blocks;    /* in file order */
    int nblocks;
    stats_lane *lanes;      /* in file order; none but of a parallelized graph */
    int nlanes;
    stats_memory *memories; /* in file order; none but of a tiled run */
    int nmemories;
    stats_tensor_level *levels;     /* in file order; none but of a tiled run */
    int nlevels;
} stats_table;

/* Reads the file at path, whole or not at all: on error t is left empty
 * and err holds one line "PATH:LINE: problem" (a column missing from the
 * header or, for a memory or tensor row, one it needs; a field count
 * different from the header's, an unknown row kind, a non-number in a
 * numeric column, a malformed NODE:PORT, no or two run rows, a run row's
 * kind other than empty, deadlock or stopped, two rows for one block, one
 * memory or one tensor's level, a memory other than dram, llb or pe or of
 * no units, a tensor held in a memory other than llb or pe or, when there
 * are memory rows, in one without a row; malformed CSV). */
int stats_table_read(const char *path, stats_table *t, sam_error *err);

void stats_table_free(stats_table *t);

/* Index of the block row of node id, or -1. */
int stats_table_block_find(const stats_table *t, const char *id);

/* 1 when stream s has a reader on node id. */
int stats_stream_reads(const stats_stream *s, const char *id);

double stats_block_utilisation(const stats_table *t, const stats_block *b);
double stats_memory_utilisation(const stats_table *t, const stats_memory *m);
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
