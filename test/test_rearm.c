/* A tiled run builds one engine and re-arms it for every tile point
 * (builder/build.h, sim_rearm_planned). A re-armed engine must be the
 * engine a fresh build gives: each case runs a compiled kernel on one set
 * of operands, re-arms the engine for another set and runs it again, and
 * compares everything the run reports (cycles, token moves, every block's
 * and every stream's statistics, the result) with a build on the second
 * set alone. The second set differs in size and pattern, empty operands
 * included, and the first run is also cut short (max_cycles), as a tiled
 * run that stops in a point re-arms an engine that did not finish;
 * channels unbounded and of depth 2. */
#include <stdlib.h>
#include <string.h>

#include "../builder/build.h"
#include "../builder/result.h"
#include "../formats/gen.h"
#include "test_util.h"

typedef struct operands {
    tensor t[4];
    int n;
} operands;

/* Every operand of g (tensors 1...) square of side n with nnz entries
 * each, from seed. */
static void make_operands(const sam_graph *g, int64_t n, size_t nnz, uint64_t seed,
                          operands *ops)
{
    sam_error err = {{0}};
    ops->n = g->ntensors - 1;
    assert_true(ops->n <= 4);
    for (int k = 0; k < ops->n; k++) {
        int order = g->tensors[k + 1].format.nlevels;
        int64_t dims[2] = {n, n};
        size_t most = order == 1 ? (size_t)n : (size_t)(n * n);
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

/* Graph g with channels of that depth (0: unbounded) run on first (cut at
 * max cycles when max > 0), then re-armed for second, against a fresh
 * build on second. */
static void expect_rearm_fresh(const sam_graph *g, uint64_t depth, const operands *first,
                               const operands *second, cycle_t max)
{
    sam_error err = {{0}};
    sim_options o = {.depth = depth, .latency = 1};
    sim_plan plan;
    sim_data d1 = {0}, d2 = {0};
    sim_engine armed = {0}, fresh = {0};
    bind(g, first, &d1);
    bind(g, second, &d2);
    if (sim_plan_init(&plan, g, &o, &err) || sim_build_planned(&armed, &plan, &d1, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < armed.nblocks; i++)
        if (!armed.blocks[i].ops->rearm)
            fail_msg("%s: block %s (%s) cannot re-arm", g->path, armed.blocks[i].node->id,
                     armed.blocks[i].node->type);
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

/* Kernels whose every block re-arms: between them, the compressed and
 * dense scanners, intersect and union, repeat and repsiggen, the ALUs,
 * arrayvals and the writers, crddrop, crdhold and the spaccumulator of
 * orders 1 and 2. */
static const char *const kernels[] = {
    "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss",
    "X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ss -f=C:ss",
    "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ds -f=C:ds",
    "X(i,j)=B(i,j) -f=X:ss -f=B:ss",
    "X(i,j)=B(i,j)*c(j) -f=X:ss -f=B:ss -f=c:s",
    "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)",
    "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)",
};

static void test_rearm_equals_fresh_build(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
        sam_graph g = test_compiled_graph(dir, kernels[k]);
        operands small, large, empty;
        make_operands(&g, 5, 9, 1, &small);
        make_operands(&g, 9, 30, 7, &large);
        make_operands(&g, 4, 0, 3, &empty);
        for (uint64_t depth = 0; depth <= 2; depth += 2) {
            expect_rearm_fresh(&g, depth, &small, &large, 0);
            expect_rearm_fresh(&g, depth, &large, &small, 0);
            expect_rearm_fresh(&g, depth, &large, &empty, 0);
            expect_rearm_fresh(&g, depth, &empty, &large, 0);
            expect_rearm_fresh(&g, depth, &large, &small, 7);
        }
        free_operands(&small), free_operands(&large), free_operands(&empty);
        graph_free(&g);
    }
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rearm_equals_fresh_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
