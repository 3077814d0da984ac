/* The queue counters of `samsim run --trace` (engine/queue_trace.h,
 * report/trace_json.h): for each reader of each stream, the tokens pushed
 * that it has yet to take. A hand-worked graph gives exactly the
 * occupancy of each cycle; on compiled kernels, bounded and not, long
 * enough for buckets wider than a cycle, every engine, windows split
 * anywhere, gives each bucket exactly the token-cycles that a count made
 * here cycle by cycle gives (stepping every block every cycle and reading
 * the channels between cycles), and the file's counters have that
 * count's mean over the run; every engine writes the same file, also
 * where a block runs on past the run's end; --trace-window and
 * --trace-blocks cut the counters too. */
#include <stdlib.h>
#include <string.h>

#include "../builder/build.h"
#include "../common/process.h"
#include "../engine/engine.h"
#include "../formats/tensor_file.h"
#include "test_util.h"

/* Runs python3 with script and args; its standard output. */
static char *python(const char *script, const char *arg1, const char *arg2)
{
    const char *argv[] = {"python3", "-c", script, arg1, arg2, NULL};
    process_result r;
    sam_error err = {{0}};
    if (process_run(argv, NULL, 60, &r, &err) || r.status)
        fail_msg("python3: %s %s", err.msg, r.err ? r.err : "");
    char *out = strdup(r.out);
    process_result_free(&r);
    return out;
}

/* The counter events of a trace file, one line each: "NAME TS TOKENS". */
static const char counters_script[] =
    "import json, sys\n"
    "for e in json.load(open(sys.argv[1]))['traceEvents']:\n"
    "    if e['ph'] == 'C':\n"
    "        print(e['name'], e['ts'], e['args']['tokens'])\n";

/* Runs `samsim run` on argv (ending in NULL) with --trace FILE; the
 * file's text. */
static char *traced_text(const char *dir, const char *const *argv, const char *name)
{
    char *trace = test_path(dir, name);
    const char *a[TEST_MAX_ARGS];
    int n = 0;
    for (; argv[n]; n++)
        a[n] = argv[n];
    a[n++] = "--trace", a[n++] = trace, a[n++] = "--quiet", a[n] = NULL;
    char *out = NULL, *err = NULL;
    int rc = test_run_samsim_argv(&out, &err, a);
    if (rc)
        fail_msg("%s: exit %d: %s", name, rc, err);
    char *text = test_read_file(trace);
    assert_non_null(text);
    free(out), free(err), free(trace);
    return text;
}

/* x(i) = b(i) on b = (0, 1.5, 0, 0, 2.5) as test_trace.c works it out,
 * writer 2 taking a token every 3 cycles, channels of one token: the
 * counters' events. */
static char *vector_counters(const char *dir, const char *window, const char *blocks)
{
    char *graph = test_compile_to(dir, "copy", "x(i)=b(i) -f=x:s -f=b:s");
    char *data = test_write_file(dir, "b.tns", "2 1.5\n5 2.5\n");
    char *config = test_write_file(dir, "slow.cfg", "node.2.ii = 3\n");
    char bind[512];
    snprintf(bind, sizeof bind, "b=%s", data);
    const char *argv[TEST_MAX_ARGS] = {"run",    graph, "-t",     bind,
                                       "--depth", "1",  "--config", config};
    int n = 8;
    if (window)
        argv[n++] = "--trace-window", argv[n++] = window;
    if (blocks)
        argv[n++] = "--trace-blocks", argv[n++] = blocks;
    argv[n] = NULL;
    char *text = traced_text(dir, argv, "copy.json");
    char *path = test_path(dir, "copy.json");
    char *events = python(counters_script, path, NULL);
    free(text), free(path), free(graph), free(data), free(config);
    return events;
}

/* By hand, from the pushes and pops of test_trace.c's worked slices (a
 * token counts from its push's cycle up to its pop's): the scanner
 * pushes coordinate and reference at 0, 2, 5 and 8; the writer pops the
 * coordinates at 1, 4, 7 and 10, the array the references at 1, 3, 6
 * and 9, pushing its values in those cycles, which the value writer pops
 * a cycle later. A counter shows a value where it changes. */
