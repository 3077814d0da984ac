/* Bitvector ('b') and linked-list ('l') levels in fibertree storage: the
 * arrays of hand-worked examples, round trips of random tensors through
 * every mix of level kinds, and fibertree_validate refusing each broken
 * invariant; the dense limit on what a run stores by a declared size
 * (bitvector result levels, dense accumulators, result levels no writer
 * fills). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/fibertree.h"
#include "../formats/prng.h"
#include "test_util.h"

typedef struct entry {
    int64_t c[2];
    double v;
} entry;

/* B = {(0,0)=1, (0,2)=2, (1,1)=3, (3,0)=4, (3,3)=5}, 4 x 4. */
static const entry matrix_b[] = {{{3, 3}, 5}, {{0, 2}, 2}, {{1, 1}, 3}, {{0, 0}, 1}, {{3, 0}, 4}};

static void make_matrix(tensor *t)
{
    sam_error err;
    assert_int_equal(tensor_init(t, 2, (const int64_t[]){4, 4}, &err), 0);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(tensor_append(t, matrix_b[i].c, matrix_b[i].v, &err), 0);
}

static void build_matrix(const char *fmt, fibertree *ft)
{
    sam_error err;
    level_format f;
    tensor t;
    make_matrix(&t);
    assert_int_equal(level_format_parse(fmt, &f, &err), 0);
    assert_int_equal(fibertree_build(&t, &f, ft, &err), 0);
    assert_int_equal(fibertree_validate(ft, &err), 0);
    tensor_free(&t);
}

static void expect_ints(const int64_t *got, size_t n, const int64_t *want, size_t nwant)
{
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
}

#define ARR(...) ((const int64_t[]){__VA_ARGS__}), (sizeof((const int64_t[]){__VA_ARGS__}) / 8)

