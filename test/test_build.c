/* Building a simulation from a graph: broadcast nodes, which only fan a
 * stream out, resolve to the block output they pass on however long their
 * chains, and malformed broadcasts are refused with the node named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* x(i) = b(i) with b's coordinates passed through a chain of n broadcast
 * nodes, of which every n/12th also feeds a writer of its own tensor Yk
 * (a stream takes at most 16 readers). */
static char *chain_graph(int n)
{
    size_t size = 4096 + (size_t)n * 220;
    char *g = malloc(size);
    int len = snprintf(g, size, "digraph SAM {\n comment=\"x=s0,b=s0\"\n"
                       " s [type=fiberlookup index=i tensor=b mode=0 format=compressed "
                       "src=true root=true]\n"
                       " w [type=fiberwrite index=i tensor=x mode=0 format=compressed sink=true]\n"
                       " a [type=arrayvals tensor=b]\n"
                       " v [type=fiberwrite mode=vals tensor=x sink=true]\n"
                       " s -> a [type=ref]\n a -> v [type=val]\n s -> c0 [type=crd]\n");
    for (int k = 0; k < n; k++) {
        len += snprintf(g + len, size - (size_t)len, " c%d [type=broadcast]\n", k);
        if (k % (n / 12) == 0)
            len += snprintf(g + len, size - (size_t)len,
                            " y%d [type=fiberwrite index=i tensor=Y%d mode=0 format=compressed "
                            "sink=true]\n c%d -> y%d [type=crd]\n", k, k, k, k);
        if (k + 1 < n)
            len += snprintf(g + len, size - (size_t)len, " c%d -> c%d [type=crd]\n", k, k + 1);
    }
    snprintf(g + len, size - (size_t)len, " c%d -> w [type=crd]\n}\n", n - 1);
    return g;
}

static void test_long_broadcast_chain(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *text = chain_graph(3000);
    char *graph = test_write_file(dir, "chain.gv", text);
    char *b = test_write_file(dir, "b.tns", "# shape: 9\n2 1.5\n5 -2\n9 4\n");
    char *x = test_path(dir, "x.tns"), bind[4200], *out = NULL, *err = NULL;
    snprintf(bind, sizeof bind, "b=%s", b);
    int rc = test_run_samsim(&out, &err, "run", graph, "-t", bind, "-o", x, "--check", "--expr",
                             "x(i)=b(i)", NULL);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, err);
    assert_non_null(strstr(out, "check: pass"));
    char *result = test_read_file(x);
    assert_non_null(strstr(result, "2 1.5\n5 -2.0\n9 4.0\n"));
    free(result), free(out), free(err), free(text), free(graph), free(b), free(x);
    test_tmpdir_remove(dir);
}

/* Runs graph text and expects exit 1 with message in the error. */
static void expect_refused(const char *text, const char *message)
{
    char *dir = test_tmpdir();
    char *graph = test_write_file(dir, "g.gv", text);
    char *b = test_write_file(dir, "b.tns", "# shape: 3\n1 1.0\n");
    char bind[4200], *err = NULL;
    snprintf(bind, sizeof bind, "b=%s", b);
    int rc = test_run_samsim(NULL, &err, "run", graph, "-t", bind, NULL);
    if (rc != 1 || !strstr(err, message))
        fail_msg("exit %d, wanted 1 with '%s': %s", rc, message, err);
    free(err), free(graph), free(b);
    test_tmpdir_remove(dir);
}

#define HEAD                                                                                   \
    "digraph SAM {\n comment=\"x=s0,b=s0\"\n"                                                  \
    " s [type=fiberlookup index=i tensor=b mode=0 format=compressed src=true root=true]\n"     \
    " w [type=fiberwrite index=i tensor=x mode=0 format=compressed sink=true]\n"               \
    " a [type=arrayvals tensor=b]\n v [type=fiberwrite mode=vals tensor=x sink=true]\n"         \
    " s -> a [type=ref]\n a -> v [type=val]\n"

static void test_malformed_broadcasts(void **state)
{
    (void)state;
    expect_refused(HEAD " p [type=broadcast]\n q [type=broadcast]\n p -> q [type=crd]\n"
                        " q -> p [type=crd]\n q -> w [type=crd]\n}\n",
                   "broadcast nodes form a cycle");
    expect_refused(HEAD " p [type=broadcast]\n p -> w [type=crd]\n}\n",
                   "node p (broadcast): no input");
    expect_refused(HEAD " p [type=broadcast]\n s -> p [type=crd]\n s -> p [type=ref]\n"
                        " p -> w [type=crd]\n}\n",
                   "node p (broadcast): more than one input");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_broadcast_chain),
        cmocka_unit_test(test_malformed_broadcasts),
    };
    return cmocka_run_group_tests_name("build", tests, NULL, NULL);
}
