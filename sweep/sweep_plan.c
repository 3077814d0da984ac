#include "sweep_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/hash_table.h"
#include "../common/strbuf.h"
#include "../common/words.h"
#include "sweep_keys.h"
#include "sweep_spec.h"

#define SPEC_MAX_DEPTH 8
#define SPEC_MAX_VALUE 65536

/* ---- text ------------------------------------------------------------- */

static int text_set(strbuf *t, const char *s, sam_error *err)
{
    t->len = 0;
    return strbuf_add(t, s, strlen(s), err);
}

/* ---- values as written ------------------------------------------------ */

/* A piece of a written value: text, or a reference {NAME} with what NAME
 * may stand for, first found first: the key var.NAME, the key NAME, the
 * group NAME (-1 where there is none). */
typedef struct piece {
    const char *text;       /* the text, or NAME */
    size_t len;
    int is_ref;
    int var_key, key, group;
} piece;

/* An alternative's value in pieces. */
typedef struct form {
    piece *pieces;
    size_t n;
    int refs;               /* a piece is a reference */
    int unclosed;           /* a '{' without its '}' follows the pieces */
} form;

/* ---- the maker -------------------------------------------------------- */

typedef struct group_info {
    size_t *sections;       /* spec sections */
    size_t *weight;         /* per section: jobs it makes with the lines above */
    size_t n;
    size_t after;           /* the jobs of the later groups' every choice */
} group_info;

/* Where a column's value comes from in a combination: a group's section,
 * the key at a place (a var, or a key given alternatives), or nothing. */
typedef struct column_src {
    int group, var_key, key;    /* what the column's name may stand for */
    int at;                     /* in the combination: the key's place, or -1 */
} column_src;

enum { VALUE_NONE, VALUE_BUSY, VALUE_DONE };

/* One choice of section per group: the lines it sets, in the order of the
 * digits that number its jobs. */
typedef struct combo {
    int valid;
    size_t start, count;    /* its jobs' numbers: start .. start + count - 1 */
    size_t *section;        /* per group */
    size_t *act;            /* spec lines */
    size_t nact;
    int *at;                /* per key: its place in act, or -1 */
    size_t *order;          /* places in act, by key */
} combo;

/* The job being made: per place in the combination. */
typedef struct job_state {
    size_t *digit;
    unsigned char *state;
    const char **raw;       /* references replaced */
    const char **value;     /* and paths made absolute */
    size_t *raw_len, *value_len;
    char (*number)[SPEC_NUMBER];
    strbuf *buf, *abs;
    sweep_pair *pairs;
    const char **params;
} job_state;

/* A set of 64-bit hashes of what was found good, kept up to max. */
typedef struct hash_set {
    hash_table t;           /* entries: the hashes alone */
    size_t max;
} hash_set;

static void hash_set_init(hash_set *s, size_t max)
{
    hash_table_init(&s->t, sizeof(uint64_t));
    s->max = max;
}

typedef struct plan_maker {
    sweep_spec spec;
    const char **keys;      /* each distinct key once */
    size_t nkeys;
    int *line_key;          /* per line: its key */
    size_t *key_len;        /* per line: its key's length */
    size_t *by_rank;        /* the keys in strcmp order */
    int *owner;             /* per key: the group whose sections set it, or -1 */
    form **forms;           /* per line, per alternative (ranges: none) */
    size_t **section_lines, *nsection_lines;
    group_info *groups;
    size_t base;            /* the jobs of the lines no section sets */
    int graph_key, expr_key, template_key;
    words columns;
    column_src *column;
    combo c;
    job_state j;
    hash_set *good;         /* per line: values found good, where checks cost */
    hash_set templates;     /* template settings found good */
    hash_set compiles;      /* expressions, formats, schedules, tiles found good */
    sweep_arg_checks checks;
} plan_maker;

static int key_id(const plan_maker *m, const char *key, size_t len)
{
    for (size_t k = 0; k < m->nkeys; k++)
        if (strlen(m->keys[k]) == len && !strncmp(m->keys[k], key, len))
            return (int)k;
    return -1;
}

static int group_id(const sweep_spec *s, const char *name, size_t len)
{
    for (size_t g = 0; g < s->ngroups; g++)
        if (strlen(s->groups[g]) == len && !strncmp(s->groups[g], name, len))
            return (int)g;
    return -1;
}

