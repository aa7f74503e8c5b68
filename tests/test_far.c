/* test_far.c: FAR and A*-Replan (far.c) on hand-made, generated and real maps. Every run is
 * watched step by step by an independent checker (as in test_sim.c); the command line's trace
 * is checked move by move (as in test_cli.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algo.h"
#include "astar.h"
#include "flow.h"
#include "mapgen.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

#ifndef MAPFARM_BINARY
#error "MAPFARM_BINARY must name the mapfarm executable"
#endif

/* A generated map; one-cell maze corridors make head-on meetings hopeless for everyone, so
 * mazes get corridors two cells wide. */
static mapf_grid *generated(mapf_mapgen_kind kind, int side, double density, uint64_t seed) {
  return test_mapgen(kind, side, side, density, 2, seed);
}

/* The shared step checker (testutil.h), and each agent's direction changes. */
typedef struct watcher {
  test_step_checker check;
  int8_t *dir;   /* per agent: direction of its last move, -1 */
  int32_t *turns;
} watcher;

static void watch(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  watcher *w = ud;
  if (!w->dir) {
    w->dir = malloc((size_t)n);
    memset(w->dir, -1, (size_t)n);
    w->turns = calloc((size_t)n, sizeof *w->turns);
  }
  /* Before the checker updates its previous positions. */
  for (int32_t a = 0; t > 0 && a < n; a++) {
    int32_t from = w->check.prev[a], to = pos[a];
    if (from == to) continue;
    int d = mapf_grid_dir(w->check.g, from, to);
    if (w->dir[a] >= 0 && w->dir[a] != d) w->turns[a]++;
    w->dir[a] = (int8_t)d;
  }
  test_step_check(&w->check, t, pos, n);
}

static void watcher_free(watcher *w) {
  test_step_checker_free(&w->check);
  free(w->dir);
  free(w->turns);
}

typedef struct run_opts {
  const char *algo; /* "far" or "astar-replan" */
  int reservation, replan_after;
  int64_t steps, budget;
  mapf_execution exec;
} run_opts;

static const run_opts far_defaults = {"far", 3, 5, 2000, 0, MAPF_EXEC_CHAINS};

/* Runs the algorithm under the watcher; asserts no violation and the metric identities. When
 * turns is not NULL it receives the watcher's per-agent direction changes (caller frees). */
static void run_far(const mapf_grid *g, const mapf_instance *inst, run_opts o, mapf_result *res,
                    int32_t **turns) {
  mapf_run_config cfg = test_run_config(g, inst, o.algo);
  test_set_param(cfg.algo, &cfg.params, "reservation", o.reservation);
  test_set_param(cfg.algo, &cfg.params, "replan_after", o.replan_after);
  cfg.limits.steps = o.steps;
  cfg.limits.expansions = o.budget;
  cfg.execution = o.exec;
  cfg.seed = 7;
  watcher w = {{g, NULL, NULL, 0, 0}, NULL, NULL};
  cfg.on_step = watch;
  cfg.ud = &w;
  test_run(&cfg, res);
  test_check_steps(&w.check, res, o.algo);
  test_agent_sums sums = test_check_arrivals(g, inst, res);
  cr_assert_eq(res->searches, sums.searches);
  cr_assert_eq(res->expansions, sums.expansions, "expansions are counted per agent");
  if (turns) {
    *turns = w.turns;
    w.turns = NULL;
  }
  watcher_free(&w);
}

