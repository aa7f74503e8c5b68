/* replay.c: a stored job run again and compared with its row (replay.h). */
#include "replay.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "pool.h"

/* A value for a message: an integer, a real with every digit, text, or NULL. */
static void value_text(int type, int64_t i, double r, const char *s, char *buf, size_t n) {
  if (type == SQLITE_INTEGER)
    snprintf(buf, n, "%" PRId64, i);
  else if (type == SQLITE_FLOAT)
    snprintf(buf, n, "%.17g", r);
  else if (type == SQLITE_TEXT)
    snprintf(buf, n, "\"%.60s\"", s);
  else
    snprintf(buf, n, "NULL");
}

/* Whether the stored value (column k of s) is the rerun's v. A number compares by value
 * (SQLite may hold an integral real of an INTEGER column as an integer); a column added after
 * the file's schema (FARM_COL_NULL_UNKNOWN) that is NULL there agrees with anything. */
static int same_value(const farm_column *c, sqlite3_stmt *s, int k, const farm_value *v) {
  int t = sqlite3_column_type(s, k);
  if (t == SQLITE_NULL) return v->type == SQLITE_NULL || (c->flags & FARM_COL_NULL_UNKNOWN);
  switch (v->type) {
  case SQLITE_INTEGER:
    return t == SQLITE_INTEGER ? sqlite3_column_int64(s, k) == v->i
                               : sqlite3_column_double(s, k) == (double)v->i;
  case SQLITE_FLOAT:
    return (t == SQLITE_FLOAT || t == SQLITE_INTEGER) && sqlite3_column_double(s, k) == v->r;
  case SQLITE_TEXT: {
    const char *a = (const char *)sqlite3_column_text(s, k);
    size_t len = v->len < 0 ? strlen(v->s) : (size_t)v->len;
    return t == SQLITE_TEXT && a && (size_t)sqlite3_column_bytes(s, k) == len &&
           memcmp(a, v->s, len) == 0;
  }
  default:
    return 0;
  }
}

