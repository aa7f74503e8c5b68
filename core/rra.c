/* rra.c: Reverse Resumable A* (Silver 2005; docs/choices.md, whca). See rra.h. */
#include "rra.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "search_int.h"

/* Costs are exact pairs a + b sqrt(2) (search_int.h) and the open list orders their integer
 * keys. Before, they were doubles summed move by move and compared with an epsilon of 1e-9;
 * different costs differ by far more than the sums' rounding, so both orders are the same and
 * so are the expansions, while a comparison is one 128-bit integer comparison (the doubles'
 * took a sixth of WHCA*'s instructions). */
#define RRA_NONE INT32_MAX /* g.a of a cell not generated */
#define RRA_LO_BITS 26     /* bits of the key of g in lo */

void mapf__rra_start(mapf__rra *r, const mapf_grid *g, int32_t goal, int32_t target) {
  memset(r, 0, sizeof *r);
  r->goal = goal;
  r->tx = mapf_grid_x(g, target);
  r->ty = mapf_grid_y(g, target);
  r->four = g->connectivity == 4;
  r->width = g->width;
  r->bw = (g->width + 7) / 8;
  r->last_id = -1;
}

void mapf__rra_free(mapf__rra *r) {
  for (int32_t i = 0; i < r->dir_cap; i++)
    if (r->dir_key[i] >= 0) free(r->dir_val[i]);
  free(r->dir_key);
  free(r->dir_val);
  free(r->heap);
  memset(r, 0, sizeof *r);
  r->goal = -1;
  r->last_id = -1;
}

size_t mapf__rra_bytes(const mapf__rra *r) {
  return (size_t)r->nblock * sizeof(mapf__rra_block) +
         (size_t)r->dir_cap * (sizeof *r->dir_key + sizeof *r->dir_val) +
         (size_t)r->heap_cap * sizeof *r->heap;
}

static inline uint32_t dir_home(int32_t id, int32_t cap) {
  return ((uint32_t)id * 2654435761u) & (uint32_t)(cap - 1);
}

/* Doubles the directory (first size 64). Returns -1 when out of memory. */
static int dir_grow(mapf__rra *r) {
  int32_t cap = r->dir_cap ? r->dir_cap * 2 : 64;
  int32_t *key = malloc((size_t)cap * sizeof *key);
  mapf__rra_block **val = malloc((size_t)cap * sizeof *val);
  if (!key || !val) {
    free(key);
    free(val);
    return -1;
  }
  for (int32_t i = 0; i < cap; i++) key[i] = -1;
  for (int32_t i = 0; i < r->dir_cap; i++) {
    if (r->dir_key[i] < 0) continue;
    uint32_t j = dir_home(r->dir_key[i], cap);
    while (key[j] >= 0) j = (j + 1) & (uint32_t)(cap - 1);
    key[j] = r->dir_key[i];
    val[j] = r->dir_val[i];
  }
  free(r->dir_key);
  free(r->dir_val);
  r->dir_key = key;
  r->dir_val = val;
  r->dir_cap = cap;
  return 0;
}

/* The block with this id; when it does not exist, a new one (every g INFINITY) if create,
 * else NULL. *oom is set when memory runs out. */
static mapf__rra_block *block_find(mapf__rra *r, int32_t id, int create, int *oom) {
  if (r->dir_cap > 0) {
    for (uint32_t i = dir_home(id, r->dir_cap);; i = (i + 1) & (uint32_t)(r->dir_cap - 1)) {
      if (r->dir_key[i] == id) {
        r->last_id = id;
        return r->last = r->dir_val[i];
      }
      if (r->dir_key[i] < 0) break;
    }
  }
  if (!create) return NULL;
  if ((r->nblock + 1) * 2 > r->dir_cap && dir_grow(r) < 0) return *oom = 1, NULL;
  mapf__rra_block *b = malloc(sizeof *b);
  if (!b) return *oom = 1, NULL;
  for (int k = 0; k < 64; k++) b->g[k].a = RRA_NONE, b->g[k].b = 0;
  b->closed = 0;
  uint32_t i = dir_home(id, r->dir_cap);
  while (r->dir_key[i] >= 0) i = (i + 1) & (uint32_t)(r->dir_cap - 1);
  r->dir_key[i] = id;
  r->dir_val[i] = b;
  r->nblock++;
  r->last_id = id;
  return r->last = b;
}

/* block_find with the last block looked up first, inline: most moves stay in a block. */
MAPF__INLINE mapf__rra_block *block_of(mapf__rra *r, int32_t id, int create, int *oom) {
  if (id == r->last_id) return r->last;
  return block_find(r, id, create, oom);
}

static inline int32_t block_id(const mapf__rra *r, int32_t x, int32_t y) {
  return (y >> 3) * r->bw + (x >> 3);
}

