/* Whole graphs of bitvector blocks, built from DOT and run by the engine
 * (event, step and cycle engines, which must agree): the registry picks
 * the bitvector implementations by their attributes, the ports take the
 * edges as drawn, and the results are right. The bitvector operands are
 * bound by hand (harness_bv_level): reading bitvector levels from files,
 * and a level letter for them in the graph comment, come with the
 * bitvector level format, so the comments below still say s0 for the
 * operands b and c; nothing in a run reads their letters. Blocks that
 * share a word stream must agree on its width, in the graph and as
 * --config leaves it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../builder/build.h"
#include "../engine/engine.h"
#include "../builder/result.h"
#include "test_harness.h"
#include "test_util.h"

/* b = {1,3,9,17,19} holding 1..5 and c = {3,9,12,19} holding 1..4, of
 * dimension 20, in 8-bit words (three a fiber). */
static const uint64_t b_bits[] = {655882}, c_bits[] = {528904};

#define NODE(id, attrs) "    " id " [type=" attrs "]\n"
#define EDGE(from, to, kind, label) \
    "    " from " -> " to " [type=\"" kind "\" label=\"" label "\"]\n"

#define SCANNERS                                                                                \
    NODE("0", "fiberlookup index=i tensor=b mode=0 format=bitvector width=8 root=true src=true") \
    NODE("1", "fiberlookup index=i tensor=c mode=0 format=bitvector width=8 root=true src=true") \
    EDGE("0", "2", "bv", "bv_in-b") EDGE("0", "2", "ref", "ref_in-b")                           \
    EDGE("1", "2", "bv", "bv_in-c") EDGE("1", "2", "ref", "ref_in-c")

#define ARRAYS_INTO(alu)                                                                   \
    NODE("3", "arrayvals tensor=b") NODE("4", "arrayvals tensor=c") NODE("5", alu)         \
    NODE("6", "fiberwrite tensor=x mode=vals sink=true")                                   \
    EDGE("2", "3", "ref", "ref_out-b") EDGE("2", "4", "ref", "ref_out-c")                 \
    EDGE("3", "5", "val", "val") EDGE("4", "5", "val", "val") EDGE("5", "6", "val", "val")

/* x = b .* c, x compressed from the intersect's coordinates. */
static const char elemmul[] =
    "digraph SAM {\n    comment=\"x=s0,b=s0,c=s0\"\n" SCANNERS
    NODE("2", "intersect index=i format=bitvector width=8")
    NODE("7", "fiberwrite index=i tensor=x mode=0 format=compressed sink=true")
    EDGE("2", "7", "crd", "crd") ARRAYS_INTO("mul") "}\n";

/* x = b + c, x compressed from the union's coordinates. */
static const char elemadd[] =
    "digraph SAM {\n    comment=\"x=s0,b=s0,c=s0\"\n" SCANNERS
    NODE("2", "union index=i format=bitvector width=8")
    NODE("7", "fiberwrite index=i tensor=x mode=0 format=compressed sink=true")
    EDGE("2", "7", "crd", "crd") ARRAYS_INTO("add") "}\n";

/* x = b .* c with x a bitvector itself, from the AND words (emit_zeros=1:
 * a word for every step). */
static const char elemmul_bv[] =
    "digraph SAM {\n    comment=\"x=s0,b=s0,c=s0\"\n" SCANNERS
    NODE("2", "intersect index=i format=bitvector width=8 emit_zeros=1")
    NODE("7", "fiberwrite index=i tensor=x mode=0 format=bitvector width=8 sink=true")
    EDGE("2", "7", "bv", "bv") ARRAYS_INTO("mul") "}\n";

