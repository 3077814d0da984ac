/* Reading SAM graphs from DOT: every graph of ../shared/sam-graphs loads
 * with counts checked against the text of the file, a hand-written graph
 * pins down the corner cases, and bad files give one-line errors naming
 * the file without printing anything. */
#include <dirent.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../graph/graph.h"
#include "test_util.h"

/* ---- independent facts about a .gv file, from its text ---------------- */

/* Distinct node ids on lines "  ID [": a file may declare a node twice
 * (vec_ds_compression.gv does), and DOT merges the two. */
static int count_declared_nodes(const char *text)
{
    regex_t re;
    assert_int_equal(regcomp(&re, "^[[:space:]]*([[:alnum:]_]+) \\[", REG_EXTENDED | REG_NEWLINE), 0);
    char seen[512][32];
    int n = 0;
    regmatch_t m[2];
    for (const char *p = text; regexec(&re, p, 2, m, p == text ? 0 : REG_NOTBOL) == 0; p += m[0].rm_eo) {
        char id[32];
        snprintf(id, sizeof id, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), p + m[1].rm_so);
        int dup = 0;
        for (int i = 0; i < n; i++)
            dup |= !strcmp(seen[i], id);
        if (!dup) {
            assert_true(n < 512);
            strcpy(seen[n++], id);
        }
    }
    regfree(&re);
    return n;
}

static int count_edge_lines(const char *text)
{
    int n = 0;
    for (const char *p = strstr(text, " -> "); p; p = strstr(p, " -> ")) {
        n++;
        p = strchr(p, '\n');
        if (!p)
            break;
    }
    return n;
}

/* The entries of the graph comment, the line `comment="..."` without an
 * opening bracket before it, compared with what was read. */
static void check_tensors_match_comment(const char *text, const sam_graph *g)
{
    const char *line = strstr(text, "\n    comment=\"");
    assert_non_null(line);
    const char *p = strchr(line, '"') + 1;
    const char *end = strchr(p, '"');
    int i = 0;
    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        const char *eq = memchr(p, '=', (size_t)(stop - p));
        assert_non_null(eq);
        assert_true(i < g->ntensors);
        char want_name[32], want_fmt[32], got_fmt[2 * TENSOR_MAX_ORDER + 1];
        snprintf(want_name, sizeof want_name, "%.*s", (int)(eq - p), p);
        snprintf(want_fmt, sizeof want_fmt, "%.*s", (int)(stop - eq - 1), eq + 1);
        level_format_str(&g->tensors[i].format, got_fmt, sizeof got_fmt);
        assert_string_equal(g->tensors[i].name, want_name);
        assert_string_equal(got_fmt, want_fmt);
        i++;
        p = stop + 1;
    }
    assert_int_equal(i, g->ntensors);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static void check_shared_graph(const char *path)
{
    char *text = test_read_file(path);
    assert_non_null(text);
    sam_graph g;
    sam_error err = {{0}};
    if (graph_read_dot(path, &g, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(g.path, path);
    assert_int_equal(g.nnodes, count_declared_nodes(text));
    assert_int_equal(g.nedges, count_edge_lines(text));
    for (int i = 0; i < g.nnodes; i++) {
        assert_non_null(g.nodes[i].type);
        assert_true(g.nodes[i].type[0] != '\0');
        assert_string_equal(graph_node_attr(&g.nodes[i], "type"), g.nodes[i].type);
        assert_int_equal(graph_node_index(&g, g.nodes[i].id), i);
    }
    for (int i = 0; i < g.nedges; i++) {
        assert_true(g.edges[i].kind[0] != '\0');
        assert_in_range(g.edges[i].src, 0, g.nnodes - 1);
        assert_in_range(g.edges[i].dst, 0, g.nnodes - 1);
    }
    check_tensors_match_comment(text, &g);
    assert_null(graph_attr_get(&g, "comment"));
    graph_free(&g);
    free(text);
}

static void test_every_shared_graph_loads(void **state)
{
    (void)state;
    char *dir = test_require_shared("sam-graphs");
    DIR *d = opendir(dir);
    assert_non_null(d);
    int loaded = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!ends_with(e->d_name, ".gv"))
            continue;
        char *path = test_path(dir, e->d_name);
        check_shared_graph(path);
        free(path);
        loaded++;
    }
    closedir(d);
    free(dir);
    assert_true(loaded >= 40);
}

