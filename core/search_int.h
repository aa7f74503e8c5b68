/* search_int.h: scratch memory for the grid searches of the planners (RTAA* in BMAA*): per-cell
 * node records stamped with a generation counter, so a new search never clears the arrays, and
 * a binary heap with the tie-breaking of Sigurdson et al. 2018, footnote 1: lowest f, then highest
 * g, then first in first out. Also the exact costs that A* (astar.c) shares. Internal to core/.
 *
 * Exact costs. Every path cost on an octile grid is a + b sqrt(2) with integers a (cardinal
 * moves) and b (diagonal moves), and so are the octile distance and every h-value RTAA* learns
 * (differences and sums of such costs). The searches carry these pairs (mapf__cost2). RTAA*
 * turns them into doubles with one function, mapf__cost, so two equal costs always give the
 * same double, bit for bit, and compare equal without an epsilon; A* turns them into exact
 * integer keys (astar.c). Two different costs differ by |x + y sqrt(2)| >= 1 / (2 sqrt(2) |y|
 * + 1) for integers x and y != 0: below 2^20 (a million moves) that is more than 1e-7, and
 * mapf__cost is off by less than 1e-9, so the doubles compare exactly as the costs do. Before,
 * costs were doubles summed move by move and compared with an epsilon of 1e-9 (README, Choices
 * the papers leave open); on paths of up to millions of moves the sums are off by far less than
 * 1e-9 and different costs differ by far more, so both rules order all costs alike and every
 * search's result is unchanged (README, Performance, has the checks); the pairs make the
 * comparisons exact, cheaper and free of branches.
 *
 * A node record is 16 bytes (the cost pair of g, the stamp, and the insertion number of its
 * live heap entry with the parent direction), so the records of a 256x257 map take 1 MB. */
#ifndef MAPF_SEARCH_INT_H
#define MAPF_SEARCH_INT_H

#include <stdint.h>
#include <stdlib.h>

#include "grid.h"

/* For the few hot helpers whose inlining matters (GCC and Clang ignore plain `inline` when a
 * function looks big). */
#if defined(__GNUC__)
#define MAPF__INLINE static inline __attribute__((always_inline))
#else
#define MAPF__INLINE static inline
#endif

/* A cost a + b sqrt(2). */
typedef struct mapf__cost2 {
  int32_t a, b;
} mapf__cost2;

/* The double of a + b sqrt(2). Two statements, so that no compiler contracts them into a fused
 * multiply-add in one place and not in another (C11 6.5p8 allows contraction only within one
 * expression): equal pairs must give equal doubles everywhere. */
static inline double mapf__cost(int32_t a, int32_t b) {
  double diag = (double)b * MAPF_SQRT2;
  return (double)a + diag;
}

static inline double mapf__cost_of(mapf__cost2 c) { return mapf__cost(c.a, c.b); }

/* The octile distance between (x, y) and (gx, gy) as a cost pair: max - min cardinal moves and
 * min diagonal moves. mapf__cost of it is mapf_octile_xy up to rounding. */
static inline mapf__cost2 mapf__octile2(int32_t x, int32_t y, int32_t gx, int32_t gy) {
  int32_t dx = x > gx ? x - gx : gx - x;
  int32_t dy = y > gy ? y - gy : gy - y;
  int32_t lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
  mapf__cost2 c = {hi - lo, lo};
  return c;
}

/* The grid's heuristic as a cost pair: mapf__octile2 under 8 moves, the Manhattan distance
 * (cardinal moves only) under 4 (grid.h, mapf_grid_h_xy). */
MAPF__INLINE mapf__cost2 mapf__hc(int four, int32_t x, int32_t y, int32_t gx, int32_t gy) {
  if (!four) return mapf__octile2(x, y, gx, gy);
  mapf__cost2 c = {(x > gx ? x - gx : gx - x) + (y > gy ? y - gy : gy - y), 0};
  return c;
}

/* The same, given the grid (hot loops read g->connectivity == 4 once into `four`). */
static inline mapf__cost2 mapf__h2(const mapf_grid *g, int32_t x, int32_t y, int32_t gx,
                                   int32_t gy) {
  return mapf__hc(g->connectivity == 4, x, y, gx, gy);
}

/* Parent direction of a search's root. */
#define MAPF__NO_PARENT 8

