/* flow.c: FAR's flow annotation (Wang & Botea 2008 slides 8-10; Sigurdson et al. 2018 Sec. III-B;
 * docs/choices.md, Flow annotation).
 *
 * The rules, in order. Each is local: a cell's mask depends only on the grid near it, which is
 * what lets mapf_flow_lazy compute one cell at a time and agree with mapf_flow_new.
 *
 * 1. Roads. Start with no edges. Every cardinal grid edge gets one direction: in row y the
 *    horizontal edges point west when y is even and east when y is odd; in column x the
 *    vertical edges point north when x is even and south when x is odd (row 0 and column 0 are
 *    the first grid line and column, both even). No diagonal edges yet (slide 8).
 * 2. Corridors. A cell is a corridor cell when it has at most two legal moves (degree <= 2 in
 *    the grid graph: a one-cell-wide corridor, a corner of one, or a dead end). Every edge with
 *    a corridor cell at one end stays two-way (slide 10 "single-width tunnel: bi-directional";
 *    Sigurdson et al. 2018: "edges on paths whose interior nodes have degree two ... remain
 * undirected").
 *    Dead ends (degree 1) are included: a dead end is a corridor of length one, and rule 4
 *    would make its only edge two-way anyway. The seeds leave the exact test open; this one
 *    needs no search and looks at one cell.
 * 3. Sources and sinks. After rules 1-2 a source is a cell with outgoing edges only and a sink
 *    one with incoming edges only. A sink gets an outgoing diagonal edge and a source an
 *    incoming one (slide 10), to or from a diagonal neighbour that is not itself a sink (for a
 *    sink) or a source (for a source): a diagonal into another sink, or out of another source,
 *    would connect nothing ("pointing at each other", Sigurdson et al. 2018). Among several
 * candidates the
 *    first in the order NE, SE, SW, NW is taken; in fact there is never more than one: all of a
 *    sink's edges point in, so by rule 1 its west or east neighbour (whichever the row's flow
 *    leaves by) and its north or south neighbour are blocked, and rule 2 leaves it exactly two
 *    cardinal neighbours and the one legal diagonal between them (likewise for a source). The
 *    diagonal must be a legal grid move (no corner cutting). Sources and sinks are judged on
 *    rules 1-2 only, so the decisions do not depend on each other.
 * 4. Where rule 3 fails (the only diagonal leads to another sink, or comes from another source,
 *    as in a 2x2 room), all the cell's cardinal edges become two-way instead (slide 10:
 *    "make edges bi-directional instead").
 * 5. Repair (our rule; the seeds claim rules 1-4 keep every cell reachable but give no proof).
 *    For every cardinal edge u -> v still one-way after rules 1-4, look for a way back from v to
 *    u inside the box of cells within MAPF__FLOW_RADIUS of the edge, using the edges of rules
 *    1-4 (diagonals included); where there is none, add v -> u. This guarantees the required
 *    property on every map: every cardinal grid edge can then be travelled both ways, and a
 *    legal diagonal move's two cardinal cells beside it are passable, so its target is reachable
 *    too. It is local, so the lazy annotation computes it per cell. It changes nothing where
 *    rules 1-4 already leave a way back within the box, which is the case for the open areas of
 *    a map (every one-way edge lies on a 2x2 block whose four edges form a directed cycle when
 *    all four cells are passable, rule 1's alternation). A global repair (strongly connected
 *    components) would keep more edges one-way but could not be computed lazily.
 *
 * The masks never contain an illegal move: rules 1-2 and 4 use legal cardinal moves, rule 3 a
 * legal diagonal, rule 5 the reverse of a legal cardinal move. mapf_flow_violations checks the
 * property; tests/test_flow.c runs it on every MovingAI map. */
#include "flow.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Rule 5's box: cells within this Chebyshev distance of the edge's two cells. Over the 170
 * MovingAI maps radius 1 adds 29,571 edges, 2 adds 27,923 and 3 adds 9,855 (random512-10-0
 * alone: 22,029, 21,680 and 4,572 of its 1.5 million moves; the other maps need a few dozen
 * each, if any). 3 is the largest box (8 x 7 cells) that fits a 64-bit visited mask. */
