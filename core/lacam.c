/* lacam.c: LaCAM (Okumura 2023) and LaCAM* (Okumura 2023b), algorithm `lacam`
 * (docs/choices.md, `lacam`). A search over configurations (every agent's cell at once): a
 * depth-first search whose nodes are configurations, each with a lazily enumerated tree of
 * constraints ("agent i goes to cell v next"), and PIBT (pibt.h) as the generator of a node's
 * successor under each set of constraints in turn. At its first step the planner searches from
 * the agents' cells to their targets; the path of configurations it finds is then handed to the
 * simulator one joint step at a time, and the simulator checks each (sim.h, MAPF_EXEC_JOINT).
 *
 * Choices (each tested in tests/test_lacam.c):
 * - High-level search (Okumura 2023, Alg. 1): a stack of nodes; the top one generates one
 *   successor per iteration, from its next set of constraints; a node whose constraints are
 *   exhausted is popped. A configuration already known is not made again: the known node is
 *   pushed again instead (Okumura 2023b's reinsertion), or, once in LACAM_RESTART_IN, the
 *   start node (a random restart, from the run's seed).
 * - Low-level search: a node's constraint sets in breadth-first order. Level k of the tree
 *   constrains the node's k-th agent by priority to one of its cells (its own or a neighbour
 *   by the grid's moves), in a random order drawn once per node and level; a set at depth d is
 *   a mixed-radix number of d digits, so a node holds one small record per level it reached
 *   instead of a queue of its tree's frontier (which grows eightfold per level).
 * - Successors: PIBT with the node's priorities, constrained agents fixed first; a set of
 *   constraints that collide (two on one cell, a swap) or that leave an agent no cell gives
 *   no successor. Priorities as Okumura 2023's: an agent off its target gains one per step
 *   along the search path and is reset on it; ties by distance to the target at the search's
 *   start (farther first), then by a random fraction drawn once per agent from the run's seed.
 *   So a node's order is its parent's order of the agents still off their targets, then those
 *   on them in the tie order: O(agents) per node, no sort.
 * - LaCAM* (`star`): after the first solution the search goes on, pruning nodes whose g + h
 *   cannot beat it, and a configuration found again from another node updates the costs of
 *   everything reachable from it (Okumura 2023b's rewiring, over the known edges both ways:
 *   moves are symmetric, dist.c); once in LACAM_PICK_IN iterations a random node of the
 *   stack is expanded instead of the top (Okumura 2024). The cost is the sum of loss (an agent
 *   pays 1 per step unless it stays on its target), h the sum of the distances to the
 *   targets.
 * - Counters: an expansion is one agent's cell fixed in a generated configuration, a
 *   candidate cell PIBT examines (as `pibt` counts them) or a constraint applied; the
 *   expansion budget and the work model charge these. `nodes` bounds the configurations
 *   made. A push is a step of the plan in which an agent leaves its target.
 * - A search that ends without a solution (a limit, the node budget, or every configuration
 *   tried) ends the run at its first step, nothing executed, with status limit (`expansions`
 *   for the node budget and for a search that tried everything). LaCAM* stops refining while
 *   every limit leaves room to execute what it has (see room()), so a solution, once found, is
 *   not lost to a limit.
 * - Patrol: a target that changes (sim.h) makes the planner search again from where the
 *   agents stand at its next step. Targets that put two agents on one cell (a goal that is
 *   another agent's start; the `patrol` generator never makes one) have no plan: that search
 *   ends the run as above.
 *
 * Okumura 2023 proves LaCAM complete: it returns a solution when one exists and reports
 * failure otherwise, given time and memory; Okumura 2023b proves LaCAM* eventually optimal
 * (for the sum of loss). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "dist.h"
#include "hash.h"
#include "pibt.h"
#include "sim_int.h"

/* A random restart, in so many reinsertions (Okumura 2023b's implementation: 1 in 1,000). */
#define LACAM_RESTART_IN 1000
/* LaCAM*: a random node of the stack is expanded instead of the top in so many iterations. */
#define LACAM_PICK_IN 100
/* The direction of a low-level constraint that keeps the agent on its cell. */
#define LACAM_STAY 8
/* Wall-clock margin LaCAM* keeps for executing its plan, per agent-step of the plan: many
 * times what the simulator's joint step costs (tens of ns per agent). */
