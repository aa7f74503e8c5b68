/* test_select.c: the algorithm selector (farm/select.c, `mapfarm select`): the three protocols
 * end to end on the test plan's database (tests/data/select/plan.yaml: the thesis portfolio on
 * three small maps, 189 jobs; configs/thesis-portfolio-small.yaml takes 98 s, too long for a
 * test), the same numbers twice and with any thread count, a model that predicts and runs, and
 * bad input: a database without labels, a model for other algorithms, a corrupt model. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inst_features.h"
#include "select.h"
#include "testutil.h"

TEST_TMPDIR("select");
TestSuite(select, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 600);

#define mapfarm(out, err, ...) test_mapfarm(tmpdir, NULL, out, err, __VA_ARGS__)

/* Built without XGBoost: a failure under CI=true, a skip with the reason elsewhere. */
#define REQUIRE_XGBOOST()                                                                    \
  do {                                                                                       \
    if (!farm_select_available()) {                                                          \
      if (test_in_ci()) cr_assert_fail("built without XGBoost; CI=true requires it");       \
      cr_skip_test("built without XGBoost (install libxgboost-dev): select is not tested");  \
    }                                                                                        \
  } while (0)

/* The test plan run into tmpdir/NAME with its features computed. */
static void select_db(const char *maps, const char *name, char *db, size_t n) {
  snprintf(db, n, "%s/%s", tmpdir, name);
  char *err = NULL;
  int rc = mapfarm(NULL, &err, "run '%s/tests/data/select/plan.yaml' --db '%s' --maps '%s'",
                   MAPFARM_SOURCE_DIR, db, maps);
  cr_assert_eq(rc, 0, "the test plan did not run (exit %d): %s", rc, err);
  free(err);
  rc = mapfarm(NULL, &err, "features --db '%s' --maps '%s'", db, maps);
  cr_assert_eq(rc, 0, "features (exit %d): %s", rc, err);
  free(err);
}

/* The pooled row of an evaluation's output: "all (pooled)  63  (per fold)  VBS  SBS  sel ..." */
static void pooled(const char *out, double *vbs, double *sbs, double *sel, double *gap,
                   double *acc) {
  const char *p = strstr(out, "all (pooled)");
  cr_assert_not_null(p, "%s", out);
  long long n;
  char gap_s[32];
  cr_assert_eq(sscanf(p, "all (pooled) %lld (per fold) %lf %lf %lf %31s %lf", &n, vbs, sbs, sel,
                      gap_s, acc),
               6, "%.300s", p);
  cr_assert_eq(n, 63);
  *gap = strcmp(gap_s, "-") == 0 ? 0 : atof(gap_s);
}

/* Each protocol runs end to end: as many folds as it should have, every instance tested once,
 * pi* at least the selector and the SBS, the numbers the same twice and with XGBoost on 1 or 2
 * threads. */
