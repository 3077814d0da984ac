/* samsim render: SVG and PNG of compiled graphs, every node named, the
 * heat map's colours from statistics (hand-made and from a real run), the
 * feedback streams of a skip run drawn as extra edges, and refusals that
 * leave no file behind. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../graph/dot_write.h"
#include "../graph/graph.h"
#include "../report/stats_table.h"
#include "test_util.h"

static const char header[] =
    "row,id,type,impl,producer,readers,kind,tokens,data,stops,empty,done,repeat,repeat_stop,"
    "first_cycle,last_cycle,idle_between,idle_before,idle_after,busy,starved,blocked\n";

/* The colour render gives the streams that no edge of the graph carries. */
#define FEEDBACK_COLOUR "#c51b7d"

/* X(i,j)=B(i,j) as samsim compiles it: 0 and 1 scan i and j, 2 reads the
 * values, 3 to 5 write; in a run of 50 cycles node 1 is always busy and
 * node 3 never. */
static const char identity_stats[] =
    "run,,,,,,,80,,,,,,,0,49,,,,,,\n"
    "stream,0,,,0:crd,3:crd,crd,5,3,1,0,1,0,0,0,4,0,0,45,,,\n"
    "stream,1,,,0:ref,1:ref,ref,5,3,1,0,1,0,0,0,4,0,0,45,,,\n"
    "stream,2,,,1:crd,4:crd,crd,25,20,4,0,1,0,0,1,25,0,1,24,,,\n"
    "stream,3,,,1:ref,2:ref,ref,25,20,4,0,1,0,0,1,25,0,1,24,,,\n"
    "stream,4,,,2:val,5:val,val,20,16,3,0,1,0,0,2,21,0,2,28,,,\n"
    "block,0,fiberlookup,compressed,,,,10,,,,,,,0,4,0,0,45,5,0,0\n"
    "block,1,fiberlookup,compressed,,,,50,,,,,,,0,49,0,0,0,50,0,0\n"
    "block,2,arrayvals,ideal,,,,20,,,,,,,2,21,0,2,28,20,2,0\n"
    "block,3,fiberwrite,compressed,,,,0,,,,,,,,,0,50,0,0,0,0\n"
    "block,4,fiberwrite,compressed,,,,0,,,,,,,2,26,0,2,23,25,2,0\n"
    "block,5,fiberwrite,vals,,,,0,,,,,,,3,22,0,3,27,20,3,0\n";

static char *compile(const char *dir, const char *name, const char *expr)
{
    char *graph = test_path(dir, name);
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", expr, "-o", graph, NULL), 0);
    return graph;
}

static char *write_stats(const char *dir, const char *rows)
{
    size_t n = strlen(header) + strlen(rows) + 1;
    char *text = malloc(n);
    snprintf(text, n, "%s%s", header, rows);
    char *path = test_write_file(dir, "stats.csv", text);
    free(text);
    return path;
}

/* ---- what the SVG holds ------------------------------------------------ */

static void assert_svg(const char *svg)
{
    assert_non_null(svg);
    assert_true(!strncmp(svg, "<?xml", 5) || !strncmp(svg, "<svg", 4));
    assert_non_null(strstr(svg, "</svg>"));
}

/* Line text[0..len) of a label, trimmed, as the SVG writes it. */
static void assert_line_in(const char *svg, const char *text, size_t len)
{
    while (len > 0 && text[len - 1] == ' ')
        len--;
    char want[512], *w = want;
    for (size_t i = 0; i < len && w < want + sizeof want - 8; i++) {
        const char *esc = text[i] == '&' ? "&amp;" : text[i] == '<' ? "&lt;"
                        : text[i] == '>' ? "&gt;" : NULL;
        w += esc ? sprintf(w, "%s", esc) : sprintf(w, "%c", text[i]);
    }
    *w = '\0';
    if (*want && !strstr(svg, want))
        fail_msg("the SVG has no text '%s'", want);
}

/* Each line of every node's Custard label and its "#id" are in the SVG. */
static void assert_named(const char *graph, const char *svg)
{
    sam_graph g;
    sam_error err;
    assert_int_equal(graph_read_dot(graph, &g, &err), 0);
    for (int i = 0; i < g.nnodes; i++) {
        char *label, id[64];
        const char *color;
        assert_int_equal(graph_node_look(&g.nodes[i], &label, &color), 0);
        for (const char *p = label; p && *p;) {
            size_t len = strcspn(p, "\\\n");
            assert_line_in(svg, p, len);
            p += len;
            p += *p == '\\' ? 2 : *p == '\n';
        }
        snprintf(id, sizeof id, ">#%s<", g.nodes[i].id);
        if (!strstr(svg, id))
            fail_msg("the SVG does not name node %s", g.nodes[i].id);
        free(label);
    }
    graph_free(&g);
}

