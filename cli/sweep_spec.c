/* realpath is an XSI function. */
#define _XOPEN_SOURCE 700
#include "sweep_spec.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/keyval.h"
#include "../common/number.h"

/* A key = value line, its alternatives, and the section it belongs to
 * (-1: above the first section, every job's). */
typedef struct spec_line {
    char *key;
    char **alts;
    size_t nalts;
    long line;
    int section;
} spec_line;

typedef struct spec_section {
    char *group, *name;
    long line;
} spec_section;

typedef struct spec {
    const char *path;
    char *dir;              /* absolute: relative paths start there */
    spec_line *lines;
    size_t nlines, cap;
    spec_section *sections;
    size_t nsections, scap;
    char **groups;          /* distinct group names, first seen first */
    size_t ngroups, gcap;
} spec;

/* ---- keys ------------------------------------------------------------- */

typedef enum key_kind { KEY_TEXT, KEY_PATH, KEY_YESNO, KEY_COUNT, KEY_SECONDS, KEY_ENGINE,
                        KEY_TENSOR } key_kind;

static const struct spec_key {
    const char *name;   /* a trailing '.' takes any name after it */
    key_kind kind;
} spec_keys[] = {
    {"graph", KEY_PATH},      {"expr", KEY_TEXT},        {"format", KEY_TEXT},
    {"schedule", KEY_TEXT},   {"template", KEY_TEXT},    {"template.", KEY_TEXT},
    {"tensor.", KEY_TENSOR},  {"data", KEY_PATH},        {"shift", KEY_YESNO},
    {"impl", KEY_TEXT},       {"hw", KEY_PATH},          {"hw.", KEY_TEXT},
    {"config", KEY_PATH},     {"config.", KEY_TEXT},     {"tile", KEY_TEXT},
    {"engine", KEY_ENGINE},   {"depth", KEY_COUNT},      {"latency", KEY_COUNT},
    {"max-cycles", KEY_COUNT}, {"check", KEY_YESNO},     {"timeout", KEY_SECONDS},
    {"stats", KEY_YESNO},
    {"var.", KEY_TEXT},
};

