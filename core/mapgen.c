/* mapgen.c: seeded map generators (random obstacles, rooms, mazes).
 *
 * All randomness comes from one mapf_rng seeded with p->seed and is drawn in a fixed order, and
 * only integer draws and comparisons of exact doubles decide cells, so a seed gives the same
 * grid on every platform. */
#include "mapgen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "rng.h"

#define KIND_RANDOM (1u << MAPF_MAPGEN_RANDOM)
#define KIND_ROOMS (1u << MAPF_MAPGEN_ROOMS)
#define KIND_MAZE (1u << MAPF_MAPGEN_MAZE)
#define KIND_ALL (KIND_RANDOM | KIND_ROOMS | KIND_MAZE)
#define FIELD(f) offsetof(mapf_mapgen_params, f)

static const mapf_mapgen_key keys[] = {
    {"kind", MAPF_MAPGEN_KEY_KIND, 0, 0, 0, 1, KIND_ALL, FIELD(kind),
     "the generator: random, rooms or maze"},
    {"width", MAPF_MAPGEN_KEY_INT, 1, MAPF_GRID_MAX_SIDE, 32, 1, KIND_ALL, FIELD(width),
     "columns of the map"},
    {"height", MAPF_MAPGEN_KEY_INT, 1, MAPF_GRID_MAX_SIDE, 32, 1, KIND_ALL, FIELD(height),
     "rows of the map"},
    {"density", MAPF_MAPGEN_KEY_REAL, 0, 0.9, 0.2, 0, KIND_RANDOM, FIELD(density),
     "probability that a cell is blocked"},
    {"room", MAPF_MAPGEN_KEY_INT, 2, MAPF_GRID_MAX_SIDE, 8, 0, KIND_ROOMS, FIELD(room),
     "side of a room's interior, in cells"},
    {"doors", MAPF_MAPGEN_KEY_INT, 1, MAPF_GRID_MAX_SIDE, 1, 0, KIND_ROOMS, FIELD(doors),
     "one-cell openings in each wall between two rooms"},
    {"corridor", MAPF_MAPGEN_KEY_INT, 1, MAPF_GRID_MAX_SIDE, 1, 0, KIND_MAZE, FIELD(corridor),
     "width of corridors and walls, in cells"},
    {"seed", MAPF_MAPGEN_KEY_U64, 0, 0, 0, 0, KIND_ALL, FIELD(seed),
     "the map's seed (the plan's seed does not change it)"},
};
#define NKEYS ((int32_t)(sizeof keys / sizeof keys[0]))
_Static_assert(NKEYS == MAPF_MAPGEN_NKEYS, "MAPF_MAPGEN_NKEYS counts the rows of keys");

int32_t mapf_mapgen_key_count(void) { return NKEYS; }

const mapf_mapgen_key *mapf_mapgen_key_at(int32_t i) {
  return i >= 0 && i < NKEYS ? &keys[i] : NULL;
}

void mapf_mapgen_defaults(mapf_mapgen_params *p, mapf_mapgen_kind kind) {
  memset(p, 0, sizeof *p);
  p->kind = kind;
  for (int32_t i = 1; i < NKEYS; i++) {
    char *field = (char *)p + keys[i].offset;
    if (keys[i].type == MAPF_MAPGEN_KEY_INT)
      *(int32_t *)(void *)field = (int32_t)keys[i].def;
    else if (keys[i].type == MAPF_MAPGEN_KEY_REAL)
      *(double *)(void *)field = keys[i].def;
    else if (keys[i].type == MAPF_MAPGEN_KEY_U64)
      *(uint64_t *)(void *)field = (uint64_t)keys[i].def;
  }
}

int mapf_mapgen_kind_parse(const char *name) {
  if (!name) return -1;
  if (strcmp(name, "random") == 0) return MAPF_MAPGEN_RANDOM;
  if (strcmp(name, "rooms") == 0) return MAPF_MAPGEN_ROOMS;
  if (strcmp(name, "maze") == 0) return MAPF_MAPGEN_MAZE;
  return -1;
}

