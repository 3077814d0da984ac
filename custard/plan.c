#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIT(k) ((index_set)1 << (k))

index_set plan_vars(const expr_node *n)
{
    if (n->kind == EXPR_ACCESS) {
        index_set s = 0;
        for (int k = 0; k < n->order; k++)
            s |= BIT(n->index[k]);
        return s;
    }
    return plan_vars(n->left) | (n->right ? plan_vars(n->right) : 0);
}

/* Literals and negation have no SAM block, and a tensor read twice would
 * give two joiner inputs of one name; each is refused with its column. */
static int check_node(plan *p, const expr_node *n, sam_error *err)
{
    if (n->kind == EXPR_LITERAL || n->kind == EXPR_NEG)
        return error_set(err, "expression: column %d: %s has no SAM block; bind a scalar "
                              "tensor instead", n->column,
                         n->kind == EXPR_LITERAL ? "a number" : "unary minus");
    if (n->kind == EXPR_ACCESS) {
        if (p->access[n->tensor])
            return error_set(err, "expression: column %d: %s is used twice; a SAM graph reads "
                                  "each tensor once (name the second use differently)",
                             n->column, p->e.tensors[n->tensor].name);
        p->access[n->tensor] = n;
        return 0;
    }
    return check_node(p, n->left, err) || check_node(p, n->right, err);
}

/* "T:LEVELS[:ORDER]" for a tensor of the expression. */
static int parse_format(plan *p, const char *spec, int *seen, sam_error *err)
{
    const char *colon = strchr(spec, ':');
    if (!colon)
        return error_set(err, "-f=%s: expected T:LEVELS[:ORDER], e.g. -f=B:ss:1,0", spec);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(colon - spec), spec);
    int t = expr_find_tensor(&p->e, name);
    if (t < 0)
        return error_set(err, "-f=%s: no tensor %s in the expression", spec, name);
    if (seen[t]++)
        return error_set(err, "-f=%s: a second format for %s", spec, name);
    level_format f;
    if (level_format_parse(colon + 1, &f, err))
        return error_wrap(err, "-f=%s", spec);
    for (int k = 0; k < f.nlevels; k++)
        if (f.kind[k] == 'l' && t == 0 && (k == 0 || f.kind[k - 1] != 'd'))
            return error_set(err, "-f=%s: a linked-list level (l) of the result is built only "
                             "below a dense level (as OuterSPACE's Y: -f=Y:dls)", spec);
    if (f.nlevels != p->e.tensors[t].order)
        return error_set(err, "-f=%s: %s has %d index variable%s but the format has %d level%s",
                         spec, name, p->e.tensors[t].order, p->e.tensors[t].order == 1 ? "" : "s",
                         f.nlevels, f.nlevels == 1 ? "" : "s");
    p->format[t] = f;
    return 0;
}

static int read_formats(plan *p, const char *const *formats, int n, sam_error *err)
{
    int seen[EXPR_MAX_INDICES] = {0};
    if (!(p->format = calloc((size_t)p->e.ntensors, sizeof *p->format)))
        return error_set(err, "out of memory");
    for (int t = 0; t < p->e.ntensors; t++)
        level_format_default(p->e.tensors[t].order, &p->format[t]);
    for (int k = 0; k < n; k++)
        if (parse_format(p, formats[k], seen, err))
            return -1;
    return 0;
}

/* The index of tensor t stored at level l. */
static int level_index(const plan *p, int t, int l)
{
    const expr_node *a = t == 0 ? p->e.lhs : p->access[t];
    return a->index[p->format[t].mode[l]];
}

static void set_loop(plan *p, int k, int idx)
{
    p->loop[k] = idx;
    p->pos[idx] = k;
}

/* "reorder(i,k,j)" naming every index exactly once. */
static int parse_schedule(plan *p, const char *s, sam_error *err)
{
    size_t n = strlen(s);
    if (strncmp(s, "reorder(", 8) || n < 9 || s[n - 1] != ')')
        return error_set(err, "-s=%s: expected reorder(i,j,...)", s);
    index_set seen = 0;
    char name[128];
    for (const char *q = s + 8; q < s + n - 1;) {
        size_t len = strcspn(q, ",)");
        snprintf(name, sizeof name, "%.*s", (int)len, q);
        int idx = expr_find_index(&p->e, name);
        if (idx < 0)
            return error_set(err, "-s=%s: no index variable '%s' in the expression", s, name);
        if (seen & BIT(idx))
            return error_set(err, "-s=%s: index %s appears twice", s, name);
        seen |= BIT(idx);
        set_loop(p, p->nloop++, idx);
        q += len + 1;
    }
    for (int i = 0; i < p->e.nindices; i++)
        if (!(seen & BIT(i)))
            return error_set(err, "-s=%s: the loop order misses index %s", s, p->e.indices[i]);
    return 0;
}

