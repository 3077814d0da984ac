/* Lists of strings built word by word: the argument vectors a sweep hands
 * the steps it runs (samsim compile, gen, run) and checks beforehand, and
 * the names of its columns. */
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

/* Appends a copy of s unless w holds it already. */
int words_add_new(words *w, const char *s, sam_error *err);

/* Appends fmt formatted with a and b. */
int words_addf(words *w, sam_error *err, const char *fmt, const char *a, const char *b);

/* Adds each blank-separated word of s (NULL: none), after prefix (as in
 * "-f=" for every format). */
int words_split(words *w, const char *prefix, const char *s, sam_error *err);

void words_free(words *w);

#endif
