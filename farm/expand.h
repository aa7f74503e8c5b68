/* expand.h: a plan's jobs and their keys.
 *
 * The job space is indexed, not materialised: job i is computed from i in O(1) by mixed-radix
 * decoding (map, scenario, agent count, instance, algorithm, parameter combination), so a plan
 * of a million jobs costs no memory beyond what the run stores.
 *
 * Job identity (docs/design.md, Job keys): the key is the 128-bit hash of a canonical text naming
 * the map's content hash, the generator and its parameters, the agent count, the instance index,
 * the plan seed, the algorithm with every parameter resolved, the limits and the execution
 * rule. Labels are not part of it. The instance seed leaves out the algorithm, so every
 * algorithm of a plan runs the same instances. */
#ifndef FARM_EXPAND_H
#define FARM_EXPAND_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "plan.h"

typedef struct farm_space {
  const farm_plan *plan;
  mapf_grid **grids;       /* nmaps loaded or generated grids, owned */
  int64_t *scen_jobs;      /* per scenario and map it applies to: nagents * instances * combos */
  /* Whether scenario s applies to map m (applies[m * nscens + s]): always, except a scenario
   * file (generator scen), which applies to the maps it names. */
  uint8_t *applies;
  int64_t *map_off;        /* nmaps + 1: the first job of each map; map_off[nmaps] = njobs */
  int64_t algo_combos;     /* sum over algorithms of ncombos */
  int64_t njobs;
  /* Texts that depend only on the algorithm entry and its combination, made once when there
   * are at most FARM_COMBO_CACHE combinations (NULL otherwise): per combination, the canonical
   * parameter JSON, the label and the key text's tail (algorithm .. execution lines). A job
   * then formats only its instance lines, which matters for plans of many tiny jobs. */
  char **combo_json, **combo_label, **combo_tail;
} farm_space;

#define FARM_COMBO_CACHE 65536

/* Loads or generates every map of plan and counts the jobs. Map errors (MovingAI syntax,
 * generator parameters) are appended to errs at the map's line in the plan. Returns MAPF_OK, or
 * the first error code. */
int farm_space_init(farm_space *sp, const farm_plan *plan, farm_diags *errs);

/* Frees the grids; the plan is not owned. */
void farm_space_free(farm_space *sp);

/* Jobs of map m, and of scenario s over all maps. */
int64_t farm_space_map_jobs(const farm_space *sp, int32_t m);
int64_t farm_space_scen_jobs(const farm_space *sp, int32_t s);

typedef struct farm_job {
  int64_t index;
  int32_t map, scen, agents, instance, algo;
  int64_t combo;           /* the entry's combination, 0 .. ncombos - 1 (excluded ones skipped) */
  int64_t combo_all;       /* the combination over all entries, 0 .. algo_combos - 1 */
  mapf_params params;      /* every parameter resolved */
  mapf_hash128 key;
  char key_hex[33];
  uint64_t instance_seed;  /* seeds the scenario generator */
  uint64_t seed;           /* seeds the algorithm (derived from the key) */
} farm_job;

/* Computes job `index` (0 <= index < njobs). */
void farm_space_job(const farm_space *sp, int64_t index, farm_job *job);

/* The job's parameters as canonical JSON (mapf_params_json). */
int farm_job_params_json(const farm_space *sp, const farm_job *job, char *buf, size_t n);

/* Writes the job's label into buf (always NUL-terminated when n > 0): its entry's label with
 * every {name} of a template replaced by the job's value of that parameter (farm_algo_label);
 * the plain label when the entry has no template. Returns the length the label needs, as
 * snprintf does (truncated when >= n). Labels are not part of job keys. */
int farm_job_label(const farm_space *sp, const farm_job *job, char *buf, size_t n);

/* Builds the job's instance (runs the scenario generator with job->instance_seed). Returns
 * MAPF_OK and *out (free with mapf_instance_free), or an error with the reason in d. */
int farm_job_instance(const farm_space *sp, const farm_job *job, mapf_instance **out,
                      mapf_diag *d);

/* Adds scenario ss's events or lifelong goals (docs/events.md) to inst, an instance on g made
 * with instance_seed: what farm_job_instance does after the generator; `mapfarm solve` calls it
 * too. Returns MAPF_OK, or an error with the reason in d. */
int farm_events_add(const farm_scen_spec *ss, const mapf_grid *g, uint64_t instance_seed,
                    mapf_instance *inst, mapf_diag *d);

/* The limits of the entry's jobs: the plan's, with the keys the entry's own `limits` gives
 * replaced. */
mapf_limits farm_algo_limits(const farm_plan *plan, const farm_algo_spec *as);

/* The execution rule of the entry's jobs: joint for a joint planner (pibt), else the plan's
 * (core/sim.h, mapf_algo_execution). Keys, runs and the `execution` column use it. */
mapf_execution farm_algo_execution(const farm_plan *plan, const farm_algo_spec *as);

/* Fills p with as->base and the values of raw combination `raw` (before `exclude`): mixed
 * radix with the params axes outermost (the first named first), then the zip groups, then the
 * sampled configurations. The plan parser applies `exclude` through it. */
void farm_algo_raw(const farm_algo_spec *as, int64_t raw, mapf_params *p);

/* Fills p with the resolved parameters of combination `combo` (0 <= combo < as->ncombos) of
 * the entry: as->base, then the values of its axes, zip rows and sampled configuration. O(number
 * of parameters); no allocation. Job keys depend on nothing else of the entry. */
void farm_algo_combo(const farm_algo_spec *as, int64_t combo, mapf_params *p);

/* Writes the entry's label for parameters p into buf (always NUL-terminated when n > 0): each
 * {name} of the template replaced by mapf_param_format of that parameter, {{ and }} by single
 * braces. Returns the length the whole label needs, as snprintf does. */
int farm_algo_label(const farm_algo_spec *as, const mapf_params *p, char *buf, size_t n);

#endif
