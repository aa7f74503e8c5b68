/* far.c: FAR, Flow Annotation Replanning (Wang & Botea, ICAPS 2008; Wang & Botea 2008 slides 7-14;
 * Sigurdson et al. 2018 Sec. III-B and V; docs/choices.md, far), and A*-Replan, the same planner
 * without the flow annotation (Sigurdson et al. 2018 Sec. V: "equivalent to FAR with no flow
 * annotations").
 *
 * The rules. The seeds give the outline (complete A* paths, k-step reservations, waiting,
 * wait-for cycles broken by the agent on the densest node, local replanning); everything marked
 * "choice" is ours and is listed in the README.
 *
 *  1. Paths. Each agent plans a complete path with A* and the octile heuristic on the
 *     flow-annotated graph (flow.c; FAR: built once per grid and shared, mapf_grid_flow) or on
 *     the grid (A*-Replan), ignoring other agents (slide 7). Equal f-values favour straighter
 *     paths (slide 11). Choice: the open list is ordered by lowest f, then fewest direction
 *     changes so far, then highest g, then first in first out; a cell's label is (g, turns), so
 *     a path that reaches an open cell with equal g and fewer turns replaces its parent (costs
 *     are exact pairs, search_int.h). Turns are counted per cell, not per (cell, heading), so
 *     "fewest" is a strong preference, not a guarantee; costs stay optimal.
 *  2. Time. Positions are those at the end of a step; an agent's reservations are (cell, t) for
 *     t = T+1 .. H, always the next cells of its path (H - T <= k, the `reservation`
 *     parameter; slide 11, Sigurdson et al. 2018 Sec. V: k = 3). From H on the agent is taken to
 * stay on its
 *     last reserved cell, its "tail" (a standing agent's tail is its own cell).
 *  3. Who may be where (choice, derived from the executor's rules, docs/choices.md, Simulation:
 * "planners
 *     with reservations plan on the same rule the executor applies"). Agent a may take (v, t)
 *     when no other agent reserved (v, t); no other agent's tail is v from a time <= t; if
 *     another agent b is on v at t - 1, b leaves at t (it holds a reservation at t); if another
 *     agent f reserved (v, t + 1), a leaves at t + 1 (v is not the last cell of a's block) and
 *     f follows it. Under `execution: single-pass` whoever follows another into a cell in the
 *     step it is left must have the higher index (the executor's pass moves the lower index
 *     first). Under `chains` any order follows, but a cycle of agents each entering the cell the
 *     next one leaves (a swap or a rotation) is refused by the executor, so a reservation that
 *     would close one is refused: the planner walks the chain of followers. A chain can close
 *     only through an edge made by taking (v, t) before an existing (v, t + 1) (otherwise every
 *     leader reserved before its follower), so the walk is done only at steps that have such an
 *     edge. The last cell of a block, a's new tail, must not be reserved by another agent at a
 *     later time nor be another agent's tail. So no two agents are ever in one cell and every
 *     move FAR asks for is one the executor makes (an invariant build aborts if not; otherwise
 *     the agent waits, replans and the run stays legal).
 *  4. Reserving (slide 11; Sigurdson et al. 2018 Sec. V: agents "must successfully reserve their
 * next three
 *     moves before they execute them"). A standing agent reserves min(k, moves left) moves at
 *     once or none, and then waits. Choice: a moving agent extends its reservations by single
 *     steps up to k ahead every step, keeping what it has when an extension fails, and stops
 *     when they run out. Reservations are never cancelled.
 *  5. Order (choice). Agents reserve in index order, except that an agent blocked by one that
 *     has not reserved yet this step lets that one go first, and an agent is tried again as soon
 *     as the agent that blocked it has reserved more; so a queue follows its leader in the same
 *     step, as the `chains` executor allows.
 *  6. Waiting. A standing agent that cannot reserve its block waits, and waits for the agent
 *     that holds the first cell it could not reserve (its wait-for edge: at most one agent). A
 *     step spent so counts as a failed move (it wanted to move). (A moving agent whose extension
 *     is blocked records the blocker too, for retries and step-aside choices; it is not
 *     waiting.)
 *  7. Deadlocks (slides 12-14). Every step, after reserving, the wait-for graph of the standing
 *     agents is searched for cycles (a walk from each, O(agents): "launched frequently" is every
 *     step, whenever an agent could not advance). One agent of each cycle steps aside to a
 *     neighbour where it can stay (rule 3's tail test), plans a new complete path at the next
 *     step (slide 14), and the agents waiting for it are retried at once, so the one behind moves
 *     up in the same step; `deadlocks_broken` counts these. Which agent, and where (choice;
 *     slide 13's density, the number of agents whose remaining planned paths still enter a cell,
 *     is the main criterion among agents that can get out of the way): each agent of the cycle
 *     looks for an escape, the nearest free cell off the paths of the agents waiting for it,
 *     by a bounded breadth-first search along the flow (then along any legal move), never
 *     through the cells between a waiting agent and itself (moving there can never let it
 *     pass). The agent chosen is, in order: one with an escape in reach; one already stepping
 *     aside (it stepped aside and has not reserved a planned move since: its retreat goes on
 *     rather than being undone); the highest density at its cell; the nearest escape; the lowest
 *     index. It takes the first step toward its escape, or without one retreats along a
 *     waiting agent's path, preferring the flow, low density, then N, E, S, W, NE, SE, SW, NW.
 *  8. Local replanning (slide 11; choice of threshold and scope). A standing agent that has been
 *     blocked for `replan_after` consecutive steps, and again every `replan_after` steps while it
 *     stays blocked, repairs its path locally: a bounded A* (FAR__LOCAL_EXPANSIONS) from its
 *     cell to any of the next FAR__LOCAL_AHEAD cells of its path beyond the cell it could not
 *     reserve that no standing agent occupies, with every standing agent's cell an obstacle; the
 *     detour is spliced into the path. When none is found it keeps its path and waits. A repair
 *     that succeeds restarts the count. (A complete A* to the goal around the standing agents as
 *     a fallback made no difference to completion over 52 test instances and sent agents on
 *     long detours into dead ends of mazes, so there is none.)
 *  9. Agents on their goals stay (no reservations; their tail is the goal), so paths through a
 *     goal wait. Choice, after Sigurdson et al. 2018 Sec. III-B (FAR "attempts to break
 *     deadlocks ... by pushing some agents temporarily off their goal nodes"): when an agent has
 *     waited at least `replan_after` steps for an agent on its goal (its local repair found no
 *     way round), every agent standing on its goal among its next k cells steps aside as in
 *     rule 7 (all at once: one at a time, they took turns and never cleared the way) and plans
 *     its way back; each counts as a push.
 * 10. Searches and expansions are counted per agent (`searches`, `expansions`): complete plans,
 *     and local repairs each count one search. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "flow.h"
#include "sim_int.h"

#ifdef MAPF_CHECK_INVARIANTS
#include <stdio.h>
#endif

/* Parameters of FAR (Wang & Botea 2008; Sigurdson et al. 2018, Sec. III-B and V) and of
 * A*-Replan, FAR without flow annotation (Sigurdson et al. 2018, Sec. V). Reservation size
 * k = 3 as FAR's authors suggest and Sigurdson et al. use. replan_after is our threshold for
 * "an agent blocked for many steps replans locally" (rule 8 above). */
typedef struct far_params {
  int32_t reservation;
  bool flow;
  int32_t replan_after;
} far_params;

