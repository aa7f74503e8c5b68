#!/usr/bin/env bash
# slurm-array.sh: run one mapfarm plan on many machines as a Slurm job array, then merge.
#
# On the login node:
#
#   tools/slurm-array.sh                                    # the settings below
#   PLAN=configs/sweep.yaml N=32 RESULTS=/scratch/$USER/sweep tools/slurm-array.sh
#   DRY_RUN=1 tools/slurm-array.sh                          # print the sbatch commands only
#
# This submits two things:
#   1. a job array of N tasks. Task I runs
#        mapfarm run PLAN --db $TMPDIR/shard-I.db --shard I/N --threads $SLURM_CPUS_PER_TASK
#      on the node's local disk (SQLite's WAL mode needs one: never put a database being
#      written on NFS or Lustre), then copies the database to RESULTS/shard-I.db;
#   2. a merge job that starts once every task has succeeded (--dependency=afterok) and runs
#        mapfarm merge merged.db shard-1.db ... shard-N.db
#      on local copies, then copies the result to RESULTS/merged.db.
#
# Submitting again is safe and is how a failed or timed-out array is finished: a task first
# copies its shard database back from RESULTS and resumes it (jobs already there are not run
# again), and merging is idempotent (README.md, "Running one plan on many machines"). Keep N
# the same between submissions: the shards are defined by it.
#
# The script is also the job body: sbatch runs it again with "task" or "merge" as its first
# argument. The #SBATCH lines below are the array tasks' defaults; the merge job overrides
# them on its sbatch command line. Edit them here or pass sbatch options in SBATCH_ARGS.
#
#SBATCH --job-name=mapfarm
#SBATCH --cpus-per-task=16
#SBATCH --mem-per-cpu=2G
#SBATCH --time=04:00:00
#SBATCH --output=mapfarm-%A_%a.out

set -euo pipefail

# ---- settings (environment variables override them) -------------------------------------------
PLAN=${PLAN:-configs/quick.yaml}          # the plan to run
N=${N:-8}                                 # shards, one array task each
RESULTS=${RESULTS:-$PWD/results}          # shared directory: shard databases and merged.db
MAPFARM=${MAPFARM:-}                      # the binary: a path or a name on PATH; unset: the
                                          # build or installation beside this script, else
                                          # mapfarm on PATH (tools/find-mapfarm.sh)
MAPS=${MAPS:-}                            # a --maps DIR for MovingAI maps (optional)
SBATCH_ARGS=${SBATCH_ARGS:-}              # more sbatch options, e.g. "--partition=long -A proj"
MERGE_TIME=${MERGE_TIME:-01:00:00}        # time limit of the merge job
STOP_BEFORE=${STOP_BEFORE:-300}           # seconds before the time limit at which a task asks
                                          # mapfarm to stop (it finishes the jobs in progress,
                                          # writes them and marks the run interrupted)
DRY_RUN=${DRY_RUN:-0}                     # 1: print the sbatch commands, submit nothing

die() {
  echo "slurm-array.sh: error: $*" >&2
  exit 2
}

# copy_db SRC DST: copies a SQLite database with its WAL file, if it has one (a database left
# by a process that was killed hard keeps committed rows there). A stale DST-wal or DST-shm is
# removed first: SQLite would otherwise apply it to the new copy. The copies go to temporary
# names first, so DST is never a half-written file.
copy_db() {
  local src=$1 dst=$2
  cp -- "$src" "$dst.part"
  if [ -s "$src-wal" ]; then cp -- "$src-wal" "$dst-wal.part"; fi
  rm -f -- "$dst-wal" "$dst-shm"
  if [ -f "$dst-wal.part" ]; then mv -f -- "$dst-wal.part" "$dst-wal"; fi
  mv -f -- "$dst.part" "$dst"
}

# abspath PATH: PATH made absolute (its directory must exist).
abspath() {
  local dir
  dir=$(cd -- "$(dirname -- "$1")" && pwd) || return 1
  printf '%s/%s\n' "$dir" "$(basename -- "$1")"
}

# ---- an array task: one shard -----------------------------------------------------------------
run_task() {
  local plan=$1 n=$2 results=$3 mapfarm=$4 maps=$5
  local i=${SLURM_ARRAY_TASK_ID:?"not a Slurm array task"}
  local threads=${SLURM_CPUS_PER_TASK:-1}
  local work=${TMPDIR:-/tmp}/mapfarm-${SLURM_ARRAY_JOB_ID:-0}-$i
  local db=$work/shard-$i.db shared=$results/shard-$i.db
  mkdir -p -- "$work" "$results"
  # Resume what an earlier submission of this shard stored.
  if [ -f "$shared" ]; then copy_db "$shared" "$db"; fi

  local args=(run "$plan" --db "$db" --shard "$((i))/$n" --threads "$threads")
  if [ -n "$maps" ]; then args+=(--maps "$maps"); fi
  echo "shard $i/$n on $(hostname): $mapfarm ${args[*]}"

  # Slurm signals this shell STOP_BEFORE seconds before the time limit (--signal=B:TERM@...);
  # pass it on, so that mapfarm stores its finished jobs and exits, and the copy below still
  # happens. `wait` returns early when a trapped signal arrives: wait again until it exits.
  local pid rc=0
  "$mapfarm" "${args[@]}" &
  pid=$!
  trap 'kill -TERM "$pid" 2>/dev/null || true' TERM INT
  wait "$pid" || rc=$?
  while kill -0 "$pid" 2>/dev/null; do
    rc=0
    wait "$pid" || rc=$?
  done
  trap - TERM INT

  copy_db "$db" "$shared"
  rm -rf -- "$work"
  echo "shard $i/$n: mapfarm exited with status $rc; database copied to $shared"
  # 0: done. 1: some jobs failed (error rows, see the job_errors view) or a database error.
  # 143: stopped before the time limit; submit again to finish. Any non-zero status keeps the
  # merge job from starting (afterok).
  exit "$rc"
}

