/* samsim run DIR (run_template.h). */
#include "run_template.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../common/keyval.h"
#include "../formats/fibertree.h"
#include "../formats/tensor_file.h"
#include "../templates/template.h"
#include "args.h"
#include "check.h"
#include "outputs.h"
#include "run_tiled.h"

#define TRUN_MAX_TENSORS 8

typedef struct template_conf {
    char name[64];
    char expr[128];
    char phase[TEMPLATE_MAX_PHASES][32];
    int nphases;
} template_conf;

/* The tensors by name: the operands bound with -t, then each phase's
 * result. traffic: bytes moved to and from DRAM; read: of that, read
 * back (a result's partial outputs). */
typedef struct trun_tensor {
    char name[64];
    const char *file;       /* -t's, NULL for a result */
    tensor t;
    int loaded;
    double traffic, read_back, whole_bytes;
} trun_tensor;

typedef struct trun_opts {
    const char *dir, *out, *stats;
    int check, quiet;
    engine_mode engine;
    trun_tensor tensors[TRUN_MAX_TENSORS];
    int ntensors, nbound;
} trun_opts;

typedef struct trun_total {
    cycle_t cycles;
    double seconds, pe_busy, pe_units, dram_busy;
    uint64_t tokens;
    cycle_t phase_cycles[TEMPLATE_MAX_PHASES];
} trun_total;

int run_template_is(const char *path)
{
    char conf[4096];
    struct stat st;
    snprintf(conf, sizeof conf, "%s/template.conf", path);
    return !stat(path, &st) && S_ISDIR(st.st_mode) && !stat(conf, &st);
}

static int conf_line(void *ctx, const char *key, const char *value, const char *origin,
                     sam_error *err)
{
    template_conf *c = ctx;
    if (!strcmp(key, "template"))
        snprintf(c->name, sizeof c->name, "%s", value);
    else if (!strcmp(key, "expr"))
        snprintf(c->expr, sizeof c->expr, "%s", value);
    else if (!strcmp(key, "phase") && c->nphases < TEMPLATE_MAX_PHASES &&
             strlen(value) < sizeof c->phase[0] && !strchr(value, '/'))
        snprintf(c->phase[c->nphases++], sizeof c->phase[0], "%s", value);
    else if (!strcmp(key, "phase"))
        return error_set(err, "%s: phase '%s': at most %d phases, each a file stem in the "
                         "directory", origin, value, TEMPLATE_MAX_PHASES);
    else
        return error_set(err, "%s: unknown key '%s' (template, expr, phase)", origin, key);
    return 0;
}

static int conf_read(const char *dir, template_conf *c, sam_error *err)
{
    char path[4096];
    memset(c, 0, sizeof *c);
    snprintf(path, sizeof path, "%s/template.conf", dir);
    if (keyval_read(path, conf_line, c, err))
        return -1;
    if (!c->name[0] || !c->expr[0] || !c->nphases)
        return error_set(err, "%s: needs template, expr and at least one phase", path);
    return 0;
}

static trun_tensor *tensor_named(trun_opts *o, const char *name)
{
    for (int i = 0; i < o->ntensors; i++)
        if (!strcmp(o->tensors[i].name, name))
            return &o->tensors[i];
    return NULL;
}

static trun_tensor *tensor_add(trun_opts *o, const char *name, size_t len, sam_error *err)
{
    if (o->ntensors == TRUN_MAX_TENSORS || len >= sizeof o->tensors[0].name)
        return error_set(err, "run: too many tensors or too long a name"), NULL;
    trun_tensor *t = &o->tensors[o->ntensors++];
    memset(t, 0, sizeof *t);
    memcpy(t->name, name, len);
    return t;
}

static int parse_bind(trun_opts *o, const char *v, sam_error *err)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return error_set(err, "run: -t takes NAME=FILE, not '%s'", v);
    trun_tensor *t = tensor_add(o, v, (size_t)(eq - v), err);
    if (!t)
        return -1;
    if (tensor_named(o, t->name) != t)
        return error_set(err, "run: -t %s given twice", t->name);
    t->file = eq + 1;
    o->nbound++;
    return 0;
}

