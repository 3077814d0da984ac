/* Reading a trace back (timeline.h). The file is read whole; between the
 * values jansson decodes, the reader steps only over blanks and the
 * punctuation of the two outer levels: the top object's braces, colons
 * and commas, and the brackets and commas of the array of events. */
#include "timeline.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/hash_table.h"

#define END_OF_FILE (-1)

/* A name's entry: its hash, and the first of the names with that hash
 * (the rest chained through name_next). */
typedef struct name_entry {
    uint64_t key;
    int first;
} name_entry;

typedef struct track_entry {
    uint64_t key;
    int index;
} track_entry;

typedef struct reader {
    timeline *t;
    char *buf;
    size_t size, pos;
    hash_table tracks, names;
    int *name_next;
    size_t track_cap, name_cap, next_cap, slice_cap;
    int seen_events;
    double cycles;          /* otherData's, or -1 */
    double window[2];       /* otherData's --trace-window, or -1 */
    sam_error *err;
} reader;

/* ---- errors ------------------------------------------------------------- */

/* The line of the file byte at lies on, from 1. */
static long line_of(const reader *r, size_t at)
{
    long line = 1;
    for (size_t i = 0; i < at && i < r->size; i++)
        line += r->buf[i] == '\n';
    return line;
}

static int fail_at(reader *r, size_t at, const char *what)
{
    return error_at(r->err, r->t->path, line_of(r, at), "%s", what);
}

/* ---- the file's structure ---------------------------------------------- */

static int load(reader *r, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return error_at(r->err, path, 0, "cannot open: %s", strerror(errno));
    size_t cap = 0;
    int rc = 0;
    for (;;) {
        char *more = grow_array_room(r->buf, r->size, 65536, &cap, 1, 65536);
        if (!more) {
            rc = error_at(r->err, path, 0, "out of memory");
            break;
        }
        r->buf = more;
        size_t n = fread(r->buf + r->size, 1, cap - r->size, f);
        r->size += n;
        if (n == 0) {
            if (ferror(f))
                rc = error_at(r->err, path, 0, "read error: %s", strerror(errno));
            break;
        }
    }
    fclose(f);
    return rc;
}

