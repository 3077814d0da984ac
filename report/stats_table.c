/* Reading the statistics CSV with libcsv's push parser: the file is fed a
 * line at a time, so that when a record ends the line being fed is the
 * line to name in a message. */
#include "stats_table.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

/* The columns from C_UNITS on came with tiled runs: a file written before
 * them has none, and only memory and tensor rows need them. */
enum column {
    C_ROW, C_ID, C_TYPE, C_IMPL, C_PRODUCER, C_READERS, C_KIND, C_TOKENS, C_DATA, C_STOPS,
    C_EMPTY, C_DONE, C_REPEAT, C_REPEAT_STOP, C_FIRST, C_LAST, C_IDLE_BETWEEN, C_IDLE_BEFORE,
    C_IDLE_AFTER, C_BUSY, C_STARVED, C_BLOCKED, C_UNITS, C_LEVEL, C_MEMORY, C_BYTES_READ,
    C_BYTES_WRITTEN, C_TILES_FETCHED, C_TILES_SKIPPED, C_PEAK_BYTES, C_CAPACITY, NCOLUMNS
};

static const char *const column_names[NCOLUMNS] = {
    "row", "id", "type", "impl", "producer", "readers", "kind", "tokens", "data", "stops",
    "empty", "done", "repeat", "repeat_stop", "first_cycle", "last_cycle", "idle_between",
    "idle_before", "idle_after", "busy", "starved", "blocked", "units", "level", "memory",
    "bytes_read", "bytes_written", "tiles_fetched", "tiles_skipped", "peak_bytes",
    "capacity_bytes",
};

/* The optional columns a memory row and a tensor row read, up to NCOLUMNS. */
static const enum column memory_columns[] = {C_UNITS, C_BYTES_READ, C_BYTES_WRITTEN,
                                             C_PEAK_BYTES, NCOLUMNS};
static const enum column tensor_columns[] = {C_LEVEL, C_MEMORY, C_BYTES_READ, C_BYTES_WRITTEN,
                                             C_TILES_FETCHED, C_TILES_SKIPPED, C_PEAK_BYTES,
                                             NCOLUMNS};

typedef struct reader {
    const char *path;
    long line;
    sam_error *err;
    int failed;
    char **fields;          /* of the record being read */
    int nfields;
    size_t cap;
    int nheader;            /* 0 until the header was read */
    int col[NCOLUMNS];      /* field index of each column, -1 for an optional
                               one the header lacks */
    int nrun;
    size_t stream_cap, block_cap, lane_cap, memory_cap, level_cap;
    stats_table *t;
} reader;

/* ---- failures --------------------------------------------------------- */

static void fail_nomem(reader *r)
{
    if (!r->failed)
        error_at(r->err, r->path, r->line, "out of memory");
    r->failed = 1;
}

static int fail_cell(reader *r, enum column c, const char *what)
{
    r->failed = 1;
    return error_at(r->err, r->path, r->line, "column %s: '%s' %s", column_names[c],
                    r->fields[r->col[c]], what);
}

/* ---- cells ------------------------------------------------------------ */

static const char *cell(const reader *r, enum column c)
{
    return r->fields[r->col[c]];
}

static int cell_u64(reader *r, enum column c, uint64_t *out)
{
    const char *s = cell(r, c);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s < '0' || *s > '9' || *end != '\0' || errno)
        return fail_cell(r, c, "is not a non-negative integer");
    *out = v;
    return 0;
}

static int cell_str(reader *r, enum column c, char **out)
{
    if (!(*out = strdup(cell(r, c)))) {
        fail_nomem(r);
        return -1;
    }
    return 0;
}

/* first_cycle and last_cycle both empty: nothing happened. */
static int cell_span(reader *r, stats_span *s)
{
    s->active = *cell(r, C_FIRST) || *cell(r, C_LAST);
    if (s->active && (cell_u64(r, C_FIRST, &s->first) || cell_u64(r, C_LAST, &s->last)))
        return -1;
    return cell_u64(r, C_IDLE_BEFORE, &s->idle_before) ||
                   cell_u64(r, C_IDLE_BETWEEN, &s->idle_between) ||
                   cell_u64(r, C_IDLE_AFTER, &s->idle_after)
               ? -1
               : 0;
}

