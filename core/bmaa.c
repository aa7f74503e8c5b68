/* bmaa.c: BMAA* (seed 001, Algs. 2-5): every agent runs its own RTAA* with a bounded number of
 * expansions, treats agents within `vision` as obstacles, follows the path prefix for up to
 * `moves` steps and learns h-values that persist across its searches. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* Learned h-values of one agent: open addressing, int32 cell -> double. Only cells the agent
 * has closed are stored (ALGORITHMS.md: 2,000 agents x a 531x747 map as dense arrays would be
 * 3 GB); every other cell's h is the octile distance, computed on demand. */
typedef struct hmap {
  int32_t *key; /* -1 = empty */
  double *val;
  int32_t cap, n;
} hmap;

static inline uint32_t hmap_slot(int32_t key, int32_t cap) {
  return ((uint32_t)key * 2654435761u) & (uint32_t)(cap - 1);
}

static inline int hmap_get(const hmap *m, int32_t key, double *val) {
  if (m->cap == 0) return 0;
  for (uint32_t i = hmap_slot(key, m->cap);; i = (i + 1) & (uint32_t)(m->cap - 1)) {
    if (m->key[i] == key) {
      *val = m->val[i];
      return 1;
    }
    if (m->key[i] < 0) return 0;
  }
}

static int hmap_grow(hmap *m) {
  int32_t cap = m->cap ? m->cap * 2 : 64;
  int32_t *key = malloc((size_t)cap * sizeof *key);
  double *val = malloc((size_t)cap * sizeof *val);
  if (!key || !val) {
    free(key);
    free(val);
    return -1;
  }
  for (int32_t i = 0; i < cap; i++) key[i] = -1;
  for (int32_t i = 0; i < m->cap; i++) {
    if (m->key[i] < 0) continue;
    uint32_t j = hmap_slot(m->key[i], cap);
    while (key[j] >= 0) j = (j + 1) & (uint32_t)(cap - 1);
    key[j] = m->key[i];
    val[j] = m->val[i];
  }
  free(m->key);
  free(m->val);
  m->key = key;
  m->val = val;
  m->cap = cap;
  return 0;
}

static int hmap_put(hmap *m, int32_t key, double val) {
  if ((m->n + 1) * 2 > m->cap && hmap_grow(m) < 0) return -1;
  uint32_t i = hmap_slot(key, m->cap);
  while (m->key[i] >= 0 && m->key[i] != key) i = (i + 1) & (uint32_t)(m->cap - 1);
  if (m->key[i] < 0) {
    m->key[i] = key;
    m->n++;
  }
  m->val[i] = val;
  return 0;
}

typedef struct bmaa_agent {
  hmap h;
  int32_t *path;      /* the prefix P: path[0] is where the search started */
  int32_t path_len;   /* 0 when P is undefined */
  int32_t path_cap;
  int32_t path_pos;   /* path[path_pos] is the agent's cell while it is on P */
  int64_t limit;      /* search again when time >= limit (Alg. 3 line 2) */
} bmaa_agent;

typedef struct bmaa {
  int64_t expansions, moves;
  double vision2;     /* vision squared, compared with squared integer distances */
  int32_t n;
  bmaa_agent *a;
} bmaa;

