/* Coordinate skip (SAM-BLOCKS.md 6): the compressed scanner's skip input
 * against the section's vectors and the cases of the fiber protocol, the
 * skipping intersecter's skip outputs cycle by cycle, the builder's
 * feedback wiring (builder/feedback.c), and whole runs, where skipping must
 * leave every result as it is and save cycles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "../engine/engine.h"
#include "../builder/feedback.h"
#include "test_harness.h"
#include "test_util.h"

/* ------------------------------------------------------------- scanner */

/* The compressed scanner with its skip input counted, as the builder
 * leaves it once it has wired the feedback. */
static int create_with_skip(block *b, const block_ctx *ctx, sam_error *err)
{
    if (fiberlookup_compressed_ops.create(b, ctx, err))
        return -1;
    b->nin = fiberlookup_compressed_ops.feedback_in(b, 0) + 1;
    return 0;
}

/* Runs the scanner on seg/crd with ref and skip inputs (token k visible
 * in cycle k) and checks both outputs cycle by cycle. */
static void scan_skip(const int64_t *seg, size_t nseg, const int64_t *crd, size_t ncrd,
                      const char *in_ref, const char *skip, const char *crd_out,
                      const char *ref_out)
{
    block_ops ops = fiberlookup_compressed_ops;
    ops.create = create_with_skip;
    fibertree ft;
    harness_level(&ft, seg, nseg, crd, ncrd);
    harness_spec s = {.ops = &ops, .attrs = "tensor=B,mode=0,format=compressed", .tensor = "B",
                      .tree = &ft, .inputs = {in_ref, skip}};
    harness_out out;
    harness_run(&s, &out);
    harness_expect(&out, 0, crd_out, 1);
    harness_expect(&out, 1, ref_out, 1);
    harness_free(&out);
    fibertree_free(&ft);
}

#define SCAN_SKIP(seg, crd, in, skip, c, r) \
    scan_skip(seg, sizeof(seg) / 8, crd, sizeof(crd) / 8, in, skip, c, r)

/* The section's first vector: skips read in the cycle they arrive jump
 * within the fiber at once, and a stop token closes it. */
static void test_scanner_skip_unit(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 10}, crd[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    SCAN_SKIP(seg, crd, "0 D", "2 7 S0", "2 7 S0 D", "2 7 S0 D");
}

/* The second: the skip stream's stop tokens keep it in step with the
 * fibers; 3 concerns the second fiber, at positions 5 to 9. */
static void test_scanner_skip_two_fibers(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 5, 10}, crd[] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4};
    SCAN_SKIP(seg, crd, "0 1 S0 D", "2 S0 3 S1", "2 S0 3 S1 D", "2 S0 8 S1 D");
}

/* A skip about the first fiber that comes once the scanner is in the
 * second (read in cycle 4, after the S0 of cycle 3) is late and dropped:
 * the second fiber still starts at 0. */
static void test_scanner_skip_late(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 3, 6}, crd[] = {0, 1, 2, 0, 1, 2};
    SCAN_SKIP(seg, crd, "0 1 D", "_ _ _ _ 1", "0 1 2 S0 0 1 2 S0 D", "0 1 2 S0 3 4 5 S0 D");
}

/* A request to close in cycle 1 closes the fiber, whose stop token waits
 * for the next reference (cycle 5); the skip 2 behind it concerns the next
 * fiber and is not read before: in cycle 6 it takes that fiber to 2. */
static void test_scanner_skip_close_first(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 3, 6}, crd[] = {0, 1, 2, 0, 1, 2};
    SCAN_SKIP(seg, crd, "0 _ _ _ _ 1 D", "_ S0 2", "0 _ _ _ _ S0 2 S0 D",
              "0 _ _ _ _ S0 5 S0 D");
}

/* Skipping past the last coordinate closes the fiber. */
static void test_scanner_skip_past_the_end(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 4}, crd[] = {3, 5, 7, 9};
    SCAN_SKIP(seg, crd, "0 D", "_ 10", "3 S0 D", "0 S0 D");
}

