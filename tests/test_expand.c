/* test_expand.c: the job space of a plan and its keys (farm/expand.c). */
#ifndef MAPFARM_SOURCE_DIR /* before testutil.h, which has a fallback */
#error "MAPFARM_SOURCE_DIR (the repository root) must be defined"
#endif

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "expand.h"
#include "scengen.h"
#include "hash.h"
#include "plan.h"
#include "scen.h"
#include "testutil.h"

#define PLANS MAPFARM_SOURCE_DIR "/tests/data/plans"

static const char *const map_dirs[] = {PLANS "/maps"};
static const farm_plan_opts opts = {map_dirs, 1};

/* A plan and its space, both valid. */
typedef struct loaded {
  farm_plan *plan;
  farm_space sp;
} loaded;

static void check_ok(int rc, farm_diags *errs, const char *what) {
  char *all = test_format_diags(errs);
  cr_assert_eq(rc, MAPF_OK, "%s: rc %d:\n%s", what, rc, all);
  free(all);
  farm_diags_free(errs);
}

static void load_file(loaded *l, const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", PLANS, file);
  farm_diags errs = {0, 0, NULL};
  check_ok(farm_plan_load(path, &opts, &l->plan, &errs), &errs, file);
  check_ok(farm_space_init(&l->sp, l->plan, &errs), &errs, file);
}

static void load_text(loaded *l, const char *text) {
  farm_diags errs = {0, 0, NULL};
  check_ok(farm_plan_parse(text, strlen(text), "mem/plan.yaml", &opts, &l->plan, &errs), &errs,
           text);
  check_ok(farm_space_init(&l->sp, l->plan, &errs), &errs, text);
}

static void unload(loaded *l) {
  farm_space_free(&l->sp);
  farm_plan_free(l->plan);
}

