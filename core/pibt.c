/* pibt.c: PIBT, Priority Inheritance with Backtracking (Okumura, Machida, Défago & Tamura 2022;
 * docs/choices.md, `pibt`). A one-step planner: every step, agents in priority order choose
 * their next cells; an agent that wants the cell of an agent that has not chosen yet lends it
 * its priority, and takes the cell only if that agent can get out of the way (backtracking
 * otherwise). The whole step is one joint move, executed under the joint rule (sim.h,
 * MAPF_EXEC_JOINT), where a rotation of three or more agents is allowed and no two swap.
 *
 * Choices (each tested in tests/test_pibt.c):
 * - Priority (the paper's): the steps since the agent last stood on its target, plus a fraction
 *   drawn once per agent from the run's seed (32 bits from sim->rng), so no two agents tie in
 *   practice; an exact tie goes to the lower index. Reset to the fraction on the target. Under
 *   patrol reaching a target resets it, whatever the next target.
 * - Candidates: the agent's cell and the cells of its legal moves (grid->moves, so a grid with
 *   other moves needs nothing here), ranked by the number of moves to the target (a BFS table,
 *   dist.h), then, on 8-connected grids, a straight move before a diagonal one (both keep a
 *   path shortest in steps; the straight one keeps it shortest in length, so ties do not make
 *   agents zigzag), then by a random order drawn each step from the run's seed.
 * - The failing agent stays; an agent that stays where a higher agent wanted to go makes that
 *   agent try its next candidate (the paper's backtracking). The search is iterative, on an
 *   explicit stack: a chain of inheritance is as long as the agents in a corridor.
 * - Distance tables: one BFS per distinct target, made in init (the run's set-up, timed
 *   apart: setup_seconds) or found in the thread's cache (dist.h), which keeps them across jobs.
 * - Counters: an expansion is one candidate examined (limits.expansions and the work model
 *   charge it); a failed move is a step in which an agent did not get its first choice and
 *   that choice was a move; a push is a step in which an agent standing on its target was made
 *   to leave it (by priority inheritance). No searches are counted.
 * - `swap` (default false: the 2022 algorithm): the swap technique of Okumura 2023b,
 *   for two agents that must pass each other where neither can step aside: the one that would
 *   push the other walks back instead, pulling it along, until a cell with a side exit lets
 *   them pass. See swap_partner below.
 *
 * Okumura et al. 2022 prove that every agent reaches its goal at some step on graphs where
 * every two adjacent vertices lie on a simple cycle (biconnected ones, for instance); not in
 * general: a dead end can stop it for good (tests/test_pibt.c). Reaching is not staying: all
 * agents on their goals at once, the end of a run, is guaranteed nowhere. */
#include "pibt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "dist.h"
#include "sim_int.h"

/* ---- one joint step (pibt.h) ----------------------------------------------------------- */

void mapf__pibt_free(mapf__pibt *P) {
  free(P->next);
  free(P->next_occ);
  free(P->first);
  free(P->tried);
  free(P->stack);
  memset(P, 0, sizeof *P);
}

int mapf__pibt_init(mapf__pibt *P, const mapf_grid *g, const int32_t *local, int32_t n) {
  size_t m = n > 0 ? (size_t)n : 1;
  memset(P, 0, sizeof *P);
  P->grid = g;
  P->local = local;
  P->n = n;
  P->next = malloc(m * sizeof *P->next);
  P->next_occ = malloc((size_t)g->ncells * sizeof *P->next_occ);
  P->first = malloc(m * sizeof *P->first);
  P->tried = calloc(m, 1);
  P->stack = malloc(m * sizeof *P->stack);
  if (!P->next || !P->next_occ || !P->first || !P->tried || !P->stack) {
    mapf__pibt_free(P);
    return -1;
  }
  for (int32_t a = 0; a < n; a++) P->next[a] = -1;
  for (int32_t c = 0; c < g->ncells; c++) P->next_occ[c] = -1;
  return 0;
}

void mapf__pibt_clear(mapf__pibt *P) {
  for (int32_t a = 0; a < P->n; a++) {
    if (P->next[a] >= 0) P->next_occ[P->next[a]] = -1;
    P->next[a] = -1;
  }
}

/* The swap technique (Okumura 2023b; the `swap` parameter): a way round PIBT's blind
 * spot, two agents that must pass each other in a corridor. Counts the neighbours of v that
 * an agent coming from `from` could step aside to: every move of v but the one back, less
 * dead ends held by agents on their targets (they will not move). *other: one of them. */
