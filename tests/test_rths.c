/* test_rths.c: rths, the parametrized real-time heuristic search of thesis Ch. 4, Algorithm 1
 * (core/rths.c), on a real MovingAI scenario file (dao/lak307d, 216 problems, one agent each),
 * on hand-made and generated maps, and with many agents. Every run is watched step by step by
 * testutil.h's checker. A reference implementation here, written from the README's statement
 * of the algorithm (dense arrays, one agent, no simulator), must give the same trajectory as
 * the planner for every configuration tried. */
#include <criterion/criterion.h>
#include <math.h>

#include "algo.h"
#include "astar.h"
#include "mapgen.h"
#include "rng.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

#define EPS 1e-9

/* Parameters from "name=value,name=value" (through the registry's parser), the rest default. */
static mapf_params params_of(const char *spec) {
  const mapf_algo_def *def = test_algo("rths");
  mapf_params p;
  mapf_params_default(def, &p);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    cr_assert_not_null(eq, "bad spec %s", spec);
    *eq = '\0';
    int32_t i = mapf_param_index(def, tok);
    cr_assert_geq(i, 0, "no parameter %s", tok);
    mapf_diag d = {0};
    cr_assert_eq(mapf_param_parse(def, i, eq + 1, &p.v[i], &d), MAPF_OK, "%s", d.msg);
  }
  return p;
}

/* FNV-1a over a trajectory: every agent's cell at every step. */
static uint64_t fnv(uint64_t h, uint64_t x) {
  for (int k = 0; k < 8; k++) h = (h ^ ((x >> (8 * k)) & 0xff)) * 0x100000001b3ull;
  return h;
}

typedef struct watch {
  test_step_checker w;
  uint64_t fp;
} watch;

static void on_step(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  watch *x = ud;
  test_step_check(&x->w, t, pos, n);
  for (int32_t a = 0; a < n; a++) x->fp = fnv(x->fp, (uint64_t)(uint32_t)pos[a]);
}

/* Runs rths under the watcher; asserts no illegal step and the metric identities; returns the
 * trajectory's fingerprint. */
static uint64_t run(mapf_workspace *ws, const mapf_grid *g, const mapf_instance *inst,
                    const char *spec, int64_t steps, mapf_execution exec, mapf_result *res) {
  mapf_run_config cfg = test_run_config(g, inst, "rths");
  cfg.params = params_of(spec);
  cfg.limits.steps = steps;
  cfg.execution = exec;
  watch x = {{g, NULL, NULL, 0, 0}, 0xcbf29ce484222325ull};
  cfg.on_step = on_step;
  cfg.ud = &x;
  mapf_diag d = {0};
  cr_assert_eq(mapf_run(ws, &cfg, res, &d), MAPF_OK, "%s", d.msg);
  char label[300];
  snprintf(label, sizeof label, "[%s]", spec);
  test_check_steps(&x.w, res, label);
  test_check_arrivals(g, inst, res);
  test_step_checker_free(&x.w);
  return x.fp;
}

/* ---- a reference implementation ------------------------------------------------------- */

/* One agent alone, Algorithm 1 as the README states it, over dense arrays. Fills the number of
 * steps, the travel distance and the trajectory's fingerprint (as `run` computes it); returns
 * whether the goal was reached within cap steps. */
