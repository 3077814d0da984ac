/* Argument vectors built word by word: what a sweep hands the steps it
 * runs (samsim compile, gen, run), and what it checks beforehand. */
#ifndef SAMSIM_WORDS_H
#define SAMSIM_WORDS_H

#include <stddef.h>

#include "error.h"

typedef struct words {
    char **v;
    size_t n, cap;
} words;

/* Appends a copy of s (NULL ends an argument vector). */
int words_add(words *w, const char *s, sam_error *err);

/* Appends fmt formatted with a and b. */
int words_addf(words *w, sam_error *err, const char *fmt, const char *a, const char *b);

/* Adds each blank-separated word of s (NULL: none), after prefix (as in
 * "-f=" for every format). */
int words_split(words *w, const char *prefix, const char *s, sam_error *err);

void words_free(words *w);

#endif