static void expect_words(const fiber_level *l, const uint64_t *want, size_t n)
{
    assert_int_equal(l->nbits, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(l->bits[i], want[i]);
}

static void expect_vals_1_to_5(const fibertree *ft)
{
    assert_int_equal(ft->nvals, 5);
    for (size_t i = 0; i < 5; i++)
        assert_true(ft->vals[i] == (double)(i + 1));
}

static void test_bitvector_arrays(void **state)
{
    (void)state;
    fibertree ft;
    build_matrix("sb01", &ft);
    expect_ints(ft.lv[0].crd, ft.lv[0].ncrd, ARR(0, 1, 3));
    assert_int_equal(ft.lv[1].kind, 'b');
    /* Rows 0, 1, 3: columns {0,2}, {1}, {0,3}. */
    expect_words(&ft.lv[1], (const uint64_t[]){5, 2, 9}, 3);
    expect_ints(ft.lv[1].seg, ft.lv[1].nseg, ARR(0, 2, 3, 5));
    assert_int_equal(ft.lv[1].ncrd, 5);
    assert_null(ft.lv[1].crd);
    expect_vals_1_to_5(&ft);
    fibertree_free(&ft);

    build_matrix("bb01", &ft);
    expect_words(&ft.lv[0], (const uint64_t[]){11}, 1);
    expect_ints(ft.lv[0].seg, ft.lv[0].nseg, ARR(0, 3));
    expect_words(&ft.lv[1], (const uint64_t[]){5, 2, 9}, 3);
    fibertree_free(&ft);

    /* Under a dense level every row has its words, the empty one zeros. */
    build_matrix("db01", &ft);
    expect_words(&ft.lv[1], (const uint64_t[]){5, 2, 0, 9}, 4);
    expect_ints(ft.lv[1].seg, ft.lv[1].nseg, ARR(0, 2, 3, 3, 5));
    fibertree_free(&ft);
}

static void test_linked_arrays(void **state)
{
    (void)state;
    fibertree ft;
    build_matrix("sl01", &ft);
    fiber_level *l = &ft.lv[1];
    assert_int_equal(l->kind, 'l');
    expect_ints(l->head, l->nhead, ARR(0, 2, 3));
    expect_ints(l->crd, l->ncrd, ARR(0, 2, 1, 0, 3));
    expect_ints(l->next, l->ncrd, ARR(1, -1, -1, 4, -1));
    assert_null(l->seg);
    expect_vals_1_to_5(&ft);
    fibertree_free(&ft);

    build_matrix("ll10", &ft);
    expect_ints(ft.lv[0].head, ft.lv[0].nhead, ARR(0));
    expect_ints(ft.lv[0].crd, ft.lv[0].ncrd, ARR(0, 1, 2, 3));
    expect_ints(ft.lv[0].next, ft.lv[0].ncrd, ARR(1, 2, 3, -1));
    expect_ints(ft.lv[1].head, ft.lv[1].nhead, ARR(0, 2, 3, 4));
    expect_ints(ft.lv[1].crd, ft.lv[1].ncrd, ARR(0, 3, 1, 0, 3));
    fibertree_free(&ft);
}

/* A writer fills a list in arrival order: nodes numbered against the
 * coordinate order still read back by following the lists. */
static void test_linked_nodes_in_any_order(void **state)
{
    (void)state;
    fibertree ft;
    sam_error err;
    build_matrix("sl01", &ft);
    fiber_level *l = &ft.lv[1];
    /* Node n becomes node 4 - n; its value moves with it. */
    static const int64_t head[] = {4, 2, 1}, crd[] = {3, 0, 1, 2, 0},
                         next[] = {-1, 0, -1, -1, 3};
    static const double vals[] = {5, 4, 3, 2, 1};
    memcpy(l->head, head, sizeof head);
    memcpy(l->crd, crd, sizeof crd);
    memcpy(l->next, next, sizeof next);
    memcpy(ft.vals, vals, sizeof vals);
    assert_int_equal(fibertree_validate(&ft, &err), 0);
    tensor back, want;
    assert_int_equal(fibertree_to_tensor(&ft, &back, &err), 0);
    make_matrix(&want);
    assert_int_equal(tensor_canonicalize(&want, NULL, &err), 0);
    assert_true(tensor_equal(&back, &want));
    tensor_free(&back);
    tensor_free(&want);
    fibertree_free(&ft);
}

static void test_stats_and_bytes(void **state)
{
    (void)state;
    fibertree ft;
    level_stats st;
    build_matrix("sl01", &ft);
    fibertree_level_stats(&ft, 1, &st);
    assert_int_equal(st.fibers, 3);
    assert_int_equal(st.nonempty, 3);
    assert_int_equal(st.max_len, 2);
    assert_true(st.mean_len == 5.0 / 3.0);
    /* Level 0: 3 crd + 2 seg; level 1: 3 heads, 5 x (crd + next); 5 vals. */
    assert_true(fibertree_bytes(&ft, 4, 4, 8) == 20 + 12 + 40 + 40);
    fibertree_free(&ft);
    build_matrix("db01", &ft);
    fibertree_level_stats(&ft, 1, &st);
    assert_int_equal(st.fibers, 4);
    assert_int_equal(st.nonempty, 3);
    assert_int_equal(st.max_len, 2);
    assert_int_equal(fibertree_positions(&ft, 1), 5);
    /* Four words of 8 bytes, 5 values. */
    assert_true(fibertree_bytes(&ft, 4, 4, 8) == 32 + 40);
    fibertree_free(&ft);
}

static void test_format_letters(void **state)
{
    (void)state;
    level_format f;
    sam_error err;
    char s[32];
    static const char *const in[] = {"sb01", "dls012", "bb:0,1", "lb:1,0", "b0", "l0"};
    static const char *const out[] = {"sb01", "dls012", "bb01", "lb10", "b0", "l0"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        assert_int_equal(level_format_parse(in[i], &f, &err), 0);
        level_format_str(&f, s, sizeof s);
        assert_string_equal(s, out[i]);
    }
    assert_int_equal(level_format_parse("sc01", &f, &err), -1);
    assert_non_null(strstr(err.msg, "b (bitvector) or l (linked list)"));
}

/* A bitvector is as long as its dimension, and a few entries must not
 * ask for gigabytes of words. */
static void test_bitvector_dense_limit(void **state)
{
    (void)state;
    tensor t;
    sam_error err;
    level_format f;
    fibertree ft;
    assert_int_equal(tensor_init(&t, 1, (const int64_t[]){(int64_t)1 << 40}, &err), 0);
    assert_int_equal(tensor_append(&t, (const int64_t[]){7}, 1.0, &err), 0);
    assert_int_equal(level_format_parse("b0", &f, &err), 0);
    assert_int_equal(fibertree_build(&t, &f, &ft, &err), -1);
    assert_non_null(strstr(err.msg, "bitvector level 0"));
    assert_int_equal(level_format_parse("l0", &f, &err), 0);
    assert_int_equal(fibertree_build(&t, &f, &ft, &err), 0);
    fibertree_free(&ft);
    tensor_free(&t);
}

/* fibertree_check_dense: a tree's dense levels by their positions and
 * its bitvector levels by their words, with fibertree_build's messages;
 * compressed and list levels pass whatever their dimension. */
static void test_check_dense(void **state)
{
    (void)state;
    sam_error err;
    fibertree ft = {.order = 3};
    ft.lv[0] = (fiber_level){.kind = 's', .dim = (int64_t)1 << 40, .ncrd = 3};
    ft.lv[1] = (fiber_level){.kind = 'd', .dim = 1000};
    ft.lv[2] = (fiber_level){.kind = 'b', .dim = 640};
    assert_int_equal(fibertree_check_dense(&ft, 30000, &err), 0);
    assert_int_equal(fibertree_check_dense(&ft, 29999, &err), -1);
    assert_string_equal(err.msg, "bitvector level 2 would hold 3000 x 10 words, more than the "
                                 "limit of 29999 (set SAMSIM_MAX_DENSE to raise it)");
    assert_int_equal(fibertree_check_dense(&ft, 2999, &err), -1);
    assert_string_equal(err.msg, "dense level 1 would hold 3 x 1000 positions, more than the "
                                 "limit of 2999 (set SAMSIM_MAX_DENSE to raise it)");
    /* Three dense levels of 3e6 would overflow a product of positions. */
    fibertree cube = {.order = 3};
    for (int k = 0; k < 3; k++)
        cube.lv[k] = (fiber_level){.kind = 'd', .mode = k, .dim = 3000000};
    assert_int_equal(fibertree_check_dense(&cube, (int64_t)1 << 34, &err), -1);
    assert_string_equal(err.msg, "dense level 1 would hold 3000000 x 3000000 positions, more "
                                 "than the limit of 17179869184 (set SAMSIM_MAX_DENSE to raise "
                                 "it)");
}

/* Runs samsim with args (NULL-terminated) expecting exit status 1 and one
 * line of stderr: prefix, anything but a newline (a cycle), suffix. */
static void expect_refused(const char *prefix, const char *suffix, const char *const *argv)
{
    char *se = NULL;
    assert_int_equal(test_run_samsim_argv(NULL, &se, argv), 1);
    size_t n = strlen(se), np = strlen(prefix), ns = strlen(suffix);
    if (n < np + ns || strncmp(se, prefix, np) || strcmp(se + n - ns, suffix) ||
        memchr(se + np, '\n', n - np - ns))
        fail_msg("stderr '%s' is not '%s...%s'", se, prefix, suffix);
    free(se);
}

/* An n x n matrix with 3 entries on the diagonal, about 100 bytes. */
static char *diagonal3(const char *dir, const char *name, long long n)
{
    char text[200];
    snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real general\n"
             "%lld %lld 3\n1 1 1\n2 2 2\n%lld %lld 3\n", n, n, n, n);
    return test_write_file(dir, name, text);
}

