/* Command-line options: `--name VALUE` or `--name=VALUE`, parsed without
 * getopt's global state so that every command owns its own loop. */
#ifndef SAMSIM_ARGS_H
#define SAMSIM_ARGS_H

#include <stdint.h>

#include "../common/error.h"
#include "../formats/tensor.h"
#include "../engine/engine.h"

/* 1 when argv[*i] is option `name` (then *value is its value and *i has
 * moved past it), 0 when it is another argument, -1 when the value is
 * missing. */
int args_option(int argc, char **argv, int *i, const char *name, const char **value,
                sam_error *err);

int args_int64(const char *opt, const char *s, int64_t *out, sam_error *err);
int args_uint64(const char *opt, const char *s, uint64_t *out, sam_error *err);
int args_double(const char *opt, const char *s, double *out, sam_error *err);

/* A shape "250x100" or "12x10x9" (or "2000" for a vector). */
int args_shape(const char *opt, const char *s, int *order, int64_t dims[TENSOR_MAX_ORDER],
               sam_error *err);

/* --engine's value: event, step or cycle. */
int args_engine(const char *s, engine_mode *out, sam_error *err);

/* Prints "samsim: MESSAGE" on standard error and returns exit status 1. */
int args_fail(const sam_error *err);

#endif
