/* astar.h: A* on an octile grid (Sigurdson et al. 2018, Alg. 1), octile heuristic, ties broken
 * toward lower f, then higher g, then first in first out (Sigurdson et al. 2018, footnote 1). With
 * no agents on the map the path costs equal the optimal_length column of MovingAI .scen files. */
#ifndef MAPF_ASTAR_H
#define MAPF_ASTAR_H

#include <stdint.h>

#include "grid.h"

/* Reusable scratch memory for searches on grids of any size; not thread-safe (one per
 * thread). */
typedef struct mapf_astar mapf_astar;

/* Returns new scratch memory or NULL. Free with mapf_astar_free (NULL: no-op). */
mapf_astar *mapf_astar_new(void);
void mapf_astar_free(mapf_astar *a);

typedef struct mapf_astar_result {
  int found;          /* 1 when the goal was reached */
  double cost;        /* path cost when found */
  int64_t expansions; /* nodes expanded */
} mapf_astar_result;

/* Finds a cost-minimal path from start to goal (cell ids of passable cells). When path is not
 * NULL it receives the cells from start to goal if they fit in *path_len entries; *path_len is
 * set to the path's length in cells (0 when not found). Returns MAPF_OK (found or not) or
 * MAPF_ENOMEM / MAPF_EINVAL (a cell outside the grid or blocked). */
int mapf_astar_run(mapf_astar *a, const mapf_grid *g, int32_t start, int32_t goal,
                   mapf_astar_result *r, int32_t *path, int32_t *path_len);

struct mapf_instance;
/* Sets inst->optimal (when NULL) to every agent's A* distance on g, agents ignored: the
 * denominator of the suboptimality metric. One search per agent. Returns MAPF_OK or
 * MAPF_ENOMEM. */
int mapf_astar_fill_optimal(const mapf_grid *g, struct mapf_instance *inst);

#endif
