/* inst_features.c: instance features for algorithm selection (inst_features.h). */
#include "inst_features.h"

#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "expand.h"
#include "landmark.h"
#include "rng.h"

/* ---- the columns, declared once ------------------------------------------------------------ */

enum {
  F_WIDTH, F_HEIGHT, F_PASSABLE, F_OBSTACLES, F_COMPONENTS, F_LARGEST_COMPONENT, F_CORRIDOR,
  F_DEAD_END, F_MOVES_LE2, F_MOVES_3_5, F_MOVES_6_7, F_MOVES_8, F_MEAN_MOVES, F_ARTICULATION,
  F_BLOCKS, F_LARGEST_BLOCK, F_DIAMETER, F_WINDING, F_FIEDLER, F_FIEDLER_SCALED,
  F_MAP_END, /* the instance-level ones follow */
  F_AGENTS = F_MAP_END, F_DENSITY, F_DIST_MEAN, F_DIST_SD, F_DIST_MIN, F_DIST_MAX, F_DIST_RATIO,
  F_DETOUR, F_H_MEAN, F_USE_MEAN, F_USE_MAX, F_SHARED, F_COVERAGE, F_LOAD, F_PATH_PEAK, F_START_CROWD,
  F_GOAL_CROWD, F_START_SPREAD, F_GOAL_SPREAD, F_HEADING, F_GOAL_ON_START,
  F_N
};

const farm_feature_column farm_feature_columns[] = {
    {"map_width", "columns of the map", 1},
    {"map_height", "rows of the map", 1},
    {"map_passable", "passable cells", 1},
    {"map_obstacle_density", "blocked cells / all cells", 1},
    {"map_components", "connected components of passable cells", 1},
    {"map_largest_component", "the largest component's cells / passable cells", 1},
    {"map_corridor_share",
     "passable cells with exactly two passable cardinal neighbours / passable cells", 1},
    {"map_dead_end_share", "passable cells with one passable cardinal neighbour / passable cells",
     1},
    {"map_moves_le2", "passable cells with at most 2 legal moves (the grid's move set) / passable",
     1},
    {"map_moves_3_5", "passable cells with 3 to 5 legal moves / passable", 1},
    {"map_moves_6_7", "passable cells with 6 or 7 legal moves / passable", 1},
    {"map_moves_8", "passable cells with all 8 moves legal / passable (0 under 4 moves)", 1},
    {"map_mean_moves", "mean number of legal moves of a passable cell", 1},
    {"map_articulation_share",
     "articulation points (cells whose removal disconnects their component) / passable", 1},
    {"map_blocks", "biconnected components (blocks) of the grid graph", 1},
    {"map_largest_block", "the largest block's cells / passable cells", 1},
    {"map_diameter", "the largest component's diameter in moves (double-sweep estimate)", 1},
    {"map_winding", "map_diameter / the map's longer side", 1},
    {"map_fiedler",
     "algebraic connectivity: the second smallest eigenvalue of the largest component's "
     "Laplacian (Lanczos)", 1},
    {"map_fiedler_scaled",
     "map_fiedler x map_diameter^2 / pi^2 (near 1 on a path or a ring, less with bottlenecks)",
     1},
    {"agent_count", "agents of the instance", 0},
    {"agent_density", "agents / passable cells", 0},
    {"dist_mean",
     "mean start-goal shortest distance in moves (each move one time step) of the sampled agents",
     0},
    {"dist_sd", "its standard deviation over the agents", 0},
    {"dist_min", "the shortest start-goal distance", 0},
    {"dist_max", "the longest start-goal distance", 0},
    {"dist_ratio", "dist_mean / map_diameter", 0},
    {"detour_mean",
     "mean of shortest distance / the coordinate bound (Chebyshev under 8 moves, Manhattan under "
     "4), sampled agents", 0},
    {"h_mean", "mean coordinate bound (Chebyshev or Manhattan) start-goal distance, every agent",
     0},
    {"path_use_mean",
     "mean number of the sampled agents' shortest paths through a cell, over cells on one", 0},
    {"path_use_max", "the most agents' shortest paths through one cell", 0},
    {"path_shared", "cells on two or more shortest paths / cells on one or more", 0},
    {"path_coverage", "cells on a shortest path / passable cells", 0},
    {"path_load",
     "cells of all sampled shortest paths, counted per path, x agents / sampled / passable", 0},
    {"path_peak",
     "mean over sampled agents of the busiest cell on its own path, in paths through it / "
     "sampled agents", 0},
    {"start_crowding", "mean share of a start's 8 neighbours that are other agents' starts", 0},
    {"goal_crowding", "mean share of a goal's 8 neighbours that are other agents' goals", 0},
    {"start_spread", "RMS distance of the starts from their centroid / the map's longer side", 0},
    {"goal_spread", "RMS distance of the goals from their centroid / the map's longer side", 0},
    {"heading_coherence",
     "length of the mean unit vector from start to goal (1: all one way; 0: balanced)", 0},
    {"goal_on_start", "agents whose goal is another agent's start / agents", 0},
};
const int32_t farm_nfeatures = F_N;

_Static_assert(sizeof farm_feature_columns / sizeof farm_feature_columns[0] == F_N,
               "one column per feature");

void farm_problem_type(const char *generator, char *buf, size_t n) {
  if (!n) return;
  size_t k = 0;
  for (const char *p = generator ? generator : ""; *p && *p != ' ' && k + 1 < n; p++)
    buf[k++] = *p;
  buf[k] = '\0';
}

char *farm_features_ddl(void) {
  size_t cap = 4096 + (size_t)F_N * 64, len = 0;
  char *s = malloc(cap);
  if (!s) return NULL;
  len += (size_t)snprintf(s + len, cap - len,
                          "CREATE TABLE IF NOT EXISTS features (\n"
                          "  map_hash TEXT NOT NULL,\n  generator TEXT NOT NULL,\n"
                          "  agents INTEGER NOT NULL,\n  instance INTEGER NOT NULL,\n"
                          "  map TEXT NOT NULL,\n  problem_type TEXT NOT NULL,\n"
                          "  version INTEGER NOT NULL,\n");
  for (int32_t i = 0; i < F_N; i++)
    len += (size_t)snprintf(s + len, cap - len, "  %s REAL,\n", farm_feature_columns[i].name);
  /* The view: every feature row with its instance's best label (portfolio_labels, the
   * thesis's rule), for any SQLite client or a training script of one's own. */
  snprintf(s + len, cap - len,
           "  PRIMARY KEY (map_hash, generator, agents, instance)\n) WITHOUT ROWID;\n"
           "DROP VIEW IF EXISTS feature_labels;\n"
           "CREATE VIEW feature_labels AS\n"
           "SELECT f.*, p.best_label, p.best_algorithm, p.best_params,\n"
           "       p.completion_rate AS best_completion_rate,\n"
           "       p.mean_travel_distance AS best_travel_distance,\n"
           "       p.mean_completion_steps_capped AS best_completion_steps,\n"
           "       p.every_label\n"
           "FROM features AS f JOIN portfolio_labels AS p\n"
           "  ON p.map_hash = f.map_hash AND p.generator = f.generator\n"
           " AND p.agents = f.agents AND p.instance = f.instance;\n");
  return s;
}

/* ---- map-level features ---------------------------------------------------------------------- */

static int popcount8(uint8_t b) {
  int n = 0;
  for (; b; b &= (uint8_t)(b - 1)) n++;
  return n;
}

/* Breadth-first search in moves from src over the grid's moves; returns the farthest cell and
 * its distance in *far_d. dist: ncells entries, set to -1 before. */
