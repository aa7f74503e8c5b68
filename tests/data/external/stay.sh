#!/bin/sh
# A legal solver for tests/test_external.c: every agent stays on its start (the plan of one
# line), after filling its stderr far beyond a pipe's buffer, which mapfarm must drain while
# it runs. Usage: stay.sh SCEN OUT
i=0
while [ $i -lt 2000 ]; do
  echo "stay: a long line of progress to fill the pipe's buffer, number $i of 2000" >&2
  i=$((i + 1))
done
awk -F'\t' 'BEGIN { n = 0 } NR > 1 { x[n] = $5; y[n] = $6; n++ }
  END {
    print "comp_time=12.5"
    print "solution="
    printf "0:"; for (i = 0; i < n; i++) printf "(%d,%d),", x[i], y[i]; print ""
  }' "$1" > "$2"
