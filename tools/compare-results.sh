#!/usr/bin/env bash
# compare-results.sh: whether two results databases hold the same jobs with the same results:
# the same job keys, and job by job the same value in every column that does not measure time
# (of results, agent_results and coherence_series), over the columns both files have (so a file
# of an older schema version compares on what it has). For a change that must leave results as
# they were (a refactoring, a speed-up): run a plan into a database with the build before and
# with the build after, then
#
#   tools/compare-results.sh before.db after.db
#
# Prints the counts and the first differences; exit status 0 when everything agrees, 1 when
# something differs, 2 on bad usage. Needs the sqlite3 shell (make deps).
set -euo pipefail
if [ $# -ne 2 ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
for f in "$1" "$2"; do
  [ -f "$f" ] || { echo "compare-results.sh: $f: no such file" >&2; exit 2; }
done
command -v sqlite3 >/dev/null || { echo "compare-results.sh: needs the sqlite3 shell" >&2; exit 2; }

# Columns that measure time or are local to a file: never compared.
skip="'id','run_id','result_id','wall_seconds','planning_seconds','max_step_planning_seconds',\
'setup_seconds','solver_seconds','mean_completion_seconds','mean_completion_seconds_capped',\
'max_event_step_seconds',\
'completion_seconds','finished_at'"
sql() { sqlite3 -readonly -batch -noheader "file:$1?mode=ro" "$2"; }
attach="attach 'file:$1?mode=ro' as a; attach 'file:$2?mode=ro' as b;"

# The columns of table T in both files, less the skipped ones.
common() {
  sqlite3 -batch -noheader :memory: "$attach
    select group_concat(name, ' ') from (select name from a.pragma_table_info('$1')
      where name not in ($skip) intersect select name from b.pragma_table_info('$1'));"
}

status=0
ka=$(sql "$1" "select count(*) from results")
kb=$(sql "$2" "select count(*) from results")
only_a=$(sqlite3 -batch -noheader :memory: "$attach
  select count(*) from a.results where job_key not in (select job_key from b.results);")
only_b=$(sqlite3 -batch -noheader :memory: "$attach
  select count(*) from b.results where job_key not in (select job_key from a.results);")
echo "jobs: $ka and $kb; only in the first: $only_a; only in the second: $only_b"
[ "$only_a" = 0 ] && [ "$only_b" = 0 ] || status=1

# compare TABLE KEYCOLS JOIN: rows of jobs in both files that differ in a compared column.
compare() {
  local table=$1 keys=$2 from=$3 cols diff
  cols=$(common "$table")
  [ -n "$cols" ] || return 0
  local cond=""
  for c in $cols; do cond="$cond${cond:+ or }x.$c is not y.$c"; done
  diff=$(sqlite3 -batch -noheader :memory: "$attach select count(*) $from where $cond;")
  echo "$table: $(sqlite3 -batch -noheader :memory: "$attach select count(*) $from;") rows of \
common jobs compared on $(wc -w <<<"$cols") columns; differing: $diff"
  if [ "$diff" != 0 ]; then
    status=1
    for c in $cols; do
      sqlite3 -batch -noheader :memory: "$attach select '  $c: ' || $keys || ': ' ||
        quote(x.$c) || ' vs ' || quote(y.$c) $from where x.$c is not y.$c limit 3;"
    done | head -20
  fi
}
compare results "x.job_key" "from a.results x join b.results y using (job_key)"
compare agent_results "ra.job_key || ' agent ' || x.agent" \
  "from a.agent_results x join a.results ra on ra.id = x.result_id join b.results rb
   on rb.job_key = ra.job_key join b.agent_results y on y.result_id = rb.id and y.agent = x.agent"
if [ -n "$(common coherence_series)" ]; then
  compare coherence_series "ra.job_key || ' step ' || x.step" \
    "from a.coherence_series x join a.results ra on ra.id = x.result_id join b.results rb
     on rb.job_key = ra.job_key join b.coherence_series y on y.result_id = rb.id and
     y.step = x.step"
fi
[ "$status" = 0 ] && echo "same results" || echo "results differ"
exit "$status"
