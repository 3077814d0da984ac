/* The spaccumulator's native run against its steps. A rig runs the block
 * alone on random streams with bounded outputs whose reader pops at
 * cycles of its own: stepped every cycle as the cycle engine does, and
 * through its native run (and the adapter over its step) with the run
 * cut at random cycles, the reader catching up after each piece; every
 * token, cycle, pop and statistic must agree. Graph runs compare the
 * engines on compiled kernels with bounded channels, latencies,
 * initiation intervals and random windows. And the sort of a completed
 * run against qsort's order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "../blocks/dense_acc.h"
#include "../blocks/spacc_sort.h"
#include "test_util.h"

static uint64_t next_rand(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return *seed >> 11;
}

static int by_point(const void *a, const void *b)
{
    const spacc_point *p = a, *q = b;
    if (p->o != q->o)
        return p->o < q->o ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

/* n distinct points with outer coordinates from lo to lo + span - 1 and
 * inner ones likewise (span 0: any int64_t), valued by their place. */
static void random_points(spacc_point *p, size_t n, int64_t lo, uint64_t span, uint64_t *seed)
{
    for (size_t k = 0; k < n; k++) {
        int fresh;
        do {
            uint64_t o = next_rand(seed) << 11 ^ next_rand(seed), i = next_rand(seed) << 11 ^ next_rand(seed);
            p[k].o = (int64_t)((uint64_t)lo + (span ? o % span : o));
            p[k].i = (int64_t)((uint64_t)lo + (span ? i % span : i));
            fresh = 1;
            for (size_t j = 0; j < k && fresh; j++)
                fresh = p[j].o != p[k].o || p[j].i != p[k].i;
        } while (!fresh);
        p[k].v = (double)k;
    }
}

/* Every size around the switch from insertion to radix, keys of a few
 * bits up to the full 128 (which fall back to qsort), negative
 * coordinates and the extremes of int64_t: the order is qsort's, and each
 * point keeps its value. */
static void test_sort_matches_qsort(void **state)
{
    (void)state;
    static const struct {
        int64_t lo;
        uint64_t span;
    } ranges[] = {{0, 4}, {0, 1000}, {-50, 100}, {INT64_MIN, 3}, {INT64_MAX - 9, 10},
                  {-((int64_t)1 << 40), (uint64_t)1 << 41}, {0, 0}};
    static const size_t sizes[] = {0, 1, 2, 23, 24, 25, 100, 1000, 3000};
    uint64_t seed = 7;
    spacc_point *p = malloc(3000 * sizeof *p), *want = malloc(3000 * sizeof *p),
                *tmp = malloc(3000 * sizeof *p);
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            size_t n = sizes[z];
            if (ranges[r].span && ranges[r].span * ranges[r].span < n)
                continue;
            random_points(p, n, ranges[r].lo, ranges[r].span, &seed);
            memcpy(want, p, n * sizeof *p);
            qsort(want, n, sizeof *want, by_point);
            spacc_sort(p, n, tmp);
            for (size_t k = 0; k < n; k++)
                if (p[k].o != want[k].o || p[k].i != want[k].i || p[k].v != want[k].v)
                    fail_msg("range %zu, %zu points: point %zu is (%lld, %lld) = %g, want (%lld, "
                             "%lld) = %g",
                             r, n, k, (long long)p[k].o, (long long)p[k].i, p[k].v,
                             (long long)want[k].o, (long long)want[k].i, want[k].v);
        }
    free(p), free(want), free(tmp);
}


/* ---- the block alone ------------------------------------------------------ */

#define RIG_CYCLES 4000
#define RIG_TOKENS 512

/* A stream: tokens and the cycle each becomes visible (nondecreasing). */
typedef struct stream {
    token tok[RIG_TOKENS];
    cycle_t at[RIG_TOKENS];
    int n;
} stream;

static void put(stream *s, token t, cycle_t at)
{
    assert_true(s->n < RIG_TOKENS);
    s->tok[s->n] = t;
    s->at[s->n++] = at;
}

