-- schema.sql: the tables of a mapfarm results database (docs/database.md).
--
-- This file is compiled into the binary (cmake/embed.cmake) and run once, in one transaction,
-- when farm/store.c creates a database; views.sql follows it. farm/store.c then sets
--   PRAGMA application_id = 0x6d617066  ("mapf", FARM_APPLICATION_ID in farm/store.h)
--   PRAGMA user_version   = 10          (FARM_SCHEMA_VERSION: bump it with any change here once
--                                          released. Version 1 keyed agent_results by job_key,
--                                          and is refused, untouched. Version 2 lacked the
--                                          columns marked "schema version 3" and the table
--                                          coherence_series, version 3 the columns marked
--                                          "schema version 4", version 4 those marked "schema
--                                          version 5", version 5 that of version 6,
--                                          version 6 that of version 7, version 7
--                                          those of version 8, version 8 that of
--                                          version 9, version 9 those of version 10:
--                                          farm/store.c adds them when it opens
--                                          such a file for writing (upgrade_steps))
-- and opens every connection with journal_mode=WAL and synchronous=NORMAL.
--
-- Conventions:
--   * Times are ISO 8601 UTC text, e.g. '2024-05-01T12:00:00Z'.
--   * 64-bit unsigned values (hashes, seeds) are 16 lowercase hex digits: SQLite integers are
--     signed, and text compares and joins the same everywhere.
--   * A metric that is undefined (a mean over an empty set, a NaN) is NULL, so AVG() skips it.
--   * Job keys are 32 lowercase hex digits (core/hash.h); resume, shards and merges key on them.
--   * results.id is local to a file (like runs.run_id): agent_results refers to it, and
--     `mapfarm merge` gives a copied job a new id. Compare files on job_key, never on id.

-- One row per `mapfarm run`: what ran, with which code, where, and how it ended.
CREATE TABLE runs (
  run_id       INTEGER PRIMARY KEY,     -- results.run_id refers here (local to this file)
  -- The run's identity across databases: random when the run starts, copied by
  -- `mapfarm merge`, which matches runs on it (run_id is renumbered in the output), so merging
  -- the same input twice adds no run.
  run_uid      TEXT NOT NULL UNIQUE DEFAULT (lower(hex(randomblob(16)))),
  plan_name    TEXT,                    -- `name:` of the plan
  plan_path    TEXT,                    -- as given on the command line
  plan_hash    TEXT,                    -- hash of plan_text
  plan_text    TEXT,                    -- the whole YAML plan, for reproduction
  version      TEXT NOT NULL,           -- mapfarm version and git describe
  compiler     TEXT NOT NULL,           -- compiler id and version
  cflags       TEXT NOT NULL,           -- build type and sanitizers
  host         TEXT NOT NULL,           -- gethostname()
  cpu          TEXT,                    -- processor model (/proc/cpuinfo)
  threads      INTEGER,                 -- worker threads
  shard        TEXT,                    -- 'I/N'; '1/1' without --shard
  jobs_total   INTEGER,                 -- jobs of the plan in this shard
  jobs_pending INTEGER,                 -- of those, not yet in the database at the start
  started_at   TEXT NOT NULL,
  ended_at     TEXT,                    -- NULL while running or after a crash
  status       TEXT NOT NULL DEFAULT 'running'
               CHECK (status IN ('running', 'done', 'failed', 'interrupted')),
  n_ok         INTEGER,                 -- jobs written by this run, per status
  n_limit      INTEGER,
  n_error      INTEGER,
  merged_from  TEXT                     -- NULL for a run that wrote this file; else the file
                                        -- `mapfarm merge` first copied it from (absolute path)
);

