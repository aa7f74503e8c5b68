/* scengen.c: the registry of scenario generators and the problem types of thesis 5.4.1,
 * Fig. 5.4 beyond `random` (which is mapf_scengen_random in scen.c). The definitions, and which
 * of them are this project's choices, are in scengen.h. */
#include "scengen.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* ---- parameters ----------------------------------------------------------------------- */

/* Fractions are (0, x] in principle; ranges are inclusive (algo.h), so the smallest accepted
 * value is 0.001, which also keeps ceil(n / density) far from overflowing. */
#define FRACTION_MIN 0.001

/* Each generator reads its parameters from a typed struct that its table describes (as an
 * algorithm does, algo.h): the table's order is the order of job keys and help text, the
 * struct's fields are found by offsetof, so no generator reads a value by position. */

typedef struct cross_params {
  int32_t side;
  double band;
} cross_params;

static const mapf_param_def cross_table[] = {
    {"side", MAPF_PARAM_INT, -1, 3, -1,
     "side of the starts: 0 left, 1 right, 2 top, 3 bottom, -1 drawn from the seed; goals on "
     "the opposite side", NULL, offsetof(cross_params, side)},
    {"band", MAPF_PARAM_REAL, FRACTION_MIN, 0.5, 0.25,
     "fraction of the usable cells in each side band", NULL, offsetof(cross_params, band)},
};

typedef struct swap_params {
  int32_t axis;
  double band;
} swap_params;

static const mapf_param_def swap_table[] = {
    {"axis", MAPF_PARAM_INT, -1, 1, -1,
     "0: left <-> right, 1: top <-> bottom, -1 drawn from the seed", NULL,
     offsetof(swap_params, axis)},
    {"band", MAPF_PARAM_REAL, FRACTION_MIN, 0.5, 0.25,
     "fraction of the usable cells in each side band", NULL, offsetof(swap_params, band)},
};

typedef struct centre_params {
  double inner, outer;
} centre_params;

static const mapf_param_def centre_table[] = {
    {"inner", MAPF_PARAM_REAL, FRACTION_MIN, 0.5, 0.25,
     "fraction of the usable cells nearest the centre (the inner region)", NULL,
     offsetof(centre_params, inner)},
    {"outer", MAPF_PARAM_REAL, FRACTION_MIN, 0.5, 0.25,
     "fraction of the usable cells farthest from the centre (the outer region)", NULL,
     offsetof(centre_params, outer)},
};

typedef struct tight_params {
  double density;
} tight_params;

static const mapf_param_def tight_table[] = {
    {"density", MAPF_PARAM_REAL, FRACTION_MIN, 1, 0.5,
     "agents per cluster cell: each cluster holds ceil(n / density) cells", NULL,
     offsetof(tight_params, density)},
};

typedef struct wide_params {
  double density, wide;
} wide_params;

static const mapf_param_def wide_table[] = {
    {"density", MAPF_PARAM_REAL, FRACTION_MIN, 1, 0.5,
     "agents per start-cluster cell: the start cluster holds ceil(n / density) cells", NULL,
     offsetof(wide_params, density)},
    {"wide", MAPF_PARAM_REAL, FRACTION_MIN, 1, 0.05,
     "agents per goal-cluster cell: the goal cluster holds ceil(n / wide) cells", NULL,
     offsetof(wide_params, wide)},
};

/* patrol (Jansen & Sturtevant 2008 Sec. 4): 10 loops and left <-> right are the paper's ("agents
 * must complete 10 patrol loops"; "one patrol location in the left-hand side, and one on the
 * right-hand side"). The band is ours, as in cross-sides. */
typedef struct patrol_params {
  int32_t loops, axis;
  double band;
} patrol_params;

static const mapf_param_def patrol_table[] = {
    {"loops", MAPF_PARAM_INT, 1, 1000000, 10,
     "patrol loops per agent: start to goal and back, this many times", NULL,
     offsetof(patrol_params, loops)},
    {"axis", MAPF_PARAM_INT, -1, 1, 0,
     "0: starts left, goals right (the paper's); 1: starts top, goals bottom; -1 drawn from "
     "the seed", NULL, offsetof(patrol_params, axis)},
    {"band", MAPF_PARAM_REAL, FRACTION_MIN, 0.5, 0.25,
     "fraction of the usable cells in each side band", NULL, offsetof(patrol_params, band)},
};

#define NPARAMS(a) ((int32_t)(sizeof(a) / sizeof(a)[0]))

/* ---- helpers -------------------------------------------------------------------------- */