static const struct spec_key *key_find(const char *key)
{
    for (size_t i = 0; i < sizeof spec_keys / sizeof spec_keys[0]; i++) {
        const char *n = spec_keys[i].name;
        size_t len = strlen(n);
        if (n[len - 1] == '.' ? !strncmp(key, n, len) && key[len] : !strcmp(key, n))
            return &spec_keys[i];
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

static int key_value_ok(const struct spec_key *k, const char *v)
{
    switch (k->kind) {
    case KEY_YESNO:
        return !strcmp(v, "yes") || !strcmp(v, "no");
    case KEY_COUNT:
        return is_number(v, 1);
    case KEY_SECONDS:
        return is_number(v, 0) && strtod(v, NULL) > 0;
    case KEY_ENGINE:
        return !strcmp(v, "event") || !strcmp(v, "step") || !strcmp(v, "cycle");
    default:
        return *v != '\0';
    }
}

static const char *key_expects(key_kind kind)
{
    switch (kind) {
    case KEY_YESNO:
        return "yes or no";
    case KEY_COUNT:
        return "a whole number >= 1";
    case KEY_SECONDS:
        return "a number of seconds > 0";
    case KEY_ENGINE:
        return "event, step or cycle";
    default:
        return "a value";
    }
}

/* ---- alternatives ----------------------------------------------------- */

static int push_string(char ***list, size_t *n, size_t *cap, const char *s, sam_error *err)
{
    char **more = grow_array(*list, *n, cap, sizeof *more, 8);
    char *copy = more ? strdup(s) : NULL;
    if (!copy)
        return error_set(err, "out of memory");
    *list = more;
    (*list)[(*n)++] = copy;
    return 0;
}

/* "A..B", "A..B step S" or "A..B times F": 1 with its bounds, 0 when s is
 * no range. */
static int parse_range(const char *s, long long *a, long long *b, long long *by, int *times)
{
    char word[8] = "", rest[2];
    int n = sscanf(s, "%lld..%lld %7s %lld %1s", a, b, word, by, rest);
    if (n == 2 && strstr(s, "..")) {
        *by = 1;
        *times = 0;
        return strspn(s, "-0123456789.") == strlen(s);
    }
    if (n != 4)
        return 0;
    *times = !strcmp(word, "times");
    return *times || !strcmp(word, "step");
}

static int expand_range(spec_line *l, const char *path, const char *s, size_t *cap,
                        sam_error *err)
{
    long long a, b, by;
    int times;
    if (!parse_range(s, &a, &b, &by, &times))
        return push_string(&l->alts, &l->nalts, cap, s, err);
    if (a > b || (times ? by < 2 || a < 1 : by < 1))
        return error_at(err, path, l->line, "range '%s' is empty or never ends (%s)", s,
                        times ? "A <= B, A >= 1, F >= 2" : "A <= B, S >= 1");
    for (long long v = a; v <= b;) {
        if (l->nalts >= SWEEP_MAX_JOBS)
            return error_at(err, path, l->line, "range '%s' has more than %d values", s,
                            SWEEP_MAX_JOBS);
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", v);
        if (push_string(&l->alts, &l->nalts, cap, buf, err))
            return -1;
        if (times ? v > LLONG_MAX / by : v > LLONG_MAX - by)
            break;
        v = times ? v * by : v + by;
    }
    return 0;
}

static int parse_alternatives(spec_line *l, const char *path, char *value, sam_error *err)
{
    size_t cap = 0;
    for (char *alt = value, *bar; alt; alt = bar) {
        bar = strchr(alt, '|');
        if (bar)
            *bar++ = '\0';
        char *s = keyval_trim(alt);
        if (!*s)
            return error_at(err, path, l->line, "key '%s': an empty alternative", l->key);
        if (expand_range(l, path, s, &cap, err))
            return -1;
    }
    return 0;
}

/* ---- the file --------------------------------------------------------- */

static int find_group(const spec *s, const char *group)
{
    for (size_t g = 0; g < s->ngroups; g++)
        if (!strcmp(s->groups[g], group))
            return (int)g;
    return -1;
}

static int add_section(spec *s, char *text, long line, sam_error *err)
{
    size_t n = strlen(text);
    char *eq = strchr(text, '=');
    if (text[n - 1] != ']' || !eq)
        return error_at(err, s->path, line, "expected [GROUP=NAME], not '%s'", text);
    text[n - 1] = '\0';
    *eq = '\0';
    char *group = keyval_trim(text + 1), *name = keyval_trim(eq + 1);
    if (!*group || !*name || strpbrk(group, "{}|.") || strpbrk(name, "{}|"))
        return error_at(err, s->path, line, "expected [GROUP=NAME] with a plain group and name");
    if (key_find(group))
        return error_at(err, s->path, line, "group '%s' has the name of a key; {%s} and its "
                        "column would mean either", group, group);
    for (size_t k = 0; k < s->nsections; k++)
        if (!strcmp(s->sections[k].group, group) && !strcmp(s->sections[k].name, name))
            return error_at(err, s->path, line, "section [%s=%s] twice (line %ld)", group,
                            name, s->sections[k].line);
    spec_section *more = grow_array(s->sections, s->nsections, &s->scap, sizeof *more, 8);
    if (!more)
        return error_set(err, "out of memory");
    s->sections = more;
    spec_section *sec = &s->sections[s->nsections];
    sec->group = strdup(group);
    sec->name = strdup(name);
    sec->line = line;
    if (!sec->group || !sec->name) {
        free(sec->group);
        free(sec->name);
        return error_set(err, "out of memory");
    }
    s->nsections++;
    return find_group(s, group) >= 0 ? 0 : push_string(&s->groups, &s->ngroups, &s->gcap, group,
                                                       err);
}

static int add_line(spec *s, char *text, long line, sam_error *err)
{
    char *eq = strchr(text, '=');
    if (!eq)
        return error_at(err, s->path, line, "expected KEY = VALUE or [GROUP=NAME], not '%s'",
                        text);
    *eq = '\0';
    char *key = keyval_trim(text);
    const struct spec_key *k = key_find(key);
    if (!k)
        return error_at(err, s->path, line, "unknown key '%s' (README: Sweeps lists them)", key);
    int section = (int)s->nsections - 1;
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].section == section && !strcmp(s->lines[i].key, key))
            return error_at(err, s->path, line, "key '%s' set twice (line %ld)", key,
                            s->lines[i].line);
    spec_line *more = grow_array(s->lines, s->nlines, &s->cap, sizeof *more, 16);
    if (!more)
        return error_set(err, "out of memory");
    s->lines = more;
    spec_line *l = &s->lines[s->nlines];
    memset(l, 0, sizeof *l);
    l->line = line;
    l->section = section;
    if (!(l->key = strdup(key)))
        return error_set(err, "out of memory");
    s->nlines++;
    return parse_alternatives(l, s->path, eq + 1, err);
}

