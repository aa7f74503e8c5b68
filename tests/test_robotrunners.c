/* test_robotrunners.c: League of Robot Runners 2023 problems (core/robotrunners.c), their task
 * lists in lifelong runs (core/events.c, core/sim.c; docs/robot-runners.md) and `mapfarm solve
 * --robot-runners`: the files of tests/data/robotrunners/ read and run, the assignment rules
 * followed on a hand-worked case, every bad input named at its file, line and column with exit
 * status 2, and runs that repeat exactly. */
#include <criterion/criterion.h>

#include "algo.h"
#include "events.h"
#include "robotrunners.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

#ifndef MAPFARM_BINARY
#error "MAPFARM_BINARY must name the mapfarm executable"
#endif

#define DATA MAPFARM_SOURCE_DIR "/tests/data/robotrunners"

TEST_TMPDIR("robotrunners");
TestSuite(robotrunners, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 300);

#define mapfarm(out, err, ...) test_mapfarm(tmpdir, NULL, out, err, __VA_ARGS__)

static void load(const char *path, mapf_rr_problem *p) {
  mapf_diag d = {0};
  char msg[1400];
  int rc = mapf_rr_load(path, p, &d);
  mapf_diag_format(&d, msg, sizeof msg);
  cr_assert_eq(rc, MAPF_OK, "%s", msg);
}

/* A run watched step by step (legal moves) that also logs every new goal. */
#define MAX_GOALS 1024
typedef struct watch {
  test_step_checker steps;
  int n;
  int64_t t[MAX_GOALS];
  int32_t agent[MAX_GOALS], cell[MAX_GOALS];
} watch;

static void watch_step(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  test_step_check(&((watch *)ud)->steps, t, pos, n);
}

static void watch_goal(void *ud, int64_t t, int32_t a, int32_t cell) {
  watch *w = ud;
  cr_assert_lt(w->n, MAX_GOALS);
  w->t[w->n] = t;
  w->agent[w->n] = a;
  w->cell[w->n++] = cell;
}

static void run_watched(const mapf_grid *g, const mapf_instance *inst, const char *algo,
                        int64_t steps, mapf_result *res, watch *w) {
  memset(w, 0, sizeof *w);
  w->steps.g = g;
  mapf_run_config cfg = test_run_config(g, inst, algo);
  cfg.limits.steps = steps;
  cfg.on_step = watch_step;
  cfg.on_goal = watch_goal;
  cfg.ud = w;
  test_run(&cfg, res);
  test_check_steps(&w->steps, res, algo);
  test_step_checker_free(&w->steps);
}

/* ---- reading --------------------------------------------------------------------------- */

/* lanes.map: three lanes of 8 cells (rows 0, 2 and 4) joined by column 0, `E` and `S` free,
 * `@` and `T` obstacles; the agents at locations 1, 17 and 33; ten tasks; paths relative to the
 * JSON file. */
Test(robotrunners, a_problem_reads_into_a_4_connected_map_and_a_lifelong_task_list) {
  mapf_rr_problem p;
  load(DATA "/lanes_greedy.json", &p);
  const mapf_grid *g = p.grid;
  const mapf_instance *inst = p.inst;
  cr_assert_eq(g->width, 8);
  cr_assert_eq(g->height, 5);
  cr_assert_eq(g->connectivity, 4);
  cr_assert_str_eq(g->name, "lanes.map");
  cr_assert_str_eq(p.map_path, DATA "/maps/lanes.map");
  cr_assert(g->passable[2] && g->passable[7], "E and S are free");
  cr_assert(!g->passable[9] && !g->passable[11], "@ and T are obstacles");
  cr_assert_eq(g->npassable, 3 * 8 + 2);
  cr_assert_eq(inst->n, 3);
  cr_assert_eq(inst->lifelong, 1);
  cr_assert_eq(inst->task_rule, MAPF_TASKS_GREEDY);
  const int32_t start[3] = {1, 17, 33}, task[10] = {3, 23, 36, 7, 32, 0, 16, 39, 2, 20};
  for (int a = 0; a < 3; a++) {
    cr_assert_eq(inst->start[a], start[a], "agent %d", a);
    cr_assert_eq(inst->goal[a], task[a], "agent %d: its first task", a);
  }
  cr_assert_eq(inst->ntask, 10);
  for (int i = 0; i < 10; i++) cr_assert_eq(inst->task[i], task[i], "task %d", i);
  mapf_rr_free(&p);
  cr_assert_null(p.grid);
  load(DATA "/lanes_roundrobin_fixed.json", &p);
  cr_assert_eq(p.inst->task_rule, MAPF_TASKS_ROUNDROBIN_FIXED);
  mapf_rr_free(&p);
}

