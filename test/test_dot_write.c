/* Writing SAM graphs as DOT: every graph of ../shared/sam-graphs survives
 * a write and a read unchanged, the labels and colours the writer derives
 * are Custard's own, a small built graph comes out as exact text, values
 * with quotes, backslashes and newlines read back as they were, and
 * failures leave no file behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../graph/dot_write.h"
#include "../graph/graph.h"
#include "../graph/graph_build.h"
#include "test_util.h"

static int setup(void **state)
{
    *state = test_tmpdir();
    return 0;
}

static int teardown(void **state)
{
    test_tmpdir_remove(*state);
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static void read_or_fail(const char *path, sam_graph *g)
{
    sam_error err = {{0}};
    if (graph_read_dot(path, g, &err) != 0)
        fail_msg("%s", err.msg);
}

static void write_or_fail(const sam_graph *g, const char *path)
{
    sam_error err = {{0}};
    if (graph_write_dot_file(g, path, &err) != 0)
        fail_msg("%s", err.msg);
}

/* ---- comparing two graphs --------------------------------------------- */

static void same(const char *what, const char *a, const char *b)
{
    if ((a == NULL) != (b == NULL) || (a && strcmp(a, b)))
        fail_msg("%s: '%s' became '%s'", what, a ? a : "(none)", b ? b : "(none)");
}

static void same_attrs(const char *what, const graph_attr *a, int na, const graph_attr *b, int nb)
{
    if (na != nb)
        fail_msg("%s: %d attributes became %d", what, na, nb);
    for (int i = 0; i < na; i++) {
        char ctx[200];
        snprintf(ctx, sizeof ctx, "%s, attribute %d", what, i);
        same(ctx, a[i].key, b[i].key);
        same(ctx, a[i].value, b[i].value);
    }
}

static void same_nodes(const char *path, const sam_graph *a, const sam_graph *b)
{
    assert_int_equal(a->nnodes, b->nnodes);
    for (int i = 0; i < a->nnodes; i++) {
        const graph_node *x = &a->nodes[i], *y = &b->nodes[i];
        char ctx[200];
        snprintf(ctx, sizeof ctx, "%s: node %s", path, x->id);
        same(ctx, x->id, y->id);
        same(ctx, x->type, y->type);
        same_attrs(ctx, x->attrs, x->nattrs, y->attrs, y->nattrs);
    }
}

static void same_edges(const char *path, const sam_graph *a, const sam_graph *b)
{
    assert_int_equal(a->nedges, b->nedges);
    for (int i = 0; i < a->nedges; i++) {
        const graph_edge *x = &a->edges[i], *y = &b->edges[i];
        char ctx[200];
        snprintf(ctx, sizeof ctx, "%s: edge %d", path, i);
        assert_int_equal(x->src, y->src);
        assert_int_equal(x->dst, y->dst);
        same(ctx, x->kind, y->kind);
        same(ctx, x->label, y->label);
        same(ctx, x->comment, y->comment);
        same_attrs(ctx, x->attrs, x->nattrs, y->attrs, y->nattrs);
    }
}

static void same_graph(const char *path, const sam_graph *a, const sam_graph *b)
{
    same_nodes(path, a, b);
    same_edges(path, a, b);
    assert_int_equal(a->ntensors, b->ntensors);
    for (int i = 0; i < a->ntensors; i++) {
        char fa[2 * TENSOR_MAX_ORDER + 1], fb[2 * TENSOR_MAX_ORDER + 1];
        level_format_str(&a->tensors[i].format, fa, sizeof fa);
        level_format_str(&b->tensors[i].format, fb, sizeof fb);
        same(path, a->tensors[i].name, b->tensors[i].name);
        same(path, fa, fb);
    }
    same_attrs(path, a->attrs, a->nattrs, b->attrs, b->nattrs);
}

/* ---- every shared graph, written and read back ------------------------ */

/* Read, write, read: the same graph. Writing the copy again gives the same
 * text, so the output is a fixed point. */
static void round_trip(const char *path, const char *dir)
{
    sam_graph g, back;
    read_or_fail(path, &g);
    char *once = test_path(dir, "once.gv"), *twice = test_path(dir, "twice.gv");
    write_or_fail(&g, once);
    read_or_fail(once, &back);
    same_graph(path, &g, &back);
    write_or_fail(&back, twice);
    char *t1 = test_read_file(once), *t2 = test_read_file(twice);
    assert_non_null(t1);
    assert_non_null(t2);
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
    graph_free(&back);
    graph_free(&g);
    free(once);
    free(twice);
}

