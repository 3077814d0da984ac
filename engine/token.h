/* The tokens that flow on SAM streams (SAM-BLOCKS.md section 1): data
 * (a coordinate or reference, or a value), the stop token Sk, the empty
 * token N, the done token D, and the repeat signals R and S. A token is
 * a small value, copied, never allocated. */
#ifndef SAMSIM_TOKEN_H
#define SAMSIM_TOKEN_H

#include <stdint.h>
#include <stdio.h>

typedef enum token_kind {
    TOKEN_CRD,      /* coordinate or reference: i */
    TOKEN_VAL,      /* value: v */
    TOKEN_STOP,     /* Sk: level */
    TOKEN_EMPTY,    /* N */
    TOKEN_DONE,     /* D */
    TOKEN_REPEAT,   /* R (repsig streams) */
    TOKEN_REPSTOP,  /* S (repsig streams) */
} token_kind;

#define TOKEN_KINDS 7

typedef struct token {
    uint8_t kind;
    uint8_t level;  /* of a stop token */
    /* Of a stop token: how many of the innermost fibers it closes were
     * never opened. A stream can only close a fiber of its own level, so
     * an outer fiber without elements (an empty row, seen by the column
     * level) comes out one level down as the stop S(k+1) of a fiber that
     * never began. Written as in the reference, it looks like an empty
     * fiber; a reducer must not sum it into a value. The reference's
     * streams lack the field; it changes no timing. Always <= level. */
    uint8_t hollow;
    union {
        int64_t i;
        double v;
    };
} token;

static inline token token_crd(int64_t i) { return (token){.kind = TOKEN_CRD, .i = i}; }
static inline token token_val(double v) { return (token){.kind = TOKEN_VAL, .v = v}; }
static inline token token_stop(int level) { return (token){.kind = TOKEN_STOP, .level = (uint8_t)level}; }
static inline token token_empty(void) { return (token){.kind = TOKEN_EMPTY}; }
static inline token token_done(void) { return (token){.kind = TOKEN_DONE}; }
static inline token token_repeat(void) { return (token){.kind = TOKEN_REPEAT}; }
static inline token token_repstop(void) { return (token){.kind = TOKEN_REPSTOP}; }

/* Stop s of a reference at the start of a fiber, as a block one level
 * down emits it: the empty outer fiber closed one level deeper, S(k+1),
 * where the fiber of this level never began. */
static inline token token_stop_below(token s)
{
    token t = token_stop(s.level + 1);
    t.hollow = (uint8_t)(s.hollow + 1);
    return t;
}

/* Stop s, level k >= 1, after a block removed the innermost level (a
 * reducer): S(k-1), which closes a fiber never opened only if s closed
 * two of them. */
static inline token token_stop_above(token s)
{
    token t = token_stop(s.level - 1);
    t.hollow = (uint8_t)(s.hollow ? s.hollow - 1 : 0);
    return t;
}

static inline int token_is_stop(token t) { return t.kind == TOKEN_STOP; }
static inline int token_is_done(token t) { return t.kind == TOKEN_DONE; }

/* The stop token that closes a fiber (a scanned fiber, a repetition)
 * whose next reference is next: S0, or S(k+1) when next is Sk, which the
 * closing stop absorbs (*absorbs set; the two merge). The one rule of the
 * reference's scanners, repeaters and crdhold's and spaccumulator's
 * private repeats. */
static inline token token_closing_stop(token next, int *absorbs)
{
    *absorbs = token_is_stop(next);
    return token_stop(*absorbs ? next.level + 1 : 0);
}
static inline int token_is_data(token t) { return t.kind == TOKEN_CRD || t.kind == TOKEN_VAL; }

/* Equal kinds and payloads (values compared exactly). Inline: joiners
 * compare tokens every cycle. */
static inline int token_equal(token a, token b)
{
    if (a.kind != b.kind)
        return 0;
    if (a.kind == TOKEN_CRD)
        return a.i == b.i;
    if (a.kind == TOKEN_VAL)
        return a.v == b.v;
    return a.kind != TOKEN_STOP || a.level == b.level;
}

/* "3", "2.5", "S0", "N", "D", "R", "S"; buf needs 32 bytes. A stop token
 * that closes fibers never opened has a ' for each: "S1'". */
const char *token_str(token t, char *buf);

/* Parses the same notation ("2.5" is a value, "3" a coordinate). */
int token_parse(const char *s, token *t);

#endif
