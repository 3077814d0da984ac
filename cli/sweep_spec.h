/* A sweep specification and the jobs it expands to (README: Sweeps).
 *
 * SPEC is `key = value` lines, as --config. A value may list alternatives
 * separated by `|`, each a value or an integer range (`A..B`, `A..B step
 * S`, `A..B times F`); the jobs are every combination, the first listed
 * key varying slowest. `[GROUP=NAME]` starts a section: the sections of a
 * group are alternatives too, each setting its keys over the ones above
 * the first section. `var.NAME` keys only name values; `{NAME}` in any
 * value stands for a var's or a group's value (or another key's).
 *
 * A job is one `samsim run`: a graph given (`graph`), compiled (`expr`,
 * `format`, `schedule`) or a template written (`template`,
 * `template.KEY`), its operands (`tensor.NAME` = FILE, a number, or `gen
 * KIND ARGS...` for samsim gen), and run's options. */
#ifndef SAMSIM_SWEEP_SPEC_H
#define SAMSIM_SWEEP_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

/* More jobs than this are refused before any is made. */
#define SWEEP_MAX_JOBS 1000000

typedef struct sweep_pair {
    char *key, *value;
} sweep_pair;

/* One job: the keys its run reads, resolved (references replaced, paths
 * absolute) and sorted by key; its value in each of the plan's columns;
 * and the hash of its keys, which names its files. */
typedef struct sweep_job {
    sweep_pair *keys;
    size_t nkeys;
    char **params;
    char hash[17];
} sweep_job;

/* The columns are the job's parameters: each group, each var, and each
 * key given alternatives, in the order they first appear. */
typedef struct sweep_plan {
    char **columns;
    size_t ncolumns;
    sweep_job *jobs;
    size_t njobs;
} sweep_plan;

/* Reads SPEC and expands it; every problem is one line naming the file
 * and line (or the job). */
int sweep_spec_expand(const char *path, sweep_plan *plan, sam_error *err);

void sweep_plan_free(sweep_plan *plan);

/* Job keys read back from a file: the same as a job's own. */
int sweep_job_set(sweep_job *job, const char *key, const char *value, sam_error *err);

/* FNV-1a, 64 bits: the names of jobs' results and generated tensors. */
#define SWEEP_HASH_START 14695981039346656037ull
uint64_t sweep_hash_add(uint64_t h, const char *s, size_t n);

/* The value of key in job, or NULL. */
const char *sweep_job_get(const sweep_job *job, const char *key);

void sweep_job_free(sweep_job *job, size_t ncolumns);

#endif
