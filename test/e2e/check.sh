#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `weft check` end to end: a valid hand-made Paraver trace (.prv, .pcf, .row)
# must pass; each malformed variant must fail with exit 1 and the expected
# message on stderr (fixed-string match); warnings alone keep exit 0; the
# ovni corpus references pass or fail as the spec says.
#
#   WEFT=/abs/path/to/weft sh test/e2e/check.sh
#
# Runs from anywhere. Needs sh, awk, sed, grep; gzip for the
# .prv.gz cases (skipped without it). Prints "ok NAME", "FAIL NAME: why" or
# "skip NAME: why" per case, then "N passed, M failed"; exits 1 on failures.

set -u

. "$(dirname "$0")/../lib.sh"
need WEFT

# ---- the valid trace ----------------------------------------------------------
# 2 nodes of 4 CPUs; 1 application, task 1 (2 threads) on node 1, task 2
# (2 threads) on node 2; one communicator line; states, events (one line with
# two pairs), a message from 1:1:1 to 1:2:1, a comment and an empty line.

write_prv() { # DIR
	cat >"$1/t.prv" <<'EOF'
#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):1:2(2:1,2:2),1
c:1:1:2:1:2
1:1:1:1:1:0:100:1
2:1:1:1:1:0:60000001:1:60000010:512
1:5:1:2:1:0:150:1
1:0:1:1:2:0:1000:0
# a comment

3:1:1:1:1:100:110:5:1:2:1:120:130:64:7
2:2:1:1:1:100:60000001:2
1:1:1:1:1:100:200:2
1:6:1:2:1:150:300:2
2:5:1:2:1:300:60000001:0
EOF
}

write_pcf() { # DIR
	cat >"$1/t.pcf" <<'EOF'
DEFAULT_OPTIONS

LEVEL               THREAD
UNITS               NANOSEC
LOOK_BACK           100


DEFAULT_SEMANTIC

THREAD_FUNC          State As Is


STATES
0    Idle
1    Running
2    Waiting a message


STATES_COLOR
0    {117,195,255}
1    {0,0,255}
2    { 255, 0, 0 }


EVENT_TYPE
0    60000001    Loop phase
VALUES
0      End
1      Setup
2      Solve


EVENT_TYPE
0    60000010    Bytes written
EOF
}

write_row() { # DIR
	cat >"$1/t.row" <<'EOF'
LEVEL CPU SIZE 8
1.alpha
2.alpha
3.alpha
4.alpha
1.beta
2.beta
3.beta
4.beta

LEVEL NODE SIZE 2
alpha
beta

LEVEL APPL SIZE 1
solver

LEVEL TASK SIZE 2
rank 0
rank 1

LEVEL THREAD SIZE 4
THREAD 1.1.1
THREAD 1.1.2
THREAD 1.2.1
THREAD 1.2.2
EOF
}

# new NAME: a fresh copy of the valid trace in $tmp/NAME; sets D.
new() {
	D=$tmp/$1
	mkdir -p "$D"
	write_prv "$D"
	write_pcf "$D"
	write_row "$D"
}

# Edits of $D/t.prv (or another file of $D with FILE=...).
header() { # NEW_HEADER_LINE
	awk -v h="$1" 'NR == 1 { print h; next } { print }' "$D/t.prv" >"$D/x" && mv "$D/x" "$D/t.prv"
}
add() { # LINE... appended to the body
	printf '%s\n' "$@" >>"$D/t.prv"
}
sub() { # FILE OLD_LINE NEW_LINE: replace whole lines equal to OLD_LINE
	awk -v o="$2" -v n="$3" '$0 == o { print n; next } { print }' "$D/$1" >"$D/x" && mv "$D/x" "$D/$1"
}
del() { # FILE OLD_LINE: delete whole lines equal to OLD_LINE
	awk -v o="$2" '$0 != o { print }' "$D/$1" >"$D/x" && mv "$D/x" "$D/$1"
}

# at_d TEXT: TEXT with @D@ replaced by $D (the case's folder, in messages).
at_d() {
	printf '%s\n' "$1" | sed "s|@D@|$D|g"
}

# run FILE [OPTIONS...]: weft check; sets rc, out, err.
run() {
	f=$1
	shift
	"$WEFT" check "$@" "$f" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
}

