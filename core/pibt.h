/* pibt.h: PIBT's one joint step (Okumura, Machida, Défago & Tamura 2022), for the `pibt`
 * planner (pibt.c) and for planners that generate configurations with it (LaCAM uses PIBT as
 * its successor generator). Internal to core/.
 *
 * A step goes from a configuration (every agent's cell, pos[], and who stands on each cell,
 * occ[]) to the next: next[] and next_occ[] start empty (-1); a caller that constrains some
 * agents writes their cells first (next[a] = v, next_occ[v] = a: such an agent counts as
 * decided, and no one inherits into it), then calls mapf__pibt_plan for the other agents in
 * its priority order, skipping those already decided. No agent swaps with a decided one. The
 * result never has two agents on one cell or swapping, as long as the constraints do not (the
 * caller's part) and no root fails on a cell a constraint took: a root whose own cell is
 * reserved and that finds no other stays there all the same (next[root] == pos[root]), and the
 * caller must then drop the step (LaCAM does). */
#ifndef MAPF_PIBT_H
#define MAPF_PIBT_H

#include <stdint.h>

#include "grid.h"
#include "rng.h"

/* One call of PIBT(a) on the explicit stack: a's ranked candidates and the next to try. */
typedef struct mapf__pibt_frame {
  int32_t a, parent; /* parent: the agent a inherits from, -1 for none */
  int32_t cand[9];
  int32_t pull;      /* the swap technique's partner (pibt.c), -1 for none */
  uint8_t nc, k;
} mapf__pibt_frame;

typedef struct mapf__pibt {
  const mapf_grid *grid;
  const int32_t *local;   /* dist.h: a cell's index in its component's tables */
  const uint32_t **dist;  /* per agent: moves to its target (dist.h tables; the caller's) */
  const int32_t *target;  /* per agent: its target cell (the caller's) */
  int swap;               /* the swap technique (Okumura 2023b; pibt.c); the caller sets it */
  int32_t n;
  int32_t *next;          /* per agent: its cell after the step, -1 while undecided */
  int32_t *next_occ;      /* per cell: the agent that will stand there, -1 */
  int32_t *first;         /* per agent: its first-ranked candidate in this step */
  uint8_t *tried;         /* per agent: candidates it examined in this step */
  mapf__pibt_frame *stack;
} mapf__pibt;

/* Allocates P for n agents on g, with next[] and next_occ[] empty; dist[] is left to the
 * caller. Returns 0, or -1 when out of memory (P is then freed). */
int mapf__pibt_init(mapf__pibt *P, const mapf_grid *g, const int32_t *local, int32_t n);
void mapf__pibt_free(mapf__pibt *P);

/* PIBT(root) from the configuration pos[] / occ[]: decides root and every agent it inherits
 * to (next[], next_occ[], first[], tried[]). root must be undecided. Random tie-breaks come
 * from rng. Returns the candidates examined. */
int64_t mapf__pibt_plan(mapf__pibt *P, const int32_t *pos, const int32_t *occ, int32_t root,
                        mapf_rng *rng);

/* Empties next[] and next_occ[] for the next step (O(agents)). */
void mapf__pibt_clear(mapf__pibt *P);

struct mapf__sim;

/* A map change (sim_int.h, map_changed) at the n cells given, for a planner that keeps one
 * distance table per agent (dist.h; PIBT, LaCAM): the run's grid is a new map to the cache
 * (mapf__dist_changed: its tables are repaired from the old ones), P->local follows it, and
 * each agent's table of its current target, cur[a], is fetched again: under patrol both its
 * tables (to_goal, to_start) at once, otherwise cur[a] is cleared for the next plan to fetch.
 * Returns the number of entries cleared, or -1 when out of memory. */
int32_t mapf__pibt_tables_changed(struct mapf__sim *sim, mapf__pibt *P, const int32_t *cells,
                                  int32_t n, const uint32_t **to_goal, const uint32_t **to_start,
                                  const uint32_t **cur);

#endif