/* The next character past blanks (the reader stops at it), or END_OF_FILE. */
static int peek(reader *r)
{
    while (r->pos < r->size) {
        char c = r->buf[r->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return (unsigned char)c;
        r->pos++;
    }
    return END_OF_FILE;
}

/* The JSON value at the reader's position, decoded by jansson and
 * stepped over; NULL with the error set. */
static json_t *next_value(reader *r)
{
    json_error_t e;
    json_t *v = json_loadb(r->buf + r->pos, r->size - r->pos,
                           JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &e);
    if (!v) {
        long line = line_of(r, r->pos) + (e.line > 0 ? e.line - 1 : 0);
        error_at(r->err, r->t->path, line, "not valid JSON: %s", e.text);
        return NULL;
    }
    r->pos += (size_t)e.position;
    return v;
}

/* ---- names and tracks -------------------------------------------------- */

static uint64_t name_hash(const char *s)
{
    uint64_t h = 14695981039346656037u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h == HASH_TABLE_FREE ? 0 : h;
}

/* The index of slice name s, added when new; -1 when out of memory. */
static int name_index(reader *r, const char *s)
{
    timeline *t = r->t;
    int added;
    name_entry *e = hash_table_add(&r->names, name_hash(s), &added, r->err);
    if (!e)
        return error_prefix(r->err, t->path);
    if (!added)
        for (int i = e->first; i >= 0; i = r->name_next[i])
            if (!strcmp(t->names[i], s))
                return i;
    char **names = grow_array(t->names, (size_t)t->nnames, &r->name_cap, sizeof *names, 8);
    if (names)
        t->names = names;
    int *next = names ? grow_array(r->name_next, (size_t)t->nnames, &r->next_cap, sizeof *next, 8)
                      : NULL;
    if (next)
        r->name_next = next;
    char *copy = next ? strdup(s) : NULL;
    if (!copy)
        return error_at(r->err, t->path, 0, "out of memory");
    r->name_next[t->nnames] = added ? -1 : e->first;
    e->first = t->nnames;
    t->names[t->nnames] = copy;
    return t->nnames++;
}

/* The index of the track of pid and tid, added when new; -1 when out of
 * memory. */
static int track_index(reader *r, int64_t pid, int64_t tid)
{
    timeline *t = r->t;
    uint64_t key = (uint64_t)pid << 32 | (uint32_t)tid;     /* pid < 2^31: never free */
    int added;
    track_entry *e = hash_table_add(&r->tracks, key, &added, r->err);
    if (!e)
        return error_prefix(r->err, t->path);
    if (!added)
        return e->index;
    timeline_track *more =
        grow_array(t->tracks, (size_t)t->ntracks, &r->track_cap, sizeof *more, 16);
    if (!more)
        return error_at(r->err, t->path, 0, "out of memory");
    t->tracks = more;
    t->tracks[t->ntracks] = (timeline_track){.pid = pid, .tid = tid};
    return e->index = t->ntracks++;
}

/* ---- events ------------------------------------------------------------ */

/* Event e's pid or tid (key) into *out, 0 when it has none. */
static int event_id(reader *r, json_t *e, const char *key, int64_t min, int64_t *out, size_t at)
{
    json_t *v = json_object_get(e, key);
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
    if (v && (!json_is_integer(v) || n < min || n > INT32_MAX)) {
        char what[96];
        snprintf(what, sizeof what, "an event whose %s is not an integer %lld..2147483647", key,
                 (long long)min);
        return fail_at(r, at, what);
    }
    *out = n;
    return 0;
}

static int event_track(reader *r, json_t *e, size_t at)
{
    int64_t pid, tid;
    if (event_id(r, e, "pid", 0, &pid, at) || event_id(r, e, "tid", INT32_MIN, &tid, at))
        return -1;
    return track_index(r, pid, tid);
}

/* Event e's key as a finite number into *out; 0 when it is one. */
static int event_number(json_t *e, const char *key, double *out)
{
    json_t *v = json_object_get(e, key);
    if (!json_is_number(v) || !isfinite(json_number_value(v)))
        return -1;
    *out = json_number_value(v);
    return 0;
}

static int take_slice(reader *r, json_t *e, size_t at)
{
    timeline *t = r->t;
    const char *name = json_string_value(json_object_get(e, "name"));
    timeline_slice s;
    if (!name)
        return fail_at(r, at, "a complete (\"X\") event without a name");
    if (event_number(e, "ts", &s.ts))
        return fail_at(r, at, "a complete (\"X\") event without a number ts");
    if (event_number(e, "dur", &s.dur) || s.dur < 0)
        return fail_at(r, at, "a complete (\"X\") event whose dur is not a number >= 0");
    if (!isfinite(s.ts + s.dur))
        return fail_at(r, at, "a complete (\"X\") event that ends past the largest number");
    if ((s.track = event_track(r, e, at)) < 0 ||
        (s.name = name_index(r, name)) < 0)
        return -1;
    timeline_slice *more =
        grow_array(t->slices, t->nslices, &r->slice_cap, sizeof *more, 1024);
    if (!more)
        return error_at(r->err, t->path, 0, "out of memory");
    t->slices = more;
    t->slices[t->nslices++] = s;
    return 0;
}

/* A metadata event: a thread's name or sort index, the process's name.
 * Metadata of other shapes is skipped, as viewers do. */
static int take_metadata(reader *r, json_t *e, size_t at)
{
    const char *what = json_string_value(json_object_get(e, "name"));
    json_t *args = json_object_get(e, "args");
    const char *name = json_string_value(json_object_get(args, "name"));
    json_t *index = json_object_get(args, "sort_index");
    timeline *t = r->t;
    if (!what)
        return 0;
    if (!strcmp(what, "process_name") && name && !t->process) {
        if (!(t->process = strdup(name)))
            return error_at(r->err, t->path, 0, "out of memory");
        return 0;
    }
    int thread_name = !strcmp(what, "thread_name") && name;
    int sort_index = !strcmp(what, "thread_sort_index") && json_is_integer(index);
    if (!thread_name && !sort_index)
        return 0;
    int k = event_track(r, e, at);
    if (k < 0)
        return -1;
    timeline_track *track = &t->tracks[k];
    if (sort_index) {
        track->sort_index = json_integer_value(index);
        track->has_sort_index = 1;
        return 0;
    }
    free(track->name);
    if (!(track->name = strdup(name)))
        return error_at(r->err, t->path, 0, "out of memory");
    return 0;
}

static int take_event(reader *r, json_t *e, size_t at)
{
    if (!json_is_object(e))
        return fail_at(r, at, "an event that is not a JSON object");
    const char *ph = json_string_value(json_object_get(e, "ph"));
    if (!ph)
        return fail_at(r, at, "an event without a ph (its phase) string");
    if (!strcmp(ph, "X"))
        return take_slice(r, e, at);
    if (!strcmp(ph, "M"))
        return take_metadata(r, e, at);
    return 0;
}

/* The array of events at the reader's position. The array form of the
 * format may end without its closing bracket. */
static int read_events(reader *r, int bare)
{
    if (peek(r) != '[')
        return fail_at(r, r->pos, "traceEvents is not an array");
    r->pos++;
    r->seen_events = 1;
    if (peek(r) == ']') {
        r->pos++;
        return 0;
    }
    for (;;) {
        peek(r);
        size_t at = r->pos;     /* where the event begins, for messages */
        json_t *e = next_value(r);
        if (!e)
            return -1;
        int rc = take_event(r, e, at);
        json_decref(e);
        if (rc)
            return -1;
        int c = peek(r);
        r->pos += c == ']' || c == ',';
        if (c == ']' || (bare && (c == END_OF_FILE || (c == ',' && peek(r) == END_OF_FILE))))
            return 0;
        if (c != ',')
            return fail_at(r, r->pos, c == END_OF_FILE ? "the file ends inside traceEvents"
                                                       : "',' or ']' expected after an event");
    }
}

static int read_other_data(reader *r, json_t *other)
{
    json_t *cycles = json_object_get(other, "cycles");
    const char *time = json_string_value(json_object_get(other, "time"));
    if (json_is_number(cycles))
        r->cycles = json_number_value(cycles);
    json_t *window = json_object_get(other, "window");
    if (json_array_size(window) == 2 && json_is_number(json_array_get(window, 0)) &&
        json_is_number(json_array_get(window, 1))) {
        r->window[0] = json_number_value(json_array_get(window, 0));
        r->window[1] = json_number_value(json_array_get(window, 1));
    }
    if (time && !r->t->unit && !(r->t->unit = strdup(time)))
        return error_at(r->err, r->t->path, 0, "out of memory");
    return 0;
}

/* One member of the top object: traceEvents read, otherData kept, any
 * other value stepped over. */
static int read_member(reader *r)
{
    if (peek(r) != '"')
        return fail_at(r, r->pos, "a key (a string) expected");
    size_t at = r->pos;
    json_t *key = next_value(r);
    if (!key)
        return -1;
    int events = !strcmp(json_string_value(key), "traceEvents");
    int other = !strcmp(json_string_value(key), "otherData");
    json_decref(key);
    if (peek(r) != ':')
        return fail_at(r, r->pos, "':' expected after a key");
    r->pos++;
    if (events && r->seen_events)
        return fail_at(r, at, "a second traceEvents");
    if (events)
        return read_events(r, 0);
    json_t *v = next_value(r);
    int rc = v ? 0 : -1;
    if (v && other && json_is_object(v))
        rc = read_other_data(r, v);
    json_decref(v);
    return rc;
}

static int read_object(reader *r)
{
    r->pos++;
    if (peek(r) == '}') {
        r->pos++;
        return 0;
    }
    for (;;) {
        if (read_member(r))
            return -1;
        int c = peek(r);
        r->pos++;
        if (c == '}')
            return 0;
        if (c != ',')
            return fail_at(r, r->pos - 1, c == END_OF_FILE ? "the file ends inside the trace"
                                                           : "',' or '}' expected");
    }
}

static int read_trace(reader *r)
{
    int c = peek(r);
    if (c == END_OF_FILE)
        return error_at(r->err, r->t->path, 0, "empty file: not a trace");
    if (c != '{' && c != '[')
        return fail_at(r, r->pos, "not a trace: a JSON object with traceEvents expected");
    if (c == '[' ? read_events(r, 1) : read_object(r))
        return -1;
    if (peek(r) != END_OF_FILE)
        return fail_at(r, r->pos, "more after the trace");
    if (!r->seen_events)
        return error_at(r->err, r->t->path, 0, "no traceEvents: not a trace");
    if (!r->t->nslices)
        return error_at(r->err, r->t->path, 0, "no complete (\"X\") events: no slices to show");
    return 0;
}

/* ---- order ------------------------------------------------------------- */

static int track_cmp(const void *a, const void *b)
{
    const timeline_track *p = a, *q = b;
    if (p->pid != q->pid)
        return p->pid < q->pid ? -1 : 1;
    if (p->has_sort_index != q->has_sort_index)
        return p->has_sort_index ? -1 : 1;
    if (p->has_sort_index && p->sort_index != q->sort_index)
        return p->sort_index < q->sort_index ? -1 : 1;
    return (p->tid > q->tid) - (p->tid < q->tid);
}

static int slice_cmp(const void *a, const void *b)
{
    const timeline_slice *p = a, *q = b;
    if (p->track != q->track)
        return p->track < q->track ? -1 : 1;
    if (p->ts != q->ts)
        return p->ts < q->ts ? -1 : 1;
    if (p->dur != q->dur)
        return p->dur < q->dur ? -1 : 1;
    return (p->name > q->name) - (p->name < q->name);
}

/* Tracks in a viewer's order, slices by track and start, each track
 * pointing at its own; the span the slices cover. */
static int arrange(reader *r)
{
    timeline *t = r->t;
    int *rank = error_alloc(r->err, (size_t)t->ntracks, sizeof *rank);
    if (!rank)
        return error_prefix(r->err, t->path);
    for (int k = 0; k < t->ntracks; k++)
        t->tracks[k].nslices = (size_t)k;       /* the old index, until sorted */
    qsort(t->tracks, (size_t)t->ntracks, sizeof *t->tracks, track_cmp);
    for (int k = 0; k < t->ntracks; k++) {
        rank[t->tracks[k].nslices] = k;
        t->tracks[k].nslices = 0;
        t->nprocesses += !k || t->tracks[k].pid != t->tracks[k - 1].pid;
    }
    for (size_t i = 0; i < t->nslices; i++)
        t->slices[i].track = rank[t->slices[i].track];
    free(rank);
    qsort(t->slices, t->nslices, sizeof *t->slices, slice_cmp);
    t->start = t->slices[0].ts;
    t->end = t->start;
    for (size_t i = t->nslices; i-- > 0;) {
        const timeline_slice *s = &t->slices[i];
        timeline_track *k = &t->tracks[s->track];
        k->slices = s;
        k->nslices++;
        t->start = s->ts < t->start ? s->ts : t->start;
        t->end = s->ts + s->dur > t->end ? s->ts + s->dur : t->end;
    }
    /* The run's idle tail shows, but a window is all the trace covers. */
    if (!strcmp(t->unit, "cycles") && r->window[1] > r->window[0]) {
        t->start = r->window[0] < t->start ? r->window[0] : t->start;
        t->end = r->window[1] > t->end ? r->window[1] : t->end;
    } else if (!strcmp(t->unit, "cycles") && r->cycles > t->end) {
        t->end = r->cycles;
    }
    return 0;
}

int timeline_read(const char *path, timeline *t, sam_error *err)
{
    *t = (timeline){0};
    reader r = {.t = t, .cycles = -1, .window = {-1, -1}, .err = err};
    hash_table_init(&r.tracks, sizeof(track_entry));
    hash_table_init(&r.names, sizeof(name_entry));
    int rc = (t->path = strdup(path)) ? 0 : error_at(err, path, 0, "out of memory");
    if (rc == 0)
        rc = load(&r, path) || read_trace(&r) ? -1 : 0;
    if (rc == 0 && !t->unit && !(t->unit = strdup("microseconds")))
        rc = error_at(err, path, 0, "out of memory");
    if (rc == 0)
        rc = arrange(&r);
    hash_table_free(&r.tracks);
    hash_table_free(&r.names);
    free(r.name_next);
    free(r.buf);
    if (rc)
        timeline_free(t);
    return rc;
}

void timeline_free(timeline *t)
{
    for (int k = 0; k < t->ntracks; k++)
        free(t->tracks[k].name);
    for (int i = 0; i < t->nnames; i++)
        free(t->names[i]);
    free(t->tracks);
    free(t->names);
    free(t->slices);
    free(t->unit);
    free(t->process);
    free(t->path);
    *t = (timeline){0};
}

void timeline_track_label(const timeline *t, int k, char *buf, size_t size)
{
    const timeline_track *track = &t->tracks[k];
    int n = t->nprocesses > 1 ? snprintf(buf, size, "pid %lld: ", (long long)track->pid) : 0;
    if (track->name)
        snprintf(buf + n, size - (size_t)n, "%s", track->name);
    else
        snprintf(buf + n, size - (size_t)n, "tid %lld", (long long)track->tid);
}

/* ---- stalls ------------------------------------------------------------ */

typedef struct stall_ref {
    const timeline_slice *s;
    size_t index;
} stall_ref;

/* Longest first, then earliest, then by track. */
static int stall_cmp(const void *a, const void *b)
{
    const timeline_slice *p = ((const stall_ref *)a)->s, *q = ((const stall_ref *)b)->s;
    if (p->dur != q->dur)
        return p->dur > q->dur ? -1 : 1;
    if (p->ts != q->ts)
        return p->ts < q->ts ? -1 : 1;
    return (p->track > q->track) - (p->track < q->track);
}

int timeline_stalls(const timeline *t, int top, size_t **out, size_t *n, size_t *total,
                    sam_error *err)
{
    *out = NULL;
    *n = *total = 0;
    int names[2] = {-1, -1};
    for (int i = 0; i < t->nnames; i++)
        if (!strcmp(t->names[i], "blocked") || !strcmp(t->names[i], "starved"))
            names[!strcmp(t->names[i], "starved")] = i;
    for (size_t i = 0; i < t->nslices; i++)
        *total += t->slices[i].name == names[0] || t->slices[i].name == names[1];
    if (!*total)
        return 0;
    stall_ref *refs = error_alloc(err, *total, sizeof *refs);
    if (!refs)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < t->nslices; i++)
        if (t->slices[i].name == names[0] || t->slices[i].name == names[1])
            refs[k++] = (stall_ref){&t->slices[i], i};
    qsort(refs, *total, sizeof *refs, stall_cmp);
    *n = (size_t)top < *total ? (size_t)top : *total;
    *out = error_alloc(err, *n, sizeof **out);
    for (size_t i = 0; *out && i < *n; i++)
        (*out)[i] = refs[i].index;
    free(refs);
    return *out ? 0 : -1;
}