#ifndef MAPF__FLOW_RADIUS
#define MAPF__FLOW_RADIUS 3
#endif
#if MAPF__FLOW_RADIUS < 1 || MAPF__FLOW_RADIUS > 3
#error "MAPF__FLOW_RADIUS must be 1, 2 or 3"
#endif
#define MAPF__FLOW_BOX ((2 * MAPF__FLOW_RADIUS + 2) * (2 * MAPF__FLOW_RADIUS + 2))

struct mapf_flow {
  uint8_t *mask;
  mapf_flow_stats stats;
};

static const int opposite[8] = {2, 3, 0, 1, 6, 7, 4, 5};

static inline int bits8(unsigned m) {
  m = m - ((m >> 1) & 0x55u);
  m = (m & 0x33u) + ((m >> 2) & 0x33u);
  return (int)((m + (m >> 4)) & 0x0Fu);
}

/* Rule 2: at most two legal moves. cor, when not NULL, holds the answer for every cell
 * (mapf_flow_new computes it once); the lazy annotation computes it from the grid. */
static inline int is_corridor(const mapf_grid *g, const uint8_t *cor, int32_t c) {
  return cor ? cor[c] : bits8(g->moves[c]) <= 2;
}

/* Rule 1: does the road direction allow the cardinal move d from (x, y)? Exactly one of the
 * two directions of every cardinal edge is allowed. */
static inline int road_allows(int32_t x, int32_t y, int d) {
  switch (d) {
  case MAPF_DIR_N:
    return (x & 1) == 0;
  case MAPF_DIR_S:
    return (x & 1) == 1;
  case MAPF_DIR_E:
    return (y & 1) == 1;
  default: /* MAPF_DIR_W */
    return (y & 1) == 0;
  }
}

/* Rules 1-2: the cardinal moves out of c = (x, y). */
static inline uint8_t roads(const mapf_grid *g, const uint8_t *cor, int32_t c, int32_t x,
                            int32_t y) {
  uint8_t m = g->moves[c] & 0x0F, out = 0;
  if (!m) return 0;
  if (is_corridor(g, cor, c)) return m;
  for (int d = 0; d < 4; d++)
    if ((m >> d & 1) && (road_allows(x, y, d) || is_corridor(g, cor, c + g->offset[d])))
      out |= (uint8_t)(1u << d);
  return out;
}

enum { MIXED, SOURCE, SINK };

/* Rule 3's classification of c = (x, y), on rules 1-2: SOURCE (out-edges only), SINK
 * (in-edges only) or MIXED (both, or no edges). */
static inline int kind_of(const mapf_grid *g, const uint8_t *cor, int32_t c, int32_t x,
                          int32_t y) {
  uint8_t m = g->moves[c] & 0x0F;
  if (!m || is_corridor(g, cor, c)) return MIXED;
  int in = 0, out = 0;
  for (int d = 0; d < 4; d++) {
    if (!(m >> d & 1)) continue;
    if (is_corridor(g, cor, c + g->offset[d])) return MIXED; /* a two-way edge */
    if (road_allows(x, y, d))
      out++;
    else
      in++;
  }
  return !in ? SOURCE : !out ? SINK : MIXED;
}

/* Rule 3: the diagonal by which a cell of the given kind (SOURCE or SINK) is connected: the
 * first legal diagonal, NE, SE, SW, NW, whose other cell is not of the same kind; -1 when there
 * is none (rule 4 applies). */
static int diagonal_of(const mapf_grid *g, const uint8_t *cor, int32_t c, int32_t x, int32_t y,
                       int kind) {
  uint8_t m = g->moves[c];
  for (int d = 4; d < 8; d++)
    if ((m >> d & 1) &&
        kind_of(g, cor, c + g->offset[d], x + mapf_dir_dx[d], y + mapf_dir_dy[d]) != kind)
      return d;
  return -1;
}

/* Rules 1-4 for one cell, computed from its side ("pull"): its roads; its own diagonal or
 * two-way edges when it is a sink; the diagonal into a neighbouring source that chose it; and
 * the edges into a neighbouring source that fell back on rule 4. mapf_flow_new computes the
 * same edges from the source's or sink's side ("push"); the tests compare the two. */
