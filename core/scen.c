/* scen.c: MAPF instances, their validation, instances from .scen files, the `random` scenario
 * generator (thesis 5.4.1) and the .scen writer. Reading .scen files is in movingai.c. */
#include "scen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "rng.h"

mapf_instance *mapf_instance_new(int32_t n) {
  if (n < 0) return NULL;
  mapf_instance *inst = calloc(1, sizeof *inst);
  if (!inst) return NULL;
  size_t m = n > 0 ? (size_t)n : 1;
  inst->n = n;
  inst->start = malloc(m * sizeof *inst->start);
  inst->goal = malloc(m * sizeof *inst->goal);
  if (!inst->start || !inst->goal) {
    mapf_instance_free(inst);
    return NULL;
  }
  return inst;
}

void mapf_instance_free(mapf_instance *inst) {
  if (!inst) return;
  free(inst->start);
  free(inst->goal);
  free(inst->optimal);
  free(inst->retask);
  free(inst->task);
  free(inst->change);
  free(inst);
}

/* ---- validation ----------------------------------------------------------------------- */

int mapf_scen_check_map(const mapf_scen *s, const char *scen_path, const mapf_grid *g,
                        mapf_diag *d) {
  if (s->n == 0) return MAPF_OK;
  const mapf_scen_entry *e0 = &s->entries[0];
  const char *named = strrchr(s->map, '/'); /* every line names a map, the first in s->map */
  named = named ? named + 1 : s->map;
  if (strcmp(named, g->name) == 0 && e0->width == g->width && e0->height == g->height)
    return MAPF_OK;
  return mapf_diag_set(d, MAPF_EINVAL, scen_path, e0->line, 0,
                       "the scenario is for map %s (%d x %d), not %s (%d x %d)", s->map,
                       (int)e0->width, (int)e0->height, g->name, (int)g->width,
                       (int)g->height);
}

/* Writes how to name agent i in a message: "agent 3", plus the scenario line when known. */
static const char *agent_label(char *buf, size_t cap, int32_t i, const int32_t *lines) {
  if (lines)
    snprintf(buf, cap, "agent %d (scenario line %d)", (int)i, (int)lines[i]);
  else
    snprintf(buf, cap, "agent %d", (int)i);
  return buf;
}

typedef struct cell_agent {
  int32_t cell, agent;
} cell_agent;

static int cmp_cell_agent(const void *a, const void *b) {
  const cell_agent *x = a, *y = b;
  if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
  return (x->agent > y->agent) - (x->agent < y->agent);
}

/* Finds the first agent (lowest index) whose cell in cells[] repeats an earlier agent's; returns
 * it and sets *earlier to the lowest-index agent with the same cell, or returns -1 when all
 * cells are distinct. Sorts (cell, agent) pairs: O(n log n) time, O(n) memory, whatever the
 * map size. Returns -2 when out of memory. */
static int32_t first_duplicate(const int32_t *cells, int32_t n, int32_t *earlier) {
  if (n < 2) return -1;
  cell_agent *p = malloc((size_t)n * sizeof *p);
  if (!p) return -2;
  for (int32_t i = 0; i < n; i++) {
    p[i].cell = cells[i];
    p[i].agent = i;
  }
  qsort(p, (size_t)n, sizeof *p, cmp_cell_agent);
  int32_t best = -1, best_earlier = -1;
  for (int32_t i = 1; i < n; i++) {
    /* In a run of equal cells, the second entry is the first agent to repeat the cell. */
    if (p[i].cell == p[i - 1].cell && (i < 2 || p[i - 2].cell != p[i].cell) &&
        (best < 0 || p[i].agent < best)) {
      best = p[i].agent;
      best_earlier = p[i - 1].agent;
    }
  }
  free(p);
  *earlier = best_earlier;
  return best;
}

/* Checks every rule of an instance in agent order: cells inside g and passable, goal in the
 * start's component; then starts distinct and, when distinct_goals, goals distinct. lines (may
 * be NULL) gives the scenario line of each agent for messages. Returns MAPF_OK, MAPF_EINVAL or
 * MAPF_ENOMEM. */
