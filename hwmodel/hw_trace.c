#include "hw_trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A new slice looks this far back for one to join: points and transfers
 * come nearly in time order. */
#define RECENT 4
/* Coarsening looks this far back: farther than the kinds of slices a
 * track named by tensor holds (a tensor and where it goes), so that
 * slices named so all merge once the grain spans the track. */
#define COARSE_RECENT 64
#define MIN_CAP 128
/* Less than this off a whole cycle is rounding, not time. */
#define WHOLE 1e-9

int hw_trace_init(hw_trace *t, const hw_trace_shape *shape, int npe, size_t slices,
                  sam_error *err)
{
    memset(t, 0, sizeof *t);
    if (shape->nloop > HW_TRACE_MAX_LOOPS || shape->ntensors >= HW_TRACE_MAX_TENSORS)
        return error_set(err, "--trace: more than %d tile loops or %d operands",
                         HW_TRACE_MAX_LOOPS, HW_TRACE_MAX_TENSORS - 1);
    t->nloop = shape->nloop;
    t->depth = shape->depth;
    t->ntensors = shape->ntensors;
    for (int k = 0; k < t->nloop; k++) {
        snprintf(t->loop_name[k], HW_TRACE_NAME, "%s", shape->loop_name[k]);
        t->loop_level[k] = shape->loop_level[k];
        t->result_width[k] = shape->result_width[k];
    }
    for (int i = 0; i <= t->ntensors; i++) {
        snprintf(t->tensor_name[i], HW_TRACE_NAME, "%s", shape->tensor_name[i]);
        t->tensor_loops[i] = shape->tensor_loops[i];
    }
    t->npe = npe;
    t->ntracks = 3 * npe + 1;
    t->cap = slices / (size_t)(2 * npe + 1);
    t->cap = t->cap < MIN_CAP ? MIN_CAP : t->cap;
    t->track = calloc((size_t)t->ntracks, sizeof *t->track);
    if (!t->track)
        return error_set(err, "out of memory");
    for (int k = 0; k < t->ntracks; k++) {
        hw_track *track = &t->track[k];
        track->kind = k < npe ? HW_TRACK_PE : k == npe ? HW_TRACK_DRAM
                    : k <= 2 * npe ? HW_TRACK_PORT : HW_TRACK_WRITE_PORT;
        track->pe = k < npe ? k : k == npe ? 0 : (k - npe - 1) % npe;
        track->names = t->depth - 1;
    }
    return 0;
}

void hw_trace_free(hw_trace *t)
{
    for (int k = 0; t->track && k < t->ntracks; k++) {
        free(t->track[k].slice);
        free(t->track[k].crd);
    }
    free(t->track);
    t->track = NULL;
}

void hw_trace_at(hw_trace *t, const int64_t *coord)
{
    for (int k = 0; k < t->nloop; k++)
        t->at[k] = (int32_t)coord[k];
}

/* ---- joining slices ----------------------------------------------------- */

static const int32_t *crd_of(const hw_trace *t, const hw_track *k, size_t i)
{
    return k->crd + i * (size_t)t->nloop;
}

/* Whether slices a and b of track k (coordinates ca, cb) have one name. */
static int agree(const hw_trace *t, const hw_track *k, const hw_slice *a, const int32_t *ca,
                 const hw_slice *b, const int32_t *cb)
{
    if (a->tensor != b->tensor || a->to_memory != b->to_memory)
        return 0;
    if (k->names < 0)
        return 1;
    if (k->names >= t->depth - 1 && (a->fiber != b->fiber || a->level != b->level))
        return 0;
    for (int l = 0; l < t->nloop; l++)
        if (t->loop_level[l] <= k->names && ca[l] != cb[l])
            return 0;
    return 1;
}

/* Whether a and b lie within track k's grain of each other. */
static int near(const hw_track *k, const hw_slice *a, const hw_slice *b)
{
    return fmax(a->from, b->from) - fmin(a->to, b->to) <= k->grain;
}

