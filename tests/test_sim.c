/* test_sim.c: the simulator's executor rules and metrics, and BMAA* on small hand-made maps and
 * generated ones. Every run here is watched step by step by an independent checker. */
#include <criterion/criterion.h>
#include <math.h>

#include "algo.h"
#include "flow.h"
#include "mapgen.h"
#include "scen.h"
#include "scengen.h"
#include "sim.h"
#include "sim_int.h"
#include "testutil.h"

typedef struct run_opts {
  double expansions, moves, vision, push;
  int64_t steps, budget;
  mapf_execution exec;
} run_opts;

static const run_opts defaults = {32, 32, 1.4142135623730951, 0, 1000, 0, MAPF_EXEC_CHAINS};

/* Runs BMAA* under the step checker; asserts no violation and the metric identities. */
static void run_bmaa(const mapf_grid *g, const mapf_instance *inst, run_opts o, mapf_result *res) {
  mapf_run_config cfg = test_run_config(g, inst, "bmaa");
  test_set_param(cfg.algo, &cfg.params, "expansions", o.expansions);
  test_set_param(cfg.algo, &cfg.params, "moves", o.moves);
  test_set_param(cfg.algo, &cfg.params, "vision", o.vision);
  test_set_param(cfg.algo, &cfg.params, "push", o.push);
  cfg.limits.steps = o.steps;
  cfg.limits.expansions = o.budget;
  cfg.execution = o.exec;
  cfg.seed = 7;
  test_run_checked(&cfg, res, "bmaa");
  test_check_arrivals(g, inst, res);
}


typedef struct flow_watch_ctx {
  const mapf_grid *g;
  const uint8_t *moves;
  int32_t *prev;
  int *against;
} flow_watch_ctx;

static void flow_watch(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  flow_watch_ctx *c = ud;
  for (int32_t a = 0; t > 0 && a < n; a++) {
    if (pos[a] == c->prev[a]) continue;
    int dir = mapf_grid_dir(c->g, c->prev[a], pos[a]);
    if (dir < 0 || !(c->moves[c->prev[a]] >> dir & 1)) (*c->against)++;
  }
  memcpy(c->prev, pos, (size_t)n * sizeof *pos);
}