/* What {NAME} may stand for. */
static void ref_targets(const plan_maker *m, const char *name, size_t len, int *var_key,
                        int *key, int *group)
{
    char var[264];
    snprintf(var, sizeof var, "var.%.*s", (int)len, name);
    *var_key = len < 256 ? key_id(m, var, strlen(var)) : -1;
    *key = key_id(m, name, len);
    *group = group_id(&m->spec, name, len);
}

static int form_add(plan_maker *m, form *f, const char *s, size_t len, int is_ref,
                    sam_error *err)
{
    piece *more = realloc(f->pieces, (f->n + 1) * sizeof *more);
    if (!more)
        return error_set(err, "out of memory");
    f->pieces = more;
    piece *p = &f->pieces[f->n++];
    *p = (piece){.text = s, .len = len, .is_ref = is_ref, .var_key = -1, .key = -1, .group = -1};
    if (is_ref)
        ref_targets(m, s, len, &p->var_key, &p->key, &p->group);
    f->refs |= is_ref;
    return 0;
}

/* Splits value s at its references. */
static int form_parse(plan_maker *m, form *f, const char *s, sam_error *err)
{
    for (const char *p = s; *p;) {
        const char *open = strchr(p, '{');
        if (!open)
            return form_add(m, f, p, strlen(p), 0, err);
        if (open > p && form_add(m, f, p, (size_t)(open - p), 0, err))
            return -1;
        const char *close = strchr(open, '}');
        if (!close || close - open > 200) {
            f->unclosed = 1;
            return 0;
        }
        if (form_add(m, f, open + 1, (size_t)(close - open - 1), 1, err))
            return -1;
        p = close + 1;
    }
    return 0;
}

/* ---- reading the spec into a maker ------------------------------------ */

static int add_key(plan_maker *m, const char *key, sam_error *err)
{
    if (key_id(m, key, strlen(key)) >= 0)
        return 0;
    const char **more = realloc(m->keys, (m->nkeys + 1) * sizeof *more);
    if (!more)
        return error_set(err, "out of memory");
    m->keys = more;
    m->keys[m->nkeys++] = key;
    return 0;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(**(const char *const *const *)a, **(const char *const *const *)b);
}

/* Every key once, and its rank in strcmp order: the order of a job's
 * keys. */
static int intern_keys(plan_maker *m, sam_error *err)
{
    const sweep_spec *s = &m->spec;
    for (size_t i = 0; i < s->nlines; i++)
        if (add_key(m, s->lines[i].key, err))
            return -1;
    m->line_key = calloc(s->nlines, sizeof *m->line_key);
    m->key_len = calloc(s->nlines, sizeof *m->key_len);
    m->by_rank = calloc(m->nkeys, sizeof *m->by_rank);
    const char ***sorted = calloc(m->nkeys, sizeof *sorted);
    if (!m->line_key || !m->key_len || !m->by_rank || !sorted) {
        free(sorted);
        return error_set(err, "out of memory");
    }
    for (size_t i = 0; i < s->nlines; i++) {
        m->key_len[i] = strlen(s->lines[i].key);
        m->line_key[i] = key_id(m, s->lines[i].key, m->key_len[i]);
    }
    for (size_t k = 0; k < m->nkeys; k++)
        sorted[k] = &m->keys[k];
    qsort(sorted, m->nkeys, sizeof *sorted, by_key);
    for (size_t r = 0; r < m->nkeys; r++)
        m->by_rank[r] = (size_t)(sorted[r] - m->keys);
    free(sorted);
    m->graph_key = key_id(m, "graph", 5);
    m->expr_key = key_id(m, "expr", 4);
    m->template_key = key_id(m, "template", 8);
    return 0;
}

static int parse_forms(plan_maker *m, sam_error *err)
{
    const sweep_spec *s = &m->spec;
    if (!(m->forms = calloc(s->nlines, sizeof *m->forms)))
        return error_set(err, "out of memory");
    for (size_t i = 0; i < s->nlines; i++) {
        const spec_line *l = &s->lines[i];
        if (!(m->forms[i] = calloc(l->nalts, sizeof *m->forms[i])))
            return error_set(err, "out of memory");
        for (size_t a = 0; a < l->nalts; a++)
            if (l->alts[a].text && form_parse(m, &m->forms[i][a], l->alts[a].text, err))
                return -1;
    }
    return 0;
}

