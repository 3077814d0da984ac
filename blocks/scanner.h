/* What the fiberlookup scanners (SAM-BLOCKS.md 5.1, 5.2, 6) share: one
 * ref input, crd and ref outputs, and the way a fiber starts and ends.
 * Every fiber starts at a ref: D ends the stream, a stop-token ref Sk that
 * no closing stop took is an empty outer fiber S(k+1), and an N ref is the
 * fiber [N, stop] (for the bitvector scanner, [stop]: a fiber without
 * words). A fiber's stop token goes out only once the next ref is
 * visible, merged with it when that ref is a stop token (Sk -> Sk+1). The
 * walk within a fiber is the level's own. */
#ifndef SAMSIM_SCANNER_H
#define SAMSIM_SCANNER_H

#include "../engine/block.h"

/* SCANNER_IN_SKIP is optional: a compressed scanner's coordinate skip
 * input, wired by the builder (builder/feedback.h) and counted in nin then. */
enum { SCANNER_IN_REF, SCANNER_IN_SKIP };
enum { SCANNER_OUT_CRD, SCANNER_OUT_REF };

typedef struct scanner {
    int64_t cur;                    /* position in the fiber, < 0: no fiber open */
    int begin, end_fiber, pend_stop, done;
    uint64_t stops;                 /* stop tokens sent: the number of the
                                       fiber under way, as skips name it */
} scanner;

#define SCANNER_START {.cur = -1, .begin = 1}

/* Where a scanner reads: the node's tensor and mode, and the kind of
 * level it scans ('s' compressed, 'd' dense, 'b' bitvector, 'l' linked
 * list). */
typedef struct scanner_source {
    const char *tensor;
    int mode;
    char kind;
} scanner_source;

/* The constructors' common part: names the block's ports, fills src and
 * returns its level (scanner_level), or NULL with err set. */
const fiber_level *scanner_create(block *b, const block_ctx *ctx, char kind,
                                  scanner_source *src, const fibertree **tree, sam_error *err);

/* The level src names in the data ctx binds, which must be of src's kind,
 * or NULL with err set: a rearm binds the scanner to the next data so. */
const fiber_level *scanner_level(block *b, const block_ctx *ctx, const scanner_source *src,
                                 const fibertree **tree, sam_error *err);
int scanner_port(block *b, const graph_edge *e, int input, sam_error *err);

/* A step once D is out or while a stop token waits for a ref (have: one
 * is visible); returns whether anything changed. */
int scanner_pending(block *b, scanner *s, int have, cycle_t now);

/* Pops ref r, the head of the input, to start the next fiber; returns 1
 * when r is none of D, S or N, for the level to open its fiber. */
int scanner_start(block *b, scanner *s, cycle_t now, token r);

/* Ends the open fiber with its stop token. */
void scanner_close(block *b, scanner *s, cycle_t now);

/* Pushes a crd and a ref token together. */
void scanner_emit(block *b, cycle_t now, token crd, token ref);

#endif
