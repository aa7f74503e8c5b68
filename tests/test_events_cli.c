/* test_events_cli.c: events, map changes and lifelong goals as a user meets them
 * (docs/events.md): plan keys and stored columns, results that depend on neither threads nor
 * shards, replay, events files with their errors at FILE:LINE:COL, `solve --retask | --doors |
 * --events | --lifelong`, and the upgrades of schema 9 and 10 files. The simulator's side is
 * tests/test_events.c and tests/test_mapchange.c. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <string.h>
#include <zlib.h>

#include "store.h"
#include "testutil.h"

#ifndef MAPFARM_BINARY
#error "MAPFARM_BINARY must name the mapfarm executable"
#endif

TEST_TMPDIR("events-cli");
TestSuite(events_cli, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 300);

#define mapfarm(out, err, ...) test_mapfarm(tmpdir, NULL, out, err, __VA_ARGS__)

static void data_path(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/tests/data/cli/%s", MAPFARM_SOURCE_DIR, name);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

/* tests/data/cli/events.yaml (every planner but external; the same instances plain, re-tasked
 * by the generator, re-tasked from a file and lifelong) gives the same rows with 1 thread, 2,
 * and as 3 shards merged; the event columns say what happened; events change neither the
 * starts nor the first goals of the instances, only the keys. */
Test(events_cli, a_plan_with_events_does_not_depend_on_threads_or_shards) {
  char plan[512], db[3][512];
  data_path(plan, sizeof plan, "events.yaml");
  const char *sql[] = {
      "SELECT job_key, events, lifelong, status, limit_hit, completion_rate, steps, expansions, "
      "retasks, mean_retask_expansions, tasks_done, throughput, soc, solved FROM results "
      "ORDER BY job_key",
      "SELECT r.job_key, a.agent, a.goal_x, a.goal_y, a.final_x, a.final_y, a.completion_step, "
      "a.travel_distance, a.tasks_done FROM agent_results a JOIN results r ON r.id = "
      "a.result_id ORDER BY r.job_key, a.agent"};
  test_same_on_threads_and_shards(tmpdir, "events", plan, 3, sql, 2, db);
  const char *d = db[0];
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results"), 64);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE status = 'error'"), 0);
  /* Generated: 3 rounds of round(0.25 x 12) = 3 agents; the file: its 4 events. */
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE events = "
                              "'retask every:15,fraction:0.25,rounds:3' AND retasks = 9"),
               16);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE events = 'file events.ev' "
                              "AND retasks = 4"),
               16);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE events IS NOT NULL AND "
                              "mean_retask_expansions IS NULL"),
               0);
  /* Without events none of their measures; lifelong runs to the step limit, finishing tasks. */
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE events IS NULL AND (retasks "
                              "IS NOT NULL OR mean_retask_expansions IS NOT NULL)"),
               0);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE lifelong = 1 AND steps = 150 "
                              "AND tasks_done > 12 AND abs(throughput - tasks_done / 150.0) < "
                              "1e-12"),
               16);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE lifelong = 0 AND (tasks_done "
                              "IS NOT NULL OR throughput IS NOT NULL)"),
               0);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results r WHERE lifelong = 1 AND tasks_done "
                              "= (SELECT sum(tasks_done) FROM agent_results WHERE result_id = "
                              "r.id)"),
               16);
  /* Re-tasked from the file: agent 7 of every job ends with the goal (1, 22) it was given. */
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM agent_results a JOIN results r ON r.id = "
                              "a.result_id WHERE r.events = 'file events.ev' AND a.agent = 7 AND "
                              "a.goal_x = 1 AND a.goal_y = 22"),
               16);
  /* The same instances in all four scenarios (starts; and goals where nothing re-tasked the
   * agent), under four sets of keys. */
  cr_assert_eq(test_db_int(d, "SELECT count(DISTINCT job_key) FROM results"), 64);
  const char *starts = "SELECT r.instance, r.algorithm, a.agent, a.start_x, a.start_y FROM "
                       "agent_results a JOIN results r ON r.id = a.result_id WHERE %s ORDER BY "
                       "1, 2, 3";
  char q[600];
  snprintf(q, sizeof q, starts, "r.events IS NULL AND r.lifelong = 0");
  char *plain = test_db_rows(d, q);
  const char *others[] = {"r.events LIKE 'retask%'", "r.events LIKE 'file%'", "r.lifelong = 1"};
  for (int i = 0; i < 3; i++) {
    snprintf(q, sizeof q, starts, others[i]);
    char *o = test_db_rows(d, q);
    cr_assert_str_eq(plain, o, "%s", others[i]);
    free(o);
  }
  free(plain);
}

