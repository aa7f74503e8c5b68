/* test_algo.c: the algorithm registry: parameter parsing, range checks, canonical JSON, typed
 * parameter structs; and a toy algorithm defined as core/'s algorithms are, run through the
 * generic API (docs/adding-an-algorithm.md walks through it). */
#include <criterion/criterion.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "algo.h"
#include "grid.h"
#include "sim.h"
#include "sim_int.h"
#include "testutil.h"

Test(algo, finds_bmaa_and_its_paper_defaults) {
  const mapf_algo_def *def = test_algo("bmaa");
  cr_assert_null(mapf_algo_find("bmaa*"));
  mapf_params p;
  mapf_params_default(def, &p);
  cr_assert_eq(p.v[mapf_param_index(def, "expansions")], 32);
  cr_assert_eq(p.v[mapf_param_index(def, "moves")], 32);
  cr_assert_float_eq(p.v[mapf_param_index(def, "vision")], MAPF_SQRT2, 1e-15);
  cr_assert_eq(p.v[mapf_param_index(def, "push")], 0);
  cr_assert_eq(p.v[mapf_param_index(def, "flow")], 0);
  cr_assert_eq(mapf_param_index(def, "visoin"), -1);
}

Test(algo, canonical_json_sorts_keys_and_prints_shortest_reals) {
  const mapf_algo_def *def = test_algo("bmaa");
  mapf_params p;
  mapf_params_default(def, &p);
  char buf[256];
  int n = mapf_params_json(def, &p, buf, sizeof buf);
  cr_assert_str_eq(buf, "{\"expansions\":32,\"flow\":false,\"moves\":32,\"push\":false,"
                        "\"vision\":1.4142135623730951}");
  cr_assert_eq(n, (int)strlen(buf));
  p.v[mapf_param_index(def, "vision")] = 0.1;
  p.v[mapf_param_index(def, "push")] = 1;
  mapf_params_json(def, &p, buf, sizeof buf);
  cr_assert(strstr(buf, "\"vision\":0.1}") != NULL, "%s", buf);
  cr_assert(strstr(buf, "\"push\":true") != NULL, "%s", buf);
  /* A short buffer is never overrun and the needed length is still returned. */
  char small[8];
  cr_assert_eq(mapf_params_json(def, &p, small, sizeof small), (int)strlen(buf));
  cr_assert_eq(strlen(small), 7);
}

Test(algo, parses_values_of_each_type) {
  const mapf_algo_def *def = test_algo("bmaa");
  double v;
  mapf_diag d = {0};
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "vision"), "sqrt(2)", &v, &d),
               MAPF_OK);
  cr_assert_float_eq(v, MAPF_SQRT2, 1e-15);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "push"), "yes", &v, &d), MAPF_OK);
  cr_assert_eq(v, 1);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "push"), "off", &v, &d), MAPF_OK);
  cr_assert_eq(v, 0);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "expansions"), "64", &v, &d),
               MAPF_OK);
  cr_assert_eq(v, 64);
}

Test(algo, rejects_bad_values_saying_what_was_expected) {
  const mapf_algo_def *def = test_algo("bmaa");
  double v = -7;
  mapf_diag d = {0};
  int32_t e = mapf_param_index(def, "expansions");
  cr_assert_eq(mapf_param_parse(def, e, "lots", &v, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "expansions: expected an integer, found \"lots\"");
  cr_assert_eq(v, -7, "the output is untouched on error");
  cr_assert_eq(mapf_param_parse(def, e, "0", &v, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "expansions: expected an integer in [1, 10000000], found 0");
  cr_assert_eq(mapf_param_parse(def, e, "2.5", &v, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "push"), "maybe", &v, &d),
               MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "push: expected a boolean, found \"maybe\"");
  cr_assert_eq(mapf_param_check(def, mapf_param_index(def, "vision"), NAN, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_check(def, mapf_param_index(def, "vision"), -1, &d), MAPF_EINVAL);
}

Test(algo, bmaa_accepts_flow_and_checks_it_as_a_boolean) {
  const mapf_algo_def *def = test_algo("bmaa");
  mapf_params p;
  mapf_params_default(def, &p);
  mapf_diag d = {0};
  p.v[mapf_param_index(def, "flow")] = 1;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_OK, "%s", d.msg);
  p.v[mapf_param_index(def, "flow")] = 2;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "flow: expected a boolean, found 2");
}