static int bmaa_init(mapf__sim *sim, void **state, mapf_diag *d) {
  const double *v = sim->cfg->params.v;
  bmaa *b = calloc(1, sizeof *b);
  if (b) b->a = calloc((size_t)sim->n, sizeof *b->a);
  if (!b || !b->a) {
    free(b);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  b->n = sim->n;
  b->expansions = (int64_t)v[0];
  b->moves = (int64_t)v[1];
  b->vision2 = v[2] * v[2] + 1e-9;
  sim->push = v[3] != 0;
  *state = b;
  return MAPF_OK;
}

static void bmaa_free(void *state) {
  bmaa *b = state;
  if (!b) return;
  for (int32_t i = 0; i < b->n; i++) {
    free(b->a[i].h.key);
    free(b->a[i].h.val);
    free(b->a[i].path);
  }
  free(b->a);
  free(b);
}

/* h(c): the learned value if the agent has one, else the octile distance from (x, y), the
 * coordinates of c, to the goal (gx, gy). */
static inline double h_of(const bmaa_agent *ag, int32_t c, int32_t x, int32_t y, int32_t gx,
                          int32_t gy) {
  double v;
  return hmap_get(&ag->h, c, &v) ? v : mapf_octile_xy(x, y, gx, gy);
}

/* Seed 001, Alg. 5 (BMAA*'s version of A*) followed by Alg. 3 lines 4-8 (RTAA*'s update of the
 * closed nodes' h-values and the new limit). Work is bounded by `expansions` node expansions.
 * Returns 0, or -1 when out of memory. */
static int bmaa_search(mapf__sim *sim, bmaa *b, int32_t i) {
  const mapf_grid *g = sim->grid;
  bmaa_agent *ag = &b->a[i];
  mapf__search *s = sim->search;
  int32_t cur = sim->pos[i], goal = sim->goal[i];
  int32_t cx = mapf_grid_x(g, cur), cy = mapf_grid_y(g, cur);
  int32_t gx = mapf_grid_x(g, goal), gy = mapf_grid_y(g, goal);
  if (mapf__search_begin(s, g->ncells) < 0) return -1;
  mapf__node *nd = s->node;
  nd[cur].g = 0;
  nd[cur].parent = -1;
  nd[cur].gen = s->gen;
  nd[cur].heap = -2;
  if (mapf__open_push(s, cur, 0, h_of(ag, cur, cx, cy, gx, gy)) < 0) return -1;

  int64_t exp = 0;
  while (s->heap_len > 0) {
    /* Line 8: stop when First() is the goal or the expansion budget is spent. */
    if (s->heap[0].id == goal || exp >= b->expansions) break;
    mapf__entry e = mapf__open_pop(s);
    int32_t u = e.id;
    if (mapf__closed_add(s, u) < 0) return -1;
    int32_t ux = u % g->width, uy = u / g->width;
    uint8_t m = g->moves[u];
    for (int d = 0; d < 8; d++) {
      if (!(m >> d & 1)) continue;
      int32_t v = u + g->offset[d];
      int32_t vx = ux + mapf_dir_dx[d], vy = uy + mapf_dir_dy[d];
      /* Lines 15-20: agents within vision are obstacles unless they stand on the goal. */
      int32_t other = sim->occ[v];
      if (other >= 0 && other != i && v != goal) {
        double dx = vx - cx, dy = vy - cy;
        if (dx * dx + dy * dy <= b->vision2) continue;
      }
      double ng = e.g + mapf_dir_cost[d];
      if (nd[v].gen == s->gen) {
        if (nd[v].heap == MAPF__HEAP_CLOSED || nd[v].g <= ng + MAPF__EPS) continue;
      } else {
        nd[v].gen = s->gen;
        nd[v].heap = -2;
      }
      nd[v].g = ng;
      nd[v].parent = u;
      if (mapf__open_push(s, v, ng, ng + h_of(ag, v, vx, vy, gx, gy)) < 0) return -1;
    }
    exp++;
  }
  sim->expansions += exp;
  sim->agent[i].expansions += exp;
  sim->agent[i].searches++;
  ag->path_len = 0;
  if (s->heap_len == 0) return 0; /* enclosed: no prefix, the agent waits (Alg. 3 line 4) */

  /* Alg. 4: h(n) = f(First) - g(n) for every closed n. */
  int32_t first = s->heap[0].id;
  double f = s->heap[0].f;
  for (int32_t k = 0; k < s->closed_len; k++) {
    int32_t c = s->closed[k];
    if (hmap_put(&ag->h, c, f - nd[c].g) < 0) return -1;
  }
  ag->limit = sim->time + b->moves;

  /* Alg. 5 line 9: P runs from the current node to First(). */
  int32_t len = 0;
  for (int32_t c = first; c != -1; c = nd[c].parent) len++;
  if (len > ag->path_cap) {
    int32_t cap = len < 64 ? 64 : len;
    int32_t *p = realloc(ag->path, (size_t)cap * sizeof *p);
    if (!p) return -1;
    ag->path = p;
    ag->path_cap = cap;
  }
  int32_t k = len;
  for (int32_t c = first; c != -1; c = nd[c].parent) ag->path[--k] = c;
  ag->path_len = len;
  ag->path_pos = 0;
  return 0;
}

/* Alg. 3 for every agent, then its next cell. */
static int bmaa_plan(mapf__sim *sim, void *state) {
  bmaa *b = state;
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
    if (cur != sim->goal[i] && (!defined || sim->time >= ag->limit)) {
      if (mapf__sim_expired(sim)) return MAPF_OK;
      if (bmaa_search(sim, b, i) < 0) return MAPF_ENOMEM;
      defined = ag->path_len > 1;
    }
    sim->want[i] = defined ? ag->path[ag->path_pos + 1] : MAPF__WAIT;
  }
  return MAPF_OK;
}

static void bmaa_pushed(mapf__sim *sim, void *state, int32_t a) {
  (void)sim;
  bmaa *b = state;
  b->a[a].path_len = 0;
}

const mapf__planner_vt mapf__bmaa_vt = {bmaa_init, bmaa_plan, bmaa_pushed, bmaa_free};
