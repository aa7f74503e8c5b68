/* test_bench.c: the benchmark measurements (farm/bench.c) and what their figures rest on: the
 * fast A* expands exactly the nodes of a textbook A* with Sigurdson et al. 2018's ties, and BMAA*
 * gives the results it gave before the performance work (README, Performance). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "astar.h"
#include "bench.h"
#include "grid.h"
#include "hash.h"
#include "mapgen.h"
#include "rng.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

Test(bench, astar_reports_no_mismatch_on_the_tiny_fixture) {
  mapf_grid *g = test_load_grid(MAPFARM_SOURCE_DIR "/tests/data/maps/tiny.map");
  mapf_scen *s = test_load_scen(MAPFARM_SOURCE_DIR "/tests/data/scen/tiny.map.scen", g, 0);
  farm_bench_astar r;
  cr_assert_eq(farm_bench_astar_run(g, s, &r), MAPF_OK);
  cr_assert_eq(r.queries, s->n);
  cr_assert_eq(r.mismatches, 0);
  cr_assert_gt(r.expansions, 0);
  cr_assert_geq(r.seconds, 0);
  mapf_scen_free(s);
  mapf_grid_free(g);
}

/* The smallest difference between two octile lengths that a path of up to 12 diagonal moves
 * can make: 17 straight moves against 12 diagonal ones. */
#define NEAR_MISS (17.0 - 12.0 * sqrt(2.0))

Test(bench, astar_counts_a_wrong_optimal_length_as_a_mismatch) {
  mapf_grid *g = test_load_grid(MAPFARM_SOURCE_DIR "/tests/data/maps/tiny.map");
  mapf_scen *s = test_load_scen(MAPFARM_SOURCE_DIR "/tests/data/scen/tiny.map.scen", g, 0);
  s->entries[0].optimal += NEAR_MISS;
  s->entries[2].optimal += 1.0;
  farm_bench_astar r;
  cr_assert_eq(farm_bench_astar_run(g, s, &r), MAPF_OK);
  cr_assert_eq(r.mismatches, 2);
  mapf_scen_free(s);
  mapf_grid_free(g);
}

/* Exact lengths (tiny.map.scen: a + b sqrt(2) to 8 decimals) keep the strict rule; one length
 * off by more than half a unit of its last digit, or a file of lengths rounded to single
 * precision, selects the relative tolerance. Lengths whose digits cannot tell do not count. */
Test(bench, lengths_exact_tells_exact_lengths_from_rounded_ones) {
  mapf_grid *g = test_load_grid(MAPFARM_SOURCE_DIR "/tests/data/maps/tiny.map");
  mapf_scen *s = test_load_scen(MAPFARM_SOURCE_DIR "/tests/data/scen/tiny.map.scen", g, 0);
  cr_assert_eq(farm_bench_lengths_exact(s), 1);
  s->entries[1].optimal += 4e-9; /* 7.82842712 + 0.4 units: still the exact length rounded */
  cr_assert_eq(farm_bench_lengths_exact(s), 1);
  s->entries[1].optimal += 2e-8;
  cr_assert_eq(farm_bench_lengths_exact(s), 0);
  /* 1 + 2 sqrt(2) printed with 6 significant digits tells, and is exact; 102.284 with 3
   * decimals cannot tell (73 candidates, each within 0.0005 with chance 1e-3). */
  s->entries[1] = (mapf_scen_entry){.optimal = 3.82843, .decimals = 5};
  cr_assert_eq(farm_bench_lengths_exact(s), 1);
  s->entries[1].optimal = 3.82853;
  cr_assert_eq(farm_bench_lengths_exact(s), 0);
  s->entries[1] = (mapf_scen_entry){.optimal = 102.284, .decimals = 3};
  cr_assert_eq(farm_bench_lengths_exact(s), 1);
  mapf_scen_free(s);
  mapf_scen *f = test_load_scen(MAPFARM_SOURCE_DIR "/tests/data/scen/single-precision.map.scen",
                                NULL, 0);
  cr_assert_eq(farm_bench_lengths_exact(f), 0);
  mapf_scen_free(f);
  mapf_grid_free(g);
}

