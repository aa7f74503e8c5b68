/* test_report.c: the paper-style result tables (farm/report.c). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------------ */

/* Each test's database goes in a fresh directory. */
TEST_TMPDIR("report");
TestSuite(report, .init = make_tmpdir, .fini = remove_tmpdir);

/* One job of the test database: map, label, agents, and its three reported metrics; a rate
 * below 0 makes an error job. */
typedef struct row {
  const char *map, *label;
  int32_t agents;
  double rate, steps, travel;
} row;

/* Inserted in this order, so the maps come out zeta, alpha and the labels BMAA*, A*-Replan:
 * first appearance, not alphabetical. The expected tables below are worked out by hand:
 *   completion rate   zeta: BMAA* (1.0 + 0.9) / 2 = 95 %, A*-Replan (0.5 + 0.25) / 2 = 37.5 %
 *                     -> 38, Overall (1 + .5 + .25 + .9) / 4 = 66.25 % -> 66;
 *                     alpha: BMAA* 75, A*-Replan only an error -> "-", Overall 75;
 *                     Overall row: BMAA* 2.65 / 3 = 88.3 -> 88, A*-Replan 38, corner 3.4 / 5
 *                     = 68.
 *   completion time   zeta: BMAA* 50.5, A*-Replan 150.0, Overall 401 / 4 = 100.25 -> 100.3;
 *                     alpha: BMAA* 50.25 -> 50.3; Overall row: BMAA* 151.25 / 3 = 50.42 ->
 *                     50.4, A*-Replan 150.0, corner 451.25 / 5 = 90.25 -> 90.3.
 *   travel distance   zeta: BMAA* 32.5 -> 33, A*-Replan 30.5 -> 31, Overall 126 / 4 = 31.5 ->
 *                     32; alpha: 10; Overall row: BMAA* 75 / 3 = 25, A*-Replan 31, corner
 *                     136 / 5 = 27.2 -> 27.
 * Halves round away from zero (printf alone would print 100.2 and 32). */
static const row paper_rows[] = {
    {"zeta", "BMAA*", 10, 1.0, 40.0, 30.0},      {"zeta", "A*-Replan", 10, 0.5, 100.0, 20.0},
    {"zeta", "A*-Replan", 20, 0.25, 200.0, 41.0}, {"alpha", "BMAA*", 10, 0.75, 50.25, 10.0},
    {"alpha", "A*-Replan", 10, -1.0, 0.0, 0.0},  {"zeta", "BMAA*", 20, 0.9, 61.0, 35.0},
};

/* A result with status and completion rate, all else zero; a limit is the step limit. */
static mapf_result result_of(mapf_status status, double rate) {
  mapf_result res;
  memset(&res, 0, sizeof res);
  res.status = status;
  res.limit = status == MAPF_STATUS_LIMIT ? MAPF_LIMIT_STEPS : MAPF_LIMIT_NONE;
  res.completion_rate = rate;
  return res;
}

/* Stores one job: rec with res as its result and its key made from the printf-style key text;
 * run is the run id (0: none). */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void put_job(farm_store *st, int64_t run, farm_record rec, mapf_result *res,
                    const char *key_fmt, ...) {
  char text[64], key[33];
  mapf_diag err = {0};
  va_list ap;
  va_start(ap, key_fmt);
  vsnprintf(text, sizeof text, key_fmt, ap);
  va_end(ap);
  mapf_hash128_hex(mapf_hash128_of(text, strlen(text)), key);
  rec.job_key = key;
  rec.res = res;
  cr_assert_eq(farm_store_put(st, run, &rec, 1, &err), 0, "%s", err.msg);
}

/* Creates tmpdir/r.db holding rows and returns it opened. */
static farm_store *make_db(const row *rows, int32_t n) {
  char path[512];
  mapf_diag err = {0};
  snprintf(path, sizeof path, "%s/r.db", tmpdir);
  farm_store *st = NULL;
  cr_assert_eq(farm_store_open(path, FARM_STORE_CREATE, &st, &err), 0, "%s", err.msg);
  for (int32_t i = 0; i < n; i++) {
    mapf_result res;
    if (rows[i].rate < 0) {
      res = result_of(MAPF_STATUS_ERROR, 0);
      snprintf(res.message, sizeof res.message, "no room for the agents");
    } else {
      res = result_of(rows[i].rate == 1.0 ? MAPF_STATUS_OK : MAPF_STATUS_LIMIT, rows[i].rate);
      res.mean_completion_steps_capped = rows[i].steps;
      res.mean_travel_distance = rows[i].travel;
    }
    farm_record rec = {.map = rows[i].map, .generator = "random", .agents = rows[i].agents,
                       .instance = i, .algorithm = "algo", .label = rows[i].label,
                       .params = "{}", .plan_index = i};
    put_job(st, 0, rec, &res, "job %d", (int)i);
  }
  return st;
}

