/* sim.c: the simulator (docs/choices.md, Simulation; Sigurdson et al. 2018 Alg. 2). Every step,
 * each agent's planner fills want[] (search phase), then the executor moves agents one at a time in
 * agent order, so no two agents ever share a cell and none ever swap; or, under the joint rule
 * (Stern et al. 2019), checks the planner's joint step and moves every agent at once. */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events.h"
#include "hash.h"
#include "landmark.h"
#include "sim_int.h"

int mapf_execution_parse(const char *name) {
  if (strcmp(name, "chains") == 0) return MAPF_EXEC_CHAINS;
  if (strcmp(name, "single-pass") == 0) return MAPF_EXEC_SINGLE_PASS;
  if (strcmp(name, "joint") == 0) return MAPF_EXEC_JOINT;
  return -1;
}

const char *mapf_execution_name(mapf_execution e) {
  return e == MAPF_EXEC_SINGLE_PASS ? "single-pass" : e == MAPF_EXEC_JOINT ? "joint" : "chains";
}

mapf_execution mapf_algo_execution(const mapf_algo_def *def, mapf_execution asked) {
  return def->joint ? MAPF_EXEC_JOINT : asked;
}

const char *mapf_status_name(mapf_status s) {
  switch (s) {
  case MAPF_STATUS_OK:
    return "ok";
  case MAPF_STATUS_LIMIT:
    return "limit";
  default:
    return "error";
  }
}

const char *mapf_limit_name(mapf_limit_kind k) {
  switch (k) {
  case MAPF_LIMIT_STEPS:
    return "steps";
  case MAPF_LIMIT_SECONDS:
    return "seconds";
  case MAPF_LIMIT_EXPANSIONS:
    return "expansions";
  case MAPF_LIMIT_WORK:
    return "work";
  default:
    return "";
  }
}

void mapf_result_clear(mapf_result *res) {
  free(res->agent);
  free(res->coherence_series);
  memset(res, 0, sizeof *res);
}

/* Per-thread scratch, reused across runs. The per-cell arrays are kept all -1 between runs, so
 * a run touches only the cells its agents use. */
struct mapf_workspace {
  mapf__search search;
  mapf__dist_cache dist; /* distance tables across runs (dist.h) */
  int32_t *occ, *winner; /* per cell */
  int32_t ncells;
  int32_t *pos, *want, *chain, *prev;
  int32_t *target;       /* per agent, its current target (sim.goal) */
  uint8_t *state;        /* per agent, executor state within a step */
  int32_t nagents;
  /* The lower bounds' searches (landmark.h): their scratch memory; the map they last ran on
   * (its width, cells and a copy of its moves), the expansions spent on it without landmarks
   * and, once made, its landmarks' tables (lb_map_begin, lower_bounds). */
  mapf_moves_search *lb_search;
  uint8_t *lb_moves;
  int32_t lb_map_width, lb_map_cells;
  int64_t lb_spent;
  mapf_landmarks *lb_lm; /* NULL until made for the map */
  /* The last instance's bounds on that map (lb_memo_n agents, -1: none; their starts then
   * goals), for a run of the same instance: a sweep runs each instance once per
   * configuration, one after another. */
  int32_t *lb_memo, lb_memo_n, lb_memo_cap, lb_memo_loops;
  int64_t lb_memo_soc, lb_memo_makespan;
};

mapf_workspace *mapf_workspace_new(void) {
  mapf_workspace *ws = calloc(1, sizeof(mapf_workspace));
  if (ws) ws->lb_memo_n = -1;
  return ws;
}

void mapf_workspace_free(mapf_workspace *ws) {
  if (!ws) return;
  mapf__search_free(&ws->search);
  mapf__dist_free(&ws->dist);
  free(ws->occ);
  free(ws->winner);
  free(ws->pos);
  free(ws->want);
  free(ws->chain);
  free(ws->prev);
  free(ws->target);
  free(ws->state);
  mapf_moves_search_free(ws->lb_search);
  mapf_landmarks_free(ws->lb_lm);
  free(ws->lb_moves);
  free(ws->lb_memo);
  free(ws);
}

static int ws_reserve(mapf_workspace *ws, int32_t ncells, int32_t n) {
  if (ncells > ws->ncells) {
    int32_t *o = realloc(ws->occ, (size_t)ncells * sizeof *o);
    if (o) ws->occ = o;
    int32_t *w = realloc(ws->winner, (size_t)ncells * sizeof *w);
    if (w) ws->winner = w;
    if (!o || !w) return -1;
    for (int32_t c = ws->ncells; c < ncells; c++) ws->occ[c] = ws->winner[c] = -1;
    ws->ncells = ncells;
  }
  if (n > ws->nagents) {
    int32_t **arrays[5] = {&ws->pos, &ws->want, &ws->chain, &ws->prev, &ws->target};
    for (int k = 0; k < 5; k++) {
      int32_t *p = realloc(*arrays[k], (size_t)n * sizeof *p);
      if (!p) return -1;
      *arrays[k] = p;
    }
    uint8_t *s = realloc(ws->state, (size_t)n);
    if (!s) return -1;
    ws->state = s;
    ws->nagents = n;
  }
  return 0;
}

double mapf__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_seconds(void) { return mapf__now(); }

/* Executor states of an agent within one step. */
enum { EX_OPEN, EX_BUSY, EX_MOVED, EX_STAYED };

typedef struct exec_ctx {
  mapf__sim *sim;
  mapf_workspace *ws;
  const mapf__planner_vt *vt;
  void *state;
} exec_ctx;

static void move_agent(mapf__sim *sim, int32_t a, int32_t to) {
  int32_t from = sim->pos[a];
  int dir = mapf_grid_dir(sim->grid, from, to);
  sim->agent[a].travel_distance += mapf_dir_cost[dir];
  sim->occ[from] = -1;
  sim->occ[to] = a;
  sim->pos[a] = to;
}

/* Push (Sigurdson et al. 2018 Alg. 2 lines 8-9; docs/choices.md, bmaa): agent b stands on its goal
 * and blocks agent `by`; move b to a free neighbour. The papers do not say which; we choose
 * deterministically, preferring cells off the pusher's line of travel (the smallest dot product
 * between the push and the pusher's move, so sideways and backwards before straight ahead, where
 * b would block the pusher again), then cells nobody wants this step, then the order N, E, S,
 * W, NE, SE, SW, NW. Returns 1 when b was moved. */