# ---- the merge job ----------------------------------------------------------------------------
run_merge() {
  local n=$1 results=$2 mapfarm=$3
  local work=${TMPDIR:-/tmp}/mapfarm-merge-${SLURM_JOB_ID:-0}
  local inputs=() i rc=0
  mkdir -p -- "$work"
  # Read local copies: opening SQLite databases on a network file system is asking for trouble.
  for ((i = 1; i <= n; i++)); do
    [ -f "$results/shard-$i.db" ] || die "$results/shard-$i.db is missing"
    copy_db "$results/shard-$i.db" "$work/shard-$i.db"
    inputs+=("$work/shard-$i.db")
  done
  # Merging into the previous merged.db, if any, adds only what is new.
  if [ -f "$results/merged.db" ]; then copy_db "$results/merged.db" "$work/merged.db"; fi
  "$mapfarm" merge "$work/merged.db" "${inputs[@]}" || rc=$?
  # 1: conflicts (listed above; merged.db holds every other row): keep it, but fail the job.
  if [ "$rc" -le 1 ]; then
    "$mapfarm" status --db "$work/merged.db" || true
    copy_db "$work/merged.db" "$results/merged.db"
    echo "merged into $results/merged.db"
  fi
  rm -rf -- "$work"
  exit "$rc"
}

# ---- submission (the login node) --------------------------------------------------------------
submit() {
  [ -f "$PLAN" ] || die "PLAN=$PLAN: no such file"
  [[ "$N" =~ ^[1-9][0-9]*$ ]] || die "N=$N: expected an integer >= 1"
  mkdir -p -- "$RESULTS"
  # The jobs may start in another directory: pass absolute paths.
  local plan results mapfarm maps="" self
  plan=$(abspath "$PLAN")
  results=$(cd -- "$RESULTS" && pwd)
  self=$(abspath "${BASH_SOURCE[0]}")
  # Only here, on the login node: the jobs run a copy of this script that Slurm keeps
  # elsewhere, and get the binary's absolute path from the command line.
  . "$(dirname -- "${BASH_SOURCE[0]}")/find-mapfarm.sh"
  find_mapfarm || die "no mapfarm binary (above)"
  mapfarm=$(abspath "$MAPFARM_BIN")
  echo "mapfarm: $mapfarm"
  local maps_opt=()
  if [ -n "$MAPS" ]; then
    maps=$(cd -- "$MAPS" && pwd)
    maps_opt=(--maps "$maps")
  fi
  # Check the plan (and its maps) here, before anything waits in the queue.
  local summary
  summary=$("$mapfarm" expand "$plan" ${maps_opt[@]+"${maps_opt[@]}"}) ||
    die "$PLAN: the plan has errors (above)"
  echo "$PLAN: ${summary%%$'\n'*} in $N shards"

  local extra=()
  if [ -n "$SBATCH_ARGS" ]; then read -r -a extra <<<"$SBATCH_ARGS"; fi
  local array_cmd=(sbatch --parsable --array="1-$N" --signal="B:TERM@$STOP_BEFORE"
    ${extra[@]+"${extra[@]}"} "$self" task "$plan" "$N" "$results" "$mapfarm" "$maps")
  local merge_cmd=(sbatch --parsable --job-name=mapfarm-merge --cpus-per-task=1
    --time="$MERGE_TIME" --output="$results/merge-%j.out" ${extra[@]+"${extra[@]}"})

  if [ "$DRY_RUN" = 1 ]; then
    printf '%q ' "${array_cmd[@]}"
    echo
    printf '%q ' "${merge_cmd[@]}" --dependency="afterok:ARRAY_JOB_ID" "$self" merge "$N" \
      "$results" "$mapfarm"
    echo
    return 0
  fi
  command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login node"
  local array_job_id merge_job_id
  array_job_id=$("${array_cmd[@]}")
  array_job_id=${array_job_id%%;*} # --parsable prints "id" or "id;cluster"
  merge_job_id=$("${merge_cmd[@]}" --dependency="afterok:$array_job_id" "$self" merge "$N" \
    "$results" "$mapfarm")
  merge_job_id=${merge_job_id%%;*}
  echo "submitted array job $array_job_id ($N shards) and merge job $merge_job_id"
  echo "shard databases and merged.db go to $results"
  echo "progress of a shard: copy its database off the node, or after the merge:"
  echo "  $mapfarm status --db $results/merged.db"
}

case "${1:-submit}" in
task)
  [ $# -eq 6 ] || die "usage: $0 task PLAN N RESULTS MAPFARM MAPS"
  run_task "$2" "$3" "$4" "$5" "$6"
  ;;
merge)
  [ $# -eq 4 ] || die "usage: $0 merge N RESULTS MAPFARM"
  run_merge "$2" "$3" "$4"
  ;;
submit)
  submit
  ;;
*)
  die "unknown mode \"$1\"; run it without arguments to submit (see the comments at the top)"
  ;;
esac
