/* The native runs of the blocks test_block_native.c leaves out (block_ops.run):
 * the value forms of crddrop and crdhold, the vector reducers, the
 * locator, the skipping intersecter, the parallelizer and the serializer,
 * against the cycle engine (test/native_rig.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../blocks/blocks.h"
#include "native_rig.h"
#include "test_harness.h"

enum { CASES = 400 };           /* random cases per block */

/* ------------------------------------------------ crddrop, crdhold: values */

/* A level of one or two levels' nesting and a value beside each of its
 * tokens: 0 often (which crddrop drops), now and then N. */
static void level_values(rig_stream *crd, rig_stream *val, uint64_t *rng)
{
    rig_tree t;
    int levels = 1 + rig_below(rng, 2);
    rig_random_tree(&t, levels, 1 + rig_below(rng, levels == 1 ? 60 : 10), rng);
    rig_write_level(&t, levels - 1, crd);
    for (int k = 0; k < crd->n; k++) {
        token c = crd->tok[k];
        int r = rig_below(rng, 8);
        rig_put(val, c.kind != TOKEN_CRD ? c
                     : r < 3        ? token_val(0.0)
                     : r == 3       ? token_empty()
                                    : token_val((double)c.i + 0.5));
    }
}

static void make_value_pairs(rig_spec *s, uint64_t k, uint64_t *rng)
{
    s->attrs = "outer=i,inner=vals,vals=true";
    s->nin = 2;
    /* An output nobody reads drops its tokens. */
    s->unconnected = k % 7 ? -1 : (int)(k % 2);
    level_values(&s->in[0], &s->in[1], rng);
}

static void make_crddrop_values(rig_spec *s, uint64_t k, uint64_t *rng)
{
    s->ops = &crddrop_values_ops;
    make_value_pairs(s, k, rng);
}

static void make_crdhold_values(rig_spec *s, uint64_t k, uint64_t *rng)
{
    s->ops = &crdhold_values_ops;
    make_value_pairs(s, k, rng);
}

static void test_crddrop_values_native(void **state)
{
    (void)state;
    rig_check_cases("crddrop values", CASES, make_crddrop_values);
}

static void test_crdhold_values_native(void **state)
{
    (void)state;
    rig_check_cases("crdhold values", CASES, make_crdhold_values);
}

/* ------------------------------------------------------ vectorreducer */

/* Lane streams of `fibers` outer fibers, the last closed a level higher
 * when nested: each a few inner fibers of (coordinate, value) pairs, the
 * coordinates of different inner fibers meeting now and then, a value
 * now and then N. */
static void reducer_lanes(rig_spec *s, int lanes, uint64_t *rng)
{
    int fibers = 1 + rig_below(rng, 4), nested = fibers > 1 || rig_below(rng, 2);
    for (int lane = 0; lane < lanes; lane++) {
        rig_stream *crd = &s->in[2 * lane], *val = &s->in[2 * lane + 1];
        for (int f = 0; f < fibers; f++) {
            int inner = rig_below(rng, 4);
            for (int g = 0; g < inner; g++) {
                for (int64_t c = rig_below(rng, 4); c < 24; c += 1 + rig_below(rng, 6)) {
                    rig_put(crd, token_crd(c));
                    rig_put(val, rig_below(rng, 8) ? token_val((double)(c % 5) + 0.5)
                                                   : token_empty());
                }
                if (g + 1 < inner) {
                    rig_put(crd, token_stop(0));
                    rig_put(val, token_stop(0));
                }
            }
            token close = token_stop(1 + (nested && f + 1 == fibers));
            rig_put(crd, close);
            rig_put(val, close);
        }
        rig_put(crd, token_done());
        rig_put(val, token_done());
    }
    s->nin = 2 * lanes;
}

/* Attributes of a reducer of one to four lanes, a rate bound now and
 * then; extra ("scan=N," or "") before them. */
static const char *reducer_attrs(char *buf, size_t size, const char *extra, int lanes,
                                 uint64_t *rng)
{
    int rate = rig_below(rng, 3) ? 0 : 1 + rig_below(rng, lanes);
    snprintf(buf, size, "%slanes=%d,rate=%d", extra, lanes, rate);
    return buf;
}

static void make_vectorreducer(rig_spec *s, uint64_t k, uint64_t *rng)
{
    static char attrs[96];
    int lanes = k % 3 ? 1 : 2 + rig_below(rng, 3);
    s->ops = &vectorreducer_ops;
    s->attrs = reducer_attrs(attrs, sizeof attrs, "", lanes, rng);
    reducer_lanes(s, lanes, rng);
}