static int reference(const mapf_grid *g, int32_t start, int32_t goal, mapf_params p, int64_t cap,
                     int64_t *steps, double *dist, uint64_t *fp) {
  double w = p.v[0], wc = p.v[1], b = p.v[2];
  int lop = (int)p.v[3], da = p.v[4] != 0, expendable = p.v[5] != 0;
  double *h = malloc((size_t)g->ncells * sizeof *h);
  int64_t *visited = malloc((size_t)g->ncells * sizeof *visited);
  uint8_t *pruned = calloc((size_t)g->ncells, 1);
  cr_assert(h && visited && pruned);
  for (int32_t c = 0; c < g->ncells; c++) {
    h[c] = mapf_octile(g, c, goal);
    visited[c] = -1;
  }
  int32_t n = start;
  int64_t t = 0;
  *dist = 0;
  *fp = fnv(0xcbf29ce484222325ull, (uint64_t)(uint32_t)n);
  while (n != goal && t < cap) {
    visited[n] = t;
    int32_t all[8], L[8];
    double c[8];
    int k = 0;
    for (int d = 0; d < 8; d++) {
      int32_t v = n + g->offset[d];
      if ((g->moves[n] >> d & 1) && !pruned[v]) {
        all[k] = L[k] = v;
        c[k++] = mapf_dir_cost[d];
      }
    }
    int kall = k;
    if (da) { /* keep the least learned */
      double least = INFINITY;
      for (int j = 0; j < k; j++) least = fmin(least, h[L[j]] - mapf_octile(g, L[j], goal));
      int kept = 0;
      for (int j = 0; j < k; j++)
        if (h[L[j]] - mapf_octile(g, L[j], goal) <= least + EPS) {
          L[kept] = L[j];
          c[kept++] = c[j];
        }
      k = kept;
    }
    double f[8];
    for (int j = 0; j < k; j++) f[j] = wc * c[j] + h[L[j]];
    for (int i = 0; i < k; i++) /* selection sort, ascending */
      for (int j = i + 1; j < k; j++)
        if (f[j] < f[i]) {
          double tmp = f[i];
          f[i] = f[j];
          f[j] = tmp;
        }
    int m = (int)floor(b * k + 1e-9);
    if (m < 1) m = 1;
    double v = f[0];
    if (lop == 1) {
      v = 0;
      for (int j = 0; j < m; j++) v += f[j];
      v /= m;
    } else if (lop == 2) {
      v = m % 2 ? f[m / 2] : (f[m / 2 - 1] + f[m / 2]) / 2;
    } else if (lop == 3) {
      v = f[m - 1];
    }
    if (w * v > h[n] + EPS) {
      h[n] = w * v;
      if (expendable) { /* the neighbours stay connected without n: grow a set by flooding */
        unsigned seen = 1u;
        for (int round = 0; round < 8; round++)
          for (int i = 0; i < kall; i++)
            for (int j = 0; j < kall; j++) {
              int d = mapf_grid_dir(g, all[i], all[j]);
              if ((seen >> i & 1u) && d >= 0 && (g->moves[all[i]] >> d & 1)) seen |= 1u << j;
            }
        if (kall > 0 && seen == (1u << kall) - 1u) pruned[n] = 1;
      }
    }
    int best = 0; /* lowest c + h, then least recently visited, then first */
    for (int j = 1; j < k; j++) {
      double fj = c[j] + h[L[j]], fb = c[best] + h[L[best]];
      if (fj < fb - EPS || (fj <= fb + EPS && visited[L[j]] < visited[L[best]])) best = j;
    }
    *dist += c[best];
    n = L[best];
    t++;
    *fp = fnv(*fp, (uint64_t)(uint32_t)n);
  }
  *steps = t;
  free(h);
  free(visited);
  free(pruned);
  return n == goal;
}

/* ---- the real scenario file ------------------------------------------------------------ */

typedef struct problems {
  mapf_grid *g;
  mapf_scen *s;
} problems;

/* dao/lak307d.map and its single-agent scenario file (216 problems). */
static problems load_lak307d(const char *maps) {
  char scen[4400];
  snprintf(scen, sizeof scen, "%s/scen/dao/lak307d.map.scen", maps);
  problems p = {test_load_movingai(maps, "dao/lak307d.map"), NULL};
  p.s = test_load_scen(scen, p.g, 0);
  cr_assert_eq(p.s->n, 216);
  return p;
}

static void problems_free(problems *p) {
  mapf_scen_free(p->s);
  mapf_grid_free(p->g);
}

static mapf_instance *problem(const problems *p, int32_t k) {
  mapf_instance *inst = NULL;
  mapf_diag d = {0};
  cr_assert_eq(mapf_instance_from_scen(p->s, p->g, k, 1, &inst, &d), MAPF_OK, "%s", d.msg);
  return inst;
}

