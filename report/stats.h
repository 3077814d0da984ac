/* Statistics of a finished run as CSV, written with libcsv: a header row,
 * one `run` row, one row per stream (a channel: one producer port and its
 * readers) and one row per block. A column that does not apply to a row
 * kind is empty.
 *
 *   row           run, stream or block
 *   id            stream: the channel's number in the engine;
 *                 block: the node id; run: empty
 *   type, impl    block: the node type and the implementation that ran
 *   producer      stream: NODE:PORT of the producing block (the [0, D]
 *                 fed to root blocks is not a stream of the graph and has
 *                 no row)
 *   readers       stream: NODE:PORT of each reader, separated by spaces
 *                 (port names are words: letters, digits, _ and -). In
 *                 both columns a node id that is empty or holds a blank
 *                 or a quote is written in quotes, a quote in it doubled
 *                 ("my node":crd_in), so that every DOT id reads back
 *   kind          stream: crd, ref, val or repsig (the graph's edge type);
 *                 run: empty, or why the run did not complete (`deadlock`,
 *                 `stopped` at --max-cycles), the counts then being those
 *                 up to the cycle it stopped in
 *   tokens        stream: tokens pushed; block: tokens it pushed on all
 *                 its outputs; run: token moves over all streams
 *   data          coordinates, references or values (by kind)
 *   stops         stop tokens; stop_s0 .. stop_s2 by level, stop_s3_up the rest
 *   empty, done   N and D tokens
 *   repeat, repeat_stop   R and S tokens of repeat signal streams
 *   first_cycle, last_cycle   stream: cycles of the first and last push;
 *                 block: its first and last busy cycle; run: 0 and the
 *                 last cycle (cycles - 1); empty when there was none
 *   idle_between  stream: cycles between first and last without a push;
 *                 block: cycles between first and last not busy
 *   idle_before, idle_after   cycles of the run before first_cycle and
 *                 after last_cycle
 *   busy          block: cycles occupied by steps that changed something
 *                 (took, emitted or advanced its state); a step occupies the
 *                 block's initiation interval (node attribute ii, 1)
 *   blocked       block: cycles it could not step because an output was
 *                 full, from the refusal until the step after it, counted
 *                 when that step made progress (bounded channels only)
 *   starved       block: cycles up to its last busy one that were neither
 *                 busy nor blocked: it waited on an empty input
 *
 * For a block, busy + starved + blocked + idle_after = the run's cycles.
 *
 * A tiled run (run/tiled.h) runs the graph once per tile point. Its
 * stream and block rows add up every point's counts; their cycles are the
 * run's, each point's shifted to the cycle it started, and first_cycle and
 * last_cycle are the earliest and latest over the points. With pe.count
 * processing elements the cycle columns of a block or stream add up what
 * it did on each PE, so that busy + starved + blocked + idle_after is
 * pe.count times the run's cycles. Its memories add rows:
 *   row=memory    one per memory that holds data (hwmodel/hw.h): id dram, llb
 *                 (when it holds a tiling level; else tiles pass through
 *                 it on DRAM's link) or pe;
 *     units       pe.count for pe (the PEs) and for llb (its ports to
 *                 them), 1 for dram
 *     busy        cycles its links toward the PE moved data, rounded up; for
 *                 pe, the cycles in which its PEs computed a tile point
 *                 (points overlapping in a PE's pipeline count once),
 *                 added up over the PEs (so busy / (units x cycles) is
 *                 how much of the run it was in use)
 *     bytes_read  bytes that left it toward the PE: operand tiles, and
 *                 result tiles read back in
 *     bytes_written   bytes that came into it from inward: result tiles
 *     peak_bytes  most bytes one buffer of it held at once (empty for dram)
 *     capacity_bytes  what one buffer of it holds (empty for dram)
 *   row=lane      one per lane of a parallelized graph (blocks with
 *                 lane=L): id the lane, units its blocks, tokens what
 *                 they pushed, busy the busy cycles of its busiest block
 *   row=tensor    one per tensor (operands, then the result) and tiling
 *                 level held in a buffer: id the tensor, level the tiling
 *                 level (0 outermost), memory the buffer that holds it;
 *     bytes_read  bytes of its tiles moved into that buffer from the memory
 *                 outward (for the result: partial tiles read back in)
 *     bytes_written   the result's tiles moved out of that buffer to the
 *                 memory outward (0 for an operand)
 *     tiles_fetched   tiles moved in (a tile may move in again after it
 *                 was evicted); for the result, tiles written out
 *     tiles_skipped   an operand's non-empty tiles at that level that no
 *                 tile point visited needed, so never moved (0 for the
 *                 result)
 *     peak_bytes  most bytes of its tiles one buffer held at once
 * The columns units, level, memory, bytes_read, bytes_written,
 * tiles_fetched, tiles_skipped, peak_bytes and capacity_bytes are empty in
 * other rows.
 */
#ifndef SAMSIM_STATS_H
#define SAMSIM_STATS_H

#include "../common/error.h"
#include "../engine/engine.h"
#include "../hwmodel/memory.h"

/* What one stream or one block did on one processing element, over the
 * runs placed there. */
typedef struct sim_stats_cell {
    uint64_t tokens;            /* pushed (a block: on all its outputs) */
    uint64_t by_kind[TOKEN_KINDS], stops[CHANNEL_STOP_LEVELS];     /* streams */
    uint64_t blocked;           /* blocks */
    uint64_t active;            /* cycles with a push, or busy cycles */
    cycle_t first, last;        /* the first and last of them, when active */
} sim_stats_cell;

/* The rows of one graph's runs: one run, or a tiled run's points, each
 * placed at the cycle it started on its processing element. The graph
 * the engines were built from must outlive it. */
typedef struct sim_stats {
    int nchannels, nblocks, npe;
    char **ports;               /* per channel, producer and readers (NULL
                                   for the engine's feed of the roots) */
    const char **kinds;         /* per channel */
    const graph_node **nodes;   /* per block */
    const char **impls;
    sim_stats_cell *cells;      /* [pe][channels, then blocks] */
    const mem_model *memory;    /* NULL, or the memories' rows */
    const char *const *names;   /* with memory: its tensors' names */
} sim_stats;

/* Statistics of the graph engine e was built from, for npe PEs. */
int sim_stats_init(sim_stats *s, const sim_engine *e, int npe, sam_error *err);

/* Adds what engine e did to processing element pe's, its cycles from
 * start on. */
void sim_stats_add(sim_stats *s, const sim_engine *e, int pe, cycle_t start);

/* Writes the rows to path, whole or not at all, for a run of `cycles`;
 * why names the reason a run did not complete (NULL: it did). */
int sim_stats_write_rows(const sim_stats *s, cycle_t cycles, const char *why, const char *path,
                         sam_error *err);

void sim_stats_free(sim_stats *s);

/* The statistics of engine e after a run of `cycles` cycles, to path. */
int sim_stats_write(const sim_engine *e, cycle_t cycles, const char *path, sam_error *err);

/* The same for a run that did not complete, why naming the reason in the
 * run row (NULL: a complete run). */
int sim_stats_write_incomplete(const sim_engine *e, cycle_t cycles, const char *why,
                               const char *path, sam_error *err);

#endif
