/* Files of `key = value` lines, the syntax of --config and --hw: `#`
 * starts a comment, blank lines are skipped, blanks around key and value
 * are not part of them. */
#ifndef SAMSIM_KEYVAL_H
#define SAMSIM_KEYVAL_H

#include "error.h"

/* One line's key and value; origin is "PATH:LINE", for messages. */
typedef int keyval_fn(void *ctx, const char *key, const char *value, const char *origin,
                      sam_error *err);

/* s without the blanks at its ends (moved past the leading ones, the
 * trailing ones cut off in place). */
char *keyval_trim(char *s);

/* Calls fn for every line of path, in order, until one fails; a line
 * without `=` is an error naming the file and line. */
int keyval_read(const char *path, keyval_fn *fn, void *ctx, sam_error *err);

/* The same over text held in memory, named name in messages. */
int keyval_read_text(const char *name, const char *text, keyval_fn *fn, void *ctx,
                     sam_error *err);

#endif
