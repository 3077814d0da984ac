/* samsim sweep: a spec's expansion, its refusals, and sweeps run with GNU
 * parallel and through a Slurm job array, each job's row compared with
 * the same run made directly; and through the library, a plan's jobs, a
 * directory's pending jobs and the Slurm script. */
/* wait4 is a BSD function. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/csv_table.h"
#include "../sweep/sweep_plan.h"
#include "../sweep/sweep_run.h"
#include "../sweep/sweep_spec.h"
#include "../sweep/sweep_store.h"
#include "test_util.h"

/* ---- helpers ---------------------------------------------------------- */

/* The cell of row job (0-based) in column name of a results or job list. */
static const char *cell(const csv_table *t, size_t job, const char *name)
{
    int k = csv_table_column(t, name);
    if (k < 0)
        fail_msg("no column '%s'", name);
    assert_true(job + 1 < t->nrows);
    assert_true((size_t)k < t->rows[job + 1].ncells);
    return t->rows[job + 1].cells[k];
}

static void read_results(const char *dir, csv_table *t)
{
    char *path = test_path(dir, "results.csv");
    sam_error err;
    if (csv_table_read(path, t, &err))
        fail_msg("%s", err.msg);
    free(path);
}

static int have_parallel(void)
{
    if (system("parallel --version 2>/dev/null | grep -q 'GNU parallel'") == 0)
        return 1;
    printf("note: GNU parallel is not installed (scripts/install-deps installs it): skipped\n");
    return 0;
}

/* The number of lines of s. */
static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Runs graph on operands named bname and cname with --check (and --hw
 * extra) and returns its summary. */
static char *direct_run_as(const char *graph, const char *bname, const char *b,
                           const char *cname, const char *c, const char *extra)
{
    char tb[512], tc[512];
    snprintf(tb, sizeof tb, "%s=%s", bname, b);
    snprintf(tc, sizeof tc, "%s=%s", cname, c);
    const char *argv[12] = {"run", graph, "-t", tb, "-t", tc, "--check", "--quiet"};
    int n = 8;
    if (extra) {
        argv[n++] = "--hw";
        argv[n++] = extra;
    }
    argv[n] = NULL;
    char *out = NULL;
    assert_int_equal(test_run_samsim_argv(&out, NULL, argv), 0);
    return out;
}

/* The same on B and C. */
static char *direct_run(const char *graph, const char *b, const char *c, const char *extra)
{
    return direct_run_as(graph, "B", b, "C", c, extra);
}

/* The entries of dir/sub whose names end in suffix ("" for all), bar . and
 * ..; -1 when it cannot be read. */
static int count_entries(const char *dir, const char *sub, const char *suffix)
{
    char *path = test_path(dir, sub);
    DIR *d = opendir(path);
    free(path);
    if (!d)
        return -1;
    int n = 0;
    size_t want = strlen(suffix);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        n += e->d_name[0] != '.' && len >= want && !strcmp(e->d_name + len - want, suffix);
    }
    closedir(d);
    return n;
}

/* The row's cycles and tokens equal the direct run's, and it passed. */
static void assert_row_is(const csv_table *t, size_t job, const char *summary)
{
    assert_string_equal(cell(t, job, "status"), "ok");
    assert_string_equal(cell(t, job, "exit"), "0");
    assert_int_equal(atoll(cell(t, job, "cycles")), test_summary(summary, "cycles"));
    assert_int_equal(atoll(cell(t, job, "tokens")), test_summary(summary, "tokens"));
    assert_true(!strncmp(cell(t, job, "check"), "pass", 4));
    assert_string_equal(cell(t, job, "error"), "");
}

/* Two pairs of operands, B{1,2}.mtx and C{1,2}.mtx, in dir. */
static void write_operands(const char *dir, int pairs)
{
    for (int p = 1; p <= pairs; p++) {
        char b[16], c[16];
        snprintf(b, sizeof b, "B%d.mtx", p);
        snprintf(c, sizeof c, "C%d.mtx", p);
        free(test_gen_urandom(dir, b, "40x30", "0.08", 2 * p - 1));
        free(test_gen_urandom(dir, c, "30x40", "0.08", 2 * p));
    }
}

/* SpMSpM in two loop orders on `pair` pairs: 2 x pairs jobs, the order
 * varying slowest. */
static char *write_orders_spec(const char *dir, const char *pairs)
{
    char text[1024];
    snprintf(text, sizeof text,
             "# two loop orders on pairs of operands\n"
             "expr = X(i,j)=B(i,k)*C(k,j)\n"
             "var.pair = %s\n"
             "tensor.B = B{pair}.mtx\n"
             "tensor.C = C{pair}.mtx\n"
             "\n"
             "[order=ijk]\n"
             "format = X:ss B:ss C:ss:1,0\n"
             "schedule = reorder(i,j,k)\n"
             "\n"
             "[order=kij]\n"
             "format = X:ss B:ss:1,0 C:ss\n"
             "schedule = reorder(k,i,j)\n",
             pairs);
    return test_write_file(dir, "orders.sweep", text);
}

/* The direct runs of the orders sweep's jobs, made once in a test that
 * checks the rows more than once (the operands do not change). */
typedef struct orders_runs {
    char *graph[2];         /* by order */
    char *summary[2][3];    /* by order, then pair - 1 */
} orders_runs;

static void orders_runs_free(orders_runs *runs)
{
    for (int o = 0; o < 2; o++) {
        free(runs->graph[o]);
        for (int p = 0; p < 3; p++)
            free(runs->summary[o][p]);
    }
}

/* The summary of order o on pair p, run directly unless it was. */
static const char *orders_run(orders_runs *runs, const char *dir, int o, int p)
{
    static const char *const compile[2] = {
        "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss:1,0 -s=reorder(i,j,k)",
        "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)"};
    static const char *const order[2] = {"ijk", "kij"};
    if (!runs->graph[o])
        runs->graph[o] = test_compile_to(dir, order[o], compile[o]);
    if (!runs->summary[o][p - 1]) {
        char b[16], c[16];
        snprintf(b, sizeof b, "B%d.mtx", p);
        snprintf(c, sizeof c, "C%d.mtx", p);
        char *bp = test_path(dir, b), *cp = test_path(dir, c);
        runs->summary[o][p - 1] = direct_run(runs->graph[o], bp, cp, NULL);
        free(bp);
        free(cp);
    }
    return runs->summary[o][p - 1];
}

/* Every row of the orders sweep in out equals its run made directly. */
static void assert_orders_rows(const char *dir, const char *out, int pairs, orders_runs *runs)
{
    static const char *const order[2] = {"ijk", "kij"};
    csv_table t;
    read_results(out, &t);
    assert_int_equal(t.nrows, 1 + 2 * pairs);
    for (int o = 0; o < 2; o++)
        for (int p = 1; p <= pairs; p++) {
            size_t job = (size_t)(o * pairs + p - 1);
            char pair[8];
            snprintf(pair, sizeof pair, "%d", p);
            assert_string_equal(cell(&t, job, "order"), order[o]);
            assert_string_equal(cell(&t, job, "pair"), pair);
            assert_row_is(&t, job, orders_run(runs, dir, o, p));
        }
    csv_table_free(&t);
}

/* The hash a job is named by, made here from its keys (key, value,
 * key, value, ..., NULL; sorted by key) as doc/sweeps.md describes it:
 * FNV-1a over each key and value with its terminating NUL. */
static void job_hash(const char *const *kv, char out[17])
{
    uint64_t h = 14695981039346656037ull;
    for (const char *const *s = kv; *s; s++)
        for (const char *c = *s;; c++) {
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
            if (!*c)
                break;
        }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* The processes other than this one whose command line names s. */
static int processes_naming(const char *s)
{
    DIR *d = opendir("/proc");
    int n = 0;
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        char path[300], cmd[8192];
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(cmd, 1, sizeof cmd - 1, f);
        fclose(f);
        for (size_t k = 0; k < len; k++)
            cmd[k] = cmd[k] ? cmd[k] : ' ';
        cmd[len] = '\0';
        n += strstr(cmd, s) != NULL;
    }
    closedir(d);
    return n;
}

/* Waits up to seconds for no process to name s; how many still do. The
 * processes go in half a second; the bound is for a loaded machine. */
static int processes_left(const char *s, int seconds)
{
    struct timespec tick = {0, 20000000};
    int n;
    for (int waited = 0; (n = processes_naming(s)) && waited < seconds * 1000; waited += 20)
        nanosleep(&tick, NULL);
    return n;
}

/* Waits up to seconds for the sweep in dir to let its lock go; whether it
 * did. Killed by SIGKILL, a sweep lets it go once its jobs are stopped,
 * a moment after it died. */