static int32_t bfs_far(const mapf_grid *g, int32_t src, int32_t *dist, int32_t *queue,
                       int32_t *far_d) {
  int32_t head = 0, tail = 0, far = src;
  dist[src] = 0;
  queue[tail++] = src;
  while (head < tail) {
    int32_t v = queue[head++];
    if (dist[v] > dist[far] || (dist[v] == dist[far] && v < far)) far = v;
    for (int d = 0; d < 8; d++) {
      if (!(g->moves[v] >> d & 1)) continue;
      int32_t w = v + g->offset[d];
      if (dist[w] >= 0) continue;
      dist[w] = dist[v] + 1;
      queue[tail++] = w;
    }
  }
  *far_d = dist[far];
  return far;
}

/* Articulation points and blocks (biconnected components) by Tarjan's depth-first search,
 * iterative (a 512 x 512 map is far too deep for the C stack): low[v] is the earliest discovery
 * time reachable from v's subtree by one back edge; a child w with low[w] >= disc[v] closes a
 * block at v, popped from the vertex stack. */
static int blocks(const mapf_grid *g, int32_t *articulation, int32_t *nblocks, int32_t *largest) {
  int32_t N = g->ncells;
  int32_t *disc = malloc((size_t)N * sizeof *disc), *low = malloc((size_t)N * sizeof *low);
  int32_t *parent = malloc((size_t)N * sizeof *parent), *cs = malloc((size_t)N * sizeof *cs);
  int32_t *vs = malloc((size_t)N * sizeof *vs);
  uint8_t *next = malloc((size_t)N), *art = calloc((size_t)N, 1);
  if (!disc || !low || !parent || !cs || !vs || !next || !art) {
    free(disc), free(low), free(parent), free(cs), free(vs), free(next), free(art);
    return MAPF_ENOMEM;
  }
  for (int32_t i = 0; i < N; i++) disc[i] = -1;
  int32_t timer = 0, nart = 0, nb = 0, big = 0;
  for (int32_t r = 0; r < N; r++) {
    if (!g->passable[r] || disc[r] >= 0) continue;
    int32_t top = 0, vtop = 0, root_children = 0;
    disc[r] = low[r] = timer++;
    parent[r] = -1;
    next[r] = 0;
    cs[top++] = r;
    vs[vtop++] = r;
    while (top > 0) {
      int32_t v = cs[top - 1];
      if (next[v] < 8) {
        int d = next[v]++;
        if (!(g->moves[v] >> d & 1)) continue;
        int32_t w = v + g->offset[d];
        if (disc[w] < 0) {
          parent[w] = v;
          disc[w] = low[w] = timer++;
          next[w] = 0;
          cs[top++] = w;
          vs[vtop++] = w;
          if (v == r) root_children++;
        } else if (w != parent[v] && disc[w] < low[v]) {
          low[v] = disc[w];
        }
        continue;
      }
      top--;
      if (top == 0) break;
      int32_t u = cs[top - 1];
      if (low[v] < low[u]) low[u] = low[v];
      if (low[v] >= disc[u]) { /* a block: v's part of the stack and u */
        if (u != r && !art[u]) {
          art[u] = 1;
          nart++;
        }
        int32_t size = 1;
        while (vtop > 0) {
          int32_t x = vs[--vtop];
          size++;
          if (x == v) break;
        }
        nb++;
        if (size > big) big = size;
      }
    }
    if (root_children >= 2) nart++;
  }
  *articulation = nart;
  *nblocks = nb;
  *largest = big;
  free(disc), free(low), free(parent), free(cs), free(vs), free(next), free(art);
  return MAPF_OK;
}

/* ---- algebraic connectivity ------------------------------------------------------------------ */

/* The second smallest eigenvalue of the Laplacian of the largest component (docs/selection.md,
 * "Algebraic connectivity"), multilevel: the graph is coarsened by merging the connected cells
 * of 2 x 2 blocks, again and again, to at most FL_COARSE nodes; the coarsest problem is solved
 * whole, and its eigenvector, carried to the next finer level, starts a Lanczos run of at most
 * FL_STEPS steps there, whose Ritz vector starts the next level's. Plain Lanczos from any one
 * vector needs thousands of steps on a 512 x 512 map (the eigenvalues near the bottom are
 * close together); from the coarser level's vector a few dozen suffice, as the error left is
 * mostly of high frequency, which Lanczos damps first.
 *
 * A coarse level is the Galerkin one: nodes are sets of cells, joined by the number of grid
 * edges between them, with a mass (their cells): L_c x = lambda M_c x, solved as the symmetric
 * M^-1/2 L M^-1/2, whose eigenvector of 0 is u = M^1/2 1 (normalised). Every Lanczos vector is
 * kept orthogonal to u, so the smallest Ritz value approaches the second eigenvalue from above.
 * Sums run in node order on one thread: the same value on every run. */
#define FL_COARSE 256
#define FL_STEPS 40
#define FL_STEPS_MID 40
#define FL_CHECK 5
#define FL_TOL 1e-7
#define FL_LEVELS 24
#define FEAT_PI 3.14159265358979323846

typedef struct fl_level {
  int32_t n;
  int32_t *off, *nb;  /* neighbours, compressed rows */
  double *wt;         /* edge weights; NULL: all 1 (the grid itself) */
  double *deg;        /* weighted degrees */
  double *sm;         /* 1 / sqrt(mass); NULL: all 1 */
  double *u;          /* the eigenvector of 0, unit */
  int32_t *x, *y;     /* block coordinates */
  int32_t *agg;       /* node of the next coarser level */
} fl_level;

static void fl_free(fl_level *l) {
  free(l->off), free(l->nb), free(l->wt), free(l->deg), free(l->sm), free(l->u), free(l->x);
  free(l->y), free(l->agg);
  memset(l, 0, sizeof *l);
}

