#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void error_format(sam_error *err, const char *prefix, const char *fmt, va_list ap)
{
    int n = snprintf(err->msg, sizeof err->msg, "%s", prefix);
    if (n < 0 || (size_t)n >= sizeof err->msg)
        return;
    vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
}

int error_at(sam_error *err, const char *path, long line, const char *fmt, ...)
{
    char prefix[300];
    if (line > 0)
        snprintf(prefix, sizeof prefix, "%s:%ld: ", path, line);
    else
        snprintf(prefix, sizeof prefix, "%s: ", path);
    va_list ap;
    va_start(ap, fmt);
    error_format(err, prefix, fmt, ap);
    va_end(ap);
    return -1;
}

int error_set(sam_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_format(err, "", fmt, ap);
    va_end(ap);
    return -1;
}

int error_wrap(sam_error *err, const char *fmt, ...)
{
    char context[300], msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof msg, "%s", err->msg);
    size_t n = strlen(context);
    if (n + 2 >= sizeof err->msg)
        n = sizeof err->msg - 3;
    memcpy(err->msg, context, n);
    memcpy(err->msg + n, ": ", 2);
    snprintf(err->msg + n + 2, sizeof err->msg - n - 2, "%.*s", (int)(sizeof err->msg - n - 3), msg);
    return -1;
}

int error_prefix(sam_error *err, const char *path)
{
    return error_wrap(err, "%s", path);
}

void *error_alloc(sam_error *err, size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        error_set(err, "out of memory (%zu x %zu bytes)", count, size);
    return p;
}
