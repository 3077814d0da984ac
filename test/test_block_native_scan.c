/* The native runs of the level scanners (dense, linked list, vector),
 * the bitvector blocks and the linked-list writer (block_ops.run) against
 * the cycle engine (test/native_rig.h): random trees bound to the scanners,
 * random streams into the rest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/bitvector.h"
#include "../blocks/blocks.h"
#include "native_rig.h"

enum {
    CASES = 300,        /* random cases per block */
    FIBERS = 24,        /* of the scanned level, at most */
    NODES = 200,        /* its elements, at most */
};

/* ------------------------------------------------------------ the trees */

/* A tree of two levels bound as tensor B: a dense level 0 of mode 0
 * whose positions are the refs, and level 1 of mode 1, the one scanned,
 * in the arrays here. */
typedef struct scan_tree {
    fibertree ft;
    int64_t seg[FIBERS + 1], crd[NODES], head[FIBERS], next[NODES];
    uint64_t bits[FIBERS * 4];
} scan_tree;

static void tree_start(scan_tree *t, int fibers, char kind, int64_t dim)
{
    memset(t, 0, sizeof *t);
    t->ft.order = 2;
    t->ft.dims[0] = fibers;
    t->ft.dims[1] = dim;
    t->ft.lv[0] = (fiber_level){.kind = 'd', .mode = 0, .dim = fibers};
    t->ft.lv[1] = (fiber_level){.kind = kind, .mode = 1, .dim = dim};
}

/* Fiber lengths at random, now and then 0, summing to at most NODES; the
 * fiber boundaries in seg. */
static int random_segs(scan_tree *t, int fibers, int longest, uint64_t *rng)
{
    int n = 0;
    for (int f = 0; f < fibers; f++) {
        t->seg[f] = n;
        int len = rig_below(rng, 4) ? rig_below(rng, longest + 1) : 0;
        n += len < NODES - n ? len : NODES - n;
    }
    t->seg[fibers] = n;
    return n;
}

/* Each fiber's coordinates rising from near 0 in random steps. */
static void random_coordinates(scan_tree *t, int fibers, uint64_t *rng)
{
    for (int f = 0; f < fibers; f++)
        for (int64_t e = t->seg[f], c = rig_below(rng, 3); e < t->seg[f + 1];
             e++, c += 1 + rig_below(rng, 3))
            t->crd[e] = c;
}

static void dense_tree(scan_tree *t, int fibers, uint64_t *rng)
{
    tree_start(t, fibers, 'd', rig_below(rng, 5) ? 1 + rig_below(rng, 12) : 0);
}

static void compressed_tree(scan_tree *t, int fibers, uint64_t *rng)
{
    tree_start(t, fibers, 's', 4 * NODES);
    int n = random_segs(t, fibers, 1 + rig_below(rng, 20), rng);
    random_coordinates(t, fibers, rng);
    fiber_level *l = &t->ft.lv[1];
    l->seg = t->seg, l->nseg = (size_t)fibers + 1;
    l->crd = t->crd, l->ncrd = (size_t)n;
}

/* The compressed tree's fibers as lists, the nodes numbered in a random
 * order, as a linked-list writer numbers them in arrival order. */
static void list_tree(scan_tree *t, int fibers, uint64_t *rng)
{
    int64_t crd[NODES], order[NODES];
    tree_start(t, fibers, 'l', 4 * NODES);
    int n = random_segs(t, fibers, 1 + rig_below(rng, 20), rng);
    random_coordinates(t, fibers, rng);
    memcpy(crd, t->crd, sizeof crd);
    for (int k = 0; k < n; k++)
        order[k] = k;
    for (int k = n - 1; k > 0; k--) {
        int j = rig_below(rng, k + 1);
        int64_t x = order[k];
        order[k] = order[j], order[j] = x;
    }
    /* Element e of the compressed fibers is node order[e]. */
    for (int f = 0; f < fibers; f++) {
        t->head[f] = t->seg[f] < t->seg[f + 1] ? order[t->seg[f]] : -1;
        for (int64_t e = t->seg[f]; e < t->seg[f + 1]; e++) {
            t->crd[order[e]] = crd[e];
            t->next[order[e]] = e + 1 < t->seg[f + 1] ? order[e + 1] : -1;
        }
    }
    fiber_level *l = &t->ft.lv[1];
    l->crd = t->crd, l->ncrd = (size_t)n;
    l->head = t->head, l->nhead = (size_t)fibers;
    l->next = t->next;
}