#define LACAM_EXEC_NS 500.0

typedef struct lacam_params {
  int32_t nodes;
  bool star;
  bool swap;
} lacam_params;

static const mapf_param_def lacam_param_table[] = {
    {"nodes", MAPF_PARAM_INT, 1, 1000000000, 100000,
     "high-level nodes (configurations) the search may make; memory is about 8 bytes per agent "
     "and node",
     NULL, offsetof(lacam_params, nodes)},
    {"star", MAPF_PARAM_BOOL, 0, 1, 0,
     "LaCAM* (Okumura 2023b): after the first solution, search on for a lower sum of loss "
     "until the node budget, a limit or a proof of optimality",
     NULL, offsetof(lacam_params, star)},
    {"swap", MAPF_PARAM_BOOL, 0, 1, 1,
     "PIBT's swap technique (Okumura 2023b) in the successor generator", NULL,
     offsetof(lacam_params, swap)},
};

/* Level k of a node's low-level search: the cells of agent order[k] as directions from its
 * cell (LACAM_STAY: its own), in the node's random order, and the one of the current set. */
typedef struct lc_level {
  uint8_t dir[9];
  uint8_t n, k;
} lc_level;

/* LaCAM*: a known transition between two nodes and its cost. */
typedef struct lc_edge {
  int32_t to, cost;
} lc_edge;

typedef struct lc_node {
  int32_t *q;       /* the configuration: every agent's cell */
  int32_t *order;   /* agents by priority, highest first */
  lc_level *lv;     /* the low-level search's levels, `depth` in use */
  lc_edge *nb;      /* LaCAM*: known successors and predecessors */
  int64_t g, h;     /* cost from the start node along parents; sum of distances to targets */
  uint64_t hash;
  int32_t parent;   /* -1 for the start */
  int32_t depth;    /* constraints of the next low-level set */
  int32_t cap;      /* levels allocated */
  int32_t nnb, cnb;
  uint8_t done;     /* every set of constraints tried */
} lc_node;

/* Memory for the nodes' configurations and orders, in chunks freed together. */
typedef struct lc_chunk {
  struct lc_chunk *prev;
  size_t used, cap;
  int32_t v[];
} lc_chunk;

typedef struct lacam {
  lacam_params par;
  int32_t n;
  mapf__pibt step;
  const uint32_t **to_goal, **to_start, **cur; /* distance tables (step.dist is cur) */
  uint32_t *eps;   /* per agent: the tie-break fraction */
  int32_t *tie;    /* agents by tie-break, first highest */
  int32_t *occ;    /* per cell: the agent on it in the node being expanded, -1 */
  /* The search. */
  lc_node *node;
  int32_t nnodes, cap_nodes;
  lc_chunk *arena;
  int32_t *slot;   /* open addressing over node[]: index or -1 */
  uint32_t nslot;  /* a power of two */
  int32_t *open, nopen, cap_open;
  int32_t *queue, cap_queue; /* rewiring's */
  /* The plan: plan_len configurations, the first at step plan_t0. */
  int32_t *plan;
  int64_t plan_len, plan_t0;
  int replan;      /* a target changed: search again before the next step */
} lacam;

/* ---- the search's memory ----------------------------------------------------------------- */

static int32_t *arena_alloc(lacam *L, size_t k) {
  lc_chunk *c = L->arena;
  if (!c || c->cap - c->used < k) {
    size_t cap = k > ((size_t)1 << 20) ? k : (size_t)1 << 20;
    c = malloc(sizeof *c + cap * sizeof(int32_t));
    if (!c) return NULL;
    c->prev = L->arena;
    c->used = 0;
    c->cap = cap;
    L->arena = c;
  }
  int32_t *p = c->v + c->used;
  c->used += k;
  return p;
}

/* Frees what a search made (nodes, their memory, the index), not the plan. */
static void search_free(lacam *L) {
  for (int32_t i = 0; i < L->nnodes; i++) {
    free(L->node[i].lv);
    free(L->node[i].nb);
  }
  while (L->arena) {
    lc_chunk *p = L->arena->prev;
    free(L->arena);
    L->arena = p;
  }
  free(L->node);
  free(L->slot);
  free(L->open);
  free(L->queue);
  L->node = NULL;
  L->slot = L->open = L->queue = NULL;
  L->nnodes = L->cap_nodes = L->nopen = L->cap_open = L->cap_queue = 0;
  L->nslot = 0;
}