# expect_fail NAME FILE MESSAGE: exit 1 and MESSAGE (fixed string) on stderr.
expect_fail() {
	run "$2"
	why=""
	if [ "$rc" -ne 1 ]; then
		why="exit $rc, expected 1"
	elif ! grep -F -q -e "$3" "$tmp/err"; then
		why="stderr lacks '$3'; got: $(head -c 600 "$tmp/err")"
	elif ! grep -q '^weft: error: ' "$tmp/err"; then
		why="no 'weft: error:' line"
	elif [ -n "$out" ]; then
		why="stdout not empty: $out"
	fi
	result "$1" "$why"
}

# expect_ok NAME FILE [WARNING]: exit 0, the summary on stdout, no error, and
# WARNING (fixed string) on stderr when given.
expect_ok() {
	run "$2"
	why=""
	if [ "$rc" -ne 0 ]; then
		why="exit $rc, expected 0; stderr: $(head -c 600 "$tmp/err")"
	elif ! printf '%s\n' "$out" | grep -F -q -e "$2: ok: "; then
		why="no '$2: ok:' summary; stdout: $out"
	elif grep -q 'error' "$tmp/err"; then
		why="errors on stderr: $(head -c 600 "$tmp/err")"
	elif [ $# -ge 3 ] && ! grep -F -q -e "$3" "$tmp/err"; then
		why="stderr lacks the warning '$3'; got: $(head -c 600 "$tmp/err")"
	elif [ $# -lt 3 ] && [ -s "$tmp/err" ]; then
		why="unexpected stderr: $(head -c 600 "$tmp/err")"
	fi
	result "$1" "$why"
}

# ---- valid ----------------------------------------------------------------------

new valid
expect_ok valid "$D/t.prv"
case $out in
"$D/t.prv: ok: 9 records (5 states, 3 events, 1 communications), 4 threads, 1000 ns") ;;
*) result valid-summary "summary is '$out'" ;;
esac

new quiet
run "$D/t.prv" -q
if [ "$rc" -eq 0 ] && [ -z "$out" ] && [ ! -s "$tmp/err" ]; then
	result quiet ""
else
	result quiet "-q: exit $rc, stdout '$out'"
fi

new no-ncomm # ",NCOMM" is optional; ovni never writes it
header '#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):1:2(2:1,2:2)'
del t.prv 'c:1:1:2:1:2'
expect_ok no-ncomm "$D/t.prv"

new two-appls
header '#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):2:1(2:1),1(2:2),1'
sub t.prv '1:5:1:2:1:0:150:1' '1:5:2:1:1:0:150:1'
sub t.prv '3:1:1:1:1:100:110:5:1:2:1:120:130:64:7' '3:1:1:1:1:100:110:5:2:1:1:120:130:64:7'
sub t.prv '1:6:1:2:1:150:300:2' '1:6:2:1:1:150:300:2'
sub t.prv '2:5:1:2:1:300:60000001:0' '2:5:2:1:1:300:60000001:0'
sub t.row 'LEVEL APPL SIZE 1' 'LEVEL APPL SIZE 2'
sub t.row 'solver' 'solver
viewer'
expect_ok two-appls "$D/t.prv"

new no-unit
header '#Paraver (14/03/2025 at 09:05):1000:2(4,4):1:2(2:1,2:2),1'
expect_ok no-unit-warns "$D/t.prv" "FTIME has no unit suffix; the reader takes every time as microseconds"

new global-op
add '4:1:1:1:1:400:1:2:3'
expect_ok global-op-warns "$D/t.prv" "global operation record(s) (kind 4), the first here: accepted"

new ties # equal times on one thread, state end then next begin at the same time
add '2:1:1:1:1:200:60000001:1' '1:1:1:1:1:200:200:1' '1:1:1:1:1:200:300:2' '2:1:1:1:1:300:60000001:2'
expect_ok equal-times "$D/t.prv"

new padded # zero-padded FTIME and times, negative event values, int64 sizes
header '#Paraver (14/03/2025 at 09:05):00000000000000001000_ns:2(4,4):1:2(2:1,2:2),1'
add '2:1:1:1:1:00000400:60000010:-9223372036854775808' '3:1:1:1:1:500:500:5:1:2:1:400:600:-1:9223372036854775807'
expect_ok padded-and-signed "$D/t.prv"

new recv-order # the receiver's times are not ordered by the file
add '2:5:1:2:1:900:60000001:1' '3:1:1:1:1:600:600:5:1:2:1:610:620:8:1'
expect_ok receiver-not-ordered "$D/t.prv"

# ---- malformed header -----------------------------------------------------------

# Each row: NAME|HEADER LINE|MESSAGE, the valid trace with its first line
# replaced; weft check must fail with MESSAGE (@D@ stands for the trace's
# folder).
while IFS='|' read -r name line msg; do
	new "$name"
	header "$line"
	expect_fail "$name" "$D/t.prv" "$(at_d "$msg")"
