/* test_columns.c: the table of result columns (farm/columns.c) agrees with schema/schema.sql,
 * keeps merge's promise of what is not compared, names the metric reports, and prints solve's
 * lines. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "report.h"
#include "store.h"
#include "testutil.h"

TEST_TMPDIR("columns");
TestSuite(columns, .init = make_tmpdir, .fini = remove_tmpdir);

/* The table and PRAGMA table_info(results) of a fresh database: the same names in the same
 * order, declared types and NOT NULL; id is the primary key. */
Test(columns, the_table_is_the_schema_of_results) {
  char path[512];
  snprintf(path, sizeof path, "%s/fresh.db", tmpdir);
  farm_store *st = NULL;
  mapf_diag err = {0};
  cr_assert_eq(farm_store_open(path, FARM_STORE_CREATE, &st, &err), 0, "%s", err.msg);
  sqlite3_stmt *s = NULL;
  cr_assert_eq(sqlite3_prepare_v2(farm_store_db(st),
                                  "SELECT name, type, \"notnull\", pk FROM "
                                  "pragma_table_info('results') ORDER BY cid",
                                  -1, &s, NULL),
               SQLITE_OK);
  int32_t i = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(s, 0);
    cr_assert_lt(i, farm_ncolumns, "results has a column the table lacks: %s", name);
    const farm_column *c = &farm_columns[i];
    cr_expect_str_eq(c->name, name, "column %d", i);
    cr_expect_str_eq(c->type, (const char *)sqlite3_column_text(s, 1), "%s: type", name);
    cr_expect_eq((c->flags & FARM_COL_NOT_NULL) != 0, sqlite3_column_int(s, 2) != 0,
                 "%s: NOT NULL", name);
    cr_expect_eq(c->src == FARM_COL_ROWID, sqlite3_column_int(s, 3) != 0, "%s: primary key",
                 name);
    i++;
  }
  sqlite3_finalize(s);
  cr_expect_eq(i, farm_ncolumns, "the table has %d columns, results %d", farm_ncolumns, i);
  farm_store_close(st);
}

/* Every row is complete, and a NOT NULL column is never made NULL for an error row. */
Test(columns, every_row_says_where_its_value_is) {
  for (int32_t i = 0; i < farm_ncolumns; i++) {
    const farm_column *c = &farm_columns[i];
    cr_expect_eq(farm_column_find(c->name), c, "%s is not found by its name", c->name);
    if (c->src == FARM_COL_RECORD || c->src == FARM_COL_RESULT)
      cr_expect_neq(c->ctype, FARM_CT_NONE, "%s: no C type", c->name);
    if (c->src == FARM_COL_COMPUTED) cr_expect_not_null(c->get, "%s: no getter", c->name);
    if (c->ctype == FARM_CT_CHARS) cr_expect_gt(c->size, 0, "%s: no size", c->name);
    cr_expect(!((c->flags & FARM_COL_NOT_NULL) &&
                (c->flags & (FARM_COL_NULL_ON_ERROR | FARM_COL_NULL_UNKNOWN))),
              "%s: NOT NULL, yet sometimes NULL", c->name);
  }
  cr_expect_null(farm_column_find("no_such_column"));
}

/* What merge does not compare (README.md, "Running one plan on many machines"): what is local
 * to a file, what a plan may rename, the message, when it was written, and the wall-clock
 * metrics. Everything else is compared. */
Test(columns, merge_compares_every_column_but_the_local_renamable_and_timed_ones) {
  static const char *const not_compared[] = {
      "id",           "job_key",        "run_id",
      "map",          "label",          "plan_index",
      "message",      "finished_at",    "mean_completion_seconds",
      "mean_completion_seconds_capped", "wall_seconds",
      "planning_seconds",               "max_step_planning_seconds",
      "setup_seconds",                  "solver_seconds",
      "max_event_step_seconds"};
  int32_t n = (int32_t)(sizeof not_compared / sizeof not_compared[0]);
  int32_t compared = 0;
  for (int32_t i = 0; i < farm_ncolumns; i++) {
    const farm_column *c = &farm_columns[i];
    int listed = 0;
    for (int32_t k = 0; k < n; k++) listed |= strcmp(not_compared[k], c->name) == 0;
    cr_expect_eq((c->flags & FARM_COL_COMPARED) == 0, listed, "%s: %s", c->name,
                 listed ? "compared" : "not compared");
    compared += (c->flags & FARM_COL_COMPARED) != 0;
  }
  cr_expect_eq(compared, farm_ncolumns - n);
}

/* Each metric report is a column's row, and `mapfarm report` lists it; every report of the list
 * but the portfolio tables is a column's. */
Test(columns, the_metric_reports_are_rows_of_the_table) {
  int32_t reports = 0;
  for (int32_t i = 0; i < farm_ncolumns; i++) {
    const farm_column *c = &farm_columns[i];
    if (!c->report) continue;
    reports++;
    cr_expect_not_null(c->title, "%s", c->name);
    cr_expect_gt(c->scale, 0.0, "%s", c->name);
    cr_expect_eq(farm_column_report(c->report), c, "report %s is not unique", c->report);
    int listed = 0;
    for (int32_t k = 0; farm_report_names[k]; k++)
      listed |= strcmp(farm_report_names[k], c->report) == 0;
    cr_expect(listed, "report %s is not in farm_report_names", c->report);
  }
  int32_t others = 0, listed = 0;
  for (int32_t k = 0; farm_report_names[k]; k++, listed++)
    if (!farm_column_report(farm_report_names[k])) others++;
  cr_expect_eq(others, 2, "portfolio and problem-types are the reports without a column");
  cr_expect_eq(reports + others, listed, "a name listed twice");
  cr_expect_str_eq(farm_column_report("completion-time")->name, "mean_completion_steps_capped");
  cr_expect_null(farm_column_report("completion_rate"), "a column name is not a report name");
}

