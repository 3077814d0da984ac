/* samsim gen KIND: synthetic tensors, reproducible from --seed. */
#include <stdio.h>
#include <string.h>

#include "../formats/gen.h"
#include "../formats/tensor_file.h"
#include "args.h"
#include "commands.h"
#include "options.h"
#include "outputs.h"

enum {
    GEN_URANDOM, GEN_RUNS, GEN_BLOCKS, GEN_RMAT, GEN_BANDED, GEN_IDENTITY, GEN_DENSE, GEN_KINDS
};

static const char *const gen_kind_names[GEN_KINDS] = {
    "urandom", "runs", "blocks", "rmat", "banded", "identity", "dense",
};

enum {
    OPT_SHAPE, OPT_DENSITY, OPT_NNZ, OPT_RUN, OPT_BLOCK, OPT_LOWER, OPT_UPPER, OPT_RMAT_A,
    OPT_RMAT_B, OPT_RMAT_C, OPT_SEED, OPT_OUT, OPT_SECOND, OPT_FORMAT, OPT_TENSOR, OPT_COUNT
};

#define KIND(k) (1u << GEN_##k)
#define ALL_KINDS ((1u << GEN_KINDS) - 1)
#define COUNTED (KIND(URANDOM) | KIND(RUNS) | KIND(BLOCKS) | KIND(RMAT))
#define PAIRS (KIND(RUNS) | KIND(BLOCKS))

/* An option given to a kind that ignores it is refused: a silently unused
 * --density would make the user believe the file has it. */
static const struct gen_option {
    const char *name;
    unsigned kinds;
} gen_options[OPT_COUNT] = {
    [OPT_SHAPE] = {"--shape", ALL_KINDS},
    [OPT_DENSITY] = {"--density", COUNTED},
    [OPT_NNZ] = {"--nnz", COUNTED},
    [OPT_RUN] = {"--run", KIND(RUNS)},
    [OPT_BLOCK] = {"--block", KIND(BLOCKS)},
    [OPT_LOWER] = {"--lower", KIND(BANDED)},
    [OPT_UPPER] = {"--upper", KIND(BANDED)},
    [OPT_RMAT_A] = {"--rmat-a", KIND(RMAT)},
    [OPT_RMAT_B] = {"--rmat-b", KIND(RMAT)},
    [OPT_RMAT_C] = {"--rmat-c", KIND(RMAT)},
    [OPT_SEED] = {"--seed", ALL_KINDS},
    [OPT_OUT] = {"-o", ALL_KINDS},
    [OPT_SECOND] = {"--second", PAIRS},
    [OPT_FORMAT] = {"--format", ALL_KINDS},
    [OPT_TENSOR] = {"--tensor", ALL_KINDS},
};

typedef struct gen_args {
    int kind;
    const char *opt[OPT_COUNT];
    int order;
    int64_t dims[TENSOR_MAX_ORDER];
    size_t nnz;
    uint64_t seed;
} gen_args;

static const cli_option gen_cli_options[] = {
    {OPT_SHAPE + 1, "--shape", "DIMS", "dimensions, e.g. 250x100", NULL},
    {OPT_DENSITY + 1, "--density", "D", "the share of nonzeros (urandom, runs, blocks, rmat)",
     NULL},
    {OPT_NNZ + 1, "--nnz", "N", "how many nonzeros (urandom, runs, blocks, rmat)", NULL},
    {OPT_SEED + 1, "--seed", "N", "the seed (default 1)", NULL},
    {OPT_OUT + 1, "-o", "FILE", "the tensor ('-': Matrix Market on standard output)",
     "The note then goes to standard error."},
    {OPT_SECOND + 1, "--second", "FILE", "the partner vector of runs and blocks", NULL},
    {OPT_RUN + 1, "--run", "N", "run length (runs; default 10)", NULL},
    {OPT_BLOCK + 1, "--block", "N", "block length (blocks; default 10)", NULL},
    {OPT_RMAT_A + 1, "--rmat-a", "P", "R-MAT's top left quadrant probability (rmat)", NULL},
    {OPT_RMAT_B + 1, "--rmat-b", "P", "R-MAT's top right quadrant probability (rmat)", NULL},
    {OPT_RMAT_C + 1, "--rmat-c", "P", "R-MAT's bottom left quadrant probability (rmat)", NULL},
    {OPT_LOWER + 1, "--lower", "N", "band width below the diagonal (banded; default 1)", NULL},
    {OPT_UPPER + 1, "--upper", "N", "band width above the diagonal (banded; default 1)", NULL},
    {OPT_FORMAT + 1, "--format", "LEVELS", "level format of a SAM directory written", NULL},
    {OPT_TENSOR + 1, "--tensor", "NAME", "tensor name in a SAM directory (default B)", NULL},
    {0, NULL, NULL, NULL, NULL},
};

