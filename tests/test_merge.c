/* test_merge.c: `mapfarm merge` end to end (farm/merge.c): shards merged equal one run,
 * merging is idempotent, conflicts are reported and keep OUT's rows, bad input and failed
 * merges leave OUT as it was. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "columns.h"
#include "merge.h"
#include "store.h"
#include "testutil.h"

#ifndef MAPFARM_BINARY
#error "MAPFARM_BINARY must name the mapfarm executable"
#endif

TEST_TMPDIR("merge");
TestSuite(merge, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 300);

/* `mapfarm ARGS` run in tmpdir, so file names are relative to it (testutil.h). */
#define mapfarm(out, err, ...) test_mapfarm(tmpdir, tmpdir, out, err, __VA_ARGS__)

static void in_tmp(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* testutil.h's database helpers on tmpdir/name. */
static void exec_sql(const char *name, const char *sql) {
  char path[512];
  in_tmp(path, sizeof path, name);
  test_db_exec(path, sql);
}

static int64_t query_int(const char *name, const char *sql) {
  char path[512];
  in_tmp(path, sizeof path, name);
  return test_db_int(path, sql);
}

static char *query_text(const char *name, const char *sql) {
  char path[512];
  in_tmp(path, sizeof path, name);
  return test_db_rows(path, sql);
}

static int exists(const char *name) {
  char path[512];
  in_tmp(path, sizeof path, name);
  return access(path, F_OK) == 0;
}

static const char *small_plan(void) { return MAPFARM_SOURCE_DIR "/tests/data/cli/small.yaml"; }

/* small.yaml (40 jobs) as one run into one.db and as shards 1/3, 2/3, 3/3 into s1.db .. s3.db. */
static void run_single_and_shards(void) {
  char *err;
  int rc = mapfarm(NULL, &err, "run '%s' --db one.db --threads 2", small_plan());
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  free(err);
  int64_t sum = 0;
  for (int i = 1; i <= 3; i++) {
    rc = mapfarm(NULL, &err, "run '%s' --db s%d.db --shard %d/3 --threads 2", small_plan(), i,
                 i);
    cr_assert_eq(rc, 0, "shard %d: exit %d: %s", i, rc, err);
    free(err);
    char db[16];
    snprintf(db, sizeof db, "s%d.db", i);
    int64_t n = query_int(db, "SELECT count(*) FROM results");
    cr_assert_gt(n, 0, "shard %d is empty: the split by key is lopsided", i);
    cr_assert_lt(n, 40);
    sum += n;
  }
  cr_assert_eq(sum, 40, "the shards must partition the plan");
}

/* Every column of results that does not depend on the clock. */
static const char result_cols[] =
    "SELECT job_key, map, map_hash, generator, agents, instance, algorithm, label, params, seed, "
    "plan_index, status, limit_hit, message, completion_rate, completed, mean_completion_steps, "
    "mean_completion_steps_capped, mean_travel_distance, steps, expansions, failed_moves, "
    "pushes, searches, deadlocks_broken FROM results ORDER BY job_key";

/* Agent rows by their job's key (results.id is local to a file; the join gives the key). */
static const char agent_cols[] =
    "SELECT r.job_key, a.agent, a.start_x, a.start_y, a.goal_x, a.goal_y, a.final_x, a.final_y, "
    "a.reached, a.completion_step, a.travel_distance, a.expansions, a.failed_moves, a.pushed, "
    "a.searches FROM agent_results AS a JOIN results AS r ON r.id = a.result_id "
    "ORDER BY r.job_key, a.agent";

static const char counts[] =
    "SELECT (SELECT count(*) FROM results) || '|' || (SELECT count(*) FROM agent_results) || "
    "'|' || (SELECT count(*) FROM runs)";

Test(merge, three_shards_merge_into_the_results_of_one_run) {
  run_single_and_shards();
  char *out, *err;
  int rc = mapfarm(&out, &err, "merge m.db s1.db s2.db s3.db");
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  cr_assert(strstr(out, "m.db (created): 40 results added") != NULL, "%s", out);
  cr_assert(strstr(out, "0 conflicts") != NULL, "%s", out);
  cr_assert(strstr(out, "s1.db: ") != NULL && strstr(out, "s3.db: ") != NULL, "%s", out);
  free(out);
  free(err);

  char *a = query_text("one.db", result_cols), *b = query_text("m.db", result_cols);
  cr_assert_str_eq(a, b, "merged results differ from the single run");
  free(a);
  free(b);
  a = query_text("one.db", agent_cols);
  b = query_text("m.db", agent_cols);
  cr_assert_str_eq(a, b, "merged agent rows differ from the single run");
  free(a);
  free(b);

  /* Three runs with their provenance; every result points at one of them. */
  cr_assert_eq(query_int("m.db", "SELECT count(*) FROM runs"), 3);
  a = query_text("m.db", "SELECT shard, status, plan_name FROM runs ORDER BY shard");
  cr_assert_str_eq(a, "1/3|done|cli-small\n2/3|done|cli-small\n3/3|done|cli-small\n");
  free(a);
  cr_assert_eq(query_int("m.db", "SELECT count(*) FROM runs WHERE merged_from LIKE '%/s_.db'"),
               3);
  cr_assert_eq(query_int("m.db", "SELECT count(*) FROM results WHERE run_id IS NULL OR run_id "
                                 "NOT IN (SELECT run_id FROM runs)"),
               0);
  /* Each shard's rows point at that shard's run. */
  cr_assert_eq(query_int("m.db", "SELECT count(*) FROM results r JOIN runs u USING (run_id) "
                                 "WHERE u.jobs_total IS NULL"),
               0);
  cr_assert_eq(query_int("m.db", "SELECT sum(n) FROM (SELECT count(*) AS n FROM results r JOIN "
                                 "runs u USING (run_id) GROUP BY u.run_id HAVING n = "
                                 "max(u.n_ok + u.n_limit + u.n_error))"),
               40);
  /* The application id and schema version make it a mapfarm database. */
  cr_assert_eq(query_int("m.db", "PRAGMA application_id"), 0x6d617066);
  cr_assert_eq(query_int("m.db", "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  /* Every agent row belongs to a results row of m.db (their ids were renumbered). */
  cr_assert_eq(query_int("m.db", "SELECT count(*) FROM agent_results AS a WHERE NOT EXISTS "
                                 "(SELECT 1 FROM results AS r WHERE r.id = a.result_id)"),
               0);
  /* The report reads it like any other. */
  char *rep1, *rep2;
  cr_assert_eq(mapfarm(&rep1, NULL, "report --db one.db completion-rate --format csv"), 0);
  cr_assert_eq(mapfarm(&rep2, NULL, "report --db m.db completion-rate --format csv"), 0);
  cr_assert_str_eq(rep1, rep2);
  free(rep1);
  free(rep2);
}

Test(merge, merging_again_adds_nothing) {
  run_single_and_shards();
  char *out, *err;
  cr_assert_eq(mapfarm(NULL, NULL, "merge m.db s1.db s2.db s3.db"), 0);
  char *before = query_text("m.db", counts);
  cr_assert_str_eq(before, "40|500|3\n");
  /* The same inputs again, in another order, one of them twice. */
  int rc = mapfarm(&out, &err, "merge m.db s3.db s1.db s2.db s1.db");
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  cr_assert(strstr(out, "m.db: 0 results added (0 agent rows), 53 already present, 0 "
                        "conflicts; 0 runs added from 4 databases") != NULL,
            "%s", out);
  char *after = query_text("m.db", counts);
  cr_assert_str_eq(before, after);
  free(out);
  free(err);
  free(after);
  /* A merged database is an input like any other: merging it into a copy of one shard adds the
   * other two shards, and into the merged one adds nothing. */
  cr_assert_eq(mapfarm(NULL, &err, "merge s1.db m.db"), 0, "%s", err);
  free(err);
  after = query_text("s1.db", counts);
  cr_assert_str_eq(before, after);
  free(after);
  cr_assert_eq(mapfarm(&out, NULL, "merge m.db s1.db"), 0);
  cr_assert(strstr(out, "m.db: 0 results added") != NULL, "%s", out);
  free(out);
  after = query_text("m.db", counts);
  cr_assert_str_eq(before, after);
  free(after);
  /* The single run computed the same jobs: all present, no conflict; its run is new. */
  cr_assert_eq(mapfarm(&out, &err, "merge m.db one.db"), 0, "%s", err);
  cr_assert(strstr(out, "one.db: 0 results added (0 agent rows), 40 already present, 0 "
                        "conflicts; 1 run added") != NULL,
            "%s", out);
  free(out);
  free(err);
  free(before);
}

Test(merge, a_conflict_is_reported_with_exit_1_and_keeps_the_output_row) {
  run_single_and_shards();
  cr_assert_eq(mapfarm(NULL, NULL, "merge m.db s1.db s2.db"), 0);
  char *key = query_text("s2.db", "SELECT min(job_key) FROM results");
  key[strcspn(key, "\n")] = '\0';
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT steps FROM results WHERE job_key = '%s'", key);
  int64_t kept = query_int("m.db", sql);
  /* The same job with a different result, in a copy of shard 2. */
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cp '%s/s2.db' '%s/s2x.db'", tmpdir, tmpdir);
  cr_assert_eq(system(cmd), 0);
  snprintf(sql, sizeof sql, "UPDATE results SET steps = steps + 1 WHERE job_key = '%s'", key);
  exec_sql("s2x.db", sql);
  char *out, *err;
  int rc = mapfarm(&out, &err, "merge m.db s2x.db s3.db");
  cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "1 conflict") != NULL, "%s", err);
  cr_assert(strstr(err, key) != NULL, "the conflicting key is not named:\n%s", err);
  cr_assert(strstr(err, "steps") != NULL, "the differing column is not named:\n%s", err);
  cr_assert(strstr(out, "s2x.db: 0 results added (0 agent rows), 12 already present, 1 "
                        "conflicts") != NULL,
            "%s", out);
  /* OUT kept its row; the other input's rows were merged all the same. */
  snprintf(sql, sizeof sql, "SELECT steps FROM results WHERE job_key = '%s'", key);
  cr_assert_eq(query_int("m.db", sql), kept);
  cr_assert_eq(query_int("m.db", "SELECT count(*) FROM results"), 40);
  free(out);
  free(err);
  /* Reported again on every merge, still exit 1. */
  cr_assert_eq(mapfarm(NULL, &err, "merge m.db s2x.db"), 1);
  cr_assert(strstr(err, "1 conflict") != NULL, "%s", err);
  free(err);
  free(key);
}

/* Copies tmpdir/from to tmpdir/to and renumbers its results ids in reverse (agent rows
 * follow), so that the order a merge reads it in (id order) is not job key order. */
static void copy_reversed(const char *from, const char *to) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cp '%s/%s' '%s/%s'", tmpdir, from, tmpdir, to);
  cr_assert_eq(system(cmd), 0);
  exec_sql(to, "UPDATE results SET id = 100000 - id; "
               "UPDATE agent_results SET result_id = 100000 - result_id");
}

