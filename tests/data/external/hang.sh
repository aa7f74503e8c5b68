#!/bin/sh
# A solver that never ends, for tests/test_external.c: it starts a child of its own, writes
# both process ids to PIDFILE, and waits forever. Usage: hang.sh PIDFILE
sleep 1000 &
echo "$$ $!" > "$1.tmp" && mv "$1.tmp" "$1"
echo "hang: thinking forever" >&2
while :; do sleep 1; done
