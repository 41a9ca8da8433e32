#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# runcase.sh CASE: one differential case. CASE/t/ovni is a trace as gen
# wrote it; ovniemu -l -b runs on an ovnisort'ed copy CASE/o (what its
# users do), weft emu -l -b on another copy CASE/in, written into CASE/w;
# when both accept, every .prv either wrote is compared (CASE/diff.txt).
# Prints classify.sh's verdict line. Tools: WEFT, OVNI=PREFIX.
set -u
here=$(cd "$(dirname "$0")" && pwd)
c=$1
: "${OVNI:?OVNI=PREFIX}" "${WEFT:?WEFT=path of weft}"

# one line per differing file into $1/diff.txt: "FILE HOW DETAIL", HOW the
# first of steps (the values differ), order (same rows, other order),
# records (same step functions, other records); DETAIL the event types of
# the first differences, and for records their kinds: init0 (ovniemu's
# 0 at time 0 that weft lacks), ovniemu-zero (a 0 later, e.g. at a thread's
# start), weft-zero (a 0 weft writes and ovniemu not), else ovniemu-more or
# weft-more (repeated values one of them writes). A file both write
# without a record (a breakdown view in which no CPU changes) is the same.
compare() {
	c=$1
	: >"$c/diff.txt"
	for f in $( (cd "$c/o" && ls -- *.prv; cd "$c/w" && ls -- *.prv) 2>/dev/null | sort -u); do
		if [ ! -f "$c/o/$f" ] || [ ! -f "$c/w/$f" ]; then
			[ -f "$c/o/$f" ] && who=weft || who=ovniemu
			echo "$f missing in $who's output" >>"$c/diff.txt"
			continue
		fi
		for how in steps order records; do
			case $how in
			steps) opt="--rows ovni" ;;
			order) opt="--rows ovni --order" ;;
			records) opt="--rows ovni --records" ;;
			esac
			# shellcheck disable=SC2086
			if ! "$WEFT" diff $opt --max 50 "$c/o/$f" "$c/w/$f" >"$c/d-$f-$how.txt" 2>&1; then
				detail=$(awk -v how="$how" '
					/differences in/ { next }
					/^row [0-9]+: A has/ { next }
					{
						t = $0; sub(/.* type /, "", t); sub(/:.*/, "", t)
						kind = "type " t
						if (how == "records") {
							if ($0 ~ /A has 0 at 0,/) kind = "init0"
							else if ($0 ~ /A has 0 at [0-9]+,/) kind = "ovniemu-zero"
							else if ($0 ~ /B has 0 at [0-9]+ /) kind = "weft-zero"
							else if (match($0, /A has [0-9]+ records, B has [0-9]+/)) {
								split(substr($0, RSTART, RLENGTH), w, " ")
								kind = (w[3] + 0 > w[7] + 0) ? "ovniemu-more" : "weft-more"
							}
							kind = kind "(" t ")"
						}
						k[kind] = 1
					}
					END { for (x in k) print x }' "$c/d-$f-$how.txt" | sort | head -6 | tr '\n' ' ')
				echo "$f $how $detail" >>"$c/diff.txt"
				break
			fi
		done
	done
}

rm -rf "$c/o" "$c/in" "$c/w" "$c/diff.txt" "$c"/d-*.txt "$c/aside" "$c/aside.txt"
cp -R "$c/t/ovni" "$c/o"
cp -R "$c/t/ovni" "$c/in"
# ovnisort cannot sort a trace holding a stream with no event (it stops:
# "stream is inactive, cannot step"), where ovniemu only warns: those
# streams are set aside for the sort and put back for ovniemu, whose
# answer is then the one compared. Any other ovnisort failure stops ovni's
# users before ovniemu: its refusal is ovni's answer.
sort_aside() {
	: >"$c/aside.txt"
	(cd "$c/o" && find . -name stream.obs) | while read -r f; do
		[ "$(wc -c <"$c/o/$f")" -le 8 ] || continue
		d=$(dirname "$f")
		mkdir -p "$c/aside/$d"
		mv "$c/o/$d"/* "$c/aside/$d/"
		echo "$d" >>"$c/aside.txt"
	done
	"$OVNI/bin/ovnisort" "$c/o" >>"$c/sort.log" 2>&1
	r=$?
	while read -r d; do mv "$c/aside/$d"/* "$c/o/$d/"; done <"$c/aside.txt"
	rm -rf "$c/aside"
	return $r
}
if "$OVNI/bin/ovnisort" "$c/o" >"$c/sort.log" 2>&1 ||
	{ grep -q 'stream is inactive, cannot step' "$c/sort.log" && sort_aside; }; then
	"$OVNI/bin/ovniemu" -l -b "$c/o" >"$c/o.log" 2>&1
	echo $? >"$c/o.rc"
else
	sed -e 's/^ovnisort: ERROR: /ovniemu: ERROR: ovnisort: /' "$c/sort.log" >"$c/o.log"
	echo 1 >"$c/o.rc"
fi
"$WEFT" emu -l -b -j 1 -o "$c/w" "$c/in" >"$c/w.log" 2>&1
echo $? >"$c/w.rc"
[ "$(cat "$c/o.rc")" = 0 ] && [ "$(cat "$c/w.rc")" = 0 ] && compare "$c"
rm -rf "$c/in"
sh "$here/classify.sh" "$c"