static double dot(const double *x, const double *y, int32_t n) {
  double s = 0;
  for (int32_t i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

/* x -= (x . q) q for a unit q. */
static void orth(double *x, const double *q, int32_t n) {
  double r = dot(x, q, n);
  for (int32_t i = 0; i < n; i++) x[i] -= r * q[i];
}

/* w = M^-1/2 L M^-1/2 v; t: scratch. */
static void fl_apply(const fl_level *l, const double *v, double *w, double *t) {
  const double *tv = v;
  if (l->sm) {
    for (int32_t i = 0; i < l->n; i++) t[i] = v[i] * l->sm[i];
    tv = t;
  }
  for (int32_t i = 0; i < l->n; i++) {
    double s = l->deg[i] * tv[i];
    if (l->wt)
      for (int32_t e = l->off[i]; e < l->off[i + 1]; e++) s -= l->wt[e] * tv[l->nb[e]];
    else
      for (int32_t e = l->off[i]; e < l->off[i + 1]; e++) s -= tv[l->nb[e]];
    w[i] = l->sm ? s * l->sm[i] : s;
  }
}

/* Eigenvalues below x of the symmetric tridiagonal matrix of diagonal a (m entries) and
 * off-diagonal b (b[i] joins rows i - 1 and i): a Sturm count. */
static int32_t sturm_below(const double *a, const double *b, int32_t m, double x) {
  int32_t n = 0;
  double q = 1;
  for (int32_t i = 0; i < m; i++) {
    q = a[i] - x - (i ? b[i] * b[i] / q : 0.0);
    if (q == 0) q = -1e-300;
    n += q < 0;
  }
  return n;
}

/* Its smallest eigenvalue, by bisection between Gershgorin bounds. */
static double tridiag_min(const double *a, const double *b, int32_t m) {
  double lo = INFINITY, hi = -INFINITY;
  for (int32_t i = 0; i < m; i++) {
    double r = (i ? fabs(b[i]) : 0.0) + (i + 1 < m ? fabs(b[i + 1]) : 0.0);
    lo = fmin(lo, a[i] - r);
    hi = fmax(hi, a[i] + r);
  }
  for (int it = 0; it < 200; it++) {
    double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (sturm_below(a, b, m, mid) >= 1) hi = mid;
    else lo = mid;
  }
  return hi;
}

/* Its eigenvector of eigenvalue theta into s (unit): inverse iteration, each solve Gaussian
 * elimination with partial pivoting (the shift makes the matrix nearly singular, on purpose).
 * w: 4 m scratch. */
static void tridiag_vec(const double *a, const double *b, int32_t m, double theta, double *s,
                        double *w) {
  double *dl = w, *d = w + m, *du = w + 2 * m, *du2 = w + 3 * m;
  double shift = theta - 1e-10 * (fabs(theta) + 1e-300);
  for (int32_t i = 0; i < m; i++) s[i] = 1.0;
  for (int it = 0; it < 3; it++) {
    for (int32_t i = 0; i < m; i++) {
      d[i] = a[i] - shift;
      du[i] = i + 1 < m ? b[i + 1] : 0.0;
      dl[i] = i + 1 < m ? b[i + 1] : 0.0; /* below row i */
      du2[i] = 0.0;
    }
    for (int32_t i = 0; i + 1 < m; i++) {
      if (fabs(d[i]) >= fabs(dl[i])) { /* no interchange */
        double f = d[i] != 0 ? dl[i] / d[i] : 0.0;
        d[i + 1] -= f * du[i];
        s[i + 1] -= f * s[i];
      } else { /* rows i and i + 1 swap */
        double f = d[i] / dl[i], t;
        d[i] = dl[i];
        t = d[i + 1];
        d[i + 1] = du[i] - f * t;
        du[i] = t;
        du2[i] = i + 2 < m ? du[i + 1] : 0.0;
        if (i + 2 < m) du[i + 1] = -f * du2[i];
        t = s[i];
        s[i] = s[i + 1];
        s[i + 1] = t - f * s[i + 1];
      }
    }
    for (int32_t i = m - 1; i >= 0; i--) {
      double r = s[i] - (i + 1 < m ? du[i] * s[i + 1] : 0.0) -
                 (i + 2 < m ? du2[i] * s[i + 2] : 0.0);
      s[i] = r / (d[i] != 0 ? d[i] : 1e-300);
    }
    double nrm = sqrt(dot(s, s, m));
    for (int32_t i = 0; i < m; i++) s[i] /= nrm > 0 ? nrm : 1.0;
  }
}

/* Lanczos on level l from v0 (unit, orthogonal to l->u), at most maxm steps, fewer once the
 * smallest Ritz value changes by less than FL_TOL (relative) in FL_CHECK steps or the Krylov
 * space is exhausted. With q (maxm + 1 vectors of n), every vector is kept and made orthogonal
 * to all before (full reorthogonalisation), and the Ritz vector of the smallest Ritz value is
 * written into vec; without, only the last two are kept (vp, v). Returns the smallest Ritz
 * value. Scratch: w, t (n), ab (2 maxm + 1), tw (5 maxm). */
static double fl_lanczos(const fl_level *l, const double *v0, int32_t maxm, double *q,
                         double *vec, double *vp, double *v, double *w, double *t, double *ab,
                         double *tw) {
  int32_t n = l->n;
  double *a = ab, *b = ab + maxm, last = INFINITY;
  double *cur = q ? q : v, *prev = q ? NULL : vp;
  memcpy(cur, v0, (size_t)n * sizeof *cur);
  if (prev) memset(prev, 0, (size_t)n * sizeof *prev);
  int32_t m = 0;
  b[0] = 0;
  while (m < maxm) {
    fl_apply(l, cur, w, t);
    a[m] = dot(w, cur, n);
    for (int32_t i = 0; i < n; i++) w[i] -= a[m] * cur[i] + (m ? b[m] * prev[i] : 0.0);
    /* Rounding brings back u (whose eigenvalue 0 would in time be found) and the last
     * vectors: take them out again. */
    orth(w, l->u, n);
    if (q)
      for (int32_t k = 0; k <= m; k++) orth(w, q + (size_t)k * n, n);
    else
      orth(w, cur, n);
    m++;
    b[m] = sqrt(dot(w, w, n));
    int done = b[m] <= 1e-10 * (fabs(a[m - 1]) + b[m - 1]) || m == maxm;
    if (done || m % FL_CHECK == 0) {
      double theta = tridiag_min(a, b, m);
      if (last - theta <= FL_TOL * theta) done = 1;
      last = theta;
    }
    if (done) break;
    double *next = q ? q + (size_t)m * n : prev; /* without q, prev's place is free now */
    for (int32_t i = 0; i < n; i++) next[i] = w[i] / b[m];
    prev = cur;
    cur = next;
  }
  if (vec) {
    double *s = tw;
    tridiag_vec(a, b, m, last, s, tw + maxm);
    memset(vec, 0, (size_t)n * sizeof *vec);
    for (int32_t k = 0; k < m; k++)
      for (int32_t i = 0; i < n; i++) vec[i] += s[k] * q[(size_t)k * n + i];
  }
  return last;
}

static int32_t uf_find(int32_t *p, int32_t i) {
  while (p[i] != i) i = p[i] = p[p[i]];
  return i;
}

/* The next coarser level of f into c, and f->agg: the connected nodes of each 2 x 2 block of
 * f's coordinates merged (union-find over the edges inside a block; a set is numbered by its
 * first node), joined by the summed weights of the edges between them. Returns MAPF_OK or
 * MAPF_ENOMEM. */
static int fl_coarsen(fl_level *f, fl_level *c) {
  int32_t n = f->n;
  memset(c, 0, sizeof *c);
  int32_t *p = malloc((size_t)n * sizeof *p), *first = NULL, *member = NULL, *mark = NULL;
  int32_t *slot = NULL;
  double *mass = NULL;
  f->agg = malloc((size_t)n * sizeof *f->agg);
  if (!p || !f->agg) goto oom;
  for (int32_t i = 0; i < n; i++) p[i] = i;
  for (int32_t i = 0; i < n; i++)
    for (int32_t e = f->off[i]; e < f->off[i + 1]; e++) {
      int32_t j = f->nb[e];
      if (j <= i || f->x[i] >> 1 != f->x[j] >> 1 || f->y[i] >> 1 != f->y[j] >> 1) continue;
      int32_t a = uf_find(p, i), b = uf_find(p, j);
      if (a < b) p[b] = a;
      else if (b < a) p[a] = b;
    }
  int32_t nc = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t r = uf_find(p, i);
    f->agg[i] = r == i ? nc++ : f->agg[r]; /* r <= i: numbered already */
  }
  c->n = nc;
  c->off = malloc((size_t)(nc + 1) * sizeof *c->off);
  c->x = malloc((size_t)nc * sizeof *c->x);
  c->y = malloc((size_t)nc * sizeof *c->y);
  c->deg = calloc((size_t)nc, sizeof *c->deg);
  c->sm = malloc((size_t)nc * sizeof *c->sm);
  c->u = malloc((size_t)nc * sizeof *c->u);
  mass = calloc((size_t)nc, sizeof *mass);
  first = calloc((size_t)nc + 1, sizeof *first);
  member = malloc((size_t)n * sizeof *member);
  mark = malloc((size_t)nc * sizeof *mark);
  slot = malloc((size_t)nc * sizeof *slot);
  c->nb = malloc((size_t)(f->off[n] > 0 ? f->off[n] : 1) * sizeof *c->nb);
  c->wt = malloc((size_t)(f->off[n] > 0 ? f->off[n] : 1) * sizeof *c->wt);
  if (!c->off || !c->x || !c->y || !c->deg || !c->sm || !c->u || !mass || !first || !member ||
      !mark || !slot || !c->nb || !c->wt)
    goto oom;
  /* Members of each coarse node, in node order (a counting sort). */
  for (int32_t i = 0; i < n; i++) first[f->agg[i] + 1]++;
  for (int32_t k = 0; k < nc; k++) first[k + 1] += first[k];
  for (int32_t i = 0; i < n; i++) member[first[f->agg[i]]++] = i;
  for (int32_t k = nc; k > 0; k--) first[k] = first[k - 1];
  first[0] = 0;
  for (int32_t k = 0; k < nc; k++) mark[k] = -1;
  int32_t ne = 0;
  double total = 0;
  for (int32_t k = 0; k < nc; k++) {
    c->off[k] = ne;
    for (int32_t mi = first[k]; mi < first[k + 1]; mi++) {
      int32_t i = member[mi];
      c->x[k] = f->x[i] >> 1;
      c->y[k] = f->y[i] >> 1;
      mass[k] += f->sm ? 1.0 / (f->sm[i] * f->sm[i]) : 1.0;
      for (int32_t e = f->off[i]; e < f->off[i + 1]; e++) {
        int32_t j = f->agg[f->nb[e]];
        if (j == k) continue;
        double wgt = f->wt ? f->wt[e] : 1.0;
        if (mark[j] != k) {
          mark[j] = k;
          slot[j] = ne;
          c->nb[ne] = j;
          c->wt[ne++] = 0;
        }
        c->wt[slot[j]] += wgt;
        c->deg[k] += wgt;
      }
    }
    total += mass[k];
  }
  c->off[nc] = ne;
  for (int32_t k = 0; k < nc; k++) {
    c->sm[k] = 1.0 / sqrt(mass[k]);
    c->u[k] = sqrt(mass[k] / total);
  }
  free(p), free(first), free(member), free(mark), free(slot), free(mass);
  return MAPF_OK;
oom:
  free(p), free(first), free(member), free(mark), free(slot), free(mass);
  fl_free(c);
  return MAPF_ENOMEM;
}

/* The second smallest eigenvalue of the Laplacian (degree minus adjacency, the grid's moves as
 * edges) of component lc of g, into *lambda.
 * Returns MAPF_OK or MAPF_ENOMEM. */
static int fiedler(const mapf_grid *g, int32_t lc, double *lambda) {
  *lambda = 0;
  int32_t n = g->component_size[lc], N = g->ncells;
  if (n < 2) return MAPF_OK;
  fl_level lv[FL_LEVELS];
  memset(lv, 0, sizeof lv);
  int32_t nl = 1, maxn = n;
  int rc = MAPF_ENOMEM;
  double *buf = NULL, *q = NULL;
  int32_t *idx = malloc((size_t)N * sizeof *idx);
  fl_level *l0 = &lv[0];
  l0->n = n;
  l0->off = malloc((size_t)(n + 1) * sizeof *l0->off);
  l0->nb = malloc((size_t)n * 8 * sizeof *l0->nb);
  l0->deg = malloc((size_t)n * sizeof *l0->deg);
  l0->u = malloc((size_t)n * sizeof *l0->u);
  l0->x = malloc((size_t)n * sizeof *l0->x);
  l0->y = malloc((size_t)n * sizeof *l0->y);
  if (!idx || !l0->off || !l0->nb || !l0->deg || !l0->u || !l0->x || !l0->y) goto out;
  int32_t k = 0;
  for (int32_t c = 0; c < N; c++) idx[c] = g->component[c] == lc ? k++ : -1;
  l0->off[0] = 0;
  for (int32_t c = 0, i = 0; c < N; c++) {
    if (idx[c] < 0) continue;
    int32_t e = l0->off[i];
    for (int d = 0; d < 8; d++)
      if (g->moves[c] >> d & 1) l0->nb[e++] = idx[c + g->offset[d]];
    l0->off[i + 1] = e;
    l0->deg[i] = e - l0->off[i];
    l0->u[i] = 1.0 / sqrt((double)n);
    l0->x[i] = c % g->width;
    l0->y[i] = c / g->width;
    i++;
  }
  while (lv[nl - 1].n > FL_COARSE && nl < FL_LEVELS) {
    if (fl_coarsen(&lv[nl - 1], &lv[nl]) != MAPF_OK) goto out;
    nl++;
  }
  /* Scratch: start, vec, vp, v, w, t (maxn each), the tridiagonal (2 FL_STEPS + 1 or the
   * coarsest's) and its solver's (5 of them), and the kept vectors of a level above the grid. */
  int32_t nc = lv[nl - 1].n, mc = FL_STEPS > FL_STEPS_MID ? FL_STEPS : FL_STEPS_MID;
  if (nc - 1 > mc) mc = nc - 1;
  int32_t nq = nl > 1 ? lv[1].n : nc;
  size_t qn = nl > 1 ? (size_t)(FL_STEPS_MID + 1) * (size_t)nq : (size_t)(mc + 1) * (size_t)nc;
  if ((size_t)(mc + 1) * (size_t)nc > qn) qn = (size_t)(mc + 1) * (size_t)nc;
  buf = malloc(((size_t)maxn * 6 + (size_t)mc * 7 + 1) * sizeof *buf);
  q = malloc(qn * sizeof *q);
  if (!buf || !q) goto out;
  double *start = buf, *vec = buf + maxn, *vp = vec + maxn, *v = vp + maxn, *w = v + maxn;
  double *t = w + maxn, *ab = t + maxn, *tw = ab + 2 * mc + 1;
  /* The coarsest level whole (its every dimension but u's), from a seeded random vector. */
  const fl_level *lc0 = &lv[nl - 1];
  mapf_rng rng;
  mapf_rng_seed(&rng, 0x46696564ULL);
  for (int32_t i = 0; i < lc0->n; i++) start[i] = mapf_rng_double(&rng) - 0.5;
  orth(start, lc0->u, lc0->n);
  double nrm = sqrt(dot(start, start, lc0->n));
  for (int32_t i = 0; i < lc0->n; i++) start[i] /= nrm;
  double theta = fl_lanczos(lc0, start, lc0->n - 1, q, nl > 1 ? vec : NULL, vp, v, w, t, ab, tw);
  /* Then each finer level from the coarser one's vector: x = M^-1/2 y carried to the members,
   * y = M^1/2 x there. */
  for (int32_t L = nl - 2; L >= 0; L--) {
    const fl_level *f = &lv[L], *c = &lv[L + 1];
    for (int32_t i = 0; i < f->n; i++) {
      int32_t a = f->agg[i];
      double x = vec[a] * c->sm[a];
      start[i] = f->sm ? x / f->sm[i] : x;
    }
    orth(start, f->u, f->n);
    nrm = sqrt(dot(start, start, f->n));
    for (int32_t i = 0; i < f->n; i++) start[i] /= nrm > 0 ? nrm : 1.0;
    int32_t most = L > 0 ? FL_STEPS_MID : FL_STEPS;
    int32_t maxm = f->n - 1 < most ? f->n - 1 : most;
    theta = fl_lanczos(f, start, maxm, L > 0 ? q : NULL, L > 0 ? vec : NULL, vp, v, w, t, ab,
                       tw);
  }
  *lambda = theta;
  rc = MAPF_OK;
out:
  for (int32_t L = 0; L < FL_LEVELS; L++) fl_free(&lv[L]);
  free(idx), free(buf), free(q);
  return rc;
}

int farm_features_map(const mapf_grid *g, double *out) {
  int32_t W = g->width, H = g->height, N = g->ncells;
  double P = g->npassable > 0 ? (double)g->npassable : 1.0;
  int64_t corridor = 0, dead = 0, hist[4] = {0, 0, 0, 0}, moves = 0;
  for (int32_t c = 0; c < N; c++) {
    if (!g->passable[c]) continue;
    int32_t x = c % W, y = c / W, card = 0;
    card += x > 0 && g->passable[c - 1];
    card += x + 1 < W && g->passable[c + 1];
    card += y > 0 && g->passable[c - W];
    card += y + 1 < H && g->passable[c + W];
    corridor += card == 2;
    dead += card == 1;
    int m = popcount8(g->moves[c]);
    moves += m;
    hist[m <= 2 ? 0 : m <= 5 ? 1 : m <= 7 ? 2 : 3]++;
  }
  int32_t largest = 0, lc = -1;
  for (int32_t i = 0; i < g->ncomponents; i++)
    if (g->component_size[i] > largest) largest = g->component_size[lc = i];
  int32_t nart = 0, nblocks = 0, big = 0;
  if (blocks(g, &nart, &nblocks, &big) != MAPF_OK) return MAPF_ENOMEM;
  /* The diameter of the largest component by a double sweep: the farthest cell from any cell,
   * then the farthest from that one (exact on trees, a lower bound elsewhere). */
  int32_t diameter = 0;
  double lambda = 0;
  if (lc >= 0) {
    int32_t *dist = malloc((size_t)N * sizeof *dist), *queue = malloc((size_t)N * sizeof *queue);
    if (!dist || !queue) {
      free(dist), free(queue);
      return MAPF_ENOMEM;
    }
    int32_t src = -1;
    for (int32_t c = 0; c < N && src < 0; c++)
      if (g->component[c] == lc) src = c;
    for (int32_t i = 0; i < N; i++) dist[i] = -1;
    int32_t d0, d1;
    int32_t u = bfs_far(g, src, dist, queue, &d0);
    for (int32_t i = 0; i < N; i++) dist[i] = -1;
    bfs_far(g, u, dist, queue, &d1);
    diameter = d1;
    free(dist), free(queue);
    if (fiedler(g, lc, &lambda) != MAPF_OK) return MAPF_ENOMEM;
  }
  out[F_WIDTH] = W;
  out[F_HEIGHT] = H;
  out[F_PASSABLE] = g->npassable;
  out[F_OBSTACLES] = N > 0 ? 1.0 - (double)g->npassable / (double)N : 0.0;
  out[F_COMPONENTS] = g->ncomponents;
  out[F_LARGEST_COMPONENT] = largest / P;
  out[F_CORRIDOR] = (double)corridor / P;
  out[F_DEAD_END] = (double)dead / P;
  out[F_MOVES_LE2] = (double)hist[0] / P;
  out[F_MOVES_3_5] = (double)hist[1] / P;
  out[F_MOVES_6_7] = (double)hist[2] / P;
  out[F_MOVES_8] = (double)hist[3] / P;
  out[F_MEAN_MOVES] = (double)moves / P;
  out[F_ARTICULATION] = nart / P;
  out[F_BLOCKS] = nblocks;
  out[F_LARGEST_BLOCK] = big / P;
  out[F_DIAMETER] = diameter;
  out[F_WINDING] = (double)diameter / (double)(W > H ? W : H);
  out[F_FIEDLER] = lambda;
  out[F_FIEDLER_SCALED] = lambda * diameter * diameter / (FEAT_PI * FEAT_PI);
  return MAPF_OK;
}

/* ---- instance-level features ----------------------------------------------------------------- */

struct farm_feat_ws {
  mapf_moves_search *search;
  int32_t cap;          /* cells the arrays below hold */
  int32_t *use;         /* per cell: shortest paths through it (0 outside the touched list) */
  int32_t *touched;     /* cells with use > 0 */
  uint32_t *mark_s, *mark_g; /* per cell: the stamp of the instance whose start / goal it is */
  uint32_t stamp;
  int32_t *path;        /* one path (cap cells) */
  int32_t *path_off;    /* per agent: where its path starts in paths */
  int32_t *paths;       /* every agent's path, one after another */
  int64_t paths_cap;
  int32_t agents_cap;
};

farm_feat_ws *farm_feat_ws_new(void) {
  farm_feat_ws *ws = calloc(1, sizeof *ws);
  if (ws && !(ws->search = mapf_moves_search_new())) {
    free(ws);
    return NULL;
  }
  return ws;
}

void farm_feat_ws_free(farm_feat_ws *ws) {
  if (!ws) return;
  mapf_moves_search_free(ws->search);
  free(ws->use), free(ws->touched), free(ws->mark_s), free(ws->mark_g), free(ws->path);
  free(ws->path_off), free(ws->paths);
  free(ws);
}

static int ws_reserve(farm_feat_ws *ws, int32_t cells, int32_t agents) {
  if (cells > ws->cap) {
    free(ws->use), free(ws->touched), free(ws->mark_s), free(ws->mark_g), free(ws->path);
    ws->use = calloc((size_t)cells, sizeof *ws->use);
    ws->touched = malloc((size_t)cells * sizeof *ws->touched);
    ws->mark_s = calloc((size_t)cells, sizeof *ws->mark_s);
    ws->mark_g = calloc((size_t)cells, sizeof *ws->mark_g);
    ws->path = malloc((size_t)cells * sizeof *ws->path);
    ws->stamp = 0;
    ws->cap = 0;
    if (!ws->use || !ws->touched || !ws->mark_s || !ws->mark_g || !ws->path) return MAPF_ENOMEM;
    ws->cap = cells;
  }
  if (agents + 1 > ws->agents_cap) {
    free(ws->path_off);
    ws->agents_cap = 0;
    if (!(ws->path_off = malloc((size_t)(agents + 1) * sizeof *ws->path_off))) return MAPF_ENOMEM;
    ws->agents_cap = agents + 1;
  }
  return MAPF_OK;
}

static int paths_reserve(farm_feat_ws *ws, int64_t n) {
  if (n <= ws->paths_cap) return MAPF_OK;
  int64_t c = ws->paths_cap ? ws->paths_cap : 4096;
  while (c < n) c *= 2;
  int32_t *p = realloc(ws->paths, (size_t)c * sizeof *p);
  if (!p) return MAPF_ENOMEM;
  ws->paths = p;
  ws->paths_cap = c;
  return MAPF_OK;
}

/* Agents' starts (or goals) among the 8 neighbours of c, by stamp. */
static int32_t marked_around(const mapf_grid *g, const uint32_t *mark, uint32_t stamp, int32_t c) {
  int32_t x = c % g->width, y = c / g->width, n = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      if ((!dx && !dy) || !mapf_grid_in(g, x + dx, y + dy)) continue;
      n += mark[c + dy * g->width + dx] == stamp;
    }
  return n;
}