static int parse_option(int argc, char **argv, int *i, trun_opts *o, sam_error *err)
{
    const char *v;
    int r;
    if ((r = args_option(argc, argv, i, "-t", &v, err)))
        return r < 0 ? -1 : parse_bind(o, v, err);
    if ((r = args_option(argc, argv, i, "-o", &v, err)))
        return r < 0 ? -1 : (o->out = v, 0);
    if ((r = args_option(argc, argv, i, "--stats", &v, err)))
        return r < 0 ? -1 : (o->stats = v, 0);
    if ((r = args_option(argc, argv, i, "--engine", &v, err)))
        return r < 0 ? -1 : args_engine(v, &o->engine, err);
    if (!strcmp(argv[*i], "--check"))
        return o->check = 1, 0;
    if (!strcmp(argv[*i], "--quiet"))
        return o->quiet = 1, 0;
    return error_set(err, "run: %s is a template directory, which takes -t NAME=FILE, -o, "
                     "--stats, --check, --engine and --quiet; not '%s'", o->dir, argv[*i]);
}

static int parse_args(int argc, char **argv, trun_opts *o, sam_error *err)
{
    memset(o, 0, sizeof *o);
    o->dir = argv[0];
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-')
            return error_set(err, "run: unexpected argument '%s'", argv[i]);
        if (parse_option(argc, argv, &i, o, err))
            return -1;
    }
    for (int i = 0; i < o->nbound; i++) {
        tensor_file f = {.path = o->tensors[i].file, .name = o->tensors[i].name};
        if (tensor_file_read(&f, &o->tensors[i].t, err))
            return -1;
        o->tensors[i].loaded = 1;
    }
    return 0;
}

/* The phase's operands by graph tensor, from -t or an earlier result. */
static int phase_operands(trun_opts *o, const sam_graph *g, tensor *ops, sam_error *err)
{
    for (int k = 1; k < g->ntensors; k++) {
        trun_tensor *t = tensor_named(o, g->tensors[k].name);
        if (!t || !t->loaded)
            return error_at(err, g->path, 0, "tensor %s is not bound (give -t %s=FILE)",
                            g->tensors[k].name, g->tensors[k].name);
        if (t->t.order != g->tensors[k].format.nlevels)
            return error_at(err, g->path, 0, "tensor %s has order %d, but the graph stores it "
                            "in %d levels", t->name, t->t.order, g->tensors[k].format.nlevels);
        ops[k] = t->t;
    }
    return check_index_sizes(g, ops, err);
}

static double whole_bytes(const tensor *t, const level_format *f, const hw_desc *hw,
                          sam_error *err)
{
    fibertree ft;
    if (fibertree_build(t, f, &ft, err))
        return -1;
    double bytes = fibertree_bytes(&ft, hw->bytes_crd, hw->bytes_ref, hw->bytes_val);
    fibertree_free(&ft);
    return bytes;
}

/* What a phase moved to and from DRAM, by tensor; an operand's bytes in
 * its format the first time a phase reads it. */
static int account(trun_opts *o, const sam_graph *g, const tiled_outcome *r, trun_tensor *res,
                   sam_error *err)
{
    const mem_model *m = r->memory;
    for (int k = 1; k < g->ntensors; k++) {
        trun_tensor *t = tensor_named(o, g->tensors[k].name);
        t->traffic += m->traffic[k - 1].read[HW_DRAM];
        if (t->file && t->whole_bytes == 0 &&
            (t->whole_bytes = whole_bytes(&t->t, &g->tensors[k].format, &m->hw, err)) < 0)
            return -1;
    }
    const mem_traffic *z = &m->traffic[m->ntensors];
    res->traffic += z->written[HW_DRAM] + z->read[HW_DRAM];
    res->read_back += z->read[HW_DRAM];
    res->whole_bytes = whole_bytes(&res->t, &g->tensors[0].format, &m->hw, err);
    return res->whole_bytes < 0 ? -1 : 0;
}

/* FILE.csv for one phase, FILE.PHASE.csv for each of several. */
static void stats_path(const trun_opts *o, const template_conf *c, int i, char *buf,
                       size_t size)
{
    const char *dot = strrchr(o->stats, '.');
    size_t stem = dot && !strchr(dot, '/') ? (size_t)(dot - o->stats) : strlen(o->stats);
    if (c->nphases == 1)
        snprintf(buf, size, "%s", o->stats);
    else
        snprintf(buf, size, "%.*s.%s%s", (int)stem, o->stats, c->phase[i], o->stats + stem);
}

