/* A recursive-descent parser for tensor index notation:
 *
 *     statement := access '=' sum END
 *     sum       := term (('+' | '-') term)*
 *     term      := unary ('*' unary)*
 *     unary     := '-' unary | primary
 *     primary   := NUMBER | access | '(' sum ')'
 *     access    := NAME [ '(' [ NAME (',' NAME)* ] ')' ]
 *
 * Semantic checks are made as soon as the offending token is read, so that
 * every message can name the column where the problem is. */
#include "expr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

/* Bounds that keep recursion (parsing, freeing, evaluating) shallow. */
#define MAX_NODES 4096
#define MAX_NESTING 256

typedef struct parser {
    const char *text;
    size_t pos;
    expr *e;
    sam_error *err;
    int on_right;            /* the result may no longer appear */
    int nodes, nesting;
    uint64_t right_indices;  /* index variables seen on the right */
    int lhs_columns[TENSOR_MAX_ORDER];
    size_t tensor_cap, index_cap;   /* room in e->tensors and e->indices */
} parser;

static expr_node *parse_sum(parser *p);

static int is_name_start(int c)
{
    return isalpha(c) || c == '_';
}

static int is_name_char(int c)
{
    return isalnum(c) || c == '_';
}

/* The next character after white space; pos is left on it. */
static int peek(parser *p)
{
    while (isspace((unsigned char)p->text[p->pos]))
        p->pos++;
    return (unsigned char)p->text[p->pos];
}

static int column(parser *p)
{
    peek(p);
    return (int)p->pos + 1;
}

/* What stands at pos, for "found ..." in messages. */
static void describe(const parser *p, char *buf, size_t size)
{
    const char *s = p->text + p->pos;
    unsigned char c = (unsigned char)*s;
    size_t n = 0;
    if (!c) {
        snprintf(buf, size, "the end");
    } else if (is_name_char(c) || c == '.') {
        while (n < 24 && (is_name_char((unsigned char)s[n]) || s[n] == '.'))
            n++;
        snprintf(buf, size, "'%.*s'", (int)n, s);
    } else if (isprint(c)) {
        snprintf(buf, size, "'%c'", c);
    } else {
        snprintf(buf, size, "byte 0x%02x", c);
    }
}

