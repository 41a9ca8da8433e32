#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# classify.sh CASE: the verdict of one differential case, on one line:
#   VERDICT CLASS
# VERDICT is agree, differ, weft-only-refuses, ovniemu-only-refuses,
# both-refuse-same or both-refuse-other. CASE is a folder that
# campaign.sh filled in:
#   o.rc o.log   ovniemu's exit status and messages
#   w.rc w.log   weft emu's
#   diff.txt     when both accepted: one line per compared file,
#                "FILE steps|order|records|missing FIRST-DIFFERENCE-LINE",
#                nothing for a file that agrees
# CLASS names the cause with numbers folded to N: the first differing
# file, how and its (row, type) message; ovniemu's first ERROR line and
# the MCV of the event it panicked on; weft's error message without the
# path and position. Both refusing is "same" when both name the same MCV,
# a clock going backwards, or a check at the end of the trace.
set -u
d=$1
fold() { sed -e 's/[0-9][0-9]*/N/g' -e 's/  */ /g' | cut -c1-160; }

orc=$(cat "$d/o.rc" 2>/dev/null || echo 3)
wrc=$(cat "$d/w.rc" 2>/dev/null || echo 3)

# ovniemu: the first ERROR that is not the panic banner, and the MCV
ocause() {
	msg=$(grep 'ERROR:' "$d/o.log" 2>/dev/null | grep -v 'panic:' | head -1 |
		sed -e 's/^.*ERROR: //' | fold)
	mcv=$(grep -m1 'panic:   mcv=' "$d/o.log" 2>/dev/null | sed -e 's/.*mcv=//')
	printf '%s|%s' "${mcv:-?}" "${msg:-no message}"
}
# weft: "weft: error: PATH: event MCV at byte offset N (...), thread T: MSG"
wcause() {
	line=$(grep -m1 'weft: error:' "$d/w.log" 2>/dev/null | sed -e 's/^weft: error: //')
	mcv=$(printf '%s\n' "$line" | sed -n -e 's/^[^ ]*: event \(...\) at byte offset.*/\1/p')
	msg=$(printf '%s\n' "$line" | sed -e 's/^[^ ]*: event ... at byte offset [0-9]* ([^)]*), //' \
		-e 's/^thread [0-9]*: //' \
		-e 's/^[^ ]*\/[^ ]*: //' | fold)
	printf '%s|%s' "${mcv:-?}" "${msg:-no message}"
}

cause() {
	case $1 in
	*"clock goes backwards"*) echo clock-back ;;
	"?|"*end_lint* | "?|"*"is not dead"* | "?|"*"ends with"* | "?|"*"at the end"*) echo end ;;
	# ovnisort refuses a stream without events, weft its thread at the end
	"?|ovnisort: stream_step: stream is inactive"*) echo end ;;
	*) echo "${1%%|*}" ;;
	esac
}

if [ "$orc" = 0 ] && [ "$wrc" = 0 ]; then
	if [ -s "$d/diff.txt" ]; then
		# every differing file: steps keep their types, records their
		# kinds only (which types depends on the models in the trace)
		echo "differ $(awk '{
			k = ""
			for (i = 3; i <= NF; i++) {
				w = $i
				if ($2 == "records") sub(/\(.*/, "", w)
				if (index(" " k " ", " " w " ") == 0) k = k " " w
			}
			printf "%s%s %s%s", sep, $1, $2, k; sep = "; "
		}' "$d/diff.txt")"
	else
		echo "agree -"
	fi
elif [ "$orc" = 0 ]; then
	echo "weft-only-refuses $(wcause)"
elif [ "$wrc" = 0 ]; then
	echo "ovniemu-only-refuses $(ocause)"
else
	o=$(ocause) w=$(wcause)
	# the cause: a clock going backwards, a check at the end of the trace
	# (ovniemu's end_lint and "not dead", weft's "ends with" and "at the
	# end"), else the MCV
	ok=$(cause "$o") wk=$(cause "$w")
	if [ "$ok" = "$wk" ] && [ "$ok" != "?" ]; then
		echo "both-refuse-same $ok"
	else
		echo "both-refuse-other o:$o w:$w"
	fi
fi