Test(merge, shown_conflicts_are_in_input_order_then_the_smallest_keys) {
  run_single_and_shards();
  cr_assert_eq(mapfarm(NULL, NULL, "merge m.db one.db"), 0);
  /* Input a: the two largest keys of shard 3 differ; input b: every job of the plan. */
  copy_reversed("s3.db", "a.db");
  exec_sql("a.db", "UPDATE results SET steps = steps + 1 WHERE job_key IN (SELECT job_key "
                   "FROM results ORDER BY job_key DESC LIMIT 2)");
  copy_reversed("one.db", "b.db");
  exec_sql("b.db", "UPDATE results SET steps = steps + 1");
  char *want_a = query_text("a.db", "SELECT job_key FROM (SELECT job_key FROM results ORDER BY "
                                    "job_key DESC LIMIT 2) ORDER BY job_key");
  char *want_b = query_text("b.db", "SELECT job_key FROM results ORDER BY job_key LIMIT 8");
  char *out, *err;
  int rc = mapfarm(&out, &err, "merge m.db a.db b.db");
  cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "42 conflicts") != NULL, "%s", err);
  cr_assert(strstr(err, "... and 32 more") != NULL, "%s", err);
  /* The keys listed, in the order listed: a's two, then b's eight smallest. */
  size_t len = 0;
  char *got = NULL;
  FILE *f = open_memstream(&got, &len);
  int lines = 0;
  for (const char *p = strstr(err, "  job "); p; p = strstr(p + 1, "  job ")) {
    fprintf(f, "%.32s %s\n", p + 6, strstr(p, "a.db has") && strstr(p, "a.db has") <
                                          strchr(p, '\n') ? "a" : "b");
    lines++;
  }
  fclose(f);
  cr_assert_eq(lines, 10, "%s", err);
  size_t wlen = 0;
  char *want = NULL;
  f = open_memstream(&want, &wlen);
  for (char *k = strtok(want_a, "\n"); k; k = strtok(NULL, "\n")) fprintf(f, "%s a\n", k);
  for (char *k = strtok(want_b, "\n"); k; k = strtok(NULL, "\n")) fprintf(f, "%s b\n", k);
  fclose(f);
  cr_assert_str_eq(got, want, "listed:\n%s", err);
  free(got);
  free(want);
  free(want_a);
  free(want_b);
  free(out);
  free(err);
}

