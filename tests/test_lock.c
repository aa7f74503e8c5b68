/* test_lock.c: one writer per database (farm/store.c's writer lock, PATH.lock), end to end with
 * the mapfarm binary: a second run or merge on a database that a live run writes stops at once
 * with exit 2 and a message naming that run, while readers go on; a lock left by a killed run
 * is taken over with a note; one written on another host is refused with how to break it; a
 * runs row counts exactly the rows its run stored; and a file mapfarm refuses gets nothing
 * created beside it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "expand.h"
#include "plan.h"
#include "pool.h"
#include "store.h"

#include "testutil.h"

#ifndef MAPFARM_BINARY
#error "MAPFARM_BINARY must name the mapfarm executable"
#endif

TEST_TMPDIR("lock");
TestSuite(lock, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 600);

/* `mapfarm ARGS` run in tmpdir, so file names are relative to it (testutil.h). */
#define mapfarm(out, err, ...) test_mapfarm(tmpdir, tmpdir, out, err, __VA_ARGS__)

static void in_tmp(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", tmpdir, name);
}

static int exists(const char *name) {
  char path[512];
  in_tmp(path, sizeof path, name);
  return access(path, F_OK) == 0;
}

static const char *plan(const char *name) {
  static char buf[2][512]; /* test-local: one Criterion test per process */
  static int k;
  k = !k;
  snprintf(buf[k], sizeof buf[k], "%s/tests/data/cli/%s", MAPFARM_SOURCE_DIR, name);
  return buf[k];
}

static void this_host(char *host, size_t n) {
  cr_assert_eq(gethostname(host, n), 0);
  host[n - 1] = '\0';
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Starts `mapfarm run PLAN --db tmpdir/DB --threads 1` in the background, its stderr in
 * tmpdir/first.err; returns its pid. */
static pid_t start_run(const char *plan_path, const char *db) {
  char path[512], errf[512];
  in_tmp(path, sizeof path, db);
  in_tmp(errf, sizeof errf, "first.err");
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    execl(MAPFARM_BINARY, "mapfarm", "run", plan_path, "--db", path, "--threads", "1",
          (char *)NULL);
    _exit(127);
  }
  return pid;
}

/* Waits (at most a minute) until the database tmpdir/db holds at least n results rows. */
static void wait_rows(const char *db, int64_t n) {
  char path[512];
  in_tmp(path, sizeof path, db);
  for (int i = 0; i < 3000 && test_db_try_int(path, "SELECT count(*) FROM results") < n; i++)
    nanosleep(&(struct timespec){0, 20000000}, NULL);
  cr_assert_geq(test_db_try_int(path, "SELECT count(*) FROM results"), n,
                "the first run stored no rows");
}

/* The runs rows of tmpdir/db, each "run_id status n_ok/n_limit/n_error stored_ok/limit/error"
 * where the last three count the results rows that name the run. */
static char *run_counts(const char *db) {
  char path[512];
  in_tmp(path, sizeof path, db);
  return test_db_rows(path,
                      "SELECT run_id, status, n_ok || '/' || n_limit || '/' || n_error, "
                      "(SELECT sum(status = 'ok') || '/' || sum(status = 'limit') || '/' || "
                      "sum(status = 'error') FROM results r WHERE r.run_id = runs.run_id) "
                      "FROM runs ORDER BY run_id");
}

/* Each runs row of tmpdir/db counts exactly the rows of its run, and there are nruns. */
static void expect_exact_counts(const char *db, int nruns) {
  char path[512];
  in_tmp(path, sizeof path, db);
  char *rows = run_counts(db);
  cr_expect_eq(test_db_int(path, "SELECT count(*) FROM runs"), nruns, "%s", rows);
  cr_expect_eq(test_db_int(path, "SELECT count(*) FROM runs WHERE n_ok || '/' || n_limit || "
                                 "'/' || n_error IS NOT (SELECT coalesce(sum(status = 'ok'), 0) "
                                 "|| '/' || coalesce(sum(status = 'limit'), 0) || '/' || "
                                 "coalesce(sum(status = 'error'), 0) FROM results r WHERE "
                                 "r.run_id = runs.run_id)"),
               0, "runs rows whose counts differ from their rows:\n%s", rows);
  free(rows);
}

/* The heart of it: while one run writes, a second run and a merge into the same file stop at
 * once with exit 2, name the first run's pid, host and start time, and write nothing; status
 * reads on. The first run then stores every job once and its runs row counts them. */
