/* test_store.c: the SQLite results database (farm/store.c and schema/). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "columns.h"
#include "store.h"

#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------------ */

/* A fresh directory for each test's files. */
TEST_TMPDIR("store");
TestSuite(store, .init = make_tmpdir, .fini = remove_tmpdir);

static void path_in(char *out, size_t n, const char *name) {
  snprintf(out, n, "%s/%s", tmpdir, name);
}

static int file_exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* The first column of the first row of sql, as an integer; -999 when there is no row and
 * -777 when it is NULL. */
static int64_t q_int(farm_store *st, const char *sql) {
  sqlite3_stmt *s = NULL;
  cr_assert_eq(sqlite3_prepare_v2(farm_store_db(st), sql, -1, &s, NULL), SQLITE_OK, "%s: %s",
               sql, sqlite3_errmsg(farm_store_db(st)));
  int64_t v = -999;
  if (sqlite3_step(s) == SQLITE_ROW)
    v = sqlite3_column_type(s, 0) == SQLITE_NULL ? -777 : sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}

static double q_real(farm_store *st, const char *sql) {
  sqlite3_stmt *s = NULL;
  cr_assert_eq(sqlite3_prepare_v2(farm_store_db(st), sql, -1, &s, NULL), SQLITE_OK, "%s", sql);
  double v = NAN;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
    v = sqlite3_column_double(s, 0);
  sqlite3_finalize(s);
  return v;
}

/* The first column of the first row as text, copied into out ("<null>" for NULL). */
static void q_text(farm_store *st, const char *sql, char *out, size_t n) {
  sqlite3_stmt *s = NULL;
  cr_assert_eq(sqlite3_prepare_v2(farm_store_db(st), sql, -1, &s, NULL), SQLITE_OK, "%s", sql);
  snprintf(out, n, "<none>");
  if (sqlite3_step(s) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(s, 0);
    snprintf(out, n, "%s", t ? (const char *)t : "<null>");
  }
  sqlite3_finalize(s);
}

/* A 4 x 3 open grid: cell id = y * 4 + x. */
static mapf_grid *tiny_grid(void) {
  mapf_grid *g = mapf_grid_new(4, 3, "tiny.map");
  cr_assert_not_null(g);
  memset(g->passable, 1, (size_t)g->ncells);
  cr_assert_eq(mapf_grid_finish(g), MAPF_OK);
  return g;
}

/* A job with two agents on the tiny grid: agent 0 from (1,1) to (3,2) reached it at step 7;
 * agent 1 from (0,0) to (2,0) stood at (1,0) when the step limit hit. */
typedef struct job {
  char key[33];
  mapf_agent_result agent[2];
  mapf_result res;
  farm_record rec;
} job;

static void make_job(job *j, int i, const mapf_grid *g) {
  char text[32];
  snprintf(text, sizeof text, "job %d", i);
  mapf_hash128_hex(mapf_hash128_of(text, strlen(text)), j->key);
  memset(j->agent, 0, sizeof j->agent);
  j->agent[0] = (mapf_agent_result){.start = 5, .goal = 11, .final = 11, .reached = 1,
                                    .completion_step = 7, .completion_seconds = 0.25,
                                    .travel_distance = 2.0 + MAPF_SQRT2, .expansions = 40,
                                    .failed_moves = 1, .pushed = 0, .searches = 2};
  j->agent[1] = (mapf_agent_result){.start = 0, .goal = 2, .final = 1, .reached = 0,
                                    .completion_step = -1, .completion_seconds = -1,
                                    .travel_distance = 1.0, .expansions = 12,
                                    .failed_moves = 3, .pushed = 1, .searches = 4};
  memset(&j->res, 0, sizeof j->res);
  j->res.status = MAPF_STATUS_LIMIT;
  j->res.limit = MAPF_LIMIT_STEPS;
  j->res.agents = 2;
  j->res.completed = 1;
  j->res.completion_rate = 0.5;
  j->res.mean_completion_steps = 7.0;
  j->res.mean_completion_steps_capped = (7.0 + 100.0) / 2.0;
  j->res.mean_completion_seconds = 0.25;
  j->res.mean_completion_seconds_capped = 0.75;
  j->res.mean_travel_distance = (3.0 + MAPF_SQRT2) / 2.0;
  j->res.steps = 100;
  j->res.wall_seconds = 1.5;
  j->res.expansions = 52;
  j->res.planning_seconds = 0.5;
  j->res.max_step_planning_seconds = 0.01;
  j->res.failed_moves = 4;
  j->res.pushes = 1;
  j->res.searches = 6;
  j->res.deadlocks_broken = 0;
  j->res.agent = j->agent;
  j->rec = (farm_record){.job_key = j->key, .map = "tiny.map", .map_hash = g->hash,
                         .generator = "random", .agents = 2, .instance = i,
                         .algorithm = "bmaa", .label = "BMAA*", .params = "{\"vision\":4}",
                         .seed = 0xfedcba9876543210ULL, .grid = g, .res = &j->res};
}

/* Jobs 0 .. n-1 (make_job), their records copied into recs. */
static void make_jobs(job *j, farm_record *recs, int n, const mapf_grid *g) {
  for (int i = 0; i < n; i++) {
    make_job(&j[i], i, g);
    recs[i] = j[i].rec;
  }
}

static farm_store *open_ok(const char *path, int mode) {
  farm_store *st = NULL;
  mapf_diag err = {0};
  cr_assert_eq(farm_store_open(path, mode, &st, &err), 0, "open: %s", err.msg);
  cr_assert_not_null(st);
  return st;
}

static void put_ok(farm_store *st, int64_t run_id, const farm_record *recs, int32_t n) {
  mapf_diag err = {0};
  cr_assert_eq(farm_store_put(st, run_id, recs, n, &err), 0, "put: %s", err.msg);
}

/* ---- creating and opening ----------------------------------------------------------------- */

Test(store, creates_database_with_ids_wal_tables_and_views) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  cr_expect_eq(q_int(st, "PRAGMA application_id"), FARM_APPLICATION_ID);
  cr_expect_eq(q_int(st, "PRAGMA user_version"), FARM_SCHEMA_VERSION);
  char mode[32];
  q_text(st, "PRAGMA journal_mode", mode, sizeof mode);
  cr_expect_str_eq(mode, "wal");
  cr_expect_eq(q_int(st, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                         "('runs', 'results', 'agent_results')"),
               3);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name IN "
                         "('report_cells', 'report_maps', 'report_labels', 'by_agents', "
                         "'portfolio_labels', 'job_errors', 'run_summary')"),
               7);
  farm_store_close(st);
  /* Reopening in both modes finds the same database. */
  st = open_ok(db, FARM_STORE_CREATE);
  farm_store_close(st);
  st = open_ok(db, FARM_STORE_READONLY);
  cr_expect_eq(q_int(st, "PRAGMA application_id"), FARM_APPLICATION_ID);
  farm_store_close(st);
}

Test(store, close_null_is_a_no_op) {
  farm_store_close(NULL);
  cr_expect_null(farm_store_db(NULL));
}

Test(store, creates_schema_in_an_empty_file) {
  char db[512];
  path_in(db, sizeof db, "empty.db");
  FILE *f = fopen(db, "wb");
  cr_assert_not_null(f);
  fclose(f);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  cr_expect_eq(q_int(st, "PRAGMA application_id"), FARM_APPLICATION_ID);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 0);
  farm_store_close(st);
}