/* "NODE:PORT"; node ids may hold colons, port names do not. */
static int split_port(reader *r, enum column c, const char *s, size_t len, stats_port *p)
{
    const char *colon = NULL;
    for (const char *q = s; q < s + len; q++)
        if (*q == ':')
            colon = q;
    if (!colon || colon == s || colon == s + len - 1)
        return fail_cell(r, c, "is not NODE:PORT");
    p->node = strndup(s, (size_t)(colon - s));
    p->port = strndup(colon + 1, (size_t)(s + len - colon - 1));
    if (!p->node || !p->port) {
        fail_nomem(r);
        return -1;
    }
    return 0;
}

/* "NODE":PORT, quotes in NODE doubled (stats.h), at *s; moves past it. */
static int quoted_port(reader *r, enum column c, const char **s, stats_port *p)
{
    const char *q = *s + 1;
    char *node = malloc(strlen(q) + 1);
    if (!(p->node = node)) {
        fail_nomem(r);
        return -1;
    }
    for (; *q && !(*q == '"' && q[1] != '"'); q++) {
        q += *q == '"';
        *node++ = *q;
    }
    *node = '\0';
    if (q[0] != '"' || q[1] != ':' || q[2] == ' ' || q[2] == '\0')
        return fail_cell(r, c, "is not NODE:PORT");
    size_t len = strcspn(q + 2, " ");
    if (!(p->port = strndup(q + 2, len))) {
        fail_nomem(r);
        return -1;
    }
    *s = q + 2 + len;
    return 0;
}

/* One NODE:PORT at *s, the node id quoted or bare; moves past it. */
static int next_port(reader *r, enum column c, const char **s, stats_port *p)
{
    if (**s == '"')
        return quoted_port(r, c, s, p);
    size_t len = strcspn(*s, " ");
    const char *start = *s;
    *s += len;
    return split_port(r, c, start, len, p);
}

static int cell_producer(reader *r, stats_stream *s)
{
    const char *text = cell(r, C_PRODUCER);
    if (next_port(r, C_PRODUCER, &text, &s->producer))
        return -1;
    return *text ? fail_cell(r, C_PRODUCER, "is not NODE:PORT") : 0;
}

/* s is a new row: every reader of it is added here, from no room. */
static int cell_readers(reader *r, stats_stream *s)
{
    const char *text = cell(r, C_READERS);
    size_t cap = 0;
    for (const char *p = text + strspn(text, " "); *p; p += strspn(p, " ")) {
        stats_port *more = grow_array(s->readers, (size_t)s->nreaders, &cap, sizeof *more, 4);
        if (!more) {
            fail_nomem(r);
            return -1;
        }
        s->readers = more;
        stats_port *rp = &s->readers[s->nreaders++];
        *rp = (stats_port){0};
        if (next_port(r, C_READERS, &p, rp))
            return -1;
    }
    return 0;
}

/* ---- rows ------------------------------------------------------------- */

static int read_run(reader *r)
{
    stats_table *t = r->t;
    if (++r->nrun > 1) {
        r->failed = 1;
        return error_at(r->err, r->path, r->line, "a second run row");
    }
    uint64_t last = 0;
    if (cell_u64(r, C_TOKENS, &t->tokens) || (*cell(r, C_LAST) && cell_u64(r, C_LAST, &last)))
        return -1;
    t->cycles = *cell(r, C_LAST) ? last + 1 : 0;
    const char *why = cell(r, C_KIND);
    if (!*why)
        return 0;
    if (strcmp(why, "deadlock") && strcmp(why, "stopped"))
        return fail_cell(r, C_KIND, "is not empty, deadlock or stopped");
    return cell_str(r, C_KIND, &t->incomplete);
}

/* Grows *items (of *n, room for *cap) by one zeroed item of size bytes. */
static void *grow(reader *r, void **items, int *n, size_t *cap, size_t size)
{
    char *more = grow_array(*items, (size_t)*n, cap, size, 16);
    if (!more) {
        fail_nomem(r);
        return NULL;
    }
    *items = more;
    char *item = more + (size_t)(*n)++ * size;
    memset(item, 0, size);
    return item;
}

static int read_stream(reader *r)
{
    stats_table *t = r->t;
    stats_stream *s = grow(r, (void **)&t->streams, &t->nstreams, &r->stream_cap, sizeof *s);
    if (!s)
        return -1;
    s->line = r->line;
    return cell_str(r, C_ID, &s->id) || cell_str(r, C_KIND, &s->kind) ||
                   cell_producer(r, s) ||
                   cell_readers(r, s) || cell_u64(r, C_TOKENS, &s->tokens) ||
                   cell_u64(r, C_DATA, &s->data) || cell_u64(r, C_STOPS, &s->stops) ||
                   cell_u64(r, C_EMPTY, &s->empty) || cell_u64(r, C_DONE, &s->done) ||
                   cell_u64(r, C_REPEAT, &s->repeat) ||
                   cell_u64(r, C_REPEAT_STOP, &s->repeat_stop) || cell_span(r, &s->span)
               ? -1
               : 0;
}

