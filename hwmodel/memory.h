/* The memory model of a tiled run: tiles travel from DRAM through the
 * buffers of hwmodel/hw.h to the processing element, whose computation graph
 * runs on one tile point at a time.
 *
 * The buffers inward from DRAM hold the tiling's levels, the innermost
 * tiles in the PE buffer and the level above them in the LLB (a tiling of
 * one level leaves the LLB to pass tiles through; more levels than
 * buffers are refused). Fed the tile points in order, the model follows
 * each operand's tile at each buffer:
 *   - a tile that the point before also used stays (reuse); another is
 *     fetched from the memory outward of the buffer, one transfer at a
 *     time on each memory's link: it starts once the link is free, the
 *     tile's parent is in place, the buffer has a free slot (`buffering`
 *     tiles per operand: the least recently used slot, that of the tile
 *     used `buffering` tiles ago, frees when its last point is computed)
 *     and the buffer has room for its bytes among the tiles it still
 *     holds, and it takes the link's
 *     latency plus its bytes, rounded up to whole lines, over the link's
 *     bandwidth; the link serves transfers in the order their data is
 *     ready, not in the order of the points (hwmodel/link.h);
 *   - a point is computed once its tiles are in its processing element's
 *     buffer and the PE's pipeline takes it (hwmodel/pipeline.h); with several
 *     PEs (pe.count) each has its own buffer and its own port from the
 *     LLB (llb.bandwidth each), and they share DRAM's link;
 *   - the result's tile at each level stays in that level's buffer while
 *     consecutive points add to it; when the points move on it is written
 *     out to the memory outward (the PE buffer's to the LLB when the LLB
 *     holds a level, the LLB's to DRAM), to be read back in before a later
 *     point adds to it again (partial outputs). With pe.merge, the PE
 *     level's result tile is held by a merger beside the PE buffers (a
 *     partial output buffer) rather than by a PE: consecutive points
 *     adding to it may run on several PEs at once, without waiting for
 *     it to be read back (the merger takes it in as it comes), it leaves
 *     when the points move on, once they are all computed and it is in,
 *     and its room is taken in the PE buffer of each point that adds to
 *     it. With llb.eager, a
 *     PE tile of the result that is final (no later point adds to it and
 *     its LLB tile is not read back later) goes on from the LLB to DRAM
 *     as soon as it arrives there, and its LLB tile writes out only the
 *     rest.
 * A tensor placed in the PE buffer only (place.T = pe) passes through
 * the LLB: its innermost tiles come from DRAM at the slower of the two
 * links, after both latencies, and the result's go back the same way.
 * No buffer ever holds more than its capacity: a point's result tile
 * takes the bytes the point leaves it with from when it is read back or
 * the point starts, beside the operand tiles held (a tile the point
 * reuses among them) and the result tile the points left, until its
 * write-out has gone; a point waits for room as a transfer does. A tile
 * larger than its buffer, or than the room beside its own point's other
 * tiles, is refused, naming the tile point and the buffer; a tile point
 * whose operand's tile is absent needs nothing for it.
 *
 * With llb.reuse (pe.reuse for the PE buffers), off unless asked for, a
 * buffer keeps the tiles its slots hold as a cache does: a tile in any of
 * its operand's slots, not only the point before's, serves the point
 * without a fetch and becomes the most recently used; the slot replaced
 * is the least recently used, and a kept tile's bytes stay held until the
 * buffer needs their room, when the least recently used tile leaves
 * first, once its last point is computed.
 *
 * Given each operand's reading time (mem_visit.read_until, pe.release), a
 * PE tile's slot frees once its point's last reader of it is done rather
 * than when the point is computed, so that the next points' tiles come
 * while the point's later blocks still run.
 *
 * Two behaviours of the LLB, off unless asked for, hold pieces of tiles
 * as units (hwmodel/fiber_cache.h), kept until the LLB needs their room and
 * then evicted least recently used first, each no sooner than its last
 * reader has it:
 *   - llb.lazy: an LLB tile of an operand is not fetched whole. It takes
 *     its slot as before (so `buffering` and the stays are unchanged; the
 *     tile it replaces leaves with its PE tiles), and each of its PE tiles
 *     comes from DRAM the first time a point of the stay needs it, then
 *     goes on to the PE; the LLB tile holds the sum of its PE tiles
 *     fetched (a tiled layout), and DRAM moves only PE tiles some point
 *     needed. A PE tile that cannot fit beside what the point keeps in
 *     the LLB is refused.
 *   - place.T = cache (mem_cache_fibers): the LLB holds operand T as a
 *     cache of the fibers of its outermost level, not as tiles. A point
 *     names the fibers it touches (mem_touch_fibers); once the point's
 *     other tiles are in place, each fiber the cache lacks is fetched from
 *     DRAM, evicting others to make room, and each is read from the LLB
 *     over the PE's port (the PE holds none of T: it streams). The point
 *     waits for all of them. Only a fiber larger than the LLB is refused. */
