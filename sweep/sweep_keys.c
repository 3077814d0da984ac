#include "sweep_keys.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/number.h"
#include "../builder/config.h"
#include "../hwmodel/hw.h"
#include "../templates/template.h"
#include "../common/words.h"

static const sweep_key sweep_keys[] = {
    {"graph", KEY_PATH, 0},       {"expr", KEY_TEXT, 0},         {"format", KEY_TEXT, 0},
    {"schedule", KEY_TEXT, 0},    {"template", KEY_TEMPLATE, 1}, {"template.", KEY_PARAM, 1},
    {"tensor.", KEY_TENSOR, 1},   {"data", KEY_PATH, 0},         {"shift", KEY_YESNO, 0},
    {"impl", KEY_IMPL, 0},        {"hw", KEY_PATH, 0},           {"hw.", KEY_HW, 0},
    {"config", KEY_PATH, 0},      {"config.", KEY_CONFIG, 0},    {"tile", KEY_TEXT, 0},
    {"engine", KEY_ENGINE, 1},    {"depth", KEY_COUNT, 0},       {"latency", KEY_COUNT, 0},
    {"max-cycles", KEY_COUNT, 0}, {"check", KEY_YESNO, 1},       {"timeout", KEY_SECONDS, 1},
    {"stats", KEY_YESNO, 1},      {"var.", KEY_VAR, 1},
};

const sweep_key *sweep_key_find(const char *key)
{
    for (size_t i = 0; i < sizeof sweep_keys / sizeof sweep_keys[0]; i++) {
        const char *n = sweep_keys[i].name;
        size_t len = strlen(n);
        if (n[len - 1] == '.' ? !strncmp(key, n, len) && key[len] : !strcmp(key, n))
            return &sweep_keys[i];
    }
    return NULL;
}

static int is_number(const char *s, int whole)
{
    double v;
    if (number_parse(s, &v))
        return 0;
    return !whole || (v >= 1 && v <= 9e15 && v == (double)(int64_t)v && !strpbrk(s, ".eE"));
}

int sweep_key_is_path(const sweep_key *k, const char *value)
{
    return k->kind == KEY_PATH ||
           (k->kind == KEY_TENSOR && !is_number(value, 0) && strncmp(value, "gen ", 4));
}

/* The kinds a value is checked by its spelling alone: what it must be, or
 * NULL when v is that. */
static const char *spelling_problem(sweep_key_kind kind, const char *v)
{
    double seconds;
    switch (kind) {
    case KEY_YESNO:
        return strcmp(v, "yes") && strcmp(v, "no") ? "yes or no" : NULL;
    case KEY_COUNT:
        return is_number(v, 1) ? NULL : "a whole number >= 1";
    case KEY_SECONDS:
        return !number_parse(v, &seconds) && seconds > 0 ? NULL : "a number of seconds > 0";
    case KEY_ENGINE:
        return strcmp(v, "event") && strcmp(v, "step") && strcmp(v, "cycle")
                   ? "event, step or cycle"
                   : NULL;
    default:
        return *v ? NULL : "a value";
    }
}

/* hw.KEY as a line of a --hw file: a declared key in its range. */
static int check_hw(const char *key, const char *value, const char *origin, sam_error *err)
{
    hw_desc hw;
    hw_defaults(&hw);
    return hw_set(&hw, key, value, origin, err);
}

/* config.KEY as a line of a --config file. Settings of a node need its
 * graph; those of channels and block types are checked against the block
 * registry, as run checks them, by applying them to a graph of no nodes. */
static int check_setting(const char *key, const char *value, const char *origin,
                         sam_error *err)
{
    sim_config c = {0};
    int rc = sim_config_add(&c, key, value, origin, err);
    if (!rc && strncmp(key, "node.", 5)) {
        sam_graph none = {0};
        sim_options unused = {0};
        rc = sim_config_apply(&c, &none, &unused, err);
    }
    sim_config_free(&c);
    return rc;
}

/* impl: each TYPE=NAME is the setting TYPE.impl = NAME. */
static int check_impls(const char *value, const char *origin, sam_error *err)
{
    for (const char *s = value; *s;) {
        s += strspn(s, " \t");
        size_t n = strcspn(s, " \t");
        if (!n)
            break;
        char word[256], key[300];
        snprintf(word, sizeof word, "%.*s", (int)n, s);
        char *eq = strchr(word, '=');
        if (!eq || eq == word || !eq[1])
            return error_set(err, "%s: '%s' is not TYPE=NAME", origin, word);
        *eq = '\0';
        snprintf(key, sizeof key, "%s.impl", word);
        if (check_setting(key, eq + 1, origin, err))
            return -1;
        s += n;
    }
    return 0;
}