static int fail(parser *p, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(parser *p, int col, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return error_set(p->err, "expression: column %d: %s", col, msg);
}

/* "expected WHAT, found X" at the current position. */
static int fail_expected(parser *p, const char *what)
{
    char found[64];
    int col = column(p);
    describe(p, found, sizeof found);
    return fail(p, col, "expected %s, found %s", what, found);
}

/* Reads the name that starts at the current position (the caller has
 * seen its first character) into a malloc'd string; NULL when out of
 * memory. */
static char *scan_name(parser *p)
{
    peek(p);
    size_t start = p->pos;
    while (is_name_char((unsigned char)p->text[p->pos]))
        p->pos++;
    size_t n = p->pos - start;
    char *s = error_alloc(p->err, n + 1, 1);
    if (s)
        memcpy(s, p->text + start, n);
    return s;
}

/* Makes room in *array, of room *cap, for one more element after count
 * of them. */
static int grow(void *array, int count, size_t *cap, size_t size, sam_error *err)
{
    void *bigger = grow_array(*(void **)array, (size_t)count, cap, size, 4);
    if (!bigger)
        return error_set(err, "out of memory");
    *(void **)array = bigger;
    return 0;
}

int expr_find_tensor(const expr *e, const char *name)
{
    for (int t = 0; t < e->ntensors; t++)
        if (strcmp(e->tensors[t].name, name) == 0)
            return t;
    return -1;
}

int expr_find_index(const expr *e, const char *name)
{
    for (int i = 0; i < e->nindices; i++)
        if (strcmp(e->indices[i], name) == 0)
            return i;
    return -1;
}

static const expr_node *find_access(const expr_node *n, int tensor)
{
    if (!n || n->kind == EXPR_ACCESS)
        return n && n->tensor == tensor ? n : NULL;
    const expr_node *a = find_access(n->left, tensor);
    return a ? a : find_access(n->right, tensor);
}

const expr_node *expr_access(const expr *e, int tensor)
{
    return tensor == 0 ? e->lhs : find_access(e->rhs, tensor);
}

int expr_access_mode(const expr_node *a, int idx)
{
    for (int m = 0; a && m < a->order; m++)
        if (a->index[m] == idx)
            return m;
    return -1;
}

/* The number of index variable name (taken over), added when new. */
static int intern_index(parser *p, char *name, int col)
{
    int i = expr_find_index(p->e, name);
    if (i >= 0) {
        free(name);
        return i;
    }
    if (p->e->nindices == EXPR_MAX_INDICES) {
        free(name);
        return fail(p, col, "more than %d distinct index variables", EXPR_MAX_INDICES);
    }
    if (grow(&p->e->indices, p->e->nindices, &p->index_cap, sizeof *p->e->indices, p->err)) {
        free(name);
        return -1;
    }
    p->e->indices[p->e->nindices] = name;
    return p->e->nindices++;
}

/* Checks a use of tensor name with order indices against earlier uses and
 * returns its number, adding it when new. name is taken over. */
static int intern_tensor(parser *p, char *name, int order, int col)
{
    expr *e = p->e;
    int t = expr_find_tensor(e, name);
    if (t == 0 && p->on_right)
        t = fail(p, col, "the result %s also appears on the right; not supported", name);
    else if (t >= 0 && e->tensors[t].order != order)
        t = fail(p, col, "%s is used with %d indices here but with %d at column %d", name, order,
                 e->tensors[t].order, e->tensors[t].column);
    else if (t < 0 &&
             grow(&e->tensors, e->ntensors, &p->tensor_cap, sizeof *e->tensors, p->err) == 0) {
        e->tensors[e->ntensors] = (expr_tensor){.name = name, .order = order, .column = col};
        return e->ntensors++;
    }
    free(name);
    return t;
}

static expr_node *new_node(parser *p, expr_kind kind, int col)
{
    if (++p->nodes > MAX_NODES) {
        fail(p, col, "expression has more than %d terms", MAX_NODES);
        return NULL;
    }
    expr_node *n = error_alloc(p->err, 1, sizeof *n);
    if (n) {
        n->kind = kind;
        n->column = col;
        n->tensor = -1;
    }
    return n;
}

static void free_node(expr_node *n)
{
    if (!n)
        return;
    free_node(n->left);
    free_node(n->right);
    free(n);
}

/* Adds index variable name (taken over) as the next index of access n. */
static int add_index(parser *p, expr_node *n, char *name, int col, const char *tensor_name)
{
    if (n->order == TENSOR_MAX_ORDER) {
        free(name);
        return fail(p, col, "%s has more than %d index variables", tensor_name, TENSOR_MAX_ORDER);
    }
    int i = intern_index(p, name, col);
    if (i < 0)
        return -1;
    for (int k = 0; k < n->order; k++)
        if (n->index[k] == i)
            return fail(p, col,
                        "index %s appears twice in %s; repeated indices (such as diagonals) "
                        "are not supported",
                        p->e->indices[i], tensor_name);
    if (p->on_right)
        p->right_indices |= (uint64_t)1 << i;
    else
        p->lhs_columns[n->order] = col;
    n->index[n->order++] = i;
    return 0;
}

/* The index list after '(' up to and including ')'. */
static int parse_indices(parser *p, expr_node *n, const char *tensor_name)
{
    if (peek(p) == ')') {
        p->pos++;
        return 0;
    }
    for (;;) {
        int col = column(p);
        if (!is_name_start(peek(p)))
            return fail_expected(p, "an index variable");
        char *name = scan_name(p);
        if (!name || add_index(p, n, name, col, tensor_name))
            return -1;
        int c = peek(p);
        p->pos += c == ',' || c == ')';
        if (c == ')')
            return 0;
        if (c != ',') {
            char what[160];
            snprintf(what, sizeof what, "')' or ',' after index %s of %s",
                     p->e->indices[n->index[n->order - 1]], tensor_name);
            return fail_expected(p, what);
        }
    }
}

/* A tensor access or a bare name, starting at the current position. */
static expr_node *parse_access(parser *p)
{
    int col = column(p);
    char *name = scan_name(p);
    if (!name)
        return NULL;
    expr_node *n = new_node(p, EXPR_ACCESS, col);
    int rc = n ? 0 : -1;
    if (rc == 0 && peek(p) == '(') {
        p->pos++;
        rc = parse_indices(p, n, name);
    }
    if (rc == 0)
        n->tensor = intern_tensor(p, name, n->order, col);
    else
        free(name);
    if (rc || n->tensor < 0) {
        free(n);
        return NULL;
    }
    return n;
}

/* Length of a decimal number at s: digits, an optional fraction and an
 * optional exponent; 0 when none starts here. */
static size_t number_length(const char *s)
{
    size_t n = strspn(s, "0123456789");
    if (s[n] == '.')
        n += 1 + strspn(s + n + 1, "0123456789");
    if (n == 0 || (n == 1 && s[0] == '.'))
        return 0;
    if (s[n] == 'e' || s[n] == 'E') {
        size_t k = n + 1 + (s[n + 1] == '+' || s[n + 1] == '-');
        size_t digits = strspn(s + k, "0123456789");
        if (digits)
            n = k + digits;
    }
    return n;
}

static expr_node *parse_number(parser *p)
{
    int col = column(p);
    size_t n = number_length(p->text + p->pos);
    char buf[128];
    if (n >= sizeof buf) {
        fail(p, col, "number too long");
        return NULL;
    }
    memcpy(buf, p->text + p->pos, n);
    buf[n] = '\0';
    double v = strtod(buf, NULL);
    if (!isfinite(v)) {
        fail(p, col, "number %s is out of range", buf);
        return NULL;
    }
    p->pos += n;
    expr_node *node = new_node(p, EXPR_LITERAL, col);
    if (node)
        node->value = v;
    return node;
}

static expr_node *parse_parenthesized(parser *p)
{
    int open = column(p);
    p->pos++;
    expr_node *n = parse_sum(p);
    if (!n)
        return NULL;
    if (peek(p) != ')') {
        char what[64];
        snprintf(what, sizeof what, "')' to close the '(' at column %d", open);
        fail_expected(p, what);
        free_node(n);
        return NULL;
    }
    p->pos++;
    return n;
}

static expr_node *parse_primary(parser *p)
{
    int c = peek(p);
    if (c == '(')
        return parse_parenthesized(p);
    if (number_length(p->text + p->pos))
        return parse_number(p);
    if (is_name_start(c))
        return parse_access(p);
    fail_expected(p, "a tensor, a number, '-' or '('");
    return NULL;
}

static expr_node *parse_unary(parser *p)
{
    int col = column(p);
    if (++p->nesting > MAX_NESTING) {
        fail(p, col, "expression nested more than %d deep", MAX_NESTING);
        return NULL;
    }
    expr_node *n;
    if (peek(p) == '-') {
        p->pos++;
        expr_node *operand = parse_unary(p);
        n = operand ? new_node(p, EXPR_NEG, col) : NULL;
        if (n)
            n->left = operand;
        else
            free_node(operand);
    } else {
        n = parse_primary(p);
    }
    p->nesting--;
    return n;
}

/* A binary node over left and right; frees both when either is missing. */
static expr_node *combine(parser *p, expr_kind kind, int col, expr_node *left, expr_node *right)
{
    expr_node *n = left && right ? new_node(p, kind, col) : NULL;
    if (!n) {
        free_node(left);
        free_node(right);
        return NULL;
    }
    n->left = left;
    n->right = right;
    return n;
}

static expr_node *parse_term(parser *p)
{
    expr_node *n = parse_unary(p);
    while (n && peek(p) == '*') {
        int col = column(p);
        p->pos++;
        n = combine(p, EXPR_MUL, col, n, parse_unary(p));
    }
    return n;
}

static expr_node *parse_sum(parser *p)
{
    expr_node *n = parse_term(p);
    int c;
    while (n && ((c = peek(p)) == '+' || c == '-')) {
        int col = column(p);
        p->pos++;
        n = combine(p, c == '+' ? EXPR_ADD : EXPR_SUB, col, n, parse_term(p));
    }
    return n;
}

/* Every index of the result must be bound by the right side. */
static int check_result_indices(parser *p)
{
    const expr_node *lhs = p->e->lhs;
    for (int k = 0; k < lhs->order; k++)
        if (!(p->right_indices >> lhs->index[k] & 1))
            return fail(p, p->lhs_columns[k], "index %s of the result does not appear on the right",
                        p->e->indices[lhs->index[k]]);
    return 0;
}

static int parse_statement(parser *p)
{
    if (!is_name_start(peek(p)))
        return fail_expected(p, "the name of the result");
    p->e->lhs = parse_access(p);
    if (!p->e->lhs)
        return -1;
    if (peek(p) != '=')
        return fail_expected(p, "'=' after the result");
    p->pos++;
    p->on_right = 1;
    p->e->rhs = parse_sum(p);
    if (!p->e->rhs)
        return -1;
    if (peek(p) != '\0')
        return fail_expected(p, "an operator or the end");
    return check_result_indices(p);
}

int expr_parse(const char *text, expr *out, sam_error *err)
{
    memset(out, 0, sizeof *out);
    parser p = {.text = text, .e = out, .err = err};
    if (parse_statement(&p) == 0)
        return 0;
    expr_free(out);
    return -1;
}

void expr_free(expr *e)
{
    free_node(e->lhs);
    free_node(e->rhs);
    for (int t = 0; t < e->ntensors; t++)
        free(e->tensors[t].name);
    for (int i = 0; i < e->nindices; i++)
        free(e->indices[i]);
    free(e->tensors);
    free(e->indices);
    memset(e, 0, sizeof *e);
}