/* Array p (capacity *cap elements of `size` bytes) with room for `need` elements: p itself, or
 * p moved to a larger block; NULL when out of memory (p is then still valid). */
static void *grown(void *p, int32_t *cap, size_t size, int32_t need) {
  if (need <= *cap) return p;
  int32_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = realloc(p, (size_t)c * size);
  if (q) *cap = c;
  return q;
}

static int push_open(lacam *L, int32_t u) {
  void *p = grown(L->open, &L->cap_open, sizeof *L->open, L->nopen + 1);
  if (!p) return -1;
  L->open = p;
  L->open[L->nopen++] = u;
  return 0;
}

/* ---- configurations ------------------------------------------------------------------------ */

static uint64_t config_hash(const int32_t *q, int32_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (int32_t a = 0; a < n; a++) h = (h ^ (uint32_t)q[a]) * 0x100000001b3ULL;
  return mapf_mix64(h);
}

static int64_t config_h(const lacam *L, const int32_t *q) {
  const int32_t *local = L->step.local;
  int64_t h = 0;
  for (int32_t a = 0; a < L->n; a++) h += L->cur[a][local[q[a]]];
  return h;
}

/* The sum of loss of one joint step: every agent pays 1 unless it stays on its target. */
static int32_t edge_cost(const lacam *L, const int32_t *p, const int32_t *q) {
  const int32_t *t = L->step.target;
  int32_t c = 0;
  for (int32_t a = 0; a < L->n; a++) c += p[a] != t[a] || q[a] != t[a];
  return c;
}

static int32_t lookup(const lacam *L, const int32_t *q, uint64_t h) {
  uint32_t mask = L->nslot - 1;
  for (uint32_t i = (uint32_t)h & mask; L->slot[i] >= 0; i = (i + 1) & mask) {
    const lc_node *u = &L->node[L->slot[i]];
    if (u->hash == h && memcmp(u->q, q, (size_t)L->n * sizeof *q) == 0) return L->slot[i];
  }
  return -1;
}

static int index_insert(lacam *L, int32_t u) {
  if ((uint64_t)(L->nnodes + 1) * 2 > L->nslot) {
    uint32_t ns = L->nslot ? 2 * L->nslot : 1024;
    int32_t *s = malloc((size_t)ns * sizeof *s);
    if (!s) return -1;
    for (uint32_t i = 0; i < ns; i++) s[i] = -1;
    for (int32_t v = 0; v < L->nnodes; v++) {
      if (v == u) continue;
      uint32_t i = (uint32_t)L->node[v].hash & (ns - 1);
      while (s[i] >= 0) i = (i + 1) & (ns - 1);
      s[i] = v;
    }
    free(L->slot);
    L->slot = s;
    L->nslot = ns;
  }
  uint32_t mask = L->nslot - 1, i = (uint32_t)L->node[u].hash & mask;
  while (L->slot[i] >= 0) i = (i + 1) & mask;
  L->slot[i] = u;
  return 0;
}

/* A new node for configuration q (hash h) reached from parent (-1: the start). Returns its
 * index, or -1 when out of memory. */
static int32_t new_node(lacam *L, const int32_t *q, uint64_t h, int32_t parent) {
  int32_t n = L->n;
  void *nodes = grown(L->node, &L->cap_nodes, sizeof *L->node, L->nnodes + 1);
  if (!nodes) return -1;
  L->node = nodes;
  int32_t *mem = arena_alloc(L, 2 * (size_t)(n > 0 ? n : 1));
  if (!mem) return -1;
  int32_t u = L->nnodes;
  lc_node *x = &L->node[u];
  memset(x, 0, sizeof *x);
  x->q = mem;
  x->order = mem + n;
  x->parent = parent;
  x->hash = h;
  memcpy(x->q, q, (size_t)n * sizeof *q);
  const int32_t *t = L->step.target;
  if (parent < 0) {
    memcpy(x->order, L->tie, (size_t)n * sizeof *x->order);
  } else {
    /* Agents off their targets gain one step each, keeping their order; agents on them are
     * reset and come last, by the tie order. */
    const lc_node *p = &L->node[parent];
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++)
      if (q[p->order[i]] != t[p->order[i]]) x->order[k++] = p->order[i];
    for (int32_t i = 0; i < n; i++)
      if (q[L->tie[i]] == t[L->tie[i]]) x->order[k++] = L->tie[i];
    x->g = p->g + edge_cost(L, p->q, q);
  }
  x->h = config_h(L, q);
  L->nnodes++;
  if (index_insert(L, u) < 0) {
    L->nnodes--;
    return -1;
  }
  return u;
}

