/* A run's heat map on its graph (render_stats.h): the statistics matched
 * to nodes and edges, their colours and the legends, handed to
 * graph_render as styles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../graph/render.h"
#include "render_stats.h"
#include "stats_table.h"

#define LEGEND_STEPS 5
#define FEEDBACK_COLOUR "#c51b7d"

/* ---- matching the statistics to the graph ------------------------------ */

static int is_broadcast(const sam_graph *g, int node)
{
    return !strcmp(g->nodes[node].type, "broadcast");
}

/* Every block row is a node of the graph with the same type, every stream
 * comes from one, and every block of the graph has a row. */
static int check_match(const sam_graph *g, const stats_table *t, const char *path,
                       sam_error *err)
{
    for (int i = 0; i < t->nblocks; i++) {
        const stats_block *b = &t->blocks[i];
        int n = graph_node_index(g, b->id);
        if (n < 0)
            return error_at(err, path, b->line, "block %s is not a node of %s", b->id, g->path);
        if (strcmp(b->type, g->nodes[n].type))
            return error_at(err, path, b->line, "block %s is a %s, but node %s of %s is a %s",
                            b->id, b->type, b->id, g->path, g->nodes[n].type);
    }
    for (int i = 0; i < t->nstreams; i++) {
        const stats_stream *s = &t->streams[i];
        if (stats_table_block_find(t, s->producer.node) < 0)
            return error_at(err, path, s->line, "stream %s comes from %s, which has no block row",
                            s->id, s->producer.node);
        for (int k = 0; k < s->nreaders; k++)
            if (stats_table_block_find(t, s->readers[k].node) < 0)
                return error_at(err, path, s->line, "stream %s goes to %s, which has no block row",
                                s->id, s->readers[k].node);
    }
    for (int n = 0; n < g->nnodes; n++)
        if (!is_broadcast(g, n) && stats_table_block_find(t, g->nodes[n].id) < 0)
            return error_at(err, path, 0, "no row for block %s of %s", g->nodes[n].id, g->path);
    return 0;
}

/* The edge that carries the stream edge e is part of: e itself, or the
 * edge into the broadcast e leaves, followed up to a block. */
static const graph_edge *origin_edge(const sam_graph *g, const graph_edge *e)
{
    for (int hops = 0; e && is_broadcast(g, e->src) && hops <= g->nnodes; hops++) {
        const graph_edge *in = NULL;
        for (int k = 0; k < g->nedges && !in; k++)
            if (g->edges[k].dst == e->src)
                in = &g->edges[k];
        e = in;
    }
    return e && !is_broadcast(g, e->src) ? e : NULL;
}

/* The port through which s reaches node (a block, or the blocks a
 * broadcast feeds), or NULL. */
static const char *reader_port(const sam_graph *g, const stats_stream *s, int node, int depth)
{
    if (!is_broadcast(g, node)) {
        for (int k = 0; k < s->nreaders; k++)
            if (!strcmp(s->readers[k].node, g->nodes[node].id))
                return s->readers[k].port;
        return NULL;
    }
    const char *port = NULL;
    for (int k = 0; k < g->nedges && !port && depth <= g->nnodes; k++)
        if (g->edges[k].src == node)
            port = reader_port(g, s, g->edges[k].dst, depth + 1);
    return port;
}

static int names(const graph_edge *e, const char *port)
{
    return (e->label && strstr(e->label, port)) || (e->comment && strstr(e->comment, port));
}

/* The stream row of edge e, or NULL. */
static const stats_stream *edge_stream(const sam_graph *g, const stats_table *t,
                                       const graph_edge *e)
{
    const graph_edge *o = origin_edge(g, e);
    const stats_stream *best = NULL;
    int best_score = -1;
    for (int i = 0; o && i < t->nstreams; i++) {
        const stats_stream *s = &t->streams[i];
        const char *rport;
        if (strcmp(s->producer.node, g->nodes[o->src].id) || strcmp(s->kind, o->kind) ||
            !(rport = reader_port(g, s, e->dst, 0)))
            continue;
        int score = names(o, s->producer.port) + names(e, rport);
        if (score > best_score) {
            best = s;
            best_score = score;
        }
    }
    return best;
}

/* ---- colours ---------------------------------------------------------- */

typedef struct rgb {
    double r, g, b;
} rgb;

