/* Runs of tokens by reference (engine/channel.h): a stretch of a level's
 * array pushed as one entry where the channel's one reader takes runs.
 * A run must count as its tokens in every statistic, give back each token
 * and the cycle it becomes visible in, whole or taken in parts, and a
 * graph whose scanners, arrays and writers pass runs must run exactly as
 * the cycle engine, which passes none: same cycles, token moves, result
 * and statistics, under random initiation intervals, latencies and window
 * ends. */
#include <stdlib.h>
#include <string.h>

#include "../builder/build.h"
#include "../engine/channel.h"
#include "../formats/gen.h"
#include "test_util.h"

/* Reader r's next token and the cycle it becomes visible in, taken one
 * at a time whether the head entry is a run or a token. 0 when none. */
static int take_one(channel *c, int r, token *t, cycle_t *at)
{
    if (!channel_unread(c, r))
        return 0;
    const channel_entry *e = channel_unread_entry(c, r, 0);
    *at = channel_entry_visible(e);
    if (channel_entry_is_run(e)) {
        *t = channel_run_token(c, e, 0);
        channel_take_part(c, r, 1);
    } else {
        *t = channel_entry_token(e);
        channel_pop(c, r, *at);
    }
    return 1;
}

static channel runs_channel(uint32_t latency, int runs)
{
    channel c;
    assert_int_equal(channel_init(&c, 0, latency), 0);
    assert_int_equal(channel_add_reader(&c, -1), 0);
    c.runs = runs;
    return c;
}

static void test_a_fiber_is_one_entry(void **state)
{
    (void)state;
    static const int64_t crd[] = {9, 3, 5, 7, 11, 13, 17};
    channel c = runs_channel(2, 1);
    assert_int_equal(channel_push_run(&c, 10, 3, TOKEN_CRD, crd, 2, 4), 0);
    assert_int_equal(channel_pushes(&c), 1);
    assert_int_equal(c.pushed, 4);
    assert_int_equal(c.stats.by_kind[TOKEN_CRD], 4);
    assert_int_equal(c.stats.push_cycles, 4);
    assert_int_equal(c.stats.first_push, 10);
    assert_int_equal(c.stats.last_push, 19);
    token t;
    cycle_t at;
    for (int k = 0; k < 4; k++) {
        assert_true(take_one(&c, 0, &t, &at));
        assert_int_equal(t.kind, TOKEN_CRD);
        assert_int_equal(t.i, crd[2 + k]);
        assert_int_equal(at, 12 + 3 * (cycle_t)k);
    }
    assert_false(take_one(&c, 0, &t, &at));
    channel_free(&c);
}

/* Pushes of runs and of single tokens, the same into a channel that takes
 * runs and one that does not: the same statistics, and read back token by
 * token, the same tokens at the same cycles. */
static void test_runs_read_back_as_their_tokens(void **state)
{
    (void)state;
    int64_t crd[64];
    double vals[64];
    for (int k = 0; k < 64; k++)
        crd[k] = 3 * k + 1, vals[k] = 0.5 * k;
    srand(7);
    for (int round = 0; round < 50; round++) {
        uint32_t latency = (uint32_t)(rand() % 4);
        channel with = runs_channel(latency, 1), without = runs_channel(latency, 0);
        cycle_t t = (cycle_t)(rand() % 3);
        uint64_t tokens = 0;
        for (int push = 0; push < 20; push++) {
            uint32_t every = 1 + (uint32_t)(rand() % 4);
            uint64_t n = (uint64_t)(rand() % 6);
            int64_t first = rand() % 32;
            int kind = rand() % 3;
            if (kind == 2) {
                assert_int_equal(channel_push(&with, t, token_stop(1)), 0);
                assert_int_equal(channel_push(&without, t, token_stop(1)), 0);
                t += 1 + (cycle_t)(rand() % 2);
                tokens++;
                continue;
            }
            const void *base = kind == TOKEN_VAL ? (const void *)vals : rand() % 2 ? crd : NULL;
            assert_int_equal(channel_push_run(&with, t, every, kind, base, first, n), 0);
            assert_int_equal(channel_push_run(&without, t, every, kind, base, first, n), 0);
            t += n * every + (cycle_t)(rand() % 2);
            tokens += n;
        }
        assert_int_equal(with.pushed, tokens);
        assert_int_equal(without.pushed, tokens);
        assert_int_equal(channel_pushes(&without), tokens);
        assert_memory_equal(&with.stats, &without.stats, sizeof with.stats);
        token a, b;
        cycle_t at_a, at_b;
        while (take_one(&without, 0, &b, &at_b)) {
            assert_true(take_one(&with, 0, &a, &at_a));
            assert_int_equal(at_a, at_b);
            assert_true(token_equal(a, b));
        }
        assert_false(take_one(&with, 0, &a, &at_a));
        channel_free(&with);
        channel_free(&without);
    }
}

