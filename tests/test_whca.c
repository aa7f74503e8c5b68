/* test_whca.c: WHCA* (Silver 2005; docs/choices.md, whca) and its Reverse Resumable A*: RRA*
 * distances against A* on real and generated maps, resumption against fresh searches, and
 * WHCA* runs watched step by step by an independent checker (no shared cells, no swaps, only
 * legal moves) under both executions, on hand-made corridors and generated and real maps, and
 * through `mapfarm solve --trace`. */
#include <criterion/criterion.h>
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algo.h"
#include "astar.h"
#include "mapgen.h"
#include "rng.h"
#include "rra.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

/* A generated map with mazes of two-cell corridors. */
static mapf_grid *generated(mapf_mapgen_kind kind, int side, uint64_t seed) {
  return test_mapgen(kind, side, side, 0.2, 2, seed);
}

/* --- RRA* ------------------------------------------------------------------------------- */

/* A random passable cell of the largest component. */
static int32_t random_cell(const mapf_grid *g, mapf_rng *r, int32_t comp) {
  for (;;) {
    int32_t c = (int32_t)mapf_rng_below(r, (uint64_t)g->ncells);
    if (g->passable[c] && g->component[c] == comp) return c;
  }
}

static int32_t largest_component(const mapf_grid *g) {
  int32_t best = 0;
  for (int32_t k = 1; k < g->ncomponents; k++)
    if (g->component_size[k] > g->component_size[best]) best = k;
  return best;
}

/* For `goals` random goals, one RRA* each answers `queries` random cells in random order
 * (so most answers come from a resumed search, some from its closed list): each answer equals
 * the A* cost from the cell to the goal, and a fresh RRA* asked only that cell agrees. */
static void check_rra(const mapf_grid *g, uint64_t seed, int goals, int queries) {
  mapf_rng rng;
  mapf_rng_seed(&rng, seed);
  mapf_astar *as = mapf_astar_new();
  int32_t comp = largest_component(g);
  int resumed = 0;
  for (int k = 0; k < goals; k++) {
    int32_t goal = random_cell(g, &rng, comp), target = random_cell(g, &rng, comp);
    mapf__rra r = {0}, fresh = {0};
    mapf__rra_start(&r, g, goal, target);
    int64_t exp = 0, last_exp = 0;
    for (int q = 0; q < queries; q++) {
      int32_t c = random_cell(g, &rng, comp);
      double dist = mapf__rra_dist(&r, g, c, &exp, NULL);
      resumed += exp > last_exp && q > 0;
      last_exp = exp;
      mapf_astar_result ar;
      cr_assert_eq(mapf_astar_run(as, g, c, goal, &ar, NULL, NULL), MAPF_OK);
      cr_assert(ar.found);
      cr_assert_float_eq(dist, ar.cost, 1e-9, "%s: cell %d to goal %d: RRA* %.12f, A* %.12f",
                         g->name, c, goal, dist, ar.cost);
      mapf__rra_start(&fresh, g, goal, target);
      int64_t fexp = 0;
      double again = mapf__rra_dist(&fresh, g, c, &fexp, NULL);
      cr_assert_float_eq(again, dist, 1e-9, "a fresh search gives %.12f, resumed %.12f", again,
                         dist);
      mapf__rra_free(&fresh);
      /* Asking again costs nothing: the cell is closed. */
      int64_t before = exp;
      cr_assert_eq(mapf__rra_dist(&r, g, c, &exp, NULL), dist);
      cr_assert_eq(exp, before);
    }
    cr_assert_gt(mapf__rra_bytes(&r), 0);
    mapf__rra_free(&r);
    cr_assert_eq(r.goal, -1);
  }
  cr_assert_gt(resumed, goals, "the queries must exercise resumption");
  mapf_astar_free(as);
}

Test(rra, distances_equal_astar_costs_on_a_real_map, .timeout = 120) {
  REQUIRE_MAPS(maps);
  const char *names[] = {"dao/lak307d.map", "mapf/den520d.map"};
  for (int i = 0; i < 2; i++) {
    mapf_grid *g = test_load_movingai(maps, names[i]);
    check_rra(g, 11 + (uint64_t)i, 6, 40);
    mapf_grid_free(g);
  }
}

