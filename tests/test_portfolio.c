/* test_portfolio.c: algorithm portfolios (farm/portfolio.c, the portfolio views of
 * schema/views.sql, `mapfarm report portfolio|problem-types`, `mapfarm portfolio`). Every
 * database here is written by hand, so the right answers are known. */
#include <criterion/criterion.h>

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "portfolio.h"
#include "report.h"
#include "testutil.h"

#ifndef MAPFARM_BINARY
#error "MAPFARM_BINARY must name the mapfarm executable"
#endif

TEST_TMPDIR("portfolio");
TestSuite(portfolio, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 120);

/* ---- helpers ------------------------------------------------------------------------------ */

/* One job: its instance (map, generator, instance index; 10 agents), label, parameters and
 * metrics. A rate below 0 makes an error job (no metrics); NAN stores NULL. */
typedef struct job {
  const char *map, *generator;
  int32_t instance;
  const char *label, *params;
  double rate, distance, steps, seconds;
} job;

/* The job key of j, derived from everything that identifies it (as farm/expand.c's are). */
static void job_key(const job *j, char key[33]) {
  char text[256];
  snprintf(text, sizeof text, "%s|%s|%d|%s|%s", j->map, j->generator, (int)j->instance,
           j->label, j->params ? j->params : "{}");
  mapf_hash128_hex(mapf_hash128_of(text, strlen(text)), key);
}

/* Creates tmpdir/name holding jobs (in this order: plan positions follow it) and returns it
 * opened for writing. The map hash is the map's name hashed, so one name is one map. */
static farm_store *make_db(const char *name, const job *jobs, int32_t n, char *path,
                           size_t pathlen) {
  mapf_diag err = {0};
  snprintf(path, pathlen, "%s/%s", tmpdir, name);
  farm_store *st = NULL;
  cr_assert_eq(farm_store_open(path, FARM_STORE_CREATE, &st, &err), 0, "%s", err.msg);
  for (int32_t i = 0; i < n; i++) {
    const job *j = &jobs[i];
    char key[33];
    job_key(j, key);
    mapf_result res;
    memset(&res, 0, sizeof res);
    if (j->rate < 0) {
      res.status = MAPF_STATUS_ERROR;
      snprintf(res.message, sizeof res.message, "no room for the agents");
    } else {
      res.status = j->rate == 1.0 ? MAPF_STATUS_OK : MAPF_STATUS_LIMIT;
      res.limit = j->rate == 1.0 ? MAPF_LIMIT_NONE : MAPF_LIMIT_STEPS;
      res.completion_rate = j->rate;
      res.mean_travel_distance = j->distance;
      res.mean_completion_steps_capped = j->steps;
      res.mean_completion_seconds_capped = j->seconds;
    }
    farm_record rec = {.job_key = key, .map = j->map,
                       .map_hash = mapf_hash64(j->map, strlen(j->map), 0),
                       .generator = j->generator, .agents = 10, .instance = j->instance,
                       .algorithm = "algo", .label = j->label,
                       .params = j->params ? j->params : "{}", .plan_index = i, .res = &res};
    cr_assert_eq(farm_store_put(st, 0, &rec, 1, &err), 0, "%s", err.msg);
  }
  return st;
}

static void expect_rows(sqlite3 *db, const char *sql, const char *want) {
  char *got = test_query_rows(db, sql);
  cr_expect_str_eq(got, want, "%s", sql);
  free(got);
}

static double q_real(sqlite3 *db, const char *sql) {
  sqlite3_stmt *s = NULL;
  cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
               sqlite3_errmsg(db));
  cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
  double v = sqlite3_column_double(s, 0);
  sqlite3_finalize(s);
  return v;
}

/* A report (name: "portfolio", "problem-types", or NULL for the greedy steps of `size`) into
 * a string; returns the function's status. */
static int report_str(farm_store *st, const char *name, int32_t size, farm_format format,
                      const char *where, char **text, mapf_diag *err) {
  size_t len = 0;
  FILE *f = open_memstream(text, &len);
  cr_assert_not_null(f);
  farm_report_opts opts = {format, 0, NULL, NULL, where, 0};
  int r = name ? farm_report(st, name, &opts, f, err)
               : farm_report_greedy(st, size, &opts, f, err);
  fclose(f);
  return r;
}

static void expect_report(farm_store *st, const char *name, int32_t size, farm_format format,
                          const char *where, const char *want) {
  char *text = NULL;
  mapf_diag err = {0};
  cr_assert_eq(report_str(st, name, size, format, where, &text, &err), 0, "%s", err.msg);
  cr_expect_str_eq(text, want);
  free(text);
}

/* `mapfarm ARGS`, run where the test runs, its output captured in tmpdir (testutil.h). */
#define mapfarm(out, err, ...) test_mapfarm(tmpdir, NULL, out, err, __VA_ARGS__)

/* ---- the rule: best and worst label per instance ------------------------------------------ */

