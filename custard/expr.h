/* Tensor index notation, as Custard and TACO write it:
 *
 *     X(i,j) = B(i,k) * C(k,j)        x = B(i,j,k) * C(i,j,k)
 *     x(i) = b*C(j,i)*d(j) + e*f(i)   X(i,j) = 2*B(i,j) - (C(i,j))
 *
 * The left side is a tensor access or a bare name (a scalar); the right
 * side combines accesses, bare names (scalars), numeric literals, binary
 * `+ - *`, unary minus and parentheses. Index variables on the right that
 * are not on the left are summed (see evaluate.h for exactly where).
 *
 * The parsed form is a small tree owned by an `expr`; tensors and index
 * variables are numbered in order of first appearance, reading left to
 * right, so that tensor 0 is always the result. */
#ifndef SAMSIM_EXPR_H
#define SAMSIM_EXPR_H

#include "../common/error.h"
#include "../formats/tensor.h"

/* Index variables are kept as bit sets of one 64-bit word. */
#define EXPR_MAX_INDICES 64

typedef enum expr_kind {
    EXPR_ACCESS,  /* a tensor (or a scalar: order 0) with its index variables */
    EXPR_LITERAL, /* a number */
    EXPR_ADD,
    EXPR_SUB,
    EXPR_MUL,
    EXPR_NEG /* unary minus: the operand is `left` */
} expr_kind;

typedef struct expr_node {
    expr_kind kind;
    int column;                     /* 1-based column: where an ACCESS, LITERAL or
                                     * NEG starts, the operator of the others */
    int tensor;                     /* ACCESS: number in expr.tensors */
    int order;                      /* ACCESS: how many index variables */
    int index[TENSOR_MAX_ORDER];    /* ACCESS: numbers in expr.indices */
    double value;                   /* LITERAL */
    struct expr_node *left, *right; /* ADD, SUB, MUL: both; NEG: left */
} expr_node;

typedef struct expr_tensor {
    char *name;
    int order;  /* number of index variables it is used with */
    int column; /* of its first appearance */
} expr_tensor;

typedef struct expr {
    expr_node *lhs;       /* an ACCESS of tensors[0] */
    expr_node *rhs;
    expr_tensor *tensors; /* the result first, then the operands as they appear */
    int ntensors;
    char **indices;       /* index variable names as they first appear */
    int nindices;
} expr;

/* Parses text into out. On failure out is left empty (expr_free is still
 * safe) and err holds one line "expression: column N: problem". Besides
 * syntax, it refuses: an index of the result that is not on the right, a
 * tensor used with two different orders, an index repeated within one
 * access, and the result tensor appearing on the right. */
int expr_parse(const char *text, expr *out, sam_error *err);

void expr_free(expr *e);

/* The number of a tensor or index variable by name, -1 when absent. */
int expr_find_tensor(const expr *e, const char *name);
int expr_find_index(const expr *e, const char *name);

/* Tensor t's access: the left side for the result, else its first use on
 * the right; NULL when the right side does not use it. */
const expr_node *expr_access(const expr *e, int tensor);

/* The mode at which access a takes index variable idx, -1 when none. */
int expr_access_mode(const expr_node *a, int idx);

#endif
