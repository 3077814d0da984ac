/* Index expressions: the parser (every kernel of the SAM suite, the shape
 * of the tree, each error with its column) and the reference evaluator
 * (small cases worked out by hand, every kernel against a dense brute
 * force, and a random SpMSpM against SuiteSparse:GraphBLAS). */
#include <GraphBLAS.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../custard/evaluate.h"
#include "../custard/expr.h"
#include "../formats/tensor.h"
#include "test_util.h"

/* ---- helpers ---- */

/* A small LCG of the test's own, so that the data does not depend on
 * samsim's generators. */
static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

/* Appends formatted text at *pos of buf. */
static void put(char *buf, size_t size, size_t *pos, const char *text)
{
    int n = snprintf(buf + *pos, size - *pos, "%s", text);
    *pos += (size_t)n < size - *pos ? (size_t)n : size - *pos - 1;
}

/* The tree as an S-expression: "(+ (* b C(j,i)) d(j))". */
static void show(const expr *e, const expr_node *n, char *buf, size_t size, size_t *pos)
{
    static const char *ops[] = {[EXPR_ADD] = "+", [EXPR_SUB] = "-", [EXPR_MUL] = "*",
                                [EXPR_NEG] = "-"};
    char tmp[64];
    if (n->kind == EXPR_LITERAL) {
        snprintf(tmp, sizeof tmp, "%g", n->value);
        put(buf, size, pos, tmp);
    } else if (n->kind == EXPR_ACCESS) {
        put(buf, size, pos, e->tensors[n->tensor].name);
        for (int k = 0; k < n->order; k++) {
            put(buf, size, pos, k ? "," : "(");
            put(buf, size, pos, e->indices[n->index[k]]);
        }
        if (n->order)
            put(buf, size, pos, ")");
    } else {
        put(buf, size, pos, "(");
        put(buf, size, pos, ops[n->kind]);
        put(buf, size, pos, " ");
        show(e, n->left, buf, size, pos);
        if (n->right) {
            put(buf, size, pos, " ");
            show(e, n->right, buf, size, pos);
        }
        put(buf, size, pos, ")");
    }
}

static void assert_tree(const char *text, const char *want)
{
    expr e;
    sam_error err;
    if (expr_parse(text, &e, &err))
        fail_msg("%s: %s", text, err.msg);
    char buf[512];
    size_t pos = 0;
    show(&e, e.rhs, buf, sizeof buf, &pos);
    assert_string_equal(buf, want);
    expr_free(&e);
}

/* "X2 B2 C2" and "i j k" */
static void summarize(const expr *e, char *tensors, char *indices, size_t size)
{
    size_t tp = 0, ip = 0;
    char tmp[80];
    for (int t = 0; t < e->ntensors; t++) {
        snprintf(tmp, sizeof tmp, "%s%s%d", t ? " " : "", e->tensors[t].name, e->tensors[t].order);
        put(tensors, size, &tp, tmp);
    }
    tensors[tp] = '\0';
    for (int i = 0; i < e->nindices; i++) {
        put(indices, size, &ip, i ? " " : "");
        put(indices, size, &ip, e->indices[i]);
    }
    indices[ip] = '\0';
}

static void assert_parse_error(const char *text, const char *want)
{
    expr e;
    sam_error err;
    if (expr_parse(text, &e, &err) == 0)
        fail_msg("%s: parsed, expected \"%s\"", text, want);
    if (strncmp(err.msg, want, strlen(want)) != 0)
        fail_msg("%s:\n  got  \"%s\"\n  want \"%s...\"", text, err.msg, want);
    assert_null(e.rhs);
    expr_free(&e);
}

static void make_tensor(tensor *t, int order, const int64_t *dims, size_t n, const int64_t *coords,
                        const double *vals)
{
    sam_error err;
    assert_int_equal(tensor_init(t, order, dims, &err), 0);
    for (size_t e = 0; e < n; e++)
        assert_int_equal(tensor_append(t, coords + e * (size_t)order, vals[e], &err), 0);
}

static void make_scalar(tensor *t, double v)
{
    make_tensor(t, 0, NULL, 1, NULL, &v);
}

/* Parses text and evaluates it on the operands; returns the status. */
static int evaluate(const char *text, int n, const char *const *names,
                    const tensor *const *ops, tensor *out, sam_error *err)
{
    expr e;
    if (expr_parse(text, &e, err))
        fail_msg("%s: %s", text, err->msg);
    int rc = expr_evaluate(&e, names, ops, n, out, err);
    expr_free(&e);
    return rc;
}

/* The result must be exactly these entries in this order. */
static void assert_entries(const tensor *t, size_t n, const int64_t *coords, const double *vals)
{
    assert_int_equal(t->nnz, n);
    for (size_t e = 0; e < n; e++) {
        for (int m = 0; m < t->order; m++)
            assert_int_equal(t->crd[m][e], coords[e * (size_t)t->order + (size_t)m]);
        if (t->vals[e] != vals[e])
            fail_msg("entry %zu: %g, expected %g", e, t->vals[e], vals[e]);
    }
}

/* ---- the parser ---- */

/* Every distinct expression of the SAM suite (kernels.tsv), with its
 * tensors (name and order, the result first) and index variables. */
