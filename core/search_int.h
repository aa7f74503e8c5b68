/* search_int.h: scratch memory shared by the grid searches (A*, RTAA*): per-cell node records
 * stamped with a generation counter, so a new search never clears the arrays, and a binary heap
 * with the tie-breaking of seed 001, footnote 1: lowest f, then highest g, then first in first
 * out. Internal to core/. */
#ifndef MAPF_SEARCH_INT_H
#define MAPF_SEARCH_INT_H

#include <stdint.h>
#include <stdlib.h>

/* f-values closer than this are equal (ALGORITHMS.md: distances are doubles, compare with a
 * small epsilon). Path costs are sums of 1 and sqrt(2); 1e-9 is far below any real difference
 * on maps of up to 2^26 cells. */
#define MAPF__EPS 1e-9

enum { MAPF__HEAP_CLOSED = -1 };

typedef struct mapf__node {
  double g;
  int32_t parent;
  uint32_t gen;  /* equals the search's generation when the record is valid */
  int32_t heap;  /* position in the heap, or MAPF__HEAP_CLOSED */
} mapf__node;

typedef struct mapf__entry {
  double f, g;
  uint32_t seq; /* insertion order, for first-in first-out ties */
  int32_t id;
} mapf__entry;

typedef struct mapf__search {
  mapf__node *node;
  int32_t ncells;
  uint32_t gen;
  mapf__entry *heap;
  int32_t heap_len, heap_cap;
  uint32_t seq;
  int32_t *closed; /* ids in order of expansion (RTAA* updates them) */
  int32_t closed_len, closed_cap;
} mapf__search;

/* Makes room for a grid of ncells and starts a new search (all records invalid). Returns 0, or
 * -1 when out of memory. */
int mapf__search_begin(mapf__search *s, int32_t ncells);
void mapf__search_free(mapf__search *s);

/* Is record id valid in this search? */
static inline int mapf__seen(const mapf__search *s, int32_t id) {
  return s->node[id].gen == s->gen;
}

static inline int mapf__entry_before(const mapf__entry *a, const mapf__entry *b) {
  if (a->f < b->f - MAPF__EPS) return 1;
  if (a->f > b->f + MAPF__EPS) return 0;
  if (a->g > b->g + MAPF__EPS) return 1;
  if (a->g < b->g - MAPF__EPS) return 0;
  return a->seq < b->seq;
}

static inline void mapf__heap_set(mapf__search *s, int32_t i, mapf__entry e) {
  s->heap[i] = e;
  s->node[e.id].heap = i;
}

static inline void mapf__heap_up(mapf__search *s, int32_t i) {
  mapf__entry e = s->heap[i];
  while (i > 0) {
    int32_t p = (i - 1) >> 1;
    if (!mapf__entry_before(&e, &s->heap[p])) break;
    mapf__heap_set(s, i, s->heap[p]);
    i = p;
  }
  mapf__heap_set(s, i, e);
}

static inline void mapf__heap_down(mapf__search *s, int32_t i) {
  mapf__entry e = s->heap[i];
  int32_t n = s->heap_len;
  for (;;) {
    int32_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && mapf__entry_before(&s->heap[c + 1], &s->heap[c])) c++;
    if (!mapf__entry_before(&s->heap[c], &e)) break;
    mapf__heap_set(s, i, s->heap[c]);
    i = c;
  }
  mapf__heap_set(s, i, e);
}

/* Adds id with g and f, or lowers its key if it is already open. Returns -1 when out of
 * memory. */
static inline int mapf__open_push(mapf__search *s, int32_t id, double g, double f) {
  mapf__node *nd = &s->node[id];
  mapf__entry e = {f, g, s->seq++, id};
  if (nd->gen == s->gen && nd->heap >= 0) {
    mapf__heap_set(s, nd->heap, e);
    mapf__heap_up(s, nd->heap);
    return 0;
  }
  if (s->heap_len == s->heap_cap) {
    int32_t cap = s->heap_cap ? s->heap_cap * 2 : 1024;
    mapf__entry *h = realloc(s->heap, (size_t)cap * sizeof *h);
    if (!h) return -1;
    s->heap = h;
    s->heap_cap = cap;
  }
  int32_t i = s->heap_len++;
  s->heap[i] = e;
  nd->heap = i;
  mapf__heap_up(s, i);
  return 0;
}

/* Removes and returns the first entry; the node is marked closed. heap_len must be > 0. */
static inline mapf__entry mapf__open_pop(mapf__search *s) {
  mapf__entry top = s->heap[0];
  s->node[top.id].heap = MAPF__HEAP_CLOSED;
  if (--s->heap_len > 0) {
    mapf__heap_set(s, 0, s->heap[s->heap_len]);
    mapf__heap_down(s, 0);
  }
  return top;
}

/* Appends id to the closed list. Returns -1 when out of memory. */
static inline int mapf__closed_add(mapf__search *s, int32_t id) {
  if (s->closed_len == s->closed_cap) {
    int32_t cap = s->closed_cap ? s->closed_cap * 2 : 1024;
    int32_t *c = realloc(s->closed, (size_t)cap * sizeof *c);
    if (!c) return -1;
    s->closed = c;
    s->closed_cap = cap;
  }
  s->closed[s->closed_len++] = id;
  return 0;
}

#endif
