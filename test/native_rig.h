/* A rig for checking a block's native run (block_ops.run) against the
 * cycle engine, which steps every block every cycle. The block runs alone
 * in an engine built here: feeders push random streams into it, pausing
 * at random, and drains take its outputs, pausing at random too, over
 * channels of random capacity (1, 2, 4 or none) and latency, at a random
 * initiation interval; an input may come through a relay, a producer
 * that waits for input as well as for room. The native run under the
 * event engine, with and without random window ends, and the adapter
 * over the step must give the cycle engine's tokens, at the same cycles,
 * its statistics for every block and channel and its end. */
#ifndef SAMSIM_TEST_NATIVE_RIG_H
#define SAMSIM_TEST_NATIVE_RIG_H

#include <stdint.h>

#include "../engine/block.h"
#include "../formats/fibertree.h"

enum {
    RIG_MAX_TOKENS = 400,       /* per stream, in and out */
    RIG_MAX_PORTS = 8,          /* of the block under test, each way */
    RIG_MAX_LEVELS = 3,
    RIG_MAX_ELEMS = 160,        /* per level of a tree */
};

typedef struct rig_stream {
    token tok[RIG_MAX_TOKENS];
    int n;
} rig_stream;

void rig_put(rig_stream *s, token t);

/* splitmix64 from the state *rng: a case seeded k draws the same every run. */
uint64_t rig_random(uint64_t *rng);

/* A random number below n. */
int rig_below(uint64_t *rng, int n);

/* A fiber tree: level 0 holds one fiber; element e of level l has fiber e
 * of level l + 1, whose elements are first[l + 1][e] up to
 * first[l + 1][e + 1]. */
typedef struct rig_tree {
    int levels;
    int first[RIG_MAX_LEVELS][RIG_MAX_ELEMS + 1];
    int64_t crd[RIG_MAX_LEVELS][RIG_MAX_ELEMS];
} rig_tree;

/* Each fiber of at most `width` elements, coordinates rising from 0 in
 * random steps; now and then an empty fiber. */
void rig_random_tree(rig_tree *t, int levels, int width, uint64_t *rng);

/* The whole level-`depth` stream of t, ending in D, as the reference's
 * scanners make it. */
void rig_write_level(const rig_tree *t, int depth, rig_stream *s);

/* One side of a joiner (a union or an intersection): crd and ref streams
 * of coordinates rising from 0 to 40 by steps of 1 to gap, refs counting
 * up, over `fibers` fibers of a level below another (-1: one level, a
 * single fiber), one fiber in about empty_one_in the fiber [N] of a
 * tensor absent one level up. */
void rig_joiner_side(rig_stream *crd, rig_stream *ref, int fibers, int gap, int empty_one_in,
                     uint64_t *rng);

/* One case: the block, its input streams and the timing around it. */
typedef struct rig_spec {
    const block_ops *ops;
    const char *attrs;              /* "k=v,k=v" */
    rig_stream in[RIG_MAX_PORTS];
    int nin;
    int unconnected;                /* an output left without a channel, or -1 */
    /* Outputs whose streams end without D (a skipping intersecter's skip
     * streams), bit p for output p: drained by blocks that are no sinks,
     * so the run ends without them, and compared up to its end. */
    uint32_t open_ended;
    uint32_t ii;
    uint64_t capacity[3 * RIG_MAX_PORTS];   /* inputs' channels, outputs', relays' inputs' */
    uint32_t latency[3 * RIG_MAX_PORTS];
    uint8_t feed_pause[RIG_MAX_PORTS][RIG_MAX_TOKENS];
    uint8_t drain_pause[RIG_MAX_PORTS][RIG_MAX_TOKENS];
    int relayed[RIG_MAX_PORTS];         /* input p comes through a relay */
    uint8_t relay_pause[RIG_MAX_PORTS][RIG_MAX_TOKENS];
    /* A graph whose node 0 is the block's, attributes and all (attrs
     * then go unread), for a block that reads its edges; or NULL. */
    const sam_graph *graph;
    const char *tensor;             /* the name tree is bound to, or NULL */
    const fibertree *tree;
    /* Optional, for a block whose outcome is more than its outputs (a
     * writer): a summary of it, which every run must give alike. */
    uint64_t (*digest)(block *b);
    /* Optional: the streams outputs 0..nwant-1 must give, worked out
     * apart from the block, compared token by token (hollow counts too). */
    rig_stream want[RIG_MAX_PORTS];
    int nwant;
} rig_spec;

/* Random timing around the block: capacities, latencies, pauses. */
void rig_random_timing(rig_spec *s, uint64_t *rng);

/* Runs s under every engine and fails unless each run equals the cycle
 * engine's, which must finish; label names the case. The runs' end: the
 * cycle in which the last sink took D, plus one. */
cycle_t rig_check_engines(const rig_spec *s, const char *label);

/* Runs `cases` random cases of one block, seeded 1, 2, ...: make fills a
 * spec cleared but for unconnected (-1) and attrs ("") from the case's
 * generator, the timing is random; name labels a failing case. */
typedef void rig_make_fn(rig_spec *s, uint64_t k, uint64_t *rng);
void rig_check_cases(const char *name, int cases, rig_make_fn *make);

#endif