/* One instance per tie-break level of the rule; labels A, B, C (10 agents, map m):
 *   0  rate decides:        A 0.5, B 0.8, C 0.6                        best B, worst A
 *   1  distance decides:    all 1.0; A 10, B 12, C 9                   best C, worst B
 *   2  steps decide:        all 1.0 and 10; A 30, B 20, C 25 steps;    best B, worst A
 *      seconds say the opposite (B slowest) and must not count
 *   3  label decides:       all equal                                  best A, worst C
 *   4  job key decides:     A twice (two parameter sets), equal;       best the smaller
 *                           B and C worse (0.9, 0.8)                   key of A's; worst C
 *   5  NULL ranks last:     A 0.7 with distance NULL, B 0.7 with 50,   best B, worst A
 *                           C an error job (not a candidate)
 * Instance 5 lacks a C job that ran, so it is not one every label ran on. */
static const job tie_jobs[] = {
    {"m", "random", 0, "A", NULL, 0.5, 10, 20, 1.0},
    {"m", "random", 0, "B", NULL, 0.8, 10, 20, 1.0},
    {"m", "random", 0, "C", NULL, 0.6, 10, 20, 1.0},
    {"m", "random", 1, "A", NULL, 1.0, 10, 20, 1.0},
    {"m", "random", 1, "B", NULL, 1.0, 12, 20, 1.0},
    {"m", "random", 1, "C", NULL, 1.0, 9, 20, 1.0},
    {"m", "random", 2, "A", NULL, 1.0, 10, 30, 0.1},
    {"m", "random", 2, "B", NULL, 1.0, 10, 20, 0.9},
    {"m", "random", 2, "C", NULL, 1.0, 10, 25, 0.5},
    {"m", "random", 3, "C", NULL, 1.0, 10, 20, 1.0},
    {"m", "random", 3, "B", NULL, 1.0, 10, 20, 1.0},
    {"m", "random", 3, "A", NULL, 1.0, 10, 20, 1.0},
    {"m", "random", 4, "A", "{\"k\":1}", 1.0, 10, 20, 1.0},
    {"m", "random", 4, "A", "{\"k\":2}", 1.0, 10, 20, 1.0},
    {"m", "random", 4, "B", NULL, 0.9, 10, 20, 1.0},
    {"m", "random", 4, "C", NULL, 0.8, 10, 20, 1.0},
    {"m", "random", 5, "A", NULL, 0.7, NAN, 20, 1.0},
    {"m", "random", 5, "B", NULL, 0.7, 50, 20, 1.0},
    {"m", "random", 5, "C", NULL, -1, 0, 0, 0},
};
#define TIE_N ((int32_t)(sizeof tie_jobs / sizeof tie_jobs[0]))

/* tie_jobs with A's two jobs on instance 4 made one, of A's one configuration. */
static const job *single_config_ties(void) {
  static job j[TIE_N - 1];
  for (int32_t i = 0, k = 0; i < TIE_N; i++) {
    if (i == 13) continue;
    j[k] = tie_jobs[i];
    if (i == 12) j[k].params = NULL;
    k++;
  }
  return j;
}

Test(portfolio, best_and_worst_label_per_instance_use_every_tie_break) {
  char path[512];
  farm_store *st = make_db("ties.db", tie_jobs, TIE_N, path, sizeof path);
  sqlite3 *db = farm_store_db(st);
  expect_rows(db,
              "SELECT instance, best_label, candidates, labels, every_label FROM "
              "portfolio_labels ORDER BY instance",
              "0|B|3|3|1\n1|C|3|3|1\n2|B|3|3|1\n3|A|3|3|1\n4|A|4|3|1\n5|B|2|2|0\n");
  expect_rows(db, "SELECT instance, worst_label FROM portfolio_worst ORDER BY instance",
              "0|A\n1|B\n2|A\n3|C\n4|C\n5|A\n");
  /* Instance 4: the smaller of A's two job keys. */
  char k1[33], k2[33], want[80];
  job_key(&tie_jobs[12], k1);
  job_key(&tie_jobs[13], k2);
  snprintf(want, sizeof want, "%s\n", strcmp(k1, k2) < 0 ? k1 : k2);
  expect_rows(db, "SELECT best_job_key FROM portfolio_labels WHERE instance = 4", want);
  /* The error job is no candidate anywhere. */
  expect_rows(db, "SELECT count(*) FROM portfolio_labels WHERE best_label = 'C' AND instance = 5",
              "0\n");

  /* farm/portfolio.c chooses among labels, so it refuses A's two configurations, naming what
   * differs; the views above keep a tie-break for such files. */
  mapf_diag err = {0};
  farm_pf_matrix *m = NULL;
  cr_assert_eq(farm_pf_load(db, NULL, 0, &m, &err), -1);
  cr_expect(strstr(err.msg, "label \"A\" holds 3 configurations among these jobs (they differ in "
                        "k: -; 1; 2)") != NULL, "%s", err.msg);
  farm_store_close(st);
  /* With A one configuration on instance 4, it agrees with the views: rows are the instances
   * 0..4 (sorted by instance), 5 is left out. */
  st = make_db("ties1.db", single_config_ties(), TIE_N - 1, path, sizeof path);
  db = farm_store_db(st);
  cr_assert_eq(farm_pf_load(db, NULL, 0, &m, &err), 0, "%s", err.msg);
  cr_expect_eq(m->nlabels, 3);
  cr_expect_str_eq(m->labels[0], "A");
  cr_expect_eq(m->ninstances, 5);
  cr_expect_eq(m->partial, 1);
  cr_expect_eq(m->partial_jobs, 2);
  cr_expect_eq(m->errors, 1);
  cr_expect_eq(m->jobs, 15);
  int32_t choice[5];
  farm_pf_select(m, NULL, choice, NULL, NULL);
  const char *best[5] = {"B", "C", "B", "A", "A"}, *worst[5] = {"A", "B", "A", "C", "C"};
  for (int r = 0; r < 5; r++) {
    cr_expect_str_eq(m->labels[choice[r]], best[r], "instance %d", r);
    cr_expect_str_eq(m->labels[m->worst_label[r]], worst[r], "instance %d", r);
  }
  farm_pf_matrix_free(m);
  farm_store_close(st);
}

