/* astar.c: plain A* over the legal moves of a grid (Sigurdson et al. 2018, Alg. 1).
 * Generation-stamped node records mean a search costs O(generated nodes x log), never O(map).
 * README, Performance, has the figures; the order of expansions is exactly that of a binary heap
 * with Sigurdson et al. 2018's ties (lowest f, then highest g, then first in first out), so are the
 * expansion counts and paths.
 *
 * Exact integer keys. Costs are pairs a + b sqrt(2) (search_int.h). bq_key maps a pair to the
 * 64-bit integer floor((a + b sqrt(2)) 2^32) give or take 2: two different costs below 2^27
 * differ by at least 2^-29 (|x + y sqrt(2)| >= 1 / (2 sqrt(2) |y| + 1) for integers x and
 * y != 0), that is by at least 8 units of 2^-32, so the keys order every pair of costs exactly
 * as the real numbers do, and equal costs have equal keys.
 *
 * The open list is a ring of buckets. The octile heuristic is consistent, so the f-values A*
 * expands never decrease and every open f lies within 2 sqrt(2) of the smallest one (a node's f
 * exceeds its parent's, which was at most the smallest when the parent was expanded, by its move
 * cost plus the heuristic's change along the move, each at most sqrt(2)). f-keys are cut into
 * slices of 1/64; 2 sqrt(2) spans at most 183 slices, so a ring of BQ_N = 256 buckets holds the
 * open slices without two sharing a bucket (under 4 moves the heuristic is Manhattan's, and the
 * span is 2). The current bucket (the smallest open slice) is kept
 * sorted, first entry last (bq_insert); the others are unsorted arrays, sorted when their turn
 * comes. Within one slice an entry's order is one 64-bit integer (f's offset in the slice, then
 * h: with f equal, a higher g is a lower h) and its insertion number, so entries are 16 bytes
 * and comparisons have no branches and no floating point. A lowered g adds a new entry; the old
 * one goes stale (its insertion number is no longer its node's) and is dropped when met. The
 * buckets are never passed while they hold an entry, so every entry, stale or not, lies in one
 * of the 183 slices ahead. */
#include "astar.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scen.h"
#include "search_int.h"

#define BQ_SHIFT 26                          /* f-key >> 26: slices of 2^(26 - 32) = 1/64 */
#define BQ_N 256                             /* buckets in the ring */
#define BQ_OFFSET_MASK ((1ull << BQ_SHIFT) - 1) /* f's offset in its slice */

/* (sqrt(2) - 1) 2^64, rounded down, whole and in two halves. */
#define BQ_R 0x6a09e667f3bcc908ull
#define BQ_R_HI 0x6a09e667ull
#define BQ_R_LO 0xf3bcc908ull

/* The key of a + b sqrt(2) for 0 <= a, b < 2^31: (a + b) 2^32 + floor(b (sqrt(2) - 1) 2^32),
 * less than 2 units too low (one 64 x 64 -> 128-bit multiplication where the compiler has one,
 * else two 64-bit ones: the same key either way). */
static inline uint64_t bq_key(int32_t a, int32_t b) {
  uint64_t ua = (uint32_t)a, ub = (uint32_t)b;
#ifdef __SIZEOF_INT128__
  __extension__ typedef unsigned __int128 u128;
  return ((ua + ub) << 32) + (uint64_t)(((u128)ub * BQ_R) >> 32);
#else
  return ((ua + ub) << 32) + ub * BQ_R_HI + ((ub * BQ_R_LO) >> 32);
#endif
}

typedef struct bq_entry {
  uint64_t k;   /* f's offset in its slice << 33 | mapf__octile_key(h) */
  uint32_t seq; /* insertion order */
  int32_t id;
} bq_entry;

/* (x->k, x->seq) < (y->k, y->seq) lexicographically, without branches: when x->seq < y->seq,
 * x->k <= y->k suffices (keys are below 2^59, so y->k + 1 does not wrap). */