const char *mapf_mapgen_kind_name(mapf_mapgen_kind kind) {
  switch (kind) {
  case MAPF_MAPGEN_RANDOM:
    return "random";
  case MAPF_MAPGEN_ROOMS:
    return "rooms";
  case MAPF_MAPGEN_MAZE:
    return "maze";
  }
  return "unknown";
}

const char *mapf_mapgen_kind_doc(mapf_mapgen_kind kind) {
  switch (kind) {
  case MAPF_MAPGEN_RANDOM:
    return "each cell blocked with probability density";
  case MAPF_MAPGEN_ROOMS:
    return "a lattice of square rooms, walls one cell thick, with doors openings per shared wall";
  case MAPF_MAPGEN_MAZE:
    return "a perfect maze (randomised depth-first search), corridors and walls corridor cells "
           "wide";
  }
  return "unknown";
}

/* Formats x with %g and forces '.' as the decimal point whatever LC_NUMERIC says, so names
 * (which go into job descriptions) are the same in every locale. */
static void format_g(char *buf, size_t cap, double x) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%g", x);
  size_t o = 0;
  int point = 0;
  for (size_t i = 0; tmp[i] && o + 1 < cap; i++) {
    char ch = tmp[i];
    if ((ch >= '0' && ch <= '9') || ch == '-' || ch == '+' || ch == 'e' || ch == 'i' ||
        ch == 'n' || ch == 'f' || ch == 'a') {
      buf[o++] = ch;
    } else if (!point) {
      buf[o++] = '.';
      point = 1;
    }
  }
  buf[o] = '\0';
}

/* Checks the parameters that p->kind uses (the others are ignored) and the map size. */
static int validate(const mapf_mapgen_params *p, mapf_diag *d) {
  if (p->kind != MAPF_MAPGEN_RANDOM && p->kind != MAPF_MAPGEN_ROOMS &&
      p->kind != MAPF_MAPGEN_MAZE)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "generator: expected random, rooms or maze, found kind %d",
                         (int)p->kind);
  if (p->width < 1 || p->width > MAPF_GRID_MAX_SIDE)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "width: expected an integer in 1..%d, found %d",
                         MAPF_GRID_MAX_SIDE, (int)p->width);
  if (p->height < 1 || p->height > MAPF_GRID_MAX_SIDE)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "height: expected an integer in 1..%d, found %d", MAPF_GRID_MAX_SIDE,
                         (int)p->height);
  if ((int64_t)p->width * p->height > MAPF_GRID_MAX_CELLS)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "size: %d x %d = %lld cells exceeds the limit of %d cells",
                         (int)p->width, (int)p->height, (long long)p->width * p->height,
                         MAPF_GRID_MAX_CELLS);
  switch (p->kind) {
  case MAPF_MAPGEN_RANDOM:
    if (!(p->density >= 0.0 && p->density <= 0.9)) {
      char v[64];
      format_g(v, sizeof v, p->density);
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                           "density: expected a number in [0, 0.9], found %s", v);
    }
    break;
  case MAPF_MAPGEN_ROOMS:
    if (p->room < 2)
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0, "room: expected an integer >= 2, found %d",
                           (int)p->room);
    if (p->doors < 1)
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                           "doors: expected an integer >= 1, found %d", (int)p->doors);
    break;
  case MAPF_MAPGEN_MAZE:
    if (p->corridor < 1)
      return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                           "corridor: expected an integer >= 1, found %d", (int)p->corridor);
    break;
  }
  return MAPF_OK;
}

/* random: cells in id order, each blocked when a uniform draw in [0, 1) is below density.
 * O(cells). */
static void gen_random(mapf_grid *g, double density, mapf_rng *r) {
  for (int32_t id = 0; id < g->ncells; id++)
    g->passable[id] = mapf_rng_double(r) < density ? 0 : 1;
}

