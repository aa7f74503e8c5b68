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
#      written on NFS or Lustre), then copies the database to RESULTS/shard-I.db, whether the
#      run finished or not; its log is RESULTS/mapfarm-ARRAYID_I.out;
#   2. a merge job that starts once every task has ended, however it ended
#      (--dependency=afterany), and runs
#        mapfarm merge merged.db shard-1.db ... shard-N.db
#      on local copies, then copies the result to RESULTS/merged.db. It then checks the tasks'
#      work itself: every shard database present and complete (all its jobs stored). Its
#      status: 0 when the plan is complete; 3 when a shard is missing or incomplete (each is
#      named, with the command that finishes it); 1 when a job failed (status error) or the
#      merge found conflicts. Its log is RESULTS/merge-JOBID.out.
#
# Finishing a failed or timed-out array: submit again with the same PLAN, N and RESULTS (the
# merge job prints the command). A task first copies its shard database back from RESULTS and
# resumes it (jobs already there are not run again), and merging is idempotent
# (docs/scaling.md, docs/database.md); TASKS=2,5 submits only those tasks (and a new merge).
# Keep N the same between submissions: the shards are defined by it. A task that Slurm
# requeues (scontrol requeue, preemption) resumes the same way; the merge job, if it has
# already run, then needs a submission with TASKS set to that task.
#
# The script is also the job body: sbatch runs it again with "task" or "merge" as its first
# argument. The #SBATCH lines below are the array tasks' defaults; the merge job overrides
# them on its sbatch command line. Edit them here or pass sbatch options in SBATCH_ARGS.
#
#SBATCH --job-name=mapfarm
#SBATCH --cpus-per-task=16
#SBATCH --mem-per-cpu=2G
#SBATCH --time=04:00:00

set -euo pipefail

# ---- settings (environment variables override them) -------------------------------------------
PLAN=${PLAN:-configs/quick.yaml}          # the plan to run
N=${N:-8}                                 # shards, one array task each
TASKS=${TASKS:-}                          # the tasks to submit, in sbatch's --array syntax
                                          # (2,5-7); unset: all, 1-N
RESULTS=${RESULTS:-$PWD/results}          # shared directory: shard databases, merged.db, logs
MAPFARM=${MAPFARM:-}                      # the binary: a path or a name on PATH; unset: the
                                          # build or installation beside this script, else
                                          # mapfarm on PATH (tools/find-mapfarm.sh)
MAPS=${MAPS:-}                            # a --maps DIR for MovingAI maps (optional)
SBATCH_ARGS=${SBATCH_ARGS:-}              # more sbatch options, e.g. "--partition=long -A proj"
MERGE_TIME=${MERGE_TIME:-01:00:00}        # time limit of the merge job
STOP_BEFORE=${STOP_BEFORE:-300}           # seconds before the time limit at which a task asks
                                          # mapfarm to stop (it finishes the jobs in progress,
                                          # writes them and marks the run interrupted)
DRY_RUN=${DRY_RUN:-0}                     # 1: print the sbatch commands; submit, create and
                                          # write nothing

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
  if [ -f "$dst-wal.part" ]; then
    mv -f -- "$dst-wal.part" "$dst-wal"
    # mapfarm's read-only opens (status, merge's inputs) read a database whose -wal and -shm
    # are not both there as the file alone, without the WAL's rows; from an empty -shm,
    # SQLite rebuilds its index of the WAL.
    : >"$dst-shm"
  fi
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

  # Whatever the status: a database of a run that stopped early holds the jobs it finished.
  if [ -f "$db" ]; then
    copy_db "$db" "$shared"
    echo "shard $i/$n: mapfarm exited with status $rc; database copied to $shared"
  else
    echo "shard $i/$n: mapfarm exited with status $rc and wrote no database"
  fi
  rm -rf -- "$work"
  # 0: done. 1: some jobs failed (error rows, see the job_errors view) or a database error.
  # 143: stopped before the time limit or cancelled; 137: killed. The merge job runs whatever
  # the status (afterany) and names the shards that are not complete.
  exit "$rc"
}

