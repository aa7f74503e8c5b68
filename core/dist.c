/* dist.c: distance-to-goal tables and their per-thread cache (dist.h). */
#include "dist.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

uint64_t mapf__dist_map_key(const mapf_grid *g) {
  return mapf_hash64(g->moves, (size_t)g->ncells, g->hash ^ (uint64_t)(uint32_t)g->width);
}

int mapf__dist_begin(mapf__dist_cache *c, const mapf_grid *g) {
  uint64_t key = mapf__dist_map_key(g);
  c->runs++;
  c->has_prev = 0;
  if (c->local && c->map == key && c->ncells == g->ncells) return 0;
  if (g->ncells > c->local_cap) {
    int32_t *l = realloc(c->local, (size_t)g->ncells * sizeof *l);
    if (!l) return -1;
    c->local = l;
    c->local_cap = g->ncells;
  }
  int32_t *next = calloc(g->ncomponents > 0 ? (size_t)g->ncomponents : 1, sizeof *next);
  if (!next) return -1;
  for (int32_t id = 0; id < g->ncells; id++) {
    int32_t k = g->component[id];
    c->local[id] = k >= 0 ? next[k]++ : -1;
  }
  free(next);
  c->map = key;
  c->ncells = g->ncells;
  return 0;
}

static uint32_t slot_hash(uint64_t map, int32_t goal) {
  return (uint32_t)(mapf_mix64(map ^ (uint64_t)(uint32_t)goal * 0x9e3779b97f4a7c15ULL) >> 32);
}

/* Rebuilds the slot index for c->n entries with at least twice as many slots. */
static int reindex(mapf__dist_cache *c) {
  int32_t want = 16;
  while (want < 2 * c->n + 2) want *= 2;
  if (want != c->nslot) {
    int32_t *s = realloc(c->slot, (size_t)want * sizeof *s);
    if (!s) return -1;
    c->slot = s;
    c->nslot = want;
  }
  for (int32_t i = 0; i < c->nslot; i++) c->slot[i] = -1;
  uint32_t mask = (uint32_t)c->nslot - 1;
  for (int32_t i = 0; i < c->n; i++) {
    uint32_t h = slot_hash(c->e[i].map, c->e[i].goal) & mask;
    while (c->slot[h] >= 0) h = (h + 1) & mask;
    c->slot[h] = i;
  }
  return 0;
}

/* Breadth-first search from goal over its component. The moves are symmetric (a move and its
 * reverse are legal together: grid.h), so distances from the goal are distances to it. */
static void bfs(mapf__dist_cache *c, const mapf_grid *g, int32_t goal, uint32_t *d, int32_t size) {
  const int32_t *local = c->local;
  int32_t *q = c->queue;
  for (int32_t i = 0; i < size; i++) d[i] = UINT32_MAX;
  int32_t head = 0, tail = 0;
  q[tail++] = goal;
  d[local[goal]] = 0;
  while (head < tail) {
    int32_t u = q[head++];
    uint32_t du = d[local[u]] + 1;
    uint8_t m = g->moves[u];
    for (int dir = 0; dir < 8; dir++) {
      if (!(m >> dir & 1)) continue;
      int32_t v = u + g->offset[dir];
      uint32_t *dv = &d[local[v]];
      if (*dv != UINT32_MAX) continue;
      *dv = du;
      q[tail++] = v;
    }
  }
}

/* A repair passes three times over each cell whose distance grows (lost, offered a distance,
 * searched from) where a search passes once over every cell: past about an eighth of the table
 * lost, a new search costs less. On bg512/AR0414SR's doors (docs/events.md) a limit of 1/8 or
 * 1/16 gave the same times, 1/4 a run 15 % longer. */
#define DIST_REPAIR_SHARE 8

