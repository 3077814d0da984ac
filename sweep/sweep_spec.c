/* realpath is an XSI function. */
#define _XOPEN_SOURCE 700
#include "sweep_spec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/keyval.h"
#include "../common/number.h"

/* ---- ranges ----------------------------------------------------------- */

/* Whether alternative s is meant as a range: its first word is made of
 * digits, '-' and '.', with a digit and "..". Such a word is a range or an
 * error, never a value taken literally (`..` alone is a directory). */
static int looks_like_range(const char *s)
{
    size_t word = strcspn(s, " \t");
    const char *dots = strstr(s, ".."), *digit = strpbrk(s, "0123456789");
    return word && strspn(s, "-0123456789.") >= word && dots && dots < s + word && digit &&
           digit < s + word;
}

static int whole(const char *s, size_t n, long long *out)
{
    char buf[32];
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return number_parse_whole(buf, -LLONG_MAX, LLONG_MAX, out);
}

/* "A..B", "A..B step S" or "A..B times F" into a and *last (B); -1 when
 * s is none. */
static int parse_range(const char *s, spec_alt *a, long long *last)
{
    char words[3][64];
    int n = 0;
    for (const char *p = s; *p && n <= 3;) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t");
        if (!len)
            break;
        if (n == 3 || len >= sizeof words[0])
            return -1;
        snprintf(words[n++], sizeof words[0], "%.*s", (int)len, p);
        p += len;
    }
    const char *dots = strstr(words[0], "..");
    if ((n != 1 && n != 3) || whole(words[0], (size_t)(dots - words[0]), &a->first) ||
        whole(dots + 2, strlen(dots + 2), last))
        return -1;
    a->times = n == 3 && !strcmp(words[1], "times");
    a->by = 1;
    return n == 3 && ((!a->times && strcmp(words[1], "step")) ||
                      whole(words[2], strlen(words[2]), &a->by))
               ? -1
               : 0;
}

/* How many values first..last (by) holds; 0 when empty or endless. */
static unsigned long long range_count(const spec_alt *a, long long last)
{
    if (a->first > last || (a->times ? a->by < 2 || a->first < 1 : a->by < 1))
        return 0;
    if (!a->times)
        return ((unsigned long long)last - (unsigned long long)a->first) /
                   (unsigned long long)a->by + 1;
    unsigned long long n = 0;
    for (long long v = a->first; v <= last; v *= a->by) {
        n++;
        if (v > LLONG_MAX / a->by)
            break;
    }
    return n;
}

static int add_range(spec_line *l, const char *path, const char *s, size_t max, spec_alt *a,
                     sam_error *err)
{
    long long last;
    if (parse_range(s, a, &last))
        return error_at(err, path, l->line, "range '%s' is not A..B, A..B step S or A..B "
                        "times F of whole numbers", s);
    unsigned long long count = range_count(a, last);
    if (!count)
        return error_at(err, path, l->line, "range '%s' is empty or never ends (%s)", s,
                        a->times ? "A <= B, A >= 1, F >= 2" : "A <= B, S >= 1");
    if (count > max)
        return error_at(err, path, l->line, "range '%s' has more than %zu values", s, max);
    a->count = (size_t)count;
    return 0;
}

size_t spec_alt_of(const spec_line *l, size_t index)
{
    size_t lo = 0, hi = l->nalts;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->alts[mid].start <= index)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* v in decimal, as %lld writes it (snprintf's cost showed in listing a
 * million jobs). */
static const char *decimal(long long v, char buf[SPEC_NUMBER])
{
    char *p = buf + SPEC_NUMBER - 1;
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    *p = '\0';
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    return p;
}

const char *spec_value(const spec_line *l, size_t index, char buf[SPEC_NUMBER], size_t *len)
{
    const spec_alt *a = &l->alts[spec_alt_of(l, index)];
    if (a->text) {
        *len = a->len;
        return a->text;
    }
    long long v = a->first;
    size_t k = index - a->start;
    if (!a->times)
        v += (long long)k * a->by;
    else
        while (k--)
            v *= a->by;
    const char *number = decimal(v, buf);
    *len = (size_t)(buf + SPEC_NUMBER - 1 - number);
    return number;
}

