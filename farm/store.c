/* store.c: the SQLite results database (store.h; the layout is schema/schema.sql and
 * schema/views.sql, compiled in by cmake/embed.cmake).
 *
 * Opening never writes to a file that is not ours: an existing file is first inspected (its
 * header, then a read-only connection that creates nothing beside it: is it SQLite at all, whose
 * application_id, which schema version), and only a mapfarm database, an empty file or a new
 * path is opened for writing, under the writer lock (PATH.lock, see lock_take).
 * Every statement is prepared once at open and reused; farm_store_put writes a batch in one
 * BEGIN IMMEDIATE ... COMMIT transaction, or joins the one farm_store_begin opened (the pool's,
 * committed once a second), so a crash loses at most the transaction being written.
 *
 * A job's agent rows refer to its results row by results.id (schema/schema.sql).
 *
 * Views are definitions only, so they are kept current without a schema version: a file
 * opened for writing whose views differ from this binary's views.sql gets them replaced, and
 * a read-only connection to such a file gets them as TEMP views (refresh_views,
 * shadow_views). */
/* realpath (an XSI interface in glibc's headers); implies the POSIX 2008 the build asks for. */
#define _XOPEN_SOURCE 700

#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "columns.h"
#include "diag.h"
#include "plan.h" /* farm_plan_read_limits: the limits of a stored plan */

/* Provenance strings; CMake defines them for the farm library (CMakeLists.txt). The defaults
 * keep isolated builds working. */
#ifndef MAPFARM_VERSION
#define MAPFARM_VERSION "0.0.0"
#endif
#include "mapfarm_version.h" /* MAPFARM_GIT, generated at build time */
#ifndef MAPFARM_COMPILER
#if defined(__clang__)
#define MAPFARM_COMPILER "Clang " __clang_version__
#elif defined(__GNUC__)
#define MAPFARM_COMPILER "GNU " __VERSION__
#else
#define MAPFARM_COMPILER "unknown"
#endif
#endif
#ifndef MAPFARM_CFLAGS
#define MAPFARM_CFLAGS "unknown"
#endif


/* The schema text, generated from schema/schema.sql and schema/views.sql. */
extern const char farm_schema_sql[];
extern const char farm_views_sql[];

/* How long a statement waits for another connection's lock before failing with "database is
 * locked" (a reader at the sqlite3 prompt checkpointing, or writing outside mapfarm; a second
 * mapfarm writer is refused by the writer lock instead). */
#define FARM_STORE_BUSY_MS 15000

/* The current time as ISO 8601 UTC, evaluated by SQLite once per statement. */
#define FARM_SQL_NOW "strftime('%Y-%m-%dT%H:%M:%SZ','now')"

/* The columns of an agent row, and how many rows one INSERT of put_agents writes: a statement
 * per row cost twice what SQLite's work on the row itself does (binding, stepping, resetting). */
#define AGENT_COLS 19
#define AGENT_ROWS 16

/* One value of an agent row: an integer, a real or NULL. */
typedef struct agent_value {
  int type; /* SQLITE_INTEGER, SQLITE_FLOAT or SQLITE_NULL */
  int64_t i;
  double r;
} agent_value;

typedef struct agent_row {
  agent_value v[AGENT_COLS];
} agent_row;

/* The background checkpointer (farm_store_checkpoints_start). */
typedef struct checkpointer {
  sqlite3 *db; /* a connection of its own, used by its thread only */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int pending, stop; /* under lock */
  int64_t runs;      /* checkpoints it ran (read after the join) */
} checkpointer;

struct farm_store {
  sqlite3 *db;
  char *path;   /* for messages */
  int readonly; /* opened with FARM_STORE_READONLY */
  int created;  /* the open created the file */
  sqlite3_stmt *begin, *commit, *rollback;
  sqlite3_stmt *put_result, *find_id, *clear_agents, *put_agent, *put_agents, *agents_max;
  /* Agent rows waiting for put_agents, which writes AGENT_ROWS at a time (flush_agents). */
  agent_row pending[AGENT_ROWS];
  int32_t npending;
  sqlite3_stmt *clear_series, *put_sample, *series_max;
  /* The largest result_id in agent_results and in coherence_series, read at the start of each
   * transaction (a program other than mapfarm may write the file between them) and raised as
   * rows are written. */
  int64_t agents_top, series_top;
  int txn; /* inside a transaction of farm_store_begin, which farm_store_put joins */
  checkpointer *ckpt; /* running between farm_store_checkpoints_start and _stop */
  sqlite3_stmt *run_begin, *run_end;
  sqlite3_stmt *keys, *keys_ok;
  farm_put_counts last_put; /* what the last farm_store_put wrote */
  int lock_fd;              /* the writer lock's file, held (flock); -1 for a reader */
  char *lock_path;          /* PATH.lock */
  char note[640];           /* farm_store_note */
};

/* "INSERT INTO results (every column the store writes) VALUES (?1, ...) ON CONFLICT ...", made
 * from the table of columns (farm/columns.h) in its order, so parameter k binds the k-th column
 * written (put_one). A key already present is left as it is, unless its row records an error:
 * a job run again with --retry-failed replaces its error row, which keeps its id. No RETURNING
 * clause: SQLite runs one through a temporary table per execution, which cost a tiny job a
 * quarter of its time; put_one finds the id without it. Returns NULL when out of memory. */
static char *put_result_sql(void) {
  sqlite3_str *str = sqlite3_str_new(NULL);
  int n = 0;
  sqlite3_str_appendall(str, "INSERT INTO results (");
  for (int32_t i = 0; i < farm_ncolumns; i++)
    if (farm_columns[i].src != FARM_COL_ROWID)
      sqlite3_str_appendf(str, "%s%s", n++ ? ", " : "", farm_columns[i].name);
  sqlite3_str_appendall(str, ") VALUES (");
  for (int k = 1; k <= n; k++) sqlite3_str_appendf(str, "%s?%d", k > 1 ? ", " : "", k);
  sqlite3_str_appendall(str, ") ON CONFLICT (job_key) DO UPDATE SET ");
  n = 0;
  for (int32_t i = 0; i < farm_ncolumns; i++) {
    const char *name = farm_columns[i].name;
    if (farm_columns[i].src == FARM_COL_ROWID || strcmp(name, "job_key") == 0) continue;
    sqlite3_str_appendf(str, "%s%s = excluded.%s", n++ ? ", " : "", name, name);
  }
  sqlite3_str_appendall(str, " WHERE results.status = 'error'");
  return sqlite3_str_finish(str);
}

/* The id of a replaced error row (the upsert's UPDATE sets no last-insert rowid). */
static const char sql_find_id[] = "SELECT id FROM results WHERE job_key = ?1";

/* Agent rows are written only right after their job's row was inserted (or its error row
 * replaced), so any row already under that id is an orphan: left by a job row deleted by hand
 * whose id SQLite has since handed out again (it reuses the largest), or by an error row that
 * was made by hand from a finished job. clear_agents removes them first. It runs only for an
 * id no larger than the largest result_id in agent_results (agents_max): above it there is
 * nothing to remove, and a new row's id nearly always is (a statement per job saved). */
static const char sql_clear_agents[] = "DELETE FROM agent_results WHERE result_id = ?1";
static const char sql_agents_max[] = "SELECT coalesce(max(result_id), 0) FROM agent_results";
static const char sql_clear_series[] = "DELETE FROM coherence_series WHERE result_id = ?1";
static const char sql_series_max[] =
    "SELECT coalesce(max(result_id), 0) FROM coherence_series";
static const char sql_put_sample[] =
    "INSERT INTO coherence_series (result_id, step, coherence) VALUES (?1, ?2, ?3)";

/* "INSERT INTO agent_results (...) VALUES (?1, ..., ?18), (?19, ...)...": rows agent rows at
 * once, parameter k of row r being column k of the row (AGENT_COLS a row). Returns NULL when
 * out of memory. */
static char *put_agents_sql(int32_t rows) {
  sqlite3_str *str = sqlite3_str_new(NULL);
  sqlite3_str_appendall(str,
                        "INSERT INTO agent_results (result_id, agent, start_x, start_y, goal_x, "
                        "goal_y, final_x, final_y, reached, completion_step, completion_seconds, "
                        "travel_distance, expansions, failed_moves, pushed, searches, "
                        "optimal_distance, loops_done, tasks_done) VALUES ");
  for (int32_t r = 0, k = 1; r < rows; r++) {
    sqlite3_str_appendall(str, r ? ", (" : "(");
    for (int32_t c = 0; c < AGENT_COLS; c++, k++)
      sqlite3_str_appendf(str, "%s?%d", c ? ", " : "", (int)k);
    sqlite3_str_appendall(str, ")");
  }
  return sqlite3_str_finish(str);
}

/* runs.run_uid, the run's identity across databases (`mapfarm merge` matches runs on it), is
 * left to its column default: 16 random bytes from SQLite's generator, which the OS seeds. */
static const char sql_run_begin[] =
    "INSERT INTO runs (plan_name, plan_path, plan_hash, plan_text, version, compiler, cflags, "
    "host, threads, shard, jobs_total, jobs_pending, cpu, started_at, status) VALUES (?1, ?2, "
    "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, " FARM_SQL_NOW ", 'running')";

static const char sql_run_end[] =
    "UPDATE runs SET status = ?2, ended_at = " FARM_SQL_NOW
    ", n_ok = ?3, n_limit = ?4, n_error = ?5 WHERE run_id = ?1";

/* Every key, read from the job_key index (about 45 bytes a row) rather than from the rows
 * (hundreds): so a resume reads a tenth of the file. Without error rows (--retry-failed), the
 * status needs the rows. */
static const char sql_keys[] = "SELECT job_key FROM results";
static const char sql_keys_ok[] = "SELECT job_key FROM results WHERE status <> 'error'";

static void store_close(farm_store *st, int remove);

