/* landmark.c: landmark tables and shortest paths in moves (landmark.h). */
#include "landmark.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

int32_t mapf_bfs_moves(const mapf_grid *g, int32_t src, uint32_t *out, int32_t *queue) {
  memset(out, 0xff, (size_t)g->ncells * sizeof *out);
  int32_t head = 0, tail = 0;
  queue[tail++] = src;
  out[src] = 0;
  while (head < tail) {
    int32_t u = queue[head++];
    uint32_t du = out[u] + 1;
    uint8_t m = g->moves[u];
    for (int dir = 0; dir < 8; dir++) {
      if (!(m >> dir & 1)) continue;
      int32_t v = u + g->offset[dir];
      if (out[v] != UINT32_MAX) continue;
      out[v] = du;
      queue[tail++] = v;
    }
  }
  return tail;
}

void mapf_landmarks_free(mapf_landmarks *lm) {
  if (!lm) return;
  free(lm->cell);
  free(lm->d);
  free(lm->up);
  free(lm->depth);
  free(lm);
}

/* The tree of component big, rooted at landmark 0 (d: each cell's moves from it): per cell the
 * direction of its one neighbour a move nearer the root, and its depth. Returns -1 when out of
 * memory. */
static int mm_tree(const mapf_grid *g, mapf_landmarks *lm, int32_t big, int32_t first,
                   const uint32_t *d) {
  lm->up = malloc((size_t)g->ncells * sizeof *lm->up);
  lm->depth = malloc((size_t)g->ncells * sizeof *lm->depth);
  if (!lm->up || !lm->depth) return -1;
  memset(lm->up, 0xff, (size_t)g->ncells * sizeof *lm->up);
  for (int32_t c = 0; c < g->ncells; c++) lm->depth[c] = -1;
  for (int32_t c = first; c < g->ncells; c++) {
    if (g->component[c] != big) continue;
    lm->depth[c] = (int32_t)d[c];
    for (int dir = 0; dir < 8 && d[c] > 0; dir++)
      if ((g->moves[c] >> dir & 1) && d[c + g->offset[dir]] == d[c] - 1) {
        lm->up[c] = (uint8_t)dir;
        break;
      }
  }
  lm->tree = big;
  return 0;
}

mapf_landmarks *mapf_landmarks_new(const mapf_grid *g, int32_t k) {
  mapf_landmarks *lm = calloc(1, sizeof *lm);
  if (!lm) return NULL;
  lm->ncells = g->ncells;
  if (k < 1 || g->ncomponents < 1 ||
      (size_t)g->ncells * (size_t)k * sizeof *lm->d > MAPF_LANDMARK_BYTES)
    return lm;
  int32_t big = 0;
  for (int32_t c = 1; c < g->ncomponents; c++)
    if (g->component_size[c] > g->component_size[big]) big = c;
  lm->cell = malloc((size_t)k * sizeof *lm->cell);
  lm->d = malloc((size_t)g->ncells * (size_t)k * sizeof *lm->d);
  int32_t *queue = malloc((size_t)g->ncells * sizeof *queue);
  uint32_t *far = malloc((size_t)g->ncells * sizeof *far);
  uint32_t *d = malloc((size_t)g->ncells * sizeof *d);
  if (!lm->cell || !lm->d || !queue || !far || !d) {
    free(queue), free(far), free(d);
    mapf_landmarks_free(lm);
    return NULL;
  }
  int32_t first = 0;
  while (g->component[first] != big) first++;
  mapf_bfs_moves(g, first, far, queue);
  memset(lm->d, 0xff, (size_t)g->ncells * (size_t)k * sizeof *lm->d);
  /* A tree: every move counted from both ends, so twice the edges. */
  int64_t ends = 0;
  for (int32_t c = first; c < g->ncells; c++)
    if (g->component[c] == big)
      for (uint8_t m = g->moves[c]; m; m &= (uint8_t)(m - 1)) ends++;
  int tree = ends == 2 * ((int64_t)g->component_size[big] - 1);
  for (int32_t j = 0; j < k; j++) {
    /* The cell farthest from the first cell (j = 0), then from every landmark: far holds
     * each cell's least distance to one. */
    uint32_t most = 0;
    int32_t next = first;
    for (int32_t c = first; c < g->ncells; c++)
      if (g->component[c] == big && far[c] > most) {
        most = far[c];
        next = c;
      }
    lm->cell[j] = next;
    mapf_bfs_moves(g, next, d, queue);
    for (int32_t c = first; c < g->ncells; c++) {
      if (g->component[c] != big) continue;
      lm->d[(size_t)c * (size_t)k + (size_t)j] =
          (uint16_t)(d[c] < UINT16_MAX - 1 ? d[c] : UINT16_MAX - 1);
      if (j == 0 || d[c] < far[c]) far[c] = d[c];
    }
    if (j == 0 && tree && mm_tree(g, lm, big, first, d) < 0) {
      free(queue), free(far), free(d);
      mapf_landmarks_free(lm);
      return NULL;
    }
  }
  free(queue), free(far), free(d);
  lm->k = k;
  return lm;
}

