#include "stats.h"

#include <csv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/atomic_file.h"

enum column {
    COL_ROW, COL_ID, COL_TYPE, COL_IMPL, COL_PRODUCER, COL_READERS, COL_KIND, COL_TOKENS,
    COL_DATA, COL_STOPS, COL_STOP_S0, COL_EMPTY = COL_STOP_S0 + CHANNEL_STOP_LEVELS, COL_DONE,
    COL_REPEAT, COL_REPEAT_STOP, COL_FIRST, COL_LAST, COL_IDLE_BETWEEN, COL_IDLE_BEFORE,
    COL_IDLE_AFTER, COL_BUSY, COL_STARVED, COL_BLOCKED, NCOLUMNS
};

static const char *const column_names[NCOLUMNS] = {
    "row",        "id",          "type",         "impl",         "producer",   "readers",
    "kind",       "tokens",      "data",         "stops",        "stop_s0",    "stop_s1",
    "stop_s2",    "stop_s3_up",  "empty",        "done",         "repeat",     "repeat_stop",
    "first_cycle", "last_cycle", "idle_between", "idle_before",  "idle_after", "busy",
    "starved",    "blocked",
};

/* A row's cells: numbers formatted in cell, strings (node ids and types
 * of any length) pointed to by text, the port lists built in ports. */
typedef struct row {
    char cell[NCOLUMNS][24];
    const char *text[NCOLUMNS];     /* NULL: the cell holds the value */
    char *ports[2];                 /* producer and readers, malloc'd */
} row;

static void cell_u64(row *r, int k, uint64_t v)
{
    snprintf(r->cell[k], sizeof r->cell[k], "%llu", (unsigned long long)v);
}

static void cell_str(row *r, int k, const char *s)
{
    r->text[k] = s ? s : "";
}

/* first_cycle .. idle_after of something active from first to last (in
 * `active` of those cycles) in a run of `cycles`. */