static int lock_let_go(const char *dir, int seconds)
{
    char *path = test_path(dir, "sweep.lock");
    int fd = open(path, O_RDWR | O_CLOEXEC), rc;
    assert_true(fd >= 0);
    struct timespec tick = {0, 20000000};
    for (int waited = 0; (rc = flock(fd, LOCK_EX | LOCK_NB)) && waited < seconds * 1000;
         waited += 20)
        nanosleep(&tick, NULL);
    close(fd);
    free(path);
    return rc == 0;
}

/* Waits up to a minute for n results in out. */
static void wait_results(const char *out, int n)
{
    struct timespec tick = {0, 10000000};
    for (int waited = 0; count_entries(out, "results", ".csv") < n && waited < 60000;
         waited += 10)
        nanosleep(&tick, NULL);
    assert_int_equal(count_entries(out, "results", ".csv"), n);
}

/* A graph of SpMSpM in dir, B1.mtx and C1.mtx for its quick job, and
 * big.mtx for a job that takes many seconds under the cycle engine:
 * the spec has the quick job first, then the slow one (a timeout of
 * slow_timeout seconds). */
static char *write_slow_spec(const char *dir, const char *slow_timeout, char **graph)
{
    write_operands(dir, 1);
    free(test_gen_urandom(dir, "big.mtx", "1500x1500", "0.05", 9));
    *graph = test_compile_to(dir, "ijk", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss "
                                         "-f=C:ss:1,0 -s=reorder(i,j,k)");
    char text[2048];
    snprintf(text, sizeof text,
             "graph = %s\n"
             "[case=quick]\ntensor.B = B1.mtx\ntensor.C = C1.mtx\n"
             "[case=slow]\ntensor.B = big.mtx\ntensor.C = big.mtx\nengine = cycle\n"
             "timeout = %s\n",
             *graph, slow_timeout);
    return test_write_file(dir, "slow.sweep", text);
}

/* ---- expansion -------------------------------------------------------- */

/* Groups vary slowest, then keys in the order listed; ranges step and
 * multiply; a key set in one section only is empty in the others. */
static void test_list_expands_in_order(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *spec = test_write_file(dir, "s.sweep",
                                 "expr = X(i)=B(i)\n"
                                 "tensor.B = B{n}.mtx\n"
                                 "var.n = 1..3 | 10\n"
                                 "var.m = 2..16 times 2\n"
                                 "[g=a]\n"
                                 "[g=b]\n"
                                 "depth = 2 | 4   # two depths in b\n");
    char *out = NULL, *err = NULL;
    assert_int_equal(test_run_samsim(&out, &err, "sweep", spec, "--list", NULL), 0);
    assert_string_equal(err, "sweep: 48 jobs\n");
    assert_int_equal(count_lines(out), 49);
    assert_true(!strncmp(out, "job,g,n,m,depth,hash\n0,a,1,2,,", 30));
    static const char *const rows[][5] = {
        {"1", "a", "1", "4", ""},   {"4", "a", "2", "2", ""},    {"15", "a", "10", "16", ""},
        {"16", "b", "1", "2", "2"}, {"17", "b", "1", "2", "4"}, {"47", "b", "10", "16", "4"}};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        char want[64];
        snprintf(want, sizeof want, "\n%s,%s,%s,%s,%s,", rows[r][0], rows[r][1], rows[r][2],
                 rows[r][3], rows[r][4]);
        if (!strstr(out, want))
            fail_msg("row %s missing: %s", rows[r][0], want);
    }
    /* Every job differs, so every hash does. */
    for (const char *p = strchr(out, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
        const char *hash = strchr(p, '\n') - 16;
        char h[17];
        memcpy(h, hash, 16);
        h[16] = '\0';
        assert_ptr_equal(strstr(out, h), hash);
    }
    free(out);
    free(err);
    free(spec);
    test_tmpdir_remove(dir);
}

/* A sweep whose keys have no alternatives is one job and no parameter
 * columns: "0,HASH", the hash that of its keys. */
static void test_one_job_listed(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *spec = test_write_file(dir, "one.sweep", "expr = X(i,j)=B(i,j)\ntensor.B = ones.mtx\n");
    char *b = test_path(dir, "ones.mtx");
    char hash[17], want[64];
    job_hash((const char *const[]){"expr", "X(i,j)=B(i,j)", "tensor.B", b, NULL}, hash);
    snprintf(want, sizeof want, "job,hash\n0,%s\n", hash);
    char *out = NULL, *err = NULL;
    assert_int_equal(test_run_samsim(&out, &err, "sweep", spec, "--list", NULL), 0);
    assert_string_equal(out, want);
    assert_string_equal(err, "sweep: 1 jobs\n");
    free(out);
    free(err);
    free(b);
    free(spec);
    test_tmpdir_remove(dir);
}

/* A spec of 53 bytes standing for a million jobs is listed a job at a
 * time: every row, the last one's hash that of its keys, in a few
 * megabytes (the jobs were all held at once: 600 MB). */
static void test_million_jobs_listed_lean(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *spec = test_write_file(dir, "m.sweep",
                                 "expr = X(i)=B(i)\ntensor.B = b.tns\nvar.x = 1..1000000\n");
    char *list = test_path(dir, "list.csv"), *b = test_path(dir, "b.tns");
    pid_t pid = test_start_samsim((const char *const[]){"sweep", spec, "--list", NULL}, list, NULL);
    int status;
    struct rusage use;
    assert_int_equal(wait4(pid, &status, 0, &use), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (use.ru_maxrss > 100 * 1024)
        fail_msg("listing a million jobs took %ld kB", use.ru_maxrss);
    char *text = test_read_file(list);
    assert_int_equal(count_lines(text), 1000001);
    char hash[17], want[64];
    job_hash((const char *const[]){"expr", "X(i)=B(i)", "tensor.B", b, "var.x", "1000000", NULL},
             hash);
    snprintf(want, sizeof want, "\n999999,1000000,%s\n", hash);
    size_t len = strlen(text), wlen = strlen(want);
    assert_true(len > wlen);
    assert_string_equal(text + len - wlen, want);
    assert_true(!strncmp(text, "job,x,hash\n0,1,", 15));
    free(text);
    free(b);
    free(list);
    free(spec);
    test_tmpdir_remove(dir);
}

/* `\#` writes a `#` in a value, where `#` alone starts a comment. */
static void test_hash_sign_in_values(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out");
    char *spec = test_write_file(dir, "h.sweep",
                                 "expr = X(i,j)=B(i,j)   # a comment\n"
                                 "tensor.B = a\\#b.mtx # the file a#b.mtx\n"
                                 "var.f = x\\#y | z\n");
    char *list = NULL;
    assert_int_equal(test_run_samsim(&list, NULL, "sweep", spec, "--list", NULL), 0);
    assert_true(!strncmp(list, "job,f,hash\n0,x#y,", 17));
    assert_non_null(strstr(list, "\n1,z,"));
    assert_int_equal(test_run_samsim(NULL, NULL, "sweep", spec, "--slurm", "-o", out, NULL), 0);
    char *job = test_path(out, "jobs/0.job"), *text = test_read_file(job);
    char want[1024];
    snprintf(want, sizeof want, "\ntensor.B,%s/a#b.mtx\nvar.f,x#y\n", dir);
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "\nexpr,\"X(i,j)=B(i,j)\"\n"));
    free(text);
    free(job);
    free(list);
    free(spec);
    free(out);
    test_tmpdir_remove(dir);
}

/* Each bad spec: exit 1, one line naming the file and line, no directory
 * made. */
