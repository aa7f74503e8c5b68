/* test_astar.c: A* against the optimal lengths of real MovingAI scenario files. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>

#include "astar.h"
#include "grid.h"
#include "scen.h"
#include "search_int.h"
#include "testutil.h"

/* Every query in the normal build; every 16th under sanitizers, where the full set takes half
 * an hour and the point is memory safety, which a stride covers as well. */
#ifdef MAPFARM_SANITIZED
#define QUERY_STRIDE 16
#else
#define QUERY_STRIDE 1
#endif

/* Runs the queries of one .scen file; the map is DIR/NAME for a scen file NAME.scen.
 * Returns the number of queries checked. */
static int check_scen_file(const char *map_dir, const char *scen_path) {
  const char *base = strrchr(scen_path, '/');
  base = base ? base + 1 : scen_path;
  char map_path[8192 + 512];
  snprintf(map_path, sizeof map_path, "%s/%.*s", map_dir, (int)(strlen(base) - 5), base);
  mapf_diag d = {0};
  mapf_grid *g = NULL;
  cr_assert_eq(mapf_grid_load(map_path, &g, &d), MAPF_OK, "%s: %s", map_path, d.msg);
  mapf_scen *s = NULL;
  cr_assert_eq(mapf_scen_load(scen_path, g, 0, &s, &d), MAPF_OK, "%s: %s", scen_path, d.msg);
  mapf_astar *a = mapf_astar_new();
  int wrong = 0, checked = 0;
  for (int32_t i = 0; i < s->n; i += QUERY_STRIDE) {
    checked++;
    const mapf_scen_entry *e = &s->entries[i];
    mapf_astar_result r;
    int32_t st = mapf_grid_id(g, e->sx, e->sy), go = mapf_grid_id(g, e->gx, e->gy);
    cr_assert_eq(mapf_astar_run(a, g, st, go, &r, NULL, NULL), MAPF_OK);
    cr_assert(r.found, "%s:%d: no path", scen_path, (int)e->line);
    /* Equal to the printed precision: within one unit of the last printed digit. Not half a
     * unit: the files' lengths were summed with a single-precision sqrt(2) (1.4142135), so
     * e.g. 7 + 48 sqrt(2) = 74.882251 is printed 74.8822 (lak307d line 183). A wrong path is
     * off by at least sqrt(2) - 1, far beyond this tolerance. */
    double scale = pow(10, e->decimals);
    if (fabs(r.cost - e->optimal) > 1.0 / scale + 1e-9) {
      if (wrong++ < 5)
        cr_log_error("%s:%d: cost %.8f, optimal_length %.*f", scen_path, (int)e->line, r.cost,
                     (int)e->decimals, e->optimal);
    }
  }
  cr_assert_eq(wrong, 0, "%s: %d of %d costs differ from optimal_length", scen_path, wrong,
               checked);
  int n = checked;
  mapf_astar_free(a);
  mapf_scen_free(s);
  mapf_grid_free(g);
  return n;
}

static int check_dir(const char *maps, const char *scen_sub, const char *map_sub) {
  char dir[4096], map_dir[4096];
  snprintf(dir, sizeof dir, "%s/%s", maps, scen_sub);
  snprintf(map_dir, sizeof map_dir, "%s/%s", maps, map_sub);
  DIR *dp = opendir(dir);
  cr_assert_not_null(dp, "cannot open %s", dir);
  int files = 0, queries = 0;
  struct dirent *de;
  while ((de = readdir(dp))) {
    size_t len = strlen(de->d_name);
    if (len < 10 || strcmp(de->d_name + len - 9, ".map.scen") != 0) continue;
    char path[8300];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    queries += check_scen_file(map_dir, path);
    files++;
  }
  closedir(dp);
  cr_assert_gt(files, 0, "no .scen files in %s", dir);
  return queries;
}