static void cell_span(row *r, cycle_t first, cycle_t last, uint64_t active, cycle_t cycles)
{
    cell_u64(r, COL_FIRST, first);
    cell_u64(r, COL_LAST, last);
    cell_u64(r, COL_IDLE_BETWEEN, last - first + 1 - active);
    cell_u64(r, COL_IDLE_BEFORE, first);
    cell_u64(r, COL_IDLE_AFTER, cycles > last + 1 ? cycles - last - 1 : 0);
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

static int port_names(const sim_engine *e, const channel *c, row *row)
{
    size_t size;
    FILE *producer = open_memstream(&row->ports[0], &size);
    FILE *readers = producer ? open_memstream(&row->ports[1], &size) : NULL;
    const block *pb = &e->blocks[c->producer];
    for (int p = 0; readers && p < pb->nout; p++)
        if (pb->out[p].ch == c)
            put_port(producer, pb->node->id, pb->out_names[p], 1);
    int n = 0;
    for (int r = 0; readers && r < c->nreaders; r++) {
        const block *b = &e->blocks[c->readers[r].block];
        for (int p = 0; p < b->nin; p++)
            if (b->in[p].ch == c && b->in[p].reader == r)
                put_port(readers, b->node->id, b->in_names[p], n++ == 0);
    }
    int rc = producer && fclose(producer) == 0 ? 0 : -1;
    if (readers && fclose(readers) != 0)
        rc = -1;
    return readers ? rc : -1;
}

static int fill_stream(const sim_engine *e, int i, cycle_t cycles, row *r)
{
    const channel *c = &e->channels[i];
    const channel_stats *s = &c->stats;
    cell_str(r, COL_ROW, "stream");
    cell_u64(r, COL_ID, (uint64_t)i);
    if (port_names(e, c, r))
        return -1;
    cell_str(r, COL_PRODUCER, r->ports[0]);
    cell_str(r, COL_READERS, r->ports[1]);
    cell_str(r, COL_KIND, c->kind);
    uint64_t stops = 0;
    for (int l = 0; l < CHANNEL_STOP_LEVELS; l++) {
        stops += s->stops[l];
        cell_u64(r, COL_STOP_S0 + l, s->stops[l]);
    }
    cell_u64(r, COL_TOKENS, c->pushed);
    cell_u64(r, COL_DATA, s->by_kind[TOKEN_CRD] + s->by_kind[TOKEN_VAL]);
    cell_u64(r, COL_STOPS, stops);
    cell_u64(r, COL_EMPTY, s->by_kind[TOKEN_EMPTY]);
    cell_u64(r, COL_DONE, s->by_kind[TOKEN_DONE]);
    cell_u64(r, COL_REPEAT, s->by_kind[TOKEN_REPEAT]);
    cell_u64(r, COL_REPEAT_STOP, s->by_kind[TOKEN_REPSTOP]);
    /* Only a run that did not complete has a stream without tokens. */
    if (!c->pushed) {
        cell_u64(r, COL_IDLE_BETWEEN, 0);
        cell_u64(r, COL_IDLE_BEFORE, cycles);
        cell_u64(r, COL_IDLE_AFTER, 0);
        return 0;
    }
    cell_span(r, s->first_push, s->last_push, s->push_cycles, cycles);
    return 0;
}

static void fill_block(const block *b, cycle_t cycles, row *r)
{
    const block_stats *s = &b->stats;
    cell_str(r, COL_ROW, "block");
    cell_str(r, COL_ID, b->node->id);
    cell_str(r, COL_TYPE, b->node->type);
    cell_str(r, COL_IMPL, b->ops->impl);
    uint64_t tokens = 0;
    for (int p = 0; p < b->nout; p++)
        tokens += b->out[p].ch ? b->out[p].ch->pushed : 0;
    cell_u64(r, COL_TOKENS, tokens);
    cell_u64(r, COL_BUSY, s->busy);
    cell_u64(r, COL_BLOCKED, s->blocked);
    if (!s->busy) {
        cell_u64(r, COL_IDLE_BETWEEN, 0);
        cell_u64(r, COL_STARVED, 0);
        cell_u64(r, COL_IDLE_BEFORE, cycles);
        cell_u64(r, COL_IDLE_AFTER, 0);
        return;
    }
    cell_u64(r, COL_STARVED, s->last_busy + 1 - s->busy - s->blocked);
    cell_span(r, s->first_busy, s->last_busy, s->busy, cycles);
}

static void fill_run(const sim_engine *e, cycle_t cycles, row *r)
{
    uint64_t tokens = 0;
    for (int c = 0; c < e->nchannels; c++)
        tokens += e->channels[c].pushed;
    cell_str(r, COL_ROW, "run");
    cell_u64(r, COL_TOKENS, tokens);
    cell_u64(r, COL_FIRST, 0);
    cell_u64(r, COL_LAST, cycles ? cycles - 1 : 0);
}

static int write_row(FILE *f, const char *const *cells)
{
    for (size_t k = 0; k < NCOLUMNS; k++)
        if ((k && fputc(',', f) == EOF) || csv_fwrite(f, cells[k], strlen(cells[k])))
            return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

/* Row k of the body: the run, the streams of the graph, the blocks; 0 when
 * k is past the end, -1 for a row that is skipped, -2 when memory ran out. */
static int fill_row(const sim_engine *e, cycle_t cycles, int k, row *r)
{
    memset(r, 0, sizeof *r);
    if (k == 0)
        return fill_run(e, cycles, r), 1;
    if (--k < e->nchannels) {
        /* The [0, D] fed to root blocks is the engine's, not a graph stream. */
        if (e->channels[k].producer < 0)
            return -1;
        return fill_stream(e, k, cycles, r) ? -2 : 1;
    }
    if ((k -= e->nchannels) < e->nblocks)
        return fill_block(&e->blocks[k], cycles, r), 1;
    return 0;
}

static int write_all(const sim_engine *e, cycle_t cycles, const char *incomplete, FILE *f)
{
    row r;
    const char *cells[NCOLUMNS];
    int rc = write_row(f, column_names), more;
    for (int k = 0; !rc && (more = fill_row(e, cycles, k, &r)) != 0; k++) {
        if (k == 0 && incomplete)
            cell_str(&r, COL_KIND, incomplete);
        for (size_t c = 0; c < NCOLUMNS; c++)
            cells[c] = r.text[c] ? r.text[c] : r.cell[c];
        if (more > 0)
            rc = write_row(f, cells);
        else if (more < -1)
            rc = -1;
        free(r.ports[0]);
        free(r.ports[1]);
    }
    return rc;
}

int sim_stats_write(const sim_engine *e, cycle_t cycles, const char *path, sam_error *err)
{
    return sim_stats_write_incomplete(e, cycles, NULL, path, err);
}

int sim_stats_write_incomplete(const sim_engine *e, cycle_t cycles, const char *why,
                               const char *path, sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err))
        return -1;
    if (write_all(e, cycles, why, af.f)) {
        atomic_file_discard(&af);
        return error_at(err, path, 0, "cannot write the statistics");
    }
    int rc = atomic_file_close(&af, err);
    if (rc == 0)
        rc = atomic_file_publish(&af, err);
    atomic_file_discard(&af);
    return rc;
}