/* Runs a report into a string (malloc'd; the caller frees). Returns farm_report's status. */
static int report_str(farm_store *st, const char *name, farm_format format, int32_t max_agents,
                      char **text, mapf_diag *err) {
  size_t len = 0;
  FILE *f = open_memstream(text, &len);
  cr_assert_not_null(f);
  farm_report_opts opts = {format, max_agents, NULL, NULL, NULL, 0};
  int r = farm_report(st, name, &opts, f, err);
  fclose(f);
  return r;
}

static void expect_report(farm_store *st, const char *name, farm_format format,
                          int32_t max_agents, const char *want) {
  char *text = NULL;
  mapf_diag err = {0};
  cr_assert_eq(report_str(st, name, format, max_agents, &text, &err), 0, "%s", err.msg);
  cr_expect_str_eq(text, want);
  free(text);
}

#define PAPER_N ((int32_t)(sizeof paper_rows / sizeof paper_rows[0]))

/* Checks one report of the database of paper_rows. */
static void expect_paper_report(const char *name, farm_format format, int32_t max_agents,
                                const char *want) {
  farm_store *st = make_db(paper_rows, PAPER_N);
  expect_report(st, name, format, max_agents, want);
  farm_store_close(st);
}

/* ---- the three reports -------------------------------------------------------------------- */

Test(report, completion_rate_as_text) {
  expect_paper_report("completion-rate", FARM_FORMAT_TEXT, 0,
                      "Completion rate (%): mean over 5 jobs; 1 error job left out\n"
                      "Map       BMAA*  A*-Replan  Overall\n"
                      "-------  ------  ---------  -------\n"
                      "zeta     95 (2)     38 (2)   66 (4)\n"
                      "alpha    75 (1)          -   75 (1)\n"
                      "-------  ------  ---------  -------\n"
                      "Overall  88 (3)     38 (2)   68 (5)\n"
                      "Cells average unequal numbers of jobs (1 to 2): each cell's count is in "
                      "parentheses\n");
}

Test(report, completion_rate_as_markdown) {
  expect_paper_report("completion-rate", FARM_FORMAT_MD, 0,
                      "| Map | BMAA\\* | A\\*-Replan | Overall |\n"
                      "| :--- | ---: | ---: | ---: |\n"
                      "| zeta | 95 (2) | 38 (2) | 66 (4) |\n"
                      "| alpha | 75 (1) | - | 75 (1) |\n"
                      "| Overall | 88 (3) | 38 (2) | 68 (5) |\n"
                      "\n"
                      "Cells average unequal numbers of jobs (1 to 2): each cell's count is in "
                      "parentheses\n");
}

/* CSV at full precision, not the display's rounding: 37.5 and 66.25 as they are, 2.65 / 3
 * with every digit a double holds. */
Test(report, completion_rate_as_csv) {
  expect_paper_report("completion-rate", FARM_FORMAT_CSV, 0,
                      "Map,BMAA*,A*-Replan,Overall\n"
                      "zeta,95,37.5,66.25\n"
                      "alpha,75,,75\n"
                      "Overall,88.33333333333333,37.5,68\n");
}

Test(report, completion_time_has_one_decimal_and_rounds_halves_up) {
  expect_paper_report("completion-time", FARM_FORMAT_TEXT, 0,
                      "Completion time (steps, unfinished agents count as the limit): mean over 5 "
                      "jobs; 1 error job left out\n"
                      "Map         BMAA*  A*-Replan    Overall\n"
                      "-------  --------  ---------  ---------\n"
                      "zeta     50.5 (2)  150.0 (2)  100.3 (4)\n"
                      "alpha    50.3 (1)          -   50.3 (1)\n"
                      "-------  --------  ---------  ---------\n"
                      "Overall  50.4 (3)  150.0 (2)   90.3 (5)\n"
                      "Cells average unequal numbers of jobs (1 to 2): each cell's count is in "
                      "parentheses\n");
}

Test(report, travel_distance_as_csv) {
  expect_paper_report("travel-distance", FARM_FORMAT_CSV, 0,
                      "Map,BMAA*,A*-Replan,Overall\n"
                      "zeta,32.5,30.5,31.5\n"
                      "alpha,10,,10\n"
                      "Overall,25,30.5,27.2\n");
}