static void test_shared_graphs_round_trip(void **state)
{
    char *dir = test_require_shared("sam-graphs");
    DIR *d = opendir(dir);
    assert_non_null(d);
    int done = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!ends_with(e->d_name, ".gv"))
            continue;
        char *path = test_path(dir, e->d_name);
        round_trip(path, *state);
        free(path);
        done++;
    }
    closedir(d);
    free(dir);
    print_message("note: %d shared graphs written and read back unchanged\n", done);
    assert_true(done >= 40);
}

/* Where the IR keeps the order of a node's attributes (it keeps the order
 * in which the file first declared them, which for some nodes is not the
 * order on their line), the writer gives back the very text Custard wrote. */
static void expect_same_text(const char *name, const char *dir)
{
    char *path = test_require_shared(name);
    sam_graph g;
    read_or_fail(path, &g);
    char *out = test_path(dir, "out.gv");
    write_or_fail(&g, out);
    char *want = test_read_file(path), *got = test_read_file(out);
    assert_non_null(want);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(want);
    free(got);
    free(out);
    graph_free(&g);
    free(path);
}

static void test_custard_text_reproduced(void **state)
{
    expect_same_text("sam-graphs/mat_mask_tri.gv", *state);
    expect_same_text("sam-graphs/tensor3_innerprod.gv", *state);
}

/* ---- the looks the writer derives are Custard's ----------------------- */

static const char *const presentation[] = {"comment", "label", "color", "shape", "style"};

static int is_presentation(const char *key)
{
    for (size_t i = 0; i < sizeof presentation / sizeof *presentation; i++) {
        if (!strcmp(key, presentation[i]))
            return 1;
    }
    return 0;
}

/* g without its presentation attributes, as a compiler would build it. */
static void strip(const sam_graph *g, sam_graph *bare)
{
    sam_error err = {{0}};
    memset(bare, 0, sizeof *bare);
    for (int i = 0; i < g->nnodes; i++) {
        const graph_node *n = &g->nodes[i];
        assert_int_equal(graph_add_node(bare, n->type, &err), i);
        for (int k = 0; k < n->nattrs; k++) {
            if (strcmp(n->attrs[k].key, "type") && !is_presentation(n->attrs[k].key))
                assert_int_equal(graph_node_set(bare, i, n->attrs[k].key, n->attrs[k].value, &err), 0);
        }
    }
}

/* The entries of a node comment, sorted: the IR keeps attributes in the
 * order the file declared them, which is not always the comment's. */
static int by_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void comment_entries(const char *comment, char *buf, size_t n)
{
    char copy[512], *parts[64];
    int k = 0;
    snprintf(copy, sizeof copy, "%s", comment);
    for (char *p = strtok(copy, ","); p && k < 64; p = strtok(NULL, ","))
        parts[k++] = p;
    qsort(parts, (size_t)k, sizeof *parts, by_str);
    buf[0] = '\0';
    for (int i = 0; i < k; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s;", parts[i]);
}

/* What was edited by hand in the shared files, and is not checked: the
 * labels "FiberWrite i: T0" without the format and "CrdHold i,k" on a node
 * holding i over vals, and the comment of a vectorreducer that says index=
 * where its attribute is accum_index=. */
enum { SKIP_LABEL = 1, SKIP_COMMENT = 2 };

static int hand_edited(const graph_node *n)
{
    const char *tensor = graph_node_attr(n, "tensor");
    const char *inner = graph_node_attr(n, "inner");
    if (!strcmp(n->type, "fiberwrite") && tensor && !strcmp(tensor, "T"))
        return SKIP_LABEL;
    if (!strcmp(n->type, "crdhold") && inner && !strcmp(inner, "vals"))
        return SKIP_LABEL;
    return !strcmp(n->type, "vectorreducer") ? SKIP_COMMENT : 0;
}

static void check_looks(const sam_graph *g, const sam_graph *back, const char *path)
{
    for (int i = 0; i < g->nnodes; i++) {
        const graph_node *want = &g->nodes[i], *got = &back->nodes[i];
        int skip = hand_edited(want);
        char ctx[200], ew[600], eg[600];
        snprintf(ctx, sizeof ctx, "%s: node %s", path, want->id);
        for (size_t k = 1; k < sizeof presentation / sizeof *presentation; k++) {
            if (!(skip & SKIP_LABEL) || strcmp(presentation[k], "label"))
                same(ctx, graph_node_attr(want, presentation[k]), graph_node_attr(got, presentation[k]));
        }
        if (skip & SKIP_COMMENT)
            continue;
        comment_entries(graph_node_attr(want, "comment"), ew, sizeof ew);
        comment_entries(graph_node_attr(got, "comment"), eg, sizeof eg);
        same(ctx, ew, eg);
    }
}

static void test_derived_looks_match_custard(void **state)
{
    char *dir = test_require_shared("sam-graphs");
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *out = test_path(*state, "bare.gv");
    int done = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!ends_with(e->d_name, ".gv"))
            continue;
        char *path = test_path(dir, e->d_name);
        sam_graph g, bare, back;
        read_or_fail(path, &g);
        strip(&g, &bare);
        write_or_fail(&bare, out);
        read_or_fail(out, &back);
        check_looks(&g, &back, path);
        graph_free(&back);
        graph_free(&bare);
        graph_free(&g);
        free(path);
        done++;
    }
    closedir(d);
    free(out);
    free(dir);
    assert_true(done >= 40);
}

