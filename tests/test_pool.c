/* test_pool.c: the worker pool's writing (farm/pool.c): batches join one transaction committed
 * every flush_seconds, a run killed inside such a transaction loses only that transaction and
 * is finished exactly by running it again, progress counts only committed rows, and the
 * compute-only mode (discard) runs every job and writes nothing. */
#include <criterion/criterion.h>
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

TEST_TMPDIR("pool");
TestSuite(pool, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 600);

/* 5,000 jobs of 40 agents on a 48 x 48 map, a few tenths of a millisecond each: a run of one
 * or two seconds, with many batches to each commit. */
static const char fast_plan[] =
    "name: pool-batches\n"
    "seed: 7\n"
    "maps:\n"
    "  - generate: {kind: random, width: 48, height: 48, density: 0.1, seed: 3}\n"
    "scenarios:\n"
    "  - generator: random\n"
    "    agents: [40]\n"
    "    instances: 5000\n"
    "algorithms:\n"
    "  - name: bmaa\n"
    "limits: {steps: 300}\n";

static void in_tmp(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", tmpdir, name);
}

static void write_plan(char *path, size_t n) {
  in_tmp(path, n, "fast.yaml");
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(fast_plan, f);
  fclose(f);
}

typedef struct loaded {
  farm_plan *plan;
  farm_space sp;
} loaded;

static void load(const char *path, loaded *l) {
  farm_plan_opts po = {NULL, 0};
  farm_diags errs = {0};
  cr_assert_eq(farm_plan_load(path, &po, &l->plan, &errs), MAPF_OK);
  memset(&l->sp, 0, sizeof l->sp);
  cr_assert_eq(farm_space_init(&l->sp, l->plan, &errs), MAPF_OK);
  farm_diags_free(&errs);
}

static void unload(loaded *l) {
  farm_space_free(&l->sp);
  farm_plan_free(l->plan);
}

/* Runs the plan into db with opts (threads 2 unless set), opening it as `mapfarm run` does;
 * returns the summary. */
static farm_run_summary run_into(const char *plan, const char *db, farm_run_opts ro) {
  loaded l;
  load(plan, &l);
  farm_store *st = NULL;
  mapf_diag err = {0};
  cr_assert_eq(farm_store_open(db, FARM_STORE_CREATE | FARM_STORE_DEFER_INDEXES, &st, &err), 0,
               "%s", err.msg);
  if (ro.threads == 0) ro.threads = 2;
  farm_run_summary sum;
  cr_assert_eq(farm_run(&l.sp, st, &ro, &sum, &err), 0, "%s", err.msg);
  farm_store_close(st);
  unload(&l);
  return sum;
}

/* How many of the deferred indexes (store.h) the file at path has. */
static int64_t deferred_present(const char *path) {
  return test_db_int(path, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN "
                           "('results_map_label', 'results_instance')");
}

