/* test_mapgen.c: the seeded map generators (mapgen.c). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mapgen.h"

static mapf_grid *gen(const mapf_mapgen_params *p) {
  mapf_grid *g = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  int rc = mapf_mapgen(p, &g, &d);
  cr_assert_eq(rc, MAPF_OK, "mapgen failed: %s", d.msg);
  cr_assert_not_null(g);
  cr_assert_null(g->terrain);
  cr_assert_not_null(g->component, "generated grids come finished");
  return g;
}

static mapf_mapgen_params params(mapf_mapgen_kind kind, int32_t w, int32_t h, uint64_t seed) {
  mapf_mapgen_params p;
  mapf_mapgen_defaults(&p, kind);
  p.width = w;
  p.height = h;
  p.seed = seed;
  return p;
}

static void expect_invalid(const mapf_mapgen_params *p, const char *msg) {
  mapf_grid *g = NULL;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  cr_assert_eq(mapf_mapgen(p, &g, &d), MAPF_EINVAL);
  cr_assert_null(g);
  cr_assert_str_eq(d.msg, msg);
}

/* The number of pairs of 4-adjacent passable cells. */
static int64_t adjacent_pairs(const mapf_grid *g) {
  int64_t e = 0;
  for (int32_t y = 0; y < g->height; y++)
    for (int32_t x = 0; x < g->width; x++) {
      if (!g->passable[mapf_grid_id(g, x, y)]) continue;
      if (x + 1 < g->width && g->passable[mapf_grid_id(g, x + 1, y)]) e++;
      if (y + 1 < g->height && g->passable[mapf_grid_id(g, x, y + 1)]) e++;
    }
  return e;
}

/* ---- parameters and names ------------------------------------------------------------ */

Test(mapgen, sets_documented_defaults) {
  mapf_mapgen_params p;
  mapf_mapgen_defaults(&p, MAPF_MAPGEN_ROOMS);
  cr_assert_eq(p.kind, MAPF_MAPGEN_ROOMS);
  cr_assert_eq(p.width, 32);
  cr_assert_eq(p.height, 32);
  cr_assert_float_eq(p.density, 0.2, 0);
  cr_assert_eq(p.room, 8);
  cr_assert_eq(p.doors, 1);
  cr_assert_eq(p.corridor, 1);
  cr_assert_eq(p.seed, 0);
}

Test(mapgen, parses_and_names_kinds) {
  cr_assert_eq(mapf_mapgen_kind_parse("random"), MAPF_MAPGEN_RANDOM);
  cr_assert_eq(mapf_mapgen_kind_parse("rooms"), MAPF_MAPGEN_ROOMS);
  cr_assert_eq(mapf_mapgen_kind_parse("maze"), MAPF_MAPGEN_MAZE);
  cr_assert_eq(mapf_mapgen_kind_parse("Maze"), -1);
  cr_assert_eq(mapf_mapgen_kind_parse(""), -1);
  for (int k = 0; k < 3; k++)
    cr_assert_eq(mapf_mapgen_kind_parse(mapf_mapgen_kind_name((mapf_mapgen_kind)k)), k);
}

Test(mapgen, names_encode_every_parameter) {
  mapf_mapgen_params p = params(MAPF_MAPGEN_RANDOM, 64, 64, 7);
  mapf_grid *g = gen(&p);
  cr_assert_str_eq(g->name, "random-64x64-d0.2-s7");
  mapf_grid_free(g);
  p.density = 0.125;
  p.height = 50;
  g = gen(&p);
  cr_assert_str_eq(g->name, "random-64x50-d0.125-s7");
  mapf_grid_free(g);
  p = params(MAPF_MAPGEN_ROOMS, 64, 64, 7);
  g = gen(&p);
  cr_assert_str_eq(g->name, "rooms-64x64-r8-k1-s7");
  mapf_grid_free(g);
  p = params(MAPF_MAPGEN_MAZE, 64, 64, 7);
  p.corridor = 2;
  g = gen(&p);
  cr_assert_str_eq(g->name, "maze-64x64-c2-s7");
  mapf_grid_free(g);
  p.seed = UINT64_MAX;
  g = gen(&p);
  cr_assert_str_eq(g->name, "maze-64x64-c2-s18446744073709551615");
  mapf_grid_free(g);
}

Test(mapgen, rejects_density_out_of_range) {
  mapf_mapgen_params p = params(MAPF_MAPGEN_RANDOM, 8, 8, 0);
  p.density = 1.5;
  expect_invalid(&p, "density: expected a number in [0, 0.9], found 1.5");
  p.density = -0.1;
  expect_invalid(&p, "density: expected a number in [0, 0.9], found -0.1");
  p.density = NAN;
  mapf_grid *g = NULL;
  mapf_diag d;
  cr_assert_eq(mapf_mapgen(&p, &g, &d), MAPF_EINVAL);
  cr_assert_not_null(strstr(d.msg, "density: expected a number in [0, 0.9], found"));
}