/* x = b, b alone: its words back to coordinates (bv to=crd). */
static const char identity[] =
    "digraph SAM {\n    comment=\"x=s0,b=s0\"\n"
    NODE("0", "fiberlookup index=i tensor=b mode=0 format=bitvector width=8 root=true src=true")
    NODE("1", "bv to=crd width=8")
    NODE("2", "arrayvals tensor=b")
    NODE("3", "fiberwrite index=i tensor=x mode=0 format=compressed sink=true")
    NODE("4", "fiberwrite tensor=x mode=vals sink=true")
    EDGE("0", "1", "bv", "bv") EDGE("0", "1", "ref", "ref") EDGE("1", "3", "crd", "crd")
    EDGE("1", "2", "ref", "ref") EDGE("2", "4", "val", "val") "}\n";

typedef struct run {
    cycle_t cycles;
    fibertree x;
} run;

/* Runs graph text on b and c with engine mode; fails the test when the
 * build, the run or the result does. */
static void run_graph(const char *text, engine_mode mode, run *r)
{
    char *dir = test_tmpdir(), *path = test_write_file(dir, "g.gv", text);
    sam_error err = {{0}};
    sam_graph g;
    if (graph_read_dot(path, &g, &err))
        fail_msg("%s", err.msg);
    fibertree b, c;
    harness_bv_level(&b, 20, b_bits, 1);
    harness_bv_level(&c, 20, c_bits, 1);
    sim_data d = {0};
    sim_engine e;
    sim_options o = {.depth = 0, .latency = 1};
    if (sim_data_borrow(&d, "b", &b, &err) || sim_data_borrow(&d, "c", &c, &err) ||
        sim_build(&e, &g, &d, &o, &err))
        fail_msg("%s", err.msg);
    sim_outcome out;
    char report[1024] = "";
    if (sim_engine_run(&e, mode, 1000, &out, report, sizeof report, &err))
        fail_msg("%s: %s %s", engine_names[mode], err.msg, report);
    if (sim_result(&e, &g, &d, &r->x, &err))
        fail_msg("%s", err.msg);
    r->cycles = out.cycles;
    sim_engine_free(&e);
    sim_data_release(&d);
    fibertree_free(&b);
    fibertree_free(&c);
    graph_free(&g);
    free(path);
    test_tmpdir_remove(dir);
}

/* Every engine: the same cycles, pinned, and the same result, whose
 * values are vals and whose level 0 (compressed) holds crd. */
static void expect_compressed(const char *text, cycle_t cycles, const int64_t *crd,
                              const double *vals, size_t n)
{
    for (int mode = 0; mode < ENGINE_MODES; mode++) {
        run r;
        run_graph(text, (engine_mode)mode, &r);
        assert_int_equal(r.cycles, cycles);
        assert_int_equal(r.x.lv[0].kind, 's');
        assert_int_equal(r.x.lv[0].ncrd, n);
        assert_int_equal(r.x.nvals, n);
        for (size_t k = 0; k < n; k++) {
            assert_int_equal(r.x.lv[0].crd[k], crd[k]);
            assert_true(r.x.vals[k] == vals[k]);
        }
        fibertree_free(&r.x);
    }
}

/* Scanners at cycles 0-4, the intersect a cycle behind, the arrays, the
 * multiplier and the value writer each one more: D reaches it at cycle 8. */
static void test_elemmul(void **state)
{
    (void)state;
    static const int64_t crd[] = {3, 9, 19};
    static const double vals[] = {2 * 1, 3 * 2, 5 * 4};
    expect_compressed(elemmul, 9, crd, vals, 3);
}

/* The union sends a bit a cycle: six coordinates, three more cycles. */
static void test_elemadd(void **state)
{
    (void)state;
    static const int64_t crd[] = {1, 3, 9, 12, 17, 19};
    static const double vals[] = {1, 2 + 1, 3 + 2, 0 + 3, 4, 5 + 4};
    expect_compressed(elemadd, 12, crd, vals, 6);
}

/* A bitvector tensor alone, through bv to=crd: b itself. */
static void test_identity(void **state)
{
    (void)state;
    static const int64_t crd[] = {1, 3, 9, 17, 19};
    static const double vals[] = {1, 2, 3, 4, 5};
    expect_compressed(identity, 10, crd, vals, 5);
}