/* Compares every deterministic column of the stored row with the rerun. */
static int compare(sqlite3 *db, const char *key, farm_replay *r, mapf_diag *err) {
  farm_record rec;
  farm_job_record(&r->sp, &r->job, r->label, r->params, &r->res, &rec);
  farm_row row = {.rec = &rec};
  char sql[4096] = "SELECT ";
  size_t len = strlen(sql);
  int32_t cols[256], n = 0;
  for (int32_t i = 0; i < farm_ncolumns && n < 256; i++) {
    const farm_column *c = &farm_columns[i];
    if (!(c->flags & FARM_COL_COMPARED)) continue;
    len += (size_t)snprintf(sql + len, sizeof sql - len, "%s\"%s\"", n ? ", " : "", c->name);
    cols[n++] = i;
  }
  snprintf(sql + len, sizeof sql - len, " FROM results WHERE job_key = ?1");
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    /* An older file lacks some columns: name the one it lacks. */
    farm_err(err, "cannot read the stored row: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
  if (sqlite3_step(s) != SQLITE_ROW) {
    farm_err(err, "cannot read the stored row: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return -1;
  }
  for (int32_t k = 0; k < n; k++) {
    const farm_column *c = &farm_columns[cols[k]];
    farm_value v;
    farm_column_value(c, &row, &v);
    if (same_value(c, s, k, &v)) continue;
    if (r->ndiffs < FARM_REPLAY_MAX_DIFFS) {
      char a[128], b[128];
      value_text(sqlite3_column_type(s, k), sqlite3_column_int64(s, k),
                 sqlite3_column_double(s, k), (const char *)sqlite3_column_text(s, k), a,
                 sizeof a);
      value_text(v.type, v.i, v.r, v.s, b, sizeof b);
      snprintf(r->diff[r->ndiffs], sizeof r->diff[0], "%s: stored %s, replayed %s", c->name, a,
               b);
    }
    r->ndiffs++;
  }
  sqlite3_finalize(s);
  return 0;
}

int farm_replay_open(sqlite3 *db, const char *key, const farm_plan_opts *opts, farm_replay *out,
                     mapf_diag *err) {
  memset(out, 0, sizeof *out);
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT r.plan_index, r.run_id, p.plan_text, p.plan_path, r.map, "
                         "r.map_hash FROM results AS r LEFT JOIN runs AS p ON p.run_id = r.run_id "
                         "WHERE r.job_key = ?1",
                         -1, &s, NULL) != SQLITE_OK) {
    farm_err(err, "cannot read the database: %s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
  if (sqlite3_step(s) != SQLITE_ROW) {
    farm_err(err, "no job with key %s in the database", key);
    sqlite3_finalize(s);
    return -1;
  }
  int64_t index = sqlite3_column_int64(s, 0), run_id = sqlite3_column_int64(s, 1);
  const char *text = (const char *)sqlite3_column_text(s, 2);
  const char *path = (const char *)sqlite3_column_text(s, 3);
  char map[512], map_hash[32];
  snprintf(map, sizeof map, "%s", (const char *)sqlite3_column_text(s, 4));
  snprintf(map_hash, sizeof map_hash, "%s", (const char *)sqlite3_column_text(s, 5));
  if (!text) {
    farm_err(err, "job %s: its run (%" PRId64 ") kept no plan text to rebuild it from", key,
             run_id);
    sqlite3_finalize(s);
    return -1;
  }
  farm_diags ds = {0};
  int rc = farm_plan_parse(text, (size_t)sqlite3_column_bytes(s, 2), path ? path : "plan.yaml",
                           opts, &out->plan, &ds);
  sqlite3_finalize(s);
  if (rc == MAPF_OK) rc = farm_space_init(&out->sp, out->plan, &ds);
  if (rc != MAPF_OK || ds.n > 0) {
    char where[700];
    mapf_diag_format(ds.n ? &ds.items[0] : &(mapf_diag){0}, where, sizeof where);
    farm_err(err, "job %s: the plan of run %" PRId64 " cannot be rebuilt: %s", key, run_id,
             ds.n ? where : mapf_strerror(rc));
    farm_diags_free(&ds);
    farm_replay_free(out);
    return -1;
  }
  farm_diags_free(&ds);
  int found = index >= 0 && index < out->sp.njobs;
  if (found) {
    farm_space_job(&out->sp, index, &out->job);
    found = strcmp(out->job.key_hex, key) == 0;
  }
  if (!found) {
    farm_err(err,
             "job %s: the plan of run %" PRId64 " gives another job at its place %" PRId64
             " (is map %s still the map of content hash %s?)",
             key, run_id, index, map, map_hash);
    farm_replay_free(out);
    return -1;
  }
  farm_job_label(&out->sp, &out->job, out->label, sizeof out->label);
  farm_job_params_json(&out->sp, &out->job, out->params, sizeof out->params);
  out->limit_seconds = farm_algo_limits(out->plan, &out->plan->algos[out->job.algo]).seconds;
  return 0;
}

int farm_replay_run(sqlite3 *db, farm_replay *r, mapf_step_fn on_step, mapf_goal_fn on_goal,
                    mapf_cell_fn on_cell, void *ud, mapf_diag *err) {
  mapf_workspace *ws = mapf_workspace_new();
  if (!ws) return farm_err(err, "out of memory");
  farm_run_job(&r->sp, ws, &r->job, &r->res, on_step, on_goal, on_cell, ud);
  mapf_workspace_free(ws);
  return compare(db, r->job.key_hex, r, err);
}

void farm_replay_free(farm_replay *r) {
  mapf_result_clear(&r->res);
  farm_space_free(&r->sp);
  farm_plan_free(r->plan);
  r->plan = NULL;
}