/* Where the value of attribute attr (written `attr="`) of node id's first
 * shape begins in the SVG. */
static const char *node_shape_attr(const char *svg, const char *id, const char *attr)
{
    char title[64];
    snprintf(title, sizeof title, "<title>%s</title>", id);
    const char *t = strstr(svg, title);
    assert_non_null(t);
    const char *v = strstr(t, attr);
    assert_non_null(v);
    return v + strlen(attr);
}

/* The fill of the first shape of node id. */
static void node_fill(const char *svg, const char *id, char fill[16])
{
    const char *f = node_shape_attr(svg, id, "fill=\"");
    size_t n = strcspn(f, "\"");
    assert_true(n < 16);
    snprintf(fill, 16, "%.*s", (int)n, f);
}

/* text as Graphviz writes it in SVG text and titles. */
static void svg_escape(const char *text, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = text; *p && n + 8 < size; p++) {
        const char *esc = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
                        : *p == '-' ? "&#45;" : NULL;
        n += (size_t)(esc ? sprintf(out + n, "%s", esc) : sprintf(out + n, "%c", *p));
    }
    out[n] = '\0';
}

/* The edge group of the SVG from node src to node dst whose label is
 * label (malloc'd), or NULL. */
static char *svg_edge(const char *svg, const char *src, const char *dst, const char *label)
{
    char tail[128], head[128], want[256], title[300], text[300];
    svg_escape(src, tail, sizeof tail);
    svg_escape(dst, head, sizeof head);
    snprintf(title, sizeof title, "<title>%s&#45;&gt;%s</title>", tail, head);
    svg_escape(label, want, sizeof want);
    snprintf(text, sizeof text, ">%s</text>", want);
    for (const char *g = strstr(svg, "class=\"edge\">"); g; g = strstr(g + 1, "class=\"edge\">")) {
        const char *end = strstr(g, "</g>");
        assert_non_null(end);
        char *group = strndup(g, (size_t)(end - g));
        if (strstr(group, title) && strstr(group, text))
            return group;
        free(group);
    }
    return NULL;
}

/* The top of the shape of node id in the SVG: its rank in the layout. */
static double node_top(const char *svg, const char *id)
{
    double top = 0;
    int first = 1;
    for (const char *p = node_shape_attr(svg, id, "points=\""); *p && *p != '"';) {
        double x, y;
        int used;
        assert_int_equal(sscanf(p, "%lf,%lf%n", &x, &y, &used), 2);
        top = first || y < top ? y : top;
        first = 0;
        p += used;
        p += *p == ' ';
    }
    return top;
}

static void assert_png(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char sig[8];
    assert_int_equal(fread(sig, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
}

/* ---- tests ----------------------------------------------------------- */

static void test_plain(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *graph = compile(dir, "g.dot", "X(i,j)=B(i,j)");
    char *svg = test_path(dir, "g.svg"), *png = test_path(dir, "g.png");
    assert_int_equal(test_run_samsim(NULL, NULL, "render", graph, "-o", svg, NULL), 0);
    assert_int_equal(test_run_samsim(NULL, NULL, "render", graph, "-o", png, NULL), 0);
    char *text = test_read_file(svg);
    assert_svg(text);
    assert_named(graph, text);
    assert_png(png);
    free(text), free(graph), free(svg), free(png);
    test_tmpdir_remove(dir);
}

static void test_heat_map(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *graph = compile(dir, "g.dot", "X(i,j)=B(i,j)");
    char *stats = write_stats(dir, identity_stats), *svg = test_path(dir, "heat.svg");
    assert_int_equal(test_run_samsim(NULL, NULL, "render", graph, "--stats", stats, "-o", svg,
                                     NULL),
                     0);
    char *text = test_read_file(svg), idle[16], busiest[16];
    assert_svg(text);
    assert_named(graph, text);
    node_fill(text, "3", idle);
    node_fill(text, "1", busiest);
    assert_string_not_equal(idle, busiest);
    assert_string_equal(idle, "#ffffff");
    assert_string_equal(busiest, "#d7191c");
    assert_non_null(strstr(text, "busy 50 (100.0%)"));
    assert_non_null(strstr(text, "busy 0 (0.0%)"));
    assert_non_null(strstr(text, "25 tok"));
    assert_non_null(strstr(text, "blocks: busy / run cycles"));
    assert_null(strstr(text, "no stream"));
    free(text), free(graph), free(stats), free(svg);
    test_tmpdir_remove(dir);
}

/* A compiled graph with a broadcast, run on generated data: every edge
 * finds its stream, the broadcast stays neutral, PNG works too. */
static void test_real_run(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *graph = compile(dir, "mv.dot", "x(i)=B(i,j)*c(j)");
    char *b = test_path(dir, "B.mtx"), *c = test_path(dir, "c.tns");
    char *stats = test_path(dir, "s.csv"), *svg = test_path(dir, "mv.svg");
    char *png = test_path(dir, "mv.png"), bb[4200], bc[4200];
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "20x20",
                                     "--density", "0.2", "--seed", "1", "-o", b, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "20", "--density",
                                     "0.5", "--seed", "2", "-o", c, NULL),
                     0);
    snprintf(bb, sizeof bb, "B=%s", b);
    snprintf(bc, sizeof bc, "c=%s", c);
    assert_int_equal(test_run_samsim(NULL, NULL, "run", graph, "-t", bb, "-t", bc, "--stats",
                                     stats, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "render", graph, "--stats", stats, "-o", svg,
                                     NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "render", graph, "--stats", stats, "-o", png,
                                     NULL),
                     0);
    char *text = test_read_file(svg), fill[16];
    assert_svg(text);
    assert_named(graph, text);
    assert_null(strstr(text, "no stream"));
    sam_graph g;
    sam_error err;
    assert_int_equal(graph_read_dot(graph, &g, &err), 0);
    int broadcasts = 0;
    for (int i = 0; i < g.nnodes; i++)
        if (!strcmp(g.nodes[i].type, "broadcast")) {
            node_fill(text, g.nodes[i].id, fill);
            assert_string_equal(fill, "#e0e0e0");
            broadcasts++;
        }
    assert_true(broadcasts > 0);
    assert_png(png);
    graph_free(&g);
    free(text), free(graph), free(b), free(c), free(stats), free(svg), free(png);
    test_tmpdir_remove(dir);
}

