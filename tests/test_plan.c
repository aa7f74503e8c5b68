/* test_plan.c: the YAML plan parser (farm/plan.c).
 *
 * A good plan gives the values it says; every bad plan in tests/data/plans/ gives exactly the
 * messages listed here, with line and column, all of them at once. */
#ifndef MAPFARM_SOURCE_DIR /* before testutil.h, which has a fallback */
#error "MAPFARM_SOURCE_DIR (the repository root) must be defined"
#endif

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "expand.h"
#include "hash.h"
#include "plan.h"
#include "scengen.h"
#include "testutil.h"

#define PLANS MAPFARM_SOURCE_DIR "/tests/data/plans"

static const char *const map_dirs[] = {PLANS "/maps"};
static const farm_plan_opts opts = {map_dirs, 1};

static farm_plan *load_good(const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", PLANS, file);
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  int rc = farm_plan_load(path, &opts, &p, &errs);
  char *all = test_format_diags(&errs);
  cr_assert_eq(rc, MAPF_OK, "%s: rc %d, errors:\n%s", file, rc, all);
  cr_assert_not_null(p);
  free(all);
  farm_diags_free(&errs);
  return p;
}

/* Parses text (named mem/plan.yaml) and returns the formatted errors, or NULL when it parsed;
 * *rc gets the return code. */
static char *parse_text(const char *text, int *rc) {
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  *rc = farm_plan_parse(text, strlen(text), "mem/plan.yaml", &opts, &p, &errs);
  char *all = errs.n ? test_format_diags(&errs) : NULL;
  cr_assert_eq(*rc == MAPF_OK, p != NULL);
  cr_assert_eq(*rc == MAPF_OK, errs.n == 0, "rc %d with %d errors", *rc, (int)errs.n);
  farm_plan_free(p);
  farm_diags_free(&errs);
  return all;
}

Test(plan, parses_every_key_of_a_good_plan) {
  farm_plan *p = load_good("good.yaml");
  cr_assert_str_eq(p->name, "quick");
  cr_assert_eq(p->seed, 7);
  cr_assert_str_eq(p->path, PLANS "/good.yaml");

  cr_assert_eq(p->nmaps, 4);
  cr_assert_str_eq(p->maps[0].source, "maps/tiny.map");
  cr_assert_str_eq(p->maps[0].path, PLANS "/maps/tiny.map");
  cr_assert_eq(p->maps[0].generated, 0);
  cr_assert_eq(p->maps[0].line, 5);
  cr_assert_eq(p->maps[0].col, 5);
  const farm_map_spec *r = &p->maps[1];
  cr_assert(r->generated);
  cr_assert_null(r->path);
  cr_assert_eq(r->gen.kind, MAPF_MAPGEN_RANDOM);
  cr_assert_eq(r->gen.width, 16);
  cr_assert_eq(r->gen.height, 12);
  cr_assert_float_eq(r->gen.density, 0.2, 0);
  cr_assert_eq(r->gen.seed, 3);
  cr_assert_str_eq(r->source, "random-16x12-d0.2-s3");
  const farm_map_spec *rooms = &p->maps[2];
  cr_assert_eq(rooms->gen.kind, MAPF_MAPGEN_ROOMS);
  cr_assert_eq(rooms->gen.room, 5);
  cr_assert_eq(rooms->gen.doors, 2);
  cr_assert_eq(rooms->gen.seed, 0, "the map seed defaults to 0, whatever the plan seed");
  cr_assert_str_eq(rooms->source, "rooms-19x19-r5-k2-s0");
  const farm_map_spec *maze = &p->maps[3];
  cr_assert_eq(maze->gen.kind, MAPF_MAPGEN_MAZE);
  cr_assert_eq(maze->gen.corridor, 2);
  cr_assert_str_eq(maze->source, "maze-15x15-c2-s0");

  cr_assert_eq(p->nscens, 2);
  cr_assert_str_eq(p->scens[0].generator, "random");
  cr_assert_eq(p->scens[0].nagents, 2);
  cr_assert_eq(p->scens[0].agents[0], 2);
  cr_assert_eq(p->scens[0].agents[1], 4);
  cr_assert_eq(p->scens[0].instances, 3);
  cr_assert_str_eq(p->scens[1].generator, "random", "generator defaults to random");
  cr_assert_eq(p->scens[1].nagents, 3, "range [5, 9, 2] includes 9");
  cr_assert_eq(p->scens[1].agents[0], 5);
  cr_assert_eq(p->scens[1].agents[1], 7);
  cr_assert_eq(p->scens[1].agents[2], 9);
  cr_assert_eq(p->scens[1].instances, 1);

  cr_assert_eq(p->nalgos, 2);
  const farm_algo_spec *a = &p->algos[0];
  cr_assert_str_eq(a->def->name, "bmaa");
  /* Its expansions vary and its label names nothing: the label names what varies. */
  cr_assert_str_eq(a->label, "BMAA*-f expansions={expansions}");
  cr_assert(a->label_template);
  cr_assert_eq(a->naxes, 2);
  cr_assert_eq(a->axes[0].index, mapf_param_index(a->def, "expansions"));
  cr_assert_eq(a->axes[0].nvalues, 2);
  cr_assert_float_eq(a->axes[0].values[0], 16, 0);
  cr_assert_float_eq(a->axes[0].values[1], 32, 0);
  cr_assert_eq(a->axes[1].index, mapf_param_index(a->def, "push"));
  cr_assert_float_eq(a->axes[1].values[0], 1, 0);
  cr_assert_eq(a->ncombos, 2);
  const farm_algo_spec *b = &p->algos[1];
  cr_assert_str_eq(b->label, "BMAA* vision={vision}",
                   "label defaults to the registry's, with what varies");
  cr_assert_eq(b->ncombos, 2);
  cr_assert_eq(b->axes[0].index, mapf_param_index(b->def, "vision"));
  cr_assert_float_eq(b->axes[0].values[1], MAPF_SQRT2, 0);
  cr_assert_eq(b->axes[1].index, mapf_param_index(b->def, "moves"));

  cr_assert_eq(p->limits.steps, 500);
  cr_assert_float_eq(p->limits.seconds, 2.5, 0);
  cr_assert_eq(p->limits.expansions, 0);
  cr_assert_eq(p->execution, MAPF_EXEC_SINGLE_PASS);
  farm_plan_free(p);
}

Test(plan, keeps_the_text_and_its_hash) {
  farm_plan *p = load_good("good.yaml");
  FILE *f = fopen(PLANS "/good.yaml", "rb");
  cr_assert_not_null(f);
  char buf[8192];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  cr_assert_eq(p->text_len, n);
  cr_assert_eq(memcmp(p->text, buf, n), 0);
  cr_assert_eq(p->text[n], '\0');
  char hex[33];
  mapf_hash128_hex(mapf_hash128_of(buf, n), hex);
  cr_assert_str_eq(p->hash, hex);
  farm_plan_free(p);
}

Test(plan, fills_defaults) {
  const char *text = "name: d\n"
                     "maps: [tiny.map]\n"
                     "scenarios: [{agents: 3}]\n"
                     "algorithms: [{name: bmaa}]\n";
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  cr_assert_eq(farm_plan_parse(text, strlen(text), "mem/plan.yaml", &opts, &p, &errs), MAPF_OK);
  cr_assert_eq(p->seed, 1);
  cr_assert_eq(p->limits.steps, 10000);
  cr_assert_float_eq(p->limits.seconds, 0, 0);
  cr_assert_eq(p->limits.expansions, 0);
  cr_assert_eq(p->execution, MAPF_EXEC_CHAINS);
  cr_assert_eq(p->scens[0].instances, 1);
  cr_assert_str_eq(p->scens[0].generator, "random");
  cr_assert_str_eq(p->algos[0].label, "BMAA*");
  cr_assert_eq(p->algos[0].naxes, 0);
  cr_assert_eq(p->algos[0].ncombos, 1);
  /* Not next to the plan (mem/ does not exist): found under the map directory. */
  cr_assert_str_eq(p->maps[0].path, PLANS "/maps/tiny.map");
  cr_assert_str_eq(p->maps[0].source, "tiny.map");
  farm_plan_free(p);
  farm_diags_free(&errs);
}

