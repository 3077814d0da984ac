/* The --hw reader: the input is the file. When it reads, it is applied to
 * a tiled matrix product of small fixed operands, run in-process as
 * `samsim run --hw` runs it (the graph compiled once, the run bounded to
 * a few thousand cycles): two tiling levels when the description has an
 * LLB, one without. A run that completes must give the product, and no
 * buffer may have held more than its capacity. */
#include <stdlib.h>
#include <string.h>

#include "../../run/tiled.h"
#include "../../custard/compile.h"
#include "fuzz_input.h"

#define N 6
#define FUZZ_HW_CYCLES 20000

static const char expression[] = "X(i,j)=B(i,k)*C(k,j)";
static const char one_level[] = "split(i,i1,i0,2) split(k,k1,k0,3) split(j,j1,j0,2)";
static const char two_levels[] = "split(i,i1,i0,4) split(k,k1,k0,4) split(j,j1,j0,4) "
                                 "split(i0,i01,i00,2) split(k0,k01,k00,2) split(j0,j01,j00,2)";

/* The graph and its operands, made once: the run only reads them. */
typedef struct fixture {
    sam_graph g;
    tensor operands[3];             /* per graph tensor, the result's unused */
    double want[N][N];              /* B C */
} fixture;

/* B and C: a few entries each, some rows and columns empty. */
static void fill(tensor *t, int which)
{
    sam_error err;
    if (tensor_init(t, 2, (const int64_t[]){N, N}, &err))
        abort();
    for (int64_t r = 0; r < N; r++)
        for (int64_t c = 0; c < N; c++)
            if ((r * 7 + c * (which ? 5 : 3)) % 4 == 0 && r != 2 + which)
                if (tensor_append(t, (const int64_t[]){r, c}, (double)(1 + r + which * c), &err))
                    abort();
}

static const fixture *fixture_get(void)
{
    static fixture f;
    static int ready;
    if (ready)
        return &f;
    static const char *const formats[] = {"X:ss", "B:ss", "C:ss"};
    compile_args a = {.expression = expression, .formats = formats, .nformats = 3,
                      .schedule = "reorder(i,k,j)"};
    sam_error err;
    if (custard_compile(&a, &f.g, &err) || f.g.ntensors != 3)
        abort();
    for (int k = 1; k < 3; k++)
        fill(&f.operands[k], strcmp(f.g.tensors[k].name, "B") != 0);
    const tensor *b = &f.operands[strcmp(f.g.tensors[1].name, "B") ? 2 : 1];
    const tensor *c = &f.operands[strcmp(f.g.tensors[1].name, "B") ? 1 : 2];
    for (size_t x = 0; x < b->nnz; x++)
        for (size_t y = 0; y < c->nnz; y++)
            if (b->crd[1][x] == c->crd[0][y])
                f.want[b->crd[0][x]][c->crd[1][y]] += b->vals[x] * c->vals[y];
    ready = 1;
    return &f;
}

/* The result is B C, entry for entry. */
static void check_product(const fixture *f, const tensor *x)
{
    size_t nonzero = 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            nonzero += f->want[r][c] != 0;
    if (x->nnz != nonzero)
        abort();
    for (size_t e = 0; e < x->nnz; e++)
        if (x->vals[e] != f->want[x->crd[0][e]][x->crd[1][e]])
            abort();
}

/* No buffer held more than its capacity, in all or of one tensor. */
static void check_capacity(const mem_model *m)
{
    for (int l = 0; l < m->nlevels; l++) {
        hw_memory_id at = mem_level_buffer(m, l);
        double cap = m->hw.mem[at].capacity;
        if (m->usage[at].peak > cap)
            abort();
        for (int t = 0; t <= m->ntensors; t++)
            if (m->traffic[t].peak[at] > cap)
                abort();
    }
}

static void run_with(const char *path)
{
    const fixture *f = fixture_get();
    hw_desc hw;
    sam_error err;
    hw_defaults(&hw);
    if (hw_read(path, &hw, &err))
        return;
    tiled_request r = {.tiling = hw.mem[HW_LLB].capacity > 0 ? two_levels : one_level,
                       .expr = expression, .engine = ENGINE_EVENT,
                       .max_cycles = FUZZ_HW_CYCLES, .sim = {.depth = 0, .latency = 1},
                       .hw = &hw, .stats = 1};
    tiled_outcome out;
    tensor x;
    int rc = run_tiled(&f->g, f->operands, &r, &out, &x, &err);
    if (rc == 0) {
        check_product(f, &x);
        check_capacity(out.memory);
        tensor_free(&x);
    }
    if (rc >= 0)
        tiled_outcome_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_with_file("in.hw", data, size, run_with);
    return 0;
}