Test(store, refuses_text_file_and_leaves_it_byte_identical) {
  char path[512], side[600];
  path_in(path, sizeof path, "notes.txt");
  const char text[] = "These are my notes, not a database.\nSecond line.\n";
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  fwrite(text, 1, sizeof text - 1, f);
  fclose(f);
  for (int mode = FARM_STORE_READONLY; mode <= FARM_STORE_CREATE; mode++) {
    farm_store *st = NULL;
    mapf_diag err = {0};
    cr_expect_eq(farm_store_open(path, mode, &st, &err), -1);
    cr_expect_null(st);
    char want[600];
    snprintf(want, sizeof want, "%s: not a SQLite database", path);
    cr_expect_str_eq(err.msg, want);
  }
  size_t len = 0;
  char *after = test_slurp_file(path, &len);
  cr_expect_eq(len, sizeof text - 1);
  cr_expect_eq(memcmp(after, text, len), 0, "the file changed");
  free(after);
  snprintf(side, sizeof side, "%s-wal", path);
  cr_expect_not(file_exists(side));
  snprintf(side, sizeof side, "%s-journal", path);
  cr_expect_not(file_exists(side));
}

/* Writes a SQLite database that is someone else's: a table and, when app_id is not 0, their
 * application_id. */
static void write_foreign_db(const char *path, int app_id) {
  sqlite3 *db = NULL;
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  char sql[256];
  snprintf(sql, sizeof sql,
           "CREATE TABLE birds (name TEXT); INSERT INTO birds VALUES ('wren'); "
           "PRAGMA application_id = %d;",
           app_id);
  cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
}

Test(store, refuses_foreign_sqlite_database_untouched) {
  char path[512];
  const int ids[2] = {0, 0x12345678};
  for (int k = 0; k < 2; k++) {
    path_in(path, sizeof path, k ? "other.sqlite" : "plain.sqlite");
    write_foreign_db(path, ids[k]);
    size_t len0 = 0, len1 = 0;
    char *before = test_slurp_file(path, &len0);
    farm_store *st = NULL;
    mapf_diag err = {0};
    cr_expect_eq(farm_store_open(path, FARM_STORE_CREATE, &st, &err), -1);
    cr_expect_null(st);
    char want[600];
    snprintf(want, sizeof want, "%s: not a mapfarm database (application_id 0x%08x", path,
             (unsigned)ids[k]);
    cr_expect_eq(strncmp(err.msg, want, strlen(want)), 0, "got: %s", err.msg);
    char *after = test_slurp_file(path, &len1);
    cr_expect_eq(len0, len1);
    cr_expect_eq(memcmp(before, after, len0), 0, "the database changed");
    free(before);
    free(after);
  }
}

Test(store, refuses_newer_schema_version) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  char sql[64], want[128];
  snprintf(sql, sizeof sql, "PRAGMA user_version = %d", FARM_SCHEMA_VERSION + 1);
  cr_assert_eq(sqlite3_exec(farm_store_db(st), sql, NULL, NULL, NULL), SQLITE_OK);
  farm_store_close(st);
  mapf_diag err = {0};
  cr_expect_eq(farm_store_open(db, FARM_STORE_CREATE, &st, &err), -1);
  snprintf(want, sizeof want, "schema version %d (written by a newer mapfarm)",
           FARM_SCHEMA_VERSION + 1);
  cr_expect(strstr(err.msg, want) != NULL, "got: %s", err.msg);
}

/* A database as mapfarm wrote it with schema version 1 (agent rows keyed by job_key), cut down
 * to a few columns: what the version check sees is the same. WAL mode, like every mapfarm
 * database. */
static void write_schema1_db(const char *path) {
  sqlite3 *db = NULL;
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  const char *sql =
      "PRAGMA journal_mode = WAL;"
      "CREATE TABLE runs (run_id INTEGER PRIMARY KEY, run_uid TEXT NOT NULL UNIQUE, "
      "  version TEXT NOT NULL, started_at TEXT NOT NULL, status TEXT NOT NULL);"
      "CREATE TABLE results (job_key TEXT PRIMARY KEY NOT NULL CHECK (length(job_key) = 32), "
      "  run_id INTEGER, map TEXT NOT NULL, agents INTEGER NOT NULL, status TEXT NOT NULL, "
      "  finished_at TEXT NOT NULL);"
      "CREATE TABLE agent_results (job_key TEXT NOT NULL, agent INTEGER NOT NULL, "
      "  reached INTEGER NOT NULL, PRIMARY KEY (job_key, agent)) WITHOUT ROWID;"
      "INSERT INTO runs VALUES (1, 'u1', '0.1.0', '2024-05-01T12:00:00Z', 'done');"
      "INSERT INTO results VALUES ('0123456789abcdef0123456789abcdef', 1, 'tiny.map', 2, "
      "  'ok', '2024-05-01T12:00:01Z');"
      "INSERT INTO agent_results VALUES ('0123456789abcdef0123456789abcdef', 0, 1), "
      "  ('0123456789abcdef0123456789abcdef', 1, 1);"
      "PRAGMA application_id = 1835102310;" /* 0x6d617066 */
      "PRAGMA user_version = 1;";
  char *msg = NULL;
  cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
  cr_assert_eq(sqlite3_close(db), SQLITE_OK);
}

Test(store, refuses_schema_1_database_clearly_and_leaves_it_byte_identical) {
  char db[512], side[600];
  path_in(db, sizeof db, "old.db");
  write_schema1_db(db);
  size_t len0 = 0, len1 = 0;
  char *before = test_slurp_file(db, &len0);
  for (int mode = FARM_STORE_READONLY; mode <= FARM_STORE_CREATE; mode++) {
    farm_store *st = NULL;
    mapf_diag err = {0};
    char want[700];
    cr_expect_eq(farm_store_open(db, mode, &st, &err), -1);
    cr_expect_null(st);
    snprintf(want, sizeof want,
             "%s: mapfarm database of schema version 1 (written by an older mapfarm); this "
             "mapfarm reads schema versions %d to %d only; left untouched",
             db, FARM_SCHEMA_OLDEST, FARM_SCHEMA_VERSION);
    cr_expect_str_eq(err.msg, want);
  }
  char *after = test_slurp_file(db, &len1);
  cr_expect_eq(len0, len1);
  cr_expect_eq(memcmp(before, after, len0 < len1 ? len0 : len1), 0, "the database changed");
  free(before);
  free(after);
  /* Nothing beside it either, though it is in WAL mode (a plain reader would leave -wal and
   * -shm files). */
  const char *sides[] = {"-wal", "-shm", "-journal", ".lock"};
  for (int k = 0; k < 4; k++) {
    snprintf(side, sizeof side, "%s%s", db, sides[k]);
    cr_expect_not(file_exists(side), "%s was created", side);
  }
}

/* Every file of dir with its size and a hash of its bytes, one line each, sorted by name (the
 * caller frees). */
static char *dir_state(const char *dir) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cd '%s' && ls -A | LC_ALL=C sort | while read -r f; do "
           "if [ -f \"$f\" ]; then printf '%%s %%s\\n' \"$f\" \"$(cksum < \"$f\")\"; else "
           "printf '%%s (not a regular file)\\n' \"$f\"; fi; done", dir);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  char buf[512];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) fwrite(buf, 1, n, f);
  fclose(f);
  cr_assert_eq(pclose(p), 0);
  return text;
}

