/* Runs one block alone on token streams, as the SAM reference's unit
 * tests do: input token k is visible in cycle k (no edge latency; "_" is a
 * cycle without a token), the block is stepped every cycle, and what it
 * pushes in cycle t is output t. Streams are written "0 1 S0 2.5 N D";
 * a stop token that closes fibers never opened has a ' for each ("S1'",
 * engine/token.h), which the reference's vectors do not show. */
#ifndef SAMSIM_TEST_HARNESS_H
#define SAMSIM_TEST_HARNESS_H

#include "../formats/fibertree.h"
#include "../engine/block.h"

typedef struct harness_spec {
    const block_ops *ops;
    const char *attrs;           /* node attributes "tensor=B,mode=0,..." */
    const char *tensor;          /* name bound to tree, or NULL */
    const fibertree *tree;
    const char *inputs[BLOCK_MAX_PORTS];
    int queued;                  /* every input token visible from cycle 0 */
    int cycles;                  /* cycles to run; 0: 200 */
} harness_spec;

typedef struct harness_out {
    token tok[BLOCK_MAX_PORTS][512];
    int has[BLOCK_MAX_PORTS][512];   /* 0: a bubble in that cycle */
    int ncycles;
    cycle_t done_cycle;              /* sinks: the cycle they took D */
    int done;
    block blk;                       /* the block after the run, state kept */
} harness_out;

/* Runs the block; out must be freed with harness_free. */
void harness_run(const harness_spec *s, harness_out *out);
void harness_free(harness_out *out);

/* Creates the block of s, which must refuse its node with a message
 * holding want and leave no state behind. */
void harness_refused(const harness_spec *s, const char *want);

/* Checks output port p against an expected stream: bubble-free compares
 * only tokens; exact compares cycle by cycle ("_" bubbles) up to the last
 * token. Numbers match by value whether coordinates or values. */
void harness_expect(const harness_out *out, int p, const char *expected, int exact);

/* A fibertree holding one compressed level (seg, crd) of mode 0 with the
 * given values, for scanners and arrays; free with fibertree_free. */
void harness_level(fibertree *ft, const int64_t *seg, size_t nseg, const int64_t *crd,
                   size_t ncrd);

/* A fibertree holding one bitvector level of mode 0 and dimension dim, as
 * formats/fibertree.h lays it out: the 64-bit storage words given,
 * ceil(dim / 64) a fiber, seg the popcounts of the fibers before each;
 * values 1, 2, ... one per set bit. Free with fibertree_free. */
void harness_bv_level(fibertree *ft, int64_t dim, const uint64_t *bits, size_t nbits);

#endif