/* ---- enumerations (MAPF_PARAM_ENUM; rths's lop) ------------------------------------------ */

Test(algo, enumeration_parses_choice_names_exactly) {
  const mapf_algo_def *def = test_algo("rths");
  int32_t lop = mapf_param_index(def, "lop");
  cr_assert_eq(def->params[lop].type, MAPF_PARAM_ENUM);
  cr_assert_eq(mapf_param_nchoices(&def->params[lop]), 4);
  char list[64], small[6];
  cr_assert_eq(mapf_param_choice_list(&def->params[lop], list, sizeof list), 22);
  cr_assert_str_eq(list, "min, mean, median, max");
  cr_assert_eq(mapf_param_choice_list(&def->params[lop], small, sizeof small), 22);
  cr_assert_str_eq(small, "min, ");
  static const char *const names[] = {"min", "mean", "median", "max"};
  mapf_diag d = {0};
  for (int k = 0; k < 4; k++) {
    double v = -1;
    cr_assert_eq(mapf_param_parse(def, lop, names[k], &v, &d), MAPF_OK, "%s", d.msg);
    cr_assert_eq(v, k, "%s is choice %d", names[k], k);
    cr_assert_str_eq(mapf_param_choice(def, lop, v), names[k]);
  }
  /* The thesis's "avg" (line 303) is not a name here; neither are other spellings or the index. */
  static const char *const bad[] = {"avg", "Median", "MIN", " min", "min ", "2", "", "minimum"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    double v = -7;
    cr_assert_eq(mapf_param_parse(def, lop, bad[k], &v, &d), MAPF_EINVAL, "\"%s\"", bad[k]);
    cr_assert_eq(v, -7, "the output is untouched on error");
  }
  mapf_param_parse(def, lop, "avg", &(double){0}, &d);
  cr_assert_str_eq(d.msg, "lop: expected one of min, mean, median, max, found \"avg\"");
}

Test(algo, enumeration_writes_its_name_as_a_json_string) {
  const mapf_algo_def *def = test_algo("rths");
  int32_t lop = mapf_param_index(def, "lop");
  mapf_params p;
  mapf_params_default(def, &p);
  char buf[256];
  int n = mapf_params_json(def, &p, buf, sizeof buf);
  cr_assert_str_eq(buf, "{\"b\":0,\"da\":false,\"expendable\":false,\"lop\":\"min\",\"w\":1,"
                        "\"wc\":1}");
  cr_assert_eq(n, (int)strlen(buf));
  p.v[lop] = 2;
  mapf_params_json(def, &p, buf, sizeof buf);
  cr_assert(strstr(buf, "\"lop\":\"median\",") != NULL, "%s", buf);
  cr_assert_eq(mapf_param_format(def, lop, 3, buf, sizeof buf), 5);
  cr_assert_str_eq(buf, "\"max\"");
  /* Truncation as snprintf: the needed length, a terminated prefix. */
  char small[4];
  cr_assert_eq(mapf_param_format(def, lop, 1, small, sizeof small), 6);
  cr_assert_str_eq(small, "\"me");
}

