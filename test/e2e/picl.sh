#!/bin/sh
# End-to-end tests of the PICL importer and the msg model.
#
#   WEFT=/abs/weft sh test/e2e/picl.sh
#
# Fixtures in test/e2e/picl/ (hand-written, times hand-computed; the
# origin is each log's earliest record): state intervals, communication
# records (lsend psend receiver lrecv precv size tag) and unmatched sends
# written as '#' comments, checked from thread.prv; every output passes
# `weft check`; malformed logs fail with their exact error.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

here=$(cd "$(dirname "$0")" && pwd)
fx="$here/picl"
if [ -z "${WEFT:-}" ] || [ ! -x "$WEFT" ]; then
	echo "picl.sh: set WEFT to the weft binary" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-e2e-picl.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
npass=0
nfail=0
pass() { echo "ok $1"; npass=$((npass + 1)); }
fail() { echo "FAIL $1: $2"; nfail=$((nfail + 1)); }

# emu NAME: emulate fixture NAME.trf into $tmp/NAME and check it
emu() {
	rm -rf "$tmp/$1"
	if ! "$WEFT" emu -q -o "$tmp/$1" "$fx/$1.trf" 2>"$tmp/err"; then
		fail "$1 emu" "$(head -3 "$tmp/err")"
		return 1
	fi
	if ! "$WEFT" check -q "$tmp/$1/thread.prv" >"$tmp/chk" 2>&1; then
		fail "$1 check" "$(head -3 "$tmp/chk")"
		return 1
	fi
	pass "$1 emu+check"
}
# total STATE time per task: sum of state intervals of that value on a task
state_time() { # dir task state
	awk -F: -v t="$2" -v s="$3" '$1 == "1" && $4 == t && $8 == s { n += $7 - $6 } END { print n + 0 }' \
		"$tmp/$1/thread.prv"
}
# communication records with the padding removed
comms() {
	awk -F: '$1 == "3" { o = $1; for (i = 2; i <= NF; i++) o = o ":" ($i + 0); print o }' "$tmp/$1/thread.prv"
}
expect() { # name got want
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got [$2], expected [$3]"; fi
}

# Table 20 of the seed: processor 6 alone
if emu table20; then
	expect "table20 Sending" "$(state_time table20 1 31)" 46000
	expect "table20 Receiving (blocked)" "$(state_time table20 1 32)" 1213000
	expect "table20 Clock sync" "$(state_time table20 1 36)" 8084000
	expect "table20 comms" "$(comms table20 | wc -l | tr -d ' ')" 0
	expect "table20 user block labels" "$(grep -c '^[0-9]* user event' "$tmp/table20/thread.pcf")" 2
fi

# fft.trf (old format, real): 16 tasks, 64 communication lines
if emu fft; then
	expect "fft comms" "$(comms fft | wc -l | tr -d ' ')" 64
	expect "fft tasks" "$(sed -n 's/^LEVEL TASK SIZE //p' "$tmp/fft/thread.row")" 16
	expect "fft first comm" "$(comms fft | head -1)" "3:3:1:2:1:455000:889000:31:1:16:1:996000:1273000:1:30008"
	expect "fft comment lines" "$(grep -c '^#:' "$tmp/fft/thread.prv")" 0
fi

# blocking send/receive between two processors
if emu blocking; then
	expect "blocking comm" "$(comms blocking)" "3:1:1:1:1:10000:20000:3:1:2:1:5000:30000:100:5"
	expect "blocking Sending" "$(state_time blocking 1 31)" 10000
	expect "blocking Receiving" "$(state_time blocking 2 32)" 25000
	expect "blocking Running" "$(state_time blocking 1 30)" 30000
fi

# broadcast (destination -1), exponents, quoted descriptors
if emu bcast; then
	expect "bcast comms" "$(comms bcast | tr '\n' ' ')" \
		"3:1:1:1:1:1000:2000:3:1:2:1:3000:4000:8:7 3:1:1:1:1:1000:2000:5:1:3:1:3000:5000:8:7 3:1:1:1:1:1000:2000:7:1:4:1:3000:6000:8:7 "
	expect "bcast Receiving" "$(state_time bcast 4 32)" 3000
fi

