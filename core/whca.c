/* whca.c: Windowed Hierarchical Cooperative A* (Silver 2005; thesis 5.2.1; docs/choices.md,
 * WHCA*). Every agent runs a space-time A* over (cell, time) limited to a window of w steps,
 * against a shared reservation table of the cells other agents will hold; beyond the window
 * the remaining cost is the agent's true distance to its goal, from its own Reverse Resumable
 * A* (rra.h). Agents replan together every `replan` steps (a round), in a priority order that
 * is fixed or rotates each round; agents on their goals plan too, so they step aside for
 * agents of higher priority and come back.
 *
 * Choices the papers leave open (each is tested in tests/test_whca.c):
 * - Costs in the space-time search: a move costs its octile length (1 or sqrt(2)); a wait
 *   costs `wait` (default 1: one time step, as in Silver, where every action including a wait
 *   costs one) except a wait on the agent's own goal, which is free (Silver), so an agent that
 *   reaches its goal inside the window stays there at no cost to the window's end. Travel
 *   distance, the metric, still counts waits as 0 (docs/choices.md).
 * - The window's end: Silver's terminal edge. The search stops when it expands a node at depth
 *   w, and orders nodes by f = g + h with h the RRA* distance, so the chosen partial path
 *   minimises g + (true distance from its last cell). Ties: lowest f, then highest g, then the
 *   deeper node, then first in first out.
 * - Reservations: a reserved vertex (cell, t) names its agent; an edge is never stored, since a
 *   swap is two agents A at u and B at v at time t with B at u and A at v at t + 1, which the
 *   owners of (v, t) and (u, t + 1) show. Moving into a cell another agent holds at time t
 *   (following it) is allowed only where the executor allows it (docs/choices.md, Simulation):
 *   under `chains` unless the followers close a cycle (walked through the agents' plans);
 *   under `single-pass` only behind an agent of lower index, which moves first, and whichever
 *   of leader and follower plans last checks the pair.
 * - Rounds: at times 0, r, 2r, ... (r = `replan`, 0 meaning max(1, w / 2), Silver's "half-way
 *   through the partial route") the table is cleared and every agent plans a full window in
 *   priority order. Between rounds an agent plans alone, against everyone else's reservations,
 *   only when it is not where its plan says (the executor refused a move) or its plan has
 *   ended (an agent that found no path waits one step and tries again).
 * - No path within the window: the agent reserves its current cell for the next step only and
 *   waits (docs/choices.md). If another agent had reserved that cell for the next step, that
 *   agent plans again at once against the new reservation (each agent waits this way at most
 *   once per step, so this ends), so plans stay consistent and the executor refuses nothing.
 * - Priority rotation (`rotate`, default true; Silver lets agents' priorities change from one
 *   window to the next so that no agent is always last): round k orders agents by index
 *   starting at (k * s) mod n, with s the integer nearest n / phi (the golden ratio) made
 *   coprime with n. Every agent comes first once in n rounds, as with a rotation by one, but
 *   two given agents swap places every few rounds instead of staying in one order for up to n
 *   rounds, which an agent standing on its goal in a corridor needs to let a lower-indexed
 *   agent through. (Measured on generated maps: rotation by one completed fewer agents than
 *   this stride, and a fixed order fewer still.)
 * - RRA* (rra.h) per agent, started lazily at its first search (from its start cell, where
 *   Silver aims the reverse search), stored in 8 x 8 blocks allocated on first touch. Its
 *   expansions count with the space-time search's in the agent's expansions (the expansion
 *   budget stands in for CPU time). Memory is bounded by `memory` (MB, default 1024): past it
 *   the least recently used agents' RRA* are dropped and restart, aimed at the agent's cell of
 *   the moment; distances, and so all moves, are unchanged, only the work grows. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "heap.h"
#include "rra.h"
#include "sim_int.h"

/* Parameters (Silver 2005; Sigurdson 2018 thesis, 5.2.1). Window 8 as in the thesis's
 * portfolio (5.4.2); replanning half-way through the window and rotating priorities as Silver
 * suggests. The choices behind each are in the head comment above. */
typedef struct whca_params {
  int32_t window, replan;
  bool rotate;
  double wait;
  int32_t memory;
} whca_params;

static const mapf_param_def whca_param_table[] = {
    {"window", MAPF_PARAM_INT, 1, 1024, 8,
     "steps of each agent's space-time search; beyond them the true distance to the goal", NULL,
     offsetof(whca_params, window)},
    {"replan", MAPF_PARAM_INT, 0, 1024, 0,
     "steps between rounds in which every agent plans again (0: window / 2, at least 1)", NULL,
     offsetof(whca_params, replan)},
    {"rotate", MAPF_PARAM_BOOL, 0, 1, 1,
     "rotate the agents' priority order every round (false: fixed order, agent index)", NULL,
     offsetof(whca_params, rotate)},
    {"wait", MAPF_PARAM_REAL, 0, 1000, 1,
     "search cost of waiting one step off the goal (a wait on the goal is free)", NULL,
     offsetof(whca_params, wait)},
    {"memory", MAPF_PARAM_INT, 0, 1048576, 1024,
     "megabytes of RRA* data per run; past it the least recently used are dropped (0: no limit)",
     NULL, offsetof(whca_params, memory)},
};

static int whca_rules(const void *params, mapf_diag *d) {
  const whca_params *p = params;
  if (p->replan > p->window)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "whca: replan (%d) must be at most window (%d): an agent has no plan "
                         "beyond its window",
                         (int)p->replan, (int)p->window);
  return MAPF_OK;
}

#define ST_EPS 1e-9

/* --- Reservation table: (time, cell) -> agent ------------------------------------------- */

#define RT_EMPTY UINT64_MAX

/* Most lookups find nothing (the space-time search asks for every neighbour of every node), and
 * the table is too large for the nearest caches: a per-cell filter answers most of them, a bit
 * per time slot (time % 16) set by every reservation of the cell in that slot since the last
 * clear, so a reservation's bit is always set and a clear bit means none. Neighbouring cells
 * share the filter's cache lines. */
typedef struct rtable {
  uint64_t *key; /* time << 26 | cell (cells are < 2^26, MAPF_GRID_MAX_CELLS) */
  int32_t *owner;
  uint32_t cap, n;
  uint16_t *seen;  /* per cell: bit t % 16 set when cell may be reserved at a time t */
  int32_t *dirty;  /* cells whose seen bits were set since the last clear (repeats allowed) */
  int32_t ndirty, dirty_cap;
} rtable;