static const struct {
    const char *text, *tensors, *indices;
} kernels[] = {
    {"X(i,j)=B(i,k)*C(k,j)", "X2 B2 C2", "i j k"},
    {"X(i,j)=B(i,j)*C(i,j)", "X2 B2 C2", "i j"},
    {"X(i,j)=B(i,j)+C(i,j)", "X2 B2 C2", "i j"},
    {"X(i,j)=B(i,j)", "X2 B2", "i j"},
    {"x(i)=B(i,j)*c(j)", "x1 B2 c1", "i j"},
    {"x(i)=b(i)*c(i)", "x1 b1 c1", "i"},
    {"x(i)=b(i)", "x1 b1", "i"},
    {"x(i)=b(i)+c(i)", "x1 b1 c1", "i"},
    {"x(i)=b*c(i)", "x1 b0 c1", "i"},
    {"X(i,j,k)=B(i,j,k)*C(i,j,k)", "X3 B3 C3", "i j k"},
    {"X(i,j,k)=B(i,j,k)", "X3 B3", "i j k"},
    {"X(i,j,k)=B(i,j,k)+C(i,j,k)", "X3 B3 C3", "i j k"},
    {"x=B(i,j,k)*C(i,j,k)", "x0 B3 C3", "i j k"},
    {"X(i,j)=B(i,j,k)*c(k)", "X2 B3 c1", "i j k"},
    {"X(i,j,k)=B(i,j,l)*C(k,l)", "X3 B3 C2", "i j k l"},
    {"X(i,j)=B(i,j)*C(i,k)*D(k,j)", "X2 B2 C2 D2", "i j k"},
    {"x(i)=b*C(j,i)*d(j)+e*f(i)", "x1 b0 C2 d1 e0 f1", "i j"},
    {"x(i)=b(i)-C(i,j)*d(j)", "x1 b1 C2 d1", "i j"},
    {"X(i,j)=B(i,j)+C(i,j)+D(i,j)", "X2 B2 C2 D2", "i j"},
    {"X(i,j)=B(i,k,l)*C(j,k)*D(j,l)", "X2 B3 C2 D2", "i j k l"},
    {"x(j)=B(i,j)", "x1 B2", "j i"},
    {"X(j,k)=B(i,j,k)", "X2 B3", "j k i"},
    {"x(i)=b(i)-c(i)", "x1 b1 c1", "i"},
    {"x=B(i,j)*C(i,k)*D(k,j)", "x0 B2 C2 D2", "i j k"},
    {"x(i)=B(i,j)*C(j,k)*D(k,l)*E(l,m)*f(m)", "x1 B2 C2 D2 E2 f1", "i j k l m"},
    {"x(i)=B(i,j)*C(j,k)*d(k)", "x1 B2 C2 d1", "i j k"},
    {"x=B(i)*C(j)*D(i,j,k)*E(j,l)*F(l,m,n)", "x0 B1 C1 D3 E2 F3", "i j k l m n"},
};
#define NKERNELS (sizeof kernels / sizeof kernels[0])

static void test_parse_kernels(void **state)
{
    (void)state;
    for (size_t k = 0; k < NKERNELS; k++) {
        expr e;
        sam_error err;
        if (expr_parse(kernels[k].text, &e, &err))
            fail_msg("%s: %s", kernels[k].text, err.msg);
        char tensors[200], indices[200];
        summarize(&e, tensors, indices, sizeof tensors);
        assert_string_equal(tensors, kernels[k].tensors);
        assert_string_equal(indices, kernels[k].indices);
        assert_int_equal(e.lhs->kind, EXPR_ACCESS);
        assert_int_equal(e.lhs->tensor, 0);
        expr_free(&e);
    }
}

/* Every expression of the suite's own list is in the table above. */
static void test_kernels_tsv_covered(void **state)
{
    (void)state;
    char *path = test_require_shared("sam-graphs/kernels.tsv");
    char *text = test_read_file(path);
    assert_non_null(text);
    int seen = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        if (!tab || strncmp(line, "kernel\t", 7) == 0)
            continue;
        char *expression = tab + 1;
        expression[strcspn(expression, " ")] = '\0';
        size_t k = 0;
        while (k < NKERNELS && strcmp(kernels[k].text, expression) != 0)
            k++;
        if (k == NKERNELS)
            fail_msg("%s (kernels.tsv) is not in the test's table", expression);
        seen++;
    }
    assert_true(seen >= 30);
    free(text);
    free(path);
}

static void test_parse_tree_shape(void **state)
{
    (void)state;
    assert_tree("x(i)=b*C(j,i)*d(j)+e*f(i)", "(+ (* (* b C(j,i)) d(j)) (* e f(i)))");
    assert_tree("x(i)=b(i)-C(i,j)*d(j)", "(- b(i) (* C(i,j) d(j)))");
    assert_tree("x(i)=a(i)-b(i)-c(i)", "(- (- a(i) b(i)) c(i))");
    assert_tree("X(i,j)=2*B(i,j)", "(* 2 B(i,j))");
    assert_tree("X(i,j)=-B(i,j)*-2.5e1", "(* (- B(i,j)) (- 25))");
    assert_tree("x(i)=(a(i)+b(i))*c(i)", "(* (+ a(i) b(i)) c(i))");
    assert_tree("x=b()*.5", "(* b 0.5)");
    assert_tree(" \tX ( i , j )=\nB ( i , k ) * C ( k , j ) ", "(* B(i,k) C(k,j))");
    assert_tree("x=_t0*T_1(a_b,c9)", "(* _t0 T_1(a_b,c9))");
    assert_tree("x=B(i,j,k,l,m,n,o,p)", "B(i,j,k,l,m,n,o,p)");
}

static void test_parse_columns(void **state)
{
    (void)state;
    expr e;
    sam_error err;
    assert_int_equal(expr_parse("x(i) = b*C(j,i)*d(j) + e*f(i)", &e, &err), 0);
    const expr_node *sum = e.rhs, *ef = sum->right;
    assert_int_equal(sum->kind, EXPR_ADD);
    assert_int_equal(sum->column, 22);
    assert_int_equal(ef->left->column, 24);
    assert_int_equal(ef->right->column, 26);
    assert_int_equal(e.tensors[2].column, 10);
    assert_int_equal(expr_find_tensor(&e, "f"), 5);
    assert_int_equal(expr_find_tensor(&e, "g"), -1);
    assert_int_equal(expr_find_index(&e, "j"), 1);
    expr_free(&e);
}

