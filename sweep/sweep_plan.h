/* The jobs a sweep spec (sweep_spec.h) expands to: every combination of
 * its sections and alternatives, the first group varying slowest, then
 * the keys in the order listed, the last fastest.
 *
 * A job is one `samsim run`: a graph given (`graph`), compiled (`expr`,
 * `format`, `schedule`) or a template written (`template`,
 * `template.KEY`), its operands (`tensor.NAME` = FILE, a number, or `gen
 * KIND ARGS...` for samsim gen), and run's options.
 *
 * Jobs are made one at a time from their number, never all held at once:
 * a spec of a few lines may stand for a million jobs, and listing them
 * costs what writing them out does. */
#ifndef SAMSIM_SWEEP_PLAN_H
#define SAMSIM_SWEEP_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "sweep_keys.h"

typedef struct sweep_pair {
    const char *key, *value;
} sweep_pair;

/* One job: the keys its run reads, resolved (references replaced, paths
 * absolute) and sorted by key; its value in each of the plan's columns;
 * and the hash of its keys, which names its files. The strings belong to
 * whoever filled it in. */
typedef struct sweep_job {
    const sweep_pair *keys;
    size_t nkeys;
    const char *const *params;  /* NULL when read back from a job file */
    char hash[17];
} sweep_job;

/* The value of key in job, or NULL. */
const char *sweep_job_get(const sweep_job *job, const char *key);

/* FNV-1a, 64 bits: the names of jobs' results and generated tensors. */
#define SWEEP_HASH_START 14695981039346656037ull
uint64_t sweep_hash_add(uint64_t h, const char *s, size_t n);

/* The columns are the job's parameters: each group, each var, and each
 * key given alternatives, in the order they first appear. */
typedef struct sweep_plan {
    const char *const *columns;
    size_t ncolumns;
    size_t njobs;
    struct plan_maker *maker;
} sweep_plan;

/* Reads spec and checks every job it expands to (at most max_jobs), its
 * compile and gen steps by checks: every problem is one line naming the
 * file and line (or the job), found before any job is used. */
int sweep_plan_open(const char *spec, size_t max_jobs, const sweep_arg_checks *checks,
                    sweep_plan *plan, sam_error *err);

/* Job index (< njobs) into *job, valid until the next call or the plan's
 * close. */
int sweep_plan_job(sweep_plan *plan, size_t index, sweep_job *job, sam_error *err);

void sweep_plan_close(sweep_plan *plan);

#endif
