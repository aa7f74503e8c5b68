#!/bin/sh
# A solver that fails, for tests/test_external.c: a message on stderr, exit status 3.
echo "fail: cannot read the map" >&2
exit 3