Test(rra, distances_equal_astar_costs_on_generated_maps, .timeout = 60) {
  mapf_mapgen_kind kinds[] = {MAPF_MAPGEN_RANDOM, MAPF_MAPGEN_ROOMS, MAPF_MAPGEN_MAZE};
  for (int k = 0; k < 3; k++) {
    mapf_grid *g = generated(kinds[k], 61, 3 + (uint64_t)k);
    check_rra(g, 5 + (uint64_t)k, 6, 40);
    mapf_grid_free(g);
  }
}

Test(rra, a_cell_of_another_component_is_infinitely_far) {
  const char *rows[] = {"..@..", "..@.."};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  mapf__rra r = {0};
  mapf__rra_start(&r, g, 0, 1);
  int64_t exp = 0;
  cr_assert_float_eq(mapf__rra_dist(&r, g, mapf_grid_id(g, 1, 1), &exp, NULL), MAPF_SQRT2, 1e-12);
  cr_assert(isinf(mapf__rra_dist(&r, g, 4, &exp, NULL)));
  cr_assert_eq(exp, 4, "the whole component was expanded, once");
  mapf__rra_free(&r);
  mapf_grid_free(g);
}

/* The whole state of two searches is the same: counters, bytes, directory (the same block ids
 * in the same places), every block's costs and closed bits, and the open lists as multisets
 * (entries sorted: any two heaps of them pop alike). */
static int entry_cmp(const void *x, const void *y) {
  const mapf__rra_entry *p = x, *q = y;
  if (p->hi != q->hi) return p->hi < q->hi ? -1 : 1;
  if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
  return (p->cell > q->cell) - (p->cell < q->cell);
}

static void same_rra(const mapf__rra *a, const mapf__rra *b, const char *when) {
  cr_assert_eq(a->goal, b->goal, "%s", when);
  cr_assert_eq(a->seq, b->seq, "%s: insertion numbers", when);
  cr_assert_eq(a->closed, b->closed, "%s: closed", when);
  cr_assert_eq(a->nblock, b->nblock, "%s: blocks", when);
  cr_assert_eq(a->dir_cap, b->dir_cap, "%s: directory", when);
  cr_assert_eq(a->heap_len, b->heap_len, "%s: open list", when);
  cr_assert_eq(a->heap_cap, b->heap_cap, "%s: open list's room", when);
  cr_assert_eq(mapf__rra_bytes(a), mapf__rra_bytes(b), "%s: bytes", when);
  for (int32_t i = 0; i < a->dir_cap; i++) {
    cr_assert_eq(a->dir_key[i], b->dir_key[i], "%s: directory slot %d", when, i);
    if (a->dir_key[i] >= 0)
      cr_assert_eq(memcmp(a->dir_val[i], b->dir_val[i], sizeof *a->dir_val[i]), 0,
                   "%s: block %d", when, a->dir_key[i]);
  }
  size_t n = (size_t)a->heap_len;
  mapf__rra_entry *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
  if (n) {
    memcpy(x, a->heap, n * sizeof *x);
    memcpy(y, b->heap, n * sizeof *y);
  }
  qsort(x, n, sizeof *x, entry_cmp);
  qsort(y, n, sizeof *y, entry_cmp);
  for (size_t i = 0; i < n; i++)
    cr_assert_eq(entry_cmp(&x[i], &y[i]), 0, "%s: open entry %zu", when, i);
  free(x);
  free(y);
}

/* A new search run in the scratch's dense arrays (its first query to the target, then random
 * queries, some of another component) ends, once detached, in exactly the state of the same
 * queries answered in the search's own blocks, with the same answers and expansions; later
 * queries, resumed in the blocks, agree too. Two searches take the scratch in turn, the second
 * from the first without a detach. */
