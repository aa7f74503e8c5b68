/* test_dm.c: direction maps (Jansen & Sturtevant 2008; core/dm.c): the arithmetic of Figs. 2 and 3
 * and of coherence on hand-made values, the planner against plain A*, lanes, the paper's effect on
 * failed moves, agent-centric maps, sampling and determinism. Every run is watched step by step
 * by an independent checker. */
#include <criterion/criterion.h>
#include <math.h>
#include <sys/resource.h>

#include "algo.h"
#include "astar.h"
#include "dm.h"
#include "mapgen.h"
#include "scen.h"
#include "scengen.h"
#include "sim.h"
#include "testutil.h"

#define H (MAPF_SQRT2 / 2)

typedef struct dm_opts {
  double alpha, weight, vision, local_radius;
  int64_t steps, sample_every;
} dm_opts;

static const dm_opts dm_defaults = {0.8, 5, 5, 0, 5000, 0};

/* Runs `dm` under the step checker; asserts no violation and the result's identities. */
static void run_dm(const mapf_grid *g, const mapf_instance *inst, dm_opts o, mapf_result *res) {
  mapf_run_config cfg = test_run_config(g, inst, "dm");
  test_set_param(cfg.algo, &cfg.params, "alpha", o.alpha);
  test_set_param(cfg.algo, &cfg.params, "weight", o.weight);
  test_set_param(cfg.algo, &cfg.params, "vision", o.vision);
  test_set_param(cfg.algo, &cfg.params, "local_radius", o.local_radius);
  cfg.limits.steps = o.steps;
  cfg.sample_every = o.sample_every;
  test_run_checked(&cfg, res, "dm");
  cr_assert(res->coherence >= -1 - 1e-9 && res->coherence <= 1 + 1e-9, "coherence %g",
            res->coherence);
  int64_t failed = 0, loops = 0;
  for (int32_t a = 0; a < res->agents; a++) {
    failed += res->agent[a].failed_moves;
    loops += res->agent[a].loops_done;
  }
  cr_assert_eq(res->failed_moves, failed);
  cr_assert_eq(res->loops_done, loops);
}

/* One agent from (sx, sy) to (gx, gy), patrolling `loops` times (0: one way). */
static mapf_instance *one_agent(const mapf_grid *g, int sx, int sy, int gx, int gy, int loops) {
  mapf_instance *inst = test_instance_of(g, 1, (const int[]){sx, sy, gx, gy});
  inst->loops = loops;
  return inst;
}

/* ---- registry ------------------------------------------------------------------------------ */

Test(dm, is_registered_with_the_papers_defaults) {
  const mapf_algo_def *def = mapf_algo_find("dm");
  cr_assert_not_null(def);
  cr_assert_str_eq(def->label, "DM");
  mapf_params p;
  mapf_params_default(def, &p);
  char buf[256];
  mapf_params_json(def, &p, buf, sizeof buf);
  /* `repair`, added later, stays out of the canonical JSON (and so of job keys) at its
   * default: plans written before it keep their keys. */
  cr_assert_str_eq(buf, "{\"alpha\":0.8,\"local_radius\":0,\"vision\":5,\"weight\":5}");
  p.v[mapf_param_index(def, "repair")] = 16;
  mapf_params_json(def, &p, buf, sizeof buf);
  cr_assert_str_eq(buf, "{\"alpha\":0.8,\"local_radius\":0,\"repair\":16,\"vision\":5,"
                        "\"weight\":5}");
  mapf_params_default(def, &p);
  mapf_diag d = {0};
  p.v[mapf_param_index(def, "alpha")] = 1.5;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "alpha: expected a number in [0, 1], found 1.5");
  mapf_params_default(def, &p);
  p.v[mapf_param_index(def, "weight")] = -1;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_EINVAL);
  mapf_params_default(def, &p);
  p.v[mapf_param_index(def, "local_radius")] = 2.5;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_EINVAL);
}

/* ---- arithmetic (Figs. 2 and 3, Sec. 3) ------------------------------------------------------ */