static void make_vectorreducer_dense(rig_spec *s, uint64_t k, uint64_t *rng)
{
    static char attrs[96], scan[32];
    int lanes = k % 3 ? 1 : 2 + rig_below(rng, 3);
    snprintf(scan, sizeof scan, "scan=%d,", 1 + rig_below(rng, 9));
    s->ops = &vectorreducer_dense_ops;
    s->attrs = reducer_attrs(attrs, sizeof attrs, scan, lanes, rng);
    reducer_lanes(s, lanes, rng);
}

static void test_vectorreducer_native(void **state)
{
    (void)state;
    rig_check_cases("vectorreducer", CASES, make_vectorreducer);
}

static void test_vectorreducer_dense_native(void **state)
{
    (void)state;
    rig_check_cases("vectorreducer dense", CASES, make_vectorreducer_dense);
}

/* ------------------------------------------------------------- locate */

enum { FOLLOWER_FIBERS = 48 };

/* A compressed follower level of FOLLOWER_FIBERS fibers of random
 * coordinates below 40, some empty. */
static void compressed_follower(fibertree *ft, uint64_t *rng)
{
    int64_t seg[FOLLOWER_FIBERS + 1], crd[FOLLOWER_FIBERS * 40];
    size_t n = 0;
    seg[0] = 0;
    for (int f = 0; f < FOLLOWER_FIBERS; f++) {
        for (int64_t c = rig_below(rng, 3); c < 40 && rig_below(rng, 6); c += 1 + rig_below(rng, 3))
            crd[n++] = c;
        seg[f + 1] = (int64_t)n;
    }
    harness_level(ft, seg, FOLLOWER_FIBERS + 1, crd, n);
    ft->lv[0].mode = 0;
}

/* Two dense levels, FOLLOWER_FIBERS by 32, located in mode 1. */
static void dense_follower(fibertree *ft)
{
    memset(ft, 0, sizeof *ft);
    ft->order = 2;
    ft->dims[0] = FOLLOWER_FIBERS;
    ft->dims[1] = 32;
    ft->lv[0] = (fiber_level){.kind = 'd', .mode = 0, .dim = FOLLOWER_FIBERS};
    ft->lv[1] = (fiber_level){.kind = 'd', .mode = 1, .dim = 32};
    ft->nvals = FOLLOWER_FIBERS * 32;
    ft->vals = calloc((size_t)ft->nvals, sizeof *ft->vals);
}

/* The leader's level (crd and ref) and the parent refs one level up, of
 * one tree: a parent ref per leader fiber, the follower fiber its
 * coordinate names (wrapped into the level), now and then N. */
static void leader_and_parent(rig_spec *s, uint64_t *rng)
{
    rig_tree t;
    int levels = 2 + rig_below(rng, 2);
    rig_random_tree(&t, levels, 1 + rig_below(rng, levels == 2 ? 24 : 8), rng);
    rig_stream *parent = &s->in[0], *crd = &s->in[1], *ref = &s->in[2];
    rig_write_level(&t, levels - 2, parent);
    for (int k = 0; k < parent->n; k++)
        if (parent->tok[k].kind == TOKEN_CRD)
            parent->tok[k] = rig_below(rng, 10) ? token_crd(parent->tok[k].i % FOLLOWER_FIBERS)
                                                : token_empty();
    rig_write_level(&t, levels - 1, crd);
    for (int k = 0; k < crd->n; k++)
        rig_put(ref, crd->tok[k].kind == TOKEN_CRD ? token_crd(100 + k) : crd->tok[k]);
    s->nin = 3;
}

static void test_locate_native(void **state)
{
    (void)state;
    rig_spec *s = calloc(1, sizeof *s);
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        fibertree ft;
        char attrs[64];
        memset(s, 0, sizeof *s);
        s->ops = &locate_ops;
        s->unconnected = k % 9 ? -1 : (int)(k % 3);
        s->tensor = "c";
        s->tree = &ft;
        if (k % 3) {
            compressed_follower(&ft, &rng);
            snprintf(attrs, sizeof attrs, "tensor=c,mode=0,search=%d", 1 + rig_below(&rng, 4));
        } else {
            dense_follower(&ft);
            snprintf(attrs, sizeof attrs, "tensor=c,mode=1");
        }
        s->attrs = attrs;
        leader_and_parent(s, &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "locate case %llu", (unsigned long long)k);
        rig_check_engines(s, label);
        fibertree_free(&ft);
    }
    free(s);
}

