/* scengen.h: the registry of scenario generators (thesis 5.4.1, Fig. 5.4; docs/choices.md,
 * Scenario generators).
 *
 * Like the algorithm registry (algo.h), each generator declares its parameters once; plans,
 * job keys and help text read that one table. Figure 5.4 defines the problem types in one
 * sentence each; the regions, fractions and tie-breaks below are this project's choices.
 *
 * Every generator returns n agents with distinct starts, distinct goals, start != goal and each
 * goal in its start's connected component (one-way problems, loops 0, except patrol), all
 * drawn from `seed` through mapf_rng (the same seed gives the same instance on every
 * platform). Generators are reentrant: no globals, no
 * mutable statics. They run in O(ncells + usable log usable) time and O(ncells) memory, with
 * a bound on the number of draws, so an impossible request is an error, never a hang.
 *
 * Usable cells are the passable cells of components with two or more cells (grid.h). Regions
 * are fractions of the usable cells, never absolute sizes, so they are not empty on maps of odd
 * shape; a fraction f of u usable cells is max(1, floor(f * u)) cells. On a crowded map (the
 * thesis put 300 agents on maps from 564 passable cells) a region grows to n cells (at most
 * u) when the agents need more, and may then overlap the opposite region; a goal is still
 * never its agent's start (see the pairing rule below).
 *
 * random       (no parameters) mapf_scengen_random (scen.h), unchanged.
 *
 * cross-sides  "Agents start on one side and traverse to the opposing side." The usable cells
 *              are ranked by (x, id); the left band is the first `band` fraction of that
 *              ranking and the right band the last. Top and bottom bands do the same with
 *              (y, id), which is id order. One ranking per axis, so opposite bands never
 *              overlap, even on a map one column wide.
 *              side  INT -1..3, default -1: 0 left, 1 right, 2 top, 3 bottom; -1: drawn from
 *                    the seed (the first draw). Starts in that band, goals in the opposite one.
 *              band  REAL [0.001, 0.5], default 0.25.
 *
 * swap-sides   "Half of the agents start on one side while the other half start on the
 *              opposite side with goals on the opposing side." Agents 0 .. ceil(n/2)-1 start in
 *              the first band (left or top) with goals in the opposite band; the others go the
 *              other way. An agent's goal may be another agent's start.
 *              axis  INT -1..1, default -1: 0 left <-> right, 1 top <-> bottom; -1: drawn.
 *              band  REAL [0.001, 0.5], default 0.25 (bands as in cross-sides).
 *
 * inside-out   "Agents start near the center and are assigned goals near the outer edges."
 * outside-in   "Agents start near the edge and are assigned goals near the center."
 *              The centre is the centre of the bounding box of the usable cells. Usable cells
 *              are ranked by (Euclidean distance to the centre, id); the inner region is the
 *              first `inner` fraction, the outer region the last `outer` fraction.
 *              inside-out: starts inner, goals outer; outside-in: the reverse.
 *              inner REAL [0.001, 0.5], default 0.25.
 *              outer REAL [0.001, 0.5], default 0.25.
 *
 *              In the four region generators above, the two regions are disjoint, and starts
 *              and goals are paired within components: starts are drawn uniformly without
 *              replacement from the start region, a drawn cell being dropped (for good) when
 *              its component has no goal-region cell left; each goal is then drawn uniformly
 *              from the goal-region cells of its start's component not yet taken. This places
 *              n agents exactly when the sum over components of min(start-region cells,
 *              goal-region cells) is at least n (per direction for swap-sides); otherwise
 *              MAPF_ENOSPACE. Where the regions overlap, a goal is drawn among the free goal
 *              cells other than the agent's start; when its start is the last one, the agent
 *              takes the goal of the latest earlier agent of its component, which takes the
 *              start instead. swap-sides bands grow to ceil(n/2) cells but never past half
 *              the usable cells, so the two halves' starts never meet.
 *
 * tight-to-tight  "Agents start close together and are assigned goals close together
 *              elsewhere on the map." The start centre is a usable cell drawn uniformly among
 *              those of components with at least 2n cells. The start cluster is the first
 *              ceil(n / density) cells of a breadth-first search from it (legal 8-connected
 *              moves in mapf_dir order; ties by that BFS order). The goal centre is drawn
 *              uniformly among the cells of the same component outside the start cluster; the
 *              goal cluster is the first cells outside the start cluster in BFS order from it
 *              (the search passes through the start cluster without taking its cells), as many
 *              as the start cluster wants. The clusters never overlap: where the component is
 *              too small for both, the start cluster shrinks first (to no fewer than n cells),
 *              then the goal cluster takes what is left. Starts and goals are drawn uniformly
 *              without replacement from their clusters. When no component holds 2n cells
 *              (a crowded map), both clusters are grown in a component of at least n cells
 *              (drawn the same way), may overlap, and an agent whose goal is its own start
 *              swaps goals with the next agent.
 *              density REAL [0.001, 1], default 0.5: agents per cluster cell.
 *
 * tight-to-wide  "Agents start close together and are assigned goals that are in the same
 *              general area of the map." As tight-to-tight, with a goal cluster of
 *              ceil(n / wide) cells.
 *              density REAL [0.001, 1], default 0.5: agents per start-cluster cell.
 *              wide    REAL [0.001, 1], default 0.05: agents per goal-cluster cell.
 *
 * patrol       Seed 004 Sec. 4: "agents which patrol back and forth between two locations ...
 *              Each agent is assigned one patrol location in the left-hand side, and one on
 *              the right-hand side of the map." Starts in the first band (left, or top), goals
 *              in the opposite band, bands and pairing as in cross-sides, except that a band
 *              grows to hold the agents only up to half the usable cells, so the bands never
 *              overlap and no goal is another agent's start (an agent that has done its loops
 *              stays on its start). Sets mapf_instance.loops.
 *              loops INT >= 1, default 10 (the paper's).
 *              axis  INT -1..1, default 0 (the paper's left <-> right); 1 top <-> bottom; -1
 *                    drawn from the seed (the first draw).
 *              band  REAL [0.001, 0.5], default 0.25.
 *
 * Every generator fails with MAPF_EINVAL when n < 1 or a parameter is out of range, and with
 * MAPF_ENOSPACE, naming the map, the generator, the regions and the counts, when the map cannot
 * hold the request. */