/* Random bits, ceil(dim / 64) words a fiber, none at or beyond dim; seg
 * their popcount prefix. A fiber holds at most 6 words of width bits. */
static void bitvector_tree(scan_tree *t, int fibers, int width, uint64_t *rng)
{
    int64_t dim = rig_below(rng, 8) ? 1 + rig_below(rng, width < 42 ? 6 * width : 4 * 64) : 0;
    int64_t stride = bv_words(dim, 64);
    tree_start(t, fibers, 'b', dim);
    t->seg[0] = 0;
    for (int f = 0; f < fibers; f++) {
        int64_t n = 0;
        for (int64_t q = 0; q < stride; q++) {
            uint64_t w = rig_below(rng, 4) ? rig_random(rng) & rig_random(rng) : 0;
            w &= bv_low_bits(dim - 64 * q);
            t->bits[f * stride + q] = w;
            n += __builtin_popcountll(w);
        }
        t->seg[f + 1] = t->seg[f] + n;
    }
    fiber_level *l = &t->ft.lv[1];
    l->bits = t->bits, l->nbits = (size_t)(fibers * stride);
    l->seg = t->seg, l->nseg = (size_t)fibers + 1;
    l->ncrd = (size_t)t->seg[fibers];
}

/* ------------------------------------------------------------- streams */

/* A ref stream into a scanner of a level of `fibers` fibers, as a scanner
 * of the levels above makes it: a random tree's level-1 stream whose
 * coordinates become refs below fibers, now and then N. */
static void ref_stream(rig_stream *s, int fibers, uint64_t *rng)
{
    rig_tree t;
    rig_random_tree(&t, 2, 1 + rig_below(rng, 6), rng);
    rig_write_level(&t, 1, s);
    for (int k = 0; k < s->n; k++)
        if (s->tok[k].kind == TOKEN_CRD)
            s->tok[k] = rig_below(rng, 10) ? token_crd(rig_below(rng, fibers)) : token_empty();
}

/* A scanner of tree t under ops and attrs, fed random refs. */
static void check_scanner(const block_ops *ops, const char *attrs, const scan_tree *t,
                          int fibers, uint64_t k, uint64_t *rng)
{
    rig_spec *s = calloc(1, sizeof *s);
    s->ops = ops;
    s->attrs = attrs;
    s->nin = 1;
    s->unconnected = rig_below(rng, 6) ? -1 : rig_below(rng, 2);
    s->tensor = "B";
    s->tree = &t->ft;
    ref_stream(&s->in[0], fibers, rng);
    rig_random_timing(s, rng);
    char label[96];
    snprintf(label, sizeof label, "%s %s case %llu", ops->type, ops->impl, (unsigned long long)k);
    rig_check_engines(s, label);
    free(s);
}

/* ------------------------------------------------------------ scanners */

static void test_dense_native(void **state)
{
    (void)state;
    scan_tree *t = malloc(sizeof *t);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        int fibers = 1 + rig_below(&rng, FIBERS);
        dense_tree(t, fibers, &rng);
        check_scanner(&fiberlookup_dense_ops, "tensor=B,mode=1", t, fibers, k, &rng);
    }
    free(t);
}

static void test_list_native(void **state)
{
    (void)state;
    scan_tree *t = malloc(sizeof *t);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        int fibers = 1 + rig_below(&rng, FIBERS);
        list_tree(t, fibers, &rng);
        check_scanner(&fiberlookup_linkedlist_ops, "tensor=B,mode=1", t, fibers, k, &rng);
    }
    free(t);
}

static void test_vector_native(void **state)
{
    (void)state;
    scan_tree *t = malloc(sizeof *t);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        int fibers = 1 + rig_below(&rng, FIBERS);
        char attrs[64];
        snprintf(attrs, sizeof attrs, "tensor=B,mode=1,width=%d", 1 + rig_below(&rng, 6));
        compressed_tree(t, fibers, &rng);
        check_scanner(&fiberlookup_vector_ops, attrs, t, fibers, k, &rng);
    }
    free(t);
}