static uint8_t pre_repair(const mapf_grid *g, int32_t u) {
  uint8_t m = g->moves[u];
  if (!m) return 0;
  int32_t x = u % g->width, y = u / g->width;
  uint8_t out = roads(g, NULL, u, x, y);
  if (kind_of(g, NULL, u, x, y) == SINK) {
    int d = diagonal_of(g, NULL, u, x, y, SINK);
    out |= d >= 0 ? (uint8_t)(1u << d) : (uint8_t)(m & 0x0F);
  }
  for (int d = 0; d < 8; d++) {
    if (!(m >> d & 1)) continue;
    int32_t c = u + g->offset[d], cx = x + mapf_dir_dx[d], cy = y + mapf_dir_dy[d];
    if (kind_of(g, NULL, c, cx, cy) != SOURCE) continue;
    int e = diagonal_of(g, NULL, c, cx, cy, SOURCE);
    if (d >= 4 ? e == opposite[d] : e < 0) out |= (uint8_t)(1u << d);
  }
  return out;
}

static uint8_t lazy_pre(mapf_flow_lazy *f, int32_t c);

/* The mask of rules 1-4 of cell c: from the array when there is one, else from the lazy cache. */
static inline uint8_t pre_of(const uint8_t *arr, mapf_flow_lazy *lz, int32_t c) {
  return arr ? arr[c] : lazy_pre(lz, c);
}

/* Rule 5's question: is `to` reachable from `from`, the cell beside it in cardinal direction
 * df, inside the box of cells within MAPF__FLOW_RADIUS of both, on the edges of rules 1-4?
 * First the two 2x2 blocks beside the edge (the usual answer: three road edges round a block),
 * then a breadth-first search of the box (at most 56 cells). The answer depends only on the
 * box, never on the order of questions. */
static int reach_near(const mapf_grid *g, int32_t from, int32_t to, int df, const uint8_t *arr,
                      mapf_flow_lazy *lz) {
  /* Blocks: from -> from + p -> to + p -> to, for the two directions p across the edge. */
  uint8_t mf = pre_of(arr, lz, from);
  for (int k = 0; k < 2; k++) {
    int p = (df + 1 + 2 * k) & 3;
    if (!(mf >> p & 1)) continue;
    int32_t a = from + g->offset[p], b = to + g->offset[p];
    if ((pre_of(arr, lz, a) >> df & 1) && (pre_of(arr, lz, b) >> opposite[p] & 1)) return 1;
  }
  int32_t fx = from % g->width, fy = from / g->width, tx = to % g->width, ty = to / g->width;
  const int32_t r = MAPF__FLOW_RADIUS;
  int32_t x0 = (fx < tx ? fx : tx) - r, x1 = (fx > tx ? fx : tx) + r;
  int32_t y0 = (fy < ty ? fy : ty) - r, y1 = (fy > ty ? fy : ty) + r;
  if (x0 < 0) x0 = 0;
  if (y0 < 0) y0 = 0;
  if (x1 >= g->width) x1 = g->width - 1;
  if (y1 >= g->height) y1 = g->height - 1;
  int32_t bw = x1 - x0 + 1;
  int32_t queue[MAPF__FLOW_BOX];
  uint64_t seen = UINT64_C(1) << ((fy - y0) * bw + (fx - x0));
  int head = 0, tail = 0;
  queue[tail++] = from;
  while (head < tail) {
    int32_t c = queue[head++];
    uint8_t m = pre_of(arr, lz, c);
    int32_t cx = c % g->width, cy = c / g->width;
    for (int d = 0; d < 8; d++) {
      if (!(m >> d & 1)) continue;
      int32_t nx = cx + mapf_dir_dx[d], ny = cy + mapf_dir_dy[d];
      if (nx < x0 || nx > x1 || ny < y0 || ny > y1) continue;
      int32_t n = c + g->offset[d];
      if (n == to) return 1;
      uint64_t bit = UINT64_C(1) << ((ny - y0) * bw + (nx - x0));
      if (seen & bit) continue;
      seen |= bit;
      queue[tail++] = n;
    }
  }
  return 0;
}