static void test_bad_specs_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"expr = X(i)=B(i)\nfoo = 3\n", "s.sweep:2: unknown key 'foo'"},
        {"expr = X(i)=B(i)\ndepth = 0\n", "s.sweep:2: key 'depth': '0' is not a whole number"},
        {"expr = X(i)=B(i)\ncheck = maybe\n", "s.sweep:2: key 'check': 'maybe' is not yes or no"},
        {"expr = X(i)=B(i)\nengine = fast\n", "s.sweep:2: key 'engine': 'fast' is not event"},
        {"expr = X(i)=B(i)\ntimeout = -1\n", "s.sweep:2: key 'timeout': '-1' is not a number"},
        {"expr = X(i)=B(i)\nvar.a = {b}\nvar.b = {a}\ntensor.B = {a}\n",
         "key 'var.b': references nest too deep"},
        {"expr = X(i)=B(i)\ntensor.B = {nope}\n", "s.sweep:2: key 'tensor.B': {nope} names no"},
        {"expr = X(i)=B(i)\ntensor.B = {nope\n", "s.sweep:2: key 'tensor.B': '{' without its '}'"},
        {"expr = X(i)=B(i)\nvar.a = 1..100000000\n", "s.sweep:2: range '1..100000000' has more"},
        {"expr = X(i)=B(i)\nvar.a = 1..5 step 0\n", "s.sweep:2: range '1..5 step 0' is empty"},
        {"expr = X(i)=B(i)\nvar.a = 5..1\n", "s.sweep:2: range '5..1' is empty"},
        {"expr = X(i)=B(i)\nvar.a = 1 | | 2\n", "s.sweep:2: key 'var.a': an empty alternative"},
        {"expr = X(i)=B(i)\nvar.a = 1..1000\nvar.b = 1..1000\nvar.c = 1..1000\n",
         "s.sweep: more than 1000000 jobs"},
        {"expr = X(i)=B(i)\n[g=x\n", "s.sweep:2: expected [GROUP=NAME], not '[g=x'"},
        {"expr = X(i)=B(i)\n[g=x]\n[g=x]\n", "s.sweep:3: section [g=x] twice (line 2)"},
        {"expr = X(i)=B(i)\ndepth = 2\ndepth = 3\n", "s.sweep:3: key 'depth' set twice (line 2)"},
        {"expr = X(i)=B(i)\n[a=1]\ndepth = 2\n[b=1]\ndepth = 3\n",
         "s.sweep:5: key 'depth' is also set by section [a=1] (line 3)"},
        {"expr = X(i)=B(i)\nvar.g = 1\n[g=x]\n", "s.sweep:2: var 'g' has the name of a group"},
        {"expr = X(i)=B(i)\n[format=x]\n", "s.sweep:2: group 'format' has the name of a key"},
        {"var.a = 1..5\n", "s.sweep: job 0: needs exactly one of graph, expr and template, not 0"},
        {"expr = X(i)=B(i)\ngraph = g.gv\n", "s.sweep: job 0: needs exactly one of graph, expr"},
        {"graph = g.gv\nformat = X:s\n", "s.sweep:2: key 'format' needs expr in the same job"},
        {"expr = X(i)=B(i)\ntemplate.pe.count = 2\n", "s.sweep:2: key 'template.pe.count' needs"},
        {"expr = X(i)=B(i)\njust words\n", "s.sweep:2: expected KEY = VALUE or [GROUP=NAME]"},
        {"# nothing\n\n", "s.sweep: no keys"},
        {"[g=a]\n[g=b]\nexpr = X(i)=B(i)\n",
         "s.sweep: job 0: needs exactly one of graph, expr and template, not 0"},
        {"expr = X(i)=B(i)\nvar.a = 1..3 step 1.5\n",
         "s.sweep:2: range '1..3 step 1.5' is not A..B, A..B step S or A..B times F of whole"},
        {"expr = X(i)=B(i)\nvar.a = 1..3 steps 2\n", "s.sweep:2: range '1..3 steps 2' is not"},
        {"expr = X(i)=B(i)\nvar.a = 0.5..3\n", "s.sweep:2: range '0.5..3' is not"},
        /* Each key's value as the step reading it would check it. */
        {"expr = X(i)=B(i)\nhw.dram.widht = 1 | 2\n",
         "s.sweep:2: hw: unknown key dram.widht (the keys: clock.ghz,"},
        {"expr = X(i)=B(i)\nvar.w = 4 | 0\nhw.dram.bandwidth = {w}\n",
         "s.sweep:3: hw: dram.bandwidth = 0 is not a number"},
        {"expr = X(i)=B(i)\nhw.place.B = pe | dram\n",
         "s.sweep:2: hw: place.B = dram"},
        {"template = nosuch\n",
         "s.sweep:1: key 'template': no template 'nosuch' (there are extensor, outerspace, "
         "gamma, sigma)"},
        {"template = gamma\ntemplate.pe.count = 2 | 5000\n",
         "s.sweep:2: template gamma: pe.count = 5000 is not a whole number 1..4096 (PEs)"},
        {"template = gamma | sigma\ntemplate.pe.count = 2\n",
         "s.sweep:2: template sigma: no parameter 'pe.count'"},
        {"template = outerspace\ntemplate.pt.count = 65\ntemplate.pe.per.pt = 64\n",
         "s.sweep:1: with pe.per.pt=64 pt.count=65: template outerspace: these parameters make "
         "hardware samsim cannot run"},
        {"template = gamma\nhw.pe.count = 2\n",
         "s.sweep:2: key 'hw.pe.count' cannot go with template: a template's hardware comes "
         "from its template.KEY parameters"},
        {"template = gamma\ndepth = 2\n", "s.sweep:2: key 'depth' cannot go with template"},
        {"expr = X(i)=B(i)\nconfig.intersect.impl = nosuch\n",
         "s.sweep:2: config: intersect has no implementation 'nosuch'"},
        {"expr = X(i)=B(i)\nconfig.channel.capacity = many\n",
         "s.sweep:2: config: channel.capacity must be a whole number"},
        {"expr = X(i)=B(i)\nconfig.nosuch.ii = 2\n",
         "s.sweep:2: config: 'nosuch' is not a block type"},
        {"expr = X(i)=B(i)\nimpl = intersect=skip intersect=nosuch\n",
         "s.sweep:2: impl: intersect has no implementation 'nosuch'"},
        {"expr = X(i)=B(i)\nimpl = skip\n", "s.sweep:2: impl: 'skip' is not TYPE=NAME"},
        /* An expression with its formats, schedule and tile as compile
         * takes them; a split's size changes no graph, so a sweep over
         * sizes compiles once, but a size compile refuses is still found. */
        {"expr = X(i,j)=B(i,k)*C(k,j)\nformat = X:ss B:sq\n",
         "s.sweep:1: with expr=X(i,j)=B(i,k)*C(k,j) format=X:ss B:sq: -f=B:sq: format 'sq': "
         "level letters must be"},
        {"expr = X(i,j)=B(i,k)*C(k,j)\nschedule = reorder(i,k,j) | reorder(i,q,j)\n",
         "s.sweep:1: with expr=X(i,j)=B(i,k)*C(k,j) schedule=reorder(i,q,j): "
         "-s=reorder(i,q,j): no index variable 'q' in the expression"},
        {"expr = X(i,j)=B(i,k)*C(k,j)\nvar.n = 1..9 | 0\nschedule = split(i,i1,i0,{n})\n",
         "s.sweep:1: with expr=X(i,j)=B(i,k)*C(k,j) schedule=split(i,i1,i0,0): schedule: "
         "split(i,i1,i0,0): the size '0' is not a whole number of at least 1"},
        {"expr = X(i,j)=B(i,k)*C(k,j)\ntile = split(i,i1,i0,B.2) | split(i,i1,i0,B.2.5)\n",
         "s.sweep:1: with expr=X(i,j)=B(i,k)*C(k,j) tile=split(i,i1,i0,B.2.5): schedule: "
         "split(i,i1,i0,B.2.5): the size '2.5' is not a whole number"},
        {"expr = X(i)=B(i)\ntensor.B = gen urandom --shape 8 --nnz 2 | gen urandmo --shape 8\n",
         "s.sweep:2: key 'tensor.B': gen: unknown kind 'urandmo'"},
        {"expr = X(i)=B(i)\ntensor.B = gen urandom --shape 8\n",
         "s.sweep:2: key 'tensor.B': gen urandom: give exactly one of --density and --nnz"},
        {"expr = X(i)=B(i)\ntensor.B = gen dense --shape 8 -o b.mtx\n",
         "s.sweep:2: key 'tensor.B': gen dense: -o is the sweep's to give"},
    };
    char *dir = test_tmpdir();
    char *results = test_path(dir, "out");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *spec = test_write_file(dir, "s.sweep", cases[c].text);
        char *err = NULL;
        int rc = test_run_samsim(NULL, &err, "sweep", spec, "--local", "-o", results, NULL);
        if (rc != 1 || count_lines(err) != 1 || !strstr(err, cases[c].message))
            fail_msg("case %zu: exit %d, stderr '%s', wanted '%s'", c, rc, err, cases[c].message);
        assert_false(test_exists(results));
        free(err);
        free(spec);
    }
    free(results);
    test_tmpdir_remove(dir);
}