/* ---- a small built graph, as exact text ------------------------------- */

/* he said "hi" C:\sam\\dir : a quote, a lone backslash and a pair. */
#define NOTE "he said \"hi\" C:\\sam\\\\dir"

static const char small_text[] =
    "digraph SAM {\n"
    "    comment=\"x=s0,B=ss01\"\n"
    "    note=\"he said \\\"hi\\\" C:\\sam\\\\dir\"\n"
    "    0 [comment=\"type=fiberlookup,index=i,tensor=B,mode=0,format=compressed,src=true,root=true\" "
    "label=\"FiberLookup i: B0\\ncompressed\" color=green4 shape=box style=filled type=\"fiberlookup\" "
    "index=\"i\" tensor=\"B\" mode=\"0\" format=\"compressed\" src=\"true\" root=\"true\"]\n"
    "    1 [comment=\"type=broadcast\" shape=point style=invis type=\"broadcast\"]\n"
    "    2 [comment=\"type=arrayvals,tensor=B\" label=\"Array Vals: B\" color=green2 shape=box "
    "style=filled type=\"arrayvals\" tensor=\"B\"]\n"
    "    3 [comment=\"type=fiberwrite,mode=vals,tensor=x,size=1*B0_dim,sink=true\" "
    "label=\"FiberWrite Vals: x\" color=green3 shape=box style=filled type=\"fiberwrite\" "
    "mode=\"vals\" tensor=\"x\" size=\"1*B0_dim\" sink=\"true\"]\n"
    "    0 -> 1 [label=\"crd\" style=dashed type=\"crd\"]\n"
    "    0 -> 2 [label=\"ref_out-B\" style=bold type=\"ref\" comment=\"out-B\"]\n"
    "    2 -> 3 [label=\"val\" type=\"val\"]\n"
    "}\n";

static void add_tensor(sam_graph *g, const char *name, const char *format)
{
    sam_error err = {{0}};
    level_format f;
    assert_int_equal(level_format_parse(format, &f, &err), 0);
    assert_int_equal(graph_add_tensor(g, name, &f, &err), 0);
}

/* Node of type with attributes given as "key", "value", ..., NULL. */
static int add_node(sam_graph *g, const char *type, ...)
{
    sam_error err = {{0}};
    int n = graph_add_node(g, type, &err);
    assert_true(n >= 0);
    va_list ap;
    va_start(ap, type);
    for (const char *key; (key = va_arg(ap, const char *));) {
        const char *value = va_arg(ap, const char *);
        assert_int_equal(graph_node_set(g, n, key, value, &err), 0);
    }
    va_end(ap);
    return n;
}

static void build_small(sam_graph *g)
{
    sam_error err = {{0}};
    memset(g, 0, sizeof *g);
    add_tensor(g, "x", "s0");
    add_tensor(g, "B", "ss01");
    assert_int_equal(graph_set_attr(g, "note", NOTE, &err), 0);
    int fl = add_node(g, "fiberlookup", "index", "i", "tensor", "B", "mode", "0", "format",
                      "compressed", "src", "true", "root", "true", NULL);
    int bc = add_node(g, "broadcast", NULL);
    int av = add_node(g, "arrayvals", "tensor", "B", NULL);
    int fw = add_node(g, "fiberwrite", "mode", "vals", "tensor", "x", "size", "1*B0_dim", "sink",
                      "true", NULL);
    assert_int_equal(graph_add_edge(g, fl, bc, "crd", "crd", NULL, &err), 0);
    assert_int_equal(graph_add_edge(g, fl, av, "ref", "ref_out-B", "out-B", &err), 1);
    assert_int_equal(graph_add_edge(g, av, fw, "val", "val", NULL, &err), 2);
}

