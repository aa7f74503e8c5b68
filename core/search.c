/* search.c: scratch memory for the grid searches (search_int.h). */
#include "search_int.h"

#include <string.h>

/* Stamps go up by 2 per search (s->gen open, s->gen + 1 closed); 0 and 1 never mark a valid
 * record, so zeroed memory is "not seen". */
int mapf__search_begin(mapf__search *s, int32_t ncells) {
  if (ncells > s->ncells) {
    mapf__node *n = realloc(s->node, (size_t)ncells * sizeof *n);
    if (!n) return -1;
    /* New records must not look valid: zero stamps, and the counter restarts above 1. */
    memset(n, 0, (size_t)ncells * sizeof *n);
    s->node = n;
    s->ncells = ncells;
    s->gen = 0;
  }
  s->gen += 2;
  if (s->gen == 0) {
    /* The counter wrapped after 2^31 searches: clear once and go on. */
    memset(s->node, 0, (size_t)s->ncells * sizeof *s->node);
    s->gen = 2;
  }
  s->heap_len = 0;
  s->closed_len = 0;
  s->seq = 0;
  return 0;
}

int mapf__entries_grow(mapf__entry **heap, int32_t **ids, int32_t *cap) {
  int32_t n = *cap ? *cap * 2 : 1024;
  mapf__entry *h = realloc(*heap, (size_t)n * sizeof *h);
  if (!h) return -1;
  *heap = h;
  int32_t *c = realloc(*ids, (size_t)n * sizeof *c);
  if (!c) return -1;
  *ids = c;
  *cap = n;
  return 0;
}

void mapf__search_free(mapf__search *s) {
  free(s->node);
  free(s->heap);
  free(s->ids);
  free(s->closed);
  memset(s, 0, sizeof *s);
}

void mapf__bq_init(mapf__bq *q) {
  memset(q, 0, sizeof *q);
  q->cur = -1;
}

void mapf__bq_free(mapf__bq *q) {
  for (int32_t i = 0; i < MAPF__BQ_N; i++) free(q->b[i].e);
  mapf__bq_init(q);
}

void mapf__bq_clear(mapf__bq *q) {
  for (int32_t w = 0; w < MAPF__BQ_N / 64 && q->count > 0; w++)
    for (uint64_t m = q->mask[w]; m; m &= m - 1) q->b[w * 64 + __builtin_ctzll(m)].len = 0;
  memset(q->mask, 0, sizeof q->mask);
  q->count = 0;
  q->cur = -1;
}

int mapf__bq_grow(mapf__bq_bucket *b) {
  int32_t cap = b->cap ? b->cap * 2 : 64;
  mapf__bq_entry *p = realloc(b->e, (size_t)cap * sizeof *p);
  if (!p) return -1;
  b->e = p;
  b->cap = cap;
  return 0;
}