/* `replay` rebuilds an events job and a lifelong job from the stored plan text, events file
 * included, and finds every deterministic column identical. */
Test(events_cli, replay_reproduces_jobs_with_events_and_lifelong_goals) {
  char plan[512], db[512], *out, *err;
  data_path(plan, sizeof plan, "events.yaml");
  snprintf(db, sizeof db, "%s/replay.db", tmpdir);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  char *keys = test_db_rows(db, "SELECT min(job_key) FROM results WHERE events IS NOT NULL OR "
                                "lifelong = 1 GROUP BY events, lifelong, algorithm IN ('pibt', "
                                "'lacam')");
  int n = 0;
  for (char *k = strtok(keys, "\n"); k; k = strtok(NULL, "\n"), n++) {
    cr_assert_eq(mapfarm(&out, &err, "replay %s --db '%s'", k, db), 0, "%s: %s%s", k, out, err);
    cr_expect(strstr(out, "\nidentical to the stored result") != NULL, "%s: %s", k, out);
    free(out);
    free(err);
  }
  free(keys);
  cr_assert_eq(n, 6);
}

/* A bad events file is refused at its own FILE:LINE:COL with exit 2, before any job runs, and
 * an existing database is left exactly as it was. */
Test(events_cli, bad_events_files_name_the_line_and_leave_the_database_alone) {
  char plan[600], events[600], db[512], *out, *err;
  snprintf(plan, sizeof plan, "%s/bad.yaml", tmpdir);
  snprintf(events, sizeof events, "%s/bad.ev", tmpdir);
  snprintf(db, sizeof db, "%s/bad.db", tmpdir);
  /* Cell (22, 22) of this map is blocked (tests/data/cli/events.ev says which are free). */
  write_file(plan, "name: bad\nmaps:\n  - generate: {kind: random, width: 24, height: 24, "
                   "density: 0.1, seed: 3}\nscenarios:\n  - {generator: random, agents: [8, 12], "
                   "events: {file: bad.ev}}\nalgorithms: [{name: bmaa}]\nlimits: {steps: 100}\n");
  /* Agent 3 of the 12-agent instance has its goal at (1, 1): a job error, at the line. */
  write_file(events, "5 retask 0 1 1\n");
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 1, "%s", err);
  free(err);
  char *msg = test_db_rows(db, "SELECT agents, status, message FROM results ORDER BY agents");
  cr_assert_str_eq(msg, "8|ok|\n12|error|bad.ev:1:12: agent 0's new goal (1,1) is agent 3's "
                        "goal at step 5\n");
  free(msg);
  write_file(events, "5 retask 0 21 2\n");
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s' --retry-failed", plan, db), 0, "%s", err);
  free(err);
  size_t len0;
  char *before = test_slurp_file(db, &len0);
  static const struct {
    const char *text, *msg;
  } bad[] = {
      {"5 retask 0 21 2\n# an agent of the larger count only\n9 retask 8 2 2\n",
       "bad.ev:3:10: error: unknown agent 8: the instance has 8 agents (0 to 7)"},
      {"5 retask 0 21 2\n20 retask 1 22 22\n",
       "bad.ev:2:13: error: goal (22,22) is a blocked cell of the map"},
      {"5 retask 0 21 2\n7 retask 1 24 3\n", "bad.ev:2:12: error: goal (24,3) is outside the map"},
      {"101 retask 0 1 1\n", "bad.ev:1:1: error: event at step 101 is past the step limit (100)"},
      {"5 retask 0 1\n", "bad.ev:1:13: error: expected the new goal's y"},
      {"5 block 0 1 1\n", "bad.ev:1:3: error: unknown event \"block\"; expected retask"},
      {"0 retask 0 1 1\n", "bad.ev:1:1: error: expected a step (an integer >= 1)"},
      {"5 retask 0 1 1 7\n", "bad.ev:1:16: error: unexpected text after the event"},
      {"# nothing\n", "bad.yaml:5:57: error: events file \"bad.ev\" has no events"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    write_file(events, bad[i].text);
    cr_assert_eq(mapfarm(&out, &err, "run '%s' --db '%s'", plan, db), 2, "%s", bad[i].text);
    cr_expect(strstr(err, bad[i].msg) != NULL, "expected \"%s\" in: %s", bad[i].msg, err);
    free(out);
    free(err);
    size_t len1;
    char *after = test_slurp_file(db, &len1);
    cr_assert(len0 == len1 && memcmp(before, after, len0) == 0, "the database changed: %s",
              bad[i].text);
    free(after);
  }
  free(before);
  /* The plan's own mistakes about events, at the plan's line and column. */
  write_file(plan, "name: bad\nmaps:\n  - generate: {kind: random, width: 24, height: 24, "
                   "density: 0.1, seed: 3}\nscenarios:\n  - {generator: random, agents: 8, "
                   "lifelong: true, events: {retask: {every: 5, fraction: 0.5, rounds: 2}}}\n"
                   "  - {generator: random, agents: 8, events: {retask: {every: 5, fraction: 0, "
                   "rounds: 2}}}\n  - {generator: random, agents: 8, events: {retask: {every: 5}}}"
                   "\nalgorithms: [{name: bmaa}]\n");
  cr_assert_eq(mapfarm(&out, &err, "expand '%s'", plan), 2);
  cr_expect(strstr(err, "bad.yaml:5:61: error: retask: an agent's goals come from its task "
                        "sequence under lifelong; not with retask") != NULL,
            "%s", err);
  cr_expect(strstr(err, "bad.yaml:6:74: error: fraction: expected a share of the agents in "
                        "(0, 1], found 0") != NULL,
            "%s", err);
  cr_expect(strstr(err, "bad.yaml:7:53: error: missing required key \"fraction\" in retask") !=
                NULL,
            "%s", err);
  free(out);
  free(err);
}

