#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

int strbuf_add(strbuf *b, const char *s, size_t n, sam_error *err)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->s, cap);
        if (!grown)
            return error_set(err, "out of memory");
        b->s = grown;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

void strbuf_free(strbuf *b)
{
    free(b->s);
    *b = (strbuf){0};
}