typedef struct gen_parsing {
    gen_args *g;
    const char *kind;
} gen_parsing;

static int gen_take(void *ctx, int id, const char *v, sam_error *err)
{
    gen_parsing *p = ctx;
    if (id == CLI_OPERAND) {
        if (p->kind)
            return error_set(err, "gen: unexpected argument '%s'", v);
        p->kind = v;
        return 0;
    }
    int o = id - 1;
    if (p->g->opt[o])
        return error_set(err, "gen: option %s given twice", gen_options[o].name);
    p->g->opt[o] = v;
    return 0;
}

static int gen_parse_kind(const char *kind, gen_args *g, sam_error *err)
{
    static const char kinds[] = "urandom, runs, blocks, rmat, banded, identity or dense";
    if (!kind)
        return error_set(err, "gen: missing KIND (%s)", kinds);
    for (g->kind = 0; g->kind < GEN_KINDS; g->kind++)
        if (!strcmp(kind, gen_kind_names[g->kind]))
            return 0;
    return error_set(err, "gen: unknown kind '%s' (%s)", kind, kinds);
}

/* The kind and the options, each given to a kind it applies to. */
static int gen_parse_options(int argc, char **argv, gen_args *g, sam_error *err)
{
    gen_parsing p = {g, NULL};
    if (options_parse(&cmd_gen_command, argc, argv, gen_take, &p, err) ||
        gen_parse_kind(p.kind, g, err))
        return -1;
    for (int o = 0; o < OPT_COUNT; o++)
        if (g->opt[o] && !(gen_options[o].kinds & (1u << g->kind)))
            return error_set(err, "gen %s: option %s does not apply", gen_kind_names[g->kind],
                             gen_options[o].name);
    return 0;
}

static int gen_int_opt(const gen_args *g, int o, int64_t fallback, int64_t *out, sam_error *err)
{
    *out = fallback;
    return g->opt[o] ? args_int64(gen_options[o].name, g->opt[o], out, err) : 0;
}

static int gen_double_opt(const gen_args *g, int o, double fallback, double *out,
                          sam_error *err)
{
    *out = fallback;
    return g->opt[o] ? args_double(gen_options[o].name, g->opt[o], out, err) : 0;
}

static int gen_check_order(const gen_args *g, sam_error *err)
{
    static const int orders[GEN_KINDS] = {
        [GEN_RUNS] = 1, [GEN_BLOCKS] = 1, [GEN_RMAT] = 2, [GEN_BANDED] = 2,
    };
    const char *kind = gen_kind_names[g->kind];
    int want = orders[g->kind];
    if (want && g->order != want)
        return error_set(err, "gen %s: --shape needs %s", kind,
                         want == 1 ? "one size (a vector)" : "two sizes (a matrix)");
    if (g->kind == GEN_IDENTITY && (g->order > 2 || g->dims[0] != g->dims[g->order - 1]))
        return error_set(err, "gen identity: --shape needs N or NxN");
    return 0;
}

static int gen_parse_count(gen_args *g, sam_error *err)
{
    const char *kind = gen_kind_names[g->kind];
    if (!(COUNTED & (1u << g->kind)))
        return 0;
    if (!g->opt[OPT_DENSITY] == !g->opt[OPT_NNZ])
        return error_set(err, "gen %s: give exactly one of --density and --nnz", kind);
    if (g->opt[OPT_NNZ]) {
        uint64_t n;
        if (args_uint64("--nnz", g->opt[OPT_NNZ], &n, err))
            return -1;
        g->nnz = (size_t)n;
        return 0;
    }
    double d;
    if (args_double("--density", g->opt[OPT_DENSITY], &d, err))
        return -1;
    return gen_nnz_for_density(g->order, g->dims, d, &g->nnz, err);
}

/* The arguments; with_out: the outputs too (-o, and --second as a file),
 * which a sweep's check leaves to the sweep. */
static int gen_parse(int argc, char **argv, int with_out, gen_args *g, sam_error *err)
{
    memset(g, 0, sizeof *g);
    if (gen_parse_options(argc, argv, g, err))
        return -1;
    const char *kind = gen_kind_names[g->kind];
    if (with_out && !g->opt[OPT_OUT])
        return error_set(err, "gen %s: missing -o FILE", kind);
    if (!with_out && g->opt[OPT_OUT])
        return error_set(err, "gen %s: -o is the sweep's to give", kind);
    if (!g->opt[OPT_SHAPE])
        return error_set(err, "gen %s: missing --shape", kind);
    const char *tensor = g->opt[OPT_TENSOR] ? g->opt[OPT_TENSOR] : "B";
    const io_file out[] = {{"-o", g->opt[OPT_OUT], tensor}, {"--second", g->opt[OPT_SECOND], "C"}};
    if (with_out && outputs_check("gen", NULL, 0, out, 2, err))
        return -1;
    g->seed = 1;
    if (args_shape("--shape", g->opt[OPT_SHAPE], &g->order, g->dims, err) ||
        gen_check_order(g, err) || gen_parse_count(g, err) ||
        (g->opt[OPT_SEED] && args_uint64("--seed", g->opt[OPT_SEED], &g->seed, err)))
        return -1;
    return 0;
}

