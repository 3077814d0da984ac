/* `samsim run --trace` (report/trace_json.h): a track per block with its
 * busy, blocked and starved slices. A hand-worked graph gives exactly the
 * slices its timing rules make; on compiled kernels, bounded and not,
 * Python's JSON parser reads the file, every event has the Trace Event
 * Format's fields, no two slices of a track overlap, and each block's
 * busy, blocked and starved cycles in the trace equal those --stats
 * counts; every engine, windows split anywhere, writes the same file;
 * --trace-window and --trace-blocks cut it; bad options are refused. */
#include <stdlib.h>
#include <string.h>

#include "../common/process.h"
#include "test_util.h"

/* The slices of a trace, one line each: "TID NAME TS DUR". */
static char *slices_of(const char *json)
{
    static const char script[] =
        "import json, sys\n"
        "d = json.load(sys.stdin)\n"
        "for e in d['traceEvents']:\n"
        "    if e['ph'] == 'X':\n"
        "        print(e['tid'], e['name'], e['ts'], e['dur'])\n";
    const char *argv[] = {"python3", "-c", script, NULL};
    process_result r;
    sam_error err = {{0}};
    if (process_run(argv, json, 60, &r, &err) || r.status)
        fail_msg("python3: %s %s", err.msg, r.err ? r.err : "");
    char *out = strdup(r.out);
    process_result_free(&r);
    return out;
}

/* Checks a trace against the statistics file of the same run: "ok" or
 * what differs. */
static const char check_script[] =
    "import csv, json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "assert isinstance(d['traceEvents'], list) and d['otherData']['time'] == 'cycles'\n"
    "names, sums, ends = {}, {}, {}\n"
    "for e in d['traceEvents']:\n"
    "    for k in ('ph', 'pid', 'name'):\n"
    "        assert k in e, ('no', k, e)\n"
    "    if e['ph'] == 'M':\n"
    "        if e['name'] == 'thread_name':\n"
    "            names[e['tid']] = e['args']['name'].split()[0]\n"
    "        continue\n"
    "    if e['ph'] == 'C':\n"
    "        assert isinstance(e['ts'], int) and e['args']['tokens'] >= 0, e\n"
    "        continue\n"
    "    assert e['ph'] == 'X', e\n"
    "    for k in ('ts', 'dur', 'tid'):\n"
    "        assert isinstance(e[k], int), ('no', k, e)\n"
    "    assert e['dur'] > 0 and e['ts'] >= ends.get(e['tid'], 0), ('overlap', e)\n"
    "    ends[e['tid']] = e['ts'] + e['dur']\n"
    "    s = sums.setdefault(names[e['tid']], {})\n"
    "    s[e['name']] = s.get(e['name'], 0) + e['dur']\n"
    "bad = []\n"
    "for r in csv.DictReader(open(sys.argv[2])):\n"
    "    if r['row'] != 'block':\n"
    "        continue\n"
    "    for k in ('busy', 'blocked', 'starved'):\n"
    "        got, want = sums.get(r['id'], {}).get(k, 0), int(r[k] or 0)\n"
    "        if got != want:\n"
    "            bad.append('block %s %s: trace %d, stats %d' % (r['id'], k, got, want))\n"
    "print('\\n'.join(bad) if bad else 'ok')\n";

static void expect_trace_matches_stats(const char *trace, const char *stats)
{
    const char *argv[] = {"python3", "-c", check_script, trace, stats, NULL};
    process_result r;
    sam_error err = {{0}};
    if (process_run(argv, NULL, 60, &r, &err))
        fail_msg("python3: %s", err.msg);
    if (r.status || strcmp(r.out, "ok\n"))
        fail_msg("%s: %s%s", trace, r.out, r.err);
    process_result_free(&r);
}

/* x(i) = b(i) on b = (0, 1.5, 0, 0, 2.5): the scanner's coordinates go
 * to writer 2, which takes one every 3 cycles (node.2.ii), and its
 * references to the array; channels of one token, latency 1. */