static int read_block(reader *r)
{
    stats_table *t = r->t;
    if (stats_table_block_find(t, cell(r, C_ID)) >= 0) {
        r->failed = 1;
        return error_at(r->err, r->path, r->line, "a second row for block %s", cell(r, C_ID));
    }
    stats_block *b = grow(r, (void **)&t->blocks, &t->nblocks, &r->block_cap, sizeof *b);
    if (!b)
        return -1;
    b->line = r->line;
    return cell_str(r, C_ID, &b->id) || cell_str(r, C_TYPE, &b->type) ||
                   cell_str(r, C_IMPL, &b->impl) || cell_u64(r, C_TOKENS, &b->tokens) ||
                   cell_u64(r, C_BUSY, &b->busy) || cell_u64(r, C_STARVED, &b->starved) ||
                   cell_u64(r, C_BLOCKED, &b->blocked) || cell_span(r, &b->span)
               ? -1
               : 0;
}

static const enum column lane_columns[] = {C_UNITS, NCOLUMNS};

static int need_columns(reader *r, const char *kind, const enum column *cols);

static int read_lane(reader *r)
{
    stats_table *t = r->t;
    if (need_columns(r, "lane", lane_columns))
        return -1;
    stats_lane *l = grow(r, (void **)&t->lanes, &t->nlanes, &r->lane_cap, sizeof *l);
    if (!l)
        return -1;
    return cell_str(r, C_ID, &l->id) || cell_u64(r, C_UNITS, &l->blocks) ||
                   cell_u64(r, C_TOKENS, &l->tokens) || cell_u64(r, C_BUSY, &l->busy)
               ? -1
               : 0;
}

/* A memory or tensor row, in a file whose header may predate its columns. */
static int need_columns(reader *r, const char *kind, const enum column *cols)
{
    for (; *cols != NCOLUMNS; cols++)
        if (r->col[*cols] < 0) {
            r->failed = 1;
            return error_at(r->err, r->path, r->line, "a %s row needs column '%s', which the "
                            "header lacks", kind, column_names[*cols]);
        }
    return 0;
}

static int memory_find(const stats_table *t, const char *id)
{
    for (int i = 0; i < t->nmemories; i++)
        if (t->memories[i].id && !strcmp(t->memories[i].id, id))
            return i;
    return -1;
}

/* A memory of no units would have no share of the run to be busy in. */
static int cell_units(reader *r, uint64_t *out)
{
    if (cell_u64(r, C_UNITS, out))
        return -1;
    return *out ? 0 : fail_cell(r, C_UNITS, "is not a positive integer");
}

/* peak_bytes empty: a memory without buffers to fill (dram); its
 * capacity_bytes, a column files before it lack, likewise. */
static int cell_peak(reader *r, stats_memory *m)
{
    m->has_peak = *cell(r, C_PEAK_BYTES) != '\0';
    m->has_capacity = r->col[C_CAPACITY] >= 0 && *cell(r, C_CAPACITY) != '\0';
    return (m->has_peak && cell_u64(r, C_PEAK_BYTES, &m->peak_bytes)) ||
           (m->has_capacity && cell_u64(r, C_CAPACITY, &m->capacity));
}

static int read_memory(reader *r)
{
    stats_table *t = r->t;
    if (need_columns(r, "memory", memory_columns))
        return -1;
    const char *id = cell(r, C_ID);
    if (strcmp(id, "dram") && strcmp(id, "llb") && strcmp(id, "pe"))
        return fail_cell(r, C_ID, "is not dram, llb or pe");
    if (memory_find(t, id) >= 0) {
        r->failed = 1;
        return error_at(r->err, r->path, r->line, "a second row for memory %s", id);
    }
    stats_memory *m = grow(r, (void **)&t->memories, &t->nmemories, &r->memory_cap, sizeof *m);
    if (!m)
        return -1;
    m->line = r->line;
    return cell_str(r, C_ID, &m->id) || cell_units(r, &m->units) ||
                   cell_u64(r, C_BUSY, &m->busy) || cell_u64(r, C_BYTES_READ, &m->bytes_read) ||
                   cell_u64(r, C_BYTES_WRITTEN, &m->bytes_written) || cell_peak(r, m)
               ? -1
               : 0;
}

