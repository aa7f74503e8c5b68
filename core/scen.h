/* scen.h: MovingAI scenarios, MAPF instances and scenario generators.
 *
 * A mapf_scen is the content of a .scen file; a mapf_instance is what the simulator runs:
 * n agents, each with a start cell and a goal cell (cell ids of one grid). */
#ifndef MAPF_SCEN_H
#define MAPF_SCEN_H

#include <stdint.h>
#include <stdio.h>

#include "grid.h"

/* One line of a .scen file: `bucket map width height sx sy gx gy optimal_length`. */
typedef struct mapf_scen_entry {
  int32_t bucket;
  int32_t width, height; /* the map size the line declares */
  int32_t sx, sy, gx, gy;
  double optimal;        /* optimal_length as printed */
  int32_t decimals;      /* digits printed after the decimal point, for comparisons */
  int32_t line;          /* 1-based line in the file */
} mapf_scen_entry;

typedef struct mapf_scen {
  int32_t n;
  mapf_scen_entry *entries;
  char *map;             /* the map file named by the first entry */
  int32_t skipped;       /* lines dropped under MAPF_SCEN_SKIP_INVALID */
  mapf_diag first_skip;  /* why the first of them was dropped */
} mapf_scen;

enum {
  /* Drop lines whose start or goal is outside the map or blocked (counting them in
   * `skipped`) instead of failing. Syntax errors still fail. */
  MAPF_SCEN_SKIP_INVALID = 1
};

/* Reads a .scen file: `version 1` (tab separated) and `version 1.0` (space separated); any run
 * of blanks separates fields, so map names must not contain blanks. When g is not NULL, every
 * start and goal must lie inside g and on a passable cell; otherwise (and on syntax errors)
 * returns MAPF_EPARSE with FILE:LINE:COL in d. MAPF_EIO when the file cannot be read. */
int mapf_scen_load(const char *path, const mapf_grid *g, unsigned flags, mapf_scen **out,
                   mapf_diag *d);

/* Frees s; NULL is a no-op. */
void mapf_scen_free(mapf_scen *s);

/* Whether s is a scenario for map g: its first line names g's file (directories aside) and
 * g's width and height. Returns MAPF_OK (also when s has no lines), or MAPF_EINVAL with
 * "SCEN_PATH:LINE: the scenario is for map lak.map (32 x 32), not arena.map (64 x 64)" in d. */
int mapf_scen_check_map(const mapf_scen *s, const char *scen_path, const mapf_grid *g,
                        mapf_diag *d);

/* A re-tasking event (docs/choices.md, Events): after `step` steps have been executed (step
 * >= 1), before the next is planned, agent `agent`'s goal becomes `cell`. */
typedef struct mapf_retask {
  int64_t step;
  int32_t agent, cell;
} mapf_retask;

/* A map change (docs/events.md): after `step` steps (step >= 1), before the next is planned,
 * `cell` closes (open 0) or opens (open 1). A cell with an agent on it closes at the first
 * such moment it is empty (sim.c). */
typedef struct mapf_mapchange {
  int64_t step;
  int32_t cell;
  int32_t open;
} mapf_mapchange;

