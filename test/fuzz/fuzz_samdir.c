/* SAM level directory reader. The input is split at '|' into a level
 * format (empty: inferred) and the files of tensor B: shape, vals, then
 * seg and crd of mode 0, 1, ... up to the largest order, then bv, head and
 * next of mode 0, 1, ...; a part "-" leaves that file out, as does an input
 * with fewer parts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/tensor_file.h"
#include "fuzz_input.h"

/* The bitvector and linked-list files follow the compressed ones, so that
 * inputs written before them keep their meaning. */
#define SAMDIR_SEG_CRD_END (3 + 2 * TENSOR_MAX_ORDER)
#define SAMDIR_PARTS (SAMDIR_SEG_CRD_END + 3 * TENSOR_MAX_ORDER)

static void part_name(int k, char *name, size_t n)
{
    static const char *const later[] = {"bv", "head", "next"};
    int j = k - SAMDIR_SEG_CRD_END;
    if (k == 1)
        snprintf(name, n, "tensor_B_mode_shape");
    else if (k == 2)
        snprintf(name, n, "tensor_B_mode_vals");
    else if (j < 0)
        snprintf(name, n, "tensor_B_mode_%d_%s", (k - 3) / 2, k % 2 ? "seg" : "crd");
    else
        snprintf(name, n, "tensor_B_mode_%d_%s", j / 3, later[j % 3]);
}

static void read_dir(const fuzz_dir *d, const char *format)
{
    tensor_file f = {.path = d->path, .name = "B", .format = *format ? format : NULL};
    fuzz_read_tensor(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_limits();
    fuzz_dir d;
    if (fuzz_dir_open(&d))
        abort();
    char format[32] = "", name[64], path[512];
    const uint8_t *end = data + size;
    for (int k = 0; k < SAMDIR_PARTS && data <= end; k++) {
        const uint8_t *bar = memchr(data, '|', (size_t)(end - data));
        size_t len = (size_t)((bar ? bar : end) - data);
        if (k == 0)
            snprintf(format, sizeof format, "%.*s", (int)len, (const char *)data);
        else if (!(len == 1 && *data == '-')) {
            part_name(k, name, sizeof name);
            fuzz_dir_write(&d, name, data, len, path, sizeof path);
        }
        if (!bar)
            break;
        data = bar + 1;
    }
    read_dir(&d, format);
    fuzz_dir_close(&d);
    return 0;
}