#ifndef SAMSIM_MEMORY_H
#define SAMSIM_MEMORY_H

#include <stdint.h>

#include "../common/error.h"
#include "../common/hash_table.h"
#include "fiber_cache.h"
#include "hw.h"
#include "hw_trace.h"
#include "link.h"

#define MEM_MAX_TENSORS 16
#define MEM_MAX_LEVELS 2

/* One tensor's tile as a point needs it: which (equal ids, the same
 * tile) and its size in storage. */
typedef struct mem_tile {
    int64_t id;             /* -1: the point has no tile of this tensor */
    double bytes;
} mem_tile;

/* A fiber of a cached operand that a point touches: which (its tile's
 * id and its coordinate in its outermost level) and its bytes, its own
 * coordinate and reference with its subtree. */
typedef struct mem_fiber {
    int64_t tile, crd;
    double bytes;
} mem_fiber;

/* What one memory did over a run. */
typedef struct mem_usage {
    double bytes_in;        /* read into it from the memory outward */
    double busy;            /* cycles its link to the next memory inward moved data */
    double peak;            /* most bytes it held at once */
} mem_usage;

/* What one tensor cost. */
typedef struct mem_traffic {
    double read[HW_MEMORIES];   /* bytes read out of each memory toward the PE */
    double written[HW_MEMORIES];    /* result bytes written into each memory
                                       from inward (partials included) */
    uint64_t fetched[HW_MEMORIES];  /* tiles fetched into each buffer (a
                                       cached operand: fibers into the LLB) */
    uint64_t flushed[HW_MEMORIES];  /* result tiles written out of each buffer */
    uint64_t skipped[HW_MEMORIES];  /* of the tiles mem_declare_tiles gave, those
                                       no point needed in each buffer */
    double peak[HW_MEMORIES];   /* most bytes of its tiles one buffer held */
} mem_traffic;

/* A tile a buffer holds for an operand. */
typedef struct mem_slot {
    int64_t id;                 /* -1: empty */
    double bytes;
    double ready;               /* in place from this cycle */
    double release;             /* its last point is computed at this cycle */
    int64_t units;              /* llb.lazy: its PE tiles in the LLB (hwmodel/fiber_cache.h) */
    uint64_t stay;              /* llb.lazy: the stay its PE tiles are named by */
    uint64_t used;              /* when a point last used it (mem_model.uses); 0: empty */
} mem_slot;

/* One buffer: the LLB, or one processing element's buffer. */
typedef struct mem_buffer {
    /* Per operand t, its `buffering` slots from slot + t * buffering, the
     * one the latest point used at cur[t]; allocated when a point first
     * uses the buffer, so that unused PEs cost nothing. */
    mem_slot *slot;
    int cur[MEM_MAX_TENSORS];
    int64_t out_id;             /* the result tile it holds, -1: none */
    double out_bytes;
    double done;                /* when the points it served are computed */
    double written;             /* when its last result tile written out left */
    /* With llb.partials: the LLB's stays of result tiles, counted; whether
     * the current one went out before; the bytes of its PE tiles touched
     * in this stay, which are all it writes out. */
    uint64_t stay;
    int refilled;
    double dirty;
    /* llb.eager: at the PE level, whether its result tile is final
     * (mem_result) and its LLB tile (its share there is in mem_touch); in
     * the LLB, the bytes of its tile sent on. */
    int out_final;
    int64_t outer_id;           /* its result tile's LLB tile */
    double sent;
} mem_buffer;

/* A PE-level result tile: with llb.partials, the LLB stay it was last
 * touched in; with pe.merge, when its last write-out from the merger
 * left; with llb.eager, the bytes its points added to its LLB tile in
 * that tile's stay share_stay (mem_model.llb_stays). */
typedef struct mem_touch {
    int64_t id;                 /* first: the hash table's key */
    uint64_t stay;
    double written;
    double share;
    uint64_t share_stay;
} mem_touch;