static const char hand_worked[] =
    "stream 1: 0:ref -> 1:ref 0 1\nstream 1: 0:ref -> 1:ref 1 0\n"
    "stream 1: 0:ref -> 1:ref 2 1\nstream 1: 0:ref -> 1:ref 3 0\n"
    "stream 1: 0:ref -> 1:ref 5 1\nstream 1: 0:ref -> 1:ref 6 0\n"
    "stream 1: 0:ref -> 1:ref 8 1\nstream 1: 0:ref -> 1:ref 9 0\n"
    "stream 0: 0:crd -> 2:crd 0 1\nstream 0: 0:crd -> 2:crd 1 0\n"
    "stream 0: 0:crd -> 2:crd 2 1\nstream 0: 0:crd -> 2:crd 4 0\n"
    "stream 0: 0:crd -> 2:crd 5 1\nstream 0: 0:crd -> 2:crd 7 0\n"
    "stream 0: 0:crd -> 2:crd 8 1\nstream 0: 0:crd -> 2:crd 10 0\n"
    "stream 2: 1:val -> 3:val 0 0\nstream 2: 1:val -> 3:val 1 1\n"
    "stream 2: 1:val -> 3:val 2 0\nstream 2: 1:val -> 3:val 3 1\n"
    "stream 2: 1:val -> 3:val 4 0\nstream 2: 1:val -> 3:val 6 1\n"
    "stream 2: 1:val -> 3:val 7 0\nstream 2: 1:val -> 3:val 9 1\n"
    "stream 2: 1:val -> 3:val 10 0\n";

static void test_hand_worked_counters(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *events = vector_counters(dir, NULL, NULL);
    assert_string_equal(events, hand_worked);
    free(events);
    test_tmpdir_remove(dir);
}

/* The window starts each counter at its start with the value there; the
 * block list keeps the queues of the streams into and out of node 3
 * alone. */
static void test_window_and_blocks_cut_counters(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *events = vector_counters(dir, "4:9", "3");
    assert_string_equal(events, "stream 2: 1:val -> 3:val 4 0\nstream 2: 1:val -> 3:val 6 1\n"
                                "stream 2: 1:val -> 3:val 7 0\n");
    free(events);
    test_tmpdir_remove(dir);
}

static const char *const engines[][4] = {
    {"--engine", "event", NULL, NULL},
    {"--engine", "step", "--split", "3"},
    {"--engine", "cycle", NULL, NULL},
    {"--engine", "event", "--split", "11"},
};
enum { NENGINES = sizeof engines / sizeof engines[0] };

/* Runs argv (with room for the engine's options) under every engine;
 * the trace of the first, after checking that the others are the same
 * bytes. */
static char *same_trace_every_engine(const char *dir, const char **argv, int n)
{
    char *first = NULL;
    for (int e = 0; e < NENGINES; e++) {
        int k = n;
        for (int j = 0; j < 4 && engines[e][j]; j++)
            argv[k++] = engines[e][j];
        argv[k] = NULL;
        char name[32];
        snprintf(name, sizeof name, "e%d.json", e);
        char *text = traced_text(dir, argv, name);
        if (!first)
            first = text;
        else if (strcmp(first, text))
            fail_msg("engine %s %s writes another trace", engines[e][1],
                     engines[e][2] ? engines[e][3] : "");
        if (text != first)
            free(text);
    }
    return first;
}

/* A reader that is no sink's producer (a second array on the scanner's
 * references, node 4, a token every 5 cycles, whose values go nowhere)
 * still takes tokens when the run ends, and run-ahead lets it take them
 * past the end: those pops are not the run's. The run is long enough for
 * buckets of 4 cycles, so that they would share the last one. */
static void test_work_past_the_end_is_cut(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_write_file(
        dir, "side.gv",
        "digraph SAM {\n"
        "    comment=\"x=s0,b=s0\"\n"
        "    0 [type=\"fiberlookup\" index=\"i\" tensor=\"b\" mode=\"0\" format=\"compressed\" "
        "src=\"true\" root=\"true\"]\n"
        "    1 [type=\"arrayvals\" tensor=\"b\"]\n"
        "    2 [type=\"fiberwrite\" index=\"i\" tensor=\"x\" mode=\"0\" format=\"compressed\" "
        "segsize=\"2\" crdsize=\"b0_dim\" sink=\"true\"]\n"
        "    3 [type=\"fiberwrite\" mode=\"vals\" tensor=\"x\" size=\"1*b0_dim\" sink=\"true\"]\n"
        "    4 [type=\"arrayvals\" tensor=\"b\"]\n"
        "    0 -> 4 [type=\"ref\"]\n"
        "    0 -> 2 [type=\"crd\"]\n"
        "    0 -> 1 [type=\"ref\"]\n"
        "    1 -> 3 [type=\"val\"]\n"
        "}\n");
    char *data = test_gen_urandom(dir, "b.tns", "3000", "0.5", 1);
    char *config = test_write_file(dir, "side.cfg", "node.2.ii = 3\nnode.4.ii = 5\n");
    char bind[512];
    snprintf(bind, sizeof bind, "b=%s", data);
    const char *argv[TEST_MAX_ARGS] = {"run", graph, "-t", bind, "--config", config};
    char *text = same_trace_every_engine(dir, argv, 6);
    assert_non_null(strstr(text, "\"name\":\"stream 0: 0:ref -> 4:ref\""));
    free(text), free(graph), free(data), free(config);
    test_tmpdir_remove(dir);
}

