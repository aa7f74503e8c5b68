/* rra.h: Reverse Resumable A* (Silver 2005, "Hierarchical Cooperative A*"; docs/choices.md,
 * WHCA*): the true distance from any cell to one agent's goal, ignoring agents. An A* search
 * runs backwards from the goal toward a target cell (Silver: the agent's start) with the
 * octile heuristic; when the distance of a cell that is not closed yet is asked for, the search
 * is resumed, not restarted, until that cell is expanded. The grid's moves are symmetric, so
 * the reverse search runs on the same moves as the agents.
 *
 * Memory is lazy and sparse: nothing is allocated until the first query, and g-values are kept
 * in 8 x 8 blocks of cells allocated when the search first touches them (a block directory
 * keyed by block id), about 12 bytes per generated cell since A*'s explored region is compact,
 * so 1,000 agents on a map hold what their searches touched, not 1,000 dense arrays. Internal
 * to core/; reentrant (each mapf__rra is owned by one thread). */
#ifndef MAPF_RRA_H
#define MAPF_RRA_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "search_int.h"

/* 64 cells: g as an exact cost a + b sqrt(2) (a = INT32_MAX until generated) and a closed bit
 * each. */
typedef struct mapf__rra_block {
  struct {
    int32_t a, b;
  } g[64];
  uint64_t closed;
} mapf__rra_block;

/* An open-list entry. hi and lo, compared as one 128-bit integer, order entries as the open
 * list does (lowest f, then highest g, then first in first out): the exact integer keys of
 * search_int.h, from the top the key of f (45 bits), the complement of the key of g (45) and
 * the insertion number (32). */
typedef struct mapf__rra_entry {
  uint64_t hi, lo;
  int32_t cell;
} mapf__rra_entry;

typedef struct mapf__rra {
  int32_t goal;      /* where the search starts; -1 when not started */
  int32_t tx, ty;    /* the heuristic's target */
  int four;          /* the grid has 4 moves: Manhattan heuristic (grid.h) */
  int32_t width, bw; /* grid width, blocks per block row */
  uint64_t row_magic; /* a cell's row is cell * row_magic >> 40 (no division: see rra.c) */
  int32_t *dir_key;  /* block directory: open addressing, block id (-1: empty) -> block */
  mapf__rra_block **dir_val;
  int32_t dir_cap, nblock;
  int32_t last_id;   /* the block looked up last (-1: none), and its address */
  mapf__rra_block *last;
  struct mapf__rra_pool *pool; /* where its blocks come from (a scratch's), or NULL: malloc */
  mapf__rra_entry *heap; /* open list with lazy deletion: stale entries are skipped */
  int32_t heap_len, heap_cap;
  uint32_t seq;
  int64_t closed;    /* cells expanded */
} mapf__rra;

/* Prepares r (zeroed, or freed with mapf__rra_free) to measure distances to goal, with the
 * heuristic pointing at target. Allocates nothing; the search starts on the first query. */
void mapf__rra_start(mapf__rra *r, const mapf_grid *g, int32_t goal, int32_t target);

/* Frees what r holds and zeroes it (goal = -1: not started); safe on a zeroed r. */
void mapf__rra_free(mapf__rra *r);

/* Scratch memory for new searches (mapf__rra_dist): dense per-cell records and a bucket queue
 * for grids of any size, shared by the searches of one thread; also the pool that the blocks of
 * every search queried with it come from (so it must outlive them: free them first). */
typedef struct mapf__rra_scratch mapf__rra_scratch;

/* Returns new scratch memory or NULL; free with mapf__rra_scratch_free (NULL: no-op). */
mapf__rra_scratch *mapf__rra_scratch_new(void);
void mapf__rra_scratch_free(mapf__rra_scratch *s);

/* The true distance from cell to the goal (a cost-minimal path over the legal moves),
 * resuming the search until cell is closed; *expansions grows by the cells expanded. Returns
 * the distance, INFINITY when cell cannot reach the goal, or -1 when out of memory.
 *
 * With s (may be NULL), a search that has not started (nothing searched since mapf__rra_start)
 * runs in the dense arrays of s, its first query (the long one, from the goal to the agent) and
 * every later one, until mapf__rra_detach (or until another new search takes s) writes it into
 * r: then r is exactly as if every query had run in r's own blocks: the same cells generated and
 * closed with the same costs, the same blocks and directory, the same open list (stale entries
 * included, in an order that pops the same), insertion numbers and so the same bytes. Later
 * queries resume in r. Until then r must not be read (mapf__rra_bytes) or freed. */
double mapf__rra_dist(mapf__rra *r, const mapf_grid *g, int32_t cell, int64_t *expansions,
                      mapf__rra_scratch *s);

/* mapf__rra_dist as an exact cost pair (search_int.h; the distance is mapf__cost_of(*c)):
 * returns 1 with *c, 0 when cell cannot reach the goal, -1 when out of memory. */
int mapf__rra_cost(mapf__rra *r, const mapf_grid *g, int32_t cell, int64_t *expansions,
                   mapf__rra_scratch *s, mapf__cost2 *c);

/* Writes the search that s holds, if any, into its mapf__rra. Returns 0, or -1 when out of
 * memory (the search is then lost: free it). */
int mapf__rra_detach(mapf__rra_scratch *s);

/* Bytes r holds (blocks, directory and open list), for the memory budget and tests. */
size_t mapf__rra_bytes(const mapf__rra *r);

/* Whether r's search has generated cell (given it a g-value, open or closed); 0 before the
 * first query. For map changes (whca.c): an opening far from everything a search generated
 * leaves it exact. */
int mapf__rra_generated(mapf__rra *r, int32_t cell);

#endif