typedef struct mem_model {
    hw_desc hw;
    int ntensors;               /* operands; the result's traffic is traffic[ntensors] */
    int nlevels;                /* tiling levels held in buffers */
    hw_memory_id at[MEM_MAX_LEVELS];   /* the buffer holding each level */
    mem_buffer *buffers[MEM_MAX_LEVELS];   /* per level: one, or per PE */
    int npe;                    /* processing elements (pe.count) */
    mem_link link[HW_MEMORIES];  /* each memory's, toward the PEs */
    mem_link **ports;           /* the LLB's to each PE's buffer and, with
                                   llb.write.bandwidth, back: two per PE,
                                   allocated with the PE's buffer */
    double compute_end;         /* when the points so far are all computed */
    double result_end;          /* when the result's transfers so far are done */
    uint64_t llb_stays;         /* stays of the LLB's result tiles so far, from 1 */
    uint64_t uses;              /* slot uses so far, the order of mem_slot.used */
    mem_usage usage[HW_MEMORIES];   /* usage[HW_PE].busy: cycles PEs computed */
    mem_traffic traffic[MEM_MAX_TENSORS + 1];
    mem_buffer *merger;         /* pe.merge: the PE level's result tile, NULL: none */
    int merger_pe;              /* the PE that last added to the merger's tile */
    hash_table touched;         /* mem_touch entries by id, with llb.partials,
                                   pe.merge or llb.eager */
    double *stay_written;       /* per LLB stay, when its write-out left */
    size_t nstays;              /* room in stay_written */
    /* Per tensor (the result last), whether the LLB keeps its tiles. */
    int llb_holds[MEM_MAX_TENSORS + 1];
    int cached[MEM_MAX_TENSORS];    /* per operand: place.T = cache */
    int any_cached;
    fcache units;                   /* the LLB's fibers and lazily fetched PE tiles */
    uint64_t lazy_stay[MEM_MAX_TENSORS];    /* per operand, its LLB tiles' stays */
    const mem_fiber *fibers[MEM_MAX_TENSORS];   /* the next point's, per cached operand */
    size_t nfibers[MEM_MAX_TENSORS];
    /* Per operand and level, the tiles there are and which were needed. */
    size_t ntiles[MEM_MAX_TENSORS][MEM_MAX_LEVELS];
    unsigned char *needed[MEM_MAX_TENSORS][MEM_MAX_LEVELS];
    hw_trace *trace;                /* told of every transfer; NULL: none */
} mem_model;

/* A model of hw for ntensors operands (and a result), their tiles at
 * nlevels tiling levels; freed with mem_free. */
int mem_init(mem_model *m, const hw_desc *hw, int ntensors, int nlevels, sam_error *err);

void mem_free(mem_model *m);

/* Operand t has ntiles tiles at level l, numbered from 0 as the points'
 * tile ids: so that its traffic counts those no point needed (skipped). */
int mem_declare_tiles(mem_model *m, int t, int l, size_t ntiles, sam_error *err);

/* Tensor t (the result when t is the operand count) passes through the
 * LLB instead of staying there (place.T = pe): its PE tiles come from
 * DRAM, and the result's go back there. */
void mem_bypass_llb(mem_model *m, int t);

/* The LLB caches operand t's fibers (place.T = cache): it needs an LLB. */
int mem_cache_fibers(mem_model *m, int t, sam_error *err);

/* The buffer that holds level l, and the memory its tiles come from. */
hw_memory_id mem_level_buffer(const mem_model *m, int l);
hw_memory_id mem_level_source(const mem_model *m, int l);

/* Where tensor t's tiles at level l come from: the level's source, or
 * DRAM for a tensor that passes through the LLB. */
hw_memory_id mem_tensor_source(const mem_model *m, int t, int l);

/* Whether a level of tiles lives in the LLB (else every tile passes
 * through it). */
int mem_llb_holds_level(const mem_model *m);

/* Whether tensor t's tiles at level l stay in its buffer (never for a
 * cached operand's, which stream). */
int mem_tensor_held(const mem_model *m, int t, int l);

/* The result's tile at one level for one point: which, and its bytes
 * before the point (0: nothing yet; else it is read back in when it is
 * not the one the point before used) and after it. */
typedef struct mem_result {
    int64_t id;
    double before, after;
    int final;      /* llb.eager, the PE level: no later point adds to it or reads
                       it back (run/final_points.h) */
} mem_result;

/* Writes the name of a tile point into buf, for a refusal: asked only
 * then, since naming each of millions of points costs more than its
 * refusals are worth. */
typedef void mem_where_fn(const void *ctx, char *buf, size_t size);

/* A tile point as the memories see it. */
typedef struct mem_visit {
    const mem_tile *tile;       /* tile[t * nlevels + l]: operand t's at level l,
                                   outermost first */
    const mem_result *out;      /* out[l]: the result's tile at level l */
    double compute;             /* the cycles its graph ran */
    double earliest;            /* the PE takes it no sooner */
    int pe;                     /* the processing element that computes it */
    mem_where_fn *where;        /* names it, given where_ctx */
    const void *where_ctx;
    /* Per operand, the cycles from its start after which it reads none of
     * its PE tile, when its slot frees (pe.release); NULL: its compute. */
    const double *read_until;
} mem_visit;

/* The fibers of cached operand t that the next point touches, in the
 * order it reads them: f[0..n-1], which the caller keeps until then. */
void mem_touch_fibers(mem_model *m, int t, const mem_fiber *f, size_t n);

/* The next tile point; *start, the (whole) cycle it is computed from. names[t]
 * names operand t in a refusal. */
int mem_point(mem_model *m, const mem_visit *v, const char *const *names, double *start,
              sam_error *err);

/* Ends the run: the last result tile written out, the tiles skipped
 * counted. The cycle it all ends. */
double mem_finish(mem_model *m);

#endif
