/* test_dist.c: distance tables repaired after a map change (core/dist.c, mapf__dist_changed):
 * on generated maps and a real one, random closings and openings, several at once, cutting
 * regions off and joining them again, goals closing and opening, and after every change each
 * repaired table equal entry by entry to one searched from scratch on the changed map. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "events.h"
#include "mapgen.h"
#include "testutil.h"

TestSuite(dist, .timeout = 300);

/* Checks every table c holds for the current map: entry by entry the table a fresh cache
 * searches on g (its own index equal to c's: the components stay). */
static void check_tables(mapf__dist_cache *c, const mapf_grid *g, const int32_t *goal,
                         int32_t ngoal, const char *what, int round) {
  mapf__dist_cache fresh = {0};
  cr_assert_eq(mapf__dist_begin(&fresh, g), 0);
  cr_assert_eq(memcmp(fresh.local, c->local, (size_t)g->ncells * sizeof *c->local), 0);
  for (int32_t k = 0; k < ngoal; k++) {
    const uint32_t *d = mapf__dist_get(c, g, goal[k]);
    const uint32_t *want = mapf__dist_get(&fresh, g, goal[k]);
    cr_assert(d && want);
    int32_t size = g->component_size[g->component[goal[k]]];
    for (int32_t i = 0; i < size; i++)
      if (d[i] != want[i])
        cr_assert_fail("%s, round %d, goal %d: entry %d is %u, a search gives %u", what, round,
                       (int)goal[k], (int)i, d[i], want[i]);
  }
  mapf__dist_free(&fresh);
}

/* rounds random changes of g among the cells of cand[]: 1 to maxk cells at once, each closed
 * or opened at random (a cell may close and open in one change: the last holds), the goals
 * including changing cells. Every table of every round but the first is a repair of the last
 * round's. */
static void random_changes(mapf_grid *g, const int32_t *cand, int32_t ncand, int32_t maxk,
                           int rounds, uint64_t seed, int32_t share, const char *what) {
  mapf_rng rng;
  mapf_rng_seed(&rng, seed);
  int32_t goal[12], ngoal = 0;
  while (ngoal < 12) { /* distinct: a goal twice would find its table made */
    int32_t x = ngoal < 4 ? cand[mapf_rng_below(&rng, (uint64_t)ncand)]
                          : (int32_t)mapf_rng_below(&rng, (uint64_t)g->ncells);
    int32_t j = 0;
    while (j < ngoal && goal[j] != x) j++;
    if (g->passable[x] && j == ngoal) goal[ngoal++] = x;
  }
  mapf__dist_cache c = {.repair_share = share};
  cr_assert_eq(mapf__dist_begin(&c, g), 0);
  check_tables(&c, g, goal, ngoal, what, -1);
  int32_t *cells = malloc((size_t)maxk * sizeof *cells);
  uint8_t *open = malloc((size_t)maxk);
  cr_assert(cells && open);
  for (int round = 0; round < rounds; round++) {
    int32_t k = 1 + (int32_t)mapf_rng_below(&rng, (uint64_t)maxk);
    for (int32_t i = 0; i < k; i++) {
      cells[i] = cand[mapf_rng_below(&rng, (uint64_t)ncand)];
      open[i] = (uint8_t)mapf_rng_below(&rng, 2);
    }
    mapf_grid_set_cells(g, cells, open, k);
    int64_t before = c.repaired;
    cr_assert_eq(mapf__dist_changed(&c, g, cells, k), 0);
    check_tables(&c, g, goal, ngoal, what, round);
    /* Never giving up: each table repaired, unless the map came back to a state whose tables
     * are held. */
    if (share == 1)
      cr_assert(c.repaired - before == ngoal || c.repaired == before, "%s, round %d: %lld",
                what, round, (long long)(c.repaired - before));
  }
  cr_assert_gt(c.repaired, (int64_t)ngoal * rounds / (share == 1 ? 2 : 8), "%s: %lld repairs",
               what, (long long)c.repaired);
  free(cells);
  free(open);
  mapf__dist_free(&c);
}

/* Random and maze maps, both move sets: on a maze every corridor cell cuts the maze in two, so
 * closings cut regions off (the goal's table unreachable there) and openings join them. */
