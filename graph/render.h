/* Drawing a sam_graph as SVG or PNG with Graphviz's layout library (the
 * dot engine): every node as Custard draws it, named by its label and its
 * id ("#id"), with the fill, the extra label lines and the edge colours
 * and widths the caller chooses, edges the caller adds that the graph
 * does not have, and optional legends beside the graph. Nothing here
 * knows what the styles mean. */
#ifndef SAMSIM_RENDER_H
#define SAMSIM_RENDER_H

#include <stdio.h>

#include "../common/error.h"
#include "graph.h"

typedef struct render_node_style {
    const char *fill;       /* a Graphviz colour; NULL: the Custard colour */
    const char *extra;      /* lines under the label ("\\n" between), or NULL */
} render_node_style;

typedef struct render_edge_style {
    const char *color;      /* a Graphviz colour; NULL: black */
    double penwidth;        /* 0: Custard's line style alone */
    const char *extra;      /* added under the edge's label, or NULL */
} render_edge_style;

/* An edge drawn between two nodes of the graph that leaves the layout as
 * the graph's own edges make it (Graphviz's constraint=false). */
typedef struct render_extra_edge {
    int src, dst;           /* node indices */
    const char *label;
    const char *line;       /* a Graphviz edge style ("dashed"), or NULL */
    render_edge_style style;
} render_extra_edge;

typedef struct render_legend_entry {
    const char *swatch;     /* a colour as #rrggbb */
    const char *text;
} render_legend_entry;

typedef struct render_legend {
    const char *title;
    const render_legend_entry *entries;
    int nentries;
} render_legend;

typedef struct render_style {
    const render_node_style *nodes;     /* one per node of the graph, or NULL */
    const render_edge_style *edges;     /* one per edge, or NULL */
    const render_extra_edge *extra_edges;
    int nextra_edges;
    const render_legend *legends;
    int nlegends;
} render_style;

/* The output format path's extension asks for ("svg" or "png"), or NULL;
 * "-" (standard output) is SVG. */
const char *graph_render_format(const char *path);

/* Lays g out and writes it to path in the format of its extension; style
 * may be NULL. The file appears whole or not at all; errors are one line
 * naming the path. With progress (a terminal), a stage that lasts more
 * than a second is named there with its elapsed time on one line,
 * rewritten in place and cleared when the drawing is done. */
int graph_render(const sam_graph *g, const render_style *style, const char *path,
                 FILE *progress, sam_error *err);

#endif
