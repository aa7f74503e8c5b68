-- views.sql: views over the tables of schema.sql, for people at the sqlite3 prompt, for
-- scripts (tools/), and for the paper-style tables of `mapfarm report`.
--
-- Created with the tables when a database is created. Rules every view keeps:
--   * Means skip error jobs: their metric columns are NULL, and AVG() skips NULL. Columns named
--     `jobs` count the jobs that ran (status 'ok' or 'limit'); `errors` counts the others.
--   * Nothing here needs SQLite newer than 3.8 (no window functions), so a database written on
--     a cluster can be read by an old sqlite3 and the other way round.
--   * `first_row` is the smallest plan_index of a group: order by it to list maps and labels in
--     the order the plan lists them (what the reports do), whichever thread finished first.

-- The cells of Tables I-III of seed 001: one row per map and label (the column of the paper's
-- tables). completion_rate is 0..1; the report prints it as a percentage.
CREATE VIEW report_cells AS
SELECT map,
       label,
       min(algorithm)                    AS algorithm,
       sum(status <> 'error')            AS jobs,
       sum(status = 'error')             AS errors,
       avg(completion_rate)              AS completion_rate,
       avg(mean_completion_steps_capped) AS completion_steps,
       avg(mean_completion_seconds_capped) AS completion_seconds,
       avg(mean_travel_distance)         AS travel_distance,
       min(plan_index)                   AS first_row
FROM results
GROUP BY map, label;

-- The tables' Overall column: every job of a map, all labels together (a mean over jobs, not
-- a mean of the cells, so labels with more jobs weigh more).
CREATE VIEW report_maps AS
SELECT map,
       sum(status <> 'error')            AS jobs,
       sum(status = 'error')             AS errors,
       avg(completion_rate)              AS completion_rate,
       avg(mean_completion_steps_capped) AS completion_steps,
       avg(mean_completion_seconds_capped) AS completion_seconds,
       avg(mean_travel_distance)         AS travel_distance,
       min(plan_index)                   AS first_row
FROM results
GROUP BY map;

-- The tables' Overall row: every job of a label, all maps together.
CREATE VIEW report_labels AS
SELECT label,
       min(algorithm)                    AS algorithm,
       sum(status <> 'error')            AS jobs,
       sum(status = 'error')             AS errors,
       avg(completion_rate)              AS completion_rate,
       avg(mean_completion_steps_capped) AS completion_steps,
       avg(mean_completion_seconds_capped) AS completion_seconds,
       avg(mean_travel_distance)         AS travel_distance,
       min(plan_index)                   AS first_row
FROM results
GROUP BY label;

-- Metrics against the number of agents (seed 001 Fig. 2: completion rate per agent count),
-- one row per map, label and agent count.
CREATE VIEW by_agents AS
SELECT map,
       label,
       agents,
       sum(status <> 'error')            AS jobs,
       sum(status = 'error')             AS errors,
       avg(completion_rate)              AS completion_rate,
       avg(mean_completion_steps_capped) AS completion_steps,
       avg(mean_completion_seconds_capped) AS completion_seconds,
       avg(mean_travel_distance)         AS travel_distance,
       avg(wall_seconds)                 AS wall_seconds
FROM results
GROUP BY map, label, agents;

-- Portfolio labels (algorithm selection): for every problem instance (map, generator, agent
-- count, instance index; the same instance for every algorithm) the label that did best.
-- Best = highest completion rate, then lowest capped mean completion steps, then lowest mean
-- travel distance; remaining ties go to the smallest label, then job key, so the choice is
-- deterministic. `candidates` counts the jobs that ran on the instance.
CREATE VIEW portfolio_labels AS
SELECT r.map,
       r.map_hash,
       r.generator,
       r.agents,
       r.instance,
       r.label                        AS best_label,
       r.algorithm                    AS best_algorithm,
       r.params                       AS best_params,
       r.completion_rate,
       r.mean_completion_steps_capped,
       r.mean_travel_distance,
       (SELECT count(*) FROM results AS c
         WHERE c.map = r.map AND c.map_hash = r.map_hash AND c.generator = r.generator
           AND c.agents = r.agents AND c.instance = r.instance
           AND c.status <> 'error')   AS candidates
FROM results AS r
WHERE r.job_key = (
  SELECT s.job_key FROM results AS s
   WHERE s.map = r.map AND s.map_hash = r.map_hash AND s.generator = r.generator
     AND s.agents = r.agents AND s.instance = r.instance
     AND s.status <> 'error'
   ORDER BY s.completion_rate DESC,
            coalesce(s.mean_completion_steps_capped, 9e999) ASC,
            coalesce(s.mean_travel_distance, 9e999) ASC,
            s.label ASC,
            s.job_key ASC
   LIMIT 1);

-- Jobs that could not be run, with the reason.
CREATE VIEW job_errors AS
SELECT job_key, run_id, map, generator, agents, instance, label, params, message, finished_at
FROM results
WHERE status = 'error';

-- Every run with what it wrote: rows in `results` that it computed, per status, and how long
-- it took (NULL while running or after a crash: ended_at is then NULL). merged_from is the
-- file a run was merged from (NULL for a run that wrote this database itself).
CREATE VIEW run_summary AS
SELECT u.run_id,
       u.plan_name,
       u.shard,
       u.threads,
       u.status,
       u.started_at,
       u.ended_at,
       round((julianday(u.ended_at) - julianday(u.started_at)) * 86400.0, 1) AS seconds,
       u.jobs_total,
       u.jobs_pending,
       (SELECT count(*) FROM results AS r WHERE r.run_id = u.run_id) AS stored,
       (SELECT count(*) FROM results AS r
         WHERE r.run_id = u.run_id AND r.status = 'ok')    AS ok,
       (SELECT count(*) FROM results AS r
         WHERE r.run_id = u.run_id AND r.status = 'limit') AS limited,
       (SELECT count(*) FROM results AS r
         WHERE r.run_id = u.run_id AND r.status = 'error') AS error,
       u.version,
       u.host,
       u.plan_hash,
       u.run_uid,
       u.merged_from
FROM runs AS u;
