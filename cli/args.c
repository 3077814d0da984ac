#include "args.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int args_option(int argc, char **argv, int *i, const char *name, const char **value,
                sam_error *err)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return error_set(err, "option %s needs a value", name);
    /* `-f -o x` forgot -f's value: taking "-o" would hide the mistake. A
     * lone "-" (standard output) and negative numbers are values. */
    const char *next = argv[*i + 1];
    if (next[0] == '-' && next[1] && !isdigit((unsigned char)next[1]) && next[1] != '.')
        return error_set(err, "option %s needs a value, not the option '%s' (write %s=VALUE for "
                         "a value that starts with '-')", name, next, name);
    *i += 1;
    *value = argv[*i];
    return 1;
}

int args_engine(const char *s, engine_mode *out, sam_error *err)
{
    for (int m = 0; m < ENGINE_MODES; m++)
        if (!strcmp(s, engine_names[m]))
            return *out = (engine_mode)m, 0;
    return error_set(err, "run: --engine is event, step or cycle, not '%s'", s);
}

int args_int64(const char *opt, const char *s, int64_t *out, sam_error *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno)
        return error_set(err, "%s: '%s' is not an integer", opt, s);
    *out = v;
    return 0;
}

int args_uint64(const char *opt, const char *s, uint64_t *out, sam_error *err)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s == '\0' || *s == '-' || *end != '\0' || errno)
        return error_set(err, "%s: '%s' is not a non-negative integer", opt, s);
    *out = v;
    return 0;
}

int args_double(const char *opt, const char *s, double *out, sam_error *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno)
        return error_set(err, "%s: '%s' is not a number", opt, s);
    *out = v;
    return 0;
}

int args_shape(const char *opt, const char *s, int *order, int64_t dims[TENSOR_MAX_ORDER],
               sam_error *err)
{
    const char *p = s;
    int n = 0;
    for (;;) {
        char *end;
        errno = 0;
        long long d = strtoll(p, &end, 10);
        if (end == p || errno || d < 1)
            return error_set(err, "%s: '%s' is not a shape like 250x100 (positive sizes)", opt, s);
        if (n == TENSOR_MAX_ORDER)
            return error_set(err, "%s: '%s' has more than %d dimensions", opt, s, TENSOR_MAX_ORDER);
        dims[n++] = d;
        if (*end == '\0')
            break;
        if (*end != 'x')
            return error_set(err, "%s: '%s' is not a shape like 250x100", opt, s);
        p = end + 1;
    }
    *order = n;
    return 0;
}

int args_fail(const sam_error *err)
{
    fprintf(stderr, "samsim: %s\n", err->msg);
    return 1;
}