static rgb mix(rgb a, rgb b, double f)
{
    return (rgb){a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

static void hex(rgb c, char out[8])
{
    snprintf(out, 8, "#%02x%02x%02x", (unsigned)lround(c.r), (unsigned)lround(c.g),
             (unsigned)lround(c.b));
}

static double clamp01(double f)
{
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* Utilisation 0 is white, 0.5 yellow, 1 red. */
static void busy_colour(double u, char out[8])
{
    const rgb white = {255, 255, 255}, yellow = {255, 230, 0}, red = {215, 25, 28};
    u = clamp01(u);
    hex(u < 0.5 ? mix(white, yellow, 2 * u) : mix(yellow, red, 2 * u - 1), out);
}

/* f = log(1 + tokens) / log(1 + most tokens): light grey to dark blue. */
static void token_colour(double f, char out[8])
{
    const rgb grey = {190, 190, 190}, blue = {8, 48, 107};
    hex(mix(grey, blue, clamp01(f)), out);
}

static double token_scale(uint64_t tokens, uint64_t most)
{
    return most ? log1p((double)tokens) / log1p((double)most) : 0;
}

/* ---- styles ----------------------------------------------------------- */

typedef struct node_paint {
    char fill[8];
    char text[96];
} node_paint;

typedef struct edge_paint {
    char color[8];
    char text[48];
} edge_paint;

typedef struct extra_paint {
    char label[96];
    char text[48];
} extra_paint;

typedef struct legend_paint {
    render_legend legend;
    render_legend_entry entries[LEGEND_STEPS];
    char swatch[LEGEND_STEPS][8];
    char text[LEGEND_STEPS][48];
} legend_paint;

/* The legends: busy blocks, stream tokens, and the feedback streams when
 * there are any. */
typedef struct paint {
    render_node_style *nodes;
    node_paint *np;
    render_edge_style *edges;
    edge_paint *ep;
    char *carried;              /* per stream row: some edge carries it */
    render_extra_edge *extra;
    extra_paint *xp;
    int nextra;
    legend_paint legends[3];
    render_legend legend_list[3];
    int nlegends;
} paint;

static void paint_nodes(const sam_graph *g, const stats_table *t, paint *p)
{
    for (int n = 0; n < g->nnodes; n++) {
        int b = stats_table_block_find(t, g->nodes[n].id);
        if (b < 0)
            continue; /* a broadcast: render's neutral look */
        const stats_block *sb = &t->blocks[b];
        double u = stats_block_utilisation(t, sb);
        busy_colour(u, p->np[n].fill);
        snprintf(p->np[n].text, sizeof p->np[n].text, "busy %llu (%.1f%%)\\ntokens out %llu",
                 (unsigned long long)sb->busy, 100 * u, (unsigned long long)sb->tokens);
        p->nodes[n] = (render_node_style){p->np[n].fill, p->np[n].text};
    }
}

static uint64_t most_tokens(const stats_table *t)
{
    uint64_t most = 0;
    for (int i = 0; i < t->nstreams; i++)
        most = t->streams[i].tokens > most ? t->streams[i].tokens : most;
    return most;
}

static void paint_edges(const sam_graph *g, const stats_table *t, paint *p)
{
    uint64_t most = most_tokens(t);
    for (int k = 0; k < g->nedges; k++) {
        const stats_stream *s = edge_stream(g, t, &g->edges[k]);
        if (!s) {
            p->edges[k] = (render_edge_style){"gray70", 1, "no stream"};
            continue;
        }
        p->carried[s - t->streams] = 1;
        double f = token_scale(s->tokens, most);
        token_colour(f, p->ep[k].color);
        snprintf(p->ep[k].text, sizeof p->ep[k].text, "%llu tok",
                 (unsigned long long)s->tokens);
        p->edges[k] = (render_edge_style){p->ep[k].color, 1 + 5 * f, p->ep[k].text};
    }
}

/* Each reader of each stream no edge carries; check_match made sure they
 * are all nodes of g. */
static void paint_feedback(const sam_graph *g, const stats_table *t, paint *p)
{
    uint64_t most = most_tokens(t);
    extra_paint *x = p->xp;
    render_extra_edge *e = p->extra;
    for (int i = 0; i < t->nstreams; i++) {
        const stats_stream *s = &t->streams[i];
        double width = 1 + 5 * token_scale(s->tokens, most);
        for (int k = 0; !p->carried[i] && k < s->nreaders; k++, x++, e++) {
            snprintf(x->label, sizeof x->label, "%s -> %s", s->producer.port,
                     s->readers[k].port);
            snprintf(x->text, sizeof x->text, "%llu tok", (unsigned long long)s->tokens);
            *e = (render_extra_edge){graph_node_index(g, s->producer.node),
                                     graph_node_index(g, s->readers[k].node), x->label,
                                     "dashed", {FEEDBACK_COLOUR, width, x->text}};
        }
    }
}

static void paint_legends(const stats_table *t, paint *p)
{
    uint64_t most = most_tokens(t);
    for (int k = 0; k < LEGEND_STEPS; k++) {
        double f = (double)k / (LEGEND_STEPS - 1);
        legend_paint *busy = &p->legends[0], *tok = &p->legends[1];
        busy_colour(f, busy->swatch[k]);
        snprintf(busy->text[k], sizeof busy->text[k], "%.0f%% busy", 100 * f);
        token_colour(f, tok->swatch[k]);
        snprintf(tok->text[k], sizeof tok->text[k], "%.0f tokens",
                 most ? expm1(f * log1p((double)most)) : 0.0);
        busy->entries[k] = (render_legend_entry){busy->swatch[k], busy->text[k]};
        tok->entries[k] = (render_legend_entry){tok->swatch[k], tok->text[k]};
    }
    p->legends[0].legend = (render_legend){"blocks: busy / run cycles", p->legends[0].entries,
                                           LEGEND_STEPS};
    p->legends[1].legend = (render_legend){"streams: tokens (log scale)", p->legends[1].entries,
                                           LEGEND_STEPS};
    p->legend_list[0] = p->legends[0].legend;
    p->legend_list[1] = p->legends[1].legend;
    p->nlegends = 2;
    if (p->nextra > 0) {
        legend_paint *fb = &p->legends[2];
        fb->entries[0] = (render_legend_entry){FEEDBACK_COLOUR, "dashed: ports, tokens"};
        fb->legend = (render_legend){"feedback streams (not in the graph)", fb->entries, 1};
        p->legend_list[p->nlegends++] = fb->legend;
    }
}

static void paint_free(paint *p)
{
    free(p->nodes);
    free(p->np);
    free(p->edges);
    free(p->ep);
    free(p->carried);
    free(p->extra);
    free(p->xp);
}

/* The readers of the streams no edge carries, once paint_edges has found
 * the others. */
static int count_extra(const stats_table *t, const paint *p)
{
    int n = 0;
    for (int i = 0; i < t->nstreams; i++)
        n += p->carried[i] ? 0 : t->streams[i].nreaders;
    return n;
}

static int paint_alloc(const sam_graph *g, const stats_table *t, paint *p, sam_error *err)
{
    memset(p, 0, sizeof *p);
    size_t nn = (size_t)g->nnodes, ne = (size_t)g->nedges;
    p->nodes = error_alloc(err, nn, sizeof *p->nodes);
    p->np = p->nodes ? error_alloc(err, nn, sizeof *p->np) : NULL;
    p->edges = p->np ? error_alloc(err, ne, sizeof *p->edges) : NULL;
    p->ep = p->edges ? error_alloc(err, ne, sizeof *p->ep) : NULL;
    p->carried = p->ep ? error_alloc(err, (size_t)t->nstreams, 1) : NULL;
    if (p->carried)
        return 0;
    paint_free(p);
    return -1;
}

static int paint_make(const sam_graph *g, const stats_table *t, paint *p, render_style *st,
                      sam_error *err)
{
    if (paint_alloc(g, t, p, err))
        return -1;
    paint_nodes(g, t, p);
    paint_edges(g, t, p);
    p->nextra = count_extra(t, p);
    p->extra = error_alloc(err, (size_t)p->nextra, sizeof *p->extra);
    p->xp = p->extra ? error_alloc(err, (size_t)p->nextra, sizeof *p->xp) : NULL;
    if (!p->xp) {
        paint_free(p);
        return -1;
    }
    paint_feedback(g, t, p);
    paint_legends(t, p);
    *st = (render_style){.nodes = p->nodes, .edges = p->edges, .extra_edges = p->extra,
                         .nextra_edges = p->nextra, .legends = p->legend_list,
                         .nlegends = p->nlegends};
    return 0;
}

int render_stats(const sam_graph *g, const char *stats, const char *out, FILE *progress,
                 sam_error *err)
{
    stats_table t;
    if (stats_table_read(stats, &t, err))
        return -1;
    paint p;
    render_style st;
    int rc = check_match(g, &t, stats, err);
    if (rc == 0 && (rc = paint_make(g, &t, &p, &st, err)) == 0) {
        rc = graph_render(g, &st, out, progress, err);
        paint_free(&p);
    }
    stats_table_free(&t);
    return rc;
}
