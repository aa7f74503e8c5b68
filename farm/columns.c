/* columns.c: the table of result columns (columns.h). */
#include "columns.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <sqlite3.h>

/* A column read from a field of farm_record or of its mapf_result. */
#define REC(ct, field) .src = FARM_COL_RECORD, .ctype = FARM_CT_##ct, \
                       .offset = offsetof(farm_record, field)
#define RES(ct, field) .src = FARM_COL_RESULT, .ctype = FARM_CT_##ct, \
                       .offset = offsetof(mapf_result, field)
#define GET(fn) .src = FARM_COL_COMPUTED, .get = fn

/* The flags of a metric that the same job reproduces on any machine, and of one that
 * measures time. */
#define METRIC (FARM_COL_COMPARED | FARM_COL_NULL_ON_ERROR)
#define TIMING FARM_COL_NULL_ON_ERROR
#define NN FARM_COL_NOT_NULL
#define CMP FARM_COL_COMPARED

static void set_text(farm_value *v, const char *s) {
  v->type = SQLITE_TEXT;
  v->s = s;
  v->len = -1; /* NUL-terminated: SQLite then marks the value so, and copies it less */
}

static void get_run_id(const farm_row *row, farm_value *v) {
  v->type = row->run_id > 0 ? SQLITE_INTEGER : SQLITE_NULL;
  v->i = row->run_id;
}

static void get_status(const farm_row *row, farm_value *v) {
  set_text(v, mapf_status_name(row->rec->res->status));
}

/* '' for an error row: its run did not end on a limit. */
static void get_limit_hit(const farm_row *row, farm_value *v) {
  const mapf_result *res = row->rec->res;
  set_text(v, res->status == MAPF_STATUS_ERROR ? "" : mapf_limit_name(res->limit));
}

static void get_finished_at(const farm_row *row, farm_value *v) {
  set_text(v, row->finished_at ? row->finished_at : "");
}

static void get_execution(const farm_row *row, farm_value *v) {
  set_text(v, mapf_execution_name(row->rec->execution));
}

/* Counts that mean something only for jobs with events, or with lifelong goals. */
static void get_retasks(const farm_row *row, farm_value *v) {
  v->type = row->rec->events ? SQLITE_INTEGER : SQLITE_NULL;
  v->i = row->rec->res->retasks;
}

static void get_map_changes(const farm_row *row, farm_value *v) {
  v->type = row->rec->events ? SQLITE_INTEGER : SQLITE_NULL;
  v->i = row->rec->res->map_changes;
}

static void get_tasks_done(const farm_row *row, farm_value *v) {
  v->type = row->rec->lifelong ? SQLITE_INTEGER : SQLITE_NULL;
  v->i = row->rec->res->tasks_done;
}

/* schema/schema.sql says what each column means. Table I of Sigurdson et al. 2018 prints
 * completion rates as integer percentages, Table II completion times with one decimal (in
 * seconds there; completion-time reports steps, the deterministic measure, with unfinished
 * agents counted as the step limit), Table III travel distances as integers. */