/* ---- exact facts of one real graph ------------------------------------ */

static void test_mat_elemmul_exact(void **state)
{
    (void)state;
    char *path = test_require_shared("sam-graphs/mat_elemmul.gv");
    sam_graph g;
    sam_error err = {{0}};
    assert_int_equal(graph_read_dot(path, &g, &err), 0);
    assert_int_equal(g.nnodes, 13);
    assert_int_equal(g.nedges, 19);
    assert_string_equal(g.nodes[0].id, "11");
    assert_string_equal(g.nodes[12].id, "12");
    int n11 = graph_node_index(&g, "11");
    assert_int_equal(n11, 0);
    const graph_node *n = &g.nodes[n11];
    assert_string_equal(n->type, "fiberlookup");
    assert_string_equal(graph_node_attr(n, "tensor"), "B");
    assert_string_equal(graph_node_attr(n, "mode"), "0");
    assert_string_equal(graph_node_attr(n, "root"), "true");
    assert_string_equal(graph_node_attr(n, "label"), "FiberLookup i: B0\\ncompressed");
    assert_null(graph_node_attr(n, "sink"));
    /* File order, not grouped by source node. */
    const graph_edge *e = &g.edges[0];
    assert_string_equal(g.nodes[e->src].id, "11");
    assert_string_equal(g.nodes[e->dst].id, "10");
    assert_string_equal(e->label, "crd_in-B");
    assert_string_equal(e->comment, "in-B");
    assert_string_equal(e->kind, "crd");
    assert_string_equal(graph_edge_attr(e, "style"), "dashed");
    e = &g.edges[1];
    assert_string_equal(g.nodes[e->src].id, "10");
    assert_string_equal(g.nodes[e->dst].id, "6");
    e = &g.edges[8]; /* 4 -> 3 [label="val" type="val"]: no comment */
    assert_string_equal(g.nodes[e->src].id, "4");
    assert_string_equal(e->kind, "val");
    assert_string_equal(e->comment, "");
    e = &g.edges[18];
    assert_string_equal(g.nodes[e->src].id, "12");
    assert_string_equal(e->label, "ref_in-C");
    assert_int_equal(g.ntensors, 3);
    const char *names[] = {"X", "B", "C"};
    for (int i = 0; i < 3; i++) {
        char buf[2 * TENSOR_MAX_ORDER + 1];
        assert_string_equal(g.tensors[i].name, names[i]);
        level_format_str(&g.tensors[i].format, buf, sizeof buf);
        assert_string_equal(buf, "ss01");
        assert_ptr_equal(graph_tensor_find(&g, names[i]), &g.tensors[i]);
    }
    assert_null(graph_tensor_find(&g, "D"));
    assert_int_equal(graph_node_index(&g, "13"), -1);
    assert_int_equal(g.nattrs, 0);
    graph_free(&g);
    free(path);
}

/* ---- a hand-written graph --------------------------------------------- */

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

static const char small_graph[] =
    "digraph SAM {\n"
    "    comment=\"x=none,b=none,B=ss10\"\n"
    "    rankdir=LR\n"
    "    1 [type=\"repeat\" root=\"true\" tensor=\"b\"]\n"
    "    0 [type=\"arrayvals\" tensor=\"b\" latency=\"\"]\n"
    "    2 [comment=\"type=fiberlookup\" type=fiberlookup tensor=B mode=1 latency=3]\n"
    "    1 -> 0 [label=\"ref\" type=\"ref\"]\n"
    "    0 -> 2 [type=val comment=\"in-b\" capacity=4]\n"
    "    2 -> 1 [type=crd label=\"crd, with a comma\"]\n"
    "}\n";