/* ---- the assignment rules --------------------------------------------------------------- */

/* Greedy, worked by hand: each agent keeps to its lane, so every algorithm moves it straight.
 * Agent 0 reaches task 0 (cell 3) at step 2 and takes task 3 (cell 7); agent 2 reaches task 2
 * at step 3 and takes task 4 (32); at step 6 agents 0 and 1 finish together and take tasks 5
 * and 6 in agent order; agent 2 takes task 7 at step 7; agents 0 and 1 take tasks 8 and 9 at
 * step 13. Then the list is empty: agent 2 stays at step 14, agent 0 at 15, agent 1 at 17, and
 * the run ends there with all ten tasks done (4, 3 and 3). */
Test(robotrunners, greedy_deals_the_next_untaken_task_to_the_first_agent_done) {
  mapf_rr_problem p;
  load(DATA "/lanes_greedy.json", &p);
  static const int64_t t[7] = {2, 3, 6, 6, 7, 13, 13};
  static const int32_t agent[7] = {0, 2, 0, 1, 2, 0, 1}, cell[7] = {7, 32, 0, 16, 39, 2, 20};
  const char *algos[] = {"pibt", "lacam", "bmaa", "far", "astar-replan", "whca", "dm", "rths"};
  for (size_t k = 0; k < sizeof algos / sizeof *algos; k++) {
    mapf_result res;
    watch w;
    run_watched(p.grid, p.inst, algos[k], 100, &res, &w);
    cr_assert_eq(w.n, 7, "%s: %d new goals", algos[k], w.n);
    for (int i = 0; i < 7; i++) {
      cr_assert_eq(w.t[i], t[i], "%s: goal change %d", algos[k], i);
      cr_assert_eq(w.agent[i], agent[i], "%s: goal change %d", algos[k], i);
      cr_assert_eq(w.cell[i], cell[i], "%s: goal change %d", algos[k], i);
    }
    cr_assert_eq(res.status, MAPF_STATUS_OK, "%s", algos[k]);
    cr_assert_eq(res.steps, 17, "%s", algos[k]);
    cr_assert_eq(res.tasks_done, 10, "%s", algos[k]);
    cr_assert_eq(res.agent[0].tasks_done, 4, "%s", algos[k]);
    cr_assert_eq(res.agent[1].tasks_done, 3, "%s", algos[k]);
    cr_assert_eq(res.agent[2].tasks_done, 3, "%s", algos[k]);
    cr_assert_float_eq(res.throughput, 10.0 / 17, 1e-12, "%s", algos[k]);
    const int32_t rest[3] = {2, 20, 39};
    for (int a = 0; a < 3; a++)
      cr_assert_eq(res.agent[a].final, rest[a], "%s: agent %d", algos[k], a);
    mapf_result_clear(&res);
  }
  mapf_rr_free(&p);
}

/* Round robin: agent a's j-th goal (j from 0, its first task j = 0) is task (3 j + a) mod 10,
 * whoever finishes first; roundrobin_fixed stops at the list's end (4, 3 and 3 tasks) and the
 * run ends when every agent has done its own. */