/* Writes n bytes of data at offset of the file at path. */
static void poke(const char *path, long offset, const void *data, size_t n) {
  FILE *f = fopen(path, "r+b");
  cr_assert_not_null(f);
  cr_assert_eq(fseek(f, offset, SEEK_SET), 0);
  cr_assert_eq(fwrite(data, 1, n, f), n);
  fclose(f);
}

/* Copies the first n bytes of from into to (all of it when n < 0). */
static void copy_head(const char *from, const char *to, long n) {
  size_t len = 0;
  char *data = test_slurp_file(from, &len);
  if (n >= 0 && (size_t)n < len) len = (size_t)n;
  FILE *f = fopen(to, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(data, 1, len, f), len);
  fclose(f);
  free(data);
}

/* A refused file stays byte for byte as it was, and its directory gains no file: no -wal or
 * -shm (which a plain read-only SQLite connection leaves beside a WAL database), no lock. One
 * directory per file, so each listing shows exactly what that open did. */
Test(store, refused_files_leave_their_directory_as_it_was) {
  char good[512];
  path_in(good, sizeof good, "good.db");
  mapf_grid *g = tiny_grid();
  job j[4];
  farm_record recs[4];
  make_jobs(j, recs, 4, g);
  farm_store *st = open_ok(good, FARM_STORE_CREATE);
  put_ok(st, 0, recs, 4);
  farm_store_close(st);
  mapf_grid_free(g);

  static const char *const names[] = {"text", "newer", "truncated", "garbled", "foreign", "fifo"};
  static const char *const want[] = {
      "not a SQLite database", "(written by a newer mapfarm)", "damaged database",
      "damaged database", "not a mapfarm database", "is not a regular file"};
  for (int k = 0; k < 6; k++) {
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, names[k]);
    cr_assert_eq(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/r.db", dir);
    if (k == 0) {
      FILE *f = fopen(file, "wb");
      cr_assert_not_null(f);
      fputs("These are my notes, not a database.\n", f);
      fclose(f);
    } else if (k == 1) {
      copy_head(good, file, -1);
      test_db_exec(file, "PRAGMA user_version = 99");
    } else if (k == 2) {
      copy_head(good, file, 8192);
    } else if (k == 3) {
      copy_head(good, file, -1);
      static const unsigned char junk[64] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
      poke(file, 100, junk, sizeof junk); /* sqlite_master's page header */
    } else if (k == 4) {
      test_db_exec(file, "PRAGMA journal_mode = WAL; CREATE TABLE birds (name TEXT); "
                         "INSERT INTO birds VALUES ('wren')");
    } else {
      cr_assert_eq(mkfifo(file, 0644), 0);
    }
    char *before = dir_state(dir);
    for (int mode = FARM_STORE_READONLY; mode <= FARM_STORE_CREATE; mode++) {
      mapf_diag err = {0};
      st = NULL;
      cr_expect_eq(farm_store_open(file, mode, &st, &err), -1, "%s: opened",
                   names[k]);
      cr_expect_null(st);
      farm_store_close(st);
      cr_expect(strstr(err.msg, want[k]) != NULL, "%s: %s", names[k], err.msg);
      char *after = dir_state(dir);
      cr_expect_str_eq(after, before, "%s, mode %d: the directory changed", names[k], mode);
      free(after);
    }
    free(before);
  }
}

/* File names are passed to SQLite as URIs for the look before opening: characters that mean
 * something in a URI are escaped. */
Test(store, a_file_name_with_uri_characters_opens) {
  char db[512];
  path_in(db, sizeof db, "a?b#c%20d&mode=rw.db");
  mapf_grid *g = tiny_grid();
  job j[1];
  farm_record recs[1];
  make_jobs(j, recs, 1, g);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, recs, 1);
  farm_store_close(st);
  st = open_ok(db, FARM_STORE_READONLY);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 1);
  farm_store_close(st);
  st = open_ok(db, FARM_STORE_CREATE);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 1);
  farm_store_close(st);
  mapf_grid_free(g);
}

/* ---- the writer lock ---------------------------------------------------------------------- */

static void this_host(char *host, size_t n) {
  cr_assert_eq(gethostname(host, n), 0);
  host[n - 1] = '\0';
}

/* A second writer is refused while the first holds the database, even in the same process
 * (flock belongs to an open file, not to a process); the message names the holder. Readers go
 * on. Closing releases the lock and deletes its file. */
Test(store, a_second_writer_is_refused_naming_the_first_and_readers_go_on) {
  char db[512], lock[600], host[256], want[2048];
  path_in(db, sizeof db, "r.db");
  snprintf(lock, sizeof lock, "%s.lock", db);
  this_host(host, sizeof host);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  cr_expect_str_eq(farm_store_note(st), "");
  cr_assert(file_exists(lock));
  char *text = test_slurp_file(lock, NULL);
  snprintf(want, sizeof want, "mapfarm lock\npid %ld\nhost %s\nstarted ", (long)getpid(), host);
  cr_expect_eq(strncmp(text, want, strlen(want)), 0, "%s", text);
  free(text);

  farm_store *second = NULL;
  mapf_diag err = {0};
  cr_expect_eq(farm_store_open(db, FARM_STORE_CREATE, &second, &err), -1);
  cr_expect_null(second);
  snprintf(want, sizeof want,
           "%s: another mapfarm process is writing this database (pid %ld on host %s, started ",
           db, (long)getpid(), host);
  cr_expect_eq(strncmp(err.msg, want, strlen(want)), 0, "got: %s", err.msg);
  cr_expect(strstr(err.msg, "wait until it ends") != NULL, "%s", err.msg);
  cr_assert(file_exists(lock), "the refused open removed the holder's lock");

  farm_store *reader = open_ok(db, FARM_STORE_READONLY);
  cr_expect_eq(q_int(reader, "SELECT count(*) FROM results"), 0);
  farm_store_close(reader);

  farm_store_close(st);
  cr_expect_not(file_exists(lock), "close left the lock file");
  st = open_ok(db, FARM_STORE_CREATE);
  farm_store_close(st);
}

/* Two symbolic links to one database, or a link and the file, share one lock (beside the
 * file, where SQLite puts the -wal too). */
Test(store, a_database_reached_through_a_link_shares_its_lock) {
  char db[512], link[512], lock[600];
  path_in(db, sizeof db, "r.db");
  path_in(link, sizeof link, "link.db");
  snprintf(lock, sizeof lock, "%s.lock", db);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  cr_assert_eq(symlink("r.db", link), 0);
  farm_store *second = NULL;
  mapf_diag err = {0};
  cr_expect_eq(farm_store_open(link, FARM_STORE_CREATE, &second, &err), -1);
  cr_expect(strstr(err.msg, "another mapfarm process is writing this database") != NULL, "%s", err.msg);
  farm_store_close(second);
  farm_store_close(st);
  st = open_ok(link, FARM_STORE_CREATE);
  cr_expect(file_exists(lock), "the lock is not beside the file the link names");
  cr_expect_eq(farm_store_open(db, FARM_STORE_CREATE, &second, &err), -1);
  farm_store_close(st);
  cr_expect_not(file_exists(lock));
}

/* A pid that no process has: a child's, after it ended. */
static long dead_pid(void) {
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) _exit(0);
  cr_assert_eq(waitpid(pid, NULL, 0), pid);
  return (long)pid;
}