/* `solve --retask`, `--events` and `--lifelong` make the instance a plan's scenario makes, and
 * print the measures of such runs; a bad events file is exit 2 at its line and column. */
Test(events_cli, solve_takes_retask_events_and_lifelong_options) {
  char events[600], map[600], *out, *err;
  /* A 16 x 16 room with a wall across it, open at both ends: cell (3, 8) is blocked. */
  snprintf(map, sizeof map, "%s/room.map", tmpdir);
  char text[400] = "type octile\nheight 16\nwidth 16\nmap\n";
  for (int y = 0; y < 16; y++)
    strcat(text, y == 8 ? "..@@@@@@@@@@@@..\n" : "................\n");
  write_file(map, text);
  char inst[800];
  snprintf(inst, sizeof inst, "solve --map '%s' --generator random --agents 20 --seed 3 --algo "
                              "pibt --steps 300", map);
  const char *maps = tmpdir;
  cr_assert_eq(mapfarm(&out, &err, "%s --maps '%s' --retask 20,0.25,3", inst, maps), 0, "%s", err);
  cr_expect_eq(test_metric(out, "retasks"), 15.0, "%s", out);
  cr_expect(strstr(out, "mean_retask_expansions: ") != NULL, "%s", out);
  cr_expect(strstr(out, "tasks_done") == NULL, "%s", out);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "%s --maps '%s' --lifelong", inst, maps), 0, "%s", err);
  cr_expect_eq(test_metric(out, "steps"), 300.0, "%s", out);
  cr_expect_gt(test_metric(out, "tasks_done"), 20.0, "%s", out);
  cr_expect_float_eq(test_metric(out, "throughput"), test_metric(out, "tasks_done") / 300.0,
                     1e-5, "%s", out);
  cr_expect(strstr(out, "retasks") == NULL, "%s", out);
  free(out);
  free(err);
  snprintf(events, sizeof events, "%s/s.ev", tmpdir);
  write_file(events, "10 retask 2 0 0\n12 retask 5 15 15\n");
  cr_assert_eq(mapfarm(&out, &err, "%s --maps '%s' --events '%s'", inst, maps, events), 0, "%s",
               err);
  cr_expect_eq(test_metric(out, "retasks"), 2.0, "%s", out);
  free(out);
  free(err);
  write_file(events, "10 retask 2 0 0\n12 retask 5 3 8\n");
  cr_assert_eq(mapfarm(&out, &err, "%s --maps '%s' --events '%s'", inst, maps, events), 2);
  cr_expect(strstr(err, "s.ev:2:13: error: goal (3,8) is a blocked cell of the map") != NULL,
            "%s", err);
  free(out);
  free(err);
  write_file(events, "10 retask 2 0 0\n12 retask 25 1 0\n");
  cr_assert_eq(mapfarm(&out, &err, "%s --maps '%s' --events '%s'", inst, maps, events), 2);
  cr_expect(strstr(err, "s.ev:2:11: error: unknown agent 25: the instance has 20 agents") != NULL,
            "%s", err);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "%s --maps '%s' --retask 20,1.5,3", inst, maps), 2);
  cr_expect(strstr(err, "--retask: expected EVERY >= 1, 0 < FRACTION <= 1") != NULL, "%s", err);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "%s --maps '%s' --retask 20,0.5,3 --lifelong", inst, maps), 2);
  cr_expect(strstr(err, "--lifelong: goals come from the task sequence") != NULL, "%s", err);
  free(out);
  free(err);
}