Test(mapgen, rejects_sizes_out_of_range) {
  mapf_mapgen_params p = params(MAPF_MAPGEN_MAZE, 0, 8, 0);
  expect_invalid(&p, "width: expected an integer in 1..16384, found 0");
  p = params(MAPF_MAPGEN_MAZE, 8, 16385, 0);
  expect_invalid(&p, "height: expected an integer in 1..16384, found 16385");
  p = params(MAPF_MAPGEN_ROOMS, 16384, 16384, 0);
  expect_invalid(&p, "size: 16384 x 16384 = 268435456 cells exceeds the limit of 67108864 cells");
}

Test(mapgen, rejects_bad_rooms_and_maze_parameters) {
  mapf_mapgen_params p = params(MAPF_MAPGEN_ROOMS, 8, 8, 0);
  p.room = 1;
  expect_invalid(&p, "room: expected an integer >= 2, found 1");
  p.room = 4;
  p.doors = 0;
  expect_invalid(&p, "doors: expected an integer >= 1, found 0");
  p = params(MAPF_MAPGEN_MAZE, 8, 8, 0);
  p.corridor = 0;
  expect_invalid(&p, "corridor: expected an integer >= 1, found 0");
  p = params((mapf_mapgen_kind)7, 8, 8, 0);
  expect_invalid(&p, "generator: expected random, rooms or maze, found kind 7");
}

Test(mapgen, ignores_parameters_of_other_kinds) {
  mapf_mapgen_params p = params(MAPF_MAPGEN_MAZE, 8, 8, 0);
  p.density = 5;
  p.room = 0;
  p.doors = 0;
  mapf_grid *g = gen(&p);
  mapf_grid_free(g);
}

/* ---- determinism ------------------------------------------------------------------------ */

typedef struct kind_case {
  mapf_mapgen_kind kind;
} kind_case;