typedef struct mapf__node {
  mapf__cost2 g;
  /* The search's stamp s->gen: generated in this search and open; s->gen + 1: closed in this
   * search; anything else: not seen (the other fields are stale). */
  uint32_t gen;
  /* Insertion number of the node's live heap entry << 4 | parent direction (the move from the
   * parent, mapf_dir, or MAPF__NO_PARENT). A search inserts fewer than 2^28 entries (at most
   * 8 per expansion, and expansions <= 10^7). */
  uint32_t link;
} mapf__node;

/* An open-list entry: one unsigned 128-bit integer (a GCC and Clang extension on 64-bit targets)
 * whose order is the open list's (lowest f, then highest g, then first in), so a heap
 * comparison is one integer comparison (a third of BMAA*'s instructions went to comparing the
 * costs as doubles, and two 64-bit halves still took six instructions), and an entry is 16
 * bytes. From the top: 10 zero bits, the key of f (45 bits), the complement of the key of g
 * (45), the insertion number (28). mapf__cost_key turns a cost pair into an integer that orders
 * exactly as the costs do (see there), so the order is the one the doubles of mapf__cost gave.
 * The entry's cell is not in it: s->ids[insertion number] holds it. */
__extension__ typedef unsigned __int128 mapf__entry;

#define MAPF__KEY_BITS 45
#define MAPF__KEY_MAX ((UINT64_C(1) << MAPF__KEY_BITS) - 1)
#define MAPF__SEQ_MASK UINT64_C(0x0fffffff)

/* About (a + b sqrt(2)) * 2^24 for a cost >= 0: an integer that orders costs exactly. Two
 * different costs below 2^20 diagonal moves differ by more than 3.3e-7 (the top of this file),
 * more than 5 units of 2^-24, and the key is off by less than 1.1 units (the truncation, and
 * the rounding of b * sqrt(2) * 2^24 below 2^46), so different costs get different keys in the
 * right order; equal costs are equal pairs (sqrt(2) is irrational) and get equal keys. Costs
 * below 2^21 (every cost a search on a MovingAI map reaches: about 2^12) fit MAPF__KEY_BITS. */
MAPF__INLINE uint64_t mapf__cost_key(mapf__cost2 c) {
  int64_t k = (int64_t)c.a * 16777216 + (int64_t)((double)c.b * (MAPF_SQRT2 * 16777216.0));
  return k > 0 ? (uint64_t)k : 0;
}

/* (sqrt(2) - 1) 2^50, rounded down. */
#define MAPF__R50 UINT64_C(0x1a827999fcef3)

/* The key of an octile distance h = p + q sqrt(2) (mapf__octile2: p + q is the larger of dx and
 * dy, below MAPF_GRID_MAX_SIDE = 2^14) at 2^-18: (p + q) 2^18 + floor(q (sqrt(2) - 1) 2^18),
 * less than 2 units too low and below 2^33 (MAPF__HKEY_BITS). Two different octile distances
 * differ by at least 1 / (2 sqrt(2) 2^14 + 1) > 5 units, so these keys order them exactly, and
 * equal distances get equal keys. Integer arithmetic only. */
#define MAPF__HKEY_BITS 33
MAPF__INLINE uint64_t mapf__octile_key(mapf__cost2 h) {
  uint64_t p = (uint32_t)h.a, q = (uint32_t)h.b;
  return ((p + q) << 18) + ((q * MAPF__R50) >> 32);
}

/* The entry for costs f and g and insertion number seq. */
MAPF__INLINE mapf__entry mapf__entry_make(mapf__cost2 f, mapf__cost2 g, uint32_t seq) {
  uint64_t fk = mapf__cost_key(f), gc = MAPF__KEY_MAX - mapf__cost_key(g);
  return (mapf__entry)fk << 73 | (mapf__entry)gc << 28 | (seq & MAPF__SEQ_MASK);
}

MAPF__INLINE uint32_t mapf__entry_seq(mapf__entry e) { return (uint32_t)e & MAPF__SEQ_MASK; }

/* The open list is a binary heap with lazy deletion: lowering a node's key inserts a new entry
 * and leaves the old one, stale, to be dropped when it reaches the top (its insertion number is
 * no longer the node's). Moving an entry then writes nothing but the heap. The valid entries
 * come out in the same order as from a heap that lowers keys in place, since a lowered key
 * takes a new insertion number either way. */