static void test_parse_errors(void **state)
{
    (void)state;
    assert_parse_error("X(i,j)=B(i,k*C(k,j)",
                       "expression: column 13: expected ')' or ',' after index k of B, found '*'");
    assert_parse_error("X(i,j)=B(i,k)*C(k,j",
                       "expression: column 20: expected ')' or ',' after index j of C, found the end");
    assert_parse_error("X(i,j)=(B(i,j)",
                       "expression: column 15: expected ')' to close the '(' at column 8, found the end");
    assert_parse_error("X(i,j)=B(i,j)+",
                       "expression: column 15: expected a tensor, a number, '-' or '(', found the end");
    assert_parse_error("X(i,j)=B(i,j)+*C(i,j)",
                       "expression: column 15: expected a tensor, a number, '-' or '(', found '*'");
    assert_parse_error("X(i,j) B(i,j)", "expression: column 8: expected '=' after the result, found 'B'");
    assert_parse_error("=B(i)", "expression: column 1: expected the name of the result, found '='");
    assert_parse_error("", "expression: column 1: expected the name of the result, found the end");
    assert_parse_error("  2=B", "expression: column 3: expected the name of the result, found '2'");
    assert_parse_error("x(i)=b(i) c(i)",
                       "expression: column 11: expected an operator or the end, found 'c'");
    assert_parse_error("x(i)=b(i,)", "expression: column 10: expected an index variable, found ')'");
    assert_parse_error("x(i)=b(1)", "expression: column 8: expected an index variable, found '1'");
    assert_parse_error("x(i)=b(i)+3$", "expression: column 12: expected an operator or the end, found '$'");
    assert_parse_error("x=B(i,j,k,l,m,n,o,p,q)",
                       "expression: column 21: B has more than 8 index variables");
    assert_parse_error("x=1e999", "expression: column 3: number 1e999 is out of range");
}

static void test_parse_semantic_errors(void **state)
{
    (void)state;
    assert_parse_error("X(i,j)=B(i,k)",
                       "expression: column 5: index j of the result does not appear on the right");
    assert_parse_error("x(i)=B(i,j)*B(j)",
                       "expression: column 13: B is used with 1 indices here but with 2 at column 6");
    assert_parse_error("x=b*b(i)", "expression: column 5: b is used with 1 indices here but with 0");
    assert_parse_error("x(i)=B(i,i)",
                       "expression: column 10: index i appears twice in B; repeated indices "
                       "(such as diagonals) are not supported");
    assert_parse_error("X(i,i)=B(i,j)", "expression: column 5: index i appears twice in X");
    assert_parse_error("X(i,j)=X(i,j)+B(i,j)",
                       "expression: column 8: the result X also appears on the right; not supported");
    assert_parse_error("x=2*(x)", "expression: column 6: the result x also appears on the right");
}

static void test_parse_limits(void **state)
{
    (void)state;
    /* Nesting and length are bounded, so that recursion stays shallow. */
    char *deep = malloc(1000);
    strcpy(deep, "x=");
    for (int k = 0; k < 300; k++)
        strcat(deep, "(");
    strcat(deep, "b");
    assert_parse_error(deep, "expression: column 259: expression nested more than 256 deep");
    char *longer = malloc(60000);
    strcpy(longer, "x=b");
    for (int k = 0; k < 5000; k++)
        strcat(longer, "+b");
    assert_parse_error(longer, "expression: column ");
    free(deep);
    free(longer);
}

/* ---- the evaluator, by hand ---- */

static void test_eval_spmspm(void **state)
{
    (void)state;
    /* B = [1 . 2; . 3 .; 4 . .], C = [. 5 .; 6 . 7; . . 8] */
    tensor b, c, x;
    sam_error err;
    make_tensor(&b, 2, (const int64_t[]){3, 3}, 4, (const int64_t[]){0, 0, 0, 2, 1, 1, 2, 0},
                (const double[]){1, 2, 3, 4});
    make_tensor(&c, 2, (const int64_t[]){3, 3}, 4, (const int64_t[]){2, 2, 0, 1, 1, 0, 1, 2},
                (const double[]){8, 5, 6, 7});
    const char *names[] = {"B", "C"};
    const tensor *ops[] = {&b, &c};
    assert_int_equal(evaluate("X(i,j)=B(i,k)*C(k,j)", 2, names, ops, &x, &err), 0);
    /* Row 0 = 1*[. 5 .] + 2*[. . 8]; row 1 = 3*[6 . 7]; row 2 = 4*[. 5 .]. */
    assert_int_equal(x.order, 2);
    assert_int_equal(x.dims[0], 3);
    assert_int_equal(x.dims[1], 3);
    assert_entries(&x, 5, (const int64_t[]){0, 1, 0, 2, 1, 0, 1, 2, 2, 1},
                   (const double[]){5, 16, 18, 21, 20});
    tensor_free(&x);
    /* The same product transposed on the left: X(j,i). */
    assert_int_equal(evaluate("X(j,i)=B(i,k)*C(k,j)", 2, names, ops, &x, &err), 0);
    assert_entries(&x, 5, (const int64_t[]){0, 1, 1, 0, 1, 2, 2, 0, 2, 1},
                   (const double[]){18, 5, 20, 16, 21});
    tensor_free(&x);
    tensor_free(&b);
    tensor_free(&c);
}

static void test_eval_spmv(void **state)
{
    (void)state;
    tensor b, c, x;
    sam_error err;
    make_tensor(&b, 2, (const int64_t[]){3, 3}, 4, (const int64_t[]){0, 0, 0, 2, 1, 1, 2, 0},
                (const double[]){1, 2, 3, 4});
    make_tensor(&c, 1, (const int64_t[]){3}, 2, (const int64_t[]){0, 2}, (const double[]){1, 2});
    const char *names[] = {"c", "B"};
    const tensor *ops[] = {&c, &b};
    assert_int_equal(evaluate("x(i)=B(i,j)*c(j)", 2, names, ops, &x, &err), 0);
    /* x0 = 1*1 + 2*2; row 1 meets no entry of c; x2 = 4*1. */
    assert_entries(&x, 2, (const int64_t[]){0, 2}, (const double[]){5, 4});
    tensor_free(&x);
    tensor_free(&b);
    tensor_free(&c);
}

