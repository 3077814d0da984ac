/* The keys a sweep spec may set (README: Sweeps) and what their values
 * must be: yes or no, whole numbers, engines, or any value. Problems are
 * "FILE:LINE: problem" naming the key and the value, so that a spec is
 * refused at its line before any job runs. */
#ifndef SAMSIM_SWEEP_KEYS_H
#define SAMSIM_SWEEP_KEYS_H

#include "../common/error.h"

typedef enum sweep_key_kind {
    KEY_TEXT,       /* read by compile, template or run */
    KEY_VAR,        /* var.NAME: only named */
    KEY_PATH,       /* graph, data, hw, config */
    KEY_TENSOR,     /* a file, a number or `gen KIND ARGS` */
    KEY_YESNO,
    KEY_COUNT,      /* a whole number >= 1 */
    KEY_SECONDS,
    KEY_ENGINE
} sweep_key_kind;

typedef struct sweep_key {
    const char *name;       /* a trailing '.' takes any name after it */
    sweep_key_kind kind;
} sweep_key;

/* The key's declaration, or NULL when a spec may not set it. */
const sweep_key *sweep_key_find(const char *key);

/* Whether value (references replaced) suits key k; else -1 with err
 * "PATH:LINE: ..." naming key and value. */
int sweep_key_check(const sweep_key *k, const char *key, const char *value, const char *path,
                    long line, sam_error *err);

/* Whether a value of k names a file (made absolute from the spec's
 * directory): a tensor's number or generator does not. */
int sweep_key_is_path(const sweep_key *k, const char *value);

#endif
