/* grid.c: grid construction, legal moves and connected components. Parsing of MovingAI files is
 * in movingai.c. */
#include "grid.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "hash.h"

const int8_t mapf_dir_dx[8] = {0, 1, 0, -1, 1, 1, -1, -1};
const int8_t mapf_dir_dy[8] = {-1, 0, 1, 0, -1, 1, 1, -1};
const double mapf_dir_cost[8] = {1, 1, 1, 1, MAPF_SQRT2, MAPF_SQRT2, MAPF_SQRT2, MAPF_SQRT2};

mapf_grid *mapf_grid_new(int32_t width, int32_t height, const char *name) {
  if (width < 1 || height < 1 || width > MAPF_GRID_MAX_SIDE || height > MAPF_GRID_MAX_SIDE ||
      (int64_t)width * height > MAPF_GRID_MAX_CELLS)
    return NULL;
  mapf_grid *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  atomic_init(&g->flow, NULL);
  g->width = width;
  g->height = height;
  g->ncells = width * height;
  g->passable = calloc((size_t)g->ncells, 1);
  g->name = strdup(name ? name : "");
  if (!g->passable || !g->name) {
    mapf_grid_free(g);
    return NULL;
  }
  return g;
}

void mapf_grid_free(mapf_grid *g) {
  if (!g) return;
  free(g->passable);
  free(g->terrain);
  free(g->moves);
  free(g->component);
  free(g->component_size);
  free(g->usable);
  free(g->usable_by_comp);
  free(g->usable_off);
  free(g->name);
  mapf_flow_free(atomic_load(&g->flow));
  free(g);
}

static int passable_at(const mapf_grid *g, int32_t x, int32_t y) {
  return mapf_grid_in(g, x, y) && g->passable[mapf_grid_id(g, x, y)];
}

/* The legal moves out of passable cell (x, y). */
static uint8_t moves_at(const mapf_grid *g, int32_t x, int32_t y) {
  uint8_t m = 0;
  for (int d = 0; d < 8; d++) {
    int32_t nx = x + mapf_dir_dx[d], ny = y + mapf_dir_dy[d];
    if (!passable_at(g, nx, ny)) continue;
    /* Under 4 moves there are no diagonals; under 8, no corner cutting: a diagonal needs
     * both cardinal cells beside it. */
    if (d >= 4 && g->connectivity == 4) continue;
    if (d >= 4 && !(passable_at(g, nx, y) && passable_at(g, x, ny))) continue;
    m |= (uint8_t)(1u << d);
  }
  return m;
}

static uint64_t content_hash(const mapf_grid *g) {
  /* Dimensions then passability, so the same map under two names is one map. */
  uint64_t h = mapf_hash64(&g->width, sizeof g->width, (uint64_t)g->height);
  return mapf_hash64(g->passable, (size_t)g->ncells, h);
}

