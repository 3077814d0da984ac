/* The outcome of a run as one record: named fields in the order they were
 * set, each a value as the summary prints it. `samsim run` prints it as
 * "key: value" lines, writes it with --outcome as CSV rows of key and
 * value, and a sweep's job reads that file back into its results row;
 * tests read the fields. A key is set once: the keys come from the names
 * of phases and tensors, so one named like another key is refused rather
 * than shown twice. */
#ifndef SAMSIM_OUTCOME_H
#define SAMSIM_OUTCOME_H

#include <stdio.h>

#include "../common/error.h"
#include "../common/words.h"

typedef struct outcome {
    words fields;           /* key, value, key, value, ... */
    char twice[96];         /* the first key set twice, or "" */
    int failed;             /* out of memory while setting a field */
} outcome;

/* Sets key to fmt's text. A failure is kept for outcome_done, so that a
 * record is filled without a check after every field. */
void outcome_set(outcome *o, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* 0 when every field was set once; else an error naming what (what: the
 * run, for the message). */
int outcome_done(const outcome *o, const char *what, sam_error *err);

/* The field's value, or NULL when the record has no such key. */
const char *outcome_get(const outcome *o, const char *key);

/* The field's value as a number; NAN when absent or not a number. */
double outcome_number(const outcome *o, const char *key);

/* Every field as a "key: value" line. */
void outcome_print(const outcome *o, FILE *f);

/* Every field as a CSV row of key and value, the file whole or not at
 * all; outcome_read reads such a file back (and any CSV file of two
 * columns). */
int outcome_write(const outcome *o, const char *path, sam_error *err);
int outcome_read(const char *path, outcome *o, sam_error *err);

void outcome_free(outcome *o);

#endif
