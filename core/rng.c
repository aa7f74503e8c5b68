/* rng.c: xoshiro256** (Blackman and Vigna), seeded by splitmix64. */
#include "rng.h"

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void mapf_rng_seed(mapf_rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t mapf_rng_next(mapf_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t mapf_rng_below(mapf_rng *r, uint64_t n) {
  /* Reject the low values that would make the modulo biased. */
  uint64_t threshold = (0 - n) % n;
  for (;;) {
    uint64_t x = mapf_rng_next(r);
    if (x >= threshold) return x % n;
  }
}

double mapf_rng_double(mapf_rng *r) {
  return (double)(mapf_rng_next(r) >> 11) * 0x1.0p-53;
}