/* one.db: one finished job, written by a run, with every column of results set (no NULL). */
static void write_one_job(void) {
  char path[512];
  mapf_diag err = {0};
  in_tmp(path, sizeof path, "one.db");
  mapf_grid *g = test_open_grid(4, 3, "tiny.map");
  mapf_agent_result ag[2] = {
      {.start = 0, .goal = 2, .final = 2, .reached = 1, .completion_step = 3,
       .completion_seconds = 0.5, .travel_distance = 2, .optimal_distance = 2},
      {.start = 5, .goal = 7, .final = 6, .completion_step = -1, .completion_seconds = -1,
       .travel_distance = 1, .optimal_distance = 2}};
  mapf_result res = {.status = MAPF_STATUS_LIMIT, .limit = MAPF_LIMIT_STEPS, .agents = 2,
                     .completed = 1, .completion_rate = 0.5, .mean_completion_steps = 3,
                     .mean_completion_steps_capped = 51.5, .mean_completion_seconds = 0.5,
                     .mean_completion_seconds_capped = 1.25, .mean_travel_distance = 1.5,
                     .steps = 100, .wall_seconds = 2, .expansions = 40,
                     .planning_seconds = 1, .max_step_planning_seconds = 0.25,
                     .failed_moves = 6, .pushes = 1, .searches = 9, .deadlocks_broken = 2,
                     .loops = 2, .loops_done = 1, .failed_moves_per_loop = 1.5,
                     .suboptimality = 1.25, .coherence = 0.75, .retasks = 3,
                     .mean_retask_expansions = 7.5, .max_event_step_seconds = 0.01,
                     .tasks_done = 4, .throughput = 0.04, .agent = ag};
  snprintf(res.message, sizeof res.message, "a note");
  farm_record rec = {.job_key = "0123456789abcdef0123456789abcdef", .map = "tiny.map",
                     .map_hash = g->hash, .generator = "patrol", .agents = 2, .instance = 3,
                     .algorithm = "dm", .label = "DM", .params = "{\"alpha\":0.8}",
                     .seed = 0x1234, .limits = {100, 30, 5000},
                     .execution = MAPF_EXEC_SINGLE_PASS, .plan_index = 4, .grid = g,
                     .events = "retask every:10,fraction:0.5,rounds:3", .lifelong = 1,
                     .res = &res};
  farm_store *st = NULL;
  cr_assert_eq(farm_store_open(path, FARM_STORE_CREATE, &st, &err), 0, "%s", err.msg);
  farm_run_info info = {.plan_name = "p", .threads = 1, .shard = "1/1", .jobs_total = 1};
  int64_t run_id = 0;
  cr_assert_eq(farm_store_run_begin(st, &info, &run_id, &err), 0, "%s", err.msg);
  cr_assert_eq(farm_store_put(st, run_id, &rec, 1, &err), 0, "%s", err.msg);
  farm_store_close(st);
  mapf_grid_free(g);
  char sql[256];
  for (int32_t i = 0; i < farm_ncolumns; i++) {
    snprintf(sql, sizeof sql, "SELECT count(*) FROM results WHERE \"%s\" IS NULL",
             farm_columns[i].name);
    cr_assert_eq(query_int("one.db", sql), 0, "%s is NULL", farm_columns[i].name);
  }
}