Test(robotrunners, round_robin_deals_agent_a_task_k_n_plus_a) {
  const int32_t task[10] = {3, 23, 36, 7, 32, 0, 16, 39, 2, 20};
  for (int fixed = 0; fixed < 2; fixed++) {
    mapf_rr_problem p;
    load(fixed ? DATA "/lanes_roundrobin_fixed.json" : DATA "/lanes_roundrobin.json", &p);
    mapf_result res;
    watch w;
    run_watched(p.grid, p.inst, "pibt", 60, &res, &w);
    int next[3] = {1, 1, 1};
    for (int i = 0; i < w.n; i++) {
      int a = w.agent[i], j = next[a]++;
      cr_assert(!fixed || 3 * j + a < 10, "fixed: agent %d given a task past the list", a);
      cr_assert_eq(w.cell[i], task[(3 * j + a) % 10], "fixed %d: agent %d's goal %d", fixed, a, j);
    }
    int64_t sum = 0;
    for (int a = 0; a < 3; a++) {
      sum += res.agent[a].tasks_done;
      cr_assert_geq(res.agent[a].tasks_done, next[a] - 1, "agent %d", a);
    }
    cr_assert_eq(res.tasks_done, sum);
    if (fixed) {
      cr_assert_eq(res.status, MAPF_STATUS_OK, "every task done before the limit");
      cr_assert_eq(res.tasks_done, 10);
      cr_assert_eq(res.agent[0].tasks_done, 4);
      cr_assert_eq(res.agent[1].tasks_done, 3);
      cr_assert_eq(res.agent[2].tasks_done, 3);
    } else {
      cr_assert_eq(res.status, MAPF_STATUS_LIMIT, "round robin is endless");
      cr_assert_gt(res.tasks_done, 10, "the list wraps round: %lld", (long long)res.tasks_done);
    }
    mapf_result_clear(&res);
    mapf_rr_free(&p);
  }
}

/* A one-row corridor of 10 cells and one agent at cell 0. A task on the cell the agent stands
 * on when it gets it is done at once: the first task on its start at step 0, a repeated task
 * as it arrives; a round robin whose every task is that cell leaves it there. */
Test(robotrunners, a_task_on_the_agents_own_cell_is_done_at_once) {
  mapf_grid *g = test_open_grid(10, 1, "row");
  mapf_instance *inst = mapf_instance_new(1);
  inst->start[0] = 0;
  inst->lifelong = 1;
  inst->task = malloc(4 * sizeof *inst->task);
  const int32_t list[4] = {0, 5, 5, 9};
  memcpy(inst->task, list, sizeof list);
  inst->ntask = 4;
  inst->task_rule = MAPF_TASKS_GREEDY;
  inst->goal[0] = 0;
  mapf_result res;
  watch w;
  run_watched(g, inst, "pibt", 50, &res, &w);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.tasks_done, 4, "%lld", (long long)res.tasks_done);
  cr_assert_eq(res.steps, 9);
  cr_assert_eq(w.n, 1, "one goal change: at step 5, to cell 9 (task 3)");
  cr_assert_eq(w.t[0], 5);
  cr_assert_eq(w.cell[0], 9);
  mapf_result_clear(&res);

  inst->ntask = 1; /* round robin over {0}: the agent's whole turn is its start */
  inst->task_rule = MAPF_TASKS_ROUNDROBIN;
  run_watched(g, inst, "pibt", 50, &res, &w);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.tasks_done, 1);
  cr_assert_eq(res.steps, 0);
  mapf_result_clear(&res);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Fewer tasks than agents: greedy and roundrobin_fixed give the last agents none (they stay on
 * their starts, their goals), round robin shares tasks (two agents with one goal). */
Test(robotrunners, short_lists_leave_agents_idle_or_share_tasks) {
  char json[600];
  snprintf(json, sizeof json, "%s/short.json", tmpdir);
  for (int rule = 0; rule < MAPF_TASK_RULES; rule++) {
    FILE *f = fopen(json, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"mapFile\": \"%s/maps/lanes.map\", \"agentFile\": \"%s/agents/lanes.agents\","
               " \"taskFile\": \"%s/short.tasks\", \"teamSize\": 3,"
               " \"taskAssignmentStrategy\": \"%s\"}\n",
            DATA, DATA, tmpdir, mapf_task_rule_name(rule));
    fclose(f);
    char tasks[600];
    snprintf(tasks, sizeof tasks, "%s/short.tasks", tmpdir);
    f = fopen(tasks, "w");
    fputs("2\n5\n21\n", f);
    fclose(f);
    mapf_rr_problem p;
    load(json, &p);
    const mapf_instance *inst = p.inst;
    cr_assert_eq(inst->goal[0], 5);
    cr_assert_eq(inst->goal[1], 21);
    cr_assert_eq(inst->goal[2], rule == MAPF_TASKS_ROUNDROBIN ? 5 : inst->start[2], "rule %d",
                 rule);
    mapf_result res;
    watch w;
    run_watched(p.grid, inst, "pibt", 40, &res, &w);
    if (rule != MAPF_TASKS_ROUNDROBIN) {
      cr_assert_eq(res.status, MAPF_STATUS_OK, "rule %d", rule);
      cr_assert_eq(res.tasks_done, 2, "rule %d", rule);
      cr_assert_eq(res.agent[2].tasks_done, 0);
      cr_assert_eq(res.agent[2].final, inst->start[2]);
    } else {
      cr_assert_gt(res.tasks_done, 4);
    }
    mapf_result_clear(&res);
    mapf_rr_free(&p);
  }
}