done <<'EOF'
bad-header-start|#Paraver(14/03/2025 at 09:05):1000_ns:2(4,4):1:2(2:1,2:2),1|t.prv:1: header: expected a first line starting with "#Paraver ("
ftime-not-numeric|#Paraver (14/03/2025 at 09:05):1e3_ns:2(4,4):1:2(2:1,2:2),1|FTIME: expected an unsigned integer with an optional unit suffix (like 1000_ns), found "1e3_ns"
nappl-0|#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):0:2(2:1,2:2),1|NAPPL (the number of applications) must be at least 1, found 0
nthreads-0|#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):1:2(0:1,2:2),1|NTHREADS of task 1:1 must be at least 1, found 0
task-node-too-big|#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):1:2(2:1,2:3),1|task 1:2 is on node 3; expected a node in 1..2 (NNODES)
ntasks-mismatch|#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):1:3(2:1,2:2),1|expected ',' after task 1:2 (NTASKS is 3), found ")"
resources-leading-zero|#Paraver (14/03/2025 at 09:05):1000_ns:02(4,4):1:2(2:1,2:2),1|RESOURCES: a leading 0 means no resource model
too-many-threads|#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):1:2(65535:1,2:2),1|more than 65535 threads in total
ncomm-too-large|#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):1:2(2:1,2:2),2|t.prv:3: expected communicator line 2 of 2 (NCOMM in the header), starting with c, C, i or I
header-trailing-text|#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):1:2(2:1,2:2),1x|expected the end of the line after NCOMM, found "x"
EOF

# ---- malformed records ------------------------------------------------------------

# Each row: NAME|RECORD|MESSAGE, the valid trace with RECORD appended.
while IFS='|' read -r name line msg; do
	new "$name"
	add "$line"
	expect_fail "$name" "$D/t.prv" "$(at_d "$msg")"
done <<'EOF'
nonexistent-thread|2:1:1:1:3:500:60000001:1|t.prv:14: event record "2:1:1:1:3:500:60000001:1": thread 3 does not exist in task 1:1; expected 1..2
nonexistent-receiver|3:1:1:1:1:500:500:5:1:3:1:600:600:8:1|receiver task 3 does not exist in application 1; expected 1..2
cpu-out-of-range|2:9:1:1:1:500:60000001:1|CPU 9 does not exist; expected 0..8 (the header declares 8 CPUs)
cpu-of-another-node|2:5:1:1:1:500:60000001:1|CPU 5 is on node 2 but task 1:1 runs on node 1; expected CPU 0 or one of node 1 (1..4)
time-disorder|2:1:1:1:1:50:60000001:1|thread 1:1:1 goes back in time: time 50 is before time 100 of its record at line 11
overlapping-states|1:1:1:1:1:150:250:1|overlaps its previous state ending at 200 (line 11); expected begin >= 200
end-before-begin|1:1:1:1:1:300:250:1|end 250 < begin 300; expected begin <= end
time-after-ftime|2:1:1:1:1:5000:60000001:1|time 5000 is after the trace end; expected at most FTIME 1000
precv-after-ftime|3:1:1:1:1:500:500:5:1:2:1:900:1001:8:1|precv 1001 is after the trace end; expected at most FTIME 1000
unknown-record-kind|5:0:1:1:1:0:1|t.prv:14: line "5:0:1:1:1:0:1": unknown record kind "5"
event-without-value|2:1:1:1:1:500:60000001|event type 60000001 has no value; expected type:value pairs
event-without-pair|2:1:1:1:1:500|no type:value pair after the time; expected at least one
plus-sign|2:1:1:1:1:+500:60000001:1|field 6 (time): expected an unsigned integer, found "+500"
space-in-field|1:1:1:1:1:500:600: 1|field 8 (state): expected an unsigned integer, found " 1"
fractional-time|2:1:1:1:1:500.5:60000001:1|unexpected ".5" after field 6 (time); expected
negative-event-type|2:1:1:1:1:500:-5:1|field 7 (event type): expected an unsigned integer, found "-5"
open-ended-state|1:1:1:1:1:500:-1:1|field 7 (end time): expected an unsigned integer, found "-1"
type-beyond-uint32|2:1:1:1:1:500:4294967296:1|field 7 (event type): "4294967296" is out of range; expected an unsigned integer up to 4294967295
lsend-after-psend|3:1:1:1:1:500:400:5:1:2:1:600:700:8:1|lsend 500 > psend 400; expected lsend <= psend
lrecv-after-precv|3:1:1:1:1:500:500:5:1:2:1:700:600:8:1|lrecv 700 > precv 600; expected lrecv <= precv
short-communication|3:1:1:1:1:500:500:5:1:2:1:700:800:8|the record ends after field 14 (size); expected ':' and more fields
state-without-label|1:1:1:1:1:200:300:9|t.prv:14: state 9 (first used here) has no label in @D@/t.pcf
EOF

