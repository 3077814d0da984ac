/* Drawing with libgvc: the sam_graph is copied into a fresh cgraph graph
 * with presentation attributes only, laid out by the dot engine and
 * rendered into a temporary file that is renamed into place. Layout and
 * rendering are single Graphviz calls that can take seconds, so a second
 * thread reports their progress while the caller's thread is inside. */
#include "render.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gvc.h>

#include "../common/atomic_file.h"
#include "dot_write.h"
#include "render_progress.h"

/* Fill and outline of a node whose type has no Custard colour (a
 * broadcast, which Custard draws as an invisible point). */
#define NEUTRAL_FILL "#e0e0e0"
#define NEUTRAL_PEN "gray40"

const char *graph_render_format(const char *path)
{
    if (!strcmp(path, "-"))
        return "svg";
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return NULL;
    if (!strcmp(dot, ".svg"))
        return "svg";
    if (!strcmp(dot, ".png"))
        return "png";
    return NULL;
}

/* cgraph takes char * for strings it only reads. */
static void set(void *obj, const char *key, const char *value)
{
    agsafeset(obj, (char *)key, (char *)value, "");
}

/* a, then "\\n" (Graphviz's line break) and b when b is there; malloc'd. */
static char *lines(const char *a, const char *b)
{
    size_t len = strlen(a) + (b ? strlen(b) + 2 : 0) + 1;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%s%s%s", a, b ? "\\n" : "", b ? b : "");
    return s;
}

/* ---- nodes and edges --------------------------------------------------- */

/* The Custard label, then "#id" so that every node is named, then the
 * caller's lines. */
static char *node_label(const graph_node *n, const char *custard, const char *extra)
{
    size_t len = strlen(n->id) + 2;
    char *id = malloc(len);
    if (!id)
        return NULL;
    snprintf(id, len, "#%s", n->id);
    char *head = custard ? lines(custard, id) : id;
    char *label = head ? lines(head, extra) : NULL;
    if (head != id)
        free(head);
    free(id);
    return label;
}

static void node_attrs(Agnode_t *v, const char *label, const char *color,
                       const render_node_style *st)
{
    set(v, "label", label);
    set(v, "shape", color ? "box" : "circle");
    set(v, "style", "filled");
    set(v, "fillcolor", st && st->fill ? st->fill : color ? color : NEUTRAL_FILL);
    set(v, "color", color ? color : NEUTRAL_PEN);
    /* A caller's fill replaces the type colour, which stays as the frame. */
    if (st && st->fill)
        set(v, "penwidth", "3");
    if (!color)
        set(v, "fontsize", "9");
}

static int add_node(Agraph_t *ag, const graph_node *n, const render_node_style *st)
{
    char *custard;
    const char *color;
    if (graph_node_look(n, &custard, &color))
        return -1;
    char *label = node_label(n, custard, st ? st->extra : NULL);
    Agnode_t *v = label ? agnode(ag, n->id, 1) : NULL;
    if (v)
        node_attrs(v, label, color, st);
    free(custard);
    free(label);
    return v ? 0 : -1;
}

/* An edge from node src to node dst with the label and the line style
 * given and the caller's colour, width and extra label; NULL when memory
 * ran out. */
static Agedge_t *styled_edge(Agraph_t *ag, const sam_graph *g, int src, int dst,
                             const char *label, const char *line, const render_edge_style *st)
{
    Agnode_t *t = agnode(ag, g->nodes[src].id, 0), *h = agnode(ag, g->nodes[dst].id, 0);
    Agedge_t *a = t && h ? agedge(ag, t, h, NULL, 1) : NULL;
    char *text = lines(label ? label : "", st ? st->extra : NULL);
    if (!a || !text) {
        free(text);
        return NULL;
    }
    set(a, "label", text);
    /* With a width of its own, bold would only fight it. */
    if (line && !(st && st->penwidth > 0 && !strcmp(line, "bold")))
        set(a, "style", line);
    if (st && st->color) {
        set(a, "color", st->color);
        set(a, "fontcolor", st->color);
    }
    if (st && st->penwidth > 0) {
        char w[32];
        snprintf(w, sizeof w, "%.2f", st->penwidth);
        set(a, "penwidth", w);
    }
    free(text);
    return a;
}

