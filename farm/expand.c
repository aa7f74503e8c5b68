/* expand.c: the job space of a plan, the decoding of an algorithm entry's combinations and of
 * a job, and the job keys (expand.h).
 *
 * Jobs are numbered in this order, outermost first: map, scenario, agent count, instance,
 * algorithm entry with its parameter combination. The innermost level being the algorithm,
 * consecutive jobs run the same instance with every algorithm, which keeps a worker's caches
 * warm and makes partial results comparable.
 *
 * A job's key is the 128-bit hash of its canonical text (one field per line, fixed order):
 *
 *   mapfarm-job/1
 *   map=<16 hex digits of the grid's content hash>
 *   generator=<name>, or for a generator with parameters <name> <canonical JSON of all of them>
 *   agents=<n>
 *   instance=<i>
 *   seed=<plan seed>
 *   algorithm=<canonical name>
 *   params=<mapf_params_json: every parameter, sorted by name>
 *   program=<32 hex digits>: only for an algorithm that runs a program (external), the content
 *          hash of its command's files (farm_algo_spec.program_hash), so a rebuilt solver gets
 *          new keys
 *   limits=steps:<n>,seconds:<shortest %g from one digit: 30 -> 3e+01>,expansions:<n>
 *          then ,work:<shortest %g> only when the job has a work budget
 *          (the job's limits: the plan's, with its entry's own `limits` over them)
 *   execution=<chains | single-pass | joint>
 *          (the job's rule: joint for a joint planner whatever the plan says, farm_algo_execution)
 *   connectivity=4
 *          only when the plan moves on 4 connected grids; a plan of the default 8 keeps the
 *          keys it always had
 *   events=retask every:<k>,fraction:<shortest %g of 15 digits>,rounds:<r>
 *          or events=file <16 hex digits of the file's events>, then lifelong=1: only for a
 *          scenario with events or lifelong goals (farm_events_texts); they change neither
 *          the instance nor its seed, and a plan without them keeps its keys
 *
 * The instance seed is the 64-bit hash of the first six lines only, so every algorithm (and
 * every limit or execution rule) of a plan runs the same instance; the algorithm's own seed is
 * mixed from the key. Map names, file paths and labels are not part of the key: moving a map
 * file or renaming an entry keeps results. Nor is the way a combination was written: the same
 * resolved parameters reached through params, zip, sample or defaults give the same key. */
#include "expand.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "events.h"
#include "mapgen.h"
#include "scen.h"
#include "scengen.h"
#include "sim.h"

