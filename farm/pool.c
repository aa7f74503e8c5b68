/* pool.c: the worker pool (pool.h). */
#include "pool.h"

#include "astar.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct done_job {
  farm_job job;
  char params[512];
  char label[256];
  mapf_result res;
} done_job;

typedef struct job_queue {
  done_job *items;
  int32_t n, cap;
} job_queue;

typedef struct pool {
  farm_space *sp;
  farm_store *st;
  const farm_run_opts *opts;
  farm_run_summary *sum;
  int64_t run_id;
  omp_lock_t queue_lock;  /* guards queue */
  omp_lock_t writer_lock; /* guards the store, the counters and last_flush */
  job_queue queue;
  double t0, last_flush;
  double every;           /* commit at least this often (seconds) */
  double txn_start;       /* when the open transaction began; 0: none open */
  farm_put_counts txn;    /* what the open transaction holds, counted in sum at its commit */
  int failed;             /* a write failed: start no new job */
  mapf_diag err;          /* why, when failed */
} pool;

/* Why a worker writes the queue. */
enum {
  FLUSH_FULL,  /* the queue holds a batch: write it if the writer lock is free */
  FLUSH_OLD,   /* the queue waited `every` (slow jobs): write and commit if the lock is free */
  FLUSH_WAIT,  /* the queue holds four batches: wait for the lock (back-pressure) */
  FLUSH_FINAL  /* the end: wait for the lock, write, commit */
};

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The calling thread's CPU time: what writing costs, whatever else runs on the machine. */
static double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int farm_shard_has(mapf_hash128 k, int32_t index, int32_t count) {
  if (count <= 1) return 1;
  return (int32_t)(k.hi % (uint64_t)count) == index - 1;
}

static int by_key(const void *a, const void *b) {
  return strcmp(((const farm_record *)a)->job_key, ((const farm_record *)b)->job_key);
}

/* Writes a batch into the open transaction, opening one if there is none (the caller holds
 * writer_lock). */
static void write_batch(pool *p, done_job *items, int32_t n) {
  if (n == 0 || p->failed) return;
  if (p->txn_start == 0) {
    if (farm_store_begin(p->st, &p->err) < 0) {
#pragma omp atomic write
      p->failed = 1;
      return;
    }
    p->txn_start = now_seconds();
  }
  farm_record *recs = calloc((size_t)n, sizeof *recs);
  if (!recs) {
    farm_err(&p->err, "out of memory writing results");
#pragma omp atomic write
    p->failed = 1;
    return;
  }
  for (int32_t i = 0; i < n; i++)
    farm_job_record(p->sp, &items[i].job, items[i].label, items[i].params, &items[i].res,
                    &recs[i]);
  /* Keys are hashes: in key order, one batch touches each index page once. */
  qsort(recs, (size_t)n, sizeof *recs, by_key);
  if (farm_store_put(p->st, p->run_id, recs, n, &p->err) < 0) {
    p->txn_start = 0; /* rolled back, with every batch it held */
#pragma omp atomic write
    p->failed = 1;
  } else {
    farm_put_counts c;
    farm_store_last_put(p->st, &c);
    p->txn.ok += c.ok;
    p->txn.limit += c.limit;
    p->txn.error += c.error;
    p->txn.present += c.present;
  }
  free(recs);
}

/* Commits the open transaction (the caller holds writer_lock). Its rows are counted as stored
 * only now, so the runs row counts exactly the rows this run committed. */
static void commit(pool *p) {
  if (p->txn_start == 0) return; /* none, or rolled back by a failed write */
  p->txn_start = 0;
  if (farm_store_commit(p->st, &p->err) < 0) {
#pragma omp atomic write
    p->failed = 1;
    return;
  }
  p->sum->ok += p->txn.ok;
  p->sum->limit += p->txn.limit;
  p->sum->error += p->txn.error;
  p->sum->skipped += p->txn.present;
  p->sum->done += p->txn.ok + p->txn.limit + p->txn.error;
  memset(&p->txn, 0, sizeof p->txn);
}

/* Takes the queue and writes it, if this thread can get the writer lock (or must: FLUSH_WAIT
 * and FLUSH_FINAL). The transaction stays open across batches and is committed once it is
 * `every` old: a commit writes each page it changed once, and the pages of the job_key index,
 * on which keys land at random, are most of them; so the longer it is, the fewer pages each job
 * costs. A queue that waited `every` means jobs finish slowly: it is committed at once. */