/* Generous: on lak307d LRTA* needs at most 1,093 steps, the other configurations fewer. */
#define CAP 100000

/* The defaults are LRTA* with lookahead 1: every problem of the file is solved, never shorter
 * than the optimal path (A* and the file's optimal_length), and some are not optimal (LRTA*
 * scrubs the depressions of the octile heuristic; a planner that followed A* would pass the
 * other checks). */
Test(rths, lrta_star_solves_every_problem_of_a_scenario_file, .timeout = 300) {
  REQUIRE_MAPS(maps);
  problems p = load_lak307d(maps);
  mapf_workspace *ws = mapf_workspace_new();
  mapf_astar *as = mapf_astar_new();
  int suboptimal = 0;
  for (int32_t k = 0; k < p.s->n; k++) {
    const mapf_scen_entry *e = &p.s->entries[k];
    mapf_instance *inst = problem(&p, k);
    mapf_astar_result opt;
    cr_assert_eq(mapf_astar_run(as, p.g, inst->start[0], inst->goal[0], &opt, NULL, NULL),
                 MAPF_OK);
    /* The file's lengths are printed to `decimals` places (README, A*). */
    double unit = pow(10, -e->decimals);
    cr_assert_leq(fabs(opt.cost - e->optimal), unit, "line %d", e->line);
    mapf_result res;
    run(ws, p.g, inst, "", CAP, MAPF_EXEC_CHAINS, &res);
    cr_assert_eq(res.status, MAPF_STATUS_OK, "line %d: not solved in %d steps", e->line, CAP);
    double dist = res.agent[0].travel_distance;
    cr_assert_geq(dist, opt.cost - EPS, "line %d: %.6f shorter than optimal %.6f", e->line,
                  dist, opt.cost);
    cr_assert_geq(dist, e->optimal - unit, "line %d", e->line);
    suboptimal += dist > opt.cost + 1e-6;
    /* One planning step per step: one expansion and one search each. */
    cr_assert_eq(res.expansions, res.steps);
    cr_assert_eq(res.searches, res.steps);
    cr_assert_eq(res.failed_moves, 0);
    mapf_result_clear(&res);
    mapf_instance_free(inst);
  }
  cr_assert_gt(suboptimal, 10, "only %d of 216 problems suboptimal", suboptimal);
  mapf_astar_free(as);
  mapf_workspace_free(ws);
  problems_free(&p);
}

/* Configurations across the whole space (w, wc, b, lop, da, expendable), each against the
 * reference implementation on every problem of the file: the same steps, the same distance
 * and the same cells at every step. Every one reaches every goal within the cap. */
static const char *const space[] = {
    "",
    "w=2",
    "w=10",
    "wc=2.5",
    "wc=10",
    "b=1,lop=max",
    "b=1,lop=mean",
    "b=1,lop=median",
    "b=0.5,lop=median",
    "b=0.6,lop=mean",
    "b=0.3,lop=max,w=1.5",
    "w=10,b=1,lop=max",
    "da=true",
    "expendable=true",
    "da=true,expendable=true",
    "w=3,b=1,lop=median,expendable=true",
    "w=10,wc=10,b=1,lop=max,da=true,expendable=true",
};

