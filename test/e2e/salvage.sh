#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# --salvage (issue 24, item 9): the trace of a killed application, whose
# stream.obs ends mid-event. A corpus trace's streams are cut at several
# offsets (inside an event's header, inside its payload, at an event's
# end); for each cut:
#  - weft emu without --salvage exits 1, names the cut, suggests --salvage,
#    and leaves nothing (no output folder, nothing in the trace);
#  - weft emu --salvage (-j 1 and -j 2) exits 0 and writes the bytes
#    weft emu -k writes for the trace cut by hand at the last whole event
#    (found here by walking the events with od, not with weft), and says
#    per stream where it stopped and how many bytes it dropped;
#  - weft dump, top, query (plain and with the emulator) and stats
#    --salvage print what they print for the hand cut, and say how many
#    streams were cut.
# Bytes that are not the start of an event (an unprintable MCV) are not
# salvaged: exit 1, nothing left.
#
#   WEFT=/abs/path/to/weft sh test/e2e/salvage.sh
#
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
src=$corpus/ovni/small/trace
cd "$tmp" || exit 2
fail_show=$tmp/err

# last_whole FILE K: the end of the last whole event of the stream FILE
# that lies within its first K bytes (8: none)
last_whole() {
	_f=$1 _k=$2 _p=8
	while [ "$_p" -lt "$_k" ]; do
		_fl=$(od -An -tu1 -j "$_p" -N 1 "$_f" | tr -d ' ')
		if [ $((_fl & 16)) -ne 0 ]; then
			[ $((_p + 16)) -le "$_k" ] || break
			_sz=$((16 + $(od -An -tu4 -j $((_p + 12)) -N 4 "$_f" | tr -d ' ')))
		else
			_c=$((_fl & 15))
			_sz=$((12 + (_c ? _c + 1 : 0)))
		fi
		[ $((_p + _sz)) -le "$_k" ] || break
		_p=$((_p + _sz))
	done
	echo "$_p"
}

s1=loom.node00/proc.100000/thread.100000/stream.obs
s2=loom.node01/proc.201000/thread.201001/stream.obs
n1=$(wc -c < "$src/$s1")
n2=$(wc -c < "$src/$s2")
b1=$(last_whole "$src/$s1" $((n1 / 2)))

# cut NAME STREAM K [STREAM K]: the cases above for the trace whose
# STREAMs are cut to K bytes
cut() {
	name=$1
	shift
	rm -rf t hand out out2 ref dump.*
	cp -R "$src" t && cp -R "$src" hand || exit 2
	msgs=
	while [ $# -ge 2 ]; do
		truncate -s "$2" "t/$1"
		b=$(last_whole "$src/$1" "$2")
		truncate -s "$b" "hand/$1"
		[ "$b" -lt "$2" ] &&
			msgs="$msgs|t/$1: cut mid-event: read up to byte offset $b, the last whole event's end; dropped $(($2 - b)) byte"
		shift 2
	done
	before=$(cd t && find . | LC_ALL=C sort | tr '\n' ' ')
	"$WEFT" emu -q -k -o ref hand 2>/dev/null || { fail "$name: reference" "weft emu -k failed"; return; }
	"$WEFT" emu -o out t > /dev/null 2> err
	rc=$?
	if [ -n "$msgs" ]; then
		result "$name: no --salvage: exit 1 naming the cut and --salvage, nothing left" "$(
			[ $rc -eq 1 ] || echo "exit $rc"
			grep -q 'truncated event.*--salvage reads every stream up to its last whole event' err ||
				echo "no hint to --salvage"
			[ ! -e out ] || echo "out was made"
			[ "$(cd t && find . | LC_ALL=C sort | tr '\n' ' ')" = "$before" ] || echo "the trace changed"
		)"
	fi
	for j in 1 2; do
		rm -rf out
		"$WEFT" emu --salvage -j $j -o out t > /dev/null 2> err
		rc=$?
		if [ $rc -ne 0 ]; then
			fail "$name: emu --salvage -j $j" "exit $rc"
			continue
		fi
		same_tree "$name: emu --salvage -j $j = emu -k of the hand cut" ref out
		why=
		IFS='|'
		for m in $msgs; do
			[ -n "$m" ] && ! grep -qF "weft emu: --salvage: $m" err && why="$why no line \"$m\";"
		done
		unset IFS
		ncut=$(printf '%s' "$msgs" | tr -cd '|' | wc -c)
		grep -q "weft emu: --salvage: $ncut of 8 streams cut mid-event" err || why="$why no count $ncut;"
		result "$name: emu --salvage -j $j says what it dropped" "$why"
	done
	"$WEFT" dump hand > dump.hand 2>/dev/null
	"$WEFT" dump --salvage t > dump.cut 2> err
	rc=$?
	result "$name: dump --salvage = dump of the hand cut" "$(
		[ $rc -eq 0 ] || echo "exit $rc"
		cmp -s dump.hand dump.cut || echo "the events differ"
	)"
	# the other commands that read the streams: the same output as for
	# the hand cut (each run in its trace, so both are named "."), and
	# the count of cut streams on stderr
	for c in "top|." "query|.|events: when true do count" \
		"query|-k|.|states: when mcv in [\"OHp\", \"OHe\"] do count(state.ovni)" "stats|-k|."; do
		IFS='|'
		set -- $c
		unset IFS
		(cd hand && "$WEFT" "$@") > out.hand 2>/dev/null
		cmd=$1
		shift
		(cd t && "$WEFT" "$cmd" --salvage "$@") > out.cut 2> err
		rc=$?
		result "$name: $cmd --salvage $* = $cmd of the hand cut" "$(
			[ $rc -eq 0 ] || echo "exit $rc: $(head -c 200 err)"
			[ -s out.hand ] || echo "no output for the hand cut"
			cmp -s out.hand out.cut || echo "the outputs differ"
			grep -q "^weft $cmd: --salvage: $ncut of 8 streams cut mid-event" err || echo "no count $ncut"
		)"
	done
}

cut "header cut after 1 byte" $s1 $((b1 + 1))
cut "header cut after 11 bytes" $s1 $((b1 + 11))
cut "payload cut" $s1 $((b1 + 13))
cut "cut inside the first event" $s2 9
cut "cut two thirds in" $s1 $((2 * n1 / 3))
cut "cut at an event's end (nothing dropped)" $s1 "$b1"
cut "last byte gone" $s1 $((n1 - 1))
cut "two streams cut" $s1 $((n1 / 3)) $s2 $((n2 / 2 + 3))
cut "one stream cut, one whole" $s2 $((n2 - 7)) $s1 "$n1"

# bytes that cannot begin an event: not salvaged
rm -rf t out
cp -R "$src" t
printf '\001\001\001' >> "t/$s1"
"$WEFT" emu --salvage -o out t > /dev/null 2> err
rc=$?
result "garbage tail: not salvaged, exit 1, nothing left" "$(
	[ $rc -eq 1 ] || echo "exit $rc"
	grep -q 'not salvaged: the bytes there are not the start of an event' err || echo "no reason"
	[ ! -e out ] || echo "out was made"
)"

# a trace with no cut: --salvage changes no byte and says no stream was cut
rm -rf ref out t
cp -R "$src" t
"$WEFT" emu -q -o ref t > /dev/null 2>&1
"$WEFT" emu --salvage -o out t > /dev/null 2> err
same_tree "whole trace: --salvage writes the same bytes" ref out
expect "whole trace: --salvage says no stream was cut" "$(grep -c 'salvage' err)" 1
grep -q '0 of 8 streams cut mid-event$' err || fail "whole trace: the count" "$(cat err)"

finish