static int level_find(const stats_table *t, const char *tensor, uint64_t level)
{
    for (int i = 0; i < t->nlevels; i++)
        if (t->levels[i].tensor && !strcmp(t->levels[i].tensor, tensor) &&
            t->levels[i].level == level)
            return i;
    return -1;
}

/* Whether the memory has a row is checked once all rows are read
 * (check_memories), so that rows may come in any order. */
static int read_tensor(reader *r)
{
    stats_table *t = r->t;
    uint64_t level;
    if (need_columns(r, "tensor", tensor_columns) || cell_u64(r, C_LEVEL, &level))
        return -1;
    const char *memory = cell(r, C_MEMORY);
    if (strcmp(memory, "llb") && strcmp(memory, "pe"))
        return fail_cell(r, C_MEMORY, "is not llb or pe");
    if (level_find(t, cell(r, C_ID), level) >= 0) {
        r->failed = 1;
        return error_at(r->err, r->path, r->line, "a second row for tensor %s at level %llu",
                        cell(r, C_ID), (unsigned long long)level);
    }
    stats_tensor_level *l = grow(r, (void **)&t->levels, &t->nlevels, &r->level_cap, sizeof *l);
    if (!l)
        return -1;
    l->line = r->line;
    l->level = level;
    return cell_str(r, C_ID, &l->tensor) || cell_str(r, C_MEMORY, &l->memory) ||
                   cell_u64(r, C_BYTES_READ, &l->bytes_read) ||
                   cell_u64(r, C_BYTES_WRITTEN, &l->bytes_written) ||
                   cell_u64(r, C_TILES_FETCHED, &l->tiles_fetched) ||
                   cell_u64(r, C_TILES_SKIPPED, &l->tiles_skipped) ||
                   cell_u64(r, C_PEAK_BYTES, &l->peak_bytes)
               ? -1
               : 0;
}

static void read_header(reader *r)
{
    for (int c = 0; c < NCOLUMNS; c++) {
        r->col[c] = -1;
        for (int k = 0; k < r->nfields && r->col[c] < 0; k++)
            if (!strcmp(r->fields[k], column_names[c]))
                r->col[c] = k;
        if (r->col[c] < 0 && c < C_UNITS) {
            r->failed = 1;
            error_at(r->err, r->path, r->line, "the header has no column '%s'", column_names[c]);
            return;
        }
    }
    r->nheader = r->nfields;
}

static void read_record(reader *r)
{
    if (!r->nheader) {
        read_header(r);
        return;
    }
    if (r->nfields != r->nheader) {
        r->failed = 1;
        error_at(r->err, r->path, r->line, "%d fields where the header has %d", r->nfields,
                 r->nheader);
        return;
    }
    const char *kind = cell(r, C_ROW);
    if (!strcmp(kind, "run"))
        read_run(r);
    else if (!strcmp(kind, "stream"))
        read_stream(r);
    else if (!strcmp(kind, "block"))
        read_block(r);
    else if (!strcmp(kind, "lane"))
        read_lane(r);
    else if (!strcmp(kind, "memory"))
        read_memory(r);
    else if (!strcmp(kind, "tensor"))
        read_tensor(r);
    else {
        r->failed = 1;
        error_at(r->err, r->path, r->line,
                 "unknown row kind '%s' (run, stream, block, lane, memory or tensor)", kind);
    }
}

/* ---- libcsv callbacks ------------------------------------------------- */

static void clear_fields(reader *r)
{
    for (int k = 0; k < r->nfields; k++)
        free(r->fields[k]);
    r->nfields = 0;
}

static void on_field(void *s, size_t len, void *data)
{
    reader *r = data;
    if (r->failed)
        return;
    char **more = grow_array(r->fields, (size_t)r->nfields, &r->cap, sizeof *more, 32);
    if (!more) {
        fail_nomem(r);
        return;
    }
    r->fields = more;
    char *f = strndup(s ? s : "", len);
    if (!f) {
        fail_nomem(r);
        return;
    }
    r->fields[r->nfields++] = f;
}

static void on_record(int c, void *data)
{
    (void)c;
    reader *r = data;
    if (!r->failed)
        read_record(r);
    clear_fields(r);
}

