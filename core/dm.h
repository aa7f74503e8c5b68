/* dm.h: the arithmetic of direction maps (Jansen & Sturtevant, AAMAS 2008, Jansen & Sturtevant 2008
 * Sec. 2-3; docs/choices.md, dm), shared by the `dm` planner (dm.c) and its tests. Internal to
 * core/.
 *
 * Vectors are in grid coordinates: x to the right (east), y down (south), so the paper's 'up'
 * [0, 1] is (0, -1) here; dot products, and so edge costs and coherence, do not depend on
 * the choice. */
#ifndef MAPF_DM_H
#define MAPF_DM_H

#include <stdint.h>

#include "grid.h"

/* A cell's direction vector (DV): unit length, or (0, 0) when the cell has none. Two floats, so
 * the global map of a 512 x 512 grid takes 2 MB. */
typedef struct mapf__dv {
  float x, y;
} mapf__dv;

static inline int mapf__dv_empty(mapf__dv v) { return v.x == 0 && v.y == 0; }

/* The unit vector of each move direction (mapf_dir order): (dx, dy) / |(dx, dy)|. */
extern const double mapf__dm_ux[8], mapf__dm_uy[8];

/* Seed 004 Fig. 2: the DV of a cell an agent enters or leaves with the unit move vector
 * (mx, my). The first visit (no DV yet) stores the move; otherwise dv = normalize(alpha dv +
 * (1 - alpha) m). The blend is zero only for alpha = 1/2 and a move exactly against the DV;
 * the paper leaves that undefined, and the cell then takes the move, as on a first visit (the
 * latest evidence), so a cell never loses its DV. */
void mapf__dm_update(mapf__dv *dv, double alpha, double mx, double my);

/* Seed 004 Fig. 3: the cost of the move (unit vector (mx, my), cost c: 1 or sqrt(2)) from a
 * cell with DV a to a cell with DV b: c + weight (w_a / 2 + w_b / 2) with w_x = (1 - m . dv_x) / 2
 * in [0, 1] (0 following the DV, 1 against it), and w_x = 0 where there is no DV. w_x is
 * clamped to [0, 1] against float rounding, so the cost is never below c and the octile
 * heuristic stays admissible and consistent. */
double mapf__dm_edge_cost(double c, double weight, double mx, double my, mapf__dv a, mapf__dv b);

/* The neighbour direction a DV points to: the one of the eight whose unit vector is closest in
 * angle to v (the largest dot product); ties (v exactly between two directions) go to the
 * first in mapf_dir order (N, E, S, W, NE, SE, SW, NW). v must not be empty. */
int mapf__dm_points_to(mapf__dv v);

/* Seed 004 Sec. 3: the coherence of the map `dv` (one DV per cell of g) over the cells listed
 * in cells[0 .. n-1] (NULL: every cell of g): the mean, over the listed cells c with a DV, of
 * dot(dv(c), dv(c')) where c' is the neighbour dv(c) points to (mapf__dm_points_to). A cell
 * is left out of the mean when the move to c' is not legal (c' blocked or off the map, or a
 * diagonal that cuts a corner: no agent "would arrive" there) or c' has no DV (nothing to
 * agree with). With no cell in the mean the map is fully coherent, 1 (the paper: "a DM is
 * fully coherent when it is empty"). In [-1, 1]. O(n). */
double mapf__dm_coherence(const mapf_grid *g, const mapf__dv *dv, const int32_t *cells, int32_t n);

#endif