/* single-precision.map.scen: 40 queries on a 32 x 24 map whose optimal lengths (Dijkstra in
 * double precision) were rounded to single precision and printed with 8 decimals, as older
 * files were written; 28 of them differ from the exact length by more than one unit of the
 * last digit (up to 1.5e-6). None is a mismatch, and a length that is really wrong still is. */
Test(bench, astar_accepts_lengths_rounded_to_single_precision) {
  mapf_grid *g = test_load_grid(MAPFARM_SOURCE_DIR "/tests/data/maps/single-precision.map");
  mapf_scen *s =
      test_load_scen(MAPFARM_SOURCE_DIR "/tests/data/scen/single-precision.map.scen", g, 0);
  farm_bench_astar r;
  cr_assert_eq(farm_bench_astar_run(g, s, &r), MAPF_OK);
  cr_assert_eq(r.queries, 40);
  cr_assert_eq(r.mismatches, 0);
  cr_assert_eq(r.relative, FARM_BENCH_RELATIVE);
  /* Wrong lengths, written the way the file's tool would have written them. */
  s->entries[39].optimal = (float)(s->entries[39].optimal + NEAR_MISS);
  s->entries[20].optimal = (float)(s->entries[20].optimal * (1 + 1e-5));
  s->entries[3].optimal = (float)(s->entries[3].optimal + sqrt(2.0) - 1);
  cr_assert_eq(farm_bench_astar_run(g, s, &r), MAPF_OK);
  cr_assert_eq(r.mismatches, 3);
  cr_assert_eq(r.relative, FARM_BENCH_RELATIVE);
  mapf_scen_free(s);
  mapf_grid_free(g);
}

TEST_TMPDIR("bench");
TestSuite(bench_cli, .init = make_tmpdir, .fini = remove_tmpdir);

/* `mapfarm bench astar` says which tolerance it used, and exits 0 when nothing mismatched. */
Test(bench_cli, astar_names_its_tolerance) {
  char *out, *err;
  int rc = test_mapfarm(tmpdir, NULL, &out, &err,
                        "bench astar --map '%s/tests/data/maps/single-precision.map' "
                        "--scen '%s/tests/data/scen/single-precision.map.scen'",
                        MAPFARM_SOURCE_DIR, MAPFARM_SOURCE_DIR);
  cr_assert_eq(rc, 0, "exit %d: %s%s", rc, out, err);
  cr_assert(strstr(out, "queries=40 ") && strstr(out, " mismatches=0 tolerance=relative-1e-06\n"),
            "%s", out);
  free(out);
  free(err);
  rc = test_mapfarm(tmpdir, NULL, &out, &err,
                    "bench astar --map '%s/tests/data/maps/tiny.map' "
                    "--scen '%s/tests/data/scen/tiny.map.scen'",
                    MAPFARM_SOURCE_DIR, MAPFARM_SOURCE_DIR);
  cr_assert_eq(rc, 0, "exit %d: %s%s", rc, out, err);
  cr_assert(strstr(out, " mismatches=0 tolerance=last-digit\n"), "%s", out);
  free(out);
  free(err);
}

/* The MAPF benchmark's scen-random files print 8 decimals of lengths computed with
 * sqrt(2) = 1.414213562: 613 of den520d-random-1's 1,000 lines are more than 1e-8 off. */
Test(bench, astar_accepts_the_mapf_benchmark_scenarios, .timeout = 600) {
  REQUIRE_MAPS(maps);
  char map[4200], scen[4200];
  snprintf(map, sizeof map, "%s/mapf/den520d.map", maps);
  snprintf(scen, sizeof scen, "%s/mapf-scen/scen-random/den520d-random-1.scen", maps);
  mapf_grid *g = test_load_grid(map);
  mapf_scen *s = test_load_scen(scen, g, 0);
  farm_bench_astar r;
  cr_assert_eq(farm_bench_astar_run(g, s, &r), MAPF_OK);
  cr_assert_eq(r.queries, 1000);
  cr_assert_eq(r.mismatches, 0);
  cr_assert_eq(r.relative, FARM_BENCH_RELATIVE);
  mapf_scen_free(s);
  mapf_grid_free(g);
}