/* pi* is at least every label, and every label at least the worst selector, in completion
 * rate (the views and the report alike), and they are computed on the same instances. */
Test(portfolio, perfect_selector_bounds_every_label_and_the_worst_selector) {
  char path[512];
  farm_store *st = make_db("bounds.db", tie_jobs, TIE_N, path, sizeof path);
  sqlite3 *db = farm_store_db(st);
  double pi = q_real(db, "SELECT completion_rate FROM portfolio_perfect");
  double worst = q_real(db, "SELECT completion_rate FROM portfolio_worst_selector");
  double lo = q_real(db, "SELECT min(completion_rate) FROM portfolio_label_means");
  double hi = q_real(db, "SELECT max(completion_rate) FROM portfolio_label_means");
  cr_expect_geq(pi, hi);
  cr_expect_geq(lo, worst);
  cr_expect_gt(pi, worst);
  /* By hand over instances 0-4: pi* (0.8 + 1 + 1 + 1 + 1) / 5 = 0.96; worst (0.5 + 1 + 1 + 1
   * + 0.8) / 5 = 0.86; A over its six jobs there (0.5 + 1 + 1 + 1 + 1 + 1) / 6. */
  cr_expect_float_eq(pi, 0.96, 1e-12);
  cr_expect_float_eq(worst, 0.86, 1e-12);
  expect_rows(db, "SELECT instances FROM portfolio_perfect", "5\n");
  expect_rows(db, "SELECT label, jobs, best_on FROM portfolio_label_means ORDER BY label",
              "A|6|2\nB|5|2\nC|5|1\n");

  /* farm/portfolio.c on the same instances with A one configuration: pi* and the worst
   * selector are the same there (A's two jobs on instance 4 were both the best). */
  farm_store_close(st);
  st = make_db("bounds1.db", single_config_ties(), TIE_N - 1, path, sizeof path);
  db = farm_store_db(st);
  mapf_diag err = {0};
  farm_pf_matrix *m = NULL;
  cr_assert_eq(farm_pf_load(db, NULL, 0, &m, &err), 0, "%s", err.msg);
  farm_pf_stat all, ws;
  memset(&all, 0, sizeof all);
  memset(&ws, 0, sizeof ws);
  farm_pf_select(m, NULL, NULL, &all, NULL);
  for (int64_t r = 0; r < m->ninstances; r++) farm_pf_stat_add(&ws, &m->worst[r]);
  cr_expect_float_eq(farm_pf_stat_mean(&all, FARM_PF_RATE), pi, 1e-12);
  cr_expect_float_eq(farm_pf_stat_mean(&ws, FARM_PF_RATE), worst, 1e-12);
  for (int32_t l = 0; l < m->nlabels; l++) {
    double v = farm_pf_stat_mean(&m->label_stat[l], FARM_PF_RATE);
    cr_expect_leq(v, pi, "%s", m->labels[l]);
    cr_expect_geq(v, worst, "%s", m->labels[l]);
  }
  farm_pf_matrix_free(m);
  farm_store_close(st);
}

/* ---- the crafted portfolio: Tables 5.1 and 5.2, best single, greedy ------------------------ */

/* Four labels on four instances every label ran on (random 0-1, cross-sides 0-1), all with
 * map m, plus random 2 where A failed (an error job; the instance is left out):
 *              random 0, 1                 cross-sides 0, 1
 *   A   rate 1.0, dist 10, 40 steps    rate 0.2, dist 10, 90 steps
 *   B   rate 0.2, dist  9, 90 steps    rate 1.0, dist  9, 30 steps
 *   C   rate 0.7, dist 10, 60 steps    the same
 *   D   rate 0.1, dist  5, 100 steps   the same
 * Seconds: A 0.5, B 0.25, C 1.0, D 0.125 everywhere.
 * A is best on random, B on cross-sides, C is mediocre everywhere but the best single label
 * (mean rate 0.7 against 0.6, 0.6, 0.1), D is the worst everywhere. */
