#include "text_out.h"

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

static int format_int64(char *buf, int64_t v)
{
    char tmp[24];
    int n = 0, len = 0;
    uint64_t x = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    if (v < 0)
        buf[len++] = '-';
    while (n)
        buf[len++] = tmp[--n];
    buf[len] = '\0';
    return len;
}

void out_int64(text_out *o, int64_t v)
{
    out_room(o, 24);
    o->len += (size_t)format_int64(o->buf + o->len, v);
}

int text_format_double(char *buf, double v)
{
    /* Python's repr, as the SAM tools write values: integral values keep a
     * ".0" (and are common enough, pattern matrices and the SAM operand 2.0,
     * to skip snprintf), others get the shortest digits that read back. */
    if (v == floor(v) && fabs(v) < 1e16) {
        int n = 0;
        if (signbit(v))
            buf[n++] = '-';
        n += format_int64(buf + n, (int64_t)fabs(v));
        memcpy(buf + n, ".0", 3);
        return n + 2;
    }
    for (int prec = 15; prec <= 17; prec++) {
        int n = snprintf(buf, 32, "%.*g", prec, v);
        double back;
        if (prec == 17 || (text_parse_double(buf, &back) == 0 && back == v))
            return n;
    }
    return 0;
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
