/* The reference simulator's cycle counts, pinned: every count of
 * ../shared/docs/REFERENCE-CYCLES.md that samsim's default timing
 * reproduces today (bcsstm02), and the end-to-end counts of SAM-BLOCKS.md
 * section 7 (the 4x4 matrix of its section 4.2), asserted exactly under
 * every engine, on the reference graph and on samsim's own compilation of
 * the kernel's Custard arguments (kernels.tsv). A timing change that moves
 * any of them fails here. The section 7 counts need no ../shared: the
 * compiled graphs carry them when the reference graphs are absent.
 *
 * mat_elemadd3's 278 comes from the reference test's own wiring, binary
 * unions in a tree, which test/data/mat_elemadd3_hand.gv draws (the DOT
 * graph's one three-way union takes 274). mat_sddmm's 17,042 likewise
 * comes from its test's wiring, test/data/mat_sddmm_hand.gv: a locator
 * dataflow with K = 256, coordinates used as references into dense C and
 * D holding 0, 1, 2, ... (the DOT graph takes 4,509). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define MAX_WORDS 32

typedef struct pinned {
    const char *kernel;     /* the graph in ../shared/sam-graphs */
    const char *compile;    /* its Custard arguments: the expression, then -f and -s */
    const char *operands;   /* run arguments; {T} is the test's directory, {S} ../shared */
    long long cycles;
} pinned;

/* SAM-BLOCKS.md 7.1: B of section 4.2, C = shift(B) (transposed for the
 * products), c = [1,0,1,1], b = [1,0,1,0], d = [1,1,0,0]. */
static const pinned section7[] = {
    {"mat_identity", "X(i,j)=B(i,j) -f=X:ss -f=B:ss", "-t B={T}/B.mtx", 12},
    {"mat_elemadd", "X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ss -f=C:ss", "-t B={T}/B.mtx --shift", 21},
    {"matmul_kij", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)",
     "-t B={T}/B.mtx --shift", 34},
    {"matmul_ikj", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)",
     "-t B={T}/B.mtx --shift", 34},
    {"mat_vecmul_ji", "x(i)=B(i,j)*c(j) -f=x:s -f=B:ss:1,0 -f=c:s -s=reorder(j,i)",
     "-t B={T}/B.mtx -t c={T}/c.tns", 22},
    {"mat_residual", "x(i)=b(i)-C(i,j)*d(j) -f=x:s -f=C:ss -f=b:s -f=d:s",
     "-t C={T}/B.mtx -t b={T}/b.tns -t d={T}/d.tns", 28},
};

/* REFERENCE-CYCLES.md, bcsstm02: the matrix itself, or the reference
 * tools' folders. The SAM scripts wrote the folders' vectors as vectors of
 * length 1 (one entry at 0, value 1); the same entry in a vector of the
 * matrix's length gives the same token streams and the reference's count
 * without a shape mismatch, which samsim refuses. mat_mattransmul's folder
 * lacks the scalars b and e, whose values change no cycle. The residual
 * and mattransmul rows are hand-wired in the reference's tests as their
 * _HAND graphs are drawn, which take the same cycles as the plain ones. */