Test(dist, repaired_tables_equal_new_searches_on_generated_maps) {
  for (int conn = 4; conn <= 8; conn += 4)
    for (int kind = 0; kind < 2; kind++)
      for (int32_t share = 0; share <= 1; share++) { /* the default, and never giving up */
        mapf_grid *g = kind == 0 ? test_mapgen(MAPF_MAPGEN_RANDOM, 40, 30, 0.3, 1, 3)
                                 : test_mapgen(MAPF_MAPGEN_MAZE, 41, 31, 0, 1, 4);
        cr_assert_eq(mapf_grid_set_connectivity(g, conn), MAPF_OK);
        int32_t *cand = malloc((size_t)g->ncells * sizeof *cand), ncand = 0;
        cr_assert_not_null(cand);
        for (int32_t i = 0; i < g->ncells; i++)
          if (g->passable[i]) cand[ncand++] = i;
        char what[64];
        snprintf(what, sizeof what, "%s, %d moves, share %d", kind == 0 ? "random" : "maze",
                 conn, (int)share);
        random_changes(g, cand, ncand, 8, 60, 100 + (uint64_t)(conn + kind), share, what);
        free(cand);
        mapf_grid_free(g);
      }
}

/* A room behind one door, the goal in it, then on the door: closing the door leaves the room
 * unreachable from outside (UINT32_MAX, as a search leaves it), opening it restores the
 * distances; a closed goal reaches nothing but itself. */
Test(dist, a_door_cuts_a_room_off_and_joins_it_again) {
  static const char *const rows[] = {
      "......@....",
      "......@....",
      "...........",
      "......@....",
      "......@....",
  };
  mapf_grid *g = test_grid_from_rows(rows, 5);
  int32_t door = mapf_grid_id(g, 6, 2), goal[3] = {mapf_grid_id(g, 9, 1), door,
                                                     mapf_grid_id(g, 0, 4)};
  mapf__dist_cache c = {.repair_share = 1};
  cr_assert_eq(mapf__dist_begin(&c, g), 0);
  check_tables(&c, g, goal, 3, "open", 0);
  uint8_t shut = 0, open = 1;
  for (int round = 0; round < 3; round++) {
    mapf_grid_set_cells(g, &door, &shut, 1);
    cr_assert_eq(mapf__dist_changed(&c, g, &door, 1), 0);
    check_tables(&c, g, goal, 3, "closed", round);
    const uint32_t *d = mapf__dist_get(&c, g, goal[0]);
    cr_assert_eq(d[c.local[mapf_grid_id(g, 0, 0)]], UINT32_MAX, "cut off");
    cr_assert_eq(d[c.local[mapf_grid_id(g, 7, 2)]], 2);
    d = mapf__dist_get(&c, g, door);
    cr_assert_eq(d[c.local[door]], 0);
    cr_assert_eq(d[c.local[mapf_grid_id(g, 5, 2)]], UINT32_MAX, "a closed goal reaches nothing");
    mapf_grid_set_cells(g, &door, &open, 1);
    cr_assert_eq(mapf__dist_changed(&c, g, &door, 1), 0);
    check_tables(&c, g, goal, 3, "opened", round);
    cr_assert_eq(mapf__dist_get(&c, g, goal[0])[c.local[mapf_grid_id(g, 0, 0)]], 9);
  }
  /* The first closing repairs; the opened map is the first one, whose tables are held, and
   * so on. */
  cr_assert_eq(c.repaired, 3, "%lld repairs", (long long)c.repaired);
  mapf__dist_free(&c);
  mapf_grid_free(g);
}

/* bg512/AR0414SR (the map of the door study, docs/events.md) and its doors of width at most 4,
 * several closing and opening at once, as `--doors` does. */
Test(dist, repaired_tables_equal_new_searches_on_a_real_map) {
  REQUIRE_MAPS(maps);
  char path[4200];
  snprintf(path, sizeof path, "%s/bg512/AR0414SR.map", maps);
  mapf_grid *g = test_load_grid(path);
  mapf_door *door = NULL;
  int32_t ndoor = mapf_doors_find(g, 4, &door);
  cr_assert_gt(ndoor, 20);
  int32_t *cand = malloc((size_t)ndoor * 4 * sizeof *cand), ncand = 0;
  cr_assert_not_null(cand);
  for (int32_t i = 0; i < ndoor; i++)
    for (int32_t k = 0; k < door[i].len; k++) cand[ncand++] = door[i].cell + k * door[i].step;
  random_changes(g, cand, ncand, 16, 25, 7, 0, "AR0414SR");
  random_changes(g, cand, ncand, 16, 25, 8, 1, "AR0414SR, never giving up");
  free(cand);
  free(door);
  mapf_grid_free(g);
}