/* The paper's Figure 4 with alpha = 1/2. Its 'up' is [0, 1]; ours is north, (0, -1). */
Test(dm, update_reproduces_the_papers_example) {
  /* D3: no DV yet, the agent leaves 'up': the DV is the move. */
  mapf__dv d3 = {0, 0};
  mapf__dm_update(&d3, 0.5, 0, -1);
  cr_assert_eq(d3.x, 0);
  cr_assert_eq(d3.y, -1);
  /* C3: [1, 0] from agent A1, then 'up': [sqrt(2)/2, sqrt(2)/2]. */
  mapf__dv c3 = {0, 0};
  mapf__dm_update(&c3, 0.5, 1, 0);
  cr_assert_eq(c3.x, 1);
  cr_assert_eq(c3.y, 0);
  mapf__dm_update(&c3, 0.5, 0, -1);
  cr_assert_float_eq(c3.x, H, 1e-7);
  cr_assert_float_eq(c3.y, -H, 1e-7);
  /* Leaving C3 'up' again: [sqrt(2)/4, (sqrt(2) + 2)/4], normalised. */
  mapf__dm_update(&c3, 0.5, 0, -1);
  double ex = MAPF_SQRT2 / 4, ey = (MAPF_SQRT2 + 2) / 4, len = sqrt(ex * ex + ey * ey);
  cr_assert_float_eq(c3.x, ex / len, 1e-7);
  cr_assert_float_eq(c3.y, -ey / len, 1e-7);
  cr_assert_float_eq((double)c3.x * c3.x + (double)c3.y * c3.y, 1, 1e-6);
}

Test(dm, update_weighs_the_old_vector_by_alpha) {
  /* alpha 0.8 (the paper's): (1, 0) then a move north: (0.8, -0.2) / |(0.8, -0.2)|. */
  mapf__dv v = {1, 0};
  mapf__dm_update(&v, 0.8, 0, -1);
  double len = sqrt(0.68);
  cr_assert_float_eq(v.x, 0.8 / len, 1e-7);
  cr_assert_float_eq(v.y, -0.2 / len, 1e-7);
  /* A diagonal move: the unit vector of SE. */
  v = (mapf__dv){0, 0};
  mapf__dm_update(&v, 0.8, mapf__dm_ux[MAPF_DIR_SE], mapf__dm_uy[MAPF_DIR_SE]);
  cr_assert_float_eq(v.x, H, 1e-7);
  cr_assert_float_eq(v.y, H, 1e-7);
  /* alpha 1 keeps the first visit's vector; alpha 0 takes every move. */
  v = (mapf__dv){1, 0};
  mapf__dm_update(&v, 1, 0, 1);
  cr_assert_eq(v.x, 1);
  cr_assert_eq(v.y, 0);
  mapf__dm_update(&v, 0, 0, 1);
  cr_assert_eq(v.x, 0);
  cr_assert_eq(v.y, 1);
  /* alpha 1/2 against the vector: the blend is zero; the cell takes the move. */
  v = (mapf__dv){1, 0};
  mapf__dm_update(&v, 0.5, -1, 0);
  cr_assert_eq(v.x, -1);
  cr_assert_eq(v.y, 0);
}

Test(dm, edge_cost_follows_figure_3) {
  mapf__dv none = {0, 0}, east = {1, 0}, west = {-1, 0}, north = {0, -1};
  /* Moving east (cost 1), weight 10. */
  cr_assert_float_eq(mapf__dm_edge_cost(1, 10, 1, 0, none, none), 1, 1e-12);
  cr_assert_float_eq(mapf__dm_edge_cost(1, 10, 1, 0, east, east), 1, 1e-12);
  cr_assert_float_eq(mapf__dm_edge_cost(1, 10, 1, 0, west, west), 11, 1e-12);
  cr_assert_float_eq(mapf__dm_edge_cost(1, 10, 1, 0, west, none), 6, 1e-12);
  cr_assert_float_eq(mapf__dm_edge_cost(1, 10, 1, 0, north, north), 6, 1e-12);
  cr_assert_float_eq(mapf__dm_edge_cost(1, 10, 1, 0, east, west), 6, 1e-12);
  /* A diagonal move NE (cost sqrt(2)) across east-pointing cells: w = (1 - sqrt(2)/2) / 2. */
  double w = (1 - H) / 2;
  cr_assert_float_eq(mapf__dm_edge_cost(MAPF_SQRT2, 4, H, -H, east, east),
                     MAPF_SQRT2 + 4 * w, 1e-12);
  /* Weight 0: the plain move cost. */
  cr_assert_eq(mapf__dm_edge_cost(MAPF_SQRT2, 0, H, -H, west, west), MAPF_SQRT2);
  /* A unit vector a hair long (float rounding) never makes a move cheaper than its length. */
  mapf__dv longer = {1.0000001f, 0};
  cr_assert_geq(mapf__dm_edge_cost(1, 10, 1, 0, longer, longer), 1);
}

