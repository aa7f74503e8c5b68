/* plan.c: reading and validating a YAML plan (README, "Plan format").
 *
 * Two passes. The first reads libyaml's event stream into a small tree of scalars, lists and
 * mappings that remembers every node's line and column; it refuses anchors and aliases (so a
 * plan can never expand into more than it says) and bounds the tree (nodes, depth, entries per
 * list). The second walks the tree section by section and checks every key and value against
 * the declarations in core/algo.h, core/mapgen.h and core/sim.h. It never stops at the first
 * mistake: every error goes to the caller's farm_diags as PLAN:LINE:COL (docs/design.md, Errors),
 * up to PLAN_MAX_ERRORS, and the plan is returned only when there were none.
 *
 * Beyond each value, the plan is checked for repetitions that would give two jobs the same key
 * (a map listed twice, an agent count in two scenarios, a zip row listed twice, a parameter
 * combination in two algorithm entries), and for its size: the job count is bounded before
 * anything runs.
 *
 * This file holds the second pass's top level (the table of top-level keys, `limits`,
 * `execution`) and the entry points; farm/plan_yaml.c the tree and the value checks;
 * farm/plan_maps.c the maps and scenarios; farm/plan_algos.c the algorithm entries. */
#include "plan.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "algo.h"
#include "events.h"
#include "hash.h"
#include "plan_int.h"
#include "scen.h"

/* ---- limits, execution, top level -------------------------------------------------------- */

void farm__plan_parse_limits(pctx *c, const pnode *v, mapf_limits *out, unsigned *set) {
  static const char *const keys[] = {"steps", "seconds", "expansions", "work"};
  char fbuf[80];
  if (farm__plan_bad(c, v)) return;
  if (v->kind != PN_MAP) {
    farm__plan_perr(c, v->line, v->col,
                    "limits: expected a mapping (steps, seconds, expansions, work), found %s",
                    FOUND(v));
    return;
  }
  kv f[4];
  farm__plan_walk_map(c, v, keys, 4, f, "limits");
  long long x;
  if (f[0].val && farm__plan_get_int(c, f[0].val, "steps", 1, LLONG_MAX, &x) == 0) {
    out->steps = x;
    *set |= FARM_LIMIT_STEPS;
  }
  if (f[1].val && farm__plan_get_real(c, f[1].val, "seconds", 0, INFINITY, &out->seconds) == 0)
    *set |= FARM_LIMIT_SECONDS;
  if (f[2].val && farm__plan_get_int(c, f[2].val, "expansions", 0, LLONG_MAX, &x) == 0) {
    out->expansions = x;
    *set |= FARM_LIMIT_EXPANSIONS;
  }
  if (f[3].val && farm__plan_get_real(c, f[3].val, "work", 0, INFINITY, &out->work) == 0)
    *set |= FARM_LIMIT_WORK;
}

static void parse_limits(pctx *c, farm_plan *plan, const pnode *v) {
  unsigned set = 0;
  farm__plan_parse_limits(c, v, &plan->limits, &set);
}

static void parse_execution(pctx *c, farm_plan *plan, const pnode *v) {
  static const char *const names[] = {"chains", "single-pass", "joint"};
  char h[480];
  const char *s = farm__plan_get_str(c, v, "execution");
  if (!s) return;
  int e = mapf_execution_parse(s);
  if (e < 0) {
    farm__plan_hint(s, names, 3, h, sizeof h);
    farm__plan_perr(c, v->line, v->col, "unknown execution \"%s\"%s", s, h);
    return;
  }
  plan->execution = (mapf_execution)e;
}

/* What the top-level keys' parsers share: where relative paths start, where maps are looked
 * up, and each registered algorithm's defaults as the plan's `defaults` change them (read
 * before `algorithms`, wherever the key stands). */
typedef struct root_ctx {
  const char *dir;
  const farm_plan_opts *opts;
  mapf_params *bases;
} root_ctx;

static void root_name(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  const char *s = farm__plan_get_str(c, v, "name");
  if (s) plan->name = farm__plan_xstrdup(c, s);
}

static void root_seed(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  farm__plan_get_u64(c, v, "seed", &plan->seed);
}

static void root_maps(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  farm__plan_parse_maps(c, plan, v, r->dir, r->opts);
}

static void root_scenarios(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  farm__plan_parse_scenarios(c, plan, v, r->dir, r->opts);
}

static void root_defaults(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)plan;
  farm__plan_parse_defaults(c, v, r->bases);
}

static void root_algorithms(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  farm__plan_parse_algorithms(c, plan, v, r->bases);
}

