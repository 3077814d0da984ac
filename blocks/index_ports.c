#include "index_ports.h"

#include <string.h>

int index_ports_create(block *b, const block_ctx *ctx, index_names *names, sam_error *err)
{
    const char *outer = block_attr(ctx, "outer", err), *inner = block_attr(ctx, "inner", err);
    if (!outer || !inner)
        return -1;
    *names = (index_names){.outer = outer, .inner = inner};
    b->nin = b->nout = 2;
    b->in_names[INDEX_OUTER] = b->out_names[INDEX_OUTER] = "outer";
    b->in_names[INDEX_INNER] = b->out_names[INDEX_INNER] = "inner";
    return 0;
}

/* The last word of s, split at '-' and '_', that is one of the index
 * names: INDEX_OUTER, INDEX_INNER, or -1. */
static int named_index(const char *s, const index_names *names)
{
    int found = -1;
    while (*s) {
        size_t n = strcspn(s, "-_");
        if (n == strlen(names->outer) && !strncmp(s, names->outer, n))
            found = INDEX_OUTER;
        else if (n == strlen(names->inner) && !strncmp(s, names->inner, n))
            found = INDEX_INNER;
        s += n + (s[n] != '\0');
    }
    return found;
}

int index_ports_port(block *b, const index_names *names, const graph_edge *e, int input,
                     sam_error *err)
{
    int p = named_index(e->comment, names);
    if (p < 0)
        p = named_index(e->label, names);
    if (p < 0)
        return block_error(b, err, "%s edge '%s' names neither index %s nor %s",
                           input ? "input" : "output", e->label, names->outer, names->inner);
    return p;
}
