#!/bin/sh
# A solver whose output is no plan, for tests/test_external.c. Usage: garbage.sh OUT
printf 'agents=3\nthis is not a plan\n' > "$1"
echo "garbage: wrote something odd" >&2
