/* A tiled run builds one engine and re-arms it for every tile point
 * (builder/build.h, sim_rearm_planned). A re-armed engine must be the
 * engine a fresh build gives: each case runs a compiled kernel on one set
 * of operands, re-arms the engine for another set and runs it again, and
 * compares everything the run reports (cycles, token moves, every block's
 * and every stream's statistics, the result) with a build on the second
 * set alone. The second set differs in size and pattern, empty operands
 * included, and the first run is also cut short (max_cycles), as a tiled
 * run that stops in a point re-arms an engine that did not finish;
 * channels unbounded and of depth 2. The kernels run every registered
 * block implementation between them, and every implementation must re-arm
 * (a graph with one that cannot is built anew for every point). */
#include <stdlib.h>
#include <string.h>

#include "../blocks/registry.h"
#include "../builder/build.h"
#include "../builder/config.h"
#include "../builder/result.h"
#include "../formats/gen.h"
#include "test_util.h"

typedef struct operands {
    tensor t[4];
    int n;
} operands;

/* Every operand of g (tensors 1...) of side n in every mode with nnz
 * entries each, from seed. */
static void make_operands(const sam_graph *g, int64_t n, size_t nnz, uint64_t seed,
                          operands *ops)
{
    sam_error err = {{0}};
    ops->n = g->ntensors - 1;
    assert_true(ops->n <= 4);
    for (int k = 0; k < ops->n; k++) {
        int order = g->tensors[k + 1].format.nlevels;
        int64_t dims[3] = {n, n, n};
        assert_true(order <= 3);
        size_t most = 1;
        for (int m = 0; m < order; m++)
            most *= (size_t)n;
        if (gen_urandom(&ops->t[k], order, dims, nnz < most ? nnz : most, seed + (uint64_t)k,
                        &err))
            fail_msg("%s", err.msg);
    }
}

static void free_operands(operands *ops)
{
    for (int k = 0; k < ops->n; k++)
        tensor_free(&ops->t[k]);
}

static void bind(const sam_graph *g, const operands *ops, sim_data *d)
{
    sam_error err = {{0}};
    for (int k = 0; k < ops->n; k++)
        if (sim_data_add(d, g->tensors[k + 1].name, &ops->t[k], &g->tensors[k + 1].format, &err))
            fail_msg("%s", err.msg);
}

/* Runs e (max 0: to the end) and checks it ended as expected. */
static sim_outcome run(sim_engine *e, cycle_t max, int finishes)
{
    sam_error err = {{0}};
    sim_outcome out;
    char report[1024] = "";
    int rc = sim_engine_run(e, ENGINE_EVENT, max ? max : CYCLE_NONE / 4, &out, report,
                            sizeof report, &err);
    if (rc < 0 || rc != !finishes)
        fail_msg("run: %d %s %s", rc, err.msg, report);
    return out;
}

static void expect_same_stats(const sim_engine *a, const sim_engine *b)
{
    assert_int_equal(a->nblocks, b->nblocks);
    assert_int_equal(a->nchannels, b->nchannels);
    for (int i = 0; i < a->nblocks; i++) {
        const block_stats *s = &a->blocks[i].stats, *t = &b->blocks[i].stats;
        assert_int_equal(s->busy, t->busy);
        assert_int_equal(s->first_busy, t->first_busy);
        assert_int_equal(s->last_busy, t->last_busy);
        assert_int_equal(s->blocked, t->blocked);
        assert_int_equal(a->blocks[i].done, b->blocks[i].done);
    }
    for (int c = 0; c < a->nchannels; c++) {
        const channel *x = &a->channels[c], *y = &b->channels[c];
        assert_int_equal(x->pushed, y->pushed);
        assert_memory_equal(&x->stats, &y->stats, sizeof x->stats);
    }
}

static void result_of(sim_engine *e, const sam_graph *g, const sim_data *d, tensor *t)
{
    sam_error err = {{0}};
    fibertree ft;
    if (sim_result(e, g, d, &ft, &err) || fibertree_to_tensor(&ft, t, &err))
        fail_msg("%s", err.msg);
    fibertree_free(&ft);
}

/* A kernel's graph as its settings leave it, its run options, and the
 * operands it is run on. */
typedef struct kernel_case {
    sam_graph g;
    sim_options o;
    operands small, large, other, single, empty;
    int *seen;          /* the implementations run, in registry order */
} kernel_case;

/* Graph c->g run on first (cut at max cycles when max > 0), then re-armed
 * for second, against a fresh build on second. */