/* The coordinate bound on the moves from a to b: Chebyshev under 8 moves, Manhattan under 4
 * (the search's own heuristic before the landmarks'). */
static double moves_h(const mapf_grid *g, int32_t a, int32_t b) {
  int32_t dx = abs(mapf_grid_x(g, a) - mapf_grid_x(g, b));
  int32_t dy = abs(mapf_grid_y(g, a) - mapf_grid_y(g, b));
  return g->connectivity == 4 ? dx + dy : dx > dy ? dx : dy;
}

/* RMS distance of the cells of ids (n) from their centroid. */
static double spread(const mapf_grid *g, const int32_t *ids, int32_t n) {
  double sx = 0, sy = 0, ss = 0;
  for (int32_t i = 0; i < n; i++) {
    sx += mapf_grid_x(g, ids[i]);
    sy += mapf_grid_y(g, ids[i]);
  }
  double cx = sx / n, cy = sy / n;
  for (int32_t i = 0; i < n; i++) {
    double dx = mapf_grid_x(g, ids[i]) - cx, dy = mapf_grid_y(g, ids[i]) - cy;
    ss += dx * dx + dy * dy;
  }
  return sqrt(ss / n);
}

mapf_landmarks *farm_features_landmarks(const mapf_grid *g) {
  int32_t k = FARM_FEATURES_LANDMARKS;
  while (k > 1 && (size_t)g->ncells * (size_t)k * sizeof(uint16_t) > MAPF_LANDMARK_BYTES) k /= 2;
  return mapf_landmarks_new(g, k);
}

