/* mapgen.h: seeded map generators, so plans can run without any external data.
 *
 * The same parameters and seed give the same grid on every platform (all randomness from
 * mapf_rng). Generated grids are finished (mapf_grid_finish) before they are returned. */
#ifndef MAPF_MAPGEN_H
#define MAPF_MAPGEN_H

#include <stdint.h>

#include "grid.h"

typedef enum {
  MAPF_MAPGEN_RANDOM, /* each cell blocked with probability `density` */
  MAPF_MAPGEN_ROOMS,  /* a lattice of square rooms of side `room`, walls one cell thick, with
                         `doors` random one-cell openings per shared wall */
  MAPF_MAPGEN_MAZE    /* a perfect maze (randomised depth-first) with corridors and walls
                         `corridor` cells wide */
} mapf_mapgen_kind;
#define MAPF_MAPGEN_NKINDS 3

typedef struct mapf_mapgen_params {
  mapf_mapgen_kind kind;
  int32_t width, height; /* 1 .. MAPF_GRID_MAX_SIDE */
  double density;        /* random: blocked fraction in [0, 0.9]; default 0.2 */
  int32_t room;          /* rooms: interior side length >= 2; default 8 */
  int32_t doors;         /* rooms: openings per wall between two rooms, >= 1; default 1 */
  int32_t corridor;      /* maze: corridor width >= 1; default 1 */
  uint64_t seed;
} mapf_mapgen_params;

/* Sets the defaults above for kind, with width = height = 32 and seed 0. */
void mapf_mapgen_defaults(mapf_mapgen_params *p, mapf_mapgen_kind kind);

/* Returns the kind for "random", "rooms" or "maze", or -1. */
int mapf_mapgen_kind_parse(const char *name);
/* Returns "random", "rooms" or "maze". */
const char *mapf_mapgen_kind_name(mapf_mapgen_kind kind);
/* One line saying what kind generates (for help). */
const char *mapf_mapgen_kind_doc(mapf_mapgen_kind kind);

/* Generates a grid. Returns MAPF_OK and a finished grid in *out (free with mapf_grid_free), or
 * MAPF_EINVAL with a message in d when a parameter is out of range, or MAPF_ENOMEM. The grid's
 * name encodes every parameter, e.g. "random-64x64-d0.2-s7". */
int mapf_mapgen(const mapf_mapgen_params *p, mapf_grid **out, mapf_diag *d);

#endif