/* ---- the search -------------------------------------------------------------------------- */

/* Eight bytes a cell, so that more of a large map's cells stay in the cache: no parent (the
 * path is read back by g, mm_path) and no h (recomputed, cheaper than a larger node). */
struct mm_node {
  uint32_t stamp; /* open or closed of the search with that stamp */
  uint32_t g;
};

struct mapf_moves_search {
  struct mm_node *node;
  int32_t cells;
  uint32_t gen;
  int32_t *open[3]; /* the buckets of f mod 3 */
  int32_t cap[3];
};

mapf_moves_search *mapf_moves_search_new(void) { return calloc(1, sizeof(mapf_moves_search)); }

void mapf_moves_search_free(mapf_moves_search *s) {
  if (!s) return;
  free(s->node);
  for (int k = 0; k < 3; k++) free(s->open[k]);
  free(s);
}

/* Room for at least 8 more entries in each bucket (one expansion's successors), so that the
 * pushes need no check. Returns -1 when out of memory. */
static int mm_room(mapf_moves_search *s, const int32_t *len) {
  for (int k = 0; k < 3; k++) {
    if (len[k] + 8 <= s->cap[k]) continue;
    int32_t cap = s->cap[k] ? 2 * s->cap[k] : 1024;
    int32_t *p = realloc(s->open[k], (size_t)cap * sizeof *p);
    if (!p) return -1;
    s->open[k] = p;
    s->cap[k] = cap;
  }
  return 0;
}

/* The coordinate bound for a cell dx, dy away from the goal. */
static inline uint32_t mm_h(int diag, int32_t dx, int32_t dy) {
  uint32_t x = (uint32_t)(dx < 0 ? -dx : dx), y = (uint32_t)(dy < 0 ? -dy : dy);
  return diag ? (x > y ? x : y) : x + y;
}

/* The differential heuristic of K landmarks' distances at a cell, lv, and at the goal, lt, or h
 * if larger: with K a constant, a few vector instructions. Under SSE2 (every x86-64) on 16-bit
 * lanes: |a - b| as the OR of the two saturated differences (one is 0), the largest by the
 * signed maximum with the top bit flipped (the order of unsigned values). */
