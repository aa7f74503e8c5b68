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