/* The figure README, Performance, compares before and after: the work must be the same. */
Test(bench, astar_expands_the_reference_count_on_den520d, .timeout = 600) {
  REQUIRE_MAPS(maps);
  char map[4200], scen[4200];
  snprintf(map, sizeof map, "%s/bench/den520d.map", maps);
  snprintf(scen, sizeof scen, "%s/bench/den520d.map.scen", maps);
  mapf_grid *g = test_load_grid(map);
  mapf_scen *s = test_load_scen(scen, g, 0);
  farm_bench_astar r;
  cr_assert_eq(farm_bench_astar_run(g, s, &r), MAPF_OK);
  cr_assert_eq(r.queries, 888);
  cr_assert_eq(r.expansions, 3930799);
  cr_assert_eq(r.mismatches, 0);
  cr_assert_eq(r.relative, 0, "lengths printed with 6 significant digits are exact");
  mapf_scen_free(s);
  mapf_grid_free(g);
}

Test(bench, sim_counts_agent_steps) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 32, 32, 0.2, 1, 3);
  farm_bench_sim_opts o = {mapf_algo_find("bmaa"), 40, 50, 1, 0};
  farm_bench_sim r;
  mapf_diag d = {0};
  cr_assert_eq(farm_bench_sim_run(g, &o, &r, &d), MAPF_OK, "%s", d.msg);
  cr_assert(r.steps >= 1 && r.steps <= 50);
  cr_assert_eq(r.agent_steps, 40 * r.steps);
  cr_assert_gt(r.expansions, 0);
  cr_assert_gt(r.peak_rss_kib, 0);
  /* The kernel's part of this run alone, not of the process so far (ticks may round it). */
  cr_assert(r.kernel_seconds >= 0 && r.kernel_seconds <= r.seconds + 0.02, "%g of %g",
            r.kernel_seconds, r.seconds);
  mapf_grid_free(g);
}

/* calibrate's fit: runs whose CPU time after set-up is exactly 100 ns per expansion plus 40 ns
 * per agent-step give those weights back, and weights twice as large charge every run twice
 * its time (the median ratio), with a perfect correlation either way. */
Test(bench, calibrate_fit_recovers_the_weights_of_exact_runs) {
  farm_bench_sim runs[6];
  memset(runs, 0, sizeof runs);
  for (int i = 0; i < 6; i++) {
    runs[i].expansions = 1000 * (i + 1) * (i % 2 ? 3 : 1);
    runs[i].agent_steps = 5000 + 700 * i;
    runs[i].setup_seconds = 0.01 * i; /* not charged: the fit leaves it out */
    runs[i].seconds = runs[i].setup_seconds +
                      (100.0 * (double)runs[i].expansions + 40.0 * (double)runs[i].agent_steps) *
                          1e-9;
  }
  mapf_work_model twice = {200, 80};
  farm_calibration c;
  farm_calibrate_fit(runs, 6, &twice, &c);
  cr_expect_eq(c.runs, 6);
  cr_expect_float_eq(c.fitted.expansion_ns, 100.0, 1e-6);
  cr_expect_float_eq(c.fitted.agent_step_ns, 40.0, 1e-6);
  cr_expect_float_eq(c.ratio_fitted, 1.0, 1e-9);
  cr_expect_float_eq(c.ratio_builtin, 2.0, 1e-9);
  cr_expect_float_eq(c.r_builtin, 1.0, 1e-9);
  cr_expect_float_eq(c.r_fitted, 1.0, 1e-9);
}

Test(bench, sim_reports_a_map_too_small_for_the_agents) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 4, 4, 0.0, 1, 1);
  farm_bench_sim_opts o = {mapf_algo_find("bmaa"), 100, 10, 1, 0};
  farm_bench_sim r;
  mapf_diag d = {0};
  cr_assert_neq(farm_bench_sim_run(g, &o, &r, &d), MAPF_OK);
  cr_assert(d.msg[0], "no message");
  mapf_grid_free(g);
}

/* ---- a textbook A* to compare with --------------------------------------------------- */

/* The A* of the first version of astar.c: costs are doubles summed move by move and compared
 * with an epsilon of 1e-9; the open list is a binary heap ordered by lowest f, then highest g,
 * then first in; a lowered g inserts a new entry (a new insertion number, as a decrease-key
 * would give) and the old one is skipped when popped. Slow and plain on purpose. */