static int index_sections(plan_maker *m, sam_error *err)
{
    const sweep_spec *s = &m->spec;
    size_t n = s->nsections ? s->nsections : 1;
    m->section_lines = calloc(n, sizeof *m->section_lines);
    m->nsection_lines = calloc(n, sizeof *m->nsection_lines);
    if (!m->section_lines || !m->nsection_lines)
        return error_set(err, "out of memory");
    for (size_t k = 0; k < s->nsections; k++)
        if (!(m->section_lines[k] = calloc(s->nlines, sizeof **m->section_lines)))
            return error_set(err, "out of memory");
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].section >= 0) {
            size_t k = (size_t)s->lines[i].section;
            m->section_lines[k][m->nsection_lines[k]++] = i;
        }
    return 0;
}

/* ---- counting --------------------------------------------------------- */

/* a * b, or limit + 1 when that is more than limit. */
static size_t times_capped(size_t a, size_t b, size_t limit)
{
    return a && b > limit / a ? limit + 1 : a * b;
}

/* Per key: the group whose sections set it, or -1. */
static int find_owners(plan_maker *m, sam_error *err)
{
    const sweep_spec *s = &m->spec;
    if (!(m->owner = calloc(m->nkeys ? m->nkeys : 1, sizeof *m->owner)))
        return error_set(err, "out of memory");
    for (size_t k = 0; k < m->nkeys; k++)
        m->owner[k] = -1;
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].section >= 0)
            m->owner[m->line_key[i]] = (int)s->sections[s->lines[i].section].group_index;
    return 0;
}

static int section_sets(const plan_maker *m, size_t section, int key)
{
    for (size_t k = 0; k < m->nsection_lines[section]; k++)
        if (m->line_key[m->section_lines[section][k]] == key)
            return 1;
    return 0;
}

/* A job's section choice sets the lines of its sections, and the lines
 * above the first section that no chosen section sets again; as no two
 * groups set one key, each group's choice weighs alone. */
static void weigh_section(plan_maker *m, size_t g, size_t section, size_t limit, size_t *w)
{
    const sweep_spec *s = &m->spec;
    *w = 1;
    for (size_t k = 0; k < m->nsection_lines[section]; k++)
        *w = times_capped(*w, s->lines[m->section_lines[section][k]].nvalues, limit);
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].section < 0 && m->owner[m->line_key[i]] == (int)g &&
            !section_sets(m, section, m->line_key[i]))
            *w = times_capped(*w, s->lines[i].nvalues, limit);
}

static int count_jobs(plan_maker *m, size_t limit, size_t *njobs, sam_error *err)
{
    const sweep_spec *s = &m->spec;
    size_t ng = s->ngroups;
    if (find_owners(m, err))
        return -1;
    if (!(m->groups = calloc(ng ? ng : 1, sizeof *m->groups)))
        return error_set(err, "out of memory");
    m->base = 1;
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].section < 0 && m->owner[m->line_key[i]] < 0)
            m->base = times_capped(m->base, s->lines[i].nvalues, limit);
    size_t total = m->base, totals[ng ? ng : 1];
    for (size_t g = 0; g < ng; g++) {
        group_info *gi = &m->groups[g];
        gi->sections = calloc(s->nsections, sizeof *gi->sections);
        gi->weight = calloc(s->nsections, sizeof *gi->weight);
        if (!gi->sections || !gi->weight)
            return error_set(err, "out of memory");
        totals[g] = 0;
        for (size_t k = 0; k < s->nsections; k++)
            if (s->sections[k].group_index == g) {
                gi->sections[gi->n] = k;
                weigh_section(m, g, k, limit, &gi->weight[gi->n]);
                totals[g] += gi->weight[gi->n++];
                totals[g] = totals[g] > limit ? limit + 1 : totals[g];
            }
        total = times_capped(total, totals[g], limit);
    }
    if (total > limit)
        return error_at(err, s->path, 0, "more than %zu jobs", limit);
    for (size_t g = ng, after = 1; g-- > 0;) {
        m->groups[g].after = after;
        after *= totals[g];
    }
    *njobs = total;
    return 0;
}

/* ---- columns ---------------------------------------------------------- */

