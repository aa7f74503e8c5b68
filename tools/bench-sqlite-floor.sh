#!/usr/bin/env bash
# bench-sqlite-floor.sh: what SQLite itself takes to store a job as mapfarm's schema holds it,
# without mapfarm: the floor under the writer's cost per job (docs/performance.md, "The farm").
#
#   tools/bench-sqlite-floor.sh [ROWS] [AGENTS]     (default 100000 jobs of 3 agents)
#
# The rows are made first in a TEMP table (random 32-hex job keys, the texts and numbers of a
# bench-tiny job); then one INSERT ... SELECT copies them into a database made from
# schema/schema.sql, in one transaction, in WAL mode with synchronous=NORMAL and mapfarm's
# 64 MiB cache, as the writer runs. No statement is prepared, bound or stepped per row: this is
# SQLite's own work on the rows and their index entries. Times are the CPU time (user + system)
# of those statements and their commits alone (the sqlite3 shell's .timer), per job.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000}
agents=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run LABEL SETUP_SQL: a fresh database, SETUP_SQL run on it, then the timed inserts.
run() {
  local label=$1 setup=$2 db=$tmp/floor-$RANDOM.db
  sqlite3 "$db" <schema/schema.sql
  local out
  out=$(sqlite3 "$db" <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA cache_size = -65536;
$setup
CREATE TEMP TABLE r AS
  WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $rows)
  SELECT i AS id, lower(hex(randomblob(16))) AS job_key, 1 AS run_id,
         'random-32x32-d0.1-s1' AS map, '9f1c2b3a4d5e6f70' AS map_hash, 'random' AS generator,
         2 + i % 4 AS agents, i / 4 AS instance, 'bmaa' AS algorithm, 'BMAA*' AS label,
         '{"expansions":32,"flow":false,"moves":32,"push":false,"vision":1.4142135623730951}'
           AS params,
         lower(hex(randomblob(8))) AS seed, i AS plan_index, 'ok' AS status, '' AS limit_hit,
         '' AS message, 1.0 AS completion_rate, 3 AS completed, 41.5 AS mean_completion_steps,
         41.5 AS mean_completion_steps_capped, 0.0012 AS mean_completion_seconds,
         0.0012 AS mean_completion_seconds_capped, 37.9 AS mean_travel_distance, 58 AS steps,
         0.0021 AS wall_seconds, 1400 + i % 97 AS expansions, 0.0009 AS planning_seconds,
         0.00004 AS max_step_planning_seconds, 3 AS failed_moves, 0 AS pushes, 60 AS searches,
         0 AS deadlocks_broken, '2024-05-01T12:00:00Z' AS finished_at, 1.07 AS suboptimality,
         0 AS loops, NULL AS loops_done, NULL AS failed_moves_per_loop, NULL AS coherence,
         200 AS limit_steps, 0.0 AS limit_seconds, 0 AS limit_expansions, 'chains' AS execution,
         1 AS solved, 120 AS soc, 58 AS makespan, 41.5 AS mean_completion_steps_at_limit,
         0.0 AS limit_work, 0.0015 AS work_seconds
  FROM c;
CREATE TEMP TABLE a AS
  WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < $agents - 1)
  SELECT r.id AS result_id, k.n AS agent, 3 AS start_x, 4 AS start_y, 20 AS goal_x, 21 AS goal_y,
         20 AS final_x, 21 AS final_y, 1 AS reached, 40 + k.n AS completion_step,
         0.001 AS completion_seconds, 37.9 AS travel_distance, 470 AS expansions,
         1 AS failed_moves, 0 AS pushed, 20 AS searches, NULL AS optimal_distance,
         0 AS loops_done
  FROM r, k ORDER BY r.id, k.n;
.timer on
BEGIN;
INSERT INTO results SELECT * FROM r;
COMMIT;
BEGIN;
INSERT INTO agent_results SELECT * FROM a;
COMMIT;
SQL
)
  # .timer prints "Run Time: real R user U sys S" after each statement, from the first BEGIN:
  # each INSERT with its COMMIT (which writes the pages to the WAL).
  local t
  t=$(grep '^Run Time' <<<"$out" | awk '{print $6 + $8}' | paste -sd' ')
  read -r _ i1 c1 _ i2 c2 <<<"$t"
  local tr ta
  tr=$(echo "$i1 + $c1" | bc -l)
  ta=$(echo "$i2 + $c2" | bc -l)
  printf '%-44s results row %.2f us  agent rows %.2f us (%d a job)  total %.2f us a job\n' \
    "$label:" "$(echo "$tr * 1000000 / $rows" | bc -l)" "$(echo "$ta * 1000000 / $rows" | bc -l)" \
    "$agents" "$(echo "($tr + $ta) * 1000000 / $rows" | bc -l)"
  rm -f "$db" "$db-wal" "$db-shm"
}

echo "$rows jobs of $agents agents, CPU time of SQLite's INSERT ... SELECT per job:"
run "schema.sql as it is" ""
run "without the three secondary indexes" \
  "DROP INDEX results_map_label; DROP INDEX results_instance; DROP INDEX results_run;"