/* Runs sql and reads the first column of its first row as an integer into *out (0 when there
 * is no row). Returns the SQLite result code of the failing call, or SQLITE_OK. */
static int query_int(sqlite3 *db, const char *sql, int64_t *out) {
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(s);
    return rc;
  }
  rc = sqlite3_step(s);
  *out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(s);
  return rc;
}

/* Decides what the database on db holds, through queries that only read. Sets *fresh to 1 for
 * an empty database (no application_id, no schema objects: a new or empty file), to 0 for a
 * mapfarm database of our schema version. Anything else is refused: -1 with err. */
static int classify(sqlite3 *db, const char *path, int *fresh, int *old, mapf_diag *err) {
  *old = 0;
  int64_t app = 0, version = 0, objects = 0, ours = 0;
  int rc = query_int(db, "PRAGMA application_id", &app);
  if (rc == SQLITE_OK) rc = query_int(db, "PRAGMA user_version", &version);
  if (rc == SQLITE_OK) rc = query_int(db, "SELECT count(*) FROM sqlite_master", &objects);
  if (rc == SQLITE_OK)
    rc = query_int(db,
                   "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                   "('runs', 'results', 'agent_results')",
                   &ours);
  if ((rc & 0xff) == SQLITE_NOTADB) {
    farm_err(err, "%s: not a SQLite database", path);
    return -1;
  }
  if ((rc & 0xff) == SQLITE_CORRUPT) {
    farm_err(err, "%s: damaged database (%s); left untouched", path,
             sqlite3_errmsg(db));
    return -1;
  }
  if (rc != SQLITE_OK) {
    farm_err(err, "%s: cannot read the database: %s", path, sqlite3_errmsg(db));
    return -1;
  }
  uint32_t app_id = (uint32_t)app;
  if (app_id == 0 && objects == 0) {
    *fresh = 1;
    return 0;
  }
  if (app_id != FARM_APPLICATION_ID) {
    farm_err(err, "%s: not a mapfarm database (application_id 0x%08" PRIx32 ", expected "
             "0x%08x); left untouched",
             path, app_id, (unsigned)FARM_APPLICATION_ID);
    return -1;
  }
  if (ours != 3) {
    farm_err(err,
             "%s: damaged mapfarm database: tables runs, results and agent_results are not all "
             "there",
             path);
    return -1;
  }
  if (version >= FARM_SCHEMA_OLDEST && version < FARM_SCHEMA_VERSION) {
    *old = (int)version;
    *fresh = 0;
    return 0;
  }
  if (version != FARM_SCHEMA_VERSION) {
    /* No migration from older versions: such a file stays readable by the mapfarm that
     * wrote it. */
    farm_err(err, "%s: mapfarm database of schema version %" PRId64 "%s; this mapfarm reads "
             "schema versions %d to %d only; left untouched",
             path, version,
             version > FARM_SCHEMA_VERSION ? " (written by a newer mapfarm)"
             : version > 0                 ? " (written by an older mapfarm)"
                                           : "",
             FARM_SCHEMA_OLDEST, FARM_SCHEMA_VERSION);
    return -1;
  }
  *fresh = 0;
  return 0;
}

/* path as a "file:" URI (sqlite.org/uri.html) with the query q: '?', '#', '%' and control
 * bytes escaped, and an absolute path given an empty authority, so that "//x/y" is not read as
 * host x. Returns a string for sqlite3_free, or NULL when out of memory. */
static char *file_uri(const char *path, const char *q) {
  sqlite3_str *u = sqlite3_str_new(NULL);
  sqlite3_str_appendf(u, "file:%s", path[0] == '/' ? "//" : "");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if (*p == '?' || *p == '#' || *p == '%' || *p < 0x20 || *p == 0x7f)
      sqlite3_str_appendf(u, "%%%02X", (unsigned)*p);
    else
      sqlite3_str_appendchar(u, 1, (char)*p);
  }
  sqlite3_str_appendf(u, "?%s", q);
  return sqlite3_str_finish(u);
}

/* The file that path names when it is a symbolic link (malloc'd), else NULL: SQLite resolves
 * links, so the side files of a database are beside the file it names. */
static char *link_target(const char *path) {
  struct stat sb;
  return lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) ? realpath(path, NULL) : NULL;
}

/* 1 when the side file of the database at path with suffix ("-wal") exists. */
static int side_exists(const char *path, const char *suffix) {
  char *real = link_target(path);
  char *side = sqlite3_mprintf("%s%s", real ? real : path, suffix);
  free(real);
  struct stat sb;
  int yes = side && stat(side, &sb) == 0;
  sqlite3_free(side);
  return yes;
}

/* Inspects an existing file and writes nothing, in it or beside it, so a file we refuse stays
 * byte-identical and its directory gains no file. The header (the first 100 bytes,
 * sqlite.org/fileformat2.html) is read first: an empty file is a fresh database, and a file
 * without SQLite's magic string is refused without asking SQLite. A database is then read
 * through a read-only connection. In WAL mode (header bytes 18 and 19 are 2) such a connection
 * creates the -wal and -shm files when they are missing, as any reader does; so unless both are
 * there already (a connection has the file open, or ended without closing it), the file is
 * opened immutable: read as it is, with no lock, WAL or shared memory. That reads it right,
 * because SQLite keeps both files while any connection has the database open and moves every
 * committed transaction into the file when the last one closes. */
static int probe(const char *path, int *fresh, int *old, mapf_diag *err) {
  *fresh = *old = 0;
  /* O_NONBLOCK: a FIFO must not hang the open; it is refused below. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    farm_err(err, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  struct stat sb;
  unsigned char h[100];
  ssize_t n = -1;
  int e = 0;
  if (fstat(fd, &sb) != 0) e = errno;
  else if (S_ISREG(sb.st_mode) && (n = pread(fd, h, sizeof h, 0)) < 0) e = errno;
  close(fd);
  if (e) {
    farm_err(err, "%s: cannot read: %s", path, strerror(e));
    return -1;
  }
  if (!S_ISREG(sb.st_mode)) {
    farm_err(err, "%s: is not a regular file, not a database file", path);
    return -1;
  }
  if (n == 0) {
    *fresh = 1;
    return 0;
  }
  if (n < (ssize_t)sizeof h || memcmp(h, "SQLite format 3", 16) != 0) {
    farm_err(err, "%s: not a SQLite database", path);
    return -1;
  }
  int immutable = (h[18] == 2 || h[19] == 2) && !(side_exists(path, "-wal") &&
                                                  side_exists(path, "-shm"));
  char *uri = file_uri(path, immutable ? "mode=ro&immutable=1" : "mode=ro");
  sqlite3 *db = NULL;
  int rc = uri ? sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL)
               : SQLITE_NOMEM;
  sqlite3_free(uri);
  if (rc != SQLITE_OK) {
    farm_err(err, "%s: cannot open: %s", path,
             db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return -1;
  }
  sqlite3_busy_timeout(db, FARM_STORE_BUSY_MS);
  int r = classify(db, path, fresh, old, err);
  sqlite3_close(db);
  return r;
}

/* Runs a one-shot statement of the open sequence; on failure formats err. */
static int exec_sql(sqlite3 *db, const char *path, const char *sql, const char *what,
                    mapf_diag *err) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    farm_err(err, "%s: %s: %s", path, what, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
  }
  return 0;
}

/* Switches to WAL, which persists in the file, so later connections find it on. WAL needs
 * shared memory between processes, which network file systems lack: docs/database.md has each shard
 * write on local disk. */
static int set_wal(sqlite3 *db, const char *path, mapf_diag *err) {
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &s, NULL);
  char mode[16] = "";
  if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(s, 0);
    snprintf(mode, sizeof mode, "%s", t ? (const char *)t : "");
    rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK) {
    farm_err(err, "%s: cannot switch to WAL mode: %s", path, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return -1;
  }
  sqlite3_finalize(s);
  if (strcmp(mode, "wal") != 0) {
    farm_err(err, "%s: the file system does not support WAL mode (journal mode is \"%s\"); put the "
             "database on a local disk",
             path, mode);
    return -1;
  }
  return 0;
}

/* Creates the tables and views of a fresh database in one transaction. Another process may
 * have created the database since we looked, so the check is repeated under the write lock. */
static int create_schema(sqlite3 *db, const char *path, mapf_diag *err) {
  if (exec_sql(db, path, "BEGIN IMMEDIATE", "cannot lock the database", err) < 0)
    return -1;
  int fresh = 0;
  int old = 0;
  if (classify(db, path, &fresh, &old, err) < 0) goto fail;
  if (fresh) {
    char pragmas[128];
    snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %ld; PRAGMA user_version = %d;",
             (long)FARM_APPLICATION_ID, FARM_SCHEMA_VERSION);
    if (exec_sql(db, path, farm_schema_sql, "cannot create the tables", err) < 0 ||
        exec_sql(db, path, farm_views_sql, "cannot create the views", err) < 0 ||
        exec_sql(db, path, pragmas, "cannot mark the database", err) < 0)
      goto fail;
  }
  if (exec_sql(db, path, "COMMIT", "cannot create the database", err) < 0) goto fail;
  return 0;
fail:
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  return -1;
}

/* ---- views ------------------------------------------------------------------------------ */

/* The views of schema/views.sql as SQLite stores them (sqlite_master.name and .sql), in the
 * order the file creates them. */
typedef struct view_defs {
  int32_t n;
  char **name, **sql;
} view_defs;

static void view_defs_free(view_defs *v) {
  for (int32_t i = 0; i < v->n; i++) {
    free(v->name[i]);
    free(v->sql[i]);
  }
  free(v->name);
  free(v->sql);
  memset(v, 0, sizeof *v);
}

