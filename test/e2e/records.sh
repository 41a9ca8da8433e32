#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# weft against ovniemu 1.14.0 record by record: repeated values (each
# channel's dup rule), the first values ovniemu writes (zeros included) and
# one value of a type per record line.
#
#   WEFT=/abs/weft sh test/e2e/records.sh [CASE...]
#
# Table-driven: test/fixtures/ovniemu-records/cases.tsv lists every case (a
# trace written through libovni, ovniemu's outputs of `ovniemu -l -b`; see
# the README there). Each case: `weft emu FLAGS` (with -j JOBS) exits 0;
# `weft diff --records` finds no difference with ovniemu's thread.prv,
# cpu.prv and breakdown traces (rows matched the ovni way): per row and
# type the same records, times and values, zeros and repeats included, so
# the same step function and the same number of records; and no record line
# weft writes names one event type twice.

. "$(dirname "$0")/../lib.sh"
need WEFT
fix=$top/test/fixtures/ovniemu-records
if [ ! -f "$fix/cases.tsv" ]; then
	echo "records.sh: $fix/cases.tsv is missing" >&2
	exit 2
fi

# the lines of .prv files whose event record names a type twice
repeated_types() { # FILE...
	awk '/^2:/ { n = split($0, a, ":"); delete seen
		for (i = 7; i < n; i += 2) { if (a[i] in seen) { print FILENAME ": " $0; break } seen[a[i]] = 1 } }' "$@"
}

# run_case CASE FLAGS JOBS: sets why ("" = ok)
run_case() {
	ref=$fix/$1
	out=$tmp/out
	rm -rf "$out"
	# shellcheck disable=SC2086
	if ! "$WEFT" emu -q $2 -j "$3" -o "$out" "$ref/trace" >"$tmp/stdout" 2>"$tmp/err" </dev/null; then
		why="weft emu exit status $?: $(head -n 1 "$tmp/err")"
		return
	fi
	for p in "$ref"/*.prv; do
		b=$(basename "$p")
		rows=
		case $b in thread.prv | cpu.prv) rows="--rows ovni" ;; esac
		# shellcheck disable=SC2086
		"$WEFT" diff $rows --records --max 2 "$p" "$out/$b" >"$tmp/diff" 2>&1
		drc=$?
		[ $drc -eq 0 ] || why="$why$b: $(tail -n 1 "$tmp/diff") ($(head -n 1 "$tmp/diff"), weft diff exit $drc); "
	done
	want=$(cd "$ref" && ls -- *.prv | sort | tr '\n' ' ')
	got=$(cd "$out" && ls -- *.prv | sort | tr '\n' ' ')
	[ "$want" = "$got" ] || why="${why}traces: weft wrote [$got], ovniemu [$want]; "
	rep=$(repeated_types "$out"/*.prv | head -n 1)
	[ -z "$rep" ] || why="${why}a record names a type twice: $rep; "
}

awk -F'\t' 'NR > 1 { print $1 "\t" $3 "\t" $4 }' "$fix/cases.tsv" >"$tmp/list"
while IFS="$(printf '\t')" read -r case flags jobs; do
	if [ $# -gt 0 ]; then
		sel=0
		for c in "$@"; do [ "$c" = "$case" ] && sel=1; done
		[ $sel = 1 ] || continue
	fi
	why=
	run_case "$case" "$flags" "$jobs"
	result "$case (-j $jobs)" "$why"
done <"$tmp/list"

# the check itself: ovniemu's outputs hold no such line, and a line that
# does is found
expect "ovniemu writes one value of a type a record" "$(repeated_types "$fix"/*/*.prv | wc -l)" 0
printf '2:0:1:1:1:5:100:0:100:2\n' >"$tmp/rep.prv"
expect "a record with a type twice is found" "$(repeated_types "$tmp/rep.prv" | wc -l)" 1
finish
