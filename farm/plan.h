/* plan.h: the YAML plan (libyaml) and its validation.
 *
 * A plan names maps, scenario generators, per-algorithm defaults, algorithm entries (parameter
 * lists, zip groups, exclusions, random samples, label templates) and limits; see the README,
 * "Plan format". Parsing checks every key and value against the declarations in core/algo.h
 * and core/mapgen.h and reports every error as PLAN:LINE:COL. Everything a plan costs (its
 * combinations, samples, exclusions) is bounded and resolved here, before any job runs: an
 * entry's combinations are decoded in O(parameters) by farm_algo_combo (expand.h). */
#ifndef FARM_PLAN_H
#define FARM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "algo.h"
#include "diag.h"
#include "mapgen.h"
#include "sim.h"

typedef struct farm_map_spec {
  char *source;            /* as written in the plan, or the generated map's name */
  char *path;              /* resolved file path; NULL for generated maps */
  int generated;
  mapf_mapgen_params gen;  /* when generated */
  int line, col;
} farm_map_spec;

typedef struct farm_scen_spec {
  /* The generator (core/scengen.h) and its resolved parameters (`params:` over the defaults). */
  const struct mapf_scengen_def *gdef;
  mapf_params gparams;
  /* As the database's `generator` column shows it: the name when every parameter has its
   * default, else the name, a space and the canonical JSON of every parameter. */
  char *generator;
  /* As the job key names it (farm/expand.c): the name for a generator without parameters,
   * else the name, a space and the canonical JSON of every parameter, defaults included. */
  char *generator_key;
  /* generator `scen`: problems read from a MovingAI .scen file (scen_path, loaded), for the
   * maps of the plan that the file names. scen_single: no `agents` key, so every line is a
   * single-agent problem (instance i is line i); otherwise instance 0 of agent count K is made
   * of the first K lines (the MAPF benchmark convention). */
  struct mapf_scen *scen;
  char *scen_path;
  int scen_single;
  int32_t *agents;         /* agent counts, in plan order */
  int32_t nagents;
  int32_t instances;       /* instances per (map, agent count) */
  int line, col;
  /* Events and lifelong goals (docs/events.md): `events: {retask: {every, fraction, rounds}}`
   * (retask_every > 0: mapf_retask_generate), doors (below) or `events: {file: F}`
   * (events_file), and
   * `lifelong: true`. They change neither the instance's starts and goals nor its seed: the
   * same problems as without them, with events added. */
  int64_t retask_every;
  double retask_fraction;
  int32_t retask_rounds;
  /* `events: {doors: {every, count, duration, rounds, width}}` (doors_every > 0:
   * mapf_doors_generate), alone or with retask. */
  int64_t doors_every, doors_duration;
  int32_t doors_count, doors_rounds, doors_width;
  struct mapf_events_file *events_file;
  int events_line, events_col; /* the `events` value in the plan */
  int32_t lifelong;
  /* As results.events shows them (NULL: none), and the lines they add at the end of the job
   * key ("events=...\n", "lifelong=1\n"; NULL: none, so a plan without them keeps its keys). */
  char *events;
  char *events_key;
} farm_scen_spec;

/* Sets ss->events and ss->events_key (malloc'd; NULL when none) from its retask_*, doors_*,
 * events_file and lifelong fields; file: the events file as the user named it (its base name
 * is shown). The one place their format is written. Returns MAPF_OK or MAPF_ENOMEM. */
int farm_events_texts(farm_scen_spec *ss, const char *file);

/* One swept parameter of `params`: the plan gave one value or a list. */
typedef struct farm_param_axis {
  int32_t index;           /* into def->params */
  double *values;
  int32_t nvalues;
} farm_param_axis;

/* Parameters varied together: row r sets parameter index[k] to values[r * ncols + k]. A zip
 * group is one such table (its lists side by side, in plan order); the distinct
 * configurations drawn by `sample` are another. */
typedef struct farm_param_table {
  int32_t index[MAPF_MAX_PARAMS]; /* into def->params, ncols of them */
  int32_t ncols;
  double *values;                 /* nrows * ncols, row-major */
  int32_t nrows;
} farm_param_table;

/* One piece of a label template: literal text, or the value of a parameter. */
typedef struct farm_label_part {
  int32_t param;           /* index into def->params, or -1 for literal text */
  int32_t off, len;        /* literal text: bytes [off, off + len) of label_text */
} farm_label_part;

/* One entry of `algorithms`. Its raw combinations are the Cartesian product of the params
 * axes (first named outermost), then the zip groups (in plan order), then the sampled
 * configurations (innermost); `exclude` removes some of them, and the survivors, in that
 * order, are the entry's combinations 0 .. ncombos - 1 (farm_algo_combo decodes one). */