Test(algo, enumeration_check_accepts_only_indices_of_choices) {
  const mapf_algo_def *def = test_algo("rths");
  int32_t lop = mapf_param_index(def, "lop");
  mapf_diag d = {0};
  for (int k = 0; k < 4; k++) cr_assert_eq(mapf_param_check(def, lop, k, &d), MAPF_OK);
  cr_assert_eq(mapf_param_check(def, lop, 4, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "lop: expected one of min, mean, median, max, found 4");
  static const double bad[] = {-1, 1.5, NAN, INFINITY, -0.5};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    cr_assert_eq(mapf_param_check(def, lop, bad[k], &d), MAPF_EINVAL, "%g", bad[k]);
    cr_assert_null(mapf_param_choice(def, lop, bad[k]));
  }
  mapf_params p;
  mapf_params_default(def, &p);
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_OK, "%s", d.msg);
  p.v[lop] = 7;
  cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_EINVAL);
  /* An index that names no choice is written as a number (only error messages see it). */
  char buf[32];
  mapf_param_format(def, lop, 7, buf, sizeof buf);
  cr_assert_str_eq(buf, "7");
}

Test(algo, other_types_have_no_choices) {
  const mapf_algo_def *def = test_algo("bmaa");
  for (int32_t i = 0; i < def->nparams; i++) {
    cr_assert_eq(mapf_param_nchoices(&def->params[i]), 0);
    char list[8] = "x";
    cr_assert_eq(mapf_param_choice_list(&def->params[i], list, sizeof list), 0);
    cr_assert_str_eq(list, "");
    cr_assert_null(mapf_param_choice(def, i, 0));
  }
}

Test(algo, rths_declares_the_thesis_ranges_and_lrta_star_defaults) {
  const mapf_algo_def *def = test_algo("rths");
  cr_assert_str_eq(def->label, "RTHS");
  cr_assert_eq(mapf_algo_at(5), def, "registered after the other five");
  mapf_diag d = {0};
  double v;
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "w"), "0.5", &v, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "w: expected a number in [1, 10], found 0.5");
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "b"), "1.5", &v, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "wc"), "0.9", &v, &d), MAPF_EINVAL);
  cr_assert_eq(mapf_param_parse(def, mapf_param_index(def, "da"), "yes", &v, &d), MAPF_OK);
}

/* ---- the registry and typed parameter structs -------------------------------------------- */

Test(algo, registry_keeps_its_order_and_every_description_is_valid) {
  /* The order of `mapfarm algorithms`, of suggestions and of a plan's `defaults`. */
  static const char *const first[] = {"bmaa", "whca", "far", "astar-replan", "dm", "rths"};
  cr_assert_geq(mapf_algo_count(), 6);
  for (int32_t i = 0; i < 6; i++) cr_assert_str_eq(mapf_algo_at(i)->name, first[i]);
  cr_assert_null(mapf_algo_at(mapf_algo_count()));
  cr_assert_null(mapf_algo_at(-1));
  for (int32_t i = 0; i < mapf_algo_count(); i++) {
    const mapf_algo_def *def = mapf_algo_at(i);
    mapf_diag d = {0};
    cr_assert_eq(mapf_algo_validate(def, &d), MAPF_OK, "%s", d.msg);
    cr_assert_eq(mapf_algo_find(def->name), def, "%s: one name, one description", def->name);
    mapf_params p;
    mapf_params_default(def, &p);
    cr_assert_eq(mapf_params_check(def, &p, &d), MAPF_OK, "%s: %s", def->name, d.msg);
  }
}

