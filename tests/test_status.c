/* test_status.c: `mapfarm status` and `mapfarm runs` end to end (farm/status.c): counts on a
 * finished database, a merged one and a single shard, progress read while a run is writing,
 * and refusing a missing or foreign file without creating or touching it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#ifndef MAPFARM_BINARY
#error "MAPFARM_BINARY must name the mapfarm executable"
#endif

TEST_TMPDIR("status");
TestSuite(status, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 300);

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

/* The first row of a query as text ('|' between columns), or "" when the database is not ready
 * (a run just started may not have created its tables yet). */
static char *try_text(const char *name, const char *sql) {
  char path[512];
  in_tmp(path, sizeof path, name);
  sqlite3 *h;
  char *r = NULL;
  if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 5000);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK) {
      if (sqlite3_step(s) == SQLITE_ROW) {
        size_t len = 0;
        FILE *f = open_memstream(&r, &len);
        for (int c = 0; c < sqlite3_column_count(s); c++) {
          const char *t = (const char *)sqlite3_column_text(s, c);
          fprintf(f, "%s%s", c ? "|" : "", t ? t : "NULL");
        }
        fclose(f);
      }
      sqlite3_finalize(s);
    }
  }
  sqlite3_close(h);
  return r ? r : strdup("");
}

/* The rows of results in tmpdir/name; -1 while the database is not ready. */
static int64_t try_count(const char *name) {
  char path[512];
  in_tmp(path, sizeof path, name);
  return test_db_try_int(path, "SELECT count(*) FROM results");
}

static void exec_sql(const char *name, const char *sql) {
  char path[512];
  in_tmp(path, sizeof path, name);
  test_db_exec(path, sql);
}

/* "jobs: D of T done" in status output: D and T. */
static void jobs_line(const char *out, long long *done, long long *total) {
  const char *p = strstr(out, "  jobs: ");
  cr_assert_not_null(p, "no jobs line in:\n%s", out);
  cr_assert_eq(sscanf(p, "  jobs: %lld of %lld done", done, total), 2, "%s", out);
}

static const char *plan(const char *name) {
  static char buf[512]; /* test-local: one Criterion test per process */
  snprintf(buf, sizeof buf, "%s/tests/data/cli/%s", MAPFARM_SOURCE_DIR, name);
  return buf;
}

Test(status, counts_of_a_finished_run) {
  char *out, *err;
  int rc = mapfarm(NULL, &err, "run '%s' --db r.db --threads 2", plan("small.yaml"));
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  free(err);
  char *want = try_text("r.db", "SELECT sum(status = 'ok') || ' ok, ' || sum(status = 'limit') "
                                "|| ' limit, ' || sum(status = 'error') || ' error' FROM "
                                "results");
  char *slash = try_text("r.db", "SELECT n_ok || '/' || n_limit || '/' || n_error FROM runs");

  rc = mapfarm(&out, &err, "status --db r.db");
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  cr_assert(strstr(out, "r.db: 40 results") != NULL, "%s", out);
  cr_assert(strstr(out, "plan cli-small (plan hash ") != NULL, "%s", out);
  cr_assert(strstr(out, "  jobs: 40 of 40 done (100.0%), 0 failed [") != NULL, "%s", out);
  cr_assert(strstr(out, want) != NULL, "no \"%s\" in:\n%s", want, out);
  cr_assert(strstr(out, "  runs: 1 done\n") != NULL, "%s", out);
  cr_assert(strstr(out, "  last run 1: done, shard 1/1 on ") != NULL, "%s", out);
  cr_assert(strstr(out, ": 40 jobs in ") != NULL, "%s", out);
  cr_assert(strstr(out, "running") == NULL, "%s", out);
  free(out);
  free(err);

  rc = mapfarm(&out, &err, "runs --db r.db");
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  cr_assert(strncmp(out, "run  plan", 9) == 0, "%s", out);
  const char *heads[] = {"hash", "version", "compiler", "host", "threads", "shard", "started",
                         "ended", "status", "ok/limit/error"};
  for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
    cr_assert(strstr(out, heads[i]) != NULL, "no %s column in:\n%s", heads[i], out);
  const char *row = strchr(out, '\n') + 1;
  cr_assert(strncmp(row, "1    cli-small  ", 16) == 0, "%s", out);
  cr_assert(strstr(row, "  1/1  ") != NULL, "%s", out);
  cr_assert(strstr(row, "  2  ") != NULL, "threads: %s", out);
  cr_assert(strstr(row, "  done  ") != NULL, "%s", out);
  cr_assert(strstr(row, slash) != NULL, "no %s in:\n%s", slash, out);
  cr_assert(strstr(out, "*") == NULL, "%s", out);
  free(out);
  free(err);
  free(want);
  free(slash);
}