static void write_lock(const char *path, long pid, const char *host) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fprintf(f, "mapfarm lock\npid %ld\nhost %s\nstarted 2024-05-01T12:00:00Z\n", pid, host);
  fclose(f);
}

Test(store, a_stale_lock_of_this_host_is_taken_over_with_a_note) {
  char db[512], lock[600], host[256], want[2048];
  path_in(db, sizeof db, "r.db");
  snprintf(lock, sizeof lock, "%s.lock", db);
  this_host(host, sizeof host);
  long pid = dead_pid();
  write_lock(lock, pid, host);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  snprintf(want, sizeof want,
           "%s: took over the lock of a mapfarm process that ended without releasing it (pid %ld "
           "on host %s, started 2024-05-01T12:00:00Z)",
           db, pid, host);
  cr_expect_str_eq(farm_store_note(st), want);
  char *text = test_slurp_file(lock, NULL);
  snprintf(want, sizeof want, "mapfarm lock\npid %ld\n", (long)getpid());
  cr_expect_eq(strncmp(text, want, strlen(want)), 0, "%s", text);
  free(text);
  farm_store_close(st);
  cr_expect_not(file_exists(lock));
}

/* A lock file of another host cannot be checked from here: refused, with how to break it, and
 * the database is not touched. */
Test(store, a_lock_of_another_host_is_refused_with_how_to_break_it) {
  char db[512], lock[600], want[2048];
  path_in(db, sizeof db, "r.db");
  snprintf(lock, sizeof lock, "%s.lock", db);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  farm_store_close(st);
  size_t n0 = 0, n1 = 0;
  char *before = test_slurp_file(db, &n0);
  write_lock(lock, 4242, "elsewhere.example");
  mapf_diag err = {0};
  cr_expect_eq(farm_store_open(db, FARM_STORE_CREATE, &st, &err), -1);
  snprintf(want, sizeof want,
           "%s: %s says a mapfarm process on another host is writing this database (pid 4242 on "
           "host elsewhere.example, started 2024-05-01T12:00:00Z), and this host cannot tell "
           "whether it still runs; if it does not, delete %s and run the command again",
           db, lock, lock);
  cr_expect_str_eq(err.msg, want);
  char *after = test_slurp_file(db, &n1);
  cr_expect(n0 == n1 && memcmp(before, after, n0) == 0, "the database changed");
  free(before);
  free(after);
  cr_assert(file_exists(lock), "the other host's lock file was removed");
  /* Deleting it, as the message says, lets the next writer in. */
  cr_assert_eq(unlink(lock), 0);
  st = open_ok(db, FARM_STORE_CREATE);
  cr_expect_str_eq(farm_store_note(st), "");
  farm_store_close(st);
}

/* A file at PATH.lock that mapfarm did not write is left alone. */
Test(store, a_foreign_file_at_the_lock_path_is_left_alone) {
  char db[512], lock[600];
  path_in(db, sizeof db, "r.db");
  snprintf(lock, sizeof lock, "%s.lock", db);
  FILE *f = fopen(lock, "w");
  cr_assert_not_null(f);
  fputs("my own notes\n", f);
  fclose(f);
  farm_store *st = NULL;
  mapf_diag err = {0};
  cr_expect_eq(farm_store_open(db, FARM_STORE_CREATE, &st, &err), -1);
  cr_expect(strstr(err.msg, "is not a mapfarm lock file") != NULL, "%s", err.msg);
  char *text = test_slurp_file(lock, NULL);
  cr_expect_str_eq(text, "my own notes\n");
  free(text);
  cr_expect_not(file_exists(db), "the database was created");
}

/* farm_store_discard deletes a file its open created, and only such a file. */
Test(store, discard_deletes_only_a_file_its_open_created) {
  char db[512], side[600];
  path_in(db, sizeof db, "new.db");
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  farm_store_discard(st);
  const char *sides[] = {"", "-wal", "-shm", ".lock"};
  for (int k = 0; k < 4; k++) {
    snprintf(side, sizeof side, "%s%s", db, sides[k]);
    cr_expect_not(file_exists(side), "%s is still there", side);
  }
  st = open_ok(db, FARM_STORE_CREATE);
  farm_store_close(st);
  st = open_ok(db, FARM_STORE_CREATE);
  farm_store_discard(st);
  cr_expect(file_exists(db), "an existing file was deleted");
  farm_store_discard(NULL);
}

Test(store, readonly_open_of_missing_file_does_not_create_it) {
  char db[512];
  path_in(db, sizeof db, "missing.db");
  farm_store *st = NULL;
  mapf_diag err = {0};
  cr_expect_eq(farm_store_open(db, FARM_STORE_READONLY, &st, &err), -1);
  cr_expect_null(st);
  char want[600];
  snprintf(want, sizeof want, "%s: no such database file", db);
  cr_expect_str_eq(err.msg, want);
  cr_expect_not(file_exists(db));
}

Test(store, create_in_missing_directory_fails_clearly) {
  char db[512];
  path_in(db, sizeof db, "no/such/dir/r.db");
  farm_store *st = NULL;
  mapf_diag err = {0};
  cr_expect_eq(farm_store_open(db, FARM_STORE_CREATE, &st, &err), -1);
  cr_expect(strstr(err.msg, ": cannot ") != NULL, "got: %s", err.msg);
}

Test(store, refuses_read_only_file_in_create_mode) {
  if (geteuid() == 0) cr_skip_test("root can write a file without write permission");
  char db[512];
  path_in(db, sizeof db, "r.db");
  farm_store_close(open_ok(db, FARM_STORE_CREATE));
  cr_assert_eq(chmod(db, 0444), 0);
  farm_store *st = NULL;
  mapf_diag err = {0};
  cr_expect_eq(farm_store_open(db, FARM_STORE_CREATE, &st, &err), -1);
  cr_expect(strstr(err.msg, "read-only") != NULL, "got: %s", err.msg);
  /* Reading it is fine. */
  st = open_ok(db, FARM_STORE_READONLY);
  farm_store_close(st);
}

Test(store, readonly_store_refuses_writes) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  farm_store_close(open_ok(db, FARM_STORE_CREATE));
  farm_store *st = open_ok(db, FARM_STORE_READONLY);
  mapf_grid *g = tiny_grid();
  job j;
  make_job(&j, 0, g);
  mapf_diag err = {0};
  cr_expect_eq(farm_store_put(st, 0, &j.rec, 1, &err), -1);
  cr_expect(strstr(err.msg, "opened read-only") != NULL, "got: %s", err.msg);
  int64_t run = 0;
  farm_run_info info = {.plan_name = "p", .threads = 1, .shard = "1/1"};
  cr_expect_eq(farm_store_run_begin(st, &info, &run, &err), -1);
  farm_store_close(st);
  mapf_grid_free(g);
}

/* ---- writing results ---------------------------------------------------------------------- */

Test(store, put_then_reopen_loads_every_key) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[3];
  farm_record recs[3];
  make_jobs(j, recs, 3, g);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, recs, 3);
  farm_store_close(st);

  st = open_ok(db, FARM_STORE_READONLY);
  farm_keyset keys = {0};
  mapf_diag err = {0};
  cr_assert_eq(farm_store_load_keys(st, &keys, 0, &err), 0, "%s", err.msg);
  cr_expect_eq(keys.n + keys.has_zero, 3);
  for (int i = 0; i < 3; i++) {
    mapf_hash128 k;
    cr_assert_eq(mapf_hash128_parse(j[i].key, &k), 0);
    cr_expect(farm_keyset_has(&keys, k), "key %d missing", i);
  }
  mapf_hash128 other = mapf_hash128_of("job 99", 6);
  cr_expect_not(farm_keyset_has(&keys, other));
  farm_keyset_free(&keys);
  farm_store_close(st);
  mapf_grid_free(g);
}