int farm_features_instance(const mapf_grid *g, const mapf_landmarks *lm,
                           const mapf_instance *inst, farm_feat_ws *ws, double *out,
                           mapf_diag *d) {
  int32_t n = inst->n;
  if (!lm || lm->ncells != g->ncells) {
    if (d) {
      memset(d, 0, sizeof *d);
      snprintf(d->msg, sizeof d->msg, "the features of an instance need its map's landmarks");
    }
    return MAPF_EINVAL;
  }
  for (int k = F_AGENTS; k < F_N; k++) out[k] = 0.0;
  out[F_AGENTS] = n;
  out[F_DENSITY] = g->npassable > 0 ? (double)n / g->npassable : 0.0;
  if (n == 0) return MAPF_OK;
  if (ws_reserve(ws, g->ncells, n) != MAPF_OK) return MAPF_ENOMEM;
  for (int32_t i = 0; i < n; i++) {
    int32_t s = inst->start[i], t = inst->goal[i];
    if (s < 0 || s >= g->ncells || t < 0 || t >= g->ncells || !g->passable[s] ||
        !g->passable[t]) {
      if (d) {
        memset(d, 0, sizeof *d);
        snprintf(d->msg, sizeof d->msg, "agent %d: start or goal is not a passable cell of %s",
                 (int)i, g->name ? g->name : "the map");
      }
      return MAPF_EINVAL;
    }
  }
  if (++ws->stamp == 0) { /* wrapped: clear the marks once in 2^32 instances */
    memset(ws->mark_s, 0, (size_t)ws->cap * sizeof *ws->mark_s);
    memset(ws->mark_g, 0, (size_t)ws->cap * sizeof *ws->mark_g);
    ws->stamp = 1;
  }
  uint32_t st = ws->stamp;
  for (int32_t i = 0; i < n; i++) {
    ws->mark_s[inst->start[i]] = st;
    ws->mark_g[inst->goal[i]] = st;
  }
  /* Shortest paths of a sample of the agents (every agent up to FARM_FEATURES_PATHS, then
   * FARM_FEATURES_PATHS of them evenly spaced by index: a fixed rule, so the same instance always
   * gives the same sample), in index order, so that the sums add in one order on any thread. */
  int32_t k_paths = n < FARM_FEATURES_PATHS ? n : FARM_FEATURES_PATHS;
  double sum = 0, sumsq = 0, dmin = INFINITY, dmax = 0, detour = 0, hsum = 0;
  int32_t ndetour = 0, ntouched = 0;
  int64_t total = 0;
  for (int32_t i = 0; i < n; i++) hsum += moves_h(g, inst->start[i], inst->goal[i]);
  for (int32_t j = 0; j < k_paths; j++) {
    int32_t i = (int32_t)((int64_t)j * n / k_paths);
    int32_t s = inst->start[i], t = inst->goal[i], len = ws->cap;
    ws->path_off[j] = (int32_t)total;
    int64_t moves = mapf_shortest_moves(ws->search, g, lm, s, t, ws->path, &len, NULL);
    if (moves == -2) return MAPF_ENOMEM;
    double cost = moves >= 0 ? (double)moves : 0.0;
    if (moves < 0) len = 0; /* another component: no path (the generators never make one) */
    sum += cost;
    sumsq += cost * cost;
    if (cost < dmin) dmin = cost;
    if (cost > dmax) dmax = cost;
    double h = moves_h(g, s, t);
    if (moves >= 0 && h > 0) {
      detour += cost / h;
      ndetour++;
    }
    if (paths_reserve(ws, total + len) != MAPF_OK) return MAPF_ENOMEM;
    for (int32_t k = 0; k < len; k++) {
      int32_t c = ws->path[k];
      ws->paths[total + k] = c;
      if (ws->use[c]++ == 0) ws->touched[ntouched++] = c;
    }
    total += len;
  }
  ws->path_off[k_paths] = (int32_t)total;
  double mean = sum / k_paths;
  out[F_DIST_MEAN] = mean;
  out[F_DIST_SD] =
      k_paths > 1 ? sqrt(fmax(0.0, (sumsq - k_paths * mean * mean) / (k_paths - 1))) : 0.0;
  out[F_DIST_MIN] = dmin;
  out[F_DIST_MAX] = dmax;
  out[F_DIST_RATIO] = out[F_DIAMETER] > 0 ? mean / out[F_DIAMETER] : 0.0;
  out[F_DETOUR] = ndetour ? detour / ndetour : 1.0;
  out[F_H_MEAN] = hsum / n;
  int64_t shared = 0, use_max = 0;
  for (int32_t k = 0; k < ntouched; k++) {
    int32_t u = ws->use[ws->touched[k]];
    shared += u >= 2;
    if (u > use_max) use_max = u;
  }
  double P = g->npassable > 0 ? (double)g->npassable : 1.0;
  out[F_USE_MEAN] = ntouched ? (double)total / ntouched : 0.0;
  out[F_USE_MAX] = (double)use_max;
  out[F_SHARED] = ntouched ? (double)shared / ntouched : 0.0;
  out[F_COVERAGE] = ntouched / P;
  out[F_LOAD] = (double)total * n / k_paths / P;
  double peak = 0;
  for (int32_t j = 0; j < k_paths; j++) {
    int32_t m = 0;
    for (int32_t k = ws->path_off[j]; k < ws->path_off[j + 1]; k++)
      if (ws->use[ws->paths[k]] > m) m = ws->use[ws->paths[k]];
    peak += (double)m / k_paths;
  }
  out[F_PATH_PEAK] = peak / k_paths;
  for (int32_t k = 0; k < ntouched; k++) ws->use[ws->touched[k]] = 0;
  /* Crowding, spread and headings. */
  double cs = 0, cg = 0, hx = 0, hy = 0;
  int32_t on_start = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t s = inst->start[i], t = inst->goal[i];
    cs += marked_around(g, ws->mark_s, st, s) / 8.0;
    cg += marked_around(g, ws->mark_g, st, t) / 8.0;
    double dx = mapf_grid_x(g, t) - mapf_grid_x(g, s), dy = mapf_grid_y(g, t) - mapf_grid_y(g, s);
    double len = sqrt(dx * dx + dy * dy);
    if (len > 0) {
      hx += dx / len;
      hy += dy / len;
    }
    on_start += ws->mark_s[t] == st && t != s;
  }
  double side = g->width > g->height ? g->width : g->height;
  out[F_START_CROWD] = cs / n;
  out[F_GOAL_CROWD] = cg / n;
  out[F_START_SPREAD] = spread(g, inst->start, n) / side;
  out[F_GOAL_SPREAD] = spread(g, inst->goal, n) / side;
  out[F_HEADING] = sqrt(hx * hx + hy * hy) / n;
  out[F_GOAL_ON_START] = (double)on_start / n;
  return MAPF_OK;
}

