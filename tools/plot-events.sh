#!/usr/bin/env bash
# plot-events.sh: the figures of docs/events.md from a results database.
#
#   tools/plot-events.sh DB OUT retask       # search after a re-tasking event, per label,
#                                            # against agents (log scale), one line per rate
#   tools/plot-events.sh DB OUT doors        # search in the step after a map change, per
#                                            # label, against agents, one panel per rate
#   tools/plot-events.sh DB OUT throughput   # lifelong throughput per label against agents,
#                                            # one panel per map
#
# Writes OUT.csv (the plotted means, from SQL on DB) and OUT.png (gnuplot).
set -euo pipefail
usage() { echo "usage: $0 DB OUT retask|doors|throughput" >&2; exit 2; }
[ $# -eq 3 ] || usage
db=$1 out=$2 kind=$3
command -v sqlite3 >/dev/null || { echo "$0: error: needs the sqlite3 shell" >&2; exit 1; }
command -v gnuplot >/dev/null ||
  { echo "$0: error: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }
case $kind in
retask)
  # One series per (label, events): mean over jobs of mean_retask_expansions.
  sql="SELECT label || ' (' || replace(events, 'retask ', '') || ')' AS series,
    'search after a re-tasking event' AS panel, agents, avg(mean_retask_expansions) AS value
    FROM results
    WHERE events IS NOT NULL AND mean_retask_expansions IS NOT NULL
    GROUP BY label, events, agents ORDER BY events, label, agents"
  ylabel='expansions after an event until the agent moved (mean)'
  logscale='set logscale y'
  ;;
doors)
  # One series per label, one panel per door setting: mean over jobs of mean_change_expansions.
  sql="SELECT label AS series, replace(events, 'doors ', 'doors: ') AS panel, agents,
    avg(mean_change_expansions) AS value
    FROM results
    WHERE events LIKE 'doors %' AND mean_change_expansions IS NOT NULL
    GROUP BY label, events, agents ORDER BY events, label, agents"
  ylabel='expansions of the step after a map change (mean)'
  logscale='set logscale y'
  ;;
throughput)
  sql="SELECT label AS series, map AS panel, agents, avg(throughput) AS value
    FROM results WHERE lifelong = 1 GROUP BY label, map, agents ORDER BY map, label, agents"
  ylabel='throughput (tasks finished per step, mean)'
  logscale='unset logscale y'
  ;;
*) usage ;;
esac
sqlite3 -csv -header "file:$db?mode=ro" "$sql" >"$out.csv"
[ "$(wc -l <"$out.csv")" -gt 1 ] || { echo "$0: error: $db has no rows for $kind" >&2; exit 1; }
# gnuplot reads one block per series: blank-line separated, the series name first (read with
# '|' between fields: a series name may hold commas). One file per panel: the retask figure has
# one panel; the throughput figure one per map (the panel is the field after the series).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sqlite3 -separator '|' "file:$db?mode=ro" "$sql" | awk -F'|' -v dir="$tmp" '{
    p = $2
    if (!(p in num)) { num[p] = ++np; print np "|" p > (dir "/panels") }
    f = dir "/panel-" num[p]
    if ($1 != prev[p]) { if (prev[p] != "") printf "\n\n" >> f; printf "\"%s\"\n", $1 >> f
                         prev[p] = $1 }
    print $3, $4 >> f }'
npanels=$(wc -l <"$tmp/panels")
cols=$((npanels > 1 ? 2 : 1))
rows=$(((npanels + cols - 1) / cols))
{
  echo "set terminal pngcairo size $((cols * 620)),$((rows * 420)) font ',10'"
  echo "set output '$out.png'"
  echo "set multiplot layout $rows,$cols"
  echo "set key top left font ',8' noenhanced"
  echo "set xlabel 'agents'; set ylabel \"$ylabel\" font ',9'"
  echo "$logscale; set logscale x; set grid"
  while IFS='|' read -r k panel; do
    f="$tmp/panel-$k"
    n=$(grep -c '^"' "$f")
    echo "set title '$panel' noenhanced"
    echo "plot for [i=0:$((n - 1))] '$f' index i using 1:2 with linespoints title columnheader(1)"
  done <"$tmp/panels"
  echo "unset multiplot"
} | gnuplot
echo "$out.png"
