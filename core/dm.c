/* dm.c: direction maps (Jansen & Sturtevant, "A new approach to cooperative pathfinding",
 * AAMAS 2008, Jansen & Sturtevant 2008; docs/choices.md, dm). Every agent plans a complete A* path
 * whose edge costs are raised where a move runs against the direction agents moved there
 * before (Fig. 3), follows it, and plans again only when a move fails or its target changes;
 * every executed move updates the direction vectors of the cells left and entered (Fig. 2).
 *
 * The rules ("choice" marks what the paper leaves open; each is in the README and tested in
 * tests/test_dm.c):
 *  1. The map (Sec. 2). One DV per cell (dm.h: two floats, (0, 0) = none), empty at the start.
 *     After every step (the simulator's `moved` hook), every agent that moved, in index order,
 *     updates the cell it left and then the cell it entered with its move's unit vector
 *     (mapf__dm_update; "each successive time an agent enters or exits the location"). Waits
 *     update nothing.
 *  2. Search (Fig. 3; Sec. 4: "A* is used for all experiments"). A* from the agent's cell to its
 *     target over the legal moves, edge costs mapf__dm_edge_cost with `weight`, octile
 *     heuristic (admissible and consistent: every edge costs at least its length). Ties: lowest
 *     f, then highest g, then first in first out (as every A* here), f and g compared within
 *     1e-9 (costs are sums of doubles; with weight 0 they are the plain move costs, so path
 *     costs equal A*'s). Complete: no expansion bound; a node is expanded at most once.
 *  3. Agents (Sec. 4: "Agents are able to see other agents within a small radius (4-5 steps)";
 *     "static information about other agents during planning"). Agents within Euclidean
 *     distance `vision` of the planning agent's cell, at the start of the step, are obstacles
 *     to its search, except on its target (choice, as BMAA*, Sigurdson et al. 2018 Alg. 5 lines
 * 15-20: an
 *     agent passing over the target would otherwise make it unreachable and every search
 *     exhaust the map until it leaves).
 *  4. When to plan (Sec. 4: "each failed move requires a re-planning step"). An agent follows
 *     its path; it plans when it has none (the first step, or no path was found: it waits and
 *     plans again next step), when the move it wanted in the last step was refused (a failed
 *     move), and when its target changes (patrol, retarget). An agent on its target waits.
 *     Choice beyond the paper (`repair` k > 0; default 0, the paper's rule): a failed move
 *     repairs the path up to its first free cell k or more ahead (dm_repair) and plans the whole
 *     path only when that fails: 8 times fewer expansions on den520d with 1,000 agents for 1 to
 *     4 % more sum of costs (docs/performance.md).
 *  5. Agent-centric maps (Sec. 2, last paragraph; Sec. 4: "they only updated their local
 *     direction map with a radius of two"; choice of reading). `local_radius` 0: one global
 *     map, read by every agent's search. `local_radius` r > 0: the global map is still kept
 *     (it is the world's record of the moves made: "the observed DM"), and each agent plans
 *     with its own copy, in which, after every step, it overwrites the cells within Euclidean
 *     distance r of its cell with the global map's DVs there ("At each step, an agent updates
 *     its DM within a local radius. The observed DM is used for future planning, although it
 *     may become out-of-date after time passes. We assume that agents can store both the world
 *     map and a copy of their own DM"). Cells it has not seen have no DV in its map; cells it
 *     saw keep the DV of the last time it saw them.
 *     Memory: an agent's map is sparse, an open-addressing table of the cells it has seen with
 *     a DV (12-byte slots, at most half full: about 24 bytes per cell seen), so 2,000 agents on
 *     a 512 x 512 map hold what they saw, never 2,000 dense maps; the global map is 8 bytes
 *     per cell, the search scratch 16 bytes per cell.
 *  6. Coherence (Sec. 3; mapf__dm_coherence). Always of the global map (choice: it records how
 *     the agents actually moved, whichever map they planned with, as the paper measured
 *     coherence for agents that did not plan with the map; the agents' copies are partial and
 *     stale). Only cells that ever had a DV are visited (a list kept in order of first visit),
 *     so a sample costs O(cells visited), not O(map). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "cellmap.h"
#include "dm.h"
#include "heap.h"
#include "heap.h"
#include "sim_int.h"

/* Parameters (Jansen & Sturtevant 2008). alpha 0.8, vision 5 and weight 5 are the paper's (it
 * also used weight 10); local_radius 0 is its global map, 2 its agent-centric one. The rules
 * are in the head comment above. */