Test(far, registry_declares_far_and_astar_replan) {
  const mapf_algo_def *far = mapf_algo_find("far");
  const mapf_algo_def *ar = mapf_algo_find("astar-replan");
  cr_assert_not_null(far);
  cr_assert_not_null(ar);
  cr_assert_str_eq(far->label, "FAR");
  cr_assert_str_eq(ar->label, "A*-Replan");
  mapf_params p;
  mapf_params_default(far, &p);
  cr_assert_eq(p.v[mapf_param_index(far, "reservation")], 3,
               "k = 3 (Sigurdson et al. 2018 Sec. V)");
  cr_assert_eq(p.v[mapf_param_index(far, "flow")], 1);
  cr_assert_eq(mapf_param_index(ar, "flow"), -1, "A*-Replan has no flow parameter");
  mapf_params_default(ar, &p);
  cr_assert_eq(p.v[mapf_param_index(ar, "reservation")], 3);
  mapf_diag d = {0};
  int32_t k = mapf_param_index(far, "reservation");
  cr_assert_eq(mapf_param_check(far, k, 0, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_check(far, k, 65, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_check(far, k, 64, &d), MAPF_OK);
  char json[256];
  mapf_params_default(far, &p);
  mapf_params_json(far, &p, json, sizeof json);
  cr_assert_str_eq(json, "{\"flow\":true,\"replan_after\":5,\"reservation\":3}");
}

/* Planning on the executor's rule (docs/choices.md): under chains a queue follows its leader in
 * the same step; under single pass an agent can follow only a lower index, so a queue whose
 * leader has the highest index unrolls one agent per step. No reserved move is ever refused. */
Test(far, reservations_follow_the_executors_rule) {
  const char *rows[] = {".........."};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  int xy[20];
  for (int i = 0; i < 5; i++) {
    xy[4 * i] = i, xy[4 * i + 1] = 0;
    xy[4 * i + 2] = i + 5, xy[4 * i + 3] = 0;
  }
  mapf_instance *inst = test_instance_of(g, 5, xy);
  const char *algos[] = {"far", "astar-replan"};
  for (int k = 0; k < 2; k++) {
    run_opts o = far_defaults;
    o.algo = algos[k];
    mapf_result res;
    run_far(g, inst, o, &res, NULL);
    cr_assert_eq(res.status, MAPF_STATUS_OK);
    cr_assert_eq(res.steps, 5, "%s chains: the queue moves every step (%lld)", o.algo,
                 (long long)res.steps);
    cr_assert_eq(res.failed_moves, 0);
    cr_assert_float_eq(res.mean_travel_distance, 5, 1e-9);
    mapf_result_clear(&res);
    o.exec = MAPF_EXEC_SINGLE_PASS;
    run_far(g, inst, o, &res, NULL);
    cr_assert_eq(res.status, MAPF_STATUS_OK);
    cr_assert_eq(res.steps, 9, "%s single pass: %lld steps", o.algo, (long long)res.steps);
    cr_assert_float_eq(res.mean_travel_distance, 5, 1e-9);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* A cross of one-cell corridors. Agents enter from all four arms toward the opposite arms;
 * those meeting head-on wait for each other (a wait-for cycle), and the critical agent backs
 * off until one of them can step into a side arm. */
Test(far, breaks_deadlocks_in_a_cross_shaped_corridor) {
  const char *rows[] = {"@@@@@.@@@@@", "@@@@@.@@@@@", "@@@@@.@@@@@", "@@@@@.@@@@@",
                        "@@@@@.@@@@@", "...........", "@@@@@.@@@@@", "@@@@@.@@@@@",
                        "@@@@@.@@@@@", "@@@@@.@@@@@", "@@@@@.@@@@@"};
  mapf_grid *g = test_grid_from_rows(rows, 11);
  int xy[] = {0, 5, 10, 5,  10, 5, 0, 5,  5, 0, 5, 10,  5, 10, 5, 0};
  const char *algos[] = {"far", "astar-replan"};
  for (int n = 2; n <= 4; n += 2) {
    mapf_instance *inst = test_instance_of(g, n, xy);
    for (int k = 0; k < 4; k++) {
      run_opts o = far_defaults;
      o.algo = algos[k & 1];
      o.exec = k & 2 ? MAPF_EXEC_SINGLE_PASS : MAPF_EXEC_CHAINS;
      o.steps = 500;
      mapf_result res;
      run_far(g, inst, o, &res, NULL);
      cr_assert_eq(res.status, MAPF_STATUS_OK, "%s, %d agents, variant %d: %d of %d arrived",
                   o.algo, n, k, res.completed, n);
      cr_assert_geq(res.deadlocks_broken, 1, "%s: the head-on meeting is a deadlock", o.algo);
      mapf_result_clear(&res);
    }
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

/* Two agents that must swap in a corridor of two cells: a deadlock no step aside can break
 * (there is no free cell). The run stays legal and ends at the step limit. */
Test(far, an_unbreakable_deadlock_waits_legally) {
  const char *rows[] = {".."};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  int xy[] = {0, 0, 1, 0, 1, 0, 0, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  run_opts o = far_defaults;
  o.steps = 30;
  mapf_result res;
  run_far(g, inst, o, &res, NULL);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.deadlocks_broken, 0);
  cr_assert_eq(res.failed_moves, 60, "both agents are blocked every step");
  cr_assert_float_eq(res.mean_travel_distance, 0, 1e-12);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* A corridor with a one-cell pocket below its middle. Agent 1 stands on its goal in the
 * corridor, above the pocket; agent 0 must pass. There is no way round, so after its local
 * repair fails agent 1 steps into the pocket (not onto agent 0's path) and comes back. */
Test(far, an_agent_on_its_goal_steps_aside_and_comes_back) {
  const char *rows[] = {".......", "@@@.@@@"};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  int xy[] = {0, 0, 6, 0, 3, 0, 3, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  const char *algos[] = {"far", "astar-replan"};
  for (int k = 0; k < 2; k++) {
    run_opts o = far_defaults;
    o.algo = algos[k];
    o.steps = 100;
    mapf_result res;
    run_far(g, inst, o, &res, NULL);
    cr_assert_eq(res.status, MAPF_STATUS_OK, "%s", o.algo);
    cr_assert_geq(res.pushes, 1);
    cr_assert_geq(res.agent[1].pushed, 1);
    cr_assert_float_eq(res.agent[1].travel_distance, 2, 1e-9, "into the pocket and back");
    cr_assert_gt(res.agent[1].completion_step, 0, "agent 1 came back to its goal");
    cr_assert_float_eq(res.agent[0].travel_distance, 6, 1e-9);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Straighter paths on equal f (slide 11): on an open map A*-Replan's paths have at most one
 * direction change; FAR along a row that flows its way goes straight. */
Test(far, equal_f_favours_straighter_paths) {
  const char *rows[] = {"............", "............", "............", "............",
                        "............", "............", "............", "............"};
  mapf_grid *g = test_grid_from_rows(rows, 8);
  int xy[] = {1, 1, 10, 5,  10, 6, 2, 2,  0, 7, 9, 0,  11, 3, 3, 6};
  mapf_instance *inst = test_instance_of(g, 4, xy);
  for (int a = 0; a < 4; a++) {
    mapf_instance one = {.n = 1, .start = &inst->start[a], .goal = &inst->goal[a]};
    run_opts o = far_defaults;
    o.algo = "astar-replan";
    mapf_result res;
    int32_t *turns = NULL;
    run_far(g, &one, o, &res, &turns);
    cr_assert_eq(res.status, MAPF_STATUS_OK);
    cr_assert_float_eq(res.mean_travel_distance, mapf_octile(g, one.start[0], one.goal[0]), 1e-9);
    cr_assert_leq(turns[0], 1, "agent %d: %d direction changes", a, turns[0]);
    free(turns);
    mapf_result_clear(&res);
  }
  /* Row 1 flows east, row 2 west: FAR goes straight along them. */
  int rows_xy[] = {1, 1, 10, 1, 10, 2, 1, 2};
  mapf_instance *straight = test_instance_of(g, 2, rows_xy);
  mapf_result res;
  int32_t *turns = NULL;
  run_far(g, straight, far_defaults, &res, &turns);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(turns[0] + turns[1], 0);
  cr_assert_float_eq(res.mean_travel_distance, 9, 1e-9);
  free(turns);
  mapf_result_clear(&res);
  mapf_instance_free(straight);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Shortest distance from s to t over the moves in masks (Bellman-Ford sweeps: test-sized
 * maps only). */
static double graph_distance(const mapf_grid *g, const uint8_t *masks, int32_t s, int32_t t) {
  double *dist = malloc((size_t)g->ncells * sizeof *dist);
  for (int32_t c = 0; c < g->ncells; c++) dist[c] = INFINITY;
  dist[s] = 0;
  for (int changed = 1; changed;) {
    changed = 0;
    for (int32_t u = 0; u < g->ncells; u++) {
      if (isinf(dist[u])) continue;
      for (int d = 0; d < 8; d++) {
        if (!(masks[u] >> d & 1)) continue;
        int32_t v = u + g->offset[d];
        if (dist[u] + mapf_dir_cost[d] < dist[v] - 1e-9) {
          dist[v] = dist[u] + mapf_dir_cost[d];
          changed = 1;
        }
      }
    }
  }
  double r = dist[t];
  free(dist);
  return r;
}

/* With few agents, agents rarely meet: A*-Replan's travel is close to the grid's optimum and
 * FAR's to the optimum of its flow-annotated graph (mostly cardinal, so up to sqrt(2) longer on
 * diagonal runs than the grid's). */
Test(far, travel_distance_is_close_to_optimal_on_sparse_instances, .timeout = 120) {
  mapf_grid *g = generated(MAPF_MAPGEN_RANDOM, 64, 0.1, 21);
  mapf_instance *inst = test_random_instance(g, 20, 5);
  mapf_flow *f = mapf_flow_new(g);
  mapf_astar *as = mapf_astar_new();
  double grid_opt = 0, flow_opt = 0;
  for (int32_t a = 0; a < inst->n; a++) {
    mapf_astar_result r;
    cr_assert_eq(mapf_astar_run(as, g, inst->start[a], inst->goal[a], &r, NULL, NULL), MAPF_OK);
    grid_opt += r.cost;
    flow_opt += graph_distance(g, mapf_flow_moves(f), inst->start[a], inst->goal[a]);
  }
  mapf_result far_res, ar_res;
  run_far(g, inst, far_defaults, &far_res, NULL);
  run_opts o = far_defaults;
  o.algo = "astar-replan";
  run_far(g, inst, o, &ar_res, NULL);
  cr_assert_eq(far_res.status, MAPF_STATUS_OK);
  cr_assert_eq(ar_res.status, MAPF_STATUS_OK);
  double far_travel = far_res.mean_travel_distance * inst->n;
  double ar_travel = ar_res.mean_travel_distance * inst->n;
  cr_log_info("travel: A*-Replan %.1f (grid optimum %.1f), FAR %.1f (flow optimum %.1f)",
              ar_travel, grid_opt, far_travel, flow_opt);
  cr_assert_geq(ar_travel, grid_opt - 1e-6);
  cr_assert_leq(ar_travel, 1.05 * grid_opt);
  cr_assert_geq(far_travel, flow_opt - 1e-6);
  cr_assert_leq(far_travel, 1.05 * flow_opt);
  cr_assert_leq(far_travel, 1.5 * grid_opt);
  mapf_result_clear(&far_res);
  mapf_result_clear(&ar_res);
  mapf_astar_free(as);
  mapf_flow_free(f);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* FAR and A*-Replan on generated maps, both executions: legal, deterministic (two runs agree on
 * every non-timing value), and they finish the random and room maps. The maze has corridors two
 * cells wide (side 40: 41 would leave a one-cell strip along two borders, where queues meet
 * head-on, FAR's known weakness, Sigurdson et al. 2018 Fig. 3) and dead-end pockets where crowds
 * jam, so there the bound is lower: FAR's flow makes the corridors two one-way lanes (0.98 with
 * chains on this instance), A*-Replan's agents meet head-on (about 0.7). */
Test(far, runs_are_legal_deterministic_and_complete_on_generated_maps, .timeout = 300) {
  mapf_mapgen_kind kinds[] = {MAPF_MAPGEN_RANDOM, MAPF_MAPGEN_ROOMS, MAPF_MAPGEN_MAZE};
  for (int k = 0; k < 3; k++) {
    mapf_grid *g = generated(kinds[k], k == 2 ? 40 : 41, 0.2, (uint64_t)k + 1);
    mapf_instance *inst = test_random_instance(g, 60, 100 + (uint64_t)k);
    for (int variant = 0; variant < 4; variant++) {
      run_opts o = far_defaults;
      o.algo = variant & 1 ? "astar-replan" : "far";
      o.exec = variant & 2 ? MAPF_EXEC_SINGLE_PASS : MAPF_EXEC_CHAINS;
      o.steps = 1000;
      mapf_result a, b;
      run_far(g, inst, o, &a, NULL);
      run_far(g, inst, o, &b, NULL);
      char label[200];
      snprintf(label, sizeof label, "%s %s %s", g->name, o.algo, mapf_execution_name(o.exec));
      test_assert_same_run(&a, &b, label);
      double want = kinds[k] == MAPF_MAPGEN_MAZE ? 0.5 : 0.95;
      cr_assert_geq(a.completion_rate, want, "%s: completion %.2f", label, a.completion_rate);
      mapf_result_clear(&a);
      mapf_result_clear(&b);
    }
    mapf_instance_free(inst);
    mapf_grid_free(g);
  }
}

/* Extreme parameters on a room map with one door per wall: k = 1 (reserve only the next move)
 * with a repair after every blocked step, and k = 64 with repairs (and so yielding goals,
 * rule 9) practically never. Legal throughout; FAR with frequent repairs finishes. */
Test(far, extreme_parameters_stay_legal) {
  mapf_grid *g = generated(MAPF_MAPGEN_ROOMS, 33, 0.2, 5);
  mapf_instance *inst = test_random_instance(g, 60, 3);
  int ks[] = {1, 64}, rs[] = {1, 1000};
  for (int v = 0; v < 4; v++) {
    run_opts o = far_defaults;
    o.algo = v & 2 ? "astar-replan" : "far";
    o.reservation = ks[v & 1];
    o.replan_after = rs[v & 1];
    o.steps = 300;
    mapf_result res;
    run_far(g, inst, o, &res, NULL);
    cr_assert_gt(res.completion_rate, v == 0 ? 0.95 : 0.2, "%s k=%d: %.2f", o.algo,
                 o.reservation, res.completion_rate);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(far, a_full_map_stays_still_until_the_step_limit) {
  const char *rows[] = {"....", "....", "....", "...."};
  mapf_grid *g = test_grid_from_rows(rows, 4);
  mapf_instance *inst = test_random_instance(g, 16, 3);
  run_opts o = far_defaults;
  o.steps = 50;
  mapf_result res;
  run_far(g, inst, o, &res, NULL);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_float_eq(res.mean_travel_distance, 0, 1e-12, "nobody can move");
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(far, two_thousand_agents_in_a_corridor_all_arrive, .timeout = 300) {
  int n = 2000;
  mapf_grid *g = test_open_grid(2 * n, 1, "corridor");
  mapf_instance *inst = test_queue_instance(n);
  run_opts o = far_defaults;
  o.steps = 3 * n;
  mapf_result res;
  run_far(g, inst, o, &res, NULL);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.steps, n, "chains: the whole queue moves every step");
  cr_assert_float_eq(res.mean_travel_distance, n, 1e-9);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(far, expansion_budget_ends_the_run) {
  mapf_grid *g = generated(MAPF_MAPGEN_RANDOM, 48, 0.2, 5);
  mapf_instance *inst = test_random_instance(g, 40, 11);
  run_opts o = far_defaults;
  o.budget = 500;
  mapf_result res;
  run_far(g, inst, o, &res, NULL);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.limit, MAPF_LIMIT_EXPANSIONS);
  cr_assert_geq(res.expansions, 500);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* lak307d (a map of Sigurdson et al. 2018's tables) with 100 and 200 agents, both algorithms and
 * both executions: legal, and nearly everyone arrives (Sigurdson et al. 2018 Table I: FAR and
 * A*-Replan 60% on lak307d over 25 to 2,000 agents). */
Test(far, real_map_lak307d, .timeout = 300) {
  REQUIRE_MAPS(maps);
  mapf_grid *g = test_load_movingai(maps, "dao/lak307d.map");
  for (int n = 100; n <= 200; n += 100) {
    mapf_instance *inst = test_random_instance(g, n, 17);
    for (int v = 0; v < 4; v++) {
      run_opts o = far_defaults;
      o.algo = v & 1 ? "astar-replan" : "far";
      o.exec = v & 2 ? MAPF_EXEC_SINGLE_PASS : MAPF_EXEC_CHAINS;
      mapf_result res;
      run_far(g, inst, o, &res, NULL);
      cr_assert_geq(res.completion_rate, 0.95, "%s %d agents %s: %.3f", o.algo, n,
                    mapf_execution_name(o.exec), res.completion_rate);
      mapf_result_clear(&res);
    }
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

/* ---- The command line: `mapfarm solve --algo far --trace` ------------------------------------ */

/* `mapfarm solve --algo far --trace` on lak307d: every move of the trace legal, and its final
 * positions give the printed completion rate. */
Test(far, solve_writes_a_legal_far_trace_on_lak307d, .timeout = 300) {
  REQUIRE_MAPS(maps);
  char dir[] = "/tmp/mapfarm-far-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  const char *variants[] = {"--algo far", "--algo astar-replan",
                            "--algo far --execution single-pass",
                            "--algo far --param reservation=1 --param replan_after=2",
                            "--algo far --param flow=false"};
  char map[4200];
  snprintf(map, sizeof map, "%s/dao/lak307d.map", maps);
  mapf_grid *g = test_load_grid(map);
  for (int v = 0; v < 5; v++) {
    char trace[512], out[512], err[512], cmd[10000];
    snprintf(trace, sizeof trace, "%s/t%d.txt", dir, v);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    snprintf(cmd, sizeof cmd,
             "'%s' solve --map '%s' --generator random --agents 200 --seed 1 %s --trace '%s' "
             ">'%s' 2>'%s'",
             MAPFARM_BINARY, map, variants[v], trace, out, err);
    int st = system(cmd);
    char *o = test_slurp_text(out), *e = test_slurp_text(err);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s", variants[v], e);
    double rate = test_check_solve_trace(trace, o, g, 200, "%s", variants[v]);
    cr_assert_geq(rate, 0.95, "%s: completion %.3f", variants[v], rate);
    cr_assert(strstr(o, "\ndeadlocks_broken: ") != NULL);
    free(o);
    free(e);
  }
  mapf_grid_free(g);
  snprintf(map, sizeof map, "rm -rf '%s'", dir);
  cr_assert_eq(system(map), 0);
}

/* ---- Small crowded maps (docs/reproduction.md, "FAR on small crowded maps") ----------------- */

/* AR0710SR (564 passable cells) with 200 agents: the flow annotation's paths are half as long
 * again as the grid's and pile up on a few one-way rows and columns, and FAR's crowd locks up
 * within a few dozen steps; the deadlock breaker then steps one agent of the wait-for cycle
 * into the only free cell beside it and, when it replans (slide 14), back again, so
 * `deadlocks_broken` grows by about one a step while nobody else moves. The same rules on the
 * plain grid (A*-Replan) bring every agent home. This pins the finding: a change to flow.c or
 * to rules 3-9 that makes FAR complete here must update the page above. */
Test(far, flow_locks_a_small_crowded_map_that_the_grid_clears, .timeout = 300) {
  REQUIRE_MAPS(maps);
  mapf_grid *g = test_load_movingai(maps, "bg/AR0710SR.map");
  mapf_instance *inst = test_random_instance(g, 200, 1);
  run_opts o = far_defaults;
  o.steps = 3000;
  mapf_result grid, flow;
  o.algo = "astar-replan";
  run_far(g, inst, o, &grid, NULL);
  o.algo = "far";
  run_far(g, inst, o, &flow, NULL);
  cr_assert_eq(grid.status, MAPF_STATUS_OK, "A*-Replan: %d of 200 arrived", grid.completed);
  cr_assert_lt(flow.completion_rate, 0.75, "FAR: %.3f", flow.completion_rate);
  cr_assert_geq(flow.deadlocks_broken, o.steps / 2, "FAR: %lld deadlocks broken in %lld steps",
                (long long)flow.deadlocks_broken, (long long)flow.steps);
  mapf_result_clear(&grid);
  mapf_result_clear(&flow);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- Recorded results ------------------------------------------------------------------------ */

/* FNV-1a over every step's positions: a whole run's moves in one number. */
static void hash_positions(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  uint64_t *h = ud;
  *h ^= (uint64_t)t;
  *h *= UINT64_C(0x100000001b3);
  for (int32_t a = 0; a < n; a++) {
    *h ^= (uint32_t)pos[a];
    *h *= UINT64_C(0x100000001b3);
  }
}

/* Runs of both algorithms and both executions on lak307d with 200 agents (and with 4 moves), as
 * recorded with the code before the open list became search_int.h's bucket queue (commit
 * de0738d): the moves of every step, the searches, expansions, failed moves and deadlocks
 * broken. A speed-up must leave them all as they were; a change of the open list's order or ties
 * changes them. */
Test(far, real_map_runs_keep_their_recorded_moves_and_work, .timeout = 300) {
  REQUIRE_MAPS(maps);
  static const struct {
    int conn;
    const char *algo;
    mapf_execution exec;
    int64_t steps, searches, expansions, failed_moves, deadlocks_broken;
    uint64_t hash;
  } want[] = {
      {8, "far", MAPF_EXEC_CHAINS, 142, 314, 131036, 663, 1, UINT64_C(0x61e013703dfde8a1)},
      {8, "far", MAPF_EXEC_SINGLE_PASS, 141, 311, 131026, 802, 1, UINT64_C(0x3841695d8cfb2732)},
      {8, "astar-replan", MAPF_EXEC_CHAINS, 90, 319, 18448, 578, 33, UINT64_C(0xea34e3e1ee6430dc)},
      {8, "astar-replan", MAPF_EXEC_SINGLE_PASS, 94, 327, 18356, 746, 32,
       UINT64_C(0xe2a899d1d47ba20e)},
      {4, "far", MAPF_EXEC_CHAINS, 142, 311, 52626, 650, 1, UINT64_C(0x364d810ee74242a2)},
      {4, "astar-replan", MAPF_EXEC_CHAINS, 119, 411, 44515, 857, 79,
       UINT64_C(0x652c98c5a6f89bde)},
  };
  mapf_grid *g = test_load_movingai(maps, "dao/lak307d.map");
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    cr_assert_eq(mapf_grid_set_connectivity(g, want[i].conn), MAPF_OK);
    mapf_instance *inst = test_random_instance(g, 200, 17);
    mapf_run_config cfg = test_run_config(g, inst, want[i].algo);
    cfg.limits.steps = 2000;
    cfg.execution = want[i].exec;
    cfg.seed = 7;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    cfg.on_step = hash_positions;
    cfg.ud = &h;
    mapf_result res;
    test_run(&cfg, &res);
    char run[64];
    snprintf(run, sizeof run, "%s %s %d", want[i].algo, mapf_execution_name(want[i].exec),
             want[i].conn);
    cr_expect_eq(res.steps, want[i].steps, "%s: steps %lld", run, (long long)res.steps);
    cr_expect_eq(res.searches, want[i].searches, "%s: searches %lld", run,
                 (long long)res.searches);
    cr_expect_eq(res.expansions, want[i].expansions, "%s: expansions %lld", run,
                 (long long)res.expansions);
    cr_expect_eq(res.failed_moves, want[i].failed_moves, "%s: failed moves %lld", run,
                 (long long)res.failed_moves);
    cr_expect_eq(res.deadlocks_broken, want[i].deadlocks_broken, "%s: deadlocks %lld", run,
                 (long long)res.deadlocks_broken);
    cr_expect_eq(h, want[i].hash, "%s: moves hash 0x%016llx", run, (unsigned long long)h);
    mapf_result_clear(&res);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}
