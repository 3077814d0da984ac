/* locate (SAM paper, Definition 4.1): iterate-locate, the leader-follower
 * intersection. For each coordinate of the leader's stream it finds the
 * position of that coordinate in the follower's level (the node's tensor
 * and mode), within the follower's fiber that the parent input names, and
 * emits the coordinate, the leader's reference and the follower's; a
 * coordinate the follower lacks is dropped. A dense level locates by
 * arithmetic in one cycle, a compressed one by searching its fiber, which
 * takes `search` cycles.
 *
 * The parent input carries one follower reference per leader fiber, as the
 * follower's scanner would have taken it, and the stops above: the
 * leader's S(k+1) closes a fiber and the parent's Sk with it. An N parent
 * is a follower fiber that does not exist: nothing in it is found. An
 * outer fiber without inner fibers (an empty operand's) has no parent
 * ref: the leader's S(k+1) that starts a fiber meets the parent's Sk
 * alone, and both are taken in one cycle.
 *
 * Ports: inputs the parent ref, whose edge names the follower ("in-c"),
 * and the leader's crd and ref; outputs crd, the leader's ref and the
 * located ref ("out-c"). */
#include <stdlib.h>
#include <string.h>

#include "blocks.h"

/* The parent comes first: a root locator (its follower's top level) is
 * fed [0, D] there by the engine. */
enum { LOC_IN_PARENT, LOC_IN_CRD, LOC_IN_REF };
enum { LOC_OUT_CRD, LOC_OUT_REF, LOC_OUT_LOCATED };

typedef struct locator {
    const char *tensor;
    int mode;
    const fiber_level *lv;
    int64_t fibers;             /* follower fibers: the parent refs that exist */
    int64_t search;             /* cycles a search of a compressed fiber takes */
    int open;                   /* a parent ref is taken for the leader's fiber */
    token parent;
    int close_level;            /* the parent's stop still to take, -1: none */
    int64_t wait;               /* cycles left of the search under way */
    int found;                  /* what the search under way ends with */
    token crd, ref, located;
    int done;
} locator;