Test(plan, accepts_yaml_booleans_and_quoted_values) {
  const char *text = "name: b\n"
                     "seed: \"18446744073709551615\"\n"
                     "maps: [tiny.map]\n"
                     "scenarios: [{agents: '3'}]\n"
                     "algorithms:\n"
                     "  - {name: bmaa, label: a, params: {push: True, vision: \"sqrt2\"}}\n"
                     "  - {name: bmaa, label: b, params: {push: off, flow: NO}}\n";
  int rc;
  char *all = parse_text(text, &rc);
  cr_assert_eq(rc, MAPF_OK, "%s", all ? all : "");
}

/* store: {agents: false} turns agent rows off; it is not part of job keys, and its value is a
 * YAML boolean. */
Test(plan, store_agents_is_a_boolean_and_not_part_of_job_keys) {
  const char *base = "name: s\n"
                     "maps: [tiny.map]\n"
                     "scenarios: [{agents: 3, instances: 4}]\n"
                     "algorithms: [{name: bmaa}]\n";
  const char *store[] = {"", "store: {agents: false}\n", "store: {agents: Yes}\n",
                         "store: {agents: off}\n"};
  const int want[] = {1, 0, 1, 0};
  char keys[4][4][33];
  for (int k = 0; k < 4; k++) {
    char text[512];
    snprintf(text, sizeof text, "%s%s", base, store[k]);
    farm_diags errs = {0, 0, NULL};
    farm_plan *p = NULL;
    cr_assert_eq(farm_plan_parse(text, strlen(text), "mem/plan.yaml", &opts, &p, &errs), MAPF_OK,
                 "%s", store[k]);
    cr_expect_eq(p->store_agents, want[k], "%s", store[k]);
    farm_space sp = {0};
    cr_assert_eq(farm_space_init(&sp, p, &errs), MAPF_OK);
    cr_assert_eq(sp.njobs, 4);
    for (int64_t i = 0; i < 4; i++) {
      farm_job j;
      farm_space_job(&sp, i, &j);
      memcpy(keys[k][i], j.key_hex, 33);
      cr_expect_str_eq(keys[k][i], keys[0][i], "%s: job %d", store[k], (int)i);
    }
    farm_space_free(&sp);
    farm_plan_free(p);
    farm_diags_free(&errs);
  }
  const struct {
    const char *store, *error;
  } bad[] = {
      {"store: {agents: maybe}\n", "5:17: error: store: agents: expected true or false, found "
                                   "\"maybe\""},
      {"store: {rows: false}\n", "5:9: error: unknown key \"rows\" in store (expected agents)"},
      {"store: false\n", "5:8: error: store: expected a mapping (agents), found \"false\""},
  };
  for (int k = 0; k < 3; k++) {
    char text[512];
    snprintf(text, sizeof text, "%s%s", base, bad[k].store);
    int rc;
    char *all = parse_text(text, &rc);
    cr_expect_eq(rc, MAPF_EINVAL);
    cr_expect(all && strstr(all, bad[k].error), "%s: got\n%s", bad[k].store, all ? all : "");
    free(all);
  }
}

Test(plan, free_null_is_a_no_op) { farm_plan_free(NULL); }

Test(plan, missing_file_is_an_io_error) {
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = (farm_plan *)&errs; /* must be reset */
  cr_assert_eq(farm_plan_load(PLANS "/no-such-plan.yaml", &opts, &p, &errs), MAPF_EIO);
  cr_assert_null(p);
  cr_assert_eq(errs.n, 1);
  char *all = test_format_diags(&errs);
  cr_assert_str_eq(all, PLANS "/no-such-plan.yaml: error: cannot open file: No such file or "
                              "directory\n");
  free(all);
  farm_diags_free(&errs);
}

/* ---- the table of bad plans ---------------------------------------------------------------- */

#define MAX_EXPECT 16

/* One plan file with one kind of mistake, and every message it must give: "L:C: error: ..."
 * after the plan's path; @DIR@ stands for the plans folder. */
struct bad_plan {
  const char *file;
  int rc;
  const char *expect[MAX_EXPECT];
};