static void ignore_token(block *b, token t, cycle_t now)
{
    (void)b, (void)t, (void)now;
}

/* A run of 4 positions pushed at 2, 4, 6 and 8, visible a cycle later,
 * then 2 coordinates of another array at 10 and 11, which go in as
 * tokens while the run is unread; a block's steps take the run's first
 * two at 5 and 7, one at a time: the trace has them popped then, the
 * rest held to the end, 14. */
static void test_a_run_taken_a_token_at_a_time(void **state)
{
    (void)state;
    channel c;
    assert_int_equal(channel_init(&c, 0, 1), 0);
    assert_int_equal(channel_add_reader(&c, 0), 0);
    c.runs = 1;
    assert_int_equal(channel_trace(&c, 100), 0);
    static const int64_t crd[] = {7, 9};
    assert_int_equal(channel_push_run(&c, 2, 2, TOKEN_CRD, NULL, 0, 4), 0);
    assert_int_equal(channel_push_run(&c, 10, 1, TOKEN_CRD, crd, 0, 2), 0);
    assert_int_equal(channel_pushes(&c), 3);
    block *b = calloc(1, sizeof *b);
    assert_non_null(b);
    b->in[0] = (in_port){.ch = &c, .reader = 0};
    b->nin = 1;
    assert_true(block_take_step(b, 5, ignore_token));
    assert_true(block_take_step(b, 7, ignore_token));
    assert_int_equal(channel_unread(&c, 0), 3);
    assert_int_equal(channel_trace_cut(&c, 14), 0);
    uint64_t w, n;
    uint64_t *sums = queue_trace_occupancy(c.trace, 0, 14, &w, &n);
    assert_non_null(sums);
    assert_int_equal(w, 1);
    assert_int_equal(n, 14);
    static const uint64_t held[] = {0, 0, 1, 1, 2, 1, 2, 1, 2, 2, 3, 4, 4, 4};
    for (int t = 0; t < 14; t++)
        if (sums[t] != held[t])
            fail_msg("cycle %d: %llu tokens, not %llu", t, (unsigned long long)sums[t],
                     (unsigned long long)held[t]);
    free(sums);
    free(b);
    channel_free(&c);
}

/* A bounded channel's pops are counted from the reader's ring of pop
 * cycles, a ring's worth at a time, before their places are reused: 40
 * tokens pushed at 0, popped two a cycle from cycle 1 on, one at 1 and
 * then 2 at 2, 3..., so that pops 15 and 16, in one cycle, lie either
 * side of the first ring's worth (16). */
static void test_pops_in_one_cycle_across_a_ring(void **state)
{
    (void)state;
    channel c;
    cycle_t producer = 1000;
    assert_int_equal(channel_init(&c, 64, 1), 0);
    assert_int_equal(channel_add_reader(&c, 0), 0);
    c.producer_clock = &producer;
    assert_int_equal(channel_trace(&c, 100), 0);
    for (int k = 0; k < 40; k++)
        assert_int_equal(channel_push(&c, 0, token_crd(k)), 0);
    int64_t held[30];
    for (int t = 0, k = 0; t < 30; t++) {
        for (; k < 40 && 1 + (k + 1) / 2 == t; k++)
            assert_int_equal(channel_pop(&c, 0, (cycle_t)t), 0);
        held[t] = 40 - k;
    }
    assert_int_equal(channel_trace_cut(&c, 30), 0);
    uint64_t w, n;
    uint64_t *sums = queue_trace_occupancy(c.trace, 0, 30, &w, &n);
    assert_non_null(sums);
    assert_int_equal(n, 30);
    for (int t = 0; t < 30; t++)
        if ((int64_t)sums[t] != held[t])
            fail_msg("cycle %d: %llu tokens, not %lld", t, (unsigned long long)sums[t],
                     (long long)held[t]);
    free(sums);
    channel_free(&c);
}

