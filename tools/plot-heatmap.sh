#!/usr/bin/env bash
# plot-heatmap.sh: a metric over two dimensions as a heat map with the value in every cell
# (Sigurdson et al. 2018's parameter study: completion rate or travel distance over expansions x
# vision).
#
#   tools/plot-heatmap.sh DB OUT REPORT ROWS COLS [--mark COL,ROW] [REPORT OPTIONS...]
#
# ROWS and COLS are `mapfarm report` dimensions (agents, map, label, param:NAME, ...). Writes
# OUT.csv (`mapfarm report DB REPORT --rows ROWS --cols COLS --format csv`) and OUT.png; the
# Overall row and column are left out of the picture. --mark frames one cell, named by its
# column and row headers as the CSV prints them (e.g. --mark 32,sqrt(2) for the
# paper's choice). MAPFARM names the binary (default: the build or installation beside this script, else mapfarm on PATH).
#
#   tools/plot-heatmap.sh sweep.db rate completion-rate param:vision param:expansions \
#       --mark 32,sqrt(2) --where "agents = 400"
set -euo pipefail
usage() { echo "usage: $0 DB OUT REPORT ROWS COLS [--mark COL,ROW] [report options...]" >&2; exit 2; }
[ $# -ge 5 ] || usage
db=$1 out=$2 report=$3 rows=$4 cols=$5
shift 5
mark=
if [ $# -ge 2 ] && [ "$1" = --mark ]; then mark=$2; shift 2; fi
. "$(dirname "$0")/find-mapfarm.sh"
find_mapfarm || exit 2
bin=$MAPFARM_BIN
command -v gnuplot >/dev/null || { echo "$0: error: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }

"$bin" report --db "$db" "$report" --rows "$rows" --cols "$cols" --format csv "$@" >"$out.csv"
case $report in
  completion-rate) title='Completion rate (%)' palette='defined (0 "#b2182b", 50 "#fddbc7", 100 "#2166ac")' ;;
  completion-time) title='Completion time (steps)' palette='defined (0 "#2166ac", 1 "#f7f7f7", 2 "#b2182b")' ;;
  *) title='Travel distance' palette='defined (0 "#2166ac", 1 "#f7f7f7", 2 "#b2182b")' ;;
esac
# The title names the selection too: the database and the --where condition, if any.
where=""
prev=""
for a in "$@"; do
  case $a in --where=*) where=${a#--where=} ;; esac
  [ "$prev" = "--where" ] && where=$a
  prev=$a
done
title="$title by ${rows#param:} and ${cols#param:}: $(basename "$db")${where:+, $where}"
title=${title//\'/\'\'}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# Drop the Overall row and the Overall column (the last field; dimension values hold no commas).
grep -v '^Overall,' "$out.csv" | sed 's/,[^,]*$//' >"$tmp"
nc=$(($(head -n 1 "$tmp" | awk -F, '{ print NF }') - 1))
nr=$(($(wc -l <"$tmp") - 1))
[ "$nc" -ge 1 ] && [ "$nr" -ge 1 ] || { echo "$0: error: the table is empty" >&2; exit 1; }
box=
if [ -n "$mark" ]; then
  ci=$(head -n 1 "$tmp" | awk -F, -v v="${mark%%,*}" '{ for (i = 2; i <= NF; i++) if ($i == v) print i - 2 }')
  ri=$(awk -F, -v v="${mark#*,}" 'NR > 1 && $1 == v { print NR - 2 }' "$tmp")
  [ -n "$ci" ] && [ -n "$ri" ] || { echo "$0: error: --mark $mark: no such cell (columns: $(head -n 1 "$tmp" | cut -d, -f2-); rows: $(tail -n +2 "$tmp" | cut -d, -f1 | paste -sd' '))" >&2; exit 1; }
  box="set object 1 rectangle from $ci-0.5,$ri-0.5 to $ci+0.5,$ri+0.5 front fillstyle empty border lc rgb 'black' lw 3"
fi
gnuplot <<GP
set datafile separator ','
set terminal pngcairo size $((160 + 90 * nc)),$((140 + 60 * nr)) font ',11'
set output '$out.png'
set title '$title' noenhanced
set xlabel '${cols#param:}'
set ylabel '${rows#param:}'
set palette $palette
set xrange [-0.5:$nc-0.5]
set yrange [-0.5:$nr-0.5]
unset key
$box
plot '$tmp' matrix rowheaders columnheaders using 1:2:3 with image, \
     '' matrix rowheaders columnheaders using 1:2:(sprintf('%.0f', \$3)) with labels
GP
echo "wrote $out.csv and $out.png"
