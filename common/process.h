/* Running another program and keeping what it printed: a sweep's steps
 * (samsim gen, compile, run) and the programs samsim drives (GNU
 * parallel, gnuplot) run in processes of their own, so that a crash or a
 * hung job costs one row, not the sweep. */
#ifndef SAMSIM_PROCESS_H
#define SAMSIM_PROCESS_H

#include <stddef.h>

#include "error.h"

typedef struct process_result {
    char *out, *err;    /* standard output and error, NUL-terminated */
    size_t out_len, err_len;
    int status;         /* exit status; 128 + N when killed by signal N */
    int signal;         /* the signal that ended it, 0 when it exited */
    int timed_out;      /* killed because it ran past the timeout */
    double seconds;     /* wall time from start to exit */
} process_result;

/* Runs argv (argv[0] looked up in PATH) with input on its standard input
 * (NULL: none), keeping at most PROCESS_KEEP bytes of each output;
 * timeout_s > 0 kills it after that many seconds. -1 with err set only
 * when it could not be started (not found, no memory); any exit status is
 * a result. */
int process_run(const char *const *argv, const char *input, double timeout_s,
                process_result *r, sam_error *err);

#define PROCESS_KEEP (16u << 20)

/* Runs argv with standard error shared with samsim's, calling on_line for
 * each line of its standard output as it comes (without the newline).
 * A stop signal samsim receives meanwhile (SIGINT, SIGTERM or SIGHUP,
 * unless samsim ignores it) is passed on to the program as SIGINT, and
 * so is samsim's death, even by SIGKILL: GNU parallel then stops its jobs
 * and exits. samsim itself carries on until the program has ended, so
 * that the caller can save what was done; *stop receives the first such
 * signal (0 when none came). The program runs under a keeper, a process
 * of samsim's that outlives it: the subreaper of the program's
 * descendants, it stops what they leave running once the program has
 * ended (a job parallel started as it was told to stop), each process
 * group, and collects every child that ends, before it ends itself.
 * The program's exit status (128 + N when killed by signal N), or -1
 * with err set when it could not be started. */
typedef void process_line_fn(void *ctx, char *line);
int process_stream(const char *const *argv, process_line_fn *on_line, void *ctx, int *stop,
                   sam_error *err);

/* The first line of r's standard error (or "" when it printed nothing),
 * without its newline, in buf. */
const char *process_first_error(const process_result *r, char *buf, size_t size);

void process_result_free(process_result *r);

/* Seconds on the monotonic clock, for measuring how long things take. */
double process_seconds(void);

#endif