Test(astar, costs_equal_optimal_length_on_bg512_scenarios, .timeout = 900) {
  REQUIRE_MAPS(maps);
  cr_assert_gt(check_dir(maps, "scen/bg512", "bg512"), 1000 / QUERY_STRIDE);
}

Test(astar, costs_equal_optimal_length_on_dao_scenarios, .timeout = 900) {
  REQUIRE_MAPS(maps);
  cr_assert_gt(check_dir(maps, "scen/dao", "dao"), 1000 / QUERY_STRIDE);
}

Test(astar, costs_equal_optimal_length_on_bench_scenarios, .timeout = 900) {
  REQUIRE_MAPS(maps);
  cr_assert_gt(check_dir(maps, "bench", "bench"), 1000 / QUERY_STRIDE);
}

/* A 5x3 map with one blocked cell between start and goal. */
Test(astar, goes_round_a_wall_without_cutting_corners) {
  mapf_grid *g = mapf_grid_new(5, 3, "wall");
  const char *rows[] = {".....", ".....", "..@.."};
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 5; x++) g->passable[y * 5 + x] = rows[y][x] == '.';
  cr_assert_eq(mapf_grid_finish(g), MAPF_OK);
  mapf_astar *a = mapf_astar_new();
  mapf_astar_result r;
  int32_t path[16], len = 16;
  cr_assert_eq(mapf_astar_run(a, g, mapf_grid_id(g, 1, 2), mapf_grid_id(g, 3, 2), &r, path, &len),
               MAPF_OK);
  cr_assert(r.found);
  /* Both diagonals next to the wall at (2,2) would cut its corner, so the shortest legal path
   * is (1,2) (1,1) (2,1) (3,1) (3,2), cost 4. */
  cr_assert_float_eq(r.cost, 4.0, 1e-9, "cost %f", r.cost);
  cr_assert_eq(len, 5);
  cr_assert_eq(path[0], mapf_grid_id(g, 1, 2));
  cr_assert_eq(path[len - 1], mapf_grid_id(g, 3, 2));
  mapf_astar_free(a);
  mapf_grid_free(g);
}

Test(astar, reports_unreachable_goal) {
  mapf_grid *g = mapf_grid_new(3, 1, "split");
  g->passable[0] = 1;
  g->passable[2] = 1;
  cr_assert_eq(mapf_grid_finish(g), MAPF_OK);
  mapf_astar *a = mapf_astar_new();
  mapf_astar_result r;
  cr_assert_eq(mapf_astar_run(a, g, 0, 2, &r, NULL, NULL), MAPF_OK);
  cr_assert_not(r.found);
  cr_assert_eq(mapf_astar_run(a, g, 0, 1, &r, NULL, NULL), MAPF_EINVAL, "blocked goal");
  mapf_astar_free(a);
  mapf_grid_free(g);
}

/* Every query of bench/den520d.map.scen: the expansions and the cells of every path, as recorded
 * with the code before the bucket queue moved to search_int.h to be shared with FAR (commit
 * de0738d). The order of expansions is A*'s with its ties (astar.h); a change of it changes
 * these. */