#ifndef MAPF_SCENGEN_H
#define MAPF_SCENGEN_H

#include <stdint.h>

#include "algo.h"
#include "error.h"
#include "grid.h"
#include "scen.h"

typedef struct mapf_scengen_def {
  const char *name; /* canonical name in plans, e.g. "cross-sides" */
  const char *doc;  /* one line for help and the README */
  const mapf_param_def *params;
  int32_t nparams;
  /* Generates n agents on g (see above). p holds the parameters in the order of params (NULL:
   * the defaults). Returns MAPF_OK and a new instance in *out (free with mapf_instance_free),
   * or MAPF_EINVAL / MAPF_ENOSPACE / MAPF_ENOMEM with the reason in d; *out is set only on
   * success. */
  int (*generate)(const mapf_grid *g, int32_t n, const mapf_params *p, uint64_t seed,
                  mapf_instance **out, mapf_diag *d);
  /* The same name and params as an algorithm definition, so that algo.h's mapf_param_index,
   * mapf_param_check, mapf_param_parse, mapf_params_check, mapf_params_json and
   * mapf_param_format serve generator parameters too. Only for those: it has no planner (vt
   * is NULL) and is not in the algorithm registry. */
  const mapf_algo_def *view;
} mapf_scengen_def;

/* Number of registered generators, and the i-th (0 <= i < count; NULL otherwise), in the order
 * random, cross-sides, swap-sides, inside-out, outside-in, tight-to-tight, tight-to-wide,
 * patrol. */
int32_t mapf_scengen_count(void);
const mapf_scengen_def *mapf_scengen_at(int32_t i);

/* The generator with this canonical name, or NULL. */
const mapf_scengen_def *mapf_scengen_find(const char *name);

/* Fills p with every parameter's default (the rest of p zero). */
void mapf_scengen_params_default(const mapf_scengen_def *def, mapf_params *p);

#endif