# Each row: NAME|RECORD|WARNING, the valid trace with RECORD appended: an
# event type or value without a label is shown by its number in Paraver
# (ovniemu's cpu.prv has such types), so the trace is valid, with WARNING.
while IFS='|' read -r name line msg; do
	new "$name"
	add "$line"
	expect_ok "$name" "$D/t.prv" "$(at_d "$msg")"
done <<'EOF'
type-without-label|2:1:1:1:1:500:7:1|weft: warning: @D@/t.prv:14: event type 7 (first used here) has no label in @D@/t.pcf
value-without-label|2:1:1:1:1:500:60000001:7|weft: warning: @D@/t.prv:14: value 7 of event type 60000001 (first used here) has no label
EOF

new cpu-nores
header '#Paraver (14/03/2025 at 09:05):1000_ns:0:1:2(2:1,2:1),1'
awk -F: 'BEGIN { OFS = ":" } NR > 2 && /^[123]:/ { $2 = 0 } /^3:/ { $8 = 0 } { print }' "$D/t.prv" >"$D/x" && mv "$D/x" "$D/t.prv"
add '2:1:1:1:1:500:60000001:1'
expect_fail cpu-without-resources "$D/t.prv" "CPU 1 but the header has no resource model (RESOURCES 0); expected CPU 0"

new crlf
sub t.prv '2:5:1:2:1:300:60000001:0' "$(printf '2:5:1:2:1:300:60000001:0\r')"
expect_fail crlf-line-end "$D/t.prv" 'unexpected "\r" after field 8 (event value)'

new empty-body
header '#Paraver (14/03/2025 at 09:05):1000_ns:2(4,4):1:2(2:1,2:2),1'
awk 'NR <= 2 || /^#/ || /^$/' "$D/t.prv" >"$D/x" && mv "$D/x" "$D/t.prv"
expect_fail empty-body "$D/t.prv" "no state, event or communication record after the header"

new empty-file
: >"$D/t.prv"
expect_fail empty-file "$D/t.prv" "t.prv: empty file"

new many-errors
i=0
while [ $i -lt 25 ]; do
	add "9:bad line $i"
	i=$((i + 1))
done
expect_fail error-limit "$D/t.prv" "t.prv: 5 more error(s) not shown (25 in all)"
n=$(grep -c '^weft: error: .*unknown record kind' "$tmp/err")
result error-limit-shows-20 "$([ "$n" -eq 20 ] || echo "shown $n errors, expected 20")"

# ---- .pcf and .row ------------------------------------------------------------------

new no-pcf
rm "$D/t.pcf"
expect_fail missing-pcf "$D/t.prv" "t.pcf: cannot open for reading: No such file or directory"

# Each row: NAME|FILE|LINE|NEW LINE|MESSAGE, the valid trace with a whole
# line of its .pcf or .row replaced.
while IFS='|' read -r name file old line msg; do
	new "$name"
	sub "$file" "$old" "$line"
	expect_fail "$name" "$D/t.prv" "$(at_d "$msg")"
done <<'EOF'
pcf-value-beyond-int32|t.pcf|2      Solve|2147483648      Too big|t.pcf:30: value 2147483648 is outside int32
pcf-type-without-label|t.pcf|0    60000010    Bytes written|0    60000010|t.pcf:34: expected '<n> <type> <label>' in an EVENT_TYPE block
pcf-bad-color|t.pcf|1    {0,0,255}|1    {0,0,256}|t.pcf:21: expected '<state value> {r,g,b}'
row-cpu-size|t.row|LEVEL CPU SIZE 8|LEVEL CPU SIZE 9|LEVEL CPU SIZE 9: expected SIZE 8
row-too-few-names|t.row|LEVEL THREAD SIZE 4|LEVEL THREAD SIZE 5|LEVEL THREAD SIZE 5: expected 5 names, found 4 before the end of the file
row-block-header|t.row|LEVEL NODE SIZE 2|LEVEL  NODE SIZE 2|t.row:11: expected a block header 'LEVEL <NAME> SIZE <n>'
EOF

