#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs one suite of `make check` and says in one line how it went.
#
#   sh test/runsuite.sh NAME RESDIR CMD [ARG...]
#
# CMD's output (stdout and stderr) goes to RESDIR/NAME.log (NAME's slashes
# as '-'); its checks are counted from the lines the suites print:
# "ok ...", "FAIL ...", "skip ..." (test/lib.sh, test/fuzz/replay.sh), and
# Check's "N%: Checks: C, Failures: F, Errors: E" (the unit tests). A suite
# that exits non-zero without a FAIL line counts one failure (it could not
# run). Writes RESDIR/NAME.res, one line "NAME STATUS PASSED FAILED SKIPPED
# SECONDS", for test/summary.sh, and prints
#   ok    NAME    C checks   S s
# or, when something failed, "FAIL NAME: F of C checks failed", the failing
# checks (each FAIL line with the indented lines under it: a unit's commands
# and output; Check's FILE:LINE:F: lines), and where the whole log is. Always exits 0: the summary
# decides, after every suite ran.

name=$1
resdir=$2
shift 2
base=$(echo "$name" | tr '/' '-')
log=$resdir/$base.log
mkdir -p "$resdir" || exit 2
t0=$(date +%s)
"$@" </dev/null >"$log" 2>&1
rc=$?
t1=$(date +%s)
# passed failed skipped, from the log
set -- $(awk '
	/^ok / { p++ }
	/^FAIL / { f++ }
	/^skip / { s++ }
	/^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
		gsub(/,/, ""); c = $3; ff = $5 + $7; p += c - ff; f += ff
	}
	END { print p + 0, f + 0, s + 0 }' "$log")
npass=$1 nfail=$2 nskip=$3
if [ "$rc" -ne 0 ] && [ "$nfail" -eq 0 ]; then
	nfail=1
	echo "FAIL $name: exited with status $rc ($( [ "$rc" -eq 2 ] && echo 'it cannot run: see the log' || echo 'see the log'))" >>"$log"
fi
echo "$name $rc $npass $nfail $nskip $((t1 - t0))" >"$resdir/$base.res"
total=$((npass + nfail))
if [ "$nfail" -eq 0 ]; then
	printf '  ok    %-28s %6d checks %5d s%s\n' "$name" "$total" "$((t1 - t0))" \
		"$([ "$nskip" -gt 0 ] && echo ", $nskip skipped")"
else
	# one write, so that suites run in parallel do not mix their lines:
	# each FAIL line with the indented lines that follow it
	msg=$(
		printf '  FAIL  %s: %d of %d checks failed\n' "$name" "$nfail" "$total"
		awk '/^FAIL / { on = 1; print "    " $0; next } on && /^[ \t]/ { print "    " $0; next } { on = 0 }
		     /^[^ ]+:[0-9]+:[FE]:/ { print "    " $0 }' "$log" |
			head -n 60
		echo "    (the whole output: $log)"
	)
	printf '%s\n' "$msg"
fi
exit 0