static void flush(pool *p, int why) {
  if (why == FLUSH_WAIT || why == FLUSH_FINAL)
    omp_set_lock(&p->writer_lock);
  else if (!omp_test_lock(&p->writer_lock))
    return;
  double cpu0 = thread_cpu_seconds();
  omp_set_lock(&p->queue_lock);
  job_queue q = p->queue;
  p->queue.items = NULL;
  p->queue.n = p->queue.cap = 0;
  omp_unset_lock(&p->queue_lock);

  write_batch(p, q.items, q.n);
  for (int32_t i = 0; i < q.n; i++) mapf_result_clear(&q.items[i].res);
  free(q.items);
  double t = now_seconds();
  int committed = p->txn_start != 0 &&
                  (why == FLUSH_OLD || why == FLUSH_FINAL || t - p->txn_start >= p->every);
  if (committed) commit(p);
#pragma omp atomic write
  p->last_flush = t;
  if (p->opts->progress && (committed || why == FLUSH_FINAL))
    p->opts->progress(p->opts->progress_ud, p->sum->done, p->sum->pending, p->sum->error,
                      t - p->t0, 0);
  p->sum->writer_seconds += thread_cpu_seconds() - cpu0;
  omp_unset_lock(&p->writer_lock);
}

void farm_job_record(const farm_space *sp, const farm_job *j, const char *label,
                     const char *params, const mapf_result *res, farm_record *r) {
  const farm_plan *plan = sp->plan;
  const farm_algo_spec *as = &plan->algos[j->algo];
  const mapf_grid *g = sp->grids[j->map];
  memset(r, 0, sizeof *r);
  r->job_key = j->key_hex;
  /* A map file is named as the plan writes it (bg512/AR0414SR.map), so two sets' maps of one
   * name stay apart in reports; a generated map by its generated name. */
  r->map = plan->maps[j->map].source ? plan->maps[j->map].source : g->name;
  r->map_hash = g->hash;
  r->generator = plan->scens[j->scen].generator;
  r->agents = j->agents;
  r->instance = j->instance;
  r->algorithm = as->def->name;
  r->label = label;
  r->params = params;
  r->seed = j->seed;
  r->limits = farm_algo_limits(plan, as);
  r->execution = farm_algo_execution(plan, as);
  r->connectivity = plan->connectivity;
  r->events = plan->scens[j->scen].events;
  r->lifelong = plan->scens[j->scen].lifelong;
  r->plan_index = j->index;
  r->grid = g;
  r->res = res;
  r->no_agent_rows = !plan->store_agents;
}

/* Runs one job into out; never fails: problems become an error row. Its stored text (params
 * and label) is made only for a result that is kept. */
static void run_job(pool *p, mapf_workspace *ws, int64_t index, done_job *out) {
  farm_space *sp = p->sp;
  farm_job *j = &out->job;
  farm_space_job(sp, index, j);
  if (!p->opts->discard) {
    farm_job_params_json(sp, j, out->params, sizeof out->params);
    farm_job_label(sp, j, out->label, sizeof out->label);
  }
  farm_run_job(sp, ws, j, &out->res, NULL, NULL, NULL, NULL);
}

void farm_run_job(const farm_space *sp, mapf_workspace *ws, const farm_job *j, mapf_result *res,
                  mapf_step_fn on_step, mapf_goal_fn on_goal, mapf_cell_fn on_cell, void *ud) {
  mapf_diag d = {0};
  mapf_instance *inst = NULL;
  memset(res, 0, sizeof *res);
  int rc = farm_job_instance(sp, j, &inst, &d);
  if (rc != MAPF_OK) {
    res->status = MAPF_STATUS_ERROR;
    res->agents = j->agents;
    /* With the place in the input when there is one (an events file's line), by the file's
     * name alone: the stored row does not depend on where the plan was run. */
    const char *base = strrchr(d.file, '/');
    if (d.file[0] && d.line > 0)
      snprintf(res->message, sizeof res->message, "%.200s:%d:%d: %.250s", base ? base + 1 : d.file,
               d.line, d.col, d.msg);
    else
      snprintf(res->message, sizeof res->message, "%.*s", (int)sizeof res->message - 1, d.msg);
    return;
  }
  const farm_plan *plan = sp->plan;
  /* A single agent's optimal distance gives its suboptimality (thesis Ch. 4); one A* search,
   * small beside the run. Larger instances know it only from a .scen file. */
  if (inst->n == 1 && mapf_astar_fill_optimal(sp->grids[j->map], inst) != MAPF_OK) {
    mapf_instance_free(inst);
    res->status = MAPF_STATUS_ERROR;
    res->agents = j->agents;
    snprintf(res->message, sizeof res->message, "out of memory");
    return;
  }
  mapf_run_config cfg = {0};
  cfg.grid = sp->grids[j->map];
  cfg.inst = inst;
  cfg.algo = plan->algos[j->algo].def;
  cfg.params = j->params;
  cfg.limits = farm_algo_limits(plan, &plan->algos[j->algo]);
  cfg.execution = farm_algo_execution(plan, &plan->algos[j->algo]);
  cfg.sample_every = plan->coherence_every;
  cfg.seed = j->seed;
  cfg.on_step = on_step;
  cfg.on_goal = on_goal;
  cfg.on_cell = on_cell;
  cfg.ud = ud;
  mapf_run(ws, &cfg, res, &d); /* on error, res carries status and message */
  mapf_instance_free(inst);
}

