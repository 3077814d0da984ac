/* The one source of randomness: xoshiro256** seeded through splitmix64.
 * Integer arithmetic only, so a seed gives the same numbers on every
 * machine and every generated tensor can be reproduced from its seed. */
#ifndef SAMSIM_PRNG_H
#define SAMSIM_PRNG_H

#include <stdint.h>

typedef struct prng {
    uint64_t s[4];
} prng;

/* The state is four successive splitmix64 outputs from seed, which is never
 * all zero, so every 64-bit seed (0 included) is usable. */
void prng_seed(prng *r, uint64_t seed);

uint64_t prng_next(prng *r);

/* Uniform in [0, n) without modulo bias; 0 when n is 0. */
uint64_t prng_below(prng *r, uint64_t n);

/* Uniform in [0, 1): a 53-bit integer times 2^-53, exact in any double. */
double prng_unit(prng *r);

#endif
