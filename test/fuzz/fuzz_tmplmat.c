/* Differential: the input's bytes make a small matrix pair A (I x K) and
 * B (K x J), sizes up to 12, a few dozen entries of small whole values
 * (zeros and duplicates included), then
 * - run it through each of the four templates at parameters the bytes
 *   pick (tile sizes, PE counts, buffers, the merger's and SIGMA's lanes),
 *   as `samsim run DIR --check` runs a template's phases (run/template_run.h),
 *   and compare Z with the reference evaluation as --check does; one of
 *   the templates runs again under another engine, which must agree on
 *   every number;
 * - run a compiled matrix product (three loop orders) on random tiles
 *   (shape and occupancy splits, up to two levels, a tile order) through
 *   random memories (run/tiled.h, every --hw key within its range) and
 *   check the result the same way.
 * A run may be refused only because a tile does not fit in a buffer the
 * bytes made small; any other error, any mismatch and any inconsistency
 * aborts. Graphs depend only on the parameters that shape them (the
 * merger's and SIGMA's lanes), so each is compiled once and kept for the
 * whole fuzzing run in a cache local to this harness. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../run/check.h"
#include "../../run/tiled.h"
#include "../../run/template_run.h"
#include "../../custard/compile.h"
#include "../../templates/template.h"
#include "fuzz_input.h"

#define TM_MAX_DIM 12
#define TM_MAX_ENTRIES 36
#define TM_TEMPLATES 4
#define TM_VARIANTS 9
#define TM_PRODUCTS 3
#define TM_CHOICES 6

/* The input as a stream of bytes, zeros once it is used up. */
typedef struct bytes {
    const uint8_t *p;
    size_t n, at;
} bytes;

static unsigned pick(bytes *b, unsigned n)
{
    return (b->at < b->n ? b->p[b->at++] : 0) % n;
}

/* ---- the matrices --------------------------------------------------- */

static void make_matrix(bytes *b, int64_t rows, int64_t cols, tensor *t)
{
    int64_t dims[2] = {rows, cols};
    sam_error err;
    if (tensor_init(t, 2, dims, &err))
        abort();
    unsigned n = pick(b, TM_MAX_ENTRIES + 1);
    for (unsigned e = 0; e < n; e++) {
        int64_t at[2] = {pick(b, (unsigned)rows), pick(b, (unsigned)cols)};
        if (tensor_append(t, at, (double)pick(b, 9) - 4, &err))
            abort();
    }
    if (tensor_canonicalize(t, NULL, &err))
        abort();
}

/* What must work whatever the bytes. */
static void must(int rc, const char *what, const sam_error *err)
{
    if (!rc)
        return;
    fprintf(stderr, "%s: %s\n", what, err->msg);
    abort();
}

/* A refusal the bytes may cause: a tile larger than a buffer they made
 * small, or more tiling levels than buffers (no LLB). Anything else is a
 * finding. */
static void refused(const char *what, const sam_error *err)
{
    if (strstr(err->msg, "does not fit") || strstr(err->msg, "needs as many buffers"))
        return;
    fprintf(stderr, "%s: %s\n", what, err->msg);
    abort();
}

/* ---- the templates -------------------------------------------------- */

typedef struct tm_param {
    const char *key;
    int shapes;             /* changes the graph, not only its tiles or hardware */
    int n;
    double v[TM_CHOICES];
} tm_param;

typedef struct tm_template {
    const char *name;
    tm_param params[10];
} tm_template;

