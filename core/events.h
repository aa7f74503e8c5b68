/* events.h: scenario events and lifelong goals (docs/choices.md, Events): the re-tasking
 * generator and the task sequences of lifelong runs, drawn or from a task list
 * (docs/robot-runners.md).
 *
 * Events are part of the problem, not of the algorithm: every draw comes from a seed derived
 * from the instance (never from the algorithm's seed), so every algorithm of a plan meets the
 * same events and the same tasks. Reentrant: no globals, every draw from a mapf_rng. */
#ifndef MAPF_EVENTS_H
#define MAPF_EVENTS_H

#include <stdint.h>

#include "error.h"
#include "grid.h"
#include "scen.h"

/* The `retask` generator: at steps every, 2 every, ..., rounds x every, max(1, round(fraction
 * x n)) agents drawn uniformly without replacement each get a new goal, drawn uniformly among
 * the usable cells of their start's component that are no agent's goal at that moment (so goals
 * stay distinct and every agent can still finish). A new goal may be the cell the agent stands
 * on when the event comes (it has then reached it). Replaces inst->retask. Returns MAPF_OK,
 * MAPF_EINVAL for values out of range (every >= 1, 0 < fraction <= 1, rounds >= 1),
 * MAPF_ENOSPACE when a component has no free cell for a new goal, or MAPF_ENOMEM; d says
 * why. */
int mapf_retask_generate(const mapf_grid *g, mapf_instance *inst, int64_t every,
                         double fraction, int32_t rounds, uint64_t seed, mapf_diag *d);

/* Task k (k >= 1: task 0 is the instance's goal) of agent a in a lifelong run seeded by seed:
 * a usable cell of the component of `current` (the agent's goal it has just reached) other
 * than current, drawn uniformly from a generator seeded by (seed, a, k) alone, so the sequence
 * does not depend on when the agent gets there. Tasks of different agents may coincide. */
int32_t mapf_lifelong_task(const mapf_grid *g, uint64_t seed, int32_t a, int64_t k,
                           int32_t current);

/* ---- map changes (docs/events.md) ------------------------------------------------------- */

/* A door of a map: a run of len passable cells from `cell`, `step` apart (1: along a row,
 * across a corridor that goes north-south; the map's width: along a column), blocked or the
 * map's edge at both ends, each cell open on both sides across the run. Closed, it cuts its
 * corridor there. */
typedef struct mapf_door {
  int32_t cell, len, step;
} mapf_door;

#define MAPF_DOOR_MAX_WIDTH 64

/* The doors of g of at most `width` cells (width 1: a passable cell whose two open cardinal
 * neighbours face each other), rows first then columns, each in id order: malloc'd into *out
 * (NULL when there are none). Returns their number, or -1 when out of memory. */
int32_t mapf_doors_find(const mapf_grid *g, int32_t width, mapf_door **out);

/* The `doors` generator: at steps every, 2 every, ..., rounds x every, `count` doors of g of
 * at most `width` cells (mapf_doors_find), drawn uniformly without replacement among those
 * whose cells are all open at that step (skipping one that shares a cell with a door drawn
 * before it), close, and each opens again `duration` steps later. At one step openings come
 * before closings. Replaces inst->change. Returns MAPF_OK, MAPF_EINVAL for values out of range
 * (every, count, duration, rounds >= 1; 1 <= width <= MAPF_DOOR_MAX_WIDTH), MAPF_ENOSPACE when
 * fewer than count doors can close at a round (d names the map and its number of doors), or
 * MAPF_ENOMEM. */
int mapf_doors_generate(const mapf_grid *g, mapf_instance *inst, int64_t every, int32_t count,
                        int32_t width, int64_t duration, int32_t rounds, uint64_t seed,
                        mapf_diag *d);

/* ---- events files (docs/events.md) ------------------------------------------------------ */

/* An events file's map changes, in the place of an agent (mapf_events_file.agent). */
#define MAPF_EVENT_CLOSE (-1)
#define MAPF_EVENT_OPEN (-2)