/* Runs graph on bound operands with extra options, statistics into stats. */
static void run_stats(const char *graph, const char *b, const char *c, const char *impl,
                      const char *stats)
{
    char bb[4200], bc[4200];
    snprintf(bb, sizeof bb, "B=%s", b);
    snprintf(bc, sizeof bc, "C=%s", c);
    const char *argv[] = {"run", graph, "-t", bb, "-t", bc, "--stats", stats, impl ? "--impl"
                          : NULL, impl, NULL};
    assert_int_equal(test_run_samsim_argv(NULL, NULL, argv), 0);
}

/* Each feedback stream of the run is an edge of the SVG from its producer
 * to each reader, dashed in the feedback colour, named by its ports and
 * its tokens; returns how many. */
static int assert_feedback_edges(const char *svg, const char *stats)
{
    stats_table t;
    sam_error err;
    assert_int_equal(stats_table_read(stats, &t, &err), 0);
    int n = 0;
    for (int i = 0; i < t.nstreams; i++) {
        const stats_stream *s = &t.streams[i];
        if (strcmp(s->kind, "feedback"))
            continue;
        char ports[128], tokens[64];
        snprintf(tokens, sizeof tokens, ">%llu tok<", (unsigned long long)s->tokens);
        for (int r = 0; r < s->nreaders; r++, n++) {
            snprintf(ports, sizeof ports, "%s -> %s", s->producer.port, s->readers[r].port);
            char *edge = svg_edge(svg, s->producer.node, s->readers[r].node, ports);
            if (!edge)
                fail_msg("no edge %s -> %s labelled '%s'", s->producer.node, s->readers[r].node,
                         ports);
            assert_non_null(strstr(edge, "stroke=\"" FEEDBACK_COLOUR "\""));
            assert_non_null(strstr(edge, "stroke-dasharray="));
            assert_non_null(strstr(edge, tokens));
            free(edge);
        }
    }
    stats_table_free(&t);
    return n;
}

/* An elementwise product run with skip intersecters: the skip streams
 * back to the fiberlookups, which the graph has no edge for, are drawn
 * too, and a two-finger run of the same graph has none. */