static int side_exits(const mapf__pibt *P, const int32_t *occ, int32_t v, int32_t from,
                      int32_t *other) {
  const mapf_grid *g = P->grid;
  uint8_t m = g->moves[v];
  int n = 0;
  for (int dir = 0; dir < 8; dir++) {
    if (!(m >> dir & 1)) continue;
    int32_t u = v + g->offset[dir];
    if (u == from) continue;
    int32_t k = occ[u];
    uint8_t mu = g->moves[u];
    if (k >= 0 && P->target[k] == u && (mu & (mu - 1)) == 0) continue; /* one move: a dead end */
    n++;
    *other = u;
  }
  return n;
}

static inline uint32_t dist_of(const mapf__pibt *P, int32_t a, int32_t v) {
  return P->dist[a][P->local[v]];
}

/* Whether `pusher` at vp, wanting the cell vq of `puller`, needs to pass it: walking the
 * corridor ahead while it leads the pusher nearer its target, no side exit lets the puller
 * step aside, and the puller wants to go where the pusher comes from. */
static int swap_required(const mapf__pibt *P, const int32_t *occ, int32_t pusher, int32_t puller,
                         int32_t vp, int32_t vq) {
  int32_t next = -1;
  while (dist_of(P, pusher, vq) < dist_of(P, pusher, vp)) {
    int n = side_exits(P, occ, vq, vp, &next);
    if (n >= 2) return 0; /* the puller can step aside */
    if (n == 0) break;
    vp = vq;
    vq = next;
  }
  return dist_of(P, puller, vp) < dist_of(P, puller, vq) &&
         (dist_of(P, pusher, vp) == 0 || dist_of(P, pusher, vq) < dist_of(P, pusher, vp));
}

/* Whether pulling from vq away from vp reaches a cell with a side exit, where the two agents
 * can pass, before coming round to vp or into a dead end. */
static int swap_possible(const mapf__pibt *P, const int32_t *occ, int32_t vp, int32_t vq) {
  int32_t start = vp, next = -1;
  for (int32_t steps = 0; vq != start && steps < P->grid->ncells; steps++) {
    int n = side_exits(P, occ, vq, vp, &next);
    if (n >= 2) return 1;
    if (n == 0) return 0;
    vp = vq;
    vq = next;
  }
  return 0;
}

/* The agent that agent a at `here`, whose best cell is best, should pull behind it instead of
 * pushing, or -1: the agent on best when the two must pass each other and can; or one beside
 * a that would have to pass a one step later. */
static int32_t swap_partner(const mapf__pibt *P, const int32_t *pos, const int32_t *occ,
                            int32_t a, int32_t here, int32_t best) {
  int32_t j = occ[best];
  if (j >= 0 && j != a && P->next[j] < 0 && swap_required(P, occ, a, j, here, best) &&
      swap_possible(P, occ, best, here))
    return j;
  if (best == here) return -1;
  const mapf_grid *g = P->grid;
  uint8_t m = g->moves[here];
  for (int dir = 0; dir < 8; dir++) {
    if (!(m >> dir & 1)) continue;
    int32_t k = occ[here + g->offset[dir]];
    if (k >= 0 && pos[k] != best && swap_required(P, occ, k, a, here, best) &&
        swap_possible(P, occ, best, here))
      return k;
  }
  return -1;
}

/* Fills f with agent f->a's candidates at `here`, ranked (see the top of this file); with the
 * swap technique, in reverse when the agent should pull a partner (f->pull). */