static int try_push(exec_ctx *x, int32_t b, int32_t by) {
  mapf__sim *sim = x->sim;
  if (!sim->push || sim->pos[b] != sim->goal[b]) return 0;
  const mapf_grid *g = sim->grid;
  int32_t from = sim->pos[b];
  int mx = mapf_grid_x(g, from) - mapf_grid_x(g, sim->pos[by]);
  int my = mapf_grid_y(g, from) - mapf_grid_y(g, sim->pos[by]);
  uint8_t m = g->moves[from];
  int32_t best = -1;
  int best_score = 0;
  for (int d = 0; d < 8; d++) {
    if (!(m >> d & 1)) continue;
    int32_t c = from + g->offset[d];
    if (sim->occ[c] >= 0) continue;
    int score = 2 * (mx * mapf_dir_dx[d] + my * mapf_dir_dy[d]) + (x->ws->winner[c] >= 0);
    if (best < 0 || score < best_score) {
      best = c;
      best_score = score;
    }
  }
  if (best < 0) return 0;
  move_agent(sim, b, best);
  sim->agent[b].pushed++;
  x->ws->state[b] = EX_MOVED;
  if (x->vt->pushed) x->vt->pushed(sim, x->state, b);
  return 1;
}

static int wants_move(const mapf__sim *sim, int32_t a) {
  int32_t t = sim->want[a];
  return t != MAPF__WAIT && t != sim->pos[a];
}

/* docs/choices.md, Simulation: execution "chains": agent a waits for the agent holding its next
 * cell to be decided first; a chain of followers is resolved back to front, so it always moves; a
 * chain that closes on itself (a cycle) waits. The lowest-index agent wanting a cell is its only
 * candidate (winner[]). Iterative, so 10^5 agents in a corridor do not overflow the stack. */
static void execute_chains(exec_ctx *x) {
  mapf__sim *sim = x->sim;
  mapf_workspace *ws = x->ws;
  uint8_t *st = ws->state;
  int32_t *chain = ws->chain;
  for (int32_t a = 0; a < sim->n; a++) {
    if (st[a] != EX_OPEN) continue;
    int32_t len = 0;
    chain[len++] = a;
    st[a] = EX_BUSY;
    /* Outcome of the last agent of the chain: 1 moved, 0 stayed. */
    int moved;
    for (;;) {
      int32_t c = chain[len - 1];
      if (!wants_move(sim, c)) {
        moved = 0;
        st[c] = EX_STAYED;
        break;
      }
      int32_t t = sim->want[c];
      if (ws->winner[t] != c) { /* a lower index wants the same cell */
        moved = 0;
        sim->agent[c].failed_moves++;
        st[c] = EX_STAYED;
        break;
      }
      int32_t b = sim->occ[t];
      if (b < 0) {
        move_agent(sim, c, t);
        st[c] = EX_MOVED;
        moved = 1;
        break;
      }
      if (st[b] == EX_OPEN) {
        chain[len++] = b;
        st[b] = EX_BUSY;
        continue;
      }
      /* b is in this chain (a cycle) or has already stayed this step. */
      if (st[b] == EX_STAYED && try_push(x, b, c)) {
        move_agent(sim, c, t);
        st[c] = EX_MOVED;
        moved = 1;
      } else {
        sim->agent[c].failed_moves++;
        st[c] = EX_STAYED;
        moved = 0;
      }
      break;
    }
    /* Unwind: each earlier agent wanted the cell of the one after it. */
    for (int32_t k = len - 2; k >= 0; k--) {
      int32_t c = chain[k], b = chain[k + 1];
      int32_t t = sim->want[c];
      if (moved || (st[b] == EX_STAYED && try_push(x, b, c))) {
        move_agent(sim, c, t);
        st[c] = EX_MOVED;
        moved = 1;
      } else {
        sim->agent[c].failed_moves++;
        st[c] = EX_STAYED;
        moved = 0;
      }
    }
  }
}

/* The paper's executor (Sigurdson et al. 2018 Alg. 2 lines 5-15): one pass in agent order; an agent
 * moves only if its next cell is free at that moment. */
static void execute_single_pass(exec_ctx *x) {
  mapf__sim *sim = x->sim;
  uint8_t *st = x->ws->state;
  for (int32_t a = 0; a < sim->n; a++) {
    if (st[a] != EX_OPEN || !wants_move(sim, a)) continue;
    int32_t t = sim->want[a];
    int32_t b = sim->occ[t];
    if (b >= 0 && st[b] != EX_MOVED) try_push(x, b, a);
    if (sim->occ[t] < 0) {
      move_agent(sim, a, t);
      st[a] = EX_MOVED;
    } else {
      sim->agent[a].failed_moves++;
    }
  }
}

/* The direction of a legal move of the grid from `from` to `to`, or -1 when there is none.
 * Compares offsets instead of dividing for coordinates: a legal move lands on its neighbour,
 * so a match with a legal direction is that move. */
static int legal_dir(const mapf_grid *g, int32_t from, int32_t to) {
  uint8_t m = g->moves[from];
  int32_t delta = to - from;
  for (int d = 0; d < 8; d++)
    if ((m >> d & 1) && g->offset[d] == delta) return d;
  return -1;
}

/* The joint rule (sim.h, MAPF_EXEC_JOINT; Stern et al. 2019): want[] is one joint step, legal
 * when every move is a move of the grid, no two agents end on one cell and no two swap along an
 * edge. Checked in O(agents) with winner[] (the agent ending on each cell, -1 again on return),
 * chain[] (each agent's end cell) and state[] (the direction of each move); a legal step moves
 * every agent at once, so a rotation of three or more agents turns. Returns 0, or -1 when the
 * step is illegal: nothing moved (describe_illegal says why). */
static int execute_joint(exec_ctx *x) {
  mapf__sim *sim = x->sim;
  mapf_workspace *ws = x->ws;
  const mapf_grid *g = sim->grid;
  int32_t n = sim->n, *end = ws->chain, *winner = ws->winner;
  uint8_t *dir = ws->state;
  int bad = 0;
  for (int32_t a = 0; a < n; a++) {
    int32_t from = sim->pos[a], t = sim->want[a];
    end[a] = from;
    if (t != MAPF__WAIT && t != from) {
      int d = t >= 0 && t < g->ncells ? legal_dir(g, from, t) : -1;
      if (d < 0) {
        bad = 1;
        end[a] = -1;
        continue;
      }
      dir[a] = (uint8_t)d;
      end[a] = t;
    }
    if (winner[end[a]] >= 0)
      bad = 1;
    else
      winner[end[a]] = a;
  }
  for (int32_t a = 0; a < n && !bad; a++) {
    int32_t from = sim->pos[a], t = end[a];
    if (t == from) continue;
    int32_t b = sim->occ[t];
    if (b >= 0 && end[b] == from) bad = 1;
  }
  for (int32_t a = 0; a < n; a++)
    if (end[a] >= 0) winner[end[a]] = -1;
  if (bad) return -1;
  /* Every cell left first, then every cell entered: in a rotation one agent's cell is the next
   * one's target. */
  for (int32_t a = 0; a < n; a++)
    if (end[a] != sim->pos[a]) sim->occ[sim->pos[a]] = -1;
  for (int32_t a = 0; a < n; a++) {
    if (end[a] == sim->pos[a]) continue;
    sim->agent[a].travel_distance += mapf_dir_cost[dir[a]];
    sim->occ[end[a]] = a;
    sim->pos[a] = end[a];
  }
  return 0;
}