static inline uint64_t rt_key(int64_t t, int32_t cell) {
  return (uint64_t)t << 26 | (uint64_t)cell;
}

static inline uint32_t rt_home(uint64_t key, uint32_t cap) {
  return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* The agent that reserved cell at time t, or -1. */
static inline int32_t rt_get(const rtable *rt, int64_t t, int32_t cell) {
  if (!(rt->seen[cell] >> (t & 15) & 1)) return -1;
  uint64_t k = rt_key(t, cell);
  for (uint32_t i = rt_home(k, rt->cap);; i = (i + 1) & (rt->cap - 1)) {
    if (rt->key[i] == k) return rt->owner[i];
    if (rt->key[i] == RT_EMPTY) return -1;
  }
}

static void rt_clear(rtable *rt) {
  for (int32_t i = 0; i < rt->ndirty; i++) rt->seen[rt->dirty[i]] = 0;
  rt->ndirty = 0;
  if (rt->n == 0) return;
  for (uint32_t i = 0; i < rt->cap; i++) rt->key[i] = RT_EMPTY;
  rt->n = 0;
}

static int rt_grow(rtable *rt) {
  uint32_t cap = rt->cap ? rt->cap * 2 : 1024;
  uint64_t *key = malloc((size_t)cap * sizeof *key);
  int32_t *owner = malloc((size_t)cap * sizeof *owner);
  if (!key || !owner) {
    free(key);
    free(owner);
    return -1;
  }
  for (uint32_t i = 0; i < cap; i++) key[i] = RT_EMPTY;
  for (uint32_t i = 0; i < rt->cap; i++) {
    if (rt->key[i] == RT_EMPTY) continue;
    uint32_t j = rt_home(rt->key[i], cap);
    while (key[j] != RT_EMPTY) j = (j + 1) & (cap - 1);
    key[j] = rt->key[i];
    owner[j] = rt->owner[i];
  }
  free(rt->key);
  free(rt->owner);
  rt->key = key;
  rt->owner = owner;
  rt->cap = cap;
  return 0;
}

/* Reserves cell at time t for agent a (replacing any owner). Returns -1 when out of memory. */
static int rt_set(rtable *rt, int64_t t, int32_t cell, int32_t a) {
  if ((rt->n + 1) * 2 > rt->cap && rt_grow(rt) < 0) return -1;
  uint64_t k = rt_key(t, cell);
  uint32_t i = rt_home(k, rt->cap);
  while (rt->key[i] != k && rt->key[i] != RT_EMPTY) i = (i + 1) & (rt->cap - 1);
  if (rt->key[i] == RT_EMPTY) {
    uint16_t bit = (uint16_t)(1u << (t & 15));
    if (!(rt->seen[cell] & bit)) {
      if (rt->ndirty == rt->dirty_cap) {
        int32_t cap = rt->dirty_cap ? rt->dirty_cap * 2 : 1024;
        int32_t *d = realloc(rt->dirty, (size_t)cap * sizeof *d);
        if (!d) return -1;
        rt->dirty = d;
        rt->dirty_cap = cap;
      }
      rt->dirty[rt->ndirty++] = cell;
      rt->seen[cell] |= bit;
    }
    rt->key[i] = k;
    rt->n++;
  }
  rt->owner[i] = a;
  return 0;
}

/* Removes the reservation of cell at time t if agent a holds it. Linear probing with
 * backward-shift deletion, so no tombstones slow later lookups. */
static void rt_del(rtable *rt, int64_t t, int32_t cell, int32_t a) {
  if (rt->n == 0) return;
  uint64_t k = rt_key(t, cell);
  uint32_t mask = rt->cap - 1, i = rt_home(k, rt->cap);
  while (rt->key[i] != k) {
    if (rt->key[i] == RT_EMPTY) return;
    i = (i + 1) & mask;
  }
  if (rt->owner[i] != a) return;
  for (uint32_t j = i;;) {
    j = (j + 1) & mask;
    if (rt->key[j] == RT_EMPTY) break;
    uint32_t h = rt_home(rt->key[j], rt->cap);
    /* The entry at j may fill the hole at i unless its home lies cyclically in (i, j]. */
    int stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
    if (stays) continue;
    rt->key[i] = rt->key[j];
    rt->owner[i] = rt->owner[j];
    i = j;
  }
  rt->key[i] = RT_EMPTY;
  rt->n--;
}

/* --- Space-time search scratch ----------------------------------------------------------- */

typedef struct st_node {
  double g;
  int32_t parent; /* node index, -1 at the root */
  int32_t cell;
  int32_t k;      /* steps from the search's start time */
  int32_t closed;
  int32_t local;  /* the cell's place in the box (st_box below); 0 without a box */
  mapf__cost2 gc; /* with exact keys (st_xentry): g as a cost pair, and its key */
  uint64_t gkey;
} st_node;

typedef struct st_slot {
  uint64_t key;  /* k << 26 | cell */
  uint32_t gen;  /* valid when equal to the search's generation */
  int32_t node;
} st_slot;

typedef struct st_entry {
  double f, g;
  uint32_t seq;
  int32_t k;
  int32_t node;
} st_entry;

/* The box: a search of w steps from cell (x0, y0) stays within the (2w + 1) x (2w + 1) square
 * around it, so where that square times the w + 1 steps is small (window 8: 17 x 17 x 9 slots)
 * a dense table of (place in the square, k) replaces the hash table of nodes, and one of the
 * square's cells holds each cell's RRA* distance once asked: a window search asks for a cell's
 * distance at every step k that reaches it, and the agent's RRA* blocks are mostly out of the
 * caches. A second query of a cell would return the same value and change nothing (the cell is
 * closed after the first), so the cache changes no result, nor RRA*'s state. */
#define ST_BOX_MAX (1 << 18) /* most slots of a box table; larger windows use the hash table */

typedef struct st_bslot {
  uint32_t gen; /* valid when equal to the search's box generation */
  int32_t node;
} st_bslot;

typedef struct st_hslot {
  double h;
  uint32_t gen;
  mapf__cost2 hc; /* h as a cost pair */
} st_hslot;

/* Exact keys. Where `wait` is an integer (the default 1), every g of the space-time search is
 * an exact pair a + b sqrt(2) (waits and cardinal moves in a, diagonal moves in b), and so is
 * every RRA* distance h, so f and g have search_int.h's exact integer keys, and an entry is
 * one 128-bit integer in the order of st_before: from the top the key of f (45 bits), the
 * complement of the key of g (45), 2047 - k (11) and the insertion number (27; a search in the
 * box, w <= 39, pushes at most 9 entries per slot, below 2^22). The order is st_before's, which
 * compares the doubles of these costs with an epsilon of 1e-9: on the costs a run allows here
 * (f below 2^19: whca_init) a double is off from its pair by less than 2^-31 (h: sqrt(2)'s
 * double times fewer than 2^19 and the two roundings of mapf__cost, each under 2^-35; f: one
 * more rounding; g: at most 39 sums below 2^16, each off by at most 2^-37), so two equal pairs
 * give doubles less than 1e-9 apart (equal for st_before, as for the keys), while two
 * different pairs differ by more than 9e-7 (search_int.h: |x + y sqrt(2)| >= 1 / (2 sqrt(2)
 * |y| + 1), |y| < 2^19) and compare alike both ways. Both orders are strict and total on the
 * entries (the insertion number tells any two apart) and the heap is the same textbook one, so
 * it makes the same moves and pops the same entries; the tests for stale entries and improved
 * nodes compare the same g-values, exactly. Otherwise (a `wait` like 0.5, large maps or
 * windows, an agent that cannot reach its goal) the search keeps the doubles. */
typedef struct st_xentry {
  uint64_t hi, lo;
  int32_t node;
} st_xentry;

#define ST_GC_LO_BITS 26 /* bits of the key of g's complement in lo */

static inline int st_xbefore(const st_xentry *a, const st_xentry *b) {
  __extension__ typedef unsigned __int128 u128;
  return ((u128)a->hi << 64 | a->lo) < ((u128)b->hi << 64 | b->lo);
}

typedef struct st_scratch {
  st_node *node;
  int32_t nnode, node_cap;
  st_slot *slot;
  uint32_t slot_cap, gen;
  st_entry *heap;
  int32_t heap_len, heap_cap;
  uint32_t seq;
  int32_t side;     /* 2w + 1 when the box is used, else 0 */
  int32_t area;     /* side * side */
  st_bslot *bslot;  /* area * (w + 1): (place, k) at k * area + place */
  st_hslot *hslot;  /* area: the RRA* distance of each place's cell */
  uint32_t bgen;
  st_xentry *xheap; /* the open list with exact keys: the entries not in xfront */
  int32_t xheap_len, xheap_cap;
  st_xentry *xfront; /* the entries pushed with f equal to xfront_f (st_xpush) */
  int32_t xfront_len, xfront_cap;
  uint64_t xfront_f; /* an entry's hi >> ST_F_SHIFT: its key of f */
} st_scratch;

/* Lowest f, then highest g, then the deeper node (so a path reaches the window's end without
 * widening first among equals: waits on the goal are free), then first in first out. */
static inline int st_before(const st_entry *a, const st_entry *b) {
  if (a->f < b->f - ST_EPS) return 1;
  if (a->f > b->f + ST_EPS) return 0;
  if (a->g > b->g + ST_EPS) return 1;
  if (a->g < b->g - ST_EPS) return 0;
  if (a->k != b->k) return a->k > b->k;
  return a->seq < b->seq;
}

MAPF__HEAP_DEFINE(st_heap, st_entry, st_before)

static int st_push(st_scratch *s, int32_t node, double g, double f, int32_t k) {
  st_entry e = {f, g, s->seq++, k, node};
  return st_heap_push(&s->heap, &s->heap_len, &s->heap_cap, 256, e);
}

MAPF__HEAP_DEFINE(st_xheap, st_xentry, st_xbefore)

/* The open list with exact keys is two heaps, whose union pops in the order of st_xbefore (the
 * smaller of the two tops comes out): the front holds the entries pushed with the f of the
 * front (set from the smallest entry whenever the front runs empty), the other heap the rest.
 * RRA*'s distance is exact, so most children continue a path at the smallest f with more g
 * than any other entry: in one heap each went up to its root, past every entry of higher f
 * (most of the children, never expanded); the front holds few entries. Any two heaps of the
 * same entries pop in the same order (no two entries are equal), so nothing else changes. */
#define ST_F_SHIFT (64 - MAPF__KEY_BITS)

MAPF__INLINE int st_xpush(st_scratch *s, int32_t node, uint64_t gkey, uint64_t fkey, int32_t k) {
  uint64_t gc = MAPF__KEY_MAX - gkey;
  st_xentry e = {fkey << ST_F_SHIFT | gc >> ST_GC_LO_BITS,
                 (gc & ((UINT64_C(1) << ST_GC_LO_BITS) - 1)) << 38 | (uint64_t)(2047 - k) << 27 |
                     s->seq++,
                 node};
  if (fkey == s->xfront_f)
    return st_xheap_push(&s->xfront, &s->xfront_len, &s->xfront_cap, 64, e);
  return st_xheap_push(&s->xheap, &s->xheap_len, &s->xheap_cap, 256, e);
}

/* Removes and returns the first entry of the open list (not empty). */
static inline st_xentry st_xpop(st_scratch *s) {
  if (s->xfront_len > 0 &&
      (s->xheap_len == 0 || st_xbefore(&s->xfront[0], &s->xheap[0])))
    return st_xheap_pop(s->xfront, &s->xfront_len);
  st_xentry e = st_xheap_pop(s->xheap, &s->xheap_len);
  if (s->xfront_len == 0) s->xfront_f = e.hi >> ST_F_SHIFT;
  return e;
}

/* The key of g of an entry. */
static inline uint64_t st_xentry_gkey(const st_xentry *e) {
  uint64_t gc = (e->hi & ((UINT64_C(1) << (64 - MAPF__KEY_BITS)) - 1)) << ST_GC_LO_BITS |
                e->lo >> 38;
  return MAPF__KEY_MAX - gc;
}

static inline uint32_t st_home(uint64_t key, uint32_t cap) {
  return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

static int st_begin(st_scratch *s) {
  s->nnode = 0;
  s->heap_len = 0;
  s->xheap_len = 0;
  s->xfront_len = 0;
  s->xfront_f = UINT64_MAX; /* no key: the root goes to the other heap */
  s->seq = 0;
  if (s->slot_cap == 0) {
    s->slot_cap = 1024;
    s->slot = calloc(s->slot_cap, sizeof *s->slot);
    if (!s->slot) return s->slot_cap = 0, -1;
    s->gen = 0;
  }
  if (++s->gen == 0) {
    memset(s->slot, 0, (size_t)s->slot_cap * sizeof *s->slot);
    s->gen = 1;
  }
  return 0;
}

/* Doubles the slot table, keeping this search's entries. */
static int st_grow(st_scratch *s) {
  uint32_t cap = s->slot_cap * 2;
  st_slot *slot = calloc(cap, sizeof *slot);
  if (!slot) return -1;
  for (int32_t i = 0; i < s->nnode; i++) {
    uint64_t key = (uint64_t)s->node[i].k << 26 | (uint64_t)s->node[i].cell;
    uint32_t j = st_home(key, cap);
    while (slot[j].gen == 1) j = (j + 1) & (cap - 1);
    slot[j].key = key;
    slot[j].gen = 1;
    slot[j].node = i;
  }
  free(s->slot);
  s->slot = slot;
  s->slot_cap = cap;
  s->gen = 1;
  return 0;
}

/* A new node of (cell, k), not closed, at place local of the box (0 outside it); -1 when out
 * of memory. */
static inline int32_t st_node_add(st_scratch *s, int32_t cell, int32_t k, int32_t local) {
  if (s->nnode == s->node_cap) {
    int32_t cap = s->node_cap ? s->node_cap * 2 : 256;
    st_node *nd = realloc(s->node, (size_t)cap * sizeof *nd);
    if (!nd) return -1;
    s->node = nd;
    s->node_cap = cap;
  }
  int32_t id = s->nnode++;
  s->node[id].cell = cell;
  s->node[id].k = k;
  s->node[id].closed = 0;
  s->node[id].local = local;
  return id;
}

/* The node of (cell, k), created when missing (*created = 1). Returns its index, or -1 when
 * out of memory. */
static int32_t st_node_of(st_scratch *s, int32_t cell, int32_t k, int *created) {
  if ((uint32_t)(s->nnode + 1) * 2 > s->slot_cap && st_grow(s) < 0) return -1;
  uint64_t key = (uint64_t)k << 26 | (uint64_t)cell;
  uint32_t mask = s->slot_cap - 1, i = st_home(key, s->slot_cap);
  while (s->slot[i].gen == s->gen) {
    if (s->slot[i].key == key) {
      *created = 0;
      return s->slot[i].node;
    }
    i = (i + 1) & mask;
  }
  int32_t id = st_node_add(s, cell, k, 0);
  if (id < 0) return -1;
  s->slot[i].key = key;
  s->slot[i].gen = s->gen;
  s->slot[i].node = id;
  *created = 1;
  return id;
}

/* Starts a search in the box (a new generation). */
static void st_box_begin(st_scratch *s, int32_t w) {
  if (++s->bgen == 0) {
    memset(s->bslot, 0, (size_t)s->area * (size_t)(w + 1) * sizeof *s->bslot);
    memset(s->hslot, 0, (size_t)s->area * sizeof *s->hslot);
    s->bgen = 1;
  }
}

/* st_node_of in the box: the node of (cell, k), whose place in the box is local. */
static inline int32_t st_box_node(st_scratch *s, int32_t cell, int32_t local, int32_t k,
                                  int *created) {
  st_bslot *b = &s->bslot[(size_t)k * (size_t)s->area + (size_t)local];
  if (b->gen == s->bgen) {
    *created = 0;
    return b->node;
  }
  int32_t id = st_node_add(s, cell, k, local);
  if (id < 0) return -1;
  b->gen = s->bgen;
  b->node = id;
  *created = 1;
  return id;
}

/* --- The planner ------------------------------------------------------------------------- */

typedef struct whca {
  int32_t n, w, replan;
  double wait_cost;
  int exact;          /* the space-time search may use exact keys (st_xentry) */
  int rotate, single_pass;
  int32_t stride;     /* rotation step per round */
  int64_t round_t0;   /* time of the current round; -1 before the first */
  int64_t rounds;
  int32_t *order;     /* this round's priority order */
  int32_t *plan;      /* n * (w + 1): plan[a * (w + 1) + k] = a's cell at plan_t0[a] + k */
  int64_t *plan_t0;
  int32_t *plan_len;  /* 0: a has no plan (not yet planned this round, or released) */
  uint8_t *marked;    /* must plan this step */
  int32_t *victims;   /* agents whose plans a forced wait broke, to plan again (a queue) */
  int32_t nvictims, vhead;
  mapf__rra *rra;
  size_t budget;      /* bytes of RRA* data before the least recently used are dropped; 0: none */
  size_t rra_bytes;   /* held by all agents' RRA* */
  int64_t *last_used; /* per agent: serial of its last search */
  uint8_t *rested;    /* per agent: every move from the goal asked of its RRA* (rest_on_goal) */
  int64_t serial;
  struct lru { int64_t used; int32_t a; } *lru; /* scratch for eviction */
  rtable rt;
  st_scratch st;
  mapf__rra_scratch *rra_scratch; /* for each RRA*'s first query */
} whca;

static int32_t gcd32(int32_t a, int32_t b) {
  while (b) {
    int32_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static void whca_free(void *state);

static int whca_init(mapf__sim *sim, void **state, mapf_diag *d) {
  whca_params P;
  int rc = mapf_params_fill(sim->cfg->algo, &sim->cfg->params, &P, sizeof P, d);
  if (rc != MAPF_OK) return rc;
  whca *W = calloc(1, sizeof *W);
  if (!W) return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  int32_t n = sim->n;
  W->n = n;
  W->w = P.window;
  W->replan = P.replan ? P.replan : (W->w / 2 > 0 ? W->w / 2 : 1);
  W->rotate = P.rotate;
  W->wait_cost = P.wait;
  W->budget = (size_t)P.memory << 20;
  W->single_pass = sim->cfg->execution == MAPF_EXEC_SINGLE_PASS;
  W->round_t0 = -1;
  size_t m = n > 0 ? (size_t)n : 1;
  W->order = malloc(m * sizeof *W->order);
  W->plan = malloc(m * (size_t)(W->w + 1) * sizeof *W->plan);
  W->plan_t0 = calloc(m, sizeof *W->plan_t0);
  W->plan_len = calloc(m, sizeof *W->plan_len);
  W->marked = calloc(m, 1);
  W->victims = malloc(m * sizeof *W->victims);
  W->rra = calloc(m, sizeof *W->rra);
  W->last_used = calloc(m, sizeof *W->last_used);
  W->rested = calloc(m, 1);
  W->lru = malloc(m * sizeof *W->lru);
  W->rra_scratch = mapf__rra_scratch_new();
  int64_t side = 2 * (int64_t)W->w + 1;
  if (side * side * (W->w + 1) <= ST_BOX_MAX) {
    W->st.side = (int32_t)side;
    W->st.area = (int32_t)(side * side);
    W->st.bslot = calloc((size_t)W->st.area * (size_t)(W->w + 1), sizeof *W->st.bslot);
    W->st.hslot = calloc((size_t)W->st.area, sizeof *W->st.hslot);
    if (!W->st.bslot || !W->st.hslot) {
      whca_free(W);
      return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
    }
  }
  /* Exact keys need the box (its bound on insertion numbers and on k), an integer `wait`, and
   * f below 2^19: h is at most ncells sqrt(2) (the cost of a path of distinct cells: RRA*'s
   * search tree), g at most w times the larger of `wait` and sqrt(2). */
  W->exact = W->st.side > 0 && P.wait == floor(P.wait) &&
             (double)sim->grid->ncells * MAPF_SQRT2 + W->w * (P.wait + MAPF_SQRT2) < 524288.0;
  W->rt.seen = calloc(sim->grid->ncells > 0 ? (size_t)sim->grid->ncells : 1, sizeof *W->rt.seen);
  if (!W->rt.seen || !W->order || !W->plan || !W->plan_t0 || !W->plan_len || !W->marked ||
      !W->victims || !W->rra || !W->last_used || !W->rested || !W->lru || !W->rra_scratch) {
    whca_free(W);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  }
  for (int32_t a = 0; a < n; a++) mapf__rra_free(&W->rra[a]); /* zeroed: not started */
  /* Golden-ratio stride, coprime with n so the rotation visits every offset. */
  int32_t s = (int32_t)((double)n * 0.6180339887498949 + 0.5);
  if (s < 1) s = 1;
  while (n > 1 && gcd32(s, n) != 1) s++;
  W->stride = s;
  sim->push = 0;
  *state = W;
  return MAPF_OK;
}

static void whca_free(void *state) {
  whca *W = state;
  if (!W) return;
  if (W->rra)
    for (int32_t a = 0; a < W->n; a++) mapf__rra_free(&W->rra[a]);
  free(W->rra);
  free(W->last_used);
  free(W->rested);
  free(W->lru);
  free(W->order);
  free(W->plan);
  free(W->plan_t0);
  free(W->plan_len);
  free(W->marked);
  free(W->victims);
  free(W->rt.key);
  free(W->rt.owner);
  free(W->rt.seen);
  free(W->rt.dirty);
  free(W->st.node);
  free(W->st.slot);
  free(W->st.heap);
  free(W->st.xheap);
  free(W->st.xfront);
  free(W->st.bslot);
  free(W->st.hslot);
  mapf__rra_scratch_free(W->rra_scratch);
  free(W);
}

/* Agent a's planned cell at time t, or -1 when its plan does not say. */
static inline int32_t plan_at(const whca *W, int32_t a, int64_t t) {
  int64_t k = t - W->plan_t0[a];
  if (k < 0 || k >= W->plan_len[a]) return -1;
  return W->plan[(size_t)a * (size_t)(W->w + 1) + (size_t)k];
}

/* Removes every reservation of a's plan and the plan itself. */
static void release(whca *W, int32_t a) {
  for (int32_t k = 0; k < W->plan_len[a]; k++)
    rt_del(&W->rt, W->plan_t0[a] + k, W->plan[(size_t)a * (size_t)(W->w + 1) + (size_t)k], a);
  W->plan_len[a] = 0;
}

/* May agent a move from u to v (u != v) during time T -> T + 1, where (v, T + 1) is free? x is
 * the owner of (u, T + 1), or -1.
 * Implements the executor's rules (docs/choices.md, Simulation) on the reservations: no swap;
 * under single pass a follows the agent y that holds v at time T only if y has the lower
 * index (y moves first), and an agent x that has reserved u for T + 1, entering as a leaves,
 * must have a higher index than a (whichever of the two plans last checks the pair); under
 * chains a follows unless the chain of followers closes a cycle, which the last member of the
 * cycle to plan finds by walking the plans forward. A chain through an agent without a plan for
 * T + 1 is allowed: that agent plans later and must then keep clear of a. */
MAPF__INLINE int may_move(const whca *W, int32_t a, int32_t u, int32_t v, int64_t T, int32_t x) {
  if (W->single_pass && x >= 0 && x != a && x < a) return 0;
  int32_t y = rt_get(&W->rt, T, v);
  if (y < 0 || y == a) return 1;
  if (x == y) return 0; /* a swap */
  if (W->single_pass) return y < a;
  for (int32_t steps = 0; steps <= W->n; steps++) {
    int32_t p = plan_at(W, y, T + 1);
    if (p < 0) return 1;
    if (p == u) return 0; /* the chain comes back to a: a rotation, which never moves */
    int32_t z = rt_get(&W->rt, T, p);
    if (z < 0 || z == y) return 1;
    y = z;
  }
  return 0;
}

/* The end of a's search, which made `expansions` and found its RRA* at bytes0 bytes: a new RRA*
 * that ran in the scratch (rra.h) goes into its blocks before its bytes are counted, and the
 * work is counted. Returns -1 when out of memory. */
static int search_end(mapf__sim *sim, whca *W, int32_t a, size_t bytes0, int64_t expansions) {
  int rc = mapf__rra_detach(W->rra_scratch);
  W->rra_bytes += mapf__rra_bytes(&W->rra[a]) - bytes0; /* only grows between evictions */
  sim->expansions += expansions;
  sim->agent[a].expansions += expansions;
  sim->agent[a].searches++;
  return rc;
}

/* Is a's goal free for a at times t + 1 .. t + w (a's wait there never refused)? */
static int goal_free(const whca *W, int32_t a, int32_t goal, int64_t t) {
  for (int64_t T = t + 1; T <= t + W->w; T++) {
    int32_t o = rt_get(&W->rt, T, goal);
    if (o >= 0 && o != a) return 0;
  }
  return 1;
}

/* st_search for an agent on its goal that goal_free allows to stay there, which is about half of
 * the searches of a long run, without searching: the outcome is known. A wait on the goal costs
 * nothing, every other child costs at least 1, so the search expands (goal, 0), (goal, 1), ...,
 * (goal, w), w + 1 expansions, and stays. What it must still do is ask RRA* the distance of each
 * child it generates, (v, k + 1) for every neighbour v the reservations let a enter from the
 * goal at a step k < w: a question can resume RRA* (its expansions count) though the answer
 * changes nothing here. RRA*'s state after a set of questions does not depend on their order
 * (each resumes the search's one expansion order until the cell asked is closed), and asking
 * about a closed cell changes nothing, so each such neighbour is asked once, and none once every
 * move from the goal has been asked since RRA* started (W->rested: a map change that adds a
 * move from the goal drops the RRA*, whca_map_changed). Same results, expansions and memory as
 * the search (the recorded runs of tests/test_whca.c pin them). */
static int rest_on_goal(mapf__sim *sim, whca *W, int32_t a, int32_t *path, size_t bytes0) {
  const mapf_grid *g = sim->grid;
  mapf__rra *r = &W->rra[a];
  const int32_t goal = sim->goal[a];
  const int64_t t = sim->time;
  int64_t rexp = 0;
  int fail = 0;
  if (!W->rested[a]) {
    const unsigned m = g->moves[goal];
    unsigned asked = 0;
    for (int32_t k = 0; k < W->w && asked != m; k++) {
      const int64_t T = t + k;
      const int32_t x = rt_get(&W->rt, T + 1, goal);
      for (int d = 0; d < 8; d++) {
        if (!(m >> d & 1) || (asked >> d & 1)) continue;
        int32_t v = goal + g->offset[d], o = rt_get(&W->rt, T + 1, v);
        if ((o >= 0 && o != a) || !may_move(W, a, goal, v, T, x)) continue;
        asked |= 1u << d;
      }
    }
    mapf__cost2 c;
    fail = mapf__rra_cost(r, g, goal, &rexp, W->rra_scratch, &c) < 0; /* the root's */
    for (int d = 0; d < 8 && !fail; d++)
      if (asked >> d & 1)
        fail = mapf__rra_cost(r, g, goal + g->offset[d], &rexp, W->rra_scratch, &c) < 0;
    W->rested[a] = !fail && asked == m;
  }
  if (search_end(sim, W, a, bytes0, W->w + 1 + rexp) < 0 || fail) return -1;
  for (int32_t k = 0; k <= W->w; k++) path[k] = goal;
  return 1;
}

/* Space-time A* for agent a from (pos, t) over w steps (Silver's WHCA* search; see the head
 * comment for costs and ties). On success writes w + 1 cells to path and returns 1; returns 0
 * when no path of w steps avoids the reservations, -1 when out of memory. Work is bounded by
 * (w + 1) times the cells within w moves. */
static int st_search(mapf__sim *sim, whca *W, int32_t a, int32_t *path) {
  const mapf_grid *g = sim->grid;
  st_scratch *s = &W->st;
  mapf__rra *r = &W->rra[a];
  int32_t start = sim->pos[a], goal = sim->goal[a];
  int64_t t = sim->time;
  int64_t exp = 0, rexp = 0;
  int found = 0, fail = 0;
  int32_t last = -1;
  /* Silver aims RRA* at the agent's start: the search starts at the agent's first search, from
   * its start cell; after an eviction it restarts aimed at where the agent is now. */
  if (r->goal < 0) {
    mapf__rra_start(r, g, goal, start);
    W->rested[a] = 0;
  }
  size_t bytes0 = mapf__rra_bytes(r);
  W->last_used[a] = ++W->serial;
  if (start == goal && goal_free(W, a, goal, t))
    return rest_on_goal(sim, W, a, path, bytes0);
  if (st_begin(s) < 0) return -1;
  const int box = s->side > 0;
  int32_t boff[8] = {0};
  if (box) {
    st_box_begin(s, W->w);
    for (int d = 0; d < 8; d++) boff[d] = mapf_dir_dx[d] + mapf_dir_dy[d] * s->side;
  }
  const int32_t local0 = box ? W->w * s->side + W->w : 0;
  mapf__cost2 h0c = {0, 0};
  int rc0 = mapf__rra_cost(r, g, start, &rexp, W->rra_scratch, &h0c);
  double h0 = rc0 < 0 ? -1 : rc0 == 0 ? INFINITY : mapf__cost_of(h0c);
  int created;
  int32_t root =
      box ? st_box_node(s, start, local0, 0, &created) : st_node_of(s, start, 0, &created);
  if (h0 < 0 || root < 0) return -1;
  /* Exact keys (st_xentry) where the run allows them and the agent can reach its goal. */
  const int exact = W->exact && rc0 > 0;
  if (box) s->hslot[local0] = (st_hslot){h0, s->bgen, h0c};
  s->node[root].g = 0;
  s->node[root].parent = -1;
  s->node[root].gc = (mapf__cost2){0, 0};
  s->node[root].gkey = 0;
  if ((exact ? st_xpush(s, root, 0, mapf__cost_key(h0c), 0) : st_push(s, root, 0, h0, 0)) < 0)
    return -1;
  while (exact ? s->xheap_len + s->xfront_len > 0 : s->heap_len > 0) {
    int32_t ek, eid;
    double eg = 0;
    if (exact) {
      st_xentry e = st_xpop(s);
      eid = e.node;
      st_node *nd = &s->node[eid];
      if (nd->closed || st_xentry_gkey(&e) > nd->gkey) continue; /* stale */
      ek = nd->k;
    } else {
      st_entry e = st_heap_pop(s->heap, &s->heap_len);
      eid = e.node;
      st_node *nd = &s->node[eid];
      if (nd->closed || e.g > nd->g + ST_EPS) continue; /* stale */
      ek = e.k;
      eg = e.g;
    }
    st_node *nd = &s->node[eid];
    nd->closed = 1;
    exp++;
    if (ek == W->w) { /* Silver's terminal edge: g + h is the whole cost */
      found = 1;
      last = eid;
      break;
    }
    int32_t u = nd->cell, ul = nd->local;
    /* With exact keys, the three costs of a child (a wait, a cardinal and a diagonal move) and
     * their keys, once per expansion. */
    mapf__cost2 ngw = nd->gc, ngcard = {nd->gc.a + 1, nd->gc.b}, ngdiag = {nd->gc.a, nd->gc.b + 1};
    uint64_t kw = 0, kcard = 0, kdiag = 0;
    if (exact) {
      if (u != goal) ngw.a += (int32_t)W->wait_cost;
      kw = mapf__cost_key(ngw);
      kcard = mapf__cost_key(ngcard);
      kdiag = mapf__cost_key(ngdiag);
    }
    int64_t T = t + ek;
    uint8_t m = sim->grid->moves[u];
    /* Who holds u next: the wait's check and may_move's. */
    const int32_t x = rt_get(&W->rt, T + 1, u);
    for (int d = -1; d < 8; d++) {
      int32_t v, o, vl;
      double cost;
      mapf__cost2 ngc;
      uint64_t ngkey;
      if (d < 0) {
        v = u;
        vl = ul;
        cost = u == goal ? 0 : W->wait_cost;
        ngc = ngw;
        ngkey = kw;
        o = x;
      } else {
        if (!(m >> d & 1)) continue;
        v = u + g->offset[d];
        vl = ul + boff[d];
        cost = mapf_dir_cost[d];
        ngc = d >= MAPF_DIR_NE ? ngdiag : ngcard; /* the diagonals come last in mapf_dir */
        ngkey = d >= MAPF_DIR_NE ? kdiag : kcard;
        o = rt_get(&W->rt, T + 1, v);
      }
      if (o >= 0 && o != a) continue;
      if (v != u && !may_move(W, a, u, v, T, x)) continue;
      int32_t id = box ? st_box_node(s, v, vl, ek + 1, &created)
                       : st_node_of(s, v, ek + 1, &created);
      if (id < 0) {
        fail = 1;
        break;
      }
      st_node *vn = &s->node[id];
      double ng = 0;
      if (exact) {
        if (!created && (vn->closed || vn->gkey <= ngkey)) continue;
      } else {
        ng = eg + cost;
        if (!created && (vn->closed || vn->g <= ng + ST_EPS)) continue;
      }
      double h;
      mapf__cost2 hc = {0, 0};
      if (box && s->hslot[vl].gen == s->bgen) {
        h = s->hslot[vl].h;
        hc = s->hslot[vl].hc;
      } else {
        int rc = mapf__rra_cost(r, g, v, &rexp, W->rra_scratch, &hc);
        h = rc < 0 ? -1 : rc == 0 ? INFINITY : mapf__cost_of(hc);
        if (box && h >= 0) s->hslot[vl] = (st_hslot){h, s->bgen, hc};
      }
      if (h < 0) {
        fail = 1;
        break;
      }
      if (isinf(h)) { /* cannot happen on a legal move; never expand it */
        vn->g = INFINITY;
        vn->closed = 1;
        continue;
      }
      vn->parent = eid;
      int prc;
      if (exact) {
        vn->gc = ngc;
        vn->gkey = ngkey;
        mapf__cost2 f = {ngc.a + hc.a, ngc.b + hc.b};
        prc = st_xpush(s, id, ngkey, mapf__cost_key(f), ek + 1);
      } else {
        vn->g = ng;
        prc = st_push(s, id, ng, ng + h, ek + 1);
      }
      if (prc < 0) {
        fail = 1;
        break;
      }
    }
    if (fail) break;
  }
  if (search_end(sim, W, a, bytes0, exp + rexp) < 0 || fail) return -1;
  if (!found) return 0;
  for (int32_t id = last; id >= 0; id = s->node[id].parent) path[s->node[id].k] = s->node[id].cell;
  return 1;
}

static int lru_cmp(const void *x, const void *y) {
  const struct lru *p = x, *q = y;
  return p->used < q->used ? -1 : p->used > q->used;
}

/* The memory bound on RRA* (`memory`): when the agents' RRA* data pass the budget, the searches
 * of the least recently searching agents (never a, which just searched) are dropped until three
 * quarters of the budget are left; a dropped agent's RRA* restarts at its next search. The
 * distances are the same either way, so this changes expansions and time, never moves. */
static void enforce_budget(whca *W, int32_t a) {
  if (W->budget == 0 || W->rra_bytes <= W->budget) return;
  int32_t m = 0;
  for (int32_t b = 0; b < W->n; b++)
    if (b != a && W->rra[b].goal >= 0) W->lru[m++] = (struct lru){W->last_used[b], b};
  qsort(W->lru, (size_t)m, sizeof *W->lru, lru_cmp);
  for (int32_t i = 0; i < m && W->rra_bytes > W->budget / 4 * 3; i++) {
    mapf__rra *r = &W->rra[W->lru[i].a];
    W->rra_bytes -= mapf__rra_bytes(r);
    mapf__rra_free(r);
  }
}

/* Plans agent a from the current time: a window of w steps, reserved; or, with no path, a wait
 * of one step on its cell. A forced wait on a cell another agent reserved for the next step
 * sends that agent back to planning (the victims queue). Returns 0 or -1 (out of memory). */
static int plan_agent(mapf__sim *sim, whca *W, int32_t a) {
  int64_t t = sim->time;
  int32_t *path = &W->plan[(size_t)a * (size_t)(W->w + 1)];
  int rc = st_search(sim, W, a, path);
  if (rc < 0) return -1;
  enforce_budget(W, a);
  W->plan_t0[a] = t;
  if (rc == 1) {
    W->plan_len[a] = W->w + 1;
    for (int32_t k = 0; k <= W->w; k++)
      if (rt_set(&W->rt, t + k, path[k], a) < 0) return -1;
    return 0;
  }
  int32_t cur = sim->pos[a];
  path[0] = path[1] = cur;
  W->plan_len[a] = 2;
  int32_t v = rt_get(&W->rt, t + 1, cur);
  if (v >= 0 && v != a && W->nvictims < W->n) {
    release(W, v);
    if (rt_set(&W->rt, t, sim->pos[v], v) < 0) return -1;
    W->victims[W->nvictims++] = v;
  }
  if (rt_set(&W->rt, t, cur, a) < 0 || rt_set(&W->rt, t + 1, cur, a) < 0) return -1;
  return 0;
}

/* Plans a and then every agent its plan sent back to planning. Returns 0, 1 when the
 * wall-clock limit passed (nothing more is planned), or -1 when out of memory. */
static int plan_with_victims(mapf__sim *sim, whca *W, int32_t a) {
  if (mapf__sim_expired(sim)) return 1;
  if (plan_agent(sim, W, a) < 0) return -1;
  while (W->vhead < W->nvictims) {
    if (mapf__sim_expired(sim)) return 1;
    if (plan_agent(sim, W, W->victims[W->vhead++]) < 0) return -1;
  }
  W->nvictims = W->vhead = 0;
  return 0;
}

/* One step's search phase: a new round every `replan` steps, otherwise plans only for agents
 * off their plans or at the end of them; then every agent's next cell. */
static int whca_plan(mapf__sim *sim, void *state) {
  whca *W = state;
  int64_t t = sim->time;
  int32_t n = W->n;
  W->nvictims = W->vhead = 0;
  if (W->round_t0 < 0 || t - W->round_t0 >= W->replan) {
    W->round_t0 = t;
    int32_t off = W->rotate && n > 0 ? (int32_t)((W->rounds % n) * W->stride % n) : 0;
    W->rounds++;
    rt_clear(&W->rt);
    for (int32_t a = 0; a < n; a++) {
      W->order[a] = (off + a) % n;
      W->plan_len[a] = 0;
      W->marked[a] = 1;
      if (rt_set(&W->rt, t, sim->pos[a], a) < 0) return MAPF_ENOMEM;
    }
  } else {
    for (int32_t a = 0; a < n; a++) {
      W->marked[a] = plan_at(W, a, t) != sim->pos[a] || plan_at(W, a, t + 1) < 0;
      if (W->marked[a]) release(W, a);
    }
    for (int32_t a = 0; a < n; a++)
      if (W->marked[a] && rt_set(&W->rt, t, sim->pos[a], a) < 0) return MAPF_ENOMEM;
  }
  for (int32_t r = 0; r < n; r++) {
    int32_t a = W->order[r];
    if (!W->marked[a] || W->plan_len[a] > 0) continue; /* planned already as a victim */
    int rc = plan_with_victims(sim, W, a);
    if (rc < 0) return MAPF_ENOMEM;
    if (rc > 0) return MAPF_OK; /* expired: the simulator ends the run before executing */
  }
  for (int32_t a = 0; a < n; a++) {
    int32_t next = plan_at(W, a, t + 1);
    sim->want[a] = next < 0 || next == sim->pos[a] ? MAPF__WAIT : next;
  }
  return MAPF_OK;
}

/* Patrol: agent a reached its target and has a new one. Its RRA* measured distances to the old
 * target, so it is dropped and restarts at the next search, from the new target toward the
 * agent's cell (as after an eviction; keeping one per target would double RRA* memory, which
 * `memory` bounds); its window plan led to the old target, so it is released and the agent
 * plans alone at the next step against everyone else's reservations, as an agent off its plan
 * does between rounds. */
static void whca_retarget(mapf__sim *sim, void *state, int32_t a) {
  (void)sim;
  whca *W = state;
  release(W, a);
  W->rra_bytes -= mapf__rra_bytes(&W->rra[a]);
  mapf__rra_free(&W->rra[a]);
}

/* The map changed (sim_int.h; docs/events.md). An agent whose window plan has a move the map
 * no longer has is released and plans alone at the next step, as an agent off its plan does.
 * RRA*'s distances are exact on the map they were searched on: a closing only lengthens true
 * distances, so they stay admissible and are kept (a search resumed on the new map mixes the
 * two maps' moves, still never above the new distance); an opening can shorten them, so an
 * RRA* that reached an opened cell's neighbourhood is dropped and starts again at the agent's
 * next search, as after an eviction (Silver 2005 keeps RRA* for a fixed map). */
static int whca_map_changed(mapf__sim *sim, void *state, const int32_t *cells, int32_t n) {
  whca *W = state;
  const mapf_grid *g = sim->grid;
  for (int32_t a = 0; a < W->n; a++) {
    int64_t from = sim->time - W->plan_t0[a];
    if (W->plan_len[a] == 0 || from < 0 || from >= W->plan_len[a]) continue;
    const int32_t *p = W->plan + (size_t)a * (size_t)(W->w + 1);
    if (!mapf__path_legal(g, p, (int32_t)from, W->plan_len[a])) release(W, a);
  }
  /* An opening adds moves only between cells within one move of an opened cell. When a search
   * has generated none of them, every path through the new moves still leaves its generated
   * region through an open node, as before: its closed cells keep exact distances and its open
   * list stays a valid frontier, so it is kept. Otherwise it is dropped. */
  for (int32_t i = 0; i < n; i++) {
    if (!g->passable[cells[i]]) continue;
    int32_t cx = mapf_grid_x(g, cells[i]), cy = mapf_grid_y(g, cells[i]);
    for (int32_t a = 0; a < W->n; a++) {
      mapf__rra *r = &W->rra[a];
      int near = 0;
      for (int32_t y = cy - 1; y <= cy + 1 && !near; y++)
        for (int32_t x = cx - 1; x <= cx + 1 && !near; x++)
          near = mapf_grid_in(g, x, y) && mapf__rra_generated(r, mapf_grid_id(g, x, y));
      if (!near) continue;
      W->rra_bytes -= mapf__rra_bytes(r);
      mapf__rra_free(r);
    }
  }
  return MAPF_OK;
}

static const mapf__planner_vt whca_vt = {
    .init = whca_init,
    .plan = whca_plan,
    .free = whca_free,
    .retarget = whca_retarget,
    .map_changed = whca_map_changed,
};

MAPF_ALGORITHM(whca, 20) = {
    .name = "whca",
    .label = "WHCA*",
    .doc = "Windowed Hierarchical Cooperative A*: windowed space-time A* with a shared "
           "reservation table and RRA* distances (Silver 2005)",
    .params = whca_param_table,
    .nparams = MAPF_NPARAMS(whca_param_table),
    .size = sizeof(whca_params),
    .rules = whca_rules,
    .vt = &whca_vt,
    /* Weights measured by `mapfarm calibrate` (docs/choices.md, "The work budget"). */
    .work = {.expansion_ns = 315, .agent_step_ns = 100},
};