/* ---- against a count cycle by cycle ------------------------------------ */

/* The width of a run of `end` cycles: the narrowest power of two that
 * fits it in QUEUE_TRACE_BUCKETS buckets. */
static uint64_t width_for(uint64_t end)
{
    uint64_t w = 1;
    while (end > QUEUE_TRACE_BUCKETS * w)
        w *= 2;
    return w;
}

#define MAX_CYCLES 20000
#define MAX_QUEUES 256

/* Every reader's queue of every stream, and its occupancy after each
 * cycle as counted here. */
typedef struct queues {
    int n;
    int ch[MAX_QUEUES], reader[MAX_QUEUES];
    char *name[MAX_QUEUES];         /* as the trace names its counter */
    int64_t *held[MAX_QUEUES];      /* per cycle */
    cycle_t end;
} queues;

/* The port of block b on channel c: an output, or reader r's input. */
static const char *port_name(const block *b, const channel *c, int reader)
{
    for (int p = 0; reader < 0 && p < b->nout; p++)
        if (b->out[p].ch == c)
            return b->out_names[p];
    for (int p = 0; reader >= 0 && p < b->nin; p++)
        if (b->in[p].ch == c && b->in[p].reader == reader)
            return b->in_names[p];
    fail_msg("no port on channel %d", c->id);
    return NULL;
}

static void list_queues(const sim_engine *e, queues *q)
{
    memset(q, 0, sizeof *q);
    for (int c = 0; c < e->nchannels; c++) {
        const channel *ch = &e->channels[c];
        for (int r = 0; ch->producer >= 0 && r < channel_readers(ch); r++) {
            assert_true(q->n < MAX_QUEUES);
            const block *from = &e->blocks[ch->producer];
            const block *to = &e->blocks[channel_reader_block(ch, r)];
            char name[512];
            snprintf(name, sizeof name, "stream %d: %s:%s -> %s:%s", c, from->node->id,
                     port_name(from, ch, -1), to->node->id, port_name(to, ch, r));
            q->ch[q->n] = c, q->reader[q->n] = r;
            q->name[q->n] = strdup(name);
            q->held[q->n] = calloc(MAX_CYCLES, sizeof *q->held[q->n]);
            assert_true(q->name[q->n] && q->held[q->n]);
            q->n++;
        }
    }
}

static void free_queues(queues *q)
{
    for (int k = 0; k < q->n; k++)
        free(q->name[k]), free(q->held[k]);
}

/* Tokens reader r of c holds after cycle t: those it has not taken that
 * were pushed at t or before (a token of a run one every `every` cycles
 * from its entry's). */
static int64_t held_after(const channel *c, int r, cycle_t t)
{
    int64_t n = 0;
    for (uint64_t k = 0; k < channel_unread(c, r); k++) {
        const channel_entry *e = channel_unread_entry(c, r, k);
        cycle_t at = channel_entry_visible(e) - c->latency;
        if (at > t)
            continue;
        uint64_t count = channel_entry_is_run(e) ? channel_run_count(e) : 1;
        uint64_t every = channel_entry_is_run(e) ? channel_run_every(e) : 0;
        uint64_t upto = every ? (t - at) / every + 1 : count;
        n += (int64_t)(upto < count ? upto : count);
    }
    return n;
}

/* Steps every block of e every cycle, as the cycle engine does, until
 * every sink is done, noting each queue's occupancy after each cycle. */
static void count_by_cycles(sim_engine *e, queues *q)
{
    int sinks = 0;
    for (int i = 0; i < e->nblocks; i++)
        sinks += e->blocks[i].ops->collect != NULL;
    cycle_t t = 0;
    for (; sinks > 0; t++) {
        assert_true(t < MAX_CYCLES);
        for (int i = 0; e->bounded && i < e->nblocks; i++)
            if (!e->blocks[i].done)
                e->blocks[i].clock = t;
        for (int i = 0; i < e->nblocks; i++) {
            block *b = &e->blocks[i];
            int was_done = b->done;
            block_step_at(b, t);
            assert_false(b->failed || b->fault);
            if (b->done && !was_done) {
                sinks--;
                b->clock = CYCLE_NONE / 4;
            }
        }
        for (int k = 0; k < q->n; k++)
            q->held[k][t] = held_after(&e->channels[q->ch[k]], q->reader[k], t);
    }
    q->end = t;
}

