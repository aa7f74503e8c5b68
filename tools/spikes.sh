#!/usr/bin/env bash
# spikes.sh: frame spikes (docs/events.md): per planner, the longest step planning right after
# an event (max_event_step_seconds), the run's longest step (the first, for the planners of
# complete paths) and its mean step, each the minimum over REPEATS runs of the same job
# (preemption only ever adds time), one `mapfarm solve` at a time. bg512/AR0414SR, 400 random
# agents, seed 1, 600 steps; re-tasking 10 % every 50 steps (8 rounds), and doors (4 of width at
# most 4 every 50 steps for 25, 8 rounds), as configs/retasking.yaml.
#
#   MAPFARM_MAPS=../shared/movingai tools/spikes.sh [BINARY]     (default build/mapfarm)
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/mapfarm}
REPEATS=${REPEATS:-3}
export MAPFARM_MAPS=${MAPFARM_MAPS:-../shared/movingai}
if [ ! -f "${MAPFARM_MAPS%%:*}/bg512/AR0414SR.map" ]; then
  echo "spikes: MovingAI data not found in $MAPFARM_MAPS (set MAPFARM_MAPS)" >&2
  exit 1
fi
printf "%-12s %-7s %10s %10s %10s\n" algo events spike_ms longest_ms mean_ms
for a in bmaa far astar-replan whca pibt lacam; do
  for ev in retask doors; do
    opt="--retask 50,0.1,8"; [ $ev = doors ] && opt="--doors 50,4,25,8,4"
    best=""; first=""; mean=""
    for r in $(seq $REPEATS); do
      out=$($bin solve --map bg512/AR0414SR.map --generator random --agents 400 --seed 1 --algo $a --steps 600 --seconds 120 $opt 2>/dev/null)
      s=$(echo "$out" | awk '/^max_event_step_seconds:/ {print $2*1000}')
      f=$(echo "$out" | awk '/^max_step_planning_seconds:/ {print $2*1000}')
      m=$(echo "$out" | awk '/^planning_seconds:/ {p=$2} /^steps:/ {s=$2} END {if (s>0) print p*1000/s}')
      best=$(echo "$best $s" | awk '{m=$1; for(i=2;i<=NF;i++) if ($i<m) m=$i; print m}')
      first=$(echo "$first $f" | awk '{m=$1; for(i=2;i<=NF;i++) if ($i<m) m=$i; print m}')
      mean=$(echo "$mean $m" | awk '{m=$1; for(i=2;i<=NF;i++) if ($i<m) m=$i; print m}')
    done
    printf "%-12s %-7s %10.2f %10.2f %10.2f\n" $a $ev $best $first $mean
  done
done
