/* test_lacam.c: LaCAM and LaCAM* (core/lacam.c; Okumura 2023, Okumura 2023b): runs watched
 * step by step by the independent checker on the MovingAI MAPF benchmark's maps, the optimum
 * of LaCAM* against a brute-force search on tiny instances, the outcome of a search that ends
 * without a solution (node budget, limits, an unsolvable instance), LaCAM* under limits (a
 * found solution is executed), patrol, and a plan run with 1 and 2 threads and as shards. */
#include <criterion/criterion.h>

#include "algo.h"
#include "scen.h"
#include "scengen.h"
#include "sim.h"
#include "testutil.h"

TEST_TMPDIR("lacam");
TestSuite(lacam, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 300);

/* ---- helpers ---------------------------------------------------------------------------- */

/* Watches a run with the step checker and sums its cost as LaCAM* counts it, the sum of loss:
 * every step, every agent that does not stay on its goal pays 1. */
typedef struct watch {
  test_step_checker check;
  const mapf_instance *inst;
  int32_t *prev;
  int64_t loss;
} watch;

static void watch_step(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  watch *w = ud;
  if (!w->prev) w->prev = malloc((size_t)(n > 0 ? n : 1) * sizeof *w->prev);
  if (t > 0)
    for (int32_t a = 0; a < n; a++)
      w->loss += w->prev[a] != w->inst->goal[a] || pos[a] != w->inst->goal[a];
  memcpy(w->prev, pos, (size_t)n * sizeof *pos);
  test_step_check(&w->check, t, pos, n);
}

/* Runs cfg (lacam) under the checker: every step legal, the agents' identities hold. Returns
 * the sum of loss of the steps executed. */
static int64_t run_watched(mapf_run_config *cfg, mapf_result *res, const char *label) {
  watch w = {{cfg->grid, NULL, NULL, 0, 0}, cfg->inst, NULL, 0};
  cfg->on_step = watch_step;
  cfg->ud = &w;
  test_run(cfg, res);
  test_check_steps(&w.check, res, label);
  test_check_arrivals(cfg->grid, cfg->inst, res);
  test_step_checker_free(&w.check);
  free(w.prev);
  cfg->on_step = NULL;
  cfg->ud = NULL;
  return w.loss;
}

/* The least sum of loss of inst on g, by Dijkstra over every configuration (k agents, so
 * ncells^k states: tiny instances only), with the joint rule's moves: every agent stays or
 * makes a move of the grid, no two on one cell, no two swapping. -1 when there is no plan. */
static int64_t brute_force_loss(const mapf_grid *g, const mapf_instance *inst) {
  int32_t k = inst->n, c = g->ncells;
  int64_t states = 1;
  for (int32_t a = 0; a < k; a++) states *= c;
  cr_assert_leq(states, 1 << 20, "too many states for the brute force");
  int64_t *dist = malloc((size_t)states * sizeof *dist);
  uint8_t *closed = calloc((size_t)states, 1);
  for (int64_t s = 0; s < states; s++) dist[s] = INT64_MAX;
  int64_t start = 0, goal = 0;
  for (int32_t a = k - 1; a >= 0; a--) {
    start = start * c + inst->start[a];
    goal = goal * c + inst->goal[a];
  }
  dist[start] = 0;
  int64_t best = -1;
  for (;;) {
    int64_t s = -1;
    for (int64_t i = 0; i < states; i++)
      if (!closed[i] && dist[i] != INT64_MAX && (s < 0 || dist[i] < dist[s])) s = i;
    if (s < 0) break;
    if (s == goal) {
      best = dist[s];
      break;
    }
    closed[s] = 1;
    int32_t q[4], nq[4], choice[4] = {0, 0, 0, 0};
    int64_t r = s;
    for (int32_t a = 0; a < k; a++) {
      q[a] = (int32_t)(r % c);
      r /= c;
    }
    /* Every combination of choices: 0 stays, 1 + d moves in direction d. */
    for (;;) {
      int ok = 1;
      for (int32_t a = 0; a < k && ok; a++) {
        if (choice[a] == 0) {
          nq[a] = q[a];
        } else {
          int d = choice[a] - 1;
          ok = g->moves[q[a]] >> d & 1;
          nq[a] = q[a] + g->offset[d];
        }
      }
      for (int32_t a = 0; a < k && ok; a++)
        for (int32_t b = a + 1; b < k && ok; b++)
          ok = nq[a] != nq[b] && !(nq[a] == q[b] && nq[b] == q[a]);
      if (ok) {
        int64_t t = 0, cost = 0;
        for (int32_t a = k - 1; a >= 0; a--) {
          t = t * c + nq[a];
          cost += q[a] != inst->goal[a] || nq[a] != inst->goal[a];
        }
        if (dist[s] + cost < dist[t]) dist[t] = dist[s] + cost;
      }
      int32_t a = 0;
      while (a < k && ++choice[a] == 9) choice[a++] = 0;
      if (a == k) break;
    }
  }
  free(dist);
  free(closed);
  return best;
}