/* Reads the compiled objects of one type ("view", "index") back from an in-memory database
 * built from the compiled schema, so they compare with a file's sqlite_master text for text
 * (SQLite stores a CREATE statement as written, after the same normalisation in both). The
 * indexes SQLite makes for UNIQUE and PRIMARY KEY constraints have no text and are left out.
 * About a millisecond. */
static int compiled_objects(const char *type, view_defs *v, mapf_diag *err) {
  memset(v, 0, sizeof *v);
  sqlite3 *mem = NULL;
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(mem, farm_schema_sql, NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(mem, farm_views_sql, NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(mem,
                            "SELECT name, sql FROM sqlite_master WHERE type = ?1 AND sql IS NOT "
                            "NULL ORDER BY rowid",
                            -1, &s, NULL);
  if (rc == SQLITE_OK) sqlite3_bind_text(s, 1, type, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    char **name = realloc(v->name, (size_t)(v->n + 1) * sizeof *name);
    if (name) v->name = name;
    char **sql = realloc(v->sql, (size_t)(v->n + 1) * sizeof *sql);
    if (sql) v->sql = sql;
    if (!name || !sql) {
      rc = SQLITE_NOMEM;
      break;
    }
    v->name[v->n] = strdup((const char *)sqlite3_column_text(s, 0));
    v->sql[v->n] = strdup((const char *)sqlite3_column_text(s, 1));
    v->n++;
    if (!v->name[v->n - 1] || !v->sql[v->n - 1]) rc = SQLITE_NOMEM;
  }
  if (rc != SQLITE_OK)
    farm_err(err, "cannot read the %s definitions of schema/: %s", type,
             mem ? sqlite3_errmsg(mem) : "out of memory");
  sqlite3_finalize(s);
  sqlite3_close(mem);
  if (rc != SQLITE_OK) view_defs_free(v);
  return rc == SQLITE_OK ? 0 : -1;
}

/* 1 when some view of v is missing from db's main schema or is defined otherwise there (a
 * file written by an older mapfarm), 0 when every one is current, -1 with err. */
static int views_stale(sqlite3 *db, const char *path, const view_defs *v, mapf_diag *err) {
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, "SELECT sql FROM main.sqlite_master WHERE type = 'view' AND name = ?1",
                         -1, &s, NULL) != SQLITE_OK) {
    farm_err(err, "%s: cannot read the views: %s", path, sqlite3_errmsg(db));
    return -1;
  }
  int stale = 0;
  for (int32_t i = 0; i < v->n && !stale; i++) {
    sqlite3_bind_text(s, 1, v->name[i], -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
      const char *sql = (const char *)sqlite3_column_text(s, 0);
      stale = !sql || strcmp(sql, v->sql[i]) != 0;
    } else if (rc == SQLITE_DONE) {
      stale = 1;
    } else {
      farm_err(err, "%s: cannot read the views: %s", path, sqlite3_errmsg(db));
      sqlite3_finalize(s);
      return -1;
    }
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  return stale;
}

/* Brings the views of a database opened for writing up to this mapfarm's views.sql: when one
 * is missing or differs, every view views.sql lists is dropped and created again, in one
 * transaction. Views are definitions only (no data), so this is safe, and it keeps files
 * written by an older mapfarm current without a schema version bump (the tables did not
 * change). A current file is not written to at all. The check is repeated under the write
 * lock, as another process may have done it since. */
static int refresh_views(sqlite3 *db, const char *path, mapf_diag *err) {
  view_defs v;
  if (compiled_objects("view", &v, err) < 0) return -1;
  int stale = views_stale(db, path, &v, err);
  if (stale <= 0) {
    view_defs_free(&v);
    return stale;
  }
  if (exec_sql(db, path, "BEGIN IMMEDIATE", "cannot lock the database", err) < 0) {
    view_defs_free(&v);
    return -1;
  }
  stale = views_stale(db, path, &v, err);
  for (int32_t i = 0; stale > 0 && i < v.n; i++) {
    char *drop = sqlite3_mprintf("DROP VIEW IF EXISTS main.\"%w\"", v.name[i]);
    if (!drop || exec_sql(db, path, drop, "cannot replace the views", err) < 0)
      stale = -1;
    sqlite3_free(drop);
  }
  if (stale > 0 && exec_sql(db, path, farm_views_sql, "cannot create the views", err) < 0)
    stale = -1;
  if (stale >= 0 && exec_sql(db, path, "COMMIT", "cannot replace the views", err) < 0)
    stale = -1;
  if (stale < 0 && !sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  view_defs_free(&v);
  return stale < 0 ? -1 : 0;
}

/* A read-only connection cannot replace the views of an older file, but it can shadow them:
 * when one is missing or differs, every view of views.sql is created as a TEMP view on this
 * connection (SQLite looks names up in temp before main, and a temp view's own references do
 * the same, whereas a main view would keep reading main's stale views; hence all of them).
 * The file is not touched. */
static int shadow_views(sqlite3 *db, const char *path, mapf_diag *err) {
  view_defs v;
  if (compiled_objects("view", &v, err) < 0) return -1;
  int stale = views_stale(db, path, &v, err);
  static const char create[] = "CREATE VIEW ";
  for (int32_t i = 0; stale > 0 && i < v.n; i++) {
    if (strncmp(v.sql[i], create, sizeof create - 1) != 0) {
      farm_err(err, "%s: unexpected view text: %.40s", path, v.sql[i]);
      stale = -1;
      break;
    }
    char *temp = sqlite3_mprintf("CREATE TEMP VIEW %s", v.sql[i] + sizeof create - 1);
    if (!temp || exec_sql(db, path, temp, "cannot create the views", err) < 0)
      stale = -1;
    sqlite3_free(temp);
  }
  view_defs_free(&v);
  return stale < 0 ? -1 : 0;
}

/* ---- deferred indexes ------------------------------------------------------------------ */

/* The indexes of schema.sql that a run may build at its end instead of row by row (farm_run):
 * readers use them, the writer never does, and their entries land wherever the plan's order
 * puts a label or an instance, on pages far apart (a million-job sweep of 1,000 labels keeps
 * thousands of index pages dirty, rewritten at every commit). results_run is kept up to date:
 * a run's rows go to its end, and `mapfarm status` reads it while a run goes on. A file whose
 * run was killed meanwhile lacks them: readers are slower on it but read it right, and the next
 * writer builds them (farm_store_open, farm_run). */
static const char *const deferred_indexes[] = {"results_map_label", "results_instance"};
#define NDEFERRED ((int32_t)(sizeof deferred_indexes / sizeof deferred_indexes[0]))

/* 1 when main has an index of that name, 0 when not, -1 with err. */
static int has_index(sqlite3 *db, const char *path, const char *name, mapf_diag *err) {
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_master WHERE type = 'index' AND "
                              "name = ?1", -1, &s, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    rc = sqlite3_step(s);
  }
  sqlite3_finalize(s);
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) return rc == SQLITE_ROW;
  farm_err(err, "%s: cannot read the schema: %s", path, sqlite3_errmsg(db));
  return -1;
}

/* Creates the deferred indexes that db lacks, in one transaction, sorting with up to threads
 * threads (SQLite's sorter; it takes at most 8); a file that has them is not written to.
 * Returns how many it created, or -1 with err. */