static struct bad_plan bad_plans[] = {
    {"unknown_key.yaml",
     MAPF_EINVAL,
     {"2:1: error: unknown top-level key \"mpas\"; did you mean \"maps\"?",
      "1:1: error: missing required key \"maps\""}},
    {"wrong_type.yaml",
     MAPF_EINVAL,
     {"2:7: error: seed: expected an integer >= 0, found \"-3\"",
      "3:7: error: maps: expected a non-empty list of map files and generate entries, found "
      "\"maps/tiny.map\"",
      "8:17: error: steps: expected an integer >= 1, found \"0\"",
      "8:29: error: seconds: expected a number >= 0, found \"soon\"",
      "8:47: error: expansions: expected an integer >= 0, found \"1.5\""}},
    {"bad_agents.yaml",
     MAPF_EINVAL,
     {"6:13: error: agents: expected an integer >= 1, found \"lots\"",
      "7:16: error: instances: expected an integer >= 1, found \"0\""}},
    {"bad_range.yaml",
     MAPF_EINVAL,
     {"4:21: error: range: expected from <= to, found [10, 5, 1]",
      "5:21: error: range: [1, 1000000, 1] gives 1000000 agent counts; at most 100000 are "
      "allowed",
      "6:28: error: range: expected an integer >= 1, found \"0\"",
      "7:21: error: range: expected [from, to, step], found a list"}},
    {"unknown_algorithm.yaml",
     MAPF_EINVAL,
     {"5:11: error: unknown algorithm \"bmma\"; did you mean \"bmaa\"?"}},
    {"unknown_param.yaml",
     MAPF_EINVAL,
     {"8:7: error: unknown key \"visoin\" in params of bmaa; did you mean \"vision\"?"}},
    {"algorithm_rule.yaml",
     MAPF_EINVAL,
     {"7:5: error: whca: replan (8) must be at most window (4): an agent has no plan beyond its "
      "window",
      "9:5: error: whca: replan (4) must be at most window (2): an agent has no plan beyond its "
      "window (1 of 2 combinations, first {\"memory\":1024,\"replan\":4,\"rotate\":true,"
      "\"wait\":1,\"window\":2})"}},
    {"missing_map.yaml",
     MAPF_EINVAL,
     {"4:5: error: map file not found: \"no/such/file.map\" (looked in: @DIR@, @DIR@/maps)"}},
    {"alias.yaml",
     MAPF_EINVAL,
     {"4:5: error: anchors and aliases are not supported (found anchor \"&small\"); write the "
      "value out",
      "5:5: error: aliases are not supported (found \"*small\"); write the value out"}},
    {"syntax.yaml",
     MAPF_EPARSE,
     {"3:10: error: invalid YAML: did not find expected ',' or ']' (while parsing a flow "
      "sequence at line 2, column 7)"}},
    {"three_errors.yaml",
     MAPF_EINVAL,
     {"5:18: error: agents: expected an integer >= 1, found \"lots\"",
      "8:30: error: unknown key \"visoin\" in params of bmaa; did you mean \"vision\"?",
      "9:12: error: unknown execution \"chain\"; did you mean \"chains\"?"}},
    {"duplicate_key.yaml",
     MAPF_EINVAL,
     {"3:1: error: duplicate key \"name\" (first given at line 1, column 1)",
      "6:5: error: duplicate key \"agents\" (first given at line 5, column 5)"}},
    {"missing_keys.yaml",
     MAPF_EINVAL,
     {"1:1: error: missing required key \"name\"", "1:1: error: missing required key \"maps\"",
      "3:5: error: missing required key \"agents\" in scenario",
      "1:1: error: missing required key \"algorithms\""}},
    {"bad_generate.yaml",
     MAPF_EINVAL,
     {"3:22: error: unknown map kind \"rooom\" (expected random, rooms or maze)",
      "4:37: error: width: expected an integer >= 1, found \"0\"",
      "4:61: error: density: expected a number in [0, 0.9], found \"0.95\"",
      "4:67: error: key \"room\" does not apply to kind random",
      "5:15: error: a 16384x16384 map has more than 67108864 cells",
      "6:15: error: missing required key \"kind\" in generate",
      "6:15: error: missing required key \"height\" in generate",
      "7:15: error: generate: expected a mapping (kind, width, height, ...), found \"5\"",
      "8:53: error: unknown key \"path\" in map entry (expected generate)"}},
    {"bad_values.yaml",
     MAPF_EINVAL,
     {"3:25: error: unknown scenario generator \"randon\"; did you mean \"random\"?",
      "6:12: error: label: expected a non-empty string, found \"\"",
      "7:26: error: expansions: expected an integer in [1, 10000000], found 0.5",
      "7:39: error: vision: expected a number, found \"far\"",
      "7:50: error: push: expected a boolean, found \"maybe\"",
      "7:64: error: moves: expected a value or a non-empty list of values, found an empty list",
      "7:74: error: flow: expected a value or a non-empty list of values, found a mapping",
      "8:12: error: execution: expected a non-empty string, found a list",
      "9:15: error: connectivity: expected 4 or 8, found \"6\""}},
    {"repeated_maps.yaml",
     MAPF_EINVAL,
     {"6:5: error: map \"maps/tiny.map\" is listed twice (first at line 3, column 5); its jobs "
      "would repeat",
      "7:5: error: map \"random-8x8-d0.2-s0\" is listed twice (first at line 4, column 5); its "
      "jobs would repeat"}},
    {"repeated_agents.yaml",
     MAPF_EINVAL,
     {"4:20: error: agents: 2 is listed twice",
      "7:13: error: agents: 4 is also in the scenario at line 5, column 5; its instances would "
      "run twice",
      "8:13: error: agents: 4 is also in the scenario at line 5, column 5; its instances would "
      "run twice"}},
    {"repeated_params.yaml",
     MAPF_EINVAL,
     {"6:31: error: expansions: 16 is listed twice", "6:54: error: vision: 1 is listed twice"}},
    {"repeated_algorithms.yaml",
     MAPF_EINVAL,
     {"7:5: error: algorithm bmaa with parameters {\"expansions\":32,\"flow\":false,\"moves\":32,"
      "\"push\":false,\"vision\":1.4142135623730951} is also the entry at line 5, column 5; its "
      "jobs would run twice (labels are not part of a job)",
      "10:5: error: algorithm bmaa with parameters {\"expansions\":16,\"flow\":false,\"moves\":32,"
      "\"push\":false,\"vision\":1.4142135623730951} is also the entry at line 5, column 5; its "
      "jobs would run twice (labels are not part of a job)"}},
    {"too_many_jobs.yaml",
     MAPF_EINVAL,
     {"1:1: error: the plan has 6000000000 jobs; at most 1000000000 are allowed (2 maps x "
      "1000000000 instances x 3 algorithm configurations)"}},
    {"two_documents.yaml",
     MAPF_EINVAL,
     {"5:1: error: a plan is a single YAML document; found a second one"}},
    {"not_a_mapping.yaml",
     MAPF_EINVAL,
     {"1:1: error: expected a mapping of plan keys (name, seed, maps, scenarios, defaults, limits, "
      "algorithms, execution, connectivity, coherence_every, store), found a list"}},
    {"bad_zip.yaml",
     MAPF_EINVAL,
     {"7:11: error: expansions: already varied in params (line 6, column 14); a parameter may "
      "be in only one of params, zip and sample",
      "9:39: error: zip: vision has 2 values and moves has 3; the lists of a zip group must "
      "have equal lengths",
      "11:45: error: unknown key \"visoin\" in zip of bmaa; did you mean \"vision\"?",
      "11:30: error: moves: already varied in zip (line 11, column 12); a parameter may be in "
      "only one of params, zip and sample",
      "13:32: error: zip: expansions 16, moves 8 is listed twice (positions 1 and 3)",
      "15:19: error: moves: expected a non-empty list of values, found \"8\"",
      "15:23: error: zip: expected a mapping of parameter names to lists, found a list",
      "15:31: error: zip: expected a mapping of parameter names to lists, found an empty "
      "mapping"}},
    {"bad_exclude.yaml",
     MAPF_EINVAL,
     {"8:34: error: exclude: expansions: 61 never occurs in this entry (its values: 16, 32)",
      "9:10: error: unknown key \"pushh\" in exclude of bmaa; did you mean \"push\"?",
      "10:16: error: exclude: flow: true never occurs in this entry (its value: false)",
      "11:22: error: expansions: expected a single value, found a list",
      "12:9: error: exclude: expected a mapping of parameter names to values, found an empty "
      "mapping",
      "16:5: error: exclude: all 2 combinations of this entry are excluded; it would give no "
      "jobs",
      "21:23: error: exclude: moves: 5 never occurs in this entry (its values: 4, 8)",
      "21:36: error: exclude: vision: 3 never occurs in this entry (it is drawn from uniform "
      "[1, 2])",
      "23:14: error: exclude: expected a list of mappings of parameter names to values, found "
      "\"true\""}},
    {"bad_sample.yaml",
     MAPF_EINVAL,
     {"6:21: error: count: expected an integer >= 1, found \"0\"",
      "6:30: error: seed: expected an integer >= 0, found \"-1\"",
      "6:65: error: vision: expected a number in [0, 1000000], found 2000000",
      "11:16: error: uniform: push is a boolean; use choice: [false, true]",
      "12:22: error: unknown key \"unifrom\" in distribution of expansions; did you mean "
      "\"uniform\"?",
      "13:27: error: uniform: expected lo < hi, found [3, 1]",
      "14:30: error: moves: expected an integer in [1, 1000000], found 0",
      "15:31: error: flow: true is listed twice",
      "18:33: error: vision: already varied in params (line 17, column 14); a parameter may be "
      "in only one of params, zip and sample",
      "18:66: error: moves: expected a distribution ({uniform: [lo, hi]}, {loguniform: [lo, "
      "hi]} or {choice: [values]}), found \"8\"",
      "18:99: error: expansions: expected one distribution, found uniform and choice",
      "20:13: error: missing required key \"count\" in sample",
      "20:41: error: moves: expected an integer in [1, 1000000], found 1.5",
      "22:13: error: sample: expected a mapping (count, seed, params), found a list",
      "24:5: error: unknown key \"smaple\" in algorithm; did you mean \"sample\"?"}},
    {"bad_defaults.yaml",
     MAPF_EINVAL,
     {"5:3: error: unknown key \"bmma\" in defaults; did you mean \"bmaa\"?",
      "6:32: error: unknown key \"visoin\" in defaults of bmaa; did you mean \"vision\"?",
      "6:22: error: expansions: expected a single value, found a list",
      "6:50: error: moves: expected an integer in [1, 1000000], found 0"}},
    {"bad_label.yaml",
     MAPF_EINVAL,
     {"6:12: error: label: unknown parameter \"expnsions\" in \"{expnsions}\"; did you mean "
      "\"expansions\"?",
      "9:12: error: label: unknown parameter \"zzz\" in \"{zzz}\" (expected expansions, moves, "
      "vision, push or flow)",
      "12:12: error: label: \"{\" without a matching \"}\" in \"BMAA* {expansions\"; write "
      "\"{{\" for a literal brace",
      "15:12: error: label: \"}\" without a matching \"{\" in \"BMAA* }\"; write \"}}\" for a "
      "literal brace",
      "18:12: error: label: an empty placeholder \"{}\" in \"BMAA* {}\"; write a parameter "
      "name, e.g. \"{expansions}\""}},
    {"empty.yaml",
     MAPF_EINVAL,
     {"1:1: error: the plan is empty; expected a mapping with name, maps, scenarios and "
      "algorithms"}},
};

/* Replaces every @DIR@ in s by the plans folder, appending to out. */
static void append_expanded(char *out, size_t cap, const char *s) {
  size_t len = strlen(out);
  while (*s && len + 1 < cap) {
    if (!strncmp(s, "@DIR@", 5)) {
      len += (size_t)snprintf(out + len, cap - len, "%s", PLANS);
      s += 5;
    } else {
      out[len++] = *s++;
      out[len] = '\0';
    }
  }
}

/* Criterion may run each case in a fresh process where pointers into this one's static data
 * are meaningless, so the parameter is the index into bad_plans. */
ParameterizedTestParameters(plan, reports_every_mistake_with_its_place) {
  static int idx[sizeof bad_plans / sizeof bad_plans[0]];
  for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) idx[i] = (int)i;
  return cr_make_param_array(int, idx, sizeof idx / sizeof idx[0]);
}