/* A file of schema version 9 is upgraded to version 10 when a run opens it for writing: its
 * row has no events (NULL) and is not lifelong (0); the new rows have theirs. */
Test(events_cli, a_schema_9_file_gets_the_event_columns_of_version_10) {
  char db[512], plan[512], *err;
  snprintf(db, sizeof db, "%s/v9.db", tmpdir);
  sqlite3 *h = test_open_with_schema(db, "schema-v9.sql");
  cr_assert_eq(
      sqlite3_exec(h,
                   "PRAGMA application_id = 0x6d617066; PRAGMA user_version = 9;"
                   "INSERT INTO results (id, job_key, map, map_hash, generator, agents, instance, "
                   "algorithm, label, params, seed, status, limit_hit, completed, finished_at) "
                   "VALUES (1, '0123456789abcdef0123456789abcde1', 'm', '0000000000000001', "
                   "'random', 2, 0, 'bmaa', 'B', '{}', '0000000000000002', 'ok', '', 2, 't');"
                   "INSERT INTO agent_results (result_id, agent, start_x, start_y, goal_x, goal_y, "
                   "reached) VALUES (1, 0, 0, 0, 1, 1, 1);",
                   NULL, NULL, NULL),
      SQLITE_OK);
  sqlite3_close(h);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM pragma_table_info('results') WHERE name IN "
                               "('events', 'lifelong', 'retasks', 'tasks_done', 'throughput')"),
               0);
  data_path(plan, sizeof plan, "events.yaml");
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id = 1 AND events IS NULL AND "
                               "lifelong = 0 AND retasks IS NULL AND tasks_done IS NULL"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM agent_results WHERE result_id = 1 AND "
                               "tasks_done IS NULL"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id > 1 AND lifelong = 1 AND "
                               "tasks_done > 0"),
               16);
  char *check = test_db_rows(db, "PRAGMA integrity_check");
  cr_assert_str_eq(check, "ok\n");
  free(check);
}

/* ---- map changes --------------------------------------------------------------------------- */

/* tests/data/cli/doors.yaml (every planner but external on a rooms map whose doors close and
 * open: generated, with re-tasking, with lifelong goals, and from a file that also opens a wall
 * cell) gives the same rows with 1 thread, 2, and as 3 shards merged; the map-change columns
 * are set exactly where the scenario has map changes; replay reproduces such jobs. */
Test(events_cli, a_plan_with_map_changes_does_not_depend_on_threads_or_shards) {
  char plan[512], db[3][512], *out, *err;
  data_path(plan, sizeof plan, "doors.yaml");
  const char *sql[] = {
      "SELECT job_key, events, lifelong, status, limit_hit, completion_rate, steps, expansions, "
      "retasks, map_changes, mean_change_expansions, tasks_done, soc FROM results ORDER BY job_key",
      "SELECT r.job_key, a.agent, a.goal_x, a.goal_y, a.final_x, a.final_y, a.completion_step, "
      "a.travel_distance, a.tasks_done FROM agent_results a JOIN results r ON r.id = "
      "a.result_id ORDER BY r.job_key, a.agent"};
  test_same_on_threads_and_shards(tmpdir, "doors", plan, 3, sql, 2, db);
  const char *d = db[0];
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results"), 64);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE status = 'error'"), 0);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE events = 'doors every:10,"
                              "count:6,width:1,duration:15,rounds:6' AND retasks = 0 AND "
                              "map_changes > 0"),
               16);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE events = 'retask every:15,"
                              "fraction:0.25,rounds:3; doors every:10,count:6,width:1,duration:15,"
                              "rounds:6' AND retasks = 12 AND map_changes > 0"),
               16);
  /* Lifelong runs last to the step limit: every change happens (5 rounds of 5 doors of 1 to 3
   * cells, closed and opened), unless a closing still waits for an agent to leave its cell. */
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE lifelong = 1 AND steps = 200 "
                              "AND map_changes BETWEEN 45 AND 150 AND tasks_done > 16"),
               16);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE events = 'file doors.ev' AND "
                              "map_changes BETWEEN 1 AND 4"),
               16);
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE map_changes > 0 AND "
                              "mean_change_expansions IS NULL"),
               0);
  /* No bound on a map that changes. */
  cr_assert_eq(test_db_int(d, "SELECT count(*) FROM results WHERE soc_lb IS NOT NULL"), 0);
  char *keys = test_db_rows(d, "SELECT min(job_key) FROM results GROUP BY events, algorithm IN "
                               "('pibt', 'lacam', 'far')");
  int n = 0;
  for (char *k = strtok(keys, "\n"); k; k = strtok(NULL, "\n"), n++) {
    cr_assert_eq(mapfarm(&out, &err, "replay %s --db '%s'", k, d), 0, "%s: %s%s", k, out, err);
    cr_expect(strstr(out, "\nidentical to the stored result") != NULL, "%s: %s", k, out);
    free(out);
    free(err);
  }
  free(keys);
  cr_assert_eq(n, 8);
}

