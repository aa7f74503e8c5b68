#!/usr/bin/env bash
# bench-ab.sh: two mapfarm builds on the same jobs, one after the other or (--paired) side by side,
# so that a code change can be told from the machine's speed (on a shared host that speed changes
# by 1.5x within an hour, docs/reproduction.md, The full plan). Prints each run's wall time, the
# job time of each label under both builds and their ratio, and whether every job's results agree.
#
#   tools/bench-ab.sh [--paired] OLD_BIN NEW_BIN [PLAN] [SHARD] [ROUNDS]
#   MAPFARM_MAPS=../shared/movingai tools/bench-ab.sh old/mapfarm build/mapfarm \
#       configs/bmaa-paper.yaml 1/40 2
#
# PLAN defaults to configs/bmaa-paper.yaml, SHARD to 1/40 (332 of its jobs, about 2 minutes per
# run on 2 threads), ROUNDS to 1. Rounds alternate the order (old, new; then new, old; ...), so
# a machine that speeds up or slows down during the comparison favours neither build. Each run
# is a fresh database with 2 threads. --paired runs the two builds at the same time instead,
# one thread each, each pinned to its own core (taskset; the cores swap every round): on a
# shared host whose speed drifts within minutes, both then see the same drift. Exit status 1
# when some job's results differ: a change meant only to be faster must leave every result as
# it was.
set -euo pipefail
paired=0
if [ "${1:-}" = "--paired" ]; then
  paired=1
  shift
fi
if [ $# -lt 2 ]; then
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
old=$1 new=$2 plan=${3:-configs/bmaa-paper.yaml} shard=${4:-1/40} rounds=${5:-1}
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "bench-ab.sh: $b: not an executable" >&2; exit 2; }
done
command -v sqlite3 >/dev/null || { echo "bench-ab.sh: needs the sqlite3 shell (make deps)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME BIN ROUND [CORE]: one run into $tmp/NAME-ROUND.db, on 2 threads, or pinned to CORE
# on one thread; prints its wall time.
run() {
  local db=$tmp/$1-$3.db start end
  local cmd=("$2" run "$plan" --db "$db" --threads 2 --shard "$shard")
  [ $# -ge 4 ] && cmd=(taskset -c "$4" "$2" run "$plan" --db "$db" --threads 1 --shard "$shard")
  start=$(date +%s.%N)
  "${cmd[@]}" >/dev/null 2>"$tmp/err-$1" || {
    cat "$tmp/err-$1" >&2
    exit 2
  }
  end=$(date +%s.%N)
  printf 'round %d %-3s %s%s: %.1f s wall\n' "$3" "$1" "$2" "${4:+ (core $4)}" \
    "$(echo "$end - $start" | bc -l)"
}

if [ $paired -eq 1 ]; then
  command -v taskset >/dev/null || { echo "bench-ab.sh: --paired needs taskset" >&2; exit 2; }
  echo "plan: $plan --shard $shard, $rounds round(s), paired on cores 0 and 1"
  for r in $(seq 1 "$rounds"); do
    co=$(((r + 1) % 2)) cn=$((r % 2))
    run old "$old" "$r" "$co" &
    po=$!
    run new "$new" "$r" "$cn" &
    pn=$!
    wait "$po" || exit 2
    wait "$pn" || exit 2
  done
else
  echo "plan: $plan --shard $shard, $rounds round(s)"
  for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then
      run old "$old" "$r"
      run new "$new" "$r"
    else
      run new "$new" "$r"
      run old "$old" "$r"
    fi
  done
fi

# Every round's databases, attached as o1, n1, o2, n2, ...
attach=""
for r in $(seq 1 "$rounds"); do
  attach="$attach attach '$tmp/old-$r.db' as o$r; attach '$tmp/new-$r.db' as n$r;"
done
union() { # union NAME: the results rows of every round of one build
  local q="" r
  for r in $(seq 1 "$rounds"); do
    q="$q${q:+ union all }select label, wall_seconds from $1$r.results"
  done
  echo "$q"
}
echo
echo "job time per label (sum of wall_seconds over all rounds):"
sqlite3 -header -column :memory: "$attach
  select o.label, round(o.s, 1) as old_s, round(n.s, 1) as new_s, round(n.s / o.s, 3) as new_over_old
  from (select label, sum(wall_seconds) s from ($(union o)) group by label) o
  join (select label, sum(wall_seconds) s from ($(union n)) group by label) n using (label)
  union all
  select 'all', round((select sum(wall_seconds) from ($(union o))), 1),
         round((select sum(wall_seconds) from ($(union n))), 1),
         round((select sum(wall_seconds) from ($(union n))) /
               (select sum(wall_seconds) from ($(union o))), 3);"

# The same results: every metric that does not measure time, job by job (first round).
read -r jobs same < <(sqlite3 -separator ' ' :memory: "$attach
  select count(*), coalesce(sum(o.status is n.status and o.steps is n.steps
      and o.expansions is n.expansions and o.completed is n.completed
      and o.failed_moves is n.failed_moves and o.pushes is n.pushes
      and o.searches is n.searches and o.deadlocks_broken is n.deadlocks_broken
      and o.mean_travel_distance is n.mean_travel_distance
      and o.mean_completion_steps is n.mean_completion_steps), 0)
  from o1.results o join n1.results n using (job_key);")
echo
echo "identical results: $same of $jobs jobs"
[ "$same" = "$jobs" ]
