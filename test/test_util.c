#include "test_util.h"

#include <dirent.h>
#include <math.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *test_shared_dir(void)
{
    static char path[4096];
    const char *env = getenv("SAMSIM_SHARED");
    snprintf(path, sizeof path, "%s", env && *env ? env : "../shared");
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/data/suitesparse", path);
    struct stat st;
    return stat(probe, &st) == 0 && S_ISDIR(st.st_mode) ? path : NULL;
}

void test_slow_only(void)
{
    if (getenv("SAMSIM_QUICK")) {
        printf("note: a slow test, run by make check; skipping it in the quick tier\n");
        skip();
    }
}

char *test_require_shared(const char *rel)
{
    const char *shared = test_shared_dir();
    if (!shared) {
        printf("note: ../shared is absent (set SAMSIM_SHARED); skipping this test\n");
        skip();
    }
    return test_path(shared, rel);
}

char *test_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/samsim-test-XXXXXX", base && *base ? base : "/tmp");
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    return strdup(dir);
}

static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char *child = test_path(path, e->d_name);
            remove_tree(child);
            free(child);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

void test_tmpdir_remove(char *dir)
{
    remove_tree(dir);
    free(dir);
}

char *test_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

char *test_write_file(const char *dir, const char *name, const char *text)
{
    char *p = test_path(dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

char *test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

/* 1 when an executable gnuplot is on PATH. */
static int have_gnuplot(void)
{
    const char *path = getenv("PATH");
    char *copy = strdup(path ? path : "");
    assert_non_null(copy);
    int found = 0;
    for (char *save, *d = strtok_r(copy, ":", &save); d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char *exe = test_path(*d ? d : ".", "gnuplot");
        found = access(exe, X_OK) == 0;
        free(exe);
    }
    free(copy);
    return found;
}

void test_require_gnuplot(void)
{
    if (!have_gnuplot()) {
        printf("note: gnuplot is not on PATH (scripts/install-deps installs gnuplot-nox); "
               "skipping this test\n");
        skip();
    }
}

int test_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int test_run_samsim_argv(char **out, char **errout, const char *const *args)
{
    const char *bin = getenv("SAMSIM_BIN");
    assert_non_null(bin);
    const char *argv[64];
    int n = 0;
    argv[n++] = bin;
    for (; args[n - 1]; n++) {
        assert_true(n < 63);
        argv[n] = args[n - 1];
    }
    argv[n] = NULL;

    char *dir = test_tmpdir();
    char *out_path = test_path(dir, "stdout");
    char *err_path = test_path(dir, "stderr");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, (char **)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (out)
        *out = test_read_file(out_path);
    if (errout)
        *errout = test_read_file(err_path);
    free(out_path);
    free(err_path);
    test_tmpdir_remove(dir);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int test_run_samsim(char **out, char **errout, const char *arg, ...)
{
    const char *args[64];
    int n = 0;
    va_list ap;
    va_start(ap, arg);
    for (const char *a = arg; a; a = va_arg(ap, const char *)) {
        assert_true(n < 63);
        args[n++] = a;
    }
    va_end(ap);
    args[n] = NULL;
    return test_run_samsim_argv(out, errout, args);
}

char *test_graph_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 5;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s.gv", dir, name);
    return p;
}

int test_split_args(const char *args, char **buf, const char **argv, int n)
{
    *buf = strdup(args);
    char *save = NULL;
    for (char *a = strtok_r(*buf, " ", &save); a; a = strtok_r(NULL, " ", &save))
        argv[n++] = a;
    argv[n] = NULL;
    return n;
}

char *test_compile_to(const char *dir, const char *name, const char *args)
{
    char file[96];
    snprintf(file, sizeof file, "%s.gv", name);
    char *path = test_path(dir, file), *buf, *se = NULL;
    const char *argv[TEST_MAX_ARGS + 4] = {"compile"};
    int n = test_split_args(args, &buf, argv, 1);
    argv[n++] = "-o", argv[n++] = path, argv[n] = NULL;
    if (test_run_samsim_argv(NULL, &se, argv))
        fail_msg("compile %s: %s", name, se);
    free(buf), free(se);
    return path;
}

sam_graph test_compiled_graph(const char *dir, const char *args)
{
    char *path = test_compile_to(dir, "g", args);
    sam_graph g;
    sam_error err;
    if (graph_read_dot(path, &g, &err))
        fail_msg("%s", err.msg);
    free(path);
    return g;
}

void test_compile_refused(const char *what, const char *args, const char *message)
{
    char *buf, *errout = NULL;
    const char *argv[TEST_MAX_ARGS + 1] = {"compile"};
    int n = test_split_args(args, &buf, argv, 1);
    argv[n] = NULL;
    if (test_run_samsim_argv(NULL, &errout, argv) == 0)
        fail_msg("%s: compiled", what);
    if (!strstr(errout, message))
        fail_msg("%s: expected '%s' in: %s", what, message, errout);
    if (strchr(errout, '\n') != errout + strlen(errout) - 1)
        fail_msg("%s: not one line: %s", what, errout);
    free(buf), free(errout);
}

char *test_gen_urandom(const char *dir, const char *file, const char *shape,
                       const char *density, int seed)
{
    char seeds[16];
    snprintf(seeds, sizeof seeds, "%d", seed);
    char *path = test_path(dir, file);
    if (test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", shape, "--density", density,
                        "--seed", seeds, "-o", path, NULL))
        fail_msg("gen urandom %s", shape);
    return path;
}

void test_matrix(tensor *t, int64_t rows, int64_t cols, int n, const int64_t (*at)[2],
                 const double *value)
{
    int64_t dims[2] = {rows, cols};
    sam_error err;
    assert_int_equal(tensor_init(t, 2, dims, &err), 0);
    for (int e = 0; e < n; e++)
        assert_int_equal(tensor_append(t, at[e], value ? value[e] : e + 1, &err), 0);
    assert_int_equal(tensor_canonicalize(t, NULL, &err), 0);
}

void test_hand_matrix(tensor *t)
{
    static const int64_t at[6][2] = {{0, 0}, {0, 5}, {3, 1}, {5, 5}, {6, 2}, {7, 7}};
    test_matrix(t, 8, 8, 6, at, NULL);
}

long long test_summary(const char *out, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "%s: ", key);
    const char *p = strstr(out, k);
    if (!p)
        fail_msg("no '%s' in:\n%s", key, out);
    return atoll(p + strlen(k));
}

