/* samsim stats FILE.csv: where the cycles of a run went, from the file
 * `samsim run --stats` wrote. Three views: the busiest blocks (busy % is
 * busy cycles / run cycles, times the PEs of a tiled run), the streams
 * with the most tokens and the share of them that is control (stops +
 * empty + done + repeat_stop over tokens) and of the run they carried
 * nothing (idle before, between and after over the same cycles), and the
 * critical chain: from the block that finished last, back through the
 * input that arrived last each time, to a root (definitions in
 * report/stats_table.h). A tiled run's file adds two,
 * all of their rows in file order: its memories (busy % is busy cycles /
 * (units x run cycles)) with the bytes that left and came into each and
 * the most one buffer held, and each tensor's tiles at each tiling level:
 * the bytes and tiles moved into the buffer holding them and out of it,
 * the tiles never needed, and the most bytes of them held at once. With
 * --stalls, a trace's (`samsim run --trace`) longest blocked and starved
 * slices, beside the summary or alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report/stats_table.h"
#include "../report/timeline.h"
#include "args.h"
#include "commands.h"
#include "options.h"

#define STATS_DEFAULT_TOP 10

typedef struct stats_opts {
    const char *path;       /* the statistics file, or NULL */
    const char *stalls;     /* the trace, or NULL */
    int top;
} stats_opts;

enum { OPT_TOP = 1, OPT_STALLS };

static const cli_option stats_options[] = {
    {OPT_TOP, "--top", "N", "how many blocks, streams and stalls to show (default 10)", NULL},
    {OPT_STALLS, "--stalls", "FILE.json",
     "lists a trace's longest stalls: its blocked and starved slices, longest first",
     "Each with its track (block), state, start and duration, in the trace's time unit; "
     "equals earliest first."},
    {0, NULL, NULL, NULL, NULL},
};

static int take_top(stats_opts *o, const char *v, sam_error *err)
{
    uint64_t n;
    if (args_uint64("--top", v, &n, err))
        return -1;
    if (n < 1 || n > 1000000)
        return error_set(err, "stats: --top must be 1..1000000");
    o->top = (int)n;
    return 0;
}

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    stats_opts *o = ctx;
    if (id == OPT_TOP)
        return take_top(o, v, err);
    if (id == OPT_STALLS) {
        o->stalls = v;
        return 0;
    }
    if (o->path)
        return error_set(err, "stats: unexpected argument '%s'", v);
    o->path = v;
    return 0;
}

static int parse_args(int argc, char **argv, stats_opts *o, sam_error *err)
{
    *o = (stats_opts){.top = STATS_DEFAULT_TOP};
    if (options_parse(&cmd_stats_command, argc, argv, take, o, err))
        return -1;
    if (!o->path && !o->stalls)
        return options_usage(&cmd_stats_command, err);
    return 0;
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}

/* Width of the widest of n strings picked by get, at least min. */
static int width(const stats_table *t, int n, const char *(*get)(const stats_table *, int),
                 int min)
{
    int w = min;
    for (int i = 0; i < n; i++) {
        int len = (int)strlen(get(t, i));
        w = len > w ? len : w;
    }
    return w;
}

static const char *block_id(const stats_table *t, int i)
{
    return t->blocks[i].id;
}

static const char *block_type(const stats_table *t, int i)
{
    return t->blocks[i].type;
}

static const char *block_impl(const stats_table *t, int i)
{
    return t->blocks[i].impl;
}


static void print_span(const stats_span *s)
{
    if (s->active)
        printf("%llu..%llu", (unsigned long long)s->first, (unsigned long long)s->last);
    else
        printf("-");
}

static void print_blocks(const stats_table *t, const int *order, int top)
{
    int n = imin(top, t->nblocks);
    int wi = width(t, t->nblocks, block_id, 4), wt = width(t, t->nblocks, block_type, 4);
    int wm = width(t, t->nblocks, block_impl, 4);
    printf("\nblocks by busy cycles (%d of %d):\n", n, t->nblocks);
    printf("  %-*s  %-*s  %-*s  %10s  %6s  %10s  %10s  active\n", wi, "node", wt, "type", wm,
           "impl", "busy", "busy%", "starved", "blocked");
    for (int k = 0; k < n; k++) {
        const stats_block *b = &t->blocks[order[k]];
        printf("  %-*s  %-*s  %-*s  %10llu  %5.1f%%  %10llu  %10llu  ", wi, b->id, wt, b->type,
               wm, b->impl, (unsigned long long)b->busy, 100.0 * stats_block_utilisation(t, b),
               (unsigned long long)b->starved, (unsigned long long)b->blocked);
        print_span(&b->span);
        printf("\n");
    }
}