/* ---- the low-level search ------------------------------------------------------------------ */

/* Moves node x's low-level search to its next set of constraints: the next number of `depth`
 * digits, or, past the last, the first of one more level (the next agent by priority, its
 * cells in a random order). Returns -1 when out of memory. */
static int advance(lacam *L, lc_node *x, const mapf_grid *g, mapf_rng *rng) {
  int32_t d = x->depth;
  for (int32_t j = d - 1; j >= 0; j--) {
    if (++x->lv[j].k < x->lv[j].n) return 0;
    x->lv[j].k = 0;
  }
  if (d == L->n) {
    x->done = 1;
    return 0;
  }
  void *p = grown(x->lv, &x->cap, sizeof *x->lv, d + 1);
  if (!p) return -1;
  x->lv = p;
  lc_level *lv = &x->lv[d];
  uint8_t m = g->moves[x->q[x->order[d]]];
  lv->n = 0;
  lv->k = 0;
  for (int dir = 0; dir < 8; dir++)
    if (m >> dir & 1) lv->dir[lv->n++] = (uint8_t)dir;
  lv->dir[lv->n++] = LACAM_STAY;
  for (int i = lv->n - 1; i > 0; i--) {
    int j = (int)mapf_rng_below(rng, (uint64_t)i + 1);
    uint8_t s = lv->dir[i];
    lv->dir[i] = lv->dir[j];
    lv->dir[j] = s;
  }
  x->depth = d + 1;
  return 0;
}

/* The successor of node u under its current set of constraints, in step.next (step.next_occ
 * as PIBT leaves it: the caller clears both), and moves u's low-level search on. Returns 1,
 * 0 when the set gives no successor (colliding constraints, or PIBT finds no cell for an
 * agent whose cell a constraint took), or -1 when out of memory. */
static int generate(mapf__sim *sim, lacam *L, int32_t u) {
  mapf__pibt *S = &L->step;
  lc_node *x = &L->node[u];
  const mapf_grid *g = sim->grid;
  const int32_t *q = x->q;
  int32_t n = L->n, d = x->depth;
  int ok = 1;
  for (int32_t k = 0; k < d && ok; k++) {
    int32_t a = x->order[k];
    int dir = x->lv[k].dir[x->lv[k].k];
    int32_t v = dir == LACAM_STAY ? q[a] : q[a] + g->offset[dir];
    sim->expansions++;
    sim->agent[a].expansions++;
    int32_t j = S->next_occ[q[a]];
    if (S->next_occ[v] >= 0 || (j >= 0 && q[j] == v)) { /* two on one cell; a swap */
      ok = 0;
      break;
    }
    S->next[a] = v;
    S->next_occ[v] = a;
  }
  if (advance(L, x, g, &sim->rng) < 0) return -1;
  if (!ok) return 0;
  for (int32_t a = 0; a < n; a++) L->occ[q[a]] = a;
  for (int32_t i = d; i < n && ok; i++) {
    int32_t a = x->order[i];
    if (S->next[a] >= 0) continue;
    int held = S->next_occ[q[a]] >= 0; /* a constraint took a's cell: a must leave it */
    sim->expansions += mapf__pibt_plan(S, q, L->occ, a, &sim->rng);
    if (held && S->next[a] == q[a]) ok = 0;
  }
  for (int32_t i = d; i < n; i++) {
    int32_t a = x->order[i];
    if (S->next[a] >= 0) sim->agent[a].expansions += S->tried[a];
  }
  for (int32_t a = 0; a < n; a++) L->occ[q[a]] = -1;
  return ok;
}

/* ---- LaCAM* -------------------------------------------------------------------------------- */

static int add_edge(lacam *L, int32_t from, int32_t to, int32_t cost) {
  lc_node *x = &L->node[from];
  for (int32_t i = 0; i < x->nnb; i++)
    if (x->nb[i].to == to) return 0;
  void *p = grown(x->nb, &x->cnb, sizeof *x->nb, x->nnb + 1);
  if (!p) return -1;
  x->nb = p;
  x->nb[x->nnb++] = (lc_edge){to, cost};
  return 0;
}