/* Merges one.db and a copy of it in which the update sql was made into m.db (fresh); returns
 * the result, and the column of the conflict shown, if any, in column. */
static int merge_changed(const char *sql, char *column, size_t n) {
  char cmd[1200], out[512], in[2][512];
  mapf_diag err = {0};
  snprintf(cmd, sizeof cmd, "cd '%s' && rm -f m.db x.db && cp one.db x.db", tmpdir);
  cr_assert_eq(system(cmd), 0);
  exec_sql("x.db", sql);
  in_tmp(out, sizeof out, "m.db");
  in_tmp(in[0], sizeof in[0], "one.db");
  in_tmp(in[1], sizeof in[1], "x.db");
  const char *inputs[2] = {in[0], in[1]};
  farm_merge_result res;
  int rc = farm_merge(out, inputs, 2, &res, &err);
  cr_assert_geq(rc, 0, "%s: %s", sql, err.msg);
  snprintf(column, n, "%s", res.nshown > 0 ? res.shown[0].column : "");
  cr_assert_eq(res.conflicts, res.nshown);
  farm_merge_result_free(&res);
  return rc;
}

/* Every deterministic column of the table (farm/columns.h): a job that differs in it alone is
 * a conflict naming it; the other columns may differ freely. */
Test(merge, a_difference_in_any_compared_column_is_a_conflict_naming_it) {
  write_one_job();
  char sql[512], column[40];
  for (int32_t i = 0; i < farm_ncolumns; i++) {
    const farm_column *c = &farm_columns[i];
    if (c->src == FARM_COL_ROWID || strcmp(c->name, "job_key") == 0) continue; /* the match */
    /* Another value the schema accepts. */
    if (strcmp(c->type, "TEXT") == 0)
      snprintf(sql, sizeof sql,
               "UPDATE results SET \"%s\" = CASE \"%s\" WHEN 'limit' THEN 'ok' WHEN 'steps' "
               "THEN 'expansions' ELSE \"%s\" || 'x' END",
               c->name, c->name, c->name);
    else
      snprintf(sql, sizeof sql, "UPDATE results SET \"%s\" = \"%s\" + 1", c->name, c->name);
    int rc = merge_changed(sql, column, sizeof column);
    if (c->flags & FARM_COL_COMPARED) {
      cr_expect_eq(rc, FARM_MERGE_CONFLICTS, "%s: no conflict", c->name);
      cr_expect_str_eq(column, c->name);
    } else {
      cr_expect_eq(rc, FARM_MERGE_OK, "%s: a conflict in %s", c->name, column);
    }
  }
  /* NULL in a column newer than the oldest schema is a row of an older file (unknown): no
   * conflict; NULL in a metric of every schema is one. */
  cr_expect_eq(merge_changed("UPDATE results SET coherence = NULL, limit_steps = NULL, "
                             "execution = NULL",
                             column, sizeof column),
               FARM_MERGE_OK, "%s", column);
  cr_expect_eq(merge_changed("UPDATE results SET completion_rate = NULL", column, sizeof column),
               FARM_MERGE_CONFLICTS);
  cr_expect_str_eq(column, "completion_rate");
}

