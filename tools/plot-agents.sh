#!/usr/bin/env bash
# plot-agents.sh: a metric against the number of agents, one line per label (Sigurdson et al. 2018,
# Fig. 2: completion rate of every algorithm averaged over all instances of all maps).
#
#   tools/plot-agents.sh DB OUT [REPORT] [REPORT OPTIONS...]
#
# Writes OUT.csv (the table of `mapfarm report DB REPORT --rows agents --format csv`, Overall
# row and column included) and OUT.png (gnuplot; the Overall row and column are not drawn).
# REPORT is completion-rate (default), completion-time or travel-distance; further options go
# to `mapfarm report`, e.g. --where "map = 'dao/lak307d.map'". MAPFARM names the binary
# (default: the build or installation beside this script, else mapfarm on PATH).
set -euo pipefail
usage() { echo "usage: $0 DB OUT [completion-rate|completion-time|travel-distance] [report options...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
db=$1 out=$2
shift 2
report=completion-rate
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then report=$1; shift; fi
. "$(dirname "$0")/find-mapfarm.sh"
find_mapfarm || exit 2
bin=$MAPFARM_BIN
command -v gnuplot >/dev/null || { echo "$0: error: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }

"$bin" report --db "$db" "$report" --rows agents --format csv "$@" >"$out.csv"
case $report in
  completion-rate) ylabel='Completion rate (%)' yrange='[0:105]' ;; # a line at 100% stays visible
  completion-time) ylabel='Completion time (steps)' yrange='[0:*]' ;;
  *) ylabel='Travel distance' yrange='[0:*]' ;;
esac
# Columns of the header line, counting commas outside quotes (labels may hold commas).
ncols=$(head -n 1 "$out.csv" | awk '{ n = 1; q = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1); if (c == "\"") q = !q; else if (c == "," && !q) n++ } print n }')
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
grep -v '^Overall,' "$out.csv" >"$tmp"
# The title names what was plotted: the database, the --where selection if any, and the agents.
where=""
prev=""
for a in "$@"; do
  case $a in --where=*) where=${a#--where=} ;; esac
  [ "$prev" = "--where" ] && where=$a
  prev=$a
done
agents=$(tail -n +2 "$tmp" | cut -d, -f1 | sort -n | sed -n '1p;$p' | paste -sd- -)
title="$ylabel against agents ($agents): $(basename "$db")${where:+, $where}"
title=${title//\'/\'\'}
gnuplot <<GP
set datafile separator ','
set datafile missing ''
set terminal pngcairo size 960,600 font ',11'
set output '$out.png'
set title '$title' noenhanced
set key outside right top
set grid
set xlabel 'Number of agents'
set ylabel '$ylabel'
set yrange $yrange
plot for [i=2:$((ncols - 1))] '$tmp' using 1:i with linespoints pointsize 0.8 title columnheader(i)
GP
echo "wrote $out.csv and $out.png"