ParameterizedTest(int *which, plan, reports_every_mistake_with_its_place) {
  const struct bad_plan *bp = &bad_plans[*which];
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", PLANS, bp->file);
  char want[8192] = "";
  for (int i = 0; i < MAX_EXPECT && bp->expect[i]; i++) {
    append_expanded(want, sizeof want, path);
    append_expanded(want, sizeof want, ":");
    append_expanded(want, sizeof want, bp->expect[i]);
    append_expanded(want, sizeof want, "\n");
  }
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  int rc = farm_plan_load(path, &opts, &p, &errs);
  char *got = test_format_diags(&errs);
  cr_expect_str_eq(got, want, "%s: got\n%s\nwant\n%s", bp->file, got, want);
  cr_expect_eq(rc, bp->rc, "%s: rc %d, want %d", bp->file, rc, bp->rc);
  cr_expect_null(p);
  free(got);
  farm_plan_free(p);
  farm_diags_free(&errs);
}

/* ---- bounds: a hostile plan costs bounded memory and reports a bounded number of errors ---- */

/* Returns a fresh buffer: head, then `count` copies of item separated by sep, then tail. */
static char *repeat(const char *head, const char *item, const char *sep, long count,
                    const char *tail) {
  size_t cap = strlen(head) + (size_t)count * (strlen(item) + strlen(sep)) + strlen(tail) + 1;
  char *s = malloc(cap);
  cr_assert_not_null(s);
  size_t len = 0;
  len += (size_t)sprintf(s + len, "%s", head);
  for (long i = 0; i < count; i++) len += (size_t)sprintf(s + len, "%s%s", i ? sep : "", item);
  sprintf(s + len, "%s", tail);
  return s;
}

Test(plan, stops_after_fifty_errors) {
  char *text = repeat("name: many\nmaps: [tiny.map]\nscenarios: [{agents: [", "x", ", ", 80,
                      "]}]\nalgorithms: [{name: bmaa}]\n");
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  int rc = farm_plan_parse(text, strlen(text), "mem/plan.yaml", &opts, &p, &errs);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert_eq(errs.n, 51);
  cr_assert_str_eq(errs.items[0].msg, "agents: expected an integer >= 1, found \"x\"");
  cr_assert_eq(errs.items[0].line, 3);
  cr_assert_eq(errs.items[0].col, 23);
  cr_assert_str_eq(errs.items[50].msg,
                   "too many errors (more than 50); stopping here: fix these first");
  cr_assert_null(p);
  farm_diags_free(&errs);
  free(text);
}