/* A bitvector result level (X:sb) sends and stores ceil(dim/64) words a
 * fiber: at 2e9 a fiber alone passes the dense limit, refused when the
 * graph is built; at 4e8 the three fibers pass it together, refused when
 * the writer has taken the limit's worth of words (the run went on to 150
 * MB of words). Within the limit the result passes --check. */
static void test_bitvector_result_limit(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_compile_to(dir, "xsb", "X(i,j)=B(i,j) -f=X:sb");
    char *huge = diagonal3(dir, "huge.mtx", 2000000000), *big = diagonal3(dir, "big.mtx", 400000000);
    char *fits = diagonal3(dir, "fits.mtx", 100000000), tb[4200], pre[4400];
    snprintf(tb, sizeof tb, "B=%s", huge);
    snprintf(pre, sizeof pre, "samsim: %s: node 4 (bv): fibers of 31250000 words (dimension "
             "2000000000 in 64-bit words) are more than the dense limit of 8388608 (set "
             "SAMSIM_MAX_DENSE to raise it)\n", graph);
    expect_refused(pre, "", (const char *[]){"run", graph, "-t", tb, NULL});
    snprintf(tb, sizeof tb, "B=%s", big);
    expect_refused("samsim: node 5 (fiberwrite): at cycle ",
                   ": the bitvector level would hold more than 8388608 words, the dense limit "
                   "(set SAMSIM_MAX_DENSE to raise it)\n",
                   (const char *[]){"run", graph, "-t", tb, NULL});
    char *out;
    snprintf(tb, sizeof tb, "B=%s", fits);
    assert_int_equal(test_run_samsim(&out, NULL, "run", graph, "-t", tb, "--check", NULL), 0);
    assert_non_null(strstr(out, "check: pass"));
    free(out), free(graph), free(huge), free(big), free(fits);
    test_tmpdir_remove(dir);
}