Test(select, three_protocols_end_to_end_and_deterministic) {
  REQUIRE_XGBOOST();
  REQUIRE_MAPS(maps);
  char db[600];
  select_db(maps, "s.db", db, sizeof db);
  static const char *const protocol[] = {"within-maps", "leave-map-out", "leave-type-out"};
  static const char *const folds_line[] = {"10 folds", "3 folds", "7 folds"};
  for (int i = 0; i < 3; i++) {
    char *a = NULL, *b = NULL, *c = NULL, *err = NULL;
    int rc = mapfarm(&a, &err, "select eval --db '%s' --protocol %s", db, protocol[i]);
    cr_assert_eq(rc, 0, "%s: exit %d: %s", protocol[i], rc, err);
    free(err);
    cr_assert(strstr(a, folds_line[i]), "%s: %s", protocol[i], a);
    double vbs, sbs, sel, gap, acc;
    pooled(a, &vbs, &sbs, &sel, &gap, &acc);
    cr_assert(vbs >= sel && vbs >= sbs && acc >= 0 && acc <= 100, "%s: %s", protocol[i], a);
    cr_assert(strstr(a, "fold mean"), "%s", a);
    cr_assert_eq(mapfarm(&b, NULL, "select eval --db '%s' --protocol %s", db, protocol[i]), 0);
    cr_assert_str_eq(a, b, "%s: two runs differ", protocol[i]);
    cr_assert_eq(mapfarm(&c, NULL, "select eval --db '%s' --protocol %s --threads 2", db,
                         protocol[i]),
                 0);
    cr_assert_str_eq(a, c, "%s: 1 and 2 threads differ", protocol[i]);
    free(a), free(b), free(c);
  }
  /* Leave-map-out names the map each fold holds out; leave-type-out the type. */
  char *out = NULL;
  cr_assert_eq(mapfarm(&out, NULL, "select eval --db '%s' --protocol leave-type-out", db), 0);
  cr_assert(strstr(out, "swap-sides") && strstr(out, "tight-to-wide"), "%s", out);
  free(out);
  /* report selection: the three protocols' tables, as select eval prints them. */
  cr_assert_eq(mapfarm(&out, NULL, "report --db '%s' selection --format md", db), 0);
  cr_assert(strstr(out, "within-maps, 10 folds") && strstr(out, "leave-map-out, 3 folds") &&
                strstr(out, "leave-type-out, 7 folds") && strstr(out, "| :--- "),
            "%s", out);
  free(out);
  /* The regret file: one row per instance. */
  char csv[700];
  snprintf(csv, sizeof csv, "%s/regret.csv", tmpdir);
  cr_assert_eq(mapfarm(NULL, NULL, "select eval --db '%s' --regret-csv '%s'", db, csv), 0);
  char *text = test_slurp_text(csv);
  int lines = 0;
  for (char *p = text; *p; p++) lines += *p == '\n';
  cr_assert_eq(lines, 64, "%s", text);
  free(text);
}

/* A trained model is written, predicts a label of the database for a generated instance, and
 * solve --algo auto runs the algorithm it names; training twice gives the same file. */
Test(select, train_predict_and_solve_auto) {
  REQUIRE_XGBOOST();
  REQUIRE_MAPS(maps);
  char db[600];
  select_db(maps, "t.db", db, sizeof db);
  char *out = NULL, *err = NULL;
  int rc = mapfarm(&out, &err, "select train --db '%s' --out '%s/m1.json'", db, tmpdir);
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  cr_assert(strstr(out, "trained on 63 instances of 3 maps"), "%s", out);
  free(out), free(err);
  cr_assert_eq(mapfarm(NULL, NULL, "select train --db '%s' --out '%s/m2.json' --threads 2", db,
                       tmpdir),
               0);
  char p1[700], p2[700];
  snprintf(p1, sizeof p1, "%s/m1.json", tmpdir);
  snprintf(p2, sizeof p2, "%s/m2.json", tmpdir);
  char *a = test_slurp_text(p1), *b = test_slurp_text(p2);
  cr_assert_str_eq(a, b, "the model differs between 1 and 2 threads");
  free(a), free(b);
  rc = mapfarm(&out, &err,
               "select predict --model '%s' --map bg/AR0302SR.map --maps '%s' --generator "
               "swap-sides --agents 80",
               p1, maps);
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  cr_assert(strstr(out, "BMAA*") || strstr(out, "FAR") || strstr(out, "WHCA*"), "%s", out);
  cr_assert(strstr(out, "(algorithm "), "%s", out);
  free(out), free(err);
  rc = mapfarm(&out, &err,
               "solve --model '%s' --algo auto --map bg/AR0302SR.map --maps '%s' --generator "
               "random --agents 40 --steps 50",
               p1, maps);
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "chooses"), "%s", err);
  cr_assert(strstr(out, "algorithm: "), "%s", out);
  free(out), free(err);
  /* The model on its own database: every label known. */
  rc = mapfarm(&out, &err, "select eval --db '%s' --model '%s'", db, p1);
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  cr_assert(strstr(out, "63 instances"), "%s", out);
  free(out), free(err);
}

/* Features of an older mapfarm (version 1, other columns): the selector refuses them and says
 * to compute them again; `mapfarm features` does, and the selector runs. */
