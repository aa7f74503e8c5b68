/* test_external.c: algorithm `external` (core/external.c, docs/external.md): solvers that
 * cheat, hang, fail or write garbage, a correct one (mapfarm itself running PIBT) that scores
 * exactly as the built-in PIBT, the job keys that follow the program's content, and the plan
 * and command-line errors. The solvers are the small scripts of tests/data/external/. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "algo.h"
#include "diag.h"
#include "external.h"
#include "grid.h"
#include "plan.h"
#include "scen.h"
#include "sim.h"
#include "testutil.h"

TEST_TMPDIR("external");
TestSuite(external, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 120);

#define DATA MAPFARM_SOURCE_DIR "/tests/data/external/"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The canonical JSON of the n strings of items (the caller frees it). */
static char *command_of(const char *const *items, int n) {
  char *json = mapf_list_json(items, n);
  cr_assert_not_null(json);
  return json;
}

/* A run of `external` with command json on inst, limited to `seconds` and 50 steps. */
static mapf_run_config external_config(const mapf_grid *g, const mapf_instance *inst,
                                       const char *json, double seconds, double grace) {
  mapf_run_config cfg = test_run_config(g, inst, "external");
  const mapf_algo_def *def = cfg.algo;
  mapf_params_set_list(def, &cfg.params, mapf_param_index(def, "command"), json);
  test_set_param(def, &cfg.params, "grace", grace);
  cfg.limits.steps = 50;
  cfg.limits.seconds = seconds;
  cfg.seed = 7;
  return cfg;
}

/* mapf_run of cfg expected to fail: returns the code, with res kept for the caller. */
static int run_failing(const mapf_run_config *cfg, mapf_result *res) {
  mapf_workspace *ws = mapf_workspace_new();
  mapf_diag d = {0};
  int rc = mapf_run(ws, cfg, res, &d);
  mapf_workspace_free(ws);
  cr_assert_neq(rc, MAPF_OK, "the run should have failed");
  cr_assert_eq(res->status, MAPF_STATUS_ERROR);
  cr_assert_str_eq(res->message, d.msg);
  return rc;
}

/* An 8 x 2 room, for instances of two agents. */
static const char *const room[] = {"........", "........"};

/* A cheating solver: agent 0 jumps five cells at once. The run is an error that names the
 * step, the agent, both cells and why, as the simulator's joint checker words it. */