/* Okumura 2023b's rewiring: from node `from`, whose edges changed, lowers the cost of every
 * node that a known edge now reaches more cheaply, and puts back on the stack those that might
 * beat the solution (goal >= 0). A queue suffices: costs only go down. */
static int rewire(lacam *L, int32_t from, int32_t goal) {
  int32_t head = 0, tail = 0;
  void *p = grown(L->queue, &L->cap_queue, sizeof *L->queue, 1);
  if (!p) return -1;
  L->queue = p;
  L->queue[tail++] = from;
  while (head < tail) {
    int32_t u = L->queue[head++];
    for (int32_t i = 0; i < L->node[u].nnb; i++) {
      lc_edge e = L->node[u].nb[i];
      lc_node *v = &L->node[e.to];
      int64_t gv = L->node[u].g + e.cost;
      if (gv >= v->g) continue;
      v->g = gv;
      v->parent = u;
      if (head > 0 && tail == L->cap_queue) { /* reuse the consumed front */
        memmove(L->queue, L->queue + head, (size_t)(tail - head) * sizeof *L->queue);
        tail -= head;
        head = 0;
      }
      void *q = grown(L->queue, &L->cap_queue, sizeof *L->queue, tail + 1);
      if (!q) return -1;
      L->queue = q;
      L->queue[tail++] = e.to;
      if (goal >= 0 && e.to != goal && gv + v->h < L->node[goal].g && push_open(L, e.to) < 0)
        return -1;
    }
  }
  return 0;
}

/* Steps of the plan ending at node u. */
static int64_t plan_steps(const lacam *L, int32_t u) {
  int64_t t = 0;
  for (; L->node[u].parent >= 0; u = L->node[u].parent) t++;
  return t;
}

/* Whether LaCAM* may try one more successor after finding a solution ending at `goal`: the
 * budgets must survive the most one generation charges (nine candidates per agent), so the
 * steps of the plan are still executed (the simulator stops a run at a passed budget, sim.c),
 * and the clock must leave time for the longest iteration so far, twice, and for executing
 * the plan at LACAM_EXEC_NS per agent-step. */
static int room(const mapf__sim *sim, const lacam *L, int32_t goal, double slowest) {
  double next = (double)sim->expansions + 9.0 * L->n;
  if (sim->max_expansions > 0 && next >= (double)sim->max_expansions) return 0;
  int64_t steps = -1;
  if (sim->max_work_ns > 0) {
    steps = plan_steps(L, goal);
    double work = sim->work.expansion_ns * next +
                  sim->work.agent_step_ns * (double)L->n * (double)(sim->begun + steps);
    if (work >= sim->max_work_ns) return 0;
  }
  if (sim->deadline > 0) {
    if (steps < 0) steps = plan_steps(L, goal);
    double margin = 2 * slowest + LACAM_EXEC_NS * 1e-9 * (double)L->n * (double)steps;
    if (mapf__now() + margin >= sim->deadline) return 0;
  }
  return 1;
}

/* ---- the search ---------------------------------------------------------------------------- */

typedef struct tie_key {
  uint64_t key; /* distance << 32 | fraction */
  int32_t a;
} tie_key;

static int by_tie(const void *x, const void *y) {
  const tie_key *p = x, *q = y;
  if (p->key != q->key) return p->key < q->key ? 1 : -1;
  return (p->a > q->a) - (p->a < q->a);
}

/* The tie order of the agents standing on pos: farther from the target first, then the larger
 * fraction, then the lower index. Returns -1 when out of memory. */
static int set_ties(lacam *L, const int32_t *pos) {
  int32_t n = L->n;
  tie_key *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
  if (!k) return -1;
  for (int32_t a = 0; a < n; a++)
    k[a] = (tie_key){(uint64_t)L->cur[a][L->step.local[pos[a]]] << 32 | L->eps[a], a};
  qsort(k, (size_t)n, sizeof *k, by_tie);
  for (int32_t i = 0; i < n; i++) L->tie[i] = k[i].a;
  free(k);
  return 0;
}

