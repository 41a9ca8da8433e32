#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of several inputs in one timeline (weft emu A B ...).
#
#   WEFT=/abs/weft sh test/e2e/inputs.sh
#
# A PICL log of processors 0 and 1 and a CHARISMA log (built here with the
# layout helpers of charisma.sh) of clients 0 and 1 of the same machine:
#   - --same-nodes: two Paraver nodes; on each, the PICL thread (app id 1)
#     shows the msg model's states and the CHARISMA thread (app id 2) the
#     file I/O model's, at the times each log gives (both logs start
#     together: PICL records no absolute time); pids that collide on a node
#     are moved; rows in ovniemu's order (node, then pid), so the Paraver
#     applications are the runs of one app id in it: 1 PICL on node0, 2
#     CHARISMA on node0, 3 PICL on node1, 4 CHARISMA on node1; weft check
#     passes;
#   - without it: four nodes (picl.0, picl.1, node0, node1);
#   - --align INPUT=OFFSET (by path or position) shifts one input;
#   - a CHARISMA log and its own import (an ovni directory that keeps the
#     log's start date in weft-origin.json) align by their absolute starts;
#   - errors: an unknown --align input, several inputs without -o.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT

# the byte-layout helpers of charisma.sh (emit .. fcntl_rec)
eval "$(sed -n '/^emit() {/,/^fcntl_rec()/p' "$here/charisma.sh")"

cat >"$tmp/p.trf" <<'EOF'
-3 -901 0.000000 0 0 0
-3 -901 0.000000 1 0 0
-3 -21 0.000010 0 0 3 2 16 3 1
-4 -21 0.000011 0 0 0
-3 -52 0.000005 1 0 1 2 3
-4 -52 0.000020 1 0 3 2 16 3 0
-4 -901 0.000400 0 0 0
-4 -901 0.000400 1 0 0
EOF
# CHARISMA, ticks of 1 us from 100 (its first record): client 0 reads 200-260,
# client 1 writes 300-310; application 1 (pid 2)
F=$tmp/c.bin
: >"$F"
ORD=le
CAP=8
ESIZE=32
magic
header 1
app_load 100 1 0 1
open_rec 5 110 1 77 3 0 1
rw 200 260 3 4 0 1 1
req 0 0 512 0
rwend
rw 300 310 3 6 0 1 1
req 512 0 256 1
rwend
app_exit 500 1

# states DIR: "appl.task.thread begin end state" of every state record but 0
states() {
	awk -F: '$1 == 1 && $8 != 0 { print $3 "." $4 "." $5, $6 + 0, $7 + 0, $8 }' "$1/thread.prv"
}
# nodes DIR: the node names of thread.row
nodes() { sed -n '/^LEVEL NODE/,/^$/p' "$1/thread.row" | sed '1d;/^$/d' | tr '\n' ' '; }
tasks() { sed -n '/^LEVEL TASK/,/^$/p' "$1/thread.row" | sed '1d;/^$/d' | tr '\n' ' '; }

run() { # DIR ARGS...: weft emu -q -o DIR ARGS; 0 when it succeeded
	_d=$1
	shift
	rm -rf "$_d"
	"$WEFT" emu -q -o "$_d" "$@" >/dev/null 2>"$tmp/err"
}