static void free_strings(char **v, int64_t n) {
  if (!v) return;
  for (int64_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

void farm_space_free(farm_space *sp) {
  if (!sp) return;
  if (sp->grids && sp->plan)
    for (int32_t i = 0; i < sp->plan->nmaps; i++) mapf_grid_free(sp->grids[i]);
  free(sp->grids);
  free(sp->scen_jobs);
  free(sp->applies);
  free(sp->map_off);
  free_strings(sp->combo_json, sp->algo_combos);
  free_strings(sp->combo_label, sp->algo_combos);
  free_strings(sp->combo_tail, sp->algo_combos);
  memset(sp, 0, sizeof *sp);
}

/* The key text's lines from `algorithm=` on (see the top of this file), given the entry's
 * parameter JSON. Returns the length, truncated to n - 1. */
static int key_tail(const farm_plan *plan, const farm_algo_spec *as, const char *json, char *buf,
                    size_t n) {
  mapf_limits l = farm_algo_limits(plan, as);
  char secs[40], work[48] = "";
  /* From one digit, not MAPF_REAL_DIGITS: this form is in every stored key (mapfarm-job/1). */
  mapf_format_real(l.seconds, 1, secs, sizeof secs);
  /* A work budget adds its field; a plan without one keeps the keys it always had. */
  if (l.work > 0) {
    memcpy(work, ",work:", 7);
    mapf_format_real(l.work, MAPF_REAL_DIGITS, work + 6, sizeof work - 6);
  }
  char program[48] = "";
  if (as->program_hash[0]) snprintf(program, sizeof program, "program=%s\n", as->program_hash);
  int len = snprintf(buf, n,
                     "algorithm=%s\nparams=%s\n%slimits=steps:%lld,seconds:%s,expansions:%lld%s\n"
                     "execution=%s\n%s",
                     as->def->name, json, program, (long long)l.steps, secs,
                     (long long)l.expansions, work,
                     mapf_execution_name(farm_algo_execution(plan, as)),
                     plan->connectivity == 4 ? "connectivity=4\n" : "");
  return len < (int)n ? len : (int)n - 1;
}

/* Fills the per-combination texts (farm_space.combo_*); on any failure leaves them NULL, and
 * every job formats its own. */
static void cache_combos(farm_space *sp) {
  const farm_plan *plan = sp->plan;
  int64_t n = sp->algo_combos;
  if (n <= 0 || n > FARM_COMBO_CACHE) return;
  sp->combo_json = calloc((size_t)n, sizeof *sp->combo_json);
  sp->combo_label = calloc((size_t)n, sizeof *sp->combo_label);
  sp->combo_tail = calloc((size_t)n, sizeof *sp->combo_tail);
  int ok = sp->combo_json && sp->combo_label && sp->combo_tail;
  int64_t k = 0;
  for (int32_t a = 0; ok && a < plan->nalgos; a++) {
    const farm_algo_spec *as = &plan->algos[a];
    for (int64_t r = 0; ok && r < as->ncombos; r++, k++) {
      mapf_params params;
      char json[1024], label[256], tail[1536];
      farm_algo_combo(as, r, &params);
      mapf_params_json(as->def, &params, json, sizeof json);
      farm_algo_label(as, &params, label, sizeof label);
      key_tail(plan, as, json, tail, sizeof tail);
      sp->combo_json[k] = strdup(json);
      sp->combo_label[k] = strdup(label);
      sp->combo_tail[k] = strdup(tail);
      ok = sp->combo_json[k] && sp->combo_label[k] && sp->combo_tail[k];
    }
  }
  if (ok) return;
  free_strings(sp->combo_json, n);
  free_strings(sp->combo_label, n);
  free_strings(sp->combo_tail, n);
  sp->combo_json = sp->combo_label = sp->combo_tail = NULL;
}

/* Appends a map loader's diagnostic to errs at the map's place in the plan, quoting the
 * loader's own location: "plan.yaml:5:5: error: cannot load map: lak.map:3:7: unknown ...". */
static void map_error(farm_diags *errs, const farm_plan *plan, const farm_map_spec *ms,
                      const char *what, const mapf_diag *d) {
  char where[600] = "";
  if (d->file[0] && d->line > 0 && d->col > 0)
    snprintf(where, sizeof where, "%s:%d:%d: ", d->file, d->line, d->col);
  else if (d->file[0] && d->line > 0)
    snprintf(where, sizeof where, "%s:%d: ", d->file, d->line);
  else if (d->file[0])
    snprintf(where, sizeof where, "%s: ", d->file);
  farm_diags_add(errs, plan->path, ms->line, ms->col, "%s: %s%s", what, where, d->msg);
}

typedef struct map_hash {
  uint64_t hash;
  int32_t i;
} map_hash;

static int cmp_map_hash(const void *a, const void *b) {
  const map_hash *x = a, *y = b;
  if (x->hash != y->hash) return (x->hash > y->hash) - (x->hash < y->hash);
  return (x->i > y->i) - (x->i < y->i);
}

/* Loads or generates every map (all of them, so every broken map is reported), refuses two maps
 * with the same content (their jobs would share keys), and counts the jobs. */
/* Which scenarios apply to which maps: every generated scenario to every map; a scenario file
 * to the maps whose file name and size it names (its first line's), each checked: every
 * problem the plan takes from it must be valid on that map. A file that names no map of the
 * plan is an error. */
static int match_scen_files(farm_space *sp, farm_diags *errs) {
  const farm_plan *plan = sp->plan;
  int rc = MAPF_OK;
  for (int32_t s = 0; s < plan->nscens; s++) {
    const farm_scen_spec *ss = &plan->scens[s];
    int any = 0;
    for (int32_t m = 0; m < plan->nmaps; m++) {
      uint8_t *ap = &sp->applies[(size_t)m * (size_t)plan->nscens + (size_t)s];
      if (!ss->scen) {
        *ap = 1;
        continue;
      }
      const farm_map_spec *ms = &plan->maps[m];
      const mapf_grid *g = sp->grids[m];
      const char *src = ms->source ? ms->source : "";
      if (ms->generated || mapf_scen_check_map(ss->scen, ss->scen_path, g, NULL) != MAPF_OK)
        continue;
      *ap = 1;
      any = 1;
      /* The problems the plan takes: lines 0 .. instances - 1 one by one, or the first
       * max(agents) lines together. */
      mapf_diag d;
      memset(&d, 0, sizeof d);
      int err = MAPF_OK;
      if (ss->scen_single) {
        for (int32_t i = 0; i < ss->instances && err == MAPF_OK; i++) {
          mapf_instance *inst = NULL;
          err = mapf_instance_from_scen(ss->scen, g, i, 1, &inst, &d);
          mapf_instance_free(inst);
        }
      } else {
        int32_t k = 0;
        for (int32_t i = 0; i < ss->nagents; i++) k = ss->agents[i] > k ? ss->agents[i] : k;
        mapf_instance *inst = NULL;
        err = mapf_instance_from_scen(ss->scen, g, 0, k, &inst, &d);
        mapf_instance_free(inst);
      }
      if (err != MAPF_OK) {
        char msg[1200];
        if (!d.file[0]) snprintf(d.file, sizeof d.file, "%s", ss->scen_path);
        mapf_diag_format(&d, msg, sizeof msg);
        farm_diags_add(errs, plan->path, ss->line, ss->col, "on map %s: %s", src, msg);
        rc = MAPF_EINVAL;
      }
    }
    if (ss->scen && !any) {
      const mapf_scen_entry *e0 = &ss->scen->entries[0];
      farm_diags_add(errs, plan->path, ss->line, ss->col,
                     "scenario file \"%s\" is for map %s (%d x %d), which is not among the "
                     "plan's maps; add it to maps",
                     ss->scen_path, ss->scen->map ? ss->scen->map : "(none)", (int)e0->width,
                     (int)e0->height);
      rc = MAPF_EINVAL;
    }
  }
  return rc;
}

/* Every events file against every map its scenario applies to, the scenario's smallest agent
 * count and the largest step limit of the plan's algorithms (an event after it happens to no
 * job): the first failure of each file, at its own FILE:LINE:COL. */
static int check_events_files(farm_space *sp, farm_diags *errs) {
  const farm_plan *plan = sp->plan;
  int64_t steps = 0;
  for (int32_t a = 0; a < plan->nalgos; a++) {
    int64_t l = farm_algo_limits(plan, &plan->algos[a]).steps;
    steps = l > steps ? l : steps;
  }
  int rc = MAPF_OK;
  /* Doors: every map needs as many as a round closes (the rounds' overlaps are the
   * generator's to check, per job). */
  for (int32_t s = 0; s < plan->nscens && rc == MAPF_OK; s++) {
    const farm_scen_spec *ss = &plan->scens[s];
    if (ss->doors_every <= 0) continue;
    for (int32_t m = 0; m < plan->nmaps; m++) {
      if (!sp->applies[(size_t)m * (size_t)plan->nscens + (size_t)s]) continue;
      const mapf_grid *g = sp->grids[m];
      mapf_door *door = NULL;
      int32_t nd = mapf_doors_find(g, ss->doors_width, &door);
      free(door);
      if (nd < 0) return MAPF_ENOMEM;
      if (nd >= ss->doors_count) continue;
      farm_diags_add(errs, plan->path, ss->events_line, ss->events_col,
                     "doors: map %s has %d doors of width at most %d (passages that narrow); "
                     "cannot close %d at once",
                     g->name, (int)nd, (int)ss->doors_width, (int)ss->doors_count);
      rc = MAPF_EINVAL;
      break;
    }
  }
  for (int32_t s = 0; s < plan->nscens; s++) {
    const farm_scen_spec *ss = &plan->scens[s];
    if (!ss->events_file) continue;
    int32_t agents = ss->agents[0];
    for (int32_t i = 1; i < ss->nagents; i++) agents = ss->agents[i] < agents ? ss->agents[i] : agents;
    for (int32_t m = 0; m < plan->nmaps; m++) {
      if (!sp->applies[(size_t)m * (size_t)plan->nscens + (size_t)s]) continue;
      mapf_diag d;
      memset(&d, 0, sizeof d);
      if (mapf_events_check(ss->events_file, sp->grids[m], agents, steps > 0 ? steps : -1, &d) ==
          MAPF_OK)
        continue;
      farm_diags_add(errs, d.file, d.line, d.col, "%s (map %s; the scenario at %s:%d:%d)", d.msg,
                     sp->grids[m]->name, plan->path, ss->line, ss->col);
      rc = MAPF_EINVAL;
      break;
    }
  }
  return rc;
}

int64_t farm_space_map_jobs(const farm_space *sp, int32_t m) {
  return sp->map_off[m + 1] - sp->map_off[m];
}

int64_t farm_space_scen_jobs(const farm_space *sp, int32_t s) {
  int64_t n = 0;
  for (int32_t m = 0; m < sp->plan->nmaps; m++)
    if (sp->applies[(size_t)m * (size_t)sp->plan->nscens + (size_t)s]) n += sp->scen_jobs[s];
  return n;
}

int farm_space_init(farm_space *sp, const farm_plan *plan, farm_diags *errs) {
  memset(sp, 0, sizeof *sp);
  sp->plan = plan;
  int rc = MAPF_OK;
  sp->grids = calloc((size_t)(plan->nmaps ? plan->nmaps : 1), sizeof *sp->grids);
  sp->scen_jobs = calloc((size_t)(plan->nscens ? plan->nscens : 1), sizeof *sp->scen_jobs);
  sp->applies = calloc((size_t)(plan->nmaps ? plan->nmaps : 1) *
                           (size_t)(plan->nscens ? plan->nscens : 1), 1);
  sp->map_off = calloc((size_t)plan->nmaps + 1, sizeof *sp->map_off);
  if (!sp->grids || !sp->scen_jobs || !sp->applies || !sp->map_off) {
    farm_diags_add(errs, plan->path, 0, 0, "out of memory");
    farm_space_free(sp);
    return MAPF_ENOMEM;
  }
  for (int32_t i = 0; i < plan->nmaps; i++) {
    const farm_map_spec *ms = &plan->maps[i];
    mapf_diag d;
    memset(&d, 0, sizeof d);
    int err;
    if (ms->generated) {
      err = mapf_mapgen(&ms->gen, &sp->grids[i], &d);
      if (err) map_error(errs, plan, ms, "cannot generate map", &d);
    } else {
      err = mapf_grid_load(ms->path, &sp->grids[i], &d);
      if (err) map_error(errs, plan, ms, "cannot load map", &d);
    }
    if (!err && plan->connectivity == 4 &&
        (err = mapf_grid_set_connectivity(sp->grids[i], 4)) != MAPF_OK)
      farm_diags_add(errs, plan->path, ms->line, ms->col, "out of memory");
    if (err && rc == MAPF_OK) rc = err;
    if (err) {
      mapf_grid_free(sp->grids[i]);
      sp->grids[i] = NULL;
    }
  }
  if (rc == MAPF_OK && plan->nmaps > 1) {
    map_hash *h = malloc((size_t)plan->nmaps * sizeof *h);
    if (!h) {
      farm_diags_add(errs, plan->path, 0, 0, "out of memory");
      rc = MAPF_ENOMEM;
    } else {
      for (int32_t i = 0; i < plan->nmaps; i++) h[i] = (map_hash){sp->grids[i]->hash, i};
      qsort(h, (size_t)plan->nmaps, sizeof *h, cmp_map_hash);
      for (int32_t j = 1; j < plan->nmaps; j++) {
        if (h[j].hash != h[j - 1].hash) continue;
        int32_t first = j - 1;
        while (first > 0 && h[first - 1].hash == h[j].hash) first--;
        const farm_map_spec *a = &plan->maps[h[first].i], *b = &plan->maps[h[j].i];
        farm_diags_add(errs, plan->path, b->line, b->col,
                       "map \"%s\" has the same content as map \"%s\" (line %d, column %d); "
                       "their jobs would have the same keys",
                       b->source ? b->source : "", a->source ? a->source : "", a->line, a->col);
        rc = MAPF_EINVAL;
      }
      free(h);
    }
  }
  if (rc == MAPF_OK) rc = match_scen_files(sp, errs);
  if (rc == MAPF_OK) rc = check_events_files(sp, errs);
  if (rc != MAPF_OK) {
    farm_space_free(sp);
    sp->plan = plan;
    return rc;
  }
  /* The plan bounded the job count (at most 10^9), so none of these overflow. */
  for (int32_t a = 0; a < plan->nalgos; a++) sp->algo_combos += plan->algos[a].ncombos;
  for (int32_t s = 0; s < plan->nscens; s++) {
    const farm_scen_spec *ss = &plan->scens[s];
    sp->scen_jobs[s] = (int64_t)ss->nagents * ss->instances * sp->algo_combos;
  }
  for (int32_t m = 0; m < plan->nmaps; m++) {
    int64_t jobs = 0;
    for (int32_t s = 0; s < plan->nscens; s++)
      if (sp->applies[(size_t)m * (size_t)plan->nscens + (size_t)s]) jobs += sp->scen_jobs[s];
    sp->map_off[m + 1] = sp->map_off[m] + jobs;
  }
  sp->njobs = sp->map_off[plan->nmaps];
  cache_combos(sp);
  return MAPF_OK;
}

/* Appends the decimal digits of v at p; returns the end. */
static char *put_u64(char *p, uint64_t v) {
  char d[20];
  int n = 0;
  do d[n++] = (char)('0' + v % 10); while ((v /= 10) > 0);
  while (n > 0) *p++ = d[--n];
  return p;
}

/* The key text's first six lines (see the top of this file), as
 *   snprintf(buf, n, "mapfarm-job/1\nmap=%016llx\ngenerator=%s\nagents=%d\ninstance=%d\n"
 *                    "seed=%llu\n", ...)
 * would write them, without the cost of printf for every job; returns the length (at most
 * n - 1). */
static int key_head(char *buf, size_t n, uint64_t grid_hash, const char *generator,
                    int32_t agents, int32_t instance, uint64_t seed) {
  size_t glen = strlen(generator);
  if (agents < 0 || instance < 0 || glen + 96 > n) {
    int len = snprintf(buf, n,
                       "mapfarm-job/1\nmap=%016llx\ngenerator=%s\nagents=%d\ninstance=%d\n"
                       "seed=%llu\n",
                       (unsigned long long)grid_hash, generator, (int)agents, (int)instance,
                       (unsigned long long)seed);
    return len < (int)n ? len : (int)n - 1;
  }
  static const char hex[] = "0123456789abcdef";
  char *p = buf;
  memcpy(p, "mapfarm-job/1\nmap=", 18);
  p += 18;
  for (int i = 15; i >= 0; i--) *p++ = hex[(grid_hash >> (4 * i)) & 15];
  memcpy(p, "\ngenerator=", 11);
  p += 11;
  memcpy(p, generator, glen);
  p += glen;
  memcpy(p, "\nagents=", 8);
  p = put_u64(p + 8, (uint64_t)agents);
  memcpy(p, "\ninstance=", 10);
  p = put_u64(p + 10, (uint64_t)instance);
  memcpy(p, "\nseed=", 6);
  p = put_u64(p + 6, seed);
  *p++ = '\n';
  *p = '\0';
  return (int)(p - buf);
}

/* Decodes index by mixed radix (see the top of this file), resolves the parameters and hashes
 * the canonical text. O(scenarios + algorithm entries + parameters); no allocation. Excluded
 * combinations cost nothing here: an entry keeps the indices of its surviving combinations,
 * so combination r is one array lookup away from its raw index. */
void farm_space_job(const farm_space *sp, int64_t index, farm_job *job) {
  const farm_plan *plan = sp->plan;
  memset(job, 0, sizeof *job);
  job->index = index;
  /* The map: the last whose first job is at or before index (binary search). */
  int32_t lo = 0, hi = plan->nmaps - 1;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo + 1) / 2;
    if (sp->map_off[mid] <= index) lo = mid;
    else hi = mid - 1;
  }
  job->map = lo;
  int64_t r = index - sp->map_off[lo];
  const uint8_t *ap = sp->applies + (size_t)lo * (size_t)plan->nscens;
  int32_t s = 0;
  while (!ap[s]) s++;
  for (;;) {
    int32_t next = s + 1;
    while (next < plan->nscens && !ap[next]) next++;
    if (next >= plan->nscens || r < sp->scen_jobs[s]) break;
    r -= sp->scen_jobs[s];
    s = next;
  }
  const farm_scen_spec *ss = &plan->scens[s];
  job->scen = s;
  int64_t per_agents = (int64_t)ss->instances * sp->algo_combos;
  job->agents = ss->agents[r / per_agents];
  r %= per_agents;
  job->instance = (int32_t)(r / sp->algo_combos);
  r %= sp->algo_combos;
  job->combo_all = r;
  int32_t a = 0;
  while (a + 1 < plan->nalgos && r >= plan->algos[a].ncombos) r -= plan->algos[a++].ncombos;
  const farm_algo_spec *as = &plan->algos[a];
  job->algo = a;
  job->combo = r;
  /* The parameter combination, decoded as plan.c enumerates them (params axes, zip groups,
   * sampled configurations; excluded combinations skipped through the entry's keep list). */
  farm_algo_combo(as, r, &job->params);

  /* Both parts fit: a generator's and an algorithm's parameter lists are each at most
   * MAPF_MAX_PARAMS short names with their values (under 1,024 bytes of JSON). */
  char text[1536 + 1280 + 256];
  int head = key_head(text, 1280, sp->grids[job->map]->hash, ss->generator_key, job->agents,
                      job->instance, plan->seed);
  int len = head;
  if (sp->combo_tail) {
    size_t t = strlen(sp->combo_tail[job->combo_all]);
    memcpy(text + head, sp->combo_tail[job->combo_all], t);
    len += (int)t;
  } else {
    char json[1024];
    mapf_params_json(as->def, &job->params, json, sizeof json);
    len += key_tail(plan, as, json, text + head, sizeof text - (size_t)head);
  }
  /* Events and lifelong goals last: a plan without them keeps the keys it always had. */
  if (ss->events_key) {
    size_t t = strlen(ss->events_key);
    memcpy(text + len, ss->events_key, t);
    len += (int)t;
  }
  job->key = mapf_hash128_of(text, (size_t)len);
  mapf_hash128_hex(job->key, job->key_hex);
  job->instance_seed = mapf_hash64(text, (size_t)head, 0);
  job->seed = mapf_mix64(job->key.hi ^ job->key.lo);
}