/* Only the jobs with at most 10 agents: zeta BMAA* 100, A*-Replan 50, Overall 75; alpha 75;
 * Overall row BMAA* 87.5 -> 88, A*-Replan 50, corner 2.25 / 3 = 75. */
Test(report, max_agents_keeps_small_instances_only) {
  farm_store *st = make_db(paper_rows, PAPER_N);
  expect_report(st, "completion-rate", FARM_FORMAT_TEXT, 10,
                "Completion rate (%): mean over 3 jobs with at most 10 agents; 1 error job left "
                "out\n"
                "Map      BMAA*  A*-Replan  Overall\n"
                "-------  -----  ---------  -------\n"
                "zeta       100         50       75\n"
                "alpha       75          -       75\n"
                "-------  -----  ---------  -------\n"
                "Overall     88         50       75\n");
  char *text = NULL;
  mapf_diag err = {0};
  cr_expect_eq(report_str(st, "completion-rate", FARM_FORMAT_TEXT, 5, &text, &err),
               -1);
  cr_expect_str_eq(err.msg, "no results in DB with at most 5 agents (the smallest instance has 10)");
  free(text);
  farm_store_close(st);
}

/* ---- other rows and columns, filters ------------------------------------------------------ */

/* One BMAA* job with parameters, for the parameter-study tables (Sigurdson et al. 2018's
 * preliminary sweep: completion rate over expansions x vision). */
static void put_param_job(farm_store *st, int32_t i, int32_t agents, const char *label,
                          const char *params, double rate) {
  mapf_result res = result_of(MAPF_STATUS_LIMIT, rate);
  farm_record rec = {.map = "m", .generator = "random", .agents = agents, .instance = i,
                     .algorithm = "bmaa", .label = label, .params = params, .plan_index = i};
  put_job(st, 0, rec, &res, "param job %d", (int)i);
}

static void expect_dims(farm_store *st, const char *rows, const char *cols, const char *where,
                        const char *want) {
  char *text = NULL;
  mapf_diag err = {0};
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert_not_null(f);
  farm_report_opts opts = {FARM_FORMAT_CSV, 0, rows, cols, where, 0};
  int r = farm_report(st, "completion-rate", &opts, f, &err);
  fclose(f);
  cr_assert_eq(r, 0, "%s", err.msg);
  cr_expect_str_eq(text, want);
  free(text);
}

/* Rows are numbers sorted by value (the plan listed 400 before 100 here), booleans keep their
 * names, and --where filters before the means:
 *   expansions 1: vision 1.5 -> (0.2 + 0.4) / 2 = 30 %, vision 3 -> 0.6;  expansions 32: 1.5 ->
 *   0.9, 3 -> 1.0; Overall row: expansions 1 -> 1.2 / 3 = 40, 32 -> 95; column: 1.5 -> 1.5 /
 *   3 = 50, 3 -> 80; corner 3.1 / 5 = 62. */