Test(dm, a_vector_points_to_the_nearest_of_eight_directions) {
  cr_assert_eq(mapf__dm_points_to((mapf__dv){1, 0}), MAPF_DIR_E);
  cr_assert_eq(mapf__dm_points_to((mapf__dv){0, -1}), MAPF_DIR_N);
  cr_assert_eq(mapf__dm_points_to((mapf__dv){-1, 0}), MAPF_DIR_W);
  cr_assert_eq(mapf__dm_points_to((mapf__dv){(float)H, (float)H}), MAPF_DIR_SE);
  cr_assert_eq(mapf__dm_points_to((mapf__dv){-0.6f, -0.8f}), MAPF_DIR_NW);
  /* 20 degrees below east is nearer east (0) than south-east (45). */
  cr_assert_eq(mapf__dm_points_to((mapf__dv){(float)cos(0.349), (float)sin(0.349)}), MAPF_DIR_E);
  /* 25 degrees is nearer south-east. */
  cr_assert_eq(mapf__dm_points_to((mapf__dv){(float)cos(0.436), (float)sin(0.436)}),
               MAPF_DIR_SE);
}

/* Coherence on hand-made maps (dm.h): mean of dot(dv(c), dv(c')) over cells whose pointed-to
 * neighbour is reachable and has a DV. */
Test(dm, coherence_of_hand_made_maps) {
  const char *rows[] = {"......", "......", "..@..."};
  mapf_grid *g = test_grid_from_rows(rows, 3);
  mapf__dv *dv = calloc((size_t)g->ncells, sizeof *dv);
  mapf__dv E = {1, 0}, W = {-1, 0}, S = {0, 1}, N = {0, -1};
  /* An empty map is fully coherent (Sec. 4). */
  cr_assert_float_eq(mapf__dm_coherence(g, dv, NULL, 0), 1, 1e-12);
  /* Row 0 all east: cells 0-4 point to an east neighbour with the same vector; cell 5 points
   * off the map and is left out: 1. */
  for (int x = 0; x < 6; x++) dv[x] = E;
  cr_assert_float_eq(mapf__dm_coherence(g, dv, NULL, 0), 1, 1e-12);
  /* Alternating east and west: every counted cell points at its opposite: -1. */
  for (int x = 0; x < 6; x++) dv[x] = x % 2 ? W : E;
  cr_assert_float_eq(mapf__dm_coherence(g, dv, NULL, 0), -1, 1e-12);
  /* Two lanes, row 0 east and row 1 west: (5,0) and (0,1) point off the map and are left out;
   * the other 10 cells agree with their neighbours: 1. */
  for (int x = 0; x < 6; x++) {
    dv[x] = E;
    dv[6 + x] = W;
  }
  cr_assert_float_eq(mapf__dm_coherence(g, dv, NULL, 0), 1, 1e-12);
  /* A square of four cells turning clockwise: each points at a perpendicular neighbour. */
  memset(dv, 0, (size_t)g->ncells * sizeof *dv);
  dv[0] = E;
  dv[1] = S;
  dv[7] = W;
  dv[6] = N;
  /* (0,0)->(1,0): E.S = 0; (1,0)->(1,1): S.W = 0; (1,1)->(0,1): W.N = 0; (0,1)->(0,0): N.E = 0. */
  cr_assert_float_eq(mapf__dm_coherence(g, dv, NULL, 0), 0, 1e-12);
  dv[6] = W; /* (0,1) now points off the map: left out; (1,1)->(0,1): W.W = 1 */
  cr_assert_float_eq(mapf__dm_coherence(g, dv, NULL, 0), 1.0 / 3, 1e-12);
  /* A cell pointing into a wall (2,2) or toward a neighbour without a DV is left out. */
  memset(dv, 0, (size_t)g->ncells * sizeof *dv);
  dv[mapf_grid_id(g, 2, 1)] = S;  /* into the wall */
  dv[mapf_grid_id(g, 4, 1)] = E;  /* (5,1) has no DV */
  dv[mapf_grid_id(g, 0, 0)] = E;
  dv[mapf_grid_id(g, 1, 0)] = W;  /* (0,0) and (1,0) disagree: -1 each */
  cr_assert_float_eq(mapf__dm_coherence(g, dv, NULL, 0), -1, 1e-12);
  /* A diagonal that cuts a wall's corner is no move: NE of (1,2) is (2,1), passable and with a
   * DV, but the move passes the corner of the wall (2,2), so (1,2) is left out. */
  memset(dv, 0, (size_t)g->ncells * sizeof *dv);
  dv[mapf_grid_id(g, 1, 2)] = (mapf__dv){(float)H, (float)-H}; /* NE, cutting (2,2) */
  dv[mapf_grid_id(g, 2, 1)] = E;
  cr_assert_float_eq(mapf__dm_coherence(g, dv, NULL, 0), 1, 1e-12, "nothing counted");
  dv[mapf_grid_id(g, 0, 0)] = E;
  dv[mapf_grid_id(g, 1, 0)] = W;
  /* Only the listed cells count. */
  int32_t only[] = {mapf_grid_id(g, 0, 0), mapf_grid_id(g, 1, 2)};
  cr_assert_float_eq(mapf__dm_coherence(g, dv, only, 2), -1, 1e-12);
  free(dv);
  mapf_grid_free(g);
}