/* Why the joint step that execute_joint refused is illegal: the first illegal move by agent
 * index (a wait is never illegal: of an agent that stays and one that moves onto its cell, the
 * move is), written into msg. Only on the error path, so it may allocate. Also the check of a
 * plan made elsewhere (sim_int.h: external's). */
int mapf__joint_describe(const mapf__sim *sim, char *msg, size_t len) {
  const mapf_grid *g = sim->grid;
  int32_t n = sim->n;
  long long step = (long long)sim->time + 1;
  /* Every agent's end cell (-1: not a cell), and the first and second agent ending on each
   * cell. */
  int32_t *end = malloc((size_t)(n > 0 ? n : 1) * sizeof *end);
  int32_t *first = malloc((size_t)g->ncells * sizeof *first);
  int32_t *second = malloc((size_t)g->ncells * sizeof *second);
  snprintf(msg, len, "illegal joint step %lld", step);
  int found = 0;
  if (!end || !first || !second) {
    free(end);
    free(first);
    free(second);
    return 0;
  }
  for (int32_t c = 0; c < g->ncells; c++) first[c] = second[c] = -1;
  for (int32_t a = 0; a < n; a++) {
    int32_t t = sim->want[a];
    end[a] = t == MAPF__WAIT ? sim->pos[a] : t >= 0 && t < g->ncells ? t : -1;
    if (end[a] < 0) continue;
    if (first[end[a]] < 0)
      first[end[a]] = a;
    else if (second[end[a]] < 0)
      second[end[a]] = a;
  }
  for (int32_t a = 0; a < n; a++) {
    int32_t from = sim->pos[a], t = sim->want[a];
    if (t == MAPF__WAIT || t == from) continue;
    int fx = (int)mapf_grid_x(g, from), fy = (int)mapf_grid_y(g, from);
    if (end[a] < 0) {
      snprintf(msg, len,
               "illegal joint step %lld: agent %d from (%d,%d) to cell %lld: not a cell of the "
               "%dx%d map",
               step, (int)a, fx, fy, (long long)t, (int)g->width, (int)g->height);
      found = 1;
      break;
    }
    char why[160];
    int d = mapf_grid_dir(g, from, t);
    int32_t other = first[t] == a ? second[t] : first[t];
    int32_t b = sim->occ[t];
    if (d < 0)
      snprintf(why, sizeof why, "not a neighbouring cell");
    else if (!g->passable[t])
      snprintf(why, sizeof why, "a blocked cell");
    else if (!(g->moves[from] >> d & 1))
      snprintf(why, sizeof why, "a diagonal move past a blocked corner");
    else if (other >= 0)
      snprintf(why, sizeof why, "agent %d ends there too (%s (%d,%d))", (int)other,
               sim->pos[other] == t ? "staying on" : "moving from",
               (int)mapf_grid_x(g, sim->pos[other]), (int)mapf_grid_y(g, sim->pos[other]));
    else if (b >= 0 && end[b] == from)
      snprintf(why, sizeof why, "agent %d moves the other way along that edge (a swap)", (int)b);
    else
      continue;
    snprintf(msg, len, "illegal joint step %lld: agent %d from (%d,%d) to (%d,%d): %s", step,
             (int)a, fx, fy, (int)mapf_grid_x(g, t), (int)mapf_grid_y(g, t), why);
    found = 1;
    break;
  }
  free(end);
  free(first);
  free(second);
  return found;
}

#ifdef MAPF_CHECK_INVARIANTS
/* Debug builds (docs/design.md): after every step, every move is legal, no two agents share a cell,
 * and no two agents swapped. Aborts on a violation. */
static void check_step(const mapf__sim *sim, mapf_workspace *ws) {
  const mapf_grid *g = sim->grid;
  for (int32_t a = 0; a < sim->n; a++) {
    if (sim->occ[sim->pos[a]] != a) {
      fprintf(stderr, "invariant: agent %d not on its cell at t=%lld\n", (int)a,
              (long long)sim->time);
      abort();
    }
    int32_t from = ws->prev[a], to = sim->pos[a];
    if (from != to) {
      int d = mapf_grid_dir(g, from, to);
      if (d < 0 || !(g->moves[from] >> d & 1)) {
        fprintf(stderr, "invariant: agent %d made an illegal move\n", (int)a);
        abort();
      }
    }
    ws->winner[ws->prev[a]] = a;
  }
  for (int32_t a = 0; a < sim->n; a++) {
    int32_t b = ws->winner[sim->pos[a]];
    if (b >= 0 && b != a && sim->pos[b] == ws->prev[a] && ws->prev[a] != sim->pos[a]) {
      fprintf(stderr, "invariant: agents %d and %d swapped\n", (int)a, (int)b);
      abort();
    }
  }
  for (int32_t a = 0; a < sim->n; a++) ws->winner[ws->prev[a]] = -1;
}
#endif

/* Appends the coherence of the planner's direction map at the current step to the result's
 * series. Returns -1 when out of memory. */
static int sample_coherence(mapf_result *res, const mapf__sim *sim, const mapf__planner_vt *vt,
                            const void *state, int32_t *cap) {
  if (res->coherence_samples == *cap) {
    int32_t c = *cap ? 2 * *cap : 64;
    mapf_sample *p = realloc(res->coherence_series, (size_t)c * sizeof *p);
    if (!p) return -1;
    res->coherence_series = p;
    *cap = c;
  }
  res->coherence_series[res->coherence_samples++] =
      (mapf_sample){sim->time, vt->coherence(sim, state)};
  return 0;
}

