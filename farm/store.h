/* store.h: the SQLite results database (schema/schema.sql, schema/views.sql).
 *
 * One connection, used by one thread at a time: the pool hands batches of finished jobs to
 * whichever worker holds the writer lock, and that worker writes them into the open
 * transaction (WAL mode), committed once a second; during a run a second connection only
 * checkpoints, in a thread of its own. Jobs are keyed by job key (a key already stored is left
 * as it is, so a rerun or a merge never duplicates a job); agent rows refer to their job's
 * results.id, an integer that grows with insertion order (schema/schema.sql). */
#ifndef FARM_STORE_H
#define FARM_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "diag.h"
#include "grid.h"
#include "keyset.h"
#include "sim.h"

/* PRAGMA application_id of a mapfarm database ("mapf"), and the schema version. */
#define FARM_APPLICATION_ID 0x6d617066
#define FARM_SCHEMA_VERSION 11
/* The oldest version this mapfarm reads, and upgrades in place when it opens a file for
 * writing (every version from it to FARM_SCHEMA_VERSION). */
#define FARM_SCHEMA_OLDEST 2

typedef struct farm_store farm_store;

enum {
  FARM_STORE_READONLY = 0, /* the file must exist and be a mapfarm database */
  FARM_STORE_CREATE = 1,   /* create the file and the schema when missing */
  /* With FARM_STORE_CREATE: leave the deferred indexes that the file lacks (its run was killed
   * while it had dropped them) to the caller, which builds them (farm_store_build_indexes). */
  FARM_STORE_DEFER_INDEXES = 2
};

/* Opens (or creates) a results database. An existing file that is not a regular file, not
 * SQLite or damaged, or a SQLite database that is not a mapfarm database (other application_id,
 * or tables but no mapfarm schema) or not of FARM_SCHEMA_VERSION (an older or newer
 * mapfarm's), is refused and left untouched, except a file of FARM_SCHEMA_OLDEST or later:
 * FARM_STORE_CREATE adds the newer columns and tables to it in one transaction (nothing else
 * changes), and FARM_STORE_READONLY reads it as it is (the newer columns are missing there).
 * Either way the connection then sees the views of this mapfarm's schema/views.sql: where a
 * file's views differ (written by an older mapfarm of the same schema version),
 * FARM_STORE_CREATE drops and recreates them in one transaction, and FARM_STORE_READONLY
 * creates them as TEMP views on the connection, leaving the file as it is.
 * A file whose views are current is not written to; nor is one that has the deferred indexes
 * (farm_store_drop_indexes), which FARM_STORE_CREATE otherwise builds when they are missing,
 * unless FARM_STORE_DEFER_INDEXES is given with it. A refused file is judged from its header
 * and a read that creates no -wal or -shm beside it: it stays as it was, and so does its
 * directory.
 *
 * FARM_STORE_CREATE also takes the database's writer lock, PATH.lock beside it, held until
 * farm_store_close: one process writes a database at a time. When another live process holds
 * it, the open fails at once, before anything is written, and err names that process (pid,
 * host, start time). A lock left by a process of this host that has ended is taken over, and
 * farm_store_note says so; one left by another host is refused, since its liveness cannot be
 * checked from here, and err says how to break it. Readers (FARM_STORE_READONLY) take no lock.
 * Returns 0 and *out, or -1 with a message in err. */
int farm_store_open(const char *path, int mode, farm_store **out, mapf_diag *err);

/* A note for the user about the open (a lock taken over from a process that ended without
 * releasing it), or "" when there is none. Owned by st. */
const char *farm_store_note(const farm_store *st);

/* Closes st and releases its writer lock; NULL is a no-op. */
void farm_store_close(farm_store *st);

/* Closes st; when its open created the database file, deletes that first with its WAL and
 * shared-memory files, while the writer lock is still held (so no other writer can have opened
 * it meanwhile): for a command that failed, so that nothing of it stays. NULL is a no-op. */
void farm_store_discard(farm_store *st);

/* Deletes the database file at path with its WAL and shared-memory files, taking no lock
 * (farm_store_discard does the same for an open store, under its lock). */
void farm_store_remove(const char *path);

/* The underlying connection, for reports and tests. */
sqlite3 *farm_store_db(farm_store *st);

/* Provenance of one `mapfarm run`. */
typedef struct farm_run_info {
  const char *plan_name, *plan_path, *plan_text, *plan_hash;
  int32_t threads;
  const char *shard;       /* "1/1" */
  int64_t jobs_total;      /* jobs in the plan (this shard) */
  int64_t jobs_pending;    /* not yet in the database when the run started */
} farm_run_info;