static void test_bad_arguments_refused(void **state)
{
    (void)state;
    static const char *const cases[][6] = {
        {"sweep", NULL},
        {"sweep", "--collect", NULL},
        {"sweep", "a.sweep", "b.sweep", NULL},
        {"sweep", "a.sweep", "--list", "--slurm", NULL},
        {"sweep", "a.sweep", "--local", "--slurm", NULL},
        {"sweep", "a.sweep", "-j", "0", NULL},
        {"sweep", "--collect", "/nonexistent/dir", NULL},
        {"sweep", "--job", "/nonexistent/dir", NULL},
        {"sweep", "a.sweep", "--array-max", "x", NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *err = NULL;
        int rc = test_run_samsim_argv(NULL, &err, (const char *const *)cases[c]);
        if (rc != 1 || count_lines(err) != 1 || strncmp(err, "samsim: ", 8))
            fail_msg("case %zu: exit %d, stderr '%s'", c, rc, err);
        free(err);
    }
}

/* ---- the library ------------------------------------------------------- */

/* Compile's and gen's checks, which are the command line's, pass all: the
 * library's own checks are what these tests see. */
static int accept_args(int argc, char **argv, sam_error *err)
{
    (void)argc, (void)argv, (void)err;
    return 0;
}

static const sweep_arg_checks accept_all = {accept_args, accept_args};

static void open_plan(const char *spec, sweep_plan *plan)
{
    sam_error err;
    if (sweep_plan_open(spec, SWEEP_MAX_JOBS, &accept_all, plan, &err))
        fail_msg("%s", err.msg);
}

/* A plan's columns and each job's parameters, keys and hash, made one at
 * a time from its number. */
static void test_plan_jobs(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *spec = test_write_file(dir, "s.sweep", "expr = X(i)=B(i)\n"
                                                 "tensor.B = B{n}.mtx\n"
                                                 "var.n = 1..3 | 10\n"
                                                 "[g=a]\n"
                                                 "[g=b]\n"
                                                 "depth = 2 | 4\n");
    sweep_plan plan;
    open_plan(spec, &plan);
    assert_int_equal(plan.njobs, 12);
    assert_int_equal(plan.ncolumns, 3);
    assert_string_equal(plan.columns[0], "g");
    assert_string_equal(plan.columns[1], "n");
    assert_string_equal(plan.columns[2], "depth");
    sweep_job job;
    sam_error err;
    assert_int_equal(sweep_plan_job(&plan, 9, &job, &err), 0);
    assert_string_equal(job.params[0], "b");
    assert_string_equal(job.params[1], "3");
    assert_string_equal(job.params[2], "4");
    char *b3 = test_path(dir, "B3.mtx"), hash[17];
    assert_string_equal(sweep_job_get(&job, "tensor.B"), b3);
    assert_string_equal(sweep_job_get(&job, "depth"), "4");
    assert_null(sweep_job_get(&job, "format"));
    job_hash((const char *const[]){"depth", "4", "expr", "X(i)=B(i)", "tensor.B", b3, "var.n",
                                   "3", NULL}, hash);
    assert_string_equal(job.hash, hash);
    assert_int_equal(sweep_plan_job(&plan, 3, &job, &err), 0);
    assert_string_equal(job.params[0], "a");
    assert_string_equal(job.params[1], "10");
    assert_string_equal(job.params[2], "");
    sweep_plan_close(&plan);
    free(b3);
    free(spec);
    test_tmpdir_remove(dir);
}

/* A prepared directory round trip: jobs.csv as the list prints it, each
 * job file read back with the plan's keys and hash, and pending.txt
 * naming the jobs without a complete result. */
static void test_store_and_pending(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *out = test_path(dir, "out");
    char *spec = test_write_file(dir, "s.sweep", "graph = g.gv\nvar.n = 1..3\ndepth = {n}\n");
    sweep_plan plan;
    open_plan(spec, &plan);
    sam_error err;
    assert_int_equal(sweep_store_create(out, &err), 0);
    assert_int_equal(sweep_store_prepare(out, &plan, &err), 0);
    char *listed, *path = test_path(out, "jobs.csv"), *stored = test_read_file(path);
    size_t size;
    FILE *f = open_memstream(&listed, &size);
    assert_non_null(f);
    assert_int_equal(sweep_store_print_list(&plan, f, &err), 0);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(stored, listed);
    sweep_job job;
    sweep_job_file back;
    assert_int_equal(sweep_plan_job(&plan, 1, &job, &err), 0);
    assert_int_equal(sweep_store_load_job(out, 1, &back, &err), 0);
    assert_string_equal(back.job.hash, job.hash);
    assert_int_equal(back.job.nkeys, job.nkeys);
    for (size_t k = 0; k < job.nkeys; k++) {
        assert_string_equal(back.job.keys[k].key, job.keys[k].key);
        assert_string_equal(back.job.keys[k].value, job.keys[k].value);
    }
    sweep_job_file_free(&back);
    assert_true(sweep_store_has_job(out, 2));
    assert_false(sweep_store_has_job(out, 3));

    char result[64], *result_path, pending[SWEEP_PATH];
    snprintf(result, sizeof result, "results/%s.csv", job.hash);
    result_path = test_path(out, result);
    const sweep_pair ok[] = {{"status", "ok"}};
    assert_int_equal(sweep_store_write_pairs(result_path, ok, 1, &err), 0);
    size_t n;
    assert_int_equal(sweep_write_pending(out, &plan, pending, &n, &err), 0);
    assert_int_equal(n, 2);
    char *text = test_read_file(pending);
    assert_string_equal(text, "0\n2\n");
    sweep_plan_close(&plan);
    free(text), free(result_path), free(listed), free(stored), free(path), free(spec), free(out);
    test_tmpdir_remove(dir);
}

/* The array's split and the script's exact text: the binary and the
 * directory quoted for sh, the tasks' logs under the directory. */
static void test_sbatch_text(void **state)
{
    (void)state;
    int64_t tasks, chunk;
    sweep_slurm_split(4, 3, &tasks, &chunk);
    assert_true(tasks == 2 && chunk == 2);
    sweep_slurm_split(1000, 1000, &tasks, &chunk);
    assert_true(tasks == 1000 && chunk == 1);
    sweep_slurm_split(1001, 1000, &tasks, &chunk);
    assert_true(tasks == 501 && chunk == 2);
    char *text;
    size_t size;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    sweep_sbatch_write(f, "/data/sweep", "/opt/it's/samsim", 5, 3, 2);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(text, "#!/bin/sh\n"
                              "# A samsim sweep: 5 jobs, 2 to an array task. Written by samsim "
                              "sweep --slurm;\n"
                              "# submit with sbatch (its options override these), then gather "
                              "with samsim sweep --collect.\n"
                              "#SBATCH --job-name=samsim-sweep\n"
                              "#SBATCH --array=0-2\n"
                              "#SBATCH --ntasks=1\n"
                              "#SBATCH --cpus-per-task=1\n"
                              "#SBATCH --output=/data/sweep/slurm/%A_%a.out\n"
                              "exec '/opt/it'\\''s/samsim' sweep --job '/data/sweep' "
                              "$((SLURM_ARRAY_TASK_ID * 2)) 2\n");
    free(text);
}

/* sweep_run_slurm names the directory absolute, writes the script there,
 * and refuses a directory #SBATCH lines cannot carry before making it. */
static void test_slurm_script_written(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *spec = test_write_file(dir, "s.sweep", "graph = g.gv\n"
                                                                        "depth = 1..5\n");
    char *sub = test_path(dir, "sub"), *round = test_path(sub, "../out");
    char *real = realpath(dir, NULL);
    assert_non_null(real);
    assert_int_equal(mkdir(sub, 0777), 0);
    sweep_plan plan;
    open_plan(spec, &plan);
    sweep_run run = {round, "/bin/samsim", 1, 2, stderr};
    sweep_slurm_script script;
    sam_error err;
    assert_int_equal(sweep_run_slurm(&run, &plan, &script, &err), 0);
    char *abs = test_path(real, "out"), *sbatch = test_path(abs, "sweep.sbatch");
    char *logs = test_path(abs, "slurm");
    assert_string_equal(script.dir, abs);
    assert_string_equal(script.path, sbatch);
    assert_true(script.tasks == 2 && script.chunk == 3);
    assert_true(test_exists(logs));
    char *text = test_read_file(sbatch), want[4200];
    snprintf(want, sizeof want, "exec '/bin/samsim' sweep --job '%s' "
                                "$((SLURM_ARRAY_TASK_ID * 3)) 3\n", abs);
    assert_non_null(strstr(text, want));
    char *quoted = test_path(dir, "it's");
    run.dir = quoted;
    assert_int_equal(sweep_run_slurm(&run, &plan, &script, &err), -1);
    assert_non_null(strstr(err.msg, "holds a blank, a quote, % or $, which #SBATCH lines"));
    assert_false(test_exists(quoted));
    sweep_plan_close(&plan);
    free(quoted), free(text), free(logs), free(sbatch), free(abs), free(real), free(round);
    free(sub), free(spec);
    test_tmpdir_remove(dir);
}

/* ---- sweeps run ------------------------------------------------------- */

/* Four jobs under GNU parallel, two at a time: each row is its direct
 * run. Run again, nothing runs; with one result removed, that job alone;
 * with the spec extended, only the new jobs. */
static void test_local_sweep_resumes(void **state)
{
    (void)state;
    if (!have_parallel())
        skip();
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out");
    write_operands(dir, 3);
    char *spec = write_orders_spec(dir, "1..2");
    char *err = NULL;
    orders_runs runs = {0};
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", spec, "--local", "-j", "2", "-o", out,
                                     NULL), 0);
    assert_non_null(strstr(err, "sweep: 4 jobs, 0 with results already, 4 to run, 2 at a time"));
    assert_non_null(strstr(err, "sweep: 4 jobs: 4 ok, 0 failed, 0 not run"));
    free(err);
    assert_orders_rows(dir, out, 2, &runs);

    char *list = NULL;
    assert_int_equal(test_run_samsim(&list, NULL, "sweep", spec, "--list", NULL), 0);
    const char *row2 = strstr(list, "\n2,kij,1,");
    assert_non_null(row2);
    char path[1024];
    snprintf(path, sizeof path, "%s/results/%.16s.csv", out, row2 + 9);
    assert_int_equal(unlink(path), 0);
    free(list);
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", spec, "-o", out, NULL), 0);
    assert_non_null(strstr(err, "sweep: 4 jobs, 3 with results already, 1 to run"));
    assert_non_null(strstr(err, "job 2 (order=kij pair=1): ok"));
    free(err);
    assert_orders_rows(dir, out, 2, &runs);

    free(spec);
    spec = write_orders_spec(dir, "1..3");
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", spec, "-o", out, NULL), 0);
    assert_non_null(strstr(err, "sweep: 6 jobs, 4 with results already, 2 to run"));
    free(err);
    assert_orders_rows(dir, out, 3, &runs);
    orders_runs_free(&runs);
    free(spec);
    free(out);
    test_tmpdir_remove(dir);
}

