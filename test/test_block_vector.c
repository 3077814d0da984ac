/* The vectorised compressed scanner (fiberlookup impl=vector): several
 * coordinates a cycle, cycle by cycle, within the room of bounded
 * outputs (channel_room), and whole runs whose results equal those of
 * the one-a-cycle scanner. Outputs are written one cycle a group, "|"
 * between cycles and "_" for a cycle without tokens. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "test_harness.h"
#include "test_util.h"

enum { MAX_CYCLES = 64 };

typedef struct vscan {
    const char *in_ref;     /* token k visible in cycle k, "_" none */
    const char *width;      /* the width attribute, NULL: the default */
    uint64_t capacity;      /* of each output, 0: unbounded */
} vscan;

static const fibertree *lookup(const block_ctx *ctx, const char *name)
{
    (void)name;
    return ctx->data;
}

static void feed(channel *c, const char *stream)
{
    char *copy = strdup(stream), *save = NULL;
    cycle_t t = 0;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save), t++) {
        token tok;
        if (!strcmp(w, "_"))
            continue;
        assert_int_equal(token_parse(w, &tok), 0);
        assert_int_equal(channel_push(c, t, tok), 0);
    }
    free(copy);
}

/* Appends the tokens pushed on c in cycle t (visible from t + 1), taking
 * them as a consumer that reads everything at once would. */
static void take(channel *c, cycle_t t, char *text, size_t size)
{
    size_t n = strlen(text);
    snprintf(text + n, size - n, "%s", t ? " |" : "");
    int any = 0;
    token tok;
    while (channel_peek(c, 0, t + 1, &tok)) {
        char buf[32];
        n = strlen(text);
        snprintf(text + n, size - n, " %s", token_str(tok, buf));
        channel_pop(c, 0, t + 1);
        any = 1;
    }
    n = strlen(text);
    if (!any)
        snprintf(text + n, size - n, " _");
}

/* Drops the cycles without tokens at the end. */
static void trim(char *text)
{
    size_t n = strlen(text);
    while (n >= 4 && !strcmp(text + n - 4, " | _"))
        text[n -= 4] = '\0';
}

/* Runs the scanner on seg/crd and returns its crd and ref outputs; each
 * cycle it is stepped only when both outputs have room, as the engine
 * steps a block. */
static void run_scan(const int64_t *seg, size_t nseg, const int64_t *crd, size_t ncrd,
                     const vscan *v, char out[2][1024])
{
    fibertree ft;
    harness_level(&ft, seg, nseg, crd, ncrd);
    graph_attr attrs[] = {{"tensor", "B"}, {"mode", "0"}, {"format", "compressed"},
                          {"width", (char *)v->width}};
    graph_node node = {.id = "0", .type = "fiberlookup", .attrs = attrs, .nattrs = v->width ? 4 : 3};
    block_ctx ctx = {.node = &node, .tensor = lookup, .data = &ft};
    block b = {.ops = &fiberlookup_vector_ops, .node = &node};
    sam_error err;
    if (b.ops->create(&b, &ctx, &err))
        fail_msg("%s", err.msg);
    channel in, outs[2];
    assert_int_equal(channel_init(&in, 0, 0), 0);
    b.in[0] = (in_port){.ch = &in, .reader = channel_add_reader(&in, -1)};
    feed(&in, v->in_ref);
    for (int p = 0; p < 2; p++) {
        assert_int_equal(channel_init(&outs[p], v->capacity, 1), 0);
        assert_int_equal(channel_add_reader(&outs[p], -1), 0);
        b.out[p].ch = &outs[p];
        out[p][0] = '\0';
    }
    for (cycle_t t = 0; t < MAX_CYCLES; t++) {
        if (channel_has_room(&outs[0], t) && channel_has_room(&outs[1], t))
            b.ops->step(&b, t);
        assert_null(b.fault);
        for (int p = 0; p < 2; p++)
            take(&outs[p], t, out[p], sizeof out[p]);
    }
    for (int p = 0; p < 2; p++) {
        trim(out[p]);
        channel_free(&outs[p]);
    }
    channel_free(&in);
    block_destroy(&b);
    fibertree_free(&ft);
}