typedef struct mapf__search {
  mapf__node *node;
  int32_t ncells;
  uint32_t gen;  /* even; gen + 1 marks closed records */
  mapf__entry *heap;
  int32_t *ids;     /* ids[seq]: the cell of the entry with insertion number seq */
  int32_t heap_len, heap_cap; /* heap and ids have heap_cap entries */
  uint32_t seq;
  int32_t *closed; /* ids in order of expansion (RTAA* updates them) */
  int32_t closed_len, closed_cap;
} mapf__search;

/* Doubles the room (1,024 at first) of an array of *cap open-list entries and of its parallel
 * array of cells (ids). Returns 0, or -1 when out of memory. */
int mapf__entries_grow(mapf__entry **heap, int32_t **ids, int32_t *cap);

/* Makes room for a grid of ncells and starts a new search (all records invalid). Returns 0, or
 * -1 when out of memory. */
int mapf__search_begin(mapf__search *s, int32_t ncells);
void mapf__search_free(mapf__search *s);

/* Has id been generated in this search (open or closed)? */
static inline int mapf__seen(const mapf__search *s, int32_t id) {
  return (s->node[id].gen | 1u) == (s->gen | 1u);
}

/* The parent of a generated record, or -1 for the root. offset is the grid's id offset per
 * direction (mapf_grid.offset). */
static inline int32_t mapf__parent(const mapf__search *s, const int32_t *offset, int32_t id) {
  uint32_t d = s->node[id].link & 15u;
  return d == MAPF__NO_PARENT ? -1 : id - offset[d];
}

/* Places e at the hole i of heap h or above it. */
static inline void mapf__heap_up(mapf__entry *h, int32_t i, mapf__entry e) {
  while (i > 0) {
    int32_t p = (i - 1) >> 1;
    if (!(e < h[p])) break;
    h[i] = h[p];
    i = p;
  }
  h[i] = e;
}

/* Removes the root of heap h, which has n entries left, and h[n] is the entry to place (the old
 * last one). Floyd's way: the hole goes down to a leaf along the smaller children, then the
 * entry goes up from there (rarely far: it came from the bottom). Every level costs one
 * comparison of two children, chosen without a branch, instead of two comparisons and a
 * branch on whether to stop, which the branch predictor cannot guess. Keys are distinct (they
 * end in the insertion number), so the entries come out in the same order either way. */
static inline void mapf__heap_pop(mapf__entry *h, int32_t n) {
  if (n == 0) return;
  mapf__entry e = h[n];
  int32_t i = 0, c;
  while ((c = 2 * i + 2) < n) {
    c -= h[c - 1] < h[c];
    h[i] = h[c];
    i = c;
  }
  if (c == n) { /* a left child only */
    h[i] = h[n - 1];
    i = n - 1;
  }
  mapf__heap_up(h, i, e);
}

/* Opens id with costs g and f = g + h, and parent direction dir: new, or open with a higher g
 * (the caller has checked; the old entry goes stale). Returns -1 when out of memory. */
static inline int mapf__open_push(mapf__search *s, int32_t id, mapf__cost2 g, mapf__cost2 f,
                                  int dir) {
  /* Every entry has its own insertion number, so the heap never holds more than seq. */
  if (s->seq == (uint32_t)s->heap_cap && mapf__entries_grow(&s->heap, &s->ids, &s->heap_cap) < 0)
    return -1;
  mapf__node *nd = &s->node[id];
  uint32_t seq = s->seq++;
  s->ids[seq] = id;
  nd->g = g;
  nd->gen = s->gen;
  nd->link = (seq & (uint32_t)MAPF__SEQ_MASK) << 4 | (uint32_t)dir;
  mapf__heap_up(s->heap, s->heap_len++, mapf__entry_make(f, g, seq));
  return 0;
}

/* Drops stale entries from the top and tells whether an open node is left: then
 * mapf__open_first_id is First(), the best open node. */
static inline int mapf__open_first(mapf__search *s) {
  while (s->heap_len > 0) {
    uint32_t seq = mapf__entry_seq(s->heap[0]);
    const mapf__node *nd = &s->node[s->ids[seq]];
    if (nd->link >> 4 == seq && nd->gen == s->gen) return 1;
    mapf__heap_pop(s->heap, --s->heap_len);
  }
  return 0;
}

