/* test_landmark.c: landmark tables and shortest paths in moves (core/landmark.c): every search
 * gives the breadth-first distance and a legal path of that many moves, with and without
 * landmarks, on generated maps of every kind, both move sets, and a MovingAI map. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "landmark.h"
#include "rng.h"
#include "testutil.h"

TestSuite(landmark, .timeout = 120);

/* Whether b is one legal move from a on g. */
static int is_move(const mapf_grid *g, int32_t a, int32_t b) {
  for (int d = 0; d < 8; d++)
    if ((g->moves[a] >> d & 1) && a + g->offset[d] == b) return 1;
  return 0;
}

/* queries random pairs of usable cells of g: the search's moves equal the BFS distance (-1
 * across components), its path runs from s to t by legal moves, one cell per move. */
static void check_searches(const mapf_grid *g, const mapf_landmarks *lm, int queries,
                           uint64_t seed) {
  mapf_moves_search *ms = mapf_moves_search_new();
  uint32_t *dist = malloc((size_t)g->ncells * sizeof *dist);
  int32_t *queue = malloc((size_t)g->ncells * sizeof *queue);
  int32_t *path = malloc((size_t)g->ncells * sizeof *path);
  cr_assert(ms && dist && queue && path);
  mapf_rng r;
  mapf_rng_seed(&r, seed);
  for (int q = 0; q < queries; q++) {
    int32_t s = g->usable[mapf_rng_below(&r, (uint64_t)g->nusable)];
    int32_t t = g->usable[mapf_rng_below(&r, (uint64_t)g->nusable)];
    mapf_bfs_moves(g, s, dist, queue);
    int32_t len = g->ncells;
    int64_t expanded = 0;
    int64_t m = mapf_shortest_moves(ms, g, lm, s, t, path, &len, &expanded);
    int64_t want = dist[t] == UINT32_MAX ? -1 : (int64_t)dist[t];
    cr_assert_eq(m, want, "%s: %d -> %d: %lld moves, BFS %lld", g->name, (int)s, (int)t,
                 (long long)m, (long long)want);
    if (m < 0) continue;
    cr_assert_eq(len, m + 1);
    cr_assert_eq(path[0], s);
    cr_assert_eq(path[len - 1], t);
    for (int32_t k = 1; k < len; k++)
      cr_assert(is_move(g, path[k - 1], path[k]), "%s: step %d of %d -> %d is no move", g->name,
                (int)k, (int)s, (int)t);
  }
  mapf_moves_search_free(ms);
  free(dist), free(queue), free(path);
}

Test(landmark, distances_and_paths_match_breadth_first_search) {
  mapf_grid *maps[] = {
      test_mapgen(MAPF_MAPGEN_RANDOM, 60, 50, 0.3, 0, 1),
      test_mapgen(MAPF_MAPGEN_MAZE, 63, 41, 0, 1, 2),
      test_mapgen(MAPF_MAPGEN_ROOMS, 64, 64, 0, 0, 3),
      test_mapgen(MAPF_MAPGEN_RANDOM, 40, 40, 0.45, 0, 4), /* many components */
  };
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
    for (int conn = 8; conn >= 4; conn -= 4) {
      cr_assert_eq(mapf_grid_set_connectivity(maps[i], conn), MAPF_OK);
      mapf_landmarks *none = mapf_landmarks_new(maps[i], 0), *lm = mapf_landmarks_new(maps[i], 8);
      cr_assert(none && lm);
      cr_assert_eq(none->k, 0);
      cr_assert_eq(lm->k, 8);
      check_searches(maps[i], none, 200, 10 + i);
      check_searches(maps[i], lm, 200, 10 + i);
      mapf_landmarks_free(none);
      mapf_landmarks_free(lm);
    }
    mapf_grid_free(maps[i]);
  }
}

/* On a MovingAI map: exact distances, and the landmarks cut the expansions (den520d: some 16
 * times fewer on these queries). */
Test(landmark, landmarks_cut_expansions_on_a_real_map) {
  REQUIRE_MAPS(maps);
  mapf_grid *g = test_load_movingai(maps, "bench/den520d.map");
  mapf_landmarks *lm = mapf_landmarks_new(g, 8), *none = mapf_landmarks_new(g, 0);
  check_searches(g, lm, 100, 7);
  mapf_moves_search *ms = mapf_moves_search_new();
  mapf_rng r;
  mapf_rng_seed(&r, 3);
  int64_t with = 0, without = 0;
  for (int q = 0; q < 50; q++) {
    int32_t s = g->usable[mapf_rng_below(&r, (uint64_t)g->nusable)];
    int32_t t = g->usable[mapf_rng_below(&r, (uint64_t)g->nusable)];
    int64_t e1 = 0, e2 = 0;
    int64_t a = mapf_shortest_moves(ms, g, lm, s, t, NULL, NULL, &e1);
    int64_t b = mapf_shortest_moves(ms, g, none, s, t, NULL, NULL, &e2);
    cr_assert_eq(a, b);
    with += e1;
    without += e2;
  }
  cr_expect(with * 4 < without, "%lld expansions with landmarks, %lld without", (long long)with,
            (long long)without);
  mapf_moves_search_free(ms);
  mapf_landmarks_free(lm);
  mapf_landmarks_free(none);
  mapf_grid_free(g);
}