/* The first k agents of a MAPF benchmark scenario (mapf-scen/scen-random/MAP-random-1.scen) on
 * its map, with `connectivity` moves. */
static mapf_instance *benchmark_instance4(const char *maps, const char *map, int32_t k,
                                          int connectivity, mapf_grid **g) {
  char rel[256], path[4400];
  snprintf(rel, sizeof rel, "mapf/%s.map", map);
  *g = test_load_movingai(maps, rel);
  cr_assert_eq(mapf_grid_set_connectivity(*g, connectivity), MAPF_OK);
  snprintf(path, sizeof path, "%s/mapf-scen/scen-random/%s-random-1.scen", maps, map);
  mapf_scen *s = test_load_scen(path, *g, 0);
  mapf_instance *inst = NULL;
  mapf_diag d = {0};
  cr_assert_eq(mapf_instance_from_scen(s, *g, 0, k, &inst, &d), MAPF_OK, "%s", d.msg);
  mapf_scen_free(s);
  return inst;
}

static mapf_instance *benchmark_instance(const char *maps, const char *map, int32_t k,
                                         mapf_grid **g) {
  return benchmark_instance4(maps, map, k, 8, g);
}

/* A corridor of five cells with one pocket above its middle (no diagonal into it: its corner
 * cells are blocked). Two agents swap the corridor's ends: one must wait in the pocket while the
 * other passes. The first to reach the pocket does so at step 3 at the earliest, so the other
 * passes its middle at step 3 and arrives at step 5 at the earliest, and the one in the pocket
 * needs six steps in all: the least sum of costs is 6 + 5 = 11, makespan 6. */
static const char *const pocket_rows[] = {"@@.@@", "....."};

/* ---- the optimum ------------------------------------------------------------------------ */

