/* merge.c: combining shard databases (merge.h).
 *
 * Each input is read through its own read-only connection inside one read transaction, so a
 * shard that is still being written is seen as one consistent snapshot (a results row and its
 * agent rows are written in one transaction, so both or neither are seen). OUT is written on
 * its own connection in one BEGIN IMMEDIATE ... COMMIT spanning every input. Separate
 * connections rather than ATTACH: ATTACH is refused inside a transaction and is limited to ten
 * files, and a merge of a hundred shards must still be one transaction.
 *
 * Column lists are read from OUT's schema (PRAGMA table_info), so a column added to
 * schema/schema.sql is copied without a change here; an input that lacks one of OUT's columns
 * is refused. Values are copied with sqlite3_bind_value, which keeps their storage class and
 * bits: a merged REAL is the same double as the shard's.
 *
 * Ids are local to a file: results.id is not copied (OUT gives the row its next id), and the
 * job's agent rows, read from the input under the input's id (agent_results.result_id), are
 * written under OUT's. runs.run_id is renumbered the same way, through runs.run_uid. */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "columns.h"
#include "diag.h"
#include "store.h"

/* The column names of one table of OUT, in table order. */
typedef struct col_list {
  char **name;
  int n;
} col_list;

/* A run_id of an input and the run_id the same run has in OUT. */
typedef struct id_pair {
  int64_t in, out;
} id_pair;

typedef struct merger {
  sqlite3 *out;
  const char *out_path;
  col_list results, agents, runs; /* runs: without run_id */
  int res_id, res_key, res_run;   /* indexes in results */
  int agent_rid;                  /* index of result_id in agents */
  int run_uid, run_status, run_ended, run_ok, run_limit, run_error, run_from; /* in runs */
  /* The columns of results that must agree when OUT and an input hold the same job key: the
   * deterministic ones (FARM_COL_COMPARED, farm/columns.h), in table order; and the index of
   * each among the columns read from an input. */
  const farm_column *compared[FARM_MAX_COLUMNS];
  int ncompared;
  int conflict_at[FARM_MAX_COLUMNS];
  int32_t shown_from;             /* res->shown[shown_from..] are the current input's */
  sqlite3_stmt *find_result, *put_result, *clear_agents, *put_agent;
  sqlite3_stmt *clear_series, *put_series; /* coherence_series of OUT */
  sqlite3_stmt *in_series;                 /* of the current input; NULL when it has none */
  sqlite3_stmt *find_run, *put_run, *end_run;
  farm_merge_result *res;
  mapf_diag *err;
} merger;

static void cols_free(col_list *c) {
  for (int i = 0; i < c->n; i++) sqlite3_free(c->name[i]);
  free(c->name);
  c->name = NULL;
  c->n = 0;
}

static int cols_find(const col_list *c, const char *name) {
  for (int i = 0; i < c->n; i++)
    if (strcmp(c->name[i], name) == 0) return i;
  return -1;
}

/* Reads the columns of table in OUT, leaving out skip (NULL: none). Returns 0 or -1 with err. */
static int cols_load(merger *m, const char *table, const char *skip, col_list *c) {
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(m->out, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1,
                              &s, NULL);
  if (rc == SQLITE_OK) sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(s, 0);
    if (!name || (skip && strcmp(name, skip) == 0)) {
      rc = SQLITE_OK;
      continue;
    }
    char **grown = realloc(c->name, (size_t)(c->n + 1) * sizeof *grown);
    char *copy = sqlite3_mprintf("%s", name);
    if (!grown || !copy) {
      if (grown) c->name = grown;
      sqlite3_free(copy);
      rc = SQLITE_NOMEM;
      break;
    }
    c->name = grown;
    c->name[c->n++] = copy;
    rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(s);
  if (rc != SQLITE_OK || c->n == 0) {
    farm_err(m->err, "%s: cannot read the columns of %s: %s", m->out_path, table,
             rc != SQLITE_OK ? sqlite3_errstr(rc) : "no such table");
    return -1;
  }
  return 0;
}

/* Appends "a", "b", ... (quoted identifiers) to str. */
static void append_names(sqlite3_str *str, const col_list *c) {
  for (int i = 0; i < c->n; i++) sqlite3_str_appendf(str, "%s\"%w\"", i ? ", " : "", c->name[i]);
}

