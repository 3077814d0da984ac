#include "block.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int block_error(const block *b, sam_error *err, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return error_set(err, "node %s (%s): %s", b->node->id, b->node->type, what);
}

const char *block_attr(const block_ctx *ctx, const char *key, sam_error *err)
{
    const char *v = graph_node_attr(ctx->node, key);
    if (!v)
        error_set(err, "node %s (%s): attribute %s is missing", ctx->node->id, ctx->node->type,
                  key);
    return v;
}

int block_attr_int(const block_ctx *ctx, const char *key, int64_t *v, sam_error *err)
{
    const char *s = block_attr(ctx, key, err);
    if (!s)
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end || errno)
        return error_set(err, "node %s (%s): attribute %s='%s' is not an integer", ctx->node->id,
                         ctx->node->type, key, s);
    *v = x;
    return 0;
}

const fiber_level *block_level(const block_ctx *ctx, const char *name, int mode,
                               const fibertree **tree, sam_error *err)
{
    const fibertree *ft = ctx->tensor(ctx, name);
    if (!ft) {
        error_set(err, "node %s (%s): tensor %s is not bound to data", ctx->node->id,
                  ctx->node->type, name);
        return NULL;
    }
    *tree = ft;
    for (int k = 0; k < ft->order; k++)
        if (ft->lv[k].mode == mode)
            return &ft->lv[k];
    error_set(err, "node %s (%s): tensor %s has no mode %d", ctx->node->id, ctx->node->type,
              name, mode);
    return NULL;
}

int block_port_by_kind(block *b, const graph_edge *e, int input, const char *const *kinds,
                       int n, sam_error *err)
{
    for (int p = 0; p < n; p++)
        if (!strcmp(kinds[p], e->kind))
            return p;
    return block_error(b, err, "no %s port for a %s stream (edge label '%s')",
                       input ? "input" : "output", e->kind, e->label);
}

int block_sink_port(block *b, const graph_edge *e, int input, const char *kind, sam_error *err)
{
    if (!input)
        return block_error(b, err, "a writer has no outputs");
    return block_port_by_kind(b, e, 1, &kind, 1, err);
}

int block_closing_stop(block *b, int port, cycle_t now, token *stop)
{
    token head;
    if (!in_peek(b, port, now, &head))
        return 0;
    *stop = token_stop(0);
    if (token_is_stop(head)) {
        in_pop(b, port, now);
        *stop = token_stop(head.level + 1);
    }
    return 1;
}

int block_param_get(const block *b, const block_ctx *ctx, const char *name, int64_t *v,
                    sam_error *err)
{
    const block_param *p = b->ops->params;
    while (p && p->name && strcmp(p->name, name))
        p++;
    if (!p || !p->name)
        return block_error(b, err, "reads parameter %s, which %s does not declare", name,
                           b->ops->impl);
    *v = p->def;
    if (graph_node_attr(ctx->node, name) && block_attr_int(ctx, name, v, err))
        return -1;
    if (*v < p->min || *v > p->max)
        return block_error(b, err, "%s=%lld is not %lld to %lld", name, (long long)*v,
                           (long long)p->min, (long long)p->max);
    return 0;
}