static void test_eval_add_sub(void **state)
{
    (void)state;
    tensor b, c, x;
    sam_error err;
    make_tensor(&b, 1, (const int64_t[]){4}, 2, (const int64_t[]){0, 2}, (const double[]){1, 2});
    make_tensor(&c, 1, (const int64_t[]){4}, 2, (const int64_t[]){3, 1}, (const double[]){4, 3});
    const char *names[] = {"b", "c"};
    const tensor *ops[] = {&b, &c};
    assert_int_equal(evaluate("x(i)=b(i)+c(i)", 2, names, ops, &x, &err), 0);
    assert_entries(&x, 4, (const int64_t[]){0, 1, 2, 3}, (const double[]){1, 3, 2, 4});
    tensor_free(&x);
    tensor_free(&c);
    /* b - c with an overlap that cancels: the explicit zero stays. */
    make_tensor(&c, 1, (const int64_t[]){4}, 2, (const int64_t[]){2, 3}, (const double[]){2, 1});
    assert_int_equal(evaluate("x(i)=b(i)-c(i)", 2, names, ops, &x, &err), 0);
    assert_entries(&x, 3, (const int64_t[]){0, 2, 3}, (const double[]){1, 0, -1});
    tensor_free(&x);
    tensor_free(&b);
    tensor_free(&c);
}

static void test_eval_scalar_times_vector(void **state)
{
    (void)state;
    tensor b, c, x;
    sam_error err;
    make_scalar(&b, 3);
    make_tensor(&c, 1, (const int64_t[]){5}, 2, (const int64_t[]){4, 1}, (const double[]){-1, 2});
    const char *names[] = {"b", "c"};
    const tensor *ops[] = {&b, &c};
    assert_int_equal(evaluate("x(i)=b*c(i)", 2, names, ops, &x, &err), 0);
    assert_int_equal(x.dims[0], 5);
    assert_entries(&x, 2, (const int64_t[]){1, 4}, (const double[]){6, -3});
    tensor_free(&x);
    /* A scalar added to a vector is broadcast over the whole vector. */
    assert_int_equal(evaluate("x(i)=c(i)+b", 2, names, ops, &x, &err), 0);
    assert_entries(&x, 5, (const int64_t[]){0, 1, 2, 3, 4}, (const double[]){3, 5, 3, 3, 2});
    tensor_free(&x);
    tensor_free(&b);
    tensor_free(&c);
}

static void test_eval_inner_product(void **state)
{
    (void)state;
    tensor b, c, x;
    sam_error err;
    const int64_t dims[] = {2, 2, 2};
    make_tensor(&b, 3, dims, 3, (const int64_t[]){0, 0, 0, 0, 1, 1, 1, 0, 1},
                (const double[]){1, 2, 3});
    make_tensor(&c, 3, dims, 3, (const int64_t[]){1, 1, 1, 1, 0, 1, 0, 0, 0},
                (const double[]){6, 5, 4});
    const char *names[] = {"B", "C"};
    const tensor *ops[] = {&b, &c};
    assert_int_equal(evaluate("x=B(i,j,k)*C(i,j,k)", 2, names, ops, &x, &err), 0);
    /* 1*4 at (0,0,0) + 3*5 at (1,0,1). */
    assert_int_equal(x.order, 0);
    assert_entries(&x, 1, NULL, (const double[]){19});
    tensor_free(&x);
    tensor_free(&c);
    /* Nothing in common: a scalar is still one entry, 0. */
    make_tensor(&c, 3, dims, 1, (const int64_t[]){1, 1, 1}, (const double[]){6});
    assert_int_equal(evaluate("x=B(i,j,k)*C(i,j,k)", 2, names, ops, &x, &err), 0);
    assert_entries(&x, 1, NULL, (const double[]){0});
    tensor_free(&x);
    tensor_free(&b);
    tensor_free(&c);
}

static void test_eval_sum_inside_product(void **state)
{
    (void)state;
    tensor b, c, d, x;
    sam_error err;
    make_tensor(&b, 2, (const int64_t[]){2, 2}, 2, (const int64_t[]){0, 0, 1, 1},
                (const double[]){1, 2});
    make_tensor(&c, 2, (const int64_t[]){2, 3}, 3, (const int64_t[]){0, 0, 0, 2, 1, 1},
                (const double[]){1, 2, 3});
    make_tensor(&d, 2, (const int64_t[]){3, 2}, 3, (const int64_t[]){0, 1, 2, 1, 1, 0},
                (const double[]){4, 5, 6});
    const char *names[] = {"B", "C", "D"};
    const tensor *ops[] = {&b, &c, &d};
    assert_int_equal(evaluate("X(i,j)=B(i,j)+C(i,k)*D(k,j)", 3, names, ops, &x, &err), 0);
    /* C*D = [. 1*4+2*5; 3*6 .]; k is summed within the product, so B is
     * added once (not once per k). */
    assert_entries(&x, 4, (const int64_t[]){0, 0, 0, 1, 1, 0, 1, 1},
                   (const double[]){1, 14, 18, 2});
    tensor_free(&x);
    tensor_free(&b);
    tensor_free(&c);
    tensor_free(&d);
}

static void test_eval_4tensor_contraction(void **state)
{
    (void)state;
    tensor b, c, x;
    sam_error err;
    const int64_t dims[] = {2, 2, 2, 2};
    make_tensor(&b, 4, dims, 3, (const int64_t[]){0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 1},
                (const double[]){1, 2, 3});
    make_tensor(&c, 4, dims, 4,
                (const int64_t[]){0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0},
                (const double[]){4, 5, 6, 7});
    const char *names[] = {"B", "C"};
    const tensor *ops[] = {&b, &c};
    assert_int_equal(evaluate("X(i,j)=B(i,k,l,m)*C(k,l,m,j)", 2, names, ops, &x, &err), 0);
    /* B(0,0,0,0)=1 meets C(0,0,0,j): 4 at j=0, 5 at j=1; B(0,1,1,0)=2 meets
     * C(1,1,0,1)=6; B(1,1,0,1)=3 meets C(1,0,1,0)=7. */
    assert_entries(&x, 3, (const int64_t[]){0, 0, 0, 1, 1, 0}, (const double[]){4, 17, 21});
    tensor_free(&x);
    tensor_free(&b);
    tensor_free(&c);
}