/* The number of cells a fraction f of u cells stands for: max(1, floor(f * u)). The epsilon
 * keeps products such as 0.29 * 100 = 28.999999999999996 at 29. For f <= 0.5 and u >= 2 the
 * result is at most u / 2, so two such regions taken from opposite ends of a ranking never
 * overlap. */
static int32_t fraction_cells(double f, int32_t u) {
  double k = floor(f * (double)u + 1e-9);
  return k < 1 ? 1 : (int32_t)k;
}

/* A region of k cells grown to hold n agents on a crowded map: max(k, n), at most cap. Regions
 * that must grow may overlap the opposite region (pair_regions keeps goal != start). */
static int32_t grown(int32_t k, int32_t n, int32_t cap) {
  if (k < n) k = n;
  return k > cap ? cap : k;
}

/* ceil(n / f) for f in (0, 1], capped at cap (the epsilon as above). */
static int32_t cluster_cells(int32_t n, double f, int32_t cap) {
  double k = ceil((double)n / f - 1e-9);
  return k > (double)cap ? cap : (int32_t)k;
}

/* What every generator does first: n >= 1, parameters in range (defaults when p is NULL).
 * Fills the generator's typed parameter struct `out` of `size` bytes. */
static int begin(const mapf_scengen_def *def, int32_t n, const mapf_params *p, void *out,
                 size_t size, mapf_diag *d) {
  if (n < 1)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "agents: expected an integer >= 1, found %d",
                         (int)n);
  mapf_params v;
  if (p)
    v = *p;
  else
    mapf_params_default(def->view, &v);
  mapf_diag why;
  int rc = mapf_params_check(def->view, &v, &why);
  if (rc == MAPF_OK) rc = mapf_params_fill(def->view, &v, out, size, &why);
  if (rc != MAPF_OK) return mapf_diag_set(d, rc, NULL, 0, 0, "%s: %s", def->name, why.msg);
  return MAPF_OK;
}

/* Regions need two usable cells at least (one start, one goal). */
static int need_usable(const mapf_grid *g, const char *gen, int32_t n, mapf_diag *d) {
  if (g->nusable >= 2) return MAPF_OK;
  return mapf_diag_set(d, MAPF_ENOSPACE, NULL, 0, 0,
                       "map %s: %s: %d passable cells in components of 2 or more; cannot place "
                       "%d agents",
                       g->name, gen, (int)g->nusable, (int)n);
}

/* A set of usable cells, named for messages. */
typedef struct region {
  const int32_t *cells;
  int32_t n;
  const char *name;
} region;

/* ---- pairing within components -------------------------------------------------------- */

/* Draws n agents (written to start[0..n-1], goal[0..n-1]) with starts in S and goals in G, two
 * sets of usable cells that overlap only when `overlap` is set (a crowded map), each goal in its
 * start's component. Starts: a Fisher-Yates draw over S in which a drawn cell whose component
 * has no free goal cell left is dropped; each draw takes or drops one cell, so there are at
 * most |S| draws. Goals: per component, a partial Fisher-Yates over its cells of G (G
 * counting-sorted by component), never the agent's own start (see the goal loop).
 *
 * This succeeds exactly when the capacity, the sum over components c of min(|S in c|,
 * |G in c|), is at least n: when S runs out, every component has taken that many. Returns
 * MAPF_OK, MAPF_ENOMEM, or MAPF_ENOSPACE with *capacity set and no message (the caller names
 * the generator). O(|S| + |G| + ncomponents) time and memory. */