/* ---- the file --------------------------------------------------------- */

static void parse_error(reader *r, struct csv_parser *p)
{
    if (r->failed)
        return;
    r->failed = 1;
    if (csv_error(p) == CSV_EPARSE)
        error_at(r->err, r->path, r->line, "malformed CSV: a quote out of place or unclosed");
    else
        error_at(r->err, r->path, r->line, "%s", csv_strerror(csv_error(p)));
}

static void parse_file(reader *r, FILE *f, struct csv_parser *p)
{
    char *buf = NULL;
    size_t size = 0;
    ssize_t n;
    while (!r->failed && (n = getline(&buf, &size, f)) > 0) {
        r->line++;
        if (csv_parse(p, buf, (size_t)n, on_field, on_record, r) != (size_t)n)
            parse_error(r, p);
    }
    free(buf);
    if (!r->failed && ferror(f)) {
        r->failed = 1;
        error_at(r->err, r->path, 0, "read error: %s", strerror(errno));
    }
    if (!r->failed && csv_fini(p, on_field, on_record, r) != 0)
        parse_error(r, p);
}

static void check_complete(reader *r)
{
    if (r->failed)
        return;
    if (!r->nheader)
        error_at(r->err, r->path, 0, "empty file: no header");
    else if (!r->nrun)
        error_at(r->err, r->path, 0, "no run row");
    else
        return;
    r->failed = 1;
}

/* When the file has memory rows, every tensor's memory is one of them. */
static void check_memories(reader *r)
{
    const stats_table *t = r->t;
    for (int i = 0; i < t->nlevels && t->nmemories && !r->failed; i++) {
        const stats_tensor_level *l = &t->levels[i];
        if (memory_find(t, l->memory) < 0) {
            r->failed = 1;
            error_at(r->err, r->path, l->line, "column memory: '%s' has no memory row",
                     l->memory);
        }
    }
}

int stats_table_read(const char *path, stats_table *t, sam_error *err)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return error_at(err, path, 0, "cannot open: %s", strerror(errno));
    struct csv_parser p;
    reader r = {.path = path, .err = err, .t = t};
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        fclose(f);
        return error_at(err, path, 0, "out of memory");
    }
    parse_file(&r, f, &p);
    check_complete(&r);
    check_memories(&r);
    csv_free(&p);
    fclose(f);
    clear_fields(&r);
    free(r.fields);
    if (r.failed) {
        stats_table_free(t);
        return -1;
    }
    return 0;
}

static void free_port(stats_port *p)
{
    free(p->node);
    free(p->port);
}

void stats_table_free(stats_table *t)
{
    for (int i = 0; i < t->nstreams; i++) {
        stats_stream *s = &t->streams[i];
        free(s->id);
        free(s->kind);
        free_port(&s->producer);
        for (int k = 0; k < s->nreaders; k++)
            free_port(&s->readers[k]);
        free(s->readers);
    }
    for (int i = 0; i < t->nblocks; i++) {
        free(t->blocks[i].id);
        free(t->blocks[i].type);
        free(t->blocks[i].impl);
    }
    for (int i = 0; i < t->nlanes; i++)
        free(t->lanes[i].id);
    for (int i = 0; i < t->nmemories; i++)
        free(t->memories[i].id);
    for (int i = 0; i < t->nlevels; i++) {
        free(t->levels[i].tensor);
        free(t->levels[i].memory);
    }
    free(t->incomplete);
    free(t->streams);
    free(t->blocks);
    free(t->lanes);
    free(t->memories);
    free(t->levels);
    memset(t, 0, sizeof *t);
}

/* ---- analyses --------------------------------------------------------- */

int stats_table_block_find(const stats_table *t, const char *id)
{
    for (int i = 0; i < t->nblocks; i++)
        if (t->blocks[i].id && !strcmp(t->blocks[i].id, id))
            return i;
    return -1;
}

int stats_stream_reads(const stats_stream *s, const char *id)
{
    for (int k = 0; k < s->nreaders; k++)
        if (!strcmp(s->readers[k].node, id))
            return 1;
    return 0;
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : 0.0;
}

/* The run's cycles on every processing element. In doubles: PEs x
 * cycles may not fit 64 bits. */
static double pe_cycles(const stats_table *t)
{
    double pes = 1;
    for (int k = 0; k < t->nmemories; k++)
        if (!strcmp(t->memories[k].id, "pe"))
            pes = (double)t->memories[k].units;
    return pes * (double)t->cycles;
}

