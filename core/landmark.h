/* landmark.h: shortest paths in moves (every move one time step, the MAPF model's distance) by
 * A* with a differential heuristic of landmarks (Goldberg & Harrelson 2005; Sturtevant et al.
 * 2009): |d(L, v) - d(L, t)| <= d(v, t) for the moves d from a landmark L, by the triangle
 * inequality, the moves being symmetric (grid.h). Used by the instance features
 * (farm/inst_features.c) and by the simulator's lower bounds (sim.c, soc_lb).
 *
 * The tables are a pure function of the grid's moves, made once and then read by any thread;
 * the search's scratch memory is one per thread. */
#ifndef MAPF_LANDMARK_H
#define MAPF_LANDMARK_H

#include <stdint.h>

#include "grid.h"

/* Above this the tables are not made (mapf_landmarks_new returns an empty set): 16 MiB, with 8
 * landmarks 1,048,576 cells (the largest MovingAI map, orz900d, has 978,096). */
#define MAPF_LANDMARK_BYTES ((size_t)16 << 20)

typedef struct mapf_landmarks {
  int32_t k;       /* landmarks; 0 when the grid was too large (the tables are then NULL) */
  int32_t ncells;  /* of the grid they were made for */
  int32_t *cell;   /* the k landmarks' cells */
  /* Per cell k distances in moves (cell c's at d[c * k .. c * k + k - 1]), at most
   * UINT16_MAX - 1 (a larger distance is cut to it, which leaves the heuristic admissible and
   * consistent: cutting never widens a difference), UINT16_MAX outside the landmarks'
   * component (where the difference of two of them bounds nothing, as it should). */
  uint16_t *d;
  /* When the landmarks' component is a tree (as a perfect maze one cell wide is: edges = cells
   * - 1), its one path between two cells is the shortest, found by climbing towards landmark
   * 0 from both ends: per cell of the component the direction (0..7, grid.h) of its move
   * towards landmark 0 (0xff at landmark 0 and outside) and its moves from it. NULL
   * otherwise. */
  uint8_t *up;
  int32_t *depth;
  int32_t tree; /* the component id of that tree (when up is not NULL) */
} mapf_landmarks;

/* The tables of k landmarks spread over g's largest component by farthest-point selection:
 * the cell farthest from the component's first cell (by id), then each time the cell farthest
 * from every landmark chosen (lowest id on a tie); k + 1 breadth-first searches. A grid whose
 * tables would pass MAPF_LANDMARK_BYTES, or with no passable cell, gets k = 0. A component
 * that is a tree also gets up and depth (one more pass over the cells). Returns NULL
 * when out of memory. Free with mapf_landmarks_free (NULL: no-op). */
mapf_landmarks *mapf_landmarks_new(const mapf_grid *g, int32_t k);
void mapf_landmarks_free(mapf_landmarks *lm);

/* Breadth-first search in moves from src over g's moves: out[v] = moves from src to v for
 * every cell v of src's component, UINT32_MAX elsewhere. queue: g->ncells entries. Returns the
 * cells reached. */
int32_t mapf_bfs_moves(const mapf_grid *g, int32_t src, uint32_t *out, int32_t *queue);

/* Scratch memory of mapf_shortest_moves, one per thread; grows to the largest grid. */
typedef struct mapf_moves_search mapf_moves_search;
mapf_moves_search *mapf_moves_search_new(void);
void mapf_moves_search_free(mapf_moves_search *s);

/* The moves of a shortest path from s to t over g's moves: A* with unit costs and the larger
 * of the coordinate bound (Chebyshev when g has a diagonal move, else Manhattan) and, when lm
 * is not NULL and has landmarks, their differential heuristic; both consistent, so a
 * successor's f is its parent's, one more or two more, and the open list is three buckets
 * (f mod 3), last in first out within one (a dive towards the goal). When path is not NULL it
 * receives the cells from s to t (the returned moves + 1 of them; at most *path_len, the
 * entries it holds, else none are written) and *path_len their number. *expanded (when not
 * NULL) counts the expansions. Which shortest path is found depends on the heuristic, so on lm,
 * and on nothing else. Between two cells of lm's tree (lm->up) there is one shortest path, which
 * any search finds: it is read from the tree instead, in moves proportional to its own (then
 * *expanded counts the cells climbed). Returns the moves, -1 when t cannot be reached from s,
 * -2 when out of memory. s and t must be passable cells of g. */
int64_t mapf_shortest_moves(mapf_moves_search *ms, const mapf_grid *g, const mapf_landmarks *lm,
                            int32_t s, int32_t t, int32_t *path, int32_t *path_len,
                            int64_t *expanded);

#endif
