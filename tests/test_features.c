/* test_features.c: instance features (farm/inst_features.c, `mapfarm features`): values on
 * hand-made maps, the same table for any thread count, and a failure that leaves the database
 * as it was. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inst_features.h"
#include "testutil.h"

TEST_TMPDIR("features");
TestSuite(features, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 300);

#define mapfarm(out, err, ...) test_mapfarm(tmpdir, NULL, out, err, __VA_ARGS__)

/* The value of feature `name` in v. */
static double feat(const double *v, const char *name) {
  for (int32_t i = 0; i < farm_nfeatures; i++)
    if (strcmp(farm_feature_columns[i].name, name) == 0) return v[i];
  cr_assert_fail("no feature %s", name);
  return NAN;
}

#define EQ(v, name, want) \
  cr_expect(fabs(feat(v, name) - (want)) < 1e-9, "%s = %.12g, expected %.12g", name, \
            feat(v, name), (double)(want))

/* A ring one cell wide around a block: every cell a corridor cell with two moves, one block
 * (a cycle has no articulation point), diameter 6 of a 12-cycle. */
Test(features, ring_is_all_corridor_without_articulation_points) {
  const char *rows[] = {".....", ".@@@.", "....."};
  mapf_grid *g = test_grid_from_rows(rows, 3);
  double v[64];
  cr_assert_eq(farm_features_map(g, v), MAPF_OK);
  EQ(v, "map_passable", 12);
  EQ(v, "map_obstacle_density", 3.0 / 15);
  EQ(v, "map_corridor_share", 1.0);
  EQ(v, "map_dead_end_share", 0.0);
  EQ(v, "map_moves_le2", 1.0);
  EQ(v, "map_articulation_share", 0.0);
  EQ(v, "map_blocks", 1);
  EQ(v, "map_largest_block", 1.0);
  EQ(v, "map_diameter", 6);
  mapf_grid_free(g);
}

/* A line of 5: the three inner cells are articulation points and corridor cells, the two ends
 * dead ends; each edge is a block of 2. */
Test(features, line_has_articulation_points_and_dead_ends) {
  const char *rows[] = {"....."};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  double v[64];
  cr_assert_eq(farm_features_map(g, v), MAPF_OK);
  EQ(v, "map_corridor_share", 3.0 / 5);
  EQ(v, "map_dead_end_share", 2.0 / 5);
  EQ(v, "map_articulation_share", 3.0 / 5);
  EQ(v, "map_blocks", 4);
  EQ(v, "map_largest_block", 2.0 / 5);
  EQ(v, "map_diameter", 4);
  mapf_grid_free(g);
}

/* Two 3 x 3 rooms joined by a door: the door and the two cells beside it are the articulation
 * points (no corner cutting: no diagonal move passes the door's wall), and the rooms are the
 * largest blocks (9 of 20 cells each); two blocks of one edge join them. */
Test(features, rooms_joined_by_a_door) {
  const char *rows[] = {"...@...", ".......", "...@..."};
  mapf_grid *g = test_grid_from_rows(rows, 3);
  double v[64];
  cr_assert_eq(farm_features_map(g, v), MAPF_OK);
  EQ(v, "map_passable", 19);
  EQ(v, "map_articulation_share", 3.0 / 19);
  EQ(v, "map_blocks", 4);
  EQ(v, "map_largest_block", 9.0 / 19);
  EQ(v, "map_components", 1);
  mapf_grid_free(g);
}

/* Two agents on a corridor, 0 -> 3 and 3 -> 5: paths {0,1,2,3} and {3,4,5} share cell 3 only:
 * 7 cells of paths on 6 distinct cells, the most on one cell 2, one of six shared; the second
 * agent's start is the first's goal; both head east. */