/* SAM-BLOCKS.md 8.10: a skip no larger than the coordinates at hand, at
 * the start of a fiber, makes the reference emit nothing and repeat its
 * previous output; samsim ignores it (fiberlookup_compressed.c). */
static void test_scanner_skip_quirk_not_reproduced(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 4}, crd[] = {3, 5, 7, 9};
    SCAN_SKIP(seg, crd, "0 D", "0 _ 4", "3 5 7 9 S0 D", "0 1 2 3 S0 D");
}

/* Without a skip input the scanner is the plain one. */
static void test_scanner_skip_unconnected(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 3}, crd[] = {0, 1, 3};
    fibertree ft;
    harness_level(&ft, seg, 2, crd, 3);
    harness_spec s = {.ops = &fiberlookup_compressed_ops,
                      .attrs = "tensor=B,mode=0,format=compressed", .tensor = "B", .tree = &ft,
                      .inputs = {"0 _ _ _ D"}};
    harness_out out;
    harness_run(&s, &out);
    assert_int_equal(out.blk.nin, 1);
    harness_expect(&out, 0, "0 _ _ _ 1 3 S0 D", 1);
    harness_free(&out);
    fibertree_free(&ft);
}

/* -------------------------------------------------------- intersecter */

/* Runs the skipping intersecter (inputs crd1, ref1, crd2, ref2, ...) and
 * checks each output named in want, cycle by cycle. */
static void join_skip(const char *attrs, const char *const *in, const char *const *want)
{
    harness_spec s = {.ops = &intersect_skip_ops, .attrs = attrs};
    for (int p = 0; p < BLOCK_MAX_PORTS && in[p]; p++)
        s.inputs[p] = in[p];
    harness_out out;
    harness_run(&s, &out);
    for (int p = 0; p < out.blk.nout; p++)
        if (want[p])
            harness_expect(&out, p, want[p], 1);
    harness_free(&out);
}

#define IN(...) ((const char *const[BLOCK_MAX_PORTS]){__VA_ARGS__})
#define OUT(...) ((const char *const[BLOCK_MAX_PORTS]){__VA_ARGS__})

/* SAM-BLOCKS.md 5.9's derived vector. Side 1 falls behind in cycles 2 and
 * 4 and is asked for 2 and 4; in cycle 5 side 1's fiber has ended and
 * side 2 is asked to close its own (not again in cycle 6); the stop
 * tokens meet in cycle 7, which ends side 1's fiber on its skip stream.
 * The intersection itself is the two-finger one's. */
static void test_intersect_skip_outputs(void **state)
{
    (void)state;
    join_skip("", IN("0 1 2 3 S0 D", "0 1 2 3 S0 D", "0 2 4 15 S0 D", "0 1 2 3 S0 D"),
              OUT("_ 0 _ 2 _ _ _ S0 D", "_ 0 _ 2 _ _ _ S0 D", "_ 0 _ 1 _ _ _ S0 D",
                  "_ _ 2 _ 4 _ _ S0", "_ _ _ _ _ S0"));
}

/* Every fiber ends with one stop token on each skip stream, equal or not
 * to the one before (the reference would drop the second S0). */
static void test_intersect_skip_one_stop_per_fiber(void **state)
{
    (void)state;
    const char *s = "0 S0 1 S0 2 S1 D";
    join_skip("", IN(s, s, s, s),
              OUT("_ 0 S0 1 S0 2 S1 D", NULL, NULL, "_ _ S0 _ S0 _ S1", "_ _ S0 _ S0 _ S1"));
}

/* Three sides: every side behind the largest head is asked for it. */
static void test_intersect_skip_three_sides(void **state)
{
    (void)state;
    join_skip("sides=3",
              IN("0 2 3 5 S0 D", "10 11 12 13 S0 D", "2 3 4 S0 D", "20 21 22 S0 D",
                 "1 3 5 S0 D", "30 31 32 S0 D"),
              OUT("_ _ _ 3 _ _ S0 D", NULL, NULL, NULL, "_ 2 3 _ _ S0", "_ _ 3 _ 5 _ S0",
                  "_ 2 _ _ _ S0"));
}