static int cmp_i32(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

int mapf__dist_changed(mapf__dist_cache *c, const mapf_grid *g, const int32_t *cells, int32_t n) {
  if (!c->local || c->ncells != g->ncells) return mapf__dist_begin(c, g);
  c->runs++; /* as mapf__dist_begin: what the tables made from here on were last used for */
  uint64_t key = mapf__dist_map_key(g);
  if (key == c->map) return 0;
  /* A cell's moves read its eight neighbours (mapf_grid_set_cells): the moves that changed
   * are those of the cells within one move of a changed cell. */
  if ((int64_t)n * 9 > c->seed_cap) {
    int32_t cap = n * 9;
    int32_t *sd = realloc(c->seed, (size_t)cap * sizeof *sd);
    if (!sd) return -1;
    c->seed = sd;
    c->seed_cap = cap;
  }
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t cx = mapf_grid_x(g, cells[i]), cy = mapf_grid_y(g, cells[i]);
    for (int32_t y = cy - 1; y <= cy + 1; y++)
      for (int32_t x = cx - 1; x <= cx + 1; x++)
        if (mapf_grid_in(g, x, y) && c->local[mapf_grid_id(g, x, y)] >= 0)
          c->seed[m++] = mapf_grid_id(g, x, y);
  }
  qsort(c->seed, (size_t)m, sizeof *c->seed, cmp_i32);
  int32_t k = 0;
  for (int32_t i = 0; i < m; i++)
    if (k == 0 || c->seed[i] != c->seed[k - 1]) c->seed[k++] = c->seed[i];
  c->nseed = k;
  c->prev = c->map;
  c->has_prev = 1;
  c->map = key;
  return 0;
}

/* The index in c->e of the table of (map, goal), or -1. */
static int32_t find(const mapf__dist_cache *c, uint64_t map, int32_t goal) {
  if (c->nslot == 0) return -1;
  uint32_t mask = (uint32_t)c->nslot - 1;
  for (uint32_t h = slot_hash(map, goal) & mask; c->slot[h] >= 0; h = (h + 1) & mask) {
    const mapf__dist_entry *e = &c->e[c->slot[h]];
    if (e->map == map && e->goal == goal) return c->slot[h];
  }
  return -1;
}

/* Makes room for m items in c->work. Returns 0, or -1 when out of memory. */
static int work_reserve(mapf__dist_cache *c, size_t m) {
  if (m <= c->work_cap) return 0;
  size_t cap = c->work_cap ? c->work_cap : 1024;
  while (cap < m) cap *= 2;
  uint64_t *w = realloc(c->work, cap * sizeof *w);
  if (!w) return -1;
  c->work = w;
  c->work_cap = cap;
  return 0;
}

/* Appends item to c->work[*n]. Returns 0, or -1 when out of memory. */
static int work_push(mapf__dist_cache *c, size_t *n, uint32_t dist, int32_t cell) {
  if (*n == c->work_cap && work_reserve(c, *n + 1) < 0) return -1;
  c->work[(*n)++] = (uint64_t)dist << 32 | (uint32_t)cell;
  return 0;
}

/* Sorts c->work[0 .. n) by distance, a counting sort over the distances' range (at most a
 * component's size): qsort was 13 % of a run's time with doors on bg512/AR0414SR. Returns 0,
 * or -1 when out of memory. */
static int sort_work(mapf__dist_cache *c, size_t n) {
  if (n < 2) return 0;
  uint32_t lo = UINT32_MAX, hi = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t k = (uint32_t)(c->work[i] >> 32);
    lo = k < lo ? k : lo;
    hi = k > hi ? k : hi;
  }
  size_t range = (size_t)(hi - lo) + 2;
  if (range > c->count_cap) {
    size_t *cnt = realloc(c->count, range * sizeof *cnt);
    if (!cnt) return -1;
    c->count = cnt;
    c->count_cap = range;
  }
  if (work_reserve(c, 2 * n) < 0) return -1; /* the sorted copy goes to work[n .. 2n) */
  size_t *at = c->count;
  memset(at, 0, range * sizeof *at);
  for (size_t i = 0; i < n; i++) at[(uint32_t)(c->work[i] >> 32) - lo + 1]++;
  for (size_t r = 1; r < range; r++) at[r] += at[r - 1];
  for (size_t i = 0; i < n; i++) c->work[n + at[(uint32_t)(c->work[i] >> 32) - lo]++] = c->work[i];
  memcpy(c->work, c->work + n, n * sizeof *c->work);
  return 0;
}

/* The next item of c->work in increasing distance: the sorted items [*i, ni) merged with the
 * ones pushed since, [*f, n), which come in increasing distance (each is one more than the
 * item that pushed it): a bucket queue for unit moves. */
static uint64_t work_next(const mapf__dist_cache *c, size_t *i, size_t ni, size_t *f,
                          size_t n) {
  if (*i < ni && (*f == n || (c->work[*i] >> 32) <= (c->work[*f] >> 32))) return c->work[(*i)++];
  return c->work[(*f)++];
}

