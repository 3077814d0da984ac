/* Points are sorted by a key packing both coordinates, each relative to
 * the run's least: (o - omin) above (i - imin), in as many bits as their
 * ranges need. Sorting the keys a digit at a time from the lowest (LSD
 * radix) costs a few passes over the points whatever their number, where
 * a comparison sort costs log2(n) comparisons a point, each through a
 * call. Short runs go by insertion, and a run whose key would not fit in
 * 64 bits (coordinates spread over more than the machine's range) through
 * qsort. */
#include "spacc_sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A digit has at most this many bits: 2048 counters stay in cache. */
#define DIGIT_MAX 11

static int before(const spacc_point *a, const spacc_point *b)
{
    return a->o != b->o ? a->o < b->o : a->i < b->i;
}

static int point_cmp(const void *a, const void *b)
{
    return before(a, b) ? -1 : before(b, a);
}

static void insertion(spacc_point *p, size_t n)
{
    for (size_t k = 1; k < n; k++) {
        spacc_point x = p[k];
        size_t j = k;
        for (; j > 0 && before(&x, &p[j - 1]); j--)
            p[j] = p[j - 1];
        p[j] = x;
    }
}

static int bits_of(uint64_t x)
{
    return x ? 64 - __builtin_clzll(x) : 0;
}

/* How the key of a run is packed: the least coordinates and the inner
 * coordinate's width. Differences are taken unsigned, so that any range
 * of int64_t fits. */
typedef struct packing {
    uint64_t omin, imin;
    int ibits, bits;
} packing;

static inline uint64_t key_of(const packing *k, const spacc_point *p)
{
    return ((uint64_t)p->o - k->omin) << k->ibits | ((uint64_t)p->i - k->imin);
}

static packing packing_of(const spacc_point *p, size_t n)
{
    int64_t omin = p[0].o, omax = p[0].o, imin = p[0].i, imax = p[0].i;
    for (size_t k = 1; k < n; k++) {
        omin = p[k].o < omin ? p[k].o : omin;
        omax = p[k].o > omax ? p[k].o : omax;
        imin = p[k].i < imin ? p[k].i : imin;
        imax = p[k].i > imax ? p[k].i : imax;
    }
    packing k = {(uint64_t)omin, (uint64_t)imin, bits_of((uint64_t)imax - (uint64_t)imin), 0};
    k.bits = k.ibits + bits_of((uint64_t)omax - (uint64_t)omin);
    return k;
}

/* One counting pass over the digit of d bits at shift, from `from` into
 * `to`: stable, so that the lower digits' order holds within equal ones. */
static void radix_pass(const spacc_point *from, spacc_point *to, size_t n, const packing *k,
                       int shift, int d)
{
    size_t count[1 << DIGIT_MAX];
    const uint64_t mask = ((uint64_t)1 << d) - 1;
    memset(count, 0, (mask + 1) * sizeof *count);
    for (size_t e = 0; e < n; e++)
        count[key_of(k, &from[e]) >> shift & mask]++;
    size_t sum = 0;
    for (uint64_t b = 0; b <= mask; b++) {
        size_t c = count[b];
        count[b] = sum;
        sum += c;
    }
    for (size_t e = 0; e < n; e++)
        to[count[key_of(k, &from[e]) >> shift & mask]++] = from[e];
}

/* Digits about as wide as log2(n), so that a pass's counters cost no more
 * than its points, in equal shares of the key. */
static void radix(spacc_point *p, size_t n, spacc_point *tmp, const packing *k)
{
    int dmax = bits_of(n) < DIGIT_MAX ? bits_of(n) : DIGIT_MAX;
    int passes = (k->bits + dmax - 1) / dmax, d = (k->bits + passes - 1) / passes;
    spacc_point *from = p, *to = tmp;
    for (int shift = 0; shift < k->bits; shift += d) {
        radix_pass(from, to, n, k, shift, d);
        spacc_point *was = from;
        from = to;
        to = was;
    }
    if (from != p)
        memcpy(p, from, n * sizeof *p);
}

void spacc_sort(spacc_point *p, size_t n, spacc_point *tmp)
{
    if (n <= SPACC_SORT_IN_PLACE) {
        insertion(p, n);
        return;
    }
    packing k = packing_of(p, n);
    if (k.bits > 64)
        qsort(p, n, sizeof *p, point_cmp);
    else
        radix(p, n, tmp, &k);
}