static int gen_pair(const gen_args *g, tensor *a, tensor *b, sam_error *err)
{
    int64_t len;
    if (g->kind == GEN_RUNS)
        return gen_int_opt(g, OPT_RUN, 10, &len, err) ||
               gen_runs(a, b, g->dims[0], g->nnz, len, g->seed, err);
    return gen_int_opt(g, OPT_BLOCK, 10, &len, err) ||
           gen_blocks(a, b, g->dims[0], g->nnz, len, g->seed, err);
}

static int gen_rmat_args(const gen_args *g, tensor *t, sam_error *err)
{
    double a, b, c;
    if (gen_double_opt(g, OPT_RMAT_A, 0.57, &a, err) ||
        gen_double_opt(g, OPT_RMAT_B, 0.19, &b, err) ||
        gen_double_opt(g, OPT_RMAT_C, 0.19, &c, err))
        return -1;
    return gen_rmat(t, g->dims[0], g->dims[1], g->nnz, a, b, c, g->seed, err);
}

static int gen_banded_args(const gen_args *g, tensor *t, sam_error *err)
{
    int64_t lower, upper;
    if (gen_int_opt(g, OPT_LOWER, 1, &lower, err) || gen_int_opt(g, OPT_UPPER, 1, &upper, err))
        return -1;
    return gen_banded(t, g->dims[0], g->dims[1], lower, upper, g->seed, err);
}

/* b is generated only for runs and blocks; it stays empty otherwise. */
static int gen_run(const gen_args *g, tensor *a, tensor *b, sam_error *err)
{
    memset(b, 0, sizeof *b);
    switch (g->kind) {
    case GEN_URANDOM:
        return gen_urandom(a, g->order, g->dims, g->nnz, g->seed, err);
    case GEN_RUNS:
    case GEN_BLOCKS:
        return gen_pair(g, a, b, err) ? -1 : 0;
    case GEN_RMAT:
        return gen_rmat_args(g, a, err);
    case GEN_BANDED:
        return gen_banded_args(g, a, err);
    case GEN_IDENTITY:
        return gen_identity(a, g->dims[0], err);
    default:
        return gen_dense(a, g->order, g->dims, g->seed, err);
    }
}

static int gen_write(const char *path, const char *name, const char *format, const tensor *t,
                     sam_error *err)
{
    tensor_file f = {.path = path, .name = name, .format = format};
    if (outputs_write_tensor(&f, t, err))
        return -1;
    /* The tensor itself may be what standard output carries. */
    FILE *note = strcmp(path, "-") ? stdout : stderr;
    fprintf(note, "wrote %s: ", path);
    for (int m = 0; m < t->order; m++)
        fprintf(note, "%s%lld", m ? " x " : "", (long long)t->dims[m]);
    fprintf(note, ", %zu nonzeros\n", t->nnz);
    return 0;
}

int cmd_gen_check(int argc, char **argv, sam_error *err)
{
    gen_args g;
    return gen_parse(argc, argv, 0, &g, err);
}

int cmd_gen(int argc, char **argv)
{
    gen_args g;
    sam_error err;
    tensor a, b;
    if (gen_parse(argc, argv, 1, &g, &err) || gen_run(&g, &a, &b, &err))
        return args_fail(&err);
    /* In a SAM directory the pair are the operands B and C of a kernel. */
    int rc = gen_write(g.opt[OPT_OUT], g.opt[OPT_TENSOR], g.opt[OPT_FORMAT], &a, &err);
    if (rc == 0 && g.opt[OPT_SECOND])
        rc = gen_write(g.opt[OPT_SECOND], "C", g.opt[OPT_FORMAT], &b, &err);
    tensor_free(&a);
    tensor_free(&b);
    return rc ? args_fail(&err) : 0;
}

const cli_command cmd_gen_command = {
    .name = "gen",
    .run = cmd_gen,
    .synopsis = "KIND [--shape DIMS] [--density D | --nnz N] [--seed N] -o FILE [options]",
    .about = "Generates a tensor; the same seed gives the same bits on any machine. KIND is "
        "urandom, runs, blocks, rmat, banded, identity or dense.",
    .options = gen_cli_options,
};