/* ---- an algorithm entry's combinations (plan.h farm_algo_spec) ------------------------- */

/* Sets the parameters of row `row` of table t in p. */
static void table_row(const farm_param_table *t, int64_t row, mapf_params *p) {
  const double *v = t->values + row * t->ncols;
  for (int32_t k = 0; k < t->ncols; k++) p->v[t->index[k]] = v[k];
}

mapf_limits farm_algo_limits(const farm_plan *plan, const farm_algo_spec *as) {
  mapf_limits l = plan->limits;
  if (as->limits_set & FARM_LIMIT_STEPS) l.steps = as->limits.steps;
  if (as->limits_set & FARM_LIMIT_SECONDS) l.seconds = as->limits.seconds;
  if (as->limits_set & FARM_LIMIT_EXPANSIONS) l.expansions = as->limits.expansions;
  if (as->limits_set & FARM_LIMIT_WORK) l.work = as->limits.work;
  return l;
}

mapf_execution farm_algo_execution(const farm_plan *plan, const farm_algo_spec *as) {
  return mapf_algo_execution(as->def, plan->execution);
}

void farm_algo_raw(const farm_algo_spec *as, int64_t raw, mapf_params *p) {
  *p = as->base;
  if (as->sample.nrows > 0) {
    table_row(&as->sample, raw % as->sample.nrows, p);
    raw /= as->sample.nrows;
  }
  for (int32_t z = as->nzips - 1; z >= 0; z--) {
    table_row(&as->zips[z], raw % as->zips[z].nrows, p);
    raw /= as->zips[z].nrows;
  }
  for (int32_t a = as->naxes - 1; a >= 0; a--) {
    const farm_param_axis *ax = &as->axes[a];
    p->v[ax->index] = ax->values[raw % ax->nvalues];
    raw /= ax->nvalues;
  }
}

