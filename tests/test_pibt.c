/* test_pibt.c: PIBT (core/pibt.c; Okumura et al. 2022) and its distance tables (core/dist.c):
 * the joint step on hand-made configurations (inheritance, backtracking, constraints, a
 * rotation), legal and complete runs on the MovingAI MAPF benchmark's maps watched step by step
 * by the independent checker, the documented limit of PIBT off biconnected graphs, the cache of
 * distance tables, and a plan that mixes PIBT with a sequential planner run with 1 and 2
 * threads and as shards. */
#include <criterion/criterion.h>
#include <math.h>

#include "algo.h"
#include "dist.h"
#include "expand.h"
#include "hash.h"
#include "pibt.h"
#include "plan.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

TEST_TMPDIR("pibt");
TestSuite(pibt, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 300);

#define mapfarm(out, err, ...) test_mapfarm(tmpdir, NULL, out, err, __VA_ARGS__)

/* ---- the joint step (core/pibt.h) ------------------------------------------------------ */

/* A plus: the centre C (1,1) and its four arms; the corners are blocked, so there are no
 * diagonal moves and the arms are dead ends. */
static const char *const plus_rows[] = {"@.@", "...", "@.@"};

typedef struct plus {
  mapf_grid *g;
  mapf__dist_cache cache;
  mapf__pibt step;
  const uint32_t *dist[5];
  int32_t pos[5], occ[9];
} plus;

enum { T = 1, L = 3, C = 4, R = 5, B = 7 }; /* cell ids of the plus (width 3) */

/* Agents i = 0 .. n-1 on cells at[i] with goals goal[i]. */
static void plus_setup(plus *p, int32_t n, const int32_t *at, const int32_t *goal) {
  memset(p, 0, sizeof *p);
  p->g = test_grid_from_rows(plus_rows, 3);
  cr_assert_eq(mapf__dist_begin(&p->cache, p->g), 0);
  cr_assert_eq(mapf__pibt_init(&p->step, p->g, p->cache.local, n), 0);
  for (int32_t c = 0; c < 9; c++) p->occ[c] = -1;
  for (int32_t a = 0; a < n; a++) {
    p->dist[a] = mapf__dist_get(&p->cache, p->g, goal[a]);
    cr_assert_not_null(p->dist[a]);
    p->pos[a] = at[a];
    p->occ[at[a]] = a;
  }
  p->step.dist = p->dist;
}

static void plus_free(plus *p) {
  mapf__pibt_free(&p->step);
  mapf__dist_free(&p->cache);
  mapf_grid_free(p->g);
}

/* I on the left arm going right must pass the centre, where J stands, going up, where K
 * stands, going down: J inherits I's priority and tries the top arm, K inherits J's and has
 * nowhere to go (its own cell is J's, the centre I's): K fails and stays, so J backtracks to
 * its next candidates and leaves by the right or bottom arm; I takes the centre. */
Test(pibt, inheritance_backtracks_from_a_dead_end) {
  plus p;
  int32_t at[] = {L, C, T}, goal[] = {R, T, C};
  plus_setup(&p, 3, at, goal);
  for (uint64_t seed = 1; seed <= 8; seed++) {
    mapf_rng rng;
    mapf_rng_seed(&rng, seed);
    int64_t tried = mapf__pibt_plan(&p.step, p.pos, p.occ, 0, &rng);
    cr_assert_eq(p.step.next[0], C);
    cr_assert_eq(p.step.next[2], T, "K failed and stays");
    cr_assert(p.step.next[1] == R || p.step.next[1] == B, "J left by %d", p.step.next[1]);
    cr_assert_eq(p.step.first[1], T, "J wanted the top arm first");
    cr_assert_eq(p.step.first[2], C);
    cr_assert_eq(p.step.next_occ[C], 0);
    cr_assert_eq(p.step.next_occ[T], 2);
    cr_assert_eq(p.step.next_occ[p.step.next[1]], 1);
    cr_assert_eq(p.step.tried[0], 1);
    cr_assert_eq(p.step.tried[2], 2, "K examined both its cells");
    cr_assert_eq(tried, p.step.tried[0] + p.step.tried[1] + p.step.tried[2]);
    mapf__pibt_clear(&p.step);
    for (int32_t c = 0; c < 9; c++) cr_assert_eq(p.step.next_occ[c], -1);
  }
  plus_free(&p);
}