static void free_outcome(tiled_outcome *r)
{
    if (r->stats)
        sim_stats_free(r->stats);
    free(r->stats);
    if (r->memory)
        mem_free(r->memory);
    free(r->memory);
}

static void add_usage(trun_total *tot, const tiled_outcome *r)
{
    const mem_model *m = r->memory;
    tot->pe_busy += m->usage[HW_PE].busy;
    tot->pe_units += (double)m->npe * (double)r->cycles;
    tot->dram_busy += m->usage[HW_DRAM].busy;
}

static int run_phase(trun_opts *o, const template_conf *c, int i, trun_total *tot,
                     sam_error *err)
{
    char path[4096];
    sam_graph g;
    hw_desc hw;
    snprintf(path, sizeof path, "%s/%s.gv", o->dir, c->phase[i]);
    if (graph_read_dot(path, &g, err))
        return -1;
    snprintf(path, sizeof path, "%s/%s.hw", o->dir, c->phase[i]);
    hw_defaults(&hw);
    tensor *ops = calloc((size_t)g.ntensors, sizeof *ops);
    const char *tiling = graph_attr_get(&g, "tiling"), *expr = graph_attr_get(&g, "expr");
    trun_tensor *res = NULL;
    tiled_outcome r = {0};
    int rc = -1;
    if (!ops)
        error_set(err, "out of memory");
    else if (!tiling || !expr || g.ntensors == 0)
        error_at(err, g.path, 0, "a template's graph records its tiling, expression and "
                 "tensors");
    else if (!hw_read(path, &hw, err) && !phase_operands(o, &g, ops, err) &&
             (res = tensor_add(o, g.tensors[0].name, strlen(g.tensors[0].name), err))) {
        tiled_request req = {.tiling = tiling, .expr = expr, .engine = o->engine,
                             .max_cycles = UINT64_MAX, .sim = {.depth = 0, .latency = 1},
                             .hw = &hw, .stats = o->stats != NULL};
        rc = run_tiled(&g, ops, &req, &r, &res->t, err);
        res->loaded = rc == 0;
    }
    if (!rc && o->stats) {
        stats_path(o, c, i, path, sizeof path);
        rc = sim_stats_write_rows(r.stats, r.cycles, NULL, path, err);
    }
    if (!rc && !(rc = account(o, &g, &r, res, err))) {
        tot->cycles += r.cycles;
        tot->phase_cycles[i] = r.cycles;
        tot->seconds += (double)r.cycles / (hw.clock_ghz * 1e9);
        tot->tokens += r.tokens;
        add_usage(tot, &r);
    }
    free_outcome(&r);
    free(ops);
    graph_free(&g);
    return rc;
}

/* traffic_min: each operand read once and the result written once, in
 * their formats. */
static void print_traffic(const trun_opts *o, const trun_tensor *z, FILE *f)
{
    double min = z->whole_bytes, dram = 0;
    for (int i = 0; i < o->ntensors; i++) {
        const trun_tensor *t = &o->tensors[i];
        dram += t->traffic;
        if (t == z)
            continue;
        fprintf(f, "traffic.%s: %.0f\n", t->name, t->traffic);
        if (t->file)
            min += t->whole_bytes;
    }
    fprintf(f, "traffic.PO: %.0f\ntraffic.%s: %.0f\ntraffic_min: %.0f\ndram_bytes: %.0f\n",
            2 * z->read_back, z->name, z->traffic - 2 * z->read_back, min, dram);
}

static void print_summary(const trun_opts *o, const template_conf *c, const trun_total *tot,
                          const char *verdict, double wall)
{
    const trun_tensor *z = &o->tensors[o->ntensors - 1];
    printf("template: %s\nengine: %s\n", c->name, engine_names[o->engine]);
    for (int i = 0; c->nphases > 1 && i < c->nphases; i++)
        printf("cycles.%s: %llu\n", c->phase[i], (unsigned long long)tot->phase_cycles[i]);
    printf("cycles: %llu\nseconds: %.9g\ntokens: %llu\ncheck: %s\nwall_seconds: %.6f\n",
           (unsigned long long)tot->cycles, tot->seconds, (unsigned long long)tot->tokens,
           verdict, wall);
    print_traffic(o, z, stdout);
    printf("pe_busy: %.4f\ndram_busy: %.4f\n", tot->pe_units > 0 ? tot->pe_busy / tot->pe_units : 0,
           tot->cycles ? tot->dram_busy / (double)tot->cycles : 0);
    if (o->out)
        printf("result: %s written to %s\n", z->name, o->out);
    else
        printf("result: %s, %zu nonzeros, not written (-o FILE writes it)\n", z->name, z->t.nnz);
}