mapf_flow *mapf_flow_new(const mapf_grid *g) {
  mapf_flow *f = calloc(1, sizeof *f);
  uint8_t *pre = malloc((size_t)g->ncells);
  uint8_t *cor = malloc((size_t)g->ncells);
  if (f) f->mask = malloc((size_t)g->ncells);
  if (!f || !pre || !cor || !f->mask) {
    free(pre);
    free(cor);
    mapf_flow_free(f);
    return NULL;
  }
  mapf_flow_stats *st = &f->stats;
  for (int32_t c = 0; c < g->ncells; c++) {
    int deg = bits8(g->moves[c]);
    cor[c] = deg <= 2;
    st->grid_edges += deg;
  }
  /* Rules 1-2. */
  for (int32_t y = 0, c = 0; y < g->height; y++) {
    for (int32_t x = 0; x < g->width; x++, c++) {
      pre[c] = roads(g, cor, c, x, y);
      for (int d = 0; d < 4; d++)
        if ((pre[c] >> d & 1) && !road_allows(x, y, d)) st->corridor++;
    }
  }
  /* Rules 3-4, from the source's or sink's side ("push"). */
  for (int32_t y = 0, c = 0; y < g->height; y++) {
    for (int32_t x = 0; x < g->width; x++, c++) {
      int kind = kind_of(g, cor, c, x, y);
      if (kind == MIXED) continue;
      int d = diagonal_of(g, cor, c, x, y, kind);
      uint8_t m = g->moves[c] & 0x0F;
      if (d >= 0) {
        st->diagonals++;
        if (kind == SINK)
          pre[c] |= (uint8_t)(1u << d);
        else
          pre[c + g->offset[d]] |= (uint8_t)(1u << opposite[d]);
      } else if (kind == SINK) {
        st->source_sink += bits8(m & (unsigned)~pre[c]);
        pre[c] |= m;
      } else {
        for (int e = 0; e < 4; e++) {
          if (!(m >> e & 1)) continue;
          uint8_t *q = &pre[c + g->offset[e]];
          if (!(*q >> opposite[e] & 1)) st->source_sink++;
          *q |= (uint8_t)(1u << opposite[e]);
        }
      }
    }
  }
  free(cor);
  /* Rule 5: every one-way edge u -> v needs a way back near it. */
  memcpy(f->mask, pre, (size_t)g->ncells);
  for (int32_t u = 0; u < g->ncells; u++) {
    uint8_t m = pre[u] & 0x0F;
    if (!m) continue;
    for (int d = 0; d < 4; d++) {
      if (!(m >> d & 1)) continue;
      int32_t v = u + g->offset[d];
      if (pre[v] >> opposite[d] & 1) continue; /* two-way already */
      if (reach_near(g, v, u, opposite[d], pre, NULL)) {
        st->one_way++;
      } else {
        f->mask[v] |= (uint8_t)(1u << opposite[d]);
        st->repaired++;
      }
    }
  }
  for (int32_t c = 0; c < g->ncells; c++) st->edges += bits8(f->mask[c]);
  free(pre);
  return f;
}

/* The cache is a pure function of the grid, so filling it does not change what the grid is:
 * the cast is the one write to a shared grid (an atomic compare-and-swap: the first complete
 * annotation wins). */
const mapf_flow *mapf_grid_flow(const mapf_grid *g) {
  mapf_grid *shared = (mapf_grid *)g;
  mapf_flow *f = atomic_load_explicit(&shared->flow, memory_order_acquire);
  if (f) return f;
  mapf_flow *mine = mapf_flow_new(g);
  if (!mine) return NULL;
  if (atomic_compare_exchange_strong_explicit(&shared->flow, &f, mine, memory_order_acq_rel,
                                              memory_order_acquire))
    return mine;
  mapf_flow_free(mine); /* another thread's annotation came first; f is it */
  return f;
}

void mapf_flow_free(mapf_flow *f) {
  if (!f) return;
  free(f->mask);
  free(f);
}

const uint8_t *mapf_flow_moves(const mapf_flow *f) { return f->mask; }

const mapf_flow_stats *mapf_flow_get_stats(const mapf_flow *f) { return &f->stats; }