-- One row per job (map x generator x agents x instance x algorithm with its parameters).
CREATE TABLE results (
  id           INTEGER PRIMARY KEY,     -- the rowid: grows as rows are inserted; local to this
                                        -- file (agent_results.result_id refers here)
  job_key      TEXT NOT NULL UNIQUE CHECK (length(job_key) = 32),
  run_id       INTEGER,                 -- the run that computed it (runs.run_id), NULL if none
  -- What the job is:
  map          TEXT NOT NULL,           -- map file name or generated map name
  map_hash     TEXT NOT NULL,           -- 16 hex: hash of the map's size and passability
  generator    TEXT NOT NULL,           -- scenario generator or scenario source, e.g. 'random'
  agents       INTEGER NOT NULL,        -- agents in the instance
  instance     INTEGER NOT NULL,        -- instance index for this map, generator and count
  algorithm    TEXT NOT NULL,           -- canonical algorithm name, e.g. 'bmaa'
  label        TEXT NOT NULL,           -- display name, e.g. 'BMAA*-f' (the tables' columns)
  params       TEXT NOT NULL,           -- canonical JSON of every resolved parameter
  seed         TEXT NOT NULL,           -- 16 hex: the seed derived from the job key
  plan_index   INTEGER NOT NULL DEFAULT 0, -- the job's position in its plan's expansion
  -- How it ended:
  -- The checks below are spelt with OR, not IN (...): SQLite evaluates an IN list of three or
  -- more through a temporary index built for every row written, which cost a tiny job a
  -- sixth of its time.
  status       TEXT NOT NULL CHECK (status = 'ok' OR status = 'limit' OR status = 'error'),
  limit_hit    TEXT NOT NULL DEFAULT ''
               CHECK (limit_hit = '' OR limit_hit = 'steps' OR limit_hit = 'seconds'
                      OR limit_hit = 'expansions' OR limit_hit = 'work'),
  message      TEXT NOT NULL DEFAULT '',  -- why, when status = 'error'
  -- Metrics (docs/database.md, results; Sigurdson et al. 2018 Sec. II). All NULL when status =
  -- 'error'.
  completion_rate                REAL,    -- completed / agents, 0..1
  completed                      INTEGER, -- agents on their goals at the end
  mean_completion_steps          REAL,    -- over agents that completed
  mean_completion_steps_capped   REAL,    -- unfinished agents count as `steps`
  mean_completion_seconds        REAL,    -- over agents that completed
  mean_completion_seconds_capped REAL,    -- unfinished agents count as the time limit
  mean_travel_distance           REAL,    -- over all agents
  steps                          INTEGER, -- time steps simulated
  wall_seconds                   REAL,    -- whole job, set-up included
  expansions                     INTEGER, -- node expansions, all agents
  planning_seconds               REAL,    -- time in the search phase
  max_step_planning_seconds      REAL,    -- the slowest single step's search phase
  failed_moves                   INTEGER,
  pushes                         INTEGER,
  searches                       INTEGER,
  deadlocks_broken               INTEGER,
  finished_at  TEXT NOT NULL,            -- when the row was written
  -- Added in schema version 3 (at the end, so that a version-2 file upgraded with ALTER TABLE
  -- has the same columns in the same order):
  suboptimality          REAL,           -- thesis Ch. 4: mean over agents that arrived and whose
                                         -- optimal distance is known (agent_results) of travel
                                         -- distance / optimal distance; NULL if none
  loops                  INTEGER NOT NULL DEFAULT 0, -- patrol loops per agent (0: one-way)
  loops_done             INTEGER,        -- patrol loops completed, all agents
  failed_moves_per_loop  REAL,           -- failed_moves / (agents x loops); NULL if one-way
  coherence              REAL,           -- direction-map coherence at the end (dm); NULL else
  -- Added in schema version 4: the plan's limits and execution rule, part of the job key, so
  -- that reports can tell configurations apart that share a label. The upgrade from version 3
  -- reads them from the plan text of the run that wrote each row; NULL where that is unknown.
  limit_steps            INTEGER,        -- `limits: steps`
  limit_seconds          REAL,           -- `limits: seconds`; 0: none
  limit_expansions       INTEGER,        -- `limits: expansions`; 0: none
  execution              TEXT,           -- 'chains' or 'single-pass'
  -- Added in schema version 5: the MAPF literature's measures. The upgrade from version 4
  -- computes them from agent_results.
  solved                 INTEGER,        -- 1 when every agent is on its goal at the end
  soc                    INTEGER,        -- sum over agents of the step each reached its goal
                                         -- for good; NULL unless solved
  makespan               INTEGER,        -- the largest of those steps; NULL unless solved
  mean_completion_steps_at_limit REAL,   -- unfinished agents count as limit_steps, a cap
                                         -- common to every job (the papers' Table II rule)
  limit_work             REAL,           -- `limits: work` (modelled seconds); 0: none
  work_seconds           REAL,           -- the work charged to the job by its algorithm's model
  -- Added in schema version 6: Table II's rule under a work budget; NULL in older rows and in
  -- jobs without a work budget.
  mean_completion_work_at_limit REAL,    -- work charged when each agent arrived, unfinished
                                         -- agents counting as limit_work
  -- Added in schema version 7: NULL in older rows.
  setup_seconds          REAL,           -- wall-clock seconds of the planner's set-up before
                                         -- the first step (PIBT: its distance tables), in
                                         -- wall_seconds, not in planning_seconds
  -- Added in schema version 8: NULL in older rows (`mapfarm replay` prints a job's) and in
  -- error rows.
  soc_lb                 INTEGER,        -- sum over agents of the moves of a shortest path
                                         -- from start to goal (under patrol 2 x loops times
                                         -- it): soc's lower bound, for every job that ran
  makespan_lb            INTEGER,        -- the largest of those: makespan's lower bound
  solver_seconds         REAL,           -- an external solver's own reported planning time;
                                         -- NULL for the built-in planners
  -- Added in schema version 9: every older job moved on 8-connected grids.
  connectivity           INTEGER NOT NULL DEFAULT 8, -- the plan's `connectivity`: 8 or 4
  -- Added in schema version 10 (docs/events.md): no older job had events or lifelong goals.
  events                 TEXT,           -- the scenario's events ("retask every:50,...",
                                         -- "file NAME"); NULL: none
  lifelong               INTEGER NOT NULL DEFAULT 0, -- 1: lifelong goals
  retasks                INTEGER,        -- re-tasking events applied; NULL without events
  mean_retask_expansions REAL,           -- per event, the agent's expansions until it next
                                         -- moved: their mean; NULL without events
  max_event_step_seconds REAL,           -- the longest planning of a step right after an
                                         -- event or a new lifelong task
  tasks_done             INTEGER,        -- lifelong goals: tasks finished; NULL otherwise
  throughput             REAL,           -- lifelong goals: tasks_done / steps; NULL otherwise
  -- Added in schema version 11 (docs/events.md): no older job had map changes.
  map_changes            INTEGER,        -- cells closed or opened during the run; NULL
                                         -- without events
  mean_change_expansions REAL            -- per step planned right after a map change, its
                                         -- node expansions: their mean; NULL without changes
);

-- The reports group by map and label and list them in plan order (the smallest plan_index of
-- each, which does not depend on which thread finished first); the portfolio view compares the
-- jobs of one instance. results_run covers the per-run counts by status of `mapfarm status`,
-- `mapfarm runs` and the run_summary view, so they read the index, not the rows.
CREATE INDEX results_map_label ON results (map, label);
CREATE INDEX results_instance ON results (map, generator, agents, instance);
CREATE INDEX results_run ON results (run_id, status);

-- One row per agent of a job that ran (none for status = 'error'). Cells are x = column,
-- y = row, as in MovingAI files (row 0 is the first grid line). Rows belong to their job
-- through results.id, not the job key:
--   SELECT r.label, a.* FROM agent_results AS a JOIN results AS r ON r.id = a.result_id
-- Why: job keys are hashes, so a key-ordered table takes every insert on a random page and
-- outgrows the page cache; ids grow with insertion order, so new agent rows are appended at
-- the right edge of this B-tree and the pages being written stay in memory.
CREATE TABLE agent_results (
  result_id          INTEGER NOT NULL,  -- results.id of its job
  agent              INTEGER NOT NULL,  -- 0-based index in the instance
  start_x            INTEGER NOT NULL,
  start_y            INTEGER NOT NULL,
  goal_x             INTEGER NOT NULL,
  goal_y             INTEGER NOT NULL,
  final_x            INTEGER,           -- where it stood when the run ended
  final_y            INTEGER,
  reached            INTEGER NOT NULL CHECK (reached IN (0, 1)),  -- on its goal at the end
  completion_step    INTEGER,           -- step it last reached its goal; NULL if not reached
  completion_seconds REAL,              -- wall-clock seconds at that step; NULL if not reached
  travel_distance    REAL,              -- sum of edge costs moved, pushes included
  expansions         INTEGER,
  failed_moves       INTEGER,           -- wanted to move, was blocked
  pushed             INTEGER,           -- times pushed off its goal
  searches           INTEGER,           -- searches (replans)
  -- Added in schema version 3:
  optimal_distance   REAL,              -- shortest start-goal distance (.scen optimal_length,
                                        -- or A* for single-agent jobs); NULL if unknown
  loops_done         INTEGER,           -- patrol loops completed (0 for one-way problems)
  -- Added in schema version 10:
  tasks_done         INTEGER,           -- lifelong goals: tasks it finished; NULL otherwise
  PRIMARY KEY (result_id, agent)
) WITHOUT ROWID;

-- The direction-map coherence of a dm job over time (Jansen & Sturtevant 2008), every
-- `coherence_every` steps of the plan from step 0; none for other algorithms. Keyed like
-- agent_results.
CREATE TABLE coherence_series (
  result_id  INTEGER NOT NULL,          -- results.id of its job
  step       INTEGER NOT NULL,
  coherence  REAL,
  PRIMARY KEY (result_id, step)
) WITHOUT ROWID;
