/* pool.h: the OpenMP worker pool that runs a plan's pending jobs.
 *
 * Workers only compute: each takes the next pending job (dynamic scheduling), builds its
 * instance, runs it on its own mapf_workspace (scratch memory reused across jobs) and queues
 * the result. Whichever worker finds the queue full (or old) and the writer lock free writes the
 * queue into the open transaction, which is committed once it is flush_seconds old; the SQLite
 * connection is only ever used under that lock, so there is one writer and workers never wait
 * on it (omp_test_lock) unless four batches are queued. */
#ifndef FARM_POOL_H
#define FARM_POOL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "expand.h"
#include "store.h"

/* Called by the writing thread after each batch, and once at the end (final = 1). */
typedef void (*farm_progress_fn)(void *ud, int64_t done, int64_t pending, int64_t failed,
                                 double elapsed, int final);

typedef struct farm_run_opts {
  int32_t threads;         /* 0: all cores */
  int32_t shard_index;     /* 1-based; with shard_count, runs the jobs whose key falls in */
  int32_t shard_count;     /* this shard (1/1: all) */
  int32_t batch;           /* results written at a time (0: 1024) */
  double flush_seconds;    /* commit at least this often (0: 1 s) */
  farm_progress_fn progress;
  void *progress_ud;
  const volatile sig_atomic_t *stop; /* when set, workers start no new job */
  int retry_failed;        /* run again the jobs stored with status error */
  /* Benchmarks (`mapfarm bench farm --discard`): run every job of the shard and drop each
   * result as it ends: nothing is read from or written to the store (which may be NULL), and
   * no row is formatted, so the rate is the compute-only rate. */
  int discard;
} farm_run_opts;

typedef struct farm_run_summary {
  int64_t run_id;
  int64_t total;           /* jobs of the plan in this shard */
  int64_t present;         /* already in the database */
  int64_t pending;         /* to run at the start */
  int64_t done;            /* stored by this run: ok + limit + error */
  int64_t ok, limit, error; /* rows stored by this run (its runs row records them), by status */
  int64_t skipped;         /* run, but found stored by another writer meanwhile: left as it was */
  double seconds;
  double writer_seconds;   /* CPU time of the writes, summed over the threads that wrote */
  double index_seconds;    /* building the deferred indexes at the end (after `seconds`) */
  int64_t checkpoints;     /* checkpoints run beside the writer (farm_store_checkpoints_*) */
  int interrupted;
} farm_run_summary;

/* Returns 1 when job key k belongs to shard index (1-based) of count. */
int farm_shard_has(mapf_hash128 k, int32_t index, int32_t count);

/* Runs every job of sp that the database does not hold yet and records the run's provenance.
 * A run with at least as many jobs to do as the database holds drops the deferred indexes
 * (store.h) and builds them at its end, unless it was interrupted; a smaller one builds them
 * first if they are missing. Returns 0 when the run completed or was stopped cleanly (see
 * sum->interrupted), -1 on a database error (err says which; jobs written before it stay). */
int farm_run(farm_space *sp, farm_store *st, const farm_run_opts *opts, farm_run_summary *sum,
             mapf_diag *err);

/* Runs job j of sp, as `run` runs it, into res (clear it with mapf_result_clear): never fails,
 * a problem becomes status error with its message. on_step, on_goal and on_cell (NULL: none)
 * see the run, for a trace. */
void farm_run_job(const farm_space *sp, mapf_workspace *ws, const farm_job *j, mapf_result *res,
                  mapf_step_fn on_step, mapf_goal_fn on_goal, mapf_cell_fn on_cell, void *ud);

/* The stored row of job j with its result res (label and params as farm_job_label and
 * farm_job_params_json write them): the record farm_store_put takes. */
void farm_job_record(const farm_space *sp, const farm_job *j, const char *label,
                     const char *params, const mapf_result *res, farm_record *r);

#endif