/* The schema of the file at path (every table, index and view with its text). */
static char *schema_of(const char *path) {
  return test_db_rows(path, "SELECT type, name, sql FROM sqlite_master ORDER BY type, name");
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Every column that does not measure time, of results and of agent_results, in key order. */
static const char same_results[] =
    "SELECT job_key, map_hash, agents, instance, params, seed, status, limit_hit, completed, "
    "completion_rate, mean_completion_steps, mean_travel_distance, steps, expansions, "
    "failed_moves, pushes, searches, solved, soc, makespan FROM results ORDER BY job_key";
static const char same_agents[] =
    "SELECT r.job_key, a.agent, a.start_x, a.start_y, a.goal_x, a.goal_y, a.final_x, a.final_y, "
    "a.reached, a.completion_step, a.travel_distance, a.expansions, a.failed_moves, a.pushed, "
    "a.searches FROM agent_results a JOIN results r ON r.id = a.result_id ORDER BY 1, 2";

/* The run writes batches of 4 jobs into a transaction committed every quarter second, and is
 * killed with SIGKILL part-way, with a transaction of many batches open and its deferred indexes
 * dropped: the file holds whole jobs only, each with its 40 agent rows, and lacks those indexes;
 * running the plan again stores exactly the rest and builds them, and the file then equals a
 * run that was never interrupted: rows, agent rows and schema. */
Test(pool, a_run_killed_inside_a_transaction_of_many_batches_finishes_exactly_on_rerun) {
  char plan[512], db[512], ref[512];
  write_plan(plan, sizeof plan);
  in_tmp(db, sizeof db, "k.db");
  in_tmp(ref, sizeof ref, "ref.db");
  const int64_t total = 5000;
  farm_run_opts ro = {0};
  ro.batch = 4;
  ro.flush_seconds = 0.25;

  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    loaded l;
    farm_plan_opts po = {NULL, 0};
    farm_diags errs = {0};
    if (farm_plan_load(plan, &po, &l.plan, &errs) != MAPF_OK) _exit(3);
    memset(&l.sp, 0, sizeof l.sp);
    if (farm_space_init(&l.sp, l.plan, &errs) != MAPF_OK) _exit(3);
    farm_store *st = NULL;
    if (farm_store_open(db, FARM_STORE_CREATE | FARM_STORE_DEFER_INDEXES, &st, NULL) < 0) _exit(3);
    ro.threads = 2;
    farm_run_summary sum;
    _exit(farm_run(&l.sp, st, &ro, &sum, NULL) < 0 ? 4 : 0);
  }
  /* Kill once a few commits are in, then a little later: inside a transaction. */
  for (double t0 = now(); now() - t0 < 120;) {
    int64_t n = test_db_try_int(db, "SELECT count(*) FROM results");
    if (n >= 600 || n == total) break;
    nanosleep(&(struct timespec){0, 2000000}, NULL);
  }
  nanosleep(&(struct timespec){0, 100000000}, NULL);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  cr_assert(WIFSIGNALED(status), "the run ended (status %d) before it could be killed",
            WEXITSTATUS(status));
  int64_t stored = test_db_int(db, "SELECT count(*) FROM results");
  cr_assert_lt(stored, total, "nothing left to resume");
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM agent_results"), 40 * stored);
  cr_expect_eq(deferred_present(db), 0, "the killed run had dropped its deferred indexes");
  cr_expect_eq(test_db_int(db, "SELECT count(*) FROM results r WHERE agents <> (SELECT count(*) "
                               "FROM agent_results a WHERE a.result_id = r.id)"),
               0);

  farm_run_summary sum = run_into(plan, db, ro);
  cr_expect_eq(sum.present, stored);
  cr_expect_eq(sum.done, total - stored);
  cr_assert_eq(test_db_int(db, "SELECT count(DISTINCT job_key) FROM results"), total);
  cr_assert_eq(test_db_int(db, "SELECT count(*) FROM results"), total);

  farm_run_opts plain = {0};
  run_into(plan, ref, plain);
  char *sa = schema_of(db), *sb = schema_of(ref);
  cr_expect_str_eq(sa, sb, "the schema differs from an uninterrupted run's");
  free(sa);
  free(sb);
  cr_expect_eq(deferred_present(db), 2);
  char *a = test_db_rows(db, same_results), *b = test_db_rows(ref, same_results);
  cr_expect(strcmp(a, b) == 0, "results differ from an uninterrupted run");
  free(a);
  free(b);
  a = test_db_rows(db, same_agents);
  b = test_db_rows(ref, same_agents);
  cr_expect(strcmp(a, b) == 0, "agent rows differ from an uninterrupted run");
  free(a);
  free(b);
}

/* Progress is reported after each commit, with what is committed: a reader sees exactly that
 * many rows. */
typedef struct watcher {
  const char *db;
  int calls, mismatches;
  int64_t last;
  off_t largest_file; /* the database file's size, without its WAL */
} watcher;

static void watch(void *ud, int64_t done, int64_t pending, int64_t failed, double elapsed,
                  int final) {
  (void)pending, (void)failed, (void)elapsed, (void)final;
  watcher *w = ud;
  w->calls++;
  int64_t n = test_db_int(w->db, "SELECT count(*) FROM results");
  if (n != done) w->mismatches++;
  w->last = done;
  struct stat sb;
  if (!final && stat(w->db, &sb) == 0 && sb.st_size > w->largest_file) w->largest_file = sb.st_size;
}