typedef struct astar_replan_params {
  int32_t reservation, replan_after;
} astar_replan_params;

#define FAR__RESERVATION_DOC \
  "moves an agent must reserve ahead (space-time reservation table) before it moves"
#define FAR__REPLAN_AFTER_DOC \
  "steps blocked before an agent repairs its path locally (and again every as many steps)"

static const mapf_param_def far_param_table[] = {
    {"reservation", MAPF_PARAM_INT, 1, 64, 3, FAR__RESERVATION_DOC, NULL,
     offsetof(far_params, reservation)},
    {"flow", MAPF_PARAM_BOOL, 0, 1, 1,
     "plan on the flow-annotated graph (false: the plain grid, as A*-Replan)", NULL,
     offsetof(far_params, flow)},
    {"replan_after", MAPF_PARAM_INT, 1, 1000000, 5, FAR__REPLAN_AFTER_DOC, NULL,
     offsetof(far_params, replan_after)},
};

static const mapf_param_def astar_replan_param_table[] = {
    {"reservation", MAPF_PARAM_INT, 1, 64, 3, FAR__RESERVATION_DOC, NULL,
     offsetof(astar_replan_params, reservation)},
    {"replan_after", MAPF_PARAM_INT, 1, 1000000, 5, FAR__REPLAN_AFTER_DOC, NULL,
     offsetof(astar_replan_params, replan_after)},
};

/* Rule 8: a local repair looks this many path cells beyond the blocked one for a cell to rejoin
 * and expands at most this many nodes. */
#define FAR__LOCAL_AHEAD 16
#define FAR__LOCAL_EXPANSIONS 512
/* Rules 7 and 9: a step aside looks for an escape (a free cell off the paths of the agents
 * waiting) among at most FAR__ESCAPE_NODES cells, treating the next FAR__ESCAPE_PATH cells of
 * each waiting agent's path as in its way. */
#define FAR__ESCAPE_NODES 256
#define FAR__ESCAPE_PATH 64
#define FAR__NO_ESCAPE INT32_MAX
#define FAR__RING 128 /* > k + 1 steps of reservations ahead */

/* Per-step state of an agent in the reservation phase (rule 5). */
enum { ST_UNTRIED, ST_STACKED, ST_QUEUED, ST_DONE };

typedef struct far_agent {
  int32_t *path;     /* the planned path; path[at] is the agent's cell */
  int32_t len, cap, at;
  int32_t ahead;     /* reserved moves: path[at + 1 .. at + ahead] at times T+1 .. T+ahead */
  int32_t wait_for;  /* rule 6: the agent it waits for, or -1 */
  int32_t fail_at;   /* path index of the first cell it could not reserve */
  int32_t blocked;   /* consecutive steps standing and blocked off its goal */
  int32_t next_waiter; /* intrusive list of the agents waiting for the same agent */
  uint8_t replan;    /* plan a complete path at the next step it stands */
  uint8_t yielding;  /* stepped aside (rules 7, 9) and has not reserved a planned move since */
  uint8_t cut_off;   /* found no path to its goal: a map change cut it off (plan_complete) */
} far_agent;

/* A reservation (cell, t) -> agent, kept in a list per cell. */
typedef struct far_res {
  int64_t t;
  int32_t agent;
  int32_t next; /* index + 1 of the next entry of the cell, 0 at the end */
} far_res;

/* A search's record of a cell (rule 1), 24 bytes. Costs are exact pairs a + b sqrt(2)
 * (search_int.h), so equal costs compare equal without the epsilon that sums of doubles need. */
typedef struct far_node {
  mapf__cost2 g;
  uint32_t gen;  /* F->gen: open in this search; F->gen + 1: closed; anything else: not seen */
  int32_t turns; /* direction changes on the way from the start */
  uint32_t seq;  /* insertion number of its live open-list entry */
  uint32_t dir;  /* direction of the move into the cell (MAPF__NO_PARENT at the start) */
} far_node;

/* An open-list entry in rule 1's order, in search_int.h's bucket queue (mapf__bq): the key of f
 * (mapf__cost_key, 2^-24 units) picks the bucket, its slice of 2^18 units (1/64), and the rest
 * is the 128-bit integer hi:lo, from the top: f's offset in its slice (18 bits), the turns (19;
 * counts of 2^19 or more, on paths of half a million moves, tie as equal), the key of h (33,
 * mapf__octile_key: with f equal, a higher g is a lower h, and h is the octile distance), the
 * insertion number (29: a search pushes at most 8 entries per cell, and a grid has at most
 * 2^26 cells), the cell (26). So entries compare as the keys (f, turns, h, insertion number)
 * of the 4-ary heap this replaced did, and pop in the same order. hi stays below 2^64 - 1: the
 * top 27 of h's 33 bits are below 2^26.5. */
#define FAR__SEQ_BITS 29
#define FAR__SEQ_MASK ((1u << FAR__SEQ_BITS) - 1u)
#define FAR__TURNS_BITS 19
#define FAR__TURNS_MAX ((1u << FAR__TURNS_BITS) - 1u)
#define FAR__SLICE_BITS 18
#define FAR__ID_BITS 26
#define FAR__ID_MASK ((1u << FAR__ID_BITS) - 1u)
#define FAR__HLO_BITS (64 - FAR__SLICE_BITS - FAR__TURNS_BITS) /* h's bits in hi: 27 */

typedef struct far_bfs {
  int32_t cell, first, depth; /* first: the first step on the way to cell */
} far_bfs;

typedef struct far {
  int32_t k, replan_after;
  int single_pass;
  const uint8_t *moves; /* the graph searched: the grid's shared flow masks (FAR) or g->moves */
  int32_t n;
  far_agent *ag;
  /* Reservation table (rule 2). */
  int32_t *res_head;    /* per cell: index + 1 of its first entry, 0 when none */
  far_res *res;
  int32_t res_len, res_cap, res_free; /* res_free: index + 1 of a free entry, 0 when none */
  int32_t *tail;        /* per cell: agent + 1 whose tail it is, 0 when none */
  int32_t inserted[FAR__RING]; /* per step (mod FAR__RING): follow edges made out of order */
  int32_t *density;     /* per cell: agents whose remaining paths enter it (rule 7) */
  /* Reservation phase (rule 5). */
  uint8_t *state;
  int32_t *stack, *waiters; /* waiters: per agent, first of its list + 1, 0 when empty */
  uint8_t *color;           /* deadlock walk: 0 unseen, 1 on the current walk, 2 done */
  int32_t *walk;
  /* Searches (rules 1 and 8). */
  far_node *node;
  mapf__bq open;
  uint32_t gen, seq;
  uint32_t *target, target_stamp;   /* per-cell marks: the cells a local repair may rejoin,
                                       the waiting agents' paths when stepping aside */
  uint32_t *obstacle, obstacle_stamp; /* standing agents' cells */
  int64_t obstacle_time;            /* step the stamps were taken, -1 */
  int32_t *tmp, tmp_cap;            /* a found path */
  uint32_t *escape, escape_stamp;   /* step aside: cells seen by the search for an escape */
  far_bfs bfs[FAR__ESCAPE_NODES];
} far;

/* ---- Reservation table ------------------------------------------------------------------ */

/* The agent that reserved (c, t), or -1. */
static int32_t res_find(const far *F, int32_t c, int64_t t) {
  for (int32_t i = F->res_head[c]; i; i = F->res[i - 1].next)
    if (F->res[i - 1].t == t) return F->res[i - 1].agent;
  return -1;
}

