#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Every record and event type of the three legacy seeds (PICL, VisAndOr,
# CHARISMA), exactly: each hand-built log test/e2e/coverage/NAME.{trf,vao}
# is emulated, and the canonical form of its thread.prv (canon.awk: states,
# events of the format's types, communications), the .pcf labels its
# expectation names and (R lines) the names of the thread rows must equal
# NAME.expect line for line (CHARISMA's logs are built byte by byte in
# charisma.sh, which compares them with charisma-scenario.expect). The expectations were worked out by
# hand from the seeds (test/e2e/coverage/README.md says how, record by
# record); doc/formats/coverage.md lists which log covers which type.
#
#   WEFT=/abs/weft sh test/e2e/coverage.sh
set -u
. "$(dirname "$0")/../lib.sh"
need WEFT
fx=$here/coverage

csort() { LC_ALL=C sort -k1,1 -k2,2 -k3,3n -k4,4n -k5,5n; }

# compare NAME DIR: DIR/thread.{prv,pcf} against $fx/NAME.expect, whose first
# line is "# range SLO SHI TLO THI" (the states and event types kept)
compare() {
	# shellcheck disable=SC2046
	set -- "$1" "$2" $(sed -n '1s/^# range //p' "$fx/$1.expect")
	grep -v '^#' "$fx/$1.expect" | csort >"$tmp/want"
	{
		awk -F: -v slo="$3" -v shi="$4" -v tlo="$5" -v thi="$6" -f "$fx/canon.awk" "$2/thread.prv"
		# R lines: the thread rows' names, when the expectation gives them
		if grep -q '^R ' "$tmp/want"; then
			sed -n '/^LEVEL THREAD/,$p' "$2/thread.row" | sed -n '2,$s/^/R /p'
		fi
		for t in $(awk '$1 == "L" { print $2 }' "$tmp/want" | sort -u); do
			awk -v pcf="$t" -f "$fx/canon.awk" "$2/thread.pcf"
		done
	} | csort >"$tmp/got"
	if cmp -s "$tmp/want" "$tmp/got"; then
		pass "$1 exact states, events, comms, labels"
	else
		fail "$1 exact states, events, comms, labels" \
			"$(diff "$tmp/want" "$tmp/got" | grep '^[<>]' | head -n 8 | tr '\n' '|')"
	fi
}

for log in "$fx"/*.trf "$fx"/*.vao; do
	[ -f "$log" ] || continue
	n=$(basename "$log")
	n=${n%.*}
	if [ ! -f "$fx/$n.expect" ]; then
		fail "$n" "no $n.expect"
		continue
	fi
	rm -rf "$tmp/$n"
	if "$WEFT" emu -q -o "$tmp/$n" "$log" 2>"$tmp/err"; then
		compare "$n" "$tmp/$n"
	else
		fail "$n emu" "$(head -n 2 "$tmp/err" | tr '\n' ' ')"
	fi
	# a PICL log's statistics records (-101..-103), worked out by hand as
	# the log's timeline: weft stats must find each equal, or as NAME.stats
	# says (its summary line: the seed's own rounding, what weft cannot
	# measure)
	grep -q '^-10[123] ' "$log" || continue
	want="$(cat "$fx/$n.stats" 2>/dev/null)"
	if "$WEFT" stats -q "$log" >"$tmp/stats" 2>"$tmp/err"; then
		got=$(tail -n 1 "$tmp/stats")
		[ -n "$want" ] || want="${got%%:*}: ${got%% stated*} equal, 0 within rounding, 0 differ, 0 not measured"
		expect "$n statistics" "$got" "$want"
	else
		fail "$n statistics" "$(head -n 2 "$tmp/err" | tr '\n' ' ')"
	fi
done

finish
