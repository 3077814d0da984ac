/* samsim convert IN OUT: from any tensor format to any other. */
#include <stdio.h>
#include <string.h>

#include "../formats/shift.h"
#include "../formats/tensor_file.h"
#include "args.h"
#include "commands.h"
#include "outputs.h"

typedef struct convert_opts {
    tensor_file in, out;
    int shift;
} convert_opts;

static int parse_option(int argc, char **argv, int *i, convert_opts *o, sam_error *err)
{
    const char *v;
    int r;
    if ((r = args_option(argc, argv, i, "--format", &v, err)))
        return r < 0 ? -1 : (o->out.format = v, 0);
    if ((r = args_option(argc, argv, i, "--in-format", &v, err)))
        return r < 0 ? -1 : (o->in.format = v, 0);
    if ((r = args_option(argc, argv, i, "--tensor", &v, err))) {
        if (r < 0)
            return -1;
        o->out.name = v;
        if (!o->in.name)
            o->in.name = v;
        return 0;
    }
    if ((r = args_option(argc, argv, i, "--in-tensor", &v, err)))
        return r < 0 ? -1 : (o->in.name = v, 0);
    if ((r = args_option(argc, argv, i, "--shape", &v, err)))
        return r < 0 ? -1 : args_shape("--shape", v, &o->in.order, o->in.dims, err);
    if (!strcmp(argv[*i], "--shift"))
        return o->shift = 1, 0;
    return error_set(err, "convert: unknown option '%s'", argv[*i]);
}

static int parse_args(int argc, char **argv, convert_opts *o, sam_error *err)
{
    memset(o, 0, sizeof *o);
    int files = 0;
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            if (parse_option(argc, argv, &i, o, err))
                return -1;
        } else if (files < 2) {
            (files++ ? &o->out : &o->in)->path = argv[i];
        } else {
            return error_set(err, "convert: unexpected argument '%s'", argv[i]);
        }
    }
    if (files < 2)
        return error_set(err, "usage: samsim convert IN OUT [--format LEVELS[:ORDER]] "
                              "[--tensor NAME] [--shift]");
    if (o->in.name && !o->out.name)
        o->out.name = o->in.name;
    const io_file in = {"IN", o->in.path, o->in.name};
    const io_file out = {"OUT", o->out.path, o->out.name ? o->out.name : "B"};
    return outputs_check("convert", &in, 1, &out, 1, err);
}

/* Replaces t by its SAM second-operand copy. */
static int apply_shift(tensor *t, sam_error *err)
{
    tensor shifted;
    if (tensor_shift(t, &shifted, err))
        return -1;
    tensor_free(t);
    *t = shifted;
    return 0;
}

int cmd_convert(int argc, char **argv)
{
    convert_opts o;
    sam_error err;
    tensor t;
    if (parse_args(argc, argv, &o, &err) || tensor_file_read(&o.in, &t, &err))
        return args_fail(&err);
    /* A SAM directory copied to another keeps its layout unless told. */
    char stored[2 * TENSOR_MAX_ORDER + 1];
    if (!o.out.format && o.in.has_stored && tensor_file_kind_of(o.out.path) == TENSOR_FILE_SAMDIR &&
        strcmp(o.out.path, "-")) {
        level_format_str(&o.in.stored, stored, sizeof stored);
        o.out.format = stored;
    }
    int rc = o.shift ? apply_shift(&t, &err) : 0;
    if (rc == 0)
        rc = outputs_write_tensor(&o.out, &t, &err);
    tensor_free(&t);
    return rc ? args_fail(&err) : 0;
}