/* farm_store_last_put counts the rows a batch stored, by status, and the records it left out
 * because their keys were there: a run's counts come from it. */
Test(store, last_put_counts_rows_stored_and_keys_present) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[4];
  farm_record recs[4];
  make_jobs(j, recs, 4, g);
  j[1].res.status = MAPF_STATUS_OK;
  j[1].res.limit = MAPF_LIMIT_NONE;
  j[2].res.status = MAPF_STATUS_ERROR;
  snprintf(j[2].res.message, sizeof j[2].res.message, "no room");
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  farm_put_counts c;
  put_ok(st, 0, recs, 3);
  farm_store_last_put(st, &c);
  cr_expect(c.ok == 1 && c.limit == 1 && c.error == 1 && c.present == 0,
            "%lld %lld %lld %lld", (long long)c.ok, (long long)c.limit, (long long)c.error,
            (long long)c.present);
  /* Jobs 0 and 1 are there (left as they are); job 2's error row is replaced; job 3 is new. */
  j[2].res.status = MAPF_STATUS_OK;
  j[2].res.limit = MAPF_LIMIT_NONE;
  put_ok(st, 0, recs, 4);
  farm_store_last_put(st, &c);
  cr_expect(c.ok == 1 && c.limit == 1 && c.error == 0 && c.present == 2,
            "%lld %lld %lld %lld", (long long)c.ok, (long long)c.limit, (long long)c.error,
            (long long)c.present);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 4);
  farm_store_close(st);
  mapf_grid_free(g);
}

Test(store, put_twice_keeps_one_row_and_the_first_values) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[2];
  farm_record recs[2];
  make_jobs(j, recs, 2, g);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, recs, 2);
  /* The same keys again, with other numbers: the stored rows stay as they were. */
  j[0].res.completion_rate = 1.0;
  j[0].res.steps = 5;
  put_ok(st, 0, recs, 2);
  put_ok(st, 0, recs, 1);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 2);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM agent_results"), 4);
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT steps FROM results WHERE job_key = '%s'", j[0].key);
  cr_expect_eq(q_int(st, sql), 100);
  farm_store_close(st);
  mapf_grid_free(g);
}

Test(store, stores_identity_and_metrics) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j;
  make_job(&j, 7, g);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, &j.rec, 1);
  char t[128], want[32];
  q_text(st, "SELECT job_key FROM results", t, sizeof t);
  cr_expect_str_eq(t, j.key);
  q_text(st, "SELECT seed FROM results", t, sizeof t);
  cr_expect_str_eq(t, "fedcba9876543210");
  q_text(st, "SELECT map_hash FROM results", t, sizeof t);
  snprintf(want, sizeof want, "%016llx", (unsigned long long)g->hash);
  cr_expect_str_eq(t, want);
  q_text(st, "SELECT map || '|' || generator || '|' || algorithm || '|' || label || '|' || "
             "params || '|' || status || '|' || limit_hit || '|' || message FROM results",
         t, sizeof t);
  cr_expect_str_eq(t, "tiny.map|random|bmaa|BMAA*|{\"vision\":4}|limit|steps|");
  cr_expect_eq(q_int(st, "SELECT agents FROM results"), 2);
  cr_expect_eq(q_int(st, "SELECT instance FROM results"), 7);
  cr_expect_eq(q_int(st, "SELECT run_id FROM results"), -777); /* no run: NULL */
  cr_expect_eq(q_int(st, "SELECT completed FROM results"), 1);
  cr_expect_eq(q_real(st, "SELECT completion_rate FROM results"), 0.5);
  cr_expect_eq(q_real(st, "SELECT mean_completion_steps_capped FROM results"), 53.5);
  cr_expect_eq(q_real(st, "SELECT mean_travel_distance FROM results"), (3.0 + MAPF_SQRT2) / 2);
  cr_expect_eq(q_int(st, "SELECT steps FROM results"), 100);
  cr_expect_eq(q_int(st, "SELECT expansions FROM results"), 52);
  cr_expect_eq(q_int(st, "SELECT searches FROM results"), 6);
  cr_expect_eq(q_real(st, "SELECT max_step_planning_seconds FROM results"), 0.01);
  q_text(st, "SELECT finished_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T"
             "[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' FROM results",
         t, sizeof t);
  cr_expect_str_eq(t, "1");
  farm_store_close(st);
  mapf_grid_free(g);
}

/* Each column holds what its row of the table of columns (farm/columns.h) gives for the job,
 * with the storage class of its type; an error row the same way, its metrics NULL. */
static void expect_stored_as_the_table_says(farm_store *st, const farm_record *rec,
                                            int64_t run_id) {
  farm_row row = {.rec = rec, .run_id = run_id};
  for (int32_t i = 0; i < farm_ncolumns; i++) {
    const farm_column *c = &farm_columns[i];
    if (c->src == FARM_COL_ROWID) continue;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT \"%s\" FROM results WHERE job_key = '%s'", c->name,
             rec->job_key);
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(farm_store_db(st), sql, -1, &s, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    farm_value v;
    farm_column_value(c, &row, &v);
    int type = sqlite3_column_type(s, 0);
    if (strcmp(c->name, "finished_at") == 0) {
      cr_expect_eq(sqlite3_column_bytes(s, 0), 20); /* the batch's time (stores_identity...) */
    } else {
      cr_expect_eq(type, v.type, "%s: stored as type %d, not %d", c->name, type, v.type);
      if (type == SQLITE_INTEGER) cr_expect_eq(sqlite3_column_int64(s, 0), v.i, "%s", c->name);
      if (type == SQLITE_FLOAT) cr_expect_eq(sqlite3_column_double(s, 0), v.r, "%s", c->name);
      if (type == SQLITE_TEXT) {
        int len = v.len < 0 ? (int)strlen(v.s) : v.len;
        cr_expect_eq(sqlite3_column_bytes(s, 0), len, "%s", c->name);
        cr_expect_eq(memcmp(sqlite3_column_text(s, 0), v.s, (size_t)len), 0, "%s", c->name);
      }
    }
    if (type != SQLITE_NULL) {
      int want = strcmp(c->type, "INTEGER") == 0 ? SQLITE_INTEGER
                 : strcmp(c->type, "REAL") == 0  ? SQLITE_FLOAT
                                                 : SQLITE_TEXT;
      cr_expect_eq(type, want, "%s: a %s column holds type %d", c->name, c->type, type);
    }
    sqlite3_finalize(s);
  }
}