const farm_column farm_columns[] = {
    {.name = "id", .type = "INTEGER", .src = FARM_COL_ROWID},
    {.name = "job_key", .type = "TEXT", .flags = NN, REC(STR, job_key)},
    {.name = "run_id", .type = "INTEGER", GET(get_run_id)},
    {.name = "map", .type = "TEXT", .flags = NN, REC(STR, map), .show = FARM_SHOW_ALWAYS},
    {.name = "map_hash", .type = "TEXT", .flags = NN | CMP, REC(HEX64, map_hash)},
    {.name = "generator", .type = "TEXT", .flags = NN | CMP, REC(STR, generator)},
    {.name = "agents", .type = "INTEGER", .flags = NN | CMP, REC(I32, agents),
     .show = FARM_SHOW_ALWAYS},
    {.name = "instance", .type = "INTEGER", .flags = NN | CMP, REC(I32, instance)},
    {.name = "algorithm", .type = "TEXT", .flags = NN | CMP, REC(STR, algorithm),
     .show = FARM_SHOW_ALWAYS},
    {.name = "label", .type = "TEXT", .flags = NN, REC(STR, label)},
    {.name = "params", .type = "TEXT", .flags = NN | CMP, REC(STR, params),
     .show = FARM_SHOW_ALWAYS},
    /* The algorithm's seed; `solve --algo-seed` takes it back as printed. */
    {.name = "seed", .type = "TEXT", .flags = NN | CMP, REC(HEX64, seed),
     .show = FARM_SHOW_ALWAYS},
    {.name = "plan_index", .type = "INTEGER", .flags = NN, REC(I64, plan_index)},
    {.name = "status", .type = "TEXT", .flags = NN | CMP, GET(get_status),
     .show = FARM_SHOW_ALWAYS},
    {.name = "limit_hit", .type = "TEXT", .flags = NN | CMP, GET(get_limit_hit),
     .show = FARM_SHOW_ALWAYS},
    {.name = "message", .type = "TEXT", .flags = NN, RES(CHARS, message),
     .size = sizeof ((mapf_result *)0)->message},
    {.name = "completion_rate", .type = "REAL", .flags = METRIC, RES(F64, completion_rate),
     .show = FARM_SHOW_ALWAYS, .report = "completion-rate", .title = "Completion rate (%)",
     .scale = 100.0, .decimals = 0},
    {.name = "completed", .type = "INTEGER", .flags = METRIC, RES(I32, completed),
     .show = FARM_SHOW_ALWAYS},
    {.name = "mean_completion_steps", .type = "REAL", .flags = METRIC,
     RES(F64, mean_completion_steps), .show = FARM_SHOW_ALWAYS},
    {.name = "mean_completion_steps_capped", .type = "REAL", .flags = METRIC,
     RES(F64, mean_completion_steps_capped), .show = FARM_SHOW_ALWAYS,
     .report = "completion-time",
     .title = "Completion time (steps, unfinished agents count as the limit)", .scale = 1.0,
     .decimals = 1},
    {.name = "mean_completion_seconds", .type = "REAL", .flags = TIMING,
     RES(F64, mean_completion_seconds), .show = FARM_SHOW_ALWAYS},
    /* Table II's own unit: wall-clock seconds, planning included, so it depends on the machine
     * and its load; unfinished agents count as the seconds limit, or the run's wall time. */
    {.name = "mean_completion_seconds_capped", .type = "REAL", .flags = TIMING,
     RES(F64, mean_completion_seconds_capped), .show = FARM_SHOW_ALWAYS,
     .report = "completion-seconds",
     .title = "Completion time (wall-clock seconds, unfinished agents count as the limit or "
              "the run's time)",
     .scale = 1.0, .decimals = 3},
    {.name = "mean_travel_distance", .type = "REAL", .flags = METRIC,
     RES(F64, mean_travel_distance), .show = FARM_SHOW_ALWAYS, .report = "travel-distance",
     .title = "Travel distance", .scale = 1.0, .decimals = 0},
    {.name = "steps", .type = "INTEGER", .flags = METRIC, RES(I64, steps),
     .show = FARM_SHOW_ALWAYS},
    {.name = "wall_seconds", .type = "REAL", .flags = TIMING, RES(F64, wall_seconds),
     .show = FARM_SHOW_ALWAYS},
    {.name = "expansions", .type = "INTEGER", .flags = METRIC, RES(I64, expansions),
     .show = FARM_SHOW_ALWAYS},
    {.name = "planning_seconds", .type = "REAL", .flags = TIMING, RES(F64, planning_seconds),
     .show = FARM_SHOW_ALWAYS},
    {.name = "max_step_planning_seconds", .type = "REAL", .flags = TIMING,
     RES(F64, max_step_planning_seconds), .show = FARM_SHOW_ALWAYS},
    {.name = "failed_moves", .type = "INTEGER", .flags = METRIC, RES(I64, failed_moves),
     .show = FARM_SHOW_ALWAYS},
    {.name = "pushes", .type = "INTEGER", .flags = METRIC, RES(I64, pushes),
     .show = FARM_SHOW_ALWAYS},
    {.name = "searches", .type = "INTEGER", .flags = METRIC, RES(I64, searches),
     .show = FARM_SHOW_ALWAYS},
    {.name = "deadlocks_broken", .type = "INTEGER", .flags = METRIC, RES(I64, deadlocks_broken),
     .show = FARM_SHOW_ALWAYS},
    {.name = "finished_at", .type = "TEXT", .flags = NN, GET(get_finished_at)},
    /* Schema version 3. Jobs where these are NULL (one-way problems, algorithms without a
     * direction map, unknown optima) do not count in their reports. */
    {.name = "suboptimality", .type = "REAL", .flags = METRIC | FARM_COL_NULL_UNKNOWN,
     RES(F64, suboptimality), .show = FARM_SHOW_ALWAYS, .report = "suboptimality",
     .title = "Suboptimality (travel distance / optimal distance)", .scale = 1.0, .decimals = 3},
    {.name = "loops", .type = "INTEGER", .flags = NN | CMP, RES(I32, loops),
     .show = FARM_SHOW_PATROL},
    {.name = "loops_done", .type = "INTEGER", .flags = METRIC | FARM_COL_NULL_UNKNOWN,
     RES(I64, loops_done), .show = FARM_SHOW_PATROL},
    /* Jansen & Sturtevant 2008, Figs. 8 and 9. */
    {.name = "failed_moves_per_loop", .type = "REAL", .flags = METRIC | FARM_COL_NULL_UNKNOWN,
     RES(F64, failed_moves_per_loop), .show = FARM_SHOW_PATROL, .report = "failed-moves",
     .title = "Failed moves per agent per patrol loop", .scale = 1.0, .decimals = 2},
    {.name = "coherence", .type = "REAL", .flags = METRIC | FARM_COL_NULL_UNKNOWN,
     RES(F64, coherence), .show = FARM_SHOW_SET, .report = "coherence",
     .title = "Direction-map coherence at the end", .scale = 1.0, .decimals = 3},
    /* Schema version 4: the plan's limits and execution rule (part of the job key). */
    {.name = "limit_steps", .type = "INTEGER", .flags = CMP | FARM_COL_NULL_UNKNOWN,
     REC(I64, limits.steps)},
    {.name = "limit_seconds", .type = "REAL", .flags = CMP | FARM_COL_NULL_UNKNOWN,
     REC(F64, limits.seconds)},
    {.name = "limit_expansions", .type = "INTEGER", .flags = CMP | FARM_COL_NULL_UNKNOWN,
     REC(I64, limits.expansions)},
    {.name = "execution", .type = "TEXT", .flags = CMP | FARM_COL_NULL_UNKNOWN,
     GET(get_execution)},
    /* Schema version 5: the MAPF literature's measures (sim.h). POGEMA's CSR is the mean of
     * solved, its ISR the completion rate. */
    {.name = "solved", .type = "INTEGER", .flags = METRIC | FARM_COL_NULL_UNKNOWN,
     RES(I32, solved), .show = FARM_SHOW_ALWAYS, .report = "solved",
     .title = "Solved (% of instances with every agent on its goal)", .scale = 100.0,
     .decimals = 0},
    {.name = "soc", .type = "INTEGER", .flags = METRIC | FARM_COL_NULL_UNKNOWN,
     RES(OPT64, soc), .show = FARM_SHOW_SET, .report = "soc",
     .title = "Sum of costs (steps; solved instances only)", .scale = 1.0, .decimals = 1},
    {.name = "makespan", .type = "INTEGER", .flags = METRIC | FARM_COL_NULL_UNKNOWN,
     RES(OPT64, makespan), .show = FARM_SHOW_SET, .report = "makespan",
     .title = "Makespan (steps; solved instances only)", .scale = 1.0, .decimals = 1},
    /* Schema version 5: Table II's rule, a cap common to all (sim.h). */
    {.name = "mean_completion_steps_at_limit", .type = "REAL",
     .flags = METRIC | FARM_COL_NULL_UNKNOWN, RES(F64, mean_completion_steps_at_limit),
     .show = FARM_SHOW_ALWAYS, .report = "completion-time-at-limit",
     .title = "Completion time (steps, unfinished agents count as the step limit)", .scale = 1.0,
     .decimals = 1},
    /* Schema version 5: the work budget (limits.work) and the work charged (core/algo.h). */
    {.name = "limit_work", .type = "REAL", .flags = CMP | FARM_COL_NULL_UNKNOWN,
     REC(F64, limits.work)},
    {.name = "work_seconds", .type = "REAL", .flags = METRIC | FARM_COL_NULL_UNKNOWN,
     RES(F64, work_seconds), .show = FARM_SHOW_ALWAYS, .report = "work",
     .title = "Work charged (modelled seconds)", .scale = 1.0, .decimals = 3},
    /* Schema version 6: Table II's rule under a work budget (sim.h). */
    {.name = "mean_completion_work_at_limit", .type = "REAL",
     .flags = METRIC | FARM_COL_NULL_UNKNOWN, RES(F64, mean_completion_work_at_limit),
     .show = FARM_SHOW_SET, .report = "completion-work-at-limit",
     .title = "Completion time (modelled work seconds, unfinished agents count as the budget)",
     .scale = 1.0, .decimals = 4},
    /* Schema version 7: the planner's set-up before the first step (sim.h). */
    {.name = "setup_seconds", .type = "REAL", .flags = TIMING | FARM_COL_NULL_UNKNOWN,
     RES(F64, setup_seconds), .show = FARM_SHOW_ALWAYS},
    /* Schema version 8: the lower bounds of soc and makespan (sim.h), a property of the
     * instance, so known for unsolved jobs too; their reports are the ratios the literature
     * gives as suboptimality, over the solved instances. And an external solver's own time. */
    {.name = "soc_lb", .type = "INTEGER", .flags = METRIC | FARM_COL_NULL_UNKNOWN,
     RES(OPT64, soc_lb), .show = FARM_SHOW_SET, .report = "soc-ratio",
     .expr = "1.0 * soc / soc_lb",
     .title = "Sum of costs / its lower bound (solved instances only)", .scale = 1.0,
     .decimals = 3},
    {.name = "makespan_lb", .type = "INTEGER", .flags = METRIC | FARM_COL_NULL_UNKNOWN,
     RES(OPT64, makespan_lb), .show = FARM_SHOW_SET, .report = "makespan-ratio",
     .expr = "1.0 * makespan / makespan_lb",
     .title = "Makespan / its lower bound (solved instances only)", .scale = 1.0,
     .decimals = 3},
    {.name = "solver_seconds", .type = "REAL", .flags = TIMING | FARM_COL_NULL_UNKNOWN,
     RES(F64, solver_seconds), .show = FARM_SHOW_SET},
    /* Schema version 9: the plan's move set (part of the job key when 4); 8 in older rows,
     * which all ran on 8-connected grids. */
    {.name = "connectivity", .type = "INTEGER", .flags = NN | CMP, REC(I32, connectivity)},
    /* Schema version 10: events and lifelong goals (docs/events.md); their measures are NULL
     * for jobs without them (and in older rows, which had none). */
    {.name = "events", .type = "TEXT", .flags = CMP, REC(STR, events)},
    {.name = "lifelong", .type = "INTEGER", .flags = NN | CMP, REC(I32, lifelong)},
    {.name = "retasks", .type = "INTEGER", .flags = METRIC, GET(get_retasks),
     .show = FARM_SHOW_SET},
    {.name = "mean_retask_expansions", .type = "REAL", .flags = METRIC,
     RES(F64, mean_retask_expansions), .show = FARM_SHOW_SET, .report = "retask-expansions",
     .title = "Expansions after a re-tasking event, until the agent moved again (mean)",
     .scale = 1.0, .decimals = 1},
    {.name = "max_event_step_seconds", .type = "REAL", .flags = TIMING,
     RES(F64, max_event_step_seconds), .show = FARM_SHOW_SET, .report = "event-spike",
     .title = "Longest step planning after an event or a new task (seconds)", .scale = 1.0,
     .decimals = 5},
    {.name = "tasks_done", .type = "INTEGER", .flags = METRIC, GET(get_tasks_done),
     .show = FARM_SHOW_SET},
    {.name = "throughput", .type = "REAL", .flags = METRIC, RES(F64, throughput),
     .show = FARM_SHOW_SET, .report = "throughput",
     .title = "Throughput (lifelong goals: tasks finished per step)", .scale = 1.0,
     .decimals = 3},
    /* Schema version 11: map changes (docs/events.md). */
    {.name = "map_changes", .type = "INTEGER", .flags = METRIC, GET(get_map_changes),
     .show = FARM_SHOW_SET},
    {.name = "mean_change_expansions", .type = "REAL", .flags = METRIC,
     RES(F64, mean_change_expansions), .show = FARM_SHOW_SET, .report = "change-expansions",
     .title = "Expansions of the step planned right after a map change (mean)", .scale = 1.0,
     .decimals = 1},
};