/* mapf_instance_check holds a task list to its rules. */
Test(robotrunners, instance_check_rules_for_task_lists) {
  mapf_grid *g = test_grid_from_rows((const char *const[]){"....", "@@@@", "...."}, 3);
  mapf_instance *inst = mapf_instance_new(2);
  inst->start[0] = 0;
  inst->start[1] = 1;
  inst->goal[0] = inst->goal[1] = 3;
  inst->task = malloc(3 * sizeof *inst->task);
  inst->task[0] = inst->task[1] = 3;
  inst->task[2] = 2;
  inst->ntask = 3;
  inst->task_rule = MAPF_TASKS_GREEDY;
  mapf_diag d = {0};
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "a task list is for lifelong goals");
  inst->lifelong = 1;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_OK, "shared goals are fine: %s", d.msg);
  inst->task[2] = 5;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "task 2: (1,1) is on a blocked cell of map test");
  inst->task[2] = 9;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "task 2 (1,2) is not reachable from agent 0's start (0,0) on map test");
  inst->task[2] = 2;
  inst->goal[1] = 2;
  cr_assert_eq(mapf_instance_check(inst, g, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "agent 1: goal (2,0) is not its first task (3,0)");
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- mapfarm solve --robot-runners ------------------------------------------------------- */

/* solve runs the problem, prints its tasks and throughput beside the usual results and writes a
 * legal trace; without --steps the limit is the start kit's 5000 steps. */
Test(robotrunners, solve_prints_tasks_done_and_writes_a_legal_trace) {
  char trace[600], *out = NULL, *err = NULL;
  snprintf(trace, sizeof trace, "%s/lanes.trace", tmpdir);
  int st = mapfarm(&out, &err, "solve --robot-runners '%s/lanes_greedy.json' --algo bmaa "
                               "--trace '%s'", DATA, trace);
  cr_assert_eq(st, 0, "%s", err);
  cr_assert_not_null(strstr(out, "\ntask_assignment: greedy\n"), "%s", out);
  cr_assert_eq(test_metric(out, "tasks_listed"), 10);
  cr_assert_eq(test_metric(out, "tasks_done"), 10);
  cr_assert_float_eq(test_metric(out, "throughput"), 10.0 / 17, 1e-6);
  cr_assert_eq(test_metric(out, "steps"), 17);
  mapf_rr_problem p;
  load(DATA "/lanes_greedy.json", &p);
  int64_t steps;
  test_check_trace(trace, p.grid, 3, &steps);
  cr_assert_eq(steps, 17);
  char *text = test_slurp_text(trace);
  cr_assert_not_null(strstr(text, "\ngoals=(3,0),(7,2),(4,4),\n"), "%s", text);
  cr_assert_not_null(strstr(text, "\ngoal_change=6:1:(0,2)\n"), "%s", text);
  free(text);
  free(out);
  free(err);
  st = mapfarm(&out, &err, "solve --robot-runners '%s/lanes_roundrobin.json' --algo far", DATA);
  cr_assert_eq(st, 0, "%s", err);
  cr_assert_eq(test_metric(out, "steps"), 5000);
  cr_assert_gt(test_metric(out, "tasks_done"), 100);
  mapf_rr_free(&p);
  free(out);
  free(err);
}

/* Every built-in algorithm takes lifelong tasks; external, which runs a one-shot program once,
 * is refused up front; the map and agents come from the file alone. Exit status 2 each. */
Test(robotrunners, solve_refuses_external_and_instance_options) {
  char *out = NULL, *err = NULL;
  int st = mapfarm(&out, &err, "solve --robot-runners '%s/lanes_greedy.json' --algo external "
                               "--param 'command=[\"true\"]' --seconds 5", DATA);
  cr_assert_eq(st, 2, "%s", err);
  cr_assert_not_null(strstr(err, "mapfarm solve: error: --robot-runners: algorithm external runs "
                                 "a program"), "%s", err);
  free(out);
  free(err);
  st = mapfarm(&out, &err, "solve --robot-runners '%s/lanes_greedy.json' --algo pibt --map x.map",
               DATA);
  cr_assert_eq(st, 2, "%s", err);
  cr_assert_not_null(strstr(err, "--robot-runners FILE gives the map and the agents"), "%s", err);
  free(out);
  free(err);
  st = mapfarm(&out, &err, "solve --robot-runners '%s/lanes_greedy.json' --algo pibt "
                           "--export-scen '%s/x.scen'", DATA, tmpdir);
  cr_assert_eq(st, 2, "%s", err);
  free(out);
  free(err);
}

/* ---- bad input --------------------------------------------------------------------------- */

/* One bad problem: the files (NULL: the good one) and the message expected, "FILE:LINE:COL:
 * error: ..." with FILE relative to the case's directory. */
typedef struct bad_case {
  const char *json, *map, *agents, *tasks, *expect;
} bad_case;

#define GOOD_JSON                                                                            \
  "{\n  \"mapFile\": \"m.map\",\n  \"agentFile\": \"a.agents\",\n  \"taskFile\": \"t.tasks\",\n" \
  "  \"teamSize\": 3,\n  \"numTasksReveal\": 1,\n  \"taskAssignmentStrategy\": \"greedy\"\n}\n"
#define GOOD_MAP                                                                             \
  "type octile\nheight 5\nwidth 8\nmap\n..E....S\n.@@TT@@@\n..E....S\n.@@TT@@@\n..E....S\n"
#define GOOD_AGENTS "3\n1\n17\n33\n"
#define GOOD_TASKS "4\n3\n23\n36\n7\n"

static const bad_case bad_cases[] = {
    {"{\n  \"mapFile\": \"m.map\"\n  \"agentFile\": \"a.agents\"}\n", NULL, NULL, NULL,
     "p.json:3:3: error: expected ',' or '}', found '\"'"},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamsize\": 3}",
     NULL, NULL, NULL, "p.json:1:70: error: unknown key \"teamsize\""},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"teamSize\": 3}", NULL, NULL, NULL,
     "p.json:1:1: error: the problem has no \"taskFile\""},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamSize\": 3, \"teamSize\": 3}",
     NULL, NULL, NULL, "p.json:1:85: error: key \"teamSize\" again (first at line 1)"},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamSize\": 3} x",
     NULL, NULL, NULL, "p.json:1:85: error: expected the end of the file after the object"},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamSize\": 2.5}",
     NULL, NULL, NULL, "p.json:1:82: error: teamSize: expected an integer from 1 to"},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamSize\": \"3\"}",
     NULL, NULL, NULL, "p.json:1:82: error: teamSize: expected a number"},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamSize\": 3, \"version\": \"2024 LoRR\"}",
     NULL, NULL, NULL, "p.json:1:96: error: version 2024 LoRR: mapfarm reads the League of Robot "
                       "Runners 2023 format"},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamSize\": 3, \"numTasksReveal\": 2}",
     NULL, NULL, NULL, "p.json:1:103: error: numTasksReveal: only 1 is modelled"},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamSize\": 3, \"taskAssignmentStrategy\": \"nearest\"}",
     NULL, NULL, NULL, "p.json:1:111: error: taskAssignmentStrategy: expected \"greedy\""},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamSize\": 4}",
     NULL, NULL, NULL, "p.json:1:82: error: teamSize 4, but"},
    {"{\"mapFile\": \"nope.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamSize\": 3}",
     NULL, NULL, NULL, "p.json:1:13: error: mapFile \"nope.map\": "},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"none.tasks\", "
     "\"teamSize\": 3}",
     NULL, NULL, NULL, "p.json:1:59: error: taskFile \"none.tasks\": "},
    {"{\"mapFile\": \"m.map\", \"agentFile\": \"a.agents\", \"taskFile\": \"t.tasks\", "
     "\"teamSize\": 3, \"version\": [1, {\"y\": tru}]}",
     NULL, NULL, NULL, "p.json:1:106: error: expected a value"},
    {"{\"mapFile\": \"m\\u00e9.map\\q\"}", NULL, NULL, NULL,
     "p.json:1:26: error: expected an escape"},
    {GOOD_JSON, "type octile\nheight 5\nwidth 8\nmap\n..E....S\n.@@TT@@@\n..W....S\n.@@TT@@@\n"
                "..E....S\n",
     NULL, NULL, "m.map:7:3: error: map character 'W' is not one of a Robot Runners map's"},
    {GOOD_JSON, "type octile\nheight 5\nwidth 8\nmap\n..E....S\n.@@TT@@@\n..E...S\n",
     NULL, NULL, "m.map:7:8: error: row y=2 has 7 characters, expected 8"},
    {GOOD_JSON, NULL, "3\n1\n40\n33\n", NULL,
     "a.agents:3:1: error: agent 1: location 40 is outside the 8 x 5 map m.map"},
    {GOOD_JSON, NULL, "3\n1\n9\n33\n", NULL,
     "a.agents:3:1: error: agent 1 starts on an obstacle: (row 1, column 1)"},
    {GOOD_JSON, NULL, "3\n1\n17\n1\n", NULL,
     "a.agents:4:1: error: agent 2 starts on agent 0's start (line 2)"},
    {GOOD_JSON, NULL, "# starts\n3\n1\n 17x\n33\n", NULL,
     "a.agents:4:4: error: expected one location alone on the line, found 'x'"},
    {GOOD_JSON, NULL, "three\n1\n17\n33\n", NULL,
     "a.agents:1:1: error: expected the number of agents"},
    {GOOD_JSON, NULL, NULL, "4\n3\n23\n12\n7\n",
     "t.tasks:4:1: error: task 2 is on an obstacle: (row 1, column 4) of map m.map"},
    {GOOD_JSON, NULL, NULL, "4\n3\n23,5\n36\n7\n",
     "t.tasks:3:3: error: task 1 has more than one location"},
    {GOOD_JSON, NULL, NULL, "5\n3\n23\n36\n7\n",
     "t.tasks:1:1: error: this line gives 5 tasks; the file has 4"},
    {GOOD_JSON, NULL, NULL, "3\n3\n23\n36\n7\n",
     "t.tasks:5:1: error: more lines than the 3 tasks that line 1 gives"},
    {GOOD_JSON, NULL, NULL, "0\n", "t.tasks:1:1: error: no tasks"},
    {GOOD_JSON, "type octile\nheight 3\nwidth 8\nmap\n........\n@@@@@@@@\n........\n",
     "3\n1\n2\n3\n",
     "2\n4\n20\n", "t.tasks:3:1: error: task 1 (row 2, column 4) cannot be reached from the start "
                  "of agent 1"},
};

