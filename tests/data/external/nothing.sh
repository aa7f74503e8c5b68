#!/bin/sh
# A solver that exits 0 and writes no plan, for tests/test_external.c.
echo "nothing: forgot to write the plan" >&2
