-- views.sql: views over the tables of schema.sql, for people at the sqlite3 prompt, for
-- scripts (tools/), and for the paper-style tables of `mapfarm report`.
--
-- Created with the tables when a database is created. Views hold no data, so they change
-- without a schema version: farm/store.c drops and recreates every view listed here when it
-- opens for writing a file whose views differ from these (one written by an older mapfarm),
-- and a read-only connection to such a file gets them as TEMP views. Keep them in dependency
-- order. Rules every view keeps:
--   * Means skip error jobs: their metric columns are NULL, and AVG() skips NULL. Columns named
--     `jobs` count the jobs that ran (status 'ok' or 'limit'); `errors` counts the others.
--   * Nothing here needs SQLite newer than 3.8 (no window functions), so a database written on
--     a cluster can be read by an old sqlite3 and the other way round.
--   * `first_row` is the smallest plan_index of a group: order by it to list maps and labels in
--     the order the plan lists them (what the reports do), whichever thread finished first.

-- The cells of Tables I-III of Sigurdson et al. 2018: one row per map and label (the column of the
-- paper's tables). completion_rate is 0..1; the report prints it as a percentage.
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

-- Metrics against the number of agents (Sigurdson et al. 2018 Fig. 2: completion rate per agent
-- count), one row per map, label and agent count.
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

-- ---- Portfolios (thesis 2.2, 4.4.2 and 5.4.2; docs/choices.md, Portfolios) ---------------------
--
-- A problem instance is (map_hash, generator, agents, instance): farm/expand.c seeds an
-- instance from these and the plan's seed, never from the algorithm, so every label of a plan
-- runs the same instance. generator carries its parameter JSON where it has one, so two
-- parametrisations of a generator are two problem types. (Two plans with different `seed:`
-- give different instances under the same identity: compare labels of one plan, or filter.)
-- A configuration is a label: one algorithm with its parameters in a plan. Jobs with status
-- 'error' are never candidates.
--
-- The rule (thesis 2.2, seeds/003_*.txt line 198: "we use completion rate as our quality
-- metric Q. We break ties in Q in favour of algorithms that have short distances travelled,
-- followed by algorithms that have small completion time. Remaining ties are broken
-- randomly."):
--   best = highest completion_rate, then shortest mean_travel_distance, then smallest
--          mean_completion_steps_capped, then the smallest label, then the smallest job_key.
-- Completion time is compared in steps, not seconds: the thesis measured seconds because its
-- runs had a 30 s limit, but seconds change from run to run and machine to machine, so a rule
-- on them would give one database different labels each time it is computed. Steps are the
-- same completion time on the simulator's clock (unfinished agents count as the last step)
-- and are bit-identical on every run; seconds are shown beside them but never rank. The
-- thesis's random tie-break is replaced by label and job key so labels are reproducible. A
-- NULL metric ranks below every value. The worst = the whole order reversed (lowest rate,
-- longest distance, most steps, largest label, largest job key), so with two or more labels on
-- an instance the best and the worst differ.
--
-- Selectors and single labels are compared on the same instances (Table 5.1 does): the
-- instances on which every label (every label with a job that ran) has a job that ran,
-- `every_label = 1` below. Means over them skip NULL metrics, as AVG() does. farm/portfolio.c
-- implements the same rule for `mapfarm report portfolio|problem-types` and `mapfarm
-- portfolio`, which filter the jobs first (--where); tests/test_portfolio.c checks that the
-- two agree.
--
-- The per-instance lookups read the results_instance index (map, generator, agents,
-- instance) once per map name: `s.map IN (all map names)` lets SQLite seek it although the
-- instance is identified by map_hash (one map may be stored under two names by two plans).

-- Every problem instance with a job that ran: `candidates` jobs of `labels` distinct labels;
-- `every_label` is 1 when every label of the database has a job that ran there. `map` is the
-- smallest of its names.
CREATE VIEW portfolio_instances AS
SELECT map_hash,
       generator,
       agents,
       instance,
       min(map)                          AS map,
       count(*)                          AS candidates,
       count(DISTINCT label)             AS labels,
       count(DISTINCT label) = (SELECT count(DISTINCT label) FROM results
                                 WHERE status <> 'error') AS every_label,
       min(plan_index)                   AS first_row
FROM results
WHERE status <> 'error'
GROUP BY map_hash, generator, agents, instance;

-- The best label of every instance (the perfect selector's choice, thesis Eq. 2.2): the
-- labels of an algorithm-selection dataset. The first twelve columns are those the view had
-- before it followed the thesis's rule (it ranked steps before distance, and told instances
-- apart by map name too); best_job_key and the rest are new.
CREATE VIEW portfolio_labels AS
SELECT i.map,
       i.map_hash,
       i.generator,
       i.agents,
       i.instance,
       r.label                           AS best_label,
       r.algorithm                       AS best_algorithm,
       r.params                          AS best_params,
       r.completion_rate,
       r.mean_completion_steps_capped,
       r.mean_travel_distance,
       i.candidates,
       r.job_key                         AS best_job_key,
       r.mean_completion_seconds_capped,
       i.labels,
       i.every_label,
       i.first_row
FROM portfolio_instances AS i
JOIN results AS r ON r.job_key = (
  SELECT s.job_key FROM results AS s
   WHERE s.map IN (SELECT map FROM results GROUP BY map)
     AND s.map_hash = i.map_hash AND s.generator = i.generator
     AND s.agents = i.agents AND s.instance = i.instance
     AND s.status <> 'error'
   ORDER BY coalesce(s.completion_rate, -1) DESC,
            coalesce(s.mean_travel_distance, 9e999) ASC,
            coalesce(s.mean_completion_steps_capped, 9e999) ASC,
            s.label ASC,
            s.job_key ASC
   LIMIT 1);

-- The worst label of every instance (the worst selector's choice, thesis 5.4.2): the same
-- columns with worst_ names.
CREATE VIEW portfolio_worst AS
SELECT i.map,
       i.map_hash,
       i.generator,
       i.agents,
       i.instance,
       r.label                           AS worst_label,
       r.algorithm                       AS worst_algorithm,
       r.params                          AS worst_params,
       r.completion_rate,
       r.mean_completion_steps_capped,
       r.mean_travel_distance,
       i.candidates,
       r.job_key                         AS worst_job_key,
       r.mean_completion_seconds_capped,
       i.labels,
       i.every_label,
       i.first_row
FROM portfolio_instances AS i
JOIN results AS r ON r.job_key = (
  SELECT s.job_key FROM results AS s
   WHERE s.map IN (SELECT map FROM results GROUP BY map)
     AND s.map_hash = i.map_hash AND s.generator = i.generator
     AND s.agents = i.agents AND s.instance = i.instance
     AND s.status <> 'error'
   ORDER BY coalesce(s.completion_rate, -1) ASC,
            coalesce(s.mean_travel_distance, 9e999) DESC,
            coalesce(s.mean_completion_steps_capped, 9e999) DESC,
            s.label DESC,
            s.job_key DESC
   LIMIT 1);

-- Every label on the instances every label ran on (the rows of Table 5.1 between pi* and the
-- worst selector): means over its jobs there, and `best_on`, the instances on which it is the
-- best label (the thesis counts them: "BMAA*, FAR, and WHCA* was the best choice for an
-- average of 283.5 (33.8%), ..."). CROSS JOIN keeps results in the outer loop, so SQLite
-- looks instances up in an automatic index instead of scanning results once per instance.
CREATE VIEW portfolio_label_means AS
SELECT r.label,
       min(r.algorithm)                  AS algorithm,
       count(*)                          AS jobs,
       avg(r.completion_rate)            AS completion_rate,
       avg(r.mean_travel_distance)       AS travel_distance,
       avg(r.mean_completion_steps_capped) AS completion_steps,
       avg(r.mean_completion_seconds_capped) AS completion_seconds,
       coalesce(w.best_on, 0)            AS best_on,
       min(r.plan_index)                 AS first_row
FROM results AS r
CROSS JOIN portfolio_instances AS i
  ON i.map_hash = r.map_hash AND i.generator = r.generator AND i.agents = r.agents
     AND i.instance = r.instance AND i.every_label = 1
LEFT JOIN (SELECT best_label, count(*) AS best_on FROM portfolio_labels
            WHERE every_label = 1 GROUP BY best_label) AS w
  ON w.best_label = r.label
WHERE r.status <> 'error'
GROUP BY r.label;

-- The perfect selector pi* (thesis Eq. 2.2, Table 5.1's first row): the best label of every
-- instance every label ran on, its metrics averaged.
CREATE VIEW portfolio_perfect AS
SELECT count(*)                          AS instances,
       avg(completion_rate)              AS completion_rate,
       avg(mean_travel_distance)         AS travel_distance,
       avg(mean_completion_steps_capped) AS completion_steps,
       avg(mean_completion_seconds_capped) AS completion_seconds
FROM portfolio_labels
WHERE every_label = 1;

-- The worst selector (Table 5.1's last row): the worst label of every such instance.
CREATE VIEW portfolio_worst_selector AS
SELECT count(*)                          AS instances,
       avg(completion_rate)              AS completion_rate,
       avg(mean_travel_distance)         AS travel_distance,
       avg(mean_completion_steps_capped) AS completion_steps,
       avg(mean_completion_seconds_capped) AS completion_seconds
FROM portfolio_worst
WHERE every_label = 1;

-- The best single algorithm: the label whose means rank first by the same rule (highest rate,
-- then shortest distance, then fewest steps, then the smallest label). Means are compared
-- rounded (rates to 9 decimals, distances and steps to 6), so the order in which floating
-- point sums were added never decides; farm/portfolio.c rounds the same way.
CREATE VIEW portfolio_best_single AS
SELECT *
FROM portfolio_label_means
ORDER BY coalesce(round(completion_rate, 9), -1) DESC,
         coalesce(round(travel_distance, 6), 9e999) ASC,
         coalesce(round(completion_steps, 6), 9e999) ASC,
         label ASC
LIMIT 1;

-- Thesis Table 5.2: per problem type (generator) and label, the means over the label's jobs
-- on the instances every label ran on, and on how many of the type's instances it is best.
CREATE VIEW portfolio_problem_types AS
SELECT r.generator,
       r.label,
       count(*)                          AS jobs,
       avg(r.completion_rate)            AS completion_rate,
       avg(r.mean_travel_distance)       AS travel_distance,
       avg(r.mean_completion_steps_capped) AS completion_steps,
       avg(r.mean_completion_seconds_capped) AS completion_seconds,
       coalesce(w.best_on, 0)            AS best_on,
       min(r.plan_index)                 AS first_row
FROM results AS r
CROSS JOIN portfolio_instances AS i
  ON i.map_hash = r.map_hash AND i.generator = r.generator AND i.agents = r.agents
     AND i.instance = r.instance AND i.every_label = 1
LEFT JOIN (SELECT generator, best_label, count(*) AS best_on FROM portfolio_labels
            WHERE every_label = 1 GROUP BY generator, best_label) AS w
  ON w.generator = r.generator AND w.best_label = r.label
WHERE r.status <> 'error'
GROUP BY r.generator, r.label;

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
