/* `samsim run --trace` (report/trace_json.h): a track per block with its
 * busy, blocked and starved slices. A hand-worked graph gives exactly the
 * slices its timing rules make; on compiled kernels, bounded and not,
 * Python's JSON parser reads the file, every event has the Trace Event
 * Format's fields, no two slices of a track overlap, and each block's
 * busy, blocked and starved cycles in the trace equal those --stats
 * counts; every engine, windows split anywhere, writes the same file;
 * --trace-window and --trace-blocks cut it; bad options are refused.
 * A tiled run's trace (report/trace_hw.h), worked by hand, has exactly
 * its points on the PE and its transfers on DRAM's link, cut by a window
 * and by --max-cycles; on two PEs with an LLB its points and DRAM bytes
 * add up to the summary's under every engine, which write the same file;
 * a template's phases are processes laid end to end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/process.h"
#include "test_util.h"

/* What Python's script prints of a trace it reads on its standard input. */
static char *python_on(const char *script, const char *json)
{
    const char *argv[] = {"python3", "-c", script, NULL};
    process_result r;
    sam_error err = {{0}};
    if (process_run(argv, json, 60, &r, &err) || r.status)
        fail_msg("python3: %s %s", err.msg, r.err ? r.err : "");
    char *out = strdup(r.out);
    process_result_free(&r);
    return out;
}

/* The slices of a trace, one line each: "TID NAME TS DUR". */
static char *slices_of(const char *json)
{
    return python_on("import json, sys\n"
                     "d = json.load(sys.stdin)\n"
                     "for e in d['traceEvents']:\n"
                     "    if e['ph'] == 'X':\n"
                     "        print(e['tid'], e['name'], e['ts'], e['dur'])\n",
                     json);
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

/* A Python check (argv) of trace must print "ok". */
static void expect_ok(const char *const *argv, const char *trace)
{
    process_result r;
    sam_error err = {{0}};
    if (process_run(argv, NULL, 60, &r, &err))
        fail_msg("python3: %s", err.msg);
    if (r.status || strcmp(r.out, "ok\n"))
        fail_msg("%s: %s%s", trace, r.out, r.err);
    process_result_free(&r);
}

static void expect_trace_matches_stats(const char *trace, const char *stats)
{
    const char *argv[] = {"python3", "-c", check_script, trace, stats, NULL};
    expect_ok(argv, trace);
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
    assert_non_null(strstr(json, "\"window\":[4,9]"));
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
    const char *const tiled[] = {"run", graph, "-t", bind, "--trace", trace, "--trace-blocks",
                                 "1", "--expr", "x(i)=b(i)", "--tile", "split(i,i1,i0,2)", NULL};
    expect_refused(tiled, "--trace-blocks picks blocks' tracks; this run is tiled");
    assert_false(test_exists(trace));
    free(graph), free(data), free(trace);
    test_tmpdir_remove(dir);
}

/* ---- tiled runs and templates ------------------------------------------ */

/* A tiled run's trace, a line per thread ("thread PID TID NAME") and per
 * slice ("PID TID NAME TS DUR ARG=VALUE..."), in the file's order, times
 * taken back to cycles from microseconds at the clock. */
static char *hw_events_of(const char *json)
{
    static const char script[] =
        "import json, sys\n"
        "d = json.load(sys.stdin)\n"
        "o = d['otherData']\n"
        "scale = o['clock_ghz'] * 1e3 if o['time'] == 'microseconds' else 1\n"
        "for e in d['traceEvents']:\n"
        "    if e['ph'] == 'M' and e['name'] == 'thread_name':\n"
        "        print('thread', e['pid'], e['tid'], e['args']['name'])\n"
        "    elif e['ph'] == 'X':\n"
        "        a = e.get('args', {})\n"
        "        print(e['pid'], e['tid'], e['name'], '%.6g' % (e['ts'] * scale),\n"
        "              '%.6g' % (e['dur'] * scale) + ''.join(' %s=%s' % (k, a[k]) for k in sorted(a)))\n";
    return python_on(script, json);
}

/* X = B .* C on 4x4 matrices in 2x2 tiles, as in test_tiled: B's tile
 * (0,0) holds (0,0) and (1,1), its (1,1) holds (0,1); C's (0,0) holds
 * (0,0) and (0,1), its (1,1) (0,0) and (1,1). The graph's path; the
 * tiles' contents written beside it as 2x2 matrices (bt0, ct0, bt1,
 * ct1). */
static char *setup_tiles(const char *dir)
{
    static const char *const files[][2] = {
        {"b4.mtx", "4 4 3\n1 1 1\n2 2 2\n3 4 3\n"},
        {"c4.mtx", "4 4 4\n1 1 4\n1 2 5\n3 3 6\n4 4 7\n"},
        {"bt0.mtx", "2 2 2\n1 1 1\n2 2 2\n"}, {"ct0.mtx", "2 2 2\n1 1 4\n1 2 5\n"},
        {"bt1.mtx", "2 2 1\n1 2 3\n"}, {"ct1.mtx", "2 2 2\n1 1 6\n2 2 7\n"},
    };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char text[256];
        snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real general\n%s",
                 files[k][1]);
        free(test_write_file(dir, files[k][0], text));
    }
    return test_compile_to(dir, "em", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss "
                           "-s=split(i,i1,i0,2) -s=split(j,j1,j0,2)");
}