static int make_columns(plan_maker *m, sam_error *err)
{
    const sweep_spec *s = &m->spec;
    for (size_t g = 0; g < s->ngroups; g++)
        if (words_add_new(&m->columns, s->groups[g], err))
            return -1;
    for (size_t i = 0; i < s->nlines; i++) {
        const spec_line *l = &s->lines[i];
        int var = l->kind->kind == KEY_VAR;
        if ((var || l->nvalues > 1) &&
            words_add_new(&m->columns, var ? l->key + 4 : l->key, err))
            return -1;
    }
    if (!(m->column = calloc(m->columns.n ? m->columns.n : 1, sizeof *m->column)))
        return error_set(err, "out of memory");
    for (size_t k = 0; k < m->columns.n; k++)
        ref_targets(m, m->columns.v[k], strlen(m->columns.v[k]), &m->column[k].var_key,
                    &m->column[k].key, &m->column[k].group);
    return 0;
}

static int alloc_state(plan_maker *m, sam_error *err)
{
    size_t n = m->spec.nlines, ng = m->spec.ngroups ? m->spec.ngroups : 1;
    job_state *j = &m->j;
    m->c.section = calloc(ng, sizeof *m->c.section);
    m->c.act = calloc(n, sizeof *m->c.act);
    m->c.at = calloc(m->nkeys, sizeof *m->c.at);
    m->c.order = calloc(n, sizeof *m->c.order);
    j->digit = calloc(n, sizeof *j->digit);
    j->state = calloc(n, sizeof *j->state);
    j->raw = calloc(n, sizeof *j->raw);
    j->value = calloc(n, sizeof *j->value);
    j->raw_len = calloc(n, sizeof *j->raw_len);
    j->value_len = calloc(n, sizeof *j->value_len);
    j->number = calloc(n, sizeof *j->number);
    j->buf = calloc(n, sizeof *j->buf);
    j->abs = calloc(n, sizeof *j->abs);
    j->pairs = calloc(n, sizeof *j->pairs);
    j->params = calloc(m->columns.n ? m->columns.n : 1, sizeof *j->params);
    m->good = calloc(n, sizeof *m->good);
    for (size_t i = 0; m->good && i < n; i++)
        hash_set_init(&m->good[i], 1u << 16);
    /* A template's check writes its hardware descriptions: each setting
     * once, though every job had its own. */
    hash_set_init(&m->templates, SWEEP_MAX_JOBS);
    hash_set_init(&m->compiles, SWEEP_MAX_JOBS);
    return m->c.section && m->c.act && m->c.at && m->c.order && j->digit && j->state && j->raw &&
                   j->value && j->raw_len && j->value_len && j->number && j->buf && j->abs && j->pairs && j->params &&
                   m->good
               ? 0
               : error_set(err, "out of memory");
}

/* ---- combinations ----------------------------------------------------- */

/* The lines above the first section, each replaced by the chosen section's
 * line of the same key, then the sections' other lines. */
static void combo_lines(plan_maker *m)
{
    const sweep_spec *s = &m->spec;
    combo *c = &m->c;
    c->nact = 0;
    for (size_t k = 0; k < m->nkeys; k++)
        c->at[k] = -1;
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].section < 0) {
            c->at[m->line_key[i]] = (int)c->nact;
            c->act[c->nact++] = i;
        }
    for (size_t g = 0; g < s->ngroups; g++)
        for (size_t k = 0; k < m->nsection_lines[c->section[g]]; k++) {
            size_t i = m->section_lines[c->section[g]][k];
            int *at = &c->at[m->line_key[i]];
            if (*at < 0)
                *at = (int)c->nact++;
            c->act[*at] = i;
        }
    size_t n = 0;
    for (size_t r = 0; r < m->nkeys; r++)
        if (c->at[m->by_rank[r]] >= 0)
            c->order[n++] = (size_t)c->at[m->by_rank[r]];
    for (size_t k = 0; k < m->columns.n; k++) {
        column_src *col = &m->column[k];
        col->at = col->var_key >= 0 && c->at[col->var_key] >= 0 ? c->at[col->var_key]
                  : col->key >= 0                              ? c->at[col->key]
                                                               : -1;
    }
}

/* The combination job index belongs to, and the job's digits. */
static void combo_at(plan_maker *m, size_t index)
{
    combo *c = &m->c;
    if (!c->valid || index - c->start >= c->count) {
        size_t r = index, jobs = m->base;
        for (size_t g = 0; g < m->spec.ngroups; g++) {
            const group_info *gi = &m->groups[g];
            size_t s = 0;
            for (; s + 1 < gi->n && r >= jobs * gi->weight[s] * gi->after; s++)
                r -= jobs * gi->weight[s] * gi->after;
            c->section[g] = gi->sections[s];
            jobs *= gi->weight[s];
        }
        c->start = index - r;
        c->count = jobs;
        c->valid = 1;
        combo_lines(m);
    }
    size_t within = index - c->start;
    for (size_t at = c->nact; at-- > 0;) {
        size_t n = m->spec.lines[c->act[at]].nvalues;
        m->j.digit[at] = within % n;
        within /= n;
    }
    for (size_t at = 0; at < c->nact; at++)
        m->j.state[at] = VALUE_NONE;
}