/* Patrol (Jansen & Sturtevant 2008 Sec. 4): agent a has just reached its target. On its goal the
 * target becomes its start; on its start one loop is done and, unless that was the last, the target
 * is the goal again. Returns 1 when the target changed (the planner is told), 0 when the agent
 * has finished its last loop and stays (it has completed, like a one-way agent on its goal). */
static int patrol_turn(mapf__sim *sim, int32_t *target, const mapf_instance *inst, int32_t a,
                       const mapf__planner_vt *vt, void *state) {
  mapf_agent_result *ar = &sim->agent[a];
  if (target[a] == inst->goal[a]) {
    target[a] = inst->start[a];
  } else {
    ar->loops_done++;
    if (ar->loops_done == inst->loops) return 0;
    target[a] = inst->goal[a];
  }
  if (vt->retarget) vt->retarget(sim, state, a);
  if (sim->cfg->on_goal) sim->cfg->on_goal(sim->cfg->ud, sim->time, a, target[a]);
  return 1;
}

/* Events (docs/choices.md, Events): what a run with re-tasking events or lifelong goals keeps
 * beside the simulator's state. */
typedef struct events {
  int32_t next;      /* the next re-tasking event of the instance */
  int32_t *waiting;  /* per agent: 1 from a re-tasking event until it moves again */
  int64_t *exp0;     /* per agent: its expansions when the event came */
  double sum_exp;    /* expansions spent on events whose agent has moved again */
  int64_t done;      /* such events */
  int fresh;         /* the step about to be planned follows an event or a new task */
} events;

/* Agent a's goal becomes cell at the current step (an event or a lifelong task): what was
 * counted as reached is not any more, the planner is told (retarget), and a trace hears of
 * it. Returns the change in the agents on their goals. */
static int32_t set_goal(mapf__sim *sim, int32_t *target, int32_t a, int32_t cell,
                        const mapf__planner_vt *vt, void *state, double t0) {
  mapf_agent_result *ar = &sim->agent[a];
  int32_t delta = 0;
  if (sim->pos[a] == target[a]) {
    ar->completion_step = -1;
    ar->completion_seconds = -1;
    ar->completion_work = -1;
    delta--;
  }
  target[a] = cell;
  if (sim->pos[a] == cell) { /* given the cell it stands on: reached at once */
    ar->completion_step = sim->time;
    ar->completion_seconds = now_seconds() - t0;
    ar->completion_work = mapf__sim_work_ns(sim) * 1e-9;
    delta++;
  }
  if (vt->retarget) vt->retarget(sim, state, a);
  if (sim->cfg->on_goal) sim->cfg->on_goal(sim->cfg->ud, sim->time, a, cell);
  return delta;
}

/* Applies the re-tasking events of the current step. Returns the change in the agents on their
 * goals. */
static int32_t apply_events(mapf__sim *sim, int32_t *target, events *ev, mapf_result *res,
                            const mapf__planner_vt *vt, void *state, double t0) {
  const mapf_instance *inst = sim->cfg->inst;
  int32_t delta = 0;
  for (; ev->next < inst->nretask && inst->retask[ev->next].step == sim->time; ev->next++) {
    const mapf_retask *e = &inst->retask[ev->next];
    if (e->cell == target[e->agent]) continue;
    if (ev->waiting[e->agent]) { /* a second event before it moved: the first ends here */
      ev->sum_exp += (double)(sim->agent[e->agent].expansions - ev->exp0[e->agent]);
      ev->done++;
    }
    ev->waiting[e->agent] = 1;
    ev->exp0[e->agent] = sim->agent[e->agent].expansions;
    res->retasks++;
    ev->fresh = 1;
    delta += set_goal(sim, target, e->agent, e->cell, vt, state, t0);
  }
  return delta;
}

/* ---- map changes (docs/events.md) -------------------------------------------------------- */

/* What a run with map changes keeps: its own grid, whose components are those of every cell
 * open at some time of the run (so a distance table or a search knows a closed door's far side
 * is where the agent may yet go, and no cell leaves its component), and the closings that
 * wait for an agent to leave their cell. */
typedef struct changes {
  mapf_grid *grid;
  uint64_t tag;       /* the hash of the grid with every cell open: mixed into grid->hash */
  int32_t next;       /* the next change of the instance */
  int32_t *pending;   /* cells to close once empty, in the order their closing came */
  int32_t npending;
  int32_t *cells;     /* scratch: this step's cells (at most nchange + npending) */
  uint8_t *open;
  int fresh;          /* the step about to be planned follows a change */
  double sum_exp;     /* expansions of the steps planned right after a change */
  int64_t steps;      /* such steps */
} changes;

static void changes_free(changes *mc) {
  mapf_grid_free(mc->grid);
  free(mc->pending);
  free(mc->cells);
  free(mc->open);
}

/* The run's grid: g with the instance's opened cells open, finished (the components), then
 * closed again as in g. MAPF_OK or MAPF_ENOMEM. */
static int changes_begin(changes *mc, const mapf_grid *g, const mapf_instance *inst) {
  memset(mc, 0, sizeof *mc);
  size_t m = (size_t)inst->nchange;
  mc->pending = malloc(m * sizeof *mc->pending);
  mc->cells = malloc(m * sizeof *mc->cells);
  mc->open = malloc(m);
  mapf_grid *r = mc->grid = mapf_grid_new(g->width, g->height, g->name);
  if (!r || !mc->pending || !mc->cells || !mc->open) return MAPF_ENOMEM;
  r->connectivity = g->connectivity;
  memcpy(r->passable, g->passable, (size_t)g->ncells);
  for (int32_t k = 0; k < inst->nchange; k++)
    if (inst->change[k].open) r->passable[inst->change[k].cell] = 1;
  if (mapf_grid_finish(r) != MAPF_OK) return MAPF_ENOMEM;
  mc->tag = r->hash;
  int32_t n = 0;
  for (int32_t k = 0; k < inst->nchange; k++) {
    int32_t c = inst->change[k].cell;
    if (r->passable[c] && !g->passable[c]) {
      mc->cells[n] = c;
      mc->open[n++] = 0;
      r->passable[c] = 2; /* listed once */
    }
  }
  for (int32_t i = 0; i < n; i++) r->passable[mc->cells[i]] = 1;
  mapf_grid_set_cells(r, mc->cells, mc->open, n);
  r->hash = mapf_mix64(r->hash ^ mc->tag);
  return MAPF_OK;
}

/* Under map changes each planner keeps its agents out of closed cells (map_changed). Should
 * one still ask for a move the map no longer has, the agent waits (a failed move); an
 * invariant build aborts, as for any illegal move. */