/* A kernel, its operands (files for samsim, bound here too) and its
 * channels' depth (0: unbounded). */
typedef struct kernel_run {
    char *dir, *graph, *file[2];
    sam_graph g;
    tensor t[2];
    sim_data d;
    int nops;
    const char *depth;
} kernel_run;

static void kernel_open(kernel_run *k, const char *args, const char *shape, const char *density,
                        const char *depth)
{
    memset(k, 0, sizeof *k);
    k->dir = test_tmpdir();
    k->depth = depth;
    k->graph = test_compile_to(k->dir, "kernel", args);
    sam_error err = {{0}};
    if (graph_read_dot(k->graph, &k->g, &err))
        fail_msg("%s", err.msg);
    k->nops = k->g.ntensors - 1;
    assert_true(k->nops <= 2);
    for (int i = 0; i < k->nops; i++) {
        char file[64];
        snprintf(file, sizeof file, "%s.tns", k->g.tensors[i + 1].name);
        k->file[i] = test_gen_urandom(k->dir, file, shape, density, i + 1);
        tensor_file f = {.path = k->file[i]};
        if (tensor_file_read(&f, &k->t[i], &err) ||
            sim_data_add(&k->d, k->g.tensors[i + 1].name, &k->t[i], &k->g.tensors[i + 1].format,
                         &err))
            fail_msg("%s", err.msg);
    }
}

static void kernel_close(kernel_run *k)
{
    sim_data_free(&k->d);
    for (int i = 0; i < k->nops; i++)
        tensor_free(&k->t[i]), free(k->file[i]);
    graph_free(&k->g);
    free(k->graph);
    test_tmpdir_remove(k->dir);
}

static void build(const kernel_run *k, sim_engine *e)
{
    sam_error err = {{0}};
    sim_options o = {.depth = k->depth ? atoi(k->depth) : 0, .latency = 1};
    if (sim_build(e, &k->g, &k->d, &o, &err))
        fail_msg("%s", err.msg);
}

/* Each engine's trace holds, for every queue and bucket, the
 * token-cycles the count by cycles gives. */
static void expect_engines_match_count(const kernel_run *k, const queues *q)
{
    static const struct {
        engine_mode mode;
        uint64_t split;
    } runs[] = {{ENGINE_EVENT, 0}, {ENGINE_EVENT, 11}, {ENGINE_STEP, 3}, {ENGINE_CYCLE, 0}};
    const uint64_t w = width_for(q->end);
    for (size_t m = 0; m < sizeof runs / sizeof runs[0]; m++) {
        sim_engine e;
        build(k, &e);
        assert_int_equal(sim_engine_trace(&e), 0);
        e.split = runs[m].split;
        sim_outcome out;
        char report[1024] = "";
        sam_error err = {{0}};
        if (sim_engine_run(&e, runs[m].mode, MAX_CYCLES, &out, report, sizeof report, &err))
            fail_msg("%s: %s %s", engine_names[runs[m].mode], err.msg, report);
        assert_int_equal(out.cycles, q->end);
        for (int i = 0; i < q->n; i++) {
            uint64_t width, n;
            uint64_t *sums = queue_trace_occupancy(e.channels[q->ch[i]].trace, q->reader[i],
                                                   out.cycles, &width, &n);
            assert_non_null(sums);
            assert_int_equal(width, w);
            assert_int_equal(n, (q->end + w - 1) / w);
            for (uint64_t b = 0; b < n; b++) {
                int64_t want = 0;
                for (cycle_t t = b * w; t < q->end && t < (b + 1) * w; t++)
                    want += q->held[i][t];
                if ((int64_t)sums[b] != want)
                    fail_msg("%s split %llu, %s: cycles %llu-%llu hold %lld token-cycles, not %lld",
                             engine_names[runs[m].mode], (unsigned long long)runs[m].split,
                             q->name[i], (unsigned long long)(b * w),
                             (unsigned long long)((b + 1) * w - 1), (long long)sums[b],
                             (long long)want);
            }
            free(sums);
        }
        sim_engine_free(&e);
    }
}

