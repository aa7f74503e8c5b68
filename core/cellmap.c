/* cellmap.c: growing and clearing the sparse cell tables (cellmap.h). */
#include "cellmap.h"

#include <stdlib.h>

/* Every slot empty: all bytes 0xff make every key -1 (the other fields of an empty slot are
 * never read). */
static void set_empty(unsigned char *slot, int32_t cap, size_t size) {
  memset(slot, 0xff, (size_t)cap * size);
}

int mapf__cellmap_grow(mapf__cellmap *m, size_t size) {
  int32_t cap = m->cap ? m->cap * 2 : 64;
  unsigned char *slot = malloc((size_t)cap * size);
  if (!slot) return -1;
  set_empty(slot, cap, size);
  uint32_t mask = (uint32_t)(cap - 1);
  for (int32_t i = 0; i < m->cap; i++) {
    const unsigned char *s = m->slot + (size_t)i * size;
    int32_t k = mapf__cellmap_key(s);
    if (k < 0) continue;
    uint32_t j = mapf__cellmap_hash(k, cap);
    while (mapf__cellmap_key(slot + (size_t)j * size) >= 0) j = (j + 1) & mask;
    memcpy(slot + (size_t)j * size, s, size);
  }
  free(m->slot);
  m->slot = slot;
  m->cap = cap;
  return 0;
}

void mapf__cellmap_clear(mapf__cellmap *m, size_t size) {
  if (m->cap > 0) set_empty(m->slot, m->cap, size);
  m->n = 0;
}

void mapf__cellmap_free(mapf__cellmap *m) {
  free(m->slot);
  m->slot = NULL;
  m->cap = m->n = 0;
}
