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
 * outside the parent's), else the block faults.
 *
 * Timing: one parent token a cycle (a node written a cycle), the own
 * coordinate taken with the first token of its fiber. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "blocks.h"

enum { IN_OWN, IN_PARENT };

typedef struct list_writer {
    int mode;
    int64_t own;            /* the own coordinate under way */
    int have_own;
    int64_t *head, *tail;   /* per parent fiber, its first and last node */
    size_t nfibers, cap_head, cap_tail;
    int64_t *crd, *next;    /* per node */
    size_t nnodes, cap_crd, cap_next;
    char msg[96];
} list_writer;

/* Fibers up to parent coordinate p exist, empty until a node comes. */
static int reach_fiber(list_writer *w, int64_t p)
{
    while ((int64_t)w->nfibers <= p) {
        int64_t *h = grow_array(w->head, w->nfibers, &w->cap_head, sizeof *h, 64);
        if (h)
            w->head = h;
        int64_t *t = grow_array(w->tail, w->nfibers, &w->cap_tail, sizeof *t, 64);
        if (t)
            w->tail = t;
        if (!h || !t)
            return -1;
        w->head[w->nfibers] = w->tail[w->nfibers] = -1;
        w->nfibers++;
    }
    return 0;
}

static void append_node(block *b, list_writer *w, int64_t parent)
{
    if (parent < 0 || reach_fiber(w, parent)) {
        b->fault = parent < 0 ? "a negative parent coordinate" : NULL;
        b->failed = parent >= 0;
        return;
    }
    int64_t last = w->tail[parent];
    if (last >= 0 && w->crd[last] >= w->own) {
        snprintf(w->msg, sizeof w->msg, "coordinate %lld after %lld in the list of fiber %lld",
                 (long long)w->own, (long long)w->crd[last], (long long)parent);
        b->fault = w->msg;
        return;
    }
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
    int64_t node = (int64_t)w->nnodes++;
    w->crd[node] = w->own;
    w->next[node] = -1;
    if (last >= 0)
        w->next[last] = node;
    else
        w->head[parent] = node;
    w->tail[parent] = node;
}

static int list_writer_step(block *b, cycle_t now)
{
    list_writer *w = b->state;
    token own, parent;
    if (!w->have_own) {
        if (!in_peek(b, IN_OWN, now, &own))
            return 0;
        if (own.kind == TOKEN_CRD) {
            in_pop(b, IN_OWN, now);
            w->own = own.i;
            w->have_own = 1;
        }
    }
    if (!in_peek(b, IN_PARENT, now, &parent))
        return 0;
    in_pop(b, IN_PARENT, now);
    if (parent.kind == TOKEN_CRD) {
        if (!w->have_own)
            b->fault = "a parent coordinate without an own coordinate";
        else
            append_node(b, w, parent.i);
    } else if (token_is_stop(parent)) {
        /* The own coordinate's fiber has ended; a higher stop ends the
         * own fiber too, whose stop is taken now. */
        w->have_own = 0;
        if (parent.level > 0 && in_peek(b, IN_OWN, now, &own) && token_is_stop(own))
            in_pop(b, IN_OWN, now);
    } else if (token_is_done(parent)) {
        if (in_peek(b, IN_OWN, now, &own) && token_is_done(own))
            in_pop(b, IN_OWN, now);
        b->done = 1;
    }
    return 1;
}

/* Fills the level of the result that stores this mode: a head per
 * position of the level above (which must be dense: its positions are
 * the parent coordinates). */
static int list_writer_collect(const block *b, fibertree *result, sam_error *err)
{
    const list_writer *w = b->state;
    for (int k = 0; k < result->order; k++) {
        fiber_level *l = &result->lv[k];
        if (l->mode != w->mode)
            continue;
        int64_t fibers = k == 0 ? 1 : fibertree_positions(result, k - 1);
        if (k == 0 || result->lv[k - 1].kind != 'd' || (int64_t)w->nfibers > fibers)
            return block_error((block *)b, err, "a linked-list level needs a dense level above "
                               "it holding every parent coordinate");
        int64_t *head = malloc(((size_t)fibers + 1) * sizeof *head);
        int64_t *crd = malloc((w->nnodes + 1) * sizeof *crd);
        int64_t *next = malloc((w->nnodes + 1) * sizeof *next);
        if (!head || !crd || !next) {
            free(head), free(crd), free(next);
            return error_set(err, "out of memory");
        }
        for (int64_t f = 0; f < fibers; f++)
            head[f] = f < (int64_t)w->nfibers ? w->head[f] : -1;
        if (w->nnodes) {
            memcpy(crd, w->crd, w->nnodes * sizeof *crd);
            memcpy(next, w->next, w->nnodes * sizeof *next);
        }
        *l = (fiber_level){.kind = 'l', .mode = l->mode, .dim = l->dim, .crd = crd,
                           .ncrd = w->nnodes, .head = head, .nhead = (size_t)fibers,
                           .next = next};
        return 0;
    }
    return block_error((block *)b, err, "the result has no mode %d", w->mode);
}

static int list_writer_serves(const graph_node *n)
{
    const char *f = graph_node_attr(n, "format");
    return f && !strcmp(f, "linkedlist");
}

static void list_writer_destroy(block *b)
{
    list_writer *w = b->state;
    if (w) {
        free(w->head), free(w->tail);
        free(w->crd), free(w->next);
    }
    free(w);
    b->state = NULL;
}

static int list_writer_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t mode;
    if (!block_attr(ctx, "tensor", err) || !block_attr(ctx, "index", err) ||
        !block_attr(ctx, "parent", err) || block_attr_int(ctx, "mode", &mode, err))
        return -1;
    list_writer *w = calloc(1, sizeof *w);
    if (!w)
        return error_set(err, "out of memory");
    w->mode = (int)mode;
    b->state = w;
    b->nin = 2;
    b->in_names[IN_OWN] = "own";
    b->in_names[IN_PARENT] = "parent";
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
    .port = list_writer_port,
    .step = list_writer_step,
    .peek = 1,
    .destroy = list_writer_destroy,
    .collect = list_writer_collect,
};
