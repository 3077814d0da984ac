/* The templates' registry, their parameters, and the files a template
 * writes. */
#include "template.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/atomic_file.h"
#include "../common/number.h"
#include "../graph/dot_write.h"
#include "../builder/config.h"
#include "../hwmodel/hw.h"

extern const template_def template_extensor, template_outerspace, template_gamma,
    template_sigma;

const template_def *const templates[] = {&template_extensor, &template_outerspace,
                                         &template_gamma, &template_sigma, NULL};

const template_def *template_find(const char *name)
{
    for (int i = 0; templates[i]; i++)
        if (!strcmp(templates[i]->name, name))
            return templates[i];
    return NULL;
}

void template_defaults(const template_def *t, double *values)
{
    for (int i = 0; t->params[i].name; i++)
        values[i] = t->params[i].def;
}

/* The parameter of the key of len bytes and its index, or NULL. */
static const param *param_of(const template_def *t, const char *key, size_t len, int *index)
{
    const param *p = param_find(t->params, key, len);
    if (p)
        *index = (int)(p - t->params);
    return p;
}

int template_set(const template_def *t, double *values, const char *assignment, sam_error *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return error_set(err, "template %s: --param takes KEY=VALUE, not '%s'", t->name,
                         assignment);
    int i;
    const param *p = param_of(t, assignment, (size_t)(eq - assignment), &i);
    if (!p)
        return error_set(err, "template %s: no parameter '%.*s' (samsim template %s lists them)",
                         t->name, (int)(eq - assignment), assignment, t->name);
    double v;
    char why[256];
    if (param_parse(p, eq + 1, &v, why, sizeof why))
        return error_set(err, "template %s: %s", t->name, why);
    values[i] = v;
    return 0;
}

double template_value(const template_def *t, const double *values, const char *key)
{
    int i = 0;
    if (!param_of(t, key, strlen(key), &i))
        abort();    /* a template reads only what it declares */
    return values[i];
}

void template_hw(template_phase *p, const char *fmt, ...)
{
    size_t len = strlen(p->hw);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->hw + len, sizeof p->hw - len, fmt, ap);
    va_end(ap);
    len = strlen(p->hw);
    if (len + 1 < sizeof p->hw)
        strcpy(p->hw + len, "\n");
}

template_phase *template_phase_add(template_plan *plan, const char *name, const char *expr)
{
    template_phase *p = &plan->phase[plan->nphases++];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->expr, sizeof p->expr, "%s", expr);
    return p;
}

void template_format(template_phase *p, const char *format)
{
    snprintf(p->formats[p->nformats++], sizeof p->formats[0], "%s", format);
}

void template_hw_keys(template_phase *p, const template_def *t, const double *values,
                      const char *keys)
{
    char text[512];
    snprintf(text, sizeof text, "%s", keys);
    for (char *save, *key = strtok_r(text, " ", &save); key; key = strtok_r(NULL, " ", &save))
        template_hw(p, "%s = %.10g", key, template_value(t, values, key));
}

void template_hw_dram_interleaved(template_phase *p)
{
    template_hw(p, "# main memory serves the requests in flight a burst at a time: a transfer");
    template_hw(p, "# uses whatever time its link has free (TeAAL: bytes over bandwidth)");
    template_hw(p, "dram.interleave = 1");
}

void template_compile_args(const template_phase *p, compile_args *a, const char **formats)
{
    for (int i = 0; i < p->nformats; i++)
        formats[i] = p->formats[i];
    *a = (compile_args){.expression = p->expr, .formats = formats, .nformats = p->nformats,
                        .schedule = p->schedule[0] ? p->schedule : NULL,
                        .tiling = p->tiling[0] ? p->tiling : NULL,
                        .locate = p->locate[0] ? p->locate : NULL,
                        .parallelize = p->parallelize[0] ? p->parallelize : NULL};
}

/* The phase's settings as the graph's node attributes, where the graph
 * describes the design. */
static int apply_settings(const template_phase *p, sam_graph *g, sam_error *err)
{
    sim_config c = {0};
    char text[sizeof p->settings];
    snprintf(text, sizeof text, "%s", p->settings);
    int rc = 0;
    for (char *save, *item = strtok_r(text, " ", &save); item && !rc;
         item = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(item, '=');
        *eq = '\0';
        rc = sim_config_add(&c, item, eq + 1, p->name, err);
    }
    sim_options unused = {0};
    rc = rc || sim_config_apply(&c, g, &unused, err);
    sim_config_free(&c);
    return rc;
}

