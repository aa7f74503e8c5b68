/* grid.h: grid maps with octile or 4-connected moves (docs/choices.md, Grid).
 *
 * A grid is built once (loaded or generated), finished with mapf_grid_finish(), and then shared
 * read-only by every thread of a run. Cells are numbered id = y * width + x, with x the column
 * and y the row (row 0 is the first grid line of a MovingAI file). */
#ifndef MAPF_GRID_H
#define MAPF_GRID_H

#include <stdint.h>

#include "error.h"

/* Limits on what a map may declare, so a malformed header cannot make us allocate gigabytes. */
#define MAPF_GRID_MAX_SIDE 16384
#define MAPF_GRID_MAX_CELLS (1 << 26)

#define MAPF_SQRT2 1.4142135623730951

/* The eight moves. Cardinals first, so a scan in this order prefers straight moves. */
typedef enum {
  MAPF_DIR_N,
  MAPF_DIR_E,
  MAPF_DIR_S,
  MAPF_DIR_W,
  MAPF_DIR_NE,
  MAPF_DIR_SE,
  MAPF_DIR_SW,
  MAPF_DIR_NW
} mapf_dir;

/* Column and row offsets per direction (N is y - 1). */
extern const int8_t mapf_dir_dx[8];
extern const int8_t mapf_dir_dy[8];
/* Move cost per direction: 1 for cardinals, sqrt(2) for diagonals. */
extern const double mapf_dir_cost[8];

struct mapf_flow; /* flow.h */

typedef struct mapf_grid {
  int32_t width, height;
  int32_t ncells;      /* width * height */
  int32_t npassable;   /* set by mapf_grid_finish */
  uint8_t *passable;   /* ncells bytes, 1 = passable; filled by the loader or generator */
  char *terrain;       /* ncells MovingAI characters, or NULL for generated maps */
  /* Set by mapf_grid_finish: */
  uint8_t *moves;      /* bit d set: the move in direction d is legal (target passable and,
                          for a diagonal, both cardinal cells beside it passable) */
  int32_t *component;  /* connected-component id per cell, -1 for blocked cells */
  int32_t ncomponents;
  int32_t *component_size; /* ncomponents entries */
  /* The usable cells (passable cells of components with two or more cells, where an agent can
   * start and have a goal): in id order, and again grouped by component (id order within
   * each, component c at usable_by_comp[usable_off[c] .. usable_off[c + 1] - 1]). Made once
   * here so the scenario generator of every job copies them instead of scanning the map. */
  int32_t *usable, *usable_by_comp, *usable_off;
  int32_t nusable;
  int32_t offset[8];   /* id offset of each direction: dy * width + dx */
  uint64_t hash;       /* content hash of width, height and passability (not the name) */
  char *name;          /* file name without directories, or a generated name */
  /* The move set: 8 (the default: cardinal and diagonal moves, no corner cutting) or 4
   * (cardinal moves only, the MAPF benchmark's model, Stern et al. 2019). Read by
   * mapf_grid_finish, which leaves only the cardinal bits in moves[] under 4; every search asks
   * moves[] for neighbours, and the heuristics below follow it. 0 reads as 8. */
  int32_t connectivity;
  /* FAR's flow annotation of this grid, a pure function of it: NULL until the first
   * mapf_grid_flow() call (flow.h) builds it, then shared by every thread that reads the grid.
   * The one field of a finished grid that changes; atomic, so that is thread-safe. */
  _Atomic(struct mapf_flow *) flow;
} mapf_grid;

/* Returns a width x height grid with every cell blocked and name copied, or NULL when out of
 * memory or the size is outside the limits above. Free with mapf_grid_free(). */
mapf_grid *mapf_grid_new(int32_t width, int32_t height, const char *name);

/* Computes moves, components, npassable and hash from passable (and drops a flow annotation
 * built from earlier values). Call once after filling passable. Returns MAPF_OK or
 * MAPF_ENOMEM. */
int mapf_grid_finish(mapf_grid *g);

/* Sets n cells of a finished grid open (open[i] != 0) or blocked: a door that opens or closes
 * during a run (docs/events.md). Makes passable, npassable, moves and hash agree, recomputing
 * the moves of the cells around the changed ones only, and drops a flow annotation (the next
 * mapf_grid_flow() builds one for the new map). Components and usable cells stay as they were:
 * a run with map changes computes them once, on every cell open at some time of the run
 * (sim.c), so a cell's component says where it may lead, not where it leads now. Cells must be
 * inside g. For a grid one thread owns: never on a shared one. */
void mapf_grid_set_cells(mapf_grid *g, const int32_t *cells, const uint8_t *open, int32_t n);