static void run_vector(const char *dir, const char *const *extra, char **json)
{
    char *graph = test_compile_to(dir, "copy", "x(i)=b(i) -f=x:s -f=b:s");
    char *data = test_write_file(dir, "b.tns", "2 1.5\n5 2.5\n");
    char *config = test_write_file(dir, "slow.cfg", "node.2.ii = 3\n");
    char *trace = test_path(dir, "trace.json");
    char bind[512];
    snprintf(bind, sizeof bind, "b=%s", data);
    const char *argv[TEST_MAX_ARGS] = {"run", graph, "-t", bind, "--depth", "1",
                                       "--config", config, "--trace", trace};
    int n = 10;
    for (int k = 0; extra[k]; k++)
        argv[n++] = extra[k];
    argv[n] = NULL;
    char *out = NULL, *err = NULL;
    int rc = test_run_samsim_argv(&out, &err, argv);
    if (rc)
        fail_msg("run: exit %d: %s", rc, err);
    assert_int_equal(test_summary(out, "cycles"), 11);
    *json = test_read_file(trace);
    assert_non_null(*json);
    free(out), free(err), free(graph), free(data), free(config), free(trace);
}

/* Worked by hand, a token a cycle where nothing stops it. Scanner (tid
 * 1): 1 at 0; the writer pops it at 1, so its channel has room from 2:
 * refused at 1, 4 at 2; the writer (ready at 4) pops 4 at 4: refused
 * 3-4, the stop at 5; the writer pops it at 7: refused 6-7, D at 8. The
 * array (tid 2): ref 1 at 1; at 2 its value waits in its channel until
 * the value writer pops it in that cycle: refused at 2; ref 4, visible
 * at 3, at 3; the stop, pushed at 5, at 6; D, pushed at 8, at 9. Writer
 * (tid 3, ii 3): 1 at 1, 4 at 4, the stop at 7, D at 10: busy 1-10. The
 * value writer (tid 4): what the array pushed, a cycle later. */
static const char hand_worked[] =
    "1 busy 0 1\n1 blocked 1 1\n1 busy 2 1\n1 blocked 3 2\n1 busy 5 1\n1 blocked 6 2\n"
    "1 busy 8 1\n"
    "2 starved 0 1\n2 busy 1 1\n2 blocked 2 1\n2 busy 3 1\n2 starved 4 2\n2 busy 6 1\n"
    "2 starved 7 2\n2 busy 9 1\n"
    "3 starved 0 1\n3 busy 1 10\n"
    "4 starved 0 2\n4 busy 2 1\n4 starved 3 1\n4 busy 4 1\n4 starved 5 2\n4 busy 7 1\n"
    "4 starved 8 2\n4 busy 10 1\n";

static void test_hand_worked_slices(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *json;
    const char *const none[] = {NULL};
    run_vector(dir, none, &json);
    char *slices = slices_of(json);
    assert_string_equal(slices, hand_worked);
    free(slices), free(json);
    test_tmpdir_remove(dir);
}

/* The window cuts slices at its ends; the block list keeps tracks 2 and 3
 * (the array by its type, the writer by its node id). */
static void test_window_and_blocks(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *json;
    const char *const cut[] = {"--trace-window", "4:9", "--trace-blocks", "arrayvals,2", NULL};
    run_vector(dir, cut, &json);
    char *slices = slices_of(json);
    assert_string_equal(slices, "2 starved 4 2\n2 busy 6 1\n2 starved 7 2\n3 busy 4 5\n");
    assert_non_null(strstr(json, "\"name\":\"1 arrayvals b\""));
    assert_null(strstr(json, "fiberlookup"));
    free(slices), free(json);
    test_tmpdir_remove(dir);
}

/* Runs samsim with argv plus --trace and --stats into dir, under name. */
static void traced_run(const char *dir, const char *const *argv, const char *name, char **trace,
                       char **stats)
{
    char file[64];
    snprintf(file, sizeof file, "%s.json", name);
    *trace = test_path(dir, file);
    snprintf(file, sizeof file, "%s.csv", name);
    *stats = test_path(dir, file);
    const char *a[TEST_MAX_ARGS];
    int n = 0;
    for (; argv[n]; n++)
        a[n] = argv[n];
    a[n++] = "--trace", a[n++] = *trace, a[n++] = "--stats", a[n++] = *stats, a[n] = NULL;
    char *out = NULL, *err = NULL;
    int rc = test_run_samsim_argv(&out, &err, a);
    if (rc)
        fail_msg("%s: exit %d: %s", name, rc, err);
    free(out), free(err);
}

static const char *const engines[][4] = {
    {"--engine", "event", NULL, NULL},
    {"--engine", "step", "--split", "3"},
    {"--engine", "cycle", NULL, NULL},
    {"--engine", "event", "--split", "11"},
};

/* Kernels whose blocks wait on inputs and, with channels of 2, on room:
 * each engine's trace agrees with its statistics and with the others'. */