Test(store, every_column_is_stored_as_its_row_says) {
  char db[512];
  mapf_diag err = {0};
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[2];
  make_job(&j[0], 0, g);
  make_job(&j[1], 1, g);
  j[0].res.loops = 2;
  j[0].res.loops_done = 3;
  j[0].res.failed_moves_per_loop = 0.75;
  j[0].res.suboptimality = 1.5;
  j[0].res.coherence = NAN;
  j[0].rec.limits = (mapf_limits){100, 2.5, 7, 0};
  j[0].rec.execution = MAPF_EXEC_SINGLE_PASS;
  j[0].rec.plan_index = 12;
  snprintf(j[0].res.message, sizeof j[0].res.message, "kept as it is");
  memset(&j[1].res, 0, sizeof j[1].res);
  j[1].res.status = MAPF_STATUS_ERROR;
  j[1].res.limit = MAPF_LIMIT_SECONDS;
  j[1].res.loops = 1;
  snprintf(j[1].res.message, sizeof j[1].res.message, "it failed");
  farm_record recs[2] = {j[0].rec, j[1].rec};
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  farm_run_info info = {.plan_name = "p", .threads = 1, .shard = "1/1"};
  int64_t run_id = 0;
  cr_assert_eq(farm_store_run_begin(st, &info, &run_id, &err), 0, "%s", err.msg);
  put_ok(st, run_id, recs, 2);
  expect_stored_as_the_table_says(st, &recs[0], run_id);
  expect_stored_as_the_table_says(st, &recs[1], run_id);
  char t[128];
  q_text(st, "SELECT limit_hit || '|' || execution || '|' || loops FROM results WHERE "
             "status = 'error'",
         t, sizeof t);
  cr_expect_str_eq(t, "|chains|1");
  farm_store_close(st);
  mapf_grid_free(g);
}

Test(store, nan_metrics_become_null) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j;
  make_job(&j, 0, g);
  /* No agent completed: the means over completed agents are NaN. */
  j.res.completed = 0;
  j.res.completion_rate = 0.0;
  j.res.mean_completion_steps = NAN;
  j.res.mean_completion_seconds = NAN;
  j.agent[0].reached = 0;
  j.agent[0].completion_step = -1;
  j.agent[0].completion_seconds = -1;
  j.agent[1].travel_distance = NAN;
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, &j.rec, 1);
  cr_expect_eq(q_int(st, "SELECT mean_completion_steps IS NULL AND mean_completion_seconds "
                         "IS NULL AND completion_rate = 0 FROM results"),
               1);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM agent_results WHERE completion_step IS NULL "
                         "AND completion_seconds IS NULL"),
               2);
  cr_expect_eq(q_int(st, "SELECT travel_distance IS NULL FROM agent_results WHERE agent = 1"), 1);
  farm_store_close(st);
  mapf_grid_free(g);
}

Test(store, error_row_keeps_status_and_message_with_null_metrics) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j;
  make_job(&j, 0, g);
  memset(&j.res, 0, sizeof j.res);
  j.res.status = MAPF_STATUS_ERROR;
  snprintf(j.res.message, sizeof j.res.message, "agent 3: goal unreachable");
  j.rec.grid = NULL; /* neither the grid nor agent results are needed */
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, &j.rec, 1);
  char t[128];
  q_text(st, "SELECT status || '|' || limit_hit || '|' || message FROM results", t, sizeof t);
  cr_expect_str_eq(t, "error||agent 3: goal unreachable");
  cr_expect_eq(q_int(st, "SELECT agents FROM results"), 2);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results WHERE completion_rate IS NULL AND "
                         "completed IS NULL AND steps IS NULL AND wall_seconds IS NULL AND "
                         "expansions IS NULL AND mean_travel_distance IS NULL AND "
                         "deadlocks_broken IS NULL"),
               1);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM agent_results"), 0);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM job_errors"), 1);
  farm_store_close(st);
  mapf_grid_free(g);
}

/* The agents of one job, read through results: "agent:expansions:searches,..." in agent order. */
static void agents_of(farm_store *st, const char *key, char *out, size_t n) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT group_concat(x, ',') FROM (SELECT a.agent || ':' || a.expansions || ':' || "
           "a.searches AS x FROM agent_results AS a JOIN results AS r ON r.id = a.result_id "
           "WHERE r.job_key = '%s' ORDER BY a.agent)",
           key);
  q_text(st, sql, out, n);
}

Test(store, retry_replacing_an_error_row_writes_its_agents_under_its_own_row) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  /* Jobs 0 and 2 finish; job 1 fails (no agent rows) and gets the id between theirs. */
  job j[4], failed;
  for (int i = 0; i < 4; i++) make_job(&j[i], i, g);
  make_job(&failed, 1, g);
  memset(&failed.res, 0, sizeof failed.res);
  failed.res.status = MAPF_STATUS_ERROR;
  snprintf(failed.res.message, sizeof failed.res.message, "worker crashed");
  failed.rec.grid = NULL;
  farm_record first[3] = {j[0].rec, failed.rec, j[2].rec};
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, first, 3);
  cr_assert_eq(q_int(st, "SELECT count(*) FROM agent_results"), 4);
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT id FROM results WHERE job_key = '%s'", j[1].key);
  int64_t failed_id = q_int(st, sql);
  cr_assert_gt(failed_id, 0);
  /* --retry-failed: job 1 runs again and finishes, in a batch after a new job (3), so the last
   * row inserted is not job 1's. Its agents have their own numbers. */
  j[1].agent[0].expansions = 91;
  j[1].agent[1].expansions = 92;
  j[3].agent[0].expansions = 31;
  j[3].agent[1].expansions = 32;
  farm_record retry[2] = {j[3].rec, j[1].rec};
  put_ok(st, 0, retry, 2);
  /* Job 1 keeps its row (and id), now finished, and its two agents point at it. */
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 4);
  cr_expect_eq(q_int(st, sql), failed_id);
  char t[256];
  snprintf(sql, sizeof sql, "SELECT status || '|' || message FROM results WHERE job_key = '%s'",
           j[1].key);
  q_text(st, sql, t, sizeof t);
  cr_expect_str_eq(t, "limit|");
  agents_of(st, j[1].key, t, sizeof t);
  cr_expect_str_eq(t, "0:91:2,1:92:4");
  agents_of(st, j[3].key, t, sizeof t);
  cr_expect_str_eq(t, "0:31:2,1:32:4");
  agents_of(st, j[0].key, t, sizeof t);
  cr_expect_str_eq(t, "0:40:2,1:12:4");
  agents_of(st, j[2].key, t, sizeof t);
  cr_expect_str_eq(t, "0:40:2,1:12:4");
  /* Two agents per job, none without its job. */
  cr_expect_eq(q_int(st, "SELECT count(*) FROM agent_results"), 8);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results AS r WHERE (SELECT count(*) FROM "
                         "agent_results AS a WHERE a.result_id = r.id) <> 2"),
               0);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM agent_results AS a WHERE NOT EXISTS (SELECT 1 "
                         "FROM results AS r WHERE r.id = a.result_id)"),
               0);
  /* A finished row is not replaced again: job 1 put once more keeps its agents. */
  j[1].agent[0].expansions = 5;
  put_ok(st, 0, &j[1].rec, 1);
  agents_of(st, j[1].key, t, sizeof t);
  cr_expect_str_eq(t, "0:91:2,1:92:4");
  cr_expect_eq(q_int(st, "SELECT count(*) FROM agent_results"), 8);
  farm_store_close(st);
  mapf_grid_free(g);
}