/* The results written so far in out/results (not a temporary file). */
static int count_results(const char *out)
{
    return count_entries(out, "results", ".csv");
}

/* A sweep interrupted (SIGINT to its process group, as a terminal's
 * Ctrl-C) while its second job runs keeps the first job's result; run
 * again, it runs the rest and every row is right. */
static void test_interrupted_sweep_continues(void **state)
{
    (void)state;
    if (!have_parallel())
        skip();
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out");
    write_operands(dir, 1);
    free(test_gen_urandom(dir, "mid.mtx", "300x300", "0.05", 9));
    char *graph = test_compile_to(dir, "ijk", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss "
                                              "-f=C:ss:1,0 -s=reorder(i,j,k)");
    char text[1024];
    snprintf(text, sizeof text,
             "graph = %s\n"
             "[case=quick]\ntensor.B = B1.mtx\ntensor.C = C1.mtx\n"
             "[case=slow]\ntensor.B = mid.mtx\ntensor.C = mid.mtx\nengine = cycle\n"
             "[case=last]\ntensor.B = B1.mtx\ntensor.C = C1.mtx\ndepth = 2\n",
             graph);
    char *spec = test_write_file(dir, "stop.sweep", text);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        execl(getenv("SAMSIM_BIN"), "samsim", "sweep", spec, "-j", "1", "-o", out, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    struct timespec tick = {0, 10000000};
    for (int waited = 0; count_results(out) < 1 && waited < 60000; waited += 10)
        nanosleep(&tick, NULL);
    assert_int_equal(count_results(out), 1);
    kill(-pid, SIGINT);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(count_results(out), 1);

    char *err = NULL;
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", spec, "-j", "1", "-o", out, NULL), 0);
    assert_non_null(strstr(err, "sweep: 3 jobs, 1 with results already, 2 to run"));
    free(err);
    csv_table t;
    read_results(out, &t);
    char *b = test_path(dir, "B1.mtx"), *c = test_path(dir, "C1.mtx");
    char *m = test_path(dir, "mid.mtx");
    char *summary = direct_run(graph, b, c, NULL);
    assert_row_is(&t, 0, summary);
    free(summary);
    summary = direct_run(graph, m, m, NULL);
    assert_row_is(&t, 1, summary);
    assert_string_equal(cell(&t, 2, "status"), "ok");
    csv_table_free(&t);
    /* No job's files are left behind. */
    assert_int_equal(count_entries(out, "work", ""), 0);
    free(summary);
    free(b);
    free(c);
    free(m);
    free(spec);
    free(graph);
    free(out);
    test_tmpdir_remove(dir);
}

/* A job that fails, one that stops at --max-cycles and one past its
 * timeout are rows with their errors; the others still run. */
static void test_failed_jobs_are_rows(void **state)
{
    (void)state;
    if (!have_parallel())
        skip();
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out");
    write_operands(dir, 1);
    free(test_gen_urandom(dir, "big.mtx", "1500x1500", "0.05", 9));
    char *graph = test_compile_to(dir, "ijk", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss "
                                              "-f=C:ss:1,0 -s=reorder(i,j,k)");
    char text[2048];
    snprintf(text, sizeof text,
             "graph = %s\n"
             "[case=ok]\ntensor.B = B1.mtx\ntensor.C = C1.mtx\n"
             "[case=missing]\ntensor.B = nothing.mtx\ntensor.C = C1.mtx\n"
             "[case=stopped]\ntensor.B = B1.mtx\ntensor.C = C1.mtx\nmax-cycles = 10\n"
             "[case=slow]\ntensor.B = big.mtx\ntensor.C = big.mtx\nengine = cycle\n"
             "timeout = 0.2\n",
             graph);
    char *spec = test_write_file(dir, "cases.sweep", text);
    char *err = NULL;
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", spec, "-o", out, NULL), 1);
    assert_non_null(strstr(err, "sweep: 4 jobs: 1 ok, 1 stopped, 2 failed, 0 not run"));
    free(err);
    csv_table t;
    read_results(out, &t);
    char *b = test_path(dir, "B1.mtx"), *c = test_path(dir, "C1.mtx");
    char *summary = direct_run(graph, b, c, NULL);
    assert_row_is(&t, 0, summary);
    assert_string_equal(cell(&t, 1, "status"), "failed");
    assert_string_equal(cell(&t, 1, "exit"), "1");
    assert_non_null(strstr(cell(&t, 1, "error"), "run: "));
    assert_non_null(strstr(cell(&t, 1, "error"), "nothing.mtx: cannot open"));
    assert_string_equal(cell(&t, 2, "status"), "stopped");
    assert_string_equal(cell(&t, 2, "exit"), "2");
    assert_string_equal(cell(&t, 3, "status"), "timeout");
    assert_string_equal(cell(&t, 3, "error"), "run: no result after 0.2 s");
    assert_true(atof(cell(&t, 3, "job_seconds")) < 5);
    csv_table_free(&t);
    free(summary);
    free(b);
    free(c);
    free(spec);
    free(graph);
    free(out);
    test_tmpdir_remove(dir);
}

/* Only complete jobs are kept on a rerun: one that failed (its operand
 * missing) runs again once the operand is there, while one stopped at
 * max-cycles, which would stop there again, keeps its result. -j beyond
 * the jobs to run starts no more slots than jobs. */
static void test_failed_jobs_rerun(void **state)
{
    (void)state;
    if (!have_parallel())
        skip();
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out");
    write_operands(dir, 1);
    char *graph = test_compile_to(dir, "ijk", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss "
                                              "-f=C:ss:1,0 -s=reorder(i,j,k)");
    char text[1024];
    snprintf(text, sizeof text,
             "graph = %s\ntensor.C = C1.mtx\n"
             "[case=late]\ntensor.B = late.mtx\n"
             "[case=stopped]\ntensor.B = B1.mtx\nmax-cycles = 10\n",
             graph);
    char *spec = test_write_file(dir, "late.sweep", text);
    char *err = NULL;
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", spec, "-j", "4096", "-o", out, NULL), 1);
    assert_non_null(strstr(err, "sweep: 2 jobs, 0 with results already, 2 to run, 2 at a time\n"));
    assert_non_null(strstr(err, "sweep: 2 jobs: 0 ok, 1 stopped, 1 failed, 0 not run"));
    free(err);
    csv_table t;
    read_results(out, &t);
    assert_string_equal(cell(&t, 0, "status"), "failed");
    assert_non_null(strstr(cell(&t, 0, "error"), "late.mtx: cannot open"));
    assert_string_equal(cell(&t, 1, "status"), "stopped");
    assert_string_equal(cell(&t, 1, "exit"), "2");
    csv_table_free(&t);
    char *jobs = test_path(out, "jobs.csv"), stopped[1024];
    sam_error e;
    if (csv_table_read(jobs, &t, &e))
        fail_msg("%s", e.msg);
    snprintf(stopped, sizeof stopped, "%s/results/%s.csv", out, cell(&t, 1, "hash"));
    csv_table_free(&t);
    free(jobs);
    char *kept = test_read_file(stopped);
    char *b = test_path(dir, "B1.mtx"), *late = test_path(dir, "late.mtx");
    char *mtx = test_read_file(b);
    free(test_write_file(dir, "late.mtx", mtx));
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", spec, "-j", "4096", "-o", out, NULL), 1);
    assert_non_null(strstr(err, "sweep: 2 jobs, 1 with results already, 1 to run, 1 at a time\n"));
    assert_non_null(strstr(err, "sweep: 2 jobs: 1 ok, 1 stopped, 0 failed, 0 not run"));
    free(err);
    char *c = test_path(dir, "C1.mtx");
    char *summary = direct_run(graph, late, c, NULL);
    read_results(out, &t);
    assert_row_is(&t, 0, summary);
    assert_string_equal(cell(&t, 1, "status"), "stopped");
    char *again = test_read_file(stopped);
    assert_string_equal(again, kept);
    csv_table_free(&t);
    free(again);
    free(summary);
    free(c);
    free(mtx);
    free(kept);
    free(late);
    free(b);
    free(spec);
    free(graph);
    free(out);
    test_tmpdir_remove(dir);
}

/* A sweep of write_slow_spec's two jobs, one at a time, running its slow
 * second job: its folder, spec, graph and process. */
typedef struct slow_sweep {
    char *dir, *out, *spec, *graph;
    pid_t pid;
} slow_sweep;

/* Starts it, its standard error into errs (NULL: the test's). */
static void slow_sweep_start(slow_sweep *s, const char *errs_name)
{
    s->dir = test_tmpdir();
    s->out = test_path(s->dir, "out");
    s->spec = write_slow_spec(s->dir, "60", &s->graph);
    char *errs = errs_name ? test_path(s->dir, errs_name) : NULL;
    s->pid = test_start_samsim((const char *const[]){"sweep", s->spec, "-j", "1", "-o", s->out, NULL},
                          NULL, errs);
    free(errs);
    wait_results(s->out, 1);
}

static void slow_sweep_free(slow_sweep *s)
{
    free(s->spec);
    free(s->graph);
    free(s->out);
    test_tmpdir_remove(s->dir);
}

/* While a sweep runs in a directory, another sweep, a --slurm preparation
 * and a --collect there are refused at once, naming it. The lock goes
 * with the sweep, however it dies: after a SIGKILL, once its GNU parallel
 * and jobs are stopped too, and the next sweep runs. */
static void test_concurrent_sweep_refused(void **state)
{
    (void)state;
    if (!have_parallel())
        skip();
    slow_sweep s;
    slow_sweep_start(&s, NULL);
    const char *spec = s.spec, *out = s.out;
    char *sbatch = test_path(out, "sweep.sbatch");
    char want[1200];
    snprintf(want, sizeof want, "samsim: %s: another sweep is running there", out);
    static const char *const refused[][6] = {{"sweep", "SPEC", "--local", "-o", "OUT", NULL},
                                             {"sweep", "SPEC", "--slurm", "-o", "OUT", NULL},
                                             {"sweep", "--collect", "OUT", NULL}};
    for (size_t k = 0; k < 3; k++) {
        const char *argv[6];
        for (size_t a = 0; a < 6; a++)
            argv[a] = !refused[k][a]                  ? NULL
                      : !strcmp(refused[k][a], "SPEC") ? spec
                      : !strcmp(refused[k][a], "OUT")  ? out
                                                       : refused[k][a];
        char *err = NULL;
        int rc = test_run_samsim_argv(NULL, &err, argv);
        if (rc != 1 || count_lines(err) != 1 || strncmp(err, want, strlen(want)))
            fail_msg("case %zu: exit %d, stderr '%s'", k, rc, err);
        free(err);
    }
    assert_false(test_exists(sbatch));
    kill(s.pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(s.pid, &status, 0), s.pid);
    assert_true(lock_let_go(out, 30));
    assert_int_equal(processes_left(out, 30), 0);
    char *err = NULL;
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", "--collect", out, NULL), 1);
    assert_non_null(strstr(err, "sweep: 2 jobs: 1 ok, 0 failed, 1 not run"));
    free(err);
    free(sbatch);
    slow_sweep_free(&s);
}

/* SIGTERM to the sweep's process alone (kill, timeout, a batch system's
 * limit) stops GNU parallel and the job running, writes results.csv with
 * the rows of the jobs done, and ends the sweep by that signal. */
static void test_sigterm_stops_jobs(void **state)
{
    (void)state;
    if (!have_parallel())
        skip();
    slow_sweep s;
    slow_sweep_start(&s, "stderr");
    kill(s.pid, SIGTERM);
    int status;
    assert_int_equal(waitpid(s.pid, &status, 0), s.pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_int_equal(processes_left(s.out, 30), 0);
    char *errs = test_path(s.dir, "stderr"), *err = test_read_file(errs);
    assert_non_null(strstr(err, "sweep: stopped by SIGTERM; samsim sweep again runs the jobs "
                                "not done\n"));
    assert_non_null(strstr(err, "sweep: 2 jobs: 1 ok, 0 failed, 1 not run"));
    csv_table t;
    read_results(s.out, &t);
    assert_int_equal(t.nrows, 3);
    char *b = test_path(s.dir, "B1.mtx"), *c = test_path(s.dir, "C1.mtx");
    char *summary = direct_run(s.graph, b, c, NULL);
    assert_row_is(&t, 0, summary);
    assert_string_equal(cell(&t, 1, "status"), "pending");
    csv_table_free(&t);
    free(summary);
    free(b);
    free(c);
    free(err);
    free(errs);
    slow_sweep_free(&s);
}

/* A stand-in for GNU parallel in bin that starts a job naming out (a
 * process group of its own, as parallel's are) and, told by SIGINT to
 * stop, exits without stopping it: what parallel does with a job it was
 * starting as the signal came, every time. */
static void write_forgetful_parallel(const char *bin, const char *out)
{
    char text[2048];
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "[ \"$1\" = --version ] && { echo 'GNU parallel (a stand-in)'; exit 0; }\n"
             "setsid sh -c 'sleep 60; :' job '%s' &\n"
             "trap 'exit 255' INT\n"
             ": > '%s/started'\n"
             "while :; do sleep 1; done\n",
             out, bin);
    char *fake = test_write_file(bin, "parallel", text);
    assert_int_equal(chmod(fake, 0755), 0);
    free(fake);
}

/* A sweep started with SIGINT as sigint (ignored, as a script's
 * background job has it, or not) and killed by SIGKILL, which it cannot
 * catch, leaves no job running, not even one GNU parallel forgot as it
 * stopped. */
static void killed_sweep_leaves_no_job(void (*sigint)(int))
{
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out"), *started = test_path(dir, "started");
    char *spec = test_write_file(dir, "one.sweep", "expr = X(i,j)=B(i,j)\ntensor.B = B1.mtx\n");
    write_operands(dir, 1);
    write_forgetful_parallel(dir, out);
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "");
    char fake_path[8192];
    snprintf(fake_path, sizeof fake_path, "%s:%s", dir, path);
    struct sigaction given = {.sa_handler = sigint}, own;
    assert_int_equal(setenv("PATH", fake_path, 1), 0);
    sigaction(SIGINT, &given, &own);
    pid_t pid = test_start_samsim((const char *const[]){"sweep", spec, "-o", out, NULL}, NULL, NULL);
    sigaction(SIGINT, &own, NULL);
    assert_int_equal(setenv("PATH", path, 1), 0);
    struct timespec tick = {0, 10000000};
    for (int waited = 0; !test_exists(started) && waited < 60000; waited += 10)
        nanosleep(&tick, NULL);
    assert_true(test_exists(started));
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(lock_let_go(out, 30));
    assert_int_equal(processes_left(out, 30), 0);
    char *err = NULL;
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", "--collect", out, NULL), 1);
    assert_non_null(strstr(err, "sweep: 1 jobs: 0 ok, 0 failed, 1 not run"));
    free(err);
    free(path);
    free(spec);
    free(started);
    free(out);
    test_tmpdir_remove(dir);
}