static void check_dense(const mapf_grid *g, uint64_t seed, int goals, int queries) {
  mapf_rng rng;
  mapf_rng_seed(&rng, seed);
  int32_t comp = largest_component(g);
  mapf__rra_scratch *s = mapf__rra_scratch_new();
  cr_assert_not_null(s);
  for (int k = 0; k < goals; k += 2) {
    mapf__rra dense[2] = {{0}}, plain[2] = {{0}};
    int64_t de[2] = {0, 0}, pe[2] = {0, 0};
    for (int j = 0; j < 2; j++) {
      int32_t goal = random_cell(g, &rng, comp), target = random_cell(g, &rng, comp);
      mapf__rra_start(&dense[j], g, goal, target);
      mapf__rra_start(&plain[j], g, goal, target);
      double d = mapf__rra_dist(&dense[j], g, target, &de[j], s);
      cr_assert_eq(d, mapf__rra_dist(&plain[j], g, target, &pe[j], NULL));
      for (int q = 0; q < queries; q++) {
        int32_t c = (int32_t)mapf_rng_below(&rng, (uint64_t)g->ncells);
        if (!g->passable[c]) continue;
        d = mapf__rra_dist(&dense[j], g, c, &de[j], s);
        cr_assert_eq(d, mapf__rra_dist(&plain[j], g, c, &pe[j], NULL), "cell %d", c);
        cr_assert_eq(de[j], pe[j], "cell %d: expansions", c);
      }
    }
    cr_assert_eq(mapf__rra_detach(s), 0);
    for (int j = 0; j < 2; j++) {
      same_rra(&dense[j], &plain[j], j ? "written when detached" : "written when taken");
      for (int q = 0; q < queries; q++) {
        int32_t c = random_cell(g, &rng, comp);
        double d = mapf__rra_dist(&dense[j], g, c, &de[j], NULL);
        cr_assert_eq(d, mapf__rra_dist(&plain[j], g, c, &pe[j], NULL), "cell %d", c);
        cr_assert_eq(de[j], pe[j], "cell %d: expansions", c);
      }
      same_rra(&dense[j], &plain[j], "resumed in the blocks");
      mapf__rra_free(&dense[j]);
      mapf__rra_free(&plain[j]);
    }
  }
  mapf__rra_scratch_free(s);
}

Test(rra, a_search_in_the_scratch_ends_as_one_in_its_blocks_on_real_maps, .timeout = 300) {
  REQUIRE_MAPS(maps);
  const char *names[] = {"dao/lak307d.map", "mapf/den520d.map", "bg512/AR0414SR.map"};
  for (int i = 0; i < 3; i++) {
    mapf_grid *g = test_load_movingai(maps, names[i]);
    check_dense(g, 21 + (uint64_t)i, 6, 60);
    cr_assert_eq(mapf_grid_set_connectivity(g, 4), MAPF_OK);
    check_dense(g, 31 + (uint64_t)i, 4, 60);
    mapf_grid_free(g);
  }
}

Test(rra, a_search_in_the_scratch_ends_as_one_in_its_blocks_on_generated_maps, .timeout = 120) {
  mapf_mapgen_kind kinds[] = {MAPF_MAPGEN_RANDOM, MAPF_MAPGEN_ROOMS, MAPF_MAPGEN_MAZE};
  for (int k = 0; k < 3; k++) {
    mapf_grid *g = generated(kinds[k], 61, 13 + (uint64_t)k);
    check_dense(g, 41 + (uint64_t)k, 8, 80);
    mapf_grid_free(g);
  }
}

/* --- WHCA* runs ------------------------------------------------------------------------- */

/* The shared step checker (testutil.h), and optionally every step's positions. */
typedef struct watcher {
  test_step_checker check;
  int32_t **track; /* when not NULL: track[t] = positions at t, for t < track_len */
  int64_t track_len;
} watcher;

static void watch(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  watcher *w = ud;
  test_step_check(&w->check, t, pos, n);
  if (w->track && t < w->track_len) {
    w->track[t] = malloc((size_t)n * sizeof *pos);
    memcpy(w->track[t], pos, (size_t)n * sizeof *pos);
  }
}

typedef struct whca_opts {
  double window, replan, rotate, wait, memory;
  int64_t steps, budget;
  double seconds;
  mapf_execution exec;
} whca_opts;

static const whca_opts defaults = {8, 0, 1, 1, 1024, 1000, 0, 0, MAPF_EXEC_CHAINS};

/* Variant v in 0..3 of the runs on a map: single pass when bit 0 is set, else chains;
 * rotation when bit 1 is set. */
static whca_opts variant(int v, int64_t steps) {
  whca_opts o = defaults;
  o.exec = v & 1 ? MAPF_EXEC_SINGLE_PASS : MAPF_EXEC_CHAINS;
  o.rotate = v >> 1 & 1;
  o.steps = steps;
  return o;
}

/* Runs WHCA* under the watcher; asserts no violation, the metric identities, and that the
 * executor refused no planned move (the planner plans on the executor's rules). track, when
 * not NULL, receives the positions of the first track_len steps. */