static int cmp_key(const void *a, const void *b) {
  const mapf_hash128 *x = a, *y = b;
  if (x->hi != y->hi) return (x->hi > y->hi) - (x->hi < y->hi);
  return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Asserts that no two jobs of sp share a key. */
static void expect_distinct_keys(const farm_space *sp) {
  mapf_hash128 *keys = malloc((size_t)sp->njobs * sizeof *keys);
  cr_assert_not_null(keys);
  for (int64_t i = 0; i < sp->njobs; i++) {
    farm_job j;
    farm_space_job(sp, i, &j);
    keys[i] = j.key;
  }
  qsort(keys, (size_t)sp->njobs, sizeof *keys, cmp_key);
  for (int64_t i = 1; i < sp->njobs; i++)
    cr_assert(keys[i].hi != keys[i - 1].hi || keys[i].lo != keys[i - 1].lo, "two jobs share a key");
  free(keys);
}

/* What identifies a job apart from its key: map content, scenario, agents, instance, algorithm
 * and resolved parameters (not the label, not the position in the plan). */
static void job_identity(const loaded *l, const farm_job *j, char *buf, size_t n) {
  char json[1024];
  farm_job_params_json(&l->sp, j, json, sizeof json);
  snprintf(buf, n, "%016llx/%s/%d/%d/%s/%s", (unsigned long long)l->sp.grids[j->map]->hash,
           l->plan->scens[j->scen].generator, (int)j->agents, (int)j->instance,
           l->plan->algos[j->algo].def->name, json);
}

/* For every job of a, the job of b with the same identity; asserts that the key is equal
 * (same = 1) or differs (same = 0). Returns how many jobs of a were found in b. */
static int64_t match_jobs(const loaded *a, const loaded *b, int same) {
  int64_t found = 0;
  for (int64_t i = 0; i < a->sp.njobs; i++) {
    farm_job ja, jb;
    char ida[1200], idb[1200];
    farm_space_job(&a->sp, i, &ja);
    job_identity(a, &ja, ida, sizeof ida);
    for (int64_t k = 0; k < b->sp.njobs; k++) {
      farm_space_job(&b->sp, k, &jb);
      job_identity(b, &jb, idb, sizeof idb);
      if (strcmp(ida, idb)) continue;
      found++;
      if (same)
        cr_assert_str_eq(ja.key_hex, jb.key_hex, "job %s", ida);
      else
        cr_assert_str_neq(ja.key_hex, jb.key_hex, "job %s", ida);
      cr_assert_eq(ja.instance_seed, jb.instance_seed, "job %s", ida);
    }
  }
  return found;
}

Test(expand, counts_jobs_as_the_product_of_the_plan) {
  loaded l;
  load_file(&l, "good.yaml");
  const farm_plan *p = l.plan;
  int64_t instances = 0, combos = 0;
  for (int32_t s = 0; s < p->nscens; s++)
    instances += (int64_t)p->scens[s].nagents * p->scens[s].instances;
  for (int32_t a = 0; a < p->nalgos; a++) combos += p->algos[a].ncombos;
  cr_assert_eq(l.sp.njobs, p->nmaps * instances * combos);
  cr_assert_eq(l.sp.njobs, 4 * (2 * 3 + 3 * 1) * (2 + 2));
  cr_assert_eq(l.sp.algo_combos, 4);
  for (int32_t m = 0; m < 4; m++) cr_assert_eq(farm_space_map_jobs(&l.sp, m), 36);
  unload(&l);
}

Test(expand, decodes_every_index_once_in_plan_order) {
  loaded l;
  load_file(&l, "good.yaml");
  const farm_plan *p = l.plan;
  /* Nested loops in the documented order: map, scenario, agent count, instance, algorithm,
   * combination (first axis outermost). */
  int64_t i = 0;
  for (int32_t m = 0; m < p->nmaps; m++)
    for (int32_t s = 0; s < p->nscens; s++)
      for (int32_t a = 0; a < p->scens[s].nagents; a++)
        for (int32_t inst = 0; inst < p->scens[s].instances; inst++)
          for (int32_t al = 0; al < p->nalgos; al++)
            for (int64_t c = 0; c < p->algos[al].ncombos; c++, i++) {
              farm_job j;
              farm_space_job(&l.sp, i, &j);
              cr_assert_eq(j.index, i);
              cr_assert_eq(j.map, m, "job %lld", (long long)i);
              cr_assert_eq(j.scen, s, "job %lld", (long long)i);
              cr_assert_eq(j.agents, p->scens[s].agents[a], "job %lld", (long long)i);
              cr_assert_eq(j.instance, inst, "job %lld", (long long)i);
              cr_assert_eq(j.algo, al, "job %lld", (long long)i);
              cr_assert_eq(j.combo, c, "job %lld", (long long)i);
            }
  cr_assert_eq(i, l.sp.njobs);
  unload(&l);
}

Test(expand, resolves_every_parameter) {
  loaded l;
  load_file(&l, "good.yaml");
  farm_job j;
  char json[512];
  /* Algorithm 0: expansions [16, 32] x push true; combination 1 is expansions 32. */
  farm_space_job(&l.sp, 1, &j);
  cr_assert_eq(j.algo, 0);
  farm_job_params_json(&l.sp, &j, json, sizeof json);
  cr_assert_str_eq(json, "{\"expansions\":32,\"flow\":false,\"moves\":32,\"push\":true,"
                         "\"vision\":1.4142135623730951}");
  /* Algorithm 1: vision [1, sqrt(2)], moves 8. */
  farm_space_job(&l.sp, 2, &j);
  cr_assert_eq(j.algo, 1);
  farm_job_params_json(&l.sp, &j, json, sizeof json);
  cr_assert_str_eq(json, "{\"expansions\":32,\"flow\":false,\"moves\":8,\"push\":false,"
                         "\"vision\":1}");
  unload(&l);
}

Test(expand, gives_every_job_of_a_plan_a_distinct_key) {
  loaded l;
  load_file(&l, "good.yaml");
  expect_distinct_keys(&l.sp);
  unload(&l);
}

/* Checks that j's key is the hash of the canonical text head + tail (head: the instance part,
 * up to the seed line) and its instance seed the hash of head; returns the key. */
static mapf_hash128 expect_key(const farm_job *j, const char *head, const char *tail) {
  char text[1024];
  int len = snprintf(text, sizeof text, "%s%s", head, tail);
  cr_assert_lt(len, (int)sizeof text);
  mapf_hash128 key = mapf_hash128_of(text, (size_t)len);
  char hex[33];
  mapf_hash128_hex(key, hex);
  cr_assert_str_eq(j->key_hex, hex, "key of:\n%s", text);
  cr_assert_eq(j->instance_seed, mapf_hash64(head, strlen(head), 0));
  return key;
}

Test(expand, hashes_the_documented_canonical_text) {
  loaded l;
  load_file(&l, "good.yaml");
  farm_job j;
  farm_space_job(&l.sp, 1, &j);
  char head[512];
  snprintf(head, sizeof head,
           "mapfarm-job/1\nmap=%016llx\ngenerator=random\nagents=2\ninstance=0\nseed=7\n",
           (unsigned long long)l.sp.grids[0]->hash);
  mapf_hash128 key = expect_key(&j, head,
                                "algorithm=bmaa\nparams={\"expansions\":32,\"flow\":false,"
                                "\"moves\":32,\"push\":true,\"vision\":1.4142135623730951}\n"
                                "limits=steps:500,seconds:2.5,expansions:0\n"
                                "execution=single-pass\n");
  cr_assert_eq(j.key.hi, key.hi);
  cr_assert_eq(j.key.lo, key.lo);
  cr_assert_eq(j.seed, mapf_mix64(key.hi ^ key.lo));
  unload(&l);
}

Test(expand, keys_are_stable_across_loads) {
  loaded a, b;
  load_file(&a, "good.yaml");
  load_file(&b, "good.yaml");
  cr_assert_eq(a.sp.njobs, b.sp.njobs);
  for (int64_t i = 0; i < a.sp.njobs; i++) {
    farm_job ja, jb;
    farm_space_job(&a.sp, i, &ja);
    farm_space_job(&b.sp, i, &jb);
    cr_assert_str_eq(ja.key_hex, jb.key_hex);
    cr_assert_eq(ja.instance_seed, jb.instance_seed);
    cr_assert_eq(ja.seed, jb.seed);
  }
  unload(&a);
  unload(&b);
}

#define PLAN_HEAD                                                                                  \
  "name: t\n"                                                                                      \
  "maps: [tiny.map, {generate: {kind: random, width: 9, height: 7, seed: 5}}]\n"                   \
  "scenarios: [{agents: [2, 3], instances: 2}]\n"

Test(expand, reordering_algorithms_keeps_every_key) {
  loaded a, b;
  load_text(&a, PLAN_HEAD "algorithms:\n"
                          "  - {name: bmaa, params: {expansions: [16, 32]}}\n"
                          "  - {name: bmaa, label: BMAA*-f, params: {push: true}}\n");
  load_text(&b, PLAN_HEAD "algorithms:\n"
                          "  - {name: bmaa, label: BMAA*-f, params: {push: true}}\n"
                          "  - {name: bmaa, params: {expansions: [16, 32]}}\n");
  cr_assert_eq(a.sp.njobs, 2 * 2 * 2 * 3);
  cr_assert_eq(match_jobs(&a, &b, 1), a.sp.njobs, "every job is in both plans");
  /* The same job sits at another index, with the same key. */
  farm_job ja, jb;
  farm_space_job(&a.sp, 0, &ja);
  farm_space_job(&b.sp, 0, &jb);
  cr_assert_str_neq(ja.key_hex, jb.key_hex);
  farm_space_job(&b.sp, 1, &jb);
  cr_assert_str_eq(ja.key_hex, jb.key_hex);
  unload(&a);
  unload(&b);
}

Test(expand, a_label_is_not_part_of_the_key) {
  loaded a, b;
  load_text(&a, PLAN_HEAD "algorithms: [{name: bmaa, label: BMAA*-f, params: {push: true}}]\n");
  load_text(&b, PLAN_HEAD "algorithms: [{name: bmaa, label: pushy, params: {push: true}}]\n");
  cr_assert_eq(match_jobs(&a, &b, 1), a.sp.njobs);
  unload(&a);
  unload(&b);
}

Test(expand, a_parameter_is_part_of_the_key) {
  loaded a, b;
  load_text(&a, PLAN_HEAD "algorithms: [{name: bmaa, params: {expansions: 16}}]\n");
  load_text(&b, PLAN_HEAD "algorithms: [{name: bmaa, params: {expansions: 17}}]\n");
  for (int64_t i = 0; i < a.sp.njobs; i++) {
    farm_job ja, jb;
    farm_space_job(&a.sp, i, &ja);
    farm_space_job(&b.sp, i, &jb);
    cr_assert_str_neq(ja.key_hex, jb.key_hex);
    cr_assert_eq(ja.instance_seed, jb.instance_seed, "the instance does not depend on it");
  }
  /* A parameter given at its default is the same job as one left out. */
  loaded c, d;
  load_text(&c, PLAN_HEAD "algorithms: [{name: bmaa, params: {expansions: 32, push: false}}]\n");
  load_text(&d, PLAN_HEAD "algorithms: [{name: bmaa}]\n");
  cr_assert_eq(match_jobs(&c, &d, 1), c.sp.njobs);
  unload(&a);
  unload(&b);
  unload(&c);
  unload(&d);
}

Test(expand, limits_execution_and_seed_are_part_of_the_key) {
  static const char *const variants[] = {"limits: {steps: 999}\n", "limits: {seconds: 1}\n",
                                         "limits: {expansions: 5}\n", "execution: single-pass\n",
                                         "connectivity: 4\n", "seed: 2\n"};
  loaded base;
  load_text(&base, PLAN_HEAD "algorithms: [{name: bmaa}]\n");
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    char text[1024];
    snprintf(text, sizeof text, "%salgorithms: [{name: bmaa}]\n%s", PLAN_HEAD, variants[v]);
    loaded other;
    load_text(&other, text);
    for (int64_t i = 0; i < base.sp.njobs; i++) {
      farm_job ja, jb;
      farm_space_job(&base.sp, i, &ja);
      farm_space_job(&other.sp, i, &jb);
      cr_assert_str_neq(ja.key_hex, jb.key_hex, "%s", variants[v]);
      if (strncmp(variants[v], "seed", 4) == 0)
        cr_assert_neq(ja.instance_seed, jb.instance_seed, "the plan seed picks the instances");
      else
        cr_assert_eq(ja.instance_seed, jb.instance_seed, "%s", variants[v]);
    }
    unload(&other);
  }
  unload(&base);
}