#define ROW(g, i, l, r, d, s, sec) {"m", g, i, l, NULL, r, d, s, sec}
static const job craft_jobs[] = {
    ROW("random", 0, "A", 1.0, 10, 40, 0.5),       ROW("random", 0, "B", 0.2, 9, 90, 0.25),
    ROW("random", 0, "C", 0.7, 10, 60, 1.0),       ROW("random", 0, "D", 0.1, 5, 100, 0.125),
    ROW("random", 1, "A", 1.0, 10, 40, 0.5),       ROW("random", 1, "B", 0.2, 9, 90, 0.25),
    ROW("random", 1, "C", 0.7, 10, 60, 1.0),       ROW("random", 1, "D", 0.1, 5, 100, 0.125),
    ROW("cross-sides", 0, "A", 0.2, 10, 90, 0.5),  ROW("cross-sides", 0, "B", 1.0, 9, 30, 0.25),
    ROW("cross-sides", 0, "C", 0.7, 10, 60, 1.0),  ROW("cross-sides", 0, "D", 0.1, 5, 100, 0.125),
    ROW("cross-sides", 1, "A", 0.2, 10, 90, 0.5),  ROW("cross-sides", 1, "B", 1.0, 9, 30, 0.25),
    ROW("cross-sides", 1, "C", 0.7, 10, 60, 1.0),  ROW("cross-sides", 1, "D", 0.1, 5, 100, 0.125),
    ROW("random", 2, "A", -1, 0, 0, 0),            ROW("random", 2, "B", 0.5, 9, 50, 0.25),
    ROW("random", 2, "C", 0.5, 9, 50, 0.25),       ROW("random", 2, "D", 0.5, 9, 50, 0.25),
};
#define CRAFT_N ((int32_t)(sizeof craft_jobs / sizeof craft_jobs[0]))

/* Table 5.1, worked out by hand (standard error = sample deviation / sqrt(4)):
 *   pi*    A on random, B on cross-sides: rate 1,1,1,1 -> 100.0 ± 0.0; distance 10,10,9,9 ->
 *          9.5 ± 0.3 (sd 0.577); steps 40,40,30,30 -> 35.0 ± 2.9 (sd 5.77); seconds
 *          0.5,0.5,0.25,0.25 -> 0.375 ± 0.072 (sd 0.144).
 *   A      rate 1,1,.2,.2 -> 60.0 ± 23.1 (sd 46.19 %); distance 10.0 ± 0.0; steps
 *          40,40,90,90 -> 65.0 ± 14.4 (sd 28.87); 0.500 ± 0.000; best on 2 (50.0%).
 *   B      the mirror: 60.0 ± 23.1; 9.0 ± 0.0; 30,30,90,90 -> 60.0 ± 17.3 (sd 34.64);
 *          0.250 ± 0.000; best on 2.
 *   C      70.0 ± 0.0, 10.0 ± 0.0, 60.0 ± 0.0, 1.000 ± 0.000; best on 0.
 *   D      10.0 ± 0.0, 5.0 ± 0.0, 100.0 ± 0.0, 0.125 ± 0.000; best on 0.
 *   Worst  D everywhere (lowest rate).
 * Best single: C. Random 2 is left out (A failed there), with its error job. */
Test(portfolio, table_5_1_as_text) {
  char path[512];
  farm_store *st = make_db("craft.db", craft_jobs, CRAFT_N, path, sizeof path);
  expect_report(
      st, "portfolio", 0, FARM_FORMAT_TEXT, NULL,
      "Algorithm performance on all problems (thesis Table 5.1): mean \u00b1 standard error "
      "over 4 instances that every label ran on; 1 instance not run by every label left out; 1 "
      "error job left out\n"
      "Selector  Completion rate (%)    Distance  Completion time (steps)  Completion time (s)  "
      "  Best on\n"
      "--------  -------------------  ----------  -----------------------  -------------------  "
      "---------\n"
      "pi*               100.0 \u00b1 0.0   9.5 \u00b1 0.3               35.0 \u00b1 2.9      "
      "  0.375 \u00b1 0.072          -\n"
      "--------  -------------------  ----------  -----------------------  -------------------  "
      "---------\n"
      "A                 60.0 \u00b1 23.1  10.0 \u00b1 0.0              65.0 \u00b1 14.4      "
      "  0.500 \u00b1 0.000  2 (50.0%)\n"
      "B                 60.0 \u00b1 23.1   9.0 \u00b1 0.0              60.0 \u00b1 17.3      "
      "  0.250 \u00b1 0.000  2 (50.0%)\n"
      "C                  70.0 \u00b1 0.0  10.0 \u00b1 0.0               60.0 \u00b1 0.0      "
      "  1.000 \u00b1 0.000   0 (0.0%)\n"
      "D                  10.0 \u00b1 0.0   5.0 \u00b1 0.0              100.0 \u00b1 0.0      "
      "  0.125 \u00b1 0.000   0 (0.0%)\n"
      "--------  -------------------  ----------  -----------------------  -------------------  "
      "---------\n"
      "Worst              10.0 \u00b1 0.0   5.0 \u00b1 0.0              100.0 \u00b1 0.0      "
      "  0.125 \u00b1 0.000          -\n"
      "Best single algorithm: C. Best on: the instances on which a label is pi*'s choice.\n");
  farm_store_close(st);
}