/* ------------------------------------------------------------- wiring */

/* Stand-ins for a sender and a receiver of feedback: the sender asks for
 * feedback about its input 0 on output 1, the receiver takes feedback
 * about its output 0 on input 1. */
static int sender_out(const block *b, int in)
{
    (void)b;
    return in == 0 ? 1 : -1;
}

static int receiver_in(const block *b, int out)
{
    (void)b;
    return out == 0 ? 1 : -1;
}

static const block_ops sender_ops = {.type = "t", .impl = "sender", .feedback_out = sender_out};
static const block_ops receiver_ops = {.type = "t", .impl = "receiver", .feedback_in = receiver_in};
static const block_ops other_ops = {.type = "t", .impl = "other"};

/* Block 0 (receiver) -> block 1 (sender) over channel 0; with fan_out,
 * block 2 reads channel 0 too. Returns how many channels there are after
 * wiring; the sender's input keeps pointing at channel 0. */
static int wire(int fan_out, const block_ops *producer)
{
    sim_engine e;
    memset(&e, 0, sizeof e);
    e.blocks = calloc(3, sizeof *e.blocks);
    e.channels = calloc(1, sizeof *e.channels);
    assert_non_null(e.blocks);
    assert_non_null(e.channels);
    const block_ops *ops[] = {producer, &sender_ops, &other_ops};
    for (int i = 0; i < 3; i++)
        e.blocks[i] = (block){.ops = ops[i], .index = i, .nin = 1, .nout = 2};
    e.blocks[0].nin = 0;
    e.nblocks = 3;
    assert_int_equal(channel_init(&e.channels[0], 0, 2), 0);
    e.channels[0].producer = 0;
    e.nchannels = 1;
    e.blocks[0].out[0].ch = &e.channels[0];
    e.blocks[1].in[0] = (in_port){.ch = &e.channels[0], .reader = channel_add_reader(&e.channels[0], 1)};
    if (fan_out)
        e.blocks[2].in[0] =
            (in_port){.ch = &e.channels[0], .reader = channel_add_reader(&e.channels[0], 2)};
    sam_error err;
    assert_int_equal(sim_feedback_wire(&e, &err), 0);
    int n = e.nchannels;
    assert_ptr_equal(e.blocks[1].in[0].ch, &e.channels[0]);
    assert_ptr_equal(e.blocks[0].out[0].ch, &e.channels[0]);
    if (n == 2) {
        const channel *fb = &e.channels[1];
        assert_ptr_equal(e.blocks[1].out[1].ch, fb);
        assert_ptr_equal(e.blocks[0].in[1].ch, fb);
        assert_int_equal(e.blocks[0].nin, 2);
        assert_int_equal(fb->producer, 1);
        assert_int_equal(channel_reader_block(fb, 0), 0);
        assert_int_equal(fb->latency, 2);
        assert_int_equal(fb->capacity, 0);
    }
    sim_engine_free(&e);
    return n;
}

/* The feedback stream is added when the producer takes feedback and the
 * sender alone reads it; never when another block reads what the
 * producer sends (skipping would take tokens from it too). */
static void test_feedback_wiring(void **state)
{
    (void)state;
    assert_int_equal(wire(0, &receiver_ops), 2);
    assert_int_equal(wire(1, &receiver_ops), 1);
    assert_int_equal(wire(0, &other_ops), 1);
}

/* ----------------------------------------------------------- whole runs */

/* Writes the graph at path with every intersect node given impl="skip"
 * to dir/name and returns its path. */