Test(features, path_overlap_on_a_corridor) {
  const char *rows[] = {"......"};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  const int xy[] = {0, 0, 3, 0, 3, 0, 5, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  double v[64];
  cr_assert_eq(farm_features_map(g, v), MAPF_OK);
  farm_feat_ws *ws = farm_feat_ws_new();
  mapf_diag d = {0};
  mapf_landmarks *lm = farm_features_landmarks(g);
  cr_assert_eq(farm_features_instance(g, lm, inst, ws, v, &d), MAPF_OK, "%s", d.msg);
  EQ(v, "agent_count", 2);
  EQ(v, "agent_density", 2.0 / 6);
  EQ(v, "dist_mean", 2.5);
  EQ(v, "dist_min", 2);
  EQ(v, "dist_max", 3);
  EQ(v, "detour_mean", 1.0);
  EQ(v, "path_use_mean", 7.0 / 6);
  EQ(v, "path_use_max", 2);
  EQ(v, "path_shared", 1.0 / 6);
  EQ(v, "path_coverage", 1.0);
  EQ(v, "path_load", 7.0 / 6);
  EQ(v, "heading_coherence", 1.0);
  EQ(v, "goal_on_start", 0.5);
  /* A detour: around the block of the ring, 2 straight cells away is 4 moves. */
  const char *ring[] = {".....", ".@@@.", "....."};
  mapf_grid *r = test_grid_from_rows(ring, 3);
  const int xy2[] = {1, 1 - 1, 1, 2};
  mapf_instance *i2 = test_instance_of(r, 1, xy2);
  cr_assert_eq(farm_features_map(r, v), MAPF_OK);
  mapf_landmarks *lr = farm_features_landmarks(r);
  cr_assert_eq(farm_features_instance(r, lr, i2, ws, v, &d), MAPF_OK, "%s", d.msg);
  EQ(v, "dist_mean", 4);
  EQ(v, "detour_mean", 2.0);
  farm_feat_ws_free(ws);
  mapf_landmarks_free(lm);
  mapf_landmarks_free(lr);
  mapf_instance_free(inst);
  mapf_instance_free(i2);
  mapf_grid_free(g);
  mapf_grid_free(r);
}

/* ---- algebraic connectivity ---------------------------------------------------------------- */

#define PI 3.14159265358979323846

/* map_fiedler of g, against want within rel (relative). */
static void fiedler_is(mapf_grid *g, double want, double rel) {
  double v[64];
  cr_assert_eq(farm_features_map(g, v), MAPF_OK);
  double got = feat(v, "map_fiedler");
  cr_expect(fabs(got - want) <= rel * want, "%s %dx%d: map_fiedler %.12g, expected %.12g", g->name,
            (int)g->width, (int)g->height, got, want);
  /* From above: the smallest Ritz value of a space without the constant vector. */
  cr_expect(got >= want * (1 - 1e-9), "%.12g below %.12g", got, want);
}

/* Closed forms (the Laplacian's second smallest eigenvalue): the path P_n, 2 (1 - cos(pi / n));
 * the cycle C_n, 2 (1 - cos(2 pi / n)); a k x m 4-connected grid, the product of two paths,
 * that of the longer side. Small graphs are solved whole (exact to rounding); past 256 cells
 * the multilevel estimate is within a small margin. */
Test(features, fiedler_value_of_paths_cycles_and_grids) {
  const char *line[] = {"......."};
  mapf_grid *g = test_grid_from_rows(line, 1);
  fiedler_is(g, 2 * (1 - cos(PI / 7)), 1e-9);
  mapf_grid_free(g);
  const char *ring[] = {".....", ".@@@.", "....."};
  g = test_grid_from_rows(ring, 3);
  fiedler_is(g, 2 * (1 - cos(2 * PI / 12)), 1e-9);
  mapf_grid_free(g);
  /* A ring around a larger block: 2 (7 + 5) - 4 = 20 cells. */
  const char *ring20[] = {".......", ".@@@@@.", ".@@@@@.", ".@@@@@.", "......."};
  g = test_grid_from_rows(ring20, 5);
  fiedler_is(g, 2 * (1 - cos(2 * PI / 20)), 1e-9);
  mapf_grid_free(g);
  g = test_open_grid(5, 3, "grid5x3");
  cr_assert_eq(mapf_grid_set_connectivity(g, 4), MAPF_OK);
  fiedler_is(g, 2 * (1 - cos(PI / 5)), 1e-9);
  mapf_grid_free(g);
  g = test_open_grid(9, 12, "grid9x12");
  cr_assert_eq(mapf_grid_set_connectivity(g, 4), MAPF_OK);
  fiedler_is(g, 2 * (1 - cos(PI / 12)), 1e-9);
  mapf_grid_free(g);
  /* Past FL_COARSE cells: the multilevel estimate. */
  g = test_open_grid(600, 1, "path600");
  fiedler_is(g, 2 * (1 - cos(PI / 600)), 1e-3);
  mapf_grid_free(g);
  g = test_open_grid(64, 40, "grid64x40");
  cr_assert_eq(mapf_grid_set_connectivity(g, 4), MAPF_OK);
  fiedler_is(g, 2 * (1 - cos(PI / 64)), 1e-3);
  mapf_grid_free(g);
  /* Two rooms joined by a door have a far smaller value than one room of their size, and a
   * single cell none. */
  const char *one[] = {"@@@", "@.@", "@@@"};
  g = test_grid_from_rows(one, 3);
  double v[64];
  cr_assert_eq(farm_features_map(g, v), MAPF_OK);
  EQ(v, "map_fiedler", 0.0);
  EQ(v, "map_fiedler_scaled", 0.0);
  mapf_grid_free(g);
}

/* The scaled value is map_fiedler x map_diameter^2 / pi^2: near 1 on a long path. */
Test(features, fiedler_scaled_by_the_diameter) {
  mapf_grid *g = test_open_grid(40, 1, "path40");
  double v[64];
  cr_assert_eq(farm_features_map(g, v), MAPF_OK);
  EQ(v, "map_diameter", 39);
  EQ(v, "map_fiedler_scaled", 2 * (1 - cos(PI / 40)) * 39 * 39 / (PI * PI));
  cr_expect(fabs(feat(v, "map_fiedler_scaled") - 1) < 0.06);
  mapf_grid_free(g);
}

/* The value depends on the map alone: the same bits on every call and on a copy of the map,
 * a real map included (the seeded start and the fixed order of every sum). */
Test(features, fiedler_is_deterministic) {
  mapf_grid *a = test_mapgen(MAPF_MAPGEN_ROOMS, 120, 90, 0, 0, 5);
  mapf_grid *b = test_mapgen(MAPF_MAPGEN_ROOMS, 120, 90, 0, 0, 5);
  double va[64] = {0}, vb[64] = {0}, vc[64] = {0};
  cr_assert_eq(farm_features_map(a, va), MAPF_OK);
  cr_assert_eq(farm_features_map(b, vb), MAPF_OK);
  cr_assert_eq(farm_features_map(a, vc), MAPF_OK);
  cr_assert(feat(va, "map_fiedler") > 0);
  cr_assert(memcmp(va, vb, sizeof(double) * (size_t)farm_nfeatures) == 0);
  cr_assert(memcmp(va, vc, sizeof(double) * (size_t)farm_nfeatures) == 0);
  mapf_grid_free(a);
  mapf_grid_free(b);
}

/* The test plan (tests/data/select/plan.yaml) run into tmpdir/NAME; fails the test when the
 * shared maps are missing under CI=true, skips otherwise (REQUIRE_MAPS). */
static void plan_db(const char *maps, const char *name, char *db, size_t n) {
  snprintf(db, n, "%s/%s", tmpdir, name);
  int rc = mapfarm(NULL, NULL, "run '%s/tests/data/select/plan.yaml' --db '%s' --maps '%s'",
                   MAPFARM_SOURCE_DIR, db, maps);
  cr_assert_eq(rc, 0, "the test plan did not run (exit %d)", rc);
}

/* The features table is the same, row for row and value for value, with 1 and 2 threads. */
Test(features, same_table_on_any_thread_count) {
  REQUIRE_MAPS(maps);
  char db[600];
  plan_db(maps, "f.db", db, sizeof db);
  char *err = NULL;
  cr_assert_eq(mapfarm(NULL, &err, "features --db '%s' --maps '%s' --threads 1", db, maps), 0,
               "%s", err);
  free(err);
  char *a = test_db_rows(db, "SELECT * FROM features ORDER BY map_hash, generator, agents, "
                             "instance");
  cr_assert_eq(mapfarm(NULL, &err, "features --db '%s' --maps '%s' --threads 2", db, maps), 0,
               "%s", err);
  free(err);
  char *b = test_db_rows(db, "SELECT * FROM features ORDER BY map_hash, generator, agents, "
                             "instance");
  cr_assert_str_eq(a, b);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM features"), 63);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM feature_labels"), 63);
  /* Features come from the map and the instance: corridor shares differ by map only. */
  cr_assert_eq(test_db_int(db, "SELECT count(DISTINCT map_corridor_share) FROM features"), 3);
  free(a);
  free(b);
}