static void absorb(hw_slice *into, const hw_slice *s)
{
    into->from = fmin(into->from, s->from);
    into->to = fmax(into->to, s->to);
    into->bytes += s->bytes;
    into->busy += s->busy;
    into->count += s->count;
}

/* The slice of track k among the `window` before slice `before` that s
 * (coordinates c) joins, or NULL. */
static hw_slice *joins(const hw_trace *t, hw_track *k, size_t before, size_t window,
                       const hw_slice *s, const int32_t *c)
{
    for (size_t j = before; j-- > 0 && before - j <= window;)
        if (near(k, &k->slice[j], s) && agree(t, k, &k->slice[j], crd_of(t, k, j), s, c))
            return &k->slice[j];
    return NULL;
}

/* The track's time span: from its first slice's start to its last end. */
static double span(const hw_track *k)
{
    double from = INFINITY, to = -INFINITY;
    for (size_t i = 0; i < k->n; i++) {
        from = fmin(from, k->slice[i].from);
        to = fmax(to, k->slice[i].to);
    }
    return to - from;
}

/* One step coarser: outer tiles' names, a wider grain up to the span,
 * the tensors' names, a wider grain. */
static void coarser(hw_track *k)
{
    double wider = k->grain > 0 ? 2 * k->grain : 1;
    if (k->names > 0)
        k->names = 0;
    else if (k->names == 0 && k->grain < span(k))
        k->grain = wider;
    else if (k->names == 0)
        k->names = -1;
    else
        k->grain = wider;
}

/* Joins the slices of track k that now agree and lie near, in order. */
static void rejoin(const hw_trace *t, hw_track *k)
{
    size_t kept = 0, nloop = (size_t)t->nloop;
    for (size_t i = 0; i < k->n; i++) {
        hw_slice *into = joins(t, k, kept, COARSE_RECENT, &k->slice[i], crd_of(t, k, i));
        if (into) {
            absorb(into, &k->slice[i]);
            continue;
        }
        k->slice[kept] = k->slice[i];
        memmove(k->crd + kept * nloop, k->crd + i * nloop, nloop * sizeof *k->crd);
        kept++;
    }
    k->n = kept;
}

static int room_for_one(hw_trace *t, hw_track *k)
{
    if (k->n < k->room)
        return 1;
    size_t room = k->room ? 2 * k->room : 64;
    room = room < t->cap ? room : t->cap;
    hw_slice *s = realloc(k->slice, room * sizeof *s);
    if (s)
        k->slice = s;
    int32_t *c = realloc(k->crd, room * (size_t)(t->nloop ? t->nloop : 1) * sizeof *c);
    if (c)
        k->crd = c;
    if (!s || !c)
        return 0;
    k->room = room;
    return 1;
}

/* Adds slice s (coordinates c) to track k: joined to a recent one it
 * agrees with and lies near, else kept, the track coarsening when full. */
static void add(hw_trace *t, hw_track *k, const hw_slice *s, const int32_t *c)
{
    if (t->failed || !(s->to > s->from))
        return;
    hw_slice *into = joins(t, k, k->n, RECENT, s, c);
    if (into) {
        absorb(into, s);
        return;
    }
    if (!room_for_one(t, k)) {
        t->failed = 1;
        return;
    }
    k->slice[k->n] = *s;
    memcpy(k->crd + k->n * (size_t)t->nloop, c, (size_t)t->nloop * sizeof *c);
    if (++k->n < t->cap)
        return;
    while (k->n > t->cap / 2) {
        coarser(k);
        rejoin(t, k);
    }
}

/* ---- what the run records ----------------------------------------------- */

void hw_trace_point(hw_trace *t, int pe, double start, double end, const int64_t *coord)
{
    int32_t c[HW_TRACE_MAX_LOOPS];
    for (int k = 0; k < t->nloop; k++)
        c[k] = (int32_t)coord[k];
    hw_slice s = {.from = start, .to = end, .busy = end - start, .count = 1, .fiber = -1,
                  .tensor = -1, .level = t->depth - 1, .to_memory = -1};
    if (pe >= 0 && pe < t->npe)
        add(t, &t->track[pe], &s, c);
}

