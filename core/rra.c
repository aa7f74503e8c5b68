/* rra.c: Reverse Resumable A* (Silver 2005; docs/choices.md, whca). See rra.h. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE */
#endif
#include "rra.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "heap.h"
#include "search_int.h"

/* Costs are exact pairs a + b sqrt(2) (search_int.h) and the open list orders their integer
 * keys. Before, they were doubles summed move by move and compared with an epsilon of 1e-9;
 * different costs differ by far more than the sums' rounding, so both orders are the same and
 * so are the expansions, while a comparison is one 128-bit integer comparison (the doubles'
 * took a sixth of WHCA*'s instructions). */
#define RRA_NONE INT32_MAX /* g.a of a cell not generated */
#define RRA_LO_BITS 26     /* bits of the key of g in lo */

/* The scratch of new searches (see "A new search in dense arrays" below). */
#define DENSE_SLICE_BITS 18
#define DENSE_CELL_MASK ((UINT64_C(1) << 32) - 1)

typedef struct dense_node {
  int32_t a, b;  /* g */
  uint32_t gen;  /* s->gen: generated; s->gen + 1: closed; anything else: not seen */
} dense_node;

/* Blocks of the searches queried with a scratch come from its pool: 2 MB chunks, each asked
 * to be one huge page where the system can (Linux's transparent huge pages with madvise), and a
 * free list of the blocks of freed searches. The first step of 1,000 agents on den520d makes
 * 100,000 blocks (52 MB), and each a malloc, its pages faulted in one at a time, took about a
 * fifth of that step, the kernel most of it; the later steps look blocks up all over those
 * 52 MB, where huge pages spare TLB misses. Where a block lies changes no result, and the
 * bytes counted (mapf__rra_bytes) are the same. */
#define POOL_CHUNK (2u << 20)

struct mapf__rra_pool {
  void **chunk;
  int32_t nchunk, chunk_cap;
  char *next, *end;      /* the rest of the newest chunk */
  mapf__rra_block *free; /* freed blocks, each holding the next's address */
};

static mapf__rra_block *pool_alloc(struct mapf__rra_pool *p) {
  if (p->free) {
    mapf__rra_block *b = p->free;
    memcpy(&p->free, b, sizeof p->free);
    return b;
  }
  if ((size_t)(p->end - p->next) < sizeof(mapf__rra_block)) {
    if (p->nchunk == p->chunk_cap) {
      int32_t cap = p->chunk_cap ? p->chunk_cap * 2 : 16;
      void **c = realloc(p->chunk, (size_t)cap * sizeof *c);
      if (!c) return NULL;
      p->chunk = c;
      p->chunk_cap = cap;
    }
    char *m = aligned_alloc(POOL_CHUNK, POOL_CHUNK);
    if (!m) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(m, POOL_CHUNK, MADV_HUGEPAGE); /* advice only: without it, small pages */
#endif
    p->chunk[p->nchunk++] = m;
    p->next = m;
    p->end = m + POOL_CHUNK;
  }
  mapf__rra_block *b = (mapf__rra_block *)(void *)p->next;
  p->next += sizeof(mapf__rra_block);
  return b;
}

static void pool_put(struct mapf__rra_pool *p, mapf__rra_block *b) {
  memcpy(b, &p->free, sizeof p->free);
  p->free = b;
}

struct mapf__rra_scratch {
  struct mapf__rra_pool pool;
  mapf__rra *owner;       /* the search held here, or NULL */
  dense_node *node;
  int32_t ncells;
  uint32_t gen;           /* even */
  uint32_t *block_gen;    /* per block: s->gen once dense_write has found or made it */
  mapf__rra_block **block;
  int32_t nblocks;        /* room of block_gen and block */
  int32_t *cells;         /* cells in the order first generated */
  int32_t ncell, cells_cap;
  int32_t len, cap;       /* the open list's entries and the room r->heap would have */
  uint64_t slice;         /* the full f-slice of the current bucket */
  mapf__bq q;
};

void mapf__rra_start(mapf__rra *r, const mapf_grid *g, int32_t goal, int32_t target) {
  memset(r, 0, sizeof *r);
  r->goal = goal;
  r->tx = mapf_grid_x(g, target);
  r->ty = mapf_grid_y(g, target);
  r->four = g->connectivity == 4;
  r->width = g->width;
  r->bw = (g->width + 7) / 8;
  /* As in astar.c: with m = ceil(2^40 / width), cell * m >> 40 is cell / width for cells below
   * 2^26 and width <= 2^14. */
  r->row_magic = ((1ull << 40) + (uint64_t)g->width - 1) / (uint64_t)g->width;
  r->last_id = -1;
}