/* solve's lines: every shown column in table order, reals with 6 digits, NaN as NULL; the
 * patrol columns only under patrol, coherence only when set. */
Test(columns, solve_prints_name_value_lines_in_table_order) {
  mapf_result res;
  memset(&res, 0, sizeof res);
  res.status = MAPF_STATUS_LIMIT;
  res.limit = MAPF_LIMIT_STEPS;
  res.completed = 3;
  res.completion_rate = 0.75;
  res.mean_completion_steps = 12.125;
  res.mean_completion_steps_capped = 1.0 / 3.0;
  res.mean_completion_seconds = NAN;
  res.mean_travel_distance = 1e-7;
  res.steps = 100;
  res.expansions = 123456789012LL;
  res.suboptimality = NAN;
  res.coherence = NAN;
  res.loops_done = 5;
  res.failed_moves_per_loop = 0.5;
  res.soc = -1; /* not solved: NULL, not shown */
  res.makespan = -1;
  res.mean_completion_work_at_limit = NAN; /* no work budget: not shown */
  res.soc_lb = 20;                          /* known for an unsolved job too: shown */
  res.makespan_lb = 7;
  res.solver_seconds = NAN;                 /* a built-in planner: not shown */
  res.mean_retask_expansions = NAN;         /* no events, no lifelong goals (as sim.c sets) */
  res.max_event_step_seconds = NAN;
  res.throughput = NAN;
  res.mean_change_expansions = NAN;         /* no map changes */
  farm_record rec = {.map = "m.map", .agents = 4, .algorithm = "bmaa", .params = "{}",
                     .label = "never shown", .res = &res};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert_not_null(f);
  farm_columns_print(f, &rec);
  res.loops = 2;
  res.coherence = 0.25;
  res.solved = 1;
  res.soc = 40;
  res.makespan = 0;
  res.mean_completion_work_at_limit = 0.0125;
  res.soc_lb = res.makespan_lb = -1; /* no bound (an error row's): not shown */
  res.solver_seconds = 0.5;
  /* Lifelong goals: their count and throughput shown (retasks only with events). */
  rec.lifelong = 1;
  res.tasks_done = 12;
  res.throughput = 0.12;
  fputs("--\n", f);
  farm_columns_print(f, &rec);
  fclose(f);
  static const char common[] =
      "map: m.map\nagents: 4\nalgorithm: bmaa\nparams: {}\nseed: 0000000000000000\n"
      "status: limit\nlimit_hit: steps\n"
      "completion_rate: 0.75\ncompleted: 3\nmean_completion_steps: 12.125\n"
      "mean_completion_steps_capped: 0.333333\nmean_completion_seconds: NULL\n"
      "mean_completion_seconds_capped: 0\nmean_travel_distance: 1e-07\nsteps: 100\n"
      "wall_seconds: 0\nexpansions: 123456789012\nplanning_seconds: 0\n"
      "max_step_planning_seconds: 0\nfailed_moves: 0\npushes: 0\nsearches: 0\n"
      "deadlocks_broken: 0\nsuboptimality: NULL\n";
  char want[4096];
  snprintf(want, sizeof want,
           "%ssolved: 0\nmean_completion_steps_at_limit: 0\nwork_seconds: 0\nsetup_seconds: 0\n"
           "soc_lb: 20\nmakespan_lb: 7\n"
           "--\n%sloops: 2\n"
           "loops_done: 5\nfailed_moves_per_loop: 0.5\ncoherence: 0.25\nsolved: 1\nsoc: 40\n"
           "makespan: 0\nmean_completion_steps_at_limit: 0\nwork_seconds: 0\n"
           "mean_completion_work_at_limit: 0.0125\nsetup_seconds: 0\nsolver_seconds: 0.5\n"
           "tasks_done: 12\nthroughput: 0.12\n",
           common, common);
  cr_expect_str_eq(buf, want);
  free(buf);
}

/* An error row: its metrics are NULL, its limit_hit is '', its status and message are kept. */
Test(columns, an_error_row_has_null_metrics) {
  mapf_result res;
  memset(&res, 0, sizeof res);
  res.status = MAPF_STATUS_ERROR;
  res.limit = MAPF_LIMIT_STEPS;
  snprintf(res.message, sizeof res.message, "no way");
  farm_record rec = {.res = &res};
  farm_row row = {.rec = &rec, .run_id = 0, .finished_at = "2024-05-01T12:00:00Z"};
  for (int32_t i = 0; i < farm_ncolumns; i++) {
    const farm_column *c = &farm_columns[i];
    if (c->src == FARM_COL_ROWID || c->ctype == FARM_CT_STR) continue; /* NULL pointers here */
    farm_value v;
    farm_column_value(c, &row, &v);
    if (c->flags & FARM_COL_NULL_ON_ERROR)
      cr_expect_eq(v.type, SQLITE_NULL, "%s", c->name);
    else if (c->flags & FARM_COL_NOT_NULL)
      cr_expect_neq(v.type, SQLITE_NULL, "%s", c->name);
  }
  farm_value v;
  farm_column_value(farm_column_find("limit_hit"), &row, &v);
  cr_expect_eq(v.type, SQLITE_TEXT);
  cr_expect_str_eq(v.s, "");
  farm_column_value(farm_column_find("message"), &row, &v);
  cr_expect_eq(v.len, 6);
  cr_expect_eq(strncmp(v.s, "no way", 6), 0);
  farm_column_value(farm_column_find("run_id"), &row, &v);
  cr_expect_eq(v.type, SQLITE_NULL, "run_id 0 is no run");
}
