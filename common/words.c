#include "words.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

int words_add(words *w, const char *s, sam_error *err)
{
    char **more = grow_array(w->v, w->n, &w->cap, sizeof *more, 16);
    if (!more)
        return error_set(err, "out of memory");
    w->v = more;
    if (!(w->v[w->n] = s ? strdup(s) : NULL) && s)
        return error_set(err, "out of memory");
    w->n++;
    return 0;
}

int words_add_new(words *w, const char *s, sam_error *err)
{
    for (size_t k = 0; k < w->n; k++)
        if (!strcmp(w->v[k], s))
            return 0;
    return words_add(w, s, err);
}

int words_addf(words *w, sam_error *err, const char *fmt, const char *a, const char *b)
{
    char buf[8192];
    if (snprintf(buf, sizeof buf, fmt, a, b) >= (int)sizeof buf)
        return error_set(err, "argument too long: %.60s...", buf);
    return words_add(w, buf, err);
}

int words_split(words *w, const char *prefix, const char *s, sam_error *err)
{
    while (s && *s) {
        while (isspace((unsigned char)*s))
            s++;
        size_t n = strcspn(s, " \t");
        if (n) {
            char buf[1024];
            snprintf(buf, sizeof buf, "%s%.*s", prefix, (int)n, s);
            if (words_add(w, buf, err))
                return -1;
        }
        s += n;
    }
    return 0;
}

void words_free(words *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->v[i]);
    free(w->v);
    memset(w, 0, sizeof *w);
}
