#include "tiling.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILING_MAX_ARGS (EXPR_MAX_INDICES * TILE_MAX_LEVELS)

/* One command's text, its name and arguments, for parsing and messages. */
typedef struct command {
    char text[1024];
    char name[16];
    char arg[TILING_MAX_ARGS][2 * TILING_NAME + 24];
    int nargs;
} command;

static int is_name(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    return *s == '\0';
}

/* Reads "name(a,b,...)" at *p into c, moving *p past it. */
static int read_command(const char **p, command *c, sam_error *err)
{
    const char *s = *p, *open = s + strspn(s, "abcdefghijklmnopqrstuvwxyz");
    const char *close = strchr(s, ')');
    size_t len = close ? (size_t)(close - s) + 1 : strcspn(s, " \t;");
    snprintf(c->text, sizeof c->text, "%.*s", (int)len, s);
    snprintf(c->name, sizeof c->name, "%.*s", (int)(open - s), s);
    *p = s + len;
    if (*open != '(' || !close || (strcmp(c->name, "split") && strcmp(c->name, "tileorder")))
        return error_set(err, "schedule: '%s' is not split(index,outer,inner,size) or "
                         "tileorder(coordinate,...)", c->text);
    c->nargs = 0;
    for (const char *q = open + 1; q <= close; c->nargs++) {
        size_t n = strcspn(q, ",)");
        if (n == 0 || n >= sizeof c->arg[0] || c->nargs == TILING_MAX_ARGS)
            return error_set(err, "schedule: %s: an empty, too long or extra argument", c->text);
        snprintf(c->arg[c->nargs], sizeof c->arg[0], "%.*s", (int)n, q);
        q += n + 1;
    }
    if (!strcmp(c->name, "split") && c->nargs != 4)
        return error_set(err, "schedule: %s: expected split(index,outer,inner,size)", c->text);
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

/* The index and level of tile coordinate name, or -1. */
static int find_coordinate(const tiling *t, const expr *e, const char *name, int *level)
{
    for (int i = 0; i < e->nindices; i++)
        for (int l = 0; l < t->nlevels[i]; l++)
            if (!strcmp(t->level[i][l].outer, name)) {
                *level = l;
                return i;
            }
    return -1;
}

/* The "/k1" of an occupancy size: counted per tile of coordinate k1 of
 * another index, which the leader has and which is not counted per tile
 * itself, so that one pass over the indices cuts the groups first. */
static int read_group(const tiling *t, const expr *e, int idx, const command *c,
                      const char *name, tiling_level *lv, sam_error *err)
{
    int level, gi = find_coordinate(t, e, name, &level);
    if (gi < 0 || gi == idx)
        return error_set(err, "schedule: %s: %s is not a tile coordinate of another index "
                         "split before", c->text, name);
    if (lv->leader < 0 || expr_access_mode(expr_access(e, lv->leader), gi) < 0)
        return error_set(err, "schedule: %s: counting per %s needs a leader indexed by %s",
                         c->text, name, e->indices[gi]);
    for (int l = 0; l < t->nlevels[gi]; l++)
        if (t->level[gi][l].group_index >= 0)
            return error_set(err, "schedule: %s: %s is itself counted per tile", c->text, name);
    lv->group_index = gi;
    lv->group_level = level;
    return 0;
}

/* "128", "B.64" or "B.64/k1" into lv. */
static int read_size(const tiling *t, const expr *e, int idx, const command *c,
                     tiling_level *lv, sam_error *err)
{
    char text[sizeof c->arg[3]];
    snprintf(text, sizeof text, "%s", c->arg[3]);
    char *s = text, *dot = strchr(s, '.'), *slash = strchr(s, '/');
    char leader[TILING_NAME + 16] = "";
    lv->leader = -1;
    lv->group_index = lv->group_level = -1;
    if (slash)
        *slash = '\0';
    if (dot)
        snprintf(leader, sizeof leader, "%.*s", (int)(dot - s), s);
    /* "2.5" is a size that is not whole, not a leader called 2. */
    if (dot && is_name(leader)) {
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
    return slash ? read_group(t, e, idx, c, slash + 1, lv, err) : 0;
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
    if (read_size(t, e, idx, c, lv, err))
        return -1;
    /* Both names were found shorter than TILING_NAME above. */
    memcpy(lv->outer, c->arg[1], strlen(c->arg[1]) + 1);
    memcpy(lv->inner, c->arg[2], strlen(c->arg[2]) + 1);
    if (++t->nlevels[idx] > t->depth)
        t->depth = t->nlevels[idx];
    return 0;
}

/* tileorder(...), checked once every split is known. */
static int add_order(tiling *t, const expr *e, const command *c, sam_error *err)
{
    int seen[EXPR_MAX_INDICES] = {0}, total = 0;
    for (int i = 0; i < e->nindices; i++)
        total += t->nlevels[i];
    for (int k = 0; k < c->nargs; k++) {
        int l, i = find_coordinate(t, e, c->arg[k], &l);
        if (i < 0)
            return error_set(err, "schedule: %s: %s is not a tile coordinate of a split",
                             c->text, c->arg[k]);
        if (l != seen[i])
            return error_set(err, "schedule: %s: %s %s", c->text, c->arg[k],
                             l < seen[i] ? "is named twice" : "comes before the outer level");
        seen[i]++;
        t->order_index[k] = i;
        t->order_level[k] = l;
    }
    if (c->nargs != total)
        return error_set(err, "schedule: %s: names %d of the %d tile coordinates", c->text,
                         c->nargs, total);
    t->norder = c->nargs;
    return 0;
}

int tiling_parse(const char *text, const expr *e, tiling *t, sam_error *err)
{
    memset(t, 0, sizeof *t);
    command order = {.nargs = -1};
    int rc = 0;
    for (const char *p = text; !rc;) {
        p += strspn(p, " \t;");
        if (!*p)
            break;
        command c;
        rc = read_command(&p, &c, err);
        if (!rc && !strcmp(c.name, "split"))
            rc = add_split(t, e, &c, err);
        else if (!rc && order.nargs >= 0)
            rc = error_set(err, "schedule: %s: the tile order is given twice", c.text);
        else if (!rc)
            order = c;
    }
    if (!rc && order.nargs >= 0)
        rc = add_order(t, e, &order, err);
    if (rc)
        memset(t, 0, sizeof *t);
    return rc;
}

/* Whether an occupancy level of index idx counts per tile of another. */
static int cut_grouped(const tiling *t, int idx)
{
    for (int l = 0; l < t->nlevels[idx]; l++)
        if (t->level[idx][l].group_index >= 0)
            return 1;
    return 0;
}

/* Level l of index i as its split command, after sep. */
static size_t format_split(const tiling *t, const expr *e, int i, int l, const char *sep,
                           char *buf, size_t size)
{
    const tiling_level *lv = &t->level[i][l];
    const char *split = l ? t->level[i][l - 1].inner : e->indices[i];
    char leader[TILING_NAME + 1] = "", group[TILING_NAME + 1] = "";
    if (lv->leader >= 0)
        snprintf(leader, sizeof leader, "%s.", e->tensors[lv->leader].name);
    if (lv->group_index >= 0)
        snprintf(group, sizeof group, "/%s", t->level[lv->group_index][lv->group_level].outer);
    return (size_t)snprintf(buf, size, "%ssplit(%s,%s,%s,%s%lld%s)", sep, split, lv->outer,
                            lv->inner, leader, (long long)lv->size, group);
}

void tiling_format(const tiling *t, const expr *e, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    /* A level counted per tile of another index comes after that index's
     * splits, so that the text parses back. */
    for (int pass = 0; pass < 2; pass++)
        for (int l = 0; l < t->depth; l++)
            for (int i = 0; i < e->nindices; i++)
                if (l < t->nlevels[i] && used < size && cut_grouped(t, i) == pass)
                    used += format_split(t, e, i, l, used ? " " : "", buf + used, size - used);
    for (int k = 0; k < t->norder && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? "," : " tileorder(",
                                 t->level[t->order_index[k]][t->order_level[k]].outer);
    if (t->norder && used < size)
        snprintf(buf + used, size - used, ")");
}

int tiling_order(const tiling *t, const int *loop, int nloop, int *index, int *level)
{
    if (t->norder) {
        memcpy(index, t->order_index, (size_t)t->norder * sizeof *index);
        memcpy(level, t->order_level, (size_t)t->norder * sizeof *level);
        return t->norder;
    }
    int n = 0;
    for (int l = 0; l < t->depth; l++)
        for (int k = 0; k < nloop; k++)
            if (l < t->nlevels[loop[k]]) {
                index[n] = loop[k];
                level[n++] = l;
            }
    return n;
}

/* Level lv of index idx by its leader's occupancy, counted per tile of
 * the group's index when it names one. */
static int cut_occupancy(const tiling_level *lv, const expr *e, const tensor *const *leader,
                         int idx, tile_split *split, sam_error *err)
{
    const tensor *lead = leader[lv->leader];
    const expr_node *a = expr_access(e, lv->leader);
    const int64_t *crd = lead->crd[expr_access_mode(a, idx)];
    if (lv->group_index < 0)
        return tile_split_add_occupancy(&split[idx], crd, lead->nnz, lv->size, err);
    int64_t *group = error_alloc(err, lead->nnz ? lead->nnz : 1, sizeof *group);
    if (!group)
        return -1;
    const int64_t *by = lead->crd[expr_access_mode(a, lv->group_index)];
    for (size_t n = 0; n < lead->nnz; n++) {
        int64_t extent;
        tile_split_range_at(&split[lv->group_index], lv->group_level, by[n], &group[n], &extent);
    }
    int rc = tile_split_add_occupancy_grouped(&split[idx], crd, group, lead->nnz, lv->size, err);
    free(group);
    return rc;
}

static int cut_index(const tiling *t, const expr *e, const tensor *const *leader, int idx,
                     tile_split *split, sam_error *err)
{
    for (int l = 0; l < t->nlevels[idx]; l++) {
        const tiling_level *lv = &t->level[idx][l];
        int rc = lv->leader < 0 ? tile_split_add_shape(&split[idx], lv->size, err)
                                : cut_occupancy(lv, e, leader, idx, split, err);
        if (rc)
            return error_wrap(err, "split(%s,%s,%s,...)",
                              l ? t->level[idx][l - 1].inner : e->indices[idx], lv->outer,
                              lv->inner);
    }
    return 0;
}

int tiling_cut(const tiling *t, const expr *e, const tensor *const *leader, const int64_t *dims,
               tile_split *split, sam_error *err)
{
    for (int i = 0; i < e->nindices; i++)
        tile_split_init(&split[i], dims[i]);
    /* A group is never itself counted per tile (tiling_parse), so the
     * ungrouped indices first cut every group. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < e->nindices; i++)
            if (cut_grouped(t, i) == pass && cut_index(t, e, leader, i, split, err))
                return -1;
    return 0;
}