/* Landmarks are farthest-point spread over the largest component; a map too large for the
 * tables gets none (and the searches work without). */
Test(landmark, placement_and_size_limit) {
  const char *rows[] = {".......", "@@@@@@@", ".......", ".@@@@@.", "......."};
  mapf_grid *g = test_grid_from_rows(rows, 5);
  mapf_landmarks *lm = mapf_landmarks_new(g, 2);
  cr_assert_eq(lm->k, 2);
  /* The largest component is the ring of 16 cells of rows 2 to 4 (a cycle: no corner cutting
   * past the blocked cells). The first landmark is the cell farthest from its first cell,
   * (0, 2): (6, 4), 8 moves either way round; the second the farthest from that: (0, 2). Row
   * 0 is another component: no distance. */
  cr_expect_eq(lm->cell[0], mapf_grid_id(g, 6, 4));
  cr_expect_eq(lm->cell[1], mapf_grid_id(g, 0, 2));
  cr_expect_eq(lm->d[(size_t)mapf_grid_id(g, 3, 0) * 2], UINT16_MAX);
  cr_expect_eq(lm->d[(size_t)mapf_grid_id(g, 6, 4) * 2], 0);
  cr_expect_eq(lm->d[(size_t)mapf_grid_id(g, 0, 2) * 2], 8);
  cr_expect_eq(lm->d[(size_t)mapf_grid_id(g, 3, 2) * 2 + 1], 3);
  mapf_landmarks_free(lm);
  mapf_grid_free(g);
  mapf_grid *big = test_open_grid(1100, 1000, "big"); /* 1.1 million cells * 16 bytes > 16 MiB */
  lm = mapf_landmarks_new(big, 8);
  cr_assert_not_null(lm);
  cr_expect_eq(lm->k, 0);
  mapf_moves_search *ms = mapf_moves_search_new();
  cr_expect_eq(mapf_shortest_moves(ms, big, lm, 0, mapf_grid_id(big, 30, 20), NULL, NULL, NULL),
               30);
  mapf_moves_search_free(ms);
  mapf_landmarks_free(lm);
  mapf_grid_free(big);
}

/* Which shortest path a search takes, pinned: an FNV-1a hash of every path's cells and moves
 * over random queries, with and without landmarks, on maps with many equal shortest paths
 * (random obstacles, rooms; both move sets). The instance features count the paths' cells, so
 * a faster search must take the very same paths (or the features' version must change). */
static uint64_t path_hash(const mapf_grid *g, const mapf_landmarks *lm, int queries,
                          uint64_t seed) {
  mapf_moves_search *ms = mapf_moves_search_new();
  int32_t *path = malloc((size_t)g->ncells * sizeof *path);
  cr_assert(ms && path);
  mapf_rng r;
  mapf_rng_seed(&r, seed);
  uint64_t h = 14695981039346656037u;
  for (int q = 0; q < queries; q++) {
    int32_t s = g->usable[mapf_rng_below(&r, (uint64_t)g->nusable)];
    int32_t t = g->usable[mapf_rng_below(&r, (uint64_t)g->nusable)];
    int32_t len = g->ncells;
    int64_t m = mapf_shortest_moves(ms, g, lm, s, t, path, &len, NULL);
    h = (h ^ (uint64_t)(m + 2)) * 1099511628211u;
    for (int32_t k = 0; m >= 0 && k < len; k++) h = (h ^ (uint64_t)path[k]) * 1099511628211u;
  }
  mapf_moves_search_free(ms);
  free(path);
  return h;
}

Test(landmark, paths_taken_are_pinned) {
  mapf_grid *maps[] = {
      test_mapgen(MAPF_MAPGEN_RANDOM, 80, 70, 0.2, 0, 21),
      test_mapgen(MAPF_MAPGEN_ROOMS, 80, 80, 0, 0, 22),
  };
  /* per map, per move set (8, 4), per landmarks (none, 8, 16) */
  static const uint64_t want[2][2][3] = {
      {{0x3fbf55ab86cd3a97u, 0x56c063dc98e8ddb6u, 0x016679b9f64604b5u},
       {0xf7e4529b375bb426u, 0x6b135cbb7908121cu, 0xbbe74f8b6822d10fu}},
      {{0x2f27d6427cb3d262u, 0x6b988c79422faa80u, 0x1d36964558c1e3d4u},
       {0x8729743856b6be56u, 0x060c9350f4198925u, 0x1242a225e2b0e771u}}};
  static const int32_t ks[3] = {0, 8, 16};
  for (int i = 0; i < 2; i++) {
    for (int c = 0; c < 2; c++) {
      cr_assert_eq(mapf_grid_set_connectivity(maps[i], c ? 4 : 8), MAPF_OK);
      for (int k = 0; k < 3; k++) {
        mapf_landmarks *lm = mapf_landmarks_new(maps[i], ks[k]);
        uint64_t got = path_hash(maps[i], lm, 300, 30 + (uint64_t)i);
        cr_expect_eq(got, want[i][c][k], "%s, %d moves, %d landmarks: paths hash to 0x%016llx",
                     maps[i]->name, c ? 4 : 8, (int)ks[k], (unsigned long long)got);
        mapf_landmarks_free(lm);
      }
    }
    mapf_grid_free(maps[i]);
  }
}