static void test_bitvector_scan_native(void **state)
{
    (void)state;
    static const int widths[] = {64, 32, 8, 5, 17};
    scan_tree *t = malloc(sizeof *t);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        int fibers = 1 + rig_below(&rng, FIBERS);
        int width = widths[rig_below(&rng, 5)];
        char attrs[64];
        snprintf(attrs, sizeof attrs, "tensor=B,mode=1,width=%d", width);
        bitvector_tree(t, fibers, width, &rng);
        check_scanner(&fiberlookup_bitvector_ops, attrs, t, fibers, k, &rng);
    }
    free(t);
}

/* -------------------------------------------------- the bitvector joins */

/* Word streams of `sides` sides (bitvector.h's protocol) on inputs 2k
 * (words of width bits) and 2k+1 (their base refs): the fibers and stop
 * tokens of a random tree's level-1 stream, shared by all sides, each
 * side's fiber of its own random number of words, now and then zero. */
static void word_streams(rig_spec *s, int sides, int width, uint64_t *rng)
{
    rig_stream shape = {0};
    rig_tree t;
    rig_random_tree(&t, 2, 1 + rig_below(rng, 4), rng);
    rig_write_level(&t, 1, &shape);
    int64_t base[4] = {0};
    s->nin = 2 * sides;
    for (int k = 0; k < shape.n; k++) {
        token x = shape.tok[k];
        if (x.kind == TOKEN_CRD)
            continue;
        for (int side = 0; side < sides; side++) {
            rig_stream *w = &s->in[2 * side], *r = &s->in[2 * side + 1];
            for (int n = rig_below(rng, 5); token_is_stop(x) && n > 0; n--) {
                uint64_t bits = rig_below(rng, 5) ? rig_random(rng) & rig_random(rng) : 0;
                bits &= bv_low_bits(width);
                rig_put(w, token_crd((int64_t)bits));
                rig_put(r, token_crd(base[side]));
                base[side] += __builtin_popcountll(bits);
            }
            rig_put(w, x);
            rig_put(r, x);
        }
    }
}

static const int word_widths[] = {64, 32, 8, 5};

