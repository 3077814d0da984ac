#include "stats.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/atomic_file.h"

enum column {
    COL_ROW, COL_ID, COL_TYPE, COL_IMPL, COL_PRODUCER, COL_READERS, COL_KIND, COL_TOKENS,
    COL_DATA, COL_STOPS, COL_STOP_S0, COL_EMPTY = COL_STOP_S0 + CHANNEL_STOP_LEVELS, COL_DONE,
    COL_REPEAT, COL_REPEAT_STOP, COL_FIRST, COL_LAST, COL_IDLE_BETWEEN, COL_IDLE_BEFORE,
    COL_IDLE_AFTER, COL_BUSY, COL_STARVED, COL_BLOCKED, COL_UNITS, COL_LEVEL, COL_MEMORY,
    COL_BYTES_READ, COL_BYTES_WRITTEN, COL_TILES_FETCHED, COL_TILES_SKIPPED, COL_PEAK_BYTES,
    COL_CAPACITY, NCOLUMNS
};

static const char *const column_names[NCOLUMNS] = {
    "row",        "id",          "type",         "impl",         "producer",   "readers",
    "kind",       "tokens",      "data",         "stops",        "stop_s0",    "stop_s1",
    "stop_s2",    "stop_s3_up",  "empty",        "done",         "repeat",     "repeat_stop",
    "first_cycle", "last_cycle", "idle_between", "idle_before",  "idle_after", "busy",
    "starved",    "blocked",     "units",        "level",        "memory",     "bytes_read",
    "bytes_written", "tiles_fetched", "tiles_skipped", "peak_bytes", "capacity_bytes",
};

/* A row's cells: numbers formatted in cell, strings (node ids and types
 * of any length) pointed to by text. */
typedef struct row {
    char cell[NCOLUMNS][24];
    const char *text[NCOLUMNS];     /* NULL: the cell holds the value */
} row;

static void cell_u64(row *r, int k, uint64_t v)
{
    snprintf(r->cell[k], sizeof r->cell[k], "%llu", (unsigned long long)v);
}

static void cell_bytes(row *r, int k, double v)
{
    snprintf(r->cell[k], sizeof r->cell[k], "%.0f", v);
}