#define SF "{S}/data/sam-formatted/bcsstm02/"
static const pinned bcsstm02[] = {
    {"mat_identity", "X(i,j)=B(i,j) -f=X:ss -f=B:ss", "-t B={S}/data/suitesparse/bcsstm02.mtx",
     136},
    {"mat_elemmul", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss", "--data " SF "mat_elemmul",
     207},
    {"mat_elemadd", "X(i,j)=B(i,j)+C(i,j) -f=X:ss -f=B:ss -f=C:ss", "--data " SF "mat_elemadd",
     207},
    {"mat_vecmul_ij", "x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:s",
     "--data " SF "mat_vecmul -t c={T}/c66.tns", 208},
    {"matmul_ikj", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)",
     "--data " SF "matmul_ikj", 4439},
    {"matmul_ijk", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss:1,0 -s=reorder(i,j,k)",
     "--data " SF "matmul_ijk", 13016},
    {"matmul_kij", "X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)",
     "--data " SF "matmul_kij", 278},
    {"mat_residual", "x(i)=b(i)-C(i,j)*d(j) -f=x:s -f=C:ss -f=b:s -f=d:s",
     "--data " SF "mat_residual -t b={T}/c66.tns -t d={T}/c66.tns", 211},
    {"mat_residual_HAND", "x(i)=b(i)-C(i,j)*d(j) -f=x:s -f=C:ss -f=b:s -f=d:s",
     "--data " SF "mat_residual -t b={T}/c66.tns -t d={T}/c66.tns", 211},
    {"mat_mattransmul", "x(i)=b*C(j,i)*d(j)+e*f(i) -f=x:s -f=C:ss:1,0 -f=d:s -f=f:s",
     "--data " SF "mat_mattransmul -t b=2 -t e=3 -t d={T}/c66.tns -t f={T}/c66.tns", 214},
    {"mat_mattransmul_HAND", "x(i)=b*C(j,i)*d(j)+e*f(i) -f=x:s -f=C:ss:1,0 -f=d:s -f=f:s",
     "--data " SF "mat_mattransmul -t b=2 -t e=3 -t d={T}/c66.tns -t f={T}/c66.tns", 214},
};

/* text split at blanks into words, each with {T} and {S} replaced;
 * returns how many (words and *buf are malloc'd, one allocation). */
static int expand(const char *text, const char *tmp, const char *shared, char **words,
                  char **buf)
{
    size_t size = 8 * strlen(text) + 4096;
    char *out = *buf = malloc(size), *w = out;
    int n = 0;
    for (const char *p = text; *p;) {
        p += strspn(p, " ");
        if (!*p)
            break;
        words[n++] = w;
        for (; *p && *p != ' '; p++) {
            const char *sub = !strncmp(p, "{T}", 3) ? tmp : !strncmp(p, "{S}", 3) ? shared : NULL;
            if (sub) {
                w += sprintf(w, "%s", sub);
                p += 2;
            } else {
                *w++ = *p;
            }
        }
        *w++ = '\0';
    }
    return n;
}

/* Runs graph with the operands under every engine; returns the cycles. */
static long long run_pinned(const char *label, const char *graph, const pinned *k,
                            const char *dir, const char *shared)
{
    char *words[MAX_WORDS], *buf;
    expand(k->compile, dir, shared, words, &buf);
    const char *argv[MAX_WORDS + 8] = {"run", graph, "--expr", words[0]};
    char *ops[MAX_WORDS], *opbuf;
    int n = 4, nops = expand(k->operands, dir, shared, ops, &opbuf);
    for (int i = 0; i < nops; i++)
        argv[n++] = ops[i];
    argv[n] = NULL;
    long long cycles = test_run_engines(label, dir, argv);
    free(buf), free(opbuf);
    return cycles;
}

static char *compile_kernel(const pinned *k, const char *dir)
{
    char *words[MAX_WORDS], *buf, file[96];
    int n = expand(k->compile, dir, "", words, &buf);
    snprintf(file, sizeof file, "%s.gv", k->kernel);
    char *graph = test_path(dir, file);
    const char *argv[MAX_WORDS + 4] = {"compile"};
    for (int i = 0; i < n; i++)
        argv[1 + i] = words[i];
    argv[n + 1] = "-o", argv[n + 2] = graph, argv[n + 3] = NULL;
    char *err = NULL;
    if (test_run_samsim_argv(NULL, &err, argv))
        fail_msg("compile %s: %s", k->kernel, err);
    free(err), free(buf);
    return graph;
}

/* Each kernel on the reference graph (when ../shared is there) and on
 * its compilation must take exactly the reference's cycles. */