static void rank_candidates(mapf__pibt *P, const int32_t *pos, const int32_t *occ, int32_t here,
                            mapf__pibt_frame *f, mapf_rng *rng) {
  const mapf_grid *g = P->grid;
  const uint32_t *dist = P->dist[f->a];
  const int32_t *local = P->local;
  uint64_t r = mapf_rng_next(rng);
  uint64_t key[9];
  /* key: moves to the target, then diagonal or not, then 7 random bits. */
  key[0] = (uint64_t)dist[local[here]] << 8 | (r & 127);
  f->cand[0] = here;
  int nc = 1;
  uint8_t m = g->moves[here];
  for (int dir = 0; dir < 8; dir++) {
    if (!(m >> dir & 1)) continue;
    int32_t c = here + g->offset[dir];
    r >>= 7;
    uint64_t k = (uint64_t)dist[local[c]] << 8 | (uint64_t)(dir >= 4) << 7 | (r & 127);
    int j = nc++;
    while (j > 0 && key[j - 1] > k) {
      key[j] = key[j - 1];
      f->cand[j] = f->cand[j - 1];
      j--;
    }
    key[j] = k;
    f->cand[j] = c;
  }
  f->nc = (uint8_t)nc;
  f->k = 0;
  f->pull = -1;
  P->first[f->a] = f->cand[0];
  if (P->swap && (f->pull = swap_partner(P, pos, occ, f->a, here, f->cand[0])) >= 0)
    for (int i = 0, j = nc - 1; i < j; i++, j--) {
      int32_t t = f->cand[i];
      f->cand[i] = f->cand[j];
      f->cand[j] = t;
    }
}

/* The swap technique's pull, once agent a has its cell: its partner, if still undecided,
 * follows into a's cell when nobody else takes it. */
static void pull(mapf__pibt *P, const int32_t *pos, const mapf__pibt_frame *f) {
  int32_t s = f->pull, here = pos[f->a];
  if (s < 0 || P->next[s] >= 0 || P->next_occ[here] >= 0) return;
  P->next[s] = here;
  P->next_occ[here] = s;
  P->first[s] = here;
  P->tried[s] = 0;
}

/* PIBT(root) (Okumura et al. 2022, Alg. 1), iteratively: a frame's candidates are tried in
 * order; a candidate reserved for the next step, or the cell of an agent that has decided to
 * come to this agent's cell (a swap: the agent it inherits from, or a constrained one), is
 * skipped; a candidate held by an agent that has not decided makes that agent decide
 * next, inheriting; if it fails (it stays, and now holds the cell for the next step), the
 * next candidate is tried. An agent with no candidate left stays and fails. */
int64_t mapf__pibt_plan(mapf__pibt *P, const int32_t *pos, const int32_t *occ, int32_t root,
                        mapf_rng *rng) {
  mapf__pibt_frame *stack = P->stack;
  int32_t top = 0;
  int64_t tried = 0;
  stack[top] = (mapf__pibt_frame){.a = root, .parent = -1};
  rank_candidates(P, pos, occ, pos[root], &stack[top++], rng);
  while (top > 0) {
    mapf__pibt_frame *f = &stack[top - 1];
    int32_t a = f->a;
    int ok = 0, child = 0;
    while (f->k < f->nc) {
      int32_t c = f->cand[f->k++];
      tried++;
      if (P->next_occ[c] >= 0) continue;
      /* No swap with an agent that has decided to come to a's cell: the parent it inherits
       * from, or an agent a caller constrained. Without constraints only the parent can be
       * one (an agent that took a's cell earlier made a decide then). */
      int32_t b = occ[c];
      if (b >= 0 && b != a && P->next[b] == pos[a]) continue;
      P->next[a] = c;
      P->next_occ[c] = a;
      if (b >= 0 && b != a && P->next[b] < 0) {
        stack[top] = (mapf__pibt_frame){.a = b, .parent = a};
        rank_candidates(P, pos, occ, pos[b], &stack[top++], rng);
        child = 1;
        break;
      }
      ok = 1;
      break;
    }
    if (child) continue;
    P->tried[a] = f->k;
    if (ok) {
      pull(P, pos, f);
    } else { /* stays; its cell may have been its parent's candidate, which now fails */
      P->next[a] = pos[a];
      P->next_occ[pos[a]] = a;
    }
    top--;
    /* A frame resumes after its child: when the child succeeded it succeeds too (its
     * reservation holds), and so on down the stack; when the child failed it goes on with
     * its next candidate. */
    while (ok && top > 0) {
      f = &stack[--top];
      P->tried[f->a] = f->k;
      pull(P, pos, f);
    }
  }
  return tried;
}

/* ---- the planner ----------------------------------------------------------------------- */

typedef struct pibt_params {
  bool swap;
} pibt_params;

static const mapf_param_def pibt_param_table[] = {
    {"swap", MAPF_PARAM_BOOL, 0, 1, 0,
     "the swap technique (Okumura 2023b): an agent pulls one it must pass in a corridor",
     NULL, offsetof(pibt_params, swap)},
};

