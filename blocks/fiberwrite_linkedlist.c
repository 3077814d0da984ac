/* fiberwrite of a linked-list level (OuterSPACE's, SAM paper Fig. 16),
 * for nodes with format=linkedlist: a level written in whatever order
 * its fibers' coordinates arrive, as the multiply phase of OuterSPACE
 * writes partial products Y(i,k,j) in storage order i, k, j while its
 * loops run k, i, j. Inputs: the level's own coordinates (its index, the
 * outer loop: "k0 k1 S0 D") and its storage parent's, one fiber of them
 * per own coordinate ("i i S0 i S1 D"), the edges named by the node's
 * index and parent attributes. Each parent coordinate i under own
 * coordinate k appends node n (numbered in arrival order) holding k to
 * the list of fiber i, so node n's children are the n-th fiber the level
 * below receives. A list's coordinates must increase (the own loop is
 * outside the parent's), else the block faults; so it does when the own
 * coordinates go on past the parent's D (a level written in loop order,
 * whose own loop is inside its parent's).
 *
 * The level is level 1 of the result, below a dense level 0 whose
 * positions are the parent coordinates: the writer knows no coordinate
 * above its parent's. A list is kept for each parent coordinate that
 * comes, and only for those: a dense level 0 may be declared 2^31 wide
 * by a file of a few bytes, and the lists follow the entries. The level
 * above is handed over as the parent coordinates that have lists, marked
 * compressed, as the dense level writer hands over its coordinates: the
 * tensor is the same, and it is stored densely (within the dense limit)
 * only when written out in the SAM layout, whose _head has a line per
 * position of the dense level.
 *
 * Timing: one parent token a cycle (a node written a cycle), the own
 * coordinate taken with the first token of its fiber; D is taken with
 * the own stream's D. An own stop token is owed by the parent stop (S1
 * or above) that closes the own fiber, and is taken with it when it is
 * there; one that comes later (a bounded or slow own channel) is taken
 * as soon as it is there while no own coordinate is under way, with the
 * parent's token of that cycle if that is a stop, else in a cycle of its
 * own: one token of each input a cycle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "blocks.h"
#include "crd_index.h"

enum { IN_OWN, IN_PARENT };

typedef struct list_writer {
    int mode;
    int64_t own;            /* the own coordinate under way */
    int have_own;
    crd_index parents;      /* the parent coordinates met, numbered: the fibers */
    int64_t *head, *tail;   /* per fiber, its first and last node */
    size_t cap_head, cap_tail;
    int64_t *crd, *next;    /* per node */
    size_t nnodes, cap_crd, cap_next;
    char msg[96];
} list_writer;

/* The number of parent coordinate p's fiber, its list made empty when p
 * is new; -1 when memory runs out. */
static int64_t fiber_of(list_writer *w, int64_t p)
{
    size_t known = w->parents.n;
    int64_t f = crd_index_number(&w->parents, p);
    if (f < 0 || (size_t)f < known)
        return f;
    int64_t *h = grow_array(w->head, known, &w->cap_head, sizeof *h, 64);
    if (h)
        w->head = h;
    int64_t *t = grow_array(w->tail, known, &w->cap_tail, sizeof *t, 64);
    if (t)
        w->tail = t;
    if (!h || !t)
        return -1;
    w->head[f] = w->tail[f] = -1;
    return f;
}

/* The fiber of parent coordinate p, whose list may take a node of the own
 * coordinate under way; -1 when it may not, with *why the fault (NULL:
 * memory ran out). */
static int64_t fiber_taking(list_writer *w, int64_t parent, const char **why)
{
    *why = NULL;
    if (parent < 0) {
        *why = "a negative parent coordinate";
        return -1;
    }
    int64_t f = fiber_of(w, parent);
    int64_t last = f >= 0 ? w->tail[f] : -1;
    if (last >= 0 && w->crd[last] >= w->own) {
        snprintf(w->msg, sizeof w->msg, "coordinate %lld after %lld in the list of fiber %lld",
                 (long long)w->own, (long long)w->crd[last], (long long)parent);
        *why = w->msg;
        return -1;
    }
    return f;
}

/* Appends a node holding the own coordinate to fiber f's list. */
static void link_node(block *b, list_writer *w, int64_t f)
{
    int64_t *c = grow_array(w->crd, w->nnodes, &w->cap_crd, sizeof *c, 64);
    if (c)
        w->crd = c;
    int64_t *n = grow_array(w->next, w->nnodes, &w->cap_next, sizeof *n, 64);
    if (n)
        w->next = n;
    if (!c || !n) {
        b->failed = 1;
        return;
    }
    int64_t node = (int64_t)w->nnodes++, last = w->tail[f];
    w->crd[node] = w->own;
    w->next[node] = -1;
    if (last >= 0)
        w->next[last] = node;
    else
        w->head[f] = node;
    w->tail[f] = node;
}