#define RUN(seg, crd, v, out) run_scan(seg, sizeof(seg) / 8, crd, sizeof(crd) / 8, v, out)

static const int64_t one_seg[] = {0, 5}, one_crd[] = {1, 3, 4, 6, 8};

/* Five coordinates two a cycle, then the stop token and D in cycles of
 * their own, as the plain scanner sends them. */
static void test_vector_width_2(void **state)
{
    (void)state;
    char out[2][1024];
    vscan v = {.in_ref = "0 D", .width = "2"};
    RUN(one_seg, one_crd, &v, out);
    assert_string_equal(out[0], " 1 3 | 4 6 | 8 | S0 | D");
    assert_string_equal(out[1], " 0 1 | 2 3 | 4 | S0 | D");
}

static void test_vector_width_3(void **state)
{
    (void)state;
    char out[2][1024];
    vscan v = {.in_ref = "0 D", .width = "3"};
    RUN(one_seg, one_crd, &v, out);
    assert_string_equal(out[0], " 1 3 4 | 6 8 | S0 | D");
    assert_string_equal(out[1], " 0 1 2 | 3 4 | S0 | D");
}

/* Width 4 unless the node says otherwise. */
static void test_vector_default_width(void **state)
{
    (void)state;
    char out[2][1024];
    vscan v = {.in_ref = "0 D"};
    RUN(one_seg, one_crd, &v, out);
    assert_string_equal(out[0], " 1 3 4 6 | 8 | S0 | D");
}

/* Two fibers, the second reference late (cycle 3). Width 2: the first
 * fiber's third coordinate waits for a visible reference, as the plain
 * scanner's advance does, and the stop token follows in cycle 4. Width 3:
 * the whole fiber goes in cycle 0, and its stop token waits for the
 * reference. */
static void test_vector_waits_for_the_next_ref(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 3, 5}, crd[] = {0, 2, 3, 1, 4};
    char out[2][1024];
    vscan v = {.in_ref = "0 _ _ 1 D", .width = "2"};
    RUN(seg, crd, &v, out);
    assert_string_equal(out[0], " 0 2 | _ | _ | 3 | S0 | 1 4 | S0 | D");
    assert_string_equal(out[1], " 0 1 | _ | _ | 2 | S0 | 3 4 | S0 | D");
    v.width = "3";
    RUN(seg, crd, &v, out);
    assert_string_equal(out[0], " 0 2 3 | _ | _ | S0 | 1 4 | S0 | D");
    assert_string_equal(out[1], " 0 1 2 | _ | _ | S0 | 3 4 | S0 | D");
}

/* Stop-token and N references as in SAM-BLOCKS.md 5.1's vectors. */
static void test_vector_stop_and_empty_refs(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 2, 3, 4}, crd[] = {0, 1, 2, 3};
    char out[2][1024];
    vscan v = {.in_ref = "0 1 N 2 N S0 D", .width = "2"};
    RUN(seg, crd, &v, out);
    assert_string_equal(out[0], " 0 1 | S0 | 2 | S0 | N | S0 | 3 | S0 | N | S1 | D");
}

/* Outputs of capacity 3 read at once by their consumer: cycle 0 fills
 * them; the tokens taken in cycle 1 free their room from cycle 2, so the
 * scanner is not stepped in cycle 1 (nor 3); in cycle 5 the two tokens
 * taken in that cycle still count, and the stop token needs only one. */
static void test_vector_bounded_room(void **state)
{
    (void)state;
    static const int64_t seg[] = {0, 8}, crd[] = {0, 1, 2, 3, 4, 5, 6, 7};
    char out[2][1024];
    vscan v = {.in_ref = "0 D", .width = "4", .capacity = 3};
    RUN(seg, crd, &v, out);
    assert_string_equal(out[0], " 0 1 2 | _ | 3 4 5 | _ | 6 7 | S0 | D");
}

/* channel_room counts what channel_has_room decides: tokens held by the
 * slowest reader, those it took in this very cycle included. */