static int read_line(spec *s, char *text, long line, sam_error *err)
{
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    char *t = keyval_trim(text);
    if (!*t)
        return 0;
    return *t == '[' ? add_section(s, t, line, err) : add_line(s, t, line, err);
}

/* The spec's directory, absolute, so that jobs find their files from any
 * directory a cluster runs them in. */
static int spec_dir(spec *s, sam_error *err)
{
    char *copy = strdup(s->path);
    if (!copy)
        return error_set(err, "out of memory");
    char *slash = strrchr(copy, '/');
    if (slash)
        slash[slash == copy] = '\0';
    s->dir = realpath(slash ? copy : ".", NULL);
    free(copy);
    return s->dir ? 0 : error_at(err, s->path, 0, "cannot resolve its directory: %s",
                                 strerror(errno));
}

static int spec_read(spec *s, sam_error *err)
{
    FILE *f = fopen(s->path, "r");
    if (!f)
        return error_at(err, s->path, 0, "cannot open: %s", strerror(errno));
    char *text = NULL;
    size_t cap = 0;
    int rc = 0;
    for (long line = 1; rc == 0 && getline(&text, &cap, f) >= 0; line++)
        rc = read_line(s, text, line, err);
    if (rc == 0 && ferror(f))
        rc = error_at(err, s->path, 0, "cannot read: %s", strerror(errno));
    free(text);
    fclose(f);
    if (rc == 0 && !s->nlines)
        rc = error_at(err, s->path, 0, "no keys: a sweep needs at least a graph, expr or template");
    return rc ? rc : spec_dir(s, err);
}

static void spec_free(spec *s)
{
    for (size_t i = 0; i < s->nlines; i++) {
        for (size_t a = 0; a < s->lines[i].nalts; a++)
            free(s->lines[i].alts[a]);
        free(s->lines[i].alts);
        free(s->lines[i].key);
    }
    for (size_t i = 0; i < s->nsections; i++) {
        free(s->sections[i].group);
        free(s->sections[i].name);
    }
    for (size_t g = 0; g < s->ngroups; g++)
        free(s->groups[g]);
    free(s->lines);
    free(s->sections);
    free(s->groups);
    free(s->dir);
}

/* ---- expansion -------------------------------------------------------- */

/* One combination being expanded: the chosen section of each group, the
 * lines that combination sets, and the chosen alternative of each. */
typedef struct combo {
    const spec *s;
    size_t *section;        /* per group: index into s->sections */
    const spec_line **act;
    size_t nact;
    size_t *alt;            /* per active line */
    size_t job;             /* the number of the job being made */
} combo;

/* Advances a mixed-radix counter, the last digit fastest; 0 once it has
 * wrapped round to all zeros. */