static int check_template_name(const char *value, const char *path, long line, sam_error *err)
{
    if (template_find(value))
        return 0;
    char names[128] = "";
    for (int i = 0; templates[i]; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 templates[i]->name);
    return error_at(err, path, line, "key 'template': no template '%s' (there are %s)", value,
                    names);
}

/* tensor.NAME = gen KIND ARGS: the arguments as samsim gen takes them. */
static int check_gen(const char *key, const char *value, const char *path, long line,
                     const sweep_arg_checks *checks, sam_error *err)
{
    words w = {0};
    int rc = words_split(&w, "", value + 4, err) || checks->gen((int)w.n, w.v, err);
    words_free(&w);
    return rc ? error_wrap(err, "%s:%ld: key '%s'", path, line, key) : 0;
}

int sweep_key_check(const sweep_key *k, const char *key, const char *value, const char *path,
                    long line, const sweep_arg_checks *checks, sam_error *err)
{
    const char *problem = spelling_problem(k->kind, value);
    if (problem)
        return error_at(err, path, line, "key '%s': '%s' is not %s", key, value, problem);
    if (k->kind == KEY_TENSOR && !strncmp(value, "gen ", 4))
        return check_gen(key, value, path, line, checks, err);
    if (k->kind != KEY_HW && k->kind != KEY_CONFIG && k->kind != KEY_IMPL)
        return k->kind == KEY_TEMPLATE ? check_template_name(value, path, line, err) : 0;
    char origin[1200];
    snprintf(origin, sizeof origin, "%s:%ld: %s", path, line,
             k->kind == KEY_HW ? "hw" : k->kind == KEY_CONFIG ? "config" : "impl");
    switch (k->kind) {
    case KEY_HW:
        return check_hw(key + 3, value, origin, err);
    case KEY_CONFIG:
        return check_setting(key + 7, value, origin, err);
    default:
        return check_impls(value, origin, err);
    }
}

int sweep_keys_check_template(const char *path, long line, const char *name,
                              const sweep_param *params, size_t n, sam_error *err)
{
    const template_def *t = template_find(name);
    if (!t)
        return check_template_name(name, path, line, err);
    double values[TEMPLATE_MAX_PARAMS];
    template_defaults(t, values);
    for (size_t i = 0; i < n; i++) {
        char assignment[1024];
        snprintf(assignment, sizeof assignment, "%s=%s", params[i].key + 9, params[i].value);
        if (template_set(t, values, assignment, err))
            return error_wrap(err, "%s:%ld", path, params[i].line);
    }
    if (!template_check(t, values, err))
        return 0;
    char set[256] = "";
    for (size_t i = 0, n_set = 0; i < n && n_set < sizeof set; i++)
        n_set += (size_t)snprintf(set + n_set, sizeof set - n_set, " %s=%s", params[i].key + 9,
                                  params[i].value);
    return error_wrap(err, "%s:%ld: with%s", path, line, *set ? set : " its defaults");
}

/* A tile's splits and tile order replace the schedule's, as run's --tile
 * replaces the graph's: the schedule's other directives, then the tile's,
 * as compile's -s arguments. */
static int add_schedule(words *w, const char *schedule, const char *tile, sam_error *err)
{
    words all = {0};
    int rc = words_split(&all, "-s=", schedule, err);
    for (size_t i = 0; !rc && i < all.n; i++)
        if (!tile || (strncmp(all.v[i], "-s=split(", 9) && strncmp(all.v[i], "-s=tileorder(", 13)))
            rc = words_add(w, all.v[i], err);
    words_free(&all);
    return rc || words_split(w, "-s=", tile, err);
}

int sweep_keys_check_compile(const char *path, long line, const char *expr, const char *format,
                             const char *schedule, const char *tile,
                             const sweep_arg_checks *checks, sam_error *err)
{
    words w = {0};
    int rc = words_add(&w, expr, err) || words_split(&w, "-f=", format, err) ||
             add_schedule(&w, schedule, tile, err) || checks->compile((int)w.n, w.v, err);
    words_free(&w);
    if (!rc)
        return 0;
    const char *names[] = {"format", "schedule", "tile"}, *values[] = {format, schedule, tile};
    char with[512] = "";
    for (size_t i = 0, n = 0; i < 3 && n < sizeof with; i++)
        if (values[i])
            n += (size_t)snprintf(with + n, sizeof with - n, " %s=%s", names[i], values[i]);
    return error_wrap(err, "%s:%ld: with expr=%s%s", path, line, expr, with);
}
