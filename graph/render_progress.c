#include "render_progress.h"

void render_progress_init(render_progress *r, FILE *out, progress_clock clock, void *clock_ctx)
{
    progress_init(&r->line, out, RENDER_PROGRESS_EVERY, RENDER_PROGRESS_AFTER, clock, clock_ctx);
    r->stage[0] = '\0';
}

/* A count with a comma between groups of three digits: 4123 is "4,123". */
static void group_digits(int n, char out[16])
{
    char digits[16];
    int len = snprintf(digits, sizeof digits, "%d", n), k = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k] = '\0';
}

void render_progress_layout(render_progress *r, int nodes, int edges)
{
    char n[16], e[16];
    group_digits(nodes, n);
    group_digits(edges, e);
    snprintf(r->stage, sizeof r->stage, "laying out %s nodes, %s edges", n, e);
    progress_restart(&r->line);
}

void render_progress_writing(render_progress *r, const char *format)
{
    snprintf(r->stage, sizeof r->stage, "writing %s", format);
    progress_restart(&r->line);
}

void render_progress_tick(render_progress *r)
{
    progress_show(&r->line, "render: %s ... %.1f s", r->stage, progress_elapsed(&r->line));
}

void render_progress_clear(render_progress *r)
{
    progress_clear(&r->line);
}