static void write_text(const char *dir, const char *name, const char *text) {
  char path[800];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  cr_assert_eq(fclose(f), 0);
}

/* Each bad problem: `mapfarm solve --robot-runners` exits 2 with FILE:LINE:COL: error: and the
 * reason, and mapf_rr_load returns the same place. */
Test(robotrunners, every_bad_input_is_named_at_its_line_and_column) {
  for (size_t k = 0; k < sizeof bad_cases / sizeof *bad_cases; k++) {
    const bad_case *c = &bad_cases[k];
    char dir[600];
    snprintf(dir, sizeof dir, "%s/bad%zu", tmpdir, k);
    cr_assert_eq(mkdir(dir, 0755), 0);
    write_text(dir, "p.json", c->json);
    write_text(dir, "m.map", c->map ? c->map : GOOD_MAP);
    write_text(dir, "a.agents", c->agents ? c->agents : GOOD_AGENTS);
    write_text(dir, "t.tasks", c->tasks ? c->tasks : GOOD_TASKS);
    char *out = NULL, *err = NULL, want[700];
    snprintf(want, sizeof want, "%s/%s", dir, c->expect);
    int st = test_mapfarm(tmpdir, dir, &out, &err, "solve --robot-runners '%s/p.json' --algo pibt",
                          dir);
    cr_assert_eq(st, 2, "case %zu: exit %d: %s", k, st, err);
    cr_assert(strncmp(err, want, strlen(want)) == 0, "case %zu: expected\n%s\nfound\n%s", k, want,
              err);
    cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "case %zu: one line: %s", k, err);
    free(out);
    free(err);
    char path[700];
    snprintf(path, sizeof path, "%s/p.json", dir);
    mapf_rr_problem p;
    mapf_diag d = {0};
    cr_assert_neq(mapf_rr_load(path, &p, &d), MAPF_OK, "case %zu", k);
    cr_assert_null(p.grid, "case %zu: nothing made", k);
    cr_assert_null(p.inst, "case %zu", k);
    char msg[1400];
    mapf_diag_format(&d, msg, sizeof msg);
    cr_assert(strncmp(msg, want, strlen(want)) == 0, "case %zu: %s", k, msg);
  }
  /* The problem file itself missing: no position to give. */
  char *out = NULL, *err = NULL;
  int st = mapfarm(&out, &err, "solve --robot-runners '%s/none.json' --algo pibt", tmpdir);
  cr_assert_eq(st, 2, "%s", err);
  char want[700];
  snprintf(want, sizeof want, "%s/none.json: error: cannot open file: ", tmpdir);
  cr_assert(strncmp(err, want, strlen(want)) == 0, "%s", err);
  free(out);
  free(err);
}