void farm_algo_combo(const farm_algo_spec *as, int64_t combo, mapf_params *p) {
  farm_algo_raw(as, as->keep ? as->keep[combo] : combo, p);
}

int farm_algo_label(const farm_algo_spec *as, const mapf_params *p, char *buf, size_t n) {
  if (!as->label_template) return snprintf(buf, n, "%s", as->label ? as->label : "");
  size_t len = 0;
  char val[MAPF_LIST_MAX_JSON + 8]; /* a list, the longest value */
  for (int32_t i = 0; i < as->nlabel_parts; i++) {
    const farm_label_part *part = &as->label_parts[i];
    const char *s = as->label_text + part->off;
    size_t k = (size_t)part->len;
    if (part->param >= 0) {
      /* An enumeration's choice without the JSON quotes: a label reads "RTHS lop=median". */
      const char *choice = mapf_param_choice(as->def, part->param, p->v[part->param]);
      int w = choice ? snprintf(val, sizeof val, "%s", choice)
                     : mapf_params_format(as->def, p, part->param, val, sizeof val);
      s = val;
      k = w < 0 ? 0 : (size_t)w < sizeof val ? (size_t)w : sizeof val - 1;
    }
    if (len < n) memcpy(buf + len, s, len + k < n ? k : n - len);
    len += k;
  }
  if (n) buf[len < n ? len : n - 1] = '\0';
  return (int)len;
}