/* Makes d, a copy of the table of goal in the state before the last change, that of goal now:
 * distances in a graph whose edges changed only at c->seed (dynamic breadth-first search).
 * First the cells whose distance may grow: in increasing old distance, a cell keeps it when a
 * neighbour one move closer kept its own; the others are set unreachable, and their neighbours
 * one move farther checked in turn. Then every cell that lost its distance or whose moves
 * changed takes the best offer of its neighbours, and a search in increasing distance from
 * them lowers what it can: every distance found is that of a path and every cell that could
 * do better hears of it, so the table ends exactly as a new search leaves it. Returns 0, 1
 * when too many cells lose their distance (DIST_REPAIR_SHARE: d is then to be searched), or
 * -1 when out of memory. */
static int repair(mapf__dist_cache *c, const mapf_grid *g, int32_t goal, uint32_t *d) {
  const int32_t *local = c->local;
  int32_t comp = g->component[goal], *lost = c->queue, nlost = 0, size = g->component_size[comp];
  int64_t share = c->repair_share > 0 ? c->repair_share : DIST_REPAIR_SHARE;
  size_t n = 0;
  for (int32_t i = 0; i < c->nseed; i++) {
    int32_t s = c->seed[i];
    if (s != goal && g->component[s] == comp && d[local[s]] != UINT32_MAX &&
        work_push(c, &n, d[local[s]], s) < 0)
      return -1;
  }
  if (sort_work(c, n) < 0) return -1;
  size_t i = 0, ni = n, f = n;
  while (i < ni || f < n) {
    uint64_t it = work_next(c, &i, ni, &f, n);
    uint32_t k = (uint32_t)(it >> 32);
    int32_t v = (int32_t)(uint32_t)it;
    if (d[local[v]] == UINT32_MAX) continue; /* lost already */
    /* One pass over the neighbours: one closer holds v; those one farther may have leant on v
     * (a neighbour whose move to v is gone changed its moves: a seed, checked already). */
    uint8_t m = g->moves[v];
    int32_t next[8], nnext = 0;
    int held = 0;
    for (int dir = 0; dir < 8; dir++) {
      if (!(m >> dir & 1)) continue;
      int32_t u = v + g->offset[dir];
      uint32_t du = d[local[u]];
      if (du == k - 1) {
        held = 1;
        break;
      }
      if (du == k + 1) next[nnext++] = u;
    }
    if (held) continue;
    d[local[v]] = UINT32_MAX;
    lost[nlost++] = v;
    if ((int64_t)nlost * share > size) return 1;
    for (int j = 0; j < nnext; j++)
      if (work_push(c, &n, k + 1, next[j]) < 0) return -1;
  }
  n = 0;
  for (int32_t j = 0; j < nlost; j++) {
    int32_t v = lost[j];
    uint32_t best = UINT32_MAX;
    for (int dir = 0; dir < 8; dir++) {
      if (!(g->moves[v] >> dir & 1)) continue;
      uint32_t du = d[local[v + g->offset[dir]]];
      if (du != UINT32_MAX && du + 1 < best) best = du + 1;
    }
    if (best == UINT32_MAX) continue;
    d[local[v]] = best;
    if (work_push(c, &n, best, v) < 0) return -1;
  }
  for (int32_t j = 0; j < c->nseed; j++) {
    int32_t s = c->seed[j];
    if (g->component[s] == comp && d[local[s]] != UINT32_MAX &&
        work_push(c, &n, d[local[s]], s) < 0)
      return -1;
  }
  if (sort_work(c, n) < 0) return -1;
  i = 0;
  ni = f = n;
  while (i < ni || f < n) {
    uint64_t it = work_next(c, &i, ni, &f, n);
    uint32_t k = (uint32_t)(it >> 32);
    int32_t u = (int32_t)(uint32_t)it;
    if (d[local[u]] != k) continue; /* lowered since */
    uint8_t m = g->moves[u];
    for (int dir = 0; dir < 8; dir++) {
      if (!(m >> dir & 1)) continue;
      int32_t v = u + g->offset[dir];
      if (d[local[v]] <= k + 1) continue;
      d[local[v]] = k + 1;
      if (work_push(c, &n, k + 1, v) < 0) return -1;
    }
  }
  return 0;
}