typedef struct ref_entry {
  double f, g;
  uint32_t seq;
  int32_t id;
} ref_entry;

static int ref_before(const ref_entry *a, const ref_entry *b) {
  if (a->f < b->f - 1e-9) return 1;
  if (a->f > b->f + 1e-9) return 0;
  if (a->g > b->g + 1e-9) return 1;
  if (a->g < b->g - 1e-9) return 0;
  return a->seq < b->seq;
}

typedef struct ref_search {
  double *g;
  int32_t *parent;
  uint32_t *live; /* insertion number of the live entry + 1; 0 = not seen */
  uint8_t *closed;
  ref_entry *heap;
  int32_t len;
} ref_search;

static void ref_push(ref_search *r, ref_entry e) {
  int32_t i = r->len++;
  while (i > 0 && ref_before(&e, &r->heap[(i - 1) / 2])) {
    r->heap[i] = r->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  r->heap[i] = e;
}

static ref_entry ref_pop(ref_search *r) {
  ref_entry top = r->heap[0], e = r->heap[--r->len];
  int32_t i = 0;
  for (;;) {
    int32_t c = 2 * i + 1;
    if (c >= r->len) break;
    if (c + 1 < r->len && ref_before(&r->heap[c + 1], &r->heap[c])) c++;
    if (!ref_before(&r->heap[c], &e)) break;
    r->heap[i] = r->heap[c];
    i = c;
  }
  if (r->len > 0) r->heap[i] = e;
  return top;
}

/* Drops stale entries from the top; 1 when an open node is left. */
static int ref_first(ref_search *r) {
  while (r->len > 0) {
    const ref_entry *t = &r->heap[0];
    if (!r->closed[t->id] && r->live[t->id] == t->seq + 1) return 1;
    ref_pop(r);
  }
  return 0;
}

/* Expansions, cost (when found) and path length; the path goes to path (room for ncells). */
static int64_t ref_astar(const mapf_grid *g, int32_t start, int32_t goal, double *cost,
                         int32_t *path, int32_t *path_len) {
  ref_search r;
  size_t n = (size_t)g->ncells;
  r.g = calloc(n, sizeof *r.g);
  r.parent = calloc(n, sizeof *r.parent);
  r.live = calloc(n, sizeof *r.live);
  r.closed = calloc(n, 1);
  r.heap = malloc(8 * n * sizeof *r.heap + sizeof *r.heap);
  r.len = 0;
  uint32_t seq = 0;
  int32_t gx = mapf_grid_x(g, goal), gy = mapf_grid_y(g, goal);
  r.g[start] = 0;
  r.parent[start] = -1;
  r.live[start] = seq + 1;
  ref_entry e0 = {mapf_octile(g, start, goal), 0, seq++, start};
  ref_push(&r, e0);
  int64_t expansions = 0;
  *cost = -1;
  *path_len = 0;
  while (ref_first(&r)) {
    if (r.heap[0].id == goal) {
      *cost = r.g[goal];
      for (int32_t c = goal; c != -1; c = r.parent[c]) (*path_len)++;
      int32_t k = *path_len;
      for (int32_t c = goal; c != -1; c = r.parent[c]) path[--k] = c;
      break;
    }
    ref_entry e = ref_pop(&r);
    int32_t u = e.id;
    r.closed[u] = 1;
    expansions++;
    for (int d = 0; d < 8; d++) {
      if (!(g->moves[u] >> d & 1)) continue;
      int32_t v = u + g->offset[d];
      if (r.closed[v]) continue;
      double ng = e.g + mapf_dir_cost[d];
      if (r.live[v] && r.g[v] <= ng + 1e-9) continue;
      r.g[v] = ng;
      r.parent[v] = u;
      r.live[v] = seq + 1;
      int32_t vx = mapf_grid_x(g, v), vy = mapf_grid_y(g, v);
      ref_entry c = {ng + mapf_octile_xy(vx, vy, gx, gy), ng, seq++, v};
      ref_push(&r, c);
    }
  }
  free(r.g);
  free(r.parent);
  free(r.live);
  free(r.closed);
  free(r.heap);
  return expansions;
}

/* Random queries between passable cells of g: found or not, expansions, cost and the path
 * itself must be those of the textbook A*. */
static void check_against_reference(const mapf_grid *g, int queries, uint64_t seed) {
  mapf_astar *a = mapf_astar_new();
  int32_t *path = malloc((size_t)g->ncells * sizeof *path);
  int32_t *ref_path = malloc((size_t)g->ncells * sizeof *ref_path);
  mapf_rng rng;
  mapf_rng_seed(&rng, seed);
  int found = 0;
  for (int q = 0; q < queries; q++) {
    int32_t s, t;
    do s = (int32_t)mapf_rng_below(&rng, (uint64_t)g->ncells); while (!g->passable[s]);
    do t = (int32_t)mapf_rng_below(&rng, (uint64_t)g->ncells); while (!g->passable[t]);
    mapf_astar_result r;
    int32_t len = g->ncells, ref_len;
    double ref_cost;
    cr_assert_eq(mapf_astar_run(a, g, s, t, &r, path, &len), MAPF_OK);
    int64_t ref_exp = ref_astar(g, s, t, &ref_cost, ref_path, &ref_len);
    cr_assert_eq(r.expansions, ref_exp, "%s: %d -> %d: %lld expansions, reference %lld",
                 g->name, (int)s, (int)t, (long long)r.expansions, (long long)ref_exp);
    cr_assert_eq(r.found, ref_cost >= 0, "%s: %d -> %d", g->name, (int)s, (int)t);
    if (!r.found) continue;
    found++;
    cr_assert_float_eq(r.cost, ref_cost, 1e-9, "%s: %d -> %d", g->name, (int)s, (int)t);
    cr_assert_eq(len, ref_len);
    cr_assert_arr_eq(path, ref_path, (size_t)len * sizeof *path, "%s: %d -> %d: paths differ",
                     g->name, (int)s, (int)t);
  }
  cr_assert_gt(found, queries / 4, "%s: too few connected queries", g->name);
  free(path);
  free(ref_path);
  mapf_astar_free(a);
}

Test(bench, astar_expands_like_a_textbook_heap_on_random_maps, .timeout = 600) {
  const double densities[] = {0.0, 0.1, 0.25, 0.35};
  for (int k = 0; k < 4; k++) {
    mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 96, 80, densities[k], 1, 10 + (uint64_t)k);
    check_against_reference(g, 300, 100 + (uint64_t)k);
    mapf_grid_free(g);
  }
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 300, 200, 0.2, 1, 14);
  check_against_reference(g, 60, 104);
  mapf_grid_free(g);
}

