#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of the VisAndOr importer and the and-fork / or-branch
# models, over the hand-written logs in test/e2e/visandor/:
#   - seed-or, seed-andorra: the seed's OR and Andorra-I fragments completed
#     with START_TIME/STOP_TIME; and-*, or-*: our own logs. For each,
#     `weft emu` (format detected from the content; options from NAME.opts)
#     must give, from the state records of thread.prv, exactly the time per
#     state per agent of NAME.expect (computed by hand, in ns), the number of
#     communication records and the number of labelled and-/or-nodes
#     (summary.awk); `weft check` accepts thread.prv and cpu.prv;
#   - `weft import visandor` then `weft emu` of the directory gives the same
#     thread.prv and cpu.prv bodies as the log itself; dump and top read it;
#   - malformed logs fail with the exact message (exit 1, no .prv left);
#     consistency checks warn, and fail with --strict.
#
#   WEFT=/abs/path/to/weft sh test/e2e/visandor.sh
set -u
. "$(dirname "$0")/../lib.sh"
need WEFT
fx=$here/visandor
body() { tail -n +2 "$1"; }

for log in "$fx"/*.vao; do
	n=$(basename "$log" .vao)
	opts=""
	[ -f "$fx/$n.opts" ] && opts=$(cat "$fx/$n.opts")
	out=$tmp/$n
	# shellcheck disable=SC2086
	if ! "$WEFT" emu -q $opts -o "$out" "$log" 2>"$tmp/err"; then
		fail "$n emu" "$(head -1 "$tmp/err")"
		continue
	fi
	awk -f "$fx/summary.awk" "$out/thread.row" "$out/thread.pcf" "$out/thread.prv" >"$tmp/sum"
	if diff "$fx/$n.expect" "$tmp/sum" >"$tmp/diff"; then
		pass "$n time per state, comms, nodes"
	else
		fail "$n time per state, comms, nodes" "$(tr '\n' ' ' <"$tmp/diff")"
	fi
	if "$WEFT" check "$out/thread.prv" "$out/cpu.prv" >/dev/null 2>"$tmp/err"; then
		pass "$n weft check"
	else
		fail "$n weft check" "$(head -1 "$tmp/err")"
	fi
	rm -rf "$tmp/imp" "$tmp/imp.out"
	# shellcheck disable=SC2086
	if "$WEFT" import visandor "$log" -o "$tmp/imp" $opts 2>/dev/null &&
		"$WEFT" emu -q -o "$tmp/imp.out" "$tmp/imp" 2>"$tmp/err" &&
		[ "$(body "$out/thread.prv")" = "$(body "$tmp/imp.out/thread.prv")" ] &&
		[ "$(body "$out/cpu.prv")" = "$(body "$tmp/imp.out/cpu.prv")" ]; then
		pass "$n import round trip"
	else
		fail "$n import round trip" "bodies differ or a step failed: $(head -1 "$tmp/err")"
	fi
done

# dump and top read a log directly
if "$WEFT" dump "$fx/and-nested.vao" 2>/dev/null | grep -q "forks and-node 2 into 2 tasks"; then
	pass "dump of a log"
else
	fail "dump of a log" "no FORK sentence"
fi
if "$WEFT" top "$fx/seed-andorra.vao" >"$tmp/top" 2>/dev/null && grep -q orbranch "$tmp/top"; then
	pass "top of a log"
else
	fail "top of a log" "no orbranch line"
fi
# rows say which agent they are ("agent N"), one CPU per agent
if grep -q "^agent 4$" "$tmp/seed-andorra/thread.row" &&
	grep -q "^LEVEL CPU SIZE 5$" "$tmp/seed-andorra/thread.row"; then
	pass "rows and cpus per agent"
else
	fail "rows and cpus per agent" "$(head -3 "$tmp/seed-andorra/thread.row")"
fi
if grep -q "^10 Running goal$" "$tmp/and-nested/thread.pcf" && grep -q "^11 Waiting for join$" "$tmp/and-nested/thread.pcf" &&
	grep -q "^12 Idle$" "$tmp/and-nested/thread.pcf" && grep -q "^20 Running branch$" "$tmp/or-suspend/thread.pcf" &&
	grep -q "^21 Slave$" "$tmp/or-suspend/thread.pcf" && grep -q "^22 Idle$" "$tmp/or-suspend/thread.pcf"; then
	pass "state labels"
else
	fail "state labels" "missing in thread.pcf"
fi
# nesting depth 3 on agent 0 of and-nested, outcomes of or-suspend
if grep -q ":1002:3" "$tmp/and-nested/thread.prv" &&
	[ "$(grep -c ':1022:1' "$tmp/or-suspend/thread.prv")" = 2 ] &&
	[ "$(grep -c ':1022:2' "$tmp/or-suspend/thread.prv")" = 1 ] &&
	[ "$(grep -c ':1022:3' "$tmp/or-suspend/thread.prv")" = 1 ]; then
	pass "depth and outcome events"
else
	fail "depth and outcome events" "unexpected values"
fi

# hand-worked logs (README.md): the exact lines behind their .expect
comm_lines() { awk -F: '$1 == "3" { o = $1; for (i = 2; i <= NF; i++) o = o ":" ($i + 0); print o }' "$1"; }
expect "and-forker-finish: FINISH_GOAL of the forker -> JOIN on agent 1" \
	"$(comm_lines "$tmp/and-forker-finish/thread.prv" | tr '\n' ' ')" \
	"3:1:1:1:1:10000:10000:2:1:1:2:30000:30000:0:1 3:1:1:1:1:80000:80000:2:1:1:2:95000:95000:0:1 "
expect "or-nested: 5/0 nested on 4/1, 4/1 again after its SUCC" \
	"$(grep -c -e '^2:2:1:1:2:60000:1020:2:1021:1$' -e '^2:2:1:1:2:90000:.*:1020:1:1021:2:' "$tmp/or-nested/thread.prv")" 2
expect "or-nested: worker 2 Idle after the cut" \
	"$(grep -c '^1:1:1:1:1:80000:0*110000:22$' "$tmp/or-nested/thread.prv")" 1
"$WEFT" emu -o "$tmp/or-nested-w" "$fx/or-nested.vao" >/dev/null 2>"$tmp/err"
expect "or-nested: no warning" "$(grep -c 'warning' "$tmp/err")" 0

# ---- malformed logs: exact errors ----------------------------------------------
# case NAME 'printf format' 'expected stderr' [emu options]
case_err() {
	name=$1
	printf "$2" >"$tmp/$name.vao"
	shift 3
	rm -rf "$tmp/m.out"
	(cd "$tmp" && "$WEFT" emu "$@" -o m.out "$name.vao") >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 1 ] && [ "$(cat "$tmp/err")" = "weft: error: $expect" ] && ! ls "$tmp/m.out"/*.prv >/dev/null 2>&1; then
		pass "malformed $name"
	else
		fail "malformed $name" "exit $rc: $(head -1 "$tmp/err")"
	fi
}
expect="bad-flag.vao:1: flag line '2': expected a single digit, 0 (AND) or 1 (OR): not a VisAndOr file"
case_err bad-flag '2\n0 5 0 0 0 0\n' - --format visandor
expect="bad-flag-auto.vao: not an ovni trace directory, and not a log in a format weft recognises"
printf '2\n0 5 0 0 0 0\n' >"$tmp/bad-flag-auto.vao"
if (cd "$tmp" && "$WEFT" emu -o m.out bad-flag-auto.vao) 2>"$tmp/err"; then
	fail "malformed bad-flag-auto" "accepted"
elif grep -q "weft: error: $expect" "$tmp/err"; then
	pass "malformed bad-flag-auto"
else
	fail "malformed bad-flag-auto" "$(head -1 "$tmp/err")"
fi
expect="five.vao:3: '10 1 1 2 0': expected 6 fields (timestamp code Nodeid field4 WAM agent), found 5"
case_err five '0\n0 5 0 0 0 0\n10 1 1 2 0\n' -
# without --format: a flag line is enough to read the log as VisAndOr, and
# the faulty line and field are named as with --format
expect="five-auto.vao:2: '1 5 0 0 0': expected 6 fields (timestamp code Nodeid field4 WAM agent), found 5"
case_err five-auto '0\n1 5 0 0 0\n' -
expect="node-auto.vao:2: field 3 (Nodeid) 'zz': expected hexadecimal digits (optional 0x, at most 16)"
case_err node-auto '1\n0 5 zz 0 0 0\n' -
expect="seven.vao:2: '0 5 0 0 0 0 0': expected 6 fields (timestamp code Nodeid field4 WAM agent), found 7"
case_err seven '0\n0 5 0 0 0 0 0\n' - --format visandor
expect="wam.vao:3: field 5 (WAM id) 'G': expected hexadecimal digits (optional 0x, at most 16)"
case_err wam '0\n0 5 0 0 0 0\n10 1 1 2 G 0\n' -
expect="wam0x.vao:3: field 5 (WAM id) '0x': expected hexadecimal digits (optional 0x, at most 16)"
case_err wam0x '0\n0 5 0 0 0 0\n10 1 1 2 0x 0\n' -
expect="node17.vao:3: field 3 (Nodeid) '11223344556677889': expected hexadecimal digits (optional 0x, at most 16)"
case_err node17 '0\n0 5 0 0 0 0\n10 1 11223344556677889 2 0 0\n' -
expect="decreasing.vao:3: timestamp 5 is smaller than the previous event's (10): expected a file sorted by time"
case_err decreasing '0\n10 5 0 0 0 0\n5 6 0 0 0 0\n' -
expect="agent.vao:3: field 6 (agent) '-1': expected a decimal agent number from 0 to 1048575"
case_err agent '0\n0 5 0 0 0 0\n10 1 1 2 0 -1\n' -
expect="stamp.vao:3: field 1 (timestamp) '1x': expected an unsigned decimal integer below 2^64"
case_err stamp '0\n0 5 0 0 0 0\n1x 1 1 2 0 0\n' -
expect="code.vao:3: field 2 (event code) '2.5': expected a signed decimal integer"
case_err code '0\n0 5 0 0 0 0\n10 2.5 1 2 0 0\n' -
# field 4 is named as the seed names it for the line's event code
expect="tasks.vao:3: field 4 (#tasks) 'x': expected a signed decimal integer"
case_err tasks '0\n0 5 0 0 0 0\n10 1 1 x 0 0\n' -
expect="branch.vao:3: field 4 (branch #) '1.5': expected a signed decimal integer"
case_err branch '1\n0 5 0 0 0 0\n10 21 1 1.5 0 0\n' -
expect="overflow.vao:3: timestamp 18446744073709551615 does not fit in 64-bit nanoseconds with the time unit"
case_err overflow '0\n0 5 0 0 0 0\n18446744073709551615 6 0 0 0 0\n' -
expect="empty.vao: no event after the flag line: expected at least START_TIME"
case_err empty '1\n\n' - --format visandor

# ---- model errors and checks -------------------------------------------------------
# a model error names the log and the line of the record behind the event
# (line 4: the second FORK of node 7, line 3 opened it)
printf '0\n0 5 0 0 0 0\n10 1 7 2 0 0\n20 1 7 2 0 0\n30 6 0 0 0 0\n' >"$tmp/reopen.vao"
if (cd "$tmp" && "$WEFT" emu -o r.out reopen.vao) 2>"$tmp/err"; then
	fail "FORK of an open node" "accepted"
elif grep -q "^weft: error: reopen.vao:4: event AF. (time 20000 ns, thread 1, converted stream [^)]*): FORK of and-node 7, which is still open: expected a Nodeid not in use" "$tmp/err"; then
	pass "FORK of an open node"
else
	fail "FORK of an open node" "$(head -1 "$tmp/err")"
fi
# the same with --strict and two workers (-j 2): the SUCC of line 5 comes on
# agent 1, which runs no branch
printf '1\n0 5 0 0 0 0\n10 20 1 2 0 0\n11 21 1 0 0 0\n12 22 1 0 1 1\n20 6 0 0 0 0\n' >"$tmp/succ1.vao"
(cd "$tmp" && "$WEFT" emu -q --strict -j 2 -o s1.out succ1.vao) 2>"$tmp/err"
expect "model error names the line (-j 2)" "$(sed -n 's/ (time .*//p' "$tmp/err")" "weft: error: succ1.vao:5: event RBs"
chk() { # name log-text warning
	printf "$2" >"$tmp/$1.vao"
	if (cd "$tmp" && "$WEFT" emu -o "$1.out" "$1.vao") 2>"$tmp/err" &&
		grep -qF "weft: warning: $3" "$tmp/err" && "$WEFT" check "$tmp/$1.out/thread.prv" >/dev/null 2>&1; then
		pass "check $1 warns"
	else
		fail "check $1 warns" "$(head -1 "$tmp/err")"
	fi
	if (cd "$tmp" && "$WEFT" emu --strict -o "$1.s" "$1.vao") 2>"$tmp/err"; then
		fail "check $1 --strict" "accepted"
	elif grep -qF "${3#*: * ns: } (--strict)" "$tmp/err"; then
		pass "check $1 --strict"
	else
		fail "check $1 --strict" "$(head -1 "$tmp/err")"
	fi
}
chk goal-unknown '0\n0 5 0 0 0 0\n10 2 7 0 0 1\n20 6 0 0 0 0\n' \
	"and-fork: agent 1 at 10000 ns: START_GOAL of task 0 of and-node 7: no open FORK has that Nodeid (unknown or already joined)"