static int res_add(far *F, int32_t c, int64_t t, int32_t a) {
  int32_t i;
  if (F->res_free) {
    i = F->res_free;
    F->res_free = F->res[i - 1].next;
  } else {
    if (F->res_len == F->res_cap) {
      int32_t cap = F->res_cap ? 2 * F->res_cap : 1024;
      far_res *r = realloc(F->res, (size_t)cap * sizeof *r);
      if (!r) return -1;
      F->res = r;
      F->res_cap = cap;
    }
    i = ++F->res_len;
  }
  F->res[i - 1].t = t;
  F->res[i - 1].agent = a;
  F->res[i - 1].next = F->res_head[c];
  F->res_head[c] = i;
  return 0;
}

static void res_remove(far *F, int32_t c, int64_t t, int32_t a) {
  for (int32_t *p = &F->res_head[c]; *p; p = &F->res[*p - 1].next) {
    far_res *e = &F->res[*p - 1];
    if (e->t == t && e->agent == a) {
      int32_t i = *p;
      *p = e->next;
      e->next = F->res_free;
      F->res_free = i;
      return;
    }
  }
}

static inline int32_t tail_of(const far *F, int32_t c) { return F->tail[c] - 1; }

/* The time from which agent b stands on its tail. */
static inline int64_t horizon(const far *F, const mapf__sim *sim, int32_t b) {
  return sim->time + F->ag[b].ahead;
}

/* Rule 3: the agent that keeps a from being on v at time t (T < t), or -1. */
static int32_t holder(const far *F, const mapf__sim *sim, int32_t v, int64_t t, int32_t a) {
  int32_t b = res_find(F, v, t);
  if (b >= 0 && b != a) return b;
  b = tail_of(F, v);
  if (b >= 0 && b != a && horizon(F, sim, b) <= t) return b;
  /* Following b into v in the step that b leaves it. */
  b = t - 1 == sim->time ? sim->occ[v] : res_find(F, v, t - 1);
  if (b >= 0 && b != a && F->single_pass && b > a) return b;
  return -1;
}

/* Another agent that reserved v for a time after t (up to T + k, the furthest anyone
 * reserves), or -1. */
static int32_t later_holder(const far *F, const mapf__sim *sim, int32_t v, int64_t t, int32_t a) {
  for (int64_t u = t + 1; u <= sim->time + F->k; u++) {
    int32_t b = res_find(F, v, u);
    if (b >= 0 && b != a) return b;
  }
  return -1;
}

/* Rule 3, for a block's last cell: a will stay on v from t on, so no other agent may come to v
 * later, by reservation or as its tail. Returns that agent, or -1. */
static int32_t tail_holder(const far *F, const mapf__sim *sim, int32_t v, int64_t t, int32_t a) {
  int32_t b = later_holder(F, sim, v, t, a);
  if (b >= 0) return b;
  b = tail_of(F, v);
  return b >= 0 && b != a ? b : -1;
}

/* The agent on cell c at time s (T <= s), other than a, or -1. */
static int32_t holder_at(const far *F, const mapf__sim *sim, int32_t c, int64_t s, int32_t a) {
  int32_t b = s == sim->time ? sim->occ[c] : res_find(F, c, s);
  if (b < 0 && s > sim->time) {
    b = tail_of(F, c);
    if (b >= 0 && horizon(F, sim, b) > s) b = -1;
  }
  return b == a ? -1 : b;
}

/* The cell of agent b at time s (T <= s): reserved, or its tail after its horizon. */
static int32_t cell_at(const far *F, const mapf__sim *sim, int32_t b, int64_t s) {
  const far_agent *B = &F->ag[b];
  int64_t d = s - sim->time;
  return B->path[B->at + (d < B->ahead ? d : B->ahead)];
}

/* Rule 3 under chains: would a, entering v at t from u, close a cycle of agents each entering at
 * t the cell the next one leaves? Walks the chain from v: the agent there at t - 1, the cell it
 * enters at t, and so on, until a free cell (no cycle) or u (a cycle). Returns the agent on v
 * when it would, else -1. At most one step per agent. */
static int32_t closes_cycle(const far *F, const mapf__sim *sim, int32_t a, int32_t v, int32_t u,
                            int64_t t) {
  int32_t cell = v, first = -1;
  for (int32_t i = 0; i <= F->n; i++) {
    if (cell == u) return first;
    int32_t h = holder_at(F, sim, cell, t - 1, a);
    if (h < 0) return -1;
    if (first < 0) first = h;
    int32_t next = cell_at(F, sim, h, t);
    if (next == cell) return -1;
    cell = next;
  }
  return -1;
}

static void set_tail(far *F, int32_t a, int32_t from, int32_t to) {
  if (F->tail[from] == a + 1) F->tail[from] = 0;
  F->tail[to] = a + 1;
}

/* ---- Density (rule 7) --------------------------------------------------------------------- */

static void density_add(far *F, const far_agent *A, int32_t delta) {
  for (int32_t i = A->at + 1; i < A->len; i++) F->density[A->path[i]] += delta;
}

static int path_reserve(far_agent *A, int32_t len) {
  if (len <= A->cap) return 0;
  int32_t cap = A->cap ? A->cap : 16;
  while (cap < len) cap *= 2;
  int32_t *p = realloc(A->path, (size_t)cap * sizeof *p);
  if (!p) return -1;
  A->path = p;
  A->cap = cap;
  return 0;
}

/* Replaces a's path by path[0 .. len - 1] (path[0] is its cell). */
static int set_path(far *F, int32_t a, const int32_t *path, int32_t len) {
  far_agent *A = &F->ag[a];
  density_add(F, A, -1);
  if (path_reserve(A, len) < 0) return -1;
  memcpy(A->path, path, (size_t)len * sizeof *path);
  A->len = len;
  A->at = 0;
  density_add(F, A, +1);
  return 0;
}

/* ---- Search (rules 1 and 8) ---------------------------------------------------------------- */

/* Is e the live entry of its cell (not one a relabel left behind)? */
static inline int open_live(const void *node, const mapf__bq_entry *e) {
  const far_node *nd = node;
  return nd[e->lo & FAR__ID_MASK].seq == (uint32_t)(e->lo >> FAR__ID_BITS & FAR__SEQ_MASK);
}

/* Makes the best open entry the top of the open list; 0 when the list is empty. */
static int open_first(far *F) {
  const mapf__bq *q = &F->open;
  if (q->cur >= 0) {
    const mapf__bq_bucket *b = &q->b[q->cur];
    if (b->len > 0 && open_live(F->node, &b->e[b->len - 1])) return 1;
  }
  return mapf__bq_settle(&F->open, open_live, F->node);
}

/* The cell a record was reached from, or -1 at the start. */
static inline int32_t node_parent(const far *F, const mapf_grid *g, int32_t c) {
  uint32_t d = F->node[c].dir;
  return d == MAPF__NO_PARENT ? -1 : c - g->offset[d];
}

/* Opens id with cost g, f = g + h, turns and the direction of the move into it: new, or open
 * with a worse label (the caller has checked; its old entry goes stale: the new one has a lower
 * key, so it comes out first, as when the 4-ary heap moved the entry up in place). Returns -1
 * when out of memory. */