/* A plan's mistakes about map changes, at its line and column, before any job runs: doors on a
 * map without enough of them, a missing key, re-tasking beside lifelong goals, and an events
 * file whose close line names a cell outside the map. */
Test(events_cli, bad_map_changes_are_refused_where_the_plan_says_them) {
  char plan[600], events[600], *out, *err;
  snprintf(plan, sizeof plan, "%s/bad-doors.yaml", tmpdir);
  snprintf(events, sizeof events, "%s/far.ev", tmpdir);
  write_file(events, "3 close 2 2\n7 close 99 1\n");
  write_file(plan, "name: bad\nmaps:\n  - generate: {kind: random, width: 24, height: 24, "
                   "density: 0, seed: 3}\nscenarios:\n  - {generator: random, agents: 8, "
                   "events: {doors: {every: 5, count: 2, duration: 3, rounds: 2}}}\n"
                   "algorithms: [{name: bmaa}]\n");
  cr_assert_eq(mapfarm(&out, &err, "expand '%s'", plan), 2);
  cr_expect(strstr(err, "bad-doors.yaml:5:44: error: doors: map random-24x24-d0-s3 has 0 doors "
                        "of width at most 1 (passages that narrow); cannot close 2 at once"),
            "%s", err);
  free(out);
  free(err);
  write_file(plan, "name: bad\nmaps:\n  - generate: {kind: rooms, width: 32, height: 32, room: 6, "
                   "doors: 2, seed: 2}\nscenarios:\n  - {generator: random, agents: 8, "
                   "events: {doors: {every: 5, count: 2, rounds: 2}}}\n"
                   "  - {generator: random, agents: 8, lifelong: true, events: {retask: {every: 5, "
                   "fraction: 0.5, rounds: 2}, doors: {every: 5, count: 1, duration: 2, rounds: "
                   "1}}}\nalgorithms: [{name: bmaa}]\n");
  cr_assert_eq(mapfarm(&out, &err, "expand '%s'", plan), 2);
  cr_expect(strstr(err, "bad-doors.yaml:5:52: error: missing required key \"duration\" in doors") !=
                NULL,
            "%s", err);
  cr_expect(strstr(err, "bad-doors.yaml:6:61: error: retask: an agent's goals come from its "
                        "task sequence under lifelong; not with retask") != NULL,
            "%s", err);
  free(out);
  free(err);
  write_file(plan, "name: bad\nmaps:\n  - generate: {kind: rooms, width: 32, height: 32, room: 6, "
                   "doors: 2, seed: 2}\nscenarios:\n  - {generator: random, agents: 8, events: "
                   "{file: far.ev}}\nalgorithms: [{name: bmaa}]\n");
  cr_assert_eq(mapfarm(&out, &err, "expand '%s'", plan), 2);
  cr_expect(strstr(err, "far.ev:2:9: error: cell (99,1) is outside the map (32 x 32)") != NULL,
            "%s", err);
  free(out);
  free(err);
}

/* Four rooms of 8 x 8 joined by four doorways, (8,3), (8,12), (3,8) and (12,8), written to
 * tmpdir/rooms.map (its path in map). */
static void write_rooms(char *map, size_t n) {
  char text[1000] = "type octile\nheight 17\nwidth 17\nmap\n";
  snprintf(map, n, "%s/rooms.map", tmpdir);
  for (int y = 0; y < 17; y++) {
    char row[19];
    for (int x = 0; x < 17; x++)
      row[x] = (x == 8 || y == 8) && !(x == 8 && (y == 3 || y == 12)) &&
                       !(y == 8 && (x == 3 || x == 12))
                   ? '@'
                   : '.';
    row[17] = '\n';
    row[18] = '\0';
    strcat(text, row);
  }
  write_file(map, text);
}