/* ---- the planner ------------------------------------------------------------------------- */

/* One agent alone: with weight 0 the map changes no cost, and dm is A* replanning: every path
 * costs what mapf_astar_run finds. With weight 5 too, on a one-way trip: the map is empty while
 * the agent plans its only search. */
Test(dm, one_agent_travels_the_astar_distance) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 40, 40, 0.2, 1, 8);
  mapf_astar *as = mapf_astar_new();
  for (uint64_t seed = 0; seed < 20; seed++) {
    mapf_instance *inst = test_random_instance(g, 1, seed);
    mapf_astar_result ar;
    cr_assert_eq(mapf_astar_run(as, g, inst->start[0], inst->goal[0], &ar, NULL, NULL), MAPF_OK);
    cr_assert(ar.found);
    for (int k = 0; k < 2; k++) {
      dm_opts o = dm_defaults;
      o.weight = k ? 5 : 0;
      mapf_result res;
      run_dm(g, inst, o, &res);
      cr_assert_eq(res.status, MAPF_STATUS_OK);
      cr_assert_float_eq(res.agent[0].travel_distance, ar.cost, 1e-9, "seed %llu weight %g",
                         (unsigned long long)seed, o.weight);
      cr_assert_eq(res.agent[0].searches, 1);
      cr_assert_eq(res.failed_moves, 0);
      mapf_result_clear(&res);
    }
    mapf_instance_free(inst);
  }
  mapf_astar_free(as);
  mapf_grid_free(g);
}

/* A lone patroller: with weight 0 every leg is a shortest path; with weight > 0 the way back
 * runs against the vectors the way out left, so it returns on a parallel lane (Fig. 6(a):
 * "the agents form clear lanes of travel"), and the lanes are coherent. */
