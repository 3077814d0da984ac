/* The templates' parameters, as `samsim template NAME --param KEY=VALUE
 * ... -o DIR` takes them, without writing DIR: the first line of the
 * input names the template, every further line is a --param assignment.
 * Assignments are set as template_set sets them (a refused one is
 * skipped, and must leave the values as they were); the values are
 * checked as template_check checks them, and the plan compiled into every
 * phase's graph in memory (template_build), nothing written. Parameters that template_check accepts must compile
 * (what samsim template writes, samsim run then reads), and those it
 * refuses must not: anything else aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../templates/template.h"
#include "fuzz_input.h"

#define FUZZ_MAX_LINES 64

/* A refused assignment changes nothing; an accepted one only its key. */
static void set_param(const template_def *t, double *values, const char *line)
{
    double before[TEMPLATE_MAX_PARAMS];
    int n = 0;
    while (t->params[n].name)
        n++;
    memcpy(before, values, sizeof before);
    sam_error err;
    int rc = template_set(t, values, line, &err);
    for (int i = 0; i < n; i++) {
        const param *p = &t->params[i];
        int changed = memcmp(&before[i], &values[i], sizeof values[i]) != 0;
        if ((rc && changed) || values[i] < p->min || values[i] > p->max)
            abort();
        if (changed && (strncmp(line, p->name, strlen(p->name)) || line[strlen(p->name)] != '='))
            abort();
    }
}

/* Every phase's graph records what samsim run DIR needs. */
static void check_graphs(const template_plan *plan, sam_graph *graphs)
{
    for (int i = 0; i < plan->nphases; i++) {
        const sam_graph *g = &graphs[i];
        if (!graph_attr_get(g, "tiling") || !graph_attr_get(g, "expr") || g->ntensors < 2)
            abort();
    }
    const sam_graph *last = &graphs[plan->nphases - 1];
    if (strcmp(last->tensors[0].name, "Z"))
        abort();
}

static void build(const template_def *t, const double *values)
{
    sam_error check_err, build_err;
    template_plan *plan = calloc(1, sizeof *plan);
    sam_graph graphs[TEMPLATE_MAX_PHASES];
    if (!plan)
        abort();
    int checked = template_check(t, values, &check_err);
    int built = template_build(t, values, plan, graphs, &build_err);
    if (!checked != !built) {
        fprintf(stderr, "template_check: %s\ntemplate_build: %s\n", checked ? check_err.msg : "ok",
                built ? build_err.msg : "ok");
        abort();
    }
    if (!built) {
        check_graphs(plan, graphs);
        for (int i = 0; i < plan->nphases; i++)
            graph_free(&graphs[i]);
    }
    free(plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *lines[FUZZ_MAX_LINES];
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    int n = 0;
    for (char *p = text; p && n < FUZZ_MAX_LINES; n++) {
        lines[n] = p;
        if ((p = strchr(p, '\n')))
            *p++ = '\0';
    }
    const template_def *t = template_find(lines[0]);
    if (t) {
        double values[TEMPLATE_MAX_PARAMS];
        template_defaults(t, values);
        for (int i = 1; i < n; i++)
            set_param(t, values, lines[i]);
        build(t, values);
    }
    free(text);
    return 0;
}
