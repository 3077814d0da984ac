/* samsim convert IN OUT: from any tensor format to any other. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/shift.h"
#include "../formats/tensor_file.h"
#include "../formats/tile.h"
#include "args.h"
#include "commands.h"
#include "options.h"
#include "outputs.h"

typedef struct convert_opts {
    tensor_file in, out;
    int shift;
    const char *tile;   /* --tile SPEC, NULL without */
} convert_opts;

enum { OPT_FORMAT = 1, OPT_TENSOR, OPT_IN_TENSOR, OPT_IN_FORMAT, OPT_SHAPE, OPT_SHIFT, OPT_TILE };

static const cli_option convert_options[] = {
    {OPT_FORMAT, "--format", "LEVELS[:ORDER]", "level format of a SAM directory written", NULL},
    {OPT_TENSOR, "--tensor", "NAME", "tensor name in both directories", NULL},
    {OPT_IN_TENSOR, "--in-tensor", "NAME", "tensor name in the input directory", NULL},
    {OPT_IN_FORMAT, "--in-format", "LEVELS[:ORDER]", "how to read the input directory", NULL},
    {OPT_SHAPE, "--shape", "DIMS", "dimensions of a .tns input, e.g. 12x10x9", NULL},
    {OPT_SHIFT, "--shift", NULL, "writes the SAM convention's second operand instead", NULL},
    {OPT_TILE, "--tile", "SPEC",
     "writes its tiles, tile coordinates as first modes: levels split by '/', per mode N (tiles "
     "of N), oN (N entries each) or - (not cut), e.g. 64x64/8x-",
     "The tensor is cut after --shift, as one tensor whose first modes are the tile "
     "coordinates, level by level, and whose last modes are the coordinates within the tile; a "
     "mode's cuts start at the first level. A SAM directory written gets all levels compressed "
     "unless --format says otherwise."},
    {0, NULL, NULL, NULL, NULL},
};

static int take_file(convert_opts *o, const char *v, sam_error *err)
{
    if (o->out.path)
        return error_set(err, "convert: unexpected argument '%s'", v);
    (o->in.path ? &o->out : &o->in)->path = v;
    return 0;
}

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    convert_opts *o = ctx;
    switch (id) {
    case CLI_OPERAND: return take_file(o, v, err);
    case OPT_FORMAT: return o->out.format = v, 0;
    case OPT_TENSOR:
        o->out.name = v;
        if (!o->in.name)
            o->in.name = v;
        return 0;
    case OPT_IN_TENSOR: return o->in.name = v, 0;
    case OPT_IN_FORMAT: return o->in.format = v, 0;
    case OPT_SHAPE: return args_shape("--shape", v, &o->in.order, o->in.dims, err);
    case OPT_SHIFT: return o->shift = 1, 0;
    default: return o->tile = v, 0;
    }
}

static int parse_args(int argc, char **argv, convert_opts *o, sam_error *err)
{
    memset(o, 0, sizeof *o);
    if (options_parse(&cmd_convert_command, argc, argv, take, o, err))
        return -1;
    if (!o->out.path)
        return options_usage(&cmd_convert_command, err);
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

/* Where a --tile entry may end: before the next mode or level. */
static int tile_spec_ends(char c)
{
    return c == 'x' || c == '/' || c == '\0';
}

/* Cuts mode m at level l by the --tile entry at *p ("N", "oN" or "-"),
 * *p moved past it. */
static int tile_spec_entry(const char **p, int m, int l, tile_split *split, const tensor *t,
                           sam_error *err)
{
    const char *s = *p, *digits = s + (*s == 'o');
    if (*s == '-' && tile_spec_ends(s[1])) {
        *p = s + 1;
        return 0;
    }
    char *stop = NULL;
    errno = 0;
    long long n = isdigit((unsigned char)*digits) ? strtoll(digits, &stop, 10) : 0;
    if (!stop || errno || !tile_spec_ends(*stop))
        return error_set(err, "entry '%.*s' is not N, oN or -", (int)strcspn(s, "x/"), s);
    if (split[m].nlevels < l)
        return error_set(err, "mode %d is cut at level %d but not at level %d", m, l, l - 1);
    *p = stop;
    if (*s == 'o')
        return tile_split_add_occupancy(&split[m], t->crd[m], t->nnz, n, err);
    return tile_split_add_shape(&split[m], n, err);
}

/* Cuts split[0..order-1] as SPEC says: levels separated by '/', each one
 * entry per mode separated by 'x'. */
static int tile_spec_parse(const char *spec, tile_split *split, const tensor *t, sam_error *err)
{
    const char *p = spec;
    for (int l = 0;; l++) {
        if (l == TILE_MAX_LEVELS)
            return error_set(err, "more than %d levels", TILE_MAX_LEVELS);
        const char *level = p;
        int m = 0;
        for (; m < t->order && (m == 0 || *p == 'x'); m++) {
            p += m > 0;
            if (tile_spec_entry(&p, m, l, split, t, err))
                return -1;
        }
        if (m < t->order || (*p != '/' && *p != '\0'))
            return error_set(err, "level '%.*s' does not give one entry for each of %d modes",
                             (int)strcspn(level, "/"), level, t->order);
        if (*p++ == '\0')
            return 0;
    }
}

/* Replaces t by its tiles as one tensor (tile keys, then local modes). */
static int apply_tile(tensor *t, const char *spec, sam_error *err)
{
    tile_split split[TENSOR_MAX_ORDER];
    tiled_tensor tt;
    tensor flat;
    for (int m = 0; m < t->order; m++)
        tile_split_init(&split[m], t->dims[m]);
    int rc = tile_spec_parse(spec, split, t, err);
    if (rc == 0)
        rc = tensor_tile(t, split, &tt, err);
    if (rc == 0) {
        rc = tiled_flatten(&tt, split, &flat, err);
        tiled_tensor_free(&tt);
    }
    for (int m = 0; m < t->order; m++)
        tile_split_free(&split[m]);
    if (rc)
        return error_wrap(err, "--tile '%s'", spec);
    tensor_free(t);
    *t = flat;
    return 0;
}

int cmd_convert(int argc, char **argv)
{
    convert_opts o;
    sam_error err;
    tensor t;
    if (parse_args(argc, argv, &o, &err) || tensor_file_read(&o.in, &t, &err))
        return args_fail(&err);
    /* A SAM directory copied to another keeps its layout unless told;
     * tiles have more levels than it, and get the default, all compressed. */
    char stored[2 * TENSOR_MAX_ORDER + 1];
    if (!o.out.format && !o.tile && o.in.has_stored &&
        tensor_file_kind_of(o.out.path) == TENSOR_FILE_SAMDIR && strcmp(o.out.path, "-")) {
        level_format_str(&o.in.stored, stored, sizeof stored);
        o.out.format = stored;
    }
    int rc = o.shift ? apply_shift(&t, &err) : 0;
    if (rc == 0 && o.tile)
        rc = apply_tile(&t, o.tile, &err);
    if (rc == 0)
        rc = outputs_write_tensor(&o.out, &t, &err);
    tensor_free(&t);
    return rc ? args_fail(&err) : 0;
}

const cli_command cmd_convert_command = {
    .name = "convert",
    .run = cmd_convert,
    .synopsis = "IN OUT [options]",
    .about = "Converts a tensor between formats ('-' as OUT: Matrix Market on standard output).",
    .options = convert_options,
};
