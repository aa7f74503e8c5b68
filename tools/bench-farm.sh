#!/usr/bin/env bash
# bench-farm.sh: end-to-end farm throughput (jobs/s including SQLite), the speed-up from 1 to 2
# threads, and peak memory against the job count.
#
#   tools/bench-farm.sh [BUILD_DIR]        (default build/; `make bench` runs it)
#
# Each figure is one fresh run into a new database on local disk. The machine may be shared:
# compare the figures of one invocation with each other, not across invocations.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/mapfarm
plan=configs/bench-tiny.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs the plan into a database (a new one unless KEEP names it); prints "seconds peak_kib".
run() {
  local threads=$1 planfile=$2 db=${KEEP:-$tmp/bench-$RANDOM.db}
  local start end
  start=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$tmp/rss" "$bin" run "$planfile" --db "$db" --threads "$threads" 2>/dev/null
  else
    "$bin" run "$planfile" --db "$db" --threads "$threads" 2>/dev/null
    echo 0 >"$tmp/rss"
  fi
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc -l) $(tail -n 1 "$tmp/rss")"
  [ -n "${KEEP:-}" ] || rm -f "$db" "$db-wal" "$db-shm"
}

jobs=$("$bin" expand "$plan" | head -n 1 | cut -d' ' -f1)
echo "plan: $plan ($jobs jobs)"
read -r t1 m1 < <(run 1 "$plan")
read -r t2 m2 < <(run 2 "$plan")
printf 'threads=1 jobs=%d seconds=%.2f jobs_per_s=%.0f peak_rss_mib=%.1f\n' "$jobs" "$t1" \
  "$(echo "$jobs / $t1" | bc -l)" "$(echo "$m1 / 1024" | bc -l)"
printf 'threads=2 jobs=%d seconds=%.2f jobs_per_s=%.0f peak_rss_mib=%.1f\n' "$jobs" "$t2" \
  "$(echo "$jobs / $t2" | bc -l)" "$(echo "$m2 / 1024" | bc -l)"
printf 'speedup_1_to_2=%.2f\n' "$(echo "$t1 / $t2" | bc -l)"

# Memory against job count: the same plan with ten times the instances.
sed 's/instances: 25000/instances: 250000/' "$plan" >"$tmp/big.yaml"
big=$("$bin" expand "$tmp/big.yaml" | head -n 1 | cut -d' ' -f1)
export KEEP=$tmp/big.db
read -r t3 m3 < <(run 2 "$tmp/big.yaml")
printf 'threads=2 jobs=%d seconds=%.2f jobs_per_s=%.0f peak_rss_mib=%.1f db_mib=%.0f\n' "$big" \
  "$t3" "$(echo "$big / $t3" | bc -l)" "$(echo "$m3 / 1024" | bc -l)" \
  "$(echo "$(stat -c %s "$KEEP") / 1048576" | bc -l)"
# Resume: the same command again finds every job stored (keys loaded, the plan's keys computed
# and looked up) and runs nothing.
read -r t4 m4 < <(run 2 "$tmp/big.yaml")
printf 'rerun of the finished plan (nothing to run): seconds=%.2f peak_rss_mib=%.1f\n' "$t4" \
  "$(echo "$m4 / 1024" | bc -l)"
unset KEEP
