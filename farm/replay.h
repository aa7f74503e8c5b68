/* replay.h: a stored job run again from its database (`mapfarm replay`).
 *
 * A job is rebuilt from what the database keeps: the plan text of the run that wrote it
 * (runs.plan_text), the job's position in that plan (results.plan_index) and its key, which
 * must come out the same (same maps by content, same parameters, limits and seed). The job then
 * runs as `mapfarm run` runs it, and every deterministic column (farm/columns.h,
 * FARM_COL_COMPARED) is compared with the stored row. */
#ifndef FARM_REPLAY_H
#define FARM_REPLAY_H

#include <sqlite3.h>
#include <stdint.h>

#include "diag.h"
#include "expand.h"
#include "plan.h"
#include "sim.h"
#include "store.h"

#define FARM_REPLAY_MAX_DIFFS 16

typedef struct farm_replay {
  farm_plan *plan;
  farm_space sp;
  farm_job job;
  char label[256], params[512];
  mapf_result res;      /* the rerun */
  double limit_seconds; /* > 0: a wall-clock limit, which no rerun reproduces exactly */
  int32_t ndiffs;       /* columns that differ (only the first FARM_REPLAY_MAX_DIFFS kept) */
  char diff[FARM_REPLAY_MAX_DIFFS][320]; /* "steps: stored 120, replayed 118" */
} farm_replay;

/* Rebuilds the job with key `key` (32 hex digits) of db: plan, job space and job (out->sp,
 * out->job; its grid is out->sp.grids[out->job.map]). The plan's relative map paths are looked
 * up beside the plan's recorded path and under opts' directories. Returns 0 (free out with
 * farm_replay_free), or -1 with err: no such job, no plan stored with its run, a plan that no
 * longer gives this key. */
int farm_replay_open(sqlite3 *db, const char *key, const farm_plan_opts *opts, farm_replay *out,
                     mapf_diag *err);

/* Runs the rebuilt job (on_step, on_goal and on_cell, NULL: none, see the run) into r->res and
 * compares every deterministic column with the stored row (r->ndiffs, r->diff). Returns 0, or
 * -1 with err when the stored row cannot be read. */
int farm_replay_run(sqlite3 *db, farm_replay *r, mapf_step_fn on_step, mapf_goal_fn on_goal,
                    mapf_cell_fn on_cell, void *ud, mapf_diag *err);

void farm_replay_free(farm_replay *r);

#endif