chk task-range '0\n0 5 0 0 0 0\n10 1 7 2 0 0\n11 2 7 2 0 1\n20 6 0 0 0 0\n' \
	"and-fork: agent 1 at 11000 ns: START_GOAL of task 2 of and-node 7: expected a task from 0 to 1 (the FORK has 2 tasks)"
chk finish-unstarted '0\n0 5 0 0 0 0\n10 1 7 2 0 0\n11 3 7 1 0 1\n20 6 0 0 0 0\n' \
	"and-fork: agent 1 at 11000 ns: FINISH_GOAL of task 1 of and-node 7: this agent did not START it (no running START_GOAL with that Nodeid and task)"
chk early-join '0\n0 5 0 0 0 0\n10 1 7 2 0 0\n11 2 7 0 0 0\n12 3 7 0 0 0\n13 4 7 2 0 0\n20 6 0 0 0 0\n' \
	"and-fork: agent 0 at 13000 ns: JOIN of and-node 7 after 1 of its 2 tasks finished: expected all tasks finished"
chk succ-elsewhere '1\n0 5 0 0 0 0\n10 20 1 2 0 0\n11 21 1 0 0 0\n12 22 1 0 1 1\n20 6 0 0 0 0\n' \
	"or-branch: agent 1 at 12000 ns: SUCC_BRANCH of branch 0 of or-node 1: this agent is not running it (no START_BRANCH or RESUME_BRANCH of it here)"