static void root_limits(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  parse_limits(c, plan, v);
}

static void root_execution(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  parse_execution(c, plan, v);
}

static void root_connectivity(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  const char *s = farm__plan_get_str(c, v, "connectivity");
  if (!s) return;
  if (strcmp(s, "4") != 0 && strcmp(s, "8") != 0) {
    farm__plan_perr(c, v->line, v->col, "connectivity: expected 4 or 8, found \"%s\"", s);
    return;
  }
  plan->connectivity = s[0] - '0';
}

static void root_coherence_every(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  long long every;
  if (farm__plan_get_int(c, v, "coherence_every", 0, LLONG_MAX, &every) == 0)
    plan->coherence_every = every;
}

/* store: {agents: true|false}: whether jobs get their agent rows (agent_results). Not part of
 * job keys: it changes what is recorded, not the run. */
static void root_store(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r) {
  (void)r;
  static const char *const keys[] = {"agents"};
  char fbuf[80];
  if (farm__plan_bad(c, v)) return;
  if (v->kind != PN_MAP) {
    farm__plan_perr(c, v->line, v->col, "store: expected a mapping (agents), found %s", FOUND(v));
    return;
  }
  kv f[1];
  farm__plan_walk_map(c, v, keys, 1, f, "store");
  if (!f[0].val) return;
  int on;
  if (farm__plan_get_bool(c, f[0].val, "store: agents", &on) == 0) plan->store_agents = on;
}

/* The plan's top-level keys, in the order they are parsed (`defaults` before `algorithms`):
 * the one declaration that walk_map, "missing required key" and the messages listing the keys
 * read. */
typedef struct root_key {
  const char *name;
  int required;
  void (*parse)(pctx *c, farm_plan *plan, const pnode *v, root_ctx *r);
  const char *doc;
} root_key;

static const root_key root_keys[] = {
    {"name", 1, root_name, "the plan's name, recorded with every run"},
    {"seed", 0, root_seed, "integer >= 0, default 1; seeds the scenario generators"},
    {"maps", 1, root_maps, "MovingAI .map files and generated maps"},
    {"scenarios", 1, root_scenarios, "scenario generators or .scen files, agent counts, instances"},
    {"defaults", 0, root_defaults, "per algorithm, values replacing the registry's defaults"},
    {"limits", 0, root_limits,
     "steps (default 10000), seconds, expansions and work (0: none); an entry may override them"},
    {"algorithms", 1, root_algorithms,
     "algorithm entries: name, label, params, zip, exclude, sample, limits"},
    {"execution", 0, root_execution,
     "chains (default), single-pass or joint: the rule of planners that plan each agent on its "
     "own (joint planners, pibt and lacam, always run joint)"},
    {"connectivity", 0, root_connectivity,
     "the moves: 8 (default: cardinal and diagonal, no corner cutting) or 4 (cardinal only)"},
    {"coherence_every", 0, root_coherence_every,
     "steps between direction-map coherence samples (default 100; 0: none)"},
    {"store", 0, root_store, "agents: false stores no agent rows (default true)"},
};
#define ROOT_KEYS ((int32_t)(sizeof root_keys / sizeof root_keys[0]))

/* "name, seed, maps, ..." (all keys) or "name, maps, scenarios and algorithms" (required). */
static void root_key_list(int required_only, char *buf, size_t n) {
  const char *names[ROOT_KEYS];
  int32_t k = 0;
  for (int32_t i = 0; i < ROOT_KEYS; i++)
    if (!required_only || root_keys[i].required) names[k++] = root_keys[i].name;
  size_t len = 0;
  buf[0] = '\0';
  for (int32_t i = 0; i < k && len < n; i++) {
    const char *sep = i == 0 ? "" : i + 1 == k && required_only ? " and " : ", ";
    int w = snprintf(buf + len, n - len, "%s%s", sep, names[i]);
    len += w > 0 ? (size_t)w : 0;
  }
}

