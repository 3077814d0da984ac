/* A sweep's directory: what it was asked to run and what each job gave.
 *
 *   jobs.csv          the jobs: number, parameters, hash
 *   jobs/N.job        job N's keys (key,value rows), hash first
 *   results/HASH.csv  a job's outcome and summary (key,value rows)
 *   results.csv       every job's row, gathered by sweep_store_collect
 *   data/             tensors generated for the jobs, shared between them
 *   work/HASH/        a running job's files, removed when it ends
 *   sweep.lock        locked by the sweep that writes here (sweep_lock.h)
 *
 * Results are named by the job's hash, not its number, so a spec that is
 * extended or reordered keeps what already ran. Every file appears whole
 * or not at all: an interrupted job has no result and runs again. A job
 * is complete when it ran to an end a rerun would repeat (ok, or stopped
 * at max-cycles or a deadlock); a failed, timed-out or killed job runs
 * again. */
#ifndef SAMSIM_SWEEP_STORE_H
#define SAMSIM_SWEEP_STORE_H

#include <stddef.h>
#include <stdio.h>

#include "../common/csv_table.h"
#include "../common/error.h"
#include "sweep_plan.h"

#define SWEEP_PATH 4096

/* Makes dir and its subdirectories where missing. */
int sweep_store_create(const char *dir, sam_error *err);

/* Writes the plan into dir (made by sweep_store_create); dir keeps its
 * results and data. */
int sweep_store_prepare(const char *dir, sweep_plan *plan, sam_error *err);

/* Prints the plan as jobs.csv holds it (job, parameters, hash) on f. */
int sweep_store_print_list(sweep_plan *plan, FILE *f, sam_error *err);

/* A job read back from its job file; job's strings live in table. */
typedef struct sweep_job_file {
    sweep_job job;
    csv_table table;
    sweep_pair *pairs;
} sweep_job_file;

/* Job index's keys and hash, from its job file. */
int sweep_store_load_job(const char *dir, size_t index, sweep_job_file *f, sam_error *err);

void sweep_job_file_free(sweep_job_file *f);

/* Whether dir has a job of this number. */
int sweep_store_has_job(const char *dir, size_t index);

/* "dir/name" into buf; -1 with err set when it does not fit. */
int sweep_store_path(char *buf, const char *dir, const char *name, sam_error *err);

/* Whether the job of this hash is complete (see above). */
int sweep_store_done(const char *dir, const char *hash);

/* The status of a job whose run exited with status 2 (it stopped at
 * max-cycles or deadlocked): complete, not failed. */
#define SWEEP_STOPPED "stopped"

/* Writes key,value rows to path, all or nothing. */
int sweep_store_write_pairs(const char *path, const sweep_pair *pairs, size_t n,
                            sam_error *err);

/* What collect counted. */
typedef struct sweep_tally {
    size_t ok, stopped, failed, pending;
} sweep_tally;

/* Writes dir/results.csv from dir/jobs.csv: one row per job, in order: its
 * number and parameters, status (ok, stopped, failed, timeout, or pending
 * when it has no result), exit status, every summary value any job
 * printed, job_seconds and error. A result that cannot be read is named
 * on warnings and its job's row is pending, with the problem as its
 * error. */
int sweep_store_collect(const char *dir, sweep_tally *tally, FILE *warnings, sam_error *err);

#endif
