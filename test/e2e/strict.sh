#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# weft accepts what ovniemu 1.14.0 accepts and refuses what it refuses
# (issue 23, classes 3-5): lints ovniemu has not, payload sizes, bursts,
# unordered regions, the clock gate, clock-offset medians, unknown events.
#
#   WEFT=/abs/weft sh test/e2e/strict.sh
#
# Table-driven from test/fixtures/strict/cases.tsv (README.md there): one
# line per check, the trace in CASE/trace, ovniemu's outputs (ovniemu -l -b,
# after ovnisort for the unordered cases) or its error in CASE/ovniemu.log.
#   ok    weft emu FLAGS exits 0, `weft diff` finds no difference with
#         ovniemu's thread.prv (states against its type 4) and cpu.prv (and
#         its breakdown trace, when it wrote one); stderr matches the regex
#         (a warning), unless it is "-"
#   ok-k  weft emu FLAGS (with -k) exits 0 and stderr matches the regex
#   strict  weft emu FLAGS (with --strict: weft's own checks) exits 1 and
#         stderr matches the regex
#   fail  ovniemu refused it (its log says so) and weft emu FLAGS exits 1
#         with stderr matching the regex (the stream, the offset, the MCV,
#         the cause)
# Prints one line per check, then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
fix=$top/test/fixtures/strict
fail_show=$tmp/err

check_case() { # CASE EXPECT FLAGS REGEX
	c=$1 expect=$2 flags=$3 regex=$4
	ref=$fix/$c
	out=$tmp/out
	rm -rf "$out"
	# shellcheck disable=SC2086
	"$WEFT" emu $flags -o "$out" "$ref/trace" >"$tmp/stdout" 2>"$tmp/err" </dev/null
	rc=$?
	why=
	case $expect in
	fail)
		grep -q '^rc 1$' "$ref/ovniemu.log" || why="ovniemu's log does not say it refused the trace; "
		[ $rc -eq 1 ] || why="${why}weft exit status $rc, expected 1; "
		;;
	ok-k)
		[ $rc -eq 0 ] || why="weft exit status $rc, expected 0; "
		;;
	strict)
		[ $rc -eq 1 ] || why="weft exit status $rc, expected 1; "
		;;
	ok)
		grep -q '^rc 0$' "$ref/ovniemu.log" || why="ovniemu's log does not say it accepted the trace; "
		if [ $rc -ne 0 ]; then
			why="${why}weft exit status $rc, expected 0"
		else
			"$WEFT" diff --rows ovni --states --state-type 4 "$ref/thread.prv" "$out/thread.prv" >"$tmp/diff" 2>&1 ||
				why="${why}thread.prv: $(head -n 1 "$tmp/diff"); "
			"$WEFT" diff --rows ovni "$ref/cpu.prv" "$out/cpu.prv" >"$tmp/diff" 2>&1 ||
				why="${why}cpu.prv: $(head -n 1 "$tmp/diff"); "
			for b in "$ref"/*-breakdown.prv; do
				[ -f "$b" ] || continue
				n=$(basename "$b")
				if [ ! -f "$out/$n" ]; then
					why="${why}no $n written; "
				elif ! "$WEFT" diff "$b" "$out/$n" >"$tmp/diff" 2>&1; then
					why="${why}$n: $(head -n 1 "$tmp/diff"); "
				fi
			done
		fi
		;;
	esac
	if [ "$regex" != - ] && ! grep -Eq -- "$regex" "$tmp/err"; then
		why="${why}stderr lacks /$regex/"
	fi
	result "$c ($expect, weft emu $flags)" "$why"
}

tab=$(printf '\t')
while IFS=$tab read -r c expect flags regex what; do
	[ "$c" = case ] && continue
	check_case "$c" "$expect" "$flags" "$regex"
done <"$fix/cases.tsv"

# every case folder is in the table (a fixture nobody checks is a defect)
for d in "$fix"/*/; do
	n=$(basename "$d")
	grep -q "^$n$tab" "$fix/cases.tsv" || fail "$n" "folder without a line in cases.tsv"
done
finish
