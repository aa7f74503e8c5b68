/* bmaa.c: BMAA* (Sigurdson et al. 2018, Algs. 2-5): every agent runs its own RTAA* with a
 * bounded number of expansions, treats agents within `vision` as obstacles, follows the path
 * prefix for up to `moves` steps and learns h-values that persist across its searches. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "cellmap.h"
#include "flow.h"
#include "sim_int.h"

/* Parameters (Sigurdson et al. 2018, Sec. IV; Bakos 2022 slides). The defaults are the
 * paper's: 32 expansions, 32 moves, vision sqrt(2) (the eight neighbours). The variants' names
 * follow the paper's suffixes: -f push, -c flow. */
typedef struct bmaa_params {
  int32_t expansions, moves;
  double vision;
  bool push, flow;
} bmaa_params;

static const mapf_param_def bmaa_param_table[] = {
    {"expansions", MAPF_PARAM_INT, 1, 10000000, 32,
     "node expansions per RTAA* search (lookahead)", NULL, offsetof(bmaa_params, expansions)},
    {"moves", MAPF_PARAM_INT, 1, 1000000, 32,
     "moves along a path prefix before the agent searches again", NULL,
     offsetof(bmaa_params, moves)},
    {"vision", MAPF_PARAM_REAL, 0, 1000000, MAPF_SQRT2,
     "agents within this Euclidean distance are obstacles to the search", NULL,
     offsetof(bmaa_params, vision)},
    {"push", MAPF_PARAM_BOOL, 0, 1, 0,
     "an agent may push another off its goal to a free neighbour", NULL,
     offsetof(bmaa_params, push)},
    {"flow", MAPF_PARAM_BOOL, 0, 1, 0,
     "search FAR's flow-annotated graph (annotations computed lazily and cached)", NULL,
     offsetof(bmaa_params, flow)},
};

/* Learned h-values of one agent: cell -> cost pair (search_int.h: every learned value is
 * a + b sqrt(2) with integers a and b, kept exactly), in a sparse table (cellmap.h). Only cells
 * the agent has closed are stored; every other cell's h is the octile distance, computed on
 * demand. A slot holds the key and its value together (12 bytes), so a lookup touches one
 * cache line. */
typedef struct hslot {
  int32_t key; /* -1 = empty */
  mapf__cost2 val;
} hslot;

static inline int hmap_get(const mapf__cellmap *m, int32_t key, mapf__cost2 *val) {
  const hslot *s = mapf__cellmap_find(m, sizeof(hslot), key);
  if (s) *val = s->val;
  return s != NULL;
}

static inline int hmap_put(mapf__cellmap *m, int32_t key, mapf__cost2 val) {
  int fresh;
  hslot *s = mapf__cellmap_insert(m, sizeof(hslot), key, &fresh);
  if (!s) return -1;
  s->val = val;
  return 0;
}

typedef struct bmaa_agent {
  mapf__cellmap h;   /* learned h-values toward the current target (sim->goal) */
  /* The values learned toward the previous target (patrol, re-tasking, lifelong goals). An
   * h-value is a distance estimate to one target, so a new target cannot use the old one's:
   * each of the last two targets keeps its own table, and an agent sent back to the other one
   * (patrol alternates between two targets) resumes learning where it left off rather than
   * relearning from the heuristic; a third target starts afresh. At most twice the memory;
   * one-way runs never touch it. */
  mapf__cellmap other;
  int32_t h_goal, other_goal; /* the targets of h and other (-1: none) */
  int32_t *path;      /* the prefix P: path[0] is where the search started */
  int32_t path_len;   /* 0 when P is undefined */
  int32_t path_cap;
  int32_t path_pos;   /* path[path_pos] is the agent's cell while it is on P */
  int64_t limit;      /* search again when time >= limit (Alg. 3 line 2) */
} bmaa_agent;