/* A dense accumulator holds a slot for every coordinate of its declared
 * dimensions: Gustavson's SpMSpM on 6e7 x 6e7 with 3 entries, with
 * spaccumulator=dense, is refused when the graph is built (two banks of
 * 6e7 slots were allocated), and so is the vectorreducer's dense row. */
static void test_dense_accumulator_limit(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *gus = test_compile_to(dir, "gus", "X(i,j)=B(i,k)*C(k,j) -s=reorder(i,k,j)");
    char *lanes = test_compile_to(dir, "lanes", "X(i,j)=B(i,k)*C(k,j) -s=reorder(i,k,j) "
                                                "-s=parallelize(k,2)");
    char *b = diagonal3(dir, "b.mtx", 60000000), tb[4200], tc[4200], pre[4400];
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", b);
    snprintf(pre, sizeof pre, "samsim: %s: node 14 (spaccumulator): a dense accumulator of 2 x 1 "
             "x 60000000 slots (arrays x rows x columns) is more than the dense limit of "
             "8388608 (set SAMSIM_MAX_DENSE to raise it, or use the sparse implementation)\n",
             gus);
    expect_refused(pre, "", (const char *[]){"run", gus, "-t", tb, "-t", tc, "--impl",
                                             "spaccumulator=dense", NULL});
    snprintf(pre, sizeof pre, "samsim: %s: node ", lanes);
    expect_refused(pre, " (vectorreducer): a dense accumulator of 1 x 1 x 60000000 slots (arrays "
                        "x rows x columns) is more than the dense limit of 8388608 (set "
                        "SAMSIM_MAX_DENSE to raise it, or use the sparse implementation)\n",
                   (const char *[]){"run", lanes, "-t", tb, "-t", tc, "--impl",
                                    "vectorreducer=dense", NULL});
    free(gus), free(lanes), free(b);
    test_tmpdir_remove(dir);
}

/* A result level that no writer fills keeps its shape alone: three dense
 * levels of 3e6 (a product of positions that overflowed, reported as
 * "1 values for 8553255926290448384 positions") are refused by the dense
 * limit. The graph names the result's indices by nodes that write
 * nothing. */
static void test_unwritten_result_limit(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_write_file(dir, "g.gv", "digraph SAM {\n"
        "comment=\"x=ddd012,b=sss012\"\n"
        "0 [type=fiberlookup index=i tensor=b mode=0 format=compressed src=true root=true]\n"
        "1 [type=fiberlookup index=j tensor=b mode=1 format=compressed src=true]\n"
        "2 [type=fiberlookup index=k tensor=b mode=2 format=compressed src=true]\n"
        "3 [type=arrayvals tensor=b]\n"
        "4 [type=fiberwrite mode=vals tensor=x sink=true]\n"
        "5 [type=crdhold outer=i inner=j tensor=x mode=0 index=i]\n"
        "6 [type=crdhold outer=j inner=k tensor=x mode=1 index=j]\n"
        "7 [type=crdhold outer=k inner=j tensor=x mode=2 index=k]\n"
        "0 -> 1 [type=ref label=ref]\n1 -> 2 [type=ref label=ref]\n"
        "2 -> 3 [type=ref label=ref]\n3 -> 4 [type=val label=val]\n"
        "0 -> 5 [type=crd label=\"crd_outer-i\" comment=\"outer-i\"]\n"
        "1 -> 5 [type=crd label=\"crd_inner-j\" comment=\"inner-j\"]\n"
        "1 -> 6 [type=crd label=\"crd_outer-j\" comment=\"outer-j\"]\n"
        "2 -> 6 [type=crd label=\"crd_inner-k\" comment=\"inner-k\"]\n"
        "2 -> 7 [type=crd label=\"crd_outer-k\" comment=\"outer-k\"]\n"
        "1 -> 7 [type=crd label=\"crd_inner-j\" comment=\"inner-j\"]\n}\n");
    char *b = test_write_file(dir, "b.tns", "3000000 3000000 3000000 1\n"), tb[4200], want[4400];
    snprintf(tb, sizeof tb, "b=%s", b);
    snprintf(want, sizeof want, "samsim: %s: the result x: dense level 1 would hold 3000000 x "
             "3000000 positions, more than the limit of 8388608 (set SAMSIM_MAX_DENSE to raise "
             "it)\n", graph);
    expect_refused(want, "", (const char *[]){"run", graph, "-t", tb, NULL});
    free(graph), free(b);
    test_tmpdir_remove(dir);
}