Test(report, rows_and_columns_by_parameter_and_agents) {
  farm_store *st = make_db(paper_rows, 0);
  /* Labels name their configurations, as a plan's labels must. */
  put_param_job(st, 0, 400, "e1 p0 v1.5", "{\"expansions\":1,\"push\":false,\"vision\":1.5}",
                0.2);
  put_param_job(st, 1, 100, "e1 p1 v1.5", "{\"expansions\":1,\"push\":true,\"vision\":1.5}",
                0.4);
  put_param_job(st, 2, 400, "e1 p0 v3", "{\"expansions\":1,\"push\":false,\"vision\":3}", 0.6);
  put_param_job(st, 3, 100, "e32 p1 v1.5", "{\"expansions\":32,\"push\":true,\"vision\":1.5}",
                0.9);
  put_param_job(st, 4, 400, "e32 p0 v3", "{\"expansions\":32,\"push\":false,\"vision\":3}",
                1.0);
  expect_dims(st, "param:vision", "param:expansions", NULL,
              "vision,1,32,Overall\n"
              "1.5,30.000000000000004,90,50\n"
              "3,60,100,80\n"
              "Overall,40.00000000000001,95,62\n");
  expect_dims(st, "agents", "param:push", NULL,
              "Agents,false,true,Overall\n"
              "100,,65,65\n"
              "400,60,,60\n"
              "Overall,60,65,62\n");
  expect_dims(st, "map", "label", "json_extract(params, '$.expansions') = 32",
              "Map,e32 p1 v1.5,e32 p0 v3,Overall\n"
              "m,90,100,95\n"
              "Overall,90,100,95\n");
  /* A misspelt parameter, dimension or column is an error, not an empty table. */
  char *text = NULL;
  mapf_diag err = {0};
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  farm_report_opts bad = {FARM_FORMAT_CSV, 0, "param:visoin", NULL, NULL, 0};
  cr_expect_eq(farm_report(st, "completion-rate", &bad, f, &err), -1);
  cr_expect_str_eq(err.msg, "no job in DB has the parameter \"visoin\" (--rows param:visoin)");
  farm_report_opts bad_dim = {FARM_FORMAT_CSV, 0, "agnets", NULL, NULL, 0};
  cr_expect_eq(farm_report(st, "completion-rate", &bad_dim, f, &err), -1);
  cr_expect(strstr(err.msg, "unknown table dimension \"agnets\" (did you mean \"agents\"?)") != NULL,
            "got: %s", err.msg);
  farm_report_opts bad_where = {FARM_FORMAT_CSV, 0, NULL, NULL, "agnts > 3", 0};
  cr_expect_eq(farm_report(st, "completion-rate", &bad_where, f, &err), -1);
  cr_expect_str_eq(err.msg, "--where \"agnts > 3\": no such column: agnts");
  farm_report_opts none = {FARM_FORMAT_CSV, 0, NULL, NULL, "agents > 1000", 0};
  cr_expect_eq(farm_report(st, "completion-rate", &none, f, &err), -1);
  cr_expect_str_eq(err.msg, "no results in DB match --where \"agents > 1000\"");
  fclose(f);
  cr_expect_str_eq(text, "");
  free(text);
  farm_store_close(st);
}

/* ---- names, quoting, errors ---------------------------------------------------------------- */

Test(report, csv_quotes_and_markdown_escapes_names) {
  static const row rows[] = {
      {"maze, large", "FAR \"k=2\"", 4, 0.5, 10.0, 3.0},
      {"a|b", "WHCA*_w", 4, 1.0, 20.0, 5.0},
  };
  farm_store *st = make_db(rows, 2);
  expect_report(st, "completion-rate", FARM_FORMAT_CSV, 0,
                "Map,\"FAR \"\"k=2\"\"\",WHCA*_w,Overall\n"
                "\"maze, large\",50,,50\n"
                "a|b,,100,100\n"
                "Overall,50,100,75\n");
  expect_report(st, "completion-rate", FARM_FORMAT_MD, 0,
                "| Map | FAR \"k=2\" | WHCA\\*\\_w | Overall |\n"
                "| :--- | ---: | ---: | ---: |\n"
                "| maze, large | 50 | - | 50 |\n"
                "| a\\|b | - | 100 | 100 |\n"
                "| Overall | 50 | 100 | 75 |\n");
  farm_store_close(st);
}

/* A label stored with a control character (by a mapfarm that did not refuse them) is shown
 * escaped in text and Markdown, so each table row stays one line; CSV quotes it. */
Test(report, control_characters_in_names_are_escaped) {
  static const row rows[] = {{"m", "two\nlines", 4, 0.5, 10.0, 3.0},
                             {"m", "bell\a", 4, 1.0, 20.0, 5.0}};
  farm_store *st = make_db(rows, 2);
  expect_report(st, "completion-rate", FARM_FORMAT_TEXT, 0,
                "Completion rate (%): mean over 2 jobs\n"
                "Map      two\\nlines  bell\\x07  Overall\n"
                "-------  ----------  --------  -------\n"
                "m                50       100       75\n"
                "-------  ----------  --------  -------\n"
                "Overall          50       100       75\n");
  expect_report(st, "completion-rate", FARM_FORMAT_MD, 0,
                "| Map | two\\\\nlines | bell\\\\x07 | Overall |\n"
                "| :--- | ---: | ---: | ---: |\n"
                "| m | 50 | 100 | 75 |\n"
                "| Overall | 50 | 100 | 75 |\n");
  expect_report(st, "completion-rate", FARM_FORMAT_CSV, 0,
                "Map,\"two\nlines\",bell\a,Overall\nm,50,100,75\nOverall,50,100,75\n");
  farm_store_close(st);
}

/* One job of label "W" or "B" under given limits and parameters, for the tables of several
 * configurations under one label. */