static char *skip_graph(const char *dir, const char *path, const char *name)
{
    static const char from[] = "type=\"intersect\"", to[] = "type=\"intersect\" impl=\"skip\"";
    char *text = test_read_file(path);
    assert_non_null(text);
    char *out = malloc(2 * strlen(text) + 1), *w = out;
    for (const char *r = text; *r;) {
        if (!strncmp(r, from, sizeof from - 1)) {
            w += sprintf(w, "%s", to);
            r += sizeof from - 1;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    char *result = test_write_file(dir, name, out);
    free(text);
    free(out);
    return result;
}

/* dir/name.gv compiled from expr with formats f. */
static char *compile(const char *dir, const char *name, const char *expr, const char *const *f)
{
    char *path = test_graph_path(dir, name);
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", expr, f[0], f[1], f[2], "-o", path,
                                     NULL),
                     0);
    return path;
}

/* What a checked run's record and statistics say, and its result. */
typedef struct skip_run {
    long long cycles, tokens;
    tensor result;
    int feedback;       /* feedback streams in the statistics */
} skip_run;

static int feedback_streams(const sim_stats *s)
{
    int n = 0;
    for (int c = 0; c < s->nchannels; c++)
        n += !strcmp(s->kinds[c], "feedback");
    return n;
}

/* One checked run of graph in this process under engine; config is
 * NULL-terminated settings, or NULL. */
static skip_run run_engine(const char *graph, const char *const *bind,
                           const char *const *config, engine_mode engine)
{
    test_run_spec spec = {.graph = graph, .check = 1, .stats = 1, .engine = engine};
    for (int k = 0; bind[k]; k++)
        spec.bind[k] = bind[k];
    for (int k = 0; config && config[k]; k++)
        spec.config[k] = config[k];
    sam_graph g;
    graph_run r;
    sam_error err;
    char msg[512];
    int rc = test_graph_run(&spec, &g, &r, msg, sizeof msg);
    if (rc)
        fail_msg("%s: status %d: %s", graph, rc, rc < 0 ? msg : r.report);
    skip_run o = {(long long)test_field(&r, "cycles"), (long long)test_field(&r, "tokens"),
                  .feedback = feedback_streams(r.stats)};
    assert_int_equal(tensor_copy(&o.result, &r.result, &err), 0);
    test_graph_run_free(&g, &r);
    return o;
}

static skip_run run(const char *graph, const char *const *bind, const char *const *config)
{
    return run_engine(graph, bind, config, ENGINE_EVENT);
}

/* A whole-run case: operands b and c in dir, bound to two tensor names,
 * a graph compiled for them and its copy whose intersecters skip. */
typedef struct skip_case {
    char *dir, *b, *c, *graph, *skip;
    char bind_b[4200], bind_c[4200];
    const char *bind[3];
} skip_case;

/* Takes dir and the operand paths; names holds the two tensor names. */
static void skip_case_init(skip_case *k, char *dir, char *b, char *c, const char *names,
                           const char *expr, const char *const *formats)
{
    *k = (skip_case){.dir = dir, .b = b, .c = c};
    snprintf(k->bind_b, sizeof k->bind_b, "%c=%s", names[0], b);
    snprintf(k->bind_c, sizeof k->bind_c, "%c=%s", names[1], c);
    k->bind[0] = k->bind_b, k->bind[1] = k->bind_c, k->bind[2] = NULL;
    k->graph = compile(dir, "case", expr, formats);
    k->skip = skip_graph(dir, k->graph, "case_skip.gv");
}

static void skip_case_free(skip_case *k)
{
    free(k->b), free(k->c), free(k->graph), free(k->skip);
    test_tmpdir_remove(k->dir);
}

/* The skipping graph on every engine (test_util's test_run_engines). */
static void skip_case_engines(const skip_case *k, const char *label)
{
    const char *argv[] = {"run", k->skip, "-t", k->bind_b, "-t", k->bind_c, NULL};
    test_run_engines(label, k->dir, argv);
}