/* connectivity: 4 ends the canonical text with its line and moves on a grid with cardinal
 * moves only; connectivity: 8, the default, keeps every key of the plan without it. */
Test(expand, connectivity_4_is_a_line_of_the_key_and_8_keeps_the_keys) {
  loaded base, eight, four;
  load_text(&base, PLAN_HEAD "algorithms: [{name: bmaa}]\n");
  load_text(&eight, PLAN_HEAD "algorithms: [{name: bmaa}]\nconnectivity: 8\n");
  load_text(&four, PLAN_HEAD "algorithms: [{name: bmaa}]\nconnectivity: 4\n");
  cr_assert_eq(match_jobs(&base, &eight, 1), base.sp.njobs);
  farm_job j;
  farm_space_job(&four.sp, 0, &j);
  char head[512];
  snprintf(head, sizeof head,
           "mapfarm-job/1\nmap=%016llx\ngenerator=random\nagents=2\ninstance=0\nseed=1\n",
           (unsigned long long)four.sp.grids[0]->hash);
  expect_key(&j, head,
             "algorithm=bmaa\nparams={\"expansions\":32,\"flow\":false,"
             "\"moves\":32,\"push\":false,\"vision\":1.4142135623730951}\n"
             "limits=steps:10000,seconds:0,expansions:0\n"
             "execution=chains\nconnectivity=4\n");
  for (int32_t m = 0; m < four.plan->nmaps; m++) {
    const mapf_grid *g4 = four.sp.grids[m], *g8 = base.sp.grids[m];
    cr_assert_eq(g4->connectivity, 4);
    cr_assert_eq(g4->hash, g8->hash, "the map's content is its key's map line");
    int diagonals = 0;
    for (int32_t c = 0; c < g4->ncells; c++) {
      cr_assert_eq(g4->moves[c], g8->moves[c] & 0x0F, "cell %d: the cardinal moves of 8", c);
      diagonals += (g8->moves[c] & 0xF0) != 0;
    }
    cr_assert_gt(diagonals, 0, "map %d has diagonal moves under 8", m);
  }
  unload(&base);
  unload(&eight);
  unload(&four);
}