#define NCOLUMNS ((int32_t)(sizeof farm_columns / sizeof farm_columns[0]))
_Static_assert(NCOLUMNS <= FARM_MAX_COLUMNS, "raise FARM_MAX_COLUMNS");

const int32_t farm_ncolumns = NCOLUMNS;

const farm_column *farm_column_find(const char *name) {
  for (int32_t i = 0; i < NCOLUMNS; i++)
    if (strcmp(farm_columns[i].name, name) == 0) return &farm_columns[i];
  return NULL;
}

const farm_column *farm_column_report(const char *report) {
  for (int32_t i = 0; i < NCOLUMNS; i++)
    if (farm_columns[i].report && strcmp(farm_columns[i].report, report) == 0)
      return &farm_columns[i];
  return NULL;
}

/* Inlined into the store's binding loop (farm_columns_bind), which runs for every job. */
static inline void column_value(const farm_column *c, const farm_row *row, farm_value *v) {
  const farm_record *rec = row->rec;
  const mapf_result *res = rec->res;
  v->type = SQLITE_NULL;
  if (c->src == FARM_COL_ROWID) return;
  if ((c->flags & FARM_COL_NULL_ON_ERROR) && res->status == MAPF_STATUS_ERROR) return;
  if (c->src == FARM_COL_COMPUTED) {
    c->get(row, v);
    return;
  }
  const char *p = (c->src == FARM_COL_RECORD ? (const char *)rec : (const char *)res) + c->offset;
  switch (c->ctype) {
  case FARM_CT_I32: {
    int32_t x;
    memcpy(&x, p, sizeof x);
    v->type = SQLITE_INTEGER;
    v->i = x;
    break;
  }
  case FARM_CT_I64:
    memcpy(&v->i, p, sizeof v->i);
    v->type = SQLITE_INTEGER;
    break;
  case FARM_CT_OPT64:
    memcpy(&v->i, p, sizeof v->i);
    if (v->i >= 0) v->type = SQLITE_INTEGER;
    break;
  case FARM_CT_F64:
    memcpy(&v->r, p, sizeof v->r);
    if (!isnan(v->r)) v->type = SQLITE_FLOAT;
    break;
  case FARM_CT_STR: {
    const char *s;
    memcpy(&s, p, sizeof s);
    if (s) set_text(v, s);
    break;
  }
  case FARM_CT_CHARS:
    v->type = SQLITE_TEXT;
    v->s = p;
    v->len = (int)strnlen(p, c->size);
    break;
  case FARM_CT_HEX64: {
    /* No printf: two per job were a tenth of the writer's own instructions. */
    static const char digits[] = "0123456789abcdef";
    uint64_t x;
    memcpy(&x, p, sizeof x);
    for (int k = 15; k >= 0; k--, x >>= 4) v->hex[k] = digits[x & 15u];
    v->type = SQLITE_TEXT;
    v->s = v->hex;
    v->len = 16;
    break;
  }
  case FARM_CT_NONE:
    break;
  }
}

