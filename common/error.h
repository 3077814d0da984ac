/* Error reports: every failure below the command line is described once,
 * where it is found, as one line "FILE:LINE: problem" (or "FILE: problem"),
 * and handed up unchanged to whoever prints it. */
#ifndef SAMSIM_ERROR_H
#define SAMSIM_ERROR_H

#include <stddef.h>

typedef struct sam_error {
    char msg[512];
} sam_error;

/* Formats the message and returns -1, so that callers can write
 * `return error_at(err, path, line, "...")`. line <= 0 omits the line. */
int error_at(sam_error *err, const char *path, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The same without a file: for problems of arguments or of a whole tensor. */
int error_set(sam_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Puts "path: " in front of a message set without a file; returns -1. */
int error_prefix(sam_error *err, const char *path);

/* Puts a formatted context and ": " in front of the message; returns -1. */
int error_wrap(sam_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Allocation that reports failure through err instead of crashing. */
void *error_alloc(sam_error *err, size_t count, size_t size);

#endif