Test(rths, matches_the_reference_on_every_problem_for_every_configuration, .timeout = 600) {
  REQUIRE_MAPS(maps);
  problems p = load_lak307d(maps);
  mapf_workspace *ws = mapf_workspace_new();
  for (size_t c = 0; c < sizeof space / sizeof space[0]; c++) {
    mapf_params prm = params_of(space[c]);
#ifdef MAPFARM_SANITIZED
    int32_t stride = 4;
#else
    int32_t stride = 1;
#endif
    for (int32_t k = 0; k < p.s->n; k += stride) {
      mapf_instance *inst = problem(&p, k);
      mapf_result res;
      uint64_t fp = run(ws, p.g, inst, space[c], CAP, MAPF_EXEC_CHAINS, &res);
      int64_t steps;
      double dist;
      uint64_t rfp;
      int reached = reference(p.g, inst->start[0], inst->goal[0], prm, CAP, &steps, &dist, &rfp);
      cr_assert(reached, "[%s] line %d: the reference does not arrive", space[c],
                p.s->entries[k].line);
      cr_assert_eq(res.status, MAPF_STATUS_OK, "[%s] line %d", space[c], p.s->entries[k].line);
      cr_assert_eq(res.steps, steps, "[%s] line %d: %lld steps, reference %lld", space[c],
                   p.s->entries[k].line, (long long)res.steps, (long long)steps);
      cr_assert_float_eq(res.agent[0].travel_distance, dist, 1e-9, "[%s] line %d", space[c],
                         p.s->entries[k].line);
      cr_assert_eq(fp, rfp, "[%s] line %d: another trajectory", space[c], p.s->entries[k].line);
      mapf_result_clear(&res);
      mapf_instance_free(inst);
    }
  }
  mapf_workspace_free(ws);
  problems_free(&p);
}

/* The fingerprint of a configuration over every problem of the file. */
static uint64_t fingerprint(mapf_workspace *ws, const problems *p, const char *spec,
                            double *total) {
  uint64_t fp = 0xcbf29ce484222325ull;
  *total = 0;
  for (int32_t k = 0; k < p->s->n; k++) {
    mapf_instance *inst = problem(p, k);
    mapf_result res;
    fp = fnv(fp, run(ws, p->g, inst, spec, CAP, MAPF_EXEC_CHAINS, &res));
    cr_assert_eq(res.status, MAPF_STATUS_OK, "[%s] line %d", spec, p->s->entries[k].line);
    *total += res.agent[0].travel_distance;
    mapf_result_clear(&res);
    mapf_instance_free(inst);
  }
  return fp;
}

/* No parameter is silently ignored: each non-default value changes what some agent does. b is
 * compared under lop = max (under min it cannot matter, below), lop under b = 1. And the
 * reductions the README states: lop is irrelevant when b = 0, b when lop = min. */
Test(rths, every_parameter_changes_behaviour, .timeout = 300) {
  REQUIRE_MAPS(maps);
  problems p = load_lak307d(maps);
  mapf_workspace *ws = mapf_workspace_new();
  static const char *const pairs[][2] = {
      {"", "w=2"},
      {"", "wc=2"},
      {"lop=max", "lop=max,b=1"},
      {"lop=mean", "lop=mean,b=0.5"},
      {"b=1", "b=1,lop=mean"},
      {"b=1", "b=1,lop=median"},
      {"b=1", "b=1,lop=max"},
      {"b=1,lop=mean", "b=1,lop=median"},
      {"b=1,lop=median", "b=1,lop=max"},
      {"", "da=true"},
      {"", "expendable=true"},
  };
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    double d0, d1;
    uint64_t a = fingerprint(ws, &p, pairs[k][0], &d0);
    uint64_t b = fingerprint(ws, &p, pairs[k][1], &d1);
    cr_assert_neq(a, b, "[%s] and [%s] behave alike on all 216 problems", pairs[k][0],
                  pairs[k][1]);
    cr_assert(fabs(d0 - d1) > 1e-6, "[%s] and [%s] travel the same total %.4f", pairs[k][0],
              pairs[k][1], d0);
  }
  static const char *const same[][2] = {
      {"", "lop=max"}, {"", "lop=median,b=0"}, {"", "b=0.5"}, {"", "b=1,lop=min"}};
  for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
    double d0, d1;
    cr_assert_eq(fingerprint(ws, &p, same[k][0], &d0), fingerprint(ws, &p, same[k][1], &d1),
                 "[%s] and [%s] should both be LRTA*", same[k][0], same[k][1]);
  }
  mapf_workspace_free(ws);
  problems_free(&p);
}