static inline int bq_before(const bq_entry *x, const bq_entry *y) {
  return x->k < y->k + (uint64_t)(x->seq < y->seq);
}

typedef struct bq_bucket {
  bq_entry *e;
  int32_t len, cap;
} bq_bucket;

/* A node record, 16 bytes: the cost pair of g, the stamp and the insertion number of its live
 * entry. The parent direction travels in the entry (BQ_DIR_SHIFT) and is stored (dir) when the
 * node is expanded, so generating a child writes one record and one entry. */
typedef struct bq_node {
  mapf__cost2 g;
  uint32_t gen; /* stamp: a->gen open, a->gen + 1 closed, anything else not seen */
  uint32_t seq; /* insertion number of the node's live entry; entries with another are stale */
} bq_node;

/* An entry's id holds the cell (below 2^26) and, from bit 27, the parent direction. */
#define BQ_DIR_SHIFT 27
#define BQ_ID_MASK ((1 << BQ_DIR_SHIFT) - 1)

struct mapf_astar {
  bq_node *node;
  uint8_t *dir;             /* of expanded nodes (and the goal): the move from the parent, or
                               MAPF__NO_PARENT */
  int32_t ncells;
  uint32_t gen;             /* even */
  bq_bucket b[BQ_N];
  uint64_t mask[BQ_N / 64]; /* bit set: bucket not empty */
  int32_t cur;              /* the sorted bucket (the smallest slice), or -1 */
  int32_t count;            /* entries in all buckets, stale ones included */
};

mapf_astar *mapf_astar_new(void) {
  mapf_astar *a = calloc(1, sizeof(mapf_astar));
  if (a) a->cur = -1;
  return a;
}

void mapf_astar_free(mapf_astar *a) {
  if (!a) return;
  free(a->node);
  free(a->dir);
  for (int32_t i = 0; i < BQ_N; i++) free(a->b[i].e);
  free(a);
}

static inline void bq_mark(mapf_astar *a, int32_t i) { a->mask[i >> 6] |= 1ull << (i & 63); }
static inline void bq_unmark(mapf_astar *a, int32_t i) {
  a->mask[i >> 6] &= ~(1ull << (i & 63));
}

/* The current bucket is kept sorted with its first entry last, so a pop is len - 1. An entry
 * added to it goes down from the end past the entries that come before it. Every entry A* adds
 * to the current slice has the f of the node just expanded (along a move f grows by 0 or by at
 * least 2 - sqrt(2), more than a slice) and a lower h, so it comes before every older live
 * entry: the walk passes the other children of that expansion (at most 7) and the odd stale
 * entry. */
MAPF__INLINE void bq_insert(bq_entry *e, int32_t len, bq_entry x) {
  int32_t j = len;
  while (j > 0 && bq_before(&e[j - 1], &x)) {
    e[j] = e[j - 1];
    j--;
  }
  e[j] = x;
}