Test(bench, astar_expands_like_a_textbook_heap_on_rooms_and_mazes, .timeout = 600) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_ROOMS, 100, 90, 0, 1, 5);
  check_against_reference(g, 300, 7);
  mapf_grid_free(g);
  g = test_mapgen(MAPF_MAPGEN_MAZE, 81, 81, 0, 1, 6);
  check_against_reference(g, 200, 8);
  mapf_grid_free(g);
  g = test_mapgen(MAPF_MAPGEN_MAZE, 99, 99, 0, 3, 9);
  check_against_reference(g, 200, 10);
  mapf_grid_free(g);
}

/* A* reuses its scratch across grids of different sizes and after searches that stopped at
 * their goal with entries left in the open list. */
Test(bench, astar_scratch_survives_changing_grids) {
  mapf_grid *big = test_mapgen(MAPF_MAPGEN_RANDOM, 120, 120, 0.2, 1, 21);
  mapf_grid *small = test_mapgen(MAPF_MAPGEN_RANDOM, 20, 10, 0.1, 1, 22);
  mapf_astar *a = mapf_astar_new();
  mapf_rng rng;
  mapf_rng_seed(&rng, 23);
  int32_t path[1], len;
  for (int q = 0; q < 60; q++) {
    const mapf_grid *g = q % 3 == 2 ? small : big;
    int32_t s, t;
    do s = (int32_t)mapf_rng_below(&rng, (uint64_t)g->ncells); while (!g->passable[s]);
    do t = (int32_t)mapf_rng_below(&rng, (uint64_t)g->ncells); while (!g->passable[t]);
    mapf_astar_result r;
    double ref_cost;
    int32_t *ref_path = malloc((size_t)g->ncells * sizeof *ref_path);
    len = 1;
    cr_assert_eq(mapf_astar_run(a, g, s, t, &r, path, &len), MAPF_OK);
    cr_assert_eq(r.expansions, ref_astar(g, s, t, &ref_cost, ref_path, &len));
    if (r.found) cr_assert_float_eq(r.cost, ref_cost, 1e-9);
    free(ref_path);
  }
  mapf_astar_free(a);
  mapf_grid_free(big);
  mapf_grid_free(small);
}

