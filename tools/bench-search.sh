#!/usr/bin/env bash
# bench-search.sh: search speed. A* on every query of the six bench/ scenario files (CPU time
# of the searches only, ns per expansion), then agent-steps per second of every multi-agent
# algorithm of the registry at 100, 500, 1,000 and 2,000 agents on den520d and lgt300d, and the
# peak memory of the largest BMAA* run over a long horizon, in a process of its own.
#
#   tools/bench-search.sh [BUILD_DIR]        (default build/; `make bench` runs it)
#
# Needs the MovingAI data (MAPFARM_MAPS, else ../shared/movingai beside the repository); without
# it the script says so and exits 0. Timings are CPU time, but the machine may be shared:
# compare the figures of one invocation with each other, not across invocations. Exit status 1
# when an A* cost differs from a scenario's optimal_length.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/mapfarm
maps=${MAPFARM_MAPS:-../shared/movingai}
maps=${maps%%:*}
if [ ! -f "$maps/MANIFEST.tsv" ]; then
  echo "bench-search: MovingAI data not found in $maps (set MAPFARM_MAPS); skipped"
  exit 0
fi
status=0

echo "A* on every query of bench/*.map.scen (search CPU time only)"
for m in AR0011SR brc202d den520d maze512-1-0 ost003d random512-10-0; do
  printf '%-16s ' "$m"
  "$bin" bench astar --map "$maps/bench/$m.map" --scen "$maps/bench/$m.map.scen" || status=1
done

steps=${STEPS:-1000}
echo "multi-agent simulation, random instances (seed 1), $steps steps, default parameters"
for map in mapf/den520d.map dao/lgt300d.map; do
  "$bin" bench sim --map "$maps/$map" --agents 100,500,1000,2000 --steps "$steps" --seed 1 ||
    status=1
done

long=${LONG_STEPS:-5000}
echo "memory: BMAA*, 2,000 agents on lgt300d, $long steps, own process (peak RSS)"
"$bin" bench sim --map "$maps/dao/lgt300d.map" --algo bmaa --agents 2000 --steps "$long" \
  --seed 1 || status=1
exit $status