void mapf__rra_free(mapf__rra *r) {
  for (int32_t i = 0; i < r->dir_cap; i++) {
    if (r->dir_key[i] < 0) continue;
    if (r->pool)
      pool_put(r->pool, r->dir_val[i]);
    else
      free(r->dir_val[i]);
  }
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
  mapf__rra_block *b = r->pool ? pool_alloc(r->pool) : malloc(sizeof *b);
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

/* The row of cell, without a division (WHCA*'s later steps query RRA* about 5 million times). */
static inline int32_t row_of(const mapf__rra *r, int32_t cell) {
  return (int32_t)(((uint64_t)cell * r->row_magic) >> 40);
}

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

static int dense_cost(mapf__rra *r, const mapf_grid *g, int32_t cell, int64_t *expansions,
                      mapf__rra_scratch *s, mapf__cost2 *c);

/* Silver's RESUMERRA*(N), with one change: the expanded node's successors are generated before
 * the search returns, so a later resumption continues from a complete open list (returning
 * before the expansion would lose N's successors for good). A new search with a scratch runs
 * there (dense_cost). */
int mapf__rra_cost(mapf__rra *r, const mapf_grid *g, int32_t cell, int64_t *expansions,
                   mapf__rra_scratch *s, mapf__cost2 *c) {
  if (r->nblock == 0) r->pool = s ? &s->pool : NULL; /* before its first block */
  if (s && (s->owner == r || r->nblock == 0)) return dense_cost(r, g, cell, expansions, s, c);
  int32_t y = row_of(r, cell), x = cell - y * r->width;
  if (r->nblock == 0) {
    int32_t gx = mapf_grid_x(g, r->goal), gy = mapf_grid_y(g, r->goal);
    mapf__cost2 zero = {0, 0};
    if (relax(r, r->goal, gx, gy, zero) < 0) return -1;
  }
  int oom = 0;
  mapf__rra_block *b = block_of(r, block_id(r, x, y), 0, &oom);
  int k = bit_of(x, y);
  if (b && (b->closed >> k & 1)) return *c = cost_of(b, k), 1;
  while (r->heap_len > 0) {
    mapf__rra_entry e = rra_heap_pop(r->heap, &r->heap_len);
    int32_t u = e.cell;
    int32_t uy = row_of(r, u), ux = u - uy * r->width;
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
    if (u == cell) return *c = ug, 1;
  }
  return 0;
}

double mapf__rra_dist(mapf__rra *r, const mapf_grid *g, int32_t cell, int64_t *expansions,
                      mapf__rra_scratch *s) {
  mapf__cost2 c;
  int rc = mapf__rra_cost(r, g, cell, expansions, s, &c);
  return rc < 0 ? -1 : rc == 0 ? INFINITY : mapf__cost_of(c);
}

/* ---- A new search in dense arrays -------------------------------------------------------------
 *
 * A search's first query goes from the goal to the agent (Silver aims the search there): about
 * as many expansions as the search will ever make, in blocks that do not exist yet, through a
 * directory lookup per move and an open list whose entries are heap-sifted; the agent's first
 * window then asks for the cells around it, resuming the search many times. So a new search
 * runs in the scratch's dense per-cell records and search_int.h's bucket queue (f-values never
 * decrease and every open f lies within 2 sqrt(2) of the smallest: the heuristic is consistent)
 * for as long as the scratch is its own (from its first query until mapf__rra_detach), and then
 * its state is written into r: the blocks, created in the order the search touched them (so the
 * directory too is the same), the costs and closed bits, the open list and the counters. relax
 * touches a cell's block before anything else and leaves the cell generated, so the blocks
 * touched are those of the generated cells, in the order of each one's first generated cell:
 * the dense search does not track them (a tenth of its instructions), dense_write finds them.
 *
 * Every step is mapf__rra_dist's: the same relaxations in the same order, the same keys, the
 * same insertion numbers. The open list pops in one strict order (no two entries are equal:
 * each has its insertion number), a heap's or a bucket queue's alike, and stale entries stay
 * until they come first, as in the heap, so the list holds as many entries at every moment; the
 * array r->heap gets the capacity that rra_heap_push would have grown it to. The entries left at
 * the end go to r->heap, made a heap: any heap of them pops as the other did.
 *
 * A bucket entry: hi is f's offset in its 1/64 slice (18 bits) and the complement of the key of
 * g (45), lo the insertion number (32) and the cell; the bucket is the slice modulo
 * MAPF__BQ_N. */

mapf__rra_scratch *mapf__rra_scratch_new(void) {
  mapf__rra_scratch *s = calloc(1, sizeof *s);
  if (s) mapf__bq_init(&s->q);
  return s;
}

void mapf__rra_scratch_free(mapf__rra_scratch *s) {
  if (!s) return;
  for (int32_t i = 0; i < s->pool.nchunk; i++) free(s->pool.chunk[i]);
  free(s->pool.chunk);
  free(s->node);
  free(s->block_gen);
  free(s->block);
  free(s->cells);
  mapf__bq_free(&s->q);
  free(s);
}

/* Room for a grid of ncells and nblocks blocks, and a new stamp. Returns -1 when out of
 * memory. */
static int dense_begin(mapf__rra_scratch *s, int32_t ncells, int32_t nblocks) {
  if (ncells > s->ncells || nblocks > s->nblocks) {
    if (ncells < s->ncells) ncells = s->ncells;
    if (nblocks < s->nblocks) nblocks = s->nblocks;
    dense_node *n = realloc(s->node, (size_t)ncells * sizeof *n);
    if (n) s->node = n;
    uint32_t *bg = realloc(s->block_gen, (size_t)nblocks * sizeof *bg);
    if (bg) s->block_gen = bg;
    mapf__rra_block **bp = realloc(s->block, (size_t)nblocks * sizeof *bp);
    if (bp) s->block = bp;
    if (!n || !bg || !bp) return -1;
    s->ncells = ncells;
    s->nblocks = nblocks;
    s->gen = 0; /* cleared below: new records must not look valid */
  }
  s->gen += 2;
  if (s->gen <= 2) { /* new arrays, or the stamps wrapped after 2^31 searches */
    memset(s->node, 0, (size_t)s->ncells * sizeof *s->node);
    memset(s->block_gen, 0, (size_t)s->nblocks * sizeof *s->block_gen);
    s->gen = 2;
  }
  s->ncell = 0;
  s->len = s->cap = 0;
  s->slice = 0;
  mapf__bq_clear(&s->q);
  return 0;
}

/* Appends x to the array *a of *len entries and room *cap. Returns -1 when out of memory. */
static int dense_append(int32_t **a, int32_t *len, int32_t *cap, int32_t x) {
  if (*len == *cap) {
    int32_t c = *cap ? *cap * 2 : 1024;
    int32_t *p = realloc(*a, (size_t)c * sizeof *p);
    if (!p) return -1;
    *a = p;
    *cap = c;
  }
  (*a)[(*len)++] = x;
  return 0;
}

/* No entry is dropped before it comes first (see above). */
static inline int dense_keep(const void *ctx, const mapf__bq_entry *e) {
  (void)ctx;
  (void)e;
  return 1;
}

/* Makes the first entry the top of the bucket queue, following the full slice of the current
 * bucket; 0 when the queue is empty. */
static int dense_settle(mapf__rra_scratch *s) {
  int32_t before = s->q.cur;
  if (!mapf__bq_settle(&s->q, dense_keep, NULL)) return 0;
  if (before >= 0) s->slice += (uint64_t)((s->q.cur - before) & (MAPF__BQ_N - 1));
  return 1;
}

/* relax on the dense records (gkey: the key of ng): unless the cell is closed or has g <= ng
 * already, gives it ng and opens it (the heap's growth counted as rra_heap_push grows it: first
 * 64 entries, then by half). Returns -1 when out of memory. */
MAPF__INLINE int dense_relax(mapf__rra *r, mapf__rra_scratch *s, int32_t v, int32_t x,
                             int32_t y, mapf__cost2 ng, uint64_t gkey) {
  const uint32_t open_gen = s->gen;
  dense_node *w = &s->node[v];
  if (w->gen == open_gen + 1u) return 0;
  if (w->gen == open_gen) {
    mapf__cost2 old = {w->a, w->b};
    if (mapf__cost_key(old) <= gkey) return 0;
  } else if (dense_append(&s->cells, &s->ncell, &s->cells_cap, v) < 0) {
    return -1;
  }
  w->a = ng.a;
  w->b = ng.b;
  w->gen = open_gen;
  mapf__cost2 h = mapf__hc(r->four, x, y, r->tx, r->ty), f = {ng.a + h.a, ng.b + h.b};
  uint64_t fkey = mapf__cost_key(f);
  if (s->len == s->cap) s->cap = s->cap ? s->cap + s->cap / 2 : 64;
  s->len++;
  mapf__bq_entry e = {(fkey & ((UINT64_C(1) << DENSE_SLICE_BITS) - 1)) << MAPF__KEY_BITS |
                          (MAPF__KEY_MAX - gkey),
                      (uint64_t)r->seq++ << 32 | (uint32_t)v};
  if (s->q.cur < 0) s->slice = fkey >> DENSE_SLICE_BITS; /* the first entry's */
  return mapf__bq_add(&s->q, (int32_t)(fkey >> DENSE_SLICE_BITS) & (MAPF__BQ_N - 1), e);
}

/* Writes the search held in s into its owner and lets s go. Returns -1 when out of memory. */
static int dense_write(mapf__rra_scratch *s) {
  mapf__rra *r = s->owner;
  s->owner = NULL;
  if (!r) return 0;
  int oom = 0;
  const uint32_t open_gen = s->gen, closed_gen = s->gen + 1u;
  for (int32_t i = 0; i < s->ncell; i++) {
    int32_t c = s->cells[i], y = row_of(r, c), x = c - y * r->width, bid = block_id(r, x, y);
    if (s->block_gen[bid] != open_gen) { /* the block's first generated cell: it is new */
      s->block_gen[bid] = open_gen;
      if (!(s->block[bid] = block_find(r, bid, 1, &oom))) return -1;
    }
    mapf__rra_block *b = s->block[bid];
    int k = bit_of(x, y);
    b->g[k].a = s->node[c].a;
    b->g[k].b = s->node[c].b;
    if (s->node[c].gen == closed_gen) b->closed |= (uint64_t)1 << k;
  }
  mapf__rra_entry *heap = malloc((size_t)s->cap * sizeof *heap);
  if (!heap) return -1;
  r->heap = heap;
  r->heap_cap = s->cap;
  /* The entries left, with their full keys (their slices lie ahead of the current one), made a
   * heap in place (Floyd's, bottom up): any heap of them pops in their one order. */
  int32_t n = 0;
  mapf__bq *q = &s->q;
  for (int32_t w = 0; w < MAPF__BQ_N / 64 && q->count > 0; w++)
    for (uint64_t m = q->mask[w]; m; m &= m - 1) {
      int32_t i = w * 64 + __builtin_ctzll(m);
      uint64_t slice = s->slice + (uint64_t)((i - q->cur) & (MAPF__BQ_N - 1));
      const mapf__bq_bucket *b = &q->b[i];
      for (int32_t k = 0; k < b->len; k++) {
        const mapf__bq_entry *e = &b->e[k];
        uint64_t fkey = slice << DENSE_SLICE_BITS | e->hi >> MAPF__KEY_BITS;
        uint64_t gc = e->hi & MAPF__KEY_MAX;
        heap[n++] =
            (mapf__rra_entry){fkey << (64 - MAPF__KEY_BITS) | gc >> RRA_LO_BITS,
                              (gc & ((UINT64_C(1) << RRA_LO_BITS) - 1)) << 32 | e->lo >> 32,
                              (int32_t)(e->lo & DENSE_CELL_MASK)};
      }
    }
  for (int32_t i = n / 2 - 1; i >= 0; i--) {
    mapf__rra_entry e = heap[i];
    int32_t j = i;
    for (;;) {
      int32_t c = 2 * j + 1;
      if (c >= n) break;
      if (c + 1 < n && entry_before(&heap[c + 1], &heap[c])) c++;
      if (!entry_before(&heap[c], &e)) break;
      heap[j] = heap[c];
      j = c;
    }
    heap[j] = e;
  }
  r->heap_len = n;
  mapf__bq_clear(q);
  return 0;
}

int mapf__rra_detach(mapf__rra_scratch *s) { return s ? dense_write(s) : 0; }

/* mapf__rra_cost for the search held in s (taking s first when r has not searched yet). */
static int dense_cost(mapf__rra *r, const mapf_grid *g, int32_t cell, int64_t *expansions,
                      mapf__rra_scratch *s, mapf__cost2 *c) {
  if (s->owner != r) {
    if (dense_write(s) < 0) return -1;
    const int32_t nblocks = r->bw * ((g->height + 7) / 8);
    if (dense_begin(s, g->ncells, nblocks) < 0) return -1;
    s->owner = r;
    int32_t gx = mapf_grid_x(g, r->goal), gy = mapf_grid_y(g, r->goal);
    mapf__cost2 zero = {0, 0};
    if (dense_relax(r, s, r->goal, gx, gy, zero, 0) < 0) return -1;
  }
  dense_node *nd = s->node;
  const uint32_t closed_gen = s->gen + 1u;
  if (nd[cell].gen == closed_gen) {
    c->a = nd[cell].a;
    c->b = nd[cell].b;
    return 1;
  }
  const int32_t width = g->width;
  const uint64_t row_magic = r->row_magic;
  const uint8_t *moves = g->moves;
  int32_t off[8];
  memcpy(off, g->offset, sizeof off);
  while (dense_settle(s)) {
    mapf__bq_entry e = *mapf__bq_top(&s->q);
    mapf__bq_pop(&s->q);
    s->len--;
    int32_t u = (int32_t)(e.lo & DENSE_CELL_MASK);
    dense_node *un = &nd[u];
    if (un->gen == closed_gen) continue; /* stale */
    mapf__cost2 ug = {un->a, un->b};
    if (MAPF__KEY_MAX - (e.hi & MAPF__KEY_MAX) > mapf__cost_key(ug))
      continue; /* stale: g has dropped since */
    un->gen = closed_gen;
    r->closed++;
    (*expansions)++;
    int32_t uy = (int32_t)(((uint64_t)u * row_magic) >> 40), ux = u - uy * width;
    const unsigned m = moves[u];
    const mapf__cost2 card = {ug.a + 1, ug.b}, diag = {ug.a, ug.b + 1};
    const uint64_t cardkey = mapf__cost_key(card), diagkey = mapf__cost_key(diag);
    /* The moves in direction order, as mapf__rra_dist's loop. */
    if (((m & 1u << MAPF_DIR_N) && dense_relax(r, s, u + off[MAPF_DIR_N], ux, uy - 1, card, cardkey) < 0) ||
        ((m & 1u << MAPF_DIR_E) && dense_relax(r, s, u + off[MAPF_DIR_E], ux + 1, uy, card, cardkey) < 0) ||
        ((m & 1u << MAPF_DIR_S) && dense_relax(r, s, u + off[MAPF_DIR_S], ux, uy + 1, card, cardkey) < 0) ||
        ((m & 1u << MAPF_DIR_W) && dense_relax(r, s, u + off[MAPF_DIR_W], ux - 1, uy, card, cardkey) < 0) ||
        ((m & 1u << MAPF_DIR_NE) &&
         dense_relax(r, s, u + off[MAPF_DIR_NE], ux + 1, uy - 1, diag, diagkey) < 0) ||
        ((m & 1u << MAPF_DIR_SE) &&
         dense_relax(r, s, u + off[MAPF_DIR_SE], ux + 1, uy + 1, diag, diagkey) < 0) ||
        ((m & 1u << MAPF_DIR_SW) &&
         dense_relax(r, s, u + off[MAPF_DIR_SW], ux - 1, uy + 1, diag, diagkey) < 0) ||
        ((m & 1u << MAPF_DIR_NW) &&
         dense_relax(r, s, u + off[MAPF_DIR_NW], ux - 1, uy - 1, diag, diagkey) < 0))
      return -1;
    if (u == cell) return *c = ug, 1;
  }
  return 0;
}

int mapf__rra_generated(mapf__rra *r, int32_t cell) {
  if (r->goal < 0 || r->dir_cap == 0) return 0;
  int32_t y = row_of(r, cell), x = cell - y * r->width, oom = 0;
  const mapf__rra_block *b = block_find(r, block_id(r, x, y), 0, &oom);
  return b && b->g[bit_of(x, y)].a != RRA_NONE;
}