ParameterizedTestParameters(mapgen, same_seed_same_grid_and_different_seed_different_grid) {
  static kind_case cases[] = {{MAPF_MAPGEN_RANDOM}, {MAPF_MAPGEN_ROOMS}, {MAPF_MAPGEN_MAZE}};
  return cr_make_param_array(kind_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(kind_case *c, mapgen, same_seed_same_grid_and_different_seed_different_grid) {
  mapf_mapgen_params p = params(c->kind, 64, 48, 7);
  mapf_grid *a = gen(&p), *b = gen(&p);
  cr_assert_eq(a->hash, b->hash);
  cr_assert_eq(memcmp(a->passable, b->passable, (size_t)a->ncells), 0);
  cr_assert_str_eq(a->name, b->name);
  p.seed = 8;
  mapf_grid *o = gen(&p);
  cr_assert_neq(a->hash, o->hash);
  mapf_grid_free(a);
  mapf_grid_free(b);
  mapf_grid_free(o);
}

Test(mapgen, produces_the_same_grids_on_every_platform) {
  /* Pinned content hashes: a change here changes every generated map, and so every job key. */
  mapf_mapgen_params p = params(MAPF_MAPGEN_RANDOM, 16, 16, 1);
  mapf_grid *g = gen(&p);
  uint64_t h_random = g->hash;
  mapf_grid_free(g);
  p = params(MAPF_MAPGEN_ROOMS, 20, 20, 1);
  g = gen(&p);
  uint64_t h_rooms = g->hash;
  mapf_grid_free(g);
  p = params(MAPF_MAPGEN_MAZE, 15, 15, 1);
  g = gen(&p);
  uint64_t h_maze = g->hash;
  mapf_grid_free(g);
  cr_log_info("hashes %016llx %016llx %016llx", (unsigned long long)h_random,
              (unsigned long long)h_rooms, (unsigned long long)h_maze);
  cr_assert_eq(h_random, UINT64_C(0xcb81c02de974c5bf));
  cr_assert_eq(h_rooms, UINT64_C(0x0c52af3fe9acf74b));
  cr_assert_eq(h_maze, UINT64_C(0x3a4ead016b1412d9));
}

/* ---- random ------------------------------------------------------------------------------ */

Test(mapgen, random_density_is_roughly_the_parameter) {
  double densities[] = {0.0, 0.1, 0.2, 0.35, 0.9};
  for (int i = 0; i < 5; i++) {
    mapf_mapgen_params p = params(MAPF_MAPGEN_RANDOM, 256, 256, 3);
    p.density = densities[i];
    mapf_grid *g = gen(&p);
    double blocked = 1.0 - (double)g->npassable / g->ncells;
    /* 65,536 cells: the standard deviation is at most 0.002. */
    cr_assert(fabs(blocked - p.density) < 0.01, "density %g gave %g", p.density, blocked);
    mapf_grid_free(g);
  }
}

Test(mapgen, random_with_zero_density_is_open) {
  mapf_mapgen_params p = params(MAPF_MAPGEN_RANDOM, 33, 7, 0);
  p.density = 0;
  mapf_grid *g = gen(&p);
  cr_assert_eq(g->npassable, 33 * 7);
  cr_assert_eq(g->ncomponents, 1);
  cr_assert_str_eq(g->name, "random-33x7-d0-s0");
  mapf_grid_free(g);
}

/* ---- rooms -------------------------------------------------------------------------------- */

Test(mapgen, rooms_are_fully_connected) {
  int32_t sizes[][2] = {{64, 64}, {17, 8}, {100, 37}, {9, 9}, {3, 50}, {1, 100}, {100, 1}};
  int32_t rooms[] = {2, 3, 8, 15};
  int32_t doors[] = {1, 2, 5};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t r = 0; r < 4; r++)
      for (size_t k = 0; k < 3; k++)
        for (uint64_t seed = 0; seed < 3; seed++) {
          mapf_mapgen_params p = params(MAPF_MAPGEN_ROOMS, sizes[s][0], sizes[s][1], seed);
          p.room = rooms[r];
          p.doors = doors[k];
          mapf_grid *g = gen(&p);
          cr_assert_eq(g->ncomponents, 1, "%s has %d components", g->name, g->ncomponents);
          mapf_grid_free(g);
        }
}

Test(mapgen, rooms_open_the_requested_doors_per_wall) {
  /* 17 x 8 with rooms of 8: two rooms side by side and one wall column x = 8 of 8 cells. */
  int32_t want[] = {0, 1, 2, 3, 4, 8};
  for (int32_t k = 1; k <= 5; k++) {
    mapf_mapgen_params p = params(MAPF_MAPGEN_ROOMS, 17, 8, (uint64_t)k);
    p.doors = k == 5 ? 20 : k;
    mapf_grid *g = gen(&p);
    int32_t open = 0;
    for (int32_t y = 0; y < 8; y++) open += g->passable[mapf_grid_id(g, 8, y)];
    cr_assert_eq(open, want[k == 5 ? 5 : k], "doors=%d gave %d openings", p.doors, open);
    cr_assert_eq(g->npassable, 16 * 8 + open);
    mapf_grid_free(g);
  }
}

Test(mapgen, rooms_keep_wall_crossings_blocked) {
  mapf_mapgen_params p = params(MAPF_MAPGEN_ROOMS, 64, 64, 5);
  p.room = 4;
  p.doors = 4;
  mapf_grid *g = gen(&p);
  for (int32_t y = 4; y < 64; y += 5)
    for (int32_t x = 4; x < 64; x += 5) cr_assert_eq(g->passable[mapf_grid_id(g, x, y)], 0);
  /* doors = room: every wall cell except the 12 x 12 crossings is open. */
  cr_assert_eq(g->npassable, 64 * 64 - 12 * 12);
  mapf_grid_free(g);
}

/* ---- maze --------------------------------------------------------------------------------- */

Test(mapgen, mazes_are_fully_connected) {
  int32_t sizes[][2] = {{64, 64}, {63, 63}, {100, 37}, {5, 5}, {2, 50}, {1, 100}, {100, 1}};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int32_t c = 1; c <= 4; c++)
      for (uint64_t seed = 0; seed < 5; seed++) {
        mapf_mapgen_params p = params(MAPF_MAPGEN_MAZE, sizes[s][0], sizes[s][1], seed);
        p.corridor = c;
        mapf_grid *g = gen(&p);
        cr_assert_eq(g->ncomponents, 1, "%s has %d components", g->name, g->ncomponents);
        mapf_grid_free(g);
      }
}

Test(mapgen, maze_is_perfect) {
  /* 63 x 63 with corridor 1: a 32 x 32 lattice of cells, a spanning tree of 1023 passages, and
   * no cycle: the passable cells, 4-connected, form a tree (edges = nodes - 1). */
  for (uint64_t seed = 0; seed < 10; seed++) {
    mapf_mapgen_params p = params(MAPF_MAPGEN_MAZE, 63, 63, seed);
    mapf_grid *g = gen(&p);
    cr_assert_eq(g->npassable, 32 * 32 + 32 * 32 - 1);
    cr_assert_eq(adjacent_pairs(g), g->npassable - 1);
    mapf_grid_free(g);
  }
}

