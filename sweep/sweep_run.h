/* Running a sweep's jobs and gathering their rows: locally with GNU
 * parallel, through a Slurm job array's script, or a chunk of them in
 * this process, each job as `samsim sweep --job DIR N` (sweep_job.h).
 * The modes that write into the directory hold its lock (sweep_lock.h).
 * samsim keeps no scheduler of its own. */
#ifndef SAMSIM_SWEEP_RUN_H
#define SAMSIM_SWEEP_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/error.h"
#include "sweep_plan.h"
#include "sweep_store.h"

typedef struct sweep_run {
    const char *dir;        /* the sweep directory, made where missing */
    const char *self;       /* the samsim binary the jobs run */
    int jobs;               /* local: jobs at a time */
    int64_t array_max;      /* Slurm: array tasks at most */
    FILE *log;              /* counts, progress and warnings; a terminal's
                               progress is one line rewritten in place */
} sweep_run;

/* Writes the plan into r->dir, runs the jobs not complete with GNU
 * parallel (which must be GNU's), and gathers every job's row
 * (sweep_store_collect) into *tally. *stop receives a stop signal that
 * came (process.h); the jobs not done then run on the next sweep. */
int sweep_run_local(const sweep_run *r, sweep_plan *plan, int *stop, sweep_tally *tally,
                    sam_error *err);

/* The script sweep_run_slurm wrote and how it splits the jobs. */
typedef struct sweep_slurm_script {
    char dir[SWEEP_PATH];   /* the sweep directory, absolute */
    char path[SWEEP_PATH];  /* DIR/sweep.sbatch */
    int64_t tasks, chunk;   /* array tasks, and jobs to each */
} sweep_slurm_script;

/* Writes the plan into r->dir and DIR/sweep.sbatch, an array task per
 * chunk of jobs, their logs in DIR/slurm. The directory must need no
 * quoting in #SBATCH lines (no blank, quote, % or $): it is refused
 * before it is made. */
int sweep_run_slurm(const sweep_run *r, sweep_plan *plan, sweep_slurm_script *script,
                    sam_error *err);

/* The fewest array tasks of at most array_max, and the jobs to each, that
 * run njobs jobs. */
void sweep_slurm_split(size_t njobs, int64_t array_max, int64_t *tasks, int64_t *chunk);

/* sweep.sbatch's text for sweep dir (absolute) and the binary self. */
void sweep_sbatch_write(FILE *f, const char *dir, const char *self, size_t njobs,
                        int64_t tasks, int64_t chunk);

/* Runs job first of dir and those after it, count in all, while they
 * exist (the last array task's chunk may be short); self is the samsim
 * binary. */
int sweep_run_jobs(const char *dir, size_t first, size_t count, const char *self,
                   sam_error *err);

/* dir/pending.txt: the plan's jobs not complete, one number a line; its
 * path into path and their count into *n. */
int sweep_write_pending(const char *dir, sweep_plan *plan, char path[SWEEP_PATH], size_t *n,
                        sam_error *err);

/* Gathers the rows of the sweep in dir (which must have a jobs.csv) under
 * its lock, as sweep_store_collect. */
int sweep_run_collect(const char *dir, sweep_tally *tally, FILE *warnings, sam_error *err);

#endif