Test(merge, a_text_file_input_exits_2_and_leaves_the_output_byte_for_byte) {
  run_single_and_shards();
  cr_assert_eq(mapfarm(NULL, NULL, "merge m.db s1.db"), 0);
  char notes_path[512];
  in_tmp(notes_path, sizeof notes_path, "notes.db");
  FILE *f = fopen(notes_path, "w");
  cr_assert_not_null(f);
  fputs("these are not results\n", f);
  fclose(f);
  char path[512];
  in_tmp(path, sizeof path, "m.db");
  size_t n0, n1;
  char *before = test_slurp(path, &n0);
  char *err;
  int rc = mapfarm(NULL, &err, "merge m.db s2.db notes.db");
  cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "mapfarm: error: notes.db: not a SQLite database") != NULL, "%s", err);
  free(err);
  char *after = test_slurp(path, &n1);
  cr_assert_eq(n0, n1);
  cr_assert(memcmp(before, after, n0) == 0, "m.db changed");
  free(after);
  /* The text file is left alone too, and a missing OUT is not created. */
  char *notes = test_slurp_text(notes_path);
  cr_assert_str_eq(notes, "these are not results\n");
  free(notes);
  cr_assert_eq(mapfarm(NULL, NULL, "merge new.db s1.db notes.db"), 2);
  cr_assert(!exists("new.db") && !exists("new.db-wal") && !exists("new.db-shm"));
  /* Another application's SQLite database and a missing file are refused the same way. */
  exec_sql("other.db", "CREATE TABLE birds (name TEXT)");
  cr_assert_eq(mapfarm(NULL, &err, "merge m.db other.db"), 2);
  cr_assert(strstr(err, "not a mapfarm database") != NULL, "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "merge m.db missing.db"), 2);
  cr_assert(strstr(err, "missing.db: no such database file") != NULL, "%s", err);
  free(err);
  after = test_slurp(path, &n1);
  cr_assert(n0 == n1 && memcmp(before, after, n0) == 0, "m.db changed");
  free(after);
  free(before);
}