/* ------------------------------------------------ intersect, skipping */

/* One side of an intersection: sparse sides and dense ones, so that a
 * side falls behind and asks to skip. */
static void intersect_side(rig_stream *crd, rig_stream *ref, int fibers, uint64_t *rng)
{
    int gap = 1 + rig_below(rng, 6);
    rig_joiner_side(crd, ref, fibers, gap, 8, rng);
}

static void make_intersect_skip(rig_spec *s, uint64_t k, uint64_t *rng)
{
    int sides = 2 + (k % 4 == 0);
    s->ops = &intersect_skip_ops;
    s->attrs = sides == 3 ? "sides=3" : "sides=2";
    s->nin = 2 * sides;
    /* Outputs: the coordinates, a ref per side, a skip stream per side. */
    s->open_ended = ((1u << sides) - 1) << (1 + sides);
    int fibers = rig_below(rng, 3) ? rig_below(rng, 6) : -1;
    for (int side = 0; side < sides; side++)
        intersect_side(&s->in[2 * side], &s->in[2 * side + 1], fibers, rng);
}

static void test_intersect_skip_native(void **state)
{
    (void)state;
    rig_check_cases("intersect skip", CASES, make_intersect_skip);
}

/* -------------------------------------------------------- parallelize */

/* A level of one to three levels' nesting dealt to one to eight lanes,
 * now and then an element N. */
static void make_parallelize(rig_spec *s, uint64_t k, uint64_t *rng)
{
    static char attrs[32];
    rig_tree t;
    int lanes = 1 + rig_below(rng, RIG_MAX_PORTS), levels = 1 + rig_below(rng, 3);
    s->ops = &parallelize_ops;
    snprintf(attrs, sizeof attrs, "lanes=%d", lanes);
    s->attrs = attrs;
    s->unconnected = k % 5 || lanes == 1 ? -1 : rig_below(rng, lanes);
    rig_random_tree(&t, levels, 1 + rig_below(rng, levels == 1 ? 60 : 10), rng);
    rig_write_level(&t, levels - 1, &s->in[0]);
    for (int e = 0; e < s->in[0].n; e++)
        if (s->in[0].tok[e].kind == TOKEN_CRD && rig_below(rng, 10) == 0)
            s->in[0].tok[e] = token_empty();
    s->nin = 1;
}

static void test_parallelize_native(void **state)
{
    (void)state;
    rig_check_cases("parallelize", CASES, make_parallelize);
}

/* ---------------------------------------------------------- serialize */

/* The part of tree t lane `lane` of `lanes` holds: of each fiber of level
 * p, the elements at positions lane, lane + lanes, ..., with what lies
 * below them. */
static void lane_tree(const rig_tree *t, int p, int lanes, int lane, rig_tree *o)
{
    int src[RIG_MAX_ELEMS + 1], fibers = 1;     /* the fibers of a level, as t numbers them */
    src[0] = 0;
    o->levels = t->levels;
    for (int l = 0; l < t->levels; l++) {
        int kept[RIG_MAX_ELEMS], n = 0;
        o->first[l][0] = 0;
        for (int f = 0; f < fibers; f++) {
            int from = t->first[l][src[f]], to = t->first[l][src[f] + 1];
            for (int e = from; e < to; e++)
                if (l != p || (e - from) % lanes == lane) {
                    o->crd[l][n] = t->crd[l][e];
                    kept[n++] = e;
                }
            o->first[l][f + 1] = n;
        }
        memcpy(src, kept, (size_t)n * sizeof *src);
        fibers = n;
    }
}

/* Whether a fiber of level l of t is empty. */
static int has_empty_fiber(const rig_tree *t, int l)
{
    int fibers = 1;
    for (int k = 0; k < l; k++)
        fibers = t->first[k][fibers];
    for (int f = 0; f < fibers; f++)
        if (t->first[l][f] == t->first[l][f + 1])
            return 1;
    return 0;
}

/* A graph of the serializer (node 0) and a producer, whose edges into it
 * carry coordinates and, with values, values too: what the serializer
 * reads of its node's edges. */
typedef struct lanes_graph {
    sam_graph g;
    graph_node nodes[2];
    graph_edge edges[2];
    graph_attr attrs[4];
    char text[3][16];
} lanes_graph;

