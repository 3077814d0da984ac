#include "tiling.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One command's text and its four arguments, for parsing and messages. */
typedef struct command {
    char text[256];
    char arg[4][TILING_NAME + 16];
} command;

static int is_name(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    return *s == '\0';
}

/* Reads "split(a,b,c,d)" at *p into c, moving *p past it. */
static int read_command(const char **p, command *c, sam_error *err)
{
    const char *s = *p, *close = strchr(s, ')');
    size_t len = close ? (size_t)(close - s) + 1 : strcspn(s, " \t;");
    snprintf(c->text, sizeof c->text, "%.*s", (int)len, s);
    *p = s + len;
    if (strncmp(s, "split(", 6) || !close)
        return error_set(err, "schedule: '%s' is not split(index,outer,inner,size)", c->text);
    const char *q = s + 6;
    for (int k = 0; k < 4; k++) {
        size_t n = strcspn(q, ",)");
        if (q + n > close || (k < 3) != (q[n] == ',') || n == 0 || n > TILING_NAME + 8)
            return error_set(err, "schedule: %s: expected split(index,outer,inner,size)",
                             c->text);
        snprintf(c->arg[k], sizeof c->arg[k], "%.*s", (int)n, q);
        q += n + 1;
    }
    return 0;
}

/* Whether name is an index of e or a name an earlier split gave. */
static int name_taken(const tiling *t, const expr *e, const char *name)
{
    if (expr_find_index(e, name) >= 0)
        return 1;
    for (int i = 0; i < e->nindices; i++)
        for (int l = 0; l < t->nlevels[i]; l++)
            if (!strcmp(t->level[i][l].outer, name) || !strcmp(t->level[i][l].inner, name))
                return 1;
    return 0;
}

/* The index whose innermost part is called name, or -1 with the error. */
static int split_target(const tiling *t, const expr *e, const command *c, sam_error *err)
{
    const char *name = c->arg[0];
    for (int i = 0; i < e->nindices; i++) {
        int n = t->nlevels[i];
        if (!strcmp(n ? t->level[i][n - 1].inner : e->indices[i], name))
            return i;
        for (int l = 0; l < n; l++)
            if (!strcmp(t->level[i][l].outer, name))
                return error_set(err, "schedule: %s: %s is a tile coordinate; split the inner "
                                 "part %s", c->text, name, t->level[i][n - 1].inner);
    }
    return error_set(err, "schedule: %s: no index %s in the expression", c->text, name);
}

/* "128" or "B.64" into lv. */
static int read_size(const expr *e, int idx, const command *c, tiling_level *lv, sam_error *err)
{
    const char *s = c->arg[3], *dot = strchr(s, '.');
    char leader[TILING_NAME + 16] = "";
    lv->leader = -1;
    if (dot) {
        snprintf(leader, sizeof leader, "%.*s", (int)(dot - s), s);
        lv->leader = expr_find_tensor(e, leader);
        if (lv->leader <= 0 || expr_access_mode(expr_access(e, lv->leader), idx) < 0)
            return error_set(err, "schedule: %s: the leader %s is not an operand indexed by %s",
                             c->text, leader, e->indices[idx]);
        s = dot + 1;
    }
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!isdigit((unsigned char)*s) || *end || errno || v < 1)
        return error_set(err, "schedule: %s: the size '%s' is not a whole number of at least 1",
                         c->text, s);
    lv->size = v;
    return 0;
}

static int add_split(tiling *t, const expr *e, const command *c, sam_error *err)
{
    int idx = split_target(t, e, c, err);
    if (idx < 0)
        return -1;
    for (int k = 1; k < 3; k++)
        if (!is_name(c->arg[k]) || strlen(c->arg[k]) >= TILING_NAME || name_taken(t, e, c->arg[k]))
            return error_set(err, "schedule: %s: '%s' is not a new index name", c->text,
                             c->arg[k]);
    if (!strcmp(c->arg[1], c->arg[2]))
        return error_set(err, "schedule: %s: the outer and inner names are the same", c->text);
    if (t->nlevels[idx] == TILE_MAX_LEVELS)
        return error_set(err, "schedule: %s: index %s is split more than %d times", c->text,
                         e->indices[idx], TILE_MAX_LEVELS);
    tiling_level *lv = &t->level[idx][t->nlevels[idx]];
    if (read_size(e, idx, c, lv, err))
        return -1;
    /* Both names were found shorter than TILING_NAME above. */
    memcpy(lv->outer, c->arg[1], strlen(c->arg[1]) + 1);
    memcpy(lv->inner, c->arg[2], strlen(c->arg[2]) + 1);
    if (++t->nlevels[idx] > t->depth)
        t->depth = t->nlevels[idx];
    return 0;
}

int tiling_parse(const char *text, const expr *e, tiling *t, sam_error *err)
{
    memset(t, 0, sizeof *t);
    for (const char *p = text;;) {
        p += strspn(p, " \t;");
        if (!*p)
            return 0;
        command c;
        if (read_command(&p, &c, err) || add_split(t, e, &c, err)) {
            memset(t, 0, sizeof *t);
            return -1;
        }
    }
}

void tiling_format(const tiling *t, const expr *e, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int l = 0; l < t->depth; l++)
        for (int i = 0; i < e->nindices; i++) {
            if (l >= t->nlevels[i] || used >= size)
                continue;
            const tiling_level *lv = &t->level[i][l];
            const char *split = l ? t->level[i][l - 1].inner : e->indices[i];
            char leader[TILING_NAME + 1] = "";
            if (lv->leader >= 0)
                snprintf(leader, sizeof leader, "%s.", e->tensors[lv->leader].name);
            used += (size_t)snprintf(buf + used, size - used, "%ssplit(%s,%s,%s,%s%lld)",
                                     used ? " " : "", split, lv->outer, lv->inner, leader,
                                     (long long)lv->size);
        }
}

int tiling_order(const tiling *t, const int *loop, int nloop, int *index, int *level)
{
    int n = 0;
    for (int l = 0; l < t->depth; l++)
        for (int k = 0; k < nloop; k++)
            if (l < t->nlevels[loop[k]]) {
                index[n] = loop[k];
                level[n++] = l;
            }
    return n;
}