static void guard_moves(mapf__sim *sim) {
  const mapf_grid *g = sim->grid;
  for (int32_t a = 0; a < sim->n; a++) {
    int32_t to = sim->want[a], from = sim->pos[a];
    if (to == MAPF__WAIT || to == from) continue;
    int dir = mapf_grid_dir(g, from, to);
    if (dir >= 0 && (g->moves[from] >> dir & 1)) continue;
#ifdef MAPF_CHECK_INVARIANTS
    fprintf(stderr, "invariant: agent %d asked for a move the changed map has not, t=%lld\n",
            (int)a, (long long)sim->time);
    abort();
#endif
    sim->want[a] = MAPF__WAIT;
    sim->agent[a].failed_moves++;
  }
}

/* Applies the map changes of the current step and the closings that waited for an agent to
 * leave. Rule (docs/events.md): a cell closes only when no agent stands on it; until then it
 * stays open and its closing waits (an opening of the cell cancels it). The planner hears of
 * every cell that changed (map_changed). Returns MAPF_OK or MAPF_ENOMEM. */
static int apply_changes(mapf__sim *sim, changes *mc, mapf_result *res,
                         const mapf__planner_vt *vt, void *state) {
  const mapf_instance *inst = sim->cfg->inst;
  mapf_grid *r = mc->grid;
  int32_t n = 0;
  for (; mc->next < inst->nchange && inst->change[mc->next].step == sim->time; mc->next++) {
    const mapf_mapchange *e = &inst->change[mc->next];
    int32_t c = e->cell, i = 0;
    while (i < mc->npending && mc->pending[i] != c) i++;
    if (i < mc->npending) { /* a closing waits: a change of this cell replaces it */
      memmove(mc->pending + i, mc->pending + i + 1,
              (size_t)(mc->npending - i - 1) * sizeof *mc->pending);
      mc->npending--;
    }
    int32_t j = 0; /* a change of the same cell earlier in this step: undone */
    while (j < n && mc->cells[j] != c) j++;
    if (j < n) {
      memmove(mc->cells + j, mc->cells + j + 1, (size_t)(n - j - 1) * sizeof *mc->cells);
      memmove(mc->open + j, mc->open + j + 1, (size_t)(n - j - 1));
      n--;
    }
    if ((r->passable[c] != 0) == (e->open != 0)) continue;
    if (!e->open && sim->occ[c] >= 0) {
      mc->pending[mc->npending++] = c;
      continue;
    }
    mc->cells[n] = c;
    mc->open[n++] = (uint8_t)(e->open != 0);
  }
  /* Closings that waited: those whose cell is empty now. */
  int32_t kept = 0;
  for (int32_t i = 0; i < mc->npending; i++) {
    int32_t c = mc->pending[i];
    if (sim->occ[c] >= 0) {
      mc->pending[kept++] = c;
    } else {
      mc->cells[n] = c;
      mc->open[n++] = 0;
    }
  }
  mc->npending = kept;
  if (n == 0) return MAPF_OK;
  mapf_grid_set_cells(r, mc->cells, mc->open, n);
  r->hash = mapf_mix64(r->hash ^ mc->tag);
  res->map_changes += n;
  for (int32_t i = 0; sim->cfg->on_cell && i < n; i++)
    sim->cfg->on_cell(sim->cfg->ud, sim->time, mc->cells[i], mc->open[i]);
  mc->fresh = 1;
  return vt->map_changed(sim, state, mc->cells, n);
}

/* ---- lower bounds (sim.h, soc_lb) ------------------------------------------------------- */

/* Each agent's bound is one search of the moves of a shortest path from its start to its goal
 * (mapf_shortest_moves, landmark.h: A* with unit costs, the coordinate bound and, once the
 * workspace has them for the map, the differential heuristic of LB_LANDMARKS landmarks). On
 * den520d with 1,000 random agents the coordinate bound alone expands 3.4 million cells (85 ms
 * of CPU), with 8 landmarks 0.28 million (20 ms, making their tables included). The tables are
 * made at once for a run of LB_LANDMARK_AGENTS agents or more; for fewer, once the searches
 * without them on one map have expanded LB_RENT times its cells, about what making them costs
 * (a rent-or-buy rule: never much more than twice the better choice's time), so a sweep of
 * single-agent jobs on one map (rths-sweep.yaml: 1,000 configurations on each problem) soon
 * has them. The workspace keeps them for its next runs on a map of the same moves, compared
 * byte for byte. The bounds are exact shortest distances either way: the landmarks change the
 * time only, never a value. */
#define LB_LANDMARKS 8
#define LB_LANDMARK_AGENTS 64
#define LB_RENT 4

/* Makes g the workspace's map of the lower bounds: kept, with what the workspace holds for it,
 * when its moves are the last map's (every byte: they are all the searches read of a map);
 * else copied, with no landmarks, nothing spent and no instance remembered. Returns 0, or -1
 * when g is too large for landmarks or memory is short (then neither landmarks nor memo). */
static int lb_map_begin(mapf_workspace *ws, const mapf_grid *g) {
  if ((size_t)g->ncells * LB_LANDMARKS * sizeof(uint16_t) > MAPF_LANDMARK_BYTES ||
      g->ncomponents < 1)
    return -1;
  if (ws->lb_moves && ws->lb_map_cells == g->ncells && ws->lb_map_width == g->width &&
      memcmp(ws->lb_moves, g->moves, (size_t)g->ncells) == 0)
    return 0;
  mapf_landmarks_free(ws->lb_lm);
  ws->lb_lm = NULL;
  ws->lb_spent = 0;
  ws->lb_memo_n = -1;
  ws->lb_map_cells = 0;
  uint8_t *m = realloc(ws->lb_moves, (size_t)g->ncells);
  if (!m) return -1;
  memcpy(m, g->moves, (size_t)g->ncells);
  ws->lb_moves = m;
  ws->lb_map_width = g->width;
  ws->lb_map_cells = g->ncells;
  return 0;
}