/* solve --doors on four rooms joined by four doorways: the changes counted, the search after
 * them measured; bad values and --doors beside --events refused with exit 2. */
Test(events_cli, solve_takes_doors) {
  char map[600], *out, *err;
  write_rooms(map, sizeof map);
  char inst[1600];
  snprintf(inst, sizeof inst, "solve --map '%s' --generator random --agents 16 --seed 3 --algo "
                              "far --steps 300 --maps '%s'", map, tmpdir);
  cr_assert_eq(mapfarm(&out, &err, "%s --doors 10,2,15,3", inst), 0, "%s", err);
  cr_expect_eq(test_metric(out, "map_changes"), 12.0, "%s", out);
  cr_expect(strstr(out, "mean_change_expansions: ") != NULL, "%s", out);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "%s --doors 10,5,15,3", inst), 2);
  cr_expect(strstr(err, "doors: map rooms.map has 4 doors of width at most 1") != NULL, "%s",
            err);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "%s --doors 10,4,0,3", inst), 2);
  cr_expect(strstr(err, "--doors: expected EVERY,COUNT,DURATION,ROUNDS[,WIDTH]") != NULL, "%s",
            err);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "%s --doors 10,2,15,3 --events '%s'", inst, map), 2);
  cr_expect(strstr(err, "--events excludes --retask and --doors") != NULL, "%s", err);
  free(out);
  free(err);
}

/* A file of schema version 10 is upgraded to version 11 when a run opens it for writing: its
 * row has no map changes (NULL); the new rows have theirs. */
Test(events_cli, a_schema_10_file_gets_the_map_change_columns_of_version_11) {
  char db[512], plan[512], *err;
  snprintf(db, sizeof db, "%s/v10.db", tmpdir);
  sqlite3 *h = test_open_with_schema(db, "schema-v10.sql");
  cr_assert_eq(
      sqlite3_exec(h,
                   "PRAGMA application_id = 0x6d617066; PRAGMA user_version = 10;"
                   "INSERT INTO results (id, job_key, map, map_hash, generator, agents, instance, "
                   "algorithm, label, params, seed, status, limit_hit, completed, finished_at, "
                   "events, retasks) VALUES (1, '0123456789abcdef0123456789abcde1', 'm', "
                   "'0000000000000001', 'random', 2, 0, 'bmaa', 'B', '{}', '0000000000000002', "
                   "'ok', '', 2, 't', 'retask every:5,fraction:0.5,rounds:1', 1);",
                   NULL, NULL, NULL),
      SQLITE_OK);
  sqlite3_close(h);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM pragma_table_info('results') WHERE name IN "
                               "('map_changes', 'mean_change_expansions')"),
               0);
  data_path(plan, sizeof plan, "doors.yaml");
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s'", plan, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_int(db, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id = 1 AND map_changes IS NULL "
                               "AND mean_change_expansions IS NULL AND retasks = 1"),
               1);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results WHERE id > 1 AND map_changes > 0"),
               64);
  char *check = test_db_rows(db, "PRAGMA integrity_check");
  cr_assert_str_eq(check, "ok\n");
  free(check);
}

/* ---- map changes in traces ------------------------------------------------------------------ */

typedef struct cell_change {
  long long t;
  int x, y, open;
} cell_change;

/* The map changes a trace records, cell_change=T:(x,y):close or :open (at most max, into cc;
 * returns how many), checked against the run the trace holds on g: in step order, each a change
 * (a cell that closes was open, one that opens was closed), and no agent ever on a closed cell:
 * the move to step t sees the changes of the steps before it, and a cell closes at t only when
 * nobody stands on it at t. */