chk resume-unsuspended '1\n0 5 0 0 0 0\n10 20 1 2 0 0\n11 25 1 0 1 1\n20 6 0 0 0 0\n' \
	"or-branch: agent 1 at 11000 ns: RESUME_BRANCH of branch 0 of or-node 1: it is not suspended (no SUSPEND_BRANCH before)"
chk busy-unbalanced '1\n0 5 0 0 0 0\n10 20 1 1 0 0\n11 21 1 0 0 0\n12 33 1 0 1 1\n13 22 1 0 0 0\n20 6 0 0 0 0\n' \
	"or-branch: agent 0 at 13000 ns: SUCC_BRANCH of branch 0 of or-node 1 with 1 slave(s) still busy: expected as many STOP_BUSY as START_BUSY"
chk stop-unstarted '1\n0 5 0 0 0 0\n10 20 1 1 0 0\n11 34 1 0 1 1\n20 6 0 0 0 0\n' \
	"or-branch: agent 1 at 11000 ns: STOP_BUSY on branch 0 of or-node 1: this agent has no START_BUSY on it"

# warnings of the reader
printf '0\n0 5 0 0 0 0\n0 42 0 0 0 0\n1 42 0 0 0 0\n1 21 1 0 0 0\n2 7 0 0 0 0\n' >"$tmp/warn.vao"
(cd "$tmp" && "$WEFT" emu -o w.out warn.vao) 2>"$tmp/err"
if [ "$(grep -c 'unknown event code 42' "$tmp/err")" = 1 ] &&
	grep -qF "warn.vao:3: unknown event code 42: kept as a punctual event (warned once per code)" "$tmp/err" &&
	grep -qF "warn.vao:5: code 21 (START_BRANCH) in an AND log (flag 0)" "$tmp/err" &&
	grep -qF "warn.vao: 2 events have the timestamp of the event before them: kept in file order" "$tmp/err" &&
	grep -qF "warn.vao:6: the last event is code 7: expected STOP_TIME (6); the trace ends at the last event" "$tmp/err" &&
	"$WEFT" check "$tmp/w.out/thread.prv" "$tmp/w.out/cpu.prv" >/dev/null 2>&1; then
	pass "reader warnings"
else
	fail "reader warnings" "$(tr '\n' '|' <"$tmp/err")"
fi
if "$WEFT" emu --time-unit min -o "$tmp/u.out" "$fx/and-ciao.vao" 2>"$tmp/err"; then
	fail "bad --time-unit" "accepted"
elif [ "$(cat "$tmp/err")" = "weft: error: --time-unit 'min': expected ns, us, ms or s" ]; then
	pass "bad --time-unit"
else
	fail "bad --time-unit" "$(head -1 "$tmp/err")"
fi

finish