/* ---- values ----------------------------------------------------------- */

static int value_at(plan_maker *m, size_t at, int depth, sam_error *err);

/* The value of reference p at place `at`'s line, appended to t. */
static int add_reference(plan_maker *m, size_t at, const piece *p, int depth, strbuf *t,
                         sam_error *err)
{
    const spec_line *l = &m->spec.lines[m->c.act[at]];
    int to = p->var_key >= 0 && m->c.at[p->var_key] >= 0 ? m->c.at[p->var_key]
             : p->key >= 0                               ? m->c.at[p->key]
                                                         : -1;
    if (to >= 0) {
        if (m->j.state[to] == VALUE_BUSY || depth >= SPEC_MAX_DEPTH)
            return error_at(err, m->spec.path, l->line,
                            "key '%s': references nest too deep (a loop?)", l->key);
        if (value_at(m, (size_t)to, depth + 1, err))
            return -1;
        return strbuf_add(t, m->j.raw[to], m->j.raw_len[to], err);
    }
    if (p->group < 0)
        return error_at(err, m->spec.path, l->line, "key '%s': {%.*s} names no var, group or key",
                        l->key, (int)p->len, p->text);
    const char *name = m->spec.sections[m->c.section[p->group]].name;
    return strbuf_add(t, name, strlen(name), err);
}

static int substitute(plan_maker *m, size_t at, const form *f, int depth, sam_error *err)
{
    const spec_line *l = &m->spec.lines[m->c.act[at]];
    strbuf *t = &m->j.buf[at];
    t->len = 0;
    if (strbuf_add(t, "", 0, err))
        return -1;
    for (size_t k = 0; k < f->n; k++) {
        const piece *p = &f->pieces[k];
        if (p->is_ref ? add_reference(m, at, p, depth, t, err) : strbuf_add(t, p->text, p->len, err))
            return -1;
        if (t->len > SPEC_MAX_VALUE)
            return error_at(err, m->spec.path, l->line, "key '%s': value longer than %d bytes",
                            l->key, SPEC_MAX_VALUE);
    }
    if (f->unclosed)
        return error_at(err, m->spec.path, l->line, "key '%s': '{' without its '}'", l->key);
    m->j.raw[at] = t->s;
    m->j.raw_len[at] = t->len;
    return 0;
}

/* The value of the line at place `at`, references replaced. */
static int value_at(plan_maker *m, size_t at, int depth, sam_error *err)
{
    job_state *j = &m->j;
    if (j->state[at] == VALUE_DONE)
        return 0;
    size_t i = m->c.act[at];
    const spec_line *l = &m->spec.lines[i];
    size_t alt = spec_alt_of(l, j->digit[at]);
    const form *f = &m->forms[i][alt];
    j->state[at] = VALUE_BUSY;
    if (f->refs || f->unclosed) {
        if (substitute(m, at, f, depth, err))
            return -1;
    } else
        j->raw[at] = spec_value(l, j->digit[at], j->number[at], &j->raw_len[at]);
    j->state[at] = VALUE_DONE;
    return 0;
}

/* The run's value: a relative path made absolute from the spec's
 * directory. */
static int resolve(plan_maker *m, size_t at, sam_error *err)
{
    job_state *j = &m->j;
    const spec_line *l = &m->spec.lines[m->c.act[at]];
    j->value[at] = j->raw[at];
    j->value_len[at] = j->raw_len[at];
    if (!sweep_key_is_path(l->kind, j->raw[at]) || j->raw[at][0] == '/')
        return 0;
    strbuf *t = &j->abs[at];
    if (text_set(t, m->spec.dir, err) || strbuf_add(t, "/", 1, err) ||
        strbuf_add(t, j->raw[at], j->raw_len[at], err))
        return -1;
    j->value[at] = t->s;
    j->value_len[at] = t->len;
    return 0;
}

/* ---- checks ----------------------------------------------------------- */