Test(sim, chains_let_a_queue_of_followers_move_together) {
  const char *rows[] = {".........."};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  /* Agent i at x = i wants x = i + 5: the leader is agent 4, at the front. */
  int xy[20];
  for (int i = 0; i < 5; i++) {
    xy[4 * i] = i, xy[4 * i + 1] = 0, xy[4 * i + 2] = i + 5, xy[4 * i + 3] = 0;
  }
  mapf_instance *inst = test_instance_of(g, 5, xy);
  run_opts o = defaults;
  o.vision = 0; /* see no agents: everyone plans straight through the queue */
  mapf_result res;
  run_bmaa(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.steps, 5, "chains: the whole queue moves every step");
  cr_assert_eq(res.failed_moves, 0);
  mapf_result_clear(&res);

  /* The paper's single pass: an agent moves only into a cell that is free when its turn
   * comes, so the queue unrolls from the front, one more agent per step. */
  o.exec = MAPF_EXEC_SINGLE_PASS;
  run_bmaa(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.steps, 9, "single pass takes %lld steps", (long long)res.steps);
  cr_assert_gt(res.failed_moves, 0);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(sim, agents_never_swap_in_a_corridor) {
  const char *rows[] = {".."};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  int xy[] = {0, 0, 1, 0, 1, 0, 0, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  run_opts o = defaults;
  o.vision = 0;
  o.steps = 20;
  for (int e = 0; e < 2; e++) {
    o.exec = e ? MAPF_EXEC_SINGLE_PASS : MAPF_EXEC_CHAINS;
    mapf_result res;
    run_bmaa(g, inst, o, &res);
    cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
    cr_assert_eq(res.limit, MAPF_LIMIT_STEPS);
    cr_assert_eq(res.steps, 20);
    cr_assert_eq(res.completed, 0);
    cr_assert_eq(res.failed_moves, 40, "both agents fail every step");
    cr_assert_float_eq(res.mean_travel_distance, 0, 1e-12);
    cr_assert(isnan(res.mean_completion_steps));
    cr_assert_float_eq(res.mean_completion_steps_capped, 20, 1e-12);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(sim, a_cycle_of_four_agents_does_not_rotate) {
  const char *rows[] = {"..", ".."};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  /* Each agent's goal is the next agent's cell, clockwise. */
  int xy[] = {0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 0};
  mapf_instance *inst = test_instance_of(g, 4, xy);
  run_opts o = defaults;
  o.vision = 0;
  o.steps = 10;
  mapf_result res;
  run_bmaa(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.completed, 0);
  cr_assert_float_eq(res.mean_travel_distance, 0, 1e-12);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* A corridor with a one-cell pocket below its middle. Agent 1 stands on its goal in the
 * corridor, right above the pocket; agent 0 must pass. */
Test(sim, push_moves_an_agent_off_its_goal_and_it_comes_back) {
  const char *rows[] = {".......", "@@@.@@@"};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  int xy[] = {0, 0, 6, 0, 3, 0, 3, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  run_opts o = defaults;
  o.steps = 200;
  mapf_result res;
  run_bmaa(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT, "without push agent 0 cannot pass");
  cr_assert_eq(res.pushes, 0);
  cr_assert_eq(res.agent[1].completion_step, 0, "agent 1 started on its goal");
  mapf_result_clear(&res);

  o.push = 1;
  run_bmaa(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK, "with push both reach their goals");
  cr_assert_geq(res.pushes, 1);
  cr_assert_geq(res.agent[1].pushed, 1);
  cr_assert_gt(res.agent[1].travel_distance, 0, "pushes count as travel");
  cr_assert_gt(res.agent[1].completion_step, 0, "agent 1 came back to its goal");
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(sim, a_full_map_stays_still_until_the_step_limit) {
  const char *rows[] = {"....", "....", "....", "...."};
  mapf_grid *g = test_grid_from_rows(rows, 4);
  mapf_instance *inst = test_random_instance(g, 16, 3);
  run_opts o = defaults;
  o.steps = 50;
  mapf_result res;
  run_bmaa(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_float_eq(res.mean_travel_distance, 0, 1e-12, "nobody can move");
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(sim, two_thousand_agents_in_a_corridor_all_arrive, .timeout = 120) {
  int n = 2000;
  mapf_grid *g = test_open_grid(2 * n, 1, "corridor");
  mapf_instance *inst = test_queue_instance(n);
  run_opts o = defaults;
  o.vision = 0;
  o.steps = 3 * n;
  mapf_result res;
  run_bmaa(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.steps, n);
  cr_assert_float_eq(res.mean_travel_distance, n, 1e-9);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(sim, expansion_budget_ends_the_run) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 48, 48, 0.2, 1, 5);
  mapf_instance *inst = test_random_instance(g, 40, 11);
  run_opts o = defaults;
  o.budget = 500;
  mapf_result res;
  run_bmaa(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.limit, MAPF_LIMIT_EXPANSIONS);
  cr_assert_geq(res.expansions, 500);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* BMAA* on generated maps, every combination of push and execution: the watcher finds no
 * illegal step, and two runs with the same inputs agree on every non-timing value. */
Test(sim, bmaa_runs_are_legal_and_deterministic_on_generated_maps, .timeout = 300) {
  mapf_mapgen_kind kinds[] = {MAPF_MAPGEN_RANDOM, MAPF_MAPGEN_ROOMS, MAPF_MAPGEN_MAZE};
  for (int k = 0; k < 3; k++) {
    /* Corridors two cells wide: in one-cell corridors agents meeting head-on can never pass. */
    mapf_grid *g = test_mapgen(kinds[k], 41, 41, 0.2, 2, (uint64_t)k + 1);
    mapf_instance *inst = test_random_instance(g, 60, 100 + (uint64_t)k);
    for (int variant = 0; variant < 4; variant++) {
      run_opts o = defaults;
      o.push = variant & 1;
      o.exec = variant & 2 ? MAPF_EXEC_SINGLE_PASS : MAPF_EXEC_CHAINS;
      o.steps = 600;
      mapf_result a, b;
      run_bmaa(g, inst, o, &a);
      run_bmaa(g, inst, o, &b);
      char label[200];
      snprintf(label, sizeof label, "%s variant %d", g->name, variant);
      test_assert_same_run(&a, &b, label);
      cr_assert_gt(a.completion_rate, 0.2, "%s: completion %.2f", label, a.completion_rate);
      mapf_result_clear(&a);
      mapf_result_clear(&b);
    }
    mapf_instance_free(inst);
    mapf_grid_free(g);
  }
}

/* BMAA* with flow (BMAA*-c, Sigurdson et al. 2018 Sec. IV-C): the search follows the flow
 * annotation, so without push every move an agent makes is an edge of the annotated graph. */
Test(sim, bmaa_with_flow_moves_only_along_annotated_edges) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 40, 40, 0.15, 1, 21);
  mapf_instance *inst = test_random_instance(g, 30, 5);
  const mapf_flow *flow = mapf_grid_flow(g);
  cr_assert_not_null(flow);
  const uint8_t *fm = mapf_flow_moves(flow);
  mapf_run_config cfg = test_run_config(g, inst, "bmaa");
  test_set_param(cfg.algo, &cfg.params, "flow", 1);
  cfg.limits.steps = 3000;
  int32_t *prev = calloc((size_t)inst->n, sizeof *prev);
  int against = 0;
  flow_watch_ctx ctx = {g, fm, prev, &against};
  cfg.on_step = flow_watch;
  cfg.ud = &ctx;
  mapf_workspace *ws = mapf_workspace_new();
  mapf_result res;
  mapf_diag d = {0};
  cr_assert_eq(mapf_run(ws, &cfg, &res, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(against, 0, "%d moves against the flow", against);
  cr_assert_gt(res.completion_rate, 0.5, "completion %.2f", res.completion_rate);
  /* The flow graph differs from the grid, so the runs differ too. */
  mapf_result plain;
  test_set_param(cfg.algo, &cfg.params, "flow", 0);
  cfg.on_step = NULL;
  cr_assert_eq(mapf_run(ws, &cfg, &plain, &d), MAPF_OK, "%s", d.msg);
  cr_assert(plain.expansions != res.expansions || plain.steps != res.steps);
  mapf_result_clear(&res);
  mapf_result_clear(&plain);
  mapf_workspace_free(ws);
  free(prev);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* The wall-clock limit is checked between agents' searches, not only between steps, so even a
 * step of many expensive searches stops close to the limit. */
Test(sim, wall_clock_limit_stops_a_run_inside_a_step, .timeout = 60) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 256, 256, 0.1, 1, 9);
  mapf_instance *inst = test_random_instance(g, 2000, 1);
  mapf_run_config cfg = test_run_config(g, inst, "bmaa");
  test_set_param(cfg.algo, &cfg.params, "expansions", 100000);
  cfg.limits.steps = 1000000;
  cfg.limits.seconds = 0.05;
  mapf_result res;
  test_run(&cfg, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.limit, MAPF_LIMIT_SECONDS);
  /* One step of 2,000 searches of up to 100,000 expansions would take far longer than this
   * bound; stopping between searches keeps the overrun to one search. */
  cr_assert_lt(res.wall_seconds, 5.0, "ran %.2f s past a 0.05 s limit", res.wall_seconds);
  cr_assert_lt(res.completion_rate, 1.0);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* The expansion budget, like the wall-clock limit, is checked between agents' searches: FAR's
 * first step plans every agent's complete path, and without the check 2,000 agents spent
 * three times a 10-million budget in that step. Every algorithm stops within one search of
 * the budget (one search expands each cell at most once, or, for WHCA*, each cell once per
 * window step plus its RRA*), and the step in which the budget ran out is not executed. */
Test(sim, every_algorithm_stops_within_one_search_of_the_budget, .timeout = 120) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 96, 96, 0.1, 1, 3);
  mapf_instance *inst = test_random_instance(g, 300, 4);
  const int64_t budget = 20000;
  mapf_workspace *ws = mapf_workspace_new(); /* one workspace for every algorithm in turn */
  mapf_diag d = {0};
  for (int32_t k = 0; k < mapf_algo_count(); k++) {
    if (mapf_algo_at(k)->program) continue; /* runs a program: tests/test_external.c */
    const mapf_algo_def *def = mapf_algo_at(k);
    mapf_run_config cfg = test_run_config(g, inst, def->name);
    cfg.limits.steps = 100000;
    cfg.limits.expansions = budget;
    mapf_result res;
    cr_assert_eq(mapf_run(ws, &cfg, &res, &d), MAPF_OK, "%s: %s", def->name, d.msg);
    cr_expect_eq(res.limit, MAPF_LIMIT_EXPANSIONS, "%s", def->name);
    int64_t one_search = (int64_t)g->ncells * (strcmp(def->name, "whca") == 0 ? 10 : 1);
    cr_expect_geq(res.expansions, budget, "%s", def->name);
    cr_expect_leq(res.expansions, budget + one_search, "%s: %lld expansions for a budget of %lld",
                  def->name, (long long)res.expansions, (long long)budget);
    mapf_result_clear(&res);
  }
  mapf_workspace_free(ws);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- patrol (Jansen & Sturtevant 2008 Sec. 4; sim.h)
 * ----------------------------------------------------- */

/* Watches a patrol run on its own: the step checker, plus each agent's loops counted from the
 * trace by the rule of sim.h (reach the goal, then the start: one loop), and the step of its
 * last arrival on its start once all loops are done. */
typedef struct patrol_watch {
  test_step_checker steps;
  const mapf_instance *inst;
  int32_t *loops, *heading_start;
  int64_t *done_step;
} patrol_watch;

static void patrol_step(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  patrol_watch *w = ud;
  int32_t *prev = w->steps.prev;
  for (int32_t a = 0; t > 0 && a < n; a++) {
    if (pos[a] == prev[a]) continue;
    if (w->loops[a] == w->inst->loops) {
      if (pos[a] == w->inst->start[a]) w->done_step[a] = t;
      if (prev[a] == w->inst->start[a]) w->done_step[a] = -1;
    } else if (!w->heading_start[a] && pos[a] == w->inst->goal[a]) {
      w->heading_start[a] = 1;
    } else if (w->heading_start[a] && pos[a] == w->inst->start[a]) {
      w->heading_start[a] = 0;
      if (++w->loops[a] == w->inst->loops) w->done_step[a] = t;
    }
  }
  test_step_check(&w->steps, t, pos, n);
}

/* Runs algorithm `name` (defaults; BMAA* with push when `push`) on a patrol instance under the
 * watcher and checks the result's patrol fields against it. */
static void run_patrol_push(const char *name, const mapf_grid *g, const mapf_instance *inst,
                            int64_t steps, int push, mapf_result *res) {
  mapf_run_config cfg = test_run_config(g, inst, name);
  if (push) test_set_param(cfg.algo, &cfg.params, "push", 1);
  cfg.limits.steps = steps;
  int32_t n = inst->n;
  patrol_watch w = {{g, NULL, NULL, 0, 0}, inst, calloc((size_t)n, sizeof(int32_t)),
                    calloc((size_t)n, sizeof(int32_t)), malloc((size_t)n * sizeof(int64_t))};
  for (int32_t a = 0; a < n; a++) w.done_step[a] = -1;
  cfg.on_step = patrol_step;
  cfg.ud = &w;
  test_run(&cfg, res);
  cr_assert_eq(w.steps.violations, 0, "%s: %lld illegal steps", name,
               (long long)w.steps.violations);
  cr_assert_eq(res->loops, inst->loops);
  int64_t loops = 0, completed = 0;
  for (int32_t a = 0; a < n; a++) {
    const mapf_agent_result *ar = &res->agent[a];
    cr_assert_eq(ar->loops_done, w.loops[a], "%s agent %d: loops", name, a);
    cr_assert_eq(ar->completion_step, w.done_step[a], "%s agent %d: completion step", name, a);
    cr_assert_eq(ar->reached, w.done_step[a] >= 0, "%s agent %d", name, a);
    cr_assert_eq(ar->goal, inst->goal[a]);
    if (ar->reached) cr_assert_eq(ar->final, inst->start[a], "%s: done agents end on starts", name);
    loops += ar->loops_done;
    completed += ar->reached;
  }
  cr_assert_eq(res->loops_done, loops);
  cr_assert_eq(res->completed, completed);
  cr_assert_eq(res->status == MAPF_STATUS_OK, completed == n, "%s", name);
  cr_assert_float_eq(res->failed_moves_per_loop,
                     (double)res->failed_moves / ((double)n * inst->loops), 1e-12);
  test_step_checker_free(&w.steps);
  free(w.loops);
  free(w.heading_start);
  free(w.done_step);
}

static void run_patrol(const char *name, const mapf_grid *g, const mapf_instance *inst,
                       int64_t steps, mapf_result *res) {
  run_patrol_push(name, g, inst, steps, 0, res);
}

/* One agent on an open corridor: every algorithm walks there and back three times, 5 steps a
 * leg, and completes with its last loop; loops = 0 keeps the one-way result. */
Test(sim, a_patrolling_agent_completes_its_loops_on_a_corridor) {
  const char *rows[] = {"......"};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  int xy[] = {0, 0, 5, 0};
  mapf_instance *inst = test_instance_of(g, 1, xy);
  for (int32_t k = 0; k < mapf_algo_count(); k++) {
    if (mapf_algo_at(k)->program) continue; /* runs a program: tests/test_external.c */
    const char *name = mapf_algo_at(k)->name;
    mapf_result res;
    inst->loops = 3;
    run_patrol(name, g, inst, 200, &res);
    cr_assert_eq(res.status, MAPF_STATUS_OK, "%s", name);
    cr_assert_eq(res.agent[0].loops_done, 3, "%s", name);
    cr_assert_eq(res.agent[0].completion_step, 30, "%s: %lld", name,
                 (long long)res.agent[0].completion_step);
    cr_assert_eq(res.steps, 30, "%s", name);
    cr_assert_float_eq(res.agent[0].travel_distance, 30, 1e-9, "%s", name);
    cr_assert_eq(res.agent[0].final, inst->start[0]);
    cr_assert_eq(res.failed_moves, 0, "%s", name);
    cr_assert_float_eq(res.failed_moves_per_loop, 0, 1e-12);
    cr_assert_float_eq(res.mean_completion_steps, 30, 1e-12);
    mapf_result_clear(&res);

    inst->loops = 0;
    mapf_run_config cfg = test_run_config(g, inst, name);
    cfg.limits.steps = 200;
    test_run(&cfg, &res);
    cr_assert_eq(res.status, MAPF_STATUS_OK);
    cr_assert_eq(res.agent[0].completion_step, 5, "%s", name);
    cr_assert_eq(res.agent[0].loops_done, 0);
    cr_assert_eq(res.agent[0].final, inst->goal[0]);
    cr_assert_eq(res.loops, 0);
    cr_assert_eq(res.loops_done, 0);
    cr_assert(isnan(res.failed_moves_per_loop));
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Every algorithm completes a patrol of several agents in a room: targets change in the order
 * sim.h gives (the watcher recounts the loops and completion steps from the trace). */
Test(sim, every_algorithm_completes_patrols_with_targets_in_order, .timeout = 120) {
  const char *rows[] = {"..........", "..........", "....@@....", "..........",
                        "..........", ".........."};
  mapf_grid *g = test_grid_from_rows(rows, 6);
  /* Starts in column 0, goals in column 9, crossing rows. */
  int xy[] = {0, 0, 9, 5, 0, 2, 9, 3, 0, 3, 9, 1, 0, 5, 9, 0};
  mapf_instance *inst = test_instance_of(g, 4, xy);
  inst->loops = 3;
  for (int32_t k = 0; k < mapf_algo_count(); k++) {
    if (mapf_algo_at(k)->program) continue; /* runs a program: tests/test_external.c */
    const char *name = mapf_algo_at(k)->name;
    mapf_result res;
    run_patrol(name, g, inst, 2000, &res);
    cr_assert_eq(res.status, MAPF_STATUS_OK, "%s: %d of 4 completed", name, (int)res.completed);
    cr_assert_eq(res.loops_done, 12, "%s", name);
    for (int32_t a = 0; a < 4; a++) {
      cr_assert_eq(res.agent[a].loops_done, 3);
      /* Three round trips of at least 2 x 9 moves each. */
      cr_assert_geq(res.agent[a].completion_step, 54, "%s", name);
      cr_assert_geq(res.agent[a].travel_distance, 54 - 1e-9, "%s", name);
    }
    mapf_result_clear(&res);
  }
  /* Generated instances on a generated map: each algorithm's run is checked the same way,
   * whether or not every agent finishes. */
  mapf_grid *rooms = test_mapgen(MAPF_MAPGEN_ROOMS, 24, 24, 0.2, 1, 4);
  mapf_diag d = {0};
  const mapf_scengen_def *gen = mapf_scengen_find("patrol");
  mapf_params gp;
  mapf_scengen_params_default(gen, &gp);
  gp.v[mapf_param_index(gen->view, "loops")] = 2;
  mapf_instance *pi = NULL;
  cr_assert_eq(gen->generate(rooms, 12, &gp, 3, &pi, &d), MAPF_OK, "%s", d.msg);
  for (int32_t k = 0; k < mapf_algo_count(); k++) {
    if (mapf_algo_at(k)->program) continue; /* runs a program: tests/test_external.c */
    mapf_result res;
    run_patrol(mapf_algo_at(k)->name, rooms, pi, 1500, &res);
    cr_assert_gt(res.loops_done, 0, "%s", mapf_algo_at(k)->name);
    mapf_result_clear(&res);
  }
  mapf_instance_free(pi);
  mapf_grid_free(rooms);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* An agent that has done its loops stays on its start like an agent on its goal: pushed off
 * (BMAA* push) it comes back, and its completion step is its last return. */
Test(sim, a_done_patroller_pushed_off_its_start_comes_back) {
  const char *rows[] = {".......", "@@@.@@@"};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  /* Agent 1 patrols once between the corridor cell above the pocket and the pocket; agent 0
   * patrols the corridor end to end, twice, through agent 1's start. */
  int xy[] = {0, 0, 6, 0, 3, 0, 3, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  inst->loops = 2;
  mapf_result res;
  run_patrol_push("bmaa", g, inst, 400, 1, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_geq(res.agent[1].pushed, 1);
  cr_assert_eq(res.agent[1].loops_done, 2);
  cr_assert_eq(res.agent[0].loops_done, 2);
  /* Agent 1's two loops take 4 steps; it was pushed after them and came back later. */
  cr_assert_gt(res.agent[1].completion_step, 4);
  mapf_result_clear(&res);
  /* Without push agent 0 cannot pass once agent 1 is done. */
  run_patrol("bmaa", g, inst, 100, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.agent[1].completion_step, 4);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(sim, patrol_needs_loops_of_at_least_zero_and_goals_off_their_starts) {
  const char *rows[] = {"....."};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  int xy[] = {0, 0, 4, 0, 2, 0, 2, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  mapf_diag d = {0};
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_OK, "one-way: a start may be the goal");
  inst->loops = 1;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "agent 1: a patrol (loops 1) needs a goal other than its start (2,0)");
  inst->loops = -1;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "loops: expected an integer >= 0, found -1");
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Algorithms without a direction map report no coherence and no series. */
Test(sim, only_direction_maps_report_coherence) {
  const char *rows[] = {"......"};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  int xy[] = {0, 0, 5, 0};
  mapf_instance *inst = test_instance_of(g, 1, xy);
  for (int32_t k = 0; k < mapf_algo_count(); k++) {
    if (mapf_algo_at(k)->program) continue; /* runs a program: tests/test_external.c */
    const mapf_algo_def *def = mapf_algo_at(k);
    mapf_run_config cfg = test_run_config(g, inst, def->name);
    cfg.limits.steps = 100;
    cfg.sample_every = 1;
    mapf_result res;
    test_run(&cfg, &res);
    if (strcmp(def->name, "dm") == 0) {
      cr_assert_float_eq(res.coherence, 1, 1e-12, "a straight line is fully coherent");
      cr_assert_eq(res.coherence_samples, 6, "steps 0 to 5");
    } else {
      cr_assert(isnan(res.coherence), "%s", def->name);
      cr_assert_null(res.coherence_series, "%s", def->name);
      cr_assert_eq(res.coherence_samples, 0);
    }
    mapf_result_clear(&res);
    cr_assert_null(res.coherence_series);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Table II's rule under a work budget (sim.h, mean_completion_work_at_limit): each agent's
 * completion work is the charge at the step it arrived, so it grows with its completion step
 * and never exceeds the run's charge; the mean counts unfinished agents as the budget, and a
 * run without a work budget has none. */
Test(sim, completion_work_counts_unfinished_agents_as_the_budget) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 64, 64, 0.2, 1, 5);
  mapf_instance *inst = test_random_instance(g, 120, 2);
  mapf_run_config cfg = test_run_config(g, inst, "bmaa");
  cfg.limits.steps = 100000;
  cfg.limits.work = 0.004;
  mapf_result res;
  test_run(&cfg, &res);
  cr_assert_eq(res.limit, MAPF_LIMIT_WORK);
  int32_t open = 0;
  double sum = 0;
  for (int32_t a = 0; a < res.agents; a++) {
    const mapf_agent_result *ar = &res.agent[a];
    if (!ar->reached) {
      open++;
      continue;
    }
    cr_assert_geq(ar->completion_work, 0);
    cr_assert_leq(ar->completion_work, res.work_seconds);
    sum += ar->completion_work;
    for (int32_t b = 0; b < res.agents; b++)
      if (res.agent[b].reached && res.agent[b].completion_step < ar->completion_step)
        cr_assert_leq(res.agent[b].completion_work, ar->completion_work);
  }
  cr_assert_gt(open, 0, "the budget should leave agents unfinished");
  cr_assert_lt(open, res.agents, "some agents should arrive within the budget");
  cr_assert_float_eq(res.mean_completion_work_at_limit, (sum + open * 0.004) / res.agents, 1e-12);
  mapf_result_clear(&res);
  cfg.limits.work = 0;
  cfg.limits.steps = 50;
  test_run(&cfg, &res);
  cr_assert(isnan(res.mean_completion_work_at_limit));
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- the joint rule (sim.h, MAPF_EXEC_JOINT; Stern et al. 2019) ----------------------------
 * A scripted joint planner: at step t it asks each agent for the cell script[t][a] ((x, y);
 * x = -1 waits), then waits; the simulator must check and execute exactly that. */
typedef struct script {
  int32_t n, steps;
  const int *xy; /* steps x n x 2 */
} script;

static int script_init(mapf__sim *sim, void **state, mapf_diag *d) {
  (void)d;
  *state = sim->cfg->ud;
  return MAPF_OK;
}

static int script_plan(mapf__sim *sim, void *state) {
  const script *s = state;
  for (int32_t a = 0; a < sim->n; a++) {
    sim->want[a] = MAPF__WAIT;
    if (sim->time >= s->steps) continue;
    const int *c = &s->xy[2 * (sim->time * s->n + a)];
    /* Coordinates are not checked here: the simulator must refuse what is off the map. */
    if (c[0] >= 0) sim->want[a] = c[1] * sim->grid->width + c[0];
  }
  return MAPF_OK;
}

static void script_free(void *state) { (void)state; }

static const mapf__planner_vt script_vt = {
    .init = script_init, .plan = script_plan, .free = script_free};
static const mapf_algo_def script_joint = {
    .name = "script", .label = "Script", .doc = "a scripted joint planner", .vt = &script_vt,
    .joint = true};

/* Runs the script on g with agents from starts to goals; returns mapf_run's code. */
static int run_script(const mapf_grid *g, const int *starts_goals, const script *s,
                      mapf_execution asked, mapf_result *res, mapf_diag *d) {
  mapf_instance *inst = test_instance_of(g, s->n, starts_goals);
  mapf_run_config cfg = {0};
  cfg.grid = g;
  cfg.inst = inst;
  cfg.algo = &script_joint;
  cfg.limits.steps = 10;
  cfg.execution = asked;
  cfg.ud = (void *)s;
  mapf_workspace *ws = mapf_workspace_new();
  int rc = mapf_run(ws, &cfg, res, d);
  mapf_workspace_free(ws);
  mapf_instance_free(inst);
  return rc;
}

/* Three agents turn around a 2 x 2 square in one step (one diagonal move), and four agents
 * around it: each enters the cell the next one leaves. Legal under the joint rule, whatever
 * rule was asked for: a joint planner always runs joint. */
Test(sim, joint_rule_lets_a_cycle_of_three_or_four_agents_rotate) {
  mapf_grid *g = test_open_grid(2, 2, "square");
  int three[] = {0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 0, 0};
  int three_moves[] = {1, 0, 1, 1, 0, 0};
  script s = {3, 1, three_moves};
  mapf_result res;
  mapf_diag d = {0};
  cr_assert_eq(run_script(g, three, &s, MAPF_EXEC_CHAINS, &res, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.steps, 1);
  for (int a = 0; a < 3; a++)
    cr_assert_eq(res.agent[a].final, mapf_grid_id(g, three[4 * a + 2], three[4 * a + 3]));
  cr_assert_float_eq(res.agent[2].travel_distance, MAPF_SQRT2, 1e-12);
  cr_assert_float_eq(res.mean_travel_distance, (2 + MAPF_SQRT2) / 3, 1e-12);
  mapf_result_clear(&res);

  int four[] = {0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 0};
  int four_moves[] = {1, 0, 1, 1, 0, 1, 0, 0};
  script s4 = {4, 1, four_moves};
  cr_assert_eq(run_script(g, four, &s4, MAPF_EXEC_SINGLE_PASS, &res, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.steps, 1);
  cr_assert_float_eq(res.mean_travel_distance, 1, 1e-12);
  mapf_result_clear(&res);
  mapf_grid_free(g);
}

/* Runs a two-step script whose second step is illegal and checks the error: status error, the
 * code, and the message naming the first illegal move. */
static void expect_illegal(const mapf_grid *g, int n, const int *sg, const int *moves,
                           const char *msg) {
  script s = {n, 2, moves};
  mapf_result res;
  mapf_diag d = {0};
  cr_assert_eq(run_script(g, sg, &s, MAPF_EXEC_JOINT, &res, &d), MAPF_EINVAL, "%s", msg);
  cr_assert_eq(res.status, MAPF_STATUS_ERROR);
  cr_assert_str_eq(res.message, msg);
  cr_assert_str_eq(d.msg, msg);
  mapf_result_clear(&res);
}

/* Every way a joint step can be illegal ends the run with an error naming the first illegal
 * move by agent index: step, agent, from, to, why. Each script's first step is legal (all
 * agents wait but agent 0, which steps right), so the error is at step 2, from the moved
 * positions. */
Test(sim, joint_rule_refuses_conflicts_swaps_and_moves_off_the_grid) {
  const char *rows[] = {".....", "..@..", "....."};
  mapf_grid *g = test_grid_from_rows(rows, 3);
  /* Agents 0 and 1 on the top row, agent 2 below. Step 1: agent 0 from (0,0) to (1,0). */
  int sg[] = {0, 0, 4, 2, 2, 0, 4, 0, 1, 1, 0, 2};
#define STEP1 1, 0, -1, 0, -1, 0
  /* A swap: 0 goes right to (2,0) where 1 stands, 1 goes left to (1,0). */
  int swap[] = {STEP1, 2, 0, 1, 0, -1, 0};
  expect_illegal(g, 3, sg, swap,
                 "illegal joint step 2: agent 0 from (1,0) to (2,0): agent 1 moves the other "
                 "way along that edge (a swap)");
  /* Two agents into one free cell: 0 back to (0,0), 2 there diagonally. */
  int both[] = {STEP1, 0, 0, -1, 0, 0, 0};
  expect_illegal(g, 3, sg, both,
                 "illegal joint step 2: agent 0 from (1,0) to (0,0): agent 2 ends there too "
                 "(moving from (1,1))");
  /* A move onto an agent that stays: 2 to (1,0), where 0 stays. The stay is legal; the move
   * is not, though agent 0 has the lower index. */
  int onto[] = {STEP1, -1, 0, -1, 0, 1, 0};
  expect_illegal(g, 3, sg, onto,
                 "illegal joint step 2: agent 2 from (1,1) to (1,0): agent 0 ends there too "
                 "(staying on (1,0))");
  /* A teleport, a blocked cell, a corner cut, a cell off the map. */
  int far[] = {STEP1, 4, 2, -1, 0, -1, 0};
  expect_illegal(g, 3, sg, far,
                 "illegal joint step 2: agent 0 from (1,0) to (4,2): not a neighbouring cell");
  int blocked[] = {STEP1, 2, 1, -1, 0, -1, 0};
  expect_illegal(g, 3, sg, blocked,
                 "illegal joint step 2: agent 0 from (1,0) to (2,1): a blocked cell");
  int corner[] = {STEP1, -1, 0, 3, 1, -1, 0};
  expect_illegal(g, 3, sg, corner,
                 "illegal joint step 2: agent 1 from (2,0) to (3,1): a diagonal move past a "
                 "blocked corner");
  int off[] = {STEP1, -1, 0, -1, 0, 1, 9};
  expect_illegal(g, 3, sg, off,
                 "illegal joint step 2: agent 2 from (1,1) to cell 46: not a cell of the 5x3 "
                 "map");
#undef STEP1
  mapf_grid_free(g);
}

/* The joint rule is for joint planners: one that plans each agent alone is refused under it,
 * with the reason; a joint one runs joint whatever was asked. */
Test(sim, joint_rule_is_refused_to_planners_of_one_agent_at_a_time) {
  mapf_grid *g = test_open_grid(4, 1, "corridor");
  int xy[] = {0, 0, 3, 0};
  mapf_instance *inst = test_instance_of(g, 1, xy);
  mapf_run_config cfg = test_run_config(g, inst, "bmaa");
  cfg.limits.steps = 10;
  cfg.execution = MAPF_EXEC_JOINT;
  mapf_result res;
  mapf_diag d = {0};
  mapf_workspace *ws = mapf_workspace_new();
  cr_assert_eq(mapf_run(ws, &cfg, &res, &d), MAPF_EUNSUPPORTED);
  cr_assert_eq(res.status, MAPF_STATUS_ERROR);
  cr_assert_str_eq(res.message, "execution joint: algorithm bmaa plans each agent on its own and "
                                "runs under chains or single-pass");
  mapf_result_clear(&res);
  mapf_workspace_free(ws);
  for (int32_t k = 0; k < mapf_algo_count(); k++) {
    const mapf_algo_def *def = mapf_algo_at(k);
    for (int e = 0; e < 3; e++)
      cr_assert_eq(mapf_algo_execution(def, (mapf_execution)e),
                   def->joint ? MAPF_EXEC_JOINT : (mapf_execution)e, "%s", def->name);
  }
  cr_assert_eq(mapf_execution_parse("joint"), MAPF_EXEC_JOINT);
  cr_assert_str_eq(mapf_execution_name(MAPF_EXEC_JOINT), "joint");
  mapf_instance_free(inst);
  mapf_grid_free(g);
}
