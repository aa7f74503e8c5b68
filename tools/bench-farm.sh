#!/usr/bin/env bash
# bench-farm.sh: end-to-end farm throughput (jobs/s including SQLite) beside the compute-only
# rate of the same jobs, the writer's CPU time per job and what it predicts for many cores, and
# peak memory and resume time against the job count.
#
#   tools/bench-farm.sh [BUILD_DIR]        (default build/; `make bench` runs it)
#   BIG=0 tools/bench-farm.sh              (leave out the 1,000,000-job part: a minute or two)
#
# Each figure is one fresh run into a new database on local disk (`mapfarm bench farm`, the pool
# of `mapfarm run`). The machine may be shared: compare the figures of one invocation with each
# other, not across invocations. CPU times (user + system) are what a loaded machine changes
# least, so the ratios are given from them too: on idle cores, N busy threads run N / (CPU time
# per job) jobs a second.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/mapfarm
plan=configs/bench-tiny.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# bench PLAN THREADS (--discard | --db) [DB]: the bench line, then "cpu_s=" the process's user +
# system time and its peak memory from /usr/bin/time.
bench() {
  local planfile=$1 threads=$2 mode=$3 db=${4:-$tmp/bench-$RANDOM.db}
  local args=(--discard)
  [ "$mode" = --discard ] || args=(--db "$db")
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$bin" bench farm "$planfile" "${args[@]}" \
    --threads "$threads"
  read -r u s m <"$tmp/time"
  echo "cpu_s=$(echo "$u + $s" | bc -l) peak_kib=$m"
  [ "$mode" = --discard ] || [ -n "${4:-}" ] || rm -f "$db" "$db-wal" "$db-shm"
}

# field NAME LINE: the value of NAME=VALUE in LINE.
field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }

# One plan: compute-only and stored, 1 and 2 threads; the ratios; the prediction.
compare() {
  local planfile=$1 title=$2
  local jobs
  jobs=$("$bin" expand "$planfile" | head -n 1 | cut -d' ' -f1)
  echo "== $title: $planfile ($jobs jobs)"
  local d1 d2 s1 s2 c_d1
  d1=$(bench "$planfile" 1 --discard | paste -sd' ')
  s1=$(bench "$planfile" 1 --db | paste -sd' ')
  d2=$(bench "$planfile" 2 --discard | paste -sd' ')
  s2=$(bench "$planfile" 2 --db | paste -sd' ')
  printf '%s\n' "$d1" "$s1" "$d2" "$s2" | sed 's/ cpu_s=/ process_cpu_s=/; s/ peak_kib=[0-9]*//'
  c_d1=$(field cpu_s "$d1")
  local w
  w=$(field writer_us_per_job "$s1")
  printf 'ratio_2_threads stored/compute_only: jobs_per_s %.2f, from cpu time %.2f\n' \
    "$(echo "$(field jobs_per_s "$s2") / $(field jobs_per_s "$d2")" | bc -l)" \
    "$(echo "$(field cpu_s "$d2") / $(field cpu_s "$s2")" | bc -l)"
  # On C cores every thread computes and whoever holds the writer lock writes: C / (compute +
  # write) a second, unless the one writer is the limit at 1 / write.
  local c_us
  c_us=$(echo "$c_d1 * 1000000 / $jobs" | bc -l)
  printf 'per job on 1 thread: compute %.1f us (cpu, --discard), writer %.1f us (its thread %s)\n' \
    "$c_us" "$w" cpu
  for cores in 16; do
    printf 'prediction for %d idle cores like these: min(%d / (%.1f + %.1f us), %s) = %.0f jobs/s\n' \
      "$cores" "$cores" "$c_us" "$w" "1 / $w us" \
      "$(echo "a = $cores * 1000000 / ($c_us + $w); b = 1000000 / $w; if (a < b) a else b" | bc -l)"
  done
}

compare "$plan" "tiny jobs"
sed 's/^limits:/store: {agents: false}\nlimits:/' "$plan" >"$tmp/no-agents.yaml"
compare "$tmp/no-agents.yaml" "tiny jobs, store: {agents: false}"

[ "${BIG:-1}" = 0 ] && exit 0
# Memory against job count: the same plan with ten times the instances; then the same command
# again on the finished database: every key loaded, the plan's keys computed and looked up,
# nothing run.
sed 's/instances: 25000/instances: 250000/' "$plan" >"$tmp/big.yaml"
big=$("$bin" expand "$tmp/big.yaml" | head -n 1 | cut -d' ' -f1)
echo "== memory and resume: $big jobs"
line=$(bench "$tmp/big.yaml" 2 --db "$tmp/big.db" | paste -sd' ')
printf '%s peak_rss_mib=%.1f db_mib=%.0f\n' \
  "$(sed 's/ peak_rss_mib=[^ ]*//; s/ cpu_s=.*//' <<<"$line")" \
  "$(echo "$(field peak_kib "$line") / 1024" | bc -l)" \
  "$(echo "$(stat -c %s "$tmp/big.db") / 1048576" | bc -l)"
start=$(date +%s.%N)
/usr/bin/time -f '%M' -o "$tmp/rss" "$bin" run "$tmp/big.yaml" --db "$tmp/big.db" --threads 2 \
  2>/dev/null
end=$(date +%s.%N)
printf 'rerun of the finished plan (nothing to run): seconds=%.2f peak_rss_mib=%.1f\n' \
  "$(echo "$end - $start" | bc -l)" "$(echo "$(tail -n 1 "$tmp/rss") / 1024" | bc -l)"