static void test_feedback_streams(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *graph = compile(dir, "g.gv", "X(i,j)=B(i,j)*C(i,j)");
    char *b = test_path(dir, "B.mtx"), *c = test_path(dir, "C.mtx");
    char *skip = test_path(dir, "skip.csv"), *plain = test_path(dir, "plain.csv");
    char *skip_svg = test_path(dir, "skip.svg"), *plain_svg = test_path(dir, "plain.svg");
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "30x30",
                                     "--density", "0.2", "--seed", "1", "-o", b, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "30x30",
                                     "--density", "0.2", "--seed", "2", "-o", c, NULL),
                     0);
    run_stats(graph, b, c, "intersect=skip", skip);
    run_stats(graph, b, c, NULL, plain);
    assert_int_equal(test_run_samsim(NULL, NULL, "render", graph, "--stats", skip, "-o",
                                     skip_svg, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "render", graph, "--stats", plain, "-o",
                                     plain_svg, NULL),
                     0);
    char *with = test_read_file(skip_svg), *without = test_read_file(plain_svg);
    assert_svg(with);
    assert_named(graph, with);
    assert_null(strstr(with, "no stream"));
    /* two intersecters, each with a skip stream back to both sides */
    assert_int_equal(assert_feedback_edges(with, skip), 4);
    assert_non_null(strstr(with, "feedback streams"));
    assert_svg(without);
    assert_int_equal(assert_feedback_edges(without, plain), 0);
    assert_null(strstr(without, "skip&#45;"));
    assert_null(strstr(without, FEEDBACK_COLOUR));
    assert_null(strstr(without, "feedback streams"));
    /* the feedback edges leave every block on its rank */
    sam_graph g;
    sam_error err;
    assert_int_equal(graph_read_dot(graph, &g, &err), 0);
    for (int i = 0; i < g.nnodes; i++)
        assert_true(node_top(with, g.nodes[i].id) == node_top(without, g.nodes[i].id));
    graph_free(&g);
    free(with), free(without), free(graph), free(b), free(c), free(skip), free(plain);
    free(skip_svg), free(plain_svg);
    test_tmpdir_remove(dir);
}

/* Nothing but the inputs in dir: no output, no temporary file. */
static void assert_only_inputs(const char *dir, int ninputs)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    assert_int_equal(n, ninputs);
}

/* Exit status 1 and one line on stderr holding want. */
static void assert_fails(const char *want, const char *const *argv)
{
    char *se = NULL;
    assert_int_equal(test_run_samsim_argv(NULL, &se, argv), 1);
    if (!strstr(se, want))
        fail_msg("'%s' does not say '%s'", se, want);
    assert_ptr_equal(strchr(se, '\n'), se + strlen(se) - 1);
    free(se);
}

static void test_errors(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *graph = compile(dir, "g.dot", "X(i,j)=B(i,j)");
    char *stats = write_stats(dir, identity_stats), *svg = test_path(dir, "out.svg");
    char *jpg = test_path(dir, "out.jpg"), *none = test_path(dir, "none.dot"), want[4400];
    snprintf(want, sizeof want, "%s: unknown output format (use .svg or .png)", jpg);
    assert_fails(want, (const char *const[]){"render", graph, "-o", jpg, NULL});
    snprintf(want, sizeof want, "%s: ", none);
    assert_fails(want, (const char *const[]){"render", none, "-o", svg, NULL});
    assert_fails("usage: samsim render", (const char *const[]){"render", graph, NULL});
    char *deep = test_path(dir, "no/such/dir/out.svg");
    snprintf(want, sizeof want, "%s: cannot create", deep);
    assert_fails(want, (const char *const[]){"render", graph, "-o", deep, NULL});
    free(deep);
    assert_only_inputs(dir, 2);

    char rows[sizeof identity_stats + 64];
    snprintf(rows, sizeof rows, "%sblock,42,mul,default,,,,0,,,,,,,,,0,50,0,0,0,0\n",
             identity_stats);
    free(stats);
    stats = write_stats(dir, rows);
    snprintf(want, sizeof want, "%s:14: block 42 is not a node of %s", stats, graph);
    assert_fails(want, (const char *const[]){"render", graph, "--stats", stats, "-o", svg, NULL});
    assert_only_inputs(dir, 2);

    snprintf(rows, sizeof rows, "%sstream,5,,,0:crd,9:crd,crd,5,3,1,0,1,0,0,0,4,0,0,45,,,\n",
             identity_stats);
    free(stats);
    stats = write_stats(dir, rows);
    snprintf(want, sizeof want, "%s:14: stream 5 goes to 9, which has no block row", stats);
    assert_fails(want, (const char *const[]){"render", graph, "--stats", stats, "-o", svg, NULL});
    assert_only_inputs(dir, 2);

    free(stats);
    stats = write_stats(dir, "run,,,,,,,0,,,,,,,0,49,,,,,,\n");
    snprintf(want, sizeof want, "%s: no row for block 0 of %s", stats, graph);
    assert_fails(want, (const char *const[]){"render", graph, "--stats", stats, "-o", svg, NULL});
    assert_only_inputs(dir, 2);
    free(graph), free(stats), free(svg), free(jpg), free(none);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_heat_map),
        cmocka_unit_test(test_real_run),
        cmocka_unit_test(test_feedback_streams),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("render", tests, NULL, NULL);
}