/* The same with the right and bottom arms held by agents a caller fixed in place (the
 * constraints LaCAM gives): J has nowhere to go either, so it fails, and I, backtracking,
 * stays on its own cell. Nobody inherits into a fixed agent. */
Test(pibt, constrained_agents_are_not_moved_and_the_root_backtracks) {
  plus p;
  int32_t at[] = {L, C, T, R, B}, goal[] = {R, T, C, L, T};
  plus_setup(&p, 5, at, goal);
  p.step.next[3] = R;
  p.step.next_occ[R] = 3;
  p.step.next[4] = B;
  p.step.next_occ[B] = 4;
  mapf_rng rng;
  mapf_rng_seed(&rng, 3);
  mapf__pibt_plan(&p.step, p.pos, p.occ, 0, &rng);
  cr_assert_eq(p.step.next[0], L, "I stays");
  cr_assert_eq(p.step.next[1], C, "J stays");
  cr_assert_eq(p.step.next[2], T, "K stays");
  cr_assert_eq(p.step.next[3], R);
  cr_assert_eq(p.step.next[4], B);
  cr_assert_eq(p.step.tried[0], 2, "I tried the centre, then its own cell");
  cr_assert_eq(p.step.tried[1], 5, "J tried all its five cells");
  for (int32_t a = 0; a < 5; a++) cr_assert_eq(p.step.next_occ[p.step.next[a]], a);
  plus_free(&p);
}

/* ---- runs ------------------------------------------------------------------------------- */

/* Four agents on a 2 x 2 square, each going to the next cell clockwise: a rotation, which
 * PIBT finds (the last agent of the inheritance chain takes the first one's cell) and the
 * joint rule executes in one step. */
