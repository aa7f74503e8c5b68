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
 * The open list is search_int.h's ring of buckets (mapf__bq). The octile heuristic is
 * consistent, so the f-values A* expands never decrease and every open f lies within 2 sqrt(2)
 * of the smallest one; f-keys are cut into slices of 1/64, at most 183 of them open at once
 * (under 4 moves the heuristic is Manhattan's, and the span is 2). Within one slice an entry's
 * order is one 64-bit integer (f's offset in the slice, then h: with f equal, a higher g is a
 * lower h) and its insertion number, so entries are 16 bytes and comparisons have no branches
 * and no floating point. A lowered g adds a new entry; the old one goes stale (its insertion
 * number is no longer its node's) and is dropped when met. */
#include "astar.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scen.h"
#include "search_int.h"

#define BQ_SHIFT 26                          /* f-key >> 26: slices of 2^(26 - 32) = 1/64 */
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

/* An open-list entry (search_int.h's bucket queue): hi is f's offset in its slice << 33 |
 * mapf__octile_key(h), lo the insertion number << 32 | the id (the cell, and the parent
 * direction from BQ_DIR_SHIFT). Two entries are in the order of (key, insertion number):
 * insertion numbers are distinct. */
static inline mapf__bq_entry bq_entry_make(uint64_t k, uint32_t seq, int32_t id) {
  mapf__bq_entry e = {k, (uint64_t)seq << 32 | (uint32_t)id};
  return e;
}

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
  mapf__bq q;
};

mapf_astar *mapf_astar_new(void) {
  mapf_astar *a = calloc(1, sizeof(mapf_astar));
  if (a) mapf__bq_init(&a->q);
  return a;
}

void mapf_astar_free(mapf_astar *a) {
  if (!a) return;
  free(a->node);
  free(a->dir);
  mapf__bq_free(&a->q);
  free(a);
}

/* Is e the live entry of its node? */
static inline int bq_live(const void *node, const mapf__bq_entry *e) {
  const bq_node *nd = node;
  return nd[(uint32_t)e->lo & BQ_ID_MASK].seq == (uint32_t)(e->lo >> 32);
}

static int bq_settle(mapf_astar *a) { return mapf__bq_settle(&a->q, bq_live, a->node); }

/* bq_settle's common case, inlined: the current bucket's last entry is live. */
MAPF__INLINE int bq_first(mapf_astar *a) {
  if (a->q.cur >= 0) {
    const mapf__bq_bucket *b = &a->q.b[a->q.cur];
    if (b->len > 0 && bq_live(a->node, &b->e[b->len - 1])) return 1;
  }
  return bq_settle(a);
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
  mapf__bq_clear(&a->q);
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
  mapf__bq_entry e0 =
      bq_entry_make((kf0 & BQ_OFFSET_MASK) << MAPF__HKEY_BITS | mapf__octile_key(h0), seq++,
                    start | MAPF__NO_PARENT << BQ_DIR_SHIFT);
  int rc = mapf__bq_add(&a->q, (int32_t)(kf0 >> BQ_SHIFT) & (MAPF__BQ_N - 1), e0);
  int found = 0;

  while (rc == 0 && bq_first(a)) {
    int32_t top = (int32_t)(uint32_t)mapf__bq_top(&a->q)->lo;
    if ((top & BQ_ID_MASK) == goal) { /* Alg. 1 line 7: First() is the goal. */
      dir[goal] = (uint8_t)(top >> BQ_DIR_SHIFT);
      found = 1;
      break;
    }
    mapf__bq_pop(&a->q);
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
      mapf__bq_entry e = bq_entry_make((kf & BQ_OFFSET_MASK) << MAPF__HKEY_BITS |             \
                                           mapf__octile_key(h),                              \
                                       seq, v | (D) << BQ_DIR_SHIFT);                        \
      w->g = ng;                                                                           \
      w->gen = open_gen;                                                                   \
      w->seq = seq++;                                                                      \
      if ((rc = mapf__bq_add(&a->q, (int32_t)(kf >> BQ_SHIFT) & (MAPF__BQ_N - 1), e)) < 0)  \
        break;                                                                             \
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
