/* hash.h: content hashes for job keys and map identity.
 *
 * Job keys are 128-bit hashes of a canonical job description (docs/design.md, Job keys), written as
 * 32 lowercase hex digits. The hash is our own fixed function (two lanes of a multiply-xorshift
 * mix), so keys are stable across platforms, compilers and versions of any library. */
#ifndef MAPF_HASH_H
#define MAPF_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct mapf_hash128 {
  uint64_t hi, lo;
} mapf_hash128;

/* A bijective 64-bit finaliser (splitmix64's); used to derive seeds from keys. */
uint64_t mapf_mix64(uint64_t x);

/* 64-bit hash of len bytes, with a seed. */
uint64_t mapf_hash64(const void *data, size_t len, uint64_t seed);

/* 128-bit hash of len bytes. */
mapf_hash128 mapf_hash128_of(const void *data, size_t len);

/* Writes h as 32 lowercase hex digits and a NUL into out. */
void mapf_hash128_hex(mapf_hash128 h, char out[33]);

/* Parses 32 hex digits; returns 0 on success, -1 if s is not exactly that. */
int mapf_hash128_parse(const char *s, mapf_hash128 *h);

#endif