#if defined(__SSE2__)
static inline uint32_t mm_max_u16(__m128i d) {
  __m128i m = _mm_xor_si128(d, _mm_set1_epi16((short)0x8000));
  m = _mm_max_epi16(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm_max_epi16(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
  m = _mm_max_epi16(m, _mm_shufflelo_epi16(m, _MM_SHUFFLE(2, 3, 0, 1)));
  return ((uint32_t)_mm_cvtsi128_si32(m) ^ 0x8000u) & 0xffffu;
}
static inline __m128i mm_absdiff_u16(const uint16_t *a, const uint16_t *b) {
  __m128i x = _mm_loadu_si128((const __m128i *)(const void *)a);
  __m128i y = _mm_loadu_si128((const __m128i *)(const void *)b);
  return _mm_or_si128(_mm_subs_epu16(x, y), _mm_subs_epu16(y, x));
}
static inline uint32_t mm_dh8(const uint16_t *lv, const uint16_t *lt, uint32_t h) {
  uint32_t d = mm_max_u16(mm_absdiff_u16(lv, lt));
  return d > h ? d : h;
}
static inline uint32_t mm_dh16(const uint16_t *lv, const uint16_t *lt, uint32_t h) {
  __m128i a = mm_absdiff_u16(lv, lt), b = mm_absdiff_u16(lv + 8, lt + 8);
  /* max(a, b) on unsigned lanes: a + (b - a saturated) */
  uint32_t d = mm_max_u16(_mm_adds_epu16(a, _mm_subs_epu16(b, a)));
  return d > h ? d : h;
}
#else
#define MM_DH(K)                                                                      \
  static inline uint32_t mm_dh##K(const uint16_t *lv, const uint16_t *lt, uint32_t h) { \
    int32_t best = (int32_t)h;                                                        \
    for (int32_t j = 0; j < K; j++) {                                                 \
      int32_t d = (int32_t)lv[j] - (int32_t)lt[j];                                    \
      d = d < 0 ? -d : d;                                                             \
      best = d > best ? d : best;                                                     \
    }                                                                                 \
    return (uint32_t)best;                                                            \
  }
MM_DH(8)
MM_DH(16)
#endif

static inline uint32_t mm_dh(const uint16_t *lv, const uint16_t *lt, int32_t k, uint32_t h) {
  if (k == 16) return mm_dh16(lv, lt, h);
  if (k == 8) return mm_dh8(lv, lt, h);
  int32_t best = (int32_t)h;
  for (int32_t j = 0; j < k; j++) {
    int32_t d = (int32_t)lv[j] - (int32_t)lt[j];
    d = d < 0 ? -d : d;
    best = d > best ? d : best;
  }
  return (uint32_t)best;
}

/* The path found, from s to t, read back from t: each time the first neighbour, in direction
 * order, that this search reached (stamp open or closed) one move sooner. Its g is then its
 * distance from s (g never undercuts it, and a cell one move before one at its distance is at
 * most that minus one), so every such step stays on a shortest path; the goal's own
 * predecessor is the cell expanded when it was found (pred). */
static void mm_path(const mapf_moves_search *ms, const mapf_grid *g, uint32_t open, int32_t s,
                    int32_t t, int32_t pred, int64_t moves, int32_t *path, int32_t *path_len) {
  if (!path_len) return;
  int64_t n = moves + 1;
  if (path && n <= *path_len) {
    path[n - 1] = t;
    int32_t c = pred;
    for (int64_t i = n - 2; i >= 1; i--) {
      path[i] = c;
      uint32_t want = ms->node[c].g - 1;
      int32_t next = -1;
      for (int d = 0; d < 8 && next < 0; d++) {
        if (!(g->moves[c] >> d & 1)) continue;
        int32_t v = c + g->offset[d];
        const struct mm_node *nv = &ms->node[v];
        if ((nv->stamp == open || nv->stamp == open + 1) && nv->g == want) next = v;
      }
      c = next;
    }
    if (n >= 2) path[0] = s;
  }
  *path_len = (int32_t)n;
}

/* The one path from s to t in lm's tree: both ends climb towards the root, the deeper first,
 * until they meet; the moves are the climbs. A second climb writes the path when it fits. */
static int64_t mm_tree_path(const mapf_grid *g, const mapf_landmarks *lm, int32_t s, int32_t t,
                            int32_t *path, int32_t *path_len, int64_t *expanded) {
  const uint8_t *up = lm->up;
  const int32_t *off = g->offset;
  int32_t a = s, b = t, da = lm->depth[s], db = lm->depth[t];
  int64_t ua = 0, ub = 0; /* moves climbed from s, from t */
  for (; da > db; da--, ua++) a += off[up[a]];
  for (; db > da; db--, ub++) b += off[up[b]];
  for (; a != b; ua++, ub++) {
    a += off[up[a]];
    b += off[up[b]];
  }
  int64_t moves = ua + ub;
  if (expanded) *expanded = moves + 1;
  if (!path_len) return moves;
  if (path && moves + 1 <= *path_len) {
    a = s;
    for (int64_t i = 0; i < ua; i++, a += off[up[a]]) path[i] = a;
    path[ua] = a; /* the meeting cell */
    b = t;
    for (int64_t i = moves; i > ua; i--, b += off[up[b]]) path[i] = b;
  }
  *path_len = (int32_t)(moves + 1);
  return moves;
}

int64_t mapf_shortest_moves(mapf_moves_search *ms, const mapf_grid *g, const mapf_landmarks *lm,
                            int32_t s, int32_t t, int32_t *path, int32_t *path_len,
                            int64_t *expanded) {
  int64_t exp = 0;
  if (expanded) *expanded = 0;
  if (lm && lm->up && lm->ncells == g->ncells && g->component[s] == lm->tree &&
      g->component[t] == lm->tree)
    return mm_tree_path(g, lm, s, t, path, path_len, expanded);
  if (s == t) {
    mm_path(ms, g, 0, s, t, s, 0, path, path_len);
    return 0;
  }
  if (g->ncells > ms->cells) {
    struct mm_node *p = realloc(ms->node, (size_t)g->ncells * sizeof *p);
    if (!p) return -2;
    for (int32_t c = ms->cells; c < g->ncells; c++) p[c].stamp = 0;
    ms->node = p;
    ms->cells = g->ncells;
  }
  if (ms->gen >= UINT32_MAX - 2) { /* stamps would repeat: clear them */
    for (int32_t c = 0; c < ms->cells; c++) ms->node[c].stamp = 0;
    ms->gen = 0;
  }
  uint32_t open = ms->gen += 2, closed = open + 1;
  struct mm_node *node = ms->node;
  int diag = g->connectivity != 4;
  int32_t w = g->width, tx = t % w, ty = t / w;
  int32_t k = lm && lm->k > 0 && lm->ncells == g->ncells ? lm->k : 0;
  const uint16_t *lt = k ? lm->d + (size_t)t * (size_t)k : NULL;
  /* The buckets' lengths are locals, not fields of ms, which a store into a bucket could alias
   * (forcing a reload per push); the arrays are reread only after mm_room moved them. */
  int32_t len[3] = {0, 0, 0};
  if (mm_room(ms, len) < 0) return -2;
  int32_t *bucket[3] = {ms->open[0], ms->open[1], ms->open[2]};
  uint32_t f = mm_h(diag, s % w - tx, s / w - ty);
  if (k) f = mm_dh(lm->d + (size_t)s * (size_t)k, lt, k, f);
  node[s] = (struct mm_node){open, 0};
  bucket[f % 3][len[f % 3]++] = s;
  for (int empty = 0; empty < 3;) {
    int b = (int)(f % 3);
    if (len[b] == 0) {
      f++;
      empty++;
      continue;
    }
    empty = 0;
    int32_t u = bucket[b][--len[b]];
    if (node[u].stamp == closed) continue; /* an older entry of a node expanded since */
    node[u].stamp = closed;
    exp++;
    uint32_t gv = node[u].g + 1;
    int32_t ux = u % w - tx, uy = u / w - ty;
    uint8_t m = g->moves[u];
    int32_t nsucc = 0, succ[8];
    uint32_t key[8], fs[8];
    for (int dir = 0; dir < 8; dir++) {
      if (!(m >> dir & 1)) continue;
      int32_t v = u + g->offset[dir];
      if (v == t) {
        /* Taken when generated: u has h(u) = 1 (consistent, and at least 1 off the goal) and
         * was expanded at f = g(u) + 1 <= the optimum. */
        node[t] = (struct mm_node){closed, gv};
        if (expanded) *expanded = exp;
        mm_path(ms, g, open, s, t, u, gv, path, path_len);
        return gv;
      }
      struct mm_node *nv = &node[v];
      /* closed, or open at g(u) + 1 or less: one branch, as it is hard to predict */
      if ((nv->stamp == closed) | ((nv->stamp == open) & (nv->g <= gv))) continue;
      uint32_t h = mm_h(diag, ux + mapf_dir_dx[dir], uy + mapf_dir_dy[dir]);
      if (k) h = mm_dh(lm->d + (size_t)v * (size_t)k, lt, k, h);
      *nv = (struct mm_node){open, gv};
      /* Pushed below in order of the squared distance to the goal as the crow flies, the
       * nearest last: among the successors of equal f (one bucket) the dive takes the one
       * nearest the straight line, which keeps the most ways round an obstacle ahead. */
      int32_t ex = ux + mapf_dir_dx[dir], ey = uy + mapf_dir_dy[dir];
      uint32_t kv = (uint32_t)(ex * ex + ey * ey);
      int32_t j = nsucc++;
      for (; j > 0 && key[j - 1] < kv; j--) {
        succ[j] = succ[j - 1];
        fs[j] = fs[j - 1];
        key[j] = key[j - 1];
      }
      succ[j] = v;
      fs[j] = gv + h;
      key[j] = kv;
    }
    if (len[0] + 8 > ms->cap[0] || len[1] + 8 > ms->cap[1] || len[2] + 8 > ms->cap[2]) {
      if (mm_room(ms, len) < 0) return -2;
      for (int j = 0; j < 3; j++) bucket[j] = ms->open[j];
    }
    for (int32_t j = 0; j < nsucc; j++) {
      int q = (int)(fs[j] % 3);
      bucket[q][len[q]++] = succ[j];
    }
  }
  if (expanded) *expanded = exp;
  if (path_len) *path_len = 0;
  return -1;
}