/* Min-heap sift-down (the first entry at the root), for bq_sort. */
static void bq_down(bq_entry *h, int32_t n, int32_t i, bq_entry e) {
  for (;;) {
    int32_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n) c += bq_before(&h[c + 1], &h[c]);
    if (!bq_before(&h[c], &e)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = e;
}

/* Sorts n entries with the first last: insertion sort when short (the usual case: a slice
 * holds a few entries when its turn comes), heapsort otherwise (O(n log n) for any n). */
static void bq_sort(bq_entry *e, int32_t n) {
  if (n <= 16) {
    for (int32_t i = 1; i < n; i++) bq_insert(e, i, e[i]);
    return;
  }
  for (int32_t p = n / 2 - 1; p >= 0; p--) bq_down(e, n, p, e[p]);
  for (int32_t end = n - 1; end > 0; end--) {
    bq_entry x = e[end];
    e[end] = e[0];
    bq_down(e, end, 0, x);
  }
}

/* Doubles the room of a bucket. Returns -1 when out of memory. */
static int bq_grow(bq_bucket *b) {
  int32_t cap = b->cap ? b->cap * 2 : 64;
  bq_entry *p = realloc(b->e, (size_t)cap * sizeof *p);
  if (!p) return -1;
  b->e = p;
  b->cap = cap;
  return 0;
}

/* Adds e to bucket i: a sorted insertion in the current bucket, an append elsewhere. Returns -1
 * when out of memory. */
MAPF__INLINE int bq_add(mapf_astar *a, int32_t i, bq_entry e) {
  bq_bucket *b = &a->b[i];
  if (b->len == b->cap && bq_grow(b) < 0) return -1;
  if (b->len == 0) bq_mark(a, i);
  a->count++;
  if (i == a->cur)
    bq_insert(b->e, b->len++, e);
  else
    b->e[b->len++] = e;
  return 0;
}

/* Is e the live entry of its node? */
static inline int bq_live(const bq_node *nd, const bq_entry *e) {
  return nd[e->id & BQ_ID_MASK].seq == e->seq;
}

/* Makes the last entry of the current bucket the first live entry: drops stale ones, and when
 * the bucket runs empty makes the bucket of the smallest open slice current (dropping its stale
 * entries, then sorting it). Returns 0 when no live entry is left. */
static int bq_settle(mapf_astar *a) {
  const bq_node *nd = a->node;
  for (;;) {
    if (a->cur >= 0) {
      bq_bucket *b = &a->b[a->cur];
      while (b->len > 0 && !bq_live(nd, &b->e[b->len - 1])) {
        a->count--;
        b->len--;
      }
      if (b->len > 0) return 1;
      bq_unmark(a, a->cur);
    }
    if (a->count == 0) return 0;
    /* Open slices lie ahead of the current one on the ring: scan forward from it. */
    int32_t start = a->cur < 0 ? 0 : a->cur, i = -1;
    for (int32_t k = 0; k <= BQ_N / 64 && i < 0; k++) {
      int32_t w = ((start >> 6) + k) & (BQ_N / 64 - 1);
      uint64_t m = a->mask[w];
      if (k == 0)
        m &= ~0ull << (start & 63);
      else if (k == BQ_N / 64)
        m &= ~(~0ull << (start & 63));
      if (m) i = w * 64 + __builtin_ctzll(m);
    }
    a->cur = i;
    bq_bucket *b = &a->b[i];
    int32_t n = 0;
    for (int32_t k = 0; k < b->len; k++)
      if (bq_live(nd, &b->e[k])) b->e[n++] = b->e[k];
    a->count -= b->len - n;
    b->len = n;
    bq_sort(b->e, n);
  }
}

/* bq_settle's common case, inlined: the current bucket's last entry is live. */
MAPF__INLINE int bq_first(mapf_astar *a) {
  if (a->cur >= 0) {
    const bq_bucket *b = &a->b[a->cur];
    if (b->len > 0 && bq_live(a->node, &b->e[b->len - 1])) return 1;
  }
  return bq_settle(a);
}

/* Removes the first entry and returns its id (cell and parent direction; call bq_settle
 * before). */
MAPF__INLINE int32_t bq_pop(mapf_astar *a) {
  bq_bucket *b = &a->b[a->cur];
  a->count--;
  if (--b->len == 0) bq_unmark(a, a->cur);
  return b->e[b->len].id;
}

/* The parent of a generated node, or -1 for the start. */
static inline int32_t bq_parent(const mapf_astar *a, const mapf_grid *g, int32_t id) {
  uint32_t d = a->dir[id];
  return d == MAPF__NO_PARENT ? -1 : id - g->offset[d];
}

/* Makes room for ncells records and starts a new search: stamps go up by 2 per search, and
 * zeroed records (stamp 0) are never valid; empties the buckets (the last search may have
 * stopped at its goal with entries left). Returns 0 or -1 when out of memory. */
static int bq_begin(mapf_astar *a, int32_t ncells) {
  if (ncells > a->ncells) {
    bq_node *n = realloc(a->node, (size_t)ncells * sizeof *n);
    if (n) a->node = n;
    uint8_t *d = realloc(a->dir, (size_t)ncells);
    if (d) a->dir = d;
    if (!n || !d) return -1;
    memset(a->node, 0, (size_t)ncells * sizeof *a->node);
    a->ncells = ncells;
    a->gen = 0;
  }
  a->gen += 2;
  if (a->gen == 0) {
    /* The counter wrapped after 2^31 searches: clear once and go on. */
    memset(a->node, 0, (size_t)a->ncells * sizeof *a->node);
    a->gen = 2;
  }
  /* Empty the buckets the last search left. */
  for (int32_t w = 0; w < BQ_N / 64 && a->count > 0; w++)
    for (uint64_t m = a->mask[w]; m; m &= m - 1) a->b[w * 64 + __builtin_ctzll(m)].len = 0;
  memset(a->mask, 0, sizeof a->mask);
  a->count = 0;
  a->cur = -1;
  return 0;
}

int mapf_astar_run(mapf_astar *a, const mapf_grid *g, int32_t start, int32_t goal,
                   mapf_astar_result *r, int32_t *path, int32_t *path_len) {
  r->found = 0;
  r->cost = 0;
  r->expansions = 0;
  int32_t cap = path_len ? *path_len : 0;
  if (path_len) *path_len = 0;
  if (start < 0 || goal < 0 || start >= g->ncells || goal >= g->ncells ||
      !g->passable[start] || !g->passable[goal])
    return MAPF_EINVAL;
  if (bq_begin(a, g->ncells) < 0) return MAPF_ENOMEM;

  bq_node *nd = a->node;
  uint8_t *dir = a->dir;
  /* Local copies: stores through nd and the buckets could alias the grid's fields. */
  const uint8_t *moves = g->moves;
  int32_t off[8];
  memcpy(off, g->offset, sizeof off);
  const int32_t width = g->width;
  /* A cell's row by a multiplication instead of a division: with m = ceil(2^40 / width) and
   * e = m width - 2^40 < width, u m / 2^40 = u / width + u e / (width 2^40), and u e < 2^40
   * for u < 2^26 cells and width <= 2^14, so the floor is floor(u / width); u m < 2^55. */
  const uint64_t row_magic = ((1ull << 40) + (uint64_t)width - 1) / (uint64_t)width;
  const uint32_t open_gen = a->gen, closed_gen = a->gen + 1u;
  uint32_t seq = 0;
  int32_t gx = mapf_grid_x(g, goal), gy = mapf_grid_y(g, goal);
  const int four = g->connectivity == 4;
  mapf__cost2 h0 = mapf__hc(four, mapf_grid_x(g, start), mapf_grid_y(g, start), gx, gy);
  nd[start].g.a = nd[start].g.b = 0;
  nd[start].gen = open_gen;
  nd[start].seq = seq;
  uint64_t kf0 = bq_key(h0.a, h0.b);
  bq_entry e0 = {(kf0 & BQ_OFFSET_MASK) << MAPF__HKEY_BITS | mapf__octile_key(h0), seq++,
                 start | MAPF__NO_PARENT << BQ_DIR_SHIFT};
  int rc = bq_add(a, (int32_t)(kf0 >> BQ_SHIFT) & (BQ_N - 1), e0);
  int found = 0;

  while (rc == 0 && bq_first(a)) {
    const bq_bucket *cb = &a->b[a->cur];
    int32_t top = cb->e[cb->len - 1].id;
    if ((top & BQ_ID_MASK) == goal) { /* Alg. 1 line 7: First() is the goal. */
      dir[goal] = (uint8_t)(top >> BQ_DIR_SHIFT);
      found = 1;
      break;
    }
    top = bq_pop(a);
    int32_t u = top & BQ_ID_MASK;
    dir[u] = (uint8_t)(top >> BQ_DIR_SHIFT);
    nd[u].gen = closed_gen;
    int32_t uy = (int32_t)(((uint64_t)u * row_magic) >> 40), ux = u - uy * width;
    mapf__cost2 gu = nd[u].g;
    /* The keys of the two costs a child can have: one more cardinal or diagonal move. */
    const uint64_t gkey[2] = {bq_key(gu.a + 1, gu.b), bq_key(gu.a, gu.b + 1)};
    r->expansions++;
    const unsigned m = moves[u];
    /* The eight moves, unrolled in direction order (each with its constants); a legal move
     * generates a child when the neighbour is new or open with a strictly higher g (its old
     * entry then goes stale). Generating one child changes no other neighbour's record. */
#define BQ_MOVE(D, DIAG, DX, DY)                                                           \
  if (m & (1u << (D))) {                                                                   \
    int32_t v = u + off[D];                                                                \
    bq_node *w = &nd[v];                                                                   \
    uint32_t wg = w->gen;                                                                  \
    if (wg != closed_gen && (wg != open_gen || bq_key(w->g.a, w->g.b) > gkey[DIAG])) {     \
      mapf__cost2 ng = {gu.a + 1 - (DIAG), gu.b + (DIAG)};                                 \
      mapf__cost2 h = mapf__hc(four, ux + (DX), uy + (DY), gx, gy);                        \
      uint64_t kf = bq_key(ng.a + h.a, ng.b + h.b);                                        \
      bq_entry e = {(kf & BQ_OFFSET_MASK) << MAPF__HKEY_BITS | mapf__octile_key(h), seq,      \
                    v | (D) << BQ_DIR_SHIFT};                                                \
      w->g = ng;                                                                           \
      w->gen = open_gen;                                                                   \
      w->seq = seq++;                                                                      \
      if ((rc = bq_add(a, (int32_t)(kf >> BQ_SHIFT) & (BQ_N - 1), e)) < 0) break;          \
    }                                                                                      \
  }
    BQ_MOVE(MAPF_DIR_N, 0, 0, -1)
    BQ_MOVE(MAPF_DIR_E, 0, 1, 0)
    BQ_MOVE(MAPF_DIR_S, 0, 0, 1)
    BQ_MOVE(MAPF_DIR_W, 0, -1, 0)
    BQ_MOVE(MAPF_DIR_NE, 1, 1, -1)
    BQ_MOVE(MAPF_DIR_SE, 1, 1, 1)
    BQ_MOVE(MAPF_DIR_SW, 1, -1, 1)
    BQ_MOVE(MAPF_DIR_NW, 1, -1, -1)
#undef BQ_MOVE
  }
  if (rc < 0) return MAPF_ENOMEM;
  if (!found) return MAPF_OK;
  r->found = 1;
  r->cost = mapf__cost_of(nd[goal].g);
  if (path_len) {
    int32_t len = 0;
    for (int32_t c = goal; c != -1; c = bq_parent(a, g, c)) len++;
    *path_len = len;
    if (path && len <= cap) {
      int32_t i = len;
      for (int32_t c = goal; c != -1; c = bq_parent(a, g, c)) path[--i] = c;
    }
  }
  return MAPF_OK;
}

int mapf_astar_fill_optimal(const mapf_grid *g, mapf_instance *inst) {
  if (inst->optimal) return MAPF_OK;
  double *opt = malloc((size_t)(inst->n > 0 ? inst->n : 1) * sizeof *opt);
  mapf_astar *a = mapf_astar_new();
  if (!opt || !a) {
    free(opt);
    mapf_astar_free(a);
    return MAPF_ENOMEM;
  }
  for (int32_t i = 0; i < inst->n; i++) {
    mapf_astar_result r;
    mapf_astar_run(a, g, inst->start[i], inst->goal[i], &r, NULL, NULL);
    opt[i] = r.found ? r.cost : NAN;
  }
  mapf_astar_free(a);
  inst->optimal = opt;
  return MAPF_OK;
}
