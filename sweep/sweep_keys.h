/* The keys a sweep spec may set (doc/sweeps.md) and what their values
 * must be. A value is checked as the step that reads it would check it,
 * wherever that needs no data: kinds (yes or no, whole numbers, engines),
 * --hw keys as samsim run reads them, --config keys of channels and block
 * types, implementations, templates and their parameters, generators'
 * arguments, and an expression with its formats, schedule and tile as
 * compile takes them. Problems are
 * "FILE:LINE: problem" naming the key and the value, so that a spec is
 * refused at its line before any job runs. */
#ifndef SAMSIM_SWEEP_KEYS_H
#define SAMSIM_SWEEP_KEYS_H

#include <stddef.h>

#include "../common/error.h"

typedef enum sweep_key_kind {
    KEY_TEXT,       /* expr, format, schedule, tile: read by compile or run */
    KEY_VAR,        /* var.NAME: only named */
    KEY_PATH,       /* graph, data, hw, config */
    KEY_TENSOR,     /* a file, a number or `gen KIND ARGS` */
    KEY_YESNO,
    KEY_COUNT,      /* a whole number >= 1 */
    KEY_SECONDS,
    KEY_ENGINE,
    KEY_HW,         /* hw.KEY */
    KEY_CONFIG,     /* config.KEY */
    KEY_IMPL,       /* blank-separated TYPE=NAME */
    KEY_TEMPLATE,   /* a template's name */
    KEY_PARAM       /* template.KEY: checked with the job's template */
} sweep_key_kind;

typedef struct sweep_key {
    const char *name;       /* a trailing '.' takes any name after it */
    sweep_key_kind kind;
    int with_template;      /* a template run reads it too */
} sweep_key;

/* The command line's own checks of a compile's and a gen's arguments: a
 * sweep checks its steps as the commands will read them. Each returns 0,
 * or -1 with err set. */
typedef struct sweep_arg_checks {
    int (*compile)(int argc, char **argv, sam_error *err);
    int (*gen)(int argc, char **argv, sam_error *err);
} sweep_arg_checks;

/* The key's declaration, or NULL when a spec may not set it. */
const sweep_key *sweep_key_find(const char *key);

/* Whether value (references replaced) suits key k, a generator's
 * arguments by checks->gen; else -1 with err "PATH:LINE: ..." naming key
 * and value. */
int sweep_key_check(const sweep_key *k, const char *key, const char *value, const char *path,
                    long line, const sweep_arg_checks *checks, sam_error *err);

/* Whether a value of k names a file (made absolute from the spec's
 * directory): a tensor's number or generator does not. */
int sweep_key_is_path(const sweep_key *k, const char *value);

/* One template.KEY of a job and the line that set it. */
typedef struct sweep_param {
    const char *key, *value;
    long line;
} sweep_param;

/* Whether template name takes these parameters, each in its range and all
 * together making hardware samsim run accepts; a parameter's problem
 * names its line, the combination's the template's line. */
int sweep_keys_check_template(const char *path, long line, const char *name,
                              const sweep_param *params, size_t n, sam_error *err);

/* Whether checks->compile takes the expression with these formats and
 * schedule (NULL: none), the tile's splits in place of the schedule's, as
 * a job compiles and runs them; a problem names the expression's line and
 * the values. */
int sweep_keys_check_compile(const char *path, long line, const char *expr, const char *format,
                             const char *schedule, const char *tile,
                             const sweep_arg_checks *checks, sam_error *err);

#endif