/* The concordant order: each tensor's levels in storage order, ties
 * broken by first appearance in the expression. */
static int default_loop(plan *p, sam_error *err)
{
    index_set before[EXPR_MAX_INDICES] = {0}, placed = 0;
    for (int t = 0; t < p->e.ntensors; t++)
        for (int l = 1; l < p->format[t].nlevels; l++)
            before[level_index(p, t, l)] |= BIT(level_index(p, t, l - 1));
    while (p->nloop < p->e.nindices) {
        int next = -1;
        for (int i = 0; i < p->e.nindices && next < 0; i++)
            if (!(placed & BIT(i)) && (before[i] & ~placed) == 0)
                next = i;
        if (next < 0)
            return error_set(err, "the tensors' mode orders admit no common loop order; give "
                                  "one with -s=reorder(...) and matching formats");
        placed |= BIT(next);
        set_loop(p, p->nloop++, next);
    }
    return 0;
}

/* Whether the result's level l, a linked list, is written from the loop
 * just outside its dense parent's (OuterSPACE's Y(i,k,j) with loops k,
 * i, j): its writer appends to any fiber's list. */
static int discordant_list(const plan *p, int t, int l, int outer, int inner)
{
    return t == 0 && p->format[0].kind[l] == 'l' && p->pos[inner] + 1 == p->pos[outer];
}

/* Every tensor is traversed in storage order, so its levels must come in
 * loop order; but for a linked list in the result. */
static int check_concordance(const plan *p, sam_error *err)
{
    for (int t = 0; t < p->e.ntensors; t++)
        for (int l = 1; l < p->format[t].nlevels; l++) {
            int outer = level_index(p, t, l - 1), inner = level_index(p, t, l);
            if (p->pos[outer] > p->pos[inner] && !discordant_list(p, t, l, outer, inner))
                return error_set(err, "format of %s stores %s before %s, against the loop "
                                      "order; change its mode order or the loop order",
                                 p->e.tensors[t].name, p->e.indices[outer],
                                 p->e.indices[inner]);
        }
    return 0;
}

/* Where summed index k is summed: descend while one operand of a sum
 * holds every use; a product is not entered (see plan.h). */
static const expr_node *sum_point(const expr_node *n, int k)
{
    while (n->kind == EXPR_ADD || n->kind == EXPR_SUB) {
        if (!(plan_vars(n->right) & BIT(k)))
            n = n->left;
        else if (!(plan_vars(n->left) & BIT(k)))
            n = n->right;
        else
            break;
    }
    return n;
}

static void set_scopes(plan *p, const expr_node *n, index_set scope)
{
    if (n->kind == EXPR_ACCESS) {
        p->scope[n->tensor] = scope;
        return;
    }
    index_set vars = plan_vars(n);
    if (n->kind == EXPR_MUL) {
        set_scopes(p, n->left, scope);
        set_scopes(p, n->right, scope);
    } else {
        set_scopes(p, n->left, scope & ~(vars & ~plan_vars(n->left)));
        set_scopes(p, n->right, scope & ~(vars & ~plan_vars(n->right)));
    }
}

static int analyse(plan *p, sam_error *err)
{
    if (check_node(p, p->e.rhs, err))
        return -1;
    index_set vars = plan_vars(p->e.rhs);
    if (!vars)
        return error_set(err, "expression: the right side has no index variable, so there is "
                              "no stream to simulate");
    p->summed = vars & ~plan_vars(p->e.lhs);
    for (int k = 0; k < p->e.nindices; k++)
        if (p->summed & BIT(k))
            p->sum_at[k] = sum_point(p->e.rhs, k);
    set_scopes(p, p->e.rhs, vars);
    return 0;
}

int plan_make(const char *expression, const char *const *formats, int nformats,
              const char *schedule, plan *p, sam_error *err)
{
    memset(p, 0, sizeof *p);
    if (expr_parse(expression, &p->e, err))
        return -1;
    if (p->e.ntensors > EXPR_MAX_INDICES)
        return plan_free(p), error_set(err, "expression: more than %d tensors", EXPR_MAX_INDICES);
    int rc = analyse(p, err) || read_formats(p, formats, nformats, err) ||
             (schedule ? parse_schedule(p, schedule, err) : default_loop(p, err)) ||
             check_concordance(p, err);
    if (rc)
        plan_free(p);
    return rc ? -1 : 0;
}

void plan_free(plan *p)
{
    expr_free(&p->e);
    free(p->format);
    memset(p, 0, sizeof *p);
}