static int odometer_next(size_t *digit, const size_t *radix, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        if (++digit[i] < radix[i])
            return 1;
        digit[i] = 0;
    }
    return 0;
}

static int line_index(const combo *c, const char *key)
{
    for (size_t i = 0; i < c->nact; i++)
        if (!strcmp(c->act[i]->key, key))
            return (int)i;
    return -1;
}

/* The base lines, each replaced by the chosen section's line of the same
 * key, then the sections' other lines. Two groups setting one key is
 * ambiguous and refused. */
static int combo_lines(combo *c, sam_error *err)
{
    const spec *s = c->s;
    c->nact = 0;
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].section < 0)
            c->act[c->nact++] = &s->lines[i];
    for (size_t g = 0; g < s->ngroups; g++)
        for (size_t i = 0; i < s->nlines; i++) {
            const spec_line *l = &s->lines[i];
            if (l->section != (int)c->section[g])
                continue;
            int at = line_index(c, l->key);
            if (at >= 0 && c->act[at]->section >= 0)
                return error_at(err, s->path, l->line,
                                "key '%s' is also set by section [%s=%s] (line %ld)", l->key,
                                s->sections[c->act[at]->section].group,
                                s->sections[c->act[at]->section].name, c->act[at]->line);
            c->act[at >= 0 ? (size_t)at : c->nact++] = l;
        }
    return 0;
}

/* The value of reference name: a var, a group, or a key. */
static int reference(const combo *c, const char *name, const spec_line **line,
                     const char **value)
{
    char var[264];
    snprintf(var, sizeof var, "var.%s", name);
    int at = line_index(c, var);
    if (at < 0)
        at = line_index(c, name);
    if (at >= 0) {
        *line = c->act[at];
        *value = c->act[at]->alts[c->alt[at]];
        return 0;
    }
    int g = find_group(c->s, name);
    if (g < 0)
        return -1;
    *line = NULL;
    *value = c->s->sections[c->section[g]].name;
    return 0;
}

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static int text_add(text *t, const char *s, size_t n, sam_error *err)
{
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap < t->n + n + 1)
            cap *= 2;
        char *more = realloc(t->s, cap);
        if (!more)
            return error_set(err, "out of memory");
        t->s = more;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
    return 0;
}

#define SPEC_MAX_DEPTH 8
#define SPEC_MAX_VALUE 65536

/* Appends value with each {NAME} replaced by its value, itself
 * substituted; depth bounds chains and catches loops. */
static int substitute(const combo *c, const spec_line *l, const char *value, int depth, text *t,
                      sam_error *err)
{
    const char *path = c->s->path;
    if (depth > SPEC_MAX_DEPTH)
        return error_at(err, path, l->line, "key '%s': references nest too deep (a loop?)",
                        l->key);
    for (const char *p = value; *p;) {
        const char *open = strchr(p, '{');
        if (!open)
            return text_add(t, p, strlen(p), err);
        const char *close = strchr(open, '}');
        if (!close || close - open > 200)
            return error_at(err, path, l->line, "key '%s': '{' without its '}'", l->key);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(close - open - 1), open + 1);
        const spec_line *ref;
        const char *v;
        if (text_add(t, p, (size_t)(open - p), err))
            return -1;
        if (reference(c, name, &ref, &v))
            return error_at(err, path, l->line, "key '%s': {%s} names no var, group or key",
                            l->key, name);
        if (ref ? substitute(c, ref, v, depth + 1, t, err) : text_add(t, v, strlen(v), err))
            return -1;
        if (t->n > SPEC_MAX_VALUE)
            return error_at(err, path, l->line, "key '%s': value longer than %d bytes", l->key,
                            SPEC_MAX_VALUE);
        p = close + 1;
    }
    return 0;
}

/* A path relative to the spec's directory made absolute; a tensor's
 * number or generator stays as it is. */
