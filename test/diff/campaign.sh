#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# campaign.sh [-m] [-k N] [-o OUT] FIRST COUNT: the differential campaign.
# For each seed FIRST .. FIRST+COUNT-1, gen writes a trace through libovni
# (-m: the seed's plan with one mutation, the mutation seed = the seed);
# runcase.sh runs both emulators and compares their outputs, classify.sh
# names the verdict. OUT (default diff-out)
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
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

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
	v=$(OVNI=$OVNI WEFT=$WEFT sh "$here/runcase.sh" "$c")
	echo "$s $v" >>"$res"
	# keep the first $keep cases of each class
	n=$(grep -c -F -x -e "$(printf '%s' "$v")" "$out/kept.txt" 2>/dev/null)
	if [ "${v%% *}" != agree ] && [ "${n:-0}" -lt "$keep" ]; then
		printf '%s\n' "$v" >>"$out/kept.txt"
		mv "$c" "$out/cases/$s"
	else
		rm -rf "$c"
	fi
	s=$((s + 1))
done
sh "$here/summary.sh" "$res"
