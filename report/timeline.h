/* A trace read back: any Trace Event Format file, as `samsim run --trace`
 * writes it (report/trace_json.h) or chrome://tracing and Perfetto save
 * one, reduced to what a timeline shows: its tracks (a thread each: pid
 * and tid, named by thread_name metadata, ordered by thread_sort_index)
 * and the complete events ("ph": "X") on them, as slices with a name, a
 * start and a duration. Other events are skipped. Either form of the
 * format is read: an object with traceEvents (and otherData, whose time
 * and cycles samsim writes), or the bare array of events.
 *
 * JSON is jansson's to decode, one event at a time: the tree of a whole
 * 24 MB trace (matmul_ikj on add32, 350,000 events) would take 350 MB and
 * a second, where the file and its slices take a tenth of that. */
#ifndef SAMSIM_TIMELINE_H
#define SAMSIM_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

typedef struct timeline_slice {
    double ts, dur;
    int name;               /* into the timeline's names */
    int track;              /* into its tracks */
} timeline_slice;

typedef struct timeline_track {
    int64_t pid, tid;
    char *name;             /* its thread_name, or NULL */
    int64_t sort_index;     /* its thread_sort_index, when has_sort_index */
    int has_sort_index;
    const timeline_slice *slices;   /* in time order, within the timeline's */
    size_t nslices;
} timeline_track;

typedef struct timeline {
    char *path;             /* the file, for messages */
    timeline_track *tracks; /* by pid, then sort index (tracks with one first), then tid */
    int ntracks;
    int nprocesses;         /* distinct pids among the tracks */
    char **names;           /* the slices' names, in the order they first appear */
    int nnames;
    timeline_slice *slices; /* by track, then start */
    size_t nslices;
    double start, end;      /* the first slice's start; the last end, or the run's cycles */
    char *unit;             /* otherData's time ("cycles"), else "microseconds" */
    char *process;          /* the first process_name, or NULL */
} timeline;

/* Reads path's trace. A file that is not JSON, not a trace, or has no
 * complete event is refused with one line naming it (and the line). */
int timeline_read(const char *path, timeline *t, sam_error *err);

void timeline_free(timeline *t);

/* Track k's label: its name (or "tid T"), after "pid P: " when the trace
 * has several processes. */
void timeline_track_label(const timeline *t, int k, char *buf, size_t size);

/* The top longest stalls, slices named blocked or starved: longest first,
 * then earliest, then by track. *out (malloc'd, NULL when there are none)
 * holds *n indices into t->slices; *total: how many stalls there are. */
int timeline_stalls(const timeline *t, int top, size_t **out, size_t *n, size_t *total,
                    sam_error *err);

#endif