Test(portfolio, table_5_1_as_csv_and_markdown) {
  char path[512];
  farm_store *st = make_db("craft.db", craft_jobs, CRAFT_N, path, sizeof path);
  expect_report(st, "portfolio", 0, FARM_FORMAT_CSV, NULL,
                "Selector,Completion rate (%),Completion rate (%) SE,Distance,Distance SE,"
                "Completion time (steps),Completion time (steps) SE,Completion time (s),"
                "Completion time (s) SE,Best on,Best on (%)\n"
                "pi*,100,0,9.5,0.28867513459481287,35,2.886751345948129,0.375,0.07216878364870322,,\n"
                "A,60,23.094010767585033,10,0,65,14.433756729740644,0.5,0,2,50\n"
                "B,60.00000000000001,23.094010767585026,9,0,60,17.320508075688775,0.25,0,2,50\n"
                "C,70,0,10,0,60,0,1,0,0,0\n"
                "D,10,0,5,0,100,0,0.125,0,0,0\n"
                "Worst,10,0,5,0,100,0,0.125,0,,\n");
  expect_report(st, "portfolio", 0, FARM_FORMAT_MD, NULL,
                "| Selector | Completion rate (%) | Distance | Completion time (steps) | "
                "Completion time (s) | Best on |\n"
                "| :--- | ---: | ---: | ---: | ---: | ---: |\n"
                "| pi\\* | 100.0 \u00b1 0.0 | 9.5 \u00b1 0.3 | 35.0 \u00b1 2.9 | 0.375 \u00b1 "
                "0.072 | - |\n"
                "| A | 60.0 \u00b1 23.1 | 10.0 \u00b1 0.0 | 65.0 \u00b1 14.4 | 0.500 \u00b1 "
                "0.000 | 2 (50.0%) |\n"
                "| B | 60.0 \u00b1 23.1 | 9.0 \u00b1 0.0 | 60.0 \u00b1 17.3 | 0.250 \u00b1 "
                "0.000 | 2 (50.0%) |\n"
                "| C | 70.0 \u00b1 0.0 | 10.0 \u00b1 0.0 | 60.0 \u00b1 0.0 | 1.000 \u00b1 "
                "0.000 | 0 (0.0%) |\n"
                "| D | 10.0 \u00b1 0.0 | 5.0 \u00b1 0.0 | 100.0 \u00b1 0.0 | 0.125 \u00b1 "
                "0.000 | 0 (0.0%) |\n"
                "| Worst | 10.0 \u00b1 0.0 | 5.0 \u00b1 0.0 | 100.0 \u00b1 0.0 | 0.125 \u00b1 "
                "0.000 | - |\n");
  farm_store_close(st);
}

/* Table 5.2 by hand: random A 100, B 20, C 70, D 10, pi* 100 (A), worst 10 (D), A best on
 * both; cross-sides the mirror; Overall the means of Table 5.1. */
Test(portfolio, table_5_2_as_text_and_csv) {
  char path[512];
  farm_store *st = make_db("craft.db", craft_jobs, CRAFT_N, path, sizeof path);
  expect_report(st, "problem-types", 0, FARM_FORMAT_TEXT, NULL,
                "Completion rate (%) by problem type (thesis Table 5.2) over 4 instances that "
                "every label ran on; 1 instance not run by every label left out; 1 error job "
                "left out; best: the percentage of a type's instances on which a label is pi*'s "
                "choice\n"
                "Problem type      A      B     C     D    pi*  Worst  Instances  best: A  "
                "best: B  best: C  best: D\n"
                "------------  -----  -----  ----  ----  -----  -----  ---------  -------  "
                "-------  -------  -------\n"
                "random        100.0   20.0  70.0  10.0  100.0   10.0          2    100.0  "
                "    0.0      0.0      0.0\n"
                "cross-sides    20.0  100.0  70.0  10.0  100.0   10.0          2      0.0  "
                "  100.0      0.0      0.0\n"
                "------------  -----  -----  ----  ----  -----  -----  ---------  -------  "
                "-------  -------  -------\n"
                "Overall        60.0   60.0  70.0  10.0  100.0   10.0          4     50.0  "
                "   50.0      0.0      0.0\n");
  expect_report(st, "problem-types", 0, FARM_FORMAT_CSV, NULL,
                "Problem type,A,B,C,D,pi*,Worst,Instances,best: A,best: B,best: C,best: D\n"
                "random,100,20,70,10,100,10,2,100,0,0,0\n"
                "cross-sides,20,100,70,10,100,10,2,0,100,0,0\n"
                "Overall,60,60.00000000000001,70,10,100,10,4,50,50,0,0\n");
  /* The SQL twin gives the same cells. */
  expect_rows(farm_store_db(st),
              "SELECT generator, label, round(100 * completion_rate, 1), best_on FROM "
              "portfolio_problem_types ORDER BY generator, label",
              "cross-sides|A|20.0|0\ncross-sides|B|100.0|2\ncross-sides|C|70.0|0\n"
              "cross-sides|D|10.0|0\nrandom|A|100.0|2\nrandom|B|20.0|0\nrandom|C|70.0|0\n"
              "random|D|10.0|0\n");
  farm_store_close(st);
}

/* The best single algorithm is C in the view and in farm/portfolio.c, although A's and B's
 * mean rates (1 + 1 + .2 + .2 and .2 + .2 + 1 + 1 over 4) differ in their last bit when
 * summed in instance order: means are compared rounded. Without C, A and B tie on rate and
 * B's shorter distance decides. */
Test(portfolio, best_single_algorithm) {
  char path[512];
  mapf_diag err = {0};
  farm_store *st = make_db("craft.db", craft_jobs, CRAFT_N, path, sizeof path);
  sqlite3 *db = farm_store_db(st);
  expect_rows(db, "SELECT label FROM portfolio_best_single", "C\n");
  farm_pf_matrix *m = NULL;
  cr_assert_eq(farm_pf_load(db, NULL, 0, &m, &err), 0, "%s", err.msg);
  cr_expect_str_eq(m->labels[farm_pf_best_single(m)], "C");
  farm_pf_matrix_free(m);
  cr_assert_eq(farm_pf_load(db, "label <> 'C'", 0, &m, &err), 0, "%s", err.msg);
  cr_expect_str_eq(m->labels[farm_pf_best_single(m)], "B");
  farm_pf_matrix_free(m);
  farm_store_close(st);
}

