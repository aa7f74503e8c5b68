/* inst_features.h: features of MAPF problem instances for algorithm selection (`mapfarm features`,
 * docs/selection.md).
 *
 * Every feature is computed from the map and the instance alone, never from an outcome: a
 * selector that reads them can be asked before any algorithm runs. Map-level features (size,
 * obstacles, corridors, articulation points and biconnected components, the degree histogram,
 * a diameter estimate, the algebraic connectivity) depend on the grid only and are computed
 * once per map; instance-level features (agents, density, start-goal shortest distances in
 * moves, the overlap of the agents' shortest paths (of a sample of FARM_FEATURES_PATHS agents
 * where there are more), crowding at starts and goals, headings) once per instance. The
 * problem type is the generator's name, kept as text.
 *
 * The columns are declared once, in farm_feature_columns (inst_features.c): the features table's
 * CREATE statement, its inserts, the selector's input vector and docs/database.md's list all
 * come from it. Reentrant: a farm_feat_ws per thread. */
#ifndef FARM_INST_FEATURES_H
#define FARM_INST_FEATURES_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "grid.h"
#include "landmark.h"
#include "plan.h"
#include "scen.h"
#include "store.h"

/* Bumped whenever a feature's definition changes: rows and models of another version are
 * refused rather than mixed (docs/selection.md). */
#define FARM_FEATURES_VERSION 2

/* Agents whose shortest paths are searched per instance, at most: past this many agents an
 * evenly spaced sample of them stands for all (docs/selection.md, "Features"). */
#define FARM_FEATURES_PATHS 64

/* Landmarks of the searches' differential heuristic (core/landmark.h), made once per map: this
 * many, or half as many again and again until their tables fit MAPF_LANDMARK_BYTES (16 up to
 * 524,288 cells, 8 up to twice that). */
#define FARM_FEATURES_LANDMARKS 16

typedef struct farm_feature_column {
  const char *name; /* column of the features table */
  const char *doc;  /* one line for docs/database.md */
  int map_level;    /* 1: a function of the map alone */
} farm_feature_column;

extern const farm_feature_column farm_feature_columns[];
extern const int32_t farm_nfeatures;

/* The map-level features of g into out (farm_nfeatures entries; only the map-level ones are
 * written). O(cells) memory; the time is that of the algebraic connectivity's Lanczos steps
 * (docs/selection.md: 0.1 to 1 s of CPU on a 512 x 512 map). Returns MAPF_OK or
 * MAPF_ENOMEM. */
int farm_features_map(const mapf_grid *g, double *out);

/* The landmarks the instance features of g search with: FARM_FEATURES_LANDMARKS of them, fewer
 * on a map too large for their tables (MAPF_LANDMARK_BYTES), so a pure function of the map.
 * Made once per map and read by any thread; NULL when out of memory. Free with
 * mapf_landmarks_free. */
mapf_landmarks *farm_features_landmarks(const mapf_grid *g);

/* Scratch memory for farm_features_instance, one per thread; grows to the largest map. */
typedef struct farm_feat_ws farm_feat_ws;
farm_feat_ws *farm_feat_ws_new(void);
void farm_feat_ws_free(farm_feat_ws *ws);

/* The instance-level features of inst on g into out, after the map-level ones that
 * farm_features_map wrote there (some instance features are scaled by them). One search per
 * sampled agent (mapf_shortest_moves: moves, the landmarks lm = farm_features_landmarks(g)).
 * Returns MAPF_OK, MAPF_ENOMEM, or MAPF_EINVAL with d set when an agent's start or goal is not
 * a passable cell of g or lm is not g's. */
int farm_features_instance(const mapf_grid *g, const mapf_landmarks *lm,
                           const mapf_instance *inst, farm_feat_ws *ws, double *out,
                           mapf_diag *d);

/* The problem type of a results.generator value: its first word ("cross-sides" of
 * "cross-sides {\"band\":0.1}", "scen" of "scen FILE"). Writes it into buf (NUL-terminated). */
void farm_problem_type(const char *generator, char *buf, size_t n);

/* The SQL that creates the features table and the feature_labels view when missing (a fresh
 * string the caller frees, or NULL out of memory). Not part of schema/schema.sql on purpose:
 * the table is made on demand by `mapfarm features`, so a database that never had features
 * computed keeps the schema it had. */
char *farm_features_ddl(void);

typedef struct farm_features_opts {
  int32_t threads;      /* 0: OpenMP's default */
  farm_plan_opts maps;  /* where the plans' relative map paths are looked up */
} farm_features_opts;

typedef struct farm_features_summary {
  int64_t instances, maps;
  double map_seconds, instance_seconds, write_seconds; /* wall clock */
  /* CPU time, all threads: the map-level features and landmarks of every map, and the
   * instance-level features of every instance (farm_features_instance alone, not the rebuilding
   * of the instance from its plan). */
  double map_cpu_seconds, instance_cpu_seconds;
} farm_features_summary;

/* Computes the features of every instance of the database at path and writes them into its
 * features table, replacing what it held, in one transaction: a failure leaves the file as it
 * was. Instances are rebuilt from the plans their runs recorded (runs.plan_text), as `replay`
 * rebuilds a job. The file must exist and be a mapfarm database; it is opened for writing
 * (the writer lock of farm_store_open) only after every feature is computed. Returns 0, or -1
 * with err. */
int farm_features_build(const char *path, const farm_features_opts *o,
                        farm_features_summary *sum, mapf_diag *err);

#endif
