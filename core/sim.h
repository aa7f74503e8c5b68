/* sim.h: the simulator, the central NPC controller of Sigurdson et al. 2018 Alg. 2
 * (docs/choices.md, Simulation), and its metrics.
 *
 * Thread safety: everything here is reentrant. A mapf_workspace is per-thread scratch memory,
 * reused across runs; one workspace must not be used by two threads at once. Grids and
 * instances are only read. */
#ifndef MAPF_SIM_H
#define MAPF_SIM_H

#include <stdint.h>

#include "algo.h"
#include "grid.h"
#include "scen.h"

typedef enum {
  /* An agent whose next cell is held by an agent that still moves this step is decided after
   * that agent, so following chains always move; cycles wait; of two agents that want one free
   * cell, the lower index wins. The default. */
  MAPF_EXEC_CHAINS,
  /* One pass in agent order (Sigurdson et al. 2018 Alg. 2 lines 5-15): an agent moves only if its
   * next cell is free at that moment. */
  MAPF_EXEC_SINGLE_PASS,
  /* The MAPF model (Stern et al. 2019): every agent moves at once, as the planner decided. A
   * step is legal when every move is a move of the grid, no two agents end on one cell and no
   * two swap along an edge; a cycle of three or more agents moving together is allowed. The
   * simulator checks every step and ends the run with an error at the first illegal one. The
   * rule of planners that decide all moves together (mapf_algo_def.joint: PIBT), and theirs
   * only: the sequential rules above are for planners that plan each agent on its own. */
  MAPF_EXEC_JOINT
} mapf_execution;

/* Returns the execution for "chains", "single-pass" or "joint", or -1; and the name of e. */
int mapf_execution_parse(const char *name);
const char *mapf_execution_name(mapf_execution e);

/* The rule a run of def asked to run under `asked` runs under: joint for a joint planner
 * (whatever was asked: such a planner is defined by moving agents together), else `asked`.
 * mapf_run refuses a planner that is not joint under MAPF_EXEC_JOINT. */
mapf_execution mapf_algo_execution(const mapf_algo_def *def, mapf_execution asked);

typedef struct mapf_limits {
  int64_t steps;      /* >= 1; the deterministic limit, always set */
  double seconds;     /* wall-clock limit; 0 = none */
  int64_t expansions; /* node expansions summed over all agents; 0 = none */
  /* The work budget in modelled seconds (mapf_work_model in algo.h: each operation charged at
   * its algorithm's weight, never by the clock); 0 = none. */
  double work;
} mapf_limits;

typedef enum {
  MAPF_STATUS_OK,    /* every agent stands on its goal (patrol: has done its loops, on its start) */
  MAPF_STATUS_LIMIT, /* a limit ended the run */
  MAPF_STATUS_ERROR  /* the run could not be done; see message */
} mapf_status;

typedef enum {
  MAPF_LIMIT_NONE,
  MAPF_LIMIT_STEPS,
  MAPF_LIMIT_SECONDS,
  MAPF_LIMIT_EXPANSIONS,
  MAPF_LIMIT_WORK
} mapf_limit_kind;

const char *mapf_status_name(mapf_status s);    /* "ok", "limit", "error" */
const char *mapf_limit_name(mapf_limit_kind k); /* "", "steps", "seconds", "expansions" */

/* Per-agent outcome. Under patrol (mapf_instance.loops = N >= 1) an agent's "goal" in the
 * fields below is its final target: its start, once its N loops are done; before that it has
 * not completed, whatever cell it is on. */
typedef struct mapf_agent_result {
  int32_t start, goal, final; /* cell ids (goal: the instance's goal, also under patrol) */
  uint8_t reached;            /* on its goal when the run ended (patrol: all loops done and on
                                 its start) */
  int64_t completion_step;    /* step at which it last reached its goal (patrol: the step its
                                 last loop ended, or at which it last came back to its start
                                 after that); -1 when not reached */
  double completion_seconds;  /* wall-clock seconds since the start at that step; -1 */
  double completion_work;     /* work charged up to and including that step (algo.h, modelled
                                 seconds); -1 */
  double travel_distance;     /* sum of edge costs moved, pushes included */
  int64_t expansions;
  int64_t failed_moves;       /* wanted to move, was blocked (all loops together) */
  int64_t pushed;             /* times pushed off its goal by another agent */
  int64_t searches;           /* searches (replans) */
  int32_t loops_done;         /* patrol loops completed (goal and back to the start); 0 when
                                 the instance is one-way */
  double optimal_distance;    /* the instance's optimal start-goal distance; NaN if unknown */
  int64_t tasks_done;         /* lifelong goals: the tasks it finished (goals reached) */
} mapf_agent_result;