static const tm_template tm_templates[TM_TEMPLATES] = {
    {"extensor", {{"pe.tile", 0, 5, {1, 2, 3, 4, 6}},
                  {"llb.tile.i", 0, 3, {1, 2, 3}},
                  {"llb.tile.k", 0, 3, {1, 2, 3}},
                  {"llb.tile.j", 0, 3, {1, 2, 3}},
                  {"pe.count", 0, 4, {1, 2, 3, 4}},
                  {"pe.capacity", 0, 2, {1048576, 200}},
                  {"llb.capacity", 0, 2, {30e6, 600}},
                  {"dram.bandwidth", 0, 3, {68.256, 0.5, 1000}},
                  {"bytes.val", 0, 2, {8, 4}},
                  {NULL, 0, 0, {0}}}},
    {"outerspace", {{"pt.count", 0, 3, {1, 2, 3}},
                    {"pe.per.pt", 0, 3, {1, 2, 4}},
                    {"a.per.pe", 0, 6, {1, 2, 3, 5, 8, 40}},
                    {"merge.rows", 0, 5, {1, 2, 3, 5, 12}},
                    {"dram.bandwidth", 0, 2, {128, 1}},
                    {"bytes.val", 0, 2, {8, 4}},
                    {NULL, 0, 0, {0}}}},
    {"gamma", {{"merger.radix", 1, 3, {1, 2, 4}},
               {"merger.rate", 1, 3, {1, 0, 2}},
               {"pe.count", 0, 4, {1, 2, 3, 5}},
               {"tile.entries", 0, 6, {1, 2, 3, 5, 9, 40}},
               {"fibercache.capacity", 0, 2, {3145728, 300}},
               {"llb.bandwidth", 0, 2, {256, 1}},
               {"dram.bandwidth", 0, 2, {128, 1}},
               {NULL, 0, 0, {0}}}},
    {"sigma", {{"lanes", 1, 3, {1, 2, 4}},
               {"k.tile", 0, 5, {1, 2, 3, 5, 12}},
               {"a.per.tile", 0, 5, {1, 2, 5, 9, 40}},
               {"llb.capacity", 0, 2, {32e6, 200}},
               {NULL, 0, 0, {0}}}},
};

/* A template's graphs for one choice of the parameters that shape them. */
typedef struct tm_graphs {
    int made;
    sam_graph g[TEMPLATE_MAX_PHASES];
} tm_graphs;

typedef struct tm_cache {
    tm_graphs templates[TM_TEMPLATES][TM_VARIANTS];
    sam_graph products[TM_PRODUCTS];
    int products_made[TM_PRODUCTS];
} tm_cache;

/* Sets t's parameters as the bytes pick them; *variant numbers the
 * choice of those that shape the graph. */
static void set_params(bytes *b, const tm_template *tt, const template_def *t, double *values,
                       int *variant)
{
    template_defaults(t, values);
    *variant = 0;
    for (const tm_param *p = tt->params; p->key; p++) {
        unsigned c = pick(b, (unsigned)p->n);
        char assignment[96];
        sam_error err;
        snprintf(assignment, sizeof assignment, "%s=%.10g", p->key, p->v[c]);
        must(template_set(t, values, assignment, &err), assignment, &err);
        if (p->shapes)
            *variant = *variant * p->n + (int)c;
    }
}

static const tm_graphs *graphs_for(tm_cache *cache, int k, int variant, const template_def *t,
                                   const double *values)
{
    tm_graphs *c = &cache->templates[k][variant];
    if (!c->made) {
        template_plan *plan = calloc(1, sizeof *plan);
        sam_error err;
        if (!plan)
            abort();
        must(template_build(t, values, plan, c->g, &err), t->name, &err);
        c->made = 1;
        free(plan);
    }
    return c;
}

static int run_phases(const tm_graphs *c, const template_plan *plan, const tensor *a,
                      const tensor *b, engine_mode engine, trun *r, sam_error *err)
{
    tensor ca, cb;
    trun_init(r, engine, 0);
    must(tensor_copy(&ca, a, err) || tensor_copy(&cb, b, err) || trun_bind(r, "A", &ca, err) ||
         trun_bind(r, "B", &cb, err), "binding", err);
    return trun_run_plan(r, plan, c->g, err);
}

/* Z against the reference, and what the run says about itself. */
static void check_run(const char *name, trun *r, int64_t rows, int64_t cols)
{
    char verdict[64];
    sam_error err;
    int rc = trun_check(r, name, TEMPLATE_EXPR, verdict, sizeof verdict, &err);
    if (rc) {
        fprintf(stderr, "%s: %s\n", name, rc < 0 ? err.msg : "Z differs from the reference");
        abort();
    }
    const trun_tensor *z = trun_result(r);
    if (z->t.order != 2 || z->t.dims[0] != rows || z->t.dims[1] != cols)
        abort();
    for (size_t i = 0; i < z->t.nnz; i++)
        if (z->t.vals[i] == 0)
            abort();
    for (int i = 0; i < r->ntensors; i++) {
        const trun_tensor *t = &r->tensor[i];
        if (t->traffic < 0 || t->read_back < 0 || t->traffic < 2 * t->read_back || t->once < 0)
            abort();
    }
}

