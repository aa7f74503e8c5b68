/* status.c: progress and run listings of a results database (status.h).
 *
 * Everything is computed by SQL over runs and results in one read transaction. The per-run
 * counts read the covering index results_run (run_id, status), so a status of a database of a
 * million jobs reads the index, not the rows. */
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "diag.h"

/* Copies a text column into buf ("" for NULL), cut to fit. */
static void col_text(sqlite3_stmt *s, int c, char *buf, size_t n) {
  const char *t = (const char *)sqlite3_column_text(s, c);
  snprintf(buf, n, "%s", t ? t : "");
}

/* A REAL column, NAN for NULL. */
static double col_real(sqlite3_stmt *s, int c) {
  return sqlite3_column_type(s, c) == SQLITE_NULL ? NAN : sqlite3_column_double(s, c);
}

static int read_failed(sqlite3 *db, mapf_diag *err) {
  farm_err(err, "%s: cannot read the database: %s", sqlite3_db_filename(db, "main"),
           sqlite3_errmsg(db));
  return -1;
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **s, mapf_diag *err) {
  if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK) return read_failed(db, err);
  return 0;
}

/* The plans, in the order they first ran: hash and name (as stored, for binding), run counts
 * by status. */
static const char sql_plans[] =
    "SELECT plan_hash, plan_name, count(*), sum(status = 'running'), sum(status = 'done'), "
    "sum(status = 'failed'), sum(status = 'interrupted') FROM runs "
    "GROUP BY plan_hash, plan_name ORDER BY min(started_at), min(run_id)";

/* A plan's rows in results (through its runs), by status. */
static const char sql_plan_rows[] =
    "SELECT count(*), sum(status = 'ok'), sum(status = 'limit'), sum(status = 'error') "
    "FROM results WHERE run_id IN "
    "(SELECT run_id FROM runs WHERE plan_hash IS ?1 AND plan_name IS ?2)";

/* A plan's runs, latest first, with their rows, duration and (while running) the age of their
 * newest row. A running run that a later run of the same shard followed is marked superseded:
 * it was almost certainly stopped without a clean exit and resumed. */
static const char sql_plan_runs[] =
    "SELECT u.run_id, u.shard, u.host, u.status, u.started_at, u.ended_at, u.jobs_total, "
    "(julianday(coalesce(u.ended_at, 'now')) - julianday(u.started_at)) * 86400.0, "
    "(SELECT count(*) FROM results AS r WHERE r.run_id = u.run_id), "
    "CASE WHEN u.status = 'running' THEN (julianday('now') - julianday("
    "(SELECT max(r.finished_at) FROM results AS r WHERE r.run_id = u.run_id))) * 86400.0 END, "
    "u.status = 'running' AND EXISTS (SELECT 1 FROM runs AS v WHERE v.plan_hash IS u.plan_hash "
    "AND v.plan_name IS u.plan_name AND v.shard IS u.shard AND (v.started_at > u.started_at OR "
    "(v.started_at = u.started_at AND v.run_id > u.run_id))) "
    "FROM runs AS u WHERE u.plan_hash IS ?1 AND u.plan_name IS ?2 "
    "ORDER BY u.started_at DESC, u.run_id DESC";

static void read_run(sqlite3_stmt *s, farm_status_run *r) {
  r->run_id = sqlite3_column_int64(s, 0);
  col_text(s, 1, r->shard, sizeof r->shard);
  col_text(s, 2, r->host, sizeof r->host);
  col_text(s, 3, r->status, sizeof r->status);
  col_text(s, 4, r->started_at, sizeof r->started_at);
  col_text(s, 5, r->ended_at, sizeof r->ended_at);
  r->seconds = col_real(s, 7);
  if (!(r->seconds >= 0)) r->seconds = NAN; /* a clock set back, or a malformed time */
  r->rows = sqlite3_column_int64(s, 8);
  r->rate = r->seconds > 0 ? (double)r->rows / r->seconds : NAN;
  r->last_row_age = col_real(s, 9);
  r->superseded = sqlite3_column_int(s, 10);
}

/* N of a shard "I/N", or 0 when it is not of that form. */
static int32_t shard_count(const char *shard, int32_t *index) {
  int i = 0, n = 0;
  char tail;
  if (sscanf(shard, "%d/%d%c", &i, &n, &tail) != 2 || i < 1 || n < 1 || i > n) return 0;
  *index = i;
  return n;
}