static void cell_str(row *r, int k, const char *s)
{
    r->text[k] = s ? s : "";
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* first_cycle .. idle_after of a stream or block, its cells on every PE
 * (stride apart) summed, in a run of `cycles`; starved too for a block. */
static void cell_spans(row *r, const sim_stats_cell *c, int npe, size_t stride, cycle_t cycles,
                       int block)
{
    uint64_t between = 0, before = 0, after = 0, starved = 0;
    cycle_t first = 0, last = 0;
    int any = 0;
    for (int pe = 0; pe < npe; pe++, c += stride) {
        if (!c->active) {
            before += cycles;
            continue;
        }
        first = any && first < c->first ? first : c->first;
        last = any && last > c->last ? last : c->last;
        any = 1;
        between += sub0(c->last - c->first + 1, c->active);
        before += c->first;
        after += sub0(cycles, c->last + 1);
        starved += sub0(c->last + 1, c->active + c->blocked);
    }
    if (any) {
        cell_u64(r, COL_FIRST, first);
        cell_u64(r, COL_LAST, last);
    }
    cell_u64(r, COL_IDLE_BETWEEN, between);
    cell_u64(r, COL_IDLE_BEFORE, before);
    cell_u64(r, COL_IDLE_AFTER, after);
    if (block)
        cell_u64(r, COL_STARVED, starved);
}

/* NODE:PORT, the node id in quotes (a quote in it doubled) when it is
 * empty or holds a blank or a quote: readers are separated by blanks, and
 * any id DOT allows must read back as written (stats.h). */
static void put_port(FILE *f, const char *node, const char *port, int first)
{
    if (!first)
        fputc(' ', f);
    if (*node && !strpbrk(node, " \t\r\n\"")) {
        fprintf(f, "%s:%s", node, port);
        return;
    }
    fputc('"', f);
    for (const char *p = node; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fprintf(f, "\":%s", port);
}

/* Channel c's producer and readers, as ports[0] and ports[1]. */
static int port_names(const sim_engine *e, const channel *c, char **ports)
{
    size_t size;
    FILE *producer = open_memstream(&ports[0], &size);
    FILE *readers = producer ? open_memstream(&ports[1], &size) : NULL;
    const block *pb = &e->blocks[c->producer];
    for (int p = 0; readers && p < pb->nout; p++)
        if (pb->out[p].ch == c)
            put_port(producer, pb->node->id, pb->out_names[p], 1);
    int n = 0;
    for (int r = 0; readers && r < channel_readers(c); r++) {
        const block *b = &e->blocks[channel_reader_block(c, r)];
        for (int p = 0; p < b->nin; p++)
            if (b->in[p].ch == c && b->in[p].reader == r)
                put_port(readers, b->node->id, b->in_names[p], n++ == 0);
    }
    int rc = producer && fclose(producer) == 0 ? 0 : -1;
    if (readers && fclose(readers) != 0)
        rc = -1;
    return readers ? rc : -1;
}

int sim_stats_init(sim_stats *s, const sim_engine *e, int npe, sam_error *err)
{
    *s = (sim_stats){.nchannels = e->nchannels, .nblocks = e->nblocks, .npe = npe};
    size_t nc = (size_t)e->nchannels, nb = (size_t)e->nblocks;
    s->ports = calloc(2 * nc + 1, sizeof *s->ports);
    s->kinds = calloc(nc + 1, sizeof *s->kinds);
    s->nodes = calloc(nb + 1, sizeof *s->nodes);
    s->impls = calloc(nb + 1, sizeof *s->impls);
    s->cells = calloc((nc + nb) * (size_t)npe + 1, sizeof *s->cells);
    int rc = s->ports && s->kinds && s->nodes && s->impls && s->cells ? 0 : -1;
    for (int c = 0; !rc && c < e->nchannels; c++) {
        s->kinds[c] = e->channels[c].kind;
        /* The [0, D] fed to root blocks is the engine's, not a graph stream. */
        if (e->channels[c].producer >= 0)
            rc = port_names(e, &e->channels[c], &s->ports[2 * c]);
    }
    for (int b = 0; !rc && b < e->nblocks; b++) {
        s->nodes[b] = e->blocks[b].node;
        s->impls[b] = e->blocks[b].ops->impl;
    }
    if (rc) {
        sim_stats_free(s);
        return error_set(err, "out of memory");
    }
    return 0;
}

/* Activity over cycles first..last of a run placed at start. */
static void cell_activity(sim_stats_cell *c, uint64_t active, cycle_t first, cycle_t last,
                          cycle_t start)
{
    if (!active)
        return;
    if (!c->active)
        c->first = start + first;
    c->active += active;
    c->last = start + last;
}

void sim_stats_add(sim_stats *s, const sim_engine *e, int pe, cycle_t start)
{
    sim_stats_cell *cells = &s->cells[(size_t)pe * (size_t)(s->nchannels + s->nblocks)];
    for (int k = 0; k < s->nchannels; k++) {
        const channel *ch = &e->channels[k];
        sim_stats_cell *c = &cells[k];
        c->tokens += ch->pushed;
        for (int i = 0; i < TOKEN_KINDS; i++)
            c->by_kind[i] += ch->stats.by_kind[i];
        for (int l = 0; l < CHANNEL_STOP_LEVELS; l++)
            c->stops[l] += ch->stats.stops[l];
        if (ch->pushed)
            cell_activity(c, ch->stats.push_cycles, ch->stats.first_push, ch->stats.last_push,
                          start);
    }
    for (int k = 0; k < s->nblocks; k++) {
        const block *b = &e->blocks[k];
        sim_stats_cell *c = &cells[s->nchannels + k];
        for (int p = 0; p < b->nout; p++)
            c->tokens += b->out[p].ch ? b->out[p].ch->pushed : 0;
        c->blocked += b->stats.blocked;
        cell_activity(c, b->stats.busy, b->stats.first_busy, b->stats.last_busy, start);
    }
}

void sim_stats_free(sim_stats *s)
{
    for (int c = 0; s->ports && c < 2 * s->nchannels; c++)
        free(s->ports[c]);
    free(s->ports);
    free(s->kinds);
    free(s->nodes);
    free(s->impls);
    free(s->cells);
    *s = (sim_stats){0};
}

static size_t stride(const sim_stats *s)
{
    return (size_t)(s->nchannels + s->nblocks);
}

static void fill_stream(const sim_stats *s, int k, cycle_t cycles, row *r)
{
    sim_stats_cell sum = {0};
    for (int pe = 0; pe < s->npe; pe++) {
        const sim_stats_cell *c = &s->cells[(size_t)pe * stride(s) + (size_t)k];
        sum.tokens += c->tokens;
        for (int i = 0; i < TOKEN_KINDS; i++)
            sum.by_kind[i] += c->by_kind[i];
        for (int l = 0; l < CHANNEL_STOP_LEVELS; l++)
            sum.stops[l] += c->stops[l];
    }
    cell_str(r, COL_ROW, "stream");
    cell_u64(r, COL_ID, (uint64_t)k);
    cell_str(r, COL_PRODUCER, s->ports[2 * k]);
    cell_str(r, COL_READERS, s->ports[2 * k + 1]);
    cell_str(r, COL_KIND, s->kinds[k]);
    uint64_t stops = 0;
    for (int l = 0; l < CHANNEL_STOP_LEVELS; l++) {
        stops += sum.stops[l];
        cell_u64(r, COL_STOP_S0 + l, sum.stops[l]);
    }
    cell_u64(r, COL_TOKENS, sum.tokens);
    cell_u64(r, COL_DATA, sum.by_kind[TOKEN_CRD] + sum.by_kind[TOKEN_VAL]);
    cell_u64(r, COL_STOPS, stops);
    cell_u64(r, COL_EMPTY, sum.by_kind[TOKEN_EMPTY]);
    cell_u64(r, COL_DONE, sum.by_kind[TOKEN_DONE]);
    cell_u64(r, COL_REPEAT, sum.by_kind[TOKEN_REPEAT]);
    cell_u64(r, COL_REPEAT_STOP, sum.by_kind[TOKEN_REPSTOP]);
    cell_spans(r, &s->cells[k], s->npe, stride(s), cycles, 0);
}

static void fill_block(const sim_stats *s, int k, cycle_t cycles, row *r)
{
    uint64_t tokens = 0, busy = 0, blocked = 0;
    const sim_stats_cell *first = &s->cells[s->nchannels + k];
    for (int pe = 0; pe < s->npe; pe++) {
        const sim_stats_cell *c = first + (size_t)pe * stride(s);
        tokens += c->tokens;
        busy += c->active;
        blocked += c->blocked;
    }
    cell_str(r, COL_ROW, "block");
    cell_str(r, COL_ID, s->nodes[k]->id);
    cell_str(r, COL_TYPE, s->nodes[k]->type);
    cell_str(r, COL_IMPL, s->impls[k]);
    cell_u64(r, COL_TOKENS, tokens);
    cell_u64(r, COL_BUSY, busy);
    cell_u64(r, COL_BLOCKED, blocked);
    cell_spans(r, first, s->npe, stride(s), cycles, 1);
}

/* The lane block k runs in (its node's lane=L), or -1. */
static int block_lane(const sim_stats *s, int k)
{
    const char *lane = graph_node_attr(s->nodes[k], "lane");
    return lane ? atoi(lane) : -1;
}

static int lane_count(const sim_stats *s)
{
    int n = 0;
    for (int k = 0; k < s->nblocks; k++)
        if (block_lane(s, k) >= n)
            n = block_lane(s, k) + 1;
    return n;
}

/* Lane l's blocks together: how many, their tokens, and the busy cycles
 * of the busiest, which bounds the lane's time. */
static void fill_lane(const sim_stats *s, int lane, row *r)
{
    uint64_t tokens = 0, busiest = 0, blocks = 0;
    for (int k = 0; k < s->nblocks; k++) {
        if (block_lane(s, k) != lane)
            continue;
        uint64_t busy = 0;
        for (int pe = 0; pe < s->npe; pe++) {
            const sim_stats_cell *c = &s->cells[(size_t)pe * stride(s) + s->nchannels + k];
            tokens += c->tokens;
            busy += c->active;
        }
        blocks++;
        busiest = busy > busiest ? busy : busiest;
    }
    cell_str(r, COL_ROW, "lane");
    cell_u64(r, COL_ID, (uint64_t)lane);
    cell_u64(r, COL_UNITS, blocks);
    cell_u64(r, COL_TOKENS, tokens);
    cell_u64(r, COL_BUSY, busiest);
}

static void fill_run(const sim_stats *s, cycle_t cycles, row *r)
{
    uint64_t tokens = 0;
    for (int pe = 0; pe < s->npe; pe++)
        for (int c = 0; c < s->nchannels; c++)
            tokens += s->cells[(size_t)pe * stride(s) + (size_t)c].tokens;
    cell_str(r, COL_ROW, "run");
    cell_u64(r, COL_TOKENS, tokens);
    cell_u64(r, COL_FIRST, 0);
    cell_u64(r, COL_LAST, cycles ? cycles - 1 : 0);
}

/* The memories that hold something, outermost first: DRAM, and the
 * buffers of the tiling levels (an LLB that only passes tiles through
 * has no row: its link is DRAM's). */
static int memories(const mem_model *m, hw_memory_id *ids)
{
    int n = 0;
    ids[n++] = HW_DRAM;
    for (int l = 0; l < m->nlevels; l++)
        ids[n++] = mem_level_buffer(m, l);
    return n;
}

static void fill_memory(const sim_stats *s, hw_memory_id id, row *r)
{
    const mem_model *m = s->memory;
    double read = 0, written = 0;
    for (int t = 0; t <= m->ntensors; t++) {
        read += m->traffic[t].read[id];
        written += m->traffic[t].written[id];
    }
    cell_str(r, COL_ROW, "memory");
    cell_str(r, COL_ID, hw_memory_names[id]);
    cell_u64(r, COL_UNITS, id == HW_DRAM ? 1 : (uint64_t)m->npe);
    cell_u64(r, COL_BUSY, (uint64_t)ceil(m->usage[id].busy));
    cell_bytes(r, COL_BYTES_READ, read);
    cell_bytes(r, COL_BYTES_WRITTEN, written);
    if (id != HW_DRAM) {
        cell_bytes(r, COL_PEAK_BYTES, m->usage[id].peak);
        cell_bytes(r, COL_CAPACITY, m->hw.mem[id].capacity);
    }
}

/* Tensor t's (the result when t is ntensors) tiles at level l. */
static void fill_tensor(const sim_stats *s, int t, int l, row *r)
{
    const mem_model *m = s->memory;
    const mem_traffic *tr = &m->traffic[t];
    hw_memory_id at = mem_level_buffer(m, l), from = mem_tensor_source(m, t, l);
    /* A tensor that passes through the LLB moved nothing at its level. */
    int held = mem_tensor_held(m, t, l);
    cell_str(r, COL_ROW, "tensor");
    cell_str(r, COL_ID, s->names[t]);
    cell_u64(r, COL_LEVEL, (uint64_t)l);
    cell_str(r, COL_MEMORY, hw_memory_names[at]);
    cell_bytes(r, COL_BYTES_READ, held ? tr->read[from] : 0);
    cell_bytes(r, COL_BYTES_WRITTEN, held ? tr->written[from] : 0);
    cell_u64(r, COL_TILES_FETCHED, !held ? 0 : t < m->ntensors ? tr->fetched[at] : tr->flushed[at]);
    cell_u64(r, COL_TILES_SKIPPED, held ? tr->skipped[at] : 0);
    cell_bytes(r, COL_PEAK_BYTES, held ? tr->peak[at] : 0);
}

/* The memories' rows after the graph's: k counts from the first. */
static int fill_memory_row(const sim_stats *s, int k, row *r)
{
    const mem_model *m = s->memory;
    if (!m)
        return 0;
    hw_memory_id ids[HW_MEMORIES];
    int n = memories(m, ids);
    if (k < n)
        return fill_memory(s, ids[k], r), 1;
    k -= n;
    if (k < (m->ntensors + 1) * m->nlevels)
        return fill_tensor(s, k / m->nlevels, k % m->nlevels, r), 1;
    return 0;
}

static int write_row(FILE *f, const char *const *cells)
{
    for (size_t k = 0; k < NCOLUMNS; k++)
        if ((k && fputc(',', f) == EOF) || csv_fwrite(f, cells[k], strlen(cells[k])))
            return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

/* Row k of the body: the run, the streams of the graph, the blocks, the
 * lanes, the memories; 0 when k is past the end, -1 for a row that is
 * skipped. */
static int fill_row(const sim_stats *s, cycle_t cycles, int k, row *r)
{
    memset(r, 0, sizeof *r);
    if (k == 0)
        return fill_run(s, cycles, r), 1;
    if (--k < s->nchannels) {
        if (!s->ports[2 * k])
            return -1;
        return fill_stream(s, k, cycles, r), 1;
    }
    if ((k -= s->nchannels) < s->nblocks)
        return fill_block(s, k, cycles, r), 1;
    int lanes = lane_count(s);
    if ((k -= s->nblocks) < lanes)
        return fill_lane(s, k, r), 1;
    return fill_memory_row(s, k - lanes, r);
}

static int write_all(const sim_stats *s, cycle_t cycles, const char *incomplete, FILE *f)
{
    row r;
    const char *cells[NCOLUMNS];
    int rc = write_row(f, column_names), more;
    for (int k = 0; !rc && (more = fill_row(s, cycles, k, &r)) != 0; k++) {
        if (k == 0 && incomplete)
            cell_str(&r, COL_KIND, incomplete);
        for (size_t c = 0; c < NCOLUMNS; c++)
            cells[c] = r.text[c] ? r.text[c] : r.cell[c];
        if (more > 0)
            rc = write_row(f, cells);
    }
    return rc;
}

int sim_stats_write_rows(const sim_stats *s, cycle_t cycles, const char *why, const char *path,
                         sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err))
        return -1;
    errno = 0;
    if (write_all(s, cycles, why, af.f)) {
        int e = errno;
        atomic_file_discard(&af);
        return error_at(err, path, 0, "cannot write the statistics: %s",
                        e ? strerror(e) : "write error");
    }
    int rc = atomic_file_close(&af, err);
    if (rc == 0)
        rc = atomic_file_publish(&af, err);
    atomic_file_discard(&af);
    return rc;
}

int sim_stats_write(const sim_engine *e, cycle_t cycles, const char *path, sam_error *err)
{
    return sim_stats_write_incomplete(e, cycles, NULL, path, err);
}

int sim_stats_write_incomplete(const sim_engine *e, cycle_t cycles, const char *why,
                               const char *path, sam_error *err)
{
    sim_stats s;
    if (sim_stats_init(&s, e, 1, err))
        return -1;
    sim_stats_add(&s, e, 0, 0);
    int rc = sim_stats_write_rows(&s, cycles, why, path, err);
    sim_stats_free(&s);
    return rc;
}
