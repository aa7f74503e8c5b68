/* test_dataset.c: the train/test split of `mapfarm dataset` (farm/dataset.c), stratified by
 * label. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TEST_TMPDIR("dataset");
TestSuite(dataset, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 120);

#define mapfarm(out, err, ...) test_mapfarm(tmpdir, NULL, out, err, __VA_ARGS__)

/* Counts the rows of labels.csv in dir whose label (column 6) is `label` and whose split
 * (column 7) is `split`. */
static int csv_count(const char *dir, const char *label, const char *split) {
  char path[600];
  snprintf(path, sizeof path, "%s/labels.csv", dir);
  char *text = test_slurp_text(path);
  int n = 0;
  for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
    char lab[64], spl[16];
    cr_assert_eq(sscanf(line + 1, "%*[^,],%*[^,],%*[^,],%*d,%*d,%63[^,],%15[^,\n]", lab, spl), 2,
                 "%.200s", line + 1);
    n += strcmp(lab, label) == 0 && strcmp(spl, split) == 0;
  }
  free(text);
  return n;
}

/* tests/data/cli/portfolio.yaml gives 16 instances: BMAA* is best on 3, WHCA* on 13, FAR on
 * none. Whatever the seed, each label keeps its share on both sides (70 % of 3 -> 2 train, 1
 * test; of 13 -> 9 and 4; 11 and 5 in all, as a split over all instances gives), labels.csv
 * agrees with the counts printed per label, and a seed gives the same split twice. Before the
 * split was stratified, seeds put all three BMAA* instances on one side. */
Test(dataset, split_is_stratified_by_label_for_every_seed) {
  char cmd[2048], plan[600], db[600];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/plans' '%s/maps' && cp '%s/tests/data/cli/portfolio.yaml' '%s/plans/' && "
           "cp '%s/tests/data/maps/tiny.map' '%s/maps/'",
           tmpdir, tmpdir, MAPFARM_SOURCE_DIR, tmpdir, MAPFARM_SOURCE_DIR, tmpdir);
  cr_assert_eq(system(cmd), 0);
  snprintf(plan, sizeof plan, "%s/plans/portfolio.yaml", tmpdir);
  snprintf(db, sizeof db, "%s/pf.db", tmpdir);
  char *out, *err;
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s' --threads 2", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM portfolio_labels WHERE best_label = 'BMAA*'"),
               3);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM portfolio_labels WHERE best_label = 'WHCA*'"),
               13);
  for (int seed = 1; seed <= 12; seed++) {
    char dir[600];
    snprintf(dir, sizeof dir, "%s/ds%d", tmpdir, seed);
    cr_assert_eq(mapfarm(&out, &err, "dataset --db '%s' --out '%s' --seed %d", db, dir, seed), 0,
                 "%s", err);
    cr_assert_eq(csv_count(dir, "BMAA*", "train"), 2, "seed %d", seed);
    cr_assert_eq(csv_count(dir, "BMAA*", "test"), 1, "seed %d", seed);
    cr_assert_eq(csv_count(dir, "WHCA*", "train"), 9, "seed %d", seed);
    cr_assert_eq(csv_count(dir, "WHCA*", "test"), 4, "seed %d", seed);
    cr_assert(strstr(out, "16 instances (11 train, 5 test), 3 labels\n"
                          "  BMAA*: 2 train, 1 test\n"
                          "  FAR: 0 train, 0 test\n"
                          "  WHCA*: 9 train, 4 test\n"),
              "seed %d: %s", seed, out);
    free(out);
    free(err);
  }
  /* Seeded: the same seed, the same rows (which instances go where, not only how many). */
  char a[600], b[600];
  snprintf(a, sizeof a, "%s/ds3/labels.csv", tmpdir);
  snprintf(b, sizeof b, "%s/again", tmpdir);
  cr_assert_eq(mapfarm(NULL, NULL, "dataset --db '%s' --out '%s' --seed 3", db, b), 0);
  snprintf(b, sizeof b, "%s/again/labels.csv", tmpdir);
  char *ta = test_slurp_text(a), *tb = test_slurp_text(b);
  cr_assert_str_eq(ta, tb);
  free(ta);
  free(tb);
  /* Another seed, other instances on each side. */
  snprintf(b, sizeof b, "%s/ds4/labels.csv", tmpdir);
  ta = test_slurp_text(a);
  tb = test_slurp_text(b);
  cr_assert_str_neq(ta, tb);
  free(ta);
  free(tb);
}