static void append_node(block *b, list_writer *w, int64_t parent)
{
    const char *why;
    int64_t f = fiber_taking(w, parent, &why);
    if (f >= 0)
        link_node(b, w, f);
    else if (why)
        b->fault = why;
    else
        b->failed = 1;
}

/* The parent's D ends the run with the own stream's. Own coordinates
 * still to come mean the own loop ran inside the parent's, each parent
 * coordinate met once with the first own coordinate: the level was
 * written in loop order, which this writer cannot do. */
static int take_done(block *b, cycle_t now)
{
    token own;
    if (!in_peek(b, IN_OWN, now, &own))
        return 0;
    if (!token_is_done(own)) {
        b->fault = "own coordinates go on after the parent's D: a linked-list level is written "
                   "against the loop order, its own loop just outside its parent's";
        return 1;
    }
    in_pop(b, IN_PARENT, now);
    in_pop(b, IN_OWN, now);
    b->done = 1;
    return 1;
}

static int list_writer_step(block *b, cycle_t now)
{
    list_writer *w = b->state;
    token own, parent;
    int took_stop = 0;
    if (!w->have_own) {
        if (!in_peek(b, IN_OWN, now, &own))
            return 0;
        if (own.kind == TOKEN_CRD) {
            in_pop(b, IN_OWN, now);
            w->own = own.i;
            w->have_own = 1;
        } else if (token_is_stop(own)) {
            /* Owed by a parent stop taken before it came, or by the one
             * taken now. */
            in_pop(b, IN_OWN, now);
            took_stop = 1;
        }
    }
    if (!in_peek(b, IN_PARENT, now, &parent))
        return took_stop;
    /* A parent coordinate waits for the own coordinate behind the stop,
     * the parent's D for the own D. */
    if (took_stop && !token_is_stop(parent))
        return 1;
    if (token_is_done(parent))
        return take_done(b, now);
    in_pop(b, IN_PARENT, now);
    if (parent.kind == TOKEN_CRD) {
        if (!w->have_own)
            b->fault = "a parent coordinate without an own coordinate";
        else
            append_node(b, w, parent.i);
    } else if (token_is_stop(parent)) {
        /* The own coordinate's fiber has ended; a higher stop ends the
         * own fiber too, whose stop is taken now if it is there and no
         * own token was taken this cycle. */
        w->have_own = 0;
        if (parent.level > 0 && !took_stop && in_peek(b, IN_OWN, now, &own) &&
            token_is_stop(own))
            in_pop(b, IN_OWN, now);
    }
    return 1;
}

/* Up to max steps from t on that each take a parent coordinate into a
 * node of the own coordinate under way: every step of an own coordinate's
 * fiber but its first and its stop token's. One that would fault is left
 * to the step. The number of steps made; *idle set when the next would
 * find no parent token. */
static uint64_t list_writer_nodes(block *b, cycle_t t, uint64_t max, int *idle)
{
    list_writer *w = b->state;
    uint64_t n = 0;
    token parent;
    const char *why;
    for (; n < max && w->have_own && !b->failed; n++, t += b->ii) {
        if (!in_peek(b, IN_PARENT, t, &parent)) {
            *idle = 1;
            break;
        }
        int64_t f = parent.kind == TOKEN_CRD ? fiber_taking(w, parent.i, &why) : -1;
        if (f < 0)
            break;
        in_pop(b, IN_PARENT, t);
        link_node(b, w, f);
    }
    return n;
}

/* The native run: an own coordinate's nodes in one loop, the step at its
 * start and end. */
static void list_writer_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, list_writer_nodes);
}

/* A fiber of the level: its parent coordinate and its list's head. */
typedef struct fiber_head {
    int64_t parent, head;
} fiber_head;

static int by_parent(const void *a, const void *b)
{
    int64_t x = ((const fiber_head *)a)->parent, y = ((const fiber_head *)b)->parent;
    return (x > y) - (x < y);
}

/* The dense level 0 as the parent coordinates that have lists, and level
 * 1 as those lists, a head per such fiber in coordinate order. */
static int hand_over(const list_writer *w, fiber_level *top, fiber_level *l, sam_error *err)
{
    size_t nf = w->parents.n;
    fiber_head *fibers = malloc((nf + 1) * sizeof *fibers);
    int64_t *seg = malloc(2 * sizeof *seg), *parent = malloc((nf + 1) * sizeof *parent);
    int64_t *head = malloc((nf + 1) * sizeof *head), *crd = malloc((w->nnodes + 1) * sizeof *crd);
    int64_t *next = malloc((w->nnodes + 1) * sizeof *next);
    if (!fibers || !seg || !parent || !head || !crd || !next) {
        free(fibers), free(seg), free(parent), free(head), free(crd), free(next);
        return error_set(err, "out of memory");
    }
    for (size_t f = 0; f < nf; f++)
        fibers[f] = (fiber_head){w->parents.crd[f], w->head[f]};
    qsort(fibers, nf, sizeof *fibers, by_parent);
    for (size_t j = 0; j < nf; j++) {
        parent[j] = fibers[j].parent;
        head[j] = fibers[j].head;
    }
    free(fibers);
    if (w->nnodes) {
        memcpy(crd, w->crd, w->nnodes * sizeof *crd);
        memcpy(next, w->next, w->nnodes * sizeof *next);
    }
    seg[0] = 0;
    seg[1] = (int64_t)nf;
    *top = (fiber_level){.kind = 's', .mode = top->mode, .dim = top->dim, .seg = seg,
                         .nseg = 2, .crd = parent, .ncrd = nf};
    *l = (fiber_level){.kind = 'l', .mode = l->mode, .dim = l->dim, .crd = crd,
                       .ncrd = w->nnodes, .head = head, .nhead = nf, .next = next};
    return 0;
}

