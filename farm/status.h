/* status.h: what a results database holds and how its runs are going, for `mapfarm status`
 * and `mapfarm runs`.
 *
 * Both read through a read-only connection (farm_store_open with FARM_STORE_READONLY) in one
 * read transaction, so they work while a run is writing the same file: WAL readers neither wait
 * for the writer nor block it, and see one consistent snapshot.
 *
 * A run whose process died (kill -9, a crash, a node lost) never records its end: its row stays
 * `running`. Nothing in the file can tell it from a live run; these functions report such runs
 * as running, and the caller says "running (or stopped without a clean exit)". */
#ifndef FARM_STATUS_H
#define FARM_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "store.h"

/* One run, as status shows it. Text fields are "" for NULL; long values are cut. */
typedef struct farm_status_run {
  int64_t run_id;
  char shard[32], host[256], status[16], started_at[32], ended_at[32];
  int64_t rows;          /* rows in results written by this run */
  double seconds;        /* started_at to ended_at, or to now while it has not ended */
  double rate;           /* rows / seconds; NAN when seconds is 0 */
  double last_row_age;   /* while running: seconds since its newest row (NAN without rows);
                            NAN for an ended run */
  int superseded;        /* running, but a later run of the same plan and shard has started:
                            almost certainly stopped without a clean exit and resumed */
} farm_status_run;

/* One plan: the runs with the same plan_hash and plan_name. */
typedef struct farm_status_plan {
  char plan_name[128], plan_hash[40];
  int64_t done;          /* rows in results written by a run of this plan */
  int64_t ok, limit, error; /* done, by status */
  /* Jobs of the plan: the latest run's shard layout I/N, and for every shard of it that has a
   * run here, that shard's latest jobs_total, summed. shards_seen < shard_count means some
   * shards of the layout have not run (or not been merged) into this file. */
  int64_t total;
  int32_t shard_count, shards_seen;
  int64_t runs, running, finished, failed, interrupted; /* runs, by status */
  farm_status_run last;  /* the latest run, by start time */
  farm_status_run *active; /* the runs with status running that no later run of their shard
                              superseded, latest first */
  int32_t nactive;
  double rate;           /* jobs/s: the active runs' rates summed, else the last run's */
  double eta;            /* seconds to finish, (total - done) / rate, while a run is active
                            and the rate is known; NAN otherwise */
} farm_status_plan;

typedef struct farm_status {
  char now[32];          /* when it was read (UTC, the database's clock) */
  int64_t results;       /* rows in results */
  int64_t unowned;       /* of those, rows whose run_id names no run in the file */
  farm_status_plan *plans; /* in the order the plans first ran */
  int32_t nplans;
} farm_status;

/* Reads the status of st. Returns 0 and fills *out (free it with farm_status_free), or -1 with
 * err (and *out empty). */
int farm_status_read(farm_store *st, farm_status *out, mapf_diag *err);

/* Frees what farm_status_read allocated (not s itself); a zeroed s is a no-op. */
void farm_status_free(farm_status *s);

/* One row of `runs`, for `mapfarm runs`. Text fields are "" for NULL; long values are cut. */
typedef struct farm_run_row {
  int64_t run_id;
  char plan_name[128], plan_hash[40], version[128], compiler[128], host[256], shard[32];
  char started_at[32], ended_at[32], status[16], merged_from[512];
  int64_t threads;       /* -1 when NULL */
  int64_t n_ok, n_limit, n_error;
  int counted;           /* 1: the run recorded no end, so n_* are its rows in results so far */
} farm_run_row;

/* Lists every run of st by run_id. Returns 0 with *rows (malloc'd, free() it; NULL when there
 * are none) and *n, or -1 with err. */
int farm_runs_list(farm_store *st, farm_run_row **rows, int32_t *n, mapf_diag *err);

#endif