/* Algorithm 2 by hand on the crafted matrix (f = pi* over P u {a}: mean rate, then distance):
 *   i = 1  P = {}:      A (0.6, 10), B (0.6, 9), C (0.7, 10), D (0.1, 5)   -> C
 *   i = 2  P = {C}:     + A: 1, 1, .7, .7 = 0.85, distance 10
 *                       + B: .7, .7, 1, 1 = 0.85, distance (10 + 10 + 9 + 9) / 4 = 9.5
 *                       + D: 0.7                                          -> B (distance)
 *   i = 3  P = {C, B}:  + A: 1.0 everywhere                               -> A
 *   i = 4  P = {C, B, A}: + D changes no instance: not better, so P stops growing (thesis
 *          line 330), after 3 of the 4 steps asked for.
 * Greedy's {C, B} is not the best pair ({A, B} reaches 1.0): Algorithm 2 is greedy. */
Test(portfolio, greedy_formation_follows_algorithm_2) {
  char path[512];
  mapf_diag err = {0};
  farm_store *st = make_db("craft.db", craft_jobs, CRAFT_N, path, sizeof path);
  farm_pf_matrix *m = NULL;
  cr_assert_eq(farm_pf_load(farm_store_db(st), NULL, 0, &m, &err), 0, "%s", err.msg);
  farm_pf_step steps[4];
  cr_assert_eq(farm_pf_greedy(m, 4, steps), 3);
  const char *want[3] = {"C", "B", "A"};
  const double rate[3] = {0.7, 0.85, 1.0}, dist[3] = {10.0, 9.5, 9.5};
  const int64_t chosen[3] = {4, 2, 2};
  for (int i = 0; i < 3; i++) {
    cr_expect_str_eq(m->labels[steps[i].label], want[i], "step %d", i + 1);
    cr_expect_float_eq(farm_pf_stat_mean(&steps[i].score, FARM_PF_RATE), rate[i], 1e-12);
    cr_expect_float_eq(farm_pf_stat_mean(&steps[i].score, FARM_PF_DISTANCE), dist[i], 1e-12);
    cr_expect_eq(steps[i].chosen, chosen[i], "step %d", i + 1);
  }
  /* Size 1 is the best single label; size 0 takes no step. */
  cr_expect_eq(farm_pf_greedy(m, 1, steps), 1);
  cr_expect_str_eq(m->labels[steps[0].label], "C");
  cr_expect_eq(farm_pf_greedy(m, 0, steps), 0);
  farm_pf_matrix_free(m);

  /* The steps as the command prints them. */
  expect_report(st, NULL, 4, FARM_FORMAT_TEXT, NULL,
                "Greedy portfolio formation (thesis Algorithm 2), at most 4 labels: the perfect "
                "selector pi* over the portfolio after each step, means over 4 instances that "
                "every label ran on; 1 instance not run by every label left out; 1 error job "
                "left out; chosen on: the instances on which pi* picks the label added\n"
                "Step  Added  Completion rate (%)  Distance  Completion time (steps)  "
                "Completion time (s)   Chosen on\n"
                "----  -----  -------------------  --------  -----------------------  "
                "-------------------  ----------\n"
                "1     C                     70.0      10.0                     60.0  "
                "              1.000  4 (100.0%)\n"
                "2     B                     85.0       9.5                     45.0  "
                "              0.625   2 (50.0%)\n"
                "3     A                    100.0       9.5                     35.0  "
                "              0.375   2 (50.0%)\n"
                "Stopped after 3 steps: no other label improves the portfolio.\n");
  farm_store_close(st);
}

/* --where filters jobs before anything is chosen: without D, the worst label is B on random
 * and A on cross-sides (rate 0.2), and greedy runs out of labels instead. */