static void parse_root(pctx *c, farm_plan *plan, const pnode *root, const char *dir,
                       const farm_plan_opts *opts) {
  char fbuf[80], list[256];
  if (!root || farm__plan_is_null(root)) {
    root_key_list(1, list, sizeof list);
    farm__plan_perr(c, root ? root->line : 1, root ? root->col : 1,
                    "the plan is empty; expected a mapping with %s", list);
    return;
  }
  if (farm__plan_bad(c, root)) return;
  if (root->kind != PN_MAP) {
    root_key_list(0, list, sizeof list);
    farm__plan_perr(c, root->line, root->col, "expected a mapping of plan keys (%s), found %s",
                    list, FOUND(root));
    return;
  }
  const char *names[ROOT_KEYS];
  for (int32_t i = 0; i < ROOT_KEYS; i++) names[i] = root_keys[i].name;
  kv f[ROOT_KEYS];
  farm__plan_walk_map(c, root, names, ROOT_KEYS, f, NULL);
  mapf_params *bases = calloc((size_t)(mapf_algo_count() ? mapf_algo_count() : 1), sizeof *bases);
  if (!bases) {
    farm__plan_perr_fatal_oom(c);
    return;
  }
  for (int32_t a = 0; a < mapf_algo_count(); a++) mapf_params_default(mapf_algo_at(a), &bases[a]);
  root_ctx r = {dir, opts, bases};
  for (int32_t i = 0; i < ROOT_KEYS; i++) {
    if (root_keys[i].required && farm__plan_require(c, root, &f[i], root_keys[i].name, NULL) != 0)
      continue;
    if (f[i].val) root_keys[i].parse(c, plan, f[i].val, &r);
  }
  free(bases);
  if (c->nerr || c->stop) return;
  /* The joint rule is for planners that move all agents together (core/sim.h): the others'
   * steps would conflict. A joint planner runs joint whatever the plan says (its jobs' keys
   * and `execution` column say joint), so one plan holds both kinds under the sequential rule
   * it names. */
  if (plan->execution == MAPF_EXEC_JOINT)
    for (int32_t a = 0; a < plan->nalgos; a++) {
      const farm_algo_spec *as = &plan->algos[a];
      if (!as->def->joint)
        farm__plan_perr(c, as->line, as->col,
                        "%s plans each agent on its own and runs under execution chains or "
                        "single-pass, not joint (joint is for planners that move all agents "
                        "together, such as pibt and lacam)",
                        as->def->name);
    }
  if (c->nerr) return;
  /* The size of the job space, before anything is loaded or run. */
  long long per_map = 0, combos = 0;
  for (int32_t s = 0; s < plan->nscens; s++)
    per_map = farm__plan_sat_add(
        per_map, farm__plan_sat_mul(plan->scens[s].nagents, plan->scens[s].instances));
  for (int32_t a = 0; a < plan->nalgos; a++)
    combos = farm__plan_sat_add(combos, plan->algos[a].ncombos);
  long long jobs = farm__plan_sat_mul(farm__plan_sat_mul(plan->nmaps, per_map), combos);
  if (jobs > PLAN_MAX_JOBS)
    farm__plan_perr(c, root->line, root->col,
                    "the plan has %s%lld jobs; at most %lld are allowed (%d "
                    "maps x %lld instances x %lld algorithm configurations)",
                    jobs == LLONG_MAX ? "more than " : "", jobs, PLAN_MAX_JOBS, (int)plan->nmaps,
                    per_map, combos);
}

/* ---- entry points ----------------------------------------------------------------------- */

void farm_plan_free(farm_plan *p) {
  if (!p) return;
  free(p->path);
  free(p->text);
  free(p->name);
  for (int32_t i = 0; p->maps && i < p->nmaps; i++) {
    free(p->maps[i].source);
    free(p->maps[i].path);
  }
  free(p->maps);
  for (int32_t i = 0; p->scens && i < p->nscens; i++) {
    free(p->scens[i].generator);
    free(p->scens[i].generator_key);
    free(p->scens[i].scen_path);
    mapf_scen_free(p->scens[i].scen);
    free(p->scens[i].agents);
    mapf_events_free(p->scens[i].events_file);
    free(p->scens[i].events);
    free(p->scens[i].events_key);
  }
  free(p->scens);
  for (int32_t i = 0; p->algos && i < p->nalgos; i++) {
    farm_algo_spec *as = &p->algos[i];
    free(as->label);
    free(as->label_parts);
    free(as->label_text);
    for (int32_t a = 0; as->axes && a < as->naxes; a++) free(as->axes[a].values);
    free(as->axes);
    for (int32_t z = 0; as->zips && z < as->nzips; z++) free(as->zips[z].values);
    free(as->zips);
    free(as->sample.values);
    free(as->keep);
  }
  free(p->algos);
  for (int32_t i = 0; i < p->nlists; i++) free(p->lists[i]);
  free(p->lists);
  free(p);
}

/* The directory of the plan file, for relative map paths: "." when path has no slash. */
static char *plan_dir(const char *path) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  size_t n = (size_t)(slash - path);
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, path, n);
  d[n] = '\0';
  return d;
}

