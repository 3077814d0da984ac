/* Iteration splitting (SAM paper section 4.1; the "w/ split" formats of its
 * Fig. 13): an index cut into parts that the graph itself iterates, each
 * tensor indexed by it storing one level per part, so that an
 * intersection of the outer parts skips whole chunks of the inner ones.
 *
 * The schedule says it as taco does, with the split commands that tiling
 * uses (custard/tiling.h): a split whose parts the loop order names is
 * iterated in the graph,
 *
 *     x(i) = b(i)*c(i)   -s=split(i,i1,i0,64) -s=reorder(i1,i0)
 *
 * compiles x(i1,i0) = b(i1,i0)*c(i1,i0) with i = 64 i1 + i0, and a split
 * the loop order does not name tiles the run instead. A split part may be
 * split again (split(i0,i01,i00,8): i0 = 8 i01 + i00); in the graph every
 * split is by shape, each smaller than the one it cuts. The graph records
 * the expression as written (for --check) and the splits as the graph
 * attribute itersplit; a run splits its operands the same way before it
 * stores them and puts the result back together. */
#ifndef SAMSIM_ITERSPLIT_H
#define SAMSIM_ITERSPLIT_H

#include "../common/error.h"
#include "../formats/tensor.h"
#include "expr.h"
#include "tiling.h"

#define ITERSPLIT_TEXT 2048
#define ITERSPLIT_FORMAT 128

/* What the compiler compiles instead of its arguments when the graph
 * iterates splits. */
typedef struct itersplit_args {
    int active;                                 /* some split is in the graph */
    char expression[ITERSPLIT_TEXT];            /* split indices replaced by their parts */
    char format[EXPR_MAX_INDICES][ITERSPLIT_FORMAT];
    const char *formats[EXPR_MAX_INDICES];      /* the -f values, for the split tensors */
    int nformats;
    char graph[ITERSPLIT_TEXT];                 /* the splits the graph iterates */
    char tiles[ITERSPLIT_TEXT];                 /* the others: the run's tiling */
} itersplit_args;

/* Sorts the split commands of tiling (NULL: none) between the graph and
 * the tiles by whether the loop order of schedule (reorder(...), or NULL)
 * names their parts, and rewrites the expression and the formats for the
 * graph's. A -f value may give one level letter per mode as written (a
 * split mode's letter then stands for each of its parts) or one per mode
 * of the split tensor. Refused with one line: an in-graph split by
 * occupancy or not smaller than what it cuts, and a graph that would both
 * split and tile (not supported yet). */
int itersplit_prepare(const char *expression, const char *const *formats, int nformats,
                      const char *schedule, const char *tiling, itersplit_args *out,
                      sam_error *err);

/* The splits of a graph, read back for a run. */
typedef struct itersplit {
    expr e;             /* the expression as written */
    tiling t;           /* the splits: t.nlevels[i] parts less one for index i */
} itersplit;

/* Parses the graph attributes expr and itersplit; s must be freed with
 * itersplit_free even on failure. */
int itersplit_read(const char *expression, const char *commands, itersplit *s, sam_error *err);
void itersplit_free(itersplit *s);

/* The operands (names[k], ops[k], n of them) split for the graph: out[k]
 * gets one mode per part of each split mode. The modes one index splits
 * must have one size in every operand, else the run would pair chunks of
 * different vectors: refused naming the index. dims[i] receives index i's
 * size, for itersplit_join (0 where no operand has it). */
int itersplit_operands(const itersplit *s, const char *const *names, const tensor *ops, int n,
                       tensor *out, int64_t *dims, sam_error *err);

/* The graph's result in, whose split modes are put back together: out has
 * the expression's result order, with dims from index sizes dims. */
int itersplit_join(const itersplit *s, const tensor *in, const int64_t *dims, tensor *out,
                   sam_error *err);

#endif
