/* The repeat of SAM-BLOCKS.md 5.8 as one state machine: each ref once per
 * R of the repeat signal, the repetition closed at S with the stop token
 * merged into a following stop-token ref (token_closing_stop), a
 * stop-token ref met by S one level higher, D with D. A ref and its first
 * signal can be taken in the same cycle; a signal is read only while a ref
 * is held (the reference loses one that comes first, SAM-BLOCKS.md 8.8).
 *
 * The repeat block and crdhold's private repeat run it; they differ only
 * in where refs and signals come from (two input channels; the outer input
 * and a FIFO of the inner stream's signals) and in their fault messages.
 * spaccumulator's private repeat has timing of its own and keeps it.
 * Inline, with the sources as callbacks the compiler sees through: a
 * repeat steps every cycle of most products. */
#ifndef SAMSIM_REPEATER_H
#define SAMSIM_REPEATER_H

#include "../engine/token.h"

typedef struct repeater {
    token cur;              /* the ref being repeated */
    int held;               /* cur holds a ref */
    int pend_stop;          /* a closing stop waits for the next ref */
} repeater;

typedef struct repeat_io {
    void *ctx;
    int (*ref_peek)(void *ctx, token *t);
    void (*ref_pop)(void *ctx);
    /* Takes the next signal, if one is there: its kind in *kind. */
    int (*sig_take)(void *ctx, int *kind);
    const char *ends_differ;        /* the fault for D meeting anything else */
    const char *repeat_of_stop;     /* the fault for R meeting a stop-token ref */
} repeat_io;

/* The stop token that closes the repetition, or a wait for the next ref. */
static inline void repeater_close(repeater *r, const repeat_io *io, token *out, int *emit)
{
    token next;
    int absorbs;
    if (!io->ref_peek(io->ctx, &next)) {
        r->pend_stop = 1;
        return;
    }
    *out = token_closing_stop(next, &absorbs);
    if (absorbs)
        io->ref_pop(io->ctx);
    *emit = 1;
}

static inline void repeater_apply(repeater *r, const repeat_io *io, int s, token *out, int *emit,
                                  const char **fault)
{
    if (s == TOKEN_DONE || r->cur.kind == TOKEN_DONE) {
        if (s != (int)r->cur.kind) {
            *fault = io->ends_differ;
            return;
        }
        r->held = 0;
        *out = r->cur;
        *emit = 1;
    } else if (s == TOKEN_REPEAT) {
        if (token_is_stop(r->cur)) {
            *fault = io->repeat_of_stop;
            return;
        }
        *out = r->cur;
        *emit = 1;
    } else if (s == TOKEN_REPSTOP) {
        r->held = 0;
        if (token_is_stop(r->cur)) {
            *out = token_stop_below(r->cur);
            *emit = 1;
        } else {
            repeater_close(r, io, out, emit);
        }
    } else {
        *fault = "not a repeat signal";
    }
}

/* One cycle: whether anything changed; *emit says whether *out goes out,
 * *fault (left alone otherwise) why the streams cannot be repeated. */
static inline int repeater_step(repeater *r, const repeat_io *io, token *out, int *emit,
                                const char **fault)
{
    *emit = 0;
    if (r->pend_stop) {
        token next;
        if (!io->ref_peek(io->ctx, &next))
            return 0;
        r->pend_stop = 0;
        repeater_close(r, io, out, emit);
        return 1;
    }
    int changed = 0, s;
    if (!r->held) {
        if (!io->ref_peek(io->ctx, &r->cur))
            return 0;
        io->ref_pop(io->ctx);
        r->held = changed = 1;
    }
    if (!io->sig_take(io->ctx, &s))
        return changed;
    repeater_apply(r, io, s, out, emit, fault);
    return 1;
}

#endif