Test(status, a_merged_database_and_a_lone_shard) {
  char *out, *err;
  for (int i = 1; i <= 3; i++) {
    int rc = mapfarm(NULL, &err, "run '%s' --db s%d.db --shard %d/3 --threads 2",
                     plan("small.yaml"), i, i);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    free(err);
  }
  cr_assert_eq(mapfarm(NULL, NULL, "merge m.db s1.db s2.db s3.db"), 0);
  cr_assert_eq(mapfarm(&out, &err, "status --db m.db"), 0, "%s", err);
  cr_assert(strstr(out, "  jobs: 40 of 40 done (100.0%), 0 failed") != NULL, "%s", out);
  cr_assert(strstr(out, "  runs: 3 done\n") != NULL, "%s", out);
  cr_assert(strstr(out, "shards") == NULL, "%s", out);
  free(out);
  free(err);

  /* One shard alone: its own jobs are its total, and status says the others are missing. */
  cr_assert_eq(mapfarm(&out, &err, "status --db s2.db"), 0, "%s", err);
  long long done, total;
  jobs_line(out, &done, &total);
  cr_assert_eq(done, total);
  cr_assert_lt(total, 40);
  cr_assert(strstr(out, "only 1 of 3 shards have run into this file") != NULL, "%s", out);
  free(out);
  free(err);

  /* runs on the merged file: one line per shard, and where each came from. */
  cr_assert_eq(mapfarm(&out, &err, "runs --db m.db"), 0, "%s", err);
  cr_assert(strstr(out, "merged from") != NULL, "%s", out);
  for (int i = 1; i <= 3; i++) {
    char want[64];
    snprintf(want, sizeof want, "  %d/3  ", i);
    cr_assert(strstr(out, want) != NULL, "no %s in:\n%s", want, out);
    snprintf(want, sizeof want, "/s%d.db\n", i);
    cr_assert(strstr(out, want) != NULL, "no %s in:\n%s", want, out);
  }
  free(out);
  free(err);
}

/* status while another process writes the database: WAL readers see a consistent snapshot and
 * never block the writer. */