Test(store, agent_rows_have_x_y_from_the_grid) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j;
  make_job(&j, 0, g);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, &j.rec, 1);
  char t[256];
  q_text(st, "SELECT group_concat(row, ';') FROM (SELECT agent || ':' || start_x || ',' || "
             "start_y || '>' || goal_x || ',' || goal_y || '@' || final_x || ',' || final_y || "
             "' r' || reached || ' c' || ifnull(completion_step, 'null') || ' e' || expansions "
             "|| ' f' || failed_moves || ' p' || pushed || ' s' || searches AS row FROM "
             "agent_results ORDER BY agent)",
         t, sizeof t);
  cr_expect_str_eq(t, "0:1,1>3,2@3,2 r1 c7 e40 f1 p0 s2;1:0,0>2,0@1,0 r0 cnull e12 f3 p1 s4");
  cr_expect_eq(q_real(st, "SELECT completion_seconds FROM agent_results WHERE agent = 0"), 0.25);
  cr_expect_eq(q_real(st, "SELECT travel_distance FROM agent_results WHERE agent = 0"),
               2.0 + MAPF_SQRT2);
  farm_store_close(st);
  mapf_grid_free(g);
}

/* Agent rows go out 16 to a statement, the rest one by one: 9 jobs of 2 agents make one full
 * statement and 2 single rows, each under its own job with its own values. */
Test(store, agent_rows_written_many_to_a_statement_each_stay_with_their_job) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[9];
  farm_record recs[9];
  make_jobs(j, recs, 9, g);
  for (int i = 0; i < 9; i++) {
    j[i].agent[0].expansions = 100 + i;
    j[i].agent[1].expansions = 200 + i;
    j[i].agent[1].final = i; /* cells 0 .. 8: x = i % 4, y = i / 4 */
  }
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, recs, 9);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM agent_results"), 18);
  for (int i = 0; i < 9; i++) {
    char sql[400], t[128], want[128];
    snprintf(sql, sizeof sql,
             "SELECT group_concat(agent || ':' || expansions || '@' || final_x || ',' || final_y "
             "|| ' c' || ifnull(completion_step, 'null'), ';') FROM (SELECT a.* FROM "
             "agent_results a JOIN results r ON r.id = a.result_id WHERE r.job_key = '%.32s' "
             "ORDER BY agent)",
             j[i].key);
    q_text(st, sql, t, sizeof t);
    snprintf(want, sizeof want, "0:%d@3,2 c7;1:%d@%d,%d cnull", 100 + i, 200 + i, i % 4, i / 4);
    cr_expect_str_eq(t, want, "job %d", i);
  }
  farm_store_close(st);
  mapf_grid_free(g);
}

/* Puts inside farm_store_begin's transaction are seen by other connections only once it is
 * committed, all together. */
Test(store, puts_inside_a_transaction_are_committed_together) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[5];
  farm_record recs[5];
  make_jobs(j, recs, 5, g);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  mapf_diag err = {0};
  cr_assert_eq(farm_store_begin(st, &err), 0, "%s", err.msg);
  cr_expect_eq(farm_store_begin(st, &err), -1, "a second begin is refused");
  put_ok(st, 0, recs, 2);
  put_ok(st, 0, recs + 2, 3);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 5, "the writer sees its own rows");
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM results"), 0, "another connection does not");
  cr_assert_eq(farm_store_commit(st, &err), 0, "%s", err.msg);
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM results"), 5);
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM agent_results"), 10);
  /* Committing with no transaction open does nothing; a lone put has a transaction of its own. */
  cr_expect_eq(farm_store_commit(st, &err), 0);
  job more[7];
  farm_record rmore[7];
  make_jobs(more, rmore, 7, g);
  put_ok(st, 0, rmore + 5, 2);
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM results"), 7);
  farm_store_close(st);
  mapf_grid_free(g);
}

/* A failed put rolls back the whole transaction it joined, the puts before it included; the
 * store then takes a new one. */
Test(store, a_failed_put_rolls_back_every_put_of_its_transaction) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[4];
  farm_record recs[4];
  make_jobs(j, recs, 4, g);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  char sql[320];
  snprintf(sql, sizeof sql,
           "CREATE TRIGGER boom BEFORE INSERT ON agent_results WHEN NEW.result_id = (SELECT id "
           "FROM results WHERE job_key = '%s') BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
           j[3].key);
  cr_assert_eq(sqlite3_exec(farm_store_db(st), sql, NULL, NULL, NULL), SQLITE_OK);
  mapf_diag err = {0};
  cr_assert_eq(farm_store_begin(st, &err), 0, "%s", err.msg);
  put_ok(st, 0, recs, 3);
  cr_expect_eq(farm_store_put(st, 0, recs + 3, 1, &err), -1);
  cr_expect(strstr(err.msg, "disk on fire") != NULL, "got: %s", err.msg);
  cr_expect_eq(farm_store_commit(st, &err), 0, "nothing is open any more");
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 0);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM agent_results"), 0);
  cr_assert_eq(sqlite3_exec(farm_store_db(st), "DROP TRIGGER boom", NULL, NULL, NULL),
               SQLITE_OK);
  cr_assert_eq(farm_store_begin(st, &err), 0, "%s", err.msg);
  put_ok(st, 0, recs, 4);
  cr_assert_eq(farm_store_commit(st, &err), 0, "%s", err.msg);
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM results"), 4);
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM agent_results"), 8);
  farm_store_close(st);
  mapf_grid_free(g);
}

/* Resume reads the keys from the job_key index; --retry-failed leaves out the error rows. */
Test(store, load_keys_leaves_out_error_rows_only_when_asked) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[3];
  farm_record recs[3];
  make_jobs(j, recs, 3, g);
  j[1].res.status = MAPF_STATUS_ERROR;
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, recs, 3);
  mapf_diag err = {0};
  for (int skip = 0; skip <= 1; skip++) {
    farm_keyset keys = {0};
    cr_assert_eq(farm_store_load_keys(st, &keys, skip ? FARM_KEYS_SKIP_ERRORS : 0, &err), 0, "%s",
                 err.msg);
    for (int i = 0; i < 3; i++) {
      mapf_hash128 k;
      cr_assert_eq(mapf_hash128_parse(j[i].key, &k), 0);
      cr_expect_eq(farm_keyset_has(&keys, k), !(skip && i == 1), "skip %d, job %d", skip, i);
    }
    cr_expect_eq(keys.n, skip ? 2 : 3);
    farm_keyset_free(&keys);
  }
  farm_store_close(st);
  mapf_grid_free(g);
}

/* A file without the deferred indexes (its run was killed while it had dropped them): a reader
 * reads it as it is, writing nothing; a writer's open builds them, unless told to leave that to
 * the run (FARM_STORE_DEFER_INDEXES); dropping and building again round-trips. */
Test(store, a_writer_builds_the_deferred_indexes_a_killed_run_left_out) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[3];
  farm_record recs[3];
  make_jobs(j, recs, 3, g);
  const char *count = "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN "
                      "('results_map_label', 'results_instance')";
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  char *before = test_db_rows(db, "SELECT type, name, sql FROM sqlite_master ORDER BY name");
  put_ok(st, 0, recs, 3);
  mapf_diag err = {0};
  cr_assert_eq(farm_store_drop_indexes(st, &err), 0, "%s", err.msg);
  cr_expect_eq(q_int(st, count), 0);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM sqlite_master WHERE name = 'results_run'"), 1,
               "results_run stays");
  farm_store_close(st);

  st = open_ok(db, FARM_STORE_READONLY);
  cr_expect_eq(q_int(st, count), 0);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results WHERE map = 'tiny.map' AND label = 'BMAA*'"),
               3);
  farm_store_close(st);
  st = open_ok(db, FARM_STORE_CREATE | FARM_STORE_DEFER_INDEXES);
  cr_expect_eq(q_int(st, count), 0);
  cr_expect_eq(farm_store_build_indexes(st, 2, &err), 2, "%s", err.msg);
  cr_expect_eq(farm_store_build_indexes(st, 2, &err), 0, "built once");
  cr_assert_eq(farm_store_drop_indexes(st, &err), 0, "%s", err.msg);
  farm_store_close(st);
  st = open_ok(db, FARM_STORE_CREATE);
  cr_expect_eq(q_int(st, count), 2);
  farm_store_close(st);
  char *after = test_db_rows(db, "SELECT type, name, sql FROM sqlite_master ORDER BY name");
  cr_expect_str_eq(after, before);
  free(before);
  free(after);
  mapf_grid_free(g);
}

