#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# weft against ovniemu 1.14.0 on the traces of ovni's own emulator tests.
#
#   WEFT=/abs/weft PRVDIFF=/abs/prvdiff sh test/e2e/models.sh [CASE...]
#
# Table-driven: test/fixtures/ovniemu/cases.tsv lists every case (its trace,
# ovniemu's flags, ok or fail) and status.tsv says what weft is held to:
#   pass  an ok case: `weft emu` with the mapped flags exits 0; prvdiff finds
#         no difference with ovniemu's thread.prv and cpu.prv on every event
#         type (rows matched the ovni way), nor between weft's thread state
#         records and ovniemu's type-4 events, and `weft diff --records` none
#         in any record (repeats and first zeros too: the same number of
#         records per row and type); `weft check` accepts both.
#         A fail case: `weft emu` exits 1 and its stderr matches the case's
#         regex (grep -E, weft's own words for ovniemu's cause).
#   todo  not held yet (the reason is printed); counted apart, never passed.
# A case with extra=breakdown has a second entry CASE+b: weft run with the
# breakdown flag, compared with breakdown/MODEL-breakdown.prv as well.
# A case of cases.tsv without a status line is a failure (keep the tables in
# step). With MODELS_ALL=1 the todo cases are run too and reported as
# "todo-ok" or "todo-FAIL" (still not counted), to see what could be flipped.
# Prints one line per case, then "todo N" and "N passed, M failed"; exits 1
# if a held case failed, 2 if it cannot run at all.

. "$(dirname "$0")/../lib.sh"
need WEFT PRVDIFF
fix=$top/test/fixtures/ovniemu
for f in cases.tsv status.tsv; do
	if [ ! -f "$fix/$f" ]; then
		echo "models.sh: $fix/$f is missing" >&2
		exit 2
	fi
done
ntodo=0

# weft's options for ovniemu's, or "?" when weft has none yet.
#   -l  lint at the end: same meaning in weft
#   -a  enable every model (weft emu -a, the same meaning)
#   -b  the breakdown traces (MODEL-breakdown.prv): the same meaning
map_flags() { # FLAGS
	_out=
	for _f in $1; do
		case $_f in
		-) ;;
		-l) _out="$_out -l" ;;
		-a) _out="$_out -a" ;;
		-b) _out="$_out -b" ;;
		*) echo "?$_f"; return ;;
		esac
	done
	echo "$_out"
}

# The trace weft reads: the fixture itself, or an unpacked copy when some
# stream is kept gzipped.
trace_of() { # CASE
	if [ -z "$(find "$fix/$1/trace" -name '*.gz' | head -n 1)" ]; then
		echo "$fix/$1/trace"
		return
	fi
	rm -rf "$tmp/trace"
	cp -R "$fix/$1/trace" "$tmp/trace" &&
		find "$tmp/trace" -name '*.gz' -exec gzip -d {} \; &&
		echo "$tmp/trace"
}

# ref_prv DIR NAME: ovniemu's DIR/NAME.prv or DIR/NAME.prv.gz.
ref_prv() {
	if [ -f "$1/$2.prv" ]; then echo "$1/$2.prv"; else echo "$1/$2.prv.gz"; fi
}