/* ---- alternatives ----------------------------------------------------- */

static int add_alternative(spec_line *l, const char *path, const char *s, size_t max,
                           sam_error *err)
{
    spec_alt *more = grow_array(l->alts, l->nalts, &l->acap, sizeof *more, 4);
    if (!more)
        return error_set(err, "out of memory");
    l->alts = more;
    spec_alt *a = memset(&l->alts[l->nalts], 0, sizeof *a);
    if (looks_like_range(s)) {
        if (add_range(l, path, s, max, a, err))
            return -1;
    } else if (!(a->text = strdup(s)))
        return error_set(err, "out of memory");
    else {
        a->count = 1;
        a->len = strlen(s);
    }
    a->start = l->nvalues;
    l->nalts++;
    if (a->count > max - l->nvalues)
        return error_at(err, path, l->line, "key '%s': more than %zu values", l->key, max);
    l->nvalues += a->count;
    return 0;
}

static int parse_alternatives(spec_line *l, const char *path, char *value, size_t max,
                              sam_error *err)
{
    for (char *alt = value, *bar; alt; alt = bar) {
        bar = strchr(alt, '|');
        if (bar)
            *bar++ = '\0';
        char *s = keyval_trim(alt);
        if (!*s)
            return error_at(err, path, l->line, "key '%s': an empty alternative", l->key);
        if (add_alternative(l, path, s, max, err))
            return -1;
    }
    return 0;
}

/* ---- the file --------------------------------------------------------- */

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

static int find_group(const sweep_spec *s, const char *group)
{
    for (size_t g = 0; g < s->ngroups; g++)
        if (!strcmp(s->groups[g], group))
            return (int)g;
    return -1;
}

static int add_section(sweep_spec *s, char *text, long line, sam_error *err)
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
    if (sweep_key_find(group))
        return error_at(err, s->path, line, "group '%s' has the name of a key; {%s} and its "
                        "column would mean either", group, group);
    for (size_t k = 0; k < s->nsections; k++)
        if (!strcmp(s->sections[k].group, group) && !strcmp(s->sections[k].name, name))
            return error_at(err, s->path, line, "section [%s=%s] twice (line %ld)", group,
                            name, s->sections[k].line);
    if (find_group(s, group) < 0 && push_string(&s->groups, &s->ngroups, &s->gcap, group, err))
        return -1;
    spec_section *more = grow_array(s->sections, s->nsections, &s->scap, sizeof *more, 8);
    if (!more)
        return error_set(err, "out of memory");
    s->sections = more;
    spec_section *sec = &s->sections[s->nsections];
    sec->group = strdup(group);
    sec->name = strdup(name);
    sec->group_index = (size_t)find_group(s, group);
    sec->line = line;
    if (!sec->group || !sec->name) {
        free(sec->group);
        free(sec->name);
        return error_set(err, "out of memory");
    }
    s->nsections++;
    return 0;
}

static int add_line(sweep_spec *s, char *text, long line, size_t max, sam_error *err)
{
    char *eq = strchr(text, '=');
    if (!eq)
        return error_at(err, s->path, line, "expected KEY = VALUE or [GROUP=NAME], not '%s'",
                        text);
    *eq = '\0';
    char *key = keyval_trim(text);
    const sweep_key *k = sweep_key_find(key);
    if (!k)
        return error_at(err, s->path, line, "unknown key '%s' (doc/sweeps.md lists them)", key);
    int section = (int)s->nsections - 1;
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].section == section && !strcmp(s->lines[i].key, key))
            return error_at(err, s->path, line, "key '%s' set twice (line %ld)", key,
                            s->lines[i].line);
    spec_line *more = grow_array(s->lines, s->nlines, &s->cap, sizeof *more, 16);
    if (!more)
        return error_set(err, "out of memory");
    s->lines = more;
    spec_line *l = memset(&s->lines[s->nlines], 0, sizeof *l);
    l->line = line;
    l->section = section;
    l->kind = k;
    if (!(l->key = strdup(key)))
        return error_set(err, "out of memory");
    s->nlines++;
    return parse_alternatives(l, s->path, eq + 1, max, err);
}

