/* Reading a trace back (samsim timeline, samsim stats --stalls) and what
 * is made of it: the stalls, longest first, and the figure's boxes over
 * the trace's span in a few columns, each inside the window, in order on
 * its track, of a colour the legend has; the script written. */
#include <stdio.h>
#include <stdlib.h>

#include "../../report/timeline_figure.h"
#include "fuzz_input.h"

static void check_stalls(const timeline *t)
{
    size_t *order, n, total;
    sam_error err;
    if (timeline_stalls(t, 5, &order, &n, &total, &err))
        return;
    for (size_t i = 1; i < n; i++)
        if (t->slices[order[i]].dur > t->slices[order[i - 1]].dur)
            abort();
    free(order);
}

static void check_boxes(const timeline_figure *f, const timeline_view *v)
{
    for (size_t i = 0; i < f->nboxes; i++) {
        const timeline_box *b = &f->boxes[i], *before = i ? &f->boxes[i - 1] : NULL;
        if (!(b->from >= v->from && b->from <= b->to && b->to <= v->to) ||
            b->colour < 0 || b->colour >= f->ncolours || b->track < 0 ||
            b->track >= f->t->ntracks)
            abort();
        if (before && (before->track > b->track ||
                       (before->track == b->track && before->to > b->from)))
            abort();
    }
}

static void read_trace(const char *path)
{
    timeline t;
    sam_error err;
    if (timeline_read(path, &t, &err))
        return;
    check_stalls(&t);
    const timeline_view v = {.from = t.start, .to = t.end, .columns = 64, .out = "x.svg"};
    timeline_figure f;
    if (timeline_figure_make(&t, &v, &f, &err) == 0) {
        check_boxes(&f, &v);
        FILE *sink = fopen("/dev/null", "w");
        if (sink) {
            timeline_script(sink, &f);
            fclose(sink);
        }
        timeline_figure_free(&f);
    }
    timeline_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_with_file("in.json", data, size, read_trace);
    return 0;
}
