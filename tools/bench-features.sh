#!/usr/bin/env bash
# bench-features.sh: the cost of `mapfarm features` per instance and per map, on MovingAI maps
# with 1,000 agents: a plan of INSTANCES (default 5) random instances on each map, run for one
# step (the features need the jobs stored, not solved), then `mapfarm features --threads 1`,
# whose CPU times are printed: ms per instance (the instance-level features: searches, overlap,
# crowding) and s per map (the map-level ones, the algebraic connectivity and the landmarks).
#
#   tools/bench-features.sh [BUILD_DIR]        (default build/; `make bench` runs it)
#
# Maps: mapf/den520d (256 x 257) and the 512 x 512 maps bg512/AR0701SR, bench/random512-10-0,
# bench/maze512-1-0. Needs the MovingAI data (MAPFARM_MAPS, else ../shared/movingai beside
# the repository); without it the script says so and exits 0. CPU time, but the machine may be
# shared: compare the figures of one invocation with each other, not across invocations.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$(cd "$build" && pwd)/mapfarm
maps=${MAPFARM_MAPS:-../shared/movingai}
maps=${maps%%:*}
if [ ! -f "$maps/MANIFEST.tsv" ]; then
  echo "bench-features: MovingAI data not found in $maps (set MAPFARM_MAPS); skipped"
  exit 0
fi
maps=$(cd "$maps" && pwd)
instances=${INSTANCES:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
echo "mapfarm features, 1,000 random agents, $instances instances per map, one thread (CPU time)"
for map in mapf/den520d.map bg512/AR0701SR.map bench/random512-10-0.map bench/maze512-1-0.map; do
  cat > "$work/plan.yaml" <<EOF
name: bench-features
seed: 1
maps: [$map]
scenarios:
  - {generator: random, agents: 1000, instances: $instances}
algorithms:
  - {name: bmaa, label: BMAA*}
limits: {steps: 1}
EOF
  rm -f "$work/f.db"
  if ! "$bin" run "$work/plan.yaml" --db "$work/f.db" --maps "$maps" >/dev/null 2>"$work/err"; then
    echo "bench-features: the plan on $map failed:"; cat "$work/err"; status=1; continue
  fi
  line=$("$bin" features --db "$work/f.db" --maps "$maps" --threads 1) || { status=1; continue; }
  # "...; CPU: 0.292 s per map, 11.671 ms per instance)"
  cpu=${line##*CPU: }
  printf '%-26s %s\n' "$map" "${cpu%)}"
done
exit $status
