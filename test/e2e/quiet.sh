#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# -q silences the warnings of the PICL, VisAndOr and CHARISMA importers, as
# it does the emulator's own: under -q stderr is empty for weft import, weft
# emu and weft stats on a log that warns, and without -q the warning is there.
# (charisma/async-no-end.bin: a log fuzz_charisma made, whose asynchronous RW
# has no ASYNCH_END.)
# The heartbeat: with stderr not a terminal (a batch job's log), weft emu
# (-j 1 and -j 2) prints a full progress line every
# WEFT_PROGRESS seconds (here about every update: no test waits for the
# clock), none with -q or WEFT_PROGRESS=off.
#
#   WEFT=/abs/path/to/weft sh test/e2e/quiet.sh
#
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT

# NAME WARNING-TEXT FORMAT LOG [OPTION...]: the log warns WARNING-TEXT
# (the options hold no blanks)
quiet_case() {
	name=$1 warn=$2 fmt=$3 log=$4
	shift 4
	opts=$*
	for cmd in import emu stats; do
		for q in "" -q; do
			rm -rf "$tmp/o"
			case $cmd in
			import) "$WEFT" import $q "$fmt" "$log" -o "$tmp/o" $opts ;;
			emu) "$WEFT" emu $q -o "$tmp/o" "$log" $opts ;;
			stats) "$WEFT" stats $q "$log" $opts ;;
			esac > /dev/null 2> "$tmp/err"
			rc=$?
			if [ $rc -ne 0 ]; then
				fail "$name: $cmd $q" "exit status $rc: $(head -n 1 "$tmp/err")"
			elif [ -n "$q" ]; then
				expect "$name: $cmd -q: stderr empty" "$(cat "$tmp/err")" ""
			elif grep -qF "$warn" "$tmp/err"; then
				pass "$name: $cmd: the warning without -q"
			else
				fail "$name: $cmd" "stderr lacks \"$warn\": $(head -n 1 "$tmp/err")"
			fi
		done
	done
}

quiet_case "picl continued record" "table20-cont.trf:25: record continued on the next line" \
	picl "$here/picl/table20-cont.trf"
quiet_case "visandor unknown code" "or-andorra-ms.vao:8: unknown event code 99" \
	visandor "$here/visandor/or-andorra-ms.vao" --time-unit ms
quiet_case "charisma async without end" "async-no-end.bin: the asynchronous RW at byte offset 1449" \
	charisma "$here/charisma/async-no-end.bin"

# ---- the heartbeat ------------------------------------------------------------------
test_setup '"$WEFT" synth -o "$tmp/big" --looms 2 --events 3M >/dev/null'
# beats FILE: the heartbeat lines of FILE, each a whole line
beats() { grep -c -E '^weft: [0-9]+ events, [0-9.]+ M/s, [0-9]+%, ETA ([0-9]+ s|\?)$' "$1"; }
for j in 1 2; do
	test_expect_success "emu -j $j, stderr a file: heartbeat lines, no carriage return" '
		WEFT_PROGRESS=0.000001 "$WEFT" emu -j '$j' -o "$tmp/o$j" "$tmp/big" 2>"$tmp/beat" &&
		test "$(beats "$tmp/beat")" -ge 1 &&
		! grep -q "$(printf "\r")" "$tmp/beat" &&
		test_grep "^weft: [0-9]+ events in " "$tmp/beat"
	'
done
test_expect_success 'emu -q: no heartbeat (nor anything)' '
	WEFT_PROGRESS=0.000001 "$WEFT" emu -q -o "$tmp/oq" "$tmp/big" 2>"$tmp/beat" &&
	test_cmp /dev/null "$tmp/beat"
'
test_expect_success 'WEFT_PROGRESS=off: no heartbeat, the summary line' '
	WEFT_PROGRESS=off "$WEFT" emu -o "$tmp/off" "$tmp/big" 2>"$tmp/beat" &&
	test "$(beats "$tmp/beat")" -eq 0 && test "$(wc -l <"$tmp/beat")" -eq 1
'
finish