/* Each counter's mean over the run, from its events (a value holds to the
 * next event, the last to the run's end), against "NAME\tMEAN" lines. */
static const char mean_script[] =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "cycles = d['otherData']['cycles']\n"
    "series = {}\n"
    "for e in d['traceEvents']:\n"
    "    if e['ph'] == 'C':\n"
    "        series.setdefault(e['name'], []).append((e['ts'], e['args']['tokens']))\n"
    "want = dict(l.rstrip('\\n').split('\\t') for l in open(sys.argv[2]))\n"
    "bad = []\n"
    "for name, pts in series.items():\n"
    "    if pts[0][0] != 0 or any(a[0] >= b[0] for a, b in zip(pts, pts[1:])):\n"
    "        bad.append('%s: times %s' % (name, [p[0] for p in pts]))\n"
    "    ends = [p[0] for p in pts[1:]] + [cycles]\n"
    "    mean = sum(v * (end - ts) for (ts, v), end in zip(pts, ends)) / cycles\n"
    "    w = float(want.pop(name, 'nan'))\n"
    "    if not abs(mean - w) <= 1e-6 * max(1, w):\n"
    "        bad.append('%s: mean %.9f, counted %.9f' % (name, mean, w))\n"
    "bad += ['no counter for ' + n for n in want]\n"
    "print('\\n'.join(bad) if bad else 'ok')\n";

/* samsim's traces, the same under every engine, and their counters'
 * means over the run those of the count. */
static void expect_file_matches_count(const kernel_run *k, const queues *q)
{
    char bind[2][600];
    const char *argv[TEST_MAX_ARGS] = {"run", k->graph};
    int n = 2;
    for (int i = 0; i < k->nops; i++) {
        snprintf(bind[i], sizeof bind[i], "%s=%s", k->g.tensors[i + 1].name, k->file[i]);
        argv[n++] = "-t", argv[n++] = bind[i];
    }
    if (k->depth)
        argv[n++] = "--depth", argv[n++] = k->depth;
    free(same_trace_every_engine(k->dir, argv, n));
    char *means = test_path(k->dir, "means.tsv");
    FILE *f = fopen(means, "w");
    assert_non_null(f);
    for (int i = 0; i < q->n; i++) {
        int64_t total = 0;
        for (cycle_t t = 0; t < q->end; t++)
            total += q->held[i][t];
        fprintf(f, "%s\t%.9f\n", q->name[i], (double)total / (double)q->end);
    }
    assert_int_equal(fclose(f), 0);
    char *trace = test_path(k->dir, "e0.json");
    char *verdict = python(mean_script, trace, means);
    if (strcmp(verdict, "ok\n"))
        fail_msg("%s", verdict);
    free(verdict), free(trace), free(means);
}

/* Kernels whose streams wait in their channels: outer and inner products
 * (a sparse accumulator's scanned takes, an intersection's bulk ones,
 * arrays and writers taking runs) and an elementwise sum, unbounded and
 * with channels of 2, all longer than QUEUE_TRACE_BUCKETS cycles but one. */
static void test_counters_match_a_count_by_cycles(void **state)
{
    (void)state;
    static const struct {
        const char *args, *shape, *density, *depth;
    } cases[] = {
        {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)", "40x40", "0.15", "2"},
        {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)", "60x60", "0.15", NULL},
        {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss:1,0 -s=reorder(i,j,k)", "30x30", "0.15",
         NULL},
        {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)", "50x50", "0.1",
         NULL},
        {"X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ss -f=C:ss", "70x70", "0.3", "2"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kernel_run k;
        kernel_open(&k, cases[c].args, cases[c].shape, cases[c].density, cases[c].depth);
        sim_engine e;
        build(&k, &e);
        queues q;
        list_queues(&e, &q);
        count_by_cycles(&e, &q);
        sim_engine_free(&e);
        expect_engines_match_count(&k, &q);
        expect_file_matches_count(&k, &q);
        free_queues(&q);
        kernel_close(&k);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_worked_counters),
        cmocka_unit_test(test_window_and_blocks_cut_counters),
        cmocka_unit_test(test_work_past_the_end_is_cut),
        cmocka_unit_test(test_a_run_taken_a_token_at_a_time),
        cmocka_unit_test(test_pops_in_one_cycle_across_a_ring),
        cmocka_unit_test(test_counters_match_a_count_by_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