/* The DDL of a features table as an older mapfarm (features version 1) made it, cut to a few
 * of its columns, with one row and its view: what a database of that mapfarm holds. */
static const char old_features_sql[] =
    "CREATE TABLE features (map_hash TEXT NOT NULL, generator TEXT NOT NULL, agents INTEGER NOT "
    "NULL, instance INTEGER NOT NULL, map TEXT NOT NULL, problem_type TEXT NOT NULL, version "
    "INTEGER NOT NULL, map_width REAL, map_winding REAL, dist_mean REAL, PRIMARY KEY (map_hash, "
    "generator, agents, instance)) WITHOUT ROWID;"
    "INSERT INTO features SELECT map_hash, generator, agents, instance, map, 'random', 1, 1, 1, 1 "
    "FROM results LIMIT 1;"
    "CREATE VIEW feature_labels AS SELECT f.* FROM features AS f;";

/* A features table of an older mapfarm, whose columns differ, is made again with this one's:
 * every instance, every column, this version; the results are untouched. */
Test(features, older_features_table_is_replaced) {
  REQUIRE_MAPS(maps);
  char db[600];
  plan_db(maps, "o.db", db, sizeof db);
  test_db_exec(db, old_features_sql);
  char *before = test_db_rows(db, "SELECT * FROM results ORDER BY id");
  char *err = NULL;
  int rc = mapfarm(NULL, &err, "features --db '%s' --maps '%s'", db, maps);
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  free(err);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM features"), 63);
  char sql[300];
  snprintf(sql, sizeof sql,
           "SELECT count(*) FROM features WHERE version = %d AND map_fiedler > 0 AND "
           "map_fiedler_scaled > 0",
           FARM_FEATURES_VERSION);
  cr_assert_eq(test_db_int(db, sql), 63);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM pragma_table_info('features')"),
               7 + farm_nfeatures);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM feature_labels"), 63);
  char *after = test_db_rows(db, "SELECT * FROM results ORDER BY id");
  cr_assert_str_eq(before, after);
  free(before);
  free(after);
}