static int build_indexes(sqlite3 *db, const char *path, int threads, mapf_diag *err) {
  view_defs v;
  if (compiled_objects("index", &v, err) < 0) return -1;
  int built = 0, rc = 0, locked = 0;
  for (int32_t k = 0; k < NDEFERRED && rc == 0; k++) {
    const char *sql = NULL;
    for (int32_t i = 0; i < v.n; i++)
      if (strcmp(v.name[i], deferred_indexes[k]) == 0) sql = v.sql[i];
    if (!sql) {
      farm_err(err, "%s: schema/schema.sql has no index %s", path, deferred_indexes[k]);
      rc = -1;
      break;
    }
    int has = has_index(db, path, deferred_indexes[k], err);
    if (has < 0) rc = -1;
    if (has != 0) continue;
    if (!locked) { /* then look again under the lock: another writer may have built it */
      char pragma[48];
      snprintf(pragma, sizeof pragma, "PRAGMA threads = %d", threads > 1 ? threads : 0);
      rc = exec_sql(db, path, pragma, "cannot set the sorter's threads", err);
      if (rc == 0) rc = exec_sql(db, path, "BEGIN IMMEDIATE", "cannot lock the database", err);
      locked = rc == 0;
      if (rc == 0 && (has = has_index(db, path, deferred_indexes[k], err)) != 0) {
        rc = has < 0 ? -1 : 0;
        continue;
      }
    }
    if (rc == 0) rc = exec_sql(db, path, sql, "cannot build an index", err);
    built += rc == 0;
  }
  if (locked && rc == 0) rc = exec_sql(db, path, "COMMIT", "cannot build the indexes", err);
  if (rc < 0 && !sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  view_defs_free(&v);
  return rc < 0 ? -1 : built;
}

/* The upgrade from each older schema version to the next, from FARM_SCHEMA_OLDEST on: new
 * columns at the end of their tables, in schema.sql's order, and new tables.
 * 2 to 3: no row changes (the new columns are NULL, loops 0: version-2 jobs were one-way).
 * 3 to 4: the limits and execution of each row, filled in by backfill_limits.
 * 4 to 5: see allow_work_limit. */
static const char *const upgrade_steps[FARM_SCHEMA_VERSION - FARM_SCHEMA_OLDEST] = {
    "ALTER TABLE results ADD COLUMN suboptimality REAL;"
    "ALTER TABLE results ADD COLUMN loops INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE results ADD COLUMN loops_done INTEGER;"
    "ALTER TABLE results ADD COLUMN failed_moves_per_loop REAL;"
    "ALTER TABLE results ADD COLUMN coherence REAL;"
    "ALTER TABLE agent_results ADD COLUMN optimal_distance REAL;"
    "ALTER TABLE agent_results ADD COLUMN loops_done INTEGER;"
    "CREATE TABLE coherence_series (result_id INTEGER NOT NULL, step INTEGER NOT NULL, "
    "coherence REAL, PRIMARY KEY (result_id, step)) WITHOUT ROWID;",
    "ALTER TABLE results ADD COLUMN limit_steps INTEGER;"
    "ALTER TABLE results ADD COLUMN limit_seconds REAL;"
    "ALTER TABLE results ADD COLUMN limit_expansions INTEGER;"
    "ALTER TABLE results ADD COLUMN execution TEXT;",
    /* Version 5's measures, from the agent rows (a solved job's agents all have theirs). */
    "ALTER TABLE results ADD COLUMN solved INTEGER;"
    "ALTER TABLE results ADD COLUMN soc INTEGER;"
    "ALTER TABLE results ADD COLUMN makespan INTEGER;"
    "UPDATE results SET solved = (completed = agents) WHERE status <> 'error' AND completed IS "
    "NOT NULL;"
    "UPDATE results SET soc = (SELECT sum(completion_step) FROM agent_results WHERE result_id = "
    "results.id), makespan = (SELECT max(completion_step) FROM agent_results WHERE result_id = "
    "results.id) WHERE solved = 1;"
    /* No job of an older file had a work budget; the work it would have been charged is not
     * known (NULL). */
    "ALTER TABLE results ADD COLUMN mean_completion_steps_at_limit REAL;"
    "UPDATE results SET mean_completion_steps_at_limit = (SELECT (coalesce(sum(CASE WHEN reached "
    "THEN completion_step END), 0) + (results.agents - count(CASE WHEN reached THEN 1 END)) * "
    "results.limit_steps) * 1.0 / results.agents FROM agent_results WHERE result_id = results.id) "
    "WHERE status <> 'error' AND limit_steps IS NOT NULL AND agents > 0;"
    "ALTER TABLE results ADD COLUMN limit_work REAL;"
    "ALTER TABLE results ADD COLUMN work_seconds REAL;"
    "UPDATE results SET limit_work = 0 WHERE limit_steps IS NOT NULL;",
    /* Version 6: the work at which each agent arrived was not kept, so older rows stay NULL
     * (a version-5 job with a work budget can be rerun: `mapfarm replay`). */
    "ALTER TABLE results ADD COLUMN mean_completion_work_at_limit REAL;",
    /* Version 7: the set-up time was not measured apart, so older rows stay NULL. */
    "ALTER TABLE results ADD COLUMN setup_seconds REAL;",
    /* Version 8: the lower bounds need the map, which the file does not hold, so older rows
     * stay NULL (`mapfarm replay` computes a job's); no older job ran an external solver. */
    "ALTER TABLE results ADD COLUMN soc_lb INTEGER;"
    "ALTER TABLE results ADD COLUMN makespan_lb INTEGER;"
    "ALTER TABLE results ADD COLUMN solver_seconds REAL;",
    /* Version 9: the move set; every job before it ran on 8-connected grids. */
    "ALTER TABLE results ADD COLUMN connectivity INTEGER NOT NULL DEFAULT 8;",
    /* Version 10: events and lifelong goals; no older job had them. */
    "ALTER TABLE results ADD COLUMN events TEXT;"
    "ALTER TABLE results ADD COLUMN lifelong INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE results ADD COLUMN retasks INTEGER;"
    "ALTER TABLE results ADD COLUMN mean_retask_expansions REAL;"
    "ALTER TABLE results ADD COLUMN max_event_step_seconds REAL;"
    "ALTER TABLE results ADD COLUMN tasks_done INTEGER;"
    "ALTER TABLE results ADD COLUMN throughput REAL;"
    "ALTER TABLE agent_results ADD COLUMN tasks_done INTEGER;",
    /* Version 11: map changes; no older job had them. */
    "ALTER TABLE results ADD COLUMN map_changes INTEGER;"
    "ALTER TABLE results ADD COLUMN mean_change_expansions REAL;",
};

/* Schema version 4's limits and execution of rows that lack them (written by an older
 * mapfarm): a row's job ran under the limits of the plan of the run that wrote it (they are
 * part of its key), and runs keep their plan's text. Rows of a run whose text is missing or
 * unreadable stay NULL (unknown). */
static int backfill_limits(sqlite3 *db, const char *path, mapf_diag *err) {
  sqlite3_stmt *runs = NULL, *set = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT run_id, plan_text FROM runs WHERE plan_text IS NOT NULL",
                              -1, &runs, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(db,
                            "UPDATE results SET limit_steps = ?1, limit_seconds = ?2, "
                            "limit_expansions = ?3, execution = ?4 WHERE run_id = ?5 AND "
                            "limit_steps IS NULL AND execution IS NULL",
                            -1, &set, NULL);
  while (rc == SQLITE_OK && (rc = sqlite3_step(runs)) == SQLITE_ROW) {
    const char *text = (const char *)sqlite3_column_text(runs, 1);
    mapf_limits lim;
    mapf_execution ex;
    rc = SQLITE_OK;
    if (!text || farm_plan_read_limits(text, (size_t)sqlite3_column_bytes(runs, 1), &lim, &ex) != 0)
      continue;
    sqlite3_bind_int64(set, 1, lim.steps);
    sqlite3_bind_double(set, 2, lim.seconds);
    sqlite3_bind_int64(set, 3, lim.expansions);
    sqlite3_bind_text(set, 4, mapf_execution_name(ex), -1, SQLITE_STATIC);
    sqlite3_bind_int64(set, 5, sqlite3_column_int64(runs, 0));
    rc = sqlite3_step(set) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_reset(set);
  }
  if (rc != SQLITE_DONE)
    farm_err(err, "%s: cannot upgrade the schema: %s", path, sqlite3_errmsg(db));
  sqlite3_finalize(runs);
  sqlite3_finalize(set);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* Schema version 5 lets limit_hit be 'work'. SQLite cannot alter a CHECK constraint, so the
 * table's stored text is edited the way SQLite documents for changes that leave the file's
 * format as it is ("Making Other Kinds Of Table Schema Changes"): writable_schema, the new
 * text, and schema_version one up so that every connection reads it again. Inside the
 * upgrade's transaction. */
static int allow_work_limit(sqlite3 *db, const char *path, mapf_diag *err) {
  sqlite3_stmt *s = NULL;
  int version = -1;
  if (sqlite3_prepare_v2(db, "PRAGMA schema_version", -1, &s, NULL) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW)
    version = sqlite3_column_int(s, 0);
  sqlite3_finalize(s);
  char sql[512];
  snprintf(sql, sizeof sql,
           "PRAGMA writable_schema = ON;"
           "UPDATE sqlite_schema SET sql = replace(sql, 'OR limit_hit = ''expansions'')', "
           "'OR limit_hit = ''expansions'' OR limit_hit = ''work'')') WHERE type = 'table' AND "
           "name = 'results';"
           "PRAGMA schema_version = %d;"
           "PRAGMA writable_schema = OFF;",
           version + 1);
  if (version < 0)
    return farm_err(err, "%s: cannot upgrade the schema: %s", path, sqlite3_errmsg(db));
  return exec_sql(db, path, sql, "cannot upgrade the schema", err);
}

/* Upgrades a file of an older schema version in one transaction, step by step, checking the
 * version again under the write lock (another process may have upgraded it since). */
static int upgrade(sqlite3 *db, const char *path, mapf_diag *err) {
  if (exec_sql(db, path, "BEGIN IMMEDIATE", "cannot lock the database", err) < 0)
    return -1;
  int fresh = 0, old = 0;
  if (classify(db, path, &fresh, &old, err) < 0) goto fail;
  if (old) {
    for (int v = old; v < FARM_SCHEMA_VERSION; v++) {
      if (exec_sql(db, path, upgrade_steps[v - FARM_SCHEMA_OLDEST], "cannot upgrade the schema",
                   err) < 0)
        goto fail;
      if (v == 3 && backfill_limits(db, path, err) < 0) goto fail;
      if (v == 4 && allow_work_limit(db, path, err) < 0) goto fail;
    }
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", FARM_SCHEMA_VERSION);
    if (exec_sql(db, path, pragma, "cannot upgrade the schema", err) < 0) goto fail;
  }
  if (exec_sql(db, path, "COMMIT", "cannot upgrade the schema", err) < 0) goto fail;
  return 0;
fail:
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  return -1;
}

static int prepare(farm_store *st, const char *sql, sqlite3_stmt **s, mapf_diag *err) {
  if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, s, NULL) != SQLITE_OK) {
    farm_err(err, "%s: cannot prepare a statement: %s", st->path,
             sqlite3_errmsg(st->db));
    return -1;
  }
  return 0;
}

static int prepare_put_agents(farm_store *st, int32_t rows, sqlite3_stmt **s, mapf_diag *err) {
  char *sql = put_agents_sql(rows);
  if (!sql) {
    farm_err(err, "%s: out of memory", st->path);
    return -1;
  }
  int rc = prepare(st, sql, s, err);
  sqlite3_free(sql);
  return rc;
}

static int prepare_put_result(farm_store *st, mapf_diag *err) {
  char *sql = put_result_sql();
  if (!sql) {
    farm_err(err, "%s: out of memory", st->path);
    return -1;
  }
  int rc = prepare(st, sql, &st->put_result, err);
  sqlite3_free(sql);
  return rc;
}

/* ---- the writer lock -------------------------------------------------------------------- */

