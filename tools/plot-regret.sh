#!/usr/bin/env bash
# plot-regret.sh: per-instance regret of the algorithm selector against the best single
# algorithm (docs/selection.md): the regret of every test instance, sorted, for the selector
# and for the SBS chosen on the training folds, under one evaluation protocol.
#
#   tools/plot-regret.sh DB OUT [within-maps|leave-map-out|leave-type-out] [select eval options...]
#
# Writes OUT.csv (`mapfarm select eval --regret-csv`: fold, map, type, chosen, best, sbs,
# regret, sbs_regret per instance) and OUT.png (gnuplot). Regret is in the objective's unit:
# completion-rate points by default. MAPFARM names the binary (default: the build or
# installation beside this script, else mapfarm on PATH).
set -euo pipefail
usage() { echo "usage: $0 DB OUT [within-maps|leave-map-out|leave-type-out] [select eval options...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
db=$1 out=$2
shift 2
protocol=within-maps
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then protocol=$1; shift; fi
. "$(dirname "$0")/find-mapfarm.sh"
find_mapfarm || exit 2
bin=$MAPFARM_BIN
command -v gnuplot >/dev/null || { echo "$0: error: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }

"$bin" select eval --db "$db" --protocol "$protocol" --regret-csv "$out.csv" "$@" >/dev/null
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# Two sorted columns, descending: the selector's regrets and the SBS's (the last two fields;
# map names are quoted and hold no comma).
tail -n +2 "$out.csv" | awk -F, '{ print $(NF-1) }' | sort -g -r >"$tmp.sel"
tail -n +2 "$out.csv" | awk -F, '{ print $NF }' | sort -g -r >"$tmp.sbs"
paste "$tmp.sel" "$tmp.sbs" >"$tmp"
rm -f "$tmp.sel" "$tmp.sbs"
gnuplot <<GP
set terminal pngcairo size 900,500 noenhanced
set output "$out.png"
set title "Per-instance regret, $protocol: $(basename "$db")"
set xlabel "Test instances, sorted by regret"
set ylabel "Regret (objective units; completion: points)"
set key top right
set grid
plot "$tmp" using 0:1 with lines lw 2 title "selector", \
     "$tmp" using 0:2 with lines lw 2 dt 2 title "best single algorithm (training folds)"
GP
echo "$out.png"