MAPF__INLINE int open_push(far *F, int32_t id, mapf__cost2 g, mapf__cost2 f, mapf__cost2 h,
                           int32_t turns, int dir) {
  far_node *nd = &F->node[id];
  uint64_t t = (uint32_t)turns < FAR__TURNS_MAX ? (uint32_t)turns : FAR__TURNS_MAX;
  uint32_t seq = F->seq++ & FAR__SEQ_MASK;
  uint64_t fk = mapf__cost_key(f), hk = mapf__octile_key(h);
  const int hlo = MAPF__HKEY_BITS - FAR__HLO_BITS; /* h's bits in lo: 6 */
  mapf__bq_entry e = {(fk & ((1u << FAR__SLICE_BITS) - 1u)) << (64 - FAR__SLICE_BITS) |
                          t << FAR__HLO_BITS | hk >> hlo,
                      (hk & ((1u << hlo) - 1u)) << (FAR__SEQ_BITS + FAR__ID_BITS) |
                          (uint64_t)seq << FAR__ID_BITS | (uint32_t)id};
  nd->g = g;
  nd->gen = F->gen;
  nd->turns = turns;
  nd->seq = seq;
  nd->dir = (uint32_t)dir;
  return mapf__bq_add(&F->open, (int32_t)(fk >> FAR__SLICE_BITS) & (MAPF__BQ_N - 1), e);
}

/* A* for agent a from its cell to goal (or, with targets, to any cell stamped in F->target),
 * with heuristic toward goal, avoiding stamped obstacles when `avoid`, expanding at most
 * `budget` nodes (0: no bound). The path goes to F->tmp. Returns its length (>= 1), 0 when
 * none was found, -1 when out of memory. Counts a search and its expansions for a. */
static int32_t far_search(far *F, mapf__sim *sim, int32_t a, int32_t goal, int targets,
                          int avoid, int64_t budget) {
  const mapf_grid *g = sim->grid;
  int32_t start = sim->pos[a];
  /* Stamps go up by 2 per search (F->gen open, F->gen + 1 closed); 0 and 1 never mark a
   * record, so the zeroed array is "not seen"; once every 2^31 searches it is cleared. */
  F->gen += 2;
  if (F->gen < 2) {
    memset(F->node, 0, (size_t)g->ncells * sizeof *F->node);
    F->gen = 2;
  }
  const uint32_t open_gen = F->gen, closed_gen = F->gen + 1u;
  mapf__bq_clear(&F->open);
  F->seq = 0;
  far_node *nd = F->node;
  /* Local copies: stores through nd and the queue could alias these. */
  const uint8_t *moves = F->moves;
  const uint32_t *target = F->target, *obstacle = F->obstacle;
  const uint32_t target_stamp = F->target_stamp, obstacle_stamp = F->obstacle_stamp;
  int32_t off[8];
  memcpy(off, g->offset, sizeof off);
  const int32_t width = g->width;
  /* A cell's row by a multiplication instead of a division (as in astar.c: exact for u < 2^26
   * cells and width <= 2^14). */
  const uint64_t row_magic = ((1ull << 40) + (uint64_t)width - 1) / (uint64_t)width;
  int32_t gx = mapf_grid_x(g, goal), gy = mapf_grid_y(g, goal);
  int32_t found = -1;
  int64_t exp = 0;
  mapf__cost2 zero = {0, 0};
  const int four = g->connectivity == 4;
  mapf__cost2 h0 = mapf__hc(four, mapf_grid_x(g, start), mapf_grid_y(g, start), gx, gy);
  if (open_push(F, start, zero, h0, h0, 0, MAPF__NO_PARENT) < 0) return -1;
  while (open_first(F)) {
    int32_t u = (int32_t)(mapf__bq_top(&F->open)->lo & FAR__ID_MASK);
    if (targets ? target[u] == target_stamp : u == goal) {
      found = u;
      break;
    }
    if (budget > 0 && exp >= budget) break;
    nd[u].gen = closed_gen;
    mapf__bq_pop(&F->open);
    exp++;
    int32_t uy = (int32_t)(((uint64_t)u * row_magic) >> 40), ux = u - uy * width;
    mapf__cost2 gu = nd[u].g;
    uint32_t du = nd[u].dir;
    /* A move in direction d turns unless it continues du (the start has no direction). */
    int32_t tu = nd[u].turns - (du == MAPF__NO_PARENT);
    /* The two costs a child can have, one more cardinal or diagonal move, as doubles to
     * compare with an open child's (exact: search_int.h). */
    const double gnow[2] = {mapf__cost(gu.a + 1, gu.b), mapf__cost(gu.a, gu.b + 1)};
    const unsigned m = moves[u];
    int rc = 0;
    /* The eight moves, unrolled in direction order; a legal move generates a child when the
     * neighbour is new, or open with a higher cost, or with the same cost and more turns. */
#define FAR_MOVE(D, DIAG, DX, DY)                                                            \
  if (m & (1u << (D))) {                                                                   \
    int32_t v = u + off[D];                                                                \
    far_node *w = &nd[v];                                                                  \
    uint32_t wg = w->gen;                                                                  \
    int32_t nt = tu + (du != (D));                                                         \
    if (wg != closed_gen && !(avoid && v != goal && obstacle[v] == obstacle_stamp) &&      \
        (wg != open_gen || gnow[DIAG] < mapf__cost_of(w->g) ||                             \
         (gnow[DIAG] <= mapf__cost_of(w->g) && nt < w->turns))) {                          \
      mapf__cost2 ng = {gu.a + 1 - (DIAG), gu.b + (DIAG)};                                 \
      mapf__cost2 h = mapf__hc(four, ux + (DX), uy + (DY), gx, gy);                        \
      mapf__cost2 f = {ng.a + h.a, ng.b + h.b};                                            \
      if ((rc = open_push(F, v, ng, f, h, nt, D)) < 0) break;                              \
    }                                                                                      \
  }
    do {
      FAR_MOVE(MAPF_DIR_N, 0, 0, -1)
      FAR_MOVE(MAPF_DIR_E, 0, 1, 0)
      FAR_MOVE(MAPF_DIR_S, 0, 0, 1)
      FAR_MOVE(MAPF_DIR_W, 0, -1, 0)
      FAR_MOVE(MAPF_DIR_NE, 1, 1, -1)
      FAR_MOVE(MAPF_DIR_SE, 1, 1, 1)
      FAR_MOVE(MAPF_DIR_SW, 1, -1, 1)
      FAR_MOVE(MAPF_DIR_NW, 1, -1, -1)
    } while (0);
#undef FAR_MOVE
    if (rc < 0) return -1;
  }
  sim->expansions += exp;
  sim->agent[a].expansions += exp;
  sim->agent[a].searches++;
  if (found < 0) return 0;
  int32_t len = 0;
  for (int32_t c = found; c != -1; c = node_parent(F, g, c)) len++;
  if (len > F->tmp_cap) {
    int32_t cap = F->tmp_cap ? F->tmp_cap : 256;
    while (cap < len) cap *= 2;
    int32_t *t = realloc(F->tmp, (size_t)cap * sizeof *t);
    if (!t) return -1;
    F->tmp = t;
    F->tmp_cap = cap;
  }
  int32_t i = len;
  for (int32_t c = found; c != -1; c = node_parent(F, g, c)) F->tmp[--i] = c;
  return len;
}

/* Rule 1: a complete path to the goal, ignoring agents. Returns 0 or -1 (out of memory). */
static int plan_complete(far *F, mapf__sim *sim, int32_t a) {
  far_agent *A = &F->ag[a];
  int32_t len = far_search(F, sim, a, sim->goal[a], 0, 0, 0);
  if (len < 0) return -1;
  A->replan = 0;
  if (len == 0) {
    /* On a fixed map this cannot happen (the annotation keeps the goal reachable); when a
     * closed door cuts the agent off its goal, it waits where it is and searches again when
     * the map next changes (far_map_changed) rather than search the whole component every
     * step. */
    int32_t here = sim->pos[a];
    A->cut_off = 1;
    return set_path(F, a, &here, 1);
  }
  return set_path(F, a, F->tmp, len);
}