void farm_column_value(const farm_column *c, const farm_row *row, farm_value *v) {
  column_value(c, row, v);
}

int farm_columns_bind(sqlite3_stmt *s, const farm_row *row, farm_value *vals) {
  int k = 0;
  for (int32_t i = 0; i < NCOLUMNS; i++) {
    const farm_column *c = &farm_columns[i];
    if (c->src == FARM_COL_ROWID) continue;
    farm_value *v = &vals[k++];
    column_value(c, row, v);
    switch (v->type) {
    case SQLITE_INTEGER:
      sqlite3_bind_int64(s, k, v->i);
      break;
    case SQLITE_FLOAT:
      sqlite3_bind_double(s, k, v->r);
      break;
    case SQLITE_TEXT:
      sqlite3_bind_text(s, k, v->s, v->len, SQLITE_STATIC);
      break;
    default:
      sqlite3_bind_null(s, k);
      break;
    }
  }
  return k;
}

void farm_columns_print(FILE *f, const farm_record *rec) {
  farm_row row = {.rec = rec};
  for (int32_t i = 0; i < NCOLUMNS; i++) {
    const farm_column *c = &farm_columns[i];
    if (c->show == FARM_SHOW_NEVER || (c->show == FARM_SHOW_PATROL && rec->res->loops <= 0))
      continue;
    farm_value v;
    farm_column_value(c, &row, &v);
    if (c->show == FARM_SHOW_SET && v.type == SQLITE_NULL) continue;
    switch (v.type) {
    case SQLITE_INTEGER:
      fprintf(f, "%s: %" PRId64 "\n", c->name, v.i);
      break;
    case SQLITE_FLOAT:
      fprintf(f, "%s: %.6g\n", c->name, v.r);
      break;
    case SQLITE_TEXT:
      fprintf(f, "%s: %.*s\n", c->name, v.len, v.s);
      break;
    default:
      fprintf(f, "%s: NULL\n", c->name);
      break;
    }
  }
}