/* The coordinates of the result's tile number id at level: the digits
 * of result tile numbers (run/tiled.c), last loop lowest. */
static void result_tile(const hw_trace *t, int64_t id, int level, int32_t *c)
{
    for (int k = t->nloop - 1; k >= 0; k--) {
        c[k] = -1;
        if (t->result_width[k] > 0 && t->loop_level[k] <= level) {
            c[k] = (int32_t)(id % t->result_width[k]);
            id /= t->result_width[k];
        }
    }
}

void hw_trace_transfer(hw_trace *t, const hw_transfer *x)
{
    int32_t c[HW_TRACE_MAX_LOOPS];
    if (x->tensor == t->ntensors)
        result_tile(t, x->id, x->level, c);
    else
        for (int k = 0; k < t->nloop; k++)
            c[k] = (t->tensor_loops[x->tensor] >> k & 1) && t->loop_level[k] <= x->level
                       ? t->at[k] : -1;
    /* Whole cycles: the trace's unit, which a cycle partly used counts. */
    hw_slice s = {.from = floor(x->start + WHOLE), .to = ceil(x->start + x->occupy - WHOLE),
                  .bytes = x->bytes,
                  .busy = x->occupy, .count = 1, .fiber = x->fiber, .tensor = x->tensor,
                  .level = x->level, .to_memory = x->to};
    int pe = x->pe >= 0 && x->pe < t->npe ? x->pe : 0;
    int k = x->link == HW_DRAM ? t->npe : x->back ? 2 * t->npe + 1 + pe : t->npe + 1 + pe;
    add(t, &t->track[k], &s, c);
}

/* ---- names -------------------------------------------------------------- */

void hw_trace_slice_name(const hw_trace *t, const hw_track *track, size_t k, char *buf,
                         size_t size)
{
    const hw_slice *s = &track->slice[k];
    const int32_t *c = crd_of(t, track, k);
    size_t n = (size_t)snprintf(buf, size, "%s",
                                s->tensor < 0 ? (track->names < 0 ? "points" : "")
                                              : t->tensor_name[s->tensor]);
    const char *sep = s->tensor < 0 ? "" : " ";
    for (int l = 0; l < t->nloop && track->names >= 0 && n < size; l++)
        if (t->loop_level[l] <= track->names && c[l] >= 0) {
            n += (size_t)snprintf(buf + n, size - n, "%s%s=%d", sep, t->loop_name[l], c[l]);
            sep = ",";
        }
    if (s->fiber >= 0 && track->names >= t->depth - 1 && n < size)
        snprintf(buf + n, size - n, " fiber %lld", (long long)s->fiber);
}

void hw_trace_track_name(const hw_trace *t, const hw_track *track, int lane, char *buf,
                         size_t size)
{
    int n = 0;
    switch (track->kind) {
    case HW_TRACK_PE: n = snprintf(buf, size, "pe %d", track->pe); break;
    case HW_TRACK_DRAM: n = snprintf(buf, size, "dram"); break;
    case HW_TRACK_PORT: n = snprintf(buf, size, "llb to pe %d", track->pe); break;
    case HW_TRACK_WRITE_PORT: n = snprintf(buf, size, "pe %d to llb", track->pe); break;
    }
    if (lane && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " #%d", lane + 1);
    const char *named = track->names < 0 ? (track->kind == HW_TRACK_PE ? "points" : "tensors")
                      : track->names < t->depth - 1 ? "outer tiles" : NULL;
    if ((size_t)n >= size || (!named && track->grain <= 0))
        return;
    if (named && track->grain > 0)
        snprintf(buf + n, size - (size_t)n, " (%s, joined across %.12g cycles)", named,
                 track->grain);
    else if (named)
        snprintf(buf + n, size - (size_t)n, " (%s)", named);
    else
        snprintf(buf + n, size - (size_t)n, " (joined across %.12g cycles)", track->grain);
}