/* Opens k = min(doors, len) distinct random cells of a wall segment: cells first + i * step
 * for i in 0 .. len-1 (partial Fisher-Yates over the positions; idx has room for len). */
static void open_doors(mapf_grid *g, int32_t first, int32_t step, int32_t len, int32_t doors,
                       int32_t *idx, mapf_rng *r) {
  int32_t k = doors < len ? doors : len;
  for (int32_t i = 0; i < len; i++) idx[i] = i;
  for (int32_t i = 0; i < k; i++) {
    int32_t j = i + (int32_t)mapf_rng_below(r, (uint64_t)(len - i));
    int32_t t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
    g->passable[first + idx[i] * step] = 1;
  }
}

/* rooms: with period q = room + 1, cell (x, y) is wall when x % q == room or y % q == room; the
 * map border is not walled (the edge bounds the outer rooms, and rooms at the right and bottom
 * edges may be cut short). Each wall segment between two rooms (the `room` or fewer wall cells
 * between two wall crossings) gets min(doors, length) random openings; crossings stay blocked.
 * The rooms form a grid graph joined by doors, so the map is one component. Draw order: the
 * vertical segments row of rooms by row of rooms, left to right, then the horizontal ones.
 * O(cells). */
static int gen_rooms(mapf_grid *g, int32_t room, int32_t doors, mapf_rng *r) {
  /* A room at least as wide as the map leaves no wall; clamping keeps room + 1 from
   * overflowing without changing the result. */
  if (room > MAPF_GRID_MAX_SIDE) room = MAPF_GRID_MAX_SIDE;
  int32_t q = room + 1, w = g->width, h = g->height;
  int32_t side = w > h ? w : h;
  int32_t *idx = malloc((size_t)(room < side ? room : side) * sizeof *idx);
  if (!idx) return MAPF_ENOMEM;
  for (int32_t y = 0; y < h; y++)
    for (int32_t x = 0; x < w; x++)
      g->passable[y * w + x] = (x % q != room && y % q != room) ? 1 : 0;
  /* Vertical walls at x = k*q + room with rooms on both sides (x + 1 < w). */
  for (int32_t y0 = 0; y0 < h; y0 += q) {
    int32_t len = h - y0 < room ? h - y0 : room;
    for (int32_t x = room; x + 1 < w; x += q) open_doors(g, y0 * w + x, w, len, doors, idx, r);
  }
  /* Horizontal walls at y = k*q + room with rooms above and below (y + 1 < h). */
  for (int32_t y = room; y + 1 < h; y += q) {
    for (int32_t x0 = 0; x0 < w; x0 += q) {
      int32_t len = w - x0 < room ? w - x0 : room;
      open_doors(g, y * w + x0, 1, len, doors, idx, r);
    }
  }
  free(idx);
  return MAPF_OK;
}

/* maze: maze cells (i, j) are c x c squares at x = 2c*i, y = 2c*j (c = corridor), cut short at
 * the right and bottom edges; walls between them are c wide. A perfect maze (a spanning tree
 * of the mx x my lattice of cells) is carved by randomised depth-first search with an explicit
 * stack: at the top cell, draw one of its unvisited neighbours (checked N, E, S, W), open the
 * c x c passage to it and push it; pop when none is left. Everything else stays blocked, so
 * the passable cells form one component. O(cells) time, O(mx * my) extra memory. */