static void put_config_job(farm_store *st, int32_t i, const char *map, const char *label,
                           const char *algorithm, const char *params, int64_t steps,
                           double rate) {
  mapf_result res = result_of(MAPF_STATUS_LIMIT, rate);
  farm_record rec = {.map = map, .generator = "random", .agents = 4, .instance = i,
                     .algorithm = algorithm, .label = label, .params = params,
                     .limits = {.steps = steps}, .execution = MAPF_EXEC_CHAINS,
                     .plan_index = i};
  put_job(st, 0, rec, &res, "config job %d", (int)i);
}

static int report_opts_str(farm_store *st, const char *name, const farm_report_opts *o,
                           char **text, mapf_diag *err) {
  size_t len = 0;
  FILE *f = open_memstream(text, &len);
  cr_assert_not_null(f);
  int r = farm_report(st, name, o, f, err);
  fclose(f);
  return r;
}

/* Two plans run into one file with other limits, or one label given to two configurations:
 * a table with labels as columns shows each configuration apart, named by what differs, and
 * says so under the table; a table without labels refuses to pool them and says how to select
 * one; --where selecting one gives the plain label back. */
Test(report, a_label_of_several_configurations_is_split_or_refused) {
  farm_store *st = make_db(paper_rows, 0);
  /* W: steps 1000 (rates 1.0, 0.8) and steps 50 (0.5, 0.3); B: vision 1 and 2, one job each;
   * X: bmaa and far. */
  put_config_job(st, 0, "m", "W", "whca", "{\"window\":8}", 1000, 1.0);
  put_config_job(st, 1, "m", "W", "whca", "{\"window\":8}", 1000, 0.8);
  put_config_job(st, 2, "m", "W", "whca", "{\"window\":8}", 50, 0.5);
  put_config_job(st, 3, "m", "W", "whca", "{\"window\":8}", 50, 0.3);
  put_config_job(st, 4, "m", "B", "bmaa", "{\"push\":false,\"vision\":1}", 1000, 0.6);
  put_config_job(st, 5, "m", "B", "bmaa", "{\"push\":false,\"vision\":2}", 1000, 0.7);
  put_config_job(st, 6, "m", "X", "bmaa", "{\"push\":false,\"vision\":1}", 1000, 0.2);
  put_config_job(st, 7, "m", "X", "far", "{\"flow\":true}", 1000, 0.4);
  farm_report_opts o = {FARM_FORMAT_TEXT, 0, NULL, NULL, NULL, 0};
  char *text = NULL;
  mapf_diag err = {0};
  cr_assert_eq(report_opts_str(st, "completion-rate", &o, &text, &err), 0, "%s", err.msg);
  cr_expect_str_eq(text,
                   "Completion rate (%): mean over 8 jobs\n"
                   "Map      W [steps=1000]  W [steps=50]  B [vision=1]  B [vision=2]  "
                   "X [algorithm=bmaa]  X [algorithm=far]  Overall\n"
                   "-------  --------------  ------------  ------------  ------------  "
                   "------------------  -----------------  -------\n"
                   "m                90 (2)        40 (2)        60 (1)        70 (1)  "
                   "            20 (1)             40 (1)   56 (8)\n"
                   "-------  --------------  ------------  ------------  ------------  "
                   "------------------  -----------------  -------\n"
                   "Overall          90 (2)        40 (2)        60 (1)        70 (1)  "
                   "            20 (1)             40 (1)   56 (8)\n"
                   "Labels with several configurations (shown apart, named by what differs):\n"
                   "\"W\" holds 2 configurations, shown apart by steps\n"
                   "\"B\" holds 2 configurations, shown apart by vision\n"
                   "\"X\" holds 2 configurations, shown apart by algorithm\n"
                   "Limits that differ between labels:\n"
                   "  W [steps=1000]: steps=1000\n"
                   "  W [steps=50]: steps=50\n"
                   "  B [vision=1]: steps=1000\n"
                   "  B [vision=2]: steps=1000\n"
                   "  X [algorithm=bmaa]: steps=1000\n"
                   "  X [algorithm=far]: steps=1000\n"
                   "Cells average unequal numbers of jobs (1 to 2): each cell's count is in "
                   "parentheses\n");
  free(text);
  /* Labels as rows, the same names. */
  farm_report_opts rows = {FARM_FORMAT_CSV, 0, "label", "map", NULL, 0};
  cr_assert_eq(report_opts_str(st, "completion-rate", &rows, &text, &err), 0, "%s",
               err);
  cr_expect_str_eq(text, "Label,m,Overall\nW [steps=1000],90,90\nW [steps=50],40,40\n"
                         "B [vision=1],60,60\nB [vision=2],70,70\nX [algorithm=bmaa],20,20\n"
                         "X [algorithm=far],40,40\nOverall,56.25,56.25\n");
  free(text);
  /* No label dimension: refused, naming the first mixed label in plan order. */
  farm_report_opts by_agents = {FARM_FORMAT_TEXT, 0, "agents", "algorithm", NULL, 0};
  cr_expect_eq(report_opts_str(st, "completion-rate", &by_agents, &text, &err), -1);
  cr_expect_str_eq(err.msg, "label \"W\" holds 2 configurations among these jobs (they differ in "
                        "steps: 1000; 50), which this command would take for one. Select one "
                        "with --where, e.g. --where \"limit_steps = 1000\", or run them under "
                        "distinct labels (other labels are mixed too)");
  cr_expect_str_eq(text, "");
  free(text);
  /* A parameter that is a dimension keeps its values apart already: B is one configuration
   * per vision there, W and X are not. */
  farm_report_opts by_vision = {FARM_FORMAT_CSV, 0, "param:vision", "agents",
                                "label = 'B'", 0};
  cr_assert_eq(report_opts_str(st, "completion-rate", &by_vision, &text, &err), 0,
               "%s", err.msg);
  cr_expect_str_eq(text, "vision,4,Overall\n1,60,60\n2,70,70\nOverall,64.99999999999999,64.99999999999999\n");
  free(text);
  farm_report_opts x_only = {FARM_FORMAT_TEXT, 0, "agents", "map", "label = 'X'", 0};
  cr_expect_eq(report_opts_str(st, "completion-rate", &x_only, &text, &err), -1);
  cr_expect_str_eq(err.msg, "label \"X\" holds 2 configurations among these jobs (they differ in "
                        "algorithm: bmaa; far), which this command would take for one. Select "
                        "one with --where, e.g. --where \"algorithm = 'bmaa'\", or run them "
                        "under distinct labels");
  free(text);
  /* The hint selects one: the plain label, equal counts, no notes. */
  farm_report_opts one = {FARM_FORMAT_TEXT, 0, NULL, NULL, "limit_steps = 50", 1};
  cr_assert_eq(report_opts_str(st, "completion-rate", &one, &text, &err), 0, "%s",
               err);
  cr_expect_str_eq(text, "Completion rate (%): mean over 2 jobs where limit_steps = 50\n"
                         "Map           W  Overall\n"
                         "-------  ------  -------\n"
                         "m        40 (2)   40 (2)\n"
                         "-------  ------  -------\n"
                         "Overall  40 (2)   40 (2)\n");
  free(text);
  farm_store_close(st);
}