static void test_eval_literals_and_negation(void **state)
{
    (void)state;
    tensor b, x;
    sam_error err;
    make_tensor(&b, 2, (const int64_t[]){2, 3}, 2, (const int64_t[]){1, 2, 0, 1},
                (const double[]){1.5, -4});
    const char *names[] = {"B"};
    const tensor *ops[] = {&b};
    assert_int_equal(evaluate("X(i,j)=2*B(i,j)", 1, names, ops, &x, &err), 0);
    assert_int_equal(x.dims[1], 3);
    assert_entries(&x, 2, (const int64_t[]){0, 1, 1, 2}, (const double[]){-8, 3});
    tensor_free(&x);
    assert_int_equal(evaluate("X(i,j)=-B(i,j)*(0.5+0.5)", 1, names, ops, &x, &err), 0);
    assert_entries(&x, 2, (const int64_t[]){0, 1, 1, 2}, (const double[]){4, -1.5});
    tensor_free(&x);
    /* Summing a matrix down to its column sums. */
    assert_int_equal(evaluate("x(j)=B(i,j)", 1, names, ops, &x, &err), 0);
    assert_entries(&x, 2, (const int64_t[]){1, 2}, (const double[]){-4, 1.5});
    tensor_free(&x);
    tensor_free(&b);
}

/* Parses text and evaluates mode's quantity on the operands. */
static void evaluate_as(const char *text, expr_eval_mode mode, int n, const char *const *names,
                        const tensor *const *ops, tensor *out)
{
    expr e;
    sam_error err;
    if (expr_parse(text, &e, &err))
        fail_msg("%s: %s", text, err.msg);
    if (expr_evaluate_as(&e, mode, names, ops, n, out, &err))
        fail_msg("%s: %s", text, err.msg);
    expr_free(&e);
}

/* Magnitudes: every term taken as its absolute value, minus and negation
 * as plus; terms: how many products make each entry. Both keep the value's
 * coordinates, explicit zeros included. */
static void test_eval_error_bound_modes(void **state)
{
    (void)state;
    tensor b, c, d, x;
    make_tensor(&b, 2, (const int64_t[]){2, 3}, 4, (const int64_t[]){0, 0, 0, 2, 1, 1, 1, 2},
                (const double[]){2, -3, 0, 5});
    make_tensor(&c, 1, (const int64_t[]){3}, 2, (const int64_t[]){0, 2}, (const double[]){-1, 4});
    make_tensor(&d, 1, (const int64_t[]){2}, 1, (const int64_t[]){1}, (const double[]){-7});
    const char *names[] = {"B", "c", "d"};
    const tensor *ops[] = {&b, &c, &d};
    const char *text = "x(i)=B(i,j)*c(j)-2*d(i)";
    evaluate_as(text, EXPR_VALUES, 3, names, ops, &x);
    assert_entries(&x, 2, (const int64_t[]){0, 1}, (const double[]){-14, 34});
    tensor_free(&x);
    evaluate_as(text, EXPR_MAGNITUDES, 3, names, ops, &x);
    assert_entries(&x, 2, (const int64_t[]){0, 1}, (const double[]){14, 34});
    tensor_free(&x);
    evaluate_as(text, EXPR_TERMS, 3, names, ops, &x);
    assert_entries(&x, 2, (const int64_t[]){0, 1}, (const double[]){2, 2});
    tensor_free(&x);
    evaluate_as("x(i)=-(B(i,j)*c(j))", EXPR_MAGNITUDES, 3, names, ops, &x);
    assert_entries(&x, 2, (const int64_t[]){0, 1}, (const double[]){14, 20});
    tensor_free(&x);
    tensor_free(&b), tensor_free(&c), tensor_free(&d);
}

/* The most factors in one term once products are distributed over sums. */
static void test_expr_factors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int factors;
    } cases[] = {
        {"X(i,j)=B(i,j)", 1},
        {"X(i,j)=B(i,k)*C(k,j)", 2},
        {"x(i)=b*C(j,i)*d(j)+e*f(i)", 3},
        {"x(i)=B(i,j)*C(j,k)*D(k,l)*E(l,m)*f(m)", 5},
        {"X(i,j)=2*(B(i,j)+C(i,k)*D(k,j))", 3},
        {"x(i)=-(b(i)-c(i))", 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        expr e;
        sam_error err;
        assert_int_equal(expr_parse(cases[k].text, &e, &err), 0);
        if (expr_factors(&e) != cases[k].factors)
            fail_msg("%s: %d factors, expected %d", cases[k].text, expr_factors(&e),
                     cases[k].factors);
        expr_free(&e);
    }
}

static void test_eval_mattransmul(void **state)
{
    (void)state;
    tensor b, c, d, e, f, x;
    sam_error err;
    make_scalar(&b, 2);
    make_scalar(&e, 10);
    make_tensor(&c, 2, (const int64_t[]){2, 3}, 3, (const int64_t[]){0, 0, 1, 0, 1, 2},
                (const double[]){1, 2, 3});
    make_tensor(&d, 1, (const int64_t[]){2}, 2, (const int64_t[]){0, 1}, (const double[]){1, 4});
    make_tensor(&f, 1, (const int64_t[]){3}, 1, (const int64_t[]){1}, (const double[]){1});
    const char *names[] = {"b", "C", "d", "e", "f"};
    const tensor *ops[] = {&b, &c, &d, &e, &f};
    assert_int_equal(evaluate("x(i)=b*C(j,i)*d(j)+e*f(i)", 5, names, ops, &x, &err), 0);
    /* C^T d = [1*1 + 2*4, ., 3*4] = [9, ., 12]; times 2 plus 10*[., 1, .].
     * j is summed within the first product only. */
    assert_entries(&x, 3, (const int64_t[]){0, 1, 2}, (const double[]){18, 10, 24});
    tensor_free(&x);
    tensor_free(&b);
    tensor_free(&c);
    tensor_free(&d);
    tensor_free(&e);
    tensor_free(&f);
}

