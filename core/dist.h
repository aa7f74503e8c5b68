/* dist.h: distance-to-goal tables, one breadth-first search per goal over the grid's moves,
 * kept in a per-thread cache across runs (docs/choices.md, `pibt`). Internal to core/.
 *
 * A table counts moves (every move one step, whatever its length): the distance of the MAPF
 * model, where each move takes one time step. It covers the goal's connected component only,
 * indexed by `local`: cell c's distance is d[local[c]]. The cache lives in a mapf_workspace
 * (sim.c), so one thread's jobs on one map share the tables of their goals; it is keyed by the
 * map's content and move set, never by a pointer, and tables are only read once made, so a
 * hit gives the same numbers as a fresh search: results never depend on what was cached. */
#ifndef MAPF_DIST_H
#define MAPF_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"

/* What the cache keeps across runs, at most (docs/choices.md, `pibt`): past it the least
 * recently used tables are dropped when a run ends. A run's own tables are kept while it runs
 * whatever their size. 256 MiB: 2,300 tables of den520d (28,178 cells), enough for the
 * agents of every job of a 1,000-agent scenario on it. */
#define MAPF_DIST_CACHE_BYTES ((size_t)256 << 20)

typedef struct mapf__dist_entry {
  uint64_t map;   /* mapf__dist_map_key of the grid */
  int32_t goal;
  int32_t size;   /* cells of the goal's component: entries of d */
  uint32_t *d;
  uint64_t used;  /* the cache's run counter when last asked for */
} mapf__dist_entry;

typedef struct mapf__dist_cache {
  /* The grid of the current run: its key and its cell index (per cell, the index of the cell
   * within its component in id order; -1 for blocked cells). */
  uint64_t map;
  int32_t *local;
  int32_t ncells, local_cap;
  mapf__dist_entry *e;
  int32_t n, cap;
  int32_t *slot;          /* open addressing over e[]: index or -1; nslot a power of two */
  int32_t nslot;
  size_t bytes;           /* of the tables held */
  uint64_t runs;          /* runs that have used the cache */
  int32_t *queue;         /* BFS scratch */
  int32_t queue_cap;
  /* The last map change (mapf__dist_changed): the key of the state before it and the cells
   * whose moves it may have changed, sorted. A table that state had is repaired, not searched
   * again. has_prev is 0 from mapf__dist_begin until a change. */
  uint64_t prev;
  int has_prev;
  int32_t *seed;
  int32_t nseed, seed_cap;
  uint64_t *work;         /* repair scratch: (distance << 32 | cell) items */
  size_t work_cap;
  size_t *count;          /* repair scratch: a counting sort's counts */
  size_t count_cap;
  /* A repair gives up for a search once more than 1/repair_share of the table's cells lost
   * their distance (0: dist.c's default; 1: never, for tests). */
  int32_t repair_share;
  int64_t repaired;       /* tables made by a repair rather than a search (for tests) */
} mapf__dist_cache;

/* The cache's key of g: its content hash and its move set (a grid option that changes the
 * moves, such as a connectivity, makes other tables). */
uint64_t mapf__dist_map_key(const mapf_grid *g);

/* Starts a run on g: sets c->local for g (made again only when the map changed). Returns 0, or
 * -1 when out of memory. */
int mapf__dist_begin(mapf__dist_cache *c, const mapf_grid *g);

/* The grid of the current run changed in place (mapf_grid_set_cells: components, hence
 * c->local, stay) at the n cells given: it is a new map to the cache, and a table of the state
 * just before, missing for the new one, is made by repairing a copy of the old table around
 * the changed cells rather than by a new search (same numbers: tables are exact distances).
 * Returns 0, or -1 when out of memory. */
int mapf__dist_changed(mapf__dist_cache *c, const mapf_grid *g, const int32_t *cells, int32_t n);

/* The table of distances to goal on the grid of the last mapf__dist_begin or
 * mapf__dist_changed: d[c->local[cell]] is the number of moves from cell to goal, for every
 * cell of goal's component (UINT32_MAX where goal cannot be reached now). Searched on a miss,
 * or repaired from the table of the state before the last change. NULL when out of memory.
 * The table stays valid until mapf__dist_trim or mapf__dist_free. */
const uint32_t *mapf__dist_get(mapf__dist_cache *c, const mapf_grid *g, int32_t goal);

/* Within a run whose targets keep changing (events, lifelong goals: a new table a task, so a
 * long run would hold thousands): when more than budget bytes are held, drops every
 * table but the n in held[] (the tables the run's agents point to now; NULL entries skipped)
 * and those of the state before the last map change (mapf__dist_changed: to be repaired).
 * A dropped table is searched again if its goal comes back, with the same numbers, so results
 * do not change. Returns 0, or -1 when out of memory (nothing dropped). */
int mapf__dist_release(mapf__dist_cache *c, const uint32_t *const *held, int32_t n,
                       size_t budget);

/* Ends a run: drops the least recently used tables until at most budget bytes are held. */
void mapf__dist_trim(mapf__dist_cache *c, size_t budget);

/* Frees everything c holds and zeroes it. */
void mapf__dist_free(mapf__dist_cache *c);

#endif