Test(lacam, lacam_star_reaches_the_optimum_of_a_corridor_with_a_pocket) {
  mapf_grid *g = test_grid_from_rows(pocket_rows, 2);
  int xy[] = {0, 1, 4, 1, 4, 1, 0, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  cr_assert_eq(brute_force_loss(g, inst), 11);
  for (uint64_t seed = 1; seed <= 8; seed++) {
    mapf_run_config cfg = test_run_config(g, inst, "lacam");
    test_set_param(cfg.algo, &cfg.params, "star", 1);
    cfg.limits.steps = 100;
    cfg.seed = seed;
    mapf_result res;
    int64_t loss = run_watched(&cfg, &res, "pocket, star");
    cr_assert_eq(res.status, MAPF_STATUS_OK, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(loss, 11, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(res.soc, 11);
    cr_assert_eq(res.makespan, 6);
    mapf_result_clear(&res);
    /* LaCAM solves it too, never better. */
    cfg = test_run_config(g, inst, "lacam");
    cfg.limits.steps = 100;
    cfg.seed = seed;
    loss = run_watched(&cfg, &res, "pocket");
    cr_assert_eq(res.status, MAPF_STATUS_OK);
    cr_assert_geq(loss, 11);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Three agents on small maps with random starts and goals: LaCAM* ends with the least sum of
 * loss that a search of every configuration finds; LaCAM with a plan no cheaper. */
Test(lacam, lacam_star_matches_a_brute_force_search_on_tiny_instances) {
  const char *const open_rows[] = {"....", "....", "...."};
  const char *const wall_rows[] = {".....", ".@.@.", "....."};
  mapf_grid *maps[2] = {test_grid_from_rows(open_rows, 3), test_grid_from_rows(wall_rows, 3)};
  int lower = 0;
  for (int m = 0; m < 2; m++)
    for (uint64_t seed = 1; seed <= 6; seed++) {
      mapf_instance *inst = test_random_instance(maps[m], 3, seed);
      int64_t best = brute_force_loss(maps[m], inst);
      cr_assert_gt(best, 0);
      mapf_run_config cfg = test_run_config(maps[m], inst, "lacam");
      test_set_param(cfg.algo, &cfg.params, "star", 1);
      cfg.limits.steps = 200;
      cfg.seed = seed;
      mapf_result res;
      int64_t star = run_watched(&cfg, &res, "tiny, star");
      cr_assert_eq(res.status, MAPF_STATUS_OK);
      cr_assert_eq(star, best, "map %d seed %llu: %lld, optimum %lld", m,
                   (unsigned long long)seed, (long long)star, (long long)best);
      mapf_result_clear(&res);
      cfg = test_run_config(maps[m], inst, "lacam");
      cfg.limits.steps = 200;
      cfg.seed = seed;
      int64_t plain = run_watched(&cfg, &res, "tiny");
      cr_assert_eq(res.status, MAPF_STATUS_OK);
      cr_assert_geq(plain, best);
      lower += plain > best;
      mapf_result_clear(&res);
      mapf_instance_free(inst);
    }
  cr_log_info("LaCAM's first solution was not optimal on %d of 12 instances", lower);
  mapf_grid_free(maps[0]);
  mapf_grid_free(maps[1]);
}

/* ---- runs without a solution ---------------------------------------------------------- */

/* Two agents that must swap the two cells of a map: no plan exists. LaCAM tries every
 * configuration and ends at its first step with status limit (expansions), nothing moved. */
Test(lacam, an_unsolvable_instance_ends_the_run_at_its_first_step) {
  mapf_grid *g = test_open_grid(2, 1, "two");
  int xy[] = {0, 0, 1, 0, 1, 0, 0, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  cr_assert_eq(brute_force_loss(g, inst), -1);
  for (int star = 0; star < 2; star++) {
    mapf_run_config cfg = test_run_config(g, inst, "lacam");
    test_set_param(cfg.algo, &cfg.params, "star", star);
    cfg.limits.steps = 1000;
    mapf_result res;
    run_watched(&cfg, &res, "swap of two cells");
    cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
    cr_assert_eq(res.limit, MAPF_LIMIT_EXPANSIONS);
    cr_assert_eq(res.steps, 0);
    cr_assert_eq(res.agent[0].final, inst->start[0]);
    cr_assert_gt(res.expansions, 0);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* A node budget too small for any plan: the run ends at its first step with status limit
 * (expansions), every agent on its start; a budget just large enough solves it. */
Test(lacam, a_node_budget_too_small_ends_the_run_with_the_agents_on_their_starts) {
  mapf_grid *g = test_grid_from_rows(pocket_rows, 2);
  int xy[] = {0, 1, 4, 1, 4, 1, 0, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  int32_t solved_at = -1;
  for (int32_t nodes = 1; nodes <= 40 && solved_at < 0; nodes++) {
    mapf_run_config cfg = test_run_config(g, inst, "lacam");
    test_set_param(cfg.algo, &cfg.params, "nodes", nodes);
    cfg.limits.steps = 100;
    cfg.seed = 3;
    mapf_result res;
    run_watched(&cfg, &res, "budget");
    if (res.status == MAPF_STATUS_OK) {
      solved_at = nodes;
    } else {
      cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
      cr_assert_eq(res.limit, MAPF_LIMIT_EXPANSIONS);
      cr_assert_eq(res.steps, 0);
      cr_assert_eq(res.completed, 0);
      for (int32_t a = 0; a < 2; a++) cr_assert_eq(res.agent[a].final, inst->start[a]);
    }
    mapf_result_clear(&res);
  }
  /* The plan has seven configurations at least (makespan 6). */
  cr_assert_geq(solved_at, 7, "solved with a budget of %d nodes", (int)solved_at);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* The plan's budgets bound the search: a search that runs out ends the run at step 0 with
 * that limit. */
Test(lacam, a_search_out_of_budget_ends_the_run_at_step_0) {
  REQUIRE_MAPS(maps);
  mapf_grid *g = NULL;
  mapf_instance *inst = benchmark_instance(maps, "random-32-32-20", 400, &g);
  mapf_run_config cfg = test_run_config(g, inst, "lacam");
  cfg.limits.steps = 1000;
  cfg.limits.expansions = 5000;
  cfg.seed = 1;
  mapf_result res;
  run_watched(&cfg, &res, "expansions");
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.limit, MAPF_LIMIT_EXPANSIONS);
  cr_assert_eq(res.steps, 0);
  cr_assert_geq(res.expansions, 5000);
  cr_assert_lt(res.expansions, 5000 + 9 * 400, "at most one configuration past the budget");
  mapf_result_clear(&res);
  cfg.limits.expansions = 0;
  cfg.limits.work = 1e-4;
  run_watched(&cfg, &res, "work");
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.limit, MAPF_LIMIT_WORK);
  cr_assert_eq(res.steps, 0);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- LaCAM* under limits -------------------------------------------------------------- */

/* LaCAM* refines until a budget nearly runs out and then executes its best plan: solved,
 * within the budget, and never worse (sum of loss) than LaCAM's plan, which is its first. */
Test(lacam, lacam_star_stops_refining_in_time_and_never_returns_worse_than_lacam) {
  REQUIRE_MAPS(maps);
  mapf_grid *g = NULL;
  mapf_instance *inst = benchmark_instance(maps, "random-32-32-20", 100, &g);
  mapf_run_config cfg = test_run_config(g, inst, "lacam");
  cfg.limits.steps = 1000;
  cfg.seed = 1;
  mapf_result res;
  int64_t plain = run_watched(&cfg, &res, "lacam");
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  int64_t plain_expansions = res.expansions;
  mapf_result_clear(&res);
  test_set_param(cfg.algo, &cfg.params, "star", 1);
  /* The expansion budget: refining stops one configuration's worth (nine per agent) short. */
  cfg.limits.expansions = 400000;
  int64_t star = run_watched(&cfg, &res, "star, expansions");
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_lt(res.expansions, 400000);
  cr_assert_geq(res.expansions, 400000 - 9 * 100);
  cr_assert_leq(star, plain);
  cr_log_info("sum of loss: LaCAM %lld, LaCAM* %lld after %lld expansions", (long long)plain,
              (long long)star, (long long)res.expansions);
  mapf_result_clear(&res);
  /* The work budget, the same way. */
  cfg.limits.expansions = 0;
  cfg.limits.work = 0.05;
  star = run_watched(&cfg, &res, "star, work");
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_lt(res.work_seconds, 0.05);
  cr_assert_gt(res.work_seconds, 0.049);
  cr_assert_leq(star, plain);
  mapf_result_clear(&res);
  /* The clock: refining stops with time left to execute the plan. */
  cfg.limits.work = 0;
  cfg.limits.seconds = 0.3;
  star = run_watched(&cfg, &res, "star, seconds");
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_gt(res.expansions, plain_expansions);
  cr_assert_leq(star, plain);
  mapf_result_clear(&res);
  /* The node budget alone bounds it too, and makes it reproducible. */
  cfg.limits.seconds = 0;
  test_set_param(cfg.algo, &cfg.params, "nodes", 3000);
  mapf_result again;
  star = run_watched(&cfg, &res, "star, nodes");
  int64_t star2 = run_watched(&cfg, &again, "star, nodes, again");
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_leq(star, plain);
  cr_assert_eq(star, star2);
  test_assert_same_run(&res, &again, "star, nodes");
  mapf_result_clear(&res);
  mapf_result_clear(&again);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- the benchmark maps ----------------------------------------------------------------- */

/* Every step legal under the joint rule (no shared cell, no swap, every move a move of the
 * grid), checked apart from the simulator, and every agent on its goal at the end, on maps of
 * the MAPF benchmark with their first scenario's agents, 8- and 4-connected: den520d and
 * warehouse-20-40-10-2-2 with 1,000, random-32-32-20 with 400 (80% of its free cells). The
 * same run twice gives the same results. */
Test(lacam, runs_on_benchmark_maps_are_legal_and_solved) {
  REQUIRE_MAPS(maps);
  const struct {
    const char *map;
    int32_t agents;
    int connectivity;
  } runs[] = {{"den520d", 1000, 8},        {"warehouse-20-40-10-2-2", 1000, 8},
              {"random-32-32-20", 400, 8}, {"den520d", 1000, 4},
              {"warehouse-20-40-10-2-2", 1000, 4}, {"random-32-32-20", 400, 4}};
  for (int i = 0; i < 6; i++) {
    mapf_grid *g = NULL;
    mapf_instance *inst =
        benchmark_instance4(maps, runs[i].map, runs[i].agents, runs[i].connectivity, &g);
    for (int32_t c = 0; c < g->ncells; c++)
      cr_assert(runs[i].connectivity == 8 || (g->moves[c] & 0xf0) == 0, "no diagonal under 4");
    mapf_run_config cfg = test_run_config(g, inst, "lacam");
    cfg.limits.steps = 5000;
    cfg.seed = 1;
    mapf_result res, again;
    run_watched(&cfg, &res, runs[i].map);
    cr_assert_eq(res.status, MAPF_STATUS_OK, "%s, %d-connected: %d of %d at the end",
                 runs[i].map, runs[i].connectivity, (int)res.completed, (int)runs[i].agents);
    cr_assert_eq(res.solved, 1);
    run_watched(&cfg, &again, runs[i].map);
    test_assert_same_run(&res, &again, runs[i].map);
    mapf_result_clear(&res);
    mapf_result_clear(&again);
    mapf_instance_free(inst);
    mapf_grid_free(g);
  }
}

/* ---- patrol and plans ------------------------------------------------------------------- */

/* Under patrol a reached target changes: LaCAM searches again from where the agents stand, and
 * every agent does its loops. */
Test(lacam, patrol_searches_again_when_a_target_changes) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 24, 24, 0.15, 1, 4);
  const mapf_scengen_def *patrol = mapf_scengen_find("patrol");
  cr_assert_not_null(patrol);
  mapf_params gp;
  mapf_scengen_params_default(patrol, &gp);
  gp.v[mapf_param_index(patrol->view, "loops")] = 2;
  mapf_instance *inst = NULL;
  mapf_diag d = {0};
  cr_assert_eq(patrol->generate(g, 12, &gp, 5, &inst, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(inst->loops, 2);
  mapf_run_config cfg = test_run_config(g, inst, "lacam");
  cfg.limits.steps = 3000;
  cfg.seed = 2;
  mapf_result res;
  test_run_checked(&cfg, &res, "patrol");
  cr_assert_eq(res.status, MAPF_STATUS_OK, "limit %d, %lld loops done, %lld steps", (int)res.limit,
               (long long)res.loops_done, (long long)res.steps);
  cr_assert_eq(res.loops_done, (int64_t)inst->n * inst->loops);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* A patrol whose targets put two agents on one cell at once (agent 1's goal is agent 0's
 * start) has no plan to all its targets once agent 0, at its goal after one step, turns back
 * while agent 1 is still on its way: that search ends the run with status limit (expansions),
 * after the step that was executed. */
Test(lacam, a_patrol_with_colliding_targets_ends_when_its_targets_collide) {
  mapf_grid *g = test_open_grid(5, 2, "open");
  int xy[] = {0, 0, 1, 0, 4, 1, 0, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  inst->loops = 1;
  mapf_run_config cfg = test_run_config(g, inst, "lacam");
  cfg.limits.steps = 100;
  mapf_result res;
  test_run_checked(&cfg, &res, "colliding patrol");
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.limit, MAPF_LIMIT_EXPANSIONS);
  cr_assert_eq(res.steps, 1);
  cr_assert_eq(res.agent[0].final, inst->goal[0], "agent 0 reached its goal, then the search");
  cr_assert_eq(res.expansions, res.agent[0].expansions + res.agent[1].expansions);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* tests/data/cli/lacam.yaml: the same results with 1 thread, with 2 and as 2 shards merged, and
 * every job runs under the joint rule. */
Test(lacam, a_plan_with_lacam_gives_the_same_results_on_any_threads_and_shards) {
  char plan[512], db[3][512];
  snprintf(plan, sizeof plan, "%s/tests/data/cli/lacam.yaml", MAPFARM_SOURCE_DIR);
  const char *sql[] = {
      "SELECT job_key, label, execution, status, limit_hit, completion_rate, steps, expansions, "
      "pushes, soc, makespan, solved, mean_travel_distance, loops_done FROM results "
      "ORDER BY job_key",
      "SELECT r.job_key, a.agent, a.final_x, a.final_y, a.completion_step, a.travel_distance, "
      "a.expansions FROM agent_results a JOIN results r ON r.id = a.result_id "
      "ORDER BY r.job_key, a.agent"};
  test_same_on_threads_and_shards(tmpdir, "lacam", plan, 2, sql, 2, db);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE status = 'error'"), 0);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE execution <> 'joint'"), 0);
  cr_assert_gt(test_db_int(db[0], "SELECT count(*) FROM results WHERE solved = 1"), 0);
  cr_assert_gt(test_db_int(db[0], "SELECT count(*) FROM results WHERE limit_hit = 'expansions' "
                                  "AND steps = 0"),
               0, "the label with a tiny node budget");
}
