/* samsim template [NAME [--param KEY=VALUE]... -o DIR]: lists the
 * accelerator templates, or writes one (templates/template.h). */
#include <stdio.h>
#include <string.h>

#include "../templates/template.h"
#include "args.h"
#include "commands.h"
#include "options.h"

static void list_params(const template_def *t)
{
    printf("%s: %s\n", t->name, t->about);
    param_print_list(stdout, t->params, 2);
}

static int list_all(void)
{
    printf("templates (samsim template NAME [--param KEY=VALUE]... -o DIR; "
           "then samsim run DIR -t A=FILE -t B=FILE):\n\n");
    for (int i = 0; templates[i]; i++) {
        list_params(templates[i]);
        printf("\n");
    }
    return 0;
}

enum { OPT_PARAM = 1, OPT_OUT };

static const cli_option template_options[] = {
    {OPT_PARAM, "--param", "KEY=VALUE", "sets a parameter (PE count, tile sizes, bandwidth, ...)",
     NULL},
    {OPT_OUT, "-o", "DIR", "the directory written (made when missing)", NULL},
    {0, NULL, NULL, NULL, NULL},
};

typedef struct template_opts {
    const char *name, *dir;
    const char *param[64];
    int nparams;
} template_opts;

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    template_opts *o = ctx;
    switch (id) {
    case CLI_OPERAND:
        if (o->name)
            return error_set(err, "template: unexpected argument '%s'", v);
        return o->name = v, 0;
    case OPT_PARAM:
        if (o->nparams == 64)
            return error_set(err, "template: more than 64 --param");
        return o->param[o->nparams++] = v, 0;
    default:
        if (!*v)
            return error_set(err, "template: -o needs a directory name, not an empty one");
        return o->dir = v, 0;
    }
}

/* The template o names, or NULL with err set. */
static const template_def *find(const template_opts *o, sam_error *err)
{
    const template_def *t = template_find(o->name);
    if (t)
        return t;
    char names[128] = "";
    for (int i = 0; templates[i]; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 templates[i]->name);
    error_set(err, "template: no template '%s' (there are %s)", o->name, names);
    return NULL;
}

int cmd_template(int argc, char **argv)
{
    sam_error err;
    template_opts o = {0};
    if (options_parse(&cmd_template_command, argc, argv, take, &o, &err))
        return args_fail(&err);
    if (!o.name && !o.nparams && !o.dir)
        return list_all();
    const template_def *t = o.name ? find(&o, &err) : NULL;
    if (!o.name)
        error_set(&err, "template: give the template's NAME (samsim template lists them)");
    if (!t)
        return args_fail(&err);
    double values[TEMPLATE_MAX_PARAMS];
    template_defaults(t, values);
    for (int i = 0; i < o.nparams; i++)
        if (template_set(t, values, o.param[i], &err))
            return args_fail(&err);
    if (!o.dir) {
        list_params(t);
        return 0;
    }
    if (template_write(t, values, o.dir, &err))
        return args_fail(&err);
    printf("template %s written to %s (samsim run %s -t A=FILE -t B=FILE)\n", t->name, o.dir,
           o.dir);
    return 0;
}

const cli_command cmd_template_command = {
    .name = "template",
    .run = cmd_template,
    .synopsis = "[NAME [--param KEY=VALUE]... -o DIR]",
    .about = "Writes an accelerator template (ExTensor, OuterSPACE, Gamma, SIGMA): its SAM "
        "graphs and hardware descriptions, run with samsim run DIR -t A=FILE -t B=FILE. Without "
        "arguments lists the templates and their parameters; with NAME alone, that template's.",
    .options = template_options,
};
