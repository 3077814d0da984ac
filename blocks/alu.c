/* mul and add (SAM-BLOCKS.md 5.11): pair the two value streams token by
 * token, latency 0. add with sub=1 computes in1 - in2. Neither input edge
 * carries a port name (the reference's tests choose in1 by hand), and edge
 * order does not tell either: mat_residual.gv lists b - C*d's reduce edge
 * first, vec_sub.gv and mat_residual_HAND.gv the left operand's. What
 * holds in all of them is that the graph comment lists tensors in the
 * order of the expression, so in1 is the input whose values come from the
 * tensor listed first (following val edges upstream to the arrays).
 *
 * A stop token meeting a value is the reference's "union patch" for
 * b(i) + C(i,j)*d(j): the value passes (0 for mul), the stop is kept for
 * the next cycle and only the value side advances. The reference applies
 * it to Python ints only and raises a type error for floats (section 8,
 * bug 4), and its subtraction lets in2 through unnegated; samsim applies
 * it to every value and gives in2 the sign it has in in1 - in2. Like the
 * reference, a step waits until both inputs hold a token even when it only
 * takes one. */
#include <stdlib.h>
#include <string.h>

#include "blocks.h"

enum { IN1, IN2 };
enum { OP_MUL, OP_ADD, OP_SUB };

typedef struct alu {
    int op;
    token a, b;                         /* the operands of the last step */
    uint8_t take1, take2;               /* whether the next step pops them */
    const graph_edge *in1, *in2;        /* NULL without a graph */
    int attached;                       /* edges placed so far without a graph */
} alu;

static double number(token t)
{
    return t.kind == TOKEN_VAL ? t.v : t.kind == TOKEN_CRD ? (double)t.i : 0.0;
}

static token compute(const alu *s, double a, double b)
{
    return token_val(s->op == OP_MUL ? a * b : s->op == OP_ADD ? a + b : a - b);
}

/* The output of one pairing (*fault set when the streams differ in
 * shape); sets which operands the next step takes. */
static token pair(alu *s, const char **fault)
{
    token a = s->a, b = s->b;
    s->take1 = s->take2 = 1;
    if (token_is_done(a) || token_is_done(b)) {
        if (!token_is_done(a) || !token_is_done(b))
            *fault = "a 'D' on one input meets another token on the other: the value streams "
                     "differ in length";
        return token_done();
    }
    if (token_is_stop(a) && token_is_stop(b)) {
        if (a.level != b.level)
            *fault = "stop tokens of different levels meet: the value streams differ in shape";
        return a;
    }
    if (token_is_stop(a)) {
        s->take1 = 0;
        return compute(s, 0.0, number(b));
    }
    if (token_is_stop(b)) {
        s->take2 = 0;
        return compute(s, number(a), 0.0);
    }
    return compute(s, number(a), number(b));
}

static int alu_step(block *b, cycle_t now)
{
    alu *s = b->state;
    if (!in_has(b, IN1, now) || !in_has(b, IN2, now))
        return 0;
    if (s->take1) {
        in_peek(b, IN1, now, &s->a);
        in_pop(b, IN1, now);
    }
    if (s->take2) {
        in_peek(b, IN2, now, &s->b);
        in_pop(b, IN2, now);
    }
    const char *fault = NULL;
    token out = pair(s, &fault);
    if (fault)
        b->fault = fault;
    else
        out_push(b, 0, now, out);
    return 1;
}

/* Steps from t on that pair two values and nothing else, as alu_step
 * would make them: most of a product's. They look at the heads only,
 * which are final once visible. */
static uint64_t alu_values(block *b, cycle_t t, cycle_t until)
{
    alu *s = b->state;
    if (!s->take1 || !s->take2)
        return 0;
    uint64_t n = 0, room = block_room(b, t, block_steps_below(b, t, until));
    token x, y;
    for (; t < until && n < room && in_peek(b, IN1, t, &x) && x.kind == TOKEN_VAL &&
           in_peek(b, IN2, t, &y) && y.kind == TOKEN_VAL;
         t += b->ii, n++) {
        in_pop(b, IN1, t);
        in_pop(b, IN2, t);
        s->a = x;
        s->b = y;
        out_push(b, 0, t, compute(s, x.v, y.v));
    }
    return n;
}

