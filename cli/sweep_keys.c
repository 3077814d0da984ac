#include "sweep_keys.h"

#include <stdint.h>
#include <string.h>

#include "../common/number.h"

static const sweep_key sweep_keys[] = {
    {"graph", KEY_PATH},       {"expr", KEY_TEXT},       {"format", KEY_TEXT},
    {"schedule", KEY_TEXT},    {"template", KEY_TEXT},   {"template.", KEY_TEXT},
    {"tensor.", KEY_TENSOR},   {"data", KEY_PATH},       {"shift", KEY_YESNO},
    {"impl", KEY_TEXT},        {"hw", KEY_PATH},         {"hw.", KEY_TEXT},
    {"config", KEY_PATH},      {"config.", KEY_TEXT},    {"tile", KEY_TEXT},
    {"engine", KEY_ENGINE},    {"depth", KEY_COUNT},     {"latency", KEY_COUNT},
    {"max-cycles", KEY_COUNT}, {"check", KEY_YESNO},     {"timeout", KEY_SECONDS},
    {"stats", KEY_YESNO},      {"var.", KEY_VAR},
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

/* What a value of kind must be, or NULL when v is that. */
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

int sweep_key_check(const sweep_key *k, const char *key, const char *value, const char *path,
                    long line, sam_error *err)
{
    const char *problem = spelling_problem(k->kind, value);
    return problem ? error_at(err, path, line, "key '%s': '%s' is not %s", key, value, problem)
                   : 0;
}