/* b holding 0..7, c only 6, as SAM vectors x(i) = b(i) * c(i). */
static void vector_case(skip_case *k, const char *b_format)
{
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "b.tns", "# shape: 8\n1 1\n2 2\n3 3\n4 4\n5 5\n6 6\n7 7\n8 8\n");
    char *c = test_write_file(dir, "c.tns", "# shape: 8\n7 3\n");
    const char *formats[] = {"-f=x:s", b_format, "-f=c:s"};
    skip_case_init(k, dir, b, c, "bc", "x(i)=b(i)*c(i)", formats);
}

/* Generated matrices B (urandom at density) and C (rmat with nnz). */
static void matrix_case(skip_case *k, const char *b_shape, const char *density,
                        const char *c_shape, const char *nnz, const char *seed_b,
                        const char *seed_c, const char *expr, const char *const *formats)
{
    char *dir = test_tmpdir();
    char *b = test_path(dir, "B.mtx"), *c = test_path(dir, "C.mtx");
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", b_shape,
                                     "--density", density, "--seed", seed_b, "-o", b, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "rmat", "--shape", c_shape, "--nnz", nnz,
                                     "--seed", seed_c, "-o", c, NULL),
                     0);
    skip_case_init(k, dir, b, c, "BC", expr, formats);
}

/* x(i) = b(i) * c(i), b holding 0..7 and c only 6. Two-finger: b's
 * scanner sends 0..7 in cycles 0-7, the intersecter (primed in cycle 1)
 * walks b up to 6, matches it in cycle 8, passes b's 7 and meets the stop
 * tokens in cycle 10, D in 11; the values writer takes D three blocks
 * later, in cycle 14: 15 cycles. Skip: in cycle 2 the intersecter asks b
 * for 6, the scanner reads it in cycle 3 and sends 6 instead of 3; the
 * match comes in cycle 5, D in cycle 8, the writer is done in 11: 12
 * cycles. Tokens: b's scanner sends 7 instead of 10 on each of its two
 * outputs, and three skip tokens go back (6 and b's early S0 to b, S0 to
 * c), 44 - 6 + 3. */
static void test_skip_vector_product_cycles(void **state)
{
    (void)state;
    skip_case k;
    vector_case(&k, "-f=b:s");
    skip_run two = run(k.graph, k.bind, NULL), skip = run(k.skip, k.bind, NULL);
    assert_int_equal(two.cycles, 15);
    assert_int_equal(skip.cycles, 12);
    assert_int_equal(two.tokens, 44);
    assert_int_equal(skip.tokens, 41);
    assert_int_equal(two.feedback, 0);
    assert_int_equal(skip.feedback, 2);
    assert_true(tensor_equal(&two.result, &skip.result));
    skip_case_engines(&k, "vector product, skip");
    tensor_free(&two.result), tensor_free(&skip.result);
    skip_case_free(&k);
}

/* A broadcast node between the scanner and the intersecter is wiring: the
 * feedback goes to the scanner behind it all the same. */
static void test_skip_through_broadcast(void **state)
{
    (void)state;
    skip_case k;
    vector_case(&k, "-f=b:s");
    char *text = test_read_file(k.skip);
    const char *edge = "    0 -> 2 [label=\"crd_in-b\"";
    char *at = strstr(text, edge);
    assert_non_null(at);
    char *split = malloc(strlen(text) + 400);
    sprintf(split, "%.*s    9 [type=\"broadcast\"]\n    0 -> 9 [type=\"crd\" comment=\"i\"]\n"
                   "    9 -> 2 [label=\"crd_in-b\"%s",
            (int)(at - text), text, at + strlen(edge));
    char *gb = test_write_file(k.dir, "ve_broadcast.gv", split);
    skip_run o = run(gb, k.bind, NULL);
    assert_int_equal(o.cycles, 12);
    assert_int_equal(o.feedback, 2);
    tensor_free(&o.result), free(text), free(split), free(gb);
    skip_case_free(&k);
}