/* One process writes a database at a time. Two runs on one file would both compute every job
 * pending at their start and record counts that do not match the rows each stored; so a writer
 * takes an exclusive lock before it writes anything, and a second one is refused at once.
 *
 * The lock is flock(2) on a side file, PATH.lock, which also holds the holder's pid, host and
 * start time, for the message the next process prints:
 *   - The system releases a flock when its holder ends, however it ends (kill -9 included), so
 *     a held lock means a live holder, with no guessing from a pid (which may have been reused
 *     or belong to another pid namespace).
 *   - flock, not fcntl: a flock belongs to one open file, whereas a process's fcntl locks are
 *     shared by all its descriptors of the file and all dropped when it closes any one of them;
 *     SQLite takes fcntl locks on the database file, so the lock is not on that file either.
 *   - A side file, not a row in the database: that would need a schema change, and a write to
 *     the file before it is known to be free.
 * The holder deletes the file while it still holds it, at close. A file left by a holder that
 * ended is not held: one written on this host is taken over (farm_store_note says so), but one
 * written on another host is refused, since that process may still be running on a file system
 * whose locks do not reach this host; the message says to delete the file if it is not. */

#define LOCK_MAGIC "mapfarm lock\n"

/* What a lock file says about its holder. */
typedef struct lock_owner {
  int state; /* 0 empty or cut short, 1 complete, -1 not a mapfarm lock file */
  long pid;
  char host[256], started[32];
} lock_owner;

static void gethost(char *host, size_t n) {
  if (gethostname(host, n) != 0) snprintf(host, n, "unknown");
  host[n - 1] = '\0';
}

/* Reads fd's lock file: LOCK_MAGIC, then the lines "pid P", "host H", "started T". */
static void lock_read(int fd, lock_owner *o) {
  memset(o, 0, sizeof *o);
  char buf[1024];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return;
  buf[n] = '\0';
  size_t m = sizeof LOCK_MAGIC - 1;
  if (strncmp(buf, LOCK_MAGIC, (size_t)n < m ? (size_t)n : m) != 0) {
    o->state = -1;
    return;
  }
  if ((size_t)n < m || buf[n - 1] != '\n') return; /* cut short */
  char *save = NULL;
  for (char *line = strtok_r(buf + m, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (strncmp(line, "pid ", 4) == 0) o->pid = strtol(line + 4, NULL, 10);
    else if (strncmp(line, "host ", 5) == 0) snprintf(o->host, sizeof o->host, "%s", line + 5);
    else if (strncmp(line, "started ", 8) == 0)
      snprintf(o->started, sizeof o->started, "%s", line + 8);
  }
  o->state = o->pid > 0 && o->host[0] && o->started[0] ? 1 : 0;
}

/* Writes this process into the lock file fd (held). */
static int lock_write(int fd, const char *host) {
  char started[32], text[512];
  time_t t = time(NULL);
  struct tm tm;
  if (!gmtime_r(&t, &tm) || strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    snprintf(started, sizeof started, "unknown");
  int n = snprintf(text, sizeof text, LOCK_MAGIC "pid %ld\nhost %s\nstarted %s\n",
                   (long)getpid(), host, started);
  if (n < 0 || (size_t)n >= sizeof text) return -1;
  return ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)n, 0) == n ? 0 : -1;
}

/* 1 when fd is the file now at path (its holder may have deleted it since we opened it). */
static int lock_is_current(int fd, const char *path) {
  struct stat a, b;
  return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

/* Takes st's writer lock (see above) for st->path: 0, with a note in st->note when it was
 * taken over, or -1 with err (another process holds it, or it cannot be had). Bounded: a
 * holder's details are waited for at most a second (it writes them as soon as it holds it). */
static int lock_take(farm_store *st, mapf_diag *err) {
  const char *path = st->path;
  /* Beside the file a symbolic link names, where SQLite puts the -wal: two links to one
   * database share one lock. */
  char *real = link_target(path);
  st->lock_path = sqlite3_mprintf("%s.lock", real ? real : path);
  free(real);
  if (!st->lock_path) {
    farm_err(err, "%s: out of memory", path);
    return -1;
  }
  const char *lp = st->lock_path;
  char host[256];
  gethost(host, sizeof host);
  for (int attempt = 0; attempt < 100; attempt++) {
    /* O_NOFOLLOW: the file is truncated and written, never through a link planted there. */
    int writable = 1;
    int fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    int oe = errno;
    if (fd < 0 && oe == EACCES) { /* another user's? If it is there, it can still be tested */
      writable = 0;
      fd = open(lp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0 && errno != ENOENT) oe = errno;
    }
    if (fd < 0) {
      farm_err(err, "%s: cannot create its lock file %s: %s", path, lp,
               strerror(oe));
      return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
      close(fd);
      farm_err(err, "%s: %s is not a regular file; move it away to write %s", path,
               lp, path);
      return -1;
    }
    lock_owner o;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      if (e != EWOULDBLOCK) {
        close(fd);
        farm_err(err, "%s: cannot lock %s: %s", path, lp, strerror(e));
        return -1;
      }
      lock_read(fd, &o);
      for (int i = 0; i < 100 && o.state == 0; i++) {
        nanosleep(&(struct timespec){0, 10000000}, NULL);
        lock_read(fd, &o);
      }
      close(fd);
      if (o.state == 1)
        farm_err(err, "%s: another mapfarm process is writing this database (pid %ld on host %s, "
                 "started %s); wait until it ends, or write to another file",
                 path, o.pid, o.host, o.started);
      else
        farm_err(err, "%s: another process is writing this database (it holds %s, which does "
                 "not say which process it is); wait until it ends, or write to another "
                 "file",
                 path, lp);
      return -1;
    }
    if (!lock_is_current(fd, lp)) { /* its holder deleted it as we opened it: start again */
      close(fd);
      continue;
    }
    lock_read(fd, &o);
    if (o.state < 0) {
      close(fd);
      farm_err(err, "%s: %s is not a mapfarm lock file; move it away to write %s",
               path, lp, path);
      return -1;
    }
    if (o.state == 1 && strcmp(o.host, host) != 0) {
      close(fd);
      farm_err(err, "%s: %s says a mapfarm process on another host is writing this database "
               "(pid %ld on host %s, started %s), and this host cannot tell whether it "
               "still runs; if it does not, delete %s and run the command again",
               path, lp, o.pid, o.host, o.started, lp);
      return -1;
    }
    if (o.state == 1)
      snprintf(st->note, sizeof st->note,
               "%s: took over the lock of a mapfarm process that ended without releasing it "
               "(pid %ld on host %s, started %s)",
               path, o.pid, o.host, o.started);
    else if (sb.st_size > 0)
      snprintf(st->note, sizeof st->note,
               "%s: took over the lock of a mapfarm process that ended while taking it", path);
    if (!writable) { /* a stale lock file we may not write (another user's): replace it */
      int gone = unlink(lp) == 0;
      int e = errno;
      close(fd);
      if (gone) continue;
      farm_err(err, "%s: cannot replace the stale lock file %s: %s", path, lp,
               strerror(e));
      return -1;
    }
    if (lock_write(fd, host) < 0) {
      int e = errno;
      /* Delete what may be half written, while it is still held. */
      if (lock_is_current(fd, lp)) unlink(lp);
      close(fd);
      farm_err(err, "%s: cannot write its lock file %s: %s", path, lp, strerror(e));
      return -1;
    }
    st->lock_fd = fd;
    return 0;
  }
  farm_err(err, "%s: cannot take the lock %s: other processes keep replacing it",
           path, lp);
  return -1;
}

/* Releases st's writer lock, deleting its file while still holding it (unless it has been
 * replaced: then the file is another process's). */
static void lock_release(farm_store *st) {
  if (st->lock_fd >= 0) {
    if (lock_is_current(st->lock_fd, st->lock_path)) unlink(st->lock_path);
    close(st->lock_fd);
    st->lock_fd = -1;
  }
  sqlite3_free(st->lock_path);
  st->lock_path = NULL;
}

void farm_store_remove(const char *path) {
  size_t n = strlen(path) + 5;
  char *side = malloc(n);
  unlink(path);
  if (!side) return;
  snprintf(side, n, "%s-wal", path);
  unlink(side);
  snprintf(side, n, "%s-shm", path);
  unlink(side);
  free(side);
}