static int pair_regions(const mapf_grid *g, region S, region G, int overlap, int32_t n,
                        mapf_rng *r, int32_t *start, int32_t *goal, int32_t *capacity) {
  int32_t nc = g->ncomponents;
  int32_t *scount = calloc((size_t)nc, sizeof *scount);
  int32_t *goff = calloc((size_t)nc + 1, sizeof *goff);     /* G by component: offsets */
  int32_t *taken = calloc((size_t)nc, sizeof *taken);       /* starts, then goals, per comp */
  int32_t *gpool = malloc(((size_t)G.n + 1) * sizeof *gpool);
  int32_t *cand = malloc(((size_t)S.n + 1) * sizeof *cand);
  /* Where S and G overlap: the index in gpool of each cell of G, -1 elsewhere. */
  int32_t *pos = overlap ? malloc((size_t)g->ncells * sizeof *pos) : NULL;
  int rc = MAPF_OK;
  if (!scount || !goff || !taken || !gpool || !cand || (overlap && !pos)) {
    rc = MAPF_ENOMEM;
    goto done;
  }
  for (int32_t i = 0; i < S.n; i++) scount[g->component[S.cells[i]]]++;
  for (int32_t i = 0; i < G.n; i++) goff[g->component[G.cells[i]] + 1]++;
  int64_t cap = 0;
  for (int32_t c = 0; c < nc; c++) {
    int32_t gc = goff[c + 1];
    cap += scount[c] < gc ? scount[c] : gc;
    goff[c + 1] += goff[c];
  }
  *capacity = (int32_t)cap;
  if (cap < n) {
    rc = MAPF_ENOSPACE;
    goto done;
  }
  /* Counting sort of G by component; taken[] serves as the fill pointer, then is cleared. */
  for (int32_t i = 0; i < G.n; i++) {
    int32_t c = g->component[G.cells[i]];
    gpool[goff[c] + taken[c]++] = G.cells[i];
  }
  if (overlap) {
    for (int32_t i = 0; i < g->ncells; i++) pos[i] = -1;
    for (int32_t i = 0; i < G.n; i++) pos[gpool[i]] = i;
  }
  memset(taken, 0, (size_t)nc * sizeof *taken);

  /* Starts. cap >= n, so S does not run out before n are taken. */
  memcpy(cand, S.cells, (size_t)S.n * sizeof *cand);
  int32_t k = S.n;
  for (int32_t i = 0; i < n;) {
    int32_t j = (int32_t)mapf_rng_below(r, (uint64_t)k);
    int32_t s = cand[j];
    cand[j] = cand[--k];
    int32_t c = g->component[s];
    if (taken[c] < goff[c + 1] - goff[c]) {
      taken[c]++;
      start[i++] = s;
    }
  }
  memset(taken, 0, (size_t)nc * sizeof *taken);

  /* Goals: the front of each component's pool is the taken part. Where S and G overlap (a
   * crowded map, regions_for), a goal is never the agent's own start: it is drawn among the
   * other free cells, or, when its start is the last free cell, the agent takes the goal of the
   * latest earlier agent of its component, which takes the start (starts are distinct, goals
   * are distinct, so neither ends on its own start). */
  for (int32_t i = 0; i < n; i++) {
    int32_t c = g->component[start[i]];
    int32_t *p = gpool + goff[c] + taken[c];
    int32_t m = goff[c + 1] - goff[c] - taken[c]; /* >= 1 by the start draw */
    int32_t own = overlap ? pos[start[i]] - (goff[c] + taken[c]) : -1;
    if (own >= m) own = -1; /* not in G, or not free */
    int32_t j;
    if (own < 0) {
      j = (int32_t)mapf_rng_below(r, (uint64_t)m);
    } else if (m > 1) {
      j = (int32_t)mapf_rng_below(r, (uint64_t)(m - 1));
      j += j >= own;
    } else {
      int32_t t = i - 1;
      while (t >= 0 && g->component[start[t]] != c) t--;
      if (t < 0) {
        *capacity = i;
        rc = MAPF_ENOSPACE;
        goto done;
      }
      goal[i] = goal[t];
      goal[t] = start[i];
      taken[c]++;
      continue;
    }
    int32_t t = p[0];
    p[0] = p[j];
    p[j] = t;
    if (overlap) {
      pos[p[0]] = goff[c] + taken[c];
      pos[p[j]] = goff[c] + taken[c] + j;
    }
    goal[i] = p[0];
    taken[c]++;
  }

done:
  free(scount);
  free(goff);
  free(taken);
  free(gpool);
  free(cand);
  free(pos);
  return rc;
}

static int no_space_pairs(mapf_diag *d, const mapf_grid *g, const char *gen, region S, region G,
                          int32_t cap, int32_t n) {
  return mapf_diag_set(d, MAPF_ENOSPACE, NULL, 0, 0,
                       "map %s: %s: starts in the %s (%d cells) and goals in the %s (%d cells) "
                       "pair up at most %d agents within connected components; cannot place %d",
                       g->name, gen, S.name, (int)S.n, G.name, (int)G.n, (int)cap, (int)n);
}

static int no_memory(mapf_diag *d) {
  return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
}

/* ---- rankings and the region generators' common steps --------------------------------- */

/* Writes the usable cells to rank[] in (x, id) order (axis 0) or (y, id) order (axis 1). The
 * grid's usable list is in id order, which is (y, id) order; for x a stable counting sort by
 * column keeps id order within a column. O(usable + width). */
