#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# minimise.sh [-c CLASS] CASE OUT: the smallest plan found that keeps a
# case's verdict class. CASE holds t/plan.txt (campaign.sh's kept cases);
# OUT gets plan.txt, the case run on it (t/, o/, w/, logs) and verdict.txt.
# Delta debugging (complements of n chunks, n doubled when none keeps the
# class) over processes, then threads, then event groups (the events of one
# frame, task, pause... that the planner tagged @G), then single events. A candidate
# keeps the class when its verdict (runcase.sh) has the same first word and
# contains CLASS; the default CLASS is the case's whole class for a
# refusal, its first "; "-separated part for a difference.
# Tools: GEN, WEFT, OVNI=PREFIX as for campaign.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
class=
while getopts c: f; do
	case $f in
	c) class=$OPTARG ;;
	*) echo "usage: minimise.sh [-c CLASS] CASE OUT" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || { echo "usage: minimise.sh [-c CLASS] CASE OUT" >&2; exit 2; }
case_dir=$1 out=$2
: "${OVNI:?OVNI=PREFIX}"
GEN=${GEN:-$here/../../build/release/diff/gen}
WEFT=${WEFT:-$here/../../build/release/weft}
export OVNI WEFT
mkdir -p "$out" || exit 1
work=$(mktemp -d "${DIFF_TMP:-/dev/shm}/weft-min.XXXXXX" 2>/dev/null || mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

# verdict of a plan file
verdict() {
	rm -rf "$work/c"
	mkdir -p "$work/c"
	"$GEN" write "$work/c/t" "$1" >"$work/c/gen.log" 2>&1 || { echo "gen-failed -"; return; }
	sh "$here/runcase.sh" "$work/c"
}

grep -v '^#' "$case_dir/t/plan.txt" >"$work/cur.txt"
v0=$(verdict "$work/cur.txt")
word=${v0%% *}
rest=${v0#* }
if [ -z "$class" ]; then
	if [ "$word" = differ ]; then class=${rest%%; *}; else class=$rest; fi
fi
echo "minimise: $(grep -c '^[EJ]' "$work/cur.txt") events, verdict $word, class: $class"
tests=0

keeps() {
	tests=$((tests + 1))
	v=$(verdict "$1")
	[ "${v%% *}" = "$word" ] || return 1
	case $v in *"$class"*) return 0 ;; esac
	return 1
}

# units.txt: one unit id a line of cur.txt (0: always kept)
units() {
	awk -v phase="$1" '
		/^P / { p++; t = 0 }
		/^T / { t++ }
		{
			g = ""
			if (/^[EJ] .* @[0-9]+$/) { g = $NF }
			if (phase == "P") u = p ? "p" p : 0
			else if (phase == "T") u = (/^P / || !t) ? 0 : "t" p "." t
			else if (phase == "G") u = g != "" ? "g" p "." t g : (/^[EJ] / ? "e" NR : 0)
			else u = /^[EJ] / ? "e" NR : 0
			print u
		}' "$work/cur.txt" >"$work/units.txt"
	grep -v '^0$' "$work/units.txt" | uniq >"$work/ids.txt"
}

# candidate.txt: cur.txt without the units listed in drop.txt
candidate() {
	awk 'NR == FNR { drop[$1] = 1; next }
	     FILENAME == ARGV[2] { u[FNR] = $1; next }
	     !(u[FNR] in drop)' "$work/drop.txt" "$work/units.txt" "$work/cur.txt" >"$work/cand.txt"
}

for phase in P T G E; do
	units "$phase"
	n=2
	while :; do
		total=$(wc -l <"$work/ids.txt")
		[ "$total" -ge 2 ] || break
		chunk=$(((total + n - 1) / n))
		reduced=0
		i=0
		while [ $((i * chunk)) -lt "$total" ]; do
			sed -n "$((i * chunk + 1)),$(((i + 1) * chunk))p" "$work/ids.txt" >"$work/drop.txt"
			candidate
			if keeps "$work/cand.txt"; then
				cp "$work/cand.txt" "$work/cur.txt"
				units "$phase"
				[ "$n" -gt 2 ] && n=$((n - 1))
				reduced=1
				break
			fi
			i=$((i + 1))
		done
		if [ "$reduced" = 0 ]; then
			[ "$n" -ge "$total" ] && break
			n=$((n * 2))
			[ "$n" -gt "$total" ] && n=$total
		fi
	done
done

rm -rf "$out/t" "$out/o" "$out/w"
cp "$work/cur.txt" "$out/plan.txt"
v=$(verdict "$work/cur.txt")
cp -R "$work/c/t" "$work/c/o" "$work/c/w" "$out/" 2>/dev/null
cp "$work/c"/*.log "$work/c"/*.rc "$work/c/diff.txt" "$out/" 2>/dev/null
echo "$v" >"$out/verdict.txt"
echo "minimise: $(grep -c '^[EJ]' "$work/cur.txt") events left after $tests runs: $v"
