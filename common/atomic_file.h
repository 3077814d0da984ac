/* Output files that appear whole or not at all: data goes to a temporary
 * file beside the target, which is renamed over it only when everything was
 * written. Several files can be closed first and renamed together, so that
 * a multi-file output (a SAM directory) is not left half-written. */
#ifndef SAMSIM_ATOMIC_FILE_H
#define SAMSIM_ATOMIC_FILE_H

#include <stdio.h>

#include "error.h"

typedef struct atomic_file {
    char *path;       /* the target ("standard output" for "-") */
    char *tmp_path;   /* where the data is written until publish; NULL when
                         written in place */
    FILE *f;
} atomic_file;

/* Whether path exists and is neither a regular file nor a directory (a
 * device such as /dev/null, a FIFO). */
int atomic_file_special(const char *path);

/* Path "-" is standard output, and a target that exists but is not a
 * regular file (atomic_file_special) cannot be renamed over: both are
 * written in place, and publish does nothing. */
int atomic_file_open(atomic_file *af, const char *path, sam_error *err);

/* Flushes and closes the temporary file, reporting any write error. */
int atomic_file_close(atomic_file *af, sam_error *err);

/* Renames the closed temporary file over the target. */
int atomic_file_publish(atomic_file *af, sam_error *err);

/* Closes and removes the temporary file; safe after any of the above and
 * on a zeroed struct. Frees the names. */
void atomic_file_discard(atomic_file *af);

#endif
