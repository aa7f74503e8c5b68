/* plan.h: the YAML plan (libyaml) and its validation.
 *
 * A plan names maps, scenario generators, algorithms with parameter lists, and limits; see the
 * README, "Plan format". Parsing checks every key and value against the declarations in
 * core/algo.h and core/mapgen.h and reports every error as PLAN:LINE:COL. */
#ifndef FARM_PLAN_H
#define FARM_PLAN_H

#include <stddef.h>
#include <stdint.h>

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
  char *generator;         /* "random" */
  int32_t *agents;         /* agent counts, in plan order */
  int32_t nagents;
  int32_t instances;       /* instances per (map, agent count) */
  int line, col;
} farm_scen_spec;

/* One swept parameter: the plan gave one value or a list. */
typedef struct farm_param_axis {
  int32_t index;           /* into def->params */
  double *values;
  int32_t nvalues;
} farm_param_axis;

typedef struct farm_algo_spec {
  const mapf_algo_def *def;
  char *label;             /* display name; the plan's `label` or def->label */
  farm_param_axis *axes;   /* only the parameters the plan names; the rest take defaults */
  int32_t naxes;
  int64_t ncombos;         /* product of the axes' sizes (1 when none) */
  int line, col;
} farm_algo_spec;

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
} farm_plan;

/* Where map paths are looked up, after the plan's own directory. */
typedef struct farm_plan_opts {
  const char *const *map_dirs;
  int32_t nmap_dirs;
} farm_plan_opts;

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
