/* test_paper_maps.c: every algorithm of the registry, and BMAA*'s paper variants, runs legally
 * on each of the ten maps of Sigurdson et al. 2018's study (configs/bmaa-paper.yaml): every step of
 * every run is checked by an independent watcher (tests/testutil.h: no shared cell, only legal
 * moves, no swaps), and each run's metrics agree with the positions the watcher saw. */
#include <criterion/criterion.h>

#include "algo.h"
#include "grid.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

static const char *const paper_maps[] = {
    "bg/AR0414SR.map",          "bg512/AR0414SR.map",     "bg512/AR0504SR.map",
    "bg512/AR0701SR.map",       "wc3-512/blastedlands.map", "wc3-512/duskwood.map",
    "wc3-512/golemsinthemist.map", "dao/lak304d.map",      "dao/lak307d.map",
    "dao/lgt300d.map",
};

/* The paper's six algorithms plus WHCA* and RTHS (LRTA*, and with its two pruning options):
 * name and parameter overrides (NAME=VALUE, ...). */
typedef struct variant {
  const char *label, *algo;
  const char *param[2];
  double value[2];
} variant;

static const variant variants[] = {
    {"A*-Replan", "astar-replan", {NULL, NULL}, {0, 0}},
    {"BMAA*", "bmaa", {NULL, NULL}, {0, 0}},
    {"BMAA*-c", "bmaa", {"flow", NULL}, {1, 0}},
    {"BMAA*-f", "bmaa", {"push", NULL}, {1, 0}},
    {"BMAA*-f-c", "bmaa", {"push", "flow"}, {1, 1}},
    {"FAR", "far", {NULL, NULL}, {0, 0}},
    {"WHCA*", "whca", {NULL, NULL}, {0, 0}},
    {"RTHS", "rths", {NULL, NULL}, {0, 0}},
    {"RTHS da expendable", "rths", {"da", "expendable"}, {1, 1}},
};

Test(paper_maps, every_algorithm_moves_legally_on_the_ten_maps, .timeout = 900) {
  REQUIRE_MAPS(maps);
  /* 150 agents for 300 steps: enough traffic for queues, waits, pushes and deadlocks on the
   * small maps, short enough for the sanitizer build. */
  const int32_t agents = 150;
  mapf_workspace *ws = mapf_workspace_new();
  cr_assert_not_null(ws);
  for (size_t m = 0; m < sizeof paper_maps / sizeof paper_maps[0]; m++) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", maps, paper_maps[m]);
    mapf_grid *g = NULL;
    mapf_diag d = {0};
    cr_assert_eq(mapf_grid_load(path, &g, &d), MAPF_OK, "%s: %s", path, d.msg);
    mapf_instance *inst = NULL;
    cr_assert_eq(mapf_scengen_random(g, agents, 1000 + m, &inst, &d), MAPF_OK, "%s", d.msg);
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
      const variant *var = &variants[v];
      const mapf_algo_def *def = mapf_algo_find(var->algo);
      cr_assert_not_null(def, "%s", var->algo);
      mapf_run_config cfg = {0};
      cfg.grid = g;
      cfg.inst = inst;
      cfg.algo = def;
      mapf_params_default(def, &cfg.params);
      for (int k = 0; k < 2 && var->param[k]; k++)
        cfg.params.v[mapf_param_index(def, var->param[k])] = var->value[k];
      cfg.limits.steps = 300;
      cfg.seed = 7;
      test_step_checker w = {g, NULL, NULL, 0, 0};
      cfg.on_step = test_step_check;
      cfg.ud = &w;
      mapf_result res;
      cr_assert_eq(mapf_run(ws, &cfg, &res, &d), MAPF_OK, "%s on %s: %s", var->label,
                   paper_maps[m], d.msg);
      cr_expect_eq(w.violations, 0, "%s on %s: %lld illegal moves, shared cells or swaps",
                   var->label, paper_maps[m], (long long)w.violations);
      cr_expect_eq(w.steps, res.steps, "%s on %s", var->label, paper_maps[m]);
      int32_t reached = 0;
      for (int32_t a = 0; a < agents; a++) {
        cr_expect_eq(res.agent[a].final, w.prev[a], "%s on %s: agent %d", var->label,
                     paper_maps[m], (int)a);
        reached += w.prev[a] == inst->goal[a];
      }
      cr_expect_eq(res.completed, reached, "%s on %s", var->label, paper_maps[m]);
      /* A planner that only waits would pass the watcher: every algorithm gets agents home
       * (in 300 steps, from 16% for RTHS and 17% for BMAA*-c on AR0701SR, whose paths are
       * longer, to all of them on lak307d). */
      cr_expect_gt(res.completion_rate, 0.1, "%s on %s: completion %.2f", var->label,
                   paper_maps[m], res.completion_rate);
      mapf_result_clear(&res);
      test_step_checker_free(&w);
    }
    mapf_instance_free(inst);
    mapf_grid_free(g);
  }
  mapf_workspace_free(ws);
}