/* --counts: after each value in text and Markdown, in a column of its own in CSV; the note on
 * unequal counts says where they are. */
Test(report, counts_show_how_many_jobs_each_cell_averages) {
  farm_store *st = make_db(paper_rows, PAPER_N);
  farm_report_opts o = {FARM_FORMAT_TEXT, 0, NULL, NULL, NULL, 1};
  char *text = NULL;
  mapf_diag err = {0};
  cr_assert_eq(report_opts_str(st, "completion-rate", &o, &text, &err), 0, "%s", err.msg);
  cr_expect_str_eq(text,
                   "Completion rate (%): mean over 5 jobs; 1 error job left out\n"
                   "Map       BMAA*  A*-Replan  Overall\n"
                   "-------  ------  ---------  -------\n"
                   "zeta     95 (2)     38 (2)   66 (4)\n"
                   "alpha    75 (1)          -   75 (1)\n"
                   "-------  ------  ---------  -------\n"
                   "Overall  88 (3)     38 (2)   68 (5)\n"
                   "Cells average unequal numbers of jobs (1 to 2): each cell's count is in "
                   "parentheses\n");
  free(text);
  o.format = FARM_FORMAT_CSV;
  cr_assert_eq(report_opts_str(st, "completion-rate", &o, &text, &err), 0, "%s", err.msg);
  cr_expect_str_eq(text, "Map,BMAA*,BMAA* jobs,A*-Replan,A*-Replan jobs,Overall,Overall jobs\n"
                         "zeta,95,2,37.5,2,66.25,4\n"
                         "alpha,75,1,,,75,1\n"
                         "Overall,88.33333333333333,3,37.5,2,68,5\n");
  free(text);
  farm_store_close(st);
}

Test(report, empty_database_says_so) {
  farm_store *st = make_db(paper_rows, 0);
  char *text = NULL;
  mapf_diag err = {0};
  cr_expect_eq(report_str(st, "travel-distance", FARM_FORMAT_TEXT, 0, &text, &err),
               -1);
  cr_expect_str_eq(err.msg, "no results in DB");
  cr_expect_str_eq(text, "");
  free(text);
  farm_store_close(st);
}

