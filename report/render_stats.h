/* A run's heat map on its graph (samsim render --stats): each block
 * filled by its utilisation (busy cycles / run cycles) on a white,
 * yellow, red scale, each edge coloured and widened by the tokens of its
 * stream on a log scale, numbers in the labels and a legend.
 *
 * Block rows match nodes by id. A stream row matches an edge by its
 * producer node (for an edge leaving a broadcast, the block that feeds
 * the broadcast), its kind, and a reader on the edge's target (or, past a
 * broadcast, on any block the broadcast feeds); where a block has two
 * such streams (a crddrop's outer and inner into one writer) the one
 * whose producer or reader port name the edge's label holds wins.
 *
 * A stream no edge carries is one the run added to the graph: the
 * feedback of a skip intersecter to the fiberlookups it reads. It is
 * drawn from its producer to each reader, dashed in a colour of its own,
 * labelled with its ports and tokens, and without moving the blocks. */
#ifndef SAMSIM_RENDER_STATS_H
#define SAMSIM_RENDER_STATS_H

#include <stdio.h>

#include "../common/error.h"
#include "../graph/graph.h"

/* Reads the statistics CSV at stats (report/stats_table.h), checks that
 * its rows are g's blocks and streams, and draws the heat map to out as
 * graph_render does (progress as there). Errors are one line naming the
 * file: a block row that is no node of g or of another type, a stream of
 * a block without a row, a block of g without one. */
int render_stats(const sam_graph *g, const char *stats, const char *out, FILE *progress,
                 sam_error *err);

#endif