/* "INSERT INTO table (cols) VALUES (?1, ..., ?n)", or NULL when out of memory. */
static char *insert_sql(const char *table, const col_list *c) {
  sqlite3_str *str = sqlite3_str_new(NULL);
  sqlite3_str_appendf(str, "INSERT INTO \"%w\" (", table);
  append_names(str, c);
  sqlite3_str_appendall(str, ") VALUES (");
  for (int i = 0; i < c->n; i++) sqlite3_str_appendf(str, "%s?%d", i ? ", " : "", i + 1);
  sqlite3_str_appendall(str, ")");
  return sqlite3_str_finish(str);
}

/* 1 when table of db has column col. */
static int has_column(sqlite3 *db, const char *table, const char *col) {
  sqlite3_stmt *s = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &s,
                         NULL) == SQLITE_OK) {
    sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, col, -1, SQLITE_STATIC);
    found = sqlite3_step(s) == SQLITE_ROW;
  }
  sqlite3_finalize(s);
  return found;
}

/* "SELECT [first, ]cols FROM table[ tail]" on the input in, or NULL when out of memory. A
 * column of OUT that an input of the older schema version lacks (farm/store.h) is selected as
 * OUT's default for it (NULL, or loops' 0). */
static char *select_sql(sqlite3 *in, sqlite3 *out, const char *first, const col_list *c,
                        const char *table, const char *tail) {
  sqlite3_str *str = sqlite3_str_new(NULL);
  sqlite3_str_appendall(str, "SELECT ");
  if (first) sqlite3_str_appendf(str, "\"%w\", ", first);
  for (int i = 0; i < c->n; i++) {
    const char *sep = i ? ", " : "";
    if (has_column(in, table, c->name[i])) {
      sqlite3_str_appendf(str, "%s\"%w\"", sep, c->name[i]);
      continue;
    }
    sqlite3_stmt *d = NULL;
    const char *dflt = NULL;
    if (sqlite3_prepare_v2(out, "SELECT dflt_value FROM pragma_table_info(?1) WHERE name = ?2",
                           -1, &d, NULL) == SQLITE_OK) {
      sqlite3_bind_text(d, 1, table, -1, SQLITE_STATIC);
      sqlite3_bind_text(d, 2, c->name[i], -1, SQLITE_STATIC);
      if (sqlite3_step(d) == SQLITE_ROW) dflt = (const char *)sqlite3_column_text(d, 0);
    }
    sqlite3_str_appendf(str, "%s%s", sep, dflt ? dflt : "NULL");
    sqlite3_finalize(d);
  }
  sqlite3_str_appendf(str, " FROM \"%w\"%s%s", table, tail ? " " : "", tail ? tail : "");
  return sqlite3_str_finish(str);
}