const uint32_t *mapf__dist_get(mapf__dist_cache *c, const mapf_grid *g, int32_t goal) {
  int32_t hit = find(c, c->map, goal);
  if (hit >= 0) {
    c->e[hit].used = c->runs;
    return c->e[hit].d;
  }
  int32_t size = g->component_size[g->component[goal]];
  if (size > c->queue_cap) {
    int32_t *q = realloc(c->queue, (size_t)size * sizeof *q);
    if (!q) return NULL;
    c->queue = q;
    c->queue_cap = size;
  }
  if (c->n == c->cap) {
    int32_t cap = c->cap ? 2 * c->cap : 64;
    mapf__dist_entry *e = realloc(c->e, (size_t)cap * sizeof *e);
    if (!e) return NULL;
    c->e = e;
    c->cap = cap;
  }
  uint32_t *d = malloc((size_t)size * sizeof *d);
  if (!d) return NULL;
  int32_t before = c->has_prev ? find(c, c->prev, goal) : -1;
  if (before >= 0 && c->e[before].size == size) { /* a copy: a table is never changed */
    memcpy(d, c->e[before].d, (size_t)size * sizeof *d);
    int rc = repair(c, g, goal, d);
    if (rc < 0) {
      free(d);
      return NULL;
    }
    if (rc > 0)
      bfs(c, g, goal, d, size);
    else
      c->repaired++;
  } else {
    bfs(c, g, goal, d, size);
  }
  c->e[c->n++] = (mapf__dist_entry){c->map, goal, size, d, c->runs};
  c->bytes += (size_t)size * sizeof *d;
  if (2 * c->n + 2 > c->nslot) {
    if (reindex(c) < 0) {
      c->n--;
      c->bytes -= (size_t)size * sizeof *d;
      free(d);
      return NULL;
    }
  } else {
    uint32_t mask = (uint32_t)c->nslot - 1, h = slot_hash(c->map, goal) & mask;
    while (c->slot[h] >= 0) h = (h + 1) & mask;
    c->slot[h] = c->n - 1;
  }
  return d;
}

static int by_use_desc(const void *x, const void *y) {
  const mapf__dist_entry *a = x, *b = y;
  if (a->used != b->used) return a->used < b->used ? 1 : -1;
  return a->goal < b->goal ? -1 : a->goal > b->goal;
}

void mapf__dist_trim(mapf__dist_cache *c, size_t budget) {
  if (c->bytes <= budget) return;
  qsort(c->e, (size_t)c->n, sizeof *c->e, by_use_desc);
  size_t kept = 0;
  int32_t k = 0;
  for (int32_t i = 0; i < c->n; i++) {
    size_t b = (size_t)c->e[i].size * sizeof *c->e[i].d;
    if (kept + b <= budget) {
      kept += b;
      c->e[k++] = c->e[i];
    } else {
      free(c->e[i].d);
    }
  }
  c->n = k;
  c->bytes = kept;
  if (reindex(c) < 0) { /* no memory for the index: start over empty */
    for (int32_t i = 0; i < c->n; i++) free(c->e[i].d);
    c->n = 0;
    c->bytes = 0;
    free(c->slot);
    c->slot = NULL;
    c->nslot = 0;
  }
}

static int by_address(const void *x, const void *y) {
  uintptr_t a = (uintptr_t)*(const uint32_t *const *)x, b = (uintptr_t)*(const uint32_t *const *)y;
  return (a > b) - (a < b);
}

int mapf__dist_release(mapf__dist_cache *c, const uint32_t *const *held, int32_t n,
                       size_t budget) {
  if (c->bytes <= budget) return 0;
  const uint32_t **h = malloc((size_t)(n > 0 ? n : 1) * sizeof *h);
  if (!h) return -1;
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++)
    if (held[i]) h[m++] = held[i];
  qsort(h, (size_t)m, sizeof *h, by_address);
  int32_t k = 0;
  size_t kept = 0;
  for (int32_t i = 0; i < c->n; i++) {
    const uint32_t *d = c->e[i].d;
    if ((c->has_prev && c->e[i].map == c->prev) ||
        bsearch(&d, h, (size_t)m, sizeof *h, by_address)) {
      kept += (size_t)c->e[i].size * sizeof *d;
      c->e[k++] = c->e[i];
    } else {
      free(c->e[i].d);
    }
  }
  free(h);
  c->n = k;
  c->bytes = kept;
  if (reindex(c) < 0) { /* no index (a lookup then misses); the next table rebuilds it */
    free(c->slot);
    c->slot = NULL;
    c->nslot = 0;
  }
  return 0;
}

void mapf__dist_free(mapf__dist_cache *c) {
  for (int32_t i = 0; i < c->n; i++) free(c->e[i].d);
  free(c->e);
  free(c->slot);
  free(c->local);
  free(c->queue);
  free(c->seed);
  free(c->work);
  free(c->count);
  memset(c, 0, sizeof *c);
}