/* Fills the level of the result that stores this mode, and the dense
 * level above it, whose positions are the parent coordinates. */
static int list_writer_collect(block *b, fibertree *result, sam_error *err)
{
    const list_writer *w = b->state;
    for (int k = 0; k < result->order; k++) {
        fiber_level *l = &result->lv[k];
        if (l->mode != w->mode)
            continue;
        if (k != 1 || result->lv[0].kind != 'd')
            return block_error((block *)b, err, "a linked-list level is written only as level "
                               "1, below a dense level 0 holding every parent coordinate");
        for (size_t f = 0; f < w->parents.n; f++)
            if (w->parents.crd[f] >= result->lv[0].dim)
                return block_error((block *)b, err, "parent coordinate %lld is beyond the "
                                   "dimension %lld of level 0",
                                   (long long)w->parents.crd[f], (long long)result->lv[0].dim);
        return hand_over(w, &result->lv[0], l, err);
    }
    return block_error((block *)b, err, "the result has no mode %d", w->mode);
}

static int list_writer_serves(const graph_node *n)
{
    return blocks_attr_is(n, "format", "linkedlist");
}

static void list_writer_destroy(block *b)
{
    list_writer *w = b->state;
    if (w) {
        crd_index_free(&w->parents);
        free(w->head), free(w->tail);
        free(w->crd), free(w->next);
    }
    free(w);
    b->state = NULL;
}

/* Where the graph's comment gives the result's format, the level this
 * node writes must be level 1 below a dense level 0 of its parent's mode:
 * the writer sees no coordinate above its parent's, so a deeper level
 * would put every list under the first position of the levels above. */
static int check_level(block *b, const block_ctx *ctx, int64_t mode, sam_error *err)
{
    int64_t parent_mode;
    const graph_tensor *t = ctx->graph ? graph_tensor_find(ctx->graph,
                                                           graph_node_attr(ctx->node, "tensor"))
                                       : NULL;
    if (!t)
        return 0;
    const level_format *f = &t->format;
    if (f->nlevels < 2 || f->mode[1] != mode || f->kind[0] != 'd' ||
        (graph_node_attr(ctx->node, "parent_mode") &&
         (block_attr_int(ctx, "parent_mode", &parent_mode, err) || parent_mode != f->mode[0])))
        return block_error(b, err, "a linked-list level is written only as level 1, below a "
                           "dense level 0 holding every parent coordinate");
    return 0;
}

static int list_writer_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t mode;
    if (!block_attr(ctx, "tensor", err) || !block_attr(ctx, "index", err) ||
        !block_attr(ctx, "parent", err) || block_attr_int(ctx, "mode", &mode, err) ||
        check_level(b, ctx, mode, err))
        return -1;
    list_writer *w = block_state_new(b, sizeof *w, err);
    if (!w)
        return -1;
    w->mode = (int)mode;
    b->nin = 2;
    b->in_names[IN_OWN] = "own";
    b->in_names[IN_PARENT] = "parent";
    return 0;
}

/* Empty, as created; the arrays are kept for the next run. */
static int list_writer_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    (void)ctx, (void)err;
    list_writer *w = b->state;
    w->own = 0;
    w->have_own = 0;
    crd_index_clear(&w->parents);
    w->nnodes = 0;
    return 0;
}

/* The edge whose comment (or label) names the node's parent index is the
 * parent's coordinates; the other the level's own. */
static int list_writer_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    if (!input || strcmp(e->kind, "crd"))
        return block_error(b, err, "a linked-list writer takes two coordinate streams");
    const char *parent = graph_node_attr(b->node, "parent");
    const char *name = e->comment && e->comment[0] ? e->comment : e->label;
    return !strcmp(name, parent) ? IN_PARENT : IN_OWN;
}

const block_ops fiberwrite_linkedlist_ops = {
    .type = "fiberwrite",
    .impl = "linkedlist",
    .about = "writes a linked-list level in any fiber order, a node a cycle",
    .serves = list_writer_serves,
    .create = list_writer_create,
    .rearm = list_writer_rearm,
    .port = list_writer_port,
    .step = list_writer_step,
    .run = list_writer_run,
    .peek = 1,
    .destroy = list_writer_destroy,
    .collect = list_writer_collect,
};