/* A failure (the plan's maps cannot be found) exits 2 with the reason, and leaves the results
 * as they were, with no features table made. */
Test(features, failure_leaves_results_untouched) {
  REQUIRE_MAPS(maps);
  char db[600];
  plan_db(maps, "g.db", db, sizeof db);
  char *before = test_db_rows(db, "SELECT * FROM results ORDER BY id");
  char *err = NULL;
  unsetenv("MAPFARM_MAPS"); /* maps is a copy: the features command alone loses them */
  int rc = test_mapfarm(tmpdir, tmpdir, NULL, &err, "features --db '%s'", db);
  cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "map file not found") && strstr(err, "--maps DIR"), "%s", err);
  char *after = test_db_rows(db, "SELECT * FROM results ORDER BY id");
  cr_assert_str_eq(before, after);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'features'"), 0);
  free(before);
  free(after);
  free(err);
  /* A missing database is named, and not created. */
  rc = mapfarm(NULL, &err, "features --db '%s/none.db'", tmpdir);
  cr_assert_eq(rc, 2);
  cr_assert(strstr(err, "none.db"), "%s", err);
  free(err);
}

/* ---- pinned values of the searched features ------------------------------------------------- */

/* The features that come from the sampled agents' shortest paths: their lengths and which
 * shortest path the search takes (the overlap counts depend on the cells, not only the moves). */
static const char *const searched[] = {"dist_mean",     "dist_sd",       "dist_min",
                                       "dist_max",      "detour_mean",   "path_use_mean",
                                       "path_use_max",  "path_shared",   "path_coverage",
                                       "path_load",     "path_peak"};
#define NSEARCHED (sizeof searched / sizeof searched[0])

/* The instance features of `agents` random agents (seed) on g, each searched feature equal to
 * want, bit for bit: a faster search must take the very same paths, or bump
 * FARM_FEATURES_VERSION and pin the new values. */