Test(rths, runs_are_deterministic, .timeout = 120) {
  REQUIRE_MAPS(maps);
  problems p = load_lak307d(maps);
  mapf_workspace *ws = mapf_workspace_new();
  const char *spec = "w=3,wc=2,b=0.5,lop=median,da=true,expendable=true";
  double d0, d1;
  uint64_t a = fingerprint(ws, &p, spec, &d0);
  mapf_workspace *ws2 = mapf_workspace_new(); /* a fresh workspace: no state carried over */
  uint64_t b = fingerprint(ws2, &p, spec, &d1);
  cr_assert_eq(a, b);
  cr_assert_eq(memcmp(&d0, &d1, sizeof d0), 0);
  mapf_workspace_free(ws2);
  mapf_workspace_free(ws);
  problems_free(&p);
}

/* ---- hand-made and generated maps ---------------------------------------------------------- */

/* On an open map the octile distance is the true distance, so every configuration moves along
 * an optimal path: line 10 picks by c + h, unweighted, and learning only raises cells behind
 * the agent. A weight in line 10 (wc = 10 would prefer straight moves) would fail this. */
Test(rths, paths_on_an_open_map_are_optimal_for_every_configuration) {
  mapf_grid *g = test_open_grid(24, 17, "open");
  mapf_workspace *ws = mapf_workspace_new();
  mapf_rng r;
  mapf_rng_seed(&r, 11);
  for (int k = 0; k < 40; k++) {
    int32_t s = (int32_t)mapf_rng_below(&r, (uint64_t)g->ncells);
    int32_t t = (int32_t)mapf_rng_below(&r, (uint64_t)g->ncells);
    if (s == t) continue;
    mapf_instance *inst = mapf_instance_new(1);
    inst->start[0] = s;
    inst->goal[0] = t;
    for (size_t c = 0; c < sizeof space / sizeof space[0]; c++) {
      mapf_result res;
      run(ws, g, inst, space[c], 1000, MAPF_EXEC_CHAINS, &res);
      cr_assert_eq(res.status, MAPF_STATUS_OK);
      cr_assert_float_eq(res.agent[0].travel_distance, mapf_octile(g, s, t), 1e-9, "[%s]",
                         space[c]);
      mapf_result_clear(&res);
    }
    mapf_instance_free(inst);
  }
  mapf_workspace_free(ws);
  mapf_grid_free(g);
}

/* A depression: the goal is behind a wall, straight ahead. LRTA* walks into the pocket, learns
 * its way out and around. With expendable, the cells of the pocket it learned on are pruned
 * (a pocket cell's neighbours stay connected without it), but not the one-cell corridor that
 * leads around the wall, which would cut the agent off: it arrives either way. */
Test(rths, expendable_pruning_never_cuts_the_way_to_the_goal) {
  const char *rows[] = {
      "...........",
      ".@@@@.@@@@.",
      ".@.......@.",
      ".@.......@.",
      ".@.......@.",
      ".@@@@@@@@@.",
      "...........",
  };
  mapf_grid *g = test_grid_from_rows(rows, 7);
  mapf_workspace *ws = mapf_workspace_new();
  /* From inside the pocket to below it: out through the gap at the top, around the wall. */
  mapf_instance *inst = test_instance_of(g, 1, (const int[]){5, 4, 5, 6});
  mapf_result plain, pruned;
  run(ws, g, inst, "", 10000, MAPF_EXEC_CHAINS, &plain);
  cr_assert_eq(plain.status, MAPF_STATUS_OK);
  for (size_t c = 0; c < sizeof space / sizeof space[0]; c++) {
    if (!strstr(space[c], "expendable")) continue;
    run(ws, g, inst, space[c], 10000, MAPF_EXEC_CHAINS, &pruned);
    cr_assert_eq(pruned.status, MAPF_STATUS_OK, "[%s] never arrived", space[c]);
    mapf_result_clear(&pruned);
  }
  run(ws, g, inst, "expendable=true", 10000, MAPF_EXEC_CHAINS, &pruned);
  cr_assert_eq(pruned.status, MAPF_STATUS_OK);
  cr_assert_lt(pruned.agent[0].travel_distance, plain.agent[0].travel_distance,
               "pruning the pocket shortens the scrubbing");
  mapf_result_clear(&plain);
  mapf_result_clear(&pruned);
  mapf_instance_free(inst);
  mapf_workspace_free(ws);
  mapf_grid_free(g);
}