static void serializer_graph(lanes_graph *lg, int lanes, int depth, int values, int value_stops)
{
    memset(lg, 0, sizeof *lg);
    snprintf(lg->text[0], sizeof lg->text[0], "%d", lanes);
    snprintf(lg->text[1], sizeof lg->text[1], "%d", depth);
    snprintf(lg->text[2], sizeof lg->text[2], "%d", value_stops);
    lg->attrs[0] = (graph_attr){"type", "serialize"};
    lg->attrs[1] = (graph_attr){"lanes", lg->text[0]};
    lg->attrs[2] = (graph_attr){"depth", lg->text[1]};
    lg->attrs[3] = (graph_attr){"value_stops", lg->text[2]};
    lg->nodes[0] = (graph_node){"serialize", "serialize", lg->attrs, 4};
    lg->nodes[1] = (graph_node){"lanes", "lanes", NULL, 0};
    lg->edges[0] = (graph_edge){.src = 1, .dst = 0, .kind = "crd", .label = "", .comment = ""};
    lg->edges[1] = (graph_edge){.src = 1, .dst = 0, .kind = "val", .label = "", .comment = ""};
    lg->g = (sam_graph){.nodes = lg->nodes, .nnodes = 2, .edges = lg->edges,
                        .nedges = 1 + values};
}

/* The values beside coordinate stream c: a value beside each coordinate
 * and D, and with value stops beside each stop token. */
static void values_beside(const rig_stream *c, int value_stops, rig_stream *v)
{
    for (int k = 0; k < c->n; k++) {
        token t = c->tok[k];
        if (t.kind == TOKEN_CRD)
            rig_put(v, token_val((double)t.i + 0.5));
        else if (value_stops || token_is_done(t))
            rig_put(v, t);
    }
}

/* The lanes a parallelized level of a random tree was dealt to, each
 * lane's stream `depth` levels below it, under an outer level now and
 * then, with values now and then; the serial stream (and its values)
 * the output wanted. Whether the stream lies two levels down and an
 * element has an empty fiber one level down: its unit is then a stop
 * closing a fiber never begun. */
static int make_serialize(rig_spec *s, lanes_graph *lg, uint64_t *rng)
{
    rig_tree t, lane;
    int values = rig_below(rng, 3) != 0, value_stops = values && rig_below(rng, 3);
    int lanes = 1 + rig_below(rng, values ? RIG_MAX_PORTS / 2 : RIG_MAX_PORTS);
    int outer = rig_below(rng, 2), depth = rig_below(rng, RIG_MAX_LEVELS - outer);
    int levels = outer + 1 + depth;
    rig_random_tree(&t, levels, 1 + rig_below(rng, levels == 1 ? 40 : levels == 2 ? 10 : 5),
                    rng);
    for (int l = 0; l < lanes; l++) {
        lane_tree(&t, outer, lanes, l, &lane);
        rig_write_level(&lane, levels - 1, &s->in[l]);
        if (values)
            values_beside(&s->in[l], value_stops, &s->in[lanes + l]);
    }
    rig_write_level(&t, levels - 1, &s->want[0]);
    if (values)
        values_beside(&s->want[0], value_stops, &s->want[1]);
    s->nwant = 1 + values;
    s->ops = &serialize_ops;
    s->nin = lanes * (1 + values);
    serializer_graph(lg, lanes, depth, values, value_stops);
    s->graph = &lg->g;
    return depth == 2 && has_empty_fiber(&t, outer + 1);
}

static void test_serialize_native(void **state)
{
    (void)state;
    rig_spec *s = calloc(1, sizeof *s);
    lanes_graph lg;
    int hollow_units = 0;
    for (uint64_t k = 1; k <= CASES; k++) {
        uint64_t rng = k;
        memset(s, 0, sizeof *s);
        s->unconnected = -1;
        s->attrs = "";
        hollow_units += make_serialize(s, &lg, &rng);
        rig_random_timing(s, &rng);
        char label[64];
        snprintf(label, sizeof label, "serialize case %llu", (unsigned long long)k);
        rig_check_engines(s, label);
    }
    free(s);
    assert_true(hollow_units >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crddrop_values_native),
        cmocka_unit_test(test_crdhold_values_native),
        cmocka_unit_test(test_vectorreducer_native),
        cmocka_unit_test(test_vectorreducer_dense_native),
        cmocka_unit_test(test_locate_native),
        cmocka_unit_test(test_intersect_skip_native),
        cmocka_unit_test(test_parallelize_native),
        cmocka_unit_test(test_serialize_native),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