static void test_eval_errors(void **state)
{
    (void)state;
    tensor b, c, x;
    sam_error err;
    make_tensor(&b, 2, (const int64_t[]){5000, 5000}, 1, (const int64_t[]){1, 1},
                (const double[]){1});
    make_tensor(&c, 1, (const int64_t[]){4000}, 4000, (const int64_t[4000]){0}, (double[4000]){0});
    const char *names[] = {"B", "c"};
    const tensor *ops[] = {&b, &c};
    assert_int_equal(evaluate("x(i)=B(i,j)*c(j)", 2, names, ops, &x, &err), -1);
    assert_string_equal(err.msg, "evaluate: index j has dimension 5000 in B (mode 1) but 4000 "
                                 "in c (mode 0)");
    assert_int_equal(evaluate("x(i)=B(i,j)*d(j)", 2, names, ops, &x, &err), -1);
    assert_string_equal(err.msg, "evaluate: no operand named d");
    tensor_free(&c);
    /* Broadcasting 5000 entries over 5000 columns is refused. */
    make_tensor(&c, 1, (const int64_t[]){5000}, 5000, (const int64_t[5000]){0}, (double[5000]){0});
    for (int k = 0; k < 5000; k++)
        c.crd[0][k] = k;
    assert_int_equal(evaluate("X(i,j)=B(i,j)+c(i)", 2, names, ops, &x, &err), -1);
    assert_non_null(strstr(err.msg, "the sum at column 14 broadcasts an operand to 2.5e+07"));
    tensor_free(&c);
    make_tensor(&c, 3, (const int64_t[]){2, 2, 2}, 0, NULL, NULL);
    assert_int_equal(evaluate("x(i)=B(i,j)*c(j)", 2, names, ops, &x, &err), -1);
    assert_string_equal(err.msg, "evaluate: operand c has order 3 but the expression gives it 1 "
                                 "indices");
    tensor_free(&c);
    make_tensor(&c, 1, (const int64_t[]){5000}, 2, (const int64_t[]){3, 5000}, (double[]){1, 2});
    assert_int_equal(evaluate("x(i)=B(i,j)*c(j)", 2, names, ops, &x, &err), -1);
    assert_string_equal(err.msg, "evaluate: operand c: entry 1 has coordinate 5000 in mode 0, "
                                 "outside its dimension 5000");
    tensor_free(&c);
    tensor_free(&b);
}

/* ---- every kernel against a dense brute force ---- */

/* The dense reference: every index variable gets a small dimension, every
 * operand a dense array, and a subexpression's value at an assignment of
 * its free variables sums the variables whose occurrences it holds all
 * of, at the lowest node that does (TACO's placement), by enumeration. */
typedef struct dense {
    const expr *e;
    int64_t dims[EXPR_MAX_INDICES];
    int64_t at[EXPR_MAX_INDICES]; /* the current assignment */
    double *vals[16];             /* per tensor of e */
} dense;

static uint64_t node_vars(const expr_node *n)
{
    uint64_t v = 0;
    for (int k = 0; n->kind == EXPR_ACCESS && k < n->order; k++)
        v |= (uint64_t)1 << n->index[k];
    if (n->left)
        v |= node_vars(n->left);
    if (n->right)
        v |= node_vars(n->right);
    return v;
}

static double dense_node(dense *d, const expr_node *n, uint64_t outside);

/* The node's value with the variables of `sum` (all 0 in d->at on entry)
 * summed over their ranges. */
static double dense_sum(dense *d, const expr_node *n, uint64_t outside, uint64_t sum)
{
    if (!sum) {
        if (n->kind == EXPR_LITERAL)
            return n->value;
        if (n->kind == EXPR_ACCESS) {
            size_t pos = 0;
            for (int k = 0; k < n->order; k++)
                pos = pos * (size_t)d->dims[n->index[k]] + (size_t)d->at[n->index[k]];
            return d->vals[n->tensor][pos];
        }
        if (n->kind == EXPR_NEG)
            return -dense_node(d, n->left, outside);
        uint64_t lv = node_vars(n->left), rv = node_vars(n->right);
        double l = dense_node(d, n->left, outside | rv), r = dense_node(d, n->right, outside | lv);
        return n->kind == EXPR_MUL ? l * r : n->kind == EXPR_ADD ? l + r : l - r;
    }
    int v = __builtin_ctzll(sum);
    double total = 0;
    for (d->at[v] = 0; d->at[v] < d->dims[v]; d->at[v]++)
        total += dense_sum(d, n, outside, sum & (sum - 1));
    d->at[v] = 0;
    return total;
}

static double dense_node(dense *d, const expr_node *n, uint64_t outside)
{
    uint64_t here = node_vars(n) & ~outside;
    if (n->kind != EXPR_ACCESS && n->left && n->right)
        here &= node_vars(n->left) & node_vars(n->right);
    else if (n->kind == EXPR_NEG)
        here = 0;
    return dense_sum(d, n, outside, here);
}

/* Random operands for kernel k (about half the positions, small integer
 * values so that every order of summation gives the same bits). */