# ---- the merge job ----------------------------------------------------------------------------
# run_merge N RESULTS MAPFARM [TOTAL [RESUBMIT]]: TOTAL is the plan's job count, RESUBMIT the
# command that submitted the array (both for the checks' messages).
run_merge() {
  local n=$1 results=$2 mapfarm=$3 total=${4:-} resubmit=${5:-}
  local work=${TMPDIR:-/tmp}/mapfarm-merge-${SLURM_JOB_ID:-$$}
  local inputs=() unfinished=() i rc=0 failed=0 sum=0
  mkdir -p -- "$work"
  # Each shard's own account: its jobs stored of the jobs of its shard, as `mapfarm status`
  # prints it ("  jobs: D of T done (P%), F failed [...]", one line per plan in the file).
  # Read local copies: opening SQLite databases on a network file system is asking for trouble.
  for ((i = 1; i <= n; i++)); do
    local src=$results/shard-$i.db copy=$work/shard-$i.db out line d t f seen=0 short=0
    if [ ! -f "$src" ]; then
      echo "shard $i/$n: missing: $src (task $i stored nothing; its log: $results/mapfarm-*_$i.out)"
      unfinished+=("$i")
      continue
    fi
    copy_db "$src" "$copy"
    inputs+=("$copy")
    if ! out=$("$mapfarm" status --db "$copy" 2>&1); then
      echo "shard $i/$n: cannot read $src: $out"
      unfinished+=("$i")
      continue
    fi
    while IFS= read -r line; do
      [[ "$line" =~ ^\ \ jobs:\ ([0-9]+)\ of\ ([0-9]+)\ done\ \([^\)]*\),\ ([0-9]+)\ failed ]] ||
        continue
      d=${BASH_REMATCH[1]} t=${BASH_REMATCH[2]} f=${BASH_REMATCH[3]}
      seen=1 sum=$((sum + t)) failed=$((failed + f))
      if [ "$d" -lt "$t" ]; then
        short=1
        echo "shard $i/$n: incomplete: $d of $t jobs stored (its log: $results/mapfarm-*_$i.out)"
      else
        echo "shard $i/$n: complete: $d of $t jobs stored, $f failed"
      fi
    done <<<"$out"
    if [ "$seen" = 0 ]; then
      short=1
      echo "shard $i/$n: incomplete: $src records no run of a known size"
    fi
    if [ "$short" = 1 ]; then unfinished+=("$i"); fi
  done

  # Merge what there is, even with shards unfinished: merging again later adds only what is
  # new, into the previous merged.db.
  if [ "${#inputs[@]}" -gt 0 ]; then
    if [ -f "$results/merged.db" ]; then copy_db "$results/merged.db" "$work/merged.db"; fi
    "$mapfarm" merge "$work/merged.db" "${inputs[@]}" || rc=$?
    # 1: conflicts (listed above; merged.db holds every other row): keep it, but fail the job.
    if [ "$rc" -le 1 ]; then
      copy_db "$work/merged.db" "$results/merged.db"
      echo "merged into $results/merged.db"
    fi
  fi
  rm -rf -- "$work"

  if [ "${#unfinished[@]}" -gt 0 ]; then
    local list
    list=$(IFS=,; echo "${unfinished[*]}")
    echo "slurm-array.sh: error: ${#unfinished[@]} of $n shards not complete: $list." \
      "Finish them (each resumes from its database in $results) and merge again:" >&2
    if [ -n "$resubmit" ]; then
      echo "  TASKS=$list $resubmit" >&2
    else
      echo "  TASKS=$list tools/slurm-array.sh, with the same PLAN, N and RESULTS" >&2
    fi
    exit 3
  fi
  if [ -n "$total" ] && [ "$sum" != "$total" ]; then
    echo "slurm-array.sh: error: the shard databases count $sum jobs, the plan $total: were" \
      "they run with another plan or another N?" >&2
    exit 3
  fi
  if [ "$rc" != 0 ]; then exit "$rc"; fi
  if [ "$failed" != 0 ]; then
    echo "slurm-array.sh: error: $failed jobs failed (status error; the job_errors view of" \
      "$results/merged.db lists them)" >&2
    exit 1
  fi
  echo "complete: every shard of $n has all its jobs${total:+; $total jobs in merged.db}"
}