/* An events file, read: one event a line, `STEP retask AGENT X Y` (after STEP steps, agent
 * AGENT's goal becomes cell (X, Y)), `STEP close X Y` or `STEP open X Y` (after STEP steps,
 * cell (X, Y) closes or opens), `#` comments and blank lines skipped. Events are kept in order
 * of step, those of one step as listed; each keeps its place in the file for messages. */
typedef struct mapf_events_file {
  char path[512];
  int32_t n;
  int32_t nchange;  /* of which map changes */
  int64_t *step;
  int32_t *agent;   /* the agent re-tasked, or MAPF_EVENT_CLOSE or MAPF_EVENT_OPEN */
  int32_t *x, *y;
  int32_t *line;                /* 1-based line of each event */
  int32_t *col_agent, *col_x;   /* 1-based columns of its AGENT and X fields */
  int64_t last_step;            /* the largest step, 0 without events */
  int32_t max_agent;            /* the largest agent named, -1 without events */
  int32_t line_last;            /* the line of an event at last_step */
  int32_t line_max_agent;       /* the line of an event naming max_agent */
  uint64_t hash;                /* of the events' (step, agent, x, y), in order: the content */
} mapf_events_file;

/* Reads path into *out. Returns MAPF_OK, MAPF_EIO, MAPF_EPARSE with FILE:LINE:COL in d, or
 * MAPF_ENOMEM. */
int mapf_events_load(const char *path, mapf_events_file **out, mapf_diag *d);
void mapf_events_free(mapf_events_file *f);

/* Checks the file against map g (every cell inside, every new goal passable), an instance of
 * `agents` agents (every agent named exists) and a step limit (no event after it; steps < 0:
 * none).
 * The first failure goes into d with the event's FILE:LINE:COL. Returns MAPF_OK or
 * MAPF_EINVAL. */
int mapf_events_check(const mapf_events_file *f, const mapf_grid *g, int32_t agents,
                      int64_t steps, mapf_diag *d);

/* Replaces inst->retask and inst->change with the file's events on g (checked with
 * mapf_events_check for inst->n agents and no step limit first). Returns MAPF_OK, MAPF_EINVAL or MAPF_ENOMEM. */
int mapf_events_apply(const mapf_events_file *f, const mapf_grid *g, mapf_instance *inst,
                      mapf_diag *d);

/* Who gets which task of a lifelong run (mapf_instance.task, task_rule), as the run goes: one
 * per run, between mapf_tasks_begin and mapf_tasks_end. */
typedef struct mapf_tasks {
  int64_t next;  /* greedy: the list's first task no agent has taken */
  uint8_t *idle; /* per agent, under a list: 1 once the list has no task left for it; or NULL */
} mapf_tasks;

/* Starts t for a run of inst: agents the rule deals no first task are idle. MAPF_OK or
 * MAPF_ENOMEM. */
int mapf_tasks_begin(mapf_tasks *t, const mapf_instance *inst);
void mapf_tasks_end(mapf_tasks *t);

/* Whether agent a has no task left (it stays where it is, on its last goal). */
static inline int mapf_tasks_idle(const mapf_tasks *t, int32_t a) { return t->idle && t->idle[a]; }

/* Agent a's first task under inst's list (its instance goal), or -1 when the rule deals it
 * none (greedy and roundrobin_fixed lists shorter than the team). */
int32_t mapf_tasks_first(const mapf_instance *inst, int32_t a);

/* Agent a, standing on `current`, has just finished a task, the *done-th it finished (counting
 * it). Returns its next goal. Without a list: mapf_lifelong_task(g, inst->task_seed, a, *done,
 * current). With one, the next task the rule deals it; a task on `current` itself is finished
 * at once (one more in *done) and the next one dealt. -1 when the list has none left for it
 * (or, round-robin, when every task of its turn is `current`): it is then idle. */
int32_t mapf_tasks_next(mapf_tasks *t, const mapf_grid *g, const mapf_instance *inst, int32_t a,
                        int64_t *done, int32_t current);

/* A task of inst's list (the lowest index for a task the rule deals to one agent only) that an
 * agent the rule may deal it to cannot reach from its start (other components of g), with that
 * agent in *agent; -1 when there is none. Cells must be passable cells of g. */
int64_t mapf_tasks_unreachable(const mapf_grid *g, const mapf_instance *inst, int32_t *agent);

#endif
