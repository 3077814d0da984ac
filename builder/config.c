#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/keyval.h"
#include "../common/number.h"
#include "../graph/graph_build.h"
#include "../blocks/registry.h"

/* Names every block type takes, read by the builder and the engine. */
static const char *const generic_names[] = {"impl", "ii", "latency", "capacity"};
#define NGENERIC (sizeof generic_names / sizeof generic_names[0])

/* The word width of the bitvector blocks belongs to their streams, which
 * every block on them must read alike (the builder refuses a stream whose
 * ends disagree). So it is set for all of them at once (bitvector.width)
 * or per node, and a type's `width` leaves them alone: for fiberlookup it
 * is the vector scanner's coordinates a cycle, and fiberlookup.width
 * reaching the bitvector scanners but not the blocks they feed broke
 * every bitvector graph. */
#define BITVECTOR_SCOPE "bitvector"
#define WORD_WIDTH "width"

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

/* Whether implementation ops declares parameter name. */
static const param *ops_param(const block_ops *ops, const char *name)
{
    return param_find(ops->params, name, strlen(name));
}

/* Whether ops's parameter name is the word width of bitvector streams. */
static int is_word_width(const block_ops *ops, const char *name)
{
    return ops->word_width && !strcmp(name, WORD_WIDTH);
}

/* Whether some implementation of type declares parameter name; with
 * per_type, one that a type's setting reaches (not a word width). */
static int type_has_param(const char *type, const char *name, int per_type)
{
    for (int i = 0; i < registry_count(); i++) {
        const block_ops *ops = registry_at(i);
        if (!strcmp(ops->type, type) && ops_param(ops, name) &&
            !(per_type && is_word_width(ops, name)))
            return 1;
    }
    return 0;
}

/* The implementation that serves node n with the settings so far, or
 * NULL when none does (the build says why). */
static const block_ops *node_ops(const graph_node *n)
{
    sam_error ignored;
    return registry_find(n, graph_node_attr(n, "impl"), &ignored);
}

/* Whether a setting of scope (a block type or bitvector) reaches node n:
 * the bitvector blocks' word width only by bitvector.width. */
static int reaches(const sim_setting *s, const graph_node *n)
{
    const block_ops *ops;
    if (!strcmp(s->scope, BITVECTOR_SCOPE))
        return (ops = node_ops(n)) && ops->word_width;
    if (strcmp(n->type, s->scope))
        return 0;
    return strcmp(s->name, WORD_WIDTH) || !(ops = node_ops(n)) || !ops->word_width;
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
    long long lowest = !strcmp(s->name, "ii") ||
                       (!strcmp(s->scope, "channel") && !strcmp(s->name, "latency"));
    long long highest = !strcmp(s->name, "capacity") ? CAPACITY_MAX : TIMING_MAX, x;
    if (number_parse_whole(s->value, lowest, highest, &x))
        return error_set(err, "%s: %s.%s must be a whole number %lld..%lld, not '%s'", s->origin,
                         s->scope, s->name, lowest, highest, s->value);
    *v = (uint64_t)x;
    return 0;
}

/* Whether bitvector.NAME = VALUE is the word width, in its range. */
static int check_bitvector(const sim_setting *s, sam_error *err)
{
    const param *p = NULL;
    for (int i = 0; !p && i < registry_count(); i++)
        if (is_word_width(registry_at(i), s->name))
            p = ops_param(registry_at(i), s->name);
    if (!p)
        return error_set(err, "%s: " BITVECTOR_SCOPE " has no setting '%s' (" WORD_WIDTH ")",
                         s->origin, s->name);
    long long x;
    if (number_parse_whole(s->value, (long long)p->min, (long long)p->max, &x))
        return error_set(err, "%s: " BITVECTOR_SCOPE "." WORD_WIDTH " must be a whole number "
                         "%lld..%lld, not '%s'", s->origin, (long long)p->min,
                         (long long)p->max, s->value);
    return 0;
}

/* Whether setting s may be given to nodes of type: one node's (per_type
 * 0) or every node's of the type. */
static int check_for_type(const sim_setting *s, const char *type, int per_type, sam_error *err)
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
    if (type_has_param(type, s->name, per_type))
        return 0;
    if (type_has_param(type, s->name, 0))
        return error_set(err, "%s: %s.%s: the word width of bitvector blocks is their streams', "
                         "set for all of them (" BITVECTOR_SCOPE "." WORD_WIDTH ") or for one "
                         "node (node.ID." WORD_WIDTH ")", s->origin, type, s->name);
    return error_set(err, "%s: %s has no setting '%s' (impl, ii, latency, capacity or a "
                     "parameter samsim blocks lists)", s->origin, type, s->name);
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

/* Applies s to node n, or to every node it reaches when n < 0. */
static int apply_nodes(const sim_setting *s, sam_graph *g, int n, sam_error *err)
{
    if (n >= 0)
        return graph_node_put(g, n, s->name, s->value, err);
    for (int i = 0; i < g->nnodes; i++)
        if (reaches(s, &g->nodes[i]) && graph_node_put(g, i, s->name, s->value, err))
            return -1;
    return 0;
}

/* The order settings apply in: implementations first, since the one that
 * serves a node decides what reaches it; type-wide ones before node ones
 * (which win). */
enum { PASS_TYPE_IMPL, PASS_NODE_IMPL, PASS_TYPE, PASS_NODE, NPASSES };

static int pass_of(const sim_setting *s)
{
    int node = !strncmp(s->scope, "node.", 5), impl = !strcmp(s->name, "impl");
    return impl ? (node ? PASS_NODE_IMPL : PASS_TYPE_IMPL) : (node ? PASS_NODE : PASS_TYPE);
}

static int apply_one(const sim_setting *s, sam_graph *g, sim_options *o, sam_error *err)
{
    if (!strcmp(s->scope, "channel"))
        return apply_channel(s, o, err);
    if (!strcmp(s->scope, BITVECTOR_SCOPE))
        return check_bitvector(s, err) || apply_nodes(s, g, -1, err) ? -1 : 0;
    int is_node = !strncmp(s->scope, "node.", 5);
    int n = is_node ? graph_node_index(g, s->scope + 5) : -1;
    if (is_node && n < 0)
        return error_set(err, "%s: %s has no node '%s'", s->origin, g->path, s->scope + 5);
    if (check_for_type(s, is_node ? g->nodes[n].type : s->scope, !is_node, err) ||
        apply_nodes(s, g, n, err))
        return -1;
    return 0;
}

int sim_config_apply(const sim_config *c, sam_graph *g, sim_options *o, sam_error *err)
{
    for (int pass = 0; pass < NPASSES; pass++)
        for (int k = 0; k < c->n; k++)
            if (pass_of(&c->items[k]) == pass && apply_one(&c->items[k], g, o, err))
                return -1;
    return 0;
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