/* ---- the features of a database --------------------------------------------------------------- */

/* CPU time of the calling thread: what the summary reports beside wall time, which on a shared
 * machine says more about the load than about the work. */
static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One plan recorded in runs, loaded once for all its runs' jobs. */
typedef struct fb_plan {
  char *hash;
  farm_plan *plan;
  farm_space sp;
  int ok;
  char why[600]; /* why it could not be loaded */
} fb_plan;

typedef struct fb_inst {
  char map_hash[17], job_key[33];
  char *generator, *map_name;
  int32_t agents, instance;
  int64_t run_id, plan_index;
  int32_t plan;        /* index into the plans */
  int32_t map;         /* index into the distinct maps */
  farm_job job;
} fb_inst;

typedef struct fb_ctx {
  sqlite3 *db;
  fb_plan *plans;
  int32_t nplans;
  fb_inst *inst;
  int64_t n;
  const mapf_grid **maps;
  int32_t nmaps;
} fb_ctx;

static void fb_free(fb_ctx *c) {
  for (int32_t i = 0; i < c->nplans; i++) {
    free(c->plans[i].hash);
    if (c->plans[i].ok) farm_space_free(&c->plans[i].sp);
    farm_plan_free(c->plans[i].plan);
  }
  free(c->plans);
  for (int64_t i = 0; i < c->n; i++) {
    free(c->inst[i].generator);
    free(c->inst[i].map_name);
  }
  free(c->inst);
  free(c->maps);
}

