/* dataset.h: an image dataset for algorithm selection from a results database (thesis Sigurdson
 * 2018,
 * 5.3.3 and 5.4.2; docs/choices.md, Portfolios).
 *
 * One image per problem instance (farm/image.h: the instance at 227 x 227), labelled with the
 * configuration that did best on it (the view portfolio_labels, schema/views.sql), laid out the
 * way image-classifier tools read a labelled set:
 *
 *   DIR/labels.csv                 one row per instance: its key, map, generator, agents,
 *                                  instance, label, split, and every label's metrics on it
 *   DIR/train/LABEL/KEY.png        the seeded 70 % of the instances, of each label's
 *   DIR/test/LABEL/KEY.png         the other 30 %  (the split is stratified by label)
 *
 * An instance is (map content, generator configuration, agent count, instance index); its KEY
 * is the first 16 hex digits of the 128-bit hash of "map_hash\ngenerator\nagents\ninstance\n".
 * Its starts and goals are read back from agent_results (every job of an instance ran the same
 * one); its map is found by loading every plan recorded in `runs` (plan_text), so generated
 * maps come back as they were and files are found as `mapfarm run` finds them, each checked
 * against the stored content hash. */
#ifndef FARM_DATASET_H
#define FARM_DATASET_H

#include <stdint.h>

#include "diag.h"
#include "plan.h"
#include "store.h"

typedef struct farm_dataset_opts {
  const char *out_dir;
  int32_t size;          /* image side in pixels; 0: FARM_IMAGE_SIDE (227) */
  double train;          /* fraction of instances in train/, e.g. 0.7 */
  uint64_t seed;         /* the split's seed */
  farm_plan_opts maps;   /* where the plans' relative map paths are looked up */
} farm_dataset_opts;

/* One label's instances (those it is best on) on each side of the split. */
typedef struct farm_dataset_count {
  char *label;
  int64_t train, test;
} farm_dataset_count;

typedef struct farm_dataset_result {
  int64_t instances, train, test;
  int32_t labels;        /* distinct labels (configurations) in the database */
  farm_dataset_count *per_label; /* labels entries, in plan order; farm_dataset_result_free */
} farm_dataset_result;

/* Frees what farm_dataset_write allocated in res (safe on a zeroed or failed result). */
void farm_dataset_result_free(farm_dataset_result *res);

/* Writes the dataset of the database behind st (opened read-only is enough) into o->out_dir,
 * creating the directories it needs; existing files of the same names are replaced. Returns 0,
 * or -1 with err (e.g. a map that cannot be found: give its directory with --maps). */
int farm_dataset_write(farm_store *st, const farm_dataset_opts *o, farm_dataset_result *res,
                       mapf_diag *err);

/* The directory name of a label: letters, digits, '-', '_' and '.' are kept, '*' becomes
 * "star" (BMAA* -> BMAAstar), anything else '_'. Returns the length (as snprintf). */
int farm_dataset_label_dir(const char *label, char *buf, size_t n);

#endif
