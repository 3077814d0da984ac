/* madvise: handing back the pages of a mapped file already read. */
#define _DEFAULT_SOURCE
#include "text_scan.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Maps the file when the page beyond its end supplies the terminating NUL
 * (the kernel zero-fills it): no copy, and pages are read as parsed. */
static int map_file(text_scan *s, int fd, size_t size)
{
    long page = sysconf(_SC_PAGESIZE);
    if (size == 0 || page <= 0 || size % (size_t)page == 0)
        return -1;
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        return -1;
    s->buf = p;
    s->len = s->mapped = size;
    return 0;
}

static int read_file(text_scan *s, FILE *f, size_t size, sam_error *err)
{
    s->buf = malloc(size + 1);
    if (!s->buf)
        return error_at(err, s->path, 0, "out of memory for %zu bytes", size);
    s->len = fread(s->buf, 1, size, f);
    if (ferror(f)) {
        scan_close(s);
        return error_at(err, s->path, 0, "read error");
    }
    s->buf[s->len] = '\0';
    return 0;
}

int scan_open(text_scan *s, const char *path, sam_error *err)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    FILE *f = fopen(path, "rb");
    if (!f)
        return error_at(err, path, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        rc = error_at(err, path, 0, "not a regular file");
    else if (map_file(s, fileno(f), (size_t)st.st_size) != 0)
        rc = read_file(s, f, (size_t)st.st_size, err);
    fclose(f);
    if (rc)
        return -1;
    s->p = s->buf;
    s->line = 1;
    return 0;
}

void scan_close(text_scan *s)
{
    if (s->mapped)
        munmap(s->buf, s->mapped);
    else
        free(s->buf);
    s->buf = NULL;
    s->mapped = 0;
}

void scan_blanks(text_scan *s)
{
    const char *p = s->p;
    while (*p == ' ' || *p == '\t' || (*p == '\r' && p[1] == '\n'))
        p++;
    s->p = p;
}

int scan_at_eof(const text_scan *s)
{
    return s->p >= s->buf + s->len;
}

int scan_at_eol(text_scan *s)
{
    scan_blanks(s);
    return *s->p == '\n' || scan_at_eof(s);
}

/* The pages of a mapped file are handed back this many bytes at a time,
 * that far behind the cursor. */
#define SCAN_RELEASE_BYTES ((size_t)1 << 20)

/* Hands back the mapping's pages that lie wholly a release's length
 * behind the cursor: the readers only look at the line they are on. */
static void release_behind(text_scan *s)
{
    size_t at = (size_t)(s->p - s->buf);
    if (!s->mapped || at < s->released + 2 * SCAN_RELEASE_BYTES)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), end = (at - SCAN_RELEASE_BYTES) / page * page;
    if (end > s->released && madvise(s->buf + s->released, end - s->released, MADV_DONTNEED) == 0)
        s->released = end;
}

void scan_next_line(text_scan *s)
{
    const char *nl = memchr(s->p, '\n', (size_t)(s->buf + s->len - s->p));
    if (nl) {
        s->p = nl + 1;
        s->line++;
    } else {
        s->p = s->buf + s->len;
    }
    release_behind(s);
}

int scan_line_blank(text_scan *s)
{
    const char *save = s->p;
    int blank = scan_at_eol(s);
    s->p = save;
    return blank;
}

int scan_error(const text_scan *s, sam_error *err, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return error_at(err, s->path, s->line, "%s", what);
}

static int is_field_end(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
}

/* Quotes the field at p for an error message; characters that would quote
 * as nothing (a lone carriage return, a NUL byte) are named instead. */
static void describe_field(const char *p, char *buf, size_t n)
{
    if (*p == '\r')
        snprintf(buf, n, "a carriage return without a newline");
    else if (*p == '\0')
        snprintf(buf, n, "a NUL byte");
    else {
        int len = 0;
        while (!is_field_end(p[len]) && len < 24)
            len++;
        snprintf(buf, n, "'%.*s'", len, p);
    }
}

/* Complains about the field at the cursor. */
static int field_error(const text_scan *s, const char *what, sam_error *err)
{
    if (*s->p == '\n' || scan_at_eof(s))
        return scan_error(s, err, "expected %s, found the end of the line", what);
    char found[64];
    describe_field(s->p, found, sizeof found);
    return scan_error(s, err, "expected %s, found %s", what, found);
}

/* The digits at *p as a number up to max, *p moved past them; -1 when
 * there are more. */
static int parse_digits(const char **p, uint64_t max, uint64_t *x)
{
    *x = 0;
    for (; **p >= '0' && **p <= '9'; (*p)++) {
        unsigned d = (unsigned)(**p - '0');
        if (*x > (max - d) / 10)
            return -1;
        *x = *x * 10 + d;
    }
    return 0;
}