static int check_agents(const int32_t *start, const int32_t *goal, int32_t n,
                        const mapf_grid *g, const int32_t *lines, int distinct_goals,
                        mapf_diag *d) {
  char who[96];
  for (int32_t i = 0; i < n; i++) {
    int line = lines ? lines[i] : 0;
    for (int k = 0; k < 2; k++) {
      int32_t c = k == 0 ? start[i] : goal[i];
      const char *what = k == 0 ? "start" : "goal";
      if (c < 0 || c >= g->ncells)
        return mapf_diag_set(d, MAPF_EINVAL, NULL, line, 0,
                             "%s: %s cell %d is outside the map %s (%d x %d, %d cells)",
                             agent_label(who, sizeof who, i, lines), what, (int)c, g->name,
                             g->width, g->height, g->ncells);
      if (!g->passable[c])
        return mapf_diag_set(d, MAPF_EINVAL, NULL, line, 0,
                             "%s: %s (%d,%d) is on a blocked cell of map %s",
                             agent_label(who, sizeof who, i, lines), what,
                             (int)mapf_grid_x(g, c), (int)mapf_grid_y(g, c), g->name);
    }
    if (g->component[start[i]] != g->component[goal[i]])
      return mapf_diag_set(d, MAPF_EINVAL, NULL, line, 0,
                           "%s: goal (%d,%d) is not reachable from start (%d,%d) on map %s",
                           agent_label(who, sizeof who, i, lines), (int)mapf_grid_x(g, goal[i]),
                           (int)mapf_grid_y(g, goal[i]), (int)mapf_grid_x(g, start[i]),
                           (int)mapf_grid_y(g, start[i]), g->name);
  }
  for (int k = 0; k < 1 + (distinct_goals != 0); k++) {
    const int32_t *cells = k == 0 ? start : goal;
    int32_t j = -1;
    int32_t i = first_duplicate(cells, n, &j);
    if (i == -2) return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
    if (i < 0) continue;
    char who2[96];
    return mapf_diag_set(d, MAPF_EINVAL, NULL, lines ? lines[i] : 0, 0,
                         "%s and %s have the same %s (%d,%d)",
                         agent_label(who2, sizeof who2, j, lines),
                         agent_label(who, sizeof who, i, lines), k == 0 ? "start" : "goal",
                         (int)mapf_grid_x(g, cells[i]), (int)mapf_grid_y(g, cells[i]));
  }
  return MAPF_OK;
}

/* The map changes' rules (scen.h): in order of step from step 1, cells inside the map. */
static int check_changes(const mapf_instance *inst, const mapf_grid *g, mapf_diag *d) {
  for (int32_t k = 0; k < inst->nchange; k++) {
    const mapf_mapchange *e = &inst->change[k];
    if (e->step < 1 || (k > 0 && e->step < inst->change[k - 1].step))
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                           "map change %d: step %lld: changes come in order of step, from step 1",
                           (int)k, (long long)e->step);
    if (e->cell < 0 || e->cell >= g->ncells)
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "map change %d: cell %d is outside the map",
                           (int)k, (int)e->cell);
  }
  return MAPF_OK;
}

/* The events' rules (scen.h): in step order from step 1, each naming an agent and a passable
 * cell of its start's component that is no other agent's goal at that step; lifelong goals
 * and events only on one-way problems, and not together. */
static int check_events(const mapf_instance *inst, const mapf_grid *g, mapf_diag *d) {
  if (inst->lifelong && (inst->loops > 0 || inst->nretask > 0))
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "lifelong goals are for one-way problems without events");
  if (inst->nretask == 0) return MAPF_OK;
  if (inst->loops > 0)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "events are for one-way problems");
  int32_t *owner = malloc((size_t)g->ncells * sizeof *owner);
  int32_t *goal = malloc((size_t)(inst->n ? inst->n : 1) * sizeof *goal);
  if (!owner || !goal) {
    free(owner);
    free(goal);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  for (int32_t c = 0; c < g->ncells; c++) owner[c] = -1;
  for (int32_t a = 0; a < inst->n; a++) {
    goal[a] = inst->goal[a];
    owner[goal[a]] = a;
  }
  int rc = MAPF_OK;
  for (int32_t k = 0; k < inst->nretask && rc == MAPF_OK; k++) {
    const mapf_retask *e = &inst->retask[k];
    if (e->step < 1 || (k > 0 && e->step < inst->retask[k - 1].step))
      rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "event %d: step %lld: events come in order of step, from step 1",
                         (int)k, (long long)e->step);
    else if (e->agent < 0 || e->agent >= inst->n)
      rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "event %d: no agent %d (the instance has %d agents)", (int)k,
                         (int)e->agent, (int)inst->n);
    else if (e->cell < 0 || e->cell >= g->ncells || !g->passable[e->cell] ||
             g->component[e->cell] != g->component[inst->start[e->agent]])
      rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "event %d: agent %d's new goal is %s", (int)k, (int)e->agent,
                         e->cell < 0 || e->cell >= g->ncells ? "outside the map"
                         : !g->passable[e->cell]             ? "a blocked cell"
                                                 : "not reachable from its start");
    else if (owner[e->cell] >= 0 && owner[e->cell] != e->agent)
      rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "event %d: agent %d's new goal (%d,%d) is agent %d's goal at step %lld",
                         (int)k, (int)e->agent, (int)mapf_grid_x(g, e->cell),
                         (int)mapf_grid_y(g, e->cell), (int)owner[e->cell], (long long)e->step);
    else {
      owner[goal[e->agent]] = -1;
      owner[e->cell] = e->agent;
      goal[e->agent] = e->cell;
    }
  }
  free(owner);
  free(goal);
  return rc;
}

