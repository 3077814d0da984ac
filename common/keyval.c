#include "keyval.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *keyval_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int read_line(const char *path, long line, char *text, keyval_fn *fn, void *ctx,
                     sam_error *err)
{
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    char *s = keyval_trim(text);
    if (!*s)
        return 0;
    char *eq = strchr(s, '=');
    if (!eq)
        return error_at(err, path, line, "expected KEY = VALUE, not '%s'", s);
    *eq = '\0';
    char origin[4200];
    snprintf(origin, sizeof origin, "%s:%ld", path, line);
    return fn(ctx, keyval_trim(s), keyval_trim(eq + 1), origin, err);
}

int keyval_read_text(const char *name, const char *text, keyval_fn *fn, void *ctx,
                     sam_error *err)
{
    char *copy = strdup(text);
    if (!copy)
        return error_set(err, "%s: out of memory", name);
    int rc = 0;
    char *s = copy;
    for (long line = 1; rc == 0 && *s; line++) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        rc = read_line(name, line, s, fn, ctx, err);
        s = nl ? nl + 1 : s + strlen(s);
    }
    free(copy);
    return rc;
}

int keyval_read(const char *path, keyval_fn *fn, void *ctx, sam_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return error_at(err, path, 0, "cannot open: %s", strerror(errno));
    char *text = NULL;
    size_t cap = 0;
    int rc = 0;
    ssize_t len;
    for (long line = 1; rc == 0 && (len = getline(&text, &cap, f)) >= 0; line++)
        rc = strlen(text) != (size_t)len ? error_at(err, path, line, "a NUL byte in the line")
                                         : read_line(path, line, text, fn, ctx, err);
    if (rc == 0 && ferror(f))
        rc = error_at(err, path, 0, "cannot read: %s", strerror(errno));
    free(text);
    fclose(f);
    return rc;
}