typedef struct pibt {
  int32_t n;
  mapf__pibt step;
  const uint32_t **to_goal;       /* per agent: moves to its goal */
  const uint32_t **to_start;      /* per agent: moves to its start (patrol only) */
  int32_t refetch;                /* agents whose cur[] is NULL: a new target's table is due */
  const uint32_t **cur;           /* per agent: the table of its current target (step.dist) */
  uint32_t *elapsed;              /* per agent: steps since it last stood on its target */
  uint32_t *eps;                  /* per agent: the tie-break fraction, in 2^-32 */
  uint8_t *reset;                 /* per agent: retargeted since the last step */
  int32_t *order, *ord_tmp;       /* agents by priority, highest first; scratch */
  int32_t *b1, *c1, *u;           /* scratch of the priority update */
} pibt;

static void pibt_free(void *state) {
  pibt *P = state;
  if (!P) return;
  mapf__pibt_free(&P->step);
  free(P->to_goal);
  free(P->to_start);
  free(P->cur);
  free(P->elapsed);
  free(P->eps);
  free(P->reset);
  free(P->order);
  free(P->ord_tmp);
  free(P->b1);
  free(P->c1);
  free(P->u);
  free(P);
}

/* Higher priority first: more steps off the target, then the larger fraction, then the lower
 * index. */
static inline int higher(const pibt *P, int32_t a, int32_t b) {
  if (P->elapsed[a] != P->elapsed[b]) return P->elapsed[a] > P->elapsed[b];
  if (P->eps[a] != P->eps[b]) return P->eps[a] > P->eps[b];
  return a < b;
}

/* qsort has no context argument: sort by a key that orders as `higher` does. */
typedef struct prio_key {
  uint64_t key; /* elapsed << 32 | eps */
  int32_t a;
} prio_key;

static int by_priority(const void *x, const void *y) {
  const prio_key *p = x, *q = y;
  if (p->key != q->key) return p->key < q->key ? 1 : -1;
  return (p->a > q->a) - (p->a < q->a);
}

/* Sorts agents[0..n) by priority, highest first. Returns -1 when out of memory. */
static int sort_agents(const pibt *P, int32_t *agents, int32_t n) {
  if (n < 2) return 0;
  if (n <= 16) { /* the usual case in the step update: a few arrivals */
    for (int32_t i = 1; i < n; i++) {
      int32_t a = agents[i], j = i;
      while (j > 0 && higher(P, a, agents[j - 1])) {
        agents[j] = agents[j - 1];
        j--;
      }
      agents[j] = a;
    }
    return 0;
  }
  prio_key *k = malloc((size_t)n * sizeof *k);
  if (!k) return -1;
  for (int32_t i = 0; i < n; i++)
    k[i] = (prio_key){(uint64_t)P->elapsed[agents[i]] << 32 | P->eps[agents[i]], agents[i]};
  qsort(k, (size_t)n, sizeof *k, by_priority);
  for (int32_t i = 0; i < n; i++) agents[i] = k[i].a;
  free(k);
  return 0;
}

