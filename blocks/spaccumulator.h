/* What the implementations of spaccumulator share (SAM-BLOCKS.md 5.13,
 * 5.16-5.18). The frame (spaccumulator.c) is the reference's plumbing:
 * the StknDrops in front, the private CrdHold of the one-dimensional case,
 * the point accumulator's input FIFOs and run detection, its val output
 * and the CrdPtConverter. An implementation supplies only the storage the
 * points are summed in and how it is read out, which is where sparse and
 * dense accumulators differ in hardware. The CrdPtConverter is declared
 * here too so that its own test vectors can be run on it. */
#ifndef SAMSIM_SPACCUMULATOR_H
#define SAMSIM_SPACCUMULATOR_H

#include <stdint.h>

#include "../engine/block.h"
#include "../engine/token.h"

typedef struct crdpt_conv {
    int64_t prev_o, prev_i;     /* the last point taken */
    uint8_t has_prev, emit_stop, emit_done, any, done;
    uint8_t last_level;         /* the final inner stop is S1, not S0 */
    uint8_t close_empty;        /* close an empty result with stops too */
} crdpt_conv;

/* What the converter sees at the head of its input this cycle. */
typedef enum { CONV_NOTHING, CONV_POINT, CONV_DONE } conv_head;

typedef struct conv_out {
    token o, i;
    uint8_t has_o, has_i;       /* 0: a bubble */
    uint8_t took;               /* the head point was consumed */
} conv_out;

void crdpt_conv_init(crdpt_conv *c, int last_level, int close_empty);

/* One cycle on head (the point (o, i) when head is CONV_POINT); returns
 * whether anything was emitted or consumed. */
int crdpt_conv_step(crdpt_conv *c, conv_head head, int64_t o, int64_t i, conv_out *out);

typedef struct spacc_point {
    int64_t o, i;
    double v;
} spacc_point;

typedef enum { SPACC_IDLE, SPACC_BUSY, SPACC_POINT } spacc_read;

/* A run is what the storage sums before it leaves: the points of one
 * outer coordinate (order 1) or the whole input (order 2). */
typedef struct spacc_store_ops {
    /* The storage for a node of that order (1 or 2), NULL with err set. */
    void *(*create)(block *b, const block_ctx *ctx, int order, sam_error *err);
    /* Whether a new run can start this cycle; asked before its first
     * point while no run is open. */
    int (*open)(void *store);
    /* Sums p into the open run: 0, -1 out of memory, or 1 with *fault set. */
    int (*add)(void *store, const spacc_point *p, const char **fault);
    /* The open run is complete and may leave; -1 out of memory. */
    int (*close)(void *store);
    /* One cycle of read-out of the closed runs, in their order and each in
     * (outer, inner) order: SPACC_POINT with the next point, SPACC_BUSY for
     * a cycle spent without one, SPACC_IDLE when none is left. */
    spacc_read (*read)(void *store, spacc_point *p);
    /* Optional: empties the storage for another run (block_ops.rearm);
     * without it the storage is destroyed and created again. */
    int (*rearm)(void *store);
    void (*destroy)(void *store);
} spacc_store_ops;

/* The create, rearm, port, step, run and destroy of a spaccumulator
 * implementation whose storage is store. */
int spacc_create_with(block *b, const block_ctx *ctx, const spacc_store_ops *store,
                      sam_error *err);
int spacc_rearm(block *b, const block_ctx *ctx, sam_error *err);
int spacc_port(block *b, const graph_edge *e, int input, sam_error *err);
int spacc_step(block *b, cycle_t now);
void spacc_run(block *b, cycle_t until);
void spacc_destroy(block *b);

#endif