/* Batches of 2 jobs join a transaction committed every half second: the 5,000 jobs take a few
 * commits, not one or more per batch (over a thousand), and progress counts committed jobs.
 * The commits only append to the WAL: the checkpoint thread copies it into the database file,
 * which grows while the run goes on. */
Test(pool, a_commit_holds_many_batches_and_progress_counts_committed_jobs) {
  char plan[512], db[512];
  write_plan(plan, sizeof plan);
  in_tmp(db, sizeof db, "p.db");
  watcher w = {db, 0, 0, 0, 0};
  farm_run_opts ro = {0};
  ro.batch = 2;
  ro.flush_seconds = 0.5;
  ro.progress = watch;
  ro.progress_ud = &w;
  farm_run_summary sum = run_into(plan, db, ro);
  cr_expect_gt(w.calls, 1, "progress was reported %d times", w.calls);
  cr_expect_lt(w.calls, 100, "%d commits for 5,000 jobs in batches of 2", w.calls);
  cr_expect_eq(w.mismatches, 0, "%d of %d reports counted rows not yet committed", w.mismatches,
               w.calls);
  cr_expect_eq(w.last, 5000);
  cr_expect_eq(sum.done, 5000);
  cr_expect_gt(sum.writer_seconds, 0.0);
  cr_expect_gt(sum.checkpoints, 0);
  cr_expect_gt(w.largest_file, 1 << 20, "the database file stayed at %lld bytes during the run",
               (long long)w.largest_file);
  cr_expect_eq(test_db_int(db, "SELECT n_ok + n_limit + n_error FROM runs"), 5000);
}

/* The compute-only mode runs every job of the shard and needs no store. */
Test(pool, discard_runs_every_job_and_writes_nothing) {
  char plan[512];
  write_plan(plan, sizeof plan);
  loaded l;
  load(plan, &l);
  farm_run_opts ro = {0};
  ro.threads = 2;
  ro.discard = 1;
  ro.shard_index = 2;
  ro.shard_count = 5;
  farm_run_summary sum;
  mapf_diag err = {0};
  cr_assert_eq(farm_run(&l.sp, NULL, &ro, &sum, &err), 0, "%s", err.msg);
  cr_expect_gt(sum.total, 900);
  cr_expect_lt(sum.total, 1100);
  cr_expect_eq(sum.done, sum.total);
  cr_expect_eq(sum.pending, sum.total);
  cr_expect_eq(sum.ok + sum.limit + sum.error, 0, "nothing is stored");
  unload(&l);
}

/* store: {agents: false}: the same results rows, coherence samples included, and no agent
 * rows; `mapfarm dataset`, which needs each instance's agents, says why it cannot. */
Test(pool, store_agents_false_keeps_every_result_and_writes_no_agent_rows) {
  char dm[512], plan[512], with[512], without[512];
  snprintf(dm, sizeof dm, "%s/tests/data/cli/dm.yaml", MAPFARM_SOURCE_DIR);
  in_tmp(plan, sizeof plan, "dm-no-agents.yaml");
  char *text = test_slurp_text(dm);
  FILE *f = fopen(plan, "w");
  cr_assert_not_null(f);
  fprintf(f, "%sstore: {agents: false}\n", text);
  fclose(f);
  free(text);
  in_tmp(with, sizeof with, "with.db");
  in_tmp(without, sizeof without, "without.db");
  farm_run_opts ro = {0};
  run_into(dm, with, ro);
  run_into(plan, without, ro);
  cr_expect_gt(test_db_int(with, "SELECT count(*) FROM agent_results"), 0);
  cr_expect_eq(test_db_int(without, "SELECT count(*) FROM agent_results"), 0);
  cr_expect_gt(test_db_int(without, "SELECT count(*) FROM coherence_series"), 0);
  char *a = test_db_rows(with, "SELECT count(*), sum(coherence) FROM coherence_series");
  char *b = test_db_rows(without, "SELECT count(*), sum(coherence) FROM coherence_series");
  cr_expect_str_eq(a, b);
  free(a);
  free(b);
  a = test_db_rows(with, same_results);
  b = test_db_rows(without, same_results);
  cr_expect_str_eq(a, b);
  free(a);
  free(b);

  char *err;
  int rc = test_mapfarm(tmpdir, tmpdir, NULL, &err, "dataset --db without.db --out set");
  cr_expect_eq(rc, 1, "exit %d: %s", rc, err);
  cr_expect(strstr(err, "no job with agent rows (a plan with store: {agents: false} stores none)"),
            "%s", err);
  free(err);
}