/* Copies the configurations from the start node to `goal` into the plan. */
static int make_plan(mapf__sim *sim, lacam *L, int32_t goal) {
  int64_t len = plan_steps(L, goal) + 1;
  free(L->plan);
  L->plan = malloc((size_t)len * (size_t)L->n * sizeof *L->plan + 1);
  if (!L->plan) return -1;
  int64_t t = len;
  for (int32_t u = goal; u >= 0; u = L->node[u].parent)
    memcpy(L->plan + --t * L->n, L->node[u].q, (size_t)L->n * sizeof *L->plan);
  L->plan_len = len;
  L->plan_t0 = sim->time;
  return 0;
}

/* LaCAM's search (Okumura 2023, Alg. 1; with `star`, Okumura 2023b, Alg. 1) from the agents'
 * cells to their targets. Returns 1 with the plan made, 0 when it ended without one
 * (sim->expired set: the limit that passed, or MAPF_LIMIT_EXPANSIONS for the node budget or
 * a search that tried everything), 2 when two targets are one cell (no configuration reaches
 * them all; nothing searched), -1 when out of memory. */
static int search(mapf__sim *sim, lacam *L) {
  mapf__pibt *S = &L->step;
  int32_t n = L->n;
  int star = L->par.star;
  search_free(L);
  free(L->plan);
  L->plan = NULL;
  /* Targets that put two agents on one cell (possible under patrol: a goal may be another
   * agent's start) can never all be reached at once. */
  int collide = 0;
  for (int32_t a = 0; a < n; a++) {
    collide |= L->occ[S->target[a]] >= 0;
    L->occ[S->target[a]] = a;
  }
  for (int32_t a = 0; a < n; a++) L->occ[S->target[a]] = -1;
  if (collide) return 2;
  if (set_ties(L, sim->pos) < 0) return -1;
  int32_t root = new_node(L, sim->pos, config_hash(sim->pos, n), -1);
  if (root < 0 || push_open(L, root) < 0) return -1;
  int32_t goal = L->node[root].h == 0 ? root : -1;
  double slowest = 0, t_last = sim->deadline > 0 ? mapf__now() : 0;
  while (L->nopen > 0 && (goal < 0 || star)) {
    if (goal < 0 ? mapf__sim_expired(sim) : !room(sim, L, goal, slowest)) break;
    int32_t top = L->nopen - 1;
    /* LaCAM*: now and then a random node of the stack instead of the top (Okumura 2024), so
     * that refining does not stay in the top node's tree. */
    if (goal >= 0 && mapf_rng_below(&sim->rng, LACAM_PICK_IN) == 0)
      top = (int32_t)mapf_rng_below(&sim->rng, (uint64_t)L->nopen);
    int32_t u = L->open[top];
    if (L->node[u].done || (goal >= 0 && L->node[u].g + L->node[u].h >= L->node[goal].g)) {
      memmove(L->open + top, L->open + top + 1, (size_t)(--L->nopen - top) * sizeof *L->open);
      continue;
    }
    int ok = generate(sim, L, u);
    if (ok < 0) return -1;
    if (ok) {
      uint64_t h = config_hash(S->next, n);
      int32_t v = lookup(L, S->next, h);
      if (v >= 0) {
        if (star) {
          int32_t c = edge_cost(L, L->node[u].q, S->next);
          if (add_edge(L, u, v, c) < 0 || add_edge(L, v, u, c) < 0 || rewire(L, u, goal) < 0)
            return -1;
        }
        int32_t w = mapf_rng_below(&sim->rng, LACAM_RESTART_IN) == 0 ? root : v;
        if ((goal < 0 || L->node[w].g + L->node[w].h < L->node[goal].g) && push_open(L, w) < 0)
          return -1;
      } else if (L->nnodes >= L->par.nodes) {
        mapf__pibt_clear(S);
        break;
      } else {
        v = new_node(L, S->next, h, u);
        if (v < 0) return -1;
        if (star) {
          int32_t c = (int32_t)(L->node[v].g - L->node[u].g);
          if (add_edge(L, u, v, c) < 0 || add_edge(L, v, u, c) < 0) return -1;
        }
        if (L->node[v].h == 0)
          goal = v;
        else if ((goal < 0 || L->node[v].g + L->node[v].h < L->node[goal].g) &&
                 push_open(L, v) < 0)
          return -1;
      }
    }
    mapf__pibt_clear(S);
    if (sim->deadline > 0) {
      double now = mapf__now();
      if (now - t_last > slowest) slowest = now - t_last;
      t_last = now;
    }
  }
  /* A search that passed a budget with its last successor has spent it: nothing is executed
   * (the simulator would stop the plan after its first step). */
  if (goal < 0 || mapf__sim_expired(sim)) {
    if (!sim->expired) sim->expired = MAPF_LIMIT_EXPANSIONS;
    return 0;
  }
  /* The nodes are freed at the next search or the run's end, out of the steps' time. */
  return make_plan(sim, L, goal) < 0 ? -1 : 1;
}

