/* Helpers shared by the cmocka test programs. */
#ifndef SAMSIM_TEST_UTIL_H
#define SAMSIM_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cmocka.h>

#include "../formats/tensor.h"
#include "../graph/graph.h"
#include "../run/graph_run.h"

/* The ../shared folder beside the checkout, or NULL (tests that need it
 * call skip() with a message). */
const char *test_shared_dir(void);

/* A path under ../shared (malloc'd); when ../shared is absent, says so on
 * standard output and skips the calling test. */
char *test_require_shared(const char *rel);

/* In the quick tier (make test sets SAMSIM_QUICK), says so on standard
 * output and skips the calling test: it runs in make check. For tests
 * that repeat a quick one's assertions on many more inputs. */
void test_slow_only(void);

/* A fresh empty temporary directory, removed with its files by
 * test_tmpdir_remove. */
char *test_tmpdir(void);
void test_tmpdir_remove(char *dir);

/* Writes text to dir/name and returns the malloc'd path. */
char *test_write_file(const char *dir, const char *name, const char *text);

/* Joins dir and name into a malloc'd path. */
char *test_path(const char *dir, const char *name);

/* Runs the samsim binary with args (NULL-terminated) and returns its exit
 * status; what it printed on stdout and stderr is returned malloc'd. */
int test_run_samsim(char **out, char **errout, const char *arg, ...);

/* The same with a NULL-terminated argument vector (without the program). */
int test_run_samsim_argv(char **out, char **errout, const char *const *argv);

/* Starts samsim with args (NULL-terminated, without the program), its
 * standard output into out_path and standard error into err_path (NULL:
 * /dev/null); its pid, for the caller to wait for. */
pid_t test_start_samsim(const char *const *args, const char *out_path, const char *err_path);

/* A graph run in this process through the library (run/graph_run.h), as
 * `samsim run` would do it: for tests whose subject is the run, not the
 * process. Lists end with NULL. */
typedef struct test_run_spec {
    const char *graph;              /* the graph's path */
    const char *bind[9];            /* "NAME=FILE" or "NAME=NUMBER", as -t */
    const char *hw;                 /* a --hw file, or NULL */
    const char *hw_text;            /* or its text */
    const char *config[9];          /* "KEY=VALUE" settings, as in a --config file */
    const char *tile, *expr;        /* --tile, --expr */
    int check, stats;
    engine_mode engine;
    uint64_t max_cycles;            /* 0: none */
} test_run_spec;

/* Runs s into *run, its graph in *g (both freed by test_graph_run_free).
 * Returns run->status (0 done, 2 stopped, 3 wrong), or -1 with the error's
 * message in msg (of size). */
int test_graph_run(const test_run_spec *s, sam_graph *g, graph_run *run, char *msg,
                   size_t size);
void test_graph_run_free(sam_graph *g, graph_run *run);

/* The record's field key as a number; fails the test when it has none. */
double test_field(const graph_run *run, const char *key);

/* dir/name.gv, malloc'd. */
char *test_graph_path(const char *dir, const char *name);

/* Splits args at spaces into argv[n...], NULL-terminated; the copy the
 * words live in is *buf (freed by the caller). The new count. */
int test_split_args(const char *args, char **buf, const char **argv, int n);

/* `samsim compile` with args (split at spaces) into dir/name.gv; its
 * path, malloc'd. Fails the test when compile does. */
char *test_compile_to(const char *dir, const char *name, const char *args);

/* The graph `samsim compile` makes of args (in dir), read back; free it
 * with graph_free. */
sam_graph test_compiled_graph(const char *dir, const char *args);

/* `samsim compile` with args must fail (what names the case) with one
 * line of standard error holding message. */
void test_compile_refused(const char *what, const char *args, const char *message);

/* `samsim gen urandom --shape shape --density density --seed seed` into
 * dir/file; its path, malloc'd. */
char *test_gen_urandom(const char *dir, const char *file, const char *shape,
                       const char *density, int seed);

/* A rows x cols matrix of n entries, at[e] = (row, column) holding
 * value[e] (NULL: e + 1), canonical; fails the test on an error. */
void test_matrix(tensor *t, int64_t rows, int64_t cols, int n, const int64_t (*at)[2],
                 const double *value);

/* The 8x8 matrix the templates' traffic is worked out on by hand: (0,0)
 * (0,5) (3,1) (5,5) (6,2) (7,7), valued 1 to 6; rows {0,3,5,6,7}, columns
 * {0,1,2,5,7}. */
void test_hand_matrix(tensor *t);

/* The number after "key: " in a run summary; fails the test without it. */
long long test_summary(const char *out, const char *key);

/* Reads a whole file into a malloc'd NUL-terminated string, NULL if absent. */
char *test_read_file(const char *path);

/* Arguments of one run, at most. */
#define TEST_MAX_ARGS 40

/* Runs `samsim` with argv (NULL-terminated, at most TEST_MAX_ARGS) plus
 * --check, -o and --stats, under the event engine, the cycle engine and the
 * event engine's queue: the check must pass and all must agree on cycles,
 * token moves, the result file and the statistics file. label names the
 * run in failures. Returns the cycles they agree on. */
long long test_run_engines(const char *label, const char *dir, const char **argv);

/* dir/stuck.gv, a graph that deadlocks at once: a scanner whose references
 * come from its own output; the path is malloc'd. */
char *test_write_stuck_graph(const char *dir);

/* When gnuplot is not on PATH, says so on standard output and skips the
 * calling test. */
void test_require_gnuplot(void);

/* Fails the test unless text (NULL: nothing) holds part. */
void assert_contains(const char *text, const char *part);

/* How many times needle starts between from and to. */
int test_count(const char *from, const char *to, const char *needle);

/* 1 when path exists. */
int test_exists(const char *path);

#endif