static char *col_dup(sqlite3_stmt *s, int i) {
  const unsigned char *t = sqlite3_column_text(s, i);
  return strdup(t ? (const char *)t : "");
}

/* The plan of run run_id, loaded on first use (one load per distinct plan). Returns its index,
 * or -1 with err. */
static int32_t fb_plan_of(fb_ctx *c, int64_t run_id, const farm_plan_opts *maps, mapf_diag *err) {
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(c->db, "SELECT plan_hash, plan_text, plan_path FROM runs WHERE run_id = ?1",
                         -1, &s, NULL) != SQLITE_OK) {
    farm_err(err, "cannot read the runs: %s", sqlite3_errmsg(c->db));
    return -1;
  }
  sqlite3_bind_int64(s, 1, run_id);
  if (sqlite3_step(s) != SQLITE_ROW || sqlite3_column_type(s, 1) == SQLITE_NULL) {
    sqlite3_finalize(s);
    farm_err(err, "run %" PRId64 " kept no plan text to rebuild its instances from", run_id);
    return -1;
  }
  const char *hash = (const char *)sqlite3_column_text(s, 0);
  for (int32_t i = 0; i < c->nplans; i++)
    if (strcmp(c->plans[i].hash, hash ? hash : "") == 0) {
      sqlite3_finalize(s);
      return i;
    }
  fb_plan *np = realloc(c->plans, (size_t)(c->nplans + 1) * sizeof *np);
  if (!np) {
    sqlite3_finalize(s);
    farm_err(err, "out of memory");
    return -1;
  }
  c->plans = np;
  fb_plan *p = &c->plans[c->nplans++];
  memset(p, 0, sizeof *p);
  p->hash = strdup(hash ? hash : "");
  const char *path = (const char *)sqlite3_column_text(s, 2);
  farm_diags ds = {0};
  int rc = farm_plan_parse((const char *)sqlite3_column_text(s, 1),
                           (size_t)sqlite3_column_bytes(s, 1), path ? path : "plan.yaml", maps,
                           &p->plan, &ds);
  sqlite3_finalize(s);
  if (rc == MAPF_OK) {
    rc = farm_space_init(&p->sp, p->plan, &ds);
    if (rc == MAPF_OK && ds.n == 0) p->ok = 1;
    else farm_space_free(&p->sp);
  }
  if (!p->ok) {
    if (ds.n) mapf_diag_format(&ds.items[0], p->why, sizeof p->why);
    else snprintf(p->why, sizeof p->why, "%s", mapf_strerror(rc));
  }
  farm_diags_free(&ds);
  return c->nplans - 1;
}

/* The instances of the database (one job of each: the first stored), each rebuilt as a job of
 * its run's plan. */
static int fb_read(fb_ctx *c, const farm_plan_opts *maps, mapf_diag *err) {
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(c->db,
                         "SELECT map_hash, generator, agents, instance, map, run_id, plan_index, "
                         "job_key FROM results WHERE id IN (SELECT min(id) FROM results GROUP BY "
                         "map_hash, generator, agents, instance) ORDER BY map_hash, generator, "
                         "agents, instance",
                         -1, &s, NULL) != SQLITE_OK)
    return farm_err(err, "cannot read the results: %s", sqlite3_errmsg(c->db));
  int64_t cap = 0;
  int rc, oom = 0;
  while (!oom && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (c->n == cap) {
      int64_t nc = cap ? 2 * cap : 256;
      fb_inst *ni = realloc(c->inst, (size_t)nc * sizeof *ni);
      if (!ni) {
        oom = 1;
        break;
      }
      c->inst = ni;
      cap = nc;
    }
    fb_inst *r = &c->inst[c->n++];
    memset(r, 0, sizeof *r);
    const char *h = (const char *)sqlite3_column_text(s, 0), *k = (const char *)sqlite3_column_text(s, 7);
    snprintf(r->map_hash, sizeof r->map_hash, "%s", h ? h : "");
    snprintf(r->job_key, sizeof r->job_key, "%s", k ? k : "");
    r->generator = col_dup(s, 1);
    r->map_name = col_dup(s, 4);
    r->agents = sqlite3_column_int(s, 2);
    r->instance = sqlite3_column_int(s, 3);
    r->run_id = sqlite3_column_int64(s, 5);
    r->plan_index = sqlite3_column_int64(s, 6);
    oom = !r->generator || !r->map_name;
  }
  sqlite3_finalize(s);
  if (oom) return farm_err(err, "out of memory");
  if (rc != SQLITE_DONE) return farm_err(err, "cannot read the results: %s", sqlite3_errmsg(c->db));
  if (c->n == 0) return farm_err(err, "the database holds no results: no instance to describe");
  for (int64_t i = 0; i < c->n; i++) {
    fb_inst *r = &c->inst[i];
    int32_t p = fb_plan_of(c, r->run_id, maps, err);
    if (p < 0) return -1;
    fb_plan *pl = &c->plans[p];
    if (!pl->ok)
      return farm_err(err,
                      "instance (%s, %s, %d agents, instance %d): the plan of run %" PRId64
                      " cannot be rebuilt: %s (give the maps' directory with --maps DIR)",
                      r->map_name, r->generator, (int)r->agents, (int)r->instance, r->run_id,
                      pl->why);
    int found = r->plan_index >= 0 && r->plan_index < pl->sp.njobs;
    if (found) {
      farm_space_job(&pl->sp, r->plan_index, &r->job);
      found = strcmp(r->job.key_hex, r->job_key) == 0;
    }
    if (!found)
      return farm_err(err,
                      "instance (%s, %s, %d agents, instance %d): the plan of run %" PRId64
                      " gives another job at place %" PRId64
                      " (is map %s still the map of content hash %s?)",
                      r->map_name, r->generator, (int)r->agents, (int)r->instance, r->run_id,
                      r->plan_index, r->map_name, r->map_hash);
    r->plan = p;
    const mapf_grid *g = pl->sp.grids[r->job.map];
    int32_t m = 0;
    while (m < c->nmaps && (c->maps[m]->hash != g->hash ||
                            c->maps[m]->connectivity != g->connectivity))
      m++;
    if (m == c->nmaps) {
      const mapf_grid **nm = realloc(c->maps, (size_t)(c->nmaps + 1) * sizeof *nm);
      if (!nm) return farm_err(err, "out of memory");
      c->maps = nm;
      c->maps[c->nmaps++] = g;
    }
    r->map = m;
  }
  return 0;
}

