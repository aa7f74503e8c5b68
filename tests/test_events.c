/* test_events.c: re-tasking events and lifelong goals in the core (core/events.c, core/sim.c,
 * every planner's retarget rule; docs/choices.md, Events): the generator's rules, the checks of
 * mapf_instance_check, every algorithm's runs under events watched step by step, and lifelong
 * runs whose task sequences do not depend on the algorithm. */
#include <criterion/criterion.h>
#include <math.h>

#include "algo.h"
#include "events.h"
#include "mapgen.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

TestSuite(events, .timeout = 300);

/* ---- the generator ---------------------------------------------------------------------- */

/* Events come in step order at every, 2 every, ...; each round re-tasks round(f n) distinct
 * agents in agent order; every new goal is a usable cell of the agent's component and no
 * other agent's goal at that moment; the same seed gives the same events, another seed others;
 * and the instance passes mapf_instance_check. */
Test(events, the_retask_generator_keeps_goals_distinct_and_reachable) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_ROOMS, 40, 40, 0, 1, 3);
  mapf_instance *inst = test_random_instance(g, 60, 7), *again = test_random_instance(g, 60, 7);
  mapf_diag d = {0};
  cr_assert_eq(mapf_retask_generate(g, inst, 25, 0.1, 4, 99, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(mapf_retask_generate(g, again, 25, 0.1, 4, 99, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(inst->nretask, 4 * 6);
  cr_assert_eq(memcmp(inst->retask, again->retask, (size_t)inst->nretask * sizeof *inst->retask),
               0, "the same seed, the same events");
  int32_t *goal = malloc(60 * sizeof *goal);
  memcpy(goal, inst->goal, 60 * sizeof *goal);
  for (int32_t k = 0; k < inst->nretask; k++) {
    const mapf_retask *e = &inst->retask[k];
    cr_assert_eq(e->step, 25 * (k / 6 + 1), "event %d", k);
    if (k % 6) cr_assert_lt(inst->retask[k - 1].agent, e->agent, "agents in order in a round");
    cr_assert_eq(g->component[e->cell], g->component[inst->start[e->agent]]);
    goal[e->agent] = e->cell;
    for (int32_t b = 0; b < 60; b++)
      cr_assert(b == e->agent || goal[b] != e->cell, "event %d: agent %d's goal taken", k, b);
  }
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(mapf_retask_generate(g, again, 25, 0.1, 4, 100, &d), MAPF_OK);
  cr_assert_neq(memcmp(inst->retask, again->retask, (size_t)inst->nretask * sizeof *inst->retask),
                0, "another seed, other events");
  cr_assert_eq(mapf_retask_generate(g, again, 0, 0.1, 4, 1, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_retask_generate(g, again, 5, 0, 4, 1, &d), MAPF_EINVAL);
  free(goal);
  mapf_instance_free(inst);
  mapf_instance_free(again);
  mapf_grid_free(g);
}

/* A component whose every usable cell is some agent's goal has none to give: an error, not a
 * hang. */
Test(events, a_full_component_has_no_new_goal_to_give) {
  const char *rows[] = {"...."};
  mapf_grid *g = test_grid_from_rows(rows, 1);
  int xy[] = {0, 0, 2, 0, 1, 0, 3, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  mapf_diag d = {0};
  cr_assert_eq(mapf_retask_generate(g, inst, 3, 1, 1, 5, &d), MAPF_OK, "%s", d.msg);
  int xy4[] = {0, 0, 0, 0, 1, 0, 1, 0, 2, 0, 2, 0, 3, 0, 3, 0};
  mapf_instance *full = test_instance_of(g, 4, xy4);
  cr_assert_eq(mapf_retask_generate(g, full, 3, 0.25, 1, 5, &d), MAPF_ENOSPACE);
  cr_assert(strstr(d.msg, "no cell that is not another agent's goal") != NULL, "%s", d.msg);
  mapf_instance_free(inst);
  mapf_instance_free(full);
  mapf_grid_free(g);
}

/* ---- the checks --------------------------------------------------------------------------- */

static void expect_refused(const mapf_grid *g, mapf_instance *inst, mapf_retask e,
                           const char *want) {
  mapf_retask *ev = malloc(sizeof *ev);
  *ev = e;
  free(inst->retask);
  inst->retask = ev;
  inst->nretask = 1;
  mapf_diag d = {0};
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL, "%s", want);
  cr_assert(strstr(d.msg, want) != NULL, "got \"%s\", wanted \"%s\"", d.msg, want);
}

Test(events, an_event_on_a_blocked_cell_an_unknown_agent_or_a_taken_goal_is_refused) {
  const char *rows[] = {"..@..", "..@..", "....."};
  mapf_grid *g = test_grid_from_rows(rows, 3);
  int xy[] = {0, 0, 1, 0, 4, 0, 3, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  expect_refused(g, inst, (mapf_retask){3, 0, mapf_grid_id(g, 2, 0)},
                 "event 0: agent 0's new goal is a blocked cell");
  expect_refused(g, inst, (mapf_retask){3, 2, mapf_grid_id(g, 0, 2)}, "event 0: no agent 2");
  expect_refused(g, inst, (mapf_retask){0, 0, mapf_grid_id(g, 0, 2)},
                 "events come in order of step, from step 1");
  expect_refused(g, inst, (mapf_retask){3, 0, mapf_grid_id(g, 3, 0)},
                 "event 0: agent 0's new goal (3,0) is agent 1's goal at step 3");
  inst->lifelong = 1;
  expect_refused(g, inst, (mapf_retask){3, 0, mapf_grid_id(g, 0, 2)},
                 "lifelong goals are for one-way problems without events");
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- runs ---------------------------------------------------------------------------------- */

/* The step at which each agent's target last changed, and to what (mapf_run_config.on_goal),
 * beside the step checker. */
typedef struct watch {
  test_step_checker check;
  int32_t n;
  int32_t *goal;
  int64_t *changed;
  int64_t changes;
} watch;

static void watch_step(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  test_step_check(&((watch *)ud)->check, t, pos, n);
}

static void watch_goal(void *ud, int64_t t, int32_t a, int32_t cell) {
  watch *w = ud;
  w->goal[a] = cell;
  w->changed[a] = t;
  w->changes++;
}

static void run_watched(mapf_run_config *cfg, watch *w, mapf_result *res, const char *label) {
  int32_t n = cfg->inst->n;
  memset(w, 0, sizeof *w);
  w->check.g = cfg->grid;
  w->n = n;
  w->goal = malloc((size_t)n * sizeof *w->goal);
  w->changed = calloc((size_t)n, sizeof *w->changed);
  memcpy(w->goal, cfg->inst->goal, (size_t)n * sizeof *w->goal);
  cfg->on_step = watch_step;
  cfg->on_goal = watch_goal;
  cfg->ud = w;
  test_run(cfg, res);
  test_check_steps(&w->check, res, label);
}

static void watch_free(watch *w) {
  test_step_checker_free(&w->check);
  free(w->goal);
  free(w->changed);
}

/* Every algorithm of the registry under re-tasking on a rooms map: every step legal; the
 * events all applied (retasks, one target change each, seen by a trace); each agent's goal in
 * its row is the last one it was given and it has reached it exactly when it stands there; the
 * algorithms that finish such problems reach every new goal; the search per event and the
 * frame after an event are measured. */
Test(events, every_algorithm_follows_its_new_goals_legally) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_ROOMS, 40, 40, 0, 1, 2);
  mapf_instance *inst = test_random_instance(g, 30, 3);
  mapf_diag d = {0};
  cr_assert_eq(mapf_retask_generate(g, inst, 20, 0.2, 3, 11, &d), MAPF_OK, "%s", d.msg);
  int32_t *last = malloc(30 * sizeof *last);
  memcpy(last, inst->goal, 30 * sizeof *last);
  for (int32_t k = 0; k < inst->nretask; k++) last[inst->retask[k].agent] = inst->retask[k].cell;
  for (int32_t i = 0; i < mapf_algo_count(); i++) {
    const mapf_algo_def *def = mapf_algo_at(i);
    /* A program's plan is made before the run: external refuses events (test_external.c). */
    if (def->program) continue;
    mapf_run_config cfg = test_run_config(g, inst, def->name);
    cfg.limits.steps = 3000;
    cfg.seed = 5;
    watch w;
    mapf_result res;
    run_watched(&cfg, &w, &res, def->name);
    cr_assert_eq(res.retasks, inst->nretask, "%s", def->name);
    cr_assert_eq(w.changes, inst->nretask, "%s: every event told the trace", def->name);
    cr_assert(isfinite(res.mean_retask_expansions), "%s", def->name);
    cr_assert(isfinite(res.max_event_step_seconds), "%s", def->name);
    cr_assert(isnan(res.throughput), "%s", def->name);
    cr_assert_eq(res.soc_lb, -1, "%s: no bound for goals that change", def->name);
    for (int32_t a = 0; a < 30; a++) {
      const mapf_agent_result *ar = &res.agent[a];
      cr_assert_eq(ar->goal, last[a], "%s: agent %d's goal is its last one", def->name, a);
      cr_assert_eq(w.goal[a], last[a], "%s: agent %d", def->name, a);
      cr_assert_eq(ar->reached, ar->final == last[a], "%s: agent %d", def->name, a);
      if (ar->reached)
        cr_assert_geq(ar->completion_step, w.changed[a], "%s: agent %d reached its last goal "
                      "before it was given", def->name, a);
    }
    /* The planners that finish one-way problems here finish these too. */
    if (strcmp(def->name, "rths") != 0 && strcmp(def->name, "dm") != 0)
      cr_assert_eq(res.status, MAPF_STATUS_OK, "%s: %d of 30 on their last goals", def->name,
                   (int)res.completed);
    mapf_result_clear(&res);
    watch_free(&w);
  }
  free(last);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* One agent on an open map heading east is sent west at step 4. No planner takes it to the old
 * goal first: it arrives at the new one within k (FAR's reservations, at most 3) plus the
 * distance from where the event found it, plus a step of slack. */
Test(events, a_retasked_agent_turns_to_its_new_goal_at_once) {
  mapf_grid *g = test_open_grid(40, 5, "open");
  int xy[] = {20, 2, 39, 2};
  for (int32_t i = 0; i < mapf_algo_count(); i++) {
    const mapf_algo_def *def = mapf_algo_at(i);
    if (def->program) continue; /* external refuses events (test_external.c) */
    mapf_instance *inst = test_instance_of(g, 1, xy);
    inst->retask = malloc(sizeof *inst->retask);
    inst->retask[0] = (mapf_retask){4, 0, mapf_grid_id(g, 0, 2)};
    inst->nretask = 1;
    mapf_run_config cfg = test_run_config(g, inst, def->name);
    cfg.limits.steps = 200;
    watch w;
    mapf_result res;
    run_watched(&cfg, &w, &res, def->name);
    cr_assert_eq(res.status, MAPF_STATUS_OK, "%s", def->name);
    /* By step 4 it went at most 4 cells east of x = 20. */
    cr_assert_leq(res.agent[0].completion_step, 4 + 24 + 3 + 1, "%s: arrived at step %lld",
                  def->name, (long long)res.agent[0].completion_step);
    mapf_result_clear(&res);
    watch_free(&w);
    mapf_instance_free(inst);
  }
  mapf_grid_free(g);
}

/* BMAA* keeps the h-values of its last two targets: values learned toward one target say
 * nothing of distances to a third. Sent east (learning on the cells east of its start), then to
 * the far end of the lower row, then west to (0, 0) across those cells, it walks straight there,
 * as an agent that never learned anything would (with the first target's table in use it
 * bounced off the learned cells for 70 steps more). */
Test(events, bmaa_starts_afresh_toward_a_third_target) {
  const char *rows[] = {"..............................", ".@@@@@@@@@@@@@@@@@@@@@@@@@@@@.",
                        ".............................."};
  mapf_grid *g = test_grid_from_rows(rows, 3);
  int xy[] = {5, 0, 29, 0};
  mapf_instance *inst = test_instance_of(g, 1, xy);
  inst->retask = malloc(2 * sizeof *inst->retask);
  inst->retask[0] = (mapf_retask){5, 0, mapf_grid_id(g, 29, 2)};
  inst->retask[1] = (mapf_retask){7, 0, mapf_grid_id(g, 0, 0)};
  inst->nretask = 2;
  mapf_run_config cfg = test_run_config(g, inst, "bmaa");
  test_set_param(cfg.algo, &cfg.params, "expansions", 2);
  cfg.limits.steps = 300;
  watch w;
  mapf_result res;
  run_watched(&cfg, &w, &res, "bmaa");
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  /* At step 7 it stands at most 7 cells east of x = 5: 12 moves from (0, 0). */
  cr_assert_leq(res.agent[0].completion_step, 7 + 12, "arrived at step %lld",
                (long long)res.agent[0].completion_step);
  mapf_result_clear(&res);
  watch_free(&w);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Lifelong goals: the run goes to the step limit; an agent on its goal gets its next task at
 * once, tasks finished are counted per agent and in all, throughput is their rate; and the
 * tasks are the instance's: two algorithms see the same sequence of goals per agent (one's a
 * prefix of the other's). */
typedef struct tasks {
  int32_t n;
  int32_t *seq[12];
  int32_t len[12];
} tasks;

static void note_task(void *ud, int64_t t, int32_t a, int32_t cell) {
  (void)t;
  tasks *s = ud;
  s->seq[a][s->len[a]++] = cell;
}

Test(events, lifelong_runs_count_tasks_and_every_algorithm_gets_the_same_ones) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 32, 32, 0.15, 1, 4);
  mapf_instance *inst = test_random_instance(g, 12, 9);
  inst->lifelong = 1;
  inst->task_seed = 77;
  const char *algos[] = {"bmaa", "pibt", "far", "whca"};
  tasks s[4];
  for (int k = 0; k < 4; k++) {
    memset(&s[k], 0, sizeof s[k]);
    for (int a = 0; a < 12; a++) s[k].seq[a] = malloc(4000 * sizeof(int32_t));
    mapf_run_config cfg = test_run_config(g, inst, algos[k]);
    cfg.limits.steps = 400;
    cfg.on_goal = note_task;
    cfg.ud = &s[k];
    mapf_result res;
    test_run(&cfg, &res);
    cr_assert_eq(res.status, MAPF_STATUS_LIMIT, "%s", algos[k]);
    cr_assert_eq(res.steps, 400);
    int64_t sum = 0;
    for (int a = 0; a < 12; a++) {
      sum += res.agent[a].tasks_done;
      cr_assert_eq(res.agent[a].tasks_done, s[k].len[a], "%s: agent %d", algos[k], a);
      cr_assert_eq(res.agent[a].goal, s[k].len[a] ? s[k].seq[a][s[k].len[a] - 1] : inst->goal[a]);
    }
    cr_assert_eq(res.tasks_done, sum, "%s", algos[k]);
    cr_assert_gt(res.tasks_done, 12, "%s: %lld tasks", algos[k], (long long)res.tasks_done);
    cr_assert_float_eq(res.throughput, (double)sum / 400, 1e-12);
    mapf_result_clear(&res);
  }
  for (int k = 1; k < 4; k++)
    for (int a = 0; a < 12; a++) {
      int32_t m = s[k].len[a] < s[0].len[a] ? s[k].len[a] : s[0].len[a];
      for (int32_t j = 0; j < m; j++)
        cr_assert_eq(s[k].seq[a][j], s[0].seq[a][j], "%s, agent %d, task %d", algos[k], a, j);
    }
  for (int k = 0; k < 4; k++)
    for (int a = 0; a < 12; a++) free(s[k].seq[a]);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}