static int pibt_init(mapf__sim *sim, void **state, mapf_diag *d) {
  pibt_params par;
  int rc = mapf_params_fill(sim->cfg->algo, &sim->cfg->params, &par, sizeof par, d);
  if (rc != MAPF_OK) return rc;
  const mapf_grid *g = sim->grid;
  const mapf_instance *inst = sim->cfg->inst;
  int32_t n = sim->n;
  size_t m = n > 0 ? (size_t)n : 1;
  pibt *P = calloc(1, sizeof *P);
  if (!P) return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  P->n = n;
  P->to_goal = malloc(m * sizeof *P->to_goal);
  P->to_start = calloc(m, sizeof *P->to_start);
  P->cur = malloc(m * sizeof *P->cur);
  P->elapsed = calloc(m, sizeof *P->elapsed);
  P->eps = malloc(m * sizeof *P->eps);
  P->reset = calloc(m, 1);
  P->order = malloc(m * sizeof *P->order);
  P->ord_tmp = malloc(m * sizeof *P->ord_tmp);
  P->b1 = malloc(m * sizeof *P->b1);
  P->c1 = malloc(m * sizeof *P->c1);
  P->u = malloc(m * sizeof *P->u);
  if (!P->to_goal || !P->to_start || !P->cur || !P->elapsed || !P->eps || !P->reset ||
      !P->order || !P->ord_tmp || !P->b1 || !P->c1 || !P->u ||
      mapf__dist_begin(sim->dist, g) < 0 ||
      mapf__pibt_init(&P->step, g, sim->dist->local, n) < 0) {
    pibt_free(P);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  P->step.dist = P->cur;
  P->step.target = sim->goal;
  P->step.swap = par.swap;
  for (int32_t a = 0; a < n; a++) {
    P->to_goal[a] = mapf__dist_get(sim->dist, g, sim->goal[a]);
    if (inst->loops > 0) P->to_start[a] = mapf__dist_get(sim->dist, g, inst->start[a]);
    if (!P->to_goal[a] || (inst->loops > 0 && !P->to_start[a])) {
      pibt_free(P);
      return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0,
                           "out of memory for the distance tables of %d agents", (int)n);
    }
    P->cur[a] = P->to_goal[a];
    P->eps[a] = (uint32_t)(mapf_rng_next(&sim->rng) >> 32);
    P->order[a] = a;
  }
  if (sort_agents(P, P->order, n) < 0) {
    pibt_free(P);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  sim->push = 0;
  *state = P;
  return MAPF_OK;
}

/* The priorities of a new step and the agents in their order, in O(agents) but for the
 * agents whose place in the order may change (those that arrived, or were retargeted: a few
 * per step), which are sorted and merged in. The others keep their relative order: agents off
 * their targets before and after all gain one step (A); agents that were on their targets
 * and left them (B) all have one step and were ordered by fraction; agents on their targets
 * before and after (C) all have none and were ordered by fraction. A, B and C follow each
 * other in that order. */
static int update_priorities(mapf__sim *sim, pibt *P) {
  int32_t n = P->n, na = 0, nb = 0, nc = 0, nu = 0;
  int32_t *a_list = P->ord_tmp;
  for (int32_t i = 0; i < n; i++) {
    int32_t a = P->order[i];
    int on = sim->pos[a] == sim->goal[a];
    int was_zero = P->elapsed[a] == 0;
    if (on) {
      P->elapsed[a] = 0;
      if (was_zero && !P->reset[a])
        P->c1[nc++] = a;
      else
        P->u[nu++] = a;
    } else if (P->reset[a]) {
      P->elapsed[a] = 1;
      P->u[nu++] = a;
    } else {
      if (P->elapsed[a] < UINT32_MAX) P->elapsed[a]++;
      if (was_zero)
        P->b1[nb++] = a;
      else
        a_list[na++] = a;
    }
    P->reset[a] = 0;
  }
  memcpy(a_list + na, P->b1, (size_t)nb * sizeof *a_list);
  memcpy(a_list + na + nb, P->c1, (size_t)nc * sizeof *a_list);
  if (sort_agents(P, P->u, nu) < 0) return MAPF_ENOMEM;
  /* Merge the sorted runs a_list[0 .. n - nu) and u[0 .. nu) into order. */
  int32_t ns = n - nu, i = 0, j = 0, k = 0;
  while (i < ns && j < nu) P->order[k++] = higher(P, P->u[j], a_list[i]) ? P->u[j++] : a_list[i++];
  while (i < ns) P->order[k++] = a_list[i++];
  while (j < nu) P->order[k++] = P->u[j++];
  return MAPF_OK;
}

static int pibt_plan(mapf__sim *sim, void *state) {
  pibt *P = state;
  mapf__pibt *S = &P->step;
  int32_t n = P->n;
  /* New targets (events, lifelong goals): their tables, searched now if not cached, so the
   * set-up counts in this step's planning time, the frame it delays. */
  if (P->refetch > 0) {
    /* Tables of targets no agent has any more go when the cache is full, before the new
     * ones are made: a long lifelong run keeps about one table an agent. */
    if (mapf__dist_release(sim->dist, P->cur, n, MAPF_DIST_CACHE_BYTES) < 0) return MAPF_ENOMEM;
    for (int32_t a = 0; P->refetch > 0 && a < n; a++)
      if (!P->cur[a]) {
        if (!(P->cur[a] = mapf__dist_get(sim->dist, sim->grid, sim->goal[a])))
          return MAPF_ENOMEM;
        P->refetch--;
      }
  }
  if (update_priorities(sim, P) != MAPF_OK) return MAPF_ENOMEM;
  int32_t roots = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t a = P->order[i];
    if (S->next[a] >= 0) continue;
    sim->expansions += mapf__pibt_plan(S, sim->pos, sim->occ, a, &sim->rng);
    /* The limits between agents (sim_int.h), every 64 roots: a clock read per root would
     * cost as much as planning it. */
    if ((++roots & 63) == 0 && mapf__sim_expired(sim)) break;
  }
  for (int32_t a = 0; a < n; a++) {
    int32_t c = S->next[a];
    if (c < 0) continue; /* a limit ended the step before this agent */
    sim->want[a] = c == sim->pos[a] ? MAPF__WAIT : c;
    mapf_agent_result *ar = &sim->agent[a];
    ar->expansions += S->tried[a];
    if (sim->expired) continue;
    if (S->first[a] != sim->pos[a] && S->first[a] != c) ar->failed_moves++;
    if (sim->pos[a] == sim->goal[a] && c != sim->pos[a]) ar->pushed++;
  }
  mapf__pibt_clear(S);
  return MAPF_OK;
}