static void expect_rearm_fresh(kernel_case *c, const operands *first, const operands *second,
                               cycle_t max)
{
    sam_error err = {{0}};
    const sam_graph *g = &c->g;
    sim_plan plan;
    sim_data d1 = {0}, d2 = {0};
    sim_engine armed = {0}, fresh = {0};
    bind(g, first, &d1);
    bind(g, second, &d2);
    if (sim_plan_init(&plan, g, &c->o, &err) || sim_build_planned(&armed, &plan, &d1, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < armed.nblocks; i++) {
        if (!armed.blocks[i].ops->rearm)
            fail_msg("%s: block %s (%s) cannot re-arm", g->path, armed.blocks[i].node->id,
                     armed.blocks[i].node->type);
        for (int k = 0; k < registry_count(); k++)
            c->seen[k] |= registry_at(k) == armed.blocks[i].ops;
    }
    run(&armed, max, max == 0);
    if (sim_rearm_planned(&armed, &plan, &d2, &err) ||
        sim_build_planned(&fresh, &plan, &d2, &err))
        fail_msg("%s", err.msg);
    sim_outcome a = run(&armed, 0, 1), f = run(&fresh, 0, 1);
    assert_int_equal(a.cycles, f.cycles);
    assert_int_equal(a.tokens, f.tokens);
    expect_same_stats(&armed, &fresh);
    tensor ta, tf;
    result_of(&armed, g, &d2, &ta);
    result_of(&fresh, g, &d2, &tf);
    assert_true(tensor_equal(&ta, &tf));
    tensor_free(&ta), tensor_free(&tf);
    sim_engine_free(&armed), sim_engine_free(&fresh);
    sim_data_free(&d1), sim_data_free(&d2);
    sim_plan_free(&plan);
}

/* The cycles of c's run on ops. */
static cycle_t cycles_of(const kernel_case *c, const operands *ops)
{
    sam_error err = {{0}};
    sim_data d = {0};
    sim_engine e = {0};
    bind(&c->g, ops, &d);
    if (sim_build(&e, &c->g, &d, &c->o, &err))
        fail_msg("%s", err.msg);
    cycle_t cycles = run(&e, 0, 1).cycles;
    sim_engine_free(&e);
    sim_data_free(&d);
    return cycles;
}

/* A compiled kernel and its settings ("KEY=VALUE ...", as --config
 * lines): the implementations it runs, the streams' capacity. */
typedef struct kernel {
    const char *args;
    const char *settings;
} kernel;

/* Kernels whose every block re-arms: between them, every registered
 * implementation (test_rearm_equals_fresh_build checks). */
static const kernel kernels[] = {
    {"X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss", ""},
    {"X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ss -f=C:ss", ""},
    {"X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ds -f=C:ds", ""},
    {"X(i,j)=B(i,j) -f=X:ss -f=B:ss", ""},
    {"X(i,j)=B(i,j)*c(j) -f=X:ss -f=B:ss -f=c:s", ""},
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)", ""},
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)", ""},
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)", "spaccumulator.impl=dense"},
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)",
     "spaccumulator.impl=dense"},
    {"X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss", "intersect.impl=skip"},
    {"X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss", "fiberlookup.impl=vector"},
    /* the reducer */
    {"x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:s", ""},
    /* bitvector operands: scanners, intersect, union, converters, writer */
    {"X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:sb -f=C:sb", ""},
    {"X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:sb -f=C:sb", ""},
    {"X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:sb -f=C:sb", "channel.capacity=2"},
    {"X(i,j)=B(i,j)*C(i,j) -f=X:sb -f=B:sb -f=C:sb", ""},
    {"X(i,j)=B(i,j) -f=X:ss -f=B:sb", ""},
    /* locate in dense and compressed levels, at the top and below */
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ds -s=reorder(i,k,j) -s=locate(C)", ""},
    {"x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:s -s=reorder(i,j) -s=locate(c)", "locate.search=3"},
    {"X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:dd -s=locate(C)", ""},
    {"X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss -s=locate(C)", "locate.search=2"},
    /* lanes: parallelize, serialize and the merging vector reducers */
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) -s=parallelize(i,2)", ""},
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) -s=parallelize(i,3)",
     "channel.capacity=3"},
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) -s=parallelize(k,3)", ""},
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) -s=parallelize(k,3)",
     "vectorreducer.rate=1 channel.capacity=2"},
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) -s=parallelize(k,2)",
     "vectorreducer.impl=dense"},
    {"X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss -s=parallelize(i,2)", ""},
    {"X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ss -f=C:ss -s=parallelize(j,2)", ""},
    /* linked lists: scanned, written out of order, merged */
    {"X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:dl -f=C:ss -s=reorder(i,k,j)", ""},
    {"Y(i,k,j)=B(i,k)*C(k,j) -f=Y:dls -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)", ""},
    {"X(i,j)=Y(i,k,j) -f=X:ss -f=Y:dls -s=reorder(i,k,j)", ""},
    /* value compression: a dense level to a compressed one and back */
    {"x(i)=b(i) -f=x:s -f=b:d", ""},
    {"X(i,j)=B(i,j) -f=X:sd -f=B:ss", ""},
};