typedef struct mapf_instance {
  int32_t n;
  int32_t *start; /* n cell ids, distinct */
  int32_t *goal;  /* n cell ids, distinct; goal[i] in the component of start[i] */
  /* Patrol loops (Jansen & Sturtevant 2008 Sec. 4; docs/choices.md, dm). 0: the usual one-way
   * problem (every agent goes from its start to its goal). N >= 1: agent i patrols: on
   * reaching its goal its target becomes its start, on reaching its start again one loop is
   * done and the target is the goal again; after N loops it stays on its start. Then start[i]
   * != goal[i] is required. Last, so that existing initialisers keep their meaning. */
  int32_t loops;
  /* Each agent's optimal (shortest, agents ignored) distance from start to goal, or NULL when
   * unknown: from a .scen file's optimal_length (mapf_instance_from_scen), or computed
   * (mapf_astar_fill_optimal). Gives the suboptimality metric (thesis Ch. 4). Owned. */
  double *optimal;
  /* Re-tasking events in order of step (then as listed); NULL and 0: none. Under events an
   * agent's goal for the metrics is the last one it was given. Owned. */
  mapf_retask *retask;
  int32_t nretask;
  /* Lifelong goals (docs/choices.md, Events): 0, the usual one-shot problem; 1: an agent that
   * reaches its goal gets the next task of its sequence at once (mapf_lifelong_task, drawn from
   * task_seed), and the run goes on to the step limit. Not with loops or retask. */
  int32_t lifelong;
  uint64_t task_seed;
  /* A task list for lifelong goals (docs/robot-runners.md) in place of task_seed's draws; NULL
   * and 0: none. ntask >= 1 cells, dealt to the agents by task_rule (mapf_tasks_next, events.h);
   * goal[a] is agent a's first task, or its start when the rule deals it none. Goals need not be
   * distinct then, as tasks need not be. Owned. */
  int32_t *task;
  int64_t ntask;
  int32_t task_rule; /* a mapf_task_rule */
  /* Map changes in order of step (then as listed); NULL and 0: none. With any problem: one-way,
   * patrol, events, lifelong. Owned. */
  mapf_mapchange *change;
  int32_t nchange;
} mapf_instance;

/* How a task list is dealt out: the League of Robot Runners 2023's taskAssignmentStrategy (one
 * task revealed at a time). Ties (agents done at one step) go in agent order. */
typedef enum mapf_task_rule {
  MAPF_TASKS_GREEDY,           /* an agent done with a task takes the list's first untaken one */
  MAPF_TASKS_ROUNDROBIN,       /* agent a's task k (from 0) is task (k n + a) mod ntask: endless */
  MAPF_TASKS_ROUNDROBIN_FIXED, /* the same without wrapping round: the list ends */
  MAPF_TASK_RULES
} mapf_task_rule;

/* Returns an instance with room for n agents (arrays uninitialised, loops 0), or NULL. */
mapf_instance *mapf_instance_new(int32_t n);
/* Frees inst; NULL is a no-op. */
void mapf_instance_free(mapf_instance *inst);

/* Checks that inst is valid on g: cells inside and passable, starts distinct, goals distinct,
 * each goal reachable from its start; loops >= 0, and with loops >= 1 no goal on its own
 * agent's start. A task list (lifelong only): every task a passable cell that every agent the
 * rule may deal it to can reach, each goal its agent's first task, goals not necessarily
 * distinct. Returns MAPF_OK or MAPF_EINVAL with the first problem (naming the agent or the
 * task, from 0) in d. */
int mapf_instance_check(const mapf_instance *inst, const mapf_grid *g, mapf_diag *d);

/* Builds an instance from entries first .. first+n-1 of s (the MAPF benchmark convention: the
 * first n lines are the agents). Fails with MAPF_EINVAL (line number in d) if an entry does not
 * fit g, two starts or two goals coincide, or a goal is unreachable. */
int mapf_instance_from_scen(const mapf_scen *s, const mapf_grid *g, int32_t first, int32_t n,
                            mapf_instance **out, mapf_diag *d);

/* Scenario generator `random` (thesis 5.4.1): n agents with distinct starts, distinct goals,
 * start != goal, each goal in its start's connected component, drawn uniformly with the given
 * seed. Returns MAPF_ENOSPACE with a message when the map cannot hold n agents; never loops
 * without bound. */
int mapf_scengen_random(const mapf_grid *g, int32_t n, uint64_t seed, mapf_instance **out,
                        mapf_diag *d);

/* Writes inst as a MovingAI `version 1` MAPF scenario (one line per agent, bucket 0) naming
 * map_file, with optimal[i] as optimal_length (NULL: 0). Returns MAPF_OK or MAPF_EIO. */
int mapf_instance_write_scen(const mapf_instance *inst, const mapf_grid *g,
                             const char *map_file, const double *optimal, FILE *f);

#endif