static void test_bv_to_crd_native(void **state)
{
    (void)state;
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        memset(s, 0, sizeof *s);
        int width = word_widths[rig_below(&rng, 4)];
        char attrs[64];
        snprintf(attrs, sizeof attrs, "to=crd,width=%d", width);
        s->ops = &bv_to_crd_ops;
        s->attrs = attrs;
        s->unconnected = rig_below(&rng, 6) ? -1 : rig_below(&rng, 2);
        word_streams(s, 1, width, &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "bv to crd case %llu", (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
}

/* A bitvector intersect or union of two or three sides. */
static void check_bv_joiner(const block_ops *ops, const char *what)
{
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        memset(s, 0, sizeof *s);
        int width = word_widths[rig_below(&rng, 4)], sides = 2 + (k % 4 == 0);
        char attrs[64];
        snprintf(attrs, sizeof attrs, "width=%d,sides=%d,emit_zeros=%d", width, sides,
                 rig_below(&rng, 2));
        s->ops = ops;
        s->attrs = attrs;
        s->unconnected = rig_below(&rng, 4) ? -1 : rig_below(&rng, 2 + sides);
        word_streams(s, sides, width, &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "%s case %llu", what, (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
}

static void test_bv_intersect_native(void **state)
{
    (void)state;
    check_bv_joiner(&intersect_bitvector_ops, "bitvector intersect");
}

static void test_bv_union_native(void **state)
{
    (void)state;
    check_bv_joiner(&union_bitvector_ops, "bitvector union");
}

/* ---------------------------------------------------- the bv converter */

/* The converter with its ref input connected, which it counts from the
 * graph's edges: the rig builds it without a graph. */
static int bv_create_with_ref(block *b, const block_ctx *ctx, sam_error *err)
{
    int rc = bv_ops.create(b, ctx, err);
    b->nin = 2;
    return rc;
}

/* A coordinate stream and its refs: the fibers and stop tokens of a
 * random tree's level-1 stream, each fiber's coordinates rising below
 * limit, now and then N. */
static void coordinate_streams(rig_spec *s, int64_t limit, uint64_t *rng)
{
    rig_stream shape = {0};
    rig_tree t;
    rig_random_tree(&t, 2, 1 + rig_below(rng, 4), rng);
    rig_write_level(&t, 1, &shape);
    int64_t pos = 0;
    int sparse = 1 + rig_below(rng, 6);
    for (int k = 0; k < shape.n; k++) {
        token x = shape.tok[k];
        if (x.kind == TOKEN_CRD)
            continue;
        for (int64_t c = 0; token_is_stop(x) && c < limit; c++) {
            token crd = rig_below(rng, 30) ? token_crd(c) : token_empty();
            if (rig_below(rng, sparse))
                continue;
            rig_put(&s->in[0], crd);
            rig_put(&s->in[1], crd.kind == TOKEN_CRD ? token_crd(pos++) : crd);
        }
        rig_put(&s->in[0], x);
        rig_put(&s->in[1], x);
    }
}

static void test_bv_convert_native(void **state)
{
    (void)state;
    block_ops with_ref = bv_ops;
    with_ref.create = bv_create_with_ref;
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        memset(s, 0, sizeof *s);
        int width = word_widths[rig_below(&rng, 4)];
        int size = rig_below(&rng, 3) ? 0 : 1 + rig_below(&rng, 40);
        char attrs[64];
        snprintf(attrs, sizeof attrs, "width=%d,size=%d", width, size);
        s->ops = rig_below(&rng, 2) ? &bv_ops : &with_ref;
        s->attrs = attrs;
        s->nin = s->ops == &bv_ops ? 1 : 2;
        /* Without the ref input, the ref output sends nothing, not even D. */
        s->unconnected = s->nin == 1 ? 1 : rig_below(&rng, 6) ? -1 : rig_below(&rng, 2);
        coordinate_streams(s, size ? size : width < 24 ? width : 24, &rng);
        if (s->nin == 1)
            s->in[1] = (rig_stream){0};
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "bv converter case %llu", (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
}

/* ------------------------------------------------- the linked-list writer */

/* What the writer wrote, collected as the level below a dense level 0:
 * the parent coordinates with lists, their heads, every node's coordinate
 * and next node, hashed. */
static uint64_t list_written(block *b)
{
    fibertree result = {.order = 2};
    result.lv[0] = (fiber_level){.kind = 'd', .mode = 0, .dim = 1 << 20};
    result.lv[1] = (fiber_level){.mode = 1, .dim = 1 << 20};
    sam_error err;
    if (b->ops->collect(b, &result, &err))
        fail_msg("%s", err.msg);
    const fiber_level *top = &result.lv[0], *l = &result.lv[1];
    uint64_t h = top->ncrd * 0x100000001b3ULL + l->ncrd;
    for (size_t f = 0; f < top->ncrd; f++)
        h = (h ^ (uint64_t)top->crd[f] ^ (uint64_t)l->head[f] << 32) * 0x100000001b3ULL;
    for (size_t n = 0; n < l->ncrd; n++)
        h = (h ^ (uint64_t)l->crd[n] ^ (uint64_t)l->next[n] << 32) * 0x100000001b3ULL;
    fibertree_free(&result);
    return h;
}

/* OuterSPACE's streams: own coordinates k0 k1 ... S0 D, and for each a
 * fiber of distinct parent coordinates, S0 between them and S1 closing
 * the last with the own fiber, then D. */
static void writer_streams(rig_spec *s, uint64_t *rng)
{
    rig_stream *own = &s->in[0], *parent = &s->in[1];
    int owns = 1 + rig_below(rng, 8), fill = 1 + rig_below(rng, 4);
    for (int64_t k = rig_below(rng, 3), n = 0; n < owns; n++, k += 1 + rig_below(rng, 3)) {
        rig_put(own, token_crd(k));
        for (int64_t i = 0; i < 12; i++)
            if (!rig_below(rng, fill))
                rig_put(parent, token_crd(i));
        rig_put(parent, token_stop(n + 1 == owns));
    }
    rig_put(own, token_stop(0));
    rig_put(own, token_done());
    rig_put(parent, token_done());
    s->nin = 2;
}

static void test_list_writer_native(void **state)
{
    (void)state;
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        memset(s, 0, sizeof *s);
        s->ops = &fiberwrite_linkedlist_ops;
        s->attrs = "tensor=X,mode=1,index=k,parent=i";
        s->unconnected = -1;
        s->digest = list_written;
        writer_streams(s, &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "linked-list writer case %llu", (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
}

/* The written level of own coordinates 3 5 over parent fibers {1, 4} and
 * {2, 4}: lists 1: 3, 2: 5, 4: 3 5, the nodes numbered in arrival order
 * (3 under 1, 3 under 4, 5 under 2, 5 under 4). Fails unless b wrote it. */
static uint64_t three_lists_written(block *b)
{
    static const int64_t parents[] = {1, 2, 4}, heads[] = {0, 2, 1};
    static const int64_t crd[] = {3, 3, 5, 5}, next[] = {-1, 3, -1, -1};
    fibertree result = {.order = 2};
    result.lv[0] = (fiber_level){.kind = 'd', .mode = 0, .dim = 8};
    result.lv[1] = (fiber_level){.mode = 1, .dim = 8};
    sam_error err;
    if (b->ops->collect(b, &result, &err))
        fail_msg("%s", err.msg);
    const fiber_level *top = &result.lv[0], *l = &result.lv[1];
    assert_int_equal(top->ncrd, 3);
    assert_int_equal(l->ncrd, 4);
    assert_memory_equal(top->crd, parents, sizeof parents);
    assert_memory_equal(l->head, heads, sizeof heads);
    assert_memory_equal(l->crd, crd, sizeof crd);
    assert_memory_equal(l->next, next, sizeof next);
    fibertree_free(&result);
    return list_written(b);
}

/* The own stream's stop token coming after the parent's S1 that closes
 * the own fiber is taken when it comes, a token of each input a cycle:
 * the same level, the run's end put off only as far as the own tokens'
 * arrival puts it. Tokens fed a cycle each from cycle 0, seen a cycle
 * later; the own feeder pauses `pause` cycles after 5, so its S0 is seen
 * at 3 + pause and its D at 4 + pause. The parent's S1 is taken at 6 and
 * its D seen at 7. */
static void test_list_writer_late_own_stop(void **state)
{
    (void)state;
    static const struct {
        int pause;
        cycle_t end;
    } cases[] = {
        {0, 8},     /* S0 seen at 3, taken with S1 at 6; D with D at 7 */
        {4, 9},     /* S0 seen at 7 with the parent's D: D waits to 8 */
        {12, 17},   /* S0 at 15, after the parent's D: D with D at 16 */
    };
    rig_spec *s = calloc(1, sizeof *s);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memset(s, 0, sizeof *s);
        s->ops = &fiberwrite_linkedlist_ops;
        s->attrs = "tensor=X,mode=1,index=k,parent=i";
        s->unconnected = -1;
        s->digest = three_lists_written;
        s->nin = 2;
        s->ii = 1;
        for (int p = 0; p < 3 * RIG_MAX_PORTS; p++)
            s->latency[p] = 1;
        rig_put(&s->in[0], token_crd(3));
        rig_put(&s->in[0], token_crd(5));
        rig_put(&s->in[0], token_stop(0));
        rig_put(&s->in[0], token_done());
        s->feed_pause[0][1] = (uint8_t)cases[c].pause;
        static const int64_t parent[] = {1, 4, -1, 2, 4, -2};
        for (size_t k = 0; k < sizeof parent / sizeof parent[0]; k++)
            rig_put(&s->in[1], parent[k] >= 0 ? token_crd(parent[k])
                                               : token_stop((int)(-parent[k] - 1)));
        rig_put(&s->in[1], token_done());
        char label[64];
        snprintf(label, sizeof label, "own S0 after a pause of %d", cases[c].pause);
        assert_int_equal(rig_check_engines(s, label), cases[c].end);
    }
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_native),
        cmocka_unit_test(test_list_native),
        cmocka_unit_test(test_vector_native),
        cmocka_unit_test(test_bitvector_scan_native),
        cmocka_unit_test(test_bv_to_crd_native),
        cmocka_unit_test(test_bv_intersect_native),
        cmocka_unit_test(test_bv_union_native),
        cmocka_unit_test(test_bv_convert_native),
        cmocka_unit_test(test_list_writer_native),
        cmocka_unit_test(test_list_writer_late_own_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