# run_case CASE: sets why ("" = ok) and info.
run_case() {
	c=${1%+b}
	line=$(awk -F'\t' -v c="$c" '$1 == c' "$fix/cases.tsv")
	if [ -z "$line" ]; then
		why="not in cases.tsv"
		return
	fi
	expect=$(echo "$line" | cut -f3)
	flags=$(echo "$line" | cut -f4)
	ref=$fix/$c
	if [ "$c" != "$1" ]; then
		flags="-b $flags"
	fi
	wflags=$(map_flags "$flags")
	case $wflags in
	\?*)
		why="ovniemu flag ${wflags#?} has no weft equivalent yet"
		return
		;;
	esac
	if ! trace=$(trace_of "$c"); then
		why="cannot unpack the trace"
		return
	fi
	out=$tmp/out
	rm -rf "$out"
	# shellcheck disable=SC2086
	"$WEFT" emu -q $wflags -o "$out" "$trace" >"$tmp/stdout" 2>"$tmp/err" </dev/null
	rc=$?
	if [ "$expect" = fail ]; then
		if [ $rc -ne 1 ]; then
			why="weft exit status $rc, ovniemu refuses: $(echo "$line" | cut -f7)"
		elif [ -z "$regex" ] || [ "$regex" = - ]; then
			why="exit 1 but no regex in status.tsv; weft said: $(head -n 1 "$tmp/err")"
		elif ! grep -Eq -- "$regex" "$tmp/err"; then
			why="exit 1 but stderr lacks /$regex/: $(head -n 1 "$tmp/err")"
		else
			info="refused: $(grep -E -m 1 -- "$regex" "$tmp/err")"
		fi
		return
	fi
	if [ $rc -ne 0 ]; then
		why="weft exit status $rc: $(head -n 1 "$tmp/err")"
		return
	fi
	ndiff=0
	for f in thread cpu; do
		st=
		[ $f = thread ] && st="--states --state-type 4"
		# shellcheck disable=SC2086
		"$PRVDIFF" --rows ovni $st --max 3 "$(ref_prv "$ref" $f)" "$out/$f.prv" >"$tmp/diff" 2>"$tmp/differr"
		drc=$?
		if [ $drc -eq 1 ]; then
			n=$(tail -n 1 "$tmp/diff" | cut -d' ' -f1)
			ndiff=$((ndiff + n))
			why="$why$f.prv: $n differences ($(head -n 1 "$tmp/diff")); "
		elif [ $drc -ne 0 ]; then
			why="$why$f.prv: prvdiff exit status $drc ($(head -n 1 "$tmp/differr")); "
		fi
		# the same records too: repeats and first zeros, as ovniemu writes them
		"$WEFT" diff --rows ovni --records --max 1 "$(ref_prv "$ref" $f)" "$out/$f.prv" >"$tmp/diff" 2>&1 ||
			why="$why$f.prv records: $(tail -n 1 "$tmp/diff") ($(head -n 1 "$tmp/diff")); "
	done
	case " $flags " in
	*" -b "*)
		# the breakdown traces ovniemu wrote, and no other
		bref=$ref
		[ "$c" != "$1" ] && bref=$ref/breakdown
		want=$(cd "$bref" && ls -- *-breakdown.prv *-breakdown.prv.gz 2>/dev/null | sed 's/\.gz$//' | sort | tr '\n' ' ')
		got=$(cd "$out" && ls -- *-breakdown.prv 2>/dev/null | sort | tr '\n' ' ')
		[ "$want" = "$got" ] || why="${why}breakdown traces: weft wrote [$got], ovniemu [$want]; "
		for p in "$bref"/*-breakdown.prv "$bref"/*-breakdown.prv.gz; do
			[ -f "$p" ] || continue
			b=$(basename "$p")
			b=${b%.gz}
			"$PRVDIFF" --max 3 "$p" "$out/$b" >"$tmp/diff" 2>"$tmp/differr"
			drc=$?
			if [ $drc -ne 0 ]; then
				why="$why$b: prvdiff exit status $drc ($(head -n 1 "$tmp/diff" "$tmp/differr" | grep -v '^==>' | head -n 1)); "
			fi
			"$WEFT" diff --records --max 1 "$p" "$out/$b" >"$tmp/diff" 2>&1 ||
				why="$why$b records: $(tail -n 1 "$tmp/diff") ($(head -n 1 "$tmp/diff")); "
		done
		;;
	esac
	# shellcheck disable=SC2046
	if ! "$WEFT" check -q "$out/thread.prv" "$out/cpu.prv" $(ls "$out"/*-breakdown.prv 2>/dev/null) >"$tmp/stdout" 2>"$tmp/err"; then
		why="${why}weft check rejects the output: $(head -n 1 "$tmp/err")"
	fi
	info="0 differences"
	[ -n "$why" ] && info="$ndiff differences"
}

# Every case, with CASE+b after those that have a breakdown run.
awk -F'\t' 'NR > 1 { print $1; if ($6 == "breakdown") print $1 "+b" }' "$fix/cases.tsv" >"$tmp/list"
if [ $# -gt 0 ]; then
	printf '%s\n' "$@" >"$tmp/list"
fi

while IFS= read -r case; do
	st=$(awk -F'\t' -v c="$case" '$1 == c' "$fix/status.tsv")
	status=$(echo "$st" | cut -f2)
	regex=$(echo "$st" | cut -f3)
	note=$(echo "$st" | cut -f4)
	why=
	info=
	case $status in
	pass)
		run_case "$case"
		result "$case${info:+ ($info)}" "$why"
		;;
	todo)
		ntodo=$((ntodo + 1))
		if [ "${MODELS_ALL:-0}" = 1 ]; then
			run_case "$case"
			if [ -z "$why" ]; then
				echo "todo-ok $case${info:+ ($info)} [todo: $note]"
			else
				echo "todo-FAIL $case: $why [todo: $note]"
			fi
		else
			echo "todo $case: $note"
		fi
		;;
	*)
		fail "$case" "no pass|todo line in status.tsv"
		;;
	esac
done <"$tmp/list"

echo "todo $ntodo"
finish