/* x stored as a bitvector level: bits 3, 9 and 19. */
static void test_elemmul_written_as_bitvector(void **state)
{
    (void)state;
    for (int mode = 0; mode < ENGINE_MODES; mode++) {
        run r;
        run_graph(elemmul_bv, (engine_mode)mode, &r);
        assert_int_equal(r.cycles, 9);
        const fiber_level *l = &r.x.lv[0];
        assert_int_equal(l->kind, 'b');
        assert_int_equal(l->nbits, 1);
        assert_int_equal(l->bits[0], ((uint64_t)1 << 3) | ((uint64_t)1 << 9) | ((uint64_t)1 << 19));
        assert_int_equal(l->nseg, 2);
        assert_int_equal(l->seg[1], 3);
        assert_int_equal(r.x.nvals, 3);
        assert_true(r.x.vals[2] == 20);
        fibertree_free(&r.x);
    }
}

/* The build's error for graph text with b and c bound. */
static char *build_error(const char *text, char **path_out)
{
    char *dir = test_tmpdir(), *path = test_write_file(dir, "g.gv", text);
    sam_error err = {{0}};
    sam_graph g;
    if (graph_read_dot(path, &g, &err))
        fail_msg("%s", err.msg);
    fibertree b, c;
    harness_bv_level(&b, 20, b_bits, 1);
    harness_bv_level(&c, 20, c_bits, 1);
    sim_data d = {0};
    sim_engine e;
    sim_options o = {.depth = 0, .latency = 1};
    assert_int_equal(sim_data_borrow(&d, "b", &b, &err), 0);
    assert_int_equal(sim_data_borrow(&d, "c", &c, &err), 0);
    assert_int_equal(sim_build(&e, &g, &d, &o, &err), -1);
    sim_data_release(&d);
    fibertree_free(&b);
    fibertree_free(&c);
    graph_free(&g);
    *path_out = path;
    test_tmpdir_remove(dir);
    return strdup(err.msg);
}