typedef struct dm_params {
  double alpha, weight, vision;
  int32_t local_radius, repair;
} dm_params;

static const mapf_param_def dm_param_table[] = {
    {"alpha", MAPF_PARAM_REAL, 0, 1, 0.8,
     "learning rate of a cell's direction vector: dv = normalize(alpha dv + (1 - alpha) move)",
     NULL, offsetof(dm_params, alpha)},
    {"weight", MAPF_PARAM_REAL, 0, 1000, 5,
     "extra cost of a move fully against the direction map (0: plain A*, the map only "
     "recorded)",
     NULL, offsetof(dm_params, weight)},
    {"vision", MAPF_PARAM_REAL, 0, 1000000, 5,
     "agents within this Euclidean distance are obstacles to the search", NULL,
     offsetof(dm_params, vision)},
    {"local_radius", MAPF_PARAM_INT, 0, 1024, 0,
     "0: one global map; r > 0: each agent plans with its own map, copied from the global one "
     "within Euclidean distance r of it after every step",
     NULL, offsetof(dm_params, local_radius)},
    {"repair", MAPF_PARAM_INT, 0, 1024, 0,
     "0: a failed move plans the whole path again (the paper's rule); k > 0: it repairs the "
     "path up to its first free cell k or more cells ahead, and plans it all only when that "
     "fails",
     NULL, offsetof(dm_params, repair)},
};
/* `repair` came after dm's first stored jobs: at its default it is left out of job keys. */
static const char *const dm_later_params[] = {"repair", NULL};

#define DM__EPS 1e-9
#define DM__H (MAPF_SQRT2 / 2)

const double mapf__dm_ux[8] = {0, 1, 0, -1, DM__H, DM__H, -DM__H, -DM__H};
const double mapf__dm_uy[8] = {-1, 0, 1, 0, -DM__H, DM__H, DM__H, -DM__H};

/* ---- Direction-map arithmetic (dm.h) ------------------------------------------------------ */

void mapf__dm_update(mapf__dv *dv, double alpha, double mx, double my) {
  if (!mapf__dv_empty(*dv)) {
    /* Fig. 2 line 2: direction = alpha v1 + (1 - alpha) v2, then normalised (Sec. 2). */
    double bx = alpha * dv->x + (1 - alpha) * mx, by = alpha * dv->y + (1 - alpha) * my;
    double len = sqrt(bx * bx + by * by);
    if (len > 1e-6) {
      dv->x = (float)(bx / len);
      dv->y = (float)(by / len);
      return;
    }
  }
  dv->x = (float)mx;
  dv->y = (float)my;
}

/* Fig. 3 lines 4-5 for one cell, clamped to [0, 1]. */
static inline double dm_w(mapf__dv v, double mx, double my) {
  if (mapf__dv_empty(v)) return 0;
  double w = (1 - (mx * v.x + my * v.y)) / 2;
  return w < 0 ? 0 : w > 1 ? 1 : w;
}

/* Fig. 3 line 6; inline in the search, the one place of the arithmetic. */
static inline double edge_cost(double c, double weight, double mx, double my, mapf__dv a,
                               mapf__dv b) {
  return c + weight * (0.5 * dm_w(a, mx, my) + 0.5 * dm_w(b, mx, my));
}

double mapf__dm_edge_cost(double c, double weight, double mx, double my, mapf__dv a,
                          mapf__dv b) {
  return edge_cost(c, weight, mx, my, a, b);
}

int mapf__dm_points_to(mapf__dv v) {
  int best = 0;
  double best_dot = -INFINITY;
  for (int d = 0; d < 8; d++) {
    double dot = v.x * mapf__dm_ux[d] + v.y * mapf__dm_uy[d];
    if (dot > best_dot + 1e-12) {
      best = d;
      best_dot = dot;
    }
  }
  return best;
}

double mapf__dm_coherence(const mapf_grid *g, const mapf__dv *dv, const int32_t *cells,
                          int32_t n) {
  if (!cells) n = g->ncells;
  double sum = 0;
  int64_t count = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t c = cells ? cells[i] : i;
    mapf__dv v = dv[c];
    if (mapf__dv_empty(v)) continue;
    int d = mapf__dm_points_to(v);
    if (!(g->moves[c] >> d & 1)) continue;
    mapf__dv w = dv[c + g->offset[d]];
    if (mapf__dv_empty(w)) continue;
    sum += (double)v.x * w.x + (double)v.y * w.y;
    count++;
  }
  return count ? sum / (double)count : 1.0;
}

