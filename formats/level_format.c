#include "level_format.h"

#include <stdio.h>
#include <string.h>

void level_format_default(int order, level_format *f)
{
    memset(f, 0, sizeof *f);
    f->nlevels = order;
    for (int k = 0; k < order; k++) {
        f->kind[k] = 's';
        f->mode[k] = k;
    }
}

/* "1,0" after the colon of the Custard form. */
static int parse_mode_list(const char *s, const char *list, level_format *f, sam_error *err)
{
    int n = 0;
    const char *p = list;
    while (*p) {
        if (*p < '0' || *p > '9' || n == f->nlevels)
            return error_set(err, "format '%s': the mode order must list %d modes like 1,0", s,
                             f->nlevels);
        f->mode[n++] = *p++ - '0';
        if (*p == ',')
            p++;
    }
    if (n != f->nlevels)
        return error_set(err, "format '%s': %d levels but a mode order of %d modes", s,
                         f->nlevels, n);
    return 0;
}

static int check_permutation(const char *s, const level_format *f, sam_error *err)
{
    int seen[TENSOR_MAX_ORDER] = {0};
    for (int k = 0; k < f->nlevels; k++) {
        if (f->mode[k] >= f->nlevels || seen[f->mode[k]]++)
            return error_set(err, "format '%s': the mode order must use each of 0..%d once", s,
                             f->nlevels - 1);
    }
    return 0;
}

int level_kind_valid(char c)
{
    return c == 'd' || c == 's' || c == 'b' || c == 'l';
}

const char *level_kind_name(char c)
{
    switch (c) {
    case 'd':
        return "dense";
    case 's':
        return "compressed";
    case 'b':
        return "bitvector";
    default:
        return "linked list";
    }
}

int level_format_parse(const char *s, level_format *f, sam_error *err)
{
    memset(f, 0, sizeof *f);
    if (!strcmp(s, "none"))
        return 0;
    int n = 0;
    while (s[n] && s[n] != ':' && (s[n] < '0' || s[n] > '9')) {
        if (!level_kind_valid(s[n]))
            return error_set(err, "format '%s': level letters must be d (dense), s (compressed), "
                             "b (bitvector) or l (linked list)", s);
        if (n == TENSOR_MAX_ORDER)
            return error_set(err, "format '%s': more than %d levels", s, TENSOR_MAX_ORDER);
        f->kind[n] = s[n];
        n++;
    }
    if (n == 0)
        return error_set(err, "format '%s': expected level letters such as ss01 or none", s);
    f->nlevels = n;
    const char *rest = s + n;
    if (*rest == '\0') {
        for (int k = 0; k < n; k++)
            f->mode[k] = k;
        return 0;
    }
    if (*rest == ':') {
        if (parse_mode_list(s, rest + 1, f, err))
            return -1;
    } else {
        if ((int)strlen(rest) != n)
            return error_set(err, "format '%s': %d levels but %zu mode digits", s, n, strlen(rest));
        for (int k = 0; k < n; k++) {
            if (rest[k] < '0' || rest[k] > '9')
                return error_set(err, "format '%s': mode digits expected after the letters", s);
            f->mode[k] = rest[k] - '0';
        }
    }
    return check_permutation(s, f, err);
}

void level_format_str(const level_format *f, char *buf, size_t n)
{
    if (f->nlevels == 0) {
        snprintf(buf, n, "none");
        return;
    }
    char tmp[2 * TENSOR_MAX_ORDER + 1];
    for (int k = 0; k < f->nlevels; k++) {
        tmp[k] = f->kind[k];
        tmp[f->nlevels + k] = (char)('0' + f->mode[k]);
    }
    tmp[2 * f->nlevels] = '\0';
    snprintf(buf, n, "%s", tmp);
}