/* A run that at least doubles the rows drops the deferred indexes and builds them at its end; a
 * smaller one keeps them. Seen from a reader while each run goes on. */
typedef struct index_watch {
  const char *db;
  int64_t fewest, most;
} index_watch;

static void watch_indexes(void *ud, int64_t done, int64_t pending, int64_t failed, double elapsed,
                          int final) {
  (void)done, (void)pending, (void)failed, (void)elapsed;
  index_watch *w = ud;
  if (final) return; /* the last report comes after the build */
  int64_t n = deferred_present(w->db);
  if (n < w->fewest) w->fewest = n;
  if (n > w->most) w->most = n;
}

Test(pool, a_run_that_doubles_the_rows_builds_the_deferred_indexes_at_its_end) {
  char plan[512], more[512], db[512], fresh[512];
  write_plan(plan, sizeof plan);
  in_tmp(db, sizeof db, "i.db");
  in_tmp(fresh, sizeof fresh, "fresh.db");
  index_watch w = {db, 99, -1};
  farm_run_opts ro = {0};
  ro.batch = 16;
  ro.flush_seconds = 0.05;
  ro.progress = watch_indexes;
  ro.progress_ud = &w;
  farm_run_summary sum = run_into(plan, db, ro);
  cr_expect_eq(sum.done, 5000);
  cr_expect_eq(w.most, 0, "the deferred indexes were there during the run");
  cr_expect_eq(deferred_present(db), 2, "and are there at its end");

  /* 200 more jobs beside 5,000: kept up to date row by row. */
  in_tmp(more, sizeof more, "more.yaml");
  char *text = test_slurp_text(plan);
  char *at = strstr(text, "instances: 5000");
  cr_assert_not_null(at);
  memcpy(at, "instances: 5200", 15);
  FILE *f = fopen(more, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  free(text);
  w.fewest = 99;
  w.most = -1;
  sum = run_into(more, db, ro);
  cr_expect_eq(sum.done, 200);
  cr_expect_eq(w.fewest, 2, "the indexes were dropped for a run of 200 jobs beside 5,000");

  /* 200 jobs of another plan (another seed: no key in common), beside 5,200 rows: kept too,
   * though none of the plan's jobs is there yet. */
  char other[512];
  in_tmp(other, sizeof other, "other.yaml");
  text = test_slurp_text(plan);
  at = strstr(text, "seed: 7");
  cr_assert_not_null(at);
  at[6] = '8';
  at = strstr(text, "instances: 5000");
  cr_assert_not_null(at);
  memcpy(at, "instances:  200", 15);
  f = fopen(other, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  free(text);
  w.fewest = 99;
  w.most = -1;
  sum = run_into(other, db, ro);
  cr_expect_eq(sum.done, 200);
  cr_expect_eq(sum.present, 0);
  cr_expect_eq(w.fewest, 2, "the indexes were dropped for a run of 200 jobs beside 5,200 rows");

  /* Either way the file ends as a run into a fresh file leaves it. */
  farm_run_opts plain = {0};
  run_into(more, fresh, plain);
  char *a = schema_of(db), *b = schema_of(fresh);
  cr_expect_str_eq(a, b);
  free(a);
  free(b);
  a = test_db_rows(db, "PRAGMA integrity_check");
  cr_expect_str_eq(a, "ok\n");
  free(a);
}
