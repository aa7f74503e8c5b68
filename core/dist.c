/* dist.c: distance-to-goal tables and their per-thread cache (dist.h). */
#include "dist.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

uint64_t mapf__dist_map_key(const mapf_grid *g) {
  return mapf_hash64(g->moves, (size_t)g->ncells, g->hash ^ (uint64_t)(uint32_t)g->width);
}

int mapf__dist_begin(mapf__dist_cache *c, const mapf_grid *g) {
  uint64_t key = mapf__dist_map_key(g);
  c->runs++;
  if (c->local && c->map == key && c->ncells == g->ncells) return 0;
  if (g->ncells > c->local_cap) {
    int32_t *l = realloc(c->local, (size_t)g->ncells * sizeof *l);
    if (!l) return -1;
    c->local = l;
    c->local_cap = g->ncells;
  }
  int32_t *next = calloc(g->ncomponents > 0 ? (size_t)g->ncomponents : 1, sizeof *next);
  if (!next) return -1;
  for (int32_t id = 0; id < g->ncells; id++) {
    int32_t k = g->component[id];
    c->local[id] = k >= 0 ? next[k]++ : -1;
  }
  free(next);
  c->map = key;
  c->ncells = g->ncells;
  return 0;
}

static uint32_t slot_hash(uint64_t map, int32_t goal) {
  return (uint32_t)(mapf_mix64(map ^ (uint64_t)(uint32_t)goal * 0x9e3779b97f4a7c15ULL) >> 32);
}

/* Rebuilds the slot index for c->n entries with at least twice as many slots. */
static int reindex(mapf__dist_cache *c) {
  int32_t want = 16;
  while (want < 2 * c->n + 2) want *= 2;
  if (want != c->nslot) {
    int32_t *s = realloc(c->slot, (size_t)want * sizeof *s);
    if (!s) return -1;
    c->slot = s;
    c->nslot = want;
  }
  for (int32_t i = 0; i < c->nslot; i++) c->slot[i] = -1;
  uint32_t mask = (uint32_t)c->nslot - 1;
  for (int32_t i = 0; i < c->n; i++) {
    uint32_t h = slot_hash(c->e[i].map, c->e[i].goal) & mask;
    while (c->slot[h] >= 0) h = (h + 1) & mask;
    c->slot[h] = i;
  }
  return 0;
}

/* Breadth-first search from goal over its component. The moves are symmetric (a move and its
 * reverse are legal together: grid.h), so distances from the goal are distances to it. */
static void bfs(mapf__dist_cache *c, const mapf_grid *g, int32_t goal, uint32_t *d, int32_t size) {
  const int32_t *local = c->local;
  int32_t *q = c->queue;
  for (int32_t i = 0; i < size; i++) d[i] = UINT32_MAX;
  int32_t head = 0, tail = 0;
  q[tail++] = goal;
  d[local[goal]] = 0;
  while (head < tail) {
    int32_t u = q[head++];
    uint32_t du = d[local[u]] + 1;
    uint8_t m = g->moves[u];
    for (int dir = 0; dir < 8; dir++) {
      if (!(m >> dir & 1)) continue;
      int32_t v = u + g->offset[dir];
      uint32_t *dv = &d[local[v]];
      if (*dv != UINT32_MAX) continue;
      *dv = du;
      q[tail++] = v;
    }
  }
}