mapf_flow_lazy *mapf_flow_lazy_new(const mapf_grid *g) {
  mapf_flow_lazy *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->g = g;
  f->mask = malloc((size_t)g->ncells);
  f->pre = malloc((size_t)g->ncells);
  f->state = calloc((size_t)g->ncells, 1);
  if (!f->mask || !f->pre || !f->state) {
    mapf_flow_lazy_free(f);
    return NULL;
  }
  return f;
}

void mapf_flow_lazy_free(mapf_flow_lazy *f) {
  if (!f) return;
  free(f->mask);
  free(f->pre);
  free(f->state);
  free(f);
}

static uint8_t lazy_pre(mapf_flow_lazy *f, int32_t c) {
  if (!(f->state[c] & MAPF__FLOW_PRE)) {
    f->pre[c] = pre_repair(f->g, c);
    f->state[c] |= MAPF__FLOW_PRE;
  }
  return f->pre[c];
}

/* Rule 5 from the cell's side: for every one-way edge v -> u into u with no way back from u to
 * v near it, u gets u -> v. The same questions mapf_flow_new asks, so the same answers. */
uint8_t mapf__flow_lazy_fill(mapf_flow_lazy *f, int32_t u) {
  const mapf_grid *g = f->g;
  uint8_t pu = lazy_pre(f, u), out = pu, m = g->moves[u] & 0x0F;
  for (int d = 0; d < 4; d++) {
    if (!(m >> d & 1) || (pu >> d & 1)) continue;
    /* Rule 1 gives every cardinal edge a direction: this one is v -> u. */
    if (!reach_near(g, u, u + g->offset[d], d, NULL, f)) out |= (uint8_t)(1u << d);
  }
  f->mask[u] = out;
  f->state[u] |= MAPF__FLOW_DONE;
  f->computed++;
  return out;
}

int64_t mapf_flow_violations(const mapf_grid *g, const uint8_t *masks) {
  int32_t n = g->ncells;
  int32_t *idx = malloc((size_t)n * sizeof *idx);
  int32_t *low = malloc((size_t)n * sizeof *low);
  int32_t *comp = malloc((size_t)n * sizeof *comp);
  int32_t *stack = malloc((size_t)n * sizeof *stack);
  int32_t *call = malloc((size_t)n * sizeof *call);
  uint8_t *next = malloc((size_t)n);
  int64_t bad = -1;
  if (!idx || !low || !comp || !stack || !call || !next) goto out;
  for (int32_t c = 0; c < n; c++) idx[c] = comp[c] = -1;
  bad = 0;
  for (int32_t c = 0; c < n; c++) bad += bits8(masks[c] & (unsigned)~g->moves[c]);
  /* Iterative Tarjan. A node is on the stack while it has an index and no component. */
  int32_t counter = 0, ncomp = 0, sp = 0;
  for (int32_t s = 0; s < n; s++) {
    if (!g->passable[s] || idx[s] >= 0) continue;
    int32_t depth = 0;
    call[depth++] = s;
    next[s] = 0;
    idx[s] = low[s] = counter++;
    stack[sp++] = s;
    while (depth > 0) {
      int32_t v = call[depth - 1];
      if (next[v] < 8) {
        int d = next[v]++;
        if (!(masks[v] & g->moves[v] & (1u << d))) continue;
        int32_t w = v + g->offset[d];
        if (idx[w] < 0) {
          idx[w] = low[w] = counter++;
          stack[sp++] = w;
          next[w] = 0;
          call[depth++] = w;
        } else if (comp[w] < 0 && idx[w] < low[v]) {
          low[v] = idx[w];
        }
        continue;
      }
      depth--;
      if (low[v] == idx[v]) {
        int32_t w;
        do {
          w = stack[--sp];
          comp[w] = ncomp;
        } while (w != v);
        ncomp++;
      }
      if (depth > 0) {
        int32_t p = call[depth - 1];
        if (low[v] < low[p]) low[p] = low[v];
      }
    }
  }
  for (int32_t u = 0; u < n; u++) {
    uint8_t m = g->moves[u];
    for (int d = 0; d < 8; d++)
      if ((m >> d & 1) && comp[u + g->offset[d]] != comp[u]) bad++;
  }
out:
  free(idx);
  free(low);
  free(comp);
  free(stack);
  free(call);
  free(next);
  return bad;
}
