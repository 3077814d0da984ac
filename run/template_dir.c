/* Reading a template directory (template_dir.h). */
#include "template_dir.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/keyval.h"

int template_dir_is(const char *path)
{
    char conf[TEMPLATE_DIR_PATH];
    struct stat st;
    snprintf(conf, sizeof conf, "%s/template.conf", path);
    return !stat(path, &st) && S_ISDIR(st.st_mode) && !stat(conf, &st);
}

static int conf_phase(template_dir *d, const char *value, const char *origin, sam_error *err)
{
    if (!*value || strlen(value) >= sizeof d->phase[0] || strchr(value, '/') ||
        !strcmp(value, ".") || !strcmp(value, ".."))
        return error_set(err, "%s: phase '%s' is not a file stem of the directory", origin,
                         value);
    for (int i = 0; i < d->nphases; i++)
        if (!strcmp(d->phase[i], value))
            return error_set(err, "%s: phase '%s' is listed twice", origin, value);
    if (d->nphases == TEMPLATE_MAX_PHASES)
        return error_set(err, "%s: phase '%s': at most %d phases", origin, value,
                         TEMPLATE_MAX_PHASES);
    snprintf(d->phase[d->nphases++], sizeof d->phase[0], "%s", value);
    return 0;
}

static int conf_line(void *ctx, const char *key, const char *value, const char *origin,
                     sam_error *err)
{
    template_dir *d = ctx;
    if (!strcmp(key, "template"))
        snprintf(d->name, sizeof d->name, "%s", value);
    else if (!strcmp(key, "expr"))
        snprintf(d->expr, sizeof d->expr, "%s", value);
    else if (!strcmp(key, "phase"))
        return conf_phase(d, value, origin, err);
    else
        return error_set(err, "%s: unknown key '%s' (template, expr, phase)", origin, key);
    return 0;
}

/* The phase's graph and hardware. */
static int read_phase(template_dir *d, const char *dir, int p, sam_error *err)
{
    char phase[sizeof d->phase[0]];
    memcpy(phase, d->phase[p], sizeof phase);
    snprintf(d->gv[p], sizeof d->gv[0], "%s/%s.gv", dir, phase);
    snprintf(d->hw_path[p], sizeof d->hw_path[0], "%s/%s.hw", dir, phase);
    if (graph_read_dot(d->gv[p], &d->g[p], err))
        return -1;
    d->ngraphs++;
    if (!graph_attr_get(&d->g[p], "tiling") || !graph_attr_get(&d->g[p], "expr") ||
        d->g[p].ntensors == 0)
        return error_at(err, d->gv[p], 0, "a template's graph records its tiling, expression "
                        "and tensors");
    hw_defaults(&d->hw[p]);
    return hw_read(d->hw_path[p], &d->hw[p], err);
}

static int read_all(const char *path, template_dir *d, sam_error *err)
{
    snprintf(d->path, sizeof d->path, "%s", path);
    snprintf(d->conf, sizeof d->conf, "%s/template.conf", path);
    if (keyval_read(d->conf, conf_line, d, err))
        return -1;
    if (!d->name[0] || !d->expr[0] || !d->nphases)
        return error_set(err, "%s: needs template, expr and at least one phase", d->conf);
    for (int p = 0; p < d->nphases; p++)
        if (read_phase(d, path, p, err))
            return -1;
    return 0;
}

int template_dir_read(const char *path, template_dir *d, sam_error *err)
{
    memset(d, 0, sizeof *d);
    if (!read_all(path, d, err))
        return 0;
    template_dir_free(d);
    return -1;
}

void template_dir_free(template_dir *d)
{
    for (int p = 0; p < d->ngraphs; p++)
        graph_free(&d->g[p]);
    d->ngraphs = 0;
}

/* The first phase whose result is name, or -1. */
static int maker(const template_dir *d, const char *name)
{
    for (int p = 0; p < d->nphases; p++)
        if (!strcmp(d->g[p].tensors[0].name, name))
            return p;
    return -1;
}

static int reader(const template_dir *d, const char *name)
{
    for (int p = 0; p < d->nphases; p++) {
        const graph_tensor *gt = graph_tensor_find(&d->g[p], name);
        if (gt && gt != &d->g[p].tensors[0])
            return p;
    }
    return -1;
}

static int bound(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

static int check_bindings(const template_dir *d, const char *const *names, int n,
                          sam_error *err)
{
    for (int i = 0; i < n; i++) {
        int m = maker(d, names[i]);
        if (m >= 0)
            return error_set(err, "run: -t %s: %s is the %s phase's result, not an operand of %s",
                             names[i], names[i], d->phase[m], d->path);
        if (reader(d, names[i]) < 0)
            return error_set(err, "run: -t %s: no phase of %s reads a tensor %s", names[i],
                             d->path, names[i]);
    }
    return 0;
}

static int check_phases(const template_dir *d, const char *const *names, int n, sam_error *err)
{
    for (int p = 0; p < d->nphases; p++) {
        const sam_graph *g = &d->g[p];
        int m = maker(d, g->tensors[0].name);
        if (m != p)
            return error_at(err, d->gv[p], 0, "its result %s is the %s phase's result too",
                            g->tensors[0].name, d->phase[m]);
        for (int k = 1; k < g->ntensors; k++) {
            const char *name = g->tensors[k].name;
            m = maker(d, name);
            if (m >= p)
                return error_at(err, d->gv[p], 0, "reads %s, the result of the %s phase, which "
                                "does not run before it", name, d->phase[m]);
            if (m < 0 && !bound(names, n, name))
                return error_at(err, d->gv[p], 0, "tensor %s is not bound (give -t %s=FILE)",
                                name, name);
        }
    }
    return 0;
}

int template_dir_check_operands(const template_dir *d, const char *const *names, int n,
                                sam_error *err)
{
    return check_bindings(d, names, n, err) || check_phases(d, names, n, err) ? -1 : 0;
}