int farm_store_open(const char *path, int mode, farm_store **out, mapf_diag *err) {
  *out = NULL;
  if (!path || !*path) {
    farm_err(err, "no database path given");
    return -1;
  }
  int defer_indexes = (mode & FARM_STORE_DEFER_INDEXES) != 0;
  mode &= ~FARM_STORE_DEFER_INDEXES;
  if (mode != FARM_STORE_READONLY && mode != FARM_STORE_CREATE) {
    farm_err(err, "%s: invalid open mode %d", path, mode);
    return -1;
  }
  /* Look before touching: a missing file, a directory, or a file that is not ours. */
  struct stat sb;
  int exists = stat(path, &sb) == 0, fresh = 1;
  if (!exists && errno != ENOENT) {
    farm_err(err, "%s: cannot access: %s", path, strerror(errno));
    return -1;
  }
  if (exists && S_ISDIR(sb.st_mode)) {
    farm_err(err, "%s: is a directory, not a database file", path);
    return -1;
  }
  if (!exists && mode == FARM_STORE_READONLY) {
    farm_err(err, "%s: no such database file", path);
    return -1;
  }
  int old = 0;
  if (exists && probe(path, &fresh, &old, err) < 0) return -1;
  if (fresh && mode == FARM_STORE_READONLY) {
    farm_err(err, "%s: empty file, not a mapfarm database", path);
    return -1;
  }

  farm_store *st = calloc(1, sizeof *st);
  if (!st || !(st->path = strdup(path))) {
    free(st);
    farm_err(err, "%s: out of memory", path);
    return -1;
  }
  st->lock_fd = -1;
  st->readonly = mode == FARM_STORE_READONLY;
  if (!st->readonly) {
    /* Said before the lock is taken, whose file a read-only directory would refuse first. */
    if (exists && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0 &&
        (errno == EACCES || errno == EROFS)) {
      farm_err(err, "%s: the file is read-only; cannot write results to it", path);
      goto fail;
    }
    /* The writer lock before anything is written or created. Another writer may have created
     * the file since we looked: look again under the lock (we delete the file on failure only
     * when we created it). */
    if (lock_take(st, err) < 0) goto fail;
    if (!exists && stat(path, &sb) == 0) {
      exists = 1;
      if (probe(path, &fresh, &old, err) < 0) goto fail;
    }
  }
  /* NOMUTEX: the pool lets one thread at a time use the connection (its writer lock), so
   * SQLite's own per-call mutex is pure overhead. */
  int flags = (st->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
              SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path, &st->db, flags, NULL);
  if (rc != SQLITE_OK) {
    int sys = st->db ? sqlite3_system_errno(st->db) : 0;
    farm_err(err, "%s: cannot %s: %s", path, exists ? "open" : "create",
             sys ? strerror(sys) : st->db ? sqlite3_errmsg(st->db) : "out of memory");
    goto fail;
  }
  sqlite3_extended_result_codes(st->db, 1);
  /* A misspelt column in double quotes must be an error, not a string literal. */
  sqlite3_db_config(st->db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)NULL);
  sqlite3_db_config(st->db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)NULL);
  /* A larger lookaside pool than SQLite's default (100 slots of 1,200 bytes): the writer's
   * statements then take their record buffers from it instead of malloc (20 calls per job). */
  sqlite3_db_config(st->db, SQLITE_DBCONFIG_LOOKASIDE, NULL, 2048, 512);
  sqlite3_busy_timeout(st->db, FARM_STORE_BUSY_MS);
  if (!st->readonly) {
    /* SQLite quietly opens a file it may not write read-only; say so now, not at the first
     * batch of results. */
    if (sqlite3_db_readonly(st->db, "main") == 1) {
      farm_err(err, "%s: the file is read-only; cannot write results to it", path);
      goto fail;
    }
    /* Job keys are hashes, so rows arrive in random key order and every insert touches a
     * random page of the job_key index; a 64 MiB page cache (the default is 2 MiB) keeps those
     * pages in memory for databases of millions of jobs. (The bulk, results and agent_results,
     * is keyed by results.id and appended at the right edge of its B-trees.) */
    if (set_wal(st->db, path, err) < 0 ||
        exec_sql(st->db, path, "PRAGMA synchronous = NORMAL", "cannot set synchronous", err) < 0 ||
        exec_sql(st->db, path, "PRAGMA cache_size = -65536", "cannot set the cache size", err) < 0)
      goto fail;
    if (fresh && create_schema(st->db, path, err) < 0) goto fail;
    if (old && upgrade(st->db, path, err) < 0) goto fail;
    if (!fresh && refresh_views(st->db, path, err) < 0) goto fail;
    if (!fresh && !defer_indexes && build_indexes(st->db, path, 0, err) < 0) goto fail;
  } else if (shadow_views(st->db, path, err) < 0) {
    goto fail;
  }
  if (prepare(st, "BEGIN IMMEDIATE", &st->begin, err) < 0 ||
      prepare(st, "COMMIT", &st->commit, err) < 0 ||
      prepare(st, "ROLLBACK", &st->rollback, err) < 0 ||
      prepare(st, sql_keys, &st->keys, err) < 0 ||
      prepare(st, sql_keys_ok, &st->keys_ok, err) < 0)
    goto fail;
  /* The statements that write need the current schema (a read-only older file lacks it). */
  if (!st->readonly &&
      (prepare_put_result(st, err) < 0 ||
       prepare(st, sql_find_id, &st->find_id, err) < 0 ||
       prepare(st, sql_clear_agents, &st->clear_agents, err) < 0 ||
       prepare(st, sql_clear_series, &st->clear_series, err) < 0 ||
       prepare(st, sql_agents_max, &st->agents_max, err) < 0 ||
       prepare(st, sql_series_max, &st->series_max, err) < 0 ||
       prepare_put_agents(st, 1, &st->put_agent, err) < 0 ||
       prepare_put_agents(st, AGENT_ROWS, &st->put_agents, err) < 0 ||
       prepare(st, sql_put_sample, &st->put_sample, err) < 0 ||
       prepare(st, sql_run_begin, &st->run_begin, err) < 0 ||
       prepare(st, sql_run_end, &st->run_end, err) < 0))
    goto fail;
  st->created = !exists;
  *out = st;
  return 0;
fail:
  /* Only a file this open created is deleted, and under the lock: without it, the file may be
   * another writer's. */
  store_close(st, !exists && st->lock_fd >= 0);
  return -1;
}

const char *farm_store_note(const farm_store *st) { return st ? st->note : ""; }

/* Closes st; with remove, deletes the database files first, while the lock is held. */
static void store_close(farm_store *st, int remove) {
  farm_store_checkpoints_stop(st);
  sqlite3_finalize(st->begin);
  sqlite3_finalize(st->commit);
  sqlite3_finalize(st->rollback);
  sqlite3_finalize(st->put_result);
  sqlite3_finalize(st->find_id);
  sqlite3_finalize(st->clear_agents);
  sqlite3_finalize(st->agents_max);
  sqlite3_finalize(st->series_max);
  sqlite3_finalize(st->clear_series);
  sqlite3_finalize(st->put_sample);
  sqlite3_finalize(st->put_agent);
  sqlite3_finalize(st->put_agents);
  sqlite3_finalize(st->run_begin);
  sqlite3_finalize(st->run_end);
  sqlite3_finalize(st->keys);
  sqlite3_finalize(st->keys_ok);
  sqlite3_close(st->db);
  if (remove) farm_store_remove(st->path);
  lock_release(st);
  free(st->path);
  free(st);
}

void farm_store_close(farm_store *st) {
  if (st) store_close(st, 0);
}

void farm_store_discard(farm_store *st) {
  if (st) store_close(st, st->created);
}

sqlite3 *farm_store_db(farm_store *st) { return st ? st->db : NULL; }

/* Steps a prepared statement to completion and resets it for reuse, keeping its bindings (every
 * caller binds each parameter it uses before each step). Returns 0, or -1 with "PATH: what:
 * SQLite's message" in err. */