/* soc_lb and makespan_lb of the run's instance (sim.h). Returns MAPF_OK or MAPF_ENOMEM. */
static int lower_bounds(mapf_workspace *ws, const mapf_grid *g, const mapf_instance *inst,
                        mapf_result *res) {
  res->soc_lb = res->makespan_lb = -1;
  if (!ws->lb_search && !(ws->lb_search = mapf_moves_search_new())) return MAPF_ENOMEM;
  int known = inst->n > 0 && lb_map_begin(ws, g) == 0, landmarks = known;
  size_t bytes = (size_t)inst->n * sizeof *inst->start;
  if (known && ws->lb_memo_n == inst->n && ws->lb_memo_loops == inst->loops &&
      memcmp(ws->lb_memo, inst->start, bytes) == 0 &&
      memcmp(ws->lb_memo + inst->n, inst->goal, bytes) == 0) {
    res->soc_lb = ws->lb_memo_soc;
    res->makespan_lb = ws->lb_memo_makespan;
    return MAPF_OK;
  }
  int64_t loops = inst->loops > 0 ? 2 * (int64_t)inst->loops : 1;
  int64_t sum = 0, max = 0;
  for (int32_t a = 0; a < inst->n; a++) {
    /* Out of memory for the tables: the searches are only slower. */
    if (landmarks && !ws->lb_lm &&
        (inst->n >= LB_LANDMARK_AGENTS || ws->lb_spent >= LB_RENT * (int64_t)g->ncells) &&
        !(ws->lb_lm = mapf_landmarks_new(g, LB_LANDMARKS)))
      landmarks = 0;
    const mapf_landmarks *lm = landmarks ? ws->lb_lm : NULL;
    int64_t expanded = 0;
    int64_t d = mapf_shortest_moves(ws->lb_search, g, lm, inst->start[a], inst->goal[a], NULL,
                                    NULL, &expanded);
    if (!lm) ws->lb_spent += expanded;
    if (d == -2) return MAPF_ENOMEM;
    if (d < 0) return MAPF_OK; /* unreachable: no bound (mapf_instance_check rules it out) */
    sum += loops * d;
    if (loops * d > max) max = loops * d;
  }
  res->soc_lb = sum;
  res->makespan_lb = max;
  ws->lb_memo_n = -1;
  if (known && inst->n <= INT32_MAX / 2) {
    if (2 * inst->n > ws->lb_memo_cap) {
      int32_t *p = realloc(ws->lb_memo, 2 * bytes);
      if (!p) return MAPF_OK; /* nothing remembered: the next run searches */
      ws->lb_memo = p;
      ws->lb_memo_cap = 2 * inst->n;
    }
    memcpy(ws->lb_memo, inst->start, bytes);
    memcpy(ws->lb_memo + inst->n, inst->goal, bytes);
    ws->lb_memo_n = inst->n;
    ws->lb_memo_loops = inst->loops;
    ws->lb_memo_soc = sum;
    ws->lb_memo_makespan = max;
  }
  return MAPF_OK;
}

static void fail(mapf_result *res, mapf_diag *d, int rc, const char *what) {
  res->status = MAPF_STATUS_ERROR;
  if (d && d->msg[0])
    snprintf(res->message, sizeof res->message, "%.*s", (int)sizeof res->message - 1, d->msg);
  else
    snprintf(res->message, sizeof res->message, "%s", what ? what : mapf_strerror(rc));
}