/* First() (after mapf__open_first returned 1). */
static inline int32_t mapf__open_first_id(const mapf__search *s) {
  return s->ids[mapf__entry_seq(s->heap[0])];
}

/* Removes First() (after mapf__open_first returned 1), marks its node closed and returns it. */
static inline int32_t mapf__open_pop(mapf__search *s) {
  int32_t id = mapf__open_first_id(s);
  s->node[id].gen = s->gen + 1u;
  mapf__heap_pop(s->heap, --s->heap_len);
  return id;
}

/* ---- The bucket queue of A* (astar.c) and of FAR and A*-Replan (far.c) ----------------------
 *
 * An open list for searches whose f-values never decrease and whose open f-values lie within a
 * fixed span of the smallest one (A* with a consistent heuristic on a grid: within 2 sqrt(2), as
 * a child's f exceeds its parent's by its move cost plus the heuristic's change along the move,
 * each at most sqrt(2)). The caller cuts f into slices and gives each entry the bucket of its
 * slice, modulo MAPF__BQ_N: with slices of 1/64, 2 sqrt(2) spans at most 183 slices, so a ring
 * of 256 buckets holds the open slices without two sharing a bucket. An entry is two 64-bit
 * integers in the caller's layout, ordered as the 128-bit integer hi:lo, which is the open list's
 * order within a slice (entries are distinct: an insertion number among the bits); it carries
 * the cell. The current bucket (the smallest open slice) is kept sorted, first entry last
 * (mapf__bq_insert); the others are unsorted arrays, sorted when their turn comes. A lowered key
 * adds a new entry; the old one goes stale (the caller's test `live` tells) and is dropped when
 * met. The buckets are never passed while they hold an entry, so every entry, stale or not, lies
 * in one of the slices ahead. */
#define MAPF__BQ_N 256

typedef struct mapf__bq_entry {
  uint64_t hi, lo; /* hi below 2^64 - 1 */
} mapf__bq_entry;

/* hi:lo of x < hi:lo of y, without branches: when x->lo < y->lo, x->hi <= y->hi suffices. */
MAPF__INLINE int mapf__bq_before(const mapf__bq_entry *x, const mapf__bq_entry *y) {
  return x->hi < y->hi + (uint64_t)(x->lo < y->lo);
}

typedef struct mapf__bq_bucket {
  mapf__bq_entry *e;
  int32_t len, cap;
} mapf__bq_bucket;

typedef struct mapf__bq {
  mapf__bq_bucket b[MAPF__BQ_N];
  uint64_t mask[MAPF__BQ_N / 64]; /* bit set: bucket not empty */
  int32_t cur;                    /* the sorted bucket (the smallest slice), or -1 */
  int32_t count;                  /* entries in all buckets, stale ones included */
  mapf__bq_entry *tmp;            /* room for merge sorting a bucket (mapf__bq_sort_long) */
  int32_t tmp_cap;
} mapf__bq;

/* An empty queue (also what mapf__bq_clear leaves). */
void mapf__bq_init(mapf__bq *q);
void mapf__bq_free(mapf__bq *q);
/* Empties the buckets (the last search may have stopped at its goal with entries left). */
void mapf__bq_clear(mapf__bq *q);
/* Doubles the room of a bucket. Returns -1 when out of memory. */
int mapf__bq_grow(mapf__bq_bucket *b);

static inline void mapf__bq_mark(mapf__bq *q, int32_t i) { q->mask[i >> 6] |= 1ull << (i & 63); }
static inline void mapf__bq_unmark(mapf__bq *q, int32_t i) {
  q->mask[i >> 6] &= ~(1ull << (i & 63));
}

/* Inserts x into the sorted e[0 .. len - 1] (first entry last): x goes down from the end past
 * the entries that come before it. An entry that A* adds to the current slice has the f of the
 * node just expanded (along a move f grows by 0 or by at least 2 - sqrt(2), more than a slice)
 * and a lower h, so in A*'s order it comes before every older live entry: the walk passes the
 * other children of that expansion (at most 7) and the odd stale entry. */
MAPF__INLINE void mapf__bq_insert(mapf__bq_entry *e, int32_t len, mapf__bq_entry x) {
  int32_t j = len;
  while (j > 0 && mapf__bq_before(&e[j - 1], &x)) {
    e[j] = e[j - 1];
    j--;
  }
  e[j] = x;
}

