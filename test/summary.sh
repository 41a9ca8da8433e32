#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The summary line of `make check`, from what test/runsuite.sh wrote.
#
#   sh test/summary.sh LABEL RESDIR...
#
# Reads every RESDIR/*.res and prints
#   LABEL: N checks in M suites passed, K skipped
# and exits 0, or, when a check failed,
#   LABEL: F of N checks failed, in S of M suites: NAME...
# and exits 1. No suite result at all is a failure too.

label=$1
shift
for d in "$@"; do
	ls "$d"/*.res 2>/dev/null
done | xargs cat 2>/dev/null | awk -v label="$label" '
	{ m++; p += $3; f += $4; s += $5; if ($4 > 0) { bad++; names = names " " $1 } }
	END {
		if (m == 0) { print label ": no suite ran"; exit 1 }
		if (f == 0) { printf "%s: %d checks in %d suites passed, %d skipped\n", label, p, m, s; exit 0 }
		printf "%s: %d of %d checks failed, in %d of %d suites:%s\n", label, f, p + f, bad, m, names
		exit 1
	}'