/* Each lane's blocks, tokens and busiest block, and the imbalance: the
 * busiest lane's busy cycles over the mean lane's. */
static void print_lanes(const stats_table *t)
{
    if (!t->nlanes)
        return;
    uint64_t most = 0;
    double sum = 0;
    for (int k = 0; k < t->nlanes; k++) {
        sum += (double)t->lanes[k].busy;
        most = t->lanes[k].busy > most ? t->lanes[k].busy : most;
    }
    printf("\nlanes (%d); busy = the busy cycles of a lane's busiest block; imbalance %.3f "
           "(busiest lane / mean lane):\n",
           t->nlanes, sum > 0 ? (double)most * t->nlanes / sum : 1.0);
    printf("  %4s  %6s  %12s  %10s\n", "lane", "blocks", "tokens", "busy");
    for (int k = 0; k < t->nlanes; k++)
        printf("  %4s  %6llu  %12llu  %10llu\n", t->lanes[k].id,
               (unsigned long long)t->lanes[k].blocks, (unsigned long long)t->lanes[k].tokens,
               (unsigned long long)t->lanes[k].busy);
}

static const char *stream_id(const stats_table *t, int i)
{
    return t->streams[i].id;
}


static void print_streams(const stats_table *t, const int *order, int top)
{
    int n = imin(top, t->nstreams);
    int wi = width(t, t->nstreams, stream_id, 6);
    printf("\nstreams by tokens (%d of %d); control = (stops+empty+done+repeat_stop)/tokens, "
           "idle = cycles without a push / run cycles:\n", n, t->nstreams);
    printf("  %-*s  %-6s  %10s  %8s  %6s  producer -> readers\n", wi, "stream", "kind", "tokens",
           "control", "idle");
    for (int k = 0; k < n; k++) {
        const stats_stream *s = &t->streams[order[k]];
        printf("  %-*s  %-6s  %10llu  %7.1f%%  %5.1f%%  %s:%s ->", wi, s->id, s->kind,
               (unsigned long long)s->tokens, 100.0 * stats_stream_control_share(s),
               100.0 * stats_stream_idle_share(t, s), s->producer.node, s->producer.port);
        for (int r = 0; r < s->nreaders; r++)
            printf(" %s:%s", s->readers[r].node, s->readers[r].port);
        printf("\n");
    }
}

static void print_memories(const stats_table *t)
{
    printf("\nmemories (busy%% = busy cycles / (units x run cycles); read = bytes out toward "
           "the PE, written = bytes in; peak%% = peak / a buffer's capacity):\n");
    printf("  %-6s  %6s  %10s  %6s  %12s  %12s  %12s  %6s\n", "memory", "units", "busy", "busy%",
           "read", "written", "peak", "peak%");
    for (int i = 0; i < t->nmemories; i++) {
        const stats_memory *m = &t->memories[i];
        printf("  %-6s  %6llu  %10llu  %5.1f%%  %12llu  %12llu  ", m->id,
               (unsigned long long)m->units, (unsigned long long)m->busy,
               100.0 * stats_memory_utilisation(t, m), (unsigned long long)m->bytes_read,
               (unsigned long long)m->bytes_written);
        if (m->has_peak)
            printf("%12llu", (unsigned long long)m->peak_bytes);
        else
            printf("%12s", "-");
        if (m->has_peak && m->has_capacity && m->capacity)
            printf("  %5.1f%%\n", 100.0 * (double)m->peak_bytes / (double)m->capacity);
        else
            printf("  %6s\n", "-");
    }
}

static const char *level_tensor(const stats_table *t, int i)
{
    return t->levels[i].tensor;
}

static void print_levels(const stats_table *t)
{
    int wi = width(t, t->nlevels, level_tensor, 6);
    printf("\ntensors by tiling level (0 outermost; read, written = bytes into, out of the "
           "memory; fetched = tiles moved; skipped = tiles never needed):\n");
    printf("  %-*s  %5s  %-6s  %12s  %12s  %8s  %8s  %12s\n", wi, "tensor", "level", "memory",
           "read", "written", "fetched", "skipped", "peak");
    for (int i = 0; i < t->nlevels; i++) {
        const stats_tensor_level *l = &t->levels[i];
        printf("  %-*s  %5llu  %-6s  %12llu  %12llu  %8llu  %8llu  %12llu\n", wi, l->tensor,
               (unsigned long long)l->level, l->memory, (unsigned long long)l->bytes_read,
               (unsigned long long)l->bytes_written, (unsigned long long)l->tiles_fetched,
               (unsigned long long)l->tiles_skipped, (unsigned long long)l->peak_bytes);
    }
}

