/* rths.c: parametrized real-time heuristic search (thesis Sigurdson 2018, Ch. 4, Algorithm 1, lines
 * 280-295; Bulitko 2016): lookahead 1, learning rule with weights w and wc, lateral learning
 * over the b fraction of the neighbourhood combined by lop, depression avoidance (da) and
 * pruning of expendable nodes (expendable); rths_params below.
 *
 * One step of one agent at n = n_current != goal, per line of Algorithm 1:
 *   L(n): the neighbours the agent's search graph still has: legal moves of the grid (no corner
 *         cutting) to cells this agent has not pruned. No self-loop: in single-agent search the
 *         agent cannot wait (thesis line 182).
 *   4-5   da: L(n) <- the members of L(n) with the least learning |h - h0| (thesis line 262;
 *         h never falls below h0, so h - h0), amounts within EPS of the least counting as
 *         least. As written, the restricted L is the one lines 7 and 10 use (the thesis's
 *         "temporarily": for this step only).
 *   6     h_prev <- h(n).
 *   7     h(n) <- max{h(n), w * lop over L_b^f(n) of (wc c(n, n') + h(n'))}. L_b^f (eq. 4.1,
 *         lines 264-270) is the max(1, floor(b |L| + 1e-9)) members of L with the lowest f;
 *         the thesis does not define f there: we take f(n') = wc c(n, n') + h(n'), the value
 *         lop combines, so lop = min gives weighted LRTA*'s rule (Rivera et al.) for every b and
 *         b = 0 gives it for every lop. The 1e-9 keeps products such as 0.6 * 5 at 3 and b = 0
 *         gives one member ("the single neighbour with lowest f", line 270). lop: min, mean
 *         (arithmetic, the thesis's "avg"), median (of an even count: the mean of the two
 *         middle values), max. h only rises when the new value exceeds h(n) by more than EPS,
 *         so rounding (1 + octile(n') against octile(n) on open ground) is never taken for
 *         learning, which lines 8 and 5 would then act on.
 *   8-9   expendable, learning happened at line 7, and n is expendable: n leaves this agent's
 *         search graph. Expendable (line 272; Sharon, Sturtevant & Felner 2013): the neighbours
 *         of n that are still in the graph are connected to each other by grid edges among
 *         themselves, without n. Only connectivity, as the thesis says, not distances. Removing
 *         such a node never disconnects the remaining graph (a path through n goes around it
 *         among its neighbours), and the goal is never removed (the agent stops there), so
 *         the goal stays reachable from every node left; a node with no neighbour left is not
 *         expendable.
 *   10    n <- argmin over L(n) of c(n, n') + h(n') (unweighted, as written; after line 7, which
 *         changed only h(n)). Ties (within EPS) go to the neighbour the agent stood on least
 *         recently (never first), then to the first in the grid's direction order N, E, S, W,
 *         NE, SE, SW, NW (straight moves first). The thesis leaves ties open. Recency matters
 *         where h saturates: with w > 1 and lop = max or mean over b > 0, h can grow by a
 *         factor near w per step (lop takes in the cell the agent came from) and reaches +inf
 *         after a few hundred steps; exactly, the least recently raised of such neighbours
 *         would have the lowest h, and recency is what is left to tell them apart once they are
 *         infinite. Broken by direction alone, an agent paces between two infinite cells for
 *         ever (tests/test_rths.c, mazes). No NaN can arise: no infinity is subtracted from
 *         another.
 *
 * LRTA* (Korf 1990) with lookahead 1 is w = 1, wc = 1, lop = min or b = 0, da = false,
 * expendable = false: the defaults. Its rule h(n) <- max{h(n), min (c + h)} is Korf's, since
 * the octile h0 is consistent and LRTA* keeps it so.
 *
 * h0 is the octile distance (thesis line 168: h(goal) = 0, and the goal is never updated).
 * Learned values, pruned nodes and the last visit are kept per agent, sparsely (as in bmaa.c:
 * only the cells the agent has stood on are stored), in one open-addressing table per agent.
 * Values are doubles: weights and means leave the exact a + b sqrt(2) costs of search_int.h.
 *
 * Under the simulator: every agent runs Algorithm 1 on its own, on the static map; other
 * agents are not obstacles to its planning (the thesis's algorithm is single-agent, line 182).
 * The executor applies the simulator's rule (docs/choices.md, Simulation): a move into a cell
 * that is occupied fails and the agent stays (thesis line 172); next step it plans again from
 * the same node, where line 7 does not change h again (it reads only the neighbours), so it
 * wants the same move until the way clears. An agent parked on its goal does not plan and
 * waits. Each planning step of an agent counts one expansion (n's neighbours are generated)
 * and one search. With several agents an agent may wait behind another for ever: the thesis
 * studies this algorithm with one agent per problem. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "cellmap.h"
#include "sim_int.h"

/* Costs and learned values closer than this compare equal (docs/choices.md, Grid). */
#define EPS 1e-9