/* A task list's rules (scen.h): lifelong only, at least one task, a known rule, every task a
 * passable cell that the agents it may go to can reach, each goal its agent's first task. */
static int check_tasks(const mapf_instance *inst, const mapf_grid *g, mapf_diag *d) {
  if (!inst->task && inst->ntask == 0) return MAPF_OK;
  if (!inst->lifelong)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "a task list is for lifelong goals");
  if (!inst->task || inst->ntask < 1 || inst->ntask > INT32_MAX)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "a task list holds 1 to %d tasks, not %lld", (int)INT32_MAX,
                         (long long)inst->ntask);
  if (inst->task_rule < 0 || inst->task_rule >= MAPF_TASK_RULES)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "task_rule: no rule %d",
                         (int)inst->task_rule);
  for (int64_t i = 0; i < inst->ntask; i++) {
    int32_t c = inst->task[i];
    if (c < 0 || c >= g->ncells)
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                           "task %lld: cell %d is outside the map %s (%d x %d, %d cells)",
                           (long long)i, (int)c, g->name, g->width, g->height, g->ncells);
    if (!g->passable[c])
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                           "task %lld: (%d,%d) is on a blocked cell of map %s", (long long)i,
                           (int)mapf_grid_x(g, c), (int)mapf_grid_y(g, c), g->name);
  }
  int32_t a = -1;
  int64_t i = mapf_tasks_unreachable(g, inst, &a);
  if (i >= 0)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "task %lld (%d,%d) is not reachable from agent %d's start (%d,%d) on "
                         "map %s",
                         (long long)i, (int)mapf_grid_x(g, inst->task[i]),
                         (int)mapf_grid_y(g, inst->task[i]), (int)a,
                         (int)mapf_grid_x(g, inst->start[a]), (int)mapf_grid_y(g, inst->start[a]),
                         g->name);
  for (a = 0; a < inst->n; a++) {
    int32_t first = mapf_tasks_first(inst, a), want = first >= 0 ? first : inst->start[a];
    if (inst->goal[a] != want)
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                           "agent %d: goal (%d,%d) is not %s (%d,%d)", (int)a,
                           (int)mapf_grid_x(g, inst->goal[a]), (int)mapf_grid_y(g, inst->goal[a]),
                           first >= 0 ? "its first task" : "its start (the list deals it no task)",
                           (int)mapf_grid_x(g, want), (int)mapf_grid_y(g, want));
  }
  return MAPF_OK;
}

int mapf_instance_check(const mapf_instance *inst, const mapf_grid *g, mapf_diag *d) {
  if (inst->n < 0)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "instance has %d agents", (int)inst->n);
  if (inst->loops < 0)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "loops: expected an integer >= 0, found %d",
                         (int)inst->loops);
  int rc = check_agents(inst->start, inst->goal, inst->n, g, NULL, !inst->task, d);
  /* A patrol between a cell and itself has no loop to count. */
  for (int32_t i = 0; rc == MAPF_OK && inst->loops > 0 && i < inst->n; i++)
    if (inst->start[i] == inst->goal[i])
      rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "agent %d: a patrol (loops %d) needs a goal other than its start (%d,%d)",
                         (int)i, (int)inst->loops, (int)mapf_grid_x(g, inst->start[i]),
                         (int)mapf_grid_y(g, inst->start[i]));
  if (rc == MAPF_OK) rc = check_events(inst, g, d);
  if (rc == MAPF_OK) rc = check_changes(inst, g, d);
  if (rc == MAPF_OK) rc = check_tasks(inst, g, d);
  return rc;
}

/* Takes entries first .. first+n-1 of s as agents 0 .. n-1 (MAPF benchmark convention), after
 * checking the coordinates against g; then applies the rules of mapf_instance_check. */