/* The ways of running a graph that must agree exactly: the event engine
 * (running ahead block by block, in blocks' own runs), the cycle engine,
 * the run-ahead through every block's step with windows ending at random
 * cycles, and the event engine with bounded channels (a capacity never
 * reached) and random windows. */
static const char *const engine_options[][6] = {
    {"--engine", "event", NULL, NULL, NULL, NULL},
    {"--engine", "cycle", NULL, NULL, NULL, NULL},
    {"--engine", "step", "--split", "1", NULL, NULL},
    {"--engine", "event", "--depth", "1000000", "--split", "2"},
};
#define NENGINES (int)(sizeof engine_options / sizeof engine_options[0])

/* The same with channels of 2 tokens, which fill: blocks wait on their
 * outputs, and a graph may deadlock. These must agree among themselves. */
static const char *const bounded_options[][6] = {
    {"--engine", "cycle", "--depth", "2", NULL, NULL},
    {"--engine", "event", "--depth", "2", "--split", "3"},
    {"--engine", "step", "--depth", "2", "--split", "4"},
};
#define NBOUNDED (int)(sizeof bounded_options / sizeof bounded_options[0])

typedef struct engine_run {
    int rc;
    long long cycles, tokens;
    char *result, *stats;
} engine_run;

/* Runs samsim with argv and options under the name n in dir. */
static void run_engine(const char *label, const char *dir, const char **argv,
                       const char *const *options, int n, engine_run *r)
{
    const char *a[TEST_MAX_ARGS + 12];
    int k = 0;
    for (; argv[k]; k++)
        a[k] = argv[k];
    char name[32];
    snprintf(name, sizeof name, "X_%d.tns", n);
    char *out = test_path(dir, name);
    snprintf(name, sizeof name, "stats_%d.csv", n);
    char *csv = test_path(dir, name);
    a[k++] = "--check";
    for (int o = 0; o < 6 && options[o]; o++)
        a[k++] = options[o];
    a[k++] = "-o", a[k++] = out, a[k++] = "--stats", a[k++] = csv, a[k] = NULL;
    char *so = NULL, *se = NULL;
    remove(out);
    r->rc = test_run_samsim_argv(&so, &se, a);
    if ((r->rc != 0 && r->rc != 2) || (r->rc == 0 && !strstr(so, "check: pass")))
        fail_msg("%s (engine %d): exit %d\n%s%s", label, n, r->rc, so, se);
    r->cycles = r->rc ? -1 : test_summary(so, "cycles");
    r->tokens = r->rc ? -1 : test_summary(so, "tokens");
    if (r->rc) {
        /* The deadlock's report, without the line naming the stats file. */
        char *stats_line = strstr(se, "\nsamsim: statistics");
        if (stats_line)
            *stats_line = '\0';
        r->result = strdup(se);
    } else {
        r->result = test_read_file(out);
    }
    r->stats = test_read_file(csv);
    free(so), free(se), free(out), free(csv);
}

/* Fails unless runs[1..n-1] agree with runs[0]. */
static void agree(const char *label, engine_run *runs, int n, int first)
{
    for (int e = 1; e < n; e++)
        if (runs[e].rc != runs[0].rc || runs[e].cycles != runs[0].cycles ||
            runs[e].tokens != runs[0].tokens || strcmp(runs[e].result, runs[0].result) ||
            strcmp(runs[e].stats, runs[0].stats))
            fail_msg("%s: engine %d differs from %d: exit %d/%d, %lld/%lld cycles, %lld/%lld "
                     "tokens, %s",
                     label, first + e, first, runs[e].rc, runs[0].rc, runs[e].cycles,
                     runs[0].cycles, runs[e].tokens, runs[0].tokens,
                     strcmp(runs[e].stats, runs[0].stats) ? "other statistics" : "same statistics");
    for (int e = 0; e < n; e++)
        free(runs[e].result), free(runs[e].stats);
}