Test(astar, den520d_queries_keep_their_recorded_expansions_and_paths, .timeout = 300) {
  REQUIRE_MAPS(maps);
  char map_path[8192], scen_path[8192];
  snprintf(map_path, sizeof map_path, "%s/bench/den520d.map", maps);
  snprintf(scen_path, sizeof scen_path, "%s/bench/den520d.map.scen", maps);
  mapf_diag d = {0};
  mapf_grid *g = NULL;
  cr_assert_eq(mapf_grid_load(map_path, &g, &d), MAPF_OK, "%s: %s", map_path, d.msg);
  mapf_scen *s = NULL;
  cr_assert_eq(mapf_scen_load(scen_path, g, 0, &s, &d), MAPF_OK, "%s: %s", scen_path, d.msg);
  mapf_astar *a = mapf_astar_new();
  int32_t cap = g->ncells, *path = malloc((size_t)cap * sizeof *path);
  int64_t expansions = 0;
  uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a over the paths' cells */
  for (int32_t i = 0; i < s->n; i++) {
    const mapf_scen_entry *e = &s->entries[i];
    mapf_astar_result r;
    int32_t len = cap;
    cr_assert_eq(mapf_astar_run(a, g, mapf_grid_id(g, e->sx, e->sy),
                                mapf_grid_id(g, e->gx, e->gy), &r, path, &len),
                 MAPF_OK);
    expansions += r.expansions;
    for (int32_t k = 0; k < len; k++) {
      h ^= (uint32_t)path[k];
      h *= UINT64_C(0x100000001b3);
    }
  }
  cr_expect_eq(s->n, 888);
  cr_expect_eq(expansions, 3930799, "expansions %lld", (long long)expansions);
  cr_expect_eq(h, UINT64_C(0x1c6081ce6abbe886), "paths hash 0x%016llx", (unsigned long long)h);
  free(path);
  mapf_astar_free(a);
  mapf_scen_free(s);
  mapf_grid_free(g);
}

/* search_int.h's bucket queue sorts a bucket when its turn comes (mapf__bq_sort: insertion sort
 * up to 16 entries, above a merge sort in the queue's buffer, or without one quicksort or
 * heapsort): every size up to 300 and a few large ones, in random, ascending, descending and
 * organ-pipe order, and with keys that differ only in lo, come out as a permutation with the
 * first entry last, both ways. */
Test(astar, the_bucket_queue_sorts_any_bucket) {
  mapf__bq q;
  mapf__bq_init(&q);
  for (int with_queue = 0; with_queue < 2; with_queue++) {
    uint64_t rng = 12345;
    int32_t sizes[310], nsizes = 0;
    for (int32_t n = 0; n <= 300; n++) sizes[nsizes++] = n;
    sizes[nsizes++] = 1000;
    sizes[nsizes++] = 4096;
    sizes[nsizes++] = 20000;
    for (int32_t s = 0; s < nsizes; s++) {
      int32_t n = sizes[s];
      mapf__bq_entry *e = malloc((size_t)(n ? n : 1) * sizeof *e);
      for (int pattern = 0; pattern < 5; pattern++) {
        uint64_t sum_hi = 0, sum_lo = 0;
        for (int32_t i = 0; i < n; i++) {
          rng = rng * 6364136223846793005ull + 1442695040888963407ull;
          uint64_t r = rng >> 20;
          uint64_t k = pattern == 0   ? r
                       : pattern == 1 ? (uint64_t)i
                       : pattern == 2 ? (uint64_t)(n - i)
                       : pattern == 3 ? (uint64_t)(i < n / 2 ? i : n - i)
                                      : r % 3;
          e[i].hi = k;
          e[i].lo = (uint64_t)i << 32 | (uint32_t)(r & 0xffff); /* distinct: i */
          sum_hi += e[i].hi;
          sum_lo += e[i].lo;
        }
        mapf__bq_sort(with_queue ? &q : NULL, e, n);
        for (int32_t i = 0; i < n; i++) {
          sum_hi -= e[i].hi;
          sum_lo -= e[i].lo;
        }
        cr_assert_eq(sum_hi, 0, "n %d pattern %d queue %d: not a permutation", n, pattern,
                     with_queue);
        cr_assert_eq(sum_lo, 0, "n %d pattern %d queue %d: not a permutation", n, pattern,
                     with_queue);
        for (int32_t i = 0; i + 1 < n; i++)
          cr_assert(mapf__bq_before(&e[i + 1], &e[i]), "n %d pattern %d queue %d: entries %d and %d",
                    n, pattern, with_queue, i, i + 1);
      }
      free(e);
    }
  }
  cr_assert_geq(q.tmp_cap, 20000, "the merge sort's buffer was not used");
  mapf__bq_free(&q);
}