static int add_edge(Agraph_t *ag, const sam_graph *g, const graph_edge *e,
                    const render_edge_style *st)
{
    return styled_edge(ag, g, e->src, e->dst, e->label, graph_edge_style(e), st) ? 0 : -1;
}

/* Ranked as if it were not there, so that the graph keeps the shape its
 * own edges give it, whichever way the extra edge points. */
static int add_extra_edge(Agraph_t *ag, const sam_graph *g, const render_extra_edge *x)
{
    Agedge_t *a = styled_edge(ag, g, x->src, x->dst, x->label, x->line, &x->style);
    if (a)
        set(a, "constraint", "false");
    return a ? 0 : -1;
}

/* ---- legends ----------------------------------------------------------- */

/* Black text on a light swatch, white on a dark one (by luma). */
static const char *text_colour(const char *swatch)
{
    unsigned r, g, b;
    if (sscanf(swatch, "#%2x%2x%2x", &r, &g, &b) != 3)
        return "black";
    return 299 * r + 587 * g + 114 * b < 128000 ? "white" : "black";
}

/* A title over a column of swatch boxes, stacked by invisible edges. No
 * cluster frames it and no HTML-like table draws it: Graphviz 2.42 leaks
 * the memory of the rank skeletons of clusters and of every HTML table. */
static Agnode_t *legend_node(Agraph_t *ag, int i, int k, Agnode_t *prev)
{
    char name[48];
    snprintf(name, sizeof name, "legend %d.%d", i, k);
    Agnode_t *v = agnode(ag, name, 1);
    Agedge_t *e = v && prev ? agedge(ag, prev, v, NULL, 1) : NULL;
    if (!v || (prev && !e))
        return NULL;
    if (e)
        set(e, "style", "invis");
    return v;
}

static int add_legend(Agraph_t *ag, const render_legend *l, int i)
{
    Agnode_t *v = legend_node(ag, i, 0, NULL);
    if (!v)
        return -1;
    set(v, "label", l->title);
    set(v, "shape", "plaintext");
    for (int k = 0; k < l->nentries; k++) {
        if (!(v = legend_node(ag, i, k + 1, v)))
            return -1;
        set(v, "label", l->entries[k].text);
        set(v, "shape", "box");
        set(v, "style", "filled");
        set(v, "fillcolor", l->entries[k].swatch);
        set(v, "fontcolor", text_colour(l->entries[k].swatch));
    }
    return 0;
}

static int add_legends(Agraph_t *ag, const render_style *st)
{
    for (int i = 0; st && i < st->nlegends; i++)
        if (add_legend(ag, &st->legends[i], i))
            return -1;
    return 0;
}

/* ---- progress ---------------------------------------------------------- */

/* The reporting thread and what it shares with the drawing thread; shown
 * and done are read and written under lock. */
typedef struct reporter {
    int running;            /* 0: no thread, nothing shown */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    render_progress shown;
    int done;
} reporter;

static struct timespec later(struct timespec t, double seconds)
{
    long ns = t.tv_nsec + (long)(seconds * 1e9);
    t.tv_sec += ns / 1000000000L;
    t.tv_nsec = ns % 1000000000L;
    return t;
}

/* Wakes once a line may be due; render_progress says whether it is. */
static void *reporter_main(void *arg)
{
    reporter *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->done) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        struct timespec until = later(now, RENDER_PROGRESS_EVERY);
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        if (!p->done)
            render_progress_tick(&p->shown);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* The condition variable waits on the monotonic clock, which the stage
 * times are taken from too. */
static int reporter_init(reporter *p)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr))
        return -1;
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) ||
             pthread_cond_init(&p->wake, &attr) ? -1 : 0;
    pthread_condattr_destroy(&attr);
    if (rc == 0 && pthread_mutex_init(&p->lock, NULL)) {
        pthread_cond_destroy(&p->wake);
        rc = -1;
    }
    return rc;
}

/* Reports the layout of a graph of nodes and edges on out (NULL: nothing
 * shown). Progress is a courtesy: without a thread the drawing goes on
 * silently. */