/* How a rig is set: the block, its inputs and its outputs' reader. */
typedef struct rig_spec {
    const block_ops *ops;
    const char *attrs[6];           /* "key=value" */
    stream in[3];
    uint32_t ii;
    uint64_t capacity;              /* of each output */
    uint32_t latency;               /* of each output */
    uint64_t reader;                /* the reader's pseudo-random choices */
} rig_spec;

/* What the reader took of an output: each token, the cycle it was
 * visible from and the cycle it was taken in. */
typedef struct taken {
    token tok[RIG_TOKENS];
    cycle_t visible[RIG_TOKENS], at[RIG_TOKENS];
    int n;
} taken;

typedef struct rig {
    graph_attr attrs[6];
    graph_node node;
    channel in[3], out[3];
    taken got[3];
    cycle_t reader_clock;
    block b;
} rig;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dULL;
    return x ^ x >> 33;
}

static void rig_init(rig *r, const rig_spec *spec)
{
    memset(r, 0, sizeof *r);
    int n = 0;
    for (; n < 6 && spec->attrs[n]; n++) {
        char *kv = strdup(spec->attrs[n]), *eq = strchr(kv, '=');
        *eq = '\0';
        r->attrs[n] = (graph_attr){kv, eq + 1};
    }
    r->node = (graph_node){"0", "spaccumulator", r->attrs, n};
    block_ctx ctx = {.node = &r->node};
    block *b = &r->b;
    *b = (block){.ops = spec->ops, .node = &r->node, .ii = spec->ii,
                 .idle_from = CYCLE_NONE, .last_step = CYCLE_NONE, .horizon = CYCLE_NONE};
    sam_error err;
    if (spec->ops->create(b, &ctx, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(b->nin, 3);
    for (int p = 0; p < 3; p++) {
        /* Bounded beyond reach, so that every pop's cycle is kept. */
        assert_int_equal(channel_init(&r->in[p], RIG_TOKENS, 0), 0);
        assert_int_equal(channel_add_reader(&r->in[p], 0), 0);
        for (int k = 0; k < spec->in[p].n; k++)
            assert_int_equal(channel_push(&r->in[p], spec->in[p].at[k], spec->in[p].tok[k]), 0);
        b->in[p] = (in_port){.ch = &r->in[p], .reader = 0};
        assert_int_equal(channel_init(&r->out[p], spec->capacity, spec->latency), 0);
        assert_int_equal(channel_add_reader(&r->out[p], -1), 0);
        r->out[p].producer = 0;
        r->out[p].producer_clock = &b->clock;
        channel_reader_clock(&r->out[p], 0, &r->reader_clock);
        b->out[p].ch = &r->out[p];
        if (spec->capacity)
            b->bounded[b->nbounded++] = &r->out[p];
    }
}

static void rig_free(rig *r)
{
    block_destroy(&r->b);
    for (int p = 0; p < 3; p++) {
        channel_free(&r->in[p]);
        channel_free(&r->out[p]);
    }
    for (int k = 0; k < r->node.nattrs; k++)
        free(r->attrs[k].key);
}

/* The reader in cycle t: it takes each output's head when visible, unless
 * it chooses to wait, in stretches and here and there. */
static void reader_cycle(rig *r, const rig_spec *spec, cycle_t t)
{
    for (int p = 0; p < 3; p++) {
        channel *c = &r->out[p];
        token tok;
        if (!channel_peek(c, 0, t, &tok))
            continue;
        uint64_t h = spec->reader + (uint64_t)p;
        if (mix(h ^ (t / 16) << 8) % 4 == 0 || mix(h ^ t << 24) % 3 == 0)
            continue;
        taken *g = &r->got[p];
        assert_true(g->n < RIG_TOKENS);
        g->tok[g->n] = tok;
        g->visible[g->n] = channel_head_arrival(c, 0);
        g->at[g->n++] = t;
        assert_int_equal(channel_pop(c, 0, t), 0);
    }
}

/* Steps the block every cycle, as the cycle engine does, until it
 * faults; the reader reads on. */
static void rig_cycles(rig *r, const rig_spec *spec)
{
    for (cycle_t t = 0; t < RIG_CYCLES; t++) {
        r->reader_clock = t;
        if (!r->b.fault && !r->b.failed) {
            r->b.clock = t;
            block_step_at(&r->b, t);
        }
        reader_cycle(r, spec, t);
    }
}

/* Runs the block in pieces ending at pseudo-random cycles, natively or
 * through the adapter, the reader catching up with it after each and
 * reading on once it has stopped. */
static void rig_pieces(rig *r, const rig_spec *spec, uint64_t seed, int native)
{
    block *b = &r->b;
    while (b->clock < RIG_CYCLES && !b->fault && !b->failed) {
        seed = mix(seed);
        cycle_t until = b->clock + 1 + seed % 40;
        until = until < RIG_CYCLES ? until : RIG_CYCLES;
        b->waits_in = b->waits_out = NULL;
        if (native)
            b->ops->run(b, until);
        else
            block_run(b, until);
        for (; r->reader_clock < b->clock; r->reader_clock++)
            reader_cycle(r, spec, r->reader_clock);
    }
    for (; r->reader_clock < RIG_CYCLES; r->reader_clock++)
        reader_cycle(r, spec, r->reader_clock);
}

/* Everything the block did, against the reference rig x. */
static void rig_compare(const rig *x, const rig *y, const char *what)
{
    const block *a = &x->b, *b = &y->b;
    if ((a->fault == NULL) != (b->fault == NULL) || (a->fault && strcmp(a->fault, b->fault)))
        fail_msg("%s: fault '%s', stepped '%s'", what, b->fault ? b->fault : "none",
                 a->fault ? a->fault : "none");
    for (int p = 0; p < 3; p++) {
        const taken *g = &x->got[p], *h = &y->got[p];
        if (g->n != h->n || channel_pushes(&x->out[p]) != channel_pushes(&y->out[p]))
            fail_msg("%s: output %d: %d tokens taken of %llu, stepped %d of %llu", what, p, h->n,
                     (unsigned long long)channel_pushes(&y->out[p]), g->n,
                     (unsigned long long)channel_pushes(&x->out[p]));
        for (int k = 0; k < g->n; k++) {
            char s1[32], s2[32];
            if (g->visible[k] != h->visible[k] || g->at[k] != h->at[k] ||
                !token_equal(g->tok[k], h->tok[k]))
                fail_msg("%s: output %d token %d is %s visible in %llu taken in %llu, stepped %s "
                         "in %llu taken in %llu",
                         what, p, k, token_str(h->tok[k], s1), (unsigned long long)h->visible[k],
                         (unsigned long long)h->at[k], token_str(g->tok[k], s2),
                         (unsigned long long)g->visible[k], (unsigned long long)g->at[k]);
        }
        const channel *ca = &x->in[p], *cb = &y->in[p];
        if (channel_taken(ca, 0) != channel_taken(cb, 0))
            fail_msg("%s: input %d: %llu tokens taken, stepped %llu", what, p,
                     (unsigned long long)channel_taken(cb, 0),
                     (unsigned long long)channel_taken(ca, 0));
        for (uint64_t h = 0; h < channel_taken(ca, 0); h++)
            if (channel_pop_cycle(ca, 0, h) != channel_pop_cycle(cb, 0, h))
                fail_msg("%s: input %d token %llu taken in %llu, stepped %llu", what, p,
                         (unsigned long long)h, (unsigned long long)channel_pop_cycle(cb, 0, h),
                         (unsigned long long)channel_pop_cycle(ca, 0, h));
    }
    block_stats s = a->stats, t = b->stats;
    if (s.busy != t.busy || s.first_busy != t.first_busy || s.last_busy != t.last_busy ||
        s.blocked != t.blocked)
        fail_msg("%s: busy %llu (%llu-%llu) blocked %llu, stepped busy %llu (%llu-%llu) blocked "
                 "%llu",
                 what, (unsigned long long)t.busy, (unsigned long long)t.first_busy,
                 (unsigned long long)t.last_busy, (unsigned long long)t.blocked,
                 (unsigned long long)s.busy, (unsigned long long)s.first_busy,
                 (unsigned long long)s.last_busy, (unsigned long long)s.blocked);
}

/* The spec run every way: natively and through the adapter, each with
 * three ways of cutting time, against the steps; returns whether the run
 * ended with the val output's 'D'. */
static int rig_check(const rig_spec *spec, const char *what)
{
    rig *ref = malloc(sizeof *ref), *other = malloc(sizeof *other);
    rig_init(ref, spec);
    rig_cycles(ref, spec);
    block_close_stats(&ref->b, RIG_CYCLES);
    const taken *val = &ref->got[2];
    int ended = ref->b.fault || (val->n && token_is_done(val->tok[val->n - 1]));
    for (int native = 0; native < 2; native++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            char label[200];
            snprintf(label, sizeof label, "%s, %s, cut %llu", what, native ? "native" : "adapter",
                     (unsigned long long)seed);
            rig_init(other, spec);
            rig_pieces(other, spec, seed * 7919 + spec->reader, native);
            block_close_stats(&other->b, RIG_CYCLES);
            rig_compare(ref, other, label);
            rig_free(other);
        }
    rig_free(ref);
    free(ref), free(other);
    return ended;
}

/* Appends a stream's next token: it becomes visible some cycles after
 * the one before, often at once, now and then in a burst at the same
 * cycle or after a long pause; a stop token ahead of it here and there. */
static void put_with_stops(stream *s, token t, cycle_t *at, uint64_t *seed, int stops)
{
    *seed = mix(*seed);
    uint64_t r = *seed;
    *at += r % 8 < 4 ? 1 : r % 8 < 6 ? 0 : r % 8 < 7 ? r / 8 % 7 : r / 8 % 19 * (r / 256 % 3);
    if (stops && r / 8 % 6 == 0)
        put(s, token_stop((int)(r / 64 % 2)), *at);
    put(s, t, *at);
}

/* Points for orders 1 and 2: runs of outer coordinates (some recurring),
 * inner ones below 40, each input with its own timing and stop tokens.
 * bad 1: one point carries a value for its inner coordinate, which the
 * block refuses; bad 2: an inner coordinate beyond any dense array. */
static void gen_points(rig_spec *spec, uint64_t seed, int order, int npoints, int bad)
{
    cycle_t at[3] = {0, 0, 0};
    uint64_t rs[3] = {seed * 3 + 1, seed * 3 + 2, seed * 3 + 3};
    for (int p = 0; p < 3; p++)
        spec->in[p].n = 0;
    int64_t outer = 0;
    for (int k = 0; k < npoints; k++) {
        seed = mix(seed);
        if (order == 2 || seed % 5 == 0)
            outer = (int64_t)(seed / 8 % 7);
        token o = token_crd(outer), i = token_crd((int64_t)(seed / 64 % 40)),
              v = token_val((double)(seed / 4096 % 17) - 8.5);
        if (bad && k == npoints / 2)
            i = bad == 1 ? token_val(1.5) : token_crd(DENSE_ACC_MAX_SLOTS);
        put_with_stops(&spec->in[0], o, &at[0], &rs[0], 1);
        put_with_stops(&spec->in[1], i, &at[1], &rs[1], 1);
        put_with_stops(&spec->in[2], v, &at[2], &rs[2], 1);
    }
    for (int p = 0; p < 3; p++)
        put_with_stops(&spec->in[p], token_done(), &at[p], &rs[p], 0);
}

/* The one-dimensional wiring: fibers of inner coordinates, one outer
 * coordinate each, values alongside. */
static void gen_fibers(rig_spec *spec, uint64_t seed, int nfibers)
{
    cycle_t at[3] = {0, 0, 0};
    uint64_t rs[3] = {seed * 3 + 1, seed * 3 + 2, seed * 3 + 3};
    for (int p = 0; p < 3; p++)
        spec->in[p].n = 0;
    for (int f = 0; f < nfibers; f++) {
        put_with_stops(&spec->in[0], token_crd(f * 2), &at[0], &rs[0], 0);
        seed = mix(seed);
        int n = 1 + (int)(seed % 5);
        for (int k = 0; k < n; k++) {
            seed = mix(seed);
            put_with_stops(&spec->in[1], token_crd((int64_t)(seed % 30)), &at[1], &rs[1], 0);
            put_with_stops(&spec->in[2], token_val((double)(seed / 64 % 9)), &at[2], &rs[2], 0);
        }
        token stop = token_stop(f + 1 < nfibers ? 0 : 1);
        put_with_stops(&spec->in[1], stop, &at[1], &rs[1], 0);
        put_with_stops(&spec->in[2], stop, &at[2], &rs[2], 0);
    }
    put_with_stops(&spec->in[0], token_stop(0), &at[0], &rs[0], 0);
    for (int p = 0; p < 3; p++)
        put_with_stops(&spec->in[p], token_done(), &at[p], &rs[p], 0);
}

/* Timings of the outputs and the block: unbounded, or 1 to 4 tokens deep,
 * latency 1 to 3, an initiation interval of 1 to 3. */
static void vary_timing(rig_spec *spec, uint64_t k)
{
    static const uint64_t capacity[] = {0, 1, 2, 3, 4, 8};
    spec->capacity = capacity[k % 6];
    spec->latency = (uint32_t)(1 + k / 6 % 3);
    spec->ii = (uint32_t)(k % 5 == 4 ? 2 + k / 5 % 2 : 1);
    spec->reader = mix(k + 100);
}

static const char *const impls[][4] = {
    {"sparse", NULL},
    {"dense", "scan=1", "banks=1", NULL},
    {"dense", "scan=4", "banks=2", NULL},
    {"dense", "scan=64", "banks=3", NULL},
};

static void set_impl(rig_spec *spec, int impl, int order, int onedim)
{
    int n = 0;
    spec->ops = impl ? &spaccumulator_dense_ops : &spaccumulator_ops;
    spec->attrs[n++] = order == 1 ? "order=1" : "order=2";
    spec->attrs[n++] = "in0=j";
    if (!onedim)
        spec->attrs[n++] = "in1=i";
    for (int k = 1; impls[impl][k]; k++)
        spec->attrs[n++] = impls[impl][k];
    spec->attrs[n] = NULL;
}

/* Orders 1 and 2 in every storage, on random points with random
 * timing, bounded outputs and a slow reader. */
static void test_run_matches_steps(void **state)
{
    (void)state;
    rig_spec *spec = calloc(1, sizeof *spec);
    for (uint64_t k = 0; k < 96; k++) {
        int order = 1 + (int)(k % 2), impl = (int)(k / 2 % 4);
        set_impl(spec, impl, order, 0);
        gen_points(spec, k + 1, order, 20 + (int)(k * 7 % 90), 0);
        vary_timing(spec, k / 8 + k);
        char what[160];
        snprintf(what, sizeof what, "order %d, %s, capacity %llu, latency %u, ii %u, case %llu",
                 order, impls[impl][0], (unsigned long long)spec->capacity, spec->latency,
                 spec->ii, (unsigned long long)k);
        if (!rig_check(spec, what))
            fail_msg("%s: the run did not end", what);
    }
    free(spec);
}

/* Points all visible from cycle 0: the input phase runs as fast as the
 * block takes them, and an order-2 result leaves in one stretch. */
static void test_run_queued_inputs(void **state)
{
    (void)state;
    rig_spec *spec = calloc(1, sizeof *spec);
    for (uint64_t k = 0; k < 24; k++) {
        int order = 1 + (int)(k % 2), impl = (int)(k / 2 % 4);
        set_impl(spec, impl, order, 0);
        gen_points(spec, k + 50, order, 150, 0);
        for (int p = 0; p < 3; p++)
            for (int j = 0; j < spec->in[p].n; j++)
                spec->in[p].at[j] = 0;
        vary_timing(spec, k);
        char what[160];
        snprintf(what, sizeof what, "queued, order %d, %s, case %llu", order, impls[impl][0],
                 (unsigned long long)k);
        if (!rig_check(spec, what))
            fail_msg("%s: the run did not end", what);
    }
    free(spec);
}

/* One-dimensional accumulation, which the run leaves to the step. */
static void test_run_onedim(void **state)
{
    (void)state;
    rig_spec *spec = calloc(1, sizeof *spec);
    for (uint64_t k = 0; k < 24; k++) {
        int impl = (int)(k % 4);
        set_impl(spec, impl, 1, 1);
        gen_fibers(spec, k + 7, 3 + (int)(k % 9));
        vary_timing(spec, k * 5);
        char what[160];
        snprintf(what, sizeof what, "one-dimensional, %s, case %llu", impls[impl][0],
                 (unsigned long long)k);
        if (!rig_check(spec, what))
            fail_msg("%s: the run did not end", what);
    }
    free(spec);
}

/* Whether the spec's block faults, stepped. */
static int rig_faults(const rig_spec *spec)
{
    rig *r = malloc(sizeof *r);
    rig_init(r, spec);
    rig_cycles(r, spec);
    int fault = r->b.fault != NULL;
    rig_free(r);
    free(r);
    return fault;
}

/* A point the block refuses, or the dense storage cannot hold, stops it
 * in the same step every way, with the same tokens out before. */
static void test_run_fault(void **state)
{
    (void)state;
    rig_spec *spec = calloc(1, sizeof *spec);
    for (uint64_t k = 0; k < 16; k++) {
        int order = 1 + (int)(k % 2), impl = (int)(k / 2 % 4);
        set_impl(spec, impl, order, 0);
        gen_points(spec, k + 90, order, 60, 1 + (int)(k / 8));
        vary_timing(spec, k * 3);
        char what[160];
        snprintf(what, sizeof what, "fault, order %d, %s, case %llu", order, impls[impl][0],
                 (unsigned long long)k);
        rig_check(spec, what);
        int want = k < 8 || impl != 0;
        if (rig_faults(spec) != want)
            fail_msg("%s: the block %s", what, want ? "did not fault" : "faulted");
    }
    free(spec);
}

/* ---- graph runs ------------------------------------------------------------ */

/* What a run shows: exit status, cycles, token moves, the result (or,
 * stopped, the report) and the statistics; malloc'd. */
static char *run_record(const char *dir, const char *graph, const char *binds,
                        const char *timing, const char *engine)
{
    char *out = test_path(dir, "X.tns"), *csv = test_path(dir, "stats.csv"), *buf, *so, *se;
    char line[400];
    snprintf(line, sizeof line, "run %s %s %s --engine %s --check", graph, binds, timing, engine);
    const char *argv[TEST_MAX_ARGS + 8];
    int n = test_split_args(line, &buf, argv, 0);
    argv[n++] = "-o", argv[n++] = out, argv[n++] = "--stats", argv[n++] = csv, argv[n] = NULL;
    remove(out);
    int rc = test_run_samsim_argv(&so, &se, argv);
    if ((rc && rc != 2) || (!rc && !strstr(so, "check: pass")))
        fail_msg("%s: exit %d\n%s%s", line, rc, so, se);
    char *stats_line = strstr(se, "\nsamsim: statistics");
    if (stats_line)
        stats_line[1] = '\0';
    char *result = rc ? NULL : test_read_file(out), *stats = test_read_file(csv);
    size_t size = strlen(se) + (result ? strlen(result) : 0) + (stats ? strlen(stats) : 0) + 128;
    char *record = malloc(size);
    snprintf(record, size, "exit %d, cycles %lld, tokens %lld\n%s%s%s", rc,
             rc ? -1 : test_summary(so, "cycles"), rc ? -1 : test_summary(so, "tokens"),
             rc ? se : result, "---\n", stats ? stats : "");
    free(result), free(stats), free(buf), free(so), free(se), free(out), free(csv);
    return record;
}

/* The graph under each timing: the step engine's run is the reference,
 * and the event engine's, with and without random windows, and the cycle
 * engine's must be it exactly. */
static void engines_agree(const char *dir, const char *graph, const char *binds)
{
    static const char *const timings[] = {
        "", "--depth 1", "--depth 2", "--depth 3", "--depth 4", "--latency 3",
        "--depth 2 --latency 2", "--config II", "--depth 2 --config II",
        "--impl spaccumulator=dense", "--impl spaccumulator=dense --depth 2",
        "--depth 3 --config DENSE1",
    };
    static const char *const engines[] = {"event", "event --split 3", "event --split 17",
                                          "cycle"};
    for (size_t t = 0; t < sizeof timings / sizeof timings[0]; t++) {
        char timing[200] = "";
        for (const char *p = timings[t]; *p;) {
            const char *word = p;
            size_t len = strcspn(p, " ");
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)len, word);
            char *path = !strcmp(name, "II") || !strcmp(name, "DENSE1") ? test_path(dir, name) : NULL;
            snprintf(timing + strlen(timing), sizeof timing - strlen(timing), "%s%s",
                     *timing ? " " : "", path ? path : name);
            free(path);
            p += len + (p[len] == ' ');
        }
        char *want = run_record(dir, graph, binds, timing, "step");
        for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++) {
            char *got = run_record(dir, graph, binds, timing, engines[e]);
            if (strcmp(got, want))
                fail_msg("%s %s under --engine %s:\n%.300s\nunder --engine step:\n%.300s", graph,
                         timing, engines[e], got, want);
            free(got);
        }
        free(want);
    }
}

