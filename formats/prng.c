#include "prng.h"

static uint64_t prng_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t prng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void prng_seed(prng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = prng_splitmix64(&seed);
}

uint64_t prng_next(prng *r)
{
    uint64_t *s = r->s;
    uint64_t out = prng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = prng_rotl(s[3], 45);
    return out;
}

/* The high and low words of the full 128-bit product a * b, portably. */
static uint64_t prng_mul_hi(uint64_t a, uint64_t b, uint64_t *lo)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
    uint64_t b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *lo = a * b;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* Lemire's multiply-and-reject: the high word of x * n is uniform in [0, n)
 * once the low words that would over-represent some values are rejected;
 * the division that finds them is needed only on the rare near misses. */
uint64_t prng_below(prng *r, uint64_t n)
{
    if (n == 0)
        return 0;
    uint64_t lo;
    uint64_t hi = prng_mul_hi(prng_next(r), n, &lo);
    if (lo < n) {
        uint64_t reject = (0 - n) % n;
        while (lo < reject)
            hi = prng_mul_hi(prng_next(r), n, &lo);
    }
    return hi;
}

double prng_unit(prng *r)
{
    return (double)(prng_next(r) >> 11) * 0x1.0p-53;
}