/* Sorts n entries with the first last (mapf__bq_sort's long case): a merge sort of runs of 8
 * sorted by insertion, in q's buffer (grown to n), each merge step chosen without a branch;
 * where q is NULL or the buffer cannot grow, quicksort, heapsort past 2 log2 n levels (O(n log
 * n) for any n). The quicksort's partition branches were a coin toss for the branch predictor:
 * the merge sort took a third less time in WHCA*'s RRA* searches, whose buckets are large. */
void mapf__bq_sort_long(mapf__bq *q, mapf__bq_entry *e, int32_t n);

/* Sorts n entries with the first last: insertion sort when short (the usual case: a slice holds
 * a few entries when its turn comes), mapf__bq_sort_long otherwise (q: as there). Entries are
 * distinct, so any correct sort gives the one order. */
MAPF__INLINE void mapf__bq_sort(mapf__bq *q, mapf__bq_entry *e, int32_t n) {
  if (n > 16) {
    mapf__bq_sort_long(q, e, n);
    return;
  }
  for (int32_t i = 1; i < n; i++) mapf__bq_insert(e, i, e[i]);
}

/* Adds e to bucket i: a sorted insertion in the current bucket, an append elsewhere. Returns -1
 * when out of memory. */
MAPF__INLINE int mapf__bq_add(mapf__bq *q, int32_t i, mapf__bq_entry e) {
  mapf__bq_bucket *b = &q->b[i];
  if (b->len == b->cap && mapf__bq_grow(b) < 0) return -1;
  if (b->len == 0) mapf__bq_mark(q, i);
  q->count++;
  if (i == q->cur)
    mapf__bq_insert(b->e, b->len++, e);
  else
    b->e[b->len++] = e;
  return 0;
}

/* Makes the last entry of the current bucket the first live entry (live(ctx, e): is e the live
 * entry of its node?): drops stale ones, and when the bucket runs empty makes the bucket of the
 * smallest open slice current (dropping its stale entries, then sorting it). Returns 0 when no
 * live entry is left. Inlined into one wrapper per caller, where live is known and inlined. */
MAPF__INLINE int mapf__bq_settle(mapf__bq *q, int (*live)(const void *, const mapf__bq_entry *),
                                 const void *ctx) {
  for (;;) {
    if (q->cur >= 0) {
      mapf__bq_bucket *b = &q->b[q->cur];
      while (b->len > 0 && !live(ctx, &b->e[b->len - 1])) {
        q->count--;
        b->len--;
      }
      if (b->len > 0) return 1;
      mapf__bq_unmark(q, q->cur);
    }
    if (q->count == 0) return 0;
    /* Open slices lie ahead of the current one on the ring: scan forward from it. */
    int32_t start = q->cur < 0 ? 0 : q->cur, i = -1;
    for (int32_t k = 0; k <= MAPF__BQ_N / 64 && i < 0; k++) {
      int32_t w = ((start >> 6) + k) & (MAPF__BQ_N / 64 - 1);
      uint64_t m = q->mask[w];
      if (k == 0)
        m &= ~0ull << (start & 63);
      else if (k == MAPF__BQ_N / 64)
        m &= ~(~0ull << (start & 63));
      if (m) i = w * 64 + __builtin_ctzll(m);
    }
    q->cur = i;
    mapf__bq_bucket *b = &q->b[i];
    int32_t n = 0;
    for (int32_t k = 0; k < b->len; k++)
      if (live(ctx, &b->e[k])) b->e[n++] = b->e[k];
    q->count -= b->len - n;
    b->len = n;
    mapf__bq_sort(q, b->e, n);
  }
}

/* The first entry (after settling: the current bucket's last). */
static inline const mapf__bq_entry *mapf__bq_top(const mapf__bq *q) {
  const mapf__bq_bucket *b = &q->b[q->cur];
  return &b->e[b->len - 1];
}

/* Removes the first entry (after settling). */
MAPF__INLINE void mapf__bq_pop(mapf__bq *q) {
  mapf__bq_bucket *b = &q->b[q->cur];
  q->count--;
  if (--b->len == 0) mapf__bq_unmark(q, q->cur);
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