/* Text with the first occurrence of from replaced by to. */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* Words of one width read as another put bits at the wrong coordinates
 * (b's 8-bit word 1 read as 16 bits holds coordinates 16 to 31): a
 * stream whose producer and reader disagree is refused when the graph is
 * built, naming both, whichever end the graph sets apart. */
static void test_width_mismatch_refused(void **state)
{
    (void)state;
    static const struct {
        const char *graph, *from, *to, *want;
    } cases[] = {
        {elemmul, "intersect index=i format=bitvector width=8",
         "intersect index=i format=bitvector width=16",
         "node 0 (fiberlookup) sends 8-bit words to node 2 (intersect), which reads 16-bit "
         "words: blocks sharing a bitvector stream need one width"},
        {elemmul, "tensor=c mode=0 format=bitvector width=8", "tensor=c mode=0 format=bitvector",
         "node 1 (fiberlookup) sends 64-bit words to node 2 (intersect), which reads 8-bit "
         "words: blocks sharing a bitvector stream need one width"},
        {elemmul_bv, "mode=0 format=bitvector width=8 sink", "mode=0 format=bitvector sink",
         "node 2 (intersect) sends 8-bit words to node 7 (fiberwrite), which reads 64-bit "
         "words: blocks sharing a bitvector stream need one width"},
        {identity, "bv to=crd width=8", "bv to=crd width=4",
         "node 0 (fiberlookup) sends 8-bit words to node 1 (bv), which reads 4-bit words: "
         "blocks sharing a bitvector stream need one width"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *text = replaced(cases[k].graph, cases[k].from, cases[k].to), *path;
        char *msg = build_error(text, &path), want[600];
        snprintf(want, sizeof want, "%s: %s", path, cases[k].want);
        assert_string_equal(msg, want);
        free(text), free(msg), free(path);
    }
}

/* The auditor's graph: X(i,j) = B(i,j) * C(i,j) with B and C bitvector
 * inner levels, C the shifted copy of B; node ids looked up in the graph
 * (B's bitvector scanner and the intersecter). */
typedef struct bv_run {
    char *dir, *graph, *bind;
    const char *scanner, *joiner;
    sam_graph g;
} bv_run;

static void bv_run_init(bv_run *r)
{
    r->dir = test_tmpdir();
    r->graph = test_compile_to(r->dir, "bv", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:sb -f=C:sb");
    char *b = test_gen_urandom(r->dir, "B.mtx", "67x67", "0.06", 7);
    r->bind = malloc(strlen(b) + 3);
    sprintf(r->bind, "B=%s", b);
    free(b);
    sam_error err;
    if (graph_read_dot(r->graph, &r->g, &err))
        fail_msg("%s", err.msg);
    r->scanner = r->joiner = NULL;
    for (int i = 0; i < r->g.nnodes; i++) {
        const graph_node *n = &r->g.nodes[i];
        const char *f = graph_node_attr(n, "format"), *t = graph_node_attr(n, "tensor");
        if (!f || strcmp(f, "bitvector"))
            continue;
        if (!strcmp(n->type, "intersect"))
            r->joiner = n->id;
        else if (!strcmp(n->type, "fiberlookup") && t && !strcmp(t, "B"))
            r->scanner = n->id;
    }
    assert_non_null(r->scanner);
    assert_non_null(r->joiner);
}

static void bv_run_free(bv_run *r)
{
    graph_free(&r->g);
    free(r->graph), free(r->bind);
    test_tmpdir_remove(r->dir);
}

/* The run under every engine with --check against the reference
 * evaluation, with the settings of config (NULL: none); its cycles. */
static long long bv_run_cycles(bv_run *r, const char *config)
{
    char *cfg = config ? test_write_file(r->dir, "run.cfg", config) : NULL;
    const char *argv[] = {"run", r->graph, "-t", r->bind, "--shift",
                          cfg ? "--config" : NULL, cfg, NULL};
    long long cycles = test_run_engines(config ? config : "no config", r->dir, argv);
    free(cfg);
    return cycles;
}

/* doc/timing.md's example `fiberlookup.width = 8` is the vector scanner's:
 * it leaves the bitvector blocks alone (the run was "malformed"), so the
 * run is the one without settings; bitvector.width sets every bitvector
 * block at once, a correct result in more words; one scanner's width
 * alone (X held 18 of its 83 entries, exit 0) is refused in one line
 * naming the scanner and the intersecter and both widths. */
static void test_config_widths(void **state)
{
    (void)state;
    bv_run r;
    bv_run_init(&r);
    long long plain = bv_run_cycles(&r, NULL);
    assert_int_equal(bv_run_cycles(&r, "fiberlookup.width = 8\n"), plain);
    assert_true(bv_run_cycles(&r, "bitvector.width = 16\n") > plain);
    char line[64], want[4400], *se = NULL;
    snprintf(line, sizeof line, "node.%s.width = 16\n", r.scanner);
    char *cfg = test_write_file(r.dir, "node.cfg", line);
    assert_int_equal(test_run_samsim(NULL, &se, "run", r.graph, "-t", r.bind, "--shift",
                                     "--config", cfg, NULL),
                     1);
    snprintf(want, sizeof want, "samsim: %s: node %s (fiberlookup) sends 16-bit words to node %s "
             "(intersect), which reads 64-bit words: blocks sharing a bitvector stream need one "
             "width\n", r.graph, r.scanner, r.joiner);
    assert_string_equal(se, want);
    free(se), free(cfg);
    /* Set on every block of the stream, node by node, the width holds. */
    char both[256];
    snprintf(both, sizeof both, "bitvector.width = 16\nnode.%s.width = 16\n", r.scanner);
    assert_int_equal(bv_run_cycles(&r, both), bv_run_cycles(&r, "bitvector.width = 16\n"));
    bv_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elemmul),
        cmocka_unit_test(test_elemadd),
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_elemmul_written_as_bitvector),
        cmocka_unit_test(test_width_mismatch_refused),
        cmocka_unit_test(test_config_widths),
    };
    return cmocka_run_group_tests_name("bitvector_graph", tests, NULL, NULL);
}