static int trace_cell_changes(const char *text, const mapf_grid *g, cell_change *cc, int max) {
  const char *p = strstr(text, "agents=");
  cr_assert_eq(p, text, "%.40s", text);
  int agents = atoi(p + 7), n = 0;
  for (p = text; (p = strstr(p, "\ncell_change=")); p++) {
    cell_change c;
    char way[8];
    int used = 0;
    cr_assert_eq(sscanf(p, "\ncell_change=%lld:(%d,%d):%6[a-z]%n", &c.t, &c.x, &c.y, way, &used),
                 4, "%.60s", p);
    cr_assert(p[used] == '\n', "%.60s", p);
    cr_assert(strcmp(way, "close") == 0 || strcmp(way, "open") == 0, "%.60s", p);
    cr_assert(mapf_grid_in(g, c.x, c.y), "%.60s", p);
    c.open = strcmp(way, "open") == 0;
    cr_assert(n == 0 || cc[n - 1].t <= c.t, "map changes out of step order: %.60s", p);
    cr_assert_lt(n, max);
    cc[n++] = c;
  }
  uint8_t *open = malloc((size_t)g->ncells);
  memcpy(open, g->passable, (size_t)g->ncells);
  int32_t *pos = malloc((size_t)agents * sizeof *pos);
  p = strstr(text, "\nsolution=\n");
  cr_assert_not_null(p);
  p += 11;
  int next = 0;
  for (long long t = 0; *p; t++) {
    long long tt;
    int used;
    cr_assert_eq(sscanf(p, "%lld:%n", &tt, &used), 1, "%.40s", p);
    cr_assert_eq(tt, t);
    cr_assert_eq(test_parse_cells(g, p + used, pos, agents), agents, "step %lld", t);
    for (; next < n && cc[next].t < t; next++) {
      int32_t c = mapf_grid_id(g, cc[next].x, cc[next].y);
      cr_assert_neq(open[c], cc[next].open, "(%d,%d) %s at step %lld: it is so already",
                    cc[next].x, cc[next].y, cc[next].open ? "opens" : "closes", cc[next].t);
      open[c] = (uint8_t)cc[next].open;
    }
    for (int a = 0; a < agents; a++)
      cr_assert(open[pos[a]], "agent %d on the closed cell (%d,%d) at step %lld", a,
                (int)mapf_grid_x(g, pos[a]), (int)mapf_grid_y(g, pos[a]), t);
    for (int k = next; k < n && cc[k].t == t; k++)
      for (int a = 0; a < agents && !cc[k].open; a++)
        cr_assert_neq(pos[a], mapf_grid_id(g, cc[k].x, cc[k].y),
                      "(%d,%d) closes at step %lld under agent %d", cc[k].x, cc[k].y, t, a);
    p = strchr(p, '\n');
    p = p ? p + 1 : "";
  }
  free(open);
  free(pos);
  return n;
}

/* solve --trace records every map change as it happens, one cell_change line each, as many as
 * map_changes counts: the doors of --doors (each a doorway, closing and opening in turn), the
 * cells of an events file at their steps (a wall cell that opens exactly at its step, a door
 * that closes no earlier than its line says); the run never puts an agent on a closed cell.
 * --html embeds the same lines. A run without map changes writes none. */
Test(events_cli, solve_traces_record_each_map_change) {
  char map[600], trace[700], page[700], events[700], *out, *err;
  write_rooms(map, sizeof map);
  snprintf(trace, sizeof trace, "%s/doors.trace", tmpdir);
  snprintf(page, sizeof page, "%s/doors.html", tmpdir);
  mapf_grid *g = test_load_grid(map);
  char inst[1600];
  snprintf(inst, sizeof inst, "solve --map '%s' --generator random --agents 16 --seed 3 --algo "
                              "far --steps 300 --trace '%s'", map, trace);
  cr_assert_eq(mapfarm(&out, &err, "%s --doors 10,2,15,3 --html '%s'", inst, page), 0, "%s", err);
  char *text = test_slurp_text(trace);
  cell_change cc[64];
  int n = trace_cell_changes(text, g, cc, 64);
  cr_expect_eq(n, (int)test_metric(out, "map_changes"), "%s", text);
  cr_expect_eq(n, 12);
  static const int doorway[4][2] = {{8, 3}, {8, 12}, {3, 8}, {12, 8}};
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (k < 4 && !(cc[i].x == doorway[k][0] && cc[i].y == doorway[k][1])) k++;
    cr_expect_lt(k, 4, "(%d,%d) is no doorway", cc[i].x, cc[i].y);
    cr_expect_geq(cc[i].t, 10, "no door changes before the first round");
  }
  char *html = test_slurp_text(page);
  const char *first = strstr(text, "cell_change=");
  cr_assert_not_null(first);
  cr_expect(strstr(html, "cell_change=") && strncmp(strstr(html, "cell_change="), first,
                                                     (size_t)(strstr(text, "solution=") - first)) == 0,
            "the page embeds the same map changes");
  free(html);
  free(text);
  free(out);
  free(err);
  /* An events file: a door that closes and opens, a wall cell that opens and closes. */
  snprintf(events, sizeof events, "%s/doors.ev", tmpdir);
  write_file(events, "5 close 8 3\n30 open 8 3\n8 open 8 5\n40 close 8 5\n");
  cr_assert_eq(mapfarm(&out, &err, "%s --events '%s'", inst, events), 0, "%s", err);
  text = test_slurp_text(trace);
  n = trace_cell_changes(text, g, cc, 64);
  cr_expect_eq(n, (int)test_metric(out, "map_changes"), "%s", text);
  cr_expect_geq(n, 3, "%s", text);
  int wall_opened = 0;
  for (int i = 0; i < n; i++) {
    if (cc[i].x == 8 && cc[i].y == 5)
      wall_opened += cc[i].open && cc[i].t == 8;
    else
      cr_expect(cc[i].x == 8 && cc[i].y == 3 && (cc[i].open ? cc[i].t == 30 : cc[i].t >= 5),
                "cell_change=%lld:(%d,%d):%s is none of the file's", cc[i].t, cc[i].x, cc[i].y,
                cc[i].open ? "open" : "close");
  }
  cr_expect_eq(wall_opened, 1, "%s", text);
  free(text);
  free(out);
  free(err);
  /* No map changes: no cell_change line. */
  cr_assert_eq(mapfarm(&out, &err, "%s", inst), 0, "%s", err);
  text = test_slurp_text(trace);
  cr_expect_null(strstr(text, "cell_change"), "%s", text);
  free(text);
  free(out);
  free(err);
  mapf_grid_free(g);
}