static const char *place_key(const plan_maker *m, size_t at)
{
    return m->spec.lines[m->c.act[at]].key;
}

static long place_line(const plan_maker *m, size_t at)
{
    return m->spec.lines[m->c.act[at]].line;
}

/* What a run needs whichever way its graph comes, and what a template run
 * takes. */
static int combo_check(const plan_maker *m, sam_error *err)
{
    const combo *c = &m->c;
    const char *path = m->spec.path;
    int has[3], keys[3] = {m->graph_key, m->expr_key, m->template_key};
    for (int k = 0; k < 3; k++)
        has[k] = keys[k] >= 0 && c->at[keys[k]] >= 0;
    if (has[0] + has[1] + has[2] != 1)
        return error_at(err, path, 0, "job %zu: needs exactly one of graph, expr and template, "
                        "not %d", c->start, has[0] + has[1] + has[2]);
    for (size_t n = 0; n < c->nact; n++) {
        const char *k = place_key(m, c->order[n]);
        const char *needs = !strcmp(k, "format") || !strcmp(k, "schedule") ? "expr"
                            : !strncmp(k, "template.", 9)                 ? "template"
                                                                            : NULL;
        if (needs && !has[needs[0] == 'e' ? 1 : 2])
            return error_at(err, path, place_line(m, c->order[n]),
                            "key '%s' needs %s in the same job", k, needs);
    }
    for (size_t n = 0; has[2] && n < c->nact; n++) {
        const spec_line *l = &m->spec.lines[c->act[c->order[n]]];
        if (l->kind->with_template)
            continue;
        if (!strncmp(l->key, "hw", 2))
            return error_at(err, path, l->line, "key '%s' cannot go with template: a template's "
                            "hardware comes from its template.KEY parameters", l->key);
        return error_at(err, path, l->line, "key '%s' cannot go with template: a template run "
                        "takes template.KEY, tensor.NAME, engine, check, stats and timeout",
                        l->key);
    }
    return 0;
}

/* A hash as the table keeps it: even, so never the free slots' mark. */
static uint64_t set_key(uint64_t h)
{
    return h & ~(uint64_t)1;
}

/* Whether s holds h. */
static int hash_set_has(const hash_set *s, uint64_t h)
{
    return hash_table_find(&s->t, set_key(h)) != NULL;
}

/* Adds h unless s is full; *added says whether it was new. */
static int hash_set_add(hash_set *s, uint64_t h, int *added, sam_error *err)
{
    *added = !hash_set_has(s, h);
    if (!*added || s->t.used >= s->max)
        return 0;
    return hash_table_add(&s->t, set_key(h), added, err) ? 0 : -1;
}

/* The job's template with its parameters, each set of them checked once. */
static int template_check(plan_maker *m, sam_error *err)
{
    const combo *c = &m->c;
    if (m->template_key < 0 || c->at[m->template_key] < 0)
        return 0;
    size_t at = (size_t)c->at[m->template_key], n = 0;
    sweep_param params[c->nact];
    uint64_t h = sweep_hash_add(SWEEP_HASH_START, m->j.raw[at], strlen(m->j.raw[at]) + 1);
    for (size_t k = 0; k < c->nact; k++) {
        size_t p = c->order[k];
        if (strncmp(place_key(m, p), "template.", 9))
            continue;
        params[n++] = (sweep_param){place_key(m, p), m->j.raw[p], place_line(m, p)};
        h = sweep_hash_add(h, place_key(m, p), strlen(place_key(m, p)) + 1);
        h = sweep_hash_add(h, m->j.raw[p], strlen(m->j.raw[p]) + 1);
    }
    int added;
    if (hash_set_add(&m->templates, h, &added, err))
        return -1;
    return added ? sweep_keys_check_template(m->spec.path, place_line(m, at), m->j.raw[at],
                                             params, n, err)
                 : 0;
}

/* h with the whole number of digits d..e (a split's size) hashed as "1"
 * when it is one compile takes (1 to 18 digits, not 0), else as written. */
static uint64_t hash_size(uint64_t h, const char *d, const char *e)
{
    size_t n = (size_t)(e - d);
    int whole = n >= 1 && n <= 18 && strspn(d, "0123456789") >= n && strspn(d, "0") < n;
    return whole ? sweep_hash_add(h, "1", 1) : sweep_hash_add(h, d, n);
}

/* h with schedule or tile text s added, each split's size, whose value
 * changes nothing compile checks, as "1": a sweep over sizes compiles
 * once. A size that is not a whole number stays as written. */