Test(lock, a_second_run_or_merge_stops_at_once_naming_the_first) {
  char *out, *err, host[256], want[800];
  this_host(host, sizeof host);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db in.db", plan("small.yaml")), 0, "%s", err);
  free(err);

  pid_t first = start_run(plan("slow.yaml"), "live.db");
  wait_rows("live.db", 1);
  cr_expect(exists("live.db.lock"), "the running run holds no lock file");

  double t0 = now();
  int rc = mapfarm(&out, &err, "run '%s' --db live.db --threads 1", plan("slow.yaml"));
  double took = now() - t0;
  int alive = waitpid(first, NULL, WNOHANG) == 0;
  cr_expect_eq(rc, 2, "exit %d: %s", rc, err);
  snprintf(want, sizeof want,
           "mapfarm: error: live.db: another mapfarm process is writing this database (pid %ld "
           "on host %s, started ",
           (long)first, host);
  cr_expect(strstr(err, want) != NULL, "no \"%s\" in:\n%s", want, err);
  cr_expect(strstr(err, "jobs run") == NULL, "the second run ran jobs:\n%s", err);
  cr_expect(alive, "the second run returned only after the first had ended (%.1f s)", took);
  cr_expect_lt(took, 10.0, "the second run took %.1f s to stop", took);
  free(out);
  free(err);

  rc = mapfarm(&out, &err, "merge live.db in.db");
  cr_expect_eq(rc, 2, "exit %d: %s", rc, err);
  cr_expect(strstr(err, want) != NULL, "no \"%s\" in:\n%s", want, err);
  cr_expect(strstr(err, "nothing was merged; live.db was not changed") != NULL, "%s", err);
  free(out);
  free(err);

  /* Readers go on while it writes. */
  rc = mapfarm(&out, &err, "status --db live.db");
  cr_expect_eq(rc, 0, "exit %d: %s", rc, err);
  cr_expect(strstr(out, "plan cli-slow") != NULL, "%s", out);
  free(out);
  free(err);
  char live[512];
  in_tmp(live, sizeof live, "live.db");
  cr_expect_eq(test_db_int(live, "SELECT count(*) FROM runs"), 1, "a refused command wrote");
  cr_expect_eq(test_db_int(live, "SELECT count(*) FROM results WHERE map LIKE 'rooms%'"), 0,
               "the merge wrote");

  int st;
  cr_assert_eq(waitpid(first, &st, 0), first);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the first run failed (status %d)", st);
  char errf[512];
  in_tmp(errf, sizeof errf, "first.err");
  char *first_err = test_slurp_text(errf);
  cr_expect(strstr(first_err, "300 jobs run") != NULL, "%s", first_err);
  free(first_err);
  cr_expect_eq(test_db_int(live, "SELECT count(*) FROM results"), 300);
  cr_expect_eq(test_db_int(live, "SELECT count(DISTINCT job_key) FROM results"), 300);
  cr_expect_eq(test_db_int(live, "SELECT n_ok + n_limit + n_error FROM runs"), 300);
  expect_exact_counts("live.db", 1);
  cr_expect_not(exists("live.db.lock"), "the lock file outlived its run");

  /* Once it has ended, the merge goes in. */
  cr_expect_eq(mapfarm(NULL, &err, "merge live.db in.db"), 0, "%s", err);
  free(err);
}

/* kill -9 leaves the lock file behind, but not the lock: the next run takes it over and says
 * so (here a run of a small plan, to keep the test short; test_cli resumes a killed plan). */
Test(lock, a_lock_left_by_a_killed_run_is_taken_over_with_a_note) {
  char host[256], want[800], *err;
  this_host(host, sizeof host);
  pid_t first = start_run(plan("slow.yaml"), "k.db");
  wait_rows("k.db", 10);
  kill(first, SIGKILL);
  int st;
  cr_assert_eq(waitpid(first, &st, 0), first);
  cr_assert(WIFSIGNALED(st), "the run ended before it could be killed; make slow.yaml slower");
  cr_expect(exists("k.db.lock"), "no lock file");

  char db[512];
  in_tmp(db, sizeof db, "k.db");
  int64_t killed = test_db_int(db, "SELECT count(*) FROM results");
  int rc = mapfarm(NULL, &err, "run '%s' --db k.db --threads 2", plan("small.yaml"));
  cr_expect_eq(rc, 0, "exit %d: %s", rc, err);
  snprintf(want, sizeof want,
           "mapfarm: note: k.db: took over the lock of a mapfarm process that ended without "
           "releasing it (pid %ld on host %s, started ",
           (long)first, host);
  cr_expect(strstr(err, want) != NULL, "no \"%s\" in:\n%s", want, err);
  free(err);
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM results"), killed + 40);
  cr_expect_not(exists("k.db.lock"));
  /* The killed run recorded no end; the second counts exactly its own rows. */
  char *rows = run_counts("k.db");
  cr_expect(strstr(rows, "2|done|") != NULL, "%s", rows);
  free(rows);
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM runs WHERE run_id = 2 AND n_ok || '/' || "
                               "n_limit || '/' || n_error = (SELECT sum(status = 'ok') || '/' "
                               "|| sum(status = 'limit') || '/' || sum(status = 'error') FROM "
                               "results WHERE run_id = 2)"),
               1);
}

