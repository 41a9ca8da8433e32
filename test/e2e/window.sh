#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of `weft emu --from T --to T` (the window filter in front
# of every sink, src/emu/sinks.c): the window written in the same pass equals the same
# window cut from a whole run by test/e2e/window/cut.awk (Paraver's cutter:
# states clipped, events and communications within the window, times from
# its start), for thread.prv and cpu.prv of an ovni trace and of a PICL log
# with messages crossing the window's edges; FTIME is the window's length
# (or up to the trace's end); the output passes `weft check` and
# `weft check --views`; -b's breakdown view passes the same window; usage
# errors and a window past the end fail.
# --from-event EXPR opens the window at the first event EXPR holds for:
# the same bytes as --from at that event's time (weft query finds it),
# with an expression on the trace or on the emulated state (cpu); no
# matching event, a --to before it, a bad expression and --from with it
# fail with their messages.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
# the records of a window output, as cut.awk prints them: padding removed,
# zero-length states (a state changing at the window's start) and '#'
# comments (messages received after its end) left out
records() {
	awk -F: 'NR > 1 && !/^#/ { if ($1 == "1" && $6 + 0 == $7 + 0) next; OFS = ":"
		if ($1 == "3") for (i = 2; i <= NF; i++) $i = $i + 0
		else if ($1 == "1") { $6 = $6 + 0; $7 = $7 + 0 }
		print }' "$1" | sort | nofill
}
# without one value 0 at time 0: the record a window with no record gets
# (on both sides: a cut may hold one too)
nofill() { grep -v '^2:[0-9]*:[0-9]*:[0-9]*:[0-9]*:0:[0-9]*:0$'; }
ftime() { head -1 "$1" | sed 's/^#Paraver ([^)]*):0*\([0-9][0-9]*\)_ns:.*/\1/'; }

# window NAME INPUT FROM TO FULLDIR: compare the window run with the cut
window() {
	n=$1 in=$2 from=$3 to=$4 full=$5
	if ! "$WEFT" emu -q --from "$from" --to "$to" -o "$tmp/$n" "$in" 2>"$tmp/err"; then
		fail "$n emu" "$(head -3 "$tmp/err")"
		return 1
	fi
	for f in thread cpu; do
		awk -v from="$from" -v to="$to" -f "$here/window/cut.awk" "$full/$f.prv" | sort | nofill >"$tmp/want"
		records "$tmp/$n/$f.prv" >"$tmp/got"
		if cmp -s "$tmp/want" "$tmp/got" && [ -s "$tmp/want" -o "$f" = cpu ]; then
			pass "$n $f.prv = the window cut from the whole run ($(wc -l <"$tmp/got" | tr -d ' ') records)"
		else
			fail "$n $f.prv = cut" "$(diff "$tmp/want" "$tmp/got" | head -4 | tr '\n' '|')"
		fi
	done
	end=$(ftime "$full/thread.prv")
	[ "$to" -lt "$end" ] && want=$((to - from)) || want=$((end - from))
	expect "$n FTIME" "$(ftime "$tmp/$n/thread.prv"):$(ftime "$tmp/$n/cpu.prv")" "$want:$want"
	if "$WEFT" check -q "$tmp/$n/thread.prv" "$tmp/$n/cpu.prv" >"$tmp/chk" 2>&1 &&
		"$WEFT" check -q --views "$tmp/$n" >>"$tmp/chk" 2>&1; then
		pass "$n weft check, views"
	else
		fail "$n weft check" "$(head -3 "$tmp/chk")"
	fi
}

"$WEFT" synth -o "$tmp/ovni-trace" --looms 2 --procs 2 --threads 3 --cpus 4 --events 20000 --seed 1 >/dev/null
"$WEFT" emu -q -o "$tmp/ovni" "$tmp/ovni-trace"
window ovni-mid "$tmp/ovni-trace" 100000 300000 "$tmp/ovni"
window ovni-start "$tmp/ovni-trace" 0 50000 "$tmp/ovni"
window ovni-end "$tmp/ovni-trace" 600000 9000000 "$tmp/ovni"
"$WEFT" emu -q -o "$tmp/picl" "$here/picl/fft.trf" 2>/dev/null
# messages sent before, received inside; sent inside, received after
window picl-mid "$here/picl/fft.trf" 1000000 3000000 "$tmp/picl"
window picl-edge "$here/picl/fft.trf" 455000 1273000 "$tmp/picl"
expect "picl-edge cpu.prv: no record in the window, one value 0 at 0" "$(tail -n +2 "$tmp/picl-edge/cpu.prv")" "2:1:1:1:1:0:1:0"
expect "picl-mid: messages received after the window are comments" \
	"$(grep -c '^#:' "$tmp/picl-mid/thread.prv" | awk '{ print ($1 > 0) }')" 1
"$WEFT" emu -q --from 1ms --to 3ms -o "$tmp/units" "$here/picl/fft.trf"
expect "--from 1ms --to 3ms = --from 1000000 --to 3000000" \
	"$(cmp -s "$tmp/units/thread.prv" "$tmp/picl-mid/thread.prv" && echo same)" same