/* ---- An agent's own map (rule 5): cell -> DV, a sparse table (cellmap.h) ------------------- */

typedef struct vslot {
  int32_t key; /* -1 = empty */
  mapf__dv v;
} vslot;

static inline mapf__dv vmap_get(const mapf__cellmap *m, int32_t key) {
  const vslot *s = mapf__cellmap_find(m, sizeof(vslot), key);
  mapf__dv none = {0, 0};
  return s ? s->v : none;
}

static inline int vmap_put(mapf__cellmap *m, int32_t key, mapf__dv v) {
  int fresh;
  vslot *s = mapf__cellmap_insert(m, sizeof(vslot), key, &fresh);
  if (!s) return -1;
  s->v = v;
  return 0;
}

/* ---- The planner --------------------------------------------------------------------------- */

typedef struct dm_agent {
  int32_t *path; /* path[at] is the agent's cell while it follows the path */
  int32_t len, cap, at;
  uint8_t wanted; /* it asked for path[at + 1] in the last step */
  mapf__cellmap map; /* its own map (local_radius > 0) */
} dm_agent;

typedef struct dm_node {
  double g;
  uint32_t gen;   /* the search's stamp: open; stamp + 1: closed; else not seen */
  int32_t parent; /* -1 at the root */
} dm_node;

typedef struct dm_entry {
  double f, g;
  uint32_t seq;
  int32_t id;
} dm_entry;

typedef struct dm {
  double alpha, weight, vision2;
  int32_t radius; /* local_radius; 0: the global map */
  int32_t repair; /* the `repair` parameter; 0: whole searches only */
  int32_t *tail;  /* repair scratch: the path kept beyond the repaired part */
  int32_t tail_cap;
  int32_t n;
  dm_agent *ag;
  mapf__dv *global;       /* ncells */
  int32_t *visited;       /* cells with a DV, in order of first visit */
  int32_t nvisited, visited_cap;
  int32_t (*disc)[2];     /* offsets (dx, dy) within local_radius */
  int32_t ndisc;
  /* Search scratch (rule 2). */
  dm_node *node;
  uint32_t gen;
  dm_entry *heap;
  int32_t heap_len, heap_cap;
  uint32_t seq;
} dm;

static void dm_free(void *state) {
  dm *D = state;
  if (!D) return;
  if (D->ag)
    for (int32_t a = 0; a < D->n; a++) {
      free(D->ag[a].path);
      mapf__cellmap_free(&D->ag[a].map);
    }
  free(D->ag);
  free(D->global);
  free(D->visited);
  free(D->tail);
  free(D->disc);
  free(D->node);
  free(D->heap);
  free(D);
}

