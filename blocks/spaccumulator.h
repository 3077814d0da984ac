/* The CrdPtConverter inside the sparse accumulators (SAM-BLOCKS.md 5.18),
 * declared here only so that its own test vectors can be run on it. */
#ifndef SAMSIM_SPACCUMULATOR_H
#define SAMSIM_SPACCUMULATOR_H

#include <stdint.h>

#include "../sim/token.h"

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

#endif
