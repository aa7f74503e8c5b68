/* cellmap.h: a sparse per-agent table keyed by cell id, for what a real-time search learns about
 * the few cells an agent visits (BMAA*'s h-values, RTHS's per-cell state, a direction-map
 * agent's own map). Dense per-agent arrays would not fit: 2,000 agents x a 531x747 map are 3 GB
 * of doubles (docs/choices.md). Internal to core/.
 *
 * Open addressing with linear probing, at most half full. A slot is the caller's struct, whose
 * first member is the int32_t key (-1: empty); the table knows only the slot's size, so one
 * implementation serves every slot type, and the lookups are inline so that a constant size
 * compiles to plain indexing. The slot of a key is chosen by Fibonacci hashing of key / 4, so
 * four cells side by side in a row share a run of four slots: a search reads the values of a
 * small area, and its lookups then touch a few cache lines instead of one each. */
#ifndef MAPF_CELLMAP_H
#define MAPF_CELLMAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "search_int.h"

typedef struct mapf__cellmap {
  unsigned char *slot; /* cap slots of the caller's size; cap is 0 or a power of two */
  int32_t cap, n;
} mapf__cellmap;

MAPF__INLINE uint32_t mapf__cellmap_hash(int32_t key, int32_t cap) {
  uint32_t block = (uint32_t)(((uint64_t)((uint32_t)key >> 2) * 0x9E3779B97F4A7C15ull) >> 32);
  return ((block << 2) | ((uint32_t)key & 3u)) & (uint32_t)(cap - 1);
}

MAPF__INLINE int32_t mapf__cellmap_key(const unsigned char *slot) {
  int32_t k;
  memcpy(&k, slot, sizeof k);
  return k;
}

/* Where key's slot is or would be (for prefetching); only when cap > 0. */
MAPF__INLINE const void *mapf__cellmap_home(const mapf__cellmap *m, size_t size, int32_t key) {
  return m->slot + (size_t)mapf__cellmap_hash(key, m->cap) * size;
}

/* The slot of key, or NULL when key is absent. */
MAPF__INLINE void *mapf__cellmap_find(const mapf__cellmap *m, size_t size, int32_t key) {
  if (m->cap == 0) return NULL;
  uint32_t mask = (uint32_t)(m->cap - 1);
  for (uint32_t i = mapf__cellmap_hash(key, m->cap);; i = (i + 1) & mask) {
    unsigned char *s = m->slot + (size_t)i * size;
    int32_t k = mapf__cellmap_key(s);
    if (k == key) return s;
    if (k < 0) return NULL;
  }
}

/* Doubles the table (64 slots at first) and reinserts every key. Returns 0, or -1 when out of
 * memory. */
int mapf__cellmap_grow(mapf__cellmap *m, size_t size);

/* The slot of key, added when absent (*fresh = 1: only its key is set, the caller fills the
 * rest; else *fresh = 0). NULL when out of memory. A slot pointer is valid until the next
 * insertion. */
MAPF__INLINE void *mapf__cellmap_insert(mapf__cellmap *m, size_t size, int32_t key, int *fresh) {
  if ((m->n + 1) * 2 > m->cap && mapf__cellmap_grow(m, size) < 0) return NULL;
  uint32_t mask = (uint32_t)(m->cap - 1);
  for (uint32_t i = mapf__cellmap_hash(key, m->cap);; i = (i + 1) & mask) {
    unsigned char *s = m->slot + (size_t)i * size;
    int32_t k = mapf__cellmap_key(s);
    if (k == key) {
      *fresh = 0;
      return s;
    }
    if (k < 0) {
      memcpy(s, &key, sizeof key);
      m->n++;
      *fresh = 1;
      return s;
    }
  }
}

/* Empties the table, keeping its memory. */
void mapf__cellmap_clear(mapf__cellmap *m, size_t size);

void mapf__cellmap_free(mapf__cellmap *m);

#endif
