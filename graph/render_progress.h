/* What a render shows while Graphviz works, for graph_render's reporting
 * thread: the stage ("laying out 1,500 nodes, 2,997 edges", "writing
 * svg") and the seconds it has lasted, once it has lasted a second, every
 * quarter second after. A render of a small graph shows nothing. */
#ifndef SAMSIM_RENDER_PROGRESS_H
#define SAMSIM_RENDER_PROGRESS_H

#include <stdio.h>

#include "../common/progress.h"

#define RENDER_PROGRESS_AFTER 1.0     /* seconds of a stage before it is shown */
#define RENDER_PROGRESS_EVERY 0.25    /* seconds between two lines */

typedef struct render_progress {
    progress line;
    char stage[128];
} render_progress;

/* On out (NULL: nothing shown), with clock as progress_init takes it. */
void render_progress_init(render_progress *r, FILE *out, progress_clock clock, void *clock_ctx);

/* The stages, each starting its second over. */
void render_progress_layout(render_progress *r, int nodes, int edges);
void render_progress_writing(render_progress *r, const char *format);

/* Shows the stage if a line is due: what the thread does as it wakes. */
void render_progress_tick(render_progress *r);

void render_progress_clear(render_progress *r);

#endif