static void run_whca_tracked(const mapf_grid *g, const mapf_instance *inst, whca_opts o,
                             mapf_result *res, int32_t **track, int64_t track_len) {
  mapf_run_config cfg = test_run_config(g, inst, "whca");
  test_set_param(cfg.algo, &cfg.params, "window", o.window);
  test_set_param(cfg.algo, &cfg.params, "replan", o.replan);
  test_set_param(cfg.algo, &cfg.params, "rotate", o.rotate);
  test_set_param(cfg.algo, &cfg.params, "wait", o.wait);
  test_set_param(cfg.algo, &cfg.params, "memory", o.memory);
  cfg.limits.steps = o.steps;
  cfg.limits.expansions = o.budget;
  cfg.limits.seconds = o.seconds;
  cfg.execution = o.exec;
  cfg.seed = 7;
  watcher w = {{g, NULL, NULL, 0, 0}, track, track_len};
  cfg.on_step = watch;
  cfg.ud = &w;
  test_run(&cfg, res);
  test_check_steps(&w.check, res, "whca");
  if (res->limit != MAPF_LIMIT_SECONDS)
    cr_assert_eq(res->failed_moves, 0, "the executor refused %lld planned moves",
                 (long long)res->failed_moves);
  test_agent_sums sums = test_check_arrivals(g, inst, res);
  cr_assert_eq(res->searches, sums.searches);
  cr_assert_eq(res->pushes, 0, "WHCA* never pushes");
  test_step_checker_free(&w.check);
}

static void run_whca(const mapf_grid *g, const mapf_instance *inst, whca_opts o,
                     mapf_result *res) {
  run_whca_tracked(g, inst, o, res, NULL, 0);
}

/* A corridor of nine cells with a one-cell pocket below x = 6; the agents swap ends. The lower
 * priority agent (1) must duck into the pocket before agent 0 passes, which a window of 8
 * shows it in time. */