int scan_int64(text_scan *s, int64_t *v, const char *what, sam_error *err)
{
    scan_blanks(s);
    const char *p = s->p;
    int neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (*p < '0' || *p > '9')
        return field_error(s, what, err);
    uint64_t x;
    if (parse_digits(&p, UINT64_C(9223372036854775807), &x))
        return scan_error(s, err, "%s is too large", what);
    if (!is_field_end(*p))
        return field_error(s, what, err);
    *v = neg ? -(int64_t)x : (int64_t)x;
    s->p = p;
    return 0;
}

int scan_uint64(text_scan *s, uint64_t *v, const char *what, sam_error *err)
{
    scan_blanks(s);
    const char *p = s->p;
    if (*p < '0' || *p > '9')
        return field_error(s, what, err);
    if (parse_digits(&p, UINT64_MAX, v))
        return scan_error(s, err, "%s is too large", what);
    if (!is_field_end(*p))
        return field_error(s, what, err);
    s->p = p;
    return 0;
}

static const double exact_pow10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* A decimal number as sign, up to 19 significant digits and a power of
 * ten. */
typedef struct decimal {
    uint64_t mant;
    int digits, exp10, neg;
} decimal;

/* Returns the end of the number, or NULL when it is not a plain decimal
 * that fits (then strtod decides). */
static const char *scan_decimal(const char *p, decimal *d)
{
    int frac = 0, seen = 0;
    d->neg = *p == '-';
    d->mant = 0;
    d->digits = 0;
    if (*p == '-' || *p == '+')
        p++;
    for (int in_frac = 0;; p++) {
        if (*p == '.' && !in_frac) {
            in_frac = 1;
            continue;
        }
        if (*p < '0' || *p > '9')
            break;
        seen++;
        frac += in_frac;
        if (d->mant || *p != '0')
            d->mant = d->mant * 10 + (uint64_t)(*p - '0'), d->digits++;
    }
    if (!seen || d->digits > 19)
        return NULL;
    int exp = 0;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        int eneg = *q == '-';
        if (*q == '-' || *q == '+')
            q++;
        if (*q < '0' || *q > '9')
            return NULL;
        for (; *q >= '0' && *q <= '9'; q++)
            if ((exp = exp * 10 + (*q - '0')) > 1000)
                return NULL;
        exp = eneg ? -exp : exp;
        p = q;
    }
    d->exp10 = exp - frac;
    return p;
}

/* The correctly rounded double of d, or -1 when no exact shortcut applies.
 * Up to 15 digits and 10^22 both operands are exact doubles, so one
 * division or multiplication rounds correctly (Clinger). Up to 19 digits,
 * x87 extended precision holds them exactly too; rounding its correctly
 * rounded result once more to double is exact unless it landed on a
 * midpoint between two doubles, which is checked. */
static int decimal_exact(const decimal *d, double *v)
{
    int e = d->exp10;
    if (d->digits <= 15 && e >= -22 && e <= 22) {
        double x = (double)d->mant;
        *v = e < 0 ? x / exact_pow10[-e] : x * exact_pow10[e];
        return 0;
    }
#if LDBL_MANT_DIG == 64
    if (e >= -27 && e <= 27) {
        long double p10 = 1.0L;
        for (int k = e < 0 ? -e : e; k > 0; k--)
            p10 *= 10.0L;
        long double x = (long double)d->mant;
        x = e < 0 ? x / p10 : x * p10;
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        if ((bits & 0x7ff) == 0x400)
            return -1;
        *v = (double)x;
        return 0;
    }
#endif
    return -1;
}

static const char *parse_simple_decimal(const char *p, double *v)
{
    decimal d;
    const char *end = scan_decimal(p, &d);
    if (!end || decimal_exact(&d, v))
        return NULL;
    if (d.neg)
        *v = -*v;
    return end;
}

/* Parses one number at p; returns its end or NULL. */
static const char *parse_number(const char *p, double *v)
{
    const char *end = parse_simple_decimal(p, v);
    if (end)
        return end;
    char *e;
    errno = 0;
    double x = strtod(p, &e);
    if (e == p || (errno == ERANGE && fabs(x) > 1.0))
        return NULL;
    *v = x;
    return e;
}

int scan_double(text_scan *s, double *v, const char *what, sam_error *err)
{
    scan_blanks(s);
    const char *end = parse_number(s->p, v);
    if (!end || !is_field_end(*end))
        return field_error(s, what, err);
    if (!isfinite(*v))
        return scan_error(s, err, "%s '%.*s' is not a finite number", what,
                          (int)(end - s->p), s->p);
    s->p = end;
    return 0;
}

int scan_end_line(text_scan *s, sam_error *err)
{
    if (!scan_at_eol(s)) {
        char found[64];
        describe_field(s->p, found, sizeof found);
        return scan_error(s, err, "unexpected %s at the end of the line", found);
    }
    scan_next_line(s);
    return 0;
}

int text_parse_double(const char *str, double *v)
{
    const char *end = parse_number(str, v);
    return end && *end == '\0' && isfinite(*v) ? 0 : -1;
}
