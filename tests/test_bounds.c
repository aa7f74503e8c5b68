/* test_bounds.c: the lower bounds of the sum of costs and the makespan (sim.h, soc_lb and
 * makespan_lb): by hand on tiny maps, against a breadth-first search of the test's own on
 * MovingAI maps under 8 and 4 moves, below what every planner achieves, and absent (-1) when a
 * run fails. */
#include <criterion/criterion.h>
#include <math.h>

#include "algo.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

/* A run of one step of BMAA* (the bounds do not depend on the planner, nor on how far it
 * got), in workspace ws. */
static void bounds_of(mapf_workspace *ws, const mapf_grid *g, const mapf_instance *inst,
                      int64_t *soc_lb, int64_t *makespan_lb) {
  mapf_run_config cfg = test_run_config(g, inst, "bmaa");
  cfg.limits.steps = 1;
  mapf_result res;
  mapf_diag d = {0};
  cr_assert_eq(mapf_run(ws, &cfg, &res, &d), MAPF_OK, "%s", d.msg);
  *soc_lb = res.soc_lb;
  *makespan_lb = res.makespan_lb;
  cr_expect(isnan(res.solver_seconds), "a built-in planner has no solver time");
  mapf_result_clear(&res);
}

static void bounds_fresh(const mapf_grid *g, const mapf_instance *inst, int64_t *soc_lb,
                         int64_t *makespan_lb) {
  mapf_workspace *ws = mapf_workspace_new();
  bounds_of(ws, g, inst, soc_lb, makespan_lb);
  mapf_workspace_free(ws);
}

/* Leaves g with its cardinal moves only: a 4-connected grid as a connectivity option makes
 * it (grid.h: the moves are the grid's, whatever made them). */
static void cardinal_only(mapf_grid *g) {
  for (int32_t c = 0; c < g->ncells; c++) g->moves[c] &= 0x0f;
}

/* Moves from s to t by breadth-first search over g->moves, -1 when unreachable. */
static int64_t bfs_moves(const mapf_grid *g, int32_t s, int32_t t, int32_t *dist, int32_t *q) {
  for (int32_t c = 0; c < g->ncells; c++) dist[c] = -1;
  int32_t head = 0, tail = 0;
  dist[s] = 0;
  q[tail++] = s;
  while (head < tail) {
    int32_t u = q[head++];
    if (u == t) return dist[u];
    for (int d = 0; d < 8; d++) {
      if (!(g->moves[u] >> d & 1)) continue;
      int32_t v = u + g->offset[d];
      if (dist[v] >= 0) continue;
      dist[v] = dist[u] + 1;
      q[tail++] = v;
    }
  }
  return -1;
}

/* The bounds by breadth-first search: the sum and largest of the agents' moves. */
static void bfs_bounds(const mapf_grid *g, const mapf_instance *inst, int64_t *sum,
                       int64_t *max) {
  int32_t *dist = malloc((size_t)g->ncells * sizeof *dist);
  int32_t *q = malloc((size_t)g->ncells * sizeof *q);
  *sum = *max = 0;
  for (int32_t a = 0; a < inst->n; a++) {
    int64_t d = bfs_moves(g, inst->start[a], inst->goal[a], dist, q);
    cr_assert_geq(d, 0, "agent %d cannot reach its goal", a);
    *sum += d;
    if (d > *max) *max = d;
  }
  free(dist);
  free(q);
}

