/* test_plan.c: the YAML plan parser (farm/plan.c).
 *
 * A good plan gives the values it says; every bad plan in tests/data/plans/ gives exactly the
 * messages listed here, with line and column, all of them at once. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "hash.h"
#include "plan.h"

#ifndef MAPFARM_SOURCE_DIR
#error "MAPFARM_SOURCE_DIR (the repository root) must be defined"
#endif

#define PLANS MAPFARM_SOURCE_DIR "/tests/data/plans"

static const char *const map_dirs[] = {PLANS "/maps"};
static const farm_plan_opts opts = {map_dirs, 1};

/* Formats every diagnostic of errs, one per line, into a fresh string (free it). */
static char *format_all(const farm_diags *errs) {
  size_t cap = 1, len = 0;
  for (int32_t i = 0; i < errs->n; i++) cap += sizeof(errs->items[i].file) + 1100;
  char *out = malloc(cap);
  cr_assert_not_null(out);
  out[0] = '\0';
  for (int32_t i = 0; i < errs->n; i++) {
    int w = mapf_diag_format(&errs->items[i], out + len, cap - len);
    len += (size_t)w;
    out[len++] = '\n';
    out[len] = '\0';
  }
  return out;
}

static farm_plan *load_good(const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", PLANS, file);
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  int rc = farm_plan_load(path, &opts, &p, &errs);
  char *all = format_all(&errs);
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
  char *all = errs.n ? format_all(&errs) : NULL;
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
  cr_assert_str_eq(a->label, "BMAA*-f");
  cr_assert_eq(a->naxes, 2);
  cr_assert_eq(a->axes[0].index, mapf_param_index(a->def, "expansions"));
  cr_assert_eq(a->axes[0].nvalues, 2);
  cr_assert_float_eq(a->axes[0].values[0], 16, 0);
  cr_assert_float_eq(a->axes[0].values[1], 32, 0);
  cr_assert_eq(a->axes[1].index, mapf_param_index(a->def, "push"));
  cr_assert_float_eq(a->axes[1].values[0], 1, 0);
  cr_assert_eq(a->ncombos, 2);
  const farm_algo_spec *b = &p->algos[1];
  cr_assert_str_eq(b->label, "BMAA*", "label defaults to the registry's");
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
                     "  - {name: bmaa, params: {push: True, vision: \"sqrt2\"}}\n"
                     "  - {name: bmaa, params: {push: off, flow: NO}}\n";
  int rc;
  char *all = parse_text(text, &rc);
  cr_assert_eq(rc, MAPF_OK, "%s", all ? all : "");
}

Test(plan, free_null_is_a_no_op) { farm_plan_free(NULL); }

Test(plan, missing_file_is_an_io_error) {
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = (farm_plan *)&errs; /* must be reset */
  cr_assert_eq(farm_plan_load(PLANS "/no-such-plan.yaml", &opts, &p, &errs), MAPF_EIO);
  cr_assert_null(p);
  cr_assert_eq(errs.n, 1);
  char *all = format_all(&errs);
  cr_assert_str_eq(all, PLANS "/no-such-plan.yaml: error: cannot read the plan: No such file or "
                              "directory\n");
  free(all);
  farm_diags_free(&errs);
}

/* ---- the table of bad plans ---------------------------------------------------------------- */

#define MAX_EXPECT 10

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
    {"flow_true.yaml",
     MAPF_EINVAL,
     {"7:5: error: bmaa: flow: true needs flow annotation, which this version does not "
      "implement yet; use flow: false",
      "9:5: error: bmaa: flow: true needs flow annotation, which this version does not "
      "implement yet; use flow: false (2 of 4 combinations, first {\"expansions\":32,"
      "\"flow\":true,\"moves\":32,\"push\":false,\"vision\":1.4142135623730951})"}},
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
      "8:12: error: execution: expected a non-empty string, found a list"}},
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
     {"1:1: error: expected a mapping of plan keys (name, seed, maps, scenarios, algorithms, "
      "limits, execution), found a list"}},
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
  char *got = format_all(&errs);
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
