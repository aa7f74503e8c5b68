/* test_safety.c: nothing damages a results database, and stopping is clean: a full disk, a
 * read-only file or directory, SIGINT and SIGTERM. Runs the mapfarm binary as a user would. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static char tmpdir[256];

static void make_tmpdir(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/mapfarm-safety-XXXXXX");
  cr_assert_not_null(mkdtemp(tmpdir));
  chmod(tmpdir, 0755);
}

static void remove_tmpdir(void) { test_remove_dir(tmpdir); }

TestSuite(safety, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 300);

/* Runs a shell command line (mapfarm is $M) with stderr captured; returns the exit status. */
static int sh(char **err, const char *fmt, ...) {
  char line[4096], cmd[8192], e[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  snprintf(e, sizeof e, "%s/stderr", tmpdir);
  snprintf(cmd, sizeof cmd, "M='%s'; (%s) >/dev/null 2>'%s'", MAPFARM_BINARY, line, e);
  int st = system(cmd);
  if (err) *err = test_slurp(e, NULL);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int integrity_ok(const char *db) {
  sqlite3 *h;
  int ok = 0;
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &s, NULL) == SQLITE_OK) {
      ok = sqlite3_step(s) == SQLITE_ROW &&
           strcmp((const char *)sqlite3_column_text(s, 0), "ok") == 0;
      sqlite3_finalize(s);
    }
  }
  sqlite3_close(h);
  return ok;
}

static void plan(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/tests/data/cli/%s", MAPFARM_SOURCE_DIR, name);
}

/* A file-size limit makes every write past it fail, as a full disk does. The run must fail
 * with a message and a non-zero status; the rows stored before stay, the file stays a sound
 * database, and a rerun without the limit finishes the work. */
Test(safety, a_full_disk_fails_the_run_and_keeps_what_was_stored) {
  char small[512], slow[512], db[512], *err;
  plan(small, sizeof small, "small.yaml");
  plan(slow, sizeof slow, "slow.yaml");
  snprintf(db, sizeof db, "%s/full.db", tmpdir);
  cr_assert_eq(sh(&err, "\"$M\" run '%s' --db '%s'", small, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_try_int(db, "SELECT count(*) FROM results"), 40);
  int rc = sh(&err, "ulimit -f 1200; trap '' XFSZ; exec \"$M\" run '%s' --db '%s' --threads 2",
              slow, db);
  cr_assert_neq(rc, 0, "a run that cannot write must fail");
  cr_assert(strstr(err, "error") != NULL, "no message: %s", err);
  free(err);
  cr_assert(integrity_ok(db), "the database is damaged");
  cr_assert_eq(
      test_db_try_int(db, "SELECT count(*) FROM results WHERE map NOT LIKE 'random-128x128%'"),
      40, "rows of the earlier run were lost");
  cr_assert_eq(sh(&err, "\"$M\" run '%s' --db '%s' --threads 2", slow, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_try_int(db, "SELECT count(*) FROM results"), 340);
  cr_assert(integrity_ok(db));
}

/* Permissions do not bind root, so the run is made as an unprivileged user when the tests run
 * as root (as in CI). */
static const char *as_user(void) {
  return geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
}

/* Copies the file at from to `to` with the given mode. */
static void copy_file(const char *from, const char *to, mode_t mode) {
  size_t n;
  char *text = test_slurp_file(from, &n);
  int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
  cr_assert_geq(fd, 0, "cannot create %s", to);
  cr_assert_eq(write(fd, text, n), (ssize_t)n, "cannot write %s", to);
  close(fd);
  chmod(to, mode); /* whatever the umask */
  free(text);
}

/* The unprivileged user may not enter the clone (a `mktemp -d` folder or root's home is
 * 0700), so the plan and the binary it runs are copied into tmpdir (0755): *bin and the plan's
 * path in small. The plan generates its maps and names no other file. */
static void user_copies(char *bin, size_t nbin, char *small, size_t nsmall) {
  char from[512];
  plan(from, sizeof from, "small.yaml");
  snprintf(small, nsmall, "%s/small.yaml", tmpdir);
  copy_file(from, small, 0644);
  snprintf(bin, nbin, "%s/mapfarm", tmpdir);
  copy_file(MAPFARM_BINARY, bin, 0755);
  /* What the unprivileged run needs, checked first so that a failure says so. */
  char *err;
  int rc = sh(&err, "%stest -r '%s' && %stest -x '%s'", as_user(), small, as_user(), bin);
  cr_assert_eq(rc, 0, "the user of the run cannot read %s or run %s %s", small, bin, err);
  free(err);
}

Test(safety, a_read_only_file_is_refused_and_left_unchanged) {
  char small[512], bin[512], db[512], *err;
  user_copies(bin, sizeof bin, small, sizeof small);
  snprintf(db, sizeof db, "%s/ro.db", tmpdir);
  cr_assert_eq(sh(&err, "\"$M\" run '%s' --db '%s'", small, db), 0, "%s", err);
  free(err);
  chmod(db, 0444);
  size_t n1, n2;
  char *before = test_slurp(db, &n1);
  int rc = sh(&err, "cd / && %s'%s' run '%s' --db '%s'", as_user(), bin, small, db);
  cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "read-only") != NULL || strstr(err, "readonly") != NULL, "%s", err);
  free(err);
  char *after = test_slurp(db, &n2);
  cr_assert(n1 == n2 && memcmp(before, after, n1) == 0, "the file changed");
  free(before);
  free(after);
}