Test(mapgen, wide_corridors_have_the_requested_width) {
  /* Corridor 3 on 27 x 27: a 5 x 5 lattice of 3 x 3 squares with 24 passages of 3 x 3. */
  mapf_mapgen_params p = params(MAPF_MAPGEN_MAZE, 27, 27, 4);
  p.corridor = 3;
  mapf_grid *g = gen(&p);
  cr_assert_eq(g->npassable, 9 * (25 + 24));
  /* Rows 3..5 and columns 3..5 between squares are walls or full passages: the cell block
   * (3..5, 0..2) is all open or all blocked. */
  int open = 0;
  for (int32_t y = 0; y < 3; y++)
    for (int32_t x = 3; x < 6; x++) open += g->passable[mapf_grid_id(g, x, y)];
  cr_assert(open == 0 || open == 9);
  mapf_grid_free(g);
}

Test(mapgen, builds_a_large_maze_without_recursion, .timeout = 120) {
  /* A 2048 x 2048 maze: 1M lattice cells, far deeper than any call stack would allow. */
  mapf_mapgen_params p = params(MAPF_MAPGEN_MAZE, 2048, 2048, 11);
  mapf_grid *g = gen(&p);
  cr_assert_eq(g->ncomponents, 1);
  mapf_grid_free(g);
}

/* ---- pathological sizes ----------------------------------------------------------------- */

Test(mapgen, one_cell_maps) {
  for (int k = 0; k < 3; k++) {
    mapf_mapgen_params p = params((mapf_mapgen_kind)k, 1, 1, 0);
    p.density = 0;
    mapf_grid *g = gen(&p);
    cr_assert_eq(g->ncells, 1);
    cr_assert_eq(g->npassable, 1, "%s", g->name);
    mapf_grid_free(g);
  }
}

Test(mapgen, maps_of_one_row) {
  mapf_mapgen_params p = params(MAPF_MAPGEN_ROOMS, 100, 1, 0);
  mapf_grid *g = gen(&p);
  cr_assert_eq(g->npassable, 100, "the one-cell walls of a single row are all doors");
  mapf_grid_free(g);
  p = params(MAPF_MAPGEN_MAZE, 100, 1, 0);
  g = gen(&p);
  cr_assert_eq(g->npassable, 99); /* cells and passages at x = 0..98, x = 99 is wall */
  cr_assert_eq(g->ncomponents, 1);
  mapf_grid_free(g);
  p = params(MAPF_MAPGEN_RANDOM, 100, 1, 0);
  g = gen(&p);
  cr_assert_eq(g->height, 1);
  mapf_grid_free(g);
}

Test(mapgen, huge_room_or_corridor_gives_an_open_map) {
  mapf_mapgen_params p = params(MAPF_MAPGEN_ROOMS, 10, 10, 0);
  p.room = INT32_MAX;
  p.doors = INT32_MAX;
  mapf_grid *g = gen(&p);
  cr_assert_eq(g->npassable, 100);
  mapf_grid_free(g);
  p = params(MAPF_MAPGEN_MAZE, 10, 10, 0);
  p.corridor = INT32_MAX;
  g = gen(&p);
  cr_assert_eq(g->npassable, 100);
  mapf_grid_free(g);
}

/* The table of generator keys (core/mapgen.c) that plans, `mapfarm generators` and
 * mapf_mapgen_defaults read: distinct names, `kind` first, each key taken by some kind, every
 * default inside its range, fields inside mapf_mapgen_params, and the defaults it gives. */
Test(mapgen, one_table_declares_every_key) {
  cr_assert_eq(mapf_mapgen_key_count(), MAPF_MAPGEN_NKEYS);
  cr_assert_str_eq(mapf_mapgen_key_at(0)->name, "kind");
  cr_assert_null(mapf_mapgen_key_at(MAPF_MAPGEN_NKEYS));
  for (int32_t i = 0; i < MAPF_MAPGEN_NKEYS; i++) {
    const mapf_mapgen_key *k = mapf_mapgen_key_at(i);
    cr_assert(k->kinds != 0, "%s", k->name);
    cr_assert_lt(k->offset, sizeof(mapf_mapgen_params), "%s", k->name);
    for (int32_t j = 0; j < i; j++) cr_assert_str_neq(mapf_mapgen_key_at(j)->name, k->name);
    if (k->type == MAPF_MAPGEN_KEY_INT || k->type == MAPF_MAPGEN_KEY_REAL)
      cr_assert(k->def >= k->min && k->def <= k->max, "%s: default %g", k->name, k->def);
  }
  mapf_mapgen_params p;
  mapf_mapgen_defaults(&p, MAPF_MAPGEN_ROOMS);
  cr_assert_eq(p.kind, MAPF_MAPGEN_ROOMS);
  cr_assert_eq(p.width, 32);
  cr_assert_eq(p.height, 32);
  cr_assert_float_eq(p.density, 0.2, 0);
  cr_assert_eq(p.room, 8);
  cr_assert_eq(p.doors, 1);
  cr_assert_eq(p.corridor, 1);
  cr_assert_eq(p.seed, 0);
}