static int rank_by_axis(const mapf_grid *g, int axis, int32_t *rank) {
  int32_t u = g->nusable;
  if (axis == 1) {
    memcpy(rank, g->usable, (size_t)u * sizeof *rank);
    return MAPF_OK;
  }
  int32_t *at = calloc((size_t)g->width + 1, sizeof *at);
  if (!at) return MAPF_ENOMEM;
  for (int32_t i = 0; i < u; i++) at[mapf_grid_x(g, g->usable[i]) + 1]++;
  for (int32_t x = 0; x < g->width; x++) at[x + 1] += at[x];
  for (int32_t i = 0; i < u; i++) rank[at[mapf_grid_x(g, g->usable[i])]++] = g->usable[i];
  free(at);
  return MAPF_OK;
}

typedef struct dist_cell {
  int64_t d2; /* squared distance to the centre, in half cells (exact) */
  int32_t id;
} dist_cell;

static int cmp_dist_cell(const void *a, const void *b) {
  const dist_cell *x = a, *y = b;
  if (x->d2 != y->d2) return x->d2 < y->d2 ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* Writes the usable cells to rank[] by (Euclidean distance to the centre of their bounding
 * box, id). Coordinates are doubled so that the centre, (min + max) / 2, is an integer and
 * distances compare exactly. O(usable log usable). */
static int rank_by_centre(const mapf_grid *g, int32_t *rank) {
  int32_t u = g->nusable;
  int32_t x0 = g->width, x1 = -1, y0 = g->height, y1 = -1;
  for (int32_t i = 0; i < u; i++) {
    int32_t x = mapf_grid_x(g, g->usable[i]), y = mapf_grid_y(g, g->usable[i]);
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  dist_cell *dc = malloc((size_t)u * sizeof *dc);
  if (!dc) return MAPF_ENOMEM;
  for (int32_t i = 0; i < u; i++) {
    int64_t dx = 2 * (int64_t)mapf_grid_x(g, g->usable[i]) - (x0 + x1);
    int64_t dy = 2 * (int64_t)mapf_grid_y(g, g->usable[i]) - (y0 + y1);
    dc[i].d2 = dx * dx + dy * dy;
    dc[i].id = g->usable[i];
  }
  qsort(dc, (size_t)u, sizeof *dc, cmp_dist_cell);
  for (int32_t i = 0; i < u; i++) rank[i] = dc[i].id;
  free(dc);
  return MAPF_OK;
}

/* rank_ready's axis for the ranking by distance to the centre. */
#define BY_CENTRE (-1)

/* What the region generators (sides, patrol, centre) do first: begin, need_usable, then r
 * seeded, so that a side or an axis drawn from the seed is its first draw. */
static int begin_regions(const mapf_grid *g, const char *gen, int32_t n, const mapf_params *p,
                         uint64_t seed, void *out, size_t size, mapf_rng *r, mapf_diag *d) {
  int rc = begin(mapf_scengen_find(gen), n, p, out, size, d);
  if (rc) return rc;
  if ((rc = need_usable(g, gen, n, d))) return rc;
  mapf_rng_seed(r, seed);
  return MAPF_OK;
}

/* Then, with no draw: a new ranking of the usable cells (by axis 0 or 1, or BY_CENTRE) and a
 * new instance of n agents. Returns MAPF_OK, or MAPF_ENOMEM with the message and nothing to
 * free. */
static int rank_ready(const mapf_grid *g, int axis, int32_t n, int32_t **rank,
                      mapf_instance **inst, mapf_diag *d) {
  *rank = malloc((size_t)g->nusable * sizeof **rank);
  *inst = mapf_instance_new(n);
  if (*rank && *inst &&
      (axis == BY_CENTRE ? rank_by_centre(g, *rank) : rank_by_axis(g, axis, *rank)) == MAPF_OK)
    return MAPF_OK;
  free(*rank);
  mapf_instance_free(*inst);
  return no_memory(d);
}

/* pair_regions for agents at .. at + n - 1 of inst, with the messages of generator gen. */
static int pair_into(const mapf_grid *g, const char *gen, region S, region G, int overlap,
                     int32_t n, mapf_rng *r, mapf_instance *inst, int32_t at, mapf_diag *d) {
  int32_t cap = 0;
  int rc = pair_regions(g, S, G, overlap, n, r, inst->start + at, inst->goal + at, &cap);
  if (rc == MAPF_ENOSPACE) rc = no_space_pairs(d, g, gen, S, G, cap, n);
  if (rc == MAPF_ENOMEM) rc = no_memory(d);
  return rc;
}

/* Last: frees rank, and hands inst to *out when rc is MAPF_OK (frees it otherwise). Returns
 * rc. */
static int finish_regions(int rc, int32_t *rank, mapf_instance *inst, mapf_instance **out) {
  free(rank);
  if (rc == MAPF_OK)
    *out = inst;
  else
    mapf_instance_free(inst);
  return rc;
}

/* ---- sides ---------------------------------------------------------------------------- */

static const char *const side_names[4] = {"left band", "right band", "top band", "bottom band"};

/* The band on side (0 left, 1 right, 2 top, 3 bottom) of a ranking by side / 2's axis: the
 * first k cells for left and top, the last k for right and bottom. */
static region side_band(const int32_t *rank, int32_t u, int32_t k, int side) {
  region b = {side % 2 == 0 ? rank : rank + u - k, k, side_names[side]};
  return b;
}

/* n agents with starts in the band of k cells on `side` and goals in the opposite band, the
 * rest of cross-sides and patrol once their side is known. */
static int opposite_bands(const mapf_grid *g, const char *gen, int32_t n, int side, int32_t k,
                          mapf_rng *r, mapf_instance **out, mapf_diag *d) {
  int32_t u = g->nusable, *rank;
  mapf_instance *inst;
  int rc = rank_ready(g, side / 2, n, &rank, &inst, d);
  if (rc) return rc;
  region S = side_band(rank, u, k, side), G = side_band(rank, u, k, side ^ 1);
  rc = pair_into(g, gen, S, G, 2 * k > u, n, r, inst, 0, d);
  return finish_regions(rc, rank, inst, out);
}

/* cross-sides (Fig. 5.4): starts in the band on `side`, goals in the opposite band. The side,
 * when drawn, is the first draw of the seed. O(usable + width). */
static int gen_cross_sides(const mapf_grid *g, int32_t n, const mapf_params *p, uint64_t seed,
                           mapf_instance **out, mapf_diag *d) {
  cross_params P;
  mapf_rng r;
  int rc = begin_regions(g, "cross-sides", n, p, seed, &P, sizeof P, &r, d);
  if (rc) return rc;
  int side = P.side >= 0 ? (int)P.side : (int)mapf_rng_below(&r, 4);
  int32_t u = g->nusable, k = grown(fraction_cells(P.band, u), n, u);
  return opposite_bands(g, "cross-sides", n, side, k, &r, out, d);
}

/* swap-sides (Fig. 5.4): agents 0 .. ceil(n/2)-1 from the first band (left or top) to the
 * opposite one, the others back. The two halves are drawn one after the other from one
 * generator; each needs its own capacity (the same number both ways). O(usable + width). */
static int gen_swap_sides(const mapf_grid *g, int32_t n, const mapf_params *p, uint64_t seed,
                          mapf_instance **out, mapf_diag *d) {
  swap_params P;
  mapf_rng r;
  int rc = begin_regions(g, "swap-sides", n, p, seed, &P, sizeof P, &r, d);
  if (rc) return rc;
  int axis = P.axis >= 0 ? (int)P.axis : (int)mapf_rng_below(&r, 2);
  /* Each band grows to hold its half of the agents, but no further than half the cells: the
   * two halves' starts must not meet. */
  int32_t u = g->nusable, k = grown(fraction_cells(P.band, u), n - n / 2, u / 2);
  if (k < 1) k = 1;
  int32_t *rank;
  mapf_instance *inst;
  if ((rc = rank_ready(g, axis, n, &rank, &inst, d))) return rc;
  region first = side_band(rank, u, k, 2 * axis), second = side_band(rank, u, k, 2 * axis + 1);
  int32_t half = n - n / 2;
  rc = pair_into(g, "swap-sides", first, second, 0, half, &r, inst, 0, d);
  if (rc == MAPF_OK && n - half > 0)
    rc = pair_into(g, "swap-sides", second, first, 0, n - half, &r, inst, half, d);
  return finish_regions(rc, rank, inst, out);
}

/* patrol (Jansen & Sturtevant 2008 Sec. 4; scengen.h): starts in the first band (left, or top),
 * goals in the opposite one, paired within components as in cross-sides; the bands grow to hold the
 * agents but never past half the usable cells, so no goal is ever a start (an agent done with its
 * loops stays on its start, where it must not block another agent's goal). Sets loops. The
 * axis, when drawn, is the first draw of the seed. O(usable + width). */
static int gen_patrol(const mapf_grid *g, int32_t n, const mapf_params *p, uint64_t seed,
                      mapf_instance **out, mapf_diag *d) {
  patrol_params P;
  mapf_rng r;
  int rc = begin_regions(g, "patrol", n, p, seed, &P, sizeof P, &r, d);
  if (rc) return rc;
  int axis = P.axis >= 0 ? (int)P.axis : (int)mapf_rng_below(&r, 2);
  /* At most half the usable cells each, so the bands never overlap. */
  int32_t u = g->nusable, k = grown(fraction_cells(P.band, u), n, u / 2);
  rc = opposite_bands(g, "patrol", n, 2 * axis, k, &r, out, d);
  if (rc == MAPF_OK) (*out)->loops = P.loops;
  return rc;
}

/* ---- centre --------------------------------------------------------------------------- */

/* inside-out and outside-in (Fig. 5.4): the inner region is the first `inner` fraction of the
 * ranking by distance to the centre, the outer region the last `outer` fraction. */
static int gen_centre(const mapf_grid *g, int32_t n, const mapf_params *p, uint64_t seed,
                      int inside_out, mapf_instance **out, mapf_diag *d) {
  const char *gen = inside_out ? "inside-out" : "outside-in";
  centre_params P;
  mapf_rng r;
  int rc = begin_regions(g, gen, n, p, seed, &P, sizeof P, &r, d);
  if (rc) return rc;
  int32_t u = g->nusable;
  int32_t ki = grown(fraction_cells(P.inner, u), n, u);
  int32_t ko = grown(fraction_cells(P.outer, u), n, u);
  int32_t *rank;
  mapf_instance *inst;
  if ((rc = rank_ready(g, BY_CENTRE, n, &rank, &inst, d))) return rc;
  region inner = {rank, ki, "inner region"}, outer = {rank + u - ko, ko, "outer region"};
  region S = inside_out ? inner : outer, G = inside_out ? outer : inner;
  rc = pair_into(g, gen, S, G, ki + ko > u, n, &r, inst, 0, d);
  return finish_regions(rc, rank, inst, out);
}

static int gen_inside_out(const mapf_grid *g, int32_t n, const mapf_params *p, uint64_t seed,
                          mapf_instance **out, mapf_diag *d) {
  return gen_centre(g, n, p, seed, 1, out, d);
}

static int gen_outside_in(const mapf_grid *g, int32_t n, const mapf_params *p, uint64_t seed,
                          mapf_instance **out, mapf_diag *d) {
  return gen_centre(g, n, p, seed, 0, out, d);
}

/* ---- clusters ------------------------------------------------------------------------- */

enum { SEEN_START = 1, IN_START = 2, SEEN_GOAL = 4 };

/* Breadth-first search from centre over legal moves (mapf_dir order), writing cells to q[] in
 * BFS order until `want` cells not marked `skip` have been collected into coll[] (the search
 * passes through skipped cells without collecting them). The component must hold `want` such
 * cells. Marks visited cells with `seen`. Returns the number of cells in q. O(cells visited). */
static int32_t bfs_collect(const mapf_grid *g, int32_t centre, uint8_t *mark, uint8_t seen,
                           uint8_t skip, int32_t *q, int32_t *coll, int32_t want) {
  int32_t head = 0, tail = 0, k = 0;
  q[tail++] = centre;
  mark[centre] |= seen;
  if (!(mark[centre] & skip)) coll[k++] = centre;
  while (k < want && head < tail) {
    int32_t c = q[head++];
    for (int dir = 0; dir < 8 && k < want; dir++) {
      if (!(g->moves[c] >> dir & 1)) continue;
      int32_t nb = c + g->offset[dir];
      if (mark[nb] & seen) continue;
      mark[nb] |= seen;
      q[tail++] = nb;
      if (!(mark[nb] & skip)) coll[k++] = nb;
    }
  }
  return tail;
}

/* Partial Fisher-Yates: the first n of cells[0..m-1] become a uniform draw without
 * replacement, copied to dst. */
static void draw_from(int32_t *cells, int32_t m, int32_t n, mapf_rng *r, int32_t *dst) {
  for (int32_t i = 0; i < n; i++) {
    int32_t j = i + (int32_t)mapf_rng_below(r, (uint64_t)(m - i));
    int32_t t = cells[i];
    cells[i] = cells[j];
    cells[j] = t;
    dst[i] = cells[i];
  }
}

/* tight-to-tight and tight-to-wide (Fig. 5.4): a start cluster of ceil(n / ds) cells and a disjoint
 * goal cluster of ceil(n / dg) cells, grown by BFS from two centres of one component (scengen.h).
 * ds is the density of the start cluster, dg that of the goal cluster (the same for tight-to-tight,
 * tight-to-wide's `wide`); the caller has checked n and both. Draws: the start centre, the goal
 * centre, n starts, n goals. O(ncells) memory for the marks; O(component) time. */
static int gen_clusters(const mapf_grid *g, const char *gen, int32_t n, double ds, double dg,
                        uint64_t seed, mapf_instance **out, mapf_diag *d) {
  int rc = MAPF_OK;
  /* Components with room for n starts and n goals in disjoint clusters; on a crowded map, with
   * none, those that hold n agents at all, with clusters that overlap. */
  int64_t eligible = 0, crowded = 0;
  int32_t largest = 0;
  for (int32_t c = 0; c < g->ncomponents; c++) {
    int32_t sz = g->component_size[c];
    if (sz < 2) continue;
    if (sz > largest) largest = sz;
    if (sz >= 2 * (int64_t)n) eligible += sz;
    if (sz >= n) crowded += sz;
  }
  int disjoint = eligible > 0;
  if (!disjoint) eligible = crowded;
  if (eligible == 0)
    return mapf_diag_set(d, MAPF_ENOSPACE, NULL, 0, 0,
                         "map %s: %s: the largest connected component has %d usable cells; "
                         "cannot place %d agents",
                         g->name, gen, (int)largest, (int)n);
  mapf_rng r;
  mapf_rng_seed(&r, seed);
  int64_t pick = (int64_t)mapf_rng_below(&r, (uint64_t)eligible);
  int32_t comp = -1;
  for (int32_t c = 0; c < g->ncomponents && comp < 0; c++) {
    int32_t sz = g->component_size[c];
    if (sz < 2 || sz < (disjoint ? 2 * (int64_t)n : n)) continue;
    if (pick < sz)
      comp = c;
    else
      pick -= sz;
  }
  const int32_t *cells = g->usable_by_comp + g->usable_off[comp];
  int32_t size = g->component_size[comp];
  int32_t centre = cells[pick];
  /* The start cluster leaves at least n cells for the goal cluster; on a crowded component
   * each cluster may take the whole of it. */
  int32_t ms = cluster_cells(n, ds, disjoint ? size - n : size);
  int32_t mg = cluster_cells(n, dg, disjoint ? size - ms : size);

  mapf_instance *inst = mapf_instance_new(n);
  uint8_t *mark = calloc((size_t)g->ncells, 1);
  int32_t *q = malloc((size_t)size * sizeof *q);
  int32_t *sc = malloc((size_t)ms * sizeof *sc);
  int32_t *gc = malloc((size_t)mg * sizeof *gc);
  if (!inst || !mark || !q || !sc || !gc) {
    rc = no_memory(d);
    goto done;
  }
  bfs_collect(g, centre, mark, SEEN_START, 0, q, sc, ms);
  for (int32_t i = 0; i < ms; i++) mark[sc[i]] |= IN_START;

  /* The goal centre: uniform over the size - ms cells of the component outside the cluster
   * (over all of it when the start cluster fills it). */
  int outside = size - ms > 0;
  int64_t gpick = (int64_t)mapf_rng_below(&r, (uint64_t)(outside ? size - ms : size));
  int32_t gcentre = -1;
  for (int32_t i = 0; i < size && gcentre < 0; i++) {
    if (outside && (mark[cells[i]] & IN_START)) continue;
    if (gpick-- == 0) gcentre = cells[i];
  }
  bfs_collect(g, gcentre, mark, SEEN_GOAL, disjoint ? IN_START : 0, q, gc, mg);

  draw_from(sc, ms, n, &r, inst->start);
  draw_from(gc, mg, n, &r, inst->goal);
  /* Overlapping clusters (n >= 2 here: one agent always has disjoint room): an agent whose goal
   * is its own start swaps goals with the next agent. Starts are distinct and goals are
   * distinct, so after the swap neither of the two has its own start as its goal. */
  if (!disjoint)
    for (int32_t i = 0; i < n; i++)
      if (inst->goal[i] == inst->start[i]) {
        int32_t j = (i + 1) % n, t = inst->goal[i];
        inst->goal[i] = inst->goal[j];
        inst->goal[j] = t;
      }
  *out = inst;
  inst = NULL;
done:
  mapf_instance_free(inst);
  free(mark);
  free(q);
  free(sc);
  free(gc);
  return rc;
}

static int gen_tight_to_tight(const mapf_grid *g, int32_t n, const mapf_params *p,
                              uint64_t seed, mapf_instance **out, mapf_diag *d) {
  tight_params P;
  int rc = begin(mapf_scengen_find("tight-to-tight"), n, p, &P, sizeof P, d);
  return rc ? rc : gen_clusters(g, "tight-to-tight", n, P.density, P.density, seed, out, d);
}

static int gen_tight_to_wide(const mapf_grid *g, int32_t n, const mapf_params *p,
                             uint64_t seed, mapf_instance **out, mapf_diag *d) {
  wide_params P;
  int rc = begin(mapf_scengen_find("tight-to-wide"), n, p, &P, sizeof P, d);
  return rc ? rc : gen_clusters(g, "tight-to-wide", n, P.density, P.wide, seed, out, d);
}

static int gen_random(const mapf_grid *g, int32_t n, const mapf_params *p, uint64_t seed,
                      mapf_instance **out, mapf_diag *d) {
  (void)p;
  return mapf_scengen_random(g, n, seed, out, d);
}

/* ---- the registry --------------------------------------------------------------------- */

static const char doc_random[] =
    "random: agents are assigned random starts and goals (thesis Fig. 5.4)";
static const char doc_cross[] =
    "cross-sides: agents start on one side and traverse to the opposite side (thesis Fig. 5.4)";
static const char doc_swap[] =
    "swap-sides: half of the agents start on one side, half on the opposite side, each with "
    "goals on the other (thesis Fig. 5.4)";
static const char doc_inside[] =
    "inside-out: agents start near the centre with goals near the outer edges (thesis Fig. 5.4)";
static const char doc_outside[] =
    "outside-in: agents start near the outer edges with goals near the centre (thesis Fig. 5.4)";
static const char doc_tight[] =
    "tight-to-tight: agents start close together with goals close together elsewhere (thesis "
    "Fig. 5.4)";
static const char doc_wide[] =
    "tight-to-wide: agents start close together with goals in one general area (thesis "
    "Fig. 5.4)";
static const char doc_patrol[] =
    "patrol: each agent patrols between a start on the left side and a goal on the right side "
    "for `loops` loops (Jansen & Sturtevant 2008 Sec. 4)";

/* The algo.h views: the same names and parameters, for algo.c's parameter functions. */
#define VIEW(gen, text, table, type)                                                           \
  {.name = gen, .label = gen, .doc = text, .params = table, .nparams = NPARAMS(table),            \
   .size = sizeof(type)}

static const mapf_algo_def views[] = {
    {.name = "random", .label = "random", .doc = doc_random},
    VIEW("cross-sides", doc_cross, cross_table, cross_params),
    VIEW("swap-sides", doc_swap, swap_table, swap_params),
    VIEW("inside-out", doc_inside, centre_table, centre_params),
    VIEW("outside-in", doc_outside, centre_table, centre_params),
    VIEW("tight-to-tight", doc_tight, tight_table, tight_params),
    VIEW("tight-to-wide", doc_wide, wide_table, wide_params),
    VIEW("patrol", doc_patrol, patrol_table, patrol_params),
};

static const mapf_scengen_def table[] = {
    {"random", doc_random, NULL, 0, gen_random, &views[0]},
    {"cross-sides", doc_cross, cross_table, NPARAMS(cross_table), gen_cross_sides, &views[1]},
    {"swap-sides", doc_swap, swap_table, NPARAMS(swap_table), gen_swap_sides, &views[2]},
    {"inside-out", doc_inside, centre_table, NPARAMS(centre_table), gen_inside_out, &views[3]},
    {"outside-in", doc_outside, centre_table, NPARAMS(centre_table), gen_outside_in, &views[4]},
    {"tight-to-tight", doc_tight, tight_table, NPARAMS(tight_table), gen_tight_to_tight,
     &views[5]},
    {"tight-to-wide", doc_wide, wide_table, NPARAMS(wide_table), gen_tight_to_wide, &views[6]},
    {"patrol", doc_patrol, patrol_table, NPARAMS(patrol_table), gen_patrol, &views[7]},
};

_Static_assert(sizeof table / sizeof table[0] == sizeof views / sizeof views[0],
               "one algo.h view per generator");

int32_t mapf_scengen_count(void) { return NPARAMS(table); }

const mapf_scengen_def *mapf_scengen_at(int32_t i) {
  return i >= 0 && i < mapf_scengen_count() ? &table[i] : NULL;
}

const mapf_scengen_def *mapf_scengen_find(const char *name) {
  for (int32_t i = 0; i < mapf_scengen_count(); i++)
    if (strcmp(table[i].name, name) == 0) return &table[i];
  return NULL;
}

void mapf_scengen_params_default(const mapf_scengen_def *def, mapf_params *p) {
  mapf_params_default(def->view, p);
}