static void print_chain(const stats_table *t, const int *chain, int n)
{
    printf("\ncritical chain (root first; each block to the producer of its last-arriving "
           "input):\n");
    if (n == 0)
        printf("  (no block was busy)\n");
    int wi = width(t, t->nblocks, block_id, 4), wt = width(t, t->nblocks, block_type, 4);
    for (int k = 0; k < n; k++) {
        const stats_block *b = &t->blocks[chain[k]];
        printf("  %-*s  %-*s  last active cycle %llu\n", wi, b->id, wt, b->type,
               (unsigned long long)b->span.last);
    }
}

static int summarise(const stats_table *t, int top, sam_error *err)
{
    int *blocks = stats_table_blocks_by_busy(t, err);
    int *streams = stats_table_streams_by_tokens(t, err);
    int *chain = NULL, n = 0;
    int rc = (t->nblocks && !blocks) || (t->nstreams && !streams) ||
                     stats_table_critical_chain(t, &chain, &n, err)
                 ? -1
                 : 0;
    if (rc == 0) {
        printf("run: %llu cycles, %llu token moves", (unsigned long long)t->cycles,
               (unsigned long long)t->tokens);
        if (t->incomplete)
            printf(" (incomplete: %s)", t->incomplete);
        putchar('\n');
        print_blocks(t, blocks, top);
        print_lanes(t);
        print_streams(t, streams, top);
        print_chain(t, chain, n);
        if (t->nmemories)
            print_memories(t);
        if (t->nlevels)
            print_levels(t);
    }
    free(blocks);
    free(streams);
    free(chain);
    return rc;
}

static void print_stalls(const timeline *t, const size_t *stalls, size_t n, size_t total)
{
    if (!total) {
        printf("longest stalls of %s: none (no blocked or starved slice)\n", t->path);
        return;
    }
    int wt = 5;
    char label[512];
    for (size_t i = 0; i < n; i++) {
        timeline_track_label(t, t->slices[stalls[i]].track, label, sizeof label);
        wt = (int)strlen(label) > wt ? (int)strlen(label) : wt;
    }
    printf("longest stalls of %s (%zu of %zu blocked and starved slices; in %s):\n", t->path, n,
           total, t->unit);
    printf("  %-*s  %-7s  %12s  %12s\n", wt, "track", "state", "from", "duration");
    for (size_t i = 0; i < n; i++) {
        const timeline_slice *s = &t->slices[stalls[i]];
        char from[32], dur[32];     /* cycles as whole numbers, microseconds as they are */
        snprintf(from, sizeof from, "%.15g", s->ts);
        snprintf(dur, sizeof dur, "%.15g", s->dur);
        timeline_track_label(t, s->track, label, sizeof label);
        printf("  %-*s  %-7s  %12s  %12s\n", wt, label, t->names[s->name], from, dur);
    }
}

/* The trace's stalls, after a blank line when the summary came first. */
static int stalls(const timeline *t, int top, int after_summary, sam_error *err)
{
    size_t *order, n, total;
    if (timeline_stalls(t, top, &order, &n, &total, err))
        return -1;
    if (after_summary)
        putchar('\n');
    print_stalls(t, order, n, total);
    free(order);
    return 0;
}

/* Reads what was asked, then prints it: an unreadable file prints nothing. */
static int report(const stats_opts *o, sam_error *err)
{
    stats_table st;
    timeline tl;
    if (o->path && stats_table_read(o->path, &st, err))
        return -1;
    int rc = o->stalls ? timeline_read(o->stalls, &tl, err) : 0;
    if (rc == 0 && o->path)
        rc = summarise(&st, o->top, err);
    if (rc == 0 && o->stalls)
        rc = stalls(&tl, o->top, o->path != NULL, err);
    if (o->path)
        stats_table_free(&st);
    if (o->stalls)
        timeline_free(&tl);
    return rc;
}

int cmd_stats(int argc, char **argv)
{
    stats_opts o;
    sam_error err;
    if (parse_args(argc, argv, &o, &err))
        return args_fail(&err);
    int rc = report(&o, &err);
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
        rc = error_set(&err, "standard output: write error");
    return rc ? args_fail(&err) : 0;
}

const cli_command cmd_stats_command = {
    .name = "stats",
    .run = cmd_stats,
    .synopsis = "[FILE.csv] [--stalls FILE.json] [--top N]",
    .about = "Summarises a statistics file of samsim run --stats: the busiest blocks, the "
        "streams with the most tokens, the critical chain and, for a run with memories, each "
        "memory and each tensor's tiles by level. With --stalls, after it or alone, the longest "
        "stalls of a trace of samsim run --trace.",
    .options = stats_options,
};