/* A lock file written on another host: its process may still run where this host cannot see
 * it, so run and merge are refused, the database is left byte for byte as it was, and the
 * message says how to go on; deleting the file, as it says, does. */
Test(lock, a_lock_of_another_host_is_refused_with_how_to_break_it) {
  char *err, db[512], lock[512];
  in_tmp(db, sizeof db, "r.db");
  in_tmp(lock, sizeof lock, "r.db.lock");
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db r.db", plan("small.yaml")), 0, "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db in.db", plan("small.yaml")), 0, "%s", err);
  free(err);
  FILE *f = fopen(lock, "w");
  cr_assert_not_null(f);
  fputs("mapfarm lock\npid 4242\nhost elsewhere.example\nstarted 2024-05-01T12:00:00Z\n", f);
  fclose(f);
  size_t n0, n1;
  char *before = test_slurp_file(db, &n0);

  int rc = mapfarm(NULL, &err, "run '%s' --db r.db", plan("small.yaml"));
  cr_expect_eq(rc, 2, "exit %d: %s", rc, err);
  cr_expect(strstr(err, "mapfarm: error: r.db: r.db.lock says a mapfarm process on another host "
                        "is writing this database (pid 4242 on host elsewhere.example, started "
                        "2024-05-01T12:00:00Z), and this host cannot tell whether it still "
                        "runs; if it does not, delete r.db.lock and run the command again\n") !=
                NULL,
            "%s", err);
  free(err);
  rc = mapfarm(NULL, &err, "merge r.db in.db");
  cr_expect_eq(rc, 2, "exit %d: %s", rc, err);
  cr_expect(strstr(err, "delete r.db.lock") != NULL, "%s", err);
  free(err);
  char *after = test_slurp_file(db, &n1);
  cr_expect(n0 == n1 && memcmp(before, after, n0) == 0, "the database changed");
  free(before);
  free(after);
  cr_expect(exists("r.db.lock") && !exists("r.db-wal") && !exists("r.db-shm"));

  cr_assert_eq(unlink(lock), 0);
  cr_expect_eq(mapfarm(NULL, &err, "merge r.db in.db"), 0, "%s", err);
  free(err);
  cr_expect_not(exists("r.db.lock"));
}

/* A file mapfarm refuses (text, a newer mapfarm's database, a truncated one, another
 * program's WAL database) stays as it was, and no command creates anything beside it: no -wal
 * or -shm, which a plain SQLite reader leaves beside a WAL file, no lock file. */