/* A new target (sim_int.h). Under patrol the agent stands on its old target, which counts as
 * reaching it, and the two tables are at hand; a re-tasked agent or a lifelong task gets the
 * table of its new target at the next plan, and its priority starts again as on arrival. */
static void pibt_retarget(mapf__sim *sim, void *state, int32_t a) {
  pibt *P = state;
  const mapf_instance *inst = sim->cfg->inst;
  if (inst->loops > 0) {
    P->cur[a] = sim->goal[a] == inst->goal[a] ? P->to_goal[a] : P->to_start[a];
  } else if (P->cur[a]) {
    P->cur[a] = NULL;
    P->refetch++;
  }
  P->elapsed[a] = 0;
  P->reset[a] = 1;
}

/* The map changed (sim_int.h; docs/events.md): PIBT keeps no plan, only each agent's table of
 * distances to its target, which the change made wrong. The run's grid is a new map to the
 * distance cache; every table is fetched again (repaired around the changed cells, unless the
 * map was in this state before), under patrol at once, otherwise at the next plan. Priorities
 * stay. */
static int pibt_map_changed(mapf__sim *sim, void *state, const int32_t *cells, int32_t n) {
  pibt *P = state;
  P->refetch =
      mapf__pibt_tables_changed(sim, &P->step, cells, n, P->to_goal, P->to_start, P->cur);
  return P->refetch < 0 ? MAPF_ENOMEM : MAPF_OK;
}

int32_t mapf__pibt_tables_changed(mapf__sim *sim, mapf__pibt *P, const int32_t *cells,
                                  int32_t n, const uint32_t **to_goal, const uint32_t **to_start,
                                  const uint32_t **cur) {
  const mapf_instance *inst = sim->cfg->inst;
  if (mapf__dist_changed(sim->dist, sim->grid, cells, n) < 0) return -1;
  P->local = sim->dist->local;
  int32_t cleared = 0;
  for (int32_t a = 0; a < P->n; a++) {
    if (inst->loops > 0) {
      to_goal[a] = mapf__dist_get(sim->dist, sim->grid, inst->goal[a]);
      to_start[a] = mapf__dist_get(sim->dist, sim->grid, inst->start[a]);
      if (!to_goal[a] || !to_start[a]) return -1;
      cur[a] = sim->goal[a] == inst->goal[a] ? to_goal[a] : to_start[a];
    } else {
      cur[a] = NULL;
      cleared++;
    }
  }
  return cleared;
}

static const mapf__planner_vt pibt_vt = {
    .init = pibt_init,
    .plan = pibt_plan,
    .free = pibt_free,
    .retarget = pibt_retarget,
    .map_changed = pibt_map_changed,
};

MAPF_ALGORITHM(pibt, 70) = {
    .name = "pibt",
    .label = "PIBT",
    .doc = "Priority Inheritance with Backtracking: every step, agents in priority order take "
           "the cell nearest their goals (BFS distances), lending their priority to agents in "
           "the way (Okumura et al. 2022); runs under the joint rule; an expansion is one "
           "candidate cell examined",
    .params = pibt_param_table,
    .nparams = MAPF_NPARAMS(pibt_param_table),
    .size = sizeof(pibt_params),
    .vt = &pibt_vt,
    /* Weights measured by `mapfarm calibrate` (docs/choices.md, "The work budget"): one
     * candidate examined carries the whole cost, the distance tables excepted. */
    .work = {.expansion_ns = 165, .agent_step_ns = 0},
    .joint = true,
};