static int dm_init(mapf__sim *sim, void **state, mapf_diag *d) {
  dm_params P;
  int rc = mapf_params_fill(sim->cfg->algo, &sim->cfg->params, &P, sizeof P, d);
  if (rc != MAPF_OK) return rc;
  size_t cells = (size_t)sim->grid->ncells, agents = (size_t)(sim->n > 0 ? sim->n : 1);
  dm *D = calloc(1, sizeof *D);
  if (!D) return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  D->alpha = P.alpha;
  D->weight = P.weight;
  D->vision2 = P.vision * P.vision + 1e-9;
  D->radius = P.local_radius;
  D->repair = P.repair;
  D->n = sim->n;
  D->ag = calloc(agents, sizeof *D->ag);
  D->global = calloc(cells, sizeof *D->global);
  D->node = calloc(cells, sizeof *D->node);
  int32_t r = D->radius;
  if (r > 0) D->disc = malloc((size_t)(2 * r + 1) * (size_t)(2 * r + 1) * sizeof *D->disc);
  if (!D->ag || !D->global || !D->node || (r > 0 && !D->disc)) {
    dm_free(D);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  for (int32_t dy = -r; dy <= r && r > 0; dy++)
    for (int32_t dx = -r; dx <= r; dx++)
      if (dx * dx + dy * dy <= r * r) {
        D->disc[D->ndisc][0] = dx;
        D->disc[D->ndisc][1] = dy;
        D->ndisc++;
      }
  sim->push = 0;
  *state = D;
  return MAPF_OK;
}

/* Lowest f, then highest g, then first in first out (rule 2). */
static inline int entry_before(const dm_entry *x, const dm_entry *y) {
  if (x->f < y->f - DM__EPS) return 1;
  if (x->f > y->f + DM__EPS) return 0;
  if (x->g > y->g + DM__EPS) return 1;
  if (x->g < y->g - DM__EPS) return 0;
  return x->seq < y->seq;
}

/* entry_before's answer, every comparison made and combined without a branch (heap.h). */
static inline int entry_before_nb(const dm_entry *x, const dm_entry *y) {
  int f_lt = x->f < y->f - DM__EPS, f_gt = x->f > y->f + DM__EPS;
  int g_gt = x->g > y->g + DM__EPS, g_lt = x->g < y->g - DM__EPS;
  return f_lt | ((f_gt ^ 1) & (g_gt | ((g_lt ^ 1) & (x->seq < y->seq))));
}

MAPF__HEAP_DEFINE_SELECT(dm_heap, dm_entry, entry_before, entry_before_nb)

static int heap_push(dm *D, int32_t id, double g, double f) {
  dm_entry e = {f, g, D->seq++, id};
  return dm_heap_push(&D->heap, &D->heap_len, &D->heap_cap, 1024, e);
}

/* The DV of cell c in the map agent A plans with (rule 5): its own (local) or the global one. */
static inline mapf__dv dv_of(const dm *D, const dm_agent *A, int32_t c, int local) {
  return local ? vmap_get(&A->map, c) : D->global[c];
}

/* Rules 2 and 3: A* for agent i from its cell to `goal` (its target, or a cell of its path
 * when it repairs it). Sets its path (len 0 when there is none). Counts a search and its
 * expansions. Returns 0, or -1 when out of memory. O(cells log cells) at worst. `local` is
 * D->radius > 0, a constant in each of dm_search_to's two calls, so that with the global map
 * the search reads its array without a test per cell. */
static inline int dm_search_map(mapf__sim *sim, dm *D, int32_t i, int local, int32_t goal) {
  const mapf_grid *g = sim->grid;
  dm_agent *A = &D->ag[i];
  int32_t start = sim->pos[i];
  int32_t sx = mapf_grid_x(g, start), sy = mapf_grid_y(g, start);
  int32_t gx = mapf_grid_x(g, goal), gy = mapf_grid_y(g, goal);
  D->gen += 2;
  if (D->gen == 0) { /* wrapped after 2^31 searches: clear once */
    memset(D->node, 0, (size_t)g->ncells * sizeof *D->node);
    D->gen = 2;
  }
  const uint32_t open_gen = D->gen, closed_gen = D->gen + 1u;
  dm_node *nd = D->node;
  D->heap_len = 0;
  D->seq = 0;
  nd[start] = (dm_node){0, open_gen, -1};
  int found = 0;
  int64_t exp = 0;
  if (heap_push(D, start, 0, mapf_grid_h_xy(g, sx, sy, gx, gy)) < 0) return -1;
  while (D->heap_len > 0) {
    dm_entry e = dm_heap_pop(D->heap, &D->heap_len);
    int32_t u = e.id;
    if (nd[u].gen == closed_gen || e.g > nd[u].g) continue; /* stale */
    if (u == goal) {
      found = 1;
      break;
    }
    nd[u].gen = closed_gen;
    exp++;
    int32_t ux = mapf_grid_x(g, u), uy = mapf_grid_y(g, u);
    mapf__dv du = dv_of(D, A, u, local);
    uint8_t m = g->moves[u];
    for (int d = 0; d < 8; d++) {
      if (!(m >> d & 1)) continue;
      int32_t v = u + g->offset[d];
      int32_t vx = ux + mapf_dir_dx[d], vy = uy + mapf_dir_dy[d];
      if (nd[v].gen == closed_gen) continue;
      int32_t other = sim->occ[v];
      if (other >= 0 && other != i && v != goal) {
        double dx = vx - sx, dy = vy - sy;
        if (dx * dx + dy * dy <= D->vision2) continue;
      }
      double cost = mapf_dir_cost[d];
      if (D->weight > 0)
        cost = edge_cost(cost, D->weight, mapf__dm_ux[d], mapf__dm_uy[d], du,
                         dv_of(D, A, v, local));
      double ng = e.g + cost;
      if (nd[v].gen == open_gen && ng >= nd[v].g - DM__EPS) continue;
      nd[v] = (dm_node){ng, open_gen, u};
      if (heap_push(D, v, ng, ng + mapf_grid_h_xy(g, vx, vy, gx, gy)) < 0) return -1;
    }
  }
  sim->expansions += exp;
  sim->agent[i].expansions += exp;
  sim->agent[i].searches++;
  A->len = 0;
  A->at = 0;
  if (!found) return 0;
  int32_t len = 0;
  for (int32_t c = goal; c != -1; c = nd[c].parent) len++;
  if (len > A->cap) {
    int32_t cap = A->cap ? A->cap : 64;
    while (cap < len) cap *= 2;
    int32_t *p = realloc(A->path, (size_t)cap * sizeof *p);
    if (!p) return -1;
    A->path = p;
    A->cap = cap;
  }
  int32_t k = len;
  for (int32_t c = goal; c != -1; c = nd[c].parent) A->path[--k] = c;
  A->len = len;
  return 0;
}

static int dm_search_to(mapf__sim *sim, dm *D, int32_t i, int32_t goal) {
  return D->radius > 0 ? dm_search_map(sim, D, i, 1, goal) : dm_search_map(sim, D, i, 0, goal);
}

static int dm_search(mapf__sim *sim, dm *D, int32_t i) {
  return dm_search_to(sim, D, i, sim->goal[i]);
}

/* `repair` k > 0 after a failed move of agent i, which stands on path[at]: a search to the
 * first cell of its path at least k ahead that no agent stands on, and the rest of the old path
 * after it; the whole search when there is no such cell or no way to it. The repaired part
 * avoids the agents in view as a whole search does; beyond it the path is the old one, planned
 * on the map of its time. Returns 0, or -1 when out of memory. */
static int dm_repair(mapf__sim *sim, dm *D, int32_t i) {
  dm_agent *A = &D->ag[i];
  int32_t k = A->at + D->repair;
  while (k < A->len - 1 && sim->occ[A->path[k]] >= 0) k++;
  if (k >= A->len - 1) return dm_search(sim, D, i);
  int32_t tail = A->len - 1 - k;
  if (tail > D->tail_cap) {
    int32_t *t = realloc(D->tail, (size_t)tail * 2 * sizeof *t);
    if (!t) return -1;
    D->tail = t;
    D->tail_cap = tail * 2;
  }
  memcpy(D->tail, A->path + k + 1, (size_t)tail * sizeof *D->tail);
  if (dm_search_to(sim, D, i, A->path[k]) < 0) return -1;
  if (A->len == 0) return dm_search(sim, D, i);
  if (A->len + tail > A->cap) {
    int32_t cap = 2 * (A->len + tail);
    int32_t *p = realloc(A->path, (size_t)cap * sizeof *p);
    if (!p) return -1;
    A->path = p;
    A->cap = cap;
  }
  memcpy(A->path + A->len, D->tail, (size_t)tail * sizeof *D->tail);
  A->len += tail;
  return 0;
}

/* Rule 4 for every agent, in index order; then its next cell. */
static int dm_plan(mapf__sim *sim, void *state) {
  dm *D = state;
  for (int32_t i = 0; i < sim->n; i++) {
    dm_agent *A = &D->ag[i];
    int32_t cur = sim->pos[i];
    int repair = 0;
    if (A->len > 0) {
      if (A->at + 1 < A->len && A->path[A->at + 1] == cur)
        A->at++;
      else if (A->wanted && A->path[A->at] == cur && D->repair > 0)
        repair = 1; /* the move failed: repair the path (dm_repair) */
      else if (A->wanted || A->path[A->at] != cur)
        A->len = 0; /* the move failed (or the agent is off its path): plan again */
    }
    A->wanted = 0;
    sim->want[i] = MAPF__WAIT;
    if (cur == sim->goal[i]) {
      A->len = 0;
      continue;
    }
    if (repair || A->len == 0 || A->at + 1 >= A->len) {
      if (mapf__sim_expired(sim)) return MAPF_OK;
      if ((repair ? dm_repair(sim, D, i) : dm_search(sim, D, i)) < 0) return MAPF_ENOMEM;
    }
    if (A->at + 1 < A->len) {
      sim->want[i] = A->path[A->at + 1];
      A->wanted = 1;
    }
  }
  return MAPF_OK;
}

/* Rule 1 for one cell of the global map, keeping the list of cells with a DV. */
static int touch(dm *D, int32_t c, int d) {
  mapf__dv *v = &D->global[c];
  if (mapf__dv_empty(*v)) {
    if (D->nvisited == D->visited_cap) {
      int32_t cap = D->visited_cap ? 2 * D->visited_cap : 1024;
      int32_t *p = realloc(D->visited, (size_t)cap * sizeof *p);
      if (!p) return -1;
      D->visited = p;
      D->visited_cap = cap;
    }
    D->visited[D->nvisited++] = c;
  }
  mapf__dm_update(v, D->alpha, mapf__dm_ux[d], mapf__dm_uy[d]);
  return 0;
}

/* After every step: rule 1 (the global map), then rule 5 (each agent copies what it sees). */
static int dm_moved(mapf__sim *sim, void *state, const int32_t *prev) {
  dm *D = state;
  const mapf_grid *g = sim->grid;
  for (int32_t a = 0; a < sim->n; a++) {
    int32_t from = prev[a], to = sim->pos[a];
    if (from == to) continue;
    int d = mapf_grid_dir(g, from, to);
    if (d < 0) continue; /* never: the executor moves to neighbours only */
    if (touch(D, from, d) < 0 || touch(D, to, d) < 0) return MAPF_ENOMEM;
  }
  if (D->radius == 0) return MAPF_OK;
  for (int32_t a = 0; a < sim->n; a++) {
    int32_t x = mapf_grid_x(g, sim->pos[a]), y = mapf_grid_y(g, sim->pos[a]);
    for (int32_t k = 0; k < D->ndisc; k++) {
      int32_t cx = x + D->disc[k][0], cy = y + D->disc[k][1];
      if (!mapf_grid_in(g, cx, cy)) continue;
      int32_t c = mapf_grid_id(g, cx, cy);
      if (mapf__dv_empty(D->global[c])) continue;
      if (vmap_put(&D->ag[a].map, c, D->global[c]) < 0) return MAPF_ENOMEM;
    }
  }
  return MAPF_OK;
}

/* Rule 4: a new target; the path led to the old one. */
static void dm_retarget(mapf__sim *sim, void *state, int32_t a) {
  (void)sim;
  dm *D = state;
  D->ag[a].len = 0;
  D->ag[a].wanted = 0;
}

/* The map changed (sim_int.h; docs/events.md): an agent whose path has a move the map no
 * longer has plans again at its next step (rule 2 on the new map); one that found no path (a
 * closed door cut it off) already searches at every step. The direction map keeps what agents
 * did: a closed cell's vectors are history, and an opened cell starts empty, as every cell did. */
static int dm_map_changed(mapf__sim *sim, void *state, const int32_t *cells, int32_t n) {
  (void)cells;
  (void)n;
  dm *D = state;
  for (int32_t i = 0; i < sim->n; i++) {
    dm_agent *A = &D->ag[i];
    if (A->len == 0) continue;
    int32_t from = A->at + 1 < A->len && A->path[A->at + 1] == sim->pos[i] ? A->at + 1 : A->at;
    if (!mapf__path_legal(sim->grid, A->path, from, A->len)) {
      A->len = 0;
      A->wanted = 0;
    }
  }
  return MAPF_OK;
}

/* Rule 6. */
static double dm_coherence(const mapf__sim *sim, const void *state) {
  const dm *D = state;
  return mapf__dm_coherence(sim->grid, D->global, D->visited, D->nvisited);
}

/* The executor never pushes (sim->push is 0); should an agent be moved anyway, it plans
 * again from where it is. */
static void dm_pushed(mapf__sim *sim, void *state, int32_t a) {
  dm_retarget(sim, state, a);
}

static const mapf__planner_vt dm_vt = {
    .init = dm_init,
    .plan = dm_plan,
    .pushed = dm_pushed,
    .free = dm_free,
    .retarget = dm_retarget,
    .map_changed = dm_map_changed,
    .moved = dm_moved,
    .coherence = dm_coherence,
};

MAPF_ALGORITHM(dm, 50) = {
    .name = "dm",
    .label = "DM",
    .doc = "Direction maps: A* agents with edge costs raised against the direction others "
           "moved, replanning on failed moves; global or agent-centric maps (Jansen & "
           "Sturtevant 2008)",
    .params = dm_param_table,
    .nparams = MAPF_NPARAMS(dm_param_table),
    .size = sizeof(dm_params),
    .vt = &dm_vt,
    .later_params = dm_later_params,
    /* Weights measured by `mapfarm calibrate` (docs/choices.md, "The work budget"). */
    .work = {.expansion_ns = 275, .agent_step_ns = 0},
};