/* Writes the rows in one transaction on a connection opened for writing. */
static int fb_write(sqlite3 *db, const fb_ctx *c, const double *value, mapf_diag *err) {
  char *ddl = farm_features_ddl();
  size_t cap = 1024 + (size_t)F_N * 48, len = 0;
  char *ins = malloc(cap);
  if (!ddl || !ins) {
    free(ddl), free(ins);
    return farm_err(err, "out of memory");
  }
  len += (size_t)snprintf(ins, cap, "INSERT INTO features (map_hash, generator, agents, instance, "
                                    "map, problem_type, version");
  for (int32_t k = 0; k < F_N; k++)
    len += (size_t)snprintf(ins + len, cap - len, ", %s", farm_feature_columns[k].name);
  len += (size_t)snprintf(ins + len, cap - len, ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7");
  for (int32_t k = 0; k < F_N; k++) len += (size_t)snprintf(ins + len, cap - len, ", ?%d", 8 + k);
  snprintf(ins + len, cap - len, ")");
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  /* Made again rather than emptied: a table of an older mapfarm may have other columns. */
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(db, "DROP VIEW IF EXISTS feature_labels; DROP TABLE IF EXISTS features",
                      NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, ddl, NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, ins, -1, &s, NULL);
  for (int64_t i = 0; rc == SQLITE_OK && i < c->n; i++) {
    const fb_inst *r = &c->inst[i];
    char type[128];
    farm_problem_type(r->generator, type, sizeof type);
    sqlite3_bind_text(s, 1, r->map_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, r->generator, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 3, r->agents);
    sqlite3_bind_int(s, 4, r->instance);
    sqlite3_bind_text(s, 5, r->map_name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, type, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(s, 7, FARM_FEATURES_VERSION);
    for (int32_t k = 0; k < F_N; k++) sqlite3_bind_double(s, 8 + k, value[i * F_N + k]);
    rc = sqlite3_step(s);
    rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  if (rc != SQLITE_OK) {
    farm_err(err, "cannot write the features table: %s", sqlite3_errmsg(db));
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  }
  free(ddl);
  free(ins);
  return rc == SQLITE_OK ? 0 : -1;
}

int farm_features_build(const char *path, const farm_features_opts *o,
                        farm_features_summary *sum, mapf_diag *err) {
  memset(sum, 0, sizeof *sum);
  farm_store *st = NULL;
  if (farm_store_open(path, FARM_STORE_READONLY, &st, err) < 0) return -1;
  fb_ctx c;
  memset(&c, 0, sizeof c);
  c.db = farm_store_db(st);
  /* One read transaction: a run writing the file meanwhile is seen as one snapshot. */
  int own = sqlite3_exec(c.db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
  int rc = fb_read(&c, &o->maps, err);
  if (own) sqlite3_exec(c.db, "COMMIT", NULL, NULL, NULL);
  farm_store_close(st);
  double *mapv = NULL, *value = NULL;
  if (rc == 0) {
    mapv = calloc((size_t)c.nmaps * F_N, sizeof *mapv);
    value = calloc((size_t)c.n * F_N, sizeof *value);
    if (!mapv || !value) rc = farm_err(err, "out of memory");
  }
  int threads = o->threads > 0 ? o->threads : omp_get_max_threads();
  if (rc == 0) {
    /* Map-level features once per map, instance-level once per instance; each value depends
     * on its own map or instance alone, so any thread count gives the same table. */
    double t0 = omp_get_wtime();
    int bad = 0;
    double map_cpu = 0, inst_cpu = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(| : bad) \
    reduction(+ : map_cpu)
    for (int32_t m = 0; m < c.nmaps; m++) {
      double c0 = thread_cpu();
      bad |= farm_features_map(c.maps[m], &mapv[(size_t)m * F_N]) != MAPF_OK;
      map_cpu += thread_cpu() - c0;
    }
    double t1 = omp_get_wtime();
    sum->map_seconds = t1 - t0;
    if (bad) rc = farm_err(err, "out of memory");
    /* Then map by map: its landmarks (made here, so that one map's tables are held at a time),
     * and its instances over the threads. */
    int64_t *order = rc == 0 ? malloc((size_t)c.n * sizeof *order) : NULL;
    int64_t *first = rc == 0 ? calloc((size_t)c.nmaps + 1, sizeof *first) : NULL;
    farm_feat_ws **ws = rc == 0 ? calloc((size_t)threads, sizeof *ws) : NULL;
    if (rc == 0 && (!order || !first || !ws)) rc = farm_err(err, "out of memory");
    for (int t = 0; rc == 0 && t < threads; t++)
      if (!(ws[t] = farm_feat_ws_new())) rc = farm_err(err, "out of memory");
    if (rc == 0) {
      for (int64_t i = 0; i < c.n; i++) first[c.inst[i].map + 1]++;
      for (int32_t m = 0; m < c.nmaps; m++) first[m + 1] += first[m];
      for (int64_t i = 0; i < c.n; i++) order[first[c.inst[i].map]++] = i;
      for (int32_t m = c.nmaps; m > 0; m--) first[m] = first[m - 1];
      first[0] = 0;
    }
    int64_t first_bad = c.n;
    char why[sizeof err->msg] = "";
    for (int32_t m = 0; rc == 0 && m < c.nmaps; m++) {
      double c0 = thread_cpu();
      mapf_landmarks *lm = farm_features_landmarks(c.maps[m]);
      map_cpu += thread_cpu() - c0;
      if (!lm) {
        rc = farm_err(err, "out of memory");
        break;
      }
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads) reduction(+ : inst_cpu)
      for (int64_t k = first[m]; k < first[m + 1]; k++) {
        int64_t i = order[k];
        const fb_inst *r = &c.inst[i];
        double *out = &value[i * F_N];
        memcpy(out, &mapv[(size_t)r->map * F_N], F_MAP_END * sizeof *out);
        mapf_instance *inst = NULL;
        mapf_diag d;
        memset(&d, 0, sizeof d);
        int e = farm_job_instance(&c.plans[r->plan].sp, &r->job, &inst, &d);
        if (e == MAPF_OK) {
          double c1 = thread_cpu();
          e = farm_features_instance(c.maps[m], lm, inst, ws[omp_get_thread_num()], out, &d);
          inst_cpu += thread_cpu() - c1;
        }
        mapf_instance_free(inst);
        if (e != MAPF_OK) {
#pragma omp critical(farm_features_error)
          if (i < first_bad) { /* the first failure in instance order: the same on any run */
            first_bad = i;
            snprintf(why, sizeof why, "%s", d.msg[0] ? d.msg : mapf_strerror(e));
          }
        }
      }
      mapf_landmarks_free(lm);
    }
    if (rc == 0 && first_bad < c.n) {
      const fb_inst *r = &c.inst[first_bad];
      rc = farm_err(err, "instance (%s, %s, %d agents, instance %d): %s", r->map_name,
                    r->generator, (int)r->agents, (int)r->instance, why);
    }
    for (int t = 0; ws && t < threads; t++) farm_feat_ws_free(ws[t]);
    free(ws), free(order), free(first);
    sum->map_cpu_seconds = map_cpu;
    sum->instance_seconds = omp_get_wtime() - t1;
    sum->instance_cpu_seconds = inst_cpu;
  }
  if (rc == 0) {
    /* Opened for writing only now: a failure above has not touched the file. */
    double t2 = omp_get_wtime();
    if (farm_store_open(path, FARM_STORE_CREATE, &st, err) < 0) rc = -1;
    if (rc == 0) {
      rc = fb_write(farm_store_db(st), &c, value, err);
      farm_store_close(st);
    }
    sum->write_seconds = omp_get_wtime() - t2;
  }
  sum->instances = rc == 0 ? c.n : 0;
  sum->maps = rc == 0 ? c.nmaps : 0;
  free(mapv);
  free(value);
  fb_free(&c);
  return rc;
}