static uint64_t hash_schedule(uint64_t h, const char *s)
{
    for (const char *p; (p = strstr(s, "split(")) != NULL;) {
        const char *close = strchr(p, ')');
        if (!close)
            break;
        const char *size = close;
        while (size > p && size[-1] != ',' && size[-1] != '.')
            size--;
        h = sweep_hash_add(h, s, (size_t)(size - s));
        h = hash_size(h, size, close);
        s = close;
    }
    return sweep_hash_add(h, s, strlen(s) + 1);
}

/* The job's expression with its formats, schedule and tile, each set of
 * them compiled once (split sizes aside, hash_schedule). */
static int compile_check(plan_maker *m, sam_error *err)
{
    const combo *c = &m->c;
    if (m->expr_key < 0 || c->at[m->expr_key] < 0)
        return 0;
    static const char *const names[] = {"format", "schedule", "tile"};
    const char *v[3] = {NULL, NULL, NULL};
    for (size_t k = 0; k < c->nact; k++)
        for (int n = 0; n < 3; n++)
            if (!strcmp(place_key(m, c->order[k]), names[n]))
                v[n] = m->j.raw[c->order[k]];
    size_t at = (size_t)c->at[m->expr_key];
    uint64_t h = sweep_hash_add(SWEEP_HASH_START, m->j.raw[at], strlen(m->j.raw[at]) + 1);
    h = v[0] ? sweep_hash_add(h, v[0], strlen(v[0]) + 1) : sweep_hash_add(h, "", 1);
    for (int n = 1; n < 3; n++)     /* no value is empty: "" stands for none */
        h = v[n] ? hash_schedule(h, v[n]) : sweep_hash_add(h, "", 1);
    int added;
    if (hash_set_add(&m->compiles, h, &added, err))
        return -1;
    return added ? sweep_keys_check_compile(m->spec.path, place_line(m, at), m->j.raw[at], v[0],
                                            v[1], v[2], &m->checks, err)
                 : 0;
}

/* Whether checking a value of k costs more than hashing it: what is read
 * as --hw or --config lines, looked up among blocks and templates, or a
 * generator's arguments. */
static int check_costs(const sweep_key *k)
{
    return k->kind == KEY_HW || k->kind == KEY_CONFIG || k->kind == KEY_IMPL ||
           k->kind == KEY_TEMPLATE || k->kind == KEY_TENSOR;
}

/* The value at place `at` of the job: a costly check made once per value
 * of its line. */
static int check_value(plan_maker *m, size_t at, sam_error *err)
{
    size_t i = m->c.act[at];
    const spec_line *l = &m->spec.lines[i];
    const char *v = m->j.raw[at];
    if (!check_costs(l->kind))
        return sweep_key_check(l->kind, l->key, v, m->spec.path, l->line, &m->checks, err);
    uint64_t h = sweep_hash_add(SWEEP_HASH_START, v, m->j.raw_len[at]);
    int added;
    if (hash_set_has(&m->good[i], h))
        return 0;
    return sweep_key_check(l->kind, l->key, v, m->spec.path, l->line, &m->checks, err) ||
                   hash_set_add(&m->good[i], h, &added, err)
               ? -1
               : 0;
}

/* Every value of job index, then what its keys make together. */
static int check_job(plan_maker *m, size_t index, sam_error *err)
{
    combo_at(m, index);
    for (size_t at = 0; at < m->c.nact; at++)
        if (value_at(m, at, 0, err) || check_value(m, at, err))
            return -1;
    if (index == m->c.start && combo_check(m, err))
        return -1;
    return template_check(m, err) || compile_check(m, err);
}

/* ---- jobs ------------------------------------------------------------- */

const char *sweep_job_get(const sweep_job *job, const char *key)
{
    for (size_t i = 0; i < job->nkeys; i++)
        if (!strcmp(job->keys[i].key, key))
            return job->keys[i].value;
    return NULL;
}