Test(algo, whca_rules_read_the_typed_struct) {
  const mapf_algo_def *def = test_algo("whca");
  mapf_params p;
  mapf_params_default(def, &p);
  test_set_param(def, &p, "window", 4);
  test_set_param(def, &p, "replan", 8);
  mapf_diag d = {0};
  cr_assert_eq(mapf_params_check_rules(def, &p, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "whca: replan (8) must be at most window (4): an agent has no plan "
                          "beyond its window");
  test_set_param(def, &p, "replan", 4);
  cr_assert_eq(mapf_params_check_rules(def, &p, &d), MAPF_OK, "%s", d.msg);
  /* bmaa has no rules: every combination in range passes. */
  cr_assert_eq(mapf_params_check_rules(test_algo("bmaa"), &p, &d), MAPF_OK);
}

/* ---- a toy algorithm: `greedy` ------------------------------------------------------------
 * Defined the way an algorithm of core/ is (one file there: this section; MAPF_ALGORITHM puts
 * it in the registry when the file is in core/). Every agent steps to the neighbour nearest its
 * target, or waits when none is nearer. */

typedef struct greedy_params {
  int32_t delay; /* steps every agent waits before its first move */
  int32_t stop;  /* the step from which every agent stands still; 0: never */
  bool diagonal;
} greedy_params;

static const mapf_param_def greedy_param_table[] = {
    {"delay", MAPF_PARAM_INT, 0, 1000, 0, "steps every agent waits before its first move", NULL,
     offsetof(greedy_params, delay)},
    {"stop", MAPF_PARAM_INT, 0, 1000000, 0,
     "the step from which every agent stands still (0: never)", NULL,
     offsetof(greedy_params, stop)},
    {"diagonal", MAPF_PARAM_BOOL, 0, 1, 1, "agents may move diagonally", NULL,
     offsetof(greedy_params, diagonal)},
};

static int greedy_rules(const void *params, mapf_diag *d) {
  const greedy_params *p = params;
  if (p->stop != 0 && p->stop <= p->delay)
    return mapf_diag_set(d, MAPF_EINVAL, NULL, 0, 0,
                         "greedy: stop (%d) must be after delay (%d): no agent would move",
                         (int)p->stop, (int)p->delay);
  return MAPF_OK;
}

/* The state of a run: its parameters, read once. */
static int greedy_init(mapf__sim *sim, void **state, mapf_diag *d) {
  greedy_params *P = malloc(sizeof *P);
  if (!P) return mapf_diag_set(d, MAPF_ENOMEM, NULL, 0, 0, "out of memory");
  int rc = mapf_params_fill(sim->cfg->algo, &sim->cfg->params, P, sizeof *P, d);
  if (rc != MAPF_OK) {
    free(P);
    return rc;
  }
  *state = P;
  return MAPF_OK;
}

static int greedy_plan(mapf__sim *sim, void *state) {
  const greedy_params *P = state;
  const mapf_grid *g = sim->grid;
  int moving = sim->time >= P->delay && (P->stop == 0 || sim->time < P->stop);
  for (int32_t a = 0; a < sim->n; a++) {
    int32_t here = sim->pos[a], best = MAPF__WAIT;
    double h = mapf_octile(g, here, sim->goal[a]);
    for (int dir = 0; moving && dir < (P->diagonal ? 8 : 4); dir++) {
      if (!(g->moves[here] >> dir & 1)) continue;
      int32_t next = here + g->offset[dir];
      double hn = mapf_octile(g, next, sim->goal[a]);
      if (hn < h - 1e-9) {
        h = hn;
        best = next;
      }
    }
    sim->want[a] = best;
  }
  return MAPF_OK;
}

static void greedy_free(void *state) { free(state); }

static const mapf__planner_vt greedy_vt = {
    .init = greedy_init,
    .plan = greedy_plan,
    .free = greedy_free,
};

MAPF_ALGORITHM(greedy, 70) = {
    .name = "greedy",
    .label = "Greedy",
    .doc = "every agent steps to the neighbour nearest its target (a toy)",
    .params = greedy_param_table,
    .nparams = MAPF_NPARAMS(greedy_param_table),
    .size = sizeof(greedy_params),
    .rules = greedy_rules,
    .vt = &greedy_vt,
};

/* A run of greedy on g from (sx, sy) to (gx, gy) with params given as text, NAME=VALUE. */
static int run_greedy(const mapf_grid *g, int sx, int sy, int gx, int gy,
                      const char *const *params, int nparams, mapf_result *res, mapf_diag *d) {
  mapf_instance *inst = test_instance_of(g, 1, (const int[]){sx, sy, gx, gy});
  mapf_run_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.grid = g;
  cfg.inst = inst;
  cfg.algo = &mapf_algo_greedy;
  cfg.limits.steps = 100;
  mapf_params_default(cfg.algo, &cfg.params);
  for (int k = 0; k < nparams; k++) {
    char name[32];
    const char *eq = strchr(params[k], '=');
    snprintf(name, sizeof name, "%.*s", (int)(eq - params[k]), params[k]);
    int32_t i = mapf_param_index(cfg.algo, name);
    cr_assert_geq(i, 0, "%s", name);
    cr_assert_eq(mapf_param_parse(cfg.algo, i, eq + 1, &cfg.params.v[i], d), MAPF_OK, "%s",
                 d->msg);
  }
  mapf_workspace *ws = mapf_workspace_new();
  int rc = mapf_run(ws, &cfg, res, d);
  mapf_workspace_free(ws);
  mapf_instance_free(inst);
  return rc;
}

Test(algo, toy_is_described_as_the_registered_ones_are) {
  mapf_diag d = {0};
  cr_assert_eq(mapf_algo_validate(&mapf_algo_greedy, &d), MAPF_OK, "%s", d.msg);
  cr_assert_null(mapf_algo_find("greedy"), "the registry lists core/'s algorithms only");
  mapf_params p;
  mapf_params_default(&mapf_algo_greedy, &p);
  char buf[128];
  mapf_params_json(&mapf_algo_greedy, &p, buf, sizeof buf);
  cr_assert_str_eq(buf, "{\"delay\":0,\"diagonal\":true,\"stop\":0}");
  cr_assert_eq(mapf_param_parse(&mapf_algo_greedy, 0, "2", &p.v[0], &d), MAPF_OK);
  cr_assert_eq(mapf_param_parse(&mapf_algo_greedy, 2, "no", &p.v[2], &d), MAPF_OK);
  greedy_params typed;
  cr_assert_eq(mapf_params_fill(&mapf_algo_greedy, &p, &typed, sizeof typed, &d), MAPF_OK);
  cr_assert_eq(typed.delay, 2);
  cr_assert_eq(typed.stop, 0);
  cr_assert_eq(typed.diagonal, false);
  /* A struct of another size (a planner given another algorithm's description) is refused. */
  int32_t other[2];
  cr_assert_eq(mapf_params_fill(&mapf_algo_greedy, &p, other, sizeof other, &d), MAPF_EINVAL);
}

Test(algo, toy_runs_through_mapf_run_with_its_parameters) {
  mapf_grid *g = test_open_grid(5, 5, "open");
  mapf_result res;
  mapf_diag d = {0};
  /* Four cells east: four steps, two more with delay 2. */
  cr_assert_eq(run_greedy(g, 0, 1, 4, 1, NULL, 0, &res, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(res.status, MAPF_STATUS_OK);
  cr_assert_eq(res.agent[0].completion_step, 4);
  mapf_result_clear(&res);
  cr_assert_eq(run_greedy(g, 0, 1, 4, 1, (const char *const[]){"delay=2"}, 1, &res, &d),
               MAPF_OK, "%s", d.msg);
  cr_assert_eq(res.agent[0].completion_step, 6);
  mapf_result_clear(&res);
  /* Two diagonal steps, or four without diagonals. */
  cr_assert_eq(run_greedy(g, 0, 0, 2, 2, NULL, 0, &res, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(res.agent[0].completion_step, 2);
  cr_assert_float_eq(res.agent[0].travel_distance, 2 * MAPF_SQRT2, 1e-12);
  mapf_result_clear(&res);
  cr_assert_eq(run_greedy(g, 0, 0, 2, 2, (const char *const[]){"diagonal=false"}, 1, &res, &d),
               MAPF_OK, "%s", d.msg);
  cr_assert_eq(res.agent[0].completion_step, 4);
  mapf_result_clear(&res);
  /* stop 3: three steps east, then the agent stands still to the step limit. */
  cr_assert_eq(run_greedy(g, 0, 1, 4, 1, (const char *const[]){"stop=3"}, 1, &res, &d),
               MAPF_OK, "%s", d.msg);
  cr_assert_eq(res.status, MAPF_STATUS_LIMIT);
  cr_assert_eq(res.agent[0].final, mapf_grid_id(g, 3, 1));
  mapf_result_clear(&res);
  mapf_grid_free(g);
}

Test(algo, toy_rules_refuse_a_run_before_it_starts) {
  mapf_grid *g = test_open_grid(5, 5, "open");
  mapf_result res;
  mapf_diag d = {0};
  cr_assert_eq(run_greedy(g, 0, 1, 4, 1, (const char *const[]){"delay=2", "stop=2"}, 2, &res,
                          &d),
               MAPF_EINVAL);
  cr_assert_eq(res.status, MAPF_STATUS_ERROR);
  cr_assert_str_eq(res.message, "greedy: stop (2) must be after delay (2): no agent would move");
  mapf_result_clear(&res);
  mapf_grid_free(g);
}

/* The values reach their fields by name and offset, never by position: a table with its rows
 * in another order fills the same struct, and describes the same parameters by name. */
Test(algo, rows_in_any_order_fill_the_same_struct) {
  mapf_param_def rows[3];
  for (int i = 0; i < 3; i++) rows[i] = greedy_param_table[2 - i];
  mapf_algo_def swapped = mapf_algo_greedy;
  swapped.params = rows;
  mapf_diag d = {0};
  cr_assert_eq(mapf_algo_validate(&swapped, &d), MAPF_OK, "%s", d.msg);
  const mapf_algo_def *defs[2] = {&mapf_algo_greedy, &swapped};
  greedy_params typed[2];
  char json[2][128];
  for (int k = 0; k < 2; k++) {
    mapf_params p;
    mapf_params_default(defs[k], &p);
    test_set_param(defs[k], &p, "delay", 7);
    test_set_param(defs[k], &p, "stop", 9);
    test_set_param(defs[k], &p, "diagonal", 0);
    cr_assert_eq(mapf_params_fill(defs[k], &p, &typed[k], sizeof typed[k], &d), MAPF_OK);
    mapf_params_json(defs[k], &p, json[k], sizeof json[k]);
  }
  cr_assert_eq(memcmp(&typed[0], &typed[1], sizeof typed[0]), 0);
  cr_assert_eq(typed[1].delay, 7);
  cr_assert_eq(typed[1].stop, 9);
  cr_assert_str_eq(json[0], json[1]);
}

/* mapf_algo_validate finds the mistakes a table can make that no range check sees. */
Test(algo, validate_finds_broken_descriptions) {
  static const struct {
    int row;
    size_t offset;
    const char *name;
    double def;
    const char *what;
  } cases[] = {
      {1, offsetof(greedy_params, delay), "stop", 0, "its field overlaps another parameter's"},
      {2, sizeof(greedy_params), "diagonal", 1, "not an aligned field of the struct"},
      {0, offsetof(greedy_params, delay) + 1, "delay", 0, "not an aligned field of the struct"},
      {1, offsetof(greedy_params, stop), "delay", 0, "its name is repeated"},
      {0, offsetof(greedy_params, delay), "delay", 5000, "its default is out of its range"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    mapf_param_def rows[3];
    memcpy(rows, greedy_param_table, sizeof rows);
    rows[cases[k].row].offset = cases[k].offset;
    rows[cases[k].row].name = cases[k].name;
    rows[cases[k].row].def = cases[k].def;
    mapf_algo_def broken = mapf_algo_greedy;
    broken.params = rows;
    mapf_diag d = {0};
    cr_assert_eq(mapf_algo_validate(&broken, &d), MAPF_EINVAL, "case %zu", k);
    cr_assert(strstr(d.msg, cases[k].what) != NULL, "case %zu: %s", k, d.msg);
    cr_assert(strstr(d.msg, "algorithm greedy, parameter ") == d.msg, "%s", d.msg);
  }
  mapf_algo_def noplanner = mapf_algo_greedy;
  noplanner.vt = NULL;
  mapf_diag d = {0};
  cr_assert_eq(mapf_algo_validate(&noplanner, &d), MAPF_EINVAL);
  cr_assert_str_eq(d.msg, "algorithm greedy: no planner (vt)");
}