static void test_small_graph_exact(void **state)
{
    sam_graph g, back;
    build_small(&g);
    char *path = test_graph_path(*state, "small");
    write_or_fail(&g, path);
    char *text = test_read_file(path);
    assert_non_null(text);
    assert_string_equal(text, small_text);
    read_or_fail(path, &back);
    assert_int_equal(back.nattrs, 1);
    assert_string_equal(graph_attr_get(&back, "note"), NOTE);
    assert_string_equal(graph_node_attr(&back.nodes[0], "label"), "FiberLookup i: B0\\ncompressed");
    assert_string_equal(back.edges[1].comment, "out-B");
    assert_string_equal(back.edges[2].comment, "");
    assert_int_equal(back.ntensors, 2);
    /* The same text through a stream. */
    char *streamed;
    size_t len;
    FILE *m = open_memstream(&streamed, &len);
    assert_non_null(m);
    assert_int_equal(graph_write_dot(&g, m), 0);
    fclose(m);
    assert_string_equal(streamed, small_text);
    free(streamed);
    graph_free(&back);
    graph_free(&g);
    free(text);
    free(path);
}

/* "-" is standard output. */
static void test_write_to_stdout(void **state)
{
    sam_graph g;
    build_small(&g);
    char *capture = test_path(*state, "stdout.txt");
    fflush(stdout);
    int saved = dup(1), fd = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    sam_error err = {{0}};
    int rc = graph_write_dot_file(&g, "-", &err);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_int_equal(rc, 0);
    char *text = test_read_file(capture);
    assert_string_equal(text, small_text);
    free(text);
    free(capture);
    graph_free(&g);
}

/* ---- quoting and looks beyond Custard's graphs ------------------------ */

static void test_odd_names_and_values(void **state)
{
    sam_graph g, back;
    sam_error err = {{0}};
    memset(&g, 0, sizeof g);
    /* A type Custard does not make, names DOT cannot take bare, a raw
     * newline, a backslash pair before a quote, a keyword as a value. */
    int a = add_node(&g, "mystery", "odd key", "two\nlines", "q", "\\\\\"x\\y", "kw", "node", NULL);
    int b = add_node(&g, "repsiggen", "index", "i", NULL);
    free(g.nodes[a].id);
    g.nodes[a].id = strdup("node a");
    assert_int_equal(graph_add_edge(&g, a, b, "repsig", "repsig \"x\"", "c\\d", &err), 0);
    assert_int_equal(graph_set_attr(&g, "comment", "ignored: the tensors make it", &err), 0);
    char *path = test_graph_path(*state, "odd");
    write_or_fail(&g, path);
    char *text = test_read_file(path);
    assert_non_null(strstr(text, "    \"node a\" [comment=\"type=mystery,odd key=two\nlines,q=\\\\\\\"x\\y,"
                                 "kw=node\" label=\"mystery\" color=gray shape=box style=filled "
                                 "type=\"mystery\" \"odd key\"=\"two\nlines\" q=\"\\\\\\\"x\\y\" "
                                 "kw=\"node\"]\n"));
    assert_non_null(strstr(text, "    \"node a\" -> 1 [label=\"repsig \\\"x\\\"\" style=dotted "
                                 "type=\"repsig\" comment=\"c\\d\"]\n"));
    assert_null(strstr(text, "ignored"));
    read_or_fail(path, &back);
    assert_string_equal(back.nodes[0].id, "node a");
    assert_string_equal(graph_node_attr(&back.nodes[0], "odd key"), "two\nlines");
    assert_string_equal(graph_node_attr(&back.nodes[0], "q"), "\\\\\"x\\y");
    assert_string_equal(graph_node_attr(&back.nodes[0], "kw"), "node");
    assert_string_equal(graph_node_attr(&back.nodes[1], "label"), "RepeatSignalGenerator i");
    assert_string_equal(graph_node_attr(&back.nodes[1], "color"), "cyan3");
    assert_string_equal(back.edges[0].label, "repsig \"x\"");
    assert_string_equal(back.edges[0].comment, "c\\d");
    assert_int_equal(back.nattrs, 0);
    assert_int_equal(back.ntensors, 0);
    graph_free(&back);
    graph_free(&g);
    free(text);
    free(path);
}