static inline int bit_of(int32_t x, int32_t y) { return (y & 7) << 3 | (x & 7); }

/* One 128-bit comparison, without branches (GCC and Clang on 64-bit targets). */
static inline int entry_before(const mapf__rra_entry *a, const mapf__rra_entry *b) {
  __extension__ typedef unsigned __int128 u128;
  return ((u128)a->hi << 64 | a->lo) < ((u128)b->hi << 64 | b->lo);
}

MAPF__HEAP_DEFINE(rra_heap, mapf__rra_entry, entry_before)

static inline mapf__cost2 cost_of(const mapf__rra_block *b, int k) {
  mapf__cost2 c = {b->g[k].a, b->g[k].b};
  return c;
}

/* The open lists of 1,000 agents are a good part of the memory: they start small. */
static int heap_push(mapf__rra *r, int32_t cell, uint64_t fkey, uint64_t gkey) {
  uint64_t gc = MAPF__KEY_MAX - gkey;
  mapf__rra_entry e = {fkey << (64 - MAPF__KEY_BITS) | gc >> RRA_LO_BITS,
                       (gc & ((UINT64_C(1) << RRA_LO_BITS) - 1)) << 32 | r->seq++, cell};
  return rra_heap_push(&r->heap, &r->heap_len, &r->heap_cap, 64, e);
}

/* The key of g of an entry. */
static inline uint64_t entry_gkey(const mapf__rra_entry *e) {
  uint64_t gc = (e->hi & ((UINT64_C(1) << (64 - MAPF__KEY_BITS)) - 1)) << RRA_LO_BITS |
                e->lo >> 32;
  return MAPF__KEY_MAX - gc;
}

/* Gives cell (at x, y) the cost ng and opens it, unless it is closed or has g <= ng already.
 * Returns -1 when out of memory. */
MAPF__INLINE int relax(mapf__rra *r, int32_t cell, int32_t x, int32_t y, mapf__cost2 ng) {
  int oom = 0;
  mapf__rra_block *b = block_of(r, block_id(r, x, y), 1, &oom);
  if (!b) return -1;
  int k = bit_of(x, y);
  if (b->closed >> k & 1) return 0;
  uint64_t gkey = mapf__cost_key(ng);
  if (b->g[k].a != RRA_NONE && mapf__cost_key(cost_of(b, k)) <= gkey) return 0;
  b->g[k].a = ng.a;
  b->g[k].b = ng.b;
  mapf__cost2 h = mapf__hc(r->four, x, y, r->tx, r->ty), f = {ng.a + h.a, ng.b + h.b};
  return heap_push(r, cell, mapf__cost_key(f), gkey);
}

/* Silver's RESUMERRA*(N), with one change: the expanded node's successors are generated before
 * the search returns, so a later resumption continues from a complete open list (returning
 * before the expansion would lose N's successors for good). */
double mapf__rra_dist(mapf__rra *r, const mapf_grid *g, int32_t cell, int64_t *expansions) {
  int32_t x = mapf_grid_x(g, cell), y = mapf_grid_y(g, cell);
  if (r->nblock == 0) {
    int32_t gx = mapf_grid_x(g, r->goal), gy = mapf_grid_y(g, r->goal);
    mapf__cost2 zero = {0, 0};
    if (relax(r, r->goal, gx, gy, zero) < 0) return -1;
  }
  int oom = 0;
  mapf__rra_block *b = block_of(r, block_id(r, x, y), 0, &oom);
  int k = bit_of(x, y);
  if (b && (b->closed >> k & 1)) return mapf__cost_of(cost_of(b, k));
  while (r->heap_len > 0) {
    mapf__rra_entry e = rra_heap_pop(r->heap, &r->heap_len);
    int32_t u = e.cell;
    int32_t ux = u % r->width, uy = u / r->width;
    mapf__rra_block *ub = block_of(r, block_id(r, ux, uy), 0, &oom);
    int uk = bit_of(ux, uy);
    if (ub->closed >> uk & 1) continue; /* stale */
    mapf__cost2 ug = cost_of(ub, uk);
    if (entry_gkey(&e) > mapf__cost_key(ug)) continue; /* stale: g has dropped since */
    ub->closed |= (uint64_t)1 << uk;
    r->closed++;
    (*expansions)++;
    uint8_t m = g->moves[u];
    for (int d = 0; d < 8; d++) {
      if (!(m >> d & 1)) continue;
      int diag = d >= MAPF_DIR_NE; /* the diagonals come last in mapf_dir */
      mapf__cost2 ng = {ug.a + !diag, ug.b + diag};
      if (relax(r, u + g->offset[d], ux + mapf_dir_dx[d], uy + mapf_dir_dy[d], ng) < 0)
        return -1;
    }
    if (u == cell) return mapf__cost_of(ug);
  }
  return INFINITY;
}