int mapf_instance_from_scen(const mapf_scen *s, const mapf_grid *g, int32_t first, int32_t n,
                            mapf_instance **out, mapf_diag *d) {
  if (n < 1)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "agents: expected an integer >= 1, found %d",
                         (int)n);
  if (first < 0 || first > s->n || n > s->n - first)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "the scenario has %d entries; cannot take %d agents from entry %d",
                         (int)s->n, (int)n, (int)first);
  mapf_instance *inst = mapf_instance_new(n);
  int32_t *lines = malloc((size_t)n * sizeof *lines);
  if (!inst || !lines) {
    mapf_instance_free(inst);
    free(lines);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  int err = MAPF_OK;
  for (int32_t i = 0; i < n && !err; i++) {
    const mapf_scen_entry *e = &s->entries[first + i];
    lines[i] = e->line;
    for (int k = 0; k < 2 && !err; k++) {
      int32_t x = k == 0 ? e->sx : e->gx, y = k == 0 ? e->sy : e->gy;
      if (!mapf_grid_in(g, x, y)) {
        char who[96];
        err = mapf_diag_set(d, MAPF_EINVAL, NULL, e->line, 0,
                            "%s: %s (%d,%d) is outside the map %s (%d x %d)",
                            agent_label(who, sizeof who, i, lines), k == 0 ? "start" : "goal",
                            (int)x, (int)y, g->name, g->width, g->height);
      } else if (k == 0) {
        inst->start[i] = mapf_grid_id(g, x, y);
      } else {
        inst->goal[i] = mapf_grid_id(g, x, y);
      }
    }
  }
  if (!err) err = check_agents(inst->start, inst->goal, n, g, lines, 1, d);
  free(lines);
  /* The file's optimal lengths, for the suboptimality metric: octile lengths, so not under 4
   * moves, where they are left unknown (a single agent's is computed: mapf_astar_fill_optimal). */
  if (!err && g->connectivity == 4) {
    *out = inst;
    return MAPF_OK;
  }
  if (!err && !(inst->optimal = malloc((size_t)n * sizeof *inst->optimal)))
    err = mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  for (int32_t i = 0; i < n && !err; i++) inst->optimal[i] = s->entries[first + i].optimal;
  if (err) {
    mapf_instance_free(inst);
    return err;
  }
  *out = inst;
  return MAPF_OK;
}

/* ---- the `random` generator ----------------------------------------------------------- */

/* Scenario generator `random` (thesis 5.4.1). Usable cells are the passable cells of
 * components with two or more cells (a one-cell component cannot hold an agent that must move).
 *
 * Starts: n distinct usable cells drawn uniformly by a partial Fisher-Yates shuffle; agent i
 * gets the i-th cell drawn. Goals: agents in index order each draw uniformly, without
 * replacement, from the cells of their start's component not yet taken as a goal, excluding
 * their own start (drawing from m - 1 slots and mapping the start's slot to the last one, so
 * there is no rejection loop). The only dead end is the last agent of a component whose
 * remaining cell is its own start (n equals the component's size): it then swaps with a
 * uniformly chosen earlier agent j of that component (i takes j's goal, j takes i's start),
 * which keeps every rule. O(npassable + n) time and memory (two copies of the grid's list of
 * usable cells), a fixed number of draws. */