static int resolve_path(const combo *c, const struct spec_key *k, text *t, sam_error *err)
{
    int is_path = k->kind == KEY_PATH ||
                  (k->kind == KEY_TENSOR && !is_number(t->s, 0) && strncmp(t->s, "gen ", 4));
    if (!is_path || t->s[0] == '/')
        return 0;
    text abs = {0};
    if (text_add(&abs, c->s->dir, strlen(c->s->dir), err) || text_add(&abs, "/", 1, err) ||
        text_add(&abs, t->s, t->n, err)) {
        free(abs.s);
        return -1;
    }
    free(t->s);
    *t = abs;
    return 0;
}

static int job_add(sweep_job *j, const char *key, char *value, sam_error *err)
{
    sweep_pair *more = realloc(j->keys, (j->nkeys + 1) * sizeof *more);
    char *k = more ? strdup(key) : NULL;
    if (!k) {
        if (more)
            j->keys = more;
        free(value);
        return error_set(err, "out of memory");
    }
    j->keys = more;
    j->keys[j->nkeys].key = k;
    j->keys[j->nkeys++].value = value;
    return 0;
}

/* The run key of active line i, resolved and checked. */
static int job_key(const combo *c, size_t i, sweep_job *j, sam_error *err)
{
    const spec_line *l = c->act[i];
    const struct spec_key *k = key_find(l->key);
    text t = {0};
    if (substitute(c, l, l->alts[c->alt[i]], 0, &t, err) || (!t.s && text_add(&t, "", 0, err)) ||
        resolve_path(c, k, &t, err)) {
        free(t.s);
        return -1;
    }
    if (!key_value_ok(k, t.s)) {
        error_at(err, c->s->path, l->line, "key '%s': '%s' is not %s", l->key, t.s,
                 key_expects(k->kind));
        free(t.s);
        return -1;
    }
    return job_add(j, l->key, t.s, err);
}

static int pair_order(const void *a, const void *b)
{
    return strcmp(((const sweep_pair *)a)->key, ((const sweep_pair *)b)->key);
}

