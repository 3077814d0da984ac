/* samsim template [NAME [--param KEY=VALUE]... -o DIR]: lists the
 * accelerator templates, or writes one (templates/template.h). */
#include <stdio.h>
#include <string.h>

#include "../templates/template.h"
#include "args.h"
#include "commands.h"

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

static int parse(int argc, char **argv, const template_def *t, double *values, const char **dir,
                 sam_error *err)
{
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if ((r = args_option(argc, argv, &i, "--param", &v, err))) {
            if (r < 0 || template_set(t, values, v, err))
                return -1;
        } else if ((r = args_option(argc, argv, &i, "-o", &v, err))) {
            if (r < 0)
                return -1;
            if (!*v)
                return error_set(err, "template: -o needs a directory name, not an empty one");
            *dir = v;
        } else {
            return error_set(err, "template: unexpected argument '%s'", argv[i]);
        }
    }
    return 0;
}

int cmd_template(int argc, char **argv)
{
    sam_error err;
    if (argc == 0)
        return list_all();
    const template_def *t = template_find(argv[0]);
    if (!t) {
        char names[128] = "";
        for (int i = 0; templates[i]; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     templates[i]->name);
        error_set(&err, "template: no template '%s' (there are %s)", argv[0], names);
        return args_fail(&err);
    }
    double values[TEMPLATE_MAX_PARAMS];
    const char *dir = NULL;
    template_defaults(t, values);
    if (parse(argc, argv, t, values, &dir, &err))
        return args_fail(&err);
    if (!dir) {
        list_params(t);
        return 0;
    }
    if (template_write(t, values, dir, &err))
        return args_fail(&err);
    printf("template %s written to %s (samsim run %s -t A=FILE -t B=FILE)\n", t->name, dir, dir);
    return 0;
}