static void test_killed_sweep_leaves_no_job(void **state)
{
    (void)state;
    killed_sweep_leaves_no_job(SIG_DFL);
    killed_sweep_leaves_no_job(SIG_IGN);
}

/* A generator's tensor is made once for every job that names it, and is
 * the file samsim gen writes. */
static void test_generated_operands_shared(void **state)
{
    (void)state;
    if (!have_parallel())
        skip();
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out");
    char *spec = test_write_file(dir, "gen.sweep",
                                 "expr = X(i,j)=B(i,k)*C(k,j)\n"
                                 "format = X:ss B:ss C:ss\n"
                                 "tensor.B = gen urandom --shape 30x20 --density 0.1 --seed 5\n"
                                 "tensor.C = gen urandom --shape 20x{n} --density 0.1 --seed 6\n"
                                 "var.n = 10 | 30\n"
                                 "impl = intersect=twofinger | intersect=skip\n"
                                 "stats = yes\n");
    assert_int_equal(test_run_samsim(NULL, NULL, "sweep", spec, "-o", out, NULL), 0);
    assert_int_equal(count_entries(out, "data", ""), 3);

    char *b = test_path(dir, "B.tns"), *c = test_path(dir, "C.tns");
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "30x20", "--density",
                                     "0.1", "--seed", "5", "-o", b, NULL), 0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "20x30", "--density",
                                     "0.1", "--seed", "6", "-o", c, NULL), 0);
    char *graph = test_compile_to(dir, "ikj", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss");
    char *summary = direct_run(graph, b, c, NULL);
    csv_table t;
    read_results(out, &t);
    assert_int_equal(t.nrows, 5);
    assert_string_equal(cell(&t, 2, "n"), "30");
    assert_string_equal(cell(&t, 2, "impl"), "intersect=twofinger");
    assert_row_is(&t, 2, summary);
    /* stats = yes: each job's --stats file, its run row ending in the
     * row's last cycle. */
    for (size_t job = 0; job < 4; job++) {
        char *stats = test_path(out, cell(&t, job, "stats_file"));
        csv_table s;
        sam_error err;
        if (csv_table_read(stats, &s, &err))
            fail_msg("%s", err.msg);
        assert_string_equal(s.rows[1].cells[0], "run");
        assert_int_equal(atoll(s.rows[1].cells[csv_table_column(&s, "last_cycle")]) + 1,
                         atoll(cell(&t, job, "cycles")));
        csv_table_free(&s);
        free(stats);
    }
    csv_table_free(&t);
    free(summary);
    free(graph);
    free(b);
    free(c);
    free(spec);
    free(out);
    test_tmpdir_remove(dir);
}