/* Fills the per-plan figures of p; plans is positioned on the plan's row. */
static int read_plan(sqlite3 *db, sqlite3_stmt *plans, sqlite3_stmt *rows, sqlite3_stmt *runs,
                     farm_status_plan *p, mapf_diag *err) {
  col_text(plans, 0, p->plan_hash, sizeof p->plan_hash);
  col_text(plans, 1, p->plan_name, sizeof p->plan_name);
  p->runs = sqlite3_column_int64(plans, 2);
  p->running = sqlite3_column_int64(plans, 3);
  p->finished = sqlite3_column_int64(plans, 4);
  p->failed = sqlite3_column_int64(plans, 5);
  p->interrupted = sqlite3_column_int64(plans, 6);
  p->rate = p->eta = NAN;

  sqlite3_bind_value(rows, 1, sqlite3_column_value(plans, 0));
  sqlite3_bind_value(rows, 2, sqlite3_column_value(plans, 1));
  int rc = sqlite3_step(rows);
  if (rc == SQLITE_ROW) {
    p->done = sqlite3_column_int64(rows, 0);
    p->ok = sqlite3_column_int64(rows, 1);
    p->limit = sqlite3_column_int64(rows, 2);
    p->error = sqlite3_column_int64(rows, 3);
  }
  sqlite3_reset(rows);
  if (rc != SQLITE_ROW) return read_failed(db, err);

  /* Latest first: the first row is the last run, and the first run seen of each shard is that
   * shard's latest. */
  sqlite3_bind_value(runs, 1, sqlite3_column_value(plans, 0));
  sqlite3_bind_value(runs, 2, sqlite3_column_value(plans, 1));
  int32_t *seen = NULL, nseen = 0, cap = 0;
  int first = 1;
  double active_rate = 0;
  while ((rc = sqlite3_step(runs)) == SQLITE_ROW) {
    farm_status_run r;
    memset(&r, 0, sizeof r);
    read_run(runs, &r);
    if (first) {
      p->last = r;
      int32_t i0 = 0;
      p->shard_count = shard_count(r.shard, &i0);
      first = 0;
    }
    int32_t index = 0;
    if (p->shard_count > 0 && shard_count(r.shard, &index) == p->shard_count) {
      int32_t k = 0;
      while (k < nseen && seen[k] != index) k++;
      if (k == nseen) {
        if (nseen == cap) {
          cap = cap ? 2 * cap : 16;
          int32_t *grown = realloc(seen, (size_t)cap * sizeof *grown);
          if (!grown) goto oom;
          seen = grown;
        }
        seen[nseen++] = index;
        p->total += sqlite3_column_int64(runs, 6);
      }
    }
    if (strcmp(r.status, "running") == 0 && !r.superseded) {
      farm_status_run *grown = realloc(p->active, (size_t)(p->nactive + 1) * sizeof *grown);
      if (!grown) goto oom;
      p->active = grown;
      p->active[p->nactive++] = r;
      if (r.rate >= 0) active_rate += r.rate;
    }
  }
  sqlite3_reset(runs);
  free(seen);
  if (rc != SQLITE_DONE) return read_failed(db, err);
  p->shards_seen = nseen;
  if (p->shard_count == 0) p->total = -1; /* the last run's shard is malformed */
  p->rate = p->nactive > 0 ? active_rate : p->last.rate;
  if (p->nactive > 0 && p->total >= 0 && p->rate > 0) {
    int64_t left = p->total > p->done ? p->total - p->done : 0;
    p->eta = (double)left / p->rate;
  }
  return 0;
oom:
  sqlite3_reset(runs);
  free(seen);
  farm_err(err, "out of memory reading the status");
  return -1;
}

void farm_status_free(farm_status *s) {
  if (!s) return;
  for (int32_t i = 0; i < s->nplans; i++) free(s->plans[i].active);
  free(s->plans);
  s->plans = NULL;
  s->nplans = 0;
}