Test(portfolio, where_filters_jobs_before_the_selection) {
  char path[512];
  farm_store *st = make_db("craft.db", craft_jobs, CRAFT_N, path, sizeof path);
  expect_report(st, "portfolio", 0, FARM_FORMAT_CSV, "label <> 'D'",
                "Selector,Completion rate (%),Completion rate (%) SE,Distance,Distance SE,"
                "Completion time (steps),Completion time (steps) SE,Completion time (s),"
                "Completion time (s) SE,Best on,Best on (%)\n"
                "pi*,100,0,9.5,0.28867513459481287,35,2.886751345948129,0.375,0.07216878364870322,,\n"
                "A,60,23.094010767585033,10,0,65,14.433756729740644,0.5,0,2,50\n"
                "B,60.00000000000001,23.094010767585026,9,0,60,17.320508075688775,0.25,0,2,50\n"
                "C,70,0,10,0,60,0,1,0,0,0\n"
                "Worst,20,0,9.5,0.28867513459481287,90,0,0.375,0.07216878364870322,,\n");
  expect_report(st, NULL, 5, FARM_FORMAT_CSV, "label <> 'D'",
                "Step,Added,Completion rate (%),Distance,Completion time (steps),"
                "Completion time (s),Chosen on,Chosen on (%)\n"
                "1,C,70,10,60,1,4,100\n"
                "2,B,85.00000000000001,9.5,45,0.625,2,50\n"
                "3,A,100,9.5,35,0.375,2,50\n");
  char *text = NULL;
  mapf_diag err = {0};
  cr_assert_eq(report_str(st, NULL, 5, FARM_FORMAT_TEXT, "label <> 'D'", &text, &err),
               0, "%s", err.msg);
  cr_expect(strstr(text, "\nStopped after 3 steps: every label is in the portfolio.\n") != NULL,
            "%s", text);
  free(text);
  /* Only the random instances: A is best on both, so pi* is A. */
  expect_report(st, "problem-types", 0, FARM_FORMAT_CSV, "generator = 'random' AND label <> 'D'",
                "Problem type,A,B,C,pi*,Worst,Instances,best: A,best: B,best: C\n"
                "random,100,20,70,100,20,2,100,0,0\n"
                "Overall,100,20,70,100,20,2,100,0,0\n");
  /* Errors are reported with the condition, and an empty selection says so. */
  cr_expect_eq(report_str(st, "portfolio", 0, FARM_FORMAT_TEXT, "lable = 'A'", &text, &err),
               -1);
  free(text);
  cr_expect_str_eq(err.msg, "--where \"lable = 'A'\": no such column: lable");
  cr_expect_eq(report_str(st, "portfolio", 0, FARM_FORMAT_TEXT, "agents > 100", &text, &err),
               -1);
  free(text);
  cr_expect_str_eq(err.msg, "no job that ran in DB matches --where \"agents > 100\"");
  farm_store_close(st);
}

/* Labels that never ran on a common instance: the report says what to do. */
Test(portfolio, no_instance_with_every_label_is_an_error) {
  static const job jobs[] = {
      {"m", "random", 0, "A", NULL, 1.0, 10, 40, 0.5},
      {"m", "random", 1, "B", NULL, 1.0, 10, 40, 0.5},
  };
  char path[512];
  farm_store *st = make_db("apart.db", jobs, 2, path, sizeof path);
  char *text = NULL;
  mapf_diag err = {0};
  cr_expect_eq(report_str(st, "portfolio", 0, FARM_FORMAT_TEXT, NULL, &text, &err),
               -1);
  free(text);
  cr_expect(strstr(err.msg, "no instance in DB has a job that ran for each of its 2 labels (2 "
                        "instances have some)") != NULL,
            "got: %s", err.msg);
  farm_report_opts rows = {FARM_FORMAT_TEXT, 0, "map", NULL, NULL, 0};
  FILE *f = fopen("/dev/null", "w");
  cr_expect_eq(farm_report(st, "problem-types", &rows, f, &err), -1);
  fclose(f);
  cr_expect_str_eq(err.msg, "the problem-types report has fixed rows and columns; --rows does not "
                        "apply");
  farm_store_close(st);
}

/* ---- old databases: views replaced on write, shadowed on read ------------------------------ */

/* portfolio_labels as mapfarm wrote it before this change (steps ranked before distance). */
static const char old_portfolio_labels[] =
    "CREATE VIEW portfolio_labels AS SELECT r.map, r.map_hash, r.generator, r.agents, "
    "r.instance, r.label AS best_label, r.algorithm AS best_algorithm, r.params AS "
    "best_params, r.completion_rate, r.mean_completion_steps_capped, r.mean_travel_distance, "
    "(SELECT count(*) FROM results AS c WHERE c.map = r.map AND c.map_hash = r.map_hash AND "
    "c.generator = r.generator AND c.agents = r.agents AND c.instance = r.instance AND "
    "c.status <> 'error') AS candidates FROM results AS r WHERE r.job_key = (SELECT s.job_key "
    "FROM results AS s WHERE s.map = r.map AND s.map_hash = r.map_hash AND s.generator = "
    "r.generator AND s.agents = r.agents AND s.instance = r.instance AND s.status <> 'error' "
    "ORDER BY s.completion_rate DESC, coalesce(s.mean_completion_steps_capped, 9e999) ASC, "
    "coalesce(s.mean_travel_distance, 9e999) ASC, s.label ASC, s.job_key ASC LIMIT 1)";

static const char *const new_views[] = {"portfolio_instances",     "portfolio_worst",
                                        "portfolio_label_means",   "portfolio_perfect",
                                        "portfolio_worst_selector", "portfolio_best_single",
                                        "portfolio_problem_types"};

/* Turns path into a file as the previous mapfarm left it: the new portfolio views gone and
 * the old portfolio_labels in place. */
static void make_old(const char *path) {
  sqlite3 *db = NULL;
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  char *msg = NULL;
  for (size_t i = 0; i < sizeof new_views / sizeof new_views[0]; i++) {
    char sql[128];
    snprintf(sql, sizeof sql, "DROP VIEW %s", new_views[i]);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg);
  }
  cr_assert_eq(sqlite3_exec(db, "DROP VIEW portfolio_labels", NULL, NULL, &msg), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(db, old_portfolio_labels, NULL, NULL, &msg), SQLITE_OK, "%s", msg);
  sqlite3_close(db);
}

static const char count_new_views[] =
    "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name IN ('portfolio_instances', "
    "'portfolio_worst', 'portfolio_label_means', 'portfolio_perfect', "
    "'portfolio_worst_selector', 'portfolio_best_single', 'portfolio_problem_types')";

