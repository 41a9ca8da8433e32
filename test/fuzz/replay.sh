#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Replay the saved fuzz corpus as a regression test, no libFuzzer needed.
#
#   BUILD=build sh test/fuzz/replay.sh fuzz_obs fuzz_meta
#
# For each TARGET, runs $BUILD/fuzz_replay_TARGET over every file of
# test/fuzz/corpus/TARGET/ (seeds plus inputs that once crashed). A crash,
# a sanitizer report or any non-zero exit fails the target. Prints
# "ok TARGET (N inputs)" or "FAIL TARGET ..." per target and exits 1 if any
# target failed. Run from the repository root (the Makefile does).

BUILD=${BUILD:-build}
here=$(dirname "$0")

if [ $# -eq 0 ]; then
	echo "usage: BUILD=DIR sh $0 TARGET..." >&2
	exit 2
fi

failed=0
for t in "$@"; do
	bin=$BUILD/fuzz_replay_$t
	corpus=$here/corpus/$t
	if [ ! -x "$bin" ]; then
		echo "FAIL $t: $bin is missing (make $bin)"
		failed=1
		continue
	fi
	if [ ! -d "$corpus" ]; then
		echo "FAIL $t: no corpus directory $corpus"
		failed=1
		continue
	fi
	out=$("$bin" "$corpus" 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$out" | tail -n 40
		echo "FAIL $t: $bin exited with status $rc"
		failed=1
		continue
	fi
	n=$(echo "$out" | sed -n 's/.*replayed \([0-9][0-9]*\) inputs.*/\1/p' | tail -n 1)
	if [ -z "$n" ] || [ "$n" -eq 0 ]; then
		echo "$out" | tail -n 40
		echo "FAIL $t: no input replayed from $corpus"
		failed=1
		continue
	fi
	echo "ok $t ($n inputs)"
done
exit $failed
