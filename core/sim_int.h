/* sim_int.h: what the simulator shares with the planners (BMAA*, FAR, WHCA*, ...). Internal to
 * core/ and to planners defined elsewhere (tests). */
#ifndef MAPF_SIM_INT_H
#define MAPF_SIM_INT_H

#include <stdint.h>

#include "dist.h"
#include "rng.h"
#include "search_int.h"
#include "sim.h"

#define MAPF__WAIT (-1)

/* The state of one run, owned by mapf_run. Planners read grid, pos, occ, goal and time, and
 * write want[] (the next cell of every agent, or MAPF__WAIT) in their plan step. */
typedef struct mapf__sim {
  const mapf_grid *grid;
  const mapf_run_config *cfg;
  int32_t n;
  /* Each agent's current target: its goal; under patrol (cfg->inst->loops >= 1) its goal or its
   * start, changed by the simulator between steps (the planner's retarget hook is called). */
  const int32_t *goal;
  int32_t *pos;       /* current cell of each agent */
  int32_t *occ;       /* per cell: the agent on it, or -1 */
  int32_t *want;      /* per agent: the cell it wants to enter this step, or MAPF__WAIT */
  int64_t time;
  int push;           /* executor pushes agents off their goals (BMAA* push) */
  mapf_agent_result *agent;
  int64_t expansions; /* all agents, this run */
  mapf__search *search; /* per-thread scratch from the workspace */
  /* The workspace's distance tables (dist.h): a planner that uses them calls
   * mapf__dist_begin in its init. */
  mapf__dist_cache *dist;
  mapf_execution execution; /* the rule this run executes under (mapf_algo_execution) */
  mapf_rng rng;
  double deadline;    /* monotonic seconds at which the wall-clock limit ends the run; 0: none */
  int64_t max_expansions; /* the expansion budget of the run; 0: none */
  mapf_work_model work;   /* the algorithm's weights (algo.h) */
  double max_work_ns;     /* the work budget of the run in modelled ns; 0: none */
  int64_t begun;          /* steps whose planning has begun */
  /* Set by a planner that found a limit passed mid-step: MAPF_LIMIT_SECONDS,
   * MAPF_LIMIT_EXPANSIONS or MAPF_LIMIT_WORK (0 while none has). */
  int expired;
  int64_t deadlocks_broken; /* incremented by planners that break deadlocks (FAR) */
  /* The time a solver reported for itself (mapf_result.solver_seconds); NaN until a planner
   * that runs one sets it (external). */
  double solver_seconds;
} mapf__sim;

/* Map changes (map_changed below): whether the moves of path[from .. len) are all moves of g
 * now (a wait, the same cell twice, on an open cell), so that a planner following it never
 * asks for a closed cell. */
static inline int mapf__path_legal(const mapf_grid *g, const int32_t *path, int32_t from,
                                   int32_t len) {
  for (int32_t i = from; i + 1 < len; i++) {
    if (path[i] == path[i + 1]) {
      if (!g->passable[path[i]]) return 0;
      continue;
    }
    int d = mapf_grid_dir(g, path[i], path[i + 1]);
    if (d < 0 || !(g->moves[path[i]] >> d & 1)) return 0;
  }
  return 1;
}

/* Writes the cells of cells[0 .. n) that are open in g into out and returns their number: the
 * openings of a map change. */
static inline int32_t mapf__opened(const mapf_grid *g, const int32_t *cells, int32_t n,
                                   int32_t *out) {
  int32_t k = 0;
  for (int32_t i = 0; i < n; i++)
    if (g->passable[cells[i]]) out[k++] = cells[i];
  return k;
}

/* The joint rule's step checker (sim.h, MAPF_EXEC_JOINT) in words: the first illegal move, by
 * agent index, of the joint step from sim->pos to sim->want (with sim->occ the agent on each
 * cell, -1 elsewhere, and sim->time the step before it), written into msg as "illegal joint
 * step T: agent A from (x,y) to (x,y): why". Returns 1 when it found one, 0 when the step is
 * legal (msg then says only "illegal joint step T"). Allocates; for error paths. */
int mapf__joint_describe(const mapf__sim *sim, char *msg, size_t len);

/* Monotonic clock in seconds. */
double mapf__now(void);

