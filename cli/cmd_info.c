/* samsim info FILE: what a tensor holds and how its levels fill up. */
#include <stdio.h>
#include <string.h>

#include "../formats/fibertree.h"
#include "../formats/level_format.h"
#include "../formats/tensor_file.h"
#include "args.h"
#include "commands.h"
#include "options.h"

enum { OPT_FORMAT = 1, OPT_TENSOR, OPT_IN_FORMAT, OPT_SHAPE };

static const cli_option info_options[] = {
    {OPT_FORMAT, "--format", "LEVELS[:ORDER]", "the level format the statistics are for", NULL},
    {OPT_TENSOR, "--tensor", "NAME", "tensor name in a SAM directory", NULL},
    {OPT_IN_FORMAT, "--in-format", "LEVELS[:ORDER]", "how to read a SAM directory", NULL},
    {OPT_SHAPE, "--shape", "DIMS", "dimensions of a .tns input", NULL},
    {0, NULL, NULL, NULL, NULL},
};

typedef struct info_opts {
    tensor_file in;
    const char *format;
} info_opts;

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    info_opts *o = ctx;
    switch (id) {
    case CLI_OPERAND:
        if (o->in.path)
            return error_set(err, "info: unexpected argument '%s'", v);
        return o->in.path = v, 0;
    case OPT_FORMAT: return o->format = v, 0;
    case OPT_TENSOR: return o->in.name = v, 0;
    case OPT_IN_FORMAT: return o->in.format = v, 0;
    default: return args_shape("--shape", v, &o->in.order, o->in.dims, err);
    }
}

static int parse_args(int argc, char **argv, info_opts *o, sam_error *err)
{
    *o = (info_opts){{0}, NULL};
    if (options_parse(&cmd_info_command, argc, argv, take, o, err))
        return -1;
    if (!o->in.path)
        return options_usage(&cmd_info_command, err);
    return 0;
}

static void print_summary(const char *path, const tensor *t)
{
    printf("file: %s\norder: %d\ndims: ", path, t->order);
    for (int m = 0; m < t->order; m++)
        printf("%s%lld", m ? " x " : "", (long long)t->dims[m]);
    double volume = tensor_volume(t);
    printf("%s\nnonzeros: %zu\ndensity: %.6g\n", t->order ? "" : "(scalar)", t->nnz,
           volume > 0 ? (double)t->nnz / volume : 0.0);
}

/* Storage as info counts it: 4-byte coordinates and references (what the
 * timing model assumes, hwmodel/hw.c), 8-byte values (doubles), and for a
 * bitvector its 64-bit words (fibertree_bytes says why). */
#define INFO_CRD_BYTES 4
#define INFO_REF_BYTES 4
#define INFO_VAL_BYTES 8

static void print_levels(const fibertree *ft)
{
    level_format f;
    char name[2 * TENSOR_MAX_ORDER + 1];
    fibertree_format(ft, &f);
    level_format_str(&f, name, sizeof name);
    printf("format: %s\n", name);
    for (int k = 0; k < ft->order; k++) {
        level_stats st;
        fibertree_level_stats(ft, k, &st);
        printf("level %d: mode %d, %s, fibers %lld, non-empty %lld, mean length %.6g, "
               "max length %lld, bytes %.0f\n", k, ft->lv[k].mode,
               level_kind_name(ft->lv[k].kind), (long long)st.fibers, (long long)st.nonempty,
               st.mean_len, (long long)st.max_len,
               fibertree_level_bytes(ft, k, INFO_CRD_BYTES, INFO_REF_BYTES));
    }
    printf("values: %zu\nbytes: %.0f (%d-byte coordinates and references, %d-byte values)\n",
           ft->nvals, fibertree_bytes(ft, INFO_CRD_BYTES, INFO_REF_BYTES, INFO_VAL_BYTES),
           INFO_CRD_BYTES, INFO_VAL_BYTES);
}

int cmd_info(int argc, char **argv)
{
    info_opts o;
    sam_error err;
    tensor t;
    if (parse_args(argc, argv, &o, &err) || tensor_file_read(&o.in, &t, &err))
        return args_fail(&err);
    const tensor_file *in = &o.in;
    level_format f;
    fibertree ft;
    int rc = 0;
    if (o.format)
        rc = level_format_parse(o.format, &f, &err);
    else if (in->has_stored)
        f = in->stored;
    else
        level_format_default(t.order, &f);
    if (rc == 0 && fibertree_build(&t, &f, &ft, &err))
        rc = error_prefix(&err, in->path);
    if (rc == 0) {
        print_summary(in->path, &t);
        print_levels(&ft);
        fibertree_free(&ft);
    }
    tensor_free(&t);
    return rc ? args_fail(&err) : 0;
}

const cli_command cmd_info_command = {
    .name = "info",
    .run = cmd_info,
    .synopsis = "FILE [options]",
    .about = "Prints order, dimensions, nonzeros, density and per-level kind, fiber statistics "
        "and bytes.",
    .options = info_options,
};