/* soc-ratio and makespan-ratio: per job soc / soc_lb and makespan / makespan_lb, averaged over
 * the solved jobs (an unsolved job has its bounds but no soc; an error job nothing). By hand:
 * A: (12/10 + 15/10) / 2 = 1.35 and (6/5 + 5/5) / 2 = 1.1; B: 21/20 = 1.05, 9/8 = 1.125. */
Test(report, the_ratio_reports_average_soc_and_makespan_over_their_bounds_on_solved_jobs) {
  char path[512];
  mapf_diag err = {0};
  snprintf(path, sizeof path, "%s/r.db", tmpdir);
  farm_store *st = NULL;
  cr_assert_eq(farm_store_open(path, FARM_STORE_CREATE, &st, &err), 0, "%s", err.msg);
  static const struct {
    const char *label;
    int solved;
    int64_t soc, soc_lb, makespan, makespan_lb;
  } jobs[] = {
      {"A", 1, 12, 10, 6, 5}, {"A", 1, 15, 10, 5, 5}, {"A", 0, -1, 10, -1, 5},
      {"B", 1, 21, 20, 9, 8}, {"B", -1, 0, 0, 0, 0},
  };
  for (int i = 0; i < 5; i++) {
    mapf_result res = result_of(jobs[i].solved < 0   ? MAPF_STATUS_ERROR
                                : jobs[i].solved ? MAPF_STATUS_OK
                                                 : MAPF_STATUS_LIMIT,
                                jobs[i].solved > 0 ? 1.0 : 0.5);
    res.solved = jobs[i].solved > 0;
    res.soc = jobs[i].soc;
    res.soc_lb = jobs[i].soc_lb;
    res.makespan = jobs[i].makespan;
    res.makespan_lb = jobs[i].makespan_lb;
    farm_record rec = {.map = "m", .generator = "random", .agents = 2, .instance = i,
                       .algorithm = "algo", .label = jobs[i].label, .params = "{}",
                       .plan_index = i};
    put_job(st, 0, rec, &res, "ratio job %d", i);
  }
  expect_report(st, "soc-ratio", FARM_FORMAT_CSV, 0,
                "Map,A,B,Overall\nm,1.35,1.05,1.25\nOverall,1.35,1.05,1.25\n");
  expect_report(st, "makespan-ratio", FARM_FORMAT_CSV, 0,
                "Map,A,B,Overall\nm,1.1,1.125,1.1083333333333334\n"
                "Overall,1.1,1.125,1.1083333333333334\n");
  farm_store_close(st);
}

/* Every report's name, comma-separated, in the order of farm_report_names. */
static void report_list(char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int32_t i = 0; farm_report_names[i]; i++)
    len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", farm_report_names[i]);
}

Test(report, unknown_name_lists_reports_and_suggests_the_nearest) {
  farm_store *st = make_db(paper_rows, PAPER_N);
  char *text = NULL, list[1024], want[1200];
  mapf_diag err = {0};
  report_list(list, sizeof list);
  cr_expect(strncmp(list, "completion-rate, completion-time, travel-distance, ", 51) == 0, "%s",
            list);
  cr_expect_eq(report_str(st, "completion-rat", FARM_FORMAT_TEXT, 0, &text, &err),
               -1);
  snprintf(want, sizeof want,
           "unknown report \"completion-rat\"; did you mean \"completion-rate\"? Reports: %s",
           list);
  cr_expect_str_eq(err.msg, want);
  free(text);
  cr_expect_eq(report_str(st, "travle-distance", FARM_FORMAT_TEXT, 0, &text, &err),
               -1);
  cr_expect(strstr(err.msg, "did you mean \"travel-distance\"?") != NULL, "got: %s", err.msg);
  free(text);
  cr_expect_eq(report_str(st, "speed", FARM_FORMAT_TEXT, 0, &text, &err), -1);
  snprintf(want, sizeof want, "unknown report \"speed\"; reports: %s", list);
  cr_expect_str_eq(err.msg, want);
  free(text);
  farm_store_close(st);
}

Test(report, names_list_is_null_terminated) {
  int n = 0;
  while (farm_report_names[n]) n++;
  cr_expect_geq(n, 9);
  cr_expect_str_eq(farm_report_names[0], "completion-rate");
  cr_expect_str_eq(farm_report_names[n - 1], "problem-types");
}

