/* keyset.c: linear-probing hash set of 128-bit keys. Keys are already uniform hashes, so the
 * low bits of `lo` index the table directly. */
#include "keyset.h"

#include <stdlib.h>

static int key_zero(mapf_hash128 k) { return k.hi == 0 && k.lo == 0; }

/* At most three slots in four are used: keys are uniform, so linear probing stays short. */
static int full(int64_t n, int64_t cap) { return n * 4 > cap * 3; }

static int resize(farm_keyset *s, int64_t cap) {
  mapf_hash128 *slots = calloc((size_t)cap, sizeof *slots);
  if (!slots) return -1;
  for (int64_t i = 0; i < s->cap; i++) {
    mapf_hash128 k = s->slots[i];
    if (key_zero(k)) continue;
    int64_t j = (int64_t)(k.lo & (uint64_t)(cap - 1));
    while (!key_zero(slots[j])) j = (j + 1) & (cap - 1);
    slots[j] = k;
  }
  free(s->slots);
  s->slots = slots;
  s->cap = cap;
  return 0;
}

int farm_keyset_add(farm_keyset *s, mapf_hash128 k) {
  if (key_zero(k)) {
    int was = s->has_zero;
    s->has_zero = 1;
    return !was;
  }
  if (full(s->n + 1, s->cap) && resize(s, s->cap ? s->cap * 2 : 1024) < 0) return -1;
  int64_t j = (int64_t)(k.lo & (uint64_t)(s->cap - 1));
  while (!key_zero(s->slots[j])) {
    if (s->slots[j].hi == k.hi && s->slots[j].lo == k.lo) return 0;
    j = (j + 1) & (s->cap - 1);
  }
  s->slots[j] = k;
  s->n++;
  return 1;
}

int farm_keyset_reserve(farm_keyset *s, int64_t n) {
  int64_t cap = s->cap ? s->cap : 1024;
  while (full(n, cap)) cap *= 2;
  return cap > s->cap ? resize(s, cap) : 0;
}

int farm_keyset_has(const farm_keyset *s, mapf_hash128 k) {
  if (key_zero(k)) return s->has_zero;
  if (s->cap == 0) return 0;
  int64_t j = (int64_t)(k.lo & (uint64_t)(s->cap - 1));
  while (!key_zero(s->slots[j])) {
    if (s->slots[j].hi == k.hi && s->slots[j].lo == k.lo) return 1;
    j = (j + 1) & (s->cap - 1);
  }
  return 0;
}

void farm_keyset_free(farm_keyset *s) {
  free(s->slots);
  s->slots = NULL;
  s->cap = s->n = 0;
  s->has_zero = 0;
}