int mapf_scengen_random(const mapf_grid *g, int32_t n, uint64_t seed, mapf_instance **out,
                        mapf_diag *d) {
  if (n < 1)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "agents: expected an integer >= 1, found %d",
                         (int)n);
  int32_t nc = g->ncomponents;
  int64_t usable = g->nusable;
  if (n > usable)
    return mapf_diag_set(d, MAPF_ENOSPACE, NULL, 0, 0,
                         "map %s has %lld passable cells in components of 2 or more; cannot "
                         "place %d agents",
                         g->name, (long long)usable, (int)n);

  /* The grid lists the usable cells in id order and grouped by component (grid.h); both
   * copies are shuffled in place below. */
  mapf_instance *inst = mapf_instance_new(n);
  int32_t *cand = malloc((size_t)usable * sizeof *cand);      /* usable cells, id order */
  int32_t *pool = malloc((size_t)usable * sizeof *pool);      /* usable cells by component */
  const int32_t *off = g->usable_off;                         /* pool offset per component */
  int32_t *taken = calloc((size_t)nc, sizeof *taken);         /* goals taken per component */
  int32_t *aoff = calloc((size_t)nc + 1, sizeof *aoff);       /* agent list offset per comp */
  int32_t *agents = malloc((size_t)n * sizeof *agents);       /* processed agents by comp */
  int32_t *aseen = calloc((size_t)nc, sizeof *aseen);         /* processed agents per comp */
  uint8_t *is_goal = calloc((size_t)g->ncells, 1);
  int err = MAPF_OK;
  if (!inst || !cand || !pool || !taken || !aoff || !agents || !aseen || !is_goal) {
    err = mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
    goto done;
  }
  int32_t k = (int32_t)usable;
  memcpy(cand, g->usable, (size_t)usable * sizeof *cand);
  memcpy(pool, g->usable_by_comp, (size_t)usable * sizeof *pool);

  mapf_rng r;
  mapf_rng_seed(&r, seed);

  /* Starts: partial Fisher-Yates over cand. */
  for (int32_t i = 0; i < n; i++) {
    int32_t j = i + (int32_t)mapf_rng_below(&r, (uint64_t)(k - i));
    int32_t t = cand[i];
    cand[i] = cand[j];
    cand[j] = t;
    inst->start[i] = cand[i];
    aoff[g->component[cand[i]] + 1]++;
  }
  for (int32_t c = 0; c < nc; c++) aoff[c + 1] += aoff[c];

  /* Goals: a partial Fisher-Yates per component; the front of each pool is the taken part. */
  for (int32_t i = 0; i < n; i++) {
    int32_t s = inst->start[i];
    int32_t c = g->component[s];
    int32_t *p = pool + off[c] + taken[c];
    int32_t m = off[c + 1] - off[c] - taken[c]; /* cells left in the pool, >= 1 */
    int32_t j;
    if (!is_goal[s]) {
      if (m == 1) {
        /* Only our own start is left: swap with an earlier agent of this component. */
        int32_t t = agents[aoff[c] + (int32_t)mapf_rng_below(&r, (uint64_t)aseen[c])];
        inst->goal[i] = inst->goal[t];
        inst->goal[t] = s;
        is_goal[s] = 1;
        p[0] = s;
        taken[c]++;
        agents[aoff[c] + aseen[c]++] = i;
        continue;
      }
      j = (int32_t)mapf_rng_below(&r, (uint64_t)(m - 1));
      if (p[j] == s) j = m - 1;
    } else {
      j = (int32_t)mapf_rng_below(&r, (uint64_t)m);
    }
    int32_t t = p[0];
    p[0] = p[j];
    p[j] = t;
    inst->goal[i] = p[0];
    is_goal[p[0]] = 1;
    taken[c]++;
    agents[aoff[c] + aseen[c]++] = i;
  }
  *out = inst;
  inst = NULL;

done:
  mapf_instance_free(inst);
  free(cand);
  free(pool);
  free(taken);
  free(aoff);
  free(agents);
  free(aseen);
  free(is_goal);
  return err;
}

/* ---- writer --------------------------------------------------------------------------- */

/* Formats x with %.8f and then forces '.' as the decimal point, so the file does not depend on
 * the process's LC_NUMERIC. Non-finite values are written as 0 (unknown). */
static void format_length(char *buf, size_t cap, double x) {
  if (!isfinite(x)) x = 0;
  char tmp[400];
  snprintf(tmp, sizeof tmp, "%.8f", x);
  size_t len = strlen(tmp);
  /* tmp is [-]digits POINT 8 digits; POINT may be any (even multibyte) string. */
  size_t int_end = 0;
  if (tmp[int_end] == '-') int_end++;
  while (tmp[int_end] >= '0' && tmp[int_end] <= '9') int_end++;
  if (len < int_end + 8) {
    snprintf(buf, cap, "%s", tmp);
    return;
  }
  snprintf(buf, cap, "%.*s.%s", (int)int_end, tmp, tmp + len - 8);
}

int mapf_instance_write_scen(const mapf_instance *inst, const mapf_grid *g,
                             const char *map_file, const double *optimal, FILE *f) {
  if (!map_file) map_file = g->name;
  if (fprintf(f, "version 1\n") < 0) return MAPF_EIO;
  for (int32_t i = 0; i < inst->n; i++) {
    char len[420];
    format_length(len, sizeof len, optimal ? optimal[i] : 0.0);
    if (fprintf(f, "0\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", map_file, g->width, g->height,
                (int)mapf_grid_x(g, inst->start[i]), (int)mapf_grid_y(g, inst->start[i]),
                (int)mapf_grid_x(g, inst->goal[i]), (int)mapf_grid_y(g, inst->goal[i]),
                len) < 0)
      return MAPF_EIO;
  }
  /* Flush so that a full disk shows up here rather than at the caller's fclose. */
  if (fflush(f) != 0 || ferror(f)) return MAPF_EIO;
  return MAPF_OK;
}