Test(whca, two_agents_swap_ends_of_a_corridor_with_a_pocket) {
  const char *rows[] = {".........", "@@@@@@.@@"};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  int xy[] = {0, 0, 8, 0, 8, 0, 0, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  for (int v = 0; v < 4; v++) {
    mapf_result res;
    run_whca(g, inst, variant(v, 100), &res);
    cr_assert_eq(res.status, MAPF_STATUS_OK, "variant %d: completion %.2f", v,
                 res.completion_rate);
    cr_assert_leq(res.steps, 20, "variant %d took %lld steps", v, (long long)res.steps);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Agent 1 stands on its goal in a corridor, right above a pocket; agent 0 must pass. Agents on
 * their goals keep planning their window, so agent 1 steps aside into the pocket and comes
 * back (no push: WHCA* never pushes). */
Test(whca, an_agent_on_its_goal_steps_aside_and_comes_back) {
  const char *rows[] = {".......", "@@@.@@@"};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  int xy[] = {0, 0, 6, 0, 3, 0, 3, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  for (int v = 0; v < 4; v++) {
    mapf_result res;
    run_whca(g, inst, variant(v, 100), &res);
    cr_assert_eq(res.status, MAPF_STATUS_OK, "variant %d", v);
    cr_assert_gt(res.agent[1].travel_distance, 0, "agent 1 stepped aside");
    cr_assert_gt(res.agent[1].completion_step, 0, "agent 1 came back to its goal");
    cr_assert_float_eq(res.agent[0].travel_distance, 6, 1e-9, "agent 0 went straight");
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* The same corridor with the agent on its goal given the higher priority (index 0, fixed
 * order): it has no reason to move, so agent 1 waits outside; rotation gives agent 1 the
 * first place in some round, and the agent on its goal then steps aside for it. */
Test(whca, rotation_lets_a_lower_index_agent_through) {
  const char *rows[] = {".......", "@@@.@@@"};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  int xy[] = {3, 0, 3, 0, 0, 0, 6, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  whca_opts o = defaults;
  o.rotate = 0;
  o.steps = 100;
  mapf_result res;
  run_whca(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT, "a fixed order never lets agent 1 pass");
  cr_assert_float_eq(res.agent[0].travel_distance, 0, 1e-12);
  mapf_result_clear(&res);
  o.rotate = 1;
  run_whca(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_gt(res.agent[0].travel_distance, 0);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* One agent alone on an open map: it replans exactly at the rounds, every `replan` steps
 * (default half the window), and always moves on a shortest path. */
Test(whca, replan_sets_the_interval_between_searches) {
  mapf_grid *g = test_open_grid(20, 20, "open");
  int xy[] = {2, 3, 17, 3};
  mapf_instance *inst = test_instance_of(g, 1, xy);
  struct {
    double window, replan;
    int64_t searches;
  } cases[] = {{8, 0, 4}, {8, 1, 15}, {8, 4, 4}, {8, 8, 2}, {1, 0, 15}, {16, 0, 2}, {4, 3, 5}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    whca_opts o = defaults;
    o.window = cases[i].window;
    o.replan = cases[i].replan;
    mapf_result res;
    run_whca(g, inst, o, &res);
    cr_assert_eq(res.status, MAPF_STATUS_OK);
    cr_assert_eq(res.steps, 15);
    cr_assert_float_eq(res.mean_travel_distance, 15, 1e-9);
    cr_assert_eq(res.searches, cases[i].searches, "window %g replan %g: %lld searches",
                 cases[i].window, cases[i].replan, (long long)res.searches);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* The window sets how far ahead an agent sees the others' reservations. In the corridor swap
 * with a fixed order, agent 1 must be in the pocket when agent 0 passes it: with a window of 8
 * it sees agent 0 coming and ducks in time; with a window of 1 it walks on until it meets
 * agent 0 in the corridor, backs away one step at a time, and is cornered at the dead end. */
Test(whca, the_window_decides_whether_an_agent_sees_a_conflict_in_time) {
  const char *rows[] = {".........", "@@@@@@.@@"};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  int xy[] = {0, 0, 8, 0, 8, 0, 0, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  for (int e = 0; e < 2; e++) {
    whca_opts o = defaults;
    o.rotate = 0;
    o.steps = 60;
    o.exec = e ? MAPF_EXEC_SINGLE_PASS : MAPF_EXEC_CHAINS;
    mapf_result res;
    run_whca(g, inst, o, &res);
    cr_assert_eq(res.status, MAPF_STATUS_OK);
    cr_assert_float_eq(res.agent[0].travel_distance, 8, 1e-9, "agent 0 never waits");
    mapf_result_clear(&res);
    o.window = 1;
    run_whca(g, inst, o, &res);
    cr_assert_eq(res.status, MAPF_STATUS_LIMIT, "a window of 1 sees the meeting too late");
    cr_assert_eq(res.completed, 0);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Waiting has a cost in the search: with wait = 0 an agent gains nothing by moving before the
 * window's end, so the plan of an agent with no conflicts still heads for the goal only
 * because of the ties (deeper first); with the default cost 1 it moves at once. Either way
 * the run is legal; with a large wait cost an agent prefers a detour to a wait. */
Test(whca, wait_cost_trades_waiting_against_detours) {
  /* Agent 0 crosses the middle row from west to east; agent 1 comes down the middle column
   * and would have to wait for agent 0 to pass, or go round. */
  mapf_grid *g = test_open_grid(9, 9, "open");
  int xy[] = {2, 4, 8, 4, 5, 1, 5, 8};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  whca_opts o = defaults;
  o.rotate = 0;
  mapf_result cheap, dear;
  o.wait = 0.01;
  run_whca(g, inst, o, &cheap);
  o.wait = 100;
  run_whca(g, inst, o, &dear);
  cr_assert_eq(cheap.status, MAPF_STATUS_OK);
  cr_assert_eq(dear.status, MAPF_STATUS_OK);
  cr_assert_float_eq(cheap.agent[0].travel_distance, 6, 1e-9);
  cr_assert_float_eq(dear.agent[0].travel_distance, 6, 1e-9);
  cr_assert_gt(dear.agent[1].travel_distance, cheap.agent[1].travel_distance + 1e-9,
               "a dear wait buys a detour: %.3f vs %.3f", dear.agent[1].travel_distance,
               cheap.agent[1].travel_distance);
  cr_assert_lt(dear.agent[1].completion_step, cheap.agent[1].completion_step + 1);
  mapf_result_clear(&cheap);
  mapf_result_clear(&dear);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* A queue in a corridor: under chains the agents follow each other and the whole queue moves
 * every step; under single pass an agent may only follow a lower index, which here is the
 * agent behind it, so the queue unrolls from the front. No planned move is ever refused. */
Test(whca, a_queue_follows_as_the_execution_allows, .timeout = 60) {
  int n = 200;
  mapf_grid *g = test_open_grid(2 * n, 1, "corridor");
  mapf_instance *inst = test_queue_instance(n);
  whca_opts o = defaults;
  o.steps = 4 * n;
  mapf_result res;
  run_whca(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.steps, n, "chains: the queue moves as one");
  cr_assert_float_eq(res.mean_travel_distance, n, 1e-9);
  mapf_result_clear(&res);
  /* With a fixed order every agent plans after the one behind it and waits one step more:
   * the front moves at t = 0, agent i at t = n - 1 - i, as the paper's executor allows. */
  o.exec = MAPF_EXEC_SINGLE_PASS;
  o.rotate = 0;
  run_whca(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.steps, 2 * n - 1, "single pass: %lld steps", (long long)res.steps);
  mapf_result_clear(&res);
  /* Rotated orders plan some agents before the ones in front of them; a few steps are lost
   * to waits that were planned for, never to refused moves. */
  o.rotate = 1;
  run_whca(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_geq(res.steps, 2 * n - 1);
  cr_assert_leq(res.steps, 2 * n - 1 + n / 4, "single pass, rotating: %lld steps",
                (long long)res.steps);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(whca, a_full_map_stays_still_until_the_step_limit) {
  const char *rows[] = {"....", "....", "....", "...."};
  mapf_grid *g = test_grid_from_rows(rows, 4);
  mapf_instance *inst = test_random_instance(g, 16, 3);
  for (int e = 0; e < 2; e++) {
    whca_opts o = defaults;
    o.steps = 30;
    o.exec = e ? MAPF_EXEC_SINGLE_PASS : MAPF_EXEC_CHAINS;
    mapf_result res;
    run_whca(g, inst, o, &res);
    cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
    cr_assert_float_eq(res.mean_travel_distance, 0, 1e-12, "nobody can move");
    cr_assert_geq(res.searches, 16 * 30, "no path: every agent waits and searches again");
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Generated maps, every combination of execution and rotation: the watcher finds no illegal
 * step, the executor refuses no planned move, and two runs agree on every non-timing value. */
Test(whca, runs_are_legal_and_deterministic_on_generated_maps, .timeout = 300) {
  mapf_mapgen_kind kinds[] = {MAPF_MAPGEN_RANDOM, MAPF_MAPGEN_ROOMS, MAPF_MAPGEN_MAZE};
  for (int k = 0; k < 3; k++) {
    mapf_grid *g = generated(kinds[k], 41, (uint64_t)k + 1);
    mapf_instance *inst = test_random_instance(g, 80, 100 + (uint64_t)k);
    for (int v = 0; v < 4; v++) {
      whca_opts o = variant(v, 600);
      mapf_result a, b;
      run_whca(g, inst, o, &a);
      run_whca(g, inst, o, &b);
      char label[200];
      snprintf(label, sizeof label, "%s variant %d", g->name, v);
      test_assert_same_run(&a, &b, label);
      /* Mazes of two-cell corridors stay hard (BMAA* completes 0.375 of this instance);
       * elsewhere rotation completes every agent. */
      cr_assert_gt(a.completion_rate, 0.3, "%s variant %d: completion %.2f", g->name, v,
                   a.completion_rate);
      if (o.rotate && kinds[k] != MAPF_MAPGEN_MAZE)
        cr_assert_eq(a.status, MAPF_STATUS_OK, "%s variant %d: completion %.2f", g->name, v,
                     a.completion_rate);
      cr_assert_gt(a.expansions, 0);
      mapf_result_clear(&a);
      mapf_result_clear(&b);
    }
    mapf_instance_free(inst);
    mapf_grid_free(g);
  }
}

/* The same on a real map, with more agents. */
Test(whca, runs_are_legal_and_deterministic_on_a_real_map, .timeout = 300) {
  REQUIRE_MAPS(maps);
  mapf_grid *g = test_load_movingai(maps, "dao/lak307d.map");
  mapf_instance *inst = test_random_instance(g, 300, 4);
  for (int e = 0; e < 2; e++) {
    whca_opts o = defaults;
    o.exec = e ? MAPF_EXEC_SINGLE_PASS : MAPF_EXEC_CHAINS;
    mapf_result a, b;
    run_whca(g, inst, o, &a);
    run_whca(g, inst, o, &b);
    test_assert_same_run(&a, &b, mapf_execution_name(o.exec));
    cr_assert_eq(a.status, MAPF_STATUS_OK, "completion %.3f", a.completion_rate);
    mapf_result_clear(&a);
    mapf_result_clear(&b);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* The RRA* memory budget drops the least recently used agents' searches, which restart when
 * needed: the distances, and so every move, are the same; only the work grows. */
Test(whca, a_small_memory_budget_changes_work_not_moves, .timeout = 120) {
  mapf_grid *g = generated(MAPF_MAPGEN_ROOMS, 160, 9); /* about 6 MB of RRA* data */
  mapf_instance *inst = test_random_instance(g, 150, 2);
  whca_opts o = defaults;
  o.steps = 400;
  int32_t *ta[400] = {0}, *tb[400] = {0};
  mapf_result a, b;
  run_whca_tracked(g, inst, o, &a, ta, 400);
  o.memory = 1;
  run_whca_tracked(g, inst, o, &b, tb, 400);
  cr_assert_eq(a.steps, b.steps);
  cr_assert_eq(a.searches, b.searches);
  cr_assert_eq(memcmp(&a.mean_travel_distance, &b.mean_travel_distance, sizeof(double)), 0);
  for (int64_t t = 0; t <= a.steps && t < 400; t++)
    cr_assert_eq(memcmp(ta[t], tb[t], (size_t)inst->n * sizeof(int32_t)), 0, "step %lld",
                 (long long)t);
  cr_assert_gt(b.expansions, a.expansions, "restarted searches cost expansions");
  for (int t = 0; t < 400; t++) {
    free(ta[t]);
    free(tb[t]);
  }
  mapf_result_clear(&a);
  mapf_result_clear(&b);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(whca, expansion_budget_ends_the_run) {
  mapf_grid *g = generated(MAPF_MAPGEN_RANDOM, 48, 5);
  mapf_instance *inst = test_random_instance(g, 40, 11);
  whca_opts o = defaults;
  o.budget = 2000;
  mapf_result res;
  run_whca(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.limit, MAPF_LIMIT_EXPANSIONS);
  cr_assert_geq(res.expansions, 2000);
  int64_t sum = 0;
  for (int32_t a = 0; a < res.agents; a++) sum += res.agent[a].expansions;
  cr_assert_eq(sum, res.expansions, "per-agent expansions add up");
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* The wall-clock limit is checked between agents' searches: the first step of 2,000 agents
 * (each starting its RRA*) stops close to the limit. */
Test(whca, wall_clock_limit_stops_a_run_inside_a_step, .timeout = 60) {
  mapf_grid *g = generated(MAPF_MAPGEN_RANDOM, 256, 9);
  mapf_instance *inst = test_random_instance(g, 2000, 1);
  whca_opts o = defaults;
  o.window = 64;
  o.steps = 1000000;
  o.seconds = 0.05;
  mapf_result res;
  run_whca(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.limit, MAPF_LIMIT_SECONDS);
  cr_assert_lt(res.wall_seconds, 5.0, "ran %.2f s past a 0.05 s limit", res.wall_seconds);
  cr_assert_lt(res.completion_rate, 1.0);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

Test(whca, registry_declares_the_parameters_and_refuses_replan_beyond_the_window) {
  const mapf_algo_def *def = test_algo("whca");
  mapf_params p;
  mapf_params_default(def, &p);
  cr_assert_eq(p.v[mapf_param_index(def, "window")], 8);
  cr_assert_eq(p.v[mapf_param_index(def, "replan")], 0);
  cr_assert_eq(p.v[mapf_param_index(def, "rotate")], 1);
  cr_assert_eq(p.v[mapf_param_index(def, "wait")], 1);
  mapf_diag d = {0};
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_OK);
  double v;
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "window"), "0", &v, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "window"), "1025", &v, &d),
               MAPF_EINVAL);
  p.v[mapf_param_index(def, "replan")] = 9;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_EINVAL);
  cr_assert(strstr(d.msg, "replan") != NULL && strstr(d.msg, "window") != NULL, "%s", d.msg);
  p.v[mapf_param_index(def, "replan")] = 8;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_OK);
}

/* --- The command line ------------------------------------------------------------------- */

#ifdef MAPFARM_BINARY
/* `mapfarm solve --algo whca --trace` on lak307d, both executions and a few parameter sets:
 * the trace is legal on its own terms and its final positions give the printed completion
 * rate and step count. */
Test(whca_cli, solve_writes_a_legal_trace_on_lak307d, .timeout = 300) {
  REQUIRE_MAPS(maps);
  char dir[] = "/tmp/mapfarm-whca-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  const char *variants[] = {"", "--execution single-pass",
                            "--param window=16 --param replan=16 --param rotate=false",
                            "--execution single-pass --param window=4 --param wait=0.5"};
  char map[4200];
  snprintf(map, sizeof map, "%s/dao/lak307d.map", maps);
  mapf_grid *g = test_load_grid(map);
  for (int v = 0; v < 4; v++) {
    char trace[600], out_path[600], cmd[10000];
    snprintf(trace, sizeof trace, "%s/t%d.txt", dir, v);
    snprintf(out_path, sizeof out_path, "%s/out%d.txt", dir, v);
    snprintf(cmd, sizeof cmd,
             "'%s' solve --map '%s' --generator random --agents 200 --seed 1 --algo whca "
             "--trace '%s' %s >'%s' 2>&1",
             MAPFARM_BINARY, map, trace, variants[v], out_path);
    int st = system(cmd);
    char *out = test_slurp_text(out_path);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "variant %d: %s", v, out);
    double rate = test_check_solve_trace(trace, out, g, 200, "variant %d", v);
    cr_assert_gt(rate, 0.95, "variant %d: completion %.2f", v, rate);
    cr_assert_eq(test_metric(out, "failed_moves"), 0, "variant %d", v);
    free(out);
    unlink(trace);
    unlink(out_path);
  }
  rmdir(dir);
  mapf_grid_free(g);
}
#endif

/* --- Recorded results ------------------------------------------------------------------- */

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

/* Runs on lak307d with 200 agents under both executions, with 4 moves, and with a memory budget
 * of 1 MB (RRA* searches dropped and restarted, as their bytes decide), as recorded with the
 * code before new RRA* searches ran in dense arrays (commit de0738d): the moves of every step,
 * the searches, expansions and failed moves. A speed-up must leave them all as they were. */
Test(whca, real_map_runs_keep_their_recorded_moves_and_work, .timeout = 300) {
  REQUIRE_MAPS(maps);
  static const struct {
    int conn, memory;
    mapf_execution exec;
    int64_t steps, searches, expansions, failed_moves;
    uint64_t hash;
  } want[] = {
      {8, 1024, MAPF_EXEC_CHAINS, 79, 4000, 137243, 0, UINT64_C(0xb88c2d7bdd2fd465)},
      {8, 1024, MAPF_EXEC_SINGLE_PASS, 79, 4000, 142952, 0, UINT64_C(0x363fa5bdf510fbaf)},
      {8, 1, MAPF_EXEC_CHAINS, 79, 4000, 386519, 0, UINT64_C(0xb88c2d7bdd2fd465)},
      {4, 1024, MAPF_EXEC_CHAINS, 98, 5000, 177552, 0, UINT64_C(0x232e6cce34fd4213)},
  };
  mapf_grid *g = test_load_movingai(maps, "dao/lak307d.map");
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    cr_assert_eq(mapf_grid_set_connectivity(g, want[i].conn), MAPF_OK);
    mapf_instance *inst = test_random_instance(g, 200, 17);
    mapf_run_config cfg = test_run_config(g, inst, "whca");
    test_set_param(cfg.algo, &cfg.params, "memory", want[i].memory);
    cfg.limits.steps = 2000;
    cfg.execution = want[i].exec;
    cfg.seed = 7;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    cfg.on_step = hash_positions;
    cfg.ud = &h;
    mapf_result res;
    test_run(&cfg, &res);
    char run[64];
    snprintf(run, sizeof run, "%s %d moves, %d MB", mapf_execution_name(want[i].exec),
             want[i].conn, want[i].memory);
    cr_expect_eq(res.steps, want[i].steps, "%s: steps %lld", run, (long long)res.steps);
    cr_expect_eq(res.searches, want[i].searches, "%s: searches %lld", run,
                 (long long)res.searches);
    cr_expect_eq(res.expansions, want[i].expansions, "%s: expansions %lld", run,
                 (long long)res.expansions);
    cr_expect_eq(res.failed_moves, want[i].failed_moves, "%s: failed moves %lld", run,
                 (long long)res.failed_moves);
    cr_expect_eq(h, want[i].hash, "%s: moves hash 0x%016llx", run, (unsigned long long)h);
    mapf_result_clear(&res);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}
