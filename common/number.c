#include "number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static const char *skip_digits(const char *p, int *count)
{
    *count = 0;
    while (*p >= '0' && *p <= '9')
        p++, ++*count;
    return p;
}

/* Whether s is [+-]digits[.digits][(e|E)[+-]digits] with a digit in the
 * mantissa: the only spelling strtod is then allowed to read. */
static int is_decimal(const char *s)
{
    int whole, frac, exp;
    const char *p = s + (*s == '+' || *s == '-');
    p = skip_digits(p, &whole);
    frac = 0;
    if (*p == '.')
        p = skip_digits(p + 1, &frac);
    if (whole + frac == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        p += (*p == '+' || *p == '-');
        p = skip_digits(p, &exp);
        if (!exp)
            return 0;
    }
    return *p == '\0';
}

int number_parse(const char *s, double *out)
{
    if (!is_decimal(s))
        return -1;
    double v = strtod(s, NULL);
    if (!isfinite(v))   /* overflow; an underflow to a tiny value stands */
        return -1;
    *out = v;
    return 0;
}

int number_parse_whole(const char *s, long long min, long long max, long long *out)
{
    int digits;
    const char *p = s + (*s == '-' && min < 0);
    if (*skip_digits(p, &digits) != '\0' || !digits)
        return -1;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}