int farm_status_read(farm_store *st, farm_status *out, mapf_diag *err) {
  memset(out, 0, sizeof *out);
  sqlite3 *db = farm_store_db(st);
  sqlite3_stmt *head = NULL, *plans = NULL, *rows = NULL, *runs = NULL;
  int rc = -1, src;
  /* One snapshot for every figure: a run writing meanwhile cannot make done exceed what the
   * runs table explains. */
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
    read_failed(db, err);
    return -1;
  }
  if (prepare(db,
              "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), count(*), "
              "sum(run_id IS NULL OR run_id NOT IN (SELECT run_id FROM runs)) FROM results",
              &head, err) < 0 ||
      prepare(db, sql_plans, &plans, err) < 0 ||
      prepare(db, sql_plan_rows, &rows, err) < 0 ||
      prepare(db, sql_plan_runs, &runs, err) < 0)
    goto done;
  if (sqlite3_step(head) != SQLITE_ROW) {
    read_failed(db, err);
    goto done;
  }
  col_text(head, 0, out->now, sizeof out->now);
  out->results = sqlite3_column_int64(head, 1);
  out->unowned = sqlite3_column_int64(head, 2);
  while ((src = sqlite3_step(plans)) == SQLITE_ROW) {
    farm_status_plan *grown = realloc(out->plans, (size_t)(out->nplans + 1) * sizeof *grown);
    if (!grown) {
      farm_err(err, "out of memory reading the status");
      goto done;
    }
    out->plans = grown;
    farm_status_plan *p = &out->plans[out->nplans++];
    memset(p, 0, sizeof *p);
    if (read_plan(db, plans, rows, runs, p, err) < 0) goto done;
  }
  if (src != SQLITE_DONE) {
    read_failed(db, err);
    goto done;
  }
  rc = 0;
done:
  sqlite3_finalize(head);
  sqlite3_finalize(plans);
  sqlite3_finalize(rows);
  sqlite3_finalize(runs);
  sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  if (rc < 0) farm_status_free(out);
  return rc;
}

/* Every run; a run that recorded no end gets its counts from results. */
static const char sql_runs[] =
    "SELECT u.run_id, u.plan_name, u.plan_hash, u.version, u.compiler, u.host, u.threads, "
    "u.shard, u.started_at, u.ended_at, u.status, u.merged_from, u.n_ok IS NULL, "
    "coalesce(u.n_ok, (SELECT count(*) FROM results AS r WHERE r.run_id = u.run_id AND "
    "r.status = 'ok')), "
    "coalesce(u.n_limit, (SELECT count(*) FROM results AS r WHERE r.run_id = u.run_id AND "
    "r.status = 'limit')), "
    "coalesce(u.n_error, (SELECT count(*) FROM results AS r WHERE r.run_id = u.run_id AND "
    "r.status = 'error')) "
    "FROM runs AS u ORDER BY u.run_id";

int farm_runs_list(farm_store *st, farm_run_row **rows, int32_t *n, mapf_diag *err) {
  *rows = NULL;
  *n = 0;
  sqlite3 *db = farm_store_db(st);
  sqlite3_stmt *s = NULL;
  if (prepare(db, sql_runs, &s, err) < 0) return -1;
  farm_run_row *list = NULL;
  int32_t count = 0, cap = 0;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (count == cap) {
      cap = cap ? 2 * cap : 16;
      farm_run_row *grown = realloc(list, (size_t)cap * sizeof *grown);
      if (!grown) {
        free(list);
        sqlite3_finalize(s);
        farm_err(err, "out of memory listing runs");
        return -1;
      }
      list = grown;
    }
    farm_run_row *r = &list[count++];
    memset(r, 0, sizeof *r);
    r->run_id = sqlite3_column_int64(s, 0);
    col_text(s, 1, r->plan_name, sizeof r->plan_name);
    col_text(s, 2, r->plan_hash, sizeof r->plan_hash);
    col_text(s, 3, r->version, sizeof r->version);
    col_text(s, 4, r->compiler, sizeof r->compiler);
    col_text(s, 5, r->host, sizeof r->host);
    r->threads = sqlite3_column_type(s, 6) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 6);
    col_text(s, 7, r->shard, sizeof r->shard);
    col_text(s, 8, r->started_at, sizeof r->started_at);
    col_text(s, 9, r->ended_at, sizeof r->ended_at);
    col_text(s, 10, r->status, sizeof r->status);
    col_text(s, 11, r->merged_from, sizeof r->merged_from);
    r->counted = sqlite3_column_int(s, 12);
    r->n_ok = sqlite3_column_int64(s, 13);
    r->n_limit = sqlite3_column_int64(s, 14);
    r->n_error = sqlite3_column_int64(s, 15);
  }
  if (rc != SQLITE_DONE) {
    free(list);
    read_failed(db, err);
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_finalize(s);
  *rows = list;
  *n = count;
  return 0;
}