Test(select, features_of_an_older_version_are_refused_until_computed_again) {
  REQUIRE_XGBOOST();
  REQUIRE_MAPS(maps);
  char db[600];
  select_db(maps, "v.db", db, sizeof db);
  test_db_exec(db,
               "DROP VIEW feature_labels; DROP TABLE features;"
               "CREATE TABLE features (map_hash TEXT NOT NULL, generator TEXT NOT NULL, agents "
               "INTEGER NOT NULL, instance INTEGER NOT NULL, map TEXT NOT NULL, problem_type TEXT "
               "NOT NULL, version INTEGER NOT NULL, map_width REAL, dist_mean REAL, PRIMARY KEY "
               "(map_hash, generator, agents, instance)) WITHOUT ROWID;"
               "INSERT INTO features SELECT DISTINCT map_hash, generator, agents, instance, map, "
               "'random', 1, 1, 1 FROM results;");
  char *err = NULL;
  cr_assert_eq(mapfarm(NULL, &err, "select eval --db '%s' --protocol leave-type-out", db), 2);
  cr_assert(strstr(err, "features are of version 1") && strstr(err, "mapfarm features --db"),
            "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "select train --db '%s' --out '%s/v.json'", db, tmpdir), 2);
  cr_assert(strstr(err, "features are of version 1"), "%s", err);
  free(err);
  int rc = mapfarm(NULL, &err, "features --db '%s' --maps '%s'", db, maps);
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  free(err);
  rc = mapfarm(NULL, &err, "select eval --db '%s' --protocol leave-type-out", db);
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  free(err);
  /* A model of the older features: refused, to be trained again. */
  char model[700];
  snprintf(model, sizeof model, "%s/v.json", tmpdir);
  cr_assert_eq(mapfarm(NULL, NULL, "select train --db '%s' --out '%s'", db, model), 0);
  char *text = test_slurp_text(model), want[64];
  snprintf(want, sizeof want, "\"mapfarm_features_version\":\"%d\"", FARM_FEATURES_VERSION);
  char *hit = strstr(text, want);
  cr_assert_not_null(hit, "%s not in the model", want);
  hit[strlen(want) - 2] = '1';
  FILE *f = fopen(model, "w");
  fputs(text, f);
  fclose(f);
  free(text);
  cr_assert_eq(mapfarm(NULL, &err, "select eval --db '%s' --model '%s'", db, model), 2);
  cr_assert(strstr(err, "a model of features version 1") && strstr(err, "train it again"), "%s",
            err);
  free(err);
}

/* Bad input: exit 2 and a message that says what is wrong and what to do. */
Test(select, bad_input_exits_2_with_a_clear_message) {
  REQUIRE_XGBOOST();
  REQUIRE_MAPS(maps);
  char db[600], other[700], nolabels[700], model[700], corrupt[700], cmd[3000];
  select_db(maps, "b.db", db, sizeof db);
  snprintf(model, sizeof model, "%s/m.json", tmpdir);
  cr_assert_eq(mapfarm(NULL, NULL, "select train --db '%s' --out '%s'", db, model), 0);
  char *err = NULL;
  /* No features table yet. */
  snprintf(other, sizeof other, "%s/nofeat.db", tmpdir);
  cr_assert_eq(mapfarm(NULL, NULL, "run '%s/tests/data/select/plan.yaml' --db '%s' --maps '%s'",
                       MAPFARM_SOURCE_DIR, other, maps),
               0);
  cr_assert_eq(mapfarm(NULL, &err, "select train --db '%s' --out '%s/x.json'", other, tmpdir), 2);
  cr_assert(strstr(err, "no features table") && strstr(err, "mapfarm features"), "%s", err);
  free(err);
  /* A database without labels: features, then no job that ran. */
  snprintf(nolabels, sizeof nolabels, "%s/nolabels.db", tmpdir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", db, nolabels);
  cr_assert_eq(system(cmd), 0);
  test_db_exec(nolabels, "UPDATE results SET status = 'error'");
  cr_assert_eq(mapfarm(NULL, &err, "select eval --db '%s'", nolabels), 2);
  cr_assert(strstr(err, "no job that ran") && strstr(err, "no labels"), "%s", err);
  free(err);
  /* One label only. */
  test_db_exec(nolabels, "UPDATE results SET status = 'ok' WHERE label = 'FAR'");
  cr_assert_eq(mapfarm(NULL, &err, "select eval --db '%s'", nolabels), 2);
  cr_assert(strstr(err, "one label (FAR)"), "%s", err);
  free(err);
  /* A model for other algorithms: the database's labels renamed. */
  snprintf(other, sizeof other, "%s/renamed.db", tmpdir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", db, other);
  cr_assert_eq(system(cmd), 0);
  test_db_exec(other, "UPDATE results SET label = 'X-' || label");
  cr_assert_eq(mapfarm(NULL, &err, "select eval --db '%s' --model '%s'", other, model), 2);
  cr_assert(strstr(err, "a model for other algorithms") && strstr(err, "X-FAR"), "%s", err);
  free(err);
  /* ... or for an algorithm this mapfarm does not have (its label list edited). */
  char *text = test_slurp_text(model);
  static const char *const algo[] = {"\\tbmaa\\t", "\\tfar\\t", "\\twhca\\t"};
  for (int i = 0; i < 3; i++) {
    char *hit = strstr(text, algo[i]);
    cr_assert_not_null(hit, "%s", algo[i]);
    hit[2] = 'q'; /* bmaa -> bqaa, far -> fqr, whca -> wqca */
  }
  snprintf(other, sizeof other, "%s/q.json", tmpdir);
  FILE *f = fopen(other, "w");
  fputs(text, f);
  fclose(f);
  free(text);
  cr_assert_eq(mapfarm(NULL, &err, "solve --algo auto --model '%s' --map bg/AR0302SR.map "
                                   "--maps '%s' --generator random --agents 10", other, maps),
               2);
  cr_assert(strstr(err, "a model for other algorithms") &&
                strstr(err, "which this mapfarm does not have"), "%s", err);
  free(err);
  /* A corrupt model: cut short, and a file that is not JSON. */
  snprintf(corrupt, sizeof corrupt, "%s/cut.json", tmpdir);
  snprintf(cmd, sizeof cmd, "head -c 2000 '%s' > '%s'", model, corrupt);
  cr_assert_eq(system(cmd), 0);
  cr_assert_eq(mapfarm(NULL, &err,
                       "select predict --model '%s' --map bg/AR0302SR.map --maps '%s' "
                       "--generator random --agents 10",
                       corrupt, maps),
               2);
  cr_assert(strstr(err, "cut.json: not a model of `mapfarm select train`"), "%s", err);
  cr_assert(!strstr(err, "Stack trace"), "%s", err);
  free(err);
  snprintf(corrupt, sizeof corrupt, "%s/plan.json", tmpdir);
  snprintf(cmd, sizeof cmd, "cp '%s/tests/data/select/plan.yaml' '%s'", MAPFARM_SOURCE_DIR,
           corrupt);
  cr_assert_eq(system(cmd), 0);
  cr_assert_eq(mapfarm(NULL, &err, "select eval --db '%s' --model '%s'", db, corrupt), 2);
  cr_assert(strstr(err, "not a model"), "%s", err);
  free(err);
  /* An XGBoost JSON that is not mapfarm's. */
  snprintf(corrupt, sizeof corrupt, "%s/empty.json", tmpdir);
  f = fopen(corrupt, "w");
  fputs("{}", f);
  fclose(f);
  cr_assert_eq(mapfarm(NULL, &err, "select eval --db '%s' --model '%s'", db, corrupt), 2);
  cr_assert(strstr(err, "not a model"), "%s", err);
  free(err);
  /* Usage errors. */
  cr_assert_eq(mapfarm(NULL, &err, "select eval --db '%s' --protocol sideways", db), 2);
  cr_assert(strstr(err, "--protocol: expected within-maps"), "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "solve --algo auto --map bg/AR0302SR.map --maps '%s' "
                                   "--generator random --agents 10", maps),
               2);
  cr_assert(strstr(err, "--algo auto needs --model MODEL"), "%s", err);
  free(err);
}
