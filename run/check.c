/* run --check and the operands' sizes (check.h). */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../custard/expr.h"
#include "../custard/gold.h"

/* Differences shown on a failed check. */
#define CHECK_SHOW 10

int check_result(const char *path, const char *text, const char *const *names,
                 const tensor *const *ops, int n, const tensor *result, char *verdict,
                 size_t size, sam_error *err)
{
    expr e;
    if (expr_parse(text, &e, err))
        return -1;
    char *details = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&details, &len);
    gold_report rep;
    int rc = gold_check(&e, names, ops, n, result, mem, CHECK_SHOW, &rep, err);
    if (mem)
        fclose(mem);
    expr_free(&e);
    if (rc == 0 && rep.differ) {
        fprintf(stderr, "samsim: %s: check failed: %zu coordinates differ from the reference "
                "evaluation of %s beyond rounding\n", path, rep.differ, text);
        fputs(details ? details : "", stderr);
    }
    free(details);
    if (rc)
        return -1;
    if (rep.differ)
        snprintf(verdict, size, "fail");
    else if (rep.exact)
        snprintf(verdict, size, "pass (exact)");
    else
        snprintf(verdict, size, "pass (max error %.2g of bound)", rep.worst);
    return rep.differ ? 1 : 0;
}

/* The first bound mode before operand k's mode m that the graph scans
 * under the same index, as (*other, *other_mode); 0 when there is none. */
static int earlier_mode(const sam_graph *g, const tensor *operands, int k, int m, int *other,
                        int *other_mode)
{
    const char *idx = graph_tensor_index(g, g->tensors[k].name, m);
    for (int j = 1; idx && j <= k; j++)
        for (int n = 0; n < operands[j].order && (j < k || n < m); n++) {
            const char *jdx = graph_tensor_index(g, g->tensors[j].name, n);
            if (jdx && !strcmp(idx, jdx)) {
                *other = j;
                *other_mode = n;
                return 1;
            }
        }
    return 0;
}

int check_index_sizes(const sam_graph *g, const tensor *operands, sam_error *err)
{
    for (int k = 1; k < g->ntensors; k++)
        for (int m = 0; m < operands[k].order; m++) {
            int j, n;
            if (!earlier_mode(g, operands, k, m, &j, &n) ||
                operands[j].dims[n] == operands[k].dims[m])
                continue;
            return error_at(err, g->path, 0, "index %s has size %lld in %s (mode %d) but %lld in "
                            "%s (mode %d)", graph_tensor_index(g, g->tensors[k].name, m),
                            (long long)operands[j].dims[n], g->tensors[j].name, n,
                            (long long)operands[k].dims[m], g->tensors[k].name, m);
        }
    return 0;
}
