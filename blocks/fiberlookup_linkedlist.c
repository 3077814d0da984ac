/* fiberlookup of a linked-list level (OuterSPACE's, SAM paper Fig. 16),
 * for nodes with format=linkedlist: for each reference r on its input,
 * the coordinates of fiber r's list and their node numbers (the positions
 * of the level below and of the values), head first and then along the
 * next pointers, closed by a stop token (scanner.h). The level's kind
 * must be 'l' (formats/fibertree.h).
 *
 * Its streams and cycles are the compressed scanner's (SAM-BLOCKS.md
 * 5.1): the first node goes out in the cycle its ref is taken, the
 * others one a cycle while a further ref is visible, an empty list (head
 * -1) is its stop token alone in that cycle, and the stop token waits for
 * the next ref and merges with it when it is a stop token. A node holds
 * its coordinate and its next pointer together (OuterSPACE's list
 * elements), so reading one a cycle needs no second access: the next
 * pointer of the node just sent says, without a lookup, whether the
 * fiber goes on.
 *
 * A list is in increasing coordinate order: every 'l' level is (its
 * writer, fiberwrite_linkedlist.c, faults on a coordinate out of order,
 * and fibertree_validate refuses one in a file), so the coordinates may
 * feed an intersecter or a merger as a compressed level's do. The
 * scanner faults on a list that breaks the order, a node out of range
 * or a cycle among the next pointers, rather than send it. There is no
 * coordinate skip: a list has no locator to jump with. */
#include "blocks.h"
#include "scanner.h"

typedef struct list_scan {
    scanner s;
    scanner_source src;
    const fiber_level *l;
} list_scan;

/* Sends node n of the open fiber, which must follow the node sent last. */
static void emit_node(block *b, list_scan *v, cycle_t now, int64_t n)
{
    const fiber_level *l = v->l;
    if (n >= (int64_t)l->ncrd) {
        b->fault = "a list points beyond the level's nodes";
        return;
    }
    if (v->s.cur >= 0 && l->crd[n] <= l->crd[v->s.cur]) {
        b->fault = "a list's coordinates do not increase";
        return;
    }
    scanner_emit(b, now, token_crd(l->crd[n]), token_crd(n));
    v->s.cur = n;
}

static void next_fiber(block *b, list_scan *v, cycle_t now, token r)
{
    if (!scanner_start(b, &v->s, now, r))
        return;
    if (r.kind != TOKEN_CRD || r.i < 0 || (size_t)r.i >= v->l->nhead) {
        b->fault = "reference beyond the list heads";
        return;
    }
    int64_t head = v->l->head[r.i];
    if (head < 0)
        scanner_close(b, &v->s, now);
    else
        emit_node(b, v, now, head);
}

static int list_scan_step(block *b, cycle_t now)
{
    list_scan *v = b->state;
    scanner *s = &v->s;
    token r;
    int have = in_peek(b, SCANNER_IN_REF, now, &r);
    if (s->done || s->pend_stop)
        return scanner_pending(b, s, have, now);
    if (have && (s->begin || s->end_fiber)) {
        next_fiber(b, v, now, r);
        return 1;
    }
    if (s->begin || s->cur < 0)
        return 0;
    int64_t n = v->l->next[s->cur];
    if (n < 0)
        scanner_close(b, s, now);
    else if (have)
        emit_node(b, v, now, n);
    else
        return 0;
    return 1;
}

/* Up to max steps from t on that each send the open fiber's next node:
 * every step of a list but its first and its stop token's. They go on
 * while the next ref is visible, which stays so (only the stop token
 * takes it); a node that would fault is left to the step. The number of
 * steps made. */
static uint64_t list_nodes(block *b, cycle_t t, uint64_t max, int *idle)
{
    list_scan *v = b->state;
    const fiber_level *l = v->l;
    int64_t cur = v->s.cur;
    (void)idle;     /* the step says whether a missing ref leaves it idle */
    /* cur >= 0 only while a fiber is open (scanner_close resets it). */
    if (cur < 0 || !in_has(b, SCANNER_IN_REF, t))
        return 0;
    channel *crd = b->out[SCANNER_OUT_CRD].ch, *ref = b->out[SCANNER_OUT_REF].ch;
    uint64_t n = 0;
    int failed = 0;
    for (int64_t next = l->next[cur];
         n < max && next >= 0 && next < (int64_t)l->ncrd && l->crd[next] > l->crd[cur];
         cur = next, next = l->next[cur], t += b->ii, n++) {
        if (crd)
            failed |= channel_push(crd, t, token_crd(l->crd[next]));
        if (ref)
            failed |= channel_push(ref, t, token_crd(next));
    }
    v->s.cur = cur;
    b->failed |= failed != 0;
    return n;
}

/* The native run: a list's nodes in one loop, the step at its start and
 * end. */
static void list_scan_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, list_nodes);
}

static int list_scan_serves(const graph_node *n)
{
    return blocks_attr_is(n, "format", "linkedlist");
}

static int list_scan_create(block *b, const block_ctx *ctx, sam_error *err)
{
    const fibertree *ft;
    scanner_source src;
    const fiber_level *l = scanner_create(b, ctx, 'l', &src, &ft, err);
    if (!l)
        return -1;
    list_scan *v = block_state_new(b, sizeof *v, err);
    if (!v)
        return -1;
    *v = (list_scan){.s = SCANNER_START, .src = src, .l = l};
    return 0;
}

static int list_scan_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    list_scan *v = b->state;
    const fibertree *ft;
    const fiber_level *l = scanner_level(b, ctx, &v->src, &ft, err);
    if (!l)
        return -1;
    *v = (list_scan){.s = SCANNER_START, .src = v->src, .l = l};
    return 0;
}

const block_ops fiberlookup_linkedlist_ops = {
    .type = "fiberlookup",
    .impl = "linkedlist",
    .about = "coordinates and node numbers of a linked-list level, one per cycle",
    .serves = list_scan_serves,
    .create = list_scan_create,
    .rearm = list_scan_rearm,
    .port = scanner_port,
    .step = list_scan_step,
    .run = list_scan_run,
    .peek = 2,
};