double stats_block_utilisation(const stats_table *t, const stats_block *b)
{
    return t->cycles ? (double)b->busy / pe_cycles(t) : 0.0;
}

/* In doubles: units x cycles may not fit 64 bits. */
double stats_memory_utilisation(const stats_table *t, const stats_memory *m)
{
    return t->cycles ? (double)m->busy / ((double)m->units * (double)t->cycles) : 0.0;
}

double stats_stream_control_share(const stats_stream *s)
{
    return share(s->stops + s->empty + s->done + s->repeat_stop, s->tokens);
}

double stats_stream_idle_share(const stats_table *t, const stats_stream *s)
{
    const stats_span *p = &s->span;
    double idle = (double)(p->idle_before + p->idle_between + p->idle_after);
    return t->cycles ? idle / pe_cycles(t) : 0.0;
}

typedef struct ranked {
    uint64_t key;
    int index;
} ranked;

/* Most first, then file order: qsort is not stable, so the index decides. */
static int ranked_cmp(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int *rank(ranked *r, int n, sam_error *err)
{
    int *order = n ? error_alloc(err, (size_t)n, sizeof *order) : NULL;
    if (order) {
        qsort(r, (size_t)n, sizeof *r, ranked_cmp);
        for (int i = 0; i < n; i++)
            order[i] = r[i].index;
    }
    free(r);
    return order;
}

int *stats_table_blocks_by_busy(const stats_table *t, sam_error *err)
{
    ranked *r = t->nblocks ? error_alloc(err, (size_t)t->nblocks, sizeof *r) : NULL;
    if (!r)
        return NULL;
    for (int i = 0; i < t->nblocks; i++)
        r[i] = (ranked){t->blocks[i].busy, i};
    return rank(r, t->nblocks, err);
}

int *stats_table_streams_by_tokens(const stats_table *t, sam_error *err)
{
    ranked *r = t->nstreams ? error_alloc(err, (size_t)t->nstreams, sizeof *r) : NULL;
    if (!r)
        return NULL;
    for (int i = 0; i < t->nstreams; i++)
        r[i] = (ranked){t->streams[i].tokens, i};
    return rank(r, t->nstreams, err);
}

/* 1 when candidate (last push, producer's last cycle) beats the best. */
static int later(const stats_table *t, const stats_stream *s, int p, const stats_stream *best,
                 int bp)
{
    if (!best)
        return 1;
    if (s->span.last != best->span.last)
        return s->span.last > best->span.last;
    const stats_span *a = &t->blocks[p].span, *b = &t->blocks[bp].span;
    return a->active && (!b->active || a->last > b->last);
}

/* The producer of the input of block b that arrived last, or -1. */
static int last_input(const stats_table *t, int b)
{
    const stats_stream *best = NULL;
    int bp = -1;
    for (int i = 0; i < t->nstreams; i++) {
        const stats_stream *s = &t->streams[i];
        int p = stats_table_block_find(t, s->producer.node);
        if (p < 0 || !s->span.active || !stats_stream_reads(s, t->blocks[b].id))
            continue;
        if (later(t, s, p, best, bp)) {
            best = s;
            bp = p;
        }
    }
    return bp;
}

static int last_to_finish(const stats_table *t)
{
    int best = -1;
    for (int i = 0; i < t->nblocks; i++) {
        const stats_span *s = &t->blocks[i].span;
        if (s->active && (best < 0 || s->last > t->blocks[best].span.last))
            best = i;
    }
    return best;
}

static int on_chain(const int *chain, int n, int b)
{
    for (int i = 0; i < n; i++)
        if (chain[i] == b)
            return 1;
    return 0;
}

int stats_table_critical_chain(const stats_table *t, int **chain, int *n, sam_error *err)
{
    *chain = NULL;
    *n = 0;
    int b = last_to_finish(t);
    if (b < 0)
        return 0;
    int *c = error_alloc(err, (size_t)t->nblocks, sizeof *c);
    if (!c)
        return -1;
    int len = 0;
    /* A graph with a cycle would loop; the chain ends where it would. */
    for (; b >= 0 && !on_chain(c, len, b); b = last_input(t, b))
        c[len++] = b;
    for (int i = 0; i < len / 2; i++) {
        int tmp = c[i];
        c[i] = c[len - 1 - i];
        c[len - 1 - i] = tmp;
    }
    *chain = c;
    *n = len;
    return 0;
}