/* The text of a trace without its comp_time line, which no rerun reproduces (malloc'd). */
static char *without_comp_time(const char *text) {
  char *s = strdup(text), *p = strstr(s, "\ncomp_time=");
  cr_assert_not_null(p, "%.200s", text);
  char *e = strchr(p + 1, '\n');
  memmove(p, e, strlen(e) + 1);
  return s;
}

/* run --traces and replay --trace record the map changes too: a job's kept trace has as many
 * cell_change lines as its stored map_changes, and replay writes the same trace (but its
 * comp_time). */
Test(events_cli, run_and_replay_traces_record_each_map_change) {
  char plan[512], db[512], dir[512], *out, *err;
  data_path(plan, sizeof plan, "doors.yaml");
  snprintf(db, sizeof db, "%s/traces.db", tmpdir);
  snprintf(dir, sizeof dir, "%s/traces", tmpdir);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db '%s' --traces '%s' --trace-where "
                                   "\"algorithm IN ('bmaa', 'lacam') AND map_changes > 0\"",
                       plan, db, dir),
               0, "%s", err);
  free(err);
  char *rows = test_db_rows(db, "SELECT job_key, map_changes FROM results WHERE algorithm IN "
                                "('bmaa', 'lacam') AND map_changes > 0");
  int jobs = 0;
  for (char *line = strtok(rows, "\n"); line; line = strtok(NULL, "\n"), jobs++) {
    char key[33], path[700], replayed[700];
    int changes = 0;
    cr_assert_eq(sscanf(line, "%32[0-9a-f]|%d", key, &changes), 2, "%s", line);
    snprintf(path, sizeof path, "%s/%s.trace.gz", dir, key);
    gzFile gz = gzopen(path, "rb");
    cr_assert_not_null(gz, "no trace %s", path);
    static char buf[1 << 20];
    int len = gzread(gz, buf, sizeof buf - 1);
    gzclose(gz);
    cr_assert_gt(len, 0);
    cr_assert_lt(len, (int)sizeof buf - 1);
    buf[len] = '\0';
    int lines = 0;
    for (const char *p = buf; (p = strstr(p, "\ncell_change=")); p++) lines++;
    cr_expect_eq(lines, changes, "job %s: %d cell_change lines, map_changes %d", key, lines,
                 changes);
    snprintf(replayed, sizeof replayed, "%s/%s.trace", tmpdir, key);
    cr_assert_eq(mapfarm(&out, &err, "replay %s --db '%s' --trace '%s'", key, db, replayed), 0,
                 "%s: %s%s", key, out, err);
    char *text = test_slurp_text(replayed), *a = without_comp_time(buf),
         *b = without_comp_time(text);
    cr_expect_str_eq(a, b, "job %s: replay's trace differs from run's", key);
    free(a);
    free(b);
    free(text);
    free(out);
    free(err);
  }
  free(rows);
  cr_assert_geq(jobs, 8, "every scenario's jobs of both planners");
}