int farm_job_params_json(const farm_space *sp, const farm_job *job, char *buf, size_t n) {
  if (sp->combo_json) return snprintf(buf, n, "%s", sp->combo_json[job->combo_all]);
  return mapf_params_json(sp->plan->algos[job->algo].def, &job->params, buf, n);
}

int farm_job_label(const farm_space *sp, const farm_job *job, char *buf, size_t n) {
  if (sp->combo_label) return snprintf(buf, n, "%s", sp->combo_label[job->combo_all]);
  return farm_algo_label(&sp->plan->algos[job->algo], &job->params, buf, n);
}

int farm_job_instance(const farm_space *sp, const farm_job *job, mapf_instance **out,
                      mapf_diag *d) {
  const farm_scen_spec *ss = &sp->plan->scens[job->scen];
  const mapf_grid *g = sp->grids[job->map];
  *out = NULL;
  if (ss->scen) {
    int32_t first = ss->scen_single ? job->instance : 0;
    int rc = mapf_instance_from_scen(ss->scen, g, first, job->agents, out, d);
    if (rc == MAPF_OK) rc = farm_events_add(ss, g, job->instance_seed, *out, d);
    if (rc != MAPF_OK) {
      mapf_instance_free(*out);
      *out = NULL;
    }
    return rc;
  }
  int rc = ss->gdef->generate(g, job->agents, &ss->gparams, job->instance_seed, out, d);
  if (rc == MAPF_OK) rc = farm_events_add(ss, g, job->instance_seed, *out, d);
  if (rc != MAPF_OK) {
    mapf_instance_free(*out);
    *out = NULL;
  }
  return rc;
}

int farm_events_add(const farm_scen_spec *ss, const mapf_grid *g, uint64_t instance_seed,
                    mapf_instance *inst, mapf_diag *d) {
  if (!ss->events_key) return MAPF_OK;
  /* From the instance's seed and the events' own text: the instance's problems do not change,
   * every algorithm meets the same events, and two event settings draw independently. */
  uint64_t seed = mapf_hash64(ss->events_key, strlen(ss->events_key), instance_seed);
  int rc = MAPF_OK;
  if (ss->retask_every > 0)
    rc = mapf_retask_generate(g, inst, ss->retask_every, ss->retask_fraction, ss->retask_rounds,
                              seed, d);
  /* Doors draw from a seed of their own, so that adding them leaves the re-tasking as it was. */
  if (rc == MAPF_OK && ss->doors_every > 0)
    rc = mapf_doors_generate(g, inst, ss->doors_every, ss->doors_count, ss->doors_width,
                             ss->doors_duration, ss->doors_rounds, mapf_hash64("doors", 5, seed),
                             d);
  if (ss->events_file)
    rc = mapf_events_apply(ss->events_file, g, inst, d);
  if (ss->lifelong) {
    inst->lifelong = 1;
    inst->task_seed = seed;
  }
  return rc;
}