Test(status, works_while_a_run_is_writing, .timeout = 600) {
  char db[512];
  in_tmp(db, sizeof db, "live.db");
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 2);
    execl(MAPFARM_BINARY, "mapfarm", "run", plan("slow.yaml"), "--db", db, "--threads", "2",
          (char *)NULL);
    _exit(127);
  }
  int64_t n = -1;
  for (int i = 0; i < 3000 && n < 5; i++) {
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    n = try_count("live.db");
  }
  cr_assert_geq(n, 5, "the run wrote no rows");
  char *out, *err;
  int rc = mapfarm(&out, &err, "status --db live.db");
  int alive = waitpid(pid, NULL, WNOHANG) == 0;
  kill(pid, SIGKILL);
  int st;
  waitpid(pid, &st, 0);
  cr_assert(alive && WIFSIGNALED(st),
            "the run ended before status was read; make slow.yaml slower");
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  cr_assert(strstr(out, "plan cli-slow") != NULL, "%s", out);
  long long done, total;
  jobs_line(out, &done, &total);
  cr_assert_eq(total, 300, "%s", out);
  cr_assert_geq(done, 5, "%s", out);
  cr_assert_lt(done, total, "%s", out);
  cr_assert(strstr(out, "  runs: 1 running (or stopped without a clean exit)\n") != NULL, "%s",
            out);
  cr_assert(strstr(out, "  run 1: running (or stopped without a clean exit), shard 1/1") != NULL,
            "%s", out);
  cr_assert(strstr(out, "  rate: ") != NULL && strstr(out, "ETA") != NULL, "%s", out);
  free(out);
  free(err);

  /* Killed: nothing in the file can tell, so it still shows as running... */
  cr_assert_eq(mapfarm(&out, &err, "status --db live.db"), 0, "%s", err);
  cr_assert(strstr(out, "running (or stopped without a clean exit)") != NULL, "%s", out);
  free(out);
  free(err);
  cr_assert_eq(mapfarm(&out, &err, "runs --db live.db"), 0, "%s", err);
  cr_assert(strstr(out, "  running  ") != NULL, "%s", out);
  cr_assert(strstr(out, "* no recorded end") != NULL, "%s", out);
  free(out);
  free(err);

  /* ...until a later run of the same shard starts (here recorded by hand, to keep the test
   * short): then the first one was stopped, and no ETA is given. */
  exec_sql("live.db",
           "INSERT INTO runs (plan_name, plan_path, plan_hash, plan_text, version, compiler, "
           "cflags, host, threads, shard, jobs_total, jobs_pending, started_at, ended_at, "
           "status, n_ok, n_limit, n_error) SELECT plan_name, plan_path, plan_hash, plan_text, "
           "version, compiler, cflags, host, threads, shard, jobs_total, jobs_pending, "
           "strftime('%Y-%m-%dT%H:%M:%SZ', julianday(started_at) + 1), "
           "strftime('%Y-%m-%dT%H:%M:%SZ', julianday(started_at) + 1), 'interrupted', 0, 0, 0 "
           "FROM runs");
  cr_assert_eq(mapfarm(&out, &err, "status --db live.db"), 0, "%s", err);
  cr_assert(strstr(out, "  runs: 1 interrupted, 1 stopped without a clean exit (a later run of "
                        "its shard started)\n") != NULL,
            "%s", out);
  cr_assert(strstr(out, "ETA") == NULL, "%s", out);
  free(out);
  free(err);
}

Test(status, a_missing_or_foreign_file_exits_2_and_is_not_created) {
  char *out, *err;
  cr_assert_eq(mapfarm(&out, &err, "status --db none.db"), 2);
  cr_assert(strstr(err, "mapfarm: error: none.db: no such database file") != NULL, "%s", err);
  cr_assert_str_eq(out, "");
  free(out);
  free(err);
  cr_assert(!exists("none.db") && !exists("none.db-wal") && !exists("none.db-shm"));
  cr_assert_eq(mapfarm(NULL, &err, "runs --db none.db"), 2);
  free(err);
  cr_assert(!exists("none.db"));

  char path[512];
  in_tmp(path, sizeof path, "notes.txt");
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs("not a database\n", f);
  fclose(f);
  cr_assert_eq(mapfarm(NULL, &err, "status --db notes.txt"), 2);
  cr_assert(strstr(err, "not a SQLite database") != NULL, "%s", err);
  free(err);
  char *text = test_slurp_text(path);
  cr_assert_str_eq(text, "not a database\n");
  free(text);

  cr_assert_eq(mapfarm(NULL, &err, "status"), 2);
  cr_assert(strstr(err, "mapfarm status: error: --db FILE is required") != NULL, "%s", err);
  free(err);
  cr_assert_eq(mapfarm(NULL, &err, "status --db x.db --threads 2"), 2);
  cr_assert(strstr(err, "mapfarm status: error: unknown option \"--threads\"") != NULL, "%s", err);
  free(err);
}