Test(pibt, four_agents_rotate_around_a_square_in_one_step) {
  mapf_grid *g = test_open_grid(2, 2, "square");
  int xy[] = {0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 0};
  mapf_instance *inst = test_instance_of(g, 4, xy);
  for (uint64_t seed = 1; seed <= 6; seed++) {
    mapf_run_config cfg = test_run_config(g, inst, "pibt");
    cfg.limits.steps = 10;
    cfg.seed = seed;
    mapf_result res;
    test_run_checked(&cfg, &res, "pibt rotation");
    cr_assert_eq(res.status, MAPF_STATUS_OK);
    cr_assert_eq(res.steps, 1);
    cr_assert_eq(res.soc, 4);
    cr_assert_eq(res.makespan, 1);
    cr_assert_eq(res.failed_moves, 0);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* PIBT is complete only where adjacent cells lie on a cycle (Okumura et al. 2022): here one
 * agent stands in a one-cell pocket and wants the cell in front of it, where the other stands
 * and wants the pocket. Solvable in 3 steps (the outer agent steps aside, the inner one comes
 * out and steps aside in turn). PIBT solves it in exactly 3 steps when the agent in the pocket
 * moves first and its partner dodges away from the pocket; otherwise the agent outside, first
 * by priority, waits forever for the pocket it cannot enter. Which happens depends on the
 * seed only. */
Test(pibt, a_dead_end_can_stop_pibt_for_good) {
  const char *rows[] = {"...", "@.@"};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  int xy[] = {1, 1, 1, 0, 1, 0, 1, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  int solved = 0, stuck = 0;
  for (uint64_t seed = 1; seed <= 16; seed++) {
    mapf_run_config cfg = test_run_config(g, inst, "pibt");
    cfg.limits.steps = 200;
    cfg.seed = seed;
    mapf_result res;
    test_run_checked(&cfg, &res, "pibt pocket");
    if (res.status == MAPF_STATUS_OK) {
      cr_assert_eq(res.steps, 3, "seed %llu", (unsigned long long)seed);
      solved++;
    } else {
      cr_assert_eq(res.limit, MAPF_LIMIT_STEPS);
      cr_assert_eq(res.completed, 0, "seed %llu: both wait off their goals",
                   (unsigned long long)seed);
      stuck++;
    }
    mapf_result_clear(&res);
  }
  cr_assert_gt(solved, 0);
  cr_assert_gt(stuck, 0);
  /* With the swap technique the agent outside pulls the other out of the pocket: solved with
   * every seed. */
  for (uint64_t seed = 1; seed <= 16; seed++) {
    mapf_run_config cfg = test_run_config(g, inst, "pibt");
    test_set_param(cfg.algo, &cfg.params, "swap", 1);
    cfg.limits.steps = 200;
    cfg.seed = seed;
    mapf_result res;
    test_run_checked(&cfg, &res, "pibt pocket, swap");
    cr_assert_eq(res.status, MAPF_STATUS_OK, "seed %llu", (unsigned long long)seed);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Two agents swap the ends of a corridor with one side cell in its middle. Without the swap
 * technique each pushes the other back towards its end, for good; with it, the one that must
 * give way pulls the other past the side cell: solved, whatever the seed. */
Test(pibt, the_swap_technique_lets_two_agents_pass_in_a_corridor) {
  const char *rows[] = {"@@@.@@@", ".......", "@@@@@@@"};
  mapf_grid *g = test_grid_from_rows(rows, 3);
  int xy[] = {0, 1, 6, 1, 6, 1, 0, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  for (uint64_t seed = 1; seed <= 8; seed++)
    for (int swap = 0; swap < 2; swap++) {
      mapf_run_config cfg = test_run_config(g, inst, "pibt");
      test_set_param(cfg.algo, &cfg.params, "swap", swap);
      cfg.limits.steps = 300;
      cfg.seed = seed;
      mapf_result res;
      test_run_checked(&cfg, &res, swap ? "corridor, swap" : "corridor");
      cr_assert_eq(res.status, swap ? MAPF_STATUS_OK : MAPF_STATUS_LIMIT, "seed %llu swap %d",
                   (unsigned long long)seed, swap);
      if (swap)
        cr_assert_leq(res.steps, 20, "seed %llu: %lld steps", (unsigned long long)seed,
                      (long long)res.steps);
      mapf_result_clear(&res);
    }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* The first k agents of a MAPF benchmark scenario (mapf-scen/scen-random/MAP-random-1.scen) on
 * its map, with `connectivity` moves. */
static mapf_instance *benchmark_instance(const char *maps, const char *map, int32_t k,
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

/* Watches a run with the step checker and notes the step each agent first stood on its
 * goal. */
typedef struct arrivals {
  test_step_checker check;
  const mapf_instance *inst;
  int64_t *first;
} arrivals;

static void note_arrivals(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  arrivals *w = ud;
  for (int32_t a = 0; a < n; a++)
    if (w->first[a] < 0 && pos[a] == w->inst->goal[a]) w->first[a] = t;
  test_step_check(&w->check, t, pos, n);
}

/* Runs PIBT on the first k agents of MAP's scenario with `connectivity` moves under the
 * checker; returns how many agents stood on their goals at some step, with the result in res. */
static int32_t run_benchmark(const char *maps, const char *map, int32_t k, int connectivity,
                             int64_t steps, int swap, mapf_result *res) {
  mapf_grid *g = NULL;
  mapf_instance *inst = benchmark_instance(maps, map, k, connectivity, &g);
  arrivals w = {{g, NULL, NULL, 0, 0}, inst, malloc((size_t)k * sizeof(int64_t))};
  for (int32_t a = 0; a < k; a++) w.first[a] = -1;
  mapf_run_config cfg = test_run_config(g, inst, "pibt");
  test_set_param(cfg.algo, &cfg.params, "swap", swap);
  cfg.limits.steps = steps;
  cfg.seed = 1;
  cfg.on_step = note_arrivals;
  cfg.ud = &w;
  test_run(&cfg, res);
  test_check_steps(&w.check, res, map);
  test_check_arrivals(g, inst, res);
  int32_t arrived = 0;
  for (int32_t a = 0; a < k; a++) arrived += w.first[a] >= 0;
  test_step_checker_free(&w.check);
  free(w.first);
  mapf_instance_free(inst);
  mapf_grid_free(g);
  return arrived;
}

/* Every step legal under the joint rule (no shared cell, no swap, every move a move of the
 * grid), checked apart from the simulator, on maps of the MAPF benchmark with their first
 * scenario's agents, with and without the swap technique: den520d and
 * warehouse-20-40-10-2-2 with 1,000 agents are solved either way (the technique finds nothing
 * to do there: the same runs), random-32-32-20 with 400 agents (80% of its free cells) with
 * it, in 103 steps. */
Test(pibt, runs_on_benchmark_maps_are_legal_and_solved) {
  REQUIRE_MAPS(maps);
  const struct {
    const char *map;
    int32_t agents;
    int swap;
  } runs[] = {{"den520d", 1000, 0},        {"den520d", 1000, 1},
              {"warehouse-20-40-10-2-2", 1000, 0}, {"warehouse-20-40-10-2-2", 1000, 1},
              {"random-32-32-20", 400, 1}};
  int64_t steps[5];
  for (int i = 0; i < 5; i++) {
    mapf_result res;
    int32_t arrived =
        run_benchmark(maps, runs[i].map, runs[i].agents, 8, 2000, runs[i].swap, &res);
    cr_assert_eq(res.status, MAPF_STATUS_OK, "%s swap %d: %d of %d at the end", runs[i].map,
                 runs[i].swap, (int)res.completed, (int)runs[i].agents);
    cr_assert_eq(res.solved, 1);
    cr_assert_eq(arrived, runs[i].agents);
    cr_assert_eq(res.searches, 0);
    cr_assert_gt(res.expansions, res.steps * runs[i].agents / 2, "candidates counted");
    steps[i] = res.steps;
    mapf_result_clear(&res);
  }
  cr_assert_eq(steps[0], steps[1]);
  cr_assert_eq(steps[2], steps[3]);
  cr_assert_eq(steps[4], 103, "%lld steps", (long long)steps[4]);
}

/* The same maps with 4-connected moves, the benchmark's own model: every step legal on the
 * 4-connected grid (the checker takes its moves from it, so a diagonal move fails), and solved:
 * den520d and warehouse-20-40-10-2-2 with 1,000 agents with and without the swap technique,
 * random-32-32-20 with 400 agents with it; without it, as under 8 moves, not solved. */
Test(pibt, four_connected_runs_on_benchmark_maps_are_legal_and_solved) {
  REQUIRE_MAPS(maps);
  const struct {
    const char *map;
    int32_t agents;
    int swap, solved;
  } runs[] = {{"den520d", 1000, 0, 1},         {"den520d", 1000, 1, 1},
              {"warehouse-20-40-10-2-2", 1000, 0, 1}, {"warehouse-20-40-10-2-2", 1000, 1, 1},
              {"random-32-32-20", 400, 1, 1},  {"random-32-32-20", 400, 0, 0}};
  for (int i = 0; i < 6; i++) {
    mapf_result res;
    int32_t arrived =
        run_benchmark(maps, runs[i].map, runs[i].agents, 4, 3000, runs[i].swap, &res);
    cr_assert_eq(res.solved, runs[i].solved, "%s swap %d: %d of %d at the end", runs[i].map,
                 runs[i].swap, (int)res.completed, (int)runs[i].agents);
    if (runs[i].solved) cr_assert_eq(arrived, runs[i].agents);
    cr_assert_gt(res.steps, 0);
    mapf_result_clear(&res);
  }
}

/* Without the swap technique (the 2022 algorithm) random-32-32-20 with 400 agents is not
 * solved: pairs of agents wait at each other's dead ends (as in the pocket above) while the
 * others arrive. */
Test(pibt, without_swaps_random_32_32_20_with_400_agents_is_not_solved) {
  REQUIRE_MAPS(maps);
  mapf_result res;
  int32_t arrived = run_benchmark(maps, "random-32-32-20", 400, 8, 2000, 0, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_geq(arrived, 390, "%d of 400 reached their goals", (int)arrived);
  cr_assert_geq(res.completed, 380, "%d of 400 on their goals at the end", (int)res.completed);
  mapf_result_clear(&res);
}

/* Tables found in the workspace's cache give the run a fresh workspace gives, bit for bit, in
 * a fraction of the set-up time; and the results do not depend on what was cached before
 * (another map's tables, other agents'). */
Test(pibt, cached_distance_tables_change_nothing_but_the_set_up_time) {
  REQUIRE_MAPS(maps);
  mapf_grid *g = NULL;
  mapf_instance *inst = benchmark_instance(maps, "den520d", 1000, 8, &g);
  mapf_grid *other = test_mapgen(MAPF_MAPGEN_ROOMS, 64, 64, 0.2, 1, 3);
  mapf_instance *oi = test_random_instance(other, 200, 5);
  mapf_run_config cfg = test_run_config(g, inst, "pibt");
  cfg.limits.steps = 150;
  cfg.seed = 9;
  mapf_result fresh, warm, again;
  test_run(&cfg, &fresh);
  mapf_workspace *ws = mapf_workspace_new();
  mapf_diag d = {0};
  mapf_run_config ocfg = test_run_config(other, oi, "pibt");
  ocfg.limits.steps = 50;
  mapf_result o;
  cr_assert_eq(mapf_run(ws, &ocfg, &o, &d), MAPF_OK, "%s", d.msg);
  mapf_result_clear(&o);
  cr_assert_eq(mapf_run(ws, &cfg, &warm, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(mapf_run(ws, &cfg, &again, &d), MAPF_OK, "%s", d.msg);
  test_assert_same_run(&fresh, &warm, "after another map");
  test_assert_same_run(&fresh, &again, "tables cached");
  cr_assert_lt(again.setup_seconds, warm.setup_seconds / 4,
               "set-up %.4f s with the tables cached, %.4f s building them", again.setup_seconds,
               warm.setup_seconds);
  cr_assert_leq(warm.setup_seconds + warm.planning_seconds, warm.wall_seconds + 1e-9);
  mapf_result_clear(&fresh);
  mapf_result_clear(&warm);
  mapf_result_clear(&again);
  mapf_workspace_free(ws);
  mapf_instance_free(oi);
  mapf_grid_free(other);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* The cache keeps what fits its budget, the most recently asked for first, and a table asked
 * for again after a trim is the same as before. */
Test(pibt, the_cache_drops_the_least_recently_used_tables_past_its_budget) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 40, 40, 0.2, 1, 7);
  mapf__dist_cache c = {0};
  cr_assert_eq(mapf__dist_begin(&c, g), 0);
  int32_t goals[6];
  for (int k = 0; k < 6; k++) goals[k] = g->usable[k * 97];
  size_t table = (size_t)g->component_size[g->component[goals[0]]] * sizeof(uint32_t);
  uint32_t *copy = malloc(table);
  memcpy(copy, mapf__dist_get(&c, g, goals[0]), table);
  for (int k = 1; k < 6; k++) cr_assert_not_null(mapf__dist_get(&c, g, goals[k]));
  cr_assert_eq(c.n, 6);
  /* A second run asks for goals 4 and 5 again: they are the most recent. */
  cr_assert_eq(mapf__dist_begin(&c, g), 0);
  mapf__dist_get(&c, g, goals[4]);
  mapf__dist_get(&c, g, goals[5]);
  mapf__dist_trim(&c, 2 * table + table / 2);
  cr_assert_eq(c.n, 2);
  cr_assert_eq(c.bytes, 2 * table);
  for (int32_t i = 0; i < c.n; i++) cr_assert(c.e[i].goal == goals[4] || c.e[i].goal == goals[5]);
  const uint32_t *again = mapf__dist_get(&c, g, goals[0]);
  cr_assert_eq(memcmp(again, copy, table), 0);
  cr_assert_eq(again[c.local[goals[0]]], 0);
  mapf__dist_trim(&c, 0);
  cr_assert_eq(c.n, 0);
  cr_assert_eq(c.bytes, 0);
  free(copy);
  mapf__dist_free(&c);
  mapf_grid_free(g);
}

/* Within a run (events, lifelong goals), past its budget the cache keeps only the tables the
 * agents hold: those stay where they were, the others go, and one asked for again is the same
 * table as before. Under the budget nothing goes. */
Test(pibt, a_run_past_the_budget_keeps_only_the_tables_its_agents_hold) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 40, 40, 0.2, 1, 7);
  mapf__dist_cache c = {0};
  cr_assert_eq(mapf__dist_begin(&c, g), 0);
  const uint32_t *held[6];
  int32_t goals[6];
  for (int k = 0; k < 6; k++) {
    goals[k] = g->usable[k * 97];
    cr_assert_not_null(held[k] = mapf__dist_get(&c, g, goals[k]));
  }
  size_t table = (size_t)g->component_size[g->component[goals[0]]] * sizeof(uint32_t);
  uint32_t *copy = malloc(table);
  memcpy(copy, held[1], table);
  cr_assert_eq(mapf__dist_release(&c, held, 6, 6 * table), 0);
  cr_assert_eq(c.n, 6, "under the budget nothing goes");
  /* Agents now hold the tables of goals 0 and 3 (and one NULL: a table is due). */
  const uint32_t *now[3] = {held[3], NULL, held[0]};
  cr_assert_eq(mapf__dist_release(&c, now, 3, 2 * table), 0);
  cr_assert_eq(c.n, 2);
  cr_assert_eq(c.bytes, 2 * table);
  cr_assert_eq(mapf__dist_get(&c, g, goals[3]), held[3], "a held table stays where it was");
  cr_assert_eq(mapf__dist_get(&c, g, goals[0]), held[0]);
  const uint32_t *again = mapf__dist_get(&c, g, goals[1]);
  cr_assert_eq(memcmp(again, copy, table), 0);
  cr_assert_eq(c.n, 3);
  free(copy);
  mapf__dist_free(&c);
  mapf_grid_free(g);
}

/* Tables are kept per map: another map of the same size with the same goal cell gets its own
 * table, the one a fresh cache makes, and the first map's table is still found after it. */
Test(pibt, the_cache_keeps_each_maps_tables_apart) {
  mapf_grid *a = test_mapgen(MAPF_MAPGEN_RANDOM, 40, 40, 0.2, 1, 7);
  mapf_grid *b = test_mapgen(MAPF_MAPGEN_RANDOM, 40, 40, 0.2, 1, 8);
  int32_t goal = -1;
  for (int32_t k = 0; k < a->nusable && goal < 0; k++)
    if (b->component[a->usable[k]] >= 0 &&
        b->component_size[b->component[a->usable[k]]] > 100)
      goal = a->usable[k];
  cr_assert_geq(goal, 0);
  mapf__dist_cache c = {0}, fresh = {0};
  cr_assert_eq(mapf__dist_begin(&c, a), 0);
  size_t na = (size_t)a->component_size[a->component[goal]] * sizeof(uint32_t);
  uint32_t *ta = malloc(na);
  memcpy(ta, mapf__dist_get(&c, a, goal), na);
  cr_assert_eq(mapf__dist_begin(&c, b), 0);
  cr_assert_eq(mapf__dist_begin(&fresh, b), 0);
  size_t nb = (size_t)b->component_size[b->component[goal]] * sizeof(uint32_t);
  const uint32_t *tb = mapf__dist_get(&c, b, goal);
  cr_assert_eq(memcmp(tb, mapf__dist_get(&fresh, b, goal), nb), 0);
  cr_assert(na != nb || memcmp(ta, tb, na) != 0, "the two maps should differ around the goal");
  cr_assert_eq(c.n, 2);
  cr_assert_eq(mapf__dist_begin(&c, a), 0);
  cr_assert_eq(memcmp(mapf__dist_get(&c, a, goal), ta, na), 0);
  cr_assert_eq(c.n, 2, "found again, not searched again");
  free(ta);
  mapf__dist_free(&c);
  mapf__dist_free(&fresh);
  mapf_grid_free(a);
  mapf_grid_free(b);
}

/* ---- plans ------------------------------------------------------------------------------ */

static const char *const no_dirs[] = {NULL};
static const farm_plan_opts plan_opts = {no_dirs, 0};

/* The key text's tail of job `index` of the plan text. */
static void job_key_of(const char *text, int64_t index, const char *tail_want) {
  farm_diags errs = {0, 0, NULL};
  farm_plan *plan = NULL;
  cr_assert_eq(farm_plan_parse(text, strlen(text), "mem/plan.yaml", &plan_opts, &plan, &errs),
               MAPF_OK);
  farm_space sp;
  cr_assert_eq(farm_space_init(&sp, plan, &errs), MAPF_OK);
  farm_job j;
  farm_space_job(&sp, index, &j);
  char head[512], text2[1024];
  snprintf(head, sizeof head,
           "mapfarm-job/1\nmap=%016llx\ngenerator=random\nagents=5\ninstance=0\nseed=1\n",
           (unsigned long long)sp.grids[0]->hash);
  int len = snprintf(text2, sizeof text2, "%s%s", head, tail_want);
  char hex[33];
  mapf_hash128_hex(mapf_hash128_of(text2, (size_t)len), hex);
  cr_assert_str_eq(j.key_hex, hex, "key of:\n%s", text2);
  farm_space_free(&sp);
  farm_plan_free(plan);
  farm_diags_free(&errs);
}

#define PIBT_PLAN(execution)                                                               \
  "name: p\nmaps:\n  - generate: {kind: random, width: 16, height: 16, density: 0.1, seed: "  \
  "1}\nscenarios:\n  - generator: random\n    agents: [5]\nalgorithms:\n  - name: pibt\n"    \
  "  - name: bmaa\nlimits: {steps: 50}\n" execution

/* PIBT's jobs run under the joint rule and say so in their keys, whatever the plan's rule,
 * which is the sequential planners'; their keys do not change with it. */
Test(pibt, a_plan_runs_pibt_joint_and_its_keys_say_so) {
  const char *pibt_tail = "algorithm=pibt\nparams={\"swap\":false}\n"
                          "limits=steps:50,seconds:0,expansions:0\nexecution=joint\n";
  job_key_of(PIBT_PLAN(""), 0, pibt_tail);
  job_key_of(PIBT_PLAN("execution: single-pass\n"), 0, pibt_tail);
  job_key_of(PIBT_PLAN("execution: single-pass\n"), 1,
             "algorithm=bmaa\nparams={\"expansions\":32,\"flow\":false,\"moves\":32,\"push\":"
             "false,\"vision\":1.4142135623730951}\nlimits=steps:50,seconds:0,expansions:0\n"
             "execution=single-pass\n");
}

/* `execution: joint` with a planner of one agent at a time is a plan error at that entry. */
Test(pibt, execution_joint_with_a_sequential_planner_is_a_plan_error) {
  const char *text = PIBT_PLAN("execution: joint\n");
  farm_diags errs = {0, 0, NULL};
  farm_plan *plan = NULL;
  cr_assert_eq(farm_plan_parse(text, strlen(text), "mem/plan.yaml", &plan_opts, &plan, &errs),
               MAPF_EINVAL);
  char *all = test_format_diags(&errs);
  cr_assert_str_eq(all, "mem/plan.yaml:9:5: error: bmaa plans each agent on its own and runs "
                        "under execution chains or single-pass, not joint (joint is for "
                        "planners that move all agents together, such as pibt and lacam)\n");
  free(all);
  farm_diags_free(&errs);
  /* Without the sequential planner the plan is good. */
  const char *only = "name: p\nmaps:\n  - generate: {kind: random, width: 16, height: 16, "
                     "density: 0.1, seed: 1}\nscenarios:\n  - generator: random\n    agents: "
                     "[5]\nalgorithms:\n  - name: pibt\nexecution: joint\n";
  cr_assert_eq(farm_plan_parse(only, strlen(only), "mem/plan.yaml", &plan_opts, &plan, &errs),
               MAPF_OK);
  cr_assert_eq(plan->execution, MAPF_EXEC_JOINT);
  farm_plan_free(plan);
  farm_diags_free(&errs);
}

/* tests/data/cli/pibt.yaml, PIBT beside BMAA* under single-pass, one-way and patrol: the same
 * results with 1 thread, with 2 and as 2 shards merged, and the execution column says which
 * rule each job ran under. */
Test(pibt, a_plan_with_pibt_gives_the_same_results_on_any_threads_and_shards) {
  char plan[512], db[3][512];
  snprintf(plan, sizeof plan, "%s/tests/data/cli/pibt.yaml", MAPFARM_SOURCE_DIR);
  const char *sql[] = {
      "SELECT job_key, algorithm, execution, status, limit_hit, completion_rate, steps, "
      "expansions, failed_moves, pushes, searches, soc, makespan, solved, mean_travel_distance, "
      "loops_done FROM results ORDER BY job_key",
      "SELECT r.job_key, a.agent, a.final_x, a.final_y, a.completion_step, a.travel_distance, "
      "a.expansions FROM agent_results a JOIN results r ON r.id = a.result_id "
      "ORDER BY r.job_key, a.agent"};
  test_same_on_threads_and_shards(tmpdir, "pibt", plan, 2, sql, 2, db);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results"), 30);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE status = 'error'"), 0);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE algorithm = 'pibt' AND "
                                  "execution = 'joint'"),
               15);
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE algorithm = 'bmaa' AND "
                                  "execution = 'single-pass'"),
               15);
  cr_assert_gt(test_db_int(db[0], "SELECT count(*) FROM results WHERE algorithm = 'pibt' AND "
                                  "solved = 1"),
               0);
}