new pcf-outside
printf 'garbage\n' >"$D/x" && cat "$D/t.pcf" >>"$D/x" && mv "$D/x" "$D/t.pcf"
expect_fail pcf-line-outside-sections "$D/t.prv" "t.pcf:1: expected a section keyword"

# ---- .row ----------------------------------------------------------------------------

new no-row
rm "$D/t.row"
expect_fail missing-row "$D/t.prv" "t.row: cannot open for reading: No such file or directory"

new row-threads
sub t.row 'LEVEL THREAD SIZE 4' 'LEVEL THREAD SIZE 3'
del t.row 'THREAD 1.2.2'
expect_fail row-thread-size "$D/t.prv" "t.row:22: LEVEL THREAD SIZE 3: expected SIZE 4 (the header of $D/t.prv declares 4 threads)"

# ---- names, usage ------------------------------------------------------------------------

run "$tmp/nowhere/t.prv" # one error, not three: the side files are not looked for
if [ "$rc" -eq 1 ] && grep -F -q "t.prv: cannot open for reading: No such file or directory" "$tmp/err" &&
	[ "$(grep -c '^weft: error:' "$tmp/err")" -eq 1 ]; then
	result missing-prv ""
else
	result missing-prv "exit $rc; stderr: $(head -c 400 "$tmp/err")"
fi

new wrong-name
cp "$D/t.prv" "$D/t.txt"
expect_fail wrong-extension "$D/t.txt" "t.txt: the name must end in .prv or .prv.gz"

"$WEFT" check >/dev/null 2>&1
rc=$?
result usage-no-file "$([ $rc -eq 2 ] || echo "exit $rc, expected 2")"
"$WEFT" check --bogus "$tmp/valid/t.prv" >/dev/null 2>&1
rc=$?
result usage-bad-option "$([ $rc -eq 2 ] || echo "exit $rc, expected 2")"
"$WEFT" check --help >"$tmp/out" 2>&1
rc=$?
result help "$([ $rc -eq 0 ] && grep -q '^Usage: weft check' "$tmp/out" || echo "exit $rc or no usage")"

# ---- .prv.gz -------------------------------------------------------------------------------

if command -v gzip >/dev/null 2>&1; then
	new gz-valid
	gzip "$D/t.prv"
	expect_ok gz-valid "$D/t.prv.gz"
	new gz-bad
	add '2:1:1:1:1:50:60000001:1'
	gzip "$D/t.prv"
	expect_fail gz-disorder "$D/t.prv.gz" "t.prv.gz:14: event record"
	new gz-truncated
	i=0
	while [ $i -lt 2000 ]; do
		add "2:1:1:1:1:$((400 + i / 4)):60000001:1"
		i=$((i + 1))
	done
	gzip "$D/t.prv"
	size=$(wc -c <"$D/t.prv.gz")
	head -c $((size / 2)) "$D/t.prv.gz" >"$D/x" && mv "$D/x" "$D/t.prv.gz"
	expect_fail gz-truncated "$D/t.prv.gz" "gzip read failed"
else
	skip gz "gzip is not installed"
fi

# ---- corpus references (ovniemu 1.14.0 output) ----------------------------------------------
# thread.prv: RESOURCES 0, every CPU 0, events only, every type labelled in
# thread.pcf (type 2 has an empty VALUES list, so its values need no label);
# its .row has ovni's placeholder "LEVEL NODE SIZE 1", which the reader ignores
# without a resource model: a warning, not an error. cpu.prv uses types 1, 2
# and 3, which cpu.pcf does not label: a warning each, the trace is valid.

T=$corpus/ovni/o-small/trace
if [ -f "$T/thread.prv" ] && [ -f "$T/cpu.prv" ]; then
	expect_ok corpus-thread "$T/thread.prv" "LEVEL NODE SIZE 1 but the header of $T/thread.prv has no resource model"
	case $out in
	*": ok: 4352 records (0 states, 4352 events, 0 communications), 8 threads, 723313 ns") ;;
	*) result corpus-thread-summary "summary is '$out'" ;;
	esac
	expect_ok corpus-cpu "$T/cpu.prv" "weft: warning: $T/cpu.prv:3: event type 1 (first used here) has no label in $T/cpu.pcf"
	for ty in 2 3; do
		if grep -F -q "event type $ty (first used here) has no label" "$tmp/err"; then
			result "corpus-cpu-type-$ty" ""
		else
			result "corpus-cpu-type-$ty" "type $ty not reported"
		fi
	done
else
	skip corpus "no $T/thread.prv"
fi

finish