static int compile_phase(const template_phase *p, sam_graph *g, sam_error *err)
{
    compile_args a;
    const char *formats[TEMPLATE_MAX_FORMATS];
    template_compile_args(p, &a, formats);
    if (custard_compile(&a, g, err))
        return error_prefix(err, p->name);
    if (apply_settings(p, g, err)) {
        graph_free(g);
        return -1;
    }
    return 0;
}

static int write_text(const char *path, const char *text, sam_error *err)
{
    atomic_file af = {0};
    if (atomic_file_open(&af, path, err))
        return -1;
    fputs(text, af.f);
    int rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err);
    atomic_file_discard(&af);
    return rc ? -1 : 0;
}

/* template.conf: what `samsim run DIR` reads, and the values it was made
 * with, for the reader. */
static void conf_text(const template_def *t, const double *values, const template_plan *plan,
                      char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "# %s: %s\n# made by samsim template; `samsim run "
                                "DIR` reads the three keys below\ntemplate = %s\nexpr = %s\n",
                                t->name, t->about, t->name, TEMPLATE_EXPR);
    for (int i = 0; i < plan->nphases && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "phase = %s\n", plan->phase[i].name);
    if (n < size)
        n += (size_t)snprintf(buf + n, size - n, "# the parameters it was made with (samsim "
                              "template %s --param KEY=VALUE):\n", t->name);
    for (int i = 0; t->params[i].name && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "#   %s = %.10g\n", t->params[i].name, values[i]);
}

static int make_dir(const char *dir, sam_error *err)
{
    struct stat st;
    if (!stat(dir, &st))
        return S_ISDIR(st.st_mode) ? 0 : error_set(err, "%s: exists and is not a directory", dir);
    return mkdir(dir, 0777) ? error_set(err, "%s: %s", dir, strerror(errno)) : 0;
}

/* Each parameter is checked alone by template_set; what they make
 * together (OuterSPACE's PEs are pt.count x pe.per.pt) is checked by
 * reading every phase's hardware as `samsim run` will. */
static int check_plan(const template_def *t, const template_plan *plan, sam_error *err)
{
    for (int i = 0; i < plan->nphases; i++) {
        char name[64];
        hw_desc hw;
        hw_defaults(&hw);
        snprintf(name, sizeof name, "%s.hw", plan->phase[i].name);
        if (hw_read_text(name, plan->phase[i].hw, &hw, err))
            return error_wrap(err, "template %s: these parameters make hardware samsim cannot "
                              "run", t->name);
    }
    return 0;
}

int template_check(const template_def *t, const double *values, sam_error *err)
{
    template_plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        return error_set(err, "out of memory");
    t->plan(t, values, plan);
    int rc = check_plan(t, plan, err);
    free(plan);
    return rc;
}

int template_build(const template_def *t, const double *values, template_plan *plan,
                   sam_graph *graphs, sam_error *err)
{
    memset(plan, 0, sizeof *plan);
    t->plan(t, values, plan);
    if (check_plan(t, plan, err))
        return -1;
    for (int i = 0; i < plan->nphases; i++)
        if (compile_phase(&plan->phase[i], &graphs[i], err)) {
            while (i-- > 0)
                graph_free(&graphs[i]);
            return -1;
        }
    return 0;
}

int template_write(const template_def *t, const double *values, const char *dir,
                   sam_error *err)
{
    template_plan *plan = calloc(1, sizeof *plan);
    sam_graph g[TEMPLATE_MAX_PHASES];
    char text[TEMPLATE_TEXT], path[4096];
    if (!plan)
        return error_set(err, "out of memory");
    if (template_build(t, values, plan, g, err)) {
        free(plan);
        return -1;
    }
    int rc = make_dir(dir, err);
    for (int i = 0; i < plan->nphases && !rc; i++) {
        const template_phase *p = &plan->phase[i];
        snprintf(path, sizeof path, "%s/%s.gv", dir, p->name);
        rc = graph_write_dot_file(&g[i], path, err);
        snprintf(path, sizeof path, "%s/%s.hw", dir, p->name);
        rc = rc || write_text(path, p->hw, err);
    }
    conf_text(t, values, plan, text, sizeof text);
    snprintf(path, sizeof path, "%s/template.conf", dir);
    rc = rc || write_text(path, text, err);
    for (int i = 0; i < plan->nphases; i++)
        graph_free(&g[i]);
    free(plan);
    return rc ? -1 : 0;
}