Test(dm, a_lone_patroller_comes_back_on_another_lane) {
  mapf_grid *g = test_open_grid(24, 9, "open");
  mapf_instance *inst = one_agent(g, 2, 4, 21, 4, 3);
  dm_opts o = dm_defaults;
  o.weight = 0;
  mapf_result res;
  run_dm(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_float_eq(res.agent[0].travel_distance, 3 * 2 * 19, 1e-9);
  cr_assert_eq(res.agent[0].searches, 6, "one search per leg");
  mapf_result_clear(&res);
  o.weight = 5;
  run_dm(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.agent[0].loops_done, 3);
  cr_assert_gt(res.agent[0].travel_distance, 3 * 2 * 19 + 0.5, "a detour onto another lane");
  cr_assert_lt(res.agent[0].travel_distance, 3 * 2 * (19 + 2 * MAPF_SQRT2) + 1e-9,
               "one diagonal step aside and back per leg at most");
  cr_assert_gt(res.coherence, 0.8, "coherence %g", res.coherence);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Coherence sampled every K steps from step 0 (empty map: 1); one agent walking east along a
 * corridor leaves a fully coherent line. */
Test(dm, coherence_is_sampled_every_k_steps) {
  const char *rows[] = {"............"};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  mapf_instance *inst = one_agent(g, 0, 0, 11, 0, 0);
  dm_opts o = dm_defaults;
  o.sample_every = 4;
  mapf_result res;
  run_dm(g, inst, o, &res);
  cr_assert_eq(res.steps, 11);
  cr_assert_eq(res.coherence_samples, 3, "steps 0, 4, 8");
  for (int32_t i = 0; i < res.coherence_samples; i++) {
    cr_assert_eq(res.coherence_series[i].step, 4 * i);
    cr_assert_float_eq(res.coherence_series[i].value, 1, 1e-12);
  }
  cr_assert_float_eq(res.coherence, 1, 1e-12);
  mapf_result_clear(&res);
  cr_assert_null(res.coherence_series);
  o.sample_every = 0;
  run_dm(g, inst, o, &res);
  cr_assert_eq(res.coherence_samples, 0);
  cr_assert_null(res.coherence_series);
  cr_assert_float_eq(res.coherence, 1, 1e-12, "the final value is always there");
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* A move that fails makes the agent plan again; agents within vision are obstacles. Two agents
 * meet head-on in a corridor two cells wide. Weight 0: with vision 0 they see nobody and fail
 * for ever; with vision 5 they bump once, see each other and pass. Weight 5 and vision 0: the
 * row ahead now carries the other agent's trail, pointing against each, so after the bump
 * both replan onto the other row: the direction map alone lets blind agents pass. */
Test(dm, failed_moves_make_agents_replan) {
  const char *rows[] = {"............", "............"};
  mapf_grid *g = test_grid_from_rows(rows, 2);
  int xy[] = {0, 0, 11, 0, 11, 0, 0, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  dm_opts o = dm_defaults;
  o.weight = 0;
  o.vision = 0;
  o.steps = 100;
  mapf_result res;
  run_dm(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT, "blind agents meet head-on for ever");
  cr_assert_gt(res.failed_moves, 100);
  /* A search at step 0 each, then one after every failed move but the two of the last step. */
  cr_assert_eq(res.searches, 2 + res.failed_moves - 2);
  mapf_result_clear(&res);
  o.vision = 5;
  run_dm(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  /* They follow their paths until they bump (no replanning before a failed move), then see
   * each other and step round. */
  cr_assert_eq(res.failed_moves, 2);
  mapf_result_clear(&res);
  o.weight = 5;
  o.vision = 0;
  run_dm(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.failed_moves, 2);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- the paper's effect (Sec. 4, Figs. 7-9) ------------------------------------------------ */

/* Two rooms 8 x 12 joined by a corridor cw cells wide and 16 long. Group A (per agents) starts
 * on a lattice in the left room with goals in the right room; group B the reverse; all patrol
 * `loops` times, so the groups cross the corridor in opposite directions. */
static void two_rooms(int cw, int per, int loops, mapf_grid **gout, mapf_instance **iout) {
  int Hh = 12, RW = 8, W = 2 * RW + 16;
  mapf_grid *g = mapf_grid_new(W, Hh, "two-rooms");
  for (int y = 0; y < Hh; y++)
    for (int x = 0; x < W; x++)
      g->passable[y * W + x] =
          x < RW || x >= W - RW || (y >= (Hh - cw) / 2 && y < (Hh - cw) / 2 + cw);
  cr_assert_eq(mapf_grid_finish(g), MAPF_OK);
  mapf_instance *inst = mapf_instance_new(2 * per);
  inst->loops = loops;
  for (int i = 0; i < per; i++) {
    int ax = 1 + 2 * (i % 3), ay = 1 + 2 * (i / 3), bx = 2 * (i % 3), by = 2 * (i / 3);
    inst->start[i] = mapf_grid_id(g, ax, ay);
    inst->goal[i] = mapf_grid_id(g, W - 1 - ax, ay);
    inst->start[per + i] = mapf_grid_id(g, W - 1 - bx, by);
    inst->goal[per + i] = mapf_grid_id(g, bx, by);
  }
  *gout = g;
  *iout = inst;
}

/* Seed 004 Fig. 8: "the number of failed moves per agent per patrol loop is significantly
 * larger for agents which do not use the DM"; Sec. 4: agents using it form "gradually more
 * coherent paths"; Fig. 9: agent-centric maps fall between. Measured on these instances (see
 * the README): weight 0 fails 5.6-6.7 moves per agent per loop, weight 5 and 10 0.7-1.3, local
 * maps (weight 5) 0.9-1.5; the asserts keep a factor of 2 to 3 of margin. Every run completes. */
Test(dm, direction_maps_cut_failed_moves_of_opposite_groups_in_a_corridor, .timeout = 120) {
  for (int cw = 3; cw <= 5; cw++) {
    mapf_grid *g;
    mapf_instance *inst;
    two_rooms(cw, 6, 4, &g, &inst);
    dm_opts o = dm_defaults;
    o.steps = 3000;
    mapf_result none, w5, w10, local;
    o.weight = 0;
    run_dm(g, inst, o, &none);
    o.weight = 5;
    run_dm(g, inst, o, &w5);
    o.weight = 10;
    run_dm(g, inst, o, &w10);
    o.weight = 5;
    o.local_radius = 2;
    run_dm(g, inst, o, &local);
    mapf_result *all[] = {&none, &w5, &w10, &local};
    for (int k = 0; k < 4; k++) {
      cr_assert_eq(all[k]->status, MAPF_STATUS_OK, "width %d run %d", cw, k);
      cr_assert_eq(all[k]->loops_done, 12 * 4);
    }
    cr_assert_gt(none.failed_moves_per_loop, 3, "width %d: %g", cw, none.failed_moves_per_loop);
    cr_assert_lt(3 * w5.failed_moves_per_loop, none.failed_moves_per_loop, "width %d: %g vs %g",
                 cw, w5.failed_moves_per_loop, none.failed_moves_per_loop);
    cr_assert_lt(3 * w10.failed_moves_per_loop, none.failed_moves_per_loop, "width %d", cw);
    cr_assert_lt(2 * local.failed_moves_per_loop, none.failed_moves_per_loop, "width %d", cw);
    cr_assert_gt(w5.coherence, none.coherence + 0.1, "width %d: %g vs %g", cw, w5.coherence,
                 none.coherence);
    for (int k = 0; k < 4; k++) mapf_result_clear(all[k]);
    mapf_instance_free(inst);
    mapf_grid_free(g);
  }
}

/* The paper's set-up on a 32 x 32 MovingAI map (it used 32 x 32 and 64 x 64 maps): the patrol
 * generator (starts left, goals right, 10 loops), 20 agents, vision 5, weight 10 (Fig. 8) and
 * local maps of radius 2 (Fig. 9). Measured per agent per loop over seeds 0-3: no map 1.2-1.8
 * (and a run whose two agents mirror each other's detours for ever, ended by the step limit),
 * global 0.3-0.5, local 0.6. */
Test(dm, direction_maps_cut_failed_moves_on_a_movingai_map, .timeout = 300) {
  REQUIRE_MAPS(dir);
  mapf_grid *g = test_load_movingai(dir, "mapf/random-32-32-10.map");
  mapf_diag d = {0};
  const mapf_scengen_def *gen = mapf_scengen_find("patrol");
  for (uint64_t seed = 0; seed < 4; seed++) {
    mapf_instance *inst = NULL;
    cr_assert_eq(gen->generate(g, 20, NULL, seed, &inst, &d), MAPF_OK, "%s", d.msg);
    cr_assert_eq(inst->loops, 10);
    dm_opts o = dm_defaults;
    o.steps = 3000;
    mapf_result none, global, local;
    o.weight = 0;
    run_dm(g, inst, o, &none);
    o.weight = 10;
    run_dm(g, inst, o, &global);
    o.local_radius = 2;
    run_dm(g, inst, o, &local);
    cr_assert_eq(global.status, MAPF_STATUS_OK, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(local.status, MAPF_STATUS_OK, "seed %llu", (unsigned long long)seed);
    cr_assert_lt(2 * global.failed_moves_per_loop, none.failed_moves_per_loop,
                 "seed %llu: %g vs %g", (unsigned long long)seed, global.failed_moves_per_loop,
                 none.failed_moves_per_loop);
    cr_assert_lt(local.failed_moves_per_loop, none.failed_moves_per_loop, "seed %llu",
                 (unsigned long long)seed);
    cr_assert_gt(global.coherence, none.coherence, "seed %llu", (unsigned long long)seed);
    mapf_result_clear(&none);
    mapf_result_clear(&global);
    mapf_result_clear(&local);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

/* ---- agent-centric maps, determinism ------------------------------------------------------- */

/* Global and agent-centric runs on generated maps: legal (run_dm's checker) and the same
 * twice, bit for bit. */
Test(dm, runs_are_legal_and_deterministic, .timeout = 120) {
  mapf_mapgen_kind kinds[] = {MAPF_MAPGEN_RANDOM, MAPF_MAPGEN_ROOMS};
  for (int k = 0; k < 2; k++) {
    mapf_grid *g = test_mapgen(kinds[k], 33, 33, 0.15, 1, (uint64_t)k + 3);
    mapf_diag d = {0};
    const mapf_scengen_def *gen = mapf_scengen_find("patrol");
    mapf_params gp;
    mapf_scengen_params_default(gen, &gp);
    gp.v[mapf_param_index(gen->view, "loops")] = 3;
    mapf_instance *inst = NULL;
    cr_assert_eq(gen->generate(g, 25, &gp, 5, &inst, &d), MAPF_OK, "%s", d.msg);
    for (int r = 0; r <= 2; r += 2) {
      dm_opts o = dm_defaults;
      o.local_radius = r;
      o.steps = 1500;
      o.sample_every = 10;
      mapf_result a, b;
      run_dm(g, inst, o, &a);
      run_dm(g, inst, o, &b);
      char label[200];
      snprintf(label, sizeof label, "%s radius %d", g->name, r);
      test_assert_same_run(&a, &b, label);
      cr_assert_gt(a.loops_done, 0, "%s", label);
      mapf_result_clear(&a);
      mapf_result_clear(&b);
    }
    mapf_instance_free(inst);
    mapf_grid_free(g);
  }
}

/* `repair` k: a failed move repairs the path up to its first free cell k or more ahead instead
 * of planning it all again. On a crowded map every step stays legal, every agent still
 * arrives, and the search costs a fraction of the paper's whole searches. */
Test(dm, repair_keeps_runs_legal_and_searches_far_less, .timeout = 120) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 64, 64, 0.15, 1, 7);
  mapf_instance *inst = test_random_instance(g, 300, 11);
  int64_t exp[2];
  for (int k = 0; k < 2; k++) {
    mapf_run_config cfg = test_run_config(g, inst, "dm");
    test_set_param(cfg.algo, &cfg.params, "repair", k ? 8 : 0);
    cfg.limits.steps = 3000;
    mapf_result res;
    test_run_checked(&cfg, &res, k ? "repair 8" : "repair 0");
    cr_assert_eq(res.status, MAPF_STATUS_OK, "repair %d: %d of 300", k ? 8 : 0,
                 (int)res.completed);
    cr_assert_gt(res.failed_moves, 300, "a crowded run: moves fail and searches follow");
    exp[k] = res.expansions;
    mapf_result_clear(&res);
  }
  cr_assert_lt(exp[1] * 2, exp[0], "repair %lld expansions, whole searches %lld",
               (long long)exp[1], (long long)exp[0]);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Agent-centric maps are sparse: 2,000 agents with maps of radius 2 on a 512 x 512 map run in
 * an address space of 1 GiB, where 2,000 dense maps would take 2,000 x 2 MiB = 4 GiB. (Not
 * under sanitizers, whose shadow memory needs far more address space.) */
Test(dm, agent_centric_maps_are_sparse, .timeout = 120) {
#ifndef MAPFARM_SANITIZED
  struct rlimit lim = {(rlim_t)1 << 30, (rlim_t)1 << 30};
  cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
#endif
  mapf_grid *g = test_open_grid(512, 512, "open");
  int n = 2000;
  mapf_instance *inst = mapf_instance_new(n);
  inst->loops = 2;
  /* 40 agents per row, 4 cells apart, rows 8 apart: each patrols 2 cells to its right. */
  for (int i = 0; i < n; i++) {
    int x = 10 + 4 * (i % 40), y = 10 + 8 * (i / 40);
    inst->start[i] = mapf_grid_id(g, x, y);
    inst->goal[i] = mapf_grid_id(g, x + 2, y);
  }
  dm_opts o = dm_defaults;
  o.local_radius = 2;
  o.steps = 50;
  mapf_result res;
  run_dm(g, inst, o, &res);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.loops_done, 2 * n);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- recorded results ---------------------------------------------------------------------- */

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

/* Runs on lak307d with 600 agents (the paper's weight 5 and weight 0, whose equal-cost paths
 * make the heap's near-ties; local maps of radius 2; repair 8), as recorded with the code before
 * the heap chose between children without a branch (commit de0738d): the moves of every step,
 * the searches, expansions, failed moves and the final coherence, bit for bit. The heap's
 * epsilon comparisons are not transitive, so any other sifting could change them. */
Test(dm, real_map_runs_keep_their_recorded_moves_and_work, .timeout = 300) {
  REQUIRE_MAPS(maps);
  static const struct {
    double weight;
    int radius, repair;
    int64_t steps, searches, expansions, failed_moves;
    double coherence;
    uint64_t hash;
  } want[] = {
      {5, 0, 0, 110, 3387, 1376297, 2781, 0x1.09d05882b6717p-1, UINT64_C(0x0533d4e99efef829)},
      {0, 0, 0, 89, 3398, 114361, 2795, 0x1.7f81cd6062147p-2, UINT64_C(0x2aee76295e971c48)},
      {5, 2, 0, 96, 3477, 125354, 2869, 0x1.825bc65d89f1cp-2, UINT64_C(0xa9f350f8c1a5820e)},
      {5, 0, 8, 111, 3473, 180699, 2864, 0x1.cecaf7aea777fp-2, UINT64_C(0xb87a8f81ffdde270)},
  };
  mapf_grid *g = test_load_movingai(maps, "dao/lak307d.map");
  mapf_instance *inst = test_random_instance(g, 600, 17);
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    mapf_run_config cfg = test_run_config(g, inst, "dm");
    test_set_param(cfg.algo, &cfg.params, "weight", want[i].weight);
    test_set_param(cfg.algo, &cfg.params, "local_radius", want[i].radius);
    test_set_param(cfg.algo, &cfg.params, "repair", want[i].repair);
    cfg.limits.steps = 600;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    cfg.on_step = hash_positions;
    cfg.ud = &h;
    mapf_result res;
    test_run(&cfg, &res);
    char run[64];
    snprintf(run, sizeof run, "weight %g radius %d repair %d", want[i].weight, want[i].radius,
             want[i].repair);
    cr_expect_eq(res.steps, want[i].steps, "%s: steps %lld", run, (long long)res.steps);
    cr_expect_eq(res.searches, want[i].searches, "%s: searches %lld", run,
                 (long long)res.searches);
    cr_expect_eq(res.expansions, want[i].expansions, "%s: expansions %lld", run,
                 (long long)res.expansions);
    cr_expect_eq(res.failed_moves, want[i].failed_moves, "%s: failed moves %lld", run,
                 (long long)res.failed_moves);
    cr_expect_eq(res.coherence, want[i].coherence, "%s: coherence %a", run, res.coherence);
    cr_expect_eq(h, want[i].hash, "%s: moves hash 0x%016llx", run, (unsigned long long)h);
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}