/* What a plan is without the optional top-level keys. */
static void plan_defaults(farm_plan *plan) {
  plan->seed = 1;
  plan->limits = (mapf_limits){.steps = 10000, .seconds = 0, .expansions = 0};
  plan->execution = MAPF_EXEC_CHAINS;
  plan->connectivity = 8;
  plan->coherence_every = 100;
  plan->store_agents = 1;
}

int farm_plan_read_limits(const char *text, size_t len, mapf_limits *limits,
                          mapf_execution *execution) {
  farm_diags errs = {0, 0, NULL};
  pctx c;
  memset(&c, 0, sizeof c);
  c.file = "<plan>";
  c.text = text;
  c.len = len;
  c.errs = &errs;
  farm_plan plan;
  memset(&plan, 0, sizeof plan);
  plan_defaults(&plan);
  if (len > PLAN_MAX_BYTES || !yaml_parser_initialize(&c.parser)) return -1;
  yaml_parser_set_input_string(&c.parser, (const unsigned char *)text, len);
  pnode *root = NULL;
  farm__plan_read_tree(&c, &root);
  yaml_parser_delete(&c.parser);
  if (!c.stop && root && root->kind == PN_MAP) {
    for (int32_t p = 0; p < farm__plan_node_pairs(root); p++) {
      const pnode *k = root->kids[2 * p], *v = root->kids[2 * p + 1];
      if (k->kind != PN_SCALAR) continue;
      if (strcmp(k->str, "limits") == 0) parse_limits(&c, &plan, v);
      if (strcmp(k->str, "execution") == 0) parse_execution(&c, &plan, v);
    }
  }
  int ok = root && root->kind == PN_MAP && !c.nerr && !c.stop;
  farm__plan_node_free(root);
  farm_diags_free(&errs);
  if (!ok) return -1;
  *limits = plan.limits;
  *execution = plan.execution;
  return 0;
}

int farm_plan_parse(const char *text, size_t len, const char *path, const farm_plan_opts *opts,
                    farm_plan **out, farm_diags *errs) {
  farm_diags local = {0, 0, NULL};
  pctx c;
  memset(&c, 0, sizeof c);
  c.file = path ? path : "<plan>";
  c.text = text;
  c.len = len;
  c.errs = errs ? errs : &local;
  *out = NULL;
  if (len > PLAN_MAX_BYTES) {
    farm__plan_perr(&c, 0, 0, "the plan is larger than %zu MiB", PLAN_MAX_BYTES >> 20);
    farm_diags_free(&local);
    return MAPF_EINVAL;
  }
  farm_plan *plan = calloc(1, sizeof *plan);
  char *dir = plan_dir(path);
  if (plan) {
    plan->path = strdup(c.file);
    plan->text = malloc(len + 1);
  }
  if (!plan || !dir || !plan->path || !plan->text || !yaml_parser_initialize(&c.parser)) {
    farm__plan_perr_fatal_oom(&c);
    farm_plan_free(plan);
    free(dir);
    farm_diags_free(&local);
    return MAPF_ENOMEM;
  }
  memcpy(plan->text, text, len);
  plan->text[len] = '\0';
  plan->text_len = len;
  mapf_hash128_hex(mapf_hash128_of(text, len), plan->hash);
  plan_defaults(plan);
  c.plan = plan;

  yaml_parser_set_input_string(&c.parser, (const unsigned char *)text, len);
  pnode *root = NULL;
  farm__plan_read_tree(&c, &root);
  yaml_parser_delete(&c.parser);
  if (!c.stop) parse_root(&c, plan, root, dir, opts);
  farm__plan_node_free(root);
  free(dir);
  farm_diags_free(&local);
  if (c.nerr || c.stop) {
    farm_plan_free(plan);
    return c.oom ? MAPF_ENOMEM : c.syntax ? MAPF_EPARSE : MAPF_EINVAL;
  }
  *out = plan;
  return MAPF_OK;
}

int farm_plan_load(const char *path, const farm_plan_opts *opts, farm_plan **out,
                   farm_diags *errs) {
  *out = NULL;
  char *buf;
  size_t len;
  mapf_diag d;
  memset(&d, 0, sizeof d);
  int rc = mapf_read_file(path, PLAN_MAX_BYTES, &buf, &len, &d);
  if (rc != MAPF_OK) {
    if (errs) farm_diags_push(errs, &d);
    return rc;
  }
  rc = farm_plan_parse(buf, len, path, opts, out, errs);
  free(buf);
  return rc;
}