uint64_t sweep_hash_add(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* FNV-1a over the sorted keys: equal runs share a name, so results
 * survive a spec that is reordered or extended. */
static void job_hash(sweep_job *j)
{
    uint64_t h = SWEEP_HASH_START;
    for (size_t i = 0; i < j->nkeys; i++) {
        h = sweep_hash_add(h, j->keys[i].key, strlen(j->keys[i].key) + 1);
        h = sweep_hash_add(h, j->keys[i].value, strlen(j->keys[i].value) + 1);
    }
    snprintf(j->hash, sizeof j->hash, "%016llx", (unsigned long long)h);
}

/* What a run needs whichever way its graph comes. */
static int job_check(const combo *c, const sweep_job *j, sam_error *err)
{
    int ways = !!sweep_job_get(j, "graph") + !!sweep_job_get(j, "expr") +
               !!sweep_job_get(j, "template");
    if (ways != 1)
        return error_at(err, c->s->path, 0, "job %zu: needs exactly one of graph, expr and "
                        "template, not %d", c->job, ways);
    for (size_t i = 0; i < j->nkeys; i++) {
        const char *k = j->keys[i].key;
        const char *needs = !strcmp(k, "format") || !strcmp(k, "schedule") ? "expr"
                            : !strncmp(k, "template.", 9)                 ? "template"
                                                                            : NULL;
        if (needs && !sweep_job_get(j, needs))
            return error_at(err, c->s->path, c->act[line_index(c, k)]->line,
                            "key '%s' needs %s in the same job", k, needs);
    }
    return 0;
}

/* ---- columns ---------------------------------------------------------- */

static int has_column(const sweep_plan *plan, const char *name)
{
    for (size_t k = 0; k < plan->ncolumns; k++)
        if (!strcmp(plan->columns[k], name))
            return 1;
    return 0;
}

/* Groups first, then each var and each key with alternatives. */
static int plan_columns(const spec *s, sweep_plan *plan, sam_error *err)
{
    size_t cap = 0;
    for (size_t g = 0; g < s->ngroups; g++)
        if (push_string(&plan->columns, &plan->ncolumns, &cap, s->groups[g], err))
            return -1;
    for (size_t i = 0; i < s->nlines; i++) {
        const spec_line *l = &s->lines[i];
        int var = !strncmp(l->key, "var.", 4);
        const char *name = var ? l->key + 4 : l->key;
        if (var && find_group(s, name) >= 0)
            return error_at(err, s->path, l->line, "var '%s' has the name of a group", name);
        if ((var || l->nalts > 1) && !has_column(plan, name) &&
            push_string(&plan->columns, &plan->ncolumns, &cap, name, err))
            return -1;
    }
    return 0;
}

/* The job's value in column name: its group's section, its var, or its
 * key ("" when the combination does not set it). */
static int column_value(const combo *c, const sweep_job *j, const char *name, char **out,
                        sam_error *err)
{
    int g = find_group(c->s, name);
    char var[264];
    snprintf(var, sizeof var, "var.%s", name);
    int at = line_index(c, var);
    text t = {0};
    int rc = 0;
    if (g >= 0)
        rc = text_add(&t, c->s->sections[c->section[g]].name,
                      strlen(c->s->sections[c->section[g]].name), err);
    else if (at >= 0)
        rc = substitute(c, c->act[at], c->act[at]->alts[c->alt[at]], 0, &t, err);
    else if (sweep_job_get(j, name))
        rc = text_add(&t, sweep_job_get(j, name), strlen(sweep_job_get(j, name)), err);
    if (!rc && !t.s)
        rc = text_add(&t, "", 0, err);
    if (rc)
        free(t.s);
    *out = rc ? NULL : t.s;
    return rc;
}

/* ---- jobs ------------------------------------------------------------- */

static int make_job(combo *c, sweep_plan *plan, sweep_job *j, sam_error *err)
{
    memset(j, 0, sizeof *j);
    /* Vars go with the keys, though no step reads them: jobs that differ
     * only in a var are still different jobs (repetitions, labels). */
    for (size_t i = 0; i < c->nact; i++)
        if (job_key(c, i, j, err))
            return -1;
    qsort(j->keys, j->nkeys, sizeof *j->keys, pair_order);
    if (job_check(c, j, err))
        return -1;
    job_hash(j);
    if (!(j->params = calloc(plan->ncolumns ? plan->ncolumns : 1, sizeof *j->params)))
        return error_set(err, "out of memory");
    for (size_t k = 0; k < plan->ncolumns; k++)
        if (column_value(c, j, plan->columns[k], &j->params[k], err))
            return -1;
    return 0;
}

/* The jobs of the chosen sections: every combination of alternatives. */
static int expand_combo(combo *c, sweep_plan *plan, size_t *cap, sam_error *err)
{
    size_t radix[c->nact ? c->nact : 1];
    for (size_t i = 0; i < c->nact; i++) {
        radix[i] = c->act[i]->nalts;
        c->alt[i] = 0;
    }
    do {
        sweep_job *more = grow_array(plan->jobs, plan->njobs, cap, sizeof *more, 64);
        if (!more)
            return error_set(err, "out of memory");
        plan->jobs = more;
        c->job = plan->njobs;
        int rc = make_job(c, plan, &plan->jobs[plan->njobs], err);
        plan->njobs++;
        if (rc)
            return -1;
    } while (odometer_next(c->alt, radix, c->nact));
    return 0;
}

/* Per group, its sections' indices; radix[g] how many. */
static int group_sections(const spec *s, size_t **of, size_t *radix, sam_error *err)
{
    for (size_t g = 0; g < s->ngroups; g++) {
        radix[g] = 0;
        if (!(of[g] = calloc(s->nsections, sizeof **of)))
            return error_set(err, "out of memory");
        for (size_t k = 0; k < s->nsections; k++)
            if (!strcmp(s->sections[k].group, s->groups[g]))
                of[g][radix[g]++] = k;
    }
    return 0;
}

/* How many jobs a combination makes, saturating past the limit. */
static size_t combo_count(const combo *c)
{
    size_t n = 1;
    for (size_t i = 0; i < c->nact; i++)
        n = n > SWEEP_MAX_JOBS ? n : n * c->act[i]->nalts;
    return n;
}

/* Walks every choice of sections: first counting, then (count_only 0)
 * expanding. */
static int each_combo(combo *c, size_t **of, const size_t *radix, int count_only,
                      sweep_plan *plan, sam_error *err)
{
    size_t choice[c->s->ngroups ? c->s->ngroups : 1], total = 0, cap = 0;
    memset(choice, 0, sizeof choice);
    do {
        for (size_t g = 0; g < c->s->ngroups; g++)
            c->section[g] = of[g][choice[g]];
        if (combo_lines(c, err))
            return -1;
        total += combo_count(c);
        if (total > SWEEP_MAX_JOBS)
            return error_at(err, c->s->path, 0, "more than %d jobs", SWEEP_MAX_JOBS);
        if (!count_only && expand_combo(c, plan, &cap, err))
            return -1;
    } while (odometer_next(choice, radix, c->s->ngroups));
    return 0;
}

static int expand(const spec *s, sweep_plan *plan, sam_error *err)
{
    size_t n = s->ngroups ? s->ngroups : 1;
    size_t *of[n], radix[n];
    memset(of, 0, sizeof of);
    combo c = {.s = s};
    c.section = calloc(n, sizeof *c.section);
    c.act = calloc(s->nlines, sizeof *c.act);
    c.alt = calloc(s->nlines, sizeof *c.alt);
    int rc = !c.section || !c.act || !c.alt ? error_set(err, "out of memory")
                                            : group_sections(s, of, radix, err);
    if (!rc)
        rc = each_combo(&c, of, radix, 1, plan, err);
    if (!rc)
        rc = each_combo(&c, of, radix, 0, plan, err);
    for (size_t g = 0; g < n; g++)
        free(of[g]);
    free(c.section);
    free(c.act);
    free(c.alt);
    return rc;
}

int sweep_spec_expand(const char *path, sweep_plan *plan, sam_error *err)
{
    memset(plan, 0, sizeof *plan);
    spec s = {.path = path};
    int rc = spec_read(&s, err);
    if (!rc)
        rc = plan_columns(&s, plan, err);
    if (!rc)
        rc = expand(&s, plan, err);
    spec_free(&s);
    if (rc)
        sweep_plan_free(plan);
    return rc;
}

const char *sweep_job_get(const sweep_job *job, const char *key)
{
    for (size_t i = 0; i < job->nkeys; i++)
        if (!strcmp(job->keys[i].key, key))
            return job->keys[i].value;
    return NULL;
}

int sweep_job_set(sweep_job *job, const char *key, const char *value, sam_error *err)
{
    char *v = strdup(value);
    return v ? job_add(job, key, v, err) : error_set(err, "out of memory");
}

void sweep_job_free(sweep_job *job, size_t ncolumns)
{
    for (size_t i = 0; i < job->nkeys; i++) {
        free(job->keys[i].key);
        free(job->keys[i].value);
    }
    free(job->keys);
    for (size_t k = 0; job->params && k < ncolumns; k++)
        free(job->params[k]);
    free(job->params);
    memset(job, 0, sizeof *job);
}

void sweep_plan_free(sweep_plan *plan)
{
    for (size_t i = 0; i < plan->njobs; i++)
        sweep_job_free(&plan->jobs[i], plan->ncolumns);
    for (size_t k = 0; k < plan->ncolumns; k++)
        free(plan->columns[k]);
    free(plan->jobs);
    free(plan->columns);
    memset(plan, 0, sizeof *plan);
}
