/* What `run --check` does: the result against an independent evaluation
 * of the expression (custard/gold.h), and the operands against each other
 * before anything runs. */
#ifndef SAMSIM_CHECK_H
#define SAMSIM_CHECK_H

#include <stddef.h>

#include "../common/error.h"
#include "../formats/tensor.h"
#include "../graph/graph.h"

/* Compares result with expression text evaluated on ops[k] named
 * names[k]; 1 on a mismatch (a headline naming path, then the differences
 * on stderr), -1 on an error. verdict receives the summary's "check:"
 * text. */
int check_result(const char *path, const char *text, const char *const *names,
                 const tensor *const *ops, int n, const tensor *result, char *verdict,
                 size_t size, sam_error *err);

/* Modes scanned under one index must have one size: otherwise the
 * intersecters and lookups walk coordinates one operand does not have and
 * the result is silently wrong. The graph's nodes say which index handles
 * which mode, so this needs no expression. operands[k] is graph tensor
 * k's (k >= 1). */
int check_index_sizes(const sam_graph *g, const tensor *operands, sam_error *err);

#endif