/* A fresh stamp for F->target (cleared once every 2^32 stamps). */
static uint32_t new_target_stamp(far *F, int32_t ncells) {
  if (++F->target_stamp == 0) {
    memset(F->target, 0, (size_t)ncells * sizeof *F->target);
    F->target_stamp = 1;
  }
  return F->target_stamp;
}

/* Stamps the cells of the agents standing at the start of this step (rule 8's obstacles). */
static void stamp_obstacles(far *F, const mapf__sim *sim) {
  if (F->obstacle_time == sim->time) return;
  F->obstacle_time = sim->time;
  if (++F->obstacle_stamp == 0) {
    memset(F->obstacle, 0, (size_t)sim->grid->ncells * sizeof *F->obstacle);
    F->obstacle_stamp = 1;
  }
  for (int32_t b = 0; b < sim->n; b++)
    if (F->ag[b].ahead == 0) F->obstacle[sim->pos[b]] = F->obstacle_stamp;
}

/* Rule 8: local repair. Returns 1 when the path changed, 0 when no detour was found (the agent
 * keeps its path), -1 when out of memory. */
static int plan_local(far *F, mapf__sim *sim, int32_t a) {
  far_agent *A = &F->ag[a];
  stamp_obstacles(F, sim);
  uint32_t stamp = new_target_stamp(F, sim->grid->ncells);
  if (A->fail_at <= A->at || A->fail_at >= A->len) A->fail_at = A->at + 1;
  int32_t first = -1, last = A->fail_at + FAR__LOCAL_AHEAD;
  if (last > A->len - 1) last = A->len - 1;
  for (int32_t i = A->fail_at + 1; i <= last; i++) {
    int32_t c = A->path[i];
    if (F->obstacle[c] == F->obstacle_stamp) continue;
    F->target[c] = stamp;
    if (first < 0) first = i;
  }
  if (first >= 0) {
    int32_t len = far_search(F, sim, a, A->path[first], 1, 1, FAR__LOCAL_EXPANSIONS);
    if (len < 0) return -1;
    if (len > 0) {
      /* Splice: the detour, then the old path after the cell it rejoins. */
      int32_t join = F->tmp[len - 1], j = first;
      while (A->path[j] != join) j++;
      int32_t rest = A->len - 1 - j, total = len + rest;
      if (total > F->tmp_cap) {
        int32_t cap = F->tmp_cap;
        while (cap < total) cap *= 2;
        int32_t *t = realloc(F->tmp, (size_t)cap * sizeof *t);
        if (!t) return -1;
        F->tmp = t;
        F->tmp_cap = cap;
      }
      memcpy(F->tmp + len, A->path + j + 1, (size_t)rest * sizeof *F->tmp);
      return set_path(F, a, F->tmp, total) < 0 ? -1 : 1;
    }
  }
  return 0;
}

/* ---- Reservations (rules 3-6) ------------------------------------------------------------- */

/* Rule 4 for agent a. Returns -1 when nothing blocks it (it reserved its block, or extended its
 * reservations to k ahead, or needs nothing more), else the agent holding the first cell it
 * could not reserve (a standing agent then waits; a moving one goes on with what it has). Sets
 * *oom when out of memory. */
static int32_t reserve(far *F, mapf__sim *sim, int32_t a, int *oom) {
  far_agent *A = &F->ag[a];
  int32_t left = A->len - 1 - A->at, want = left < F->k ? left : F->k;
  if (A->ahead >= want) return -1;
  /* A moving agent given a new target (far_retarget) uses up the moves it holds and then
   * plans; it extends nothing toward the old one. */
  if (A->replan && A->ahead > 0) return -1;
  int64_t T = sim->time;
  int chains = !F->single_pass;
  if (A->ahead == 0) {
    uint64_t ahead_of = 0; /* bit j: a would take (path[at + j], T + j) before another agent */
    for (int32_t j = 1; j <= want; j++) {
      int32_t v = A->path[A->at + j];
      int64_t t = T + j;
      int32_t b = holder(F, sim, v, t, a);
      if (b < 0 && j == want) b = tail_holder(F, sim, v, t, a);
      if (b < 0 && j < want) {
        int32_t f = res_find(F, v, t + 1);
        if (f >= 0 && f != a) {
          if (F->single_pass && f < a)
            b = f;
          else
            ahead_of |= UINT64_C(1) << j;
        }
      }
      if (b < 0 && chains && (F->inserted[t % FAR__RING] > 0 || (ahead_of >> (j - 1) & 1)))
        b = closes_cycle(F, sim, a, v, A->path[A->at + j - 1], t);
      if (b >= 0) {
        A->fail_at = A->at + j;
        return b;
      }
    }
    for (int32_t j = 1; j <= want; j++) {
      if (res_add(F, A->path[A->at + j], T + j, a) < 0) {
        for (int32_t i = 1; i < j; i++) res_remove(F, A->path[A->at + i], T + i, a);
        *oom = 1;
        return -1;
      }
    }
    for (int32_t j = 1; j < want; j++)
      if (ahead_of >> j & 1) F->inserted[(T + j + 1) % FAR__RING]++;
    set_tail(F, a, A->path[A->at], A->path[A->at + want]);
    A->ahead = want;
    A->yielding = 0;
    return -1;
  }
  for (int32_t j = A->ahead + 1; j <= want; j++) {
    int32_t v = A->path[A->at + j];
    int64_t t = T + j;
    int32_t b = holder(F, sim, v, t, a);
    if (b < 0) b = tail_holder(F, sim, v, t, a);
    if (b < 0 && chains && F->inserted[t % FAR__RING] > 0)
      b = closes_cycle(F, sim, a, v, A->path[A->at + j - 1], t);
    if (b >= 0) {
      A->fail_at = A->at + j;
      return b;
    }
    if (res_add(F, v, t, a) < 0) {
      *oom = 1;
      return -1;
    }
    set_tail(F, a, A->path[A->at + j - 1], v);
    A->ahead = j;
  }
  return -1;
}

static inline void push_stack(far *F, int32_t *sp, int32_t a) {
  F->state[a] = ST_STACKED;
  F->stack[(*sp)++] = a;
}

/* Rule 5: reserves for every agent on the stack, letting blockers that have not reserved yet go
 * first and retrying the agents they block (standing or extending) when they have. An agent's
 * wait-for edge is the agent that blocked its last try. Returns -1 when out of memory. */
static int drain(far *F, mapf__sim *sim, int32_t sp) {
  int oom = 0;
  while (sp > 0) {
    int32_t x = F->stack[--sp];
    if (F->state[x] != ST_STACKED) continue;
    far_agent *X = &F->ag[x];
    int32_t before = X->ahead;
    int32_t b = reserve(F, sim, x, &oom);
    if (oom) return -1;
    if (X->ahead != before) {
      /* x now holds more cells: whoever was blocked by it tries again. */
      for (int32_t w = F->waiters[x]; w; w = F->ag[w - 1].next_waiter)
        if (F->state[w - 1] == ST_QUEUED || F->state[w - 1] == ST_DONE) {
          F->ag[w - 1].wait_for = -1;
          push_stack(F, &sp, w - 1);
        }
      F->waiters[x] = 0;
    }
    X->wait_for = b;
    if (b < 0) {
      F->state[x] = ST_DONE;
      continue;
    }
    X->next_waiter = F->waiters[b];
    F->waiters[b] = x + 1;
    if (F->state[b] == ST_DONE) {
      F->state[x] = ST_DONE;
    } else {
      F->state[x] = ST_QUEUED;
      if (F->state[b] == ST_UNTRIED) push_stack(F, &sp, b);
    }
  }
  return 0;
}