/* A dense level has no scanner to skip: that side goes without. */
static void test_skip_dense_side(void **state)
{
    (void)state;
    skip_case k;
    vector_case(&k, "-f=b:d");
    skip_run two = run(k.graph, k.bind, NULL), skip = run(k.skip, k.bind, NULL);
    assert_int_equal(skip.feedback, 1);
    assert_int_equal(skip.cycles, two.cycles);
    assert_true(tensor_equal(&two.result, &skip.result));
    tensor_free(&two.result), tensor_free(&skip.result);
    skip_case_free(&k);
}

/* X = B .* C with B's rows dense-ish and C's very sparse: every result
 * equals the two-finger one, every engine agrees, and skipping saves
 * cycles, many more when bounded queues keep the scanners from running
 * ahead of the intersecter (a skip only spares what is not yet sent). */
static void test_skip_elemmul_generated(void **state)
{
    (void)state;
    static const char *const formats[] = {"-f=X:ss", "-f=B:ss", "-f=C:ss"};
    skip_case k;
    matrix_case(&k, "60x80", "0.4", "60x80", "90", "11", "12", "X(i,j)=B(i,j)*C(i,j)", formats);
    const char *const bounded[] = {"channel.capacity=4", NULL};
    skip_run two = run(k.graph, k.bind, NULL), skip = run(k.skip, k.bind, NULL);
    skip_run two4 = run(k.graph, k.bind, bounded);
    skip_run skip4 = run(k.skip, k.bind, bounded);
    assert_int_equal(skip.feedback, 4);
    assert_true(tensor_equal(&two.result, &skip.result));
    assert_true(tensor_equal(&two.result, &skip4.result));
    assert_true(skip.cycles < two.cycles);
    assert_true(2 * skip4.cycles < two4.cycles);
    skip_case_engines(&k, "elemmul, skip");
    skip_run cycle4 = run_engine(k.skip, k.bind, bounded, ENGINE_CYCLE);
    assert_int_equal(cycle4.cycles, skip4.cycles);
    tensor_free(&cycle4.result);
    tensor_free(&two.result), tensor_free(&skip.result);
    tensor_free(&two4.result), tensor_free(&skip4.result);
    skip_case_free(&k);
}

/* Sparse matrix products with every intersecter skipping. */
static void test_skip_matmul_generated(void **state)
{
    (void)state;
    static const char *const formats[] = {"-f=X:ss", "-f=B:ss", "-f=C:ss:1,0"};
    skip_case k;
    matrix_case(&k, "30x50", "0.3", "50x30", "60", "21", "22", "X(i,j)=B(i,k)*C(k,j)", formats);
    skip_run two = run(k.graph, k.bind, NULL), skip = run(k.skip, k.bind, NULL);
    assert_int_equal(skip.feedback, 2);
    assert_true(tensor_equal(&two.result, &skip.result));
    assert_true(skip.cycles <= two.cycles);
    skip_case_engines(&k, "matmul ijk, skip");
    tensor_free(&two.result), tensor_free(&skip.result);
    skip_case_free(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scanner_skip_unit),
        cmocka_unit_test(test_scanner_skip_two_fibers),
        cmocka_unit_test(test_scanner_skip_late),
        cmocka_unit_test(test_scanner_skip_close_first),
        cmocka_unit_test(test_scanner_skip_past_the_end),
        cmocka_unit_test(test_scanner_skip_quirk_not_reproduced),
        cmocka_unit_test(test_scanner_skip_unconnected),
        cmocka_unit_test(test_intersect_skip_outputs),
        cmocka_unit_test(test_intersect_skip_one_stop_per_fiber),
        cmocka_unit_test(test_intersect_skip_three_sides),
        cmocka_unit_test(test_feedback_wiring),
        cmocka_unit_test(test_skip_vector_product_cycles),
        cmocka_unit_test(test_skip_through_broadcast),
        cmocka_unit_test(test_skip_dense_side),
        cmocka_unit_test(test_skip_elemmul_generated),
        cmocka_unit_test(test_skip_matmul_generated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