int mapf_run(mapf_workspace *ws, const mapf_run_config *cfg, mapf_result *res, mapf_diag *d) {
  double t0 = now_seconds();
  memset(res, 0, sizeof *res);
  res->soc_lb = res->makespan_lb = -1;
  res->solver_seconds = NAN;
  if (d) d->msg[0] = '\0';
  const mapf_grid *g = cfg->grid;
  const mapf_instance *inst = cfg->inst;
  int32_t n = inst->n;
  res->agents = n;
  int rc = mapf_instance_check(inst, g, d);
  if (rc == MAPF_OK) rc = mapf_params_check(cfg->algo, &cfg->params, d);
  if (rc == MAPF_OK && cfg->limits.steps < 1)
    rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "limits: steps must be >= 1");
  if (rc == MAPF_OK && cfg->limits.work > 0 && !mapf_work_model_set(&cfg->algo->work))
    rc = mapf_diag_set(d, MAPF_EUNSUPPORTED, NULL, 0, 0,
                       "limits: work: algorithm %s has no work model", cfg->algo->name);
  mapf_execution execution = mapf_algo_execution(cfg->algo, cfg->execution);
  if (rc == MAPF_OK && execution == MAPF_EXEC_JOINT && !cfg->algo->joint)
    rc = mapf_diag_set(d, MAPF_EUNSUPPORTED, NULL, 0, 0,
                       "execution joint: algorithm %s plans each agent on its own and runs "
                       "under chains or single-pass",
                       cfg->algo->name);
  if (rc == MAPF_OK && inst->nchange > 0 && !cfg->algo->vt->map_changed)
    rc = mapf_diag_set(d, MAPF_EUNSUPPORTED, NULL, 0, 0,
                       "map changes: algorithm %s does not react to them", cfg->algo->name);
  if (rc != MAPF_OK) {
    fail(res, d, rc, NULL);
    return rc;
  }
  res->agent = calloc((size_t)n, sizeof *res->agent);
  if (!res->agent || ws_reserve(ws, g->ncells, n) < 0) {
    fail(res, d, MAPF_ENOMEM, NULL);
    return MAPF_ENOMEM;
  }

  mapf__sim sim = {0};
  sim.grid = g;
  sim.cfg = cfg;
  sim.n = n;
  int32_t *target = ws->target;
  memcpy(target, inst->goal, (size_t)n * sizeof *target);
  sim.goal = target;
  int32_t loops = inst->loops;
  res->loops = loops;
  sim.pos = ws->pos;
  sim.occ = ws->occ;
  sim.want = ws->want;
  sim.agent = res->agent;
  sim.search = &ws->search;
  sim.dist = &ws->dist;
  sim.execution = execution;
  sim.solver_seconds = NAN;
  mapf_rng_seed(&sim.rng, cfg->seed);
  if (cfg->limits.seconds > 0) sim.deadline = t0 + cfg->limits.seconds;
  sim.max_expansions = cfg->limits.expansions;
  sim.work = cfg->algo->work;
  sim.max_work_ns = cfg->limits.work * 1e9;
  /* Lifelong goals: who gets which task of a task list (events.h). */
  mapf_tasks tasks;
  if (mapf_tasks_begin(&tasks, inst) != MAPF_OK) {
    fail(res, d, MAPF_ENOMEM, NULL);
    return MAPF_ENOMEM;
  }
  events ev = {0};
  changes mc = {0};
  if (inst->nretask > 0) {
    ev.waiting = calloc((size_t)n, sizeof *ev.waiting);
    ev.exp0 = calloc((size_t)n, sizeof *ev.exp0);
  }
  if ((inst->nretask > 0 && (!ev.waiting || !ev.exp0)) ||
      (inst->nchange > 0 && changes_begin(&mc, g, inst) != MAPF_OK)) {
    free(ev.waiting);
    free(ev.exp0);
    changes_free(&mc);
    mapf_tasks_end(&tasks);
    fail(res, d, MAPF_ENOMEM, NULL);
    return MAPF_ENOMEM;
  }
  /* Under map changes the planners see the run's own grid (lifelong tasks are drawn on g). */
  if (mc.grid) sim.grid = mc.grid;
  /* Lifelong: an agent that starts on its goal has finished task 0 and starts on task 1 (one
   * whose list has no task left for it stays, on its goal). */
  for (int32_t a = 0; inst->lifelong && a < n; a++)
    if (inst->start[a] == target[a] && !mapf_tasks_idle(&tasks, a)) {
      int64_t k = 1;
      int32_t next = mapf_tasks_next(&tasks, g, inst, a, &k, target[a]);
      res->agent[a].tasks_done = k;
      res->tasks_done += k;
      if (next >= 0) target[a] = next;
    }
  int32_t at_goal = 0;
  for (int32_t a = 0; a < n; a++) {
    sim.pos[a] = inst->start[a];
    sim.occ[inst->start[a]] = a;
    mapf_agent_result *ar = &res->agent[a];
    ar->start = inst->start[a];
    ar->goal = inst->goal[a];
    ar->completion_step = -1;
    ar->completion_seconds = -1;
    ar->completion_work = -1;
    if (inst->start[a] == target[a]) {
      ar->completion_step = 0;
      ar->completion_seconds = 0;
      ar->completion_work = 0;
      at_goal++;
    }
  }

  const mapf__planner_vt *vt = cfg->algo->vt;
  void *state = NULL;
  double s0 = now_seconds();
  rc = vt->init(&sim, &state, d);
  res->setup_seconds = now_seconds() - s0;
  res->solver_seconds = sim.solver_seconds;
  if (execution == MAPF_EXEC_JOINT) sim.push = 0;
  if (rc != MAPF_OK) {
    for (int32_t a = 0; a < n; a++) sim.occ[sim.pos[a]] = -1;
    free(ev.waiting);
    free(ev.exp0);
    changes_free(&mc);
    mapf_tasks_end(&tasks);
    fail(res, d, rc, NULL);
    return rc;
  }
  exec_ctx x = {&sim, ws, vt, state};
  int sampling = cfg->sample_every > 0 && vt->coherence;
  int32_t series_cap = 0;
  if (sampling && sample_coherence(res, &sim, vt, state, &series_cap) < 0) rc = MAPF_ENOMEM;
  if (cfg->on_step) cfg->on_step(cfg->ud, 0, sim.pos, n);

  mapf_limit_kind limit = MAPF_LIMIT_NONE;
  char illegal[sizeof res->message] = ""; /* an illegal joint step, for a caller without d */
  res->max_event_step_seconds = NAN;
  while (rc == MAPF_OK) {
    if (ev.waiting) at_goal += apply_events(&sim, target, &ev, res, vt, state, t0);
    if (mc.grid && (rc = apply_changes(&sim, &mc, res, vt, state)) != MAPF_OK) break;
    /* Done when every agent is on its goal and no event is to come (map changes to come
     * change nothing for agents on their goals). */
    if (at_goal == n && ev.next == inst->nretask) break;
    if (sim.time >= cfg->limits.steps) {
      limit = MAPF_LIMIT_STEPS;
      break;
    }
    /* sim.deadline, not cfg->limits: a planner that spent the limit in its set-up on a plan
     * made elsewhere (external's solver) lifts it for the plan's execution. */
    if (sim.deadline > 0 && now_seconds() >= sim.deadline) {
      limit = MAPF_LIMIT_SECONDS;
      break;
    }
    if (cfg->limits.expansions > 0 && sim.expansions >= cfg->limits.expansions) {
      limit = MAPF_LIMIT_EXPANSIONS;
      break;
    }
    if (sim.max_work_ns > 0 && mapf__sim_work_ns(&sim) >= sim.max_work_ns) {
      limit = MAPF_LIMIT_WORK;
      break;
    }

    /* Search phase (Alg. 2 lines 2-4). */
    sim.begun = sim.time + 1;
    int64_t e0 = sim.expansions;
    double p0 = now_seconds();
    rc = vt->plan(&sim, state);
    double p1 = now_seconds();
    if (rc != MAPF_OK) break;
    if (mc.fresh) {
      mc.sum_exp += (double)(sim.expansions - e0);
      mc.steps++;
      ev.fresh = 1;
      mc.fresh = 0;
    }
    res->planning_seconds += p1 - p0;
    if (p1 - p0 > res->max_step_planning_seconds) res->max_step_planning_seconds = p1 - p0;
    if (ev.fresh && !(p1 - p0 <= res->max_event_step_seconds)) /* NaN at first */
      res->max_event_step_seconds = p1 - p0;
    ev.fresh = 0;
    if (sim.expired) {
      /* A limit passed during the search phase: the step is not executed. */
      limit = (mapf_limit_kind)sim.expired;
      break;
    }

    /* Execution phase (Alg. 2 lines 5-15; under the joint rule the planner's joint step). */
    if (execution == MAPF_EXEC_JOINT) {
      memcpy(ws->prev, sim.pos, (size_t)n * sizeof *ws->prev);
      if (execute_joint(&x) < 0) {
        mapf__joint_describe(&sim, illegal, sizeof illegal);
        rc = mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "%s", illegal);
        break;
      }
    } else {
      if (mc.grid) guard_moves(&sim);
      for (int32_t a = 0; a < n; a++) {
        ws->state[a] = EX_OPEN;
        ws->prev[a] = sim.pos[a];
        if (wants_move(&sim, a) && ws->winner[sim.want[a]] < 0) ws->winner[sim.want[a]] = a;
      }
      if (execution == MAPF_EXEC_SINGLE_PASS)
        execute_single_pass(&x);
      else
        execute_chains(&x);
      for (int32_t a = 0; a < n; a++)
        if (sim.want[a] != MAPF__WAIT) ws->winner[sim.want[a]] = -1;
    }
    sim.time++;
#ifdef MAPF_CHECK_INVARIANTS
    check_step(&sim, ws);