static void test_channel_room(void **state)
{
    (void)state;
    channel c;
    assert_int_equal(channel_init(&c, 0, 1), 0);
    assert_true(channel_room(&c, 0) == UINT64_MAX);
    channel_free(&c);
    assert_int_equal(channel_init(&c, 4, 1), 0);
    int r0 = channel_add_reader(&c, -1), r1 = channel_add_reader(&c, -1);
    assert_int_equal(channel_room(&c, 0), 4);
    for (int k = 0; k < 3; k++)
        assert_int_equal(channel_push(&c, 0, token_crd(k)), 0);
    assert_int_equal(channel_room(&c, 0), 1);
    channel_pop(&c, r0, 1);
    channel_pop(&c, r0, 1);
    assert_int_equal(channel_room(&c, 1), 1);
    assert_int_equal(channel_room(&c, 2), 1);
    channel_pop(&c, r1, 2);
    assert_int_equal(channel_room(&c, 2), 1);
    assert_int_equal(channel_room(&c, 3), 2);
    assert_int_equal(channel_has_room(&c, 3), 1);
    for (int k = 0; k < 2; k++)
        assert_int_equal(channel_push(&c, 3, token_crd(k)), 0);
    assert_int_equal(channel_room(&c, 3), 0);
    assert_int_equal(channel_has_room(&c, 3), 0);
    channel_free(&c);
}

/* ----------------------------------------------------------- whole runs */

/* Writes the graph at path with every compressed fiberlookup node given
 * impl="vector" (and width, when not NULL) to dir/name; returns its path. */
static char *vector_graph(const char *dir, const char *path, const char *name, const char *width)
{
    char *text = test_read_file(path);
    assert_non_null(text);
    char *out = malloc(2 * strlen(text) + 4096), *w = out, *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *end = strrchr(line, ']');
        if (end && strstr(line, "type=\"fiberlookup\"") && strstr(line, "format=\"compressed\"")) {
            w += sprintf(w, "%.*s impl=\"vector\"", (int)(end - line), line);
            if (width)
                w += sprintf(w, " width=\"%s\"", width);
            w += sprintf(w, "%s\n", end);
        } else {
            w += sprintf(w, "%s\n", line);
        }
    }
    char *result = test_write_file(dir, name, out);
    free(text);
    free(out);
    return result;
}

/* The summary's cycles and the result file of one checked run. */
static long long run(const char *graph, const char *const *bind, const char *res,
                     const char *const *extra, char **result)
{
    const char *argv[TEST_MAX_ARGS] = {"run", graph, "--check", "-o", res};
    int n = 5;
    for (int k = 0; bind[k]; k++)
        argv[n++] = "-t", argv[n++] = bind[k];
    for (int k = 0; extra && extra[k]; k++)
        argv[n++] = extra[k];
    argv[n] = NULL;
    char *so = NULL, *se = NULL;
    int rc = test_run_samsim_argv(&so, &se, argv);
    if (rc != 0 || !strstr(so, "check: pass"))
        fail_msg("%s: exit %d\n%s%s", graph, rc, so, se);
    long long cycles = test_summary(so, "cycles");
    *result = test_read_file(res);
    free(so), free(se);
    return cycles;
}

typedef struct kernel {
    const char *name, *expr, *formats[4];   /* formats NULL-terminated */
    int operands;                           /* B, or B and C */
} kernel;

static const kernel kernels[] = {
    {"identity", "X(i,j)=B(i,j)", {"-f=X:ss", "-f=B:ss", NULL}, 1},
    {"elemmul", "X(i,j)=B(i,j)*C(i,j)", {"-f=X:ss", "-f=B:ss", "-f=C:ss", NULL}, 2},
    {"elemadd", "X(i,j)=B(i,j)+C(i,j)", {"-f=X:ss", "-f=B:ss", "-f=C:ss", NULL}, 2},
    {"matmul", "X(i,j)=B(i,k)*C(k,j)", {"-f=X:ss", "-f=B:ss", "-f=C:ss", NULL}, 2},
};