static int gen_maze(mapf_grid *g, int32_t c, mapf_rng *r) {
  static const int ddx[4] = {0, 1, 0, -1}, ddy[4] = {-1, 0, 1, 0};
  /* A corridor at least as wide as the map gives one open square; clamping keeps 2c from
   * overflowing without changing the result. */
  if (c > MAPF_GRID_MAX_SIDE) c = MAPF_GRID_MAX_SIDE;
  int32_t w = g->width, h = g->height, p = 2 * c;
  int32_t mx = (w + p - 1) / p, my = (h + p - 1) / p;
  int32_t ncell = mx * my;
  uint8_t *seen = calloc((size_t)ncell, 1);
  int32_t *stack = malloc((size_t)ncell * sizeof *stack);
  if (!seen || !stack) {
    free(seen);
    free(stack);
    return MAPF_ENOMEM;
  }
  memset(g->passable, 0, (size_t)g->ncells);
  /* Opens the rectangle [x0, x0 + c) x [y0, y0 + c) clipped to the map. */
#define OPEN_SQUARE(x0, y0)                                                   \
  for (int32_t yy = (y0); yy < (y0) + c && yy < h; yy++)                      \
    for (int32_t xx = (x0); xx < (x0) + c && xx < w; xx++) g->passable[yy * w + xx] = 1
  int32_t top = 0;
  stack[top++] = 0;
  seen[0] = 1;
  OPEN_SQUARE(0, 0);
  while (top > 0) {
    int32_t u = stack[top - 1], ux = u % mx, uy = u / mx;
    int next[4], nn = 0;
    for (int k = 0; k < 4; k++) {
      int32_t vx = ux + ddx[k], vy = uy + ddy[k];
      if (vx >= 0 && vy >= 0 && vx < mx && vy < my && !seen[vy * mx + vx]) next[nn++] = k;
    }
    if (nn == 0) {
      top--;
      continue;
    }
    int k = next[mapf_rng_below(r, (uint64_t)nn)];
    int32_t vx = ux + ddx[k], vy = uy + ddy[k];
    /* The passage lies between the two squares: c cells from the lower one along the axis. */
    int32_t px = ux * p + ddx[k] * c, py = uy * p + ddy[k] * c;
    if (ddx[k] < 0) px = vx * p + c;
    if (ddy[k] < 0) py = vy * p + c;
    OPEN_SQUARE(px, py);
    OPEN_SQUARE(vx * p, vy * p);
    seen[vy * mx + vx] = 1;
    stack[top++] = vy * mx + vx;
  }
#undef OPEN_SQUARE
  free(seen);
  free(stack);
  return MAPF_OK;
}

/* Validates p, builds the grid named after every parameter and finishes it. */
int mapf_mapgen(const mapf_mapgen_params *p, mapf_grid **out, mapf_diag *d) {
  int err = validate(p, d);
  if (err) return err;
  char name[160];
  switch (p->kind) {
  case MAPF_MAPGEN_RANDOM: {
    char dens[64];
    format_g(dens, sizeof dens, p->density == 0 ? 0.0 : p->density);
    snprintf(name, sizeof name, "random-%dx%d-d%s-s%" PRIu64, (int)p->width, (int)p->height,
             dens, p->seed);
    break;
  }
  case MAPF_MAPGEN_ROOMS:
    snprintf(name, sizeof name, "rooms-%dx%d-r%d-k%d-s%" PRIu64, (int)p->width,
             (int)p->height, (int)p->room, (int)p->doors, p->seed);
    break;
  case MAPF_MAPGEN_MAZE:
    snprintf(name, sizeof name, "maze-%dx%d-c%d-s%" PRIu64, (int)p->width, (int)p->height,
             (int)p->corridor, p->seed);
    break;
  }
  mapf_grid *g = mapf_grid_new(p->width, p->height, name);
  if (!g) return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory for map %s", name);
  mapf_rng r;
  mapf_rng_seed(&r, p->seed);
  switch (p->kind) {
  case MAPF_MAPGEN_RANDOM:
    gen_random(g, p->density, &r);
    break;
  case MAPF_MAPGEN_ROOMS:
    err = gen_rooms(g, p->room, p->doors, &r);
    break;
  case MAPF_MAPGEN_MAZE:
    err = gen_maze(g, p->corridor, &r);
    break;
  }
  if (!err) err = mapf_grid_finish(g);
  if (err) {
    mapf_grid_free(g);
    return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory for map %s", name);
  }
  *out = g;
  return MAPF_OK;
}