/* Marks for aside_choice the path of agent w, which waits for the agent on cell `here`. */
static void mark_waiter(far *F, const far_agent *W, int32_t here, uint32_t toward,
                        uint32_t later) {
  int32_t stop = W->at; /* here's index on W's path (its block ends there when it waits) */
  for (int32_t i = W->at + 1; i < W->len && i <= W->at + F->k; i++)
    if (W->path[i] == here) {
      stop = i;
      break;
    }
  for (int32_t i = W->at + 1; i <= stop; i++) F->target[W->path[i]] = toward;
  for (int32_t i = stop + 1; i < W->len && i <= stop + FAR__ESCAPE_PATH; i++)
    if (F->target[W->path[i]] != toward) F->target[W->path[i]] = later;
}

/* Where agent a can step aside (rules 7 and 9). The cells of the agents waiting for a are
 * marked: those between such an agent and a ("toward": a move there could never let it pass)
 * and the next FAR__ESCAPE_PATH cells of its path after a's ("later"). An escape is a free cell
 * off all of them. A breadth-first search from a's cell over free cells, never through
 * "toward" cells, bounded by FAR__ESCAPE_NODES cells, finds the nearest escape, first along
 * a's graph (the flow, for FAR) and, when that finds none, along any legal move; a steps to
 * the first cell of the way there (it must be able to stay there: rule 3's tail test). With no
 * escape in reach, a retreats to the allowed neighbour that is along its graph, else of lowest
 * density, else first in the order N, E, S, W, NE, SE, SW, NW. `also`, when not -1, is an
 * agent whose path counts as a waiting agent's. Returns the number of steps to the escape (1: a
 * real step aside), FAR__NO_ESCAPE for a retreat, or -1 when a cannot move; the first step in
 * *cell. */
static int32_t aside_choice(far *F, const mapf__sim *sim, int32_t a, int32_t also,
                            int32_t *cell) {
  const mapf_grid *g = sim->grid;
  int32_t here = sim->pos[a];
  int64_t t = sim->time + 1;
  uint32_t toward = new_target_stamp(F, g->ncells), later = new_target_stamp(F, g->ncells);
  for (int32_t w = F->waiters[a]; w; w = F->ag[w - 1].next_waiter)
    if (F->ag[w - 1].wait_for == a) mark_waiter(F, &F->ag[w - 1], here, toward, later);
  if (also >= 0) mark_waiter(F, &F->ag[also], here, toward, later);
  /* First steps: free, not toward a waiting agent, and a may stay there. */
  uint8_t first = 0, m = g->moves[here];
  int32_t retreat = -1;
  int64_t retreat_key = 0;
  for (int d = 0; d < 8; d++) {
    if (!(m >> d & 1)) continue;
    int32_t c = here + g->offset[d];
    if (F->target[c] == toward || sim->occ[c] >= 0 || holder(F, sim, c, t, a) >= 0 ||
        tail_holder(F, sim, c, t, a) >= 0)
      continue;
    first |= (uint8_t)(1u << d);
    int64_t key = (int64_t)!(F->moves[here] >> d & 1) << 40 | (int64_t)F->density[c];
    if (retreat < 0 || key < retreat_key) {
      retreat = c;
      retreat_key = key;
    }
  }
  *cell = retreat;
  if (!first) return -1;
  for (int pass = 0; pass < 2; pass++) {
    const uint8_t *moves = pass ? g->moves : F->moves;
    if (++F->escape_stamp == 0) {
      memset(F->escape, 0, (size_t)g->ncells * sizeof *F->escape);
      F->escape_stamp = 1;
    }
    F->escape[here] = F->escape_stamp;
    int32_t head = 0, tail = 0;
    for (int d = 0; d < 8; d++) {
      if (!(first >> d & 1) || !(moves[here] >> d & 1)) continue;
      int32_t c = here + g->offset[d];
      if (F->target[c] != later) {
        *cell = c;
        return 1;
      }
      F->escape[c] = F->escape_stamp;
      F->bfs[tail] = (far_bfs){c, c, 1};
      tail++;
    }
    while (head < tail) {
      far_bfs e = F->bfs[head++];
      for (int d = 0; d < 8; d++) {
        if (!(moves[e.cell] >> d & 1)) continue;
        int32_t c = e.cell + g->offset[d];
        if (F->escape[c] == F->escape_stamp || F->target[c] == toward || sim->occ[c] >= 0)
          continue;
        if (F->target[c] != later) {
          *cell = e.first;
          return e.depth + 1;
        }
        if (tail == FAR__ESCAPE_NODES) continue;
        F->escape[c] = F->escape_stamp;
        F->bfs[tail++] = (far_bfs){c, e.first, e.depth + 1};
      }
    }
  }
  return FAR__NO_ESCAPE;
}

/* Moves agent a to the neighbour c found by aside_choice; it plans a complete path at the next
 * step. Returns 0, or -1 when out of memory. */
static int step_aside(far *F, mapf__sim *sim, int32_t a, int32_t c) {
  int32_t here = sim->pos[a];
  int32_t p[2] = {here, c};
  if (set_path(F, a, p, 2) < 0 || res_add(F, c, sim->time + 1, a) < 0) return -1;
  far_agent *A = &F->ag[a];
  set_tail(F, a, here, c);
  A->ahead = 1;
  A->replan = 1;
  A->yielding = 1;
  A->wait_for = -1;
  A->blocked = 0;
  return 0;
}

/* Retries the agents waiting for a (which just stepped aside). */
static int release_waiters(far *F, mapf__sim *sim, int32_t a) {
  int32_t sp = 0;
  for (int32_t w = F->waiters[a]; w; w = F->ag[w - 1].next_waiter) {
    if (F->ag[w - 1].wait_for != a) continue;
    F->ag[w - 1].wait_for = -1;
    push_stack(F, &sp, w - 1);
  }
  F->waiters[a] = 0;
  return drain(F, sim, sp);
}

/* Is agent p standing on its goal with nothing left to do? */
static inline int parked(const far *F, const mapf__sim *sim, int32_t p) {
  const far_agent *P = &F->ag[p];
  return P->ahead == 0 && P->at == P->len - 1 && sim->pos[p] == sim->goal[p];
}

static inline int stands_blocked(const far *F, int32_t a) {
  const far_agent *A = &F->ag[a];
  return A->ahead == 0 && A->wait_for >= 0 && A->at < A->len - 1;
}

/* Rule 7's order of the agents of a cycle, best first: one with an escape in reach (see
 * aside_choice), then one that already stepped aside and has not moved on its own since (its
 * retreat goes on rather than being undone by the other agent's), then the highest density at
 * its cell (slide 13), then the nearest escape, then the lowest index. */
typedef struct far_candidate {
  int32_t agent, cell, escape, density;
  int yielding;
} far_candidate;

