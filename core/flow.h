/* flow.h: FAR's flow annotation (Wang & Botea 2008 slides 8-10; Sigurdson et al. 2018 Sec. III-B;
 * docs/choices.md, Flow annotation): the grid's moves restricted to one-way "roads" that
 * criss-cross the map, so agents meet head-on less often, with every adjacent pair of cells still
 * reachable from each other.
 *
 * The annotation of a cell is an 8-bit mask of allowed outgoing moves (bit d: direction d of
 * grid.h), always a subset of the grid's legal moves g->moves. It is a function of the grid
 * alone, computed by fixed local rules (flow.c's head comment lists them), so it can be
 * precomputed for the whole map (FAR) or computed lazily, cell by cell, the first time a
 * search reaches a cell (BMAA* with flow: Sigurdson et al. 2018 Sec. IV-B, "generated the first
 * time the node is processed and then cached"); both give the same masks.
 *
 * Thread safety: a mapf_flow is read-only once built and may be shared by threads (as the grid
 * is); mapf_grid_flow builds one per grid on first use and keeps it with the grid. A
 * mapf_flow_lazy fills its cache as it is read, so it belongs to one thread (one run). */
#ifndef MAPF_FLOW_H
#define MAPF_FLOW_H

#include <stdint.h>

#include "grid.h"

/* How many edges each rule produced (directed edges; a two-way edge counts twice). */
typedef struct mapf_flow_stats {
  int64_t grid_edges;     /* legal grid moves (the unannotated graph) */
  int64_t edges;          /* moves the annotation allows */
  int64_t one_way;        /* cardinal edges kept in one direction only */
  int64_t corridor;       /* cardinal edges made two-way by the corridor rule */
  int64_t diagonals;      /* diagonal edges added at sources and sinks */
  int64_t source_sink;    /* edges added by making a source's or sink's edges two-way */
  int64_t repaired;       /* edges added by the local repair (flow.c, rule 5) */
} mapf_flow_stats;

typedef struct mapf_flow mapf_flow;

/* Returns the annotation of every cell of g (a finished grid), or NULL when out of memory.
 * Time and memory are linear in the number of cells (about 3 bytes a cell while building, 1
 * kept). g must outlive the result. Free with mapf_flow_free (NULL: no-op). */
mapf_flow *mapf_flow_new(const mapf_grid *g);
void mapf_flow_free(mapf_flow *f);

/* The annotation of g, shared: built by the first call for g (from any thread) and kept in
 * g->flow until mapf_grid_free(g). Threads that make the first call at the same time may each
 * build one; one is kept and the others are freed, so every caller gets the same pointer.
 * Costs about 10 ms for a 512 x 512 map, once per grid instead of once per run. Returns NULL
 * when out of memory (nothing is kept; a later call tries again). Do not free the result. */
const mapf_flow *mapf_grid_flow(const mapf_grid *g);

/* The masks: g->ncells bytes, 0 for blocked cells. Owned by f. */
const uint8_t *mapf_flow_moves(const mapf_flow *f);

/* What each rule contributed (computed with the annotation). */
const mapf_flow_stats *mapf_flow_get_stats(const mapf_flow *f);

/* The lazy annotation: a per-cell cache filled on demand. Fields are private; read masks with
 * mapf_flow_lazy_moves. */
typedef struct mapf_flow_lazy {
  const mapf_grid *g;
  uint8_t *mask;  /* final masks of cells whose state has MAPF__FLOW_DONE */
  uint8_t *pre;   /* masks before the repair rule, of cells whose state has MAPF__FLOW_PRE */
  uint8_t *state; /* per cell: MAPF__FLOW_* bits */
  int64_t computed; /* cells whose final mask has been computed */
} mapf_flow_lazy;

enum { MAPF__FLOW_PRE = 1, MAPF__FLOW_DONE = 2 };

/* Returns an empty cache for g, or NULL when out of memory. Allocation is 3 bytes a cell of
 * zeroed memory (calloc), nothing is computed yet. Free with mapf_flow_lazy_free (NULL: no-op). */
mapf_flow_lazy *mapf_flow_lazy_new(const mapf_grid *g);
void mapf_flow_lazy_free(mapf_flow_lazy *f);

/* Computes and caches the mask of cell c (internal; use mapf_flow_lazy_moves). */
uint8_t mapf__flow_lazy_fill(mapf_flow_lazy *f, int32_t c);

/* The allowed outgoing moves of cell c (0 <= c < ncells), equal to mapf_flow_moves(...)[c].
 * The first call for a cell computes (and caches) rules 1-4 for cells up to 4 away, reading
 * the grid up to 7 away, and caches the answer; later calls are one load. Never fails. */
static inline uint8_t mapf_flow_lazy_moves(mapf_flow_lazy *f, int32_t c) {
  return (f->state[c] & MAPF__FLOW_DONE) ? f->mask[c] : mapf__flow_lazy_fill(f, c);
}

/* Checks the annotation's required property on g: for every legal grid move u -> v, v is
 * reachable from u using only the moves in masks (docs/choices.md, far). Since grid
 * moves go both ways, that holds exactly when u and v always lie in one strongly connected
 * component of the annotated graph. Returns the number of legal grid moves whose two cells lie
 * in different components plus the number of masked moves that are not legal grid moves: 0
 * when the property holds; -1 when out of memory. Linear time and 21 bytes a cell: iterative
 * Tarjan, then one pass over the grid's moves. */
int64_t mapf_flow_violations(const mapf_grid *g, const uint8_t *masks);

#endif