Test(store, bad_record_is_refused_and_nothing_is_written) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[2];
  farm_record recs[2];
  make_jobs(j, recs, 2, g);
  recs[1].job_key = "not-a-key";
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  mapf_diag err = {0};
  cr_expect_eq(farm_store_put(st, 0, recs, 2, &err), -1);
  cr_expect(strstr(err.msg, "record 1: job_key must be 32 hex digits, found \"not-a-key\"") != NULL,
            "got: %s", err.msg);
  recs[1].job_key = j[1].key;
  j[1].agent[1].final = 12; /* outside the 4 x 3 grid */
  cr_expect_eq(farm_store_put(st, 0, recs, 2, &err), -1);
  cr_expect(strstr(err.msg, "agent 1 has a cell outside the 4x3 grid") != NULL, "got: %s", err.msg);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 0);
  farm_store_close(st);
  mapf_grid_free(g);
}

Test(store, failure_inside_the_batch_rolls_back_all_of_it) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[3];
  farm_record recs[3];
  make_jobs(j, recs, 3, g);
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  /* A trigger makes the third job's second agent row fail. */
  char sql[320];
  snprintf(sql, sizeof sql,
           "CREATE TRIGGER boom BEFORE INSERT ON agent_results WHEN NEW.result_id = (SELECT id "
           "FROM results WHERE job_key = '%s') AND NEW.agent = 1 BEGIN SELECT RAISE(ABORT, "
           "'disk on fire'); END",
           j[2].key);
  cr_assert_eq(sqlite3_exec(farm_store_db(st), sql, NULL, NULL, NULL), SQLITE_OK);
  mapf_diag err = {0};
  cr_expect_eq(farm_store_put(st, 0, recs, 3, &err), -1);
  cr_expect(strstr(err.msg, "disk on fire") != NULL, "got: %s", err.msg);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 0);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM agent_results"), 0);
  /* The connection is usable afterwards. */
  cr_assert_eq(sqlite3_exec(farm_store_db(st), "DROP TRIGGER boom", NULL, NULL, NULL),
               SQLITE_OK);
  put_ok(st, 0, recs, 3);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM results"), 3);
  cr_expect_eq(q_int(st, "SELECT count(*) FROM agent_results"), 6);
  farm_store_close(st);
  mapf_grid_free(g);
}

/* ---- runs ---------------------------------------------------------------------------------- */

Test(store, run_begin_and_end_record_provenance) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  farm_run_info info = {.plan_name = "quick", .plan_path = "configs/quick.yaml",
                        .plan_text = "name: quick\n", .plan_hash = "0123456789abcdef",
                        .threads = 2, .shard = "1/1", .jobs_total = 10, .jobs_pending = 4};
  int64_t run = 0, run2 = 0;
  mapf_diag err = {0};
  cr_assert_eq(farm_store_run_begin(st, &info, &run, &err), 0, "%s", err.msg);
  cr_expect_gt(run, 0);
  char t[512];
  q_text(st, "SELECT plan_name || '|' || plan_path || '|' || plan_text || '|' || plan_hash || "
             "'|' || threads || '|' || shard || '|' || jobs_total || '|' || jobs_pending || "
             "'|' || status || '|' || ifnull(ended_at, 'null') FROM runs",
         t, sizeof t);
  cr_expect_str_eq(t, "quick|configs/quick.yaml|name: quick\n|0123456789abcdef|2|1/1|10|4|"
                      "running|null");
  cr_expect_eq(q_int(st, "SELECT length(version) > 0 AND length(compiler) > 0 AND "
                         "length(cflags) > 0 AND length(host) > 0 AND started_at LIKE '____-"
                         "__-__T__:__:__Z' FROM runs"),
               1);

  /* Results point at their run. */
  mapf_grid *g = tiny_grid();
  job j;
  make_job(&j, 0, g);
  put_ok(st, run, &j.rec, 1);
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT run_id = %lld FROM results", (long long)run);
  cr_expect_eq(q_int(st, sql), 1);

  cr_assert_eq(farm_store_run_end(st, run, "done", 3, 1, 0, &err), 0, "%s", err.msg);
  q_text(st, "SELECT status || '|' || n_ok || '|' || n_limit || '|' || n_error || '|' || "
             "(ended_at >= started_at) FROM runs",
         t, sizeof t);
  cr_expect_str_eq(t, "done|3|1|0|1");
  cr_expect_eq(q_int(st, "SELECT stored FROM run_summary"), 1);

  cr_assert_eq(farm_store_run_begin(st, &info, &run2, &err), 0, "%s", err.msg);
  cr_expect_gt(run2, run);
  cr_expect_eq(farm_store_run_end(st, run2, "finished", 0, 0, 0, &err), -1);
  cr_expect(strstr(err.msg, "done, failed or interrupted") != NULL, "got: %s", err.msg);
  cr_expect_eq(farm_store_run_end(st, 999, "failed", 0, 0, 0, &err), -1);
  cr_expect(strstr(err.msg, "no run 999") != NULL, "got: %s", err.msg);
  cr_expect_eq(farm_store_run_end(st, run2, "interrupted", 0, 0, 0, &err), 0);
  farm_store_close(st);
  mapf_grid_free(g);
}

/* ---- views --------------------------------------------------------------------------------- */

Test(store, portfolio_view_picks_the_best_label_per_instance) {
  char db[512];
  path_in(db, sizeof db, "r.db");
  mapf_grid *g = tiny_grid();
  job j[3];
  farm_record recs[3];
  const char *labels[3] = {"FAR", "BMAA*", "BMAA*-f"};
  const double rates[3] = {0.5, 1.0, 1.0};
  const double steps[3] = {80.0, 30.0, 20.0};
  for (int i = 0; i < 3; i++) {
    make_job(&j[i], i, g);
    j[i].rec.instance = 0;
    j[i].rec.label = labels[i];
    j[i].res.completion_rate = rates[i];
    j[i].res.mean_completion_steps_capped = steps[i];
    recs[i] = j[i].rec;
  }
  farm_store *st = open_ok(db, FARM_STORE_CREATE);
  put_ok(st, 0, recs, 3);
  char t[128];
  q_text(st, "SELECT best_label || '|' || candidates FROM portfolio_labels", t, sizeof t);
  cr_expect_str_eq(t, "BMAA*-f|3");
  cr_expect_eq(q_int(st, "SELECT count(*) FROM portfolio_labels"), 1);
  cr_expect_eq(q_int(st, "SELECT jobs FROM report_cells WHERE label = 'FAR'"), 1);
  farm_store_close(st);
  mapf_grid_free(g);
}