static void alu_run(block *b, cycle_t until)
{
    block_bulk_run(b, until, alu_values);
}

/* The position in the graph comment of the earliest tensor whose values
 * reach node n along val edges; the number of tensors when none does. */
static int first_tensor(const sam_graph *g, int n)
{
    int best = g->ntensors, depth = 0;
    int *stack = malloc(((size_t)g->nedges + 1) * sizeof *stack);
    if (!stack)
        return best;
    stack[depth++] = n;
    for (int visited = 0; depth > 0 && visited <= g->nedges; visited++) {
        int v = stack[--depth];
        const char *t = graph_node_attr(&g->nodes[v], "tensor");
        for (int k = 0; t && k < g->ntensors; k++)
            if (!strcmp(g->tensors[k].name, t) && k < best)
                best = k;
        for (int e = 0; e < g->nedges && depth <= g->nedges; e++)
            if (g->edges[e].dst == v && !strcmp(g->edges[e].kind, "val"))
                stack[depth++] = g->edges[e].src;
    }
    free(stack);
    return best;
}

/* The two edges into the node, left operand first. */
static int find_inputs(block *b, alu *s, const block_ctx *ctx, sam_error *err)
{
    const sam_graph *g = ctx->graph;
    int me = graph_node_index(g, ctx->node->id);
    for (int k = 0; k < g->nedges; k++) {
        if (g->edges[k].dst != me)
            continue;
        if (s->in2)
            return block_error(b, err, "more than two inputs (edge label '%s')",
                               g->edges[k].label);
        *(s->in1 ? &s->in2 : &s->in1) = &g->edges[k];
    }
    if (s->in2 && first_tensor(g, s->in2->src) < first_tensor(g, s->in1->src)) {
        const graph_edge *first = s->in1;
        s->in1 = s->in2;
        s->in2 = first;
    }
    return 0;
}

static int alu_create(block *b, const block_ctx *ctx, int op, sam_error *err)
{
    alu *s = block_state_new(b, sizeof *s, err);
    if (!s)
        return -1;
    *s = (alu){.op = op, .take1 = 1, .take2 = 1};
    if (ctx->graph && find_inputs(b, s, ctx, err)) {
        free(s);
        b->state = NULL;
        return -1;
    }
    b->nin = 2;
    b->nout = 1;
    b->in_names[IN1] = "in1";
    b->in_names[IN2] = "in2";
    b->out_names[0] = "val";
    return 0;
}

/* The operand edges stay; what the last step left goes. */
static int alu_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    alu *s = b->state;
    s->a = s->b = (token){0};
    s->take1 = s->take2 = 1;
    return 0;
}

static int mul_create(block *b, const block_ctx *ctx, sam_error *err)
{
    return alu_create(b, ctx, OP_MUL, err);
}

static int add_create(block *b, const block_ctx *ctx, sam_error *err)
{
    const char *sub = graph_node_attr(ctx->node, "sub");
    if (sub && strcmp(sub, "0") && strcmp(sub, "1"))
        return block_error(b, err, "attribute sub='%s' is neither 0 nor 1", sub);
    return alu_create(b, ctx, sub && !strcmp(sub, "1") ? OP_SUB : OP_ADD, err);
}

static int alu_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const kinds[] = {"val"};
    alu *s = b->state;
    if (block_port_by_kind(b, e, input, kinds, 1, err) < 0)
        return -1;
    if (!input)
        return 0;
    if (s->in1)
        return e == s->in1 ? IN1 : e == s->in2 ? IN2 : block_error(b, err, "unknown input edge");
    if (s->attached == 2)
        return block_error(b, err, "more than two inputs (edge label '%s')", e->label);
    return s->attached++;
}

/* The rest of both tables: one block under two names. */
#define ALU_OPS .rearm = alu_rearm, .port = alu_port, .step = alu_step, .run = alu_run, .peek = 1

const block_ops mul_ops = {
    .type = "mul",
    .impl = "ideal",
    .about = "product of two value streams, one pair per cycle",
    .create = mul_create,
    ALU_OPS,
};

const block_ops add_ops = {
    .type = "add",
    .impl = "ideal",
    .about = "sum (sub=1: difference in1 - in2) of two value streams, one pair per cycle",
    .create = add_create,
    ALU_OPS,
};