typedef struct bmaa {
  int64_t expansions, moves;
  int64_t vision2;    /* vision squared, rounded down: squared distances are integers */
  int32_t reach;      /* the largest r with r^2 <= vision2, plus 1: a cell whose row or column is
                         farther than reach from the start has no neighbour within vision */
  /* The search's box (bmaa_init): a node record's index is its cell's place in a box of
   * wrows rows of 1 << wshift cells, whose corner is (0, 0) when wr < 0 (the whole map) and the
   * start's cell minus (wr, wr) otherwise. */
  int32_t wr, wshift, wrows;
  int32_t loff[8];    /* the index offset of each direction in the box: dy * 2^wshift + dx */
  int32_t n;
  bmaa_agent *a;
  int32_t *searching; /* the agents that search in this step, in index order (n entries) */
  /* flow: true: FAR's flow annotation, "generated the first time the node is processed and
   * then cached" (Sigurdson et al. 2018 Sec. IV-C), per run; NULL: the plain grid. */
  mapf_flow_lazy *flow;
} bmaa;

static int bmaa_init(mapf__sim *sim, void **state, mapf_diag *d) {
  bmaa_params P;
  int rc = mapf_params_fill(sim->cfg->algo, &sim->cfg->params, &P, sizeof P, d);
  if (rc != MAPF_OK) return rc;
  bmaa *b = calloc(1, sizeof *b);
  if (b) b->a = calloc((size_t)sim->n, sizeof *b->a);
  if (b) b->searching = malloc(((size_t)sim->n + 1) * sizeof *b->searching);
  if (!b || !b->a || !b->searching) {
    if (b) {
      free(b->a);
      free(b->searching);
    }
    free(b);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  b->n = sim->n;
  for (int32_t i = 0; i < sim->n; i++) {
    b->a[i].h_goal = sim->goal[i];
    b->a[i].other_goal = -1;
  }
  b->expansions = P.expansions;
  b->moves = P.moves;
  double v2 = floor(P.vision * P.vision + 1e-9);
  b->vision2 = v2 < 0x1p62 ? (int64_t)v2 : INT64_C(1) << 62;
  int64_t r = (int64_t)sqrt((double)b->vision2);
  while (r * r > b->vision2) r--;
  while ((r + 1) * (r + 1) <= b->vision2) r++;
  b->reach = r < MAPF_GRID_MAX_SIDE ? (int32_t)r + 1 : MAPF_GRID_MAX_SIDE;
  /* The search expands at most `expansions` cells; the k-th is at most k - 1 moves from the
   * start (its parent came before it), so every record the search touches (the expanded cells
   * and their neighbours) lies within `expansions` moves of the start, in a square of side
   * 2 expansions + 1. When that square is smaller than the map, the records are indexed within
   * it, whatever the start: they take 133 KB for 32 expansions and stay in cache from one
   * agent's search to the next, where records indexed by the map's cells are cold at each
   * agent's first touches (a 512 x 512 map's records take 4 MB). Else the box is the whole
   * map. Rows are a power of two wide (up to twice the records), so a record's cell is a shift
   * and a mask away. */
  const mapf_grid *g = sim->grid;
  int64_t side = 2 * b->expansions + 1;
  int64_t wide = 1, square = 1;
  while (wide < g->width) wide <<= 1;
  while (square < side) square <<= 1;
  if (side < g->height && square * side < wide * g->height) {
    b->wr = (int32_t)b->expansions;
    b->wrows = (int32_t)side;
    wide = square;
  } else {
    b->wr = -1;
    b->wrows = g->height;
  }
  while ((INT64_C(1) << b->wshift) < wide) b->wshift++;
  for (int k = 0; k < 8; k++) b->loff[k] = mapf_dir_dy[k] * (int32_t)wide + mapf_dir_dx[k];
  sim->push = P.push;
  if (P.flow && !(b->flow = mapf_flow_lazy_new(sim->grid))) {
    free(b->a);
    free(b->searching);
    free(b);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  *state = b;
  return MAPF_OK;
}

static void bmaa_free(void *state) {
  bmaa *b = state;
  if (!b) return;
  for (int32_t i = 0; i < b->n; i++) {
    mapf__cellmap_free(&b->a[i].h);
    mapf__cellmap_free(&b->a[i].other);
    free(b->a[i].path);
  }
  free(b->a);
  free(b->searching);
  mapf_flow_lazy_free(b->flow);
  free(b);
}

/* h(c): the learned value if the agent has one, else the grid's distance heuristic (octile, or
 * Manhattan when `four`: grid.h) from (x, y), the coordinates of c, to the goal (gx, gy). */
static inline mapf__cost2 h_of(const bmaa_agent *ag, int four, int32_t c, int32_t x, int32_t y,
                               int32_t gx, int32_t gy) {
  mapf__cost2 v;
  return hmap_get(&ag->h, c, &v) ? v : mapf__hc(four, x, y, gx, gy);
}

/* The neighbours of record u in m (bits: directions; offset: the records' offset of each) that
 * are closed, or open with a g no higher than ng. */
MAPF__INLINE unsigned worse_mask(const mapf__search *s, int32_t u, const int32_t *offset,
                                 unsigned m, mapf__cost2 ng) {
  const uint32_t open_gen = s->gen, closed_gen = s->gen + 1u;
  const double c = mapf__cost_of(ng);
  unsigned worse = 0;
  for (; m; m &= m - 1) {
    int d = __builtin_ctz(m);
    const mapf__node *w = &s->node[u + offset[d]];
    uint32_t wg = w->gen;
    unsigned no = (wg == closed_gen) | ((wg == open_gen) & (mapf__cost_of(w->g) <= c));
    worse |= no << d;
  }
  return worse;
}

/* Alg. 5 lines 15-20 for agent i: does another agent stand on v, the neighbour in direction d
 * of a cell at (rx, ry) from the start, within vision, and v is not the goal? */
static inline int seen(const mapf__sim *sim, const bmaa *b, int32_t i, int32_t v, int32_t rx,
                       int32_t ry, int d) {
  int32_t other = sim->occ[v];
  int64_t dx = rx + mapf_dir_dx[d], dy = ry + mapf_dir_dy[d];
  return other >= 0 && other != i && v != sim->goal[i] && dx * dx + dy * dy <= b->vision2;
}

/* Seed 001, Alg. 5 (BMAA*'s version of A*) followed by Alg. 3 lines 4-8 (RTAA*'s update of the
 * closed nodes' h-values and the new limit). Work is bounded by `expansions` node expansions.
 * Costs are exact pairs (search_int.h). The search's ids are places in the box (bmaa_init):
 * the box's place l is the map's cell base + (l >> wshift) * width + (l & wmask). Returns 0, or
 * -1 when out of memory. */
static int bmaa_search(mapf__sim *sim, bmaa *b, int32_t i) {
  const mapf_grid *g = sim->grid;
  bmaa_agent *ag = &b->a[i];
  mapf__search *s = sim->search;
  int32_t cur = sim->pos[i], goal = sim->goal[i];
  int32_t cx = mapf_grid_x(g, cur), cy = mapf_grid_y(g, cur);
  int32_t gx = mapf_grid_x(g, goal), gy = mapf_grid_y(g, goal);
  const int four = g->connectivity == 4;
  /* The box's corner (ox, oy), and the box's place of a cell at (x, y). */
  int32_t ox = b->wr < 0 ? 0 : cx - b->wr, oy = b->wr < 0 ? 0 : cy - b->wr;
  const int32_t sh = b->wshift, wmask = (1 << sh) - 1, width = g->width;
  const int32_t base = oy * width + ox;
#define BOX(x, y) (((y) - oy) << sh | ((x) - ox))
#define CELL(l) (base + ((l) >> sh) * width + ((l) & wmask))
  /* The goal's place, or -1 when it lies outside the box (no search reaches it then). */
  int32_t lgoal = gx >= ox && gx - ox <= wmask && gy >= oy && gy - oy < b->wrows ? BOX(gx, gy) : -1;
  if (mapf__search_begin(s, b->wrows << sh) < 0) return -1;
  mapf__node *nd = s->node;
  mapf__cost2 zero = {0, 0};
  mapf__cost2 h0 = h_of(ag, four, cur, cx, cy, gx, gy);
  if (mapf__open_push(s, BOX(cx, cy), zero, h0, MAPF__NO_PARENT) < 0) return -1;

  int64_t exp = 0;
  while (mapf__open_first(s)) {
    /* Line 8: stop when First() is the goal or the expansion budget is spent. */
    if (mapf__open_first_id(s) == lgoal || exp >= b->expansions) break;
    int32_t l = mapf__open_pop(s);
    if (mapf__closed_add(s, l) < 0) return -1;
    int32_t ux = (l & wmask) + ox, uy = (l >> sh) + oy, u = uy * width + ux;
    mapf__cost2 gu = nd[l].g;
    /* Alg. 5 line 14: GetNeighbors(flow). */
    unsigned moves = b->flow ? mapf_flow_lazy_moves(b->flow, u) : g->moves[u];
    /* Start loading the neighbours' learned h-values before the tests that need them. */
    if (ag->h.cap > 0)
      for (unsigned m = moves; m; m &= m - 1)
        __builtin_prefetch(
            mapf__cellmap_home(&ag->h, sizeof(hslot), u + g->offset[__builtin_ctz(m)]));
    /* The neighbours to open (Alg. 5 lines 15-20 and A*'s own test), as a mask. Skipped: a
     * closed neighbour; one within vision on which another agent stands, unless it is the
     * goal; an open one with a g no higher (gu + 1 for the cardinal moves, bits 0-3, gu +
     * sqrt(2) for the diagonal ones). The order of the tests does not matter. */
    unsigned open = 0;
    int32_t rx = ux - cx, ry = uy - cy;
    int near = rx <= b->reach && -rx <= b->reach && ry <= b->reach && -ry <= b->reach;
    if (b->flow) {
      /* The flow leaves a cell about three moves, and tests with branches are faster. */
      for (unsigned m = moves; m; m &= m - 1) {
        int d = __builtin_ctz(m);
        const mapf__node *w = &nd[l + b->loff[d]];
        if (w->gen == s->gen + 1u || (near && seen(sim, b, i, u + g->offset[d], rx, ry, d)))
          continue;
        mapf__cost2 ng = {gu.a + (d < 4), gu.b + (d >= 4)};
        if (w->gen == s->gen && mapf__cost_of(w->g) <= mapf__cost_of(ng)) continue;
        open |= 1u << d;
      }
    } else {
      /* On the grid, with up to eight moves, each test is a coin toss for the branch
       * predictor: the tests are combined without branches, and only an expansion next to the
       * vision's square around the start needs the vision test. */
      mapf__cost2 gc = {gu.a + 1, gu.b}, gd = {gu.a, gu.b + 1};
      open = moves & ~(worse_mask(s, l, b->loff, moves & 15u, gc) |
                       worse_mask(s, l, b->loff, moves & ~15u, gd));
      if (near)
        for (unsigned m = open; m; m &= m - 1) {
          int d = __builtin_ctz(m);
          if (seen(sim, b, i, u + g->offset[d], rx, ry, d)) open &= ~(1u << d);
        }
    }
    for (unsigned m = open; m; m &= m - 1) {
      int d = __builtin_ctz(m);
      int32_t vx = ux + mapf_dir_dx[d], vy = uy + mapf_dir_dy[d];
      mapf__cost2 ng = {gu.a + (d < 4), gu.b + (d >= 4)};
      mapf__cost2 h = h_of(ag, four, u + g->offset[d], vx, vy, gx, gy);
      mapf__cost2 f = {ng.a + h.a, ng.b + h.b};
      if (mapf__open_push(s, l + b->loff[d], ng, f, d) < 0) return -1;
    }
    exp++;
  }
  sim->expansions += exp;
  sim->agent[i].expansions += exp;
  sim->agent[i].searches++;
  ag->path_len = 0;
  if (!mapf__open_first(s)) return 0; /* enclosed: no prefix, the agent waits (Alg. 3 line 4) */

  /* Alg. 4: h(n) = f(First) - g(n) for every closed n, with f(First) = g + h of First. */
  int32_t first = mapf__open_first_id(s), fc = CELL(first);
  mapf__cost2 gf = nd[first].g;
  mapf__cost2 hf = h_of(ag, four, fc, mapf_grid_x(g, fc), mapf_grid_y(g, fc), gx, gy);
  mapf__cost2 f = {gf.a + hf.a, gf.b + hf.b};
  for (int32_t k = 0; k < s->closed_len; k++) {
    int32_t c = s->closed[k];
    mapf__cost2 hc = {f.a - nd[c].g.a, f.b - nd[c].g.b};
    if (hmap_put(&ag->h, CELL(c), hc) < 0) return -1;
  }
  ag->limit = sim->time + b->moves;

  /* Alg. 5 line 9: P runs from the current node to First(). */
  int32_t len = 0;
  for (int32_t c = first; c != -1; c = mapf__parent(s, b->loff, c)) len++;
  if (len > ag->path_cap) {
    int32_t cap = len < 64 ? 64 : len;
    int32_t *p = realloc(ag->path, (size_t)cap * sizeof *p);
    if (!p) return -1;
    ag->path = p;
    ag->path_cap = cap;
  }
  int32_t k = len;
  for (int32_t c = first; c != -1; c = mapf__parent(s, b->loff, c)) ag->path[--k] = CELL(c);
  ag->path_len = len;
  ag->path_pos = 0;
  return 0;
#undef BOX
#undef CELL
}

/* Starts loading the learned h-values around agent j's cell, which its search is about to read:
 * the tables of a thousand agents do not stay in cache between one agent's searches, and a
 * search that waits for each of them in turn is several times slower. */
static void bmaa_prefetch(const mapf__sim *sim, const bmaa *b, int32_t j) {
  const mapf__cellmap *h = &b->a[j].h;
  int32_t p = sim->pos[j], w = sim->grid->width, last = sim->grid->ncells - 1;
  if (h->cap > 0)
    for (int32_t dy = -2; dy <= 2; dy++)
      for (int32_t dx = -4; dx <= 4; dx += 4)
        __builtin_prefetch(mapf__cellmap_home(h, sizeof(hslot), p + dy * w + dx));
  /* And the occupancy of the start's neighbours (the vision test). */
  for (int32_t dy = -1; dy <= 1; dy++) {
    int32_t c = p + dy * w;
    __builtin_prefetch(&sim->occ[c < 0 ? 0 : c > last ? last : c]);
  }
}

/* Alg. 3 for every agent, then its next cell. First every agent follows its prefix and those
 * that must search are listed; then they search in index order, each search prefetching the
 * next one's h-values (bmaa_prefetch). Positions do not change during the search phase, so this
 * is the same as deciding and searching agent by agent. */
static int bmaa_plan(mapf__sim *sim, void *state) {
  bmaa *b = state;
  int32_t ns = 0;
  for (int32_t i = 0; i < sim->n; i++) {
    bmaa_agent *ag = &b->a[i];
    int32_t cur = sim->pos[i];
    if (ag->path_len > 0) {
      if (ag->path_pos + 1 < ag->path_len && ag->path[ag->path_pos + 1] == cur)
        ag->path_pos++;
      else if (ag->path[ag->path_pos] != cur)
        ag->path_len = 0; /* pushed off P */
    }
    int defined = ag->path_len > 0 && ag->path_pos + 1 < ag->path_len;
    /* A search from the goal returns at once with an empty prefix and learns nothing, so an
     * agent on its goal does not search. */
    if (cur != sim->goal[i] && (!defined || sim->time >= ag->limit))
      b->searching[ns++] = i;
    else
      sim->want[i] = defined ? ag->path[ag->path_pos + 1] : MAPF__WAIT;
  }
  if (ns > 0) bmaa_prefetch(sim, b, b->searching[0]);
  for (int32_t k = 0; k < ns; k++) {
    int32_t i = b->searching[k];
    bmaa_agent *ag = &b->a[i];
    if (mapf__sim_expired(sim)) return MAPF_OK;
    if (k + 1 < ns) bmaa_prefetch(sim, b, b->searching[k + 1]);
    if (bmaa_search(sim, b, i) < 0) return MAPF_ENOMEM;
    sim->want[i] = ag->path_len > 1 ? ag->path[ag->path_pos + 1] : MAPF__WAIT;
  }
  return MAPF_OK;
}

static void bmaa_pushed(mapf__sim *sim, void *state, int32_t a) {
  (void)sim;
  bmaa *b = state;
  b->a[a].path_len = 0;
}

/* Agent a's target changed (patrol, re-tasking, lifelong goals: sim_int.h). It switches to the
 * h-values it learned toward the new target when that was its previous one, else to an empty
 * table (keeping the old target's as the previous), and searches at the next step: its prefix
 * led to the old target. */
static void bmaa_retarget(mapf__sim *sim, void *state, int32_t a) {
  bmaa_agent *ag = &((bmaa *)state)->a[a];
  int32_t to = sim->goal[a], from = ag->h_goal;
  mapf__cellmap t = ag->h;
  ag->h = ag->other;
  ag->other = t;
  if (ag->other_goal != to) mapf__cellmap_clear(&ag->h, sizeof(hslot));
  ag->h_goal = to;
  ag->other_goal = from;
  ag->path_len = 0;
}

/* Learned values after cells opened (docs/events.md). An opening can only shorten distances,
 * and every path it shortens passes an opened cell c, so the distance from s is at least
 * min(its old distance, H(s, c) + H(c, goal) over the opened c), with H the grid's heuristic:
 * each value is lowered to that bound and stays admissible; being the minimum of consistent
 * functions and no lower than H(s, goal), the values stay consistent too (RTAA*'s update needs
 * both: Koenig & Likhachev 2006). Values far from every opening keep what they learned. */
static void clamp_opened(mapf__cellmap *m, const mapf_grid *g, int32_t goal, const int32_t *open,
                         int32_t k) {
  if (goal < 0 || m->cap == 0) return;
  const int four = g->connectivity == 4;
  int32_t gx = mapf_grid_x(g, goal), gy = mapf_grid_y(g, goal);
  for (int32_t i = 0; i < m->cap; i++) {
    hslot *sl = (hslot *)(m->slot + (size_t)i * sizeof(hslot));
    if (sl->key < 0) continue;
    int32_t sx = mapf_grid_x(g, sl->key), sy = mapf_grid_y(g, sl->key);
    for (int32_t j = 0; j < k; j++) {
      int32_t cx = mapf_grid_x(g, open[j]), cy = mapf_grid_y(g, open[j]);
      mapf__cost2 a = mapf__hc(four, sx, sy, cx, cy), b = mapf__hc(four, cx, cy, gx, gy);
      mapf__cost2 via = {a.a + b.a, a.b + b.b};
      if (mapf__cost_of(via) < mapf__cost_of(sl->val)) sl->val = via;
    }
  }
}

/* The map changed (sim_int.h). A prefix with a move the map no longer has is dropped (the
 * agent searches at its next step); learned values stay where cells closed (a closing only
 * lengthens distances, so they stay admissible: the property the paper's "loses only a small
 * amount of search" rests on, Sigurdson et al. 2018 Sec. I) and are lowered where cells
 * opened (clamp_opened). The flow annotation, made lazily from the map, starts again. */
static int bmaa_map_changed(mapf__sim *sim, void *state, const int32_t *cells, int32_t n) {
  bmaa *b = state;
  const mapf_grid *g = sim->grid;
  for (int32_t i = 0; i < b->n; i++) {
    bmaa_agent *ag = &b->a[i];
    if (ag->path_len == 0) continue;
    int32_t from = ag->path_pos; /* from the cell it stands on: the last step's move is made */
    if (from + 1 < ag->path_len && ag->path[from + 1] == sim->pos[i]) from++;
    if (!mapf__path_legal(g, ag->path, from, ag->path_len)) ag->path_len = 0;
  }
  if (b->flow) {
    mapf_flow_lazy_free(b->flow);
    if (!(b->flow = mapf_flow_lazy_new(g))) return MAPF_ENOMEM;
  }
  int32_t *open = malloc((size_t)n * sizeof *open);
  if (!open) return MAPF_ENOMEM;
  int32_t k = mapf__opened(g, cells, n, open);
  for (int32_t i = 0; k > 0 && i < b->n; i++) {
    clamp_opened(&b->a[i].h, g, b->a[i].h_goal, open, k);
    clamp_opened(&b->a[i].other, g, b->a[i].other_goal, open, k);
  }
  free(open);
  return MAPF_OK;
}

static const mapf__planner_vt bmaa_vt = {
    .init = bmaa_init,
    .plan = bmaa_plan,
    .pushed = bmaa_pushed,
    .free = bmaa_free,
    .retarget = bmaa_retarget,
    .map_changed = bmaa_map_changed,
};

MAPF_ALGORITHM(bmaa, 10) = {
    .name = "bmaa",
    .label = "BMAA*",
    .doc = "Bounded Multi-Agent A*: every agent runs its own RTAA* (Sigurdson et al. 2018, "
           "Algs. 2-5)",
    .params = bmaa_param_table,
    .nparams = MAPF_NPARAMS(bmaa_param_table),
    .size = sizeof(bmaa_params),
    .vt = &bmaa_vt,
    /* Weights measured by `mapfarm calibrate` (docs/choices.md, "The work budget"). */
    .work = {.expansion_ns = 110, .agent_step_ns = 200},
};
