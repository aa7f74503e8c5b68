#!/usr/bin/env bash
# test-array.sh MAPFARM: tools/slurm-array.sh on a real Slurm. Starts a single-node cluster on
# localhost (cluster.sh: munged, slurmctld and slurmd with a configuration written here), then
#   1. runs a small plan as a 3-task array plus merge: the merge job completes and merged.db
#      equals one local `mapfarm run` of the plan (tools/compare-results.sh: job keys and every
#      column that does not measure time);
#   2. runs a plan of a few seconds per task, kills task 2's mapfarm half way (kill -9, as an
#      out-of-memory kill would) and sends task 3 the signal that Slurm sends before the time
#      limit (scancel --batch --signal=TERM). The merge job still runs (afterany), fails with
#      status 3 and names both shards; the command it prints, run as it is, resubmits them,
#      they resume, and the new merge completes: every job once (rows per job key), the same
#      results as a local run.
# Exit 0 when all holds, 1 on a failure, 77 (CTest's skip) with the reason where Slurm is not
# installed or its daemons cannot start here; under CI=true, which installs Slurm, those fail.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 MAPFARM" >&2
  exit 2
fi
bin=$(cd -- "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
src=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
script=$src/tools/slurm-array.sh
# Variables of an enclosing Slurm job or of the user's cluster must not reach this one.
while IFS='=' read -r name _; do
  if [[ "$name" == SLURM_* || "$name" == SBATCH_* || "$name" == SQUEUE_* ]]; then
    unset "$name"
  fi
done < <(env)
unset MAPFARM PLAN N TASKS RESULTS MAPS SBATCH_ARGS DRY_RUN STOP_BEFORE MERGE_TIME

fail() {
  echo "FAIL: $*"
  exit 1
}
skip() {
  if [ "${CI:-}" = true ]; then fail "under CI=true Slurm is expected (make deps installs it): $*"; fi
  echo "SKIP: $*"
  exit 77
}

for c in munged slurmctld slurmd sbatch squeue scontrol scancel sqlite3; do
  command -v "$c" >/dev/null ||
    skip "$c not found (apt-get install slurmctld slurmd slurm-client munge sqlite3)"
done

T=$(mktemp -d "${TMPDIR:-/tmp}/mapfarm-slurm.XXXXXX")
. "$src/tests/slurm/cluster.sh"
finish() {
  local rc=$?
  cluster_stop
  if [ "$rc" = 0 ] || [ "$rc" = 77 ]; then
    rm -rf -- "$T"
  else
    echo "kept for inspection: $T"
    cluster_logs
  fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 1' INT TERM

if ! cluster_start "$T/cluster"; then
  skip "cannot start a single-node Slurm here: $CLUSTER_WHY"$'\n'"$(cluster_logs)"
fi
echo "cluster up: $(sinfo -h -N -o '%N %c CPUs %T'), SLURM_CONF=$SLURM_CONF"

# The tasks' node-local disk: where the test finds a running task's database.
export TMPDIR=$T/node
mkdir -p "$TMPDIR"
cd "$T"
# One CPU a task (the node has 2); a time limit far beyond STOP_BEFORE's default 300 s.
sbatch_args="--cpus-per-task=1 --mem-per-cpu=64M --time=30"

rows() { sqlite3 -readonly -batch -noheader "file:$1?mode=ro" "$2"; }

# wait_job ID SECONDS: until job ID (every task of an array) has left the queue.
wait_job() {
  local id=$1 until=$((SECONDS + $2)) why
  while [ -n "$(squeue -h -j "$id" 2>/dev/null)" ]; do
    why=$(squeue -h -j "$id" -o %r 2>/dev/null | sort -u | tr '\n' ' ')
    [[ "$why" != *DependencyNeverSatisfied* ]] ||
      fail "job $id waits for ever (DependencyNeverSatisfied)"$'\n'"$(scontrol show job "$id")"
    [ "$SECONDS" -lt "$until" ] || fail "job $id still queued after $2 s: $why"
    sleep 0.3
  done
}

# state ID: "STATE EXIT:SIGNAL" of a finished job (kept by MinJobAge).
state() {
  scontrol show job "$1" | tr ' ' '\n' |
    awk -F= '$1 == "JobState" { s = $2 } $1 == "ExitCode" { e = $2 } END { print s, e }'
}

# times ARRAY MERGE TASK...: each job's run time, as Slurm counts it (whole seconds), for the
# figures of docs/scaling.md.
times() {
  local line="run times:" i
  for i in "${@:3}"; do
    line+=" task $i $(scontrol show job "${1}_$i" | grep -o 'RunTime=[^ ]*' | cut -d= -f2),"
  done
  echo "$line merge $(scontrol show job "$2" | grep -o 'RunTime=[^ ]*' | cut -d= -f2)"
}

# submit: runs the script (settings in the environment) and sets array_id and merge_id.
submit() {
  local out
  out=$("$@" 2>&1) || fail "submission failed: $out"
  echo "$out"
  [[ "$out" =~ submitted\ array\ job\ ([0-9]+)\ .*\ and\ merge\ job\ ([0-9]+) ]] ||
    fail "no job ids in the submission's output"
  array_id=${BASH_REMATCH[1]} merge_id=${BASH_REMATCH[2]}
}

# same_as_local DB LOCAL JOBS: DB holds JOBS jobs, each once, with LOCAL's results.
same_as_local() {
  local n dup
  n=$(rows "$1" "select count(*) from results")
  dup=$(rows "$1" "select count(*) from (select job_key from results group by job_key
                                          having count(*) > 1)")
  [ "$n" = "$3" ] || fail "$1: $n jobs, want $3"
  [ "$dup" = 0 ] || fail "$1: $dup job keys stored more than once"
  [ "$(rows "$1" "select count(*) from agent_results")" = \
    "$(rows "$2" "select count(*) from agent_results")" ] || fail "$1: agent rows differ from $2"
  "$src/tools/compare-results.sh" "$2" "$1" || fail "$1 differs from the local run $2"
}

# ---- 1. a 3-task array plus merge equals one local run -------------------------------------
small=$src/tests/data/cli/small.yaml
"$bin" run "$small" --db "$T/small-local.db" --threads 1 >/dev/null
t0=$SECONDS
submit env PLAN="$small" N=3 RESULTS="$T/small" MAPFARM="$bin" SBATCH_ARGS="$sbatch_args" \
  "$script"
wait_job "$array_id" 60
wait_job "$merge_id" 60
echo "3 tasks and the merge in $((SECONDS - t0)) s from the submission"
times "$array_id" "$merge_id" 1 2 3
for i in 1 2 3; do
  [ "$(state "${array_id}_$i")" = "COMPLETED 0:0" ] ||
    fail "task $i: $(state "${array_id}_$i")"$'\n'"$(cat "$T/small/mapfarm-${array_id}_$i.out")"
done
mlog=$T/small/merge-$merge_id.out
[ "$(state "$merge_id")" = "COMPLETED 0:0" ] || fail "merge: $(state "$merge_id")"$'\n'"$(cat "$mlog")"
cat "$mlog"
grep -q "^complete: every shard of 3 has all its jobs; 40 jobs in merged.db" "$mlog" ||
  fail "the merge job does not say the plan is complete"
same_as_local "$T/small/merged.db" "$T/small-local.db" 40

# ---- 2. a task killed half way, another stopped: the rerun loses and repeats nothing --------
slow=$src/tests/data/cli/slow.yaml
total=$("$bin" expand "$slow" | head -n 1)
total=${total%% *}
"$bin" run "$slow" --db "$T/slow-local.db" --threads 2 >/dev/null
submit env PLAN="$slow" N=3 RESULTS="$T/slow" MAPFARM="$bin" SBATCH_ARGS="$sbatch_args" "$script"

# until_rows I: until task I's database on the node holds a few results; echoes its path.
until_rows() {
  local db=$TMPDIR/mapfarm-$array_id-$1/shard-$1.db until=$((SECONDS + 60)) n
  while :; do
    n=$(rows "$db" "select count(*) from results" 2>/dev/null || echo 0)
    if [ "${n:-0}" -ge 5 ]; then break; fi
    [ "$SECONDS" -lt "$until" ] || fail "task $1 stored no results in 60 s"
    [ -n "$(squeue -h -j "${array_id}_$1" 2>/dev/null)" ] || [ ! -f "$db" ] ||
      fail "task $1 ended before it could be stopped: $(state "${array_id}_$1")"
    sleep 0.1
  done
  echo "$db"
}
db2=$(until_rows 2)
pid=$(pgrep -f -- "--db $db2 ") || fail "task 2's mapfarm not found"
kill -KILL "$pid"
echo "task 2: killed mapfarm (pid $pid) with $(rows "$db2" "select count(*) from results") results stored"
until_rows 3 >/dev/null
scancel --batch --signal=TERM "${array_id}_3"
echo "task 3: sent TERM to its batch shell, as Slurm does STOP_BEFORE seconds before the limit"
wait_job "$array_id" 60
wait_job "$merge_id" 60
times "$array_id" "$merge_id" 1 2 3
[ "$(state "${array_id}_1")" = "COMPLETED 0:0" ] || fail "task 1: $(state "${array_id}_1")"
[ "$(state "${array_id}_2")" = "FAILED 137:0" ] || fail "task 2: $(state "${array_id}_2")"
[ "$(state "${array_id}_3")" = "FAILED 143:0" ] || fail "task 3: $(state "${array_id}_3")"
mlog=$T/slow/merge-$merge_id.out
cat "$mlog"
[ "$(state "$merge_id")" = "FAILED 3:0" ] || fail "merge: $(state "$merge_id")"
grep -q "^shard 1/3: complete: " "$mlog" || fail "the merge does not find shard 1 complete"
grep -q "^shard 2/3: incomplete: " "$mlog" || fail "the merge does not find shard 2 incomplete"
grep -q "^shard 3/3: incomplete: " "$mlog" || fail "the merge does not find shard 3 incomplete"
grep -q "2 of 3 shards not complete: 2,3" "$mlog" || fail "the merge does not name shards 2,3"
# What both stopped tasks stored is in merged.db already.
partial=$(rows "$T/slow/merged.db" "select count(*) from results")
echo "merged.db after the first merge: $partial of $total jobs"
[ "$partial" -gt "$(rows "$T/slow/shard-1.db" "select count(*) from results")" ] ||
  fail "merged.db holds nothing of the stopped tasks"

# The command that the merge job printed, run as it is.
again=$(sed -n 's/^  \(TASKS=2,3 .*\)$/\1/p' "$mlog")
[ -n "$again" ] || fail "the merge job prints no command to finish the shards"
t0=$SECONDS
submit eval "$again"
wait_job "$array_id" 60
wait_job "$merge_id" 60
echo "tasks 2 and 3 and the merge again in $((SECONDS - t0)) s from the submission"
times "$array_id" "$merge_id" 2 3
for i in 2 3; do
  log=$T/slow/mapfarm-${array_id}_$i.out
  [ "$(state "${array_id}_$i")" = "COMPLETED 0:0" ] || fail "rerun of task $i: $(cat "$log")"
  grep -Eq "; [1-9][0-9]* were already in " "$log" || fail "task $i did not resume: $(cat "$log")"
done
[ ! -f "$T/slow/mapfarm-${array_id}_1.out" ] || fail "task 1 was submitted again"
mlog=$T/slow/merge-$merge_id.out
cat "$mlog"
[ "$(state "$merge_id")" = "COMPLETED 0:0" ] || fail "merge: $(state "$merge_id")"
same_as_local "$T/slow/merged.db" "$T/slow-local.db" "$total"
echo "PASS"
