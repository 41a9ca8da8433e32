#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# campaign.sh [-m] [-k N] [-o OUT] FIRST COUNT: the differential campaign.
# For each seed FIRST .. FIRST+COUNT-1, gen writes a trace through libovni
# (-m: the seed's plan with one mutation, the mutation seed = the seed);
# ovniemu -l -b runs on an ovnisort'ed copy (what its users do), weft emu
# -l -b on the trace as written; when both accept, weft diff compares every
# .prv either wrote (thread, cpu, breakdowns), first as step functions per
# (row, type) (--rows ovni), then the row order (--order), then every record
# (--records). classify.sh names the verdict. OUT (default diff-out)
# gets results.txt ("SEED VERDICT CLASS" a line) and, for the first N
# (default 3) cases of each class, the case folder (plan.txt, traces,
# logs); the others are deleted. summary.sh OUT/results.txt counts them.
# Tools: GEN (default build/release/diff/gen: make diff-ovni builds it),
# WEFT (build/release/weft),
# OVNI=PREFIX (its bin/ovniemu and bin/ovnisort).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mut=0 keep=3 out=diff-out
while getopts mk:o: f; do
	case $f in
	m) mut=1 ;;
	k) keep=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: campaign.sh [-m] [-k N] [-o OUT] FIRST COUNT" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || { echo "usage: campaign.sh [-m] [-k N] [-o OUT] FIRST COUNT" >&2; exit 2; }
first=$1 count=$2
: "${OVNI:?OVNI=PREFIX of an ovni 1.14 installation}"
GEN=${GEN:-$here/../../build/release/diff/gen}
WEFT=${WEFT:-$here/../../build/release/weft}
for t in "$GEN" "$WEFT" "$OVNI/bin/ovniemu" "$OVNI/bin/ovnisort"; do
	[ -x "$t" ] || { echo "campaign.sh: $t: not an executable" >&2; exit 2; }
done
mkdir -p "$out/cases" || exit 1
res=$out/results.txt
: >"$res"
: >"$out/kept.txt"
# the cases run in memory when it can (tmpfs): ovniemu and weft write
# small files, whose syncs cost more than the emulation on a disk
work=$(mktemp -d "${DIFF_TMP:-/dev/shm}/weft-diff.XXXXXX" 2>/dev/null || mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

# one line per differing file into $1/diff.txt: "FILE HOW DETAIL", HOW the
# first of steps (the values differ), order (same rows, other order),
# records (same step functions, other records); DETAIL the event types of
# the first differences, and for records their kinds: init0 (ovniemu's
# 0 at time 0 that weft lacks), ovniemu-more or weft-more (repeated values
# one of them writes).
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

s=$first
end=$((first + count))
while [ "$s" -lt "$end" ]; do
	c=$work/$s
	rm -rf "$c" "$out/cases/$s"
	mkdir -p "$c"
	if [ "$mut" = 1 ]; then
		"$GEN" trace "$s" "$c/t" "$s" >"$c/gen.log" 2>&1
	else
		"$GEN" trace "$s" "$c/t" >"$c/gen.log" 2>&1
	fi
	if [ $? != 0 ]; then
		echo "$s gen-failed $(head -1 "$c/gen.log")" >>"$res"
		s=$((s + 1))
		continue
	fi
	cp -R "$c/t/ovni" "$c/o"
	cp -R "$c/t/ovni" "$c/in"
	"$OVNI/bin/ovnisort" "$c/o" >"$c/sort.log" 2>&1
	"$OVNI/bin/ovniemu" -l -b "$c/o" >"$c/o.log" 2>&1
	echo $? >"$c/o.rc"
	"$WEFT" emu -l -b -j 1 -o "$c/w" "$c/in" >"$c/w.log" 2>&1
	echo $? >"$c/w.rc"
	[ "$(cat "$c/o.rc")" = 0 ] && [ "$(cat "$c/w.rc")" = 0 ] && compare "$c"
	v=$(sh "$here/classify.sh" "$c")
	echo "$s $v" >>"$res"
	# keep the first $keep cases of each class
	n=$(grep -c -F -x -e "$(printf '%s' "$v")" "$out/kept.txt" 2>/dev/null)
	if [ "${v%% *}" != agree ] && [ "${n:-0}" -lt "$keep" ]; then
		printf '%s\n' "$v" >>"$out/kept.txt"
		rm -rf "$c/in"
		mv "$c" "$out/cases/$s"
	else
		rm -rf "$c"
	fi
	s=$((s + 1))
done
sh "$here/summary.sh" "$res"