/* A run longer than an entry counts goes in as several entries, each
 * from the cycle of its first token; one pushed slower than every
 * entry's field holds goes in token by token. */
static void test_long_and_slow_runs(void **state)
{
    (void)state;
    channel c = runs_channel(1, 1);
    const uint64_t n = CHANNEL_RUN_MAX_COUNT + 3;
    assert_int_equal(channel_push_run(&c, 5, 2, TOKEN_CRD, NULL, 100, n), 0);
    assert_int_equal(channel_pushes(&c), 2);
    assert_int_equal(c.pushed, n);
    const channel_entry *second = channel_unread_entry(&c, 0, 1);
    assert_true(channel_entry_is_run(second));
    assert_int_equal(channel_run_count(second), 3);
    assert_int_equal(channel_run_first(second), 100 + (int64_t)CHANNEL_RUN_MAX_COUNT);
    assert_int_equal(channel_entry_visible(second), 6 + 2 * CHANNEL_RUN_MAX_COUNT);
    channel_free(&c);

    c = runs_channel(1, 1);
    assert_int_equal(channel_push_run(&c, 5, CHANNEL_RUN_MAX_EVERY + 1, TOKEN_CRD, NULL, 0, 4), 0);
    assert_int_equal(channel_pushes(&c), 4);
    assert_false(channel_entry_is_run(channel_unread_entry(&c, 0, 3)));
    channel_free(&c);
}

/* Operand B of g, a random 20 x 200 matrix of 1,000 nonzeros (rows of
 * about 50), bound in d. */
static void bind_random(const sam_graph *g, uint64_t seed, tensor *t, sim_data *d)
{
    sam_error err = {{0}};
    int64_t dims[2] = {20, 200};
    if (gen_urandom(t, 2, dims, 1000, seed, &err) ||
        sim_data_add(d, g->tensors[1].name, t, &g->tensors[1].format, &err))
        fail_msg("%s", err.msg);
}

/* The entries and the tokens mat_identity's run on one engine pushes. */
static void count_pushes(const sam_graph *g, engine_mode mode, uint64_t *entries,
                         uint64_t *tokens, int *with_runs)
{
    sam_error err = {{0}};
    tensor t;
    sim_data d = {0};
    bind_random(g, 11, &t, &d);
    sim_engine e;
    sim_options o = {.depth = 0, .latency = 1};
    sim_outcome out;
    char report[256] = "";
    if (sim_build(&e, g, &d, &o, &err) ||
        sim_engine_run(&e, mode, CYCLE_NONE / 4, &out, report, sizeof report, &err))
        fail_msg("%s %s", err.msg, report);
    *entries = *tokens = 0;
    *with_runs = 0;
    for (int c = 0; c < e.nchannels; c++) {
        *with_runs += e.channels[c].runs;
        *entries += channel_pushes(&e.channels[c]);
        *tokens += e.channels[c].pushed;
    }
    sim_engine_free(&e);
    sim_data_free(&d);
    tensor_free(&t);
}

/* mat_identity under the event engine passes its fibers as runs, to the
 * writers and through the array; the cycle engine passes none. */
static void test_identity_passes_runs(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    sam_graph g = test_compiled_graph(dir, "X(i,j)=B(i,j) -f=X:ss -f=B:ss");
    uint64_t entries[2], tokens[2];
    int with_runs[2];
    count_pushes(&g, ENGINE_EVENT, &entries[0], &tokens[0], &with_runs[0]);
    count_pushes(&g, ENGINE_CYCLE, &entries[1], &tokens[1], &with_runs[1]);
    /* Three streams end at a writer, one at the array. */
    assert_int_equal(with_runs[0], 4);
    assert_int_equal(with_runs[1], 4);
    assert_int_equal(tokens[0], tokens[1]);
    assert_true(entries[1] >= tokens[1]);
    /* A fiber is one entry a stream, its first coordinate a second one
     * (the scanner starts a fiber in a step of its own). */
    assert_true(entries[0] < tokens[0] / 8);
    graph_free(&g);
    test_tmpdir_remove(dir);
}