/* dir/name.gv compiled from kernel k. */
static char *compile(const char *dir, const kernel *k)
{
    char *g = test_graph_path(dir, k->name);
    const char *argv[8] = {"compile", k->expr};
    int n = 2;
    for (int f = 0; k->formats[f]; f++)
        argv[n++] = k->formats[f];
    argv[n++] = "-o", argv[n++] = g, argv[n] = NULL;
    assert_int_equal(test_run_samsim_argv(NULL, NULL, argv), 0);
    return g;
}

/* Every kernel with every compressed scanner vectorised, widths 2 and the
 * default, unbounded and with outputs of 2 tokens: the result is the
 * plain scanners' one, and every engine agrees. */
static void test_vector_kernels(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_path(dir, "B.mtx"), *c = test_path(dir, "C.mtx"), *res = test_path(dir, "X.tns");
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "40x40", "--density",
                                     "0.3", "--seed", "31", "-o", b, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "rmat", "--shape", "40x40", "--nnz", "200",
                                     "--seed", "32", "-o", c, NULL),
                     0);
    char bb[4200], cb[4200];
    snprintf(bb, sizeof bb, "B=%s", b);
    snprintf(cb, sizeof cb, "C=%s", c);
    const char *const bounded[] = {"--depth", "2", NULL};
    const char *const bounded_cycle[] = {"--depth", "2", "--engine", "cycle", NULL};
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        const kernel *kn = &kernels[k];
        char *g = compile(dir, kn);
        const char *const binds[] = {bb, kn->operands == 2 ? cb : NULL, NULL};
        char *plain = NULL;
        run(g, binds, res, NULL, &plain);
        for (int w = 0; w < 2; w++) {
            char *gv = vector_graph(dir, g, "vector.gv", w ? NULL : "2"), *got = NULL;
            run(gv, binds, res, NULL, &got);
            assert_string_equal(got, plain);
            free(got);
            long long ev = run(gv, binds, res, bounded, &got);
            assert_string_equal(got, plain);
            free(got);
            assert_int_equal(run(gv, binds, res, bounded_cycle, &got), ev);
            assert_string_equal(got, plain);
            free(got);
            const char *argv[TEST_MAX_ARGS] = {"run", gv};
            int n = 2;
            for (int i = 0; binds[i]; i++)
                argv[n++] = "-t", argv[n++] = binds[i];
            argv[n] = NULL;
            test_run_engines(kn->name, dir, argv);
            free(gv);
        }
        free(plain);
        free(g);
    }
    free(b), free(c), free(res);
    test_tmpdir_remove(dir);
}

/* A width that is no whole number of at least 1 is refused. */
static void test_vector_bad_width(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *g = test_graph_path(dir, "id");
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "X(i,j)=B(i,j)", "-f=X:ss", "-f=B:ss",
                                     "-o", g, NULL),
                     0);
    char *b = test_path(dir, "B.mtx");
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "identity", "--shape", "4x4", "-o", b,
                                     NULL),
                     0);
    /* The range is the parameter's declaration (common/param.h), 1 to 65536. */
    static const char *const widths[] = {"0", "-2", "x", "65537"};
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
        char *gv = vector_graph(dir, g, "bad.gv", widths[k]), *so = NULL, *se = NULL;
        char bind[4200], want[128];
        snprintf(bind, sizeof bind, "B=%s", b);
        assert_int_equal(test_run_samsim(&so, &se, "run", gv, "-t", bind, NULL), 1);
        snprintf(want, sizeof want, "width = %s is not a whole number 1..65536 (coordinates)",
                 widths[k]);
        assert_non_null(strstr(se, want));
        free(so), free(se), free(gv);
    }
    free(g), free(b);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_width_2),
        cmocka_unit_test(test_vector_width_3),
        cmocka_unit_test(test_vector_default_width),
        cmocka_unit_test(test_vector_waits_for_the_next_ref),
        cmocka_unit_test(test_vector_stop_and_empty_refs),
        cmocka_unit_test(test_vector_bounded_room),
        cmocka_unit_test(test_channel_room),
        cmocka_unit_test(test_vector_kernels),
        cmocka_unit_test(test_vector_bad_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