static void test_traces_agree_with_stats_and_engines(void **state)
{
    (void)state;
    static const struct {
        const char *args, *shape, *depth;
    } cases[] = {
        {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)", "30x30", "2"},
        {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss:1,0 -s=reorder(i,j,k)", "30x30", NULL},
        {"X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ss -f=C:ss", "40x40", "2"},
    };
    char *dir = test_tmpdir();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *graph = test_compile_to(dir, "kernel", cases[c].args);
        char *b = test_gen_urandom(dir, "B.tns", cases[c].shape, "0.15", 1);
        char *cm = test_gen_urandom(dir, "C.tns", cases[c].shape, "0.15", 2);
        char bind_b[600], bind_c[600];
        snprintf(bind_b, sizeof bind_b, "B=%s", b);
        snprintf(bind_c, sizeof bind_c, "C=%s", cm);
        char *first = NULL;
        for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++) {
            const char *argv[TEST_MAX_ARGS] = {"run", graph, "-t", bind_b, "-t", bind_c, "--quiet"};
            int n = 7;
            if (cases[c].depth)
                argv[n++] = "--depth", argv[n++] = cases[c].depth;
            for (int k = 0; k < 4 && engines[e][k]; k++)
                argv[n++] = engines[e][k];
            argv[n] = NULL;
            char name[16], *trace, *stats;
            snprintf(name, sizeof name, "t%zu", e);
            traced_run(dir, argv, name, &trace, &stats);
            expect_trace_matches_stats(trace, stats);
            char *text = test_read_file(trace);
            if (!first)
                first = text;
            else if (strcmp(first, text))
                fail_msg("%s: engine %zu writes another trace", cases[c].args, e);
            if (text != first)
                free(text);
            free(trace), free(stats);
        }
        free(first), free(graph), free(b), free(cm);
    }
    test_tmpdir_remove(dir);
}

/* A run that deadlocks writes its trace up to the cycle it stopped in. */
static void test_stalled_run_is_traced(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_write_stuck_graph(dir), *trace = test_path(dir, "stuck.json");
    char *data = test_write_file(dir, "b.tns", "1 1.0\n3 2.0\n");
    char bind[512];
    snprintf(bind, sizeof bind, "B=%s", data);
    char *out = NULL, *err = NULL;
    int rc = test_run_samsim(&out, &err, "run", graph, "-t", bind, "--trace", trace, NULL);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "timelines up to cycle"));
    char *json = test_read_file(trace);
    assert_non_null(json);
    free(slices_of(json));     /* it parses */
    free(json), free(out), free(err), free(graph), free(trace), free(data);
    test_tmpdir_remove(dir);
}

static void expect_refused(const char *const *argv, const char *message)
{
    char *out = NULL, *err = NULL;
    int rc = test_run_samsim_argv(&out, &err, argv);
    assert_int_equal(rc, 1);
    if (!strstr(err, message))
        fail_msg("expected '%s' in: %s", message, err);
    const char *nl = strchr(err, '\n');
    assert_true(nl && nl[1] == '\0');   /* one line */
    free(out), free(err);
}

static void test_bad_options_are_refused(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_compile_to(dir, "copy", "x(i)=b(i) -f=x:s -f=b:s");
    char *data = test_write_file(dir, "b.tns", "2 1.5\n");
    char *trace = test_path(dir, "t.json");
    char bind[512];
    snprintf(bind, sizeof bind, "b=%s", data);
    const char *const empty_window[] = {"run", graph, "-t", bind, "--trace", trace,
                                        "--trace-window", "5:5", NULL};
    expect_refused(empty_window, "FROM must be below TO");
    const char *const bad_window[] = {"run", graph, "-t", bind, "--trace", trace,
                                      "--trace-window", "5", NULL};
    expect_refused(bad_window, "--trace-window takes FROM:TO");
    const char *const empty_name[] = {"run", graph, "-t", bind, "--trace", trace,
                                      "--trace-blocks", "1,,2", NULL};
    expect_refused(empty_name, "has an empty name");
    const char *const no_trace[] = {"run", graph, "-t", bind, "--trace-blocks", "1", NULL};
    expect_refused(no_trace, "give it too");
    const char *const tiled[] = {"run", graph, "-t", bind, "--trace", trace, "--expr",
                                 "x(i)=b(i)", "--tile", "split(i,i1,i0,2)", NULL};
    expect_refused(tiled, "this run is tiled");
    assert_false(test_exists(trace));
    free(graph), free(data), free(trace);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_worked_slices),
        cmocka_unit_test(test_window_and_blocks),
        cmocka_unit_test(test_traces_agree_with_stats_and_engines),
        cmocka_unit_test(test_stalled_run_is_traced),
        cmocka_unit_test(test_bad_options_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