/* Prepares sql (owned: freed here) on db; on failure sets err naming path. */
static int prepare_owned(sqlite3 *db, char *sql, sqlite3_stmt **s, const char *path,
                         mapf_diag *err) {
  if (!sql) {
    farm_err(err, "%s: out of memory", path);
    return -1;
  }
  int rc = sqlite3_prepare_v2(db, sql, -1, s, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    farm_err(err, "%s: %s", path, sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

static char *dup_sql(const char *sql) { return sqlite3_mprintf("%s", sql); }

/* Reads OUT's layout and prepares the statements that write it. */
static int merger_init(merger *m) {
  if (cols_load(m, "results", NULL, &m->results) < 0 ||
      cols_load(m, "agent_results", NULL, &m->agents) < 0 ||
      cols_load(m, "runs", "run_id", &m->runs) < 0)
    return -1;
  m->res_id = cols_find(&m->results, "id");
  m->res_key = cols_find(&m->results, "job_key");
  m->agent_rid = cols_find(&m->agents, "result_id");
  m->res_run = cols_find(&m->results, "run_id");
  m->run_uid = cols_find(&m->runs, "run_uid");
  m->run_status = cols_find(&m->runs, "status");
  m->run_ended = cols_find(&m->runs, "ended_at");
  m->run_ok = cols_find(&m->runs, "n_ok");
  m->run_limit = cols_find(&m->runs, "n_limit");
  m->run_error = cols_find(&m->runs, "n_error");
  m->run_from = cols_find(&m->runs, "merged_from");
  int missing = m->res_id < 0 || m->res_key < 0 || m->res_run < 0 || m->run_uid < 0 ||
                m->run_status < 0 || m->run_ended < 0 || m->run_ok < 0 || m->run_limit < 0 ||
                m->run_error < 0 || m->run_from < 0 || m->agent_rid < 0;
  for (int32_t i = 0; i < farm_ncolumns; i++) {
    if (!(farm_columns[i].flags & FARM_COL_COMPARED)) continue;
    int k = m->ncompared++;
    m->compared[k] = &farm_columns[i];
    if ((m->conflict_at[k] = cols_find(&m->results, farm_columns[i].name)) < 0) missing = 1;
  }
  if (missing) {
    farm_err(m->err, "%s: not the database layout of this mapfarm (a column of runs, results or "
             "agent_results is missing)",
             m->out_path);
    return -1;
  }
  /* What OUT holds under a key: the columns compared, in m->compared order. */
  sqlite3_str *str = sqlite3_str_new(NULL);
  sqlite3_str_appendall(str, "SELECT ");
  for (int k = 0; k < m->ncompared; k++)
    sqlite3_str_appendf(str, "%s\"%w\"", k ? ", " : "", m->compared[k]->name);
  sqlite3_str_appendall(str, " FROM results WHERE job_key = ?1");
  char *find = sqlite3_str_finish(str);
  const char *p = m->out_path;
  if (prepare_owned(m->out, find, &m->find_result, p, m->err) < 0 ||
      prepare_owned(m->out, insert_sql("results", &m->results), &m->put_result, p, m->err) < 0 ||
      prepare_owned(m->out, dup_sql("DELETE FROM agent_results WHERE result_id = ?1"),
                    &m->clear_agents, p, m->err) < 0 ||
      prepare_owned(m->out, insert_sql("agent_results", &m->agents), &m->put_agent, p,
                    m->err) < 0 ||
      prepare_owned(m->out, dup_sql("DELETE FROM coherence_series WHERE result_id = ?1"),
                    &m->clear_series, p, m->err) < 0 ||
      prepare_owned(m->out,
                    dup_sql("INSERT INTO coherence_series (result_id, step, coherence) VALUES "
                            "(?1, ?2, ?3)"),
                    &m->put_series, p, m->err) < 0 ||
      prepare_owned(m->out, dup_sql("SELECT run_id, status FROM runs WHERE run_uid = ?1"),
                    &m->find_run, p, m->err) < 0 ||
      prepare_owned(m->out, insert_sql("runs", &m->runs), &m->put_run, p, m->err) <
          0 ||
      prepare_owned(m->out,
                    dup_sql("UPDATE runs SET status = ?2, ended_at = ?3, n_ok = ?4, "
                            "n_limit = ?5, n_error = ?6 WHERE run_id = ?1"),
                    &m->end_run, p, m->err) < 0)
    return -1;
  return 0;
}

static void merger_free(merger *m) {
  sqlite3_finalize(m->find_result);
  sqlite3_finalize(m->put_result);
  sqlite3_finalize(m->clear_agents);
  sqlite3_finalize(m->put_agent);
  sqlite3_finalize(m->clear_series);
  sqlite3_finalize(m->put_series);
  sqlite3_finalize(m->find_run);
  sqlite3_finalize(m->put_run);
  sqlite3_finalize(m->end_run);
  cols_free(&m->results);
  cols_free(&m->agents);
  cols_free(&m->runs);
}

/* 1 when column ca of a and column cb of b hold the same value: NULL only equals NULL, numbers
 * compare by value (exactly: merged results are meant to be bit-identical), text and blobs by
 * their bytes. */
static int same_value(sqlite3_stmt *a, int ca, sqlite3_stmt *b, int cb) {
  int ta = sqlite3_column_type(a, ca), tb = sqlite3_column_type(b, cb);
  if (ta == SQLITE_NULL || tb == SQLITE_NULL) return ta == tb;
  int na_num = ta == SQLITE_INTEGER || ta == SQLITE_FLOAT;
  int nb_num = tb == SQLITE_INTEGER || tb == SQLITE_FLOAT;
  if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER)
    return sqlite3_column_int64(a, ca) == sqlite3_column_int64(b, cb);
  if (na_num && nb_num) return sqlite3_column_double(a, ca) == sqlite3_column_double(b, cb);
  if (ta != tb) return 0;
  const void *pa = ta == SQLITE_TEXT ? (const void *)sqlite3_column_text(a, ca)
                                     : sqlite3_column_blob(a, ca);
  int la = sqlite3_column_bytes(a, ca);
  const void *pb = tb == SQLITE_TEXT ? (const void *)sqlite3_column_text(b, cb)
                                     : sqlite3_column_blob(b, cb);
  int lb = sqlite3_column_bytes(b, cb);
  return la == lb && (la == 0 || (pa && pb && memcmp(pa, pb, (size_t)la) == 0));
}

/* A column's value as text for a conflict message: NULL, an integer, a double with every
 * digit (%.17g, so a one-bit difference shows), or quoted text cut to fit. */
static void render_value(sqlite3_stmt *s, int c, char *buf, size_t n) {
  switch (sqlite3_column_type(s, c)) {
  case SQLITE_NULL:
    snprintf(buf, n, "NULL");
    break;
  case SQLITE_INTEGER:
    snprintf(buf, n, "%lld", (long long)sqlite3_column_int64(s, c));
    break;
  case SQLITE_FLOAT:
    snprintf(buf, n, "%.17g", sqlite3_column_double(s, c));
    break;
  case SQLITE_TEXT: {
    const char *t = (const char *)sqlite3_column_text(s, c);
    int len = sqlite3_column_bytes(s, c);
    int room = (int)n - 3; /* the quotes and the terminator */
    if (len <= room)
      snprintf(buf, n, "\"%.*s\"", len, t ? t : "");
    else
      snprintf(buf, n, "\"%.*s...\"", room - 3 > 0 ? room - 3 : 0, t ? t : "");
    break;
  }
  default:
    snprintf(buf, n, "(%d-byte blob)", sqlite3_column_bytes(s, c));
    break;
  }
}

/* Steps a writing statement of OUT and resets it. Returns 0, or -1 with err. A constraint
 * failure means the input holds a row our schema refuses (sets *bad). */
static int step_out(merger *m, sqlite3_stmt *s, const char *in_path, const char *what,
                    int *bad) {
  int rc = sqlite3_step(s);
  if (rc != SQLITE_DONE) {
    if ((rc & 0xff) == SQLITE_CONSTRAINT) *bad = 1;
    farm_err(m->err, "%s: %s: %s", in_path, what, sqlite3_errmsg(m->out));
  }
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return rc == SQLITE_DONE ? 0 : -1;
}

static int64_t map_run(const id_pair *ids, int64_t n, int64_t in_id) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (ids[mid].in < in_id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && ids[lo].in == in_id ? ids[lo].out : 0;
}

/* Copies the runs of one input (column 0 of in_runs is the input's run_id, then m->runs), and
 * fills ids (sorted by the input's run_id) with the run_id each has in OUT. */
static int copy_runs(merger *m, int32_t idx, sqlite3_stmt *in_runs, const char *from,
                     id_pair **ids, int64_t *nids, int *bad) {
  farm_merge_input *fi = &m->res->inputs[idx];
  const char *path = fi->path;
  int64_t cap = 0;
  int rc;
  while ((rc = sqlite3_step(in_runs)) == SQLITE_ROW) {
    int64_t in_id = sqlite3_column_int64(in_runs, 0), out_id = 0;
    const char *in_status = (const char *)sqlite3_column_text(in_runs, 1 + m->run_status);
    int in_running = !in_status || strcmp(in_status, "running") == 0;
    sqlite3_bind_value(m->find_run, 1, sqlite3_column_value(in_runs, 1 + m->run_uid));
    int frc = sqlite3_step(m->find_run);
    int out_running = 0;
    if (frc == SQLITE_ROW) {
      out_id = sqlite3_column_int64(m->find_run, 0);
      const char *st = (const char *)sqlite3_column_text(m->find_run, 1);
      out_running = st && strcmp(st, "running") == 0;
    }
    sqlite3_reset(m->find_run);
    sqlite3_clear_bindings(m->find_run);
    if (frc != SQLITE_ROW && frc != SQLITE_DONE) {
      farm_err(m->err, "%s: cannot look up a run: %s", m->out_path,
               sqlite3_errmsg(m->out));
      return -1;
    }
    if (frc == SQLITE_ROW && out_running && !in_running) {
      /* OUT copied this run while it was going on; the input has seen its end since. */
      sqlite3_stmt *u = m->end_run;
      sqlite3_bind_int64(u, 1, out_id);
      sqlite3_bind_value(u, 2, sqlite3_column_value(in_runs, 1 + m->run_status));
      sqlite3_bind_value(u, 3, sqlite3_column_value(in_runs, 1 + m->run_ended));
      sqlite3_bind_value(u, 4, sqlite3_column_value(in_runs, 1 + m->run_ok));
      sqlite3_bind_value(u, 5, sqlite3_column_value(in_runs, 1 + m->run_limit));
      sqlite3_bind_value(u, 6, sqlite3_column_value(in_runs, 1 + m->run_error));
      if (step_out(m, u, path, "cannot record the end of a run", bad) < 0) return -1;
      fi->runs_updated++;
    } else if (frc == SQLITE_DONE) {
      sqlite3_stmt *p = m->put_run;
      for (int c = 0; c < m->runs.n; c++) {
        if (c == m->run_from && sqlite3_column_type(in_runs, 1 + c) == SQLITE_NULL)
          sqlite3_bind_text(p, c + 1, from, -1, SQLITE_STATIC);
        else
          sqlite3_bind_value(p, c + 1, sqlite3_column_value(in_runs, 1 + c));
      }
      if (step_out(m, p, path, "cannot copy a run", bad) < 0) return -1;
      out_id = sqlite3_last_insert_rowid(m->out);
      fi->runs_added++;
    }
    if (*nids == cap) {
      cap = cap ? 2 * cap : 16;
      id_pair *grown = realloc(*ids, (size_t)cap * sizeof *grown);
      if (!grown) {
        farm_err(m->err, "%s: out of memory", path);
        return -1;
      }
      *ids = grown;
    }
    (*ids)[(*nids)++] = (id_pair){in_id, out_id};
  }
  if (rc != SQLITE_DONE) {
    farm_err(m->err, "%s: cannot read runs: %s", path,
             sqlite3_errmsg(sqlite3_db_handle(in_runs)));
    return -1;
  }
  return 0;
}

/* Keeps the details of a conflict of input idx in column k among the shown ones: those of
 * earlier inputs first, then the current input's in job key order, the smallest keys kept
 * (the input is read in id order, not key order). */
static void show_conflict(merger *m, int32_t idx, sqlite3_stmt *in_res, const char *key,
                          int k) {
  farm_merge_result *r = m->res;
  int32_t n = r->nshown, pos = n;
  for (int32_t i = m->shown_from; i < n; i++)
    if (strcmp(key, r->shown[i].job_key) < 0) {
      pos = i;
      break;
    }
  if (n == FARM_MERGE_MAX_SHOWN) {
    if (pos == n) return; /* after every key shown (or no room left for this input) */
    n--;                  /* the largest key of this input makes room */
  }
  memmove(&r->shown[pos + 1], &r->shown[pos], (size_t)(n - pos) * sizeof r->shown[0]);
  r->nshown = n + 1;
  farm_merge_conflict *c = &r->shown[pos];
  c->input = idx;
  snprintf(c->job_key, sizeof c->job_key, "%s", key);
  snprintf(c->column, sizeof c->column, "%s", m->compared[k]->name);
  render_value(m->find_result, k, c->out_value, sizeof c->out_value);
  render_value(in_res, m->conflict_at[k], c->in_value, sizeof c->in_value);
}

/* Compares the row of in_res (columns m->results) with OUT's row under the same key (the
 * current row of m->find_result) and records a conflict at the first difference. A column
 * newer than the oldest schema is NULL in the rows of a file of that schema, where it was not
 * known (an input's missing column is read as NULL, select_sql): such a NULL agrees with any
 * value. */
static void compare_row(merger *m, int32_t idx, sqlite3_stmt *in_res, const char *key) {
  farm_merge_input *fi = &m->res->inputs[idx];
  for (int k = 0; k < m->ncompared; k++) {
    if (same_value(m->find_result, k, in_res, m->conflict_at[k])) continue;
    if ((m->compared[k]->flags & FARM_COL_NULL_UNKNOWN) &&
        (sqlite3_column_type(m->find_result, k) == SQLITE_NULL ||
         sqlite3_column_type(in_res, m->conflict_at[k]) == SQLITE_NULL))
      continue;
    fi->conflicts++;
    m->res->conflicts++;
    show_conflict(m, idx, in_res, key, k);
    return;
  }
  fi->present++;
}

/* Copies the agent rows of the input's job in_id (in_agents selects m->agents by result_id)
 * under out_id, the id OUT gave the job's row, after removing any orphans OUT holds under
 * out_id (agent rows whose job row was deleted by hand: SQLite hands its id out again). */
static int copy_agents(merger *m, int32_t idx, sqlite3_stmt *in_agents, int64_t in_id,
                       int64_t out_id, int *bad) {
  farm_merge_input *fi = &m->res->inputs[idx];
  sqlite3_bind_int64(m->clear_agents, 1, out_id);
  if (step_out(m, m->clear_agents, fi->path, "cannot clear orphan agent rows", bad) < 0)
    return -1;
  sqlite3_bind_int64(in_agents, 1, in_id);
  int rc;
  while ((rc = sqlite3_step(in_agents)) == SQLITE_ROW) {
    for (int c = 0; c < m->agents.n; c++) {
      if (c == m->agent_rid)
        sqlite3_bind_int64(m->put_agent, c + 1, out_id);
      else
        sqlite3_bind_value(m->put_agent, c + 1, sqlite3_column_value(in_agents, c));
    }
    if (step_out(m, m->put_agent, fi->path, "cannot copy an agent row", bad) < 0) {
      sqlite3_reset(in_agents);
      return -1;
    }
    fi->agent_rows++;
  }
  sqlite3_reset(in_agents);
  sqlite3_clear_bindings(in_agents);
  if (rc != SQLITE_DONE) {
    farm_err(m->err, "%s: cannot read agent rows: %s", fi->path,
             sqlite3_errmsg(sqlite3_db_handle(in_agents)));
    return -1;
  }
  /* The job's coherence samples, the same way. */
  sqlite3_bind_int64(m->clear_series, 1, out_id);
  if (step_out(m, m->clear_series, fi->path, "cannot clear orphan coherence rows", bad) < 0)
    return -1;
  if (!m->in_series) return 0;
  sqlite3_bind_int64(m->in_series, 1, in_id);
  while ((rc = sqlite3_step(m->in_series)) == SQLITE_ROW) {
    sqlite3_bind_int64(m->put_series, 1, out_id);
    sqlite3_bind_value(m->put_series, 2, sqlite3_column_value(m->in_series, 0));
    sqlite3_bind_value(m->put_series, 3, sqlite3_column_value(m->in_series, 1));
    if (step_out(m, m->put_series, fi->path, "cannot copy a coherence row", bad) < 0) {
      sqlite3_reset(m->in_series);
      return -1;
    }
  }
  sqlite3_reset(m->in_series);
  if (rc != SQLITE_DONE) {
    farm_err(m->err, "%s: cannot read coherence rows: %s", fi->path,
             sqlite3_errmsg(sqlite3_db_handle(m->in_series)));
    return -1;
  }
  return 0;
}

/* Copies the results of one input whose keys OUT lacks, with their agent rows; compares the
 * others. */
static int copy_results(merger *m, int32_t idx, sqlite3_stmt *in_res, sqlite3_stmt *in_agents,
                        const id_pair *ids, int64_t nids, int *bad) {
  farm_merge_input *fi = &m->res->inputs[idx];
  int rc;
  while ((rc = sqlite3_step(in_res)) == SQLITE_ROW) {
    const char *key = (const char *)sqlite3_column_text(in_res, m->res_key);
    if (!key) {
      *bad = 1;
      farm_err(m->err, "%s: results holds a row with a NULL job_key", fi->path);
      return -1;
    }
    sqlite3_bind_text(m->find_result, 1, key, -1, SQLITE_TRANSIENT);
    int frc = sqlite3_step(m->find_result);
    if (frc == SQLITE_ROW) compare_row(m, idx, in_res, key);
    sqlite3_reset(m->find_result);
    sqlite3_clear_bindings(m->find_result);
    if (frc == SQLITE_ROW) continue;
    if (frc != SQLITE_DONE) {
      farm_err(m->err, "%s: cannot look up job %s: %s", m->out_path, key,
               sqlite3_errmsg(m->out));
      return -1;
    }
    sqlite3_stmt *p = m->put_result;
    for (int c = 0; c < m->results.n; c++) {
      if (c == m->res_id) {
        sqlite3_bind_null(p, c + 1); /* OUT's next id */
        continue;
      }
      if (c != m->res_run) {
        sqlite3_bind_value(p, c + 1, sqlite3_column_value(in_res, c));
        continue;
      }
      /* The run that computed it, under its run_id in OUT; NULL when the input names none
       * (or a run that is not in its runs table). */
      int64_t out_id = sqlite3_column_type(in_res, c) == SQLITE_NULL
                           ? 0
                           : map_run(ids, nids, sqlite3_column_int64(in_res, c));
      if (out_id > 0)
        sqlite3_bind_int64(p, c + 1, out_id);
      else
        sqlite3_bind_null(p, c + 1);
    }
    char what[96];
    snprintf(what, sizeof what, "cannot copy job %.40s", key);
    if (step_out(m, p, fi->path, what, bad) < 0) return -1;
    int64_t out_id = sqlite3_last_insert_rowid(m->out); /* a plain INSERT: the row's id */
    fi->added++;
    if (copy_agents(m, idx, in_agents, sqlite3_column_int64(in_res, m->res_id), out_id, bad) <
        0)
      return -1;
  }
  if (rc != SQLITE_DONE) {
    farm_err(m->err, "%s: cannot read results: %s", fi->path,
             sqlite3_errmsg(sqlite3_db_handle(in_res)));
    return -1;
  }
  return 0;
}

static const char sql_live_runs[] =
    "SELECT count(*) FROM runs AS u WHERE u.status = 'running' AND NOT EXISTS (SELECT 1 FROM "
    "runs AS v WHERE v.plan_hash IS u.plan_hash AND v.plan_name IS u.plan_name AND v.shard IS "
    "u.shard AND (v.started_at > u.started_at OR (v.started_at = u.started_at AND v.run_id > "
    "u.run_id)))";

/* path made absolute (against the working directory; not resolved further), malloc'd, or
 * NULL when out of memory or the working directory is unknown. */
static char *absolute_path(const char *path) {
  if (path[0] == '/') return strdup(path);
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return NULL;
  size_t n = strlen(cwd) + strlen(path) + 2;
  char *abs = malloc(n);
  if (!abs) return NULL;
  const char *rel = strncmp(path, "./", 2) == 0 ? path + 2 : path;
  snprintf(abs, n, "%s/%s", cwd, rel);
  return abs;
}

/* Merges input idx into OUT (inside OUT's transaction). Returns 0, FARM_MERGE_FAILED or
 * FARM_MERGE_BAD_INPUT with err. */
static int merge_one(merger *m, int32_t idx) {
  const char *path = m->res->inputs[idx].path;
  farm_store *st = NULL;
  if (farm_store_open(path, FARM_STORE_READONLY, &st, m->err) < 0)
    return FARM_MERGE_BAD_INPUT;
  sqlite3 *in = farm_store_db(st);
  sqlite3_stmt *in_runs = NULL, *in_res = NULL, *in_agents = NULL;
  id_pair *ids = NULL;
  int64_t nids = 0;
  int bad = 0, rc = FARM_MERGE_FAILED;
  /* Where the runs came from, for runs.merged_from. */
  char *real = absolute_path(path);
  const char *from = real ? real : path;
  mapf_diag msg = {0};
  m->shown_from = m->res->nshown;
  /* One read transaction: every table of the input from the same snapshot. Its jobs are read
   * in id order, in which both results and agent_results are stored, so the input is read
   * front to back; in job key order every job's agent rows would be on another page. */
  if (sqlite3_exec(in, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
    farm_err(m->err, "%s: cannot read: %s", path, sqlite3_errmsg(in));
    goto done;
  }
  if (prepare_owned(in, select_sql(in, m->out, "run_id", &m->runs, "runs", "ORDER BY run_id"),
                    &in_runs, path, &msg) < 0 ||
      prepare_owned(in, select_sql(in, m->out, NULL, &m->results, "results", "ORDER BY id"),
                    &in_res, path, &msg) < 0 ||
      prepare_owned(in,
                    select_sql(in, m->out, NULL, &m->agents, "agent_results",
                               "WHERE result_id = ?1 ORDER BY agent"),
                    &in_agents, path, &msg) < 0 ||
      (has_column(in, "coherence_series", "result_id") &&
       prepare_owned(in,
                     dup_sql("SELECT step, coherence FROM coherence_series WHERE result_id = "
                             "?1 ORDER BY step"),
                     &m->in_series, path, &msg) < 0)) {
    farm_err(m->err, "%s (not the database layout of this mapfarm)", msg.msg);
    rc = FARM_MERGE_BAD_INPUT;
    goto done;
  }
  if (copy_runs(m, idx, in_runs, from, &ids, &nids, &bad) < 0 ||
      copy_results(m, idx, in_res, in_agents, ids, nids, &bad) < 0) {
    if (bad) rc = FARM_MERGE_BAD_INPUT;
    goto done;
  }
  /* Runs that may still be going on: no recorded end, and no later run of the same plan and
   * shard (which would mean it was stopped without a clean exit and resumed). */
  sqlite3_stmt *live = NULL;
  if (sqlite3_prepare_v2(in, sql_live_runs, -1, &live, NULL) != SQLITE_OK ||
      sqlite3_step(live) != SQLITE_ROW) {
    farm_err(m->err, "%s: cannot read runs: %s", path, sqlite3_errmsg(in));
    sqlite3_finalize(live);
    goto done;
  }
  m->res->inputs[idx].runs_running = sqlite3_column_int64(live, 0);
  sqlite3_finalize(live);
  rc = 0;
done:
  sqlite3_finalize(in_runs);
  sqlite3_finalize(in_res);
  sqlite3_finalize(in_agents);
  sqlite3_finalize(m->in_series);
  m->in_series = NULL;
  if (!sqlite3_get_autocommit(in)) sqlite3_exec(in, "COMMIT", NULL, NULL, NULL);
  farm_store_close(st);
  free(ids);
  free(real);
  return rc;
}

int farm_merge(const char *out_path, const char *const *in_paths, int32_t n,
               farm_merge_result *res, mapf_diag *err) {
  memset(res, 0, sizeof *res);
  if (!out_path || !*out_path) {
    farm_err(err, "no output database given");
    return FARM_MERGE_BAD_INPUT;
  }
  if (n <= 0 || !in_paths) {
    farm_err(err, "%s: no input databases to merge", out_path);
    return FARM_MERGE_BAD_INPUT;
  }
  res->inputs = calloc((size_t)n, sizeof *res->inputs);
  if (!res->inputs) {
    farm_err(err, "out of memory");
    return FARM_MERGE_FAILED;
  }
  res->ninputs = n;
  for (int32_t i = 0; i < n; i++) res->inputs[i].path = in_paths[i];

  /* Every input first, each opened and closed again (a merge of a thousand shards must not
   * hold a thousand files open): nothing touches OUT until all of them are good. */
  struct stat os, is;
  int out_exists = stat(out_path, &os) == 0;
  for (int32_t i = 0; i < n; i++) {
    if (out_exists && stat(in_paths[i], &is) == 0 && is.st_dev == os.st_dev &&
        is.st_ino == os.st_ino) {
      farm_err(err, "%s: is the output database; it cannot also be an input",
               in_paths[i]);
      return FARM_MERGE_BAD_INPUT;
    }
    farm_store *st = NULL;
    if (farm_store_open(in_paths[i], FARM_STORE_READONLY, &st, err) < 0)
      return FARM_MERGE_BAD_INPUT;
    farm_store_close(st);
  }

  farm_store *out = NULL;
  if (farm_store_open(out_path, FARM_STORE_CREATE, &out, err) < 0)
    return FARM_MERGE_BAD_INPUT;
  snprintf(res->note, sizeof res->note, "%s", farm_store_note(out));
  res->created = !out_exists;
  merger m = {0};
  m.out = farm_store_db(out);
  m.out_path = out_path;
  m.res = res;
  m.err = err;
  int rc = FARM_MERGE_FAILED;
  if (merger_init(&m) < 0) goto done;
  if (sqlite3_exec(m.out, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
    farm_err(err, "%s: cannot lock the database: %s", out_path, sqlite3_errmsg(m.out));
    goto done;
  }
  for (int32_t i = 0; i < n; i++) {
    int r = merge_one(&m, i);
    if (r != 0) {
      rc = r;
      goto done;
    }
  }
  /* Rows from an input of schema version 3 or older come without their limits. */
  if (farm_store_fill_limits(out, err) < 0) goto done;
  if (sqlite3_exec(m.out, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    farm_err(err, "%s: cannot commit the merge: %s", out_path, sqlite3_errmsg(m.out));
    goto done;
  }
  rc = res->conflicts > 0 ? FARM_MERGE_CONFLICTS : FARM_MERGE_OK;
done:
  /* Some errors (I/O, a full disk) end the transaction themselves. */
  if (!sqlite3_get_autocommit(m.out)) sqlite3_exec(m.out, "ROLLBACK", NULL, NULL, NULL);
  merger_free(&m);
  if (rc >= 0) {
    farm_store_close(out);
  } else {
    /* Nothing of a failed merge stays: not even the OUT it created. */
    farm_store_discard(out);
    for (int32_t i = 0; i < n; i++) {
      farm_merge_input *fi = &res->inputs[i];
      fi->added = fi->agent_rows = fi->present = fi->conflicts = 0;
      fi->runs_added = fi->runs_updated = fi->runs_running = 0;
    }
    res->conflicts = 0;
    res->nshown = 0;
  }
  return rc;
}

void farm_merge_result_free(farm_merge_result *res) {
  if (!res) return;
  free(res->inputs);
  res->inputs = NULL;
  res->ninputs = 0;
}