static void random_operands(const expr *e, const int64_t *dims, tensor *ops, double **vals,
                            uint64_t *seed)
{
    sam_error err;
    for (int t = 1; t < e->ntensors; t++) {
        int64_t tdims[TENSOR_MAX_ORDER];
        const expr_node *use = NULL;
        /* The first access of t gives its modes' variables. */
        const expr_node *stack[64];
        int top = 0;
        stack[top++] = e->rhs;
        while (top) {
            const expr_node *n = stack[--top];
            if (n->kind == EXPR_ACCESS && n->tensor == t && !use)
                use = n;
            if (n->right)
                stack[top++] = n->right;
            if (n->left)
                stack[top++] = n->left;
        }
        size_t volume = 1;
        for (int m = 0; m < use->order; m++) {
            tdims[m] = dims[use->index[m]];
            volume *= (size_t)tdims[m];
        }
        assert_int_equal(tensor_init(&ops[t], use->order, tdims, &err), 0);
        vals[t] = calloc(volume, sizeof(double));
        for (size_t pos = 0; pos < volume; pos++) {
            if (use->order > 0 && lcg(seed) % 2)
                continue;
            int64_t c[TENSOR_MAX_ORDER];
            size_t rest = pos;
            for (int m = use->order - 1; m >= 0; m--) {
                c[m] = (int64_t)(rest % (size_t)tdims[m]);
                rest /= (size_t)tdims[m];
            }
            vals[t][pos] = (double)(lcg(seed) % 7) - 3;
            assert_int_equal(tensor_append(&ops[t], c, vals[t][pos], &err), 0);
        }
    }
}

/* The evaluator's result must equal the brute force at every position. */
static void compare_dense(dense *d, const tensor *x, const char *text)
{
    const expr_node *lhs = d->e->lhs;
    size_t volume = 1;
    for (int m = 0; m < lhs->order; m++)
        volume *= (size_t)d->dims[lhs->index[m]];
    double *got = calloc(volume, sizeof *got);
    for (size_t e = 0; e < x->nnz; e++) {
        size_t pos = 0;
        for (int m = 0; m < x->order; m++)
            pos = pos * (size_t)x->dims[m] + (size_t)x->crd[m][e];
        got[pos] = x->vals[e];
    }
    for (size_t pos = 0; pos < volume; pos++) {
        size_t rest = pos;
        for (int m = lhs->order - 1; m >= 0; m--) {
            int64_t dim = d->dims[lhs->index[m]];
            d->at[lhs->index[m]] = (int64_t)(rest % (size_t)dim);
            rest /= (size_t)dim;
        }
        double want = dense_node(d, d->e->rhs, node_vars(lhs));
        if (got[pos] != want)
            fail_msg("%s: position %zu is %g, expected %g", text, pos, got[pos], want);
    }
    free(got);
}

/* Evaluates text on random operands and compares with the brute force. */
static void check_against_dense(const char *text, uint64_t *seed)
{
    expr e;
    sam_error err;
    if (expr_parse(text, &e, &err))
        fail_msg("%s: %s", text, err.msg);
    dense d = {.e = &e};
    for (int v = 0; v < e.nindices; v++)
        d.dims[v] = 2 + (v % 3); /* unequal, so that transposition shows */
    tensor ops[16];
    const tensor *ptrs[16];
    const char *names[16];
    random_operands(&e, d.dims, ops, d.vals, seed);
    for (int t = 1; t < e.ntensors; t++) {
        ptrs[t - 1] = &ops[t];
        names[t - 1] = e.tensors[t].name;
    }
    tensor x;
    if (expr_evaluate(&e, names, ptrs, e.ntensors - 1, &x, &err))
        fail_msg("%s: %s", text, err.msg);
    compare_dense(&d, &x, text);
    for (size_t i = 1; i < x.nnz; i++) /* canonical order */
        for (int m = 0; m < x.order; m++) {
            if (x.crd[m][i - 1] != x.crd[m][i]) {
                assert_true(x.crd[m][i - 1] < x.crd[m][i]);
                break;
            }
            assert_true(m < x.order - 1);
        }
    tensor_free(&x);
    for (int t = 1; t < e.ntensors; t++) {
        tensor_free(&ops[t]);
        free(d.vals[t]);
    }
    expr_free(&e);
}

static void test_eval_kernels_against_dense(void **state)
{
    (void)state;
    uint64_t seed = 42;
    for (int round = 0; round < 3; round++)
        for (size_t k = 0; k < NKERNELS; k++)
            check_against_dense(kernels[k].text, &seed);
}

/* Shapes beyond the suite: sums placed at a sum, transposed and
 * broadcast operands, nested sums and products, literals. */
static void test_eval_more_against_dense(void **state)
{
    (void)state;
    static const char *more[] = {
        "x(i)=B(i,k)+C(i,k)",
        "X(i,j)=B(i,j)+C(j,i)",
        "X(i,j)=B(i,j)-C(j,i)+D(i,j)",
        "X(i,j)=B(i,j)+C(i,k)*D(k,j)",
        "x(i)=b(i)+c",
        "x(i)=c-b(i)",
        "X(i,j)=B(i,j)+c(j)",
        "X(i,j)=-(B(i,j)-2*C(i,j))*d(j)",
        "x=b*c+2",
        "x=b(i)*3-c(i)",
        "X(i,j)=B(i,k)*C(k,j)+D(i,l)*E(l,j)",
        "x(i)=B(i,j,k)*c(k)+D(i,j)",
        "X(i,j,k)=b(i)*c(j)*d(k)",
        "X(i,j)=B(i,j)*(C(i,j)+D(i,j))",
        "X(k,i)=B(i,j,k)*c(j)",
        "x(j)=B(i,j)*c(i)-d(j)",
        "X(i,j)=B(i,j)+B(i,j)*2",
        "x=B(i,j)",
    };
    uint64_t seed = 7;
    for (int round = 0; round < 3; round++)
        for (size_t k = 0; k < sizeof more / sizeof more[0]; k++)
            check_against_dense(more[k], &seed);
}

/* ---- SpMSpM against GraphBLAS ---- */