Test(portfolio, an_old_file_gets_the_new_views_when_opened_for_writing) {
  char path[512];
  mapf_diag err = {0};
  farm_store *st = make_db("old.db", craft_jobs, CRAFT_N, path, sizeof path);
  farm_store_close(st);
  /* A current file is not written to by opening it. */
  int64_t cookie = test_db_int(path, "PRAGMA schema_version");
  cr_assert_eq(farm_store_open(path, FARM_STORE_CREATE, &st, &err), 0, "%s", err.msg);
  farm_store_close(st);
  cr_expect_eq(test_db_int(path, "PRAGMA schema_version"), cookie);

  make_old(path);
  cr_assert_eq(test_db_int(path, count_new_views), 0);
  cookie = test_db_int(path, "PRAGMA schema_version");
  cr_assert_eq(farm_store_open(path, FARM_STORE_CREATE, &st, &err), 0, "%s", err.msg);
  farm_store_close(st);
  cr_expect_eq(test_db_int(path, count_new_views), 7);
  cr_expect_gt(test_db_int(path, "PRAGMA schema_version"), cookie);
  cr_expect_eq(test_db_int(path, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  /* portfolio_labels is the new one (best_job_key is new), and its companions work. */
  char *rows = test_db_rows(path, "SELECT count(best_job_key) FROM portfolio_labels");
  cr_expect_str_eq(rows, "5\n");
  free(rows);
  rows = test_db_rows(path, "SELECT label FROM portfolio_best_single");
  cr_expect_str_eq(rows, "C\n");
  free(rows);
}

Test(portfolio, reports_work_on_a_read_only_old_file) {
  char path[512];
  mapf_diag err = {0};
  farm_store *st = make_db("old.db", craft_jobs, CRAFT_N, path, sizeof path);
  char *want = NULL;
  cr_assert_eq(report_str(st, "portfolio", 0, FARM_FORMAT_CSV, NULL, &want, &err), 0,
               "%s", err.msg);
  farm_store_close(st);
  make_old(path);
  cr_assert_eq(chmod(path, 0444), 0);

  cr_assert_eq(farm_store_open(path, FARM_STORE_READONLY, &st, &err), 0, "%s", err.msg);
  char *got = NULL;
  cr_assert_eq(report_str(st, "portfolio", 0, FARM_FORMAT_CSV, NULL, &got, &err), 0,
               "%s", err.msg);
  cr_expect_str_eq(got, want);
  free(got);
  /* The connection sees the new views as TEMP views; the file keeps the old ones. */
  expect_rows(farm_store_db(st), "SELECT label FROM portfolio_best_single", "C\n");
  expect_rows(farm_store_db(st), "SELECT count(best_job_key) FROM portfolio_labels", "5\n");
  farm_store_close(st);
  cr_expect_eq(test_db_int(path, count_new_views), 0);

  /* The command line, too. */
  char *out = NULL, *errs = NULL;
  cr_expect_eq(mapfarm(&out, &errs, "report --db '%s' portfolio --format csv", path), 0, "%s",
               errs);
  cr_expect_str_eq(out, want);
  free(out);
  free(errs);
  free(want);
}

/* ---- the command --------------------------------------------------------------------------- */

Test(portfolio, command_prints_the_steps_and_refuses_a_bad_size) {
  char path[512];
  farm_store *st = make_db("craft.db", craft_jobs, CRAFT_N, path, sizeof path);
  farm_store_close(st);
  char *out = NULL, *err = NULL;
  cr_expect_eq(mapfarm(&out, &err, "portfolio --db '%s' --size 2 --format md", path), 0, "%s",
               err);
  cr_expect_str_eq(out,
                   "| Step | Added | Completion rate (%) | Distance | Completion time (steps) | "
                   "Completion time (s) | Chosen on |\n"
                      "| :--- | :--- | ---: | ---: | ---: | ---: | ---: |\n"
                   "| 1 | C | 70.0 | 10.0 | 60.0 | 1.000 | 4 (100.0%) |\n"
                   "| 2 | B | 85.0 | 9.5 | 45.0 | 0.625 | 2 (50.0%) |\n");
  free(out);
  free(err);
  const char *bad[] = {"0", "-1", "two", "3x", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cr_expect_eq(mapfarm(&out, &err, "portfolio --db '%s' --size '%s'", path, bad[i]), 2,
                 "--size '%s'", bad[i]);
    char want[128];
    snprintf(want, sizeof want,
             "mapfarm portfolio: error: --size: expected an integer >= 1, found \"%s\"\n",
             bad[i]);
    cr_expect(strncmp(err, want, strlen(want)) == 0, "got: %s", err);
    cr_expect_str_eq(out, "");
    free(out);
    free(err);
  }
  cr_expect_eq(mapfarm(&out, &err, "portfolio --db '%s'", path), 2);
  cr_expect(strstr(err, "mapfarm portfolio: error: --size N is required") != NULL, "got: %s", err);
  free(out);
  free(err);
  cr_expect_eq(mapfarm(&out, &err, "portfolio --db '%s' --size 2 --where 'nope = 1'", path), 2);
  cr_expect(strstr(err, "--where \"nope = 1\": no such column: nope") != NULL, "got: %s", err);
  free(out);
  free(err);
}
