/* The sweep spec reader: the input is a spec, read and every job it
 * expands to checked as `samsim sweep --list` does, then listed, all in
 * this process (nothing runs). The job limit is lowered so that an input
 * costs milliseconds; the limit's refusal is still reached. Each job's
 * hash is made again from its keys, and jobs fetched out of order must
 * equal those listed in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/commands.h"
#include "../../sweep/sweep_plan.h"
#include "../../sweep/sweep_store.h"
#include "fuzz_input.h"

#define FUZZ_MAX_JOBS 2000

/* The hash job names itself with, from its keys: sorted, each once. */
static void check_job(const sweep_job *job)
{
    uint64_t h = SWEEP_HASH_START;
    for (size_t i = 0; i < job->nkeys; i++) {
        if (i && strcmp(job->keys[i - 1].key, job->keys[i].key) >= 0)
            abort();
        h = sweep_hash_add(h, job->keys[i].key, strlen(job->keys[i].key) + 1);
        h = sweep_hash_add(h, job->keys[i].value, strlen(job->keys[i].value) + 1);
    }
    char hash[17];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)h);
    if (strcmp(hash, job->hash))
        abort();
}

/* Sixteen jobs from the last backwards, each fetched again after job 0:
 * the same both times. */
static void check_out_of_order(sweep_plan *plan)
{
    for (size_t k = 0; k < 16; k++) {
        size_t i = plan->njobs - 1 - k * plan->njobs / 16;
        sweep_job back, forth;
        sam_error err;
        char hash[17];
        if (sweep_plan_job(plan, i, &back, &err))
            abort();
        check_job(&back);
        memcpy(hash, back.hash, sizeof hash);
        if (i && sweep_plan_job(plan, 0, &forth, &err))
            abort();
        if (sweep_plan_job(plan, i, &forth, &err) || strcmp(hash, forth.hash))
            abort();
    }
}

static void list_spec(const char *path)
{
    sweep_plan plan;
    sam_error err;
    static const sweep_arg_checks checks = {cmd_compile_check, cmd_gen_check};
    if (sweep_plan_open(path, FUZZ_MAX_JOBS, &checks, &plan, &err))
        return;
    FILE *null = fopen("/dev/null", "w");
    if (!null || sweep_store_print_list(&plan, null, &err))
        abort();
    fclose(null);
    check_out_of_order(&plan);
    sweep_plan_close(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_with_file("in.sweep", data, size, list_spec);
    return 0;
}