/* ---- the planner --------------------------------------------------------------------------- */

static void lacam_free(void *state) {
  lacam *L = state;
  if (!L) return;
  search_free(L);
  mapf__pibt_free(&L->step);
  free(L->to_goal);
  free(L->to_start);
  free(L->cur);
  free(L->eps);
  free(L->tie);
  free(L->occ);
  free(L->plan);
  free(L);
}

static int lacam_init(mapf__sim *sim, void **state, mapf_diag *d) {
  lacam_params par;
  int rc = mapf_params_fill(sim->cfg->algo, &sim->cfg->params, &par, sizeof par, d);
  if (rc != MAPF_OK) return rc;
  const mapf_grid *g = sim->grid;
  const mapf_instance *inst = sim->cfg->inst;
  int32_t n = sim->n;
  size_t m = n > 0 ? (size_t)n : 1;
  lacam *L = calloc(1, sizeof *L);
  if (!L) return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  L->par = par;
  L->n = n;
  L->to_goal = malloc(m * sizeof *L->to_goal);
  L->to_start = calloc(m, sizeof *L->to_start);
  L->cur = malloc(m * sizeof *L->cur);
  L->eps = malloc(m * sizeof *L->eps);
  L->tie = malloc(m * sizeof *L->tie);
  L->occ = malloc((size_t)g->ncells * sizeof *L->occ);
  if (!L->to_goal || !L->to_start || !L->cur || !L->eps || !L->tie || !L->occ ||
      mapf__dist_begin(sim->dist, g) < 0 ||
      mapf__pibt_init(&L->step, g, sim->dist->local, n) < 0) {
    lacam_free(L);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  for (int32_t c = 0; c < g->ncells; c++) L->occ[c] = -1;
  L->step.dist = L->cur;
  L->step.target = sim->goal;
  L->step.swap = par.swap;
  for (int32_t a = 0; a < n; a++) {
    L->to_goal[a] = mapf__dist_get(sim->dist, g, sim->goal[a]);
    if (inst->loops > 0) L->to_start[a] = mapf__dist_get(sim->dist, g, inst->start[a]);
    if (!L->to_goal[a] || (inst->loops > 0 && !L->to_start[a])) {
      lacam_free(L);
      return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0,
                           "out of memory for the distance tables of %d agents", (int)n);
    }
    L->cur[a] = L->to_goal[a];
    L->eps[a] = (uint32_t)(mapf_rng_next(&sim->rng) >> 32);
  }
  sim->push = 0;
  L->replan = 1;
  *state = L;
  return MAPF_OK;
}

/* Lifelong tasks may coincide (events.h), and then no configuration has every agent on its
 * target: rather than end the run, the agents take one PIBT step (the search's successor
 * generator, from where they stand, in the search's tie order) and the search is tried again
 * at the next step, when some task has changed. */
static int pibt_step(mapf__sim *sim, lacam *L) {
  mapf__pibt *S = &L->step;
  if (set_ties(L, sim->pos) < 0) return MAPF_ENOMEM;
  for (int32_t a = 0; a < L->n; a++) L->occ[sim->pos[a]] = a;
  for (int32_t i = 0; i < L->n; i++) {
    int32_t a = L->tie[i];
    if (S->next[a] < 0) sim->expansions += mapf__pibt_plan(S, sim->pos, L->occ, a, &sim->rng);
  }
  for (int32_t a = 0; a < L->n; a++) {
    int32_t here = sim->pos[a];
    sim->agent[a].expansions += S->tried[a];
    sim->want[a] = S->next[a] == here ? MAPF__WAIT : S->next[a];
    if (here == sim->goal[a] && S->next[a] != here) sim->agent[a].pushed++;
    L->occ[here] = -1;
  }
  mapf__pibt_clear(S);
  return MAPF_OK;
}