/* A generator's pair: --second NAME binds the partner vector, the one
 * samsim gen writes beside the first. */
static void test_generated_pair(void **state)
{
    (void)state;
    if (!have_parallel())
        skip();
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out");
    char *spec = test_write_file(dir, "pair.sweep",
                                 "expr = x(i)=b(i)*c(i)\n"
                                 "tensor.b = gen runs --shape 200 --nnz 40 --run {run} --seed 1 "
                                 "--second c\n"
                                 "var.run = 2 | 10\n");
    assert_int_equal(test_run_samsim(NULL, NULL, "sweep", spec, "-o", out, NULL), 0);
    char *b = test_path(dir, "b.tns"), *c = test_path(dir, "c.tns");
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "runs", "--shape", "200", "--nnz", "40",
                                     "--run", "10", "--seed", "1", "-o", b, "--second", c, NULL),
                     0);
    char *graph = test_compile_to(dir, "mul", "x(i)=b(i)*c(i)");
    char *summary = direct_run_as(graph, "b", b, "c", c, NULL);
    csv_table t;
    read_results(out, &t);
    assert_string_equal(cell(&t, 1, "run"), "10");
    assert_row_is(&t, 1, summary);
    csv_table_free(&t);
    free(summary);
    free(graph);
    free(b);
    free(c);
    free(spec);
    free(out);
    test_tmpdir_remove(dir);
}

/* The Slurm script, run as an array task would run it (without Slurm):
 * four jobs in two tasks of two, gathered by --collect. */
static void test_slurm_script_by_hand(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out");
    write_operands(dir, 2);
    char *spec = write_orders_spec(dir, "1..2");
    char *err = NULL;
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", spec, "--slurm", "--array-max", "3",
                                     "-o", out, NULL), 0);
    assert_non_null(strstr(err, "sweep: 4 jobs in 2 array tasks of 2; submit with"));
    free(err);
    char *sbatch = test_path(out, "sweep.sbatch");
    char *script = test_read_file(sbatch);
    assert_non_null(strstr(script, "\n#SBATCH --array=0-1\n"));
    assert_non_null(strstr(script, " sweep --job '"));
    assert_non_null(strstr(script, "' $((SLURM_ARRAY_TASK_ID * 2)) 2\n"));
    assert_int_equal(test_run_samsim(NULL, NULL, "sweep", "--collect", out, NULL), 1);
    for (int task = 0; task < 2; task++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "SLURM_ARRAY_TASK_ID=%d sh '%s' >/dev/null", task, sbatch);
        assert_int_equal(system(cmd), 0);
    }
    err = NULL;
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", "--collect", out, NULL), 0);
    assert_non_null(strstr(err, "sweep: 4 jobs: 4 ok, 0 failed, 0 not run"));
    free(err);
    orders_runs runs = {0};
    assert_orders_rows(dir, out, 2, &runs);
    orders_runs_free(&runs);
    free(script);
    free(sbatch);
    free(spec);
    free(out);
    test_tmpdir_remove(dir);
}

/* --job for a job the directory lacks is an error; --collect with a
 * result that cannot be read names it, gives its job a pending row with
 * the problem as error, keeps every other row and exits 1. */
static void test_collect_keeps_rows_of_bad_results(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out");
    write_operands(dir, 2);
    char *spec = write_orders_spec(dir, "1..2");
    assert_int_equal(test_run_samsim(NULL, NULL, "sweep", spec, "--slurm", "-o", out, NULL), 0);
    char *err = NULL;
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", "--job", out, "4", NULL), 1);
    char want[1200];
    snprintf(want, sizeof want, "samsim: %s: no job 4 (jobs/4.job)\n", out);
    assert_string_equal(err, want);
    free(err);
    assert_int_equal(test_run_samsim(NULL, NULL, "sweep", "--job", out, "0", "4", NULL), 0);
    assert_int_equal(count_entries(out, "results", ".csv"), 4);

    csv_table jobs;
    char *list = test_path(out, "jobs.csv"), name[64];
    sam_error e;
    if (csv_table_read(list, &jobs, &e))
        fail_msg("%s", e.msg);
    snprintf(name, sizeof name, "results/%s.csv", cell(&jobs, 1, "hash"));
    csv_table_free(&jobs);
    char *bad = test_write_file(out, name, "status,\"ok\n");
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", "--collect", out, NULL), 1);
    snprintf(want, sizeof want, "samsim: %s:1: malformed CSV", bad);
    assert_true(!strncmp(err, want, strlen(want)));
    assert_non_null(strstr(err, "; job 1 is pending\n"));
    assert_non_null(strstr(err, "sweep: 4 jobs: 3 ok, 0 failed, 1 not run"));
    free(err);
    csv_table t;
    read_results(out, &t);
    assert_int_equal(t.nrows, 5);
    assert_string_equal(cell(&t, 1, "status"), "pending");
    assert_true(!strncmp(cell(&t, 1, "error"), want + 8, strlen(want) - 8));
    for (size_t job = 0; job < 4; job++)
        if (job != 1)
            assert_string_equal(cell(&t, job, "status"), "ok");
    csv_table_free(&t);
    free(bad);
    free(list);
    free(spec);
    free(out);
    test_tmpdir_remove(dir);
}

/* A directory --slurm cannot name in its script is refused before
 * anything is written there. */
static void test_slurm_refusal_writes_nothing(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *out = test_path(dir, "it's");
    write_operands(dir, 1);
    char *spec = write_orders_spec(dir, "1");
    char *err = NULL;
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", spec, "--slurm", "-o", out, NULL), 1);
    assert_int_equal(count_lines(err), 1);
    assert_non_null(strstr(err, "holds a blank, a quote, % or $, which #SBATCH lines cannot"));
    assert_false(test_exists(out));
    free(err);
    free(spec);
    free(out);
    test_tmpdir_remove(dir);
}

/* Template parameters and hardware keys reach the run as samsim template
 * --param and a --hw file would. */
