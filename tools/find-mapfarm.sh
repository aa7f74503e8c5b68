# find-mapfarm.sh: sourced by the tools that run mapfarm; sets $MAPFARM_BIN to the binary.
#
# In order: $MAPFARM when set (an absolute path, or a name on PATH); the binary that goes with
# these tools (TOOLS/../build/mapfarm in a source tree, PREFIX/bin/mapfarm when the
# tools are installed in PREFIX/share/mapfarm/tools); `mapfarm` on PATH. Prints why and
# returns 1 when none is found.
#
#   . "$(dirname -- "${BASH_SOURCE[0]}")/find-mapfarm.sh" && find_mapfarm || exit 2

find_mapfarm() {
  local here
  here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd) # the tools directory
  if [ -n "${MAPFARM:-}" ]; then
    if [[ "$MAPFARM" == */* ]]; then
      [ -x "$MAPFARM" ] || { echo "MAPFARM=$MAPFARM: not an executable" >&2; return 1; }
      MAPFARM_BIN=$MAPFARM
    else
      MAPFARM_BIN=$(command -v -- "$MAPFARM") ||
        { echo "MAPFARM=$MAPFARM: not found on PATH" >&2; return 1; }
    fi
    return 0
  fi
  local c
  for c in "$here/../build/mapfarm" "$here/../../../bin/mapfarm"; do
    if [ -f "$c" ] && [ -x "$c" ]; then
      MAPFARM_BIN=$(cd -- "$(dirname -- "$c")" && pwd)/mapfarm
      return 0
    fi
  done
  MAPFARM_BIN=$(command -v mapfarm) && return 0
  echo "mapfarm not found: not in $here/../build (run make), not installed beside this script," \
    "not on PATH; set MAPFARM=/path/to/mapfarm" >&2
  return 1
}
