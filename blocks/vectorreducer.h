/* What the implementations of vectorreducer share: the frame
 * (vectorreducer.c) takes the (coordinate, value) pairs of an outer fiber,
 * one a cycle, and when the fiber closes has the storage read them out,
 * summed and in coordinate order, then emits the stop token one level
 * lower; it takes no input while reading out. An implementation supplies
 * the storage and its read-out timing. */
#ifndef SAMSIM_VECTORREDUCER_H
#define SAMSIM_VECTORREDUCER_H

#include <stdint.h>

#include "../engine/block.h"
#include "lanes.h"

typedef enum { VECRED_IDLE, VECRED_BUSY, VECRED_POINT } vecred_read;

typedef struct vecred_store_ops {
    /* The storage for the node, NULL with err set. */
    void *(*create)(block *b, const block_ctx *ctx, sam_error *err);
    /* Sums v at crd: 0, -1 out of memory, or 1 with *fault set. */
    int (*add)(void *store, int64_t crd, double v, const char **fault);
    /* The outer fiber is complete: its read-out begins (NULL: nothing to
     * prepare). */
    void (*close)(void *store);
    /* One cycle of read-out: VECRED_POINT with the next coordinate and
     * its sum, VECRED_BUSY for a cycle spent without one, VECRED_IDLE when
     * the fiber has been read out (the storage is then empty). */
    vecred_read (*read)(void *store, int64_t *crd, double *v);
    /* Empties the storage for another run on the data ctx binds
     * (block_ops.rearm): 0, or -1 with err set. */
    int (*rearm)(void *store, const block *b, const block_ctx *ctx, sam_error *err);
    void (*destroy)(void *store);
} vecred_store_ops;

/* The parameter every implementation declares: the frame reads it. */
#define VECRED_RATE_PARAM \
    {"rate", "pairs", "pairs the lanes' merger takes a cycle (0: one from every lane)", 0, 0, \
     LANES_MAX, 1, 0}

/* The create, rearm, port, step, run and destroy of a vectorreducer
 * implementation whose storage is store. */
int vecred_create_with(block *b, const block_ctx *ctx, const vecred_store_ops *store,
                       sam_error *err);
int vecred_rearm(block *b, const block_ctx *ctx, sam_error *err);
int vecred_port(block *b, const graph_edge *e, int input, sam_error *err);
int vecred_step(block *b, cycle_t now);
void vecred_run(block *b, cycle_t until);
void vecred_destroy(block *b);

#endif
