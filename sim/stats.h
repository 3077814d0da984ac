/* Token statistics of a finished run, one CSV row per stream (a channel:
 * one producer port, its readers), written with libcsv:
 *
 *   stream        the channel's number in the engine
 *   producer      NODE:PORT of the producing block (the [0, D] fed to
 *                 root blocks is not a stream of the graph and has no row)
 *   readers       NODE:PORT of each reader, separated by spaces
 *   kind          crd, ref, val or repsig (the graph's edge type)
 *   tokens        every token pushed
 *   data          coordinates, references or values (by kind)
 *   stops         stop tokens; stop_s0 .. stop_s2 by level, stop_s3_up the rest
 *   empty, done   N and D tokens
 *   repeat, repeat_stop   R and S tokens of repeat signal streams
 *   first_cycle, last_cycle   cycles of the first and last push (empty when
 *                 nothing was pushed)
 *   idle_between  cycles between those two that carried nothing
 *   idle_before, idle_after   cycles of the run before the first push and
 *                 after the last one
 */
#ifndef SAMSIM_STATS_H
#define SAMSIM_STATS_H

#include "../common/error.h"
#include "engine.h"

/* Writes the statistics of engine e after a run of `cycles` cycles to path,
 * whole or not at all. */
int sim_stats_write(const sim_engine *e, cycle_t cycles, const char *path, sam_error *err);

#endif
