/* One job of a sweep, run where GNU parallel or a Slurm array task starts
 * it: `samsim sweep --job DIR N`. Its steps (generating operands,
 * compiling or writing a template, the run) are samsim processes of their
 * own, so that a job that fails, crashes or runs out of time leaves a row
 * saying so. */
#ifndef SAMSIM_SWEEP_JOB_H
#define SAMSIM_SWEEP_JOB_H

#include <stddef.h>

#include "../common/error.h"

/* Runs job index of the sweep in dir, unless it is complete
 * (sweep_store.h), and writes its result; self is the samsim binary.
 * Prints one line on standard output: "INDEX<tab>STATUS<tab>CYCLES<tab>
 * ERROR" (STATUS "done" when it was complete before). -1 only when the
 * sweep directory fails it. */
int sweep_job_run(const char *dir, size_t index, const char *self, sam_error *err);

#endif