Test(external, a_teleporting_solver_is_an_error_naming_the_move) {
  mapf_grid *g = test_grid_from_rows(room, 2);
  int xy[] = {0, 0, 6, 0, 1, 1, 0, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  const char *items[] = {DATA "teleport.sh", "{scen}", "{out}"};
  char *json = command_of(items, 3);
  mapf_run_config cfg = external_config(g, inst, json, 10, 1);
  mapf_result res;
  cr_assert_eq(run_failing(&cfg, &res), MAPF_EINVAL);
  cr_assert_str_eq(res.message, "external: the solver's plan has an illegal joint step 1: agent "
                                "0 from (0,0) to (6,0): not a neighbouring cell");
  mapf_result_clear(&res);
  free(json);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Two agents side by side trade cells: a swap, forbidden by the joint rule. */
Test(external, a_swapping_solver_is_an_error) {
  mapf_grid *g = test_grid_from_rows(room, 2);
  int xy[] = {2, 0, 3, 0, 3, 0, 2, 0};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  const char *items[] = {DATA "swap.sh", "{scen}", "{out}"};
  char *json = command_of(items, 3);
  mapf_run_config cfg = external_config(g, inst, json, 10, 1);
  mapf_result res;
  cr_assert_eq(run_failing(&cfg, &res), MAPF_EINVAL);
  cr_assert_str_eq(res.message, "external: the solver's plan has an illegal joint step 1: agent "
                                "0 from (2,0) to (3,0): agent 1 moves the other way along that "
                                "edge (a swap)");
  mapf_result_clear(&res);
  free(json);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Whether process pid is gone: not there, or a zombie that is not ours (reparented, dead). */
static int gone(pid_t pid) {
  if (kill(pid, 0) < 0 && errno == ESRCH) return 1;
  char path[64], stat[256] = "";
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 1;
  size_t k = fread(stat, 1, sizeof stat - 1, f);
  fclose(f);
  stat[k] = '\0';
  const char *close_paren = strrchr(stat, ')');
  return close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

/* A solver that never ends (and starts a child of its own) is killed with its whole process
 * group at the limit plus the grace: the run is an error with its stderr in the message, takes
 * about that long, and leaves no process behind, zombie or orphan. */
Test(external, a_hanging_solver_is_killed_at_its_limit_with_its_children) {
  mapf_grid *g = test_grid_from_rows(room, 2);
  int xy[] = {0, 0, 6, 0, 1, 1, 0, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  char pidfile[600];
  snprintf(pidfile, sizeof pidfile, "%s/hang.pids", tmpdir);
  const char *items[] = {DATA "hang.sh", pidfile};
  char *json = command_of(items, 2);
  mapf_run_config cfg = external_config(g, inst, json, 1, 0.5);
  mapf_result res;
  double t0 = now();
  cr_assert_eq(run_failing(&cfg, &res), MAPF_EINVAL);
  double took = now() - t0;
  cr_assert_str_eq(res.message, "external: the solver was killed at its wall-clock limit (1 s, "
                                "grace 0.5 s); stderr: hang: thinking forever");
  cr_assert_geq(took, 1.5, "killed after %.3f s, before its limit", took);
  cr_assert_lt(took, 3.0, "killed after %.3f s", took);
  char *pids = test_slurp_file(pidfile, NULL);
  int shell = 0, child = 0;
  cr_assert_eq(sscanf(pids, "%d %d", &shell, &child), 2, "%s", pids);
  /* The group was killed at once; its members may take a moment to be gone. */
  for (int i = 0; i < 100 && !(gone(shell) && gone(child)); i++)
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  cr_assert(gone(shell), "the solver %d is still running", shell);
  cr_assert(gone(child), "the solver's child %d is still running", child);
  /* No child of this process is left unreaped. */
  cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1);
  cr_assert_eq(errno, ECHILD);
  free(pids);
  mapf_result_clear(&res);
  free(json);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Output that is no plan, no output at all, a non-zero exit: each an error that says so, with
 * the tail of the solver's stderr. */
Test(external, garbage_no_plan_and_a_failed_exit_are_errors_with_the_stderr_tail) {
  mapf_grid *g = test_grid_from_rows(room, 2);
  int xy[] = {0, 0, 6, 0, 1, 1, 0, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  struct {
    const char *script, *arg, *message;
  } cases[] = {
      {"garbage.sh", "{out}",
       "external: the solver's plan ({out}): no line \"solution=\" in its 2 lines (lacam3's "
       "format: key=value lines, solution=, then one line per step t:(x,y),(x,y),...); stderr: "
       "garbage: wrote something odd"},
      {"nothing.sh", "{out}",
       "external: the solver wrote no plan ({out}: no such file); stderr: nothing: forgot to "
       "write the plan"},
      {"fail.sh", "{out}",
       "external: the solver exited with status 3; stderr: fail: cannot read the map"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char prog[600];
    snprintf(prog, sizeof prog, "%s%s", DATA, cases[k].script);
    const char *items[] = {prog, cases[k].arg};
    char *json = command_of(items, 2);
    mapf_run_config cfg = external_config(g, inst, json, 10, 1);
    mapf_result res;
    cr_assert_eq(run_failing(&cfg, &res), MAPF_EINVAL);
    cr_expect_str_eq(res.message, cases[k].message);
    mapf_result_clear(&res);
    free(json);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* Plans that read wrong: each error names the line and what is wrong with it. */
Test(external, a_malformed_plan_is_an_error_naming_its_line) {
  mapf_grid *g = test_grid_from_rows(room, 2);
  int xy[] = {0, 0, 6, 0, 1, 1, 0, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  struct {
    const char *plan, *why;
  } cases[] = {
      {"solution=\n0:(0,0),(1,1),\n2:(1,0),(1,1),\n", "line 3: step 2 where step 1 comes next"},
      {"solution=\n0:(0,0),(1,1),\n1:(1,0),\n", "line 3 (step 1): 1 positions for 2 agents"},
      {"solution=\n0:(0,0),(1,1),(2,1),\n",
       "line 2 (step 0): more than 2 positions, one per agent"},
      {"solution=\n0:(0,0),(1,9),\n", "line 2 (step 0): agent 1 at (1,9), outside the 8x2 map"},
      {"solution=\n0:(0,0),(1,1),\n1:(1,0),(1;1),\n",
       "line 3 (step 1): expected (x,y) at \"(1;1),\""},
      {"solution=\n0:(0,1),(1,1),\n", "step 0: agent 0 at (0,1), not on its start (0,0)"},
      {"solution=\nzero:(0,0),(1,1),\n",
       "line 2: expected \"0:(x,y),...\", found \"zero:(0,0),(1,1),\""},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char out[600];
    snprintf(out, sizeof out, "%s/plan%zu.txt", tmpdir, k);
    FILE *f = fopen(out, "w");
    cr_assert_not_null(f);
    fputs(cases[k].plan, f);
    fclose(f);
    /* cp writes the prepared plan where the run expects it. */
    const char *items[] = {"cp", out, "{out}"};
    char *json = command_of(items, 3);
    mapf_run_config cfg = external_config(g, inst, json, 10, 1);
    mapf_result res;
    cr_assert_eq(run_failing(&cfg, &res), MAPF_EINVAL);
    char want[700];
    snprintf(want, sizeof want, "external: the solver's plan ({out}): %s; no output", cases[k].why);
    cr_expect_str_eq(res.message, want);
    mapf_result_clear(&res);
    free(json);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* A plan that stops before the agents arrive (here: the starts alone, as lacam3 writes a
 * failure, `solution=` with no step, gives the same) leaves them standing: the run goes on to
 * the step limit, agents on their starts; the solver's comp_time is kept, and its stderr,
 * 150 KB of it, never blocked it (the pipe is read while it runs). */
Test(external, a_short_plan_leaves_the_agents_standing_and_a_chatty_solver_is_drained) {
  mapf_grid *g = test_grid_from_rows(room, 2);
  int xy[] = {0, 0, 6, 0, 1, 1, 0, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  const char *items[] = {DATA "stay.sh", "{scen}", "{out}"};
  char *json = command_of(items, 3);
  mapf_run_config cfg = external_config(g, inst, json, 20, 1);
  cfg.limits.steps = 30;
  mapf_result res;
  test_run_checked(&cfg, &res, "stay");
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.limit, MAPF_LIMIT_STEPS);
  cr_assert_eq(res.steps, 30);
  cr_assert_eq(res.completed, 0);
  cr_assert_eq(res.agent[0].final, inst->start[0]);
  cr_assert_eq(res.agent[1].final, inst->start[1]);
  cr_assert_float_eq(res.solver_seconds, 0.0125, 1e-12);
  cr_assert_lt(res.setup_seconds, 15, "the solver blocked on its stderr");
  mapf_result_clear(&res);
  free(json);
  /* `solution=` and nothing after it: no plan, the same outcome. */
  char out[600];
  snprintf(out, sizeof out, "%s/empty.txt", tmpdir);
  FILE *f = fopen(out, "w");
  cr_assert_not_null(f);
  fputs("agents=2\nsolved=0\nsolution=\n", f);
  fclose(f);
  const char *cp[] = {"cp", out, "{out}"};
  json = command_of(cp, 3);
  cfg = external_config(g, inst, json, 20, 1);
  cfg.limits.steps = 30;
  test_run_checked(&cfg, &res, "empty");
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.completed, 0);
  cr_assert(isnan(res.solver_seconds), "no comp_time: NaN");
  mapf_result_clear(&res);
  free(json);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* The command `mapfarm solve --algo pibt ... --trace {out}`, mapfarm as an external solver:
 * its plan, executed and measured by the simulator, gives exactly the built-in PIBT's run on
 * the same instance and seed, agent by agent. */
Test(external, a_correct_solver_scores_as_the_planner_whose_plan_it_replays) {
  mapf_grid *g = test_mapgen(MAPF_MAPGEN_RANDOM, 32, 32, 0.2, 1, 5);
  mapf_instance *inst = test_random_instance(g, 60, 9);
  mapf_run_config pibt = test_run_config(g, inst, "pibt");
  pibt.limits.steps = 500;
  pibt.seed = 0x1e535eede31428f0ULL;
  mapf_result want;
  test_run_checked(&pibt, &want, "pibt");
  const char *items[] = {MAPFARM_BINARY, "solve", "--map", "{map}", "--scen", "{scen}",
                         "--agents", "{agents}", "--algo", "pibt", "--algo-seed", "{seed_hex}",
                         "--steps", "{steps}", "--trace", "{out}"};
  char *json = command_of(items, 16);
  mapf_run_config cfg = external_config(g, inst, json, 60, 1);
  cfg.limits.steps = 500;
  cfg.seed = pibt.seed;
  mapf_result res;
  test_run_checked(&cfg, &res, "external");
  cr_assert_eq(res.status, want.status);
  cr_assert_eq(res.completed, want.completed);
  cr_assert_eq(res.solved, want.solved);
  cr_assert_eq(res.soc, want.soc);
  cr_assert_eq(res.makespan, want.makespan);
  cr_assert_eq(res.steps, want.steps);
  cr_assert_eq(res.completed, 60, "PIBT solves this instance");
  cr_assert_eq(memcmp(&res.mean_travel_distance, &want.mean_travel_distance, sizeof(double)), 0);
  for (int32_t a = 0; a < inst->n; a++) {
    cr_assert_eq(res.agent[a].final, want.agent[a].final, "agent %d", a);
    cr_assert_eq(res.agent[a].completion_step, want.agent[a].completion_step, "agent %d", a);
  }
  /* mapfarm's trace reports comp_time (ms): kept as the solver's own time. */
  cr_assert(res.solver_seconds >= 0 && res.solver_seconds < 60, "%g", res.solver_seconds);
  cr_assert(isnan(want.solver_seconds), "a built-in planner reports none");
  mapf_result_clear(&res);
  mapf_result_clear(&want);
  free(json);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* What a run refuses before starting a solver: no wall-clock limit, a patrol instance, a
 * program that is not there. */
Test(external, a_run_without_a_limit_or_program_is_refused) {
  mapf_grid *g = test_grid_from_rows(room, 2);
  int xy[] = {0, 0, 6, 0, 1, 1, 0, 1};
  mapf_instance *inst = test_instance_of(g, 2, xy);
  const char *items[] = {DATA "stay.sh", "{scen}", "{out}"};
  char *json = command_of(items, 3);
  mapf_run_config cfg = external_config(g, inst, json, 0, 1);
  mapf_result res;
  cr_assert_eq(run_failing(&cfg, &res), MAPF_EUNSUPPORTED);
  cr_assert_str_eq(res.message, "external: the solver needs a wall-clock limit (limits: seconds; "
                                "solve --seconds), at which it is killed");
  mapf_result_clear(&res);
  cfg.limits.seconds = 5;
  inst->loops = 1;
  cr_assert_eq(run_failing(&cfg, &res), MAPF_EUNSUPPORTED);
  cr_assert_str_eq(res.message, "external: a patrol instance is not a MAPF problem a solver's "
                                "plan can answer (one goal per agent, fixed before the run)");
  mapf_result_clear(&res);
  inst->loops = 0;
  inst->lifelong = 1;
  cr_assert_eq(run_failing(&cfg, &res), MAPF_EUNSUPPORTED);
  cr_assert(strstr(res.message, "external: a lifelong instance is not") == res.message, "%s",
            res.message);
  mapf_result_clear(&res);
  inst->lifelong = 0;
  free(json);
  const char *missing[] = {"/nonexistent/solver", "{out}"};
  json = command_of(missing, 2);
  cfg = external_config(g, inst, json, 5, 1);
  cr_assert_eq(run_failing(&cfg, &res), MAPF_EIO);
  cr_assert_str_eq(res.message,
                   "external: cannot run \"/nonexistent/solver\": No such file or directory");
  mapf_result_clear(&res);
  free(json);
  mapf_instance_free(inst);
  mapf_grid_free(g);
}

/* ---- lists and the program, as plans and the command line see them ------------------------ */

/* A list's text: JSON in, canonical JSON out; what is not a list of strings is refused. */
Test(external, list_values_read_as_json_and_write_canonically) {
  char *out = NULL;
  mapf_diag d = {0};
  cr_assert_eq(mapf_list_parse("command", " [ \"a b\" , \"x\\\"y\\\\z\", \"\\u00e9\\n\" ] ", &out,
                               &d),
               MAPF_OK, "%s", d.msg);
  cr_assert_str_eq(out, "[\"a b\",\"x\\\"y\\\\z\",\"\xc3\xa9\\n\"]");
  char **argv;
  int32_t argc;
  cr_assert_eq(mapf_list_split(out, &argv, &argc), MAPF_OK);
  cr_assert_eq(argc, 3);
  cr_assert_str_eq(argv[0], "a b");
  cr_assert_str_eq(argv[1], "x\"y\\z");
  cr_assert_str_eq(argv[2], "\xc3\xa9\n");
  cr_assert_null(argv[3]);
  free(argv);
  free(out);
  cr_assert_eq(mapf_list_parse("command", "./solver {map}", &out, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "command: expected a list of strings in JSON, e.g. [\"./solver\", "
                          "\"{map}\"], at offset 0 of \"./solver {map}\"");
  cr_assert_eq(mapf_list_parse("command", "[\"a\", 3]", &out, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "command: expected a string in quotes, at offset 6 of \"[\"a\", 3]\"");
  cr_assert_eq(mapf_list_parse("command", "[\"a\\u0000\"]", &out, &d), MAPF_EINVAL);
  cr_assert_null(out);
  /* The empty list is the default, written []. */
  const mapf_algo_def *def = test_algo("external");
  mapf_params p;
  mapf_params_default(def, &p);
  char json[600];
  mapf_params_json(def, &p, json, sizeof json);
  cr_assert_str_eq(json, "{\"command\":[],\"grace\":1}");
  /* It passes its own checks, as every registered default does; nothing can run it. */
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_OK, "%s", d.msg);
  char hex[33];
  cr_assert_eq(mapf_external_hash(NULL, hex, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "command: no program; give the solver's program and its arguments, "
                          "e.g. [\"./solver\", \"{map}\", \"{scen}\", \"{out}\"]");
}

/* Parses plan text (a plan of one generated map with `entries` as its algorithms), expecting
 * exactly the diagnostics `want` (one per line; "" when the plan is good). */
static void plan_expect(const char *entries, const char *limits, const char *want) {
  char text[4096];
  snprintf(text, sizeof text,
           "name: p\nmaps:\n  - generate: {kind: random, width: 16, height: 16, density: 0.1, "
           "seed: 1}\nscenarios:\n  - generator: random\n    agents: [3]\nalgorithms:\n%s%s",
           entries, limits);
  farm_plan_opts opts = {0};
  farm_plan *plan = NULL;
  farm_diags errs = {0};
  int rc = farm_plan_parse(text, strlen(text), "mem/plan.yaml", &opts, &plan, &errs);
  char *all = test_format_diags(&errs);
  cr_expect_str_eq(all, want, "%sgot:\n%s", text, all);
  cr_expect_eq(rc == MAPF_OK, want[0] == '\0');
  free(all);
  farm_plan_free(plan);
  farm_diags_free(&errs);
}

/* Bad commands are plan errors at their line and column, before any job runs. */
Test(external, bad_commands_are_plan_errors_at_their_place) {
  const char *limits = "limits: {seconds: 5}\n";
  plan_expect("  - name: external\n    params: {command: [sh, \"{out}\"]}\n", limits, "");
  plan_expect("  - name: external\n    params: {command: []}\n", limits,
              "mem/plan.yaml:8:5: error: algorithm external: command: no program; give the "
              "solver's program and its arguments, e.g. [\"./solver\", \"{map}\", \"{scen}\", "
              "\"{out}\"]\n");
  plan_expect("  - name: external\n", limits,
              "mem/plan.yaml:8:5: error: algorithm external: command: no program; give the "
              "solver's program and its arguments, e.g. [\"./solver\", \"{map}\", \"{scen}\", "
              "\"{out}\"]\n");
  plan_expect("  - name: external\n    params: {command: [sh, \"{mapp}\"]}\n", limits,
              "mem/plan.yaml:9:5: error: command: item 2: unknown placeholder {mapp} in "
              "\"{mapp}\"; known: {map} {scen} {agents} {out} {seconds} {ms} {seed} {seed_hex} "
              "{steps} {dir} {connectivity}\n");
  plan_expect("  - name: external\n    params: {command: [sh, {map}]}\n", limits,
              "mem/plan.yaml:9:28: error: command: item 2 is the YAML mapping {map}; quote a "
              "placeholder: \"{map}\"\n");
  plan_expect("  - name: external\n    params: {command: [\"{dir}/solver\"]}\n", limits,
              "mem/plan.yaml:9:5: error: command: the program \"{dir}/solver\" (the first "
              "item) may not hold a placeholder: its file is hashed into the job keys before "
              "any job runs\n");
  plan_expect("  - name: external\n    params: {command: [/nonexistent/solver]}\n", limits,
              "mem/plan.yaml:8:5: error: algorithm external: program \"/nonexistent/solver\": "
              "No such file or directory\n");
  plan_expect("  - name: external\n    params: {command: [no-such-solver-anywhere]}\n", limits,
              "mem/plan.yaml:8:5: error: algorithm external: program \"no-such-solver-anywhere\" "
              "is not on PATH\n");
  plan_expect("  - name: external\n    params: {command: [" DATA "README.md]}\n", limits,
              "mem/plan.yaml:8:5: error: algorithm external: program \"" DATA "README.md\" is "
              "not an executable file\n");
  plan_expect("  - name: external\n    params: {command: [sh, \"{out}\"]}\n", "",
              "mem/plan.yaml:8:5: error: algorithm external runs a program, which needs a "
              "wall-clock limit to be killed at: set limits: {seconds: S} for the plan or this "
              "entry\n");
  plan_expect("  - name: external\n    params: {command: [[sh], [bash]]}\n", limits,
              "mem/plan.yaml:9:24: error: command: item 1: expected a string, found a list\n");
  plan_expect("  - name: external\n    zip: {command: [[sh], [bash]], grace: [1, 2]}\n", limits,
              "mem/plan.yaml:9:20: error: command: a list takes one value per entry, in params "
              "or defaults; it cannot be swept, zipped, sampled or excluded (write one entry per "
              "command)\n");
  /* defaults give a command to every entry; two commands are two configurations. */
  plan_expect("  - name: external\n  - name: external\n    label: B\n    params: {command: [bash, "
              "\"{out}\"]}\n",
              "limits: {seconds: 5}\ndefaults: {external: {command: [sh, \"{out}\"]}}\n", "");
}

/* The program's content is part of the job key: a changed script gives new keys, the same
 * content again the old ones; other algorithms' keys never change. `solve` refuses a missing
 * program and a run without --seconds with exit 2. */
Test(external, keys_follow_the_programs_content) {
  char script[600], plan[600], data[600];
  snprintf(script, sizeof script, "%s/solver.sh", tmpdir);
  snprintf(data, sizeof data, "%s/weights.txt", tmpdir);
  snprintf(plan, sizeof plan, "%s/plan.yaml", tmpdir);
  char cmd[2000];
  snprintf(cmd, sizeof cmd, "cp '%sstay.sh' '%s' && echo 1 > '%s'", DATA, script, data);
  cr_assert_eq(system(cmd), 0);
  FILE *f = fopen(plan, "w");
  cr_assert_not_null(f);
  fprintf(f,
          "name: keys\nmaps:\n  - generate: {kind: random, width: 16, height: 16, density: 0.1, "
          "seed: 1}\nscenarios:\n  - generator: random\n    agents: [3]\nalgorithms:\n"
          "  - name: external\n    params: {command: [sh, \"%s\", \"{scen}\", \"{out}\", \"%s\"]}\n"
          "  - name: pibt\nlimits: {seconds: 5}\n",
          script, data);
  fclose(f);
  char *keys[4];
  for (int k = 0; k < 4; k++) {
    if (k == 1) { /* the script changes */
      snprintf(cmd, sizeof cmd, "echo '# changed' >> '%s'", script);
      cr_assert_eq(system(cmd), 0);
    } else if (k == 2) { /* back to its first content */
      snprintf(cmd, sizeof cmd, "cp '%sstay.sh' '%s'", DATA, script);
      cr_assert_eq(system(cmd), 0);
    } else if (k == 3) { /* a file among the arguments changes */
      snprintf(cmd, sizeof cmd, "echo 2 > '%s'", data);
      cr_assert_eq(system(cmd), 0);
    }
    char *err;
    cr_assert_eq(test_mapfarm(tmpdir, NULL, &keys[k], &err, "expand '%s' --list", plan), 0, "%s",
                 err);
    free(err);
  }
  /* Line by line: key, map, ..., algorithm; the external line first, then pibt's. */
  char ext[4][40], pibt[4][40];
  for (int k = 0; k < 4; k++) {
    const char *e = strstr(keys[k], "\texternal\t"), *p = strstr(keys[k], "\tpibt\t");
    cr_assert(e && p, "%s", keys[k]);
    while (e > keys[k] && e[-1] != '\n') e--;
    while (p > keys[k] && p[-1] != '\n') p--;
    snprintf(ext[k], sizeof ext[k], "%.32s", e);
    snprintf(pibt[k], sizeof pibt[k], "%.32s", p);
  }
  cr_assert_str_neq(ext[0], ext[1], "a changed program must change the key");
  cr_assert_str_eq(ext[0], ext[2], "the same content gives the same key");
  cr_assert_str_neq(ext[0], ext[3], "a changed argument file must change the key");
  for (int k = 1; k < 4; k++) cr_assert_str_eq(pibt[0], pibt[k]);
  for (int k = 0; k < 4; k++) free(keys[k]);

  char *out, *err;
  cr_assert_eq(test_mapfarm(tmpdir, NULL, &out, &err,
                            "solve --map '%s/tests/data/cli/tiny.map' --generator random "
                            "--agents 2 --algo external --param 'command=[\"sh\",\"{out}\"]'",
                            MAPFARM_SOURCE_DIR),
               2);
  cr_expect(strstr(err, "--seconds S is required: algorithm external runs a program") != NULL,
            "%s", err);
  free(out);
  free(err);
  cr_assert_eq(test_mapfarm(tmpdir, NULL, &out, &err,
                            "solve --map '%s/tests/data/cli/tiny.map' --generator random "
                            "--agents 2 --algo external --seconds 5 --param "
                            "'command=[\"./no-such-solver\",\"{out}\"]'",
                            MAPFARM_SOURCE_DIR),
               2);
  cr_expect_str_eq(err, "mapfarm solve: error: --param command: program \"./no-such-solver\": "
                        "No such file or directory\n");
  free(out);
  free(err);
}

/* A plan with the external replay of PIBT beside PIBT itself: the same rows with 1 thread,
 * with 2 and as 2 shards merged (each job's seed is its key's, so the replay runs PIBT with
 * the external job's seed; the exact match with the built-in run is the test above). */
Test(external, a_plan_gives_the_same_results_on_any_threads_and_matches_pibt, .timeout = 300) {
  char plan[600], db[3][512];
  snprintf(plan, sizeof plan, "%s/plan.yaml", tmpdir);
  FILE *f = fopen(plan, "w");
  cr_assert_not_null(f);
  fprintf(f,
          "name: ext\nseed: 3\nmaps:\n  - generate: {kind: random, width: 24, height: 24, "
          "density: 0.15, seed: 1}\n  - generate: {kind: rooms, width: 24, height: 24, room: 6, "
          "doors: 2, seed: 2}\nscenarios:\n  - generator: random\n    agents: [5, 30]\n"
          "    instances: 2\nalgorithms:\n  - name: pibt\n  - name: external\n    label: "
          "PIBT (mapfarm solve)\n    params:\n      command: ['%s', solve, --map, '{map}', "
          "--scen, '{scen}', --algo, pibt, --algo-seed, '{seed_hex}', --steps, '{steps}', "
          "--trace, '{out}']\nlimits: {steps: 300, seconds: 30}\n",
          MAPFARM_BINARY);
  fclose(f);
  const char *sql[] = {
      "SELECT job_key, algorithm, execution, status, limit_hit, completion_rate, steps, soc, "
      "makespan, solved, mean_travel_distance, message FROM results ORDER BY job_key",
      "SELECT r.job_key, a.agent, a.final_x, a.final_y, a.completion_step, a.travel_distance "
      "FROM agent_results a JOIN results r ON r.id = a.result_id ORDER BY r.job_key, a.agent"};
  test_same_on_threads_and_shards(tmpdir, "ext", plan, 2, sql, 2, db);
  /* PIBT solves these: every external job too, under the joint rule, with no message. */
  cr_assert_eq(test_db_int(db[0], "SELECT count(*) FROM results WHERE algorithm = 'external' "
                                  "AND status = 'ok' AND execution = 'joint' AND message = '' "
                                  "AND solved = 1"),
               8);
}

/* {connectivity} tells a solver the grid's moves: 8 on an open room, 4 on a corridor, where no
 * diagonal move exists (as under connectivity: 4). Here the solver says it and fails. */
Test(external, the_connectivity_placeholder_follows_the_grids_moves) {
  static const char *const corridor[] = {"........"};
  for (int k = 0; k < 2; k++) {
    mapf_grid *g = k ? test_grid_from_rows(corridor, 1) : test_grid_from_rows(room, 2);
    int xy[] = {0, 0, 6, 0};
    mapf_instance *inst = test_instance_of(g, 1, xy);
    const char *items[] = {"sh", "-c", "echo \"moves $0 $1\" >&2; exit 3", "{connectivity}",
                           "{{x}}"};
    char *json = command_of(items, 5);
    mapf_run_config cfg = external_config(g, inst, json, 10, 1);
    mapf_result res;
    run_failing(&cfg, &res);
    char want[200];
    snprintf(want, sizeof want, "external: the solver exited with status 3; stderr: moves %d {x}",
             k ? 4 : 8);
    cr_assert_str_eq(res.message, want);
    mapf_result_clear(&res);
    free(json);
    mapf_instance_free(inst);
    mapf_grid_free(g);
  }
}