/* Cuts text at its comment, turning each `\#` into `#`. */
static void strip_comment(char *text)
{
    char *out = text;
    for (const char *p = text; *p && *p != '#'; p++) {
        if (p[0] == '\\' && p[1] == '#')
            p++;
        *out++ = *p;
    }
    *out = '\0';
}

static int read_line(sweep_spec *s, char *text, long line, size_t max, sam_error *err)
{
    strip_comment(text);
    char *t = keyval_trim(text);
    if (!*t)
        return 0;
    return *t == '[' ? add_section(s, t, line, err) : add_line(s, t, line, max, err);
}

/* The spec's directory, absolute, so that jobs find their files from any
 * directory a cluster runs them in. */
static int spec_dir(sweep_spec *s, sam_error *err)
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

static int read_file(sweep_spec *s, size_t max, sam_error *err)
{
    FILE *f = fopen(s->path, "r");
    if (!f)
        return error_at(err, s->path, 0, "cannot open: %s", strerror(errno));
    char *text = NULL;
    size_t cap = 0;
    int rc = 0;
    for (long line = 1; rc == 0 && getline(&text, &cap, f) >= 0; line++)
        rc = read_line(s, text, line, max, err);
    if (rc == 0 && ferror(f))
        rc = error_at(err, s->path, 0, "cannot read: %s", strerror(errno));
    free(text);
    fclose(f);
    if (rc == 0 && !s->nlines)
        rc = error_at(err, s->path, 0, "no keys: a sweep needs at least a graph, expr or template");
    return rc;
}

/* ---- what lines say together ------------------------------------------ */

/* A var's name is its column and {NAME}: a group's may not be the same. */
static int check_var_names(const sweep_spec *s, sam_error *err)
{
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].kind->kind == KEY_VAR && find_group(s, s->lines[i].key + 4) >= 0)
            return error_at(err, s->path, s->lines[i].line, "var '%s' has the name of a group",
                            s->lines[i].key + 4);
    return 0;
}

static size_t group_of(const sweep_spec *s, const spec_line *l)
{
    return s->sections[l->section].group_index;
}

/* Any section of a group meets any section of another in some job: two
 * groups setting one key would leave it ambiguous. */
static int check_groups_apart(const sweep_spec *s, sam_error *err)
{
    for (size_t g = 1; g < s->ngroups; g++)
        for (size_t i = 0; i < s->nlines; i++) {
            const spec_line *l = &s->lines[i];
            if (l->section < 0 || group_of(s, l) != g)
                continue;
            for (size_t k = 0; k < s->nlines; k++) {
                const spec_line *o = &s->lines[k];
                if (o->section >= 0 && group_of(s, o) < g && !strcmp(o->key, l->key))
                    return error_at(err, s->path, l->line,
                                    "key '%s' is also set by section [%s=%s] (line %ld)", l->key,
                                    s->sections[o->section].group,
                                    s->sections[o->section].name, o->line);
            }
        }
    return 0;
}

int sweep_spec_read(const char *path, size_t max_values, sweep_spec *s, sam_error *err)
{
    memset(s, 0, sizeof *s);
    if (!(s->path = strdup(path)))
        return error_set(err, "out of memory");
    int rc = read_file(s, max_values, err);
    if (!rc)
        rc = spec_dir(s, err);
    if (!rc)
        rc = check_var_names(s, err);
    if (!rc)
        rc = check_groups_apart(s, err);
    if (rc)
        sweep_spec_free(s);
    return rc;
}

void sweep_spec_free(sweep_spec *s)
{
    for (size_t i = 0; i < s->nlines; i++) {
        for (size_t a = 0; a < s->lines[i].nalts; a++)
            free(s->lines[i].alts[a].text);
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
    free(s->path);
    memset(s, 0, sizeof *s);
}