Test(merge, a_failing_merge_rolls_back_every_input) {
  run_single_and_shards();
  cr_assert_eq(mapfarm(NULL, NULL, "merge m.db s1.db"), 0);
  /* Shard 3 holds a row that the schema refuses (written with CHECK constraints off), so the
   * merge fails after shard 2 was copied: nothing of it may stay. */
  exec_sql("s3.db", "PRAGMA ignore_check_constraints = ON; UPDATE results SET status = 'bogus' "
                    "WHERE job_key = (SELECT max(job_key) FROM results)");
  char path[512];
  in_tmp(path, sizeof path, "m.db");
  size_t n0, n1;
  char *before = test_slurp(path, &n0);
  char *out, *err;
  int rc = mapfarm(&out, &err, "merge m.db s2.db s3.db");
  cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "s3.db") != NULL && strstr(err, "CHECK") != NULL, "%s", err);
  cr_assert(strstr(err, "nothing was merged") != NULL, "%s", err);
  cr_assert_str_eq(out, "");
  cr_assert_eq(query_int("m.db", "SELECT count(*) FROM results"), 13);
  cr_assert_eq(query_int("m.db", "SELECT count(*) FROM runs"), 1);
  char *after = test_slurp(path, &n1);
  cr_assert(n0 == n1 && memcmp(before, after, n0) == 0, "m.db changed");
  free(before);
  free(after);
  free(out);
  free(err);
  /* Into a new file: the file is not left behind. */
  cr_assert_eq(mapfarm(NULL, NULL, "merge fresh.db s2.db s3.db"), 2);
  cr_assert(!exists("fresh.db") && !exists("fresh.db-wal") && !exists("fresh.db-shm"));
}

Test(merge, bad_command_lines_are_usage_errors) {
  run_single_and_shards();
  char *err;
  cr_assert_eq(mapfarm(NULL, &err, "merge m.db"), 2);
  cr_assert(strstr(err, "mapfarm merge: error: expected an output database and at least one "
                        "input") != NULL,
            "%s", err);
  cr_assert(strstr(err, "usage:") != NULL, "%s", err);
  free(err);
  cr_assert(!exists("m.db"), "merge without inputs created its output");
  cr_assert_eq(mapfarm(NULL, &err, "merge"), 2);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "merge --into m.db s1.db"), 2);
  cr_assert(strstr(err, "mapfarm merge: error: unknown option \"--into\"") != NULL, "%s", err);
  free(err);
  /* An input that is the output itself. */
  cr_assert_eq(mapfarm(NULL, &err, "merge s1.db s2.db ./s1.db"), 2);
  cr_assert(strstr(err, "is the output database") != NULL, "%s", err);
  free(err);
  cr_assert_eq(query_int("s1.db", "SELECT count(*) FROM results"),
               query_int("s1.db", "SELECT n_ok + n_limit + n_error FROM runs"));
}