/* The cycles of the graph without tiles on one tile point's operands,
 * bt<k> and ct<k>: that point's run, independently of the tiling. */
static long long point_cycles(const char *dir, int k)
{
    char *graph = test_compile_to(dir, "em1", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss");
    char b[512], c[512], *bt, *ct, name[16], *out = NULL;
    snprintf(name, sizeof name, "bt%d.mtx", k);
    bt = test_path(dir, name);
    snprintf(name, sizeof name, "ct%d.mtx", k);
    ct = test_path(dir, name);
    snprintf(b, sizeof b, "B=%s", bt);
    snprintf(c, sizeof c, "C=%s", ct);
    if (test_run_samsim(&out, NULL, "run", graph, "-t", b, "-t", c, NULL))
        fail_msg("run %s", graph);
    long long cycles = test_summary(out, "cycles");
    free(out), free(graph), free(bt), free(ct);
    return cycles;
}

/* That tiled run on hardware hw (a file's text) with argv's options
 * after it: the exit status, the trace's events and the summary. */
static int run_tiles(const char *dir, const char *hw, const char *const *extra, char **events,
                     char **out)
{
    char *graph = test_path(dir, "em.gv"), *b = test_path(dir, "b4.mtx");
    char *c = test_path(dir, "c4.mtx"), *h = test_write_file(dir, "t.hw", hw);
    char *trace = test_path(dir, "tiles.json"), tb[512], tc[512];
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", c);
    const char *argv[TEST_MAX_ARGS] = {"run", graph, "-t", tb, "-t", tc, "--hw", h,
                                       "--trace", trace};
    int n = 10;
    for (int k = 0; extra[k]; k++)
        argv[n++] = extra[k];
    argv[n] = NULL;
    char *err = NULL;
    remove(trace);
    int rc = test_run_samsim_argv(out, &err, argv);
    char *json = test_read_file(trace);
    if (!json)
        fail_msg("no trace: exit %d: %s", rc, err);
    *events = hw_events_of(json);
    free(json), free(err), free(graph), free(b), free(c), free(h), free(trace);
    return rc;
}

/* Worked by hand: 8-byte values, no LLB (tiles go from DRAM to the PE
 * buffer), DRAM at 2 GB/s, at a clock of 0.5 GHz 4 bytes a cycle, after
 * 10 cycles' latency (a cycle is 0.002 microseconds). The tiles cost 52 (B's (0,0)), 44
 * (C's (0,0)), 32 (B's (1,1)) and 52 bytes (C's (1,1); test_tiled), so
 * DRAM's link carries B (0,0) over cycles 0..12, C (0,0) 13..23, in the
 * PE at 34: the first point runs from 34 for its own cycles c0. Two slots
 * a tensor, so B (1,1) follows at once, 24..31, and C (1,1) 32..44, in at
 * 55, when the second point starts (its PE is free from 34 + c0, before).
 * X's tile (0,0) (one entry, 32 bytes) goes out when the first point is
 * done, after the link is free at 45; its tile (1,1) is empty. */
static void test_tiled_hand_worked(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *graph = setup_tiles(dir), *events, *out;
    long long c0 = point_cycles(dir, 0), c1 = point_cycles(dir, 1);
    long long x_at = 34 + c0 > 45 ? 34 + c0 : 45;
    assert_true(34 + c0 <= 55);
    static const char hw[] = "bytes.val = 8\nllb.capacity = 0\ndram.bandwidth = 2\n"
                             "dram.latency = 10\nclock.ghz = 0.5\n";
    const char *const none[] = {NULL};
    assert_int_equal(run_tiles(dir, hw, none, &events, &out), 0);
    assert_int_equal(test_summary(out, "cycles"), 55 + c1);
    char want[1024];
    snprintf(want, sizeof want,
             "thread 1 1 pe 0\n1 1 i1=0,j1=0 34 %lld\n1 1 i1=1,j1=1 55 %lld\n"
             "thread 1 2 dram\n1 2 B i1=0,j1=0 0 13 bytes=52 to=pe\n"
             "1 2 C i1=0,j1=0 13 11 bytes=44 to=pe\n1 2 B i1=1,j1=1 24 8 bytes=32 to=pe\n"
             "1 2 C i1=1,j1=1 32 13 bytes=52 to=pe\n1 2 X i1=0,j1=0 %lld 8 bytes=32 to=dram\n",
             c0, c1, x_at);
    assert_string_equal(events, want);
    free(events), free(out);
    /* Cycles 40..59 of it. */
    const char *const window[] = {"--trace-window", "40:60", NULL};
    assert_int_equal(run_tiles(dir, hw, window, &events, &out), 0);
    snprintf(want, sizeof want,
             "thread 1 1 pe 0\n1 1 i1=0,j1=0 40 %lld\n1 1 i1=1,j1=1 55 5\n"
             "thread 1 2 dram\n1 2 C i1=1,j1=1 40 5 bytes=52 to=pe\n"
             "1 2 X i1=0,j1=0 %lld 8 bytes=32 to=dram\n",
             34 + c0 - 40, x_at);
    assert_string_equal(events, want);
    free(events), free(out);
    /* Stopped at cycle 30, before the first point starts: the transfers
     * so far. */
    const char *const stop[] = {"--max-cycles", "30", NULL};
    assert_int_equal(run_tiles(dir, hw, stop, &events, &out), 2);
    assert_string_equal(events, "thread 1 1 dram\n1 1 B i1=0,j1=0 0 13 bytes=52 to=pe\n"
                                "1 1 C i1=0,j1=0 13 11 bytes=44 to=pe\n");
    free(events), free(out), free(graph);
    test_tmpdir_remove(dir);
}

/* Checks a tiled run's trace: every event has the format's fields, the
 * slices of each thread follow each other, and the points on the PEs'
 * tracks and each tensor's bytes on DRAM's add up to the values given
 * (KEY=VALUE: tiles_run, traffic.T); "ok" or what differs. */
static const char check_hw_script[] =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "threads, ends, got = {}, {}, {'tiles_run': 0}\n"
    "for e in d['traceEvents']:\n"
    "    for k in ('ph', 'pid', 'name'):\n"
    "        assert k in e, ('no', k, e)\n"
    "    if e['ph'] == 'M':\n"
    "        if e['name'] == 'thread_name':\n"
    "            threads[e['pid'], e['tid']] = e['args']['name']\n"
    "        continue\n"
    "    t = (e['pid'], e['tid'])\n"
    "    assert e['ph'] == 'X' and e['dur'] > 0 and e['ts'] >= ends.get(t, 0) - 1e-9, e\n"
    "    ends[t] = e['ts'] + e['dur']\n"
    "    a, track = e.get('args', {}), threads[t].split(' (')[0].split(' #')[0]\n"
    "    if track.startswith('pe ') and ' to ' not in track:\n"
    "        got['tiles_run'] += a.get('points', 1)\n"
    "    if track == 'dram':\n"
    "        k = 'traffic.' + e['name'].split()[0]\n"
    "        got[k] = got.get(k, 0) + a['bytes']\n"
    "want = dict((k, int(v)) for k, v in (a.split('=') for a in sys.argv[2:]))\n"
    "print('ok' if got == want else 'trace %s, summary %s' % (got, want))\n";

static void expect_hw_trace(const char *trace, const char *out, const char *const *keys)
{
    const char *argv[16] = {"python3", "-c", check_hw_script, trace};
    char want[8][64];
    int n = 4;
    for (int k = 0; keys[k] && k < 8; k++) {
        snprintf(want[k], sizeof want[k], "%s=%lld", keys[k], test_summary(out, keys[k]));
        argv[n++] = want[k];
    }
    argv[n] = NULL;
    expect_ok(argv, trace);
}

/* A product in two levels of tiles on two PEs with an LLB: DRAM's link,
 * the LLB's ports and the PEs all have slices; the trace holds every
 * point and DRAM's every byte, and every engine, windows split anywhere
 * or not, writes the same file. */
static void test_tiled_engines_agree(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_compile_to(dir, "mm", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss "
        "-s=reorder(i,k,j) -s=split(i,i1,i0,16) -s=split(i0,i01,i00,4) -s=split(k,k1,k0,16) "
        "-s=split(k0,k01,k00,4) -s=split(j,j1,j0,16) -s=split(j0,j01,j00,4)");
    char *b = test_gen_urandom(dir, "B.tns", "30x30", "0.15", 1);
    char *c = test_gen_urandom(dir, "C.tns", "30x30", "0.15", 2);
    char *hw = test_write_file(dir, "m.hw", "pe.count = 2\ndram.bandwidth = 8\n"
                                            "dram.latency = 20\nllb.bandwidth = 4\n");
    char bind_b[600], bind_c[600], *first = NULL;
    snprintf(bind_b, sizeof bind_b, "B=%s", b);
    snprintf(bind_c, sizeof bind_c, "C=%s", c);
    for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++) {
        char *trace = test_path(dir, "mm.json"), *out = NULL, *err = NULL;
        const char *argv[TEST_MAX_ARGS] = {"run", graph, "-t", bind_b, "-t", bind_c, "--hw", hw,
                                           "--check", "--trace", trace};
        int n = 11;
        for (int k = 0; k < 4 && engines[e][k]; k++)
            argv[n++] = engines[e][k];
        argv[n] = NULL;
        if (test_run_samsim_argv(&out, &err, argv))
            fail_msg("engine %zu: %s", e, err);
        static const char *const keys[] = {"tiles_run", "traffic.B", "traffic.C", "traffic.X",
                                           NULL};
        expect_hw_trace(trace, out, keys);
        char *text = test_read_file(trace);
        if (!first) {
            first = text;
            assert_non_null(strstr(text, "\"llb to pe 1\""));
            assert_non_null(strstr(text, "\"pe 1\""));
        } else if (strcmp(first, text)) {
            fail_msg("engine %zu writes another trace", e);
        }
        if (text != first)
            free(text);
        free(trace), free(out), free(err);
    }
    free(first), free(graph), free(b), free(c), free(hw);
    test_tmpdir_remove(dir);
}