/* -0 is 0: a parameter or limit written -0 (an integer, a real, a sampled choice) gives the
 * job keys of the same plan written with 0, so a finished run is recognised on resume. */
Test(expand, minus_zero_gives_the_keys_of_zero) {
  static const char *const pairs[][2] = {
      {"algorithms: [{name: bmaa, params: {vision: -0}}]\n",
       "algorithms: [{name: bmaa, params: {vision: 0}}]\n"},
      {"algorithms: [{name: rths, params: {b: -0.0}}]\n",
       "algorithms: [{name: rths, params: {b: 0}}]\n"},
      {"algorithms: [{name: whca, params: {replan: -0}}]\n", "algorithms: [{name: whca}]\n"},
      {"algorithms: [{name: bmaa}]\nlimits: {seconds: -0}\n", "algorithms: [{name: bmaa}]\n"},
      {"algorithms: [{name: bmaa}]\nlimits: {seconds: -0.0, expansions: -0}\n",
       "algorithms: [{name: bmaa}]\nlimits: {seconds: 0}\n"},
      {"defaults: {bmaa: {vision: -0}}\nalgorithms: [{name: bmaa}]\n",
       "algorithms: [{name: bmaa, params: {vision: 0}}]\n"},
      {"algorithms: [{name: bmaa, sample: {count: 1, params: {vision: {choice: [-0]}}}}]\n",
       "algorithms: [{name: bmaa, params: {vision: 0}}]\n"},
  };
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    char ta[1024], tb[1024];
    snprintf(ta, sizeof ta, "%s%s", PLAN_HEAD, pairs[k][0]);
    snprintf(tb, sizeof tb, "%s%s", PLAN_HEAD, pairs[k][1]);
    loaded a, b;
    load_text(&a, ta);
    load_text(&b, tb);
    cr_assert_eq(a.sp.njobs, b.sp.njobs);
    for (int64_t i = 0; i < a.sp.njobs; i++) {
      farm_job ja, jb;
      farm_space_job(&a.sp, i, &ja);
      farm_space_job(&b.sp, i, &jb);
      cr_assert_str_eq(ja.key_hex, jb.key_hex, "%s", pairs[k][0]);
      char json[1024];
      farm_job_params_json(&a.sp, &ja, json, sizeof json);
      cr_assert_null(strstr(json, "-0"), "%s: %s", pairs[k][0], json);
    }
    unload(&a);
    unload(&b);
  }
}

Test(expand, algorithms_share_each_instance) {
  loaded l;
  load_file(&l, "good.yaml");
  int64_t per = l.sp.algo_combos;
  for (int64_t i = 0; i < l.sp.njobs; i += per) {
    farm_job first;
    farm_space_job(&l.sp, i, &first);
    for (int64_t k = 1; k < per; k++) {
      farm_job j;
      farm_space_job(&l.sp, i + k, &j);
      cr_assert_eq(j.instance_seed, first.instance_seed, "job %lld", (long long)(i + k));
      cr_assert_str_neq(j.key_hex, first.key_hex);
      cr_assert_neq(j.seed, first.seed);
    }
    if (i + per < l.sp.njobs) {
      farm_job next;
      farm_space_job(&l.sp, i + per, &next);
      cr_assert_neq(next.instance_seed, first.instance_seed, "another instance");
    }
  }
  unload(&l);
}