# non-blocking: psend from the -31 exit, lrecv from the -57 entry; -6 alias
if emu nonblock; then
	expect "nonblock comm" "$(comms nonblock)" "3:1:1:1:1:4000:8000:3:1:2:1:2000:12000:64:9"
	expect "nonblock Sending" "$(state_time nonblock 1 31)" 3000
	expect "nonblock Receiving" "$(state_time nonblock 2 32)" 6000
fi

# receive before send (negative times): paired and reported
if emu causal; then
	expect "causal comm" "$(comms causal)" "3:1:1:1:1:6000:9000:3:1:2:1:2000:4000:16:3"
	"$WEFT" emu -o "$tmp/causal2" "$fx/causal.trf" 2>"$tmp/err" >/dev/null
	expect "causal warning" "$(grep -c 'received before they are sent' "$tmp/err")" 1
fi

# unmatched send: a '#' line, reported per key; host 32767 on its own loom;
# -5 label; file I/O as punctual events
if emu unmatched; then
	expect "unmatched comms" "$(comms unmatched | wc -l | tr -d ' ')" 0
	expect "unmatched comment" "$(grep -c '^#:1:1:1:1:2000:' "$tmp/unmatched/thread.prv")" 1
	"$WEFT" emu -o "$tmp/unmatched2" "$fx/unmatched.trf" 2>"$tmp/err" >/dev/null
	expect "unmatched report" "$(grep -c 'processor 0 to processor 1, type 11: 1 sends and 0 receives unmatched' "$tmp/err")" 1
	expect "unmatched label" "$(grep -c '^1 phase one' "$tmp/unmatched/thread.pcf")" 1
	expect "unmatched host loom" "$(grep -c '^picl.host$' "$tmp/unmatched/thread.row")" 1
	expect "unmatched file open" "$(grep -c ':5000:1048:201' "$tmp/unmatched/thread.prv")" 1
	expect "unmatched file fd" "$(grep -c ':6000:.*1050:3' "$tmp/unmatched/thread.prv")" 1
fi

# old format, verbose lines: send state to the second compstats
if emu verbose; then
	expect "verbose comm" "$(comms verbose)" "3:1:1:1:1:10000:25000:3:1:2:1:5000:40000:12:42"
	expect "verbose Receiving" "$(state_time verbose 2 32)" 35000
fi

# old format with the host (-32768) and a user block
if emu oldhost; then
	expect "oldhost comm" "$(comms oldhost)" "3:3:1:2:1:100000:100000:1:1:1:1:150000:300000:2:7"
	expect "oldhost Receiving" "$(state_time oldhost 1 32)" 150000
	expect "oldhost block" "$(grep -c ':400000:100:4' "$tmp/oldhost/thread.prv")" 1
fi

# malformed logs: exact errors
bad() { # name text expected-error
	printf '%s\n' "$2" >"$tmp/$1.trf"
	rm -rf "$tmp/$1.out"
	if "$WEFT" emu -q -o "$tmp/$1.out" "$tmp/$1.trf" 2>"$tmp/err"; then
		fail "malformed $1" "accepted"
		return
	fi
	expect "malformed $1" "$(sed 's|^weft: error: ||; s|^.*/||' "$tmp/err" | head -1)" "$1.trf:$3"
}
bad time '-3 -901 0.0 0 0 0
-3 -21 0.0x1 0 0 3 2 8 1 7' '2: field 3 (timestamp): expected decimal seconds, found '\''0.0x1'\'''
bad count '-3 -901 0.0 0 0 0
-3 -21 0.1 0 0 3 2 8 1' '2: data: expected 3 tokens (3 fields of 1), found 2'
bad quote '-3 -901 0.0 0 0 0
-3 -21 0.1 0 0 3 "%d 8 1 7' '2: a quoted string is not closed: expected '\''"'\'''
bad proc '-3 -901 0.0 0 0 0
-3 -21 0.1 40000 0 3 2 8 1 7' '2: field 4 (processor id): expected 0..32766 or the host 32767 (-1 and below are global), found '\''40000'\'''
bad short '-3 -901 0.0 0 0 0
-3 -21 0.1 0' '2: record of 4 fields: expected at least 6 (record type, event type, timestamp, processor, process, number of data fields)'
bad oldkey '1 0 0 0 0 0 0
4 0 x 0 1 2 3' '2: field 3 (microseconds): expected an integer, found '\''x'\'''
bad oldfields '1 0 0 0 0 0 0
4 0 10 0 1 2' '2: send record: expected 3 fields after the node, found 2'

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