# ---- submission (the login node) --------------------------------------------------------------
submit() {
  [ -f "$PLAN" ] || die "PLAN=$PLAN: no such file"
  [[ "$N" =~ ^[1-9][0-9]*$ ]] || die "N=$N: expected an integer >= 1"
  local tasks=${TASKS:-1-$N} items item
  # sbatch's --array list: indices and ranges, an optional %LIMIT on running tasks.
  IFS=, read -r -a items <<<"${tasks%\%*}"
  [ "${#items[@]}" -gt 0 ] || die "TASKS=$TASKS: expected task numbers and ranges, as in 2,5-7"
  for item in "${items[@]}"; do
    [[ "$item" =~ ^([0-9]+)(-([0-9]+))?$ ]] &&
      [ "${BASH_REMATCH[1]}" -ge 1 ] && [ "${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}" -le "$N" ] &&
      [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}" ] ||
      die "TASKS=$TASKS: expected task numbers and ranges within 1-$N, as in 2,5-7"
  done
  [[ "$tasks" != *%* || "${tasks##*%}" =~ ^[1-9][0-9]*$ ]] ||
    die "TASKS=$TASKS: expected %LIMIT to be an integer >= 1"

  # The jobs may start in another directory: pass absolute paths. A dry run creates nothing.
  local plan results mapfarm maps="" self
  plan=$(abspath "$PLAN")
  if [ "$DRY_RUN" != 1 ]; then mkdir -p -- "$RESULTS"; fi
  if [ -d "$RESULTS" ]; then
    results=$(cd -- "$RESULTS" && pwd)
  elif [[ "$RESULTS" == /* ]]; then
    results=$RESULTS
  else
    results=$PWD/$RESULTS
  fi
  self=$(abspath "${BASH_SOURCE[0]}")
  # Only here, on the login node: the jobs run a copy of this script that Slurm keeps
  # elsewhere, and get the binary's absolute path from the command line.
  . "$(dirname -- "${BASH_SOURCE[0]}")/find-mapfarm.sh"
  find_mapfarm || die "no mapfarm binary (above)"
  mapfarm=$(abspath "$MAPFARM_BIN")
  echo "mapfarm: $mapfarm"
  local maps_opt=()
  if [ -n "$MAPS" ]; then
    maps=$(cd -- "$MAPS" && pwd) || die "MAPS=$MAPS: no such directory"
    maps_opt=(--maps "$maps")
  fi
  # Check the plan (and its maps) here, before anything waits in the queue.
  local summary total
  summary=$("$mapfarm" expand "$plan" ${maps_opt[@]+"${maps_opt[@]}"}) ||
    die "$PLAN: the plan has errors (above)"
  total=${summary%% *}
  echo "$PLAN: ${summary%%$'\n'*} in $N shards"

  # The command that submits the same array again: the merge job prints it, with TASKS set
  # to the shards that are not complete.
  local resubmit
  resubmit=$(printf 'PLAN=%q N=%q RESULTS=%q MAPFARM=%q' "$plan" "$N" "$results" "$mapfarm")
  if [ -n "$maps" ]; then resubmit+=$(printf ' MAPS=%q' "$maps"); fi
  if [ -n "$SBATCH_ARGS" ]; then resubmit+=$(printf ' SBATCH_ARGS=%q' "$SBATCH_ARGS"); fi
  resubmit+=$(printf ' %q' "$self")

  local extra=()
  if [ -n "$SBATCH_ARGS" ]; then read -r -a extra <<<"$SBATCH_ARGS"; fi
  local array_cmd=(sbatch --parsable --array="$tasks" --signal="B:TERM@$STOP_BEFORE"
    --output="$results/mapfarm-%A_%a.out" ${extra[@]+"${extra[@]}"}
    "$self" task "$plan" "$N" "$results" "$mapfarm" "$maps")
  # The merge job waits for every task to end, however it ended (afterany): with afterok, one
  # task that failed, timed out or was preempted would leave it waiting forever. It checks
  # the shards itself.
  local merge_cmd=(sbatch --parsable --job-name=mapfarm-merge --cpus-per-task=1
    --time="$MERGE_TIME" --output="$results/merge-%j.out" ${extra[@]+"${extra[@]}"})
  local merge_args=("$self" merge "$N" "$results" "$mapfarm" "$total" "$resubmit")

  if [ "$DRY_RUN" = 1 ]; then
    printf '%q ' "${array_cmd[@]}"
    echo
    printf '%q ' "${merge_cmd[@]}" --dependency="afterany:ARRAY_JOB_ID" "${merge_args[@]}"
    echo
    echo "(DRY_RUN=1: nothing submitted, nothing created)"
    return 0
  fi
  command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login node"
  local array_job_id merge_job_id
  array_job_id=$("${array_cmd[@]}")
  array_job_id=${array_job_id%%;*} # --parsable prints "id" or "id;cluster"
  merge_job_id=$("${merge_cmd[@]}" --dependency="afterany:$array_job_id" "${merge_args[@]}")
  merge_job_id=${merge_job_id%%;*}
  echo "submitted array job $array_job_id (tasks $tasks of $N) and merge job $merge_job_id"
  echo "shard databases, merged.db and the logs go to $results"
  echo "progress of a shard: copy its database off the node, or after the merge:"
  echo "  $mapfarm status --db $results/merged.db"
}

case "${1:-submit}" in
task)
  [ $# -eq 6 ] || die "usage: $0 task PLAN N RESULTS MAPFARM MAPS"
  run_task "$2" "$3" "$4" "$5" "$6"
  ;;
merge)
  [ $# -ge 4 ] && [ $# -le 6 ] || die "usage: $0 merge N RESULTS MAPFARM [TOTAL [RESUBMIT]]"
  run_merge "${@:2}"
  ;;
submit)
  submit
  ;;
*)
  die "unknown mode \"$1\"; run it without arguments to submit (see the comments at the top)"
  ;;
esac
