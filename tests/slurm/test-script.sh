#!/usr/bin/env bash
# test-script.sh MAPFARM: tools/slurm-array.sh without Slurm, so it runs everywhere.
#   - DRY_RUN=1 prints both sbatch commands (the merge with afterany) and creates, writes and
#     submits nothing; a MAPFARM that is not an executable is refused with exit 2;
#   - the task body, run outside Slurm (SLURM_ARRAY_TASK_ID set by hand), copies a database
#     whose mapfarm was killed half way, WAL included; the merge body then names the shard that
#     is incomplete and the one that is missing, merges every row that is there (the killed
#     shard's rows live in its WAL), prints the command that finishes them and exits 3; after
#     the two tasks are run again it says the plan is complete and exits 0, every job once;
#   - the merge refuses shards that count another total than the plan (exit 3) and reports
#     failed jobs (exit 1).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 MAPFARM" >&2
  exit 2
fi
bin=$(cd -- "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
src=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
script=$src/tools/slurm-array.sh
while IFS='=' read -r name _; do
  if [[ "$name" == SLURM_* || "$name" == SBATCH_* ]]; then unset "$name"; fi
done < <(env)
unset MAPFARM PLAN N TASKS RESULTS MAPS SBATCH_ARGS DRY_RUN STOP_BEFORE MERGE_TIME

fail() {
  echo "FAIL: $*"
  exit 1
}
command -v sqlite3 >/dev/null || fail "sqlite3 not found (make deps installs it)"
T=$(mktemp -d "${TMPDIR:-/tmp}/mapfarm-slurm-script.XXXXXX")
trap 'rc=$?; if [ $rc = 0 ]; then rm -rf -- "$T"; else echo "kept for inspection: $T"; fi' EXIT
export TMPDIR=$T/node
mkdir -p "$TMPDIR" "$T/fakebin"
cd "$T"
rows() { sqlite3 -readonly -batch -noheader "file:$1?mode=ro" "$2"; }
# A stand-in sbatch that records being called: a dry run must not call it.
printf '#!/bin/sh\ntouch "%s/sbatch-called"\necho 1\n' "$T" >"$T/fakebin/sbatch"
chmod +x "$T/fakebin/sbatch"

# ---- DRY_RUN ---------------------------------------------------------------------------------
slow=$src/tests/data/cli/slow.yaml
out=$(PATH=$T/fakebin:$PATH DRY_RUN=1 N=3 PLAN=$slow RESULTS=new/results MAPFARM=$bin \
  "$script" 2>&1) || fail "dry run: $out"
echo "$out"
[ ! -e "$T/new" ] || fail "DRY_RUN=1 created $T/new"
[ ! -e "$T/sbatch-called" ] || fail "DRY_RUN=1 called sbatch"
grep -q -- "^sbatch --parsable --array=1-3 .*--output=$T/new/results/mapfarm-%A_%a.out " <<<"$out" ||
  fail "no array command writing its logs to RESULTS"
grep -q -- "--dependency=afterany:ARRAY_JOB_ID $script merge 3 $T/new/results $bin 300 " \
  <<<"$out" || fail "no merge command that waits for every task with afterany"
out=$(DRY_RUN=1 TASKS=2,5 N=3 PLAN=$slow MAPFARM=$bin "$script" 2>&1) && fail "TASKS=2,5: $out"
grep -q "TASKS=2,5: expected task numbers and ranges within 1-3" <<<"$out" || fail "$out"
rc=0
out=$(DRY_RUN=1 MAPFARM=$T/no-such-mapfarm PLAN=$slow "$script" 2>&1) || rc=$?
[ "$rc" = 2 ] && grep -q "MAPFARM=$T/no-such-mapfarm: not an executable" <<<"$out" ||
  fail "a missing MAPFARM: exit $rc: $out"

# ---- the task and merge bodies outside Slurm -----------------------------------------------
res=$T/results
task() { SLURM_ARRAY_JOB_ID=7 SLURM_ARRAY_TASK_ID=$1 SLURM_CPUS_PER_TASK=2 \
  "$script" task "$slow" 3 "$res" "$bin" ""; }
merge() { "$script" merge 3 "$res" "$bin" "${1:-300}" "RESUBMIT-COMMAND"; }

task 1 >/dev/null || fail "task 1 failed"
# Task 2, its mapfarm killed hard once it has stored a few results.
task 2 >"$T/task2.out" 2>&1 &
tpid=$!
db2=$TMPDIR/mapfarm-7-2/shard-2.db
for ((k = 0; k < 600; k++)); do
  n=$(rows "$db2" "select count(*) from results" 2>/dev/null || echo 0)
  if [ "${n:-0}" -ge 5 ]; then break; fi
  sleep 0.05
done
pid=$(pgrep -f -- "--db $db2 ") || fail "task 2's mapfarm not found: $(cat "$T/task2.out")"
kill -KILL "$pid"
rc=0
wait "$tpid" || rc=$?
[ "$rc" = 137 ] || fail "task 2 exited with $rc, want 137: $(cat "$T/task2.out")"
[ -s "$res/shard-2.db-wal" ] || fail "task 2 copied no WAL: it holds the killed run's rows"
# Its rows, counted through a scratch copy that SQLite may recover.
mkdir "$T/scratch"
cp "$res/shard-2.db" "$res/shard-2.db-wal" "$T/scratch/"
stored=$(sqlite3 -batch -noheader "$T/scratch/shard-2.db" "select count(*) from results")
echo "task 2: killed with $stored results stored"
[ "$stored" -gt 0 ] || fail "task 2 stored nothing"

rc=0
out=$(merge 2>&1) || rc=$?
echo "$out"
[ "$rc" = 3 ] || fail "merge with shard 2 incomplete and 3 missing: exit $rc, want 3"
grep -q "^shard 1/3: complete: " <<<"$out" || fail "shard 1 not found complete"
grep -q "^shard 2/3: incomplete: $stored of [0-9]* jobs stored" <<<"$out" ||
  fail "shard 2 not found incomplete with $stored jobs"
grep -q "^shard 3/3: missing: $res/shard-3.db" <<<"$out" || fail "shard 3 not found missing"
grep -q "^  TASKS=2,3 RESUBMIT-COMMAND$" <<<"$out" || fail "no command to finish shards 2 and 3"
want=$(($(rows "$res/shard-1.db" "select count(*) from results") + stored))
got=$(rows "$res/merged.db" "select count(*) from results")
[ "$got" = "$want" ] || fail "merged.db holds $got results, want $want (shard 1 and 2's stored)"

task 2 >"$T/task2.out" 2>&1 || fail "task 2 again: $(cat "$T/task2.out")"
grep -q "; $stored were already in " "$T/task2.out" || fail "task 2 did not resume: $(cat "$T/task2.out")"
task 3 >/dev/null || fail "task 3 failed"
out=$(merge 2>&1) || fail "merge of the complete shards: $out"
echo "$out"
grep -q "^complete: every shard of 3 has all its jobs; 300 jobs in merged.db" <<<"$out" ||
  fail "the merge does not say the plan is complete"
[ "$(rows "$res/merged.db" "select count(*), count(distinct job_key) from results")" = "300|300" ] ||
  fail "merged.db does not hold each of the 300 jobs once"

rc=0
out=$(merge 301 2>&1) || rc=$?
[ "$rc" = 3 ] && grep -q "the shard databases count 300 jobs, the plan 301" <<<"$out" ||
  fail "shards of another total: exit $rc: $out"

# ---- failed jobs -----------------------------------------------------------------------------
mkdir -p "$T/failing"
"$bin" run "$src/tests/data/cli/failing.yaml" --db "$T/failing/shard-1.db" >/dev/null 2>&1 || true
rc=0
out=$("$script" merge 1 "$T/failing" "$bin" 10 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -q "5 jobs failed (status error" <<<"$out" ||
  fail "failed jobs: exit $rc: $out"
echo "PASS"
