#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The differential generator's minimised disagreements, now fixed: each
# case of test/fixtures/diff/cases.tsv replays ovniemu 1.14.0's answer on
# a trace test/diff wrote through libovni (the README there).
#
#   WEFT=/abs/weft sh test/e2e/diffcases.sh [CASE...]
#
# A case's `want` is `agree` (ovniemu accepted: `weft emu -l -b` exits 0
# and `weft diff --records` finds no difference in any .prv ovniemu wrote,
# thread and cpu rows matched the ovni way, and weft writes the same .prv
# files; where ovniemu wrote a header alone, weft writes it alone too and
# warns) or
# `refuse` (ovniemu refused: weft exits 1 and names the event
# ovniemu panicked on, its MCV in ovniemu.log). Cases still open are not
# in cases.tsv (the README lists them).

. "$(dirname "$0")/../lib.sh"
need WEFT
fix=$top/test/fixtures/diff
[ -f "$fix/cases.tsv" ] || { echo "diffcases.sh: $fix/cases.tsv is missing" >&2; exit 2; }

# run_case CASE WANT: sets why ("" = ok)
run_case() {
	ref=$fix/$1
	out=$tmp/out
	rm -rf "$out" "$tmp/in"
	cp -R "$ref/trace" "$tmp/in"
	"$WEFT" emu -l -b -j 1 -o "$out" "$tmp/in" >"$tmp/stdout" 2>"$tmp/err" </dev/null
	rc=$?
	orc=$(cat "$ref/ovniemu/exit-status")
	case $2 in
	refuse)
		[ "$orc" != 0 ] || { why="ovniemu accepted this trace: want is agree"; return; }
		mcv=$(sed -n 's/.*panic:   mcv=//p' "$ref/ovniemu/ovniemu.log" | head -n 1)
		[ $rc = 1 ] || { why="weft emu exit status $rc, expected 1 (ovniemu refuses $mcv)"; return; }
		grep -q "^weft: error: .*: event $mcv at byte offset" "$tmp/err" ||
			why="weft refuses another event than ovniemu's $mcv: $(grep -m1 'error' "$tmp/err")"
		;;
	agree)
		[ "$orc" = 0 ] || { why="ovniemu refused this trace: want is refuse"; return; }
		[ $rc = 0 ] || { why="weft emu exit status $rc: $(head -n 1 "$tmp/err")"; return; }
		for p in "$ref"/ovniemu/*.prv; do
			b=$(basename "$p")
			rows=
			case $b in thread.prv | cpu.prv) rows="--rows ovni" ;; esac
			# a body without a record (Paraver cannot load it): weft
			# writes the header alone too, and says so on stderr
			if [ "$(sed 1d "$p" | wc -l)" = 0 ]; then
				{ [ -f "$out/$b" ] && [ "$(sed 1d "$out/$b" | wc -c)" = 0 ]; } ||
					why="$why$b: ovniemu wrote no record, weft a body: $(sed -n 2p "$out/$b"); "
				grep -q "^weft: warning: $out/$b: no CPU's value ever changed: its body is empty" "$tmp/err" ||
					why="$why$b: no warning of its empty body on stderr; "
				continue
			fi
			# shellcheck disable=SC2086
			"$WEFT" diff $rows --records --max 2 "$p" "$out/$b" >"$tmp/diff" 2>&1 ||
				why="$why$b: $(head -n 1 "$tmp/diff"); "
		done
		owant=$(cd "$ref/ovniemu" && ls -- *.prv | sort | tr '\n' ' ')
		got=$(cd "$out" && ls -- *.prv | sort | tr '\n' ' ')
		[ "$owant" = "$got" ] || why="${why}traces: weft wrote [$got], ovniemu [$owant]; "
		;;
	*) why="cases.tsv: want '$2': expected agree or refuse" ;;
	esac
}

awk -F'\t' 'NR > 1 { print $1 "\t" $2 }' "$fix/cases.tsv" >"$tmp/list"
while IFS="$(printf '\t')" read -r case want; do
	if [ $# -gt 0 ]; then
		sel=0
		for c in "$@"; do [ "$c" = "$case" ] && sel=1; done
		[ $sel = 1 ] || continue
	fi
	why=
	run_case "$case" "$want"
	result "$case ($want)" "$why"
done <"$tmp/list"
finish