/* The bitvector blocks, which Custard does not make, drawn as its
 * others: the format on a second line, the reverse converter named, the
 * word streams dashed as coordinates. */
static void test_bitvector_looks(void **state)
{
    sam_graph g, back;
    sam_error err = {{0}};
    memset(&g, 0, sizeof g);
    int x = add_node(&g, "intersect", "index", "i", "format", "bitvector", NULL);
    int u = add_node(&g, "union", "index", "j", "format", "bitvector", NULL);
    int c = add_node(&g, "bv", "to", "crd", NULL);
    int v = add_node(&g, "bv", "size", "130", NULL);
    int w = add_node(&g, "fiberwrite", "index", "i", "tensor", "X", "mode", "0", "format",
                     "bitvector", NULL);
    assert_int_equal(graph_add_edge(&g, v, x, "bv", "bv_in-B", "", &err), 0);
    char *path = test_graph_path(*state, "bitvector");
    write_or_fail(&g, path);
    read_or_fail(path, &back);
    assert_string_equal(graph_node_attr(&back.nodes[x], "label"), "intersect i\\nbitvector");
    assert_string_equal(graph_node_attr(&back.nodes[u], "label"), "union j\\nbitvector");
    assert_string_equal(graph_node_attr(&back.nodes[c], "label"), "BV to Crd");
    assert_string_equal(graph_node_attr(&back.nodes[v], "label"), "BV");
    assert_string_equal(graph_node_attr(&back.nodes[w], "label"), "FiberWrite i: X0\\nbitvector");
    assert_string_equal(graph_edge_style(&back.edges[0]), "dashed");
    graph_free(&back);
    graph_free(&g);
    free(path);
}

/* ---- failures --------------------------------------------------------- */

/* The directory holds only what it held before. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void expect_write_error(const sam_graph *g, const char *path, const char *want)
{
    sam_error err = {{0}};
    assert_int_equal(graph_write_dot_file(g, path, &err), -1);
    assert_true(strncmp(err.msg, path, strlen(path)) == 0);
    assert_null(strchr(err.msg, '\n'));
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
}

static void test_missing_directory(void **state)
{
    sam_graph g;
    build_small(&g);
    char *path = test_path(*state, "absent/out.gv");
    expect_write_error(&g, path, "No such file or directory");
    assert_false(test_exists(path));
    assert_int_equal(entries(*state), 0);
    free(path);
    graph_free(&g);
}

/* The rename fails when a directory has the name: the temporary file goes. */
static void test_failed_rename_leaves_nothing(void **state)
{
    sam_graph g;
    build_small(&g);
    char *path = test_path(*state, "taken.gv");
    assert_int_equal(mkdir(path, 0700), 0);
    expect_write_error(&g, path, "cannot rename into place");
    assert_int_equal(entries(*state), 1);
    free(path);
    graph_free(&g);
}

/* cgraph cannot read back a value ending in a single backslash. */
static void test_unwritable_value(void **state)
{
    sam_graph g;
    sam_error err = {{0}};
    build_small(&g);
    assert_int_equal(graph_node_set(&g, 2, "dir", "C:\\sam\\", &err), 0);
    char *path = test_path(*state, "bad.gv");
    expect_write_error(&g, path, ": node 2: a value has an odd run of backslashes");
    assert_false(test_exists(path));
    assert_int_equal(entries(*state), 0);
    FILE *devnull = fopen("/dev/null", "w");
    assert_non_null(devnull);
    errno = 0;
    assert_int_equal(graph_write_dot(&g, devnull), -1);
    assert_int_equal(errno, EINVAL);
    fclose(devnull);
    free(path);
    graph_free(&g);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_shared_graphs_round_trip),
        T(test_custard_text_reproduced),
        T(test_derived_looks_match_custard),
        T(test_small_graph_exact),
        T(test_write_to_stdout),
        T(test_odd_names_and_values),
        T(test_bitvector_looks),
        T(test_missing_directory),
        T(test_failed_rename_leaves_nothing),
        T(test_unwritable_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
