/* mapgen.h: seeded map generators, so plans can run without any external data.
 *
 * The same parameters and seed give the same grid on every platform (all randomness from
 * mapf_rng). Generated grids are finished (mapf_grid_finish) before they are returned. */
#ifndef MAPF_MAPGEN_H
#define MAPF_MAPGEN_H

#include <stddef.h>
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

/* The parameters of the generators, declared once (mapgen.c): a plan's `generate:` entry,
 * `mapfarm generators` and mapf_mapgen_defaults read this table. Key 0 is `kind`, which
 * decides which other keys apply. */
typedef enum {
  MAPF_MAPGEN_KEY_KIND, /* a mapf_mapgen_kind, by name */
  MAPF_MAPGEN_KEY_INT,  /* an int32_t field */
  MAPF_MAPGEN_KEY_REAL, /* a double field */
  MAPF_MAPGEN_KEY_U64   /* a uint64_t field, any 64-bit value */
} mapf_mapgen_key_type;

typedef struct mapf_mapgen_key {
  const char *name;
  mapf_mapgen_key_type type;
  double min, max; /* inclusive (INT and REAL) */
  double def;      /* default when not given (unused for a required key) */
  int required;    /* a plan must give it */
  unsigned kinds;  /* bit k: map kind k takes this key */
  size_t offset;   /* of the field in mapf_mapgen_params */
  const char *doc; /* one line for help */
} mapf_mapgen_key;

/* Number of keys (a constant, for arrays indexed by key), and the i-th (0 <= i < count; NULL
 * otherwise). */
#define MAPF_MAPGEN_NKEYS 8
int32_t mapf_mapgen_key_count(void);
const mapf_mapgen_key *mapf_mapgen_key_at(int32_t i);

/* Sets every parameter to its table default for kind, with width = height = 32 (required in
 * plans) and seed 0. */
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
