#include "trace_hw.h"

#include <stdlib.h>

#include "../common/atomic_file.h"

/* A process placed in the run: its number, the cycles and the time of
 * those before it, and the window in its own cycles. */
typedef struct placed {
    const trace_hw_process *p;
    int pid;
    uint64_t offset;
    double offset_us;
    double from, to;
} placed;

/* A time stamp, cycles into the process: the run's cycle, or
 * microseconds at the process's clock. */
static void put_time(FILE *f, const placed *w, double cycles)
{
    double ghz = w->p->clock_ghz;
    if (ghz > 0)
        fprintf(f, "%.12g", w->offset_us + cycles / (ghz * 1e3));
    else
        fprintf(f, "%.0f", (double)w->offset + cycles);
}

/* A slice of thread tid, cut to the window; nothing when outside it. */
static void put_slice(FILE *f, const placed *w, int tid, const char *name, double from, double to,
                      const char *args)
{
    from = from > w->from ? from : w->from;
    to = to < w->to ? to : w->to;
    if (from >= to)
        return;
    fputs(",\n{\"name\":", f);
    trace_json_string(f, name);
    fprintf(f, ",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":", w->pid, tid);
    put_time(f, w, from);
    fputs(",\"dur\":", f);
    if (w->p->clock_ghz > 0)
        fprintf(f, "%.12g", (to - from) / (w->p->clock_ghz * 1e3));
    else
        fprintf(f, "%.0f", to - from);
    if (args[0])
        fprintf(f, ",\"args\":{%s}", args);
    fputc('}', f);
}

static void put_thread(FILE *f, const placed *w, int tid, const char *name)
{
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
            w->pid, tid);
    trace_json_string(f, name);
    fprintf(f, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
               "\"args\":{\"sort_index\":%d}}",
            w->pid, tid, tid);
}

/* What a slice holds beyond its name, as JSON members. */
static void slice_args(const hw_slice *s, char *buf, size_t size)
{
    int n = 0;
    buf[0] = '\0';
    if (s->tensor < 0 && s->count > 1)
        snprintf(buf, size, "\"points\":%llu", (unsigned long long)s->count);
    if (s->tensor >= 0)
        n = snprintf(buf, size, "\"bytes\":%.0f,\"to\":\"%s\"", s->bytes,
                     hw_memory_names[s->to_memory]);
    if (s->tensor >= 0 && s->count > 1 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, ",\"transfers\":%llu,\"busy\":%.12g",
                 (unsigned long long)s->count, s->busy);
}

typedef struct ordered {
    double from;
    size_t k;
} ordered;

static int by_start(const void *a, const void *b)
{
    const ordered *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Puts the slices of track k in start order, each in the first of its
 * threads (lanes) whose slices so far end by its start: lane[i], the
 * i-th slice's; the lanes' count. -1 when memory runs out. */
static int lay_out(const hw_track *k, ordered *o, int *lane)
{
    double *end = NULL;
    int nlanes = 0;
    for (size_t i = 0; i < k->n; i++)
        o[i] = (ordered){k->slice[i].from, i};
    qsort(o, k->n, sizeof *o, by_start);
    for (size_t i = 0; i < k->n; i++) {
        const hw_slice *s = &k->slice[o[i].k];
        int l = 0;
        while (l < nlanes && end[l] > s->from)
            l++;
        if (l == nlanes) {
            double *e = realloc(end, (size_t)(nlanes + 1) * sizeof *e);
            if (!e) {
                free(end);
                return -1;
            }
            end = e;
            nlanes++;
        }
        end[l] = s->to;
        lane[i] = l;
    }
    free(end);
    return nlanes;
}

/* Track k's threads from *tid on, and its slices. */
static int put_track(FILE *f, const placed *w, const hw_track *k, int *tid, sam_error *err)
{
    ordered *o = malloc((k->n + 1) * sizeof *o);
    int *lane = malloc((k->n + 1) * sizeof *lane), nlanes = -1;
    if (o && lane)
        nlanes = lay_out(k, o, lane);
    if (nlanes < 0) {
        free(o);
        free(lane);
        return error_set(err, "out of memory");
    }
    char name[2 * HW_TRACE_NAME * 8], args[160];
    for (int l = 0; l < nlanes; l++) {
        hw_trace_track_name(w->p->trace, k, l, name, sizeof name);
        put_thread(f, w, *tid + l, name);
    }
    for (size_t i = 0; i < k->n; i++) {
        const hw_slice *s = &k->slice[o[i].k];
        hw_trace_slice_name(w->p->trace, k, o[i].k, name, sizeof name);
        slice_args(s, args, sizeof args);
        put_slice(f, w, *tid + lane[i], name, s->from, s->to, args);
    }
    *tid += nlanes;
    free(o);
    free(lane);
    return 0;
}

static int put_process(FILE *f, const placed *w, sam_error *err)
{
    int tid = 1;
    fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":",
            w->pid > 1 ? ",\n" : "", w->pid);
    trace_json_string(f, w->p->name);
    fprintf(f, "}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
               "\"args\":{\"sort_index\":%d}}",
            w->pid, w->pid);
    if (w->p->phase) {
        put_thread(f, w, tid, "phase");
        put_slice(f, w, tid++, w->p->phase, 0, (double)w->p->cycles, "");
    }
    const hw_trace *t = w->p->trace;
    for (int k = 0; k < t->ntracks; k++)
        if (t->track[k].n && put_track(f, w, &t->track[k], &tid, err))
            return -1;
    return 0;
}

static int put_trace(FILE *f, const trace_hw_process *p, int n, const trace_options *o,
                     sam_error *err)
{
    uint64_t cycles = 0;
    for (int k = 0; k < n; k++)
        cycles += p[k].cycles;
    double end = (double)(o->to && o->to < cycles ? o->to : cycles), offset_us = 0;
    uint64_t offset = 0;
    fputs("{\"traceEvents\":[\n", f);
    for (int k = 0; k < n; k++) {
        double first = (double)offset;
        placed w = {&p[k], k + 1, offset, offset_us,
                    (double)o->from > first ? (double)o->from - first : 0, end - first};
        w.to = w.to < (double)p[k].cycles ? w.to : (double)p[k].cycles;
        if (put_process(f, &w, err))
            return -1;
        offset += p[k].cycles;
        if (p[k].clock_ghz > 0)
            offset_us += (double)p[k].cycles / (p[k].clock_ghz * 1e3);
    }
    double ghz = n ? p[0].clock_ghz : 0;
    fprintf(f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"cycles\":%llu,"
               "\"clock_ghz\":%.12g,\"time\":\"%s\"}}\n",
            (unsigned long long)cycles, ghz, ghz > 0 ? "microseconds" : "cycles");
    return 0;
}

int trace_hw_write(const trace_hw_process *p, int n, const trace_options *o, const char *path,
                   sam_error *err)
{
    for (int k = 0; k < n; k++)
        if (p[k].trace->failed)
            return error_set(err, "--trace: out of memory while tracing %s", p[k].name);
    atomic_file af;
    if (atomic_file_open(&af, path, err))
        return -1;
    int rc = put_trace(af.f, p, n, o, err) || atomic_file_close(&af, err) ||
                     atomic_file_publish(&af, err)
                 ? -1
                 : 0;
    atomic_file_discard(&af);
    return rc;
}