static int queue_push(pool *p, done_job *dj) {
  omp_set_lock(&p->queue_lock);
  if (p->queue.n == p->queue.cap) {
    int32_t cap = p->queue.cap ? p->queue.cap * 2 : 64;
    done_job *items = realloc(p->queue.items, (size_t)cap * sizeof *items);
    if (!items) {
      omp_unset_lock(&p->queue_lock);
      return -1;
    }
    p->queue.items = items;
    p->queue.cap = cap;
  }
  p->queue.items[p->queue.n++] = *dj;
  int32_t n = p->queue.n;
  omp_unset_lock(&p->queue_lock);
  return n;
}

int farm_run(farm_space *sp, farm_store *st, const farm_run_opts *opts, farm_run_summary *sum,
             mapf_diag *err) {
  memset(sum, 0, sizeof *sum);
  int32_t shard_index = opts->shard_count > 1 ? opts->shard_index : 1;
  int32_t shard_count = opts->shard_count > 1 ? opts->shard_count : 1;

  /* Resume: the keys already stored, then the plan's jobs that are not among them. Computing
   * a key formats and hashes the job's canonical text, so this pass runs on every thread; the
   * key set is only read here. A plan never lists one job twice (the plan checker refuses
   * repeats), so no job can be pending twice. */
  farm_keyset keys = {0};
  if (!opts->discard &&
      farm_store_load_keys(st, &keys, opts->retry_failed ? FARM_KEYS_SKIP_ERRORS : 0, err) < 0)
    return -1;
  int threads = opts->threads > 0 ? opts->threads : omp_get_max_threads();
  int64_t njobs = sp->njobs;
  uint8_t *state = malloc(njobs > 0 ? (size_t)njobs : 1); /* 0 other shard, 1 present, 2 to do */
  if (!state) {
    farm_keyset_free(&keys);
    farm_err(err, "out of memory listing the plan's jobs");
    return -1;
  }
#pragma omp parallel for schedule(static, 4096) num_threads(threads)
  for (int64_t i = 0; i < njobs; i++) {
    farm_job j;
    farm_space_job(sp, i, &j);
    if (!farm_shard_has(j.key, shard_index, shard_count))
      state[i] = 0;
    else
      state[i] = farm_keyset_has(&keys, j.key) ? 1 : 2;
  }
  int64_t stored = keys.n + keys.has_zero; /* rows in the database, of any plan or shard */
  farm_keyset_free(&keys);
  int64_t ntodo = 0;
  for (int64_t i = 0; i < njobs; i++) {
    sum->total += state[i] != 0;
    sum->present += state[i] == 1;
    ntodo += state[i] == 2;
  }
  int64_t *todo = malloc((size_t)(ntodo > 0 ? ntodo : 1) * sizeof *todo);
  if (!todo) {
    free(state);
    farm_err(err, "out of memory listing the plan's jobs");
    return -1;
  }
  for (int64_t i = 0, k = 0; i < njobs; i++)
    if (state[i] == 2) todo[k++] = i;
  free(state);
  sum->pending = ntodo;

  char shard[32];
  snprintf(shard, sizeof shard, "%d/%d", (int)shard_index, (int)shard_count);
  const farm_plan *plan = sp->plan;
  farm_run_info info = {plan->name, plan->path, plan->text, plan->hash, threads, shard,
                        sum->total, ntodo};
  if (ntodo == 0) {
    free(todo);
    /* Nothing to do: no run row, and the database is untouched, unless a run killed while it
     * had dropped the deferred indexes left it without them. */
    return opts->discard || farm_store_build_indexes(st, threads, err) >= 0 ? 0 : -1;
  }
  /* A run that at least doubles the rows drops the indexes whose entries land far apart and
   * builds them at its end (store.h): sorting every row once costs no more than keeping them
   * up to date, and far less once the rows outgrow the page cache. A smaller run keeps them
   * (and builds them first if a killed run left them out). What counts is every row of the
   * database, of whatever plan or shard; --retry-failed leaves the error rows out. */
  int defer = ntodo >= stored;
  if (!opts->discard && (defer ? farm_store_drop_indexes(st, err)
                               : farm_store_build_indexes(st, threads, err)) < 0) {
    free(todo);
    return -1;
  }
  if (!opts->discard && farm_store_run_begin(st, &info, &sum->run_id, err) < 0) {
    free(todo);
    return -1;
  }

  pool p = {0};
  p.sp = sp;
  p.st = st;
  p.opts = opts;
  p.sum = sum;
  p.run_id = sum->run_id;
  p.t0 = p.last_flush = now_seconds();
  omp_init_lock(&p.queue_lock);
  omp_init_lock(&p.writer_lock);
  /* Not starting it is no failure: the commits then checkpoint themselves, as SQLite does. */
  if (!opts->discard) farm_store_checkpoints_start(st, NULL);
  int32_t batch = opts->batch > 0 ? opts->batch : 1024;
  double every = opts->flush_seconds > 0 ? opts->flush_seconds : 1.0;
  p.every = every;
  int stopped = 0;

#pragma omp parallel num_threads(threads)
  {
    mapf_workspace *ws = mapf_workspace_new();
#pragma omp for schedule(dynamic, 1)
    for (int64_t k = 0; k < ntodo; k++) {
      int stop_now;
#pragma omp atomic read
      stop_now = p.failed;
      if (stop_now || !ws || (opts->stop && *opts->stop)) {
#pragma omp atomic write
        stopped = 1;
        continue;
      }
      done_job dj;
      run_job(&p, ws, todo[k], &dj);
      if (opts->discard) {
        mapf_result_clear(&dj.res);
#pragma omp atomic update
        sum->done++;
        continue;
      }
      int n = queue_push(&p, &dj);
      if (n < 0) {
        mapf_result_clear(&dj.res);
#pragma omp atomic write
        p.failed = 1;
        continue;
      }
      double last;
#pragma omp atomic read
      last = p.last_flush;
      /* Back-pressure: when the writer falls behind (a large database on a slow disk), a
       * worker that finds the queue at four batches waits to write, so memory stays bounded
       * whatever the number of jobs. */
      if (n >= 4 * batch)
        flush(&p, FLUSH_WAIT);
      else if (n >= batch)
        flush(&p, FLUSH_FULL);
      else if (now_seconds() - last >= every)
        flush(&p, FLUSH_OLD);
    }
    mapf_workspace_free(ws);
  }
  flush(&p, FLUSH_FINAL);
  if (!opts->discard) sum->checkpoints = farm_store_checkpoints_stop(st);
  sum->seconds = now_seconds() - p.t0;
  sum->interrupted = stopped && !p.failed;
  free(todo);

  int rc = 0;
  if (p.failed) {
    if (!p.err.msg[0]) farm_err(&p.err, "out of memory");
    if (err) *err = p.err;
    rc = -1;
  }
  const char *status = p.failed ? "failed" : sum->interrupted ? "interrupted" : "done";
  mapf_diag end_err = {0};
  if (!opts->discard &&
      farm_store_run_end(st, sum->run_id, status, sum->ok, sum->limit, sum->error, &end_err) < 0 &&
      rc == 0) {
    if (err) *err = end_err;
    rc = -1;
  }
  /* An interrupted run exits at once, as its signal asks: the next writer builds them. */
  if (!opts->discard && defer && !sum->interrupted) {
    mapf_diag index_err = {0};
    double t = now_seconds();
    if (farm_store_build_indexes(st, threads, &index_err) < 0 && rc == 0) {
      if (err) *err = index_err;
      rc = -1;
    }
    sum->index_seconds = now_seconds() - t;
  }
  if (opts->progress)
    opts->progress(opts->progress_ud, sum->done, sum->pending, sum->error, sum->seconds, 1);
  omp_destroy_lock(&p.queue_lock);
  omp_destroy_lock(&p.writer_lock);
  return rc;
}