Test(lock, refused_files_get_nothing_created_beside_them) {
  char *err, good[512];
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db good.db", plan("small.yaml")), 0, "%s", err);
  free(err);
  in_tmp(good, sizeof good, "good.db");
  size_t glen;
  char *gbytes = test_slurp_file(good, &glen);
  static const char *const names[] = {"text", "newer", "truncated", "foreign"};
  for (int k = 0; k < 4; k++) {
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, names[k]);
    cr_assert_eq(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/f.db", dir);
    if (k == 0) {
      FILE *f = fopen(file, "w");
      cr_assert_not_null(f);
      fputs("not a database\n", f);
      fclose(f);
    } else if (k == 1 || k == 2) {
      FILE *f = fopen(file, "wb");
      cr_assert_not_null(f);
      size_t n = k == 1 ? glen : 8192;
      cr_assert_eq(fwrite(gbytes, 1, n, f), n);
      fclose(f);
      if (k == 1) test_db_exec(file, "PRAGMA user_version = 99");
    } else {
      test_db_exec(file, "PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t "
                         "VALUES (1)");
    }
    size_t n0, n1;
    char *before = test_slurp_file(file, &n0);
    for (int c = 0; c < 6; c++) {
      int rc = c == 0   ? mapfarm(NULL, &err, "run '%s' --db '%s'", plan("small.yaml"), file)
               : c == 1 ? mapfarm(NULL, &err, "status --db '%s'", file)
               : c == 2 ? mapfarm(NULL, &err, "runs --db '%s'", file)
               : c == 3 ? mapfarm(NULL, &err, "report --db '%s' completion-rate", file)
               : c == 4 ? mapfarm(NULL, &err, "merge '%s' good.db", file)
                        : mapfarm(NULL, &err, "merge out.db '%s'", file);
      cr_expect_eq(rc, 2, "%s, command %d: exit %d: %s", names[k], c, rc, err);
      cr_expect(strstr(err, "mapfarm: error: ") != NULL, "%s", err);
      free(err);
      char *after = test_slurp_file(file, &n1);
      cr_expect(n0 == n1 && memcmp(before, after, n0) == 0, "%s, command %d: the file changed",
                names[k], c);
      free(after);
      const char *sides[] = {"-wal", "-shm", "-journal", ".lock"};
      for (int s = 0; s < 4; s++) {
        char side[700];
        snprintf(side, sizeof side, "%s%s", file, sides[s]);
        cr_expect(access(side, F_OK) != 0, "%s, command %d: %s was created", names[k], c, side);
      }
      cr_expect_not(exists("out.db"));
    }
    free(before);
  }
  free(gbytes);
}

/* ---- counts: farm_run itself, with another writer storing some of its jobs meanwhile ------ */

typedef struct intruder {
  const char *db, *ref; /* the run's database; a finished database of the same plan */
  int done;
} intruder;

/* After the run's first batch, stores every job of ref into db through a connection of its own
 * (as a sqlite3 user or a mapfarm without the lock might), under no run. */
static void intrude(void *ud, int64_t done, int64_t pending, int64_t failed, double elapsed,
                    int final) {
  (void)pending, (void)failed, (void)elapsed, (void)final;
  intruder *in = ud;
  if (in->done || done == 0) return;
  in->done = 1;
  char sql[1200];
  snprintf(sql, sizeof sql,
           "ATTACH '%s' AS ref; CREATE TEMP TABLE t AS SELECT * FROM ref.results; "
           "UPDATE t SET id = NULL, run_id = NULL; INSERT OR IGNORE INTO main.results SELECT * "
           "FROM t",
           in->ref);
  test_db_exec(in->db, sql);
}

/* A runs row counts the rows its run stored, not the jobs it computed: jobs that another
 * writer stored first are left as they were and counted apart. */
Test(lock, a_runs_row_counts_exactly_the_rows_its_run_stored) {
  char *err, db[512], ref[512];
  in_tmp(db, sizeof db, "r.db");
  in_tmp(ref, sizeof ref, "ref.db");
  cr_assert_eq(mapfarm(NULL, &err, "run '%s' --db ref.db", plan("small.yaml")), 0, "%s", err);
  free(err);

  farm_plan_opts po = {NULL, 0};
  farm_plan *p = NULL;
  farm_diags errs = {0};
  cr_assert_eq(farm_plan_load(plan("small.yaml"), &po, &p, &errs), MAPF_OK);
  farm_space sp = {0};
  cr_assert_eq(farm_space_init(&sp, p, &errs), MAPF_OK);
  farm_diags_free(&errs);
  farm_store *st = NULL;
  mapf_diag msg = {0};
  cr_assert_eq(farm_store_open(db, FARM_STORE_CREATE, &st, &msg), 0, "%s", msg.msg);
  intruder in = {db, ref, 0};
  farm_run_opts ro = {0};
  ro.threads = 1;
  ro.batch = 5;
  ro.flush_seconds = 1e-9; /* a commit after every batch, so the other writer comes in between */
  ro.progress = intrude;
  ro.progress_ud = &in;
  farm_run_summary sum;
  cr_assert_eq(farm_run(&sp, st, &ro, &sum, &msg), 0, "%s", msg.msg);
  farm_store_close(st);
  cr_assert(in.done, "the other writer never came in");

  int64_t mine = test_db_int(db, "SELECT count(*) FROM results WHERE run_id = 1");
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM results"), 40);
  cr_expect_lt(mine, 40, "the other writer stored nothing");
  cr_expect_eq(sum.ok + sum.limit + sum.error, mine);
  cr_expect_eq(sum.done, mine);
  cr_expect_eq(sum.skipped, 40 - mine);
  expect_exact_counts("r.db", 1);
  farm_space_free(&sp);
  farm_plan_free(p);
}