/* One sample of a time series: the value at the end of step `step` (0: before the first). */
typedef struct mapf_sample {
  int64_t step;
  double value;
} mapf_sample;

/* Metrics of one run (Sigurdson et al. 2018 Sec. II; thesis 2.1.1). Means over an empty set are NaN
 * (stored as NULL). */
typedef struct mapf_result {
  mapf_status status;
  mapf_limit_kind limit;           /* which limit ended the run (MAPF_LIMIT_NONE when ok) */
  int32_t agents;
  int32_t completed;               /* agents on their goals at the end */
  double completion_rate;          /* completed / agents */
  double mean_completion_steps;    /* over completed agents */
  double mean_completion_steps_capped;   /* unfinished agents count as `steps` */
  /* Unfinished agents count as the step limit, a cap common to every algorithm and job, as
   * the papers' 30 s was (Sigurdson et al. 2018, Table II); a run that a budget ends early
   * gains nothing by it. */
  double mean_completion_steps_at_limit;
  /* The same rule under a work budget (limits.work): each agent's completion_work,
   * unfinished agents counting as the budget, as the papers' 30 s counted in seconds. NaN
   * without a work budget. */
  double mean_completion_work_at_limit;
  double mean_completion_seconds;        /* over completed agents */
  double mean_completion_seconds_capped; /* unfinished count as the seconds limit if one is set,
                                            otherwise as the run's wall time */
  double mean_travel_distance;     /* over all agents */
  int64_t steps;                   /* time steps simulated */
  double wall_seconds;             /* whole run, set-up included */
  int64_t expansions;
  double work_seconds;             /* the work charged by the algorithm's model (algo.h) */
  double planning_seconds;         /* total time in the search phase */
  /* Wall-clock seconds of the planner's set-up before the first step (PIBT: its distance
   * tables, built or found in the workspace's cache); in wall_seconds, not in
   * planning_seconds. */
  double setup_seconds;
  double max_step_planning_seconds;/* the largest single step's search phase */
  int64_t failed_moves, pushes, searches, deadlocks_broken;
  /* Patrol (Jansen & Sturtevant 2008 Sec. 4). */
  int32_t loops;                   /* the instance's loops (0: one-way) */
  int64_t loops_done;              /* summed over agents */
  double failed_moves_per_loop;    /* failed_moves / (agents x loops): Jansen & Sturtevant
                                      2008's "failed moves per loop, per agent" (Figs. 8, 9);
                                      NaN when loops = 0 */
  /* Thesis Ch. 4: mean over the agents that reached their goals, and whose optimal distance is
   * known and positive, of travel distance / optimal distance (under patrol, over 2 x loops
   * times the optimal distance); NaN when there are none. */
  double suboptimality;
  /* Direction maps (Jansen & Sturtevant 2008 Sec. 3; algorithms with a direction map, `dm`). */
  double coherence;                /* of the direction map at the end; NaN for other algorithms */
  /* The MAPF literature's measures (Stern et al. 2019; Okumura 2023): solved when every
   * agent stands on its goal at the end (completed = agents); then the sum of costs is the sum
   * over agents of the step at which each reached its goal for good (completion_step), the
   * makespan their maximum. Both -1 when not solved: they mean nothing for a partial run. */
  int32_t solved;
  int64_t soc, makespan;
  /* Events and lifelong goals (docs/choices.md, Events). Under events or lifelong goals an
   * agent's `goal` above is the last one it was given. */
  int64_t retasks;                 /* re-tasking events applied */
  /* Per re-tasking event, the agent's node expansions from the event until it next moved (or
   * the run ended): the search a new goal cost it (Sigurdson et al. 2018, Sec. I). Mean over
   * the events; NaN without events. */
  double mean_retask_expansions;
  /* The largest search phase of a step planned right after an event or a new lifelong task:
   * the frame a game would see stutter. NaN when there was none. */
  double max_event_step_seconds;
  int64_t tasks_done;              /* lifelong goals: tasks finished by all agents */
  double throughput;               /* lifelong goals: tasks_done / steps; NaN otherwise */
  /* Map changes (docs/events.md): cells that closed or opened during the run (a close
   * deferred while an agent stood on the cell counts when it happens), and the mean over the
   * steps planned right after a change of the node expansions of that step: the search a
   * change cost at once. NaN without map changes. */
  int64_t map_changes;
  double mean_change_expansions;
  /* Their lower bounds, defined for every run that happened, solved or not: the sum and the
   * largest over agents of the moves of a shortest path from its start to its goal under the
   * grid's moves (every move one step, as soc counts steps; under patrol 2 x loops times
   * that, a loop being there and back). A property of the instance, computed after the last
   * step: in wall_seconds, in no budget and in no planning time. -1 when the run failed or
   * had events or lifelong goals (its goals were not fixed). */
  int64_t soc_lb, makespan_lb;
  /* An external solver's own reported planning time in seconds; NaN when unknown, as for
   * every built-in planner. */
  double solver_seconds;
  mapf_sample *coherence_series;   /* every sample_every steps from step 0, owned (free with
                                      mapf_result_clear); NULL when not sampled */
  int32_t coherence_samples;
  mapf_agent_result *agent;        /* `agents` entries, owned; free with mapf_result_clear */
  char message[512];               /* why, when status is MAPF_STATUS_ERROR */
} mapf_result;