/* Orders 1 and 2, the one-dimensional wiring and an order-2 sum over a
 * three-level tensor, each on generated operands. */
static void test_graphs_engines_agree(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    free(test_write_file(dir, "II", "spaccumulator.ii = 2\nspaccumulator.latency = 2\n"));
    free(test_write_file(dir, "DENSE1", "spaccumulator.impl = dense\nspaccumulator.scan = 1\n"
                                        "spaccumulator.banks = 1\n"));
    char *b = test_gen_urandom(dir, "B.mtx", "24x30", "0.12", 3);
    char *c = test_gen_urandom(dir, "C.mtx", "30x26", "0.12", 4);
    char *t = test_gen_urandom(dir, "T.tns", "5x7x9", "0.2", 5);
    char binds[600], bbind[300], tbind[300];
    snprintf(binds, sizeof binds, "-t B=%s -t C=%s", b, c);
    snprintf(bbind, sizeof bbind, "-t B=%s", b);
    snprintf(tbind, sizeof tbind, "-t B=%s", t);
    char *ikj = test_compile_to(dir, "ikj", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss "
                                             "-s=reorder(i,k,j)");
    char *kij = test_compile_to(dir, "kij", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss "
                                             "-s=reorder(k,i,j)");
    char *vec = test_compile_to(dir, "vec", "x(j)=B(i,j) -f=B:ss -f=x:s");
    char *sum = test_compile_to(dir, "sum", "X(j,k)=B(i,j,k) -f=B:sss -f=X:ss");
    engines_agree(dir, ikj, binds);
    engines_agree(dir, kij, binds);
    engines_agree(dir, vec, bbind);
    engines_agree(dir, sum, tbind);
    free(b), free(c), free(t), free(ikj), free(kij), free(vec), free(sum);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_matches_qsort),
        cmocka_unit_test(test_run_matches_steps),
        cmocka_unit_test(test_run_queued_inputs),
        cmocka_unit_test(test_run_onedim),
        cmocka_unit_test(test_run_fault),
        cmocka_unit_test(test_graphs_engines_agree),
    };
    return cmocka_run_group_tests_name("blocks: the spaccumulator's native run", tests, NULL, NULL);
}
