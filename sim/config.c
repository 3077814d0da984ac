#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/keyval.h"
#include "../graph/graph_build.h"
#include "registry.h"

/* Names every block type takes, read by the builder and the engine. */
static const char *const generic_names[] = {"impl", "ii", "latency", "capacity"};
#define NGENERIC (sizeof generic_names / sizeof generic_names[0])


int sim_config_add(sim_config *c, const char *key, const char *value, const char *origin,
                   sam_error *err)
{
    const char *dot = strrchr(key, '.');
    if (!dot || dot == key || !dot[1])
        return error_set(err, "%s: '%s' is not SCOPE.NAME (channel.capacity, intersect.impl, "
                         "node.7.ii, ...)", origin, key);
    if (!*value)
        return error_set(err, "%s: %s has no value", origin, key);
    sim_setting *items = grow_array(c->items, (size_t)c->n, &c->cap, sizeof *items, 8);
    if (!items)
        return error_set(err, "out of memory");
    c->items = items;
    sim_setting *s = &items[c->n];
    s->scope = strndup(key, (size_t)(dot - key));
    s->name = strdup(dot + 1);
    s->value = strdup(value);
    s->origin = strdup(origin);
    c->n++;
    if (!s->scope || !s->name || !s->value || !s->origin)
        return error_set(err, "out of memory");
    return 0;
}

static int add_line(void *ctx, const char *key, const char *value, const char *origin,
                    sam_error *err)
{
    return sim_config_add(ctx, key, value, origin, err);
}

int sim_config_read(sim_config *c, const char *path, sam_error *err)
{
    return keyval_read(path, add_line, c, err);
}

/* Whether some implementation of type declares parameter name. */
static int type_has_param(const char *type, const char *name)
{
    for (int i = 0; i < registry_count(); i++) {
        const block_ops *ops = registry_at(i);
        if (strcmp(ops->type, type))
            continue;
        for (const block_param *p = ops->params; p && p->name; p++)
            if (!strcmp(p->name, name))
                return 1;
    }
    return 0;
}

static int type_has_impl(const char *type, const char *impl)
{
    for (int i = 0; i < registry_count(); i++)
        if (!strcmp(registry_at(i)->type, type) && !strcmp(registry_at(i)->impl, impl))
            return 1;
    return 0;
}

static int type_known(const char *type)
{
    for (int i = 0; i < registry_count(); i++)
        if (!strcmp(registry_at(i)->type, type))
            return 1;
    return 0;
}

/* The value of setting s as a whole number: a capacity, or a number of
 * cycles that is at least 1 for an initiation interval or a channel's
 * latency. */
static int whole_number(const sim_setting *s, uint64_t *v, sam_error *err)
{
    uint64_t lowest = !strcmp(s->name, "ii") ||
                      (!strcmp(s->scope, "channel") && !strcmp(s->name, "latency"));
    uint64_t highest = !strcmp(s->name, "capacity") ? CAPACITY_MAX : TIMING_MAX;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s->value, &end, 10);
    if (!*s->value || *end || *s->value == '-' || errno || x < lowest || x > highest)
        return error_set(err, "%s: %s.%s must be a whole number %llu..%llu, not '%s'", s->origin,
                         s->scope, s->name, (unsigned long long)lowest,
                         (unsigned long long)highest, s->value);
    *v = x;
    return 0;
}

/* Whether setting s may be given to nodes of type. */
static int check_for_type(const sim_setting *s, const char *type, sam_error *err)
{
    uint64_t v;
    if (!type_known(type))
        return error_set(err, "%s: '%s' is not a block type (samsim blocks lists them)",
                         s->origin, type);
    if (!strcmp(s->name, "impl"))
        return type_has_impl(type, s->value)
                   ? 0
                   : error_set(err, "%s: %s has no implementation '%s' (samsim blocks lists "
                               "them)", s->origin, type, s->value);
    for (size_t k = 1; k < NGENERIC; k++)
        if (!strcmp(s->name, generic_names[k]))
            return whole_number(s, &v, err);
    if (!type_has_param(type, s->name))
        return error_set(err, "%s: %s has no setting '%s' (impl, ii, latency, capacity or a "
                         "parameter samsim blocks lists)", s->origin, type, s->name);
    return 0;
}

static int apply_channel(const sim_setting *s, sim_options *o, sam_error *err)
{
    uint64_t v;
    if (strcmp(s->name, "capacity") && strcmp(s->name, "latency"))
        return error_set(err, "%s: channel has no setting '%s' (capacity, latency)", s->origin,
                         s->name);
    if (whole_number(s, &v, err))
        return -1;
    if (!strcmp(s->name, "capacity"))
        o->depth = v;
    else
        o->latency = (uint32_t)v;
    return 0;
}

/* Applies s to node n, or to every node of type s->scope when n < 0. */
static int apply_nodes(const sim_setting *s, sam_graph *g, int n, sam_error *err)
{
    if (n >= 0)
        return graph_node_put(g, n, s->name, s->value, err);
    for (int i = 0; i < g->nnodes; i++)
        if (!strcmp(g->nodes[i].type, s->scope) && graph_node_put(g, i, s->name, s->value, err))
            return -1;
    return 0;
}

/* Applies the settings of one kind: channel and type ones (nodes == 0),
 * or node ones (nodes == 1). */
static int apply_pass(const sim_config *c, sam_graph *g, sim_options *o, int nodes,
                      sam_error *err)
{
    for (int k = 0; k < c->n; k++) {
        const sim_setting *s = &c->items[k];
        int is_node = !strncmp(s->scope, "node.", 5);
        if (is_node != nodes)
            continue;
        if (!is_node && !strcmp(s->scope, "channel")) {
            if (apply_channel(s, o, err))
                return -1;
            continue;
        }
        int n = is_node ? graph_node_index(g, s->scope + 5) : -1;
        if (is_node && n < 0)
            return error_set(err, "%s: %s has no node '%s'", s->origin, g->path, s->scope + 5);
        if (check_for_type(s, is_node ? g->nodes[n].type : s->scope, err) ||
            apply_nodes(s, g, n, err))
            return -1;
    }
    return 0;
}

int sim_config_apply(const sim_config *c, sam_graph *g, sim_options *o, sam_error *err)
{
    return apply_pass(c, g, o, 0, err) || apply_pass(c, g, o, 1, err) ? -1 : 0;
}

void sim_config_free(sim_config *c)
{
    for (int k = 0; k < c->n; k++) {
        free(c->items[k].scope);
        free(c->items[k].name);
        free(c->items[k].value);
        free(c->items[k].origin);
    }
    free(c->items);
    memset(c, 0, sizeof *c);
}