uint64_t sweep_hash_add(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* FNV-1a over the sorted keys: equal runs share a name, so results
 * survive a spec that is reordered or extended. */
static void job_hash(const plan_maker *m, char hash[17])
{
    uint64_t h = SWEEP_HASH_START;
    for (size_t n = 0; n < m->c.nact; n++) {
        size_t at = m->c.order[n];
        h = sweep_hash_add(h, place_key(m, at), m->key_len[m->c.act[at]] + 1);
        h = sweep_hash_add(h, m->j.value[at], m->j.value_len[at] + 1);
    }
    for (int d = 15; d >= 0; d--, h >>= 4)
        hash[d] = "0123456789abcdef"[h & 15];
    hash[16] = '\0';
}

int sweep_plan_job(sweep_plan *plan, size_t index, sweep_job *job, sam_error *err)
{
    plan_maker *m = plan->maker;
    job_state *j = &m->j;
    combo_at(m, index);
    for (size_t at = 0; at < m->c.nact; at++)
        if (value_at(m, at, 0, err) || resolve(m, at, err))
            return -1;
    /* Vars go with the keys, though no step reads them: jobs that differ
     * only in a var are still different jobs (repetitions, labels). */
    for (size_t n = 0; n < m->c.nact; n++)
        j->pairs[n] = (sweep_pair){place_key(m, m->c.order[n]), j->value[m->c.order[n]]};
    for (size_t k = 0; k < m->columns.n; k++) {
        const column_src *col = &m->column[k];
        j->params[k] = col->group >= 0 ? m->spec.sections[m->c.section[col->group]].name
                       : col->at >= 0  ? j->value[col->at]
                                       : "";
    }
    *job = (sweep_job){.keys = j->pairs, .nkeys = m->c.nact, .params = j->params};
    job_hash(m, job->hash);
    return 0;
}

/* ---- the plan --------------------------------------------------------- */

int sweep_plan_open(const char *spec, size_t max_jobs, const sweep_arg_checks *checks,
                    sweep_plan *plan, sam_error *err)
{
    memset(plan, 0, sizeof *plan);
    plan_maker *m = calloc(1, sizeof *m);
    if (!m)
        return error_set(err, "out of memory");
    m->checks = *checks;
    if (sweep_spec_read(spec, max_jobs, &m->spec, err)) {
        free(m);
        return -1;
    }
    plan->maker = m;
    int rc = intern_keys(m, err) || parse_forms(m, err) || index_sections(m, err) ||
                     count_jobs(m, max_jobs, &plan->njobs, err) || make_columns(m, err) ||
                     alloc_state(m, err)
                 ? -1
                 : 0;
    plan->columns = (const char *const *)m->columns.v;
    plan->ncolumns = m->columns.n;
    for (size_t i = 0; !rc && i < plan->njobs; i++)
        rc = check_job(m, i, err);
    if (rc)
        sweep_plan_close(plan);
    return rc;
}

static void free_state(plan_maker *m)
{
    for (size_t i = 0; i < m->spec.nlines; i++) {
        if (m->j.buf)
            strbuf_free(&m->j.buf[i]);
        if (m->j.abs)
            strbuf_free(&m->j.abs[i]);
        if (m->good)
            hash_table_free(&m->good[i].t);
    }
    free(m->j.digit);
    free(m->j.state);
    free(m->j.raw);
    free(m->j.value);
    free(m->j.raw_len);
    free(m->j.value_len);
    free(m->j.number);
    free(m->j.buf);
    free(m->j.abs);
    free(m->j.pairs);
    free(m->j.params);
    free(m->good);
    free(m->c.section);
    free(m->c.act);
    free(m->c.at);
    free(m->c.order);
    hash_table_free(&m->templates.t);
    hash_table_free(&m->compiles.t);
}

void sweep_plan_close(sweep_plan *plan)
{
    plan_maker *m = plan->maker;
    if (!m)
        return;
    free_state(m);
    for (size_t i = 0; m->forms && i < m->spec.nlines; i++) {
        for (size_t a = 0; m->forms[i] && a < m->spec.lines[i].nalts; a++)
            free(m->forms[i][a].pieces);
        free(m->forms[i]);
    }
    for (size_t k = 0; m->section_lines && k < m->spec.nsections; k++)
        free(m->section_lines[k]);
    for (size_t g = 0; m->groups && g < m->spec.ngroups; g++) {
        free(m->groups[g].sections);
        free(m->groups[g].weight);
    }
    words_free(&m->columns);
    free(m->forms);
    free(m->section_lines);
    free(m->nsection_lines);
    free(m->groups);
    free(m->column);
    free(m->keys);
    free(m->line_key);
    free(m->key_len);
    free(m->by_rank);
    free(m->owner);
    sweep_spec_free(&m->spec);
    free(m);
    memset(plan, 0, sizeof *plan);
}