/* Dimensions about word boundaries, and 1. */
static const int64_t dim_choices[] = {1, 5, 63, 64, 65, 128, 130};

/* A random tensor of the given order and at most 20,000 positions (dense
 * levels of every mix stay quick): each coordinate tuple present with
 * probability density, so small densities leave fibers empty. */
static void random_tensor(prng *r, int order, double density, tensor *t)
{
    sam_error err;
    int64_t dims[3] = {1, 1, 1}, c[3], volume;
    do {
        for (int m = 0; m < order; m++)
            dims[m] = dim_choices[prng_below(r, sizeof dim_choices / sizeof dim_choices[0])];
        volume = dims[0] * dims[1] * dims[2];
    } while (volume > 20000);
    assert_int_equal(tensor_init(t, order, dims, &err), 0);
    for (int64_t i = 0; i < volume; i++) {
        if (prng_unit(r) >= density)
            continue;
        for (int m = 0, rest = (int)i; m < order; m++) {
            c[m] = rest % dims[m];
            rest /= (int)dims[m];
        }
        assert_int_equal(tensor_append(t, c, (double)(i + 1), &err), 0);
    }
}

/* Every letter mix of the tensor's order in a random mode order: built,
 * valid, and the same tensor back. */
static void round_trip_every_mix(prng *r, const tensor *t)
{
    static const char letters[] = "dsbl";
    sam_error err;
    int mixes = 1;
    for (int k = 0; k < t->order; k++)
        mixes *= 4;
    for (int mix = 0; mix < mixes; mix++) {
        level_format f;
        level_format_default(t->order, &f);
        for (int k = 0, rest = mix; k < t->order; k++, rest /= 4)
            f.kind[k] = letters[rest % 4];
        for (int k = t->order - 1; k > 0; k--) {
            int j = (int)prng_below(r, (uint64_t)k + 1), m = f.mode[k];
            f.mode[k] = f.mode[j];
            f.mode[j] = m;
        }
        fibertree ft;
        tensor back;
        assert_int_equal(fibertree_build(t, &f, &ft, &err), 0);
        assert_int_equal(fibertree_validate(&ft, &err), 0);
        assert_int_equal(fibertree_to_tensor(&ft, &back, &err), 0);
        assert_true(tensor_equal(&back, t));
        tensor_free(&back);
        fibertree_free(&ft);
    }
}

static void test_random_round_trips(void **state)
{
    (void)state;
    static const double densities[] = {0.0, 0.02, 0.3, 1.0};
    prng r;
    prng_seed(&r, 20240611);
    sam_error err;
    for (int order = 1; order <= 3; order++)
        for (int trial = 0; trial < 12; trial++) {
            tensor t;
            random_tensor(&r, order, densities[trial % 4], &t);
            assert_int_equal(tensor_canonicalize(&t, NULL, &err), 0);
            round_trip_every_mix(&r, &t);
            tensor_free(&t);
        }
}

/* Each exact dimension a word boundary can meet: bits 63, 64 and 127. */
static void test_word_boundaries(void **state)
{
    (void)state;
    static const int64_t dims[] = {64, 128, 65};
    sam_error err;
    prng r;
    prng_seed(&r, 7);
    for (size_t d = 0; d < 3; d++) {
        tensor t;
        assert_int_equal(tensor_init(&t, 1, &dims[d], &err), 0);
        for (int64_t c = 0; c < dims[d]; c += c < 62 ? 31 : 1)
            assert_int_equal(tensor_append(&t, &c, (double)c + 0.5, &err), 0);
        assert_int_equal(tensor_canonicalize(&t, NULL, &err), 0);
        round_trip_every_mix(&r, &t);
        tensor_free(&t);
    }
}

