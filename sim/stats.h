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
 */
#ifndef SAMSIM_STATS_H
#define SAMSIM_STATS_H

#include "../common/error.h"
#include "engine.h"

/* Writes the statistics of engine e after a run of `cycles` cycles to path,
 * whole or not at all. */
int sim_stats_write(const sim_engine *e, cycle_t cycles, const char *path, sam_error *err);

/* The same for a run that did not complete, why naming the reason in the
 * run row (NULL: a complete run). */
int sim_stats_write_incomplete(const sim_engine *e, cycle_t cycles, const char *why,
                               const char *path, sam_error *err);

#endif