static void reporter_start(reporter *p, FILE *out, int nodes, int edges)
{
    *p = (reporter){.running = 0};
    render_progress_init(&p->shown, out, NULL, NULL);
    render_progress_layout(&p->shown, nodes, edges);
    if (!out || reporter_init(p))
        return;
    if (pthread_create(&p->thread, NULL, reporter_main, p)) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->wake);
        return;
    }
    p->running = 1;
}

static void reporter_writing(reporter *p, const char *format)
{
    if (!p->running)
        return;
    pthread_mutex_lock(&p->lock);
    render_progress_writing(&p->shown, format);
    pthread_mutex_unlock(&p->lock);
}

/* Ends the thread and clears its line, before any message of the caller. */
static void reporter_stop(reporter *p)
{
    if (!p->running)
        return;
    pthread_mutex_lock(&p->lock);
    p->done = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    render_progress_clear(&p->shown);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
}

/* ---- the drawing ------------------------------------------------------- */

static Agraph_t *build(const sam_graph *g, const render_style *st)
{
    Agraph_t *ag = agopen("SAM", Agdirected, NULL);
    if (!ag)
        return NULL;
    int rc = 0;
    for (int i = 0; i < g->nnodes && !rc; i++)
        rc = add_node(ag, &g->nodes[i], st && st->nodes ? &st->nodes[i] : NULL);
    for (int i = 0; i < g->nedges && !rc; i++)
        rc = add_edge(ag, g, &g->edges[i], st && st->edges ? &st->edges[i] : NULL);
    for (int i = 0; st && i < st->nextra_edges && !rc; i++)
        rc = add_extra_edge(ag, g, &st->extra_edges[i]);
    if (rc == 0)
        rc = add_legends(ag, st);
    if (rc) {
        agclose(ag);
        return NULL;
    }
    return ag;
}

/* The last Graphviz message on one line, or a fallback. */
static int graphviz_error(sam_error *err, const char *path, const char *what)
{
    char *msg = agerrors() > 0 ? aglasterr() : NULL;
    if (!msg)
        return error_at(err, path, 0, "%s", what);
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    for (char *p = msg; *p; p++)
        if (*p == '\n')
            *p = ' ';
    error_at(err, path, 0, "%s: %s", what, msg);
    free(msg);
    return -1;
}

static int lay_out_and_write(GVC_t *gvc, Agraph_t *ag, const char *format, const char *path,
                             reporter *p, sam_error *err)
{
    if (gvLayout(gvc, ag, "dot") != 0)
        return graphviz_error(err, path, "Graphviz cannot lay the graph out");
    reporter_writing(p, format);
    atomic_file af;
    int rc = atomic_file_open(&af, path, err);
    if (rc == 0 && gvRender(gvc, ag, format, af.f) != 0) {
        char what[64];
        snprintf(what, sizeof what, "Graphviz cannot render %s", format);
        rc = graphviz_error(err, path, what);
    }
    if (rc == 0)
        rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err) ? -1 : 0;
    atomic_file_discard(&af);
    gvFreeLayout(gvc, ag);
    return rc;
}

/* Graphviz is reported on as it lays out and renders ag. */
static int draw(GVC_t *gvc, Agraph_t *ag, const sam_graph *g, const render_style *style,
                const char *format, const char *path, FILE *out, sam_error *err)
{
    reporter p;
    reporter_start(&p, out, g->nnodes, g->nedges + (style ? style->nextra_edges : 0));
    int rc = lay_out_and_write(gvc, ag, format, path, &p, err);
    reporter_stop(&p);
    return rc;
}

/* Graphviz prints its messages on standard error unless the threshold is
 * AGMAX, which keeps them for aglasterr; the caller's is restored. */
int graph_render(const sam_graph *g, const render_style *style, const char *path,
                 FILE *progress, sam_error *err)
{
    const char *format = graph_render_format(path);
    if (!format)
        return error_at(err, path, 0, "unknown output format (use .svg or .png)");
    agerrlevel_t old = agseterr(AGMAX);
    agreseterrors();
    GVC_t *gvc = gvContext();
    Agraph_t *ag = gvc ? build(g, style) : NULL;
    int rc = ag ? draw(gvc, ag, g, style, format, path, progress, err)
                : error_at(err, path, 0, "out of memory");
    if (ag)
        agclose(ag);
    if (gvc)
        gvFreeContext(gvc);
    agseterr(old);
    return rc;
}