static void test_small_graph(void **state)
{
    char *path = test_write_file(*state, "small.gv", small_graph);
    sam_graph g;
    sam_error err = {{0}};
    if (graph_read_dot(path, &g, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(g.ntensors, 3);
    assert_string_equal(g.tensors[1].name, "b");
    assert_int_equal(g.tensors[1].format.nlevels, 0);
    const graph_tensor *B = graph_tensor_find(&g, "B");
    assert_ptr_equal(B, &g.tensors[2]);
    assert_int_equal(B->format.nlevels, 2);
    assert_int_equal(B->format.kind[0], 's');
    assert_int_equal(B->format.mode[0], 1);
    assert_int_equal(B->format.mode[1], 0);
    /* Extra graph attributes are kept, the comment is not among them. */
    assert_int_equal(g.nattrs, 1);
    assert_string_equal(g.attrs[0].key, "rankdir");
    assert_string_equal(graph_attr_get(&g, "rankdir"), "LR");
    /* Attributes in the order the file introduced them, empty ones left out. */
    const graph_node *n1 = &g.nodes[0];
    assert_string_equal(n1->id, "1");
    assert_int_equal(n1->nattrs, 3);
    assert_string_equal(n1->attrs[0].key, "type");
    assert_string_equal(n1->attrs[1].key, "root");
    assert_string_equal(n1->attrs[2].key, "tensor");
    assert_null(graph_node_attr(n1, "latency"));
    assert_null(graph_node_attr(&g.nodes[1], "latency"));
    assert_string_equal(graph_node_attr(&g.nodes[2], "latency"), "3");
    assert_string_equal(graph_node_attr(&g.nodes[2], "comment"), "type=fiberlookup");
    assert_int_equal(graph_node_index(&g, "2"), 2);
    /* An edge without comment, one without label, one with a comma. */
    assert_int_equal(g.nedges, 3);
    assert_int_equal(g.edges[0].src, 0);
    assert_int_equal(g.edges[0].dst, 1);
    assert_string_equal(g.edges[0].comment, "");
    assert_null(graph_edge_attr(&g.edges[0], "comment"));
    assert_string_equal(g.edges[1].label, "");
    assert_string_equal(g.edges[1].comment, "in-b");
    assert_string_equal(graph_edge_attr(&g.edges[1], "capacity"), "4");
    assert_string_equal(g.edges[2].kind, "crd");
    assert_string_equal(g.edges[2].label, "crd, with a comma");
    assert_int_equal(g.edges[2].dst, 0);
    graph_free(&g);
    graph_free(&g); /* freeing twice is harmless: graph_free empties it */
    free(path);
}

static void test_no_comment_gives_no_tensors(void **state)
{
    char *path = test_write_file(*state, "bare.gv", "digraph { a [type=mul] }\n");
    sam_graph g;
    sam_error err = {{0}};
    assert_int_equal(graph_read_dot(path, &g, &err), 0);
    assert_int_equal(g.ntensors, 0);
    assert_int_equal(g.nnodes, 1);
    assert_int_equal(g.nedges, 0);
    graph_free(&g);
    free(path);
}

/* ---- errors ----------------------------------------------------------- */

/* Reads path expecting failure, with standard error captured: cgraph must
 * not print anything itself. Returns the message. */
static void expect_error(void **state, const char *name, const char *text, const char *want)
{
    char *path = text ? test_write_file(*state, name, text) : test_path(*state, name);
    char *capture = test_path(*state, "stderr.txt");
    fflush(stderr);
    int saved = dup(2), fd = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    sam_graph g;
    sam_error err = {{0}};
    int rc = graph_read_dot(path, &g, &err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *printed = test_read_file(capture);
    assert_string_equal(printed, "");
    assert_int_equal(rc, -1);
    assert_int_equal(g.nnodes, 0);
    assert_null(g.nodes);
    assert_null(g.path);
    assert_true(strncmp(err.msg, path, strlen(path)) == 0);
    assert_null(strchr(err.msg, '\n'));
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
    free(printed);
    free(capture);
    free(path);
}

static void expect_reads_small_graph(void **state)
{
    char *path = test_write_file(*state, "good.gv", small_graph);
    sam_graph g;
    sam_error err = {{0}};
    if (graph_read_dot(path, &g, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(g.nnodes, 3);
    assert_int_equal(g.nedges, 3);
    graph_free(&g);
    free(path);
}

/* Many node lines, bigger than the scanner's buffer, with text before and
 * after them. */
static char *big_graph(const char *head, const char *tail)
{
    size_t cap = 200000;
    char *text = malloc(cap);
    assert_non_null(text);
    int n = snprintf(text, cap, "digraph SAM {\n%s", head);
    for (int i = 0; i < 3000; i++)
        n += snprintf(text + n, cap - (size_t)n, "  %d [type=mul label=\"node %d\"]\n", i, i);
    snprintf(text + n, cap - (size_t)n, "%s}\n", tail);
    return text;
}

static void test_malformed_dot(void **state)
{
    expect_error(state, "bad.gv", "digraph SAM { 1 -> }\n", "syntax error in line 1");
    expect_reads_small_graph(state);
    /* The line counts from 1 for every file. */
    expect_error(state, "bad3.gv", "digraph SAM {\n  1 [type=mul]\n  1 -> ;\n}\n", "line 3");
    expect_error(state, "bad3.gv", "digraph SAM {\n  1 [type=mul]\n  1 -> ;\n}\n", "line 3");
    expect_error(state, "quote.gv", "digraph SAM {\n  1 [type=\"mul]\n}\n", "quoted string");
    /* An error early in a big file leaves nothing of it for the next read. */
    char *text = big_graph("  ] [\n", "");
    expect_error(state, "bigbad.gv", text, "line 2");
    free(text);
    expect_reads_small_graph(state);
    text = big_graph("", "  1 -> -> 2\n");
    expect_error(state, "bigbadend.gv", text, "line 3002");
    free(text);
    expect_reads_small_graph(state);
}

/* cgraph would keep what follows the first graph for the next file read. */
static void test_only_one_graph_per_file(void **state)
{
    expect_error(state, "two.gv", "digraph A { 1 [type=mul] }\ndigraph B { 2 [type=add] }\n",
                 "more than one graph in the file");
    expect_reads_small_graph(state);
    expect_error(state, "junk.gv", "digraph A { 1 [type=mul] }\n junk ] [\n",
                 "syntax error in line 2 near 'junk'");
    expect_reads_small_graph(state);
    char *text = big_graph("", "");
    char *path = test_write_file(*state, "big.gv", text);
    sam_graph g;
    sam_error err = {{0}};
    assert_int_equal(graph_read_dot(path, &g, &err), 0);
    assert_int_equal(g.nnodes, 3000);
    assert_string_equal(g.nodes[2999].id, "2999");
    graph_free(&g);
    free(path);
    free(text);
    expect_reads_small_graph(state);
}

static void test_not_a_graph(void **state)
{
    expect_error(state, "empty.gv", "", "no graph");
    expect_error(state, "undirected.gv", "graph SAM { 1 [type=mul] }\n", "not a digraph");
}

static void test_missing_file(void **state)
{
    expect_error(state, "absent.gv", NULL, "No such file");
}

static void test_node_without_type(void **state)
{
    expect_error(state, "notype.gv",
                 "digraph SAM {\n  1 [type=mul]\n  2 [label=\"x\"]\n  1 -> 2 [type=val]\n}\n",
                 ": node 2: no type attribute");
    /* A node that only an edge mentions has no type either. */
    expect_error(state, "implicit.gv", "digraph SAM {\n  1 [type=mul]\n  1 -> 7 [type=val]\n}\n",
                 ": node 7: no type attribute");
}

static void test_edge_without_type(void **state)
{
    expect_error(state, "edge.gv",
                 "digraph SAM {\n  1 [type=mul]\n  2 [type=add]\n  1 -> 2 [type=val]\n"
                 "  2 -> 1 [label=\"val\"]\n}\n",
                 ": edge 2 -> 1: no type attribute");
}

static void test_bad_comment(void **state)
{
    expect_error(state, "fmt.gv", "digraph SAM { comment=\"x=none,X=sx01\" 1 [type=mul] }\n",
                 ": graph comment entry 'X=sx01': format 'sx01'");
    expect_error(state, "noeq.gv", "digraph SAM { comment=\"X=ss01,B\" 1 [type=mul] }\n",
                 "graph comment entry 'B': expected NAME=FORMAT");
    expect_error(state, "emptyentry.gv", "digraph SAM { comment=\"X=ss01,,B=ss01\" }\n",
                 "graph comment entry '': expected NAME=FORMAT");
    expect_error(state, "twice.gv", "digraph SAM { comment=\"X=ss01,X=ss10\" }\n",
                 "graph comment entry 'X=ss10': tensor X named twice");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_shared_graph_loads),
        cmocka_unit_test(test_mat_elemmul_exact),
        T(test_small_graph),
        T(test_no_comment_gives_no_tensors),
        T(test_malformed_dot),
        T(test_only_one_graph_per_file),
        T(test_not_a_graph),
        T(test_missing_file),
        T(test_node_without_type),
        T(test_edge_without_type),
        T(test_bad_comment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