/* Parameters (Sigurdson 2018 thesis, Ch. 4, Algorithm 1; Bulitko 2016). Ranges are the
 * thesis's (line 303) where it gives them: w in [1, 10], b in [0, 1], lop, da, expendable. It
 * gives none for wc (not among line 303's five parameters): [1, 10] like w, and >= 1 so that
 * the learned h(n) is never below c + h of the node the agent moves to. lop's choices are
 * named min, mean, median, max (the thesis says avg at line 303 and mean at line 264). The
 * defaults are LRTA* with lookahead 1 (see above). */
enum { LOP_MIN, LOP_MEAN, LOP_MEDIAN, LOP_MAX }; /* the order of rths_lop */
static const char *const rths_lop[] = {"min", "mean", "median", "max", NULL};

typedef struct rths_params {
  double w, wc, b;
  int32_t lop; /* LOP_MIN .. LOP_MAX */
  bool da, expendable;
} rths_params;

static const mapf_param_def rths_param_table[] = {
    {"w", MAPF_PARAM_REAL, 1, 10, 1, "weight of the learned value: h(n) >= w * lop(...)", NULL,
     offsetof(rths_params, w)},
    {"wc", MAPF_PARAM_REAL, 1, 10, 1,
     "weight of the edge cost in learning: lop of wc * c(n, n') + h(n')", NULL,
     offsetof(rths_params, wc)},
    {"b", MAPF_PARAM_REAL, 0, 1, 0,
     "lateral learning: lop combines the b fraction of the neighbours with the lowest "
     "wc * c + h (0: the lowest one)",
     NULL, offsetof(rths_params, b)},
    {"lop", MAPF_PARAM_ENUM, 0, 0, LOP_MIN,
     "learning operator over those neighbours: min, mean, median or max", rths_lop,
     offsetof(rths_params, lop)},
    {"da", MAPF_PARAM_BOOL, 0, 1, 0,
     "depression avoidance: consider only the neighbours with the least learning |h - h0|",
     NULL, offsetof(rths_params, da)},
    {"expendable", MAPF_PARAM_BOOL, 0, 1, 0,
     "prune the current node from the agent's graph when it learned and its neighbours stay "
     "connected without it",
     NULL, offsetof(rths_params, expendable)},
};

/* What one agent knows of the cells it has stood on, in a sparse table (cellmap.h). Only those
 * cells are stored (every other cell has h = h0, never visited, not pruned): learning, pruning
 * and visits happen only at n_current. */
typedef struct rslot {
  int32_t key; /* -1 = empty */
  int32_t pruned;
  double h;
  int64_t visited; /* the last step at which the agent planned here */
} rslot;

static inline const rslot *rmap_get(const mapf__cellmap *m, int32_t key) {
  return mapf__cellmap_find(m, sizeof(rslot), key);
}

/* The slot of key, inserted (h = h0, not pruned) when absent; NULL when out of memory. */
static rslot *rmap_put(mapf__cellmap *m, int32_t key, double h0) {
  int fresh;
  rslot *s = mapf__cellmap_insert(m, sizeof(rslot), key, &fresh);
  if (s && fresh) {
    s->pruned = 0;
    s->h = h0;
    s->visited = -1;
  }
  return s;
}

typedef struct rths {
  double w, wc, b;
  int lop, da, expendable;
  int32_t n;
  mapf__cellmap *agent; /* per agent */
} rths;