/* ---- determinism ------------------------------------------------------------------------- */

/* A 32 x 32 rooms problem with 40 agents and 400 greedy tasks, written in the format: the same run
 * twice gives the same steps, tasks and goals, per algorithm, in the core and from solve. */
Test(robotrunners, runs_repeat_exactly) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_ROOMS, 32, 32, 0, 1, 5); /* connected */
  mapf_instance *r = test_random_instance(g, 40, 3);
  char path[700];
  snprintf(path, sizeof path, "%s/r.map", tmpdir);
  FILE *f = fopen(path, "w");
  fputs("type octile\nheight 32\nwidth 32\nmap\n", f);
  for (int y = 0; y < 32; y++) {
    for (int x = 0; x < 32; x++) fputc(g->passable[y * 32 + x] ? (x % 5 ? '.' : 'E') : 'T', f);
    fputc('\n', f);
  }
  fclose(f);
  snprintf(path, sizeof path, "%s/r.agents", tmpdir);
  f = fopen(path, "w");
  fprintf(f, "40\n");
  for (int a = 0; a < 40; a++) fprintf(f, "%d\n", (int)r->start[a]);
  fclose(f);
  snprintf(path, sizeof path, "%s/r.tasks", tmpdir);
  f = fopen(path, "w");
  fprintf(f, "400\n");
  mapf_rng rng;
  mapf_rng_seed(&rng, 11);
  for (int i = 0; i < 400; i++)
    fprintf(f, "%d\n", (int)g->usable[mapf_rng_below(&rng, (uint64_t)g->nusable)]);
  fclose(f);
  write_text(tmpdir, "r.json",
             "{\"mapFile\": \"r.map\", \"agentFile\": \"r.agents\", \"taskFile\": \"r.tasks\", "
             "\"teamSize\": 40, \"taskAssignmentStrategy\": \"greedy\"}\n");
  mapf_instance_free(r);
  mapf_grid_free(g);
  snprintf(path, sizeof path, "%s/r.json", tmpdir);
  mapf_rr_problem p;
  load(path, &p);
  /* Not lacam: tasks that coincide leave its search no goal configuration (core/lacam.c). */
  const char *algos[] = {"pibt", "bmaa", "far", "whca"};
  for (size_t k = 0; k < sizeof algos / sizeof *algos; k++) {
    mapf_result a, b;
    watch wa, wb;
    run_watched(p.grid, p.inst, algos[k], 300, &a, &wa);
    run_watched(p.grid, p.inst, algos[k], 300, &b, &wb);
    test_assert_same_run(&a, &b, algos[k]);
    cr_assert_gt(a.tasks_done, 40, "%s: %lld tasks", algos[k], (long long)a.tasks_done);
    cr_assert_eq(a.tasks_done, b.tasks_done, "%s", algos[k]);
    cr_assert_eq(wa.n, wb.n, "%s", algos[k]);
    cr_assert_eq(memcmp(wa.cell, wb.cell, (size_t)wa.n * sizeof *wa.cell), 0, "%s", algos[k]);
    cr_assert_eq(memcmp(wa.t, wb.t, (size_t)wa.n * sizeof *wa.t), 0, "%s", algos[k]);
    for (int32_t i = 0; i < 40; i++)
      cr_assert_eq(a.agent[i].tasks_done, b.agent[i].tasks_done, "%s agent %d", algos[k], i);
    mapf_result_clear(&a);
    mapf_result_clear(&b);
  }
  mapf_rr_free(&p);
  char *out[2], *err = NULL;
  for (int k = 0; k < 2; k++) {
    cr_assert_eq(mapfarm(&out[k], &err, "solve --robot-runners '%s' --algo pibt --steps 200",
                         path), 0, "%s", err);
    free(err);
  }
  for (const char *const *m = (const char *const[]){"tasks_done", "throughput", "expansions",
                                                     "steps", "mean_travel_distance", NULL};
       *m; m++)
    cr_assert_eq(test_metric(out[0], *m), test_metric(out[1], *m), "%s", *m);
  free(out[0]);
  free(out[1]);
}

