/* The Custard compiler: tensor index notation, per-tensor formats and a
 * loop order to a SAM graph, built as SAM's Custard builds it (SAM paper
 * section 5): per index variable in loop order, a level scanner per tensor
 * that has it, an intersecter or unioner where several meet, a repeater for
 * a tensor that lacks it; then value arrays, the ALU tree, reducers, and the
 * output's level writers.
 *
 * Arguments are Custard's: compile_args{"X(i,j)=B(i,k)*C(k,j)",
 * {"X:ss", "B:ss:1,0"}, "reorder(k,i,j)"}. The graph records them as the
 * graph attributes expr, formats and schedule, so that `samsim run --check`
 * needs nothing more. Splits leave the graph as it is, since it runs on
 * each tile unchanged, and are recorded as the graph attribute tiling.
 *
 * locate(T) finds tensor T in another's coordinates instead of scanning
 * and intersecting it (SAM paper section 4.2): wherever T meets one other
 * tensor in a product and that one is not located, a locate node takes
 * the other's coordinates and T's parent references and gives T's
 * positions; where every tensor of a product is located they intersect as
 * usual. The graph records it as the attribute locate.
 *
 * parallelize(i,N) deals i's elements out to N lanes and joins the lanes'
 * streams back in order (SAM paper section 4.4), see lower_parallel; the
 * graph records it as the attribute parallelize.
 */
#ifndef SAMSIM_COMPILE_H
#define SAMSIM_COMPILE_H

#include "../common/error.h"
#include "../graph/graph.h"

typedef struct compile_args {
    const char *expression;
    const char *const *formats; /* -f values without "-f=" */
    int nformats;
    const char *schedule;       /* -s=reorder(...), or NULL for the concordant order */
    const char *tiling;         /* -s=split(...) commands (custard/tiling.h), or NULL */
    const char *locate;         /* tensors to locate rather than scan, by name,
                                   separated by commas or blanks (-s=locate(c)), or NULL */
    const char *parallelize;    /* "INDEX,LANES" of -s=parallelize(i,4), or NULL */
} compile_args;

/* Builds the graph into g (freed with graph_free). On failure g is empty
 * and err holds one line. */
int custard_compile(const compile_args *a, sam_graph *g, sam_error *err);

#endif