/* The same run under another engine: every number the same. */
static void same_run(const char *name, const trun *x, const trun *y)
{
    int same = x->cycles == y->cycles && x->tokens == y->tokens && x->ntensors == y->ntensors &&
               x->nphases == y->nphases;
    for (int i = 0; same && i < x->ntensors; i++)
        same = x->tensor[i].traffic == y->tensor[i].traffic &&
               x->tensor[i].read_back == y->tensor[i].read_back &&
               x->tensor[i].zeros == y->tensor[i].zeros &&
               tensor_equal(&x->tensor[i].t, &y->tensor[i].t);
    for (int i = 0; same && i < x->nphases; i++)
        same = x->phase[i].cycles == y->phase[i].cycles;
    if (!same) {
        fprintf(stderr, "%s: the engines disagree (cycles %llu and %llu)\n", name,
                (unsigned long long)x->cycles, (unsigned long long)y->cycles);
        abort();
    }
}

static void run_template(bytes *b, tm_cache *cache, int k, const tensor *a, const tensor *bm,
                         int again)
{
    const tm_template *tt = &tm_templates[k];
    const template_def *t = template_find(tt->name);
    double values[TEMPLATE_MAX_PARAMS];
    int variant;
    set_params(b, tt, t, values, &variant);
    engine_mode other = pick(b, 2) ? ENGINE_STEP : ENGINE_CYCLE;
    const tm_graphs *c = graphs_for(cache, k, variant, t, values);
    template_plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        abort();
    t->plan(t, values, plan);
    trun r, s;
    sam_error err;
    int rc = run_phases(c, plan, a, bm, ENGINE_EVENT, &r, &err);
    if (rc)
        refused(t->name, &err);
    else
        check_run(t->name, &r, a->dims[0], bm->dims[1]);
    if (!rc && again) {
        if (run_phases(c, plan, a, bm, other, &s, &err)) {
            fprintf(stderr, "%s: refused under one engine only: %s\n", t->name, err.msg);
            abort();
        }
        trun_result(&s);
        same_run(t->name, &r, &s);
        trun_free(&s);
    }
    trun_free(&r);
    free(plan);
}

/* ---- a tiled matrix product ----------------------------------------- */

#define TM_PRODUCT "X(i,j)=B(i,k)*C(k,j)"

static const char *const product_formats[TM_PRODUCTS][3] = {
    {"X:ss", "B:ss", "C:ss"}, {"X:ss", "B:ss", "C:ss:1,0"}, {"X:ss", "B:ss:1,0", "C:ss"}};
static const char *const product_orders[TM_PRODUCTS] = {"reorder(i,k,j)", "reorder(i,j,k)",
                                                        "reorder(k,i,j)"};

static const sam_graph *product(tm_cache *cache, int p)
{
    if (!cache->products_made[p]) {
        compile_args a = {.expression = TM_PRODUCT, .formats = product_formats[p],
                          .nformats = 3, .schedule = product_orders[p]};
        sam_error err;
        must(custard_compile(&a, &cache->products[p], &err), "compile", &err);
        cache->products_made[p] = 1;
    }
    return &cache->products[p];
}

/* Splits of i, k and j, up to two levels each (one index at least one),
 * shape or occupancy, and sometimes a tile order: outer levels before
 * inner ones, else random. */
static void make_tiling(bytes *b, char *buf, size_t size)
{
    static const char *const leaders[3][2] = {{"B", "B"}, {"B", "C"}, {"C", "C"}};
    static const char names[3] = {'i', 'k', 'j'};
    int levels[3], done[3] = {0, 0, 0}, total = 0, split = (int)pick(b, 3);
    size_t n = 0;
    buf[0] = '\0';
    for (int v = 0; v < 3; v++) {
        levels[v] = v == split ? 1 + (int)pick(b, 2) : (int)pick(b, 3);
        total += levels[v];
        for (int l = 0; l < levels[v]; l++) {
            char whole[8], outer[8], inner[8], tile[16];
            snprintf(whole, sizeof whole, l ? "%c0" : "%c", names[v]);
            snprintf(outer, sizeof outer, l ? "%c01" : "%c1", names[v]);
            snprintf(inner, sizeof inner, l ? "%c00" : "%c0", names[v]);
            unsigned s = 1 + pick(b, 6);
            if (pick(b, 3) == 0)
                snprintf(tile, sizeof tile, "%s.%u", leaders[v][pick(b, 2)], s);
            else
                snprintf(tile, sizeof tile, "%u", s);
            n += (size_t)snprintf(buf + n, size - n, "split(%s,%s,%s,%s) ", whole, outer, inner,
                                  tile);
        }
    }
    if (pick(b, 2))
        return;
    n += (size_t)snprintf(buf + n, size - n, "tileorder(");
    for (int placed = 0; placed < total; placed++) {
        int v = (int)pick(b, 3);
        while (done[v] == levels[v])
            v = (v + 1) % 3;
        n += (size_t)snprintf(buf + n, size - n, "%s%c%s", placed ? "," : "", names[v],
                              done[v] ? "01" : "1");
        done[v]++;
    }
    snprintf(buf + n, size - n, ")");
}