static int rths_init(mapf__sim *sim, void **state, mapf_diag *d) {
  rths_params P;
  int rc = mapf_params_fill(sim->cfg->algo, &sim->cfg->params, &P, sizeof P, d);
  if (rc != MAPF_OK) return rc;
  rths *r = calloc(1, sizeof *r);
  if (r) r->agent = calloc((size_t)sim->n ? (size_t)sim->n : 1, sizeof *r->agent);
  if (!r || !r->agent) {
    free(r);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  r->w = P.w;
  r->wc = P.wc;
  r->b = P.b;
  r->lop = P.lop;
  r->da = P.da;
  r->expendable = P.expendable;
  r->n = sim->n;
  *state = r;
  return MAPF_OK;
}

static void rths_free(void *state) {
  rths *r = state;
  if (!r) return;
  for (int32_t i = 0; i < r->n; i++) mapf__cellmap_free(&r->agent[i]);
  free(r->agent);
  free(r);
}

/* A member of L(n). */
typedef struct nb {
  int32_t cell;
  double c, h, h0;  /* c(n, n'), h(n'), h0(n') */
  int64_t visited;  /* the last step the agent stood on n', -1 if never */
} nb;

/* L(n) of the agent with table m and goal (gx, gy): the legal moves from n to cells not pruned,
 * in direction order. Returns |L| (<= 8). */
static int neighbourhood(const mapf_grid *g, const mapf__cellmap *m, int32_t n, int32_t gx,
                         int32_t gy, nb *L) {
  int k = 0;
  int32_t x = mapf_grid_x(g, n), y = mapf_grid_y(g, n);
  for (unsigned mv = g->moves[n]; mv; mv &= mv - 1) {
    int d = __builtin_ctz(mv);
    int32_t v = n + g->offset[d];
    const rslot *s = rmap_get(m, v);
    if (s && s->pruned) continue;
    double h0 = mapf_grid_h_xy(g, x + mapf_dir_dx[d], y + mapf_dir_dy[d], gx, gy);
    L[k++] = (nb){v, mapf_dir_cost[d], s ? s->h : h0, h0, s ? s->visited : -1};
  }
  return k;
}

/* Is n expendable (line 8's epsilon(n), thesis line 272)? The k members of L (all of n's
 * neighbours still in the graph) must be connected to each other by grid edges among them.
 * A breadth-first search over at most 8 nodes. */
static int is_expendable(const mapf_grid *g, const nb *L, int k) {
  if (k == 0) return 0;
  unsigned seen = 1u, frontier = 1u;
  while (frontier) {
    int i = __builtin_ctz(frontier);
    frontier &= frontier - 1;
    for (int j = 0; j < k; j++) {
      if (seen >> j & 1u) continue;
      int d = mapf_grid_dir(g, L[i].cell, L[j].cell);
      if (d >= 0 && (g->moves[L[i].cell] >> d & 1)) {
        seen |= 1u << j;
        frontier |= 1u << j;
      }
    }
  }
  return seen == (1u << k) - 1u;
}

/* lop over the m lowest of the k values f (line 7 with eq. 4.1); sorts f ascending. */
static double lop_of(int lop, double *f, int k, int m) {
  for (int i = 1; i < k; i++) { /* insertion sort: k <= 8 */
    double x = f[i];
    int j = i;
    for (; j > 0 && f[j - 1] > x; j--) f[j] = f[j - 1];
    f[j] = x;
  }
  switch (lop) {
  case LOP_MEAN: {
    double s = 0;
    for (int i = 0; i < m; i++) s += f[i];
    return s / m;
  }
  case LOP_MEDIAN:
    return m % 2 ? f[m / 2] : (f[m / 2 - 1] + f[m / 2]) / 2;
  case LOP_MAX:
    return f[m - 1];
  default:
    return f[0];
  }
}

/* Algorithm 1, lines 4-10, for agent i at its current cell (not its goal): learns, maybe
 * prunes, and sets sim->want[i]. O(1): at most 8 neighbours. Returns 0, or -1 when out of
 * memory. */
static int rths_step(mapf__sim *sim, rths *r, int32_t i) {
  const mapf_grid *g = sim->grid;
  mapf__cellmap *m = &r->agent[i];
  int32_t n = sim->pos[i], goal = sim->goal[i];
  int32_t gx = mapf_grid_x(g, goal), gy = mapf_grid_y(g, goal);
  sim->expansions++;
  sim->agent[i].expansions++;
  sim->agent[i].searches++;
  nb L[8];
  int k = neighbourhood(g, m, n, gx, gy, L);
  if (k == 0) { /* cannot happen (see the head comment); wait rather than fail */
    sim->want[i] = MAPF__WAIT;
    return 0;
  }
  int kall = k;
  nb Lall[8];
  memcpy(Lall, L, sizeof L);

  /* Lines 4-5: depression avoidance keeps the least-learned neighbours. */
  if (r->da) {
    double least = INFINITY;
    for (int j = 0; j < k; j++)
      if (L[j].h - L[j].h0 < least) least = L[j].h - L[j].h0;
    int kept = 0;
    for (int j = 0; j < k; j++)
      if (L[j].h - L[j].h0 <= least + EPS) L[kept++] = L[j];
    k = kept;
  }

  /* Lines 6-7. */
  double h0 = mapf_grid_h_xy(g, mapf_grid_x(g, n), mapf_grid_y(g, n), gx, gy);
  rslot *s = rmap_put(m, n, h0);
  if (!s) return -1;
  s->visited = sim->time;
  double h_prev = s->h;
  double f[8];
  for (int j = 0; j < k; j++) f[j] = r->wc * L[j].c + L[j].h;
  int lb = (int)floor(r->b * k + 1e-9);
  if (lb < 1) lb = 1;
  double target = r->w * lop_of(r->lop, f, k, lb);
  if (target > h_prev + EPS) {
    s->h = target;
    /* Lines 8-9: n leaves the agent's search graph; its neighbours in it are all of L before
     * line 5 restricted it. */
    if (r->expendable && is_expendable(g, Lall, kall)) s->pruned = 1;
  }

  /* Line 10; ties to the least recently visited, then the first. */
  int best = 0;
  double fbest = L[0].c + L[0].h;
  for (int j = 1; j < k; j++) {
    double fj = L[j].c + L[j].h;
    if (fj < fbest - EPS || (fj <= fbest + EPS && L[j].visited < L[best].visited)) {
      best = j;
      fbest = fj;
    }
  }
  sim->want[i] = L[best].cell;
  return 0;
}

/* Every agent off its goal takes one step of Algorithm 1 (loop of line 3), in index order; an
 * agent on its goal waits (the loop has ended for it). Limits are checked between agents. */
static int rths_plan(mapf__sim *sim, void *state) {
  rths *r = state;
  for (int32_t i = 0; i < sim->n; i++) {
    if (sim->pos[i] == sim->goal[i]) {
      sim->want[i] = MAPF__WAIT;
      continue;
    }
    if (mapf__sim_expired(sim)) return MAPF_OK;
    if (rths_step(sim, r, i) < 0) return MAPF_ENOMEM;
  }
  return MAPF_OK;
}

/* A patrol turned the agent round (sim_int.h): what it learned was about the old target, so it
 * starts again from the octile distance to the new one (learned values and pruned cells are
 * per goal; Algorithm 1 is a one-goal search). */
static void rths_retarget(mapf__sim *sim, void *state, int32_t a) {
  (void)sim;
  mapf__cellmap_clear(&((rths *)state)->agent[a], sizeof(rslot));
}

/* The map changed (sim_int.h; docs/events.md). Algorithm 1 looks one move ahead on the map as
 * it is, so no plan needs dropping. Pruning (lines 8-9) relied on the old map's edges (a pruned
 * cell's neighbours stayed connected without it): every pruned cell returns. Learned values
 * stay where cells closed; where cells opened, each is lowered to the bound an opening leaves
 * (bmaa.c's clamp_opened: min over the opened c of h0(s, c) + h0(c, goal)), never below h0. */
static int rths_map_changed(mapf__sim *sim, void *state, const int32_t *cells, int32_t n) {
  rths *r = state;
  const mapf_grid *g = sim->grid;
  for (int32_t a = 0; a < r->n; a++) {
    mapf__cellmap *m = &r->agent[a];
    int32_t goal = sim->goal[a], gx = mapf_grid_x(g, goal), gy = mapf_grid_y(g, goal);
    for (int32_t i = 0; i < m->cap; i++) {
      rslot *sl = (rslot *)(m->slot + (size_t)i * sizeof(rslot));
      if (sl->key < 0) continue;
      sl->pruned = 0;
      int32_t sx = mapf_grid_x(g, sl->key), sy = mapf_grid_y(g, sl->key);
      for (int32_t j = 0; j < n; j++) {
        if (!g->passable[cells[j]]) continue;
        int32_t cx = mapf_grid_x(g, cells[j]), cy = mapf_grid_y(g, cells[j]);
        double via = mapf_grid_h_xy(g, sx, sy, cx, cy) + mapf_grid_h_xy(g, cx, cy, gx, gy);
        if (via < sl->h) sl->h = via;
      }
    }
  }
  return MAPF_OK;
}

static const mapf__planner_vt rths_vt = {
    .init = rths_init,
    .plan = rths_plan,
    .free = rths_free,
    .retarget = rths_retarget,
    .map_changed = rths_map_changed,
};

MAPF_ALGORITHM(rths, 60) = {
    .name = "rths",
    .label = "RTHS",
    .doc = "parametrized real-time heuristic search, lookahead 1, one agent's algorithm run by "
           "every agent alone (thesis Ch. 4, Algorithm 1); the defaults are LRTA*",
    .params = rths_param_table,
    .nparams = MAPF_NPARAMS(rths_param_table),
    .size = sizeof(rths_params),
    .vt = &rths_vt,
    /* Weights measured by `mapfarm calibrate` (docs/choices.md, "The work budget"). */
    .work = {.expansion_ns = 0, .agent_step_ns = 153},
};
