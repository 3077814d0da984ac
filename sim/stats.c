#include "stats.h"

#include <csv.h>
#include <stdio.h>
#include <string.h>

#include "../common/atomic_file.h"

static const char *const columns[] = {
    "stream",     "producer",    "readers",      "kind",        "tokens",     "data",
    "stops",      "stop_s0",     "stop_s1",      "stop_s2",     "stop_s3_up", "empty",
    "done",       "repeat",      "repeat_stop",  "first_cycle", "last_cycle", "idle_between",
    "idle_before", "idle_after",
};
#define NCOLUMNS (sizeof columns / sizeof columns[0])

typedef struct row {
    char cell[NCOLUMNS][512];
} row;

static void cell_u64(row *r, int k, uint64_t v)
{
    snprintf(r->cell[k], sizeof r->cell[k], "%llu", (unsigned long long)v);
}

static void port_names(const sim_engine *e, const channel *c, char *producer, char *readers,
                       size_t size)
{
    const block *pb = &e->blocks[c->producer];
    for (int p = 0; p < pb->nout; p++)
        if (pb->out[p].ch == c)
            snprintf(producer, size, "%s:%s", pb->node->id, pb->out_names[p]);
    readers[0] = '\0';
    for (int r = 0; r < c->nreaders; r++) {
        const block *b = &e->blocks[c->readers[r].block];
        for (int p = 0; p < b->nin; p++)
            if (b->in[p].ch == c && b->in[p].reader == r) {
                size_t n = strlen(readers);
                snprintf(readers + n, size - n, "%s%s:%s", n ? " " : "", b->node->id,
                         b->in_names[p]);
            }
    }
}

static void fill_row(const sim_engine *e, int i, cycle_t cycles, row *r)
{
    const channel *c = &e->channels[i];
    const channel_stats *s = &c->stats;
    memset(r, 0, sizeof *r);
    cell_u64(r, 0, (uint64_t)i);
    port_names(e, c, r->cell[1], r->cell[2], sizeof r->cell[1]);
    snprintf(r->cell[3], sizeof r->cell[3], "%s", c->kind ? c->kind : "");
    uint64_t stops = 0;
    for (int l = 0; l < CHANNEL_STOP_LEVELS; l++) {
        stops += s->stops[l];
        cell_u64(r, 7 + l, s->stops[l]);
    }
    cell_u64(r, 4, c->pushed);
    cell_u64(r, 5, s->by_kind[TOKEN_CRD] + s->by_kind[TOKEN_VAL]);
    cell_u64(r, 6, stops);
    cell_u64(r, 11, s->by_kind[TOKEN_EMPTY]);
    cell_u64(r, 12, s->by_kind[TOKEN_DONE]);
    cell_u64(r, 13, s->by_kind[TOKEN_REPEAT]);
    cell_u64(r, 14, s->by_kind[TOKEN_REPSTOP]);
    if (!c->pushed) {
        cell_u64(r, 18, cycles);
        cell_u64(r, 19, 0);
        return;
    }
    /* One push per cycle at most: a channel has one producer port. */
    cycle_t last = c->buf[(c->tail - 1) & c->mask].visible - c->latency;
    cell_u64(r, 15, s->first_push);
    cell_u64(r, 16, last);
    cell_u64(r, 17, last - s->first_push + 1 - c->pushed);
    cell_u64(r, 18, s->first_push);
    cell_u64(r, 19, cycles > last + 1 ? cycles - last - 1 : 0);
}

static int write_row(FILE *f, const char *const *cells)
{
    for (size_t k = 0; k < NCOLUMNS; k++)
        if ((k && fputc(',', f) == EOF) || csv_fwrite(f, cells[k], strlen(cells[k])))
            return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

int sim_stats_write(const sim_engine *e, cycle_t cycles, const char *path, sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err))
        return -1;
    int rc = write_row(af.f, columns);
    row r;
    const char *cells[NCOLUMNS];
    for (size_t k = 0; k < NCOLUMNS; k++)
        cells[k] = r.cell[k];
    for (int i = 0; i < e->nchannels && !rc; i++) {
        /* The [0, D] fed to root blocks is the engine's, not a graph stream. */
        if (e->channels[i].producer < 0)
            continue;
        fill_row(e, i, cycles, &r);
        rc = write_row(af.f, cells);
    }
    if (rc) {
        atomic_file_discard(&af);
        return error_at(err, path, 0, "cannot write the statistics");
    }
    rc = atomic_file_close(&af, err);
    if (rc == 0)
        rc = atomic_file_publish(&af, err);
    atomic_file_discard(&af);
    return rc;
}