enum { NKERNELS = sizeof kernels / sizeof *kernels };

/* Kernel k compiled, its settings applied, on operands of sides 4 to 9:
 * larger and smaller, of one size (storage sized by the operands is
 * kept), of one entry (fewer elements than lanes), none. */
static void kernel_case_init(kernel_case *c, const char *dir, const kernel *k, int *seen)
{
    sam_error err = {{0}};
    sim_config conf = {0};
    char key[64], value[64];
    int used;
    print_message("%s %s\n", k->args, k->settings);
    *c = (kernel_case){.g = test_compiled_graph(dir, k->args), .o = {.depth = 0, .latency = 1},
                .seen = seen};
    for (const char *at = k->settings; sscanf(at, " %63[^=]=%63s%n", key, value, &used) == 2;
         at += used)
        if (sim_config_add(&conf, key, value, "test", &err))
            fail_msg("%s: %s", k->settings, err.msg);
    if (sim_config_apply(&conf, &c->g, &c->o, &err))
        fail_msg("%s: %s", k->settings, err.msg);
    sim_config_free(&conf);
    make_operands(&c->g, 5, 9, 1, &c->small);
    make_operands(&c->g, 9, 30, 7, &c->large);
    make_operands(&c->g, 9, 20, 11, &c->other);
    make_operands(&c->g, 9, 1, 5, &c->single);
    make_operands(&c->g, 4, 0, 3, &c->empty);
}

static void kernel_case_free(kernel_case *c)
{
    free_operands(&c->small), free_operands(&c->large), free_operands(&c->other);
    free_operands(&c->single), free_operands(&c->empty);
    graph_free(&c->g);
}

/* Runs cut short every step cycles, each re-armed for the other operands
 * of the size, for one entry and for none: a block must forget whatever
 * state a cut leaves. */
static void expect_cuts(kernel_case *c, cycle_t step)
{
    cycle_t full = cycles_of(c, &c->large);
    for (cycle_t cut = 1; cut < full; cut += step) {
        expect_rearm_fresh(c, &c->large, &c->other, cut);
        expect_rearm_fresh(c, &c->large, &c->single, cut);
        expect_rearm_fresh(c, &c->large, &c->empty, cut);
    }
}

/* Each kernel re-armed after a finished run, from every set of operands to
 * another, and after runs cut short at 20 points along the run. Between
 * them the kernels run every registered implementation. */
static void test_rearm_equals_fresh_build(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    int seen[64] = {0};
    assert_true(registry_count() <= 64);
    for (size_t k = 0; k < NKERNELS; k++) {
        kernel_case c;
        kernel_case_init(&c, dir, &kernels[k], seen);
        const operands *sets[] = {&c.small, &c.large, &c.other, &c.single, &c.empty};
        for (c.o.depth = 0; c.o.depth <= 2; c.o.depth += 2) {
            for (size_t x = 0; x < 5; x++)
                for (size_t y = 0; y < 5; y++)
                    if (x != y)
                        expect_rearm_fresh(&c, sets[x], sets[y], 0);
            expect_cuts(&c, cycles_of(&c, &c.large) / 20 + 1);
        }
        kernel_case_free(&c);
    }
    for (int k = 0; k < registry_count(); k++)
        if (!seen[k])
            fail_msg("no kernel runs %s (%s)", registry_at(k)->type, registry_at(k)->impl);
    test_tmpdir_remove(dir);
}

/* The same cut at every cycle. */
static void test_rearm_after_every_cut(void **state)
{
    (void)state;
    test_slow_only();
    char *dir = test_tmpdir();
    int seen[64] = {0};
    for (size_t k = 0; k < NKERNELS; k++) {
        kernel_case c;
        kernel_case_init(&c, dir, &kernels[k], seen);
        expect_cuts(&c, 1);
        kernel_case_free(&c);
    }
    test_tmpdir_remove(dir);
}

/* A graph with a block that cannot re-arm is built anew for every tile
 * point: every implementation must have a rearm. */
static void test_every_implementation_rearms(void **state)
{
    (void)state;
    for (int k = 0; k < registry_count(); k++)
        if (!registry_at(k)->rearm)
            fail_msg("%s (%s) has no rearm", registry_at(k)->type, registry_at(k)->impl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rearm_equals_fresh_build),
        cmocka_unit_test(test_rearm_after_every_cut),
        cmocka_unit_test(test_every_implementation_rearms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