/* Runs samsim with argv (NULL-terminated) in every engine; the check must
 * pass and all agree on cycles, token moves, the result and statistics
 * files; then again with channels that fill, where a deadlock is allowed
 * but all must agree on it. */
long long test_run_engines(const char *label, const char *dir, const char **argv)
{
    engine_run runs[NENGINES > NBOUNDED ? NENGINES : NBOUNDED];
    for (int e = 0; e < NENGINES; e++) {
        run_engine(label, dir, argv, engine_options[e], e, &runs[e]);
        if (runs[e].rc)
            fail_msg("%s (engine %d): exit %d", label, e, runs[e].rc);
    }
    long long cycles = runs[0].cycles;
    agree(label, runs, NENGINES, 0);
    for (int e = 0; e < NBOUNDED; e++)
        run_engine(label, dir, argv, bounded_options[e], NENGINES + e, &runs[e]);
    agree(label, runs, NBOUNDED, NENGINES);
    return cycles;
}

char *test_write_stuck_graph(const char *dir)
{
    return test_write_file(dir, "stuck.gv",
                           "digraph SAM {\n comment=\"X=s0,B=s0\"\n"
                           " 1 [type=fiberlookup index=i tensor=B mode=0 format=compressed "
                           "root=false]\n"
                           " 2 [type=fiberwrite index=i tensor=X mode=0 format=compressed]\n"
                           " 1 -> 2 [label=crd type=crd]\n 1 -> 1 [label=ref type=ref]\n}\n");
}

/* The request's settings: each "KEY=VALUE" as a --config file line. */
static int add_settings(const test_run_spec *s, sim_config *c, sam_error *err)
{
    for (int i = 0; s->config[i]; i++) {
        char key[128];
        const char *eq = strchr(s->config[i], '=');
        assert_non_null(eq);
        snprintf(key, sizeof key, "%.*s", (int)(eq - s->config[i]), s->config[i]);
        if (sim_config_add(c, key, eq + 1, "test", err))
            return -1;
    }
    return 0;
}

/* The request's bindings, split at their '=' into names kept in names. */
static void add_bindings(const test_run_spec *s, graph_run_request *r, char names[][64])
{
    for (int i = 0; s->bind[i]; i++) {
        const char *eq = strchr(s->bind[i], '=');
        assert_non_null(eq);
        snprintf(names[i], 64, "%.*s", (int)(eq - s->bind[i]), s->bind[i]);
        r->bind_name[i] = names[i];
        r->bind_value[i] = eq + 1;
        r->nbind = i + 1;
    }
}

static int read_hw(const test_run_spec *s, hw_desc *hw, sam_error *err)
{
    hw_defaults(hw);
    if (s->hw)
        return hw_read(s->hw, hw, err);
    return s->hw_text ? hw_read_text("hw", s->hw_text, hw, err) : 0;
}

int test_graph_run(const test_run_spec *s, sam_graph *g, graph_run *run, char *msg,
                   size_t size)
{
    sam_error err;
    char names[9][64];
    hw_desc hw;
    sim_config settings = {0};
    graph_run_request r = {.check = s->check, .stats = s->stats, .expr = s->expr,
                           .tiling = s->tile, .engine = s->engine,
                           .max_cycles = s->max_cycles ? s->max_cycles : UINT64_MAX,
                           .hw = s->hw || s->hw_text ? &hw : NULL, .cli_settings = &settings};
    memset(run, 0, sizeof *run);
    memset(g, 0, sizeof *g);
    add_bindings(s, &r, names);
    int rc = graph_read_dot(s->graph, g, &err) || read_hw(s, &hw, &err) ||
                     add_settings(s, &settings, &err) || graph_run_do(g, &r, run, &err)
                 ? -1
                 : run->status;
    sim_config_free(&settings);
    if (rc < 0)
        snprintf(msg, size, "%s", err.msg);
    return rc;
}

void test_graph_run_free(sam_graph *g, graph_run *run)
{
    graph_run_free(run);
    graph_free(g);
}

double test_field(const graph_run *run, const char *key)
{
    double v = outcome_number(&run->record, key);
    if (isnan(v))
        fail_msg("the run's record has no number %s", key);
    return v;
}

pid_t test_start_samsim(const char *const *args, const char *out_path, const char *err_path)
{
    const char *argv[32] = {getenv("SAMSIM_BIN")};
    assert_non_null(argv[0]);
    int n = 1;
    for (; args[n - 1]; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path ? err_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, argv[0], &fa, NULL, (char **)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

void assert_contains(const char *text, const char *part)
{
    if (!text || !strstr(text, part))
        fail_msg("'%s' not in: %s", part, text ? text : "(nothing)");
}

int test_count(const char *from, const char *to, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(from, needle); p && p < to; p = strstr(p + 1, needle))
        n++;
    return n;
}