/* Labels and maps come in the order of the plan that first wrote them, then of the plan's
 * positions: a second plan run into a database (WHCA* after the paper's algorithms) adds
 * columns at the end even though its plan positions are smaller, and a later run of the first
 * plan (a resumed run, another shard) ranks with that plan. */
Test(report, a_later_plans_labels_come_after_the_first_plans) {
  mapf_diag err = {0};
  farm_store *st = make_db(paper_rows, 0);
  const char *hashes[] = {"aaaa", "bbbb", "aaaa"}; /* runs 1, 2, 3: plan A, plan B, plan A */
  for (int i = 0; i < 3; i++) {
    farm_run_info info = {"p", "p.yaml", "", hashes[i], 1, "1/1", 3, 3};
    int64_t id = 0;
    cr_assert_eq(farm_store_run_begin(st, &info, &id, &err), 0, "%s", err.msg);
    cr_assert_eq(id, i + 1);
  }
  static const struct {
    int64_t run;
    int64_t index;
    const char *label;
    double rate;
  } jobs[] = {{2, 0, "WHCA*", 1.0}, {3, 1, "FAR", 0.25}, {1, 7, "BMAA*", 0.5}};
  for (int32_t i = 0; i < 3; i++) {
    mapf_result res = result_of(MAPF_STATUS_LIMIT, jobs[i].rate);
    farm_record rec = {.map = "m", .generator = "random", .agents = 10, .instance = 0,
                       .algorithm = "a", .label = jobs[i].label, .params = "{}",
                       .plan_index = jobs[i].index};
    put_job(st, jobs[i].run, rec, &res, "run job %d", (int)i);
  }
  /* Plan A (runs 1 and 3): FAR at position 1, BMAA* at 7; then plan B's WHCA*. */
  expect_report(st, "completion-rate", FARM_FORMAT_CSV, 0,
                "Map,FAR,BMAA*,WHCA*,Overall\n"
                "m,25,50,100,58.333333333333336\n"
                "Overall,25,50,100,58.333333333333336\n");
  farm_store_close(st);
}

/* completion-seconds: Table II's own unit, three decimals (runs here take milliseconds). */
Test(report, completion_seconds_has_three_decimals) {
  farm_store *st = make_db(paper_rows, 0);
  const double secs[] = {0.0625, 0.125, 2.0};
  for (int32_t i = 0; i < 3; i++) {
    mapf_result res = result_of(MAPF_STATUS_OK, 1.0);
    res.mean_completion_seconds_capped = secs[i];
    farm_record rec = {.map = "m", .generator = "random", .agents = 10, .instance = i,
                       .algorithm = "a", .label = i < 2 ? "A" : "B", .params = "{}",
                       .plan_index = i};
    put_job(st, 0, rec, &res, "seconds job %d", (int)i);
  }
  /* A: (0.0625 + 0.125) / 2 = 0.09375 -> 0.094; Overall 2.1875 / 3 = 0.729; CSV keeps every
   * digit. */
  expect_report(st, "completion-seconds", FARM_FORMAT_MD, 0,
                "| Map | A | B | Overall |\n"
                "| :--- | ---: | ---: | ---: |\n"
                "| m | 0.094 (2) | 2.000 (1) | 0.729 (3) |\n"
                "| Overall | 0.094 (2) | 2.000 (1) | 0.729 (3) |\n"
                "\n"
                "Cells average unequal numbers of jobs (1 to 2): each cell's count is in "
                "parentheses\n");
  expect_report(st, "completion-seconds", FARM_FORMAT_CSV, 0,
                "Map,A,B,Overall\n"
                "m,0.09375,2,0.7291666666666666\n"
                "Overall,0.09375,2,0.7291666666666666\n");
  farm_store_close(st);
}

/* A parameter dimension prints sqrt(2) as a plan writes it, not as 1.4142135623731, and still
 * sorts it by value (between 1.2 and 2). */
Test(report, a_parameter_of_sqrt2_prints_as_the_plan_writes_it) {
  farm_store *st = make_db(paper_rows, 0);
  put_param_job(st, 0, 100, "v2", "{\"vision\":2}", 0.5);
  put_param_job(st, 1, 100, "vs", "{\"vision\":1.4142135623730951}", 1.0);
  put_param_job(st, 2, 100, "v1.2", "{\"vision\":1.2}", 0.25);
  expect_dims(st, "param:vision", "agents", NULL,
              "vision,100,Overall\n"
              "1.2,25,25\n"
              "sqrt(2),100,100\n"
              "2,50,50\n"
              "Overall,58.333333333333336,58.333333333333336\n");
  farm_store_close(st);
}