/* What a run of samsim reports: exit, the summary, the result, the
 * statistics file. */
typedef struct report {
    int rc;
    char *out, *result, *stats;
} report;

static report run_with(const char *dir, const char *graph, const char *data, const char *config,
                       const char *const *extra)
{
    char *out_path = test_path(dir, "X.tns"), *stats_path = test_path(dir, "stats.csv");
    const char *argv[TEST_MAX_ARGS] = {"run", graph, "-t", data, "--config", config, "--check",
                                       "-o", out_path, "--stats", stats_path};
    int n = 11;
    for (int k = 0; extra[k]; k++)
        argv[n++] = extra[k];
    argv[n] = NULL;
    report r = {0};
    char *err = NULL;
    r.rc = test_run_samsim_argv(&r.out, &err, argv);
    if (r.rc)
        fail_msg("%s: exit %d: %s", graph, r.rc, err);
    r.result = test_read_file(out_path);
    r.stats = test_read_file(stats_path);
    free(err), free(out_path), free(stats_path);
    return r;
}

static void report_free(report *r)
{
    free(r->out), free(r->result), free(r->stats);
}

/* The graphs whose streams run from scanners to arrays and writers: a
 * matrix with a compressed and with a dense outer level, a vector, an
 * order-3 tensor. */
static const struct {
    const char *args, *shape;
} copies[] = {
    {"X(i,j)=B(i,j) -f=X:ss -f=B:ss", "40x30"},
    {"X(i,j)=B(i,j) -f=X:ds -f=B:ds", "40x30"},
    {"x(i)=b(i) -f=x:s -f=b:s", "60"},
    {"X(i,j,k)=B(i,j,k) -f=X:sss -f=B:sss", "12x10x8"},
};

/* Random initiation intervals per block type and latencies: a producer
 * slower than its reader, faster and as fast; windows ending anywhere,
 * inside runs too. */
static void test_runs_keep_every_cycle(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    srand(5);
    for (size_t g = 0; g < sizeof copies / sizeof copies[0]; g++) {
        char name[16];
        snprintf(name, sizeof name, "copy%zu", g);
        char *graph = test_compile_to(dir, name, copies[g].args);
        char *data = test_gen_urandom(dir, "B.tns", copies[g].shape, "0.3", (int)g + 1);
        char bind[600];
        snprintf(bind, sizeof bind, "%s=%s", g == 2 ? "b" : "B", data);
        for (int round = 0; round < 12; round++) {
            char text[256], seed[16];
            snprintf(text, sizeof text,
                     "fiberlookup.ii = %d\nfiberwrite.ii = %d\narrayvals.ii = %d\n"
                     "channel.latency = %d\n",
                     1 + rand() % 4, 1 + rand() % 4, 1 + rand() % 3, 1 + rand() % 4);
            char *config = test_write_file(dir, "timing.cfg", text);
            snprintf(seed, sizeof seed, "%d", 1 + rand() % 1000);
            const char *const event[] = {"--split", seed, NULL};
            const char *const cycle[] = {"--engine", "cycle", NULL};
            report a = run_with(dir, graph, bind, config, event);
            report b = run_with(dir, graph, bind, config, cycle);
            assert_non_null(strstr(a.out, "check: pass"));
            assert_int_equal(test_summary(a.out, "cycles"), test_summary(b.out, "cycles"));
            assert_int_equal(test_summary(a.out, "tokens"), test_summary(b.out, "tokens"));
            assert_string_equal(a.result, b.result);
            if (strcmp(a.stats, b.stats))
                fail_msg("%s, %s: the statistics differ", copies[g].args, text);
            report_free(&a);
            report_free(&b);
            free(config);
        }
        free(graph), free(data);
    }
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_fiber_is_one_entry),
        cmocka_unit_test(test_runs_read_back_as_their_tokens),
        cmocka_unit_test(test_long_and_slow_runs),
        cmocka_unit_test(test_identity_passes_runs),
        cmocka_unit_test(test_runs_keep_every_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