static int candidate_before(const far_candidate *x, const far_candidate *y) {
  int ex = x->escape != FAR__NO_ESCAPE, ey = y->escape != FAR__NO_ESCAPE;
  if (ex != ey) return ex;
  if (x->yielding != y->yielding) return x->yielding;
  if (x->density != y->density) return x->density > y->density;
  if (x->escape != y->escape) return x->escape < y->escape;
  return x->agent < y->agent;
}

/* Rule 7: finds the cycles of the wait-for graph and breaks each. Returns -1 when out of
 * memory. */
static int break_deadlocks(far *F, mapf__sim *sim) {
  memset(F->color, 0, (size_t)sim->n);
  for (int32_t s = 0; s < F->n; s++) {
    if (F->color[s] || !stands_blocked(F, s)) continue;
    int32_t len = 0, x = s;
    while (x >= 0 && !F->color[x] && stands_blocked(F, x)) {
      F->color[x] = 1;
      F->walk[len++] = x;
      x = F->ag[x].wait_for;
    }
    if (x >= 0 && F->color[x] == 1) {
      /* A cycle through x: the best agent of it that can move steps aside. */
      far_candidate best = {-1, -1, 0, 0, 0};
      int32_t y = x;
      do {
        far_candidate c = {y, -1, 0, F->density[sim->pos[y]], F->ag[y].yielding};
        c.escape = aside_choice(F, sim, y, -1, &c.cell);
        if (c.escape >= 0 && (best.agent < 0 || candidate_before(&c, &best))) best = c;
        y = F->ag[y].wait_for;
      } while (y != x);
      if (best.agent >= 0) {
        if (step_aside(F, sim, best.agent, best.cell) < 0) return -1;
        sim->deadlocks_broken++;
        if (release_waiters(F, sim, best.agent) < 0) return -1;
      }
    }
    for (int32_t i = 0; i < len; i++) F->color[F->walk[i]] = 2;
  }
  return 0;
}

/* Rule 9: an agent that has waited at least replan_after steps for an agent on its goal (its
 * local repair found no way round) has every agent standing on its goal among its next k cells
 * step aside at once (one at a time, they could take turns and never clear its way). */
static int yield_goals(far *F, mapf__sim *sim) {
  for (int32_t a = 0; a < F->n; a++) {
    const far_agent *A = &F->ag[a];
    if (!stands_blocked(F, a) || A->blocked < F->replan_after) continue;
    if (!parked(F, sim, A->wait_for)) continue;
    int32_t moved[64], nmoved = 0; /* k <= 64 */
    for (int32_t i = A->at + 1; i < A->len && i <= A->at + F->k; i++) {
      int32_t p = sim->occ[A->path[i]], cell;
      if (p < 0 || !parked(F, sim, p) || aside_choice(F, sim, p, a, &cell) < 0) continue;
      if (step_aside(F, sim, p, cell) < 0) return -1;
      sim->agent[p].pushed++;
      moved[nmoved++] = p;
    }
    for (int32_t i = 0; i < nmoved; i++)
      if (release_waiters(F, sim, moved[i]) < 0) return -1;
  }
  return 0;
}

/* ---- The planner ---------------------------------------------------------------------------- */

/* Drops a's reservations and path; it plans a complete path again from where it stands. */
static int abandon(far *F, mapf__sim *sim, int32_t a) {
  far_agent *A = &F->ag[a];
  for (int32_t j = 1; j <= A->ahead; j++)
    res_remove(F, A->path[A->at + j], sim->time - 1 + j, a);
  if (F->tail[A->path[A->at + A->ahead]] == a + 1) F->tail[A->path[A->at + A->ahead]] = 0;
  A->ahead = 0;
  int32_t here = sim->pos[a];
  if (F->tail[here] == 0) F->tail[here] = a + 1;
  A->replan = 1;
  return set_path(F, a, &here, 1);
}

/* Agent a is not where its reservations put it: never expected on a fixed map (an invariant
 * build aborts); under map changes, after an agent it followed was stopped (far_map_changed). */
static int derail(far *F, mapf__sim *sim, int32_t a) {
#ifdef MAPF_CHECK_INVARIANTS
  if (sim->cfg->inst->nchange == 0) { /* a map change may break a follower's reservations */
    fprintf(stderr, "far: agent %d is off its reservations at t=%lld\n", (int)a,
            (long long)sim->time);
    abort();
  }
#endif
  return abandon(F, sim, a);
}

static int far_plan(mapf__sim *sim, void *state) {
  far *F = state;
  int32_t n = F->n;
  int64_t T = sim->time;
  F->inserted[T % FAR__RING] = 0; /* next used for step T + FAR__RING */
  /* Bring every agent to the present: reservations for time T have been used. */
  for (int32_t a = 0; a < n; a++) {
    far_agent *A = &F->ag[a];
    if (A->ahead > 0 && sim->pos[a] == A->path[A->at + 1]) {
      A->at++;
      A->ahead--;
      F->density[A->path[A->at]]--;
      res_remove(F, A->path[A->at], T, a);
    } else if (A->ahead > 0 || sim->pos[a] != A->path[A->at]) {
      if (derail(F, sim, a) < 0) return MAPF_ENOMEM;
    }
  }
  /* Searches (rules 1 and 8), in agent order. */
  for (int32_t a = 0; a < n; a++) {
    far_agent *A = &F->ag[a];
    if (A->ahead > 0) continue;
    int r = 0;
    if (A->replan) {
      if (mapf__sim_expired(sim)) return MAPF_OK;
      r = plan_complete(F, sim, a);
    } else if (A->at < A->len - 1 && A->blocked > 0 && A->blocked % F->replan_after == 0) {
      if (mapf__sim_expired(sim)) return MAPF_OK;
      r = plan_local(F, sim, a);
      if (r > 0) A->blocked = 0;
    }
    if (r < 0) return MAPF_ENOMEM;
  }
  /* Reservations (rules 3-6). */
  for (int32_t a = 0; a < n; a++) {
    F->state[a] = ST_UNTRIED;
    F->waiters[a] = 0;
    F->ag[a].wait_for = -1;
  }
  for (int32_t a = 0; a < n; a++) {
    if (F->state[a] != ST_UNTRIED) continue;
    int32_t sp = 0;
    push_stack(F, &sp, a);
    if (drain(F, sim, sp) < 0) return MAPF_ENOMEM;
  }
  for (int32_t a = 0; a < n; a++)
    if (F->state[a] == ST_QUEUED) F->state[a] = ST_DONE;
  /* Deadlocks and goals (rules 7 and 9). */
  if (break_deadlocks(F, sim) < 0 || yield_goals(F, sim) < 0) return MAPF_ENOMEM;
  for (int32_t a = 0; a < n; a++) {
    far_agent *A = &F->ag[a];
    if (A->ahead > 0) {
      sim->want[a] = A->path[A->at + 1];
      A->blocked = 0;
    } else {
      sim->want[a] = MAPF__WAIT;
      if (A->at < A->len - 1) {
        A->blocked++;
        sim->agent[a].failed_moves++;
      } else {
        A->blocked = 0;
      }
    }
  }
  return MAPF_OK;
}

static void far_free(void *state) {
  far *F = state;
  if (!F) return;
  if (F->ag)
    for (int32_t a = 0; a < F->n; a++) free(F->ag[a].path);
  free(F->ag);
  free(F->res_head);
  free(F->res);
  free(F->tail);
  free(F->density);
  free(F->state);
  free(F->stack);
  free(F->waiters);
  free(F->color);
  free(F->walk);
  free(F->node);
  mapf__bq_free(&F->open);
  free(F->target);
  free(F->obstacle);
  free(F->tmp);
  free(F->escape);
  free(F);
}