int mapf_grid_finish(mapf_grid *g) {
  int32_t n = g->ncells;
  mapf_flow_free(atomic_exchange(&g->flow, NULL));
  free(g->moves);
  free(g->component);
  free(g->component_size);
  g->component_size = NULL;
  g->moves = calloc((size_t)n, 1);
  g->component = malloc((size_t)n * sizeof *g->component);
  int32_t *stack = malloc((size_t)n * sizeof *stack);
  if (!g->moves || !g->component || !stack) {
    free(stack);
    return MAPF_ENOMEM;
  }
  for (int d = 0; d < 8; d++) g->offset[d] = mapf_dir_dy[d] * g->width + mapf_dir_dx[d];

  g->npassable = 0;
  for (int32_t y = 0; y < g->height; y++) {
    for (int32_t x = 0; x < g->width; x++) {
      int32_t id = mapf_grid_id(g, x, y);
      if (!g->passable[id]) continue;
      g->npassable++;
      g->moves[id] = moves_at(g, x, y);
    }
  }

  /* Components by depth-first flood fill over legal moves. Without corner cutting these are
   * exactly the 4-connected components. */
  for (int32_t i = 0; i < n; i++) g->component[i] = -1;
  int32_t ncomp = 0, cap = 16;
  g->component_size = malloc((size_t)cap * sizeof *g->component_size);
  if (!g->component_size) {
    free(stack);
    return MAPF_ENOMEM;
  }
  for (int32_t s = 0; s < n; s++) {
    if (!g->passable[s] || g->component[s] >= 0) continue;
    if (ncomp == cap) {
      cap *= 2;
      int32_t *p = realloc(g->component_size, (size_t)cap * sizeof *p);
      if (!p) {
        free(stack);
        return MAPF_ENOMEM;
      }
      g->component_size = p;
    }
    int32_t top = 0, size = 0;
    stack[top++] = s;
    g->component[s] = ncomp;
    while (top > 0) {
      int32_t u = stack[--top];
      size++;
      for (int d = 0; d < 4; d++) {
        if (!(g->moves[u] >> d & 1)) continue;
        int32_t v = u + g->offset[d];
        if (g->component[v] < 0) {
          g->component[v] = ncomp;
          stack[top++] = v;
        }
      }
    }
    g->component_size[ncomp++] = size;
  }
  g->ncomponents = ncomp;
  free(stack);

  /* Usable cells, in id order and grouped by component (a counting sort). */
  free(g->usable);
  free(g->usable_by_comp);
  free(g->usable_off);
  g->nusable = 0;
  for (int32_t c = 0; c < ncomp; c++)
    if (g->component_size[c] >= 2) g->nusable += g->component_size[c];
  g->usable = malloc((size_t)(g->nusable ? g->nusable : 1) * sizeof *g->usable);
  g->usable_by_comp = malloc((size_t)(g->nusable ? g->nusable : 1) * sizeof *g->usable_by_comp);
  g->usable_off = calloc((size_t)ncomp + 1, sizeof *g->usable_off);
  if (!g->usable || !g->usable_by_comp || !g->usable_off) return MAPF_ENOMEM;
  int32_t k = 0;
  for (int32_t id = 0; id < n; id++) {
    int32_t c = g->component[id];
    if (c >= 0 && g->component_size[c] >= 2) {
      g->usable[k++] = id;
      g->usable_off[c + 1]++;
    }
  }
  for (int32_t c = 0; c < ncomp; c++) g->usable_off[c + 1] += g->usable_off[c];
  for (int32_t i = 0, c; i < k; i++) {
    c = g->component[g->usable[i]];
    /* usable_off[c] is advanced as the component fills, then moved back below. */
    g->usable_by_comp[g->usable_off[c]++] = g->usable[i];
  }
  for (int32_t c = ncomp; c > 0; c--) g->usable_off[c] = g->usable_off[c - 1];
  g->usable_off[0] = 0;

  g->hash = content_hash(g);
  return MAPF_OK;
}

void mapf_grid_set_cells(mapf_grid *g, const int32_t *cells, const uint8_t *open, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    uint8_t *p = &g->passable[cells[i]];
    g->npassable += (open[i] != 0) - (*p != 0);
    *p = open[i] != 0;
  }
  /* A cell's moves read its eight neighbours, so only those of the cells within one move of
   * a changed cell can change. */
  for (int32_t i = 0; i < n; i++) {
    int32_t cx = mapf_grid_x(g, cells[i]), cy = mapf_grid_y(g, cells[i]);
    for (int32_t y = cy - 1; y <= cy + 1; y++)
      for (int32_t x = cx - 1; x <= cx + 1; x++)
        if (mapf_grid_in(g, x, y)) {
          int32_t id = mapf_grid_id(g, x, y);
          g->moves[id] = g->passable[id] ? moves_at(g, x, y) : 0;
        }
  }
  mapf_flow_free(atomic_exchange(&g->flow, NULL));
  g->hash = content_hash(g);
}

int mapf_grid_set_connectivity(mapf_grid *g, int connectivity) {
  if (!mapf_connectivity_ok(connectivity)) return MAPF_EINVAL;
  if ((g->connectivity == 4) == (connectivity == 4)) {
    g->connectivity = connectivity;
    return MAPF_OK;
  }
  g->connectivity = connectivity;
  return mapf_grid_finish(g);
}

double mapf_euclid(const mapf_grid *g, int32_t a, int32_t b) {
  double dx = mapf_grid_x(g, a) - mapf_grid_x(g, b);
  double dy = mapf_grid_y(g, a) - mapf_grid_y(g, b);
  return sqrt(dx * dx + dy * dy);
}

int mapf_grid_dir(const mapf_grid *g, int32_t a, int32_t b) {
  int32_t dx = mapf_grid_x(g, b) - mapf_grid_x(g, a);
  int32_t dy = mapf_grid_y(g, b) - mapf_grid_y(g, a);
  if (dx < -1 || dx > 1 || dy < -1 || dy > 1) return -1;
  /* The direction of each (dx, dy) in [-1, 1]^2, row-major from (-1, -1), per mapf_dir_dx
   * and mapf_dir_dy above (NW N NE / W - E / SW S SE); -1 for no move. test_grid checks it
   * against those tables. */
  static const int8_t dir_of[9] = {7, 0, 4, 3, -1, 1, 6, 2, 5};
  return dir_of[(dy + 1) * 3 + (dx + 1)];
}