# -b: the breakdown view passes the same window (the filter in front of
# every sink); a window in which no CPU changes gets one value 0 at 0
"$WEFT" synth -o "$tmp/bd-trace" --events 20000 --models nosv --seed 3 >/dev/null
"$WEFT" emu -q -b -o "$tmp/bd" "$tmp/bd-trace"
"$WEFT" emu -q -b --from 100000 --to 300000 -o "$tmp/bd-mid" "$tmp/bd-trace"
awk -v from=100000 -v to=300000 -f "$here/window/cut.awk" "$tmp/bd/nosv-breakdown.prv" | sort >"$tmp/want"
records "$tmp/bd-mid/nosv-breakdown.prv" >"$tmp/got"
expect "-b --from --to: nosv-breakdown.prv = the window cut from the whole run" \
	"$(cmp -s "$tmp/want" "$tmp/got" && echo same):$(wc -l <"$tmp/got" | awk '{ print ($1 > 1000) }')" same:1
gap=$(awk -F: 'NR > 1 { print $6 }' "$tmp/bd/nosv-breakdown.prv" | sort -un |
	awk 'NR > 1 && $1 - p > 1000 { print p + 1, $1 - 1; exit } { p = $1 }')
"$WEFT" emu -q -b --from "${gap% *}" --to "${gap#* }" -o "$tmp/bd-gap" "$tmp/bd-trace" 2>"$tmp/err"
expect "-b, a window with no breakdown change: one value 0 at 0, no warning" \
	"$(tail -n +2 "$tmp/bd-gap/nosv-breakdown.prv"):$(cat "$tmp/err")" "2:0:1:1:1:0:17:0:"

"$WEFT" emu -q --from 5ms --to 2ms -o "$tmp/x" "$here/picl/fft.trf" 2>"$tmp/err"
expect "--to before --from: exit 2" "$?:$(grep -c 'expected --to after --from' "$tmp/err")" "2:1"
"$WEFT" emu -q --from soon -o "$tmp/x" "$here/picl/fft.trf" 2>"$tmp/err"
expect "--from soon: exit 2" "$?:$(grep -c "expected a time >= 0 (ns, or with a unit ns, us, ms, s), found 'soon'" "$tmp/err")" "2:1"
"$WEFT" emu -q --from 9s -o "$tmp/past" "$here/picl/fft.trf" 2>"$tmp/err"
expect "--from past the end: exit 1, no .prv" \
	"$?:$(grep -c -- '--from 9000000000 ns is past the end of the trace (5722000 ns)' "$tmp/err"):$(ls "$tmp/past"/*.prv 2>/dev/null | wc -l | tr -d ' ')" "1:1:0"

# ---- --from-event ----------------------------------------------------------------
tr=$tmp/ovni-trace
# fev NAME EXPR TO: --from-event EXPR --to TO equals --from <first match> --to TO
fev() {
	at=$("$WEFT" query "$tr" "a: when $2 do first" | sed -n 's/.* time=\([0-9]*\) .*/\1/p' | head -n 1)
	if [ -z "$at" ]; then
		fail "$1" "weft query found no match for $2"
		return
	fi
	"$WEFT" emu -q --from-event "$2" --to "$3" -o "$tmp/$1.a" "$tr" 2>"$tmp/err" &&
		"$WEFT" emu -q --from "$at" --to "$3" -o "$tmp/$1.b" "$tr" 2>>"$tmp/err"
	if cmp -s "$tmp/$1.a/thread.prv" "$tmp/$1.b/thread.prv" && cmp -s "$tmp/$1.a/cpu.prv" "$tmp/$1.b/cpu.prv"; then
		pass "$1: --from-event '$2' = --from $at"
	else
		fail "$1" "outputs differ from --from $at: $(head -2 "$tmp/err")"
	fi
}
fev fev-trace 'mcv = "OHr" and time > 100000' 300000
fev fev-state 'mcv = "OHr" and cpu = 2 and time > 200000' 900000
fev fev-pid 'pid = 200000 and mcv = "OHx"' 9000000
"$WEFT" emu -q --from-event 'mcv = "ZZZ"' -o "$tmp/fev-none" "$tr" 2>"$tmp/err"
expect "--from-event, no match: exit 1, message, no output" \
	"$?:$(cat "$tmp/err"):$(ls -d "$tmp/fev-none" 2>/dev/null | wc -l | tr -d ' ')" \
	"1:weft: error: $tr: --from-event: no event of the 19994 in the trace matches 'mcv = \"ZZZ\"':0"
"$WEFT" emu -q --from-event 'mcv = "OHr" and time > 100000' --to 5000 -o "$tmp/fev-to" "$tr" 2>"$tmp/err"
expect "--from-event after --to: exit 1" "$?:$(cat "$tmp/err")" \
	"1:weft: error: $tr: --to 5000 ns is not after the first event matching --from-event (at 100411 ns)"
"$WEFT" emu -q --from-event 'mcv = ' -o "$tmp/fev-bad" "$tr" 2>"$tmp/err"
expect "--from-event, bad expression: exit 2" "$?:$(grep -c -- '--from-event' "$tmp/err")" "2:1"
"$WEFT" emu -q --from 5 --from-event 'mcv = "OHr"' -o "$tmp/fev-both" "$tr" 2>"$tmp/err"
expect "--from with --from-event: exit 2" "$?:$(grep -c 'give one' "$tmp/err")" "2:1"

finish