if run "$tmp/same" --same-nodes "$tmp/p.trf" "$tmp/c.bin"; then
	pass "emu PICL + CHARISMA --same-nodes"
	expect "same nodes: two Paraver nodes" "$(nodes "$tmp/same")" "node0 node1 "
	expect "same nodes: tasks (pid 2 of CHARISMA moved on node1)" "$(tasks "$tmp/same")" \
		"node0/1 node0/2 node1/2 node1/1000002 "
	states "$tmp/same" >"$tmp/st"
	# PICL (applications 1 and 3): Running 30, Sending 31, Receiving 32 (times in ns),
	# Ended 7 from the thread's end (OHe)
	expect "node0 PICL thread: msg states" "$(grep '^1\.1\.1 ' "$tmp/st" | tr '\n' ';')" \
		"1.1.1 0 10000 30;1.1.1 10000 11000 31;1.1.1 11000 400000 30;1.1.1 400000 400000 7;"
	expect "node1 PICL thread: msg states" "$(grep '^3\.1\.1 ' "$tmp/st" | tr '\n' ';')" \
		"3.1.1 0 5000 30;3.1.1 5000 20000 32;3.1.1 20000 400000 30;3.1.1 400000 400000 7;"
	# CHARISMA (applications 2 and 4) starts with PICL: Reading 50 and Writing 51,
	# Not started 6 before its first state (CHARISMA has no thread start event)
	expect "node0 CHARISMA thread: file I/O states" "$(grep '^2\.1\.1 ' "$tmp/st" | tr '\n' ';')" \
		"2.1.1 0 100000 6;2.1.1 100000 160000 50;"
	expect "node1 CHARISMA thread: file I/O states" "$(grep '^4\.1\.1 ' "$tmp/st" | tr '\n' ';')" \
		"4.1.1 0 200000 6;4.1.1 200000 210000 51;"
	if "$WEFT" check -q "$tmp/same/thread.prv" "$tmp/same/cpu.prv" >"$tmp/chk" 2>&1; then
		pass "same nodes: weft check"
	else
		fail "same nodes: weft check" "$(head -3 "$tmp/chk")"
	fi
	grep -q '^30 ' "$tmp/same/thread.pcf" && grep -q '^50 Reading$' "$tmp/same/thread.pcf" &&
		pass "same nodes: both models' states labelled" || fail "same nodes: state labels" "missing"
else
	fail "emu PICL + CHARISMA --same-nodes" "$(head -3 "$tmp/err")"
fi

if run "$tmp/apart" "$tmp/p.trf" "$tmp/c.bin"; then
	expect "without --same-nodes: four nodes" "$(nodes "$tmp/apart")" "node0 node1 picl.0 picl.1 "
else
	fail "emu PICL + CHARISMA" "$(head -3 "$tmp/err")"
fi

if run "$tmp/al" --same-nodes --align "$tmp/c.bin=1.5ms" "$tmp/p.trf" "$tmp/c.bin" &&
	run "$tmp/al2" --same-nodes --align 2=1500us "$tmp/p.trf" "$tmp/c.bin"; then
	expect "--align INPUT=1.5ms shifts the CHARISMA states" \
		"$(states "$tmp/al" | grep '^[24]\.' | tr '\n' ';')" "2.1.1 0 1600000 6;4.1.1 0 1700000 6;2.1.1 1600000 1660000 50;4.1.1 1700000 1710000 51;"
	cmp -s "$tmp/al/thread.prv" "$tmp/al2/thread.prv" && pass "--align by position = by path" ||
		fail "--align by position" "thread.prv differs"
else
	fail "emu --align" "$(head -3 "$tmp/err")"
fi

# a CHARISMA log and its import: both absolute (1992-03-07), aligned by their
# start dates; shifting the log by 0 keeps the two applications identical
if "$WEFT" import charisma "$tmp/c.bin" -o "$tmp/imp" >/dev/null 2>"$tmp/err" &&
	grep -q '"epoch_ns": "700000000000000000"' "$tmp/imp/weft-origin.json" &&
	run "$tmp/abs" "$tmp/c.bin" "$tmp/imp"; then
	states "$tmp/abs" | sed 's/^[0-9]*\.//' | sort | uniq -c | awk '{ print $1 }' | sort -u >"$tmp/cnt"
	expect "two copies of one CHARISMA run align by their start date" "$(cat "$tmp/cnt")" 2
else
	fail "CHARISMA + its import" "$(head -3 "$tmp/err")"
fi

"$WEFT" emu -q -o "$tmp/x" --align nope=1ms "$tmp/p.trf" "$tmp/c.bin" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "no input is named 'nope'" "$tmp/err" && pass "--align of an unknown input: usage error" ||
	fail "--align unknown input" "exit $rc: $(head -2 "$tmp/err")"
"$WEFT" emu -q "$tmp/p.trf" "$tmp/c.bin" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'several inputs: give the output directory with -o DIR' "$tmp/err" &&
	pass "several inputs without -o: usage error" || fail "several inputs without -o" "exit $rc"

finish