static int check_template(const trun_opts *o, const template_conf *c, char *verdict,
                          size_t size, sam_error *err)
{
    const char *names[TRUN_MAX_TENSORS];
    const tensor *ops[TRUN_MAX_TENSORS];
    for (int i = 0; i < o->nbound; i++) {
        names[i] = o->tensors[i].name;
        ops[i] = &o->tensors[i].t;
    }
    return check_result(o->dir, c->expr, names, ops, o->nbound, &o->tensors[o->ntensors - 1].t,
                        verdict, size, err);
}

/* A -t for a tensor no phase reads would be ignored; -o and --stats must
 * not replace an input. */
static int check_files(const trun_opts *o, const template_conf *c, sam_error *err)
{
    io_file in[TRUN_MAX_TENSORS + 2 * TEMPLATE_MAX_PHASES + 1];
    char own[2 * TEMPLATE_MAX_PHASES + 1][4096];
    int used[TRUN_MAX_TENSORS] = {0}, n = o->nbound;
    for (int p = 0; p < c->nphases; p++) {
        sam_graph g;
        snprintf(own[2 * p + 1], sizeof own[0], "%s/%s.gv", o->dir, c->phase[p]);
        snprintf(own[2 * p + 2], sizeof own[0], "%s/%s.hw", o->dir, c->phase[p]);
        if (graph_read_dot(own[2 * p + 1], &g, err))
            return -1;
        for (int i = 0; i < o->nbound; i++) {
            const graph_tensor *gt = graph_tensor_find(&g, o->tensors[i].name);
            used[i] |= gt && gt != &g.tensors[0];
        }
        graph_free(&g);
        in[n++] = (io_file){"the template", own[2 * p + 1], NULL};
        in[n++] = (io_file){"the template", own[2 * p + 2], NULL};
    }
    for (int i = 0; i < o->nbound; i++) {
        if (!used[i])
            return error_set(err, "run: -t %s: no phase of %s reads a tensor %s",
                             o->tensors[i].name, o->dir, o->tensors[i].name);
        in[i] = (io_file){"-t", o->tensors[i].file, o->tensors[i].name};
    }
    snprintf(own[0], sizeof own[0], "%s/template.conf", o->dir);
    in[n++] = (io_file){"the template", own[0], NULL};
    const io_file out[] = {{"-o", o->out, NULL}, {"--stats", o->stats, NULL}};
    return outputs_check("run", in, n, out, 2, err);
}

static int run_all(trun_opts *o, const template_conf *c, sam_error *err)
{
    struct timespec t0, t1;
    trun_total tot = {0};
    char verdict[64] = "skipped";
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < c->nphases; i++)
        if (run_phase(o, c, i, &tot, err))
            return 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    int mismatch = o->check ? check_template(o, c, verdict, sizeof verdict, err) : 0;
    const trun_tensor *z = &o->tensors[o->ntensors - 1];
    tensor_file f = {.path = o->out, .name = z->name};
    if (mismatch >= 0 && o->out && outputs_write_tensor(&f, &z->t, err))
        mismatch = -1;
    if (mismatch < 0)
        return 1;
    print_summary(o, c, &tot, verdict, wall);
    return mismatch ? 3 : 0;
}

int run_template(int argc, char **argv)
{
    trun_opts o;
    template_conf c;
    sam_error err;
    int rc = 1;
    if (!parse_args(argc, argv, &o, &err) && !conf_read(o.dir, &c, &err) &&
        !check_files(&o, &c, &err))
        rc = run_all(&o, &c, &err);
    if (rc == 1)
        args_fail(&err);
    for (int i = 0; i < o.ntensors; i++)
        if (o.tensors[i].loaded)
            tensor_free(&o.tensors[i].t);
    return rc;
}