/* Every --hw key at a value the bytes pick within its range (few PEs, so
 * that a run stays small), and sometimes a tensor placed in the PE buffer
 * only. */
static void make_hw(bytes *b, hw_desc *hw)
{
    static const char *const places[] = {"B", "C", "X"};
    hw_defaults(hw);
    for (const param *p = hw_params; p->name; p++) {
        if (pick(b, 2))
            continue;
        double choices[] = {p->min, p->def, p->max, p->def / 8, p->def * 3, 2};
        double v = choices[pick(b, 6)];
        if (!strcmp(p->name, "pe.count"))
            v = 1 + pick(b, 8);
        if (p->whole)
            v = (double)(long long)v;
        v = v < p->min ? p->min : v > p->max ? p->max : v;
        char value[64];
        sam_error err;
        snprintf(value, sizeof value, "%.17g", v);
        must(hw_set(hw, p->name, value, "tmplmat", &err), p->name, &err);
    }
    for (int t = 0; t < 3; t++)
        if (!pick(b, 4)) {
            char key[16];
            sam_error err;
            snprintf(key, sizeof key, "place.%s", places[t]);
            must(hw_set(hw, key, pick(b, 2) ? "pe" : "llb,pe", "tmplmat", &err), key, &err);
        }
}

static void run_product(bytes *b, tm_cache *cache, const tensor *a, const tensor *bm)
{
    const sam_graph *g = product(cache, (int)pick(b, TM_PRODUCTS));
    char tiling[512];
    hw_desc hw;
    make_tiling(b, tiling, sizeof tiling);
    make_hw(b, &hw);
    tensor ops[3];
    const char *names[2] = {"B", "C"};
    const tensor *named[2] = {a, bm};
    for (int k = 1; k < g->ntensors; k++)
        ops[k] = *named[strcmp(g->tensors[k].name, "B") != 0];
    tiled_request req = {.tiling = tiling, .expr = TM_PRODUCT, .engine = ENGINE_EVENT,
                         .max_cycles = UINT64_MAX, .sim = {.depth = 0, .latency = 1},
                         .hw = &hw, .stats = (int)pick(b, 2)};
    tiled_outcome out;
    tensor result;
    sam_error err;
    char verdict[64];
    if (run_tiled(g, ops, &req, &out, &result, &err)) {
        refused(tiling, &err);
        return;
    }
    int rc = check_result("tiled", TM_PRODUCT, names, named, 2, &result, verdict,
                          sizeof verdict, &err);
    if (rc) {
        fprintf(stderr, "tiled %s: %s\n", tiling, rc < 0 ? err.msg : "X differs");
        abort();
    }
    tensor_free(&result);
    tiled_outcome_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tm_cache *cache;
    if (!cache) {
        fuzz_limits();
        if (!(cache = calloc(1, sizeof *cache)))
            abort();
    }
    bytes b = {data, size, 0};
    int64_t i = 1 + pick(&b, TM_MAX_DIM), k = 1 + pick(&b, TM_MAX_DIM),
            j = 1 + pick(&b, TM_MAX_DIM);
    tensor a, bm;
    make_matrix(&b, i, k, &a);
    make_matrix(&b, k, j, &bm);
    int again = (int)pick(&b, TM_TEMPLATES);
    for (int t = 0; t < TM_TEMPLATES; t++)
        run_template(&b, cache, t, &a, &bm, t == again);
    run_product(&b, cache, &a, &bm);
    tensor_free(&a);
    tensor_free(&bm);
    return 0;
}