/* Shared by FAR and A*-Replan: k, flow on or off, replan_after. */
static int far_init_with(mapf__sim *sim, void **state, mapf_diag *d, int32_t k, int flow,
                         int32_t replan_after) {
  const mapf_grid *g = sim->grid;
  int32_t n = sim->n;
  size_t cells = (size_t)g->ncells, agents = (size_t)(n > 0 ? n : 1);
  far *F = calloc(1, sizeof *F);
  if (!F) return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  F->k = k;
  F->replan_after = replan_after;
  F->single_pass = sim->cfg->execution == MAPF_EXEC_SINGLE_PASS;
  F->n = n;
  F->obstacle_time = -1;
  mapf__bq_init(&F->open);
  F->ag = calloc(agents, sizeof *F->ag);
  F->res_head = calloc(cells, sizeof *F->res_head);
  F->tail = calloc(cells, sizeof *F->tail);
  F->density = calloc(cells, sizeof *F->density);
  F->state = calloc(agents, 1);
  F->stack = calloc(agents, sizeof *F->stack);
  F->waiters = calloc(agents, sizeof *F->waiters);
  F->color = calloc(agents, 1);
  F->walk = calloc(agents, sizeof *F->walk);
  F->node = calloc(cells, sizeof *F->node);
  F->target = calloc(cells, sizeof *F->target);
  F->obstacle = calloc(cells, sizeof *F->obstacle);
  F->escape = calloc(cells, sizeof *F->escape);
  const mapf_flow *fl = flow ? mapf_grid_flow(g) : NULL;
  if (!F->ag || !F->res_head || !F->tail || !F->density || !F->state || !F->stack ||
      !F->waiters || !F->color || !F->walk || !F->node || !F->target ||
      !F->obstacle || !F->escape || (flow && !fl)) {
    far_free(F);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  F->moves = flow ? mapf_flow_moves(fl) : g->moves;
  for (int32_t a = 0; a < n; a++) {
    far_agent *A = &F->ag[a];
    int32_t here = sim->pos[a];
    A->wait_for = -1;
    A->replan = here != sim->goal[a];
    if (path_reserve(A, 1) < 0) {
      far_free(F);
      return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
    }
    A->path[0] = here;
    A->len = 1;
    F->tail[here] = a + 1;
  }
  *state = F;
  return MAPF_OK;
}

static int far_init(mapf__sim *sim, void **state, mapf_diag *d) {
  far_params P;
  int rc = mapf_params_fill(sim->cfg->algo, &sim->cfg->params, &P, sizeof P, d);
  if (rc != MAPF_OK) return rc;
  return far_init_with(sim, state, d, P.reservation, P.flow, P.replan_after);
}

static int astar_replan_init(mapf__sim *sim, void **state, mapf_diag *d) {
  astar_replan_params P;
  int rc = mapf_params_fill(sim->cfg->algo, &sim->cfg->params, &P, sizeof P, d);
  if (rc != MAPF_OK) return rc;
  return far_init_with(sim, state, d, P.reservation, 0, P.replan_after);
}

/* The executor pushes only when sim->push is set, which these planners never set; should it
 * move an agent anyway, the agent plans again from where it is. */
static void far_pushed(mapf__sim *sim, void *state, int32_t a) {
  (void)sim;
  far *F = state;
  F->ag[a].replan = 1;
}

/* Agent a has a new target (patrol, re-tasking, lifelong goals: sim_int.h). Reservations are
 * never cancelled (rule 4), so it uses up those it holds (at most k moves along the old path),
 * extends none (reserve), and plans a complete path to the new target as soon as it stands
 * (rule 1), as after stepping aside. Under patrol it stands on its old target with none left
 * and plans at the next step. */
static void far_retarget(mapf__sim *sim, void *state, int32_t a) {
  (void)sim;
  far *F = state;
  F->ag[a].replan = 1;
}

/* The map changed (sim_int.h; docs/events.md). FAR's flow annotation is made again for the new
 * map (Wang & Botea 2008 annotate a fixed map: a change is a new map to them). An agent whose
 * path, reserved moves included, has a move the map no longer has gives up its reservations
 * and plans a complete path from where it stands (rule 1), as does one a closing had cut off
 * (an opening may have joined it to its goal); the others keep their paths, which are still
 * legal, even where an opening made a shorter one (A*-Replan's rule: replan when blocked). */
static int far_map_changed(mapf__sim *sim, void *state, const int32_t *cells, int32_t n) {
  (void)cells;
  (void)n;
  far *F = state;
  if (F->moves != sim->grid->moves) {
    const mapf_flow *fl = mapf_grid_flow(sim->grid);
    if (!fl) return MAPF_ENOMEM;
    F->moves = mapf_flow_moves(fl);
  }
  for (int32_t a = 0; a < F->n; a++) {
    far_agent *A = &F->ag[a];
    if (A->cut_off) {
      A->cut_off = 0;
      A->replan = 1;
    }
    /* From the cell it stands on: the move of the last step is made. */
    int32_t from = A->ahead > 0 && sim->pos[a] == A->path[A->at + 1] ? A->at + 1 : A->at;
    if (mapf__path_legal(sim->grid, A->path, from, A->len)) continue;
    if (mapf__path_legal(sim->grid, A->path, from, A->at + A->ahead + 1)) {
      A->replan = 1; /* its reserved moves stay legal: it uses them up, as after a retarget */
    } else if (abandon(F, sim, a) < 0) {
      /* A reserved move into a closed cell: it stays where it is, and an agent that reserved
       * to follow it there finds the way shut and plans again too (derail). */
      return MAPF_ENOMEM;
    }
  }
  F->obstacle_time = -1;
  return MAPF_OK;
}

static const mapf__planner_vt far_vt = {
    .init = far_init,
    .plan = far_plan,
    .pushed = far_pushed,
    .free = far_free,
    .retarget = far_retarget,
    .map_changed = far_map_changed,
};
static const mapf__planner_vt astar_replan_vt = {
    .init = astar_replan_init,
    .plan = far_plan,
    .pushed = far_pushed,
    .free = far_free,
    .retarget = far_retarget,
    .map_changed = far_map_changed,
};

MAPF_ALGORITHM(far, 30) = {
    .name = "far",
    .label = "FAR",
    .doc = "Flow Annotation Replanning: complete A* paths on a flow-annotated grid, k-step "
           "reservations, wait-for deadlock breaking, local repair (Wang & Botea 2008)",
    .params = far_param_table,
    .nparams = MAPF_NPARAMS(far_param_table),
    .size = sizeof(far_params),
    .vt = &far_vt,
    /* Weights measured by `mapfarm calibrate` (docs/choices.md, "The work budget"). */
    .work = {.expansion_ns = 78, .agent_step_ns = 25},
};

MAPF_ALGORITHM(astar_replan, 40) = {
    .name = "astar-replan",
    .label = "A*-Replan",
    .doc = "FAR without flow annotation: complete A* paths on the grid, k-step reservations, "
           "deadlock breaking, local repair (Sigurdson et al. 2018, Sec. V)",
    .params = astar_replan_param_table,
    .nparams = MAPF_NPARAMS(astar_replan_param_table),
    .size = sizeof(astar_replan_params),
    .vt = &astar_replan_vt,
    /* Weights measured by `mapfarm calibrate` (docs/choices.md, "The work budget"). */
    .work = {.expansion_ns = 99, .agent_step_ns = 200},
};
