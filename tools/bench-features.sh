#!/usr/bin/env bash
# bench-features.sh: the cost of `mapfarm features` per instance and per map, on MovingAI maps
# with 1,000 agents: a plan of INSTANCES (default 5) random instances on each map, run for one
# step (the features need the jobs stored, not solved), then `mapfarm features --threads 1`,
# whose CPU times are printed: ms per instance (the instance-level features: searches, overlap,
# crowding) and s per map (the map-level ones, the algebraic connectivity and the landmarks).
#
#   tools/bench-features.sh [BUILD_DIR [OTHER_BUILD_DIR...]]  (default build/; `make bench`)
#
# With several build directories (another version's build, to compare) each map's database is
# described by each build in turn, ROUNDS times (default 1; alternated, so that a change of load
# on a shared machine falls on both), and each build's least CPU time is printed, side by side.
# Maps: mapf/den520d (256 x 257) and the 512 x 512 maps bg512/AR0701SR, bench/random512-10-0,
# bench/maze512-1-0. Needs the MovingAI data (MAPFARM_MAPS, else ../shared/movingai beside
# the repository); without it the script says so and exits 0. CPU time, but the machine may be
# shared: compare the figures of one invocation with each other, not across invocations.
set -uo pipefail
cd "$(dirname "$0")/.."
bins=()
for b in "${@:-build}"; do
  [ -x "$b/mapfarm" ] || { echo "bench-features: no $b/mapfarm"; exit 2; }
  bins+=("$(cd "$b" && pwd)/mapfarm")
done
bin=${bins[0]}
rounds=${ROUNDS:-1}
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
  out=""
  best=()
  for i in "${!bins[@]}"; do best[$i]=""; done
  for ((r = 0; r < rounds; r++)); do
    for i in "${!bins[@]}"; do
      line=$("${bins[$i]}" features --db "$work/f.db" --maps "$maps" --threads 1) || { status=1; continue 3; }
      # "...; CPU: 0.292 s per map, 11.671 ms per instance)"
      cpu=${line##*CPU: }
      cpu=${cpu%)}
      ms=${cpu%% ms per instance}
      ms=${ms##* }
      if [ -z "${best[$i]}" ] || awk "BEGIN { exit !($ms < ${best[$i]%% ms*}) }" </dev/null; then
        best[$i]="$ms ms per instance (${cpu%%,*})"
      fi
    done
  done
  for i in "${!bins[@]}"; do
    out+="${out:+  |  }${best[$i]}"
  done
  printf '%-26s %s\n' "$map" "$out"
done
exit $status