/* Position of coordinate c in the follower fiber under parent, or -1. */
static int64_t position(block *b, const locator *l, int64_t c)
{
    if (l->parent.kind != TOKEN_CRD)
        return -1;
    int64_t p = l->parent.i;
    if (p < 0 || p >= l->fibers) {
        b->fault = "a parent reference beyond the located level";
        return -1;
    }
    if (l->lv->kind == 'd')
        return c >= 0 && c < l->lv->dim ? p * l->lv->dim + c : -1;
    int64_t lo = l->lv->seg[p], hi = l->lv->seg[p + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (l->lv->crd[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->lv->seg[p + 1] && l->lv->crd[lo] == c ? lo : -1;
}

static void emit3(block *b, cycle_t now, token crd, token ref, token located)
{
    out_push(b, LOC_OUT_CRD, now, crd);
    out_push(b, LOC_OUT_REF, now, ref);
    out_push(b, LOC_OUT_LOCATED, now, located);
}

/* The search's end: its coordinate out when the follower holds it. */
static void finish_search(block *b, locator *l, cycle_t now)
{
    if (l->found)
        emit3(b, now, l->crd, l->ref, l->located);
}

/* A leader coordinate (or N, which holds none): located, at once in a
 * dense level, after the search's cycles in a compressed one. */
static void locate(block *b, locator *l, cycle_t now, token crd, token ref)
{
    int64_t at = crd.kind == TOKEN_CRD ? position(b, l, crd.i) : -1;
    l->found = at >= 0;
    l->crd = crd;
    l->ref = ref;
    l->located = token_crd(at);
    l->wait = l->lv->kind == 's' && crd.kind == TOKEN_CRD ? l->search - 1 : 0;
    if (!l->wait)
        finish_search(b, l, now);
}

/* Before a leader fiber: the parent's stop that closed the last one
 * (*popped when taken now), then the parent ref of this one. 0 while the
 * parent has not sent them. */
static int take_parent(block *b, locator *l, cycle_t now, int *popped)
{
    token p;
    if (l->close_level >= 0) {
        if (!in_peek(b, LOC_IN_PARENT, now, &p))
            return 0;
        if (p.kind != TOKEN_STOP || p.level != l->close_level) {
            b->fault = "the parent references' stops do not match the leader's";
            return 0;
        }
        in_pop(b, LOC_IN_PARENT, now);
        l->close_level = -1;
        *popped = 1;
    }
    if (!in_peek(b, LOC_IN_PARENT, now, &p))
        return 0;
    l->parent = p;
    return 1;
}

/* Whether the leader's stop crd at the start of a fiber closes an outer
 * fiber that holds none (S(k+1) from a scanner given no ref, as for an
 * empty operand): the parent sent no ref for it, only its own stop. */
static int closes_absent(const locator *l, token crd)
{
    return token_is_stop(crd) && token_is_stop(l->parent) && l->parent.level == crd.level - 1;
}

static int locate_step(block *b, cycle_t now)
{
    locator *l = b->state;
    if (l->done)
        return 0;
    if (l->wait) {
        if (--l->wait == 0)
            finish_search(b, l, now);
        return 1;
    }
    token crd, ref;
    if (!in_peek(b, LOC_IN_CRD, now, &crd) || !in_peek(b, LOC_IN_REF, now, &ref))
        return 0;
    if (!l->open) {
        int popped = 0;
        if (!take_parent(b, l, now, &popped))
            return popped;
        if (closes_absent(l, crd)) {
            in_pop(b, LOC_IN_PARENT, now);
            in_pop(b, LOC_IN_CRD, now);
            in_pop(b, LOC_IN_REF, now);
            emit3(b, now, crd, crd, crd);
            return 1;
        }
        if ((crd.kind == TOKEN_DONE) != (l->parent.kind == TOKEN_DONE)) {
            b->fault = "the leader and the parent references end at different points";
            return 0;
        }
        in_pop(b, LOC_IN_PARENT, now);
        l->open = 1;
    }
    in_pop(b, LOC_IN_CRD, now);
    in_pop(b, LOC_IN_REF, now);
    if (crd.kind == TOKEN_DONE) {
        emit3(b, now, crd, crd, crd);
        l->done = 1;
    } else if (token_is_stop(crd)) {
        emit3(b, now, crd, crd, crd);
        l->open = 0;
        l->close_level = crd.level - 1;
    } else {
        locate(b, l, now, crd, ref);
    }
    return 1;
}

/* Up to max steps from t on within a leader fiber whose parent ref is
 * taken, as locate_step makes them: the cycles of a search, and the
 * leader's coordinates (or N) located. They look at the leader's heads
 * only, which are final once visible, and push at most one token on each
 * output. A parent ref beyond the level, the leader's stop tokens and D
 * are left to the step. The number of steps made; *idle set when the
 * next would find no leader token. */
static uint64_t locate_lookups(block *b, cycle_t t, uint64_t max, int *idle)
{
    locator *l = b->state;
    if (!l->open || l->done ||
        (l->parent.kind == TOKEN_CRD && (l->parent.i < 0 || l->parent.i >= l->fibers)))
        return 0;
    const uint32_t ii = b->ii;
    uint64_t n = 0;
    token crd, ref;
    for (; n < max; t += ii, n++) {
        if (l->wait) {
            if (--l->wait == 0)
                finish_search(b, l, t);
            continue;
        }
        if (!in_peek(b, LOC_IN_CRD, t, &crd) || !in_peek(b, LOC_IN_REF, t, &ref)) {
            *idle = 1;
            break;
        }
        if (crd.kind != TOKEN_CRD && crd.kind != TOKEN_EMPTY)
            break;
        in_pop(b, LOC_IN_CRD, t);
        in_pop(b, LOC_IN_REF, t);
        locate(b, l, t, crd, ref);
    }
    return n;
}

static void locate_run(block *b, cycle_t until)
{
    block_stretch_run(b, until, locate_lookups);
}

static const param locate_params[] = {
    {"search", "cycles", "cycles to find a coordinate in a compressed fiber", 1, 1, 1 << 20, 1, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

/* A locator of l's tensor, mode and search at the start of its stream,
 * on that level of the data ctx binds. */
static int locate_start(block *b, locator *l, const block_ctx *ctx, sam_error *err)
{
    const fibertree *ft;
    const fiber_level *lv = block_level(ctx, l->tensor, l->mode, &ft, err);
    if (!lv)
        return -1;
    /* position() computes or searches; a bitvector or list has no seg/crd. */
    if (lv->kind != 'd' && lv->kind != 's')
        return block_error(b, err, "tensor %s stores mode %d as a %s level; locate finds "
                           "coordinates in dense and compressed levels only", l->tensor,
                           l->mode, level_kind_name(lv->kind));
    int k = (int)(lv - ft->lv);
    int64_t above = k ? fibertree_positions(ft, k - 1) : 1;
    *l = (locator){.tensor = l->tensor, .mode = l->mode, .lv = lv, .close_level = -1,
                   .search = l->search, .fibers = lv->kind == 's' ? (int64_t)lv->nseg - 1 : above};
    return 0;
}

static int locate_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t mode;
    const char *tensor = block_attr(ctx, "tensor", err);
    if (!tensor || block_attr_int(ctx, "mode", &mode, err))
        return -1;
    locator *l = block_state_new(b, sizeof *l, err);
    if (!l)
        return -1;
    *l = (locator){.tensor = tensor, .mode = (int)mode};
    if (locate_start(b, l, ctx, err) || block_param_get(b, ctx, "search", &l->search, err)) {
        free(l);
        b->state = NULL;
        return -1;
    }
    b->nin = 3;
    b->nout = 3;
    b->in_names[LOC_IN_CRD] = "crd";
    b->in_names[LOC_IN_REF] = "ref";
    b->in_names[LOC_IN_PARENT] = "parent";
    b->out_names[LOC_OUT_CRD] = "crd";
    b->out_names[LOC_OUT_REF] = "ref";
    b->out_names[LOC_OUT_LOCATED] = "located";
    return 0;
}

static int locate_rearm(block *b, const block_ctx *ctx, sam_error *err)
{
    return locate_start(b, b->state, ctx, err);
}

static int locate_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    const locator *l = b->state;
    if (!strcmp(e->kind, "crd"))
        return input ? LOC_IN_CRD : LOC_OUT_CRD;
    if (strcmp(e->kind, "ref"))
        return block_error(b, err, "no %s port for edge '%s' (%s)", input ? "input" : "output",
                           e->label, e->kind);
    const char *named = block_edge_tensor(e, input ? "in-" : "out-");
    if (named && !strcmp(named, l->tensor))
        return input ? LOC_IN_PARENT : LOC_OUT_LOCATED;
    return input ? LOC_IN_REF : LOC_OUT_REF;
}

const block_ops locate_ops = {
    .type = "locate",
    .impl = "default",
    .about = "the leader's coordinates found in the follower's level: dense by arithmetic, "
             "compressed by a search of `search` cycles",
    .params = locate_params,
    .create = locate_create,
    .rearm = locate_rearm,
    .port = locate_port,
    .step = locate_step,
    .run = locate_run,
    .peek = 2,
};
