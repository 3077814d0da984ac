#include "trace_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/atomic_file.h"

static const char *const state_names[TRACE_STATES] = {"busy", "blocked"};

/* s within a JSON string: quotes, backslashes and control characters
 * escaped. */
static void put_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
}

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    put_escaped(f, s);
    fputc('"', f);
}

void trace_json_string(FILE *f, const char *s)
{
    put_string(f, s);
}

int trace_blocks_valid(const char *list, sam_error *err)
{
    const char *p = list;
    for (;;) {
        size_t n = strcspn(p, ",");
        if (n == 0)
            return error_set(err, "--trace-blocks: '%s' has an empty name", list);
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

/* Whether word is one of list's comma-separated words. */
static int listed(const char *list, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = list;; p++) {
        size_t n = strcspn(p, ",");
        if (n == len && !strncmp(p, word, n))
            return 1;
        p += n;
        if (!*p)
            return 0;
    }
}

static int traced(const graph_node *node, const trace_options *o)
{
    return !o->blocks || listed(o->blocks, node->id) || listed(o->blocks, node->type);
}

/* The track's name: node id, type, and the index, tensor and lane it has. */
static void put_track_name(FILE *f, const graph_node *node)
{
    char name[512];
    int n = snprintf(name, sizeof name, "%s %s", node->id, node->type);
    static const char *const keys[] = {"index", "tensor", "lane"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] && n < (int)sizeof name; k++) {
        const char *v = graph_node_attr(node, keys[k]);
        if (v)
            n += snprintf(name + n, sizeof name - (size_t)n, "%s%s", k == 2 ? " lane " : " ", v);
    }
    put_string(f, name);
}

/* v in decimal at p: where it ends. */
static char *put_u64(char *p, uint64_t v)
{
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n)
        *p++ = digits[--n];
    return p;
}

/* s at p, without its NUL: where it ends. */
static char *put_text(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* A time at p: cycles, or microseconds at the clock. */
static char *put_time(char *p, uint64_t cycles, double ghz)
{
    if (ghz > 0)
        return p + snprintf(p, 32, "%.12g", (double)cycles / (ghz * 1e3));
    return put_u64(p, cycles);
}

/* One slice of track tid, cut to the window; nothing when outside it.
 * Formatted by hand: a trace has a line per slice, hundreds of thousands
 * of them, and fprintf took as long as the run. */
static void put_slice(FILE *f, int tid, const char *name, uint64_t from, uint64_t to,
                      const trace_options *o, uint64_t end)
{
    from = from > o->from ? from : o->from;
    to = to < end ? to : end;
    if (from >= to)
        return;
    char line[192], *p = line;
    p = put_text(p, ",\n{\"name\":\"");
    p = put_text(p, name);
    p = put_text(p, "\",\"ph\":\"X\",\"pid\":1,\"tid\":");
    p = put_u64(p, (uint64_t)tid);
    p = put_text(p, ",\"ts\":");
    p = put_time(p, from, o->clock_ghz);
    p = put_text(p, ",\"dur\":");
    p = put_time(p, to - from, o->clock_ghz);
    *p++ = '}';
    fwrite(line, 1, (size_t)(p - line), f);
}

/* Track k: its name, then its spans with the starved cycles between
 * them. */
static void put_track(FILE *f, const trace_track *track, int k, const trace_options *o,
                      uint64_t end)
{
    int tid = k + 1;
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":",
            tid);
    put_track_name(f, track->node);
    fprintf(f, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
               "\"args\":{\"sort_index\":%d}}",
            tid, tid);
    const block_trace *t = track->spans;
    uint64_t at = 0;
    for (size_t i = 0; i < t->n && at < end; i++) {
        const trace_span *s = &t->span[i];
        put_slice(f, tid, "starved", at, s->from, o, end);
        put_slice(f, tid, state_names[s->state], s->from, s->to, o, end);
        at = s->to;
    }
}

int trace_counter_name(trace_counter *c, int stream, const char *out_port, const char *in_port)
{
    size_t size = 0;
    FILE *f = open_memstream(&c->name, &size);
    if (!f)
        return -1;
    fprintf(f, "\"stream %d: ", stream);
    put_escaped(f, c->producer->id);
    fputc(':', f);
    put_escaped(f, out_port);
    fputs(" -> ", f);
    put_escaped(f, c->reader->id);
    fputc(':', f);
    put_escaped(f, in_port);
    fputc('"', f);
    return fclose(f) ? -1 : 0;
}

/* Decimal places of a counter's mean. */
#define MEAN_SCALE 1000000

/* A mean times MEAN_SCALE at p, as a decimal without trailing zeros. */
static char *put_mean(char *p, uint64_t scaled)
{
    p = put_u64(p, scaled / MEAN_SCALE);
    uint64_t frac = scaled % MEAN_SCALE, digits = MEAN_SCALE / 10;
    if (frac)
        *p++ = '.';
    for (; frac; frac = frac % digits * 10)
        *p++ = (char)('0' + frac / digits);
    return p;
}

/* A counter's mean over each bucket that meets the window, at the later
 * of its start and the window's, where it changes. */
static void put_counter(FILE *f, const trace_counter *c, uint64_t cycles, const trace_options *o,
                        uint64_t end)
{
    char line[128];
    uint64_t last = UINT64_MAX;
    for (uint64_t b = o->from / c->width; b < c->nbuckets && b * c->width < end; b++) {
        uint64_t from = b * c->width, len = cycles - from < c->width ? cycles - from : c->width;
        uint64_t sum = c->token_cycles[b], rest = sum % len;
        uint64_t scaled = sum / len * MEAN_SCALE + (rest * MEAN_SCALE + len / 2) / len;
        if (scaled == last)
            continue;
        last = scaled;
        char *p = put_text(line, ",\"ph\":\"C\",\"pid\":1,\"ts\":");
        p = put_time(p, from > o->from ? from : o->from, o->clock_ghz);
        p = put_text(p, ",\"args\":{\"tokens\":");
        p = put_mean(p, scaled);
        p = put_text(p, "}}");
        fputs(",\n{\"name\":", f);
        fputs(c->name, f);
        fwrite(line, 1, (size_t)(p - line), f);
    }
}

static void put_trace(FILE *f, const trace_track *tracks, int n, const char *name,
                      uint64_t cycles, const trace_options *o)
{
    uint64_t end = o->to && o->to < cycles ? o->to : cycles;
    fputs("{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":",
          f);
    put_string(f, name);
    fputs("}}", f);
    for (int k = 0; k < n; k++)
        if (traced(tracks[k].node, o))
            put_track(f, &tracks[k], k, o, end);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < tracks[k].ncounters; i++) {
            const trace_counter *c = &tracks[k].counters[i];
            if (traced(c->producer, o) || traced(c->reader, o))
                put_counter(f, c, cycles, o, end);
        }
    fprintf(f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"cycles\":%llu,"
               "\"clock_ghz\":%.12g,\"time\":\"%s\"",
            (unsigned long long)cycles, o->clock_ghz, o->clock_ghz > 0 ? "microseconds" : "cycles");
    /* What the trace covers, for a reader that draws it (samsim timeline). */
    if (o->to)
        fprintf(f, ",\"window\":[%llu,%llu]", (unsigned long long)o->from,
                (unsigned long long)end);
    fputs("}}\n", f);
}

int trace_json_write(const trace_track *tracks, int n, const char *name, uint64_t cycles,
                     const trace_options *o, const char *path, sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err))
        return -1;
    put_trace(af.f, tracks, n, name, cycles, o);
    int rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err) ? -1 : 0;
    atomic_file_discard(&af);
    return rc;
}