Test(safety, a_read_only_directory_is_refused_with_a_message) {
  char small[512], bin[512], dir[512], db[600], *err;
  user_copies(bin, sizeof bin, small, sizeof small);
  snprintf(dir, sizeof dir, "%s/locked", tmpdir);
  cr_assert_eq(mkdir(dir, 0555), 0);
  snprintf(db, sizeof db, "%s/new.db", dir);
  int rc = sh(&err, "cd / && %s'%s' run '%s' --db '%s'", as_user(), bin, small, db);
  cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
  cr_assert(strstr(err, db) != NULL, "the message names the file: %s", err);
  free(err);
  cr_assert_eq(access(db, F_OK), -1, "nothing was created");
}

/* SIGINT and SIGTERM: finished jobs are written, the run is marked interrupted, the message
 * says how to resume, and the exit status is 128 + the signal. */
static void stop_with(int sig) {
  char slow[512], db[512], errf[512];
  plan(slow, sizeof slow, "slow.yaml");
  snprintf(db, sizeof db, "%s/sig.db", tmpdir);
  snprintf(errf, sizeof errf, "%s/run.err", tmpdir);
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    execl(MAPFARM_BINARY, "mapfarm", "run", slow, "--db", db, "--threads", "2", (char *)NULL);
    _exit(127);
  }
  for (int i = 0; i < 600 && test_db_try_int(db, "SELECT count(*) FROM results") < 10; i++)
    nanosleep(&(struct timespec){0, 20000000}, NULL);
  kill(pid, sig);
  int st;
  waitpid(pid, &st, 0);
  cr_assert(WIFEXITED(st), "the run must exit, not die, on signal %d", sig);
  cr_assert_eq(WEXITSTATUS(st), 128 + sig);
  char *err = test_slurp(errf, NULL);
  cr_assert(strstr(err, "Run the same command again") != NULL, "%s", err);
  free(err);
  int64_t stored = test_db_try_int(db, "SELECT count(*) FROM results");
  cr_assert_gt(stored, 0);
  cr_assert_lt(stored, 300);
  cr_assert_eq(test_db_try_int(db, "SELECT count(*) FROM runs WHERE status = 'interrupted'"), 1);
  cr_assert_eq(test_db_try_int(db, "SELECT n_ok + n_limit + n_error FROM runs"), stored);
  cr_assert_eq(sh(&err, "\"$M\" run '%s' --db '%s' --threads 2", slow, db), 0, "%s", err);
  free(err);
  cr_assert_eq(test_db_try_int(db, "SELECT count(*) FROM results"), 300);
}

Test(safety, sigint_stops_cleanly_and_the_rerun_finishes) { stop_with(SIGINT); }

Test(safety, sigterm_stops_cleanly_and_the_rerun_finishes) { stop_with(SIGTERM); }