/* Mazes of one-cell corridors: most cells are corridor cells, whose two neighbours are not
 * adjacent, so they are never expendable; dead ends are. Every configuration arrives on every
 * problem: with expendable, pruning never cuts the way; with w = 10, b = 1 and lop = max, h
 * grows tenfold per step along the agent's way (the max takes the cell it came from) and
 * reaches +inf after about 300 steps, where ties among infinite neighbours are broken toward
 * the least recently visited (core/rths.c); broken by direction alone, agents would pace
 * between two such cells for ever. */
Test(rths, every_configuration_arrives_in_mazes, .timeout = 300) {
  mapf_workspace *ws = mapf_workspace_new();
  for (uint64_t seed = 1; seed <= 3; seed++) {
    mapf_grid *g = test_mapgen(MAPF_MAPGEN_MAZE, 41, 41, 0.2, 1, seed);
    mapf_instance *all = test_random_instance(g, 30, seed);
    for (int32_t a = 0; a < all->n; a++) {
      mapf_instance *inst = mapf_instance_new(1);
      inst->start[0] = all->start[a];
      inst->goal[0] = all->goal[a];
      for (size_t c = 0; c < sizeof space / sizeof space[0]; c++) {
        mapf_result res;
        run(ws, g, inst, space[c], CAP, MAPF_EXEC_CHAINS, &res);
        cr_assert_eq(res.status, MAPF_STATUS_OK, "[%s] %s agent %d never arrived", space[c],
                     g->name, a);
        mapf_result_clear(&res);
      }
      mapf_instance_free(inst);
    }
    mapf_instance_free(all);
    mapf_grid_free(g);
  }
  mapf_workspace_free(ws);
}

/* The step cap ends a run that has not arrived: a limit, not an error. */
Test(rths, the_step_limit_ends_a_long_run) {
  const char *rows[] = {".........."};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  mapf_instance *inst = test_instance_of(g, 1, (const int[]){0, 0, 9, 0});
  mapf_workspace *ws = mapf_workspace_new();
  mapf_result res;
  run(ws, g, inst, "", 4, MAPF_EXEC_CHAINS, &res);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.limit, MAPF_LIMIT_STEPS);
  cr_assert_eq(res.steps, 4);
  cr_assert_float_eq(res.agent[0].travel_distance, 4, 1e-12);
  cr_assert_eq(res.completed, 0);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_workspace_free(ws);
  mapf_grid_free(g);
}

/* Many agents: each runs Algorithm 1 alone and other agents are not obstacles to its planning;
 * the executor makes a move into an occupied cell fail. Every step of every configuration,
 * under both execution rules, is legal; two runs agree; agents get home, though fewer than
 * with a MAPF algorithm (about 0.4 here): two agents that want each other's cells, or one that
 * wants a cell where another has arrived, wait for ever (README, rths). */
Test(rths, many_agents_move_legally_and_deterministically, .timeout = 300) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 48, 48, 0.15, 1, 4);
  mapf_instance *inst = test_random_instance(g, 80, 9);
  mapf_workspace *ws = mapf_workspace_new();
  for (size_t c = 0; c < sizeof space / sizeof space[0]; c++) {
    for (int e = 0; e < 2; e++) {
      mapf_execution exec = e ? MAPF_EXEC_SINGLE_PASS : MAPF_EXEC_CHAINS;
      mapf_result a, b;
      uint64_t fa = run(ws, g, inst, space[c], 2000, exec, &a);
      uint64_t fb = run(ws, g, inst, space[c], 2000, exec, &b);
      cr_assert_eq(fa, fb, "[%s] two runs differ", space[c]);
      test_assert_same_run(&a, &b, space[c]);
      cr_assert_gt(a.completion_rate, 0.25, "[%s] completion %.2f", space[c], a.completion_rate);
      cr_assert_eq(a.pushes, 0, "rths never pushes");
      mapf_result_clear(&a);
      mapf_result_clear(&b);
    }
  }
  mapf_workspace_free(ws);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}
