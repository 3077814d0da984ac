/* A string that grows as bytes are added, kept NUL-terminated (its
 * capacity doubling, from 64 bytes). A zeroed strbuf is empty. */
#ifndef SAMSIM_STRBUF_H
#define SAMSIM_STRBUF_H

#include <stddef.h>

#include "error.h"

typedef struct strbuf {
    char *s;                /* NULL until the first add */
    size_t len, cap;
} strbuf;

/* Appends the n bytes at s; 0, or -1 with err set when out of memory. */
int strbuf_add(strbuf *b, const char *s, size_t n, sam_error *err);
void strbuf_free(strbuf *b);

#endif