Test(bounds, by_hand_a_corridor_a_detour_and_diagonals) {
  /* A corridor: 7 moves and 3 moves; the bounds ignore the other agent in the way. */
  const char *corridor[] = {"........"};
  mapf_grid *g = test_grid_from_rows(corridor, 1);
  int xy[] = {0, 0, 7, 0, 5, 0, 2, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  int64_t soc, mk;
  bounds_fresh(g, inst, &soc, &mk);
  cr_expect_eq(soc, 10);
  cr_expect_eq(mk, 7);
  mapf_instance_free(inst);
  mapf_grid_free(g);

  /* A wall with a gap below it, from (0,0) to (4,0). No corner cutting: (2,3) is entered
   * from (1,3) and left to (3,3) (the diagonals beside it pass the wall's end at (2,2)), so
   * 3 moves to (1,3), 2 along the gap, 3 up to (4,0): 8, twice the straight line's 4. Under 4
   * moves: 3 down, 4 right, 3 up. */
  const char *detour[] = {
      "..#..",
      "..#..",
      "..#..",
      ".....",
  };
  g = test_grid_from_rows(detour, 4);
  int xy2[] = {0, 0, 4, 0};
  inst = test_instance_of(g, 1, xy2);
  bounds_fresh(g, inst, &soc, &mk);
  cr_expect_eq(soc, 8);
  cr_expect_eq(mk, 8);
  cardinal_only(g);
  bounds_fresh(g, inst, &soc, &mk);
  cr_expect_eq(soc, 10);
  mapf_instance_free(inst);
  mapf_grid_free(g);

  /* Open ground: a diagonal move is one step, so (0,0) to (4,3) is 4 moves under 8 moves and
   * 7 under 4; a blocked corner forbids the diagonal beside it. */
  const char *open[] = {
      ".....",
      ".....",
      ".....",
      ".....",
  };
  g = test_grid_from_rows(open, 4);
  int xy3[] = {0, 0, 4, 3, 4, 0, 0, 1};
  inst = test_instance_of(g, 2, xy3);
  bounds_fresh(g, inst, &soc, &mk);
  cr_expect_eq(soc, 4 + 4);
  cr_expect_eq(mk, 4);
  cardinal_only(g);
  bounds_fresh(g, inst, &soc, &mk);
  cr_expect_eq(soc, 7 + 5);
  cr_expect_eq(mk, 7);
  mapf_instance_free(inst);
  mapf_grid_free(g);

  const char *corner[] = {
      ".#",
      "..",
  };
  g = test_grid_from_rows(corner, 2);
  int xy4[] = {0, 0, 1, 1};
  inst = test_instance_of(g, 1, xy4);
  bounds_fresh(g, inst, &soc, &mk);
  cr_expect_eq(soc, 2, "no corner cutting: (0,0) -> (1,1) goes round");
  /* Start on the goal: 0. */
  int xy5[] = {0, 1, 0, 1};
  mapf_instance *still = test_instance_of(g, 1, xy5);
  bounds_fresh(g, still, &soc, &mk);
  cr_expect_eq(soc, 0);
  cr_expect_eq(mk, 0);
  mapf_instance_free(still);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Under patrol an agent's soc counts its loops there and back: the bound is 2 x loops times
 * its moves. */
Test(bounds, patrol_counts_every_leg) {
  const char *corridor[] = {"......"};
  mapf_grid *g = test_grid_from_rows(corridor, 1);
  int xy[] = {0, 0, 5, 0, 1, 0, 3, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  inst->loops = 3;
  int64_t soc, mk;
  bounds_fresh(g, inst, &soc, &mk);
  cr_expect_eq(soc, 6 * (5 + 2));
  cr_expect_eq(mk, 6 * 5);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* On real maps the bounds are the breadth-first distances, with few agents (the coordinate
 * heuristic alone) and many (the landmarks'), 8- and 4-connected, and on maps of several
 * components; one workspace goes from map to map, so landmarks kept for one map must not
 * serve another (two maps of one size included). */
Test(bounds, equal_breadth_first_distances_on_movingai_maps) {
  REQUIRE_MAPS(maps);
  static const char *const rels[] = {
      "mapf/den520d.map",          "mapf/maze-32-32-2.map", "mapf/random-32-32-20.map",
      "mapf/random-32-32-10.map",  "mapf/warehouse-10-20-10-2-1.map", "dao/lak307d.map",
      "mapf/room-32-32-4.map",
  };
  static const int32_t agents[] = {10, 64, 300};
  mapf_workspace *ws = mapf_workspace_new();
  for (size_t m = 0; m < sizeof rels / sizeof rels[0]; m++) {
    for (int four = 0; four < 2; four++) {
      mapf_grid *g = test_load_movingai(maps, rels[m]);
      if (four) cardinal_only(g);
      for (size_t k = 0; k < sizeof agents / sizeof agents[0]; k++) {
        mapf_instance *inst = test_random_instance(g, agents[k], 5 + k);
        int64_t soc, mk, want_soc, want_mk;
        bounds_of(ws, g, inst, &soc, &mk);
        bfs_bounds(g, inst, &want_soc, &want_mk);
        cr_expect_eq(soc, want_soc, "%s, %d-connected, %d agents", rels[m], four ? 4 : 8,
                     (int)agents[k]);
        cr_expect_eq(mk, want_mk, "%s, %d-connected, %d agents", rels[m], four ? 4 : 8,
                     (int)agents[k]);
        mapf_instance_free(inst);
      }
      mapf_grid_free(g);
    }
  }
  mapf_workspace_free(ws);
}

/* Two maps of the same size in turn in one workspace: the second's landmarks are its own,
 * whether a run of many agents made them at once or single-agent runs in a row did. */
Test(bounds, landmarks_of_one_map_never_serve_another) {
  mapf_grid *a = test_mapgen(MAPF_MAPGEN_RANDOM, 48, 48, 0.25, 0, 1);
  mapf_grid *b = test_mapgen(MAPF_MAPGEN_MAZE, 48, 48, 0, 2, 2);
  cr_assert_eq(a->ncells, b->ncells);
  mapf_workspace *ws = mapf_workspace_new();
  for (int round = 0; round < 2; round++) {
    mapf_grid *gs[] = {a, b, a};
    for (int i = 0; i < 3; i++) {
      mapf_instance *inst = test_random_instance(gs[i], 100, 3 + (uint64_t)i);
      int64_t soc, mk, want_soc, want_mk;
      bounds_of(ws, gs[i], inst, &soc, &mk);
      bfs_bounds(gs[i], inst, &want_soc, &want_mk);
      cr_expect_eq(soc, want_soc, "map %d round %d", i, round);
      cr_expect_eq(mk, want_mk, "map %d round %d", i, round);
      mapf_instance_free(inst);
    }
    cardinal_only(a); /* the same passability, other moves: other landmark distances */
  }
  mapf_grid_free(a);
  a = test_mapgen(MAPF_MAPGEN_RANDOM, 48, 48, 0.25, 0, 1);
  for (int round = 0; round < 2; round++) {
    mapf_grid *gs[] = {a, b, a};
    for (int i = 0; i < 3; i++) {
      /* Enough single-agent runs on one map to make its landmarks on the way. */
      for (uint64_t r = 0; r < 300; r++) {
        mapf_instance *inst = test_random_instance(gs[i], 1, 1000 * (uint64_t)i + r);
        int64_t soc, mk, want_soc, want_mk;
        bounds_of(ws, gs[i], inst, &soc, &mk);
        bfs_bounds(gs[i], inst, &want_soc, &want_mk);
        cr_assert_eq(soc, want_soc, "map %d round %d run %d", i, round, (int)r);
        cr_assert_eq(mk, want_mk);
        mapf_instance_free(inst);
      }
    }
    cardinal_only(a);
  }
  mapf_workspace_free(ws);
  mapf_grid_free(a);
  mapf_grid_free(b);
}

/* Every algorithm of the registry, on a real map: a solved run's soc and makespan are at least
 * their bounds, and an unsolved run has its bounds too (the instance's). */
Test(bounds, no_planner_beats_them) {
  REQUIRE_MAPS(maps);
  mapf_grid *g = test_load_movingai(maps, "mapf/random-32-32-10.map");
  mapf_instance *inst = test_random_instance(g, 40, 9);
  int64_t want_soc, want_mk;
  bfs_bounds(g, inst, &want_soc, &want_mk);
  int solved = 0;
  for (int32_t i = 0; i < mapf_algo_count(); i++) {
    const mapf_algo_def *def = mapf_algo_at(i);
    if (def->program) continue; /* runs a program: tests/test_external.c */
    for (int64_t steps = 3; steps <= 3000; steps *= 1000) {
      mapf_run_config cfg = test_run_config(g, inst, def->name);
      cfg.limits.steps = steps;
      cfg.seed = 4;
      mapf_result res;
      test_run_checked(&cfg, &res, def->name);
      cr_expect_eq(res.soc_lb, want_soc, "%s", def->name);
      cr_expect_eq(res.makespan_lb, want_mk, "%s", def->name);
      if (res.solved) {
        solved++;
        cr_expect_geq(res.soc, res.soc_lb, "%s", def->name);
        cr_expect_geq(res.makespan, res.makespan_lb, "%s", def->name);
      } else {
        cr_expect_eq(res.soc, -1, "%s", def->name);
      }
      mapf_result_clear(&res);
    }
  }
  cr_expect_geq(solved, mapf_algo_count() / 2, "most planners solve 40 agents in 3,000 steps");
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* A run that fails has no bounds: the store writes NULL (sim.h: -1). */
Test(bounds, a_failed_run_has_none) {
  const char *corridor[] = {"....#."};
  mapf_grid *g = test_grid_from_rows(corridor, 1);
  int xy[] = {0, 0, 5, 0}; /* the goal is in another component */
  mapf_instance *inst = test_instance_of(g, 1, xy);
  mapf_run_config cfg = test_run_config(g, inst, "bmaa");
  cfg.limits.steps = 10;
  mapf_workspace *ws = mapf_workspace_new();
  mapf_result res;
  mapf_diag d = {0};
  cr_assert_neq(mapf_run(ws, &cfg, &res, &d), MAPF_OK);
  cr_expect_eq(res.status, MAPF_STATUS_ERROR);
  cr_expect_eq(res.soc_lb, -1);
  cr_expect_eq(res.makespan_lb, -1);
  mapf_result_clear(&res);
  mapf_workspace_free(ws);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* no_bounds (what `mapfarm calibrate` times): the same run without the bounds, which stay -1;
 * with them, the bounds of the test's own breadth-first search. */
Test(bounds, a_run_asked_for_none_has_none_and_the_same_moves) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 32, 32, 0.2, 1, 5);
  mapf_instance *inst = test_random_instance(g, 20, 3);
  mapf_result with, without;
  mapf_diag d = {0};
  mapf_workspace *ws = mapf_workspace_new();
  mapf_run_config cfg = test_run_config(g, inst, "far");
  cfg.limits.steps = 200;
  cr_assert_eq(mapf_run(ws, &cfg, &with, &d), MAPF_OK, "%s", d.msg);
  cfg.no_bounds = 1;
  cr_assert_eq(mapf_run(ws, &cfg, &without, &d), MAPF_OK, "%s", d.msg);
  int64_t sum, max;
  bfs_bounds(g, inst, &sum, &max);
  cr_expect_eq(with.soc_lb, sum);
  cr_expect_eq(with.makespan_lb, max);
  cr_expect_eq(without.soc_lb, -1);
  cr_expect_eq(without.makespan_lb, -1);
  cr_expect_eq(without.steps, with.steps);
  cr_expect_eq(without.expansions, with.expansions);
  cr_expect_eq(without.completed, with.completed);
  mapf_result_clear(&with);
  mapf_result_clear(&without);
  mapf_workspace_free(ws);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}
