/* A tiled run's timeline on its hardware, kept while the run is traced
 * (--trace): on each processing element the tile points it ran, each
 * from its start to its end, and on each link (DRAM's, and the LLB's
 * port to each PE buffer, both ways, as hwmodel/memory.h has them) the
 * transfers it carried, each over the whole cycles it occupied the link
 * (an interleaving link's as if in one piece, ending where its last piece
 * does; a cycle partly used counts).
 * The run gives the loops and tensors (hw_trace_shape), so that a point
 * is named by its tile coordinates ("i1=0,k1=3,j1=2") and a transfer by
 * its tensor and its tile's coordinates ("B k1=3,j1=2"), a cached
 * operand's fiber adding its coordinate.
 *
 * Slices of a track that agree (the same name, for a transfer the same
 * memory it goes to) and touch or overlap are one, which counts what it
 * holds. A track keeps at most `cap` slices, so that a run of millions
 * of points and transfers has a trace of bounded size: one that would
 * keep more coarsens a step at a time until it keeps at most half:
 * first, with several levels of tiles, its slices are named by the
 * outermost level's tiles alone (the LLB's); then slices that agree merge
 * across gaps of up to a grain of 1, 2, 4, ... cycles, up to the track's
 * span; then they are named by their tensor alone ("points" for points),
 * the grain growing on. Every engine gives the same slices. */
#ifndef SAMSIM_HW_TRACE_H
#define SAMSIM_HW_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "hw.h"

#define HW_TRACE_MAX_LOOPS 64
#define HW_TRACE_MAX_TENSORS 17
#define HW_TRACE_NAME 64
/* About how many slices a run's trace keeps, all tracks together: some
 * 70 MB of JSON at the most. */
#define HW_TRACE_SLICES ((size_t)1 << 19)

/* What names a run's slices: its tile loops in the order of the walk,
 * and its tensors, the operands then the result. */
typedef struct hw_trace_shape {
    int nloop;
    const char *loop_name[HW_TRACE_MAX_LOOPS];  /* a tile coordinate: i1 */
    int loop_level[HW_TRACE_MAX_LOOPS];         /* its tiling level, 0 outermost */
    int64_t result_width[HW_TRACE_MAX_LOOPS];   /* a loop of a result index: its
                                                   tiles' width; else -1 */
    int depth;                                  /* tiling levels */
    int ntensors;                               /* operands; the result is the last */
    const char *tensor_name[HW_TRACE_MAX_TENSORS];
    uint64_t tensor_loops[HW_TRACE_MAX_TENSORS];    /* loop k is an index of it: bit k */
} hw_trace_shape;

/* What a track shows, and where its tracks are in hw_trace.track. */
typedef enum { HW_TRACK_PE, HW_TRACK_DRAM, HW_TRACK_PORT, HW_TRACK_WRITE_PORT } hw_track_kind;

/* A slice; its coordinates are its track's crd[k * nloop ...], those it
 * lacks (a loop not of its tensor, a level below its tile's) -1. */
typedef struct hw_slice {
    double from, to;            /* cycles from..to */
    double bytes;               /* a transfer's bytes */
    double busy;                /* cycles of the slices merged into it */
    uint64_t count;             /* points or transfers merged into it */
    int64_t fiber;              /* a cached operand's fiber, else -1 */
    int tensor;                 /* -1: a point; else the tensor moved */
    int level;                  /* a transfer's tile level */
    int to_memory;              /* the memory a transfer goes to (hw_memory_id) */
} hw_slice;

typedef struct hw_track {
    hw_track_kind kind;
    int pe;
    hw_slice *slice;
    int32_t *crd;
    size_t n, room;
    int names;                  /* the level names go down to; -1: tensors only */
    double grain;               /* slices that agree merge across gaps up to this */
} hw_track;

typedef struct hw_trace {
    int nloop, depth, ntensors;
    char loop_name[HW_TRACE_MAX_LOOPS][HW_TRACE_NAME];
    int loop_level[HW_TRACE_MAX_LOOPS];
    int64_t result_width[HW_TRACE_MAX_LOOPS];
    char tensor_name[HW_TRACE_MAX_TENSORS][HW_TRACE_NAME];
    uint64_t tensor_loops[HW_TRACE_MAX_TENSORS];
    int npe;
    hw_track *track;            /* per PE its points, then DRAM's link, then per
                                   PE the LLB's port to it and its way back */
    int ntracks;
    size_t cap;                 /* slices a track keeps at most */
    int32_t at[HW_TRACE_MAX_LOOPS];     /* the coordinates of the point whose
                                           tiles move (hw_trace_at) */
    int failed;                 /* memory ran out: the trace is incomplete */
} hw_trace;

/* A trace of the run shape describes on npe processing elements, about
 * `slices` slices in all (each track keeps its share, at least 128);
 * freed with hw_trace_free. */
int hw_trace_init(hw_trace *t, const hw_trace_shape *shape, int npe, size_t slices,
                  sam_error *err);

void hw_trace_free(hw_trace *t);

/* The tile point whose tiles the transfers that follow move. */
void hw_trace_at(hw_trace *t, const int64_t *coord);

/* The tile point coord ran on processing element pe over cycles
 * start..end. */
void hw_trace_point(hw_trace *t, int pe, double start, double end, const int64_t *coord);

/* A transfer over the link of memory `link` (DRAM, or the LLB's port to
 * processing element pe, `back` its way from it) from cycle start on for
 * `occupy` cycles, of `bytes` of tensor's tile at level toward memory
 * `to`: an operand's, of the point at hand (a fiber of it, or -1); the
 * result's, tile number id at that level. */
typedef struct hw_transfer {
    hw_memory_id link, to;
    int pe, back;
    int tensor, level;
    int64_t id, fiber;
    double start, occupy, bytes;
} hw_transfer;

void hw_trace_transfer(hw_trace *t, const hw_transfer *x);

/* Slice k of track: its name. */
void hw_trace_slice_name(const hw_trace *t, const hw_track *track, size_t k, char *buf,
                         size_t size);

/* What the track's thread `lane` (0 first) is called: "pe 3", "pe 3 #2",
 * "dram", "llb to pe 3", "pe 3 to llb", and how it coarsened, if it did:
 * " (outer tiles, joined across 64 cycles)". */
void hw_trace_track_name(const hw_trace *t, const hw_track *track, int lane, char *buf,
                         size_t size);

#endif