/* Frees what res owns (agent, coherence_series) and zeroes it; safe on a zeroed result. */
void mapf_result_clear(mapf_result *res);

/* Called after the start positions (t = 0) and after every step with every agent's cell. */
typedef void (*mapf_step_fn)(void *ud, int64_t t, const int32_t *pos, int32_t n);

/* Called when agent `agent`'s target becomes `cell` during the run, at step t (a patrol turn),
 * so that a trace can show it. */
typedef void (*mapf_goal_fn)(void *ud, int64_t t, int32_t agent, int32_t cell);

/* A map change as it happens (docs/events.md): from step t on, cell is open (open 1) or
 * closed (0); a closing that waited for an agent to leave comes at the step it happens. Called
 * before the step after t is planned, once per cell that changed. */
typedef void (*mapf_cell_fn)(void *ud, int64_t t, int32_t cell, int open);

typedef struct mapf_run_config {
  const mapf_grid *grid;
  const mapf_instance *inst;
  const mapf_algo_def *algo;
  mapf_params params;
  mapf_limits limits;
  mapf_execution execution; /* as asked; the run's rule is mapf_algo_execution's */
  uint64_t seed;          /* for any randomness the algorithm uses (derived from the job key) */
  mapf_step_fn on_step;   /* NULL: no trace */
  mapf_goal_fn on_goal;   /* NULL: none */
  void *ud;
  /* Direction-map coherence is sampled into mapf_result.coherence_series at step 0 and every
   * sample_every steps (algorithms with a direction map only); 0: no series. */
  int64_t sample_every;
  mapf_cell_fn on_cell;   /* map changes as they happen; NULL: none. */
  /* 1: no lower bounds (soc_lb and makespan_lb stay -1). `mapfarm calibrate` times the planner
   * and the simulator alone: the bounds are metrics, computed after the last step, which the
   * work model does not charge. Last: older initialisers keep their meaning. */
  int no_bounds;
} mapf_run_config;

typedef struct mapf_workspace mapf_workspace;

/* Returns new per-thread scratch memory, or NULL. Free with mapf_workspace_free (NULL: no-op). */
mapf_workspace *mapf_workspace_new(void);
void mapf_workspace_free(mapf_workspace *ws);

/* Runs one instance to the end or to a limit and fills res (res is overwritten; clear it with
 * mapf_result_clear when done). Returns MAPF_OK when the run happened (res->status is ok or
 * limit); otherwise an error code with the reason in d and res->status = MAPF_STATUS_ERROR and
 * res->message set (invalid instance or parameters, out of memory, a planner that is not joint
 * under the joint rule, or an illegal joint step: MAPF_EINVAL, "illegal joint step T: agent A
 * from (x,y) to (x,y): why", naming the first illegal move of the step by agent index). */
int mapf_run(mapf_workspace *ws, const mapf_run_config *cfg, mapf_result *res, mapf_diag *d);

#endif