static int lacam_plan(mapf__sim *sim, void *state) {
  lacam *L = state;
  if (L->replan) {
    /* New targets (events, lifelong goals): their tables, searched now if not cached. */
    if (sim->cfg->inst->loops == 0 &&
        mapf__dist_release(sim->dist, L->cur, L->n, MAPF_DIST_CACHE_BYTES) < 0)
      return MAPF_ENOMEM; /* as pibt.c: only the tables of the agents' targets stay */
    for (int32_t a = 0; a < L->n; a++)
      if (!L->cur[a] && !(L->cur[a] = mapf__dist_get(sim->dist, sim->grid, sim->goal[a])))
        return MAPF_ENOMEM;
    /* A closed door may cut an agent off its target (map changes: its table does not reach
     * it). No configuration then has every agent on its target, and the search would run until
     * a budget ends it: the agents take PIBT steps until the map changes again. */
    for (int32_t a = 0; a < L->n; a++)
      if (L->cur[a][L->step.local[sim->pos[a]]] == UINT32_MAX) return pibt_step(sim, L);
    int rc = search(sim, L);
    if (rc < 0) return MAPF_ENOMEM;
    if (rc == 2 && sim->cfg->inst->lifelong) return pibt_step(sim, L);
    if (rc == 2) sim->expired = MAPF_LIMIT_EXPANSIONS;
    if (rc != 1) return MAPF_OK; /* sim->expired says why */
    L->replan = 0;
  }
  int64_t t = sim->time - L->plan_t0 + 1;
  const int32_t *next = t < L->plan_len ? L->plan + t * L->n : sim->pos;
  for (int32_t a = 0; a < L->n; a++) {
    int32_t here = sim->pos[a];
    sim->want[a] = next[a] == here ? MAPF__WAIT : next[a];
    if (here == sim->goal[a] && next[a] != here) sim->agent[a].pushed++;
  }
  return MAPF_OK;
}

/* Agent a's target changed (patrol, re-tasking, lifelong goals: sim_int.h); the plan led to
 * the old one, so the search starts again from where the agents stand. Under patrol both
 * tables are at hand; another target's is fetched at the next plan. */
static void lacam_retarget(mapf__sim *sim, void *state, int32_t a) {
  lacam *L = state;
  const mapf_instance *inst = sim->cfg->inst;
  if (inst->loops > 0)
    L->cur[a] = sim->goal[a] == inst->goal[a] ? L->to_goal[a] : L->to_start[a];
  else
    L->cur[a] = NULL;
  L->replan = 1;
}

/* The map changed (sim_int.h; docs/events.md): the plan may cross closed cells and the tables
 * are the old map's, so the search starts again from where the agents stand (Okumura 2023:
 * LaCAM plans from a configuration; the current one is as good a start as any), with every
 * table fetched again for the run's grid, a new map to the distance cache (repaired from the
 * old one around the changed cells: dist.h). */
static int lacam_map_changed(mapf__sim *sim, void *state, const int32_t *cells, int32_t n) {
  lacam *L = state;
  L->replan = 1;
  return mapf__pibt_tables_changed(sim, &L->step, cells, n, L->to_goal, L->to_start, L->cur) < 0
             ? MAPF_ENOMEM
             : MAPF_OK;
}

static const mapf__planner_vt lacam_vt = {
    .init = lacam_init,
    .plan = lacam_plan,
    .free = lacam_free,
    .retarget = lacam_retarget,
    .map_changed = lacam_map_changed,
};

MAPF_ALGORITHM(lacam, 80) = {
    .name = "lacam",
    .label = "LaCAM",
    .doc = "Lazy Constraints Addition search for MAPF: a depth-first search over configurations "
           "with PIBT as the successor generator, planned at the first step and executed under "
           "the joint rule (Okumura 2023); `star`: LaCAM*, refining towards the least sum of "
           "loss (Okumura 2023b); an expansion is one agent's cell fixed in a generated "
           "configuration",
    .params = lacam_param_table,
    .nparams = MAPF_NPARAMS(lacam_param_table),
    .size = sizeof(lacam_params),
    .vt = &lacam_vt,
    /* Weights measured by `mapfarm calibrate` (docs/choices.md, "The work budget"). */
    .work = {.expansion_ns = 165, .agent_step_ns = 0},
    .joint = true,
};