static void test_template_and_hw_keys(void **state)
{
    (void)state;
    if (!have_parallel())
        skip();
    char *dir = test_tmpdir();
    char *out = test_path(dir, "out");
    write_operands(dir, 1);
    free(test_gen_urandom(dir, "A.mtx", "40x30", "0.08", 7));
    /* The gamma section's tensor.B replaces the one above the sections. */
    char *spec = test_write_file(dir, "hw.sweep",
                                 "tensor.B = B1.mtx\n"
                                 "[way=tiled]\n"
                                 "expr = X(i,j)=B(i,k)*C(k,j)\n"
                                 "schedule = split(i,i1,i0,8) split(k,k1,k0,8) split(j,j1,j0,8)\n"
                                 "tensor.C = C1.mtx\n"
                                 "hw.dram.bandwidth = 1 | 4\n"
                                 "hw.pe.capacity = 100000\n"
                                 "[way=gamma]\n"
                                 "template = gamma\n"
                                 "template.pe.count = 2 | 4\n"
                                 "tensor.A = A.mtx\n"
                                 "tensor.B = C1.mtx\n");
    assert_int_equal(test_run_samsim(NULL, NULL, "sweep", spec, "-o", out, NULL), 0);
    csv_table t;
    read_results(out, &t);
    assert_int_equal(t.nrows, 5);
    char *graph = test_compile_to(dir, "tiled", "X(i,j)=B(i,k)*C(k,j) -s=split(i,i1,i0,8) "
                                               "-s=split(k,k1,k0,8) -s=split(j,j1,j0,8)");
    char *b = test_path(dir, "B1.mtx"), *c = test_path(dir, "C1.mtx"), *a = test_path(dir, "A.mtx");
    for (int k = 0; k < 2; k++) {
        char text[128], name[16];
        snprintf(text, sizeof text, "dram.bandwidth = %d\npe.capacity = 100000\n", k ? 4 : 1);
        snprintf(name, sizeof name, "%d.hw", k);
        char *hw = test_write_file(dir, name, text);
        char *summary = direct_run(graph, b, c, hw);
        assert_string_equal(cell(&t, (size_t)k, "hw.dram.bandwidth"), k ? "4" : "1");
        assert_row_is(&t, (size_t)k, summary);
        assert_int_equal(atoll(cell(&t, (size_t)k, "dram_bytes")),
                         test_summary(summary, "dram_bytes"));
        free(summary);
        free(hw);
    }
    for (int k = 0; k < 2; k++) {
        char param[32];
        snprintf(param, sizeof param, "pe.count=%d", k ? 4 : 2);
        char *tdir = test_path(dir, k ? "gamma4" : "gamma2");
        assert_int_equal(test_run_samsim(NULL, NULL, "template", "gamma", "--param", param, "-o",
                                         tdir, NULL), 0);
        char *summary = direct_run_as(tdir, "A", a, "B", c, NULL);
        assert_string_equal(cell(&t, 2 + (size_t)k, "template.pe.count"), k ? "4" : "2");
        assert_row_is(&t, 2 + (size_t)k, summary);
        free(summary);
        free(tdir);
    }
    csv_table_free(&t);
    free(a);
    free(b);
    free(c);
    free(graph);
    free(spec);
    free(out);
    test_tmpdir_remove(dir);
}

/* ---- a real Slurm ----------------------------------------------------- */

typedef struct cluster {
    char *dir;          /* the test's directory */
    char *slurm;        /* the cluster's, under it */
    char conf[1024];    /* SLURM_CONF=... once it runs */
} cluster;

static int cluster_setup(void **state)
{
    cluster *c = calloc(1, sizeof *c);
    c->dir = test_tmpdir();
    c->slurm = test_path(c->dir, "slurm");
    *state = c;
    return 0;
}

static int cluster_teardown(void **state)
{
    cluster *c = *state;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "test/slurm-cluster stop '%s' >/dev/null 2>&1", c->slurm);
    if (system(cmd) != 0)
        return -1;
    free(c->slurm);
    test_tmpdir_remove(c->dir);
    free(c);
    return 0;
}

/* Starts the cluster: 0, or 77 when this machine cannot run one. A start
 * that fails otherwise is tried once more before the test fails. */
static int cluster_start(cluster *c)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "test/slurm-cluster start '%s'", c->slurm);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        if (!fgets(c->conf, sizeof c->conf, p))
            c->conf[0] = '\0';
        int status = pclose(p);
        c->conf[strcspn(c->conf, "\n")] = '\0';
        if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
            return 77;
        if (status == 0 && !strncmp(c->conf, "SLURM_CONF=", 11))
            return 0;
    }
    fail_msg("test/slurm-cluster could not start a cluster (its logs: %s/log)", c->slurm);
    return -1;
}

/* Every cell of two results files agrees but the wall times. */
static void assert_same_results(const char *a_dir, const char *b_dir)
{
    static const char *const timing[] = {"wall_seconds", "tokens_per_second", "job_seconds"};
    csv_table a, b;
    read_results(a_dir, &a);
    read_results(b_dir, &b);
    assert_int_equal(a.nrows, b.nrows);
    for (size_t r = 0; r < a.nrows; r++) {
        assert_int_equal(a.rows[r].ncells, b.rows[r].ncells);
        for (size_t k = 0; k < a.rows[r].ncells; k++) {
            int skip = 0;
            for (size_t t = 0; t < 3; t++)
                skip |= r > 0 && (int)k == csv_table_column(&a, timing[t]);
            if (!skip && strcmp(a.rows[r].cells[k], b.rows[r].cells[k]))
                fail_msg("row %zu, %s: '%s' and '%s'", r, a.rows[0].cells[k],
                         a.rows[r].cells[k], b.rows[r].cells[k]);
        }
    }
    csv_table_free(&a);
    csv_table_free(&b);
}

/* A single-node Slurm on this machine runs the sweep's job array with
 * sbatch; the rows gathered equal the direct runs' and GNU parallel's. */
static void test_sweep_on_slurm(void **state)
{
    cluster *c = *state;
    if (!have_parallel())
        skip();
    if (cluster_start(c) == 77) {
        printf("note: no Slurm here (test/slurm-cluster needs root with slurm-wlm and munge, "
               "which scripts/install-deps --test installs): skipped\n");
        skip();
    }
    char *out = test_path(c->dir, "slurm-sweep"), *local = test_path(c->dir, "local-sweep");
    write_operands(c->dir, 2);
    char *spec = write_orders_spec(c->dir, "1..2");
    assert_int_equal(test_run_samsim(NULL, NULL, "sweep", spec, "--slurm", "-o", out, NULL), 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s sbatch --wait --quiet '%s/sweep.sbatch'", c->conf, out);
    assert_int_equal(system(cmd), 0);
    char *err = NULL;
    assert_int_equal(test_run_samsim(NULL, &err, "sweep", "--collect", out, NULL), 0);
    assert_non_null(strstr(err, "sweep: 4 jobs: 4 ok, 0 failed, 0 not run"));
    free(err);
    orders_runs runs = {0};
    assert_orders_rows(c->dir, out, 2, &runs);
    orders_runs_free(&runs);
    assert_int_equal(test_run_samsim(NULL, NULL, "sweep", spec, "--local", "-o", local, NULL), 0);
    assert_same_results(out, local);
    free(spec);
    free(out);
    free(local);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_expands_in_order),
        cmocka_unit_test(test_one_job_listed),
        cmocka_unit_test(test_million_jobs_listed_lean),
        cmocka_unit_test(test_hash_sign_in_values),
        cmocka_unit_test(test_bad_specs_refused),
        cmocka_unit_test(test_bad_arguments_refused),
        cmocka_unit_test(test_plan_jobs),
        cmocka_unit_test(test_store_and_pending),
        cmocka_unit_test(test_sbatch_text),
        cmocka_unit_test(test_slurm_script_written),
        cmocka_unit_test(test_local_sweep_resumes),
        cmocka_unit_test(test_interrupted_sweep_continues),
        cmocka_unit_test(test_failed_jobs_are_rows),
        cmocka_unit_test(test_failed_jobs_rerun),
        cmocka_unit_test(test_concurrent_sweep_refused),
        cmocka_unit_test(test_sigterm_stops_jobs),
        cmocka_unit_test(test_killed_sweep_leaves_no_job),
        cmocka_unit_test(test_generated_operands_shared),
        cmocka_unit_test(test_generated_pair),
        cmocka_unit_test(test_slurm_script_by_hand),
        cmocka_unit_test(test_collect_keeps_rows_of_bad_results),
        cmocka_unit_test(test_slurm_refusal_writes_nothing),
        cmocka_unit_test(test_template_and_hw_keys),
        cmocka_unit_test_setup_teardown(test_sweep_on_slurm, cluster_setup, cluster_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
