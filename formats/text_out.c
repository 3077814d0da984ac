#include "text_out.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/atomic_file.h"
#include "text_scan.h"

void out_init(text_out *o, FILE *f)
{
    o->f = f;
    o->len = 0;
}

void out_flush(text_out *o)
{
    if (o->len)
        fwrite(o->buf, 1, o->len, o->f);
    o->len = 0;
}

static void out_room(text_out *o, size_t n)
{
    if (o->len + n > sizeof o->buf)
        out_flush(o);
}

void out_char(text_out *o, char c)
{
    out_room(o, 1);
    o->buf[o->len++] = c;
}

void out_str(text_out *o, const char *s)
{
    size_t n = strlen(s);
    if (n > sizeof o->buf / 2) {
        out_flush(o);
        fwrite(s, 1, n, o->f);
        return;
    }
    out_room(o, n);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

/* x in decimal, after a minus sign when neg. */
static int format_magnitude(char *buf, int neg, uint64_t x)
{
    char tmp[24];
    int n = 0, len = 0;
    do {
        tmp[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    if (neg)
        buf[len++] = '-';
    while (n)
        buf[len++] = tmp[--n];
    buf[len] = '\0';
    return len;
}

static int format_int64(char *buf, int64_t v)
{
    return format_magnitude(buf, v < 0, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

void out_int64(text_out *o, int64_t v)
{
    out_room(o, 24);
    o->len += (size_t)format_int64(o->buf + o->len, v);
}

void out_uint64(text_out *o, uint64_t v)
{
    out_room(o, 24);
    o->len += (size_t)format_magnitude(o->buf + o->len, 0, v);
}

/* The 17 significant digits of |v|, correctly rounded by printf, and the
 * decimal exponent of the first. */
static int digits17(double v, char d[17])
{
    char sci[40];
    snprintf(sci, sizeof sci, "%.16e", fabs(v));
    d[0] = sci[0];
    memcpy(d + 1, sci + 2, 16);
    return atoi(sci + 19);
}

/* Rounds the 17 digits to k digits, half up, dropping trailing zeros;
 * returns the number of digits kept and adjusts the exponent on carry. */
static int round_digits(const char d[17], int k, char *out, int *exp10)
{
    memcpy(out, d, 17);
    if (k < 17 && d[k] >= '5') {
        int i = k - 1;
        while (i >= 0 && out[i] == '9')
            out[i--] = '0';
        if (i < 0) {
            out[0] = '1';
            ++*exp10;
        } else {
            out[i]++;
        }
    }
    while (k > 1 && out[k - 1] == '0')
        k--;
    return k;
}

/* Lays out n digits with exponent e as Python's repr does: positional
 * for exponents -4..15, scientific otherwise. */
static int layout_repr(char *buf, int neg, const char *d, int n, int e)
{
    int len = 0;
    if (neg)
        buf[len++] = '-';
    if (e < -4 || e >= 16) {
        buf[len++] = d[0];
        if (n > 1) {
            buf[len++] = '.';
            memcpy(buf + len, d + 1, (size_t)n - 1);
            len += n - 1;
        }
        return len + snprintf(buf + len, 8, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    }
    if (e < 0) {
        buf[len++] = '0';
        buf[len++] = '.';
        for (int z = 0; z < -e - 1; z++)
            buf[len++] = '0';
        memcpy(buf + len, d, (size_t)n);
        len += n;
    } else {
        for (int i = 0; i <= e; i++)
            buf[len++] = i < n ? d[i] : '0';
        buf[len++] = '.';
        if (n > e + 1) {
            memcpy(buf + len, d + e + 1, (size_t)(n - e - 1));
            len += n - e - 1;
        } else {
            buf[len++] = '0';
        }
    }
    buf[len] = '\0';
    return len;
}

int text_format_double(char *buf, double v)
{
    /* Python's repr, as the SAM tools write values: integral values keep a
     * ".0" (and are common enough, pattern matrices and the SAM operand 2.0,
     * to skip printf), others get the fewest digits that read back. Up to
     * 15 digits, rounding the 17 printed ones gives the shortest form, so
     * only 15, 16 and 17 need trying, each checked by the exact parser. */
    if (v == floor(v) && fabs(v) < 1e16) {
        int n = 0;
        if (signbit(v))
            buf[n++] = '-';
        n += format_int64(buf + n, (int64_t)fabs(v));
        memcpy(buf + n, ".0", 3);
        return n + 2;
    }
    char d17[17], d[17];
    int e17 = digits17(v, d17), len = 0;
    /* Subnormals carry fewer bits, so fewer digits may suffice. */
    for (int k = fabs(v) < DBL_MIN ? 1 : 15; k <= 17; k++) {
        int e = e17;
        int n = round_digits(d17, k, d, &e);
        len = layout_repr(buf, signbit(v) != 0, d, n, e);
        double back;
        if (k == 17 || (text_parse_double(buf, &back) == 0 && back == v))
            break;
    }
    return len;
}

void out_double(text_out *o, double v)
{
    out_room(o, 32);
    o->len += (size_t)text_format_double(o->buf + o->len, v);
}

int out_write_file(const char *path, out_writer write, const void *arg, sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err))
        return -1;
    text_out *o = malloc(sizeof *o);
    if (!o) {
        atomic_file_discard(&af);
        return error_set(err, "out of memory");
    }
    out_init(o, af.f);
    write(o, arg);
    out_flush(o);
    free(o);
    int rc = atomic_file_close(&af, err);
    if (rc == 0)
        rc = atomic_file_publish(&af, err);
    atomic_file_discard(&af);
    return rc;
}