/* Breaks a valid tree in one way and expects validate to say so. */
typedef void (*corruption)(fibertree *ft);

static void expect_invalid(const char *fmt, corruption corrupt, const char *msg)
{
    fibertree ft;
    sam_error err;
    build_matrix(fmt, &ft);
    corrupt(&ft);
    assert_int_equal(fibertree_validate(&ft, &err), -1);
    if (!strstr(err.msg, msg))
        fail_msg("'%s' does not say '%s'", err.msg, msg);
    fibertree_free(&ft);
}

static void extra_bit(fibertree *ft) { ft->lv[1].bits[1] |= 1; }
static void bit_beyond_dim(fibertree *ft) { ft->lv[1].bits[0] |= 1u << 4; }
static void prefix_off(fibertree *ft) { ft->lv[1].seg[1] = 1; }
static void prefix_not_from_0(fibertree *ft) { ft->lv[1].seg[0] = 1; }
static void word_missing(fibertree *ft) { ft->lv[1].nbits--; }
static void fiber_missing(fibertree *ft) { ft->lv[1].nseg--; }
static void cycle(fibertree *ft) { ft->lv[1].next[1] = 0; }
static void longer_cycle(fibertree *ft) { ft->lv[1].next[4] = 3; }
static void out_of_order(fibertree *ft) { ft->lv[1].crd[1] = 0; }
static void node_unreached(fibertree *ft) { ft->lv[1].head[1] = -1; }
static void node_shared(fibertree *ft) { ft->lv[1].head[1] = 3; }
static void next_out_of_range(fibertree *ft) { ft->lv[1].next[0] = 5; }
static void head_out_of_range(fibertree *ft) { ft->lv[1].head[2] = -2; }
static void head_missing(fibertree *ft) { ft->lv[1].nhead--; }
static void crd_beyond_dim(fibertree *ft) { ft->lv[1].crd[4] = 4; }

static void test_validate_refuses(void **state)
{
    (void)state;
    expect_invalid("sb01", extra_bit, "fiber 1 positions 2..3, but its words have 2 bits set");
    expect_invalid("sb01", bit_beyond_dim, "fiber 0 has a bit at or beyond dimension 4");
    expect_invalid("sb01", prefix_off, "fiber 0 positions 0..1, but its words have 2");
    expect_invalid("sb01", prefix_not_from_0, "seg starts at 1");
    expect_invalid("sb01", word_missing, "2 words for 3 fibers");
    expect_invalid("sb01", fiber_missing, "3 seg entries for 3 fibers");
    expect_invalid("sl01", cycle, "node 0 is reached twice");
    expect_invalid("sl01", longer_cycle, "node 3 is reached twice");
    expect_invalid("sl01", out_of_order, "coordinate 0 does not follow 0");
    expect_invalid("sl01", node_unreached, "node 2 is in no fiber's list");
    expect_invalid("sl01", node_shared, "node 3 is reached twice");
    expect_invalid("sl01", next_out_of_range, "the next of node 0 points to node 5");
    expect_invalid("sl01", head_out_of_range, "the head of fiber 2 points to node -2");
    expect_invalid("sl01", head_missing, "2 heads for 3 fibers");
    expect_invalid("sl01", crd_beyond_dim, "coordinate 4 outside 0..3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bitvector_arrays),
        cmocka_unit_test(test_linked_arrays),
        cmocka_unit_test(test_linked_nodes_in_any_order),
        cmocka_unit_test(test_stats_and_bytes),
        cmocka_unit_test(test_format_letters),
        cmocka_unit_test(test_bitvector_dense_limit),
        cmocka_unit_test(test_check_dense),
        cmocka_unit_test(test_bitvector_result_limit),
        cmocka_unit_test(test_dense_accumulator_limit),
        cmocka_unit_test(test_unwritten_result_limit),
        cmocka_unit_test(test_random_round_trips),
        cmocka_unit_test(test_word_boundaries),
        cmocka_unit_test(test_validate_refuses),
    };
    return cmocka_run_group_tests_name("level_kinds", tests, NULL, NULL);
}
