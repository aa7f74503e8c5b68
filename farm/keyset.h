/* keyset.h: a set of 128-bit job keys (open addressing), for resume: 16 bytes a slot, at most
 * three slots in four used. */
#ifndef FARM_KEYSET_H
#define FARM_KEYSET_H

#include <stdint.h>

#include "hash.h"

typedef struct farm_keyset {
  mapf_hash128 *slots; /* {0,0} marks an empty slot; the all-zero key is kept aside */
  int64_t cap, n;
  int has_zero;
} farm_keyset;

/* Makes room for n keys in all, so that adding up to n allocates no more: one table, where
 * growing by doubling would hold the old and the new one at once. 0, or -1 when out of
 * memory. */
int farm_keyset_reserve(farm_keyset *s, int64_t n);
/* Adds k; returns 1 if it was new, 0 if present, -1 when out of memory. */
int farm_keyset_add(farm_keyset *s, mapf_hash128 k);
/* Returns 1 if k is in s. */
int farm_keyset_has(const farm_keyset *s, mapf_hash128 k);
/* Frees and zeroes s. */
void farm_keyset_free(farm_keyset *s);

#endif