/* Sets g's move set to 4 or 8 and finishes it again (mapf_grid_finish). Components and
 * usable cells do not change: without corner cutting a diagonal move joins nothing the two
 * cardinal moves beside it do not. Returns MAPF_OK, MAPF_EINVAL for another value, or
 * MAPF_ENOMEM. Call before the grid is shared. */
int mapf_grid_set_connectivity(mapf_grid *g, int connectivity);

/* Whether c is a move set a grid takes (4 or 8). */
static inline int mapf_connectivity_ok(long long c) { return c == 4 || c == 8; }

/* Frees g and everything it owns (its flow annotation too); NULL is a no-op. */
void mapf_grid_free(mapf_grid *g);

/* Loads a MovingAI .map file (movingai.c). Every terrain character of the format is accepted:
 * passable `.` `G` `S`; blocked `@` `O` `T` `W`. On malformed input returns MAPF_EPARSE with
 * FILE:LINE:COL in d; MAPF_EIO when the file cannot be read. *out is set only on success. */
int mapf_grid_load(const char *path, mapf_grid **out, mapf_diag *d);

/* The same, from a buffer; path is used in messages and for the grid's name. */
int mapf_grid_parse(const char *buf, size_t len, const char *path, mapf_grid **out,
                    mapf_diag *d);

/* Reads the regular file at path whole into a malloc'd buffer (the caller frees it), NUL
 * terminated after *outlen bytes; every file input (maps, scenarios, plans) goes through it
 * (movingai.c). Anything else is refused without blocking, a FIFO included: MAPF_EIO with
 * "is a directory" or "is not a regular file (a FIFO)" in d, or "cannot open file: " and the
 * system's reason ("No such file or directory", "Permission denied"). MAPF_EPARSE when the
 * file is longer than max bytes, MAPF_ENOMEM. */
int mapf_read_file(const char *path, size_t max, char **out, size_t *outlen, mapf_diag *d);

static inline int32_t mapf_grid_x(const mapf_grid *g, int32_t id) { return id % g->width; }
static inline int32_t mapf_grid_y(const mapf_grid *g, int32_t id) { return id / g->width; }
static inline int32_t mapf_grid_id(const mapf_grid *g, int32_t x, int32_t y) {
  return y * g->width + x;
}
static inline int mapf_grid_in(const mapf_grid *g, int32_t x, int32_t y) {
  return x >= 0 && y >= 0 && x < g->width && y < g->height;
}

/* The octile distance between cells a and b: max(dx,dy) + (sqrt(2)-1) * min(dx,dy). */
static inline double mapf_octile(const mapf_grid *g, int32_t a, int32_t b) {
  int32_t dx = mapf_grid_x(g, a) - mapf_grid_x(g, b);
  int32_t dy = mapf_grid_y(g, a) - mapf_grid_y(g, b);
  if (dx < 0) dx = -dx;
  if (dy < 0) dy = -dy;
  return dx > dy ? dx + (MAPF_SQRT2 - 1.0) * dy : dy + (MAPF_SQRT2 - 1.0) * dx;
}

/* The octile distance from (x, y) to (gx, gy), for search loops that track coordinates and so
 * avoid the divisions of mapf_octile. */
static inline double mapf_octile_xy(int32_t x, int32_t y, int32_t gx, int32_t gy) {
  int32_t dx = x > gx ? x - gx : gx - x;
  int32_t dy = y > gy ? y - gy : gy - y;
  return dx > dy ? dx + (MAPF_SQRT2 - 1.0) * dy : dy + (MAPF_SQRT2 - 1.0) * dx;
}

/* The grid's distance heuristic from (x, y) to (gx, gy): octile under 8 moves, Manhattan under
 * 4 (the exact distance of each move set on an empty map, so admissible and consistent). */
static inline double mapf_grid_h_xy(const mapf_grid *g, int32_t x, int32_t y, int32_t gx,
                                    int32_t gy) {
  if (g->connectivity != 4) return mapf_octile_xy(x, y, gx, gy);
  return (double)((x > gx ? x - gx : gx - x) + (y > gy ? y - gy : gy - y));
}

/* The same between cells a and b. */
static inline double mapf_grid_h(const mapf_grid *g, int32_t a, int32_t b) {
  return mapf_grid_h_xy(g, mapf_grid_x(g, a), mapf_grid_y(g, a), mapf_grid_x(g, b),
                        mapf_grid_y(g, b));
}

/* Euclidean distance between cells a and b (BMAA* vision, Sigurdson et al. 2018 Alg. 5 line 15). */
double mapf_euclid(const mapf_grid *g, int32_t a, int32_t b);

/* Direction of the move from a to an adjacent cell b, or -1 when b is not one of a's eight
 * neighbours. Legality is a separate question: test g->moves[a] >> dir & 1. */
int mapf_grid_dir(const mapf_grid *g, int32_t a, int32_t b);

#endif