static void searched_are(mapf_grid *g, int32_t agents, uint64_t seed, const double *want) {
  mapf_instance *inst = NULL;
  mapf_diag d = {0};
  cr_assert_eq(mapf_scengen_random(g, agents, seed, &inst, &d), MAPF_OK, "%s", d.msg);
  double v[64];
  cr_assert_eq(farm_features_map(g, v), MAPF_OK);
  farm_feat_ws *ws = farm_feat_ws_new();
  mapf_landmarks *lm = farm_features_landmarks(g);
  cr_assert_eq(farm_features_instance(g, lm, inst, ws, v, &d), MAPF_OK, "%s", d.msg);
  for (size_t k = 0; k < NSEARCHED; k++) {
    double got = feat(v, searched[k]);
    cr_expect(got == want[k], "%s (%d x %d, %d-connected): %s = %.17g, pinned %.17g", g->name,
              (int)g->width, (int)g->height, (int)g->connectivity, searched[k], got, want[k]);
  }
  farm_feat_ws_free(ws);
  mapf_landmarks_free(lm);
  mapf_instance_free(inst);
}

Test(features, searched_values_pinned_on_generated_maps) {
  static const double random8[NSEARCHED] = {
      51.78125, 24.019482006758928, 7, 96, 1.2057490946413401, 1.829902491874323, 12,
      0.44149512459371615, 0.31718213058419242, 2.7206829896907219, 0.10791015625};
  static const double random4[NSEARCHED] = {
      66.921875, 32.330291799752487, 9, 131, 1.0743358837613093, 1.7918384171475681, 7,
      0.46166529266281947, 0.41683848797250861, 3.5011275773195876, 0.0849609375};
  static const double maze[NSEARCHED] = {
      647.125, 451.64589655283692, 10, 1674, 15.396394739448798, 14.239615516649502, 36,
      0.80638516992790932, 0.72516803584764755, 32.269106298232515, 0.493408203125};
  static const double rooms[NSEARCHED] = {
      50.34375, 21.75346624450443, 10, 117, 1.2155902487787673, 1.7609860664523045, 8,
      0.402465166130761, 0.24501050420168066, 2.0224691439075628, 0.094482421875};
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 96, 80, 0.25, 0, 5);
  searched_are(g, 300, 11, random8);
  cr_assert_eq(mapf_grid_set_connectivity(g, 4), MAPF_OK);
  searched_are(g, 300, 11, random4);
  mapf_grid_free(g);
  g = test_mapgen(MAPF_MAPGEN_MAZE, 97, 81, 0, 1, 6);
  searched_are(g, 200, 12, maze);
  mapf_grid_free(g);
  g = test_mapgen(MAPF_MAPGEN_ROOMS, 96, 96, 0, 0, 7);
  searched_are(g, 300, 13, rooms);
  mapf_grid_free(g);
}

/* The same on the 512 x 512 maps of the cost target (docs/selection.md), 1,000 agents. */
Test(features, searched_values_pinned_on_movingai_maps) {
  REQUIRE_MAPS(maps);
  static const double maze[NSEARCHED] = {
      2350.40625, 1051.8405594480562, 157, 4574, 13.061905341231412, 4.4819370402358754, 39,
      0.63466063078893287, 0.25617413462932304, 17.939942855398982, 0.531494140625};
  static const double random[NSEARCHED] = {
      259.375, 114.09805028730807, 39, 504, 1.0235722786199428, 1.0772512767470426, 5,
      0.072726097356002328, 0.065574395930479021, 1.1037515896566341, 0.044921875};
  static const double game[NSEARCHED] = {
      231.40625, 96.81822581108554, 8, 448, 1.1130945844338724, 1.5788132894597176, 9,
      0.31780065810423525, 0.10675596047502493, 2.6335582676094642, 0.0966796875};
  mapf_grid *g = test_load_movingai(maps, "bench/maze512-1-0.map");
  searched_are(g, 1000, 1, maze);
  mapf_grid_free(g);
  g = test_load_movingai(maps, "bench/random512-10-0.map");
  searched_are(g, 1000, 1, random);
  mapf_grid_free(g);
  g = test_load_movingai(maps, "bg512/AR0701SR.map");
  searched_are(g, 1000, 1, game);
  mapf_grid_free(g);
}
