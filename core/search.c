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
  free(q->tmp);
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

/* Min-heap sift-down (the first entry at the root), for bq_heapsort. */
static void bq_down(mapf__bq_entry *h, int32_t n, int32_t i, mapf__bq_entry e) {
  for (;;) {
    int32_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n) c += mapf__bq_before(&h[c + 1], &h[c]);
    if (!mapf__bq_before(&h[c], &e)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = e;
}

static void bq_heapsort(mapf__bq_entry *e, int32_t n) {
  for (int32_t p = n / 2 - 1; p >= 0; p--) bq_down(e, n, p, e[p]);
  for (int32_t end = n - 1; end > 0; end--) {
    mapf__bq_entry x = e[end];
    e[end] = e[0];
    bq_down(e, end, 0, x);
  }
}

/* Does x go before y in the array (first last): does y come out first? */
static inline int bq_left(const mapf__bq_entry *x, const mapf__bq_entry *y) {
  return mapf__bq_before(y, x);
}

static inline void bq_swap(mapf__bq_entry *e, int32_t i, int32_t j) {
  mapf__bq_entry t = e[i];
  e[i] = e[j];
  e[j] = t;
}

/* Quicksort (Hoare's partition around the median of three) down to runs of at most 16 entries,
 * left for the insertion sort of mapf__bq_sort_long; heapsort when depth runs out. */
static void bq_quick(mapf__bq_entry *e, int32_t n, int depth) {
  while (n > 16) {
    if (depth-- == 0) {
      bq_heapsort(e, n);
      return;
    }
    int32_t m = (n - 1) / 2;
    if (bq_left(&e[m], &e[0])) bq_swap(e, 0, m);
    if (bq_left(&e[n - 1], &e[m])) {
      bq_swap(e, m, n - 1);
      if (bq_left(&e[m], &e[0])) bq_swap(e, 0, m);
    }
    mapf__bq_entry p = e[m];
    int32_t i = -1, j = n;
    for (;;) {
      do i++;
      while (bq_left(&e[i], &p));
      do j--;
      while (bq_left(&p, &e[j]));
      if (i >= j) break;
      bq_swap(e, i, j);
    }
    /* e[0 .. j] go before p's place, e[j + 1 ..] after: recurse on the smaller part. */
    int32_t left = j + 1;
    if (left < n - left) {
      bq_quick(e, left, depth);
      e += left;
      n -= left;
    } else {
      bq_quick(e + left, n - left, depth);
      n = left;
    }
  }
}

/* Merges the sorted runs a[0 .. na - 1] and b[0 .. nb - 1] (first last) into out, choosing
 * each entry without a branch: which run gives the next entry is a coin toss for the branch
 * predictor. */
static void bq_merge(const mapf__bq_entry *a, int32_t na, const mapf__bq_entry *b, int32_t nb,
                     mapf__bq_entry *out) {
  const mapf__bq_entry *ae = a + na, *be = b + nb;
  while (a < ae && b < be) {
    int take_a = mapf__bq_before(b, a); /* a's entry comes out later: it goes first */
    *out++ = *(take_a ? a : b);
    a += take_a;
    b += !take_a;
  }
  while (a < ae) *out++ = *a++;
  while (b < be) *out++ = *b++;
}

/* Runs sorted by insertion before the merges. */
#define BQ_RUN 8

void mapf__bq_sort_long(mapf__bq *q, mapf__bq_entry *e, int32_t n) {
  if (q && n > q->tmp_cap) {
    int32_t cap = q->tmp_cap ? q->tmp_cap : 1024;
    while (cap < n) cap *= 2;
    mapf__bq_entry *t = realloc(q->tmp, (size_t)cap * sizeof *t);
    if (t) q->tmp = t, q->tmp_cap = cap;
  }
  if (q && n <= q->tmp_cap) {
    for (int32_t i = 0; i < n; i += BQ_RUN) {
      int32_t len = n - i < BQ_RUN ? n - i : BQ_RUN;
      for (int32_t k = 1; k < len; k++) mapf__bq_insert(e + i, k, e[i + k]);
    }
    mapf__bq_entry *from = e, *to = q->tmp;
    for (int32_t w = BQ_RUN; w < n; w *= 2) {
      for (int32_t i = 0; i < n; i += 2 * w) {
        int32_t na = n - i < w ? n - i : w, nb = n - i - na < w ? n - i - na : w;
        bq_merge(from + i, na, from + i + na, nb, to + i);
      }
      mapf__bq_entry *t = from;
      from = to;
      to = t;
    }
    if (from != e) memcpy(e, from, (size_t)n * sizeof *e);
    return;
  }
  /* No room for the merges (out of memory, or no queue): in place. */
  int depth = 0;
  for (int32_t k = n; k > 1; k >>= 1) depth += 2;
  bq_quick(e, n, depth);
  for (int32_t i = 1; i < n; i++) mapf__bq_insert(e, i, e[i]);
}