/* ---- BMAA* results from before the performance work ----------------------------------- */

typedef struct golden {
  mapf_mapgen_kind kind;
  int32_t w, h;
  double density;   /* random maps */
  int32_t corridor; /* mazes */
  int32_t agents;
  uint64_t map_seed, inst_seed;
  const char *params[3];
  int64_t steps, expansions, failed_moves, pushes, searches;
  int32_t completed;
  double mean_travel_distance;
} golden;

/* Figures of the version before README, Performance (commit 42ef99a) on the same instances,
 * 2,000 steps at most. */
static const golden goldens[] = {
    {MAPF_MAPGEN_RANDOM, 64, 64, 0.2, 1, 150, 1, 1, {NULL}, 500, 21712, 5976, 0, 866, 150,
     45.88301585277069},
    {MAPF_MAPGEN_ROOMS, 64, 64, 0, 1, 120, 2, 2, {"push=true", NULL}, 2000, 35362, 10603, 129,
     1842, 118, 69.053534717944643},
    {MAPF_MAPGEN_MAZE, 63, 63, 0, 2, 60, 3, 3, {"expansions=64", "vision=3", "moves=8"}, 2000,
     415071, 3652, 0, 6611, 49, 747.68955005872567},
    {MAPF_MAPGEN_RANDOM, 96, 96, 0.3, 1, 300, 4, 4, {"vision=0", "push=true", NULL}, 2000,
     518259, 529806, 16, 17552, 32, 27.345659923985156},
};

static void run_golden(const golden *gd) {
  mapf_grid *g = test_mapgen(gd->kind, gd->w, gd->h, gd->density, gd->corridor, gd->map_seed);
  mapf_instance *inst = test_random_instance(g, gd->agents, gd->inst_seed);
  mapf_diag d = {0};
  mapf_run_config cfg = test_run_config(g, inst, "bmaa");
  for (int k = 0; k < 3 && gd->params[k]; k++) {
    const char *eq = strchr(gd->params[k], '=');
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(eq - gd->params[k]), gd->params[k]);
    int32_t idx = mapf_param_index(cfg.algo, name);
    cr_assert_geq(idx, 0);
    cr_assert_eq(mapf_param_parse(cfg.algo, idx, eq + 1, &cfg.params.v[idx], &d), MAPF_OK);
  }
  cfg.limits.steps = 2000;
  cfg.seed = mapf_mix64(gd->inst_seed);
  mapf_workspace *ws = mapf_workspace_new();
  mapf_result res;
  cr_assert_eq(mapf_run(ws, &cfg, &res, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(res.steps, gd->steps, "%s: steps %lld", g->name, (long long)res.steps);
  cr_assert_eq(res.expansions, gd->expansions, "%s: expansions %lld", g->name,
               (long long)res.expansions);
  cr_assert_eq(res.failed_moves, gd->failed_moves);
  cr_assert_eq(res.pushes, gd->pushes);
  cr_assert_eq(res.searches, gd->searches);
  cr_assert_eq(res.completed, gd->completed);
  cr_assert_float_eq(res.mean_travel_distance, gd->mean_travel_distance, 1e-9, "%s: %.12f",
                     g->name, res.mean_travel_distance);
  mapf_result_clear(&res);
  mapf_workspace_free(ws);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(bench, bmaa_results_are_those_of_the_version_before, .timeout = 600) {
  for (size_t k = 0; k < sizeof goldens / sizeof goldens[0]; k++) run_golden(&goldens[k]);
}
