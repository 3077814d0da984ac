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

/* A set of operands bound to a kernel's tensors, and what a fresh build
 * on them gives, run to its end. */
typedef struct operand_set {
    operands ops;
    sim_data d;
    sim_engine fresh;
    sim_outcome out;
    tensor result;
} operand_set;

enum { SMALL, LARGE, OTHER, SINGLE, EMPTY, NSETS };

/* A kernel's graph as its settings leave it, its run options and plan,
 * and the operands it is run on. */
typedef struct kernel_case {
    sam_graph g;
    sim_options o;
    sim_plan plan;
    operand_set set[NSETS];
    int *seen;          /* the implementations run, in registry order */
} kernel_case;

/* The kernel run on set `from` (cut at max cycles when max > 0), then
 * re-armed for set `to`, against the fresh build on `to`. */
static void expect_rearm_fresh(kernel_case *c, int from, int to, cycle_t max)
{
    sam_error err = {{0}};
    sim_engine armed = {0};
    const operand_set *s = &c->set[to];
    if (sim_build_planned(&armed, &c->plan, &c->set[from].d, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < armed.nblocks; i++) {
        if (!armed.blocks[i].ops->rearm)
            fail_msg("%s: block %s (%s) cannot re-arm", c->g.path, armed.blocks[i].node->id,
                     armed.blocks[i].node->type);
        for (int k = 0; k < registry_count(); k++)
            c->seen[k] |= registry_at(k) == armed.blocks[i].ops;
    }
    run(&armed, max, max == 0);
    if (sim_rearm_planned(&armed, &c->plan, &s->d, &err))
        fail_msg("%s", err.msg);
    sim_outcome a = run(&armed, 0, 1);
    assert_int_equal(a.cycles, s->out.cycles);
    assert_int_equal(a.tokens, s->out.tokens);
    expect_same_stats(&armed, &s->fresh);
    tensor ta;
    result_of(&armed, &c->g, &s->d, &ta);
    assert_true(tensor_equal(&ta, &s->result));
    tensor_free(&ta);
    sim_engine_free(&armed);
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

/* Set s of c: its operands, of side n with nnz entries each from seed,
 * bound, and the fresh build's run on them. */
static void operand_set_init(kernel_case *c, operand_set *s, int64_t n, size_t nnz,
                             uint64_t seed)
{
    sam_error err = {{0}};
    make_operands(&c->g, n, nnz, seed, &s->ops);
    bind(&c->g, &s->ops, &s->d);
    if (sim_build_planned(&s->fresh, &c->plan, &s->d, &err))
        fail_msg("%s", err.msg);
    s->out = run(&s->fresh, 0, 1);
    result_of(&s->fresh, &c->g, &s->d, &s->result);
}

static void operand_set_free(operand_set *s)
{
    tensor_free(&s->result);
    sim_engine_free(&s->fresh);
    sim_data_free(&s->d);
    free_operands(&s->ops);
}

/* Kernel k compiled, its settings applied, on operands of sides 4 to 9:
 * smaller and larger, two of one size (storage sized by the operands is
 * kept), one of one entry (fewer elements than lanes), one of none. */
static void kernel_case_init(kernel_case *c, const char *dir, const kernel *k, uint64_t depth,
                             int *seen)
{
    sam_error err = {{0}};
    sim_config conf = {0};
    char key[64], value[64];
    int used;
    print_message("%s %s\n", k->args, k->settings);
    *c = (kernel_case){.g = test_compiled_graph(dir, k->args),
                       .o = {.depth = depth, .latency = 1}, .seen = seen};
    for (const char *at = k->settings; sscanf(at, " %63[^=]=%63s%n", key, value, &used) == 2;
         at += used)
        if (sim_config_add(&conf, key, value, "test", &err))
            fail_msg("%s: %s", k->settings, err.msg);
    if (sim_config_apply(&conf, &c->g, &c->o, &err) || sim_plan_init(&c->plan, &c->g, &c->o, &err))
        fail_msg("%s: %s", k->args, err.msg);
    sim_config_free(&conf);
    operand_set_init(c, &c->set[SMALL], 5, 9, 1);
    operand_set_init(c, &c->set[LARGE], 9, 30, 7);
    operand_set_init(c, &c->set[OTHER], 9, 20, 11);
    operand_set_init(c, &c->set[SINGLE], 9, 1, 5);
    operand_set_init(c, &c->set[EMPTY], 4, 0, 3);
}

static void kernel_case_free(kernel_case *c)
{
    for (int k = 0; k < NSETS; k++)
        operand_set_free(&c->set[k]);
    sim_plan_free(&c->plan);
    graph_free(&c->g);
}

/* Runs on the larger operands cut short every step cycles, each re-armed
 * for the other operands of the size, for one entry and for none: a
 * block must forget whatever state a cut leaves. */
static void expect_cuts(kernel_case *c, cycle_t step)
{
    for (cycle_t cut = 1; cut < c->set[LARGE].out.cycles; cut += step) {
        expect_rearm_fresh(c, LARGE, OTHER, cut);
        expect_rearm_fresh(c, LARGE, SINGLE, cut);
        expect_rearm_fresh(c, LARGE, EMPTY, cut);
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
        for (uint64_t depth = 0; depth <= 2; depth += 2) {
            kernel_case c;
            kernel_case_init(&c, dir, &kernels[k], depth, seen);
            for (int from = 0; from < NSETS; from++)
                for (int to = 0; to < NSETS; to++)
                    if (from != to)
                        expect_rearm_fresh(&c, from, to, 0);
            expect_cuts(&c, c.set[LARGE].out.cycles / 20 + 1);
            kernel_case_free(&c);
        }
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
        kernel_case_init(&c, dir, &kernels[k], 0, seen);
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