/* OuterSPACE's two phases, laid end to end: a process each, whose
 * "phase" thread has one slice named by the phase, as long as its
 * cycles, the merge starting where the multiply ends; the event and
 * cycle engines write the same file. */
static void test_template_phases(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *tdir = test_path(dir, "os"), *first = NULL;
    if (test_run_samsim(NULL, NULL, "template", "outerspace", "-o", tdir, NULL))
        fail_msg("template outerspace");
    char *a = test_gen_urandom(dir, "A.tns", "40x40", "0.1", 3), bind_a[600], bind_b[600];
    snprintf(bind_a, sizeof bind_a, "A=%s", a);
    snprintf(bind_b, sizeof bind_b, "B=%s", a);
    static const char *const engine[] = {"event", "cycle"};
    for (int e = 0; e < 2; e++) {
        char *trace = test_path(dir, "os.json"), *out = NULL, *err = NULL;
        if (test_run_samsim(&out, &err, "run", tdir, "-t", bind_a, "-t", bind_b, "--engine",
                            engine[e], "--trace", trace, NULL))
            fail_msg("run %s: %s", tdir, err);
        char *json = test_read_file(trace), *events = hw_events_of(json);
        long long mul = test_summary(out, "cycles.multiply");
        long long merge = test_summary(out, "cycles.merge");
        char want[256];
        snprintf(want, sizeof want, "thread 1 1 phase\n1 1 multiply 0 %lld\n", mul);
        assert_non_null(strstr(events, want));
        snprintf(want, sizeof want, "thread 2 1 phase\n2 1 merge %lld %lld\n", mul, merge);
        assert_non_null(strstr(events, want));
        assert_non_null(strstr(json, "\"name\":\"outerspace: merge phase\""));
        if (!first)
            first = json;
        else if (strcmp(first, json))
            fail_msg("the cycle engine writes another trace");
        if (json != first)
            free(json);
        free(events), free(trace), free(out), free(err);
    }
    free(first), free(a), free(tdir);
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
        cmocka_unit_test(test_tiled_hand_worked),
        cmocka_unit_test(test_tiled_engines_agree),
        cmocka_unit_test(test_template_phases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