Test(expand, builds_the_same_valid_instance_for_every_algorithm) {
  loaded l;
  load_file(&l, "good.yaml");
  /* Map 1 (random 16x12), first scenario, 4 agents, instance 2: two algorithm jobs. */
  int64_t base = l.sp.map_off[1] + (1 * 3 + 2) * l.sp.algo_combos;
  farm_job a, b;
  farm_space_job(&l.sp, base, &a);
  farm_space_job(&l.sp, base + 3, &b);
  cr_assert_eq(a.map, 1);
  cr_assert_eq(a.agents, 4);
  cr_assert_eq(a.instance, 2);
  cr_assert_neq(a.algo, b.algo);
  mapf_instance *ia = NULL, *ib = NULL;
  mapf_diag d;
  cr_assert_eq(farm_job_instance(&l.sp, &a, &ia, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(farm_job_instance(&l.sp, &b, &ib, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(ia->n, 4);
  cr_assert_eq(mapf_instance_check(ia, l.sp.grids[a.map], &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(ib->n, ia->n);
  cr_assert_eq(memcmp(ia->start, ib->start, (size_t)ia->n * sizeof *ia->start), 0);
  cr_assert_eq(memcmp(ia->goal, ib->goal, (size_t)ia->n * sizeof *ia->goal), 0);
  mapf_instance_free(ia);
  mapf_instance_free(ib);
  unload(&l);
}

Test(expand, names_generated_maps_as_the_plan_does) {
  loaded l;
  load_file(&l, "good.yaml");
  for (int32_t i = 0; i < l.plan->nmaps; i++)
    if (l.plan->maps[i].generated) cr_assert_str_eq(l.sp.grids[i]->name, l.plan->maps[i].source);
  cr_assert_str_eq(l.sp.grids[0]->name, "tiny.map");
  unload(&l);
}

Test(expand, reports_map_errors_at_the_plan_line) {
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  cr_assert_eq(farm_plan_load(PLANS "/load_errors.yaml", &opts, &p, &errs), MAPF_OK);
  farm_space sp;
  cr_assert_neq(farm_space_init(&sp, p, &errs), MAPF_OK);
  cr_assert_eq(errs.n, 1);
  char *all = test_format_diags(&errs);
  const char *want = PLANS "/load_errors.yaml:3:5: error: cannot load map: " PLANS
                           "/maps/broken.map:6:3: unknown terrain character 'x'";
  cr_assert_eq(strncmp(all, want, strlen(want)), 0, "got %s", all);
  free(all);
  farm_space_free(&sp);
  farm_space_free(&sp); /* twice: still safe */
  farm_plan_free(p);
  farm_diags_free(&errs);
}

Test(expand, refuses_maps_with_the_same_content) {
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  cr_assert_eq(farm_plan_load(PLANS "/same_content.yaml", &opts, &p, &errs), MAPF_OK);
  farm_space sp;
  cr_assert_eq(farm_space_init(&sp, p, &errs), MAPF_EINVAL);
  char *all = test_format_diags(&errs);
  cr_assert_str_eq(all, PLANS "/same_content.yaml:5:5: error: map \"random-6x4-d0-s0\" has the "
                              "same content as map \"maps/open.map\" (line 3, column 5); their "
                              "jobs would have the same keys\n");
  free(all);
  farm_space_free(&sp);
  farm_plan_free(p);
  farm_diags_free(&errs);
}

Test(expand, finds_movingai_maps_under_the_map_directories) {
  REQUIRE_MAPS(dir); /* the MovingAI sets live outside the repository */
  const char *const dirs[] = {PLANS "/maps", dir};
  const farm_plan_opts mo = {dirs, 2};
  const char *text = "name: dao\n"
                     "maps: [dao/lak307d.map]\n"
                     "scenarios: [{agents: 50, instances: 2}]\n"
                     "algorithms: [{name: bmaa}]\n";
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  check_ok(farm_plan_parse(text, strlen(text), "mem/plan.yaml", &mo, &p, &errs), &errs, text);
  char want[4200];
  snprintf(want, sizeof want, "%s/dao/lak307d.map", dir);
  cr_assert_str_eq(p->maps[0].path, want);
  cr_assert_str_eq(p->maps[0].source, "dao/lak307d.map");
  farm_space sp;
  check_ok(farm_space_init(&sp, p, &errs), &errs, text);
  cr_assert_eq(sp.grids[0]->width, 84);
  cr_assert_eq(sp.njobs, 2);
  farm_job j;
  mapf_instance *inst = NULL;
  mapf_diag d;
  farm_space_job(&sp, 1, &j);
  cr_assert_eq(farm_job_instance(&sp, &j, &inst, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(inst->n, 50);
  cr_assert_eq(mapf_instance_check(inst, sp.grids[0], &d), MAPF_OK, "%s", d.msg);
  mapf_instance_free(inst);
  farm_space_free(&sp);
  farm_plan_free(p);
}

Test(expand, free_of_a_zeroed_space_is_a_no_op) {
  farm_space sp;
  memset(&sp, 0, sizeof sp);
  farm_space_free(&sp);
}

/* ---- zip, exclude, sample, defaults, label templates ------------------------------------- */

Test(expand, a_zipped_job_has_the_key_of_the_same_job_written_plainly) {
  loaded a, b;
  load_text(&a, PLAN_HEAD "algorithms:\n"
                          "  - {name: bmaa, zip: {expansions: [16, 64], moves: [8, 4]}}\n");
  load_text(&b, PLAN_HEAD "algorithms:\n"
                          "  - {name: bmaa, label: a, params: {expansions: 16, moves: 8}}\n"
                          "  - {name: bmaa, label: b, params: {expansions: 64, moves: 4}}\n");
  cr_assert_eq(a.sp.njobs, b.sp.njobs);
  cr_assert_eq(match_jobs(&a, &b, 1), a.sp.njobs, "every zipped job is a plain job, same key");
  unload(&a);
  unload(&b);
}

Test(expand, a_job_from_defaults_has_the_key_of_the_same_job_written_plainly) {
  loaded a, b;
  load_text(&a, PLAN_HEAD "defaults: {bmaa: {expansions: 64, vision: 2}}\n"
                          "algorithms: [{name: bmaa, params: {push: [false, true]}}]\n");
  load_text(&b, PLAN_HEAD "algorithms: [{name: bmaa, params: {push: [false, true], "
                          "expansions: 64, vision: 2}}]\n");
  cr_assert_eq(match_jobs(&a, &b, 1), a.sp.njobs);
  unload(&a);
  unload(&b);
}

Test(expand, a_sampled_job_has_the_key_of_the_same_job_written_plainly) {
  loaded a, b;
  load_text(&a, PLAN_HEAD "algorithms: [{name: bmaa, sample: {count: 30, seed: 4, params: "
                          "{expansions: {choice: [16, 64]}, vision: {choice: [1, sqrt(2)]}}}}]\n");
  load_text(&b, PLAN_HEAD "algorithms: [{name: bmaa, params: {expansions: [16, 64], "
                          "vision: [1, 1.4142135623730951]}}]\n");
  cr_assert_eq(a.plan->algos[0].ncombos, 4, "30 draws, 4 distinct configurations");
  cr_assert_eq(a.sp.njobs, b.sp.njobs);
  cr_assert_eq(match_jobs(&a, &b, 1), a.sp.njobs);
  unload(&a);
  unload(&b);
}

Test(expand, excluded_combinations_are_not_jobs) {
  loaded l, all;
  load_text(&l, PLAN_HEAD "algorithms:\n"
                          "  - name: bmaa\n"
                          "    params: {push: [false, true], expansions: [16, 32, 64]}\n"
                          "    exclude: [{push: true, expansions: 64}, {push: false, "
                          "expansions: 16}]\n"
                          "  - {name: bmaa, params: {moves: 4}}\n");
  load_text(&all, PLAN_HEAD "algorithms:\n"
                            "  - {name: bmaa, params: {push: [false, true], "
                            "expansions: [16, 32, 64]}}\n"
                            "  - {name: bmaa, params: {moves: 4}}\n");
  /* 2 maps x 2 agent counts x 2 instances x (4 + 1) combinations. */
  cr_assert_eq(l.sp.algo_combos, 5);
  cr_assert_eq(l.sp.njobs, 2 * 2 * 2 * 5);
  int64_t bmaa_jobs = 0;
  for (int64_t i = 0; i < l.sp.njobs; i++) {
    farm_job j;
    farm_space_job(&l.sp, i, &j);
    cr_assert_eq(j.index, i);
    if (j.algo != 0) continue;
    bmaa_jobs++;
    double push = j.params.v[mapf_param_index(l.plan->algos[0].def, "push")];
    double expansions = j.params.v[mapf_param_index(l.plan->algos[0].def, "expansions")];
    cr_assert_not(push == 1 && expansions == 64, "job %lld is excluded", (long long)i);
    cr_assert_not(push == 0 && expansions == 16, "job %lld is excluded", (long long)i);
  }
  cr_assert_eq(bmaa_jobs, 2 * 2 * 2 * 4);
  /* The survivors are the same jobs, with the same keys, as in the plan without exclude. */
  cr_assert_eq(match_jobs(&l, &all, 1), l.sp.njobs);
  unload(&l);
  unload(&all);
}

Test(expand, excluding_keeps_every_key_distinct) {
  loaded l;
  load_file(&l, "sweep.yaml");
  cr_assert_eq(l.sp.algo_combos, 5 + 50 + 4);
  expect_distinct_keys(&l.sp);
  unload(&l);
}

Test(expand, sampled_keys_do_not_depend_on_the_entry_order) {
  loaded a, b;
  load_text(&a, PLAN_HEAD "algorithms:\n"
                          "  - {name: bmaa, sample: {count: 5, seed: 2, params: "
                          "{vision: {uniform: [1, 10]}, moves: {loguniform: [1, 100]}}}}\n"
                          "  - {name: bmaa, params: {push: true}}\n");
  load_text(&b, PLAN_HEAD "algorithms:\n"
                          "  - {name: bmaa, params: {push: true}}\n"
                          "  - {name: bmaa, sample: {count: 5, seed: 2, params: "
                          "{moves: {loguniform: [1, 100]}, vision: {uniform: [1, 10]}}}}\n");
  cr_assert_eq(a.sp.njobs, b.sp.njobs);
  cr_assert_eq(match_jobs(&a, &b, 1), a.sp.njobs);
  unload(&a);
  unload(&b);
}

Test(expand, labels_jobs_from_their_template) {
  loaded l;
  load_file(&l, "sweep.yaml");
  char label[128];
  farm_job j;
  /* Job 1: the first entry's combination 1: push false, expansions 32, moves 16. */
  farm_space_job(&l.sp, 1, &j);
  cr_assert_eq(j.algo, 0);
  int n = farm_job_label(&l.sp, &j, label, sizeof label);
  cr_assert_str_eq(label, "BMAA* e=32 m=16 p=false");
  cr_assert_eq(n, (int)strlen(label));
  /* The sampled entry: its vision as mapf_param_format writes it. */
  farm_space_job(&l.sp, 5, &j);
  cr_assert_eq(j.algo, 1);
  char want[128], vision[64];
  mapf_param_format(l.plan->algos[1].def, mapf_param_index(l.plan->algos[1].def, "vision"),
                    j.params.v[mapf_param_index(l.plan->algos[1].def, "vision")], vision,
                    sizeof vision);
  snprintf(want, sizeof want, "w=%s {sampled}", vision);
  farm_job_label(&l.sp, &j, label, sizeof label);
  cr_assert_str_eq(label, want);
  /* A label without placeholders is the plain label. */
  farm_space_job(&l.sp, 5 + 50, &j);
  cr_assert_eq(j.algo, 2);
  farm_job_label(&l.sp, &j, label, sizeof label);
  cr_assert_str_eq(label, "{literal} expansions=8 moves=1 vision=1");
  unload(&l);
}

Test(expand, a_label_template_is_not_part_of_the_key) {
  loaded a, b;
  load_text(&a, PLAN_HEAD "algorithms: [{name: bmaa, label: \"e={expansions}\", "
                          "params: {expansions: [16, 32]}}]\n");
  load_text(&b, PLAN_HEAD "algorithms: [{name: bmaa, params: {expansions: [16, 32]}}]\n");
  cr_assert_eq(match_jobs(&a, &b, 1), a.sp.njobs);
  farm_job j;
  char label[64];
  farm_space_job(&b.sp, 0, &j);
  farm_job_label(&b.sp, &j, label, sizeof label);
  cr_assert_str_eq(label, "BMAA* expansions=16", "an untemplated label names what varies");
  unload(&a);
  unload(&b);
}

/* A generator with parameters is named in the key with every parameter, and a job's instance is
 * that generator's output for the instance seed. */
Test(expand, keys_name_the_generator_configuration_and_jobs_use_it) {
  loaded l;
  load_text(&l, "name: x\nseed: 3\nmaps: [tiny.map]\nscenarios:\n"
                "  - {generator: swap-sides, agents: 4, params: {band: 0.5}}\n"
                "algorithms: [{name: bmaa, params: {expansions: 8}}]\n"
                "limits: {steps: 20}\n");
  cr_assert_eq(l.sp.njobs, 1);
  farm_job j;
  farm_space_job(&l.sp, 0, &j);
  char head[512];
  snprintf(head, sizeof head,
           "mapfarm-job/1\nmap=%016llx\ngenerator=swap-sides {\"axis\":-1,\"band\":0.5}\n"
           "agents=4\ninstance=0\nseed=3\n",
           (unsigned long long)l.sp.grids[0]->hash);
  expect_key(&j, head,
             "algorithm=bmaa\nparams={\"expansions\":8,\"flow\":false,"
             "\"moves\":32,\"push\":false,\"vision\":1.4142135623730951}\n"
             "limits=steps:20,seconds:0,expansions:0\nexecution=chains\n");

  mapf_instance *got = NULL, *want = NULL;
  mapf_diag d = {0};
  cr_assert_eq(farm_job_instance(&l.sp, &j, &got, &d), MAPF_OK, "%s", d.msg);
  const mapf_scengen_def *g = mapf_scengen_find("swap-sides");
  mapf_params p;
  mapf_scengen_params_default(g, &p);
  p.v[mapf_param_index(g->view, "band")] = 0.5;
  cr_assert_eq(g->generate(l.sp.grids[0], 4, &p, j.instance_seed, &want, &d), MAPF_OK);
  cr_assert_eq(got->n, 4);
  for (int32_t a = 0; a < 4; a++) {
    cr_assert_eq(got->start[a], want->start[a]);
    cr_assert_eq(got->goal[a], want->goal[a]);
  }
  mapf_instance_free(got);
  mapf_instance_free(want);
  unload(&l);
}

/* generator scen: one single-agent job per line without `agents`, one instance of the first K
 * lines with `agents: K`, only on the map the file names; keys follow the problems, not the
 * file's name. */
Test(expand, scenario_files_give_problems_for_the_map_they_name) {
  loaded l;
  load_text(&l, "name: x\nmaps: [tiny.map, {generate: {kind: random, width: 8, height: 8, "
                "density: 0, seed: 1}}]\nscenarios:\n"
                "  - {generator: scen, file: tiny.map.scen}\n"
                "  - {generator: scen, file: tiny.map.scen, agents: [2, 3]}\n"
                "  - {generator: random, agents: 2}\n"
                "algorithms: [{name: bmaa}]\n");
  /* tiny.map: 3 single-agent problems, 2 instances of the first lines, 1 random; the
   * generated map: 1 random. */
  cr_assert_eq(l.sp.njobs, 7);
  cr_assert_eq(farm_space_map_jobs(&l.sp, 0), 6);
  cr_assert_eq(farm_space_map_jobs(&l.sp, 1), 1);
  cr_assert_str_eq(l.plan->scens[0].generator, "scen tiny.map.scen");
  for (int64_t i = 0; i < 3; i++) {
    farm_job j;
    farm_space_job(&l.sp, i, &j);
    cr_assert_eq(j.map, 0);
    cr_assert_eq(j.scen, 0);
    cr_assert_eq(j.agents, 1);
    cr_assert_eq(j.instance, (int32_t)i);
    mapf_instance *inst = NULL;
    mapf_diag d = {0};
    cr_assert_eq(farm_job_instance(&l.sp, &j, &inst, &d), MAPF_OK, "%s", d.msg);
    const mapf_scen_entry *e = &l.plan->scens[0].scen->entries[i];
    cr_assert_eq(inst->start[0], mapf_grid_id(l.sp.grids[0], e->sx, e->sy));
    cr_assert_eq(inst->goal[0], mapf_grid_id(l.sp.grids[0], e->gx, e->gy));
    mapf_instance_free(inst);
  }
  farm_job j;
  farm_space_job(&l.sp, 4, &j);
  cr_assert_eq(j.scen, 1);
  cr_assert_eq(j.agents, 3);
  mapf_instance *inst = NULL;
  mapf_diag d = {0};
  cr_assert_eq(farm_job_instance(&l.sp, &j, &inst, &d), MAPF_OK, "%s", d.msg);
  cr_assert_eq(inst->n, 3);
  mapf_instance_free(inst);
  farm_space_job(&l.sp, 6, &j);
  cr_assert_eq(j.map, 1);
  cr_assert_eq(j.scen, 2);
  unload(&l);
}

Test(expand, a_scenario_file_for_no_map_of_the_plan_is_an_error) {
  const char *text = "name: x\nmaps: [open.map]\nscenarios:\n"
                     "  - {generator: scen, file: tiny.map.scen}\n"
                     "algorithms: [{name: bmaa}]\n";
  farm_diags errs = {0, 0, NULL};
  farm_plan *p = NULL;
  cr_assert_eq(farm_plan_parse(text, strlen(text), "mem/plan.yaml", &opts, &p, &errs), MAPF_OK);
  farm_space sp;
  cr_assert_eq(farm_space_init(&sp, p, &errs), MAPF_EINVAL);
  char *all = test_format_diags(&errs);
  cr_assert(strstr(all, "mem/plan.yaml:4:5: error: scenario file") &&
                strstr(all, "is for map tiny.map (6 x 4), which is not among the plan's maps"),
            "%s", all);
  free(all);
  farm_diags_free(&errs);
  farm_plan_free(p);
}

/* Key text writes parameters in the plain shortest form (vision 30 -> "30") but limits.seconds
 * from one significant digit (30 -> "3e+01"), as mapfarm-job/1 always has: both are in stored
 * keys, so both forms are pinned here. */
Test(expand, key_text_keeps_both_number_forms_of_version_1) {
  loaded l;
  load_text(&l, "name: x\nseed: 3\nmaps: [tiny.map]\n"
                "scenarios: [{generator: random, agents: 2}]\n"
                "algorithms: [{name: bmaa, params: {vision: 30}}]\n"
                "limits: {steps: 20, seconds: 30}\n");
  cr_assert_eq(l.sp.njobs, 1);
  farm_job j;
  farm_space_job(&l.sp, 0, &j);
  char head[512];
  snprintf(head, sizeof head,
           "mapfarm-job/1\nmap=%016llx\ngenerator=random\nagents=2\ninstance=0\nseed=3\n",
           (unsigned long long)l.sp.grids[0]->hash);
  expect_key(&j, head,
             "algorithm=bmaa\nparams={\"expansions\":32,\"flow\":false,"
             "\"moves\":32,\"push\":false,\"vision\":30}\n"
             "limits=steps:20,seconds:3e+01,expansions:0\nexecution=chains\n");
  unload(&l);
}

/* An entry's own limits replace the plan's for its jobs only, and are in their keys; a work
 * budget adds its field to the limits line (a plan without one keeps the keys it had); the
 * instance does not depend on limits. */
Test(expand, an_entrys_limits_and_a_work_budget_are_in_its_keys_only) {
  loaded l;
  load_text(&l, "name: x\nseed: 3\nmaps: [tiny.map]\n"
                "scenarios: [{generator: random, agents: 2}]\n"
                "algorithms:\n"
                "  - {name: bmaa}\n"
                "  - {name: bmaa, label: B2, params: {moves: 8}, limits: {steps: 30, work: 0.5}}\n"
                "limits: {steps: 20}\n");
  cr_assert_eq(l.sp.njobs, 2);
  farm_job j0, j1;
  farm_space_job(&l.sp, 0, &j0);
  farm_space_job(&l.sp, 1, &j1);
  char head[512];
  snprintf(head, sizeof head,
           "mapfarm-job/1\nmap=%016llx\ngenerator=random\nagents=2\ninstance=0\nseed=3\n",
           (unsigned long long)l.sp.grids[0]->hash);
  expect_key(&j0, head,
             "algorithm=bmaa\nparams={\"expansions\":32,\"flow\":false,"
             "\"moves\":32,\"push\":false,\"vision\":1.4142135623730951}\n"
             "limits=steps:20,seconds:0,expansions:0\nexecution=chains\n");
  expect_key(&j1, head,
             "algorithm=bmaa\nparams={\"expansions\":32,\"flow\":false,"
             "\"moves\":8,\"push\":false,\"vision\":1.4142135623730951}\n"
             "limits=steps:30,seconds:0,expansions:0,work:0.5\nexecution=chains\n");
  cr_assert_eq(j0.instance_seed, j1.instance_seed);
  mapf_limits a = farm_algo_limits(l.plan, &l.plan->algos[0]);
  mapf_limits b = farm_algo_limits(l.plan, &l.plan->algos[1]);
  cr_assert(a.steps == 20 && a.work == 0 && b.steps == 30 && b.work == 0.5);
  unload(&l);
}