/* Inserts a row into `runs` with the code version, compiler, host and start time. Returns 0
 * and *run_id, or -1 with err. */
int farm_store_run_begin(farm_store *st, const farm_run_info *info, int64_t *run_id,
                         mapf_diag *err);

/* Records the end of a run: status ("done", "failed", "interrupted"), end time and counts. */
int farm_store_run_end(farm_store *st, int64_t run_id, const char *status, int64_t n_ok,
                       int64_t n_limit, int64_t n_error, mapf_diag *err);

enum {
  /* Leave out the keys of jobs that ended in error, so they run again (--retry-failed). */
  FARM_KEYS_SKIP_ERRORS = 1
};

/* Adds every job key already in the database to keys (for resume). */
int farm_store_load_keys(farm_store *st, farm_keyset *keys, int flags, mapf_diag *err);

/* One finished job: what identifies it and its metrics. */
typedef struct farm_record {
  const char *job_key;     /* 32 hex digits */
  const char *map;         /* file name or generated name */
  uint64_t map_hash;
  const char *generator;
  int32_t agents, instance;
  const char *algorithm, *label, *params; /* params: canonical JSON */
  uint64_t seed;
  mapf_limits limits;      /* the plan's limits and execution rule (part of the key) */
  mapf_execution execution;
  int32_t connectivity;   /* the plan's: 8 or 4 */
  const char *events;     /* the scenario's events as results.events shows them, or NULL */
  int32_t lifelong;       /* the scenario's lifelong goals: 0 or 1 */
  int64_t plan_index;      /* the job's index in its plan (orders reports) */
  const mapf_grid *grid;   /* to turn cell ids into x, y in agent rows */
  const mapf_result *res;  /* res->agent may be NULL for an error row */
  int no_agent_rows;       /* write no agent rows (the plan's store: {agents: false}) */
} farm_record;

/* Fills in the limits and execution of rows that lack them (copied by `mapfarm merge` from a
 * file of schema version 3 or older) from the plan text of the run that wrote each row, as the
 * upgrade does. Runs in the caller's transaction, if any. Returns 0, or -1 with err. */
int farm_store_fill_limits(farm_store *st, mapf_diag *err);

/* Writes n records and their agent rows in one transaction. Keys already present are left as
 * they are, except rows with status error, which a new result replaces. Returns 0, or -1 with
 * err (the transaction is rolled back). Inside a transaction of farm_store_begin, the rows join
 * it instead, and a failure rolls back the whole of it: every put since farm_store_begin. */
int farm_store_put(farm_store *st, int64_t run_id, const farm_record *recs, int32_t n,
                   mapf_diag *err);

/* The indexes of schema/schema.sql whose entries land far apart (results_map_label,
 * results_instance): only readers use them, so a run that adds many rows drops them and builds
 * them once at its end (farm_run), instead of rewriting their pages at every commit.
 * farm_store_drop_indexes drops them; farm_store_build_indexes creates those the file lacks, in
 * one transaction, sorting on up to threads threads, and returns how many (0: the file is not
 * written to). Neither may be called inside farm_store_begin's transaction. Return -1 with err
 * on failure. */
int farm_store_drop_indexes(farm_store *st, mapf_diag *err);
int farm_store_build_indexes(farm_store *st, int threads, mapf_diag *err);

/* Checkpoints in a thread of their own (farm_run, while it writes): the writer's commits then
 * only append to the WAL, and a second connection copies the WAL into the database beside
 * them, unless the WAL reaches 256 MiB, when the writer checkpoints too. _start returns 0, or
 * -1 with err (the commits then checkpoint as before); _stop joins the thread and returns how
 * many checkpoints it ran (0 when none was running). farm_store_close stops it too. */
int farm_store_checkpoints_start(farm_store *st, mapf_diag *err);
int64_t farm_store_checkpoints_stop(farm_store *st);

/* One transaction for many farm_store_put calls (the pool's: a commit writes every page it
 * changed once, however many puts changed it). farm_store_begin returns 0, or -1 with err;
 * farm_store_commit returns 0 (also when no transaction is open), or -1 with err after rolling
 * it back; farm_store_rollback ends it, discarding its rows. */
int farm_store_begin(farm_store *st, mapf_diag *err);
int farm_store_commit(farm_store *st, mapf_diag *err);
void farm_store_rollback(farm_store *st);

/* What the last successful farm_store_put on st wrote: rows stored (new, or replacing an error
 * row), by the status stored, and records left out because their key was already there. */
typedef struct farm_put_counts {
  int64_t ok, limit, error;
  int64_t present;
} farm_put_counts;

void farm_store_last_put(const farm_store *st, farm_put_counts *counts);

#endif