typedef struct farm_algo_spec {
  const mapf_algo_def *def;
  char *label;             /* the plan's `label` as written, or def->label; with `{{`/`}}`
                              unescaped when it names no parameter. When label_template is
                              set it names parameters: use farm_algo_label / farm_job_label */
  int label_template;      /* the label names parameters ({name}) */
  farm_label_part *label_parts; /* the label, parsed; nlabel_parts pieces */
  int32_t nlabel_parts;
  char *label_text;        /* the literal pieces of the label, braces unescaped */
  mapf_params base;        /* the registry's defaults, then the plan's `defaults` for def */
  farm_param_axis *axes;   /* `params`: only the parameters the plan names */
  int32_t naxes;
  farm_param_table *zips;  /* `zip` groups */
  int32_t nzips;
  farm_param_table sample; /* the distinct configurations drawn by `sample` (nrows 0: none) */
  int32_t sample_count;    /* `count`: configurations drawn, duplicates included (0: none) */
  uint64_t sample_seed;    /* `seed` of sample */
  int64_t nraw;            /* axes sizes x zip lengths x sample rows */
  int32_t *keep;           /* raw combinations surviving `exclude`, ascending, ncombos of them;
                              NULL when nothing is excluded (combination i is raw i) */
  int64_t ncombos;         /* combinations that give jobs (nraw less the excluded ones) */
  /* The entry's own `limits`: the keys in limits_set (FARM_LIMIT_*) replace the plan's for
   * this entry's jobs (farm_algo_limits). */
  mapf_limits limits;
  unsigned limits_set;
  /* For an algorithm that runs a program (mapf_algo_def.program: external): the content hash
   * of its command's files (core/external.h), 32 hex digits, part of its jobs' keys; "" for
   * the others. */
  char program_hash[33];
  int line, col;
} farm_algo_spec;

/* The keys of a `limits` mapping. */
enum {
  FARM_LIMIT_STEPS = 1,
  FARM_LIMIT_SECONDS = 2,
  FARM_LIMIT_EXPANSIONS = 4,
  FARM_LIMIT_WORK = 8
};

typedef struct farm_plan {
  char *path;              /* the plan file */
  char *text;              /* its full text (provenance) */
  size_t text_len;
  char hash[33];           /* 128-bit hash of text, hex */
  char *name;
  uint64_t seed;           /* default 1 */
  farm_map_spec *maps;
  int32_t nmaps;
  farm_scen_spec *scens;
  int32_t nscens;
  farm_algo_spec *algos;
  int32_t nalgos;
  mapf_limits limits;      /* default: steps 10000, no seconds, no expansions budget */
  mapf_execution execution;/* default chains */
  /* The grids' move set (grid.h): 8 (default) or 4. In job keys only when 4, so plans that do
   * not set it keep their keys. */
  int32_t connectivity;
  /* Steps between the direction-map coherence samples of dm jobs (coherence_series); 0: none.
   * Not part of job keys: it changes what is recorded, not the run. Default 100. */
  int64_t coherence_every;
  /* store: {agents: ...}: 1 (default) when each job gets its agent rows, 0 when it gets none
   * (the writer's largest part for jobs of a few agents; docs/plans.md). Not part of job
   * keys. */
  int store_agents;
  /* The canonical JSON of every list value the plan gives (core/algo.h, MAPF_PARAM_LIST),
   * which the parameters of its entries point to. */
  char **lists;
  int32_t nlists;
} farm_plan;

/* Where map paths are looked up, after the plan's own directory. */
typedef struct farm_plan_opts {
  const char *const *map_dirs;
  int32_t nmap_dirs;
} farm_plan_opts;

/* The limits and execution rule of a plan's text, read as farm_plan_parse reads them (the
 * defaults where the plan names none), without the rest of the plan, whose maps may be gone:
 * the schema upgrade reads them from the plans that runs stored. Returns 0, or -1 when the
 * text is not YAML, or those keys are not valid. */
int farm_plan_read_limits(const char *text, size_t len, mapf_limits *limits,
                          mapf_execution *execution);

/* Reads and validates the plan at path. Returns MAPF_OK and *out (free with farm_plan_free),
 * or MAPF_EPARSE / MAPF_EINVAL with every error appended to errs, or MAPF_EIO when the file
 * cannot be read. Map files must exist (they are loaded later, by farm_space_init). */
int farm_plan_load(const char *path, const farm_plan_opts *opts, farm_plan **out,
                   farm_diags *errs);

/* The same from a buffer; path names the plan in messages and anchors relative map paths. */
int farm_plan_parse(const char *text, size_t len, const char *path, const farm_plan_opts *opts,
                    farm_plan **out, farm_diags *errs);

/* Frees p; NULL is a no-op. */
void farm_plan_free(farm_plan *p);

#endif