Test(plan, refuses_deep_nesting) {
  char *open = repeat("name: deep\nx: ", "[", "", 100, "");
  char *text = repeat(open, "]", "", 100, "\n");
  int rc;
  char *all = parse_text(text, &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert_str_eq(all, "mem/plan.yaml:2:67: error: lists and mappings nested deeper than 64 "
                        "levels; refusing to read further\n");
  free(all);
  free(open);
  free(text);
}

Test(plan, refuses_a_list_longer_than_the_limit) {
  char *text = repeat("name: long\nmaps: [", "a", ",", 100001, "]\n");
  int rc;
  char *all = parse_text(text, &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert_str_eq(all, "mem/plan.yaml:2:7: error: a list with more than 100000 entries; "
                        "refusing to read further\n");
  free(all);
  free(text);
}

Test(plan, refuses_aliases_without_expanding_them) {
  /* The "billion laughs": each alias is one error, nothing is expanded. */
  const char *text = "name: laughs\n"
                     "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                     "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n";
  int rc;
  char *all = parse_text(text, &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert(strstr(all, "mem/plan.yaml:3:8: error: aliases are not supported (found \"*a\")"), "%s",
            all);
  free(all);
}

Test(plan, reports_invalid_utf8_with_its_place) {
  const char *text = "name: ok\nmaps: [\xff]\n";
  int rc;
  char *all = parse_text(text, &rc);
  cr_assert_eq(rc, MAPF_EPARSE);
  cr_assert_str_eq(all, "mem/plan.yaml:2:8: error: invalid YAML: invalid leading UTF-8 octet "
                        "(byte 0xff)\n");
  free(all);
}

Test(plan, refuses_too_many_parameter_combinations) {
  /* 1000 expansions x 1001 moves values: more than 10^6 combinations. */
  size_t cap = 64000;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  size_t len = (size_t)sprintf(text, "name: combos\nmaps: [tiny.map]\nscenarios: [{agents: 1}]\n"
                                     "algorithms:\n  - name: bmaa\n    params:\n"
                                     "      expansions: [");
  for (int i = 1; i <= 1000; i++) len += (size_t)sprintf(text + len, "%s%d", i > 1 ? "," : "", i);
  len += (size_t)sprintf(text + len, "]\n      moves: [");
  for (int i = 1; i <= 1001; i++) len += (size_t)sprintf(text + len, "%s%d", i > 1 ? "," : "", i);
  sprintf(text + len, "]\n");
  int rc;
  char *all = parse_text(text, &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert_str_eq(all, "mem/plan.yaml:6:5: error: params of bmaa: 1001000 combinations; the "
                        "algorithms may give at most 1000000 in all\n");
  free(all);
  free(text);
}

Test(plan, refuses_a_plan_larger_than_16_mib) {
  size_t len = ((size_t)16 << 20) + 1;
  char *text = malloc(len + 1);
  cr_assert_not_null(text);
  memset(text, '#', len);
  text[len] = '\0';
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  cr_assert_eq(farm_plan_parse(text, len, "big.yaml", &opts, &p, &errs), MAPF_EINVAL);
  cr_assert_null(p);
  cr_assert_eq(errs.n, 1);
  cr_assert_str_eq(errs.items[0].msg, "the plan is larger than 16 MiB");
  farm_diags_free(&errs);
  free(text);
}

/* ---- zip, exclude, sample, defaults, label templates ------------------------------------- */

/* Parses text that must be valid and returns the plan (free it). */
static farm_plan *parse_good(const char *text) {
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  int rc = farm_plan_parse(text, strlen(text), "mem/plan.yaml", &opts, &p, &errs);
  char *all = test_format_diags(&errs);
  cr_assert_eq(rc, MAPF_OK, "rc %d, errors:\n%s\nplan:\n%s", rc, all, text);
  free(all);
  farm_diags_free(&errs);
  return p;
}

/* The resolved parameters of combination k of entry a as canonical JSON. */
static void combo_json(const farm_plan *p, int32_t a, int64_t k, char *buf, size_t n) {
  mapf_params v;
  farm_algo_combo(&p->algos[a], k, &v);
  mapf_params_json(p->algos[a].def, &v, buf, n);
}

#define HEAD "name: x\nmaps: [tiny.map]\nscenarios: [{agents: 2}]\n"

/* Two entries whose values differ only in the sign of zero are one configuration. */
Test(plan, minus_zero_and_zero_are_one_configuration) {
  int rc;
  char *all = parse_text(HEAD "algorithms:\n"
                              "  - {name: bmaa, label: A, params: {vision: 0}}\n"
                              "  - {name: bmaa, label: B, params: {vision: -0}}\n",
                         &rc);
  cr_assert_neq(rc, MAPF_OK);
  cr_assert_not_null(strstr(all, "mem/plan.yaml:6:5: error: algorithm bmaa with parameters "
                                 "{\"expansions\":32,\"flow\":false,\"moves\":32,\"push\":false,"
                                 "\"vision\":0} is also the entry at line 5, column 5"),
                    "%s", all);
  free(all);
}

/* Labels are what tables group by: two configurations under one label are an error, whether
 * from two entries or from a template that leaves out a varied parameter. */
Test(plan, one_label_names_one_configuration) {
  static const struct {
    const char *algos, *want;
  } cases[] = {
      {"  - {name: bmaa, label: B, params: {vision: 1}}\n"
       "  - {name: bmaa, label: B, params: {vision: 2}}\n",
       "mem/plan.yaml:6:5: error: label \"B\" is also the label of the entry at line 5, column "
       "5, which has another configuration (bmaa {\"expansions\":32,\"flow\":false,\"moves\":32,"
       "\"push\":false,\"vision\":1} there, bmaa {\"expansions\":32,\"flow\":false,\"moves\":32,"
       "\"push\":false,\"vision\":2} here); tables would average the two as one: give each its "
       "own label or name what differs (add {vision})"},
      /* Another algorithm under the same label (here the registry's, twice). */
      {"  - {name: far, label: X}\n  - {name: astar-replan, label: X}\n",
       "mem/plan.yaml:6:5: error: label \"X\" is also the label of the entry at line 5, column "
       "5, which has another configuration (far"},
      {"  - {name: bmaa}\n  - {name: bmaa, params: {push: true}}\n",
       "mem/plan.yaml:6:5: error: label \"BMAA*\" is also the label of the entry at line 5"},
      /* A template that names one of two varied parameters. */
      {"  - {name: bmaa, label: \"V {vision}\", params: {vision: [3, 4], moves: [4, 8]}}\n",
       "mem/plan.yaml:5:5: error: label \"V 3\" names two configurations of this entry, bmaa "
       "{\"expansions\":32,\"flow\":false,\"moves\":4,\"push\":false,\"vision\":3} and "
       "{\"expansions\":32,\"flow\":false,\"moves\":8,\"push\":false,\"vision\":3}; name every "
       "varied parameter in the label (add {moves})"},
      /* Entries that differ only in their own limits: the message shows them. */
      {"  - {name: far}\n  - {name: far, limits: {steps: 20}}\n",
       "mem/plan.yaml:6:5: error: label \"FAR\" is also the label of the entry at line 5, column "
       "5, which has another configuration (far {\"flow\":true,\"replan_after\":5,"
       "\"reservation\":3} under limits {steps: 10000, seconds: 0, expansions: 0, work: 0} there, "
       "far {\"flow\":true,\"replan_after\":5,\"reservation\":3} under limits {steps: 20, "
       "seconds: 0, expansions: 0, work: 0} here)"},
      /* An automatic label meeting a plain one. */
      {"  - {name: whca, params: {window: [4, 8]}}\n"
       "  - {name: whca, label: \"WHCA* window=8\", params: {window: 8, wait: 2}}\n",
       "mem/plan.yaml:6:5: error: label \"WHCA* window=8\" is also the label of the entry at line "
       "5, column 5"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char text[1024];
    snprintf(text, sizeof text, HEAD "algorithms:\n%s", cases[k].algos);
    int rc;
    char *all = parse_text(text, &rc);
    cr_assert_neq(rc, MAPF_OK, "%s", cases[k].algos);
    cr_assert_not_null(strstr(all, cases[k].want), "%s\ngot:\n%s", cases[k].algos, all);
    free(all);
  }
  /* One label over equal configurations is not a clash: the same entry twice is reported as
   * a repeat, once. */
  int rc;
  char *all = parse_text(HEAD "algorithms: [{name: bmaa, label: B}, {name: bmaa, label: B}]\n", &rc);
  cr_assert_not_null(strstr(all, "is also the entry at line 4, column 14"), "%s", all);
  cr_assert_null(strstr(all, "is also the label"), "%s", all);
  free(all);
}

Test(plan, an_untemplated_label_names_what_varies) {
  farm_plan *p = parse_good(HEAD "algorithms:\n"
                                 "  - {name: whca, params: {window: [4, 8], wait: 1}}\n"
                                 "  - {name: bmaa, label: \"B {{x}}\", zip: {moves: [4, 8], "
                                 "expansions: [16, 16]}, params: {push: [false, true]}}\n"
                                 "  - {name: dm, params: {weight: [0, 5]}, exclude: [{weight: 5}]}\n");
  char label[128];
  mapf_params v;
  farm_algo_combo(&p->algos[0], 1, &v);
  farm_algo_label(&p->algos[0], &v, label, sizeof label);
  cr_assert_str_eq(label, "WHCA* window=8", "wait is the same in every combination");
  farm_algo_combo(&p->algos[1], 3, &v);
  farm_algo_label(&p->algos[1], &v, label, sizeof label);
  cr_assert_str_eq(label, "B {x} moves=8 push=true", "registry order; expansions does not vary");
  /* What exclude leaves varies no more: one configuration, the plain label. */
  cr_assert_eq(p->algos[2].ncombos, 1);
  cr_assert_not(p->algos[2].label_template);
  cr_assert_str_eq(p->algos[2].label, "DM");
  farm_plan_free(p);
}

Test(plan, refuses_control_characters_in_labels) {
  static const char *const labels[] = {"\"a\\nb\"", "\"tab\\there\"", "\"bell\\a\"",
                                       "\"del\\x7f\"", "\"c1\\x85\""};
  for (size_t k = 0; k < sizeof labels / sizeof labels[0]; k++) {
    char text[512];
    snprintf(text, sizeof text, HEAD "algorithms:\n  - {name: bmaa, label: %s}\n", labels[k]);
    int rc;
    char *all = parse_text(text, &rc);
    cr_assert_neq(rc, MAPF_OK, "%s", labels[k]);
    cr_assert_not_null(strstr(all, "mem/plan.yaml:5:25: error: label: "), "%s", all);
    cr_assert_not_null(strstr(all, "holds a control character"), "%s", all);
    free(all);
  }
  /* Printable UTF-8 is fine. */
  farm_plan *p = parse_good(HEAD "algorithms: [{name: bmaa, label: \"BMAA* \u00e9\u2192\"}]\n");
  cr_assert_str_eq(p->algos[0].label, "BMAA* \u00e9\u2192");
  farm_plan_free(p);
}

Test(plan, parses_every_extension_of_an_algorithm_entry) {
  farm_plan *p = load_good("sweep.yaml");
  cr_assert_eq(p->nalgos, 3);
  char json[512];

  /* push [false, true] x zip (expansions, moves) of 3, less {push: true, expansions: 64}. */
  const farm_algo_spec *a = &p->algos[0];
  cr_assert_eq(a->naxes, 1);
  cr_assert_eq(a->nzips, 1);
  cr_assert_eq(a->zips[0].ncols, 2);
  cr_assert_eq(a->zips[0].nrows, 3);
  cr_assert_eq(a->zips[0].index[0], mapf_param_index(a->def, "expansions"));
  cr_assert_eq(a->zips[0].index[1], mapf_param_index(a->def, "moves"));
  cr_assert_eq(a->nraw, 6);
  cr_assert_eq(a->ncombos, 5);
  cr_assert_not_null(a->keep);
  static const int32_t keep[] = {0, 1, 2, 3, 4};
  cr_assert_eq(memcmp(a->keep, keep, sizeof keep), 0);
  cr_assert(a->label_template);
  cr_assert_str_eq(a->label, "BMAA* e={expansions} m={moves} p={push}");
  /* The defaults section set vision 2 (moves 8 is overridden by the zip). */
  cr_assert_float_eq(a->base.v[mapf_param_index(a->def, "vision")], 2, 0);
  cr_assert_float_eq(a->base.v[mapf_param_index(a->def, "moves")], 8, 0);
  combo_json(p, 0, 0, json, sizeof json);
  cr_assert_str_eq(json, "{\"expansions\":16,\"flow\":false,\"moves\":8,\"push\":false,"
                         "\"vision\":2}");
  combo_json(p, 0, 4, json, sizeof json);
  cr_assert_str_eq(json, "{\"expansions\":32,\"flow\":false,\"moves\":16,\"push\":true,"
                         "\"vision\":2}");

  /* 50 draws of (vision, moves, flow); all distinct (vision is a real). */
  const farm_algo_spec *b = &p->algos[1];
  cr_assert_eq(b->sample_count, 50);
  cr_assert_eq(b->sample_seed, 9);
  cr_assert_eq(b->sample.nrows, 50);
  cr_assert_eq(b->sample.ncols, 3);
  cr_assert_eq(b->ncombos, 50);
  cr_assert_null(b->keep);
  for (int32_t r = 0; r < b->sample.nrows; r++) {
    double vision = b->sample.values[r * 3], moves = b->sample.values[r * 3 + 1];
    cr_assert(vision >= 1 && vision <= 10, "vision %g", vision);
    cr_assert(moves >= 4 && moves <= 64 && moves == (double)(long long)moves, "moves %g", moves);
    cr_assert_float_eq(b->sample.values[r * 3 + 2], 0, 0);
  }
  cr_assert(b->label_template);
  mapf_params v;
  farm_algo_combo(b, 0, &v);
  cr_assert_float_eq(v.v[mapf_param_index(b->def, "expansions")], 128, 0);
  cr_assert_float_eq(v.v[mapf_param_index(b->def, "push")], 1, 0);

  /* push false x zip vision (2) x zip (expansions, moves) (2); a label without placeholders
   * names the varied parameters, in registry order, its braces kept literal. */
  const farm_algo_spec *c = &p->algos[2];
  cr_assert_eq(c->nzips, 2);
  cr_assert_eq(c->ncombos, 4);
  cr_assert_null(c->keep);
  cr_assert(c->label_template);
  cr_assert_str_eq(c->label,
                   "{{literal}} expansions={expansions} moves={moves} vision={vision}");
  combo_json(p, 2, 1, json, sizeof json);
  cr_assert_str_eq(json, "{\"expansions\":9,\"flow\":false,\"moves\":2,\"push\":false,"
                         "\"vision\":1}");
  combo_json(p, 2, 2, json, sizeof json);
  cr_assert_str_eq(json, "{\"expansions\":8,\"flow\":false,\"moves\":1,\"push\":false,"
                         "\"vision\":1.4142135623730951}");
  farm_plan_free(p);
}

Test(plan, zip_groups_multiply_with_params_not_with_each_other) {
  farm_plan *p = parse_good(HEAD "algorithms:\n"
                                 "  - name: bmaa\n"
                                 "    params: {push: [false, true]}\n"
                                 "    zip: {expansions: [16, 32, 64], moves: [8, 16, 32]}\n");
  cr_assert_eq(p->algos[0].ncombos, 6, "3 zipped combinations, not 9, times 2");
  char json[512];
  /* params outermost: push false with the three zipped pairs first. */
  static const char *const want[] = {"16,\"flow\":false,\"moves\":8,\"push\":false",
                                     "32,\"flow\":false,\"moves\":16,\"push\":false",
                                     "64,\"flow\":false,\"moves\":32,\"push\":false",
                                     "16,\"flow\":false,\"moves\":8,\"push\":true"};
  for (int k = 0; k < 4; k++) {
    combo_json(p, 0, k, json, sizeof json);
    cr_assert(strstr(json, want[k]), "combination %d: %s", k, json);
  }
  farm_plan_free(p);
}

Test(plan, zip_lists_may_repeat_values_when_rows_differ) {
  farm_plan *p = parse_good(HEAD "algorithms:\n"
                                 "  - {name: bmaa, zip: {expansions: [16, 16, 32], "
                                 "moves: [8, 16, 16]}}\n");
  cr_assert_eq(p->algos[0].ncombos, 3);
  farm_plan_free(p);
}

Test(plan, exclude_drops_every_combination_matching_all_its_keys) {
  farm_plan *p = parse_good(HEAD "algorithms:\n"
                                 "  - name: bmaa\n"
                                 "    params: {push: [false, true], expansions: [16, 32, 64], "
                                 "vision: [1, sqrt(2)]}\n"
                                 "    exclude: [{push: true, expansions: 64}, {vision: sqrt(2), "
                                 "expansions: 16}]\n");
  const farm_algo_spec *a = &p->algos[0];
  cr_assert_eq(a->nraw, 12);
  /* {push: true, expansions: 64}: 2 (both visions); {vision: sqrt(2), expansions: 16}: 2 (both
   * pushes); no overlap. */
  cr_assert_eq(a->ncombos, 8);
  for (int64_t k = 0; k < a->ncombos; k++) {
    mapf_params v;
    farm_algo_combo(a, k, &v);
    double push = v.v[mapf_param_index(a->def, "push")];
    double expansions = v.v[mapf_param_index(a->def, "expansions")];
    double vis = v.v[mapf_param_index(a->def, "vision")];
    cr_assert_not(push == 1 && expansions == 64, "combination %lld", (long long)k);
    cr_assert_not(vis == MAPF_SQRT2 && expansions == 16, "combination %lld", (long long)k);
    if (k) cr_assert_gt(a->keep[k], a->keep[k - 1], "ascending raw indices");
  }
  farm_plan_free(p);
}

Test(plan, exclude_compares_values_after_parsing) {
  /* 1.4142135623730951 is sqrt(2); a single mapping is one exclude entry. */
  farm_plan *p = parse_good(HEAD "algorithms:\n"
                                 "  - name: bmaa\n"
                                 "    params: {vision: [1, sqrt(2)], push: [no, yes]}\n"
                                 "    exclude: {vision: 1.4142135623730951, push: on}\n");
  cr_assert_eq(p->algos[0].ncombos, 3);
  farm_plan_free(p);
}

Test(plan, excluded_combinations_are_not_checked) {
  /* flow: true is refused by bmaa; excluding it leaves a valid entry. */
  farm_plan *p = parse_good(HEAD "algorithms:\n"
                                 "  - name: bmaa\n"
                                 "    params: {flow: [false, true], push: [false, true]}\n"
                                 "    exclude: [{flow: true}]\n");
  cr_assert_eq(p->algos[0].ncombos, 2);
  farm_plan_free(p);
}

Test(plan, defaults_replace_the_registry_and_params_override_them) {
  farm_plan *p = parse_good(HEAD "defaults: {bmaa: {expansions: 64, vision: 2, push: yes}}\n"
                                 "algorithms:\n"
                                 "  - {name: bmaa}\n"
                                 "  - {name: bmaa, label: b, params: {expansions: 16, push: false}}\n");
  char json[512];
  combo_json(p, 0, 0, json, sizeof json);
  cr_assert_str_eq(json, "{\"expansions\":64,\"flow\":false,\"moves\":32,\"push\":true,"
                         "\"vision\":2}");
  combo_json(p, 1, 0, json, sizeof json);
  cr_assert_str_eq(json, "{\"expansions\":16,\"flow\":false,\"moves\":32,\"push\":false,"
                         "\"vision\":2}");
  farm_plan_free(p);
}

Test(plan, defaults_are_checked_by_the_algorithm_rules) {
  int rc;
  char *all = parse_text(HEAD "defaults: {whca: {replan: 8}}\n"
                              "algorithms:\n"
                              "  - {name: whca, params: {window: [4, 16]}}\n"
                              "  - {name: whca, params: {replan: 2}}\n",
                         &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert_str_eq(all, "mem/plan.yaml:6:18: error: whca: replan (8) must be at most window (4): "
                        "an agent has no plan beyond its window (1 of 2 combinations, first "
                        "{\"memory\":1024,\"replan\":8,\"rotate\":true,\"wait\":1,"
                        "\"window\":4})\n");
  free(all);
}

/* The sampled rows of entry a as text, one per line, into a fresh string. */
static char *sample_rows(const farm_plan *p, int32_t a) {
  const farm_algo_spec *as = &p->algos[a];
  size_t cap = (size_t)as->sample.nrows * 600 + 1, len = 0;
  char *s = malloc(cap);
  cr_assert_not_null(s);
  s[0] = '\0';
  for (int32_t r = 0; r < as->sample.nrows; r++)
    for (int32_t k = 0; k < as->sample.ncols; k++) {
      char val[64];
      int32_t i = as->sample.index[k];
      mapf_param_format(as->def, i, as->sample.values[r * as->sample.ncols + k], val, sizeof val);
      len += (size_t)snprintf(s + len, cap - len, "%s=%s%s", as->def->params[i].name, val,
                              k + 1 == as->sample.ncols ? "\n" : " ");
    }
  return s;
}

Test(plan, samples_are_deterministic) {
  const char *text = HEAD "algorithms:\n"
                          "  - name: bmaa\n"
                          "    sample: {count: 20, seed: 5, params: {vision: {uniform: [1, 10]},"
                          " expansions: {uniform: [1, 100]}, moves: {loguniform: [1, 1000]},"
                          " push: {choice: [true, false]}}}\n";
  farm_plan *a = parse_good(text), *b = parse_good(text);
  char *ra = sample_rows(a, 0), *rb = sample_rows(b, 0);
  cr_assert_str_eq(ra, rb);
  cr_assert_eq(a->algos[0].sample.nrows, 20);
  free(ra);
  free(rb);
  farm_plan_free(a);
  farm_plan_free(b);
}

/* Column k of the sample of entry a, formatted, into a fresh string. */
static char *sample_column(const farm_plan *p, int32_t a, const char *name) {
  const farm_algo_spec *as = &p->algos[a];
  int32_t col = -1;
  for (int32_t k = 0; k < as->sample.ncols; k++)
    if (as->sample.index[k] == mapf_param_index(as->def, name)) col = k;
  cr_assert_geq(col, 0, "%s is sampled", name);
  char *s = malloc((size_t)as->sample.nrows * 64 + 1);
  cr_assert_not_null(s);
  size_t len = 0;
  s[0] = '\0';
  for (int32_t r = 0; r < as->sample.nrows; r++) {
    char val[40];
    mapf_param_format(as->def, as->sample.index[col], as->sample.values[r * as->sample.ncols + col],
                      val, sizeof val);
    len += (size_t)sprintf(s + len, "%s ", val);
  }
  return s;
}

Test(plan, a_parameter_draws_depend_only_on_the_seed_and_its_name) {
  farm_plan *a = parse_good(HEAD "algorithms:\n"
                                 "  - {name: bmaa, sample: {count: 10, seed: 5, params: "
                                 "{vision: {uniform: [1, 10]}}}}\n");
  /* Another entry before it, another parameter beside it, a larger count: vision's first ten
   * draws stay. */
  farm_plan *b = parse_good(HEAD "algorithms:\n"
                                 "  - {name: bmaa, params: {push: true}}\n"
                                 "  - {name: bmaa, sample: {count: 15, seed: 5, params: "
                                 "{moves: {uniform: [1, 9]}, vision: {uniform: [1, 10]}}}}\n");
  farm_plan *c = parse_good(HEAD "algorithms:\n"
                                 "  - {name: bmaa, sample: {count: 10, seed: 6, params: "
                                 "{vision: {uniform: [1, 10]}}}}\n");
  char *va = sample_column(a, 0, "vision"), *vb = sample_column(b, 1, "vision"),
       *vc = sample_column(c, 0, "vision");
  cr_assert_eq(strncmp(va, vb, strlen(va)), 0, "%s\n%s", va, vb);
  cr_assert_str_neq(va, vc, "another seed, other draws");
  free(va);
  free(vb);
  free(vc);
  farm_plan_free(a);
  farm_plan_free(b);
  farm_plan_free(c);
}

Test(plan, sample_draws_stay_inside_their_distribution) {
  farm_plan *p = parse_good(HEAD "algorithms:\n"
                                 "  - name: bmaa\n"
                                 "    sample:\n"
                                 "      count: 2000\n"
                                 "      params:\n"
                                 "        expansions: {uniform: [3, 5]}\n"
                                 "        moves: {loguniform: [2, 4]}\n"
                                 "        vision: {loguniform: [0.5, 8]}\n"
                                 "        push: {choice: [true, false]}\n");
  const farm_param_table *t = &p->algos[0].sample;
  int seen_e[6] = {0}, seen_m[5] = {0};
  for (int32_t r = 0; r < t->nrows; r++) {
    double e = t->values[r * 4], m = t->values[r * 4 + 1], v = t->values[r * 4 + 2];
    cr_assert(e >= 3 && e <= 5 && e == (double)(int)e, "expansions %g", e);
    cr_assert(m >= 2 && m <= 4 && m == (double)(int)m, "moves %g", m);
    cr_assert(v >= 0.5 && v <= 8, "vision %g", v);
    seen_e[(int)e] = 1;
    seen_m[(int)m] = 1;
  }
  cr_assert(seen_e[3] && seen_e[4] && seen_e[5], "both bounds of an integer uniform are drawn");
  cr_assert(seen_m[2] && seen_m[3] && seen_m[4], "both bounds of an integer loguniform");
  farm_plan_free(p);
}

Test(plan, duplicate_draws_are_dropped_silently) {
  farm_plan *p = parse_good(HEAD "algorithms:\n"
                                 "  - name: bmaa\n"
                                 "    params: {moves: [8, 16]}\n"
                                 "    sample: {count: 1000, params: {push: {choice: [false, true]},"
                                 " expansions: {choice: [16, 32]}}}\n");
  const farm_algo_spec *a = &p->algos[0];
  cr_assert_eq(a->sample_count, 1000);
  cr_assert_eq(a->sample.nrows, 4, "four distinct configurations");
  cr_assert_eq(a->nraw, 8);
  cr_assert_eq(a->ncombos, 8, "each sampled configuration with every params combination");
  /* Distinct and in the order first drawn. */
  for (int32_t r = 0; r < 4; r++)
    for (int32_t q = 0; q < r; q++)
      cr_assert(a->sample.values[r * 2] != a->sample.values[q * 2] ||
                a->sample.values[r * 2 + 1] != a->sample.values[q * 2 + 1]);
  farm_plan_free(p);
}

Test(plan, refuses_a_sample_larger_than_the_bounds) {
  int rc;
  char *all = parse_text(HEAD "algorithms:\n"
                              "  - {name: bmaa, sample: {count: 1000001, params: {push: {choice:"
                              " [true]}}}}\n",
                         &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert_str_eq(all, "mem/plan.yaml:5:34: error: count: expected an integer <= 1000000, "
                        "found \"1000001\"\n");
  free(all);
  /* Every draw counts against the 10^6 combinations, before anything is drawn. */
  all = parse_text(HEAD "algorithms:\n"
                        "  - name: bmaa\n"
                        "    params: {expansions: [1, 2, 3]}\n"
                        "    zip: {moves: [1, 2]}\n"
                        "    sample: {count: 200000, params: {vision: {uniform: [0, 1]}}}\n",
                   &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert_str_eq(all, "mem/plan.yaml:6:5: error: bmaa: 1200000 parameter combinations (3 from "
                        "params x 2 from zip x 200000 drawn); the algorithms may give at most "
                        "1000000 in all\n");
  free(all);
}

Test(plan, bounds_the_work_of_exclude) {
  /* 1000 x 1000 combinations and 101 exclude entries: more than 10^8 checks. */
  size_t cap = 64000;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  size_t len = (size_t)sprintf(text, HEAD "algorithms:\n  - name: bmaa\n    params:\n"
                                          "      expansions: [");
  for (int i = 1; i <= 1000; i++) len += (size_t)sprintf(text + len, "%s%d", i > 1 ? "," : "", i);
  len += (size_t)sprintf(text + len, "]\n      moves: [");
  for (int i = 1; i <= 1000; i++) len += (size_t)sprintf(text + len, "%s%d", i > 1 ? "," : "", i);
  len += (size_t)sprintf(text + len, "]\n    exclude:\n");
  for (int i = 1; i <= 101; i++) len += (size_t)sprintf(text + len, "      - {moves: %d}\n", i);
  int rc;
  char *all = parse_text(text, &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert_str_eq(all, "mem/plan.yaml:9:5: error: exclude: 101 entries over 1000000 "
                        "combinations; the algorithms may make at most 100000000 such checks in "
                        "all\n");
  free(all);
  free(text);
}

Test(plan, renders_label_templates) {
  farm_plan *p = parse_good(HEAD "algorithms:\n"
                                 "  - name: bmaa\n"
                                 "    label: \"BMAA* e={expansions} v={vision} {{p}}={push}}}\"\n"
                                 "    params: {expansions: [16, 32]}\n"
                                 "  - {name: bmaa, label: \"{{x}}\", params: {push: true}}\n"
                                 "  - {name: bmaa, params: {moves: 1}}\n");
  char buf[128];
  mapf_params v;
  farm_algo_combo(&p->algos[0], 1, &v);
  int n = farm_algo_label(&p->algos[0], &v, buf, sizeof buf);
  cr_assert_str_eq(buf, "BMAA* e=32 v=1.4142135623730951 {p}=false}");
  cr_assert_eq(n, (int)strlen(buf));
  /* Truncation: NUL-terminated, the full length returned. */
  char small[8];
  cr_assert_eq(farm_algo_label(&p->algos[0], &v, small, sizeof small), n);
  cr_assert_str_eq(small, "BMAA* e");
  farm_algo_combo(&p->algos[1], 0, &v);
  farm_algo_label(&p->algos[1], &v, buf, sizeof buf);
  cr_assert_str_eq(buf, "{x}");
  farm_algo_combo(&p->algos[2], 0, &v);
  farm_algo_label(&p->algos[2], &v, buf, sizeof buf);
  cr_assert_str_eq(buf, "BMAA*", "the registry's label");
  farm_plan_free(p);
}

/* An enumeration (rths's lop) in every place a plan gives values: params lists, defaults,
 * sample choices and exclude take the choice names; JSON (and so job keys) writes them as
 * strings, a label template as the bare name. */
Test(plan, takes_enumeration_values_by_name) {
  farm_plan *p = parse_good(HEAD "defaults: {rths: {b: 1}}\n"
                                 "algorithms:\n"
                                 "  - name: rths\n"
                                 "    label: \"RTHS lop={lop} da={da}\"\n"
                                 "    params: {lop: [min, median, max]}\n"
                                 "    exclude: [{lop: max}]\n"
                                 "  - name: rths\n"
                                 "    sample: {count: 100, seed: 3, params: {lop: {choice: [mean, "
                                 "max]}, w: {uniform: [1, 10]}}}\n");
  const farm_algo_spec *a = &p->algos[0];
  cr_assert_eq(a->ncombos, 2);
  char json[512], label[128];
  combo_json(p, 0, 1, json, sizeof json);
  cr_assert_str_eq(json, "{\"b\":1,\"da\":false,\"expendable\":false,\"lop\":\"median\","
                         "\"w\":1,\"wc\":1}");
  mapf_params v;
  farm_algo_combo(a, 1, &v);
  farm_algo_label(a, &v, label, sizeof label);
  cr_assert_str_eq(label, "RTHS lop=median da=false");
  const farm_algo_spec *b = &p->algos[1];
  int seen[4] = {0};
  for (int64_t k = 0; k < b->ncombos; k++) {
    farm_algo_combo(b, k, &v);
    seen[(int)v.v[mapf_param_index(b->def, "lop")]]++;
  }
  cr_assert(seen[1] > 0 && seen[3] > 0 && seen[0] == 0 && seen[2] == 0,
            "draws only among the choices given");
  farm_plan_free(p);
}

Test(plan, rejects_enumeration_values_not_among_the_choices) {
  int rc;
  char *all = parse_text(HEAD "algorithms:\n"
                              "  - {name: rths, params: {lop: [min, avg]}}\n"
                              "  - {name: rths, sample: {count: 2, params: {lop: {uniform: "
                              "[0, 3]}}}}\n",
                         &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert_str_eq(all, "mem/plan.yaml:5:38: error: lop: expected one of min, mean, median, max, "
                        "found \"avg\"\n"
                        "mem/plan.yaml:6:52: error: uniform: lop is an enumeration; use choice: "
                        "[min, mean, median, max]\n");
  free(all);
}

Test(plan, applies_the_generator_defaults_of_core) {
  farm_plan *p = parse_good("name: g\n"
                            "maps:\n"
                            "  - generate: {kind: random, width: 9, height: 8}\n"
                            "  - generate: {kind: rooms, width: 9, height: 8}\n"
                            "  - generate: {kind: maze, width: 9, height: 8}\n"
                            "scenarios: [{agents: 2}]\n"
                            "algorithms: [{name: bmaa}]\n");
  for (int32_t i = 0; i < 3; i++) {
    const mapf_mapgen_params *g = &p->maps[i].gen;
    mapf_mapgen_params want;
    mapf_mapgen_defaults(&want, g->kind);
    cr_assert_eq(g->kind, (mapf_mapgen_kind)i);
    cr_assert_eq(g->width, 9);
    cr_assert_eq(g->height, 8);
    cr_assert_float_eq(g->density, want.density, 0);
    cr_assert_eq(g->room, want.room);
    cr_assert_eq(g->doors, want.doors);
    cr_assert_eq(g->corridor, want.corridor);
    cr_assert_eq(g->seed, want.seed);
  }
  farm_plan_free(p);
}

/* ---- scenario generators (core/scengen.h) ------------------------------------------------ */

Test(plan, names_generator_configurations_for_keys_and_for_the_database) {
  farm_plan *p = parse_good("name: x\nmaps: [tiny.map]\nscenarios:\n"
                            "  - {generator: random, agents: 2}\n"
                            "  - {generator: cross-sides, agents: 2}\n"
                            "  - {generator: cross-sides, agents: 2, params: {band: 0.1}}\n"
                            "algorithms: [{name: bmaa}]\n");
  cr_assert_eq(p->nscens, 3);
  /* random has no parameters: its name alone, in keys as before generators had any. */
  cr_assert_str_eq(p->scens[0].generator, "random");
  cr_assert_str_eq(p->scens[0].generator_key, "random");
  /* Defaults: the column shows the name, the key names every parameter. */
  cr_assert_str_eq(p->scens[1].generator, "cross-sides");
  cr_assert_str_eq(p->scens[1].generator_key, "cross-sides {\"band\":0.25,\"side\":-1}");
  cr_assert_str_eq(p->scens[2].generator, "cross-sides {\"band\":0.1,\"side\":-1}");
  cr_assert_str_eq(p->scens[2].generator_key, p->scens[2].generator);
  int32_t band = mapf_param_index(p->scens[2].gdef->view, "band");
  cr_assert_geq(band, 0);
  cr_assert_float_eq(p->scens[2].gparams.v[band], 0.1, 1e-15);
  farm_plan_free(p);
}

Test(plan, checks_generator_names_and_params_with_suggestions) {
  int rc;
  char *all = parse_text("name: x\nmaps: [tiny.map]\nscenarios:\n"
                         "  - {generator: cross-side, agents: 2}\n"
                         "  - {generator: swap-sides, agents: 3, params: {axs: 1}}\n"
                         "  - {generator: inside-out, agents: 4, params: {inner: 0.9}}\n"
                         "  - {generator: random, agents: 5, params: {band: 0.1}}\n"
                         "  - {generator: outside-in, agents: 6, params: [1]}\n"
                         "algorithms: [{name: bmaa}]\n",
                         &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  const char *want[] = {
      "mem/plan.yaml:4:17: error: unknown scenario generator \"cross-side\"; did you mean "
      "\"cross-sides\"?",
      "mem/plan.yaml:5:49: error: unknown key \"axs\" in params of swap-sides; did you mean "
      "\"axis\"?",
      "mem/plan.yaml:6:56: error: inner: expected a number in [0.001, 0.5], found 0.9",
      "mem/plan.yaml:7:44: error: params: generator random has no parameters",
      "mem/plan.yaml:8:48: error: params: expected a mapping of outside-in's parameters, found "
      "a list"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    cr_assert(strstr(all, want[i]), "missing:\n%s\nin:\n%s", want[i], all);
  free(all);
}

Test(plan, an_agent_count_repeats_only_within_one_generator_configuration) {
  farm_plan *p = parse_good("name: x\nmaps: [tiny.map]\nscenarios:\n"
                            "  - {generator: random, agents: [2, 3]}\n"
                            "  - {generator: swap-sides, agents: [2, 3]}\n"
                            "  - {generator: swap-sides, agents: [2, 3], params: {band: 0.5}}\n"
                            "algorithms: [{name: bmaa}]\n");
  farm_plan_free(p);
  int rc;
  char *all = parse_text("name: x\nmaps: [tiny.map]\nscenarios:\n"
                         "  - {generator: swap-sides, agents: [2, 3]}\n"
                         "  - {generator: random, agents: 3}\n"
                         "  - {generator: swap-sides, agents: 3, params: {band: 0.25}}\n"
                         "algorithms: [{name: bmaa}]\n",
                         &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  cr_assert(strstr(all, "mem/plan.yaml:6:37: error: agents: 3 is also in the scenario at line 4, "
                        "column 5; its instances would run twice"),
            "%s", all);
  cr_assert_null(strstr(all, "line 5"), "random is another generator:\n%s", all);
  free(all);
}

Test(plan, checks_scenario_file_entries) {
  int rc;
  char *all = parse_text("name: x\nmaps: [tiny.map]\nscenarios:\n"
                         "  - {generator: scen}\n"
                         "  - {generator: scen, file: nowhere.scen}\n"
                         "  - {generator: scen, file: tiny.map.scen, params: {band: 1}}\n"
                         "  - {generator: random, file: tiny.map.scen, agents: 9}\n"
                         "  - {generator: scen, file: tiny.map.scen, instances: 4}\n"
                         "  - {generator: scen, file: tiny.map.scen, agents: [2, 5]}\n"
                         "  - {generator: scen, file: tiny.map.scen, agents: 3, instances: 2}\n"
                         "algorithms: [{name: bmaa}]\n",
                         &rc);
  cr_assert_eq(rc, MAPF_EINVAL);
  const char *want[] = {
      "mem/plan.yaml:4:5: error: missing required key \"file\" in scenario",
      "mem/plan.yaml:5:29: error: scenario file not found: \"nowhere.scen\"",
      "mem/plan.yaml:6:44: error: params: generator scen has no parameters",
      "mem/plan.yaml:7:25: error: file: only generator scen reads a file",
      "mem/plan.yaml:8:55: error: instances: 4, but the scenario file has 3 problems",
      "mem/plan.yaml:9:52: error: agents: 5, but the scenario file has 3 lines",
      "mem/plan.yaml:10:66: error: instances: a scenario file with `agents` gives one instance"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    cr_assert(strstr(all, want[i]), "missing:\n%s\nin:\n%s", want[i], all);
  free(all);
}
