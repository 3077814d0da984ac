#include "progress.h"

#include <stdarg.h>
#include <time.h>

double progress_monotonic(void *ctx)
{
    (void)ctx;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void progress_init(progress *p, FILE *out, double interval, double first, progress_clock clock,
                   void *clock_ctx)
{
    *p = (progress){.out = out,
                    .interval = interval,
                    .first = first,
                    .clock = clock ? clock : progress_monotonic,
                    .clock_ctx = clock_ctx};
    progress_restart(p);
}

void progress_restart(progress *p)
{
    p->start = p->clock(p->clock_ctx);
}

double progress_elapsed(const progress *p)
{
    return p->clock(p->clock_ctx) - p->start;
}

static int due(const progress *p, double now)
{
    return now - p->start >= p->first && (p->width == 0 || now - p->shown_at >= p->interval);
}

void progress_show(progress *p, const char *fmt, ...)
{
    if (!p->out)
        return;
    double now = p->clock(p->clock_ctx);
    if (!due(p, now))
        return;
    int head = fprintf(p->out, "\rsamsim: ") - 1;
    va_list ap;
    va_start(ap, fmt);
    int text = vfprintf(p->out, fmt, ap);
    va_end(ap);
    if (head < 0 || text < 0)
        return;
    int n = head + text;
    if (n < p->width)
        fprintf(p->out, "%*s", p->width - n, "");
    else
        p->width = n;
    p->shown_at = now;
    fflush(p->out);
}

void progress_clear(progress *p)
{
    if (!p->out || p->width == 0)
        return;
    fprintf(p->out, "\r%*s\r", p->width, "");
    fflush(p->out);
    p->width = 0;
}