/* Cooperative limits: planners call this between agents' searches, so one step of thousands
 * of agents cannot overrun the wall-clock limit or the expansion budget by more than one
 * search (FAR's first step plans every agent's complete path: 2,000 of them on a 512 x 512
 * map spend 30 million expansions in that one step). The budget is checked first, so which
 * limit ends a run does not depend on the clock when it can be helped. Returns 1 (and sets
 * sim->expired) when a limit has passed. */
/* The work charged so far, in modelled ns: every expansion at its algorithm's weight, and
 * every agent of every step begun (the step being planned counts). */
static inline double mapf__sim_work_ns(const mapf__sim *sim) {
  return sim->work.expansion_ns * (double)sim->expansions +
         sim->work.agent_step_ns * (double)sim->n * (double)sim->begun;
}

static inline int mapf__sim_expired(mapf__sim *sim) {
  if (!sim->expired) {
    if (sim->max_expansions > 0 && sim->expansions >= sim->max_expansions)
      sim->expired = MAPF_LIMIT_EXPANSIONS;
    else if (sim->max_work_ns > 0 && mapf__sim_work_ns(sim) >= sim->max_work_ns)
      sim->expired = MAPF_LIMIT_WORK;
    else if (sim->deadline > 0 && mapf__now() >= sim->deadline)
      sim->expired = MAPF_LIMIT_SECONDS;
  }
  return sim->expired != 0;
}

/* A planner: the algorithm's side of the NPC controller. Each algorithm's file keeps its own
 * (static) and names it in its description (algo.h, MAPF_ALGORITHM); init reads the run's
 * parameters with mapf_params_fill into the algorithm's typed struct. */
typedef struct mapf__planner_vt {
  /* Allocates the algorithm's state for sim (sim->n agents) and sets sim->push if it pushes.
   * Returns MAPF_OK or an error with d filled. */
  int (*init)(mapf__sim *sim, void **state, mapf_diag *d);
  /* The search phase of one step: sets sim->want for every agent. Returns MAPF_OK or
   * MAPF_ENOMEM. Under the joint rule want[] is the whole joint step, which the simulator
   * checks and executes as it is (sim.h, MAPF_EXEC_JOINT); nobody is pushed. */
  int (*plan)(mapf__sim *sim, void *state);
  /* Agent a was pushed to another cell by the executor: it must plan again. */
  void (*pushed)(mapf__sim *sim, void *state, int32_t a);
  void (*free)(void *state);
  /* sim->goal[a] has just changed, after step sim->time and before the next plan: a patrol
   * turn or a lifelong task (the agent stands on its old target), or a re-tasking event (it
   * may be anywhere, moving). What the planner keeps for the old target (a path, learned
   * values, reservations toward it) must not steer it on. NULL: the planner keeps nothing per
   * target. */
  void (*retarget)(mapf__sim *sim, void *state, int32_t a);
  /* After every executed step (sim->time already counts it), with every agent's cell at the
   * start of the step in prev[] and its cell now in sim->pos[]: planners that learn from the
   * moves made (direction maps) do it here. NULL: nothing to do. Returns MAPF_OK or
   * MAPF_ENOMEM. */
  int (*moved)(mapf__sim *sim, void *state, const int32_t *prev);
  /* Cells of the run's map closed or opened (docs/events.md), after step sim->time and before
   * the next plan: sim->grid is the run's own copy, already changed (passable and moves; its
   * components are those of every cell open at some time of the run, grid.h), and cells[0 ..
   * n) are the cells that changed (sim->grid->passable says which way). What the planner
   * derived from the old map (paths, reservations, distance tables, flow annotations, learned
   * values an opening may make too high) must not steer an agent into a closed cell or keep it
   * from a shorter way that opened. A run with map changes needs it: NULL refuses them.
   * Returns MAPF_OK or MAPF_ENOMEM. */
  int (*map_changed)(mapf__sim *sim, void *state, const int32_t *cells, int32_t n);
  /* The coherence of the planner's direction map now (Jansen & Sturtevant 2008 Sec. 3); NULL for
   * planners without one. */
  double (*coherence)(const mapf__sim *sim, const void *state);
} mapf__planner_vt;

#endif