const uint32_t *mapf__dist_get(mapf__dist_cache *c, const mapf_grid *g, int32_t goal) {
  if (c->nslot > 0) {
    uint32_t mask = (uint32_t)c->nslot - 1;
    for (uint32_t h = slot_hash(c->map, goal) & mask; c->slot[h] >= 0; h = (h + 1) & mask) {
      mapf__dist_entry *e = &c->e[c->slot[h]];
      if (e->map == c->map && e->goal == goal) {
        e->used = c->runs;
        return e->d;
      }
    }
  }
  int32_t size = g->component_size[g->component[goal]];
  if (size > c->queue_cap) {
    int32_t *q = realloc(c->queue, (size_t)size * sizeof *q);
    if (!q) return NULL;
    c->queue = q;
    c->queue_cap = size;
  }
  if (c->n == c->cap) {
    int32_t cap = c->cap ? 2 * c->cap : 64;
    mapf__dist_entry *e = realloc(c->e, (size_t)cap * sizeof *e);
    if (!e) return NULL;
    c->e = e;
    c->cap = cap;
  }
  uint32_t *d = malloc((size_t)size * sizeof *d);
  if (!d) return NULL;
  bfs(c, g, goal, d, size);
  c->e[c->n++] = (mapf__dist_entry){c->map, goal, size, d, c->runs};
  c->bytes += (size_t)size * sizeof *d;
  if (2 * c->n + 2 > c->nslot) {
    if (reindex(c) < 0) {
      c->n--;
      c->bytes -= (size_t)size * sizeof *d;
      free(d);
      return NULL;
    }
  } else {
    uint32_t mask = (uint32_t)c->nslot - 1, h = slot_hash(c->map, goal) & mask;
    while (c->slot[h] >= 0) h = (h + 1) & mask;
    c->slot[h] = c->n - 1;
  }
  return d;
}

static int by_use_desc(const void *x, const void *y) {
  const mapf__dist_entry *a = x, *b = y;
  if (a->used != b->used) return a->used < b->used ? 1 : -1;
  return a->goal < b->goal ? -1 : a->goal > b->goal;
}

void mapf__dist_trim(mapf__dist_cache *c, size_t budget) {
  if (c->bytes <= budget) return;
  qsort(c->e, (size_t)c->n, sizeof *c->e, by_use_desc);
  size_t kept = 0;
  int32_t k = 0;
  for (int32_t i = 0; i < c->n; i++) {
    size_t b = (size_t)c->e[i].size * sizeof *c->e[i].d;
    if (kept + b <= budget) {
      kept += b;
      c->e[k++] = c->e[i];
    } else {
      free(c->e[i].d);
    }
  }
  c->n = k;
  c->bytes = kept;
  if (reindex(c) < 0) { /* no memory for the index: start over empty */
    for (int32_t i = 0; i < c->n; i++) free(c->e[i].d);
    c->n = 0;
    c->bytes = 0;
    free(c->slot);
    c->slot = NULL;
    c->nslot = 0;
  }
}

static int by_address(const void *x, const void *y) {
  uintptr_t a = (uintptr_t)*(const uint32_t *const *)x, b = (uintptr_t)*(const uint32_t *const *)y;
  return (a > b) - (a < b);
}

int mapf__dist_release(mapf__dist_cache *c, const uint32_t *const *held, int32_t n,
                       size_t budget) {
  if (c->bytes <= budget) return 0;
  const uint32_t **h = malloc((size_t)(n > 0 ? n : 1) * sizeof *h);
  if (!h) return -1;
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++)
    if (held[i]) h[m++] = held[i];
  qsort(h, (size_t)m, sizeof *h, by_address);
  int32_t k = 0;
  size_t kept = 0;
  for (int32_t i = 0; i < c->n; i++) {
    const uint32_t *d = c->e[i].d;
    if (bsearch(&d, h, (size_t)m, sizeof *h, by_address)) {
      kept += (size_t)c->e[i].size * sizeof *d;
      c->e[k++] = c->e[i];
    } else {
      free(c->e[i].d);
    }
  }
  free(h);
  c->n = k;
  c->bytes = kept;
  if (reindex(c) < 0) { /* no index (a lookup then misses); the next table rebuilds it */
    free(c->slot);
    c->slot = NULL;
    c->nslot = 0;
  }
  return 0;
}

void mapf__dist_free(mapf__dist_cache *c) {
  for (int32_t i = 0; i < c->n; i++) free(c->e[i].d);
  free(c->e);
  free(c->slot);
  free(c->local);
  free(c->queue);
  memset(c, 0, sizeof *c);
}