#endif
    if (vt->moved && (rc = vt->moved(&sim, state, ws->prev)) != MAPF_OK) break;

    /* Completion: the step at which an agent last reached its goal; under patrol, the step its
     * last loop ended (or it last came back to its start after that). */
    double now = -1;
    for (int32_t a = 0; a < n; a++) {
      if (ws->prev[a] == sim.pos[a]) continue;
      mapf_agent_result *ar = &res->agent[a];
      if (ev.waiting && ev.waiting[a]) {
        ev.sum_exp += (double)(ar->expansions - ev.exp0[a]);
        ev.done++;
        ev.waiting[a] = 0;
      }
      if (inst->lifelong && sim.pos[a] == target[a] && !mapf_tasks_idle(&tasks, a)) {
        int64_t k = ar->tasks_done + 1;
        int32_t next = mapf_tasks_next(&tasks, g, inst, a, &k, target[a]);
        res->tasks_done += k - ar->tasks_done;
        ar->tasks_done = k;
        if (next >= 0) {
          set_goal(&sim, target, a, next, vt, state, t0);
          ev.fresh = 1;
          continue;
        }
        /* Its list has no task left for it: it stays, on its goal from now on (below). */
      }
      if (sim.pos[a] == target[a]) {
        if (loops > 0 && ar->loops_done < loops && patrol_turn(&sim, target, inst, a, vt, state))
          continue;
        if (now < 0) now = now_seconds() - t0;
        ar->completion_step = sim.time;
        ar->completion_seconds = now;
        ar->completion_work = mapf__sim_work_ns(&sim) * 1e-9;
        at_goal++;
      } else if (ws->prev[a] == target[a]) {
        ar->completion_step = -1;
        ar->completion_seconds = -1;
        ar->completion_work = -1;
        at_goal--;
      }
    }
    if (sampling && sim.time % cfg->sample_every == 0 &&
        sample_coherence(res, &sim, vt, state, &series_cap) < 0) {
      rc = MAPF_ENOMEM;
      break;
    }
    if (cfg->on_step) cfg->on_step(cfg->ud, sim.time, sim.pos, n);
  }
  res->coherence = rc == MAPF_OK && vt->coherence ? vt->coherence(&sim, state) : NAN;
  for (int32_t a = 0; ev.waiting && a < n; a++)
    if (ev.waiting[a]) { /* never moved again: everything since the event */
      ev.sum_exp += (double)(res->agent[a].expansions - ev.exp0[a]);
      ev.done++;
    }
  res->mean_retask_expansions = ev.done ? ev.sum_exp / (double)ev.done : NAN;
  res->mean_change_expansions = mc.steps ? mc.sum_exp / (double)mc.steps : NAN;
  free(ev.waiting);
  free(ev.exp0);
  mapf_tasks_end(&tasks);
  vt->free(state);
  changes_free(&mc);
  sim.grid = g;
  /* The bounds are the one-shot problem's on its map: goals that change as the run goes, and
   * a map that changes, have none. */
  if (rc == MAPF_OK && !cfg->no_bounds && inst->nretask == 0 && !inst->lifelong &&
      inst->nchange == 0)
    rc = lower_bounds(ws, g, inst, res);
  mapf__dist_trim(&ws->dist, MAPF_DIST_CACHE_BYTES);
  for (int32_t a = 0; a < n; a++) sim.occ[sim.pos[a]] = -1;
  if (rc != MAPF_OK) {
    fail(res, d, rc, illegal[0] ? illegal : NULL);
    return rc;
  }

  /* Metrics (docs/choices.md, Simulation). */
  res->wall_seconds = now_seconds() - t0;
  res->steps = sim.time;
  res->expansions = sim.expansions;
  res->work_seconds = mapf__sim_work_ns(&sim) * 1e-9;
  res->deadlocks_broken = sim.deadlocks_broken;
  res->limit = limit;
  res->status = limit == MAPF_LIMIT_NONE ? MAPF_STATUS_OK : MAPF_STATUS_LIMIT;
  double cap_seconds = cfg->limits.seconds > 0 ? cfg->limits.seconds : res->wall_seconds;
  double sum_steps = 0, sum_secs = 0, sum_work = 0, sum_dist = 0, sum_ratio = 0;
  int32_t nratio = 0;
  for (int32_t a = 0; a < n; a++) {
    mapf_agent_result *ar = &res->agent[a];
    ar->final = sim.pos[a];
    if (inst->nretask > 0 || inst->lifelong) ar->goal = target[a];
    ar->optimal_distance = inst->optimal ? inst->optimal[a] : NAN;
    /* Under patrol an agent stands on its target only once its loops are done. */
    ar->reached = sim.pos[a] == target[a] && (loops == 0 || ar->loops_done == loops);
    res->loops_done += ar->loops_done;
    sum_dist += ar->travel_distance;
    res->failed_moves += ar->failed_moves;
    res->pushes += ar->pushed;
    res->searches += ar->searches;
    if (ar->reached) {
      res->completed++;
      sum_steps += (double)ar->completion_step;
      sum_secs += ar->completion_seconds;
      sum_work += ar->completion_work;
      if (ar->optimal_distance > 0) { /* false for NaN */
        /* A patrol covers the start-goal distance twice per loop. */
        double best = loops > 0 ? 2.0 * loops * ar->optimal_distance : ar->optimal_distance;
        sum_ratio += ar->travel_distance / best;
        nratio++;
      }
    }
  }
  res->suboptimality = nratio ? sum_ratio / nratio : NAN;
  res->solved = res->completed == n;
  res->soc = res->makespan = -1;
  if (res->solved) {
    res->soc = res->makespan = 0;
    for (int32_t a = 0; a < n; a++) {
      int64_t t = res->agent[a].completion_step;
      res->soc += t;
      if (t > res->makespan) res->makespan = t;
    }
  }
  res->throughput = inst->lifelong && res->steps > 0 ? (double)res->tasks_done / res->steps : NAN;
  res->completion_rate = n ? (double)res->completed / n : 1.0;
  res->mean_completion_steps = res->completed ? sum_steps / res->completed : NAN;
  res->mean_completion_seconds = res->completed ? sum_secs / res->completed : NAN;
  int32_t open = n - res->completed;
  res->mean_completion_steps_capped = n ? (sum_steps + (double)open * (double)res->steps) / n : NAN;
  res->mean_completion_steps_at_limit =
      n ? (sum_steps + (double)open * (double)cfg->limits.steps) / n : NAN;
  res->mean_completion_work_at_limit =
      n && cfg->limits.work > 0 ? (sum_work + open * cfg->limits.work) / n : NAN;
  res->mean_completion_seconds_capped = n ? (sum_secs + open * cap_seconds) / n : NAN;
  res->mean_travel_distance = n ? sum_dist / n : NAN;
  res->failed_moves_per_loop =
      loops > 0 && n > 0 ? (double)res->failed_moves / ((double)n * loops) : NAN;
  return MAPF_OK;
}