static int step_done(farm_store *st, sqlite3_stmt *s, const char *what, mapf_diag *err) {
  int rc = sqlite3_step(s);
  if (rc != SQLITE_DONE)
    farm_err(err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? 0 : -1;
}

static int refuse_readonly(farm_store *st, mapf_diag *err) {
  if (!st->readonly) return 0;
  farm_err(err, "%s: the database was opened read-only", st->path);
  return -1;
}

/* Binds a string, or NULL for a NULL pointer. The caller steps before the text can change. */
static void bind_text(sqlite3_stmt *s, int i, const char *t) {
  if (t)
    sqlite3_bind_text(s, i, t, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null(s, i);
}

/* Binds a metric; NaN (a mean over an empty set) becomes NULL so that AVG() skips it. */
static void bind_real(sqlite3_stmt *s, int i, double v) {
  if (isnan(v))
    sqlite3_bind_null(s, i);
  else
    sqlite3_bind_double(s, i, v);
}

/* The processor's model name from /proc/cpuinfo (Linux), or "unknown": timings mean little
 * without it. */
static void getcpu(char *cpu, size_t n) {
  snprintf(cpu, n, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *colon = strchr(line, ':');
    if (!colon) continue;
    colon++;
    while (*colon == ' ' || *colon == '\t') colon++;
    snprintf(cpu, n, "%s", colon);
    cpu[strcspn(cpu, "\n")] = '\0';
    break;
  }
  fclose(f);
}

int farm_store_run_begin(farm_store *st, const farm_run_info *info, int64_t *run_id,
                         mapf_diag *err) {
  if (refuse_readonly(st, err) < 0) return -1;
  char host[256], cpu[256];
  gethost(host, sizeof host);
  getcpu(cpu, sizeof cpu);
  sqlite3_stmt *s = st->run_begin;
  bind_text(s, 1, info->plan_name);
  bind_text(s, 2, info->plan_path);
  bind_text(s, 3, info->plan_hash);
  bind_text(s, 4, info->plan_text);
  sqlite3_bind_text(s, 5, MAPFARM_VERSION " (" MAPFARM_GIT ")", -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 6, MAPFARM_COMPILER, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 7, MAPFARM_CFLAGS, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 8, host, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 9, info->threads);
  bind_text(s, 10, info->shard);
  sqlite3_bind_int64(s, 11, info->jobs_total);
  sqlite3_bind_int64(s, 12, info->jobs_pending);
  sqlite3_bind_text(s, 13, cpu, -1, SQLITE_TRANSIENT);
  int rc = step_done(st, s, "cannot record the run", err);
  sqlite3_clear_bindings(s); /* host and cpu were bound SQLITE_STATIC from this frame */
  if (rc < 0) return -1;
  *run_id = sqlite3_last_insert_rowid(st->db);
  return 0;
}

int farm_store_run_end(farm_store *st, int64_t run_id, const char *status, int64_t n_ok,
                       int64_t n_limit, int64_t n_error, mapf_diag *err) {
  if (refuse_readonly(st, err) < 0) return -1;
  if (!status || (strcmp(status, "done") != 0 && strcmp(status, "failed") != 0 &&
                  strcmp(status, "interrupted") != 0)) {
    farm_err(err, "run status must be done, failed or interrupted, not \"%s\"",
             status ? status : "(null)");
    return -1;
  }
  sqlite3_stmt *s = st->run_end;
  sqlite3_bind_int64(s, 1, run_id);
  sqlite3_bind_text(s, 2, status, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 3, n_ok);
  sqlite3_bind_int64(s, 4, n_limit);
  sqlite3_bind_int64(s, 5, n_error);
  if (step_done(st, s, "cannot record the end of the run", err) < 0) return -1;
  if (sqlite3_changes(st->db) != 1) {
    farm_err(err, "%s: no run %" PRId64 " in the database", st->path, run_id);
    return -1;
  }
  return 0;
}

int farm_store_load_keys(farm_store *st, farm_keyset *keys, int flags, mapf_diag *err) {
  sqlite3_stmt *s = (flags & FARM_KEYS_SKIP_ERRORS) ? st->keys_ok : st->keys;
  /* The largest id bounds the row count (ids are rowids), so the set is allocated once. */
  int64_t top = 0;
  int rc = query_int(st->db, "SELECT max(id) FROM results", &top);
  if (rc != SQLITE_OK) {
    farm_err(err, "%s: cannot read job keys: %s", st->path, sqlite3_errmsg(st->db));
    return -1;
  }
  if (top > 0 && farm_keyset_reserve(keys, keys->n + top) < 0) {
    farm_err(err, "%s: out of memory loading job keys", st->path);
    return -1;
  }
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *text = (const char *)sqlite3_column_text(s, 0);
    mapf_hash128 k;
    if (!text || mapf_hash128_parse(text, &k) < 0) {
      farm_err(err, "%s: results holds a malformed job_key \"%s\"", st->path,
               text ? text : "NULL");
      sqlite3_reset(s);
      return -1;
    }
    if (farm_keyset_add(keys, k) < 0) {
      farm_err(err, "%s: out of memory loading job keys", st->path);
      sqlite3_reset(s);
      return -1;
    }
  }
  if (rc != SQLITE_DONE) {
    farm_err(err, "%s: cannot read job keys: %s", st->path, sqlite3_errmsg(st->db));
    sqlite3_reset(s);
    return -1;
  }
  sqlite3_reset(s);
  return 0;
}

/* Reads agents_max into st->agents_top, inside the batch's transaction. */
static int agents_max(farm_store *st, mapf_diag *err) {
  int rc = sqlite3_step(st->agents_max);
  if (rc == SQLITE_ROW) st->agents_top = sqlite3_column_int64(st->agents_max, 0);
  else farm_err(err, "%s: cannot read agent_results: %s", st->path,
                sqlite3_errmsg(st->db));
  sqlite3_reset(st->agents_max);
  if (rc != SQLITE_ROW) return -1;
  rc = sqlite3_step(st->series_max);
  if (rc == SQLITE_ROW) st->series_top = sqlite3_column_int64(st->series_max, 0);
  else farm_err(err, "%s: cannot read coherence_series: %s", st->path,
                sqlite3_errmsg(st->db));
  sqlite3_reset(st->series_max);
  return rc == SQLITE_ROW ? 0 : -1;
}

static int cell_ok(const mapf_grid *g, int32_t id) { return id >= 0 && id < g->ncells; }

/* Checks what SQL constraints would otherwise catch: INSERT OR IGNORE also ignores NOT NULL
 * and CHECK failures, so a malformed record must be refused here or it would vanish silently.
 * Runs before the transaction, so a bad batch leaves the database as it was. */
static int check_record(const farm_store *st, const farm_record *r, int32_t i, mapf_diag *err) {
  mapf_hash128 k;
  if (!r->job_key || mapf_hash128_parse(r->job_key, &k) < 0) {
    farm_err(err, "%s: record %d: job_key must be 32 hex digits, found \"%s\"",
             st->path, i, r->job_key ? r->job_key : "(null)");
    return -1;
  }
  const char *missing = !r->map         ? "map"
                        : !r->generator ? "generator"
                        : !r->algorithm ? "algorithm"
                        : !r->label     ? "label"
                        : !r->params    ? "params"
                        : !r->res       ? "res"
                                        : NULL;
  if (missing) {
    farm_err(err, "%s: record %d (%s): %s is NULL", st->path, i, r->job_key, missing);
    return -1;
  }
  const mapf_result *res = r->res;
  if ((unsigned)res->status > MAPF_STATUS_ERROR || (unsigned)res->limit > MAPF_LIMIT_WORK) {
    farm_err(err, "%s: record %d (%s): invalid status %d or limit %d", st->path, i,
             r->job_key, (int)res->status, (int)res->limit);
    return -1;
  }
  if (res->status == MAPF_STATUS_ERROR || res->agents <= 0) return 0;
  if (!res->agent || !r->grid) {
    farm_err(err, "%s: record %d (%s): a finished job needs its agent results and grid",
             st->path, i, r->job_key);
    return -1;
  }
  for (int32_t a = 0; a < res->agents; a++) {
    const mapf_agent_result *ag = &res->agent[a];
    if (!cell_ok(r->grid, ag->start) || !cell_ok(r->grid, ag->goal) ||
        !cell_ok(r->grid, ag->final)) {
      farm_err(err, "%s: record %d (%s): agent %d has a cell outside the %dx%d grid",
               st->path, i, r->job_key, a, r->grid->width, r->grid->height);
      return -1;
    }
  }
  return 0;
}

static void set_int(agent_value *v, int64_t i) {
  v->type = SQLITE_INTEGER;
  v->i = i;
}

/* A metric; NaN (a mean over an empty set) becomes NULL, as bind_real does. */
static void set_real(agent_value *v, double r) {
  v->type = isnan(r) ? SQLITE_NULL : SQLITE_FLOAT;
  v->r = r;
}

/* Binds row to parameters base + 1 .. base + AGENT_COLS of s. */
static void bind_agent_row(sqlite3_stmt *s, int base, const agent_row *row) {
  for (int c = 0; c < AGENT_COLS; c++) {
    const agent_value *v = &row->v[c];
    if (v->type == SQLITE_INTEGER)
      sqlite3_bind_int64(s, base + c + 1, v->i);
    else if (v->type == SQLITE_FLOAT)
      sqlite3_bind_double(s, base + c + 1, v->r);
    else
      sqlite3_bind_null(s, base + c + 1);
  }
}

/* Writes the waiting agent rows: AGENT_ROWS in one statement, fewer one by one. Every caller
 * flushes before a statement that reads or deletes agent rows, and before the commit. */
static int flush_agents(farm_store *st, mapf_diag *err) {
  int32_t n = st->npending;
  st->npending = 0;
  if (n == AGENT_ROWS) {
    for (int32_t r = 0; r < n; r++) bind_agent_row(st->put_agents, r * AGENT_COLS, &st->pending[r]);
    return step_done(st, st->put_agents, "cannot write an agent row", err);
  }
  for (int32_t r = 0; r < n; r++) {
    bind_agent_row(st->put_agent, 0, &st->pending[r]);
    if (step_done(st, st->put_agent, "cannot write an agent row", err) < 0) return -1;
  }
  return 0;
}

/* Writes the agent rows (unless the record asks for none) and coherence samples of a job whose
 * results row (id) was just inserted or replaced. */
static int put_agents(farm_store *st, const farm_record *r, int64_t id, mapf_diag *err) {
  const mapf_result *res = r->res;
  const mapf_grid *g = r->grid;
  if (id <= st->agents_top) {
    if (flush_agents(st, err) < 0) return -1;
    sqlite3_bind_int64(st->clear_agents, 1, id);
    if (step_done(st, st->clear_agents, "cannot clear orphan agent rows", err) < 0)
      return -1;
  } else {
    st->agents_top = id;
  }
  /* The same for the coherence samples. */
  if (id <= st->series_top) {
    sqlite3_bind_int64(st->clear_series, 1, id);
    if (step_done(st, st->clear_series, "cannot clear orphan coherence rows", err) < 0)
      return -1;
  }
  if (res->coherence_samples > 0 && id > st->series_top) st->series_top = id;
  for (int32_t k = 0; k < res->coherence_samples; k++) {
    sqlite3_bind_int64(st->put_sample, 1, id);
    sqlite3_bind_int64(st->put_sample, 2, res->coherence_series[k].step);
    bind_real(st->put_sample, 3, res->coherence_series[k].value);
    if (step_done(st, st->put_sample, "cannot write a coherence row", err) < 0)
      return -1;
  }
  if (r->no_agent_rows) return 0;
  for (int32_t a = 0; a < res->agents; a++) {
    const mapf_agent_result *ag = &res->agent[a];
    agent_value *v = st->pending[st->npending].v;
    set_int(&v[0], id);
    set_int(&v[1], a);
    set_int(&v[2], mapf_grid_x(g, ag->start));
    set_int(&v[3], mapf_grid_y(g, ag->start));
    set_int(&v[4], mapf_grid_x(g, ag->goal));
    set_int(&v[5], mapf_grid_y(g, ag->goal));
    set_int(&v[6], mapf_grid_x(g, ag->final));
    set_int(&v[7], mapf_grid_y(g, ag->final));
    set_int(&v[8], ag->reached ? 1 : 0);
    v[9].type = v[10].type = SQLITE_NULL;
    if (ag->completion_step >= 0) {
      set_int(&v[9], ag->completion_step);
      if (ag->completion_seconds >= 0) set_real(&v[10], ag->completion_seconds);
    }
    set_real(&v[11], ag->travel_distance);
    set_int(&v[12], ag->expansions);
    set_int(&v[13], ag->failed_moves);
    set_int(&v[14], ag->pushed);
    set_int(&v[15], ag->searches);
    set_real(&v[16], ag->optimal_distance);
    set_int(&v[17], ag->loops_done);
    v[18].type = SQLITE_NULL;
    if (r->lifelong) set_int(&v[18], ag->tasks_done);
    if (++st->npending == AGENT_ROWS && flush_agents(st, err) < 0) return -1;
  }
  return 0;
}

/* Inserts one job row, and its agent rows when the row is new or replaced an error row. An
 * error row keeps its status and message and NULL metrics, and has no agent rows. */
static int put_one(farm_store *st, int64_t run_id, const farm_record *r, const char *now,
                   mapf_diag *err) {
  const mapf_result *res = r->res;
  int failed = res->status == MAPF_STATUS_ERROR;
  sqlite3_stmt *s = st->put_result;
  /* Parameter k is the k-th column written (put_result_sql). */
  farm_row row = {.rec = r, .run_id = run_id, .finished_at = now};
  farm_value vals[FARM_MAX_COLUMNS];
  farm_columns_bind(s, &row, vals);
  /* One row changed: a new row, whose id is the last inserted rowid (a new one: ids are never
   * those of rows still present), or a replaced error row, for which that rowid stays as it
   * was (agent_results, WITHOUT ROWID, never sets it). None: the key was there; left alone. */
  int64_t before = sqlite3_last_insert_rowid(st->db);
  if (step_done(st, s, "cannot write a result row", err) < 0) return -1;
  farm_put_counts *c = &st->last_put;
  if (sqlite3_changes(st->db) == 0) {
    c->present++;
    return 0;
  }
  if (failed) c->error++;
  else if (res->status == MAPF_STATUS_OK) c->ok++;
  else c->limit++;
  if (failed || res->agents <= 0) return 0;
  int64_t id = sqlite3_last_insert_rowid(st->db);
  if (id == before) {
    sqlite3_stmt *f = st->find_id;
    bind_text(f, 1, r->job_key);
    int rc = sqlite3_step(f);
    id = rc == SQLITE_ROW ? sqlite3_column_int64(f, 0) : -1;
    if (rc != SQLITE_ROW)
      farm_err(err, "%s: cannot find the row of job %s: %s", st->path, r->job_key,
               rc == SQLITE_DONE ? "it is not there" : sqlite3_errmsg(st->db));
    sqlite3_reset(f);
    sqlite3_clear_bindings(f);
    if (id < 0) return -1;
  }
  return put_agents(st, r, id, err);
}

/* Opens a write transaction and reads where the agent and coherence rows end: nothing else
 * writes the file until it ends, so once per transaction is enough. */
static int txn_begin(farm_store *st, mapf_diag *err) {
  if (step_done(st, st->begin, "cannot start a transaction", err) < 0) return -1;
  if (agents_max(st, err) < 0) {
    farm_store_rollback(st);
    return -1;
  }
  return 0;
}

int farm_store_begin(farm_store *st, mapf_diag *err) {
  if (refuse_readonly(st, err) < 0) return -1;
  if (st->txn) {
    farm_err(err, "%s: a transaction is already open", st->path);
    return -1;
  }
  if (txn_begin(st, err) < 0) return -1;
  st->txn = 1;
  return 0;
}

int farm_store_commit(farm_store *st, mapf_diag *err) {
  if (!st->txn) return 0;
  st->txn = 0;
  if (step_done(st, st->commit, "cannot commit results", err) < 0) {
    farm_store_rollback(st);
    return -1;
  }
  return 0;
}

void farm_store_rollback(farm_store *st) {
  st->txn = 0;
  st->npending = 0;
  /* Some errors (I/O, a full disk) end the transaction themselves. */
  if (!sqlite3_get_autocommit(st->db)) {
    sqlite3_step(st->rollback);
    sqlite3_reset(st->rollback);
  }
}

/* ---- checkpoints ------------------------------------------------------------------------- */

/* In WAL mode a commit appends the pages it changed to the -wal file, and a checkpoint copies
 * them into the database file and syncs both: by default the committing connection does it
 * itself whenever the WAL holds 1,000 pages, so the writer (holding the pool's writer lock)
 * spent a quarter of its time at a million rows copying and syncing pages. During a run a
 * thread of its own does it, on a connection of its own: SQLite's PASSIVE checkpoint runs
 * beside the writer, copying what was committed before it began. The WAL hook (called after
 * every commit with the WAL's size in pages) wakes that thread; should the WAL still reach
 * CKPT_OWN_PAGES (the thread falls behind), the writer checkpoints itself, so the WAL stays
 * bounded. */
#define CKPT_OWN_PAGES 65536 /* 256 MiB of 4 KiB pages */

static void *checkpoint_loop(void *arg) {
  checkpointer *c = arg;
  pthread_mutex_lock(&c->lock);
  for (;;) {
    while (!c->pending && !c->stop) pthread_cond_wait(&c->wake, &c->lock);
    if (!c->pending) break;
    c->pending = 0;
    pthread_mutex_unlock(&c->lock);
    /* Busy (a reader's snapshot, another checkpoint): the next commit wakes it again. */
    sqlite3_wal_checkpoint_v2(c->db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    c->runs++;
    pthread_mutex_lock(&c->lock);
  }
  pthread_mutex_unlock(&c->lock);
  return NULL;
}

static int wal_hook(void *ud, sqlite3 *db, const char *name, int pages) {
  checkpointer *c = ud;
  if (pages >= CKPT_OWN_PAGES) {
    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    return SQLITE_OK;
  }
  pthread_mutex_lock(&c->lock);
  c->pending = 1;
  pthread_cond_signal(&c->wake);
  pthread_mutex_unlock(&c->lock);
  return SQLITE_OK;
}

int farm_store_checkpoints_start(farm_store *st, mapf_diag *err) {
  if (refuse_readonly(st, err) < 0) return -1;
  if (st->ckpt) return 0;
  checkpointer *c = calloc(1, sizeof *c);
  if (!c) {
    farm_err(err, "%s: out of memory", st->path);
    return -1;
  }
  if (sqlite3_open_v2(st->path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
      SQLITE_OK) {
    farm_err(err, "%s: cannot open a connection for checkpoints: %s", st->path,
             c->db ? sqlite3_errmsg(c->db) : "out of memory");
    sqlite3_close(c->db);
    free(c);
    return -1;
  }
  sqlite3_busy_timeout(c->db, FARM_STORE_BUSY_MS);
  /* A connection knows the file is in WAL mode only once it has read it; until then a
   * checkpoint does nothing. */
  int64_t tables = 0;
  if (query_int(c->db, "SELECT count(*) FROM sqlite_master", &tables) != SQLITE_OK) {
    farm_err(err, "%s: cannot read it for checkpoints: %s", st->path, sqlite3_errmsg(c->db));
    sqlite3_close(c->db);
    free(c);
    return -1;
  }
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->wake, NULL);
  if (pthread_create(&c->thread, NULL, checkpoint_loop, c) != 0) {
    farm_err(err, "%s: cannot start the checkpoint thread", st->path);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->lock);
    sqlite3_close(c->db);
    free(c);
    return -1;
  }
  st->ckpt = c;
  sqlite3_wal_hook(st->db, wal_hook, c);
  return 0;
}

int64_t farm_store_checkpoints_stop(farm_store *st) {
  checkpointer *c = st ? st->ckpt : NULL;
  if (!c) return 0;
  sqlite3_wal_autocheckpoint(st->db, 1000); /* SQLite's default hook again */
  pthread_mutex_lock(&c->lock);
  c->stop = 1;
  pthread_cond_signal(&c->wake);
  pthread_mutex_unlock(&c->lock);
  pthread_join(c->thread, NULL);
  int64_t runs = c->runs;
  pthread_cond_destroy(&c->wake);
  pthread_mutex_destroy(&c->lock);
  sqlite3_close(c->db);
  free(c);
  st->ckpt = NULL;
  return runs;
}

int farm_store_drop_indexes(farm_store *st, mapf_diag *err) {
  if (refuse_readonly(st, err) < 0) return -1;
  if (st->txn) {
    farm_err(err, "%s: cannot drop the indexes inside a transaction", st->path);
    return -1;
  }
  int rc = exec_sql(st->db, st->path, "BEGIN IMMEDIATE", "cannot lock the database", err);
  for (int32_t k = 0; k < NDEFERRED && rc == 0; k++) {
    char *drop = sqlite3_mprintf("DROP INDEX IF EXISTS main.\"%w\"", deferred_indexes[k]);
    if (!drop) farm_err(err, "%s: out of memory", st->path);
    rc = drop ? exec_sql(st->db, st->path, drop, "cannot drop an index", err) : -1;
    sqlite3_free(drop);
  }
  if (rc == 0) rc = exec_sql(st->db, st->path, "COMMIT", "cannot drop the indexes", err);
  if (rc < 0 && !sqlite3_get_autocommit(st->db)) sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

int farm_store_build_indexes(farm_store *st, int threads, mapf_diag *err) {
  if (refuse_readonly(st, err) < 0) return -1;
  if (st->txn) {
    farm_err(err, "%s: cannot build the indexes inside a transaction", st->path);
    return -1;
  }
  return build_indexes(st->db, st->path, threads, err);
}

int farm_store_put(farm_store *st, int64_t run_id, const farm_record *recs, int32_t n,
                   mapf_diag *err) {
  if (refuse_readonly(st, err) < 0) return -1;
  memset(&st->last_put, 0, sizeof st->last_put);
  if (n <= 0) return 0;
  for (int32_t i = 0; i < n; i++)
    if (check_record(st, &recs[i], i, err) < 0) return -1;
  int own = !st->txn; /* a transaction of its own, or the caller's */
  if (own && txn_begin(st, err) < 0) return -1;
  /* One time for the whole batch, formatted here rather than by strftime('now') in SQL for
   * every row. */
  char now[32];
  time_t t = time(NULL);
  struct tm tm;
  if (!gmtime_r(&t, &tm) || strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm) != 20) {
    farm_err(err, "%s: cannot read the clock", st->path);
    goto fail;
  }
  for (int32_t i = 0; i < n; i++)
    if (put_one(st, run_id, &recs[i], now, err) < 0) goto fail;
  if (flush_agents(st, err) < 0) goto fail;
  if (own && step_done(st, st->commit, "cannot commit results", err) < 0) goto fail;
  return 0;
fail:
  memset(&st->last_put, 0, sizeof st->last_put);
  farm_store_rollback(st);
  return -1;
}

void farm_store_last_put(const farm_store *st, farm_put_counts *counts) {
  *counts = st->last_put;
}

int farm_store_fill_limits(farm_store *st, mapf_diag *err) {
  if (refuse_readonly(st, err) < 0) return -1;
  return backfill_limits(st->db, st->path, err);
}