/* A perfect maze one cell wide is a tree: its one path between two cells is read from the tree
 * (lm->up), the same moves and the same cells as the search takes, climbing only the path's
 * own cells. A map with a cycle gets no tree; so does a maze with one wall opened. */
Test(landmark, tree_paths_equal_the_searchs) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_MAZE, 81, 61, 0, 1, 9);
  for (int conn = 8; conn >= 4; conn -= 4) {
    cr_assert_eq(mapf_grid_set_connectivity(g, conn), MAPF_OK);
    mapf_landmarks *lm = mapf_landmarks_new(g, 16);
    cr_assert(lm && lm->up && lm->depth);
    mapf_landmarks searched = *lm;
    searched.up = NULL; /* the same landmarks, searched by A* */
    mapf_moves_search *ms = mapf_moves_search_new();
    int32_t *p1 = malloc((size_t)g->ncells * sizeof *p1), *p2 = malloc((size_t)g->ncells * sizeof *p2);
    mapf_rng r;
    mapf_rng_seed(&r, 5);
    int64_t climbed = 0, expanded = 0;
    for (int q = 0; q < 300; q++) {
      int32_t s = g->usable[mapf_rng_below(&r, (uint64_t)g->nusable)];
      int32_t t = g->usable[mapf_rng_below(&r, (uint64_t)g->nusable)];
      int32_t n1 = g->ncells, n2 = g->ncells;
      int64_t e1 = 0, e2 = 0;
      int64_t m1 = mapf_shortest_moves(ms, g, lm, s, t, p1, &n1, &e1);
      int64_t m2 = mapf_shortest_moves(ms, g, &searched, s, t, p2, &n2, &e2);
      cr_assert_eq(m1, m2, "%d -> %d: %lld moves in the tree, %lld searched", (int)s, (int)t,
                   (long long)m1, (long long)m2);
      cr_assert_eq(n1, n2);
      cr_assert(memcmp(p1, p2, (size_t)n1 * sizeof *p1) == 0, "%d -> %d: another path", (int)s,
                (int)t);
      cr_assert_eq(e1, m1 + 1);
      /* Too small a buffer: the length, no cells; no buffer: the moves alone. */
      int32_t small = n1 - 1;
      p1[0] = -7;
      if (m1 > 0) {
        cr_assert_eq(mapf_shortest_moves(ms, g, lm, s, t, p1, &small, NULL), m1);
        cr_assert_eq(small, n1);
        cr_assert_eq(p1[0], -7);
      }
      cr_assert_eq(mapf_shortest_moves(ms, g, lm, s, t, NULL, NULL, NULL), m1);
      climbed += e1;
      expanded += e2;
    }
    cr_expect(climbed < expanded, "%lld cells climbed, %lld expanded", (long long)climbed,
              (long long)expanded);
    mapf_moves_search_free(ms);
    mapf_landmarks_free(lm);
    free(p1), free(p2);
  }
  /* One wall between two corridors opened: a cycle, so no tree. */
  cr_assert_eq(mapf_grid_set_connectivity(g, 8), MAPF_OK);
  mapf_grid *h = mapf_grid_new(g->width, g->height, "opened");
  memcpy(h->passable, g->passable, (size_t)g->ncells);
  int32_t wall = -1;
  for (int32_t y = 1; y + 1 < g->height && wall < 0; y++)
    for (int32_t x = 1; x + 1 < g->width && wall < 0; x++) {
      int32_t c = mapf_grid_id(g, x, y);
      if (!g->passable[c] && g->passable[c - 1] && g->passable[c + 1] &&
          !g->passable[c - g->width] && !g->passable[c + g->width])
        wall = c; /* a wall between two cells of a row: opening it closes a cycle */
    }
  cr_assert(wall >= 0);
  h->passable[wall] = 1;
  cr_assert_eq(mapf_grid_finish(h), MAPF_OK);
  mapf_landmarks *lh = mapf_landmarks_new(h, 16), *lg = mapf_landmarks_new(g, 16);
  cr_expect_null(lh->up);
  cr_expect_not_null(lg->up);
  check_searches(h, lh, 100, 8);
  mapf_landmarks_free(lh);
  mapf_landmarks_free(lg);
  mapf_grid_free(h);
  mapf_grid_free(g);
  mapf_grid *rnd = test_mapgen(MAPF_MAPGEN_RANDOM, 60, 50, 0.3, 0, 1);
  mapf_landmarks *lr = mapf_landmarks_new(rnd, 8);
  cr_expect_null(lr->up);
  mapf_landmarks_free(lr);
  mapf_grid_free(rnd);
}
