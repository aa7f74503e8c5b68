/* rng.h: a small seeded generator (xoshiro256**, seeded through splitmix64).
 *
 * The core never calls rand(): every random draw comes from a mapf_rng whose seed is derived
 * from a job key, so results do not depend on threads or the clock. A mapf_rng is a plain value
 * owned by its caller. */
#ifndef MAPF_RNG_H
#define MAPF_RNG_H

#include <stdint.h>

typedef struct mapf_rng {
  uint64_t s[4];
} mapf_rng;

/* Seeds r from one 64-bit value; any value (0 included) gives a valid state. */
void mapf_rng_seed(mapf_rng *r, uint64_t seed);

/* Returns the next 64 random bits. */
uint64_t mapf_rng_next(mapf_rng *r);

/* Returns a uniform integer in [0, n); n must be >= 1. Unbiased (rejection sampling). */
uint64_t mapf_rng_below(mapf_rng *r, uint64_t n);

/* Returns a uniform double in [0, 1) with 53 random bits. */
double mapf_rng_double(mapf_rng *r);

#endif