static void random_matrix(tensor *t, int64_t rows, int64_t cols, size_t n, uint64_t *seed,
                          GrB_Matrix *g)
{
    sam_error err;
    assert_int_equal(tensor_init(t, 2, (const int64_t[]){rows, cols}, &err), 0);
    for (size_t e = 0; e < n; e++) {
        int64_t c[2] = {(int64_t)(lcg(seed) % (uint64_t)rows), (int64_t)(lcg(seed) % (uint64_t)cols)};
        assert_int_equal(tensor_append(t, c, (double)(lcg(seed) % 9) - 4, &err), 0);
    }
    assert_int_equal(tensor_canonicalize(t, NULL, &err), 0);
    GrB_Index *r = malloc(t->nnz * sizeof *r), *c = malloc(t->nnz * sizeof *c);
    for (size_t e = 0; e < t->nnz; e++) {
        r[e] = (GrB_Index)t->crd[0][e];
        c[e] = (GrB_Index)t->crd[1][e];
    }
    assert_int_equal(GrB_Matrix_new(g, GrB_FP64, (GrB_Index)rows, (GrB_Index)cols), GrB_SUCCESS);
    assert_int_equal(GrB_Matrix_build_FP64(*g, r, c, t->vals, t->nnz, GrB_PLUS_FP64), GrB_SUCCESS);
    free(r);
    free(c);
}

static void test_eval_spmspm_like_graphblas(void **state)
{
    (void)state;
    uint64_t seed = 2024;
    tensor b, c, x;
    GrB_Matrix gb, gc, gx;
    random_matrix(&b, 200, 150, 3000, &seed, &gb);
    random_matrix(&c, 150, 100, 1500, &seed, &gc);
    assert_int_equal(GrB_Matrix_new(&gx, GrB_FP64, 200, 100), GrB_SUCCESS);
    assert_int_equal(GrB_mxm(gx, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, gb, gc, NULL),
                     GrB_SUCCESS);
    const char *names[] = {"B", "C"};
    const tensor *ops[] = {&b, &c};
    sam_error err;
    assert_int_equal(evaluate("X(i,j)=B(i,k)*C(k,j)", 2, names, ops, &x, &err), 0);
    GrB_Index nvals;
    assert_int_equal(GrB_Matrix_nvals(&nvals, gx), GrB_SUCCESS);
    assert_true(nvals > 1000);
    assert_int_equal(x.nnz, nvals);
    for (size_t e = 0; e < x.nnz; e++) {
        double v;
        assert_int_equal(GrB_Matrix_extractElement_FP64(&v, gx, (GrB_Index)x.crd[0][e],
                                                        (GrB_Index)x.crd[1][e]),
                         GrB_SUCCESS);
        assert_true(v == x.vals[e]); /* small integers: exact in any order */
    }
    GrB_Matrix_free(&gb);
    GrB_Matrix_free(&gc);
    GrB_Matrix_free(&gx);
    tensor_free(&b);
    tensor_free(&c);
    tensor_free(&x);
}

/* A sum with a transposed operand goes through sorting, not a merge of
 * canonical inputs; big enough for several radix digits per mode. */
static void test_eval_transposed_add_like_graphblas(void **state)
{
    (void)state;
    uint64_t seed = 99;
    tensor b, d, x;
    GrB_Matrix gb, gd, gx;
    random_matrix(&b, 3000, 5000, 60000, &seed, &gb);
    random_matrix(&d, 5000, 3000, 60000, &seed, &gd);
    assert_int_equal(GrB_Matrix_new(&gx, GrB_FP64, 3000, 5000), GrB_SUCCESS);
    assert_int_equal(GrB_Matrix_eWiseAdd_BinaryOp(gx, NULL, NULL, GrB_PLUS_FP64, gb, gd,
                                                  GrB_DESC_T1),
                     GrB_SUCCESS);
    const char *names[] = {"B", "D"};
    const tensor *ops[] = {&b, &d};
    sam_error err;
    assert_int_equal(evaluate("X(i,j)=B(i,j)+D(j,i)", 2, names, ops, &x, &err), 0);
    GrB_Index nvals;
    assert_int_equal(GrB_Matrix_nvals(&nvals, gx), GrB_SUCCESS);
    assert_int_equal(x.nnz, nvals);
    for (size_t e = 0; e < x.nnz; e++) {
        double v;
        assert_int_equal(GrB_Matrix_extractElement_FP64(&v, gx, (GrB_Index)x.crd[0][e],
                                                        (GrB_Index)x.crd[1][e]),
                         GrB_SUCCESS);
        assert_true(v == x.vals[e]);
    }
    GrB_Matrix_free(&gb);
    GrB_Matrix_free(&gd);
    GrB_Matrix_free(&gx);
    tensor_free(&b);
    tensor_free(&d);
    tensor_free(&x);
}

static int setup_graphblas(void **state)
{
    (void)state;
    return GrB_init(GrB_NONBLOCKING) == GrB_SUCCESS ? 0 : -1;
}

static int teardown_graphblas(void **state)
{
    (void)state;
    return GrB_finalize() == GrB_SUCCESS ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_kernels),
        cmocka_unit_test(test_kernels_tsv_covered),
        cmocka_unit_test(test_parse_tree_shape),
        cmocka_unit_test(test_parse_columns),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_semantic_errors),
        cmocka_unit_test(test_parse_limits),
        cmocka_unit_test(test_eval_spmspm),
        cmocka_unit_test(test_eval_spmv),
        cmocka_unit_test(test_eval_add_sub),
        cmocka_unit_test(test_eval_scalar_times_vector),
        cmocka_unit_test(test_eval_inner_product),
        cmocka_unit_test(test_eval_sum_inside_product),
        cmocka_unit_test(test_eval_4tensor_contraction),
        cmocka_unit_test(test_eval_literals_and_negation),
        cmocka_unit_test(test_eval_mattransmul),
        cmocka_unit_test(test_eval_error_bound_modes),
        cmocka_unit_test(test_expr_factors),
        cmocka_unit_test(test_eval_errors),
        cmocka_unit_test(test_eval_kernels_against_dense),
        cmocka_unit_test(test_eval_more_against_dense),
        cmocka_unit_test(test_eval_spmspm_like_graphblas),
        cmocka_unit_test(test_eval_transposed_add_like_graphblas),
    };
    return cmocka_run_group_tests_name("expr", tests, setup_graphblas, teardown_graphblas);
}
