/* samsim info FILE: what a tensor holds and how its levels fill up. */
#include <stdio.h>
#include <string.h>

#include "../formats/fibertree.h"
#include "../formats/level_format.h"
#include "../formats/tensor_file.h"
#include "args.h"
#include "commands.h"

static int parse_args(int argc, char **argv, tensor_file *in, const char **format,
                      sam_error *err)
{
    memset(in, 0, sizeof *in);
    *format = NULL;
    for (int i = 0; i < argc; i++) {
        const char *v;
        int r = 0;
        if ((r = args_option(argc, argv, &i, "--format", &v, err)) > 0)
            *format = v;
        else if (r == 0 && (r = args_option(argc, argv, &i, "--in-format", &v, err)) > 0)
            in->format = v;
        else if (r == 0 && (r = args_option(argc, argv, &i, "--tensor", &v, err)) > 0)
            in->name = v;
        else if (r == 0 && (r = args_option(argc, argv, &i, "--shape", &v, err)) > 0)
            r = args_shape("--shape", v, &in->order, in->dims, err) ? -1 : 1;
        if (r < 0)
            return -1;
        if (r > 0)
            continue;
        if (argv[i][0] == '-' || in->path)
            return error_set(err, "info: unexpected argument '%s'", argv[i]);
        in->path = argv[i];
    }
    if (!in->path)
        return error_set(err, "usage: samsim info FILE [--format LEVELS[:ORDER]] [--tensor NAME] "
                              "[--in-format LEVELS[:ORDER]] [--shape DIMS]");
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
    tensor_file in;
    const char *format;
    sam_error err;
    tensor t;
    if (parse_args(argc, argv, &in, &format, &err) || tensor_file_read(&in, &t, &err))
        return args_fail(&err);
    level_format f;
    fibertree ft;
    int rc = 0;
    if (format)
        rc = level_format_parse(format, &f, &err);
    else if (in.has_stored)
        f = in.stored;
    else
        level_format_default(t.order, &f);
    if (rc == 0 && fibertree_build(&t, &f, &ft, &err))
        rc = error_prefix(&err, in.path);
    if (rc == 0) {
        print_summary(in.path, &t);
        print_levels(&ft);
        fibertree_free(&ft);
    }
    tensor_free(&t);
    return rc ? args_fail(&err) : 0;
}