static void check_all(const pinned *table, size_t n, const char *dir, const char *shared)
{
    for (size_t i = 0; i < n; i++) {
        const pinned *k = &table[i];
        char label[160];
        if (shared) {
            char file[96];
            snprintf(file, sizeof file, "sam-graphs/%s.gv", k->kernel);
            char *graph = test_path(shared, file);
            snprintf(label, sizeof label, "%s (reference graph)", k->kernel);
            long long got = run_pinned(label, graph, k, dir, shared);
            if (got != k->cycles)
                fail_msg("%s: %lld cycles, the reference takes %lld", label, got, k->cycles);
            free(graph);
        }
        char *graph = compile_kernel(k, dir);
        snprintf(label, sizeof label, "%s (compiled)", k->kernel);
        long long got = run_pinned(label, graph, k, dir, shared ? shared : "");
        if (got != k->cycles)
            fail_msg("%s: %lld cycles, the reference takes %lld", label, got, k->cycles);
        free(graph);
    }
}

static void test_section7_counts(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *files[] = {
        test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 5\n"
                                      "1 1 1\n1 3 2\n2 2 3\n4 1 4\n4 4 5\n"),
        test_write_file(dir, "c.tns", "# shape: 4\n1 1\n3 1\n4 1\n"),
        test_write_file(dir, "b.tns", "# shape: 4\n1 1\n3 1\n"),
        test_write_file(dir, "d.tns", "# shape: 4\n1 1\n2 1\n"),
    };
    check_all(section7, sizeof section7 / sizeof *section7, dir, test_shared_dir());
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        free(files[i]);
    test_tmpdir_remove(dir);
}

/* The reference's hand wiring of mat_elemadd3, as a graph of the suite. */
static void test_elemadd3_hand_wired(void **state)
{
    (void)state;
    char *data = test_require_shared("data/sam-formatted/bcsstm02/mat_elemadd3");
    char *dir = test_tmpdir();
    const char *argv[] = {"run", "test/data/mat_elemadd3_hand.gv", "--data", data, "--expr",
                          "X(i,j)=B(i,j)+C(i,j)+D(i,j)", NULL};
    long long got = test_run_engines("mat_elemadd3 (hand-wired)", dir, argv);
    if (got != 278)
        fail_msg("mat_elemadd3 (hand-wired): %lld cycles, the reference takes 278", got);
    free(data);
    test_tmpdir_remove(dir);
}

/* Dense C and D of 66 rows and K = 256 columns holding 0, 1, 2, ... in
 * row order, as the reference's test fills them, at path. */
static void write_arange(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int r = 0; r < 66; r++)
        for (int k = 0; k < 256; k++)
            fprintf(f, "%d %d %d\n", r + 1, k + 1, r * 256 + k);
    assert_int_equal(fclose(f), 0);
}

/* The reference's locator wiring of mat_sddmm, as a graph of the suite. */
static void test_sddmm_hand_wired(void **state)
{
    (void)state;
    char *data = test_require_shared("data/sam-formatted/bcsstm02/mat_sddmm");
    char *dir = test_tmpdir(), *c = test_path(dir, "C.tns"), *d = test_path(dir, "D.tns");
    write_arange(c);
    write_arange(d);
    char tc[4200], td[4200];
    snprintf(tc, sizeof tc, "C=%s", c);
    snprintf(td, sizeof td, "D=%s", d);
    const char *argv[] = {"run", "test/data/mat_sddmm_hand.gv", "--data", data, "-t", tc, "-t",
                          td, "--expr", "X(i,j)=B(i,j)*C(i,k)*D(j,k)", NULL};
    long long got = test_run_engines("mat_sddmm (hand-wired)", dir, argv);
    if (got != 17042)
        fail_msg("mat_sddmm (hand-wired): %lld cycles, the reference takes 17042", got);
    free(data), free(c), free(d);
    test_tmpdir_remove(dir);
}

static void test_bcsstm02_counts(void **state)
{
    (void)state;
    char *data = test_require_shared("data/sam-formatted/bcsstm02");
    char *dir = test_tmpdir();
    char *c = test_write_file(dir, "c66.tns", "# shape: 66\n1 1\n");
    check_all(bcsstm02, sizeof bcsstm02 / sizeof *bcsstm02, dir, test_shared_dir());
    free(c), free(data);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section7_counts),
        cmocka_unit_test(test_bcsstm02_counts),
        cmocka_unit_test(test_elemadd3_hand_wired),
        cmocka_unit_test(test_sddmm_hand_wired),
    };
    return cmocka_run_group_tests_name("reference cycles", tests, NULL, NULL);
}