/* ---- fuzzing ----------------------------------------------------------------------------- */

/* Random edits of a good problem file and of a good task file: the reader never crashes, and
 * either reads the problem or says where the input is wrong (a file and a line and column). */
Test(robotrunners, mutated_files_read_or_fail_with_a_place) {
#ifdef MAPFARM_SANITIZED
  const int rounds = 300;
#else
  const int rounds = 1500;
#endif
  static const char json_alpha[] = "{}[]\":,.-+0123456789eE \n\\utrfalsn#";
  static const char list_alpha[] = "0123456789,# \n\r-x";
  write_text(tmpdir, "m.map", GOOD_MAP);
  write_text(tmpdir, "a.agents", GOOD_AGENTS);
  char path[700];
  snprintf(path, sizeof path, "%s/p.json", tmpdir);
  mapf_rng r;
  mapf_rng_seed(&r, 2023);
  int ok = 0;
  for (int k = 0; k < 2 * rounds; k++) {
    char buf[600];
    int tasks = k >= rounds; /* first the JSON file, then the task file */
    const char *base = tasks ? GOOD_TASKS : GOOD_JSON;
    const char *alpha = tasks ? list_alpha : json_alpha;
    size_t nalpha = tasks ? sizeof list_alpha - 1 : sizeof json_alpha - 1;
    size_t len = test_mutate(&r, base, strlen(base), 3, alpha, nalpha, buf, sizeof buf - 1);
    buf[len] = '\0';
    write_text(tmpdir, "p.json", tasks ? GOOD_JSON : buf);
    write_text(tmpdir, "t.tasks", tasks ? buf : GOOD_TASKS);
    mapf_rr_problem p;
    mapf_diag d = {0};
    int rc = mapf_rr_load(path, &p, &d);
    if (rc == MAPF_OK) {
      cr_assert_not_null(p.grid);
      cr_assert_not_null(p.inst);
      ok++;
      mapf_rr_free(&p);
      continue;
    }
    cr_assert_null(p.grid, "round %d", k);
    cr_assert_neq(rc, MAPF_ENOMEM, "round %d", k);
    cr_assert(d.file[0] && d.line >= 1 && d.col >= 1, "round %d: %s:%d:%d: %s\n%s", k, d.file,
              d.line, d.col, d.msg, buf);
  }
  cr_assert_gt(ok, 0, "some edits keep the files good");
}
