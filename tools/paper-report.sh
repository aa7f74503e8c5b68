#!/usr/bin/env bash
# paper-report.sh: Tables I-III and Figure 2 of the BMAA* paper (Sigurdson et al. 2018) from a
# database of configs/bmaa-paper.yaml (or -small, with or without bmaa-paper-whca.yaml), into
# OUTDIR:
#
#   table1.md, table1.csv   completion rate (%), all instances
#   table2.md, table2.csv   completion time (steps; unfinished agents count as the step
#                           limit), instances with at most 200 agents, as the paper did
#   table3.md, table3.csv   travel distance, instances with at most 200 agents
#   table2s.md, table2s.csv completion time in wall-clock seconds (Table II's unit; depends on
#                           the machine), at most 200 agents
#   fig2.csv, fig2.png      completion rate against the number of agents (gnuplot)
#
#   tools/paper-report.sh DB OUTDIR
#
# MAPFARM names the binary (default: the build or installation beside this script, else
# mapfarm on PATH; tools/find-mapfarm.sh).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 DB OUTDIR" >&2; exit 2; }
db=$1 dir=$2
here=$(dirname "$0")
. "$here/find-mapfarm.sh"
find_mapfarm || exit 2
bin=$MAPFARM_BIN
mkdir -p "$dir"
table() { # NAME REPORT [OPTIONS...]
  local name=$1 report=$2
  shift 2
  "$bin" report --db "$db" "$report" --format md "$@" >"$dir/$name.md"
  "$bin" report --db "$db" "$report" --format csv "$@" >"$dir/$name.csv"
}
table table1 completion-rate
table table2 completion-time --max-agents 200
table table3 travel-distance --max-agents 200
table table2s completion-seconds --max-agents 200
MAPFARM=$bin "$here/plot-agents.sh" "$db" "$dir/fig2" completion-rate >/dev/null
echo "wrote $dir/table1.md, table2.md, table2s.md, table3.md (and .csv), fig2.csv, fig2.png"
